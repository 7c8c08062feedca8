//! `fatnet.Topology`: a built topology from any spec, its summary, its channels as numpy
//! arrays and its graph as a networkx `MultiDiGraph`.

use std::sync::Arc;

use fatnet::topology::{
    AnyTopology, ChannelId, Direction, Topology as _, TopologySpec, check_memory_budget,
    graph_export,
};
use numpy::{IntoPyArray, PyArray1};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::{Raise, check};

/// A topology built from its spec, as `fatnet topology SPEC` builds it: `Topology("bft:n=1024")`,
/// `Topology("fattree:n=64,profile=area")`, `Topology("karyntree:k=4,levels=3")`, ...
///
/// Channels are numbered `0..channels`; the arrays `tail`, `head`, `capacity`, `level` and
/// `bundle` are indexed by channel, and node ids are those of `to_networkx()`.
#[pyclass(module = "fatnet", frozen)]
#[derive(Debug)]
pub struct Topology {
    pub(crate) spec: TopologySpec,
    pub(crate) topo: Arc<AnyTopology>,
}

impl Topology {
    /// Parses and builds `spec`, with the CLI's messages.
    pub(crate) fn parse(spec: &str) -> PyResult<Topology> {
        let parsed: TopologySpec = check(spec.parse(), || {
            fatnet::scenario::wording::invalid_topology_spec(&spec)
        })?;
        let topo = check(parsed.build(), || {
            fatnet::scenario::wording::cannot_build(&spec)
        })?;
        Ok(Topology {
            spec: parsed,
            topo: Arc::new(topo),
        })
    }

    /// One `u32` per channel, after checking the array against the memory budget.
    fn per_channel<'py, T: numpy::Element>(
        &self,
        py: Python<'py>,
        what: &str,
        f: impl Fn(fatnet::topology::Channel) -> T,
    ) -> PyResult<Bound<'py, PyArray1<T>>> {
        let n = self.topo.num_channels();
        let bytes = u128::from(n) * std::mem::size_of::<T>() as u128;
        check(
            check_memory_budget(|| format!("the {what} array of {}", self.spec), bytes),
            String::new,
        )?;
        let values: Vec<T> = (0..n).map(|c| f(self.topo.channel(ChannelId(c)))).collect();
        Ok(values.into_pyarray(py))
    }
}

fn direction_name(d: Direction) -> &'static str {
    match d {
        Direction::Up => "up",
        Direction::Down => "down",
        Direction::Forward => "forward",
    }
}

#[pymethods]
impl Topology {
    /// Builds the topology of `spec` (see `fatnet topology --help` for the grammar).
    ///
    /// Raises `TopologyError` with the command line's message for a spec that does not parse
    /// or cannot be built.
    #[new]
    fn new(spec: &str) -> PyResult<Topology> {
        Topology::parse(spec)
    }

    /// The spec, canonical (`bft:n=1024`).
    #[getter]
    fn spec(&self) -> String {
        self.spec.to_string()
    }

    /// The topology's name.
    #[getter]
    fn name(&self) -> String {
        self.topo.name()
    }

    /// Number of processors (terminals).
    #[getter]
    fn processors(&self) -> u32 {
        self.topo.num_processors()
    }

    /// Number of switches.
    #[getter]
    fn switches(&self) -> u32 {
        self.topo.num_switches()
    }

    /// Number of nodes (processors, switches and a fat-tree's external node).
    #[getter]
    fn nodes(&self) -> u32 {
        self.topo.num_nodes()
    }

    /// Number of directed channels.
    #[getter]
    fn channels(&self) -> u32 {
        self.topo.num_channels()
    }

    /// Number of bundles of parallel channels (the load factor's units).
    #[getter]
    fn bundles(&self) -> u32 {
        self.topo.num_bundles()
    }

    /// Channels and capacities per level and direction, as `fatnet topology --json` lists
    /// them: a list of dicts with the keys `level`, `direction`, `channels`, `bundles`,
    /// `min_capacity`, `max_capacity`, `min_bundle_capacity`, `max_bundle_capacity`.
    fn levels<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let levels = check(self.topo.level_summary(), || {
            format!("cannot summarize `{}`", self.spec)
        })?;
        Ok(pythonize::pythonize(py, &levels)?)
    }

    /// The tail node of every channel (`uint32`, indexed by channel).
    #[getter]
    fn tail<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray1<u32>>> {
        self.per_channel(py, "tail", |c| c.from.0)
    }

    /// The head node of every channel (`uint32`, indexed by channel).
    #[getter]
    fn head<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray1<u32>>> {
        self.per_channel(py, "head", |c| c.to.0)
    }

    /// The capacity of every channel (`uint64`, indexed by channel).
    #[getter]
    fn capacity<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray1<u64>>> {
        self.per_channel(py, "capacity", |c| c.capacity)
    }

    /// The level of every channel (`uint32`; level-0 channels touch processors).
    #[getter]
    fn level<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray1<u32>>> {
        self.per_channel(py, "level", |c| c.level)
    }

    /// The bundle of every channel (`uint32`; parallel channels share one).
    #[getter]
    fn bundle<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray1<u32>>> {
        self.per_channel(py, "bundle", |c| c.bundle.0)
    }

    /// The whole graph as a `networkx.MultiDiGraph`, as `fatnet topology --graph json`
    /// exports it: node `i` with `label` (`p3`, `s1.0`, `external`), `kind`, `level` and
    /// `index`; one edge per directed channel, keyed by its channel id, with `capacity`,
    /// `level`, `direction` and `bundle`. Needs networkx.
    ///
    /// Raises `TopologyError` when the graph would exceed the memory budget.
    fn to_networkx<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let export = graph_export(self.topo.as_ref())
            .map_err(|e| e.raise(&format!("cannot export `{}`", self.spec)))?;
        let nx = py.import("networkx")?;
        let graph = nx.getattr("MultiDiGraph")?.call0()?;
        graph.getattr("graph")?.set_item("name", &export.name)?;
        let mut nodes = Vec::with_capacity(export.nodes.len());
        for n in &export.nodes {
            let attrs = PyDict::new(py);
            attrs.set_item("label", &n.label)?;
            attrs.set_item("kind", pythonize::pythonize(py, &n.kind)?)?;
            attrs.set_item("level", n.level)?;
            attrs.set_item("index", n.index)?;
            nodes.push((n.id, attrs));
        }
        graph.call_method1("add_nodes_from", (nodes,))?;
        let mut edges = Vec::with_capacity(export.edges.len());
        for e in &export.edges {
            let attrs = PyDict::new(py);
            attrs.set_item("capacity", e.capacity)?;
            attrs.set_item("level", e.level)?;
            attrs.set_item("direction", direction_name(e.direction))?;
            attrs.set_item("bundle", e.bundle)?;
            edges.push((e.source, e.target, e.id, attrs));
        }
        graph.call_method1("add_edges_from", (edges,))?;
        Ok(graph)
    }

    fn __repr__(&self) -> String {
        format!("Topology({:?})", self.spec.to_string())
    }

    fn __str__(&self) -> String {
        self.spec.to_string()
    }
}
