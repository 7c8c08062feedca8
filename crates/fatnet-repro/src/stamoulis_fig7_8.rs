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
//! **Choices where the thesis is silent** (recorded in the table notes): each run starts
//! empty, discards 100 warm-up slots and measures the next 1,000 (the thesis' "each
//! simulation lasted for 1,000 slots"); M is the largest count at any instant of the measured
//! window (within a slot a node's count only grows, so this is the count just before the end
//! of a slot, packets born during the slot included); the thesis shows single runs, so we
//! report the mean of M over independent runs, its 99% interval and its range; d = 2..12.

use fatnet::online::RunProtocol;
use fatnet::online::indirect_broadcast::{IndirectConfig, simulate_indirect_nodes};
use fatnet::queueing::stats::batch_means_half_width;

use crate::cell::{Estimate, field, fixed};
use crate::figure::point;
use crate::runner::try_run_trials;
use crate::{
    Cell, Effort, Experiment, ExperimentId, Figure, Frame, Paper, ReproError, Series, Table,
    Tabular, Value, Verdict, detail, tabulate,
};

/// Master seed of Figure 7.8.
pub const SEED: u64 = 78;

/// Measured slots per run (the thesis' run length).
const MEASURED: u64 = 1_000;
/// Warm-up slots discarded before them.
const WARMUP: u64 = 100;
/// The load of Figure 7.8.
const RHO: f64 = 0.3;

