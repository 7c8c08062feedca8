//! `fatnet simulate`: synchronous packet routing (Greenberg and Oh's STORE, WORM and SPLIT) on
//! any topology, many seeded trials in parallel.
//!
//! Options come from the command line and, optionally, a TOML file with the same keys; flags
//! override the file. Both are merged into one [`Settings`] before anything runs, and every
//! problem with them is a one-line error.

use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow, bail};
use clap::{Args, ValueEnum};
use fatnet::online::packet::{
    FlowControl, MulticastTree, Outcome, PacketConfig, PacketNet, PacketReport, PathPolicy,
    QueueCapacity, Queueing, ScanPolicy, SinkModel, batch_trial, delay_unit, multicast_trial,
};
use fatnet::topology::Topology;
use fatnet_repro::derive_seed;
use fatnet_repro::runner::{RunnerConfig, Summary, try_run_trials_with};
use serde::de::{self, Deserializer, Unexpected, Visitor};
use serde::{Deserialize, Serialize};

use crate::dynamic_cmd::{ArrivalsArg, BroadcastArg, DynamicArgs, RouterArg};
use crate::{topology, traffic_spec};

/// The confidence level of the reported intervals: Greenberg and Oh's (Figure 2).
const CONFIDENCE: f64 = 0.99;

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
  once. The trial's delays and routing choices come from derive_seed(s_i, 1). Results do not
  depend on --threads; --per-trial lists every s_i.

OUTPUT (--json keys):
  The effective configuration (topology, traffic, queueing, flow, path, scan, priority_range,
  flits, queue, sink, delay, delay_unit [flit-steps], max_steps, seed, trials), processors,
  messages (per trial), traffic_per_trial; finished / deadlocked / step_limited (trial counts);
  confidence (0.99); latency_mean, latency_ci (99% half-width), latency_sd, latency_min,
  latency_max; mean_latency_mean, mean_latency_ci; congestion_mean, congestion_ci,
  congestion_max (realized congestion: most worms whose head crossed one link); dilation_max;
  max_queue; mean_queued_mean; steps and unit_hops (engine steps and unit-link crossings,
  summed over all trials). --per-trial adds `per_trial`, one record per trial; --latencies
  also records every message's latency in it. Statistics a run cannot define are null.

EXIT STATUS:
  0 whenever the simulation ran, even if trials deadlocked or stopped at --max-steps: those
  are data (counted in finished / deadlocked / step_limited, with a one-line warning on
  stderr); the statistics then cover the finished trials only, and are null if none finished.
  A deadlock is detected in the step it happens, so a run never hangs. Bad input (a spec, a
  parameter, the config file) gives a one-line `error: ...` and status 2, with no output.

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

{}",
        crate::dynamic_cmd::HELP,
        crate::TOPOLOGY_GRAMMAR,
        crate::TRAFFIC_GRAMMAR
    )
}

