//! Stamoulis' indirect scheme for multiple broadcasts on the hypercube (thesis §7.1.2, notes
//! 002b §2.7): every packet travels to the root of one of Johnsson and Ho's d arc-disjoint
//! spanning trees and is broadcast from there, under Rules A–E.
//!
//! **Key design decision: one tree is simulated, exactly.** The d trees are arc-disjoint, so
//! are their reversals, the virtual arcs are per tree, and Rule C separates the two
//! directions of an arc in time; packets of different trees therefore never contend (the
//! thesis' non-interference property), and each tree is an independent copy of the same
//! system with per-node rate λ/d. [`simulate_indirect`] simulates tree T^(1) (root e_1) frame
//! by frame, which gives T and the mean queue size Q. The largest queue at a node, M (Figure
//! 7.8), needs all d trees, since a node counts the packets of every tree, with a different
//! role in each: [`simulate_indirect_nodes`] runs the d trees side by side (the same
//! frame-by-frame run per tree, T^(1) on the same random stream, so its part is exactly
//! [`simulate_indirect`]'s) and adds up every node's storage.
//! A tree's run is a model of the synchronous step engine (`crate::step`, one step per
//! 3-slot frame; `TreeModel`), which owns the step counter and the loop. It is not the packet
//! engine: the slot classes, virtual arcs and root buffers of Rules C–E are the model's own,
//! not policies of a general engine.
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

use crate::packet::Outcome;
use crate::protocol::{RunProtocol, TimeModel};
use crate::step::{Step, StepModel, drive};
use crate::{OnlineError, OnlineParameter};
use fatnet_traffic::arrivals::shared_stream_births;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;
use serde::Serialize;
use std::collections::VecDeque;
use std::convert::Infallible;

/// Largest dimension simulated (the state is a few words per node).
pub const MAX_DIMENSION: u32 = 20;

/// The options of a run of the indirect scheme.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct IndirectConfig {
    /// The cube's dimension `d` (2 to [`MAX_DIMENSION`]).
    pub d: u32,
    /// The load factor ρ = λ(2^d − 1)/d (thesis (6.1)); stability needs
    /// ρ < (2/3)(1 − 2^−d) (Prop. 7.3), but any ρ > 0 may be simulated.
    pub rho: f64,
    /// The run protocol, in whole slots: packets are generated in `[0, horizon)`; those
    /// generated in `[warmup, horizon)` are measured, in `batches` batches of equally many
    /// packets in generation order (the storage in `batches` equal windows of
    /// `[warmup, horizon)`).
    pub protocol: RunProtocol,
    /// The run's seed.
    pub seed: u64,
}

impl IndirectConfig {
    /// The warm-up and the horizon in whole slots (valid once [`check_config`] has passed).
    fn window(&self) -> (u64, u64) {
        (self.protocol.warmup as u64, self.protocol.horizon as u64)
    }
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
    /// the network, by the thesis' convention (§6.4): a packet is stored at a
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
    /// Depth of every node (its Hamming distance from the root).
    depth: Vec<u32>,
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
            depth,
        }
    }
}

