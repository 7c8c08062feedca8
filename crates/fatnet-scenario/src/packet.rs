//! Packet scenarios: Greenberg and Oh's static batches (and broadcasts) on the synchronous
//! packet engine, as `fatnet simulate`, a `simulator = "packet"` sweep and the Greenberg–Oh
//! tables run them.
//!
//! [`PacketOptions`] are the options as users give them (every one optional);
//! [`PacketOptions::resolve`] is the one place that knows their defaults and refusals;
//! [`PacketScenario::prepare`] builds the network and the traffic once;
//! [`PreparedPacket::trial`] runs one trial from its seed; [`PreparedPacket::run`] runs many
//! in parallel; [`PacketSummary`] is the report of `fatnet simulate`.
//!
//! # Seeds
//!
//! Trial `i` of a run with master seed `s` gets the seed `s_i = derive_seed(s, i)`. A
//! randomized pattern (permutation, uniform, replicated, valiant, bitflip) is drawn afresh for
//! each trial from `s_i` (the set `fatnet traffic --seed s_i` writes); a fixed pattern is made
//! once, from `s`. The trial's delays and routing choices come from `derive_seed(s_i, 1)`.

use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

use fatnet_online::packet::{
    FlowControl, MulticastTree, Outcome, PacketConfig, PacketNet, PacketReport, PathPolicy,
    QueueCapacity, Queueing, RouteSource, ScanOrder, ScanPolicy, SinkModel, batch_injections,
    batch_trial, delay_unit, multicast_trial, simulate,
};
use fatnet_traffic::{MessageSet, TrafficSpec};
use serde::{Deserialize, Serialize};

use crate::runner::{RunnerConfig, Summary, check_trial_budget, try_run_trials_with};
use crate::{Network, Parameter, RunOptions, ScenarioError, derive_seed};

/// The confidence level of a [`PacketSummary`]'s intervals: Greenberg and Oh's (Figure 2).
pub const CONFIDENCE: f64 = 0.99;

/// The options of a packet simulation as users give them, every one optional: on the command
/// line (`fatnet simulate` flattens this struct), in a config file or a sweep's `[params]`
/// (the same keys). [`resolve`](Self::resolve) applies the defaults.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
#[serde(deny_unknown_fields)]
pub struct PacketOptions {
    /// Where queues sit: `input` (Greenberg and Oh) or `output` (Stamoulis; see OUTPUT QUEUES)
    /// [default: input].
    #[cfg_attr(feature = "clap", arg(long, value_enum))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queueing: Option<Queueing>,
    /// Flow control [default: worm; store with output queueing].
    #[cfg_attr(feature = "clap", arg(long, value_enum))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flow: Option<FlowControl>,
    /// Path selection among shortest paths [default: rp].
    #[cfg_attr(feature = "clap", arg(long, value_enum))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<PathPolicy>,
    /// Order in which a node scans its inputs each step [default: rr].
    #[cfg_attr(feature = "clap", arg(long, value_enum))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scan: Option<ScanOrder>,
    /// R of the prio scan: priorities are drawn from 1..=R [default: ceil(log2 N), Figure 2's
    /// R]. Only with scan prio.
    #[cfg_attr(feature = "clap", arg(long, value_name = "R"))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority_range: Option<u32>,
    /// L: flits per packet, 1 to 65535 [default: 32, Table I].
    #[cfg_attr(feature = "clap", arg(long, value_name = "L"))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flits: Option<u32>,
    /// Capacity of every link queue: q >= 1 units (flits for worm and split, packets for
    /// store), or `unbounded` [default: 2 for worm and split, 1 for store, Table I; unbounded
    /// with output queueing].
    #[cfg_attr(feature = "clap", arg(long, value_name = "q|unbounded"))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue: Option<QueueCapacity>,
    /// What a terminal does with arriving units [default: queue; immediate with output
    /// queueing].
    #[cfg_attr(feature = "clap", arg(long, value_enum))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sink: Option<SinkModel>,
    /// R: initial random delays, x uniform in 0..R units (see MODEL); 1 releases everything
    /// at step 0 [default: 1].
    #[cfg_attr(feature = "clap", arg(long, value_name = "R"))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delay: Option<u32>,
    /// Stop a trial after this many engine steps (packet-steps for store); it is then
    /// reported as step-limited, not finished [default: 100000000].
    #[cfg_attr(feature = "clap", arg(long, value_name = "M"))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_steps: Option<u64>,
}

