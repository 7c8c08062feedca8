//! Removing links and switches from a [`Fabric`]: the "what breaks" half of a failure what-if.
//!
//! **Key design decision: a removal keeps every node, every port number, every LID and every
//! forwarding table.** Only cables go: a failed link loses its cable, a failed switch loses all
//! its cables (it stays as an isolated node, so [`NodeId`]s and [`Fabric::port_id`]s of the
//! damaged fabric equal the intact one's and per-link results compare directly). The tables are
//! kept as the subnet manager left them; they now point into ports without a cable, and
//! tracing reports those routes as faults ([`crate::RouteFault::Unconnected`]): the answer to
//! "what breaks if the SM does nothing". A failed switch's own table is dropped (a packet can no
//! longer reach it anyway). Re-routing is a separate step ([`crate::routing`]).
//!
//! This is how the fail-in-place toolchain of Domke, Hoefler and Matsuoka ("Fail-in-place
//! network design: interaction between topology, routing algorithm and failures", SC14) models
//! a failure: the link or switch disappears from the ibsim net file, the subnet manager either
//! keeps its old tables or re-routes, and the routes are judged afterwards.
//!
//! Names, as the fabric prints them: a link by one of its ends, `NAME[port]` (the form of
//! [`Fabric::link_label`]; a full `NAME[port] -> NAME[port]` label is accepted and both ends
//! must belong to one link), a switch by its name or its node GUID (`0x` and 16 hex digits, or
//! the bare hex digits).

use crate::FabricError;
use crate::error::Loc;
use crate::fabric::{Builder, Endpoint, Fabric, NodeId, NodeKind};

/// Links and switches to remove, resolved against one fabric ([`Removal::parse`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Removal {
    /// Indices into [`Fabric::links`], sorted, without repeats.
    pub links: Vec<usize>,
    /// Switches, sorted, without repeats.
    pub switches: Vec<NodeId>,
}

/// The pseudo-file name of removal errors ([`FabricError::Unknown`]): the line is the
/// 1-based position of the name in the list given.
pub const REMOVAL_SOURCE: &str = "removal";

impl Removal {
    /// Resolves `names` (each a link end `NAME[port]`, a full link label `NAME[port] ->
    /// NAME[port]`, or a switch name or node GUID) against `fabric`.
    ///
    /// # Errors
    /// [`FabricError::Unknown`] with file [`REMOVAL_SOURCE`] and the name's 1-based position
    /// as line: an unknown node, a port without a cable, a label whose two ends are not one
    /// link, or a name that is neither a link end nor a switch (a CA by name: name its link).
    pub fn parse<S: AsRef<str>>(fabric: &Fabric, names: &[S]) -> Result<Self, FabricError> {
        let mut r = Removal::default();
        for (i, name) in names.iter().enumerate() {
            let name = name.as_ref().trim();
            let loc = Loc {
                file: REMOVAL_SOURCE,
                line: i + 1,
            };
            if name.ends_with(']') {
                let (first, second) = match name.split_once("->") {
                    Some((a, b)) => (a.trim(), Some(b.trim())),
                    None => (name, None),
                };
                let a = endpoint(fabric, first).ok_or_else(|| loc.unknown("link end", name))?;
                let link = link_of(fabric, a).ok_or_else(|| loc.unknown("link end", name))?;
                if let Some(b) = second {
                    let b = endpoint(fabric, b).ok_or_else(|| loc.unknown("link end", name))?;
                    let l = fabric.links()[link];
                    if !(l.a == a && l.b == b || l.a == b && l.b == a) {
                        return Err(loc.unknown("link", name));
                    }
                }
                r.links.push(link);
            } else {
                let id = fabric
                    .node_by_name(name)
                    .or_else(|| parse_guid(name).and_then(|g| fabric.node_by_guid(g)))
                    .filter(|&id| fabric.node(id).kind() == NodeKind::Switch)
                    .ok_or_else(|| loc.unknown("switch", name))?;
                r.switches.push(id);
            }
        }
        r.normalise();
        Ok(r)
    }

    /// Sorts and de-duplicates the lists.
    pub fn normalise(&mut self) {
        self.links.sort_unstable();
        self.links.dedup();
        self.switches.sort_unstable();
        self.switches.dedup();
    }

