//! Readers for OpenSM's dump files: `opensm-subnet.lst` (the fabric), `opensm-lfts.dump` and
//! `ibroute`/`dump_lfts` output (the forwarding tables), `opensm.fdbs` (the tables with hop
//! counts) and the ftree engine's `opensm-ftree-ca-order.dump` (its CA order).
//!
//! The formats, as OpenSM 3.3.23 (`opensm/osm_dump.c`, `osm_ucast_ftree.c`) and
//! infiniband-diags 44 (`ibroute`) write them, checked against dumps of fabrics that OpenSM
//! configured under `ibsim` (`tests/fixtures/opensm/`):
//!
//! ```text
//! opensm-subnet.lst, one line per (port, link) -- every link twice, once from each end;
//! Ports, LID and PN are hexadecimal, the description is in braces:
//! { CA Ports:01 SystemGUID:… NodeGUID:4341000000000000 PortGUID:4341000000000001 VenID:000000
//!   DevID:0000 Rev:000000A1 {ca 0} LID:0009 PN:01 } { SW-SM Ports:06 … {sw 1 0} LID:0001
//!   PN:01 } PHY=4x LOG=ACT SPD=2.5
//!
//! opensm-lfts.dump (ibroute: `[0x0-0x10]`, `(desc)`, two column-title lines, entries
//! `0x0001 000 : (…)`, footer `16 valid lids dumped`):
//! Unicast lids [0-16] of switch Lid 1 guid 0x5357010000000000 ('sw 1 0'):
//! 0x0001 000 # Switch portguid 0x5357010000000000: 'sw 1 0'
//! 16 lids dumped
//!
//! opensm.fdbs:
//! dump_ucast_routes: Switch 0x5357010000000000
//! LID    : Port : Hops : Optimal
//! 0x0001 : 000  : 00   : yes
//! 0x0011 : UNREACHABLE
//!
//! opensm-ftree-ca-order.dump: `0x0009<TAB>ca 0` (CA LID, node description)
//! ```
//!
//! The fabric comes from `opensm-subnet.lst` alone: nodes are named as `ibnetdiscover` names
//! them (`S-<GUID>`, `H-<GUID>`, `R-<GUID>`, 16 hex digits), keyed by node GUID, described by
//! the text in braces, and numbered in order of first appearance. Tables attach to switches by
//! node GUID (a switch's port GUID is its node GUID); a table header that names a LID must agree
//! with the switch's LID in the subnet list.

use std::path::Path;

use crate::error::{FabricError, Loc};
use crate::fabric::{Builder, Fabric, Lft, NodeId, NodeKind};
use crate::text::{Cur, LineReport, apply_ca_order_lines, ca_of_lid, read_text};

/// One switch's forwarding table as a dump gives it, before it is attached to a [`Fabric`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SwitchTable {
    /// The switch's node GUID.
    pub guid: u64,
    /// The switch's LID, when the header names it (`Lid 1`).
    pub lid: Option<u16>,
    /// The 1-based line of the table's header.
    pub line: usize,
    /// The table: LID → output port ([`Lft::NO_ROUTE`] for none).
    pub lft: Lft,
    /// Hop counts by LID, when the dump gives them (`opensm.fdbs`); `u8::MAX` for none.
    pub hops: Vec<u8>,
}

/// One end of a link in `opensm-subnet.lst`.
#[derive(Debug, Clone, Copy)]
struct PortRecord<'a> {
    kind: NodeKind,
    ports: u32,
    node_guid: u64,
    description: &'a str,
    lid: u32,
    port: u32,
}

fn node_name(kind: NodeKind, guid: u64) -> String {
    let prefix = match kind {
        NodeKind::Switch => 'S',
        NodeKind::Ca => 'H',
        NodeKind::Router => 'R',
    };
    format!("{prefix}-{guid:016x}")
}

/// `KEY:hex` after optional whitespace.
fn field(c: &mut Cur<'_>, key: &str, expected: &'static str) -> Result<u64, FabricError> {
    c.ws();
    if !c.eat_str(key) {
        return Err(c.err(expected));
    }
    c.hex(expected)
}

