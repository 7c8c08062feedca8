//! Greenberg & Oh, *Universal wormhole routing* (1997), Figures 2–5: mean maximum latency against
//! `N` for the variants the paper compares, on random instances with `L = 32`, and a verdict on
//! every ordering the text claims about them.
//!
//! The OCR of the paper keeps only the captions of the figures and the claims of the text
//! (notes §5.6), never a plotted number. So each figure's table lists our means (with their
//! 99% Student-t confidence intervals, the paper's error bars) as "not in paper" rows, then
//! one row per claim: "holds" (verdict match) or "does not hold" (verdict MISMATCH), with the
//! numbers that decide it and the criterion we read the claim as. Vague words ("slightly",
//! "similarly", "most cases") get explicit thresholds, stated in the note of the row.
//!
//! The runs are those of [`crate::greenberg_oh`]: the same random instance in trial `i` for
//! every variant (paired comparisons), memoised so that WORM-RP-RR and STORE-RP-RR, shared
//! with Table I, are simulated once. A comparison at one size is decided by the paired 99%
//! Student-t test on the per-trial differences, which the pairing makes far sharper than
//! comparing the two confidence intervals; only Figure 2's "marked difference", which the
//! paper shows with error bars, is read as disjoint 99% intervals.
//!
//! Each figure has an absolute plot (mean maximum latency against `N`, log scale) and a
//! `relative` plot (percent above a reference algorithm at the same `N`), because the claimed
//! gaps of 4–15% are hard to read on curves spanning two orders of magnitude.

use std::sync::Arc;

use fatnet::online::packet::{FlowControl, PathPolicy};

use crate::cell::{Detail, field, fixed, range, signed};
use crate::figure::{Figure, Series, point};
use crate::greenberg_oh::{Algorithm, Pattern, SEED, SIZES, Scan, Stat, Trial, runs, trials};
use crate::{
    Cell, Effort, Experiment, Frame, Paper, ReproError, Table, Tabular, Value, Verdict, detail,
    tabulate,
};

const STORE: FlowControl = FlowControl::StoreAndForward;
const WORM: FlowControl = FlowControl::Wormhole;
const SPLIT: FlowControl = FlowControl::Split;
const FP: PathPolicy = PathPolicy::Fixed;
const RP: PathPolicy = PathPolicy::Random;
const GP: PathPolicy = PathPolicy::Greedy;

/// Sizes of the figures: the paper's five in the full run, `N ≤ 256` in the quick run.
pub fn sizes(effort: Effort) -> &'static [u32] {
    match effort {
        Effort::Full => &SIZES,
        Effort::Quick => &SIZES[..3],
    }
}

/// The trials of one algorithm at one size, and their latency summary.
type Point = (Arc<[Trial]>, Stat);

/// The runs of a figure: every trial, and the mean latency and CI, per algorithm and size.
struct Data {
    sizes: Vec<u32>,
    series: Vec<(Algorithm, Vec<Point>)>,
}

/// One curve of a figure: an algorithm's runs at every size (a row of [`Tabular`]).
#[derive(Clone, Debug)]
pub struct Curve {
    algorithm: Algorithm,
    sizes: Vec<u32>,
    trials: u64,
    points: Vec<Point>,
}

/// The runs of `algorithms` at the sizes of `effort`, one curve each.
fn collect(algorithms: &[Algorithm], effort: Effort) -> Result<Vec<Curve>, ReproError> {
    let ns = sizes(effort);
    let count = trials(effort);
    algorithms
        .iter()
        .map(|&a| {
            let points = ns
                .iter()
                .map(|&n| {
                    let t = runs(a, Pattern::Random, n, count)?;
                    let s = Stat::latency(&t);
                    Ok((t, s))
                })
                .collect::<Result<_, ReproError>>()?;
            Ok(Curve {
                algorithm: a,
                sizes: ns.to_vec(),
                trials: count,
                points,
            })
        })
        .collect()
}

/// One "not in paper" row per size of a curve: the mean with its 99% interval.
fn curve_cells(a: Algorithm, sizes: &[u32], trials: u64, points: &[Point]) -> Vec<Cell> {
    sizes
        .iter()
        .zip(points)
        .map(|(n, (_, s))| Cell {
            key: vec![a.label().into(), (*n).into()],
            paper: None,
            ours: s.estimate(1),
            detail: detail![
                ..s.ci(1),
                ", ",
                field("sd", fixed(s.sd, 1)),
                ", ",
                trials,
                " trials",
            ],
            verdict: Verdict::NotInPaper,
            note: String::new(),
        })
        .collect()
}

impl Data {
    /// The runs of a figure's curves, for its claims.
    fn of(effort: Effort, curves: &[Curve]) -> Data {
        Data {
            sizes: sizes(effort).to_vec(),
            series: curves
                .iter()
                .map(|c| (c.algorithm, c.points.clone()))
                .collect(),
        }
    }

    fn get(&self, a: Algorithm, n: u32) -> &Point {
        let i = self
            .sizes
            .iter()
            .position(|&m| m == n)
            .expect("a size of the run");
        &self
            .series
            .iter()
            .find(|(b, _)| *b == a)
            .expect("an algorithm of the figure")
            .1[i]
    }

    fn stat(&self, a: Algorithm, n: u32) -> Stat {
        self.get(a, n).1
    }

    /// One "not in paper" row per algorithm and size, of `trials` trials each.
    #[cfg(test)]
    fn cells(&self, trials: u64) -> Vec<Cell> {
        self.series
            .iter()
            .flat_map(|(a, points)| curve_cells(*a, &self.sizes, trials, points))
            .collect()
    }

