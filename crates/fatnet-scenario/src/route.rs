//! Route scenarios: Greenberg and Leiserson's on-line routers in the delivery-cycle model on a
//! binary fat-tree, as `fatnet route` and a `simulator = "route"` sweep run them.
//!
//! [`RouteOptions`] are the options as users give them; [`RouteOptions::resolve`] holds every
//! default and refusal; [`RouteScenario::prepare`] builds the tree and checks the traffic;
//! [`PreparedRoute::trial`] routes one instance from its seed; [`RouteSummary`] is the report
//! of `fatnet route`.
//!
//! # Seeds
//!
//! As for packet scenarios: trial `i` of a run with master seed `s` gets `s_i =
//! derive_seed(s, i)`; a randomized pattern is drawn afresh from `s_i`, a fixed one is made
//! once, from `s`; the router's own randomness comes from `derive_seed(s_i, 1)`.

use std::sync::Arc;

use fatnet_online::{
    DropPolicy, Greedy, Interleaved, RandomParams, RandomPreset, RandomPrime, RandomRouter, Router,
    RouterKind, RunConfig, Sink,
};
use fatnet_topology::{FatTree, TopologySpec};
use fatnet_traffic::TrafficSpec;
use serde::{Deserialize, Serialize};

use crate::packet::as_text;
use crate::pattern::Pattern;
use crate::runner::{RunnerConfig, Summary, check_trial_budget, try_run_trials_with};
use crate::schedule::fat_tree;
use crate::{Parameter, ScenarioError, derive_seed};

fn is_false(b: &bool) -> bool {
    !*b
}

/// The options of the delivery-cycle routers as users give them, every one optional: on the
/// command line (`fatnet route` flattens this struct) or in a sweep's `[params]` (the same
/// keys).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
#[serde(deny_unknown_fields)]
pub struct RouteOptions {
    /// The router [default: random].
    #[cfg_attr(feature = "clap", arg(long, value_enum))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub router: Option<RouterKind>,
    /// What a congested switch drops [default: random; wires for constant-switch].
    #[cfg_attr(feature = "clap", arg(long, value_enum))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub policy: Option<DropPolicy>,
    /// Interleave the router's cycles with single-message cycles (the expected-time variant).
    #[cfg_attr(feature = "clap", arg(long))]
    #[serde(default, skip_serializing_if = "is_false")]
    pub interleave: bool,
    /// RANDOM's constants [default: practical]. Only with router random.
    #[cfg_attr(feature = "clap", arg(long, value_enum))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preset: Option<RandomPreset>,
    /// Override RANDOM's k1 (cycles per unit of λ in an inner loop). Only with router random.
    #[cfg_attr(feature = "clap", arg(long))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub k1: Option<f64>,
    /// Override RANDOM's k2 (cycles per unit of lg n in an inner loop). Only with router
    /// random.
    #[cfg_attr(feature = "clap", arg(long))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub k2: Option<f64>,
    /// Override RANDOM's r (sending probability 1/(rλ)). Only with router random.
    #[cfg_attr(feature = "clap", arg(long))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub r: Option<f64>,
    /// `k` of the constant-switch router: (k+1)·lg n passes per value of z [default: 1]. Only
    /// with router constant-switch.
    #[cfg_attr(feature = "clap", arg(long))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub k: Option<u32>,
    /// Stop a trial after this many cycles (reported as unfinished) [default: 1000000].
    #[cfg_attr(feature = "clap", arg(long))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_cycles: Option<u64>,
    /// Route every message out of the tree through the root's external channel, ignoring its
    /// destination (the setting of Greenberg–Leiserson's Theorem 9).
    #[cfg_attr(feature = "clap", arg(long))]
    #[serde(default, skip_serializing_if = "is_false")]
    pub out_the_root: bool,
}

/// Resolved router options.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct RouteSetup {
    /// The router.
    pub router: RouterKind,
    /// The drop policy.
    pub policy: DropPolicy,
    /// Whether single-message cycles are interleaved.
    pub interleave: bool,
    /// RANDOM's constants.
    pub params: RandomParams,
    /// RANDOM′'s passes per value of z (`None`: RANDOM′'s own).
    pub repetitions: Option<u64>,
    /// The run's limits and sink.
    #[serde(skip)]
    pub config: RunConfig,
}

