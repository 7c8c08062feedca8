//! Stamoulis, Figure 7.5: the first-order term of the mean broadcast delay `T` of the
//! **non-idling indirect** scheme against `d`, simulated, and the thesis' claim about it
//! (§7.4): "for fixed ρ, the *first-order* term in the delay T for this scheme *increases*
//! with d".
//!
//! **What is plotted.** The thesis splits `T` into a zero-order term, its light-traffic limit,
//! and the rest: for the direct schemes it plots `T − d − 1/2` against d at fixed ρ
//! (Figs. 6.1–6.2, "recall that d + 1/2 is the value for the zero-order term in T"), and calls
//! `T − d − 1/2` "the first-order term" (§6.4). The non-idling indirect scheme's zero-order
//! term is its light-traffic limit `3d/2` (Appendix 7.B: the mean eccentricity `(3d − 1)/2`
//! of a node in the undirected tree plus the synchronisation time 1/2), so its first-order
//! term is `T − 3d/2`, plotted here against d at fixed ρ. The thesis states neither the loads
//! nor the dimensions of Fig. 7.5, and the OCR copy has its caption only, so no value is
//! printed; we use the loads of Figs. 6.1–6.2 (ρ = 0.10, 0.15, 0.20) and `d = 2 … 10`, the
//! dimensions of our Fig. 7.7 runs.
//!
//! **The claim's verdict, from the trend over d with its interval.** Per load, the
//! least-squares slope of `T − 3d/2` against d with its 99% interval (the slope is a weighted
//! sum of the independent per-d means, so its variance is the weighted sum of theirs):
//! [`Verdict::positive`] — match if the whole interval is above 0, MISMATCH if below, else
//! not significant. The detail adds how many of the steps `d → d + 1` go up.
//!
//! **The scheme** is the notes' reading of the thesis' underspecified §7.4
//! ([`TreeFamily::JohnssonHoFlood`]): a packet floods the undirected Johnsson–Ho tree of a
//! uniformly drawn tag from its origin, FIFO arcs, no Rules C–E. Each point is the mean over
//! independent runs (the first tenth of each run's slots discarded), with a 99% Student-t
//! interval over the runs.

use fatnet::online::RunProtocol;
use fatnet::online::direct_broadcast::{DirectConfig, DirectScheme, TreeFamily};
use fatnet::online::packet::Outcome;
use fatnet::queueing::stamoulis::broadcast;

use crate::cell::{Estimate, field, fixed};
use crate::figure::point;
use crate::greenberg_oh::Stat;
use crate::runner::{student_t_995, try_run_trials};
use crate::{
    Cell, Effort, ErrorBar, Experiment, ExperimentId, Figure, Frame, Paper, ReproError, Series,
    Table, Tabular, Value, Verdict, detail, tabulate,
};

/// Master seed of Figure 7.5.
pub const SEED: u64 = 75;

/// The loads (those of Figs. 6.1–6.2 and Table 6.2; the thesis does not state Fig. 7.5's).
const LOADS: [f64; 3] = [0.10, 0.15, 0.20];

/// The smallest dimension (the Johnsson–Ho trees need `d ≥ 2`).
const MIN_D: u32 = 2;

/// The experiment, as its errors name it.
const EXPERIMENT: ExperimentId = ExperimentId::new(Paper::Stamoulis, "fig7_5");

/// The key of a point's cells.
const TERM: &str = "T − 3d/2";

/// The key of the claim cells.
const CLAIM: &str = "claim (iii): grows with d";

/// Batches per run (batch means of the packets in generation order).
const BATCHES: u32 = 10;

/// Runs per point, slots of generation per run and the largest d.
fn plan(effort: Effort) -> (u64, u64, u32) {
    match effort {
        Effort::Full => (2, 1_100, 10),
        Effort::Quick => (1, 660, 7),
    }
}

/// The zero-order term `3d/2` (Appendix 7.B).
fn zero_order(d: u32) -> f64 {
    broadcast::nonidling_indirect_light_traffic_delay(d).unwrap_or(f64::NAN)
}

