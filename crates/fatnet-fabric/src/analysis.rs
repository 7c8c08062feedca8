//! Judging a fabric's routing from its traced routes: per-link route sets, Yuan's Lemma 1, the
//! exact worst-case permutation contention, cyclic shifts and the load of a given traffic.
//!
//! **Key design decision: one compressed table of routes per directed link, built once.**
//! [`LinkRoutes::build`] traces every ordered pair of distinct CAs of
//! [`Fabric::ca_order`] and stores, per output port ([`Fabric::port_id`]), the routes that
//! leave through it, as CSR arrays: an offset per port and one `u32` route id
//! (`src · N + dst`, CA-order positions) per (route, hop). The 1,944-host fabric
//! `is4_3l_1944n` has 3.78 M routes of 4–6 hops: 22.4 M ids, 90 MB, no per-link containers.
//! Every question below is a sweep over that table:
//!
//! - **Lemma 1** (Yuan, *On nonblocking folded-Clos networks*): a single-path routing is
//!   nonblocking, i.e. routes every (partial) permutation without two of its pairs on one directed
//!   link, iff no link carries two routes with distinct sources and distinct destinations. Those
//!   two routes are themselves a two-pair permutation that collides: the witness ([`Lemma1`]). The
//!   statement needs nothing of the folded Clos, so it applies to any fabric with single-path
//!   tables.
//! - **Worst-case contention** of a link = the most pairs of one permutation routed over it =
//!   a maximum matching between the sources and the destinations of its routes (a permutation
//!   is a set of pairs with distinct sources and distinct destinations). [`WorstCase`] holds
//!   it per link, the worst link and a permutation attaining it.
//! - **Cyclic shifts** `i → i + k mod N`: the load of a link under shift `k` is the number of
//!   its routes with `dst − src ≡ k`, counted for all `k` in one sweep ([`ShiftLoad`]).
//!
//! Routes that loop, dead-end or arrive elsewhere are counted in the [`TraceSummary`] (with
//! examples) and load no link. The matching is ours rather than `fatnet-offline`'s (petgraph's
//! general-graph Gabow, `O(V³)` per link): links of a 3-level fabric carry up to ~35 k routes
//! between hundreds of sources and destinations, where an augmenting-path bipartite matching
//! from the smaller side after a greedy start takes microseconds. Its answers agree with
//! `fatnet_offline::clos::worst_contention` on generated folded Clos networks
//! ([`crate::from_folded_clos`], tested).

use fatnet_offline::clos::LinkPairs;

use crate::FabricError;
use crate::fabric::{Endpoint, Fabric, NodeId, PortId};
use crate::trace::{RouteFault, TraceSummary};

/// The largest CA count [`LinkRoutes`] supports: route ids `src · N + dst` are `u32`.
pub const MAX_ANALYSED_CAS: u32 = 65_535;

/// A directed link named by its two ends: the packet leaves `from` and enters `to`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DirectedLink {
    /// The output port.
    pub from: Endpoint,
    /// The input port at the other end.
    pub to: Endpoint,
}