impl RouteOptions {
    /// The routers' setup on `tree`, with every default applied: router random, policy
    /// random (wires for constant-switch), RANDOM's practical constants, `k = 1`, 1,000,000
    /// cycles.
    ///
    /// # Errors
    ///
    /// [`ScenarioError::Requires`] for RANDOM's constants without RANDOM and `k` without
    /// constant-switch; [`ScenarioError::OutOfRange`] for constants that are not positive and
    /// finite, or `max_cycles` 0; [`ScenarioError::Refused`] for GREEDY under the pessimistic
    /// model without interleaving (it never finishes once a channel stays congested), and
    /// the proved constants on a tree whose congestion parameter has none.
    pub fn resolve(&self, tree: &FatTree) -> Result<RouteSetup, ScenarioError> {
        let router = self.router.unwrap_or(RouterKind::Random);
        let requires = |param, value: RouterKind| ScenarioError::Requires {
            param,
            other: Parameter::Router,
            value: value.name(),
        };
        if self.k.is_some() && router != RouterKind::ConstantSwitch {
            return Err(requires(Parameter::K, RouterKind::ConstantSwitch));
        }
        if router != RouterKind::Random {
            for (param, given) in [
                (Parameter::Preset, self.preset.is_some()),
                (Parameter::K1, self.k1.is_some()),
                (Parameter::K2, self.k2.is_some()),
                (Parameter::R, self.r.is_some()),
            ] {
                if given {
                    return Err(requires(param, RouterKind::Random));
                }
            }
        }
        let policy = self
            .policy
            .unwrap_or(if router == RouterKind::ConstantSwitch {
                DropPolicy::Wires
            } else {
                DropPolicy::Random
            });
        if router == RouterKind::Greedy && policy == DropPolicy::Pessimistic && !self.interleave {
            return Err(ScenarioError::Refused {
                param: Parameter::Policy,
                value: policy.to_string(),
                reason: "GREEDY under the pessimistic model never finishes once a channel stays \
                         congested (all its messages are lost every cycle): use policy random, \
                         fixed or round-robin, or interleave"
                    .into(),
            });
        }
        let mut params = match self.preset.unwrap_or(RandomPreset::Practical) {
            RandomPreset::Practical => RandomParams::default(),
            RandomPreset::Proved => {
                fatnet_queueing::greenberg_leiserson::congestion_parameter(tree.capacities())
                    .and_then(|r| RandomParams::proved(r, 1))
                    .map_err(|e| ScenarioError::Refused {
                        param: Parameter::Preset,
                        value: RandomPreset::Proved.to_string(),
                        reason: e.to_string(),
                    })?
            }
        };
        for (param, given, value) in [
            (Parameter::K1, self.k1, &mut params.k1),
            (Parameter::K2, self.k2, &mut params.k2),
            (Parameter::R, self.r, &mut params.r),
        ] {
            if let Some(x) = given {
                if !(x.is_finite() && x > 0.0) {
                    return Err(ScenarioError::OutOfRange {
                        param,
                        value: x.to_string(),
                        expected: "a positive number",
                    });
                }
                *value = x;
            }
        }
        let max_cycles = self.max_cycles.unwrap_or(1_000_000);
        if max_cycles == 0 {
            return Err(ScenarioError::OutOfRange {
                param: Parameter::MaxCycles,
                value: "0".into(),
                expected: "at least 1",
            });
        }
        Ok(RouteSetup {
            router,
            policy,
            interleave: self.interleave,
            params,
            repetitions: (router == RouterKind::ConstantSwitch)
                .then(|| (u64::from(self.k.unwrap_or(1)) + 1) * u64::from(tree.levels())),
            config: RunConfig {
                max_cycles,
                trace_load_factor: false,
                sink: if self.out_the_root {
                    Sink::External
                } else {
                    Sink::Processors
                },
            },
        })
    }
}

/// A route scenario: a binary fat-tree, traffic and the routers' options.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RouteScenario {
    /// The network (its spec string in files): a binary fat-tree.
    #[serde(with = "as_text")]
    pub topology: TopologySpec,
    /// The traffic (its spec string in files).
    #[serde(with = "as_text")]
    pub traffic: TrafficSpec,
    /// The options.
    #[serde(flatten)]
    pub options: RouteOptions,
}

