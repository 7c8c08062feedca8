//! Reader for `ibnetdiscover`'s topology output (infiniband-diags).
//!
//! The format, as `ibnetdiscover` writes it (`infiniband-diags/src/ibnetdiscover.c`, checked
//! against the dumps in `../shared/fabrics/`):
//!
//! ```text
//! # comment lines
//! vendid=0x8f1                      (also devid=, sysimgguid=, switchguid=, caguid=, rtguid=)
//! switchguid=0x8f10500200b50(8f10500200b50)
//! Switch  36 "S-0008f10500200b50"  # "desc" enhanced port 0 lid 9 lmc 0
//! [1]  "S-0008f10500108c5c"[15]     # "peer desc" lid 16 4xQDR
//! [4]  "H-003048c749cd0000"[1](3048c749cd0001)  # "peer desc" lid 72 4xDDR
//!
//! Ca  1 "H-003048c707b60000"        # "desc"
//! [1](3048c707b60001)  "S-0008f10500200b50"[32]  # lid 93 lmc 0 "peer desc" lid 9 4xDDR
//! ```
//!
//! Every variant infiniband-diags wrote since it was renamed from openib-diags (2007, the
//! `linux-rdma/rdma-core` history of `infiniband-diags/ibnetdiscover.c`) is read:
//!
//! - 2007 (`e4d681de5`): no port GUIDs, no width/speed after the peer's LID, `switchguid=` without
//!   the `(portguid)`;
//! - `-g` (grouping by chassis): `Chassis N (guid 0x…)`, `Hostname: …`, `# Spine Nodes` …,
//!   `Non-Chassis Nodes`, `sysimgguid=0x…  # Chassis N (name) slot S`,
//!   `switchguid=0x…(…)  # <chassis type> <slot>`, external port numbers `[7][ext 3]` after a
//!   port and after the peer's port, `(scp)` after a CA header and a port line;
//! - CA-to-CA links, where the peer's port GUID follows a space: `"H-…"[1] (guid) `;
//! - `-f`/`--full`: ` s=<speed> w=<width> v=<vlcap>` after the link; ` slot N` (Xsigo);
//! - `-l`/`-S`/`-H`/`-R` lists: `Switch<TAB> : 0x<guid> ports N devid 0x… vendid 0x… "desc"`
//!   (also `Ca`, `Router`): nodes without links;
//! - unconfigured subnets: `lid 0` (no LID assigned yet) is read as no LID;
//! - every width and speed (`4xSDR` … `4xFDR10`, `4xEDR`, `4xHDR`, `2xNDR`, `4xXDR`,
//!   `undefined (…)`): the rest of a link's comment is not kept;
//! - descriptions containing `"`: a description runs to the last `"` of the line (nothing after
//!   it is quoted).
//!
//! The `--ports` report (`-p`) is not a topology (one line per port, no node headers); its lines
//! are counted as unrecognised.
//!
//! Nodes are keyed by the GUID inside the quoted `S-`/`H-`/`R-` name (hex, not necessarily
//! zero-padded). A link appears in both ends' sections; it is stored once, and the two listings
//! must agree. LIDs come from the comments: a switch's from its header (`port 0 lid N`), a CA
//! port's from its own port line (`# lid N lmc M`), and peers' LIDs from `lid N` after the
//! peer's description, which must agree with what the peer's own section says. Descriptions are
//! quoted and may contain `#`. Lines of any other shape are counted in the
//! [`LineReport`] and skipped.

use crate::error::{FabricError, Loc};
use crate::fabric::{Builder, Fabric, NodeId, NodeKind};
use crate::text::{Cur, LineReport};

