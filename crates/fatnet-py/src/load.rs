//! `fatnet.load`: the load factor λ(M) of a message set, exactly, with the congestion and
//! per-channel loads of its routing: `fatnet load` as a function.

use fatnet::load::{LoadReport, PathRule, PathSelection, analyze, check_analysis};
use numpy::{IntoPyArray, PyArray1};
use pyo3::prelude::*;

use crate::errors::check;
use crate::topology::Topology;
use crate::traffic::Source;

/// A topology argument: a `Topology` or a spec string.
pub(crate) fn topology_arg(obj: &Bound<'_, PyAny>) -> PyResult<Py<Topology>> {
    if let Ok(t) = obj.cast::<Topology>() {
        return Ok(t.clone().unbind());
    }
    let spec: String = obj.extract()?;
    Py::new(obj.py(), Topology::parse(&spec)?)
}

/// What `load` measured: λ(M) exactly, and the congestion, dilation and per-channel loads of
/// the routing chosen by `paths` (the keys of `fatnet load --json`).
#[pyclass(module = "fatnet", frozen)]
#[derive(Debug)]
pub struct LoadResult {
    report: LoadReport,
    self_messages: u64,
}

#[pymethods]
impl LoadResult {
    /// λ(M) = load / capacity of the most loaded bundle, as an exact `fractions.Fraction`
    /// (a lower bound on the delivery cycles of every routing).
    #[getter]
    fn load_factor<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let lf = self.report.load_factor;
        py.import("fractions")?
            .getattr("Fraction")?
            .call1((lf.load, lf.capacity))
    }

    /// The bundle attaining λ(M), or `None` for an empty message set.
    #[getter]
    fn load_factor_bundle(&self) -> Option<u32> {
        self.report.load_factor.bundle.map(|b| b.0)
    }

    /// ⌈λ(M)⌉: the lower bound on delivery cycles.
    #[getter]
    fn lower_bound_cycles(&self) -> u64 {
        self.report.load_factor.ceil()
    }

    /// Whether the set can be delivered in one cycle (λ ≤ 1 on every bundle).
    #[getter]
    fn one_cycle(&self) -> bool {
        self.report.is_one_cycle()
    }

    /// Messages in the set.
    #[getter]
    fn messages(&self) -> u64 {
        self.report.loads.messages
    }

    /// Messages from a processor to itself.
    #[getter]
    fn self_messages(&self) -> u64 {
        self.self_messages
    }

    /// Congestion: the most messages on one channel under the chosen paths (not divided by
    /// capacity).
    #[getter]
    fn congestion(&self) -> u64 {
        self.report.congestion
    }

    /// The busiest channel, or `None` for an empty set.
    #[getter]
    fn congestion_channel(&self) -> Option<u32> {
        self.report.congestion_channel.map(|c| c.0)
    }

    /// Dilation: the longest path, in channels.
    #[getter]
    fn dilation(&self) -> u64 {
        self.report.loads.dilation
    }

    /// The sum of the path lengths.
    #[getter]
    fn total_path_length(&self) -> u64 {
        self.report.loads.total_path_length
    }

    /// Messages over every channel under the chosen paths (`uint64`, indexed by channel, as
    /// `Topology.tail` and `Topology.capacity`).
    #[getter]
    fn channel_loads<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u64>> {
        self.report.loads.per_channel.clone().into_pyarray(py)
    }

    /// Messages over every bundle (`uint64`, indexed by bundle, as `Topology.bundle`): the
    /// numerators of the bundles' load factors.
    #[getter]
    fn bundle_loads<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u64>> {
        self.report.per_bundle().to_vec().into_pyarray(py)
    }

    fn __repr__(&self) -> String {
        let lf = self.report.load_factor;
        format!(
            "LoadResult(load_factor={}/{}, congestion={}, dilation={}, messages={})",
            lf.load,
            lf.capacity,
            self.report.congestion,
            self.report.loads.dilation,
            self.report.loads.messages
        )
    }
}

/// λ(M) of `traffic` on `topology`, and the congestion and per-channel loads of its routing,
/// as `fatnet load SPEC --traffic T --seed SEED --paths PATHS` computes them.
///
/// `topology` is a `Topology` or a spec; `traffic` a `Traffic`, a spec or a `(k, 2)` array
/// of pairs. `seed` draws a random pattern and seeds `paths="random"`; `paths` is
/// `"standard"` (the default: the topology's oblivious routing, d-mod-k on trees), `"first"` or
/// `"random"`. Raises `LoadError` when the analysis is refused (a table over the memory
/// budget, checked before the traffic is made), `TrafficError` when the traffic does not
/// suit the network.
#[pyfunction]
#[pyo3(signature = (topology, traffic, *, seed = fatnet::scenario::DEFAULT_SEED, paths = None))]
pub fn load(
    py: Python<'_>,
    topology: &Bound<'_, PyAny>,
    traffic: &Bound<'_, PyAny>,
    seed: u64,
    paths: Option<&str>,
) -> PyResult<LoadResult> {
    let topology = topology_arg(topology)?;
    let topo = topology.get().topo.clone();
    let rule: PathRule = match paths {
        Some(p) => check(p.parse(), String::new)?,
        None => PathRule::default(),
    };
    let source = Source::extract(traffic, fatnet::topology::Topology::num_processors(&*topo))?;
    // Before any message is made: a refused size costs nothing (as `fatnet load`).
    check(check_analysis(&topo), String::new)?;
    let messages = source.messages(fatnet::topology::Topology::num_processors(&*topo), seed)?;
    let self_messages = messages.self_messages() as u64;
    let report = py.detach(|| analyze(&topo, &messages, PathSelection::new(rule, seed)));
    Ok(LoadResult {
        report: check(report, String::new)?,
        self_messages,
    })
}
