//! Stamoulis' efficient direct scheme for multiple broadcasts on the hypercube (thesis
//! §6.3.3, §6.5), run on the output-queued packet engine.
//!
//! **The scheme.** Every node generates packets by a Poisson process of rate λ in continuous
//! time; each packet draws a tag uniformly from the `d` dimensions and is broadcast along the
//! rotated dimension-order tree of its origin and tag
//! ([`MulticastTree::hypercube_rotated`]); arcs are FIFO output queues, one packet per arc
//! per slot ([`Queueing::Output`](crate::packet::Queueing::Output)). The load factor is ρ = λ(2^d − 1)/d (6.1). The delay T
//! runs from generation to the end of the slot of the last reception (synchronisation time
//! included).
//!
//! **Choices where the thesis is silent** (the tables of §6.5 fix none of them): FIFO by arrival
//! time at the node, so a packet generated during slot `s − 1` is ahead of the packets that reach
//! the node at the boundary `s` ([`ScanPolicy::OldestFirst`] on output queues); other ties at
//! random ([`Contention::FifoNewFirst`]; the other readings the text allows are the options of
//! [`Contention`], run by [`DirectScheme::simulate_with`]). A run starts empty; packets generated before `warmup` are not measured; the run
//! continues until every packet generated before `horizon` is delivered, so none is cut off.

use crate::OnlineParameter;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;
use serde::Serialize;

use crate::packet::{
    Multicast, MulticastTree, OnlineError, Outcome, PacketConfig, PacketNet, ScanPolicy,
    simulate_multicast_stored,
};
use crate::protocol::RunProtocol;
use fatnet_topology::Hypercube;
use fatnet_topology::Processor;
use fatnet_traffic::arrivals::shared_stream_births;

/// The options of one run of the direct scheme.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct DirectConfig {
    /// The load factor ρ = λ(2^d − 1)/d; the scheme is stable for ρ < 1 (thesis §6.3.3).
    pub rho: f64,
    /// The run protocol, in whole slots: packets are generated in `[0, horizon)`; those
    /// generated in `[warmup, horizon)` are measured, in `batches` batches of equally many
    /// packets in generation order (the backlog and the queue size in `batches` equal windows
    /// of `[warmup, horizon)`).
    pub protocol: RunProtocol,
    /// The run's seed (generation first, then the engine's tie order).
    pub seed: u64,
}

/// How the arcs' queues order the packets of a direct-scheme run: the thesis fixes FIFO for its
/// simulations but not what "first" means when several packets reach a node at once, nor
/// whether FIFO is by arrival at the node or by generation, so each reading the text allows is
/// an option; [`Contention::default`] is the one [`DirectScheme::simulate`] uses.
///
/// The sentence every FIFO reading rests on (§6.3.3): "In our discussion of §§6.4 and 6.5, we
/// assume that contention is resolved on a FIFO basis, which is a more natural priority
/// discipline."
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize)]
pub enum Contention {
    /// FIFO by arrival time at the node (the default): a packet generated during slot `s − 1`
    /// reached its origin before the packets that arrive at the boundary `s`, so new packets
    /// join first, in generation order, then the packets in transit in random order
    /// ([`ScanPolicy::OldestFirst`]).
    #[default]
    FifoNewFirst,
    /// FIFO by arrival slot, all the packets that join a queue in one slot (new and in transit)
    /// in a uniformly random order ([`ScanPolicy::RoundRobin`]): the "ties broken fairly at
    /// random" of the thesis' greedy-routing simulations (§5.4), applied here.
    FifoRandomTies,
    /// FIFO by arrival slot, the packets in transit first (in the order of the arcs they
    /// crossed), then the new ones ([`ScanPolicy::FixedOrder`]): the reading in which a packet
    /// generated in continuous time counts as arriving at the slot boundary, after the
    /// forwarded ones.
    FifoTransitFirst,
    /// Priority by generation time, the oldest packet first at every arc ([`ScanPolicy::Labelled`]
    /// with a multicast's label its rank in generation order): "FIFO" read network-wide, the
    /// packet that entered the network first is served first.
    GenerationTime,
    /// The label priority of §6.3.3 carried over to the efficient direct scheme, as the thesis
    /// says it can be ("Using a priority discipline such as the one presented in the previous
    /// paragraph, we can guarantee stability of the non-idling scheme for the same region as
    /// for the periodic scheme"): a packet's label is the period, of length `2^d − 1`, in which
    /// the periodic scheme P2 would broadcast it from its (origin, tag) queue
    /// (`k_1 = ⌈τ_1/P⌉`, `k_{n+1} = max{k_n + 1, ⌈τ_{n+1}/P⌉}`), and the smallest label goes
    /// first. The thesis does not give Saad and Schultz's schedule, which would order equal
    /// labels; equal labels keep the order of arrival at the node (new packets first).
    PeriodLabel,
}

