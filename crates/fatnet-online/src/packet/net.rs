//! A topology compiled for the packet engine: links (one per wire), the inputs every node
//! scans, which links end at a terminal's sink, and where heads go next.

use std::any::Any;
use std::fmt;
use std::sync::{Arc, OnceLock};

use fatnet_topology::{
    AnyTopology, Butterfly, ButterflyFatTree, ChannelId, Clos, FatTree, FoldedClos, Hypercube,
    KAryNTree, NodeKind, Processor, Topology,
};
use rand::Rng;
use serde::{Deserialize, Serialize};

use super::hops::{Run, TreeHops};
use super::table::{DistTable, UNREACHABLE};
use super::{OnlineError, PathPolicy};

/// The built-in topologies with next hops by index arithmetic.
enum Arithmetic {
    Bft(ButterflyFatTree),
    Hypercube(u32),
    Tree(TreeHops),
}

/// Marker for "no such node / no processor".
pub(crate) const NONE: u32 = u32::MAX;

/// Most links (wires) and most nodes the engine simulates: its state is about 46 bytes per
/// link on the k-ary n-trees and up to about 80 on networks that store their links' ends and
/// wide masks, so this keeps a run under about 3 GB.
pub const MAX_LINKS: u64 = 1 << 25;

/// Largest distance table (`rows × nodes` entries, two bytes each: 256 MiB) that a network
/// without arithmetic next hops gets. Every built-in topology has arithmetic next hops (see
/// [`RouteSource::ShortestPaths`]); a table is built for the others only, such as a traced
/// fabric. Its rows are keyed by distinct *row targets*, not by processor: the processors
/// whose ejection node has a single in-neighbour (a terminal behind one switch, such as an
/// InfiniBand CA) share the row of that neighbour, so a fabric needs about one row per leaf
/// switch.
pub const MAX_TABLE_ENTRIES: u64 = 1 << 27;

/// Most ordered processor pairs whose routes [`RouteSource::TopologyPaths`] checks at
/// construction (one walk of each route, no memory: about 20 s on a fabric at the limit).
pub const MAX_ROUTE_PAIRS: u64 = 1 << 27;

/// Refuses a network of `processors` whose [`RouteSource::TopologyPaths`] routes are too many
/// to check ([`MAX_ROUTE_PAIRS`]): callers that must trace a fabric's routes before building
/// the network call it first, so that the refusal comes before the tracing.
///
/// # Errors
///
/// [`OnlineError::TooLarge`] with the number of ordered pairs.
pub fn check_route_pairs(processors: u32) -> Result<(), OnlineError> {
    let p = u64::from(processors);
    let pairs = p * p.saturating_sub(1);
    if pairs > MAX_ROUTE_PAIRS {
        return Err(OnlineError::TooLarge {
            what: "ordered processor pairs whose routes are checked (processors × (processors − 1))",
            value: pairs,
            max: MAX_ROUTE_PAIRS,
        });
    }
    Ok(())
}

/// Where a [`PacketNet`] takes the routes of its heads from.
///
/// **Key design decision: the caller says, the engine does not guess.** A topology's numbered
/// paths ([`Topology::path_into`]) are shortest paths on every built-in topology, but a
/// traced InfiniBand fabric (`fatnet_fabric::FabricTopology`) has one path per pair, the route
/// its forwarding tables give, which need not be a shortest one. Nothing in the [`Topology`]
/// trait tells the two apart (`path_count == 1` holds on the binary fat-tree too), so the
/// constructor [`PacketNet::with_routes`] takes the choice.
///
/// The source-routed policies ([`PathPolicy::Fixed`], [`PathPolicy::Standard`]) take the
/// topology's numbered paths under either source; the route source decides what the
/// adaptive policies ([`PathPolicy::Random`], [`PathPolicy::Greedy`],
/// [`PathPolicy::DimensionOrder`]) choose among.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RouteSource {
    /// The shortest paths of the network's graph: at every node a head's candidates are all
    /// links on a shortest path to its destination, in link-id order. They come from index
    /// arithmetic, with no memory per processor, on every built-in topology (the butterfly
    /// fat-tree, the hypercube, the k-ary n-tree, the folded and unfolded Clos networks, the
    /// binary fat-tree with any capacity profile, the butterfly), and from a BFS distance
    /// table elsewhere (a traced fabric): one row of `nodes` entries per distinct row target
    /// (the ejection node, or its single in-neighbour), at most [`MAX_TABLE_ENTRIES`] in
    /// all. Both give the same candidates in the same order as a per-processor table.
    /// [`PacketNet::new`] uses this.
    #[default]
    ShortestPaths,
    /// The topology's own numbered paths are the only routes (a fabric's forwarding tables):
    /// every head follows a path fixed at its source — a uniformly random numbered path under
    /// [`PathPolicy::Fixed`], the standard path ([`Topology::standard_path_index`]) under
    /// every other policy, which then has a single candidate at every hop and draws no random
    /// number for it. No table is built: construction walks the standard path of every
    /// ordered pair once (time `O(processors² · hops)`, at most [`MAX_ROUTE_PAIRS`] pairs,
    /// no memory) to check that it leads, link by link, from the source's injection node to
    /// the destination's ejection node, and to find the longest route.
    TopologyPaths,
}

impl RouteSource {
    /// A short name: `shortest` or `topology`.
    pub fn name(self) -> &'static str {
        match self {
            RouteSource::ShortestPaths => "shortest",
            RouteSource::TopologyPaths => "topology",
        }
    }
}

