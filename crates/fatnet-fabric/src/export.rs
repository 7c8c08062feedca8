//! Writes generated fat-trees in ibsim's net format, so that a real subnet manager (OpenSM,
//! run against `ibsim`) can route them.
//!
//! ibsim reads "a text file in the format compatible with ibnetdiscover command output"
//! (ibsim's README); we write exactly the subset that both ibsim 0.10 and this crate's
//! [`crate::ibnetdiscover`] reader accept: a `switchguid=`/`caguid=` line, a
//! `Switch <ports> "S-<guid>" # "<description>"` or `Ca <ports> "H-<guid>" # "<description>"`
//! header, then one `[port] "<peer>"[peer port]` line per connected port, every link listed
//! from both ends. No LIDs: OpenSM assigns them.
//!
//! **GUIDs and names (the mapping the analysis relies on).**
//!
//! - CA (processor) `x` of the topology has node GUID [`ca_guid`]`(x)` =
//!   `0x4341_0000_0000_0000 | x << 8` ("CA" in the top bytes), is named `H-<guid, 16 hex
//!   digits>` and described `ca <x>`; [`ca_index`] inverts the GUID. ibsim gives a CA's port `p`
//!   the port GUID `node GUID + p` (so CA `x`'s single port is `ca_guid(x) + 1`, which is what
//!   OpenSM's dumps print); the spacing of 256 keeps port GUIDs distinct from node GUIDs.
//! - Switch `index` at level `level` (1 = the switches the CAs hang off) has node GUID
//!   [`switch_guid`]`(level, index)` = `0x5357_0000_0000_0000 | level << 40 | index << 8`
//!   ("SW"), is named `S-<guid>` and described `sw <level> <index>`; its port GUID (port 0) is
//!   the node GUID.
//! - [`FoldedClos`] `ftree(n+m, r)`: bottom switch `v` is `(1, v)`, top switch `t` is `(2, t)`.
//!   Bottom switch `v` has `n + m` ports: port `k + 1` leads to processor `v·n + k`, port
//!   `n + 1 + t` to port `v + 1` of top switch `t` (which has `r` ports).
//! - [`KAryNTree`]: switch `(h, w)` is `(h, w)`; every switch has `2k` ports (one switch model):
//!   down port `d + 1` (`d < k`) leads to processor `k·w + d` at height 1 and to the child whose
//!   digit `h − 2` is `d` above; up port `k + 1 + j` leads to
//!   [`KAryNTree::up_neighbor`]`(h, w, j)`, arriving on its down port `(digit h − 1 of w) + 1`.
//!   The top switches' up ports are unconnected.
//!
//! - [`SwitchTorus`] (`ring:s=S,h=H`, `torus:x=X,y=Y,h=H`): a ring or 2-D torus of switches,
//!   all at level 1, with `H` CAs each (a direct network, for routings that are *not* free of
//!   credit loops, and for the engines that break them with virtual lanes). Switch `(x, y)` has
//!   index `x + X·y` (ring: `y = 0`); port `k + 1` (`k < H`) leads to CA `index·H + k`; port
//!   `H + 1` leads to the `+x` neighbour, arriving on its port `H + 2` (and `H + 2` to the
//!   `−x` one); a torus adds port `H + 3` to the `+y` neighbour, arriving on its port `H + 4`.
//!
//! Node order in the file: switches level by level (bottom first), then the CAs in index order.
//! ibsim attaches the SM (`SIM_HOST` unset) at the first node of the file, switch `(1, 0)`.

use std::fmt::Write as _;

use std::str::FromStr;

use fatnet_topology::{FoldedClos, KAryNTree};

use crate::FabricError;
use crate::fabric::{Fabric, NodeId};

/// High bytes of every exported CA's node GUID ("CA").
pub const CA_GUID_BASE: u64 = 0x4341_0000_0000_0000;
/// High bytes of every exported switch's node GUID ("SW").
pub const SWITCH_GUID_BASE: u64 = 0x5357_0000_0000_0000;

