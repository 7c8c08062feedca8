//! The synchronous packet engine: flit- and packet-level simulation in discrete steps.
//!
//! One engine serves every flit- or packet-level experiment of the project (Greenberg–Oh's
//! wormhole and store-and-forward routing, Stamoulis' hypercube schemes). It is configured by
//! policies, never forked:
//!
//! - **flow control** ([`FlowControl`]): wormhole (a head acquires a link, the tail releases
//!   it), store-and-forward (whole packets move), split (independent flits);
//! - **path selection** ([`PathPolicy`]): fixed at the source (FP, or the topology's
//!   standard path), random each step (RP), greedy first-free (GP), first candidate
//!   (dimension order); the candidates are the shortest paths or, on a network whose routes
//!   are its own paths (a traced fabric), those paths ([`RouteSource`]);
//! - **input scan** ([`ScanPolicy`]): round-robin with a random start (RR), fixed order (FO),
//!   farthest-first (FF), oldest-first, random priorities (the UNIV stand-in);
//! - **queues** ([`QueueCapacity`]): `q` units per link, or unbounded;
//! - **sources**: any list of [`Injection`]s, each with a release step — a static batch with
//!   random initial delays ([`batch`]) or an open arrival process generated up front;
//! - **multicast**: a packet copied along a [`MulticastTree`] to several destinations
//!   ([`simulate_multicast`]; asynchronous replication at the tree's branch nodes, see the
//!   tree's documentation).
//!
//! # Step semantics (Greenberg and Oh's simulations, §III.B; our reading, fixed by Table I)
//!
//! Every link `e` has a FIFO queue `Q[e]` at its head node, of capacity `q` units (flits for
//! wormhole and split, packets for store-and-forward). In each step:
//!
//! 1. worms whose release step has come join their source's injection queue (unbounded);
//! 2. every node with a non-empty input scans its inputs once, in the scan policy's order;
//!    the unit at the front of each input queue moves across link `e` if `e` has not carried a
//!    unit this step, `|Q[e]| < q` **at the start of the step** (a unit leaving a full queue
//!    does not make room in the same step, so `q = 1` halves a link's throughput), and, for a
//!    head, `e` is not owned by another worm; a head that moves across `e` owns it until its
//!    tail crosses `e`, and the next worm's head may follow in the very next step;
//! 3. every terminal removes one unit from each of its ejection queues (the front, present
//!    at the start of the step);
//! 4. all moves take effect at once.
//!
//! A message is delivered in the step in which its last unit crosses the last link of its
//! path; its latency is that step's 0-based index minus its release step, so an uncontended
//! worm of `L` flits on a `d`-link path has latency `d + L − 2` (the paper's counting).
//! Store-and-forward steps are packet-steps and latencies are reported in flit-steps, `L` per
//! packet-step (the paper's Table I convention, exact on its many-to-1 cells).
//!
//! The engine checks conservation (released = delivered + in flight) every step when
//! [`PacketConfig::check_conservation`] is set (the default in debug builds and tests) and
//! reports a deadlock — a step in which nothing can move although units are in flight — as
//! [`Outcome::Deadlock`], never as a hang; [`PacketConfig::max_steps`] bounds every run.
//!
//! # Randomness
//!
//! Everything random in a run comes from the run's seed. What is drawn before the run starts
//! (priorities, FP paths) comes from a `Pcg64` seeded with it, in message order; what is
//! drawn while it runs (RR starts, RP choices) is keyed by (run key, step, node or input)
//! through a counter-based stream (`draws`), the run key being the `Pcg64`'s next value: a
//! draw does not depend on the order in which nodes are decided, so the same seed gives the
//! same run however the step is evaluated. A node draws its RR start only in steps in which
//! at least two of its inputs hold a unit (with one, the order cannot matter), so the
//! distribution is that of a draw every step. The keyed draws replaced one sequential stream;
//! an integration test (`keyed_draws`) holds the runs' latencies to the same law as before.

mod algorithm_a;
mod cells;
mod draws;
mod hops;
#[cfg(test)]
mod hops_tests;
mod ledger;
mod multicast;
mod net;
mod outq;
mod sim;
#[cfg(test)]
mod store_timing_tests;
mod table;
mod wait;

pub use algorithm_a::{
    AlgorithmA, AlgorithmAReport, DoublingReport, algorithm_a, algorithm_a_doubling,
};
pub use multicast::{MAX_TREE_FANOUT, MAX_TREE_LINKS, Multicast, MulticastTree};
pub use net::{
    MAX_LINKS, MAX_ROUTE_PAIRS, MAX_TABLE_ENTRIES, PacketNet, RouteSource, check_route_pairs,
};
pub use sim::{
    simulate, simulate_multicast, simulate_multicast_labelled, simulate_multicast_stored,
};

use std::fmt;
use std::str::FromStr;

pub(crate) use crate::error::{OnlineError, OnlineParameter};
use fatnet_topology::Processor;
use fatnet_traffic::MessageSet;
use rand::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};

