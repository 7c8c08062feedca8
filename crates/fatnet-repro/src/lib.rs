//! Reproduction of the papers' tables: one typed experiment per table, the published values,
//! and the comparison "paper vs ours" with a verdict per cell.
//!
//! **Key design decision: the papers' numbers are data, our numbers are computed.** Each
//! [`Experiment`] holds the published values (with the known misprints of the implementation
//! notes flagged as such, never corrected) and computes its own values from the library, so a
//! disagreement shows in the generated table instead of being tuned away. Generated files carry
//! the command and seed that made them and no timestamp: regenerating is a no-op unless a
//! result changed, which `cargo xtask reproduce --check` enforces.
//!
//! ```
//! use fatnet_repro::{Effort, Experiment, Verdict, yuan};
//!
//! // Yuan's Table I, the sizes of the nonblocking ftree(n+n², n+n²) and of FT(n+n², 2),
//! // recomputed from the networks the library builds.
//! let table = yuan::TableOne.run(Effort::Quick)?;
//! let count = |v: Verdict| table.cells.iter().filter(|c| c.verdict == v).count();
//! assert_eq!(count(Verdict::Match), 10);
//! // Two printed values disagree with 2n²+n and N²/2 (78 switches, not 88; 882 ports, not
//! // 884): reported as suspected misprints, not corrected.
//! assert_eq!(count(Verdict::SuspectedMisprint), 2);
//! assert_eq!(count(Verdict::Mismatch) + count(Verdict::BoundViolated), 0);
//! # Ok::<(), fatnet_repro::ReproError>(())
//! ```

#![deny(missing_docs)]

pub mod cell;
pub mod constant_switch;
pub mod figure;
pub mod greedy_adversary;
pub mod greenberg_leiserson;
pub mod greenberg_oh;
pub mod greenberg_oh_claims;
pub mod greenberg_oh_figures;
pub mod greenberg_oh_store;
pub mod leiserson;
pub mod leiserson_theorems;
pub mod lemma6;
pub mod open_greedy_growth;
pub mod open_heavy_traffic;
pub mod open_offline_cycles;
pub mod open_yuan_adaptive;
pub mod stamoulis;
pub mod stamoulis_broadcast;
pub mod stamoulis_direct;
pub mod stamoulis_direct_sensitivity;
pub mod stamoulis_fig7_5;
pub mod stamoulis_fig7_7_schemes;
pub mod stamoulis_fig7_8;
pub mod stamoulis_greedy;
pub mod sweep;
pub mod sweep_summary;
mod table;
pub mod verdict;
pub mod yuan;
pub mod yuan_adaptive;
pub mod yuan_min_m;
pub mod yuan_opensm;

pub use cell::{Detail, Estimate, Part, Value};
pub use figure::{ErrorBar, Figure, Series};
pub use table::{Cell, Frame, Table, Tabular, tabulate};
pub use verdict::Verdict;

use std::fmt;
use std::str::FromStr;

use thiserror::Error;

pub use fatnet::scenario::{derive_seed, runner};

/// Writes `bytes` to `path` atomically ([`fatnet::scenario::write_atomically`]).
///
/// # Errors
///
/// [`ReproError::Io`] naming `path`.
pub fn write_atomically(path: &std::path::Path, bytes: &[u8]) -> Result<(), ReproError> {
    fatnet::scenario::write_atomically(path, bytes).map_err(|e| scenario_io(path, e))
}

/// Reads a configuration file (a sweep file) with the scenario's bounded reader
/// ([`fatnet::scenario::read_config`]).
///
/// # Errors
///
/// [`ReproError::Io`] naming `path`.
pub fn read_config(path: &std::path::Path) -> Result<String, ReproError> {
    fatnet::scenario::read_config(path).map_err(|e| scenario_io(path, e))
}

/// A scenario's file error as [`ReproError::Io`], keeping its path and source.
fn scenario_io(path: &std::path::Path, e: fatnet::scenario::ScenarioError) -> ReproError {
    match e {
        fatnet::scenario::ScenarioError::Io { path, source } => ReproError::Io { path, source },
        other => ReproError::Io {
            path: path.to_path_buf(),
            source: std::io::Error::other(other.to_string()),
        },
    }
}