/// The node GUID of processor (CA) `x`.
#[must_use]
pub fn ca_guid(x: u32) -> u64 {
    CA_GUID_BASE | (u64::from(x) << 8)
}

/// The processor index of an exported CA's node GUID, `None` for any other GUID.
#[must_use]
pub fn ca_index(guid: u64) -> Option<u32> {
    let rest = guid ^ CA_GUID_BASE;
    (rest >> 40 == 0 && rest & 0xFF == 0).then_some((rest >> 8) as u32)
}

/// The node GUID of switch `index` at `level` (1 = the CAs' switches).
#[must_use]
pub fn switch_guid(level: u8, index: u32) -> u64 {
    SWITCH_GUID_BASE | (u64::from(level) << 40) | (u64::from(index) << 8)
}

/// The CAs of `fabric` in processor order: `result[x]` is the node with GUID [`ca_guid`]`(x)`,
/// for `x` in `0..processors`. `None` if one is missing, for a fabric that did not come from
/// this module's export. Use it with [`Fabric::with_ca_order`] to trace in processor order.
#[must_use]
pub fn ca_order_by_index(fabric: &Fabric, processors: u32) -> Option<Vec<NodeId>> {
    (0..processors)
        .map(|x| fabric.node_by_guid(ca_guid(x)))
        .collect()
}

/// One node of a net file being written.
struct NetNode {
    switch: bool,
    guid: u64,
    ports: u32,
    description: String,
    /// `(port, peer GUID, peer is a switch, peer port)`, in port order.
    links: Vec<(u32, u64, bool, u32)>,
}

impl NetNode {
    fn name(switch: bool, guid: u64) -> String {
        format!("{}-{guid:016x}", if switch { 'S' } else { 'H' })
    }
}

fn write_net(header: &str, nodes: &mut [NetNode]) -> String {
    let mut s = String::new();
    // Writing to a String cannot fail.
    let _ = writeln!(s, "# {header}");
    let _ = writeln!(
        s,
        "# Written by fatnet-fabric (export.rs); GUID scheme in its documentation."
    );
    for node in nodes.iter_mut() {
        node.links.sort_unstable();
        let name = NetNode::name(node.switch, node.guid);
        let _ = writeln!(s);
        if node.switch {
            let _ = writeln!(s, "switchguid=0x{:016x}", node.guid);
            let _ = writeln!(
                s,
                "Switch\t{} \"{name}\"\t# \"{}\"",
                node.ports, node.description
            );
        } else {
            let _ = writeln!(s, "caguid=0x{:016x}", node.guid);
            let _ = writeln!(
                s,
                "Ca\t{} \"{name}\"\t# \"{}\"",
                node.ports, node.description
            );
        }
        for &(port, peer, peer_switch, peer_port) in &node.links {
            let _ = writeln!(
                s,
                "[{port}]\t\"{}\"[{peer_port}]",
                NetNode::name(peer_switch, peer)
            );
        }
    }
    s
}

fn switch_node(level: u8, index: u32, ports: u32) -> NetNode {
    NetNode {
        switch: true,
        guid: switch_guid(level, index),
        ports,
        description: format!("sw {level} {index}"),
        links: Vec::new(),
    }
}

fn ca_node(x: u32, sw: u64, port: u32) -> NetNode {
    NetNode {
        switch: false,
        guid: ca_guid(x),
        ports: 1,
        description: format!("ca {x}"),
        links: vec![(1, sw, true, port)],
    }
}

/// The most ports an InfiniBand switch can have (port 255 means "no route" in a table).
pub const MAX_SWITCH_PORTS: u32 = 254;
/// Unicast LIDs are 1..=0xBFFF; OpenSM gives every switch and CA one (LMC 0).
pub const MAX_LIDS: u64 = 0xBFFF;