impl Fabric {
    /// The output port with dense id `id`: the inverse of [`Fabric::port_id`]. `None` for an
    /// id beyond [`Fabric::port_id_count`].
    #[must_use]
    pub fn port_of(&self, id: PortId) -> Option<Endpoint> {
        if id.0 as usize >= self.port_id_count() {
            return None;
        }
        // The last node whose first port id is at most `id` (binary search on the bases).
        let (mut lo, mut hi) = (0usize, self.node_count());
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if self.port_id(NodeId(mid as u32), 0).0 <= id.0 {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        let node = NodeId(lo as u32);
        let port = id.0 - self.port_id(node, 0).0;
        Some(Endpoint {
            node,
            port: u8::try_from(port).ok()?,
        })
    }

    /// The directed link leaving through output port `id`, `None` when the port has no cable.
    #[must_use]
    pub fn directed_link(&self, id: PortId) -> Option<DirectedLink> {
        let from = self.port_of(id)?;
        let to = self.peer(from.node, from.port)?;
        Some(DirectedLink { from, to })
    }

    /// `NAME[port] -> NAME[port]` for the link leaving through `id` (`NAME[port]` alone for a
    /// port without a cable).
    #[must_use]
    pub fn link_label(&self, id: PortId) -> String {
        match (self.port_of(id), self.directed_link(id)) {
            (_, Some(l)) => format!(
                "{}[{}] -> {}[{}]",
                self.node(l.from.node).name(),
                l.from.port,
                self.node(l.to.node).name(),
                l.to.port
            ),
            (Some(e), None) => format!("{}[{}]", self.node(e.node).name(), e.port),
            (None, None) => format!("port id {}", id.0),
        }
    }

    /// Traces `pairs` (CA-order positions; a pair may repeat, `src == dst` uses no link) and
    /// counts the routes over every directed link: the load of this traffic under the fabric's
    /// forwarding tables. The largest count is the congestion of that routing
    /// ([`TrafficLoad::congestion`]), not λ: λ(M) is over channel bundles and bounds every
    /// routing (`fatnet-load`).
    ///
    /// # Errors
    /// [`FabricError::CaOutOfRange`] for a position beyond the CA order.
    pub fn traffic_load(
        &self,
        pairs: &[(u32, u32)],
        hottest: usize,
    ) -> Result<TrafficLoad, FabricError> {
        let order = self.ca_order();
        let cas = order.len() as u32;
        let mut load = vec![0u32; self.port_id_count()];
        let mut out = TrafficLoad {
            messages: pairs.len() as u64,
            ..TrafficLoad::default()
        };
        let mut hops = Vec::new();
        for &(s, d) in pairs {
            for index in [s, d] {
                if index >= cas {
                    return Err(FabricError::CaOutOfRange { index, cas });
                }
            }
            if s == d {
                out.delivered += 1;
                continue;
            }
            let (src, dst) = (order[s as usize], order[d as usize]);
            hops.clear();
            let r = match self.node(dst).lid() {
                Some(lid) => self.walk_lid(src, dst, lid, &mut |h| {
                    hops.push(self.port_id(h.node, h.port));
                }),
                None => Err(RouteFault::NoDestinationLid),
            };
            match r {
                Ok(_) => {
                    out.delivered += 1;
                    for p in &hops {
                        load[p.0 as usize] += 1;
                    }
                }
                Err(f) => {
                    if out.faults.len() < TraceSummary::EXAMPLES {
                        out.faults.push((s, d, f));
                    }
                }
            }
        }
        let mut hot: Vec<(PortId, u32)> = load
            .iter()
            .enumerate()
            .filter(|&(_, &l)| l > 0)
            .map(|(i, &l)| (PortId(i as u32), l))
            .collect();
        // Heaviest first, ties in port id order: deterministic.
        hot.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        out.congestion = hot.first().map_or(0, |h| h.1);
        out.loaded_links = hot.len() as u64;
        hot.truncate(hottest);
        out.hottest = hot;
        out.per_link = load;
        Ok(out)
    }
}

/// The load of one traffic ([`Fabric::traffic_load`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TrafficLoad {
    /// Pairs given.
    pub messages: u64,
    /// Pairs that arrived (self pairs included).
    pub delivered: u64,
    /// The first faulty pairs (at most [`TraceSummary::EXAMPLES`]): source and destination
    /// positions and the fault.
    pub faults: Vec<(u32, u32, RouteFault)>,
    /// Routes per output port, indexed by [`PortId`].
    pub per_link: Vec<u32>,
    /// The congestion: the most routes on one directed link, under the fabric's forwarding
    /// tables.
    pub congestion: u32,
    /// Links carrying at least one route.
    pub loaded_links: u64,
    /// The hottest links, heaviest first, ties in port id order.
    pub hottest: Vec<(PortId, u32)>,
}

/// Every delivered route, filed under each directed link it crosses (CSR arrays).
#[derive(Debug, Clone)]
pub struct LinkRoutes {
    cas: u32,
    start: Vec<usize>,
    routes: Vec<u32>,
    summary: TraceSummary,
}

