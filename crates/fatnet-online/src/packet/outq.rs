//! The output-queued step loop ([`Queueing::Output`](super::Queueing::Output)): Stamoulis'
//! communication model.
//!
//! **Model.** Every link has a FIFO queue at its *tail*. A packet released at a node, or
//! arriving there, joins at once the queue of the link it takes next (of every child link of
//! its tree, for a multicast: the copies are made on arrival). In every step every link with
//! a non-empty queue sends its front packet; the packet is at the link's head at the end of
//! the step and may leave again in the next step. A packet released at step `t` may therefore
//! leave in step `t`, and an uncontended packet on a `d`-link path is delivered in step
//! `r + d − 1` (the engine's 0-based latency `d − 1`; Stamoulis' delay, from generation at a
//! slot boundary to reception at the end of a slot, is one step more).
//!
//! A packet is delivered at its release, crossing nothing, only when its source's injection
//! node is its destination's ejection node (a processor to itself on the hypercube and the
//! trees); on Stamoulis' butterfly `p → p` is a path of `d` straight arcs, queued like any
//! other.
//!
//! **Ties.** Packets that join one queue in the same step are in the order in which they join:
//! - [`ScanPolicy::RoundRobin`]: a uniformly random order of all the step's joiners (packets
//!   generated in batches at step boundaries, Stamoulis §5.4: "ties broken fairly at random");
//! - [`ScanPolicy::OldestFirst`]: the new packets first, in release order, then the packets in
//!   transit in random order. This is FIFO by arrival time at the node when packets are
//!   generated in continuous time and sent in slots (Stamoulis chapters 5–7): a packet
//!   generated during step `t − 1` is released at step `t` and reached its node before the
//!   packets that arrive at the boundary `t`;
//! - [`ScanPolicy::FixedOrder`]: the order of the links they crossed (link id), then the new
//!   packets in release order.
//!
//! **Labelled queues.** Under [`ScanPolicy::Labelled`] a queue is not FIFO: a joiner is
//! inserted after every packet of key `(label, rank)` at most its own, so the front is always
//! the smallest key (joiners of one step ordered as under oldest-first before insertion).
//!
//! **Implementation.** Queues are intrusive singly linked lists over a pool of packet records
//! (a record per packet copy in flight, recycled through a free list): no allocation per hop,
//! and a step visits only the links whose queue is non-empty (a bit mask).

use super::ledger::Ledger;
use super::multicast::MulticastTree;
use super::net::{NONE, PacketNet};
use super::sim::Mc;
use super::{Injection, OnlineError, Outcome, PacketConfig, PacketReport, PathPolicy, ScanPolicy};
use crate::shuffle::shuffle;
use crate::step::{Step, StepModel, drive};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

/// Runs `injections` and the multicasts of `mc` on output queues (parameters already checked).
pub(super) fn run(
    net: &PacketNet,
    injections: &[Injection],
    mc: Mc<'_>,
    config: &PacketConfig,
    seed: u64,
) -> Result<PacketReport, OnlineError> {
    let sim = OutSim::new(net, injections, mc, config, seed)?;
    drive(sim, net, config.max_steps, config.check_conservation)
}

/// A packet (copy) in flight. Destination and release are copied from the message so that a
/// hop reads one record (the message list is large and read at random).
#[derive(Clone, Copy, Debug)]
struct Rec {
    release: u64,
    msg: u32,
    /// Unicast: its destination; multicast: the visit it belongs to ([`Storage::visits`]) when
    /// storage is counted, else `NONE`.
    dst: u32,
    /// The next record in its queue (or in the free list).
    next: u32,
    /// Unicast: links crossed; multicast: the tree position of the link it waits for.
    pos: u16,
}

