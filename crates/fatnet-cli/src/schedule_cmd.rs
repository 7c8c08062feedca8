//! `fatnet schedule`: Leiserson's off-line schedules (Theorem 1, Corollary 2), verified.

use std::io::Write;

use anyhow::{Result, bail};
use clap::Args;
use fatnet::scenario::{ScheduleOptions, ScheduleScenario, ScheduleSummary};
use fatnet::topology::TopologySpec;
use fatnet::traffic::TrafficSpec;

/// Arguments of `fatnet schedule`.
#[derive(Debug, Args)]
pub struct ScheduleArgs {
    /// A binary fat-tree, e.g. `fattree:n=1024,profile=universal,w=128`.
    spec: TopologySpec,
    /// The message set: a pattern or `file:PATH`.
    #[arg(long, short)]
    traffic: TrafficSpec,
    /// Seed of the random patterns (the seed of a sweep task's trial gives its message set).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    #[command(flatten)]
    options: ScheduleOptions,
    /// Print JSON (with the whole schedule) instead of a summary.
    #[arg(long)]
    json: bool,
    /// In text mode, also print every cycle's messages, `src->dst` (the JSON has the ids and
    /// the message set).
    #[arg(long)]
    cycles: bool,
}

/// Runs `fatnet schedule`.
pub fn run(args: ScheduleArgs, out: &mut impl Write) -> Result<()> {
    let scenario = ScheduleScenario {
        topology: args.spec,
        traffic: args.traffic,
        options: args.options,
    };
    let prepared = scenario.prepare(args.seed)?;
    let o = ScheduleSummary::run(&prepared, args.seed)?;
    if args.json {
        serde_json::to_writer_pretty(&mut *out, &o)?;
        writeln!(out)?;
    } else {
        let t = &o.trial;
        writeln!(out, "topology        {}", o.topology)?;
        writeln!(out, "traffic         {} (seed {})", o.traffic, o.seed)?;
        match o.fictitious {
            Some(f) => writeln!(out, "algorithm       {} (fictitious {f})", o.algorithm)?,
            None => writeln!(out, "algorithm       {}", o.algorithm)?,
        }
        writeln!(out, "messages        {}", t.messages)?;
        writeln!(
            out,
            "load factor     {:.6} = {}/{}  (lower bound {} cycles)",
            t.load_factor, o.load_factor_exact[0], o.load_factor_exact[1], t.lower_bound
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
            t.cycles,
            t.bound,
            t.cycles as f64 / t.load_factor.max(f64::MIN_POSITIVE)
        )?;
        if !o.cycles_per_level.is_empty() {
            writeln!(out, "per LCA depth   {:?}", o.cycles_per_level)?;
        }
        writeln!(
            out,
            "verified        {}",
            if t.verified {
                "yes: every message once, no channel over capacity in any cycle"
            } else {
                "NO"
            }
        )?;
        if args.cycles {
            for (i, c) in o.schedule.iter().enumerate() {
                let pairs: Vec<String> = c
                    .iter()
                    .map(|&id| {
                        let [src, dst] = o.pairs[id as usize];
                        format!("{src}->{dst}")
                    })
                    .collect();
                writeln!(out, "cycle {i}: {}", pairs.join(" "))?;
            }
        }
    }
    if !o.trial.verified {
        bail!("internal error: the schedule does not verify");
    }
    Ok(())
}