impl LinkRoutes {
    /// Traces every ordered pair of distinct CAs of [`Fabric::ca_order`] (destinations in CA
    /// order, then sources) and files each delivered route under the links it crosses. Two
    /// passes: count, then fill; memory one `u32` per (route, hop).
    ///
    /// # Errors
    /// [`FabricError::TooLarge`] for more than [`MAX_ANALYSED_CAS`] CAs.
    pub fn build(fabric: &Fabric) -> Result<Self, FabricError> {
        let order = fabric.ca_order();
        if order.len() > MAX_ANALYSED_CAS as usize {
            return Err(FabricError::TooLarge {
                what: "CAs to analyse",
                count: order.len() as u64,
                limit: u64::from(MAX_ANALYSED_CAS),
            });
        }
        let n = order.len() as u32;
        let ports = fabric.port_id_count();
        let mut count = vec![0usize; ports + 1];
        let mut summary = TraceSummary::default();
        let mut delivered = vec![0u64; (order.len() * order.len()).div_ceil(64)];
        fabric.walk_routes(|w| {
            if w.result.is_ok() {
                for h in w.hops {
                    count[fabric.port_id(h.node, h.port).0 as usize + 1] += 1;
                }
                let bit = w.d as usize * order.len() + w.s as usize;
                delivered[bit / 64] |= 1 << (bit % 64);
            }
            summary.record(w.src, w.dst, w.result);
        });
        for i in 0..ports {
            count[i + 1] += count[i];
        }
        let start = count;
        let mut fill = start.clone();
        let mut routes = vec![0u32; start[ports]];
        for (d, &dst) in order.iter().enumerate() {
            let Some(lid) = fabric.node(dst).lid() else {
                continue;
            };
            for (s, &src) in order.iter().enumerate() {
                let bit = d * order.len() + s;
                if s == d || delivered[bit / 64] & (1 << (bit % 64)) == 0 {
                    continue;
                }
                let id = s as u32 * n + d as u32;
                // Delivered in the first pass, so delivered again: the tables are the same.
                let _ = fabric.walk_lid(src, dst, lid, &mut |h| {
                    let p = fabric.port_id(h.node, h.port).0 as usize;
                    routes[fill[p]] = id;
                    fill[p] += 1;
                });
            }
        }
        Ok(Self {
            cas: n,
            start,
            routes,
            summary,
        })
    }

    /// The number of CAs `N` (routes are between CA-order positions `0..N`).
    #[must_use]
    pub fn ca_count(&self) -> u32 {
        self.cas
    }

    /// The outcome of tracing: delivered, looping, dead-ending and misdirected routes.
    #[must_use]
    pub fn summary(&self) -> &TraceSummary {
        &self.summary
    }

    /// The number of port ids (links are indexed `0..link_slots()`, as [`Fabric::port_id`]).
    #[must_use]
    pub fn link_slots(&self) -> usize {
        self.start.len() - 1
    }

    /// The total number of (route, link) incidences stored.
    #[must_use]
    pub fn incidences(&self) -> usize {
        self.routes.len()
    }

    /// The routes leaving through port `link`, as (source, destination) CA-order positions,
    /// in tracing order. Empty for an id out of range.
    pub fn routes_on(&self, link: PortId) -> impl ExactSizeIterator<Item = (u32, u32)> + '_ {
        let i = link.0 as usize;
        let ids = if i < self.link_slots() {
            &self.routes[self.start[i]..self.start[i + 1]]
        } else {
            &[]
        };
        let n = self.cas;
        ids.iter().map(move |&id| (id / n, id % n))
    }

    /// Two routes over `link` with distinct sources and distinct destinations (a two-pair
    /// permutation that collides there), if it has them: the link violates Lemma 1.
    ///
    /// The witness construction of [`LinkPairs`] (the proof of Yuan's Lemma 1), shared with the
    /// checks of generated folded Clos networks.
    #[must_use]
    pub fn lemma1_witness(&self, link: PortId) -> Option<[(u32, u32); 2]> {
        let mut pairs = LinkPairs::default();
        for (s, d) in self.routes_on(link) {
            pairs.add(s, d);
            if pairs.is_decided() {
                break;
            }
        }
        pairs.witness()
    }

    /// Yuan's Lemma 1 on every link.
    #[must_use]
    pub fn lemma1(&self) -> Lemma1 {
        let mut blocking = Vec::new();
        let mut witness = None;
        let mut max_link_routes = 0;
        for l in 0..self.link_slots() {
            let link = PortId(l as u32);
            max_link_routes = max_link_routes.max(self.start[l + 1] - self.start[l]);
            if let Some(w) = self.lemma1_witness(link) {
                blocking.push(link);
                witness.get_or_insert(Lemma1Witness { link, pairs: w });
            }
        }
        Lemma1 {
            blocking_links: blocking,
            witness,
            max_link_routes: max_link_routes as u64,
        }
    }

    /// The exact worst-case permutation contention of every link (a maximum matching between
    /// the sources and the destinations of its routes), the worst link (first in port id
    /// order) and a permutation attaining it.
    #[must_use]
    pub fn worst_case(&self) -> WorstCase {
        let mut m = Matcher::new(self.cas);
        let mut per_link = vec![0u32; self.link_slots()];
        let mut worst: Option<PortId> = None;
        for l in 0..self.link_slots() {
            let c = m.max_matching(self.routes_on(PortId(l as u32)), false);
            per_link[l] = c;
            if c > 0 && worst.is_none_or(|w| per_link[w.0 as usize] < c) {
                worst = Some(PortId(l as u32));
            }
        }
        let (contention, permutation) = match worst {
            None => (0, Vec::new()),
            Some(w) => {
                let c = m.max_matching(self.routes_on(w), true);
                let mut perm = std::mem::take(&mut m.pairs);
                perm.sort_unstable();
                (c, perm)
            }
        };
        WorstCase {
            per_link,
            contention,
            link: worst,
            permutation,
        }
    }

    /// The congestion (most routes on one link) of every cyclic shift `i → i + k mod N`, `k = 1..N` (entry
    /// `k − 1`), with the first link (port id order) attaining it.
    #[must_use]
    pub fn shifts(&self) -> Vec<ShiftLoad> {
        let n = self.cas as usize;
        let mut best = vec![
            ShiftLoad {
                shift: 0,
                congestion: 0,
                link: None
            };
            n.saturating_sub(1)
        ];
        for (k, b) in best.iter_mut().enumerate() {
            b.shift = k as u32 + 1;
        }
        let mut count = vec![0u32; n];
        let mut touched = Vec::new();
        for l in 0..self.link_slots() {
            for &id in &self.routes[self.start[l]..self.start[l + 1]] {
                let (s, d) = ((id / self.cas) as usize, (id % self.cas) as usize);
                let k = (d + n - s) % n;
                if count[k] == 0 {
                    touched.push(k);
                }
                count[k] += 1;
            }
            for &k in &touched {
                let b = &mut best[k - 1];
                if count[k] > b.congestion {
                    b.congestion = count[k];
                    b.link = Some(PortId(l as u32));
                }
                count[k] = 0;
            }
            touched.clear();
        }
        best
    }
}

