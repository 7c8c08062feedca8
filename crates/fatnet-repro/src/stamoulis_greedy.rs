//! Stamoulis, chapter 5: greedy routing on the hypercube under Poisson traffic, slotted
//! (thesis §5.4), simulated on the output-queued packet engine against the delay bounds.
//!
//! **Model** (thesis §5.1 and §5.4): at every slot boundary every node generates a Poisson(λ) batch
//! of packets; a packet from `x` goes to `z` with each bit flipped independently with
//! probability `p` (`z = x` possible: delay 0); greedy routing crosses the differing
//! dimensions in increasing order (dimension order) through FIFO output queues, one packet per
//! arc per slot, ties at random ([`Queueing::Output`](fatnet::online::packet::Queueing::Output) with RR ties). A batch generated at time
//! `k` may leave in slot `k`; the delay of a packet is the end of its last slot minus its
//! generation time (the engine's latency + 1). ρ = λp.
//!
//! **Bounds.** For the continuous-time model the thesis proves
//! `dp + pρ/(2(1 − ρ)) ≤ T ≤ dp/(1 − ρ)` (Props. 5.13 and 5.12) and, for the slotted model,
//! `T ≤ T̄ ≤ T + τ` (§5.4, τ = 1 here); so the slotted delay lies in
//! `[dp + pρ/(2(1 − ρ)), dp/(1 − ρ) + 1]`. For `p = 1` every packet crosses all `d`
//! dimensions and only the first arc queues: a discrete-time M/D/1 with batch Poisson arrivals
//! (thesis (2.4)), so `T̄ = d + ρ/(2(1 − ρ))` exactly.

use fatnet::online::RunProtocol;
use fatnet::online::packet::{
    PacketConfig, PacketNet, ScanPolicy, simulate, slotted_bitflip_arrivals,
};
use fatnet::queueing::stamoulis::greedy::{self, Network};
use fatnet::topology::Hypercube;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

use crate::cell::{Estimate, field, fixed, float, interval};
use crate::figure::point;
use crate::greenberg_oh::Stat;
use crate::runner::try_run_trials;
use crate::verdict::{Reference, judge};
use crate::{
    Cell, Detail, Effort, Experiment, ExperimentId, Figure, Frame, Paper, ReproError, Series,
    Table, Tabular, Value, Verdict, detail, tabulate,
};

/// Master seed of the greedy-routing grid.
pub const SEED: u64 = 5;

/// The experiment, as its errors name it.
const EXPERIMENT: ExperimentId = ExperimentId::new(Paper::Stamoulis, "greedy");

/// One slotted run of greedy routing on the `d`-cube: batch means (by generation slot) of the
/// delays of packets generated in `[warmup, horizon)`, and the number of such packets.
fn greedy_run(
    d: u32,
    rho: f64,
    p: f64,
    horizon: u64,
    warmup: u64,
    batches: u64,
    seed: u64,
) -> Result<(Vec<f64>, u64), ReproError> {
    let net = PacketNet::new(Hypercube::new(u64::from(d)).map_err(|e| EXPERIMENT.error(e))?)
        .map_err(|e| EXPERIMENT.error(e))?;
    let lambda = rho / p;
    let mut rng = Pcg64::seed_from_u64(seed);
    let injections = slotted_bitflip_arrivals(d, lambda, p, horizon, &mut rng)
        .map_err(|e| EXPERIMENT.error(e))?;
    let config = PacketConfig::output_queued_unit(ScanPolicy::RoundRobin);
    let r = simulate(&net, &injections, &config, rng.random()).map_err(|e| EXPERIMENT.error(e))?;
    if !r.finished() {
        return Err(EXPERIMENT.failed(format!("d = {d}, ρ = {rho}, p = {p}: {:?}", r.outcome)));
    }
    let lat = r.latencies.unwrap_or_default();
    let per = (horizon - warmup).div_ceil(batches).max(1);
    let mut sums = vec![(0.0, 0u64); batches as usize];
    for (m, &l) in injections.iter().zip(&lat) {
        if m.release >= warmup {
            let delay = if m.src == m.dst { 0.0 } else { (l + 1) as f64 };
            let b = &mut sums[((m.release - warmup) / per) as usize];
            b.0 += delay;
            b.1 += 1;
        }
    }
    let measured = sums.iter().map(|s| s.1).sum();
    Ok((
        sums.iter()
            .filter(|s| s.1 > 0)
            .map(|s| s.0 / s.1 as f64)
            .collect(),
        measured,
    ))
}

/// The greedy-routing grid: slotted delay against the thesis' bounds.
#[derive(Clone, Copy, Debug, Default)]
pub struct GreedyGrid;