/// The result of a run (of any direct scheme: [`DirectScheme`] and
/// [`crate::periodic_broadcast::PeriodicScheme`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DirectReport {
    /// How the engine run ended (always delivered unless the step limit was reached).
    pub outcome: Outcome,
    /// Packets generated.
    pub packets: u64,
    /// Packets measured (generated in `[warmup, horizon)` and delivered).
    pub measured: u64,
    /// Mean delay T of the measured packets.
    pub delay_mean: f64,
    /// Mean delay of each batch of measured packets, in generation order.
    pub batch_means: Vec<f64>,
    /// The mean **excess delay** of the measured packets: a packet's delay less the delay it
    /// would have alone in the network, its wait for its first slot plus the height of its
    /// tree (`⌈τ⌉ − τ + h`). Both are measured on the same packet, so this estimates `T`'s
    /// contention term with far less noise than `T` less its light-traffic limit (the mean of
    /// `⌈τ⌉ − τ + h` over origins and tags: `d + 1/2` for the binomial trees, `3d/2` for the
    /// flooded Johnsson–Ho trees, Stamoulis App. 7.B), whose expectation it shares.
    pub excess_mean: f64,
    /// [`DirectReport::excess_mean`] of each batch of [`DirectReport::batch_means`].
    pub excess_batch_means: Vec<f64>,
    /// Time-average number of packet copies queued or in transit (the engine's count; NaN
    /// for the periodic scheme P1, which has no arc queues).
    pub mean_queued: f64,
    /// Longest arc queue seen (0 for P1).
    pub max_queue: u32,
    /// Stamoulis' **queue size `Q`** (thesis §6.4): the time average over
    /// `[warmup, horizon)` of the packets stored per node. A packet is stored at a node while
    /// the node still has to forward it, its transmission slots included, and counts once
    /// however many of its copies wait there (unlike [`DirectReport::mean_queued`], which
    /// counts copies): at its origin from generation to the end of the slot in which its last
    /// copy leaves (the synchronisation wait included), at every other non-leaf node of its
    /// tree from its arrival (the end of a slot) to the end of the slot in which its last
    /// copy leaves; leaves store nothing. All nodes are symmetric, so `Q` is the network
    /// total over `2^d`. Counted by the engine ([`crate::packet::PacketReport::stored`])
    /// slot by slot, plus the origin's wait from generation to the first slot; NaN for P1.
    pub queue_size: f64,
    /// Stamoulis' **largest queue `M`** (thesis Fig. 7.8): the largest number of packets
    /// stored at one node, by the convention of [`DirectReport::queue_size`], at any instant
    /// of `[warmup, horizon)` — the largest count over the nodes and the slots of the window
    /// just before each slot ends, the packets generated during the slot included
    /// ([`crate::packet::PacketReport::stored_peak`]). `None` for P1, which runs no queues.
    pub max_node_stored: Option<u32>,
    /// [`DirectReport::queue_size`] in each of `batches` equal windows of
    /// `[warmup, horizon)` (the windows of [`DirectReport::backlog`]; empty for P1).
    pub queue_size_batches: Vec<f64>,
    /// Arc transmissions.
    pub packet_hops: u64,
    /// The backlog: the time-average number of unfinished broadcasts (generated, not yet
    /// received by every node) in each of `batches` equal windows of `[warmup, horizon)`.
    pub backlog: Vec<f64>,
    /// The least-squares slope of [`DirectReport::backlog`] against the windows' midpoints,
    /// in broadcasts per slot: about 0 when the scheme is stable, positive (at least the
    /// excess rate of the most loaded arc) when it is not.
    pub backlog_trend: f64,
}

/// Every node's Poisson births in `[0, horizon)` at rate `lambda`, node by node from `rng`,
/// each with a tag drawn by `tag`; merged in time as (time, origin, tag)
/// ([`shared_stream_births`]).
pub(crate) fn poisson_births(
    nodes: u32,
    lambda: f64,
    horizon: u64,
    rng: &mut Pcg64,
    tag: impl FnMut(&mut Pcg64) -> u32,
) -> Result<Vec<(f64, u32, u32)>, OnlineError> {
    Ok(shared_stream_births(
        nodes,
        lambda,
        horizon as f64,
        rng,
        tag,
    )?)
}

/// Checks a run's options; returns the warm-up and the horizon in whole slots.
pub(crate) fn check_config(c: &DirectConfig) -> Result<(u64, u64), OnlineError> {
    if !(c.rho.is_finite() && c.rho > 0.0) {
        return Err(OnlineError::BadParameter {
            param: OnlineParameter::Rho,
            value: c.rho.to_string(),
            expected: "positive and finite",
        });
    }
    c.protocol.whole_slots()
}

/// What a run measured, before it becomes a [`DirectReport`].
pub(crate) struct RunTimes<'a> {
    /// Generation times, increasing.
    pub(crate) born: &'a [f64],
    /// Completion times (end of the slot of the last reception), `INFINITY` if never.
    pub(crate) done: &'a [f64],
    /// Contention-free completion times: the end of slot `⌈τ⌉ + h − 1`, `h` the height of
    /// the packet's tree.
    pub(crate) free: &'a [f64],
    pub(crate) outcome: Outcome,
    pub(crate) mean_queued: f64,
    pub(crate) max_queue: u32,
    pub(crate) packet_hops: u64,
    /// The engine's stored packets per slot ([`crate::packet::PacketReport::stored`]), `None`
    /// when not counted.
    pub(crate) stored: Option<&'a [u32]>,
    /// The engine's largest count at one node per slot
    /// ([`crate::packet::PacketReport::stored_peak`]), `None` when not counted.
    pub(crate) stored_peak: Option<&'a [u32]>,
    /// The nodes (`2^d`).
    pub(crate) nodes: u32,
}

