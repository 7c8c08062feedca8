//! Leiserson's balanced decomposition trees (Leiserson, *Fat-Trees: Universal Networks for
//! Hardware-Efficient Supercomputing* (1985), §V): Lemma 6 (two strings of pearls halved with
//! at most two cuts), Lemma 7 (the forest of complete subtrees over an interval of leaves) and
//! Theorem 8 / Corollary 9 (a decomposition tree made balanced, with its bandwidth bound).
//!
//! A decomposition tree `T` of a network is drawn with its `2^r` leaves on a line; a leaf
//! holds a processor (a black pearl) or not (a white pearl). Theorem 8 halves the line again
//! and again with Lemma 6, so that every set of the balanced tree `T'` has its processors
//! split evenly (within one) between its two children and is at most two strings of
//! consecutive `T`-leaves; by Lemma 7 such a set is a forest of complete subtrees of `T` with
//! at most four trees of each height, so its bandwidth is at most the sum of its roots'
//! bandwidths, at most `w'_i = 4 Σ_{k=i}^{r} w_k` at level `i`.
//!
//! **Key design decision: the constructions return their pieces, and checks recount them.**
//! [`split_pearls`] returns the two sets as lists of intervals of the input strings,
//! [`interval_forest`] the subtrees as `(start, height)`, [`balance`] every set of every level
//! as intervals of `T`-leaves with its processor count; nothing is summarised, so tests and
//! the reproduction recount cuts, strings, colours, coverage and bandwidths from the pieces.
//!
//! Choices the paper leaves open, recorded here:
//! - **Lemma 6's moves are a reconstruction.** The paper's Figure 4 is lost from the text we
//!   have; only its caption and the proof survive ("rotate A counterclockwise … then break A
//!   into two pieces and rotate the trailing piece clockwise until it meets the leading piece
//!   on the other side"). With the long string `L` at circle positions `0..|L|` and the short
//!   one `S` after it, `h` half the pearls, we take A first as the last `h` pearls of `L`, then
//!   the arcs `[t, t + h)` for `t = h − |S| ..= h` (rotation), then `S ∪ L[x, x + h − |S|)` for
//!   `x = h` down to `0` (the trailing piece moves along `L`), which ends at the complement of
//!   the first position. Each move changes A's black count by at most one, every position is
//!   at most two strings on both sides with at most two cuts, so the first position with the
//!   wanted black count is returned. (Sliding one arc all the way round is not enough: its
//!   complement can be three strings.)
//! - **Odd colour counts.** The lemma assumes even numbers of black and of white pearls;
//!   Theorem 8 needs it for any number of black pearls (a set of the balanced tree can hold an
//!   odd number of processors). [`split_pearls`] needs only an even total and gives the first
//!   set `⌊B/2⌋` of the `B` black pearls; the same continuity argument applies, since the
//!   black count moves by at most one from `b` to `B − b` and `⌊B/2⌋` lies between them.
//! - **Depth of the balanced tree.** The paper stops at level `⌈lg n⌉` with its convention
//!   `lg x = max(1, log₂ x)`; we use `⌈log₂ n⌉` (0 for one processor or none), which is at
//!   most `r` (the `n` processors sit on `2^r` leaves) so every set that is split has an even
//!   number of leaves, and after it every set holds at most one processor, as the proof says.
//! - Which half of a split becomes the left child of `T'` is free: the first set of
//!   [`split_pearls`] (the one with `⌊B/2⌋` processors) is the left one.

use std::ops::Range;

use serde::Serialize;

use crate::OfflineError;

/// A piece of a string of pearls: pearls `start..end` of input string `string` (0 or 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Piece {
    /// Which of the two input strings.
    pub string: usize,
    /// First pearl of the piece.
    pub start: usize,
    /// One past the last pearl.
    pub end: usize,
}

impl Piece {
    /// Number of pearls.
    pub fn len(&self) -> usize {
        self.end - self.start
    }

    /// Whether the piece holds no pearl (never the case in a [`PearlSplit`]).
    pub fn is_empty(&self) -> bool {
        self.end == self.start
    }
}

/// Lemma 6's two sets: each at most two non-empty pieces, together exactly the input pearls.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PearlSplit {
    /// Half of the pearls, with `⌊B/2⌋` of the `B` black ones.
    pub first: Vec<Piece>,
    /// The other half, with `⌈B/2⌉` black ones.
    pub second: Vec<Piece>,
}