impl Experiment for GreedyGrid {
    fn paper(&self) -> Paper {
        Paper::Stamoulis
    }

    fn id(&self) -> &'static str {
        "greedy"
    }

    fn cost(&self) -> u32 {
        6
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

/// One computed cell of the greedy grid: the run's batch means against the bounds.
#[derive(Debug)]
pub struct GridPoint {
    d: u32,
    rho: f64,
    p: f64,
    /// The batch means' summary and the 99% half-width.
    stat: Stat,
    half: f64,
    measured: u64,
    bounds: greedy::DelayBounds,
}

impl Tabular for GreedyGrid {
    type Row = GridPoint;

    fn frame(&self) -> Frame {
        Frame {
            title: "Stamoulis, chapter 5: mean delay of slotted greedy routing on the d-cube against dp + pρ/(2(1 − ρ)) ≤ T̄ ≤ dp/(1 − ρ) + 1".into(),
            key_columns: vec!["d".into(), "ρ".into(), "p".into()],
            detail_column: "99% CI and the bounds".into(),
        }
    }

    fn compute(&self, effort: Effort) -> Result<Vec<GridPoint>, ReproError> {
        // About `budget` packets per cell, at least 2,000 slots (the quick form leaves out
        // d = 8, whose short runs would not reach steady state at ρ = 0.8).
        let (budget, dims): (f64, &[u32]) = match effort {
            Effort::Full => (2_000_000.0, &[3, 5, 8]),
            Effort::Quick => (150_000.0, &[3, 5]),
        };
        let batches = 20u64;
        let mut grid = Vec::new();
        for &d in dims {
            for rho in [0.2, 0.5, 0.8] {
                for p in [0.25, 0.5, 1.0] {
                    grid.push((d, rho, p));
                }
            }
        }
        let runs = try_run_trials(SEED, grid.len() as u64, |i, seed| {
            let (d, rho, p) = grid[i as usize];
            let per_slot = f64::from(1u32 << d) * rho / p;
            let horizon = ((budget / per_slot) as u64).clamp(2_000, 200_000);
            greedy_run(d, rho, p, horizon, horizon / 10, batches, seed)
        })
        .map_err(|e| EXPERIMENT.error(e))??;
        let t = crate::runner::student_t_995(batches - 1).unwrap_or(f64::NAN);
        grid.iter()
            .zip(&runs)
            .map(|(&(d, rho, p), (means, measured))| {
                let stat = Stat::of(means);
                Ok(GridPoint {
                    d,
                    rho,
                    p,
                    stat,
                    half: t * stat.sd / (stat.n as f64).sqrt(),
                    measured: *measured,
                    bounds: greedy::slotted_delay_bounds(Network::Hypercube, d, rho / p, p, 1.0)
                        .map_err(|e| EXPERIMENT.error(e))?,
                })
            })
            .collect()
    }

    fn cells(&self, point: &GridPoint) -> Vec<Cell> {
        let GridPoint {
            d,
            rho,
            p,
            stat: s,
            half,
            measured,
            bounds: b,
        } = *point;
        let dp = f64::from(d) * p;
        let (lower, upper, exact) = (b.lower, b.upper, b.exact);
        let estimate = Estimate::new(s.mean, half, s.n, 99, 3);
        let (paper, verdict) = match exact {
            Some(x) => (
                format!("{x:.3} (exact, p = 1)").into(),
                judge(Reference::Exact(x), &estimate, 0.0).verdict,
            ),
            None => (
                interval(lower, upper, 3),
                Verdict::bound_measured(&estimate, lower, upper),
            ),
        };
        vec![Cell {
            key: vec![d.into(), fixed(rho, 1), fixed(p, 2)],
            paper: Some(paper),
            ours: estimate.into(),
            detail: detail![
                ..estimate.interval(),
                " (",
                s.n,
                " batch means, ",
                measured,
                " packets); bounds ",
                interval(lower, upper, 3),
                "; ",
                field("dp", fixed(dp, 2)),
            ],
            verdict,
            note: String::new(),
        }]
    }

    fn notes(&self, _effort: Effort, _rows: &[GridPoint], _cells: &[Cell]) -> Vec<String> {
        vec![
                "Simulation: the output-queued packet engine (`Queueing::Output`, dimension order, random ties), Poisson(λ = ρ/p) batches per node at every slot boundary, destinations by flipping each bit with probability p (packets to themselves count with delay 0). Each cell is one run of about 2,000,000 packets (2,000 to 200,000 slots), the first tenth discarded, every packet run to delivery; the 99% interval is over 20 batch means by generation slot.".into(),
                BATCH_MEANS_CAVEAT.into(),
                "The paper column is the bound interval: the continuous-time bounds of Props. 5.13 and 5.12 with T ≤ T̄ ≤ T + τ (§5.4, τ = 1; `fatnet_queueing::stamoulis::greedy::slotted_delay_bounds`); within bound if our interval meets it. For p = 1 the delay is exact (a discrete M/D/1 at the first arc, thesis (2.4)): match if it lies in our interval.".into(),
        ]
    }
}

/// The one-long-run tables' note on their intervals: batch means assume independent batches,
/// and near saturation they are not (measured against independent runs; the numbers are in
/// the rustdoc of `fatnet_queueing::stats::batch_means_half_width`).
const BATCH_MEANS_CAVEAT: &str = "The batch-means intervals assume independent batches, which near saturation they are not: against the spread of independent runs of the same protocol (2026-11-30), a nominal 99% interval covered about 95–96% of them at ρ = 0.9 on the 8- and 10-cube (slotted) and at ρ = 0.8 on the 10-cube (continuous), and all of them at ρ = 0.5 and on the slotted butterfly at ρ = 0.8 (`fatnet_queueing::stats::batch_means_half_width`; docs/bench/reproduce.md). Where a run is short in time (a large network near saturation), its verdict rests on an interval up to about 1.3 times too narrow.";

/// Master seed of Figure 5.3.
pub const FIG5_3_SEED: u64 = 53;

/// Stamoulis, Figure 5.3: the queueing delay `T̄ − dp` of greedy routing and of the adaptive
/// store-and-forward scheme of §5.5 against `d`, slotted, ρ = 0.9, p = 1/2.
///
/// The thesis prints no data for the figure (the OCR has its caption only); its text claims that
/// greedy's queueing delay grows with `d` while the adaptive scheme's stays "very small" and
/// roughly flat. Both schemes run on [`fatnet::online::slotted_cube`] with the same arrivals
/// for each `d` (seed `derive_seed(53, d)`); the adaptive scheme's open details (ties, arc
/// choice) are the notes' suggestions, documented there.
#[derive(Clone, Copy, Debug, Default)]
pub struct Figure5_3;

/// The load and flip probability of Figure 5.3.
const FIG_RHO: f64 = 0.9;
const FIG_P: f64 = 0.5;

/// Figure 5.3's packets per cell (full form): the budget of the greedy grids (`greedy`,
/// `butterfly_slotted`), so that a cell's precision, not the network's size, sets its cost.
///
/// With one horizon for every `d` (20,000 slots until 2026-11-30), a cell's packets grew as
/// `2^d`: 33 million at `d = 10`, where the 99% interval was ±0.6% of the queueing delay, and
/// `d = 9, 10` took 80% of the experiment. With the budget, `d ≤ 5` keep 20,000 slots (the
/// cap: their intervals are the widest), `d = 6` runs 17,361 slots and `d ≥ 7` the floor,
/// [`FIG5_3_MIN_SLOTS`] slots (18 million packets at `d = 10`). The regenerated cells were
/// compared with the 20,000-slot ones and with independent runs of 10,000, 20,000 and 40,000
/// slots (`docs/bench/reproduce.md`, 2026-11-30, session 20).
const FIG5_3_BUDGET: f64 = 2_000_000.0;

/// Figure 5.3's shortest run (full form), in slots, the first tenth discarded: 1,000 slots of
/// warm-up at ρ = 0.9 (five times `greedy_heavy_traffic`'s `2/(1 − ρ)²`) and 20 batches of
/// 450 slots. A floor of 4,000 slots was tried first: `d = 10`'s greedy cell came out 0.8%
/// (2.6 combined standard errors) below the 20,000-slot value, which 10,000 slots do not.
const FIG5_3_MIN_SLOTS: u64 = 10_000;

impl Experiment for Figure5_3 {
    fn paper(&self) -> Paper {
        Paper::Stamoulis
    }

    fn id(&self) -> &'static str {
        "fig5_3"
    }

    fn cost(&self) -> u32 {
        11
    }

    fn seed(&self) -> Option<u64> {
        Some(FIG5_3_SEED)
    }

    fn quick_differs(&self) -> bool {
        true
    }

    fn run(&self, effort: Effort) -> Result<Table, ReproError> {
        tabulate(self, effort)
    }

    fn figures(&self, table: &Table) -> Vec<Figure> {
        let points = |scheme: &str| -> Vec<(f64, f64)> {
            table
                .cells
                .iter()
                .filter(|c| c.key[1] == scheme)
                .map(|c| point(c.key[0].shown(), c.ours.shown()))
                .collect()
        };
        // The bounds on T̄ − dp at each plotted d (the library's slotted bounds, τ = 1); a
        // bound the library refuses is a missing (NaN) point, shown as such.
        let bounds: Vec<(f64, Option<greedy::DelayBounds>)> = points("greedy")
            .iter()
            .map(|&(d, _)| {
                let b = greedy::slotted_delay_bounds(
                    Network::Hypercube,
                    d as u32,
                    FIG_RHO / FIG_P,
                    FIG_P,
                    1.0,
                )
                .ok();
                (d, b)
            })
            .collect();
        let line = |f: &dyn Fn(&greedy::DelayBounds) -> f64| -> Vec<(f64, f64)> {
            bounds
                .iter()
                .map(|(d, b)| point(Some(*d), b.as_ref().map(|b| f(b) - d * FIG_P)))
                .collect()
        };
        vec![Figure {
            id: "fig5_3",
            title: "Stamoulis, Fig. 5.3: queueing delay against d, ρ = 0.9, p = 1/2 (slotted)"
                .into(),
            x_label: "d".into(),
            y_label: "T̄ − dp (slots)".into(),
            series: vec![
                Series {
                    name: "greedy".into(),
                    points: points("greedy"),
                },
                Series {
                    name: "adaptive (§5.5)".into(),
                    points: points("adaptive"),
                },
                Series {
                    name: "greedy lower, Prop. 5.13".into(),
                    points: line(&|b| b.lower),
                },
                Series {
                    name: "greedy lower claimed, (5.18)".into(),
                    points: line(&|b| b.claimed_lower.unwrap_or(f64::NAN)),
                },
                Series {
                    name: "greedy upper, Prop. 5.12 + τ".into(),
                    points: line(&|b| b.upper),
                },
            ],
            log_x: false,
            ..Figure::default()
        }]
    }
}

