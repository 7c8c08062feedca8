//! Stamoulis' indirect scheme for multiple broadcasts on the hypercube (thesis §7.1.2, notes
//! 002b §2.7): every packet travels to the root of one of Johnsson and Ho's d arc-disjoint
//! spanning trees and is broadcast from there, under Rules A–E.
//!
//! **Key design decision: one tree is simulated, exactly.** The d trees are arc-disjoint, so
//! are their reversals, the virtual arcs are per tree, and Rule C separates the two
//! directions of an arc in time; packets of different trees therefore never contend (the
//! thesis' non-interference property), and each tree is an independent copy of the same
//! system with per-node rate λ/d. This module simulates tree T^(1) (root e_1) frame by frame.
//! It is a dedicated simulator, not the packet engine: the slot classes, virtual arcs and
//! root buffers of Rules C–E are not policies of a general engine.
//!
//! **Rules** (slot classes C_k = {t : t mod 3 = k}; a frame is slots t, t+1, t+2, t ∈ C_0):
//! - A: a packet picks its tree uniformly (hence rate λ/d per node for this tree);
//! - B: it first travels to the root along the reversed tree path;
//! - C: root-bound transmissions only in C_0 slots, broadcasts only in C_1 ∪ C_2;
//! - D: a packet born at a non-leaf first crosses its node's virtual arc (one per C_0 slot);
//! - E: the root keeps buffer B_1 (origins in the largest subtree) and B_2 (all others, the
//!   root included) and starts one broadcast from each per frame, in slots t+1 and t+2 in a
//!   random order (a fair coin), or one at a random one of the two if only one buffer holds a
//!   packet. A broadcast ends at the end of the d-th non-C_0 slot from its start (inclusive).
//!
//! **Choices where the thesis is silent** (documented in the notes): queues are FIFO; packets
//! arriving at one queue in the same slot are in random order, after the packets that became
//! eligible at the start of the slot (in generation order); a packet generated in `(t − 3, t)`
//! becomes eligible in C_0 slot `t`. Delay T runs from generation to the end of the broadcast.

use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;
use serde::Serialize;
use std::collections::VecDeque;
use thiserror::Error;

/// Largest dimension simulated (the state is a few words per node).
pub const MAX_DIMENSION: u32 = 20;

/// Why the indirect scheme cannot be simulated.
#[derive(Debug, Clone, PartialEq, Error)]
#[non_exhaustive]
pub enum IndirectError {
    /// A parameter is outside its range.
    #[error("{param} = {value} is out of range ({expected})")]
    BadParameter {
        /// The parameter.
        param: &'static str,
        /// Its value, as text.
        value: String,
        /// What is allowed.
        expected: &'static str,
    },
}

/// The options of a run of the indirect scheme.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct IndirectConfig {
    /// The cube's dimension `d` (2 to [`MAX_DIMENSION`]).
    pub d: u32,
    /// The load factor ρ = λ(2^d − 1)/d (thesis (6.1)); stability needs
    /// ρ < (2/3)(1 − 2^−d) (Prop. 7.3), but any ρ > 0 may be simulated.
    pub rho: f64,
    /// Packets are generated in `[0, horizon)` slots.
    pub horizon: u64,
    /// Packets generated before this time are not measured.
    pub warmup: u64,
    /// Number of batches (by generation order) of the measured packets, for batch means.
    pub batches: u32,
    /// The run's seed.
    pub seed: u64,
}

