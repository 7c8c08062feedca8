//! Schedules written by users: two file formats, read once into a [`WrittenSchedule`], and
//! checked against a topology ([`WrittenSchedule::check`]) into a [`Verdict`].
//!
//! The two formats are told apart by the first character other than white space: `{` means
//! JSON.
//!
//! **JSON**: what `fatnet schedule --json` writes, so a computed schedule verifies as it is.
//! Two fields are read, every other is ignored: `schedule`, the cycles as lists of message
//! ids, and `pairs`, the message set as `[src, dst]` by id. The file carries its message set:
//! an id it does not have, an id twice or an id in no cycle is a violation.
//!
//! ```json
//! {"schedule": [[0, 1], [2, 3]], "pairs": [[0, 2], [1, 3], [0, 3], [1, 2]]}
//! ```
//!
//! **Text**: the cycle lines `fatnet schedule --cycles` prints, one cycle per line, each a
//! list of `src->dst` pairs separated by white space, optionally after `cycle N:` (then `N`
//! must be the cycle's number, counting from 0; an empty cycle is written `cycle N:`). A `#`
//! starts a comment that runs to the end of the line; blank lines are ignored. Lines are not
//! bounded (a cycle may carry a message from every processor); the file is, by its reader.
//!
//! ```text
//! # two cycles on fattree:n=4,profile=constant,cap=2
//! cycle 0: 0->2 1->3
//! cycle 1: 0->3 1->2
//! ```
//!
//! A text file has no message set: it is checked against the one given (`--traffic`), or, if
//! none is, against the pairs it lists. A given set is matched pair by pair: the `k`-th
//! occurrence of `src->dst` in the file is the `k`-th message `src->dst` of the set, so a
//! pair the set does not have, or has fewer times, is a violation.
//!
//! Bad input (syntax, a processor the topology does not have) is an [`OfflineError`] naming
//! the line, or the line and column (JSON syntax), or the message (JSON ids); a schedule that
//! reads well but is wrong is a [`Violation`] in the [`Verdict`], a result and not an error.

use std::collections::HashMap;

use fatnet_load::{LoadFactor, PathSelection, analyze, check_analysis};
use fatnet_topology::{AnyTopology, Topology, TopologySpec};
use fatnet_traffic::{Message, MessageId, MessageSet};
use serde::Deserialize;

use crate::{OfflineError, Schedule, Violation};

/// A schedule as a file writes it, read but not checked.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum WrittenSchedule {
    /// Cycles of message ids into the file's own message set (the JSON format).
    Ids {
        /// The message set, `[src, dst]` by id.
        pairs: Vec<Message>,
        /// Every cycle's message ids.
        cycles: Vec<Vec<u32>>,
        /// The topology the file says it was made for (`fatnet schedule --json` writes it),
        /// as written; a front end compares it with the topology it checks on
        /// ([`WrittenSchedule::made_for`]).
        made_for: Option<String>,
    },
    /// Cycles of `src->dst` pairs, without a message set (the text format).
    Pairs {
        /// Every cycle's messages.
        cycles: Vec<Vec<Message>>,
    },
}

/// What [`WrittenSchedule::check`] found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    /// The message set the schedule was checked against.
    pub messages: MessageSet,
    /// Delivery cycles of the schedule.
    pub cycles: usize,
    /// λ(M) of the message set over channel bundles: no schedule has fewer than `⌈λ⌉` cycles.
    pub load_factor: LoadFactor,
    /// The first violation, or `None` for a valid schedule.
    pub violation: Option<Violation>,
}

impl Verdict {
    /// Whether the schedule is valid.
    pub fn is_valid(&self) -> bool {
        self.violation.is_none()
    }
}

/// The JSON fields read; `fatnet schedule --json` writes many more.
#[derive(Deserialize)]
struct JsonSchedule {
    schedule: Vec<Vec<u32>>,
    pairs: Vec<Message>,
    #[serde(default)]
    topology: Option<String>,
}