/// Errors of the reproduction pipeline.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum ReproError {
    /// An unknown paper name.
    #[error("unknown paper `{0}` (expected one of: {known})", known = Paper::ALL.iter().map(|p| p.slug()).collect::<Vec<_>>().join(", "))]
    UnknownPaper(String),
    /// An experiment id that no selected experiment has.
    #[error("no experiment `{id}` (there are: {})", known.join(", "))]
    UnknownExperiment {
        /// The id asked for.
        id: String,
        /// The selected experiments, as `paper/id`.
        known: Vec<String>,
    },
    /// The library refused what an experiment asked for; its error is the source.
    #[error("experiment {experiment}{}", in_context(context))]
    Experiment {
        /// The experiment.
        experiment: ExperimentId,
        /// What it was computing (an instance, a configuration); empty if nothing more than
        /// the experiment itself.
        context: String,
        /// The library's error.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// A check of an experiment's own (not the library's) failed: a schedule that does not
    /// verify, a run that did not deliver, a fit that does not exist.
    #[error("experiment {experiment}: {failure}")]
    ExperimentCheck {
        /// The experiment.
        experiment: ExperimentId,
        /// What failed.
        failure: String,
    },
    /// Writing CSV failed.
    #[error("csv: {0}")]
    Csv(#[from] csv::Error),
    /// A sweep file with problems, all of them, sorted by line.
    #[error("invalid sweep file:\n{}", problems.iter().map(|p| format!("  {p}")).collect::<Vec<_>>().join("\n"))]
    InvalidSweep {
        /// Every problem found.
        problems: Vec<sweep::SweepProblem>,
    },
    /// The output directory already holds results and resuming was not asked for.
    #[error("{} already holds results: resume, or choose another directory", path.display())]
    ResultsExist {
        /// The results file.
        path: std::path::PathBuf,
    },
    /// Another process is writing into a sweep's output directory.
    #[error("{} is in use by another sweep process (it holds sweep.lock); wait for it, or choose another directory", path.display())]
    SweepBusy {
        /// The output directory.
        path: std::path::PathBuf,
    },
    /// Resuming with a sweep file other than the one the results came from.
    #[error("{} is another sweep: resume with the same sweep file", path.display())]
    SweepChanged {
        /// The copy of the original sweep file.
        path: std::path::PathBuf,
    },
    /// A complete line of a results file that is not a record of this sweep.
    #[error("{}: line {line} is not a record of this sweep", path.display())]
    CorruptResults {
        /// The results file.
        path: std::path::PathBuf,
        /// 1-based line.
        line: usize,
    },
    /// A results file lists a task twice.
    #[error("{}: line {line} repeats task {task}", path.display())]
    DuplicateTask {
        /// The results file.
        path: std::path::PathBuf,
        /// 1-based line of the repeat.
        line: usize,
        /// The repeated task.
        task: u64,
    },
    /// A task of a sweep failed.
    #[error("sweep task {task}: {reason}")]
    SweepTask {
        /// Task index.
        task: u64,
        /// The simulator's error.
        reason: String,
    },
    /// A plot asked for a metric that is not one of its sweep's kind.
    #[error("metric `{metric}` is not a metric of {kind}; choose one of {}", known.join(", "))]
    UnknownMetric {
        /// The name asked for.
        metric: String,
        /// The sweep's kind.
        kind: sweep::SweepKind,
        /// The kind's metrics.
        known: Vec<&'static str>,
    },
    /// A plot option names a parameter that the sweep does not sweep.
    #[error("{role} `{name}` is not a swept parameter of this sweep; {}", if swept.is_empty() { "it sweeps nothing".to_string() } else { format!("swept: {}", swept.join(", ")) })]
    NotSwept {
        /// The option naming it.
        role: sweep_summary::PlotRole,
        /// The name given.
        name: String,
        /// The swept parameters.
        swept: Vec<String>,
    },
    /// A plot asked for the same parameter on the horizontal axis and as its series.
    #[error("x and series are both `{name}`: choose two different swept parameters")]
    XIsSeries {
        /// The parameter.
        name: String,
    },
    /// A logarithmic horizontal axis over a parameter with a value that is not a number.
    #[error("log x axis over `{name}`, whose values are not all numbers ({}): drop the log axis or choose a numeric x", values.join(", "))]
    LogAxisNotNumeric {
        /// The parameter.
        name: String,
        /// Its values, in the sweep file's order.
        values: Vec<String>,
    },
    /// A logarithmic horizontal axis over a parameter with a value ≤ 0.
    #[error("log x axis over `{name}`, whose values are not all positive ({}): drop the log axis or choose another x", values.join(", "))]
    LogAxisNotPositive {
        /// The parameter.
        name: String,
        /// Its values, in the sweep file's order.
        values: Vec<String>,
    },
    /// `fatnet sweep summarize` would hold more per-trial metrics than its budget.
    #[error(
        "the summary of {tasks} tasks would hold about {estimate} bytes of per-trial metrics, over the {max}-byte budget: summarize a smaller sweep"
    )]
    SummaryTooLarge {
        /// Tasks in the sweep.
        tasks: u64,
        /// Estimated bytes.
        estimate: u64,
        /// The budget ([`sweep_summary::SUMMARY_BUDGET`]).
        max: u64,
    },
    /// Reading or writing a file failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: std::path::PathBuf,
        /// The error.
        source: std::io::Error,
    },
}

