//! Greedy node-to-node routing under Poisson traffic on the hypercube and the butterfly,
//! simulated exactly in continuous time (Stamoulis' thesis, chapter 5: §5.1,
//! §5.3 and §5.6).
//!
//! **The model.** Every node of the `d`-cube generates packets by a Poisson process of rate λ;
//! a packet born at `x` goes to `z` with probability `p^H(x,z) (1 − p)^(d − H(x,z))` (5.1)
//! ([`fatnet_traffic::arrivals`]). *Greedy routing*: a packet follows the canonical path,
//! crossing the dimensions in which `x` and `z` differ in increasing order; every directed arc
//! is a FIFO server with unit service time that never idles while a packet waits for it
//! (§5.1.3). The load factor is ρ = λp (5.2); greedy routing is stable for every ρ < 1
//! (Prop. 5.11). On the `d`-dimensional butterfly (§5.6) packets enter at row `x` of level 1,
//! leave at row `z` of level `d + 1`, and cross exactly `d` arcs: at level `j` the vertical
//! arc if `x` and `z` differ in bit `j`, the straight one otherwise; ρ = λ·max{p, 1 − p}
//! (5.27).
//!
//! **Key design decision: the level-by-level method, windowed.** Because every route crosses
//! the levels (dimensions) in increasing order, the network is acyclic by levels, and an arc
//! of level `b` sees all its customers once the levels below it are done: the simulator
//! processes level 1, then 2, …, applying at every arc the FIFO recursion of Lemma 5.6,
//! `D_1 = t_1 + 1`, `D_k = max{D_(k−1), t_k} + 1`, to its customers in order of ready time. No
//! event queue, no time steps, no rounding: departure times are exact (up to floating-point
//! addition). The packets of a node are kept in one list sorted by ready time, and lists are
//! rebuilt per level by merging (no sort, no per-packet allocation). For steady-state runs the
//! time axis is cut into windows: a window serves, at every arc, exactly the packets whose
//! ready time falls in it, and a packet ready later waits in its list for a later window, so
//! the result does not depend on the window length ([`GreedyConfig::window`]) while memory
//! stays proportional to the packets in flight plus one window of arrivals.
//!
//! - [`simulate`]: the exact simulator for a given arrival list (delivery time of every
//!   packet).
//! - [`steady_state`]: a seeded run from an empty network with warm-up, batch means and a
//!   Student-t confidence interval for the mean delay T, the time-average number in system
//!   (for Little's law `N = λ 2^d T`), per-level arc rates and counts ([`GreedyReport`]).
//!
//! # Modelling choices (where the thesis or the notes leave room)
//!
//! - **Delay** runs from generation to the end of the last transmission. A packet whose
//!   destination is its origin (probability `(1 − p)^d`) is delivered at once on the cube,
//!   with delay 0, and counted (as the thesis' (5.1) allows); on the butterfly it still crosses
//!   the `d` straight arcs.
//! - **Ties.** FIFO is by ready time at the node (the arrival time there; a new packet
//!   "arrives" at its generation time). Equal ready times — probability zero under Poisson
//!   generation, but possible with hand-made or slotted inputs — are broken by packet number:
//!   the position in the arrival list for [`simulate`], the packet number for
//!   [`steady_state`] (generation order by batch segment, then node by node within a
//!   window). This is a fixed priority, not the
//!   thesis' fair random tie-break of the slotted model (§6 #16): a slotted list from
//!   [`PoissonTraffic::slotted`] is shuffled within each slot, which makes each tie fair.
//! - **Arrivals** of node `x` come from [`fatnet_traffic::arrivals::node_rng`]`(seed, x)`,
//!   so [`steady_state`] sees exactly the arrivals of [`PoissonTraffic::poisson`] with the same
//!   seed.
//! - **Measurement.** The network starts empty at time 0. Packets generated in
//!   `[warmup, horizon)` are measured. So that the last measured packets meet the traffic of a
//!   system that goes on, generation continues past the horizon (unmeasured) until every
//!   measured packet is delivered, for at most another `horizon` time units; if that cap is
//!   reached, generation stops and the network is drained
//!   ([`GreedyReport::extension_capped`]; only unstable or nearly unstable runs reach it).
//! - **Batch means** are over `batches` equal windows of generation time in
//!   `[warmup, horizon)`; the point estimate of T is the mean over all measured packets, its
//!   confidence interval `± t · s / √B` with `s` the standard deviation of the `B` non-empty
//!   batch means and `t` Student's critical value with `B − 1` degrees of freedom.
//! - **Number in system** is the time average of N(t) over `[warmup, horizon)`, counting every
//!   packet generated before the horizon (measured or not) while it is in the network.

