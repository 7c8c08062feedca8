//! Summaries of a sweep's results: per grid point the mean of every metric with its
//! 95% Student-t confidence interval, and one plot per swept parameter.
//!
//! Each kind of sweep has its own [`metrics`]: latencies and queues for the packet simulator,
//! delivery cycles for the routers and the scheduler.
//!
//! **Key design decision: a summary is a function of the results file's set of records.** It
//! reads the records ([`for_each_record`]: a partial last line ignored and reported), puts each
//! trial's metrics in task order, and never modifies the directory's results, so it can run
//! while a sweep is still writing, and any thread count, rank count or interruption that gives
//! the same records gives the same summary byte for byte. Summaries of an unfinished sweep say
//! how many tasks are missing.
//!
//! **Memory.** [`summarize_sweep`] streams the results file: it keeps each finished trial's
//! metrics (16 bytes per metric: the trial index and the value, sorted by trial before the
//! statistics), never the records, and refuses a sweep whose metrics alone would exceed
//! [`SUMMARY_BUDGET`] before reading it.
//!
//! # The plots
//!
//! By default, one figure per swept parameter `k` (a key taking more than one value over the
//! grid): the horizontal axis is `k`'s values (numeric if they are all numbers, else
//! categorical, in the order of the sweep file), the vertical axis the mean of the chosen
//! [`Metric`] with its 95% confidence interval as an error bar, and one series per combination
//! of the *other* swept parameters (`[zip]` keys vary together with `k` and so do not split
//! series). A numeric axis joins a series' points with a line; a categorical one draws markers
//! only, as its values have no order.
//!
//! [`PlotOptions`] choose instead: `x`, the one swept parameter on the horizontal axis;
//! `series`, the swept parameter whose values name the lines (`series=value` first in each
//! legend entry, the lines in the sweep file's order of its values; any further swept
//! parameters still split lines, after it); `log_x` and `log_y`, base-2 logarithmic axes
//! (ticks at powers of two, labelled `2^k`, as the sweeps' sizes and loads mostly are).
//! [`SweepSummary::figures`] refuses, with a typed [`ReproError`], a metric of another kind of
//! sweep, a parameter that is not swept, the same parameter as `x` and `series`, and a
//! logarithmic horizontal axis over a parameter with a non-numeric or non-positive value (the
//! values come from the sweep file, so the figure could never be drawn). A mean ≤ 0 on a
//! logarithmic vertical axis is measured, not chosen: it is not refused but listed in the
//! CSV and named in the figure's "not drawn" note.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use fatnet::online::packet::PacketReport;

use crate::figure::{ErrorBar, Figure, Series};
use crate::runner::Summary;
use crate::sweep::{
    DynamicResult, ParamValue, RouteResult, SWEEP_FILE, ScheduleResult, SweepKind, SweepResults,
    SweepSpec, TrialResult, for_each_record,
};
use crate::{ReproError, write_atomically};

/// A number read from each trial's result.
#[derive(Debug)]
pub struct Metric {
    /// Name, as in `fatnet sweep summarize --metric` and the CSV's `metric` column.
    pub name: &'static str,
    /// Short axis label, with its unit.
    pub label: &'static str,
    /// What it measures, with its unit.
    pub description: &'static str,
    /// Whether the Markdown summary shows it (the CSV has every metric).
    pub in_table: bool,
    /// Its value for one trial (`None` for a result of another kind of sweep).
    pub of: fn(&TrialResult) -> Option<f64>,
}

fn packet(r: &TrialResult) -> Option<&PacketReport> {
    match r {
        TrialResult::Packet(p) => Some(p),
        _ => None,
    }
}

fn route(r: &TrialResult) -> Option<&RouteResult> {
    match r {
        TrialResult::Route(p) => Some(p),
        _ => None,
    }
}

fn schedule(r: &TrialResult) -> Option<&ScheduleResult> {
    match r {
        TrialResult::Schedule(p) => Some(p),
        _ => None,
    }
}

fn dynamic(r: &TrialResult) -> Option<&DynamicResult> {
    match r {
        TrialResult::Dynamic(p) => Some(p),
        _ => None,
    }
}

/// `a / b`, or NaN when `b` is 0 (an empty message set has λ = 0).
fn ratio(a: u64, b: f64) -> f64 {
    if b > 0.0 { a as f64 / b } else { f64::NAN }
}

