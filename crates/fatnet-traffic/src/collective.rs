//! Collective operations as phases of point-to-point messages: all-to-all (shift and
//! pairwise-exchange orders), ring and recursive-doubling allreduce.
//!
//! The schedules are MPICH's, as Thakur, Rabenseifner and Gropp describe them
//! ("Optimization of collective communication operations in MPICH", IJHPCA 19(1), 2005) and as
//! MPICH implements them (`src/mpi/coll/alltoall/alltoall_intra_pairwise.c`,
//! `src/mpi/coll/allreduce/allreduce_intra_ring.c`,
//! `src/mpi/coll/allreduce/allreduce_intra_recursive_doubling.c`):
//!
//! - **all-to-all, shift order** ([`AlltoallOrder::Shift`]): `N − 1` phases; in phase `k`
//!   (`k = 1..N−1`) rank `i` sends its block for rank `i + k mod N` (MPICH's order for `N` not
//!   a power of two: "in step i, each process receives from (rank−i) and sends to (rank+i)").
//! - **all-to-all, pairwise exchange** ([`AlltoallOrder::Pairwise`]): `N − 1` phases; in phase
//!   `k` rank `i` exchanges its block with rank `i XOR k`. MPICH uses it only when `N` is a
//!   power of two and falls back to the shift order otherwise; so do we (the phases are then
//!   the shift order's, and [`Phase::kind`] says so).
//! - **ring allreduce** ([`AllreduceAlgorithm::Ring`]): a reduce-scatter then an allgather
//!   around the ring, `N − 1` phases each, `2(N − 1)` in all; in every phase rank `i` sends one
//!   chunk of the vector to rank `i + 1 mod N`. MPICH cuts the vector into `N` chunks of
//!   `⌈V/N⌉` elements (the last ones shorter); every message of a phase here has the largest
//!   chunk's length, `⌈V/N⌉` flits, so a phase is never shorter than MPICH's.
//! - **recursive-doubling allreduce** ([`AllreduceAlgorithm::RecursiveDoubling`]): `log₂ N`
//!   phases, rank `i` exchanging the whole vector with rank `i XOR 2^k` in phase `k`. For `N`
//!   not a power of two we do what MPICH does (its "extra-rank folding"): with `p` the largest
//!   power of two below `N` and `r = N − p`, a first phase folds the `r` extra ranks in (the
//!   even rank `2j` sends its vector to `2j + 1`, `j < r`), the `p` remaining ranks (the odd
//!   ranks below `2r` and every rank from `2r` on, renumbered `0..p`) run recursive doubling,
//!   and a last phase unfolds (`2j + 1` sends the result to `2j`): `log₂ p + 2` phases.
//!
//! **Key design decision: a phase is a message set and one message length.** Every message of
//! a phase has the same length in flits, and phases are separated by a barrier (phase `k + 1`
//! starts when phase `k` has delivered everything, as a blocking MPI step does when every rank
//! waits for its receive): a simulator runs each phase as a static batch, and nothing here
//! knows about time. Sizes are given in flits, or in bytes of [`FLIT_BYTES`]-byte flits.
//!
//! ```
//! use fatnet_traffic::collective::{Collective, PhaseKind};
//!
//! let c: Collective = "allreduce:alg=ring,flits=64".parse()?;
//! let phases = c.phases(8, 32)?;
//! assert_eq!(phases.len(), 14); // 2 (N − 1)
//! assert!(phases.iter().all(|p| p.flits == 8 && p.messages.is_permutation()));
//! assert_eq!(phases[7].kind, PhaseKind::RingAllgather { step: 1 });
//! assert_eq!(c.to_string(), "allreduce:alg=ring,flits=64");
//! # Ok::<(), fatnet_traffic::TrafficError>(())
//! ```

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::{MEMORY_BUDGET, Message, MessageSet, TrafficError};

/// Bytes per flit when a size is given in bytes: 64, the InfiniBand flow-control block (link
/// credits count 64-byte blocks, InfiniBand Architecture Specification Vol. 1, chapter 7).
pub const FLIT_BYTES: u64 = 64;