fn in_context(context: &str) -> String {
    if context.is_empty() {
        String::new()
    } else {
        format!(" ({context})")
    }
}

/// An experiment as errors name it: its paper and its id (`stamoulis/fig7_7`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExperimentId {
    /// The paper.
    pub paper: Paper,
    /// The experiment's id, or the part of a paper's experiments that failed.
    pub id: &'static str,
}

impl ExperimentId {
    /// Experiment `id` of `paper`.
    pub const fn new(paper: Paper, id: &'static str) -> Self {
        ExperimentId { paper, id }
    }

    /// The library refused what this experiment asked for ([`ReproError::library`]).
    pub fn error(self, source: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> ReproError {
        ReproError::library(self, source)
    }

    /// As [`error`](Self::error), saying what was being computed ([`ReproError::library_in`]).
    pub fn error_in(
        self,
        context: impl fmt::Display,
        source: impl Into<Box<dyn std::error::Error + Send + Sync>>,
    ) -> ReproError {
        ReproError::library_in(self, context, source)
    }

    /// A check of this experiment's own failed ([`ReproError::check`]).
    pub fn failed(self, failure: impl Into<String>) -> ReproError {
        ReproError::check(self, failure)
    }
}

impl fmt::Display for ExperimentId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.paper, self.id)
    }
}

impl ReproError {
    /// The library's error `source`, met by `experiment`.
    pub fn library(
        experiment: ExperimentId,
        source: impl Into<Box<dyn std::error::Error + Send + Sync>>,
    ) -> ReproError {
        ReproError::library_in(experiment, "", source)
    }

    /// The library's error `source`, met by `experiment` while computing `context`.
    pub fn library_in(
        experiment: ExperimentId,
        context: impl fmt::Display,
        source: impl Into<Box<dyn std::error::Error + Send + Sync>>,
    ) -> ReproError {
        ReproError::Experiment {
            experiment,
            context: context.to_string(),
            source: source.into(),
        }
    }

    /// A failed check of `experiment` itself.
    pub fn check(experiment: ExperimentId, failure: impl Into<String>) -> ReproError {
        ReproError::ExperimentCheck {
            experiment,
            failure: failure.into(),
        }
    }
}

/// The five papers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Paper {
    /// Leiserson, "Fat-Trees" (1985).
    Leiserson,
    /// Greenberg & Leiserson, "Randomized routing on fat-trees" (1986).
    GreenbergLeiserson,
    /// Yuan, "On nonblocking folded-Clos networks".
    Yuan,
    /// Greenberg & Oh, "Universal wormhole routing" (1997).
    GreenbergOh,
    /// Stamoulis, "Routing and performance evaluation in interconnection networks" (1991).
    Stamoulis,
    /// Not a paper: the questions the five papers leave open (a conjecture, a missing bound, a
    /// tight condition), explored with data under `docs/reproduction/open-questions/`.
    OpenQuestions,
}

impl Paper {
    /// All papers, in the order of the reproduction report.
    pub const ALL: [Paper; 6] = [
        Paper::Leiserson,
        Paper::GreenbergLeiserson,
        Paper::Yuan,
        Paper::GreenbergOh,
        Paper::Stamoulis,
        Paper::OpenQuestions,
    ];