/// A link violating Lemma 1 and its two colliding routes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lemma1Witness {
    /// The link (output port).
    pub link: PortId,
    /// Two routes over it, (source, destination) CA-order positions, with distinct sources and
    /// distinct destinations: a two-pair permutation with contention 2 there.
    pub pairs: [(u32, u32); 2],
}

/// Yuan's Lemma 1 over all links ([`LinkRoutes::lemma1`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lemma1 {
    /// The links carrying two routes with distinct sources and distinct destinations, in port
    /// id order.
    pub blocking_links: Vec<PortId>,
    /// The witness on the first blocking link; `None` iff the routing is nonblocking.
    pub witness: Option<Lemma1Witness>,
    /// The most routes any link carries.
    pub max_link_routes: u64,
}

impl Lemma1 {
    /// Whether every permutation is routed without two pairs on one link (of the delivered
    /// routes).
    #[must_use]
    pub fn is_nonblocking(&self) -> bool {
        self.witness.is_none()
    }
}

/// The exact worst-case permutation contention ([`LinkRoutes::worst_case`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorstCase {
    /// Per output port: the most pairs of one permutation routed over it.
    pub per_link: Vec<u32>,
    /// The maximum over links; at most 1 iff the routing is nonblocking.
    pub contention: u32,
    /// The first link (port id order) attaining it; `None` when no route uses a link.
    pub link: Option<PortId>,
    /// A permutation (CA-order positions, sorted) putting `contention` pairs on `link`.
    pub permutation: Vec<(u32, u32)>,
}

/// The worst link of one cyclic shift ([`LinkRoutes::shifts`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShiftLoad {
    /// `k` of `i → i + k mod N`.
    pub shift: u32,
    /// The shift's congestion: the most routes on one link (1: congestion-free).
    pub congestion: u32,
    /// The first link attaining it.
    pub link: Option<PortId>,
}

/// Everything [`analyze`] computes.
#[derive(Debug, Clone)]
pub struct Analysis {
    /// The per-link route sets.
    pub routes: LinkRoutes,
    /// Lemma 1.
    pub lemma1: Lemma1,
    /// The worst-case permutation contention.
    pub worst: WorstCase,
    /// Every cyclic shift.
    pub shifts: Vec<ShiftLoad>,
}

/// Traces all routes and computes Lemma 1, the worst case on every link and every shift.
///
/// # Errors
/// As [`LinkRoutes::build`].
pub fn analyze(fabric: &Fabric) -> Result<Analysis, FabricError> {
    let routes = LinkRoutes::build(fabric)?;
    let lemma1 = routes.lemma1();
    let worst = routes.worst_case();
    let shifts = routes.shifts();
    Ok(Analysis {
        routes,
        lemma1,
        worst,
        shifts,
    })
}

