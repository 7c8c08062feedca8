//! Collective workloads on the packet engine: each phase of a
//! [`Collective`] (all-to-all, allreduce; MPICH's schedules, see
//! [`fatnet_traffic::collective`]) run to completion, one after another, beside the
//! congestion-based lower bound of its completion time.
//!
//! **Key design decision: a phase is one run of the packet engine, and phases are separated by
//! a barrier.** Phase `k` is a static batch ([`batch_trial`]) on an empty network with every
//! message of the phase released at step 0 (or after the initial delays of the options'
//! `delay`); phase `k + 1` starts, again on an empty network, when phase `k` has delivered
//! everything. This is a blocking MPI step in which every rank waits for its receive before it
//! sends again; it ignores the overlap a real library gets from eager sends, so the total is an
//! upper reading of a pipelined run. No time loop is added: the engine is the one
//! `fatnet_online::packet` engine, and phase `k`'s engine seed is `derive_seed(seed, k)`.
//!
//! # The lower bound (the engine's timing model, `fatnet_online::packet`)
//!
//! A phase's *completion time* `T` is counted in flit-steps up to and including the step that
//! delivers its last message: the report's maximum latency (the 0-based delivery step, times
//! `L` for store-and-forward) plus one step (`L` flit-steps for store-and-forward). With `L`
//! the phase's message length in flits, `D` the longest route of the phase (its dilation, in
//! links), and `λ = load / capacity` the most messages on one bundle of parallel links over
//! the bundle's number of wires (fatnet-load's load factor of the phase on the network's
//! routes; on a fabric, one wire per bundle, the congestion of its tables' routes):
//!
//! - **wormhole**: `T ≥ max(⌈λ·L⌉, D + L − 1)`. A wire carries at most one flit per step, so
//!   the `load·L` flits crossing the bundle need `⌈load·L/capacity⌉` steps; a worm's `L` flits
//!   cross its first link one per step and the last one then has `D − 1` links to go (an
//!   uncontended worm takes exactly `D + L − 1` steps, the engine's `d + L − 2` latency).
//! - **split**: `T ≥ max(⌈λ·L⌉, D + ⌈L/w⌉ − 1)`, `w` the most wires leaving a processor (the
//!   `L` independent flits leave their source at most `w` per step).
//! - **store-and-forward**: `T ≥ L · max(⌈λ⌉, D)`: a wire carries one packet per packet-step,
//!   and a packet moves one link per packet-step.
//!
//! The bundle loads are those of the network's standard paths
//! ([`fatnet_load::PathSelection::Standard`]). That is the load every route the engine may
//! take carries when the routes are fixed (a fabric's tables, the `std` path policy, a network
//! with one path per pair) and on the trees, where every shortest path between two processors
//! crosses the same bundles (fatnet-topology's bundles). On the hypercube under a policy that
//! chooses among its shortest paths no bundle is common to them, and the bound is the path
//! term alone ([`PhaseBound::load_factor`] is then `None`). Delays (`delay` > 1) and queue
//! limits only slow a phase, so the bound stays a bound; it is attained by a phase without
//! contention (every bundle carrying at most its wires' worth of worms whose paths have
//! length `D`).

use std::sync::Arc;

use fatnet_load::{LoadFactor, PathSelection};
use fatnet_online::packet::{
    FlowControl, Outcome, PacketConfig, PacketNet, PathPolicy, QueueCapacity, Queueing, ScanPolicy,
    SinkModel, batch_trial,
};
use fatnet_traffic::Collective;
use fatnet_traffic::collective::{Phase, PhaseKind};
use serde::{Deserialize, Serialize};

use crate::packet::{PacketOptions, PacketSetup};
use crate::{Network, Parameter, ScenarioError, derive_seed};

/// A collective on a network under the packet engine's options (`fatnet simulate
/// --collective SPEC`).
#[derive(Clone, Debug, PartialEq)]
pub struct CollectiveScenario {
    /// The network.
    pub topology: Network,
    /// The collective.
    pub collective: Collective,
    /// The engine's options; `flits` is the collective's size when its spec gives none (and
    /// must not be given when it does).
    pub options: PacketOptions,
}

/// A collective scenario with its network built and its options resolved.
#[derive(Clone, Debug)]
pub struct PreparedCollective {
    topology: Network,
    collective: Collective,
    net: Arc<PacketNet>,
    setup: PacketSetup,
    /// Whether the standard paths' bundle loads bound every route's (see the module).
    bundles_bind: bool,
    /// The most wires leaving one processor.
    injection_wires: u32,
}

