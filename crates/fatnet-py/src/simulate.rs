//! `fatnet.simulate`: synchronous packet routing, `fatnet simulate` as a function.
//!
//! **Key design decision: the keyword arguments are a config file.** A scenario given as a
//! dict, a TOML file or keyword arguments deserialises into the library's `PacketRunFile`,
//! the type `fatnet simulate --config` reads (keyword arguments over the dict or file, as the
//! CLI's flags over `--config`), and runs through `PacketScenario::prepare` and
//! `PreparedPacket::run` with the GIL released. The summary is the library's `PacketSummary`,
//! the object `fatnet simulate --json` prints; the trials come back as numpy arrays.

use std::path::PathBuf;

use fatnet::online::packet::Outcome;
use fatnet::scenario::{
    PacketRunFile, PacketScenario, PacketSummary, PacketTrial, Parameter, ScenarioError,
    read_config,
};
use numpy::{IntoPyArray, PyArray1};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};

use crate::errors::{Raise, ScenarioError as PyScenarioError, check};
use crate::fabric::Fabric;
use crate::topology::Topology;
use crate::traffic::{Source, Traffic};

/// A scenario argument: a dict of config keys, or the path of a TOML config file.
fn scenario_file(obj: Option<&Bound<'_, PyAny>>) -> PyResult<PacketRunFile> {
    let Some(obj) = obj else {
        return Ok(PacketRunFile::default());
    };
    if let Ok(dict) = obj.cast::<PyDict>() {
        return keys(dict);
    }
    let path: PathBuf = obj.extract().map_err(|_| {
        PyScenarioError::new_err(
            "the scenario must be a dict of config keys or the path of a TOML config file",
        )
    })?;
    let text = check(read_config(&path), || "cannot read the config file".into())?;
    check(PacketRunFile::parse(&text), || {
        format!("config file {}", path.display())
    })
}

/// A dict of config keys (`topology`, `traffic`, `flow`, ..., `trials`, `seed`, `threads`) as
/// the library's config; a `Topology` or a `Traffic` stands for its spec.
fn keys(dict: &Bound<'_, PyDict>) -> PyResult<PacketRunFile> {
    let py = dict.py();
    let plain = PyDict::new(py);
    for (key, value) in dict.iter() {
        let name: String = key.extract()?;
        Parameter::from_key(&name).map_err(PyScenarioError::new_err)?;
        let value = if let Ok(t) = value.cast::<Topology>() {
            PyString::new(py, &t.get().spec.to_string()).into_any()
        } else if let Ok(f) = value.cast::<Fabric>() {
            // Its files, as `{ fabric = ..., routes = ... }` in a config file.
            pythonize::pythonize(py, &f.get().files)?
        } else if let Ok(t) = value.cast::<Traffic>() {
            match &t.get().source {
                Source::Spec(spec) => PyString::new(py, &spec.to_string()).into_any(),
                Source::Set(_) => {
                    return Err(PyScenarioError::new_err(
                        "a simulation's traffic is a spec: write a fixed set of pairs to a file \
                         and give `file:PATH`",
                    ));
                }
            }
        } else {
            value
        };
        plain.set_item(key, value)?;
    }
    pythonize::depythonize::<PacketRunFile>(plain.as_any())
        .map_err(|e| PyScenarioError::new_err(format!("{e}")))
}

/// One array per field of the trials' records.
fn trial_arrays<'py>(py: Python<'py>, trials: &[PacketTrial]) -> PyResult<Bound<'py, PyDict>> {
    fn column<'py, T: numpy::Element>(
        py: Python<'py>,
        trials: &[PacketTrial],
        f: impl Fn(&PacketTrial) -> T,
    ) -> Bound<'py, PyArray1<T>> {
        trials.iter().map(f).collect::<Vec<T>>().into_pyarray(py)
    }
    let d = PyDict::new(py);
    d.set_item("trial", column(py, trials, |t| t.trial))?;
    d.set_item("seed", column(py, trials, |t| t.seed))?;
    let outcomes: Vec<&str> = trials
        .iter()
        .map(|t| match t.report.outcome {
            Outcome::Delivered => "delivered",
            Outcome::Deadlock { .. } => "deadlock",
            Outcome::StepLimit => "step-limit",
        })
        .collect();
    d.set_item(
        "outcome",
        py.import("numpy")?.call_method1("array", (outcomes,))?,
    )?;
    d.set_item("messages", column(py, trials, |t| t.report.messages))?;
    d.set_item("delivered", column(py, trials, |t| t.report.delivered))?;
    d.set_item("steps", column(py, trials, |t| t.report.steps))?;
    d.set_item("latency", column(py, trials, |t| t.report.latency))?;
    d.set_item(
        "mean_latency",
        column(py, trials, |t| t.report.mean_latency),
    )?;
    d.set_item("congestion", column(py, trials, |t| t.report.congestion))?;
    d.set_item("dilation", column(py, trials, |t| t.report.dilation))?;
    d.set_item("unit_hops", column(py, trials, |t| t.report.unit_hops))?;
    d.set_item("mean_queued", column(py, trials, |t| t.report.mean_queued))?;
    d.set_item("max_queue", column(py, trials, |t| t.report.max_queue))?;
    Ok(d)
}

