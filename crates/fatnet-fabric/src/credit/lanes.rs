//! Virtual lanes: which VL a route uses on each link, from OpenSM's SL-to-VL tables and the
//! routes' service levels.
//!
//! InfiniBand (IBA vol. 1, 7.6.6 and 14.2.5.8): a packet carries a service level (SL) end to
//! end; every output port maps it to a virtual lane through its SLtoVLMappingTable, which a
//! switch keeps per (input port, output port) pair and a CA per port. So the VL of a route on
//! the link leaving switch port `out` is `SL2VL[in][out][SL]`, with `in` the port it arrived on;
//! on the CA's injection link it is the CA port's `SL2VL[SL]`. This is how ibdm's credit-loop
//! check (`ibutils/ibdm/CredLoops.cpp`, `CrdLoopMarkRouteByLFT`: `nextVL =
//! getSLVL(inputPortNum, outPortNum, SL)`) follows a route; ibdm takes the injection VL equal to
//! the SL, which is what a CA without a table gets here too.
//!
//! Where the inputs come from (OpenSM 3.3.23):
//! - **SL-to-VL tables**: `opensm-sl2vl.dump`, which `osm_dump.c` (`dump_sl2vl_tbl`) writes with
//!   the ROUTING log flag when QoS is on (`-Q`) or the engine programs the tables itself:
//!
//!   ```text
//!   Switch 0x5357010000000000, base LID 1, "sw 1 0"
//!   #in out : 0  1  2  3  4  5  6  7  8  9  10 11 12 13 14 15
//!   #--------------------------------------------------------
//!   0   1   : 0  1  2  3  4  5  6  7  0  1  2  3  4  5  6  7
//!   Channel Adapter 0x4341000000000b01, base LID 28, "ca 11"
//!   0   0   : 0  1  2  3  4  5  6  7  0  1  2  3  4  5  6  7
//!   ```
//!
//!   one row per (input port, connected output port) of a switch, one row `0 0` per CA port.
//!   Tables attach by base LID (the header's GUID is the port GUID; for a switch it must be the
//!   switch's node GUID).
//! - **Path SLs**: OpenSM writes no dump of them. LASH (`osm_ucast_lash.c`, `get_lash_sl`) and
//!   DFSSSP (`osm_ucast_dfsssp.c`, `get_dfsssp_sl`) answer the `path_sl` callback that the SA
//!   uses for path records, so the SL of each pair is read from `saquery PR --slid S --dlid D`
//!   (infiniband-diags) against the running OpenSM: `PathRecord dump:` blocks of
//!   `name.....value` lines, of which `slid`, `dlid` (decimal) and `sl` (`0x` hex) are used.
//!   `scripts/opensm-loop.sh` collects them into `saquery-pr.out` for `lash` and `dfsssp`.
//!   DFSSSP may spread one VL's routes over several SLs at random per query (its balancing,
//!   `vl_split_count`): each answer is one of the SLs OpenSM would hand out, all equally
//!   deadlock-free by its construction.

use std::collections::BTreeMap;

use crate::error::{FabricError, Loc};
use crate::fabric::{Fabric, NodeId, NodeKind};
use crate::text::{Cur, LineReport};

/// The number of service levels (and of entries of an SL-to-VL table).
pub const SLS: usize = 16;

/// One SL-to-VL table of `opensm-sl2vl.dump`: a switch's rows per (input, output) port pair,
/// or a CA port's single row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sl2VlTable {
    /// Switch or CA (the header's `Switch` / `Channel Adapter`; `Router` is read as a router).
    pub kind: NodeKind,
    /// The port GUID of the header.
    pub guid: u64,
    /// The base LID of the header.
    pub lid: u16,
    /// The 1-based line of the header.
    pub line: usize,
    /// `(input port, output port, VL per SL)`, in file order.
    pub rows: Vec<(u8, u8, [u8; SLS])>,
}