    /// How much `a` beats `b` at `n`: `mean(b)/mean(a) − 1` (positive when `a` is faster).
    fn gain(&self, a: Algorithm, b: Algorithm, n: u32) -> f64 {
        self.stat(b, n).mean / self.stat(a, n).mean - 1.0
    }

    /// Whether `a` is significantly faster than `b` at `n`: the 99% Student-t confidence
    /// interval of the mean paired difference `latency_b(i) − latency_a(i)` (same instance and
    /// seed in trial `i`) lies above zero.
    fn significantly_faster(&self, a: Algorithm, b: Algorithm, n: u32) -> bool {
        let (ta, tb) = (&self.get(a, n).0, &self.get(b, n).0);
        let diff: Vec<f64> = ta
            .iter()
            .zip(tb.iter())
            .map(|(x, y)| y.latency as f64 - x.latency as f64)
            .collect();
        Stat::of(&diff).low() > 0.0
    }

    /// Whether the 99% CIs (the error bars) of `a` and `b` at `n` are disjoint.
    fn disjoint(&self, a: Algorithm, b: Algorithm, n: u32) -> bool {
        let (x, y) = (self.stat(a, n), self.stat(b, n));
        x.high() < y.low() || y.high() < x.low()
    }

    /// `N = 16: +12.3%, N = 64: +1.0% (n.s.), …`: the gain of `a` over `b` at `ns`, marked
    /// `(n.s.)` where neither is significantly faster (paired 99%).
    fn gains_text(&self, a: Algorithm, b: Algorithm, ns: &[u32]) -> Detail {
        Detail::join(
            ns.iter().map(|&n| {
                let sig = self.significantly_faster(a, b, n) || self.significantly_faster(b, a, n);
                detail![
                    "N = ",
                    n,
                    ": ",
                    signed(100.0 * self.gain(a, b, n), 1),
                    "%",
                    if sig { "" } else { " (n.s.)" },
                ]
            }),
            ", ",
        )
    }
}

/// A claim of the text and our reading of it.
struct Claim {
    /// Short name (the key of the row).
    name: String,
    /// The paper's words.
    paper: &'static str,
    /// The sizes it was evaluated on.
    sizes: Vec<u32>,
    holds: bool,
    /// The data cannot decide it: it does not hold only for lack of significance (no
    /// significant difference against it), so the row is "not significant", not a failure.
    undecided: bool,
    /// The numbers that decide it.
    detail: Detail,
    /// How we read the claim.
    criterion: String,
}

impl Claim {
    fn cell(self) -> Cell {
        let sizes = match self.sizes.as_slice() {
            [one] => (*one).into(),
            [first, .., last] => range(*first, *last),
            [] => "".into(),
        };
        Cell {
            key: vec![format!("claim: {}", self.name).into(), sizes],
            paper: Some(self.paper.into()),
            ours: if self.holds {
                "holds"
            } else if self.undecided {
                "not significant"
            } else {
                "does not hold"
            }
            .into(),
            detail: self.detail,
            verdict: if !self.holds && self.undecided {
                Verdict::NotSignificant
            } else {
                Verdict::holds(self.holds)
            },
            note: self.criterion,
        }
    }
}

const GAIN_NOTE: &str = "gains are mean(other)/mean(first) − 1 on paired runs (positive: the first is faster); (n.s.): the paired difference is not significant at 99% (Student t on the per-trial differences)";

/// How strongly a claim of the form "`a` beats `b`" is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Strength {
    /// "beats": `a` significantly faster at more than half of the sizes, `b` at none.
    Plain,
    /// "significantly" or "uniformly beats": `a` significantly faster at every size.
    Uniform,
}

/// The claim "`a` beats `b`", decided by the paired 99% test at every size: each size is a
/// win of `a`, a win of `b`, or no significant difference.
fn beats(
    d: &Data,
    name: String,
    paper: &'static str,
    a: Algorithm,
    b: Algorithm,
    strength: Strength,
) -> Claim {
    let ns = d.sizes.clone();
    let wins = ns
        .iter()
        .filter(|&&n| d.significantly_faster(a, b, n))
        .count();
    let losses = ns
        .iter()
        .filter(|&&n| d.significantly_faster(b, a, n))
        .count();
    let holds = match strength {
        Strength::Plain => 2 * wins > ns.len() && losses == 0,
        Strength::Uniform => wins == ns.len(),
    };
    let mut detail = detail![
        a.label(),
        " over ",
        b.label(),
        ": ",
        ..d.gains_text(a, b, &ns),
        "; significantly faster at ",
        wins,
        " of ",
        ns.len(),
        " sizes, significantly slower at ",
        losses,
    ];
    if strength == Strength::Uniform && !holds && losses == 0 && wins > 0 {
        let ties = Detail::join(
            ns.iter()
                .filter(|&&n| !d.significantly_faster(a, b, n))
                .map(|&n| detail![n]),
            ", ",
        );
        detail.append(detail![
            "; the uniform test fails only for lack of significance at N = ",
            ..ties
        ]);
    }
    Claim {
        // No significant difference against it: the data cannot decide.
        undecided: !holds && losses == 0,
        name,
        paper,
        detail,
        sizes: ns,
        holds,
        criterion: match strength {
            Strength::Plain => format!(
                "holds if {} is significantly faster (paired 99% test) at more than half of the sizes and significantly slower at none; not significant if it is significantly slower at none but faster at too few; {GAIN_NOTE}",
                a.label()
            ),
            Strength::Uniform => format!(
                "holds if {} is significantly faster (paired 99% test) at every size; not significant if it is significantly slower at none but not faster at all; {GAIN_NOTE}",
                a.label()
            ),
        },
    }
}