/// Resolved packet options: the engine's configuration and the delays.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct PacketSetup {
    /// The engine's configuration.
    pub config: PacketConfig,
    /// `R`: initial delays drawn from `0..R` units of [`delay_unit`].
    pub delay: u32,
}

impl PacketOptions {
    /// Every option given, as its [`Parameter`].
    pub fn given(&self) -> Vec<Parameter> {
        [
            (Parameter::Queueing, self.queueing.is_some()),
            (Parameter::Flow, self.flow.is_some()),
            (Parameter::Path, self.path.is_some()),
            (Parameter::Scan, self.scan.is_some()),
            (Parameter::PriorityRange, self.priority_range.is_some()),
            (Parameter::Flits, self.flits.is_some()),
            (Parameter::Queue, self.queue.is_some()),
            (Parameter::Sink, self.sink.is_some()),
            (Parameter::Delay, self.delay.is_some()),
            (Parameter::MaxSteps, self.max_steps.is_some()),
        ]
        .into_iter()
        .filter_map(|(p, given)| given.then_some(p))
        .collect()
    }

    /// `self`, with the options it does not give taken from `fallback` (command-line flags
    /// over a config file).
    pub fn or(self, fallback: PacketOptions) -> PacketOptions {
        PacketOptions {
            queueing: self.queueing.or(fallback.queueing),
            flow: self.flow.or(fallback.flow),
            path: self.path.or(fallback.path),
            scan: self.scan.or(fallback.scan),
            priority_range: self.priority_range.or(fallback.priority_range),
            flits: self.flits.or(fallback.flits),
            queue: self.queue.or(fallback.queue),
            sink: self.sink.or(fallback.sink),
            delay: self.delay.or(fallback.delay),
            max_steps: self.max_steps.or(fallback.max_steps),
        }
    }

    /// The engine's configuration on a network of `processors` whose routes come from
    /// `routes`, with every default applied:
    ///
    /// | option | default |
    /// |---|---|
    /// | queueing | input |
    /// | flow | worm; store with output queueing |
    /// | path | rp; std on a fabric ([`RouteSource::TopologyPaths`]) |
    /// | scan | rr; prio's range `⌈log₂ N⌉` (Figure 2's `R`) |
    /// | flits | 32 (Table I) |
    /// | queue | 2 flits for worm and split, 1 packet for store (Table I); unbounded with output queueing |
    /// | sink | queue; immediate with output queueing |
    /// | delay | 1 (no initial delays) |
    /// | max_steps | 100,000,000 |
    ///
    /// # Errors
    ///
    /// [`ScenarioError::Requires`] for a priority range without the prio scan;
    /// [`ScenarioError::OutOfRange`] for a delay or priority range of 0, and for a path
    /// policy other than std on a fabric (its forwarding tables give one route per pair, so
    /// a policy that would choose is refused rather than reported as if it had);
    /// [`ScenarioError::Options`] for what the engine refuses
    /// ([`PacketConfig::validate`]: flits outside 1..=65535, output queueing with other than
    /// store-and-forward, unbounded queues and immediate sinks, ...).
    pub fn resolve(
        &self,
        processors: u32,
        routes: RouteSource,
    ) -> Result<PacketSetup, ScenarioError> {
        let output = self.queueing == Some(Queueing::Output);
        let flow = self.flow.unwrap_or(if output {
            FlowControl::StoreAndForward
        } else {
            FlowControl::Wormhole
        });
        let scan = self.scan.unwrap_or(ScanOrder::RoundRobin);
        if self.priority_range.is_some() && scan != ScanOrder::RandomPriority {
            return Err(ScenarioError::Requires {
                param: Parameter::PriorityRange,
                other: Parameter::Scan,
                value: ScanOrder::RandomPriority.name(),
            });
        }
        if self.priority_range == Some(0) {
            return Err(ScenarioError::OutOfRange {
                param: Parameter::PriorityRange,
                value: "0".into(),
                expected: "at least 1",
            });
        }
        let delay = self.delay.unwrap_or(1);
        if delay == 0 {
            return Err(ScenarioError::OutOfRange {
                param: Parameter::Delay,
                value: "0".into(),
                expected: "at least 1 (1: no initial delays)",
            });
        }
        let path = match (routes, self.path) {
            (RouteSource::ShortestPaths, path) => path.unwrap_or(PathPolicy::Random),
            (RouteSource::TopologyPaths, None | Some(PathPolicy::Standard)) => PathPolicy::Standard,
            (RouteSource::TopologyPaths, Some(other)) => {
                return Err(ScenarioError::OutOfRange {
                    param: Parameter::Path,
                    value: other.to_string(),
                    expected: "std on a fabric (its forwarding tables choose every route)",
                });
            }
        };
        let range = self
            .priority_range
            .unwrap_or_else(|| processors.max(2).next_power_of_two().ilog2());
        let default = PacketConfig::default();
        let config = PacketConfig {
            queueing: self.queueing.unwrap_or(Queueing::Input),
            flow,
            path,
            scan: ScanPolicy::new(scan, range),
            flits: self.flits.unwrap_or(32),
            queue: self.queue.unwrap_or(match flow {
                _ if output => QueueCapacity::Unbounded,
                FlowControl::StoreAndForward => QueueCapacity::Bounded(1),
                FlowControl::Wormhole | FlowControl::Split => QueueCapacity::Bounded(2),
            }),
            sink: self.sink.unwrap_or(if output {
                SinkModel::Immediate
            } else {
                SinkModel::Queue
            }),
            max_steps: self.max_steps.unwrap_or(default.max_steps),
            ..default
        };
        config
            .validate()
            .map_err(|source| ScenarioError::Options { source })?;
        Ok(PacketSetup { config, delay })
    }
}