/// Parses an `ibnetdiscover` topology dump. `file` names the input in errors and the report.
///
/// # Errors
/// [`FabricError::Syntax`] for a malformed header, port or `key=value` line;
/// [`FabricError::LinkMismatch`] when the two ends of a link disagree;
/// [`FabricError::NodeConflict`] for a node declared twice or with two kinds;
/// [`FabricError::LidConflict`] for conflicting LIDs; [`FabricError::PortOutOfRange`] for a port
/// above the node's declared port count.
pub fn parse(text: &str, file: &str) -> Result<(Fabric, LineReport), FabricError> {
    let mut report = LineReport::new(file, text);
    let mut b = Builder::default();
    let mut declared: Vec<bool> = Vec::new();
    let mut current: Option<NodeId> = None;
    for (i, raw) in text.lines().enumerate() {
        let loc = Loc { file, line: i + 1 };
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut c = Cur::new(line, loc);
        if line.starts_with('[') {
            let Some(node) = current else {
                return Err(c.err("a `Switch`, `Ca` or `Rt` header before port lines"));
            };
            port_line(&mut b, &mut declared, node, &mut c)?;
        } else if let Some(kind) = header_kind(&mut c) {
            let node = header(&mut b, &mut declared, kind, &mut c)?;
            current = Some(node);
        } else if let Some(key) = KEYS.iter().find(|k| line.starts_with(*k)) {
            c.eat_str(key);
            c.hex("a hexadecimal value after `=`")?;
            if c.eat('(') {
                c.hex("a hexadecimal GUID in parentheses")?;
                c.expect(')', "`)`")?;
            }
            c.ws();
            // `-g` appends the chassis (`# Chassis 1 (name) slot 3`, `# ISR9288 Line 2`).
            if !(c.at_end() || c.s.starts_with('#')) {
                return Err(c.err("the end of the line or a `#` comment after the value"));
            }
        } else if c.eat_word("Chassis") {
            // `-g`: `Chassis N` or `Chassis N (guid 0x…)`.
            c.ws();
            c.dec("a chassis number after `Chassis`")?;
            c.ws();
            if c.eat_str("(guid") {
                c.ws();
                c.hex("the chassis GUID")?;
                c.expect(')', "`)` after the chassis GUID")?;
            }
            if !c.at_end() {
                return Err(c.err("the end of the `Chassis N (guid 0x…)` line"));
            }
        } else if line.starts_with("Hostname:") || line == "Non-Chassis Nodes" {
            // `-g`: a Xsigo chassis's host name; the heading of the nodes in no chassis.
        } else {
            report.unrecognised.push(i + 1);
        }
    }
    Ok((b.finish(), report))
}

const KEYS: [&str; 6] = [
    "vendid=",
    "devid=",
    "sysimgguid=",
    "switchguid=",
    "caguid=",
    "rtguid=",
];

fn header_kind(c: &mut Cur<'_>) -> Option<NodeKind> {
    if c.eat_word("Switch") {
        Some(NodeKind::Switch)
    } else if c.eat_word("Ca") {
        Some(NodeKind::Ca)
    } else if c.eat_word("Rt") || c.eat_word("Router") {
        // `Router` only in `-R` lists.
        Some(NodeKind::Router)
    } else {
        None
    }
}

/// Splits `S-0008f1...` into its kind and GUID.
fn node_name<'a>(c: &Cur<'a>, name: &'a str) -> Result<(NodeKind, u64), FabricError> {
    let kind = match name.get(..2) {
        Some("S-") => NodeKind::Switch,
        Some("H-") => NodeKind::Ca,
        Some("R-") => NodeKind::Router,
        _ => return Err(c.err("a node name `S-<guid>`, `H-<guid>` or `R-<guid>`")),
    };
    let hex = &name[2..];
    if hex.is_empty() || hex.len() > 16 || !hex.chars().all(|ch| ch.is_ascii_hexdigit()) {
        return Err(c.err("a hexadecimal GUID in the node name"));
    }
    let guid = u64::from_str_radix(hex, 16).map_err(|_| c.err("a hexadecimal GUID"))?;
    Ok((kind, guid))
}

fn get_or_add(
    b: &mut Builder,
    declared: &mut Vec<bool>,
    loc: Loc<'_>,
    kind: NodeKind,
    name: &str,
    guid: u64,
) -> Result<NodeId, FabricError> {
    if let Some(id) = b.node_by_guid(guid) {
        if b.node(id).kind() != kind {
            return Err(loc.node_conflict(name, "listed as two kinds of node"));
        }
        return Ok(id);
    }
    if b.node_by_name(name).is_some() {
        return Err(loc.node_conflict(name, "name already used"));
    }
    declared.push(false);
    Ok(b.add_node(kind, name, Some(guid)))
}

fn header(
    b: &mut Builder,
    declared: &mut Vec<bool>,
    kind: NodeKind,
    c: &mut Cur<'_>,
) -> Result<NodeId, FabricError> {
    c.ws();
    if c.s.starts_with(':') {
        return list_line(b, declared, kind, c);
    }
    let ports = c.dec("the number of ports after the node type")?;
    c.ws();
    let name = c.quoted("a quoted node name")?;
    let (name_kind, guid) = node_name(c, name)?;
    if name_kind != kind {
        return Err(c
            .loc
            .node_conflict(name, "name prefix does not match the node type"));
    }
    let id = get_or_add(b, declared, c.loc, kind, name, guid)?;
    if std::mem::replace(&mut declared[id.index()], true) {
        return Err(c.loc.node_conflict(name, "declared twice"));
    }
    b.declare_ports(c.loc, id, ports)?;
    c.ws();
    if c.at_end() {
        return Ok(id);
    }
    c.expect('#', "`#` and a comment after the node name")?;
    c.ws();
    let description = c.quoted_last("a quoted node description")?;
    b.set_description(id, description);
    // The rest: `enhanced port 0 lid 9 lmc 0` on switches; nothing on CAs.
    let loc = c.loc;
    let mut words = c.s.split_whitespace();
    while let Some(w) = words.next() {
        if w == "lid" {
            let lid = words
                .next()
                .and_then(|v| v.parse::<u32>().ok())
                .ok_or_else(|| loc.syntax("a decimal LID after `lid`", c.s))?;
            // LID 0: the subnet manager has not assigned one yet.
            if kind == NodeKind::Switch && lid != 0 {
                b.set_lid(loc, id, 0, lid)?;
            }
        }
    }
    Ok(id)
}