/// One path record's service level: routes from `slid` to `dlid` use `sl`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PathSl {
    /// The source LID.
    pub slid: u16,
    /// The destination LID.
    pub dlid: u16,
    /// The service level, 0..=15.
    pub sl: u8,
    /// The 1-based line of the record's `PathRecord dump:` header.
    pub line: usize,
}

fn small(c: &mut Cur<'_>, max: u32, expected: &'static str) -> Result<u8, FabricError> {
    c.ws();
    let save = *c;
    let v = c.dec(expected)?;
    if v > max {
        return Err(save.err(expected));
    }
    Ok(v as u8)
}

/// Parses OpenSM's `opensm-sl2vl.dump` (format in the module documentation): one
/// [`Sl2VlTable`] per header, in file order. Lines starting with `#` are column titles.
///
/// # Errors
/// [`FabricError::Syntax`] for a malformed header or row, a row before any header, a VL above
/// 15, a port above 254, or an (input, output) pair listed twice in one table.
pub fn parse_sl2vl(text: &str, file: &str) -> Result<(Vec<Sl2VlTable>, LineReport), FabricError> {
    let mut report = LineReport::new(file, text);
    let mut out: Vec<Sl2VlTable> = Vec::new();
    let mut seen: Vec<bool> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let loc = Loc { file, line: i + 1 };
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut c = Cur::new(line, loc);
        let kind = if c.eat_str("Switch ") {
            Some(NodeKind::Switch)
        } else if c.eat_str("Channel Adapter ") {
            Some(NodeKind::Ca)
        } else if c.eat_str("Router ") {
            Some(NodeKind::Router)
        } else {
            None
        };
        if let Some(kind) = kind {
            c.ws();
            let guid = c.hex("the port's hexadecimal GUID")?;
            if !c.eat_str(", base LID ") {
                return Err(c.err("`, base LID <decimal>` after the GUID"));
            }
            let save = c;
            let lid = c.dec("a decimal base LID")?;
            let lid = u16::try_from(lid)
                .ok()
                .filter(|&l| (1..=0xBFFF).contains(&l))
                .ok_or_else(|| save.err("a unicast LID 1..=49151"))?;
            if !c.eat_str(", \"") || !c.s.ends_with('"') {
                return Err(c.err("`, \"<node description>\"` after the LID"));
            }
            out.push(Sl2VlTable {
                kind,
                guid,
                lid,
                line: i + 1,
                rows: Vec::new(),
            });
            seen.clear();
            continue;
        }
        if !line.starts_with(|ch: char| ch.is_ascii_digit()) {
            report.unrecognised.push(i + 1);
            continue;
        }
        let Some(table) = out.last_mut() else {
            return Err(c.err("a `Switch …` or `Channel Adapter …` header before the rows"));
        };
        let input = small(&mut c, 254, "an input port 0..=254")?;
        let output = small(&mut c, 254, "an output port 0..=254")?;
        c.ws();
        c.expect(':', "`:` after the input and output ports")?;
        let mut vls = [0u8; SLS];
        for v in &mut vls {
            *v = small(&mut c, 15, "16 VLs 0..=15, one per SL")?;
        }
        if !c.at_end() {
            return Err(c.err("the end of the row after 16 VLs"));
        }
        let key = usize::from(input) * 255 + usize::from(output);
        if seen.len() <= key {
            seen.resize(key + 1, false);
        }
        if std::mem::replace(&mut seen[key], true) {
            return Err(loc.syntax("each (input, output) port pair once per table", line));
        }
        table.rows.push((input, output, vls));
    }
    Ok((out, report))
}

/// A path record being read: its header line, slid, dlid and sl.
type OpenRecord = (usize, Option<u16>, Option<u16>, Option<u8>);

