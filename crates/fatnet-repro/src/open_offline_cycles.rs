//! Open question of Greenberg & Leiserson, *Randomized routing on fat-trees* (1986), §6
//! "Off-line routing": is every message set deliverable off-line in `O(λ + lg n)` delivery
//! cycles? (Their RANDOM proves `O(λ + lg n lg lg n)` schedules exist; Leiserson, *Fat-Trees*
//! (1985), Theorem 1, constructs `O(λ lg n)`.)
//!
//! On small fat-trees we compute the **exact** minimum number of cycles
//! (`fatnet_offline::optimal::min_cycles`: branch and bound, every schedule verified, every
//! optimum proved by `⌈λ⌉` or by an exhausted search for one cycle fewer) and put it beside
//! `⌈λ⌉`, `lg n`, `λ + lg n` and Leiserson's Theorem 1 schedule, over random families
//! (permutations, uniform random sets of several densities, sets crossing the root) and
//! adversarial ones (Theorem 9's GREEDY adversary sent across the root, and a local search
//! that maximises optimum − ⌈λ⌉). Small trees say nothing asymptotic: the table is data for
//! the conjecture, not a test of it.
//!
//! What is checked (verdicts): the optimum is at least `⌈λ⌉` (the load-factor lower bound of
//! both papers) and at most Leiserson's Theorem 1 count (his schedule is a schedule); the
//! ratios found are reported as "not in paper".
//!
//! Choices of this experiment: "random d" is `d·n` messages with uniform source and uniform
//! destination other than the source; "root-crossing d" is `d·n` messages from a uniform
//! source of the left half to a uniform destination of the right half; Theorem 9's adversary
//! routes out of the root, which an off-line schedule between processors cannot, so its
//! message from `p` goes to `p + n/2 mod n` (the mirror processor across the root); the local
//! search starts from a random set of `2n` messages and replaces one message at a time by a
//! uniform pair, keeping the change when (optimum − ⌈λ⌉, channels loaded to exactly
//! ⌈λ⌉·cap, optimum/(λ + lg n)) does not decrease (lexicographically).

use fatnet::load::fat_tree_loads;
use fatnet::offline::OfflineError;
use fatnet::offline::leiserson::theorem1;
use fatnet::offline::optimal::{ExactConfig, ExactSchedule, Optimality, min_cycles};
use fatnet::online::{DropPolicy, greedy_adversary};
use fatnet::topology::{AreaGrowth, CapacityProfile, ChannelId, FatTree, Topology};
use fatnet::traffic::{Message, MessageSet, patterns};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

use crate::cell::{field, fixed, int};
use crate::runner::try_run_trials;
use crate::{
    Cell, Effort, Experiment, ExperimentId, Frame, Paper, ReproError, Table, Tabular, Verdict,
    derive_seed, detail, tabulate,
};

/// Master seed.
pub const SEED: u64 = 1989;

/// The search limits of every instance (nodes per instance; the refusal before search).
pub const LIMITS: ExactConfig = ExactConfig {
    max_nodes: 200_000,
    max_search_bits: 200,
};

/// Exact minimum delivery cycles against ⌈λ⌉, lg n and Leiserson's schedules.
#[derive(Clone, Copy, Debug, Default)]
pub struct OfflineCycles;

/// The experiment, as its errors name it.
const EXPERIMENT: ExperimentId = ExperimentId::new(Paper::OpenQuestions, "offline_cycles");

/// The trees of the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TreeKind {
    /// Every capacity 1.
    Unit,
    /// Greenberg–Leiserson's standard tree, `2^⌈h/2⌉`.
    Standard,
    /// Area-universal, doubling every two levels, `2^⌊h/2⌋`.
    Area,
}