/// Arguments of `fatnet simulate`. Every option is optional here so that a `--config` file can
/// supply it; the defaults are applied after merging (see [`Settings::merge`]).
#[derive(Debug, Args)]
#[command(
    after_help = "See --help for the model, the latency convention, seeds, the JSON keys, the exit status and the config file.",
    after_long_help = long_help()
)]
pub struct SimulateArgs {
    /// The network: any topology spec, e.g. `bft:n=256`, `hypercube:d=6`,
    /// `fattree:n=64,profile=area` (or `topology` in --config).
    spec: Option<String>,
    /// The message set: a pattern or `file:PATH`; randomized patterns are drawn afresh per
    /// trial (see TRIALS AND SEEDS); or `broadcast` / `broadcast:src=K` (see BROADCAST).
    /// Required, here or as `traffic` in --config.
    #[arg(long, short)]
    traffic: Option<String>,
    /// Where queues sit: `input` (Greenberg and Oh) or `output` (Stamoulis; see OUTPUT
    /// QUEUES) [default: input].
    #[arg(long, value_enum)]
    queueing: Option<QueueingArg>,
    /// Flow control [default: worm; store with --queueing output].
    #[arg(long, value_enum)]
    flow: Option<Flow>,
    /// Path selection among shortest paths [default: rp].
    #[arg(long, value_enum)]
    path: Option<PathArg>,
    /// Order in which a node scans its inputs each step [default: rr].
    #[arg(long, value_enum)]
    scan: Option<Scan>,
    /// R of `--scan prio`: priorities are drawn from 1..=R [default: ceil(log2 N), Figure 2's
    /// R]. Only with `--scan prio`.
    #[arg(long, value_name = "R")]
    priority_range: Option<u32>,
    /// L: flits per packet, 1 to 65535 [default: 32, Table I].
    #[arg(long, value_name = "L")]
    flits: Option<u32>,
    /// Capacity of every link queue: q >= 1 units (flits for WORM and SPLIT, packets for
    /// STORE), or `unbounded` [default: 2 for worm and split, 1 for store, Table I].
    #[arg(long, value_name = "q|unbounded")]
    queue: Option<String>,
    /// R: initial random delays, x uniform in 0..R units (see MODEL); 1 releases everything
    /// at step 0 [default: 1].
    #[arg(long, value_name = "R")]
    delay: Option<u32>,
    /// Number of independent trials [default: 1].
    #[arg(long)]
    trials: Option<u64>,
    /// Master seed; trial i derives its own (see TRIALS AND SEEDS) [default: 1].
    #[arg(long)]
    seed: Option<u64>,
    /// Worker threads [default: all cores]; results do not depend on it.
    #[arg(long)]
    threads: Option<usize>,
    /// Stop a trial after this many engine steps (packet-steps for STORE); it is then
    /// reported as step-limited, not finished [default: 100000000].
    #[arg(long, value_name = "M")]
    max_steps: Option<u64>,
    /// What a terminal does with arriving units [default: queue].
    #[arg(long, value_enum)]
    sink: Option<Sink>,
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
    /// Dynamic routing: packets generated by a Poisson process at every node (see DYNAMIC
    /// ROUTING); the network must be `hypercube:d=D` or `butterfly:d=D`.
    #[arg(long, value_enum, help_heading = "Dynamic routing (Stamoulis)")]
    arrivals: Option<ArrivalsArg>,
    /// LAMBDA: packets generated per node per unit time (one transmission time). Required
    /// with --arrivals.
    #[arg(
        long,
        value_name = "LAMBDA",
        help_heading = "Dynamic routing (Stamoulis)"
    )]
    rate: Option<f64>,
    /// P: each destination bit differs from the origin's with probability P [default: 0.5].
    #[arg(long, value_name = "P", help_heading = "Dynamic routing (Stamoulis)")]
    p: Option<f64>,
    /// The routing scheme [default: greedy].
    #[arg(long, value_enum, help_heading = "Dynamic routing (Stamoulis)")]
    router: Option<RouterArg>,
    /// S: length of the run in time units; packets generated in [W, S) are measured
    /// [default: 10000].
    #[arg(long, value_name = "S", help_heading = "Dynamic routing (Stamoulis)")]
    slots: Option<f64>,
    /// W: warm-up, time units from the empty start not measured [default: S/10].
    #[arg(long, value_name = "W", help_heading = "Dynamic routing (Stamoulis)")]
    warmup: Option<f64>,
    /// B: batches for the batch-means confidence interval of one run, at least 2
    /// [default: 20].
    #[arg(long, value_name = "B", help_heading = "Dynamic routing (Stamoulis)")]
    batches: Option<u32>,
    /// Multiple broadcasts instead of node-to-node packets: every packet goes to all other
    /// nodes, by one of Stamoulis' direct or indirect schemes (with --arrivals poisson).
    #[arg(long, value_enum, help_heading = "Dynamic routing (Stamoulis)")]
    broadcast: Option<BroadcastArg>,
}

