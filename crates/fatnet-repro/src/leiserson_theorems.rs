//! Leiserson, *Fat-Trees* (1985): Theorem 4 (the hardware of the universal fat-tree) and the
//! decomposition-tree results of §V (Lemma 6, Lemma 7, Theorem 8, Corollary 9), checked on
//! the networks and constructions of the library.
//!
//! The paper prints no table; its statements are counts, bounds and `O(·)` claims. Per
//! statement and instance family this experiment gives the statement's value or bound next to
//! ours:
//!
//! - **Theorem 4 and the definition of the universal fat-tree**, on `FatTree::universal(n, w)`
//!   for `w = ⌈n^(2/3)⌉, ⌈n^(5/6)⌉, n`: processors and switches counted by walking the built
//!   network's nodes; every channel capacity against the definition `min(⌈n/2^k⌉,
//!   ⌈w/2^(2k/3)⌉)` (checked as the defining inequalities of the ceiling, in integers); the
//!   doubling of capacities below level `3 lg(n/w)`; and the component count. The paper
//!   counts components only as `O(m)` per node of `m` incident wires, so ours is the number of
//!   wire ends at switches (`Σ_k 2^k (2cap_k + 4cap_{k+1})`), counted by walking every channel.
//!   The `O(·)` claims get the constant of the proof's own sums under this count: `4n` per
//!   level below `3 lg(n/w)` (the proof: "each level has about the same number"), and above
//!   it at most `C_top · n` with `C_top = (2 + 4·2^(−2/3))·2^(1/3)/(2^(1/3) − 1) + 12 ≈ 31.4`
//!   (the geometric series of the proof with `⌈x⌉ ≤ x + 1`, and `(n/w)³ ≤ n`). The volume
//!   `O((w lg(n/w))^(3/2))` rests on a layout the paper only cites (Leighton–Rosenberg) and is
//!   not counted.
//! - **Lemma 6** on random strings (and exhaustively on short ones), **Lemma 7** on random
//!   intervals, **Theorem 8 / Corollary 9** on random placements of processors on the `2^r`
//!   leaves of a decomposition tree, with `(w, α)` bandwidths (`α = ∛4`, Theorem 5's, and
//!   `α = 2`) and random non-negative ones; the constructions are
//!   `fatnet::offline::decomposition`'s.

use fatnet::offline::decomposition::{
    Piece, balance, corollary9_factor, interval_forest, split_pearls, theorem8_bandwidths,
};
use fatnet::topology::{ChannelId, FatTree, NodeId, NodeKind, Topology};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

use crate::cell::{field, fixed};
use crate::runner::run_trials;
use crate::{
    Cell, Detail, Effort, Experiment, ExperimentId, Frame, Paper, ReproError, Table, Tabular,
    Value, Verdict, derive_seed, detail, tabulate,
};

/// Master seed of the random instances.
pub const SEED: u64 = 1985;

/// The proof's constant for the levels above `3 lg(n/w)` under our count (module docs).
pub fn c_top() -> f64 {
    let c = 2f64.powf(1.0 / 3.0);
    (2.0 + 4.0 * 2f64.powf(-2.0 / 3.0)) * c / (c - 1.0) + 12.0
}

/// Theorem 4, Lemmas 6–7, Theorem 8 and Corollary 9 against the library.
#[derive(Clone, Copy, Debug, Default)]
pub struct Theorems;

/// The experiment, as its errors name it.
const EXPERIMENT: ExperimentId = ExperimentId::new(Paper::Leiserson, "theorems");

/// One compared claim.
#[derive(Debug)]
pub struct Claim {
    statement: &'static str,
    instance: String,
    quantity: String,
    paper: Value,
    ours: Value,
    detail: Detail,
    verdict: Verdict,
}

impl Theorems {
    /// `lg n` of Theorem 4's rows.
    pub fn theorem4_sizes(effort: Effort) -> &'static [u32] {
        match effort {
            Effort::Full => &[6, 9, 12, 15],
            Effort::Quick => &[6, 9, 12],
        }
    }

    /// `r` (the decomposition tree has `2^r` leaves) of Theorem 8's rows.
    pub fn theorem8_sizes(effort: Effort) -> &'static [u32] {
        match effort {
            Effort::Full => &[6, 9, 12],
            Effort::Quick => &[6, 10],
        }
    }

    /// Random instances per row.
    pub fn trials(effort: Effort) -> u64 {
        match effort {
            Effort::Full => 40,
            Effort::Quick => 10,
        }
    }
}

