//! The step loop of the packet engine (semantics in the module documentation of `packet`).

use std::collections::VecDeque;

use fatnet_topology::ChannelId;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

use super::net::{NONE, PacketNet};
use super::{
    FlowControl, Injection, Outcome, PacketConfig, PacketError, PacketReport, PathPolicy,
    QueueCapacity, ScanPolicy, SinkModel,
};

/// A unit in a queue: a flit (or a whole store-and-forward packet) of a worm.
#[derive(Clone, Copy, Debug)]
struct Unit {
    worm: u32,
    /// Position in its worm, 0 = head.
    seq: u16,
    /// Index in the worm's route of the next link to cross.
    hop: u16,
}

/// Routes `injections` on `net` under `config`; everything random comes from `Pcg64` seeded
/// with `seed`, in a fixed order (priorities, then fixed paths, then the steps).
///
/// # Errors
///
/// [`PacketError::BadParameter`] for invalid parameters, [`PacketError::BadProcessor`] for an
/// injection outside the network, [`PacketError::Unroutable`] when a destination cannot be
/// reached, and (a bug) [`PacketError::Conservation`].
pub fn simulate(
    net: &PacketNet,
    injections: &[Injection],
    config: &PacketConfig,
    seed: u64,
) -> Result<PacketReport, PacketError> {
    config.validate()?;
    let processors = net.processors();
    for (index, m) in injections.iter().enumerate() {
        if m.src >= processors || m.dst >= processors {
            return Err(PacketError::BadProcessor {
                index,
                src: m.src,
                dst: m.dst,
                processors,
            });
        }
        if m.src != m.dst {
            net.check_reachable(m.src, m.dst)?;
        }
    }
    let per_message: u64 = match config.flow {
        FlowControl::Split => u64::from(config.flits),
        _ => 1,
    };
    let worms = injections.len() as u64 * per_message;
    if worms >= u64::from(NONE) {
        return Err(PacketError::TooLarge {
            what: "worms",
            value: worms,
            max: u64::from(NONE) - 1,
        });
    }
    let mut sim = Sim::new(net, injections, config, seed, per_message as u32);
    sim.run(net)
}

struct Sim<'a> {
    config: &'a PacketConfig,
    injections: &'a [Injection],
    rng: Pcg64,
    /// Units per worm: `L` for wormhole, 1 otherwise.
    unit_len: u32,
    /// Worms per message: `L` for split, 1 otherwise.
    per_message: u32,
    q: usize,
    stride: usize,
    links: u32,

    // Per worm.
    route: Vec<u32>,
    key: Vec<u64>,
    // Per message.
    remaining: Vec<u32>,
    latencies: Vec<u64>,
    release_order: Vec<u32>,
    next_release: usize,

    // Per link.
    queues: Vec<VecDeque<Unit>>,
    owner: Vec<u32>,
    used: Vec<bool>,
    used_list: Vec<u32>,
    crossings: Vec<u32>,
    eject_busy: Vec<u64>,
    // Per processor.
    inj: Vec<VecDeque<u32>>,
    inj_seq: Vec<u16>,
    /// Inputs (links, then injection queues) waiting on each link: woken when it pops or
    /// is released.
    waiters: Vec<Vec<u32>>,
    /// Per input: whether its front unit must be examined (empty inputs are awake).
    awake: Vec<bool>,
    // Per node: awake non-empty inputs.
    node_busy: Vec<u32>,
    active: Vec<u64>,

    // Scratch.
    moves: Vec<(u32, u32)>,
    cands: Vec<u32>,
    order: Vec<(u64, u32, u32)>,
    path_channels: Vec<ChannelId>,
    path_links: Vec<u32>,

    // Counters.
    released_units: u64,
    arrived_units: u64,
    queued: u64,
    pending_inj: u64,
    delivered: u64,
    last: u64,
    latency_sum: u128,
    dilation: u32,
    unit_hops: u64,
    queued_sum: u128,
    max_queue: u32,
}

