//! The exact minimum number of delivery cycles of a message set on a binary fat-tree, with a
//! certificate of optimality (Greenberg & Leiserson, *Randomized routing on fat-trees* (1986),
//! §6 "Off-line routing": they conjecture `O(λ + lg n)` cycles always suffice).
//!
//! A schedule is a partition of `M` into **one-cycle sets**, sets with `load ≤ cap(c)` on
//! every channel `c` (Leiserson, *Fat-Trees* (1985), §III; Greenberg–Leiserson's delivery
//! cycle with ideal concentrators delivers exactly such a set). The minimum number of sets is
//! a vector bin packing of 0/1 items (the messages' paths) into bins of capacity `cap`, NP-hard
//! in general (already for unit capacities: path colouring in directed trees), so the solver
//! is an exact branch and bound for small instances, and it says why its answer is optimal:
//!
//! - [`Optimality::LowerBoundMet`]: the schedule has `⌈λ(M)⌉` cycles, the load-factor lower
//!   bound (one cycle moves at most `cap(c)` messages over `c`);
//! - [`Optimality::Exhausted`]: the search for a schedule with one cycle fewer ran to the end
//!   and found none; its node count is reported. A schedule with fewer cycles would give one
//!   with exactly that many (add empty cycles), so one exhausted search proves optimality.
//!
//! **Key design decision: search over message *types*, bins up to symmetry.** Messages with
//! the same source and destination are interchangeable, so a search node assigns all the
//! copies of one `(src, dst)` pair at once, as a distribution of counts over the `k` cycles,
//! and cycles whose loads are identical so far take non-increasing counts (the classic
//! symmetry breaking of interchangeable bins). Why branch and bound rather than an integer
//! program: the certificate we want for an infeasible `k` is a complete, deterministic search
//! whose size we can report and bound, the instances are small, and the workspace gets no
//! solver dependency (a pure-Rust MILP crate would prove infeasibility by its own LP bounds,
//! which we could neither report nor check).
//!
//! The search, for `k = ⌈λ⌉, ⌈λ⌉ + 1, …` below the first-fit schedule's length:
//! - the next type is the most constrained one (the least room for its remaining copies over
//!   the `k` cycles, room being the smallest residual capacity along its path per cycle);
//!   a type with less room than copies closes the branch;
//! - per channel `c`, each cycle can still take at most `min(residual(c), Σ room of the
//!   remaining types through c)` of `c`'s remaining messages; fewer in total than remain
//!   closes the branch;
//! - distributions are tried with the earlier cycles as full as possible first.
//!
//! Choices recorded here: messages from a processor to itself use no channel and go in the
//! first cycle; a non-empty set needs at least one cycle even when λ = 0; the empty set has
//! the empty schedule. The search is refused before it starts when the worst-case node count
//! estimate exceeds [`ExactConfig::max_search_bits`], and stopped with
//! [`OfflineError::SearchBudgetExceeded`] after [`ExactConfig::max_nodes`] nodes; the node
//! count is deterministic, so the same instance always gets the same answer.

use std::collections::BTreeMap;

use fatnet_load::{LoadFactor, LoadReport, fat_tree_loads};
use fatnet_topology::{ChannelId, FatTree, Topology};
use fatnet_traffic::{MessageId, MessageSet};
use serde::Serialize;

use crate::{OfflineError, Schedule};

/// Limits of the exact search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExactConfig {
    /// The most search nodes (one node = one distribution of one message type over the
    /// cycles) over all the searches of one instance.
    pub max_nodes: u64,
    /// The largest `log2` of the worst-case node count of the first search to run (see
    /// [`search_space_bits`]); larger instances are refused before any search.
    pub max_search_bits: u64,
}

impl Default for ExactConfig {
    /// 10^6 nodes; search spaces up to 2^200.
    fn default() -> Self {
        ExactConfig {
            max_nodes: 1_000_000,
            max_search_bits: 200,
        }
    }
}

