//! [`Schedule`]: a partition of a message set into delivery cycles, and its verifier.

use fatnet_topology::{ChannelId, Topology, node_label};
use fatnet_traffic::{MessageId, MessageSet};
use serde::Serialize;

/// Why a schedule is not a valid schedule of a message set on a topology: the first problem
/// found, in the order (message ids in range, no message twice, no message missing, no channel
/// over capacity in any cycle).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
#[non_exhaustive]
pub enum Violation {
    /// A cycle names a message the set does not have.
    UnknownMessage {
        /// The cycle.
        cycle: usize,
        /// The id.
        message: u32,
    },
    /// A cycle delivers a `src -> dst` pair the message set does not have, or has fewer
    /// times (a schedule written as pairs, [`crate::written`]).
    NotInSet {
        /// The cycle.
        cycle: usize,
        /// Source processor.
        src: u32,
        /// Destination processor.
        dst: u32,
    },
    /// A message is scheduled twice.
    Duplicate {
        /// The id.
        message: u32,
        /// The first cycle it is in.
        first_cycle: usize,
        /// The second.
        second_cycle: usize,
    },
    /// A message is in no cycle.
    Missing {
        /// The id.
        message: u32,
    },
    /// In some cycle a channel carries more messages than its capacity.
    Overloaded {
        /// The cycle.
        cycle: usize,
        /// The channel.
        channel: u32,
        /// Messages of the cycle on the channel.
        load: u64,
        /// Capacity of the channel.
        capacity: u64,
    },
    /// The message set has more processors than the topology.
    ProcessorMismatch {
        /// Processors of the message set.
        messages: u64,
        /// Processors of the topology.
        topology: u64,
    },
}

impl Violation {
    /// The violation in words, with the pairs of the messages of `messages` and the end nodes
    /// of the channel of `topo` it names (`p<i>` processor, `s<level>.<index>` switch).
    ///
    /// `messages` and `topo` must be those the schedule was verified against; an id or a
    /// channel they do not have is named by its number only.
    pub fn describe<T: Topology + ?Sized>(&self, topo: &T, messages: &MessageSet) -> String {
        let pair = |id: u32| {
            messages
                .get(MessageId(id))
                .map_or_else(String::new, |m| format!(" ({}->{})", m.src, m.dst))
        };
        match *self {
            Violation::UnknownMessage { cycle, message } => format!(
                "cycle {cycle} delivers message {message}, which is not in the message set \
                 ({} messages)",
                messages.len()
            ),
            Violation::NotInSet { cycle, src, dst } => {
                let have = messages
                    .messages()
                    .iter()
                    .filter(|m| m.src == src && m.dst == dst)
                    .count();
                if have == 0 {
                    format!("cycle {cycle} delivers {src}->{dst}, which is not in the message set")
                } else {
                    format!(
                        "cycle {cycle} delivers {src}->{dst} more often than the message set \
                         has it ({have} times)"
                    )
                }
            }
            Violation::Duplicate {
                message,
                first_cycle,
                second_cycle,
            } => format!(
                "message {message}{} is delivered twice, in cycles {first_cycle} and \
                 {second_cycle}",
                pair(message)
            ),
            Violation::Missing { message } => {
                format!("message {message}{} is not delivered", pair(message))
            }
            Violation::Overloaded {
                cycle,
                channel,
                load,
                capacity,
            } => {
                let at = if channel < topo.num_channels() {
                    let ch = topo.channel(ChannelId(channel));
                    format!(
                        " ({} -> {})",
                        node_label(topo, ch.from),
                        node_label(topo, ch.to)
                    )
                } else {
                    String::new()
                };
                format!(
                    "cycle {cycle} puts {load} messages on channel {channel}{at}, whose \
                     capacity is {capacity}"
                )
            }
            Violation::ProcessorMismatch { messages, topology } => format!(
                "the message set is on {messages} processors but the topology has {topology}"
            ),
        }
    }
}