impl WrittenSchedule {
    /// Reads a schedule file's contents for a topology with `processors` processors, in
    /// either format (see the [module documentation](self)).
    ///
    /// # Errors
    ///
    /// - [`OfflineError::ScheduleJson`] for JSON that does not parse or lacks `schedule` or
    ///   `pairs`, with its line and column;
    /// - [`OfflineError::SchedulePairOutOfRange`] for a JSON pair naming a processor
    ///   `>= processors`;
    /// - [`OfflineError::MalformedScheduleLine`] for a text line that is not UTF-8 or not a
    ///   list of `src->dst` pairs;
    /// - [`OfflineError::WrongCycleNumber`] for `cycle N:` where `N` is not the line's cycle;
    /// - [`OfflineError::ScheduleLineNodeOutOfRange`] for a processor `>= processors` on a
    ///   text line.
    pub fn parse(bytes: &[u8], processors: u32) -> Result<WrittenSchedule, OfflineError> {
        let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
        if bytes.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{') {
            parse_json(bytes, processors)
        } else {
            parse_text(bytes, processors)
        }
    }

    /// The topology a JSON schedule says it was made for, as written (`None` for text, or
    /// JSON without the field).
    pub fn made_for(&self) -> Option<&str> {
        match self {
            WrittenSchedule::Ids { made_for, .. } => made_for.as_deref(),
            WrittenSchedule::Pairs { .. } => None,
        }
    }

    /// Checks that the schedule may be judged on `topology`: a JSON schedule that names the
    /// topology it was made for must name this one (in any spelling of it); a text schedule,
    /// or JSON without the field, may be judged on any.
    ///
    /// # Errors
    ///
    /// [`OfflineError::ScheduleForAnotherTopology`] when the file names another topology (or
    /// one that does not parse).
    pub fn check_made_for(&self, topology: &TopologySpec) -> Result<(), OfflineError> {
        match self.made_for() {
            Some(made_for) if made_for.parse::<TopologySpec>().ok().as_ref() != Some(topology) => {
                Err(OfflineError::ScheduleForAnotherTopology {
                    made_for: made_for.to_string(),
                    given: topology.to_string(),
                })
            }
            _ => Ok(()),
        }
    }

    /// Number of delivery cycles.
    pub fn len(&self) -> usize {
        match self {
            WrittenSchedule::Ids { cycles, .. } => cycles.len(),
            WrittenSchedule::Pairs { cycles } => cycles.len(),
        }
    }

    /// Whether the schedule has no cycles.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Checks the schedule on `topo` (messages on the topology's standard paths, as
    /// [`Schedule::verify`]) against `set`, or, without one, against the file's own message
    /// set (JSON) or the pairs it lists (text); and computes λ of that set.
    ///
    /// # Errors
    ///
    /// - [`OfflineError::ProcessorMismatch`] when `set` has more processors than `topo`;
    /// - [`OfflineError::NodeOutOfRange`] when the file names a processor `topo` does not
    ///   have (it cannot when read with `topo.num_processors()`);
    /// - [`OfflineError::OutOfRange`] (`messages`) for more than `2^32 - 1` messages;
    /// - [`OfflineError::Load`] when the load tables of `topo` exceed the memory budget.
    pub fn check(
        &self,
        topo: &AnyTopology,
        set: Option<&MessageSet>,
    ) -> Result<Verdict, OfflineError> {
        let processors = topo.num_processors();
        if let Some(set) = set
            && set.processors() > processors
        {
            return Err(OfflineError::ProcessorMismatch {
                messages: u64::from(set.processors()),
                topology: u64::from(processors),
            });
        }
        check_analysis(topo).map_err(|source| OfflineError::Load { source })?;
        let owned = |pairs: Vec<Message>| {
            if let Some(node) = pairs
                .iter()
                .flat_map(|m| [m.src, m.dst])
                .find(|&v| v >= processors)
            {
                return Err(OfflineError::NodeOutOfRange {
                    node: u64::from(node),
                    nodes: u64::from(processors),
                });
            }
            let count = pairs.len() as u64;
            MessageSet::new(processors, pairs).map_err(|_| OfflineError::OutOfRange {
                param: "messages",
                value: count,
                allowed: "at most 2^32 - 1",
            })
        };
        let (messages, schedule) = match (self, set) {
            (WrittenSchedule::Ids { pairs, cycles, .. }, None) => {
                (owned(pairs.clone())?, Ok(Schedule::new(ids(cycles))))
            }
            (WrittenSchedule::Ids { pairs, cycles, .. }, Some(set)) => {
                let written = cycles
                    .iter()
                    .enumerate()
                    .map(|(i, c)| {
                        c.iter()
                            .map(|&id| {
                                pairs
                                    .get(id as usize)
                                    .copied()
                                    .ok_or(Violation::UnknownMessage {
                                        cycle: i,
                                        message: id,
                                    })
                            })
                            .collect::<Result<Vec<_>, _>>()
                    })
                    .collect::<Result<Vec<_>, _>>();
                let schedule = written.and_then(|w| match_pairs(&w, set));
                (set.clone(), schedule)
            }
            (WrittenSchedule::Pairs { cycles }, None) => {
                let mut next = 0u32;
                let schedule = cycles
                    .iter()
                    .map(|c| {
                        c.iter()
                            .map(|_| {
                                next += 1;
                                MessageId(next - 1)
                            })
                            .collect()
                    })
                    .collect();
                (
                    owned(cycles.iter().flatten().copied().collect())?,
                    Ok(Schedule::new(schedule)),
                )
            }
            (WrittenSchedule::Pairs { cycles }, Some(set)) => {
                (set.clone(), match_pairs(cycles, set))
            }
        };
        let violation = schedule.and_then(|s| s.verify(topo, &messages)).err();
        let report = analyze(topo, &messages, PathSelection::Standard)
            .map_err(|source| OfflineError::Load { source })?;
        Ok(Verdict {
            messages,
            cycles: self.len(),
            load_factor: report.load_factor,
            violation,
        })
    }
}

