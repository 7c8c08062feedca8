//! Greenberg & Leiserson, *Randomized routing on fat-trees* (1986), Lemmas 5 and 6: congestion and
//! delivery probabilities of a p-subset.
//!
//! Lemma 5: if `M′` is a p-subset of `M` and `m ∈ M′` uses channel `c`, then `c` is congested
//! with probability at most `(e·p·λ(M))^cap(c)`; exactly, it is `B(cap, load − 1, p)` (at least
//! `cap` of the other messages through `c` are chosen). Lemma 6: with `p ≤ 1/(r·λ(M))`, `r` the
//! tree's congestion parameter, every message is delivered with probability at least `p/2`.
//!
//! Per row (a tree and a message set) this experiment
//! - evaluates the Lemma 5 ratio exact/bound on every loaded channel and reports the largest
//!   (the lemma says ≤ 1);
//! - sends `p`-subsets of `M` with `p = 1/(r·λ)` for many independent cycles (the whole set every
//!   time: Lemma 6 is about one cycle) under the pessimistic analysis model and under greedy
//!   random-drop switches, counts each message's deliveries, and reports the smallest
//!   per-message delivery rate with its 95% Wilson interval against `p/2`. The verdict is
//!   "bound violated" only if that interval lies entirely below `p/2`.

use fatnet::load::{LoadReport, fat_tree_loads};
use fatnet::online::{DeliveryEngine, DropPolicy};
use fatnet::queueing::greenberg_leiserson::{
    congestion_bound, congestion_parameter, congestion_probability,
};
use fatnet::topology::{ChannelId, Topology, TopologySpec};
use fatnet::traffic::TrafficSpec;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

use crate::cell::{field, fixed};
use crate::runner::Proportion;
use crate::{
    Cell, Effort, Experiment, ExperimentId, Frame, Paper, ReproError, Table, Tabular, Verdict,
    derive_seed, detail, tabulate,
};

/// Master seed.
pub const SEED: u64 = 6;

const TREES: [&str; 4] = [
    "fattree:n=16,profile=standard",
    "fattree:n=64,profile=standard",
    "fattree:n=64,profile=area",
    "fattree:n=256,profile=volume",
];
const TRAFFIC: [&str; 3] = ["replicated:k=4", "uniform", "many-to-one"];

/// Lemma 5's bound and Lemma 6's per-message delivery probability, measured.
#[derive(Clone, Copy, Debug, Default)]
pub struct DeliveryProbability;

/// The experiment, as its errors name it.
const EXPERIMENT: ExperimentId = ExperimentId::new(Paper::GreenbergLeiserson, "lemma6");

impl Experiment for DeliveryProbability {
    fn paper(&self) -> Paper {
        Paper::GreenbergLeiserson
    }

    fn id(&self) -> &'static str {
        "lemma6"
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

/// One computed row: Lemma 5 on every loaded channel and Lemma 6 under both switch policies,
/// for one tree and traffic family.
#[derive(Debug)]
pub struct Measured {
    spec: &'static str,
    family: &'static str,
    /// `p = 1/(rλ)`, `r` and `λ`.
    p: f64,
    r: f64,
    lambda: f64,
    /// Largest exact / bound over the loaded channels.
    worst: f64,
    /// Per policy: the least-delivered message, its delivery proportion, the mean rate.
    lemma6: Vec<(DropPolicy, usize, Proportion, f64)>,
    cycles: u64,
}

impl Tabular for DeliveryProbability {
    type Row = Measured;

    fn frame(&self) -> Frame {
        Frame {
            title: "Greenberg–Leiserson, Lemmas 5 and 6: congestion and delivery probabilities of a p-subset with p = 1/(rλ)".into(),
            key_columns: vec!["tree".into(), "traffic".into(), "quantity".into()],
            detail_column: "p, r, λ; interval".into(),
        }
    }

    fn cells(&self, row: &Measured) -> Vec<Cell> {
        let &Measured {
            spec,
            family,
            p,
            r,
            lambda,
            worst,
            cycles,
            ..
        } = row;
        let key = |what: &str| vec![spec.into(), family.into(), what.into()];
        let mut cells = vec![Cell {
            key: key("Lemma 5: max over channels of exact / (e·p·λ)^cap"),
            paper: Some("≤ 1".into()),
            ours: fixed(worst, 4),
            detail: detail![
                field("p = 1/(rλ)", fixed(p, 5)),
                ", ",
                field("r", fixed(r, 3)),
                ", ",
                field("λ", fixed(lambda, 3)),
            ],
            verdict: Verdict::bound(worst <= 1.0 + 1e-12),
            note: String::new(),
        }];
        for (policy, argmin, prop, mean) in &row.lemma6 {
            let high = prop.wilson95_high.unwrap_or(f64::NAN);
            cells.push(Cell {
                key: key(&format!(
                    "Lemma 6: min per-message delivery rate ({policy:?})"
                )),
                paper: Some(detail!["≥ p/2 = ", fixed(p / 2.0, 5)].into()),
                ours: fixed(prop.estimate.unwrap_or(f64::NAN), 5),
                detail: detail![
                    "message ",
                    *argmin,
                    ": 95% Wilson [",
                    fixed(prop.wilson95_low.unwrap_or(f64::NAN), 5),
                    ", ",
                    fixed(high, 5),
                    "] over ",
                    cycles,
                    " cycles; mean over messages ",
                    fixed(*mean, 5),
                    " (",
                    field("p", fixed(p, 5)),
                    ")",
                ],
                verdict: Verdict::bound(high >= p / 2.0),
                note: String::new(),
            });
        }
        cells
    }