/// A packet scenario: a network, traffic and the simulator's options.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PacketScenario {
    /// The network: a spec string, or a fabric's files, in files.
    pub topology: Network,
    /// The traffic: a pattern, a file, or a broadcast (its spec string in files).
    #[serde(with = "as_text")]
    pub traffic: TrafficSpec,
    /// The options.
    #[serde(flatten)]
    pub options: PacketOptions,
}

/// Serde through `Display` and `FromStr`: specs are strings in files.
pub(crate) mod as_text {
    use super::*;

    pub fn serialize<T: fmt::Display, S: serde::Serializer>(
        value: &T,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        s.collect_str(value)
    }

    pub fn deserialize<'de, T, D>(d: D) -> Result<T, D::Error>
    where
        T: FromStr,
        T::Err: fmt::Display,
        D: serde::Deserializer<'de>,
    {
        let text = String::deserialize(d)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// Where a prepared scenario's messages come from.
#[derive(Debug)]
enum Source {
    /// A fixed pattern, made once.
    Fixed(MessageSet),
    /// A randomized pattern, drawn per trial from the trial's seed.
    PerTrial(TrafficSpec),
    /// One multicast per source, along shortest-path trees.
    Broadcast(Vec<MulticastTree>),
}

/// A scenario ready to run trials: network built, options resolved, traffic checked.
#[derive(Debug)]
pub struct PreparedPacket {
    topology: Network,
    traffic: TrafficSpec,
    net: Arc<PacketNet>,
    setup: PacketSetup,
    source: Source,
}

impl PacketScenario {
    /// Builds the network, resolves the options and makes the traffic: a fixed pattern from
    /// `seed` (the run's master seed), a broadcast's trees, or, for a randomized pattern, the
    /// pattern of trial 0 (drawn and dropped), so that traffic that does not suit the network
    /// fails before any trial runs.
    ///
    /// # Errors
    ///
    /// [`ScenarioError::Topology`] and [`ScenarioError::Fabric`] (the network cannot be built or
    /// read), [`ScenarioError::Traffic`] and [`ScenarioError::Packet`]
    /// (the engine refuses the network or a broadcast tree), and those of
    /// [`PacketOptions::resolve`].
    pub fn prepare(&self, seed: u64) -> Result<PreparedPacket, ScenarioError> {
        let net = self.topology.packet_net()?;
        self.prepare_on(Arc::new(net), seed)
    }

    /// As [`prepare`](Self::prepare), on `net`, a network already built from
    /// [`topology`](Self::topology) (a sweep shares one among the points of a topology).
    ///
    /// # Errors
    ///
    /// As [`prepare`](Self::prepare).
    pub fn prepare_on(
        &self,
        net: Arc<PacketNet>,
        seed: u64,
    ) -> Result<PreparedPacket, ScenarioError> {
        let spec = &self.topology;
        let processors = net.processors();
        let packet = |source| ScenarioError::Packet {
            topology: spec.to_string(),
            source,
        };
        let setup = self.options.resolve(processors, net.routes())?;
        let traffic_error = |source| ScenarioError::Traffic {
            spec: self.traffic.to_string(),
            processors,
            source,
        };
        let source = if let Some(sources) = self
            .traffic
            .broadcast_sources(processors)
            .map_err(traffic_error)?
        {
            let trees = sources
                .iter()
                .map(|&src| {
                    let dsts: Vec<u32> = (0..processors).filter(|&p| p != src).collect();
                    MulticastTree::shortest_paths(&net, src, &dsts)
                })
                .collect::<Result<Vec<_>, _>>()
                .map_err(packet)?;
            Source::Broadcast(trees)
        } else if self.traffic.is_randomized() {
            self.traffic
                .generate(processors, derive_seed(seed, 0))
                .map_err(traffic_error)?;
            Source::PerTrial(self.traffic.clone())
        } else {
            Source::Fixed(
                self.traffic
                    .generate(processors, seed)
                    .map_err(traffic_error)?,
            )
        };
        Ok(PreparedPacket {
            topology: spec.clone(),
            traffic: self.traffic.clone(),
            net,
            setup,
            source,
        })
    }
}

/// One trial of a run: its index, seed and report.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PacketTrial {
    /// The trial's index.
    pub trial: u64,
    /// Its seed, `derive_seed(master seed, trial)`.
    pub seed: u64,
    /// What the engine reported.
    #[serde(flatten)]
    pub report: PacketReport,
}

impl PreparedPacket {
    /// The same scenario, keeping every message's latency in each trial's report
    /// ([`PacketConfig::record_latencies`]; `fatnet simulate --latencies`).
    pub fn recording_latencies(mut self) -> Self {
        self.setup.config.record_latencies = true;
        self
    }

