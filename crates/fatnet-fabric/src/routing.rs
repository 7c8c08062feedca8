//! Built-in routing: fresh linear forwarding tables for any [`Fabric`], computed the way
//! OpenSM's `minhop` and `updn` engines compute them.
//!
//! **Key design decision: one port selection, two hop tables.** OpenSM's unicast manager
//! (`osm_ucast_mgr.c`, `osm_switch.c: osm_switch_recommend_path`) routes every destination LID
//! at every switch by one rule: among the ports whose hop count to the destination's switch is
//! the switch's least, take the one that has carried the fewest routes so far (strictly fewer:
//! ties go to the lowest port number). The engines differ only in the hop counts that rule
//! reads:
//!
//! - [`Engine::MinHop`] (`osm_ucast_mgr_build_lid_matrices`): a port's hop count to switch `w`
//!   is one more than its peer switch's least hop count, i.e. breadth-first distances over the
//!   switch graph.
//! - [`Engine::UpDn`] (`osm_ucast_updn.c`): switches are ranked by breadth-first distance from
//!   the root switches; a step to a lower rank is "up", to a higher rank "down", between equal
//!   ranks "up" toward the smaller GUID, and between two roots always "up"
//!   (`updn_get_dir`). For each destination switch, `updn_bfs_by_node` walks outward from it,
//!   each switch keeping the direction it was (last) queued with, and never takes an "up" step
//!   after a "down" one; a port's hop count is set when that walk improves it. Roots are found
//!   as OpenSM's `updn_find_root_nodes_by_min_hop` does: a switch whose histogram of min-hop
//!   distances to the CAs (weighted by CAs per switch) has exactly one bar above 90 % of the
//!   CAs and exactly one above 5 %. **Where we differ:** when that finds no root, OpenSM gives
//!   up on `updn` and falls back to `minhop`; we take the switches of the highest level of
//!   [`Fabric::levels`] as roots instead, so a damaged fat-tree still gets up*/down* routes.
//!
//! Order (it decides the balancing): destinations are taken as OpenSM's `ucast_mgr_build_lfts`
//! takes them: first the CAs, switch by switch, switches ordered by their number of CA links
//! (most first; OpenSM's `qsort` is not stable, we break ties by node GUID, then node order),
//! each switch's CAs in port order; then the switches' own LIDs in GUID order. Only routes to
//! CAs count toward a port's load (OpenSM's default `port_profile_switch_nodes = FALSE`); a
//! switch routes its own LID to port 0 and a directly attached CA to its port. No LMC, no
//! `port_shifting`, no `scatter_ports`, no `guid_routing_order_file`, no existing tables
//! honoured (`opensm -o` on a fresh ibsim fabric has none). Nodes without a GUID are ordered by
//! node id where OpenSM orders by GUID. Deterministic: a function of the fabric alone.

use std::collections::VecDeque;
use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::FabricError;
use crate::fabric::{Fabric, Lft, NodeId, NodeKind};

/// A routing engine ([`route`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Engine {
    /// OpenSM's `minhop`: shortest paths, balanced by routes per port.
    MinHop,
    /// OpenSM's `updn`: shortest up*/down* paths from ranks, balanced the same way.
    UpDn,
}

impl Engine {
    /// The engine's name, as `opensm -R` spells it.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Engine::MinHop => "minhop",
            Engine::UpDn => "updn",
        }
    }
}

impl fmt::Display for Engine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An engine name that is not `minhop` or `updn`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown routing engine `{0}` (expected minhop or updn)")]
pub struct UnknownEngine(pub String);

impl FromStr for Engine {
    type Err = UnknownEngine;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "minhop" => Ok(Engine::MinHop),
            "updn" => Ok(Engine::UpDn),
            other => Err(UnknownEngine(other.to_owned())),
        }
    }
}

/// No hop count (OpenSM's `OSM_NO_PATH`).
const NO_HOPS: u8 = u8::MAX;

/// The switch graph: per switch its (port, peer switch) pairs in port order.
struct Graph {
    /// `adj[node]`: `(port, peer switch)`; empty for non-switches.
    adj: Vec<Vec<(u8, NodeId)>>,
    switches: Vec<NodeId>,
    /// An ordering id per node: its GUID, or its node index when it has none.
    id: Vec<(u64, u32)>,
}

