//! Failure what-if: remove named or random links and switches, re-route (or not), and judge
//! the routes before and after, as distributions over many seeded draws.
//!
//! **Key design decision: one metric struct, computed by one function.** [`Metrics`] holds
//! every number a draw reports and [`metrics`] computes all of it from a fabric (one
//! [`analyze`] plus a connectivity count); [`Metrics::values`] lists them by name, and the
//! distributions over draws ([`FailureReport::before`], [`FailureReport::after`]) are built
//! from that list. A new metric (effective bisection bandwidth, credit loops) is one field,
//! one line in [`metrics`] and one line in [`Metrics::values`].
//!
//! What the tools we follow measure, and what we take from them:
//!
//! - Domke, Hoefler and Matsuoka, "Fail-in-place network design: interaction between topology,
//!   routing algorithm and failures" (SC14): remove links or switches from the ibsim net file,
//!   let OpenSM re-route, then count the disconnected node pairs ("the routing algorithm
//!   failed" is distinguished from "the network is disconnected") and measure throughput with
//!   ORCS. Here: [`Metrics::disconnected`] (no path in the damaged graph) is kept apart from
//!   [`Metrics::unrouted`] (a path exists, the tables do not deliver).
//! - INRFlow (the flow-level interconnection simulator) studies topologies under uniformly
//!   random link and switch failures given as a failure rate. We take the uniform draw but fix
//!   the number `k` of failed elements instead of a rate, so the draws of one run are
//!   comparable; its exact metric definitions were not checked against its source here.
//!
//! **Decisions.** Random link failures pick among switch-to-switch links unless
//! [`FailureSpec::Links::ca_links`] is set: a CA's own link failing only loses that CA, which
//! is rarely the question. Random switch failures pick among all switches (a leaf switch takes
//! its CAs with it). Draw `i` removes its elements with `Pcg64::seed_from_u64(derive_seed(seed,
//! i))` (uniform `k`-subset, `rand::seq::index::sample`), so a draw does not depend on the other
//! draws or on the thread count. Pairs are the ordered pairs of distinct CAs of the CA order; a
//! CA sends from its lowest connected port (as [`Fabric::trace`]), and a pair is connected when
//! that port's switch reaches the destination's switch through working switches.

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

use rand::SeedableRng;
use rand_pcg::Pcg64;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::FabricError;
use crate::analysis::analyze;
use crate::fabric::{Fabric, NodeId, NodeKind};
use crate::removal::Removal;
use crate::routing::{Engine, route};

/// The most route hops a failure run may trace in total (draws × analyses × routes × hops):
/// about ten minutes of one core.
pub const MAX_FAILURE_WORK: u64 = 50_000_000_000;

/// Every number a draw reports about one fabric ([`metrics`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Metrics {
    /// Ordered pairs of distinct CAs (of the CA order).
    pub pairs: u64,
    /// Pairs with no path in the graph: lost whatever the routing does.
    pub disconnected: u64,
    /// Pairs with a path in the graph that the tables do not deliver (dead end, loop, wrong
    /// target): lost to the routing.
    pub unrouted: u64,
    /// Pairs the tables deliver.
    pub delivered: u64,
    /// Of the undelivered routes: those that loop.
    pub loops: u64,
    /// Whether every connected pair is delivered (`unrouted == 0`).
    pub routes_valid: bool,
    /// The longest delivered route, in hops (CA links included).
    pub max_hops: u32,
    /// The mean hops of the delivered routes (0 when none).
    pub mean_hops: f64,
    /// The exact worst-case permutation contention over the delivered routes.
    pub worst_contention: u32,
    /// Yuan's Lemma 1 over the delivered routes.
    pub nonblocking: bool,
    /// Links carrying two routes with distinct sources and distinct destinations.
    pub blocking_links: u64,
    /// The largest congestion of a cyclic shift `i → i + k` (CA order).
    pub max_shift_congestion: u32,
    /// Cyclic shifts with congestion at most 1.
    pub congestion_free_shifts: u32,
    /// Whether the channel dependency graph of the routes (all on one virtual lane) is
    /// acyclic: no credit loop ([`crate::credit_loops`]).
    pub credit_loop_free: bool,
    /// The mean effective bisection bandwidth ([`crate::effective_bisection_bandwidth`]) over
    /// [`METRIC_BISECTIONS`] bisections of seed 1 (the same bisections for every fabric of a
    /// run, so before and after compare pair by pair); `None` when some route does not arrive
    /// (the measure needs every flow routed) or the CA count is odd.
    pub ebb: Option<f64>,
}

