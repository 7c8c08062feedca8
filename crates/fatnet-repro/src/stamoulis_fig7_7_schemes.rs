//! Stamoulis, Figure 7.7 with its three schemes on one pair of axes: the mean queue size `Q`
//! against d at ρ = 0.3 for the efficient direct scheme, the non-idling indirect scheme and
//! the indirect scheme of Rules A–E, and the thesis' claim about `Q` (§7.4):
//! "the non-idling indirect scheme has the smallest Q, and its Q grows more slowly in d".
//!
//! **Key design decision: every curve is simulated, under one storage convention.** The
//! thesis draws the Rules A–E curve from Prop. 7.5 as printed, which the notes (§3.12) show
//! to be 3× too large in its root-buffer term; here that scheme is simulated like the other
//! two (`simulate_indirect`, whose `Q` the corrected formula matches in `fig7_7`), and both
//! forms of Prop. 7.5 are printed beside it for reference. All three `Q`s count a packet once
//! at every node that still has to forward it, transmission slots included (thesis §6.4):
//! [`DirectReport::queue_size`](fatnet::online::direct_broadcast::DirectReport::queue_size)
//! for the two schemes on the packet engine, `IndirectReport::queue_size` for Rules A–E.
//!
//! **What is not checked: M.** Claim (v) is also about `M`, the largest queue at a node
//! (Fig. 7.8). The packet engine reports the longest *arc* queue, not the packets stored per
//! node, so `M` by the thesis' per-node convention is not available for the two schemes it
//! runs; it is not approximated here.
//!
//! **Choices where the thesis is silent** (recorded in the table notes): the thesis shows one
//! 1,000-slot run per point; we run several independent ones (trial `i` seeded from the
//! experiment's seed and `i`), each starting empty, discarding 100 slots and measuring the
//! next 1,000, and give the mean with its 99% Student-t interval over the runs. "Grows more
//! slowly" is read as a smaller least-squares slope of `Q` against d over the simulated d.

use fatnet::online::RunProtocol;
use fatnet::online::direct_broadcast::{DirectConfig, DirectScheme, TreeFamily};
use fatnet::online::indirect_broadcast::{IndirectConfig, simulate_indirect};
use fatnet::online::packet::Outcome;
use fatnet::queueing::stamoulis::broadcast;

use crate::cell::{Estimate, field, fixed};
use crate::figure::point;
use crate::greenberg_oh::Stat;
use crate::runner::try_run_trials;
use crate::{
    Cell, Detail, Effort, Experiment, ExperimentId, Figure, Frame, Paper, ReproError, Series,
    Table, Tabular, Value, Verdict, detail, tabulate,
};

/// Master seed of the experiment.
pub const SEED: u64 = 770;

/// Measured slots per run (the thesis' run length).
const MEASURED: u64 = 1_000;
/// Warm-up slots discarded before them.
const WARMUP: u64 = 100;
/// The load of Figure 7.7.
const RHO: f64 = 0.3;
/// The smallest d simulated.
const MIN_D: u32 = 2;

const ID: &str = "fig7_7_schemes";

/// The three schemes of Figure 7.7.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Scheme {
    /// The efficient direct scheme (SaS85's rotated trees, FIFO).
    Direct,
    /// The non-idling indirect scheme (flooding the undirected Johnsson–Ho trees, FIFO).
    NonIdling,
    /// The indirect scheme of Rules A–E.
    RulesAE,
}

impl Scheme {
    const ALL: [Scheme; 3] = [Scheme::Direct, Scheme::NonIdling, Scheme::RulesAE];

    fn name(self) -> &'static str {
        match self {
            Scheme::Direct => "direct",
            Scheme::NonIdling => "non-idling indirect",
            Scheme::RulesAE => "indirect, Rules A–E",
        }
    }
}

/// The experiment, as its errors name it.
const EXPERIMENT: ExperimentId = ExperimentId::new(Paper::Stamoulis, "fig7_7_schemes");

/// λ per node at load ρ: ρd/(2^d − 1).
fn lambda(d: u32) -> f64 {
    RHO * f64::from(d) / f64::from((1u32 << d) - 1)
}

