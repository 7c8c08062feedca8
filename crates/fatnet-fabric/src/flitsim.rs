//! Readers for the files of ib_flit_sim, the OMNeT++ InfiniBand flit-level model
//! (`garyson/ib_flit_sim`, `examples/*`): the network `.ned`, the forwarding tables `.fdbs`
//! with their switch index `.fdbs.ini`, and the CA order `ftree.hcas`.
//!
//! **Ports are numbered from 0 in these files** (`SW.port[0]`, `.fdbs` entries); the
//! [`Fabric`] uses InfiniBand numbering, so every port read here is shifted up by one (gate
//! `port[i]` is port `i + 1`, an HCA's single gate `port` is port 1). `255` in `.fdbs` means
//! "no route".
//!
//! * `.ned`: `NAME: HCA { parameters: srcLid = N; }`, `NAME: Switch {` with
//!   `parameters: numSwitchPorts = N;` and `gates: port[N];`, and connections
//!   `A.port[i] <--> Channel <--> B.port[j];`. `package`, `import`, `network`, `submodules:`,
//!   `connections:`, braces and `//` comments are recognised.
//! * `.fdbs`: `INDEX: p p p ...`, one entry per LID from LID 0; a long table continues on
//!   further lines starting with the same `INDEX:`.
//! * `.fdbs.ini`: `**.SWITCH.pktfwd.fdbIndex = INDEX` under `[General]`.
//! * `ftree.hcas`: `NAME/PORT LID` per line, in the order the routing engine numbered the CAs
//!   (`H-1/U1/1 1` is port 1 of the CA `H-1/U1`, i.e. `.ned` node `H_1_U1`).

use std::collections::BTreeMap;

use crate::error::{FabricError, Loc};
use crate::fabric::{Builder, Fabric, Lft, NodeId, NodeKind};
use crate::text::{Cur, LineReport, apply_ca_order_lines, ca_of_lid};

fn ident<'a>(c: &mut Cur<'a>) -> &'a str {
    c.take_while(|ch| ch.is_ascii_alphanumeric() || ch == '_')
}

/// Parses an ib_flit_sim `.ned` network into a fabric without forwarding tables.
///
/// # Errors
/// [`FabricError::Syntax`] for malformed submodules, parameters or connections,
/// [`FabricError::Unknown`] for a connection to an undeclared submodule,
/// [`FabricError::LinkMismatch`] for a gate connected twice,
/// [`FabricError::UnexpectedEof`] for an unclosed submodule, and the LID and port errors of
/// the other readers.
pub fn parse_ned(text: &str, file: &str) -> Result<(Fabric, LineReport), FabricError> {
    let mut report = LineReport::new(file, text);
    let mut b = Builder::default();
    let mut open: Option<NodeId> = None;
    let mut last_line = 0;
    for (i, raw) in text.lines().enumerate() {
        last_line = i + 1;
        let loc = Loc { file, line: i + 1 };
        let line = raw.trim();
        if line.is_empty() || line.starts_with("//") {
            continue;
        }
        let mut c = Cur::new(line, loc);
        if let Some(node) = open {
            if module_body(&mut b, node, &mut c)? {
                open = None;
            }
            continue;
        }
        if c.eat_word("package") || c.eat_word("import") {
            if !line.ends_with(';') {
                return Err(c.err("`;` at the end of the declaration"));
            }
            continue;
        }
        if c.eat_word("network") || line == "{" || line == "}" || line == "};" {
            continue;
        }
        if line == "submodules:" || line.starts_with("connections") && line.ends_with(':') {
            continue;
        }
        let first = ident(&mut c);
        if first.is_empty() {
            report.unrecognised.push(i + 1);
            continue;
        }
        if c.eat(':') {
            c.ws();
            let ty = ident(&mut c);
            let kind = match ty {
                "HCA" => NodeKind::Ca,
                "Switch" => NodeKind::Switch,
                _ => return Err(c.err("a submodule type `HCA` or `Switch`")),
            };
            if b.node_by_name(first).is_some() {
                return Err(loc.node_conflict(first, "declared twice"));
            }
            let node = b.add_node(kind, first, None);
            if kind == NodeKind::Ca {
                b.declare_ports(loc, node, 1)?;
            }
            c.ws();
            c.expect('{', "`{` after the submodule type")?;
            if !module_body(&mut b, node, &mut c)? {
                open = Some(node);
            }
        } else if c.eat('.') {
            connection(&mut b, first, &mut c)?;
        } else {
            report.unrecognised.push(i + 1);
        }
    }
    if open.is_some() {
        return Err(FabricError::UnexpectedEof {
            file: file.to_owned(),
            line: last_line,
            expected: "`}` closing the submodule",
        });
    }
    Ok((b.finish(), report))
}