impl TreeKind {
    fn name(self) -> &'static str {
        match self {
            TreeKind::Unit => "unit",
            TreeKind::Standard => "standard",
            TreeKind::Area => "area ⌊h/2⌋",
        }
    }

    fn tree(self, n: u32) -> Result<FatTree, ReproError> {
        let profile = match self {
            TreeKind::Unit => CapacityProfile::Constant(1),
            TreeKind::Standard => CapacityProfile::Standard,
            TreeKind::Area => CapacityProfile::Area {
                leaf: 1,
                growth: AreaGrowth::Stepped,
            },
        };
        FatTree::new(u64::from(n), profile).map_err(|e| EXPERIMENT.error(e))
    }
}

/// The message-set families.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    /// A uniform random permutation.
    Permutation,
    /// `d·n` uniform messages, source ≠ destination.
    Random(u32),
    /// `d·n` messages from the left half to the right half.
    RootCrossing(u32),
    /// Theorem 9's adversary (λ = 12) against the policy, sent across the root.
    Adversary(DropPolicy),
    /// Local search for a large optimum − ⌈λ⌉, `steps` replacements per start.
    LocalSearch {
        /// Replacements tried per start.
        steps: u32,
    },
}

impl Family {
    fn name(self) -> String {
        match self {
            Family::Permutation => "permutation".into(),
            Family::Random(d) => format!("random d={d}"),
            Family::RootCrossing(d) => format!("root-crossing d={d}"),
            Family::Adversary(p) => format!("Theorem 9 adversary ({p}), λ=12"),
            Family::LocalSearch { steps } => format!("local search ({steps} steps)"),
        }
    }

    fn draw(self, n: u32, rng: &mut Pcg64) -> Result<MessageSet, ReproError> {
        let pairs: Vec<Message> = match self {
            Family::Permutation => {
                return patterns::random_permutation(n, rng).map_err(|e| EXPERIMENT.error(e));
            }
            Family::Random(d) => (0..d * n).map(|_| uniform_pair(n, rng)).collect(),
            Family::LocalSearch { .. } => (0..2 * n).map(|_| uniform_pair(n, rng)).collect(),
            Family::RootCrossing(d) => (0..d * n)
                .map(|_| Message::new(rng.random_range(0..n / 2), rng.random_range(n / 2..n)))
                .collect(),
            Family::Adversary(p) => {
                let m = greedy_adversary(n, 12, p).map_err(|e| EXPERIMENT.error(e))?;
                m.messages()
                    .iter()
                    .map(|x| Message::new(x.src, (x.src + n / 2) % n))
                    .collect()
            }
        };
        MessageSet::new(n, pairs).map_err(|e| EXPERIMENT.error(e))
    }
}

fn uniform_pair(n: u32, rng: &mut Pcg64) -> Message {
    let src = rng.random_range(0..n);
    let dst = (src + rng.random_range(1..n)) % n;
    Message::new(src, dst)
}

/// One row of the table: a family on a tree, over a number of instances.
#[derive(Clone, Copy, Debug)]
pub struct Spec {
    /// The tree.
    pub tree: TreeKind,
    /// Processors.
    pub n: u32,
    /// The family.
    pub family: Family,
    /// Instances (starts, for the local search).
    pub instances: u64,
}

impl OfflineCycles {
    /// The rows.
    pub fn specs(effort: Effort) -> Vec<Spec> {
        let (k, steps) = match effort {
            Effort::Full => (60, 250),
            Effort::Quick => (8, 30),
        };
        let s = |tree, n, family, instances| Spec {
            tree,
            n,
            family,
            instances,
        };
        use Family::*;
        use TreeKind::*;
        vec![
            s(Unit, 4, Permutation, k),
            s(Unit, 4, Random(2), k),
            s(Unit, 4, Random(4), k),
            s(Unit, 8, Permutation, k),
            s(Unit, 8, Random(1), k),
            s(Unit, 8, Random(2), k),
            s(Unit, 8, RootCrossing(1), k),
            s(Unit, 8, LocalSearch { steps }, 8),
            s(Unit, 16, Random(1), k),
            s(Unit, 16, Random(2), k),
            s(Unit, 16, LocalSearch { steps }, 4),
            s(Area, 8, Random(3), k),
            s(Area, 8, RootCrossing(2), k),
            s(Standard, 4, Adversary(DropPolicy::FixedPriority), 1),
            s(Standard, 4, Adversary(DropPolicy::RoundRobin), 1),
            s(Standard, 16, Permutation, k),
            s(Standard, 16, Random(1), k),
            s(Standard, 16, Adversary(DropPolicy::FixedPriority), 1),
        ]
    }
}