fn port_line(
    b: &mut Builder,
    declared: &mut Vec<bool>,
    node: NodeId,
    c: &mut Cur<'_>,
) -> Result<(), FabricError> {
    let loc = c.loc;
    c.expect('[', "`[port]`")?;
    let port = c.dec("a port number in `[...]`")?;
    c.expect(']', "`]` after the port number")?;
    ext_port(c)?;
    if c.eat('(') {
        c.hex("the port GUID in parentheses")?;
        c.expect(')', "`)` after the port GUID")?;
    }
    c.ws();
    let peer_name = c.quoted("the quoted name of the node at the other end")?;
    let (peer_kind, peer_guid) = node_name(c, peer_name)?;
    c.expect('[', "`[port]` after the peer's name")?;
    let peer_port = c.dec("the peer's port number")?;
    c.expect(']', "`]` after the peer's port number")?;
    ext_port(c)?;
    // A CA peer's port GUID; CA ports write it after a space (`"H-…"[1] (guid) `).
    c.ws();
    if c.eat('(') {
        c.hex("the peer's port GUID in parentheses")?;
        c.expect(')', "`)` after the peer's port GUID")?;
    }
    let peer = get_or_add(b, declared, loc, peer_kind, peer_name, peer_guid)?;
    b.connect(loc, node, port, peer, peer_port)?;
    c.ws();
    if c.at_end() {
        return Ok(());
    }
    c.expect('#', "`#` and a comment after the link")?;
    c.ws();
    // Our own LID (CA and router ports): `lid N lmc M` before the peer's description.
    if c.eat_word("lid") {
        c.ws();
        let lid = c.dec("a decimal LID after `lid`")?;
        if b.node(node).kind() != NodeKind::Switch && lid != 0 {
            b.set_lid(loc, node, port, lid)?;
        }
        c.ws();
        if c.eat_word("lmc") {
            c.ws();
            c.dec("a decimal LMC after `lmc`")?;
        }
        c.ws();
    }
    let description = c.quoted_last("the peer's quoted description")?;
    if b.node(peer).description().is_empty() {
        b.set_description(peer, description);
    }
    c.ws();
    if c.eat_word("lid") {
        c.ws();
        let lid = c.dec("a decimal LID after `lid`")?;
        match peer_kind {
            _ if lid == 0 => {}
            NodeKind::Switch => b.set_lid(loc, peer, 0, lid)?,
            _ => b.set_lid(loc, peer, peer_port, lid)?,
        }
    }
    // The rest is the link's width and speed (`4xQDR`), which we do not keep.
    Ok(())
}

/// `-g`'s external port number after a port, `[ext N]`, if present.
fn ext_port(c: &mut Cur<'_>) -> Result<(), FabricError> {
    if c.eat_str("[ext") {
        c.ws();
        c.dec("an external port number in `[ext N]`")?;
        c.expect(']', "`]` after the external port number")?;
    }
    Ok(())
}

/// A node of a `-l`/`-S`/`-H`/`-R` list (`list_node` in `ibnetdiscover.c`), after the type word:
/// `\t : 0x<guid> ports N devid 0x<hex> vendid 0x<hex> "desc"`. The node has no links.
fn list_line(
    b: &mut Builder,
    declared: &mut Vec<bool>,
    kind: NodeKind,
    c: &mut Cur<'_>,
) -> Result<NodeId, FabricError> {
    c.expect(':', "`:` after the node type")?;
    c.ws();
    let guid = c.hex("the node's hexadecimal GUID")?;
    let name = format!(
        "{}-{guid:016x}",
        match kind {
            NodeKind::Switch => 'S',
            NodeKind::Ca => 'H',
            NodeKind::Router => 'R',
        }
    );
    c.ws();
    if !c.eat_word("ports") {
        return Err(c.err("`ports N` after the GUID"));
    }
    c.ws();
    let ports = c.dec("the number of ports")?;
    for key in ["devid", "vendid"] {
        c.ws();
        if !c.eat_word(key) {
            return Err(c.err("`devid 0x…` and `vendid 0x…` after the port count"));
        }
        c.ws();
        c.hex("a hexadecimal id")?;
    }
    c.ws();
    let description = c.quoted_last("the node's quoted description")?;
    if !c.at_end() {
        return Err(c.err("the end of the line after the description"));
    }
    let id = get_or_add(b, declared, c.loc, kind, &name, guid)?;
    if std::mem::replace(&mut declared[id.index()], true) {
        return Err(c.loc.node_conflict(&name, "declared twice"));
    }
    b.declare_ports(c.loc, id, ports)?;
    b.set_description(id, description);
    Ok(id)
}
