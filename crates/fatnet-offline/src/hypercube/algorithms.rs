//! The broadcast algorithms of Stamoulis chapter 4 by name, with what the thesis claims about
//! each one's slot count: the one dispatcher of `fatnet broadcast` (and of anything else that
//! names an algorithm), so that the claims and the refusals live beside the algorithms.

use rand::SeedableRng;

use super::broadcast::{
    Contention, KBroadcasts, Ranks, k_broadcast_upper_bound, k_broadcasts, multinode_broadcast,
    multinode_broadcast_a4, multinode_broadcast_a4_bounds, multinode_broadcast_time,
    randomized_k_broadcasts, ranked_broadcasts, single_node_broadcast, tree_broadcasts,
};
use super::slots::SlotSchedule;
use crate::OfflineError;

fatnet_topology::named_options! {
    /// A broadcast algorithm of Stamoulis chapter 4.
    pub enum BroadcastAlgorithm("broadcast algorithm") {
        /// §4.4: prefix, gather at the roots of d disjoint trees, scatter: <= 2⌈K/d⌉+4d+2 slots.
        A4 = "a4",
        /// §4.5: random roots (seeded): <= 2·max N + 2d + 2 slots.
        Random = "random",
        /// §4.6.1: every source along its own canonical tree, FIFO: <= d+K−1 slots.
        Trees = "trees",
        /// §4.6.2: own trees, antipode-first priority: d slots for K = 2.
        Antipode = "antipode",
        /// §4.6.3: ranked dimensions after a 2d-slot prefix (K <= d): 3d slots.
        Ranked = "ranked",
        /// §4.6.3 with ranks known in advance (K <= d): d slots.
        RankedKnown = "ranked-known",
        /// Single-node broadcast by recursive doubling (one source): d slots.
        Single = "single",
        /// Optimal multinode broadcast (every node): ⌈(2^d−1)/d⌉ slots.
        Multinode = "multinode",
        /// §4.4 multinode broadcast without the prefix.
        MultinodeA4 = "multinode-a4",
    }
}

/// What the thesis claims about an algorithm's slot count, and the formula it states.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SlotClaim {
    /// At most this many slots.
    AtMost(u64, &'static str),
    /// Exactly this many.
    Exactly(u64, &'static str),
    /// Between the two, inclusive.
    Between(u64, u64, &'static str),
}

impl SlotClaim {
    /// Whether `slots` satisfies the claim.
    pub fn holds(self, slots: u64) -> bool {
        match self {
            SlotClaim::AtMost(b, _) => slots <= b,
            SlotClaim::Exactly(b, _) => slots == b,
            SlotClaim::Between(lo, hi, _) => (lo..=hi).contains(&slots),
        }
    }
}

impl std::fmt::Display for SlotClaim {
    /// `<= 2⌈K/d⌉+4d+2 = 14`, `= d = 4`, `§4.4: between 9 and 14`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            SlotClaim::AtMost(b, formula) => write!(f, "<= {formula} = {b}"),
            SlotClaim::Exactly(b, formula) => write!(f, "= {formula} = {b}"),
            SlotClaim::Between(lo, hi, formula) => write!(f, "{formula}: between {lo} and {hi}"),
        }
    }
}

/// The phases of a three-phase algorithm (§4.4–4.5), in slots.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct BroadcastPhases {
    /// Phase 1, the parallel prefix (`2d`, or 0 when skipped).
    pub prefix: u32,
    /// Phase 2, gathering at the roots.
    pub gather: u32,
    /// Phase 3, scattering along the trees.
    pub scatter: u32,
    /// `N^(j)`: the packets root `e_j` broadcasts.
    pub root_loads: Vec<u32>,
    /// The phase-2 slot in which the last data packet reached its root.
    pub last_gather_arrival: u32,
}