/// One solved instance.
#[derive(Clone, Debug)]
pub struct Solved {
    /// The message set.
    pub messages: MessageSet,
    /// The exact schedule.
    pub exact: ExactSchedule,
    /// Cycles of Leiserson's Theorem 1 schedule.
    pub leiserson: u64,
    /// Whether the exact schedule verified.
    pub verified: bool,
}

impl Solved {
    /// The optimum.
    pub fn optimum(&self) -> u64 {
        self.exact.cycles()
    }

    /// optimum − max(⌈λ⌉, 1): how far the optimum sits above the lower bound.
    pub fn gap(&self) -> u64 {
        self.optimum() - self.exact.lower_bound.min(self.optimum())
    }

    /// optimum / (λ + lg n).
    pub fn ratio(&self, lg_n: u32) -> f64 {
        self.optimum() as f64 / (self.exact.load_factor.value() + f64::from(lg_n))
    }
}

/// One computed row.
#[derive(Clone, Debug)]
pub struct Row {
    /// What was run.
    pub spec: Spec,
    /// The solved instances (the local search: the best set of each start).
    pub solved: Vec<Solved>,
    /// Instances (or local-search candidates) that ran out of the node budget.
    pub unsolved: u64,
}

fn solve(tree: &FatTree, m: MessageSet) -> Result<Option<Solved>, ReproError> {
    let exact = match min_cycles(tree, &m, LIMITS) {
        Ok(e) => e,
        Err(OfflineError::SearchBudgetExceeded { .. } | OfflineError::SearchTooLarge { .. }) => {
            return Ok(None);
        }
        Err(e) => return Err(EXPERIMENT.error(e)),
    };
    let leiserson = theorem1(tree, &m)
        .map_err(|e| EXPERIMENT.error(e))?
        .cycles() as u64;
    let verified = exact.schedule.verify(tree, &m).is_ok();
    Ok(Some(Solved {
        messages: m,
        exact,
        leiserson,
        verified,
    }))
}

/// `(gap, tight channels, ratio)`, compared lexicographically: first optimum − ⌈λ⌉, then the
/// number of channels loaded to exactly `⌈λ⌉·cap` (several saturated channels that share
/// messages are where a gap can appear), then optimum/(λ + lg n).
fn score(tree: &FatTree, s: &Solved, lg_n: u32) -> Result<(u64, u64, f64), ReproError> {
    let loads = fat_tree_loads(tree, &s.messages).map_err(|e| EXPERIMENT.error(e))?;
    let ceil = s.exact.load_factor.ceil();
    let tight = loads
        .per_channel
        .iter()
        .enumerate()
        .filter(|&(c, &l)| l > 0 && l == ceil * tree.channel(ChannelId(c as u32)).capacity)
        .count() as u64;
    Ok((s.gap(), tight, s.ratio(lg_n)))
}

fn local_search(
    tree: &FatTree,
    n: u32,
    steps: u32,
    seed: u64,
) -> Result<(Option<Solved>, u64), ReproError> {
    let mut rng = Pcg64::seed_from_u64(seed);
    let lg_n = n.trailing_zeros();
    let mut unsolved = 0;
    let mut current = loop {
        let m = Family::LocalSearch { steps }.draw(n, &mut rng)?;
        match solve(tree, m)? {
            Some(s) => break s,
            None => unsolved += 1,
        }
        if unsolved > 100 {
            return Ok((None, unsolved));
        }
    };
    for _ in 0..steps {
        let mut pairs = current.messages.messages().to_vec();
        let i = rng.random_range(0..pairs.len());
        pairs[i] = uniform_pair(n, &mut rng);
        let m = MessageSet::new(n, pairs).map_err(|e| EXPERIMENT.error(e))?;
        match solve(tree, m)? {
            Some(s) => {
                let (a, b) = (score(tree, &s, lg_n)?, score(tree, &current, lg_n)?);
                if (a.0, a.1) > (b.0, b.1) || ((a.0, a.1) == (b.0, b.1) && a.2 >= b.2) {
                    current = s;
                }
            }
            None => unsolved += 1,
        }
    }
    Ok((Some(current), unsolved))
}

