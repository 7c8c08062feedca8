//! Schedule scenarios: Leiserson's off-line schedules (Theorem 1, Corollary 2) of a message
//! set on a binary fat-tree, verified, as `fatnet schedule` and a `scheduler = "leiserson"`
//! sweep run them.
//!
//! [`ScheduleOptions`] are the options as users give them; [`ScheduleOptions::resolve`] holds
//! their defaults and refusals; [`ScheduleScenario::prepare`] builds the tree and checks the
//! traffic; [`PreparedSchedule::trial`] schedules one instance from its seed.
//!
//! # Seeds
//!
//! The scheduler is deterministic: only the message set depends on the seed. A randomized
//! pattern is drawn from the trial's seed, a fixed one is made once, from the master seed of
//! [`ScheduleScenario::prepare`]. `fatnet schedule --seed s` prepares with `s` and runs the
//! trial with seed `s`, so it equals a sweep task whose trial seed is `s`.

use std::sync::Arc;

use fatnet_offline::leiserson::{
    FictitiousCapacity, LeisersonSchedule, Scheduler, corollary2, theorem1,
};
use fatnet_topology::{AnyTopology, FatTree, TopologySpec};
use fatnet_traffic::{MessageSet, TrafficSpec};
use serde::{Deserialize, Serialize};

use crate::packet::as_text;
use crate::pattern::Pattern;
use crate::{Parameter, ScenarioError};

/// The options of Leiserson's scheduler as users give them, every one optional: on the command
/// line (`fatnet schedule` flattens this struct) or in a sweep's `[params]` (the same keys).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
#[serde(deny_unknown_fields)]
pub struct ScheduleOptions {
    /// The scheduler: Theorem 1, or Corollary 2 (needs capacities above lg n)
    /// [default: theorem1].
    #[cfg_attr(feature = "clap", arg(long, value_enum))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub algorithm: Option<Scheduler>,
    /// Corollary 2's fictitious capacities: `cap − lg n` (the paper) or `cap − depth`
    /// [default: lgn]. Only with algorithm corollary2.
    #[cfg_attr(feature = "clap", arg(long, value_enum))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fictitious: Option<FictitiousCapacity>,
}

/// Resolved scheduler options.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct ScheduleSetup {
    /// The scheduler.
    pub algorithm: Scheduler,
    /// Corollary 2's fictitious capacities (`None` for Theorem 1).
    pub fictitious: Option<FictitiousCapacity>,
}

impl ScheduleOptions {
    /// The scheduler's setup: Theorem 1 unless given; Corollary 2's fictitious capacities
    /// `cap − lg n` unless given.
    ///
    /// # Errors
    ///
    /// [`ScenarioError::Requires`] for fictitious capacities without Corollary 2.
    pub fn resolve(&self) -> Result<ScheduleSetup, ScenarioError> {
        let algorithm = self.algorithm.unwrap_or(Scheduler::Theorem1);
        if self.fictitious.is_some() && algorithm != Scheduler::Corollary2 {
            return Err(ScenarioError::Requires {
                param: Parameter::Fictitious,
                other: Parameter::Algorithm,
                value: Scheduler::Corollary2.name(),
            });
        }
        Ok(ScheduleSetup {
            algorithm,
            fictitious: (algorithm == Scheduler::Corollary2)
                .then(|| self.fictitious.unwrap_or_default()),
        })
    }
}

/// A schedule scenario: a binary fat-tree, traffic and the scheduler's options.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScheduleScenario {
    /// The network (its spec string in files): a binary fat-tree.
    #[serde(with = "as_text")]
    pub topology: TopologySpec,
    /// The traffic (its spec string in files).
    #[serde(with = "as_text")]
    pub traffic: TrafficSpec,
    /// The options.
    #[serde(flatten)]
    pub options: ScheduleOptions,
}

/// Builds `spec` as a binary fat-tree for `what`.
pub(crate) fn fat_tree(spec: &TopologySpec, what: &'static str) -> Result<FatTree, ScenarioError> {
    let topology = spec.build().map_err(|source| ScenarioError::Topology {
        spec: spec.to_string(),
        source,
    })?;
    match topology {
        AnyTopology::FatTree(tree) => Ok(tree),
        _ => Err(ScenarioError::WrongTopology {
            what,
            needs: "a binary fat-tree (`fattree:...`)",
            spec: spec.to_string(),
        }),
    }
}

/// A schedule scenario ready to run trials: tree built, options resolved, traffic checked.
#[derive(Debug)]
pub struct PreparedSchedule {
    topology: TopologySpec,
    traffic: TrafficSpec,
    tree: Arc<FatTree>,
    setup: ScheduleSetup,
    pattern: Pattern,
}

impl ScheduleScenario {
    /// Builds the tree, resolves the options and makes the traffic (a fixed pattern from
    /// `seed`, or a randomized one's trial-0 instance, drawn and dropped).
    ///
    /// # Errors
    ///
    /// [`ScenarioError::Topology`], [`ScenarioError::WrongTopology`] (not a binary
    /// fat-tree), [`ScenarioError::Traffic`], and those of [`ScheduleOptions::resolve`].
    pub fn prepare(&self, seed: u64) -> Result<PreparedSchedule, ScenarioError> {
        let tree = fat_tree(&self.topology, "Leiserson's scheduler")?;
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
    ) -> Result<PreparedSchedule, ScenarioError> {
        // Before any message is made: a size the load tables refuse costs nothing.
        fatnet_load::check_fat_tree_loads(&tree)?;
        let setup = self.options.resolve()?;
        let pattern = Pattern::new(&self.traffic, tree.n(), seed)?;
        Ok(PreparedSchedule {
            topology: self.topology.clone(),
            traffic: self.traffic.clone(),
            tree,
            setup,
            pattern,
        })
    }
}