impl CollectiveScenario {
    /// Builds the network ([`Network::packet_net`]) and prepares the scenario on it.
    ///
    /// # Errors
    ///
    /// As [`Network::packet_net`] and [`CollectiveScenario::prepare_on`].
    pub fn prepare(&self) -> Result<PreparedCollective, ScenarioError> {
        self.prepare_on(Arc::new(self.topology.packet_net()?))
    }

    /// Prepares the scenario on `net`, already built from `self.topology` (a bench builds it
    /// once).
    ///
    /// # Errors
    ///
    /// [`ScenarioError::Refused`] for `flits` given with a collective whose spec has a size;
    /// the refusals of [`PacketOptions::resolve`]; [`ScenarioError::Traffic`] for a collective
    /// the network's processor count or the size refuses (fewer than 2 processors, messages
    /// of 0 or more than 65,535 flits).
    pub fn prepare_on(&self, net: Arc<PacketNet>) -> Result<PreparedCollective, ScenarioError> {
        if let (Some(flits), Some(_)) = (self.options.flits, self.collective.size()) {
            return Err(ScenarioError::Refused {
                param: Parameter::Flits,
                value: flits.to_string(),
                reason: format!(
                    "the collective `{}` gives its own message size",
                    self.collective
                ),
            });
        }
        let processors = net.processors();
        let setup = self.options.resolve(processors, net.routes())?;
        self.collective
            .message_flits(processors, setup.config.flits)
            .map_err(|source| ScenarioError::Traffic {
                spec: self.collective.to_string(),
                processors,
                source,
            })?;
        let bundles_bind =
            net.hypercube_dimension().is_none() || setup.config.path == PathPolicy::Standard;
        let injection_wires = (0..processors)
            .map(|p| net.out_links(net.injection_node(p)).len() as u32)
            .max()
            .unwrap_or(1)
            .max(1);
        Ok(PreparedCollective {
            topology: self.topology.clone(),
            collective: self.collective,
            net,
            setup,
            bundles_bind,
            injection_wires,
        })
    }
}

/// The congestion-based lower bound of one phase's completion time (see the module).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PhaseBound {
    /// λ of the phase over bundles, on the standard paths; `None` where those loads do not
    /// bind the engine's routes (the hypercube under a choosing path policy).
    pub load_factor: Option<LoadFactor>,
    /// The longest route of the phase, in links.
    pub dilation: u64,
    /// The congestion term, in flit-steps (0 without a load factor).
    pub congestion_term: u64,
    /// The path term, in flit-steps.
    pub path_term: u64,
    /// The bound: the larger term.
    pub steps: u64,
}

/// One phase of a collective run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PhaseReport {
    /// The phase's index, from 0.
    pub phase: u32,
    /// What it is.
    pub pattern: PhaseKind,
    /// Its messages.
    pub messages: u64,
    /// Flits per message.
    pub flits: u32,
    /// How the engine's run ended.
    pub outcome: Outcome,
    /// The completion time in flit-steps (see the module), if the phase finished.
    pub steps: Option<u64>,
    /// The lower bound.
    pub bound: PhaseBound,
    /// `steps / bound.steps`.
    pub ratio: Option<f64>,
    /// The engine's realized congestion (most worms whose head crossed one link).
    pub congestion: u32,
    /// The engine's seed of the phase, `derive_seed(seed, phase)`.
    pub seed: u64,
}

/// The report of a collective run (`fatnet simulate --collective SPEC --json`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CollectiveReport {
    /// The network.
    pub topology: Network,
    /// The collective, canonical.
    pub collective: Collective,
    /// Processors (ranks).
    pub processors: u32,
    /// Where queues sit.
    pub queueing: Queueing,
    /// Flow control.
    pub flow: FlowControl,
    /// Path selection.
    pub path: PathPolicy,
    /// Input scan.
    pub scan: ScanPolicy,
    /// Link queue capacity.
    pub queue: QueueCapacity,
    /// Sink model.
    pub sink: SinkModel,
    /// The step limit of each phase.
    pub max_steps: u64,
    /// `R` of the initial delays.
    pub delay: u32,
    /// The master seed.
    pub seed: u64,
    /// The collective's phase count.
    pub phase_count: u32,
    /// The phases run: all of them, or up to the first that did not finish.
    pub phases: Vec<PhaseReport>,
    /// Whether every phase finished.
    pub finished: bool,
    /// The sum of the phases' completion times, if every phase finished.
    pub total_steps: Option<u64>,
    /// The sum of the phases' bounds (over the phases run).
    pub total_bound: u64,
    /// `total_steps / total_bound`.
    pub ratio: Option<f64>,
}

impl PreparedCollective {
    /// The network.
    pub fn net(&self) -> &PacketNet {
        &self.net
    }

    /// The resolved options.
    pub fn setup(&self) -> &PacketSetup {
        &self.setup
    }