fatnet_topology::named_options! {
    /// How the flits of a packet travel.
    pub enum FlowControl("flow control") {
        /// STORE: whole packets move one link per packet-step; latencies are reported in
        /// flit-steps, `L` per packet-step, and queues hold `q` packets.
        StoreAndForward = "store",
        /// WORM: wormhole routing; a head acquires a link, its flits follow, the tail
        /// releases it; queues hold `q` flits.
        Wormhole = "worm",
        /// SPLIT: the `L` flits travel as independent one-flit packets, each routed on its own,
        /// injected back to back; the message is delivered with its last flit.
        Split = "split",
    }
}

fatnet_topology::named_options! {
    /// How a head picks the link it moves to next, among the shortest-path candidates (under
    /// [`RouteSource::TopologyPaths`] every policy follows a path fixed at the source: see
    /// there).
    pub enum PathPolicy("path policy") {
        /// FP (Fixed-Path): one of the topology's numbered paths (shortest paths on the
        /// built-in topologies), uniformly at random, chosen at the source and kept.
        Fixed = "fp",
        /// RP (Random-Path): each step the head draws one candidate uniformly (even a busy one)
        /// and waits a step if it is blocked (Greenberg–Oh's oblivious re-choice, §III.B.2).
        Random = "rp",
        /// GP (Greedy-Path): the first candidate, in port order, that is free.
        Greedy = "gp",
        /// Dimension order: always the first candidate (lowest differing dimension first on the
        /// hypercube, up port 0 on the trees).
        DimensionOrder = "dor",
        /// The topology's standard deterministic oblivious path, fixed at the source (d-mod-k on
        /// the multi-path trees, e.g. Yuan's d-mod-m on the folded Clos; a fabric's traced
        /// route; see fatnet_topology::Topology::standard_path_index). No random number is
        /// drawn for it, except for the wire of a channel of several wires (uniform, as under
        /// FP).
        Standard = "std",
    }
}

fatnet_topology::named_options! {
    /// The order in which a node scans its inputs, by name; [`ScanPolicy`] adds the priority
    /// range of [`ScanOrder::RandomPriority`].
    pub enum ScanOrder("input scan") {
        /// RR (random round-robin): cyclically from an input drawn uniformly, once per node per
        /// step.
        RoundRobin = "rr",
        /// FO (Fixed-Order): the same input order every step.
        FixedOrder = "fo",
        /// FF (Farthest-First): the unit with the longest path first, ties in RR order.
        FarthestFirst = "ff",
        /// Oldest-first: the earliest-released message first, ties in RR order.
        OldestFirst = "oldest",
        /// Random priorities from 1..=R, smallest first (a stand-in for UNIV).
        RandomPriority = "prio",
        /// Output queues sorted by (label, rank): Stamoulis' label priority.
        Labelled = "label",
    }
}

/// The order in which a node scans its inputs in a step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ScanPolicy {
    /// RR: cyclically from an input drawn uniformly, once per node per step (the paper does
    /// not say how RR starts).
    RoundRobin,
    /// FO: the fixed input order of [`PacketNet`] (children's up links, then parents' down
    /// links, then the injection queue).
    FixedOrder,
    /// FF: the unit of the longest path first (Greenberg–Oh: "farthest destinations" on up
    /// links, "farthest sources" on down links; both are the path length `2ℓ` on the
    /// fat-tree, which is our measure); ties in RR order.
    FarthestFirst,
    /// The unit of the earliest-released message first; ties in RR order.
    OldestFirst,
    /// Every message draws a priority uniformly from `1..=range` at release; the smallest
    /// number goes first, ties in RR order. This is our stand-in for the priorities of the
    /// UNIV algorithm of Leighton, Maggs, Ranade and Rao, which Greenberg–Oh do not describe
    /// further.
    RandomPriority {
        /// `R`: priorities are drawn from `1..=range`.
        range: u32,
    },
    /// Output queues only ([`Queueing::Output`]): every queue is kept sorted by the key
    /// `(label, rank)`, smallest first — a multicast's label from
    /// [`simulate_multicast_labelled`] (0 under [`simulate_multicast`]) and the rank of its
    /// tree position ([`MulticastTree::with_ranks`]; 0 if unranked); a unicast's key is
    /// `(release, 0)`. Equal keys keep the order of arrival at the node, with the joiners of
    /// one step ordered as under [`ScanPolicy::OldestFirst`]. This is Stamoulis' label
    /// priority for the non-idling periodic broadcast scheme (thesis §6.3.3).
    Labelled,
}