/// The parent of every node in Johnsson and Ho's tree T^(j + 1) of the d-cube, as this module
/// builds it (`j` is 0-based: the tree rooted at node `2^j`, the thesis' e_{j+1}, whose
/// dimension order starts at `j + 1` mod d, thesis §2.1); `None` for the root. The simulator
/// uses `j = 0`; the other trees are exposed so that tests can check all `d` against other
/// constructions of the same trees.
///
/// # Errors
///
/// [`OnlineError::BadParameter`] for `d` outside `2..=MAX_DIMENSION` or `j ≥ d`.
pub fn johnsson_ho_parents(d: u32, j: u32) -> Result<Vec<Option<u32>>, OnlineError> {
    if !(2..=MAX_DIMENSION).contains(&d) {
        return Err(OnlineError::BadParameter {
            param: OnlineParameter::D,
            value: d.to_string(),
            expected: "2 to 20",
        });
    }
    if j >= d {
        return Err(OnlineError::BadParameter {
            param: OnlineParameter::J,
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

/// Checks a run's options (shared by both simulators).
fn check_config(c: &IndirectConfig) -> Result<(), OnlineError> {
    let bad = |param, value: String, expected| OnlineError::BadParameter {
        param,
        value,
        expected,
    };
    if !(2..=MAX_DIMENSION).contains(&c.d) {
        return Err(bad(OnlineParameter::D, c.d.to_string(), "2 to 20"));
    }
    if !(c.rho.is_finite() && c.rho > 0.0) {
        return Err(bad(
            OnlineParameter::Rho,
            c.rho.to_string(),
            "positive and finite",
        ));
    }
    c.protocol.check(TimeModel::Slotted)?;
    Ok(())
}

/// One tree's Poisson births in `[0, horizon)`: rate `rate` per node, node by node from `rng`,
/// merged in time as (time, origin) ([`shared_stream_births`]).
fn tree_births(
    n: u32,
    rate: f64,
    horizon: u64,
    rng: &mut Pcg64,
) -> Result<Vec<(f64, u32)>, OnlineError> {
    Ok(shared_stream_births(n, rate, horizon as f64, rng, |_| ())?
        .into_iter()
        .map(|(t, y, ())| (t, y))
        .collect())
}

/// What the frame-by-frame run of one tree leaves behind.
struct TreeRun {
    /// End of every packet's broadcast, by generation index.
    completion: Vec<f64>,
    /// Every packet's broadcast start slot (in C_1 ∪ C_2).
    start_slot: Vec<u64>,
    frames: u64,
    waiting_sum: u128,
    max_waiting: u64,
    waiting_at_horizon: u64,
}

/// One tree of the scheme as a model of the step engine ([`crate::step`]), run on that tree
/// (the engine's `Net`): one engine step is one 3-slot frame, step `t` being the frame of
/// slots `3t` (C_0), `3t + 1` and `3t + 2`. The slot classes, virtual arcs and root buffers
/// of Rules C–E are the model's own.
///
/// - [`release`](StepModel::release) is a gated source: the packets born before slot `3t`
///   become eligible at step `t`, in generation order, at their virtual arc (non-leaf origin,
///   Rule D) or their first reverse arc (leaf origin);
/// - [`step`](StepModel::step) moves the head of every non-empty queue one hop in C_0 slot
///   `3t` (arrivals at one queue in random order), then starts Rule E's broadcasts from the
///   root buffers in slots `3t + 1` and `3t + 2` (one fair coin per frame, drawn even when
///   the buffers are empty);
/// - the run is [`finished`](StepModel::finished) once every packet's broadcast has started;
/// - it is never [`idle`](StepModel::idle): the per-frame coin and the waiting-count average
///   (`waiting_sum / frames`) cover every frame, so skipping empty frames would change both
///   the random draws and the report.
struct TreeModel<'a, F> {
    births: &'a [(f64, u32)],
    horizon: u64,
    d: u32,
    rng: &'a mut Pcg64,
    /// The observer of [`run_tree`].
    leave: F,
    /// Queue of the virtual arc of node y (non-leaves).
    vq: Vec<VecDeque<Packet>>,
    /// Queue of the reverse arc y → parent (y ≠ root).
    aq: Vec<VecDeque<Packet>>,
    /// Root buffers B_1 (origins in the largest subtree) and B_2 (all others).
    b1: VecDeque<Packet>,
    b2: VecDeque<Packet>,
    /// Queue ids (2y: virtual arc, 2y + 1: reverse arc) that may be non-empty, in the order
    /// they were listed; `listed[q]` whether `q` is in `busy`.
    busy: Vec<u32>,
    listed: Vec<bool>,
    /// Scratch: the queues still non-empty after a frame's moves.
    still: Vec<u32>,
    /// Scratch: a frame's moves, (destination node, packet).
    moves: Vec<(u32, Packet)>,
    completion: Vec<f64>,
    start_slot: Vec<u64>,
    /// Packets released so far (the next one to release, in generation order).
    next_birth: usize,
    /// Packets whose broadcast has started.
    done: usize,
    /// Packets released whose broadcast has not started.
    waiting: u64,
    waiting_sum: u128,
    max_waiting: u64,
    waiting_at_horizon: Option<u64>,
}

impl<'a, F: FnMut(usize, u32, u64)> TreeModel<'a, F> {
    fn new(
        tree: &Tree,
        births: &'a [(f64, u32)],
        horizon: u64,
        d: u32,
        rng: &'a mut Pcg64,
        leave: F,
    ) -> Self {
        let n = tree.parent.len();
        let packets = births.len();
        TreeModel {
            births,
            horizon,
            d,
            rng,
            leave,
            vq: vec![VecDeque::new(); n],
            aq: vec![VecDeque::new(); n],
            b1: VecDeque::new(),
            b2: VecDeque::new(),
            busy: Vec::new(),
            listed: vec![false; 2 * n],
            still: Vec::new(),
            moves: Vec::new(),
            completion: vec![f64::NAN; packets],
            start_slot: vec![0u64; packets],
            next_birth: 0,
            done: 0,
            waiting: 0,
            waiting_sum: 0,
            max_waiting: 0,
            waiting_at_horizon: None,
        }
    }
}

impl<F: FnMut(usize, u32, u64)> StepModel for TreeModel<'_, F> {
    type Net = Tree;
    type Report = TreeRun;
    type Error = Infallible;

    /// Packets generated before slot `3t` become eligible now, in generation order.
    #[inline]
    fn release(&mut self, tree: &Tree, t: u64) {
        let c0 = 3 * t;
        while self.next_birth < self.births.len() && self.births[self.next_birth].0 < c0 as f64 {
            let y = self.births[self.next_birth].1;
            let p = Packet {
                origin: y,
                index: self.next_birth as u32,
            };
            let q = if tree.nonleaf[y as usize] {
                self.vq[y as usize].push_back(p);
                2 * y
            } else {
                self.aq[y as usize].push_back(p);
                2 * y + 1
            };
            if !self.listed[q as usize] {
                self.listed[q as usize] = true;
                self.busy.push(q);
            }
            self.waiting += 1;
            self.next_birth += 1;
        }
    }

    #[inline]
    fn finished(&self, _t: u64) -> bool {
        self.done == self.births.len()
    }

    /// Never: every frame draws Rule E's coin and counts in the waiting average (see
    /// [`TreeModel`]).
    #[inline]
    fn idle(&self) -> bool {
        false
    }

    /// The first frame whose C_0 slot follows the next birth.
    #[inline]
    fn next_release(&self) -> Option<u64> {
        self.births
            .get(self.next_birth)
            .map(|&(born, _)| (born / 3.0).floor() as u64 + 1)
    }

    /// Frame `t`: the C_0 moves in slot `3t`, then Rule E's starts in slots `3t + 1` and
    /// `3t + 2`. Out of line, as the packet engine's steps (see [`crate::step`]).
    #[inline(never)]
    fn step(&mut self, tree: &Tree, t: u64) -> Step {
        let c0 = 3 * t;
        if self.waiting_at_horizon.is_none() && c0 as f64 >= self.horizon as f64 {
            self.waiting_at_horizon = Some(self.waiting);
        }
        // C_0 slot c0: the head of every non-empty queue moves one hop, all at once.
        self.moves.clear();
        self.still.clear();
        for &q in &self.busy {
            let y = q / 2;
            let queue = if q % 2 == 0 {
                &mut self.vq[y as usize]
            } else {
                &mut self.aq[y as usize]
            };
            if let Some(p) = queue.pop_front() {
                // A virtual arc ends at its own node; a reverse arc at the parent.
                let to = if q % 2 == 0 {
                    y
                } else {
                    (self.leave)(p.index as usize, y, c0 + 1);
                    tree.parent[y as usize]
                };
                self.moves.push((to, p));
            }
            if queue.is_empty() {
                self.listed[q as usize] = false;
            } else {
                self.still.push(q);
            }
        }
        std::mem::swap(&mut self.busy, &mut self.still);
        // Arrivals at one queue in the same slot: random order.
        crate::shuffle::shuffle(&mut self.moves, self.rng);
        for &(to, p) in &self.moves {
            if to == tree.root {
                if p.origin != tree.root && tree.largest[p.origin as usize] {
                    self.b1.push_back(p);
                } else {
                    self.b2.push_back(p);
                }
            } else {
                self.aq[to as usize].push_back(p);
                let q = 2 * to + 1;
                if !self.listed[q as usize] {
                    self.listed[q as usize] = true;
                    self.busy.push(q);
                }
            }
        }
        // Rule E: broadcasts start in slots c0 + 1 and c0 + 2.
        let first_b1 = self.rng.random::<bool>();
        let starts: [Option<Packet>; 2] = match (self.b1.is_empty(), self.b2.is_empty()) {
            (false, false) => {
                let (x, y) = (self.b1.pop_front(), self.b2.pop_front());
                if first_b1 { [x, y] } else { [y, x] }
            }
            (false, true) | (true, false) => {
                let p = self.b1.pop_front().or_else(|| self.b2.pop_front());
                if first_b1 { [p, None] } else { [None, p] }
            }
            (true, true) => [None, None],
        };
        for (k, p) in starts.into_iter().enumerate() {
            if let Some(p) = p {
                let s = c0 + 1 + k as u64;
                self.completion[p.index as usize] = broadcast_end(s, self.d) as f64;
                self.start_slot[p.index as usize] = s;
                (self.leave)(p.index as usize, tree.root, s + 1);
                self.waiting -= 1;
                self.done += 1;
            }
        }
        self.waiting_sum += u128::from(self.waiting);
        self.max_waiting = self.max_waiting.max(self.waiting);
        Step::Continue
    }

    /// Nothing to check: a packet is in exactly one queue or buffer from its release to its
    /// start, by construction (and [`run_tree`] asks for no check).
    fn check_conservation(&self, _tree: &Tree, _t: u64) -> Result<(), Infallible> {
        Ok(())
    }

    /// `frames` is the number of frames run (`steps`: the model is never idle, so every step
    /// up to the last ran).
    fn finish(self, outcome: Outcome, steps: u64) -> TreeRun {
        debug_assert_eq!(outcome, Outcome::Delivered);
        TreeRun {
            completion: self.completion,
            start_slot: self.start_slot,
            frames: steps,
            waiting_sum: self.waiting_sum,
            max_waiting: self.max_waiting,
            waiting_at_horizon: self.waiting_at_horizon.unwrap_or(self.waiting),
        }
    }
}

/// Runs one tree of the scheme, frame by frame, on its `births` (see the module
/// documentation): [`TreeModel`] driven by the step engine, drawing the tie orders and Rule
/// E's coins from `rng`. `leave(i, x, time)` is told each time packet `i` stops being stored
/// at node `x` during its trip to the root: at the end of the C_0 slot in which it crosses a
/// reverse arc out of `x`, and at the root at the end of its first broadcast slot. It draws
/// nothing from `rng`, so observing a run does not change it.
///
/// The run has no step limit (`u64::MAX`, never reached): it always finishes, since every
/// frame moves the head of every non-empty queue one hop towards the root and starts a
/// broadcast from a non-empty root buffer, and the births are finitely many.
fn run_tree(
    tree: &Tree,
    births: &[(f64, u32)],
    horizon: u64,
    d: u32,
    rng: &mut Pcg64,
    leave: impl FnMut(usize, u32, u64),
) -> TreeRun {
    let model = TreeModel::new(tree, births, horizon, d, rng, leave);
    let Ok(run) = drive(model, tree, u64::MAX, false);
    run
}

/// The slots `u_0 = s < u_1 < … < u_{d−1}` of a broadcast started in slot `s`: `u_k` is the
/// k-th non-C_0 slot after `s`, in which the relays of depth `k` forward the packet (they
/// received it at the end of `u_{k−1}`).
fn forwarding_slots(s: u64, d: u32) -> impl Iterator<Item = u64> {
    std::iter::successors(Some(s), |&prev| {
        let next = prev + 1;
        Some(if next % 3 == 0 { next + 1 } else { next })
    })
    .take(d as usize)
}

/// The area (packet-slots) of one tree's storage over each of `nb` equal sub-windows of
/// `[w0, w1)` (see [`IndirectReport::stored_mean`]).
fn stored_areas(
    tree: &Tree,
    births: &[(f64, u32)],
    start_slot: &[u64],
    w0: f64,
    w1: f64,
    nb: usize,
) -> (Vec<f64>, f64) {
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
            if next.is_multiple_of(3) {
                next += 1;
            }
            if count > 0 {
                add((prev + 1) as f64, (next + 1) as f64, count as f64);
            }
            prev = next;
        }
    }
    (area, width)
}