/// Lemma 6: divides two strings of pearls (`true` = black) into two sets of half the pearls
/// each, the first with `⌊B/2⌋` of the `B` black pearls, each set at most two strings,
/// cutting the strings at most twice.
///
/// Either string may be empty and either may be the longer. The paper's statement (even
/// numbers of both colours) gives exactly half of each colour; see the module documentation
/// for the reconstruction of its moves and for odd colour counts.
///
/// # Errors
///
/// [`OfflineError::OddPearlCount`] when the two strings hold an odd number of pearls.
pub fn split_pearls(strings: [&[bool]; 2]) -> Result<PearlSplit, OfflineError> {
    let total = strings[0].len() + strings[1].len();
    if total % 2 == 1 {
        return Err(OfflineError::OddPearlCount {
            pearls: total as u64,
        });
    }
    // L is the longer string (the first on ties), S the other.
    let (li, si) = if strings[0].len() >= strings[1].len() {
        (0, 1)
    } else {
        (1, 0)
    };
    let (l, s) = (strings[li], strings[si]);
    let (nl, ns, h) = (l.len(), s.len(), total / 2);
    // Prefix sums of black pearls on L and S.
    let prefix = |x: &[bool]| -> Vec<usize> {
        let mut p = Vec::with_capacity(x.len() + 1);
        p.push(0);
        for &b in x {
            p.push(p[p.len() - 1] + usize::from(b));
        }
        p
    };
    let (pl, ps) = (prefix(l), prefix(s));
    let black = pl[nl] + ps[ns];
    let want = black / 2;
    let piece = |string: usize, start: usize, end: usize| Piece { string, start, end };
    let nonempty =
        |v: Vec<Piece>| -> Vec<Piece> { v.into_iter().filter(|p| p.end > p.start).collect() };
    // Phase 1: A = circle arc [t, t + h), t = h − |S| ..= h; L-tail [t, |L|) and S-head.
    for t in (h - ns)..=h {
        let s_end = t + h - nl; // pearls of S in A: S[0, s_end)
        let a = pl[nl] - pl[t] + ps[s_end];
        if a == want {
            return Ok(PearlSplit {
                first: nonempty(vec![piece(li, t, nl), piece(si, 0, s_end)]),
                second: nonempty(vec![piece(li, 0, t), piece(si, s_end, ns)]),
            });
        }
    }
    // Phase 2: A = L[x, x + h − |S|) ∪ S, x = h down to 0.
    let width = h - ns;
    for x in (0..=h).rev() {
        let a = pl[x + width] - pl[x] + ps[ns];
        if a == want {
            return Ok(PearlSplit {
                first: nonempty(vec![piece(li, x, x + width), piece(si, 0, ns)]),
                second: nonempty(vec![piece(li, 0, x), piece(li, x + width, nl)]),
            });
        }
    }
    unreachable!("Lemma 6: the black count of A moves by one from b to B − b, so it meets ⌊B/2⌋")
}

/// A complete subtree of a complete binary tree drawn with its leaves on a line: leaves
/// `start..start + 2^height` (so `start` is a multiple of `2^height`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Subtree {
    /// Its first leaf.
    pub start: u64,
    /// Its height (0 for a single leaf).
    pub height: u32,
}

impl Subtree {
    /// Its leaves.
    pub fn leaves(&self) -> Range<u64> {
        self.start..self.start + (1 << self.height)
    }
}

/// Lemma 7: the maximal complete subtrees of the complete binary tree on `2^levels` leaves
/// whose leaves lie in `start..start + len`, left to right. They cover the interval exactly,
/// there are at most two of each height, and the highest is at most `lg len` high.
///
/// An empty interval has an empty forest.
///
/// # Errors
///
/// [`OfflineError::OutOfRange`] when `levels > 62` or the interval ends after the last leaf.
pub fn interval_forest(levels: u32, start: u64, len: u64) -> Result<Vec<Subtree>, OfflineError> {
    if levels > 62 {
        return Err(OfflineError::OutOfRange {
            param: "levels",
            value: u64::from(levels),
            allowed: "at most 62",
        });
    }
    let end = start.checked_add(len).filter(|&e| e <= 1 << levels);
    let Some(end) = end else {
        return Err(OfflineError::OutOfRange {
            param: "interval end",
            value: start.saturating_add(len),
            allowed: "at most the tree's 2^levels leaves",
        });
    };
    let mut forest = Vec::new();
    let mut a = start;
    while a < end {
        // The largest aligned block at a that fits (a = 0 is aligned to every size).
        let mut height = if a == 0 { levels } else { a.trailing_zeros() };
        while a + (1 << height) > end {
            height -= 1;
        }
        forest.push(Subtree { start: a, height });
        a += 1 << height;
    }
    Ok(forest)
}