/// What one run contributes: M, Q, the busiest node's mean, whether M occurred at a root.
#[derive(Clone, Copy, Debug)]
struct RunResult {
    m: u64,
    q: f64,
    busiest: f64,
    at_root: bool,
}

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

    fn seed(&self) -> Option<u64> {
        Some(SEED)
    }

    fn quick_differs(&self) -> bool {
        true
    }

    fn figures(&self, table: &Table) -> Vec<Figure> {
        let detail = |c: &Cell, label: &str| c.detail.field(label).and_then(Value::shown);
        let series = |name: &str, value: &dyn Fn(&Cell) -> Option<f64>| Series {
            name: name.into(),
            points: table
                .cells
                .iter()
                .map(|c| point(c.key[0].shown(), value(c)))
                .collect(),
        };
        vec![Figure {
            id: "fig7_8",
            title: "Stamoulis, Fig. 7.8: indirect scheme (Rules A–E), largest queue M at a node against d, ρ = 0.3, 1,000 slots".into(),
            x_label: "d".into(),
            y_label: "packets stored at a node".into(),
            series: vec![
                series("M, mean over runs (ours)", &|c| c.ours.shown()),
                series("M, smallest run", &|c| detail(c, "smallest M")),
                series("M, largest run", &|c| detail(c, "largest M")),
                series("Q, same runs", &|c| detail(c, "Q")),
                series("busiest node's mean", &|c| detail(c, "busiest node's mean")),
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
    /// Runs per dimension and the largest dimension.
    fn size(effort: Effort) -> (u64, u32) {
        match effort {
            Effort::Full => (100, 12),
            Effort::Quick => (20, 8),
        }
    }
}

/// One computed row: the runs of one dimension.
#[derive(Debug)]
pub struct NodeQueues {
    d: u32,
    runs: Vec<RunResult>,
}

impl Tabular for Figure7_8 {
    type Row = NodeQueues;

    fn frame(&self) -> Frame {
        Frame {
            title: "Stamoulis, Figure 7.8: largest queue M at a node under the indirect scheme (Rules A–E), ρ = 0.3, runs of 1,000 slots".into(),
            key_columns: vec!["d".into(), "ρ".into()],
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
        Ok(ds
            .iter()
            .zip(results.chunks(runs as usize))
            .map(|(&d, chunk)| NodeQueues {
                d,
                runs: chunk.to_vec(),
            })
            .collect())
    }

    fn cells(&self, row: &NodeQueues) -> Vec<Cell> {
        let (d, chunk) = (row.d, &row.runs);
        let runs = chunk.len() as u64;
        let ms: Vec<f64> = chunk.iter().map(|r| r.m as f64).collect();
        let m = mean(&ms);
        let half = batch_means_half_width(&ms, 0.99);
        let lo = chunk.iter().map(|r| r.m).min().unwrap_or(0);
        let hi = chunk.iter().map(|r| r.m).max().unwrap_or(0);
        let q = mean(&chunk.iter().map(|r| r.q).collect::<Vec<_>>());
        let busiest = mean(&chunk.iter().map(|r| r.busiest).collect::<Vec<_>>());
        let roots = chunk.iter().filter(|r| r.at_root).count();
        let estimate = Estimate::new(m, half, runs, 99, 2);
        vec![Cell {
                key: vec![d.into(), fixed(RHO, 1)],
                paper: None,
                ours: estimate.into(),
                detail: detail![
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

    fn notes(&self, effort: Effort, _rows: &[NodeQueues], cells: &[Cell]) -> Vec<String> {
        let (_, max_d) = Self::size(effort);
        let value = |c: &Cell| c.ours.shown().unwrap_or(f64::NAN);
        let first = cells
            .first()
            .map(|c| c.ours.to_string())
            .unwrap_or_default();
        let last = cells.last().map(|c| c.ours.to_string()).unwrap_or_default();
        let lowest = cells
            .iter()
            .min_by(|a, b| value(a).total_cmp(&value(b)))
            .map(|c| format!("{} at d = {}", c.ours, c.key[0]))
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
        vec![
                "The thesis' values cannot be read off: the OCR copy of Figure 7.8 is its caption only, and the figure compares the direct and the non-idling indirect schemes; it has no curve for the Rules A–E scheme simulated here (the thesis computes that scheme's Q in Fig. 7.7 from Prop. 7.5 and never simulates it).".into(),
                "The thesis' claim about M (§7.4: \"Again, the non-idling indirect scheme is superior to the direct one; see Figure 7.8\") — verdict: NOT CHECKED here. It compares two schemes that the packet engine runs (`direct_broadcast`), which reports the longest arc queue, not the packets stored per node; no claim is made about the Rules A–E scheme's M, whose values here are an extension (`not in paper`).".into(),
                format!("Measurement: `fatnet_online::indirect_broadcast::simulate_indirect_nodes` runs all d trees of Rules A–E side by side (per-node rate λ/d = ρ/(2^d − 1) each, T^(1) on the run's seed and T^(j) on a hash of (seed, j)) and counts every node by the thesis' convention (§6.4): a packet is stored at a node while that node still has to forward it, its transmission slot included — at each node of its way to the root until the end of the C_0 slot in which it leaves, at the root until the end of its first broadcast slot, at every non-leaf node from its reception to the end of its forwarding slot. A node adds its roles in all d trees."),
                format!("Choices where the thesis is silent: every run starts empty, discards {WARMUP} slots and measures the next {MEASURED} (the thesis' run length); M is the largest count at any instant of the measured window (the count just before the end of a slot, births in that slot included), and since M is a maximum it grows with the window. The thesis shows one run per point; we give the mean of M over independent runs (trial i seeded from (seed {SEED}, i)), its 99% Student-t interval and the range. Q is the per-node time average over the same runs, as in Fig. 7.7 (which the notes' corrected Prop. 7.5 matches)."),
                format!("Reading: M stays about ten packets, like Q not monotone in d: {first} at d = 2, lowest {lowest}, {last} at d = {max_d}; M/Q lies between {rmin:.1} and {rmax:.1}. The busiest node's mean is about half of M or less, so M reflects bursts, not a permanently loaded node; M is rarely reached at a root (the last column of the detail)."),
                "Figure 7.8 (`fig7_8/fig7_8.svg`) plots the mean M against d with the smallest and largest M over the runs, Q and the busiest node's mean from the same runs.".into(),
        ]
    }
}
