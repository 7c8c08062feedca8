//! `fatnet simulate`: synchronous packet routing (Greenberg and Oh's STORE, WORM and SPLIT) on
//! any topology, many seeded trials in parallel.
//!
//! Options come from the command line and, optionally, a TOML file with the same keys; flags
//! override the file. Both are merged into one set of options before anything runs, and every
//! problem with them is a one-line error.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow, bail};
use clap::Args;
use fatnet::fabric::{FabricFiles, FabricFormat};
use fatnet::online::packet::{FlowControl, Outcome, QueueCapacity};
use fatnet::scenario::{
    CollectiveScenario, DynamicOptions, DynamicScenario, Network, PacketOptions, PacketRunFile,
    PacketScenario, PacketSummary, RunOptions,
};
use fatnet::traffic::{Collective, TrafficSpec};

mod collective;

/// What `fatnet simulate --help` prints after the options.
pub fn long_help() -> String {
    format!(
        "\
MODEL (Greenberg and Oh, \"Universal wormhole routing\", with the step semantics that
reproduce their Table I exactly):
  Every link has a FIFO queue of q units at its head node. In each step every node scans its
  inputs once, in the --scan order, and moves the front unit of each input across its next
  link if that link has not carried a unit this step, its queue had room at the start of the
  step, and (for a head) no other worm owns it. Terminals remove one unit per step from each
  of their ejection queues (--sink queue) or absorb units on arrival (--sink immediate).
  Messages are released at step x*U with x uniform in 0..R (--delay R, the paper's initial
  random delays; U = one packet-step for STORE, L*ceil(log2 N) flit-steps otherwise).

OUTPUT QUEUES (--queueing output; Stamoulis' model):
  Every link's FIFO queue sits at its tail. A packet released at a node, or arriving there,
  joins the queue of the arc it takes next at once (for a broadcast, the queue of every child
  arc). In every step every arc with a waiting packet sends its front packet. So no arc idles
  while a packet waits for it, and a packet never waits behind one bound for another arc.
  Packets joining one queue in the same step are ordered at random (--scan rr) or by the link
  they came from (--scan fo). The path policy picks the next arc on arrival (gp: the
  candidate with the shortest queue). Only store-and-forward with unbounded queues and
  immediate sinks is possible; these are the defaults with --queueing output. The delay of
  Stamoulis' slotted model is the latency here plus one step.

BROADCAST (multicast along a tree):
  --traffic broadcast makes every processor send one packet to all the others;
  --traffic broadcast:src=K makes only processor K do so. Each broadcast is one message copied
  along a shortest-path tree from its source (breadth-first, links in id order). At a branch,
  the unit at the front of a queue is copied into each child link that accepts it, under the
  rules above, and leaves its queue with its last copy. Copies then travel independently.
  A node that is a destination and also forwards (a hypercube node) keeps a copy on arrival.
  A broadcast is delivered when its last unit has reached every destination. --path does not
  apply, because the tree is the path. Under wormhole flow control, simultaneous broadcasts
  with bounded queues can deadlock; such trials are reported as deadlocked.

LATENCY:
  The paper's maximum latency, in flit-steps: the 0-based step in which the tail of the last
  message crosses the last link of its path (an uncontended worm of L flits on a d-link path
  takes d + L - 2). STORE runs in packet-steps and reports L flit-steps per packet-step. The
  per-message latency is its delivery step minus its release step; `mean latency` is their
  mean over a trial's messages. Statistics are over the trials that finished, with 99%
  confidence half-widths (Student's t, Greenberg and Oh's level; none below two trials).

TRIALS AND SEEDS:
  Trial i (0-based) gets the seed s_i = derive_seed(SEED, i) (SplitMix64 of the pair, as in
  `fatnet route`). A randomized pattern (permutation, uniform, replicated, valiant, bitflip) is
  drawn afresh for each trial from s_i, exactly the set `fatnet traffic --seed s_i` writes, so
  trials are independent random instances as in Greenberg and Oh; a fixed pattern is made
  once. The trial's delays and routing choices come from derive_seed(s_i, 1). Trials run in
  parallel on the --threads workers, and a large run (4,096 nodes or more; unicast, the
  snapshot reading, queues of at most 4 units) also splits its busy steps between them.
  Results do not depend on --threads; --per-trial lists every s_i.

OUTPUT (--json keys):
  The effective configuration (topology, traffic, queueing, flow, path, scan, priority_range,
  flits, queue, sink, delay, delay_unit [flit-steps], max_steps, seed, trials), processors,
  messages (per trial), traffic_per_trial; finished / deadlocked / step_limited (trial counts);
  confidence (0.99); latency_mean, latency_ci (99% half-width), latency_sd, latency_min,
  latency_max; mean_latency_mean, mean_latency_ci; congestion_mean, congestion_ci,
  congestion_max (realized congestion: most worms whose head crossed one link); dilation_max;
  max_queue; mean_queued_mean; steps and unit_hops (engine steps and unit-link crossings,
  summed over all trials). --per-trial adds `per_trial`, one record per trial: trial, seed
  and the engine's report (outcome {{kind: delivered | deadlock (with its step) | step-limit}},
  messages, delivered, steps, latency, mean_latency, congestion, dilation, unit_hops,
  mean_queued, max_queue, latencies), the very record a sweep task of the same case writes as
  its `result`; --latencies also fills `latencies`. Statistics a run cannot define are null.

EXIT STATUS:
  0 whenever the simulation ran, even if trials deadlocked or stopped at --max-steps: those
  are data (counted in finished / deadlocked / step_limited, with a one-line warning on
  stderr); the statistics then cover the finished trials only, and are null if none finished.
  A deadlock is detected in the step it happens, so a run never hangs. Bad input (a spec, a
  parameter, the config file) gives a one-line `error: ...` and status 2, with no output.

FABRICS (--fabric FILE [--routes FILE] [--ca-order FILE] [--fabric-format F]):
  A real InfiniBand fabric is read as `fatnet fabric check` reads it (same files, same
  defaults for the side files), every route between two CAs is traced through its forwarding
  tables, and the engine runs on the fabric's links: processor i is the i-th CA of the CA
  order, and every message follows the one route the tables give its pair (so --path must be
  std, the default on a fabric). A fabric without tables, or one with a route that loops,
  dead-ends or reaches the wrong CA, is refused with the first such pair. For example:
    fatnet simulate --fabric is4_3l_1944n.ned --routes is4_3l_1944n.fdbs --traffic permutation
  In --config, `topology = {{ fabric = \"x.ned\", routes = \"x.fdbs\" }}` (keys fabric,
  routes, ca_order, format) does the same; as SPEC or in a sweep's `topology`, the one-string
  form `fabric:x.ned,routes=x.fdbs[,ca_order=F][,format=F]` (paths without commas).
  Relative paths are from the working directory.

CONFIG FILE (--config FILE.toml):
  The keys topology, traffic, queueing, flow, path, scan, priority_range, flits, queue, delay,
  trials, seed, threads, max_steps and sink, with the values of the flags (queue = 2 or
  queue = \"unbounded\"); unknown keys are errors. Flags given on the command line override
  the file; SPEC may come from the file. For example:
    topology = \"bft:n=1024\"
    traffic = \"uniform:self=false\"   # Greenberg-Oh random instances
    flow = \"worm\"
    trials = 30

{}

{}

{}

{}",
        collective::HELP,
        crate::dynamic_cmd::HELP,
        crate::TOPOLOGY_GRAMMAR,
        crate::TRAFFIC_GRAMMAR
    )
}

