//! `fatnet exchange` and `fatnet broadcast`: Stamoulis' static tasks on the hypercube
//! (total exchange, simultaneous broadcasts), as verified slot schedules.

use std::io::Write;

use anyhow::{Context, Result};
use clap::Args;
use fatnet::offline::hypercube::{
    BroadcastAlgorithm, BroadcastPhases, Destination, PacketKind, SlotReport, SlotSchedule,
    TransmissionTables, k_broadcast_lower_bound, total_exchange, total_exchange_lower_bound,
};
use fatnet::topology::Topology;
use serde::Serialize;

/// Arguments of `fatnet exchange`.
#[derive(Args, Debug)]
pub struct ExchangeArgs {
    /// Dimension of the hypercube (1..=12; d = 12 builds 10^8 transmissions, about 1 GB).
    #[arg(long)]
    d: u32,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
    /// Also print the slot-by-slot transmissions.
    #[arg(long)]
    schedule: bool,
    /// Also print the transmission tables of Stamoulis' Figure 3.2 for this d.
    #[arg(long)]
    tables: bool,
}

/// One transmission, for output.
#[derive(Debug, Serialize)]
struct Hop {
    slot: usize,
    packet: u32,
    origin: u32,
    /// Destination node, or `null` for a broadcast.
    destination: Option<u32>,
    control: bool,
    from: u32,
    dimension: u32,
    to: u32,
}

fn hops(s: &SlotSchedule) -> Vec<Hop> {
    s.slots()
        .iter()
        .enumerate()
        .flat_map(|(t, slot)| {
            slot.iter().map(move |&tr| {
                let p = s.packets()[tr.packet.index()];
                let (from, dimension, to) = s.endpoints(tr);
                Hop {
                    slot: t + 1,
                    packet: tr.packet.0,
                    origin: p.origin,
                    destination: match p.destination {
                        Destination::Node(y) => Some(y),
                        Destination::All => None,
                    },
                    control: p.kind == PacketKind::Control,
                    from,
                    dimension,
                    to,
                }
            })
        })
        .collect()
}

/// Node `x` as `d` bits.
fn bits(x: u32, d: u32) -> String {
    format!("{x:0width$b}", width = d as usize)
}

fn print_schedule(out: &mut impl Write, s: &SlotSchedule) -> Result<()> {
    let d = s.cube().dimension();
    let mut last = 0;
    for h in hops(s) {
        if h.slot != last {
            writeln!(out, "slot {}", h.slot)?;
            last = h.slot;
        }
        let dst = h
            .destination
            .map_or_else(|| "all".to_string(), |y| bits(y, d));
        writeln!(
            out,
            "  {} -{}-> {}  packet {} ({} -> {}{})",
            bits(h.from, d),
            h.dimension,
            bits(h.to, d),
            h.packet,
            bits(h.origin, d),
            dst,
            if h.control { ", control" } else { "" }
        )?;
    }
    Ok(())
}

#[derive(Debug, Serialize)]
struct ExchangeSummary {
    task: &'static str,
    d: u32,
    nodes: u32,
    arcs: u32,
    packets: usize,
    slots: usize,
    lower_bound: u64,
    optimal: bool,
    transmissions: usize,
    verified: bool,
    every_arc_busy: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    tables: Option<Vec<Vec<u32>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    schedule: Option<Vec<Hop>>,
}

/// Runs `fatnet exchange`: builds Stamoulis' optimal total exchange, verifies it and prints
/// the summary (and on request the schedule and the Figure 3.2 tables).
///
/// # Errors
///
/// An unsupported `d`, a schedule that fails verification, or a write error.
pub fn run(args: ExchangeArgs, out: &mut impl Write) -> Result<()> {
    let d = args.d;
    let s = total_exchange(d).context("cannot build the total exchange")?;
    let r = s
        .verify()
        .map_err(|v| anyhow::anyhow!("the schedule fails verification: {v:?}"))?;
    let lower_bound = total_exchange_lower_bound(d);
    let tables = if args.tables {
        let t = TransmissionTables::new(d)?;
        Some((1..=d).map(|m| t.column(m).to_vec()).collect::<Vec<_>>())
    } else {
        None
    };
    if args.json {
        let summary = ExchangeSummary {
            task: "total exchange",
            d,
            nodes: s.cube().size(),
            arcs: s.cube().num_channels(),
            packets: s.packets().len(),
            slots: r.slots,
            lower_bound,
            optimal: r.slots as u64 == lower_bound,
            transmissions: r.transmissions,
            verified: true,
            every_arc_busy: r.every_arc_busy,
            tables,
            schedule: args.schedule.then(|| hops(&s)),
        };
        serde_json::to_writer_pretty(&mut *out, &summary)?;
        writeln!(out)?;
        return Ok(());
    }
    writeln!(
        out,
        "task            total exchange on the {d}-cube (Stamoulis ch. 3, optimal algorithm)"
    )?;
    writeln!(out, "packets         {}", s.packets().len())?;
    writeln!(
        out,
        "slots           {} (lower bound 2^(d-1) = {lower_bound}{})",
        r.slots,
        if r.slots as u64 == lower_bound {
            ", optimal"
        } else {
            ""
        }
    )?;
    writeln!(
        out,
        "transmissions   {} (shortest paths: d*2^(d-1) per origin)",
        r.transmissions
    )?;
    writeln!(out, "verified        yes")?;
    writeln!(
        out,
        "every arc busy  {} ({} arcs x {} slots)",
        if r.every_arc_busy { "yes" } else { "no" },
        s.cube().num_channels(),
        r.slots
    )?;
    if let Some(columns) = tables {
        writeln!(out)?;
        writeln!(
            out,
            "Figure 3.2 tables: column m = destinations of node 0's own packets on arc (0, e_m)"
        )?;
        let rows = columns.last().map_or(0, Vec::len);
        write!(out, "{:>5}", "slot")?;
        for m in 1..=d {
            write!(out, " {:>w$}", format!("(0,e{m})"), w = (d as usize).max(6))?;
        }
        writeln!(out)?;
        for r in 0..rows {
            write!(out, "{:>5}", r + 1)?;
            for col in &columns {
                let cell = col.get(r).map_or(String::new(), |&w| bits(w, d));
                write!(out, " {:>w$}", cell, w = (d as usize).max(6))?;
            }
            writeln!(out)?;
        }
    }
    if args.schedule {
        writeln!(out)?;
        print_schedule(out, &s)?;
    }
    Ok(())
}