/// Why an exact schedule is optimal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Optimality {
    /// The schedule has as many cycles as the lower bound `max(⌈λ(M)⌉, 1)` (0 for the empty
    /// set).
    LowerBoundMet {
        /// The lower bound.
        lower_bound: u64,
    },
    /// No schedule with `cycles` cycles exists: the complete search for one visited `nodes`
    /// nodes and found none.
    Exhausted {
        /// The number of cycles shown impossible (the optimum minus one).
        cycles: u64,
        /// Nodes of that search.
        nodes: u64,
    },
}

/// A schedule with the fewest delivery cycles, and why no schedule has fewer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ExactSchedule {
    /// The schedule (verify it with [`Schedule::verify`]).
    pub schedule: Schedule,
    /// λ(M), exact.
    pub load_factor: LoadFactor,
    /// `max(⌈λ(M)⌉, 1)` for a non-empty set, 0 for the empty one.
    pub lower_bound: u64,
    /// Cycles of the first-fit-decreasing schedule the search starts from (an upper bound).
    pub first_fit: u64,
    /// The proof of optimality.
    pub proof: Optimality,
    /// Nodes of all the searches run.
    pub nodes: u64,
}

impl ExactSchedule {
    /// The optimum: the number of cycles of [`ExactSchedule::schedule`].
    pub fn cycles(&self) -> u64 {
        self.schedule.len() as u64
    }
}

/// One `(src, dst)` pair with `src != dst`: its channels (compact indices) and its messages.
struct Kind {
    path: Vec<usize>,
    ids: Vec<MessageId>,
}

/// The instance in compact form: the message types and the capacities of the channels used.
struct Instance {
    kinds: Vec<Kind>,
    caps: Vec<u32>,
    /// Messages from a processor to itself.
    selfs: Vec<MessageId>,
}

fn instance(tree: &FatTree, messages: &MessageSet) -> Instance {
    let mut pairs: BTreeMap<(u32, u32), Vec<MessageId>> = BTreeMap::new();
    let mut selfs = Vec::new();
    for (i, m) in messages.messages().iter().enumerate() {
        let id = MessageId(i as u32);
        if m.src == m.dst {
            selfs.push(id);
        } else {
            pairs.entry((m.src, m.dst)).or_default().push(id);
        }
    }
    let mut compact: BTreeMap<u32, usize> = BTreeMap::new();
    let mut caps = Vec::new();
    let mut path: Vec<ChannelId> = Vec::new();
    let kinds = pairs
        .into_iter()
        .map(|((src, dst), ids)| {
            tree.path_into(src, dst, 0, &mut path);
            let path = path
                .iter()
                .map(|c| {
                    *compact.entry(c.0).or_insert_with(|| {
                        // Capacities above the message count never bind.
                        let cap = tree.channel(*c).capacity.min(u64::from(u32::MAX));
                        caps.push(cap as u32);
                        caps.len() - 1
                    })
                })
                .collect();
            Kind { path, ids }
        })
        .collect();
    Instance { kinds, caps, selfs }
}

/// `log2` (rounded up) of the worst-case node count of a search for a `k`-cycle schedule of
/// `messages`: `Σ over pairs of log2 C(copies + k − 1, k − 1)`, the number of ways to
/// distribute every pair's copies over `k` cycles. Refusals compare it with
/// [`ExactConfig::max_search_bits`].
pub fn search_space_bits(messages: &MessageSet, k: u64) -> u64 {
    let mut pairs: BTreeMap<(u32, u32), u64> = BTreeMap::new();
    for m in messages.messages().iter().filter(|m| m.src != m.dst) {
        *pairs.entry((m.src, m.dst)).or_default() += 1;
    }
    let bits: f64 = pairs
        .values()
        .map(|&c| log2_binomial(c + k.saturating_sub(1), k.saturating_sub(1)))
        .sum();
    bits.ceil() as u64
}