/// Simulates tree T^(1) of the indirect scheme under `config` (see the module documentation).
///
/// # Errors
///
/// [`OnlineError::BadParameter`] for `d` outside `2..=MAX_DIMENSION`, ρ not positive and
/// finite, `horizon = 0`, `warmup ≥ horizon` or `batches = 0`.
pub fn simulate_indirect(config: &IndirectConfig) -> Result<IndirectReport, OnlineError> {
    check_config(config)?;
    let c = *config;
    let (warmup, horizon) = c.window();
    let d = c.d;
    let n = 1u32 << d;
    let tree = Tree::new(d, 0);
    let mut rng = Pcg64::seed_from_u64(c.seed);

    // Generation: Poisson(λ/d) per node for this tree, λ/d = ρ/(2^d − 1); merged in time.
    let births = tree_births(n, c.rho / f64::from(n - 1), horizon, &mut rng)?;
    let packets = births.len();
    let run = run_tree(&tree, &births, horizon, d, &mut rng, |_, _, _| {});

    // Delays of the measured packets, in generation order.
    let delays: Vec<f64> = births
        .iter()
        .zip(&run.completion)
        .filter(|(b, _)| b.0 >= warmup as f64)
        .map(|(b, &end)| end - b.0)
        .collect();
    let measured = delays.len() as u64;
    let delay_mean = if measured > 0 {
        delays.iter().sum::<f64>() / measured as f64
    } else {
        f64::NAN
    };
    let per = delays.len().div_ceil(c.protocol.batches as usize).max(1);
    let batch_means = delays
        .chunks(per)
        .map(|b| b.iter().sum::<f64>() / b.len() as f64)
        .collect();
    // Storage (see `IndirectReport::stored_mean`), integrated over the batches of the window.
    let nb = c.protocol.batches as usize;
    let (area, width) = stored_areas(
        &tree,
        &births,
        &run.start_slot,
        warmup as f64,
        horizon as f64,
        nb,
    );
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
        mean_waiting: if run.frames > 0 {
            run.waiting_sum as f64 / run.frames as f64
        } else {
            0.0
        },
        max_waiting: run.max_waiting,
        waiting_at_horizon: run.waiting_at_horizon,
        frames: run.frames,
    })
}

