//! The smallest number of top switches that admits a nonblocking single-path deterministic
//! routing of `ftree(n+m, r)`, by exhaustive search for tiny `(n, r)`,
//! compared with Yuan's Theorems 1–3.
//!
//! **Method [ours].** By Lemma 1 a routing is nonblocking iff the pairs of each top switch
//! form a *valid set*: on every link each top's pairs share a source or a destination. Valid
//! sets are closed under subsets, so `m` tops suffice iff `m` valid sets cover all `r(r−1)n²`
//! cross pairs, and it is enough to cover with *maximal* valid sets.
//!
//! A maximal valid set is described by two "pointers" per bottom switch: its uplink carries
//! one source `s` in the switch or one destination `d` outside it, its downlink one
//! destination `d` in the switch or one source `s` outside it. Between switches `v ≠ w` the
//! pointers admit 0, 1 or `n` pairs (all of `w` from `s`, or all of `v` to `d`). So:
//!
//! 1. **Capacity.** The most pairs one top can carry (Lemma 2's quantity, exactly) is a
//!    maximum over uplink pointers, with each downlink pointer chosen independently; leaves
//!    of a switch are interchangeable, so each switch's leaves are enumerated in order of
//!    first use, and so are the switches no pointer references yet. `m·capacity < r(r−1)n²` rules out `m` (the counting argument of Theorems
//!    1–2, with the exact capacity in place of Lemma 2's bound).
//! 2. **Family.** All maximal valid sets, as bitsets over the cross pairs (at most 128):
//!    every uplink pointer assignment, the per-switch maximal downlink choices, their
//!    products, deduplicated and filtered for maximality (no single pair can be added).
//! 3. **Cover search.** Depth-first: take the uncovered pair in the fewest family sets,
//!    branch on the sets containing it; prune when the `k` largest gains of the remaining
//!    `k` tops cannot cover what is left, and skip a branch whose gain is below what the
//!    others cannot make up. Symmetric solutions are not merged beyond that.
//!
//! Every answer carries a certificate: the routing (found, or Yuan's at `m = n²`) re-checked
//! by [`check_nonblocking`].

use fatnet_topology::FoldedClos;
use serde::Serialize;

use super::{RoutingTable, YuanRouting, check_nonblocking};
use crate::OfflineError;

/// Lemma 2's bound on the pairs one top switch can carry in a nonblocking `ftree(n+m, r)`:
/// `r(r−1)` when `r >= 2n+1`, `2nr` otherwise.
pub fn lemma2_bound(n: u32, r: u32) -> u64 {
    let (n, r) = (u64::from(n), u64::from(r));
    if r > 2 * n { r * (r - 1) } else { 2 * n * r }
}

/// Theorem 1's necessary condition for `r <= 2n+1`: `m >= ⌈(r−1)n/2⌉` (the ceiling is
/// ours: `m` is an integer). For `r >= 2n+1` Theorem 2 gives `m >= n²` instead.
pub fn theorem1_bound(n: u32, r: u32) -> u64 {
    (u64::from(r).saturating_sub(1) * u64::from(n)).div_ceil(2)
}

/// Budgets of [`min_top_switches`] and [`top_capacity`]. The defaults decide every case of
/// the note (`(n, r)` = (2,2), (3,2), (2,3), (2,4), (3,3)) in well under a second.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct MinTopSearch {
    /// Work units per enumeration or per value of `m` searched (a unit is one set examined
    /// or one pointer update, roughly a nanosecond).
    pub max_work: u64,
    /// Most candidate valid sets enumerated before giving up on the family.
    pub max_family: u64,
}

impl Default for MinTopSearch {
    fn default() -> Self {
        Self {
            max_work: 3_000_000_000,
            max_family: 4_000_000,
        }
    }
}

/// How one value of `m` was decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "by")]
pub enum MinTopStep {
    /// Every value up to `m` is infeasible by counting: `m·capacity < r(r−1)n²`.
    Counting {
        /// The value.
        m: u32,
    },
    /// Infeasible: the cover search exhausted every branch.
    Search {
        /// The value.
        m: u32,
        /// Search nodes visited.
        nodes: u64,
    },
    /// Feasible: the search found a routing.
    Found {
        /// The value.
        m: u32,
        /// Search nodes visited.
        nodes: u64,
    },
    /// Feasible by Yuan's routing (Theorem 3), `m = n²`.
    Theorem3 {
        /// The value.
        m: u32,
    },
    /// Not decided within the budget.
    Undecided {
        /// The value.
        m: u32,
        /// Search nodes visited.
        nodes: u64,
    },
}