fn port_record<'a>(c: &mut Cur<'a>) -> Result<PortRecord<'a>, FabricError> {
    c.ws();
    c.expect('{', "`{` opening a port record")?;
    c.ws();
    let kind = if c.eat_str("SW") {
        NodeKind::Switch
    } else if c.eat_str("CA") {
        NodeKind::Ca
    } else if c.eat_str("RT") {
        NodeKind::Router
    } else {
        return Err(c.err("a node type `SW`, `CA` or `RT` (optionally with `-SM`)"));
    };
    c.eat_str("-SM");
    let ports = field(c, "Ports:", "`Ports:<hex>`")?;
    field(c, "SystemGUID:", "`SystemGUID:<hex>`")?;
    let node_guid = field(c, "NodeGUID:", "`NodeGUID:<hex>`")?;
    field(c, "PortGUID:", "`PortGUID:<hex>`")?;
    field(c, "VenID:", "`VenID:<hex>`")?;
    field(c, "DevID:", "`DevID:<hex>`")?;
    field(c, "Rev:", "`Rev:<hex>`")?;
    c.ws();
    c.expect('{', "`{` opening the node description")?;
    let Some(end) = c.s.find("} LID:") else {
        return Err(c.err("the node description closed by `} LID:`"));
    };
    let description = &c.s[..end];
    c.s = &c.s[end + 1..];
    let lid = field(c, "LID:", "`LID:<hex>`")?;
    let port = field(c, "PN:", "`PN:<hex>`")?;
    c.ws();
    c.expect('}', "`}` closing the port record")?;
    let too_big = |v: u64, what| u32::try_from(v).map_err(|_| c.err(what));
    Ok(PortRecord {
        kind,
        ports: too_big(ports, "a port count that fits 32 bits")?,
        node_guid,
        description,
        lid: too_big(lid, "a 16-bit LID")?,
        port: too_big(port, "a port number that fits 32 bits")?,
    })
}

fn add_record(b: &mut Builder, loc: Loc<'_>, r: &PortRecord<'_>) -> Result<NodeId, FabricError> {
    let name = node_name(r.kind, r.node_guid);
    let id = match b.node_by_guid(r.node_guid) {
        Some(id) => {
            if b.node(id).kind() != r.kind {
                return Err(loc.node_conflict(&name, "listed as two kinds of node"));
            }
            if b.node(id).port_count() != u8::try_from(r.ports).unwrap_or(u8::MAX) {
                return Err(loc.node_conflict(&name, "listed with two port counts"));
            }
            id
        }
        None => {
            let id = b.add_node(r.kind, &name, Some(r.node_guid));
            b.set_description(id, r.description);
            b.declare_ports(loc, id, r.ports)?;
            id
        }
    };
    if r.lid != 0 {
        let port = if r.kind == NodeKind::Switch {
            0
        } else {
            r.port
        };
        b.set_lid(loc, id, port, r.lid)?;
    }
    Ok(id)
}

/// Parses `opensm-subnet.lst` into a [`Fabric`] (no tables yet). `file` names the input in
/// errors and the report.
///
/// # Errors
/// [`FabricError::Syntax`] for a line that is not two port records and the link's
/// `PHY=… LOG=… SPD=…`; [`FabricError::LinkMismatch`] when the two listings of a link disagree;
/// [`FabricError::NodeConflict`] for a GUID listed as two kinds of node or with two port counts;
/// [`FabricError::LidConflict`] for conflicting LIDs; [`FabricError::PortOutOfRange`] for a port
/// above the node's port count.
pub fn parse_subnet_lst(text: &str, file: &str) -> Result<(Fabric, LineReport), FabricError> {
    let mut report = LineReport::new(file, text);
    let mut b = Builder::default();
    for (i, raw) in text.lines().enumerate() {
        let loc = Loc { file, line: i + 1 };
        let line = raw.trim();
        if line.is_empty() {
            continue;
        }
        if !line.starts_with('{') {
            report.unrecognised.push(i + 1);
            continue;
        }
        let mut c = Cur::new(line, loc);
        let a = port_record(&mut c)?;
        let z = port_record(&mut c)?;
        c.ws();
        let mut keys = 0;
        for w in c.s.split_whitespace() {
            match w.split_once('=') {
                Some(("PHY" | "LOG" | "SPD", _)) => keys += 1,
                _ => return Err(loc.syntax("`PHY=`, `LOG=` and `SPD=` after the records", w)),
            }
        }
        if keys != 3 {
            return Err(c.err("`PHY=… LOG=… SPD=…` after the two port records"));
        }
        let na = add_record(&mut b, loc, &a)?;
        let nz = add_record(&mut b, loc, &z)?;
        b.connect(loc, na, a.port, nz, z.port)?;
    }
    Ok((b.finish(), report))
}