/// Arguments of `fatnet simulate`. Every option is optional here so that a `--config` file can
/// supply it; the library applies the defaults after merging ([`PacketOptions::resolve`],
/// [`RunOptions::resolve`]).
#[derive(Debug, Args)]
#[command(
    after_help = "See --help for the model, the latency convention, seeds, the JSON keys, the exit status and the config file.",
    after_long_help = long_help()
)]
pub struct SimulateArgs {
    /// The network: any topology spec, e.g. `bft:n=256`, `hypercube:d=6`,
    /// `fattree:n=64,profile=area`, or a fabric as `fabric:FILE,routes=TABLES` (see FABRICS;
    /// or `topology` in --config).
    spec: Option<Network>,
    /// The message set: a pattern or `file:PATH`; randomized patterns are drawn afresh per
    /// trial (see TRIALS AND SEEDS); or `broadcast` / `broadcast:src=K` (see BROADCAST).
    /// Required, here or as `traffic` in --config.
    #[arg(long, short)]
    traffic: Option<TrafficSpec>,
    /// A collective instead of a message set: `alltoall:order=shift|pairwise` or
    /// `allreduce:alg=ring|rd`, with `,flits=F` or `,bytes=B`; its phases run one after another,
    /// each beside its lower bound (see COLLECTIVES).
    #[arg(
        long,
        value_name = "SPEC",
        conflicts_with_all = ["traffic", "per_trial", "latencies"]
    )]
    collective: Option<Collective>,
    #[command(flatten)]
    options: PacketOptions,
    #[command(flatten)]
    run: RunOptions,
    /// Read options from a TOML file (see CONFIG FILE); flags override it.
    #[arg(long, value_name = "FILE.toml")]
    config: Option<PathBuf>,
    /// List every trial: seed, outcome, latency, congestion, steps (`per_trial` in JSON).
    #[arg(long)]
    per_trial: bool,
    /// Record every message's latency, in injection order, in each trial's record (implies
    /// --per-trial).
    #[arg(long)]
    latencies: bool,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
    /// A real fabric instead of SPEC: its topology file (`.ned`, `.topo`, an `ibnetdiscover`
    /// dump, `opensm-subnet.lst` or an OpenSM dump folder), simulated through its forwarding
    /// tables (see FABRICS).
    #[arg(
        long,
        value_name = "FILE",
        conflicts_with = "spec",
        help_heading = "A real fabric"
    )]
    fabric: Option<PathBuf>,
    /// The fabric's forwarding tables: the `.fdbs` (flitsim; its index is `<ROUTES>.ini`), or an
    /// OpenSM dump folder or table file (default: the dump folder's own).
    #[arg(
        long,
        value_name = "FILE",
        requires = "fabric",
        conflicts_with = "spec",
        help_heading = "A real fabric"
    )]
    routes: Option<PathBuf>,
    /// The fabric's CA order, which numbers the processors (default: `ftree.hcas` beside the
    /// `.fdbs`, OpenSM's ftree CA order beside its tables, else node order).
    #[arg(
        long,
        value_name = "FILE",
        requires = "fabric",
        conflicts_with = "spec",
        help_heading = "A real fabric"
    )]
    ca_order: Option<PathBuf>,
    /// The format of the fabric's files [default: auto, by the path].
    #[arg(
        long,
        value_enum,
        requires = "fabric",
        conflicts_with = "spec",
        help_heading = "A real fabric"
    )]
    fabric_format: Option<FabricFormat>,
    /// Stamoulis' dynamic routing and multiple broadcasts (see DYNAMIC ROUTING): the
    /// library's options, resolved by [`DynamicScenario::prepare`].
    #[command(flatten)]
    dynamic: DynamicOptions,
}

