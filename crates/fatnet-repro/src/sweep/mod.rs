//! Parameter sweeps from a TOML file, with results that survive interruption (issue 8).
//!
//! **Key design decision: a task's result is a function of its index and the sweep file
//! only.** The file expands to a fixed list of grid points; task `k = point · trials + trial`
//! runs trial `trial` of point `point` with the seed
//! `derive_seed(derive_seed(seed, point), trial)`, exactly trial `trial` of
//! `fatnet simulate --seed derive_seed(seed, point)` with that point's options. So the set of
//! finished tasks, not the order they finished in, defines `results.jsonl`: any thread count,
//! any [`TaskRunner`] (such as the MPI ranks of `fatnet-cli`) and any interruption followed by
//! `resume` give the same lines, up to their order.
//!
//! # The sweep file
//!
//! ```toml
//! simulator = "packet"      # Greenberg and Oh's packet simulation (`fatnet simulate`)
//! trials = 10               # trials per grid point
//! seed = 7                  # master seed
//!
//! [params]                  # a scalar is fixed; a list is swept (cross product)
//! topology = "bft:n=64"
//! traffic = ["permutation", "uniform:self=false"]
//! flow = ["worm", "store", "split"]
//!
//! [zip]                     # optional: lists of one length, varied together
//! flits = [8, 32]
//! delay = [1, 4]
//! ```
//!
//! A top-level key says what runs: `simulator = "packet"` (Greenberg and Oh's packet simulation,
//! `fatnet simulate`), `simulator = "route"` (Greenberg and Leiserson's delivery-cycle routers,
//! `fatnet route`), `simulator = "dynamic"` (Stamoulis' routing under Poisson traffic,
//! `fatnet simulate --arrivals`) or `scheduler = "leiserson"` (Leiserson's off-line schedules,
//! `fatnet schedule`). Parameters, with those commands' defaults: `topology` and `traffic`
//! (specs, required; the dynamic simulator takes `rate` instead of `traffic`), and
//!
//! - packet: `queueing` (`input`, `output`), `flow` (`worm`, `store`, `split`), `path` (`rp`,
//!   `gp`, `fp`, `dor`), `scan` (`rr`, `fo`, `ff`, `oldest`, `prio`), `priority_range`,
//!   `flits`, `queue` (an integer or `"unbounded"`), `sink` (`queue`, `immediate`), `delay`
//!   and `max_steps`;
//! - route: `router` (`random`, `greedy`, `random-prime`, `constant-switch`), `policy`
//!   (`pessimistic`, `random`, `fixed`, `round-robin`, `wires`), `interleave`, `preset`
//!   (`practical`, `proved`: RANDOM's constants), `k1`, `k2`, `r`, `k` (constant-switch's
//!   `(k+1)·lg n` passes), `max_cycles` and `out_the_root`;
//! - leiserson: `algorithm` (`theorem1`, `corollary2`) and `fictitious` (`lgn`, `depth`).
//! - dynamic: `rate` (λ per node, a number), `p` (bit-flip probability, 0.5), `arrivals`
//!   (`poisson`, `slotted`), `router` (`greedy`, `adaptive`), `broadcast` (`direct`,
//!   `indirect`, `nonidling`, `one-tree`, `periodic`, `periodic-nonidling`), `slots`
//!   (10,000), `warmup` (`slots / 10`, rounded down) and `batches` (20); one steady-state run
//!   per trial.
//!
//! Route and leiserson need a binary fat-tree (`fattree:...`), dynamic `hypercube:d=D` or
//! `butterfly:d=D`. Points are the cross product of
//! the `[params]` keys in alphabetical order (the last key varying fastest), with the `[zip]`
//! index as one more, last, dimension. Broadcast traffic (`broadcast`, `broadcast:src=K`)
//! runs on the packet simulator; the dynamic simulator's `broadcast` key runs Stamoulis'
//! multiple-broadcast schemes.
//!
//! **Which instance a trial sees.** A randomized pattern is drawn afresh for every trial, from
//! the trial's seed; a fixed pattern is made once per point, from `derive_seed(seed, point)`.
//! The simulator's or router's own randomness is seeded with `derive_seed(trial seed, 1)`;
//! Leiserson's scheduler is deterministic. The options of a packet, route, dynamic or
//! leiserson point deserialise into the command's own options struct
//! (`fatnet_scenario::PacketOptions`, `RouteOptions`, `DynamicOptions`, `ScheduleOptions`)
//! and run the library's `trial`: the task of trial `i` equals trial `i` of
//! `fatnet simulate` (`--arrivals` included) or `fatnet route --seed derive_seed(seed, point)`,
//! and
//! `fatnet schedule --seed <the task's seed>`, refusals included, word for word.
//!
//! [`SweepSpec::parse`] checks everything before any work starts: unknown keys, wrong types,
//! bad values, zipped lists of unequal length, option combinations the simulator refuses,
//! topologies that cannot be built and traffic that does not suit them. It reports every
//! problem, each with its line, in one [`ReproError::InvalidSweep`].
//!
//! # The results file
//!
//! [`run_sweep`] writes `out_dir/sweep.toml` (the sweep's text) and appends one
//! [`TrialRecord`] per finished task to `out_dir/results.jsonl`, as one JSON line, in batches
//! of [`SweepOptions::batch`] tasks, each batch flushed and fsync'd before the next starts.
//! With [`SweepOptions::resume`] it keeps the lines already there, truncates a partial last
//! line (a crash during a write) and runs only the missing tasks. While it runs it holds an
//! advisory lock on `out_dir/sweep.lock`, so a second process on the same directory is refused
//! ([`ReproError::SweepBusy`]) instead of duplicating tasks; the copy of the sweep file is
//! replaced atomically, so a crash never leaves a torn one.

use std::collections::BTreeMap;
use std::fs::{self, File, OpenOptions};
use std::io::{Read, Write};
use std::path::Path;
use std::sync::Arc;

use fatnet::offline::leiserson::{FictitiousCapacity, Scheduler};
use fatnet::online::packet::{
    FlowControl, PacketNet, PacketReport, PathPolicy, Queueing, ScanOrder, SinkModel,
};
use fatnet::online::{
    Arrivals, BroadcastScheme, DropPolicy, DynamicRouter, RandomPreset, RouterKind,
};
use fatnet::scenario::{
    DynamicScenario, Network, PacketScenario, PreparedDynamic, PreparedPacket, PreparedRoute,
    PreparedSchedule, RouteScenario, ScenarioError, ScheduleScenario,
};
use fatnet::topology::{AnyTopology, FatTree, TopologySpec};
use fatnet::traffic::TrafficSpec;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use toml::Spanned;
use toml::de::{DeTable, DeValue};