/// A table being filled.
struct Open {
    table: SwitchTable,
    ports: Vec<u8>,
}

impl Open {
    fn new(guid: u64, lid: Option<u16>, line: usize) -> Self {
        Self {
            table: SwitchTable {
                guid,
                lid,
                line,
                lft: Lft::new(Vec::new()),
                hops: Vec::new(),
            },
            ports: Vec::new(),
        }
    }

    fn set(&mut self, lid: u16, port: u8, hops: Option<u8>) {
        let l = usize::from(lid);
        if self.ports.len() <= l {
            self.ports.resize(l + 1, Lft::NO_ROUTE);
        }
        self.ports[l] = port;
        if let Some(h) = hops {
            if self.table.hops.len() <= l {
                self.table.hops.resize(l + 1, u8::MAX);
            }
            self.table.hops[l] = h;
        }
    }

    fn close(mut self) -> SwitchTable {
        self.table.lft = Lft::new(self.ports);
        self.table
    }
}

/// A unicast LID (`0x` hex, 1..=0xBFFF; `ibroute -a` also lists LID 0).
fn lid(c: &mut Cur<'_>, allow_zero: bool) -> Result<u16, FabricError> {
    let save = *c;
    let v = c.hex("a hexadecimal LID")?;
    match u16::try_from(v) {
        Ok(l) if l <= 0xBFFF && (l != 0 || allow_zero) => Ok(l),
        _ => Err(save.err("a unicast LID 0x1..=0xBFFF")),
    }
}

/// A decimal output port 0..=254, or 255 (no route).
fn out_port(c: &mut Cur<'_>) -> Result<u8, FabricError> {
    let save = *c;
    let v = c.dec("a decimal output port")?;
    u8::try_from(v).map_err(|_| save.err("an output port 0..=255"))
}

/// A decimal or `0x` hexadecimal number (the ranges of `Unicast lids [0-16]` / `[0x0-0x10]`).
fn dec_or_hex(c: &mut Cur<'_>, expected: &'static str) -> Result<u64, FabricError> {
    if c.s.starts_with("0x") {
        c.hex(expected)
    } else {
        c.dec(expected).map(u64::from)
    }
}

/// `Unicast lids [a-b] of switch Lid N guid 0xG (…):` (OpenSM and `ibroute` alike; `ibroute`
/// may name the switch by a directed route instead of `Lid N`). Returns the GUID, the LID and
/// the number of LIDs in the range from 1 (what OpenSM's footer counts).
fn lft_header(c: &mut Cur<'_>) -> Result<(u64, Option<u16>, u64), FabricError> {
    if !c.eat_str("Unicast lids [") {
        return Err(c.err("`Unicast lids [a-b] of switch …`"));
    }
    let lo = dec_or_hex(c, "the first LID of the range")?;
    c.expect('-', "`-` in the LID range")?;
    let hi = dec_or_hex(c, "the last LID of the range")?;
    if !c.eat_str("] of switch ") {
        return Err(c.err("`] of switch` after the LID range"));
    }
    let mut lid_of = None;
    if c.eat_word("Lid") {
        c.ws();
        let save = *c;
        let v = c.dec("a decimal switch LID after `Lid`")?;
        lid_of = Some(u16::try_from(v).map_err(|_| save.err("a 16-bit LID"))?);
    }
    let Some(at) = c.s.find("guid ") else {
        return Err(c.err("`guid 0x…` in the table header"));
    };
    c.s = &c.s[at + "guid ".len()..];
    let guid = c.hex("the switch's hexadecimal GUID")?;
    Ok((guid, lid_of, (hi + 1).saturating_sub(lo.max(1))))
}

