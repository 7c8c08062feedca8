//! Greenberg & Leiserson, *Randomized routing on fat-trees* (1986): delivery cycles
//! of the on-line routers RANDOM, GREEDY and RANDOM′ against λ(M) (Theorems 8 and 11).
//!
//! The paper prints no measured numbers; its Figure 4 is an asymptotic table: RANDOM delivers
//! any message set in `O(λ(M) + lg n·lg lg n)` cycles with probability `1 − O(1/n)`, and
//! Theorem 11 says RANDOM′ needs `O(λ(M))` cycles when every capacity is `≥ a·lg n`. No router
//! can use fewer than `⌈λ(M)⌉` cycles. This experiment routes several traffic families on
//! area- and volume-universal fat-trees with RANDOM (practical constants), GREEDY and RANDOM′,
//! reports the mean cycles over seeded trials with a 95% confidence interval, and the mean
//! normalised by `λ + lg n·lg lg n`. The verdict checks the lower bound only: the `O(·)` claims
//! carry no constant, so the table shows the normalised ratio across `n` instead.

use fatnet::online::{
    self, DropPolicy, Greedy, RandomParams, RandomPrime, RandomRouter, RunConfig,
};
use fatnet::topology::{AreaGrowth, CapacityProfile, FatTree, VolumeGrowth};
use fatnet::traffic::{MessageSet, TrafficSpec};

use crate::cell::{Detail, Estimate, field, fixed, power};
use crate::figure::{Figure, Series, point};
use crate::runner::{Summary, try_run_trials};
use crate::{
    Cell, Effort, Experiment, ExperimentId, Frame, Paper, ReproError, Table, Tabular, Verdict,
    derive_seed, detail, tabulate,
};

/// Master seed of the traffic and of the trials.
pub const SEED: u64 = 1986;

/// Cycle limit of one trial: far above anything a row needs, so that a bug shows as a
/// "did not finish" verdict instead of a hang.
pub const MAX_CYCLES: u64 = 200_000;

const FAMILIES: [&str; 5] = [
    "permutation",
    "replicated:k=4",
    "replicated:k=16",
    "mesh",
    "uniform",
];

/// Mean delivery cycles of RANDOM, GREEDY and RANDOM′ against λ(M).
#[derive(Clone, Copy, Debug, Default)]
pub struct RandomCycles;

impl RandomCycles {
    /// lg n of the rows.
    pub fn sizes(effort: Effort) -> &'static [u32] {
        match effort {
            Effort::Full => &[6, 8, 10],
            Effort::Quick => &[6, 8],
        }
    }

    /// Trials per row.
    pub fn trials(effort: Effort) -> u64 {
        match effort {
            Effort::Full => 30,
            Effort::Quick => 5,
        }
    }
}

/// The experiment, as its errors name it.
const EXPERIMENT: ExperimentId = ExperimentId::new(Paper::GreenbergLeiserson, "random_cycles");

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Algorithm {
    Random,
    Greedy,
    RandomPrime,
}

impl Algorithm {
    fn label(self) -> &'static str {
        match self {
            Algorithm::Random => "RANDOM",
            Algorithm::Greedy => "GREEDY",
            Algorithm::RandomPrime => "RANDOM′",
        }
    }
}

/// What one trial reports: cycles, finished, ⌈λ⌉.
type Outcome = (u64, bool, u64);

fn trials(
    tree: &FatTree,
    m: &MessageSet,
    algorithm: Algorithm,
    seed: u64,
    count: u64,
) -> Result<Vec<Outcome>, ReproError> {
    let n = tree.n();
    let config = RunConfig {
        max_cycles: MAX_CYCLES,
        ..RunConfig::default()
    };
    try_run_trials(seed, count, |_, trial_seed| {
        let report = match algorithm {
            Algorithm::Random => online::run(
                tree,
                m,
                DropPolicy::Random,
                &mut RandomRouter::new(RandomParams::default(), n),
                trial_seed,
                config,
            ),
            Algorithm::Greedy => {
                online::run(tree, m, DropPolicy::Random, &mut Greedy, trial_seed, config)
            }
            Algorithm::RandomPrime => online::run(
                tree,
                m,
                DropPolicy::Random,
                &mut RandomPrime::new(),
                trial_seed,
                config,
            ),
        }?;
        Ok((report.cycles, report.finished, report.lower_bound))
    })
    .map_err(|e| EXPERIMENT.error(e))?
    .map_err(|e: online::OnlineError| EXPERIMENT.error(e))
}

/// One computed row: a router's trials on one message set and tree.
#[derive(Debug)]
pub struct Row {
    levels: u32,
    family: &'static str,
    tree: String,
    algorithm: Algorithm,
    lambda: f64,
    outcomes: Vec<Outcome>,
}

