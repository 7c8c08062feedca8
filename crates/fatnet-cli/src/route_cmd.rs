//! `fatnet route`: on-line routing in the delivery-cycle model (Greenberg–Leiserson), many
//! seeded trials in parallel: a thin edge over [`fatnet::scenario::RouteScenario`].

use std::io::Write;

use anyhow::Result;
use clap::Args;
use fatnet::scenario::{RouteOptions, RouteScenario, RouteSummary, RunOptions};
use fatnet::topology::TopologySpec;
use fatnet::traffic::TrafficSpec;

/// Arguments of `fatnet route`.
#[derive(Debug, Args)]
#[command(
    after_help = "Trial i gets the seed s_i = derive_seed(SEED, i); a randomized pattern is drawn afresh from s_i (a fixed one is made once), and the router's randomness comes from derive_seed(s_i, 1): trial i is the task of a `simulator = \"route\"` sweep point whose seed is SEED."
)]
pub struct RouteArgs {
    /// A binary fat-tree, e.g. `fattree:n=1024,profile=area`.
    spec: TopologySpec,
    /// The message set: a pattern (randomized ones drawn afresh per trial) or `file:PATH`.
    #[arg(long, short)]
    traffic: TrafficSpec,
    #[command(flatten)]
    options: RouteOptions,
    #[command(flatten)]
    run: RunOptions,
    /// List every trial's record (`per_trial` in JSON).
    #[arg(long)]
    per_trial: bool,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

/// Runs `fatnet route`.
pub fn run_route(args: RouteArgs, out: &mut impl Write) -> Result<()> {
    let run = args.run.resolve()?;
    let prepared = RouteScenario {
        topology: args.spec,
        traffic: args.traffic,
        options: args.options,
    }
    .prepare(run.seed)?;
    let bar = crate::trial_progress_bar(run.trials);
    // Calls may arrive slightly out of order: never move the bar back.
    let trials = prepared.run(run.seed, run.trials, &run.runner, &|done| {
        bar.set_position(bar.position().max(done))
    })?;
    bar.finish_and_clear();
    let o = RouteSummary::of(&prepared, run.seed, trials, args.per_trial);
    if args.json {
        serde_json::to_writer_pretty(&mut *out, &o)?;
        writeln!(out)?;
        return Ok(());
    }
    let fmt = |x: Option<f64>| x.map_or("—".to_string(), |v| format!("{v:.2}"));
    writeln!(out, "topology      {}", o.topology)?;
    writeln!(
        out,
        "traffic       {} (seed {}; {})",
        o.traffic,
        o.seed,
        if o.traffic_per_trial {
            "drawn afresh per trial"
        } else {
            "the same set every trial"
        }
    )?;
    writeln!(out, "router        {} ({} drops)", o.router, o.policy)?;
    writeln!(out, "messages      {}", o.messages)?;
    if o.traffic_per_trial {
        writeln!(
            out,
            "load factor   {:.4}  (mean λ(M) of the trials' instances; the smallest ⌈λ(M)⌉, {} \
             cycles, bounds every trial from below)",
            o.load_factor, o.lower_bound
        )?;
    } else {
        writeln!(
            out,
            "load factor   {:.4}  (λ(M); ⌈λ(M)⌉ = {} cycles is a lower bound for every router)",
            o.load_factor, o.lower_bound
        )?;
    }
    let s = &o.cycles_summary;
    writeln!(
        out,
        "cycles        mean {} sd {} [95% CI {} .. {}] min {} max {} over {} trials",
        fmt(s.mean),
        fmt(s.std_dev),
        fmt(s.ci95_low),
        fmt(s.ci95_high),
        fmt(s.min),
        fmt(s.max),
        o.trials
    )?;
    writeln!(out, "cycles / λ    mean {}", fmt(o.cycles_over_lambda.mean))?;
    let unfinished = o.finished.iter().filter(|f| !**f).count();
    if unfinished > 0 {
        writeln!(
            out,
            "unfinished    {unfinished} trial(s) stopped at --max-cycles {}",
            o.max_cycles
        )?;
    }
    if o.trials <= 20 {
        writeln!(out, "per trial     {:?}", o.cycles)?;
    }
    Ok(())
}