fn ids(cycles: &[Vec<u32>]) -> Vec<Vec<MessageId>> {
    cycles
        .iter()
        .map(|c| c.iter().map(|&m| MessageId(m)).collect())
        .collect()
}

/// The schedule of `set` that delivers the `k`-th occurrence of each pair of `cycles` as the
/// `k`-th message with that pair; the first pair `set` does not have, or has fewer times, is
/// the violation.
fn match_pairs(cycles: &[Vec<Message>], set: &MessageSet) -> Result<Schedule, Violation> {
    // The ids of each pair, in id order, and how many are used.
    let mut by_pair: HashMap<Message, (Vec<u32>, usize)> = HashMap::new();
    for (id, m) in set.iter() {
        by_pair.entry(m).or_default().0.push(id.0);
    }
    let mut cycle_of = vec![0usize; set.len()];
    let mut out = Vec::with_capacity(cycles.len());
    for (i, c) in cycles.iter().enumerate() {
        let mut cycle = Vec::with_capacity(c.len());
        for &m in c {
            let Some((ids, used)) = by_pair.get_mut(&m) else {
                return Err(Violation::NotInSet {
                    cycle: i,
                    src: m.src,
                    dst: m.dst,
                });
            };
            if *used == ids.len() {
                // One message with the pair: it is delivered twice; several: the pair is
                // delivered more often than the set has it.
                return Err(match ids[..] {
                    [id] => Violation::Duplicate {
                        message: id,
                        first_cycle: cycle_of[id as usize],
                        second_cycle: i,
                    },
                    _ => Violation::NotInSet {
                        cycle: i,
                        src: m.src,
                        dst: m.dst,
                    },
                });
            }
            let id = ids[*used];
            *used += 1;
            cycle_of[id as usize] = i;
            cycle.push(MessageId(id));
        }
        out.push(cycle);
    }
    Ok(Schedule::new(out))
}

fn parse_json(bytes: &[u8], processors: u32) -> Result<WrittenSchedule, OfflineError> {
    let raw: JsonSchedule =
        serde_json::from_slice(bytes).map_err(|e| OfflineError::ScheduleJson {
            line: e.line(),
            column: e.column(),
            problem: json_problem(&e),
        })?;
    for (i, m) in raw.pairs.iter().enumerate() {
        for node in [m.src, m.dst] {
            if node >= processors {
                return Err(OfflineError::SchedulePairOutOfRange {
                    message: i as u32,
                    node: u64::from(node),
                    processors,
                });
            }
        }
    }
    Ok(WrittenSchedule::Ids {
        pairs: raw.pairs,
        cycles: raw.schedule,
        made_for: raw.topology,
    })
}

/// serde_json's message without its trailing ` at line L column C` (the error has them as
/// fields).
fn json_problem(e: &serde_json::Error) -> String {
    let text = e.to_string();
    match text.rfind(" at line ") {
        Some(cut) => text[..cut].to_string(),
        None => text,
    }
}

