//! The [`Fabric`]: switches, channel adapters, port-numbered links, LIDs and forwarding tables.

use std::collections::BTreeMap;
use std::fmt;

use crate::error::{FabricError, Loc};

/// A node of a fabric: an index into [`Fabric::nodes`], in order of first appearance in the
/// files that built the fabric.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NodeId(pub u32);

impl NodeId {
    /// The index as `usize`.
    #[must_use]
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Display for NodeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "node {}", self.0)
    }
}

/// What a node is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NodeKind {
    /// A switch: has forwarding tables, its LID sits on port 0 (the management port).
    Switch,
    /// A channel adapter (HCA, or a switch-embedded SHARP aggregation node): an end node; each
    /// connected port has its own LID.
    Ca,
    /// An InfiniBand router (`Rt` in `ibnetdiscover`): kept as a node, never routed through.
    Router,
}

/// One end of a link: a node and a port number.
///
/// Port numbers are InfiniBand's: physical ports from 1, port 0 is a switch's management port.
/// Readers of formats that count from 0 (ib_flit_sim's `.ned` gates and `.fdbs`) add 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Endpoint {
    /// The node.
    pub node: NodeId,
    /// The port number (1..=254).
    pub port: u8,
}

/// A physical link, stored once however many times the files list it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Link {
    /// The end listed first.
    pub a: Endpoint,
    /// The other end.
    pub b: Endpoint,
}

/// A port of a node.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Port {
    /// Where the port's cable leads, if anywhere.
    pub peer: Option<Endpoint>,
    /// The port's LID (CA ports; port 0 of a switch), when known.
    pub lid: Option<u16>,
}

/// A switch or CA with its ports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Node {
    kind: NodeKind,
    name: String,
    guid: Option<u64>,
    description: String,
    declared_ports: Option<u8>,
    ports: Vec<Port>,
}

impl Node {
    /// Switch, CA or router.
    #[must_use]
    pub fn kind(&self) -> NodeKind {
        self.kind
    }

    /// The name the file uses for the node (`S-0008f10500200b50`, `SW_L0_0_0_U1`, `H-1`).
    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The node GUID, when the format gives one.
    #[must_use]
    pub fn guid(&self) -> Option<u64> {
        self.guid
    }

    /// The node description (`ibnetdiscover`'s quoted text), empty when the format has none.
    #[must_use]
    pub fn description(&self) -> &str {
        &self.description
    }

    /// The number of physical ports: as declared, or else the highest port seen.
    #[must_use]
    pub fn port_count(&self) -> u8 {
        self.declared_ports
            .unwrap_or_else(|| u8::try_from(self.ports.len().saturating_sub(1)).unwrap_or(u8::MAX))
    }

    /// The port `port` (0 is a switch's management port); `None` beyond the known ports.
    #[must_use]
    pub fn port(&self, port: u8) -> Option<&Port> {
        self.ports.get(usize::from(port))
    }

    /// Where port `port` leads.
    #[must_use]
    pub fn peer(&self, port: u8) -> Option<Endpoint> {
        self.port(port).and_then(|p| p.peer)
    }

    /// The connected ports, in increasing port order, with their peers.
    pub fn neighbours(&self) -> impl Iterator<Item = (u8, Endpoint)> + '_ {
        self.ports
            .iter()
            .enumerate()
            .filter_map(|(p, port)| port.peer.map(|e| (p as u8, e)))
    }

    /// The node's LID: port 0's for a switch, the lowest-numbered port with a LID for a CA.
    #[must_use]
    pub fn lid(&self) -> Option<u16> {
        self.ports.iter().find_map(|p| p.lid)
    }

    /// The lowest-numbered connected port (a CA's uplink).
    #[must_use]
    pub fn first_connected_port(&self) -> Option<u8> {
        self.neighbours().next().map(|(p, _)| p)
    }
}

/// A linear forwarding table: destination LID → output port (InfiniBand numbering; 0 is the
/// switch itself).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lft {
    ports: Vec<u8>,
}