/// The first-order term of the Rules A–E scheme at (d, ρ) by Prop. 7.4: `T − (3d + 1) =
/// 3ρ/(2(ρ* − ρ))`, about `(9/4)ρ` whatever d (the thesis: "Θ(1)ρ").
fn rules_a_e_first_order(d: u32, rho: f64) -> f64 {
    broadcast::prop_7_4_delay(d, rho).map_or(f64::NAN, |t| t - 3.0 * f64::from(d) - 1.0)
}

/// The runs of one point (ρ, d).
#[derive(Clone, Copy, Debug)]
pub struct Point {
    rho: f64,
    d: u32,
    /// The batch means of the excess delay (delay less contention-free delay) of every run.
    excess: Stat,
    /// The batch means of the delay `T` of every run.
    delay: Stat,
    packets: u64,
    runs: u64,
    horizon: u64,
    /// The mean height of the scheme's trees over every origin and tag.
    height: f64,
}

/// The mean of `s` with its 99% Student-t interval, 3 decimals.
fn estimate(s: &Stat, shift: f64) -> Estimate {
    let half =
        student_t_995(s.n.saturating_sub(1)).unwrap_or(f64::NAN) * s.sd / (s.n as f64).sqrt();
    Estimate::new(s.mean - shift, half, s.n, 99, 3)
}

impl Point {
    /// The first-order term `T − 3d/2`, estimated by the mean excess delay (same
    /// expectation, since the contention-free delay averages `3d/2`), with its 99% interval
    /// over the batch means.
    fn first_order(&self) -> Estimate {
        estimate(&self.excess, 0.0)
    }

    /// `T − 3d/2` taken directly, with its 99% interval over the batch means.
    fn direct(&self) -> Estimate {
        estimate(&self.delay, zero_order(self.d))
    }
}

/// The least-squares slope of the first-order term against d over `points` (one load), with
/// the half-width of its 99% interval: the slope is `Σ wᵢ yᵢ` with `wᵢ = (dᵢ − d̄)/Σ(d − d̄)²`
/// over independent means `yᵢ`, so its standard error is `√(Σ wᵢ² sᵢ²/nᵢ)`; the quantile is
/// Student's t with the runs per point less one degrees of freedom (conservative).
fn slope(points: &[&Point]) -> (f64, f64) {
    let pairs: Vec<(f64, &Stat)> = points.iter().map(|p| (f64::from(p.d), &p.excess)).collect();
    let e = Stat::slope(&pairs, 4);
    (e.mean, e.half_width)
}

/// Stamoulis Figure 7.5: the first-order term `T − 3d/2` of the non-idling indirect scheme
/// against d at ρ = 0.10, 0.15, 0.20, and claim (iii) that it grows with d.
#[derive(Clone, Copy, Debug, Default)]
pub struct Figure7_5;

impl Experiment for Figure7_5 {
    fn paper(&self) -> Paper {
        Paper::Stamoulis
    }

    fn id(&self) -> &'static str {
        "fig7_5"
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

    fn figures(&self, table: &Table) -> Vec<Figure> {
        let mut series = Vec::new();
        let mut error_bars = Vec::new();
        let at = |c: &Cell, rho: f64| c.key[0].shown() == Some(rho) && c.key[2] == TERM;
        for &rho in &LOADS {
            let cells: Vec<&Cell> = table.cells.iter().filter(|c| at(c, rho)).collect();
            error_bars.extend(cells.iter().filter_map(|c| {
                let e = c.ours.estimate()?;
                Some(ErrorBar {
                    series: series.len(),
                    x: c.key[1].shown()?,
                    low: e.low(),
                    high: e.high(),
                })
            }));
            series.push(Series {
                name: format!("non-idling indirect (ours), ρ = {rho:.2}"),
                points: cells
                    .iter()
                    .map(|c| point(c.key[1].shown(), c.ours.shown()))
                    .collect(),
            });
        }
        for &rho in &LOADS {
            series.push(Series {
                name: format!("Rules A–E, Prop. 7.4: T − (3d + 1), ρ = {rho:.2}"),
                points: table
                    .cells
                    .iter()
                    .filter(|c| at(c, rho))
                    .filter_map(|c| {
                        let d = c.key[1].shown()?;
                        Some((d, rules_a_e_first_order(d as u32, rho)))
                    })
                    .collect(),
            });
        }
        vec![Figure {
            id: "fig7_5",
            title: "Stamoulis, Fig. 7.5: non-idling indirect scheme, first-order term T − 3d/2 against d".into(),
            x_label: "d".into(),
            y_label: "T − 3d/2 (slots)".into(),
            series,
            log_x: false,
            error_bars,
            ..Figure::default()
        }]
    }
}