    /// Whether nothing is removed.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.links.is_empty() && self.switches.is_empty()
    }

    /// The removed elements as names: `NAME[port] -> NAME[port]` per link, the switch name
    /// per switch (in that order).
    #[must_use]
    pub fn labels(&self, fabric: &Fabric) -> Vec<String> {
        let end = |e: Endpoint| format!("{}[{}]", fabric.node(e.node).name(), e.port);
        self.links
            .iter()
            .filter_map(|&i| fabric.links().get(i))
            .map(|l| format!("{} -> {}", end(l.a), end(l.b)))
            .chain(
                self.switches
                    .iter()
                    .filter(|s| s.index() < fabric.node_count())
                    .map(|&s| fabric.node(s).name().to_owned()),
            )
            .collect()
    }
}

fn parse_guid(s: &str) -> Option<u64> {
    let hex = s
        .strip_prefix("0x")
        .or_else(|| s.strip_prefix("0X"))
        .unwrap_or(s);
    if hex.is_empty() || hex.len() > 16 {
        return None;
    }
    u64::from_str_radix(hex, 16).ok()
}

/// `NAME[port]` → the endpoint, if the node exists (the port may be anything).
fn endpoint(fabric: &Fabric, s: &str) -> Option<Endpoint> {
    let (name, rest) = s.rsplit_once('[')?;
    let port: u8 = rest.strip_suffix(']')?.trim().parse().ok()?;
    let node = fabric.node_by_name(name.trim())?;
    Some(Endpoint { node, port })
}

/// The index of the link with end `e`.
fn link_of(fabric: &Fabric, e: Endpoint) -> Option<usize> {
    let peer = fabric.peer(e.node, e.port)?;
    fabric
        .links()
        .iter()
        .position(|l| (l.a == e && l.b == peer) || (l.a == peer && l.b == e))
}

impl Fabric {
    /// The fabric without the links and switches of `removal` (module documentation: nodes,
    /// port numbers, LIDs and the other switches' tables are kept).
    ///
    /// # Errors
    /// [`FabricError::Unknown`] (file [`REMOVAL_SOURCE`], line 0) for a link index or switch
    /// id that is not in this fabric (a [`Removal`] resolved against another fabric).
    pub fn without(&self, removal: &Removal) -> Result<Fabric, FabricError> {
        let loc = Loc {
            file: REMOVAL_SOURCE,
            line: 0,
        };
        let mut dead_link = vec![false; self.links().len()];
        for &l in &removal.links {
            *dead_link
                .get_mut(l)
                .ok_or_else(|| loc.unknown("link index", &l.to_string()))? = true;
        }
        let mut dead_switch = vec![false; self.node_count()];
        for &s in &removal.switches {
            match self.nodes().get(s.index()) {
                Some(n) if n.kind() == NodeKind::Switch => dead_switch[s.index()] = true,
                _ => return Err(loc.unknown("switch", &s.0.to_string())),
            }
        }
        let mut b = Builder::default();
        for n in self.nodes() {
            let id = b.add_node(n.kind(), n.name(), n.guid());
            b.set_description(id, n.description());
            b.declare_ports(loc, id, u32::from(n.port_count()))?;
        }
        for (i, l) in self.links().iter().enumerate() {
            if dead_link[i] || dead_switch[l.a.node.index()] || dead_switch[l.b.node.index()] {
                continue;
            }
            b.connect(
                loc,
                l.a.node,
                u32::from(l.a.port),
                l.b.node,
                u32::from(l.b.port),
            )?;
        }
        for (i, n) in self.nodes().iter().enumerate() {
            for p in 0..=n.port_count() {
                if let Some(lid) = n.port(p).and_then(|x| x.lid) {
                    b.set_lid(loc, NodeId(i as u32), u32::from(p), u32::from(lid))?;
                }
            }
        }
        let mut out = b.finish();
        for s in self.switches() {
            if let (Some(t), false) = (self.lft(s), dead_switch[s.index()]) {
                out.set_lft(s, t.clone());
            }
        }
        out.with_ca_order(self.ca_order().to_vec())
    }
}