impl ScanPolicy {
    /// Its name: `rr`, `fo`, `ff`, `oldest` or `prio` (Greenberg–Oh's), or `label`.
    pub fn name(self) -> &'static str {
        self.order().name()
    }

    /// The order, without the priority range.
    pub fn order(self) -> ScanOrder {
        match self {
            ScanPolicy::RoundRobin => ScanOrder::RoundRobin,
            ScanPolicy::FixedOrder => ScanOrder::FixedOrder,
            ScanPolicy::FarthestFirst => ScanOrder::FarthestFirst,
            ScanPolicy::OldestFirst => ScanOrder::OldestFirst,
            ScanPolicy::RandomPriority { .. } => ScanOrder::RandomPriority,
            ScanPolicy::Labelled => ScanOrder::Labelled,
        }
    }

    /// The policy of `order`; `range` is the priority range `R` of
    /// [`ScanOrder::RandomPriority`] (ignored by the other orders).
    pub fn new(order: ScanOrder, range: u32) -> Self {
        match order {
            ScanOrder::RoundRobin => ScanPolicy::RoundRobin,
            ScanOrder::FixedOrder => ScanPolicy::FixedOrder,
            ScanOrder::FarthestFirst => ScanPolicy::FarthestFirst,
            ScanOrder::OldestFirst => ScanPolicy::OldestFirst,
            ScanOrder::RandomPriority => ScanPolicy::RandomPriority { range },
            ScanOrder::Labelled => ScanPolicy::Labelled,
        }
    }
}

fatnet_topology::named_options! {
    /// The input order of the fixed-order scan ([`ScanPolicy::FixedOrder`]) and of
    /// farthest-first's fixed ties ([`FarthestTies::FixedOrder`]). Greenberg and Oh do not give
    /// FO's order; these are the two orders a switch's port numbering suggests.
    pub enum FixedInputOrder("fixed input order") {
        /// [`PacketNet`]'s order: children's up links, then parents' down links, then the
        /// injection queue.
        Construction = "construction",
        /// The reverse: the injection queue, then parents' down links, then children's up
        /// links, each group in reverse port order.
        Reversed = "reversed",
    }
}

impl Default for FixedInputOrder {
    /// [`FixedInputOrder::Construction`].
    fn default() -> Self {
        FixedInputOrder::Construction
    }
}

fatnet_topology::named_options! {
    /// How farthest-first ([`ScanPolicy::FarthestFirst`]) orders units of equal path length.
    /// Greenberg and Oh state no tie rule.
    pub enum FarthestTies("farthest-first ties") {
        /// In RR order: cyclically from an input drawn uniformly, once per node per step.
        RoundRobin = "rr",
        /// In the fixed input order of [`PacketConfig::fixed_order`]; nothing is drawn.
        FixedOrder = "fo",
    }
}

impl Default for FarthestTies {
    /// [`FarthestTies::RoundRobin`].
    fn default() -> Self {
        FarthestTies::RoundRobin
    }
}

/// Capacity of every link queue: written `q` (an integer of at least 1) or `unbounded`, in
/// files and JSON as the integer or the string `"unbounded"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum QueueCapacity {
    /// At most this many units (flits, or packets for store-and-forward), at least 1.
    Bounded(u32),
    /// No limit.
    Unbounded,
}

impl fmt::Display for QueueCapacity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            QueueCapacity::Bounded(q) => write!(f, "{q}"),
            QueueCapacity::Unbounded => f.write_str("unbounded"),
        }
    }
}

impl FromStr for QueueCapacity {
    type Err = OnlineError;
    fn from_str(s: &str) -> Result<Self, OnlineError> {
        if s == "unbounded" {
            return Ok(QueueCapacity::Unbounded);
        }
        match s.parse::<u32>() {
            Ok(q) if q >= 1 => Ok(QueueCapacity::Bounded(q)),
            _ => Err(OnlineError::BadParameter {
                param: OnlineParameter::Queue,
                value: s.escape_debug().to_string(),
                expected: "an integer of at least 1, or `unbounded`",
            }),
        }
    }
}

impl Serialize for QueueCapacity {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            QueueCapacity::Bounded(q) => s.serialize_u32(*q),
            QueueCapacity::Unbounded => s.serialize_str("unbounded"),
        }
    }
}

impl<'de> Deserialize<'de> for QueueCapacity {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::{Error, Unexpected, Visitor};
        struct V;
        impl Visitor<'_> for V {
            type Value = QueueCapacity;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a queue capacity of at least 1, or \"unbounded\"")
            }
            fn visit_u64<E: Error>(self, v: u64) -> Result<QueueCapacity, E> {
                match u32::try_from(v) {
                    Ok(q) if q >= 1 => Ok(QueueCapacity::Bounded(q)),
                    _ => Err(E::invalid_value(Unexpected::Unsigned(v), &self)),
                }
            }
            fn visit_i64<E: Error>(self, v: i64) -> Result<QueueCapacity, E> {
                match u64::try_from(v) {
                    Ok(v) => self.visit_u64(v),
                    Err(_) => Err(E::invalid_value(Unexpected::Signed(v), &self)),
                }
            }
            fn visit_str<E: Error>(self, v: &str) -> Result<QueueCapacity, E> {
                match v {
                    "unbounded" => Ok(QueueCapacity::Unbounded),
                    _ => Err(E::invalid_value(Unexpected::Str(v), &self)),
                }
            }
        }
        d.deserialize_any(V)
    }
}