impl Lft {
    /// The "no route" (drop) entry, as in OpenSM and ib_flit_sim.
    pub const NO_ROUTE: u8 = 255;

    /// A table from its entries, indexed by LID (entry 0 is LID 0, which is never routed).
    #[must_use]
    pub fn new(ports: Vec<u8>) -> Self {
        Self { ports }
    }

    /// The output port for `lid`, `None` when the table has no entry.
    #[must_use]
    #[inline]
    pub fn get(&self, lid: u16) -> Option<u8> {
        match self.ports.get(usize::from(lid)) {
            Some(&p) if p != Self::NO_ROUTE => Some(p),
            _ => None,
        }
    }

    /// The number of entries (the highest LID covered, plus one).
    #[must_use]
    pub fn len(&self) -> usize {
        self.ports.len()
    }

    /// Whether the table has no entries.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.ports.is_empty()
    }

    /// The raw entries, indexed by LID, [`Lft::NO_ROUTE`] for none.
    #[must_use]
    pub fn entries(&self) -> &[u8] {
        &self.ports
    }
}

/// A dense id of a node's output port, for per-link counters: see [`Fabric::port_id`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PortId(pub u32);

/// A real fabric: a multigraph of switches and channel adapters joined by port-numbered links,
/// with LIDs and an optional linear forwarding table per switch.
///
/// Built by the readers (`crate::ibnetdiscover`, `crate::flitsim`, `crate::ibdm`); every link
/// is stored once and its two ends agree (checked while reading). Node ids follow the order of
/// first appearance in the files, so a fabric is a deterministic function of its files.
#[derive(Debug, Clone)]
pub struct Fabric {
    nodes: Vec<Node>,
    links: Vec<Link>,
    lids: Vec<Option<Endpoint>>,
    lfts: Vec<Option<Lft>>,
    ca_order: Vec<NodeId>,
    port_base: Vec<u32>,
    by_name: BTreeMap<String, NodeId>,
    by_guid: BTreeMap<u64, NodeId>,
}