/// A route scenario ready to run trials: tree built, options resolved, traffic checked.
#[derive(Debug)]
pub struct PreparedRoute {
    topology: TopologySpec,
    traffic: TrafficSpec,
    tree: Arc<FatTree>,
    setup: RouteSetup,
    pattern: Pattern,
}

impl RouteScenario {
    /// Builds the tree, resolves the options and makes the traffic (a fixed pattern from
    /// `seed`, or a randomized one's trial-0 instance, drawn and dropped).
    ///
    /// # Errors
    ///
    /// [`ScenarioError::Topology`], [`ScenarioError::WrongTopology`] (not a binary
    /// fat-tree), [`ScenarioError::Traffic`], and those of [`RouteOptions::resolve`].
    pub fn prepare(&self, seed: u64) -> Result<PreparedRoute, ScenarioError> {
        let tree = fat_tree(&self.topology, "the delivery-cycle engine")?;
        self.prepare_on(Arc::new(tree), seed)
    }

    /// As [`prepare`](Self::prepare), on `tree`, built from [`topology`](Self::topology).
    ///
    /// # Errors
    ///
    /// As [`prepare`](Self::prepare).
    pub fn prepare_on(
        &self,
        tree: Arc<FatTree>,
        seed: u64,
    ) -> Result<PreparedRoute, ScenarioError> {
        // Before any message is made: a size the load tables refuse costs nothing.
        fatnet_load::check_fat_tree_loads(&tree)?;
        let setup = self.options.resolve(&tree)?;
        let pattern = Pattern::new(&self.traffic, tree.n(), seed)?;
        Ok(PreparedRoute {
            topology: self.topology.clone(),
            traffic: self.traffic.clone(),
            tree,
            setup,
            pattern,
        })
    }
}

/// One trial: the delivery-cycle run's counts (a sweep task's `result`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RouteTrial {
    /// Messages.
    pub messages: u64,
    /// λ(M) of the trial's message set.
    pub load_factor: f64,
    /// `⌈λ(M)⌉`: no router needs fewer cycles.
    pub lower_bound: u64,
    /// Delivery cycles used.
    pub cycles: u64,
    /// Whether every message was delivered within `max_cycles`.
    pub finished: bool,
}

/// One trial of a run: its index, seed and record.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RouteTrialRecord {
    /// The trial's index.
    pub trial: u64,
    /// Its seed, `derive_seed(master seed, trial)`.
    pub seed: u64,
    /// The record.
    #[serde(flatten)]
    pub record: RouteTrial,
}

impl PreparedRoute {
    /// The tree.
    pub fn tree(&self) -> &FatTree {
        &self.tree
    }

    /// The resolved options.
    pub fn setup(&self) -> &RouteSetup {
        &self.setup
    }

    /// Whether each trial draws its own instance of the pattern.
    pub fn traffic_per_trial(&self) -> bool {
        self.pattern.per_trial()
    }

    /// A fresh router of the setup.
    fn router(&self) -> Box<dyn Router> {
        let s = &self.setup;
        let base: Box<dyn Router> = match (s.router, s.repetitions) {
            (RouterKind::Random, _) => Box::new(RandomRouter::new(s.params, self.tree.n())),
            (RouterKind::Greedy, _) => Box::new(Greedy),
            (RouterKind::ConstantSwitch, Some(passes)) => {
                Box::new(RandomPrime::with_repetitions(passes))
            }
            (RouterKind::RandomPrime | RouterKind::ConstantSwitch, _) => {
                Box::new(RandomPrime::new())
            }
        };
        if s.interleave {
            Box::new(Interleaved::new(base))
        } else {
            base
        }
    }

    /// The router's name in reports.
    pub fn router_name(&self) -> String {
        self.router().name()
    }

    /// One trial with the trial seed `seed` (see the [module documentation](self)).
    ///
    /// # Errors
    ///
    /// [`ScenarioError::Traffic`] if the pattern cannot be drawn, [`ScenarioError::Route`] if
    /// the engine refuses the case.
    pub fn trial(&self, seed: u64) -> Result<RouteTrial, ScenarioError> {
        let messages = self.pattern.draw(self.tree.n(), seed)?;
        let mut router = self.router();
        let report = fatnet_online::run(
            &self.tree,
            &messages,
            self.setup.policy,
            router.as_mut(),
            derive_seed(seed, 1),
            self.setup.config,
        )
        .map_err(|source| ScenarioError::Route { source })?;
        Ok(RouteTrial {
            messages: report.messages,
            load_factor: report.load_factor.value(),
            lower_bound: report.lower_bound,
            cycles: report.cycles,
            finished: report.finished,
        })
    }

