//! [`Message`], [`MessageId`] and the multiset [`MessageSet`].

use std::ops::Index;

use serde::{Deserialize, Serialize};

use crate::TrafficError;

/// The largest number of messages a [`MessageSet`] holds: ids are `u32`, `0..MAX_MESSAGES`.
pub const MAX_MESSAGES: usize = u32::MAX as usize;

/// A message's id: its position in its [`MessageSet`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct MessageId(pub u32);

impl MessageId {
    /// The id as a `usize`, for indexing per-message arrays.
    #[inline]
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// One message: a source and a destination processor.
///
/// Serializes as the pair `[src, dst]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(from = "(u32, u32)", into = "(u32, u32)")]
pub struct Message {
    /// Source processor.
    pub src: u32,
    /// Destination processor.
    pub dst: u32,
}

impl Message {
    /// The message `src -> dst`.
    #[inline]
    pub const fn new(src: u32, dst: u32) -> Self {
        Self { src, dst }
    }

    /// Whether the message goes from a processor to itself.
    #[inline]
    pub const fn is_self(self) -> bool {
        self.src == self.dst
    }
}

impl From<(u32, u32)> for Message {
    fn from((src, dst): (u32, u32)) -> Self {
        Self { src, dst }
    }
}

impl From<Message> for (u32, u32) {
    fn from(m: Message) -> Self {
        (m.src, m.dst)
    }
}

/// A multiset of messages on `processors` processors, numbered `0..processors`.
///
/// Message `i` has id [`MessageId`]`(i)`. The same (source, destination) pair may occur any
/// number of times, and self-messages (source = destination) are allowed.
///
/// Invariants, checked by every constructor: `processors >= 1`, every source and destination
/// is `< processors`, and there are at most [`MAX_MESSAGES`] messages.
///
/// Serializes as `{"processors": n, "messages": [[src, dst], ...]}` (the schema of
/// [`crate::io`]); deserialization validates.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "RawMessageSet")]
pub struct MessageSet {
    processors: u32,
    messages: Vec<Message>,
}

/// The unvalidated serde form of a [`MessageSet`].
#[derive(Deserialize)]
pub(crate) struct RawMessageSet {
    pub(crate) processors: u32,
    pub(crate) messages: Vec<Message>,
}

impl TryFrom<RawMessageSet> for MessageSet {
    type Error = TrafficError;

    fn try_from(raw: RawMessageSet) -> Result<Self, Self::Error> {
        MessageSet::new(raw.processors, raw.messages)
    }
}

impl MessageSet {
    /// A message set on `processors` processors.
    ///
    /// # Errors
    ///
    /// [`TrafficError::TooFewProcessors`] if `processors == 0`,
    /// [`TrafficError::ProcessorOutOfRange`] naming the first message with a source or
    /// destination `>= processors`, and [`TrafficError::TooManyMessages`] if there are more
    /// than [`MAX_MESSAGES`] messages.
    pub fn new(processors: u32, messages: Vec<Message>) -> Result<Self, TrafficError> {
        if processors == 0 {
            return Err(TrafficError::TooFewProcessors {
                what: "message set",
                processors,
                min: 1,
            });
        }
        check_count(messages.len())?;
        for (index, m) in messages.iter().enumerate() {
            check_message(processors, index, *m)?;
        }
        Ok(Self {
            processors,
            messages,
        })
    }

    /// An empty message set on `processors` processors.
    ///
    /// # Errors
    ///
    /// [`TrafficError::TooFewProcessors`] if `processors == 0`.
    pub fn empty(processors: u32) -> Result<Self, TrafficError> {
        Self::new(processors, Vec::new())
    }

    /// Builds a set whose messages are already known to be valid (crate-internal generators).
    pub(crate) fn from_valid(processors: u32, messages: Vec<Message>) -> Self {
        debug_assert!(processors >= 1);
        debug_assert!(messages.len() <= MAX_MESSAGES);
        debug_assert!(
            messages
                .iter()
                .all(|m| m.src < processors && m.dst < processors)
        );
        Self {
            processors,
            messages,
        }
    }

    /// Number of processors `n`.
    #[inline]
    pub fn processors(&self) -> u32 {
        self.processors
    }

    /// Number of messages.
    #[inline]
    pub fn len(&self) -> usize {
        self.messages.len()
    }

    /// Whether there are no messages.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.messages.is_empty()
    }