/// The notes of a figure's table: the shared ones, then the figure's own.
fn figure_notes(effort: Effort, notes: &[&str]) -> Vec<String> {
    let ns = sizes(effort);
    let mut all_notes = vec![format!(
        "Random instances (uniform destinations other than the source), one packet per processor, L = 32, {} trials per point{}; the rows without a paper value are the plotted means with their 99% Student-t confidence intervals. Trial i routes the same instance with the same seed for every variant (seeds from 1997, N and i; the instances are Table I's), so the comparisons are paired.",
        trials(effort),
        if ns.len() < SIZES.len() {
            " (quick run: N ≤ 256, 5 trials)"
        } else {
            ""
        }
    )];
    all_notes.push("The paper prints no numbers for its figures (the OCR has only captions and the text's claims, notes §5.6). Each claim is read as the criterion in its note and gets \"holds\" (match), \"does not hold\" (MISMATCH) or, for a claim decided by paired tests that fails only for lack of significance (no significant difference against it), \"not significant\" — the one rule of every table (`Verdict::positive`): a claim fails only on significant evidence against it; nothing is tuned to make a claim hold.".into());
    all_notes.extend(notes.iter().map(|s| s.to_string()));
    all_notes
}

/// A figure of the paper: the algorithms it runs, its caption, its claims and its own notes.
/// Every figure is [`Tabular`] through it: one [`Curve`] per algorithm, its means as "not in
/// paper" rows, then the claims, decided over all the curves.
trait PaperFigure: Experiment {
    /// The title of the table.
    const TITLE: &'static str;
    /// The figure's notes, after the shared ones.
    const NOTES: &'static [&'static str];
    /// Every algorithm run, plotted or not.
    fn algorithms(&self) -> Vec<Algorithm>;
    /// The claims of the text about the figure, decided on the runs.
    fn claims(&self, d: &Data) -> Vec<Claim>;
    /// Whether `claim` is about an algorithm we only have a stand-in for: its row is then
    /// [`Verdict::StandIn`] whatever the stand-in did. None by default.
    fn stand_in(&self, claim: &Claim) -> bool {
        let _ = claim;
        false
    }
}

impl<F: PaperFigure> Tabular for F {
    type Row = Curve;

    fn frame(&self) -> Frame {
        Frame {
            title: F::TITLE.into(),
            key_columns: vec!["series or claim".into(), "N".into()],
            detail_column: "99% CI, or the numbers that decide the claim".into(),
        }
    }

    fn compute(&self, effort: Effort) -> Result<Vec<Curve>, ReproError> {
        collect(&self.algorithms(), effort)
    }

    fn cells(&self, c: &Curve) -> Vec<Cell> {
        curve_cells(c.algorithm, &c.sizes, c.trials, &c.points)
    }

    fn summary_cells(&self, effort: Effort, rows: &[Curve]) -> Result<Vec<Cell>, ReproError> {
        let claims = self.claims(&Data::of(effort, rows));
        Ok(claims
            .into_iter()
            .map(|c| {
                let stand_in = self.stand_in(&c);
                let mut cell = c.cell();
                if stand_in {
                    cell.verdict = Verdict::StandIn;
                }
                cell
            })
            .collect())
    }

    fn notes(&self, effort: Effort, _rows: &[Curve], _cells: &[Cell]) -> Vec<String> {
        figure_notes(effort, F::NOTES)
    }
}

/// The plotted points of `labels` from `table`'s data rows: `(N, mean)`.
fn points(table: &Table, label: &str) -> Vec<(f64, f64)> {
    table
        .cells
        .iter()
        .filter(|c| c.key[0] == label && c.verdict == Verdict::NotInPaper)
        .map(|c| point(c.key[1].shown(), c.ours.shown()))
        .collect()
}

fn series(table: &Table, algorithms: &[Algorithm]) -> Vec<Series> {
    algorithms
        .iter()
        .map(|a| Series {
            name: a.label(),
            points: points(table, &a.label()),
        })
        .collect()
}

fn latency_figure(id: &'static str, title: String, series: Vec<Series>) -> Figure {
    Figure {
        id,
        title,
        x_label: "N (processors, log scale)".into(),
        y_label: "mean maximum latency (flit-steps)".into(),
        series,
        log_x: true,
        ..Figure::default()
    }
}

/// `100·(mean(a)/mean(reference) − 1)` at every size of `points` (from the table's printed
/// means): how much slower than the reference, in percent.
fn relative(points: &[(f64, f64)], reference: &[(f64, f64)]) -> Vec<(f64, f64)> {
    points
        .iter()
        .filter_map(|&(n, y)| {
            let &(_, r) = reference.iter().find(|p| p.0 == n)?;
            Some((n, 100.0 * (y / r - 1.0)))
        })
        .collect()
}

/// The companion plot of a figure: every series as the percentage by which its mean latency
/// exceeds that of `reference(a)` at the same `N` (the paper's claims are relative gaps,
/// which the absolute plot squeezes into a few pixels).
fn relative_figure(
    title: String,
    reference_name: &str,
    table: &Table,
    algorithms: &[Algorithm],
    reference: impl Fn(Algorithm) -> Algorithm,
) -> Figure {
    let series = algorithms
        .iter()
        .map(|&a| Series {
            name: a.label(),
            points: relative(
                &points(table, &a.label()),
                &points(table, &reference(a).label()),
            ),
        })
        .collect();
    Figure {
        id: "relative",
        title,
        x_label: "N (processors, log scale)".into(),
        y_label: format!("mean latency above {reference_name} (%)"),
        series,
        log_x: true,
        ..Figure::default()
    }
}