impl SimulateArgs {
    /// The dynamic-routing options, if `--arrivals` was given; an error names any option of
    /// the other mode that was given too.
    fn dynamic(&self) -> Result<Option<DynamicArgs>> {
        let batch_only = [
            ("--traffic", self.traffic.is_some()),
            ("--queueing", self.queueing.is_some()),
            ("--flow", self.flow.is_some()),
            ("--path", self.path.is_some()),
            ("--scan", self.scan.is_some()),
            ("--priority-range", self.priority_range.is_some()),
            ("--flits", self.flits.is_some()),
            ("--queue", self.queue.is_some()),
            ("--delay", self.delay.is_some()),
            ("--max-steps", self.max_steps.is_some()),
            ("--sink", self.sink.is_some()),
            ("--config", self.config.is_some()),
            ("--latencies", self.latencies),
        ];
        let dynamic_only = [
            ("--rate", self.rate.is_some()),
            ("--p", self.p.is_some()),
            ("--router", self.router.is_some()),
            ("--slots", self.slots.is_some()),
            ("--warmup", self.warmup.is_some()),
            ("--batches", self.batches.is_some()),
            ("--broadcast", self.broadcast.is_some()),
        ];
        let Some(arrivals) = self.arrivals else {
            if let Some((flag, _)) = dynamic_only.iter().find(|(_, given)| *given) {
                bail!("{flag} applies only to dynamic routing (--arrivals)");
            }
            return Ok(None);
        };
        if let Some((flag, _)) = batch_only.iter().find(|(_, given)| *given) {
            bail!("{flag} does not apply to dynamic routing (--arrivals)");
        }
        let Some(spec) = self.spec.clone() else {
            bail!("no topology: give SPEC, `hypercube:d=D` or `butterfly:d=D`");
        };
        Ok(Some(DynamicArgs {
            spec,
            arrivals,
            rate: self.rate,
            p: self.p,
            router: self.router,
            slots: self.slots,
            warmup: self.warmup,
            batches: self.batches,
            trials: self.trials,
            seed: self.seed,
            threads: self.threads,
            per_trial: self.per_trial,
            json: self.json,
            broadcast: self.broadcast,
        }))
    }
}

/// `--queueing`: where a link's queue sits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum, Deserialize)]
#[serde(rename_all = "lowercase")]
enum QueueingArg {
    /// At the link's head node; the front unit of a queue blocks the units behind it.
    Input,
    /// At the link's tail node: a packet joins the queue of the arc it takes next on arrival.
    Output,
}

/// `--flow`: how the flits of a packet travel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Flow {
    /// WORM: wormhole routing; a head acquires a link, its flits follow, the tail releases it.
    Worm,
    /// STORE: store-and-forward; whole packets move one link per packet-step.
    Store,
    /// SPLIT: the L flits travel as independent one-flit packets, each routed on its own.
    Split,
}

/// `--path`: how a head picks its next link among the shortest-path candidates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum, Deserialize)]
#[serde(rename_all = "lowercase")]
enum PathArg {
    /// RP (Random-Path): a uniformly random candidate each step; wait if it is blocked.
    Rp,
    /// GP (Greedy-Path): the first free candidate, in port order.
    Gp,
    /// FP (Fixed-Path): one random shortest path chosen at the source and kept.
    Fp,
    /// Dimension order: always the first candidate (lowest dimension first on the hypercube,
    /// up port 0 on the trees).
    Dor,
}

/// `--scan`: the order in which a node scans its inputs in a step.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Scan {
    /// RR (random round-robin): cyclically from an input drawn uniformly, once per node per step.
    Rr,
    /// FO (Fixed-Order): the same input order every step.
    Fo,
    /// FF (Farthest-First): the unit with the longest path first, ties in RR order.
    Ff,
    /// Oldest-first: the earliest-released message first, ties in RR order.
    Oldest,
    /// Random priorities from 1..=R (--priority-range), smallest first (a stand-in for UNIV).
    Prio,
}

/// `--sink`: what a terminal does with the units that reach it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Sink {
    /// The ejection queue (capacity q) is drained one unit per step (Greenberg and Oh).
    Queue,
    /// Units are absorbed the moment they cross their last link.
    Immediate,
}

/// The `--config` file: the flags' keys, every one optional.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileConfig {
    topology: Option<String>,
    traffic: Option<String>,
    queueing: Option<QueueingArg>,
    flow: Option<Flow>,
    path: Option<PathArg>,
    scan: Option<Scan>,
    priority_range: Option<u32>,
    flits: Option<u32>,
    queue: Option<TomlQueue>,
    delay: Option<u32>,
    trials: Option<u64>,
    seed: Option<u64>,
    threads: Option<usize>,
    max_steps: Option<u64>,
    sink: Option<Sink>,
}