/// The smallest `m` for which `ftree(n+m, r)` has a nonblocking single-path deterministic
/// routing, as found by [`min_top_switches`]: exact when `lower == upper`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MinTopSwitches {
    /// Leaves per bottom switch.
    pub n: u32,
    /// Bottom switches.
    pub r: u32,
    /// Pairs across bottom switches, `r(r−1)n²`.
    pub cross_pairs: u64,
    /// The exact most pairs one top can carry, if it was needed.
    pub top_capacity: Option<u64>,
    /// `⌈r(r−1)n² / capacity⌉`, if the capacity was computed.
    pub counting_bound: Option<u64>,
    /// Theorem 1's `⌈(r−1)n/2⌉`.
    pub theorem1_bound: u64,
    /// Every smaller `m` is infeasible.
    pub lower: u32,
    /// `m = upper` is feasible (the certificate).
    pub upper: u32,
    /// Maximal valid sets in the searched family, if the search ran.
    pub family: Option<u64>,
    /// How each `m` from the first one examined up to `upper` was decided.
    pub steps: Vec<MinTopStep>,
    /// A nonblocking routing of `ftree(n+upper, r)`.
    #[serde(skip)]
    pub certificate: RoutingTable,
}

impl MinTopSwitches {
    /// The minimum, when the search decided it.
    pub fn exact(&self) -> Option<u32> {
        (self.lower == self.upper).then_some(self.upper)
    }
}

/// Cross pairs and their indices for bitsets.
struct Pairs {
    n: u32,
    r: u32,
    p: u32,
    /// `index[s·P + d]`, `u32::MAX` within a switch.
    index: Vec<u32>,
    list: Vec<(u32, u32)>,
}

impl Pairs {
    fn new(n: u32, r: u32) -> Self {
        let p = n * r;
        let mut index = vec![u32::MAX; (p * p) as usize];
        let mut list = Vec::new();
        for s in 0..p {
            for d in 0..p {
                if s / n != d / n {
                    index[(s * p + d) as usize] = list.len() as u32;
                    list.push((s, d));
                }
            }
        }
        Self {
            n,
            r,
            p,
            index,
            list,
        }
    }

    /// Pairs `v -> w` (`v ≠ w`) a top admits when switch `v`'s uplink pointer is leaf `a`
    /// and switch `w`'s downlink pointer is leaf `b`: a local uplink pointer is a source, a
    /// remote one a destination; a local downlink pointer is a destination, a remote one a
    /// source. Calls `f(s, d)` for each.
    fn admitted(&self, v: u32, w: u32, a: u32, b: u32, mut f: impl FnMut(u32, u32)) {
        let n = self.n;
        let (sa, sb) = (a / n, b / n);
        if sa == v {
            if sb == w {
                f(a, b);
            } else if b == a {
                (w * n..w * n + n).for_each(|d| f(a, d));
            }
        } else if sa == w {
            if sb == w {
                if b == a {
                    (v * n..v * n + n).for_each(|s| f(s, a));
                }
            } else if sb == v {
                f(b, a);
            }
        }
    }

    fn count(&self, v: u32, w: u32, a: u32, b: u32) -> u64 {
        let mut k = 0;
        self.admitted(v, w, a, b, |_, _| k += 1);
        k
    }

    fn mask(&self, v: u32, w: u32, a: u32, b: u32) -> u128 {
        let mut m = 0u128;
        self.admitted(v, w, a, b, |s, d| {
            m |= 1u128 << self.index[(s * self.p + d) as usize];
        });
        m
    }
}