/// One point of Figure 5.3: a scheme's queueing delay at one `d`, with greedy's bounds.
#[derive(Clone, Copy, Debug)]
pub struct QueueingDelay {
    d: u32,
    scheme: fatnet::online::slotted_cube::SlottedScheme,
    /// `T̄ − dp` with its 99% interval over 20 batch means.
    queueing: Estimate,
    /// `T̄`.
    delay: f64,
    measured: u64,
    max_node_queue: u64,
    horizon: u64,
    /// Greedy's bounds on `T̄ − dp`: Prop. 5.13, (5.18) as claimed, Prop. 5.12 + τ.
    lower: f64,
    claimed: f64,
    upper: f64,
    /// Greedy's `T̄ − dp` at the same `d`.
    greedy: f64,
}

impl QueueingDelay {
    fn adaptive_below_greedy(&self) -> bool {
        self.scheme == fatnet::online::slotted_cube::SlottedScheme::Adaptive
            && self.queueing.mean < self.greedy
    }
}

impl Tabular for Figure5_3 {
    type Row = QueueingDelay;

    fn frame(&self) -> Frame {
        Frame {
            title: "Stamoulis, Figure 5.3: queueing delay T̄ − dp of greedy and adaptive routing against d (slotted, ρ = 0.9, p = 1/2)".into(),
            key_columns: vec!["d".into(), "scheme".into()],
            detail_column: "99% CI and details".into(),
        }
    }