/// The metrics of a packet-simulation trial, in the order of the summary's columns.
pub const PACKET_METRICS: [Metric; 9] = [
    Metric {
        name: "latency",
        label: "max latency (flit-steps)",
        description: "maximum latency: the step in which the last message was delivered (flit-steps)",
        in_table: true,
        of: |r| packet(r).map(|r| r.latency as f64),
    },
    Metric {
        name: "mean_latency",
        label: "mean latency (flit-steps)",
        description: "mean over delivered messages of delivery minus release step (flit-steps)",
        in_table: true,
        of: |r| packet(r).map(|r| r.mean_latency),
    },
    Metric {
        name: "congestion",
        label: "congestion (worms per link)",
        description: "realized congestion: most worms whose head crossed one link",
        in_table: true,
        of: |r| packet(r).map(|r| f64::from(r.congestion)),
    },
    Metric {
        name: "dilation",
        label: "dilation (links)",
        description: "longest path a delivered unit took (links)",
        in_table: false,
        of: |r| packet(r).map(|r| f64::from(r.dilation)),
    },
    Metric {
        name: "delivered",
        label: "fraction delivered",
        description: "fraction of the messages delivered",
        in_table: true,
        of: |r| {
            packet(r).map(|r| {
                if r.messages == 0 {
                    1.0
                } else {
                    r.delivered as f64 / r.messages as f64
                }
            })
        },
    },
    Metric {
        name: "steps",
        label: "engine steps",
        description: "engine steps simulated",
        in_table: false,
        of: |r| packet(r).map(|r| r.steps as f64),
    },
    Metric {
        name: "mean_queued",
        label: "mean units queued",
        description: "time-average number of units in link queues",
        in_table: true,
        of: |r| packet(r).map(|r| r.mean_queued),
    },
    Metric {
        name: "max_queue",
        label: "largest queue (units)",
        description: "largest number of units in one link queue at the end of a step",
        in_table: false,
        of: |r| packet(r).map(|r| f64::from(r.max_queue)),
    },
    Metric {
        name: "unit_hops",
        label: "unit-link crossings",
        description: "unit-link crossings (flit-hops; packet-hops for store-and-forward)",
        in_table: false,
        of: |r| packet(r).map(|r| r.unit_hops as f64),
    },
];

/// The metrics of a delivery-cycle routing trial.
pub const ROUTE_METRICS: [Metric; 5] = [
    Metric {
        name: "cycles",
        label: "delivery cycles",
        description: "delivery cycles used",
        in_table: true,
        of: |r| route(r).map(|r| r.cycles as f64),
    },
    Metric {
        name: "cycles_over_lambda",
        label: "cycles / λ(M)",
        description: "delivery cycles divided by the load factor λ(M)",
        in_table: true,
        of: |r| route(r).map(|r| ratio(r.cycles, r.load_factor)),
    },
    Metric {
        name: "load_factor",
        label: "load factor λ(M)",
        description: "load factor λ(M) of the trial's message set",
        in_table: true,
        of: |r| route(r).map(|r| r.load_factor),
    },
    Metric {
        name: "finished",
        label: "fraction finished",
        description: "fraction of the trials that delivered every message within max_cycles",
        in_table: true,
        of: |r| route(r).map(|r| f64::from(u8::from(r.finished))),
    },
    Metric {
        name: "messages",
        label: "messages",
        description: "messages in the trial's set",
        in_table: false,
        of: |r| route(r).map(|r| r.messages as f64),
    },
];

/// The metrics of an off-line scheduling trial.
pub const SCHEDULE_METRICS: [Metric; 6] = [
    Metric {
        name: "cycles",
        label: "delivery cycles",
        description: "delivery cycles of the schedule",
        in_table: true,
        of: |r| schedule(r).map(|r| r.cycles as f64),
    },
    Metric {
        name: "cycles_over_lambda",
        label: "cycles / λ(M)",
        description: "delivery cycles divided by the load factor λ(M)",
        in_table: true,
        of: |r| schedule(r).map(|r| ratio(r.cycles, r.load_factor)),
    },
    Metric {
        name: "cycles_over_bound",
        label: "cycles / guaranteed bound",
        description: "delivery cycles divided by the theorem's guaranteed bound",
        in_table: true,
        of: |r| schedule(r).map(|r| ratio(r.cycles, r.bound as f64)),
    },
    Metric {
        name: "load_factor",
        label: "load factor λ(M)",
        description: "load factor λ(M) of the trial's message set",
        in_table: true,
        of: |r| schedule(r).map(|r| r.load_factor),
    },
    Metric {
        name: "verified",
        label: "fraction verified",
        description: "fraction of the schedules that passed the cycle-by-cycle verification",
        in_table: true,
        of: |r| schedule(r).map(|r| f64::from(u8::from(r.verified))),
    },
    Metric {
        name: "messages",
        label: "messages",
        description: "messages in the trial's set",
        in_table: false,
        of: |r| schedule(r).map(|r| r.messages as f64),
    },
];