/// The result of a run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IndirectReport {
    /// Packets generated for the simulated tree (all, warm-up included).
    pub packets: u64,
    /// Packets measured (generated in `[warmup, horizon)`).
    pub measured: u64,
    /// Mean delay T of the measured packets (generation to the end of the broadcast).
    pub delay_mean: f64,
    /// Mean delay of each batch of measured packets, in generation order.
    pub batch_means: Vec<f64>,
    /// Time-average number of packets of the tree waiting to reach or leave the root (in a
    /// virtual-arc, reverse-arc or root-buffer queue), sampled once per frame.
    pub mean_waiting: f64,
    /// The largest such number in any frame.
    pub max_waiting: u64,
    /// The number waiting when generation stopped (a growing backlog means instability).
    pub waiting_at_horizon: u64,
    /// Frames simulated.
    pub frames: u64,
    /// Time-average over `[warmup, horizon)` of the packets of the simulated tree *stored* in
    /// the network, by the thesis' convention (§6.4, notes 002b §1): a packet is stored at a
    /// node while that node still has to forward it (its transmission slots included), so
    /// from its generation until the end of its first broadcast slot (at its origin, on its
    /// way, in a root buffer), and then at every non-leaf node of the tree from its reception
    /// to the end of the slot in which it forwards it.
    pub stored_mean: f64,
    /// The same per batch of equal sub-windows of `[warmup, horizon)`.
    pub stored_batch_means: Vec<f64>,
    /// The mean queue size per node over all `d` trees, `Q = d · stored_mean / 2^d` (the
    /// trees are independent copies; Prop. 7.5's quantity).
    pub queue_size: f64,
}

/// Johnsson–Ho tree T^(j + 1) of the d-cube (`j` 0-based): root e_{j+1} (node `2^j`),
/// dimension order `j + 1, j + 2, …, d − 1, 0, …, j` (0-based); the simulator uses `j = 0`,
/// T^(1) with root node 1 and 1-based order (2, 3, …, d, 1).
#[derive(Debug, Clone)]
struct Tree {
    root: u32,
    /// Parent of every node other than the root (`u32::MAX` for the root).
    parent: Vec<u32>,
    /// Whether a node has children (the root included).
    nonleaf: Vec<bool>,
    /// Whether a node lies in the largest subtree T_1 (it feeds buffer B_1).
    largest: Vec<bool>,
    /// `relays[k]`: the non-leaf nodes at depth `k ≥ 1` (they store a broadcast packet from
    /// its reception to their forwarding slot); `relays[0] = 0`.
    relays: Vec<u64>,
}

impl Tree {
    fn new(d: u32, j: u32) -> Self {
        let n = 1usize << d;
        let root = 1u32 << j;
        let order: Vec<u32> = (0..d).map(|k| (j + 1 + k) % d).collect();
        let mut parent = vec![u32::MAX; n];
        let mut nonleaf = vec![false; n];
        let mut largest = vec![false; n];
        // (node, index in `order` of its first child dimension, in the largest subtree)
        let mut stack = vec![(root, 0usize, false)];
        while let Some((x, from, big)) = stack.pop() {
            for (k, &dim) in order.iter().enumerate().skip(from) {
                let y = x ^ (1 << dim);
                parent[y as usize] = x;
                nonleaf[x as usize] = true;
                // The root's first child dimension spans T_1.
                let big_y = big || (x == root && k == 0);
                largest[y as usize] = big_y;
                stack.push((y, k + 1, big_y));
            }
        }
        let mut depth = vec![u32::MAX; n];
        depth[root as usize] = 0;
        fn depth_of(x: usize, parent: &[u32], depth: &mut [u32]) -> u32 {
            if depth[x] == u32::MAX {
                depth[x] = depth_of(parent[x] as usize, parent, depth) + 1;
            }
            depth[x]
        }
        let mut relays = vec![0u64; d as usize + 1];
        for (x, &inner) in nonleaf.iter().enumerate() {
            let k = depth_of(x, &parent, &mut depth) as usize;
            if k > 0 && inner {
                relays[k] += 1;
            }
        }
        Tree {
            root,
            parent,
            nonleaf,
            largest,
            relays,
        }
    }
}