fatnet_topology::named_options! {
    /// Readings of Greenberg and Oh's STORE step ("Universal Wormhole Routing", §III.B.2)
    /// that the text leaves open; store-and-forward flow control on input queues only.
    ///
    /// The paper's description is one sentence: "At each step, each node scans its input
    /// queues once and sends out available packets greedily (whenever the corresponding
    /// output edge is idling and the queue at the end of that edge is not full)", with RP
    /// defined as "When a packet needs to go up, it selects an up link randomly. If the link
    /// is blocked, the packet waits. The selection is oblivious, i.e., each time a packet
    /// seeks to go up, it makes a selection randomly." [`StoreTiming::Snapshot`] is the
    /// engine's reading (module documentation), which makes every many-to-1 cell of their
    /// Table I exact; the others are the alternatives a reader could take, kept so that
    /// their effect can be measured. None changes the engine's default.
    pub enum StoreTiming("store timing") {
        /// The default: fullness is tested on the occupancy at the start of the step, and
        /// an RP head draws one up link per step and waits the step if it is blocked.
        /// Supported by "the queue at the end of that edge is not full" read at the step's
        /// start, and by "If the link is blocked, the packet waits".
        Snapshot = "snapshot",
        /// (a) An RP head whose drawn up link is blocked takes the other up link in the same
        /// step if that one is free (the candidates in cyclic order from the drawn one). The
        /// reading of "sends out available packets greedily" as overriding the draw; the RP
        /// sentence "If the link is blocked, the packet waits" speaks against it.
        OtherUpLink = "other-up",
        /// (b) Same-step moves: a packet may move into a queue that is full at the start of
        /// the step if that queue's front packet leaves in the same step (a packet forwarded,
        /// or the destination's drain), so `q = 1` no longer halves a link's throughput.
        /// The reading of "the queue at the end of that edge is not full" as the occupancy
        /// after this step's departures. Moves are decided to a fixed point: a packet
        /// blocked by a full queue is decided again as soon as that queue's front is decided
        /// to leave in the step (packets waiting for one queue in scan order). With
        /// queue sinks the destination's queue, drained in the step, takes the next packet in
        /// the same step too.
        SameStep = "same-step",
        /// (a) and (b) together.
        OtherUpLinkSameStep = "other-up+same-step",
        /// (d) An RP head draws its up link once per switch, when it first seeks to go up
        /// there, and waits for that link until it is free. The reading of "each time a
        /// packet seeks to go up, it makes a selection randomly" as once per arrival at a
        /// switch, with "If the link is blocked, the packet waits" meaning waits for that
        /// link. The draws are then uniform and independent of the network's state, one per
        /// switch: in law the path is FP's uniform shortest path, whereas the text counts RP
        /// among the adaptive schemes that "significantly outperform the fixed-path scheme".
        StickyDraw = "sticky",
    }
}

impl Default for StoreTiming {
    /// [`StoreTiming::Snapshot`].
    fn default() -> Self {
        StoreTiming::Snapshot
    }
}

impl StoreTiming {
    /// Whether a blocked RP draw may take another up link in the same step: (a).
    pub fn other_up_link(self) -> bool {
        matches!(
            self,
            StoreTiming::OtherUpLink | StoreTiming::OtherUpLinkSameStep
        )
    }

    /// Whether a packet may enter a queue freed in the same step: (b).
    pub fn same_step(self) -> bool {
        matches!(
            self,
            StoreTiming::SameStep | StoreTiming::OtherUpLinkSameStep
        )
    }
}

fatnet_topology::named_options! {
    /// What a terminal does with the units that reach it.
    pub enum SinkModel("sink model") {
        /// The ejection queue (capacity q) is drained one unit per step (Greenberg–Oh; exact
        /// on Table I's many-to-1 cells).
        Queue = "queue",
        /// Units are absorbed the moment they cross their last link.
        Immediate = "immediate",
    }
}

fatnet_topology::named_options! {
    /// Where a link's queue sits, and so how packets wait.
    ///
    /// Under output queueing (Stamoulis, §1.2.3 and chapters 5–7) a packet that arrives at a
    /// node, or is released there, joins at once the FIFO queue of the arc it takes next (of
    /// every child arc, for a multicast); in every step every arc with a non-empty queue sends
    /// its front packet, which is at the next node at the end of the step and may leave again
    /// in the next step. No arc idles while a packet waits for it. Packets that join one queue
    /// in the same step are ordered uniformly at random under [`ScanPolicy::RoundRobin`] (the
    /// thesis' "ties broken fairly at random", for batches generated at step boundaries); new
    /// packets first, then those in transit at random, under [`ScanPolicy::OldestFirst`]
    /// (FIFO by arrival time when packets are generated in continuous time); by link id
    /// (packets in transit first, then new packets in release order) under
    /// [`ScanPolicy::FixedOrder`]. Store-and-forward, unbounded queues and immediate sinks
    /// only; the path policy picks the next arc when a packet joins (greedy: the candidate
    /// with the shortest queue, the first on ties).
    pub enum Queueing("queueing") {
        /// At the link's head node (Greenberg and Oh): each node scans its inputs, and the
        /// front unit of a queue blocks the units behind it.
        Input = "input",
        /// At the link's tail node (Stamoulis): a packet joins the queue of the arc it takes
        /// next on arrival, and no arc idles while a packet waits for it.
        Output = "output",
    }
}

