//! Stamoulis, Figure 7.8: the largest number of packets stored at one node, `M`, under the
//! indirect scheme of Rules A–E, at ρ = 0.3 against d, on runs of 1,000 slots as in the
//! thesis.
//!
//! **Key design decision: M is measured on all d trees at once.** Q (Figure 7.7) is a mean
//! over nodes, so one tree and symmetry give it; M is a maximum over nodes, and a node's count
//! adds its roles in all d trees (root of one, relay or leaf of the others, origin of its own
//! packets). [`fatnet::online::indirect_broadcast::simulate_indirect_nodes`] runs the d trees
//! side by side and counts every node by the thesis' storage convention (§6.4): a packet is
//! stored at a node while that node still has to forward it, its transmission slot included.
//!
//! **What the thesis gives.** Nothing numeric: the OCR copy has the caption only ("Comparing
//! the maximum queue-size M (over all nodes) under the two schemes, for ρ = 0.30"), and the
//! two schemes of Figure 7.8 are the direct scheme and the *non-idling* indirect one — the
//! thesis plots no M for the Rules A–E scheme (its Figure 7.7 value for this scheme is
//! computed from Prop. 7.5, not simulated). Its claim about M, "the non-idling indirect scheme
//! is superior to the direct one", concerns those two schemes.
//!
//! **The thesis' claim, checked.** §7.4: "we have also plotted the maximum queue-sizes M
//! observed in the various simulation runs corresponding to Figure 7.7; each simulation lasted
//! for 1,000 slots. Again, the non-idling indirect scheme is superior to the direct one; see
//! Figure 7.8." The two schemes run on the packet engine
//! ([`fatnet::online::direct_broadcast`]: the efficient direct scheme's rotated trees and the
//! flooded Johnsson–Ho trees), whose storage count per node gives `M` by the same convention
//! ([`DirectReport::max_node_stored`](fatnet::online::direct_broadcast::DirectReport::max_node_stored)).
//! Per d, the claim's verdict is [`Verdict::positive`] on the difference of the mean `M`s over
//! independent runs (direct − non-idling, 99% noise `√(h² + h′²)`): match if significantly
//! positive, MISMATCH if significantly negative, else not significant.
//!
//! **Choices where the thesis is silent** (recorded in the table notes): each run starts
//! empty, discards 100 warm-up slots and measures the next 1,000 (the thesis' "each
//! simulation lasted for 1,000 slots"); M is the largest count at any instant of the measured
//! window (within a slot a node's count only grows, so this is the count just before the end
//! of a slot, packets born during the slot included); the thesis shows single runs, so we
//! report the mean of M over independent runs, its 99% interval and its range; d = 2..12.

use fatnet::online::RunProtocol;
use fatnet::online::direct_broadcast::{DirectConfig, DirectScheme, TreeFamily};
use fatnet::online::indirect_broadcast::{IndirectConfig, simulate_indirect_nodes};
use fatnet::online::packet::Outcome;
use fatnet::queueing::stats::batch_means_half_width;

use crate::cell::{Estimate, field, fixed};
use crate::figure::point;
use crate::runner::try_run_trials;
use crate::{
    Cell, Effort, Experiment, ExperimentId, Figure, Frame, Paper, ReproError, Series, Table,
    Tabular, Value, Verdict, derive_seed, detail, tabulate,
};

/// Master seed of Figure 7.8.
pub const SEED: u64 = 78;

/// Measured slots per run (the thesis' run length).
const MEASURED: u64 = 1_000;
/// Warm-up slots discarded before them.
const WARMUP: u64 = 100;
/// The load of Figure 7.8.
const RHO: f64 = 0.3;

/// What one run contributes: M, Q, the busiest node's mean and whether M occurred at a root
/// (Rules A–E only; NaN and false for the packet-engine schemes).
#[derive(Clone, Copy, Debug)]
struct RunResult {
    m: u64,
    q: f64,
    busiest: f64,
    at_root: bool,
}

/// The schemes of the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Scheme {
    /// The indirect scheme of Rules A–E, all d trees side by side.
    RulesAE,
    /// The efficient direct scheme (rotated binomial trees, FIFO).
    Direct,
    /// The non-idling indirect scheme (flooded Johnsson–Ho trees, FIFO).
    NonIdling,
}

impl Scheme {
    fn name(self) -> &'static str {
        match self {
            Scheme::RulesAE => "indirect, Rules A–E",
            Scheme::Direct => "direct",
            Scheme::NonIdling => "non-idling indirect",
        }
    }
}

