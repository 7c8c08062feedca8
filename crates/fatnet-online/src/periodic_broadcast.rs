//! Stamoulis' periodic direct schemes for multiple broadcasts on the hypercube (thesis
//! §6.3.2–6.3.3): **P1**, which repeats an optimal multinode broadcast
//! (MNB) every `P = ⌈(2^d − 1)/d⌉` slots, each node broadcasting the head of its FIFO queue
//! once per period, and its **non-idling version with label priority**, in which every packet
//! follows its origin's MNB tree as fast as possible and each arc sends the smallest label
//! first.
//!
//! **Key design decision: our MNB stands in for the thesis' trees.** The thesis takes the
//! trees and the timing of Bertsekas et al.'s optimal MNB (BOSTT91), which it does not give.
//! We use `fatnet_offline::hypercube::multinode_broadcast`, an optimal
//! MNB of the same length `P`, verified by `SlotSchedule::verify` in fatnet-offline: it is
//! translation invariant, node `y`'s packet reaching `y ⊕ v` in slot `s(v)` across
//! dimension `i(v)` of one spanning tree rooted at 0 ([`PeriodicScheme::slot`],
//! [`PeriodicScheme::dimension`]). The caller passes that tree in
//! (`fatnet_offline::hypercube::multinode_broadcast_tree`, as `(s, i)` per node) and
//! [`PeriodicScheme::from_tree`] checks what the simulation relies on — a spanning tree whose
//! slots increase along its paths, no two nodes sharing a (slot, dimension) pair (so every
//! arc carries one origin's packet per slot) and the optimal length `P` — so that the
//! simulator does not depend on the off-line schedulers. Node `y`'s tree is that tree translated by `y`. Every arc
//! of dimension `i` lies in the trees of `n_i = #{v : i(v) = i}` origins, `max_i n_i = P`, so
//! both schemes are stable iff `λP < 1`, i.e. (6.7) `ρ < ((2^d − 1)/d)/P` — the same limit
//! as with the thesis' trees. Figure 6.1 (the BOSTT91 trees' delays) is therefore reproduced
//! with a substitute, not with the thesis' trees.
//!
//! **P1 is simulated exactly without the packet engine.** The verified schedule is
//! contention-free, so under P1 the network is deterministic: a packet generated at `τ` by a
//! node whose previous packet went in period `k'` goes in period
//! `k = max(k' + 1, ⌈τ/P⌉)` (period `k` is the slots `kP, …, kP + P − 1`, slot `t` being the
//! interval `[t, t + 1)`), and its broadcast ends at `kP + c`, `c` the schedule's completion
//! slot (`c = P`). Each node is then exactly the M/D/1 queue with synchronisation (2.6),
//! `Δ = P`: [`PeriodicScheme::p1_delay`].
//!
//! **Labels (§6.3.3, with the notes' correction #9).** `ℓ_1 = ⌈τ_1/P⌉ + 1`,
//! `ℓ_{n+1} = max{ℓ_n + 1, ⌈τ_{n+1}/P⌉ + 1}`: the 1-based period in which P1 broadcasts the
//! packet (the OCR prints `τ_n` in the second term). The thesis starts period `ℓ` at
//! "(ℓ − 1)P + 1"; we read this as slot number `(ℓ − 1)P + 1` counted from 1, i.e. the time
//! `(ℓ − 1)P`, so that the label is the first period that starts after the packet's
//! generation and the labels are exactly P1's periods. The non-idling scheme releases a packet
//! in the slot after its generation, along its origin's MNB tree, on output queues ordered by
//! `(label, s(v))` ([`ScanPolicy::Labelled`], `v` the node the arc enters, translated to
//! origin 0): equal labels go in the order in which P1 would send them across the arc. No two
//! copies on one arc share both keys, so there are no ties. The thesis' argument (each packet
//! arrives no later than under P1) is tested pathwise on the same births.
//!
//! **P2 (SaS85's `d` simultaneous broadcasts every `2^d − 1` slots) is not reproduced**: the
//! thesis does not give SaS85's schedule and we have no substitute; its
//! non-idling version is the efficient direct scheme ([`crate::direct_broadcast`]).

use crate::OnlineParameter;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;
use serde::Serialize;

