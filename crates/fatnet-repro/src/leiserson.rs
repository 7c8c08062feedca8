//! Leiserson, "Fat-Trees" (paper 004): the off-line schedulers against their theorems.
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

use crate::{Cell, Effort, Experiment, Paper, ReproError, Table, Verdict, derive_seed};

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

fn err(message: String) -> ReproError {
    ReproError::Experiment {
        experiment: "leiserson/schedules".into(),
        message,
    }
}

fn cell(
    n: u64,
    traffic: &str,
    algorithm: &str,
    tree: &str,
    s: &LeisersonSchedule,
    verified: bool,
    paper_bound: (String, f64),
) -> Cell {
    let cycles = s.cycles() as u64;
    let lambda = s.load_factor.value();
    let within = verified && cycles <= s.bound && (cycles as f64) <= paper_bound.1 + 1e-9;
    Cell {
        key: vec![
            format!("2^{}", n.trailing_zeros()),
            traffic.to_string(),
            algorithm.to_string(),
            tree.to_string(),
        ],
        paper: Some(paper_bound.0),
        ours: cycles.to_string(),
        detail: format!(
            "λ = {lambda:.3}, ⌈λ⌉ = {}, cycles/λ = {:.2}, proof bound {}{}",
            s.lower_bound,
            if lambda > 0.0 {
                cycles as f64 / lambda
            } else {
                0.0
            },
            s.bound,
            if verified {
                ", verified"
            } else {
                ", NOT verified"
            },
        ),
        verdict: if within {
            Verdict::WithinBound
        } else {
            Verdict::BoundViolated
        },
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
        let mut cells = Vec::new();
        let mut row = 0u64;
        for &levels in Self::sizes(effort) {
            let n = 1u64 << levels;
            let w = 1u64 << (2 * levels).div_ceil(3);
            let universal = FatTree::universal(n, w).map_err(|e| err(e.to_string()))?;
            let area = FatTree::new(
                n,
                CapacityProfile::Area {
                    leaf: 2 * u64::from(levels),
                    growth: AreaGrowth::Smooth,
                },
            )
            .map_err(|e| err(e.to_string()))?;
            for family in FAMILIES {
                let spec: TrafficSpec = family.parse().map_err(|e| err(format!("{e}")))?;
                let m = spec
                    .generate(n as u32, derive_seed(SEED, row))
                    .map_err(|e| err(format!("{family}: {e}")))?;
                row += 1;
                let t1 = theorem1(&universal, &m).map_err(|e| err(e.to_string()))?;
                let ok1 = t1.schedule.verify(&universal, &m).is_ok();
                let l = t1.load_factor.value();
                let b1 = (2.0 * l * f64::from(levels)).max(1.0);
                cells.push(cell(
                    n,
                    family,
                    "Theorem 1",
                    &format!("universal w={w}"),
                    &t1,
                    ok1,
                    (format!("≤ 2λ lg n = {b1:.1}"), b1),
                ));
                let c2 = corollary2(&area, &m, FictitiousCapacity::LgN)
                    .map_err(|e| err(e.to_string()))?;
                let ok2 = c2.schedule.verify(&area, &m).is_ok();
                let a = c2.capacity_ratio.unwrap_or(f64::NAN);
                let b2 = (2.0 * a / (a - 1.0) * c2.load_factor.value()).max(1.0);
                cells.push(cell(
                    n,
                    family,
                    "Corollary 2",
                    &format!("area leaf={}", 2 * levels),
                    &c2,
                    ok2,
                    (format!("≤ 2(a/(a−1))λ = {b2:.1}"), b2),
                ));
            }
        }
        Ok(Table {
            paper: Paper::Leiserson,
            id: "schedules",
            title: "Leiserson, Theorem 1 and Corollary 2: delivery cycles of the off-line schedulers".into(),
            key_columns: vec!["n".into(), "traffic".into(), "algorithm".into(), "tree".into()],
            detail_column: "λ(M), cycles/λ, the proof's integer bound".into(),
            cells,
            notes: vec![
                "The paper prints no numbers; the \"paper\" column is the theorem's bound for the instance (Theorem 1: 2λ lg n; Corollary 2: 2(a/(a−1))λ with a = min cap / lg n = 2 here, i.e. 4λ), and \"ours\" is the number of cycles of our schedule, which is verified (every message once, no channel over capacity in any cycle).".into(),
                "The proof's integer bound is lg n · 2^⌈lg λ⌉ for Theorem 1 and 2^⌈lg λ'⌉ for Corollary 2 (λ' for the fictitious capacities cap − lg n).".into(),
                "Random patterns are drawn from seed 2026 with one derived seed per row; permutations are uniform, `replicated:k=K` is K independent permutations, `uniform` excludes self-messages, `mesh` is the √n×√n mesh in Morton order.".into(),
            ],
        })
    }
}