/// The metrics of a dynamic-routing trial (one steady-state run each). A run without a
/// measured packet has no delay: its trial is left out of the delay metrics.
pub const DYNAMIC_METRICS: [Metric; 7] = [
    Metric {
        name: "delay",
        label: "mean delay T (time units)",
        description: "mean delay T of the measured packets, generation to last transmission (time units)",
        in_table: true,
        of: |r| dynamic(r).and_then(|r| r.delay_mean),
    },
    Metric {
        name: "delay_over_lower",
        label: "T / proved lower bound",
        description: "mean delay divided by the best lower bound the thesis proves for the case",
        in_table: true,
        of: |r| dynamic(r).and_then(|r| Some(r.delay_mean? / r.lower_bound)),
    },
    Metric {
        name: "delay_over_upper",
        label: "T / proved upper bound",
        description: "mean delay divided by the best upper bound the thesis proves (none for the adaptive scheme)",
        in_table: true,
        of: |r| dynamic(r).and_then(|r| Some(r.delay_mean? / r.upper_bound?)),
    },
    Metric {
        name: "number",
        label: "packets in the network",
        description: "time-average number of packets in the network (Little: λ·2^d·T)",
        in_table: true,
        of: |r| dynamic(r).and_then(|r| r.number_mean),
    },
    Metric {
        name: "hops",
        label: "arcs per packet",
        description: "mean number of arcs crossed per measured packet",
        in_table: false,
        of: |r| dynamic(r).and_then(|r| r.hops_mean),
    },
    Metric {
        name: "rho",
        label: "load factor ρ",
        description: "load factor ρ of the case (λp on the cube, λ·max(p, 1 − p) on the butterfly)",
        in_table: true,
        of: |r| dynamic(r).map(|r| r.rho),
    },
    Metric {
        name: "measured",
        label: "packets measured",
        description: "packets generated after the warm-up and measured",
        in_table: false,
        of: |r| dynamic(r).map(|r| r.measured as f64),
    },
];

/// The metrics of a kind of sweep; the first is the default of the plots.
pub fn metrics(kind: SweepKind) -> &'static [Metric] {
    match kind {
        SweepKind::Packet => &PACKET_METRICS,
        SweepKind::Route => &ROUTE_METRICS,
        SweepKind::Schedule => &SCHEDULE_METRICS,
        SweepKind::Dynamic => &DYNAMIC_METRICS,
    }
}

impl Metric {
    /// The metric called `name` of a kind of sweep.
    pub fn by_name(kind: SweepKind, name: &str) -> Option<&'static Metric> {
        metrics(kind).iter().find(|m| m.name == name)
    }

    /// The metric called `name` of a kind of sweep, or its first metric for `None`.
    ///
    /// # Errors
    ///
    /// [`ReproError::UnknownMetric`], listing the kind's metrics, if it has none called `name`.
    pub fn named(kind: SweepKind, name: Option<&str>) -> Result<&'static Metric, ReproError> {
        match name {
            None => Ok(&metrics(kind)[0]),
            Some(name) => Metric::by_name(kind, name).ok_or_else(|| ReproError::UnknownMetric {
                metric: name.to_string(),
                kind,
                known: metrics(kind).iter().map(|m| m.name).collect(),
            }),
        }
    }
}

/// What [`SweepSummary::figures`] draws; `PlotOptions::default()` is one figure per swept
/// parameter of the kind's first metric, on linear axes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PlotOptions {
    /// The metric on the vertical axis, by [`Metric::name`]; `None` for the first of
    /// [`metrics`] of the sweep's kind.
    pub metric: Option<String>,
    /// The swept parameter on the horizontal axis; `None` for one figure per swept parameter.
    pub x: Option<String>,
    /// The swept parameter whose values name the lines; `None` for one line per combination of
    /// the other swept parameters.
    pub series: Option<String>,
    /// Logarithmic (base 2) horizontal axis.
    pub log_x: bool,
    /// Logarithmic (base 2) vertical axis.
    pub log_y: bool,
}

/// Which choice of [`PlotOptions`] names a parameter, as errors report it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum PlotRole {
    /// [`PlotOptions::x`].
    X,
    /// [`PlotOptions::series`].
    Series,
}

impl std::fmt::Display for PlotRole {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            PlotRole::X => "x",
            PlotRole::Series => "series",
        })
    }
}

/// One grid point's statistics.
#[derive(Clone, Debug)]
pub struct PointSummary {
    /// Grid point index.
    pub point: u64,
    /// Its parameters as written in the sweep file.
    pub params: BTreeMap<String, ParamValue>,
    /// Per metric of [`metrics`] of the sweep's kind, in order: mean, 95% CI, spread over the point's finished
    /// trials (`n = 0` when none finished).
    pub stats: Vec<Summary>,
}

/// A sweep's results, summarized per grid point.
#[derive(Clone, Debug)]
pub struct SweepSummary {
    /// What the sweep ran.
    pub kind: SweepKind,
    /// Tasks in the sweep.
    pub tasks: u64,
    /// Trials per point.
    pub trials: u64,
    /// The sweep's master seed.
    pub seed: u64,
    /// Tasks with a result.
    pub finished: u64,
    /// Bytes of an ignored partial last line.
    pub partial_bytes: u64,
    /// The swept parameters, alphabetically.
    pub swept: Vec<String>,
    /// The `[zip]` keys.
    pub zip_keys: Vec<String>,
    /// Every grid point, in grid order.
    pub points: Vec<PointSummary>,
}

/// The most memory [`summarize_sweep`] gives the per-trial metrics (2 GiB, the workspace's
/// memory budget): 16 bytes per metric per task.
pub const SUMMARY_BUDGET: u64 = fatnet::topology::MEMORY_BUDGET;