impl Experiment for OfflineCycles {
    fn paper(&self) -> Paper {
        Paper::OpenQuestions
    }

    fn id(&self) -> &'static str {
        "offline_cycles"
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

fn pairs_text(m: &MessageSet) -> String {
    m.messages()
        .iter()
        .map(|x| format!("{}->{}", x.src, x.dst))
        .collect::<Vec<_>>()
        .join(" ")
}

fn proof_text(e: &ExactSchedule) -> String {
    match e.proof {
        Optimality::LowerBoundMet { lower_bound } => format!("= ⌈λ⌉ = {lower_bound}"),
        Optimality::Exhausted { cycles, nodes } => {
            format!("{cycles} cycles exhausted in {nodes} nodes")
        }
    }
}

/// The instance of a row with the largest optimum/(λ + lg n) (ties: the first).
fn worst(row: &Row) -> Option<&Solved> {
    let lg_n = row.spec.n.trailing_zeros();
    row.solved
        .iter()
        .fold(None, |best: Option<&Solved>, s| match best {
            Some(b) if b.ratio(lg_n) >= s.ratio(lg_n) => Some(b),
            _ => Some(s),
        })
}

impl Tabular for OfflineCycles {
    type Row = Row;

    fn frame(&self) -> Frame {
        Frame {
            title: "Open question (Greenberg–Leiserson §6): exact minimum delivery cycles vs ⌈λ⌉, λ + lg n and Leiserson's schedule".into(),
            key_columns: vec!["tree".into(), "n".into(), "family".into(), "claim".into()],
            detail_column: "instances / worst instance".into(),
        }
    }

    fn compute(&self, effort: Effort) -> Result<Vec<Row>, ReproError> {
        let mut rows = Vec::new();
        for (r, spec) in Self::specs(effort).into_iter().enumerate() {
            let tree = spec.tree.tree(spec.n)?;
            let seed = derive_seed(SEED, r as u64);
            let outcomes = try_run_trials(seed, spec.instances, |_, s| {
                if let Family::LocalSearch { steps } = spec.family {
                    return local_search(&tree, spec.n, steps, s);
                }
                let mut rng = Pcg64::seed_from_u64(s);
                let m = spec.family.draw(spec.n, &mut rng)?;
                let solved = solve(&tree, m)?;
                let unsolved = u64::from(solved.is_none());
                Ok((solved, unsolved))
            })
            .map_err(|e| EXPERIMENT.error(e))??;
            let unsolved = outcomes.iter().map(|o| o.1).sum();
            let solved = outcomes.into_iter().filter_map(|o| o.0).collect();
            rows.push(Row {
                spec,
                solved,
                unsolved,
            });
        }
        Ok(rows)
    }