/// The most flits one message may have: the packet engine's limit on `L`.
pub const MAX_FLITS: u32 = u16::MAX as u32;

/// The order of an all-to-all's phases.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AlltoallOrder {
    /// Phase `k`: `i → i + k mod N`.
    Shift,
    /// Phase `k`: `i ↔ i XOR k` (`N` a power of two; else the shift order, as in MPICH).
    Pairwise,
}

/// The algorithm of an allreduce.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AllreduceAlgorithm {
    /// Reduce-scatter and allgather around the ring, `⌈V/N⌉` flits per message.
    Ring,
    /// Recursive doubling, the whole vector per message (MPICH's folding for `N` not a power
    /// of two).
    RecursiveDoubling,
}

/// A message size as given: flits, or bytes of [`FLIT_BYTES`]-byte flits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MessageSize {
    /// This many flits.
    Flits(u32),
    /// This many bytes, `⌈bytes / FLIT_BYTES⌉` flits.
    Bytes(u64),
}

impl MessageSize {
    /// The size in flits.
    pub fn flits(self) -> u64 {
        match self {
            MessageSize::Flits(f) => u64::from(f),
            MessageSize::Bytes(b) => b.div_ceil(FLIT_BYTES),
        }
    }
}

/// A collective operation on every processor (`fatnet simulate --collective SPEC`).
///
/// Spec strings: `alltoall[:order=shift|pairwise][,flits=F|bytes=B]` (default order shift;
/// the size is each block a rank sends to one other rank) and
/// `allreduce[:alg=ring|rd][,flits=F|bytes=B]` (default ring; the size is the whole vector).
/// Without a size the caller's default applies ([`Collective::phases`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Collective {
    /// All-to-all personalised exchange.
    Alltoall {
        /// The phase order.
        order: AlltoallOrder,
        /// Each block's size, if given.
        size: Option<MessageSize>,
    },
    /// Allreduce.
    Allreduce {
        /// The algorithm.
        alg: AllreduceAlgorithm,
        /// The vector's size, if given.
        size: Option<MessageSize>,
    },
}

/// What a phase of a collective is, for tables and JSON (`Display`: `shift k=3`, `xor k=4`,
/// `reduce-scatter 2`, `allgather 5`, `fold`, `xor k=2`, `unfold`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum PhaseKind {
    /// `i → i + k mod N`.
    Shift {
        /// The shift.
        k: u32,
    },
    /// `i ↔ i XOR k` (pairwise all-to-all; recursive doubling with `k = 2^j`, on the
    /// renumbered ranks when folded).
    Xor {
        /// The mask.
        k: u32,
    },
    /// Step `step` (1-based) of the ring reduce-scatter: `i → i + 1 mod N`.
    RingReduceScatter {
        /// The step, `1..N`.
        step: u32,
    },
    /// Step `step` (1-based) of the ring allgather: `i → i + 1 mod N`.
    RingAllgather {
        /// The step, `1..N`.
        step: u32,
    },
    /// Recursive doubling's folding of the extra ranks: `2j → 2j + 1`, `j < N − p`.
    Fold,
    /// Recursive doubling's unfolding: `2j + 1 → 2j`, `j < N − p`.
    Unfold,
}

impl fmt::Display for PhaseKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PhaseKind::Shift { k } => write!(f, "shift k={k}"),
            PhaseKind::Xor { k } => write!(f, "xor k={k}"),
            PhaseKind::RingReduceScatter { step } => write!(f, "reduce-scatter {step}"),
            PhaseKind::RingAllgather { step } => write!(f, "allgather {step}"),
            PhaseKind::Fold => f.write_str("fold"),
            PhaseKind::Unfold => f.write_str("unfold"),
        }
    }
}

/// One phase: a message set whose messages all have `flits` flits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Phase {
    /// What the phase is.
    pub kind: PhaseKind,
    /// Its messages, listed by source.
    pub messages: MessageSet,
    /// The length of each message, in flits (`1..=MAX_FLITS`).
    pub flits: u32,
}

