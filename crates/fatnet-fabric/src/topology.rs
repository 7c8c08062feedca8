//! [`FabricTopology`]: a [`Fabric`] with forwarding tables as a [`fatnet_topology::Topology`],
//! so the load, off-line and simulation crates run on the routes a subnet manager computed.

use fatnet_topology::{
    BundleId, Channel, ChannelId, Direction, Node, NodeId as TopoNodeId, NodeKind as TopoKind,
    Processor, Topology,
};

use crate::error::FabricError;
use crate::fabric::{Fabric, NodeId, NodeKind};

/// No topology id (a port without a kept link, a node that is not a processor or switch).
const NONE: u32 = u32::MAX;

/// The level and direction of a directed link from a node of level `from` to one of level
/// `to` ([`Fabric::levels`]): the smaller level of its ends; `Up` towards the higher level,
/// `Down` towards the lower one, `Forward` between equal levels. The one rule, used by
/// [`FabricTopology`]'s channels and by the per-level counts of [`crate::counts`].
#[must_use]
pub(crate) fn link_level(from: u32, to: u32) -> (u32, Direction) {
    let direction = match to.cmp(&from) {
        std::cmp::Ordering::Greater => Direction::Up,
        std::cmp::Ordering::Less => Direction::Down,
        std::cmp::Ordering::Equal => Direction::Forward,
    };
    (from.min(to), direction)
}

/// A [`Fabric`] with forwarding tables as a [`Topology`].
///
/// **Key design decision: the tables are the paths.** Every (source, destination) pair has
/// exactly one path (`path_count` = 1), the route traced through the forwarding tables, walked
/// again on every [`Topology::path_into`] call (so the conversion costs `O(ports)` memory, not
/// `O(CAs² · hops)`). Construction traces every ordered pair once and fails on the first route
/// that loops, dead-ends or misses its target, so afterwards `path_into` cannot fail. A fabric
/// without tables has no routes and is refused ([`FabricError::NoForwardingTables`]) rather
/// than given shortest paths the subnet manager never chose.
///
/// Numbering:
///
/// - **Nodes**: processor `i` is node `i`, the CA `ca_order()[i]` (injection and ejection node
///   are the same, as on every folded network); then the switches in fabric node order. Routers
///   and CAs outside the CA order are not nodes (no route can cross them), nor are their links.
/// - **Levels**: a node's level is its hop distance from the nearest processor (processors 0,
///   leaf switches 1, ...); a switch no processor reaches gets one more than the largest
///   finite level. `index` numbers the nodes of a level in node order.
/// - **Channels**: each kept physical link (in [`Fabric::links`] order, `k` counting kept links
///   only) gives channel `2k` from its end `a` to its end `b` and channel `2k + 1` back, both of
///   capacity one. A channel's level is the smaller level of its ends, its direction `Up` when
///   it goes to a higher level, `Down` to a lower one, `Forward` between equal levels.
/// - **Bundles**: one per channel, even for parallel links between the same two switches.
///   The tables send a route out of one specific port, and nothing makes them balance parallel
///   links, so the load that matters is the per-link one: with one bundle per channel the load
///   factor of `fatnet-load` is exactly the congestion (largest link load) of
///   [`Fabric::traffic_load`].
#[derive(Debug, Clone)]
pub struct FabricTopology {
    fabric: Fabric,
    /// Topology node → fabric node.
    fabric_node: Vec<NodeId>,
    /// Fabric node → topology node ([`NONE`] if not kept).
    topo_node: Vec<u32>,
    nodes: Vec<Node>,
    channels: Vec<Channel>,
    /// Fabric port id → the channel leaving through it ([`NONE`] if none).
    channel_of_port: Vec<u32>,
    /// The destination LID of every processor (`None` only when there is one processor).
    lids: Vec<Option<u16>>,
    switches: u32,
}

