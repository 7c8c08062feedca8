//! `fatnet.sweep`: a parameter sweep from a TOML file or a dict, as `fatnet sweep run` runs
//! it, with the records returned as columns instead of appended to `results.jsonl`.
//!
//! **Key design decision: a dict is a sweep file.** A dict is written as TOML and read by
//! `SweepSpec::parse`, the one reader of sweep files, so every check, default and problem
//! message is the CLI's; the tasks run through `LocalTasks::run_records`, the records
//! `fatnet sweep run` writes as lines.

use std::path::PathBuf;

use fatnet_repro::sweep::{LocalTasks, SweepSpec, TrialRecord};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyInt, PyList};

use crate::errors::{ReproError as PyReproError, check};

/// A sweep argument: a dict of the sweep file's keys, or its path.
fn spec_of(obj: &Bound<'_, PyAny>) -> PyResult<SweepSpec> {
    if let Ok(dict) = obj.cast::<PyDict>() {
        let table: toml::Table = pythonize::depythonize(dict.as_any())
            .map_err(|e| PyReproError::new_err(format!("the sweep dict: {e}")))?;
        let text = toml::to_string(&table)
            .map_err(|e| PyReproError::new_err(format!("the sweep dict: {e}")))?;
        return check(SweepSpec::parse(&text), String::new);
    }
    let path: PathBuf = obj.extract().map_err(|_| {
        PyReproError::new_err("a sweep is a dict of sweep-file keys or the path of a TOML file")
    })?;
    check(SweepSpec::from_file(&path), String::new)
}

/// The records as columns: `task`, `point`, `trial`, `seed`, one column per parameter, and
/// one per field of the result (an outcome as its kind); fields that are `None` in every
/// record are left out.
fn columns<'py>(py: Python<'py>, records: &[TrialRecord]) -> PyResult<Bound<'py, PyDict>> {
    let np = py.import("numpy")?;
    let mut keys: Vec<String> = ["task", "point", "trial", "seed"]
        .map(String::from)
        .to_vec();
    let mut rows: Vec<Bound<'py, PyDict>> = Vec::with_capacity(records.len());
    for r in records {
        let row = PyDict::new(py);
        row.set_item("task", r.task)?;
        row.set_item("point", r.point)?;
        row.set_item("trial", r.trial)?;
        row.set_item("seed", r.seed)?;
        for (k, v) in &r.params {
            row.set_item(k, pythonize::pythonize(py, v)?)?;
        }
        let result = pythonize::pythonize(py, &r.result)?;
        for (k, v) in result.cast::<PyDict>()?.iter() {
            // An outcome (`{"kind": "delivered"}`) as its kind.
            let v = match v.cast::<PyDict>() {
                Ok(d) => d.get_item("kind")?.unwrap_or(v),
                Err(_) => v,
            };
            row.set_item(k, v)?;
        }
        for k in row.keys() {
            let k: String = k.extract()?;
            if !keys.contains(&k) {
                keys.push(k);
            }
        }
        rows.push(row);
    }
    let out = PyDict::new(py);
    for k in keys {
        let values = PyList::empty(py);
        let (mut any, mut unsigned) = (false, true);
        for row in &rows {
            let v = row.get_item(&k)?;
            any |= v.as_ref().is_some_and(|v| !v.is_none());
            unsigned &= v.as_ref().is_some_and(|v| {
                v.is_instance_of::<PyInt>()
                    && !v.is_instance_of::<PyBool>()
                    && v.extract::<u64>().is_ok()
            });
            values.append(v)?;
        }
        if any {
            // Seeds use all 64 bits: counts and seeds are `uint64`, not numpy's guess.
            let array = if unsigned {
                np.call_method1("array", (values, "uint64"))?
            } else {
                np.call_method1("array", (values,))?
            };
            out.set_item(&k, array)?;
        }
    }
    Ok(out)
}

/// Runs every task of a sweep, as `fatnet sweep run FILE` does, and returns the records as a
/// dict of equal-length numpy arrays (`pandas.DataFrame(fatnet.sweep(...))` makes a table),
/// one row per task in task order: `task`, `point`, `trial`, `seed`, the point's parameters,
/// and the trial's result (the fields of `results.jsonl`'s `result`).
///
/// `spec` is the path of a sweep file or a dict of its keys (`{"simulator": "packet",
/// "trials": 10, "seed": 7, "params": {"topology": "bft:n=64", "flow": ["worm", "store"]}}`);
/// see `fatnet sweep --help`. Results never depend on `threads` (default: all cores). The
/// tasks run with the GIL released. Raises `ReproError` with the CLI's message, listing every
/// problem of the sweep file.
#[pyfunction]
#[pyo3(signature = (spec, *, threads = None))]
pub fn sweep<'py>(
    py: Python<'py>,
    spec: &Bound<'py, PyAny>,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyDict>> {
    let spec = spec_of(spec)?;
    let tasks: Vec<u64> = (0..spec.tasks()).collect();
    let records = py.detach(|| {
        LocalTasks::new(threads)
            .run_records(&spec, &tasks)
            .into_iter()
            .collect::<Result<Vec<_>, _>>()
    });
    let records = check(records, String::new)?;
    columns(py, &records)
}