impl Collective {
    /// Its name: `alltoall` or `allreduce`.
    pub fn name(&self) -> &'static str {
        match self {
            Collective::Alltoall { .. } => "alltoall",
            Collective::Allreduce { .. } => "allreduce",
        }
    }

    /// The size given in the spec, if any.
    pub fn size(&self) -> Option<MessageSize> {
        match *self {
            Collective::Alltoall { size, .. } | Collective::Allreduce { size, .. } => size,
        }
    }

    /// The number of phases on `n` processors: `N − 1` (all-to-all), `2(N − 1)` (ring),
    /// `log₂ N` (recursive doubling, `N` a power of two; `log₂ p + 2` otherwise).
    ///
    /// # Errors
    ///
    /// [`TrafficError::TooFewProcessors`] for `n < 2`.
    pub fn phase_count(&self, n: u32) -> Result<u32, TrafficError> {
        if n < 2 {
            return Err(TrafficError::TooFewProcessors {
                what: "a collective",
                processors: n,
                min: 2,
            });
        }
        Ok(match self {
            Collective::Alltoall { .. } => n - 1,
            Collective::Allreduce {
                alg: AllreduceAlgorithm::Ring,
                ..
            } => 2 * (n - 1),
            Collective::Allreduce {
                alg: AllreduceAlgorithm::RecursiveDoubling,
                ..
            } => {
                let p = 1u32 << n.ilog2();
                p.ilog2() + if p == n { 0 } else { 2 }
            }
        })
    }

    /// The length in flits of every message of every phase, with `flits` the size when the
    /// spec gives none: the block (all-to-all), `⌈V/N⌉` (ring), `V` (recursive doubling).
    ///
    /// # Errors
    ///
    /// [`TrafficError::TooFewProcessors`] for `n < 2`; [`TrafficError::BadValue`] for a
    /// size of 0 flits (0 bytes) or a message over [`MAX_FLITS`] flits.
    pub fn message_flits(&self, n: u32, flits: u32) -> Result<u32, TrafficError> {
        self.phase_count(n)?;
        let size = self.size().unwrap_or(MessageSize::Flits(flits));
        let total = size.flits();
        let per_message = match self {
            Collective::Allreduce {
                alg: AllreduceAlgorithm::Ring,
                ..
            } => total.div_ceil(u64::from(n)),
            _ => total,
        };
        let (key, value) = match size {
            MessageSize::Flits(f) => ("flits", f.to_string()),
            MessageSize::Bytes(b) => ("bytes", b.to_string()),
        };
        if per_message == 0 {
            return Err(TrafficError::BadValue {
                key: key.into(),
                value,
                expected: "a size of at least one flit",
            });
        }
        u32::try_from(per_message)
            .ok()
            .filter(|&f| f <= MAX_FLITS)
            .ok_or(TrafficError::BadValue {
                key: key.into(),
                value,
                expected: "messages of at most 65535 flits (65535 × 64 bytes)",
            })
    }

    /// Phase `index` (0-based) on `n` processors, `flits` the size when the spec gives none
    /// (see [`Collective::message_flits`]). Makes one phase at a time: a simulator that runs
    /// the phases one after another holds one.
    ///
    /// # Errors
    ///
    /// As [`Collective::message_flits`], and [`TrafficError::BadValue`] for an index not below
    /// [`Collective::phase_count`].
    pub fn phase(&self, n: u32, flits: u32, index: u32) -> Result<Phase, TrafficError> {
        let count = self.phase_count(n)?;
        let flits = self.message_flits(n, flits)?;
        if index >= count {
            return Err(TrafficError::BadValue {
                key: "phase".into(),
                value: index.to_string(),
                expected: "a phase index below the collective's phase count",
            });
        }
        let shift = |k: u32| -> Vec<Message> {
            (0..n)
                .map(|i| Message::new(i, ((u64::from(i) + u64::from(k)) % u64::from(n)) as u32))
                .collect()
        };
        let xor = |k: u32| -> Vec<Message> { (0..n).map(|i| Message::new(i, i ^ k)).collect() };
        let k = index + 1;
        let (kind, messages) = match *self {
            Collective::Alltoall { order, .. } => {
                if order == AlltoallOrder::Pairwise && n.is_power_of_two() {
                    (PhaseKind::Xor { k }, xor(k))
                } else {
                    (PhaseKind::Shift { k }, shift(k))
                }
            }
            Collective::Allreduce {
                alg: AllreduceAlgorithm::Ring,
                ..
            } => {
                let kind = if k < n {
                    PhaseKind::RingReduceScatter { step: k }
                } else {
                    PhaseKind::RingAllgather { step: k - (n - 1) }
                };
                (kind, shift(1))
            }
            Collective::Allreduce {
                alg: AllreduceAlgorithm::RecursiveDoubling,
                ..
            } => recursive_doubling(n, index),
        };
        Ok(Phase {
            kind,
            messages: MessageSet::new(n, messages)?,
            flits,
        })
    }

    /// Every phase on `n` processors, in order (see [`Collective::phase`]).
    ///
    /// # Errors
    ///
    /// As [`Collective::phase`], and [`TrafficError::OverMemoryBudget`] with the estimate,
    /// before anything is allocated, when the phases' messages (8 bytes each) would exceed
    /// [`MEMORY_BUDGET`] (an all-to-all on 16,385 processors or more).
    pub fn phases(&self, n: u32, flits: u32) -> Result<Vec<Phase>, TrafficError> {
        let count = self.phase_count(n)?;
        let messages = u64::from(count) * u64::from(n);
        let estimate = u128::from(messages) * 8;
        if estimate > u128::from(MEMORY_BUDGET) {
            return Err(TrafficError::OverMemoryBudget {
                what: self.name(),
                processors: n,
                count: messages,
                estimate: u64::try_from(estimate).unwrap_or(u64::MAX),
                max: MEMORY_BUDGET,
            });
        }
        (0..count).map(|i| self.phase(n, flits, i)).collect()
    }
}