/// The mean number of forwarding (non-leaf) nodes of a packet's tree under `scheme`, the
/// origin included: `2^(d−1)` for the binomial trees of the direct scheme and for the
/// Johnsson–Ho tree of Rules A–E (its non-leaf nodes, the root included); for the flooded
/// undirected trees, counted over every origin and tag.
fn forwarding_nodes(scheme: Scheme, d: u32, flood: &DirectScheme) -> f64 {
    match scheme {
        Scheme::Direct | Scheme::RulesAE => f64::from(1u32 << (d - 1)),
        Scheme::NonIdling => {
            let n = 1u32 << d;
            let mut total = 0u64;
            let mut seen = vec![false; n as usize];
            for origin in 0..n {
                for tag in 0..d {
                    let Some(tree) = flood.tree(origin, tag) else {
                        return f64::NAN;
                    };
                    seen.iter_mut().for_each(|s| *s = false);
                    for &link in tree.links() {
                        // A link is `(dimension << d) | source`.
                        seen[(link & (n - 1)) as usize] = true;
                    }
                    total += seen.iter().filter(|&&s| s).count() as u64;
                }
            }
            total as f64 / f64::from(n * d)
        }
    }
}

/// The runs of one (scheme, d), with the bounds and formulas its cell is compared with.
#[derive(Clone, Copy, Debug)]
pub struct Point {
    scheme: Scheme,
    d: u32,
    q: Stat,
    packets: u64,
    runs: u64,
    /// Forwarding (non-leaf) nodes per tree.
    forwarding: f64,
    /// Prop. 7.5 as printed and corrected.
    printed: f64,
    corrected: f64,
}

/// Runs per point and the largest d.
fn plan(effort: Effort) -> (u64, u32) {
    match effort {
        Effort::Full => (12, 10),
        Effort::Quick => (4, 7),
    }
}

/// `[lo, hi]` of a mean with its 99% half-width.
fn interval(mean: f64, half: f64) -> (f64, f64) {
    (mean - half, mean + half)
}

/// Least-squares slope of `(d, Q)` over the points, with the half-width of its 99% interval:
/// the slope is `Σ wᵢ Qᵢ` with `wᵢ = (dᵢ − d̄)/Σ(d − d̄)²` and independent means, so its
/// standard error is `√(Σ wᵢ² sᵢ²/nᵢ)`; the quantile is Student's t with the runs per point
/// less one degree of freedom (conservative).
fn slope(points: &[&Point]) -> (f64, f64) {
    let pairs: Vec<(f64, &Stat)> = points.iter().map(|p| (f64::from(p.d), &p.q)).collect();
    let e = Stat::slope(&pairs, 4);
    (e.mean, e.half_width)
}

/// The claim "ours is smaller" from two independent 99% intervals: [`Verdict::positive`] on
/// the difference `other − ours`, whose 99% half-width is `√(h² + h′²)` (the half-widths of
/// the two intervals; a formula's interval has width 0).
fn compare(ours: (f64, f64), other: (f64, f64), ours_mean: f64, other_mean: f64) -> Verdict {
    let (h, h_other) = ((ours.1 - ours.0) / 2.0, (other.1 - other.0) / 2.0);
    Verdict::positive(&crate::cell::Estimate::new(
        other_mean - ours_mean,
        h.hypot(h_other),
        2,
        99,
        4,
    ))
}

/// Stamoulis Figure 7.7 with all three schemes: `Q` against d at ρ = 0.3 for the efficient
/// direct, the non-idling indirect and the Rules A–E schemes, and claim (v) for `Q`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Figure7_7Schemes;

impl Experiment for Figure7_7Schemes {
    fn paper(&self) -> Paper {
        Paper::Stamoulis
    }

