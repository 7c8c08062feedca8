//! Yuan's local adaptive routing NONBLOCKINGADAPTIVE (§V, Fig. 4, Lemmas 3–5, Theorems 4–5;
//! Fig. 4's pseudo-code leaves details open, so this is our reconstruction from it and the
//! proofs).
//!
//! Reconstruction choices, all from the note (the OCR of Fig. 4 is garbled, §6 items 5–9):
//!
//! - **Digits.** Bottom switch `b` is written with `c` base-`n` digits `s_{c−1} … s_0`,
//!   `s_k = (b / n^k) mod n`, with `r <= n^c` (the note's reading of "r < n^c", §6.11); by
//!   default `c = ⌈log_n r⌉ >= 1` ([`min_digits`]). Leaf `x` is `s_{c−1} … s_0 p` with
//!   `p = x mod n`. This needs `n >= 2`.
//! - **Keys.** Partition `q` (0-based; the paper's partition `q+1`) sends destination `d` to
//!   key `p` for `q = 0` and `(s_{q−1} − p) mod n` (non-negative) for `q >= 1`: the paper's
//!   "top switch i carries destinations (s_0 = (i+j)%n, p = j)" for partition 2, confirmed
//!   by Lemma 4's proof. For a fixed destination switch the key is a bijection of
//!   `p` (Lemma 4, Class DIFF).
//! - **Physical tops.** Configuration `X`, partition `q`, key `t` is top switch
//!   `X·(c+1)·n + q·n + t` (the concrete form of the merge of lines (14)–(16)): partition `q`
//!   of configuration `X` uses the same `n` top switches in every bottom switch.
//! - **Greedy step (lines 6–10).** Among the unused partitions of the current configuration
//!   take one whose number of distinct keys over the remaining pairs is largest ("the largest
//!   subset that can be routed", Lemma 5), route one representative per key on it, remove
//!   them, mark the partition used; open a new configuration when all are used. Ties are
//!   unspecified in the paper and change the number of configurations, so
//!   both are parameters: [`PartitionTie`] (default: lowest partition) and
//!   [`Representative`] (default: smallest destination id).
//! - **Pairs within one bottom switch** (and self pairs) are not in `P^i`: they turn around
//!   in the bottom switch and get no top.
//! - **Locality (P2).** A switch's routes are computed from the *set* of its own pairs,
//!   sorted by destination, so they depend neither on other switches' pairs nor on the
//!   order of the message set.
//! - **Counting.** `configurations` is the paper's `totalconf = max_i x_i` and
//!   `tops_needed = totalconf·(c+1)·n` its `m` for this permutation; `tops_spanned` is one
//!   more than the largest top actually used, which is what must fit in `m`.

use fatnet_topology::FoldedClos;
use fatnet_traffic::MessageSet;
use serde::Serialize;

use super::{SimReport, is_cross, simulate};
use crate::OfflineError;

/// Which unused partition the greedy step takes when several route equally many pairs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PartitionTie {
    /// The lowest partition number (the paper's first partition first).
    #[default]
    Lowest,
    /// The highest partition number.
    Highest,
}

/// Which pair represents a key when several remaining pairs of a switch share it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Representative {
    /// The pair with the smallest destination id.
    #[default]
    SmallestDestination,
    /// The pair with the largest destination id.
    LargestDestination,
}

/// Options of [`nonblocking_adaptive`]. The default is the note's recommendation: minimal
/// digits, lowest partition, smallest destination.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
pub struct AdaptiveConfig {
    /// The number of base-`n` digits `c` of a bottom switch (needs `r <= n^c`); `None` for
    /// [`min_digits`].
    pub digits: Option<u32>,
    /// Tie between partitions.
    pub partition_tie: PartitionTie,
    /// Representative of a key.
    pub representative: Representative,
}

/// The routes NONBLOCKINGADAPTIVE gives one permutation, with their counts and the
/// simulator's verdict.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct AdaptiveRouting {
    /// The digits `c` used.
    pub digits: u32,
    /// The top switch of each message, by message id (`None` within one bottom switch).
    pub tops: Vec<Option<u32>>,
    /// The paper's `totalconf`: the most configurations any bottom switch opened.
    pub configurations: u32,
    /// Configurations opened by each bottom switch (`x_i`).
    pub switch_configurations: Vec<u32>,
    /// Top switches per configuration, `(c+1)·n`.
    pub tops_per_configuration: u32,
    /// `totalconf·(c+1)·n`: the paper's count of top switches for this permutation.
    pub tops_needed: u64,
    /// One more than the largest top switch used (0 when no pair crosses switches).
    pub tops_spanned: u32,
    /// The simulator on these routes: contention-free by Theorem 4.
    pub report: SimReport,
}