mod engine;

use fatnet_traffic::arrivals::{Arrival, NodeArrivals, PoissonTraffic};
use serde::{Deserialize, Serialize};

use crate::OnlineError;
use crate::protocol::{RunProtocol, TimeModel};

use engine::{Engine, Rec, Sink};

/// The largest dimension the simulator accepts (memory: one `f64` per arc and two list
/// headers per node).
pub const MAX_DIMENSION: u32 = 20;

/// The most arrivals [`simulate`] accepts (packets are numbered by `u32`, compared modulo
/// `2^32`).
pub const MAX_ARRIVALS: usize = 1 << 31;

/// Expected new packets per window when [`GreedyConfig::window`] is `None`.
const WINDOW_PACKETS: f64 = 65_536.0;

/// A window holds at least this many times the packets in flight when it starts. Every
/// packet in flight at a window boundary is carried through all `d` levels of the window in
/// which it waits (read, kept, merged), so the longer the window relative to the delay, the
/// fewer packets pay that; windows end at the horizon, not at the batch boundaries. Four
/// measured best on the 12- and 16-cube at ρ = 0.9 (docs/bench/2026-11-25-greedy-cube.md).
const IN_FLIGHT_FACTOR: f64 = 4.0;

/// The network the packets are routed on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum GreedyNetwork {
    /// The `d`-cube, `2^d` nodes, `d · 2^d` directed arcs; canonical (increasing-dimension)
    /// paths.
    Hypercube,
    /// The `d`-dimensional butterfly, `(d + 1) 2^d` nodes, `d · 2^(d+1)` arcs; traffic from
    /// level 1 to level `d + 1`.
    Butterfly,
}

impl GreedyNetwork {
    /// The load factor of `lambda` and `p` on this network: λp on the cube (5.2),
    /// λ·max{p, 1 − p} on the butterfly (5.27). Stability needs it below 1.
    pub fn rho(self, lambda: f64, p: f64) -> f64 {
        match self {
            GreedyNetwork::Hypercube => lambda * p,
            GreedyNetwork::Butterfly => lambda * p.max(1.0 - p),
        }
    }
}

/// The options of a [`steady_state`] run.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct GreedyConfig {
    /// The network.
    pub network: GreedyNetwork,
    /// The dimension `d` (`1..=`[`MAX_DIMENSION`]).
    pub d: u32,
    /// Poisson generation rate λ per node (level-1 node on the butterfly).
    pub lambda: f64,
    /// Bit-flip probability `p` of the destination law (5.1), in `[0, 1]`.
    pub p: f64,
    /// The run protocol: packets generated in `[warmup, horizon)` are measured, in `batches`
    /// equal windows of generation time (the network starts empty; time is continuous).
    pub protocol: RunProtocol,
    /// Two-sided confidence level of the interval for T, in `(0, 1)`.
    pub confidence: f64,
    /// The run's seed: node `x`'s arrivals use
    /// [`node_rng`](fatnet_traffic::arrivals::node_rng)`(seed, x)`.
    pub seed: u64,
    /// Length of the processing windows (time units). `None` picks about 65,536 expected
    /// arrivals per window, lengthened to four times the packets in flight. Results do not depend
    /// on it, except for the bookkeeping counts [`GreedyReport::packets_simulated`] and
    /// [`GreedyReport::packet_hops`] and for floating-point summation order.
    pub window: Option<f64>,
}

impl Default for GreedyConfig {
    fn default() -> Self {
        Self {
            network: GreedyNetwork::Hypercube,
            d: 6,
            lambda: 1.0,
            p: 0.5,
            protocol: RunProtocol::default(),
            confidence: 0.95,
            seed: 0,
            window: None,
        }
    }
}