/// How the next hops of a head are found.
#[derive(Debug, Clone)]
enum Hops {
    /// Greenberg–Oh's butterfly fat-tree, by index arithmetic.
    Bft {
        bft: ButterflyFatTree,
        level: Vec<u8>,
        index: Vec<u32>,
    },
    /// The hypercube: one arc per differing dimension, lowest dimension first.
    Hypercube { d: u32 },
    /// The k-ary n-tree, the folded and unfolded Clos networks, the binary fat-tree and the
    /// butterfly: one run of evenly spaced link ids per head ([`TreeHops`]).
    Tree(TreeHops),
    /// Any other topology: BFS distances to every row target ([`DistTable`]).
    Table(DistTable),
    /// [`RouteSource::TopologyPaths`]: no next hops, every route is fixed at the source.
    Paths,
}

/// A topology compiled for the synchronous packet engine ([`super::simulate`]).
///
/// **Any topology.** [`PacketNet::with_routes`] takes any [`Topology`] (a generated network,
/// an [`AnyTopology`], a traced fabric) and a [`RouteSource`]; [`PacketNet::new`] is the
/// shortest-path form for the built-in topologies. Under [`RouteSource::ShortestPaths`] every
/// built-in topology (bare or inside an [`AnyTopology`], recognised by type) finds next hops
/// by index arithmetic, in time proportional to the candidates and with no memory per
/// processor; other topologies (a traced fabric) get a BFS distance table with the same
/// candidates in the same order.
///
/// **Links are wires.** A channel of capacity `k` (a bundle of `k` wires on Leiserson's
/// fat-trees) becomes `k` links, each moving at most one flit per step and each with its own
/// queue; a head may take any wire of a channel on a shortest path. On Greenberg–Oh's
/// butterfly fat-tree and on the hypercube every channel is one wire and link ids are channel
/// ids.
///
/// **Queues.** Every link has a FIFO queue at its head node. A node scans, as its *inputs*,
/// the queues of the links entering it (in channel-id order: on trees the up links from the
/// children come first, then the down links from the parents) followed by the injection queue
/// of the processor it hosts, if any.
///
/// **Terminals.** A processor node that forwards nothing (a leaf: at most one outgoing link)
/// is a *terminal*; the links entering it are *ejection links*, whose queue is the
/// processor's input buffer, drained by the processor one unit per step (our reading of
/// Greenberg–Oh's simulations, fixed by Table I) unless the run's [`super::SinkModel`] absorbs
/// units at once. A processor that also routes (a hypercube node) absorbs the units addressed to it
/// on arrival.
#[derive(Clone)]
pub struct PacketNet {
    topology: Arc<dyn Topology + Send + Sync>,
    routes: RouteSource,
    processors: u32,
    nodes: u32,
    links: u32,
    /// The links' heads and tails and every node's outgoing links, stored or derived
    /// ([`Ends`]).
    ends: Ends,
    /// Whether every link `e` has a reversed partner `e ^ 1`.
    paired: bool,
    /// Per link, its channel; `None` when every channel is one link (then link = channel).
    link_channel: Option<Vec<u32>>,
    channel_links: ChannelLinks,
    pub(crate) inputs_start: Vec<u32>,
    pub(crate) inputs: Vec<u32>,
    /// Per link, one bit: whether it enters a terminal.
    ejection: Vec<u64>,
    pub(crate) injection_node: Vec<u32>,
    pub(crate) ejection_node: Vec<u32>,
    /// Whether every processor's sink node is a terminal.
    pub(crate) terminal_sinks: bool,
    hops: Hops,
    max_hops: u32,
}

/// A link's head and tail and a node's outgoing links.
///
/// **Key design decision: nothing per link that the topology's arithmetic already says.** On
/// the k-ary n-trees, the binary fat-trees with one wire a channel and the butterfly fat-tree
/// every connection is two links numbered `2c` (one way) and `2c + 1` (back), every link is
/// its own channel, and the topology computes a channel's ends by index arithmetic
/// ([`Topology::channel`]). So link `e`'s head is its channel's, its tail is the head of
/// `e ^ 1`, and the links leaving a node are the partners of the links entering it: the
/// inputs it scans, and the ejection links if it is a terminal. Storing heads, tails and the
/// outgoing links (CSR) took 12 bytes per link and 4 per node, 267 MB on the 4-ary 10-tree's
/// 21 M links, for lookups that no unicast step makes (the engine keeps a link's head in its
/// record and finds a tail in the partner's record, `Sim::tail_of`; the threads' locality
/// keys walk the derived outgoing links, [`PacketNet::out_links_into`]). The network's own
/// lookups ([`PacketNet::link_head`], [`PacketNet::link_tail`], [`PacketNet::out_links`]),
/// which multicast trees make for every node of every tree, build the tables once, on first
/// use (a broadcast on the 4-ary 5-tree took 0.49 s instead of 0.20 s when they were
/// computed per call). Networks whose links are not so paired (the hypercube, the butterfly,
/// the folded Clos network, traced fabrics), channels of several wires, and networks with a
/// distance table, whose next hops read the outgoing links and heads at every head, keep
/// them stored.
#[derive(Clone, Debug)]
enum Ends {
    /// Stored per link and per node.
    Stored {
        head: Vec<u32>,
        tail: Vec<u32>,
        /// Outgoing links of every node (CSR, link-id order).
        out_start: Vec<u32>,
        out_links: Vec<u32>,
    },
    /// Links in reversed pairs (`tail(e) = head(e ^ 1)` for every link `e`), each its own
    /// channel: heads from the topology.
    Paired {
        /// The ejection links (which are no node's inputs) with their heads, by head node,
        /// then link id.
        eject_in: Vec<(u32, u32)>,
        /// Every link's head and every node's outgoing links, built on the first lookup.
        listed: OnceLock<Listed>,
    },
}

