//! Parameter sweeps from a TOML file, with results that survive interruption (issue 8, step 1).
//!
//! **Key design decision: a task's result is a function of its index and the sweep file
//! only.** The file expands to a fixed list of grid points; task `k = point · trials + trial`
//! runs trial `trial` of point `point` with the seed
//! `derive_seed(derive_seed(seed, point), trial)`, exactly trial `trial` of
//! `fatnet simulate --seed derive_seed(seed, point)` with that point's options. So the set of
//! finished tasks, not the order they finished in, defines `results.jsonl`: any thread count
//! and any interruption followed by `resume` give the same lines, up to their order.
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
//! Parameters (the keys and values of `fatnet simulate`, with its defaults): `topology` and
//! `traffic` (specs, required), `queueing` (`input`, `output`), `flow` (`worm`, `store`,
//! `split`), `path` (`rp`, `gp`, `fp`, `dor`), `scan` (`rr`, `fo`, `ff`, `oldest`, `prio`),
//! `priority_range`, `flits`, `queue` (an integer or `"unbounded"`), `sink` (`queue`,
//! `immediate`), `delay` and `max_steps`. Points are the cross product of the `[params]` keys in
//! alphabetical order (the last key varying fastest), with the `[zip]` index as one more, last,
//! dimension. Broadcast traffic is not supported yet.
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
//! line (a crash during a write) and runs only the missing tasks.

use std::collections::BTreeMap;
use std::fs::{self, File, OpenOptions};
use std::io::{Read, Write};
use std::path::Path;
use std::sync::Arc;

use fatnet::online::packet::{
    FlowControl, PacketConfig, PacketNet, PacketReport, PathPolicy, QueueCapacity, Queueing,
    ScanPolicy, SinkModel, batch_trial,
};
use fatnet::topology::TopologySpec;
use fatnet::traffic::{MessageSet, TrafficSpec};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use toml::Spanned;
use toml::de::{DeTable, DeValue};

use crate::{ReproError, derive_seed};

/// Name of the results file in the output directory.
pub const RESULTS_FILE: &str = "results.jsonl";
/// Name of the copy of the sweep file in the output directory.
pub const SWEEP_FILE: &str = "sweep.toml";

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
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ParamValue {
    /// An integer.
    Int(u64),
    /// A string.
    Str(String),
}

impl std::fmt::Display for ParamValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ParamValue::Int(i) => write!(f, "{i}"),
            ParamValue::Str(s) => write!(f, "{s}"),
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
    /// The simulation's report.
    pub result: PacketReport,
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
    net: Arc<PacketNet>,
    traffic: TrafficSpec,
    /// The pattern, when it is not randomized (made once from the point's seed).
    fixed: Option<MessageSet>,
    config: PacketConfig,
    delay: u32,
}

/// A validated sweep: its text, its grid points, trials and seed.
#[derive(Debug)]
pub struct SweepSpec {
    source: String,
    trials: u64,
    seed: u64,
    points: Vec<Point>,
    /// The `[zip]` keys, which vary together.
    zip_keys: Vec<String>,
}