/// Phase `index` of MPICH's recursive-doubling allreduce on `n` ranks.
fn recursive_doubling(n: u32, index: u32) -> (PhaseKind, Vec<Message>) {
    let p = 1u32 << n.ilog2();
    let rem = n - p;
    if rem > 0 && index == 0 {
        return (
            PhaseKind::Fold,
            (0..rem).map(|j| Message::new(2 * j, 2 * j + 1)).collect(),
        );
    }
    if rem > 0 && index == p.ilog2() + 1 {
        return (
            PhaseKind::Unfold,
            (0..rem).map(|j| Message::new(2 * j + 1, 2 * j)).collect(),
        );
    }
    let mask = 1u32 << (index - u32::from(rem > 0));
    // MPICH: newrank = rank / 2 for the odd ranks below 2·rem, rank − rem from 2·rem on; the
    // even ranks below 2·rem sit out. Back: newrank < rem → 2·newrank + 1, else newrank + rem.
    let rank_of = |new: u32| if new < rem { 2 * new + 1 } else { new + rem };
    let messages = (0..p)
        .map(|new| Message::new(rank_of(new), rank_of(new ^ mask)))
        .collect();
    (PhaseKind::Xor { k: mask }, messages)
}

impl fmt::Display for Collective {
    /// The canonical spec: every key written (`alltoall:order=shift`, `allreduce:alg=rd,flits=8`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Collective::Alltoall { order, .. } => write!(
                f,
                "alltoall:order={}",
                match order {
                    AlltoallOrder::Shift => "shift",
                    AlltoallOrder::Pairwise => "pairwise",
                }
            )?,
            Collective::Allreduce { alg, .. } => write!(
                f,
                "allreduce:alg={}",
                match alg {
                    AllreduceAlgorithm::Ring => "ring",
                    AllreduceAlgorithm::RecursiveDoubling => "rd",
                }
            )?,
        }
        match self.size() {
            None => Ok(()),
            Some(MessageSize::Flits(x)) => write!(f, ",flits={x}"),
            Some(MessageSize::Bytes(x)) => write!(f, ",bytes={x}"),
        }
    }
}

impl FromStr for Collective {
    type Err = TrafficError;