impl Tabular for Figure7_5 {
    type Row = Point;

    fn frame(&self) -> Frame {
        Frame {
            title: "Stamoulis, Figure 7.5: first-order term T − 3d/2 of the mean broadcast delay of the non-idling indirect scheme against d, and claim (iii)".into(),
            key_columns: vec!["ρ".into(), "d".into(), "quantity".into()],
            detail_column: "99% CI over the batch means of the runs; T and T − 3d/2 taken directly; mean tree height; (T − 3d/2)/ρ; Prop. 7.4's first-order term of the Rules A–E scheme".into(),
        }
    }

    fn compute(&self, effort: Effort) -> Result<Vec<Point>, ReproError> {
        let (runs, horizon, max_d) = plan(effort);
        let dims: Vec<u32> = (MIN_D..=max_d).collect();
        let schemes: Vec<DirectScheme> = dims
            .iter()
            .map(|&d| DirectScheme::with_trees(d, TreeFamily::JohnssonHoFlood))
            .collect::<Result<_, _>>()
            .map_err(|e| EXPERIMENT.error(e))?;
        // Appendix 7.B: the mean eccentricity of a node in an undirected Johnsson–Ho tree is
        // (3d − 1)/2, which makes the mean contention-free delay 3d/2.
        let heights: Vec<f64> = schemes
            .iter()
            .map(|s| {
                let (d, n) = (s.d(), 1u32 << s.d());
                let total: u64 = (0..n)
                    .flat_map(|origin| (0..d).map(move |tag| (origin, tag)))
                    .map(|(origin, tag)| s.tree(origin, tag).map_or(0, |t| u64::from(t.height())))
                    .sum();
                total as f64 / f64::from(n * d)
            })
            .collect();
        for (&d, &h) in dims.iter().zip(&heights) {
            if (h - (1.5 * f64::from(d) - 0.5)).abs() > 1e-9 {
                return Err(EXPERIMENT.failed(format!(
                    "d = {d}: mean tree height {h}, not (3d − 1)/2 (Appendix 7.B)"
                )));
            }
        }
        let grid: Vec<(f64, usize)> = LOADS
            .iter()
            .flat_map(|&rho| (0..dims.len()).map(move |k| (rho, k)))
            .collect();
        // Trial i is run i % runs of grid point i / runs, seeded from (SEED, i).
        let results = try_run_trials(SEED, grid.len() as u64 * runs, |i, seed| {
            let (rho, k) = grid[(i / runs) as usize];
            let r = schemes[k]
                .simulate(&DirectConfig {
                    rho,
                    protocol: RunProtocol::slots(horizon / 10, horizon, BATCHES),
                    seed,
                })
                .map_err(|e| EXPERIMENT.error(e))?;
            if !matches!(r.outcome, Outcome::Delivered) {
                return Err(
                    EXPERIMENT.failed(format!("d = {}, ρ = {rho}: {:?}", dims[k], r.outcome))
                );
            }
            Ok(r)
        })
        .map_err(|e| EXPERIMENT.error(e))??;
        Ok(grid
            .iter()
            .zip(results.chunks(runs as usize))
            .map(|(&(rho, k), rs)| {
                let all = |f: fn(&fatnet::online::direct_broadcast::DirectReport) -> &[f64]| {
                    Stat::of(
                        &rs.iter()
                            .flat_map(|r| f(r).iter().copied())
                            .collect::<Vec<_>>(),
                    )
                };
                Point {
                    rho,
                    d: dims[k],
                    excess: all(|r| &r.excess_batch_means),
                    delay: all(|r| &r.batch_means),
                    packets: rs.iter().map(|r| r.measured).sum(),
                    runs,
                    horizon,
                    height: heights[k],
                }
            })
            .collect())
    }