impl Graph {
    fn new(f: &Fabric) -> Self {
        let mut adj = vec![Vec::new(); f.node_count()];
        let switches: Vec<NodeId> = f.switches().collect();
        for &s in &switches {
            adj[s.index()] = f
                .neighbours(s)
                .filter(|(_, e)| f.node(e.node).kind() == NodeKind::Switch)
                .map(|(p, e)| (p, e.node))
                .collect();
        }
        let id = f
            .nodes()
            .iter()
            .enumerate()
            .map(|(i, n)| (n.guid().unwrap_or(u64::MAX), i as u32))
            .collect();
        Graph { adj, switches, id }
    }

    /// Minhop distances from every switch to `w` over switches (`NO_HOPS` when unreachable).
    fn distances(&self, w: NodeId, dist: &mut [u8]) {
        dist.fill(NO_HOPS);
        dist[w.index()] = 0;
        let mut queue = VecDeque::from([w]);
        while let Some(u) = queue.pop_front() {
            let d = dist[u.index()].saturating_add(1);
            for &(_, v) in &self.adj[u.index()] {
                if dist[v.index()] == NO_HOPS && d != NO_HOPS {
                    dist[v.index()] = d;
                    queue.push_back(v);
                }
            }
        }
    }
}

/// Per destination switch: each switch's least hop count and each of its ports' hop count.
struct Hops {
    least: Vec<u8>,
    /// Indexed by [`Fabric::port_id`].
    port: Vec<u8>,
}

/// The up*/down* state of one fabric: ranks and ids.
struct UpDn {
    rank: Vec<u32>,
}

impl UpDn {
    fn new(f: &Fabric, g: &Graph) -> Self {
        let roots = auto_roots(f, g);
        let mut rank = vec![u32::MAX; f.node_count()];
        let mut queue = VecDeque::new();
        for &r in &roots {
            rank[r.index()] = 0;
            queue.push_back(r);
        }
        // `updn_subn_rank`: breadth-first from all roots.
        while let Some(u) = queue.pop_front() {
            for &(_, v) in &g.adj[u.index()] {
                if rank[v.index()] > rank[u.index()] + 1 {
                    rank[v.index()] = rank[u.index()] + 1;
                    queue.push_back(v);
                }
            }
        }
        UpDn { rank }
    }

    /// `updn_get_dir`: whether the step `cur → rem` goes up.
    fn up(&self, g: &Graph, cur: NodeId, rem: NodeId) -> bool {
        let (a, b) = (self.rank[cur.index()], self.rank[rem.index()]);
        if a == 0 && b == 0 {
            return true;
        }
        match a.cmp(&b) {
            std::cmp::Ordering::Less => false,
            std::cmp::Ordering::Greater => true,
            std::cmp::Ordering::Equal => g.id[cur.index()] > g.id[rem.index()],
        }
    }
}

/// OpenSM's `updn_find_root_nodes_by_min_hop`, or the top level of [`Fabric::levels`] when it
/// finds none.
fn auto_roots(f: &Fabric, g: &Graph) -> Vec<NodeId> {
    let mut cas_per_switch = vec![0u64; f.node_count()];
    let mut cas = 0u64;
    for c in f.cas() {
        for (_, e) in f.neighbours(c) {
            if f.node(e.node).kind() == NodeKind::Switch {
                cas_per_switch[e.node.index()] += 1;
                cas += 1;
            }
        }
    }
    let (thd1, thd2) = (cas as f64 * 0.9, cas as f64 * 0.05);
    let mut hist = vec![vec![0u64; 64]; f.node_count()];
    let mut dist = vec![NO_HOPS; f.node_count()];
    for &w in &g.switches {
        if cas_per_switch[w.index()] == 0 {
            continue;
        }
        g.distances(w, &mut dist);
        for &s in &g.switches {
            let d = dist[s.index()];
            if usize::from(d) < 64 {
                hist[s.index()][usize::from(d)] += cas_per_switch[w.index()];
            }
        }
    }
    let mut roots: Vec<NodeId> = g
        .switches
        .iter()
        .copied()
        .filter(|s| {
            let h = &hist[s.index()];
            h.iter().filter(|&&x| x as f64 > thd1).count() == 1
                && h.iter().filter(|&&x| x as f64 > thd2).count() == 1
        })
        .collect();
    if roots.is_empty() {
        let levels = f.levels();
        let top = g.switches.iter().filter_map(|s| levels[s.index()]).max();
        roots = g
            .switches
            .iter()
            .copied()
            .filter(|s| top.is_some() && levels[s.index()] == top)
            .collect();
    }
    roots
}

