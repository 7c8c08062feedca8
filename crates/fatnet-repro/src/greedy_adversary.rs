//! Greenberg & Leiserson, *Randomized routing on fat-trees* (1986), Theorem 9: GREEDY on the
//! adversary's message set against `λ·lg n/24`, next to RANDOM on the same sets.
//!
//! For the standard fat-tree (`2^⌈h/2⌉`, see `CapacityProfile::Standard`) on `n = 4^j`
//! processors, messages routed out of the root, and switches with a deterministic admissible
//! policy, `fatnet_online::greedy_adversary` builds the set of the proof by simulating those
//! very switches. The theorem claims `λ(M) ≤ λ` and that GREEDY needs at least `(1/24)·λ·lg n`
//! cycles; the verdict checks both. RANDOM (practical constants, the same switches) runs on the
//! same set over seeded trials: the paper's point is that it needs `O(λ + lg n lg lg n)`, not
//! `Ω(λ lg n)`; the detail column shows cycles/λ for both so the growth with lg n can be read.

use fatnet::online::{
    self, DropPolicy, Greedy, RandomParams, RandomRouter, RunConfig, Sink, greedy_adversary,
};
use fatnet::topology::{CapacityProfile, FatTree};

use crate::cell::{Estimate, field, fixed, power};
use crate::figure::{Figure, Series, point};
use crate::runner::{Summary, try_run_trials};
use crate::{
    Cell, Effort, Experiment, ExperimentId, Frame, Paper, ReproError, Table, Tabular, Verdict,
    derive_seed, detail, tabulate,
};

/// Master seed of RANDOM's trials (GREEDY with deterministic switches draws nothing).
pub const SEED: u64 = 1985;

/// GREEDY against the Theorem 9 adversary, and RANDOM on the same sets.
#[derive(Clone, Copy, Debug, Default)]
pub struct GreedyAdversary;

/// The experiment, as its errors name it.
const EXPERIMENT: ExperimentId = ExperimentId::new(Paper::GreenbergLeiserson, "greedy_adversary");

impl Experiment for GreedyAdversary {
    fn paper(&self) -> Paper {
        Paper::GreenbergLeiserson
    }

    fn id(&self) -> &'static str {
        "greedy_adversary"
    }

    fn seed(&self) -> Option<u64> {
        Some(SEED)
    }

    fn quick_differs(&self) -> bool {
        true
    }

    /// `lg_n`: cycles/λ(M) of the table against lg n for λ = 48, GREEDY and RANDOM with both
    /// switch policies, and Theorem 9's lower bound on GREEDY, (λ lg n/24)/λ = lg n/24 (a lower
    /// bound on cycles/λ(M) too, since λ(M) ≤ λ). The points are the table's printed ratios.
    fn figures(&self, table: &Table) -> Vec<Figure> {
        let lg_n = |c: &Cell| c.key[1].shown().map(f64::log2);
        let mut series: Vec<Series> = ["GREEDY", "RANDOM"]
            .into_iter()
            .flat_map(|router| {
                [DropPolicy::FixedPriority, DropPolicy::RoundRobin].map(|policy| Series {
                    name: format!("{router} ({policy:?})"),
                    points: table
                        .cells
                        .iter()
                        .filter(|c| {
                            c.key[0] == format!("{policy:?}")
                                && c.key[2].shown() == Some(48.0)
                                && c.key[3] == router
                        })
                        .map(|c| {
                            point(
                                lg_n(c),
                                c.detail.field("cycles/λ(M)").and_then(|v| v.shown()),
                            )
                        })
                        .collect(),
                })
            })
            .collect();
        let bound = series
            .first()
            .map(|s| s.points.iter().map(|&(x, _)| (x, x / 24.0)).collect())
            .unwrap_or_default();
        series.push(Series {
            name: "Theorem 9 bound lg n/24".into(),
            points: bound,
        });
        vec![Figure {
            id: "lg_n",
            title: "Greenberg–Leiserson, Theorem 9: cycles/λ(M) on the adversary's set, λ = 48"
                .into(),
            x_label: "lg n".into(),
            y_label: "cycles / λ(M)".into(),
            series,
            log_x: false,
            ..Figure::default()
        }]
    }

    fn run(&self, effort: Effort) -> Result<Table, ReproError> {
        tabulate(self, effort)
    }
}

/// One computed row: GREEDY on the adversary's set, and RANDOM's trials on the same set.
#[derive(Debug)]
pub struct Adversary {
    policy: DropPolicy,
    levels: u32,
    lambda: u64,
    greedy: online::RunReport,
    random: Summary,
    trials: u64,
    /// Every RANDOM trial finished in at least ⌈λ⌉ cycles.
    random_fine: bool,
}

impl Tabular for GreedyAdversary {
    type Row = Adversary;