/// A queue capacity in the config file: an integer of at least 1, or `"unbounded"`.
#[derive(Debug, Clone, Copy)]
struct TomlQueue(QueueCapacity);

impl<'de> Deserialize<'de> for TomlQueue {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct QueueVisitor;
        impl Visitor<'_> for QueueVisitor {
            type Value = TomlQueue;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a queue capacity of at least 1, or \"unbounded\"")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<TomlQueue, E> {
                match u32::try_from(v) {
                    Ok(q) if q >= 1 => Ok(TomlQueue(QueueCapacity::Bounded(q))),
                    _ => Err(E::invalid_value(Unexpected::Signed(v), &self)),
                }
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<TomlQueue, E> {
                match u32::try_from(v) {
                    Ok(q) if q >= 1 => Ok(TomlQueue(QueueCapacity::Bounded(q))),
                    _ => Err(E::invalid_value(Unexpected::Unsigned(v), &self)),
                }
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<TomlQueue, E> {
                parse_queue(v)
                    .map(TomlQueue)
                    .map_err(|_| E::invalid_value(Unexpected::Str(v), &self))
            }
        }
        deserializer.deserialize_any(QueueVisitor)
    }
}

/// Parses `--queue`: a capacity of at least 1, or `unbounded`.
fn parse_queue(text: &str) -> Result<QueueCapacity> {
    if text.eq_ignore_ascii_case("unbounded") {
        return Ok(QueueCapacity::Unbounded);
    }
    match text.parse::<u32>() {
        Ok(q) if q >= 1 => Ok(QueueCapacity::Bounded(q)),
        _ => bail!(
            "invalid queue capacity `{text}`: expected an integer of at least 1, or `unbounded`"
        ),
    }
}

/// Reads and checks the `--config` file; errors name the file, and the line and column.
fn read_config(path: &Path) -> Result<FileConfig> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read config file {}", path.display()))?;
    toml::from_str(&text).map_err(|e| {
        let message = e.message().split_whitespace().collect::<Vec<_>>().join(" ");
        match e.span() {
            Some(span) => {
                let before = &text[..span.start.min(text.len())];
                let line = before.matches('\n').count() + 1;
                let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
                anyhow!(
                    "config file {}, line {line}, column {column}: {message}",
                    path.display()
                )
            }
            None => anyhow!("config file {}: {message}", path.display()),
        }
    })
}

/// The effective options: flags over the file over the defaults.
#[derive(Debug)]
struct Settings {
    topology: String,
    traffic: String,
    queueing: QueueingArg,
    flow: Flow,
    path: PathArg,
    scan: Scan,
    priority_range: Option<u32>,
    flits: u32,
    queue: QueueCapacity,
    delay: u32,
    trials: u64,
    seed: u64,
    threads: Option<usize>,
    max_steps: u64,
    sink: Sink,
}