fn hops_minhop(f: &Fabric, g: &Graph, w: NodeId, h: &mut Hops) {
    g.distances(w, &mut h.least);
    h.port.fill(NO_HOPS);
    for &s in &g.switches {
        for &(p, v) in &g.adj[s.index()] {
            let d = h.least[v.index()];
            if d != NO_HOPS {
                h.port[f.port_id(s, p).0 as usize] = d.saturating_add(1);
            }
        }
    }
    h.port[f.port_id(w, 0).0 as usize] = 0;
}

/// `updn_bfs_by_node` from destination switch `w`.
fn hops_updn(f: &Fabric, g: &Graph, u: &UpDn, w: NodeId, h: &mut Hops) {
    h.least.fill(NO_HOPS);
    h.port.fill(NO_HOPS);
    h.least[w.index()] = 0;
    h.port[f.port_id(w, 0).0 as usize] = 0;
    let n = f.node_count();
    // Direction each switch was queued with (true = up), and whether it is queued.
    let mut dir_up = vec![true; n];
    let mut queued = vec![false; n];
    let mut queue = VecDeque::from([w]);
    while let Some(cur) = queue.pop_front() {
        queued[cur.index()] = false;
        let cur_up = dir_up[cur.index()];
        let here = h.least[cur.index()];
        for (p, e) in f.neighbours(cur) {
            let rem = e.node;
            if p == 0 || f.node(rem).kind() != NodeKind::Switch {
                continue;
            }
            let next_up = u.up(g, cur, rem);
            if !cur_up && next_up {
                continue;
            }
            let slot = f.port_id(rem, e.port).0 as usize;
            let hop = here.saturating_add(1);
            if hop < h.port[slot] {
                h.port[slot] = hop;
                if hop < h.least[rem.index()] {
                    h.least[rem.index()] = hop;
                }
                if !queued[rem.index()] {
                    dir_up[rem.index()] = next_up;
                    queued[rem.index()] = true;
                    queue.push_back(rem);
                }
            }
        }
    }
}

/// The fabric with fresh forwarding tables from `engine` for every switch (module
/// documentation). Every LID of the fabric is routed; a destination no path reaches gets
/// [`Lft::NO_ROUTE`].
///
/// # Errors
/// [`FabricError::TooLarge`] for a fabric with more than 254 hops between two switches (a
/// hop count must fit OpenSM's 8 bits; no real fabric comes close).
pub fn route(fabric: &Fabric, engine: Engine) -> Result<Fabric, FabricError> {
    let f = fabric;
    let g = Graph::new(f);
    let updn = (engine == Engine::UpDn).then(|| UpDn::new(f, &g));
    let lids = f.lid_bound();
    let mut tables: Vec<Vec<u8>> = vec![Vec::new(); f.node_count()];
    for &s in &g.switches {
        tables[s.index()] = vec![Lft::NO_ROUTE; lids];
    }
    let mut load = vec![0u32; f.port_id_count()];
    let mut h = Hops {
        least: vec![NO_HOPS; f.node_count()],
        port: vec![NO_HOPS; f.port_id_count()],
    };
    let mut current: Option<NodeId> = None;
    let mut compute = |w: NodeId, h: &mut Hops| -> Result<(), FabricError> {
        if current == Some(w) {
            return Ok(());
        }
        current = Some(w);
        match &updn {
            None => hops_minhop(f, &g, w, h),
            Some(u) => hops_updn(f, &g, u, w, h),
        }
        if h.least.contains(&(NO_HOPS - 1)) {
            return Err(FabricError::TooLarge {
                what: "hops between two switches",
                count: u64::from(NO_HOPS - 1),
                limit: u64::from(NO_HOPS - 2),
            });
        }
        Ok(())
    };
    // The CAs' destination order: switches by CA links (most first), ties by GUID.
    let ca_links = |s: NodeId| {
        f.neighbours(s)
            .filter(|(_, e)| f.node(e.node).kind() == NodeKind::Ca)
            .count()
    };
    let mut by_load = g.switches.clone();
    by_load.sort_by_key(|&s| (std::cmp::Reverse(ca_links(s)), g.id[s.index()]));
    for &w in &by_load {
        for (wp, e) in f.neighbours(w) {
            if f.node(e.node).kind() != NodeKind::Ca {
                continue;
            }
            let Some(lid) = f.node(e.node).port(e.port).and_then(|p| p.lid) else {
                continue;
            };
            compute(w, &mut h)?;
            for &s in &g.switches {
                let port = if s == w {
                    Some(wp)
                } else {
                    choose(f, &g, s, &h, &load)
                };
                if let Some(p) = port {
                    tables[s.index()][usize::from(lid)] = p;
                    load[f.port_id(s, p).0 as usize] += 1;
                }
            }
        }
    }
    let mut by_guid = g.switches.clone();
    by_guid.sort_by_key(|&s| g.id[s.index()]);
    for &w in &by_guid {
        let Some(lid) = f.node(w).port(0).and_then(|p| p.lid) else {
            continue;
        };
        compute(w, &mut h)?;
        for &s in &g.switches {
            let port = if s == w {
                Some(0)
            } else {
                choose(f, &g, s, &h, &load)
            };
            if let Some(p) = port {
                tables[s.index()][usize::from(lid)] = p;
            }
        }
    }
    let mut out = fabric.clone();
    for &s in &g.switches {
        out.set_lft(s, Lft::new(std::mem::take(&mut tables[s.index()])));
    }
    Ok(out)
}