/// The key of the claim cells.
const CLAIM: &str = "claim: non-idling M below direct";

/// Stamoulis Figure 7.8 for the indirect scheme of Rules A–E: `M` against d at ρ = 0.3, with
/// `Q` of the same runs.
#[derive(Clone, Copy, Debug, Default)]
pub struct Figure7_8;

/// The experiment, as its errors name it.
const EXPERIMENT: ExperimentId = ExperimentId::new(Paper::Stamoulis, "fig7_8");

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

impl Experiment for Figure7_8 {
    fn paper(&self) -> Paper {
        Paper::Stamoulis
    }

    fn id(&self) -> &'static str {
        "fig7_8"
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

    fn figures(&self, table: &Table) -> Vec<Figure> {
        let detail = |c: &Cell, label: &str| c.detail.field(label).and_then(Value::shown);
        let series = |scheme: Scheme, name: &str, value: &dyn Fn(&Cell) -> Option<f64>| Series {
            name: name.into(),
            points: table
                .cells
                .iter()
                .filter(|c| c.key[0] == scheme.name())
                .map(|c| point(c.key[1].shown(), value(c)))
                .collect(),
        };
        let rules = Scheme::RulesAE;
        vec![Figure {
            id: "fig7_8",
            title: "Stamoulis, Fig. 7.8: largest queue M at a node against d, ρ = 0.3, 1,000 slots"
                .into(),
            x_label: "d".into(),
            y_label: "packets stored at a node".into(),
            series: vec![
                series(Scheme::Direct, "direct: M, mean over runs (ours)", &|c| {
                    c.ours.shown()
                }),
                series(
                    Scheme::NonIdling,
                    "non-idling indirect: M, mean over runs (ours)",
                    &|c| c.ours.shown(),
                ),
                series(rules, "Rules A–E: M, mean over runs (ours)", &|c| {
                    c.ours.shown()
                }),
                series(rules, "Rules A–E: M, smallest run", &|c| {
                    detail(c, "smallest M")
                }),
                series(rules, "Rules A–E: M, largest run", &|c| {
                    detail(c, "largest M")
                }),
                series(rules, "Rules A–E: Q, same runs", &|c| detail(c, "Q")),
                series(rules, "Rules A–E: busiest node's mean", &|c| {
                    detail(c, "busiest node's mean")
                }),
            ],
            log_x: false,
            ..Figure::default()
        }]
    }

    fn run(&self, effort: Effort) -> Result<Table, ReproError> {
        tabulate(self, effort)
    }
}

impl Figure7_8 {
    /// Runs per dimension and the largest dimension (Rules A–E).
    fn size(effort: Effort) -> (u64, u32) {
        match effort {
            Effort::Full => (100, 12),
            Effort::Quick => (20, 8),
        }
    }

    /// Runs per dimension and the largest dimension of the two packet-engine schemes.
    fn engine_size(effort: Effort) -> (u64, u32) {
        match effort {
            Effort::Full => (6, 9),
            Effort::Quick => (3, 6),
        }
    }
}

/// One computed row: the runs of one scheme at one dimension.
#[derive(Debug)]
pub struct NodeQueues {
    scheme: Scheme,
    d: u32,
    runs: Vec<RunResult>,
}

impl NodeQueues {
    /// The mean M with the half-width of its 99% Student-t interval over the runs.
    fn m(&self) -> (f64, f64) {
        let ms: Vec<f64> = self.runs.iter().map(|r| r.m as f64).collect();
        (mean(&ms), batch_means_half_width(&ms, 0.99))
    }
}

/// The mean M of `row`'s runs with its 99% interval, and the detail every row of M prints:
/// the interval, the runs, the smallest and largest M, and Q.
fn m_summary(row: &NodeQueues) -> (Estimate, crate::Detail) {
    let (m, half) = row.m();
    let runs = row.runs.len() as u64;
    let lo = row.runs.iter().map(|r| r.m).min().unwrap_or(0);
    let hi = row.runs.iter().map(|r| r.m).max().unwrap_or(0);
    let q = mean(&row.runs.iter().map(|r| r.q).collect::<Vec<_>>());
    let estimate = Estimate::new(m, half, runs, 99, 2);
    let detail = detail![
        ..estimate.interval(),
        " over ",
        runs,
        " runs of ",
        MEASURED,
        " slots; ",
        field("smallest M", lo),
        ", ",
        field("largest M", hi),
        "; ",
        field("Q", fixed(q, 3)),
    ];
    (estimate, detail)
}