impl SimulateArgs {
    /// The dynamic scenario, if `--arrivals` was given; an error names any option of the
    /// other mode that was given too.
    fn dynamic(&self) -> Result<Option<DynamicScenario>> {
        let mut batch_only: Vec<String> = self.options.given().iter().map(|p| p.flag()).collect();
        for (flag, given) in [
            ("--traffic", self.traffic.is_some()),
            ("--collective", self.collective.is_some()),
            ("--config", self.config.is_some()),
            ("--latencies", self.latencies),
            ("--fabric", self.fabric.is_some()),
        ] {
            if given {
                batch_only.push(flag.to_string());
            }
        }
        if self.dynamic.arrivals.is_none() {
            if let Some(p) = self.dynamic.given().first() {
                bail!("{} applies only to dynamic routing (--arrivals)", p.flag());
            }
            return Ok(None);
        }
        if let Some(flag) = batch_only.first() {
            bail!("{flag} does not apply to dynamic routing (--arrivals)");
        }
        let Some(Network::Topology(spec)) = &self.spec else {
            bail!("dynamic routing runs on `hypercube:d=D` or `butterfly:d=D`: give one as SPEC");
        };
        Ok(Some(DynamicScenario {
            topology: spec.clone(),
            options: self.dynamic,
        }))
    }
}