/// A set of Theorem 8's balanced decomposition tree: at most two strings of consecutive leaves
/// of the original tree `T`, and the processors on them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BalancedSet {
    /// Its strings of `T`-leaves, each non-empty (none for an empty line).
    pub strings: Vec<Range<u64>>,
    /// Processors (occupied leaves) in the set.
    pub processors: u64,
}

impl BalancedSet {
    /// Number of `T`-leaves in the set.
    pub fn leaves(&self) -> u64 {
        self.strings.iter().map(|s| s.end - s.start).sum()
    }
}

/// Theorem 8's balanced decomposition tree `T'`: `levels[i]` holds the `2^i` sets of level `i`,
/// left to right; the children of set `j` of level `i` are sets `2j` and `2j + 1` of level
/// `i + 1`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BalancedTree {
    /// `lg` of the number of `T`-leaves (`r`).
    pub t_levels: u32,
    /// Sets per level, level 0 (the whole line) to level `⌈log₂ n⌉`.
    pub levels: Vec<Vec<BalancedSet>>,
}

/// Theorem 8: the balanced decomposition tree of a decomposition tree `T` whose `2^r` leaves,
/// left to right, hold a processor where `occupied` is `true`.
///
/// Every set is halved with [`split_pearls`] (its two strings, its processors within one),
/// down to level `⌈log₂ n⌉` for `n` processors, where every set holds at most one processor.
///
/// # Errors
///
/// [`OfflineError::OutOfRange`] unless `occupied` has a power-of-two length up to `2^40`.
pub fn balance(occupied: &[bool]) -> Result<BalancedTree, OfflineError> {
    let len = occupied.len() as u64;
    if !len.is_power_of_two() || len > 1 << 40 {
        return Err(OfflineError::OutOfRange {
            param: "leaves of the decomposition tree",
            value: len,
            allowed: "a power of two, at most 2^40",
        });
    }
    let t_levels = len.trailing_zeros();
    let n = occupied.iter().filter(|&&b| b).count() as u64;
    let depth = if n <= 1 { 0 } else { (n - 1).ilog2() + 1 };
    let mut levels = vec![vec![BalancedSet {
        strings: std::iter::once(0..len).collect(),
        processors: n,
    }]];
    for _ in 0..depth {
        let mut next = Vec::new();
        for set in &levels[levels.len() - 1] {
            let slice = |i: usize| -> &[bool] {
                set.strings
                    .get(i)
                    .map_or(&[][..], |r| &occupied[r.start as usize..r.end as usize])
            };
            let halves = split_pearls([slice(0), slice(1)])?;
            for half in [halves.first, halves.second] {
                let strings: Vec<Range<u64>> = half
                    .iter()
                    .map(|p| {
                        let base = set.strings[p.string].start;
                        base + p.start as u64..base + p.end as u64
                    })
                    .collect();
                let processors = strings
                    .iter()
                    .map(|r| {
                        occupied[r.start as usize..r.end as usize]
                            .iter()
                            .filter(|&&b| b)
                            .count() as u64
                    })
                    .sum();
                next.push(BalancedSet {
                    strings,
                    processors,
                });
            }
        }
        levels.push(next);
    }
    Ok(BalancedTree { t_levels, levels })
}

/// Checks bandwidths `w_0, …, w_r` of a decomposition tree with `2^r` leaves.
fn check_bandwidths(t_levels: u32, w: &[f64]) -> Result<(), OfflineError> {
    if w.len() != t_levels as usize + 1 {
        return Err(OfflineError::OutOfRange {
            param: "bandwidths",
            value: w.len() as u64,
            allowed: "one per level of the decomposition tree, r + 1",
        });
    }
    match w.iter().position(|x| !(x.is_finite() && *x >= 0.0)) {
        Some(level) => Err(OfflineError::InvalidBandwidth { level }),
        None => Ok(()),
    }
}