impl FabricTopology {
    /// Converts `fabric` (cloned), checking that every route between distinct CAs of the CA
    /// order arrives.
    ///
    /// # Errors
    /// [`FabricError::NoForwardingTables`] when no switch has a table;
    /// [`FabricError::BadRoute`] for the first pair (by source, then destination, in CA order)
    /// whose route loops, dead-ends or reaches the wrong node; [`FabricError::TooLarge`] when the
    /// channels would not fit `u32` ids.
    pub fn new(fabric: &Fabric) -> Result<Self, FabricError> {
        if !fabric.has_lfts() {
            return Err(FabricError::NoForwardingTables);
        }
        let fabric = fabric.clone();
        let order = fabric.ca_order();
        let processors = order.len() as u32;

        // Nodes: processors in CA order, then switches in node order.
        let mut fabric_node: Vec<NodeId> = order.to_vec();
        fabric_node.extend(fabric.switches());
        let switches = fabric_node.len() as u32 - processors;
        let mut topo_node = vec![NONE; fabric.node_count()];
        for (t, &f) in fabric_node.iter().enumerate() {
            topo_node[f.index()] = t as u32;
        }

        // Levels: breadth-first search from all processors at once (`Fabric::levels`).
        let by_node = fabric.levels();
        let mut level: Vec<u32> = fabric_node
            .iter()
            .map(|f| by_node[f.index()].unwrap_or(NONE))
            .collect();
        let unreached = level
            .iter()
            .filter(|&&l| l != NONE)
            .max()
            .map_or(0, |&l| l + 1);
        for l in &mut level {
            if *l == NONE {
                *l = unreached;
            }
        }
        let mut per_level = vec![0u32; unreached as usize + 1];
        let nodes: Vec<Node> = level
            .iter()
            .enumerate()
            .map(|(t, &l)| {
                let index = per_level[l as usize];
                per_level[l as usize] += 1;
                Node {
                    kind: if (t as u32) < processors {
                        TopoKind::Processor
                    } else {
                        TopoKind::Switch
                    },
                    level: l,
                    index,
                }
            })
            .collect();

        // Channels: both directions of every link between kept nodes.
        let mut channels = Vec::new();
        let mut channel_of_port = vec![NONE; fabric.port_id_count()];
        for link in fabric.links() {
            let (a, b) = (
                topo_node[link.a.node.index()],
                topo_node[link.b.node.index()],
            );
            if a == NONE || b == NONE {
                continue;
            }
            for (from, to, end) in [(a, b, link.a), (b, a, link.b)] {
                let id = u32::try_from(channels.len())
                    .ok()
                    .filter(|&id| id != NONE)
                    .ok_or(FabricError::TooLarge {
                        what: "channels",
                        count: channels.len() as u64,
                        limit: u64::from(NONE) - 1,
                    })?;
                let (level, direction) = link_level(level[from as usize], level[to as usize]);
                channels.push(Channel {
                    from: TopoNodeId(from),
                    to: TopoNodeId(to),
                    capacity: 1,
                    level,
                    direction,
                    bundle: BundleId(id),
                });
                channel_of_port[fabric.port_id(end.node, end.port).0 as usize] = id;
            }
        }

        // Routes: every ordered pair of distinct processors must arrive.
        fabric.check_routes()?;
        let lids: Vec<Option<u16>> = order.iter().map(|&c| fabric.node(c).lid()).collect();
        debug_assert!(
            fabric_node
                .iter()
                .all(|&f| matches!(fabric.node(f).kind(), NodeKind::Ca | NodeKind::Switch))
        );
        Ok(Self {
            fabric,
            fabric_node,
            topo_node,
            nodes,
            channels,
            channel_of_port,
            lids,
            switches,
        })
    }

    /// The fabric this topology was built from.
    #[must_use]
    pub fn fabric(&self) -> &Fabric {
        &self.fabric
    }

    /// The fabric node behind topology node `v`. Panics if `v` is out of range.
    #[must_use]
    pub fn fabric_node(&self, v: TopoNodeId) -> NodeId {
        self.fabric_node[v.index()]
    }

    /// The topology node of fabric node `id`: `None` for routers and CAs outside the CA order.
    /// Panics if `id` is not a node of the fabric.
    #[must_use]
    pub fn topology_node(&self, id: NodeId) -> Option<TopoNodeId> {
        Some(self.topo_node[id.index()])
            .filter(|&t| t != NONE)
            .map(TopoNodeId)
    }

    /// The channel leaving `node` through `port`: `None` for an unconnected port or a link to
    /// a node that is not kept. Panics if `node` is not a node of the fabric.
    #[must_use]
    pub fn channel_of_port(&self, node: NodeId, port: u8) -> Option<ChannelId> {
        if port > self.fabric.node(node).port_count() {
            return None;
        }
        self.channel_of_port
            .get(self.fabric.port_id(node, port).0 as usize)
            .copied()
            .filter(|&c| c != NONE)
            .map(ChannelId)
    }
}

impl Topology for FabricTopology {
    fn name(&self) -> String {
        format!(
            "fabric({} CAs, {} switches, {} links)",
            self.num_processors(),
            self.switches,
            self.channels.len() / 2
        )
    }
    fn num_processors(&self) -> u32 {
        self.fabric.ca_order().len() as u32
    }
    fn num_nodes(&self) -> u32 {
        self.nodes.len() as u32
    }
    fn num_switches(&self) -> u32 {
        self.switches
    }
    fn num_channels(&self) -> u32 {
        self.channels.len() as u32
    }
    fn num_bundles(&self) -> u32 {
        self.channels.len() as u32
    }
    fn node(&self, v: TopoNodeId) -> Node {
        self.nodes[v.index()]
    }
    fn channel(&self, c: ChannelId) -> Channel {
        self.channels[c.index()]
    }
    fn bundle_capacity(&self, b: BundleId) -> u64 {
        self.channels[b.index()].capacity
    }
    fn injection_node(&self, p: Processor) -> TopoNodeId {
        assert!(p < self.num_processors(), "processor {p} out of range");
        TopoNodeId(p)
    }
    fn ejection_node(&self, p: Processor) -> TopoNodeId {
        self.injection_node(p)
    }
    fn path_count(&self, src: Processor, dst: Processor) -> u128 {
        assert!(src < self.num_processors() && dst < self.num_processors());
        1
    }
    fn path_into(&self, src: Processor, dst: Processor, index: u128, out: &mut Vec<ChannelId>) {
        assert_eq!(index, 0, "a fabric has one path per pair");
        out.clear();
        let (s, d) = (
            self.fabric_node[src as usize],
            self.fabric_node[dst as usize],
        );
        let walked = self
            .fabric
            .walk_lid(s, d, self.lids[dst as usize].unwrap_or(0), &mut |h| {
                out.push(ChannelId(
                    self.channel_of_port[self.fabric.port_id(h.node, h.port).0 as usize],
                ));
            });
        assert!(walked.is_ok(), "routes were checked at construction");
    }
}