    /// The network.
    pub fn net(&self) -> &PacketNet {
        &self.net
    }

    /// The resolved options.
    pub fn setup(&self) -> &PacketSetup {
        &self.setup
    }

    /// The network.
    pub fn topology(&self) -> &Network {
        &self.topology
    }

    /// The traffic spec.
    pub fn traffic(&self) -> &TrafficSpec {
        &self.traffic
    }

    /// Whether each trial draws its own instance of the pattern.
    pub fn traffic_per_trial(&self) -> bool {
        matches!(self.source, Source::PerTrial(_))
    }

    /// One trial with the trial seed `seed` (see the [module documentation](self)).
    ///
    /// # Errors
    ///
    /// [`ScenarioError::Traffic`] if the pattern cannot be drawn, [`ScenarioError::Packet`]
    /// if the engine fails.
    pub fn trial(&self, seed: u64) -> Result<PacketReport, ScenarioError> {
        let sim_seed = derive_seed(seed, 1);
        let (config, delay) = (&self.setup.config, self.setup.delay);
        let report = match &self.source {
            Source::Fixed(messages) => batch_trial(&self.net, messages, delay, config, sim_seed),
            Source::PerTrial(spec) => {
                let processors = self.net.processors();
                // The trial's messages are dropped before its run (`batch_injections`).
                let batch = {
                    let messages = spec.generate(processors, seed).map_err(|source| {
                        ScenarioError::Traffic {
                            spec: spec.to_string(),
                            processors,
                            source,
                        }
                    })?;
                    batch_injections(&self.net, &messages, delay, config, sim_seed)
                };
                batch.and_then(|(injections, run_seed)| {
                    simulate(&self.net, &injections, config, run_seed)
                })
            }
            Source::Broadcast(trees) => multicast_trial(&self.net, trees, delay, config, sim_seed),
        };
        report.map_err(|source| ScenarioError::Packet {
            topology: self.topology.to_string(),
            source,
        })
    }