/// The cell of one packet-engine scheme at one d: the mean M over the runs.
fn engine_cells(row: &NodeQueues) -> Vec<Cell> {
    let (estimate, detail) = m_summary(row);
    vec![Cell {
        key: vec![row.scheme.name().into(), row.d.into(), fixed(RHO, 1)],
        paper: None,
        ours: estimate.into(),
        detail,
        verdict: Verdict::NotInPaper,
        note: "plotted in the thesis' Fig. 7.8, values not printed (caption only)".into(),
    }]
}

impl Tabular for Figure7_8 {
    type Row = NodeQueues;

    fn frame(&self) -> Frame {
        Frame {
            title: "Stamoulis, Figure 7.8: largest queue M at a node under the indirect scheme (Rules A–E), the direct and the non-idling indirect scheme, ρ = 0.3, runs of 1,000 slots; the thesis' claim non-idling below direct".into(),
            key_columns: vec!["scheme or claim".into(), "d".into(), "ρ".into()],
            detail_column: "99% CI of the mean M, smallest and largest M over the runs, Q and the busiest node's mean from the same runs".into(),
        }
    }

    fn compute(&self, effort: Effort) -> Result<Vec<NodeQueues>, ReproError> {
        let (runs, max_d) = Self::size(effort);
        let ds: Vec<u32> = (2..=max_d).collect();
        // Trial i is run i % runs of dimension ds[i / runs], seeded from (SEED, i).
        let results = try_run_trials(SEED, ds.len() as u64 * runs, |i, seed| {
            let d = ds[(i / runs) as usize];
            let r = simulate_indirect_nodes(&IndirectConfig {
                d,
                rho: RHO,
                protocol: RunProtocol::slots(WARMUP, WARMUP + MEASURED, 1),
                seed,
            })
            .map_err(|e| EXPERIMENT.error(e))?;
            Ok::<_, ReproError>(RunResult {
                m: r.max_queue,
                q: r.queue_size,
                busiest: r.node_means.iter().copied().fold(0.0, f64::max),
                at_root: r.max_node.is_power_of_two(),
            })
        })
        .map_err(|e| EXPERIMENT.error(e))??;
        let mut rows: Vec<NodeQueues> = ds
            .iter()
            .zip(results.chunks(runs as usize))
            .map(|(&d, chunk)| NodeQueues {
                scheme: Scheme::RulesAE,
                d,
                runs: chunk.to_vec(),
            })
            .collect();
        // The two schemes of the thesis' Figure 7.8, on the packet engine.
        let (runs, max_d) = Self::engine_size(effort);
        let ds: Vec<u32> = (2..=max_d).collect();
        let build = |family| -> Result<Vec<DirectScheme>, ReproError> {
            ds.iter()
                .map(|&d| DirectScheme::with_trees(d, family).map_err(|e| EXPERIMENT.error(e)))
                .collect()
        };
        let direct = build(TreeFamily::Rotated)?;
        let flood = build(TreeFamily::JohnssonHoFlood)?;
        let grid: Vec<(Scheme, usize)> = [Scheme::Direct, Scheme::NonIdling]
            .iter()
            .flat_map(|&s| (0..ds.len()).map(move |k| (s, k)))
            .collect();
        // Trial i is run i % runs of grid point i / runs, seeded from (derive(SEED, 1), i).
        let engine_seed = derive_seed(SEED, 1);
        let results = try_run_trials(engine_seed, grid.len() as u64 * runs, |i, seed| {
            let (scheme, k) = grid[(i / runs) as usize];
            let simulator = if scheme == Scheme::Direct {
                &direct[k]
            } else {
                &flood[k]
            };
            let r = simulator
                .simulate(&DirectConfig {
                    rho: RHO,
                    protocol: RunProtocol::slots(WARMUP, WARMUP + MEASURED, 1),
                    seed,
                })
                .map_err(|e| EXPERIMENT.error(e))?;
            match (r.outcome, r.max_node_stored) {
                (Outcome::Delivered, Some(m)) => Ok(RunResult {
                    m: u64::from(m),
                    q: r.queue_size,
                    busiest: f64::NAN,
                    at_root: false,
                }),
                (outcome, _) => Err(EXPERIMENT.failed(format!(
                    "{} d = {}: {outcome:?}, M {:?}",
                    scheme.name(),
                    ds[k],
                    r.max_node_stored
                ))),
            }
        })
        .map_err(|e| EXPERIMENT.error(e))??;
        rows.extend(
            grid.iter()
                .zip(results.chunks(runs as usize))
                .map(|(&(scheme, k), chunk)| NodeQueues {
                    scheme,
                    d: ds[k],
                    runs: chunk.to_vec(),
                }),
        );
        Ok(rows)
    }