/// A built broadcast: its schedule (not yet verified), the phases of the three-phase
/// algorithms, and the thesis' claim.
#[derive(Debug)]
pub struct BuiltBroadcast {
    /// The schedule.
    pub schedule: SlotSchedule,
    /// The three-phase algorithms' phases.
    pub phases: Option<BroadcastPhases>,
    /// What the thesis claims.
    pub claim: SlotClaim,
    /// Broadcasts: the sources given, or every node for the multinode algorithms.
    pub broadcasts: u64,
}

impl BroadcastAlgorithm {
    /// Whether the algorithm broadcasts from every node (and takes no sources).
    pub fn multinode(self) -> bool {
        matches!(
            self,
            BroadcastAlgorithm::Multinode | BroadcastAlgorithm::MultinodeA4
        )
    }

    /// Builds the broadcasts of `sources` on the `d`-cube (`seed` seeds
    /// [`BroadcastAlgorithm::Random`]).
    ///
    /// # Errors
    ///
    /// [`OfflineError::OutOfRange`] for sources given to a multinode algorithm, none given to
    /// another, or not exactly one to [`BroadcastAlgorithm::Single`]; and the errors of the
    /// algorithm (`d`, the node ids, `K`).
    pub fn build(self, d: u32, sources: &[u32], seed: u64) -> Result<BuiltBroadcast, OfflineError> {
        use BroadcastAlgorithm as A;
        // The dimension first: a bad `d` is the error, whatever the sources.
        super::cube(d)?;
        let k = sources.len() as u64;
        let sources_allowed = match self {
            _ if self.multinode() => "none: multinode algorithms broadcast from every node",
            A::Single => "exactly 1 for the single-node broadcast",
            _ => "at least 1",
        };
        let count_ok = match self {
            _ if self.multinode() => k == 0,
            A::Single => k == 1,
            _ => k >= 1,
        };
        if !count_ok {
            return Err(OfflineError::OutOfRange {
                param: "the number of sources",
                value: k,
                allowed: sources_allowed,
            });
        }
        let d64 = u64::from(d);
        let three_phase = |kb: KBroadcasts, claim| BuiltBroadcast {
            phases: Some(BroadcastPhases {
                prefix: kb.prefix_slots,
                gather: kb.gather_slots,
                scatter: kb.scatter_slots,
                root_loads: kb.root_loads,
                last_gather_arrival: kb.last_gather_arrival,
            }),
            schedule: kb.schedule,
            claim,
            broadcasts: k,
        };
        let plain = |schedule, claim| BuiltBroadcast {
            schedule,
            phases: None,
            claim,
            broadcasts: k,
        };
        Ok(match self {
            A::A4 => {
                let kb = k_broadcasts(d, sources)?;
                let ub = k_broadcast_upper_bound(d, k);
                three_phase(kb, SlotClaim::AtMost(ub, "2⌈K/d⌉+4d+2"))
            }
            A::Random => {
                let mut rng = rand_pcg::Pcg64::seed_from_u64(seed);
                let kb = randomized_k_broadcasts(d, sources, &mut rng)?;
                let max = u64::from(kb.root_loads.iter().copied().max().unwrap_or(0));
                let ub = 2 * max + 2 * d64 + 2;
                three_phase(kb, SlotClaim::AtMost(ub, "2·max N + 2d + 2"))
            }
            A::Trees => plain(
                tree_broadcasts(d, sources, Contention::Fifo)?,
                SlotClaim::AtMost(d64 + k - 1, "d+K−1"),
            ),
            A::Antipode => plain(
                tree_broadcasts(d, sources, Contention::AntipodeFirst)?,
                if k == 2 {
                    SlotClaim::Exactly(d64, "d")
                } else {
                    SlotClaim::AtMost(d64 + k - 1, "d+K−1")
                },
            ),
            A::Ranked => plain(
                ranked_broadcasts(d, sources, Ranks::Prefix)?,
                SlotClaim::Exactly(3 * d64, "3d"),
            ),
            A::RankedKnown => plain(
                ranked_broadcasts(d, sources, Ranks::Known)?,
                SlotClaim::Exactly(d64, "d"),
            ),
            A::Single => plain(
                single_node_broadcast(d, sources[0])?,
                SlotClaim::Exactly(d64, "d"),
            ),
            A::Multinode => {
                let s = multinode_broadcast(d)?;
                let n = u64::from(s.cube().size());
                BuiltBroadcast {
                    broadcasts: n,
                    ..plain(
                        s,
                        SlotClaim::Exactly(multinode_broadcast_time(d), "⌈(2^d−1)/d⌉"),
                    )
                }
            }
            A::MultinodeA4 => {
                let kb = multinode_broadcast_a4(d)?;
                let n = u64::from(kb.schedule.cube().size());
                let (lo, hi) = multinode_broadcast_a4_bounds(d);
                BuiltBroadcast {
                    broadcasts: n,
                    ..three_phase(kb, SlotClaim::Between(lo, hi, "§4.4"))
                }
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A bad dimension is named first, whatever the sources (it used to be reported as missing
    /// sources).
    #[test]
    fn the_dimension_is_checked_before_the_sources() {
        for algorithm in BroadcastAlgorithm::ALL.iter().copied() {
            for d in [0, 40] {
                let e = algorithm.build(d, &[], 1).map(|_| ()).unwrap_err();
                assert!(
                    matches!(e, OfflineError::OutOfRange { param: "d", .. }),
                    "{algorithm}: {e}"
                );
            }
        }
    }

    #[test]
    fn every_algorithm_meets_the_thesis_claim() {
        for d in 2..=6u32 {
            for algorithm in BroadcastAlgorithm::ALL.iter().copied() {
                let sources: Vec<u32> = match algorithm {
                    _ if algorithm.multinode() => vec![],
                    BroadcastAlgorithm::Single => vec![(1 << d) - 1],
                    BroadcastAlgorithm::Ranked | BroadcastAlgorithm::RankedKnown => {
                        (0..d).map(|i| (i * 5) % (1 << d)).collect()
                    }
                    BroadcastAlgorithm::Antipode => vec![0, (1 << d) - 1],
                    _ => (0..(1u32 << d)).step_by(3).collect(),
                };
                let built = algorithm.build(d, &sources, 7).unwrap();
                let report = built.schedule.verify().unwrap();
                assert!(
                    built.claim.holds(report.slots as u64),
                    "{algorithm} d = {d}: {} slots, claim {}",
                    report.slots,
                    built.claim
                );
                let k = if algorithm.multinode() {
                    1u64 << d
                } else {
                    sources.len() as u64
                };
                assert_eq!(built.broadcasts, k);
                assert_eq!(
                    built.phases.is_some(),
                    matches!(
                        algorithm,
                        BroadcastAlgorithm::A4
                            | BroadcastAlgorithm::Random
                            | BroadcastAlgorithm::MultinodeA4
                    )
                );
            }
        }
    }

    #[test]
    fn source_counts_are_refused_by_the_algorithm() {
        use BroadcastAlgorithm as A;
        for (algorithm, sources) in [
            (A::Multinode, &[1][..]),
            (A::MultinodeA4, &[0, 1]),
            (A::Single, &[]),
            (A::Single, &[1, 2]),
            (A::A4, &[]),
            (A::Trees, &[]),
        ] {
            assert!(
                matches!(
                    algorithm.build(3, sources, 1),
                    Err(OfflineError::OutOfRange {
                        param: "the number of sources",
                        ..
                    })
                ),
                "{algorithm} {sources:?}"
            );
        }
        assert_eq!(SlotClaim::AtMost(14, "f").to_string(), "<= f = 14");
        assert!(SlotClaim::Between(3, 5, "g").holds(5) && !SlotClaim::Between(3, 5, "g").holds(6));
    }
}