/// Counts how many of `pairs` (CA-order positions) cross `link`, by tracing each one: the
/// independent check of a [`WorstCase`] or [`Lemma1Witness`] certificate.
#[must_use]
pub fn count_on_link(fabric: &Fabric, pairs: &[(u32, u32)], link: PortId) -> u32 {
    fabric
        .traffic_load(pairs, 0)
        .ok()
        .and_then(|t| t.per_link.get(link.0 as usize).copied())
        .unwrap_or(0)
}

const NONE: u32 = u32::MAX;

/// Bipartite maximum matching between the sources and destinations of one link's routes,
/// with scratch arrays reused across links.
#[derive(Debug)]
struct Matcher {
    src_local: Vec<u32>,
    dst_local: Vec<u32>,
    src_ids: Vec<u32>,
    dst_ids: Vec<u32>,
    edges: Vec<(u32, u32)>,
    adj_start: Vec<u32>,
    adj: Vec<u32>,
    match_left: Vec<u32>,
    match_right: Vec<u32>,
    seen: Vec<u32>,
    stamp: u32,
    pairs: Vec<(u32, u32)>,
}

impl Matcher {
    fn new(cas: u32) -> Self {
        Self {
            src_local: vec![NONE; cas as usize],
            dst_local: vec![NONE; cas as usize],
            src_ids: Vec::new(),
            dst_ids: Vec::new(),
            edges: Vec::new(),
            adj_start: Vec::new(),
            adj: Vec::new(),
            match_left: Vec::new(),
            match_right: Vec::new(),
            seen: Vec::new(),
            stamp: 0,
            pairs: Vec::new(),
        }
    }

    /// The size of a maximum matching; with `keep`, its pairs in `self.pairs`.
    fn max_matching(&mut self, routes: impl Iterator<Item = (u32, u32)>, keep: bool) -> u32 {
        self.edges.clear();
        self.pairs.clear();
        for (s, d) in routes {
            let sl = &mut self.src_local[s as usize];
            if *sl == NONE {
                *sl = self.src_ids.len() as u32;
                self.src_ids.push(s);
            }
            let dl = &mut self.dst_local[d as usize];
            if *dl == NONE {
                *dl = self.dst_ids.len() as u32;
                self.dst_ids.push(d);
            }
            self.edges.push((*sl, *dl));
        }
        let size = self.solve(keep);
        for &s in &self.src_ids {
            self.src_local[s as usize] = NONE;
        }
        for &d in &self.dst_ids {
            self.dst_local[d as usize] = NONE;
        }
        self.src_ids.clear();
        self.dst_ids.clear();
        size
    }

    fn solve(&mut self, keep: bool) -> u32 {
        let (ns, nd) = (self.src_ids.len(), self.dst_ids.len());
        if ns.min(nd) <= 1 {
            if keep && let Some(&(s, d)) = self.edges.first() {
                self.pairs
                    .push((self.src_ids[s as usize], self.dst_ids[d as usize]));
            }
            return ns.min(nd) as u32;
        }
        // Left = the smaller side: at most that many augmentations.
        let flip = nd < ns;
        let (nl, nr) = if flip { (nd, ns) } else { (ns, nd) };
        self.adj_start.clear();
        self.adj_start.resize(nl + 1, 0);
        for &(s, d) in &self.edges {
            let u = if flip { d } else { s };
            self.adj_start[u as usize + 1] += 1;
        }
        for i in 0..nl {
            self.adj_start[i + 1] += self.adj_start[i];
        }
        self.adj.clear();
        self.adj.resize(self.edges.len(), 0);
        let mut fill: Vec<u32> = self.adj_start[..nl].to_vec();
        for &(s, d) in &self.edges {
            let (u, v) = if flip { (d, s) } else { (s, d) };
            self.adj[fill[u as usize] as usize] = v;
            fill[u as usize] += 1;
        }
        self.match_left.clear();
        self.match_left.resize(nl, NONE);
        self.match_right.clear();
        self.match_right.resize(nr, NONE);
        // Greedy start.
        let mut size = 0u32;
        for u in 0..nl {
            for e in self.adj_start[u]..self.adj_start[u + 1] {
                let v = self.adj[e as usize] as usize;
                if self.match_right[v] == NONE {
                    self.match_right[v] = u as u32;
                    self.match_left[u] = v as u32;
                    size += 1;
                    break;
                }
            }
        }
        // Augmenting paths (Kuhn), phase by phase: within a phase the visited marks are
        // shared by all roots, valid as long as no augmentation succeeded since; a phase
        // without one proves the matching maximum.
        self.seen.clear();
        self.seen.resize(nr, 0);
        self.stamp = 0;
        while (size as usize) < nl {
            self.stamp += 1;
            let mut grew = false;
            for u in 0..nl {
                if self.match_left[u] == NONE && self.augment(u as u32) {
                    size += 1;
                    grew = true;
                    if size as usize == nl {
                        break;
                    }
                }
            }
            if !grew {
                break;
            }
        }
        if keep {
            for (u, &v) in self.match_left.iter().enumerate() {
                if v != NONE {
                    let (s, d) = if flip { (v, u as u32) } else { (u as u32, v) };
                    self.pairs
                        .push((self.src_ids[s as usize], self.dst_ids[d as usize]));
                }
            }
        }
        size
    }