    fn id(&self) -> &'static str {
        ID
    }

    fn cost(&self) -> u32 {
        8
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
        let of = |name: &str, value: &dyn Fn(&Cell) -> Option<f64>| -> Vec<(f64, f64)> {
            table
                .cells
                .iter()
                .filter(|c| c.key[0] == name)
                .map(|c| point(c.key[1].shown(), value(c)))
                .collect()
        };
        let ours = |c: &Cell| c.ours.shown();
        let detail =
            |label: &'static str| move |c: &Cell| c.detail.field(label).and_then(Value::shown);
        let rules = Scheme::RulesAE.name();
        vec![Figure {
            id: ID,
            title: "Stamoulis, Fig. 7.7: Q against d, ρ = 0.3, three schemes (all simulated)"
                .into(),
            x_label: "d".into(),
            y_label: "Q (packets stored per node)".into(),
            series: vec![
                Series {
                    name: "direct (ours)".into(),
                    points: of(Scheme::Direct.name(), &ours),
                },
                Series {
                    name: "non-idling indirect (ours)".into(),
                    points: of(Scheme::NonIdling.name(), &ours),
                },
                Series {
                    name: "Rules A–E (ours)".into(),
                    points: of(rules, &ours),
                },
                Series {
                    name: "Rules A–E, Prop. 7.5 printed".into(),
                    points: of(rules, &|c: &Cell| c.paper.as_ref().and_then(Value::shown)),
                },
                Series {
                    name: "Rules A–E, Prop. 7.5 corrected".into(),
                    points: of(rules, &detail("Prop. 7.5 corrected")),
                },
                Series {
                    name: "Little bound, direct and Rules A–E".into(),
                    points: of(Scheme::Direct.name(), &detail("Little bound")),
                },
                Series {
                    name: "Little bound, non-idling".into(),
                    points: of(Scheme::NonIdling.name(), &detail("Little bound")),
                },
            ],
            log_x: false,
            ..Figure::default()
        }]
    }
}

/// The non-idling scheme's points and the others' at d, or an error if one is missing.
fn point_of(points: &[Point], s: Scheme, d: u32) -> Result<&Point, ReproError> {
    points
        .iter()
        .find(|p| p.scheme == s && p.d == d)
        .ok_or_else(|| EXPERIMENT.failed(format!("no point for {} at d = {d}", s.name())))
}

/// The points of one scheme, in order of d.
fn of(points: &[Point], s: Scheme) -> Vec<&Point> {
    points.iter().filter(|p| p.scheme == s).collect()
}

/// The least-squares slope of Prop. 7.5 as printed over `d = MIN_D..=max_d`.
fn printed_slope(max_d: u32) -> f64 {
    let printed_pts: Vec<(f64, f64)> = (MIN_D..=max_d)
        .map(|d| {
            (
                f64::from(d),
                broadcast::prop_7_5_printed(d, RHO).unwrap_or(f64::NAN),
            )
        })
        .collect();
    fatnet::queueing::stats::least_squares_slope(&printed_pts)
}

/// Key of the per-d cells of claim (v), part 1.
const SMALLEST: &str = "claim (v): non-idling smallest";

impl Tabular for Figure7_7Schemes {
    type Row = Point;

    fn frame(&self) -> Frame {
        Frame {
            title: "Stamoulis, Figure 7.7 (three schemes): mean queue size Q against d at ρ = 0.3 — efficient direct, non-idling indirect and Rules A–E, all simulated; claim (v) for Q".into(),
            key_columns: vec!["scheme or claim".into(), "d".into()],
            detail_column: "99% CI over the runs, forwarding nodes per tree, Little's lower bound; Prop. 7.5 corrected (Rules A–E)".into(),
        }
    }