/// One trial: the schedule's size against its bounds (a sweep task's `result`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScheduleTrial {
    /// Messages.
    pub messages: u64,
    /// λ(M) of the trial's message set.
    pub load_factor: f64,
    /// `⌈λ(M)⌉`: no schedule has fewer cycles.
    pub lower_bound: u64,
    /// The cycles the theorem guarantees.
    pub bound: u64,
    /// Delivery cycles of the schedule.
    pub cycles: u64,
    /// Whether the schedule passed its cycle-by-cycle verification.
    pub verified: bool,
}

impl PreparedSchedule {
    /// The tree.
    pub fn tree(&self) -> &FatTree {
        &self.tree
    }

    /// The resolved options.
    pub fn setup(&self) -> &ScheduleSetup {
        &self.setup
    }

    /// Whether each trial draws its own instance of the pattern.
    pub fn traffic_per_trial(&self) -> bool {
        self.pattern.per_trial()
    }

    /// The message set of the trial with seed `seed` and its schedule.
    ///
    /// # Errors
    ///
    /// [`ScenarioError::Traffic`] if the pattern cannot be drawn, [`ScenarioError::Schedule`]
    /// if the scheduler refuses it (Corollary 2 with capacities not above lg n, ...).
    pub fn schedule(&self, seed: u64) -> Result<(MessageSet, LeisersonSchedule), ScenarioError> {
        let messages = self.pattern.draw(self.tree.n(), seed)?.into_owned();
        let result = match self.setup.fictitious {
            None => theorem1(&self.tree, &messages),
            Some(fictitious) => corollary2(&self.tree, &messages, fictitious),
        }
        .map_err(|source| ScenarioError::Schedule { source })?;
        Ok((messages, result))
    }

    /// One trial with the trial seed `seed` (see the [module documentation](self)).
    ///
    /// # Errors
    ///
    /// As [`schedule`](Self::schedule).
    pub fn trial(&self, seed: u64) -> Result<ScheduleTrial, ScenarioError> {
        let (messages, result) = self.schedule(seed)?;
        Ok(self.record(&messages, &result))
    }

    fn record(&self, messages: &MessageSet, result: &LeisersonSchedule) -> ScheduleTrial {
        ScheduleTrial {
            messages: messages.len() as u64,
            load_factor: result.load_factor.value(),
            lower_bound: result.lower_bound,
            bound: result.bound,
            cycles: result.cycles() as u64,
            verified: result.schedule.verify(self.tree.as_ref(), messages).is_ok(),
        }
    }
}

/// The report of `fatnet schedule --json`: the case, the trial's record and the schedule.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ScheduleSummary {
    /// The topology, canonical.
    pub topology: String,
    /// The traffic, canonical.
    pub traffic: String,
    /// The seed of the message set.
    pub seed: u64,
    /// The scheduler.
    pub algorithm: Scheduler,
    /// Corollary 2's fictitious capacities.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fictitious: Option<FictitiousCapacity>,
    /// The trial's record.
    #[serde(flatten)]
    pub trial: ScheduleTrial,
    /// λ(M) as `[load, capacity]`.
    pub load_factor_exact: [u64; 2],
    /// Corollary 2's fictitious load factor λ'(M).
    pub fictitious_load_factor: Option<f64>,
    /// Corollary 2's `a = min cap / lg n`.
    pub capacity_ratio: Option<f64>,
    /// Cycles used by each level of lowest common ancestors, root level first (Theorem 1).
    pub cycles_per_level: Vec<u64>,
    /// Every cycle's message ids.
    pub schedule: Vec<Vec<u32>>,
    /// The message set, `[src, dst]` by message id (what the ids of
    /// [`ScheduleSummary::schedule`] name).
    pub pairs: Vec<[u32; 2]>,
}

impl ScheduleSummary {
    /// The summary of the trial with seed `seed` of `prepared`.
    ///
    /// # Errors
    ///
    /// As [`PreparedSchedule::schedule`].
    pub fn run(prepared: &PreparedSchedule, seed: u64) -> Result<ScheduleSummary, ScenarioError> {
        let (messages, result) = prepared.schedule(seed)?;
        Ok(ScheduleSummary::of(prepared, seed, &messages, &result))
    }

    /// The summary of a schedule already made: `messages` and `result` are
    /// [`PreparedSchedule::schedule`]`(seed)` of `prepared` (the Python package keeps them to
    /// verify the schedule again, without scheduling twice).
    pub fn of(
        prepared: &PreparedSchedule,
        seed: u64,
        messages: &MessageSet,
        result: &LeisersonSchedule,
    ) -> ScheduleSummary {
        ScheduleSummary {
            topology: prepared.topology.to_string(),
            traffic: prepared.traffic.to_string(),
            seed,
            algorithm: prepared.setup.algorithm,
            fictitious: prepared.setup.fictitious,
            trial: prepared.record(messages, result),
            load_factor_exact: [result.load_factor.load, result.load_factor.capacity],
            fictitious_load_factor: result.fictitious_load_factor.map(|l| l.value()),
            capacity_ratio: result.capacity_ratio,
            cycles_per_level: result.cycles_per_level.clone(),
            schedule: result.schedule.to_ids(),
            pairs: messages.messages().iter().map(|m| [m.src, m.dst]).collect(),
        }
    }
}