/// The exact maximum number of cross pairs one top switch of a nonblocking `ftree(n+m, r)`
/// can carry (the quantity Lemma 2 bounds).
///
/// # Errors
///
/// [`OfflineError::OutOfRange`] when `n` or `r` is 0; [`OfflineError::SearchTooLarge`] when
/// the enumeration exceeds `config.max_work`.
pub fn top_capacity(n: u32, r: u32, config: &MinTopSearch) -> Result<u64, OfflineError> {
    check_params(n, r)?;
    if r == 1 {
        return Ok(0);
    }
    let pairs = Pairs::new(n, r);
    capacity(&pairs, config.max_work)
}

fn check_params(n: u32, r: u32) -> Result<(), OfflineError> {
    for (param, value) in [("n", n), ("r", r)] {
        if value == 0 {
            return Err(OfflineError::OutOfRange {
                param,
                value: 0,
                allowed: "at least 1",
            });
        }
    }
    Ok(())
}

fn capacity(pairs: &Pairs, max_work: u64) -> Result<u64, OfflineError> {
    struct Dfs<'a> {
        pairs: &'a Pairs,
        /// `count[((v·r + w)·P + a)·P + b]`: pairs `v -> w` admitted by pointers `a`, `b`.
        count: Vec<u64>,
        /// `acc[w·P + b]`: pairs into `w` admitted so far with downlink pointer `b`.
        acc: Vec<u64>,
        /// `suffix[(v·r + w)·P + b]`: the most pairs into `w` with downlink pointer `b` that
        /// the uplink pointers of switches `v..r` can add.
        suffix: Vec<u64>,
        /// Leaves of each switch referenced so far (they are referenced in order 0, 1, ...).
        used: Vec<u32>,
        best: u64,
        work: u64,
        max_work: u64,
    }
    impl Dfs<'_> {
        fn apply(&mut self, v: u32, a: u32, sign: bool) {
            let (r, p) = (self.pairs.r, self.pairs.p);
            for w in (0..r).filter(|&w| w != v) {
                let row = (((v * r + w) * p + a) * p) as usize;
                for b in 0..p {
                    let k = self.count[row + b as usize];
                    let slot = &mut self.acc[(w * p + b) as usize];
                    if sign {
                        *slot += k;
                    } else {
                        *slot -= k;
                    }
                }
            }
            self.work += u64::from(r * p);
        }

        fn run(&mut self, v: u32) -> bool {
            let (n, r, p) = (self.pairs.n, self.pairs.r, self.pairs.p);
            if self.work > self.max_work {
                return false;
            }
            // What the top admits if every remaining uplink pointer gave each downlink its
            // best: exact at the leaves, an upper bound inside.
            let base = (v * r * p) as usize;
            let bound: u64 = (0..r as usize)
                .map(|w| {
                    let w0 = w * p as usize;
                    (0..p as usize)
                        .map(|b| self.acc[w0 + b] + self.suffix[base + w0 + b])
                        .max()
                        .unwrap_or(0)
                })
                .sum();
            self.work += u64::from(r * p);
            if v == r {
                self.best = self.best.max(bound);
                return true;
            }
            if bound <= self.best {
                return true;
            }
            // Switches after v that no pointer references yet are interchangeable: try only
            // the first of them as a target.
            let first_blank = (v + 1..r).find(|&u| self.used[u as usize] == 0);
            for u in 0..r {
                let used = self.used[u as usize];
                if u > v && used == 0 && Some(u) != first_blank {
                    continue;
                }
                for k in 0..(used + 1).min(n) {
                    let a = u * n + k;
                    if k == used {
                        self.used[u as usize] += 1;
                    }
                    self.apply(v, a, true);
                    let ok = self.run(v + 1);
                    self.apply(v, a, false);
                    if k == used {
                        self.used[u as usize] -= 1;
                    }
                    if !ok {
                        return false;
                    }
                }
            }
            true
        }
    }
    let (r, p) = (pairs.r, pairs.p);
    let table_size = u64::from(r) * u64::from(r) * u64::from(p) * u64::from(p);
    if table_size > max_work {
        return Err(OfflineError::SearchTooLarge {
            what: "the top-capacity enumeration",
            size: table_size,
            limit: max_work,
        });
    }
    let mut count = vec![0u64; table_size as usize];
    for v in 0..r {
        for w in (0..r).filter(|&w| w != v) {
            for a in 0..p {
                for b in 0..p {
                    count[(((v * r + w) * p + a) * p + b) as usize] = pairs.count(v, w, a, b);
                }
            }
        }
    }
    let mut suffix = vec![0u64; ((r + 1) * r * p) as usize];
    for v in (0..r).rev() {
        for w in 0..r {
            for b in 0..p {
                let best = if v == w {
                    0
                } else {
                    (0..p)
                        .map(|a| count[(((v * r + w) * p + a) * p + b) as usize])
                        .max()
                        .unwrap_or(0)
                };
                suffix[((v * r + w) * p + b) as usize] =
                    suffix[(((v + 1) * r + w) * p + b) as usize] + best;
            }
        }
    }
    let mut dfs = Dfs {
        pairs,
        count,
        suffix,
        acc: vec![0; (pairs.r * pairs.p) as usize],
        used: vec![0; pairs.r as usize],
        best: 0,
        work: 0,
        max_work,
    };
    if dfs.run(0) {
        Ok(dfs.best)
    } else {
        Err(OfflineError::SearchTooLarge {
            what: "the top-capacity enumeration",
            size: dfs.work,
            limit: max_work,
        })
    }
}