/// The heads and outgoing links (CSR, link-id order) of a network whose [`Ends`] are derived,
/// for the lookups that ask for them ([`PacketNet::link_head`]).
#[derive(Clone, Debug)]
struct Listed {
    head: Vec<u32>,
    out_start: Vec<u32>,
    out_links: Vec<u32>,
}

/// The outgoing links of every node of `nodes`, given each of `links` links' tail: a CSR
/// (`out_start`, `out_links`), each node's links in id order (placed by counting).
fn outgoing(nodes: u32, links: u32, tail: impl Fn(u32) -> u32) -> (Vec<u32>, Vec<u32>) {
    let mut out_start = vec![0u32; nodes as usize + 1];
    for e in 0..links {
        out_start[tail(e) as usize + 1] += 1;
    }
    for v in 0..nodes as usize {
        out_start[v + 1] += out_start[v];
    }
    let mut fill = out_start.clone();
    let mut out_links = vec![0u32; links as usize];
    for e in 0..links {
        let t = tail(e) as usize;
        out_links[fill[t] as usize] = e;
        fill[t] += 1;
    }
    (out_start, out_links)
}

/// The links of every channel: channel `c`'s wires are the consecutive links `lo..hi`.
#[derive(Clone, Debug)]
pub(crate) enum ChannelLinks {
    /// Every one of the channels is one link, of its own number.
    One(u32),
    /// The first link of every channel, and the number of links.
    Table(Vec<u32>),
}

impl ChannelLinks {
    /// Channel `c`'s wires, `lo..hi` (`None`: no such channel).
    #[inline]
    pub(crate) fn wires(&self, c: usize) -> Option<(u32, u32)> {
        match self {
            Self::One(channels) => (c < *channels as usize).then_some((c as u32, c as u32 + 1)),
            Self::Table(first) => Some((*first.get(c)?, *first.get(c + 1)?)),
        }
    }
}

impl fmt::Debug for PacketNet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PacketNet")
            .field("topology", &self.topology.name())
            .field("routes", &self.routes)
            .field("processors", &self.processors)
            .field("nodes", &self.nodes)
            .field("links", &self.links())
            .field("max_hops", &self.max_hops)
            .finish_non_exhaustive()
    }
}

impl PacketNet {
    /// Compiles `topology` with shortest-path routes ([`RouteSource::ShortestPaths`]).
    ///
    /// # Errors
    ///
    /// [`OnlineError::TooLarge`] when the topology has more than [`MAX_LINKS`] wires or
    /// nodes (the built-in topologies have arithmetic next hops and need no distance
    /// table).
    pub fn new(topology: impl Into<AnyTopology>) -> Result<Self, OnlineError> {
        Self::with_routes(topology.into(), RouteSource::ShortestPaths)
    }

    /// Compiles any `topology` (a generated one, an [`AnyTopology`], a traced fabric), taking
    /// its routes from `routes`.
    ///
    /// # Errors
    ///
    /// [`OnlineError::TooLarge`] when the topology has more than [`MAX_LINKS`] wires or
    /// nodes; under [`RouteSource::ShortestPaths`], when it needs a distance table of more
    /// than [`MAX_TABLE_ENTRIES`] entries (distinct row targets × nodes, checked before the
    /// table is allocated; only topologies without arithmetic next hops have one, see
    /// [`RouteSource::ShortestPaths`]); under [`RouteSource::TopologyPaths`], when it has
    /// more than [`MAX_ROUTE_PAIRS`] ordered processor pairs to check, and
    /// [`OnlineError::BrokenPath`] for the first pair (by source, then destination) whose
    /// standard path does not lead from the source's injection node to the destination's
    /// ejection node.
    pub fn with_routes<T>(topology: T, routes: RouteSource) -> Result<Self, OnlineError>
    where
        T: Topology + Send + Sync + 'static,
    {
        // The arithmetic next hops, recognised by type (bare or inside an `AnyTopology`).
        let any: &dyn Any = &topology;
        let builtin = any.downcast_ref::<AnyTopology>();
        let bft = any.downcast_ref::<ButterflyFatTree>().or(match builtin {
            Some(AnyTopology::ButterflyFatTree(b)) => Some(b),
            _ => None,
        });
        let cube = any.downcast_ref::<Hypercube>().or(match builtin {
            Some(AnyTopology::Hypercube(h)) => Some(h),
            _ => None,
        });
        let tree = Self::tree_hops(any, builtin);
        let arithmetic = match (routes, bft, cube, tree) {
            (RouteSource::ShortestPaths, Some(b), _, _) => Some(Arithmetic::Bft(b.clone())),
            (RouteSource::ShortestPaths, None, Some(h), _) => {
                Some(Arithmetic::Hypercube(h.dimension()))
            }
            (RouteSource::ShortestPaths, None, None, Some(t)) => Some(Arithmetic::Tree(t)),
            _ => None,
        };
        let topology: Arc<dyn Topology + Send + Sync> = Arc::new(topology);
        Self::compile(topology, routes, arithmetic)
    }