impl GreedyConfig {
    /// The load factor ρ of the configuration ([`GreedyNetwork::rho`]).
    pub fn rho(&self) -> f64 {
        self.network.rho(self.lambda, self.p)
    }
}

/// The result of a [`steady_state`] run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GreedyReport {
    /// The configuration run.
    pub config: GreedyConfig,
    /// The load factor ρ.
    pub rho: f64,
    /// Packets generated in `[0, horizon)`.
    pub packets: u64,
    /// Packets measured (generated in `[warmup, horizon)`).
    pub measured: u64,
    /// Mean delay T of the measured packets (NaN if none).
    pub delay_mean: f64,
    /// Half-width of the confidence interval for T at `config.confidence` (NaN with fewer
    /// than two non-empty batches).
    pub delay_half_width: f64,
    /// Mean delay of each batch in generation order (NaN for an empty batch).
    pub batch_means: Vec<f64>,
    /// Least-squares slope of the batch means against the batch midpoints (time units of
    /// delay per time unit of generation): about 0 in steady state, positive when the delay
    /// grows (ρ ≥ 1).
    pub delay_trend: f64,
    /// Mean number of arcs crossed per measured packet (`dp` on the cube, `d` on the
    /// butterfly).
    pub hops_mean: f64,
    /// Time-average number of packets in the network over `[warmup, horizon)`; Little's law
    /// gives `λ 2^d T` in steady state.
    pub number_mean: f64,
    /// Per level `b = 1..d`: crossings of the level's cube arcs (butterfly: vertical arcs) by
    /// measured packets, per arc per unit time. Prop. 5.10: every level carries ρ = λp.
    pub arc_rate: Vec<f64>,
    /// Butterfly only, per level: the same for the straight arcs (λ(1 − p), Prop. 5.15).
    /// Empty on the cube.
    pub straight_rate: Vec<f64>,
    /// Arc traversals simulated, including the packets generated past the horizon.
    pub packet_hops: u64,
    /// Packets simulated, including those generated past the horizon.
    pub packets_simulated: u64,
    /// Generation ran over `[0, generated_until)`.
    pub generated_until: f64,
    /// Whether generation stopped at `2 · horizon` with measured packets still in flight
    /// (they were then delivered in a network without further arrivals).
    pub extension_capped: bool,
}

fn check_dimension(d: u32) -> Result<(), OnlineError> {
    if (1..=MAX_DIMENSION).contains(&d) {
        Ok(())
    } else {
        Err(OnlineError::BadDimension {
            d,
            max: MAX_DIMENSION,
        })
    }
}

/// The packet's record at generation: on the butterfly the level (0) sits above the row bits.
#[inline]
fn new_rec(time: f64, src: u32, dst: u32, tag: u32) -> Rec {
    Rec {
        t: time,
        rem: src ^ dst,
        tag,
    }
}

