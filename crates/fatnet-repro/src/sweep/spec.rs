//! The sweep file as a whole: [`SweepSpec::parse`] and what a parsed sweep answers.
//!
//! Owns [`SweepSpec`] (its text, kind, trials, seed and prepared grid points), [`SweepKind`]
//! (what runs, and the parameters each kind takes) and the checks of the file's top level:
//! `simulator`/`scheduler`, `trials`, `seed`, the `[params]` and `[zip]` tables (each entry
//! handed to `check`), required and duplicated keys, zipped lengths and the task limit.
//! It then hands the entries to `grid` for the points and to `job` to prepare each one, and
//! reports every problem at once. It does not run a task (`job`), touch the output directory
//! (`store`, `run`) or decide a default or a range (the scenario's options do).

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};
use toml::de::DeTable;

use super::check::{ParamValue, Value, as_u64, check_entry};
use super::grid::expand;
use super::job::{Point, prepare};
use super::problem::{Problems, SweepProblem, SweepProblemKind, line_of};
use crate::{ReproError, derive_seed};

/// The most tasks (points × trials) a sweep may have: the runner keeps a flag per task (one
/// byte: at most 1 GiB, the memory budget of a run's per-trial results, as
/// `fatnet_scenario::runner::TRIAL_BUDGET_BYTES`), and a results file of this many lines is
/// already hundreds of gigabytes. `check` and `run` both apply it, when the file is parsed
/// ([`SweepSpec::parse`]): a sweep over it is refused before anything is written.
pub const MAX_TASKS: u64 = 1 << 30;

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

/// One task of a sweep ([`SweepSpec::task`]): trial `trial` of grid point `point`, run with
/// seed `seed`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Task {
    /// Grid point index.
    pub point: u64,
    /// Trial index within the point.
    pub trial: u64,
    /// The trial's seed, `derive_seed(derive_seed(seed, point), trial)`.
    pub seed: u64,
}

/// A validated sweep: its text, its grid points, trials and seed.
#[derive(Debug)]
pub struct SweepSpec {
    pub(super) source: String,
    pub(super) kind: SweepKind,
    pub(super) trials: u64,
    seed: u64,
    pub(super) points: Vec<Point>,
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
                return Err(problems.into_error());
            }
        };
        let root = root.get_ref();
        let mut trials = None;
        let mut seed = None;
        let mut params: Option<BTreeMap<String, Vec<Value>>> = None;
        let mut zip: BTreeMap<String, Vec<Value>> = BTreeMap::new();
        let mut zip_len: Option<usize> = None;
        let kind_of = |key: &str| {
            let name = root.get(key)?.get_ref().as_str()?;
            SweepKind::ALL
                .into_iter()
                .find(|kind| kind.key() == key && kind.name() == name)
        };
        let kind = match (root.get("simulator"), root.get("scheduler")) {
            (Some(_), None) => kind_of("simulator"),
            (None, Some(_)) => kind_of("scheduler"),
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
            return Err(problems.into_error());
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
            return Err(problems.into_error());
        }
        let points = expand(&params, &zip, zip_len.unwrap_or(1));
        let prepared = prepare(kind, points, seed, &mut problems);
        if !problems.list.is_empty() {
            return Err(problems.into_error());
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
    /// [`ReproError::Io`] if the file cannot be read, is not a regular file or is larger than
    /// [`MAX_CONFIG_BYTES`](fatnet::scenario::MAX_CONFIG_BYTES); otherwise as
    /// [`SweepSpec::parse`].
    pub fn from_file(path: &Path) -> Result<SweepSpec, ReproError> {
        let source = crate::read_config(path)?;
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

    /// Task `index`, `point · trials + trial`: its grid point, its trial within the point and
    /// its seed, `derive_seed(derive_seed(seed, point), trial)`; `None` past the last task.
    /// The one place a task index is split.
    pub fn task(&self, index: u64) -> Option<Task> {
        if index >= self.tasks() {
            return None;
        }
        let (point, trial) = (index / self.trials, index % self.trials);
        Some(Task {
            point,
            trial,
            seed: derive_seed(derive_seed(self.seed, point), trial),
        })
    }

    /// The sweep file's text, exactly as parsed.
    pub fn source(&self) -> &str {
        &self.source
    }
}