/// Largest `d² · (horizon − warmup)` accepted by [`simulate_indirect_nodes`] (its per-tree,
/// per-depth, per-slot occupancy table, two bytes an entry).
pub const MAX_DEPTH_SLOTS: u64 = 1 << 26;

/// The storage of every node of the cube under all `d` trees run side by side: the data of
/// Figure 7.8 (the largest number of packets stored at a node, `M`).
///
/// A packet is stored at a node by the thesis' convention ([`IndirectReport::stored_mean`]):
/// at each node of its trip to the root (its origin included) until the end of the C_0 slot
/// in which it leaves that node, at the root until the end of its first broadcast slot, and
/// at every non-leaf node of its tree at depth `k ≥ 1` from the end of the slot `u_{k−1}` in
/// which it receives it to the end of the slot `u_k` in which it forwards it, where `u_0` is
/// the start slot and `u_k` the k-th non-C_0 slot after it. A node counts the packets of all
/// `d` trees, in each of which it has a different role (depth, leaf or not, root of one).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IndirectNodeReport {
    /// Packets generated, all trees (warm-up included).
    pub packets: u64,
    /// For every tree (index `j` for T^(j + 1)), the time average over `[warmup, horizon)` of
    /// its packets stored in the whole network ([`IndirectReport::stored_mean`] of that tree;
    /// for `j = 0` exactly the value [`simulate_indirect`] reports for the same config).
    pub tree_stored_means: Vec<f64>,
    /// The time average of all trees' stored packets in the network over each of `batches`
    /// equal sub-windows of `[warmup, horizon)`, divided by `2^d` (so their mean is
    /// [`IndirectNodeReport::queue_size`]).
    pub queue_batch_means: Vec<f64>,
    /// For every node, the time average over `[warmup, horizon)` of the packets it stores.
    pub node_means: Vec<f64>,
    /// For every node, the largest number of packets it stores at any instant of
    /// `[warmup, horizon)`.
    pub node_max: Vec<u64>,
    /// `M`: the largest number of packets stored at one node at any instant of
    /// `[warmup, horizon)`, the maximum of [`IndirectNodeReport::node_max`].
    pub max_queue: u64,
    /// The smallest node storing `M` packets at some instant.
    pub max_node: u32,
    /// `Q`: the mean of [`IndirectNodeReport::node_means`] over the `2^d` nodes (equal, up to
    /// rounding, to the sum of [`IndirectNodeReport::tree_stored_means`] over `2^d`).
    pub queue_size: f64,
}