/// The rows whose RP-RR variant of the same flow control is the reference.
fn rp_rr(a: Algorithm) -> Algorithm {
    Algorithm::new(a.flow, RP, Scan::RoundRobin)
}

/// Figure 2: STORE-RP-RR against the UNIV stand-in, both with `R = log₂ N` initial delays.
///
/// UNIV is our stand-in (see [`Algorithm::config`]): STORE-RP whose switches serve packets in
/// the order of random priorities drawn from `1..=R`, `R = log₂ N`, smallest first. STORE
/// waits `x ∈ 0 … R − 1` packet-steps before leaving, and so does UNIV. STORE-RP-RR with
/// `R = 1` (Table I's runs) is plotted for reference.
#[derive(Clone, Copy, Debug, Default)]
pub struct Figure2;

const FIG2: [Algorithm; 3] = [
    Algorithm::STORE.with_delays(),
    Algorithm::UNIV,
    Algorithm::STORE,
];

impl Experiment for Figure2 {
    fn paper(&self) -> Paper {
        Paper::GreenbergOh
    }

    fn id(&self) -> &'static str {
        "fig2"
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

    /// `latency`: the three means against N, with the 99% confidence intervals of the two
    /// delayed algorithms as extra lines; `relative`: the same as percentages above
    /// STORE-RP-RR with `R = log₂N`.
    fn figures(&self, table: &Table) -> Vec<Figure> {
        let [store, univ, _] = FIG2;
        let mut absolute = series(table, &FIG2);
        let mut bands = Vec::new();
        for (a, short) in [(store, "STORE"), (univ, "UNIV")] {
            let label = a.label();
            for (side, sign) in [("low", -1.0), ("high", 1.0)] {
                let pts: Vec<(f64, f64)> = table
                    .cells
                    .iter()
                    .filter(|c| c.key[0] == label && c.verdict == Verdict::NotInPaper)
                    .map(|c| {
                        let half = c.detail.field("half-width").and_then(Value::shown);
                        point(
                            c.key[1].shown(),
                            c.ours.shown().zip(half).map(|(m, h)| m + sign * h),
                        )
                    })
                    .collect();
                bands.push(Series {
                    name: format!("{short} 99% CI {side}"),
                    points: pts,
                });
            }
        }
        absolute.extend(bands.iter().cloned());
        let mut rel = relative_figure(
            "Greenberg–Oh, Fig. 2, relative to STORE-RP-RR with R = log₂N".into(),
            "STORE-RP-RR, R = log₂N",
            table,
            &FIG2,
            |_| store,
        );
        let base = points(table, &store.label());
        rel.series.extend(bands.into_iter().map(|b| Series {
            points: relative(&b.points, &base),
            ..b
        }));
        vec![
            latency_figure(
                "latency",
                "Greenberg–Oh, Fig. 2: STORE-RP-RR vs UNIV stand-in, R = log₂N".into(),
                absolute,
            ),
            rel,
        ]
    }
}

impl PaperFigure for Figure2 {
    const TITLE: &'static str =
        "Greenberg–Oh, Figure 2: STORE-RP-RR against UNIV, both with R = log₂N initial delays";

    const NOTES: &'static [&'static str] = &[
        "UNIV stand-in: the paper gives only \"a random priority from [1, R] used to order the passage of packets through any given switch\" for the universal algorithm of Leighton, Maggs, Ranade and Rao (notes §6.16). Ours is STORE-RP with 1-packet queues whose switches serve the smallest priority number first (ties in RR order), priorities drawn from 1..=R with R = log₂N, and the same R = log₂N initial delays (in packet-steps) as STORE. It is a stand-in, not the algorithm of [15]: it differs from STORE only in the order in which a switch serves competing packets, so the two claims about UNIV test the stand-in: their rows show what the stand-in did and are marked \"not reproduced: stand-in\" — a failure would say that random priorities alone do not make STORE worse, not that the paper's UNIV was not worse. Implementing the cited algorithm (ranks with Ranade's ghost packets keeping every switch's output in rank order) is left open.",
        "The figure draws the 99% confidence intervals of the two delayed algorithms as two extra lines each, through the lower and the upper ends of the interval at every N (the shared SVG writer draws lines and markers, not error bars).",
    ];

    fn algorithms(&self) -> Vec<Algorithm> {
        FIG2.to_vec()
    }

    /// The two claims about UNIV: we run a stand-in for Leighton, Maggs, Ranade and Rao's
    /// algorithm, so they are reported as "not reproduced: stand-in", not judged.
    fn stand_in(&self, claim: &Claim) -> bool {
        claim.paper.contains("UNIV") || claim.name == "marked difference"
    }

    fn claims(&self, d: &Data) -> Vec<Claim> {
        let [store, univ, store1] = FIG2;
        let mut claims = vec![beats(
            d,
            "STORE beats UNIV".into(),
            "STORE performed better than UNIV for all of the communication patterns considered",
            store,
            univ,
            Strength::Plain,
        )];
        let ns = d.sizes.clone();
        claims.push(Claim {
            undecided: false,
            name: "marked difference".into(),
            paper: "a marked difference (the figure's error bars are 99% confidence intervals)",
            holds: ns
                .iter()
                .all(|&n| d.gain(store, univ, n) > 0.0 && d.disjoint(store, univ, n)),
            detail: Detail::join(
                ns.iter().map(|&n| {
                    let (a, b) = (d.stat(store, n), d.stat(univ, n));
                    detail![
                        "N = ",
                        n,
                        ": STORE [",
                        fixed(a.low(), 0),
                        ", ",
                        fixed(a.high(), 0),
                        "] vs UNIV [",
                        fixed(b.low(), 0),
                        ", ",
                        fixed(b.high(), 0),
                        "]",
                        if d.disjoint(store, univ, n) { "" } else { " overlap" },
                    ]
                }),
                "; ",
            ),
            sizes: ns.clone(),
            criterion: "holds if STORE's mean is lower and the two 99% confidence intervals (the error bars of the figure) are disjoint at every N".into(),
        });
        // mean(R = log₂N)/mean(R = 1) − 1: negative when the delays help.
        let change: Vec<f64> = ns
            .iter()
            .map(|&n| d.stat(store, n).mean / d.stat(store1, n).mean - 1.0)
            .collect();
        claims.push(Claim {
            undecided: false,
            name: "initial delays never help much".into(),
            paper: "random initial delays can reduce latency, but we did not find any cases in which they provided much advantage",
            holds: change.iter().all(|&r| r > -0.10),
            detail: detail![
                "STORE-RP-RR latency with R = log₂N relative to R = 1 (negative: the delays help): ",
                ..Detail::join(
                    ns.iter()
                        .zip(&change)
                        .map(|(&n, r)| detail!["N = ", n, ": ", signed(100.0 * r, 1), "%"]),
                    ", ",
                ),
            ],
            sizes: ns,
            criterion: "holds if R = log₂N lowers STORE-RP-RR's mean by less than 10% at every N (\"much\" read as 10%; the paper calls gaps of 4–8% a win elsewhere)".into(),
        });
        claims
    }
}