/// The bisections behind [`Metrics::ebb`]: fewer than `fatnet fabric ebb`'s 1,000, since the
/// metrics are computed twice per draw (the interval over 100 bisections of `is4_3l_1944n` is
/// ±0.001).
pub const METRIC_BISECTIONS: u32 = 100;

impl Metrics {
    /// The metrics as named numbers (booleans as 0/1, a metric that does not apply as NaN), in
    /// a fixed order: what the distributions over draws are built from.
    #[must_use]
    pub fn values(&self) -> Vec<(&'static str, f64)> {
        vec![
            ("disconnected", self.disconnected as f64),
            ("unrouted", self.unrouted as f64),
            ("delivered", self.delivered as f64),
            ("loops", self.loops as f64),
            ("routes_valid", f64::from(u8::from(self.routes_valid))),
            ("max_hops", f64::from(self.max_hops)),
            ("mean_hops", self.mean_hops),
            ("worst_contention", f64::from(self.worst_contention)),
            ("nonblocking", f64::from(u8::from(self.nonblocking))),
            ("blocking_links", self.blocking_links as f64),
            ("max_shift_congestion", f64::from(self.max_shift_congestion)),
            (
                "congestion_free_shifts",
                f64::from(self.congestion_free_shifts),
            ),
            (
                "credit_loop_free",
                f64::from(u8::from(self.credit_loop_free)),
            ),
            ("ebb", self.ebb.unwrap_or(f64::NAN)),
        ]
    }
}

/// Ordered CA pairs (of the CA order) with no path in the graph: a CA sends from its lowest
/// connected port; CAs do not forward.
#[must_use]
pub fn disconnected_pairs(fabric: &Fabric) -> u64 {
    // Union-find over switch-to-switch links.
    let n = fabric.node_count();
    let mut parent: Vec<u32> = (0..n as u32).collect();
    fn find(parent: &mut [u32], mut x: u32) -> u32 {
        while parent[x as usize] != x {
            parent[x as usize] = parent[parent[x as usize] as usize];
            x = parent[x as usize];
        }
        x
    }
    let is_switch = |id: NodeId| fabric.node(id).kind() == NodeKind::Switch;
    for l in fabric.links() {
        if is_switch(l.a.node) && is_switch(l.b.node) {
            let (a, b) = (find(&mut parent, l.a.node.0), find(&mut parent, l.b.node.0));
            parent[a as usize] = b;
        }
    }
    // A CA's component: its sending port's switch; a CA wired to a CA or to nothing is alone
    // (its own id).
    let mut size: BTreeMap<u32, u64> = BTreeMap::new();
    let mut direct = 0u64;
    for &c in fabric.ca_order() {
        let comp = match fabric
            .node(c)
            .first_connected_port()
            .and_then(|p| fabric.peer(c, p))
        {
            Some(e) if is_switch(e.node) => find(&mut parent, e.node.0),
            Some(e) => {
                // CA to CA: the two reach each other directly.
                if fabric.ca_order().contains(&e.node) {
                    direct += 1;
                }
                u32::MAX - c.0
            }
            None => u32::MAX - c.0,
        };
        *size.entry(comp).or_default() += 1;
    }
    let cas = fabric.ca_order().len() as u64;
    let connected: u64 = size.values().map(|&s| s * s.saturating_sub(1)).sum::<u64>() + direct;
    (cas * cas.saturating_sub(1)).saturating_sub(connected)
}

/// Computes every [`Metrics`] of `fabric`: one [`analyze`], one connectivity count, one
/// credit-loop check and one effective-bisection-bandwidth run.
///
/// # Errors
/// As [`analyze`].
pub fn metrics(fabric: &Fabric) -> Result<Metrics, FabricError> {
    let a = analyze(fabric)?;
    let t = a.routes.summary();
    let disconnected = disconnected_pairs(fabric);
    let undelivered = t.routes - t.delivered;
    let config = crate::EbbConfig {
        bisections: METRIC_BISECTIONS,
        ..crate::EbbConfig::default()
    };
    let ebb = match crate::effective_bisection_bandwidth(fabric, &config) {
        Ok(e) => Some(e.mean),
        Err(FabricError::BadRoute { .. } | FabricError::BisectionCas { .. }) => None,
        Err(e) => return Err(e),
    };
    Ok(Metrics {
        pairs: t.routes,
        disconnected,
        unrouted: undelivered.saturating_sub(disconnected),
        delivered: t.delivered,
        loops: t.loops,
        routes_valid: undelivered <= disconnected,
        max_hops: t.max_hops,
        mean_hops: if t.delivered == 0 {
            0.0
        } else {
            t.total_hops as f64 / t.delivered as f64
        },
        worst_contention: a.worst.contention,
        nonblocking: a.lemma1.is_nonblocking(),
        blocking_links: a.lemma1.blocking_links.len() as u64,
        max_shift_congestion: a.shifts.iter().map(|s| s.congestion).max().unwrap_or(0),
        congestion_free_shifts: a.shifts.iter().filter(|s| s.congestion <= 1).count() as u32,
        credit_loop_free: crate::credit_loops(fabric, None)?.is_free(),
        ebb,
    })
}