impl<'a> Sim<'a> {
    fn new(
        net: &PacketNet,
        injections: &'a [Injection],
        config: &'a PacketConfig,
        seed: u64,
        per_message: u32,
    ) -> Self {
        let mut rng = Pcg64::seed_from_u64(seed);
        let links = net.links();
        let unit_len = match config.flow {
            FlowControl::Wormhole => config.flits,
            _ => 1,
        };
        let q = match config.queue {
            QueueCapacity::Bounded(q) => q as usize,
            QueueCapacity::Unbounded => usize::MAX,
        };
        let stride = net.max_hops().max(1) as usize;
        let worms = injections.len() * per_message as usize;
        let max_hops = u64::from(net.max_hops());

        // Scan keys, smallest first: priorities drawn in message order.
        let message_key = |rng: &mut Pcg64, m: &Injection| -> u64 {
            match config.scan {
                ScanPolicy::FarthestFirst => max_hops - u64::from(net.distance(m.src, m.dst)),
                ScanPolicy::OldestFirst => m.release,
                ScanPolicy::RandomPriority { range } => u64::from(rng.random_range(1..=range)),
                ScanPolicy::RoundRobin | ScanPolicy::FixedOrder => 0,
            }
        };
        let mut key = Vec::with_capacity(worms);
        for m in injections {
            let k = message_key(&mut rng, m);
            key.extend(std::iter::repeat_n(k, per_message as usize));
        }

        let mut sim = Sim {
            config,
            injections,
            rng,
            unit_len,
            per_message,
            q,
            stride,
            links,
            route: vec![NONE; worms * stride],
            key,
            remaining: vec![per_message; injections.len()],
            latencies: Vec::new(),
            release_order: Vec::new(),
            next_release: 0,
            queues: (0..links)
                .map(|_| VecDeque::with_capacity(q.min(4)))
                .collect(),
            owner: vec![NONE; links as usize],
            used: vec![false; links as usize],
            used_list: Vec::new(),
            crossings: vec![0; links as usize],
            eject_busy: vec![0; (links as usize).div_ceil(64)],
            inj: vec![VecDeque::new(); net.processors() as usize],
            inj_seq: vec![0; net.processors() as usize],
            waiters: vec![Vec::new(); links as usize],
            awake: vec![true; links as usize + net.processors() as usize],
            node_busy: vec![0; net.nodes() as usize],
            active: vec![0; (net.nodes() as usize).div_ceil(64)],
            moves: Vec::new(),
            cands: Vec::new(),
            order: Vec::new(),
            path_channels: Vec::new(),
            path_links: Vec::new(),
            released_units: 0,
            arrived_units: 0,
            queued: 0,
            pending_inj: 0,
            delivered: 0,
            last: 0,
            latency_sum: 0,
            dilation: 0,
            unit_hops: 0,
            queued_sum: 0,
            max_queue: 0,
        };
        if config.record_latencies {
            sim.latencies = vec![u64::MAX; injections.len()];
        }
        // Fixed paths, drawn in worm order.
        if config.path == PathPolicy::Fixed {
            for (i, m) in injections.iter().enumerate() {
                if m.src == m.dst {
                    continue;
                }
                for j in 0..per_message as usize {
                    let w = i * per_message as usize + j;
                    net.random_path(
                        m.src,
                        m.dst,
                        &mut sim.rng,
                        &mut sim.path_channels,
                        &mut sim.path_links,
                    );
                    sim.route[w * stride..w * stride + sim.path_links.len()]
                        .copy_from_slice(&sim.path_links);
                }
            }
        }
        let mut order: Vec<u32> = (0..injections.len() as u32).collect();
        order.sort_by_key(|&i| injections[i as usize].release);
        sim.release_order = order;
        sim
    }

    #[inline]
    fn set_active(&mut self, v: u32) {
        self.active[v as usize / 64] |= 1 << (v % 64);
    }

    #[inline]
    fn clear_active(&mut self, v: u32) {
        self.active[v as usize / 64] &= !(1 << (v % 64));
    }

    #[inline]
    fn input_nonempty(&self, inp: u32) -> bool {
        if inp < self.links {
            !self.queues[inp as usize].is_empty()
        } else {
            !self.inj[(inp - self.links) as usize].is_empty()
        }
    }

    #[inline]
    fn front(&self, inp: u32) -> Unit {
        if inp < self.links {
            *self.queues[inp as usize]
                .front()
                .expect("scanned inputs are non-empty")
        } else {
            let p = (inp - self.links) as usize;
            Unit {
                worm: *self.inj[p].front().expect("scanned inputs are non-empty"),
                seq: self.inj_seq[p],
                hop: 0,
            }
        }
    }

    /// Whether a head may take link `e` this step.
    #[inline]
    fn free_for_head(&self, e: u32) -> bool {
        let e = e as usize;
        !self.used[e] && self.owner[e] == NONE && self.queues[e].len() < self.q
    }

