//! Real InfiniBand fabrics: topology dumps, subnet-manager forwarding tables and route tracing.
//!
//! Issue 7 asks what an HPC fabric engineer would ask fatnet: is the routing my subnet manager
//! computed valid, nonblocking (Yuan's Lemma 1, paper 001), how bad is its worst permutation?
//! This crate reads the fabric and its tables into a [`Fabric`] and traces routes through them;
//! the judgements of `fatnet-load` / `fatnet-offline` apply to the traced routes.
//!
//! **Key design decision: one port-numbered multigraph, InfiniBand numbering everywhere.** A
//! [`Fabric`] stores each physical link once (checked: both listings of a link must agree),
//! ports numbered as InfiniBand numbers them (1.., 0 = a switch's management port), LIDs per
//! port, and one linear forwarding table ([`Lft`], LID → port) per switch. Readers of formats
//! that count ports from 0 (ib_flit_sim's `.ned` and `.fdbs`) convert at the edge, so tracing
//! and every later analysis see a single convention. Readers never panic: every problem is a
//! [`FabricError`] naming the file, the line and what was expected, and lines of no known
//! shape are counted in a [`LineReport`] rather than silently dropped.
//!
//! Readers: [`ibnetdiscover`] (infiniband-diags topology dumps), [`ibdm`] (`.topo` system
//! files), [`flitsim`] (ib_flit_sim's `.ned`, `.fdbs` + `.fdbs.ini`, `ftree.hcas`).
//! Tracing: [`Fabric::trace`] and [`Fabric::trace_all`].

#![deny(missing_docs)]

pub mod analysis;
mod clos;
mod error;
pub mod export;
mod fabric;
mod files;
pub mod flitsim;
pub mod ibdm;
pub mod ibnetdiscover;
pub mod opensm;
mod text;
mod topology;
mod trace;

pub use analysis::{
    Analysis, DirectedLink, Lemma1, Lemma1Witness, LinkRoutes, ShiftLoad, TrafficLoad, WorstCase,
    analyze, count_on_link,
};
pub use clos::from_folded_clos;
pub use error::FabricError;
pub use fabric::{Endpoint, Fabric, Lft, Link, Node, NodeId, NodeKind, Port, PortId};
pub use files::{FabricFiles, FabricFormat, LoadedFabric};
pub use text::{LineReport, MAX_FILE_BYTES, read_text};
pub use topology::FabricTopology;
pub use trace::{FaultKind, Hop, RouteFault, TraceSummary};

/// Reads an ib_flit_sim example: the `.ned`, its `.fdbs` + `.fdbs.ini` and (optionally) the
/// `ftree.hcas` CA order, given as `(file name, text)` pairs. Returns the fabric and one
/// [`LineReport`] per file, in the order given.
///
/// # Errors
/// The errors of [`flitsim::parse_ned`], [`flitsim::parse_fdbs`], [`flitsim::parse_fdbs_ini`],
/// [`flitsim::attach_tables`] and [`flitsim::apply_ca_order`].
pub fn read_flitsim(
    ned: (&str, &str),
    fdbs: (&str, &str),
    fdbs_ini: (&str, &str),
    hcas: Option<(&str, &str)>,
) -> Result<(Fabric, Vec<LineReport>), FabricError> {
    let (fabric, r_ned) = flitsim::parse_ned(ned.1, ned.0)?;
    let (tables, r_fdbs) = flitsim::parse_fdbs(fdbs.1, fdbs.0)?;
    let (index, r_ini) = flitsim::parse_fdbs_ini(fdbs_ini.1, fdbs_ini.0)?;
    let mut fabric = flitsim::attach_tables(fabric, &tables, &index, fdbs_ini.0)?;
    let mut reports = vec![r_ned, r_fdbs, r_ini];
    if let Some((file, text)) = hcas {
        let (f, r) = flitsim::apply_ca_order(fabric, text, file)?;
        fabric = f;
        reports.push(r);
    }
    Ok((fabric, reports))
}