    /// The folder name under `docs/reproduction/` and the `--paper` value.
    pub fn slug(self) -> &'static str {
        match self {
            Paper::Leiserson => "leiserson",
            Paper::GreenbergLeiserson => "greenberg-leiserson",
            Paper::Yuan => "yuan",
            Paper::GreenbergOh => "greenberg-oh",
            Paper::Stamoulis => "stamoulis",
            Paper::OpenQuestions => "open-questions",
        }
    }

    /// Full citation.
    pub fn citation(self) -> &'static str {
        match self {
            Paper::Leiserson => {
                "C. E. Leiserson, \"Fat-Trees: Universal Networks for Hardware-Efficient Supercomputing\", IEEE Trans. Computers C-34(10), 1985"
            }
            Paper::GreenbergLeiserson => {
                "R. I. Greenberg, C. E. Leiserson, \"Randomized routing on fat-trees\", MIT/LCS/TM-307, 1986"
            }
            Paper::Yuan => {
                "X. Yuan, \"On Nonblocking Folded-Clos Networks in Computer Communication Environments\""
            }
            Paper::GreenbergOh => {
                "R. I. Greenberg, H.-C. Oh, \"Universal Wormhole Routing\", IEEE TPDS 8(3), 1997"
            }
            Paper::Stamoulis => {
                "G. D. Stamoulis, \"Routing and Performance Evaluation in Interconnection Networks\", MIT PhD thesis LIDS-TH-2035, 1991"
            }
            Paper::OpenQuestions => {
                "Open questions of the five papers (a conjecture, a missing bound, a tight condition), explored with data; each table names the paper that asks"
            }
        }
    }
}

impl fmt::Display for Paper {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.slug())
    }
}

impl FromStr for Paper {
    type Err = ReproError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Paper::ALL
            .into_iter()
            .find(|p| p.slug() == s)
            .ok_or_else(|| ReproError::UnknownPaper(s.to_string()))
    }
}

/// How much work an experiment may do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Effort {
    /// The full run: the project's main job.
    #[default]
    Full,
    /// Reduced trials, for CI.
    Quick,
}

/// One table or figure of a paper.
pub trait Experiment: Sync {
    /// The paper.
    fn paper(&self) -> Paper;
    /// File stem under `docs/reproduction/<paper>/`, e.g. `table1`.
    fn id(&self) -> &'static str;
    /// The master seed, or `None` for a deterministic experiment.
    fn seed(&self) -> Option<u64>;
    /// Whether `--quick` changes the result (stochastic experiments with fewer trials). Quick
    /// results are written under `docs/reproduction/<paper>/quick/` so that they never replace
    /// the full run.
    fn quick_differs(&self) -> bool;
    /// About how many CPU seconds the full run takes (one thread, the dev profile, as
    /// measured for `docs/bench/reproduce.md`), for scheduling only: `cargo xtask reproduce`
    /// starts the costliest first so that no long experiment is left to run alone at the end.
    /// 0 (the default) for experiments of a few seconds. Never changes a result.
    fn cost(&self) -> u32 {
        0
    }
    /// Runs the experiment.
    ///
    /// # Errors
    ///
    /// [`ReproError::Experiment`] when the library rejects the experiment's parameters (its
    /// error is the source), [`ReproError::ExperimentCheck`] when a check of the experiment's
    /// own fails.
    fn run(&self, effort: Effort) -> Result<Table, ReproError>;
    /// The figures of the experiment, built from the numbers of `table` (the result of
    /// [`run`](Experiment::run)); written as `docs/reproduction/<stem>/<figure id>.{svg,csv}`.
    /// None by default.
    fn figures(&self, table: &Table) -> Vec<Figure> {
        let _ = table;
        Vec::new()
    }
}