    /// Trials `0..trials` of a run with master seed `seed`, in parallel (`runner`), in trial
    /// order; `progress` is called with the number of trials done (not necessarily in
    /// increasing order). Results do not depend on the thread count.
    ///
    /// # Errors
    ///
    /// [`ScenarioError::Refused`] before any trial runs if the trials' records would exceed
    /// [`TRIAL_BUDGET_BYTES`](crate::runner::TRIAL_BUDGET_BYTES)
    /// ([`check_trial_budget`]) and [`ScenarioError::OutOfRange`] for a thread count
    /// [`RunnerConfig::check`] refuses; the error of the failing trial with the lowest index, as
    /// [`ScenarioError::Trial`].
    pub fn run(
        &self,
        seed: u64,
        trials: u64,
        runner: &RunnerConfig,
        progress: &(dyn Fn(u64) + Sync),
    ) -> Result<Vec<PacketTrial>, ScenarioError> {
        // The summary's per-trial copies (a reference and one sample at a time), and the
        // latencies a recording run keeps when the message count is known up front.
        let latencies = match &self.source {
            Source::Fixed(messages) if self.setup.config.record_latencies => {
                8 * messages.len() as u64
            }
            _ => 0,
        };
        check_trial_budget::<PacketTrial, ScenarioError>(trials, 16 + latencies)?;
        try_run_trials_with(
            runner,
            seed,
            trials,
            |trial, seed| {
                let report = self.trial(seed).map_err(|e| ScenarioError::Trial {
                    trial,
                    seed,
                    source: Box::new(e),
                })?;
                Ok(PacketTrial {
                    trial,
                    seed,
                    report,
                })
            },
            progress,
        )?
    }
}

/// The report of a packet run (`fatnet simulate --json`): the effective configuration, then
/// statistics over the finished trials (99% Student-t half-widths; `None` where a run cannot
/// define them).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PacketSummary {
    /// The network: the topology spec, canonical, or the fabric's files.
    pub topology: Network,
    /// The traffic, canonical.
    pub traffic: String,
    /// Whether each trial drew its own instance.
    pub traffic_per_trial: bool,
    /// Where queues sit.
    pub queueing: Queueing,
    /// Flow control.
    pub flow: FlowControl,
    /// Path selection.
    pub path: PathPolicy,
    /// Input scan.
    pub scan: ScanOrder,
    /// The priority range of the prio scan.
    pub priority_range: Option<u32>,
    /// Flits per packet.
    pub flits: u32,
    /// Link queue capacity.
    pub queue: QueueCapacity,
    /// Sink model.
    pub sink: SinkModel,
    /// `R` of the initial delays.
    pub delay: u32,
    /// The delay unit, in flit-steps.
    pub delay_unit: u64,
    /// The step limit.
    pub max_steps: u64,
    /// The master seed.
    pub seed: u64,
    /// Trials run.
    pub trials: u64,
    /// Processors of the network.
    pub processors: u32,
    /// Messages per trial.
    pub messages: u64,
    /// Trials that delivered every message.
    pub finished: u64,
    /// Trials that deadlocked.
    pub deadlocked: u64,
    /// Trials stopped at the step limit.
    pub step_limited: u64,
    /// The confidence level of the intervals ([`CONFIDENCE`]).
    pub confidence: f64,
    /// Mean of the trials' maximum latency (flit-steps).
    pub latency_mean: Option<f64>,
    /// Its half-width.
    pub latency_ci: Option<f64>,
    /// Its standard deviation.
    pub latency_sd: Option<f64>,
    /// The smallest maximum latency.
    pub latency_min: Option<u64>,
    /// The largest maximum latency.
    pub latency_max: Option<u64>,
    /// Mean of the trials' mean latency.
    pub mean_latency_mean: Option<f64>,
    /// Its half-width.
    pub mean_latency_ci: Option<f64>,
    /// Mean realized congestion.
    pub congestion_mean: Option<f64>,
    /// Its half-width.
    pub congestion_ci: Option<f64>,
    /// The largest realized congestion.
    pub congestion_max: Option<u32>,
    /// The longest path a unit took.
    pub dilation_max: Option<u32>,
    /// The largest queue.
    pub max_queue: Option<u32>,
    /// Mean of the time-average number of queued units.
    pub mean_queued_mean: Option<f64>,
    /// Engine steps, all trials.
    pub steps: u64,
    /// Unit-link crossings, all trials.
    pub unit_hops: u64,
    /// Every trial, with `--per-trial`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub per_trial: Option<Vec<PacketTrial>>,
}