impl Experiment for Theorems {
    fn paper(&self) -> Paper {
        Paper::Leiserson
    }

    fn id(&self) -> &'static str {
        "theorems"
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

/// `⌈w^(1/e)⌉`-style integer root: the least `x` with `x^den >= n^num`.
fn ceil_root(n: u128, num: u32, den: u32) -> u128 {
    let target = n.pow(num);
    let mut x = (target as f64).powf(1.0 / f64::from(den)) as u128;
    while x > 0 && (x - 1).pow(den) >= target {
        x -= 1;
    }
    while x.pow(den) < target {
        x += 1;
    }
    x
}

/// `lg x = max(1, log₂ x)`, the paper's convention.
fn lg(x: f64) -> f64 {
    x.log2().max(1.0)
}

fn theorem4(levels: u32, w: u64, out: &mut Vec<Claim>) -> Result<(), ReproError> {
    let n = 1u64 << levels;
    let tree = FatTree::universal(n, w).map_err(|e| EXPERIMENT.error(e))?;
    let instance = format!("n = 2^{levels}, w = {w}");
    let mut claim = |quantity: &str, paper: Value, ours: Value, detail: Detail, verdict| {
        out.push(Claim {
            statement: "Theorem 4",
            instance: instance.clone(),
            quantity: quantity.into(),
            paper,
            ours,
            detail,
            verdict,
        });
    };
    // Nodes, counted on the built network.
    let mut processors = 0u64;
    let mut switches = 0u64;
    for v in 0..tree.num_nodes() {
        match tree.node(NodeId(v)).kind {
            NodeKind::Processor => processors += 1,
            NodeKind::Switch => switches += 1,
            NodeKind::External => {}
        }
    }
    claim(
        "processors",
        n.into(),
        processors.into(),
        detail!["counted on the built network"],
        Verdict::equal(n, processors),
    );
    claim(
        "switches (2^k nodes at level k < lg n)",
        (n - 1).into(),
        switches.into(),
        detail!["counted on the built network"],
        Verdict::equal(n - 1, switches),
    );
    // Capacities by level k (depth), root first, from the channels themselves.
    let mut by_depth = vec![None::<u64>; levels as usize + 1];
    let mut uniform = true;
    // Wire ends at switches, per depth of the switch.
    let mut ends = vec![0u64; levels as usize];
    for c in 0..tree.num_channels() {
        let id = ChannelId(c);
        let ch = tree.channel(id);
        let k = tree.depth(id) as usize;
        match by_depth[k] {
            None => by_depth[k] = Some(ch.capacity),
            Some(x) => uniform &= x == ch.capacity,
        }
        for end in [ch.from, ch.to] {
            let node = tree.node(end);
            if node.kind == NodeKind::Switch {
                // Switch at depth lg n − level.
                ends[(levels - node.level) as usize] += ch.capacity;
            }
        }
    }
    let caps: Vec<u64> = by_depth.iter().map(|c| c.unwrap_or(0)).collect();
    let w3 = u128::from(w).pow(3);
    let defined = |k: usize| -> bool {
        let c = u128::from(caps[k]);
        let a = 1u128 << (levels as usize - k);
        let four_k = 1u128 << (2 * k);
        // ⌈w/2^(2k/3)⌉ = the least q with q³·4^k ≥ w³.
        let ceil_ok = |q: u128| q.pow(3) * four_k >= w3 && (q == 0 || (q - 1).pow(3) * four_k < w3);
        if c < a {
            ceil_ok(c)
        } else {
            // c = a: the ceiling is at least a.
            c == a && (a - 1).pow(3) * four_k < w3
        }
    };
    let all_defined = uniform && (0..=levels as usize).all(defined);
    let shown: Vec<String> = caps.iter().map(u64::to_string).collect();
    claim(
        "channel capacities by level k = 0..lg n",
        Value::text("min(⌈n/2^k⌉, ⌈w/2^(2k/3)⌉)"),
        Value::text(if levels <= 12 {
            format!("[{}]", shown.join(", "))
        } else {
            format!(
                "[{}, …, {}]",
                shown[..4].join(", "),
                shown[shown.len() - 3..].join(", ")
            )
        }),
        detail![if all_defined {
            "every channel's capacity is the definition's (integer check of the ceiling)"
        } else {
            "some channel's capacity differs from the definition"
        }],
        Verdict::holds(all_defined),
    );
    claim(
        "root capacity cap(level 0)",
        w.into(),
        caps[0].into(),
        detail![],
        Verdict::equal(w, caps[0]),
    );
    claim(
        "processor channels cap(level lg n)",
        1u64.into(),
        caps[levels as usize].into(),
        detail!["one connection per processor (the paper's assumption)"],
        Verdict::equal(1, caps[levels as usize]),
    );
    // Doubling below level k* = 3 lg(n/w) (exact log: not the paper's max(1, ·) here).
    let k_star = 3.0 * (n as f64 / w as f64).log2();
    let near_leaves: Vec<usize> = (0..levels as usize)
        .filter(|&k| k as f64 >= k_star)
        .collect();
    let not_doubling = near_leaves
        .iter()
        .filter(|&&k| caps[k] != 2 * caps[k + 1])
        .count();
    claim(
        "capacities double per level at levels k ≥ 3 lg(n/w)",
        Value::text(format!(
            "×2 at the {} levels k ≥ {:.2}",
            near_leaves.len(),
            k_star
        )),
        Value::text(format!(
            "{} of {} levels do not double",
            not_doubling,
            near_leaves.len()
        )),
        detail![],
        Verdict::holds(not_doubling == 0),
    );
    // Components: wire ends at switches (O(m) components per node of m wires).
    let nf = n as f64;
    let top: u64 = (0..levels as usize)
        .filter(|&k| (k as f64) < k_star)
        .map(|k| ends[k])
        .sum();
    let leaf_levels: Vec<u64> = near_leaves.iter().map(|&k| ends[k]).collect();
    let total: u64 = ends.iter().sum();
    let (lo, hi) = (
        leaf_levels.iter().copied().min().unwrap_or(0),
        leaf_levels.iter().copied().max().unwrap_or(0),
    );
    claim(
        "components per level k ≥ 3 lg(n/w) (\"about the same\")",
        Value::text("Θ(n) each; 4n = 2^k(2cap_k + 4cap_{k+1}) by the definition"),
        Value::text(if leaf_levels.is_empty() {
            "no such level".into()
        } else {
            format!("{lo}..{hi} wire ends per level")
        }),
        detail![field("4n", 4 * n), ", ", field("levels", leaf_levels.len())],
        Verdict::holds(leaf_levels.iter().all(|&x| x == 4 * n)),
    );
    let top_bound = c_top() * nf;
    claim(
        "components at levels k < 3 lg(n/w): O(n)",
        Value::text(format!("≤ C_top·n = {top_bound:.0}")),
        top.into(),
        detail![field("ours / n", fixed(top as f64 / nf, 2))],
        Verdict::bound(top as f64 <= top_bound),
    );
    let lg_w3 = lg((w as f64).powi(3) / (nf * nf));
    let ratio = total as f64 / (nf * lg_w3);
    // Below k*: 4n per level over at most log₂(w³/n²) levels; above it: C_top·n.
    let log_w3 = ((w as f64).powi(3) / (nf * nf)).log2().max(0.0);
    let ratio_bound = (4.0 * log_w3 + c_top()) / lg_w3;
    claim(
        "components: O(n lg(w³/n²)), ours / (n lg(w³/n²))",
        Value::text(format!(
            "≤ (4 log₂(w³/n²) + C_top)/lg(w³/n²) = {ratio_bound:.2}"
        )),
        fixed(ratio, 2),
        detail![
            field("wire ends at switches", total),
            ", ",
            field("lg(w³/n²)", fixed(lg_w3, 2))
        ],
        Verdict::bound(ratio <= ratio_bound),
    );
    Ok(())
}

/// Interior cuts of a Lemma 6 split, recounted from the pieces.
fn cuts(pieces: &[Piece], lens: [usize; 2]) -> usize {
    let mut points: Vec<(usize, usize)> = pieces
        .iter()
        .flat_map(|p| [(p.string, p.start), (p.string, p.end)])
        .filter(|&(s, x)| x > 0 && x < lens[s])
        .collect();
    points.sort_unstable();
    points.dedup();
    points.len()
}

/// The worst of one or many Lemma 6 runs.
#[derive(Clone, Copy, Debug, Default)]
struct PearlStats {
    runs: u64,
    max_cuts: usize,
    max_strings: usize,
    /// Runs whose sets do not hold exactly half of each colour (⌊B/2⌋/⌈B/2⌉ for odd B), or
    /// do not partition the pearls.
    wrong: u64,
}

impl PearlStats {
    fn merge(self, o: PearlStats) -> PearlStats {
        PearlStats {
            runs: self.runs + o.runs,
            max_cuts: self.max_cuts.max(o.max_cuts),
            max_strings: self.max_strings.max(o.max_strings),
            wrong: self.wrong + o.wrong,
        }
    }
}

fn pearl_run(a: &[bool], b: &[bool]) -> Result<PearlStats, ReproError> {
    let s = split_pearls([a, b]).map_err(|e| EXPERIMENT.error(e))?;
    let lens = [a.len(), b.len()];
    let strings = [a, b];
    let all: Vec<Piece> = s.first.iter().chain(&s.second).copied().collect();
    let count = |ps: &[Piece], black: bool| -> usize {
        ps.iter()
            .map(|p| {
                strings[p.string][p.start..p.end]
                    .iter()
                    .filter(|&&x| x == black)
                    .count()
            })
            .sum()
    };
    let mut seen = [vec![0u8; lens[0]], vec![0u8; lens[1]]];
    for p in &all {
        for c in &mut seen[p.string][p.start..p.end] {
            *c += 1;
        }
    }
    let partition = seen.iter().flatten().all(|&c| c == 1);
    let (bl, wh) = (count(&all, true), count(&all, false));
    let halves = count(&s.first, true) == bl / 2
        && count(&s.second, true) == bl - bl / 2
        && count(&s.first, false) == wh - wh / 2
        && count(&s.second, false) == wh / 2;
    Ok(PearlStats {
        runs: 1,
        max_cuts: cuts(&all, lens),
        max_strings: s.first.len().max(s.second.len()),
        wrong: u64::from(!(partition && halves)),
    })
}

fn lemma6(effort: Effort, out: &mut Vec<Claim>) -> Result<(), ReproError> {
    let mut families: Vec<(String, PearlStats)> = Vec::new();
    // Exhaustive: every colouring of N ≤ 12 pearls, every split into two strings.
    let max_n = match effort {
        Effort::Full => 12,
        Effort::Quick => 8,
    };
    let mut ex = PearlStats::default();
    for total in (2..=max_n).step_by(2) {
        for bits in 0u32..1 << total {
            let pearls: Vec<bool> = (0..total).map(|i| bits >> i & 1 == 1).collect();
            for cut in 0..=total {
                ex = ex.merge(pearl_run(&pearls[..cut], &pearls[cut..])?);
            }
        }
    }
    families.push((format!("all colourings, N ≤ {max_n}, every split"), ex));
    for (f, &len) in [64usize, 512, 4096].iter().enumerate() {
        let results = run_trials(
            derive_seed(SEED, 100 + f as u64),
            Theorems::trials(effort) * 10,
            |_, seed| {
                let mut rng = Pcg64::seed_from_u64(seed);
                let total = 2 * rng.random_range(1..=len / 2);
                let p_black = rng.random_range(0.0..1.0);
                let pearls: Vec<bool> = (0..total).map(|_| rng.random_bool(p_black)).collect();
                let cut = rng.random_range(0..=total);
                pearl_run(&pearls[..cut], &pearls[cut..])
            },
        )
        .map_err(|e| EXPERIMENT.error(e))?;
        let mut s = PearlStats::default();
        for r in results {
            s = s.merge(r?);
        }
        families.push((format!("random, N ≤ {len}"), s));
    }
    for (instance, s) in families {
        let runs = detail![field("runs", s.runs)];
        for (quantity, paper, ours, verdict) in [
            (
                "cuts",
                Value::text("≤ 2"),
                Value::from(s.max_cuts),
                Verdict::bound(s.max_cuts <= 2),
            ),
            (
                "strings per set",
                Value::text("≤ 2"),
                Value::from(s.max_strings),
                Verdict::bound(s.max_strings <= 2),
            ),
            (
                "runs without exactly half of each colour",
                Value::from(0u64),
                Value::from(s.wrong),
                Verdict::equal(0, s.wrong),
            ),
        ] {
            out.push(Claim {
                statement: "Lemma 6",
                instance: instance.clone(),
                quantity: format!("max {quantity}").replace("max runs", "runs"),
                paper,
                ours,
                detail: runs.clone(),
                verdict,
            });
        }
    }
    Ok(())
}

fn lemma7(effort: Effort, out: &mut Vec<Claim>) -> Result<(), ReproError> {
    for (f, levels) in [10u32, 20, 40].into_iter().enumerate() {
        let results = run_trials(
            derive_seed(SEED, 200 + f as u64),
            Theorems::trials(effort) * 25,
            |_, seed| {
                let mut rng = Pcg64::seed_from_u64(seed);
                let leaves = 1u64 << levels;
                let (x, y) = (rng.random_range(0..=leaves), rng.random_range(0..=leaves));
                let (start, end) = (x.min(y), x.max(y));
                let forest = interval_forest(levels, start, end - start)?;
                let mut at = start;
                let mut exact = true;
                let mut per_height = vec![0usize; levels as usize + 1];
                let mut excess = f64::NEG_INFINITY;
                for t in &forest {
                    exact &= t.start == at && t.start % (1 << t.height) == 0;
                    at = t.leaves().end;
                    per_height[t.height as usize] += 1;
                    excess = excess.max(f64::from(t.height) - lg((end - start) as f64));
                }
                exact &= at == end;
                Ok::<_, fatnet::offline::OfflineError>((
                    exact,
                    per_height.into_iter().max().unwrap_or(0),
                    excess,
                ))
            },
        )
        .map_err(|e| EXPERIMENT.error(e))?;
        let mut inexact = 0u64;
        let mut per_height = 0usize;
        let mut excess = f64::NEG_INFINITY;
        let runs = results.len();
        for r in results {
            let (e, p, x) = r.map_err(|e| EXPERIMENT.error(e))?;
            inexact += u64::from(!e);
            per_height = per_height.max(p);
            excess = excess.max(x);
        }
        let instance = format!("random intervals of 2^{levels} leaves");
        let d = detail![field("intervals", runs)];
        for (quantity, paper, ours, verdict) in [
            (
                "intervals whose forest does not cover them exactly with subtrees of T",
                Value::from(0u64),
                Value::from(inexact),
                Verdict::equal(0, inexact),
            ),
            (
                "max trees of one height",
                Value::text("≤ 2"),
                Value::from(per_height),
                Verdict::bound(per_height <= 2),
            ),
            (
                "max (height of a tree − lg k)",
                Value::text("≤ 0"),
                fixed(excess, 2),
                Verdict::bound(excess <= 0.0),
            ),
        ] {
            out.push(Claim {
                statement: "Lemma 7",
                instance: instance.clone(),
                quantity: quantity.into(),
                paper,
                ours,
                detail: d.clone(),
                verdict,
            });
        }
    }
    Ok(())
}

/// Placements of processors on the leaves of a decomposition tree.
const PLACEMENTS: [&str; 3] = ["uniform 1/2", "sparse 1/16", "one block"];

/// The worst of Theorem 8's checks over one instance or many.
#[derive(Clone, Copy, Debug, Default)]
struct BalanceStats {
    runs: u64,
    max_imbalance: u64,
    max_strings: usize,
    max_last_level: u64,
    /// Largest forest bandwidth / w'_i, random w.
    thm8: f64,
    /// Largest forest bandwidth / (4α/(α−1)·w/α^i), α = ∛4 and 2.
    cor9: [f64; 2],
}

impl BalanceStats {
    fn merge(self, o: BalanceStats) -> BalanceStats {
        BalanceStats {
            runs: self.runs + o.runs,
            max_imbalance: self.max_imbalance.max(o.max_imbalance),
            max_strings: self.max_strings.max(o.max_strings),
            max_last_level: self.max_last_level.max(o.max_last_level),
            thm8: self.thm8.max(o.thm8),
            cor9: [self.cor9[0].max(o.cor9[0]), self.cor9[1].max(o.cor9[1])],
        }
    }
}

const ALPHAS: [(&str, f64); 2] = [("∛4", 1.587_401_051_968_199_4), ("2", 2.0)];

fn balance_run(r: u32, placement: usize, seed: u64) -> Result<BalanceStats, ReproError> {
    let mut rng = Pcg64::seed_from_u64(seed);
    let len = 1usize << r;
    let occupied: Vec<bool> = match placement {
        0 => (0..len).map(|_| rng.random_bool(0.5)).collect(),
        1 => (0..len).map(|_| rng.random_bool(1.0 / 16.0)).collect(),
        _ => {
            let n = rng.random_range(1..=len);
            let at = rng.random_range(0..=len - n);
            (0..len).map(|i| (at..at + n).contains(&i)).collect()
        }
    };
    let t = balance(&occupied).map_err(|e| EXPERIMENT.error(e))?;
    let mut s = BalanceStats {
        runs: 1,
        ..BalanceStats::default()
    };
    for (i, sets) in t.levels.iter().enumerate() {
        for set in sets {
            s.max_strings = s.max_strings.max(set.strings.len());
        }
        if let Some(next) = t.levels.get(i + 1) {
            for j in 0..sets.len() {
                let d = next[2 * j].processors.abs_diff(next[2 * j + 1].processors);
                s.max_imbalance = s.max_imbalance.max(d);
            }
        }
    }
    s.max_last_level = t.levels[t.levels.len() - 1]
        .iter()
        .map(|x| x.processors)
        .max()
        .unwrap_or(0);
    let worst = |got: &[Vec<f64>], bound: &dyn Fn(usize) -> f64| -> f64 {
        got.iter()
            .enumerate()
            .flat_map(|(i, sets)| sets.iter().map(move |&b| (i, b)))
            .map(|(i, b)| if bound(i) > 0.0 { b / bound(i) } else { 0.0 })
            .fold(0.0, f64::max)
    };
    let w: Vec<f64> = (0..=r).map(|_| rng.random_range(0.0..100.0)).collect();
    let bound = theorem8_bandwidths(&w).map_err(|e| EXPERIMENT.error(e))?;
    let got = t.forest_bandwidths(&w).map_err(|e| EXPERIMENT.error(e))?;
    s.thm8 = worst(&got, &|i| bound[i]);
    for (a, &(_, alpha)) in ALPHAS.iter().enumerate() {
        let wa: Vec<f64> = (0..=r).map(|k| 1.0 / alpha.powi(k as i32)).collect();
        let factor = corollary9_factor(alpha).map_err(|e| EXPERIMENT.error(e))?;
        let got = t.forest_bandwidths(&wa).map_err(|e| EXPERIMENT.error(e))?;
        s.cor9[a] = worst(&got, &|i| factor * wa[i]);
    }
    Ok(s)
}

fn theorem8(effort: Effort, out: &mut Vec<Claim>) -> Result<(), ReproError> {
    for (p, placement) in PLACEMENTS.iter().enumerate() {
        for &r in Theorems::theorem8_sizes(effort) {
            let results = run_trials(
                derive_seed(SEED, 300 + 100 * p as u64 + u64::from(r)),
                Theorems::trials(effort),
                |_, seed| balance_run(r, p, seed),
            )
            .map_err(|e| EXPERIMENT.error(e))?;
            let mut s = BalanceStats::default();
            for x in results {
                s = s.merge(x?);
            }
            let instance = format!("2^{r} leaves of T, {placement}");
            let d = detail![field("instances", s.runs)];
            let mut push = |statement, quantity: String, paper, ours, verdict| {
                out.push(Claim {
                    statement,
                    instance: instance.clone(),
                    quantity,
                    paper,
                    ours,
                    detail: d.clone(),
                    verdict,
                });
            };
            push(
                "Theorem 8",
                "max |processors of two sibling sets| difference (balanced)".into(),
                Value::text("≤ 1"),
                s.max_imbalance.into(),
                Verdict::bound(s.max_imbalance <= 1),
            );
            push(
                "Theorem 8",
                "max strings of T-leaves per set".into(),
                Value::text("≤ 2"),
                s.max_strings.into(),
                Verdict::bound(s.max_strings <= 2),
            );
            push(
                "Theorem 8",
                "max processors per set at level ⌈lg n⌉".into(),
                Value::text("≤ 1"),
                s.max_last_level.into(),
                Verdict::bound(s.max_last_level <= 1),
            );
            push(
                "Theorem 8",
                "max bandwidth / w'_i, random w_k".into(),
                Value::text("≤ 1 (w'_i = 4 Σ_{k≥i} w_k)"),
                fixed(s.thm8, 3),
                Verdict::bound(s.thm8 <= 1.0 + 1e-12),
            );
            for (a, &(name, _)) in ALPHAS.iter().enumerate() {
                push(
                    "Corollary 9",
                    format!("max bandwidth / (4α/(α−1) · w/α^i), α = {name}"),
                    Value::text("≤ 1"),
                    fixed(s.cor9[a], 3),
                    Verdict::bound(s.cor9[a] <= 1.0 + 1e-12),
                );
            }
        }
    }
    Ok(())
}

impl Tabular for Theorems {
    type Row = Claim;