fn log2_binomial(n: u64, r: u64) -> f64 {
    let r = r.min(n - r);
    (0..r)
        .map(|i| ((n - i) as f64).log2() - ((i + 1) as f64).log2())
        .sum()
}

/// The first-fit-decreasing schedule: types by decreasing path length, then decreasing
/// copies; each message into the first cycle with room on its whole path. Returns per cycle
/// the copies of each type.
fn first_fit(inst: &Instance) -> Vec<Vec<u32>> {
    let mut order: Vec<usize> = (0..inst.kinds.len()).collect();
    order.sort_by_key(|&t| {
        (
            std::cmp::Reverse(inst.kinds[t].path.len()),
            std::cmp::Reverse(inst.kinds[t].ids.len()),
            t,
        )
    });
    let mut residual: Vec<Vec<u32>> = Vec::new();
    let mut counts: Vec<Vec<u32>> = Vec::new();
    for t in order {
        let path = &inst.kinds[t].path;
        for _ in 0..inst.kinds[t].ids.len() {
            let b = match residual.iter().position(|r| path.iter().all(|&c| r[c] > 0)) {
                Some(b) => b,
                None => {
                    residual.push(inst.caps.clone());
                    counts.push(vec![0; inst.kinds.len()]);
                    residual.len() - 1
                }
            };
            for &c in path {
                residual[b][c] -= 1;
            }
            counts[b][t] += 1;
        }
    }
    counts
}

/// How one decision search ended.
enum Outcome {
    /// A schedule: per cycle, the copies of each type.
    Found(Vec<Vec<u32>>),
    /// No schedule with that many cycles.
    Exhausted,
    /// The node budget ran out.
    OutOfBudget,
}

/// The depth-first search for a `k`-cycle schedule.
struct Search<'a> {
    inst: &'a Instance,
    k: usize,
    channels: usize,
    /// `residual[b * channels + c]`.
    residual: Vec<u32>,
    /// Copies of each type not yet assigned.
    remaining: Vec<u32>,
    /// `counts[b * types + t]`.
    counts: Vec<u32>,
    /// `same[b]`: cycle `b` has received exactly what cycle `b − 1` has (so far).
    same: Vec<bool>,
    nodes: u64,
    budget: u64,
    out_of_budget: bool,
    /// Channel → the types through it.
    through: Vec<Vec<usize>>,
}

impl<'a> Search<'a> {
    fn new(inst: &'a Instance, k: usize, budget: u64) -> Self {
        let channels = inst.caps.len();
        let types = inst.kinds.len();
        let mut through = vec![Vec::new(); channels];
        for (t, kind) in inst.kinds.iter().enumerate() {
            for &c in &kind.path {
                through[c].push(t);
            }
        }
        Search {
            inst,
            k,
            channels,
            residual: (0..k).flat_map(|_| inst.caps.iter().copied()).collect(),
            remaining: inst.kinds.iter().map(|t| t.ids.len() as u32).collect(),
            counts: vec![0; k * types],
            same: (0..k).map(|b| b > 0).collect(),
            nodes: 0,
            budget,
            out_of_budget: false,
            through,
        }
    }

    fn run(mut self) -> (Outcome, u64) {
        let found = self.dfs();
        let nodes = self.nodes;
        let outcome = if found {
            let types = self.inst.kinds.len();
            Outcome::Found(
                self.counts
                    .chunks(types.max(1))
                    .map(<[u32]>::to_vec)
                    .collect(),
            )
        } else if self.out_of_budget {
            Outcome::OutOfBudget
        } else {
            Outcome::Exhausted
        };
        (outcome, nodes)
    }

    /// Room for type `t` in cycle `b`: the smallest residual capacity on its path.
    fn room(&self, t: usize, b: usize) -> u32 {
        let r = &self.residual[b * self.channels..(b + 1) * self.channels];
        self.inst.kinds[t]
            .path
            .iter()
            .map(|&c| r[c])
            .min()
            .unwrap_or(u32::MAX)
    }