/// Summarizes the sweep in `out_dir` (read-only), streaming its results file.
///
/// # Errors
///
/// As [`read_results`](crate::sweep::read_results), and [`ReproError::SummaryTooLarge`] when the sweep's tasks × metrics × 16 bytes exceed
/// [`SUMMARY_BUDGET`], before the results are read.
pub fn summarize_sweep(out_dir: &Path) -> Result<SweepSummary, ReproError> {
    let spec = SweepSpec::from_file(&out_dir.join(SWEEP_FILE))?;
    let list = metrics(spec.kind());
    let bytes = u128::from(spec.tasks()) * list.len() as u128 * 16;
    if bytes > u128::from(SUMMARY_BUDGET) {
        return Err(ReproError::SummaryTooLarge {
            tasks: spec.tasks(),
            estimate: u64::try_from(bytes).unwrap_or(u64::MAX),
            max: SUMMARY_BUDGET,
        });
    }
    let mut samples = Samples::new(&spec);
    let mut finished = 0u64;
    let partial_bytes = for_each_record(&spec, out_dir, &mut |record| {
        finished += 1;
        samples.push(&record);
    })?;
    Ok(SweepSummary::from_samples(
        &spec,
        samples,
        finished,
        partial_bytes,
    ))
}

/// Each point's metric values with their trial index, as records arrive in any order.
struct Samples {
    kind: SweepKind,
    /// `values[point][metric]`: (trial, value).
    values: Vec<Vec<Vec<(u64, f64)>>>,
}

impl Samples {
    fn new(spec: &SweepSpec) -> Samples {
        let kind = spec.kind();
        Samples {
            kind,
            values: vec![vec![Vec::new(); metrics(kind).len()]; spec.points() as usize],
        }
    }

    fn push(&mut self, record: &crate::sweep::TrialRecord) {
        for (m, metric) in metrics(self.kind).iter().enumerate() {
            if let Some(v) = (metric.of)(&record.result) {
                self.values[record.point as usize][m].push((record.trial, v));
            }
        }
    }
}