    fn cells(&self, row: &Row) -> Vec<Cell> {
        let Spec {
            tree, n, family, ..
        } = row.spec;
        let lg_n = n.trailing_zeros();
        let key = |claim: &str| {
            vec![
                tree.name().into(),
                int(n),
                family.name().into(),
                claim.into(),
            ]
        };
        let solved = &row.solved;
        let count = solved.len() as u64;
        let at_lambda = solved.iter().filter(|s| s.gap() == 0).count() as u64;
        // The lower bound of the solver is max(⌈λ⌉, 1) for a non-empty set.
        let max_gap = solved.iter().map(Solved::gap).max().unwrap_or(0);
        let ok = !solved.is_empty()
            && solved.iter().all(|s| {
                s.verified
                    && s.optimum() >= s.exact.load_factor.ceil()
                    && s.optimum() <= s.leiserson
            });
        let mean =
            |f: &dyn Fn(&Solved) -> f64| solved.iter().map(f).sum::<f64>() / (count.max(1) as f64);
        let max_nodes = solved.iter().map(|s| s.exact.nodes).max().unwrap_or(0);
        let bounds = Cell {
            key: key("⌈λ⌉ ≤ optimum ≤ Leiserson"),
            paper: Some("λ lower bound; Theorem 1 schedule".into()),
            ours: detail![int(at_lambda), " of ", int(count), " at ⌈λ⌉"].into(),
            detail: detail![
                field("max optimum − ⌈λ⌉", max_gap),
                ", mean ",
                field("optimum", fixed(mean(&|s| s.optimum() as f64), 2)),
                ", ",
                field(
                    "⌈λ⌉",
                    fixed(mean(&|s| s.exact.load_factor.ceil() as f64), 2)
                ),
                ", ",
                field("Leiserson", fixed(mean(&|s| s.leiserson as f64), 2)),
                ", ",
                field("max nodes", max_nodes),
                ", ",
                field("unsolved", row.unsolved),
            ],
            verdict: Verdict::bound(ok),
            note: String::new(),
        };
        let mut cells = vec![bounds];
        if let Some(w) = worst(row) {
            let lam = w.exact.load_factor.value();
            cells.push(Cell {
                key: key("max optimum/(λ + lg n)"),
                paper: Some("O(λ + lg n) conjectured".into()),
                ours: fixed(w.ratio(lg_n), 3),
                detail: detail![
                    field("optimum", w.optimum()),
                    ", ",
                    field("λ", fixed(lam, 3)),
                    ", ",
                    field("⌈λ⌉", w.exact.load_factor.ceil()),
                    ", ",
                    field("lg n", lg_n),
                    ", ",
                    field("λ + lg n", fixed(lam + f64::from(lg_n), 3)),
                    ", ",
                    field("Leiserson", w.leiserson),
                    ", ",
                    field("|M|", w.messages.len()),
                    ", proof: ",
                    proof_text(&w.exact),
                ],
                verdict: Verdict::NotInPaper,
                note: String::new(),
            });
        }
        cells
    }

    fn summary_cells(&self, _effort: Effort, rows: &[Row]) -> Result<Vec<Cell>, ReproError> {
        let best = rows
            .iter()
            .filter_map(|r| worst(r).map(|w| (r, w, w.ratio(r.spec.n.trailing_zeros()))))
            .fold(None, |b: Option<(&Row, &Solved, f64)>, x| match b {
                Some(b) if b.2 >= x.2 => Some(b),
                _ => Some(x),
            });
        let Some((row, w, ratio)) = best else {
            return Err(EXPERIMENT.failed("no instance solved"));
        };
        let gap = rows
            .iter()
            .flat_map(|r| r.solved.iter().map(Solved::gap))
            .max()
            .unwrap_or(0);
        Ok(vec![Cell {
            key: vec![
                "all".into(),
                int(row.spec.n),
                row.spec.family.name().into(),
                "largest optimum/(λ + lg n)".into(),
            ],
            paper: Some("O(λ + lg n) conjectured".into()),
            ours: fixed(ratio, 3),
            detail: detail![
                "on ",
                row.spec.tree.name(),
                ": ",
                field("optimum", w.optimum()),
                ", ",
                field("λ", fixed(w.exact.load_factor.value(), 3)),
                ", ",
                field("largest optimum − ⌈λ⌉ of the table", gap),
            ],
            verdict: Verdict::NotInPaper,
            note: String::new(),
        }])
    }