    /// The tree families and the butterfly, recognised by type (bare or inside an
    /// [`AnyTopology`]), with their arithmetic next hops.
    fn tree_hops(any: &dyn Any, builtin: Option<&AnyTopology>) -> Option<TreeHops> {
        if let Some(t) = any.downcast_ref::<KAryNTree>() {
            return Some(TreeHops::karyntree(t));
        }
        if let Some(t) = any.downcast_ref::<FoldedClos>() {
            return Some(TreeHops::folded_clos(t));
        }
        if let Some(t) = any.downcast_ref::<Clos>() {
            return Some(TreeHops::clos(t));
        }
        if let Some(t) = any.downcast_ref::<FatTree>() {
            return Some(TreeHops::fat_tree(t));
        }
        if let Some(t) = any.downcast_ref::<Butterfly>() {
            return Some(TreeHops::butterfly(t));
        }
        match builtin? {
            AnyTopology::KAryNTree(t) => Some(TreeHops::karyntree(t)),
            AnyTopology::FoldedClos(t) => Some(TreeHops::folded_clos(t)),
            AnyTopology::Clos(t) => Some(TreeHops::clos(t)),
            AnyTopology::FatTree(t) => Some(TreeHops::fat_tree(t)),
            AnyTopology::Butterfly(t) => Some(TreeHops::butterfly(t)),
            _ => None,
        }
    }

    /// Compiles `topology` with a BFS distance table even where arithmetic next hops exist:
    /// the reference the arithmetic is tested against.
    #[cfg(test)]
    pub(crate) fn with_table_for_tests<T>(topology: T) -> Result<Self, OnlineError>
    where
        T: Topology + Send + Sync + 'static,
    {
        Self::compile(Arc::new(topology), RouteSource::ShortestPaths, None)
    }

    /// Entries of the next-hop distance table (0 with arithmetic next hops or fixed routes).
    #[cfg(test)]
    pub(crate) fn table_entries(&self) -> usize {
        match &self.hops {
            Hops::Table(table) => table.entries(),
            _ => 0,
        }
    }

    /// Rows of the next-hop distance table (0 without one).
    #[cfg(test)]
    pub(crate) fn table_rows(&self) -> usize {
        match &self.hops {
            Hops::Table(table) => table.rows(),
            _ => 0,
        }
    }