/// What fails.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FailureSpec {
    /// `count` random links per draw.
    Links {
        /// Links removed per draw.
        count: u32,
        /// Whether CA links are candidates too (default: switch-to-switch links only).
        #[serde(default)]
        ca_links: bool,
    },
    /// `count` random switches per draw.
    Switches {
        /// Switches removed per draw.
        count: u32,
    },
    /// These links and switches (names as [`Removal::parse`] reads them): one draw.
    Named(Vec<String>),
}

/// How the damaged fabric is re-routed.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Reroute {
    /// Keep the old tables: what breaks if the subnet manager does nothing.
    #[default]
    None,
    /// Fresh tables from a built-in engine ([`crate::routing`]).
    Engine(Engine),
    /// Fresh tables from a real OpenSM (`opensm -R ENGINE` under ibsim), through the runner
    /// the caller gives [`run_with`]: this library never starts a process itself.
    OpenSm(String),
}

impl fmt::Display for Reroute {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reroute::None => f.write_str("none"),
            Reroute::Engine(e) => e.fmt(f),
            Reroute::OpenSm(e) => write!(f, "opensm:{e}"),
        }
    }
}

/// A re-routing that is not `none`, `minhop` or `updn`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown re-routing `{0}` (expected none, minhop, updn or opensm:ENGINE)")]
pub struct UnknownReroute(pub String);

impl FromStr for Reroute {
    type Err = UnknownReroute;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "none" => Ok(Reroute::None),
            other if other.starts_with("opensm:") => {
                let engine = &other["opensm:".len()..];
                let ok = !engine.is_empty()
                    && engine
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
                if ok {
                    Ok(Reroute::OpenSm(engine.to_owned()))
                } else {
                    Err(UnknownReroute(other.to_owned()))
                }
            }
            other => other
                .parse()
                .map(Reroute::Engine)
                .map_err(|_| UnknownReroute(other.to_owned())),
        }
    }
}

/// A failure what-if ([`run`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FailureOptions {
    /// What fails.
    pub failures: FailureSpec,
    /// Draws (ignored for [`FailureSpec::Named`], which is one draw).
    pub draws: u32,
    /// Master seed: draw `i` uses `derive_seed(seed, i)`.
    pub seed: u64,
    /// The re-routing after the failure.
    pub reroute: Reroute,
}

impl FailureOptions {
    /// Draws when none are given.
    pub const DEFAULT_DRAWS: u32 = 100;
}

/// One draw: what was removed and the metrics with the old tables and after re-routing.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Draw {
    /// The draw's index.
    pub index: u32,
    /// The removed links (`NAME[port] -> NAME[port]`) and switches (names).
    pub removed: Vec<String>,
    /// The damaged fabric with the old tables.
    pub before: Metrics,
    /// The damaged fabric re-routed (`None` for [`Reroute::None`]).
    pub after: Option<Metrics>,
}

/// One histogram bin: values in `lo..=hi` (a single value when `lo == hi`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Bin {
    /// Lower bound.
    pub lo: f64,
    /// Upper bound (inclusive).
    pub hi: f64,
    /// Draws in the bin.
    pub count: u64,
}

/// A metric's distribution over the draws.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Distribution {
    /// The metric's name ([`Metrics::values`]).
    pub name: String,
    /// Draws the metric applies to (a NaN value, such as the eBB of a fabric with lost
    /// routes, is left out).
    pub n: u64,
    /// The mean.
    pub mean: f64,
    /// Half-width of the 95 % confidence interval of the mean (Student t, `t · s / √n`, as
    /// every interval over independent draws in the workspace; 0 for fewer than two draws).
    pub half_width: f64,
    /// The smallest value.
    pub min: f64,
    /// The largest value.
    pub max: f64,
    /// One bin per distinct value when there are at most [`Distribution::DISTINCT_BINS`],
    /// else [`Distribution::BINS`] equal-width bins from `min` to `max`.
    pub histogram: Vec<Bin>,
}