/// `osm_switch_recommend_path` without LMC: the least-loaded least-hop port, lowest number
/// on ties.
fn choose(f: &Fabric, g: &Graph, s: NodeId, h: &Hops, load: &[u32]) -> Option<u8> {
    let least = h.least[s.index()];
    if least == NO_HOPS {
        return None;
    }
    let mut best: Option<(u32, u8)> = None;
    for &(p, _) in &g.adj[s.index()] {
        let id = f.port_id(s, p).0 as usize;
        if h.port[id] != least {
            continue;
        }
        if best.is_none_or(|(c, _)| load[id] < c) {
            best = Some((load[id], p));
        }
    }
    best.map(|(_, p)| p)
}

/// `fabric` with the forwarding tables of `routed`, the same fabric as a subnet manager saw
/// and routed it (written by [`crate::export::fabric_net`], read back from OpenSM's dumps with
/// OpenSM's own LIDs). Nodes match by GUID ([`crate::export::node_guid`]) and ports by number;
/// each of `fabric`'s LIDs takes the entry of the same port's LID in `routed`. A switch or
/// destination `routed` does not have (left out because it had no cable) gets no route.
///
/// # Errors
/// [`FabricError::Unknown`] (file "routed fabric") when `routed` has a switch of another GUID
/// than every switch of `fabric`: it is not this fabric.
pub fn adopt_tables(fabric: &Fabric, routed: &Fabric) -> Result<Fabric, FabricError> {
    use crate::export::node_guid;
    let twin = |id: NodeId| routed.node_by_guid(node_guid(fabric, id));
    for s in routed.switches() {
        let g = routed.node(s).guid();
        if g.and_then(|g| fabric.node_by_guid(g)).is_none()
            && !fabric
                .nodes()
                .iter()
                .enumerate()
                .any(|(i, _)| Some(node_guid(fabric, NodeId(i as u32))) == g)
        {
            return Err(FabricError::Unknown {
                file: "routed fabric".to_owned(),
                line: 0,
                what: "switch GUID",
                name: routed.node(s).name().to_owned(),
            });
        }
    }
    // Each of our LIDs, as the routed fabric numbers the same port.
    let lids = fabric.lid_bound();
    let mut their_lid = vec![None::<u16>; lids];
    for (lid, slot) in their_lid.iter_mut().enumerate() {
        let Some(e) = fabric.endpoint_of_lid(lid as u16) else {
            continue;
        };
        *slot = twin(e.node)
            .and_then(|t| routed.node(t).port(e.port))
            .and_then(|p| p.lid);
    }
    let mut out = fabric.clone();
    for s in fabric.switches() {
        let mut e = vec![Lft::NO_ROUTE; lids];
        if let Some(table) = twin(s).and_then(|t| routed.lft(t)) {
            for (lid, their) in their_lid.iter().enumerate() {
                if let Some(p) = their.and_then(|l| table.get(l)) {
                    e[lid] = p;
                }
            }
        }
        out.set_lft(s, Lft::new(e));
    }
    Ok(out)
}
