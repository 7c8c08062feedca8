//! Greenberg & Leiserson, *Randomized routing on fat-trees* (1986), §6 ("another universal
//! network", Figure 8) and Theorem 11: the constant-size-switch fat-tree against
//! `O(λ(M)·lg² n)`, and RANDOM′ against its explicit bound `2z*`.
//!
//! **Figure 8.** The paper's constant-switch fat-tree has no concentrators: a message climbs to
//! its apex through a uniformly random parent at each switch, so on every channel of its path
//! it holds a uniform one of the `cap(c)` wires, and a wire taken by two or more messages loses
//! them all. The library models exactly this ([`DropPolicy::Wires`]); the router is RANDOM′
//! with `(k+1)·lg n` passes per value of `z` ([`RandomPrime::with_repetitions`]), `k = 1`
//! (`|M| = O(n)` for the traffic used). The paper claims `O(λ(M)·lg² n)` cycles. That claim is
//! asymptotic with no constant, so it is judged by its trend: per traffic family, a trend cell
//! compares `cycles/(λ lg² n)` at the largest `n` with its values at the smaller `n`. The claim
//! is consistent with our numbers ([`Verdict::Match`]) when the ratio at the largest `n` is no
//! larger than the largest ratio at a smaller `n` (it sets no new high); otherwise the ratio is
//! still growing at the sizes we can afford ([`Verdict::Mismatch`], never a "violated bound").
//! Interpretation choices: the capacities are those of the area-universal tree with leaf
//! capacity 1 (§6 says "the channel structure and capacities are the same as before"), and λ is
//! the load factor of `M` on that tree (`λ(M)`, as the rest of the table uses). The same rows
//! evaluate §6's per-wire congestion bound `e·p·λ(M)` exactly on their `M` (see
//! `WireCongestion`), and their verdict requires it.
//!
//! **Theorem 11.** If every capacity is at least `a·lg n` and `λ(M) ≤ n^k`, RANDOM′ (one pass
//! per `z = 1, 2, 4, …`; the lost line 1 read as `z ← 1`) finishes within `2z*` cycles, `z*`
//! the smallest power of 2 with `z* > e·2^{(k+2)/a}·λ(M)`, except with probability at most
//! `(4n − 2)·z*·n^{−(k+2)}` (computed by [`theorem11_bound`]). We route on
//! the area-universal tree with leaf capacity `2·lg n` (so `a = 2`) with `k = 1`, under the
//! analysis's own pessimistic model ([`DropPolicy::Pessimistic`]: every message of a congested
//! channel is lost), the model the theorem is proved in. A row's verdict is
//! [`Verdict::WithinBound`] when the fraction of trials over `2z*` is at most the theorem's
//! failure probability (with all trials within, always), [`Verdict::BoundViolated`] otherwise.

use fatnet::online::{self, DropPolicy, RandomPrime, RunConfig};
use fatnet::queueing::greenberg_leiserson::{
    Theorem11Bound, new_net_wire_congestion, new_net_wire_congestion_bound, theorem11_bound,
};
use fatnet::topology::{AreaGrowth, CapacityProfile, ChannelId, FatTree};
use fatnet::traffic::TrafficSpec;

use crate::cell::{Estimate, field, fixed, power};
use crate::figure::{Figure, Series, point};
use crate::runner::{Summary, try_run_trials};
use crate::{
    Cell, Effort, Experiment, ExperimentId, Frame, Paper, ReproError, Table, Tabular, Verdict,
    derive_seed, detail, tabulate,
};

/// Master seed of the traffic and of the trials.
pub const SEED: u64 = 1988;

/// Cycle limit of one trial, far above what any row needs: a bug shows as a failed verdict.
pub const MAX_CYCLES: u64 = 1_000_000;

/// `k` of both claims: `(k+1)·lg n` passes per `z` (Figure 8) and `λ(M) ≤ n^k` (Theorem 11).
pub const K: u32 = 1;

/// Theorem 11's `a`: the tree's leaf capacity is `a·lg n`.
pub const A: u32 = 2;

