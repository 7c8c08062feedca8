//! Credit loops: the channel dependency graph of the traced routes, its cycles, and a witness.
//!
//! **Definition (Dally and Seitz, *Deadlock-free message routing in multiprocessor
//! interconnection networks*, 1987).** A routing is deadlock-free if its *channel dependency
//! graph* is acyclic: the vertices are the channels, and there is an arc from channel `a` to
//! channel `b` when some route uses `b` right after `a` (a packet holding a buffer of `a` waits
//! for a credit of `b`). In a credit-based, lossless network such as InfiniBand a cycle is a
//! *credit loop*: the routes along it can fill each other's buffers and stop for good.
//!
//! **Key design decision: the channels are virtual channels, one per (directed link, VL), as
//! ibdm defines them.** ibutils' `ibdm/CredLoops.cpp` (`ibdmchk`'s credit-loop analysis)
//! traces every CA-to-CA route through the forwarding tables and links
//! `port.channels[VL]` to `next_port.channels[nextVL]`, with `nextVL = SL2VL[in][out][SL]`,
//! then looks for a cycle by depth-first search. A change of VL along a route therefore does
//! *not* remove the dependency, it links two lanes; without VL information every route is on
//! one lane (VL 0), and the graph is the plain one of Dally and Seitz. OpenSM's deadlock-free
//! engines build the same graph per layer and keep every route on one lane end to end
//! (DFSSSP, `osm_ucast_dfsssp.c`: one CDG per VL, a cycle's weakest arc's routes move to the
//! next VL; LASH, `osm_ucast_lash.c`: a route joins the first layer whose CDG stays acyclic),
//! so under their SL-to-VL tables this graph is their per-VL graphs side by side, and a cycle
//! found here lies in one VL. The counts are reported per VL ([`LaneCount`]), plus the
//! dependencies that cross lanes.
//!
//! Choices, each where the references differ:
//! - **Routes**: every ordered pair of distinct CAs of [`Fabric::ca_order`] (ibdm: all CA-to-CA
//!   pairs; DFSSSP also adds the routes to switches' LIDs, which carry only management
//!   traffic). A route that loops or dead-ends contributes the dependencies of the hops it made
//!   (a forwarding loop is itself a cycle of dependencies); it is counted in
//!   [`CreditLoops::faulty_routes`].
//! - **CA links are included**: the injection link (CA → switch) and the ejection link
//!   (switch → CA) are channels (ibdm includes the injection link; DFSSSP skips both, and
//!   OpenSM's LASH documentation notes that no layers are needed on them). They cannot be on a
//!   cycle: no route arrives on an injection link and no route leaves an ejection link.
//!
//! **Finding the cycles.** Tracing records each dependency once, with the first route (in the
//! tracing order: destinations, then sources, in CA order) that creates it, in a table indexed
//! by the switch's (input port, output port) pair: port ids are dense, so there is no hashing.
//! Tarjan's algorithm (petgraph's `tarjan_scc`) finds the strongly connected components; every
//! component with more than one channel holds a cycle. The witness is a shortest cycle of the
//! first such component (by lowest channel id): a breadth-first search from each of its
//! channels (the first 64), restricted to the component. [`CreditLoop`] lists its channels in
//! order and, for each dependency, a route that takes the next channel right after this one.

pub mod lanes;

use petgraph::algo::tarjan_scc;
use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::visit::EdgeRef;

use crate::FabricError;
use crate::analysis::MAX_ANALYSED_CAS;
use crate::fabric::{Fabric, PortId};

pub use lanes::{PathSl, Sl2VlTable, VirtualLanes, parse_path_records, parse_sl2vl};

/// A virtual channel: a directed link (its output port) and a virtual lane.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Channel {
    /// The link, by its output port ([`Fabric::link_label`] names it).
    pub link: PortId,
    /// The virtual lane (0 without VL information).
    pub vl: u8,
}

/// A credit loop: a cycle of the channel dependency graph, with a route per dependency.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CreditLoop {
    /// The channels of the cycle, in order; the last depends on the first.
    pub channels: Vec<Channel>,
    /// `routes[i]` (source, destination as CA-order positions) uses `channels[i + 1]`
    /// (`channels[0]` for the last) right after `channels[i]`.
    pub routes: Vec<(u32, u32)>,
}

/// The channel dependency graph of one virtual lane.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LaneCount {
    /// The lane.
    pub vl: u8,
    /// Channels of this lane that some route uses.
    pub channels: u64,
    /// Dependencies between two channels of this lane.
    pub dependencies: u64,
}

/// The credit-loop verdict of a fabric's routing ([`credit_loops`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CreditLoops {
    /// Routes traced (ordered pairs of distinct CAs of the CA order).
    pub routes: u64,
    /// Routes that did not arrive (loop, dead end, wrong target); their hops count.
    pub faulty_routes: u64,
    /// Virtual lanes in the graph (1 without VL information).
    pub lanes: u8,
    /// Vertices of the dependency graph: the virtual channels some route uses.
    pub channels: u64,
    /// Arcs: the distinct dependencies.
    pub dependencies: u64,
    /// Dependencies from one lane to another (a route changing VL).
    pub cross_lane_dependencies: u64,
    /// Per lane, the lanes some route uses, in VL order.
    pub per_lane: Vec<LaneCount>,
    /// Strongly connected components with a cycle.
    pub cyclic_components: u64,
    /// Channels in those components.
    pub cyclic_channels: u64,
    /// A shortest cycle of the first cyclic component; `None` iff the routing is free of
    /// credit loops.
    pub witness: Option<CreditLoop>,
}

