//! From a grid point to a scenario trial: what one task runs.
//!
//! Owns the preparation of every point (its network built once per distinct topology, its
//! options deserialised into the command's own options struct, `fatnet_scenario`'s
//! `PacketOptions`, `RouteOptions`, `DynamicOptions` or `ScheduleOptions`, and resolved by the
//! scenario exactly as `fatnet simulate`, `route` or `schedule` resolves them), the blame of a
//! refusal on the key it names, and [`SweepSpec::run_task_line`]: task `k`'s trial and its
//! JSON line. It decides no default and no refusal of its own: the scenario's typed options
//! own them all, so a task equals the command's trial word for word. It does not write files
//! (`store`, `run`).

use std::collections::BTreeMap;
use std::sync::Arc;

use fatnet::online::packet::{PacketNet, PacketReport};
use fatnet::scenario::{
    DynamicScenario, Network, PacketScenario, PreparedDynamic, PreparedPacket, PreparedRoute,
    PreparedSchedule, RouteScenario, ScenarioError, ScheduleScenario,
};
use fatnet::topology::{AnyTopology, FatTree, TopologySpec};
use fatnet::traffic::TrafficSpec;
use serde::{Deserialize, Serialize};

use super::check::{ParamValue, Value};
use super::problem::{Problems, SweepProblem, SweepProblemKind};
use super::store::TrialRecord;
use super::{SweepKind, SweepSpec, Task};
use crate::{ReproError, derive_seed};

/// One trial of `simulator = "route"`: the library's record ([`PreparedRoute::trial`]).
pub type RouteResult = fatnet::scenario::RouteTrial;

/// One trial of `scheduler = "leiserson"`: the library's record
/// ([`PreparedSchedule::trial`]).
pub type ScheduleResult = fatnet::scenario::ScheduleTrial;

/// One trial of `simulator = "dynamic"`: the library's record
/// ([`PreparedDynamic::trial`]), the bounds the thesis proves for the case included.
pub type DynamicResult = fatnet::scenario::DynamicReport;

/// A trial's outcome, by [`SweepKind`] (untagged in JSON: the report's own fields).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum TrialResult {
    /// `simulator = "packet"`.
    Packet(PacketReport),
    /// `simulator = "route"`.
    Route(RouteResult),
    /// `scheduler = "leiserson"`.
    Schedule(ScheduleResult),
    /// `simulator = "dynamic"`.
    Dynamic(DynamicResult),
}

impl TrialResult {
    /// The kind of sweep that produces it.
    pub fn kind(&self) -> SweepKind {
        match self {
            TrialResult::Packet(_) => SweepKind::Packet,
            TrialResult::Route(_) => SweepKind::Route,
            TrialResult::Schedule(_) => SweepKind::Schedule,
            TrialResult::Dynamic(_) => SweepKind::Dynamic,
        }
    }
}

/// One grid point, ready to run.
#[derive(Debug)]
pub(super) struct Point {
    pub(super) params: BTreeMap<String, ParamValue>,
    job: Job,
}

/// What a grid point runs.
#[derive(Debug)]
enum Job {
    /// The scenario `fatnet simulate` runs for the same options (its traffic drawn per
    /// trial by [`PreparedPacket::trial`]).
    Packet(PreparedPacket),
    /// The scenario `fatnet route` runs for the same options.
    Route(PreparedRoute),
    /// The scenario `fatnet schedule` runs for the same options.
    Schedule(PreparedSchedule),
    /// The scenario `fatnet simulate --arrivals` runs for the same options.
    Dynamic(PreparedDynamic),
}

impl Job {
    /// The trial of seed `seed` (the scenario seeds its simulator itself, from it).
    fn trial(&self, seed: u64) -> Result<TrialResult, ScenarioError> {
        match self {
            Job::Packet(prepared) => prepared.trial(seed).map(TrialResult::Packet),
            Job::Route(prepared) => prepared.trial(seed).map(TrialResult::Route),
            Job::Schedule(prepared) => prepared.trial(seed).map(TrialResult::Schedule),
            Job::Dynamic(prepared) => prepared.trial(seed).map(TrialResult::Dynamic),
        }
    }
}

impl SweepSpec {
    /// Runs task `task` and returns its line of `results.jsonl`: the [`TrialRecord`] as one
    /// JSON object and a newline. The line is a function of the sweep file and `task` only.
    ///
    /// # Errors
    ///
    /// [`ReproError::SweepTask`] if `task` is out of range or the trial fails.
    pub fn run_task_line(&self, task: u64) -> Result<Vec<u8>, ReproError> {
        let record = self.run_task(task)?;
        let mut line = serde_json::to_vec(&record).expect("records serialize");
        line.push(b'\n');
        Ok(line)
    }