    /// The thesis' claim, per d: the non-idling scheme's M below the direct scheme's.
    fn summary_cells(&self, _effort: Effort, rows: &[NodeQueues]) -> Result<Vec<Cell>, ReproError> {
        let of = |s: Scheme, d: u32| rows.iter().find(|r| r.scheme == s && r.d == d);
        rows.iter()
            .filter(|r| r.scheme == Scheme::NonIdling)
            .map(|ni| {
                let direct = of(Scheme::Direct, ni.d).ok_or_else(|| {
                    EXPERIMENT.failed(format!("no direct runs at d = {}", ni.d))
                })?;
                let ((a, ha), (b, hb)) = (ni.m(), direct.m());
                Ok(Cell {
                    key: vec![CLAIM.into(), ni.d.into(), fixed(RHO, 1)],
                    paper: Some("non-idling indirect superior: smaller M than direct".into()),
                    ours: Value::Phrase(detail![
                        "non-idling ",
                        fixed(a, 2),
                        " ",
                        crate::cell::interval(a - ha, a + ha, 2),
                        " vs direct ",
                        fixed(b, 2),
                        " ",
                        crate::cell::interval(b - hb, b + hb, 2),
                    ]),
                    detail: detail![
                        "mean M over ",
                        ni.runs.len() as u64,
                        " and ",
                        direct.runs.len() as u64,
                        " runs of ",
                        MEASURED,
                        " slots, 99% intervals",
                    ],
                    verdict: Verdict::positive(&crate::cell::Estimate::new(
                        b - a,
                        ha.hypot(hb),
                        ni.runs.len().min(direct.runs.len()) as u64,
                        99,
                        2,
                    )),
                    note: "the difference direct − non-idling against its 99% noise √(h² + h′²) (`Verdict::positive`): match if significantly positive, MISMATCH if significantly negative, else not significant".into(),
                })
            })
            .collect()
    }

    fn cells(&self, row: &NodeQueues) -> Vec<Cell> {
        if row.scheme != Scheme::RulesAE {
            return engine_cells(row);
        }
        let (d, chunk) = (row.d, &row.runs);
        let runs = chunk.len() as u64;
        let (estimate, summary) = m_summary(row);
        let busiest = mean(&chunk.iter().map(|r| r.busiest).collect::<Vec<_>>());
        let roots = chunk.iter().filter(|r| r.at_root).count();
        vec![Cell {
                key: vec![Scheme::RulesAE.name().into(), d.into(), fixed(RHO, 1)],
                paper: None,
                ours: estimate.into(),
                detail: detail![
                    ..summary,
                    "; ",
                    field("busiest node's mean", fixed(busiest, 3)),
                    "; M at a root e_j in ",
                    roots,
                    " of ",
                    runs,
                    " runs",
                ],
                verdict: Verdict::NotInPaper,
                note: "the thesis' Fig. 7.8 has no curve for this scheme and no values in the OCR (caption only)".into(),
            }]
    }