/// The seed of tree T^(j + 1) in [`simulate_indirect_nodes`]: the run's seed for `j = 0`
/// (so that tree reproduces [`simulate_indirect`]), else a SplitMix64 hash of `(seed, j)`.
fn tree_seed(seed: u64, j: u32) -> u64 {
    if j == 0 {
        return seed;
    }
    let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15u64.wrapping_mul(u64::from(j) + 1));
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Simulates all `d` trees of the indirect scheme side by side and measures the storage of
/// every node (Figure 7.8; see [`IndirectNodeReport`]).
///
/// The trees never contend (module documentation), so each is run on its own by the same
/// frame-by-frame simulation as [`simulate_indirect`], with its own Johnsson–Ho tree T^(j),
/// root `e_j`, its own Poisson births at rate λ/d per node and its own random stream
/// (`seed` for T^(1), a hash of `(seed, j)` for the others). What couples them is the
/// count at a node, which adds the node's roles in all `d` trees. During a packet's trip to
/// the root the node storing it changes at every hop, which the run reports; during its
/// broadcast every non-leaf node of depth `k` holds it over the same slots, fixed by the
/// start slot and `k` alone, so one occupancy count per tree, depth and slot serves all the
/// relays of that depth.
///
/// Within a slot a node's count can only grow (packets leave and arrive at slot boundaries,
/// births fall inside slots), so the largest count at any instant of a slot is the count just
/// before its end, packets born during the slot included; `M` is the largest such count over
/// the slots of `[warmup, horizon)`.
///
/// # Errors
///
/// [`OnlineError::BadParameter`] for the inputs [`simulate_indirect`] rejects, and for
/// `d² · (horizon − warmup)` above [`MAX_DEPTH_SLOTS`].
pub fn simulate_indirect_nodes(config: &IndirectConfig) -> Result<IndirectNodeReport, OnlineError> {
    check_config(config)?;
    let c = *config;
    let (warmup, horizon) = c.window();
    let (d, du) = (c.d, c.d as usize);
    let n = 1u32 << d;
    let w = (horizon - warmup) as usize;
    if (du * du) as u64 * w as u64 > MAX_DEPTH_SLOTS {
        return Err(OnlineError::BadParameter {
            param: OnlineParameter::Horizon,
            value: format!("{} (warm-up {}, d = {d})", horizon, warmup),
            expected: "d² · (horizon − warmup) at most 2^26",
        });
    }
    let rate = c.rho / f64::from(n - 1);
    storage_of_all_trees(&c, |_, rng| tree_births(n, rate, horizon, rng))
}