/// Refuses a network no InfiniBand subnet can hold: `ports` on its largest switch, `nodes`
/// switches and CAs (one LID each).
///
/// # Errors
///
/// [`FabricError::TooLarge`] naming the switch ports or the LIDs.
pub fn check_ib_limits(ports: u32, nodes: u64) -> Result<(), FabricError> {
    if ports > MAX_SWITCH_PORTS {
        return Err(FabricError::TooLarge {
            what: "ports on one switch (an InfiniBand switch has at most 254)",
            count: u64::from(ports),
            limit: u64::from(MAX_SWITCH_PORTS),
        });
    }
    if nodes > MAX_LIDS {
        return Err(FabricError::TooLarge {
            what: "switches and CAs (OpenSM has 49,151 unicast LIDs to give them)",
            count: nodes,
            limit: MAX_LIDS,
        });
    }
    Ok(())
}

/// [`check_ib_limits`] for `ftree(n+m, r)`: switches of `max(n + m, r)` ports, `r + m`
/// switches and `n·r` CAs.
///
/// # Errors
///
/// As [`check_ib_limits`].
pub fn check_folded_clos(t: &FoldedClos) -> Result<(), FabricError> {
    let nodes = u64::from(t.r()) + u64::from(t.m()) + u64::from(t.ports());
    check_ib_limits((t.n() + t.m()).max(t.r()), nodes)
}

/// [`check_ib_limits`] for a k-ary n-tree: switches of `2k` ports, `levels · k^(levels−1)`
/// switches and `k^levels` CAs.
///
/// # Errors
///
/// As [`check_ib_limits`].
pub fn check_kary_ntree(t: &KAryNTree) -> Result<(), FabricError> {
    let nodes =
        u64::from(t.levels()) * u64::from(t.switches_per_level()) + u64::from(t.num_leaves());
    check_ib_limits(t.k().saturating_mul(2), nodes)
}

/// Yuan's `ftree(n+m, r)` in ibsim's net format (scheme in the module documentation).
#[must_use]
pub fn folded_clos_net(t: &FoldedClos) -> String {
    let (n, m, r) = (t.n(), t.m(), t.r());
    let mut nodes = Vec::new();
    for v in 0..r {
        let mut sw = switch_node(1, v, n + m);
        for k in 0..n {
            sw.links.push((k + 1, ca_guid(v * n + k), false, 1));
        }
        for top in 0..m {
            sw.links
                .push((n + 1 + top, switch_guid(2, top), true, v + 1));
        }
        nodes.push(sw);
    }
    for top in 0..m {
        let mut sw = switch_node(2, top, r);
        for v in 0..r {
            sw.links.push((v + 1, switch_guid(1, v), true, n + 1 + top));
        }
        nodes.push(sw);
    }
    for x in 0..t.ports() {
        nodes.push(ca_node(x, switch_guid(1, x / n), x % n + 1));
    }
    write_net(
        &format!("ftree({n}+{m}, {r}): {} processors", t.ports()),
        &mut nodes,
    )
}

/// Petrini and Vanneschi's k-ary n-tree in ibsim's net format (scheme in the module
/// documentation).
#[must_use]
pub fn kary_ntree_net(t: &KAryNTree) -> String {
    let (k, levels, per) = (t.k(), t.levels(), t.switches_per_level());
    let mut nodes = Vec::new();
    for h in 1..=levels {
        let level = h as u8;
        for w in 0..per {
            let mut sw = switch_node(level, w, 2 * k);
            if h == 1 {
                for d in 0..k {
                    sw.links.push((d + 1, ca_guid(k * w + d), false, 1));
                }
            }
            if h < levels {
                let place = k.pow(h - 1);
                let my_digit = w / place % k;
                for j in 0..k {
                    let up = t.up_neighbor(h, w, j);
                    sw.links
                        .push((k + 1 + j, switch_guid(level + 1, up), true, my_digit + 1));
                }
            }
            nodes.push(sw);
        }
    }
    // Down links of the switches above height 1: child `c` of `(h, w)` through down port
    // `d + 1` is `w` with digit `h − 2` set to `d`, and it reaches us on its up port
    // `k + 1 + (digit h − 2 of w)`.
    for h in 2..=levels {
        let place = k.pow(h - 2);
        for w in 0..per {
            let parent_digit = w / place % k;
            let idx = ((h - 1) * per + w) as usize;
            for d in 0..k {
                let child = w - parent_digit * place + d * place;
                nodes[idx].links.push((
                    d + 1,
                    switch_guid((h - 1) as u8, child),
                    true,
                    k + 1 + parent_digit,
                ));
            }
        }
    }
    for x in 0..t.num_leaves() {
        nodes.push(ca_node(x, switch_guid(1, x / k), x % k + 1));
    }
    write_net(
        &format!(
            "{k}-ary {levels}-tree: {} processors, {} switches",
            t.num_leaves(),
            levels * per
        ),
        &mut nodes,
    )
}