    fn compile(
        topology: Arc<dyn Topology + Send + Sync>,
        routes: RouteSource,
        arithmetic: Option<Arithmetic>,
    ) -> Result<Self, OnlineError> {
        let t = &*topology;
        if routes == RouteSource::TopologyPaths {
            check_route_pairs(t.num_processors())?;
        }
        let nodes = t.num_nodes();
        let channels = t.num_channels();
        let processors = t.num_processors();

        let too_large = |what, value| OnlineError::TooLarge {
            what,
            value,
            max: MAX_LINKS,
        };
        if u64::from(nodes) > MAX_LINKS {
            return Err(too_large("nodes", u64::from(nodes)));
        }
        if u64::from(channels) > MAX_LINKS {
            return Err(too_large("wires", u64::from(channels)));
        }
        // One pass over the channels (a tree's `channel` does a few divisions and a loop: a
        // second pass was a third of the setup of the 4-ary 6-tree batch): their first links
        // and ends, the wires counted against `MAX_LINKS` before any per-link table exists.
        let mut channel_first_link = Vec::with_capacity(channels as usize + 1);
        let mut channel_head = Vec::with_capacity(channels as usize);
        let mut channel_tail = Vec::with_capacity(channels as usize);
        let mut total: u64 = 0;
        for c in 0..channels {
            channel_first_link.push(total as u32);
            let ch = t.channel(fatnet_topology::ChannelId(c));
            // Saturating: a user's capacity (`caps=2^64-1/...`) must not wrap the sum past
            // the check (the sum before adding is at most MAX_LINKS).
            total = total.saturating_add(ch.capacity);
            if total > MAX_LINKS {
                return Err(too_large("wires", total));
            }
            channel_head.push(ch.to.0);
            channel_tail.push(ch.from.0);
        }
        channel_first_link.push(total as u32);
        let links = total as u32;
        // Every channel one wire: the channels' ends are the links'.
        let (link_head, link_tail) = if links == channels {
            (channel_head, channel_tail)
        } else {
            let mut link_head = Vec::with_capacity(links as usize);
            let mut link_tail = Vec::with_capacity(links as usize);
            for (c, w) in channel_first_link.windows(2).enumerate() {
                let wires = (w[1] - w[0]) as usize;
                link_head.extend(std::iter::repeat_n(channel_head[c], wires));
                link_tail.extend(std::iter::repeat_n(channel_tail[c], wires));
            }
            (link_head, link_tail)
        };
        // Every channel one link (the trees, hypercubes, most fabrics): no per-link table.
        let (link_channel, channel_links) = if links == channels {
            (None, ChannelLinks::One(channels))
        } else {
            let mut link_channel = Vec::with_capacity(links as usize);
            for (c, w) in channel_first_link.windows(2).enumerate() {
                link_channel.extend(std::iter::repeat_n(c as u32, (w[1] - w[0]) as usize));
            }
            (Some(link_channel), ChannelLinks::Table(channel_first_link))
        };

        let injection_node: Vec<u32> = (0..processors).map(|p| t.injection_node(p).0).collect();
        let ejection_node: Vec<u32> = (0..processors).map(|p| t.ejection_node(p).0).collect();
        // Distinct out-neighbours of every node, up to 2 (wires of one channel count once).
        let mut neighbour = vec![NONE; nodes as usize];
        let mut branching = vec![false; nodes as usize];
        for (&tail, &head) in link_tail.iter().zip(&link_head) {
            let slot = &mut neighbour[tail as usize];
            if *slot == NONE {
                *slot = head;
            } else if *slot != head {
                branching[tail as usize] = true;
            }
        }
        let mut terminal = vec![false; nodes as usize];
        for &v in &ejection_node {
            let kind = t.node(fatnet_topology::NodeId(v)).kind;
            let leaf = !branching[v as usize];
            terminal[v as usize] =
                neighbour[v as usize] == NONE || (kind != NodeKind::Switch && leaf);
        }
        let ejection: Vec<u64> = link_head
            .chunks(64)
            .map(|c| {
                c.iter()
                    .enumerate()
                    .fold(0, |w, (i, &h)| w | u64::from(terminal[h as usize]) << i)
            })
            .collect();
        let is_ejection = |e: usize| ejection[e / 64] >> (e % 64) & 1 != 0;
        let terminal_sinks = ejection_node.iter().all(|&v| terminal[v as usize]);

        // Inputs: per node its forwarding links by id, then its injection queues (id
        // `links + p`, by p); counted, then placed (no list per node).
        let mut link_inputs = vec![0u32; nodes as usize];
        let mut inputs_start = vec![0u32; nodes as usize + 1];
        for (e, &h) in link_head.iter().enumerate() {
            if !is_ejection(e) {
                link_inputs[h as usize] += 1;
                inputs_start[h as usize + 1] += 1;
            }
        }
        for &v in &injection_node {
            inputs_start[v as usize + 1] += 1;
        }
        for v in 0..nodes as usize {
            inputs_start[v + 1] += inputs_start[v];
        }
        let mut inputs = vec![0u32; inputs_start[nodes as usize] as usize];
        // Where each node's next link input, and next injection queue, goes.
        let mut next_link: Vec<u32> = inputs_start[..nodes as usize].to_vec();
        for (e, &h) in link_head.iter().enumerate() {
            if !is_ejection(e) {
                inputs[next_link[h as usize] as usize] = e as u32;
                next_link[h as usize] += 1;
            }
        }
        let mut next_host = link_inputs;
        for (v, n) in next_host.iter_mut().enumerate() {
            *n += inputs_start[v];
        }
        for (p, &v) in injection_node.iter().enumerate() {
            inputs[next_host[v as usize] as usize] = links + p as u32;
            next_host[v as usize] += 1;
        }
        drop((next_link, next_host));

        let (hops, max_hops) = match arithmetic {
            Some(Arithmetic::Bft(b)) => {
                let mut level = Vec::with_capacity(nodes as usize);
                let mut index = Vec::with_capacity(nodes as usize);
                for v in 0..nodes {
                    let n = t.node(fatnet_topology::NodeId(v));
                    level.push(n.level as u8);
                    index.push(n.index);
                }
                let max_hops = 2 * b.levels();
                (
                    Hops::Bft {
                        bft: b,
                        level,
                        index,
                    },
                    max_hops,
                )
            }
            Some(Arithmetic::Hypercube(d)) => (Hops::Hypercube { d }, d),
            Some(Arithmetic::Tree(tree)) => {
                debug_assert!(!tree.single_wires() || links == channels);
                let max_hops = tree.max_hops();
                (Hops::Tree(tree), max_hops)
            }
            None => match routes {
                RouteSource::ShortestPaths => {
                    let (table, max_hops) =
                        DistTable::build(nodes, &link_head, &link_tail, &ejection_node)?;
                    (Hops::Table(table), max_hops)
                }
                RouteSource::TopologyPaths => (Hops::Paths, 0),
            },
        };
        let paired = links.is_multiple_of(2)
            && (0..links as usize).all(|e| link_tail[e] == link_head[e ^ 1]);
        let ends = if paired
            && matches!(channel_links, ChannelLinks::One(_))
            && !matches!(hops, Hops::Table(_))
        {
            let mut eject_in: Vec<(u32, u32)> = (0..links)
                .filter(|&e| is_ejection(e as usize))
                .map(|e| (link_head[e as usize], e))
                .collect();
            eject_in.sort_unstable();
            drop((link_head, link_tail));
            Ends::Paired {
                eject_in,
                listed: OnceLock::new(),
            }
        } else {
            let (out_start, out_links) = outgoing(nodes, links, |e| link_tail[e as usize]);
            Ends::Stored {
                head: link_head,
                tail: link_tail,
                out_start,
                out_links,
            }
        };
        let mut net = Self {
            topology,
            routes,
            processors,
            nodes,
            links,
            ends,
            paired,
            link_channel,
            channel_links,
            inputs_start,
            inputs,
            ejection,
            injection_node,
            ejection_node,
            terminal_sinks,
            hops,
            max_hops,
        };
        if routes == RouteSource::TopologyPaths {
            net.max_hops = net.check_standard_paths()?;
        }
        Ok(net)
    }