    /// A message is delivered at step `t`.
    fn deliver_message(&mut self, m: usize, t: u64) {
        self.delivered += 1;
        self.last = self.last.max(t);
        let step = self.config.step_length();
        let latency = (t - self.injections[m].release) * step;
        self.latency_sum += u128::from(latency);
        if self.config.record_latencies {
            self.latencies[m] = latency;
        }
    }

    /// Releases the messages due at step `t`.
    fn release(&mut self, net: &PacketNet, t: u64) {
        while self.next_release < self.release_order.len() {
            let m = self.release_order[self.next_release] as usize;
            let inj = self.injections[m];
            if inj.release > t {
                break;
            }
            self.next_release += 1;
            if inj.src == inj.dst {
                self.deliver_message(m, t.max(inj.release));
                continue;
            }
            let p = inj.src as usize;
            let v = net.injection_node[p];
            if self.inj[p].is_empty() {
                self.node_busy[v as usize] += 1;
                self.set_active(v);
            }
            for j in 0..self.per_message {
                self.inj[p].push_back(m as u32 * self.per_message + j);
            }
            let units = u64::from(self.per_message) * u64::from(self.unit_len);
            self.released_units += units;
            self.pending_inj += units;
        }
    }

    /// Whether link `e` stays closed to a head of worm `w` until it pops or is released.
    #[inline]
    fn closed_for_head(&self, e: u32) -> bool {
        let e = e as usize;
        self.owner[e] != NONE || self.queues[e].len() >= self.q
    }

    /// Puts input `inp` of node `v` to sleep until one of `links` pops or is released.
    fn sleep(&mut self, v: u32, inp: u32, links: &[u32]) {
        self.awake[inp as usize] = false;
        self.node_busy[v as usize] -= 1;
        if self.node_busy[v as usize] == 0 {
            self.clear_active(v);
        }
        for &e in links {
            self.waiters[e as usize].push(inp);
        }
    }

    /// Wakes the inputs waiting on link `e`.
    fn wake(&mut self, net: &PacketNet, e: usize) {
        if self.waiters[e].is_empty() {
            return;
        }
        let waiters = std::mem::take(&mut self.waiters[e]);
        for &inp in &waiters {
            if !self.awake[inp as usize] {
                self.awake[inp as usize] = true;
                let v = self.input_node(net, inp);
                self.node_busy[v as usize] += 1;
                self.set_active(v);
            }
        }
        self.waiters[e] = waiters;
        self.waiters[e].clear();
    }

    #[inline]
    fn input_node(&self, net: &PacketNet, inp: u32) -> u32 {
        if inp < self.links {
            net.link_head[inp as usize]
        } else {
            net.injection_node[(inp - self.links) as usize]
        }
    }

    /// Tries to move the front unit of input `inp` of node `v`. A unit that cannot move until
    /// some link pops or is released (full queues, owned links: nothing else can open them)
    /// goes to sleep on those links instead of being re-examined every step; a unit blocked
    /// only by this step's traffic, or by an unlucky RP draw, stays awake. Sleeping changes
    /// which random numbers are drawn, not the law of the run.
    fn try_move(&mut self, net: &PacketNet, v: u32, inp: u32) {
        let u = self.front(inp);
        let w = u.worm as usize;
        let slot = w * self.stride + u.hop as usize;
        let e = if u.seq == 0 {
            let mut cands = std::mem::take(&mut self.cands);
            match self.config.path {
                PathPolicy::Fixed => {
                    cands.clear();
                    cands.push(self.route[slot]);
                }
                PathPolicy::Random | PathPolicy::Greedy | PathPolicy::DimensionOrder => {
                    let dst = self.injections[w / self.per_message as usize].dst;
                    net.next_hops(v, dst, &mut cands);
                    if self.config.path == PathPolicy::DimensionOrder {
                        cands.truncate(1);
                    }
                }
            }
            let e = if cands.iter().all(|&e| self.closed_for_head(e)) {
                self.sleep(v, inp, &cands);
                NONE
            } else if self.config.path == PathPolicy::Greedy {
                cands
                    .iter()
                    .copied()
                    .find(|&e| self.free_for_head(e))
                    .unwrap_or(NONE)
            } else {
                let k = if cands.len() > 1 && self.config.path == PathPolicy::Random {
                    self.rng.random_range(0..cands.len())
                } else {
                    0
                };
                let e = cands[k];
                if self.free_for_head(e) { e } else { NONE }
            };
            self.cands = cands;
            if e == NONE {
                return;
            }
            self.route[slot] = e;
            if self.unit_len > 1 {
                self.owner[e as usize] = u.worm;
            }
            e
        } else {
            let e = self.route[slot];
            if self.queues[e as usize].len() >= self.q {
                self.sleep(v, inp, &[e]);
                return;
            }
            if self.used[e as usize] {
                return;
            }
            e
        };
        self.used[e as usize] = true;
        self.used_list.push(e);
        self.moves.push((inp, e));
    }