impl Fabric {
    /// All nodes, indexed by [`NodeId`].
    #[must_use]
    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    /// One node. Panics if `id` is not a node of this fabric.
    #[must_use]
    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id.index()]
    }

    /// The number of nodes.
    #[must_use]
    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }

    /// The switches, in node order.
    pub fn switches(&self) -> impl Iterator<Item = NodeId> + '_ {
        self.ids_of(NodeKind::Switch)
    }

    /// The channel adapters, in node order (see [`Fabric::ca_order`] for the routing order).
    pub fn cas(&self) -> impl Iterator<Item = NodeId> + '_ {
        self.ids_of(NodeKind::Ca)
    }

    fn ids_of(&self, kind: NodeKind) -> impl Iterator<Item = NodeId> + '_ {
        self.nodes
            .iter()
            .enumerate()
            .filter(move |(_, n)| n.kind == kind)
            .map(|(i, _)| NodeId(i as u32))
    }

    /// Every physical link once, in order of first appearance.
    #[must_use]
    pub fn links(&self) -> &[Link] {
        &self.links
    }

    /// The connected ports of `id` with their peers, in port order.
    pub fn neighbours(&self, id: NodeId) -> impl Iterator<Item = (u8, Endpoint)> + '_ {
        self.node(id).neighbours()
    }

    /// Where port `port` of `id` leads.
    #[must_use]
    pub fn peer(&self, id: NodeId, port: u8) -> Option<Endpoint> {
        self.node(id).peer(port)
    }

    /// The port that owns `lid` (a CA port, or port 0 of a switch).
    #[must_use]
    pub fn endpoint_of_lid(&self, lid: u16) -> Option<Endpoint> {
        self.lids.get(usize::from(lid)).copied().flatten()
    }

    /// The highest LID in use, plus one.
    #[must_use]
    pub fn lid_bound(&self) -> usize {
        self.lids.len()
    }

    /// The node called `name` in its file.
    #[must_use]
    pub fn node_by_name(&self, name: &str) -> Option<NodeId> {
        self.by_name.get(name).copied()
    }

    /// The node with node GUID `guid`.
    #[must_use]
    pub fn node_by_guid(&self, guid: u64) -> Option<NodeId> {
        self.by_guid.get(&guid).copied()
    }

    /// The forwarding table of switch `id`, if one was read.
    #[must_use]
    pub fn lft(&self, id: NodeId) -> Option<&Lft> {
        self.lfts[id.index()].as_ref()
    }

    /// Whether at least one switch has a forwarding table.
    #[must_use]
    pub fn has_lfts(&self) -> bool {
        self.lfts.iter().any(Option::is_some)
    }

    /// The CAs in routing order: the order of a CA-order file (`ftree.hcas`) when one was
    /// applied, otherwise node order. Traffic patterns map processor `i` to `ca_order()[i]`.
    #[must_use]
    pub fn ca_order(&self) -> &[NodeId] {
        &self.ca_order
    }

    /// A dense id for output port `port` of `node` (port 0 included), in
    /// `0..self.port_id_count()`: an array index for per-directed-link counters.
    /// Panics if `node` is not in the fabric.
    #[must_use]
    #[inline]
    pub fn port_id(&self, node: NodeId, port: u8) -> PortId {
        PortId(self.port_base[node.index()] + u32::from(port))
    }

    /// The number of dense port ids.
    #[must_use]
    pub fn port_id_count(&self) -> usize {
        self.port_base.last().copied().unwrap_or(0) as usize
    }

    /// Every node's level, indexed by [`NodeId`]: its hop distance from the nearest CA of the
    /// CA order (those CAs 0, leaf switches 1, ...), walking through switches only. `None` for
    /// routers, CAs outside the CA order, and switches no CA reaches. The one definition of a
    /// fabric's levels: [`crate::FabricTopology`] and every picture by levels use it.
    #[must_use]
    pub fn levels(&self) -> Vec<Option<u32>> {
        let mut level: Vec<Option<u32>> = vec![None; self.nodes.len()];
        let mut queue: Vec<NodeId> = self.ca_order.clone();
        for &c in &queue {
            level[c.index()] = Some(0);
        }
        let mut head = 0;
        while head < queue.len() {
            let v = queue[head];
            head += 1;
            let next = level[v.index()].map(|l| l + 1);
            for (_, peer) in self.neighbours(v) {
                let w = peer.node;
                if self.nodes[w.index()].kind == NodeKind::Switch && level[w.index()].is_none() {
                    level[w.index()] = next;
                    queue.push(w);
                }
            }
        }
        level
    }

    /// The fabric with `order` as its CA order.
    ///
    /// # Errors
    /// [`FabricError::Unknown`] (with `file` "ca order" and `line` the 1-based position) if an
    /// id is not a CA of this fabric, [`FabricError::NodeConflict`] if a CA appears twice.
    pub fn with_ca_order(mut self, order: Vec<NodeId>) -> Result<Self, FabricError> {
        let mut seen = vec![false; self.nodes.len()];
        for (i, &id) in order.iter().enumerate() {
            let loc = Loc {
                file: "ca order",
                line: i + 1,
            };
            match self.nodes.get(id.index()) {
                Some(n) if n.kind == NodeKind::Ca => {}
                _ => return Err(loc.unknown("CA", &id.0.to_string())),
            }
            if std::mem::replace(&mut seen[id.index()], true) {
                return Err(loc.node_conflict(&self.nodes[id.index()].name, "listed twice"));
            }
        }
        self.ca_order = order;
        Ok(self)
    }

    /// Gives switch `id` (which has no LID yet) the LID `lid` on its port 0.
    pub(crate) fn set_switch_lid(
        &mut self,
        loc: Loc<'_>,
        id: NodeId,
        lid: u16,
    ) -> Result<(), FabricError> {
        let l = usize::from(lid);
        if lid == 0 || lid > 0xBFFF {
            return Err(loc.lid_conflict(u32::from(lid), "not a unicast LID (1..=0xBFFF)"));
        }
        if self.lids.get(l).copied().flatten().is_some() {
            return Err(loc.lid_conflict(u32::from(lid), "LID already taken"));
        }
        if self.lids.len() <= l {
            self.lids.resize(l + 1, None);
        }
        self.lids[l] = Some(Endpoint { node: id, port: 0 });
        self.nodes[id.index()].ports[0].lid = Some(lid);
        Ok(())
    }

    pub(crate) fn set_lft(&mut self, id: NodeId, lft: Lft) {
        self.lfts[id.index()] = Some(lft);
    }
}