impl Settings {
    fn merge(args: &SimulateArgs, file: FileConfig) -> Result<Self> {
        let topology = args
            .spec
            .clone()
            .or(file.topology)
            .ok_or_else(|| anyhow!("no topology: give SPEC, or `topology` in --config"))?;
        let traffic = args
            .traffic
            .clone()
            .or(file.traffic)
            .ok_or_else(|| anyhow!("no traffic: give --traffic, or `traffic` in --config"))?;
        let queueing = args
            .queueing
            .or(file.queueing)
            .unwrap_or(QueueingArg::Input);
        let output = queueing == QueueingArg::Output;
        let flow = args
            .flow
            .or(file.flow)
            .unwrap_or(if output { Flow::Store } else { Flow::Worm });
        let queue = match &args.queue {
            Some(text) => parse_queue(text)?,
            None => file.queue.map(|q| q.0).unwrap_or(match flow {
                _ if output => QueueCapacity::Unbounded,
                Flow::Store => QueueCapacity::Bounded(1),
                Flow::Worm | Flow::Split => QueueCapacity::Bounded(2),
            }),
        };
        let scan = args.scan.or(file.scan).unwrap_or(Scan::Rr);
        let priority_range = args.priority_range.or(file.priority_range);
        if priority_range.is_some() && scan != Scan::Prio {
            bail!("--priority-range (`priority_range`) applies only to --scan prio");
        }
        let settings = Settings {
            topology,
            traffic,
            queueing,
            flow,
            path: args.path.or(file.path).unwrap_or(PathArg::Rp),
            scan,
            priority_range,
            flits: args.flits.or(file.flits).unwrap_or(32),
            queue,
            delay: args.delay.or(file.delay).unwrap_or(1),
            trials: args.trials.or(file.trials).unwrap_or(1),
            seed: args.seed.or(file.seed).unwrap_or(1),
            threads: args.threads.or(file.threads),
            max_steps: args
                .max_steps
                .or(file.max_steps)
                .unwrap_or(PacketConfig::default().max_steps),
            sink: args.sink.or(file.sink).unwrap_or(if output {
                Sink::Immediate
            } else {
                Sink::Queue
            }),
        };
        if settings.trials == 0 {
            bail!("--trials must be at least 1");
        }
        if settings.threads == Some(0) {
            bail!("--threads must be at least 1 (omit it to use every core)");
        }
        if settings.delay == 0 {
            bail!("--delay must be at least 1 (1: no initial delays)");
        }
        if settings.priority_range == Some(0) {
            bail!("--priority-range must be at least 1");
        }
        Ok(settings)
    }

    /// The engine's configuration, for a network of `processors`.
    fn packet_config(&self, processors: u32, record_latencies: bool) -> Result<PacketConfig> {
        let config = PacketConfig {
            queueing: match self.queueing {
                QueueingArg::Input => Queueing::Input,
                QueueingArg::Output => Queueing::Output,
            },
            flow: match self.flow {
                Flow::Worm => FlowControl::Wormhole,
                Flow::Store => FlowControl::StoreAndForward,
                Flow::Split => FlowControl::Split,
            },
            path: match self.path {
                PathArg::Rp => PathPolicy::Random,
                PathArg::Gp => PathPolicy::Greedy,
                PathArg::Fp => PathPolicy::Fixed,
                PathArg::Dor => PathPolicy::DimensionOrder,
            },
            scan: match self.scan {
                Scan::Rr => ScanPolicy::RoundRobin,
                Scan::Fo => ScanPolicy::FixedOrder,
                Scan::Ff => ScanPolicy::FarthestFirst,
                Scan::Oldest => ScanPolicy::OldestFirst,
                Scan::Prio => ScanPolicy::RandomPriority {
                    range: self
                        .priority_range
                        .unwrap_or_else(|| default_priority_range(processors)),
                },
            },
            flits: self.flits,
            queue: self.queue,
            sink: match self.sink {
                Sink::Queue => SinkModel::Queue,
                Sink::Immediate => SinkModel::Immediate,
            },
            max_steps: self.max_steps,
            record_latencies,
            ..PacketConfig::default()
        };
        config.validate()?;
        Ok(config)
    }
}

/// Figure 2's `R = log₂ N`, rounded up, at least 1.
fn default_priority_range(processors: u32) -> u32 {
    processors.max(2).next_power_of_two().ilog2()
}

/// One trial: its seed and report.
#[derive(Debug)]
struct Trial {
    seed: u64,
    report: PacketReport,
}

#[derive(Debug, Serialize)]
struct TrialOutput {
    trial: u64,
    seed: u64,
    /// `delivered`, `deadlock` or `step-limit`.
    outcome: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    deadlock_step: Option<u64>,
    messages: u64,
    delivered: u64,
    latency: u64,
    mean_latency: f64,
    congestion: u32,
    dilation: u32,
    steps: u64,
    unit_hops: u64,
    mean_queued: f64,
    max_queue: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    latencies: Option<Vec<u64>>,
}