    fn frame(&self) -> Frame {
        Frame {
            title: "Leiserson, Theorem 4, Lemmas 6–7, Theorem 8 and Corollary 9: the universal fat-tree's hardware and the balanced decomposition tree".into(),
            key_columns: vec!["statement".into(), "instance".into(), "quantity".into()],
            detail_column: "how counted".into(),
        }
    }

    fn cells(&self, row: &Claim) -> Vec<Cell> {
        vec![Cell {
            key: vec![
                row.statement.into(),
                row.instance.clone().into(),
                row.quantity.clone().into(),
            ],
            paper: Some(row.paper.clone()),
            ours: row.ours.clone(),
            detail: row.detail.clone(),
            verdict: row.verdict,
            note: String::new(),
        }]
    }

    fn compute(&self, effort: Effort) -> Result<Vec<Claim>, ReproError> {
        let mut out = Vec::new();
        for &levels in Theorems::theorem4_sizes(effort) {
            let n = 1u128 << levels;
            let mut ws = vec![ceil_root(n, 2, 3), ceil_root(n, 5, 6), n];
            ws.dedup();
            for w in ws {
                theorem4(levels, w as u64, &mut out)?;
            }
        }
        lemma6(effort, &mut out)?;
        lemma7(effort, &mut out)?;
        theorem8(effort, &mut out)?;
        Ok(out)
    }