    fn dfs(&mut self) -> bool {
        if self.nodes >= self.budget {
            self.out_of_budget = true;
            return false;
        }
        self.nodes += 1;
        let k = self.k;
        let types = self.inst.kinds.len();
        // room[t * k + b], capped by the copies left.
        let mut room = vec![0u32; types * k];
        let mut best: Option<(i64, usize)> = None;
        for t in 0..types {
            let left = self.remaining[t];
            if left == 0 {
                continue;
            }
            let mut total = 0u64;
            for b in 0..k {
                let r = self.room(t, b).min(left);
                room[t * k + b] = r;
                total += u64::from(r);
            }
            let slack = total as i64 - i64::from(left);
            if slack < 0 {
                return false;
            }
            let key = (slack, t);
            // Least slack first; among equals, the longer path, then the lower index.
            let better = match best {
                None => true,
                Some((s, u)) => {
                    slack < s
                        || (slack == s
                            && self.inst.kinds[t].path.len() > self.inst.kinds[u].path.len())
                }
            };
            if better {
                best = Some(key);
            }
        }
        let Some((_, t)) = best else {
            return true; // everything assigned
        };
        // Per-channel bound.
        for c in 0..self.channels {
            let through = &self.through[c];
            let demand: u64 = through.iter().map(|&u| u64::from(self.remaining[u])).sum();
            if demand == 0 {
                continue;
            }
            let mut usable = 0u64;
            for b in 0..k {
                let fits: u64 = through.iter().map(|&u| u64::from(room[u * k + b])).sum();
                usable += fits.min(u64::from(self.residual[b * self.channels + c]));
            }
            if usable < demand {
                return false;
            }
        }
        let caps: Vec<u32> = room[t * k..(t + 1) * k].to_vec();
        let mut suffix = vec![0u32; k + 1];
        for b in (0..k).rev() {
            suffix[b] = suffix[b + 1] + caps[b];
        }
        let mut x = vec![0u32; k];
        self.distribute(t, 0, self.remaining[t], &caps, &suffix, &mut x)
    }

    /// Tries every distribution of `left` copies of type `t` over cycles `b..k`, then
    /// recurses.
    fn distribute(
        &mut self,
        t: usize,
        b: usize,
        left: u32,
        caps: &[u32],
        suffix: &[u32],
        x: &mut [u32],
    ) -> bool {
        if b == self.k {
            return left == 0 && self.place(t, x);
        }
        let mut high = caps[b].min(left);
        if self.same[b] {
            high = high.min(x[b - 1]);
        }
        let low = left.saturating_sub(suffix[b + 1]);
        if low > high {
            return false;
        }
        for v in (low..=high).rev() {
            x[b] = v;
            if self.distribute(t, b + 1, left - v, caps, suffix, x) {
                return true;
            }
            if self.out_of_budget {
                return false;
            }
        }
        x[b] = 0;
        false
    }

    /// Assigns `x[b]` copies of type `t` to each cycle `b`, searches on, and undoes it.
    fn place(&mut self, t: usize, x: &[u32]) -> bool {
        let types = self.inst.kinds.len();
        let saved = self.same.clone();
        for b in 0..self.k {
            if x[b] > 0 {
                for &c in &self.inst.kinds[t].path {
                    self.residual[b * self.channels + c] -= x[b];
                }
                self.counts[b * types + t] += x[b];
            }
            if b > 0 && x[b] != x[b - 1] {
                self.same[b] = false;
            }
        }
        let total: u32 = x.iter().sum();
        self.remaining[t] -= total;
        if self.dfs() {
            return true;
        }
        self.remaining[t] += total;
        for (b, &v) in x.iter().enumerate() {
            if v > 0 {
                for &c in &self.inst.kinds[t].path {
                    self.residual[b * self.channels + c] += v;
                }
                self.counts[b * types + t] -= v;
            }
        }
        self.same = saved;
        false
    }
}