/// The options of a packet simulation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PacketConfig {
    /// Where queues sit.
    pub queueing: Queueing,
    /// Flow control.
    pub flow: FlowControl,
    /// Path selection.
    pub path: PathPolicy,
    /// Input scan.
    pub scan: ScanPolicy,
    /// `L`: flits per packet (1 to 65535).
    pub flits: u32,
    /// Link queue capacity.
    pub queue: QueueCapacity,
    /// What terminals do with arriving units.
    pub sink: SinkModel,
    /// Stop after this many steps; the report's outcome says so.
    pub max_steps: u64,
    /// Check conservation after every step (costs a pass over all queues).
    pub check_conservation: bool,
    /// Keep every message's latency in the report.
    pub record_latencies: bool,
    /// The reading of the STORE step (store-and-forward on input queues only; any other
    /// flow control or queueing requires the default).
    #[serde(default)]
    pub store_timing: StoreTiming,
    /// The input order of the fixed-order scan, and of farthest-first's fixed ties (input
    /// queues only).
    #[serde(default)]
    pub fixed_order: FixedInputOrder,
    /// How farthest-first orders units of equal path length (input queues only).
    #[serde(default)]
    pub farthest_ties: FarthestTies,
}

impl Default for PacketConfig {
    /// Greenberg–Oh's WORM-RP-RR of Table I: `L = 32`, `q = 2` flits, queue sinks.
    fn default() -> Self {
        Self {
            queueing: Queueing::Input,
            flow: FlowControl::Wormhole,
            path: PathPolicy::Random,
            scan: ScanPolicy::RoundRobin,
            flits: 32,
            queue: QueueCapacity::Bounded(2),
            sink: SinkModel::Queue,
            max_steps: 100_000_000,
            check_conservation: cfg!(debug_assertions),
            record_latencies: false,
            store_timing: StoreTiming::Snapshot,
            fixed_order: FixedInputOrder::Construction,
            farthest_ties: FarthestTies::RoundRobin,
        }
    }
}

impl PacketConfig {
    /// Stamoulis' model (greedy routing and every broadcast scheme on the hypercube): output
    /// queues, unit packets sent store-and-forward, dimension-order paths, unbounded queues,
    /// reception on arrival, latencies recorded; `scan` orders each arc's queue.
    pub fn output_queued_unit(scan: ScanPolicy) -> Self {
        Self {
            queueing: Queueing::Output,
            flow: FlowControl::StoreAndForward,
            path: PathPolicy::DimensionOrder,
            scan,
            flits: 1,
            queue: QueueCapacity::Unbounded,
            sink: SinkModel::Immediate,
            check_conservation: false,
            record_latencies: true,
            ..Self::default()
        }
    }

    /// Greenberg–Oh's STORE of Table I: store-and-forward, RP-RR, `q = 1` packet, `L = 32`.
    pub fn store() -> Self {
        Self {
            flow: FlowControl::StoreAndForward,
            queue: QueueCapacity::Bounded(1),
            ..Self::default()
        }
    }

    /// Greenberg–Oh's WORM of Table I: wormhole, RP-RR, `q = 2` flits, `L = 32`.
    pub fn worm() -> Self {
        Self::default()
    }

    /// SPLIT: independent flits, RP-RR, `q = 2` flits (the notes' inference, §6.15), `L = 32`.
    pub fn split() -> Self {
        Self {
            flow: FlowControl::Split,
            ..Self::default()
        }
    }

    /// Flit-steps per engine step: `L` for store-and-forward, 1 otherwise.
    pub fn step_length(&self) -> u64 {
        match self.flow {
            FlowControl::StoreAndForward => u64::from(self.flits),
            _ => 1,
        }
    }

