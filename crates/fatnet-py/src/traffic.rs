//! `fatnet.Traffic`: a message set from a pattern spec, a numpy `(k, 2)` array of
//! (source, destination) pairs, or a file.
//!
//! **Key design decision: a spec stays a spec until it meets a network.** A pattern is drawn
//! for a number of processors and a seed (`Traffic.pairs`, or `load` / `simulate` with their
//! seed), exactly as `fatnet traffic --seed` and `fatnet load --seed` draw it; an array or a
//! file is a fixed set.

use std::path::PathBuf;

use fatnet::traffic::{Message, MessageSet, TrafficError, TrafficSpec};
use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArray2, PyReadonlyArray2};
use pyo3::prelude::*;

use crate::errors::{TrafficError as PyTrafficError, check};

/// Where a traffic's messages come from.
#[derive(Clone, Debug)]
pub(crate) enum Source {
    /// A pattern, or `file:PATH`, drawn for a network.
    Spec(TrafficSpec),
    /// A fixed message set.
    Set(MessageSet),
}

impl Source {
    /// The messages on `processors` processors with `seed`, as `fatnet load` makes them.
    pub(crate) fn messages(&self, processors: u32, seed: u64) -> PyResult<MessageSet> {
        match self {
            Source::Spec(spec) => check(spec.generate(processors, seed), || {
                fatnet::scenario::wording::cannot_make_traffic(&spec)
            }),
            Source::Set(set) => Ok(set.clone()),
        }
    }

    /// A traffic argument: a `Traffic`, a spec string, or a `(k, 2)` array of pairs on
    /// `processors` processors.
    pub(crate) fn extract(obj: &Bound<'_, PyAny>, processors: u32) -> PyResult<Source> {
        if let Ok(t) = obj.cast::<Traffic>() {
            return Ok(t.get().source.clone());
        }
        if let Ok(spec) = obj.extract::<String>() {
            return Ok(Source::Spec(parse_spec(&spec)?));
        }
        Ok(Source::Set(pairs_to_set(obj, processors)?))
    }
}

fn parse_spec(spec: &str) -> PyResult<TrafficSpec> {
    check(spec.parse(), || format!("invalid traffic spec `{spec}`"))
}

/// A `(k, 2)` array-like of non-negative integers as a message set on `processors`.
pub(crate) fn pairs_to_set(obj: &Bound<'_, PyAny>, processors: u32) -> PyResult<MessageSet> {
    let py = obj.py();
    let array = py
        .import("numpy")?
        .call_method1("asarray", (obj, "int64"))?;
    let array: PyReadonlyArray2<'_, i64> = array.extract().map_err(|_| {
        PyTrafficError::new_err(format!(
            "pairs must be a (k, 2) array of (source, destination), not an array of shape {}",
            array
                .getattr("shape")
                .and_then(|s| s.str())
                .map_or_else(|_| "?".into(), |s| s.to_string())
        ))
    })?;
    let view = array.as_array();
    if view.ncols() != 2 {
        return Err(PyTrafficError::new_err(format!(
            "pairs must be a (k, 2) array of (source, destination), not ({}, {})",
            view.nrows(),
            view.ncols()
        )));
    }
    if view.nrows() > fatnet::traffic::MAX_MESSAGES {
        let error = TrafficError::TooManyMessages {
            count: view.nrows() as u64,
            max: fatnet::traffic::MAX_MESSAGES as u64,
        };
        return Err(PyTrafficError::new_err(error.to_string()));
    }
    // The array itself is already in memory: one `Message` (8 bytes) per row of 16 bytes.
    let mut messages = Vec::with_capacity(view.nrows());
    for (index, row) in view.rows().into_iter().enumerate() {
        let id = |v: i64| {
            u32::try_from(v).map_err(|_| {
                let error = TrafficError::ProcessorOutOfRange {
                    index,
                    processor: v as u64,
                    processors,
                };
                if v < 0 {
                    PyTrafficError::new_err(format!("message {index}: processor {v} is negative"))
                } else {
                    PyTrafficError::new_err(error.to_string())
                }
            })
        };
        messages.push(Message::new(id(row[0])?, id(row[1])?));
    }
    check(MessageSet::new(processors, messages), String::new)
}

/// A message set's pairs as a `(k, 2)` `uint32` array.
pub(crate) fn set_to_pairs<'py>(py: Python<'py>, set: &MessageSet) -> Bound<'py, PyArray2<u32>> {
    let flat: Vec<u32> = set.messages().iter().flat_map(|m| [m.src, m.dst]).collect();
    Array2::from_shape_vec((set.len(), 2), flat)
        .expect("two ids per message")
        .into_pyarray(py)
}

/// Traffic: a pattern spec (`Traffic("complement")`, `Traffic("permutation")`,
/// `Traffic("replicated:k=4")`, `Traffic("file:pairs.txt")`, see `fatnet traffic --help`), a
/// fixed set of pairs (`Traffic.from_pairs(array, processors)`), or a file
/// (`Traffic.from_file(path)`).
///
/// Wherever a function takes a traffic it also takes a spec string or a `(k, 2)` array.
#[pyclass(module = "fatnet", frozen)]
#[derive(Debug)]
pub struct Traffic {
    pub(crate) source: Source,
}

#[pymethods]
impl Traffic {
    /// The pattern of `spec`. Raises `TrafficError` for a spec that does not parse.
    #[new]
    fn new(spec: &str) -> PyResult<Traffic> {
        Ok(Traffic {
            source: Source::Spec(parse_spec(spec)?),
        })
    }

    /// A fixed message set: `pairs` is a `(k, 2)` array-like of (source, destination) on
    /// `processors` processors. Raises `TrafficError` for a pair out of range.
    #[staticmethod]
    fn from_pairs(pairs: &Bound<'_, PyAny>, processors: u32) -> PyResult<Traffic> {
        Ok(Traffic {
            source: Source::Set(pairs_to_set(pairs, processors)?),
        })
    }

    /// A message-set file (JSON, or text with one `src dst` pair per line), read when the
    /// traffic meets a network, as `file:PATH` is.
    #[staticmethod]
    fn from_file(path: PathBuf) -> Traffic {
        Traffic {
            source: Source::Spec(TrafficSpec::File { path }),
        }
    }

    /// The spec (canonical), or `None` for a fixed set of pairs.
    #[getter]
    fn spec(&self) -> Option<String> {
        match &self.source {
            Source::Spec(s) => Some(s.to_string()),
            Source::Set(_) => None,
        }
    }

    /// Whether the pattern is drawn at random (a new set for each seed).
    #[getter]
    fn randomized(&self) -> bool {
        matches!(&self.source, Source::Spec(s) if s.is_randomized())
    }

    /// The messages on `processors` processors with `seed`, as a `(k, 2)` `uint32` array of
    /// (source, destination): the set `fatnet traffic -p PROCESSORS -t SPEC --seed SEED`
    /// writes.
    #[pyo3(signature = (processors, seed = fatnet::scenario::DEFAULT_SEED))]
    fn pairs<'py>(
        &self,
        py: Python<'py>,
        processors: u32,
        seed: u64,
    ) -> PyResult<Bound<'py, PyArray2<u32>>> {
        let set = self.source.messages(processors, seed)?;
        Ok(set_to_pairs(py, &set))
    }

    fn __repr__(&self) -> String {
        match &self.source {
            Source::Spec(s) => format!("Traffic({:?})", s.to_string()),
            Source::Set(set) => format!(
                "Traffic.from_pairs(<{} pairs>, processors={})",
                set.len(),
                set.processors()
            ),
        }
    }
}
