//! `fatnet.schedule`: Leiserson's off-line schedule of a message set on a binary fat-tree
//! (Theorem 1 or Corollary 2), as `fatnet schedule` makes it, and its cycle-by-cycle check.

use std::sync::Arc;

use fatnet::offline::Schedule as CycleSchedule;
use fatnet::offline::leiserson::LeisersonSchedule;
use fatnet::scenario::{ScheduleOptions, ScheduleScenario, ScheduleSummary};
use fatnet::topology::FatTree;
use fatnet::traffic::{MessageSet, TrafficSpec};
use numpy::{IntoPyArray, PyArray1, PyArray2};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::{Raise, ScenarioError as PyScenarioError, check};
use crate::traffic::{Source, Traffic, set_to_pairs};

/// A verified delivery schedule: every message in exactly one cycle, and no channel carrying
/// more messages in a cycle than its capacity.
#[pyclass(module = "fatnet", frozen)]
#[derive(Debug)]
pub struct Schedule {
    tree: Arc<FatTree>,
    messages: MessageSet,
    result: LeisersonSchedule,
    summary: ScheduleSummary,
}

#[pymethods]
impl Schedule {
    /// Number of delivery cycles.
    #[getter]
    fn cycles(&self) -> usize {
        self.result.cycles()
    }

    /// The delivery cycle of every message (`uint32`, indexed by message, as `pairs`).
    #[getter]
    fn cycle<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u32>> {
        let mut of = vec![0u32; self.messages.len()];
        for (i, cycle) in self.result.schedule.cycles().iter().enumerate() {
            for m in cycle {
                of[m.index()] = i as u32;
            }
        }
        of.into_pyarray(py)
    }

    /// The scheduled messages, a `(k, 2)` `uint32` array of (source, destination) by
    /// message id.
    #[getter]
    fn pairs<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<u32>> {
        set_to_pairs(py, &self.messages)
    }

    /// λ(M), exactly, as a `fractions.Fraction`.
    #[getter]
    fn load_factor<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let lf = self.result.load_factor;
        py.import("fractions")?
            .getattr("Fraction")?
            .call1((lf.load, lf.capacity))
    }

    /// The lower bound on cycles, ⌈λ(M)⌉.
    #[getter]
    fn lower_bound(&self) -> u64 {
        self.result.lower_bound
    }

    /// The theorem's upper bound on cycles.
    #[getter]
    fn bound(&self) -> u64 {
        self.result.bound
    }

    /// The report of `fatnet schedule --json` for the same case and seed, key for key.
    #[getter]
    fn summary<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Ok(pythonize::pythonize(py, &self.summary)?)
    }

    /// Checks the schedule cycle by cycle on the tree (`Schedule::verify` of fatnet-offline):
    /// returns `True`, or raises `OfflineError` naming the first violation (a message
    /// missing or repeated, a channel over its capacity in a cycle).
    fn verify(&self) -> PyResult<bool> {
        check_cycles(&self.result.schedule, &self.tree, &self.messages)
    }

    fn __repr__(&self) -> String {
        format!(
            "Schedule(topology={:?}, traffic={:?}, cycles={}, lower_bound={}, bound={})",
            self.summary.topology,
            self.summary.traffic,
            self.result.cycles(),
            self.result.lower_bound,
            self.result.bound
        )
    }
}

fn check_cycles(schedule: &CycleSchedule, tree: &FatTree, messages: &MessageSet) -> PyResult<bool> {
    match schedule.verify(tree, messages) {
        Ok(()) => Ok(true),
        // The words of `fatnet schedule verify`'s `problem`.
        Err(v) => Err(crate::errors::OfflineError::new_err(format!(
            "the schedule is invalid: {}",
            v.describe(tree, messages)
        ))),
    }
}

/// Leiserson's off-line schedule of `traffic` on the binary fat-tree `topology`, as `fatnet
/// schedule SPEC --traffic T --seed SEED` makes it, verified.
///
/// `topology` is a `fattree:` spec or `Topology`; `traffic` a spec or a `Traffic` made from
/// one; `algorithm` is `"theorem1"` (default) or `"corollary2"`, `fictitious` Corollary 2's
/// fictitious capacities (`"lgn"` or `"depth"`). Raises `ScenarioError` with the CLI's
/// message for a case the scheduler refuses.
#[pyfunction]
#[pyo3(signature = (topology, traffic, *, seed = fatnet::scenario::DEFAULT_SEED, algorithm = None, fictitious = None))]
pub fn schedule(
    py: Python<'_>,
    topology: &Bound<'_, PyAny>,
    traffic: &Bound<'_, PyAny>,
    seed: u64,
    algorithm: Option<&str>,
    fictitious: Option<&str>,
) -> PyResult<Schedule> {
    let topology = crate::load::topology_arg(topology)?.get().spec.clone();
    let traffic: TrafficSpec = match traffic.cast::<Traffic>() {
        Ok(t) => match &t.get().source {
            Source::Spec(spec) => spec.clone(),
            Source::Set(_) => {
                return Err(PyScenarioError::new_err(
                    "a schedule's traffic is a spec: write a fixed set of pairs to a file and \
                     give `file:PATH`",
                ));
            }
        },
        Err(_) => {
            let spec: String = traffic.extract()?;
            check(spec.parse(), || format!("invalid traffic spec `{spec}`"))?
        }
    };
    let keys = PyDict::new(py);
    keys.set_item("algorithm", algorithm)?;
    keys.set_item("fictitious", fictitious)?;
    let options: ScheduleOptions = pythonize::depythonize(keys.as_any())
        .map_err(|e| PyScenarioError::new_err(e.to_string()))?;
    let scenario = ScheduleScenario {
        topology,
        traffic,
        options,
    };
    let (tree, messages, result, summary) = py
        .detach(|| {
            let prepared = scenario.prepare(seed)?;
            let (messages, result) = prepared.schedule(seed)?;
            let summary = ScheduleSummary::of(&prepared, seed, &messages, &result);
            Ok::<_, fatnet::scenario::ScenarioError>((
                Arc::new(prepared.tree().clone()),
                messages,
                result,
                summary,
            ))
        })
        .map_err(|e| e.raise(""))?;
    Ok(Schedule {
        tree,
        messages,
        result,
        summary,
    })
}