    fn compute(&self, effort: Effort) -> Result<Vec<QueueingDelay>, ReproError> {
        use fatnet::online::slotted_cube::{SlottedConfig, SlottedScheme, run};
        // A cell's horizon: about `budget` packets, as in the greedy grids, between `min` and
        // `max` slots (the quick form: 4,000 slots for every d up to 7).
        let (budget, min, max, max_d) = match effort {
            Effort::Full => (FIG5_3_BUDGET, FIG5_3_MIN_SLOTS, 20_000u64, 10u32),
            Effort::Quick => (0.0, 4_000, 4_000, 7),
        };
        let lambda = FIG_RHO / FIG_P;
        let horizon_of =
            |d: u32| ((budget / (lambda * f64::from(1u32 << d))) as u64).clamp(min, max);
        let mut grid = Vec::new();
        for d in 2..=max_d {
            for scheme in [SlottedScheme::Greedy, SlottedScheme::Adaptive] {
                grid.push((d, scheme));
            }
        }
        let reports = try_run_trials(FIG5_3_SEED, grid.len() as u64, |i, _| {
            let (d, scheme) = grid[i as usize];
            let horizon = horizon_of(d);
            run(&SlottedConfig {
                network: fatnet::online::greedy_cube::GreedyNetwork::Hypercube,
                scheme,
                d,
                lambda,
                p: FIG_P,
                protocol: RunProtocol::slots(horizon / 10, horizon, 20),
                confidence: 0.99,
                seed: crate::derive_seed(FIG5_3_SEED, u64::from(d)),
            })
            .map_err(|e| EXPERIMENT.error_in(format!("d = {d}, {scheme:?}"), e))
        })
        .map_err(|e| EXPERIMENT.error(e))??;
        grid.iter()
            .zip(&reports)
            .map(|(&(d, scheme), r)| {
                let dp = f64::from(d) * FIG_P;
                let b = greedy::slotted_delay_bounds(Network::Hypercube, d, lambda, FIG_P, 1.0)
                    .map_err(|e| EXPERIMENT.error(e))?;
                let greedy = reports
                    .iter()
                    .zip(&grid)
                    .find(|(_, g)| g.0 == d && g.1 == SlottedScheme::Greedy)
                    .map(|(g, _)| g.delay_mean - dp)
                    .unwrap_or(f64::NAN);
                Ok(QueueingDelay {
                    d,
                    scheme,
                    queueing: Estimate::new(r.delay_mean - dp, r.delay_half_width, 20, 99, 3),
                    delay: r.delay_mean,
                    measured: r.measured,
                    max_node_queue: r.max_node_queue,
                    horizon: horizon_of(d),
                    lower: b.lower - dp,
                    claimed: b.claimed_lower.unwrap_or(f64::NAN) - dp,
                    upper: b.upper - dp,
                    greedy,
                })
            })
            .collect()
    }