/// Reads and checks the `--config` file; errors name the file, and the line and column.
fn read_config(path: &Path) -> Result<PacketRunFile> {
    let text = fatnet::scenario::read_config(path).context("cannot read the config file")?;
    PacketRunFile::parse(&text).with_context(|| format!("config file {}", path.display()))
}

/// Runs `fatnet simulate`: flags over the config file, then the library's scenario.
pub fn run(args: SimulateArgs, out: &mut impl Write) -> Result<()> {
    if let Some(scenario) = args.dynamic()? {
        return crate::dynamic_cmd::run(&scenario, args.run, args.per_trial, args.json, out);
    }
    let file = match &args.config {
        Some(path) => read_config(path)?,
        None => PacketRunFile::default(),
    };
    let fabric = args.fabric.map(|fabric| {
        Network::Fabric(FabricFiles {
            fabric,
            routes: args.routes,
            ca_order: args.ca_order,
            format: args.fabric_format.unwrap_or_default(),
        })
    });
    let topology = args.spec.or(fabric).or(file.topology).ok_or_else(|| {
        anyhow!("no topology: give SPEC, --fabric FILE, or `topology` in --config")
    })?;
    if let Some(collective) = args.collective {
        if file.traffic.is_some() {
            bail!("`traffic` in --config does not apply with --collective");
        }
        if args.run.trials.or(file.run.trials).is_some() {
            bail!("--trials does not apply to --collective (one run, seeded per phase)");
        }
        let scenario = CollectiveScenario {
            topology,
            collective,
            options: args.options.or(file.options),
        };
        let seed = args.run.or(file.run).resolve()?.seed;
        return collective::run(&scenario, seed, args.json, out);
    }
    let scenario = PacketScenario {
        topology,
        traffic: args
            .traffic
            .or(file.traffic)
            .ok_or_else(|| anyhow!("no traffic: give --traffic, or `traffic` in --config"))?,
        options: args.options.or(file.options),
    };
    let run = args.run.or(file.run).resolve()?;
    let mut prepared = scenario.prepare(run.seed)?;
    if args.latencies {
        prepared = prepared.recording_latencies();
    }
    let bar = crate::trial_progress_bar(run.trials);
    // Calls may arrive slightly out of order: never move the bar back.
    let trials = prepared.run(run.seed, run.trials, &run.runner, &|done| {
        bar.set_position(bar.position().max(done))
    })?;
    bar.finish_and_clear();
    let summary = PacketSummary::of(
        &prepared,
        run.seed,
        trials,
        args.per_trial || args.latencies,
    );
    if summary.finished < summary.trials {
        eprintln!("warning: {}", unfinished_note(&summary));
    }
    if args.json {
        serde_json::to_writer_pretty(&mut *out, &summary)?;
        writeln!(out)?;
    } else {
        print_text(out, &summary)?;
    }
    Ok(())
}

/// The one-line description of the trials that did not finish.
fn unfinished_note(o: &PacketSummary) -> String {
    let mut parts = Vec::new();
    if o.deadlocked > 0 {
        parts.push(format!("{} deadlocked", o.deadlocked));
    }
    if o.step_limited > 0 {
        parts.push(format!(
            "{} stopped at --max-steps {}",
            o.step_limited, o.max_steps
        ));
    }
    let over = if o.finished == 0 {
        "no statistics".to_string()
    } else {
        format!("statistics are over the {} that did", o.finished)
    };
    format!(
        "{} of {} trials did not finish ({}); {over}",
        o.trials - o.finished,
        o.trials,
        parts.join(", ")
    )
}