    /// Checks the parameters.
    ///
    /// # Errors
    ///
    /// [`OnlineError::BadParameter`] for `L` outside `1..=65535`, `q = 0`, a priority range of
    /// 0 or `max_steps = 0`; [`OnlineError::Unsupported`] for output queueing with other than
    /// store-and-forward, unbounded queues, immediate sinks and a FIFO or labelled scan, for
    /// the labelled scan on input queues, and for a [`StoreTiming`] other than the default
    /// with other than store-and-forward on input queues.
    pub fn validate(&self) -> Result<(), OnlineError> {
        if !(1..=u32::from(u16::MAX)).contains(&self.flits) {
            return Err(OnlineError::BadParameter {
                param: OnlineParameter::Flits,
                value: self.flits.to_string(),
                expected: "1 to 65535",
            });
        }
        if self.queue == QueueCapacity::Bounded(0) {
            return Err(OnlineError::BadParameter {
                param: OnlineParameter::Queue,
                value: "0".into(),
                expected: "at least 1, or unbounded",
            });
        }
        if self.scan == (ScanPolicy::RandomPriority { range: 0 }) {
            return Err(OnlineError::BadParameter {
                param: OnlineParameter::PriorityRange,
                value: "0".into(),
                expected: "at least 1",
            });
        }
        if self.scan == ScanPolicy::Labelled && self.queueing != Queueing::Output {
            return Err(OnlineError::Unsupported {
                why: "the labelled scan orders output queues: use output queueing",
            });
        }
        if self.queueing == Queueing::Output {
            let why = if self.flow != FlowControl::StoreAndForward {
                Some("output queueing moves whole packets: use store-and-forward flow control")
            } else if self.queue != QueueCapacity::Unbounded {
                Some("output queues are unbounded: use an unbounded queue capacity")
            } else if self.sink != SinkModel::Immediate {
                Some("output queueing absorbs packets on arrival: use immediate sinks")
            } else if !matches!(
                self.scan,
                ScanPolicy::RoundRobin
                    | ScanPolicy::FixedOrder
                    | ScanPolicy::OldestFirst
                    | ScanPolicy::Labelled
            ) {
                Some(
                    "output queues are FIFO or labelled: use the round-robin (random ties), oldest-first (new packets first), fixed-order or labelled scan",
                )
            } else {
                None
            };
            if let Some(why) = why {
                return Err(OnlineError::Unsupported { why });
            }
        }
        if self.store_timing != StoreTiming::Snapshot
            && (self.flow != FlowControl::StoreAndForward || self.queueing != Queueing::Input)
        {
            return Err(OnlineError::Unsupported {
                why: "a store timing other than snapshot reads Greenberg–Oh's STORE step: use store-and-forward flow control on input queues",
            });
        }
        if self.max_steps == 0 {
            return Err(OnlineError::BadParameter {
                param: OnlineParameter::MaxSteps,
                value: "0".into(),
                expected: "at least 1",
            });
        }
        Ok(())
    }
}

/// One message to route: its source, destination and release step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Injection {
    /// Source processor.
    pub src: Processor,
    /// Destination processor.
    pub dst: Processor,
    /// The engine step at which it joins its source's injection queue.
    pub release: u64,
}

/// A static batch: every message of `messages`, released at `x · unit` with `x` uniform in
/// `0..delays` (Greenberg–Oh's initial random delays `R`; `delays = 1` releases everything at
/// step 0 and draws nothing). Draws are made in message order from `rng`.
///
/// # Errors
///
/// [`OnlineError::BadParameter`] if `delays = 0`.
pub fn batch<R: Rng + ?Sized>(
    messages: &MessageSet,
    delays: u32,
    unit: u64,
    rng: &mut R,
) -> Result<Vec<Injection>, OnlineError> {
    if delays == 0 {
        return Err(OnlineError::BadParameter {
            param: OnlineParameter::Delays,
            value: "0".into(),
            expected: "at least 1",
        });
    }
    Ok(messages
        .iter()
        .map(|(_, m)| Injection {
            src: m.src,
            dst: m.dst,
            release: if delays > 1 {
                u64::from(rng.random_range(0..delays)) * unit
            } else {
                0
            },
        })
        .collect())
}

/// Stamoulis' slotted arrivals on `2^d` nodes as injections released at their slot: the
/// batches of [`fatnet_traffic::arrivals::inversion_batches`] (see there for the draws). The
/// greedy-routing table and the test that compares the engine with `slotted_cube` both take
/// their packets here.
///
/// # Errors
///
/// [`OnlineError::Traffic`] with the refusals of `inversion_batches`: a dimension above 31, a
/// rate not positive and finite, or a list over the arrival or memory limits.
pub fn slotted_bitflip_arrivals<R: Rng + ?Sized>(
    d: u32,
    lambda: f64,
    p: f64,
    slots: u64,
    rng: &mut R,
) -> Result<Vec<Injection>, OnlineError> {
    Ok(
        fatnet_traffic::arrivals::inversion_batches(d, lambda, p, slots, rng)?
            .into_iter()
            .map(|(slot, src, dst)| Injection {
                src,
                dst,
                release: slot,
            })
            .collect(),
    )
}

/// The unit of Greenberg–Oh's initial delays, in engine steps: one packet-step for
/// store-and-forward; `L·⌈log₂ N⌉` flit-steps for wormhole and split (the paper's
/// "x·L·log N" has no base; we take 2, as Figure 2's `R = log₂ N` does).
pub fn delay_unit(config: &PacketConfig, processors: u32) -> u64 {
    match config.flow {
        FlowControl::StoreAndForward => 1,
        FlowControl::Wormhole | FlowControl::Split => {
            u64::from(config.flits) * u64::from(processors.max(2).next_power_of_two().ilog2())
        }
    }
}