/// Builds a [`Fabric`] while a reader walks its file(s); checks as it goes.
#[derive(Debug, Default)]
pub(crate) struct Builder {
    nodes: Vec<Node>,
    links: Vec<Link>,
    lids: Vec<Option<Endpoint>>,
    by_name: BTreeMap<String, NodeId>,
    by_guid: BTreeMap<u64, NodeId>,
}

impl Builder {
    pub(crate) fn node_by_name(&self, name: &str) -> Option<NodeId> {
        self.by_name.get(name).copied()
    }

    pub(crate) fn node_by_guid(&self, guid: u64) -> Option<NodeId> {
        self.by_guid.get(&guid).copied()
    }

    pub(crate) fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id.index()]
    }

    /// Adds a node; the caller has checked that its name (and GUID) are new.
    pub(crate) fn add_node(&mut self, kind: NodeKind, name: &str, guid: Option<u64>) -> NodeId {
        let id = NodeId(self.nodes.len() as u32);
        self.nodes.push(Node {
            kind,
            name: name.to_owned(),
            guid,
            description: String::new(),
            declared_ports: None,
            ports: vec![Port::default()],
        });
        self.by_name.insert(name.to_owned(), id);
        if let Some(g) = guid {
            self.by_guid.insert(g, id);
        }
        id
    }

    pub(crate) fn set_description(&mut self, id: NodeId, description: &str) {
        description.clone_into(&mut self.nodes[id.index()].description);
    }

    /// Declares the node's port count; ports already seen must fit.
    pub(crate) fn declare_ports(
        &mut self,
        loc: Loc<'_>,
        id: NodeId,
        ports: u32,
    ) -> Result<(), FabricError> {
        let node = &mut self.nodes[id.index()];
        let Ok(n) = u8::try_from(ports) else {
            return Err(loc.port_range(&node.name, ports, 254));
        };
        if n == u8::MAX {
            return Err(loc.port_range(&node.name, ports, 254));
        }
        if node.ports.len() > usize::from(n) + 1 {
            return Err(loc.port_range(&node.name, (node.ports.len() - 1) as u32, ports));
        }
        node.declared_ports = Some(n);
        Ok(())
    }

    fn check_port(&self, loc: Loc<'_>, id: NodeId, port: u32) -> Result<u8, FabricError> {
        let node = &self.nodes[id.index()];
        let limit = node.declared_ports.map_or(254, u32::from);
        if port > limit || (port == 0 && node.kind != NodeKind::Switch) {
            return Err(loc.port_range(&node.name, port, limit));
        }
        Ok(port as u8)
    }

    fn port_mut(&mut self, node: NodeId, port: u8) -> &mut Port {
        let ports = &mut self.nodes[node.index()].ports;
        if ports.len() <= usize::from(port) {
            ports.resize(usize::from(port) + 1, Port::default());
        }
        &mut ports[usize::from(port)]
    }

    fn label(&self, e: Endpoint) -> String {
        format!("{}[{}]", self.nodes[e.node.index()].name, e.port)
    }

    /// Connects `(a, pa)` and `(b, pb)`. A link listed again (from either end) is accepted once;
    /// a port already linked elsewhere is a [`FabricError::LinkMismatch`].
    pub(crate) fn connect(
        &mut self,
        loc: Loc<'_>,
        a: NodeId,
        pa: u32,
        b: NodeId,
        pb: u32,
    ) -> Result<(), FabricError> {
        let pa = self.check_port(loc, a, pa)?;
        let pb = self.check_port(loc, b, pb)?;
        let ea = Endpoint { node: a, port: pa };
        let eb = Endpoint { node: b, port: pb };
        if ea == eb {
            return Err(loc.node_conflict(&self.nodes[a.index()].name, "port linked to itself"));
        }
        let existing_a = self.port_mut(a, pa).peer;
        let existing_b = self.port_mut(b, pb).peer;
        match (existing_a, existing_b) {
            (Some(x), Some(y)) if x == eb && y == ea => return Ok(()),
            (None, None) => {}
            (Some(x), _) if x != eb => return Err(self.mismatch(loc, ea, x, eb)),
            (_, Some(y)) if y != ea => return Err(self.mismatch(loc, eb, y, ea)),
            // One end recorded without the other cannot happen: ends are always set together.
            _ => return Err(self.mismatch(loc, ea, existing_a.unwrap_or(eb), eb)),
        }
        self.port_mut(a, pa).peer = Some(eb);
        self.port_mut(b, pb).peer = Some(ea);
        self.links.push(Link { a: ea, b: eb });
        Ok(())
    }

    fn mismatch(
        &self,
        loc: Loc<'_>,
        at: Endpoint,
        existing: Endpoint,
        new: Endpoint,
    ) -> FabricError {
        FabricError::LinkMismatch {
            file: loc.file.to_owned(),
            line: loc.line,
            node: self.nodes[at.node.index()].name.clone(),
            port: at.port,
            existing: self.label(existing),
            new: self.label(new),
        }
    }

    /// Gives `lid` to port `port` of `node` (port 0 for a switch). Repeating the same
    /// assignment is fine; a second LID for the port, or a second port for the LID, is not.
    pub(crate) fn set_lid(
        &mut self,
        loc: Loc<'_>,
        node: NodeId,
        port: u32,
        lid: u32,
    ) -> Result<(), FabricError> {
        // Unicast LIDs are 1..=0xBFFF.
        if lid == 0 || lid > 0xBFFF {
            return Err(loc.lid_conflict(lid, "not a unicast LID (1..=0xBFFF)"));
        }
        let port = self.check_port(loc, node, port)?;
        let e = Endpoint { node, port };
        let l = lid as usize;
        if self.lids.len() <= l {
            self.lids.resize(l + 1, None);
        }
        match self.lids[l] {
            Some(x) if x != e => return Err(loc.lid_conflict(lid, "LID already taken")),
            _ => {}
        }
        let slot = self.port_mut(node, port);
        match slot.lid {
            Some(x) if u32::from(x) != lid => {
                return Err(loc.lid_conflict(lid, "port already has another LID"));
            }
            _ => slot.lid = Some(lid as u16),
        }
        self.lids[l] = Some(e);
        Ok(())
    }

    pub(crate) fn finish(self) -> Fabric {
        let mut port_base = Vec::with_capacity(self.nodes.len() + 1);
        let mut acc = 0u32;
        for n in &self.nodes {
            port_base.push(acc);
            acc += u32::from(n.port_count().max((n.ports.len() - 1) as u8)) + 1;
        }
        port_base.push(acc);
        let ca_order = self
            .nodes
            .iter()
            .enumerate()
            .filter(|(_, n)| n.kind == NodeKind::Ca)
            .map(|(i, _)| NodeId(i as u32))
            .collect();
        Fabric {
            lfts: vec![None; self.nodes.len()],
            nodes: self.nodes,
            links: self.links,
            lids: self.lids,
            ca_order,
            port_base,
            by_name: self.by_name,
            by_guid: self.by_guid,
        }
    }
}