/// Stamoulis' storage count ([`PacketReport::stored`]) and its largest value at one node
/// ([`PacketReport::stored_peak`]).
#[derive(Debug, Default)]
struct Storage {
    /// Per visit (a multicast at a node of its tree that still has to forward it): its copies
    /// not yet sent. A slot is recycled through `free_visits` once the count reaches 0, and
    /// every copy carries its visit's slot (`Rec::dst`): a send touches one counter, with no
    /// lookup by (multicast, tree position).
    visits: Vec<u32>,
    /// Slots of `visits` whose visit is over.
    free_visits: Vec<u32>,
    /// Packets stored now: the open visits and the unicasts waiting at a node.
    held: u32,
    /// Per step, `held` once the step's joiners are in their queues (before it transmits).
    per_step: Vec<u32>,
    /// `held` split by node, on the thesis' clock: a step's departures and arrivals (both at
    /// the end of the step) are applied after the packets released at the next step (those
    /// generated during the step) have been added.
    node: Vec<u32>,
    /// At least the largest count at one node, and exactly it unless `stale`.
    top: u32,
    /// Whether a node at the `top` count has lost a packet since `top` was last exact: the
    /// next record scans the nodes. (A histogram of the counts kept `top` exact at every move
    /// instead, at four times the cost of a move, and a step records only once.)
    stale: bool,
    /// The node changes of the last step's transmissions, not yet applied: `(node, arrived)`,
    /// a packet arriving at the node (`true`) or done with it (`false`).
    moved: Vec<(u32, bool)>,
    /// The last step run whose largest count is not yet in `peak_per_step`.
    open: Option<u64>,
    /// Per step, the largest count at one node at the end of the step
    /// ([`PacketReport::stored_peak`]).
    peak_per_step: Vec<u32>,
}

impl Storage {
    fn new(nodes: u32) -> Self {
        Storage {
            node: vec![0; nodes as usize],
            ..Storage::default()
        }
    }

    /// Opens a visit with `copies` copies to send; returns its slot.
    #[inline]
    fn open_visit(&mut self, copies: u32) -> u32 {
        match self.free_visits.pop() {
            Some(v) => {
                self.visits[v as usize] = copies;
                v
            }
            None => {
                self.visits.push(copies);
                self.visits.len() as u32 - 1
            }
        }
    }

    /// One copy of visit `v` is sent; returns whether that was its last (the visit is over).
    #[inline]
    fn send_from(&mut self, v: u32) -> bool {
        let left = &mut self.visits[v as usize];
        *left -= 1;
        let done = *left == 0;
        if done {
            self.free_visits.push(v);
        }
        done
    }

    /// A packet is stored at `x` from now.
    #[inline]
    fn add(&mut self, x: u32) {
        let c = &mut self.node[x as usize];
        *c += 1;
        self.top = self.top.max(*c);
    }

    /// A packet stored at `x` is no longer.
    #[inline]
    fn remove(&mut self, x: u32) {
        let c = &mut self.node[x as usize];
        if *c == self.top {
            self.stale = true;
        }
        *c -= 1;
    }

    /// Step `t`'s largest count at one node is `top`.
    fn record(&mut self, t: u64) {
        if self.stale {
            self.top = self.node.iter().copied().max().unwrap_or(0);
            self.stale = false;
        }
        self.peak_per_step.resize(t as usize, 0);
        self.peak_per_step.push(self.top);
    }

    /// The packets released at step `t` have been added (`released` of them): records the
    /// last step run (`t − 1`, its count with them), then applies its transmissions. After
    /// an idle stretch (no step open) the network held nothing, and the released packets
    /// alone make step `t − 1`'s count.
    fn close(&mut self, t: u64, released: bool) {
        match self.open.take() {
            Some(u) => {
                self.record(u);
                // Taken and put back, so that its buffer is reused from step to step.
                let mut moved = std::mem::take(&mut self.moved);
                for &(x, arrived) in &moved {
                    if arrived {
                        self.add(x);
                    } else {
                        self.remove(x);
                    }
                }
                moved.clear();
                self.moved = moved;
            }
            None if released && t > 0 => self.record(t - 1),
            None => {}
        }
    }
}