/// Parses the output of `saquery PR` (one or many queries, concatenated; format in the module
/// documentation): one [`PathSl`] per `PathRecord dump:` block, in file order. Other fields
/// are skipped; lines of no known shape are reported.
///
/// # Errors
/// [`FabricError::Syntax`] for a `slid`, `dlid` or `sl` that is not a number (a LID
/// 1..=49151, an SL 0..=15), a field before any `PathRecord dump:` line, a record without
/// `slid`, `dlid` or `sl`, or two records of one (slid, dlid) pair with different SLs.
pub fn parse_path_records(
    text: &str,
    file: &str,
) -> Result<(Vec<PathSl>, LineReport), FabricError> {
    let mut report = LineReport::new(file, text);
    let mut out: Vec<PathSl> = Vec::new();
    // The open record: header line, slid, dlid, sl.
    let mut open: Option<OpenRecord> = None;
    let mut by_pair: BTreeMap<(u16, u16), u8> = BTreeMap::new();
    let close = |open: Option<OpenRecord>,
                 out: &mut Vec<PathSl>,
                 by_pair: &mut BTreeMap<(u16, u16), u8>|
     -> Result<(), FabricError> {
        let Some((line, slid, dlid, sl)) = open else {
            return Ok(());
        };
        let loc = Loc { file, line };
        let (Some(slid), Some(dlid), Some(sl)) = (slid, dlid, sl) else {
            return Err(loc.syntax(
                "a path record with `slid`, `dlid` and `sl`",
                "PathRecord dump:",
            ));
        };
        if let Some(&earlier) = by_pair.get(&(slid, dlid)) {
            if earlier != sl {
                return Err(loc.syntax(
                    "the SL of the earlier record of this (slid, dlid) pair",
                    &format!("slid {slid} dlid {dlid} sl {sl} (earlier sl {earlier})"),
                ));
            }
            return Ok(());
        }
        by_pair.insert((slid, dlid), sl);
        out.push(PathSl {
            slid,
            dlid,
            sl,
            line,
        });
        Ok(())
    };
    for (i, raw) in text.lines().enumerate() {
        let loc = Loc { file, line: i + 1 };
        let line = raw.trim();
        if line.is_empty() {
            continue;
        }
        if line == "PathRecord dump:" {
            close(open.take(), &mut out, &mut by_pair)?;
            open = Some((i + 1, None, None, None));
            continue;
        }
        let Some(dots) = line.find("..") else {
            report.unrecognised.push(i + 1);
            continue;
        };
        let key = &line[..dots];
        let value = line[dots..].trim_start_matches('.');
        if !matches!(key, "slid" | "dlid" | "sl") {
            if open.is_none() {
                report.unrecognised.push(i + 1);
            }
            continue;
        }
        let Some(record) = open.as_mut() else {
            return Err(loc.syntax("a `PathRecord dump:` line before the fields", line));
        };
        let mut c = Cur::new(value, loc);
        let number = if value.starts_with("0x") {
            c.hex("a number")?
        } else {
            u64::from(c.dec("a number")?)
        };
        if !c.at_end() {
            return Err(c.err("a number alone after the dots"));
        }
        if key == "sl" {
            let sl = u8::try_from(number)
                .ok()
                .filter(|&s| usize::from(s) < SLS)
                .ok_or_else(|| loc.syntax("an SL 0..=15", value))?;
            record.3 = Some(sl);
        } else {
            let lid = u16::try_from(number)
                .ok()
                .filter(|&l| (1..=0xBFFF).contains(&l))
                .ok_or_else(|| loc.syntax("a unicast LID 1..=49151", value))?;
            if key == "slid" {
                record.1 = Some(lid);
            } else {
                record.2 = Some(lid);
            }
        }
    }
    close(open, &mut out, &mut by_pair)?;
    Ok((out, report))
}

const NO_VL: u8 = u8::MAX;

/// The virtual lanes of a fabric's routes: SL-to-VL tables attached to its switches and CAs,
/// and an SL for every ordered pair of distinct CAs of its CA order. Built by
/// [`VirtualLanes::new`], which checks completeness, so that looking a lane up never fails.
#[derive(Debug, Clone)]
pub struct VirtualLanes {
    /// Per node: the first entry of its table in `vl`, the stride `P + 1`, or `None`.
    switch_base: Vec<Option<(usize, usize)>>,
    /// Switch entries `[(in · stride + out) · 16 + sl]`, [`NO_VL`] for none.
    vl: Vec<u8>,
    /// Per node: a CA port's table (its first connected port).
    ca: Vec<Option<[u8; SLS]>>,
    /// `(slid << 16 | dlid, sl)`, sorted.
    sls: Vec<(u32, u8)>,
    lanes: u8,
}