use crate::direct_broadcast::{
    DirectConfig, DirectReport, RunTimes, check_config, poisson_births, report,
};
use crate::packet::{
    Multicast, MulticastTree, OnlineError, Outcome, PacketConfig, PacketNet, ScanPolicy,
    simulate_multicast_stored,
};

/// What [`PeriodicScheme::simulate`] keeps of the engine's report: outcome, mean queued
/// copies, longest arc queue, hops, the stored packets per slot and the largest count at a
/// node per slot.
type EngineSummary = (Outcome, f64, u32, u64, Option<Vec<u32>>, Option<Vec<u32>>);
use fatnet_topology::{Hypercube, Processor};

/// The largest dimension: fatnet-offline's multinode broadcast is certified optimal up to 12.
pub const MAX_DIMENSION: u32 = 12;

/// How the packets of the periodic scheme travel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum PeriodicDiscipline {
    /// P1 (§6.3.2): every `P` slots the multinode broadcast runs once, each node
    /// broadcasting the head of its FIFO queue.
    Periodic,
    /// The non-idling version (§6.3.3): packets follow their origin's MNB tree as fast as
    /// possible; each arc sends the smallest (label, MNB slot) first.
    LabelPriority,
}

/// The `d`-cube, our optimal multinode broadcast schedule and every node's tree in it.
#[derive(Debug)]
pub struct PeriodicScheme {
    d: u32,
    period: u32,
    completion: u32,
    /// `s(v)`, the 1-based slot in which `v` receives node 0's packet (0 for `v = 0`).
    slot: Vec<u32>,
    /// `i(v)`, the 0-based dimension across which it does.
    dim: Vec<u32>,
    net: PacketNet,
    trees: Vec<MulticastTree>,
}