    /// Every active node scans its inputs once.
    fn decide(&mut self, net: &PacketNet) {
        let mut order = std::mem::take(&mut self.order);
        for wi in 0..self.active.len() {
            let mut bits = self.active[wi];
            while bits != 0 {
                let v = (wi * 64) as u32 + bits.trailing_zeros();
                bits &= bits - 1;
                let ins = net.inputs_of(v);
                order.clear();
                for (i, &inp) in ins.iter().enumerate() {
                    if self.awake[inp as usize] && self.input_nonempty(inp) {
                        order.push((0, 0, i as u32));
                    }
                }
                if order.len() >= 2 && self.config.scan != ScanPolicy::FixedOrder {
                    let n = ins.len() as u32;
                    let start = self.rng.random_range(0..n);
                    let keyed = !matches!(self.config.scan, ScanPolicy::RoundRobin);
                    for entry in order.iter_mut() {
                        entry.1 = (entry.2 + n - start) % n;
                        if keyed {
                            entry.0 = self.key[self.front(ins[entry.2 as usize]).worm as usize];
                        }
                    }
                    order.sort_unstable();
                }
                for &(_, _, i) in order.iter() {
                    self.try_move(net, v, ins[i as usize]);
                }
            }
        }
        self.order = order;
    }

    /// Terminals drain one unit from every ejection queue that was non-empty at the start of
    /// the step; returns how many.
    fn drain(&mut self, net: &PacketNet) -> u64 {
        let mut drained = 0;
        for wi in 0..self.eject_busy.len() {
            let mut bits = self.eject_busy[wi];
            while bits != 0 {
                let e = wi * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                self.queues[e].pop_front();
                drained += 1;
                self.wake(net, e);
                if self.queues[e].is_empty() {
                    self.eject_busy[wi] &= !(1 << (e % 64));
                }
            }
        }
        drained
    }

    /// Applies the decided moves at step `t`.
    fn apply(&mut self, net: &PacketNet, t: u64) {
        let moves = std::mem::take(&mut self.moves);
        for &(inp, e) in &moves {
            // Pop.
            let u = if inp < self.links {
                let q = &mut self.queues[inp as usize];
                let u = q.pop_front().expect("decided moves have a unit");
                self.queued -= 1;
                if q.is_empty() {
                    let v = net.link_head[inp as usize];
                    self.node_busy[v as usize] -= 1;
                    if self.node_busy[v as usize] == 0 {
                        self.clear_active(v);
                    }
                }
                self.wake(net, inp as usize);
                u
            } else {
                let p = (inp - self.links) as usize;
                let worm = *self.inj[p].front().expect("decided moves have a unit");
                let seq = self.inj_seq[p];
                self.pending_inj -= 1;
                if u32::from(seq) + 1 == self.unit_len {
                    self.inj[p].pop_front();
                    self.inj_seq[p] = 0;
                    if self.inj[p].is_empty() {
                        let v = net.injection_node[p];
                        self.node_busy[v as usize] -= 1;
                        if self.node_busy[v as usize] == 0 {
                            self.clear_active(v);
                        }
                    }
                } else {
                    self.inj_seq[p] = seq + 1;
                }
                Unit { worm, seq, hop: 0 }
            };
            // Cross.
            let ei = e as usize;
            self.unit_hops += 1;
            if u.seq == 0 {
                self.crossings[ei] += 1;
            }
            let tail = u32::from(u.seq) + 1 == self.unit_len;
            if tail && self.unit_len > 1 {
                self.owner[ei] = NONE;
                self.wake(net, ei);
            }
            let m = u.worm as usize / self.per_message as usize;
            let dst = self.injections[m].dst;
            let head = net.link_head[ei];
            let next = Unit {
                hop: u.hop + 1,
                ..u
            };
            if head == net.ejection_node[dst as usize] {
                self.arrived_units += 1;
                if net.ejection[ei] && self.config.sink == SinkModel::Queue {
                    self.queues[ei].push_back(next);
                    self.eject_busy[ei / 64] |= 1 << (ei % 64);
                }
                if tail {
                    self.dilation = self.dilation.max(u32::from(next.hop));
                    self.remaining[m] -= 1;
                    if self.remaining[m] == 0 {
                        self.deliver_message(m, t);
                    }
                }
            } else {
                let q = &mut self.queues[ei];
                q.push_back(next);
                self.queued += 1;
                self.max_queue = self.max_queue.max(q.len() as u32);
                if q.len() == 1 {
                    self.node_busy[head as usize] += 1;
                    self.set_active(head);
                }
            }
        }
        for &e in &self.used_list {
            self.used[e as usize] = false;
        }
        self.used_list.clear();
        self.moves = moves;
        self.moves.clear();
    }

