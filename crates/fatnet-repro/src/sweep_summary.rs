//! Summaries of a sweep's results: per grid point the mean of every metric with its
//! 95% Student-t confidence interval, and one plot per swept parameter.
//!
//! Each kind of sweep has its own [`metrics`]: latencies and queues for the packet simulator,
//! delivery cycles for the routers and the scheduler.
//!
//! **Key design decision: a summary is a function of the results file's set of records.** It
//! reads [`read_results`] (sorted by task, a partial last line ignored and reported) and never
//! modifies the directory's results, so it can run while a sweep is still writing, and any
//! thread count, rank count or interruption that gives the same records gives the same summary
//! byte for byte. Summaries of an unfinished sweep say how many tasks are missing.
//!
//! # The plots
//!
//! One figure per swept parameter `k` (a key taking more than one value over the grid): the
//! horizontal axis is `k`'s values (numeric if they are all integers, else categorical, in the
//! order of the sweep file), the vertical axis the mean of the chosen [`Metric`] with its 95%
//! confidence interval as an error bar, and one series per combination of the *other* swept
//! parameters (`[zip]` keys vary together with `k` and so do not split series).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use fatnet::online::packet::PacketReport;

use crate::figure::{ErrorBar, Figure, Series};
use crate::runner::Summary;
use crate::sweep::{
    DynamicResult, ParamValue, RouteResult, ScheduleResult, SweepKind, SweepResults, TrialResult,
    read_results,
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

/// Summarizes the sweep in `out_dir` (read-only).
///
/// # Errors
///
/// As [`read_results`].
pub fn summarize_sweep(out_dir: &Path) -> Result<SweepSummary, ReproError> {
    Ok(SweepSummary::of(&read_results(out_dir)?))
}

/// `name=value` pairs of `keys` in `params`, comma-separated.
fn describe(params: &BTreeMap<String, ParamValue>, keys: &[&String]) -> String {
    keys.iter()
        .filter_map(|k| params.get(*k).map(|v| format!("{k}={v}")))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Three decimals, whatever the value, so a column lines up.
fn fmt_num(v: f64) -> String {
    format!("{:.3}", v + 0.0)
}

impl SweepSummary {
    /// Summarizes `results`.
    pub fn of(results: &SweepResults) -> SweepSummary {
        let spec = &results.spec;
        let kind = spec.kind();
        let list = metrics(kind);
        let mut samples: Vec<Vec<Vec<f64>>> =
            vec![vec![Vec::new(); list.len()]; spec.points() as usize];
        for record in &results.records {
            for (m, metric) in list.iter().enumerate() {
                if let Some(v) = (metric.of)(&record.result) {
                    samples[record.point as usize][m].push(v);
                }
            }
        }
        let points = samples
            .iter()
            .enumerate()
            .map(|(point, per_metric)| PointSummary {
                point: point as u64,
                params: spec.params(point as u64).cloned().unwrap_or_default(),
                stats: per_metric.iter().map(|s| Summary::of(s)).collect(),
            })
            .collect();
        SweepSummary {
            kind,
            tasks: spec.tasks(),
            trials: spec.trials(),
            seed: spec.seed(),
            finished: results.records.len() as u64,
            partial_bytes: results.partial_bytes,
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

    /// One figure per swept parameter, of `metric`: `(parameter, figure)`; none if `metric`
    /// is not one of this sweep's [`SweepSummary::metrics`].
    pub fn figures(&self, metric: &Metric) -> Vec<(String, Figure)> {
        let Some(m) = self.metric_index(metric) else {
            return Vec::new();
        };
        self.swept
            .iter()
            .map(|key| (key.clone(), self.figure(key, m, metric)))
            .collect()
    }

    fn figure(&self, key: &String, m: usize, metric: &Metric) -> Figure {
        // The other dimensions: swept keys that do not vary together with `key`.
        let in_zip = self.zip_keys.contains(key);
        let others: Vec<&String> = self
            .swept
            .iter()
            .filter(|k| *k != key && !(in_zip && self.zip_keys.contains(k)))
            .collect();
        let mut values: Vec<&ParamValue> = Vec::new();
        for p in &self.points {
            if let Some(v) = p.params.get(key)
                && !values.contains(&v)
            {
                values.push(v);
            }
        }
        let numeric = values
            .iter()
            .all(|v| matches!(v, ParamValue::Int(_) | ParamValue::Float(_)));
        let x_of = |v: &ParamValue| match v {
            ParamValue::Int(n) if numeric => *n as f64,
            ParamValue::Float(x) if numeric => *x,
            _ => values.iter().position(|w| *w == v).unwrap_or(0) as f64,
        };
        let mut series: Vec<Series> = Vec::new();
        let mut error_bars = Vec::new();
        for p in &self.points {
            let Some(v) = p.params.get(key) else { continue };
            let name = if others.is_empty() {
                metric.name.to_string()
            } else {
                describe(&p.params, &others)
            };
            let index = match series.iter().position(|s| s.name == name) {
                Some(i) => i,
                None => {
                    series.push(Series {
                        name,
                        points: Vec::new(),
                    });
                    series.len() - 1
                }
            };
            let st = &p.stats[m];
            let x = x_of(v);
            series[index].points.push((x, st.mean.unwrap_or(f64::NAN)));
            if let (Some(low), Some(high)) = (st.ci95_low, st.ci95_high) {
                error_bars.push(ErrorBar {
                    series: index,
                    x,
                    low,
                    high,
                });
            }
        }
        Figure {
            id: "sweep",
            title: format!("{} vs {key} (mean, 95% CI)", metric.name),
            x_label: key.clone(),
            y_label: metric.label.to_string(),
            series,
            log_x: false,
            error_bars,
            x_categories: if numeric {
                Vec::new()
            } else {
                values.iter().map(|v| v.to_string()).collect()
            },
        }
    }

    /// Writes `summary.md`, `summary.csv` and, per swept parameter `k`, `<metric>-vs-<k>.svg`
    /// and its `.csv` into `out_dir`, each atomically (a temporary file renamed into place).
    /// Returns the paths written.
    ///
    /// # Errors
    ///
    /// [`ReproError::Io`] or [`ReproError::Csv`] if a file cannot be written.
    pub fn write(
        &self,
        out_dir: &Path,
        metric: &Metric,
        command: &str,
    ) -> Result<Vec<PathBuf>, ReproError> {
        let mut outputs = vec![
            ("summary.md".to_string(), self.to_markdown(command)),
            ("summary.csv".to_string(), self.to_csv()?),
        ];
        for (key, figure) in self.figures(metric) {
            let stem = format!("{}-vs-{key}", metric.name);
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