/// Routes `arrivals` greedily on `network` of dimension `d`, exactly, and returns every
/// packet's delivery time (end of its last transmission; its generation time if it needs no
/// transmission), in the order of `arrivals`. FIFO ties are broken by position in the list
/// (see the module documentation).
///
/// ```
/// use fatnet_online::greedy_cube::{GreedyNetwork, simulate};
/// use fatnet_traffic::arrivals::Arrival;
///
/// // Two packets for the same arc of the 2-cube: the second waits for the first.
/// let a = [
///     Arrival { time: 0.0, src: 0, dst: 1 },
///     Arrival { time: 0.5, src: 0, dst: 1 },
/// ];
/// assert_eq!(simulate(GreedyNetwork::Hypercube, 2, &a)?, vec![1.0, 2.0]);
/// # Ok::<(), fatnet_online::OnlineError>(())
/// ```
///
/// # Errors
///
/// [`OnlineError::BadDimension`] for `d` outside `1..=20`, [`OnlineError::NodeOutOfRange`]
/// for an origin or destination not below `2^d`, [`OnlineError::BadTime`] for a time that is
/// not finite, [`OnlineError::TooLarge`] beyond [`MAX_ARRIVALS`].
pub fn simulate(
    network: GreedyNetwork,
    d: u32,
    arrivals: &[Arrival],
) -> Result<Vec<f64>, OnlineError> {
    check_dimension(d)?;
    if arrivals.len() > MAX_ARRIVALS {
        return Err(OnlineError::TooLarge {
            what: "arrivals",
            value: arrivals.len() as u64,
            max: MAX_ARRIVALS as u64,
        });
    }
    let nodes = 1u64 << d;
    for (index, a) in arrivals.iter().enumerate() {
        if u64::from(a.src) >= nodes || u64::from(a.dst) >= nodes {
            return Err(OnlineError::NodeOutOfRange {
                index,
                src: a.src,
                dst: a.dst,
                nodes,
            });
        }
        if !a.time.is_finite() {
            return Err(OnlineError::BadTime {
                index,
                time: a.time,
            });
        }
    }
    let butterfly = network == GreedyNetwork::Butterfly;
    // Counting sort by origin, then by (time, index) within each origin.
    let mut first = vec![0usize; nodes as usize + 1];
    for a in arrivals {
        first[a.src as usize + 1] += 1;
    }
    for x in 0..nodes as usize {
        first[x + 1] += first[x];
    }
    let mut order = vec![0u32; arrivals.len()];
    let mut fill = first.clone();
    for (i, a) in arrivals.iter().enumerate() {
        order[fill[a.src as usize]] = i as u32;
        fill[a.src as usize] += 1;
    }
    for x in 0..nodes as usize {
        order[first[x]..first[x + 1]].sort_by(|&i, &j| {
            arrivals[i as usize]
                .time
                .total_cmp(&arrivals[j as usize].time)
                .then(i.cmp(&j))
        });
    }
    let mut delivered = vec![f64::NAN; arrivals.len()];
    let mut engine = Engine::new(d, butterfly);
    engine.start_window(|x, out| {
        for &i in &order[first[x as usize]..first[x as usize + 1]] {
            let a = arrivals[i as usize];
            if !butterfly && a.src == a.dst {
                delivered[i as usize] = a.time;
            } else {
                out.push(new_rec(a.time, a.src, a.dst, i));
            }
        }
    });
    struct Times<'a>(&'a mut [f64]);
    impl Sink for Times<'_> {
        fn finish(&mut self, tag: u32, time: f64) {
            self.0[tag as usize] = time;
        }
    }
    engine.run_levels(f64::INFINITY, &mut Times(&mut delivered));
    debug_assert_eq!(engine.in_flight(), 0);
    Ok(delivered)
}

/// The bookkeeping of a steady-state run. Packets are numbered in generation order (`seq`);
/// generation time is cut into segments: 0 = warm-up, `1..=B` the batches, `B + 1` past the
/// horizon. A window may straddle segment boundaries, but its arrivals are numbered segment
/// by segment, so a segment is always a range of numbers.
struct Books {
    batches: usize,
    warmup: f64,
    horizon: f64,
    /// First packet number of each segment (`u64::MAX` until it starts): non-decreasing.
    seg_first: Vec<u64>,
    /// The segment of the last packet finished: packets finish in nearly the order they are
    /// numbered, so the next one is most often in the same segment.
    seg_hint: usize,
    /// Start time of each segment (reference for the sums below, against cancellation).
    seg_start: Vec<f64>,
    /// Packets generated so far (the next number).
    generated: u64,
    /// Per segment: packets, Σ (generation − start), Σ (delivery − start), hops.
    count: Vec<u64>,
    gen_sum: Vec<f64>,
    fin_sum: Vec<f64>,
    hops: u64,
    /// Per level: vertical (cube: dimension) crossings of measured packets.
    vertical: Vec<u64>,
    /// Σ over packets generated before the horizon of clamp(delivery) and clamp(generation)
    /// to `[warmup, horizon]`, minus `warmup`.
    clamp_fin: f64,
    clamp_gen: f64,
    in_flight_measured: u64,
    in_flight_before_horizon: u64,
}