struct OutSim<'a> {
    config: &'a PacketConfig,
    injections: &'a [Injection],
    mc: Mc<'a>,
    rng: Pcg64,
    stride: usize,
    /// Fixed paths (FP only): per unicast message, its links.
    route: Vec<u32>,

    /// Packet records, recycled through the free list `free`.
    recs: Vec<Rec>,
    free: u32,

    // Per link: queue (first, last record), length, whether non-empty, head-crossings.
    first: Vec<u32>,
    last: Vec<u32>,
    len: Vec<u32>,
    busy: Vec<u64>,
    crossings: Vec<u32>,

    // Per message: copies still to arrive (multicasts), releases and deliveries.
    remaining: Vec<u32>,
    ledger: Ledger<'a>,

    // Records that join a queue at the start of the next step: (link, record); the first
    // `transit` of them crossed a link in the last step, the others are new.
    joining: Vec<(u32, u32)>,
    transit: usize,
    cands: Vec<u32>,

    released: u64,
    spawned: u64,
    arrived: u64,
    queued: u64,
    dilation: u32,
    unit_hops: u64,
    queued_sum: u128,
    max_queue: u32,
    storage: Option<Storage>,
    /// Whether packets follow the route fixed at their source (`PacketNet::source_routed`).
    source_routed: bool,
}

impl<'a> OutSim<'a> {
    fn new(
        net: &PacketNet,
        injections: &'a [Injection],
        mc: Mc<'a>,
        config: &'a PacketConfig,
        seed: u64,
    ) -> Result<Self, OnlineError> {
        let mut rng = Pcg64::seed_from_u64(seed);
        let links = net.links() as usize;
        // Source routes, drawn in message order (as the input-queued engine does); the
        // records are as long as the longest route drawn.
        let source_routed = net.source_routed(config.path);
        let mut route = Vec::new();
        let mut stride = net.max_hops().max(1) as usize;
        if source_routed {
            let (mut channels, mut path) = (Vec::new(), Vec::new());
            let mut drawn = Vec::new();
            for m in injections {
                if net.injection_node(m.src) != net.ejection_node(m.dst) {
                    net.source_path(
                        m.src,
                        m.dst,
                        config.path,
                        &mut rng,
                        &mut channels,
                        &mut path,
                    )?;
                    stride = stride.max(path.len());
                    drawn.push(path.len() as u32);
                    drawn.extend_from_slice(&path);
                } else {
                    drawn.push(0);
                }
            }
            route = vec![NONE; injections.len() * stride];
            let mut at = 0;
            for i in 0..injections.len() {
                let len = drawn[at] as usize;
                route[i * stride..i * stride + len].copy_from_slice(&drawn[at + 1..at + 1 + len]);
                at += 1 + len;
            }
        }
        let mut remaining = vec![1u32; injections.len()];
        remaining.extend(
            mc.multicasts
                .iter()
                .map(|m| mc.trees[m.tree as usize].dsts().len() as u32),
        );
        Ok(OutSim {
            config,
            injections,
            mc,
            rng,
            stride,
            route,
            recs: Vec::new(),
            free: NONE,
            first: vec![NONE; links],
            last: vec![NONE; links],
            len: vec![0; links],
            busy: vec![0; links.div_ceil(64)],
            crossings: vec![0; links],
            remaining,
            ledger: Ledger::new(injections, mc.multicasts, config),
            joining: Vec::new(),
            transit: 0,
            cands: Vec::new(),
            released: 0,
            spawned: 0,
            arrived: 0,
            queued: 0,
            dilation: 0,
            unit_hops: 0,
            queued_sum: 0,
            max_queue: 0,
            storage: mc.storage.then(|| Storage::new(net.nodes())),
            source_routed,
        })
    }