use crate::{ReproError, derive_seed};

/// The most tasks (points × trials) a sweep may have: the runner keeps a flag per task, and
/// a results file of this many lines is already hundreds of gigabytes.
pub const MAX_TASKS: u64 = 1 << 30;

/// Name of the results file in the output directory.
pub const RESULTS_FILE: &str = "results.jsonl";
/// Name of the copy of the sweep file in the output directory.
pub const SWEEP_FILE: &str = "sweep.toml";
/// Name of the lock file in the output directory: held by the process writing results.
pub const LOCK_FILE: &str = "sweep.lock";

/// One problem of a sweep file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SweepProblem {
    /// 1-based line of the offending key or value; `None` for a missing key or a problem of a
    /// combination of values.
    pub line: Option<usize>,
    /// What is wrong.
    pub kind: SweepProblemKind,
}

impl std::fmt::Display for SweepProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line {
            Some(line) => write!(f, "line {line}: {}", self.kind),
            None => write!(f, "{}", self.kind),
        }
    }
}

/// What is wrong in a sweep file.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SweepProblemKind {
    /// The text is not TOML.
    #[error("not TOML: {message}")]
    Syntax {
        /// The parser's message.
        message: String,
    },
    /// A key the format does not have.
    #[error("unknown key `{key}`")]
    UnknownKey {
        /// The key, with its table (`params.flit`).
        key: String,
    },
    /// A required key is absent.
    #[error("missing key `{key}`")]
    MissingKey {
        /// The key.
        key: String,
    },
    /// A value of the wrong TOML type.
    #[error("`{key}`: expected {expected}")]
    WrongType {
        /// The key.
        key: String,
        /// What was expected.
        expected: &'static str,
    },
    /// A value of the right type that is not allowed.
    #[error("`{key}`: bad value `{value}`: {reason}")]
    BadValue {
        /// The key.
        key: String,
        /// The value as written.
        value: String,
        /// Why it is refused.
        reason: String,
    },
    /// A swept or zipped list with no values.
    #[error("`{key}`: empty list")]
    EmptyList {
        /// The key.
        key: String,
    },
    /// A parameter of another simulator or scheduler.
    #[error("`{key}` is not a parameter of {kind}")]
    NotForKind {
        /// The key, with its table (`params.flits`).
        key: String,
        /// What the sweep runs, as written (`scheduler = "leiserson"`).
        kind: String,
    },
    /// More tasks than a sweep may have.
    #[error("{points} points x {trials} trials is more than the {max} tasks a sweep may have")]
    TooManyTasks {
        /// Grid points.
        points: u64,
        /// Trials per point.
        trials: u64,
        /// The limit, [`MAX_TASKS`].
        max: u64,
    },
    /// Both `simulator` and `scheduler`.
    #[error("give either `simulator` or `scheduler`, not both")]
    BothKinds,
    /// A key in both `[params]` and `[zip]`.
    #[error("`{key}` is in both [params] and [zip]")]
    Duplicate {
        /// The key.
        key: String,
    },
    /// Zipped lists of different lengths.
    #[error("`zip.{key}` has {len} values, the first zipped list {expected}")]
    ZipLength {
        /// The key.
        key: String,
        /// Its length.
        len: usize,
        /// The length of the first zipped list.
        expected: usize,
    },
    /// A grid point whose options the simulator refuses.
    #[error("point {point} ({params}): {reason}")]
    Point {
        /// Index of the point.
        point: u64,
        /// Its parameters, `key=value` separated by spaces.
        params: String,
        /// Why it is refused.
        reason: String,
    },
}

/// A parameter value as written in the sweep file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ParamValue {
    /// An integer.
    Int(u64),
    /// A real number (`rate`, `p`), finite; an integer written for one is stored as a float.
    Float(f64),
    /// A string.
    Str(String),
    /// A flag (`interleave`, `out_the_root`).
    Bool(bool),
}

impl std::fmt::Display for ParamValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ParamValue::Int(i) => write!(f, "{i}"),
            ParamValue::Float(x) => write!(f, "{x}"),
            ParamValue::Str(s) => write!(f, "{s}"),
            ParamValue::Bool(b) => write!(f, "{b}"),
        }
    }
}

/// One finished task: a line of `results.jsonl`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TrialRecord {
    /// Task index, `point · trials + trial`.
    pub task: u64,
    /// Grid point index.
    pub point: u64,
    /// Trial index within the point.
    pub trial: u64,
    /// The trial's seed, `derive_seed(derive_seed(seed, point), trial)`.
    pub seed: u64,
    /// The point's parameters as written in the sweep file.
    pub params: BTreeMap<String, ParamValue>,
    /// The trial's outcome.
    pub result: TrialResult,
}

/// What a sweep runs: `simulator = "packet"`, `simulator = "route"` or
/// `scheduler = "leiserson"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SweepKind {
    /// Greenberg and Oh's packet simulation (`fatnet simulate`).
    Packet,
    /// Greenberg and Leiserson's delivery-cycle routers (`fatnet route`).
    Route,
    /// Leiserson's off-line scheduler, Theorem 1 or Corollary 2 (`fatnet schedule`).
    Schedule,
    /// Stamoulis' dynamic routing under Poisson traffic on the hypercube and the butterfly
    /// (`fatnet simulate hypercube:d=D --arrivals ...`).
    Dynamic,
}