impl BalancedTree {
    /// Theorem 8's bound on a set's bandwidth: the sum, over the roots of the [`interval_forest`]
    /// of each of its strings, of the bandwidth `w_k` of the root's level `k` in `T` (all
    /// external communication of a complete subtree of `T` crosses its root's surface).
    /// Per level of `T'`, per set, in the order of [`BalancedTree::levels`].
    ///
    /// # Errors
    ///
    /// [`OfflineError::OutOfRange`] unless `w` has `r + 1` values,
    /// [`OfflineError::InvalidBandwidth`] for a negative or non-finite one.
    pub fn forest_bandwidths(&self, w: &[f64]) -> Result<Vec<Vec<f64>>, OfflineError> {
        check_bandwidths(self.t_levels, w)?;
        self.levels
            .iter()
            .map(|sets| {
                sets.iter()
                    .map(|set| {
                        let mut sum = 0.0;
                        for s in &set.strings {
                            for t in interval_forest(self.t_levels, s.start, s.end - s.start)? {
                                sum += w[(self.t_levels - t.height) as usize];
                            }
                        }
                        Ok(sum)
                    })
                    .collect()
            })
            .collect()
    }
}

/// Theorem 8's bandwidths of the balanced tree: `w'_i = 4 Σ_{k=i}^{r} w_k` for `i = 0..=r`.
///
/// # Errors
///
/// As [`BalancedTree::forest_bandwidths`], with `r = w.len() − 1`.
pub fn theorem8_bandwidths(w: &[f64]) -> Result<Vec<f64>, OfflineError> {
    let r = w.len().checked_sub(1).ok_or(OfflineError::OutOfRange {
        param: "bandwidths",
        value: 0,
        allowed: "one per level of the decomposition tree, r + 1",
    })?;
    check_bandwidths(r as u32, w)?;
    let mut out = vec![0.0; w.len()];
    let mut tail = 0.0;
    for i in (0..w.len()).rev() {
        tail += w[i];
        out[i] = 4.0 * tail;
    }
    Ok(out)
}

/// Corollary 9's factor: a `(w, α)` decomposition tree, `1 < α ≤ 2`, has a
/// `(4(α/(α−1))·w, α)` balanced one; this is `4α/(α−1)`.
///
/// # Errors
///
/// [`OfflineError::OutOfRange`] unless `1 < α ≤ 2` (the value is reported in thousandths).
pub fn corollary9_factor(alpha: f64) -> Result<f64, OfflineError> {
    if !(alpha > 1.0 && alpha <= 2.0) {
        return Err(OfflineError::OutOfRange {
            param: "alpha (in thousandths)",
            value: if alpha.is_finite() && alpha > 0.0 {
                (alpha * 1000.0).round() as u64
            } else {
                0
            },
            allowed: "1 < alpha <= 2",
        });
    }
    Ok(4.0 * alpha / (alpha - 1.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lemma7_forest_of_a_worked_interval() {
        // Leaves 3..13 of a 16-leaf tree: [3], [4..8), [8..12), [12].
        let f = interval_forest(4, 3, 10).unwrap();
        let got: Vec<(u64, u32)> = f.iter().map(|t| (t.start, t.height)).collect();
        assert_eq!(got, vec![(3, 0), (4, 2), (8, 2), (12, 0)]);
        assert!(interval_forest(4, 3, 14).is_err());
        assert_eq!(
            interval_forest(4, 0, 16).unwrap(),
            vec![Subtree {
                start: 0,
                height: 4
            }]
        );
    }

    #[test]
    fn lemma6_refuses_an_odd_total() {
        assert_eq!(
            split_pearls([&[true, false], &[true]]),
            Err(OfflineError::OddPearlCount { pearls: 3 })
        );
    }

    #[test]
    fn lemma6_worked_example_needs_the_trailing_piece() {
        // L = BBWW, S empty: A starts as the last half WW (no black; one is wanted); the
        // rotation has the one position t = 2, so the trailing piece moves to [1, 3) = BW.
        let l = [true, true, false, false];
        let s = split_pearls([&l, &[]]).unwrap();
        assert_eq!(
            s.first,
            vec![Piece {
                string: 0,
                start: 1,
                end: 3
            }]
        );
        assert_eq!(s.second.len(), 2);
    }

    #[test]
    fn bad_bandwidths_are_refused() {
        assert_eq!(
            theorem8_bandwidths(&[1.0, f64::NAN]),
            Err(OfflineError::InvalidBandwidth { level: 1 })
        );
        assert!(theorem8_bandwidths(&[]).is_err());
        assert!(corollary9_factor(1.0).is_err());
        assert!(balance(&[true, false, true]).is_err());
        let t = balance(&[true, false, true, true]).unwrap();
        assert!(t.forest_bandwidths(&[1.0, 1.0]).is_err());
    }
}