/// High bytes of the node GUID [`node_guid`] gives a node without one ("NO").
pub const SYNTHETIC_GUID_BASE: u64 = 0x4e4f_0000_0000_0000;

/// The node GUID of `id` in [`fabric_net`]: its own, or [`SYNTHETIC_GUID_BASE`]` | id << 8`
/// for a node whose format has none (ib_flit_sim's `.ned`).
#[must_use]
pub fn node_guid(fabric: &Fabric, id: NodeId) -> u64 {
    fabric
        .node(id)
        .guid()
        .unwrap_or(SYNTHETIC_GUID_BASE | (u64::from(id.0) << 8))
}

/// Any fabric in ibsim's net format, so that a real OpenSM can route it (for instance after
/// [`Fabric::without`]): every switch and CA with at least one cable, in node order, with its
/// GUID ([`node_guid`]) and its declared port count, every cable listed from both ends with
/// the fabric's port numbers. Names follow `ibnetdiscover` (and OpenSM's dumps): `S-<GUID>`
/// for a switch, `H-<GUID>` for a CA (routers are written as CAs); the node's own name is its
/// description (`# "NAME"`), so the dumps read back map onto the same nodes by GUID
/// (`crate::routing::adopt_tables`) and still show the names. Nodes without cables (a removed
/// switch, a CA that lost its link) are left out: OpenSM would not find them. No LIDs: OpenSM
/// assigns them.
///
/// # Errors
/// [`FabricError::Unsupported`] for a node name with a `"` (the format quotes descriptions).
pub fn fabric_net(fabric: &Fabric) -> Result<String, FabricError> {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "# {} switches, {} CAs, {} links",
        fabric.switches().count(),
        fabric.cas().count(),
        fabric.links().len()
    );
    let _ = writeln!(
        s,
        "# Written by fatnet-fabric (export::fabric_net): GUIDs and port numbers kept, names as descriptions."
    );
    let net_name = |id: NodeId| {
        NetNode::name(
            fabric.node(id).kind() == crate::NodeKind::Switch,
            node_guid(fabric, id),
        )
    };
    for (i, n) in fabric.nodes().iter().enumerate() {
        let id = NodeId(i as u32);
        if n.neighbours().next().is_none() {
            continue;
        }
        if n.name().contains('"') {
            return Err(FabricError::Unsupported {
                file: n.name().to_owned(),
                what: "a name with a double quote",
                format: "an ibsim net file",
            });
        }
        let (kw, guid_kw) = if n.kind() == crate::NodeKind::Switch {
            ("Switch", "switchguid")
        } else {
            ("Ca", "caguid")
        };
        let _ = writeln!(s);
        let _ = writeln!(s, "{guid_kw}=0x{:016x}", node_guid(fabric, id));
        let _ = writeln!(
            s,
            "{kw}\t{} \"{}\"\t# \"{}\"",
            n.port_count().max(1),
            net_name(id),
            n.name()
        );
        for (port, peer) in n.neighbours() {
            let _ = writeln!(s, "[{port}]\t\"{}\"[{}]", net_name(peer.node), peer.port);
        }
    }
    Ok(s)
}

/// A ring (one dimension) or 2-D torus of switches with `hosts` CAs each (`ring:s=S,h=H`,
/// `torus:x=X,y=Y,h=H`; `h` defaults to 1). Every dimension has at least 3 switches, so that
/// each switch has two distinct neighbours per dimension.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SwitchTorus {
    dims: Vec<u32>,
    hosts: u32,
}