    fn tree_of(&self, m: usize) -> &'a MulticastTree {
        let mc = self.mc;
        &mc.trees[mc.multicasts[m - self.injections.len()].tree as usize]
    }

    /// A fresh record.
    #[inline]
    fn alloc(&mut self, msg: u32, pos: u16, dst: u32, release: u64) -> u32 {
        let rec = Rec {
            release,
            msg,
            dst,
            next: NONE,
            pos,
        };
        if self.free != NONE {
            let r = self.free;
            self.free = self.recs[r as usize].next;
            self.recs[r as usize] = rec;
            r
        } else {
            self.recs.push(rec);
            self.recs.len() as u32 - 1
        }
    }

    #[inline]
    fn release_rec(&mut self, r: u32) {
        self.recs[r as usize].next = self.free;
        self.free = r;
    }

    /// The link a unicast packet of message `m` for `dst` at node `v`, having crossed `hops`
    /// links, takes next.
    #[inline]
    fn next_link(&mut self, net: &PacketNet, v: u32, m: usize, dst: u32, hops: u16) -> u32 {
        if self.source_routed {
            return self.route[m * self.stride + hops as usize];
        }
        match self.config.path {
            PathPolicy::Fixed | PathPolicy::Standard => {
                unreachable!("source-routed policies take the route")
            }
            PathPolicy::DimensionOrder => {
                let mut cands = std::mem::take(&mut self.cands);
                let e = net.first_hop(v, dst, &mut cands);
                self.cands = cands;
                e
            }
            PathPolicy::Random => {
                let mut cands = std::mem::take(&mut self.cands);
                net.next_hops(v, dst, &mut cands);
                let e = if cands.len() > 1 {
                    cands[self.rng.random_range(0..cands.len())]
                } else {
                    cands[0]
                };
                self.cands = cands;
                e
            }
            PathPolicy::Greedy => {
                let mut cands = std::mem::take(&mut self.cands);
                net.next_hops(v, dst, &mut cands);
                let e = cands
                    .iter()
                    .copied()
                    .min_by_key(|&e| self.len[e as usize])
                    .expect("a packet not at its destination has a next hop");
                self.cands = cands;
                e
            }
        }
    }

    /// Messages due at step `t` become joiners (after the packets in transit).
    fn release(&mut self, net: &PacketNet, t: u64) {
        let before = self.released;
        while let Some(m) = self.ledger.pop_due(t) {
            let release = self.ledger.release_of(m);
            self.released += 1;
            if let Some(inj) = self.injections.get(m) {
                // A packet whose source node is its destination's sink node crosses nothing
                // (on the butterfly `p → p` crosses `d` straight arcs: not delivered here).
                if net.injection_node(inj.src) == net.ejection_node(inj.dst) {
                    self.arrived += 1;
                    self.ledger.deliver(m, release, t.max(release));
                    continue;
                }
                let v = net.injection_node(inj.src);
                let e = self.next_link(net, v, m, inj.dst, 0);
                let r = self.alloc(m as u32, 0, inj.dst, release);
                self.joining.push((e, r));
                if let Some(s) = &mut self.storage {
                    s.held += 1;
                    s.add(v);
                }
            } else {
                let tree = self.tree_of(m);
                let root = tree.at(0);
                self.spawned += root.kids() as u64 - 1;
                let visit = match &mut self.storage {
                    Some(s) => {
                        s.held += 1;
                        s.add(net.injection_node(tree.src()));
                        s.open_visit(root.kids() as u32)
                    }
                    None => NONE,
                };
                for (c, e) in root.children().zip(tree.child_links(root)) {
                    let r = self.alloc(m as u32, c, visit, release);
                    self.joining.push((e, r));
                }
            }
        }
        let released = self.released > before;
        if let Some(s) = &mut self.storage {
            s.close(t, released);
        }
    }

    /// The step's joiners enter their queues.
    fn join(&mut self) {
        let mut joining = std::mem::take(&mut self.joining);
        match self.config.scan {
            ScanPolicy::RoundRobin => shuffle(&mut joining, &mut self.rng),
            ScanPolicy::OldestFirst | ScanPolicy::Labelled => {
                // New packets (generated during the last step) reached the node before the
                // packets in transit, which arrive at the step boundary.
                let transit = self.transit;
                shuffle(&mut joining[..transit], &mut self.rng);
                joining.rotate_left(transit);
            }
            _ => {}
        }
        if self.config.scan == ScanPolicy::Labelled {
            for &(e, r) in &joining {
                self.insert_by_key(e as usize, r);
            }
        } else {
            for &(e, r) in &joining {
                let ei = e as usize;
                self.recs[r as usize].next = NONE;
                if self.last[ei] == NONE {
                    self.first[ei] = r;
                    self.busy[ei / 64] |= 1 << (ei % 64);
                } else {
                    self.recs[self.last[ei] as usize].next = r;
                }
                self.last[ei] = r;
                self.len[ei] += 1;
                self.max_queue = self.max_queue.max(self.len[ei]);
            }
        }
        self.queued += joining.len() as u64;
        joining.clear();
        self.joining = joining;
    }

    /// The [`ScanPolicy::Labelled`] key of record `r`: a multicast copy's (label, rank of the
    /// tree position it waits for), a unicast's (release, 0).
    fn key(&self, r: u32) -> (u64, u16) {
        let rec = self.recs[r as usize];
        let m = rec.msg as usize;
        match m.checked_sub(self.injections.len()) {
            None => (rec.release, 0),
            Some(i) => (
                self.mc.labels.get(i).copied().unwrap_or(0),
                self.tree_of(m).at(rec.pos).rank(),
            ),
        }
    }

    /// Record `r` joins link `ei`'s queue after every record of key at most its own (the
    /// queue stays sorted; equal keys in arrival order). Appending, the common case, is
    /// checked first.
    fn insert_by_key(&mut self, ei: usize, r: u32) {
        let k = self.key(r);
        self.recs[r as usize].next = NONE;
        if self.last[ei] == NONE {
            self.first[ei] = r;
            self.last[ei] = r;
            self.busy[ei / 64] |= 1 << (ei % 64);
        } else if self.key(self.last[ei]) <= k {
            self.recs[self.last[ei] as usize].next = r;
            self.last[ei] = r;
        } else if k < self.key(self.first[ei]) {
            self.recs[r as usize].next = self.first[ei];
            self.first[ei] = r;
        } else {
            // key(first) <= k < key(last): the walk stops before the end.
            let mut prev = self.first[ei];
            loop {
                let next = self.recs[prev as usize].next;
                if self.key(next) > k {
                    break;
                }
                prev = next;
            }
            self.recs[r as usize].next = self.recs[prev as usize].next;
            self.recs[prev as usize].next = r;
        }
        self.len[ei] += 1;
        self.max_queue = self.max_queue.max(self.len[ei]);
    }

    /// Every busy link sends its front packet; arrivals are processed at once and their next
    /// hops become the next step's joiners.
    fn transmit(&mut self, net: &PacketNet, t: u64) {
        let mut sent = 0;
        for wi in 0..self.busy.len() {
            let mut bits = self.busy[wi];
            while bits != 0 {
                let ei = wi * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                let r = self.first[ei];
                let next = self.recs[r as usize].next;
                self.first[ei] = next;
                self.len[ei] -= 1;
                if next == NONE {
                    self.last[ei] = NONE;
                    self.busy[wi] &= !(1 << (ei % 64));
                }
                sent += 1;
                self.crossings[ei] += 1;
                if self.storage.is_some() {
                    self.sent(net, ei as u32, r);
                }
                self.arrive(net, ei as u32, r, t);
            }
        }
        // Counted once a step rather than once a packet (nothing reads them in between).
        self.queued -= sent;
        self.unit_hops += sent;
    }

    /// Storage: record `r` leaves its node, the tail of link `e`, in this step (before it
    /// arrives at the next).
    fn sent(&mut self, net: &PacketNet, e: u32, r: u32) {
        let rec = self.recs[r as usize];
        let unicast = (rec.msg as usize) < self.injections.len();
        let Some(s) = &mut self.storage else { return };
        let done = unicast || s.send_from(rec.dst);
        if done {
            s.held -= 1;
            s.moved.push((net.link_tail(e), false));
        }
    }

    /// Record `r` has crossed link `e` in step `t`.
    #[inline]
    fn arrive(&mut self, net: &PacketNet, e: u32, r: u32, t: u64) {
        let ri = r as usize;
        let rec = self.recs[ri];
        let (m, release) = (rec.msg as usize, rec.release);
        let v = net.link_head(e);
        if m < self.injections.len() {
            let hops = rec.pos + 1;
            let dst = rec.dst;
            if v == net.ejection_node(dst) {
                self.arrived += 1;
                self.dilation = self.dilation.max(u32::from(hops));
                self.release_rec(r);
                self.ledger.deliver(m, release, t);
            } else {
                self.recs[ri].pos = hops;
                let next = self.next_link(net, v, m, dst, hops);
                self.joining.push((next, r));
                if let Some(s) = &mut self.storage {
                    s.held += 1;
                    s.moved.push((v, true));
                }
            }
            return;
        }
        let tree = self.tree_of(m);
        let at = tree.at(rec.pos);
        if at.delivers() {
            self.arrived += 1;
            self.dilation = self.dilation.max(at.depth());
            self.remaining[m] -= 1;
            if self.remaining[m] == 0 {
                self.ledger.deliver(m, release, t);
            }
            if at.kids() == 0 {
                self.release_rec(r);
                return;
            }
            // The node keeps a copy and forwards the packet.
            self.spawned += 1;
        }
        let visit = match &mut self.storage {
            Some(s) => {
                s.held += 1;
                s.moved.push((v, true));
                s.open_visit(at.kids() as u32)
            }
            None => NONE,
        };
        self.spawned += at.kids() as u64 - 1;
        for (i, (c, e)) in at.children().zip(tree.child_links(at)).enumerate() {
            let rc = if i == 0 {
                self.recs[ri].pos = c;
                self.recs[ri].dst = visit;
                r
            } else {
                self.alloc(m as u32, c, visit, release)
            };
            self.joining.push((e, rc));
        }
    }

    fn check_conservation(&self, t: u64) -> Result<(), OnlineError> {
        let counted: u64 = self.len.iter().map(|&l| u64::from(l)).sum();
        let live = counted + self.joining.len() as u64;
        if counted != self.queued || self.released + self.spawned != self.arrived + live {
            return Err(OnlineError::Conservation {
                clock: "step",
                at: t,
                detail: format!(
                    "released {} + copied {} packets, arrived {} + queued {counted} (tracked {}) + in transit {}",
                    self.released,
                    self.spawned,
                    self.arrived,
                    self.queued,
                    self.joining.len()
                ),
            });
        }
        if let Some(s) = &self.storage {
            // The per-node counts, with the step's pending moves, add up to `held`.
            let nodes: i64 = s.node.iter().map(|&c| i64::from(c)).sum();
            let moves: i64 = s.moved.iter().map(|&(_, a)| if a { 1 } else { -1 }).sum();
            if nodes + moves != i64::from(s.held) {
                return Err(OnlineError::Conservation {
                    clock: "step",
                    at: t,
                    detail: format!(
                        "stored at the nodes {nodes} + moved {moves}, stored in all {}",
                        s.held
                    ),
                });
            }
        }
        Ok(())
    }
}