    /// The number of phases.
    pub fn phase_count(&self) -> u32 {
        self.collective
            .phase_count(self.net.processors())
            .expect("checked by prepare")
    }

    /// Phase `index` as traffic.
    ///
    /// # Errors
    ///
    /// [`ScenarioError::Traffic`] for an index out of range.
    pub fn phase(&self, index: u32) -> Result<Phase, ScenarioError> {
        let processors = self.net.processors();
        self.collective
            .phase(processors, self.setup.config.flits, index)
            .map_err(|source| ScenarioError::Traffic {
                spec: self.collective.to_string(),
                processors,
                source,
            })
    }

    /// The lower bound of `phase`'s completion time on this network under these options.
    ///
    /// # Errors
    ///
    /// [`ScenarioError::Load`] if the per-channel load table exceeds the memory budget.
    pub fn bound(&self, phase: &Phase) -> Result<PhaseBound, ScenarioError> {
        let topo = self.net.topology();
        let loads = fatnet_load::channel_loads(topo, &phase.messages, PathSelection::Standard)?;
        let dilation = loads.dilation;
        let report = fatnet_load::LoadReport::new(topo, loads);
        let load_factor = self.bundles_bind.then_some(report.load_factor);
        let l = u64::from(phase.flits);
        let (congestion_term, path_term) = match self.setup.config.flow {
            FlowControl::Wormhole => (
                load_factor.map_or(0, |f| (f.load * l).div_ceil(f.capacity)),
                dilation + l - 1,
            ),
            FlowControl::Split => (
                load_factor.map_or(0, |f| (f.load * l).div_ceil(f.capacity)),
                dilation + l.div_ceil(u64::from(self.injection_wires)) - 1,
            ),
            FlowControl::StoreAndForward => (load_factor.map_or(0, |f| f.ceil() * l), dilation * l),
        };
        Ok(PhaseBound {
            load_factor,
            dilation,
            congestion_term,
            path_term,
            steps: congestion_term.max(path_term),
        })
    }

    /// Runs one phase on the engine with the phase seed `seed`.
    ///
    /// # Errors
    ///
    /// As [`PreparedCollective::bound`], and [`ScenarioError::Packet`] if the engine fails.
    pub fn run_phase(
        &self,
        index: u32,
        phase: &Phase,
        seed: u64,
    ) -> Result<PhaseReport, ScenarioError> {
        let bound = self.bound(phase)?;
        let config = PacketConfig {
            flits: phase.flits,
            ..self.setup.config
        };
        let report = batch_trial(&self.net, &phase.messages, self.setup.delay, &config, seed)
            .map_err(|source| ScenarioError::Packet {
                topology: self.topology.to_string(),
                source,
            })?;
        let steps = report
            .finished()
            .then(|| report.latency + config.step_length());
        Ok(PhaseReport {
            phase: index,
            pattern: phase.kind,
            messages: report.messages,
            flits: phase.flits,
            outcome: report.outcome,
            steps,
            bound,
            ratio: steps.map(|s| s as f64 / bound.steps as f64),
            congestion: report.congestion,
            seed,
        })
    }

    /// Runs every phase in order, phase `k` seeded `derive_seed(seed, k)`, stopping after the
    /// first that does not finish (a deadlock or the step limit); `progress` is called with the
    /// number of phases done.
    ///
    /// # Errors
    ///
    /// As [`PreparedCollective::run_phase`].
    pub fn run(
        &self,
        seed: u64,
        progress: &dyn Fn(u32),
    ) -> Result<CollectiveReport, ScenarioError> {
        let count = self.phase_count();
        let mut phases = Vec::new();
        for k in 0..count {
            let phase = self.phase(k)?;
            let report = self.run_phase(k, &phase, derive_seed(seed, u64::from(k)))?;
            let done = report.steps.is_some();
            phases.push(report);
            progress(k + 1);
            if !done {
                break;
            }
        }
        let finished = phases.len() as u32 == count && phases.iter().all(|p| p.steps.is_some());
        let total_steps = finished.then(|| phases.iter().filter_map(|p| p.steps).sum::<u64>());
        let total_bound = phases.iter().map(|p| p.bound.steps).sum();
        Ok(CollectiveReport {
            topology: self.topology.clone(),
            collective: self.collective,
            processors: self.net.processors(),
            queueing: self.setup.config.queueing,
            flow: self.setup.config.flow,
            path: self.setup.config.path,
            scan: self.setup.config.scan,
            queue: self.setup.config.queue,
            sink: self.setup.config.sink,
            max_steps: self.setup.config.max_steps,
            delay: self.setup.delay,
            seed,
            phase_count: count,
            phases,
            finished,
            total_steps,
            total_bound,
            ratio: total_steps.map(|t| t as f64 / total_bound as f64),
        })
    }
}