/// Traffic families of both parts (as the other Greenberg–Leiserson tables name them).
pub const FAMILIES: [&str; 2] = ["permutation", "replicated:k=4"];

/// The constant-switch fat-tree (Figure 8) and RANDOM′'s bound (Theorem 11).
#[derive(Clone, Copy, Debug, Default)]
pub struct ConstantSwitch;

impl ConstantSwitch {
    /// lg n of the rows.
    pub fn sizes(effort: Effort) -> &'static [u32] {
        match effort {
            Effort::Full => &[4, 5, 6, 7, 8, 9, 10],
            Effort::Quick => &[4, 5, 6],
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
const EXPERIMENT: ExperimentId = ExperimentId::new(Paper::GreenbergLeiserson, "constant_switch");

/// Which claim a row measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    /// Figure 8: RANDOM′ with `(k+1)·lg n` passes per `z` on wires, against `λ·lg² n`.
    Figure8,
    /// Theorem 11: RANDOM′ on capacities `≥ a·lg n`, against `2z*`.
    Theorem11,
}

impl Part {
    fn label(self) -> &'static str {
        match self {
            Part::Figure8 => "Fig. 8 (wires)",
            Part::Theorem11 => "Thm 11 (RANDOM′)",
        }
    }
}

/// One computed row: one part's trials on one (n, family).
#[derive(Debug)]
pub struct Row {
    part: Part,
    levels: u32,
    family: &'static str,
    lambda: f64,
    lower: u64,
    /// Cycles of each trial.
    cycles: Vec<u64>,
    /// Trials that did not finish within [`MAX_CYCLES`].
    unfinished: usize,
    /// Theorem 11's bound for this row's λ(M) and n (Theorem 11 rows only).
    bound: Option<Theorem11Bound>,
    /// §6's per-wire congestion bound (Figure 8 rows only).
    wire: Option<WireCongestion>,
}

/// §6's per-wire bound on one (n, M): a wire of channel `c`, in a cycle that sends a `p`-subset
/// of `M` with `p = 1/(rλ)`, `r = 4e·lg n`, is used by some message with probability
/// `B(1, load(M, c), p/cap(c)) = 1 − (1 − p/cap(c))^{load(M, c)}`, which §6 bounds by
/// `e·p·λ(M)` (= `1/(4 lg n)` for this `p`). Both are exact evaluations on the row's `M` and
/// tree (not simulated): the largest probability over all channels against the bound.
#[derive(Debug, Clone, Copy)]
struct WireCongestion {
    /// `max_c B(1, load(M, c), p/cap(c))`.
    largest: f64,
    /// `e·p·λ(M)`.
    bound: f64,
}

fn wire_congestion(
    tree: &FatTree,
    m: &fatnet::traffic::MessageSet,
    lambda: f64,
) -> Result<WireCongestion, ReproError> {
    let loads = fatnet::load::fat_tree_loads(tree, m).map_err(|e| EXPERIMENT.error(e))?;
    let r = 4.0 * std::f64::consts::E * f64::from(tree.levels());
    let p = 1.0 / (r * lambda);
    let mut largest = 0.0f64;
    for (c, &load) in loads.per_channel.iter().enumerate() {
        let cap = tree.capacity_at_height(tree.height(ChannelId(c as u32)));
        largest =
            largest.max(new_net_wire_congestion(load, cap, p).map_err(|e| EXPERIMENT.error(e))?);
    }
    let bound = new_net_wire_congestion_bound(p, lambda).map_err(|e| EXPERIMENT.error(e))?;
    Ok(WireCongestion { largest, bound })
}

impl Row {
    /// `cycles/(λ lg² n)` of the mean.
    fn ratio(&self) -> f64 {
        let lg = f64::from(self.levels);
        mean(&self.cycles) / (self.lambda * lg * lg)
    }
}

fn mean(cycles: &[u64]) -> f64 {
    Summary::of(&cycles.iter().map(|&c| c as f64).collect::<Vec<_>>())
        .mean
        .unwrap_or(f64::NAN)
}