/// Every experiment, in report order.
pub fn registry() -> Vec<Box<dyn Experiment>> {
    vec![
        Box::new(leiserson::Schedules),
        Box::new(leiserson_theorems::Theorems),
        Box::new(greenberg_leiserson::RandomCycles),
        Box::new(greedy_adversary::GreedyAdversary),
        Box::new(constant_switch::ConstantSwitch),
        Box::new(lemma6::DeliveryProbability),
        Box::new(yuan::TableOne),
        Box::new(yuan_min_m::MinM),
        Box::new(yuan_opensm::OpenSm),
        Box::new(yuan_adaptive::Adaptive),
        Box::new(greenberg_oh::TableOne),
        Box::new(greenberg_oh::TableTwo),
        Box::new(greenberg_oh_figures::Figure2),
        Box::new(greenberg_oh_figures::Figure3),
        Box::new(greenberg_oh_figures::Figure4),
        Box::new(greenberg_oh_figures::Figure5),
        Box::new(greenberg_oh_store::StoreVariants),
        Box::new(greenberg_oh_claims::AlgorithmAClaims),
        Box::new(greenberg_oh_claims::QueueSize),
        Box::new(greenberg_oh_claims::LatencyInL),
        Box::new(greenberg_oh_claims::Fig45Choices),
        Box::new(stamoulis::Figure3_2),
        Box::new(stamoulis::TotalExchange),
        Box::new(stamoulis::Broadcasts),
        Box::new(stamoulis_broadcast::Table6_1),
        Box::new(stamoulis_broadcast::Table6_2),
        Box::new(stamoulis_direct_sensitivity::DirectSensitivity),
        Box::new(stamoulis_direct::Figure6_1),
        Box::new(stamoulis_direct::Figure6_3),
        Box::new(stamoulis_direct::Figure6_4),
        Box::new(stamoulis_broadcast::IndirectScheme),
        Box::new(stamoulis_fig7_5::Figure7_5),
        Box::new(stamoulis_broadcast::Figure7_6),
        Box::new(stamoulis_broadcast::Figure7_7),
        Box::new(stamoulis_fig7_8::Figure7_8),
        Box::new(stamoulis_fig7_7_schemes::Figure7_7Schemes),
        Box::new(stamoulis_greedy::GreedyGrid),
        Box::new(stamoulis_greedy::Figure5_3),
        Box::new(stamoulis_greedy::ContinuousGrid),
        Box::new(stamoulis_greedy::ButterflySlotted),
        Box::new(open_offline_cycles::OfflineCycles),
        Box::new(open_greedy_growth::GreedyGrowth),
        Box::new(open_yuan_adaptive::AdaptiveM),
        Box::new(open_heavy_traffic::GreedyHeavyTraffic),
    ]
}

/// The experiments of one paper, or all when `paper` is `None`.
pub fn select(paper: Option<Paper>) -> Vec<Box<dyn Experiment>> {
    registry()
        .into_iter()
        .filter(|e| paper.is_none_or(|p| e.paper() == p))
        .collect()
}

/// The experiments of [`select`] whose id is `only` (every one when `None`); an id that no
/// selected experiment has is [`ReproError::UnknownExperiment`].
///
/// # Errors
///
/// [`ReproError::UnknownExperiment`] listing the ids there are.
pub fn select_only(
    paper: Option<Paper>,
    only: Option<&str>,
) -> Result<Vec<Box<dyn Experiment>>, ReproError> {
    let all = select(paper);
    let Some(only) = only else {
        return Ok(all);
    };
    let known: Vec<String> = all
        .iter()
        .map(|e| format!("{}/{}", e.paper(), e.id()))
        .collect();
    let chosen: Vec<_> = all.into_iter().filter(|e| e.id() == only).collect();
    if chosen.is_empty() {
        Err(ReproError::UnknownExperiment {
            id: only.to_string(),
            known,
        })
    } else {
        Ok(chosen)
    }
}

/// The command that regenerates an experiment, as recorded in its output.
pub fn command_for(e: &dyn Experiment, effort: Effort) -> String {
    let quick = if effort == Effort::Quick && e.quick_differs() {
        " --quick"
    } else {
        ""
    };
    format!("cargo xtask reproduce{quick} --paper {}", e.paper().slug())
}

/// Path of an experiment's output, relative to `docs/reproduction/`, without extension.
pub fn output_stem(e: &dyn Experiment, effort: Effort) -> String {
    if effort == Effort::Quick && e.quick_differs() {
        format!("{}/quick/{}", e.paper().slug(), e.id())
    } else {
        format!("{}/{}", e.paper().slug(), e.id())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn experiment_errors_keep_the_library_error_as_their_source() {
        let experiment = ExperimentId {
            paper: Paper::Yuan,
            id: "table1",
        };
        let source = std::io::Error::other("no such network");
        let e = ReproError::library_in(experiment, "ftree(2+3, 5)", source);
        assert_eq!(e.to_string(), "experiment yuan/table1 (ftree(2+3, 5))");
        let cause = std::error::Error::source(&e).expect("the library's error");
        assert_eq!(cause.to_string(), "no such network");
        let e = ReproError::library(experiment, std::io::Error::other("x"));
        assert_eq!(e.to_string(), "experiment yuan/table1");
        let e = ReproError::check(experiment, "a fit failed");
        assert_eq!(e.to_string(), "experiment yuan/table1: a fit failed");
        assert!(std::error::Error::source(&e).is_none());
    }
}