/// Adds `count` over `[lo, hi)` to the windows of width `width` from `from` (clipped to them).
fn spread(windows: &mut [f64], from: f64, width: f64, lo: f64, hi: f64, count: f64) {
    let to = from + width * windows.len() as f64;
    let (lo, hi) = (lo.max(from), hi.min(to));
    if lo >= hi {
        return;
    }
    let first = (((lo - from) / width) as usize).min(windows.len() - 1);
    for (k, w) in windows.iter_mut().enumerate().skip(first) {
        let (a, z) = (from + k as f64 * width, from + (k + 1) as f64 * width);
        if a >= hi {
            break;
        }
        *w += count * (hi.min(z) - lo.max(a));
    }
}

/// The report of a run: delays of the packets generated in `[warmup, horizon)` in `batches`
/// batches by generation order, and the backlog in `batches` windows of that interval.
pub(crate) fn report(c: &DirectConfig, r: &RunTimes<'_>) -> DirectReport {
    // Whole slots: `check_config` has passed.
    let (warmup, horizon, batches) = (
        c.protocol.warmup as u64,
        c.protocol.horizon as u64,
        c.protocol.batches,
    );
    let delays: Vec<f64> = r
        .born
        .iter()
        .zip(r.done)
        .filter(|(b, d)| **b >= warmup as f64 && d.is_finite())
        .map(|(b, d)| d - b)
        .collect();
    let excess: Vec<f64> = r
        .born
        .iter()
        .zip(r.done.iter().zip(r.free))
        .filter(|(b, (d, _))| **b >= warmup as f64 && d.is_finite())
        .map(|(_, (d, f))| d - f)
        .collect();
    let measured = delays.len() as u64;
    let per = delays.len().div_ceil(batches as usize).max(1);
    let mean = |v: &[f64]| {
        if v.is_empty() {
            f64::NAN
        } else {
            v.iter().sum::<f64>() / v.len() as f64
        }
    };
    let (from, to) = (warmup as f64, horizon as f64);
    let width = (to - from) / f64::from(batches);
    let mut backlog = vec![0.0; batches as usize];
    for (&b, &d) in r.born.iter().zip(r.done) {
        spread(&mut backlog, from, width, b, d, 1.0);
    }
    for w in &mut backlog {
        *w /= width;
    }
    // Q: the engine's count in slot t covers [t, t + 1); before its first slot ⌈τ⌉ a packet
    // waits at its origin from τ.
    let queue_size_batches: Vec<f64> = match r.stored {
        None => Vec::new(),
        Some(stored) => {
            let mut area = vec![0.0; batches as usize];
            for (t, &k) in stored.iter().enumerate().take(horizon as usize) {
                if k > 0 {
                    spread(
                        &mut area,
                        from,
                        width,
                        t as f64,
                        t as f64 + 1.0,
                        f64::from(k),
                    );
                }
            }
            for &b in r.born {
                spread(&mut area, from, width, b, b.ceil(), 1.0);
            }
            area.iter()
                .map(|a| a / width / f64::from(r.nodes))
                .collect()
        }
    };
    let points: Vec<(f64, f64)> = backlog
        .iter()
        .enumerate()
        .map(|(k, &w)| (from + (k as f64 + 0.5) * width, w))
        .collect();
    DirectReport {
        outcome: r.outcome,
        packets: r.born.len() as u64,
        measured,
        delay_mean: if measured > 0 {
            delays.iter().sum::<f64>() / measured as f64
        } else {
            f64::NAN
        },
        batch_means: delays.chunks(per).map(mean).collect(),
        excess_mean: mean(&excess),
        excess_batch_means: excess.chunks(per).map(mean).collect(),
        mean_queued: r.mean_queued,
        max_queue: r.max_queue,
        max_node_stored: r.stored_peak.map(|peaks| {
            peaks
                .iter()
                .take(horizon as usize)
                .skip(warmup as usize)
                .copied()
                .max()
                .unwrap_or(0)
        }),
        queue_size: if queue_size_batches.is_empty() {
            f64::NAN
        } else {
            queue_size_batches.iter().sum::<f64>() / queue_size_batches.len() as f64
        },
        queue_size_batches,
        packet_hops: r.packet_hops,
        backlog_trend: fatnet_queueing::stats::least_squares_slope(&points),
        backlog,
    }
}