impl SwitchTorus {
    /// A torus of `dims` switches per dimension (one or two dimensions) with `hosts` CAs each.
    ///
    /// # Errors
    /// [`FabricError::BadSpec`] for no or more than two dimensions, a dimension below 3 or no
    /// host; [`FabricError::TooLarge`] (from [`check_ib_limits`]) for more than 254 ports or
    /// 49,151 nodes, checked before anything is built.
    pub fn new(dims: &[u32], hosts: u32) -> Result<Self, FabricError> {
        let bad = |expected| FabricError::BadSpec {
            spec: format!("{dims:?} switches, {hosts} hosts"),
            expected,
        };
        if dims.is_empty() || dims.len() > 2 {
            return Err(bad("one (ring) or two (torus) dimensions"));
        }
        if dims.iter().any(|&d| d < 3) {
            return Err(bad("at least 3 switches per dimension"));
        }
        if hosts == 0 {
            return Err(bad("at least one host per switch"));
        }
        let switches = dims.iter().map(|&d| u64::from(d)).product::<u64>();
        let ports = u64::from(hosts) + 2 * dims.len() as u64;
        check_ib_limits(
            u32::try_from(ports).unwrap_or(u32::MAX),
            switches.saturating_mul(1 + u64::from(hosts)),
        )?;
        Ok(Self {
            dims: dims.to_vec(),
            hosts,
        })
    }

    /// The switches per dimension.
    #[must_use]
    pub fn dims(&self) -> &[u32] {
        &self.dims
    }

    /// The CAs per switch.
    #[must_use]
    pub fn hosts(&self) -> u32 {
        self.hosts
    }

    /// The number of switches.
    #[must_use]
    pub fn switches(&self) -> u32 {
        self.dims.iter().product()
    }

    /// The network in ibsim's net format (scheme in the module documentation).
    #[must_use]
    pub fn net(&self) -> String {
        let h = self.hosts;
        let x_len = self.dims[0];
        let y_len = self.dims.get(1).copied().unwrap_or(1);
        let ports = h + 2 * self.dims.len() as u32;
        let mut nodes = Vec::new();
        for i in 0..self.switches() {
            let (x, y) = (i % x_len, i / x_len);
            let mut sw = switch_node(1, i, ports);
            for k in 0..h {
                sw.links.push((k + 1, ca_guid(i * h + k), false, 1));
            }
            let at = |x: u32, y: u32| switch_guid(1, x + x_len * y);
            sw.links.push((h + 1, at((x + 1) % x_len, y), true, h + 2));
            sw.links
                .push((h + 2, at((x + x_len - 1) % x_len, y), true, h + 1));
            if self.dims.len() == 2 {
                sw.links.push((h + 3, at(x, (y + 1) % y_len), true, h + 4));
                sw.links
                    .push((h + 4, at(x, (y + y_len - 1) % y_len), true, h + 3));
            }
            nodes.push(sw);
        }
        for c in 0..self.switches() * h {
            nodes.push(ca_node(c, switch_guid(1, c / h), c % h + 1));
        }
        write_net(
            &format!(
                "{self}: {} switches, {} processors",
                self.switches(),
                self.switches() * h
            ),
            &mut nodes,
        )
    }
}

impl std::fmt::Display for SwitchTorus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.dims[..] {
            [s] => write!(f, "ring:s={s},h={}", self.hosts),
            [x, y] => write!(f, "torus:x={x},y={y},h={}", self.hosts),
            _ => write!(f, "torus:{:?},h={}", self.dims, self.hosts),
        }
    }
}

impl FromStr for SwitchTorus {
    type Err = FabricError;