    fn notes(&self, effort: Effort, rows: &[Row], _cells: &[Cell]) -> Vec<String> {
        let mut notes = vec![
            "A schedule partitions M into one-cycle sets (load ≤ cap on every channel; Leiserson §III, Greenberg–Leiserson's delivery cycle with ideal concentrators). The optimum is computed by `fatnet_offline::optimal::min_cycles` (branch and bound over (src, dst) types with interchangeable cycles; every schedule re-checked by `Schedule::verify`); it is proved either by meeting ⌈λ⌉ or by an exhausted search for one cycle fewer, whose node count the detail column gives.".into(),
            format!(
                "Search bounds: at most {} nodes per instance, search spaces up to 2^{} (the refusal before search); an instance over them counts as unsolved and is left out of the row. Instances per row: {} ({} local-search starts).",
                LIMITS.max_nodes,
                LIMITS.max_search_bits,
                Self::specs(effort).first().map_or(0, |s| s.instances),
                Self::specs(effort)
                    .iter()
                    .find(|s| matches!(s.family, Family::LocalSearch { .. }))
                    .map_or(0, |s| s.instances),
            ),
            "Trees: unit = every capacity 1; standard = 2^⌈h/2⌉ (Greenberg–Leiserson §5); area ⌊h/2⌋ = 2^⌊h/2⌋. Families: random d = d·n uniform pairs with source ≠ destination; root-crossing d = d·n pairs from the left half to the right half; Theorem 9's adversary (built against the named switches by `fatnet_online::greedy_adversary`) routes out of the root, so here its message from p goes to p + n/2 mod n; the local search starts from 2n uniform pairs and replaces one pair per step, keeping the change when (optimum − ⌈λ⌉, channels loaded to exactly ⌈λ⌉·cap, optimum/(λ + lg n)) does not decrease (lexicographically).".into(),
            "Verdicts: the first cell of a row checks ⌈λ⌉ ≤ optimum ≤ Leiserson's Theorem 1 count on every instance (a bound of the papers); the ratios are our findings (not in paper). Trees this small cannot confirm or refute an asymptotic conjecture: the data only show how far the optimum sits above ⌈λ⌉ here.".into(),
        ];
        let best = rows
            .iter()
            .filter_map(|r| worst(r).map(|w| (r, w, w.ratio(r.spec.n.trailing_zeros()))))
            .fold(None, |b: Option<(&Row, &Solved, f64)>, x| match b {
                Some(b) if b.2 >= x.2 => Some(b),
                _ => Some(x),
            });
        if let Some((row, w, ratio)) = best {
            notes.push(format!(
                "Largest optimum/(λ + lg n) found: {ratio:.3} on the {} tree, n = {}, {} (optimum {}, λ = {}/{}, Leiserson {}, proof: {}); the instance: {}.",
                row.spec.tree.name(),
                row.spec.n,
                row.spec.family.name(),
                w.optimum(),
                w.exact.load_factor.load,
                w.exact.load_factor.capacity,
                w.leiserson,
                proof_text(&w.exact),
                pairs_text(&w.messages),
            ));
        }
        let gapped = rows
            .iter()
            .flat_map(|r| r.solved.iter().map(move |s| (r, s)))
            .fold(None, |b: Option<(&Row, &Solved)>, x| match b {
                Some(b) if b.1.gap() >= x.1.gap() => Some(b),
                _ => Some(x),
            });
        if let Some((row, s)) = gapped.filter(|(_, s)| s.gap() > 0) {
            notes.push(format!(
                "Largest optimum − ⌈λ⌉ found: {} on the {} tree, n = {}, {} (optimum {}, ⌈λ⌉ = {}, proof: {}); the instance: {}.",
                s.gap(),
                row.spec.tree.name(),
                row.spec.n,
                row.spec.family.name(),
                s.optimum(),
                s.exact.load_factor.ceil(),
                proof_text(&s.exact),
                pairs_text(&s.messages),
            ));
        } else {
            notes.push("No instance of the table needs more than ⌈λ⌉ cycles.".into());
        }
        notes
    }
}