impl Books {
    /// The segment of packet number `seq`: the last whose first number is at most `seq`
    /// (the hint when it is that one, else a binary search).
    #[inline]
    fn segment(&mut self, seq: u64) -> usize {
        let h = self.seg_hint;
        if self.seg_first[h] <= seq && self.seg_first.get(h + 1).is_none_or(|&f| f > seq) {
            return h;
        }
        let s = self.seg_first.partition_point(|&f| f <= seq) - 1;
        self.seg_hint = s;
        s
    }
}

impl Sink for Books {
    #[inline]
    fn finish(&mut self, tag: u32, time: f64) {
        // The full number: the latest one at or below `generated − 1` that is ≡ tag (mod 2^32).
        let newest = self.generated - 1;
        let seq = newest - u64::from((newest as u32).wrapping_sub(tag));
        let seg = self.segment(seq);
        if seg <= self.batches {
            self.clamp_fin += time.clamp(self.warmup, self.horizon) - self.warmup;
            self.in_flight_before_horizon -= 1;
            if seg >= 1 {
                self.fin_sum[seg] += time - self.seg_start[seg];
                self.in_flight_measured -= 1;
            }
        }
    }
}

/// Runs greedy routing under Poisson traffic from an empty network and estimates the
/// steady-state delay (see the module documentation for the measurement rules).
///
/// ```
/// use fatnet_online::RunProtocol;
/// use fatnet_online::greedy_cube::{GreedyConfig, steady_state};
///
/// // p = 1: every packet goes to the antipode, paths are disjoint, and the first arc of each
/// // path is an M/D/1 queue: T = d + ρ/(2(1 − ρ)) exactly (thesis §5.3.5).
/// let config = GreedyConfig { d: 3, lambda: 0.5, p: 1.0,
///                             protocol: RunProtocol::new(500.0, 20_000.0, 20),
///                             ..GreedyConfig::default() };
/// let r = steady_state(&config)?;
/// let exact = 3.0 + 0.5 / (2.0 * 0.5);
/// assert!((r.delay_mean - exact).abs() < 2.0 * r.delay_half_width + 0.01);
/// # Ok::<(), fatnet_online::OnlineError>(())
/// ```
///
/// # Errors
///
/// [`OnlineError::Traffic`] for λ not positive and finite or `p` outside `[0, 1]`,
/// [`OnlineError::BadDimension`] for `d` outside `1..=20`, [`OnlineError::BadParameter`] unless
/// `0 ≤ warmup < horizon < ∞` and there is a batch, [`OnlineError::BadConfidence`] for a level outside `(0, 1)`,
/// [`OnlineError::BadWindowLength`] for a window length not positive and finite.
pub fn steady_state(config: &GreedyConfig) -> Result<GreedyReport, OnlineError> {
    let c = *config;
    check_dimension(c.d)?;
    let traffic = PoissonTraffic::new(c.d, c.lambda, c.p)?;
    c.protocol.check(TimeModel::Continuous)?;
    let RunProtocol {
        warmup,
        horizon,
        batches,
    } = c.protocol;
    if !(c.confidence > 0.0 && c.confidence < 1.0) {
        return Err(OnlineError::BadConfidence {
            confidence: c.confidence,
        });
    }
    if let Some(length) = c.window
        && !(length.is_finite() && length > 0.0)
    {
        return Err(OnlineError::BadWindowLength { length });
    }
    let d = c.d;
    let n = 1usize << d;
    let butterfly = c.network == GreedyNetwork::Butterfly;
    let batches = batches as usize;
    let span = horizon - warmup;
    // Segment s ends at seg_end[s]: warm-up, the batches, then the cap of the extension.
    let mut seg_end = Vec::with_capacity(batches + 2);
    seg_end.push(warmup);
    for k in 1..batches {
        seg_end.push(warmup + span * k as f64 / batches as f64);
    }
    seg_end.push(horizon);
    seg_end.push(2.0 * horizon);
    let mut seg_start = vec![0.0; batches + 2];
    seg_start[1..].copy_from_slice(&seg_end[..batches + 1]);

    let mut books = Books {
        batches,
        warmup,
        horizon,
        seg_first: vec![u64::MAX; batches + 2],
        seg_hint: 0,
        seg_start,
        generated: 0,
        count: vec![0; batches + 2],
        gen_sum: vec![0.0; batches + 2],
        fin_sum: vec![0.0; batches + 2],
        hops: 0,
        vertical: vec![0; d as usize],
        clamp_fin: 0.0,
        clamp_gen: 0.0,
        in_flight_measured: 0,
        in_flight_before_horizon: 0,
    };
    let mut streams: Vec<NodeArrivals> = (0..n as u32)
        .map(|x| traffic.node_stream(x, c.seed))
        .collect::<Result<_, _>>()?;
    let mut engine = Engine::new(d, butterfly);
    let segments = batches + 2;
    let seg_start = books.seg_start.clone();
    // One window's arrivals, node by node (`node_first`), each with its segment.
    let mut staged: Vec<Rec> = Vec::new();
    let mut staged_seg: Vec<u32> = Vec::new();
    let mut node_first = vec![0usize; n + 1];
    let mut window_count = vec![0u64; segments];
    let mut next_number = vec![0u64; segments];
    let rate = c.lambda * n as f64;
    let cap = seg_end[batches + 1];
    let mut now = 0.0;
    // The segment that contains `now`.
    let mut seg_now = 0;
    let mut capped = false;
    loop {
        let length = c.window.unwrap_or_else(|| {
            WINDOW_PACKETS.max(IN_FLIGHT_FACTOR * engine.in_flight() as f64) / rate
        });
        let end = if now < horizon { horizon } else { cap };
        let mut cutoff = (now + length).min(end);
        if cutoff <= now {
            cutoff = end; // a window too short to advance the clock
        }
        // Pass 1: draw the window's arrivals and count them per segment.
        staged.clear();
        staged_seg.clear();
        window_count.fill(0);
        for (x, stream) in streams.iter_mut().enumerate() {
            node_first[x] = staged.len();
            let mut s = seg_now;
            while stream.peek_time() < cutoff {
                let a = stream.next_arrival();
                while a.time >= seg_end[s] {
                    s += 1;
                }
                staged.push(new_rec(a.time, a.src, a.dst, 0));
                staged_seg.push(s as u32);
                window_count[s] += 1;
            }
        }
        node_first[n] = staged.len();
        // Number the arrivals segment by segment, so that every segment stays a range of
        // numbers although a window may straddle segment boundaries.
        let mut number = books.generated;
        for s in seg_now..segments {
            next_number[s] = number;
            if seg_start[s] >= now && seg_start[s] < cutoff {
                books.seg_first[s] = number;
            }
            number += window_count[s];
        }
        books.generated = number;
        // Pass 2: book the arrivals and start the window.
        engine.start_window(|x, fresh| {
            let x = x as usize;
            for i in node_first[x]..node_first[x + 1] {
                let s = staged_seg[i] as usize;
                let seq = next_number[s];
                next_number[s] += 1;
                let r = Rec {
                    tag: seq as u32,
                    ..staged[i]
                };
                let rem = r.rem;
                if s <= batches {
                    books.clamp_gen += r.t.max(warmup) - warmup;
                    books.in_flight_before_horizon += 1;
                }
                if (1..=batches).contains(&s) {
                    books.count[s] += 1;
                    books.gen_sum[s] += r.t - seg_start[s];
                    books.in_flight_measured += 1;
                    books.hops += if butterfly {
                        u64::from(d)
                    } else {
                        u64::from(rem.count_ones())
                    };
                    let mut bits = rem;
                    while bits != 0 {
                        books.vertical[bits.trailing_zeros() as usize] += 1;
                        bits &= bits - 1;
                    }
                }
                if !butterfly && rem == 0 {
                    books.finish(r.tag, r.t);
                } else {
                    fresh.push(r);
                }
            }
        });
        engine.run_levels(cutoff, &mut books);
        now = cutoff;
        while seg_now + 1 < segments && now >= seg_end[seg_now] {
            seg_now += 1;
        }
        if now >= horizon {
            if books.in_flight_measured == 0 {
                break;
            }
            if now >= cap {
                // Cap reached: deliver everything without further arrivals.
                capped = true;
                engine.start_window(|_, _| {});
                engine.run_levels(f64::INFINITY, &mut books);
                break;
            }
        }
    }
    // A window that ended exactly at the horizon leaves the last segment unopened.
    if books.seg_first[batches + 1] == u64::MAX {
        books.seg_first[batches + 1] = books.generated;
    }
    // Packets still in flight were generated before the horizon and are delivered after it.
    books.clamp_fin += span * books.in_flight_before_horizon as f64;

    let measured: u64 = books.count[1..=batches].iter().sum();
    let batch_means: Vec<f64> = (1..=batches)
        .map(|s| (books.fin_sum[s] - books.gen_sum[s]) / books.count[s] as f64)
        .collect();
    let total_delay: f64 = (1..=batches)
        .map(|s| books.fin_sum[s] - books.gen_sum[s])
        .sum();
    let delay_mean = total_delay / measured as f64;
    let width = span / batches as f64;
    let points: Vec<(f64, f64)> = batch_means
        .iter()
        .enumerate()
        .filter(|(_, m)| m.is_finite())
        .map(|(k, &m)| (warmup + width * (k as f64 + 0.5), m))
        .collect();
    let (delay_half_width, delay_trend) = interval_and_trend(&points, c.confidence);
    let per_arc_time = n as f64 * span;
    let arc_rate = books
        .vertical
        .iter()
        .map(|&v| v as f64 / per_arc_time)
        .collect();
    let straight_rate = if butterfly {
        books
            .vertical
            .iter()
            .map(|&v| (measured - v) as f64 / per_arc_time)
            .collect()
    } else {
        Vec::new()
    };
    Ok(GreedyReport {
        config: c,
        rho: c.rho(),
        packets: books.seg_first[batches + 1],
        measured,
        delay_mean,
        delay_half_width,
        batch_means,
        delay_trend,
        hops_mean: books.hops as f64 / measured as f64,
        number_mean: (books.clamp_fin - books.clamp_gen) / span,
        arc_rate,
        straight_rate,
        packet_hops: engine.hops(),
        packets_simulated: books.generated,
        generated_until: now,
        extension_capped: capped,
    })
}