impl PeriodicScheme {
    /// The scheme of the optimal multinode broadcast tree given as `slot[v]` (`s(v)`, the
    /// 1-based slot in which node `v` receives node 0's packet; 0 for the root) and `dim[v]`
    /// (`i(v)`, the 0-based dimension across which it does), for every node of the `d`-cube:
    /// the per-node trees (translations) and the cube.
    ///
    /// # Errors
    ///
    /// [`OnlineError::BadParameter`] for `d` outside `2..=12`; [`OnlineError::BadTree`] if
    /// the tree is not a spanning tree of the cube rooted at 0 whose slots increase along its
    /// paths, two nodes share a (slot, dimension) pair, or it is not `P` slots long.
    pub fn from_tree(d: u32, slot: &[u32], dim: &[u32]) -> Result<Self, OnlineError> {
        let bad_d = || OnlineError::BadParameter {
            param: OnlineParameter::D,
            value: d.to_string(),
            expected: "2 to 12 for the multinode broadcast schedule",
        };
        if !(2..=MAX_DIMENSION).contains(&d) {
            return Err(bad_d());
        }
        let n = 1u32 << d;
        let bad = |why: String| Err(OnlineError::BadTree { why });
        if slot.len() != n as usize || dim.len() != n as usize {
            return bad(format!(
                "the tree has {} slots and {} dimensions for {n} nodes",
                slot.len(),
                dim.len()
            ));
        }
        if slot[0] != 0 {
            return bad("the root receives its own packet".into());
        }
        let mut used = std::collections::HashSet::new();
        for v in 1..n as usize {
            let (s, i) = (slot[v], dim[v]);
            if s == 0 || i >= d {
                return bad(format!("node {v} has slot {s} and dimension {i}"));
            }
            let parent = v ^ (1 << i);
            if parent != 0 && slot[parent] >= s {
                return bad(format!(
                    "node {v} receives in slot {s}, its parent {parent} only in slot {}",
                    slot[parent]
                ));
            }
            if !used.insert((s, i)) {
                return bad(format!(
                    "two nodes receive in slot {s} across dimension {i}: arcs would carry two packets"
                ));
            }
        }
        let slot = slot.to_vec();
        let dim = dim.to_vec();
        let completion = slot.iter().copied().max().unwrap_or(0);
        let period = (n - 1).div_ceil(d);
        if completion != period {
            return bad(format!(
                "the broadcast takes {completion} slots, not the optimal {period}"
            ));
        }
        let cube = Hypercube::new(u64::from(d)).map_err(|_| bad_d())?;
        let net = PacketNet::new(cube)?;
        // Node y's tree is node 0's moved by x ↦ x ⊕ y, ranks included (a rank is the slot of
        // the link's head relative to the root): built once, then translated.
        let links: Vec<u32> = (1..n)
            .map(|v| {
                let i = dim[v as usize];
                (i << d) | (v ^ (1 << i))
            })
            .collect();
        let dsts: Vec<Processor> = (1..n).collect();
        let base = MulticastTree::new(&net, 0, &dsts, &links)?.with_ranks(|e| {
            let (i, tail) = (e >> d, e & (n - 1));
            slot[(tail ^ (1 << i)) as usize] as u16
        });
        let trees = (0..n)
            .map(|y| base.xor_translate(&net, y))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Self {
            d,
            period,
            completion,
            slot,
            dim,
            net,
            trees,
        })
    }

    /// The cube's dimension.
    pub fn d(&self) -> u32 {
        self.d
    }

    /// The period `P = ⌈(2^d − 1)/d⌉`, the optimal multinode broadcast time.
    pub fn period(&self) -> u32 {
        self.period
    }

    /// The last slot of the schedule with a transmission (equal to the period).
    pub fn completion(&self) -> u32 {
        self.completion
    }

    /// `s(v)`: the 1-based slot of the period in which node `y ⊕ v` receives node `y`'s
    /// packet (`None` for `v = 0` or outside the cube).
    pub fn slot(&self, v: u32) -> Option<u32> {
        self.slot.get(v as usize).copied().filter(|&s| s > 0)
    }

    /// `i(v)`: the 0-based dimension across which it does.
    pub fn dimension(&self, v: u32) -> Option<u32> {
        self.slot(v).map(|_| self.dim[v as usize])
    }

    /// Node `origin`'s tree (links ranked by their slot in the schedule).
    pub fn tree(&self, origin: u32) -> Option<&MulticastTree> {
        self.trees.get(origin as usize)
    }

    /// The stability limit (6.7) of both disciplines: `ρ < ((2^d − 1)/d)/P`.
    pub fn stability_limit(&self) -> f64 {
        let per = f64::from((1u32 << self.d) - 1) / f64::from(self.d);
        per / f64::from(self.period)
    }

    /// P1's exact mean delay at load `rho`: the M/D/1 queue with synchronisation (2.6) with
    /// `Δ = P` (service starts only at period boundaries and lasts a period), the broadcast
    /// ending at the schedule's completion slot `c = P` of its period:
    /// `T = P[3/2 + λP/(2(1 − λP))] − P + c`. `None` unless `0 < ρ` < (6.7). It is also an
    /// upper bound on the non-idling scheme's mean delay (every packet arrives no later).
    pub fn p1_delay(&self, rho: f64) -> Option<f64> {
        let p = f64::from(self.period);
        let lambda = rho * f64::from(self.d) / f64::from((1u32 << self.d) - 1);
        fatnet_queueing::stamoulis::queues::synchronised_md1_delay(lambda, p)
            .ok()
            .map(|t| t - p + f64::from(self.completion))
    }

    /// One run under `config` and `discipline`. The births (and so the P1 periods and the
    /// labels) depend only on `config`: both disciplines see the same packets.
    ///
    /// # Errors
    ///
    /// [`OnlineError::BadParameter`] for ρ not positive and finite, `horizon = 0`,
    /// `warmup ≥ horizon` or `batches = 0`.
    pub fn simulate(
        &self,
        config: &DirectConfig,
        discipline: PeriodicDiscipline,
    ) -> Result<DirectReport, OnlineError> {
        let (times, engine) = self.run(config, discipline)?;
        let (born, done): (Vec<f64>, Vec<f64>) = times.into_iter().unzip();
        // Every node's tree is a translation of node 0's: one height.
        let height = self.trees.first().map_or(0, MulticastTree::height);
        let free: Vec<f64> = born.iter().map(|b| b.ceil() + f64::from(height)).collect();
        Ok(report(
            config,
            &RunTimes {
                born: &born,
                done: &done,
                free: &free,
                outcome: engine.0,
                mean_queued: engine.1,
                max_queue: engine.2,
                packet_hops: engine.3,
                stored: engine.4.as_deref(),
                stored_peak: engine.5.as_deref(),
                nodes: 1 << self.d,
            },
        ))
    }

    /// Every packet's (generation time, completion time) of the run [`Self::simulate`]
    /// reports, in generation order (completion `INFINITY` if never delivered): to compare
    /// the two disciplines packet by packet.
    ///
    /// # Errors
    ///
    /// As [`Self::simulate`].
    pub fn completion_times(
        &self,
        config: &DirectConfig,
        discipline: PeriodicDiscipline,
    ) -> Result<Vec<(f64, f64)>, OnlineError> {
        Ok(self.run(config, discipline)?.0)
    }

    /// The run: (born, done) per packet and the engine's (outcome, mean queued, max queue,
    /// hops, stored per slot, largest count at a node per slot).
    #[allow(clippy::type_complexity)]
    fn run(
        &self,
        config: &DirectConfig,
        discipline: PeriodicDiscipline,
    ) -> Result<(Vec<(f64, f64)>, EngineSummary), OnlineError> {
        let c = *config;
        let (_, horizon) = check_config(&c)?;
        let n = 1u32 << self.d;
        let lambda = c.rho * f64::from(self.d) / f64::from(n - 1);
        let mut rng = Pcg64::seed_from_u64(c.seed);
        let births = poisson_births(n, lambda, horizon, &mut rng, |_| 0)?;
        let born: Vec<f64> = births.iter().map(|b| b.0).collect();
        let periods = p1_periods(&births, n, self.period);
        let p = u64::from(self.period);
        match discipline {
            PeriodicDiscipline::Periodic => {
                let done: Vec<f64> = periods
                    .iter()
                    .map(|&k| (k * p + u64::from(self.completion)) as f64)
                    .collect();
                let hops = born.len() as u64 * u64::from(n - 1);
                Ok((
                    born.into_iter().zip(done).collect(),
                    (Outcome::Delivered, f64::NAN, 0, hops, None, None),
                ))
            }
            PeriodicDiscipline::LabelPriority => {
                // Generated in (s − 1, s]: may first be sent in slot s.
                let multicasts: Vec<Multicast> = births
                    .iter()
                    .map(|&(t, origin, _)| Multicast {
                        tree: origin,
                        release: t.ceil() as u64,
                    })
                    .collect();
                let engine = PacketConfig::output_queued_unit(ScanPolicy::Labelled);
                let r = simulate_multicast_stored(
                    &self.net,
                    &self.trees,
                    &multicasts,
                    &periods,
                    &engine,
                    rng.random(),
                )?;
                let latencies = r.latencies.as_deref().unwrap_or_default();
                let done = crate::direct_broadcast::completion_times(&multicasts, latencies);
                Ok((
                    born.into_iter().zip(done).collect(),
                    (
                        r.outcome,
                        r.mean_queued,
                        r.max_queue,
                        r.unit_hops,
                        r.stored,
                        r.stored_peak,
                    ),
                ))
            }
        }
    }
}