/// A schedule: the delivery cycles of a message set, each a list of message ids.
///
/// In cycle `i` the messages of `cycles()[i]` are sent together along their paths; the
/// schedule is valid when every message is in exactly one cycle and no cycle puts more
/// messages on a channel than its capacity ([`Schedule::verify`]).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct Schedule {
    cycles: Vec<Vec<MessageId>>,
}

impl Schedule {
    /// A schedule with the given cycles (not verified: call [`Schedule::verify`]).
    pub fn new(cycles: Vec<Vec<MessageId>>) -> Self {
        Self { cycles }
    }

    /// The cycles.
    pub fn cycles(&self) -> &[Vec<MessageId>] {
        &self.cycles
    }

    /// Number of delivery cycles.
    pub fn len(&self) -> usize {
        self.cycles.len()
    }

    /// Whether there are no cycles.
    pub fn is_empty(&self) -> bool {
        self.cycles.is_empty()
    }

    /// The cycles as lists of message positions (`u32`), for output.
    pub fn to_ids(&self) -> Vec<Vec<u32>> {
        self.cycles
            .iter()
            .map(|c| c.iter().map(|m| m.0).collect())
            .collect()
    }

    /// Checks that the schedule is an exact partition of `messages` into cycles in which no
    /// channel of `topo` carries more than its capacity. Messages follow the topology's
    /// standard paths ([`Topology::standard_path_index`]; unique on the binary fat-tree).
    ///
    /// Runs in `O(Σ path lengths + |M| + cycles)`.
    ///
    /// # Errors
    ///
    /// The first [`Violation`] found.
    pub fn verify<T: Topology + ?Sized>(
        &self,
        topo: &T,
        messages: &MessageSet,
    ) -> Result<(), Violation> {
        if messages.processors() > topo.num_processors() {
            return Err(Violation::ProcessorMismatch {
                messages: u64::from(messages.processors()),
                topology: u64::from(topo.num_processors()),
            });
        }
        const NONE: usize = usize::MAX;
        let mut seen = vec![NONE; messages.len()];
        for (i, cycle) in self.cycles.iter().enumerate() {
            for &m in cycle {
                let slot = seen.get_mut(m.index()).ok_or(Violation::UnknownMessage {
                    cycle: i,
                    message: m.0,
                })?;
                if *slot != NONE {
                    return Err(Violation::Duplicate {
                        message: m.0,
                        first_cycle: *slot,
                        second_cycle: i,
                    });
                }
                *slot = i;
            }
        }
        if let Some(m) = seen.iter().position(|&s| s == NONE) {
            return Err(Violation::Missing { message: m as u32 });
        }
        let msgs = messages.messages();
        let mut load = vec![0u64; topo.num_channels() as usize];
        let mut path: Vec<ChannelId> = Vec::new();
        for (i, cycle) in self.cycles.iter().enumerate() {
            for &m in cycle {
                let x = msgs[m.index()];
                topo.path_into(
                    x.src,
                    x.dst,
                    topo.standard_path_index(x.src, x.dst),
                    &mut path,
                );
                for c in &path {
                    load[c.index()] += 1;
                }
            }
            // Check and reset only the channels this cycle touched.
            let mut violation = None;
            for &m in cycle {
                let x = msgs[m.index()];
                topo.path_into(
                    x.src,
                    x.dst,
                    topo.standard_path_index(x.src, x.dst),
                    &mut path,
                );
                for c in &path {
                    let l = load[c.index()];
                    if l > 0 {
                        let capacity = topo.channel(*c).capacity;
                        if l > capacity && violation.is_none() {
                            violation = Some(Violation::Overloaded {
                                cycle: i,
                                channel: c.0,
                                load: l,
                                capacity,
                            });
                        }
                        load[c.index()] = 0;
                    }
                }
            }
            if let Some(v) = violation {
                return Err(v);
            }
        }
        Ok(())
    }
}