fn tree(levels: u32, leaf: u64) -> Result<FatTree, ReproError> {
    FatTree::new(
        1u64 << levels,
        CapacityProfile::Area {
            leaf,
            growth: AreaGrowth::Smooth,
        },
    )
    .map_err(|e| EXPERIMENT.error(e))
}

fn figure8_cell(row: &Row) -> Cell {
    let s = Summary::of(&row.cycles.iter().map(|&c| c as f64).collect::<Vec<_>>());
    let wire_ok = row.wire.is_some_and(|w| w.largest <= w.bound);
    let fine = wire_ok && row.unfinished == 0 && row.cycles.iter().all(|&c| c >= row.lower);
    let (largest, bound) = row
        .wire
        .map_or((f64::NAN, f64::NAN), |w| (w.largest, w.bound));
    let estimate = Estimate::student95(&s, 1);
    Cell {
        key: vec![
            row.part.label().into(),
            power(2, row.levels),
            row.family.into(),
        ],
        paper: Some("O(λ lg² n); ≥ ⌈λ⌉".into()),
        ours: estimate.into(),
        detail: detail![
            ..estimate.interval(),
            ", max ",
            fixed(s.max.unwrap_or(f64::NAN), 0),
            "; ",
            field("λ", fixed(row.lambda, 3)),
            ", ",
            field("⌈λ⌉", row.lower),
            ", ",
            field("passes per z", (u64::from(K) + 1) * u64::from(row.levels)),
            "; ",
            field("cycles/(λ lg² n)", fixed(row.ratio(), 3)),
            "; ",
            field("wire congestion max", fixed(largest, 4)),
            " ≤ ",
            field("e·p·λ", fixed(bound, 4)),
        ],
        verdict: Verdict::bound(fine),
        note: if row.unfinished > 0 {
            format!(
                "{} trial(s) did not finish in {MAX_CYCLES} cycles",
                row.unfinished
            )
        } else {
            String::new()
        },
    }
}

/// The trend cell of one family: `cycles/(λ lg² n)` at the largest `n` against the smaller
/// sizes (see the [module documentation](self)).
fn trend_cell(family: &'static str, rows: &[&Row]) -> Option<Cell> {
    let (last, earlier) = rows.split_last()?;
    let before = earlier
        .iter()
        .map(|r| r.ratio())
        .fold(f64::NEG_INFINITY, f64::max);
    let first = rows.first()?;
    let growth = last.ratio() / first.ratio();
    Some(Cell {
        key: vec!["Fig. 8 trend".into(), power(2, last.levels), family.into()],
        paper: Some("cycles/(λ lg² n) bounded as n grows".into()),
        ours: fixed(last.ratio(), 3),
        detail: detail![
            field("max over smaller n", fixed(before, 3)),
            ", ",
            field("ratio at the smallest n", fixed(first.ratio(), 3)),
            ", ",
            field("growth", fixed(growth, 2)),
        ],
        verdict: Verdict::not_growing(&rows.iter().map(|r| r.ratio()).collect::<Vec<_>>()),
        note: String::new(),
    })
}

fn theorem11_cell(row: &Row) -> Option<Cell> {
    let bound = row.bound?;
    let s = Summary::of(&row.cycles.iter().map(|&c| c as f64).collect::<Vec<_>>());
    let trials = row.cycles.len();
    let estimate = Estimate::student95(&s, 1);
    // An unfinished trial stopped at MAX_CYCLES, far above 2z*: it counts as over.
    let within = row
        .cycles
        .iter()
        .filter(|&&c| c <= bound.total_cycles)
        .count();
    let over = trials - within;
    let respected = over == 0 || (over as f64) / (trials as f64) <= bound.failure_probability;
    Some(Cell {
        key: vec![
            Part::Theorem11.label().into(),
            power(2, row.levels),
            row.family.into(),
        ],
        paper: Some(detail!["≤ ", field("2z*", bound.total_cycles), " w.h.p."].into()),
        ours: estimate.into(),
        detail: detail![
            ..estimate.interval(),
            ", ",
            field("max", fixed(s.max.unwrap_or(f64::NAN), 0)),
            "; ",
            field("within 2z*", within),
            "/",
            trials,
            "; ",
            field("λ", fixed(row.lambda, 3)),
            ", ",
            field("z*", bound.threshold),
            ", ",
            field(
                "failure bound",
                fixed(bound.failure_probability.min(1.0), 4)
            ),
        ],
        verdict: Verdict::bound(respected),
        note: String::new(),
    })
}