impl SweepKind {
    /// The sweep file's key naming it: `simulator` or `scheduler`.
    pub fn key(self) -> &'static str {
        match self {
            SweepKind::Packet | SweepKind::Route | SweepKind::Dynamic => "simulator",
            SweepKind::Schedule => "scheduler",
        }
    }

    /// Its value in the sweep file.
    pub fn name(self) -> &'static str {
        match self {
            SweepKind::Packet => "packet",
            SweepKind::Route => "route",
            SweepKind::Schedule => "leiserson",
            SweepKind::Dynamic => "dynamic",
        }
    }

    /// The `[params]` keys it takes, alphabetically.
    pub fn params(self) -> &'static [&'static str] {
        match self {
            SweepKind::Packet => &PACKET_PARAMS,
            SweepKind::Route => &ROUTE_PARAMS,
            SweepKind::Schedule => &SCHEDULE_PARAMS,
            SweepKind::Dynamic => &DYNAMIC_PARAMS,
        }
    }

    /// Every kind.
    pub const ALL: [SweepKind; 4] = [
        SweepKind::Packet,
        SweepKind::Route,
        SweepKind::Schedule,
        SweepKind::Dynamic,
    ];

    /// The `[params]` keys a point must have.
    fn required(self) -> &'static [&'static str] {
        match self {
            SweepKind::Dynamic => &["topology", "rate"],
            _ => &["topology", "traffic"],
        }
    }
}

impl std::fmt::Display for SweepKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} = \"{}\"", self.key(), self.name())
    }
}

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

/// How to run a sweep. Options, not results: no field changes the set of result lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SweepOptions {
    /// Continue the results already in the output directory instead of refusing to start.
    pub resume: bool,
    /// Worker threads; `None` for the current rayon pool.
    pub threads: Option<usize>,
    /// Tasks per batch: each batch is written, flushed and fsync'd before the next starts
    /// (at least 1).
    pub batch: usize,
}

impl Default for SweepOptions {
    fn default() -> Self {
        SweepOptions {
            resume: false,
            threads: None,
            batch: 64,
        }
    }
}

/// What [`run_sweep`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SweepRun {
    /// Tasks in the sweep.
    pub total: u64,
    /// Tasks found already finished in the results file.
    pub skipped: u64,
    /// Tasks run now.
    pub ran: u64,
    /// Bytes of a partial last line discarded on resume.
    pub discarded_bytes: u64,
}