const SIMULATORS: [&str; 1] = ["packet"];
const PARAMS: [&str; 12] = [
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

/// Checks one value of parameter `key` on its own (type and range).
fn check_value(key: &str, v: &Spanned<DeValue<'_>>, problems: &mut Problems<'_>) -> Option<Value> {
    let span = v.span();
    let line = line_of(problems.source, span.start);
    let bad = |value: String, reason: &str| SweepProblemKind::BadValue {
        key: format!("params.{key}"),
        value,
        reason: reason.to_string(),
    };
    let choices: Option<&[&str]> = match key {
        "queueing" => Some(&["input", "output"]),
        "flow" => Some(&["worm", "store", "split"]),
        "path" => Some(&["rp", "gp", "fp", "dor"]),
        "scan" => Some(&["rr", "fo", "ff", "oldest", "prio"]),
        "sink" => Some(&["queue", "immediate"]),
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
                s.parse::<TopologySpec>().err().map(|e| e.to_string())
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
        "flits" | "delay" | "priority_range" | "max_steps" => {
            let Some(n) = as_u64(v.get_ref()) else {
                problems.at(span, wrong("a non-negative integer"));
                return None;
            };
            let max = match key {
                "flits" => u64::from(u16::MAX),
                "max_steps" => u64::MAX,
                _ => u64::from(u32::MAX),
            };
            if !(1..=max).contains(&n) {
                problems.at(span, bad(n.to_string(), &format!("expected 1 to {max}")));
                return None;
            }
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

/// The values of a `[params]` or `[zip]` entry: a list, or (in `[params]`) one scalar.
fn check_entry(
    table: &str,
    key: &Spanned<std::borrow::Cow<'_, str>>,
    value: &Spanned<DeValue<'_>>,
    problems: &mut Problems<'_>,
) -> Option<Vec<Value>> {
    let name = key.get_ref().as_ref();
    if !PARAMS.contains(&name) {
        problems.at(
            key.span(),
            SweepProblemKind::UnknownKey {
                key: format!("{table}.{name}"),
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
                .map(|item| check_value(name, item, problems))
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
        _ => check_value(name, value, problems).map(|v| vec![v]),
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
        let mut has_simulator = false;
        let mut params_spans: BTreeMap<String, std::ops::Range<usize>> = BTreeMap::new();
        for (key, value) in root.iter() {
            let name = key.get_ref().as_ref();
            let wrong = |expected| SweepProblemKind::WrongType {
                key: name.to_string(),
                expected,
            };
            match name {
                "simulator" => {
                    has_simulator = true;
                    match value.get_ref().as_str() {
                        Some(s) if SIMULATORS.contains(&s) => {}
                        Some(s) => problems.at(
                            value.span(),
                            SweepProblemKind::BadValue {
                                key: name.into(),
                                value: s.into(),
                                reason: format!("expected one of {}", SIMULATORS.join(", ")),
                            },
                        ),
                        None => problems.at(value.span(), wrong("a string")),
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
                        if let Some(values) = check_entry(name, k, v, &mut problems) {
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
        if !has_simulator {
            missing("simulator");
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
        for key in ["topology", "traffic"] {
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
        let points = expand(&params, &zip, zip_len.unwrap_or(1));
        let prepared = prepare(points, seed, &mut problems);
        if !problems.list.is_empty() {
            problems.list.sort_by_key(|p| p.line.unwrap_or(usize::MAX));
            return Err(ReproError::InvalidSweep {
                problems: problems.list,
            });
        }
        Ok(SweepSpec {
            source: source.to_string(),
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
        let drawn;
        let messages = match &p.fixed {
            Some(m) => m,
            None => {
                drawn = p
                    .traffic
                    .generate(p.net.processors(), seed)
                    .map_err(|e| fail(e.to_string()))?;
                &drawn
            }
        };
        let result = batch_trial(&p.net, messages, p.delay, &p.config, derive_seed(seed, 1))
            .map_err(|e| fail(e.to_string()))?;
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

/// Builds every point: its options (with `fatnet simulate`'s defaults), its network (once per
/// distinct topology) and, to check the traffic suits it, its fixed pattern or the pattern of
/// its trial 0.
fn prepare(
    points: Vec<BTreeMap<String, Value>>,
    seed: u64,
    problems: &mut Problems<'_>,
) -> Vec<Point> {
    let mut nets: BTreeMap<String, Option<Arc<PacketNet>>> = BTreeMap::new();
    let mut prepared = Vec::with_capacity(points.len());
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
        let int_of = |key: &str| match values.get(key).map(|v| &v.value) {
            Some(ParamValue::Int(n)) => Some(*n),
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
        let net = nets
            .entry(topology.to_string())
            .or_insert_with(|| {
                let spec: TopologySpec = topology.parse().ok()?;
                let topo = spec.build().ok()?;
                PacketNet::new(topo).ok().map(Arc::new)
            })
            .clone();
        let Some(net) = net else {
            let spec: Result<TopologySpec, _> = topology.parse();
            let reason = match spec.map(|s| s.build()) {
                Ok(Ok(topo)) => PacketNet::new(topo)
                    .err()
                    .map_or_else(String::new, |e| e.to_string()),
                Ok(Err(e)) => e.to_string(),
                Err(e) => e.to_string(),
            };
            point_problem(Some("topology"), format!("cannot build: {reason}"));
            continue;
        };
        let output = str_of("queueing") == Some("output");
        let flow = match str_of("flow") {
            Some("store") => FlowControl::StoreAndForward,
            Some("split") => FlowControl::Split,
            Some(_) => FlowControl::Wormhole,
            None if output => FlowControl::StoreAndForward,
            None => FlowControl::Wormhole,
        };
        let queue = match (values.get("queue").map(|v| &v.value), flow) {
            (Some(ParamValue::Int(q)), _) => QueueCapacity::Bounded(*q as u32),
            (Some(ParamValue::Str(_)), _) => QueueCapacity::Unbounded,
            (None, _) if output => QueueCapacity::Unbounded,
            (None, FlowControl::StoreAndForward) => QueueCapacity::Bounded(1),
            (None, _) => QueueCapacity::Bounded(2),
        };
        let processors = net.processors();
        let scan = match str_of("scan") {
            Some("fo") => ScanPolicy::FixedOrder,
            Some("ff") => ScanPolicy::FarthestFirst,
            Some("oldest") => ScanPolicy::OldestFirst,
            Some("prio") => ScanPolicy::RandomPriority {
                range: int_of("priority_range").map_or_else(
                    || processors.max(2).next_power_of_two().ilog2(),
                    |r| r as u32,
                ),
            },
            _ => ScanPolicy::RoundRobin,
        };
        if int_of("priority_range").is_some() && str_of("scan") != Some("prio") {
            point_problem(
                Some("priority_range"),
                "priority_range needs scan = \"prio\"".into(),
            );
            continue;
        }
        let config = PacketConfig {
            queueing: if output {
                Queueing::Output
            } else {
                Queueing::Input
            },
            flow,
            path: match str_of("path") {
                Some("gp") => PathPolicy::Greedy,
                Some("fp") => PathPolicy::Fixed,
                Some("dor") => PathPolicy::DimensionOrder,
                _ => PathPolicy::Random,
            },
            scan,
            flits: int_of("flits").map_or(32, |f| f as u32),
            queue,
            sink: match str_of("sink") {
                Some("immediate") => SinkModel::Immediate,
                Some(_) => SinkModel::Queue,
                None if output => SinkModel::Immediate,
                None => SinkModel::Queue,
            },
            max_steps: int_of("max_steps").unwrap_or(100_000_000),
            check_conservation: false,
            record_latencies: false,
        };
        if let Err(e) = config.validate() {
            point_problem(None, e.to_string());
            continue;
        }
        let traffic: TrafficSpec = str_of("traffic")
            .expect("required")
            .parse()
            .expect("checked in check_value");
        let point_seed = derive_seed(seed, point);
        let trial0 = if traffic.is_randomized() {
            derive_seed(point_seed, 0)
        } else {
            point_seed
        };
        let messages = match traffic.generate(processors, trial0) {
            Ok(m) => m,
            Err(e) => {
                point_problem(
                    Some("traffic"),
                    format!("traffic on {processors} processors: {e}"),
                );
                continue;
            }
        };
        let fixed = (!traffic.is_randomized()).then_some(messages);
        prepared.push(Point {
            params,
            net,
            traffic,
            fixed,
            config,
            delay: int_of("delay").map_or(1, |d| d as u32),
        });
    }
    prepared
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
            && spec.params(record.point) == Some(&record.params);
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
/// - [`ReproError::ResultsExist`] if `out_dir` already holds results and `options.resume` is
///   false: nothing is written.
/// - [`ReproError::SweepChanged`] on resume when `out_dir/sweep.toml` is another sweep.
/// - [`ReproError::CorruptResults`] on resume when a complete line is not a record of this
///   sweep.
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
    let has_results = fs::metadata(&results).is_ok_and(|m| m.len() > 0);
    if has_results && !options.resume {
        return Err(ReproError::ResultsExist { path: results });
    }
    if options.resume {
        match fs::read_to_string(&copy) {
            Ok(text) if text != spec.source => return Err(ReproError::SweepChanged { path: copy }),
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(io_error(&copy)(e)),
        }
    }
    fs::create_dir_all(out_dir).map_err(io_error(out_dir))?;
    let mut sweep_copy = File::create(&copy).map_err(io_error(&copy))?;
    sweep_copy
        .write_all(spec.source.as_bytes())
        .and_then(|()| sweep_copy.sync_all())
        .map_err(io_error(&copy))?;
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
                ParamValue::Str(_) => unreachable!(),
            })
        };
        assert_eq!(key(&points[0]), [1, 3, 6, 8]);
        assert_eq!(key(&points[1]), [1, 3, 7, 9]);
        assert_eq!(key(&points[2]), [1, 4, 6, 8]);
        assert_eq!(key(&points[11]), [2, 5, 7, 9]);
    }
}