/// Parses submodule body statements up to the end of the line; `true` when `}` closed it.
fn module_body(b: &mut Builder, node: NodeId, c: &mut Cur<'_>) -> Result<bool, FabricError> {
    loop {
        c.ws();
        if c.s.is_empty() {
            return Ok(false);
        }
        if c.eat('}') {
            c.eat(';');
            c.ws();
            if !c.at_end() {
                return Err(c.err("the end of the line after `}`"));
            }
            return Ok(true);
        }
        if c.eat_word("parameters") || c.eat_word("gates") {
            c.ws();
            c.expect(':', "`:` after `parameters` or `gates`")?;
            continue;
        }
        let key = ident(c);
        c.ws();
        if key == "port" && c.eat('[') {
            let n = c.dec("the gate count in `port[N]`")?;
            c.expect(']', "`]`")?;
            c.ws();
            c.expect(';', "`;`")?;
            let declared = b.node(node).port_count();
            if u32::from(declared) != n {
                if declared != 0 {
                    return Err(c.err("a gate count equal to numSwitchPorts"));
                }
                b.declare_ports(c.loc, node, n)?;
            }
            continue;
        }
        if key.is_empty() {
            return Err(c.err("a parameter `name = value;` or `}`"));
        }
        c.expect('=', "`=` after the parameter name")?;
        c.ws();
        let value = c.dec("a decimal parameter value")?;
        c.ws();
        c.expect(';', "`;` after the parameter value")?;
        match key {
            "srcLid" => b.set_lid(c.loc, node, 1, value)?,
            "numSwitchPorts" => {
                let declared = b.node(node).port_count();
                if declared != 0 && u32::from(declared) != value {
                    return Err(c.err("numSwitchPorts equal to the gate count"));
                }
                b.declare_ports(c.loc, node, value)?;
            }
            _ => {}
        }
    }
}

/// `NAME.port[i]` (after `NAME.`): the node and its InfiniBand port number.
fn gate(b: &Builder, name: &str, c: &mut Cur<'_>) -> Result<(NodeId, u32), FabricError> {
    let node = b
        .node_by_name(name)
        .ok_or_else(|| c.loc.unknown("submodule", name))?;
    if !c.eat_word("port") {
        return Err(c.err("the gate `port` or `port[i]`"));
    }
    let port = if c.eat('[') {
        let i = c.dec("a gate index in `port[...]`")?;
        c.expect(']', "`]` after the gate index")?;
        i.saturating_add(1)
    } else {
        1
    };
    Ok((node, port))
}

fn connection(b: &mut Builder, first: &str, c: &mut Cur<'_>) -> Result<(), FabricError> {
    let (a, pa) = gate(b, first, c)?;
    c.ws();
    if !c.eat_str("<-->") {
        return Err(c.err("`<-->` after the first gate"));
    }
    c.ws();
    // An optional channel type between two arrows.
    let mut probe = *c;
    let word = ident(&mut probe);
    probe.ws();
    if !word.is_empty() && probe.eat_str("<-->") {
        *c = probe;
        c.ws();
    }
    let name = ident(c);
    if name.is_empty() || !c.eat('.') {
        return Err(c.err("the second gate `NAME.port[i]`"));
    }
    let (z, pz) = gate(b, name, c)?;
    c.ws();
    c.expect(';', "`;` at the end of the connection")?;
    if !c.at_end() {
        return Err(c.err("the end of the line after `;`"));
    }
    b.connect(c.loc, a, pa, z, pz)
}

/// The raw tables of an `.fdbs` file: fdb index → entries (0-based ports, 255 for none).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FdbTables {
    /// Index → entries, as written (ports from 0).
    pub tables: BTreeMap<u32, Vec<u8>>,
}

/// Parses an ib_flit_sim `.fdbs` file.
///
/// # Errors
/// [`FabricError::Syntax`] for a line that is not `INDEX: entries`, an entry that is not a port
/// (0..=253) or 255, or a table whose lines are not consecutive.
pub fn parse_fdbs(text: &str, file: &str) -> Result<(FdbTables, LineReport), FabricError> {
    let report = LineReport::new(file, text);
    let mut out = FdbTables::default();
    let mut last: Option<u32> = None;
    for (i, raw) in text.lines().enumerate() {
        let loc = Loc { file, line: i + 1 };
        let line = raw.trim();
        if line.is_empty() {
            continue;
        }
        let mut c = Cur::new(line, loc);
        let index = c.dec("a table index `N:` at the start of the line")?;
        c.expect(':', "`:` after the table index")?;
        if last != Some(index) && out.tables.contains_key(&index) {
            return Err(c.err("the lines of one table next to each other"));
        }
        last = Some(index);
        let entries = out.tables.entry(index).or_default();
        for w in c.s.split_whitespace() {
            match w.parse::<u8>() {
                Ok(p) if p < 254 || p == 255 => entries.push(p),
                _ => return Err(loc.syntax("a port 0..=253 or 255 (no route)", w)),
            }
        }
    }
    Ok((out, report))
}