impl Distribution {
    /// The most distinct values listed one per bin.
    pub const DISTINCT_BINS: usize = 16;
    /// Equal-width bins otherwise.
    pub const BINS: usize = 10;

    /// The distribution of `values` (summed in the given order: deterministic).
    #[must_use]
    pub fn of(name: &str, values: &[f64]) -> Self {
        // A metric that does not apply to a draw (NaN) is left out of its distribution.
        let values: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
        let n = values.len();
        let mean = if n == 0 {
            0.0
        } else {
            values.iter().sum::<f64>() / n as f64
        };
        let half_width = if n < 2 {
            0.0
        } else {
            fatnet_queueing::stats::batch_means_half_width(&values, 0.95)
        };
        let min = values.iter().copied().fold(f64::INFINITY, f64::min);
        let max = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let mut sorted = values.to_vec();
        sorted.sort_by(f64::total_cmp);
        sorted.dedup();
        let histogram = if sorted.len() <= Self::DISTINCT_BINS {
            sorted
                .iter()
                .map(|&v| Bin {
                    lo: v,
                    hi: v,
                    count: values.iter().filter(|&&x| x == v).count() as u64,
                })
                .collect()
        } else {
            let width = (max - min) / Self::BINS as f64;
            let mut bins: Vec<Bin> = (0..Self::BINS)
                .map(|i| Bin {
                    lo: min + width * i as f64,
                    hi: if i + 1 == Self::BINS {
                        max
                    } else {
                        min + width * (i + 1) as f64
                    },
                    count: 0,
                })
                .collect();
            for &v in &values {
                let i = (((v - min) / width) as usize).min(Self::BINS - 1);
                bins[i].count += 1;
            }
            bins
        };
        Distribution {
            name: name.to_owned(),
            n: n as u64,
            mean,
            half_width,
            min: if n == 0 { 0.0 } else { min },
            max: if n == 0 { 0.0 } else { max },
            histogram,
        }
    }

    /// The distribution of every metric over `metrics`, in [`Metrics::values`] order.
    #[must_use]
    pub fn all<'a>(metrics: impl Iterator<Item = &'a Metrics>) -> Vec<Distribution> {
        let columns: Vec<Vec<(&'static str, f64)>> = metrics.map(Metrics::values).collect();
        let Some(first) = columns.first() else {
            return Vec::new();
        };
        (0..first.len())
            .map(|k| {
                let v: Vec<f64> = columns.iter().map(|c| c[k].1).collect();
                Distribution::of(first[k].0, &v)
            })
            .collect()
    }
}

/// The result of [`run`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FailureReport {
    /// The options.
    pub options: FailureOptions,
    /// The intact fabric.
    pub baseline: Metrics,
    /// Every draw, in index order.
    pub draws: Vec<Draw>,
    /// Each metric over the draws, old tables.
    pub before: Vec<Distribution>,
    /// Each metric over the draws, re-routed (empty for [`Reroute::None`]).
    pub after: Vec<Distribution>,
}

/// The elements of draw `index` (module documentation).
///
/// # Errors
/// [`FabricError::TooLarge`] when more links or switches are asked for than the fabric has
/// candidates; the errors of [`Removal::parse`] for named elements.
pub fn draw_removal(
    fabric: &Fabric,
    spec: &FailureSpec,
    seed: u64,
    index: u32,
) -> Result<Removal, FabricError> {
    let mut rng = Pcg64::seed_from_u64(fatnet_traffic::derive_seed(seed, u64::from(index)));
    let is_switch = |id: NodeId| fabric.node(id).kind() == NodeKind::Switch;
    let pick = |len: usize, k: u32, what: &'static str, rng: &mut Pcg64| {
        if k as usize > len {
            return Err(FabricError::TooLarge {
                what,
                count: u64::from(k),
                limit: len as u64,
            });
        }
        let mut v = rand::seq::index::sample(rng, len, k as usize).into_vec();
        v.sort_unstable();
        Ok(v)
    };
    let mut r = match spec {
        FailureSpec::Links { count, ca_links } => {
            let candidates: Vec<usize> = fabric
                .links()
                .iter()
                .enumerate()
                .filter(|(_, l)| *ca_links || (is_switch(l.a.node) && is_switch(l.b.node)))
                .map(|(i, _)| i)
                .collect();
            let what = if *ca_links {
                "links to remove per draw (the fabric's links)"
            } else {
                "links to remove per draw (the fabric's switch-to-switch links)"
            };
            let chosen = pick(candidates.len(), *count, what, &mut rng)?;
            Removal {
                links: chosen.into_iter().map(|i| candidates[i]).collect(),
                switches: Vec::new(),
            }
        }
        FailureSpec::Switches { count } => {
            let candidates: Vec<NodeId> = fabric.switches().collect();
            let what = "switches to remove per draw (the fabric's switches)";
            let chosen = pick(candidates.len(), *count, what, &mut rng)?;
            Removal {
                links: Vec::new(),
                switches: chosen.into_iter().map(|i| candidates[i]).collect(),
            }
        }
        FailureSpec::Named(names) => Removal::parse(fabric, names)?,
    };
    r.normalise();
    Ok(r)
}