/// The smallest `c >= 1` with `r <= n^c`, or `None` when `n < 2` (no base-`n` digits).
pub fn min_digits(n: u32, r: u32) -> Option<u32> {
    if n < 2 {
        return None;
    }
    let (mut c, mut pow) = (1u32, u64::from(n));
    while pow < u64::from(r) {
        c += 1;
        pow *= u64::from(n);
    }
    Some(c)
}

/// Top switches that suffice for every permutation: `⌈n/(c+2)⌉·(c+1)·n` (the remark
/// before Theorem 5, with a ceiling). The first partition of a configuration routes
/// two pairs whenever two remain (two distinct destinations differ in some key), every other
/// partition at least one, and a switch has at most `n` pairs. The paper's
/// `(c+1)n²/(c+2) < n²` drops the ceiling and fails for small `n`.
pub fn adaptive_top_bound(n: u32, digits: u32) -> u64 {
    let (n, c) = (u64::from(n), u64::from(digits));
    n.div_ceil(c + 2) * (c + 1) * n
}

/// The partition key of destination `d` (§V, Lemma 3): `p` for `q = 0`, `(s_{q−1} − p) mod n`
/// otherwise.
fn key(n: u32, q: u32, d: u32) -> u32 {
    let p = d % n;
    if q == 0 {
        return p;
    }
    let b = u64::from(d / n);
    let digit = (b / u64::from(n).pow(q - 1) % u64::from(n)) as u32;
    (digit + n - p) % n
}

/// Routes one bottom switch's pairs (`(destination, message id)`, any order): returns
/// `(message id, top)` for each and the number of configurations opened.
fn route_switch(
    n: u32,
    c: u32,
    config: &AdaptiveConfig,
    mut pending: Vec<(u32, usize)>,
) -> (Vec<(usize, u64)>, u32) {
    pending.sort_unstable();
    let per_conf = u64::from(c + 1) * u64::from(n);
    let mut routes = Vec::with_capacity(pending.len());
    let mut configurations = 0u32;
    let mut seen = vec![false; n as usize];
    while !pending.is_empty() {
        let x = u64::from(configurations);
        configurations += 1;
        let mut unused = vec![true; c as usize + 1];
        while !pending.is_empty() && unused.iter().any(|&u| u) {
            // Line 7: the unused partition with the most distinct keys.
            let mut best: Option<(u32, usize)> = None;
            for q in 0..=c {
                if !unused[q as usize] {
                    continue;
                }
                seen.iter_mut().for_each(|s| *s = false);
                let mut distinct = 0;
                for &(d, _) in &pending {
                    let k = key(n, q, d) as usize;
                    if !seen[k] {
                        seen[k] = true;
                        distinct += 1;
                    }
                }
                let better = match (best, config.partition_tie) {
                    (None, _) => true,
                    (Some((_, b)), PartitionTie::Lowest) => distinct > b,
                    (Some((_, b)), PartitionTie::Highest) => distinct >= b,
                };
                if better {
                    best = Some((q, distinct));
                }
            }
            let (q, _) = best.expect("an unused partition exists");
            // Lines 8–10: one representative per key, routed on partition q.
            let mut chosen: Vec<Option<usize>> = vec![None; n as usize];
            for (i, &(d, _)) in pending.iter().enumerate() {
                let slot = &mut chosen[key(n, q, d) as usize];
                match config.representative {
                    Representative::SmallestDestination => {
                        slot.get_or_insert(i);
                    }
                    Representative::LargestDestination => *slot = Some(i),
                }
            }
            let mut take = vec![false; pending.len()];
            for (k, i) in chosen.iter().enumerate() {
                if let Some(i) = *i {
                    take[i] = true;
                    let top = x * per_conf + u64::from(q) * u64::from(n) + k as u64;
                    routes.push((pending[i].1, top));
                }
            }
            let mut i = 0;
            pending.retain(|_| {
                i += 1;
                !take[i - 1]
            });
            unused[q as usize] = false;
        }
    }
    (routes, configurations)
}