/// Arguments of `fatnet broadcast`.
#[derive(Args, Debug)]
pub struct BroadcastArgs {
    /// Dimension of the hypercube (1..=12).
    #[arg(long)]
    d: u32,
    /// The broadcasting nodes, comma-separated (one packet each; repeats allowed for `a4`,
    /// `random` and `trees`); not used by `multinode` and `multinode-a4`.
    #[arg(long, value_delimiter = ',')]
    sources: Vec<u32>,
    /// The algorithm.
    #[arg(long, value_enum, default_value_t = BroadcastAlgorithm::A4)]
    algorithm: BroadcastAlgorithm,
    /// Seed of `random`.
    #[arg(long, default_value_t = fatnet::scenario::DEFAULT_SEED)]
    seed: u64,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
    /// Also print the slot-by-slot transmissions.
    #[arg(long)]
    schedule: bool,
}

#[derive(Debug, Serialize)]
struct BroadcastSummary {
    task: &'static str,
    algorithm: String,
    d: u32,
    sources: Vec<u32>,
    k: u64,
    slots: usize,
    last_delivery: usize,
    transmissions: usize,
    verified: bool,
    lower_bound: u64,
    /// The thesis's claim for this algorithm, in words.
    claim: String,
    /// Whether `slots` satisfies the claim.
    claim_holds: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    phases: Option<BroadcastPhases>,
    #[serde(skip_serializing_if = "Option::is_none")]
    schedule: Option<Vec<Hop>>,
}

/// Runs `fatnet broadcast`: builds the chosen chapter-4 schedule, verifies it and prints the
/// slot count against the thesis's bound.
///
/// # Errors
///
/// An unsupported `d`, bad sources for the algorithm, a schedule that fails verification, or
/// a write error.
pub fn run_broadcast(args: BroadcastArgs, out: &mut impl Write) -> Result<()> {
    let d = args.d;
    let built = args
        .algorithm
        .build(d, &args.sources, args.seed)
        .context("cannot build the broadcasts")?;
    let (schedule, claim, k) = (built.schedule, built.claim, built.broadcasts);
    let r: SlotReport = schedule
        .verify()
        .map_err(|v| anyhow::anyhow!("the schedule fails verification: {v:?}"))?;
    let algorithm = args.algorithm.to_string();
    let summary = BroadcastSummary {
        task: "simultaneous broadcasts",
        algorithm,
        d,
        sources: args.sources.clone(),
        k,
        slots: r.slots,
        last_delivery: r.last_delivery,
        transmissions: r.transmissions,
        verified: true,
        lower_bound: k_broadcast_lower_bound(d, k),
        claim: claim.to_string(),
        claim_holds: claim.holds(r.slots as u64),
        phases: built.phases,
        schedule: (args.json && args.schedule).then(|| hops(&schedule)),
    };
    if args.json {
        serde_json::to_writer_pretty(&mut *out, &summary)?;
        writeln!(out)?;
        return Ok(());
    }
    writeln!(
        out,
        "task            {} broadcast(s) on the {d}-cube, algorithm {}",
        summary.k, summary.algorithm
    )?;
    writeln!(
        out,
        "slots           {} (thesis: {}; {})",
        r.slots,
        summary.claim,
        if summary.claim_holds {
            "holds"
        } else {
            "DOES NOT HOLD"
        }
    )?;
    writeln!(
        out,
        "lower bound     {} (any algorithm, §4.2)",
        summary.lower_bound
    )?;
    writeln!(out, "last delivery   slot {}", r.last_delivery)?;
    writeln!(out, "transmissions   {}", r.transmissions)?;
    if let Some(p) = &summary.phases {
        writeln!(
            out,
            "phases          prefix {} + gather {} + scatter {}; root loads {:?}",
            p.prefix, p.gather, p.scatter, p.root_loads
        )?;
    }
    writeln!(out, "verified        yes")?;
    if args.schedule {
        writeln!(out)?;
        print_schedule(out, &schedule)?;
    }
    Ok(())
}
