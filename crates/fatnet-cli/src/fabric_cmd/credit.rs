//! `fatnet fabric credit-loops`: the channel dependency graph of the traced routes, per
//! virtual lane, and a credit loop with its routes (`fatnet_fabric::credit`).

use std::fmt::Write as _;
use std::path::PathBuf;

use anyhow::Result;
use clap::Args;
use fatnet::fabric::{Fabric, VirtualLanes, credit_loops};
use serde::Serialize;

use super::{FabricFileArgs, load, pretty_json};

pub(super) const HELP: &str = "\
WHAT IS COMPUTED:
  The channel dependency graph of Dally and Seitz (\"Deadlock-free message routing in
  multiprocessor interconnection networks\", 1987): its vertices are the channels (directed
  links, CA links included), with an arc from a to b when some route uses b right after a. A
  cycle is a credit loop: the routes on it can block each other for good. Every ordered pair of
  distinct CAs (CA order) is traced through the forwarding tables; a route that loops or
  dead-ends adds the dependencies of the hops it made.

  With --sl and --sl2vl the channels are virtual channels (link, VL), as ibutils' ibdm
  (CredLoops.cpp, ibdmchk) defines them: a route on SL s leaves a switch through port o on
  VL = SL2VL[i][o][s] (i the port it came in by), and its CA's SL2VL table gives the VL of its
  first link; a route that changes VL links the two lanes. OpenSM's LASH and DFSSSP keep every
  route on one VL and make each VL's graph acyclic, which this check verifies.

  The cycles are found as strongly connected components (Tarjan); the witness is a shortest
  cycle of the first one: its links in order with their VLs and, for each dependency, a route
  (source CA -> destination CA) that uses the next link right after this one.

VIRTUAL LANES (OpenSM 3.3.23 under ibsim: scripts/opensm-loop.sh NET OUT lash dfsssp):
  --sl2vl FILE  opensm-sl2vl.dump, written with the ROUTING log flag when QoS is on (-Q)
  --sl FILE     the routes' SLs: `saquery PR --slid S --dlid D` output (PathRecord dumps;
                OpenSM dumps no path SLs, it hands them out as path records)";

/// The virtual-lane files.
#[derive(Args, Debug)]
pub(super) struct LaneArgs {
    /// The routes' service levels: `saquery PR` output (needs --sl2vl).
    #[arg(long, requires = "sl2vl")]
    sl: Option<PathBuf>,
    /// The SL-to-VL tables: OpenSM's `opensm-sl2vl.dump` (needs --sl).
    #[arg(long, requires = "sl")]
    sl2vl: Option<PathBuf>,
}

#[derive(Serialize)]
struct LaneJson {
    vl: u8,
    channels: u64,
    dependencies: u64,
}

#[derive(Serialize)]
struct HopJson {
    link: String,
    vl: u8,
    /// The route (source CA, destination CA) that uses the next link right after this one.
    route: [String; 2],
    /// The same route as CA-order positions.
    route_positions: [u32; 2],
}

#[derive(Serialize)]
struct CreditJson {
    topology: String,
    virtual_lanes_from: Option<[String; 2]>,
    routes: u64,
    faulty_routes: u64,
    lanes: u8,
    channels: u64,
    dependencies: u64,
    cross_lane_dependencies: u64,
    per_lane: Vec<LaneJson>,
    credit_loop_free: bool,
    cyclic_components: u64,
    cyclic_channels: u64,
    /// A shortest cycle of the first cyclic component, empty when there is none.
    witness: Vec<HopJson>,
}

fn ca(f: &Fabric, i: u32) -> String {
    f.node(f.ca_order()[i as usize]).name().to_owned()
}

pub(super) fn run(files: &FabricFileArgs, lanes: &LaneArgs, json: bool) -> Result<String> {
    let l = load(files)?;
    let f = &l.fabric;
    if !f.has_lfts() {
        anyhow::bail!("fabric credit-loops needs forwarding tables: pass --routes");
    }
    let vl = match (&lanes.sl2vl, &lanes.sl) {
        (Some(t), Some(p)) => Some(VirtualLanes::read(f, t, p)?),
        _ => None,
    };
    let c = credit_loops(f, vl.as_ref())?;
    let witness: Vec<HopJson> = c
        .witness
        .iter()
        .flat_map(|w| w.channels.iter().zip(&w.routes))
        .map(|(ch, &(s, d))| HopJson {
            link: f.link_label(ch.link),
            vl: ch.vl,
            route: [ca(f, s), ca(f, d)],
            route_positions: [s, d],
        })
        .collect();
    let j = CreditJson {
        topology: files.topology.display().to_string(),
        virtual_lanes_from: match (&lanes.sl2vl, &lanes.sl) {
            (Some(t), Some(p)) => Some([t.display().to_string(), p.display().to_string()]),
            _ => None,
        },
        routes: c.routes,
        faulty_routes: c.faulty_routes,
        lanes: c.lanes,
        channels: c.channels,
        dependencies: c.dependencies,
        cross_lane_dependencies: c.cross_lane_dependencies,
        per_lane: c
            .per_lane
            .iter()
            .map(|x| LaneJson {
                vl: x.vl,
                channels: x.channels,
                dependencies: x.dependencies,
            })
            .collect(),
        credit_loop_free: c.is_free(),
        cyclic_components: c.cyclic_components,
        cyclic_channels: c.cyclic_channels,
        witness,
    };
    if json {
        return pretty_json(&j);
    }
    let mut s = String::new();
    writeln!(
        s,
        "fabric {}: {} routes traced ({} do not arrive), CA order {}",
        j.topology,
        j.routes,
        j.faulty_routes,
        l.ca_order.as_deref().unwrap_or("node order")
    )?;
    match &j.virtual_lanes_from {
        Some([t, p]) => writeln!(s, "virtual lanes: SL-to-VL tables {t}, path SLs {p}")?,
        None => writeln!(s, "virtual lanes: none given, all routes on one VL")?,
    }
    writeln!(
        s,
        "channel dependency graph: {} channels, {} dependencies ({} from one VL to another)",
        j.channels, j.dependencies, j.cross_lane_dependencies
    )?;
    for x in &j.per_lane {
        writeln!(
            s,
            "  VL {:>2}: {} channels, {} dependencies",
            x.vl, x.channels, x.dependencies
        )?;
    }
    if j.credit_loop_free {
        writeln!(
            s,
            "credit loops: none (the graph is acyclic: the routing cannot deadlock)"
        )?;
    } else {
        writeln!(
            s,
            "credit loops: yes, {} channels in {} cyclic components; a shortest loop of {} links:",
            j.cyclic_channels,
            j.cyclic_components,
            j.witness.len()
        )?;
        for h in &j.witness {
            writeln!(
                s,
                "  {} (VL {}), then the next link for {} -> {}",
                h.link, h.vl, h.route[0], h.route[1]
            )?;
        }
    }
    Ok(s)
}
