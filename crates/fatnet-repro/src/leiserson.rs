//! Leiserson, *Fat-Trees* (1985): the off-line schedulers against their theorems.
//!
//! The paper prints no table; its results are bounds. Theorem 1: a message set of load factor
//! λ(M) is delivered in `O(λ(M) lg n)` cycles — the proof gives at most
//! `lg n · 2^⌈lg λ⌉ < 2λ lg n`. Corollary 2: with capacities `≥ a·lg n`, at most
//! `2^⌈lg λ'⌉ < 2(a/(a−1))λ` cycles (`4λ` for `a = 2`). This experiment runs both schedulers
//! on several traffic families and sizes, verifies every schedule, and reports the cycles
//! next to ⌈λ⌉ (the lower bound) and to the bound; the verdict says whether the bound holds.
//!
//! Trees (choices of this experiment, not of the paper):
//! - Theorem 1 on Leiserson's universal fat-tree with root capacity `w = 2^⌈2 lg n / 3⌉`, the
//!   power of two at or above `n^(2/3)`;
//! - Corollary 2 on the area-universal tree (×√2 per level) with leaf capacity `2 lg n`,
//!   so `a = 2` and the paper's bound is `4λ`.

use fatnet::offline::leiserson::{FictitiousCapacity, LeisersonSchedule, corollary2, theorem1};
use fatnet::topology::{AreaGrowth, CapacityProfile, FatTree};
use fatnet::traffic::TrafficSpec;

use crate::cell::{field, fixed, int, power};
use crate::{
    Cell, Effort, Experiment, ExperimentId, Frame, Paper, ReproError, Table, Tabular, Verdict,
    derive_seed, detail, tabulate,
};

/// Master seed of the random traffic.
pub const SEED: u64 = 2026;

const FAMILIES: [&str; 9] = [
    "permutation",
    "complement",
    "bitrev",
    "transpose",
    "replicated:k=4",
    "replicated:k=16",
    "uniform",
    "mesh",
    "many-to-one",
];

/// Cycles of Leiserson's schedulers against Theorem 1 and Corollary 2.
#[derive(Clone, Copy, Debug, Default)]
pub struct Schedules;

impl Schedules {
    /// lg n of the rows.
    pub fn sizes(effort: Effort) -> &'static [u32] {
        match effort {
            Effort::Full => &[6, 8, 10, 12, 14],
            Effort::Quick => &[6, 8],
        }
    }
}

/// The experiment, as its errors name it.
const EXPERIMENT: ExperimentId = ExperimentId::new(Paper::Leiserson, "schedules");

/// One computed row: a verified schedule of one traffic family on one tree.
#[derive(Debug)]
pub struct Scheduled {
    n: u64,
    traffic: &'static str,
    algorithm: &'static str,
    tree: String,
    schedule: LeisersonSchedule,
    verified: bool,
    /// The theorem's bound for the instance, as printed and as a number.
    paper_bound: (String, f64),
}

fn cell(row: &Scheduled) -> Cell {
    let Scheduled {
        n,
        traffic,
        algorithm,
        ref tree,
        schedule: ref s,
        verified,
        ref paper_bound,
    } = *row;
    let cycles = s.cycles() as u64;
    let lambda = s.load_factor.value();
    let within = verified && cycles <= s.bound && (cycles as f64) <= paper_bound.1 + 1e-9;
    Cell {
        key: vec![
            power(2, n.trailing_zeros()),
            traffic.into(),
            algorithm.into(),
            tree.clone().into(),
        ],
        paper: Some(paper_bound.0.clone().into()),
        ours: cycles.into(),
        detail: detail![
            field("λ", fixed(lambda, 3)),
            ", ",
            field("⌈λ⌉", s.lower_bound),
            ", ",
            field(
                "cycles/λ",
                fixed(
                    if lambda > 0.0 {
                        cycles as f64 / lambda
                    } else {
                        0.0
                    },
                    2
                )
            ),
            ", proof bound ",
            int(s.bound),
            if verified {
                ", verified"
            } else {
                ", NOT verified"
            },
        ],
        verdict: Verdict::bound(within),
        note: String::new(),
    }
}