/// `name=value` pairs of `keys` in `params`, comma-separated.
fn describe(params: &BTreeMap<String, ParamValue>, keys: &[&String]) -> String {
    keys.iter()
        .filter_map(|k| params.get(*k).map(|v| format!("{k}={v}")))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A parameter's value as a number, if it is one.
fn param_number(v: &ParamValue) -> Option<f64> {
    match v {
        ParamValue::Int(n) => Some(*n as f64),
        ParamValue::Float(x) => Some(*x),
        _ => None,
    }
}

/// Three decimals, whatever the value, so a column lines up.
fn fmt_num(v: f64) -> String {
    format!("{:.3}", v + 0.0)
}

impl SweepSummary {
    /// Summarizes `results` (held in memory; [`summarize_sweep`] streams a results file).
    pub fn of(results: &SweepResults) -> SweepSummary {
        let mut samples = Samples::new(&results.spec);
        for record in &results.records {
            samples.push(record);
        }
        SweepSummary::from_samples(
            &results.spec,
            samples,
            results.records.len() as u64,
            results.partial_bytes,
        )
    }

    /// The statistics of every point, each metric's values taken in trial order: the same
    /// summary whatever order the records came in.
    fn from_samples(
        spec: &SweepSpec,
        samples: Samples,
        finished: u64,
        partial_bytes: u64,
    ) -> SweepSummary {
        let kind = spec.kind();
        let points = samples
            .values
            .into_iter()
            .enumerate()
            .map(|(point, per_metric)| PointSummary {
                point: point as u64,
                params: spec.params(point as u64).cloned().unwrap_or_default(),
                stats: per_metric
                    .into_iter()
                    .map(|mut s| {
                        s.sort_unstable_by_key(|&(trial, _)| trial);
                        let values: Vec<f64> = s.into_iter().map(|(_, v)| v).collect();
                        Summary::of(&values)
                    })
                    .collect(),
            })
            .collect();
        SweepSummary {
            kind,
            tasks: spec.tasks(),
            trials: spec.trials(),
            seed: spec.seed(),
            finished,
            partial_bytes,
            swept: spec.swept(),
            zip_keys: spec.zip_keys().to_vec(),
            points,
        }
    }

    /// The metrics of this sweep's kind.
    pub fn metrics(&self) -> &'static [Metric] {
        metrics(self.kind)
    }

    /// Index of `metric` among [`SweepSummary::metrics`], if it is one of them.
    fn metric_index(&self, metric: &Metric) -> Option<usize> {
        self.metrics().iter().position(|m| m.name == metric.name)
    }

    /// The summary as Markdown: what was found, the fixed parameters, and a table of the grid
    /// points with the means and 95% confidence intervals of the main metrics.
    pub fn to_markdown(&self, command: &str) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "# Sweep summary\n");
        let _ = writeln!(
            s,
            "Generated by `{command}` (sweep seed {}). Do not edit: regenerate.\n",
            self.seed
        );
        let _ = writeln!(
            s,
            "{} points × {} trials = {} tasks; {} finished, {} missing.{}\n",
            self.points.len(),
            self.trials,
            self.tasks,
            self.finished,
            self.tasks - self.finished,
            if self.partial_bytes > 0 {
                format!(
                    " A partial last line ({} bytes, an interrupted write) was ignored; `--resume` discards it.",
                    self.partial_bytes
                )
            } else {
                String::new()
            }
        );
        if let Some(first) = self.points.first() {
            let fixed: Vec<&String> = first
                .params
                .keys()
                .filter(|k| !self.swept.contains(k))
                .collect();
            if !fixed.is_empty() {
                let _ = writeln!(s, "Fixed: {}.\n", describe(&first.params, &fixed));
            }
        }
        let _ = writeln!(
            s,
            "Each cell: mean over the point's finished trials [95% Student-t confidence interval of the mean]; a single trial has no interval.\n"
        );
        let mut header = vec!["point".to_string()];
        header.extend(self.swept.iter().cloned());
        header.push("trials".into());
        let shown: Vec<(usize, &Metric)> = self
            .metrics()
            .iter()
            .enumerate()
            .filter(|(_, m)| m.in_table)
            .collect();
        header.extend(shown.iter().map(|(_, m)| m.name.to_string()));
        let _ = writeln!(s, "| {} |", header.join(" | "));
        let _ = writeln!(s, "|{}", "---|".repeat(header.len()));
        for p in &self.points {
            let mut row = vec![p.point.to_string()];
            row.extend(
                self.swept
                    .iter()
                    .map(|k| p.params.get(k).map_or_else(String::new, |v| v.to_string())),
            );
            row.push(p.stats[0].n.to_string());
            for &(m, _) in &shown {
                let st = &p.stats[m];
                row.push(match (st.mean, st.ci95_low, st.ci95_high) {
                    (Some(m), Some(lo), Some(hi)) => {
                        format!("{} [{}, {}]", fmt_num(m), fmt_num(lo), fmt_num(hi))
                    }
                    (Some(m), _, _) => fmt_num(m),
                    _ => "–".into(),
                });
            }
            let _ = writeln!(s, "| {} |", row.join(" | "));
        }
        let _ = writeln!(s, "\nMetrics:\n");
        for (_, m) in &shown {
            let _ = writeln!(s, "- `{}`: {}.", m.name, m.description);
        }
        s
    }

    /// The summary as CSV, one row per point and metric: `point`, every parameter,
    /// `metric,n,mean,sd,ci95_low,ci95_high,min,max` (empty where undefined).
    ///
    /// # Errors
    ///
    /// [`ReproError::Csv`] if the CSV writer fails.
    pub fn to_csv(&self) -> Result<String, ReproError> {
        let keys: Vec<String> = self
            .points
            .first()
            .map(|p| p.params.keys().cloned().collect())
            .unwrap_or_default();
        let mut w = csv::Writer::from_writer(Vec::new());
        let mut header = vec!["point".to_string()];
        header.extend(keys.iter().cloned());
        header.extend(
            [
                "metric",
                "n",
                "mean",
                "sd",
                "ci95_low",
                "ci95_high",
                "min",
                "max",
            ]
            .map(String::from),
        );
        w.write_record(&header)?;
        let opt = |v: Option<f64>| v.map_or_else(String::new, |x| x.to_string());
        for p in &self.points {
            for (metric, st) in self.metrics().iter().zip(&p.stats) {
                let mut row = vec![p.point.to_string()];
                row.extend(
                    keys.iter()
                        .map(|k| p.params.get(k).map_or_else(String::new, |v| v.to_string())),
                );
                row.push(metric.name.into());
                row.push(st.n.to_string());
                row.extend(
                    [
                        st.mean,
                        st.std_dev,
                        st.ci95_low,
                        st.ci95_high,
                        st.min,
                        st.max,
                    ]
                    .map(opt),
                );
                w.write_record(&row)?;
            }
        }
        let bytes = w
            .into_inner()
            .map_err(|e| csv::Error::from(e.into_error()))?;
        Ok(String::from_utf8(bytes).expect("csv of strings is UTF-8"))
    }

    /// The values `key` takes over the grid, in grid order (the sweep file's order).
    fn values_of(&self, key: &str) -> Vec<&ParamValue> {
        let mut values: Vec<&ParamValue> = Vec::new();
        for p in &self.points {
            if let Some(v) = p.params.get(key)
                && !values.contains(&v)
            {
                values.push(v);
            }
        }
        values
    }

    /// `name` if it is a swept parameter.
    fn swept_param(&self, role: PlotRole, name: &str) -> Result<&String, ReproError> {
        self.swept
            .iter()
            .find(|k| *k == name)
            .ok_or_else(|| ReproError::NotSwept {
                role,
                name: name.to_string(),
                swept: self.swept.clone(),
            })
    }

    /// Whether `a` and `b` are `[zip]` keys, which vary together.
    fn zipped(&self, a: &str, b: &str) -> bool {
        self.zip_keys.iter().any(|k| k == a) && self.zip_keys.iter().any(|k| k == b)
    }

    /// The figures `options` ask for: `(file stem, figure)`, the stem
    /// `<metric>-vs-<x>` or, with a series parameter, `<metric>-vs-<x>-by-<series>`. Without
    /// [`PlotOptions::x`], one figure per swept parameter (but the series parameter).
    ///
    /// # Errors
    ///
    /// [`ReproError::UnknownMetric`] for a metric of another kind of sweep;
    /// [`ReproError::NotSwept`] for an `x` or `series` that is not a swept parameter;
    /// [`ReproError::XIsSeries`] if they are the same; [`ReproError::LogAxisNotNumeric`] and
    /// [`ReproError::LogAxisNotPositive`] for a logarithmic horizontal axis over a parameter
    /// with a non-numeric or a non-positive value.
    pub fn figures(&self, options: &PlotOptions) -> Result<Vec<(String, Figure)>, ReproError> {
        let metric = Metric::named(self.kind, options.metric.as_deref())?;
        let m = self
            .metric_index(metric)
            .expect("Metric::named returns one of the kind's metrics");
        let x = match &options.x {
            Some(name) => Some(self.swept_param(PlotRole::X, name)?),
            None => None,
        };
        let series = match &options.series {
            Some(name) => Some(self.swept_param(PlotRole::Series, name)?),
            None => None,
        };
        if let (Some(x), Some(series)) = (x, series)
            && x == series
        {
            return Err(ReproError::XIsSeries { name: x.clone() });
        }
        let xs: Vec<&String> = match x {
            Some(x) => vec![x],
            None => self.swept.iter().filter(|k| Some(*k) != series).collect(),
        };
        if options.log_x {
            for key in &xs {
                let values = self.values_of(key);
                let text = || values.iter().map(|v| v.to_string()).collect();
                if !values.iter().all(|v| param_number(v).is_some()) {
                    return Err(ReproError::LogAxisNotNumeric {
                        name: (*key).clone(),
                        values: text(),
                    });
                }
                if values
                    .iter()
                    .any(|v| param_number(v).is_some_and(|x| x <= 0.0))
                {
                    return Err(ReproError::LogAxisNotPositive {
                        name: (*key).clone(),
                        values: text(),
                    });
                }
            }
        }
        Ok(xs
            .into_iter()
            .map(|key| {
                let stem = match series {
                    Some(s) => format!("{}-vs-{key}-by-{s}", metric.name),
                    None => format!("{}-vs-{key}", metric.name),
                };
                (stem, self.figure(key, series, m, metric, options))
            })
            .collect())
    }

    fn figure(
        &self,
        key: &String,
        by: Option<&String>,
        m: usize,
        metric: &Metric,
        options: &PlotOptions,
    ) -> Figure {
        // The other dimensions: swept keys that vary neither together with `key` nor with
        // the series parameter.
        let others: Vec<&String> = self
            .swept
            .iter()
            .filter(|k| *k != key && !self.zipped(k, key))
            .filter(|k| by.is_none_or(|b| *k != b && !self.zipped(k, b)))
            .collect();
        let values = self.values_of(key);
        let by_values = by.map(|b| self.values_of(b)).unwrap_or_default();
        let numeric = values.iter().all(|v| param_number(v).is_some());
        let x_of = |v: &ParamValue| match param_number(v) {
            Some(x) if numeric => x,
            _ => values.iter().position(|w| *w == v).unwrap_or(0) as f64,
        };
        // (rank of the series parameter's value, series), in order of appearance.
        let mut series: Vec<(usize, Series)> = Vec::new();
        let mut error_bars = Vec::new();
        for p in &self.points {
            let Some(v) = p.params.get(key) else { continue };
            let rest = describe(&p.params, &others);
            let (rank, name) = match by.and_then(|b| Some((b, p.params.get(b)?))) {
                Some((b, bv)) => (
                    by_values.iter().position(|w| *w == bv).unwrap_or(0),
                    if rest.is_empty() {
                        format!("{b}={bv}")
                    } else {
                        format!("{b}={bv}, {rest}")
                    },
                ),
                None if others.is_empty() => (0, metric.name.to_string()),
                None => (0, rest),
            };
            let index = match series.iter().position(|(_, s)| s.name == name) {
                Some(i) => i,
                None => {
                    series.push((
                        rank,
                        Series {
                            name,
                            points: Vec::new(),
                        },
                    ));
                    series.len() - 1
                }
            };
            let st = &p.stats[m];
            let x = x_of(v);
            series[index]
                .1
                .points
                .push((x, st.mean.unwrap_or(f64::NAN)));
            if let (Some(low), Some(high)) = (st.ci95_low, st.ci95_high) {
                error_bars.push(ErrorBar {
                    series: index,
                    x,
                    low,
                    high,
                });
            }
        }
        // Lines in the order of the series parameter's values (stable: then of appearance).
        let mut order: Vec<usize> = (0..series.len()).collect();
        order.sort_by_key(|&i| series[i].0);
        let mut new_index = vec![0; series.len()];
        for (new, &old) in order.iter().enumerate() {
            new_index[old] = new;
        }
        for bar in &mut error_bars {
            bar.series = new_index[bar.series];
        }
        let mut series: Vec<Option<Series>> = series.into_iter().map(|(_, s)| Some(s)).collect();
        let series: Vec<Series> = order
            .iter()
            .map(|&i| series[i].take().expect("each series once"))
            .collect();
        let log = |label: String, on: bool| {
            if on {
                format!("{label}, log scale")
            } else {
                label
            }
        };
        Figure {
            id: "sweep",
            title: match by {
                Some(b) => format!("{} vs {key} by {b} (mean, 95% CI)", metric.name),
                None => format!("{} vs {key} (mean, 95% CI)", metric.name),
            },
            x_label: log(key.clone(), options.log_x),
            y_label: log(metric.label.to_string(), options.log_y),
            series,
            log_x: options.log_x,
            log_y: options.log_y,
            error_bars,
            x_categories: if numeric {
                Vec::new()
            } else {
                values.iter().map(|v| v.to_string()).collect()
            },
        }
    }

    /// Writes `summary.md`, `summary.csv` and, per figure of [`SweepSummary::figures`], its
    /// `<stem>.svg` and `<stem>.csv` into `out_dir`, each atomically (a temporary file renamed
    /// into place). Checks `options` before writing anything. Returns the paths written.
    ///
    /// # Errors
    ///
    /// As [`SweepSummary::figures`], before any file is written; [`ReproError::Io`] or
    /// [`ReproError::Csv`] if a file cannot be written.
    pub fn write(
        &self,
        out_dir: &Path,
        options: &PlotOptions,
        command: &str,
    ) -> Result<Vec<PathBuf>, ReproError> {
        let figures = self.figures(options)?;
        let mut outputs = vec![
            ("summary.md".to_string(), self.to_markdown(command)),
            ("summary.csv".to_string(), self.to_csv()?),
        ];
        for (stem, figure) in figures {
            outputs.push((
                format!("{stem}.svg"),
                figure.to_svg(command, Some(self.seed)),
            ));
            outputs.push((
                format!("{stem}.csv"),
                figure.to_csv(command, Some(self.seed))?,
            ));
        }
        let mut written = Vec::new();
        for (name, content) in outputs {
            let path = out_dir.join(name);
            write_atomically(&path, content.as_bytes())?;
            written.push(path);
        }
        Ok(written)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A packet sweep over flits (4, 16, 64) × traffic (permutation, uniform) × delay (0, 2),
    /// 3 trials per point; at point `i` every metric's samples are `i + 1 ± 1`, so the mean is
    /// `i + 1`.
    fn summary() -> SweepSummary {
        let mut points = Vec::new();
        for flits in [4u64, 16, 64] {
            for traffic in ["permutation", "uniform"] {
                for delay in [0u64, 2] {
                    let i = points.len();
                    let params = BTreeMap::from([
                        ("flits".to_string(), ParamValue::Int(flits)),
                        ("traffic".to_string(), ParamValue::Str(traffic.into())),
                        ("delay".to_string(), ParamValue::Int(delay)),
                        ("topology".to_string(), ParamValue::Str("bft:n=16".into())),
                    ]);
                    let mean = i as f64 + 1.0;
                    let stats = PACKET_METRICS
                        .iter()
                        .map(|_| Summary::of(&[mean - 1.0, mean, mean + 1.0]))
                        .collect();
                    points.push(PointSummary {
                        point: i as u64,
                        params,
                        stats,
                    });
                }
            }
        }
        SweepSummary {
            kind: SweepKind::Packet,
            tasks: 36,
            trials: 3,
            seed: 1,
            finished: 36,
            partial_bytes: 0,
            swept: vec!["delay".into(), "flits".into(), "traffic".into()],
            zip_keys: Vec::new(),
            points,
        }
    }

    fn stems(figures: &[(String, Figure)]) -> Vec<&str> {
        figures.iter().map(|(s, _)| s.as_str()).collect()
    }

    #[test]
    fn default_is_one_figure_per_swept_parameter_split_by_the_others() {
        let s = summary();
        let figures = s.figures(&PlotOptions::default()).unwrap();
        assert_eq!(
            stems(&figures),
            ["latency-vs-delay", "latency-vs-flits", "latency-vs-traffic"]
        );
        let flits = &figures[1].1;
        // delay × traffic = 4 lines of 3 points; flits is numeric.
        assert_eq!(flits.series.len(), 4);
        assert_eq!(flits.series[0].name, "delay=0, traffic=permutation");
        assert_eq!(
            flits.series[0].points,
            [(4.0, 1.0), (16.0, 5.0), (64.0, 9.0)]
        );
        assert!(flits.x_categories.is_empty() && !flits.log_x && !flits.log_y);
        assert_eq!(flits.error_bars.len(), 12);
        // traffic is categorical.
        assert_eq!(figures[2].1.x_categories, ["permutation", "uniform"]);
    }

    #[test]
    fn x_and_series_choose_the_axis_and_the_lines() {
        let s = summary();
        let options = PlotOptions {
            metric: Some("mean_latency".into()),
            x: Some("flits".into()),
            series: Some("traffic".into()),
            log_x: true,
            log_y: true,
        };
        let figures = s.figures(&options).unwrap();
        assert_eq!(stems(&figures), ["mean_latency-vs-flits-by-traffic"]);
        let f = &figures[0].1;
        assert!(f.log_x && f.log_y);
        assert_eq!(f.title, "mean_latency vs flits by traffic (mean, 95% CI)");
        assert_eq!(f.x_label, "flits, log scale");
        // Lines grouped by traffic first (in the sweep's order), then by delay.
        let names: Vec<&str> = f.series.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "traffic=permutation, delay=0",
                "traffic=permutation, delay=2",
                "traffic=uniform, delay=0",
                "traffic=uniform, delay=2"
            ]
        );
        // traffic=uniform, delay=2 is points 3, 7, 11: means 4, 8, 12.
        assert_eq!(f.series[3].points, [(4.0, 4.0), (16.0, 8.0), (64.0, 12.0)]);
        // Its error bars follow it to its new place.
        let bars: Vec<f64> = f
            .error_bars
            .iter()
            .filter(|b| b.series == 3)
            .map(|b| (b.low + b.high) / 2.0)
            .collect();
        assert_eq!(bars, [4.0, 8.0, 12.0]);
        // Series alone: one figure per other swept parameter, lines named by it first.
        let by = s
            .figures(&PlotOptions {
                series: Some("delay".into()),
                ..PlotOptions::default()
            })
            .unwrap();
        assert_eq!(
            stems(&by),
            ["latency-vs-flits-by-delay", "latency-vs-traffic-by-delay"]
        );
        assert_eq!(by[0].1.series[1].name, "delay=0, traffic=uniform");
        // x alone: one figure, today's lines.
        let x = s
            .figures(&PlotOptions {
                x: Some("traffic".into()),
                ..PlotOptions::default()
            })
            .unwrap();
        assert_eq!(stems(&x), ["latency-vs-traffic"]);
        assert_eq!(x[0].1.series.len(), 6);
    }

    #[test]
    fn bad_options_are_refused_naming_the_parameter() {
        let s = summary();
        let refuse = |options: PlotOptions| s.figures(&options).unwrap_err();
        let e = refuse(PlotOptions {
            metric: Some("cycles".into()),
            ..PlotOptions::default()
        });
        assert!(
            matches!(&e, ReproError::UnknownMetric { metric, kind: SweepKind::Packet, known } if metric == "cycles" && known.contains(&"mean_latency"))
        );
        assert!(
            e.to_string()
                .contains("not a metric of simulator = \"packet\""),
            "{e}"
        );
        let e = refuse(PlotOptions {
            x: Some("topology".into()),
            ..PlotOptions::default()
        });
        assert!(
            matches!(&e, ReproError::NotSwept { role: PlotRole::X, name, .. } if name == "topology")
        );
        assert_eq!(
            e.to_string(),
            "x `topology` is not a swept parameter of this sweep; swept: delay, flits, traffic"
        );
        let e = refuse(PlotOptions {
            series: Some("speed".into()),
            ..PlotOptions::default()
        });
        assert!(
            matches!(&e, ReproError::NotSwept { role: PlotRole::Series, name, .. } if name == "speed")
        );
        let e = refuse(PlotOptions {
            x: Some("flits".into()),
            series: Some("flits".into()),
            ..PlotOptions::default()
        });
        assert!(matches!(&e, ReproError::XIsSeries { name } if name == "flits"));
        let e = refuse(PlotOptions {
            x: Some("traffic".into()),
            log_x: true,
            ..PlotOptions::default()
        });
        assert!(
            matches!(&e, ReproError::LogAxisNotNumeric { name, values } if name == "traffic" && values == &["permutation", "uniform"])
        );
        let e = refuse(PlotOptions {
            x: Some("delay".into()),
            log_x: true,
            ..PlotOptions::default()
        });
        assert!(matches!(&e, ReproError::LogAxisNotPositive { name, .. } if name == "delay"));
        assert!(e.to_string().contains("(0, 2)"), "{e}");
        // Without --x, a log x axis must suit every swept parameter plotted.
        let e = refuse(PlotOptions {
            log_x: true,
            ..PlotOptions::default()
        });
        assert!(matches!(&e, ReproError::LogAxisNotPositive { name, .. } if name == "delay"));
        // A mean <= 0 on a log y axis is drawn around, not refused.
        assert!(
            s.figures(&PlotOptions {
                log_y: true,
                ..PlotOptions::default()
            })
            .is_ok()
        );
    }
}