/// One trial of a static batch (Greenberg–Oh's experiments): `messages`, each released after
/// an initial delay drawn from `0..delays` units of [`delay_unit`], routed under `config`.
/// The delays and then the run's seed are drawn from `Pcg64::seed_from_u64(seed)`.
///
/// # Errors
///
/// As [`simulate`] and [`batch`].
pub fn batch_trial(
    net: &PacketNet,
    messages: &MessageSet,
    delays: u32,
    config: &PacketConfig,
    seed: u64,
) -> Result<PacketReport, OnlineError> {
    let (injections, run_seed) = batch_injections(net, messages, delays, config, seed)?;
    simulate(net, &injections, config, run_seed)
}

/// The first half of [`batch_trial`]: its injections and the seed of its run, which
/// `simulate(net, &injections, config, run_seed)` then routes exactly as `batch_trial` does.
/// A caller that made `messages` for this trial alone can drop them before the run (at 2^20
/// processors a message set is 8 MB of the run's peak).
///
/// # Errors
///
/// As [`batch`].
pub fn batch_injections(
    net: &PacketNet,
    messages: &MessageSet,
    delays: u32,
    config: &PacketConfig,
    seed: u64,
) -> Result<(Vec<Injection>, u64), OnlineError> {
    let mut rng = rand_pcg::Pcg64::seed_from_u64(seed);
    let unit = delay_unit(config, net.processors());
    let injections = batch(messages, delays, unit, &mut rng)?;
    Ok((injections, rng.random()))
}

/// One trial of a multicast batch: one message along each tree of `trees`, each released
/// after an initial delay drawn from `0..delays` units of [`delay_unit`] (in tree order, as
/// [`batch`] draws), routed under `config`. The delays and then the run's seed are drawn from
/// `Pcg64::seed_from_u64(seed)`, as in [`batch_trial`].
///
/// # Errors
///
/// As [`simulate_multicast`], and [`OnlineError::BadParameter`] if `delays = 0`.
pub fn multicast_trial(
    net: &PacketNet,
    trees: &[MulticastTree],
    delays: u32,
    config: &PacketConfig,
    seed: u64,
) -> Result<PacketReport, OnlineError> {
    if delays == 0 {
        return Err(OnlineError::BadParameter {
            param: OnlineParameter::Delays,
            value: "0".into(),
            expected: "at least 1",
        });
    }
    let mut rng = rand_pcg::Pcg64::seed_from_u64(seed);
    let unit = delay_unit(config, net.processors());
    let multicasts: Vec<Multicast> = (0..trees.len() as u32)
        .map(|tree| Multicast {
            tree,
            release: if delays > 1 {
                u64::from(rng.random_range(0..delays)) * unit
            } else {
                0
            },
        })
        .collect();
    simulate_multicast(net, &[], trees, &multicasts, config, rng.random())
}

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum Outcome {
    /// Every message was delivered.
    Delivered,
    /// Nothing could move although units were in flight: the run can never finish.
    Deadlock {
        /// The step in which nothing could move.
        step: u64,
    },
    /// `max_steps` steps ran first.
    StepLimit,
}

/// The result of a packet simulation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PacketReport {
    /// How the run ended.
    pub outcome: Outcome,
    /// Messages injected.
    pub messages: u64,
    /// Messages delivered.
    pub delivered: u64,
    /// Engine steps simulated.
    pub steps: u64,
    /// The paper's maximum latency, in flit-steps: the 0-based step in which the last message
    /// was delivered (times `L` for store-and-forward).
    pub latency: u64,
    /// Mean over delivered messages of (delivery step − release step), in flit-steps.
    pub mean_latency: f64,
    /// Realized congestion `c`: the largest number of worms whose head crossed one link
    /// (for split, every flit is a worm).
    pub congestion: u32,
    /// Longest path a delivered unit took, in links.
    pub dilation: u32,
    /// Unit-link crossings (flit-hops; packet-hops for store-and-forward).
    pub unit_hops: u64,
    /// Time-average number of units in link queues (ejection queues excluded).
    pub mean_queued: f64,
    /// Largest number of units in one link queue at the end of a step.
    pub max_queue: u32,
    /// Every message's latency in flit-steps, in injection order, `u64::MAX` for a message not
    /// delivered (`None` unless [`PacketConfig::record_latencies`]).
    pub latencies: Option<Vec<u64>>,
    /// Per step `t` (from 0), the packets *stored* during the step by Stamoulis' convention
    /// (thesis §6.4): a packet counts once at every node that still has to
    /// forward it — a multicast from its release (or its arrival at the end of the previous
    /// step) until the end of the step in which its last copy leaves the node, its copies on
    /// several child links counting once; a unicast at every node it waits at, its
    /// transmission step included. Only from [`simulate_multicast_stored`] (output queues).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stored: Option<Vec<u32>>,
    /// Per step `t` (from 0), the largest number of packets stored at **one node** by the
    /// convention of [`PacketReport::stored`] at any instant of the step: the count just
    /// before the step ends, when the packets released at step `t + 1` are already counted
    /// at their sources and the step's departures and arrivals (at its end) not yet applied.
    /// A scheme that releases a packet generated at time `τ` at step `⌈τ⌉` (Stamoulis'
    /// continuous generation, slotted transmission) thus counts it from its generation, and
    /// the largest of these values over a window is the thesis' `M` (Fig. 7.8). A step
    /// skipped as idle counts 0, or the packets released at the next step. Only from
    /// [`simulate_multicast_stored`] (output queues).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stored_peak: Option<Vec<u32>>,
}