impl Experiment for Schedules {
    fn paper(&self) -> Paper {
        Paper::Leiserson
    }

    fn id(&self) -> &'static str {
        "schedules"
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

impl Tabular for Schedules {
    type Row = Scheduled;

    fn frame(&self) -> Frame {
        Frame {
            title:
                "Leiserson, Theorem 1 and Corollary 2: delivery cycles of the off-line schedulers"
                    .into(),
            key_columns: vec![
                "n".into(),
                "traffic".into(),
                "algorithm".into(),
                "tree".into(),
            ],
            detail_column: "λ(M), cycles/λ, the proof's integer bound".into(),
        }
    }

    fn cells(&self, row: &Scheduled) -> Vec<Cell> {
        vec![cell(row)]
    }

    fn compute(&self, effort: Effort) -> Result<Vec<Scheduled>, ReproError> {
        let mut rows = Vec::new();
        let mut row = 0u64;
        for &levels in Self::sizes(effort) {
            let n = 1u64 << levels;
            let w = 1u64 << (2 * levels).div_ceil(3);
            let universal = FatTree::universal(n, w).map_err(|e| EXPERIMENT.error(e))?;
            let area = FatTree::new(
                n,
                CapacityProfile::Area {
                    leaf: 2 * u64::from(levels),
                    growth: AreaGrowth::Smooth,
                },
            )
            .map_err(|e| EXPERIMENT.error(e))?;
            for family in FAMILIES {
                let spec: TrafficSpec = family.parse().map_err(|e| EXPERIMENT.error(e))?;
                let m = spec
                    .generate(n as u32, derive_seed(SEED, row))
                    .map_err(|e| EXPERIMENT.error_in(family, e))?;
                row += 1;
                let t1 = theorem1(&universal, &m).map_err(|e| EXPERIMENT.error(e))?;
                let ok1 = t1.schedule.verify(&universal, &m).is_ok();
                let l = t1.load_factor.value();
                let b1 = (2.0 * l * f64::from(levels)).max(1.0);
                rows.push(Scheduled {
                    n,
                    traffic: family,
                    algorithm: "Theorem 1",
                    tree: format!("universal w={w}"),
                    schedule: t1,
                    verified: ok1,
                    paper_bound: (format!("≤ 2λ lg n = {b1:.1}"), b1),
                });
                let c2 = corollary2(&area, &m, FictitiousCapacity::LgN)
                    .map_err(|e| EXPERIMENT.error(e))?;
                let ok2 = c2.schedule.verify(&area, &m).is_ok();
                let a = c2.capacity_ratio.unwrap_or(f64::NAN);
                let b2 = (2.0 * a / (a - 1.0) * c2.load_factor.value()).max(1.0);
                rows.push(Scheduled {
                    n,
                    traffic: family,
                    algorithm: "Corollary 2",
                    tree: format!("area leaf={}", 2 * levels),
                    schedule: c2,
                    verified: ok2,
                    paper_bound: (format!("≤ 2(a/(a−1))λ = {b2:.1}"), b2),
                });
            }
        }
        Ok(rows)
    }

    fn notes(&self, _effort: Effort, _rows: &[Scheduled], _cells: &[Cell]) -> Vec<String> {
        vec![
                "The paper prints no numbers; the \"paper\" column is the theorem's bound for the instance (Theorem 1: 2λ lg n; Corollary 2: 2(a/(a−1))λ with a = min cap / lg n = 2 here, i.e. 4λ), and \"ours\" is the number of cycles of our schedule, which is verified (every message once, no channel over capacity in any cycle).".into(),
                "The proof's integer bound is lg n · 2^⌈lg λ⌉ for Theorem 1 and 2^⌈lg λ'⌉ for Corollary 2 (λ' for the fictitious capacities cap − lg n).".into(),
                format!("Random patterns are drawn from seed {SEED} with one derived seed per row; permutations are uniform, `replicated:k=K` is K independent permutations, `uniform` excludes self-messages, `mesh` is the √n×√n mesh in Morton order."),
        ]
    }
}