/// All maximal valid sets as bitsets, or `None` past the budget.
fn family(pairs: &Pairs, max_family: u64) -> Option<Vec<u128>> {
    let (r, p) = (pairs.r, pairs.p);
    let mut all: Vec<u128> = Vec::new();
    let mut up = vec![0u32; r as usize];
    let mut options: Vec<Vec<u128>> = vec![Vec::new(); r as usize];
    let mut pick = vec![0usize; r as usize];
    loop {
        for w in 0..r {
            let o = &mut options[w as usize];
            o.clear();
            for b in 0..p {
                let mut m = 0u128;
                for v in (0..r).filter(|&v| v != w) {
                    m |= pairs.mask(v, w, up[v as usize], b);
                }
                o.push(m);
            }
            o.sort_unstable();
            o.dedup();
            let dominated: Vec<bool> = o
                .iter()
                .map(|&x| o.iter().any(|&y| y != x && y & x == x))
                .collect();
            let mut i = 0;
            o.retain(|_| {
                i += 1;
                !dominated[i - 1]
            });
        }
        // The product of the per-switch choices.
        pick.iter_mut().for_each(|k| *k = 0);
        loop {
            all.push(
                pick.iter()
                    .enumerate()
                    .fold(0, |m, (w, &k)| m | options[w][k]),
            );
            if all.len() as u64 > max_family {
                return None;
            }
            let mut w = 0;
            while w < r as usize {
                pick[w] += 1;
                if pick[w] < options[w].len() {
                    break;
                }
                pick[w] = 0;
                w += 1;
            }
            if w == r as usize {
                break;
            }
        }
        let mut v = 0;
        while v < r as usize {
            up[v] += 1;
            if up[v] < p {
                break;
            }
            up[v] = 0;
            v += 1;
        }
        if v == r as usize {
            break;
        }
    }
    all.sort_unstable();
    all.dedup();
    all.retain(|&m| is_maximal(pairs, m));
    // Largest first: the search meets big sets first.
    all.sort_unstable_by_key(|m| std::cmp::Reverse(m.count_ones()));
    Some(all)
}

/// Whether no cross pair can be added to the valid set `m` (valid sets are closed under
/// subsets, so this is maximality).
fn is_maximal(pairs: &Pairs, m: u128) -> bool {
    let (n, r) = (pairs.n, pairs.r);
    // Per link (uplink of v: v, downlink of w: r + w): first pair, several sources,
    // several destinations.
    let mut first = vec![None::<(u32, u32)>; 2 * r as usize];
    let mut multi = vec![(false, false); 2 * r as usize];
    let mut bits = m;
    while bits != 0 {
        let i = bits.trailing_zeros() as usize;
        bits &= bits - 1;
        let (s, d) = pairs.list[i];
        for l in [s / n, r + d / n] {
            match first[l as usize] {
                None => first[l as usize] = Some((s, d)),
                Some((s0, d0)) => {
                    let e = &mut multi[l as usize];
                    e.0 |= s != s0;
                    e.1 |= d != d0;
                }
            }
        }
    }
    let fits = |l: u32, s: u32, d: u32| match first[l as usize] {
        None => true,
        Some((s0, d0)) => {
            let (ms, md) = multi[l as usize];
            !((ms || s != s0) && (md || d != d0))
        }
    };
    pairs
        .list
        .iter()
        .enumerate()
        .all(|(i, &(s, d))| m >> i & 1 == 1 || !(fits(s / n, s, d) && fits(r + d / n, s, d)))
}