/// The parent of every node in Johnsson and Ho's tree T^(j + 1) of the d-cube, as this module
/// builds it (`j` is 0-based: the tree rooted at node `2^j`, the thesis' e_{j+1}, whose
/// dimension order starts at `j + 1` mod d; notes 002b §0); `None` for the root. The simulator
/// uses `j = 0`; the other trees are exposed so that tests can check all `d` against other
/// constructions of the same trees.
///
/// # Errors
///
/// [`IndirectError::BadParameter`] for `d` outside `2..=MAX_DIMENSION` or `j ≥ d`.
pub fn johnsson_ho_parents(d: u32, j: u32) -> Result<Vec<Option<u32>>, IndirectError> {
    if !(2..=MAX_DIMENSION).contains(&d) {
        return Err(IndirectError::BadParameter {
            param: "d",
            value: d.to_string(),
            expected: "2 to 20",
        });
    }
    if j >= d {
        return Err(IndirectError::BadParameter {
            param: "j",
            value: j.to_string(),
            expected: "a 0-based dimension below d",
        });
    }
    let tree = Tree::new(d, j);
    Ok(tree
        .parent
        .iter()
        .map(|&p| (p != u32::MAX).then_some(p))
        .collect())
}

/// A packet: its origin and its index in generation order.
#[derive(Debug, Clone, Copy)]
struct Packet {
    origin: u32,
    index: u32,
}