impl Experiment for ConstantSwitch {
    fn paper(&self) -> Paper {
        Paper::GreenbergLeiserson
    }

    fn id(&self) -> &'static str {
        "constant_switch"
    }

    fn seed(&self) -> Option<u64> {
        Some(SEED)
    }

    fn quick_differs(&self) -> bool {
        true
    }

    /// `ratio`: cycles/(λ lg² n) of the Figure 8 rows against lg n, one series per traffic
    /// family. The points are the table's printed ratios; a flat or falling curve is what the
    /// paper's `O(λ lg² n)` predicts.
    fn figures(&self, table: &Table) -> Vec<Figure> {
        let series = FAMILIES
            .into_iter()
            .map(|family| Series {
                name: family.into(),
                points: table
                    .cells
                    .iter()
                    .filter(|c| c.key[0] == Part::Figure8.label() && c.key[2] == family)
                    .map(|c| {
                        point(
                            c.key[1].shown().map(f64::log2),
                            c.detail.field("cycles/(λ lg² n)").and_then(|v| v.shown()),
                        )
                    })
                    .collect(),
            })
            .collect();
        vec![Figure {
            id: "ratio",
            title: "Greenberg–Leiserson, §6 (Figure 8): constant-switch fat-tree, cycles/(λ lg² n)"
                .into(),
            x_label: "lg n".into(),
            y_label: "mean cycles / (λ(M) · lg² n)".into(),
            series,
            log_x: false,
            ..Figure::default()
        }]
    }

    fn run(&self, effort: Effort) -> Result<Table, ReproError> {
        tabulate(self, effort)
    }
}

impl Tabular for ConstantSwitch {
    type Row = Row;

    fn frame(&self) -> Frame {
        Frame {
            title: "Greenberg–Leiserson, §6 (Figure 8) and Theorem 11: the constant-switch fat-tree against O(λ lg² n), and RANDOM′ against 2z*".into(),
            key_columns: vec!["claim".into(), "n".into(), "traffic".into()],
            detail_column: "max, λ(M), normalised cycles or trials within the bound".into(),
        }
    }

    fn compute(&self, effort: Effort) -> Result<Vec<Row>, ReproError> {
        let count = Self::trials(effort);
        let mut rows = Vec::new();
        for part in [Part::Figure8, Part::Theorem11] {
            for (f, family) in FAMILIES.into_iter().enumerate() {
                for &levels in Self::sizes(effort) {
                    let n = 1u64 << levels;
                    let (tree, policy, passes) = match part {
                        Part::Figure8 => (
                            tree(levels, 1)?,
                            DropPolicy::Wires,
                            (u64::from(K) + 1) * u64::from(levels),
                        ),
                        Part::Theorem11 => (
                            tree(levels, u64::from(A * levels))?,
                            DropPolicy::Pessimistic,
                            1,
                        ),
                    };
                    // Seeds indexed by (lg n, family), never by a running counter, so quick
                    // rows equal the full run's; both parts route the same M.
                    let group = u64::from(levels) * 100 + f as u64 * 10;
                    let spec: TrafficSpec = family.parse().map_err(|e| EXPERIMENT.error(e))?;
                    let m = spec
                        .generate(n as u32, derive_seed(SEED, group))
                        .map_err(|e| EXPERIMENT.error_in(family, e))?;
                    let trial_seed = derive_seed(SEED, group + 1 + part as u64);
                    let config = RunConfig {
                        max_cycles: MAX_CYCLES,
                        ..RunConfig::default()
                    };
                    let reports = try_run_trials(trial_seed, count, |_, seed| {
                        online::run(
                            &tree,
                            &m,
                            policy,
                            &mut RandomPrime::with_repetitions(passes),
                            seed,
                            config,
                        )
                    })
                    .map_err(|e| EXPERIMENT.error(e))?
                    .map_err(|e: online::OnlineError| EXPERIMENT.error(e))?;
                    let first = reports
                        .first()
                        .ok_or_else(|| EXPERIMENT.failed("no trials"))?;
                    let lambda = first.load_factor.value();
                    let wire = match part {
                        Part::Figure8 => Some(wire_congestion(&tree, &m, lambda)?),
                        Part::Theorem11 => None,
                    };
                    let bound = match part {
                        Part::Figure8 => None,
                        Part::Theorem11 => Some(
                            theorem11_bound(lambda, f64::from(A), K, n)
                                .map_err(|e| EXPERIMENT.error_in(family, e))?,
                        ),
                    };
                    rows.push(Row {
                        part,
                        levels,
                        family,
                        lambda,
                        lower: first.lower_bound,
                        cycles: reports.iter().map(|r| r.cycles).collect(),
                        unfinished: reports.iter().filter(|r| !r.finished).count(),
                        bound,
                        wire,
                    });
                }
            }
        }
        Ok(rows)
    }