    fn cells(&self, p: &QueueingDelay) -> Vec<Cell> {
        use fatnet::online::slotted_cube::SlottedScheme;
        let (q, half) = (p.queueing.mean, p.queueing.half_width);
        let (name, paper, verdict, note) = match p.scheme {
            SlottedScheme::Greedy => (
                "greedy",
                Some(interval(p.lower, p.upper, 3)),
                Verdict::bound_measured(&p.queueing, p.lower, p.upper),
                if q + half < p.claimed {
                    format!("below the claimed bound (5.18), {:.3}", p.claimed)
                } else {
                    String::new()
                },
            ),
            SlottedScheme::Adaptive => (
                "adaptive",
                None,
                Verdict::NotInPaper,
                format!("greedy − adaptive = {:.3}", p.greedy - q),
            ),
        };
        vec![Cell {
            key: vec![p.d.into(), name.into()],
            paper,
            ours: p.queueing.into(),
            detail: detail![
                ..p.queueing.interval(),
                " (20 batch means, ",
                p.measured,
                " packets, ",
                p.horizon,
                " slots); ",
                field("T̄", fixed(p.delay, 3)),
                "; claimed lower (5.18) ",
                fixed(p.claimed, 3),
                "; largest node queue ",
                p.max_node_queue,
            ],
            verdict,
            note,
        }]
    }

    fn notes(&self, _effort: Effort, rows: &[QueueingDelay], _cells: &[Cell]) -> Vec<String> {
        let adaptive_below = rows.iter().filter(|p| p.adaptive_below_greedy()).count();
        let dims = rows.len() / 2;
        vec![
            format!("The thesis' claim, checked: the adaptive scheme's queueing delay is below greedy's at {adaptive_below} of {dims} dimensions."),
            "Simulation: `fatnet_online::slotted_cube`, τ = 1, Poisson(1.8) batches per node per slot, destinations flip each bit with probability 1/2 (self-addressed packets count with delay 0); greedy: canonical paths, FIFO arcs, random ties; adaptive (§5.5): closest-to-destination first, then FIFO, then random; each packet takes a uniformly random free preferred arc or is stored. Both schemes see the same arrivals for a given d. One run per cell of 2,000,000 / (1.8 · 2^d) slots (about 2 million packets), kept within 10,000 to 20,000 slots (the quick form: 4,000 slots for every d), the first tenth of the slots discarded, 99% intervals over 20 batch means.".into(),
            BATCH_MEANS_CAVEAT.into(),
            "The paper column gives greedy's bound interval for T̄ − dp: pρ/(2(1 − ρ)) (Prop. 5.13) to ρdp/(1 − ρ) + τ (Prop. 5.12 with T̄ ≤ T + τ, (5.26)). The thesis prints no data for Figure 5.3, so the adaptive cells have no paper value; the note column flags greedy cells below the sharper bound (5.18), which the thesis states without proof.".into(),
            "Figure 5.3 (`fig5_3/fig5_3.svg`) plots the table's values with the bounds on the same axes.".into(),
        ]
    }
}