    /// `ring:s=S[,h=H]` or `torus:x=X,y=Y[,h=H]`.
    fn from_str(text: &str) -> Result<Self, FabricError> {
        let bad = |expected| FabricError::BadSpec {
            spec: text.chars().take(80).collect(),
            expected,
        };
        let (kind, rest) = text
            .split_once(':')
            .ok_or_else(|| bad("`ring:s=S,h=H` or `torus:x=X,y=Y,h=H`"))?;
        let keys: &[&str] = match kind {
            "ring" => &["s", "h"],
            "torus" => &["x", "y", "h"],
            _ => return Err(bad("`ring:s=S,h=H` or `torus:x=X,y=Y,h=H`")),
        };
        let mut values: Vec<Option<u32>> = vec![None; keys.len()];
        for item in rest.split(',') {
            let (k, v) = item
                .split_once('=')
                .ok_or_else(|| bad("`key=value` items separated by commas"))?;
            let i = keys
                .iter()
                .position(|&x| x == k.trim())
                .ok_or_else(|| bad("keys s, h (ring) or x, y, h (torus)"))?;
            let v: u32 = v
                .trim()
                .parse()
                .map_err(|_| bad("a decimal number after `=`"))?;
            if values[i].replace(v).is_some() {
                return Err(bad("each key once"));
            }
        }
        let hosts = values.pop().flatten().unwrap_or(1);
        let dims: Option<Vec<u32>> = values.into_iter().collect();
        let dims = dims.ok_or_else(|| bad("every dimension: s (ring), x and y (torus)"))?;
        SwitchTorus::new(&dims, hosts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fabric::NodeKind;

    #[test]
    fn any_fabric_round_trips_through_its_net() {
        let t = FoldedClos::new(2, 3, 3).unwrap();
        let f = crate::from_folded_clos(&t, &fatnet_offline::clos::DModM::new(&t)).unwrap();
        let removal = crate::removal::Removal::parse(&f, &["T1"]).unwrap();
        let damaged = f.without(&removal).unwrap();
        let net = fabric_net(&damaged).unwrap();
        let (g, report) = crate::ibnetdiscover::parse(&net, "damaged.net").unwrap();
        assert_eq!(report.unrecognised_count(), 0);
        // T1 has no cable left and is not written; every other node keeps name and GUID.
        assert_eq!(g.node_count(), f.node_count() - 1);
        assert_eq!(g.links().len(), damaged.links().len());
        for (i, n) in damaged.nodes().iter().enumerate() {
            let guid = node_guid(&damaged, NodeId(i as u32));
            let Some(h) = g.node_by_guid(guid) else {
                assert_eq!(n.name(), "T1");
                continue;
            };
            assert_eq!(g.node(h).description(), n.name());
            for (p, e) in n.neighbours() {
                let back = g.peer(h, p).unwrap();
                assert_eq!(g.node(back.node).description(), damaged.node(e.node).name());
                assert_eq!(back.port, e.port);
            }
        }
    }

    #[test]
    fn guid_scheme_round_trips() {
        for x in [0, 1, 7, 255, 256, 65_535, u32::MAX] {
            assert_eq!(ca_index(ca_guid(x)), Some(x));
            // The CA's port GUID (node + 1) is no CA's node GUID.
            assert_eq!(ca_index(ca_guid(x) + 1), None);
        }
        assert_eq!(ca_guid(3), 0x4341_0000_0000_0300);
        assert_eq!(switch_guid(2, 5), 0x5357_0200_0000_0500);
        assert_eq!(ca_index(switch_guid(1, 0)), None);
    }

    #[test]
    fn folded_clos_parses_back() {
        let t = FoldedClos::new(2, 4, 4).unwrap();
        let net = folded_clos_net(&t);
        let (f, report) = crate::ibnetdiscover::parse(&net, "ftree.net").unwrap();
        assert_eq!(report.unrecognised_count(), 0);
        assert_eq!(f.switches().count(), 8);
        assert_eq!(f.cas().count(), 8);
        // 8 CA links + r·m = 16 switch links.
        assert_eq!(f.links().len(), 24);
        let v1 = f.node_by_guid(switch_guid(1, 1)).unwrap();
        let t3 = f.node_by_guid(switch_guid(2, 3)).unwrap();
        let ca3 = f.node_by_guid(ca_guid(3)).unwrap();
        assert_eq!(f.peer(v1, 2).unwrap().node, ca3);
        let up = f.peer(v1, 2 + 1 + 3).unwrap();
        assert_eq!((up.node, up.port), (t3, 2));
        assert_eq!(f.node(t3).port_count(), 4);
        assert_eq!(f.node(t3).description(), "sw 2 3");
        let order = ca_order_by_index(&f, 8).unwrap();
        assert_eq!(order[3], ca3);
        assert!(ca_order_by_index(&f, 9).is_none());
    }

    #[test]
    fn kary_ntree_parses_back() {
        let t = KAryNTree::new(2, 3).unwrap();
        let net = kary_ntree_net(&t);
        let (f, report) = crate::ibnetdiscover::parse(&net, "tree.net").unwrap();
        assert_eq!(report.unrecognised_count(), 0);
        assert_eq!(f.switches().count(), 12);
        assert_eq!(f.cas().count(), 8);
        // 8 CA links + 2 levels of k^n = 8 switch links.
        assert_eq!(f.links().len(), 24);
        // Every switch-to-switch link agrees with the topology's up_neighbor.
        for h in 1..3u32 {
            for w in 0..4u32 {
                let s = f.node_by_guid(switch_guid(h as u8, w)).unwrap();
                for j in 0..2u32 {
                    let peer = f.peer(s, (2 + 1 + j) as u8).unwrap();
                    let want = switch_guid(h as u8 + 1, t.up_neighbor(h, w, j));
                    assert_eq!(f.node(peer.node).guid(), Some(want));
                    assert_eq!(u32::from(peer.port), (w >> (h - 1)) % 2 + 1);
                }
            }
        }
        let top = f.node_by_guid(switch_guid(3, 0)).unwrap();
        assert_eq!(f.node(top).kind(), NodeKind::Switch);
        assert_eq!(f.neighbours(top).count(), 2);
    }

    #[test]
    fn switch_torus_parses_and_wires() {
        let t: SwitchTorus = "torus:x=4,y=3,h=2".parse().unwrap();
        assert_eq!((t.dims(), t.hosts(), t.switches()), (&[4, 3][..], 2, 12));
        assert_eq!(t.to_string(), "torus:x=4,y=3,h=2");
        let (f, report) = crate::ibnetdiscover::parse(&t.net(), "torus.net").unwrap();
        assert_eq!(report.unrecognised_count(), 0);
        // 24 CA links + 2 links per switch.
        assert_eq!(
            (f.switches().count(), f.cas().count(), f.links().len()),
            (12, 24, 48)
        );
        // Switch (3, 2) = index 11: +x wraps to (0, 2) = 8, +y wraps to (3, 0) = 3.
        let s11 = f.node_by_guid(switch_guid(1, 11)).unwrap();
        let px = f.peer(s11, 3).unwrap();
        assert_eq!(
            (f.node(px.node).guid(), px.port),
            (Some(switch_guid(1, 8)), 4)
        );
        let py = f.peer(s11, 5).unwrap();
        assert_eq!(
            (f.node(py.node).guid(), py.port),
            (Some(switch_guid(1, 3)), 6)
        );
        let ca23 = f.node_by_guid(ca_guid(23)).unwrap();
        assert_eq!(f.peer(s11, 2).unwrap().node, ca23);
        let ring: SwitchTorus = "ring:s=5".parse().unwrap();
        assert_eq!(ring.to_string(), "ring:s=5,h=1");
        let (f, _) = crate::ibnetdiscover::parse(&ring.net(), "ring.net").unwrap();
        assert_eq!(
            (f.switches().count(), f.cas().count(), f.links().len()),
            (5, 5, 10)
        );
        for bad in [
            "ring:s=2",
            "ring:h=1",
            "ring:s=5,s=6",
            "ring:s=5,x=1",
            "torus:x=3",
            "torus:x=3,y=3,h=0",
            "torus:x=3,y=3,h=251",
            "torus:x=300,y=300,h=1",
            "mesh:x=3",
            "ring:s=-1",
        ] {
            let e = bad.parse::<SwitchTorus>().unwrap_err();
            assert!(
                matches!(
                    e,
                    FabricError::BadSpec { .. } | FabricError::TooLarge { .. }
                ),
                "{bad}: {e}"
            );
        }
    }
}