/// The 0-based P1 period of every birth (= the thesis' label `ℓ` − 1): per origin,
/// `k_1 = ⌈τ_1/P⌉`, `k_{n+1} = max{k_n + 1, ⌈τ_{n+1}/P⌉}` (§6.3.3; the thesis prints `⌈τ_n/P⌉`, a
/// misprint for `⌈τ_{n+1}/P⌉`).
fn p1_periods(births: &[(f64, u32, u32)], nodes: u32, period: u32) -> Vec<u64> {
    let mut next = vec![0u64; nodes as usize];
    births
        .iter()
        .map(|&(t, origin, _)| {
            let k = next[origin as usize].max((t / f64::from(period)).ceil() as u64);
            next[origin as usize] = k + 1;
            k
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_follow_the_corrected_recursion() {
        // P = 3: τ = 0.5, 1.0, 7.2 at node 0, 2.9 at node 1.
        let births = [(0.5, 0, 0), (1.0, 0, 0), (2.9, 1, 0), (7.2, 0, 0)];
        // ℓ − 1: ⌈0.5/3⌉ = 1; max(2, 1) = 2; ⌈2.9/3⌉ = 1; max(3, ⌈7.2/3⌉ = 3) = 3.
        assert_eq!(p1_periods(&births, 2, 3), vec![1, 2, 1, 3]);
    }
}