fn cell(row: &Row) -> Cell {
    let outcomes = &row.outcomes;
    let lg = f64::from(row.levels);
    let reference = row.lambda + lg * lg.log2();
    let lower = outcomes.first().map_or(0, |o| o.2);
    let samples: Vec<f64> = outcomes.iter().map(|o| o.0 as f64).collect();
    let s = Summary::of(&samples);
    let mean = s.mean.unwrap_or(f64::NAN);
    let unfinished = outcomes.iter().filter(|o| !o.1).count();
    let below = outcomes.iter().filter(|o| o.0 < o.2).count();
    let ci: Detail = match (s.ci95_low, s.ci95_high) {
        (Some(lo), Some(hi)) => detail!["95% CI [", fixed(lo, 1), ", ", fixed(hi, 1), "]"],
        _ => "no CI".into(),
    };
    let claim = match row.algorithm {
        Algorithm::RandomPrime => "O(λ) (Thm 11, cap ≥ 2 lg n); ≥ ⌈λ⌉",
        Algorithm::Random => "O(λ + lg n lg lg n) (Fig. 4); ≥ ⌈λ⌉",
        Algorithm::Greedy => "≥ ⌈λ⌉ (no upper bound claimed)",
    };
    let mut note = Vec::new();
    if unfinished > 0 {
        note.push(format!(
            "{unfinished} trial(s) did not finish in {MAX_CYCLES} cycles"
        ));
    }
    if below > 0 {
        note.push(format!("{below} trial(s) used fewer than ⌈λ⌉ cycles"));
    }
    Cell {
        key: vec![
            power(2, row.levels),
            row.family.into(),
            row.tree.clone().into(),
            row.algorithm.label().into(),
        ],
        paper: Some(claim.into()),
        ours: Estimate::student95(&s, 1).into(),
        detail: detail![
            ..ci,
            ", min ",
            fixed(s.min.unwrap_or(f64::NAN), 0),
            ", max ",
            fixed(s.max.unwrap_or(f64::NAN), 0),
            "; ",
            field("λ", fixed(row.lambda, 3)),
            ", ",
            field("⌈λ⌉", lower),
            "; ",
            field("cycles/(λ + lg n lg lg n)", fixed(mean / reference, 3)),
            ", ",
            field(
                "cycles/λ",
                fixed(
                    if row.lambda > 0.0 {
                        mean / row.lambda
                    } else {
                        f64::NAN
                    },
                    2
                )
            ),
        ],
        verdict: Verdict::bound(unfinished == 0 && below == 0),
        note: note.join("; "),
    }
}

fn lambda_of(tree: &FatTree, m: &MessageSet) -> Result<f64, ReproError> {
    let loads = fatnet::load::fat_tree_loads(tree, m).map_err(|e| EXPERIMENT.error(e))?;
    Ok(fatnet::load::LoadReport::for_fat_tree(tree, loads)
        .load_factor
        .value())
}

impl Experiment for RandomCycles {
    fn paper(&self) -> Paper {
        Paper::GreenbergLeiserson
    }

    fn id(&self) -> &'static str {
        "random_cycles"
    }

    fn cost(&self) -> u32 {
        5
    }

    fn seed(&self) -> Option<u64> {
        Some(SEED)
    }

    fn quick_differs(&self) -> bool {
        true
    }

    /// One figure per tree (`area`, `volume`, leaf capacity 1): the normalised ratio
    /// cycles/(λ + lg n·lg lg n) of the table against n, for RANDOM and GREEDY on permutations
    /// and on 16 replicated permutations. The points are the table's printed ratios.
    fn figures(&self, table: &Table) -> Vec<Figure> {
        [
            ("area", "area leaf=1", "area-universal"),
            ("volume", "volume leaf=1", "volume-universal"),
        ]
        .into_iter()
        .map(|(id, tree, name)| {
            let series = ["permutation", "replicated:k=16"]
                .into_iter()
                .flat_map(|family| {
                    [Algorithm::Random, Algorithm::Greedy].map(|algorithm| Series {
                        name: format!("{} on {family}", algorithm.label()),
                        points: table
                            .cells
                            .iter()
                            .filter(|c| {
                                c.key[1] == family
                                    && c.key[2] == tree
                                    && c.key[3] == algorithm.label()
                            })
                            .map(|c| {
                                point(
                                    c.key[0].shown(),
                                    c.detail
                                        .field("cycles/(λ + lg n lg lg n)")
                                        .and_then(|v| v.shown()),
                                )
                            })
                            .collect(),
                    })
                })
                .collect();
            Figure {
                id,
                title: format!(
                    "Greenberg–Leiserson, Figure 4: normalised delivery cycles, {name} tree"
                ),
                x_label: "n (processors, log scale)".into(),
                y_label: "mean cycles / (λ + lg n · lg lg n)".into(),
                series,
                log_x: true,
                ..Figure::default()
            }
        })
        .collect()
    }

    fn run(&self, effort: Effort) -> Result<Table, ReproError> {
        tabulate(self, effort)
    }
}

impl Tabular for RandomCycles {
    type Row = Row;

    fn frame(&self) -> Frame {
        Frame {
            title: "Greenberg–Leiserson, Figure 4 and Theorem 11: delivery cycles of RANDOM, GREEDY and RANDOM′ against λ(M)".into(),
            key_columns: vec!["n".into(), "traffic".into(), "tree".into(), "router".into()],
            detail_column: "95% CI of the mean, λ(M), ⌈λ⌉, normalised cycles".into(),
        }
    }