    /// Runs task `task` (see [`SweepSpec::task`]): the record `results.jsonl` holds for it.
    ///
    /// # Errors
    ///
    /// [`ReproError::SweepTask`] for a task the sweep does not have or a trial that fails,
    /// with the one-line error of the trial.
    pub fn run_task(&self, task: u64) -> Result<TrialRecord, ReproError> {
        let Some(Task { point, trial, seed }) = self.task(task) else {
            return Err(ReproError::SweepTask {
                task,
                reason: format!("no such task: the sweep has {}", self.tasks()),
            });
        };
        let p = &self.points[point as usize];
        let result = p.job.trial(seed).map_err(|e| ReproError::SweepTask {
            task,
            reason: fatnet::scenario::one_line(&e),
        })?;
        Ok(TrialRecord {
            task,
            point,
            trial,
            seed,
            params: p.params.clone(),
            result,
        })
    }
}

/// A network built for one kind of sweep, shared by the points with its topology.
#[derive(Clone, Debug)]
enum Built {
    Packet(Arc<PacketNet>),
    Tree(Arc<FatTree>),
    /// The spec, for the dynamic simulator (its scenario checks it and builds its own
    /// network).
    Dynamic(TopologySpec),
}

/// Builds `topology` for `kind`: a packet network, or a binary fat-tree for the
/// delivery-cycle routers and Leiserson's scheduler.
fn build(kind: SweepKind, topology: &str) -> Result<Built, String> {
    let network = topology.parse::<Network>().map_err(|e| e.to_string())?;
    let spec = match (kind, network) {
        // A fabric runs on the packet engine through its forwarding tables, as with
        // `fatnet simulate --fabric`.
        (SweepKind::Packet, network) => {
            return network
                .packet_net()
                .map(|net| Built::Packet(Arc::new(net)))
                .map_err(|e| fatnet::scenario::one_line(&e));
        }
        (_, Network::Topology(spec)) => spec,
        (kind, Network::Fabric(_)) => {
            return Err(format!(
                "{kind} sweeps run on built-in topologies; a fabric runs on the packet simulator"
            ));
        }
    };
    if kind == SweepKind::Dynamic {
        return Ok(Built::Dynamic(spec));
    }
    let topo = spec.build().map_err(|e| e.to_string())?;
    match (kind, topo) {
        (_, AnyTopology::FatTree(tree)) => Ok(Built::Tree(Arc::new(tree))),
        (kind, _) => Err(format!("{kind} needs a binary fat-tree (`fattree:...`)")),
    }
}

/// Builds every point: its options (with the defaults of `fatnet simulate`, `fatnet route`
/// or `fatnet schedule`), its network (once per distinct topology) and, to check the traffic
/// suits it, its fixed pattern or the pattern of its trial 0. A scheduler point also runs
/// its trial 0, so that Corollary 2's capacity condition is checked before any work starts.
pub(super) fn prepare(
    kind: SweepKind,
    points: Vec<BTreeMap<String, Value>>,
    seed: u64,
    problems: &mut Problems<'_>,
) -> Vec<Point> {
    let mut built: BTreeMap<String, Result<Built, String>> = BTreeMap::new();
    let mut prepared_points = Vec::with_capacity(points.len());
    for (index, values) in points.into_iter().enumerate() {
        let point = index as u64;
        let params: BTreeMap<String, ParamValue> = values
            .iter()
            .map(|(k, v)| (k.clone(), v.value.clone()))
            .collect();
        let describe = || {
            params
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join(" ")
        };
        let line_of_key = |key: &str| values.get(key).map(|v| v.line);
        let mut point_problem = |key: Option<&str>, reason: String| {
            problems.list.push(SweepProblem {
                line: key.and_then(line_of_key),
                kind: SweepProblemKind::Point {
                    point,
                    params: describe(),
                    reason,
                },
            });
        };
        let topology = str_param(&values, "topology").expect("required");
        let net = built
            .entry(topology.to_string())
            .or_insert_with(|| build(kind, topology))
            .clone();
        let net = match net {
            Ok(net) => net,
            Err(reason) => {
                point_problem(Some("topology"), format!("cannot build: {reason}"));
                continue;
            }
        };
        // Each kind's options deserialise into its command's own struct, and its scenario
        // resolves them as that command does.
        let job = match net {
            Built::Packet(net) => scenario_of(&values)
                .and_then(|(topology, traffic, options)| {
                    PacketScenario {
                        topology,
                        traffic,
                        options,
                    }
                    .prepare_on(net, derive_seed(seed, point))
                    .map_err(|e| blame(&e))
                })
                .map(Job::Packet),
            // As `fatnet schedule` does; trial 0 runs now, so that Corollary 2's capacity
            // condition is checked before any work starts.
            Built::Tree(tree) if kind == SweepKind::Schedule => {
                let point_seed = derive_seed(seed, point);
                scenario_of(&values)
                    .and_then(|(topology, traffic, options)| {
                        let prepared = ScheduleScenario {
                            topology,
                            traffic,
                            options,
                        }
                        .prepare_on(tree, point_seed)
                        .map_err(|e| blame(&e))?;
                        prepared
                            .trial(derive_seed(point_seed, 0))
                            .map_err(|e| blame(&e))?;
                        Ok(prepared)
                    })
                    .map(Job::Schedule)
            }
            Built::Tree(tree) if kind == SweepKind::Route => scenario_of(&values)
                .and_then(|(topology, traffic, options)| {
                    RouteScenario {
                        topology,
                        traffic,
                        options,
                    }
                    .prepare_on(tree, derive_seed(seed, point))
                    .map_err(|e| blame(&e))
                })
                .map(Job::Route),
            Built::Dynamic(topology) => options_of(&values)
                .and_then(|options| {
                    DynamicScenario { topology, options }
                        .prepare()
                        .map_err(|e| blame(&e))
                })
                .map(Job::Dynamic),
            Built::Tree(_) => unreachable!("a fat-tree is built for route and schedule only"),
        };
        match job {
            Ok(job) => prepared_points.push(Point { params, job }),
            Err((key, reason)) => point_problem(key, reason),
        }
    }
    prepared_points
}