/// Figure 3: path selection FP, RP and GP with RR scan, for STORE and WORM.
#[derive(Clone, Copy, Debug, Default)]
pub struct Figure3;

const FIG3_STORE: [Algorithm; 3] = [
    Algorithm::new(STORE, FP, Scan::RoundRobin),
    Algorithm::new(STORE, RP, Scan::RoundRobin),
    Algorithm::new(STORE, GP, Scan::RoundRobin),
];
const FIG3_WORM: [Algorithm; 3] = [
    Algorithm::new(WORM, FP, Scan::RoundRobin),
    Algorithm::new(WORM, RP, Scan::RoundRobin),
    Algorithm::new(WORM, GP, Scan::RoundRobin),
];

impl Experiment for Figure3 {
    fn paper(&self) -> Paper {
        Paper::GreenbergOh
    }

    fn id(&self) -> &'static str {
        "fig3"
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
        vec![
            latency_figure(
                "store",
                "Greenberg–Oh, Fig. 3: path selection in STORE (RR scan)".into(),
                series(table, &FIG3_STORE),
            ),
            latency_figure(
                "worm",
                "Greenberg–Oh, Fig. 3: path selection in WORM (RR scan)".into(),
                series(table, &FIG3_WORM),
            ),
            relative_figure(
                "Greenberg–Oh, Fig. 3, relative to RP-RR of the same flow control".into(),
                "RP-RR",
                table,
                &[FIG3_STORE, FIG3_WORM].concat(),
                rp_rr,
            ),
        ]
    }
}

impl PaperFigure for Figure3 {
    const TITLE: &'static str =
        "Greenberg–Oh, Figure 3: path selection FP, RP, GP in STORE and WORM with RR scan";

    const NOTES: &'static [&'static str] = &[
        "FP: one shortest path drawn uniformly at the source and kept; RP: each step a head going up draws one of its two up links and waits if it is blocked; GP: the first free up link in port order. STORE has queues of 1 packet, WORM of 2 flits; R = 1.",
    ];

    fn algorithms(&self) -> Vec<Algorithm> {
        FIG3_STORE.iter().chain(&FIG3_WORM).copied().collect()
    }

    fn claims(&self, d: &Data) -> Vec<Claim> {
        let mut claims = Vec::new();
        for (flow, [fp, rp, gp]) in [("STORE", FIG3_STORE), ("WORM", FIG3_WORM)] {
            for adaptive in [rp, gp] {
                claims.push(beats(
                    d,
                    format!(
                        "{flow}: adaptive {} beats FP",
                        adaptive.path.name().to_uppercase()
                    ),
                    "the adaptive schemes (RP, GP) significantly outperform FP",
                    adaptive,
                    fp,
                    Strength::Uniform,
                ));
            }
            let ns = d.sizes.clone();
            let holds = ns
                .iter()
                .all(|&n| !d.significantly_faster(gp, rp, n) && !d.significantly_faster(fp, rp, n));
            let lowest = ns
                .iter()
                .filter(|&&n| d.gain(rp, gp, n) >= 0.0 && d.gain(rp, fp, n) >= 0.0)
                .count();
            claims.push(Claim {
                undecided: false,
                name: format!("{flow}: RP is the best path selection"),
                paper: "RP is the best path selection scheme",
                detail: detail![
                    "RP has the lowest mean at ",
                    lowest,
                    " of ",
                    ns.len(),
                    " sizes; RP over GP: ",
                    ..d.gains_text(rp, gp, &ns),
                    "; RP over FP: ",
                    ..d.gains_text(rp, fp, &ns),
                ],
                sizes: ns,
                holds,
                criterion: format!("holds if at no N is GP or FP significantly faster than RP (paired 99% test): a scheme is refuted as the best only by a significant difference; {GAIN_NOTE}"),
            });
        }
        claims
    }
}

