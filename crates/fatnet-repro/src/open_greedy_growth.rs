//! Open question of Greenberg & Leiserson, *Randomized routing on fat-trees* (1986), §5: GREEDY
//! has a lower bound (Theorem 9: `Ω(λ lg n)` cycles, `λ lg n/24` explicitly, on the standard
//! fat-tree with deterministic admissible switches) but no upper bound for messages between
//! processors. How fast can GREEDY's cycles/λ(M) grow with n?
//!
//! For n = 4, 8, 16, 32, 64 we hill-climb over message sets routed out of the root (the
//! setting of Theorem 9) for the largest GREEDY cycles/λ(M), and put beside it the Theorem 9
//! adversary's ratio (`fatnet_online::greedy_adversary`, λ = 12, n a power of four). Every run
//! is the delivery-cycle engine (`fatnet_online::run` with `Greedy`), fixed-priority switches.
//!
//! Choices of this experiment: the tree is the standard fat-tree `2^⌈h/2⌉` (for odd lg n, where
//! Greenberg–Leiserson's standard tree is undefined, the same formula as a custom profile);
//! a set has `12·cap(root)` messages, so the root channel's load factor is 12 (λ(M) may be
//! larger on lower channels), each message named by its source; the search starts from uniform sources and
//! moves one message to a uniform processor per step, keeping the move when cycles/λ(M) does
//! not decrease. The found ratios are explorations (not in paper); the adversary's cells check
//! Theorem 9 (λ(M) ≤ λ and cycles ≥ λ lg n/24).

use fatnet::online::{self, DropPolicy, Greedy, RunConfig, RunReport, Sink, greedy_adversary};
use fatnet::topology::{CapacityProfile, FatTree};
use fatnet::traffic::{Message, MessageSet};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

use crate::cell::{field, fixed, int};
use crate::runner::try_run_trials;
use crate::{
    Cell, Effort, Experiment, ExperimentId, Frame, Paper, ReproError, Table, Tabular, Verdict,
    derive_seed, detail, tabulate,
};

/// Master seed.
pub const SEED: u64 = 198_505;

/// λ of Theorem 9's adversary, and the root load of the searched sets.
pub const LAMBDA: u64 = 12;

/// The switches.
pub const POLICY: DropPolicy = DropPolicy::FixedPriority;

/// Hill-climbing for GREEDY's largest cycles/λ, beside Theorem 9's adversary.
#[derive(Clone, Copy, Debug, Default)]
pub struct GreedyGrowth;

/// The experiment, as its errors name it.
const EXPERIMENT: ExperimentId = ExperimentId::new(Paper::OpenQuestions, "greedy_growth");

const CONFIG: RunConfig = RunConfig {
    max_cycles: 1_000_000,
    trace_load_factor: false,
    sink: Sink::External,
};

impl GreedyGrowth {
    /// `lg n` of the rows, starts per row and steps per start.
    pub fn plan(effort: Effort) -> (&'static [u32], u64, u32) {
        match effort {
            Effort::Full => (&[2, 3, 4, 5, 6], 8, 600),
            Effort::Quick => (&[2, 3, 4], 2, 60),
        }
    }
}

/// The standard tree `2^⌈h/2⌉` on `2^l` processors.
fn tree(l: u32) -> Result<FatTree, ReproError> {
    let profile = if l.is_multiple_of(2) {
        CapacityProfile::Standard
    } else {
        CapacityProfile::Custom((0..=l).map(|h| 1u64 << h.div_ceil(2)).collect())
    };
    FatTree::new(1u64 << l, profile).map_err(|e| EXPERIMENT.error(e))
}

fn greedy(tree: &FatTree, m: &MessageSet) -> Result<RunReport, ReproError> {
    let r =
        online::run(tree, m, POLICY, &mut Greedy, 0, CONFIG).map_err(|e| EXPERIMENT.error(e))?;
    if !r.finished {
        return Err(EXPERIMENT.failed(format!("GREEDY did not finish on n = {}", tree.n())));
    }
    Ok(r)
}

fn ratio(r: &RunReport) -> f64 {
    r.cycles as f64 / r.load_factor.value()
}

fn set(n: u32, sources: &[u32]) -> Result<MessageSet, ReproError> {
    MessageSet::new(n, sources.iter().map(|&s| Message::new(s, s)).collect())
        .map_err(|e| EXPERIMENT.error(e))
}

/// One start of the hill-climbing: the best set's report and its sources.
fn climb(tree: &FatTree, steps: u32, seed: u64) -> Result<(RunReport, Vec<u32>), ReproError> {
    let n = tree.n();
    let count = LAMBDA * tree.capacity_at_height(tree.levels());
    let mut rng = Pcg64::seed_from_u64(seed);
    let mut sources: Vec<u32> = (0..count).map(|_| rng.random_range(0..n)).collect();
    let mut best = greedy(tree, &set(n, &sources)?)?;
    for _ in 0..steps {
        let i = rng.random_range(0..sources.len());
        let old = sources[i];
        sources[i] = rng.random_range(0..n);
        let r = greedy(tree, &set(n, &sources)?)?;
        if ratio(&r) >= ratio(&best) {
            best = r;
        } else {
            sources[i] = old;
        }
    }
    sources.sort_unstable();
    Ok((best, sources))
}

/// One computed row: a tree size.
#[derive(Debug)]
pub struct Row {
    /// lg n.
    pub levels: u32,
    /// The best start: its report and its sources.
    pub best: (RunReport, Vec<u32>),
    /// Starts and steps per start.
    pub starts: u64,
    /// Steps per start.
    pub steps: u32,
    /// Theorem 9's adversary on the same tree (n a power of four).
    pub adversary: Option<RunReport>,
}