    fn notes(&self, effort: Effort, rows: &[NodeQueues], all: &[Cell]) -> Vec<String> {
        let (_, max_d) = Self::size(effort);
        let (engine_runs, engine_max_d) = Self::engine_size(effort);
        let cells: Vec<&Cell> = all
            .iter()
            .filter(|c| c.key[0] == Scheme::RulesAE.name())
            .collect();
        let claims: Vec<&Cell> = all.iter().filter(|c| c.key[0] == CLAIM).collect();
        let count = |v: Verdict| claims.iter().filter(|c| c.verdict == v).count();
        let value = |c: &Cell| c.ours.shown().unwrap_or(f64::NAN);
        let first = cells
            .first()
            .map(|c| c.ours.to_string())
            .unwrap_or_default();
        let last = cells.last().map(|c| c.ours.to_string()).unwrap_or_default();
        let lowest = cells
            .iter()
            .min_by(|a, b| value(a).total_cmp(&value(b)))
            .map(|c| format!("{} at d = {}", c.ours, c.key[1]))
            .unwrap_or_default();
        let ratios: Vec<f64> = cells
            .iter()
            .map(|c| {
                value(c)
                    / c.detail
                        .field("Q")
                        .and_then(Value::shown)
                        .unwrap_or(f64::NAN)
            })
            .collect();
        let (rmin, rmax) = ratios.iter().fold((f64::INFINITY, 0.0f64), |(lo, hi), &r| {
            (lo.min(r), hi.max(r))
        });
        let m_of = |s: Scheme| -> String {
            rows.iter()
                .filter(|r| r.scheme == s)
                .map(|r| format!("{:.2}", r.m().0))
                .collect::<Vec<_>>()
                .join(", ")
        };
        vec![
                "The thesis' values cannot be read off: the OCR copy of Figure 7.8 is its caption only. The figure compares the direct and the non-idling indirect schemes; it has no curve for the Rules A–E scheme, also simulated here (the thesis computes that scheme's Q in Fig. 7.7 from Prop. 7.5 and never simulates it), whose values are an extension (`not in paper`).".into(),
                format!("The thesis' claim about M, §7.4: \"In order to make the comparison even more clear, we have also plotted the maximum queue-sizes M observed in the various simulation runs corresponding to Figure 7.7; each simulation lasted for 1,000 slots. Again, the non-idling indirect scheme is superior to the direct one; see Figure 7.8.\" Verdict per d (d = 2 … {engine_max_d}), on the difference of the mean Ms against its 99% noise: {} match (non-idling significantly below direct), {} not significant, {} MISMATCH (significantly above), of {}.", count(Verdict::Match), count(Verdict::NotSignificant), count(Verdict::Mismatch), claims.len()),
                format!("Mean M against d = 2 … {engine_max_d}: direct {}; non-idling indirect {}.", m_of(Scheme::Direct), m_of(Scheme::NonIdling)),
                format!("Measurement, direct and non-idling indirect: `fatnet_online::direct_broadcast` (rotated binomial trees, and the flooded Johnsson–Ho trees of the notes' reading of §7.4), {engine_runs} runs per d of {WARMUP} + {MEASURED} slots (trial i seeded from (derive_seed({SEED}, 1), i)); the output-queued engine counts every node's stored packets by the same convention (`PacketReport::stored_peak`: a packet is stored at a node from its generation or arrival to the end of the slot in which its last copy leaves, once however many copies), and M is the largest count over the nodes and the slots of the measured window, packets generated during a slot counted in it (`DirectReport::max_node_stored`). Both schemes run to d = {engine_max_d} (the flooded trees of d = 10 take longer to build than the runs)."),
                format!("Measurement, Rules A–E: `fatnet_online::indirect_broadcast::simulate_indirect_nodes` runs all d trees side by side (per-node rate λ/d = ρ/(2^d − 1) each, T^(1) on the run's seed and T^(j) on a hash of (seed, j)) and counts every node by the thesis' convention (§6.4): a packet is stored at a node while that node still has to forward it, its transmission slot included — at each node of its way to the root until the end of the C_0 slot in which it leaves, at the root until the end of its first broadcast slot, at every non-leaf node from its reception to the end of its forwarding slot. A node adds its roles in all d trees."),
                format!("Choices where the thesis is silent: every run starts empty, discards {WARMUP} slots and measures the next {MEASURED} (the thesis' run length); M is the largest count at any instant of the measured window (the count just before the end of a slot, births in that slot included), and since M is a maximum it grows with the window. The thesis shows one run per point; we give the mean of M over independent runs (Rules A–E: trial i seeded from (seed {SEED}, i)), its 99% Student-t interval and the range. Q is the per-node time average over the same runs, as in Fig. 7.7 (which the notes' corrected Prop. 7.5 matches for Rules A–E)."),
                format!("Reading (Rules A–E): M stays about ten packets, like Q not monotone in d: {first} at d = 2, lowest {lowest}, {last} at d = {max_d}; M/Q lies between {rmin:.1} and {rmax:.1}. The busiest node's mean is about half of M or less, so M reflects bursts, not a permanently loaded node; M is rarely reached at a root (the last column of the detail)."),
                "Figure 7.8 (`fig7_8/fig7_8.svg`) plots the mean M against d of the three schemes, and for Rules A–E the smallest and largest M over the runs, Q and the busiest node's mean from the same runs.".into(),
        ]
    }
}