fn parse_text(bytes: &[u8], processors: u32) -> Result<WrittenSchedule, OfflineError> {
    let mut cycles = Vec::new();
    for (i, raw) in bytes.split(|&b| b == b'\n').enumerate() {
        let line = i + 1;
        let malformed = |expected: &'static str| OfflineError::MalformedScheduleLine {
            line,
            text: shorten(String::from_utf8_lossy(raw).trim_end()),
            expected,
        };
        let text = std::str::from_utf8(raw).map_err(|_| malformed("UTF-8 text"))?;
        let content = text
            .split_once('#')
            .map_or(text, |(before, _)| before)
            .trim();
        if content.is_empty() {
            continue;
        }
        let pairs = match content.strip_prefix("cycle") {
            Some(rest) if rest.starts_with(|c: char| c.is_whitespace()) => {
                let (number, pairs) = rest
                    .split_once(':')
                    .ok_or_else(|| malformed("`cycle N:` and `src->dst` pairs"))?;
                let number = number.trim();
                if number.is_empty() || !number.bytes().all(|c| c.is_ascii_digit()) {
                    return Err(malformed("`cycle N:` and `src->dst` pairs"));
                }
                let found = number.parse::<u64>().unwrap_or(u64::MAX);
                if found != cycles.len() as u64 {
                    return Err(OfflineError::WrongCycleNumber {
                        line,
                        expected: cycles.len() as u64,
                        found,
                    });
                }
                pairs
            }
            _ => content,
        };
        let mut cycle = Vec::new();
        for pair in pairs.split_whitespace() {
            let (src, dst) = pair
                .split_once("->")
                .ok_or_else(|| malformed("`src->dst` pairs separated by spaces"))?;
            let node = |field: &str| -> Result<u32, OfflineError> {
                if field.is_empty() || !field.bytes().all(|c| c.is_ascii_digit()) {
                    return Err(malformed("`src->dst` pairs separated by spaces"));
                }
                // All digits: only an overflow fails, and that is out of range too.
                let value = field.parse::<u64>().unwrap_or(u64::MAX);
                if value >= u64::from(processors) {
                    return Err(OfflineError::ScheduleLineNodeOutOfRange {
                        line,
                        node: value,
                        processors,
                    });
                }
                Ok(value as u32)
            };
            cycle.push(Message::new(node(src)?, node(dst)?));
        }
        cycles.push(cycle);
    }
    Ok(WrittenSchedule::Pairs { cycles })
}