/// The confidence half-width `t · s / √B` of the batch means `points` (time, mean) and the
/// least-squares slope of the means against time.
fn interval_and_trend(points: &[(f64, f64)], confidence: f64) -> (f64, f64) {
    let means: Vec<f64> = points.iter().map(|p| p.1).collect();
    (
        fatnet_queueing::stats::batch_means_half_width(&means, confidence),
        fatnet_queueing::stats::least_squares_slope(points),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_pcg::Pcg64;

    /// The hinted segment lookup gives the binary search's segment, for packets finishing
    /// nearly in order and out of order, while segments are still starting.
    #[test]
    fn hinted_segment_is_the_searched_one() {
        let mut rng = Pcg64::seed_from_u64(3);
        let batches = 6;
        let mut books = Books {
            batches,
            warmup: 0.0,
            horizon: 1.0,
            seg_first: vec![u64::MAX; batches + 2],
            seg_hint: 0,
            seg_start: vec![0.0; batches + 2],
            generated: 0,
            count: Vec::new(),
            gen_sum: Vec::new(),
            fin_sum: Vec::new(),
            hops: 0,
            vertical: Vec::new(),
            clamp_fin: 0.0,
            clamp_gen: 0.0,
            in_flight_measured: 0,
            in_flight_before_horizon: 0,
        };
        let mut first = 0u64;
        for s in 0..batches + 2 {
            // Segments of 1 to 40 packets start one after the other.
            books.seg_first[s] = first;
            let last = first + rng.random_range(0..40u64);
            for _ in 0..200 {
                let seq = if rng.random_bool(0.8) {
                    last.saturating_sub(rng.random_range(0..3))
                } else {
                    rng.random_range(0..=last)
                };
                let want = books.seg_first.partition_point(|&f| f <= seq) - 1;
                assert_eq!(books.segment(seq), want, "seq {seq}");
            }
            first = last + 1;
        }
    }
}
