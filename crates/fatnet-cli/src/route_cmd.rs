//! `fatnet route`: on-line routing in the delivery-cycle model (Greenberg–Leiserson), many
//! seeded trials in parallel.

use std::io::Write;

use anyhow::{Context, Result, bail};
use clap::{Args, ValueEnum};
use fatnet::online::{
    DropPolicy, Greedy, Interleaved, RandomParams, RandomPrime, RandomRouter, Router, RunConfig,
    Sink, run,
};
use fatnet::topology::AnyTopology;
use fatnet_repro::runner::{RunnerConfig, Summary, try_run_trials_with};
use serde::Serialize;

use crate::{topology, traffic_spec};

/// Arguments of `fatnet route`.
#[derive(Debug, Args)]
pub struct RouteArgs {
    /// A binary fat-tree, e.g. `fattree:n=1024,profile=area`.
    spec: String,
    /// The message set: a pattern or `file:PATH` (one set, shared by all trials).
    #[arg(long, short)]
    traffic: String,
    /// The router.
    #[arg(long, value_enum, default_value_t = RouterKind::Random)]
    router: RouterKind,
    /// What a congested switch drops (default: random for concentrator routers, wires for
    /// `constant-switch`).
    #[arg(long, value_enum)]
    policy: Option<Policy>,
    /// Interleave the router's cycles with single-message cycles (the expected-time variant).
    #[arg(long)]
    interleave: bool,
    /// RANDOM's constants: `practical` (k1 = 2, k2 = 1, r = 2) or `proved` (Lemma 7's, with r the
    /// tree's congestion parameter; very slow by design).
    #[arg(long, value_enum, default_value_t = Preset::Practical)]
    preset: Preset,
    /// Override RANDOM's k1 (cycles per unit of λ in an inner loop).
    #[arg(long)]
    k1: Option<f64>,
    /// Override RANDOM's k2 (cycles per unit of lg n in an inner loop).
    #[arg(long)]
    k2: Option<f64>,
    /// Override RANDOM's r (sending probability 1/(rλ)).
    #[arg(long)]
    r: Option<f64>,
    /// `k` of the constant-switch router: (k+1)·lg n passes per value of z.
    #[arg(long, default_value_t = 1)]
    k: u32,
    /// Number of independent trials; trial i is seeded from (seed, i).
    #[arg(long, default_value_t = 1)]
    trials: u64,
    /// Master seed (the traffic uses it directly, the trials derive theirs from it).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Stop a trial after this many cycles (reported as unfinished).
    #[arg(long, default_value_t = 1_000_000)]
    max_cycles: u64,
    /// Route every message out of the tree through the root's external channel, ignoring its
    /// destination (the setting of Greenberg–Leiserson's Theorem 9).
    #[arg(long)]
    out_the_root: bool,
    /// Worker threads (default: all cores); results do not depend on it.
    #[arg(long)]
    threads: Option<usize>,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum RouterKind {
    /// RANDOM with TRY-GUESS: O(λ + lg n lg lg n) cycles w.h.p.
    Random,
    /// GREEDY: send everything every cycle.
    Greedy,
    /// RANDOM′ for capacities ≥ a·lg n: O(λ) cycles w.h.p.
    RandomPrime,
    /// RANDOM′ with (k+1)·lg n passes per z, for the constant-size-switch fat-tree.
    ConstantSwitch,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Policy {
    /// Every message on a congested channel is lost (the analysis model).
    Pessimistic,
    /// Greedy concentrator, random survivors.
    Random,
    /// Greedy concentrator, fixed port priority.
    Fixed,
    /// Greedy concentrator, alternating port priority.
    RoundRobin,
    /// Uniform random wire per channel; shared wires lose all their messages.
    Wires,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Preset {
    /// k1 = 2, k2 = 1, r = 2 (this library's practical choice).
    Practical,
    /// The constants of Lemma 7 (q = 1/(e⁴ r ln r), k1 = 4r/q, k2 = 36r).
    Proved,
}

#[derive(Debug, Serialize)]
struct Stats {
    mean: Option<f64>,
    std_dev: Option<f64>,
    ci95_low: Option<f64>,
    ci95_high: Option<f64>,
    min: Option<f64>,
    max: Option<f64>,
}

impl From<Summary> for Stats {
    fn from(s: Summary) -> Self {
        Self {
            mean: s.mean,
            std_dev: s.std_dev,
            ci95_low: s.ci95_low,
            ci95_high: s.ci95_high,
            min: s.min,
            max: s.max,
        }
    }
}

#[derive(Debug, Serialize)]
struct Output {
    topology: String,
    traffic: String,
    router: String,
    policy: DropPolicy,
    seed: u64,
    trials: u64,
    messages: u64,
    load_factor: f64,
    lower_bound: u64,
    cycles: Vec<u64>,
    finished: Vec<bool>,
    cycles_summary: Stats,
    cycles_over_lambda: Stats,
}

/// Runs `fatnet route`.
pub fn run_route(args: RouteArgs, out: &mut impl Write) -> Result<()> {
    let (spec, topo) = topology(&args.spec)?;
    let AnyTopology::FatTree(tree) = &topo else {
        bail!("`{spec}`: the delivery-cycle engine needs a binary fat-tree (`fattree:...`)");
    };
    if args.trials == 0 {
        bail!("--trials must be at least 1");
    }
    if args.threads == Some(0) {
        bail!("--threads must be at least 1 (omit it to use every core)");
    }
    let traffic = traffic_spec(&args.traffic)?;
    let messages = traffic
        .generate(tree.n(), args.seed)
        .with_context(|| format!("cannot make traffic `{traffic}`"))?;
    let policy = match args.policy {
        Some(Policy::Pessimistic) => DropPolicy::Pessimistic,
        Some(Policy::Random) => DropPolicy::Random,
        Some(Policy::Fixed) => DropPolicy::FixedPriority,
        Some(Policy::RoundRobin) => DropPolicy::RoundRobin,
        Some(Policy::Wires) => DropPolicy::Wires,
        None if args.router == RouterKind::ConstantSwitch => DropPolicy::Wires,
        None => DropPolicy::Random,
    };
    if args.router == RouterKind::Greedy && policy == DropPolicy::Pessimistic && !args.interleave {
        bail!(
            "GREEDY under the pessimistic model never finishes once a channel stays congested (all its messages are lost every cycle); use --policy random|fixed|round-robin, or --interleave"
        );
    }
    let mut params = match args.preset {
        Preset::Practical => RandomParams::default(),
        Preset::Proved => RandomParams::proved(congestion_parameter(tree)?, 1)?,
    };
    params.k1 = args.k1.unwrap_or(params.k1);
    params.k2 = args.k2.unwrap_or(params.k2);
    params.r = args.r.unwrap_or(params.r);
    if !(params.k1 > 0.0 && params.k2 > 0.0 && params.r > 0.0) {
        bail!("k1, k2 and r must be positive");
    }
    let lg_n = u64::from(tree.levels());
    let make = |_: u64| -> Box<dyn Router> {
        let base: Box<dyn Router> = match args.router {
            RouterKind::Random => Box::new(RandomRouter::new(params, tree.n())),
            RouterKind::Greedy => Box::new(Greedy),
            RouterKind::RandomPrime => Box::new(RandomPrime::new()),
            RouterKind::ConstantSwitch => {
                Box::new(RandomPrime::with_repetitions(u64::from(args.k + 1) * lg_n))
            }
        };
        if args.interleave {
            Box::new(Interleaved::new(base))
        } else {
            base
        }
    };
    let config = RunConfig {
        max_cycles: args.max_cycles,
        trace_load_factor: false,
        sink: if args.out_the_root {
            Sink::External
        } else {
            Sink::Processors
        },
    };
    let bar = crate::trial_progress_bar(args.trials);
    let runner = RunnerConfig {
        threads: args.threads,
    };
    let reports = try_run_trials_with(
        &runner,
        args.seed,
        args.trials,
        |i, seed| {
            let mut router = make(i);
            run(tree, &messages, policy, router.as_mut(), seed, config)
        },
        // Calls may arrive slightly out of order: never move the bar back.
        &|done| bar.set_position(bar.position().max(done)),
    )?;
    bar.finish_and_clear();
    let first = &reports[0];
    let lambda = first.load_factor.value();
    let cycles: Vec<u64> = reports.iter().map(|r| r.cycles).collect();
    let as_f: Vec<f64> = cycles.iter().map(|&c| c as f64).collect();
    let ratio: Vec<f64> = as_f
        .iter()
        .map(|c| c / lambda.max(f64::MIN_POSITIVE))
        .collect();
    let o = Output {
        topology: spec.to_string(),
        traffic: traffic.to_string(),
        router: first.router.clone(),
        policy,
        seed: args.seed,
        trials: args.trials,
        messages: first.messages,
        load_factor: lambda,
        lower_bound: first.lower_bound,
        finished: reports.iter().map(|r| r.finished).collect(),
        cycles,
        cycles_summary: Summary::of(&as_f).into(),
        cycles_over_lambda: Summary::of(&ratio).into(),
    };
    if args.json {
        serde_json::to_writer_pretty(&mut *out, &o)?;
        writeln!(out)?;
    } else {
        let fmt = |x: Option<f64>| x.map_or("—".to_string(), |v| format!("{v:.2}"));
        writeln!(out, "topology      {}", o.topology)?;
        writeln!(out, "traffic       {} (seed {})", o.traffic, o.seed)?;
        writeln!(out, "router        {} ({:?} drops)", o.router, o.policy)?;
        writeln!(out, "messages      {}", o.messages)?;
        writeln!(
            out,
            "load factor   {:.4}  (lower bound {} cycles)",
            o.load_factor, o.lower_bound
        )?;
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
                args.max_cycles
            )?;
        }
        if o.trials <= 20 {
            writeln!(out, "per trial     {:?}", o.cycles)?;
        }
    }
    Ok(())
}

/// The congestion parameter r of the tree (Greenberg–Leiserson §4).
fn congestion_parameter(tree: &fatnet::topology::FatTree) -> Result<f64> {
    Ok(fatnet::queueing::greenberg_leiserson::congestion_parameter(
        tree.capacities(),
    )?)
}
