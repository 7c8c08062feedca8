//! Real InfiniBand fabrics: topology dumps, subnet-manager forwarding tables and route tracing.
//!
//! An HPC fabric engineer asks of a real fabric: is the routing my subnet manager computed
//! valid, nonblocking (Yuan's Lemma 1, *On nonblocking folded-Clos networks*), how bad is its
//! worst permutation?
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
//!
//! ```
//! use fatnet_fabric::{analyze, from_folded_clos, ibnetdiscover};
//! use fatnet_offline::clos::DModM;
//! use fatnet_topology::FoldedClos;
//!
//! // A tiny ibnetdiscover dump: one switch with a host on each of its two ports.
//! let dump = "\
//! Switch\t2 \"S-0000000000000001\"\t\t# \"leaf\" base port 0 lid 1 lmc 0
//! [1]\t\"H-0000000000000002\"[1](3)\t\t# \"host a\" lid 2 4xQDR
//! [2]\t\"H-0000000000000004\"[1](5)\t\t# \"host b\" lid 4 4xQDR
//!
//! Ca\t1 \"H-0000000000000002\"\t\t# \"host a\"
//! [1](3)\t\"S-0000000000000001\"[1]\t\t# lid 2 lmc 0 \"leaf\" lid 1 4xQDR
//!
//! Ca\t1 \"H-0000000000000004\"\t\t# \"host b\"
//! [1](5)\t\"S-0000000000000001\"[2]\t\t# lid 4 lmc 0 \"leaf\" lid 1 4xQDR
//! ";
//! let (fabric, lines) = ibnetdiscover::parse(dump, "tiny.topo")?;
//! let counts = (fabric.switches().count(), fabric.cas().count(), fabric.links().len());
//! assert_eq!(counts, (1, 2, 2));
//! assert!(lines.unrecognised.is_empty() && !fabric.has_lfts());
//!
//! // d-mod-m forwarding tables on Yuan's ftree(2+2, r): nonblocking with 2 bottom switches,
//! // blocking with 3 (it then needs m ≥ r·n tops): some permutation puts 2 pairs on a link.
//! let clos = FoldedClos::new(2, 2, 2)?;
//! let two = analyze(&from_folded_clos(&clos, &DModM::new(&clos))?)?;
//! assert!(two.lemma1.is_nonblocking() && two.worst.contention == 1);
//! let clos = FoldedClos::new(2, 2, 3)?;
//! let three = analyze(&from_folded_clos(&clos, &DModM::new(&clos))?)?;
//! assert!(!three.lemma1.is_nonblocking());
//! assert_eq!(three.worst.contention, 2);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![deny(missing_docs)]

pub mod analysis;
mod clos;
pub mod compare;
pub mod counts;
pub mod credit;
pub mod ebb;
mod error;
pub mod export;
mod fabric;
pub mod failures;
mod files;
pub mod flitsim;
pub mod ibdm;
pub mod ibnetdiscover;
pub mod opensm;
pub mod removal;
pub mod report;
pub mod routing;
mod text;
mod topology;
mod trace;
pub mod traffic;

pub use analysis::{
    Analysis, DirectedLink, Lemma1, Lemma1Witness, LinkRoutes, ShiftLoad, TrafficLoad, WorstCase,
    analyze, count_on_link,
};
pub use clos::from_folded_clos;
pub use compare::{FabricComparison, compare};
pub use counts::{HopHistogram, LevelSpread, RouteCounts, hop_histogram, per_level, route_counts};
pub use credit::{Channel, CreditLoop, CreditLoops, LaneCount, VirtualLanes, credit_loops};
pub use ebb::{
    BisectionFlows, Ebb, EbbConfig, effective_bisection_bandwidth, flow_shares, random_bisection,
};
pub use error::FabricError;
pub use fabric::{Endpoint, Fabric, Lft, Link, Node, NodeId, NodeKind, Port, PortId};
pub use failures::{FailureOptions, FailureReport, FailureSpec, Metrics, Reroute};
pub use files::{FabricFiles, FabricFormat, LoadedFabric};
pub use report::{
    Assembled, Histogram, LinkLoads, Report, ReportFormat, ReportOptions, ReportSource,
    ReportSummary, ReportTraffic, Verdict, VerdictStatus, assemble,
};
pub use text::{LineReport, MAX_FILE_BYTES, read_text};
pub use topology::FabricTopology;
pub use trace::{FaultKind, Hop, RouteFault, TraceSummary};
pub use traffic::FabricTraffic;

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