    fn from_str(s: &str) -> Result<Collective, TrafficError> {
        let s = s.trim();
        let (name, rest) = s.split_once(':').unwrap_or((s, ""));
        let pattern: &'static str = match name.trim() {
            "alltoall" => "alltoall",
            "allreduce" => "allreduce",
            other => {
                return Err(TrafficError::BadValue {
                    key: "collective".into(),
                    value: other.escape_debug().to_string(),
                    expected: "alltoall or allreduce",
                });
            }
        };
        let mut order = None;
        let mut alg = None;
        let mut size = None;
        let mut seen: Vec<&str> = Vec::new();
        for item in rest.split(',').map(str::trim).filter(|i| !i.is_empty()) {
            let bad = |key: &str, value: &str, expected| TrafficError::BadValue {
                key: key.escape_debug().to_string(),
                value: value.escape_debug().to_string(),
                expected,
            };
            let (key, value) = item
                .split_once('=')
                .map(|(k, v)| (k.trim(), v.trim()))
                .ok_or_else(|| bad(item, "", "a `key=value` pair"))?;
            if seen.contains(&key) {
                return Err(TrafficError::DuplicateKey {
                    key: key.escape_debug().to_string(),
                });
            }
            seen.push(key);
            match (pattern, key) {
                ("alltoall", "order") => {
                    order = Some(match value {
                        "shift" => AlltoallOrder::Shift,
                        "pairwise" => AlltoallOrder::Pairwise,
                        _ => return Err(bad(key, value, "shift or pairwise")),
                    });
                }
                ("allreduce", "alg") => {
                    alg = Some(match value {
                        "ring" => AllreduceAlgorithm::Ring,
                        "rd" => AllreduceAlgorithm::RecursiveDoubling,
                        _ => return Err(bad(key, value, "ring or rd")),
                    });
                }
                (_, "flits" | "bytes") if size.is_some() => {
                    return Err(bad(key, value, "one size: flits or bytes, not both"));
                }
                (_, "flits") => {
                    size = Some(MessageSize::Flits(
                        value
                            .parse()
                            .map_err(|_| bad(key, value, "a number of flits (u32)"))?,
                    ));
                }
                (_, "bytes") => {
                    size = Some(MessageSize::Bytes(
                        value
                            .parse()
                            .map_err(|_| bad(key, value, "a number of bytes (u64)"))?,
                    ));
                }
                _ => {
                    return Err(TrafficError::UnknownKey {
                        pattern,
                        key: key.escape_debug().to_string(),
                    });
                }
            }
        }
        Ok(match pattern {
            "alltoall" => Collective::Alltoall {
                order: order.unwrap_or(AlltoallOrder::Shift),
                size,
            },
            _ => Collective::Allreduce {
                alg: alg.unwrap_or(AllreduceAlgorithm::Ring),
                size,
            },
        })
    }
}

impl Serialize for Collective {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Collective {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Collective, D::Error> {
        String::deserialize(d)?
            .parse()
            .map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(s: &str) -> Collective {
        s.parse().unwrap()
    }

    #[test]
    fn specs_round_trip_and_refuse() {
        for s in [
            "alltoall:order=shift",
            "alltoall:order=pairwise,flits=4",
            "allreduce:alg=ring,bytes=4096",
            "allreduce:alg=rd,flits=1",
        ] {
            assert_eq!(c(s).to_string(), s);
        }
        assert_eq!(c("alltoall").to_string(), "alltoall:order=shift");
        assert_eq!(c("allreduce").to_string(), "allreduce:alg=ring");
        for bad in [
            "broadcast",
            "alltoall:alg=ring",
            "allreduce:order=shift",
            "alltoall:order=ring",
            "allreduce:alg=ring,flits=1,bytes=1",
            "allreduce:flits=x",
            "alltoall:order=shift,order=shift",
            "alltoall:flits",
        ] {
            assert!(bad.parse::<Collective>().is_err(), "{bad}");
        }
    }