    /// Walks the standard path of every ordered pair of distinct processors once, checking
    /// it; returns the longest length.
    fn check_standard_paths(&self) -> Result<u32, OnlineError> {
        let t = &*self.topology;
        let mut channels = Vec::new();
        let mut longest = 0;
        for src in 0..self.processors {
            for dst in 0..self.processors {
                if src == dst {
                    continue;
                }
                let index = t.standard_path_index(src, dst);
                t.path_into(src, dst, index, &mut channels);
                let mut at = self.injection_node[src as usize];
                for &c in &channels {
                    at = self.step(src, dst, index, at, c)?;
                }
                self.arrived(src, dst, index, at, channels.len())?;
                longest = longest.max(channels.len() as u32);
            }
        }
        Ok(longest)
    }

    /// The head of channel `c`, checking that `c` exists and leaves node `at`.
    #[inline]
    fn step(
        &self,
        src: Processor,
        dst: Processor,
        index: u128,
        at: u32,
        c: ChannelId,
    ) -> Result<u32, OnlineError> {
        let broken = |why| OnlineError::BrokenPath {
            src,
            dst,
            index,
            why,
        };
        self.channel_links
            .wires(c.index())
            .ok_or(broken("a channel id out of range"))?;
        // The channel's ends are its wires' (from the topology: a network with derived ends
        // builds no tables for its source routes).
        let ch = self.topology.channel(c);
        if ch.from.0 != at {
            return Err(broken(
                "a channel does not leave the node the path has reached",
            ));
        }
        Ok(ch.to.0)
    }

    /// Checks that a path of `len` links that ended at node `at` is complete.
    #[inline]
    fn arrived(
        &self,
        src: Processor,
        dst: Processor,
        index: u128,
        at: u32,
        len: usize,
    ) -> Result<(), OnlineError> {
        let broken = |why| OnlineError::BrokenPath {
            src,
            dst,
            index,
            why,
        };
        if at != self.ejection_node[dst as usize] {
            return Err(broken("it does not end at the destination's ejection node"));
        }
        if len >= usize::from(u16::MAX) {
            return Err(broken("it has 65535 links or more"));
        }
        Ok(())
    }

    /// The compiled topology.
    pub fn topology(&self) -> &(dyn Topology + Send + Sync) {
        &*self.topology
    }

    /// Where the routes come from.
    pub fn routes(&self) -> RouteSource {
        self.routes
    }

    /// Number of processors.
    pub fn processors(&self) -> u32 {
        self.processors
    }

    /// Number of nodes.
    pub fn nodes(&self) -> u32 {
        self.nodes
    }

    /// Number of links (wires).
    pub fn links(&self) -> u32 {
        self.links
    }

    /// The node link `link` enters (where its queue is).
    ///
    /// # Panics
    ///
    /// If `link ≥ links()`.
    pub fn link_head(&self, link: u32) -> u32 {
        match &self.ends {
            Ends::Stored { head, .. } => head[link as usize],
            Ends::Paired { .. } => self.listed().head[link as usize],
        }
    }

    /// The heads and outgoing links of a network whose ends are derived, built on the first
    /// call ([`Ends`]).
    fn listed(&self) -> &Listed {
        let Ends::Paired { listed, .. } = &self.ends else {
            panic!("stored ends keep their own tables");
        };
        listed.get_or_init(|| {
            let t = &*self.topology;
            let head: Vec<u32> = (0..self.links)
                .map(|e| t.channel(ChannelId(e)).to.0)
                .collect();
            // A link leaves the head of its partner.
            let (out_start, out_links) = outgoing(self.nodes, self.links, |e| head[e as usize ^ 1]);
            Listed {
                head,
                out_start,
                out_links,
            }
        })
    }

    /// The node link `link` leaves.
    ///
    /// # Panics
    ///
    /// If `link ≥ links()`.
    pub fn link_tail(&self, link: u32) -> u32 {
        match &self.ends {
            Ends::Stored { tail, .. } => tail[link as usize],
            Ends::Paired { .. } => self.listed().head[link as usize ^ 1],
        }
    }

    /// Whether every link `e` has a reversed partner `e ^ 1` (`link_tail(e) ==
    /// link_head(e ^ 1)`).
    pub(crate) fn paired(&self) -> bool {
        self.paired
    }

    /// Every ejection link (which is no node's input) with its head, by link id on stored
    /// ends, by head on derived ones.
    pub(crate) fn ejection_links(&self) -> Vec<(u32, u32)> {
        match &self.ends {
            Ends::Stored { head, .. } => (0..self.links)
                .filter(|&e| self.is_ejection(e))
                .map(|e| (e, head[e as usize]))
                .collect(),
            Ends::Paired { eject_in, .. } => eject_in.iter().map(|&(h, e)| (e, h)).collect(),
        }
    }

    /// The stored tails of the links (empty when they are derived: [`Self::paired`]).
    pub(crate) fn stored_tails(&self) -> &[u32] {
        match &self.ends {
            Ends::Stored { tail, .. } => tail,
            Ends::Paired { .. } => &[],
        }
    }

    /// Whether link `link` enters a terminal (its queue is a processor's input buffer).
    ///
    /// # Panics
    ///
    /// If `link ≥ links()`.
    pub fn is_ejection(&self, link: u32) -> bool {
        assert!(link < self.links(), "link {link} out of range");
        self.ejection[link as usize / 64] >> (link % 64) & 1 != 0
    }