impl PacketReport {
    /// Whether every message was delivered.
    pub fn finished(&self) -> bool {
        self.outcome == Outcome::Delivered
    }
}

#[cfg(test)]
mod scan_option_tests {
    use super::*;
    use fatnet_topology::ButterflyFatTree;
    use fatnet_traffic::patterns;

    fn net(n: u64) -> PacketNet {
        PacketNet::new(ButterflyFatTree::new(n).unwrap()).unwrap()
    }

    fn instance(n: u32, seed: u64) -> MessageSet {
        patterns::uniform(n, false, &mut rand_pcg::Pcg64::seed_from_u64(seed)).unwrap()
    }

    fn run(net: &PacketNet, m: &MessageSet, config: PacketConfig, seed: u64) -> PacketReport {
        let config = PacketConfig {
            check_conservation: true,
            record_latencies: true,
            ..config
        };
        let r = batch_trial(net, m, 1, &config, seed).unwrap();
        assert!(r.finished());
        r
    }

    /// The defaults are the orders the engine always had, and the fixed order does not
    /// touch RR (same draws, same run).
    #[test]
    fn defaults_and_round_robin_are_unchanged() {
        let c = PacketConfig::default();
        assert_eq!(c.fixed_order, FixedInputOrder::Construction);
        assert_eq!(c.farthest_ties, FarthestTies::RoundRobin);
        let (net, m) = (net(64), instance(64, 1));
        for flow in [FlowControl::Wormhole, FlowControl::StoreAndForward] {
            let rr = PacketConfig { flow, ..c };
            let reversed = PacketConfig {
                fixed_order: FixedInputOrder::Reversed,
                farthest_ties: FarthestTies::FixedOrder,
                ..rr
            };
            assert_eq!(run(&net, &m, rr, 7), run(&net, &m, reversed, 7));
        }
    }

    /// GP paths with FO, or with FF and fixed ties, draw nothing: the seed does not matter.
    /// Reversing FO's order changes which input wins, hence the run.
    #[test]
    fn fixed_orders_draw_nothing_and_the_order_matters() {
        let (net, m) = (net(64), instance(64, 3));
        let base = PacketConfig {
            path: PathPolicy::Greedy,
            scan: ScanPolicy::FixedOrder,
            ..PacketConfig::default()
        };
        let reversed = PacketConfig {
            fixed_order: FixedInputOrder::Reversed,
            ..base
        };
        let ff_fixed = PacketConfig {
            scan: ScanPolicy::FarthestFirst,
            farthest_ties: FarthestTies::FixedOrder,
            ..base
        };
        for c in [base, reversed, ff_fixed] {
            assert_eq!(run(&net, &m, c, 1), run(&net, &m, c, 2));
        }
        assert_ne!(
            run(&net, &m, base, 1).latencies,
            run(&net, &m, reversed, 1).latencies
        );
        // FF with RR ties draws a start per contended step: the seed matters.
        let ff_rr = PacketConfig {
            farthest_ties: FarthestTies::RoundRobin,
            ..ff_fixed
        };
        assert_ne!(
            run(&net, &m, ff_rr, 1).latencies,
            run(&net, &m, ff_rr, 2).latencies
        );
    }

    /// Two worms of equal length contend for one output of a switch: under FO the input
    /// earlier in the order goes first, so reversing the order swaps who is late.
    #[test]
    fn the_reversed_order_serves_the_other_input_first() {
        let net = net(16);
        // Processors 0 and 1 share their level-1 switch; both send to processor 2 (same
        // switch, same path length 2): the switch's up links from 0 and 1 compete for the
        // down link to 2.
        let m = MessageSet::new(
            16,
            vec![
                fatnet_traffic::Message { src: 0, dst: 2 },
                fatnet_traffic::Message { src: 1, dst: 2 },
            ],
        )
        .unwrap();
        let fo = PacketConfig {
            scan: ScanPolicy::FixedOrder,
            flits: 4,
            ..PacketConfig::default()
        };
        let a = run(&net, &m, fo, 0).latencies.unwrap();
        assert!(a[0] < a[1], "{a:?}");
        let r = run(
            &net,
            &m,
            PacketConfig {
                fixed_order: FixedInputOrder::Reversed,
                ..fo
            },
            0,
        )
        .latencies
        .unwrap();
        assert!(r[1] < r[0], "{r:?}");
    }
}