    /// Looks for an augmenting path from free left vertex `root` (iterative depth-first
    /// search); flips it and returns `true` when found.
    fn augment(&mut self, root: u32) -> bool {
        // Stack of (left vertex, next edge index).
        let mut stack: Vec<(u32, u32)> = vec![(root, self.adj_start[root as usize])];
        // The right vertex through which each stacked left vertex was entered.
        let mut via: Vec<u32> = Vec::new();
        while let Some(&mut (u, ref mut e)) = stack.last_mut() {
            let end = self.adj_start[u as usize + 1];
            let mut next = None;
            while *e < end {
                let v = self.adj[*e as usize];
                *e += 1;
                if self.seen[v as usize] != self.stamp {
                    self.seen[v as usize] = self.stamp;
                    next = Some(v);
                    break;
                }
            }
            match next {
                None => {
                    stack.pop();
                    via.pop();
                }
                Some(v) => {
                    let w = self.match_right[v as usize];
                    if w == NONE {
                        // Flip the path: stack[i] takes via[i] (and the last takes v).
                        via.push(v);
                        for (i, &(u, _)) in stack.iter().enumerate() {
                            let v = via[i];
                            self.match_left[u as usize] = v;
                            self.match_right[v as usize] = u;
                        }
                        return true;
                    }
                    via.push(v);
                    stack.push((w, self.adj_start[w as usize]));
                }
            }
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn brute(edges: &[(u32, u32)]) -> u32 {
        // Largest subset with distinct sources and destinations, by exhaustion.
        let k = edges.len();
        let mut best = 0;
        for mask in 0u32..(1 << k) {
            let chosen: Vec<_> = (0..k)
                .filter(|i| mask >> i & 1 == 1)
                .map(|i| edges[i])
                .collect();
            let ok = chosen
                .iter()
                .enumerate()
                .all(|(i, a)| chosen[i + 1..].iter().all(|b| a.0 != b.0 && a.1 != b.1));
            if ok {
                best = best.max(chosen.len() as u32);
            }
        }
        best
    }

    #[test]
    fn matching_equals_exhaustion_on_small_graphs() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_pcg::Pcg64::seed_from_u64(7);
        let mut m = Matcher::new(6);
        for _ in 0..400 {
            let k = rng.random_range(0..=12);
            let mut edges: Vec<(u32, u32)> = (0..k)
                .map(|_| (rng.random_range(0..6), rng.random_range(0..6)))
                .collect();
            edges.sort_unstable();
            edges.dedup();
            let size = m.max_matching(edges.iter().copied(), true);
            assert_eq!(size, brute(&edges), "{edges:?}");
            // The kept pairs are edges with distinct sources and destinations.
            assert_eq!(m.pairs.len() as u32, size);
            for (i, p) in m.pairs.iter().enumerate() {
                assert!(edges.contains(p));
                assert!(m.pairs[i + 1..].iter().all(|q| q.0 != p.0 && q.1 != p.1));
            }
        }
    }

    #[test]
    fn augmenting_paths_beat_greedy() {
        // Greedy matches 0-0 and leaves 1 alone; the augmenting path 1-0-0-1 fixes it.
        let mut m = Matcher::new(3);
        assert_eq!(
            m.max_matching([(0, 0), (0, 1), (1, 0)].into_iter(), true),
            2
        );
        let mut p = m.pairs.clone();
        p.sort_unstable();
        assert_eq!(p, vec![(0, 1), (1, 0)]);
    }
}