    #[test]
    fn phase_counts() {
        for n in 2..40u32 {
            assert_eq!(c("alltoall").phase_count(n).unwrap(), n - 1);
            assert_eq!(c("alltoall:order=pairwise").phase_count(n).unwrap(), n - 1);
            assert_eq!(c("allreduce").phase_count(n).unwrap(), 2 * (n - 1));
            let rd = c("allreduce:alg=rd").phase_count(n).unwrap();
            if n.is_power_of_two() {
                assert_eq!(rd, n.ilog2());
            } else {
                assert_eq!(rd, n.ilog2() + 2);
            }
        }
        assert!(c("alltoall").phase_count(1).is_err());
    }

    /// Every ordered pair exactly once over an all-to-all's phases, each phase a permutation
    /// without fixed points; pairwise phases are involutions when N is a power of two.
    #[test]
    fn alltoall_covers_every_pair_once() {
        for n in [2u32, 3, 8, 12, 16] {
            for order in ["shift", "pairwise"] {
                let coll = c(&format!("alltoall:order={order}"));
                let mut seen = vec![false; (n * n) as usize];
                for p in coll.phases(n, 3).unwrap() {
                    assert!(p.messages.is_permutation());
                    assert_eq!(p.flits, 3);
                    for m in p.messages.messages() {
                        assert_ne!(m.src, m.dst);
                        let at = (m.src * n + m.dst) as usize;
                        assert!(!seen[at]);
                        seen[at] = true;
                        if order == "pairwise" && n.is_power_of_two() {
                            assert_eq!(p.messages.messages()[m.dst as usize].dst, m.src);
                        }
                    }
                }
                assert_eq!(seen.iter().filter(|&&s| s).count() as u32, n * (n - 1));
            }
        }
    }

    /// Recursive doubling reduces correctly: every rank ends with the sum over all ranks,
    /// checked by simulating the data flow of the phases (each message carries its source's
    /// set of contributions; a fold or exchange merges, an unfold copies).
    #[test]
    fn recursive_doubling_reduces_everything() {
        for n in 2..=33u32 {
            let coll = c("allreduce:alg=rd,flits=8");
            let mut full: Vec<u128> = (0..n).map(|i| 1u128 << i).collect();
            let phases = coll.phases(n, 1).unwrap();
            for p in &phases {
                assert_eq!(p.flits, 8);
                let before = full.clone();
                for m in p.messages.messages() {
                    assert_ne!(m.src, m.dst);
                    full[m.dst as usize] |= before[m.src as usize];
                }
            }
            let all = (1u128 << n) - 1;
            assert!(full.iter().all(|&f| f == all), "n = {n}: {full:?}");
        }
    }

    /// Ring: every phase is `i → i + 1`, with `⌈V/N⌉` flits; bytes count 64 per flit.
    #[test]
    fn ring_chunks() {
        let coll = c("allreduce:alg=ring,bytes=6400");
        let phases = coll.phases(10, 1).unwrap();
        assert_eq!(phases.len(), 18);
        assert!(phases.iter().all(|p| p.flits == 10));
        assert_eq!(phases[0].messages.messages()[9], Message::new(9, 0));
        assert_eq!(phases[8].kind, PhaseKind::RingReduceScatter { step: 9 });
        assert_eq!(phases[9].kind, PhaseKind::RingAllgather { step: 1 });
        // A vector shorter than N still sends one flit per step.
        assert_eq!(c("allreduce").message_flits(64, 1).unwrap(), 1);
        // Sizes the engine cannot take are refused.
        assert!(c("allreduce:alg=rd,flits=65536").phases(4, 1).is_err());
        assert!(c("alltoall:flits=0").phases(4, 1).is_err());
        assert!(c("alltoall:bytes=0").phases(4, 1).is_err());
        assert!(c("alltoall").phase(4, 1, 3).is_err());
    }

    #[test]
    fn huge_phase_sets_are_refused_before_allocating() {
        let e = c("alltoall").phases(1 << 20, 1).unwrap_err();
        assert!(
            matches!(e, TrafficError::OverMemoryBudget { count, .. } if count == ((1u64 << 20) - 1) << 20),
            "{e}"
        );
    }
}