/// The cover search for one `m`.
struct Cover<'a> {
    sets: &'a [u128],
    by_pair: &'a [Vec<u32>],
    full: u128,
    nodes: u64,
    work: u64,
    max_work: u64,
    chosen: Vec<u32>,
}

impl Cover<'_> {
    /// `Some(true)` with the sets in `chosen`, `Some(false)` when exhausted, `None` past the
    /// budget.
    fn run(&mut self, covered: u128, k: usize) -> Option<bool> {
        self.nodes += 1;
        if covered == self.full {
            return Some(true);
        }
        if k == 0 {
            return Some(false);
        }
        self.work += self.sets.len() as u64;
        if self.work > self.max_work {
            return None;
        }
        let open = self.full & !covered;
        let uncovered = open.count_ones() as usize;
        // The k largest gains bound what k more sets can cover.
        let mut top = vec![0usize; k];
        for &s in self.sets {
            let g = (s & open).count_ones() as usize;
            if g > top[k - 1] {
                let mut j = k - 1;
                while j > 0 && top[j - 1] < g {
                    top[j] = top[j - 1];
                    j -= 1;
                }
                top[j] = g;
            }
        }
        if uncovered > top.iter().sum::<usize>() {
            return Some(false);
        }
        let threshold = uncovered.saturating_sub(top[..k - 1].iter().sum());
        // Branch on the uncovered pair in the fewest sets.
        let mut bits = open;
        let mut pivot = usize::MAX;
        while bits != 0 {
            let i = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            if pivot == usize::MAX || self.by_pair[i].len() < self.by_pair[pivot].len() {
                pivot = i;
            }
        }
        for idx in 0..self.by_pair[pivot].len() {
            let j = self.by_pair[pivot][idx];
            let s = self.sets[j as usize];
            if ((s & open).count_ones() as usize) < threshold {
                continue;
            }
            self.chosen.push(j);
            match self.run(covered | s, k - 1) {
                Some(false) => {
                    self.chosen.pop();
                }
                other => return other,
            }
        }
        Some(false)
    }
}