/// Which trees the packets of a node are broadcast along (the node's `d` trees; a packet picks
/// one uniformly).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum TreeFamily {
    /// The efficient direct (SaS85) scheme: the rotated dimension-order trees of the origin
    /// ([`MulticastTree::hypercube_rotated`]), each a spanning binomial tree of depth `d`.
    Rotated,
    /// The **non-idling indirect scheme** (thesis §7.4, Figs. 7.5–7.8; the thesis
    /// underspecifies it, and this is our reading of the text): tag `j` floods the *undirected*
    /// Johnsson–Ho tree `T^(j)` from the origin — toward `e_j` and into every other branch on the
    /// way — so every node receives the packet once (`2^d − 1` transmissions), with no slot
    /// classes, virtual arcs or root buffers (Rules C–E dropped). Tree edges are used in both
    /// directions, so the trees interfere; contention is FIFO as in the direct scheme. Its
    /// light-traffic delay is `3d/2` (Appendix 7.B: the mean eccentricity `(3d − 1)/2` plus the
    /// synchronisation time).
    JohnssonHoFlood,
    /// The **simple direct scheme with one tree per node** (thesis §6.3.1),
    /// the thesis' negative example: every packet of `x` is broadcast along the completely
    /// unbalanced tree of `x` with dimension order `(1, 2, …, d)` (tag 0 of
    /// [`MulticastTree::hypercube_rotated`]; no tag is drawn). The arcs of dimension `d`
    /// carry `λ·2^(d−1)` packets per slot, so it is stable only for
    /// `ρ < (2/d)(1 − 2^−d)`, which tends to 0 with `d`.
    Canonical,
}

impl TreeFamily {
    /// The trees per node (the tags a packet may draw): `d`, or 1 for
    /// [`TreeFamily::Canonical`].
    pub fn trees_per_node(self, d: u32) -> u32 {
        match self {
            TreeFamily::Canonical => 1,
            TreeFamily::Rotated | TreeFamily::JohnssonHoFlood => d,
        }
    }
}

/// The parent of `y ≠ root` in Johnsson and Ho's tree `T^(j)` (0-based `j`): rooted at
/// `e_j`, dimension order `(j + 1, …, d − 1, 0, …, j)`; the parent flips the *last*
/// dimension, in that order, where `y` and the root differ (Stamoulis §2.1.3).
fn johnsson_ho_parent(d: u32, j: u32, y: u32) -> u32 {
    let root = 1u32 << j;
    let diff = y ^ root;
    // The order's last dimension is j, then j − 1, …: scan from the end of the order.
    (0..d)
        .map(|k| (j + d - k) % d)
        .find(|&dim| diff >> dim & 1 == 1)
        .map_or(y, |dim| y ^ (1 << dim))
}

/// The undirected Johnsson–Ho tree `T^(j)` (0-based `j`) as adjacency lists: per node, its
/// children and then its parent (none at the root `e_j`), flattened with offsets.
struct UndirectedTree {
    start: Vec<u32>,
    next: Vec<u32>,
}

impl UndirectedTree {
    fn new(d: u32, j: u32) -> Self {
        let n = 1u32 << d;
        let root = 1u32 << j;
        let parent: Vec<u32> = (0..n).map(|y| johnsson_ho_parent(d, j, y)).collect();
        let mut degree = vec![0u32; n as usize + 1];
        for y in (0..n).filter(|&y| y != root) {
            degree[parent[y as usize] as usize + 1] += 1;
            degree[y as usize + 1] += 1;
        }
        let mut start = degree;
        for k in 1..start.len() {
            start[k] += start[k - 1];
        }
        let mut fill = start.clone();
        let mut next = vec![0u32; start[n as usize] as usize];
        let mut put = |u: u32, v: u32| {
            next[fill[u as usize] as usize] = v;
            fill[u as usize] += 1;
        };
        // Children in increasing order, then the parent: the order of the former lists.
        for y in (0..n).filter(|&y| y != root) {
            put(parent[y as usize], y);
        }
        for y in (0..n).filter(|&y| y != root) {
            put(y, parent[y as usize]);
        }
        UndirectedTree { start, next }
    }

    fn neighbours(&self, u: u32) -> &[u32] {
        &self.next[self.start[u as usize] as usize..self.start[u as usize + 1] as usize]
    }
}

/// The multicast tree that floods the undirected `tree` (`T^(j)` of the `d`-cube) from
/// `origin`.
fn johnsson_ho_flood(
    net: &PacketNet,
    d: u32,
    tree: &UndirectedTree,
    origin: u32,
) -> Result<MulticastTree, OnlineError> {
    let n = 1u32 << d;
    let mut links = Vec::with_capacity(n as usize - 1);
    let mut seen = vec![false; n as usize];
    seen[origin as usize] = true;
    let mut frontier = vec![origin];
    while let Some(u) = frontier.pop() {
        for &v in tree.neighbours(u) {
            if !seen[v as usize] {
                seen[v as usize] = true;
                let dim = (u ^ v).trailing_zeros();
                links.push((dim << d) | u);
                frontier.push(v);
            }
        }
    }
    let dsts: Vec<Processor> = (0..n).filter(|&p| p != origin).collect();
    MulticastTree::new(net, origin, &dsts, &links)
}

/// The `d`-cube with the trees of every node (tree `root · k + tag`, `k` the trees per node).
#[derive(Debug)]
pub struct DirectScheme {
    d: u32,
    per_node: u32,
    net: PacketNet,
    trees: Vec<MulticastTree>,
}

impl DirectScheme {
    /// Builds the cube and its `d · 2^d` rotated trees: the efficient direct scheme.
    ///
    /// # Errors
    ///
    /// [`OnlineError::BadParameter`] for `d` outside `1..=16`.
    pub fn new(d: u32) -> Result<Self, OnlineError> {
        Self::with_trees(d, TreeFamily::Rotated)
    }

