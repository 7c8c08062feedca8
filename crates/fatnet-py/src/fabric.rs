//! `fatnet.Fabric`: a real InfiniBand fabric read as `fatnet fabric check` reads it, its routes
//! traced through its forwarding tables, and the toolkit's judgements as dicts and numpy
//! arrays.
//!
//! **Key design decision: one loader, one analysis.** A fabric is read by `FabricFiles::load`
//! (the loader of every front end, with its defaults for the side files), and `check`,
//! `worst_case_permutation` and the credit-loop and eBB runs are the functions of
//! fatnet-fabric; the full analysis is computed once per `Fabric` (with the GIL released) and
//! kept. Links are numbered by the fabric's port ids (`link_label(i)` names link `i`), CAs by
//! their position in the CA order (`ca_names`).

use std::path::PathBuf;
use std::sync::OnceLock;

use fatnet::fabric::analysis::Analysis;
use fatnet::fabric::failures::{self, Draw, FailureOptions, FailureSpec, Metrics, Reroute};
use fatnet::fabric::{
    BisectionFlows, EbbConfig, FabricError, FabricFiles, FabricFormat, FabricTraffic, LoadedFabric,
    PortId, analyze, credit_loops, effective_bisection_bandwidth,
};
use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArray2};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::{Raise, check};

/// `(src, dst)` pairs as a `(k, 2)` `uint32` array.
fn pairs_array<'py>(py: Python<'py>, pairs: &[(u32, u32)]) -> Bound<'py, PyArray2<u32>> {
    let flat: Vec<u32> = pairs.iter().flat_map(|&(s, d)| [s, d]).collect();
    Array2::from_shape_vec((pairs.len(), 2), flat)
        .expect("two ids per pair")
        .into_pyarray(py)
}

/// A real fabric: switches, CAs, links and (when read with them) forwarding tables.
#[pyclass(module = "fatnet", frozen)]
#[derive(Debug)]
pub struct Fabric {
    loaded: LoadedFabric,
    /// The files it was read from (what `simulate(topology=fabric)` passes on).
    pub(crate) files: FabricFiles,
    path: PathBuf,
    analysis: OnceLock<Analysis>,
}

impl Fabric {
    /// The analysis of every route, computed once.
    fn analysis(&self, py: Python<'_>) -> PyResult<&Analysis> {
        if let Some(a) = self.analysis.get() {
            return Ok(a);
        }
        let fabric = &self.loaded.fabric;
        let a = check(py.detach(|| analyze(fabric)), String::new)?;
        Ok(self.analysis.get_or_init(|| a))
    }

    fn tables(&self) -> PyResult<()> {
        if self.loaded.fabric.has_lfts() {
            Ok(())
        } else {
            Err(FabricError::NoForwardingTables.raise(&format!(
                "{}: read it with its routes (`routes=`)",
                self.path.display()
            )))
        }
    }

    fn label(&self, link: Option<PortId>) -> Option<String> {
        link.map(|p| self.loaded.fabric.link_label(p))
    }
}

#[pymethods]
impl Fabric {
    /// Reads a fabric as `fatnet fabric check PATH --routes ROUTES` does: `path` is its
    /// topology file (an ib_flit_sim `.ned`, an `ibnetdiscover` dump, an ibdm `.topo`,
    /// `opensm-subnet.lst` or an OpenSM dump folder); `routes` its forwarding tables (the
    /// `.fdbs`, an OpenSM dump folder or table file); `ca_order` the file that numbers the
    /// CAs (default: `ftree.hcas` beside the `.fdbs`, OpenSM's ftree order beside its
    /// tables, else node order); `format` one of `auto`, `flitsim`, `opensm`,
    /// `ibnetdiscover`, `ibdm`. Raises `FabricError` with the CLI's message.
    #[staticmethod]
    #[pyo3(signature = (path, routes = None, *, ca_order = None, format = "auto"))]
    fn read(
        py: Python<'_>,
        path: PathBuf,
        routes: Option<PathBuf>,
        ca_order: Option<PathBuf>,
        format: &str,
    ) -> PyResult<Fabric> {
        let format: FabricFormat = check(format.parse(), String::new)?;
        let files = FabricFiles {
            fabric: path.clone(),
            routes,
            ca_order,
            format,
        };
        let loaded = check(py.detach(|| files.load()), String::new)?;
        Ok(Fabric {
            loaded,
            files,
            path,
            analysis: OnceLock::new(),
        })
    }