/// Parses `opensm-lfts.dump`, or the output of `ibroute`/`dump_lfts` (same shape, see the
/// module documentation): one [`SwitchTable`] per switch, in file order.
///
/// # Errors
/// [`FabricError::Syntax`] for a malformed header or entry, an entry before any header, a LID
/// listed twice in one table, or a footer count that is neither the range's LID count
/// (OpenSM), the entries read (`ibroute -a`) nor the routed entries (`ibroute`);
/// [`FabricError::UnexpectedEof`] for a table without its `… lids dumped` footer.
pub fn parse_lfts(text: &str, file: &str) -> Result<(Vec<SwitchTable>, LineReport), FabricError> {
    let mut report = LineReport::new(file, text);
    let mut out = Vec::new();
    // The open table, its range's LID count (what OpenSM's footer counts), its entries (what
    // `ibroute -a` counts) and its routed entries (`ibroute`'s "valid lids").
    let mut open: Option<(Open, u64, usize, usize)> = None;
    // Inside a multicast table (`ibroute -M`, `dump_fts -M`), skipped up to its footer.
    let mut multicast = false;
    let mut last_line = 0;
    for (i, raw) in text.lines().enumerate() {
        let loc = Loc { file, line: i + 1 };
        last_line = i + 1;
        let line = raw.trim();
        if line.is_empty() {
            continue;
        }
        let mut c = Cur::new(line, loc);
        if multicast {
            multicast = !line.ends_with("mlids dumped");
            continue;
        }
        if line.starts_with("Multicast mlids [") {
            if open.is_some() {
                return Err(c.err("the `… lids dumped` footer of the previous table"));
            }
            multicast = true;
        } else if line == "*** WARNING ***: this command has been replaced by dump_fts" {
            // What `dump_lfts.sh` appends to `dump_fts`'s output since it was deprecated
            // (infiniband-diags `209bf9d61`, 2013).
        } else if line.starts_with("Unicast lids [") {
            if open.is_some() {
                return Err(c.err("the `… lids dumped` footer of the previous table"));
            }
            let (guid, lid_of, range) = lft_header(&mut c)?;
            open = Some((Open::new(guid, lid_of, i + 1), range, 0, 0));
        } else if line.starts_with("0x") {
            let Some((t, _, all, routed)) = open.as_mut() else {
                return Err(c.err("a `Unicast lids […] of switch …` header before the entries"));
            };
            let l = lid(&mut c, true)?;
            c.ws();
            let p = out_port(&mut c)?;
            c.ws();
            if !(c.at_end() || c.s.starts_with('#') || c.s.starts_with(':')) {
                return Err(c.err("`#` or `:` and a comment after the port"));
            }
            *all += 1;
            if l == 0 {
                // `ibroute -a` lists LID 0 as "illegal port"; it is never routed.
                continue;
            }
            if t.ports
                .get(usize::from(l))
                .is_some_and(|&x| x != Lft::NO_ROUTE)
            {
                return Err(c.err("each LID once per table"));
            }
            t.set(l, p, None);
            if p != Lft::NO_ROUTE {
                *routed += 1;
            }
        } else if line.ends_with("lids dumped") {
            let Some((t, range, all, routed)) = open.take() else {
                return Err(c.err("a table header before the `lids dumped` footer"));
            };
            let n = c.dec("the number of LIDs dumped")? as usize;
            if n as u64 != range && n != all && n != routed {
                return Err(c.err("a footer count equal to the entries read"));
            }
            out.push(t.close());
        } else if open.is_some() && (line.starts_with("Lid  Out") || line.starts_with("Port ")) {
            // ibroute's two column-title lines.
        } else {
            report.unrecognised.push(i + 1);
        }
    }
    if open.is_some() || multicast {
        return Err(FabricError::UnexpectedEof {
            file: file.to_owned(),
            line: last_line,
            expected: "the `… lids dumped` footer of the last table",
        });
    }
    Ok((out, report))
}