/// The value of string parameter `key` at a point, if it has one.
fn str_param<'v>(values: &'v BTreeMap<String, Value>, key: &str) -> Option<&'v str> {
    match values.get(key).map(|v| &v.value) {
        Some(ParamValue::Str(s)) => Some(s.as_str()),
        _ => None,
    }
}

/// A point's topology, traffic and options (every other parameter), deserialised into the
/// options struct of the command that runs the same case.
fn scenario_of<N, T>(
    values: &BTreeMap<String, Value>,
) -> Result<(N, TrafficSpec, T), (Option<&'static str>, String)>
where
    N: std::str::FromStr,
    N::Err: std::fmt::Display,
    T: serde::de::DeserializeOwned,
{
    let text = |key: &str| str_param(values, key).unwrap_or_default();
    let topology = text("topology")
        .parse()
        .map_err(|e| (Some("topology"), format!("{e}")))?;
    let traffic = text("traffic")
        .parse()
        .map_err(|e| (Some("traffic"), format!("{e}")))?;
    Ok((topology, traffic, options_of(values)?))
}

/// A point's options: every parameter but its topology and traffic, deserialised into the
/// options struct of the command that runs the same case.
fn options_of<T: serde::de::DeserializeOwned>(
    values: &BTreeMap<String, Value>,
) -> Result<T, (Option<&'static str>, String)> {
    let options = values
        .iter()
        .filter(|(k, _)| !matches!(k.as_str(), "topology" | "traffic"))
        .map(|(k, v)| (k.clone(), serde_json::to_value(&v.value).expect("plain")))
        .collect::<serde_json::Map<_, _>>();
    serde_json::from_value(options.clone().into()).map_err(|e| {
        // A flattened struct's errors name no field: the culprit is the key whose value alone
        // is refused (not merely incomplete).
        let culprit = options.iter().find_map(|(k, v)| {
            let alone = serde_json::Map::from_iter([(k.clone(), v.clone())]);
            match serde_json::from_value::<T>(alone.into()) {
                Err(e) if !e.to_string().starts_with("missing field") => {
                    fatnet::scenario::Parameter::NAMES
                        .iter()
                        .find(|name| **name == k.as_str())
                        .copied()
                }
                _ => None,
            }
        });
        (culprit, e.to_string())
    })
}

/// The key to blame for a scenario's refusal (the parameter it names), and its words.
fn blame(e: &ScenarioError) -> (Option<&'static str>, String) {
    let key = match e {
        ScenarioError::Requires { param, .. }
        | ScenarioError::Missing { param }
        | ScenarioError::OutOfRange { param, .. }
        | ScenarioError::Refused { param, .. } => Some(param.name()),
        ScenarioError::Traffic { .. } => Some("traffic"),
        ScenarioError::Topology { .. }
        | ScenarioError::WrongTopology { .. }
        | ScenarioError::TopologySpec(_)
        | ScenarioError::FabricSpec { .. } => Some("topology"),
        ScenarioError::Schedule { .. } => Some("algorithm"),
        // The engine's own refusals (`PacketConfig::validate`) name a parameter in words.
        ScenarioError::Options {
            source: fatnet::online::OnlineError::BadParameter { param, .. },
        } => param
            .to_string()
            .replace(' ', "_")
            .parse::<fatnet::scenario::Parameter>()
            .ok()
            .map(|p| p.name()),
        _ => None,
    };
    (key, fatnet::scenario::one_line(e))
}