/// Runs a failure what-if on `fabric` (which must have forwarding tables for the "before"
/// numbers to mean anything; without them every route is a dead end): the intact baseline,
/// then every draw in parallel (rayon; results in draw order and independent of the thread
/// count), then the distributions.
///
/// # Errors
/// [`FabricError::TooLarge`] when the estimated work, `draws × analyses per draw × pairs ×
/// the baseline's longest route`, exceeds [`MAX_FAILURE_WORK`] (checked after the baseline,
/// before any draw), or for too many elements per draw; the errors of [`draw_removal`],
/// [`metrics`] and [`route`].
pub fn run(fabric: &Fabric, options: &FailureOptions) -> Result<FailureReport, FabricError> {
    run_with(fabric, options, &|_: &Fabric, engine: &str| {
        Err(FabricError::ExternalRouting {
            engine: engine.to_owned(),
            reason: "no OpenSM runner given (failures::run_with)".to_owned(),
        })
    })
}

/// A re-routing by an external subnet manager: the damaged fabric and the OpenSM engine in,
/// the fabric with the manager's tables out (for OpenSM under ibsim: write
/// [`crate::export::fabric_net`], run `scripts/opensm-loop.sh`, read the dumps, then
/// [`crate::routing::adopt_tables`]).
pub type ExternalRouter<'a> = dyn Fn(&Fabric, &str) -> Result<Fabric, FabricError> + Sync + 'a;

/// [`run`], with `external` doing the re-routing of [`Reroute::OpenSm`].
///
/// # Errors
/// As [`run`], and whatever `external` returns.
pub fn run_with(
    fabric: &Fabric,
    options: &FailureOptions,
    external: &ExternalRouter<'_>,
) -> Result<FailureReport, FabricError> {
    let baseline = metrics(fabric)?;
    let draws = match options.failures {
        FailureSpec::Named(_) => 1,
        _ => options.draws,
    };
    let analyses: u64 = if options.reroute == Reroute::None {
        1
    } else {
        2
    };
    let work = u64::from(draws)
        .saturating_mul(analyses)
        .saturating_mul(baseline.pairs)
        .saturating_mul(u64::from(baseline.max_hops.max(1)));
    if work > MAX_FAILURE_WORK {
        return Err(FabricError::TooLarge {
            what: "route hops to trace (draws x analyses x CA pairs x longest route)",
            count: work,
            limit: MAX_FAILURE_WORK,
        });
    }
    // Resolve every removal first: a bad name or count fails before any work.
    let removals: Vec<Removal> = (0..draws)
        .map(|i| draw_removal(fabric, &options.failures, options.seed, i))
        .collect::<Result<_, _>>()?;
    let results: Vec<Draw> = removals
        .into_par_iter()
        .enumerate()
        .map(|(i, removal)| {
            let damaged = fabric.without(&removal)?;
            let before = metrics(&damaged)?;
            let after = match &options.reroute {
                Reroute::None => None,
                Reroute::Engine(e) => Some(metrics(&route(&damaged, *e)?)?),
                Reroute::OpenSm(e) => Some(metrics(&external(&damaged, e)?)?),
            };
            Ok(Draw {
                index: i as u32,
                removed: removal.labels(fabric),
                before,
                after,
            })
        })
        .collect::<Result<_, FabricError>>()?;
    let before = Distribution::all(results.iter().map(|d| &d.before));
    let after = Distribution::all(results.iter().filter_map(|d| d.after.as_ref()));
    Ok(FailureReport {
        options: options.clone(),
        baseline,
        draws: results,
        before,
        after,
    })
}
