//! `fatnet exchange` and `fatnet broadcast`: Stamoulis' static tasks on the hypercube
//! (total exchange, simultaneous broadcasts), as verified slot schedules.

use std::io::Write;

use anyhow::{Context, Result, bail};
use clap::{Args, ValueEnum};
use fatnet::offline::hypercube::{
    Contention, Destination, KBroadcasts, PacketKind, Ranks, SlotReport, SlotSchedule,
    TransmissionTables, k_broadcast_lower_bound, k_broadcast_upper_bound, k_broadcasts,
    multinode_broadcast, multinode_broadcast_a4, multinode_broadcast_a4_bounds,
    multinode_broadcast_time, randomized_k_broadcasts, ranked_broadcasts, single_node_broadcast,
    total_exchange, total_exchange_lower_bound, tree_broadcasts,
};
use fatnet::topology::Topology;
use rand::SeedableRng;
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
    #[arg(long, value_enum, default_value_t = BroadcastAlgo::A4)]
    algorithm: BroadcastAlgo,
    /// Seed of `random`.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
    /// Also print the slot-by-slot transmissions.
    #[arg(long)]
    schedule: bool,
}

/// The broadcast algorithms of Stamoulis chapter 4.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum BroadcastAlgo {
    /// §4.4: prefix, gather at the roots of d disjoint trees, scatter: <= 2⌈K/d⌉+4d+2 slots.
    A4,
    /// §4.5: random roots (uses --seed): <= 2·max N + 2d + 2 slots.
    Random,
    /// §4.6.1: every source along its own canonical tree, FIFO: <= d+K−1 slots.
    Trees,
    /// §4.6.2: own trees, antipode-first priority: d slots for K = 2.
    Antipode,
    /// §4.6.3: ranked dimensions after a 2d-slot prefix (K <= d): 3d slots.
    Ranked,
    /// §4.6.3 with ranks known in advance (K <= d): d slots.
    RankedKnown,
    /// Single-node broadcast by recursive doubling (one source): d slots.
    Single,
    /// Optimal multinode broadcast (every node): ⌈(2^d−1)/d⌉ slots.
    Multinode,
    /// §4.4 multinode broadcast without the prefix.
    MultinodeA4,
}

#[derive(Debug, Serialize)]
struct Phases {
    prefix: u32,
    gather: u32,
    scatter: u32,
    root_loads: Vec<u32>,
    last_gather_arrival: u32,
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
    phases: Option<Phases>,
    #[serde(skip_serializing_if = "Option::is_none")]
    schedule: Option<Vec<Hop>>,
}

fn phases(kb: &KBroadcasts) -> Phases {
    Phases {
        prefix: kb.prefix_slots,
        gather: kb.gather_slots,
        scatter: kb.scatter_slots,
        root_loads: kb.root_loads.clone(),
        last_gather_arrival: kb.last_gather_arrival,
    }
}

/// What the thesis claims about an algorithm's slot count.
#[derive(Clone, Copy, Debug)]
enum Claim {
    AtMost(u64),
    Exactly(u64),
    Between(u64, u64),
}

impl Claim {
    fn holds(self, t: u64) -> bool {
        match self {
            Claim::AtMost(b) => t <= b,
            Claim::Exactly(b) => t == b,
            Claim::Between(lo, hi) => (lo..=hi).contains(&t),
        }
    }

    fn text(self, formula: &str) -> String {
        match self {
            Claim::AtMost(b) => format!("<= {formula} = {b}"),
            Claim::Exactly(b) => format!("= {formula} = {b}"),
            Claim::Between(lo, hi) => format!("{formula}: between {lo} and {hi}"),
        }
    }
}