    fn cells(&self, p: &Point) -> Vec<Cell> {
        let e = p.first_order();
        vec![Cell {
            key: vec![fixed(p.rho, 2), p.d.into(), TERM.into()],
            paper: None,
            ours: e.into(),
            detail: detail![
                ..e.interval(),
                " (",
                p.excess.n,
                " batches of ",
                p.runs,
                " runs of ",
                p.horizon,
                " slots, ",
                p.packets,
                " packets); ",
                field("T", fixed(p.delay.mean, 3)),
                ", T − 3d/2 taken directly ",
                fixed(p.direct().mean, 3),
                " ",
                ..p.direct().interval(),
                "; ",
                field("mean tree height", fixed(p.height, 1)),
                "; ",
                field("(T − 3d/2)/ρ", fixed(e.mean / p.rho, 2)),
                "; ",
                field(
                    "Rules A–E first-order term (Prop. 7.4)",
                    fixed(rules_a_e_first_order(p.d, p.rho), 3)
                ),
            ],
            verdict: Verdict::NotInPaper,
            note: "plotted in the thesis, values not printed (caption only)".into(),
        }]
    }

    /// Claim (iii), once per load: the first-order term grows with d.
    fn summary_cells(&self, _effort: Effort, points: &[Point]) -> Result<Vec<Cell>, ReproError> {
        LOADS
            .iter()
            .map(|&rho| {
                let pts: Vec<&Point> = points.iter().filter(|p| p.rho == rho).collect();
                let (first, last) = match (pts.first(), pts.last()) {
                    (Some(f), Some(l)) if pts.len() >= 2 => (f.d, l.d),
                    _ => return Err(EXPERIMENT.failed(format!("fewer than 2 points at ρ = {rho}"))),
                };
                let (s, half) = slope(&pts);
                let (lo, hi) = (s - half, s + half);
                let ups = pts
                    .windows(2)
                    .filter(|w| w[1].first_order().mean > w[0].first_order().mean)
                    .count();
                let separated = pts
                    .windows(2)
                    .filter(|w| w[1].first_order().low() > w[0].first_order().high())
                    .count();
                Ok(Cell {
                    key: vec![
                        fixed(rho, 2),
                        crate::cell::range(first, last),
                        CLAIM.into(),
                    ],
                    paper: Some("increases with d (for fixed ρ)".into()),
                    ours: Value::Phrase(detail![
                        "slope ",
                        fixed(s, 4),
                        " per dimension, 99% CI ",
                        crate::cell::interval(lo, hi, 4),
                    ]),
                    detail: detail![
                        ups,
                        " of ",
                        pts.len() - 1,
                        " steps d → d + 1 up (",
                        separated,
                        " with disjoint 99% intervals); from ",
                        fixed(pts[0].first_order().mean, 3),
                        " at d = ",
                        first,
                        " to ",
                        fixed(pts[pts.len() - 1].first_order().mean, 3),
                        " at d = ",
                        last,
                    ],
                    verdict: Verdict::positive(&crate::cell::Estimate::new(
                        s,
                        (hi - lo) / 2.0,
                        pts.len() as u64,
                        99,
                        4,
                    )),
                    note: "the one rule for a claim (`Verdict::positive`): match if the slope's 99% interval lies above 0, MISMATCH if below, else not significant".into(),
                })
            })
            .collect()
    }