/// The smallest `m` for which `ftree(n+m, r)` admits a nonblocking single-path deterministic
/// routing (see the module documentation for the method), with a routing as certificate.
///
/// Values of `m` are decided upwards from the exact counting bound until one is feasible;
/// Yuan's routing makes `m = n²` feasible (Theorem 3). A value the budget cannot decide is
/// [`MinTopStep::Undecided`] and the search goes on (feasibility is monotone in `m`), so the
/// answer may be an interval `lower..=upper`. Theorem 1's bound is reported, not used: the
/// counting bound is never below it.
///
/// # Errors
///
/// - [`OfflineError::OutOfRange`] when `n` or `r` is 0, or `n²` or the network's ids do not
///   fit `u32`;
/// - [`OfflineError::SearchTooLarge`] when a search is needed and there are more than 128
///   cross pairs, or the capacity enumeration exceeds the budget.
pub fn min_top_switches(
    n: u32,
    r: u32,
    config: &MinTopSearch,
) -> Result<MinTopSwitches, OfflineError> {
    check_params(n, r)?;
    let cross = u64::from(r) * u64::from(r - 1) * u64::from(n) * u64::from(n);
    let n2 = u32::try_from(u64::from(n) * u64::from(n)).map_err(|_| OfflineError::OutOfRange {
        param: "n",
        value: u64::from(n),
        allowed: "n² fits u32",
    })?;
    let mut steps = Vec::new();
    // r = 1: nothing crosses; n = 1: one top suffices. Either way m = 1 and no search.
    let (capacity, counting) = if cross > 0 && n2 > 1 {
        let cap = capacity(&Pairs::new(n, r), config.max_work)?;
        (Some(cap), Some(cross.div_ceil(cap)))
    } else {
        (None, None)
    };
    let mut lower = counting.unwrap_or(1).clamp(1, u64::from(n2.max(1))) as u32;
    if lower > 1 {
        steps.push(MinTopStep::Counting { m: lower - 1 });
    }
    let mut found: Option<(u32, RoutingTable)> = None;
    let mut family_len = None;
    if cross == 0 {
        found = Some((1, RoutingTable::from_fn(&clos(n, 1, r)?, |_, _| 0)?));
        steps.push(MinTopStep::Found { m: 1, nodes: 0 });
    } else if lower < n2 {
        if cross > 128 {
            return Err(OfflineError::SearchTooLarge {
                what: "the cover search (cross pairs)",
                size: cross,
                limit: 128,
            });
        }
        let pairs = Pairs::new(n, r);
        match family(&pairs, config.max_family) {
            None => steps.extend((lower..n2).map(|m| MinTopStep::Undecided { m, nodes: 0 })),
            Some(sets) => {
                family_len = Some(sets.len() as u64);
                let mut by_pair: Vec<Vec<u32>> = vec![Vec::new(); pairs.list.len()];
                for (j, &s) in sets.iter().enumerate() {
                    let mut bits = s;
                    while bits != 0 {
                        let i = bits.trailing_zeros() as usize;
                        bits &= bits - 1;
                        by_pair[i].push(j as u32);
                    }
                }
                let full = u128::MAX >> (128 - pairs.list.len());
                let first = lower;
                for m in first..n2 {
                    let mut cover = Cover {
                        sets: &sets,
                        by_pair: &by_pair,
                        full,
                        nodes: 0,
                        work: 0,
                        max_work: config.max_work,
                        chosen: Vec::new(),
                    };
                    match cover.run(0, m as usize) {
                        Some(true) => {
                            steps.push(MinTopStep::Found {
                                m,
                                nodes: cover.nodes,
                            });
                            found = Some((m, certificate(&pairs, &sets, &cover.chosen, m)?));
                            break;
                        }
                        Some(false) => {
                            steps.push(MinTopStep::Search {
                                m,
                                nodes: cover.nodes,
                            });
                            lower = m + 1;
                        }
                        None => steps.push(MinTopStep::Undecided {
                            m,
                            nodes: cover.nodes,
                        }),
                    }
                }
            }
        }
    }
    let (upper, certificate) = match found {
        Some(f) => f,
        None => {
            let m = n2.max(1);
            let net = clos(n, m, r)?;
            steps.push(MinTopStep::Theorem3 { m });
            (
                m,
                RoutingTable::from_routing(&net, &YuanRouting::new(&net)?)?,
            )
        }
    };
    Ok(MinTopSwitches {
        n,
        r,
        cross_pairs: cross,
        top_capacity: capacity,
        counting_bound: counting,
        theorem1_bound: theorem1_bound(n, r),
        lower: lower.min(upper),
        upper,
        family: family_len,
        steps,
        certificate,
    })
}

/// The routing of a cover: each pair through the first chosen set that holds it, re-checked
/// by Lemma 1.
fn certificate(
    pairs: &Pairs,
    sets: &[u128],
    chosen: &[u32],
    m: u32,
) -> Result<RoutingTable, OfflineError> {
    let chosen: Vec<u128> = chosen.iter().map(|&j| sets[j as usize]).collect();
    let net = clos(pairs.n, m, pairs.r)?;
    let table = RoutingTable::from_fn(&net, |s, d| {
        let i = pairs.index[(s * pairs.p + d) as usize];
        chosen
            .iter()
            .position(|c| c >> i & 1 == 1)
            .expect("the chosen sets cover every pair") as u32
    })?;
    let check = check_nonblocking(&net, &table)?;
    assert!(
        check.is_nonblocking(),
        "the cover search produced a blocking routing: {check:?}"
    );
    Ok(table)
}