impl Experiment for GreedyGrowth {
    fn paper(&self) -> Paper {
        Paper::OpenQuestions
    }

    fn id(&self) -> &'static str {
        "greedy_growth"
    }

    fn seed(&self) -> Option<u64> {
        Some(SEED)
    }

    fn quick_differs(&self) -> bool {
        true
    }

    fn run(&self, effort: Effort) -> Result<Table, ReproError> {
        tabulate(self, effort)
    }
}

impl Tabular for GreedyGrowth {
    type Row = Row;

    fn frame(&self) -> Frame {
        Frame {
            title: "Open question (Greenberg–Leiserson §5): GREEDY's largest cycles/λ found by search, against lg n and Theorem 9's adversary".into(),
            key_columns: vec!["n".into(), "set".into()],
            detail_column: "cycles, λ(M), ratio".into(),
        }
    }

    fn compute(&self, effort: Effort) -> Result<Vec<Row>, ReproError> {
        let (sizes, starts, steps) = Self::plan(effort);
        let mut rows = Vec::new();
        for &l in sizes {
            let t = tree(l)?;
            let found = try_run_trials(derive_seed(SEED, u64::from(l)), starts, |_, s| {
                climb(&t, steps, s)
            })
            .map_err(|e| EXPERIMENT.error(e))??;
            let best = found
                .into_iter()
                .reduce(|a, b| if ratio(&b.0) > ratio(&a.0) { b } else { a })
                .ok_or_else(|| EXPERIMENT.failed("no start"))?;
            let adversary = if l.is_multiple_of(2) {
                let m =
                    greedy_adversary(1 << l, LAMBDA, POLICY).map_err(|e| EXPERIMENT.error(e))?;
                Some(greedy(&t, &m)?)
            } else {
                None
            };
            rows.push(Row {
                levels: l,
                best,
                starts,
                steps,
                adversary,
            });
        }
        Ok(rows)
    }

    fn cells(&self, row: &Row) -> Vec<Cell> {
        let l = row.levels;
        let n = 1u32 << l;
        let found = &row.best.0;
        let mut cells = vec![Cell {
            key: vec![int(n), "search best".into()],
            paper: None,
            ours: fixed(ratio(found), 3),
            detail: detail![
                field("cycles", found.cycles),
                ", ",
                field("λ(M)", fixed(found.load_factor.value(), 3)),
                ", ",
                field("|M|", found.messages),
                ", ",
                field("lg n", l),
                ", ",
                field("ratio/lg n", fixed(ratio(found) / f64::from(l), 3)),
            ],
            verdict: Verdict::NotInPaper,
            note: String::new(),
        }];
        if let Some(a) = &row.adversary {
            let bound = LAMBDA as f64 * f64::from(l) / 24.0;
            let ok = a.load_factor.value() <= LAMBDA as f64 && a.cycles as f64 >= bound;
            cells.push(Cell {
                key: vec![int(n), "Theorem 9 adversary, λ = 12".into()],
                paper: Some(detail!["≥ λ lg n/24 = ", fixed(bound, 1), "; λ(M) ≤ 12"].into()),
                ours: int(a.cycles),
                detail: detail![
                    field("λ(M)", fixed(a.load_factor.value(), 3)),
                    ", ",
                    field("|M|", a.messages),
                    ", ",
                    field("cycles/λ(M)", fixed(ratio(a), 3)),
                ],
                verdict: Verdict::bound(ok),
                note: String::new(),
            });
            let beats = ratio(found) >= ratio(a);
            cells.push(Cell {
                key: vec![int(n), "search vs adversary".into()],
                paper: None,
                ours: if beats {
                    "search ≥ adversary".into()
                } else {
                    "search < adversary".into()
                },
                detail: detail![
                    field("search", fixed(ratio(found), 3)),
                    ", ",
                    field("adversary", fixed(ratio(a), 3)),
                ],
                verdict: Verdict::NotInPaper,
                note: String::new(),
            });
        }
        cells
    }

    fn notes(&self, effort: Effort, rows: &[Row], _cells: &[Cell]) -> Vec<String> {
        let (_, starts, steps) = Self::plan(effort);
        let mut notes = vec![
            format!("Search bound: {starts} starts × {steps} steps per n (one GREEDY run per step), seeded from seed {SEED} and lg n. A set has 12·cap(root) messages routed out of the root's external channel (Theorem 9's setting), each named by its source; a step moves one message to a uniform processor and is kept when cycles/λ(M) does not decrease."),
            "Tree: 2^⌈h/2⌉ (Greenberg–Leiserson's standard tree; for odd lg n the same formula as a custom profile). Switches: fixed priority (deterministic, admissible), the same for the search and for the adversary, which `fatnet_online::greedy_adversary` builds against them (n a power of four only).".into(),
            "Verdicts: the adversary's cells check Theorem 9 (λ(M) ≤ 12, cycles ≥ 12·lg n/24); the searched ratios and the comparison are explorations (not in paper). Theorem 9's λ lg n/24 is a lower bound on the worst case: a search that finds less than the adversary has not found the worst case.".into(),
        ];
        for r in rows {
            notes.push(format!(
                "n = {}: best set found (sources, sorted): {}.",
                1u32 << r.levels,
                r.best
                    .1
                    .iter()
                    .map(u32::to_string)
                    .collect::<Vec<_>>()
                    .join(" ")
            ));
        }
        notes
    }
}
