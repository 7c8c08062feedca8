//! `fatnet fabric ebb`: effective bisection bandwidth over seeded random bisections
//! (`fatnet_fabric::ebb`), beside the exact worst-case permutation contention.

use std::fmt::Write as _;

use anyhow::{Result, bail};
use clap::Args;
use fatnet::fabric::ebb::EBB_LEVEL;
use fatnet::fabric::{BisectionFlows, EbbConfig, LinkRoutes, effective_bisection_bandwidth};
use serde::Serialize;

use super::{FabricFileArgs, load, pretty_json};

pub(super) const HELP: &str = "\
WHAT IS COMPUTED (effective bisection bandwidth, ORCS):
  Hoefler, Schneider, Lumsdaine, \"Multistage Switches are not Crossbars\" (IEEE Cluster 2008)
  and their ORCS simulator. A bisection maps the CAs at random onto ranks and pairs them two by
  two: every CA has one partner in the other half. Each flow takes its one route through the
  forwarding tables; a directed link crossed by k flows of the bisection gives each 1/k of its
  bandwidth, and a flow gets 1/k for the largest k on its route. A bisection's eBB is the mean
  of its flows' shares, as a fraction of the link bandwidth (1 = a crossbar).
  --flows both     both partners send (Netgauge's ebb, ORCS's bisect_fb_sym): N flows
  --flows one-way  position 2k sends to 2k+1 only (ORCS's bisect): N/2 flows
  Bisection i is drawn from derive_seed(SEED, i) (Pcg64, Fisher-Yates), so the values do not
  depend on the thread count. Reported: every draw's eBB (JSON), the mean with its 95 %
  Student-t interval, min, max, the least share of any flow, and a histogram on --bins equal
  bins over [0, 1] (ORCS: 20 bins of 0.05). Beside it, the exact worst case: the most pairs
  one permutation can put on one link (a maximum matching per link, as `fabric check`), whose
  inverse bounds every flow share and every draw from below. Full-bisection clusters measured
  55-60 % under static routing in that paper.
  Refused: an odd number of CAs (or fewer than 2), tables with a broken route, 0 bisections
  or bins, more than 10,000,000 bisections or 10,000 bins.";

/// Arguments of `fatnet fabric ebb`.
#[derive(Args, Debug)]
pub(super) struct EbbArgs {
    #[command(flatten)]
    files: FabricFileArgs,
    /// How many random bisections to draw.
    #[arg(long, default_value_t = EbbConfig::default().bisections)]
    bisections: u32,
    /// The master seed (bisection i uses derive_seed(seed, i)).
    #[arg(long, default_value_t = EbbConfig::default().seed)]
    seed: u64,
    /// Histogram bins over [0, 1].
    #[arg(long, default_value_t = EbbConfig::default().bins)]
    bins: u32,
    /// Which flows a pair sends.
    #[arg(long, value_enum, default_value_t = EbbConfig::default().flows)]
    flows: BisectionFlows,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

#[derive(Serialize)]
struct BinJson {
    low: f64,
    high: f64,
    count: u64,
}

#[derive(Serialize)]
struct EbbJson {
    topology: String,
    format: &'static str,
    ca_order: Option<String>,
    cas: u32,
    bisections: u32,
    seed: u64,
    flows: BisectionFlows,
    flows_per_bisection: u32,
    /// The mean eBB over the bisections, as a fraction of the link bandwidth.
    mean: f64,
    /// The half-width of its `level` Student-t interval (null for one bisection).
    half_width: Option<f64>,
    level: f64,
    min: f64,
    max: f64,
    /// The least share any flow of any bisection got.
    min_flow_share: f64,
    /// The exact worst-case permutation contention (a maximum matching per link).
    worst_contention: u32,
    /// `1 / worst_contention`: no flow of any permutation gets less.
    worst_share: f64,
    worst_link: Option<String>,
    histogram: Vec<BinJson>,
    /// Every bisection's eBB, in draw order.
    per_draw: Vec<f64>,
}

pub(super) fn run(a: &EbbArgs) -> Result<String> {
    let config = EbbConfig {
        bisections: a.bisections,
        seed: a.seed,
        bins: a.bins,
        flows: a.flows,
    };
    // Parameters first: a bad one is refused before the fabric is read.
    config.validate()?;
    let l = load(&a.files)?;
    let f = &l.fabric;
    if !f.has_lfts() {
        bail!("fabric ebb needs forwarding tables: pass --routes");
    }
    let e = effective_bisection_bandwidth(f, &config)?;
    let worst = LinkRoutes::build(f)?.worst_case();
    let j = EbbJson {
        topology: a.files.topology.display().to_string(),
        format: l.format.name(),
        ca_order: l.ca_order.clone(),
        cas: e.cas,
        bisections: config.bisections,
        seed: config.seed,
        flows: config.flows,
        flows_per_bisection: e.flows_per_bisection,
        mean: e.mean,
        half_width: Some(e.half_width).filter(|h| h.is_finite()),
        level: EBB_LEVEL,
        min: e.min,
        max: e.max,
        min_flow_share: e.min_flow_share,
        worst_contention: worst.contention,
        worst_share: 1.0 / f64::from(worst.contention.max(1)),
        worst_link: worst.link.map(|p| f.link_label(p)),
        histogram: e
            .histogram
            .bins()
            .map(|(low, high, count)| BinJson { low, high, count })
            .collect(),
        per_draw: e.per_draw.clone(),
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
        "effective bisection bandwidth (ORCS): {} random bisections, seed {}, flows {} ({} per bisection)",
        j.bisections, j.seed, j.flows, j.flows_per_bisection
    )?;
    let interval = j.half_width.map_or_else(
        || " (one bisection: no interval)".to_owned(),
        |h| format!(" ± {h:.4} (95 % Student t)"),
    );
    writeln!(
        s,
        "  mean {:.4}{interval}, min {:.4}, max {:.4} (fractions of the link bandwidth)",
        j.mean, j.min, j.max
    )?;
    writeln!(
        s,
        "  least flow share {:.4} (1/{:.0}); worst case over all permutations: contention {} on {}, share 1/{} = {:.4}",
        j.min_flow_share,
        1.0 / j.min_flow_share,
        j.worst_contention,
        j.worst_link.as_deref().unwrap_or("no link"),
        j.worst_contention,
        j.worst_share
    )?;
    writeln!(s, "bisections per eBB bin:")?;
    let counts = &e.histogram.counts;
    let first = counts.iter().position(|&c| c > 0).unwrap_or(0);
    let last = counts.iter().rposition(|&c| c > 0).unwrap_or(0);
    let peak = counts.iter().copied().max().unwrap_or(0).max(1);
    for b in &j.histogram[first..=last] {
        let bar = "#".repeat(((b.count * 40).div_ceil(peak)) as usize);
        let close = if b.high >= 1.0 { ']' } else { ')' };
        writeln!(
            s,
            "  [{:.3}, {:.3}{close} {:>7}  {bar}",
            b.low,
            b.high.min(1.0),
            b.count
        )?;
    }
    Ok(s)
}