#[derive(Debug, Serialize)]
struct Output {
    topology: String,
    traffic: String,
    traffic_per_trial: bool,
    queueing: &'static str,
    flow: &'static str,
    path: &'static str,
    scan: &'static str,
    priority_range: Option<u32>,
    flits: u32,
    /// A number, or `"unbounded"`.
    queue: serde_json::Value,
    sink: &'static str,
    delay: u32,
    delay_unit: u64,
    max_steps: u64,
    seed: u64,
    trials: u64,
    processors: u32,
    messages: u64,
    finished: u64,
    deadlocked: u64,
    step_limited: u64,
    confidence: f64,
    latency_mean: Option<f64>,
    latency_ci: Option<f64>,
    latency_sd: Option<f64>,
    latency_min: Option<u64>,
    latency_max: Option<u64>,
    mean_latency_mean: Option<f64>,
    mean_latency_ci: Option<f64>,
    congestion_mean: Option<f64>,
    congestion_ci: Option<f64>,
    congestion_max: Option<u32>,
    dilation_max: Option<u32>,
    max_queue: Option<u32>,
    mean_queued_mean: Option<f64>,
    steps: u64,
    unit_hops: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    per_trial: Option<Vec<TrialOutput>>,
}

/// Mean and 99% half-width of `samples`.
fn mean_ci(samples: impl Iterator<Item = f64>) -> (Summary, Option<f64>) {
    let samples: Vec<f64> = samples.collect();
    let s = Summary::of(&samples);
    (s, s.ci99_half_width())
}

/// Runs `fatnet simulate`.
pub fn run(args: SimulateArgs, out: &mut impl Write) -> Result<()> {
    if let Some(dynamic) = args.dynamic()? {
        return crate::dynamic_cmd::run(&dynamic, out);
    }
    let file = match &args.config {
        Some(path) => read_config(path)?,
        None => FileConfig::default(),
    };
    let mut settings = Settings::merge(&args, file)?;
    let (spec, topo) = topology(&settings.topology)?;
    settings.topology = spec.to_string();
    let processors = topo.num_processors();
    let config = settings.packet_config(processors, args.latencies)?;
    let net = PacketNet::new(topo).with_context(|| format!("cannot simulate on `{spec}`"))?;
    if let Some(sources) = broadcast_sources(&settings.traffic, processors)? {
        let trees = sources
            .iter()
            .map(|&src| {
                let dsts: Vec<u32> = (0..processors).filter(|&p| p != src).collect();
                MulticastTree::shortest_paths(&net, src, &dsts)
            })
            .collect::<Result<Vec<_>, _>>()
            .with_context(|| format!("cannot broadcast on `{spec}`"))?;
        let trials = run_trials(&settings, |seed| {
            Ok(multicast_trial(
                &net,
                &trees,
                settings.delay,
                &config,
                derive_seed(seed, 1),
            )?)
        })?;
        let o = summarize(
            &settings,
            (settings.traffic.clone(), false),
            &config,
            &net,
            &trials,
            args.per_trial || args.latencies,
        );
        return finish(out, &o, &settings, &config, args.json);
    }
    let traffic = traffic_spec(&settings.traffic)?;
    let make_traffic = |seed: u64| {
        traffic
            .generate(processors, seed)
            .with_context(|| format!("cannot make traffic `{traffic}` on {processors} processors"))
    };
    // A fixed pattern is made once; a randomized one is drawn per trial, and drawn for trial 0
    // here too, so that a pattern that does not suit the network fails before any trial runs.
    let per_trial_traffic = traffic.is_randomized();
    let fixed = if per_trial_traffic {
        make_traffic(derive_seed(settings.seed, 0))?;
        None
    } else {
        Some(make_traffic(settings.seed)?)
    };

    let trials = run_trials(&settings, |seed| {
        let drawn;
        let messages = match &fixed {
            Some(m) => m,
            None => {
                drawn = make_traffic(seed)?;
                &drawn
            }
        };
        Ok(batch_trial(
            &net,
            messages,
            settings.delay,
            &config,
            derive_seed(seed, 1),
        )?)
    })?;
    let o = summarize(
        &settings,
        (traffic.to_string(), traffic.is_randomized()),
        &config,
        &net,
        &trials,
        args.per_trial || args.latencies,
    );
    finish(out, &o, &settings, &config, args.json)
}

