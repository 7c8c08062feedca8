//! Reader for ibdm's `.topo` system-level topology files (as used by ib_flit_sim).
//!
//! ```text
//! MTS800 SW-L2-0-0              a system: TYPE NAME (an optional `CFG:` part is ignored)
//!     P1 -> Cougar H-1 P1       its port P1 is cabled to port P1 of system H-1, of type Cougar
//!     P19 -> MIS5600 SWS_0 L1/P1
//! ```
//!
//! Ports are InfiniBand-numbered (`P1` is port 1). The file describes *systems*: a director
//! such as the MIS5600 is one system whose front-panel ports are `L<card>/P<n>`; its internal
//! chips and wiring live in ibdm's system definitions (`.ibnl`), which are not in the file.
//! We read `SYS L<card>/P<n>` as port `n` of a node named `SYS/L<card>` (the line card's leaf
//! chip), so the result is the fabric outside the directors, exact for systems made of one
//! chip. Systems whose type is listed in [`IbdmOptions::ca_types`] are CAs; every other system
//! (declared with a block of ports, or only referenced) is a switch. A link may be listed from
//! one end or both; both listings must agree.

use crate::error::{FabricError, Loc};
use crate::fabric::{Builder, Fabric, NodeId, NodeKind};
use crate::text::{Cur, LineReport};

/// How to read a `.topo` file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IbdmOptions {
    /// System types that are channel adapters (ibdm knows them from its `.ibnl` files, which
    /// the `.topo` does not carry). Default: `Cougar` (the HCA of ib_flit_sim's examples) and
    /// `HCA`.
    pub ca_types: Vec<String>,
}

impl Default for IbdmOptions {
    fn default() -> Self {
        Self {
            ca_types: vec!["Cougar".to_owned(), "HCA".to_owned()],
        }
    }
}

/// Parses an ibdm `.topo` file.
///
/// # Errors
/// [`FabricError::Syntax`] for a port line outside a system block or not of the form
/// `PORT -> TYPE NAME PORT`, or a port name that is neither `P<n>` nor `<card>/P<n>`;
/// [`FabricError::NodeConflict`] for a system declared twice or with two types;
/// [`FabricError::LinkMismatch`] when two listings of a port disagree.
pub fn parse(
    text: &str,
    file: &str,
    options: &IbdmOptions,
) -> Result<(Fabric, LineReport), FabricError> {
    let mut report = LineReport::new(file, text);
    let mut b = Builder::default();
    let mut types: Vec<String> = Vec::new();
    let mut declared: Vec<bool> = Vec::new();
    let mut current: Option<String> = None;
    for (i, raw) in text.lines().enumerate() {
        let loc = Loc { file, line: i + 1 };
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let indented = raw.starts_with([' ', '\t']);
        let mut words = line.split_whitespace();
        if indented {
            let (Some(port), Some("->"), Some(ty), Some(name), Some(peer_port), None) = (
                words.next(),
                words.next(),
                words.next(),
                words.next(),
                words.next(),
                words.next(),
            ) else {
                report.unrecognised.push(i + 1);
                continue;
            };
            let Some(system) = current.as_deref() else {
                return Err(loc.syntax("a system line `TYPE NAME` before its ports", line));
            };
            let own_type = types_of(&b, &types, system);
            let (a, pa) = port_node(
                &mut b,
                &mut types,
                &mut declared,
                loc,
                options,
                &own_type,
                system,
                port,
            )?;
            let (z, pz) = port_node(
                &mut b,
                &mut types,
                &mut declared,
                loc,
                options,
                ty,
                name,
                peer_port,
            )?;
            b.connect(loc, a, pa, z, pz)?;
        } else {
            let (Some(ty), Some(name)) = (words.next(), words.next()) else {
                report.unrecognised.push(i + 1);
                continue;
            };
            if words.next().is_some_and(|w| !w.starts_with("CFG:")) {
                report.unrecognised.push(i + 1);
                continue;
            }
            let id = system_node(&mut b, &mut types, &mut declared, loc, options, ty, name)?;
            if std::mem::replace(&mut declared[id.index()], true) {
                return Err(loc.node_conflict(name, "system declared twice"));
            }
            current = Some(name.to_owned());
        }
    }
    Ok((b.finish(), report))
}

fn types_of(b: &Builder, types: &[String], system: &str) -> String {
    b.node_by_name(system)
        .map(|id| types[id.index()].clone())
        .unwrap_or_default()
}

fn system_node(
    b: &mut Builder,
    types: &mut Vec<String>,
    declared: &mut Vec<bool>,
    loc: Loc<'_>,
    options: &IbdmOptions,
    ty: &str,
    name: &str,
) -> Result<NodeId, FabricError> {
    if let Some(id) = b.node_by_name(name) {
        if types[id.index()] != ty {
            return Err(loc.node_conflict(name, "listed with two system types"));
        }
        return Ok(id);
    }
    let kind = if options.ca_types.iter().any(|t| t == ty) {
        NodeKind::Ca
    } else {
        NodeKind::Switch
    };
    types.push(ty.to_owned());
    declared.push(false);
    Ok(b.add_node(kind, name, None))
}

/// `P<n>` → (system, n); `<card>/P<n>` → (node `system/card`, n).
#[allow(clippy::too_many_arguments)]
fn port_node(
    b: &mut Builder,
    types: &mut Vec<String>,
    declared: &mut Vec<bool>,
    loc: Loc<'_>,
    options: &IbdmOptions,
    ty: &str,
    system: &str,
    port: &str,
) -> Result<(NodeId, u32), FabricError> {
    let (card, p) = match port.rsplit_once('/') {
        Some((card, p)) if !card.is_empty() => (Some(card), p),
        Some(_) => return Err(loc.syntax("a port name `P<n>` or `<card>/P<n>`", port)),
        None => (None, port),
    };
    let mut c = Cur::new(p, loc);
    if !c.eat('P') {
        return Err(loc.syntax("a port name `P<n>` or `<card>/P<n>`", port));
    }
    let n = c.dec("a port number after `P`")?;
    if !c.s.is_empty() {
        return Err(loc.syntax("a port name `P<n>` or `<card>/P<n>`", port));
    }
    let id = match card {
        None => system_node(b, types, declared, loc, options, ty, system)?,
        Some(card) => {
            system_node(b, types, declared, loc, options, ty, system)?;
            let chip = format!("{system}/{card}");
            match b.node_by_name(&chip) {
                Some(id) => id,
                None => {
                    types.push(format!("{ty} {card}"));
                    declared.push(true);
                    b.add_node(NodeKind::Switch, &chip, None)
                }
            }
        }
    };
    Ok((id, n))
}