    fn compute(&self, effort: Effort) -> Result<Vec<Point>, ReproError> {
        let (runs, max_d) = plan(effort);
        let ds: Vec<u32> = (MIN_D..=max_d).collect();
        let build =
            |d: u32, family| DirectScheme::with_trees(d, family).map_err(|e| EXPERIMENT.error(e));
        let direct: Vec<DirectScheme> = ds
            .iter()
            .map(|&d| build(d, TreeFamily::Rotated))
            .collect::<Result<_, _>>()?;
        let flood: Vec<DirectScheme> = ds
            .iter()
            .map(|&d| build(d, TreeFamily::JohnssonHoFlood))
            .collect::<Result<_, _>>()?;
        let grid: Vec<(Scheme, usize)> = Scheme::ALL
            .iter()
            .flat_map(|&s| (0..ds.len()).map(move |k| (s, k)))
            .collect();
        // Trial i is run i % runs of grid point i / runs, seeded from (SEED, i).
        let results = try_run_trials(SEED, grid.len() as u64 * runs, |i, seed| {
            let (scheme, k) = grid[(i / runs) as usize];
            let d = ds[k];
            let config = DirectConfig {
                rho: RHO,
                protocol: RunProtocol::slots(WARMUP, WARMUP + MEASURED, 1),
                seed,
            };
            let report = match scheme {
                Scheme::Direct => direct[k].simulate(&config),
                Scheme::NonIdling => flood[k].simulate(&config),
                Scheme::RulesAE => {
                    let r = simulate_indirect(&IndirectConfig {
                        d,
                        rho: RHO,
                        protocol: RunProtocol::slots(WARMUP, WARMUP + MEASURED, 1),
                        seed,
                    })
                    .map_err(|e| EXPERIMENT.error(e))?;
                    return Ok((r.queue_size, r.measured));
                }
            }
            .map_err(|e| EXPERIMENT.error(e))?;
            if !matches!(report.outcome, Outcome::Delivered) {
                return Err(EXPERIMENT.failed(format!(
                    "{} d = {d}: {:?}",
                    scheme.name(),
                    report.outcome
                )));
            }
            Ok((report.queue_size, report.measured))
        })
        .map_err(|e| EXPERIMENT.error(e))??;
        grid.iter()
            .zip(results.chunks(runs as usize))
            .map(|(&(scheme, k), rs)| {
                let d = ds[k];
                Ok(Point {
                    scheme,
                    d,
                    q: Stat::of(&rs.iter().map(|r| r.0).collect::<Vec<_>>()),
                    packets: rs.iter().map(|r| r.1).sum(),
                    runs,
                    forwarding: forwarding_nodes(scheme, d, &flood[k]),
                    printed: broadcast::prop_7_5_printed(d, RHO)
                        .map_err(|e| EXPERIMENT.error(e))?,
                    corrected: broadcast::prop_7_5_corrected(d, RHO)
                        .map_err(|e| EXPERIMENT.error(e))?,
                })
            })
            .collect()
    }

    fn cells(&self, p: &Point) -> Vec<Cell> {
        let d = p.d;
        let (lo, hi) = interval(p.q.mean, p.q.half99);
        let i = p.forwarding;
        let little = lambda(d) * (i + 0.5);
        let (printed, corrected) = (p.printed, p.corrected);
        let estimate = Estimate::new(p.q.mean, p.q.half99, p.q.n, 99, 3);
        let base = detail![
            ..estimate.interval(),
            " (",
            p.runs,
            " runs of ",
            MEASURED,
            " slots, ",
            p.packets,
            " packets); ",
            field("forwarding nodes per tree I", fixed(i, 3)),
            "; ",
            field("Little bound", fixed(little, 4)),
        ];
        let (paper, detail, verdict, note) = match p.scheme {
            Scheme::RulesAE => {
                let inside = |x: f64| lo <= x && x <= hi;
                let verdict = Verdict::compared(inside(printed), inside(corrected));
                (
                    Some(fixed(printed, 3)),
                    detail![
                        ..base,
                        "; ",
                        field("Prop. 7.5 corrected", fixed(corrected, 3)),
                    ],
                    verdict,
                    format!(
                        "paper: Prop. 7.5 as printed (the thesis' curve); the corrected formula {} our interval",
                        if inside(corrected) {
                            "lies in"
                        } else {
                            "lies outside"
                        }
                    ),
                )
            }
            _ => (
                None,
                base,
                Verdict::bound(p.q.mean >= little),
                "simulated in the thesis, values not printed (caption only)".into(),
            ),
        };
        vec![Cell {
            key: vec![p.scheme.name().into(), d.into()],
            paper,
            ours: estimate.into(),
            detail,
            verdict,
            note,
        }]
    }