    /// The format the files were read as.
    #[getter]
    fn format(&self) -> &'static str {
        self.loaded.format.name()
    }

    /// Number of switches.
    #[getter]
    fn switches(&self) -> usize {
        self.loaded.fabric.switches().count()
    }

    /// Number of CAs (end nodes).
    #[getter]
    fn cas(&self) -> usize {
        self.loaded.fabric.cas().count()
    }

    /// Number of links (cables).
    #[getter]
    fn links(&self) -> usize {
        self.loaded.fabric.links().len()
    }

    /// Number of directed-link ids (port ids): the length of the per-link arrays.
    #[getter]
    fn link_ids(&self) -> usize {
        self.loaded.fabric.port_id_count()
    }

    /// Whether the fabric has forwarding tables.
    #[getter]
    fn has_routes(&self) -> bool {
        self.loaded.fabric.has_lfts()
    }

    /// The CAs' names in CA order: processor `i` of a traffic is `ca_names[i]`.
    #[getter]
    fn ca_names(&self) -> Vec<String> {
        let f = &self.loaded.fabric;
        f.ca_order()
            .iter()
            .map(|&n| f.node(n).name().to_owned())
            .collect()
    }

    /// The directed link with id `link`, as `SWITCH[port] -> NODE[port]`.
    fn link_label(&self, link: u32) -> PyResult<String> {
        if link as usize >= self.loaded.fabric.port_id_count() {
            return Err(crate::errors::FabricError::new_err(format!(
                "link {link} is not a link id of the fabric (0..{})",
                self.loaded.fabric.port_id_count()
            )));
        }
        Ok(self.loaded.fabric.link_label(PortId(link)))
    }

    /// Judges the routing, as `fatnet fabric check --json`: `routes_valid`, `nonblocking`
    /// (Yuan's Lemma 1) with `blocking_links` and a `lemma1_witness` (two `[src, dst]`
    /// routes on `lemma1_witness_link`), the exact `worst_contention` with its link and
    /// `worst_permutation` (a `(k, 2)` array of CA positions), and the cyclic shifts
    /// (`shifts`, `shifts_congestion_free`, per-shift congestion as an array). Needs tables.
    fn check<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        self.tables()?;
        let a = self.analysis(py)?;
        let d = PyDict::new(py);
        d.set_item("routes_valid", a.routes.summary().all_valid())?;
        d.set_item("nonblocking", a.lemma1.is_nonblocking())?;
        d.set_item("blocking_links", a.lemma1.blocking_links.len())?;
        let witness = a.lemma1.witness.as_ref();
        d.set_item(
            "lemma1_witness",
            witness.map(|w| w.pairs.map(|(s, d)| [s, d])),
        )?;
        d.set_item("lemma1_witness_link", self.label(witness.map(|w| w.link)))?;
        d.set_item("worst_contention", a.worst.contention)?;
        d.set_item("worst_link", self.label(a.worst.link))?;
        d.set_item("worst_permutation", pairs_array(py, &a.worst.permutation))?;
        d.set_item("shifts", a.shifts.len())?;
        d.set_item(
            "shifts_congestion_free",
            a.shifts.iter().filter(|s| s.congestion <= 1).count(),
        )?;
        d.set_item(
            "shift_congestion",
            a.shifts
                .iter()
                .map(|s| s.congestion)
                .collect::<Vec<u32>>()
                .into_pyarray(py),
        )?;
        Ok(d)
    }

    /// The exact worst-case permutation contention of the tables: a dict with `contention`,
    /// its `link` (label) and `link_id`, a `permutation` attaining it (a `(k, 2)` array of CA
    /// positions) and `per_link`, every link's worst case (`uint32`, by link id). Needs tables.
    fn worst_case_permutation<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        self.tables()?;
        let w = &self.analysis(py)?.worst;
        let d = PyDict::new(py);
        d.set_item("contention", w.contention)?;
        d.set_item("link", self.label(w.link))?;
        d.set_item("link_id", w.link.map(|p| p.0))?;
        d.set_item("permutation", pairs_array(py, &w.permutation))?;
        d.set_item("per_link", w.per_link.clone().into_pyarray(py))?;
        Ok(d)
    }

    /// Routes `traffic` through the tables, as `fatnet fabric load --traffic T --seed SEED`:
    /// a dict with `messages`, `delivered`, `faults` (`(src, dst)` positions of routes that do
    /// not arrive), `congestion` (most routes on one directed link: the congestion of this
    /// routing, not λ), `loaded_links`, `hottest` (`top` pairs of link label and load) and
    /// `per_link` (routes over every link, `uint32` by link id). `traffic` is a pattern over
    /// the CA order, `file:PATH`, `dstseq:PATH` or `hosts:PATH` (see `fatnet fabric load
    /// --help`), or a `(k, 2)` array of CA positions.
    #[pyo3(signature = (traffic, *, seed = fatnet::scenario::DEFAULT_SEED, top = fatnet::scenario::DEFAULT_TOP))]
    fn link_loads<'py>(
        &self,
        py: Python<'py>,
        traffic: &Bound<'py, PyAny>,
        seed: u64,
        top: usize,
    ) -> PyResult<Bound<'py, PyDict>> {
        self.tables()?;
        let f = &self.loaded.fabric;
        let pairs: Vec<(u32, u32)> = if let Ok(spec) = traffic.extract::<String>() {
            let spec: FabricTraffic =
                check(spec.parse(), || format!("invalid traffic spec `{spec}`"))?;
            let n = f.ca_order().len();
            check(spec.pairs(f, seed), || {
                fatnet::scenario::wording::cannot_make_traffic_on_cas(&spec, n)
            })?
        } else {
            let n = u32::try_from(f.ca_order().len()).unwrap_or(u32::MAX);
            let set = crate::traffic::pairs_to_set(traffic, n.max(1))?;
            set.messages().iter().map(|m| (m.src, m.dst)).collect()
        };
        let t = check(py.detach(|| f.traffic_load(&pairs, top)), String::new)?;
        let d = PyDict::new(py);
        d.set_item("messages", t.messages)?;
        d.set_item("delivered", t.delivered)?;
        d.set_item(
            "faults",
            pairs_array(
                py,
                &t.faults.iter().map(|&(s, d, _)| (s, d)).collect::<Vec<_>>(),
            ),
        )?;
        d.set_item("congestion", t.congestion)?;
        d.set_item("loaded_links", t.loaded_links)?;
        d.set_item(
            "hottest",
            t.hottest
                .iter()
                .map(|&(p, load)| (f.link_label(p), load))
                .collect::<Vec<_>>(),
        )?;
        d.set_item("per_link", t.per_link.into_pyarray(py))?;
        Ok(d)
    }

    /// Credit loops (deadlock) of the routes on one virtual lane, as `fatnet fabric credit`
    /// without lanes: a dict with `loop_free`, `routes`, `faulty_routes`, `channels`,
    /// `dependencies`, `cyclic_components`, `cyclic_channels` and, when there is a loop, a
    /// `witness` (its channels' link ids as an array, and the routes that close it). Needs
    /// tables.
    fn credit_loops<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        self.tables()?;
        let f = &self.loaded.fabric;
        let c = check(py.detach(|| credit_loops(f, None)), String::new)?;
        let d = PyDict::new(py);
        d.set_item("loop_free", c.is_free())?;
        d.set_item("routes", c.routes)?;
        d.set_item("faulty_routes", c.faulty_routes)?;
        d.set_item("channels", c.channels)?;
        d.set_item("dependencies", c.dependencies)?;
        d.set_item("cyclic_components", c.cyclic_components)?;
        d.set_item("cyclic_channels", c.cyclic_channels)?;
        match &c.witness {
            Some(w) => {
                let witness = PyDict::new(py);
                witness.set_item(
                    "links",
                    w.channels
                        .iter()
                        .map(|ch| ch.link.0)
                        .collect::<Vec<u32>>()
                        .into_pyarray(py),
                )?;
                witness.set_item("routes", pairs_array(py, &w.routes))?;
                d.set_item("witness", witness)?;
            }
            None => d.set_item("witness", py.None())?,
        }
        Ok(d)
    }

    /// Effective bisection bandwidth over `bisections` seeded random bisections of the CA
    /// order, as `fatnet fabric ebb`: a dict with `mean`, `half_width` (95%), `min`, `max`,
    /// `min_flow_share`, `flows_per_bisection` and `per_draw` (every bisection's value, a
    /// `float64` array). `flows` is `"both"` or `"one-way"`. Needs tables.
    #[pyo3(signature = (*, bisections = EbbConfig::default().bisections, seed = EbbConfig::default().seed, bins = EbbConfig::default().bins, flows = "both"))]
    fn ebb<'py>(
        &self,
        py: Python<'py>,
        bisections: u32,
        seed: u64,
        bins: u32,
        flows: &str,
    ) -> PyResult<Bound<'py, PyDict>> {
        self.tables()?;
        let flows: BisectionFlows = check(flows.parse(), String::new)?;
        let config = EbbConfig {
            bisections,
            seed,
            bins,
            flows,
        };
        let f = &self.loaded.fabric;
        let e = check(
            py.detach(|| effective_bisection_bandwidth(f, &config)),
            String::new,
        )?;
        let d = PyDict::new(py);
        d.set_item("mean", e.mean)?;
        d.set_item("half_width", e.half_width)?;
        d.set_item("min", e.min)?;
        d.set_item("max", e.max)?;
        d.set_item("min_flow_share", e.min_flow_share)?;
        d.set_item("flows_per_bisection", e.flows_per_bisection)?;
        d.set_item("per_draw", e.per_draw.into_pyarray(py))?;
        Ok(d)
    }

    /// Failure what-ifs, as `fatnet fabric failures`: `draws` seeded draws that each remove
    /// `links` random switch-to-switch links (CA links too with `ca_links=True`) or
    /// `switches` random switches, or one draw removing the links and switches named in
    /// `remove`; the damaged fabric is judged with its old tables and, with `reroute`
    /// (`"minhop"`, `"updn"`), after re-routing (OpenSM in the loop, `opensm:ENGINE`, is the
    /// CLI's). Returns a dict: `baseline` (the intact fabric's metrics), `removed` (per draw),
    /// and `before` / `after` (`None` without re-routing): one `float64` array per metric
    /// (`delivered`, `disconnected`, `worst_contention`, `nonblocking`, `max_hops`, ...; the
    /// library's `Metrics::values`: booleans as 0/1, NaN where a draw does not define one),
    /// one entry per draw. Needs tables.
    #[pyo3(signature = (*, links = None, switches = None, remove = None, ca_links = false, draws = FailureOptions::DEFAULT_DRAWS, seed = fatnet::scenario::DEFAULT_SEED, reroute = "none"))]
    #[allow(clippy::too_many_arguments)]
    fn failures<'py>(
        &self,
        py: Python<'py>,
        links: Option<u32>,
        switches: Option<u32>,
        remove: Option<Vec<String>>,
        ca_links: bool,
        draws: u32,
        seed: u64,
        reroute: &str,
    ) -> PyResult<Bound<'py, PyDict>> {
        self.tables()?;
        let failures = match (links, switches, remove) {
            (Some(count), None, None) => FailureSpec::Links { count, ca_links },
            (None, Some(count), None) => FailureSpec::Switches { count },
            (None, None, Some(names)) => FailureSpec::Named(names),
            _ => {
                return Err(crate::errors::FabricError::new_err(
                    "give exactly one of links=, switches= or remove= (as the CLI's --links, \
                     --switches, --remove)",
                ));
            }
        };
        let reroute: Reroute = check(reroute.parse(), String::new)?;
        let options = FailureOptions {
            failures,
            draws,
            seed,
            reroute,
        };
        let f = &self.loaded.fabric;
        let report = check(py.detach(|| failures::run(f, &options)), String::new)?;
        let columns =
            |pick: &dyn Fn(&Draw) -> Option<&Metrics>| -> PyResult<Option<Bound<'py, PyDict>>> {
                let rows: Vec<Vec<(&'static str, f64)>> = report
                    .draws
                    .iter()
                    .map(|d| pick(d).map(Metrics::values))
                    .collect::<Option<_>>()
                    .unwrap_or_default();
                if rows.is_empty() {
                    return Ok(None);
                }
                let d = PyDict::new(py);
                for (i, (name, _)) in rows[0].iter().enumerate() {
                    let values: Vec<f64> = rows.iter().map(|r| r[i].1).collect();
                    d.set_item(*name, values.into_pyarray(py))?;
                }
                Ok(Some(d))
            };
        let d = PyDict::new(py);
        let baseline = PyDict::new(py);
        for (name, value) in report.baseline.values() {
            baseline.set_item(name, value)?;
        }
        d.set_item("baseline", baseline)?;
        d.set_item(
            "removed",
            report
                .draws
                .iter()
                .map(|d| d.removed.clone())
                .collect::<Vec<_>>(),
        )?;
        d.set_item("before", columns(&|d| Some(&d.before))?)?;
        d.set_item("after", columns(&|d| d.after.as_ref())?)?;
        Ok(d)
    }

    fn __repr__(&self) -> String {
        format!(
            "Fabric({:?}, format={:?}, switches={}, cas={}, links={}, routes={})",
            self.path.display().to_string(),
            self.loaded.format.name(),
            self.switches(),
            self.cas(),
            self.links(),
            if self.loaded.fabric.has_lfts() {
                "True"
            } else {
                "False"
            }
        )
    }
}