    /// Trials `0..trials` of a run with master seed `seed`, in parallel, in trial order;
    /// `progress` is called with the number of trials done.
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
    ) -> Result<Vec<RouteTrialRecord>, ScenarioError> {
        // The summary's per-trial copies: a reference and a sample.
        check_trial_budget::<RouteTrialRecord, ScenarioError>(trials, 16)?;
        try_run_trials_with(
            runner,
            seed,
            trials,
            |trial, seed| {
                let record = self.trial(seed).map_err(|e| ScenarioError::Trial {
                    trial,
                    seed,
                    source: Box::new(e),
                })?;
                Ok(RouteTrialRecord {
                    trial,
                    seed,
                    record,
                })
            },
            progress,
        )?
    }
}

/// A sample's summary in a [`RouteSummary`].
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Stats {
    /// Mean.
    pub mean: Option<f64>,
    /// Standard deviation.
    pub std_dev: Option<f64>,
    /// Lower end of the 95% interval for the mean.
    pub ci95_low: Option<f64>,
    /// Upper end.
    pub ci95_high: Option<f64>,
    /// Smallest sample.
    pub min: Option<f64>,
    /// Largest sample.
    pub max: Option<f64>,
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

/// The report of a route run (`fatnet route --json`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RouteSummary {
    /// The topology, canonical.
    pub topology: String,
    /// The traffic, canonical.
    pub traffic: String,
    /// Whether each trial drew its own instance.
    pub traffic_per_trial: bool,
    /// The router's name.
    pub router: String,
    /// The drop policy.
    pub policy: DropPolicy,
    /// The master seed.
    pub seed: u64,
    /// Trials run.
    pub trials: u64,
    /// Messages of trial 0.
    pub messages: u64,
    /// λ(M), the mean over the trials' instances.
    pub load_factor: f64,
    /// The smallest `⌈λ(M)⌉` of the trials' instances.
    pub lower_bound: u64,
    /// The step limit.
    pub max_cycles: u64,
    /// Every trial's cycles.
    pub cycles: Vec<u64>,
    /// Whether each trial delivered everything.
    pub finished: Vec<bool>,
    /// The cycles' summary.
    pub cycles_summary: Stats,
    /// Each trial's cycles over its own λ, summarised.
    pub cycles_over_lambda: Stats,
    /// Every trial, with `--per-trial`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub per_trial: Option<Vec<RouteTrialRecord>>,
}

impl RouteSummary {
    /// The summary of `trials` (in trial order, at least one) of `prepared` with master seed
    /// `seed`; `per_trial` keeps every trial's record.
    pub fn of(
        prepared: &PreparedRoute,
        seed: u64,
        trials: Vec<RouteTrialRecord>,
        per_trial: bool,
    ) -> RouteSummary {
        let records: Vec<&RouteTrial> = trials.iter().map(|t| &t.record).collect();
        let cycles: Vec<u64> = records.iter().map(|r| r.cycles).collect();
        let as_f: Vec<f64> = cycles.iter().map(|&c| c as f64).collect();
        let ratio: Vec<f64> = records
            .iter()
            .map(|r| r.cycles as f64 / r.load_factor.max(f64::MIN_POSITIVE))
            .collect();
        let count = records.len().max(1) as f64;
        RouteSummary {
            topology: prepared.topology.to_string(),
            traffic: prepared.traffic.to_string(),
            traffic_per_trial: prepared.traffic_per_trial(),
            router: prepared.router_name(),
            policy: prepared.setup.policy,
            seed,
            trials: trials.len() as u64,
            messages: records.first().map_or(0, |r| r.messages),
            load_factor: records.iter().map(|r| r.load_factor).sum::<f64>() / count,
            lower_bound: records.iter().map(|r| r.lower_bound).min().unwrap_or(0),
            max_cycles: prepared.setup.config.max_cycles,
            finished: records.iter().map(|r| r.finished).collect(),
            cycles,
            cycles_summary: Summary::of(&as_f).into(),
            cycles_over_lambda: Summary::of(&ratio).into(),
            per_trial: per_trial.then_some(trials),
        }
    }
}