    fn cells(&self, row: &Row) -> Vec<Cell> {
        vec![cell(row)]
    }

    fn compute(&self, effort: Effort) -> Result<Vec<Row>, ReproError> {
        let count = Self::trials(effort);
        let mut rows = Vec::new();
        for &levels in Self::sizes(effort) {
            let n = 1u64 << levels;
            let tree = |profile: CapacityProfile| {
                FatTree::new(n, profile).map_err(|e| EXPERIMENT.error(e))
            };
            let trees = [
                (
                    "area leaf=1".to_string(),
                    tree(CapacityProfile::Area {
                        leaf: 1,
                        growth: AreaGrowth::Smooth,
                    })?,
                    [Algorithm::Random, Algorithm::Greedy].as_slice(),
                ),
                (
                    "volume leaf=1".to_string(),
                    tree(CapacityProfile::Volume {
                        leaf: 1,
                        growth: VolumeGrowth::Smooth,
                    })?,
                    [Algorithm::Random, Algorithm::Greedy].as_slice(),
                ),
                (
                    format!("area leaf={}", 2 * levels),
                    tree(CapacityProfile::Area {
                        leaf: 2 * u64::from(levels),
                        growth: AreaGrowth::Smooth,
                    })?,
                    [Algorithm::RandomPrime].as_slice(),
                ),
            ];
            for (f, family) in FAMILIES.into_iter().enumerate() {
                // One message set per (n, family), shared by every tree and router of the
                // row group; seeds are indexed by (lg n, family, tree, router), never by a
                // running counter, so quick rows equal the full run's traffic.
                let group = u64::from(levels) * 100 + f as u64 * 10;
                let spec: TrafficSpec = family.parse().map_err(|e| EXPERIMENT.error(e))?;
                let m = spec
                    .generate(n as u32, derive_seed(SEED, group))
                    .map_err(|e| EXPERIMENT.error_in(family, e))?;
                for (t, (name, tree, algorithms)) in trees.iter().enumerate() {
                    let lambda = lambda_of(tree, &m)?;
                    for (a, &algorithm) in algorithms.iter().enumerate() {
                        let row_seed = derive_seed(SEED, group + 1 + (t * 3 + a) as u64);
                        let outcomes = trials(tree, &m, algorithm, row_seed, count)?;
                        rows.push(Row {
                            levels,
                            family,
                            tree: name.clone(),
                            algorithm,
                            lambda,
                            outcomes,
                        });
                    }
                }
            }
        }
        Ok(rows)
    }

    fn notes(&self, effort: Effort, _rows: &[Row], _cells: &[Cell]) -> Vec<String> {
        let count = Self::trials(effort);
        let sizes = Self::sizes(effort)
            .iter()
            .map(|l| format!("2^{l}"))
            .collect::<Vec<_>>()
            .join(", ");
        vec![
                "The paper prints no measured numbers: Figure 4 is asymptotic. The \"paper\" column states the claim; \"ours\" is the mean number of delivery cycles over the trials. The verdict checks only the lower bound ⌈λ(M)⌉ (every trial finished and used at least ⌈λ⌉ cycles; a violation would be a bug of the engine). The O(·) claims have no constant, so there is no verdict on them: instead the detail gives cycles/(λ + lg n·lg lg n) (lg = log2), which Figure 4 predicts to stay roughly flat across n for RANDOM, and cycles/λ, which Theorem 11 predicts to stay bounded for RANDOM′.".into(),
                format!("n ∈ {{{sizes}}}, {count} trials per row; each trial is one run of the delivery-cycle engine with its own derived seed (router choices and switch drops), at most {MAX_CYCLES} cycles. The full run is limited to n ≤ 2^10 and 30 trials to keep it near a minute on two cores; the quick run uses n ∈ {{2^6, 2^8}} and 5 trials."),
                "Trees: area-universal (capacity round(2^(h/2)), leaf 1) and volume-universal (round(2^(2h/3)), leaf 1) for RANDOM and GREEDY; RANDOM′ runs on the area-universal tree with leaf capacity 2·lg n, so every capacity is ≥ a·lg n with a = 2 (Theorem 11's hypothesis).".into(),
                "RANDOM uses the library's practical constants k1 = 2, k2 = 1, r = 2 (p = 1/(rλ_guess)), not the paper's proved constants (k1 ≈ 10^5, which would make every run dominated by its constants). GREEDY sends every undelivered message every cycle. RANDOM′ starts its passes at z = 1 and doubles z. All routers use randomised admissible switches (DropPolicy::Random: a congested channel keeps cap(c) of its messages chosen uniformly).".into(),
                format!("Traffic is drawn from seed {SEED} with one derived seed per (n, family), shared by the trees and routers of that n and family so that rows compare on the same M; `replicated:k=K` is K independent random permutations, `uniform` excludes self-messages, `mesh` is the √n×√n mesh in Morton order."),
        ]
    }
}