    fn compute(&self, effort: Effort) -> Result<Vec<Measured>, ReproError> {
        let cycles: u64 = match effort {
            Effort::Full => 40_000,
            Effort::Quick => 4_000,
        };
        let mut rows = Vec::new();
        let mut row = 0u64;
        for spec in TREES {
            let topo = spec
                .parse::<TopologySpec>()
                .map_err(|e| EXPERIMENT.error(e))?
                .build()
                .map_err(|e| EXPERIMENT.error(e))?;
            let tree = topo
                .as_fat_tree()
                .ok_or_else(|| EXPERIMENT.failed("not a fat-tree"))?;
            let r = congestion_parameter(tree.capacities()).map_err(|e| EXPERIMENT.error(e))?;
            for family in TRAFFIC {
                let m = family
                    .parse::<TrafficSpec>()
                    .map_err(|e| EXPERIMENT.error(e))?
                    .generate(tree.n(), derive_seed(SEED, row))
                    .map_err(|e| EXPERIMENT.error(e))?;
                let loads = fat_tree_loads(tree, &m).map_err(|e| EXPERIMENT.error(e))?;
                let lambda = LoadReport::for_fat_tree(tree, loads.clone())
                    .load_factor
                    .value();
                let p = (1.0 / (r * lambda)).min(1.0);
                // Lemma 5 on every loaded channel.
                let mut worst = 0.0f64;
                for (c, &load) in loads.per_channel.iter().enumerate() {
                    if load == 0 {
                        continue;
                    }
                    let cap = tree.channel(ChannelId(c as u32)).capacity;
                    let exact =
                        congestion_probability(load, cap, p).map_err(|e| EXPERIMENT.error(e))?;
                    let bound =
                        congestion_bound(p, lambda, cap).map_err(|e| EXPERIMENT.error(e))?;
                    if bound > 0.0 {
                        worst = worst.max(exact / bound);
                    }
                }
                let mut lemma6 = Vec::new();
                // Lemma 6, Monte Carlo.
                for policy in [DropPolicy::Pessimistic, DropPolicy::Random] {
                    let mut engine =
                        DeliveryEngine::new(tree, &m, policy).map_err(|e| EXPERIMENT.error(e))?;
                    let mut rng = Pcg64::seed_from_u64(derive_seed(SEED, 1_000_000 + row));
                    let mut count = vec![0u64; m.len()];
                    let (mut sent, mut delivered) = (Vec::new(), Vec::new());
                    for _ in 0..cycles {
                        sent.clear();
                        sent.extend((0..m.len() as u32).filter(|_| rng.random_bool(p)));
                        delivered.clear();
                        engine.cycle(&sent, &mut rng, &mut delivered);
                        for &x in &delivered {
                            count[x as usize] += 1;
                        }
                    }
                    let (argmin, &least) = count
                        .iter()
                        .enumerate()
                        .min_by_key(|&(i, &c)| (c, i))
                        .ok_or_else(|| EXPERIMENT.failed("empty message set"))?;
                    let prop = Proportion::from_counts(least, cycles)
                        .ok_or_else(|| EXPERIMENT.failed("counts"))?;
                    let mean = count.iter().sum::<u64>() as f64 / (m.len() as f64 * cycles as f64);
                    lemma6.push((policy, argmin, prop, mean));
                }
                rows.push(Measured {
                    spec,
                    family,
                    p,
                    r,
                    lambda,
                    worst,
                    lemma6,
                    cycles,
                });
                row += 1;
            }
        }
        Ok(rows)
    }

    fn notes(&self, _effort: Effort, _rows: &[Measured], _cells: &[Cell]) -> Vec<String> {
        vec![
                "r is the tree's congestion parameter (the smallest r with Σ_path (e/r)^cap ≤ 1/2 over all paths), computed by fatnet-queueing; the standard tree uses capacities 2^⌈h/2⌉.".into(),
                "Lemma 5's exact value is B(cap, load − 1, p): the probability that at least cap of the other messages through the channel are sent.".into(),
                "Lemma 6 is tested under the pessimistic model (the lemma's) and greedy random-drop switches (which deliver a superset). A row is \"bound violated\" only if the 95% Wilson interval of the least-delivered message lies entirely below p/2; the minimum over many messages is biased low, so this is conservative towards finding violations.".into(),
        ]
    }
}