    fn check_conservation(&self, net: &PacketNet, t: u64) -> Result<(), PacketError> {
        let mut queued = 0u64;
        for (e, q) in self.queues.iter().enumerate() {
            if q.len() > self.q {
                return Err(PacketError::Conservation {
                    step: t,
                    detail: format!("link {e} holds {} units, capacity {}", q.len(), self.q),
                });
            }
        }
        for (e, q) in self.queues.iter().enumerate() {
            if !net.ejection[e] {
                queued += q.len() as u64;
            }
        }
        let mut pending = 0u64;
        for (p, worms) in self.inj.iter().enumerate() {
            pending += worms.len() as u64 * u64::from(self.unit_len) - u64::from(self.inj_seq[p]);
        }
        if queued != self.queued || pending != self.pending_inj {
            return Err(PacketError::Conservation {
                step: t,
                detail: format!(
                    "counted {queued} queued and {pending} waiting units, tracked {} and {}",
                    self.queued, self.pending_inj
                ),
            });
        }
        if self.released_units != self.arrived_units + queued + pending {
            return Err(PacketError::Conservation {
                step: t,
                detail: format!(
                    "released {} units, arrived {} + queued {queued} + waiting {pending}",
                    self.released_units, self.arrived_units
                ),
            });
        }
        Ok(())
    }

    fn run(&mut self, net: &PacketNet) -> Result<PacketReport, PacketError> {
        let total = self.injections.len() as u64;
        let mut t = 0u64;
        let mut steps = 0u64;
        let outcome = loop {
            self.release(net, t);
            if self.delivered == total {
                break Outcome::Delivered;
            }
            if t >= self.config.max_steps {
                break Outcome::StepLimit;
            }
            // Skip idle stretches before the next release.
            if self.queued == 0
                && self.pending_inj == 0
                && self.eject_busy.iter().all(|&b| b == 0)
                && self.next_release < self.release_order.len()
            {
                let next = self.injections[self.release_order[self.next_release] as usize].release;
                if next > t {
                    t = next.min(self.config.max_steps);
                    continue;
                }
            }
            self.decide(net);
            let drained = self.drain(net);
            let moved = !self.moves.is_empty();
            self.apply(net, t);
            self.queued_sum += u128::from(self.queued);
            steps = t + 1;
            if self.config.check_conservation {
                self.check_conservation(net, t)?;
            }
            // Nothing moved, so nothing was woken: if every unit sleeps, none ever will move.
            if !moved
                && drained == 0
                && self.queued + self.pending_inj > 0
                && self.active.iter().all(|&b| b == 0)
            {
                break Outcome::Deadlock { step: t };
            }
            t += 1;
        };
        let congestion = self.crossings.iter().copied().max().unwrap_or(0);
        let step = self.config.step_length();
        Ok(PacketReport {
            outcome,
            messages: total,
            delivered: self.delivered,
            steps,
            latency: if self.delivered > 0 {
                self.last * step
            } else {
                0
            },
            mean_latency: if self.delivered > 0 {
                self.latency_sum as f64 / self.delivered as f64
            } else {
                0.0
            },
            congestion,
            dilation: self.dilation,
            unit_hops: self.unit_hops,
            mean_queued: if steps > 0 {
                self.queued_sum as f64 / steps as f64
            } else {
                0.0
            },
            max_queue: self.max_queue,
            latencies: self
                .config
                .record_latencies
                .then(|| std::mem::take(&mut self.latencies)),
        })
    }
}