/// Master seed of the continuous-time grid.
pub const CONTINUOUS_SEED: u64 = 55;

/// Stamoulis, chapter 5 in continuous time: greedy routing on the hypercube and the
/// butterfly under Poisson traffic, simulated exactly ([`fatnet::online::greedy_cube`]), for a
/// (network, d, ρ, p) grid, each mean beside the proved bounds and the claimed one.
#[derive(Clone, Copy, Debug, Default)]
pub struct ContinuousGrid;

impl Experiment for ContinuousGrid {
    fn paper(&self) -> Paper {
        Paper::Stamoulis
    }

    fn id(&self) -> &'static str {
        "greedy_continuous"
    }

    fn cost(&self) -> u32 {
        15
    }

    fn seed(&self) -> Option<u64> {
        Some(CONTINUOUS_SEED)
    }

    fn quick_differs(&self) -> bool {
        true
    }

    fn run(&self, effort: Effort) -> Result<Table, ReproError> {
        tabulate(self, effort)
    }
}

/// One computed row of the continuous-time grid: a run and the bounds at its parameters.
#[derive(Debug)]
pub struct ContinuousPoint {
    network: fatnet::online::greedy_cube::GreedyNetwork,
    d: u32,
    rho: f64,
    p: f64,
    report: fatnet::online::greedy_cube::GreedyReport,
    bounds: greedy::DelayBounds,
}

impl ContinuousPoint {
    fn estimate(&self) -> Estimate {
        let r = &self.report;
        Estimate::new(
            r.delay_mean,
            r.delay_half_width,
            u64::from(r.config.protocol.batches),
            99,
            3,
        )
    }
}

impl Tabular for ContinuousGrid {
    type Row = ContinuousPoint;

    fn frame(&self) -> Frame {
        Frame {
            title: "Stamoulis, chapter 5: mean delay of greedy routing in continuous time on the d-cube and the d-dimensional butterfly, beside the proved bounds".into(),
            key_columns: vec!["network".into(), "d".into(), "ρ".into(), "p".into()],
            detail_column: "99% CI, bounds' sources, the claimed lower bound".into(),
        }
    }

    fn compute(&self, effort: Effort) -> Result<Vec<ContinuousPoint>, ReproError> {
        use fatnet::online::greedy_cube::{GreedyConfig, GreedyNetwork, steady_state};
        let (budget, dims): (f64, &[u32]) = match effort {
            Effort::Full => (3_000_000.0, &[3, 6, 10]),
            Effort::Quick => (200_000.0, &[3, 6]),
        };
        let mut grid = Vec::new();
        for network in [GreedyNetwork::Hypercube, GreedyNetwork::Butterfly] {
            for &d in dims {
                for rho in [0.2f64, 0.5, 0.8] {
                    for p in [0.25f64, 0.5, 1.0] {
                        grid.push((network, d, rho, p));
                    }
                }
            }
        }
        let runs = try_run_trials(CONTINUOUS_SEED, grid.len() as u64, |i, seed| {
            let (network, d, rho, p) = grid[i as usize];
            let lambda = rho
                / if network == GreedyNetwork::Hypercube {
                    p
                } else {
                    p.max(1.0 - p)
                };
            let per_unit = lambda * f64::from(1u32 << d);
            let horizon = (budget / per_unit).clamp(2_000.0, 400_000.0).round();
            steady_state(&GreedyConfig {
                network,
                d,
                lambda,
                p,
                protocol: RunProtocol::new(horizon / 10.0, horizon, 20),
                confidence: 0.99,
                seed,
                window: None,
            })
            .map_err(|e| EXPERIMENT.error_in(format!("{network:?} d = {d}, ρ = {rho}, p = {p}"), e))
        })
        .map_err(|e| EXPERIMENT.error(e))??;
        grid.into_iter()
            .zip(runs)
            .map(|((network, d, rho, p), report)| {
                let net = match network {
                    GreedyNetwork::Hypercube => Network::Hypercube,
                    GreedyNetwork::Butterfly => Network::Butterfly,
                };
                let bounds = greedy::delay_bounds(net, d, report.config.lambda, p)
                    .map_err(|e| EXPERIMENT.error(e))?;
                Ok(ContinuousPoint {
                    network,
                    d,
                    rho,
                    p,
                    report,
                    bounds,
                })
            })
            .collect()
    }