/// Simulates tree T^(1) of the indirect scheme under `config` (see the module documentation).
///
/// # Errors
///
/// [`IndirectError::BadParameter`] for `d` outside `2..=MAX_DIMENSION`, ρ not positive and
/// finite, `horizon = 0`, `warmup ≥ horizon` or `batches = 0`.
pub fn simulate_indirect(config: &IndirectConfig) -> Result<IndirectReport, IndirectError> {
    let bad = |param, value: String, expected| IndirectError::BadParameter {
        param,
        value,
        expected,
    };
    let c = *config;
    if !(2..=MAX_DIMENSION).contains(&c.d) {
        return Err(bad("d", c.d.to_string(), "2 to 20"));
    }
    if !(c.rho.is_finite() && c.rho > 0.0) {
        return Err(bad("rho", c.rho.to_string(), "positive and finite"));
    }
    if c.horizon == 0 || c.warmup >= c.horizon {
        return Err(bad(
            "warmup",
            format!("{} (horizon {})", c.warmup, c.horizon),
            "below a positive horizon",
        ));
    }
    if c.batches == 0 {
        return Err(bad("batches", "0".into(), "at least 1"));
    }
    let d = c.d;
    let n = 1u32 << d;
    let tree = Tree::new(d, 0);
    let mut rng = Pcg64::seed_from_u64(c.seed);

    // Generation: Poisson(λ/d) per node for this tree, λ/d = ρ/(2^d − 1); merged in time.
    let rate = c.rho / f64::from(n - 1);
    let mut births: Vec<(f64, u32)> = Vec::new();
    for y in 0..n {
        let mut t = 0.0;
        loop {
            t += -(1.0 - rng.random::<f64>()).ln() / rate;
            if t >= c.horizon as f64 {
                break;
            }
            births.push((t, y));
        }
    }
    births.sort_by(|a, b| a.0.total_cmp(&b.0));
    let packets = births.len();

    // Queues: virtual arc of node y (non-leaves), reverse arc y → parent (y ≠ root).
    let mut vq: Vec<VecDeque<Packet>> = vec![VecDeque::new(); n as usize];
    let mut aq: Vec<VecDeque<Packet>> = vec![VecDeque::new(); n as usize];
    let (mut b1, mut b2) = (VecDeque::new(), VecDeque::new());
    let mut busy: Vec<u32> = Vec::new(); // queue ids (2y: virtual, 2y+1: reverse) maybe non-empty
    let mut listed = vec![false; 2 * n as usize];
    let mut completion = vec![f64::NAN; packets];
    let mut start_slot = vec![0u64; packets];
    let mut next_birth = 0usize;
    let mut done = 0usize;
    let (mut waiting, mut waiting_sum, mut max_waiting) = (0u64, 0u128, 0u64);
    let mut waiting_at_horizon = None;
    let mut moves: Vec<(u32, Packet)> = Vec::new();
    let mut frame = 0u64;
    while done < packets {
        let t = 3 * frame;
        // Packets generated before t become eligible now, in generation order.
        while next_birth < packets && births[next_birth].0 < t as f64 {
            let y = births[next_birth].1;
            let p = Packet {
                origin: y,
                index: next_birth as u32,
            };
            let q = if tree.nonleaf[y as usize] {
                vq[y as usize].push_back(p);
                2 * y
            } else {
                aq[y as usize].push_back(p);
                2 * y + 1
            };
            if !listed[q as usize] {
                listed[q as usize] = true;
                busy.push(q);
            }
            waiting += 1;
            next_birth += 1;
        }
        if waiting_at_horizon.is_none() && t as f64 >= c.horizon as f64 {
            waiting_at_horizon = Some(waiting);
        }
        // C_0 slot t: the head of every non-empty queue moves one hop, all at once.
        moves.clear();
        let mut still = Vec::with_capacity(busy.len());
        for &q in &busy {
            let y = q / 2;
            let queue = if q % 2 == 0 {
                &mut vq[y as usize]
            } else {
                &mut aq[y as usize]
            };
            if let Some(p) = queue.pop_front() {
                // A virtual arc ends at its own node; a reverse arc at the parent.
                let to = if q % 2 == 0 {
                    y
                } else {
                    tree.parent[y as usize]
                };
                moves.push((to, p));
            }
            if queue.is_empty() {
                listed[q as usize] = false;
            } else {
                still.push(q);
            }
        }
        busy = still;
        // Arrivals at one queue in the same slot: random order.
        for i in (1..moves.len()).rev() {
            let j = rng.random_range(0..=i);
            moves.swap(i, j);
        }
        for &(to, p) in &moves {
            if to == tree.root {
                if p.origin != tree.root && tree.largest[p.origin as usize] {
                    b1.push_back(p);
                } else {
                    b2.push_back(p);
                }
            } else {
                aq[to as usize].push_back(p);
                let q = 2 * to + 1;
                if !listed[q as usize] {
                    listed[q as usize] = true;
                    busy.push(q);
                }
            }
        }
        // Rule E: broadcasts start in slots t + 1 and t + 2.
        let first_b1 = rng.random::<bool>();
        let starts: [Option<Packet>; 2] = match (b1.is_empty(), b2.is_empty()) {
            (false, false) => {
                let (x, y) = (b1.pop_front(), b2.pop_front());
                if first_b1 { [x, y] } else { [y, x] }
            }
            (false, true) | (true, false) => {
                let p = b1.pop_front().or_else(|| b2.pop_front());
                if first_b1 { [p, None] } else { [None, p] }
            }
            (true, true) => [None, None],
        };
        for (k, p) in starts.into_iter().enumerate() {
            if let Some(p) = p {
                let s = t + 1 + k as u64;
                completion[p.index as usize] = broadcast_end(s, d) as f64;
                start_slot[p.index as usize] = s;
                waiting -= 1;
                done += 1;
            }
        }
        waiting_sum += u128::from(waiting);
        max_waiting = max_waiting.max(waiting);
        frame += 1;
    }

    // Delays of the measured packets, in generation order.
    let delays: Vec<f64> = births
        .iter()
        .zip(&completion)
        .filter(|(b, _)| b.0 >= c.warmup as f64)
        .map(|(b, &end)| end - b.0)
        .collect();
    let measured = delays.len() as u64;
    let delay_mean = if measured > 0 {
        delays.iter().sum::<f64>() / measured as f64
    } else {
        f64::NAN
    };
    let per = delays.len().div_ceil(c.batches as usize).max(1);
    let batch_means = delays
        .chunks(per)
        .map(|b| b.iter().sum::<f64>() / b.len() as f64)
        .collect();
    // Storage (see `IndirectReport::stored_mean`), integrated over the batches of the window.
    let (w0, w1) = (c.warmup as f64, c.horizon as f64);
    let nb = c.batches as usize;
    let width = (w1 - w0) / nb as f64;
    let mut area = vec![0.0f64; nb];
    let mut add = |from: f64, to: f64, count: f64| {
        let (a, b) = (from.max(w0), to.min(w1));
        if b <= a {
            return;
        }
        let first = (((a - w0) / width) as usize).min(nb - 1);
        let last = (((b - w0) / width) as usize).min(nb - 1);
        for (k, slot) in area.iter_mut().enumerate().take(last + 1).skip(first) {
            let (lo, hi) = (w0 + width * k as f64, w0 + width * (k + 1) as f64);
            let overlap = b.min(hi) - a.max(lo);
            if overlap > 0.0 {
                *slot += count * overlap;
            }
        }
    };
    for (i, &(born, _)) in births.iter().enumerate() {
        let s = start_slot[i];
        // At its origin, on the way, in a root buffer: until the end of slot s.
        add(born, (s + 1) as f64, 1.0);
        // At the relays of depth k: from the end of the (k − 1)-th to the end of the k-th
        // non-C_0 slot from s (u_0 = s).
        let mut prev = s;
        for &count in tree.relays.iter().skip(1) {
            let mut next = prev + 1;
            if next % 3 == 0 {
                next += 1;
            }
            if count > 0 {
                add((prev + 1) as f64, (next + 1) as f64, count as f64);
            }
            prev = next;
        }
    }
    let stored_batch_means: Vec<f64> = area.iter().map(|a| a / width).collect();
    let stored_mean = stored_batch_means.iter().sum::<f64>() / nb as f64;

    Ok(IndirectReport {
        stored_mean,
        stored_batch_means,
        queue_size: f64::from(d) * stored_mean / f64::from(n),
        packets: packets as u64,
        measured,
        delay_mean,
        batch_means,
        mean_waiting: if frame > 0 {
            waiting_sum as f64 / frame as f64
        } else {
            0.0
        },
        max_waiting,
        waiting_at_horizon: waiting_at_horizon.unwrap_or(waiting),
        frames: frame,
    })
}