/// The schedule of per-cycle type counts, self messages in the first cycle.
fn schedule_of(inst: &Instance, counts: &[Vec<u32>]) -> Schedule {
    let mut next = vec![0usize; inst.kinds.len()];
    let mut cycles: Vec<Vec<MessageId>> = counts
        .iter()
        .map(|cycle| {
            let mut ids = Vec::new();
            for (t, &c) in cycle.iter().enumerate() {
                let kind = &inst.kinds[t].ids;
                ids.extend_from_slice(&kind[next[t]..next[t] + c as usize]);
                next[t] += c as usize;
            }
            ids
        })
        .filter(|ids| !ids.is_empty())
        .collect();
    if !inst.selfs.is_empty() {
        if cycles.is_empty() {
            cycles.push(Vec::new());
        }
        cycles[0].extend_from_slice(&inst.selfs);
        cycles[0].sort_unstable();
    }
    Schedule::new(cycles)
}

/// The fewest delivery cycles of `messages` on `tree`, with the schedule and the proof that
/// no schedule has fewer ([module documentation](self)).
///
/// # Errors
///
/// - [`OfflineError::ProcessorMismatch`] when the message set has more processors than the
///   tree;
/// - [`OfflineError::SearchTooLarge`] before any search when [`search_space_bits`] for one
///   cycle fewer than the first-fit schedule exceeds `config.max_search_bits` (the estimate
///   and the limit are in the error);
/// - [`OfflineError::SearchBudgetExceeded`] when the searches need more than
///   `config.max_nodes` nodes, with the bounds known by then;
/// - [`OfflineError::Load`] when the load analysis refuses the tree.
pub fn min_cycles(
    tree: &FatTree,
    messages: &MessageSet,
    config: ExactConfig,
) -> Result<ExactSchedule, OfflineError> {
    if messages.processors() > tree.n() {
        return Err(OfflineError::ProcessorMismatch {
            messages: u64::from(messages.processors()),
            topology: u64::from(tree.n()),
        });
    }
    let load_factor = LoadReport::for_fat_tree(tree, fat_tree_loads(tree, messages)?).load_factor;
    let lower_bound = if messages.is_empty() {
        0
    } else {
        load_factor.ceil().max(1)
    };
    let inst = instance(tree, messages);
    let start = first_fit(&inst);
    let first = (start.len() as u64).max(u64::from(!messages.is_empty()));
    let done = |counts: &[Vec<u32>], proof, nodes| ExactSchedule {
        schedule: schedule_of(&inst, counts),
        load_factor,
        lower_bound,
        first_fit: first,
        proof,
        nodes,
    };
    if first <= lower_bound {
        return Ok(done(&start, Optimality::LowerBoundMet { lower_bound }, 0));
    }
    let bits = search_space_bits(messages, first - 1);
    if bits > config.max_search_bits {
        return Err(OfflineError::SearchTooLarge {
            what: "exact schedule search (log2 of its worst-case node count)",
            size: bits,
            limit: config.max_search_bits,
        });
    }
    let mut nodes = 0u64;
    let mut last_exhausted = 0u64;
    for k in lower_bound..first {
        let (outcome, used) = Search::new(&inst, k as usize, config.max_nodes - nodes).run();
        nodes += used;
        match outcome {
            Outcome::Found(counts) => {
                let proof = if k == lower_bound {
                    Optimality::LowerBoundMet { lower_bound }
                } else {
                    Optimality::Exhausted {
                        cycles: k - 1,
                        nodes: last_exhausted,
                    }
                };
                return Ok(done(&counts, proof, nodes));
            }
            Outcome::Exhausted => last_exhausted = used,
            Outcome::OutOfBudget => {
                return Err(OfflineError::SearchBudgetExceeded {
                    nodes,
                    lower: k,
                    upper: first,
                });
            }
        }
    }
    Ok(done(
        &start,
        Optimality::Exhausted {
            cycles: first - 1,
            nodes: last_exhausted,
        },
        nodes,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use fatnet_topology::CapacityProfile;
    use fatnet_traffic::Message;

    fn set(n: u32, pairs: &[(u32, u32)]) -> MessageSet {
        MessageSet::new(n, pairs.iter().map(|&(s, d)| Message::new(s, d)).collect()).unwrap()
    }

    #[test]
    fn a_one_cycle_set_takes_one_cycle() {
        let tree = FatTree::new(4, CapacityProfile::Constant(1)).unwrap();
        let m = set(4, &[(0, 1), (1, 0), (2, 3), (3, 2)]);
        let s = min_cycles(&tree, &m, ExactConfig::default()).unwrap();
        assert_eq!(s.cycles(), 1);
        assert_eq!(s.proof, Optimality::LowerBoundMet { lower_bound: 1 });
        assert_eq!(s.schedule.verify(&tree, &m), Ok(()));
    }

    /// Three messages through the same up channel of unit capacity: λ = 3 = the optimum.
    #[test]
    fn three_messages_over_one_unit_channel_take_three_cycles() {
        let tree = FatTree::new(8, CapacityProfile::Constant(1)).unwrap();
        let m = set(8, &[(0, 3), (1, 2), (0, 2)]);
        let s = min_cycles(&tree, &m, ExactConfig::default()).unwrap();
        assert_eq!((s.lower_bound, s.cycles()), (3, 3));
        assert_eq!(s.schedule.verify(&tree, &m), Ok(()));
    }

    #[test]
    fn self_messages_take_the_first_cycle_and_the_empty_set_none() {
        let tree = FatTree::new(4, CapacityProfile::Constant(1)).unwrap();
        let m = set(4, &[(2, 2), (1, 1)]);
        let s = min_cycles(&tree, &m, ExactConfig::default()).unwrap();
        assert_eq!(s.cycles(), 1);
        assert_eq!(s.schedule.verify(&tree, &m), Ok(()));
        let e = set(4, &[]);
        let s = min_cycles(&tree, &e, ExactConfig::default()).unwrap();
        assert_eq!((s.cycles(), s.lower_bound), (0, 0));
    }

    #[test]
    fn limits_are_typed_errors() {
        let tree = FatTree::new(4, CapacityProfile::Constant(1)).unwrap();
        let m = set(8, &[(0, 7)]);
        assert!(matches!(
            min_cycles(&tree, &m, ExactConfig::default()),
            Err(OfflineError::ProcessorMismatch { .. })
        ));
        // Every processor sends to every other one twice: first fit is not optimal at once
        // for the zero budget, or the estimate is refused for 0 bits.
        let pairs: Vec<(u32, u32)> = (0..4)
            .flat_map(|s| (0..4).filter(move |&d| d != s).map(move |d| (s, d)))
            .collect();
        let m = set(4, &[pairs.clone(), pairs].concat());
        let refused = min_cycles(
            &tree,
            &m,
            ExactConfig {
                max_search_bits: 0,
                ..ExactConfig::default()
            },
        );
        let starved = min_cycles(
            &tree,
            &m,
            ExactConfig {
                max_nodes: 0,
                ..ExactConfig::default()
            },
        );
        let solved = min_cycles(&tree, &m, ExactConfig::default()).unwrap();
        if solved.first_fit > solved.lower_bound {
            assert!(matches!(
                refused,
                Err(OfflineError::SearchTooLarge { limit: 0, .. })
            ));
            assert!(matches!(
                starved,
                Err(OfflineError::SearchBudgetExceeded { nodes: 0, .. })
            ));
        } else {
            assert_eq!(refused.unwrap().cycles(), solved.cycles());
        }
        assert_eq!(solved.schedule.verify(&tree, &m), Ok(()));
    }
}