    /// Builds the cube and the trees of `family` (`d` per node, one for
    /// [`TreeFamily::Canonical`]).
    ///
    /// # Errors
    ///
    /// [`OnlineError::BadParameter`] for `d` outside `1..=16` (`2..=16` for
    /// [`TreeFamily::JohnssonHoFlood`]).
    pub fn with_trees(d: u32, family: TreeFamily) -> Result<Self, OnlineError> {
        if family == TreeFamily::JohnssonHoFlood && d < 2 {
            return Err(OnlineError::BadParameter {
                param: OnlineParameter::D,
                value: d.to_string(),
                expected: "2 to 16 for the Johnsson-Ho trees",
            });
        }
        if !(1..=16).contains(&d) {
            return Err(OnlineError::BadParameter {
                param: OnlineParameter::D,
                value: d.to_string(),
                expected: "1 to 16",
            });
        }
        let cube = Hypercube::new(u64::from(d)).map_err(|_| OnlineError::BadParameter {
            param: OnlineParameter::D,
            value: d.to_string(),
            expected: "a hypercube dimension",
        })?;
        let net = PacketNet::new(cube)?;
        let per_node = family.trees_per_node(d);
        let mut trees = Vec::with_capacity((per_node as usize) << d);
        let undirected: Vec<UndirectedTree> = match family {
            TreeFamily::JohnssonHoFlood => (0..d).map(|j| UndirectedTree::new(d, j)).collect(),
            TreeFamily::Rotated | TreeFamily::Canonical => Vec::new(),
        };
        // The rotated trees of a tag are the translates of root 0's, built once; flooding a
        // fixed undirected tree from each root gives no translates: those are built one by one.
        let base: Vec<MulticastTree> = match family {
            TreeFamily::Rotated | TreeFamily::Canonical => (0..per_node)
                .map(|tag| MulticastTree::hypercube_rotated(&net, 0, tag))
                .collect::<Result<_, _>>()?,
            TreeFamily::JohnssonHoFlood => Vec::new(),
        };
        for root in 0..1u32 << d {
            for tag in 0..per_node {
                trees.push(match family {
                    TreeFamily::Rotated | TreeFamily::Canonical => {
                        base[tag as usize].xor_translate(&net, root)?
                    }
                    TreeFamily::JohnssonHoFlood => {
                        johnsson_ho_flood(&net, d, &undirected[tag as usize], root)?
                    }
                });
            }
        }
        // Translates share their shape already; flooded trees of equal shape share it here.
        if family == TreeFamily::JohnssonHoFlood {
            MulticastTree::share_shapes(&mut trees);
        }
        Ok(Self {
            d,
            per_node,
            net,
            trees,
        })
    }

    /// The cube's dimension.
    pub fn d(&self) -> u32 {
        self.d
    }

    /// The tree a packet born at `origin` with tag `tag` is broadcast along (tag 0 only for
    /// [`TreeFamily::Canonical`]).
    pub fn tree(&self, origin: u32, tag: u32) -> Option<&MulticastTree> {
        (origin < 1 << self.d && tag < self.per_node)
            .then(|| &self.trees[(origin * self.per_node + tag) as usize])
    }

    /// One run under `config`.
    ///
    /// # Errors
    ///
    /// [`OnlineError::BadParameter`] for ρ not positive and finite and
    /// for a protocol [`RunProtocol::check`] refuses in slotted time.
    pub fn simulate(&self, config: &DirectConfig) -> Result<DirectReport, OnlineError> {
        self.simulate_with(config, Contention::default())
    }

    /// One run under `config`, the arcs' queues ordered by `contention` (the births, tags and
    /// so the packets are those of [`DirectScheme::simulate`] for the same seed; only the
    /// engine's order differs).
    ///
    /// # Errors
    ///
    /// As [`DirectScheme::simulate`].
    pub fn simulate_with(
        &self,
        config: &DirectConfig,
        contention: Contention,
    ) -> Result<DirectReport, OnlineError> {
        let c = *config;
        let (_, horizon) = check_config(&c)?;
        let (d, per_node) = (self.d, self.per_node);
        let n = 1u32 << d;
        let lambda = c.rho * f64::from(d) / f64::from(n - 1);
        let mut rng = Pcg64::seed_from_u64(c.seed);
        let births = poisson_births(n, lambda, horizon, &mut rng, |rng| {
            if per_node > 1 {
                rng.random_range(0..per_node)
            } else {
                0
            }
        })?;
        // Generated in (s − 1, s]: may first be sent in slot s.
        let multicasts: Vec<Multicast> = births
            .iter()
            .map(|&(t, origin, tag)| Multicast {
                tree: origin * per_node + tag,
                release: t.ceil() as u64,
            })
            .collect();
        let (scan, labels) = contention_order(contention, &births, n, per_node, d);
        let engine = PacketConfig::output_queued_unit(scan);
        let report = simulate_multicast_stored(
            &self.net,
            &self.trees,
            &multicasts,
            &labels,
            &engine,
            rng.random(),
        )?;
        let latencies = report.latencies.as_deref().unwrap_or_default();
        let born: Vec<f64> = births.iter().map(|b| b.0).collect();
        let done = completion_times(&multicasts, latencies);
        let free: Vec<f64> = multicasts
            .iter()
            .map(|m| (m.release + u64::from(self.trees[m.tree as usize].height())) as f64)
            .collect();
        Ok(self::report(
            &c,
            &RunTimes {
                born: &born,
                done: &done,
                free: &free,
                outcome: report.outcome,
                mean_queued: report.mean_queued,
                max_queue: report.max_queue,
                packet_hops: report.unit_hops,
                stored: report.stored.as_deref(),
                stored_peak: report.stored_peak.as_deref(),
                nodes: n,
            },
        ))
    }
}