impl VirtualLanes {
    /// Attaches the SL-to-VL `tables` (read from `tables_file`) and the path SLs `paths` (read
    /// from `paths_file`) to `fabric`.
    ///
    /// # Errors
    /// [`FabricError::Unknown`] for a table whose LID is not a node of that kind (or, for a
    /// switch, whose GUID is not the switch's); [`FabricError::NodeConflict`] for a node given
    /// two tables; [`FabricError::PortOutOfRange`] for a row naming a port the node does not
    /// have; [`FabricError::MissingEntry`] for a switch without a table, a switch table without
    /// a row for a pair of connected ports, or a pair of CAs of the CA order without a path
    /// SL.
    pub fn new(
        fabric: &Fabric,
        tables: &[Sl2VlTable],
        tables_file: &str,
        paths: &[PathSl],
        paths_file: &str,
    ) -> Result<Self, FabricError> {
        let n = fabric.node_count();
        let mut switch_base = vec![None; n];
        let mut vl = Vec::new();
        let mut ca = vec![None; n];
        let mut lanes = 1u8;
        let mut given = vec![false; n];
        for t in tables {
            let loc = Loc {
                file: tables_file,
                line: t.line,
            };
            let node = fabric
                .endpoint_of_lid(t.lid)
                .map(|e| e.node)
                .filter(|&v| fabric.node(v).kind() == t.kind)
                .filter(|&v| t.kind != NodeKind::Switch || fabric.node(v).guid() == Some(t.guid))
                .ok_or_else(|| {
                    loc.unknown(
                        "node of this kind and GUID at LID",
                        &format!("{} (GUID 0x{:016x})", t.lid, t.guid),
                    )
                })?;
            let name = fabric.node(node).name();
            if std::mem::replace(&mut given[node.index()], true) {
                return Err(loc.node_conflict(name, "given two SL-to-VL tables"));
            }
            let ports = fabric.node(node).port_count();
            for &(i, o, row) in &t.rows {
                let worst = i.max(o);
                if worst > ports {
                    return Err(loc.port_range(name, u32::from(worst), u32::from(ports)));
                }
                lanes = lanes.max(row.iter().copied().max().unwrap_or(0) + 1);
            }
            match t.kind {
                NodeKind::Switch => {
                    let stride = usize::from(ports) + 1;
                    let base = vl.len();
                    vl.resize(base + stride * stride * SLS, NO_VL);
                    for &(i, o, row) in &t.rows {
                        let at = base + (usize::from(i) * stride + usize::from(o)) * SLS;
                        vl[at..at + SLS].copy_from_slice(&row);
                    }
                    switch_base[node.index()] = Some((base, stride));
                }
                NodeKind::Ca => {
                    ca[node.index()] = t.rows.first().map(|r| r.2);
                }
                NodeKind::Router => {}
            }
        }
        // Completeness: every pair of connected ports of every switch.
        for s in fabric.switches() {
            let name = fabric.node(s).name();
            let Some((base, stride)) = switch_base[s.index()] else {
                return Err(FabricError::MissingEntry {
                    file: tables_file.to_owned(),
                    what: "SL-to-VL table of switch",
                    name: name.to_owned(),
                });
            };
            for (o, _) in fabric.neighbours(s) {
                for (i, _) in fabric.neighbours(s) {
                    let at = base + (usize::from(i) * stride + usize::from(o)) * SLS;
                    if vl[at] == NO_VL {
                        return Err(FabricError::MissingEntry {
                            file: tables_file.to_owned(),
                            what: "SL-to-VL row (input port, output port) of switch",
                            name: format!("{name} ({i}, {o})"),
                        });
                    }
                }
            }
        }
        let mut sls: Vec<(u32, u8)> = paths
            .iter()
            .map(|p| ((u32::from(p.slid) << 16) | u32::from(p.dlid), p.sl))
            .collect();
        sls.sort_unstable();
        sls.dedup_by_key(|x| x.0);
        // A CA without a table injects on VL = SL.
        lanes = lanes.max(sls.iter().map(|x| x.1 + 1).max().unwrap_or(1));
        let me = Self {
            switch_base,
            vl,
            ca,
            sls,
            lanes,
        };
        for &d in fabric.ca_order() {
            for &s in fabric.ca_order() {
                if s != d && me.sl(fabric, s, d).is_none() {
                    let label = |v: NodeId| {
                        let node = fabric.node(v);
                        match node.lid() {
                            Some(l) => format!("{} (LID {l})", node.name()),
                            None => format!("{} (no LID)", node.name()),
                        }
                    };
                    return Err(FabricError::MissingEntry {
                        file: paths_file.to_owned(),
                        what: "path SL from source to destination",
                        name: format!("{} -> {}", label(s), label(d)),
                    });
                }
            }
        }
        Ok(me)
    }