/// Figure 4: input scan FO, RR and FF with RP paths, for STORE and WORM, and GP-FO.
#[derive(Clone, Copy, Debug, Default)]
pub struct Figure4;

const fn fig4(flow: FlowControl) -> [Algorithm; 4] {
    [
        Algorithm::new(flow, RP, Scan::FixedOrder),
        Algorithm::new(flow, RP, Scan::RoundRobin),
        Algorithm::new(flow, RP, Scan::FarthestFirst),
        Algorithm::new(flow, GP, Scan::FixedOrder),
    ]
}

const FIG4_STORE: [Algorithm; 4] = fig4(STORE);
const FIG4_WORM: [Algorithm; 4] = fig4(WORM);

/// A case of Figure 4's claims: RP-FO, RP-RR and RP-FF of one flow control, and a size.
type Case = (Algorithm, Algorithm, Algorithm, u32);

/// "More than half of `cases` satisfy `test`".
fn most<T>(cases: &[T], test: impl Fn(&T) -> bool) -> (usize, bool) {
    let k = cases.iter().filter(|c| test(c)).count();
    (k, 2 * k > cases.len())
}

impl Experiment for Figure4 {
    fn paper(&self) -> Paper {
        Paper::GreenbergOh
    }

    fn id(&self) -> &'static str {
        "fig4"
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
        vec![
            latency_figure(
                "store",
                "Greenberg–Oh, Fig. 4: input scan in STORE (RP paths)".into(),
                series(table, &FIG4_STORE),
            ),
            latency_figure(
                "worm",
                "Greenberg–Oh, Fig. 4: input scan in WORM (RP paths)".into(),
                series(table, &FIG4_WORM),
            ),
            relative_figure(
                "Greenberg–Oh, Fig. 4, relative to RP-RR of the same flow control".into(),
                "RP-RR",
                table,
                &[FIG4_STORE, FIG4_WORM].concat(),
                rp_rr,
            ),
        ]
    }
}

impl PaperFigure for Figure4 {
    const TITLE: &'static str =
        "Greenberg–Oh, Figure 4: input scan FO, RR, FF in STORE and WORM with RP paths, and GP-FO";

    const NOTES: &'static [&'static str] = &[
        "FO: every switch scans its inputs in a fixed order (children's up links, then parents' down links, then the injection queue; the paper's order is unstated, notes §6.11); RR: cyclically from a random input, one draw per switch per step; FF: the packet with the longest path (2ℓ links, ℓ its lowest-common-ancestor level: the paper's \"farthest destination\" on up links and \"farthest source\" on down links coincide on the fat-tree) first, ties in RR order.",
        "FF breaks ties in RR order. On the fat-tree the path length 2ℓ takes only log₄N values, so many packets tie and FF keeps much of RR's random arbitration; the paper states neither its distance measure nor its tie-breaking (notes §6.10), and an FF with fixed-order ties would sit closer to FO. This is the likeliest reason for a failing \"FF performs similarly to FO\" row.",
        "The claims about GP-FO concern N = 1024 and 4096 only and are left out of the quick run.",
    ];

    fn algorithms(&self) -> Vec<Algorithm> {
        FIG4_STORE.iter().chain(&FIG4_WORM).copied().collect()
    }

    fn claims(&self, d: &Data) -> Vec<Claim> {
        let ns = d.sizes.clone();
        // Every (flow, N) case: (RP-FO, RP-RR, RP-FF, N).
        let mut cases: Vec<Case> = Vec::new();
        for [fo, rr, ff, _] in [FIG4_STORE, FIG4_WORM] {
            for &n in &ns {
                cases.push((fo, rr, ff, n));
            }
        }
        let case_text = |f: &dyn Fn(&Case) -> f64| {
            Detail::join(
                cases.iter().map(|c| {
                    detail![
                        c.0.flow.name().to_uppercase(),
                        " N = ",
                        c.3,
                        ": ",
                        signed(100.0 * f(c), 1),
                        "%",
                    ]
                }),
                ", ",
            )
        };
        let rr_gain = |c: &Case| d.gain(c.1, c.0, c.3);
        let ff_diff = |c: &Case| d.stat(c.2, c.3).mean / d.stat(c.0, c.3).mean - 1.0;
        let (k_dir, dir) = most(&cases, |c| d.significantly_faster(c.1, c.0, c.3));
        let fo_wins = cases
            .iter()
            .filter(|c| d.significantly_faster(c.0, c.1, c.3))
            .count();
        let rr_text = Detail::join(
            cases.iter().map(|c| {
                detail![
                    c.0.flow.name().to_uppercase(),
                    " ",
                    ..d.gains_text(c.1, c.0, &[c.3]),
                ]
            }),
            ", ",
        );
        let (k_mag, mag) = most(&cases, |c| (0.04..=0.08).contains(&rr_gain(c)));
        let (k_ff, ff) = most(&cases, |c| ff_diff(c).abs() < 0.04);
        let total = cases.len();
        let mut claims = vec![
            Claim {
                undecided: !dir && fo_wins == 0,
                name: "RR beats FO in most cases".into(),
                paper: "RR beats FO by 4–8% for most cases",
                detail: detail![
                    "RP-RR significantly faster than RP-FO in ",
                    k_dir,
                    " of ",
                    total,
                    " cases: ",
                    ..rr_text,
                ],
                sizes: ns.clone(),
                holds: dir,
                criterion: format!("holds if RP-RR is significantly faster than RP-FO (paired 99% test) in more than half of the (flow, N) cases; not significant if it fails so but RP-FO is significantly faster in none; {GAIN_NOTE}"),
            },
            Claim {
                undecided: false,
                name: "… by 4–8%".into(),
                paper: "RR beats FO by 4–8% for most cases",
                detail: detail![
                    "mean(RP-FO)/mean(RP-RR) − 1 in [4%, 8%] in ",
                    k_mag,
                    " of ",
                    total,
                    " cases: ",
                    ..case_text(&rr_gain),
                ],
                sizes: ns.clone(),
                holds: mag,
                criterion: "holds if mean(RP-FO)/mean(RP-RR) − 1 lies in [4%, 8%] in more than half of the (flow, N) cases".into(),
            },
            Claim {
                undecided: false,
                name: "FF performs similarly to FO".into(),
                paper: "FF performs similarly to FO",
                detail: detail![
                    "FF relative to FO (within 4% in ",
                    k_ff,
                    " of ",
                    total,
                    " cases): ",
                    ..case_text(&ff_diff),
                ],
                sizes: ns.clone(),
                holds: ff,
                criterion: "holds if RP-FF's mean is within 4% of RP-FO's in more than half of the (flow, N) cases (\"similar\" read as a gap smaller than the smallest the paper calls a win, RR over FO's 4%)".into(),
            },
        ];
        for (flow, [_, rr, _, gpfo], (lo, hi)) in [
            ("STORE", FIG4_STORE, (0.05, 0.09)),
            ("WORM", FIG4_WORM, (0.12, 0.15)),
        ] {
            let big: Vec<u32> = ns.iter().copied().filter(|&n| n >= 1024).collect();
            if big.is_empty() {
                continue;
            }
            let holds = big
                .iter()
                .all(|&n| (lo..=hi).contains(&d.gain(rr, gpfo, n)));
            claims.push(Claim {
                undecided: false,
                name: format!("{flow}: RP-RR beats GP-FO by {:.0}–{:.0}%", 100.0 * lo, 100.0 * hi),
                paper: "GP-FO is also a good choice, but RP-RR beats it by 5–9% for STORE and 12–15% for WORM at N = 1024 and 4096",
                detail: detail!["RP-RR over GP-FO: ", ..d.gains_text(rr, gpfo, &big)],
                sizes: big,
                holds,
                criterion: format!(
                    "holds if mean(GP-FO)/mean(RP-RR) − 1 lies in [{:.0}%, {:.0}%] at N = 1024 and 4096; {GAIN_NOTE}",
                    100.0 * lo,
                    100.0 * hi
                ),
            });
        }
        claims
    }
}