    fn notes(&self, _effort: Effort, _rows: &[Claim], _cells: &[Cell]) -> Vec<String> {
        vec![
            "The paper prints no table: \"paper\" is the statement's value or bound for the instance, \"ours\" is counted on the network or construction the library builds. lg x = max(1, log₂ x), the paper's convention.".into(),
            "Theorem 4: processors, switches, capacities and wire ends are counted by walking the nodes and channels of FatTree::universal(n, w), for w = ⌈n^(2/3)⌉, ⌈n^(5/6)⌉ and n. The paper counts components only as O(m) per node of m incident wires (concentrators after Pippenger, selectors), so \"components\" here are wire ends at switches, Σ_k 2^k(2cap_k + 4cap_{k+1}); a component count is a constant multiple of it.".into(),
            format!("Theorem 4's O(·) claims are checked against the constants of the proof's own sums under this count: exactly 4n wire ends per level k ≥ 3 lg(n/w), and at most C_top·n, C_top = (2 + 4·2^(−2/3))·2^(1/3)/(2^(1/3) − 1) + 12 = {:.2}, above it (the geometric series with ⌈x⌉ ≤ x + 1 and (n/w)³ ≤ n). The constants are ours (derived, not the paper's).", c_top()),
            "Theorem 4's volume, v = O((w lg(n/w))^(3/2)), is not checked: the paper cites the layout (Leighton and Rosenberg's three-dimensional layouts) and gives no construction to count; nor are the node boxes of Lemma 3 (a cited permutation layout).".into(),
            "Lemma 6: the moves of the proof's Figure 4 (lost from our copy of the paper) are reconstructed (fatnet::offline::decomposition: rotate the half-circle arc, then move its trailing piece along the long string); the table tests the lemma's conclusion on the pieces the construction returns, for every colouring of short strings and random long ones, with odd black counts too (halves ⌊B/2⌋ and ⌈B/2⌉, which Theorem 8 needs).".into(),
            "Theorem 8 / Corollary 9: the decomposition tree T is taken complete with 2^r leaves on a line (as the proof draws it), processors placed on its leaves at random (density 1/2, density 1/16, or one random block). A set's bandwidth is bounded, as in the proof, by the sum of w_k over the roots of the Lemma 7 forests of its strings (root at level k of T); the table gives its largest ratio to w'_i = 4 Σ_{k=i}^r w_k (random w_k uniform in [0, 100)), and to Corollary 9's 4α/(α−1)·w/α^i for (w, α) trees with w_k = w/α^k. The balanced tree has ⌈log₂ n⌉ levels below the root (the paper writes ⌈lg n⌉).".into(),
            format!("Random instances are drawn from seed {SEED} with one derived seed per instance (the trial runner)."),
        ]
    }
}