/// Yuan's NONBLOCKINGADAPTIVE on one (partial) permutation of `clos`'s leaves: a top switch
/// per pair across bottom switches, chosen by each source switch from its own pairs only,
/// and the simulator's report on the result (Theorem 4: contention-free). See the module
/// documentation for every reconstruction choice.
///
/// # Errors
///
/// - [`OfflineError::ProcessorMismatch`] when `permutation` is not on `clos`'s processors;
/// - [`OfflineError::MessagesNotPermutation`] when a source or destination repeats;
/// - [`OfflineError::OutOfRange`] when `n < 2` (`param: "n"`) or the given digits do not
///   satisfy `c >= 1`, `r <= n^c` (`param: "digits"`);
/// - [`OfflineError::TooFewTopSwitches`] when this permutation needs a top switch `>= m`
///   ([`adaptive_top_bound`] gives an `m` that suffices for every permutation).
pub fn nonblocking_adaptive(
    clos: &FoldedClos,
    permutation: &MessageSet,
    config: &AdaptiveConfig,
) -> Result<AdaptiveRouting, OfflineError> {
    if permutation.processors() != clos.ports() {
        return Err(OfflineError::ProcessorMismatch {
            messages: u64::from(permutation.processors()),
            topology: u64::from(clos.ports()),
        });
    }
    let (n, r) = (clos.n(), clos.r());
    let Some(min_c) = min_digits(n, r) else {
        return Err(OfflineError::OutOfRange {
            param: "n",
            value: u64::from(n),
            allowed: "n >= 2 (switches are numbered in base n)",
        });
    };
    let c = match config.digits {
        None => min_c,
        Some(c) if c >= min_c => c,
        Some(c) => {
            return Err(OfflineError::OutOfRange {
                param: "digits",
                value: u64::from(c),
                allowed: "c >= 1 with r <= n^c",
            });
        }
    };
    if c >= 32 {
        // (c+1)·n tops per configuration would not be a u32 top id anyway.
        return Err(OfflineError::OutOfRange {
            param: "digits",
            value: u64::from(c),
            allowed: "c < 32",
        });
    }
    let p = clos.ports() as usize;
    let (mut sends, mut receives) = (vec![false; p], vec![false; p]);
    let mut by_switch: Vec<Vec<(u32, usize)>> = vec![Vec::new(); r as usize];
    for (i, m) in permutation.messages().iter().enumerate() {
        let (s, d) = (m.src as usize, m.dst as usize);
        if sends[s] || receives[d] {
            return Err(OfflineError::MessagesNotPermutation { message: i as u32 });
        }
        sends[s] = true;
        receives[d] = true;
        if is_cross(clos, m.src, m.dst) {
            by_switch[clos.bottom_switch(m.src) as usize].push((m.dst, i));
        }
    }
    let mut tops = vec![None; permutation.len()];
    let mut switch_configurations = Vec::with_capacity(r as usize);
    let mut spanned = 0u64;
    for pending in by_switch {
        let (routes, confs) = route_switch(n, c, config, pending);
        switch_configurations.push(confs);
        for (i, t) in routes {
            spanned = spanned.max(t + 1);
            if t >= u64::from(clos.m()) {
                // Keep scanning for the full need, then fail below.
                continue;
            }
            tops[i] = Some(t as u32);
        }
    }
    if spanned > u64::from(clos.m()) {
        return Err(OfflineError::TooFewTopSwitches {
            what: "NONBLOCKINGADAPTIVE on this permutation",
            needed: spanned,
            m: u64::from(clos.m()),
        });
    }
    let configurations = switch_configurations.iter().copied().max().unwrap_or(0);
    let tops_per_configuration = (c + 1) * n;
    let report = simulate(clos, permutation, &tops)?;
    Ok(AdaptiveRouting {
        digits: c,
        tops,
        configurations,
        switch_configurations,
        tops_per_configuration,
        tops_needed: u64::from(configurations) * u64::from(tops_per_configuration),
        tops_spanned: spanned as u32,
        report,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use fatnet_traffic::Message;

    #[test]
    fn digits_and_bound() {
        assert_eq!(min_digits(2, 4), Some(2));
        assert_eq!(min_digits(2, 5), Some(3));
        assert_eq!(min_digits(3, 3), Some(1));
        assert_eq!(min_digits(6, 36), Some(2));
        assert_eq!(min_digits(6, 42), Some(3));
        assert_eq!(min_digits(4, 1), Some(1));
        assert_eq!(min_digits(1, 4), None);
        // Note §3: n=2, c=2 gives 6 > 4; n=5, c=2 gives 30 > 25; n=6, c=3 gives 48 > 36.
        assert_eq!(adaptive_top_bound(2, 2), 6);
        assert_eq!(adaptive_top_bound(5, 2), 30);
        assert_eq!(adaptive_top_bound(6, 3), 48);
        assert_eq!(adaptive_top_bound(8, 2), 2 * 3 * 8);
    }

    #[test]
    fn keys_are_class_diff() {
        // Lemma 4 (note C-L4): for every partition and destination switch, p -> key is a
        // bijection of Z_n.
        for (n, r) in [(2, 4), (3, 9), (3, 7), (4, 16), (5, 30)] {
            let c = min_digits(n, r).unwrap();
            for q in 0..=c {
                for b in 0..r {
                    let mut keys: Vec<u32> = (0..n).map(|p| key(n, q, b * n + p)).collect();
                    keys.sort_unstable();
                    assert_eq!(keys, (0..n).collect::<Vec<_>>(), "n={n} q={q} b={b}");
                }
            }
        }
        // Partition 2 of the paper (q = 1): destination s_0 = 0, p = 1 goes to (0 − 1) mod 3.
        assert_eq!(key(3, 1, 1), 2);
    }

    #[test]
    fn note_witness_needs_two_configurations_with_default_ties() {
        // Note C-T5.1: n = 6, c = 2 (r = 36); six destinations with p = 0, s_0 in {0, 1},
        // s_1 in {0, 1, 2}, all from source switch 35, need 2 configurations greedily.
        let clos = FoldedClos::new(6, 36, 36).unwrap();
        let mut msgs = Vec::new();
        for (k, (s0, s1)) in [(0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (1, 2)]
            .into_iter()
            .enumerate()
        {
            let b = s1 * 6 + s0;
            msgs.push(Message::new(35 * 6 + k as u32, b * 6));
        }
        let perm = MessageSet::new(216, msgs).unwrap();
        let out = nonblocking_adaptive(&clos, &perm, &AdaptiveConfig::default()).unwrap();
        assert_eq!(out.digits, 2);
        assert_eq!(out.configurations, 2);
        assert_eq!(out.tops_needed, 36);
        assert!(out.report.is_contention_free());
        assert_eq!(out.switch_configurations[35], 2);
        assert_eq!(out.switch_configurations[0], 0);
    }

    #[test]
    fn errors() {
        let clos = FoldedClos::new(2, 6, 4).unwrap();
        let rep = MessageSet::new(8, vec![Message::new(0, 2), Message::new(1, 2)]).unwrap();
        assert_eq!(
            nonblocking_adaptive(&clos, &rep, &AdaptiveConfig::default()),
            Err(OfflineError::MessagesNotPermutation { message: 1 })
        );
        let ok = MessageSet::new(8, vec![Message::new(0, 2), Message::new(1, 3)]).unwrap();
        let one_digit = AdaptiveConfig {
            digits: Some(1),
            ..AdaptiveConfig::default()
        };
        assert!(matches!(
            nonblocking_adaptive(&clos, &ok, &one_digit),
            Err(OfflineError::OutOfRange {
                param: "digits",
                value: 1,
                ..
            })
        ));
        let unary = FoldedClos::new(1, 3, 4).unwrap();
        assert!(matches!(
            nonblocking_adaptive(
                &unary,
                &MessageSet::empty(4).unwrap(),
                &AdaptiveConfig::default()
            ),
            Err(OfflineError::OutOfRange { param: "n", .. })
        ));
        // Two pairs from switch 0 to destinations with the same p and the same s_0 but
        // different s_1 fit partition 2 only: top 2·2 + key, beyond m = 4.
        let clos = FoldedClos::new(2, 4, 4).unwrap();
        let perm = MessageSet::new(8, vec![Message::new(0, 2), Message::new(1, 6)]).unwrap();
        assert_eq!(
            nonblocking_adaptive(&clos, &perm, &AdaptiveConfig::default()),
            Err(OfflineError::TooFewTopSwitches {
                what: "NONBLOCKINGADAPTIVE on this permutation",
                needed: 6,
                m: 4
            })
        );
    }
}