fn clos(n: u32, m: u32, r: u32) -> Result<FoldedClos, OfflineError> {
    FoldedClos::new(u64::from(n), u64::from(m), u64::from(r)).map_err(|_| {
        OfflineError::OutOfRange {
            param: "n·r",
            value: u64::from(n) * u64::from(r),
            allowed: "a network whose ids fit u32",
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds() {
        assert_eq!(lemma2_bound(2, 5), 20);
        assert_eq!(lemma2_bound(2, 4), 16);
        assert_eq!(theorem1_bound(2, 3), 2);
        assert_eq!(theorem1_bound(3, 3), 3);
        assert_eq!(theorem1_bound(3, 4), 5);
    }

    #[test]
    fn exact_capacities_match_the_note() {
        // Note §3, C2.1: exact maxima of one top switch.
        let cfg = MinTopSearch::default();
        for (n, r, exact) in [
            (1, 3, 6),
            (1, 4, 12),
            (2, 2, 4),
            (2, 3, 8),
            (2, 4, 12),
            (2, 5, 20),
            (3, 2, 6),
            (3, 3, 12),
        ] {
            let cap = top_capacity(n, r, &cfg).unwrap();
            assert_eq!(cap, exact, "n={n} r={r}");
            assert!(cap <= lemma2_bound(n, r));
        }
    }

    #[test]
    fn pointer_pairs_are_valid_sets() {
        // Every (v, w, a, b) admits pairs that share a source or a destination.
        let pairs = Pairs::new(2, 3);
        for v in 0..3 {
            for w in (0..3).filter(|&w| w != v) {
                for a in 0..6 {
                    for b in 0..6 {
                        let mut got = Vec::new();
                        pairs.admitted(v, w, a, b, |s, d| got.push((s, d)));
                        assert_eq!(got.len() as u64, pairs.count(v, w, a, b));
                        assert!(got.iter().all(|&(s, d)| s / 2 == v && d / 2 == w));
                        assert!(
                            got.iter().all(|&(s, _)| s == got[0].0)
                                || got.iter().all(|&(_, d)| d == got[0].1)
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn note_minimum_values() {
        // Note §3 C-T1.1: (2,2) -> 2, (3,2) -> 3, (2,3) -> 4, (2,4) -> 4, (3,3) -> 5 or 6.
        let cfg = MinTopSearch::default();
        for (n, r, min) in [(2, 2, 2), (3, 2, 3), (2, 3, 4), (2, 4, 4), (3, 3, 6)] {
            let got = min_top_switches(n, r, &cfg).unwrap();
            assert_eq!(got.exact(), Some(min), "n={n} r={r}: {got:?}");
            assert_eq!(got.certificate.params(), (n, min, r));
            assert!(got.certificate.is_single_path());
            let net = clos(n, min, r).unwrap();
            assert!(
                check_nonblocking(&net, &got.certificate)
                    .unwrap()
                    .is_nonblocking()
            );
            assert!(u64::from(min) >= got.theorem1_bound);
        }
        // (3, 3): m = 5 is ruled out by the search, not by counting (5·12 >= 54).
        let got = min_top_switches(3, 3, &cfg).unwrap();
        assert_eq!(got.top_capacity, Some(12));
        assert_eq!(got.counting_bound, Some(5));
        assert!(matches!(
            got.steps[..],
            [
                MinTopStep::Counting { m: 4 },
                MinTopStep::Search { m: 5, .. },
                MinTopStep::Found { m: 6, .. }
            ]
        ));
        // (2, 4): counting alone gives n² (4·12 = 48 = r(r−1)n²), below 2n+1.
        let got = min_top_switches(2, 4, &cfg).unwrap();
        assert_eq!(
            got.steps,
            vec![MinTopStep::Counting { m: 3 }, MinTopStep::Theorem3 { m: 4 }]
        );
    }

    #[test]
    fn trivial_cases() {
        let cfg = MinTopSearch::default();
        let one = min_top_switches(3, 1, &cfg).unwrap();
        assert_eq!((one.exact(), one.cross_pairs), (Some(1), 0));
        let unary = min_top_switches(1, 7, &cfg).unwrap();
        assert_eq!(unary.exact(), Some(1));
        assert_eq!(unary.steps, vec![MinTopStep::Theorem3 { m: 1 }]);
        assert_eq!(unary.top_capacity, None);
        assert!(matches!(
            min_top_switches(0, 3, &cfg),
            Err(OfflineError::OutOfRange { param: "n", .. })
        ));
    }
}
