//! `fatnet fabric counts`: ibdiagnet-style route counts (`fatnet_fabric::counts`): routes and
//! destinations per output port, the hop histogram, per-level summaries, and a traffic's link
//! loads by level.

use std::fmt::Write as _;

use anyhow::{Context, Result, bail};
use clap::Args;
use fatnet::fabric::counts::traffic_by_level;
use fatnet::fabric::{Fabric, LevelSpread, NodeId, route_counts};
use serde::Serialize;

use super::{FabricFileArgs, fabric_traffic, load, pretty_json};

pub(super) const HELP: &str = "\
WHAT IS COMPUTED (ibdm's SubnMgtVerifyAllCaToCaRoutes, as ibdmchk and ibdiagnet -r print it;
opareport's pathusage):
  Every route between two distinct CAs of the CA order is traced through the forwarding
  tables, destination by destination.
  hops          the hop histogram of the delivered routes; a hop is a link traversed, both CA
                links included (two CAs on one leaf switch are 2 hops apart), as ibdm's
                \"LFT route hop histogram\"
  routes        per output port, the delivered routes leaving through it (ibdm: NUM PATHS)
  destinations  per output port, the distinct destination CAs of those routes (NUM DLIDS)
  by level      ports grouped by their link's level and direction, as `fabric` levels are
                defined everywhere: a node's level is its hop distance from the nearest CA
                (CAs 0, leaf switches 1, ...), a link's level the smaller of its ends', up
                towards the higher level, down towards the lower one. Per group: links, min,
                max, mean and the imbalance max/mean (1 = every link of the level alike; ibdm:
                \"the histogram should be narrow for all ports on same level of the tree\").
                ibdm leaves out the ports driving CAs; here they are level 0 down.
  --traffic T   also routes the traffic T (processor i = the i-th CA of the CA order, as
                `fabric load`) and gives its link loads by level, with each level's histogram
                (load: links)
  --ports       also lists every output port with a cable: its link, routes, destinations";

/// Arguments of `fatnet fabric counts`.
#[derive(Args, Debug)]
pub(super) struct CountsArgs {
    #[command(flatten)]
    files: FabricFileArgs,
    /// Also route this traffic (a pattern or `file:PATH`; processors = the CAs, in CA order) and
    /// give its link loads by level.
    #[arg(long, short)]
    traffic: Option<String>,
    /// Seed of the random traffic patterns.
    #[arg(long, default_value_t = fatnet::scenario::DEFAULT_SEED)]
    seed: u64,
    /// Also list every output port with a cable.
    #[arg(long)]
    ports: bool,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

#[derive(Serialize)]
struct PortJson {
    link: String,
    routes: u32,
    destinations: u32,
}

#[derive(Serialize)]
struct TrafficJson {
    traffic: String,
    seed: u64,
    messages: u64,
    delivered: u64,
    congestion: u32,
    by_level: Vec<LevelSpread>,
}

#[derive(Serialize)]
struct CountsJson {
    topology: String,
    format: &'static str,
    ca_order: Option<String>,
    cas: usize,
    routes: u64,
    delivered: u64,
    /// `hops[h]`: delivered routes of `h` links (CA links included).
    hops: Vec<u64>,
    total_hops: u64,
    routes_by_level: Vec<LevelSpread>,
    destinations_by_level: Vec<LevelSpread>,
    traffic: Option<TrafficJson>,
    ports: Option<Vec<PortJson>>,
}

pub(super) fn run(a: &CountsArgs) -> Result<String> {
    let spec = a.traffic.as_deref().map(fabric_traffic).transpose()?;
    let l = load(&a.files)?;
    let f = &l.fabric;
    if !f.has_lfts() {
        bail!("fabric counts needs forwarding tables: pass --routes");
    }
    let c = route_counts(f)?;
    let traffic = match &spec {
        None => None,
        Some(spec) => {
            let n = f.ca_order().len();
            let pairs = spec
                .pairs(f, a.seed)
                .with_context(|| fatnet::scenario::wording::cannot_make_traffic_on_cas(&spec, n))?;
            let t = f.traffic_load(&pairs, 0)?;
            Some(TrafficJson {
                traffic: spec.to_string(),
                seed: a.seed,
                messages: t.messages,
                delivered: t.delivered,
                congestion: t.congestion,
                by_level: traffic_by_level(f, &t),
            })
        }
    };
    let j = CountsJson {
        topology: a.files.topology.display().to_string(),
        format: l.format.name(),
        ca_order: l.ca_order.clone(),
        cas: f.ca_order().len(),
        routes: c.hops.routes,
        delivered: c.hops.delivered,
        total_hops: c.hops.total_hops(),
        hops: c.hops.counts.clone(),
        routes_by_level: c.routes_by_level.clone(),
        destinations_by_level: c.destinations_by_level.clone(),
        traffic,
        ports: a.ports.then(|| ports(f, &c.routes, &c.destinations)),
    };
    if a.json {
        return pretty_json(&j);
    }
    let mut s = String::new();
    writeln!(
        s,
        "fabric {} ({}): {} CAs, CA order {}",
        j.topology,
        j.format,
        j.cas,
        j.ca_order.as_deref().unwrap_or("node order")
    )?;
    writeln!(
        s,
        "routes: {} CA-to-CA routes traced, {} delivered, {} hops in all",
        j.routes, j.delivered, j.total_hops
    )?;
    writeln!(s, "hops (links traversed, CA links included): routes")?;
    let peak = j.hops.iter().copied().max().unwrap_or(0).max(1);
    for (h, &n) in j.hops.iter().enumerate().filter(|(_, n)| **n > 0) {
        let bar = "#".repeat(((n * 40).div_ceil(peak)) as usize);
        writeln!(s, "  {h:>3} {n:>10}  {bar}")?;
    }
    writeln!(
        s,
        "routes and destinations per output port, by link level (imbalance = max/mean):"
    )?;
    writeln!(
        s,
        "  level dir      links   routes min..max     mean  imbal.   dests min..max     mean  imbal."
    )?;
    for (r, d) in j.routes_by_level.iter().zip(&j.destinations_by_level) {
        writeln!(
            s,
            "  {:>5} {:<7} {:>6}  {:>8}..{:<8} {:>8.1} {:>7.3}  {:>6}..{:<7} {:>8.1} {:>7.3}",
            r.level,
            dir(r),
            r.links,
            r.min,
            r.max,
            r.mean,
            r.imbalance,
            d.min,
            d.max,
            d.mean,
            d.imbalance
        )?;
    }
    if let (Some(t), Some(spec)) = (&j.traffic, &spec) {
        writeln!(
            s,
            "traffic {}: {} messages, {} delivered, congestion {}; link loads by level (load: links):",
            spec.shown_with_seed(a.seed),
            t.messages,
            t.delivered,
            t.congestion
        )?;
        for g in &t.by_level {
            let hist: Vec<String> = g
                .histogram
                .iter()
                .map(|(load, links)| format!("{load}: {links}"))
                .collect();
            writeln!(
                s,
                "  {:>5} {:<7} {:>6} links, {}..{} mean {:.2}, imbalance {:.3}  [{}]",
                g.level,
                dir(g),
                g.links,
                g.min,
                g.max,
                g.mean,
                g.imbalance,
                hist.join(", ")
            )?;
        }
    }
    if let Some(ports) = &j.ports {
        writeln!(s, "per output port: routes, destinations, link")?;
        for p in ports {
            writeln!(s, "  {:>8} {:>6}  {}", p.routes, p.destinations, p.link)?;
        }
    }
    Ok(s)
}

fn dir(g: &LevelSpread) -> &'static str {
    match g.direction {
        fatnet::topology::Direction::Up => "up",
        fatnet::topology::Direction::Down => "down",
        fatnet::topology::Direction::Forward => "forward",
    }
}

/// Every output port with a cable, in node then port order.
fn ports(f: &Fabric, routes: &[u32], destinations: &[u32]) -> Vec<PortJson> {
    let mut out = Vec::new();
    for (i, node) in f.nodes().iter().enumerate() {
        for (port, _) in node.neighbours() {
            let id = f.port_id(NodeId(i as u32), port);
            out.push(PortJson {
                link: f.link_label(id),
                routes: routes[id.0 as usize],
                destinations: destinations[id.0 as usize],
            });
        }
    }
    out
}
