//! `fatnet schedule`: Leiserson's off-line schedules (Theorem 1, Corollary 2), verified.

use std::io::Write;

use anyhow::{Context, Result, bail};
use clap::{Args, ValueEnum};
use fatnet::offline::leiserson::{FictitiousCapacity, LeisersonSchedule, corollary2, theorem1};
use fatnet::topology::AnyTopology;
use serde::Serialize;

use crate::{topology, traffic_spec};

/// Arguments of `fatnet schedule`.
#[derive(Debug, Args)]
pub struct ScheduleArgs {
    /// A binary fat-tree, e.g. `fattree:n=1024,profile=universal,w=128`.
    spec: String,
    /// The message set: a pattern or `file:PATH`.
    #[arg(long, short)]
    traffic: String,
    /// Seed of the random patterns.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Theorem 1 (`leiserson`) or Corollary 2 (`corollary2`, needs capacities above lg n).
    #[arg(long, value_enum, default_value_t = Algo::Leiserson)]
    algorithm: Algo,
    /// Corollary 2's fictitious capacities: `cap − lg n` (the paper) or `cap − depth`.
    #[arg(long, value_enum, default_value_t = Fictitious::LgN)]
    fictitious: Fictitious,
    /// Print JSON (with the whole schedule) instead of a summary.
    #[arg(long)]
    json: bool,
    /// In text mode, also print every cycle's message ids.
    #[arg(long)]
    cycles: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Algo {
    /// Theorem 1: ≤ lg n · 2^⌈lg λ⌉ cycles.
    Leiserson,
    /// Corollary 2: ≤ 2^⌈lg λ'⌉ ≤ 2(a/(a−1))λ cycles when capacities ≥ a·lg n.
    Corollary2,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Fictitious {
    /// cap(c) − lg n.
    #[value(name = "lgn")]
    LgN,
    /// cap(c) − depth(c).
    Depth,
}

#[derive(Debug, Serialize)]
struct Output<'a> {
    topology: String,
    traffic: String,
    seed: u64,
    algorithm: &'static str,
    messages: usize,
    cycles: usize,
    load_factor: f64,
    load_factor_exact: [u64; 2],
    lower_bound: u64,
    bound: u64,
    fictitious_load_factor: Option<f64>,
    capacity_ratio: Option<f64>,
    cycles_per_level: &'a [u64],
    verified: bool,
    schedule: Vec<Vec<u32>>,
}

/// Runs `fatnet schedule`.
pub fn run(args: ScheduleArgs, out: &mut impl Write) -> Result<()> {
    let (spec, topo) = topology(&args.spec)?;
    let AnyTopology::FatTree(tree) = &topo else {
        bail!(
            "`{spec}`: Leiserson's scheduler needs a binary fat-tree (`fattree:...`), not `{}`",
            args.spec.split(':').next().unwrap_or_default()
        );
    };
    let traffic = traffic_spec(&args.traffic)?;
    let messages = traffic
        .generate(tree.n(), args.seed)
        .with_context(|| format!("cannot make traffic `{traffic}`"))?;
    let result: LeisersonSchedule = match args.algorithm {
        Algo::Leiserson => theorem1(tree, &messages)?,
        Algo::Corollary2 => corollary2(
            tree,
            &messages,
            match args.fictitious {
                Fictitious::LgN => FictitiousCapacity::LgN,
                Fictitious::Depth => FictitiousCapacity::Depth,
            },
        )?,
    };
    let verified = result.schedule.verify(tree, &messages);
    let o = Output {
        topology: spec.to_string(),
        traffic: traffic.to_string(),
        seed: args.seed,
        algorithm: match args.algorithm {
            Algo::Leiserson => "leiserson",
            Algo::Corollary2 => "corollary2",
        },
        messages: messages.len(),
        cycles: result.cycles(),
        load_factor: result.load_factor.value(),
        load_factor_exact: [result.load_factor.load, result.load_factor.capacity],
        lower_bound: result.lower_bound,
        bound: result.bound,
        fictitious_load_factor: result.fictitious_load_factor.map(|l| l.value()),
        capacity_ratio: result.capacity_ratio,
        cycles_per_level: &result.cycles_per_level,
        verified: verified.is_ok(),
        schedule: result.schedule.to_ids(),
    };
    if args.json {
        serde_json::to_writer_pretty(&mut *out, &o)?;
        writeln!(out)?;
    } else {
        writeln!(out, "topology        {}", o.topology)?;
        writeln!(out, "traffic         {} (seed {})", o.traffic, o.seed)?;
        writeln!(out, "messages        {}", o.messages)?;
        writeln!(
            out,
            "load factor     {:.6} = {}/{}  (lower bound {} cycles)",
            o.load_factor, o.load_factor_exact[0], o.load_factor_exact[1], o.lower_bound
        )?;
        if let (Some(lf), Some(a)) = (o.fictitious_load_factor, o.capacity_ratio) {
            writeln!(
                out,
                "fictitious λ'   {lf:.6}  (a = min cap / lg n = {a:.3})"
            )?;
        }
        writeln!(
            out,
            "cycles          {}  (guaranteed ≤ {}; {:.3} × λ)",
            o.cycles,
            o.bound,
            o.cycles as f64 / o.load_factor.max(f64::MIN_POSITIVE)
        )?;
        if !o.cycles_per_level.is_empty() {
            writeln!(out, "per LCA depth   {:?}", o.cycles_per_level)?;
        }
        writeln!(
            out,
            "verified        {}",
            match &verified {
                Ok(()) =>
                    "yes: every message once, no channel over capacity in any cycle".to_string(),
                Err(v) => format!("NO: {v:?}"),
            }
        )?;
        if args.cycles {
            for (i, c) in o.schedule.iter().enumerate() {
                writeln!(out, "cycle {i}: {c:?}")?;
            }
        }
    }
    if let Err(v) = verified {
        bail!("internal error: the schedule does not verify: {v:?}");
    }
    Ok(())
}