    fn cells(&self, row: &Row) -> Vec<Cell> {
        match row.part {
            Part::Figure8 => vec![figure8_cell(row)],
            Part::Theorem11 => theorem11_cell(row).into_iter().collect(),
        }
    }

    fn notes(&self, effort: Effort, _rows: &[Row], _cells: &[Cell]) -> Vec<String> {
        let sizes = Self::sizes(effort)
            .iter()
            .map(|l| format!("2^{l}"))
            .collect::<Vec<_>>()
            .join(", ");
        let count = Self::trials(effort);
        vec![
            format!("n ∈ {{{sizes}}}, {count} trials per row, each a run of the delivery-cycle engine with its own seed derived from seed {SEED} and (lg n, family, part); the traffic of an (n, family) is drawn once and shared by both parts."),
            format!("Fig. 8 rows: the constant-switch fat-tree with the capacities of the area-universal tree (leaf 1), the wire-level model (every message takes a uniform wire of every channel on its path; a shared wire loses all its messages), RANDOM′ with (k+1)·lg n passes per value of z, k = {K}. The paper claims O(λ(M)·lg² n) cycles, with no constant; the verdict of a size row checks only that every trial finished and used at least ⌈λ⌉ cycles. The trend row per family judges the claim: \"match\" if cycles/(λ lg² n) at the largest n is no larger than at some smaller n (the ratio is not growing), \"MISMATCH\" if it still sets a new high there."),
            format!("Thm 11 rows: RANDOM′ (one pass per z = 1, 2, 4, …) on the area-universal tree with leaf capacity a·lg n, a = {A}, k = {K}, under the pessimistic model (a congested channel loses all its messages), the model of the proof. 2z* uses z* = the smallest power of 2 above e·2^((k+2)/a)·λ(M). The verdict holds when the fraction of trials over 2z* is at most the theorem's failure bound (4n − 2)·z*·n^−(k+2) (always when every trial is within)."),
            "Fig. 8 rows also check §6's per-wire bound, exactly rather than by simulation: with p = 1/(rλ), r = 4e·lg n, a wire of channel c is used by some message of a p-subset with probability 1 − (1 − p/cap(c))^load(M,c); the largest over all channels must be ≤ e·p·λ(M) = 1/(4 lg n). A size row's verdict holds when this bound holds, every trial finished and none used fewer than ⌈λ⌉ cycles.".into(),
        ]
    }

    fn summary_cells(&self, _effort: Effort, rows: &[Row]) -> Result<Vec<Cell>, ReproError> {
        Ok(FAMILIES
            .into_iter()
            .filter_map(|family| {
                let of_family: Vec<&Row> = rows
                    .iter()
                    .filter(|r| r.part == Part::Figure8 && r.family == family)
                    .collect();
                trend_cell(family, &of_family)
            })
            .collect())
    }
}