    /// Claim (v): the non-idling scheme's Q is the smallest at every d, and grows more slowly.
    fn summary_cells(&self, effort: Effort, points: &[Point]) -> Result<Vec<Cell>, ReproError> {
        let (_, max_d) = plan(effort);
        let mut cells = Vec::new();
        // Part 1: the non-idling indirect scheme has the smallest Q, per d.
        for d in MIN_D..=max_d {
            let ni = point_of(points, Scheme::NonIdling, d)?;
            let ni_iv = interval(ni.q.mean, ni.q.half99);
            let mut verdict = Verdict::Match;
            let mut parts = Vec::new();
            for other in [Scheme::Direct, Scheme::RulesAE] {
                let o = point_of(points, other, d)?;
                let o_iv = interval(o.q.mean, o.q.half99);
                let v = compare(ni_iv, o_iv, ni.q.mean, o.q.mean);
                verdict = verdict.weaker(v);
                parts.push(detail![
                    other.name(),
                    " ",
                    fixed(o.q.mean, 3),
                    " [",
                    fixed(o_iv.0, 3),
                    ", ",
                    fixed(o_iv.1, 3),
                    "] (",
                    v.label(),
                    ")",
                ]);
            }
            cells.push(Cell {
                key: vec![SMALLEST.into(), d.into()],
                paper: Some("smallest Q of the three".into()),
                ours: detail![
                    "non-idling ",
                    fixed(ni.q.mean, 3),
                    " [",
                    fixed(ni_iv.0, 3),
                    ", ",
                    fixed(ni_iv.1, 3),
                    "]",
                ]
                .into(),
                detail: detail!["vs ", ..Detail::join(parts, "; ")],
                verdict,
                note: "per other scheme, the difference of the two means against its 99% noise √(h² + h′²): match if significantly smaller, MISMATCH if significantly larger, else not significant; the cell takes the weaker of the two".into(),
            });
        }
        // Part 2: its Q grows more slowly in d (least-squares slope over all d).
        let span = crate::cell::range(MIN_D, max_d);
        let ni_slope = slope(&of(points, Scheme::NonIdling));
        let ni_iv = interval(ni_slope.0, ni_slope.1);
        for other in [Scheme::Direct, Scheme::RulesAE] {
            let o = slope(&of(points, other));
            let o_iv = interval(o.0, o.1);
            cells.push(Cell {
                key: vec![
                    format!("claim (v): slower growth than {}", other.name()).into(),
                    span.clone(),
                ],
                paper: Some("Q of the non-idling indirect scheme grows more slowly in d".into()),
                ours: detail!["slope ", fixed(ni_slope.0, 4), " vs ", fixed(o.0, 4)].into(),
                detail: detail![
                    "least-squares slope of Q against d = ",
                    MIN_D,
                    "..",
                    max_d,
                    ", 99% CI: non-idling [",
                    fixed(ni_iv.0, 4),
                    ", ",
                    fixed(ni_iv.1, 4),
                    "], ",
                    other.name(),
                    " [",
                    fixed(o_iv.0, 4),
                    ", ",
                    fixed(o_iv.1, 4),
                    "]",
                ],
                verdict: compare(ni_iv, o_iv, ni_slope.0, o.0),
                note: "the difference of the slopes against its 99% noise √(h² + h′²): match if the non-idling slope is significantly lower, MISMATCH if significantly higher, else not significant".into(),
            });
        }
        // The same against the curve the thesis drew for Rules A–E (Prop. 7.5 as printed).
        let printed_slope = printed_slope(max_d);
        cells.push(Cell {
            key: vec![
                "claim (v): slower growth than Prop. 7.5 as printed".into(),
                span,
            ],
            paper: Some("Q of the non-idling indirect scheme grows more slowly in d".into()),
            ours: detail![
                "slope ",
                fixed(ni_slope.0, 4),
                " vs ",
                fixed(printed_slope, 4)
            ]
            .into(),
            detail: detail![
                "the thesis' own Rules A–E curve (a formula, no interval); non-idling 99% CI [",
                fixed(ni_iv.0, 4),
                ", ",
                fixed(ni_iv.1, 4),
                "]",
            ],
            verdict: compare(ni_iv, (printed_slope, printed_slope), ni_slope.0, printed_slope),
            note: "for reference: the claim against the curve the thesis drew, not against the simulated scheme".into(),
        });
        Ok(cells)
    }