/// Figure 5: WORM-RP-RR against SPLIT with RP-RR, RP-FO and GP-FF (`q = 2` flits).
///
/// SPLIT cuts every packet into `L = 32` one-flit packets with independent routes, injected
/// back to back; a message arrives with its last flit. Its queues hold 2 flits like WORM's
/// (the paper does not say; see [`Algorithm::config`]). STORE with GP-FF and RP-FO is run
/// too, for the paper's remark that GP-FF's advantage over RP-FO "was not observed for STORE";
/// those two are in the table, not in the plot.
#[derive(Clone, Copy, Debug, Default)]
pub struct Figure5;

const FIG5: [Algorithm; 4] = [
    Algorithm::WORM,
    Algorithm::new(SPLIT, RP, Scan::RoundRobin),
    Algorithm::new(SPLIT, RP, Scan::FixedOrder),
    Algorithm::new(SPLIT, GP, Scan::FarthestFirst),
];
const FIG5_STORE: [Algorithm; 2] = [
    Algorithm::new(STORE, RP, Scan::FixedOrder),
    Algorithm::new(STORE, GP, Scan::FarthestFirst),
];

impl Experiment for Figure5 {
    fn paper(&self) -> Paper {
        Paper::GreenbergOh
    }

    fn id(&self) -> &'static str {
        "fig5"
    }

    fn cost(&self) -> u32 {
        24
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
        vec![
            latency_figure(
                "latency",
                "Greenberg–Oh, Fig. 5: WORM-RP-RR vs SPLIT (q = 2 flits)".into(),
                series(table, &FIG5),
            ),
            relative_figure(
                "Greenberg–Oh, Fig. 5, relative to WORM-RP-RR".into(),
                "WORM-RP-RR",
                table,
                &FIG5,
                |_| Algorithm::WORM,
            ),
        ]
    }
}

impl PaperFigure for Figure5 {
    const TITLE: &'static str =
        "Greenberg–Oh, Figure 5: WORM-RP-RR against SPLIT with RP-RR, RP-FO and GP-FF";