/// Parses `opensm.fdbs` (`dump_ucast_routes`): one [`SwitchTable`] per switch, in file order,
/// with hop counts. `UNREACHABLE` entries are [`Lft::NO_ROUTE`].
///
/// # Errors
/// [`FabricError::Syntax`] for a malformed header or entry, an entry before any header, or a
/// LID listed twice in one table.
pub fn parse_fdbs(text: &str, file: &str) -> Result<(Vec<SwitchTable>, LineReport), FabricError> {
    let mut report = LineReport::new(file, text);
    let mut out = Vec::new();
    let mut open: Option<Open> = None;
    let mut seen: Vec<bool> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let loc = Loc { file, line: i + 1 };
        let line = raw.trim();
        if line.is_empty() {
            continue;
        }
        let mut c = Cur::new(line, loc);
        if c.eat_str("dump_ucast_routes:") {
            c.ws();
            if !c.eat_word("Switch") {
                return Err(c.err("`Switch 0x<guid>` after `dump_ucast_routes:`"));
            }
            c.ws();
            let guid = c.hex("the switch's hexadecimal GUID")?;
            out.extend(open.take().map(Open::close));
            open = Some(Open::new(guid, None, i + 1));
            seen.clear();
        } else if line.starts_with("0x") {
            let Some(t) = open.as_mut() else {
                return Err(c.err("a `dump_ucast_routes: Switch …` header before the entries"));
            };
            let l = lid(&mut c, false)?;
            if std::mem::replace(
                {
                    if seen.len() <= usize::from(l) {
                        seen.resize(usize::from(l) + 1, false);
                    }
                    &mut seen[usize::from(l)]
                },
                true,
            ) {
                return Err(c.err("each LID once per table"));
            }
            c.ws();
            c.expect(':', "`:` after the LID")?;
            c.ws();
            if c.eat_word("UNREACHABLE") {
                t.set(l, Lft::NO_ROUTE, None);
            } else {
                let p = out_port(&mut c)?;
                c.ws();
                c.expect(':', "`:` after the port")?;
                c.ws();
                if c.eat_str("HOPS UNKNOWN") {
                    // OpenSM since `21757e88` (2009): a route whose hop count it cannot tell.
                    t.set(l, p, None);
                } else {
                    let save = c;
                    let h = c.dec("a decimal hop count")?;
                    let h = u8::try_from(h).map_err(|_| save.err("a hop count 0..=255"))?;
                    c.ws();
                    c.expect(':', "`:` after the hop count")?;
                    c.ws();
                    if !(c.eat_word("yes") || c.eat_word("no")) {
                        non_optimal(&mut c)?;
                    }
                    t.set(l, p, Some(h));
                }
            }
            if !c.at_end() {
                return Err(c.err("the end of the entry"));
            }
        } else if open.is_some() && line.starts_with("LID") && line.contains("Optimal") {
            // The column titles.
        } else {
            report.unrecognised.push(i + 1);
        }
    }
    out.extend(open.map(Open::close));
    Ok((out, report))
}

/// `No <best> hop path possible via port <port>!`: what `dump_ucast_routes` writes in the
/// `Optimal` column of a route longer than the shortest.
fn non_optimal(c: &mut Cur<'_>) -> Result<(), FabricError> {
    const EXPECTED: &str = "`yes`, `no` or `No N hop path possible via port P!` (optimal)";
    if !c.eat_word("No") {
        return Err(c.err(EXPECTED));
    }
    c.ws();
    c.dec(EXPECTED)?;
    c.ws();
    if !c.eat_str("hop path possible via port") {
        return Err(c.err(EXPECTED));
    }
    c.ws();
    c.dec(EXPECTED)?;
    c.expect('!', EXPECTED)
}

/// Attaches tables to the fabric's switches by GUID. `file` is the dump the tables came from.
///
/// # Errors
/// [`FabricError::Unknown`] for a GUID that is not a switch of the fabric;
/// [`FabricError::NodeConflict`] for a switch given two tables; [`FabricError::LidConflict`]
/// when a header's LID differs from the switch's LID in the fabric, or, for a switch without
/// a LID (which takes the header's), belongs to another port.
pub fn attach_tables(
    mut fabric: Fabric,
    tables: &[SwitchTable],
    file: &str,
) -> Result<Fabric, FabricError> {
    let mut given = vec![false; fabric.node_count()];
    for t in tables {
        let loc = Loc { file, line: t.line };
        let name = format!("0x{:016x}", t.guid);
        let node = fabric
            .node_by_guid(t.guid)
            .filter(|&n| fabric.node(n).kind() == NodeKind::Switch)
            .ok_or_else(|| loc.unknown("switch GUID", &name))?;
        if let Some(lid) = t.lid
            && fabric.node(node).lid().is_none()
        {
            // A topology without the switch's LID (an `ibnetdiscover` dump taken before the
            // subnet manager ran, `lid 0`): the table's header gives it.
            fabric.set_switch_lid(loc, node, lid)?;
        } else if let Some(lid) = t.lid
            && fabric.node(node).lid() != Some(lid)
        {
            return Err(loc.lid_conflict(
                u32::from(lid),
                "the header's LID differs from the switch's LID",
            ));
        }
        if std::mem::replace(&mut given[node.index()], true) {
            return Err(loc.node_conflict(&name, "given two forwarding tables"));
        }
        fabric.set_lft(node, t.lft.clone());
    }
    Ok(fabric)
}