impl StepModel for OutSim<'_> {
    type Net = PacketNet;
    type Report = PacketReport;
    type Error = OnlineError;

    /// Also marks the joiners already waiting (they crossed a link in the last step) as in
    /// transit: the new packets are appended after them.
    #[inline]
    fn release(&mut self, net: &PacketNet, t: u64) {
        self.transit = self.joining.len();
        OutSim::release(self, net, t);
    }

    #[inline]
    fn finished(&self, _t: u64) -> bool {
        self.ledger.delivered == self.ledger.total()
    }

    #[inline]
    fn idle(&self) -> bool {
        self.queued == 0 && self.joining.is_empty()
    }

    #[inline]
    fn next_release(&self) -> Option<u64> {
        self.ledger.next_release()
    }

    /// Out of line, as the input-queued model's step (see `Sim::step`).
    #[inline(never)]
    fn step(&mut self, net: &PacketNet, t: u64) -> Step {
        self.join();
        if let Some(s) = &mut self.storage {
            s.per_step.resize(t as usize, 0);
            s.per_step.push(s.held);
        }
        self.transmit(net, t);
        if let Some(s) = &mut self.storage {
            s.open = Some(t);
        }
        self.queued_sum += u128::from(self.queued + self.joining.len() as u64);
        // Every busy link sends, so a packet in flight always moves: no deadlock.
        Step::Continue
    }

    fn check_conservation(&self, _net: &PacketNet, t: u64) -> Result<(), OnlineError> {
        OutSim::check_conservation(self, t)
    }

    fn finish(mut self, outcome: Outcome, steps: u64) -> PacketReport {
        let congestion = self.crossings.iter().copied().max().unwrap_or(0);
        let (stored, stored_peak) = match self.storage.take() {
            None => (None, None),
            Some(mut s) => {
                // A run that ends without a further release (a deadlock; never on output
                // queues) still records its last step.
                if let Some(u) = s.open.take() {
                    s.record(u);
                }
                (Some(s.per_step), Some(s.peak_per_step))
            }
        };
        let mut report = self.ledger.report(
            outcome,
            steps,
            congestion,
            self.dilation,
            self.unit_hops,
            self.queued_sum,
            self.max_queue,
        );
        report.stored = stored;
        report.stored_peak = stored_peak;
        report
    }
}