impl CreditLoops {
    /// Whether the channel dependency graph is acyclic: no credit loop, no deadlock.
    #[must_use]
    pub fn is_free(&self) -> bool {
        self.witness.is_none()
    }

    /// The one-line verdict of a graph of all routes on one virtual lane, with link labels
    /// from `fabric` (`credit loops (all routes on one VL): none, ...`), as `fatnet fabric
    /// check` and the fabric report state it.
    #[must_use]
    pub fn one_lane_line(&self, fabric: &Fabric) -> String {
        match &self.witness {
            None => format!(
                "credit loops (all routes on one VL): none, the channel dependency graph of {} \
                 channels and {} dependencies is acyclic",
                self.channels, self.dependencies
            ),
            Some(w) => format!(
                "credit loops (all routes on one VL): yes, {} channels in {} cyclic components; \
                 e.g. {} (fabric credit-loops shows the routes)",
                self.cyclic_channels,
                self.cyclic_components,
                w.channels
                    .iter()
                    .map(|ch| fabric.link_label(ch.link))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }
}

const NONE: u32 = u32::MAX;

/// One recorded dependency and the first route that created it; `next` chains the
/// dependencies of one (switch, input port, output port) slot.
#[derive(Debug, Clone, Copy)]
struct Dep {
    from: u32,
    to: u32,
    route: u32,
    next: u32,
}

/// Traces every route of the CA order and checks its channel dependency graph for cycles, per
/// virtual lane when `lanes` (built for this fabric) gives the SL-to-VL tables and the routes'
/// SLs, on one lane otherwise. Definitions in the module documentation.
///
/// # Errors
/// [`FabricError::TooLarge`] for more than [`MAX_ANALYSED_CAS`] CAs, or more virtual
/// channels than `u32` ids.
pub fn credit_loops(
    fabric: &Fabric,
    lanes: Option<&VirtualLanes>,
) -> Result<CreditLoops, FabricError> {
    let order = fabric.ca_order();
    if order.len() > MAX_ANALYSED_CAS as usize {
        return Err(FabricError::TooLarge {
            what: "CAs to analyse",
            count: order.len() as u64,
            limit: u64::from(MAX_ANALYSED_CAS),
        });
    }
    let nv = u32::from(lanes.map_or(1, VirtualLanes::lanes));
    let vcs = fabric.port_id_count() as u64 * u64::from(nv);
    if vcs >= u64::from(NONE) {
        return Err(FabricError::TooLarge {
            what: "virtual channels (ports times lanes)",
            count: vcs,
            limit: u64::from(NONE) - 1,
        });
    }
    // One slot per (switch, input port, output port).
    let mut slot_base = vec![(0usize, 0usize); fabric.node_count()];
    let mut slots = 0usize;
    for s in fabric.switches() {
        let stride = usize::from(fabric.node(s).port_count()) + 1;
        slot_base[s.index()] = (slots, stride);
        slots += stride * stride;
    }
    let mut head = vec![NONE; slots];
    let mut deps: Vec<Dep> = Vec::new();
    let n = order.len() as u32;
    let mut routes = 0u64;
    let mut faulty = 0u64;
    fabric.walk_routes(|w| {
        routes += 1;
        faulty += u64::from(w.result.is_err());
        let route = w.s * n + w.d;
        let sl = lanes.map_or(0, |l| l.sl(fabric, w.src, w.dst).unwrap_or(0));
        // The channel just used and the port it enters the next node by.
        let mut prev: Option<(u32, u8)> = None;
        for &h in w.hops {
            let vl = match (lanes, prev) {
                (None, _) => 0,
                (Some(l), None) => l.ca_vl(h.node, sl),
                (Some(l), Some((_, input))) => l.switch_vl(h.node, input, h.port, sl).unwrap_or(0),
            };
            let vc = fabric.port_id(h.node, h.port).0 * nv + u32::from(vl.min(nv as u8 - 1));
            if let Some((from, input)) = prev {
                let (base, stride) = slot_base[h.node.index()];
                let slot = base + usize::from(input) * stride + usize::from(h.port);
                let mut at = head[slot];
                while at != NONE && (deps[at as usize].from, deps[at as usize].to) != (from, vc) {
                    at = deps[at as usize].next;
                }
                if at == NONE {
                    deps.push(Dep {
                        from,
                        to: vc,
                        route,
                        next: head[slot],
                    });
                    head[slot] = deps.len() as u32 - 1;
                }
            }
            // The walk lists only hops whose port has a cable.
            let input = fabric.peer(h.node, h.port).map_or(0, |e| e.port);
            prev = Some((vc, input));
        }
    });
    Ok(find_loops(deps, nv, vcs as usize, routes, faulty, n))
}

/// The graph of the recorded dependencies, its cyclic components and a witness.
fn find_loops(
    mut deps: Vec<Dep>,
    nv: u32,
    vcs: usize,
    routes: u64,
    faulty_routes: u64,
    n: u32,
) -> CreditLoops {
    deps.sort_unstable_by_key(|d| (d.from, d.to));
    // Dense indices for the channels in use, in channel id order.
    let mut index = vec![NONE; vcs];
    for d in &deps {
        index[d.from as usize] = 0;
        index[d.to as usize] = 0;
    }
    let mut ids: Vec<u32> = Vec::new();
    for (vc, slot) in index.iter_mut().enumerate() {
        if *slot == 0 {
            *slot = ids.len() as u32;
            ids.push(vc as u32);
        }
    }
    let mut graph: DiGraph<(), u32, u32> = DiGraph::with_capacity(ids.len(), deps.len());
    for _ in &ids {
        graph.add_node(());
    }
    let mut per_lane = vec![
        LaneCount {
            vl: 0,
            channels: 0,
            dependencies: 0
        };
        nv as usize
    ];
    for (vl, c) in per_lane.iter_mut().enumerate() {
        c.vl = vl as u8;
    }
    for &vc in &ids {
        per_lane[(vc % nv) as usize].channels += 1;
    }
    let mut cross = 0u64;
    for d in &deps {
        graph.add_edge(
            NodeIndex::new(index[d.from as usize] as usize),
            NodeIndex::new(index[d.to as usize] as usize),
            d.route,
        );
        if d.from % nv == d.to % nv {
            per_lane[(d.from % nv) as usize].dependencies += 1;
        } else {
            cross += 1;
        }
    }
    per_lane.retain(|c| c.channels > 0);
    let mut cyclic: Vec<Vec<NodeIndex<u32>>> = tarjan_scc(&graph)
        .into_iter()
        .filter(|c| c.len() > 1 || graph.contains_edge(c[0], c[0]))
        .collect();
    for c in &mut cyclic {
        c.sort_unstable();
    }
    cyclic.sort_unstable_by_key(|c| c[0]);
    let witness = cyclic.first().map(|c| {
        let cycle = shortest_cycle(&graph, c);
        let channel = |i: NodeIndex<u32>| {
            let vc = ids[i.index()];
            Channel {
                link: PortId(vc / nv),
                vl: (vc % nv) as u8,
            }
        };
        CreditLoop {
            channels: cycle.iter().map(|&(v, _)| channel(v)).collect(),
            routes: cycle.iter().map(|&(_, r)| (r / n, r % n)).collect(),
        }
    });
    CreditLoops {
        routes,
        faulty_routes,
        lanes: nv as u8,
        channels: ids.len() as u64,
        dependencies: deps.len() as u64,
        cross_lane_dependencies: cross,
        per_lane,
        cyclic_components: cyclic.len() as u64,
        cyclic_channels: cyclic.iter().map(|c| c.len() as u64).sum(),
        witness,
    }
}

/// A shortest cycle through some of the first 64 vertices of the strongly connected
/// `component` (sorted), as (vertex, route of the arc to the next vertex), starting at its
/// lowest possible vertex.
fn shortest_cycle(
    graph: &DiGraph<(), u32, u32>,
    component: &[NodeIndex<u32>],
) -> Vec<(NodeIndex<u32>, u32)> {
    let mut member = vec![false; graph.node_count()];
    for &v in component {
        member[v.index()] = true;
    }
    // Per vertex: the BFS stamp that reached it and (parent, route of the arc from it).
    let mut seen = vec![usize::MAX; graph.node_count()];
    let mut parent = vec![(NodeIndex::<u32>::end(), 0u32); graph.node_count()];
    let mut best: Option<Vec<(NodeIndex<u32>, u32)>> = None;
    let mut queue = std::collections::VecDeque::new();
    for (stamp, &start) in component.iter().take(64).enumerate() {
        queue.clear();
        seen[start.index()] = stamp;
        queue.push_back((start, 0usize));
        let mut closing: Option<(NodeIndex<u32>, u32, usize)> = None;
        'bfs: while let Some((u, depth)) = queue.pop_front() {
            if best.as_ref().is_some_and(|b| depth + 1 >= b.len()) {
                break;
            }
            for e in graph.edges(u) {
                let w = e.target();
                if w == start {
                    closing = Some((u, *e.weight(), depth + 1));
                    break 'bfs;
                }
                if member[w.index()] && seen[w.index()] != stamp {
                    seen[w.index()] = stamp;
                    parent[w.index()] = (u, *e.weight());
                    queue.push_back((w, depth + 1));
                }
            }
        }
        if let Some((last, route, len)) = closing
            && best.as_ref().is_none_or(|b| len < b.len())
        {
            // Walk back from `last` to `start`.
            let mut cycle = vec![(last, route)];
            let mut v = last;
            while v != start {
                let (p, r) = parent[v.index()];
                cycle.push((p, r));
                v = p;
            }
            cycle.reverse();
            best = Some(cycle);
        }
    }
    best.unwrap_or_default()
}