/// Reads the ftree engine's `opensm-ftree-ca-order.dump` (`0x<LID><TAB><description>` per
/// line) and makes it the fabric's CA order. The description must be the CA's.
///
/// # Errors
/// [`FabricError::Syntax`] for a line that is not a hexadecimal LID and a description;
/// [`FabricError::Unknown`] for a LID that is not a CA's; [`FabricError::NodeConflict`] for a
/// description that differs from the CA's or a CA listed twice.
pub fn apply_ca_order(
    fabric: Fabric,
    text: &str,
    file: &str,
) -> Result<(Fabric, LineReport), FabricError> {
    apply_ca_order_lines(fabric, text, file, |fabric, loc, raw| {
        let mut c = Cur::new(raw, loc);
        let l = lid(&mut c, false)?;
        let Some(description) = c.s.strip_prefix('\t') else {
            return Err(c.err("a tab and the CA's description after the LID"));
        };
        let ep = ca_of_lid(fabric, l, loc, &format!("0x{l:04x}"))?;
        let node = fabric.node(ep.node);
        if node.description() != description {
            return Err(loc.node_conflict(node.name(), "description differs from the CA's"));
        }
        Ok((ep.node, node.name().to_owned()))
    })
}

/// Where the tables of [`read_dumps`] come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TableSource {
    /// `opensm-lfts.dump`.
    #[default]
    LftsDump,
    /// `opensm.fdbs`.
    Fdbs,
}

/// Reads an OpenSM dump folder (`OSM_TMP_DIR`): the fabric from `opensm-subnet.lst`, the tables
/// from `opensm-lfts.dump` or `opensm.fdbs`, and the CA order from
/// `opensm-ftree-ca-order.dump` when that file exists and is not empty (the ftree engine).
/// Returns the fabric and one [`LineReport`] per file read.
///
/// # Errors
/// [`FabricError::Io`] for a file that cannot be read, and the errors of
/// [`parse_subnet_lst`], [`parse_lfts`], [`parse_fdbs`], [`attach_tables`] and
/// [`apply_ca_order`].
pub fn read_dumps(
    dir: &Path,
    tables: TableSource,
) -> Result<(Fabric, Vec<LineReport>), FabricError> {
    let read = |name: &str| -> Result<(String, String), FabricError> {
        let path = dir.join(name);
        Ok((path.display().to_string(), read_text(&path)?))
    };
    let (file, text) = read("opensm-subnet.lst")?;
    let (mut fabric, r) = parse_subnet_lst(&text, &file)?;
    let mut reports = vec![r];
    let (file, text) = match tables {
        TableSource::LftsDump => read("opensm-lfts.dump")?,
        TableSource::Fdbs => read("opensm.fdbs")?,
    };
    let (t, r) = match tables {
        TableSource::LftsDump => parse_lfts(&text, &file)?,
        TableSource::Fdbs => parse_fdbs(&text, &file)?,
    };
    fabric = attach_tables(fabric, &t, &file)?;
    reports.push(r);
    let order = dir.join("opensm-ftree-ca-order.dump");
    if order.is_file() {
        let (file, text) = read("opensm-ftree-ca-order.dump")?;
        if !text.trim().is_empty() {
            let (f, r) = apply_ca_order(fabric, &text, &file)?;
            fabric = f;
            reports.push(r);
        }
    }
    Ok((fabric, reports))
}