    fn cells(&self, point: &ContinuousPoint) -> Vec<Cell> {
        use fatnet::online::greedy_cube::GreedyNetwork;
        let ContinuousPoint {
            network,
            d,
            rho,
            p,
            report: ref r,
            bounds: ref b,
        } = *point;
        let key = vec![
            match network {
                GreedyNetwork::Hypercube => "hypercube".into(),
                GreedyNetwork::Butterfly => "butterfly".into(),
            },
            d.into(),
            fixed(rho, 1),
            fixed(p, 2),
        ];
        vec![bound_cell(
            key,
            point.estimate(),
            b,
            detail![
                r.measured,
                " packets, horizon ",
                float(r.config.protocol.horizon)
            ],
        )]
    }

    fn notes(&self, _effort: Effort, points: &[ContinuousPoint], _cells: &[Cell]) -> Vec<String> {
        let claimed_fails = points
            .iter()
            .filter(|p| below_claimed(&p.estimate(), &p.bounds))
            .count();
        vec![
                "Simulation: `fatnet_online::greedy_cube`, exact in continuous time (each arc's departures D_k = max(D_(k−1), t_k) + 1, level by level); Poisson generation at rate λ per node (butterfly: per level-1 node), destinations flipping each bit with probability p; λ = ρ/p on the cube, ρ/max{p, 1 − p} on the butterfly. One run per cell of about 3,000,000 packets (horizon 2,000 to 400,000), the first tenth discarded; 99% intervals over 20 batch means.".into(),
                BATCH_MEANS_CAVEAT.into(),
                "The paper column is the proved bound interval (cube: Props. 5.13 and 5.12; butterfly: Props. 5.14 and 5.17); within bound if our interval meets it. Where paths are disjoint (p = 1; on the butterfly also p = 0) the lower bound is the exact delay d + ρ/(2(1 − ρ)): match if it lies in our interval.".into(),
                format!("The claimed bounds ((5.18) on the cube; Prop. 5.18 in continuous time on the butterfly, which the thesis transfers from slotted time by an inequality in the wrong direction) are checked too: our interval lies below the claimed bound in {claimed_fails} cells (note column)."),
        ]
    }
}

/// Whether our interval lies entirely below the bound the thesis claims without proof.
fn below_claimed(estimate: &Estimate, b: &greedy::DelayBounds) -> bool {
    b.claimed_lower
        .is_some_and(|c| estimate.mean + estimate.half_width < c)
}

/// A cell of a bounds table: exact where the thesis gives the value (match if it lies in our
/// 99% interval), else the proved interval (within bound if ours meets it); the note flags an
/// interval entirely below the claimed bound ([`below_claimed`]).
fn bound_cell(key: Vec<Value>, estimate: Estimate, b: &greedy::DelayBounds, run: Detail) -> Cell {
    let (paper, verdict) = match b.exact {
        Some(x) => (
            format!("{x:.3} (exact)").into(),
            judge(Reference::Exact(x), &estimate, 0.0).verdict,
        ),
        None => (
            interval(b.lower, b.upper, 3),
            Verdict::bound_measured(&estimate, b.lower, b.upper),
        ),
    };
    let claimed_fail = below_claimed(&estimate, b);
    Cell {
        key,
        paper: Some(paper),
        ours: estimate.into(),
        detail: detail![
            ..estimate.interval(),
            " (",
            ..run,
            "); ",
            b.lower_source,
            " ≤ T ≤ ",
            b.upper_source,
            "; claimed ",
            b.claimed_lower.map_or_else(|| "—".into(), |c| fixed(c, 3)),
        ],
        verdict,
        note: match b.claimed_lower {
            Some(c) if claimed_fail => format!("below the claimed bound {c:.3}"),
            _ => String::new(),
        },
    }
}

/// Master seed of the slotted butterfly grid.
pub const BUTTERFLY_SEED: u64 = 56;

/// Stamoulis §5.6 in slotted time: greedy routing on the d-dimensional butterfly
/// ([`fatnet::online::slotted_cube`], FIFO arcs with fair random ties) against the bounds,
/// where the lower bound is the larger of Prop. 5.14 and Prop. 5.18's proved slotted form
/// (5.33), `T̄ ≥ d + (1/2)(d − 1)λp(1 − p)`, and the upper bound Prop. 5.17 + τ.
#[derive(Clone, Copy, Debug, Default)]
pub struct ButterflySlotted;

impl Experiment for ButterflySlotted {
    fn paper(&self) -> Paper {
        Paper::Stamoulis
    }

    fn id(&self) -> &'static str {
        "butterfly_slotted"
    }

    fn cost(&self) -> u32 {
        11
    }

    fn seed(&self) -> Option<u64> {
        Some(BUTTERFLY_SEED)
    }

    fn quick_differs(&self) -> bool {
        true
    }

    fn run(&self, effort: Effort) -> Result<Table, ReproError> {
        tabulate(self, effort)
    }
}