/// The body of [`simulate_indirect_nodes`] for a checked `c`, with tree `j`'s births (0-based
/// `j`) drawn by `births_of(j, rng)` from that tree's stream (tests give them by hand).
fn storage_of_all_trees(
    c: &IndirectConfig,
    mut births_of: impl FnMut(u32, &mut Pcg64) -> Result<Vec<(f64, u32)>, OnlineError>,
) -> Result<IndirectNodeReport, OnlineError> {
    let (warmup, horizon) = c.window();
    let (d, du) = (c.d, c.d as usize);
    let n = 1u32 << d;
    let w = (horizon - warmup) as usize;
    let (w0, w1) = (warmup as f64, horizon as f64);
    let overlap = |from: f64, to: f64| (to.min(w1) - from.max(w0)).max(0.0);
    let nb = c.protocol.batches as usize;

    let mut packets = 0u64;
    let mut trees = Vec::with_capacity(du);
    let mut tree_stored_means = Vec::with_capacity(du);
    let mut network_area = vec![0.0f64; nb];
    let mut width = 1.0;
    // Trip to the root: (node, stored from, stored until).
    let mut intervals: Vec<(u32, f64, u64)> = Vec::new();
    // Broadcast: occupancy[(j·d + k)·w + (t − warmup)] packets of tree j held by each relay
    // of depth k in slot t; relay_area[j·d + k] the time integral of that over the window.
    let mut occupancy = vec![0u16; du * du * w];
    let mut relay_area = vec![0.0f64; du * du];
    for j in 0..d {
        let tree = Tree::new(d, j);
        let mut rng = Pcg64::seed_from_u64(tree_seed(c.seed, j));
        let births = births_of(j, &mut rng)?;
        packets += births.len() as u64;
        let mut since: Vec<f64> = births.iter().map(|b| b.0).collect();
        let run = run_tree(&tree, &births, horizon, d, &mut rng, |i, x, until| {
            intervals.push((x, since[i], until));
            since[i] = until as f64;
        });
        let (area, wd) = stored_areas(&tree, &births, &run.start_slot, w0, w1, nb);
        width = wd;
        tree_stored_means.push(area.iter().map(|a| a / wd).sum::<f64>() / nb as f64);
        for (total, a) in network_area.iter_mut().zip(&area) {
            *total += a;
        }
        let ju = j as usize;
        for &s in &run.start_slot {
            let mut prev = s;
            for (k, u) in forwarding_slots(s, d).enumerate().skip(1) {
                if tree.relays[k] > 0 {
                    relay_area[ju * du + k] += overlap((prev + 1) as f64, (u + 1) as f64);
                    let row = &mut occupancy[(ju * du + k) * w..(ju * du + k + 1) * w];
                    for t in (prev + 1).max(warmup)..=u.min(horizon - 1) {
                        row[(t - warmup) as usize] += 1;
                    }
                }
                prev = u;
            }
        }
        trees.push(tree);
    }

    // Node by node: the trip intervals as a difference array, then the relay roles.
    intervals.sort_unstable_by_key(|iv| iv.0);
    let mut node_means = Vec::with_capacity(n as usize);
    let mut node_max = Vec::with_capacity(n as usize);
    let mut count = vec![0i64; w + 1];
    let mut next = 0usize;
    for x in 0..n {
        count.fill(0);
        let mut area = 0.0f64;
        while next < intervals.len() && intervals[next].0 == x {
            let (_, from, until) = intervals[next];
            area += overlap(from, until as f64);
            // Stored in slot t (counted just before its end) iff ⌊from⌋ ≤ t < until.
            let (lo, hi) = ((from.floor() as u64).max(warmup), until.min(horizon));
            if lo < hi {
                count[(lo - warmup) as usize] += 1;
                count[(hi - warmup) as usize] -= 1;
            }
            next += 1;
        }
        // Running sums, wrapping for the reason given below (a checked, indexed loop here was
        // a quarter of Figure 7.8's run).
        let mut run = 0i64;
        for c in &mut count[..w] {
            run = run.wrapping_add(*c);
            *c = run;
        }
        for (ju, tree) in trees.iter().enumerate() {
            let k = tree.depth[x as usize] as usize;
            if k > 0 && tree.nonleaf[x as usize] {
                area += relay_area[ju * du + k];
                let row = &occupancy[(ju * du + k) * w..(ju * du + k + 1) * w];
                // The innermost loop of the experiments that count M (n · d rows of w slots):
                // wrapping, so that the dev profile's overflow check does not keep it from
                // being vectorised; a count is at most the packets generated, far from 2^63.
                for (slot, &held) in count.iter_mut().zip(row) {
                    *slot = slot.wrapping_add(i64::from(held));
                }
            }
        }
        node_means.push(area / (w1 - w0));
        node_max.push(count[..w].iter().copied().max().unwrap_or(0).max(0) as u64);
    }
    let max_queue = node_max.iter().copied().max().unwrap_or(0);
    let max_node = node_max.iter().position(|&m| m == max_queue).unwrap_or(0) as u32;
    let queue_size = node_means.iter().sum::<f64>() / f64::from(n);
    Ok(IndirectNodeReport {
        packets,
        tree_stored_means,
        queue_batch_means: network_area
            .iter()
            .map(|a| a / width / f64::from(n))
            .collect(),
        node_means,
        node_max,
        max_queue,
        max_node,
        queue_size,
    })
}