    fn notes(&self, effort: Effort, points: &[Point], cells: &[Cell]) -> Vec<String> {
        let (runs, horizon, max_d) = plan(effort);
        let claims: Vec<&Cell> = cells.iter().filter(|c| c.key[2] == CLAIM).collect();
        let matched = claims
            .iter()
            .filter(|c| c.verdict == Verdict::Match)
            .count();
        let per_rho: Vec<String> = LOADS
            .iter()
            .map(|&rho| {
                let ratios: Vec<f64> = points
                    .iter()
                    .filter(|p| p.rho == rho)
                    .map(|p| p.first_order().mean / rho)
                    .collect();
                let lo = ratios.iter().copied().fold(f64::INFINITY, f64::min);
                let hi = ratios.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                format!("{lo:.2}–{hi:.2} at ρ = {rho:.2}")
            })
            .collect();
        vec![
            format!("The thesis' claim (iii), §7.4: \"Not surprisingly, it appeared that, for fixed ρ, the first-order term in the delay T for this scheme increases with d; see Figure 7.5. This is due to the fact that packets routed along different trees interfere in the non-idling version of the scheme.\" Verdict: the claim holds (match) at {matched} of {} loads.", claims.len()),
            format!("What is plotted: T − 3d/2, the delay less its zero-order term 3d/2 (Appendix 7.B's light-traffic limit, synchronisation included), as the thesis plots T − d − 1/2 for the direct schemes (Figs. 6.1–6.2, §6.4). The OCR copy of Figure 7.5 is its caption only and the thesis states neither its loads nor its dimensions: we use ρ = 0.10, 0.15, 0.20 (those of Figs. 6.1–6.2) and d = {MIN_D} … {max_d}; every value is `not in paper` and only the claim is checked."),
            format!("Simulation: `fatnet_online::direct_broadcast` with `TreeFamily::JohnssonHoFlood` (the notes' reading of the underspecified non-idling scheme: the undirected Johnsson–Ho tree of a uniformly drawn tag flooded from the origin, no Rules C–E, FIFO arcs), continuous Poisson generation at λ = ρd/(2^d − 1) per node, slotted transmission, T from generation to the end of the slot of the last reception. {runs} independent run(s) per point of {horizon} slots of generation, the first tenth discarded, each run to completion; the measured packets of a run in {BATCHES} batches by generation order, and 99% Student-t intervals over the batch means of all runs (the thesis: single runs)."),
            "Estimator: the first-order term is E[T] − 3d/2, and 3d/2 is the mean of a packet's contention-free delay ⌈τ⌉ − τ + h (its wait for its first slot plus the height h of its flooded tree, the eccentricity of its origin: the mean of h over origins and tags is (3d − 1)/2, Appendix 7.B, checked on our trees at every d). So ours is the mean over the packets of the delay less the packet's own contention-free delay (`DirectReport::excess_mean`): the same expectation as T − 3d/2, without the spread of h and of the wait, which dominates T's noise at these loads. T − 3d/2 taken directly, with its own interval, is in the detail column.".into(),
            format!("Reading: (T − 3d/2)/ρ lies in {}; for comparison the Rules A–E scheme's first-order term (Prop. 7.4) is 3ρ/(2(ρ* − ρ)) ≈ (9/4)ρ, about flat in d (the thesis: Θ(1)ρ), while the direct scheme's is about dρ/3 by (6.20).", per_rho.join(", ")),
            "Figure 7.5 (`fig7_5/fig7_5.svg`) plots our T − 3d/2 against d per load with its 99% intervals, and Prop. 7.4's first-order term of the Rules A–E scheme at the same loads.".into(),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(d: u32, mean: f64, sd: f64) -> Point {
        let stat = Stat {
            n: 4,
            mean,
            half99: f64::NAN,
            sd,
            min: f64::NAN,
            max: f64::NAN,
        };
        Point {
            rho: 0.1,
            d,
            excess: stat,
            delay: stat,
            packets: 0,
            runs: 1,
            horizon: 0,
            height: f64::NAN,
        }
    }

    /// The slope of exact points is their slope, with a zero interval; its half-width is the
    /// propagated standard error times Student's t (3 degrees of freedom).
    #[test]
    fn slope_and_its_interval() {
        let pts = [point(2, 0.2, 0.0), point(3, 0.3, 0.0), point(4, 0.4, 0.0)];
        let refs: Vec<&Point> = pts.iter().collect();
        let (s, half) = slope(&refs);
        assert!((s - 0.1).abs() < 1e-12 && half == 0.0, "{s} {half}");
        let pts = [point(2, 0.2, 0.2), point(3, 0.3, 0.2), point(4, 0.4, 0.2)];
        let refs: Vec<&Point> = pts.iter().collect();
        let (_, half) = slope(&refs);
        // w = (−1/2, 0, 1/2): variance 2 · (1/4) · 0.04/4 = 0.005.
        let t = student_t_995(3).unwrap();
        assert!((half - t * 0.005f64.sqrt()).abs() < 1e-12, "{half}");
    }
}