/// One `**.SWITCH.pktfwd.fdbIndex = INDEX` line of an `.fdbs.ini`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FdbIndexEntry {
    /// The switch's `.ned` name.
    pub switch: String,
    /// Its table's index in the `.fdbs` file.
    pub index: u32,
    /// The 1-based line of the assignment.
    pub line: usize,
}

/// Parses an ib_flit_sim `.fdbs.ini`: switch name → fdb index, in file order.
///
/// # Errors
/// [`FabricError::Syntax`] for a malformed `fdbIndex` assignment.
pub fn parse_fdbs_ini(
    text: &str,
    file: &str,
) -> Result<(Vec<FdbIndexEntry>, LineReport), FabricError> {
    let mut report = LineReport::new(file, text);
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let loc = Loc { file, line: i + 1 };
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') || line.starts_with(';') {
            continue;
        }
        if line.starts_with('[') && line.ends_with(']') {
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            report.unrecognised.push(i + 1);
            continue;
        };
        let key = key.trim();
        let Some(name) = key
            .strip_prefix("**.")
            .and_then(|k| k.strip_suffix(".pktfwd.fdbIndex"))
        else {
            report.unrecognised.push(i + 1);
            continue;
        };
        let index = value
            .trim()
            .parse::<u32>()
            .map_err(|_| loc.syntax("a decimal fdb index", value.trim()))?;
        out.push(FdbIndexEntry {
            switch: name.to_owned(),
            index,
            line: i + 1,
        });
    }
    Ok((out, report))
}

/// Attaches the forwarding tables of `.fdbs` to the switches named in `.fdbs.ini`.
///
/// # Errors
/// [`FabricError::Unknown`] (located in the `.fdbs.ini` file) for a name that is not a switch
/// of the fabric or an index without a table; [`FabricError::NodeConflict`] for a switch given
/// two tables.
pub fn attach_tables(
    mut fabric: Fabric,
    tables: &FdbTables,
    index: &[FdbIndexEntry],
    ini_file: &str,
) -> Result<Fabric, FabricError> {
    for FdbIndexEntry {
        switch: name,
        index: idx,
        line,
    } in index
    {
        let loc = Loc {
            file: ini_file,
            line: *line,
        };
        let node = fabric
            .node_by_name(name)
            .filter(|&n| fabric.node(n).kind() == NodeKind::Switch)
            .ok_or_else(|| loc.unknown("switch", name))?;
        if fabric.lft(node).is_some() {
            return Err(loc.node_conflict(name, "given two forwarding tables"));
        }
        let entries = tables
            .tables
            .get(idx)
            .ok_or_else(|| loc.unknown("fdb index", &idx.to_string()))?;
        let ports = entries
            .iter()
            .map(|&p| if p == Lft::NO_ROUTE { p } else { p + 1 })
            .collect();
        fabric.set_lft(node, Lft::new(ports));
    }
    Ok(fabric)
}

/// Reads `ftree.hcas` and makes its order the fabric's CA order. Lines are matched to CAs by
/// LID; the name must agree with the `.ned` name (`H-1/U1` is `H_1_U1`) when the fabric has a
/// node of that name.
///
/// # Errors
/// [`FabricError::Syntax`] for a line that is not `NAME/PORT LID`, [`FabricError::Unknown`] for
/// a LID that is not a CA port, [`FabricError::NodeConflict`] for a name or port that disagrees
/// with the CA owning the LID, or a CA listed twice.
pub fn apply_ca_order(
    fabric: Fabric,
    text: &str,
    file: &str,
) -> Result<(Fabric, LineReport), FabricError> {
    apply_ca_order_lines(fabric, text, file, |fabric, loc, raw| {
        let line = raw.trim();
        let mut parts = line.split_whitespace();
        let (Some(port_name), Some(lid), None) = (parts.next(), parts.next(), parts.next()) else {
            return Err(loc.syntax("`NAME/PORT LID`", line));
        };
        let Some((name, port)) = port_name.rsplit_once('/') else {
            return Err(loc.syntax("`NAME/PORT` with a port number after the last `/`", line));
        };
        let port: u8 = port
            .parse()
            .map_err(|_| loc.syntax("a port number after the last `/`", port))?;
        let shown = lid;
        let lid: u16 = lid.parse().map_err(|_| loc.syntax("a decimal LID", lid))?;
        let ep = ca_of_lid(fabric, lid, loc, shown)?;
        if ep.port != port {
            return Err(loc.node_conflict(name, "port differs from the port owning the LID"));
        }
        let ned_name: String = name
            .chars()
            .map(|ch| if ch == '-' || ch == '/' { '_' } else { ch })
            .collect();
        if let Some(named) = fabric.node_by_name(&ned_name).or(fabric.node_by_name(name))
            && named != ep.node
        {
            return Err(loc.node_conflict(name, "name differs from the CA owning the LID"));
        }
        Ok((ep.node, name.to_owned()))
    })
}