/// Runs `fatnet broadcast`: builds the chosen chapter-4 schedule, verifies it and prints the
/// slot count against the thesis's bound.
///
/// # Errors
///
/// An unsupported `d`, bad sources for the algorithm, a schedule that fails verification, or
/// a write error.
pub fn run_broadcast(args: BroadcastArgs, out: &mut impl Write) -> Result<()> {
    use BroadcastAlgo as A;
    let d = args.d;
    let multinode = matches!(args.algorithm, A::Multinode | A::MultinodeA4);
    if multinode && !args.sources.is_empty() {
        bail!(
            "--algorithm {:?} broadcasts from every node; drop --sources",
            args.algorithm
        );
    }
    if !multinode && args.sources.is_empty() {
        bail!("--sources is required for --algorithm {:?}", args.algorithm);
    }
    let sources = &args.sources;
    let k = sources.len() as u64;
    let built = |e: fatnet::offline::OfflineError| {
        anyhow::Error::new(e).context("cannot build the broadcasts")
    };
    let (schedule, phase_slots, claim, formula): (SlotSchedule, Option<Phases>, Claim, &str) =
        match args.algorithm {
            A::A4 => {
                let kb = k_broadcasts(d, sources).map_err(built)?;
                let p = phases(&kb);
                let ub = k_broadcast_upper_bound(d, k);
                (kb.schedule, Some(p), Claim::AtMost(ub), "2⌈K/d⌉+4d+2")
            }
            A::Random => {
                let mut rng = rand_pcg::Pcg64::seed_from_u64(args.seed);
                let kb = randomized_k_broadcasts(d, sources, &mut rng).map_err(built)?;
                let p = phases(&kb);
                let max = u64::from(kb.root_loads.iter().copied().max().unwrap_or(0));
                let ub = 2 * max + 2 * u64::from(d) + 2;
                (kb.schedule, Some(p), Claim::AtMost(ub), "2·max N + 2d + 2")
            }
            A::Trees => {
                let s = tree_broadcasts(d, sources, Contention::Fifo).map_err(built)?;
                (s, None, Claim::AtMost(u64::from(d) + k - 1), "d+K−1")
            }
            A::Antipode => {
                let s = tree_broadcasts(d, sources, Contention::AntipodeFirst).map_err(built)?;
                if k == 2 {
                    (s, None, Claim::Exactly(u64::from(d)), "d")
                } else {
                    (s, None, Claim::AtMost(u64::from(d) + k - 1), "d+K−1")
                }
            }
            A::Ranked => {
                let s = ranked_broadcasts(d, sources, Ranks::Prefix).map_err(built)?;
                (s, None, Claim::Exactly(3 * u64::from(d)), "3d")
            }
            A::RankedKnown => {
                let s = ranked_broadcasts(d, sources, Ranks::Known).map_err(built)?;
                (s, None, Claim::Exactly(u64::from(d)), "d")
            }
            A::Single => {
                if sources.len() != 1 {
                    bail!("--algorithm single takes one source, got {}", sources.len());
                }
                let s = single_node_broadcast(d, sources[0]).map_err(built)?;
                (s, None, Claim::Exactly(u64::from(d)), "d")
            }
            A::Multinode => {
                let s = multinode_broadcast(d).map_err(built)?;
                (
                    s,
                    None,
                    Claim::Exactly(multinode_broadcast_time(d)),
                    "⌈(2^d−1)/d⌉",
                )
            }
            A::MultinodeA4 => {
                let kb = multinode_broadcast_a4(d).map_err(built)?;
                let p = phases(&kb);
                let (lo, hi) = multinode_broadcast_a4_bounds(d);
                (kb.schedule, Some(p), Claim::Between(lo, hi), "§4.4")
            }
        };
    let r: SlotReport = schedule
        .verify()
        .map_err(|v| anyhow::anyhow!("the schedule fails verification: {v:?}"))?;
    let k = if multinode {
        u64::from(schedule.cube().size())
    } else {
        k
    };
    let algorithm = args
        .algorithm
        .to_possible_value()
        .map_or_else(String::new, |v| v.get_name().to_string());
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
        claim: claim.text(formula),
        claim_holds: claim.holds(r.slots as u64),
        phases: phase_slots,
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