impl PacketSummary {
    /// The summary of `trials` (in trial order, at least one) of `prepared` with master seed
    /// `seed`; `per_trial` keeps every trial's record.
    pub fn of(
        prepared: &PreparedPacket,
        seed: u64,
        trials: Vec<PacketTrial>,
        per_trial: bool,
    ) -> PacketSummary {
        let config = &prepared.setup.config;
        let processors = prepared.net.processors();
        let done: Vec<&PacketReport> = trials
            .iter()
            .map(|t| &t.report)
            .filter(|r| r.finished())
            .collect();
        let count =
            |f: fn(&Outcome) -> bool| trials.iter().filter(|t| f(&t.report.outcome)).count() as u64;
        let mean_ci = |samples: Vec<f64>| {
            let s = Summary::of(&samples);
            (s, s.ci99_half_width())
        };
        let (latency, latency_ci) = mean_ci(done.iter().map(|r| r.latency as f64).collect());
        let (mean_latency, mean_latency_ci) =
            mean_ci(done.iter().map(|r| r.mean_latency).collect());
        let (congestion, congestion_ci) =
            mean_ci(done.iter().map(|r| f64::from(r.congestion)).collect());
        let (mean_queued, _) = mean_ci(done.iter().map(|r| r.mean_queued).collect());
        PacketSummary {
            topology: prepared.topology.clone(),
            traffic: prepared.traffic.to_string(),
            traffic_per_trial: prepared.traffic_per_trial(),
            queueing: config.queueing,
            flow: config.flow,
            path: config.path,
            scan: config.scan.order(),
            priority_range: match config.scan {
                ScanPolicy::RandomPriority { range } => Some(range),
                _ => None,
            },
            flits: config.flits,
            queue: config.queue,
            sink: config.sink,
            delay: prepared.setup.delay,
            delay_unit: delay_unit(config, processors) * config.step_length(),
            max_steps: config.max_steps,
            seed,
            trials: trials.len() as u64,
            processors,
            messages: trials.first().map_or(0, |t| t.report.messages),
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
            per_trial: per_trial.then_some(trials),
        }
    }
}

/// A packet run as a config file gives it (`fatnet simulate --config FILE.toml`): the
/// scenario's parts and the run's, every key optional, unknown keys refused.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PacketRunFile {
    /// The network.
    #[serde(default)]
    pub topology: Option<Network>,
    /// The traffic.
    #[serde(default, with = "opt_text")]
    pub traffic: Option<TrafficSpec>,
    /// The simulator's options.
    #[serde(flatten)]
    pub options: PacketOptions,
    /// Trials, seed and threads.
    #[serde(flatten)]
    pub run: RunOptions,
}

impl PacketRunFile {
    /// Reads a config file's text: unknown keys first (each with its line), then the values.
    ///
    /// # Errors
    ///
    /// [`ScenarioError::File`] with the line and column of the first problem.
    pub fn parse(text: &str) -> Result<PacketRunFile, ScenarioError> {
        let at = |offset: usize, message: String| {
            let before = &text[..offset.min(text.len())];
            ScenarioError::File {
                line: before.matches('\n').count() + 1,
                column: before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1,
                message,
            }
        };
        let one_line = |m: &str| m.split_whitespace().collect::<Vec<_>>().join(" ");
        let root = toml::de::DeTable::parse(text)
            .map_err(|e| at(e.span().map_or(0, |s| s.start), one_line(e.message())))?;
        for (key, value) in root.get_ref() {
            if let Err(message) = Parameter::from_key(key.get_ref()) {
                return Err(at(key.span().start, message));
            }
            // Each entry alone, so that a bad value is reported at its own line (a flattened
            // struct's errors carry no position).
            let entry = &text[key.span().start..value.span().end.min(text.len())];
            if let Err(e) = toml::from_str::<PacketRunFile>(entry) {
                return Err(at(key.span().start, one_line(e.message())));
            }
        }
        toml::from_str(text).map_err(|e| at(e.span().map_or(0, |s| s.start), one_line(e.message())))
    }
}

/// [`as_text`] for optional values.
pub(crate) mod opt_text {
    use super::*;

    pub fn deserialize<'de, T, D>(d: D) -> Result<Option<T>, D::Error>
    where
        T: FromStr,
        T::Err: fmt::Display,
        D: serde::Deserializer<'de>,
    {
        let text = Option::<String>::deserialize(d)?;
        text.map(|t| t.parse().map_err(serde::de::Error::custom))
            .transpose()
    }
}