/// One grid point, ready to run.
#[derive(Debug)]
struct Point {
    params: BTreeMap<String, ParamValue>,
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

/// A validated sweep: its text, its grid points, trials and seed.
#[derive(Debug)]
pub struct SweepSpec {
    source: String,
    kind: SweepKind,
    trials: u64,
    seed: u64,
    points: Vec<Point>,
    /// The `[zip]` keys, which vary together.
    zip_keys: Vec<String>,
}

const SIMULATORS: [&str; 3] = ["packet", "route", "dynamic"];
const DYNAMIC_PARAMS: [&str; 9] = [
    "arrivals",
    "batches",
    "broadcast",
    "p",
    "rate",
    "router",
    "slots",
    "topology",
    "warmup",
];
const SCHEDULERS: [&str; 1] = ["leiserson"];
const ROUTE_PARAMS: [&str; 12] = [
    "interleave",
    "k",
    "k1",
    "k2",
    "max_cycles",
    "out_the_root",
    "policy",
    "preset",
    "r",
    "router",
    "topology",
    "traffic",
];
const SCHEDULE_PARAMS: [&str; 4] = ["algorithm", "fictitious", "topology", "traffic"];
const PACKET_PARAMS: [&str; 12] = [
    "delay",
    "flits",
    "flow",
    "max_steps",
    "path",
    "priority_range",
    "queue",
    "queueing",
    "scan",
    "sink",
    "topology",
    "traffic",
];

/// 1-based line of byte `offset` of `source`.
fn line_of(source: &str, offset: usize) -> usize {
    source.as_bytes()[..offset.min(source.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// A non-negative integer value, if `value` is one.
fn as_u64(value: &DeValue<'_>) -> Option<u64> {
    value
        .as_integer()
        .and_then(|i| u64::from_str_radix(i.as_str(), i.radix()).ok())
}

/// Collects problems with their lines.
struct Problems<'s> {
    source: &'s str,
    list: Vec<SweepProblem>,
}

impl Problems<'_> {
    fn at(&mut self, span: std::ops::Range<usize>, kind: SweepProblemKind) {
        let line = Some(line_of(self.source, span.start));
        self.list.push(SweepProblem { line, kind });
    }
}

/// A parameter value checked on its own, with its line.
#[derive(Clone, Debug)]
struct Value {
    value: ParamValue,
    line: usize,
}

/// A TOML integer or float as an `f64`.
fn as_f64(value: &DeValue<'_>) -> Option<f64> {
    if let Some(i) = value.as_integer() {
        return i64::from_str_radix(i.as_str(), i.radix())
            .ok()
            .map(|i| i as f64);
    }
    value.as_float()?.as_str().parse().ok()
}

/// Checks one value of parameter `key` on its own (type and range); `kind` picks the choices
/// of a key two kinds share (`router`), and is `None` when the sweep's kind is unknown.
fn check_value(
    key: &str,
    v: &Spanned<DeValue<'_>>,
    kind: Option<SweepKind>,
    problems: &mut Problems<'_>,
) -> Option<Value> {
    let span = v.span();
    let line = line_of(problems.source, span.start);
    let bad = |value: String, reason: &str| SweepProblemKind::BadValue {
        key: format!("params.{key}"),
        value,
        reason: reason.to_string(),
    };
    let choices: Option<&[&str]> = match key {
        "queueing" => Some(Queueing::NAMES),
        "flow" => Some(FlowControl::NAMES),
        "path" => Some(PathPolicy::NAMES),
        "scan" => Some(ScanOrder::NAMES),
        "sink" => Some(SinkModel::NAMES),
        "router" => Some(match kind {
            Some(SweepKind::Dynamic) => DynamicRouter::NAMES,
            Some(_) | None => RouterKind::NAMES,
        }),
        "arrivals" => Some(Arrivals::NAMES),
        "broadcast" => Some(BroadcastScheme::NAMES),
        "policy" => Some(DropPolicy::NAMES),
        "preset" => Some(RandomPreset::NAMES),
        "algorithm" => Some(Scheduler::NAMES),
        "fictitious" => Some(FictitiousCapacity::NAMES),
        _ => None,
    };
    let wrong = |expected| SweepProblemKind::WrongType {
        key: format!("params.{key}"),
        expected,
    };
    let value = match key {
        "topology" | "traffic" => {
            let Some(s) = v.get_ref().as_str() else {
                problems.at(span, wrong("a string (a spec)"));
                return None;
            };
            let parsed = if key == "topology" {
                s.parse::<Network>().err().map(|e| e.to_string())
            } else {
                s.parse::<TrafficSpec>().err().map(|e| e.to_string())
            };
            if let Some(reason) = parsed {
                problems.at(span, bad(s.to_string(), &reason));
                return None;
            }
            ParamValue::Str(s.to_string())
        }
        "queue" => match (as_u64(v.get_ref()), v.get_ref().as_str()) {
            (Some(q), _) if q >= 1 && u32::try_from(q).is_ok() => ParamValue::Int(q),
            (_, Some("unbounded")) => ParamValue::Str("unbounded".into()),
            _ => {
                problems.at(span, wrong("an integer >= 1 or \"unbounded\""));
                return None;
            }
        },
        "interleave" | "out_the_root" => match v.get_ref().as_bool() {
            Some(b) => ParamValue::Bool(b),
            None => {
                problems.at(span, wrong("true or false"));
                return None;
            }
        },
        "k1" | "k2" | "r" => match as_f64(v.get_ref()) {
            Some(x) => ParamValue::Float(x),
            None => {
                problems.at(span, wrong("a number"));
                return None;
            }
        },
        // Ranges and defaults are the scenario's (`DynamicOptions::resolve`).
        "rate" | "p" | "slots" | "warmup" => match (as_u64(v.get_ref()), as_f64(v.get_ref())) {
            // Whole slots stay integers, as written.
            (Some(n), _) if matches!(key, "slots" | "warmup") => ParamValue::Int(n),
            (_, Some(x)) => ParamValue::Float(x),
            (_, None) => {
                problems.at(span, wrong("a number"));
                return None;
            }
        },
        // Ranges are the scenario's (each point's options are resolved as the command resolves
        // them, and a refusal names the parameter's line).
        "flits" | "delay" | "priority_range" | "max_steps" | "max_cycles" | "k" | "batches" => {
            let Some(n) = as_u64(v.get_ref()) else {
                problems.at(span, wrong("a non-negative integer"));
                return None;
            };
            ParamValue::Int(n)
        }
        _ => {
            let choices = choices.expect("every parameter is handled");
            let Some(s) = v.get_ref().as_str() else {
                problems.at(span, wrong("a string"));
                return None;
            };
            if !choices.contains(&s) {
                let reason = format!("expected one of {}", choices.join(", "));
                problems.at(span, bad(s.to_string(), &reason));
                return None;
            }
            ParamValue::Str(s.to_string())
        }
    };
    Some(Value { value, line })
}

/// The values of a `[params]` or `[zip]` entry: a list, or (in `[params]`) one scalar. With
/// `kind` unknown (a bad or missing `simulator`), any simulator's or scheduler's key is taken.
fn check_entry(
    table: &str,
    key: &Spanned<std::borrow::Cow<'_, str>>,
    value: &Spanned<DeValue<'_>>,
    kind: Option<SweepKind>,
    problems: &mut Problems<'_>,
) -> Option<Vec<Value>> {
    let name = key.get_ref().as_ref();
    let known = SweepKind::ALL.iter().any(|k| k.params().contains(&name));
    if !known {
        problems.at(
            key.span(),
            SweepProblemKind::UnknownKey {
                key: format!("{table}.{name}"),
            },
        );
        return None;
    }
    if let Some(kind) = kind
        && !kind.params().contains(&name)
    {
        problems.at(
            key.span(),
            SweepProblemKind::NotForKind {
                key: format!("{table}.{name}"),
                kind: kind.to_string(),
            },
        );
        return None;
    }
    match value.get_ref() {
        DeValue::Array(items) => {
            if items.is_empty() {
                problems.at(
                    value.span(),
                    SweepProblemKind::EmptyList {
                        key: format!("{table}.{name}"),
                    },
                );
                return None;
            }
            let checked: Vec<Option<Value>> = items
                .iter()
                .map(|item| check_value(name, item, kind, problems))
                .collect();
            checked.into_iter().collect()
        }
        _ if table == "zip" => {
            problems.at(
                value.span(),
                SweepProblemKind::WrongType {
                    key: format!("zip.{name}"),
                    expected: "a list",
                },
            );
            None
        }
        _ => check_value(name, value, kind, problems).map(|v| vec![v]),
    }
}

impl SweepSpec {
    /// Parses and validates a sweep file, and prepares every grid point (builds its topology
    /// and checks its traffic on it).
    ///
    /// # Errors
    ///
    /// [`ReproError::InvalidSweep`] listing every problem found, sorted by line.
    pub fn parse(source: &str) -> Result<SweepSpec, ReproError> {
        let mut problems = Problems {
            source,
            list: Vec::new(),
        };
        let root = match DeTable::parse(source) {
            Ok(root) => root,
            Err(e) => {
                let span = e.span().unwrap_or(0..0);
                problems.at(
                    span,
                    SweepProblemKind::Syntax {
                        message: e.message().trim().to_string(),
                    },
                );
                return Err(ReproError::InvalidSweep {
                    problems: problems.list,
                });
            }
        };
        let root = root.get_ref();
        let mut trials = None;
        let mut seed = None;
        let mut params: Option<BTreeMap<String, Vec<Value>>> = None;
        let mut zip: BTreeMap<String, Vec<Value>> = BTreeMap::new();
        let mut zip_len: Option<usize> = None;
        let kind_of = |key: &str, names: &[&str]| {
            root.get(key)
                .and_then(|v| v.get_ref().as_str())
                .filter(|s| names.contains(s))
                .map(|s| match s {
                    "packet" => SweepKind::Packet,
                    "route" => SweepKind::Route,
                    "dynamic" => SweepKind::Dynamic,
                    _ => SweepKind::Schedule,
                })
        };
        let kind = match (root.get("simulator"), root.get("scheduler")) {
            (Some(_), None) => kind_of("simulator", &SIMULATORS),
            (None, Some(_)) => kind_of("scheduler", &SCHEDULERS),
            _ => None,
        };
        let mut params_spans: BTreeMap<String, std::ops::Range<usize>> = BTreeMap::new();
        for (key, value) in root.iter() {
            let name = key.get_ref().as_ref();
            let wrong = |expected| SweepProblemKind::WrongType {
                key: name.to_string(),
                expected,
            };
            match name {
                "simulator" | "scheduler" => {
                    let names: &[&str] = if name == "simulator" {
                        &SIMULATORS
                    } else {
                        &SCHEDULERS
                    };
                    match value.get_ref().as_str() {
                        Some(s) if names.contains(&s) => {}
                        Some(s) => problems.at(
                            value.span(),
                            SweepProblemKind::BadValue {
                                key: name.into(),
                                value: s.into(),
                                reason: format!("expected one of {}", names.join(", ")),
                            },
                        ),
                        None => problems.at(value.span(), wrong("a string")),
                    }
                    if name == "scheduler" && root.get("simulator").is_some() {
                        problems.at(key.span(), SweepProblemKind::BothKinds);
                    }
                }
                "trials" => match as_u64(value.get_ref()) {
                    Some(n) if n >= 1 => trials = Some(n),
                    _ => problems.at(value.span(), wrong("an integer >= 1")),
                },
                "seed" => match as_u64(value.get_ref()) {
                    Some(n) => seed = Some(n),
                    None => problems.at(value.span(), wrong("a non-negative integer")),
                },
                "params" | "zip" => {
                    let Some(table) = value.get_ref().as_table() else {
                        problems.at(value.span(), wrong("a table"));
                        continue;
                    };
                    let mut checked = BTreeMap::new();
                    for (k, v) in table.iter() {
                        if name == "params" {
                            params_spans.insert(k.get_ref().to_string(), k.span());
                        }
                        if let Some(values) = check_entry(name, k, v, kind, &mut problems) {
                            checked.insert(k.get_ref().to_string(), values);
                        }
                    }
                    if name == "params" {
                        params = Some(checked);
                    } else {
                        for (k, v) in table.iter() {
                            let Some(values) = checked.get(k.get_ref().as_ref()) else {
                                continue;
                            };
                            match zip_len {
                                None => zip_len = Some(values.len()),
                                Some(expected) if expected != values.len() => problems.at(
                                    v.span(),
                                    SweepProblemKind::ZipLength {
                                        key: k.get_ref().to_string(),
                                        len: values.len(),
                                        expected,
                                    },
                                ),
                                Some(_) => {}
                            }
                        }
                        zip = checked;
                    }
                }
                _ => problems.at(
                    key.span(),
                    SweepProblemKind::UnknownKey {
                        key: name.to_string(),
                    },
                ),
            }
        }
        let mut missing = |key: &str| {
            problems.list.push(SweepProblem {
                line: None,
                kind: SweepProblemKind::MissingKey { key: key.into() },
            })
        };
        if root.get("simulator").is_none() && root.get("scheduler").is_none() {
            missing("simulator (or scheduler)");
        }
        if root.get("trials").is_none() {
            missing("trials");
        }
        if root.get("seed").is_none() {
            missing("seed");
        }
        if root.get("params").is_none() {
            missing("params");
        }
        let required: &[&str] = kind.map_or(&["topology", "traffic"], SweepKind::required);
        for &key in required {
            let in_params = params_spans.contains_key(key);
            let in_zip = root
                .get("zip")
                .and_then(|z| z.get_ref().as_table())
                .is_some_and(|z| z.get(key).is_some());
            if root.get("params").is_some() && !in_params && !in_zip {
                missing(&format!("params.{key}"));
            }
        }
        for (key, span) in &params_spans {
            if zip.contains_key(key) {
                problems.at(
                    span.clone(),
                    SweepProblemKind::Duplicate { key: key.clone() },
                );
            }
        }
        if !problems.list.is_empty() {
            problems.list.sort_by_key(|p| p.line.unwrap_or(usize::MAX));
            return Err(ReproError::InvalidSweep {
                problems: problems.list,
            });
        }
        let (trials, seed, params) = (
            trials.expect("checked"),
            seed.expect("checked"),
            params.expect("checked"),
        );
        let kind = kind.expect("checked: one valid simulator or scheduler");
        // Count the grid before building it: a huge grid or trial count is refused, not run
        // out of memory on.
        let grid: u64 = params
            .values()
            .map(|v| v.len() as u64)
            .chain(std::iter::once(zip_len.unwrap_or(1) as u64))
            .try_fold(1u64, |acc, n| acc.checked_mul(n))
            .unwrap_or(u64::MAX);
        if grid.checked_mul(trials).is_none_or(|t| t > MAX_TASKS) {
            problems.list.push(SweepProblem {
                line: root.get("trials").map(|v| line_of(source, v.span().start)),
                kind: SweepProblemKind::TooManyTasks {
                    points: grid,
                    trials,
                    max: MAX_TASKS,
                },
            });
            return Err(ReproError::InvalidSweep {
                problems: problems.list,
            });
        }
        let points = expand(&params, &zip, zip_len.unwrap_or(1));
        let prepared = prepare(kind, points, seed, &mut problems);
        if !problems.list.is_empty() {
            problems.list.sort_by_key(|p| p.line.unwrap_or(usize::MAX));
            return Err(ReproError::InvalidSweep {
                problems: problems.list,
            });
        }
        Ok(SweepSpec {
            source: source.to_string(),
            kind,
            trials,
            seed,
            points: prepared,
            zip_keys: zip.keys().cloned().collect(),
        })
    }

    /// Reads and validates a sweep file.
    ///
    /// # Errors
    ///
    /// [`ReproError::Io`] if the file cannot be read; otherwise as [`SweepSpec::parse`].
    pub fn from_file(path: &Path) -> Result<SweepSpec, ReproError> {
        let source = fs::read_to_string(path).map_err(|source| ReproError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        SweepSpec::parse(&source)
    }

    /// Number of grid points.
    pub fn points(&self) -> u64 {
        self.points.len() as u64
    }

    /// Trials per grid point.
    pub fn trials(&self) -> u64 {
        self.trials
    }

    /// Number of tasks, points × trials.
    pub fn tasks(&self) -> u64 {
        self.points() * self.trials
    }

    /// The parameters of grid point `point`, as written in the file.
    pub fn params(&self, point: u64) -> Option<&BTreeMap<String, ParamValue>> {
        self.points
            .get(usize::try_from(point).ok()?)
            .map(|p| &p.params)
    }

    /// What the sweep runs.
    pub fn kind(&self) -> SweepKind {
        self.kind
    }

    /// The master seed.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The swept parameters, alphabetically: every key taking more than one value over the
    /// grid points.
    pub fn swept(&self) -> Vec<String> {
        let Some(first) = self.points.first() else {
            return Vec::new();
        };
        first
            .params
            .iter()
            .filter(|(k, v)| self.points.iter().any(|p| p.params.get(*k) != Some(*v)))
            .map(|(k, _)| k.clone())
            .collect()
    }

    /// The `[zip]` keys (they vary together, as one dimension of the grid).
    pub fn zip_keys(&self) -> &[String] {
        &self.zip_keys
    }

    /// The seed of task `task`: `derive_seed(derive_seed(seed, point), trial)`.
    pub fn task_seed(&self, task: u64) -> u64 {
        let (point, trial) = (task / self.trials, task % self.trials);
        derive_seed(derive_seed(self.seed, point), trial)
    }

    /// The sweep file's text, exactly as parsed.
    pub fn source(&self) -> &str {
        &self.source
    }

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

    /// Runs task `task`.
    fn run_task(&self, task: u64) -> Result<TrialRecord, ReproError> {
        if task >= self.tasks() {
            return Err(ReproError::SweepTask {
                task,
                reason: format!("no such task: the sweep has {}", self.tasks()),
            });
        }
        let (point, trial) = (task / self.trials, task % self.trials);
        let p = &self.points[point as usize];
        let seed = self.task_seed(task);
        let fail = |reason: String| ReproError::SweepTask { task, reason };
        let result = match &p.job {
            // The scenario seeds its simulator itself, from the trial seed.
            Job::Packet(prepared) => prepared
                .trial(seed)
                .map(TrialResult::Packet)
                .map_err(|e| fail(fatnet::scenario::one_line(&e)))?,
            Job::Schedule(prepared) => prepared
                .trial(seed)
                .map(TrialResult::Schedule)
                .map_err(|e| fail(fatnet::scenario::one_line(&e)))?,
            Job::Route(prepared) => prepared
                .trial(seed)
                .map(TrialResult::Route)
                .map_err(|e| fail(fatnet::scenario::one_line(&e)))?,
            Job::Dynamic(prepared) => prepared
                .trial(seed)
                .map(TrialResult::Dynamic)
                .map_err(|e| fail(fatnet::scenario::one_line(&e)))?,
        };
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

/// The grid: the cross product of `params` (alphabetical keys, last fastest), then the zip
/// index.
fn expand(
    params: &BTreeMap<String, Vec<Value>>,
    zip: &BTreeMap<String, Vec<Value>>,
    zip_len: usize,
) -> Vec<BTreeMap<String, Value>> {
    let mut points = vec![BTreeMap::new()];
    for (key, values) in params {
        points = points
            .into_iter()
            .flat_map(|p| {
                values.iter().map(move |v| {
                    let mut p = p.clone();
                    p.insert(key.clone(), v.clone());
                    p
                })
            })
            .collect();
    }
    points
        .into_iter()
        .flat_map(|p| {
            (0..zip_len).map(move |z| {
                let mut p = p.clone();
                for (key, values) in zip {
                    p.insert(key.clone(), values[z].clone());
                }
                p
            })
        })
        .collect()
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
fn prepare(
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
        let str_of = |key: &str| match values.get(key).map(|v| &v.value) {
            Some(ParamValue::Str(s)) => Some(s.as_str()),
            _ => None,
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
        let topology = str_of("topology").expect("required");
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
        let job = match net {
            Built::Packet(net) => {
                // The options deserialise into the command's own struct, and the scenario
                // resolves them as `fatnet simulate` does.
                let prepared = scenario_of(&values).and_then(|(topology, traffic, options)| {
                    PacketScenario {
                        topology,
                        traffic,
                        options,
                    }
                    .prepare_on(net, derive_seed(seed, point))
                    .map_err(|e| blame(&e))
                });
                match prepared {
                    Ok(prepared) => {
                        prepared_points.push(Point {
                            params,
                            job: Job::Packet(prepared),
                        });
                    }
                    Err((key, reason)) => point_problem(key, reason),
                }
                continue;
            }
            Built::Tree(tree) if kind == SweepKind::Schedule => {
                // As `fatnet schedule` does; trial 0 runs now, so that Corollary 2's
                // capacity condition is checked before any work starts.
                let point_seed = derive_seed(seed, point);
                let prepared = scenario_of(&values).and_then(|(topology, traffic, options)| {
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
                });
                match prepared {
                    Ok(prepared) => {
                        prepared_points.push(Point {
                            params,
                            job: Job::Schedule(prepared),
                        });
                    }
                    Err((key, reason)) => point_problem(key, reason),
                }
                continue;
            }
            Built::Tree(tree) if kind == SweepKind::Route => {
                let prepared = scenario_of(&values).and_then(|(topology, traffic, options)| {
                    RouteScenario {
                        topology,
                        traffic,
                        options,
                    }
                    .prepare_on(tree, derive_seed(seed, point))
                    .map_err(|e| blame(&e))
                });
                match prepared {
                    Ok(prepared) => {
                        prepared_points.push(Point {
                            params,
                            job: Job::Route(prepared),
                        });
                    }
                    Err((key, reason)) => point_problem(key, reason),
                }
                continue;
            }
            Built::Dynamic(topology) => {
                // The options deserialise into `fatnet simulate --arrivals`'s own struct.
                let prepared = options_of(&values).and_then(|options| {
                    DynamicScenario { topology, options }
                        .prepare()
                        .map_err(|e| blame(&e))
                });
                match prepared {
                    Ok(prepared) => Job::Dynamic(prepared),
                    Err((key, reason)) => {
                        point_problem(key, reason);
                        continue;
                    }
                }
            }
            Built::Tree(_) => unreachable!("route and schedule points are handled above"),
        };
        prepared_points.push(Point { params, job });
    }
    prepared_points
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
    let text = |key: &str| match values.get(key).map(|v| &v.value) {
        Some(ParamValue::Str(s)) => s.clone(),
        _ => String::new(),
    };
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
        ScenarioError::Topology { .. } | ScenarioError::WrongTopology { .. } => Some("topology"),
        ScenarioError::Schedule { .. } => Some("algorithm"),
        // The engine's own refusals (`PacketConfig::validate`) name a parameter in words.
        ScenarioError::Options {
            source: fatnet::online::packet::PacketError::BadParameter { param, .. },
        } => param
            .replace(' ', "_")
            .parse::<fatnet::scenario::Parameter>()
            .ok()
            .map(|p| p.name()),
        _ => None,
    };
    (key, fatnet::scenario::one_line(e))
}

fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> ReproError + '_ {
    move |source| ReproError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// The complete records of a results file's text `bytes` (a partial last line is ignored),
/// checked against `spec`: every line a record of this sweep, no task twice.
fn parse_records(
    spec: &SweepSpec,
    path: &Path,
    bytes: &[u8],
) -> Result<Vec<TrialRecord>, ReproError> {
    let complete = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let mut seen = vec![false; usize::try_from(spec.tasks()).expect("tasks fit in memory")];
    let mut records = Vec::new();
    for (index, line) in bytes[..complete].split(|&b| b == b'\n').enumerate() {
        if line.is_empty() {
            continue;
        }
        let corrupt = || ReproError::CorruptResults {
            path: path.to_path_buf(),
            line: index + 1,
        };
        let record: TrialRecord = serde_json::from_slice(line).map_err(|_| corrupt())?;
        let consistent = record.task < spec.tasks()
            && record.point == record.task / spec.trials
            && record.trial == record.task % spec.trials
            && record.seed == spec.task_seed(record.task)
            && spec.params(record.point) == Some(&record.params)
            && record.result.kind() == spec.kind;
        if !consistent {
            return Err(corrupt());
        }
        if std::mem::replace(&mut seen[record.task as usize], true) {
            return Err(ReproError::DuplicateTask {
                path: path.to_path_buf(),
                line: index + 1,
                task: record.task,
            });
        }
        records.push(record);
    }
    Ok(records)
}

/// Reads the finished tasks of `path`, truncating a partial last line; returns the done flags
/// and the number of bytes discarded.
fn read_done(spec: &SweepSpec, path: &Path) -> Result<(Vec<bool>, u64), ReproError> {
    let total = usize::try_from(spec.tasks()).expect("tasks fit in memory");
    let mut done = vec![false; total];
    let mut file = match OpenOptions::new().read(true).write(true).open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((done, 0)),
        Err(e) => return Err(io_error(path)(e)),
    };
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes).map_err(io_error(path))?;
    let records = parse_records(spec, path, &bytes)?;
    let complete = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let discarded = (bytes.len() - complete) as u64;
    if discarded > 0 {
        file.set_len(complete as u64).map_err(io_error(path))?;
        file.sync_all().map_err(io_error(path))?;
    }
    for record in records {
        done[record.task as usize] = true;
    }
    Ok((done, discarded))
}

/// A sweep's results as found in its output directory, read without changing anything.
#[derive(Debug)]
pub struct SweepResults {
    /// The sweep, parsed from the directory's copy of the sweep file.
    pub spec: SweepSpec,
    /// The finished tasks' records, sorted by task.
    pub records: Vec<TrialRecord>,
    /// Bytes of a partial last line (an interrupted write), ignored; `resume` discards them.
    pub partial_bytes: u64,
}

/// Reads the results of the sweep in `out_dir` (its `sweep.toml` and `results.jsonl`) without
/// modifying them: a partial last line is ignored and counted, not truncated.
///
/// # Errors
///
/// - [`ReproError::Io`] if `out_dir/sweep.toml` or `out_dir/results.jsonl` cannot be read
///   (for instance: `out_dir` is not a sweep's output directory).
/// - [`ReproError::InvalidSweep`] if the copy of the sweep file no longer validates.
/// - [`ReproError::CorruptResults`] or [`ReproError::DuplicateTask`] if a complete line is not
///   a record of this sweep or repeats a task.
pub fn read_results(out_dir: &Path) -> Result<SweepResults, ReproError> {
    let spec = SweepSpec::from_file(&out_dir.join(SWEEP_FILE))?;
    let path = out_dir.join(RESULTS_FILE);
    let bytes = fs::read(&path).map_err(io_error(&path))?;
    let mut records = parse_records(&spec, &path, &bytes)?;
    records.sort_by_key(|r| r.task);
    let complete = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    Ok(SweepResults {
        spec,
        records,
        partial_bytes: (bytes.len() - complete) as u64,
    })
}

/// Where a sweep's tasks run: this process's threads ([`LocalTasks`]) or, in `fatnet-cli`
/// built with the `mpi` feature, the ranks of an MPI job. [`run_sweep_with`] hands it one batch
/// at a time and writes what it returns; a runner only computes.
pub trait TaskRunner {
    /// Runs `tasks` (ascending task indices of `spec`) and returns one outcome per task, in the
    /// same order: the task's line of `results.jsonl` ([`SweepSpec::run_task_line`], newline
    /// included) or its error.
    ///
    /// # Errors
    ///
    /// An error of the runner itself (not of a task), such as a failed transfer between
    /// processes; the sweep stops after writing nothing of this batch.
    fn run_tasks(
        &mut self,
        spec: &SweepSpec,
        tasks: &[u64],
    ) -> Result<Vec<Result<Vec<u8>, ReproError>>, ReproError>;
}

/// Runs tasks on this process's threads: a rayon pool of a given size, or the current pool.
#[derive(Debug)]
pub struct LocalTasks {
    pool: Option<rayon::ThreadPool>,
}

impl LocalTasks {
    /// Runs on `threads` worker threads, or on the current rayon pool (all cores unless
    /// configured otherwise) for `None`. A pool that cannot be built falls back to the current
    /// one: the thread count never changes a result.
    pub fn new(threads: Option<usize>) -> LocalTasks {
        LocalTasks {
            pool: threads.and_then(|n| {
                rayon::ThreadPoolBuilder::new()
                    .num_threads(n.max(1))
                    .build()
                    .ok()
            }),
        }
    }

    /// Runs `tasks` of `spec` in parallel; one outcome per task, in order.
    pub fn run(&self, spec: &SweepSpec, tasks: &[u64]) -> Vec<Result<Vec<u8>, ReproError>> {
        let work = || tasks.par_iter().map(|&t| spec.run_task_line(t)).collect();
        match &self.pool {
            Some(pool) => pool.install(work),
            None => work(),
        }
    }
}

impl TaskRunner for LocalTasks {
    fn run_tasks(
        &mut self,
        spec: &SweepSpec,
        tasks: &[u64],
    ) -> Result<Vec<Result<Vec<u8>, ReproError>>, ReproError> {
        Ok(self.run(spec, tasks))
    }
}

/// Runs a sweep into `out_dir` (created if needed), appending to `out_dir/results.jsonl`, on
/// [`SweepOptions::threads`] threads of this process. See [`run_sweep_with`].
///
/// # Errors
///
/// As [`run_sweep_with`].
pub fn run_sweep(
    spec: &SweepSpec,
    out_dir: &Path,
    options: &SweepOptions,
) -> Result<SweepRun, ReproError> {
    run_sweep_with(
        spec,
        out_dir,
        options,
        &mut LocalTasks::new(options.threads),
        &mut |_| {},
    )
}

/// Runs a sweep into `out_dir` (created if needed), appending to `out_dir/results.jsonl`: the
/// missing tasks, in ascending order, in batches of [`SweepOptions::batch`] handed to `runner`;
/// each batch's lines are written in task order, flushed and fsync'd before the next batch
/// starts. `progress` is called once before the first batch and after every batch with the
/// counts so far. [`SweepOptions::threads`] is ignored: the runner decides where tasks run.
///
/// # Errors
///
/// - [`ReproError::SweepBusy`] if another process is writing into `out_dir` (it holds
///   `out_dir/sweep.lock`).
/// - [`ReproError::ResultsExist`] if `out_dir` already holds results and `options.resume` is
///   false: nothing is written (but the lock file).
/// - [`ReproError::SweepChanged`] on resume when `out_dir/sweep.toml` is another sweep.
/// - [`ReproError::CorruptResults`] or [`ReproError::DuplicateTask`] on resume when a
///   complete line is not a record of this sweep or repeats a task.
/// - [`ReproError::SweepTask`] when a trial fails (the lowest such task of its batch; the
///   batch's finished tasks are written first).
/// - [`ReproError::Io`] when a file cannot be read or written.
/// - The runner's own errors.
pub fn run_sweep_with(
    spec: &SweepSpec,
    out_dir: &Path,
    options: &SweepOptions,
    runner: &mut dyn TaskRunner,
    progress: &mut dyn FnMut(&SweepRun),
) -> Result<SweepRun, ReproError> {
    let results = out_dir.join(RESULTS_FILE);
    let copy = out_dir.join(SWEEP_FILE);
    fs::create_dir_all(out_dir).map_err(io_error(out_dir))?;
    // One writer per directory: a second `run` or `resume` on it is refused, never interleaved.
    // The operating system drops the lock when the process dies, even by SIGKILL.
    let lock_path = out_dir.join(LOCK_FILE);
    let lock = OpenOptions::new()
        .create(true)
        .write(true)
        .truncate(false)
        .open(&lock_path)
        .map_err(io_error(&lock_path))?;
    match lock.try_lock() {
        Ok(()) => {}
        Err(std::fs::TryLockError::WouldBlock) => {
            return Err(ReproError::SweepBusy {
                path: out_dir.to_path_buf(),
            });
        }
        Err(std::fs::TryLockError::Error(e)) => return Err(io_error(&lock_path)(e)),
    }
    let has_results = fs::metadata(&results).is_ok_and(|m| m.len() > 0);
    if has_results && !options.resume {
        return Err(ReproError::ResultsExist { path: results });
    }
    let existing = match fs::read_to_string(&copy) {
        Ok(text) => Some(text),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(io_error(&copy)(e)),
    };
    if options.resume
        && let Some(text) = &existing
        && *text != spec.source
    {
        return Err(ReproError::SweepChanged { path: copy });
    }
    if existing.as_deref() != Some(spec.source.as_str()) {
        // Atomically: a crash never leaves a torn copy, which `resume` would take for another
        // sweep.
        crate::write_atomically(&copy, spec.source.as_bytes())?;
    }
    let (done, discarded_bytes) = read_done(spec, &results)?;
    let mut file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(&results)
        .map_err(io_error(&results))?;
    if let Ok(dir) = File::open(out_dir) {
        // Make the new directory entries durable; not every platform can sync a directory.
        let _ = dir.sync_all();
    }
    let pending: Vec<u64> = (0..spec.tasks()).filter(|&t| !done[t as usize]).collect();
    let mut run = SweepRun {
        total: spec.tasks(),
        skipped: spec.tasks() - pending.len() as u64,
        ran: 0,
        discarded_bytes,
    };
    progress(&run);
    for batch in pending.chunks(options.batch.max(1)) {
        let outcomes = runner.run_tasks(spec, batch)?;
        let mut buffer = Vec::new();
        let mut first_error = None;
        for outcome in outcomes {
            match outcome {
                Ok(line) => {
                    buffer.extend_from_slice(&line);
                    run.ran += 1;
                }
                Err(e) => {
                    first_error.get_or_insert(e);
                }
            }
        }
        file.write_all(&buffer)
            .and_then(|()| file.sync_data())
            .map_err(io_error(&results))?;
        if let Some(e) = first_error {
            return Err(e);
        }
        progress(&run);
    }
    Ok(run)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_one_based() {
        let s = "a\nbc\n\nd";
        assert_eq!(line_of(s, 0), 1);
        assert_eq!(line_of(s, 2), 2);
        assert_eq!(line_of(s, 6), 4);
    }

    #[test]
    fn grid_is_the_cross_product_then_the_zip() {
        let v = |n| Value {
            value: ParamValue::Int(n),
            line: 1,
        };
        let params = BTreeMap::from([
            ("a".to_string(), vec![v(1), v(2)]),
            ("b".to_string(), vec![v(3), v(4), v(5)]),
        ]);
        let zip = BTreeMap::from([
            ("c".to_string(), vec![v(6), v(7)]),
            ("d".to_string(), vec![v(8), v(9)]),
        ]);
        let points = expand(&params, &zip, 2);
        assert_eq!(points.len(), 12);
        let key = |p: &BTreeMap<String, Value>| {
            ["a", "b", "c", "d"].map(|k| match p[k].value {
                ParamValue::Int(n) => n,
                _ => unreachable!(),
            })
        };
        assert_eq!(key(&points[0]), [1, 3, 6, 8]);
        assert_eq!(key(&points[1]), [1, 3, 7, 9]);
        assert_eq!(key(&points[2]), [1, 4, 6, 8]);
        assert_eq!(key(&points[11]), [2, 5, 7, 9]);
    }
}