    /// The messages, in id order.
    #[inline]
    pub fn messages(&self) -> &[Message] {
        &self.messages
    }

    /// The messages with their ids, in id order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (MessageId, Message)> + '_ {
        self.messages
            .iter()
            .enumerate()
            .map(|(i, m)| (MessageId(i as u32), *m))
    }

    /// The message with id `id`, if there is one.
    #[inline]
    pub fn get(&self, id: MessageId) -> Option<Message> {
        self.messages.get(id.index()).copied()
    }

    /// Consumes the set, returning its messages in id order.
    pub fn into_messages(self) -> Vec<Message> {
        self.messages
    }

    /// Appends `message` and returns its id.
    ///
    /// # Errors
    ///
    /// [`TrafficError::ProcessorOutOfRange`] if the source or destination is not a processor,
    /// [`TrafficError::TooManyMessages`] if the set is full. The set is unchanged on error.
    pub fn push(&mut self, message: Message) -> Result<MessageId, TrafficError> {
        let index = self.messages.len();
        check_count(index + 1)?;
        check_message(self.processors, index, message)?;
        self.messages.push(message);
        Ok(MessageId(index as u32))
    }

    /// Appends all messages of `other` (which keep their order; their ids shift by
    /// `self.len()`).
    ///
    /// # Errors
    ///
    /// [`TrafficError::ProcessorsMismatch`] if the sets have different processor counts,
    /// [`TrafficError::TooManyMessages`] if the result would be too large. The set is
    /// unchanged on error.
    pub fn extend(&mut self, other: &MessageSet) -> Result<(), TrafficError> {
        if other.processors != self.processors {
            return Err(TrafficError::ProcessorsMismatch {
                expected: self.processors,
                found: other.processors,
            });
        }
        check_count(self.messages.len() + other.messages.len())?;
        self.messages.extend_from_slice(&other.messages);
        Ok(())
    }

    /// The concatenation of `self` and `other`: the messages of `self`, then those of `other`.
    ///
    /// # Errors
    ///
    /// As [`MessageSet::extend`].
    pub fn concat(&self, other: &MessageSet) -> Result<MessageSet, TrafficError> {
        let mut out = self.clone();
        out.extend(other)?;
        Ok(out)
    }

    /// Number of messages each processor sends, indexed by processor.
    pub fn out_degrees(&self) -> Vec<u32> {
        let mut deg = vec![0u32; self.processors as usize];
        for m in &self.messages {
            deg[m.src as usize] += 1;
        }
        deg
    }

    /// Number of messages each processor receives, indexed by processor.
    pub fn in_degrees(&self) -> Vec<u32> {
        let mut deg = vec![0u32; self.processors as usize];
        for m in &self.messages {
            deg[m.dst as usize] += 1;
        }
        deg
    }

    /// The largest number of messages any processor sends (0 for an empty set).
    pub fn max_out_degree(&self) -> u32 {
        self.out_degrees().into_iter().max().unwrap_or(0)
    }

    /// The largest number of messages any processor receives (0 for an empty set).
    pub fn max_in_degree(&self) -> u32 {
        self.in_degrees().into_iter().max().unwrap_or(0)
    }

    /// Whether this is a (partial) permutation: every processor sends at most one message
    /// and receives at most one. Processors that neither send nor receive are allowed.
    pub fn is_permutation(&self) -> bool {
        let n = self.processors as usize;
        if self.messages.len() > n {
            return false;
        }
        let mut sends = vec![false; n];
        let mut receives = vec![false; n];
        for m in &self.messages {
            let (s, d) = (m.src as usize, m.dst as usize);
            if sends[s] || receives[d] {
                return false;
            }
            sends[s] = true;
            receives[d] = true;
        }
        true
    }

    /// Number of self-messages (source = destination).
    pub fn self_messages(&self) -> usize {
        self.messages.iter().filter(|m| m.is_self()).count()
    }
}

impl Index<MessageId> for MessageSet {
    type Output = Message;

    /// # Panics
    ///
    /// If there is no message with this id.
    fn index(&self, id: MessageId) -> &Message {
        &self.messages[id.index()]
    }
}

fn check_count(count: usize) -> Result<(), TrafficError> {
    if count > MAX_MESSAGES {
        Err(TrafficError::TooManyMessages {
            count: count as u64,
            max: MAX_MESSAGES as u64,
        })
    } else {
        Ok(())
    }
}

