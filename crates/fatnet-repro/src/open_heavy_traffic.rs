//! An open question of Stamoulis' thesis ("Routing and Performance Evaluation in
//! Interconnection Networks", §5.3.5): is greedy routing's delay on the hypercube within a
//! constant factor of its upper bound in heavy traffic?
//!
//! **The conjecture.** For the bit-flip traffic of §5.1 the thesis proves
//! `dp + pρ/(2(1 − ρ)) ≤ T ≤ dp/(1 − ρ)` (Props. 5.13 and 5.12) and writes: "We *conjecture*
//! that, for all p ∈ (0, 1), the latter bound is tight; namely, we conjecture that
//! T ≥ α dp/(1 − ρ), where α depends only on p (and α < 1)." So the ratio `T(1 − ρ)/(dp)` should
//! stay bounded away from 0 as ρ → 1, for every d, with a bound depending on p only; the lower
//! bound alone gives only `ρ/(2d)`, which vanishes as d grows.
//!
//! **The sweep.** The slotted greedy engine ([`fatnet::online::slotted_cube`], FIFO arcs with
//! fair random ties, §5.4) at ρ = 0.5 … 0.98 for several d and p. The thesis' bounds are for
//! continuous time; the slotted delay differs by at most one slot (§5.4: `T ≤ T̄ ≤ T + τ`),
//! which does not matter as ρ → 1. **Cost bound:** a queue near saturation relaxes in a time
//! of order `1/(1 − ρ)²`, so each run discards a warm-up of `W/(1 − ρ)²` slots and measures
//! `H/(1 − ρ)²` slots (W, H below), keeping the relative precision roughly constant across ρ
//! while the total work stays bounded (the sum of `1/(1 − ρ)²` over the loads times W + H).
//! Each cell is the mean of independent runs with a 99 % Student-t interval.
//!
//! **Verdicts.** The thesis prints no value; a cell's verdict is [`Verdict::bound_measured`] of the
//! proved upper bound `T̄ ≤ dp/(1 − ρ) + 1` (our interval's lower end at most the bound), and
//! the question's answer — the trend of the ratio with ρ and d, its smallest value — is in the
//! summary cells and the notes.

use fatnet::online::RunProtocol;
use fatnet::online::slotted_cube::{SlottedConfig, SlottedScheme, run};

use crate::cell::{fixed, signed};
use crate::greenberg_oh::Stat;
use crate::runner::try_run_trials;
use crate::{
    Cell, Effort, Experiment, ExperimentId, Frame, Paper, ReproError, Table, Tabular, Verdict,
    derive_seed, detail, tabulate,
};

/// Master seed.
pub const SEED: u64 = 5_035;

/// The experiment, as its errors name it.
const EXPERIMENT: ExperimentId = ExperimentId::new(Paper::OpenQuestions, "greedy_heavy_traffic");

/// The loads.
const LOADS: [f64; 6] = [0.5, 0.7, 0.8, 0.9, 0.95, 0.98];

/// The dimensions.
const DIMENSIONS: [u32; 3] = [3, 4, 5];

/// The bit-flip probabilities.
const FLIPS: [f64; 3] = [0.25, 0.5, 0.75];

/// (warm-up W, measured H, runs): a run discards `W/(1 − ρ)²` slots and measures `H/(1 − ρ)²`.
fn protocol(effort: Effort) -> (f64, f64, u64) {
    match effort {
        Effort::Full => (2.0, 20.0, 4),
        Effort::Quick => (1.0, 4.0, 3),
    }
}

/// The dimensions run at `effort` (quick: the two smallest).
fn dimensions(effort: Effort) -> &'static [u32] {
    match effort {
        Effort::Full => &DIMENSIONS,
        Effort::Quick => &DIMENSIONS[..2],
    }
}

/// One (d, p, ρ): the runs' mean delays.
#[derive(Clone, Debug)]
pub struct HeavyPoint {
    d: u32,
    p: f64,
    rho: f64,
    /// Mean delay per run.
    runs: Vec<f64>,
    /// (warm-up, horizon) of every run.
    slots: (u64, u64),
    /// Packets measured over the runs.
    packets: u64,
}

impl HeavyPoint {
    /// The normaliser `dp/(1 − ρ)`.
    fn scale(&self) -> f64 {
        f64::from(self.d) * self.p / (1.0 - self.rho)
    }

    /// The ratio `T(1 − ρ)/(dp)` per run, summarised.
    fn ratio(&self) -> Stat {
        let s = self.scale();
        Stat::of(&self.runs.iter().map(|t| t / s).collect::<Vec<_>>())
    }
}

/// The open question: greedy routing's delay against `dp/(1 − ρ)` in heavy traffic.
#[derive(Clone, Copy, Debug, Default)]
pub struct GreedyHeavyTraffic;

impl Experiment for GreedyHeavyTraffic {
    fn paper(&self) -> Paper {
        Paper::OpenQuestions
    }