fn print_text(out: &mut impl Write, o: &PacketSummary) -> Result<()> {
    let flow = o.flow;
    let num = |x: Option<f64>| x.map_or("—".to_string(), |v| format!("{v:.2}"));
    let int = |x: Option<u64>| x.map_or("—".to_string(), |v| v.to_string());
    let pm = |x: Option<f64>| x.map_or(String::new(), |v| format!(" ± {v:.2} (99% CI)"));
    let unit = if flow == FlowControl::StoreAndForward {
        "packet"
    } else {
        "flit"
    };
    let queue = match o.queue {
        QueueCapacity::Unbounded => o.queue.to_string(),
        QueueCapacity::Bounded(1) => format!("1 {unit}"),
        QueueCapacity::Bounded(q) => format!("{q} {unit}s"),
    };
    let scan = match o.priority_range {
        Some(r) => format!("{}(R = {r})", o.scan.name().to_uppercase()),
        None => o.scan.name().to_uppercase(),
    };
    writeln!(
        out,
        "topology      {} ({} processors)",
        o.topology, o.processors
    )?;
    writeln!(
        out,
        "traffic       {} ({} messages; {})",
        o.traffic,
        o.messages,
        if o.traffic_per_trial {
            "drawn afresh per trial"
        } else {
            "the same set every trial"
        }
    )?;
    writeln!(
        out,
        "routing       {} {}-{}, L = {} flits, q = {}, {} sinks, {} queues",
        o.flow.name().to_uppercase(),
        o.path.name().to_uppercase(),
        scan,
        o.flits,
        queue,
        o.sink,
        o.queueing
    )?;
    writeln!(
        out,
        "delays        R = {} (unit {} flit-steps)",
        o.delay, o.delay_unit
    )?;
    writeln!(
        out,
        "trials        {} (seed {}): {} finished, {} deadlocked, {} at --max-steps",
        o.trials, o.seed, o.finished, o.deadlocked, o.step_limited
    )?;
    writeln!(
        out,
        "latency       mean {}{} sd {} min {} max {}  [max over messages, flit-steps]",
        num(o.latency_mean),
        pm(o.latency_ci),
        num(o.latency_sd),
        int(o.latency_min),
        int(o.latency_max)
    )?;
    writeln!(
        out,
        "mean latency  mean {}{}  [mean over messages, flit-steps]",
        num(o.mean_latency_mean),
        pm(o.mean_latency_ci)
    )?;
    writeln!(
        out,
        "congestion    mean {}{} max {}",
        num(o.congestion_mean),
        pm(o.congestion_ci),
        int(o.congestion_max.map(u64::from))
    )?;
    writeln!(
        out,
        "dilation      max {}; largest queue {}, mean queued {}",
        int(o.dilation_max.map(u64::from)),
        int(o.max_queue.map(u64::from)),
        num(o.mean_queued_mean)
    )?;
    writeln!(
        out,
        "work          {} engine steps, {} {}-hops (all trials)",
        o.steps,
        o.unit_hops,
        if flow == FlowControl::StoreAndForward {
            "packet"
        } else {
            "flit"
        }
    )?;
    if let Some(trials) = &o.per_trial {
        writeln!(out)?;
        writeln!(
            out,
            "{:>6} {:>20} {:>10} {:>9} {:>12} {:>10} {:>10}",
            "trial", "seed", "outcome", "latency", "mean lat.", "congestion", "steps"
        )?;
        for t in trials {
            let r = &t.report;
            let outcome = match r.outcome {
                Outcome::Delivered => "delivered",
                Outcome::Deadlock { .. } => "deadlock",
                Outcome::StepLimit => "step-limit",
            };
            writeln!(
                out,
                "{:>6} {:>20} {:>10} {:>9} {:>12.2} {:>10} {:>10}",
                t.trial, t.seed, outcome, r.latency, r.mean_latency, r.congestion, r.steps
            )?;
        }
        for t in trials {
            if let Some(l) = &t.report.latencies {
                writeln!(out, "latencies of trial {}: {l:?}", t.trial)?;
            }
        }
    }
    Ok(())
}