/// The end time of a broadcast started in slot `s` (not a C_0 slot): the end of the d-th
/// non-C_0 slot from `s`, inclusive (thesis §7.1.2).
fn broadcast_end(s: u64, d: u32) -> u64 {
    let mut slot = s;
    let mut counted = 0;
    loop {
        if slot % 3 != 0 {
            counted += 1;
            if counted == d {
                return slot + 1;
            }
        }
        slot += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The notes' d = 3 test vector for T^(1): subtrees T_1 = {011, 111, 010, 110}, non-leaves
    /// {001, 011, 111, 101}.
    #[test]
    fn tree_one_of_the_three_cube() {
        let t = Tree::new(3, 0);
        let largest: Vec<u32> = (0..8).filter(|&y| t.largest[y as usize]).collect();
        assert_eq!(largest, vec![0b010, 0b011, 0b110, 0b111]);
        let nonleaf: Vec<u32> = (0..8).filter(|&y| t.nonleaf[y as usize]).collect();
        assert_eq!(nonleaf, vec![0b001, 0b011, 0b101, 0b111]);
        assert_eq!(t.parent[0b000], 0b001);
        assert_eq!(t.parent[0b110], 0b111);
        assert_eq!(t.parent[0b100], 0b101);
    }

    /// From s ∈ C_1 a broadcast lasts ⌈d/2⌉ + d − 1 slots, from s ∈ C_2 ⌊d/2⌋ + d (§7.1.2).
    #[test]
    fn broadcast_lengths() {
        for d in 1..12u32 {
            assert_eq!(
                broadcast_end(1, d) - 1,
                u64::from(d.div_ceil(2) + d - 1),
                "d = {d}"
            );
            assert_eq!(broadcast_end(2, d) - 2, u64::from(d / 2 + d), "d = {d}");
        }
    }
}