/// The end time of a broadcast started in slot `s` (not a C_0 slot): the end of the d-th
/// non-C_0 slot from `s`, inclusive (thesis §7.1.2).
///
/// Closed form: the non-C_0 slots `3m + 1, 3m + 2` have ranks `2m, 2m + 1` among the non-C_0
/// slots, so slot `x` has rank `2⌊x/3⌋ + (x mod 3) − 1` and rank `r` is slot
/// `3⌊r/2⌋ + 1 + (r mod 2)`; the d-th non-C_0 slot from `s` has rank `rank(s) + d − 1`.
fn broadcast_end(s: u64, d: u32) -> u64 {
    debug_assert!(!s.is_multiple_of(3) && d >= 1, "s = {s}, d = {d}");
    let r = 2 * (s / 3) + s % 3 - 1 + u64::from(d) - 1;
    3 * (r / 2) + 1 + r % 2 + 1
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

    /// A hand-checked d = 2 run (T^(1): root 01, arcs 01→11, 01→00, 11→10; T^(2): root 10,
    /// arcs 10→11, 10→00, 11→01). One packet per tree: born at 10 at time 0.5 on T^(1), and
    /// at 01 at time 1.5 on T^(2); both leaves, both in the largest subtree (B_1). Each
    /// crosses its first reverse arc in C_0 slot 3 and the arc out of 11 in slot 6, so node
    /// 11 stores both over [4, 7): M = 2 at node 11 whatever the coins. Then each root
    /// stores its packet over [7, s + 1) and relay 11 over [s + 1, u_1 + 1), with the start
    /// slot s ∈ {7, 8} drawn by Rule E's coin (u_1 = 8 or 10).
    #[test]
    fn two_cube_by_hand() {
        let c = IndirectConfig {
            d: 2,
            rho: 0.1,
            protocol: RunProtocol::slots(0, 20, 2),
            seed: 5,
        };
        let r = storage_of_all_trees(&c, |j, _| {
            Ok(if j == 0 {
                vec![(0.5, 0b10)]
            } else {
                vec![(1.5, 0b01)]
            })
        })
        .unwrap();
        assert_eq!(r.packets, 2);
        assert_eq!(r.node_max, vec![0, 1, 1, 2]);
        assert_eq!((r.max_queue, r.max_node), (2, 0b11));
        let areas: Vec<f64> = r.node_means.iter().map(|m| m * 20.0).collect();
        // Extra slots at the root (s − 7) and at relay 11 (1 or 2) by the coins.
        let close = |a: f64, b: f64| (a - b).abs() < 1e-9;
        assert!(close(areas[0], 0.0), "{areas:?}");
        // 01: T^(2) origin [1.5, 4), then T^(1) root [7, s + 1).
        assert!(close(areas[1], 3.5) || close(areas[1], 4.5), "{areas:?}");
        // 10: T^(1) origin [0.5, 4), then T^(2) root [7, s' + 1).
        assert!(close(areas[2], 4.5) || close(areas[2], 5.5), "{areas:?}");
        // 11: both packets over [4, 7), then one relay slot or two per packet; the root and
        // relay times move together (s = 7: 1 and 1, s = 8: 2 and 2).
        let extra = (areas[1] - 3.5) + (areas[2] - 4.5);
        assert!(close(areas[3], 6.0 + 2.0 + extra), "{areas:?}");
        let total: f64 = areas.iter().sum();
        assert!(close(r.queue_size * 4.0 * 20.0, total));
        let per_tree: f64 = r.tree_stored_means.iter().sum::<f64>() * 20.0;
        assert!(close(per_tree, total), "{per_tree} vs {total}");
    }

    /// The forwarding slots end where the broadcast ends.
    #[test]
    fn forwarding_slots_end_with_the_broadcast() {
        for d in 2..10u32 {
            for s in [1u64, 2, 4, 5] {
                let last = forwarding_slots(s, d).last().unwrap();
                assert_eq!(last + 1, broadcast_end(s, d), "d = {d}, s = {s}");
                assert_eq!(forwarding_slots(s, d).filter(|u| u % 3 == 0).count(), 0);
            }
        }
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

    /// The closed form of [`broadcast_end`] against counting the non-C_0 slots one by one.
    #[test]
    fn broadcast_end_counts_non_c0_slots() {
        for s in (1..200u64).filter(|s| s % 3 != 0) {
            for d in 1..=20u32 {
                let last = (s..)
                    .filter(|x| x % 3 != 0)
                    .nth(d as usize - 1)
                    .expect("infinitely many non-C_0 slots");
                assert_eq!(broadcast_end(s, d), last + 1, "s = {s}, d = {d}");
            }
        }
    }
}