/// The result of `simulate`: the run's summary (the dict `fatnet simulate --json` prints) and
/// every trial's record as numpy arrays.
#[pyclass(module = "fatnet", frozen)]
#[derive(Debug)]
pub struct Simulation {
    summary: PacketSummary,
    trials: Vec<PacketTrial>,
}

#[pymethods]
impl Simulation {
    /// The summary, key for key the JSON object of `fatnet simulate --json` for the same
    /// scenario and seed: the effective configuration, trial counts, and latency, congestion
    /// and queue statistics over the finished trials (99% Student-t half-widths; `None`
    /// where a run cannot define them).
    #[getter]
    fn summary<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Ok(pythonize::pythonize(py, &self.summary)?)
    }

    /// Every trial's record as a dict of equal-length numpy arrays (`pandas.DataFrame(
    /// sim.trials)` makes a table): `trial`, `seed` (the trial's derived seed), `outcome`
    /// (`delivered`, `deadlock`, `step-limit`), `messages`, `delivered`, `steps`, `latency`
    /// (the maximum, flit-steps), `mean_latency`, `congestion`, `dilation`, `unit_hops`,
    /// `mean_queued`, `max_queue`: the fields of `fatnet simulate --per-trial`.
    #[getter]
    fn trials<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        trial_arrays(py, &self.trials)
    }

    /// The same records as one numpy structured array (a record per trial, a field per key
    /// of `trials`).
    fn to_records<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let columns = trial_arrays(py, &self.trials)?;
        let names: Vec<String> = columns
            .keys()
            .iter()
            .map(|k| k.extract())
            .collect::<PyResult<_>>()?;
        let arrays = columns.values();
        let kwargs = PyDict::new(py);
        kwargs.set_item("names", names)?;
        py.import("numpy")?
            .getattr("rec")?
            .call_method("fromarrays", (arrays,), Some(&kwargs))
    }

    /// Every message's latency in each trial, in injection order (`uint64` arrays), when the
    /// run recorded them (`latencies=True`); else `None`.
    #[getter]
    fn latencies<'py>(&self, py: Python<'py>) -> Option<Vec<Bound<'py, PyArray1<u64>>>> {
        self.trials
            .iter()
            .map(|t| t.report.latencies.clone().map(|l| l.into_pyarray(py)))
            .collect()
    }

    fn __len__(&self) -> usize {
        self.trials.len()
    }

    fn __repr__(&self) -> String {
        let s = &self.summary;
        format!(
            "Simulation(topology={:?}, traffic={:?}, trials={}, finished={}, latency_mean={:?})",
            s.topology.to_string(),
            s.traffic,
            s.trials,
            s.finished,
            s.latency_mean
        )
    }
}

/// Packet simulation trials, as `fatnet simulate` runs them: the same scenario and seed give
/// the same numbers.
///
/// `scenario` is a dict of `fatnet simulate --config` keys or the path of such a TOML file;
/// keyword arguments are the same keys (`topology`, `traffic`, `queueing`, `flow`, `path`,
/// `scan`, `priority_range`, `flits`, `queue`, `sink`, `delay`, `max_steps`, `trials`,
/// `seed`, `threads`) and override it, as flags override `--config`. `topology` is a spec, a
/// `Topology`, a `Fabric`, or a fabric's files (`{"fabric": "x.ned", "routes": "x.fdbs"}` or
/// `"fabric:x.ned,routes=x.fdbs"`); `traffic` a spec or a `Traffic` made from one. Defaults
/// and refusals are the library's (`fatnet simulate --help`): 1 trial, seed 1, all cores;
/// results never depend on `threads`. `latencies=True` keeps every message's latency.
///
/// The trials run with the GIL released. Raises `ScenarioError` (with the CLI's message) for
/// a refused scenario.
#[pyfunction]
#[pyo3(signature = (scenario = None, /, *, latencies = false, **options))]
pub fn simulate(
    py: Python<'_>,
    scenario: Option<&Bound<'_, PyAny>>,
    latencies: bool,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<Simulation> {
    let file = scenario_file(scenario)?;
    let flags = match options {
        Some(dict) => keys(dict)?,
        None => PacketRunFile::default(),
    };
    let missing = |param| ScenarioError::Missing { param }.raise("");
    let scenario = PacketScenario {
        topology: flags
            .topology
            .or(file.topology)
            .ok_or_else(|| missing(Parameter::Topology))?,
        traffic: flags
            .traffic
            .or(file.traffic)
            .ok_or_else(|| missing(Parameter::Traffic))?,
        options: flags.options.or(file.options),
    };
    let run = check(flags.run.or(file.run).resolve(), String::new)?;
    let mut prepared = check(scenario.prepare(run.seed), String::new)?;
    if latencies {
        prepared = prepared.recording_latencies();
    }
    let trials = py.detach(|| prepared.run(run.seed, run.trials, &run.runner, &|_| {}));
    let trials = check(trials, String::new)?;
    let mut summary = PacketSummary::of(&prepared, run.seed, trials, true);
    let trials = summary.per_trial.take().unwrap_or_default();
    Ok(Simulation { summary, trials })
}