/// One computed row of the slotted butterfly grid: a run and the bounds at its parameters.
#[derive(Debug)]
pub struct SlottedPoint {
    d: u32,
    rho: f64,
    p: f64,
    report: fatnet::online::slotted_cube::SlottedReport,
    bounds: greedy::DelayBounds,
}

impl Tabular for ButterflySlotted {
    type Row = SlottedPoint;

    fn frame(&self) -> Frame {
        Frame {
            title: "Stamoulis §5.6: mean delay of slotted greedy routing on the d-dimensional butterfly, beside the proved bounds (Props. 5.14, 5.17 and the slotted Prop. 5.18)".into(),
            key_columns: vec!["d".into(), "ρ".into(), "p".into()],
            detail_column: "99% CI and the bounds' sources".into(),
        }
    }

    fn compute(&self, effort: Effort) -> Result<Vec<SlottedPoint>, ReproError> {
        use fatnet::online::greedy_cube::GreedyNetwork;
        use fatnet::online::slotted_cube::{SlottedConfig, SlottedScheme, run};
        let (budget, dims): (f64, &[u32]) = match effort {
            Effort::Full => (2_000_000.0, &[3, 6, 10]),
            Effort::Quick => (150_000.0, &[3, 6]),
        };
        let mut grid = Vec::new();
        for &d in dims {
            for rho in [0.2f64, 0.5, 0.8] {
                for p in [0.25f64, 0.5, 1.0] {
                    grid.push((d, rho, p));
                }
            }
        }
        let runs = try_run_trials(BUTTERFLY_SEED, grid.len() as u64, |i, seed| {
            let (d, rho, p) = grid[i as usize];
            let lambda = rho / p.max(1.0 - p);
            let horizon = ((budget / (lambda * f64::from(1u32 << d))) as u64).clamp(2_000, 400_000);
            run(&SlottedConfig {
                network: GreedyNetwork::Butterfly,
                scheme: SlottedScheme::Greedy,
                d,
                lambda,
                p,
                protocol: RunProtocol::slots(horizon / 10, horizon, 20),
                confidence: 0.99,
                seed,
            })
            .map_err(|e| EXPERIMENT.error_in(format!("butterfly d = {d}, ρ = {rho}, p = {p}"), e))
        })
        .map_err(|e| EXPERIMENT.error(e))??;
        grid.into_iter()
            .zip(runs)
            .map(|((d, rho, p), report)| {
                let bounds = greedy::slotted_delay_bounds(
                    Network::Butterfly,
                    d,
                    report.config.lambda,
                    p,
                    1.0,
                )
                .map_err(|e| EXPERIMENT.error(e))?;
                Ok(SlottedPoint {
                    d,
                    rho,
                    p,
                    report,
                    bounds,
                })
            })
            .collect()
    }

    fn cells(&self, point: &SlottedPoint) -> Vec<Cell> {
        let SlottedPoint {
            d,
            rho,
            p,
            report: ref r,
            bounds: ref b,
        } = *point;
        vec![bound_cell(
            vec![d.into(), fixed(rho, 1), fixed(p, 2)],
            Estimate::new(
                r.delay_mean,
                r.delay_half_width,
                u64::from(r.config.protocol.batches),
                99,
                3,
            ),
            b,
            detail![
                r.measured,
                " packets, ",
                r.config.protocol.horizon as u64,
                " slots"
            ],
        )]
    }

    fn notes(&self, _effort: Effort, points: &[SlottedPoint], _cells: &[Cell]) -> Vec<String> {
        let raised = points
            .iter()
            .filter(|p| p.bounds.lower_source.contains("5.18"))
            .count();
        vec![
                "Simulation: `fatnet_online::slotted_cube` on the butterfly: Poisson(λ) batches per level-1 node at every slot boundary (the continuous arrivals advanced to the slot start), destinations flipping each bit with probability p, λ = ρ/max{p, 1 − p}; each arc sends one packet per slot, FIFO by arrival at the node with uniformly random ties. One run per cell of about 2,000,000 packets (2,000 to 400,000 slots), the first tenth discarded, 99% intervals over 20 batch means.".into(),
                BATCH_MEANS_CAVEAT.into(),
                format!("The paper column is the bound interval for T̄: the larger of Prop. 5.14 and Prop. 5.18's slotted form (5.33), which the thesis proves in slotted time, below, and Prop. 5.17 + τ (5.26) above; (5.33) is the larger lower bound in {raised} of {} cells. For p = 1 (disjoint paths) the delay is the discrete M/D/1 value d + ρ/(2(1 − ρ)): match if it lies in our interval.", points.len()),
        ]
    }
}