    fn frame(&self) -> Frame {
        Frame {
            title: "Greenberg–Leiserson, Theorem 9: GREEDY on the adversary's set vs λ lg n/24, and RANDOM on the same set".into(),
            key_columns: vec!["switches".into(), "n".into(), "λ".into(), "router".into()],
            detail_column: "λ(M), cycles/λ(M)".into(),
        }
    }

    fn compute(&self, effort: Effort) -> Result<Vec<Adversary>, ReproError> {
        let (levels, trials): (&[u32], u64) = match effort {
            Effort::Full => (&[2, 4, 6, 8, 10], 20),
            Effort::Quick => (&[2, 4, 6], 5),
        };
        let config = RunConfig {
            sink: Sink::External,
            max_cycles: 1_000_000,
            ..RunConfig::default()
        };
        let mut rows = Vec::new();
        let mut row = 0u64;
        for policy in [DropPolicy::FixedPriority, DropPolicy::RoundRobin] {
            for &l in levels {
                for lambda in [12u64, 48] {
                    let n = 1u32 << l;
                    let tree = FatTree::new(u64::from(n), CapacityProfile::Standard)
                        .map_err(|e| EXPERIMENT.error(e))?;
                    let m = greedy_adversary(n, lambda, policy).map_err(|e| EXPERIMENT.error(e))?;
                    let g = online::run(&tree, &m, policy, &mut Greedy, 0, config)
                        .map_err(|e| EXPERIMENT.error(e))?;
                    let outcomes = try_run_trials(derive_seed(SEED, row), trials, |_, seed| {
                        let mut r = RandomRouter::new(RandomParams::default(), n);
                        online::run(&tree, &m, policy, &mut r, seed, config)
                    })
                    .map_err(|e| EXPERIMENT.error(e))?
                    .map_err(|e| EXPERIMENT.error(e))?;
                    row += 1;
                    let cycles: Vec<f64> = outcomes.iter().map(|o| o.cycles as f64).collect();
                    rows.push(Adversary {
                        policy,
                        levels: l,
                        lambda,
                        greedy: g,
                        random: Summary::of(&cycles),
                        trials,
                        random_fine: outcomes
                            .iter()
                            .all(|o| o.finished && o.cycles >= o.lower_bound),
                    });
                }
            }
        }
        Ok(rows)
    }

    fn cells(&self, row: &Adversary) -> Vec<Cell> {
        let &Adversary {
            policy,
            levels: l,
            lambda,
            ref greedy,
            ref random,
            trials,
            random_fine,
        } = row;
        let g = greedy;
        let lam = g.load_factor.value();
        let bound = lambda as f64 * f64::from(l) / 24.0;
        let key = vec![format!("{policy:?}").into(), power(4, l / 2), lambda.into()];
        let ok = g.finished && lam <= lambda as f64 && g.cycles as f64 >= bound;
        let greedy_cell = Cell {
            key: [key.clone(), vec!["GREEDY".into()]].concat(),
            paper: Some(detail!["≥ λ lg n/24 = ", fixed(bound, 1), "; λ(M) ≤ ", lambda].into()),
            ours: g.cycles.into(),
            detail: detail![
                field("|M|", g.messages),
                ", ",
                field("λ(M)", fixed(lam, 3)),
                ", ",
                field("cycles/λ(M)", fixed(g.cycles as f64 / lam, 2)),
            ],
            verdict: Verdict::bound(ok),
            note: String::new(),
        };
        let s = random;
        let mean = s.mean.unwrap_or(f64::NAN);
        let random_cell = Cell {
            key: [key, vec!["RANDOM".into()]].concat(),
            paper: Some(detail!["O(λ + lg n lg lg n); ≥ ⌈λ⌉ = ", g.lower_bound].into()),
            ours: Estimate::student95(s, 1).into(),
            detail: detail![
                "95% CI [",
                fixed(s.ci95_low.unwrap_or(f64::NAN), 1),
                ", ",
                fixed(s.ci95_high.unwrap_or(f64::NAN), 1),
                "] over ",
                trials,
                " trials, ",
                field("cycles/λ(M)", fixed(mean / lam, 2)),
            ],
            verdict: Verdict::bound(random_fine),
            note: String::new(),
        };
        vec![greedy_cell, random_cell]
    }

    fn notes(&self, _effort: Effort, _rows: &[Adversary], _cells: &[Cell]) -> Vec<String> {
        vec![
                "Standard fat-tree with capacities 2^⌈h/2⌉ (leaf channels 1, root √n); messages leave through the root's external channel. The adversary simulates the same deterministic switches the run uses.".into(),
                "GREEDY's verdict checks the theorem's two claims: λ(M) ≤ λ and at least λ·lg n/24 cycles. RANDOM's verdict checks only ⌈λ⌉ (its O(·) bound has no constant); compare the cycles/λ(M) columns across n: GREEDY's grows with lg n, RANDOM's should not.".into(),
                format!("RANDOM uses this library's practical constants (k1 = 2, k2 = 1, r = 2) and the same switches; trials are seeded from seed {SEED} and the row."),
        ]
    }
}