/// Runs the trials in parallel with a progress bar; `trial(s_i)` runs trial `i` (its delays
/// and routing choices seeded from `derive_seed(s_i, 1)` by the callee).
fn run_trials(
    settings: &Settings,
    trial: impl Fn(u64) -> Result<PacketReport> + Sync,
) -> Result<Vec<Trial>> {
    let bar = crate::trial_progress_bar(settings.trials);
    let runner = RunnerConfig {
        threads: settings.threads,
    };
    let trials: Vec<Trial> = try_run_trials_with(
        &runner,
        settings.seed,
        settings.trials,
        |i, seed| -> Result<Trial> {
            let report = trial(seed).with_context(|| format!("trial {i} (seed {seed})"))?;
            Ok(Trial { seed, report })
        },
        // Calls may arrive slightly out of order: never move the bar back.
        &|done| bar.set_position(bar.position().max(done)),
    )?;
    bar.finish_and_clear();
    Ok(trials)
}

/// Prints the summary (text or JSON) and the warning about unfinished trials.
fn finish(
    out: &mut impl Write,
    o: &Output,
    settings: &Settings,
    config: &PacketConfig,
    json: bool,
) -> Result<()> {
    if o.finished < o.trials {
        eprintln!("warning: {}", unfinished_note(o, settings.max_steps));
    }
    if json {
        serde_json::to_writer_pretty(&mut *out, o)?;
        writeln!(out)?;
    } else {
        print_text(out, o, config.flow)?;
    }
    Ok(())
}

/// The sources of `--traffic broadcast` (every processor) or `broadcast:src=K`, or `None`
/// for any other traffic spec.
fn broadcast_sources(spec: &str, processors: u32) -> Result<Option<Vec<u32>>> {
    let rest = match spec.strip_prefix("broadcast") {
        Some(rest) => rest,
        None => return Ok(None),
    };
    if processors < 2 {
        bail!("a broadcast needs at least 2 processors; the network has {processors}");
    }
    if rest.is_empty() {
        return Ok(Some((0..processors).collect()));
    }
    let Some(value) = rest.strip_prefix(":src=") else {
        bail!("invalid traffic spec `{spec}`: expected `broadcast` or `broadcast:src=K`");
    };
    let src: u32 = value.parse().with_context(|| {
        format!("invalid traffic spec `{spec}`: src must be a processor number")
    })?;
    if src >= processors {
        bail!(
            "invalid traffic spec `{spec}`: processor {src} does not exist (the network has {processors}, 0..{})",
            processors - 1
        );
    }
    Ok(Some(vec![src]))
}