fn check_message(processors: u32, index: usize, m: Message) -> Result<(), TrafficError> {
    for p in [m.src, m.dst] {
        if p >= processors {
            return Err(TrafficError::ProcessorOutOfRange {
                index,
                processor: u64::from(p),
                processors,
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(n: u32, pairs: &[(u32, u32)]) -> MessageSet {
        MessageSet::new(n, pairs.iter().map(|&p| p.into()).collect()).unwrap()
    }

    #[test]
    fn new_validates_ids() {
        let err = MessageSet::new(4, vec![Message::new(0, 1), Message::new(2, 4)]).unwrap_err();
        assert!(matches!(
            err,
            TrafficError::ProcessorOutOfRange {
                index: 1,
                processor: 4,
                processors: 4
            }
        ));
        assert_eq!(
            err.to_string(),
            "message 1: processor 4 out of range (n = 4)"
        );
        let err = MessageSet::new(4, vec![Message::new(7, 1)]).unwrap_err();
        assert!(matches!(
            err,
            TrafficError::ProcessorOutOfRange {
                index: 0,
                processor: 7,
                ..
            }
        ));
        assert!(matches!(
            MessageSet::new(0, vec![]),
            Err(TrafficError::TooFewProcessors { processors: 0, .. })
        ));
    }

    #[test]
    fn accessors() {
        let s = set(4, &[(0, 1), (1, 1), (3, 0)]);
        assert_eq!(s.processors(), 4);
        assert_eq!(s.len(), 3);
        assert!(!s.is_empty());
        assert_eq!(s.get(MessageId(1)), Some(Message::new(1, 1)));
        assert_eq!(s.get(MessageId(3)), None);
        assert_eq!(s[MessageId(2)], Message::new(3, 0));
        let ids: Vec<_> = s.iter().map(|(id, m)| (id.0, m.src, m.dst)).collect();
        assert_eq!(ids, vec![(0, 0, 1), (1, 1, 1), (2, 3, 0)]);
        assert_eq!(s.self_messages(), 1);
        assert_eq!(s.out_degrees(), vec![1, 1, 0, 1]);
        assert_eq!(s.in_degrees(), vec![1, 2, 0, 0]);
        assert_eq!(s.max_out_degree(), 1);
        assert_eq!(s.max_in_degree(), 2);
        assert!(MessageSet::empty(3).unwrap().is_empty());
        assert_eq!(MessageSet::empty(3).unwrap().max_in_degree(), 0);
    }

    #[test]
    fn push_validates_and_returns_id() {
        let mut s = set(3, &[(0, 1)]);
        assert_eq!(s.push(Message::new(2, 2)).unwrap(), MessageId(1));
        let err = s.push(Message::new(3, 0)).unwrap_err();
        assert!(matches!(
            err,
            TrafficError::ProcessorOutOfRange {
                index: 2,
                processor: 3,
                processors: 3
            }
        ));
        assert_eq!(s.len(), 2);
    }

    #[test]
    fn extend_and_concat() {
        let a = set(4, &[(0, 1), (1, 2)]);
        let b = set(4, &[(3, 3)]);
        let c = a.concat(&b).unwrap();
        assert_eq!(
            c.messages(),
            &[Message::new(0, 1), Message::new(1, 2), Message::new(3, 3)]
        );
        let mut d = a.clone();
        let err = d.extend(&set(5, &[])).unwrap_err();
        assert!(matches!(
            err,
            TrafficError::ProcessorsMismatch {
                expected: 4,
                found: 5
            }
        ));
        assert_eq!(d, a);
    }

    #[test]
    fn permutation_check() {
        assert!(set(4, &[(0, 1), (1, 0), (2, 2)]).is_permutation());
        assert!(set(4, &[]).is_permutation());
        assert!(!set(4, &[(0, 1), (0, 2)]).is_permutation());
        assert!(!set(4, &[(0, 1), (2, 1)]).is_permutation());
    }

    #[test]
    fn serde_form_is_pairs_and_validates() {
        let s = set(3, &[(0, 2), (2, 1)]);
        let json = serde_json::to_string(&s).unwrap();
        assert_eq!(json, r#"{"processors":3,"messages":[[0,2],[2,1]]}"#);
        let back: MessageSet = serde_json::from_str(&json).unwrap();
        assert_eq!(back, s);
        assert!(
            serde_json::from_str::<MessageSet>(r#"{"processors":3,"messages":[[0,3]]}"#).is_err()
        );
    }
}