    /// The node where processor `p` injects.
    ///
    /// # Panics
    ///
    /// If `p ≥ processors()`.
    pub fn injection_node(&self, p: Processor) -> u32 {
        self.injection_node[p as usize]
    }

    /// The node where units for processor `p` arrive (its sink).
    ///
    /// # Panics
    ///
    /// If `p ≥ processors()`.
    pub fn ejection_node(&self, p: Processor) -> u32 {
        self.ejection_node[p as usize]
    }

    /// The links leaving node `v`, in link-id order.
    ///
    /// # Panics
    ///
    /// If `v ≥ nodes()`.
    pub fn out_links(&self, v: u32) -> &[u32] {
        let (out_start, out_links) = match &self.ends {
            Ends::Stored {
                out_start,
                out_links,
                ..
            } => (out_start, out_links),
            Ends::Paired { .. } => {
                let listed = self.listed();
                (&listed.out_start, &listed.out_links)
            }
        };
        &out_links[out_start[v as usize] as usize..out_start[v as usize + 1] as usize]
    }

    /// [`Self::out_links`] into `out` (cleared first), without allocating where `out` has
    /// room, and without building the tables of derived ends (the engine's locality keys).
    pub(crate) fn out_links_into(&self, v: u32, out: &mut Vec<u32>) {
        out.clear();
        match &self.ends {
            Ends::Stored { .. } => out.extend_from_slice(self.out_links(v)),
            Ends::Paired { eject_in, .. } => {
                // The partners of the links entering `v`: its inputs, then its ejection links.
                let links = self.links();
                out.extend(
                    self.inputs_of(v)
                        .iter()
                        .filter(|&&e| e < links)
                        .map(|&e| e ^ 1),
                );
                let from = eject_in.partition_point(|&(h, _)| h < v);
                out.extend(
                    eject_in[from..]
                        .iter()
                        .take_while(|&&(h, _)| h == v)
                        .map(|&(_, e)| e ^ 1),
                );
                out.sort_unstable();
            }
        }
    }

    /// The dimension `d` when the network is the `d`-cube (whose link `(i << d) | x` is the arc
    /// from node `x` along dimension `i`, 0-based), else `None`.
    pub fn hypercube_dimension(&self) -> Option<u32> {
        match self.hops {
            Hops::Hypercube { d } => Some(d),
            _ => None,
        }
    }

    /// The wires of every channel.
    #[cfg(test)]
    pub(crate) fn channel_links(&self) -> &ChannelLinks {
        &self.channel_links
    }

    /// The channel link `link` is a wire of.
    pub fn channel_of(&self, link: u32) -> fatnet_topology::ChannelId {
        fatnet_topology::ChannelId(match &self.link_channel {
            Some(of) => of[link as usize],
            None => link,
        })
    }

    /// An upper bound on the length of every route: of every shortest path under
    /// [`RouteSource::ShortestPaths`] (the topology's numbered paths of a fabric taken by
    /// [`PathPolicy::Fixed`] may be longer: runs size their route records by the paths they
    /// draw), the length of the longest standard path under [`RouteSource::TopologyPaths`].
    pub fn max_hops(&self) -> u32 {
        self.max_hops
    }

    /// The length in links of the route from `src` to `dst` that [`ScanPolicy`]'s
    /// farthest-first measures: a shortest path under [`RouteSource::ShortestPaths`], the
    /// standard path under [`RouteSource::TopologyPaths`].
    ///
    /// [`ScanPolicy`]: super::ScanPolicy
    pub fn distance(&self, src: Processor, dst: Processor) -> u32 {
        match &self.hops {
            Hops::Bft { .. } | Hops::Hypercube { .. } | Hops::Tree(_) => {
                self.topology.distance(src, dst) as u32
            }
            Hops::Table(table) => {
                let v = self.injection_node[src as usize];
                match table.distance(v, dst, self.ejection_node[dst as usize]) {
                    UNREACHABLE => 0,
                    d => d,
                }
            }
            Hops::Paths => {
                let t = &*self.topology;
                let mut channels = Vec::new();
                t.path_into(src, dst, t.standard_path_index(src, dst), &mut channels);
                channels.len() as u32
            }
        }
    }

    /// The links on shortest paths from `node` towards `dst`, in port order (appended to
    /// `out`, which is cleared first); empty when `node` is `dst`'s ejection node.
    ///
    /// The arithmetic cases are inlined into the caller (the engine's step): a call cost
    /// about 20 of the 85 instructions of a butterfly fat-tree's next hops (callgrind); the
    /// table lookup stays out of line.
    #[inline(always)]
    pub(crate) fn next_hops(&self, node: u32, dst: Processor, out: &mut Vec<u32>) {
        out.clear();
        match &self.hops {
            Hops::Bft { bft, level, index } => {
                let (l, s) = (u32::from(level[node as usize]), index[node as usize]);
                if l == 0 {
                    if s != dst {
                        out.push(bft.up_channel(0, s, 0).0);
                    }
                    return;
                }
                let tree = s >> (l - 1);
                if dst >> (2 * l) == tree {
                    if l == 1 {
                        out.push(bft.down_channel(0, dst, 0).0);
                    } else {
                        // Into dst's level-(l−1) tree node tc: see `ButterflyFatTree::path_into`.
                        let c = l - 1;
                        let tc = dst >> (2 * c);
                        let y = s & ((1 << c) - 1);
                        let child = (tc << (c - 1)) | (y & ((1 << (c - 1)) - 1));
                        let port = ((y >> (c - 1)) ^ tc) & 1;
                        out.push(bft.down_channel(c, child, port).0);
                    }
                } else {
                    // Up ports 0 and 1 of a switch are the connections `2a` and `2a + 1`:
                    // channels two apart (`ButterflyFatTree::up_channel`).
                    let up = bft.up_channel(l, s, 0).0;
                    out.extend_from_slice(&[up, up + 2]);
                }
            }
            Hops::Tree(tree) => tree.run(node, dst, &self.channel_links).push_into(out),
            Hops::Hypercube { d } => {
                let mut diff = node ^ dst;
                while diff != 0 {
                    let bit = diff.trailing_zeros();
                    out.push((bit << d) | node);
                    diff &= diff - 1;
                }
            }
            Hops::Table(table) => self.table_next_hops(table, node, dst, out),
            Hops::Paths => debug_assert!(false, "routes are fixed at the source"),
        }
    }