/// At most 60 characters of `s`, with `…` when shortened.
fn shorten(s: &str) -> String {
    const MAX: usize = 60;
    match s.char_indices().nth(MAX) {
        None => s.to_string(),
        Some((cut, _)) => format!("{}…", &s[..cut]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fatnet_topology::TopologySpec;

    fn topo(spec: &str) -> AnyTopology {
        spec.parse::<TopologySpec>().unwrap().build().unwrap()
    }

    fn set(n: u32, pairs: &[(u32, u32)]) -> MessageSet {
        MessageSet::new(n, pairs.iter().map(|&p| p.into()).collect()).unwrap()
    }

    fn check(text: &str, spec: &str, given: Option<&MessageSet>) -> (Verdict, AnyTopology) {
        let t = topo(spec);
        let w = WrittenSchedule::parse(text.as_bytes(), t.num_processors()).unwrap();
        (w.check(&t, given).unwrap(), t)
    }

    const TREE1: &str = "fattree:n=4,profile=constant,cap=1";
    const TREE2: &str = "fattree:n=4,profile=constant,cap=2";

    /// A JSON schedule naming its topology is judged only on that topology (any spelling);
    /// text, or JSON without the field, on any.
    #[test]
    fn a_json_schedule_is_judged_only_on_its_topology() {
        let json =
            |t: &str| format!(r#"{{"topology": "{t}", "schedule": [[0]], "pairs": [[0, 1]]}}"#);
        let spec: TopologySpec = "fattree:n=4,profile=doubling".parse().unwrap();
        let same =
            WrittenSchedule::parse(json("fattree:n=4,profile=doubling,leaf=1").as_bytes(), 4)
                .unwrap();
        assert_eq!(same.check_made_for(&spec), Ok(()));
        let other = WrittenSchedule::parse(json("bft:n=4").as_bytes(), 4).unwrap();
        assert!(matches!(
            other.check_made_for(&spec),
            Err(OfflineError::ScheduleForAnotherTopology { ref made_for, .. }) if made_for == "bft:n=4"
        ));
        let text = WrittenSchedule::parse(b"0->1\n", 4).unwrap();
        assert_eq!(text.check_made_for(&spec), Ok(()));
    }
    #[test]
    fn text_and_json_forms_of_one_schedule_agree() {
        let text = "# comment\n\ncycle 0: 0->2 1->3\r\ncycle 1:   0->3 1->2  # trailing\n";
        let (v, _) = check(text, TREE2, None);
        assert!(v.is_valid(), "{:?}", v.violation);
        assert_eq!(v.cycles, 2);
        // All four leave the subtree of leaves 0 and 1 by one channel of capacity 2: λ = 4/2.
        assert_eq!((v.load_factor.load, v.load_factor.capacity), (4, 2));
        assert_eq!(v.load_factor.ceil(), 2);
        let json = r#"{"cycles": 2, "schedule": [[0, 1], [2, 3]],
            "pairs": [[0, 2], [1, 3], [0, 3], [1, 2]]}"#;
        let (j, _) = check(json, TREE2, None);
        assert_eq!(j, v);
        // The bare form (no `cycle N:`) is the same schedule.
        let (b, _) = check("0->2 1->3\n0->3 1->2\n", TREE2, None);
        assert_eq!(b, v);
    }

    #[test]
    fn two_messages_on_a_capacity_one_channel_name_the_cycle_and_the_channel() {
        let (v, t) = check("cycle 0: 0->1\ncycle 1: 0->2 1->3\n", TREE1, None);
        let Some(Violation::Overloaded {
            cycle,
            channel,
            load,
            capacity,
        }) = v.violation
        else {
            panic!("{:?}", v.violation)
        };
        assert_eq!((cycle, load, capacity), (1, 2, 1));
        let ch = t.channel(fatnet_topology::ChannelId(channel));
        assert_eq!(ch.capacity, 1);
        let words = v.violation.as_ref().unwrap().describe(&t, &v.messages);
        assert!(
            words.starts_with(&format!("cycle 1 puts 2 messages on channel {channel} (s")),
            "{words}"
        );
        assert!(words.ends_with("whose capacity is 1"), "{words}");
        // The same pairs in two cycles are valid: λ = 2 on the capacity-1 tree.
        let (ok, _) = check("0->2\n1->3\n", TREE1, None);
        assert!(ok.is_valid());
        assert_eq!(ok.load_factor.ceil(), 2);
    }

    #[test]
    fn a_given_set_finds_missing_duplicate_and_foreign_messages() {
        let t = topo(TREE2);
        let m = set(4, &[(0, 2), (1, 3), (0, 2)]);
        let verdict = |text: &str| {
            WrittenSchedule::parse(text.as_bytes(), 4)
                .unwrap()
                .check(&t, Some(&m))
                .unwrap()
        };
        assert!(verdict("0->2 1->3\n0->2\n").is_valid());
        let v = verdict("0->2 1->3\n");
        assert_eq!(v.violation, Some(Violation::Missing { message: 2 }));
        assert_eq!(
            v.violation.unwrap().describe(&t, &m),
            "message 2 (0->2) is not delivered"
        );
        let v = verdict("0->2 1->3\n1->3 0->2\n");
        assert_eq!(
            v.violation,
            Some(Violation::Duplicate {
                message: 1,
                first_cycle: 0,
                second_cycle: 1
            })
        );
        assert_eq!(
            v.violation.unwrap().describe(&t, &m),
            "message 1 (1->3) is delivered twice, in cycles 0 and 1"
        );
        let v = verdict("0->2 1->3\n0->2 3->0\n");
        assert_eq!(
            v.violation,
            Some(Violation::NotInSet {
                cycle: 1,
                src: 3,
                dst: 0
            })
        );
        assert_eq!(
            v.violation.unwrap().describe(&t, &m),
            "cycle 1 delivers 3->0, which is not in the message set"
        );
        let v = verdict("0->2 1->3 0->2\n0->2\n");
        assert_eq!(
            v.violation.unwrap().describe(&t, &m),
            "cycle 1 delivers 0->2 more often than the message set has it (2 times)"
        );
    }

    #[test]
    fn json_ids_are_checked_against_the_files_own_set() {
        let t = topo(TREE2);
        let read = |json: &str| {
            WrittenSchedule::parse(json.as_bytes(), 4)
                .unwrap()
                .check(&t, None)
                .unwrap()
        };
        let v = read(r#"{"schedule": [[0], [5]], "pairs": [[0, 1], [1, 0]]}"#);
        assert_eq!(
            v.violation,
            Some(Violation::UnknownMessage {
                cycle: 1,
                message: 5
            })
        );
        let v = read(r#"{"schedule": [[0], [0]], "pairs": [[0, 1], [1, 0]]}"#);
        assert!(matches!(
            v.violation,
            Some(Violation::Duplicate { message: 0, .. })
        ));
        let v = read(r#"{"schedule": [[0]], "pairs": [[0, 1], [1, 0]]}"#);
        assert_eq!(v.violation, Some(Violation::Missing { message: 1 }));
    }

    #[test]
    fn bad_input_is_a_typed_error_naming_the_line() {
        let parse = |text: &str| WrittenSchedule::parse(text.as_bytes(), 4).unwrap_err();
        assert_eq!(
            parse("0->1\n0->1 2-3\n"),
            OfflineError::MalformedScheduleLine {
                line: 2,
                text: "0->1 2-3".into(),
                expected: "`src->dst` pairs separated by spaces",
            }
        );
        assert!(matches!(
            parse("0->1 ->2\n"),
            OfflineError::MalformedScheduleLine { line: 1, .. }
        ));
        assert!(matches!(
            parse("0->+1\n"),
            OfflineError::MalformedScheduleLine { line: 1, .. }
        ));
        assert!(matches!(
            parse("cycle x: 0->1\n"),
            OfflineError::MalformedScheduleLine { line: 1, .. }
        ));
        assert_eq!(
            parse("cycle 0: 0->1\n\ncycle 2: 1->0\n"),
            OfflineError::WrongCycleNumber {
                line: 3,
                expected: 1,
                found: 2
            }
        );
        assert_eq!(
            parse("0->1\n3->4\n"),
            OfflineError::ScheduleLineNodeOutOfRange {
                line: 2,
                node: 4,
                processors: 4
            }
        );
        assert!(matches!(
            parse("0->99999999999999999999999\n"),
            OfflineError::ScheduleLineNodeOutOfRange { line: 1, .. }
        ));
        let e = WrittenSchedule::parse(&b"0->1\n\xff->1\n"[..], 4).unwrap_err();
        assert!(matches!(
            e,
            OfflineError::MalformedScheduleLine {
                line: 2,
                expected: "UTF-8 text",
                ..
            }
        ));
        let e = parse("{\"schedule\": [[0]]}");
        assert!(
            matches!(e, OfflineError::ScheduleJson { line: 1, .. }),
            "{e}"
        );
        assert!(e.to_string().contains("missing field `pairs`"), "{e}");
        let e = parse("{\"schedule\": [[0]],\n \"pairs\": [[0, 1]] x}");
        assert!(
            matches!(e, OfflineError::ScheduleJson { line: 2, .. }),
            "{e}"
        );
        assert_eq!(
            parse(r#"{"schedule": [], "pairs": [[0, 1], [2, 4]]}"#),
            OfflineError::SchedulePairOutOfRange {
                message: 1,
                node: 4,
                processors: 4
            }
        );
        let long = format!("{}\n", "0->1 x".repeat(40));
        let OfflineError::MalformedScheduleLine { text, .. } = parse(&long) else {
            panic!()
        };
        assert_eq!(text.chars().count(), 61);
    }

    #[test]
    fn a_set_on_more_processors_is_refused() {
        let t = topo(TREE2);
        let w = WrittenSchedule::parse(b"0->1\n", 4).unwrap();
        assert_eq!(
            w.check(&t, Some(&set(8, &[(0, 1)]))).unwrap_err(),
            OfflineError::ProcessorMismatch {
                messages: 8,
                topology: 4
            }
        );
        let w = WrittenSchedule::parse(b"0->7\n", 8).unwrap();
        assert_eq!(
            w.check(&t, None).unwrap_err(),
            OfflineError::NodeOutOfRange { node: 7, nodes: 4 }
        );
    }
}