    fn notes(&self, effort: Effort, points: &[Point], cells: &[Cell]) -> Vec<String> {
        let (runs, max_d) = plan(effort);
        // Part 1 of claim (v), as its cells decided it.
        let per_d: Vec<&Cell> = cells.iter().filter(|c| c.key[0] == SMALLEST).collect();
        let count = |v: Verdict| per_d.iter().filter(|c| c.verdict == v).count();
        let not_smallest: Vec<String> = per_d
            .iter()
            .filter(|c| c.verdict == Verdict::Mismatch)
            .map(|c| c.key[1].to_string())
            .collect();
        let n_d = per_d.len();
        let slope_text = [Scheme::NonIdling, Scheme::Direct, Scheme::RulesAE]
            .iter()
            .map(|&s| {
                let (m, h) = slope(&of(points, s));
                format!("{} {m:.4} ± {h:.4}", s.name())
            })
            .collect::<Vec<_>>()
            .join("; ");
        let printed_slope = printed_slope(max_d);
        let row = |s: Scheme| -> String {
            of(points, s)
                .iter()
                .map(|p| format!("{:.3}", p.q.mean))
                .collect::<Vec<_>>()
                .join(", ")
        };
        vec![
            "The thesis (§7.4): \"As revealed by Figure 7.7, the non-idling version of the indirect scheme is the most efficient one with respect to queue-sizes. It is worth noting that, for fixed ρ, the queue-size Q grows more slowly with d under the non-idling indirect scheme.\" It does not say more slowly than which scheme, so the slope is compared with each of the other two (and, for reference, with the Prop. 7.5 curve the thesis drew).".into(),
            format!("Claim (v) of the notes (§3.18): \"the non-idling indirect scheme has the smallest Q and M, and its Q grows more slowly in d\" (Figs. 7.7–7.8, ρ = 0.3). Smallest Q, per d (the difference to each other scheme against its 99% noise): match (significantly smallest) at {} of {n_d} d, not significant at {}, MISMATCH (another significantly smaller) at {} (d = {}). \"Grows more slowly\" is defined as a smaller least-squares slope of Q against d over d = {MIN_D}..{max_d}; slopes (99% half-widths): {slope_text}; Prop. 7.5 as printed {printed_slope:.4}.", count(Verdict::Match), count(Verdict::NotSignificant), count(Verdict::Mismatch), if not_smallest.is_empty() { "none".to_string() } else { not_smallest.join(", ") }),
            "M (the largest queue at a node, Fig. 7.8) — NOT CHECKED: the packet engine that runs the direct and the non-idling indirect schemes reports the longest arc queue (copies per output port), not the packets stored per node by the thesis' convention, so M is not available for them; it is not approximated. (M of Rules A–E alone is in `fig7_8`.)".into(),
            format!("Q per d ({MIN_D}..{max_d}): direct {}; non-idling indirect {}; Rules A–E {}.", row(Scheme::Direct), row(Scheme::NonIdling), row(Scheme::RulesAE)),
            "What the thesis gives: no values (the OCR has the caption only). Its Rules A–E curve is Prop. 7.5 as printed (the paper column of those cells), which the notes (§3.12) find 3× too large in the root-buffer term; the corrected formula is in the detail column. Verdicts of the Rules A–E cells: match if the printed value lies in our 99% interval, MISMATCH (suspected misprint) if only the corrected one does. The direct and non-idling cells are checked against Little's lower bound.".into(),
            "Schemes: direct = the efficient direct scheme (`DirectScheme`, `TreeFamily::Rotated`: a uniform tag picks one of the origin's d rotated binomial trees, FIFO); non-idling indirect = `TreeFamily::JohnssonHoFlood` (tag j floods the undirected Johnsson–Ho tree T^(j) from the origin, no slot classes, virtual arcs or root buffers, FIFO; notes §2.9, inferred); Rules A–E = `simulate_indirect` (tree T^(1), Q = d·N/2^d by symmetry). Poisson generation in continuous time at λ = ρd/(2^d − 1) per node.".into(),
            "Q, one convention for all three (thesis §6.4): the time average over the measured window of the packets stored per node, a packet counting once at every node that still has to forward it, its transmission slots included (at its origin from generation). Little's lower bound: a packet waits 1/2 slot on average for its first slot and is stored at least one slot at each of the I forwarding nodes of its tree, so Q ≥ λ(I + 1/2); I = 2^(d−1) for the binomial trees and for T^(1) (non-leaves, root included), and for the flooded trees the mean over all origins and tags.".into(),
            format!("Runs: {runs} independent runs per (scheme, d) (trial i seeded from (seed {SEED}, i); seeds are derived, never chosen), each starting empty, discarding {WARMUP} slots and measuring the next {MEASURED} (the thesis' run length; it shows one run per point). The direct schemes run every packet to completion; Q is averaged over the measured window only. Intervals: Student-t 99% over the runs; a slope's interval from the per-d standard errors (independent points) with t at runs − 1 degrees of freedom."),
            "Figure (`fig7_7_schemes/fig7_7_schemes.svg`): Q against d for the three simulated schemes, Prop. 7.5 printed and corrected, and Little's lower bounds.".into(),
        ]
    }
}