/// The engine's scan policy and the multicasts' labels (empty: all 0) for `contention`, the
/// births `(time, origin, tag)` in generation order.
fn contention_order(
    contention: Contention,
    births: &[(f64, u32, u32)],
    nodes: u32,
    per_node: u32,
    d: u32,
) -> (ScanPolicy, Vec<u64>) {
    match contention {
        Contention::FifoNewFirst => (ScanPolicy::OldestFirst, Vec::new()),
        Contention::FifoRandomTies => (ScanPolicy::RoundRobin, Vec::new()),
        Contention::FifoTransitFirst => (ScanPolicy::FixedOrder, Vec::new()),
        Contention::GenerationTime => (ScanPolicy::Labelled, (0..births.len() as u64).collect()),
        Contention::PeriodLabel => {
            let period = f64::from((1u32 << d) - 1);
            let mut next = vec![0u64; (nodes * per_node) as usize];
            let labels = births
                .iter()
                .map(|&(t, origin, tag)| {
                    let q = (origin * per_node + tag) as usize;
                    let k = next[q].max((t / period).ceil() as u64);
                    next[q] = k + 1;
                    k
                })
                .collect();
            (ScanPolicy::Labelled, labels)
        }
    }
}

/// When each multicast was last received: the end of slot `release + latency` (infinite for
/// one never delivered), from a run with latencies recorded.
pub(crate) fn completion_times(multicasts: &[Multicast], latencies: &[u64]) -> Vec<f64> {
    multicasts
        .iter()
        .zip(latencies)
        .map(|(m, &l)| {
            if l == u64::MAX {
                f64::INFINITY
            } else {
                (m.release + l + 1) as f64
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stored(scheme: &DirectScheme, multicasts: &[Multicast]) -> Vec<u32> {
        let engine = PacketConfig {
            check_conservation: true,
            record_latencies: false,
            ..PacketConfig::output_queued_unit(ScanPolicy::OldestFirst)
        };
        simulate_multicast_stored(&scheme.net, &scheme.trees, multicasts, &[], &engine, 1)
            .unwrap()
            .stored
            .unwrap()
    }

    /// The 3-cube's tree of origin 0, tag 0 (order 1, 2, 3) has the non-leaves 000 (children
    /// 001, 010, 100), 001 (011, 101), 010 (110) and 011 (111), at depths 0, 1, 1, 2.
    #[test]
    fn storage_counts_each_packet_once_per_forwarding_node() {
        let scheme = DirectScheme::new(3).unwrap();
        let one = Multicast {
            tree: 0,
            release: 0,
        };
        // Alone: the root in slot 0, 001 and 010 in slot 1, 011 in slot 2 (one count per
        // node, although the root sends three copies).
        assert_eq!(stored(&scheme, &[one]), vec![1, 2, 1]);
        // Two at once: the second waits one slot at the root (its three copies queue behind
        // the first's) and then follows one slot behind: 2 + 3 + 3 + 1 = 4 + 5 node-slots.
        assert_eq!(stored(&scheme, &[one, one]), vec![2, 3, 3, 1]);
        // Released at 5 after an idle gap: the slots before count 0.
        let late = Multicast {
            tree: 0,
            release: 5,
        };
        assert_eq!(stored(&scheme, &[late]), vec![0, 0, 0, 0, 0, 1, 2, 1]);
    }

    fn peaks(scheme: &DirectScheme, multicasts: &[Multicast]) -> (Vec<u32>, Vec<u32>) {
        let engine = PacketConfig {
            check_conservation: true,
            record_latencies: false,
            ..PacketConfig::output_queued_unit(ScanPolicy::OldestFirst)
        };
        let r = simulate_multicast_stored(&scheme.net, &scheme.trees, multicasts, &[], &engine, 1)
            .unwrap();
        (r.stored.unwrap(), r.stored_peak.unwrap())
    }

    /// The largest count at one node, by hand, on the 3-cube's tree of origin 0, tag 0 (as
    /// above: the root 000 forwards in the slot after a packet's release, 001 and 010 one
    /// slot later, 011 two slots later; the other nodes are leaves).
    #[test]
    fn largest_count_at_a_node_by_hand() {
        let scheme = DirectScheme::new(3).unwrap();
        let at = |release| Multicast { tree: 0, release };
        // Alone: one packet at one node in each of its three slots.
        assert_eq!(peaks(&scheme, &[at(0)]).1, vec![1, 1, 1]);
        // A and B released at 0, C at 1 (generated during slot 0). Slot 0: the root holds A
        // and B, and C from its generation: 3, although the network total `stored` counts C
        // only from slot 1. Slot 1: the root holds B and C, 001 and 010 hold A: 2. Slot 2:
        // the root C, 001 and 010 B, 011 A: 1. Slot 3: 001 and 010 C, 011 B: 1. Slot 4: 011
        // C: 1.
        let (stored, peak) = peaks(&scheme, &[at(0), at(0), at(1)]);
        assert_eq!(stored, vec![2, 4, 4, 3, 1]);
        assert_eq!(peak, vec![3, 2, 1, 1, 1]);
        // An idle gap: the first packet's slots 0–2, nothing in slot 3, the late packet
        // counted from slot 4 (generated during it, released at 5), then its slots 5–7.
        assert_eq!(
            peaks(&scheme, &[at(0), at(5)]).1,
            vec![1, 1, 1, 0, 1, 1, 1, 1]
        );
    }

    /// `M` of a report is the largest count of the slots of `[warmup, horizon)` only.
    #[test]
    fn max_node_stored_is_taken_over_the_window() {
        let scheme = DirectScheme::new(4).unwrap();
        let config = |warmup, horizon| DirectConfig {
            rho: 0.3,
            protocol: RunProtocol::slots(warmup, horizon, 1),
            seed: 7,
        };
        let whole = scheme.simulate(&config(0, 400)).unwrap();
        let late = scheme.simulate(&config(200, 400)).unwrap();
        let engine = PacketConfig::output_queued_unit(ScanPolicy::OldestFirst);
        // The same packets (same seed and horizon): the engine's per-slot peaks, by hand.
        let n = 16u32;
        let mut rng = Pcg64::seed_from_u64(7);
        let births =
            poisson_births(n, 0.3 * 4.0 / 15.0, 400, &mut rng, |r| r.random_range(0..4)).unwrap();
        let multicasts: Vec<Multicast> = births
            .iter()
            .map(|&(t, origin, tag)| Multicast {
                tree: origin * 4 + tag,
                release: t.ceil() as u64,
            })
            .collect();
        let r = simulate_multicast_stored(
            &scheme.net,
            &scheme.trees,
            &multicasts,
            &[],
            &engine,
            rng.random(),
        )
        .unwrap();
        let peak = r.stored_peak.unwrap();
        let max_of = |lo: usize| peak[lo..400].iter().copied().max();
        assert_eq!(whole.max_node_stored, max_of(0));
        assert_eq!(late.max_node_stored, max_of(200));
        // The count at one node is at least the network's count over the nodes, and at most
        // the network's count plus the packets generated during the slot.
        let stored = r.stored.unwrap();
        for (t, (&p, &s)) in peak.iter().zip(&stored).enumerate() {
            let born = multicasts
                .iter()
                .filter(|m| m.release == t as u64 + 1)
                .count();
            assert!(p * n >= s, "slot {t}: peak {p}, stored {s}");
            assert!(
                p as usize <= s as usize + born,
                "slot {t}: peak {p}, stored {s}"
            );
        }
    }

    /// The excess delay by hand: two packets born at 0.5 in the window (one contention-free,
    /// one a slot late) and one in the warm-up, which is not measured.
    #[test]
    fn excess_delay_by_hand() {
        let config = DirectConfig {
            rho: 0.1,
            protocol: RunProtocol::slots(1, 10, 2),
            seed: 0,
        };
        let r = report(
            &config,
            &RunTimes {
                born: &[0.25, 1.5, 1.5],
                done: &[9.0, 5.0, 6.0],
                free: &[4.0, 5.0, 5.0],
                outcome: Outcome::Delivered,
                mean_queued: 0.0,
                max_queue: 0,
                packet_hops: 0,
                stored: None,
                stored_peak: None,
                nodes: 8,
            },
        );
        assert_eq!(r.measured, 2);
        assert_eq!(r.excess_mean, 0.5);
        assert_eq!(r.excess_batch_means, vec![0.0, 1.0]);
        assert_eq!(r.batch_means, vec![3.5, 4.5]);
        assert_eq!(r.max_node_stored, None);
    }

    /// On the binomial trees (height d) a packet's delay less its excess is its wait for its
    /// first slot plus d, so the two means differ by d plus a mean wait near 1/2; no packet
    /// is faster than alone, so no batch's excess is negative.
    #[test]
    fn excess_delay_is_the_delay_less_height_and_wait() {
        let scheme = DirectScheme::new(5).unwrap();
        let r = scheme
            .simulate(&DirectConfig {
                rho: 0.5,
                protocol: RunProtocol::slots(100, 2_000, 10),
                seed: 3,
            })
            .unwrap();
        let wait = r.delay_mean - r.excess_mean - 5.0;
        assert!(r.measured > 4_000 && (wait - 0.5).abs() < 0.02, "{wait}");
        assert!(r.excess_mean > 0.1, "{}", r.excess_mean);
        assert!(r.excess_batch_means.iter().all(|&e| e >= 0.0));
        assert_eq!(r.excess_batch_means.len(), 10);
    }

    #[test]
    fn contention_orders_map_to_engine_policies() {
        // Births (time, origin, tag) on the 2-cube (P = 3), two trees per node.
        let births = [
            (0.5, 0, 1),
            (1.0, 0, 1),
            (2.9, 1, 0),
            (7.2, 0, 1),
            (7.3, 0, 0),
        ];
        let order = |c| contention_order(c, &births, 4, 2, 2);
        assert_eq!(
            order(Contention::FifoNewFirst),
            (ScanPolicy::OldestFirst, vec![])
        );
        assert_eq!(
            order(Contention::FifoRandomTies),
            (ScanPolicy::RoundRobin, vec![])
        );
        assert_eq!(
            order(Contention::FifoTransitFirst),
            (ScanPolicy::FixedOrder, vec![])
        );
        assert_eq!(
            order(Contention::GenerationTime),
            (ScanPolicy::Labelled, vec![0, 1, 2, 3, 4])
        );
        // Queue (0, 1): ⌈0.5/3⌉ = 1, then max(2, ⌈1/3⌉) = 2, then max(3, ⌈7.2/3⌉ = 3) = 3;
        // queue (1, 0): ⌈2.9/3⌉ = 1; queue (0, 0): ⌈7.3/3⌉ = 3.
        assert_eq!(
            order(Contention::PeriodLabel),
            (ScanPolicy::Labelled, vec![1, 2, 1, 3, 3])
        );
    }

    fn tiny_run(contention: Contention) -> DirectReport {
        DirectScheme::new(3)
            .unwrap()
            .simulate_with(
                &DirectConfig {
                    rho: 0.7,
                    protocol: RunProtocol::slots(100, 2_000, 4),
                    seed: 7,
                },
                contention,
            )
            .unwrap()
    }

    #[test]
    fn the_default_contention_is_simulate() {
        let scheme = DirectScheme::new(3).unwrap();
        let config = DirectConfig {
            rho: 0.7,
            protocol: RunProtocol::slots(100, 2_000, 4),
            seed: 7,
        };
        assert_eq!(
            scheme.simulate(&config).unwrap(),
            tiny_run(Contention::FifoNewFirst)
        );
    }

    #[test]
    fn every_contention_runs_the_same_packets_to_the_end() {
        let base = tiny_run(Contention::FifoNewFirst);
        let mut delays = vec![base.delay_mean];
        for c in [
            Contention::FifoRandomTies,
            Contention::FifoTransitFirst,
            Contention::GenerationTime,
            Contention::PeriodLabel,
        ] {
            let r = tiny_run(c);
            assert_eq!(r.outcome, Outcome::Delivered, "{c:?}");
            assert_eq!(
                (r.packets, r.measured),
                (base.packets, base.measured),
                "{c:?}"
            );
            // Every packet crosses 2^d − 1 arcs whatever the order.
            assert_eq!(r.packet_hops, base.packet_hops, "{c:?}");
            // No broadcast completes before its depth d plus the synchronisation wait.
            assert!(r.delay_mean > 3.0, "{c:?}");
            delays.push(r.delay_mean);
        }
        // The order matters.
        assert!(delays.iter().any(|&x| x != delays[0]), "{delays:?}");
    }

    /// On the 2-cube, A (origin 00, tag 0: 00→01, 00→10, then 01→11) is released at 0 and B
    /// (origin 01, tag 0: 01→00, 01→11, then 00→10) at 1, generated at 0.5. In step 1 A's copy
    /// reaches 01 and joins the queue of 01→11 with B's new copy: new first, B goes first and
    /// A completes one step later; forwarded first, by generation time and by label (A's
    /// period 0, B's 1), A goes first.
    #[test]
    fn each_contention_orders_a_new_and_a_forwarded_packet() {
        let scheme = DirectScheme::new(2).unwrap();
        let births = [(0.0, 0, 0), (0.5, 1, 0)];
        let multicasts = [
            Multicast {
                tree: 0,
                release: 0,
            },
            Multicast {
                tree: 2,
                release: 1,
            },
        ];
        let a_latency = |c| {
            let (scan, labels) = contention_order(c, &births, 4, 2, 2);
            let r = simulate_multicast_stored(
                &scheme.net,
                &scheme.trees,
                &multicasts,
                &labels,
                &PacketConfig::output_queued_unit(scan),
                1,
            )
            .unwrap();
            r.latencies.unwrap()[0]
        };
        assert_eq!(a_latency(Contention::FifoNewFirst), 2);
        assert_eq!(a_latency(Contention::FifoTransitFirst), 1);
        assert_eq!(a_latency(Contention::GenerationTime), 1);
        assert_eq!(a_latency(Contention::PeriodLabel), 1);
        // Random ties: either, by the seed.
        assert!([1, 2].contains(&a_latency(Contention::FifoRandomTies)));
    }

    #[test]
    fn storage_needs_output_queues() {
        let scheme = DirectScheme::new(2).unwrap();
        let r = simulate_multicast_stored(
            &scheme.net,
            &scheme.trees,
            &[],
            &[],
            &PacketConfig::default(),
            1,
        );
        assert!(matches!(
            r,
            Err(OnlineError::BadParameter {
                param: OnlineParameter::Queueing,
                ..
            })
        ));
    }
}