    fn id(&self) -> &'static str {
        "greedy_heavy_traffic"
    }

    fn cost(&self) -> u32 {
        7
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

impl Tabular for GreedyHeavyTraffic {
    type Row = HeavyPoint;

    fn frame(&self) -> Frame {
        Frame {
            title: "Open question (Stamoulis, §5.3.5): is greedy routing's delay on the d-cube at least α·dp/(1 − ρ) as ρ → 1? The ratio T(1 − ρ)/(dp) on the slotted greedy engine".into(),
            key_columns: vec!["d".into(), "p".into(), "ρ".into()],
            detail_column: "T with its 99% CI; upper bound dp/(1 − ρ) + 1; runs".into(),
        }
    }

    fn compute(&self, effort: Effort) -> Result<Vec<HeavyPoint>, ReproError> {
        let (w, h, trials) = protocol(effort);
        let mut grid = Vec::new();
        for &d in dimensions(effort) {
            for &p in &FLIPS {
                for &rho in &LOADS {
                    grid.push((d, p, rho));
                }
            }
        }
        let slots = |rho: f64| {
            let scale = 1.0 / ((1.0 - rho) * (1.0 - rho));
            let warmup = (w * scale).ceil() as u64;
            (warmup, warmup + (h * scale).ceil() as u64)
        };
        // One job per (cell, run), the heaviest first so the two threads stay balanced; run
        // `t` of cell `i` has the seed derive_seed(derive_seed(SEED, i), t).
        let mut jobs: Vec<(usize, u64)> = (0..grid.len())
            .flat_map(|i| (0..trials).map(move |t| (i, t)))
            .collect();
        jobs.sort_by(|a, b| {
            let cost = |i: usize| slots(grid[i].2).1 << grid[i].0;
            cost(b.0).cmp(&cost(a.0)).then(a.cmp(b))
        });
        let results = try_run_trials(SEED, jobs.len() as u64, |j, _| {
            let (i, t) = jobs[j as usize];
            let (d, p, rho) = grid[i];
            let (warmup, horizon) = slots(rho);
            let r = run(&SlottedConfig {
                scheme: SlottedScheme::Greedy,
                d,
                lambda: rho / p,
                p,
                protocol: RunProtocol::slots(warmup, horizon, 2),
                confidence: 0.99,
                seed: derive_seed(derive_seed(SEED, i as u64), t),
                ..SlottedConfig::default()
            })
            .map_err(|e| EXPERIMENT.error(e))?;
            if r.extension_capped {
                return Err(EXPERIMENT.failed(format!(
                    "d = {d}, p = {p}, ρ = {rho}: measured packets still in flight at 2·horizon"
                )));
            }
            Ok((r.delay_mean, r.measured))
        })
        .map_err(|e| EXPERIMENT.error(e))??;
        let mut points: Vec<HeavyPoint> = grid
            .iter()
            .map(|&(d, p, rho)| HeavyPoint {
                d,
                p,
                rho,
                runs: Vec::new(),
                slots: slots(rho),
                packets: 0,
            })
            .collect();
        // Runs in trial order within each cell, whatever the job order.
        let mut order: Vec<usize> = (0..jobs.len()).collect();
        order.sort_by_key(|&j| jobs[j]);
        for j in order {
            let (i, _) = jobs[j];
            points[i].runs.push(results[j].0);
            points[i].packets += results[j].1;
        }
        Ok(points)
    }

    fn cells(&self, pt: &HeavyPoint) -> Vec<Cell> {
        let s = Stat::of(&pt.runs);
        let r = pt.ratio();
        let upper = pt.scale() + 1.0;
        vec![Cell {
            key: vec![pt.d.into(), fixed(pt.p, 2), fixed(pt.rho, 2)],
            paper: Some(detail!["≥ α (conjecture); ≤ ", fixed(1.0 + 1.0 / pt.scale(), 3)].into()),
            ours: r.estimate(3),
            detail: detail![
                "T = ",
                fixed(s.mean, 2),
                ", ",
                ..s.ci(2),
                "; bound ",
                fixed(upper, 2),
                "; ",
                s.n,
                " runs of ",
                pt.slots.1 - pt.slots.0,
                " measured slots after ",
                pt.slots.0,
                " (",
                pt.packets,
                " packets)",
            ],
            verdict: Verdict::bound_measured(&s.est(3), f64::NEG_INFINITY, upper),
            note: String::new(),
        }]
    }

    fn summary_cells(&self, effort: Effort, rows: &[HeavyPoint]) -> Result<Vec<Cell>, ReproError> {
        let mut out = Vec::new();
        for &p in &FLIPS {
            for &d in dimensions(effort) {
                let mine: Vec<&HeavyPoint> = rows.iter().filter(|r| r.d == d && r.p == p).collect();
                // The heavy end: from ρ = 0.9 to ρ = 0.98 (is the ratio levelling off?).
                let (first, last) = (mine[mine.len() - 3].ratio(), mine[mine.len() - 1].ratio());
                let listed = mine
                    .iter()
                    .map(|r| format!("{}: {:.3}", r.rho, r.ratio().mean))
                    .collect::<Vec<_>>()
                    .join(", ");
                out.push(Cell {
                    key: vec![d.into(), fixed(p, 2), "trend 0.9 → 0.98".into()],
                    paper: None,
                    ours: signed(last.mean - first.mean, 3),
                    detail: detail![
                        "ratio at ρ = 0.9: ",
                        ..first.ci(3),
                        "; at ρ = 0.98: ",
                        ..last.ci(3),
                        "; means by ρ ",
                        listed,
                    ],
                    verdict: Verdict::NotInPaper,
                    note: if last.low() > first.high() {
                        "rises toward the upper bound".into()
                    } else if last.high() < first.low() {
                        "falls beyond the 99% intervals".into()
                    } else {
                        "level within the 99% intervals".into()
                    },
                });
            }
            let heavy: Vec<(u32, Stat)> = rows
                .iter()
                .filter(|r| r.p == p && r.rho == LOADS[LOADS.len() - 1])
                .map(|r| (r.d, r.ratio()))
                .collect();
            let listed = heavy
                .iter()
                .map(|(d, s)| format!("d = {d}: {:.3} ± {:.3}", s.mean, s.half99))
                .collect::<Vec<_>>()
                .join(", ");
            let smallest = heavy
                .iter()
                .map(|(_, s)| s.mean)
                .fold(f64::INFINITY, f64::min);
            out.push(Cell {
                key: vec![
                    "all d".into(),
                    fixed(p, 2),
                    "ratio at ρ = 0.98 against d".into(),
                ],
                paper: Some("α(p) > 0, independent of d".into()),
                ours: fixed(smallest, 3),
                detail: detail!["smallest over d; per d ", listed],
                verdict: Verdict::NotInPaper,
                note: String::new(),
            });
        }
        Ok(out)
    }

    fn notes(&self, effort: Effort, rows: &[HeavyPoint], _cells: &[Cell]) -> Vec<String> {
        let (w, h, trials) = protocol(effort);
        let smallest = rows.iter().map(|r| (r.ratio().mean, r.d, r.p, r.rho)).fold(
            (f64::INFINITY, 0, 0.0, 0.0),
            |a, b| if b.0 < a.0 { b } else { a },
        );
        let heavy_smallest = rows
            .iter()
            .filter(|r| r.rho >= 0.9)
            .map(|r| (r.ratio().low(), r.d, r.p, r.rho))
            .fold(
                (f64::INFINITY, 0, 0.0, 0.0),
                |a, b| if b.0 < a.0 { b } else { a },
            );
        let within = rows
            .iter()
            .filter(|r| Stat::of(&r.runs).low() <= r.scale() + 1.0)
            .count();
        let by_d: Vec<String> = FLIPS
            .iter()
            .map(|&p| {
                let at = |d: u32| {
                    rows.iter()
                        .find(|r| r.d == d && r.p == p && r.rho == LOADS[LOADS.len() - 1])
                        .map(HeavyPoint::ratio)
                };
                let ds = dimensions(effort);
                match (at(ds[0]), at(ds[ds.len() - 1])) {
                    (Some(a), Some(b)) => format!(
                        "p = {p}: {:.3} at d = {} and {:.3} at d = {} ({})",
                        a.mean,
                        ds[0],
                        b.mean,
                        ds[ds.len() - 1],
                        if b.high() < a.low() {
                            "falls with d beyond the 99% intervals"
                        } else if b.low() > a.high() {
                            "rises with d"
                        } else {
                            "no significant change with d"
                        }
                    ),
                    _ => String::new(),
                }
            })
            .collect();
        vec![
            format!("At ρ = 0.98 against d: {}.", by_d.join("; ")),
            format!(
                "Simulation: `fatnet_online::slotted_cube::run`, greedy (canonical paths, FIFO arcs, fair random ties), Poisson(λ) batches per node per slot with λ = ρ/p, bit-flip destinations with probability p. Each cell: {trials} independent runs from an empty network, each discarding ⌈{w}/(1 − ρ)²⌉ slots and measuring ⌈{h}/(1 − ρ)²⌉ slots of generation (at ρ = 0.98: {} and {} slots), every measured packet run to delivery; the ratio column is the mean of T(1 − ρ)/(dp) with a 99% Student-t interval over the runs.",
                (w / 0.0004_f64).ceil(),
                (h / 0.0004_f64).ceil()
            ),
            format!(
                "Smallest mean ratio over all {} cells: {:.3} (d = {}, p = {}, ρ = {}); for ρ ≥ 0.9 the smallest lower end of a 99% interval is {:.3} (d = {}, p = {}, ρ = {}).",
                rows.len(),
                smallest.0,
                smallest.1,
                smallest.2,
                smallest.3,
                heavy_smallest.0,
                heavy_smallest.1,
                heavy_smallest.2,
                heavy_smallest.3
            ),
            format!(
                "Verdict of a cell: within bound if our interval's lower end is at most the proved upper bound dp/(1 − ρ) + 1 (Prop. 5.12 plus one slot, §5.4): {within} of {} cells. The thesis prints no values; the conjecture's answer is read from the trend rows: a ratio that rises or stays level toward ρ = 0.98 at every d, and does not fall with d, supports a bound α(p) > 0; a ratio falling toward 0 would refute it. A finite sweep cannot prove the limit.",
                rows.len()
            ),
        ]
    }
}