    /// [`Self::next_hops`], except on the tree families whose next hops are arithmetic
    /// (`hops`): there the links are returned as a [`Run`] of link ids and `out` is left
    /// alone (a channel of a large fat-tree has hundreds of thousands of wires).
    #[inline(always)]
    pub(crate) fn next_hops_or_run(
        &self,
        node: u32,
        dst: Processor,
        out: &mut Vec<u32>,
    ) -> Option<Run> {
        if let Hops::Tree(tree) = &self.hops {
            return Some(tree.run(node, dst, &self.channel_links));
        }
        self.next_hops(node, dst, out);
        None
    }

    /// [`Self::next_hops`] from the distance table (out of line: it is the large case).
    #[inline(never)]
    fn table_next_hops(&self, table: &DistTable, node: u32, dst: Processor, out: &mut Vec<u32>) {
        table.next_hops(
            node,
            dst,
            self.ejection_node[dst as usize],
            self.out_links(node),
            |e| self.link_head(e),
            out,
        );
    }

    /// The first next hop of [`Self::next_hops`] (dimension order on the hypercube, up port 0
    /// on the trees), without building the list where arithmetic allows.
    #[inline]
    pub(crate) fn first_hop(&self, node: u32, dst: Processor, scratch: &mut Vec<u32>) -> u32 {
        match &self.hops {
            Hops::Hypercube { d } => {
                let bit = (node ^ dst).trailing_zeros();
                return (bit << d) | node;
            }
            Hops::Tree(tree) => {
                let run = tree.run(node, dst, &self.channel_links);
                debug_assert!(run.count > 0, "no next hop");
                return run.first;
            }
            _ => {}
        }
        self.next_hops(node, dst, scratch);
        scratch[0]
    }

    /// Whether heads under `policy` follow a path fixed at their source (the source-routed
    /// policies, and every policy under [`RouteSource::TopologyPaths`]).
    #[inline]
    pub(crate) fn source_routed(&self, policy: PathPolicy) -> bool {
        matches!(policy, PathPolicy::Fixed | PathPolicy::Standard)
            || self.routes == RouteSource::TopologyPaths
    }

    /// The source route of a message from `src` to `dst` under `policy` (see
    /// [`RouteSource`]), written to `out` as links: a uniformly random numbered path of the
    /// topology under [`PathPolicy::Fixed`], its standard path otherwise; on a channel of
    /// several wires, a uniformly random wire. Random numbers are drawn only for a choice of
    /// two or more.
    ///
    /// # Errors
    ///
    /// [`OnlineError::BrokenPath`] when the path does not lead from `src`'s injection node to
    /// `dst`'s ejection node.
    pub(crate) fn source_path<R: Rng + ?Sized>(
        &self,
        src: Processor,
        dst: Processor,
        policy: PathPolicy,
        rng: &mut R,
        channels: &mut Vec<ChannelId>,
        out: &mut Vec<u32>,
    ) -> Result<(), OnlineError> {
        let t = &*self.topology;
        let index = if policy == PathPolicy::Fixed {
            let count = t.path_count(src, dst);
            if count > 1 {
                rng.random_range(0..count)
            } else {
                0
            }
        } else {
            t.standard_path_index(src, dst)
        };
        t.path_into(src, dst, index, channels);
        out.clear();
        let mut at = self.injection_node[src as usize];
        for &c in channels.iter() {
            at = self.step(src, dst, index, at, c)?;
            let (lo, hi) = self
                .channel_links
                .wires(c.index())
                .expect("a checked channel");
            out.push(if hi - lo > 1 {
                rng.random_range(lo..hi)
            } else {
                lo
            });
        }
        self.arrived(src, dst, index, at, out.len())
    }

    /// The inputs node `v` scans.
    #[inline]
    pub(crate) fn inputs_of(&self, v: u32) -> &[u32] {
        &self.inputs
            [self.inputs_start[v as usize] as usize..self.inputs_start[v as usize + 1] as usize]
    }

    /// Checks that every processor reaches every other one (the distance table has no holes).
    pub(crate) fn check_reachable(
        &self,
        src: Processor,
        dst: Processor,
    ) -> Result<(), OnlineError> {
        if let Hops::Table(table) = &self.hops {
            let v = self.injection_node[src as usize];
            if table.distance(v, dst, self.ejection_node[dst as usize]) == UNREACHABLE {
                return Err(OnlineError::Unroutable { src, dst });
            }
        }
        Ok(())
    }
}