    /// The number of virtual lanes: the highest VL in any table (or SL of a path, the VL of a
    /// CA without a table), plus one.
    #[must_use]
    pub fn lanes(&self) -> u8 {
        self.lanes
    }

    /// The SL of routes from CA `src` to CA `dst` (by their LIDs), `None` when not given.
    #[must_use]
    pub fn sl(&self, fabric: &Fabric, src: NodeId, dst: NodeId) -> Option<u8> {
        let s = fabric.node(src).lid()?;
        let d = fabric.node(dst).lid()?;
        let key = (u32::from(s) << 16) | u32::from(d);
        self.sls
            .binary_search_by_key(&key, |x| x.0)
            .ok()
            .map(|i| self.sls[i].1)
    }

    /// The VL of SL `sl` on the link a CA sends on: its table's, or `sl` itself when the CA has
    /// no table (as ibdm assumes).
    #[must_use]
    pub fn ca_vl(&self, ca: NodeId, sl: u8) -> u8 {
        match self.ca.get(ca.index()).copied().flatten() {
            Some(row) => row[usize::from(sl) % SLS],
            None => sl,
        }
    }

    /// The VL of SL `sl` leaving switch `switch` through port `output` after arriving through
    /// port `input`; `None` without a table entry.
    #[must_use]
    pub fn switch_vl(&self, switch: NodeId, input: u8, output: u8, sl: u8) -> Option<u8> {
        let (base, stride) = self.switch_base.get(switch.index()).copied().flatten()?;
        let (i, o) = (usize::from(input), usize::from(output));
        if i >= stride || o >= stride {
            return None;
        }
        let v = self.vl[base + (i * stride + o) * SLS + usize::from(sl) % SLS];
        (v != NO_VL).then_some(v)
    }
}

impl VirtualLanes {
    /// Reads `opensm-sl2vl.dump` at `sl2vl` and `saquery PR` output at `paths` and attaches
    /// them to `fabric` ([`VirtualLanes::new`]).
    ///
    /// # Errors
    /// [`FabricError::Io`] for a file that cannot be read, and the errors of [`parse_sl2vl`],
    /// [`parse_path_records`] and [`VirtualLanes::new`].
    pub fn read(
        fabric: &Fabric,
        sl2vl: &std::path::Path,
        paths: &std::path::Path,
    ) -> Result<Self, FabricError> {
        let tables_file = sl2vl.display().to_string();
        let (tables, _) = parse_sl2vl(&crate::read_text(sl2vl)?, &tables_file)?;
        let paths_file = paths.display().to_string();
        let (sls, _) = parse_path_records(&crate::read_text(paths)?, &paths_file)?;
        Self::new(fabric, &tables, &tables_file, &sls, &paths_file)
    }
}