    const NOTES: &'static [&'static str] = &[
        "SPLIT: each packet becomes 32 independent one-flit packets (no address overhead charged, as in the paper), injected back to back, routed like STORE packets of one flit, with queues of 2 flits (the paper does not give SPLIT's queue size; with 1 flit SPLIT would be about twice as slow as WORM, against the paper's claim, notes §6.15). STORE-RP-FO and STORE-GP-FF (1-packet queues) are in the table for the STORE remark and not plotted.",
    ];

    fn algorithms(&self) -> Vec<Algorithm> {
        FIG5.iter().chain(&FIG5_STORE).copied().collect()
    }

    fn claims(&self, d: &Data) -> Vec<Claim> {
        let [worm, split_rr, split_fo, split_ff] = FIG5;
        let [store_fo, store_ff] = FIG5_STORE;
        let ns = d.sizes.clone();
        let slight = ns.iter().all(|&n| d.gain(split_rr, worm, n) < 0.10);
        let store_uniform = beats(d, String::new(), "", store_ff, store_fo, Strength::Uniform);
        let claims = vec![
            beats(
                d,
                "SPLIT RP-RR better than WORM RP-RR".into(),
                "SPLIT RP-RR is slightly better than WORM RP-RR (per-flit address overhead ignored)",
                split_rr,
                worm,
                Strength::Plain,
            ),
            Claim {
                undecided: false,
                name: "… only slightly".into(),
                paper: "SPLIT RP-RR is slightly better than WORM RP-RR; even a slight increase in flits for SPLIT would make WORM win",
                detail: detail![
                    "SPLIT-RP-RR over WORM-RP-RR: ",
                    ..d.gains_text(split_rr, worm, &ns),
                ],
                sizes: ns.clone(),
                holds: slight,
                criterion: format!(
                    "holds if SPLIT-RP-RR's advantage over WORM-RP-RR is below 10% at every N (\"slightly\" read as under 10%; whether it is an advantage at all is the row above); {GAIN_NOTE}"
                ),
            },
            beats(
                d,
                "WORM RP-RR beats SPLIT RP-FO".into(),
                "WORM RP-RR beats SPLIT RP-FO",
                worm,
                split_fo,
                Strength::Plain,
            ),
            beats(
                d,
                "WORM RP-RR beats SPLIT GP-FF".into(),
                "WORM RP-RR beats SPLIT GP-FF",
                worm,
                split_ff,
                Strength::Plain,
            ),
            beats(
                d,
                "SPLIT GP-FF uniformly beats SPLIT RP-FO".into(),
                "SPLIT is sensitive to the scheme: SPLIT GP-FF uniformly beats SPLIT RP-FO",
                split_ff,
                split_fo,
                Strength::Uniform,
            ),
            Claim {
                undecided: false,
                name: "not so for STORE".into(),
                paper: "(GP-FF uniformly beating RP-FO) was not observed for STORE",
                detail: store_uniform.detail,
                sizes: ns.clone(),
                holds: !store_uniform.holds,
                criterion: format!(
                    "holds if STORE-GP-FF is not significantly faster than STORE-RP-FO (paired 99% test) at every size: the negation, for STORE, of the test that SPLIT's \"uniformly beats\" row applies; {GAIN_NOTE}"
                ),
            },
        ];
        claims
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(latencies: &[u64]) -> (Arc<[Trial]>, Stat) {
        let t: Arc<[Trial]> = latencies
            .iter()
            .map(|&latency| Trial {
                latency,
                congestion: 1,
            })
            .collect();
        let s = Stat::latency(&t);
        (t, s)
    }

    #[test]
    fn claims_read_the_gains_of_the_runs() {
        let [a, b, c] = FIG3_WORM;
        let d = Data {
            sizes: vec![16, 64],
            series: vec![
                (
                    a,
                    vec![run(&[110, 112, 108, 111]), run(&[220, 222, 218, 221])],
                ),
                // Exactly 10 faster than a in every paired trial.
                (
                    b,
                    vec![run(&[100, 102, 98, 101]), run(&[210, 212, 208, 211])],
                ),
                // Slower than b at N = 16, faster at 64 but not significantly.
                (
                    c,
                    vec![run(&[101, 99, 100, 102]), run(&[209, 207, 210, 210])],
                ),
            ],
        };
        assert!((d.gain(b, a, 16) - 10.0 / 100.25).abs() < 1e-12);
        assert!(d.significantly_faster(b, a, 16) && d.significantly_faster(b, a, 64));
        assert!(!d.significantly_faster(c, b, 64) && !d.significantly_faster(b, c, 64));
        assert!(d.disjoint(a, b, 16) && !d.disjoint(b, c, 16));
        let claim = |x, y, strength| beats(&d, "x".into(), "p", x, y, strength);
        assert!(claim(b, a, Strength::Uniform).holds);
        assert!(claim(b, a, Strength::Plain).holds);
        // c: no significant difference from b at either size.
        assert!(!claim(c, b, Strength::Plain).holds && !claim(b, c, Strength::Plain).holds);
        assert!(d.gains_text(c, b, &[64]).to_string().ends_with("(n.s.)"));
        let cell = claim(b, a, Strength::Plain).cell();
        assert_eq!(
            (cell.ours.as_text(), cell.verdict),
            (Some("holds"), Verdict::Match)
        );
        assert_eq!(cell.key, [Value::text("claim: x"), range(16, 64)]);
        let cell = claim(a, b, Strength::Plain).cell();
        assert_eq!(
            (cell.ours.as_text(), cell.verdict),
            (Some("does not hold"), Verdict::Mismatch)
        );
        assert_eq!(most(&[1, 2, 3, 4], |&x| x > 2), (2, false));
        assert_eq!(most(&[1, 2, 3, 4], |&x| x > 1), (3, true));
        let rel = relative(&[(16.0, 110.0), (64.0, 90.0)], &[(16.0, 100.0)]);
        assert_eq!(rel.len(), 1);
        assert!((rel[0].1 - 10.0).abs() < 1e-9);
        // The data rows are the figure's points.
        let t = Table {
            paper: Paper::GreenbergOh,
            id: "t",
            title: "t".into(),
            key_columns: vec![],
            detail_column: String::new(),
            cells: d.cells(4),
            notes: vec![],
        };
        assert_eq!(points(&t, &a.label()), [(16.0, 110.2), (64.0, 220.2)]);
    }
}