/// The one-line description of the trials that did not finish.
fn unfinished_note(o: &Output, max_steps: u64) -> String {
    let mut parts = Vec::new();
    if o.deadlocked > 0 {
        parts.push(format!("{} deadlocked", o.deadlocked));
    }
    if o.step_limited > 0 {
        parts.push(format!(
            "{} stopped at --max-steps {max_steps}",
            o.step_limited
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

/// The output of a run: `settings.topology` in canonical form, `trials` in trial order.
fn summarize(
    settings: &Settings,
    (traffic, traffic_per_trial): (String, bool),
    config: &PacketConfig,
    net: &PacketNet,
    trials: &[Trial],
    per_trial: bool,
) -> Output {
    let processors = net.processors();
    let done: Vec<&PacketReport> = trials
        .iter()
        .map(|t| &t.report)
        .filter(|r| r.finished())
        .collect();
    let count =
        |f: fn(&Outcome) -> bool| trials.iter().filter(|t| f(&t.report.outcome)).count() as u64;
    let (latency, latency_ci) = mean_ci(done.iter().map(|r| r.latency as f64));
    let (mean_latency, mean_latency_ci) = mean_ci(done.iter().map(|r| r.mean_latency));
    let (congestion, congestion_ci) = mean_ci(done.iter().map(|r| f64::from(r.congestion)));
    let (mean_queued, _) = mean_ci(done.iter().map(|r| r.mean_queued));
    let per_trial = per_trial.then(|| {
        trials
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let r = &t.report;
                let (outcome, deadlock_step) = match r.outcome {
                    Outcome::Delivered => ("delivered", None),
                    Outcome::Deadlock { step } => ("deadlock", Some(step)),
                    Outcome::StepLimit => ("step-limit", None),
                };
                TrialOutput {
                    trial: i as u64,
                    seed: t.seed,
                    outcome,
                    deadlock_step,
                    messages: r.messages,
                    delivered: r.delivered,
                    latency: r.latency,
                    mean_latency: r.mean_latency,
                    congestion: r.congestion,
                    dilation: r.dilation,
                    steps: r.steps,
                    unit_hops: r.unit_hops,
                    mean_queued: r.mean_queued,
                    max_queue: r.max_queue,
                    latencies: r.latencies.clone(),
                }
            })
            .collect()
    });
    Output {
        topology: settings.topology.clone(),
        traffic,
        traffic_per_trial,
        queueing: match config.queueing {
            Queueing::Input => "input",
            Queueing::Output => "output",
        },
        flow: config.flow.name(),
        path: config.path.name(),
        scan: config.scan.name(),
        priority_range: match config.scan {
            ScanPolicy::RandomPriority { range } => Some(range),
            _ => None,
        },
        flits: config.flits,
        queue: match config.queue {
            QueueCapacity::Bounded(q) => q.into(),
            QueueCapacity::Unbounded => "unbounded".into(),
        },
        sink: match settings.sink {
            Sink::Queue => "queue",
            Sink::Immediate => "immediate",
        },
        delay: settings.delay,
        delay_unit: delay_unit(config, processors) * config.step_length(),
        max_steps: settings.max_steps,
        seed: settings.seed,
        trials: settings.trials,
        processors,
        messages: trials[0].report.messages,
        finished: done.len() as u64,
        deadlocked: count(|o| matches!(o, Outcome::Deadlock { .. })),
        step_limited: count(|o| *o == Outcome::StepLimit),
        confidence: CONFIDENCE,
        latency_mean: latency.mean,
        latency_ci,
        latency_sd: latency.std_dev,
        latency_min: done.iter().map(|r| r.latency).min(),
        latency_max: done.iter().map(|r| r.latency).max(),
        mean_latency_mean: mean_latency.mean,
        mean_latency_ci,
        congestion_mean: congestion.mean,
        congestion_ci,
        congestion_max: done.iter().map(|r| r.congestion).max(),
        dilation_max: done.iter().map(|r| r.dilation).max(),
        max_queue: done.iter().map(|r| r.max_queue).max(),
        mean_queued_mean: mean_queued.mean,
        steps: trials.iter().map(|t| t.report.steps).sum(),
        unit_hops: trials.iter().map(|t| t.report.unit_hops).sum(),
        per_trial,
    }
}

fn print_text(out: &mut impl Write, o: &Output, flow: FlowControl) -> Result<()> {
    let num = |x: Option<f64>| x.map_or("—".to_string(), |v| format!("{v:.2}"));
    let int = |x: Option<u64>| x.map_or("—".to_string(), |v| v.to_string());
    let pm = |x: Option<f64>| x.map_or(String::new(), |v| format!(" ± {v:.2} (99% CI)"));
    let unit = if flow == FlowControl::StoreAndForward {
        "packet"
    } else {
        "flit"
    };
    let queue = match &o.queue {
        serde_json::Value::String(s) => s.clone(),
        q if *q == 1 => format!("1 {unit}"),
        q => format!("{q} {unit}s"),
    };
    let scan = match o.priority_range {
        Some(r) => format!("{}(R = {r})", o.scan.to_uppercase()),
        None => o.scan.to_uppercase(),
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
        o.flow.to_uppercase(),
        o.path.to_uppercase(),
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
            writeln!(
                out,
                "{:>6} {:>20} {:>10} {:>9} {:>12.2} {:>10} {:>10}",
                t.trial, t.seed, t.outcome, t.latency, t.mean_latency, t.congestion, t.steps
            )?;
        }
        for t in trials {
            if let Some(l) = &t.latencies {
                writeln!(out, "latencies of trial {}: {l:?}", t.trial)?;
            }
        }
    }
    Ok(())
}
