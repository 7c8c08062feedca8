//! Properties of Leiserson's balanced decomposition trees (*Fat-Trees* (1985), §V): Lemma 6,
//! Lemma 7, Theorem 8 and Corollary 9, as the paper states them, recounted from the pieces.

use fatnet_offline::decomposition::{
    Piece, balance, corollary9_factor, interval_forest, split_pearls, theorem8_bandwidths,
};
use proptest::prelude::*;

/// Interior cut points of a set of pieces over strings of the given lengths: the boundaries
/// strictly inside a string where a piece starts or ends.
fn cuts(pieces: &[&[Piece]], lens: [usize; 2]) -> usize {
    let mut points: Vec<(usize, usize)> = pieces
        .iter()
        .flat_map(|ps| ps.iter())
        .flat_map(|p| [(p.string, p.start), (p.string, p.end)])
        .filter(|&(s, x)| x > 0 && x < lens[s])
        .collect();
    points.sort_unstable();
    points.dedup();
    points.len()
}

fn blacks(pieces: &[Piece], strings: [&[bool]; 2]) -> usize {
    pieces
        .iter()
        .map(|p| {
            strings[p.string][p.start..p.end]
                .iter()
                .filter(|&&b| b)
                .count()
        })
        .sum()
}

/// Two strings with an even total of pearls (either may be empty or the longer one).
fn two_strings() -> impl Strategy<Value = (Vec<bool>, Vec<bool>)> {
    (
        prop::collection::vec(any::<bool>(), 0..40),
        prop::collection::vec(any::<bool>(), 0..40),
        any::<bool>(),
    )
        .prop_map(|(mut a, b, extra)| {
            if (a.len() + b.len()) % 2 == 1 {
                a.push(extra);
            }
            (a, b)
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Lemma 6: at most two cuts, each set at most two strings, together a partition of the
    /// pearls, and each set half the pearls of each colour (⌊B/2⌋ / ⌈B/2⌉ when B is odd).
    #[test]
    fn lemma6_halves_both_colours_with_two_cuts((a, b) in two_strings()) {
        let strings: [&[bool]; 2] = [&a, &b];
        let lens = [a.len(), b.len()];
        let s = split_pearls(strings).unwrap();
        prop_assert!(s.first.len() <= 2 && s.second.len() <= 2);
        prop_assert!(s.first.iter().chain(&s.second).all(|p| !p.is_empty()));
        prop_assert!(cuts(&[&s.first, &s.second], lens) <= 2);
        // A partition: every pearl in exactly one piece.
        let mut seen = [vec![0u8; lens[0]], vec![0u8; lens[1]]];
        for p in s.first.iter().chain(&s.second) {
            for c in &mut seen[p.string][p.start..p.end] {
                *c += 1;
            }
        }
        prop_assert!(seen.iter().flatten().all(|&c| c == 1));
        let total = lens[0] + lens[1];
        let black = a.iter().chain(&b).filter(|&&x| x).count();
        let first: usize = s.first.iter().map(|p| p.len()).sum();
        prop_assert_eq!(first, total / 2);
        prop_assert_eq!(blacks(&s.first, strings), black / 2);
        prop_assert_eq!(blacks(&s.second, strings), black - black / 2);
        if black % 2 == 0 {
            // The lemma's case: exactly half of each colour on each side.
            let white = total - black;
            prop_assert_eq!(first - black / 2, white / 2);
        }
    }

    /// Lemma 7: the forest's leaves are exactly the interval, every tree is a complete
    /// subtree of T, at most two trees of each height, the highest at most lg k high.
    #[test]
    fn lemma7_forest_covers_the_interval(levels in 0u32..=24, x in any::<u64>(), y in any::<u64>()) {
        let leaves = 1u64 << levels;
        let (p, q) = (x % (leaves + 1), y % (leaves + 1));
        let (start, end) = (p.min(q), p.max(q));
        let k = end - start;
        let f = interval_forest(levels, start, k).unwrap();
        let mut at = start;
        let mut per_height = vec![0u32; levels as usize + 1];
        for t in &f {
            prop_assert_eq!(t.start, at, "trees are consecutive, left to right");
            prop_assert_eq!(t.start % (1 << t.height), 0, "aligned: a subtree of T");
            at = t.leaves().end;
            per_height[t.height as usize] += 1;
        }
        prop_assert_eq!(at, end);
        prop_assert!(per_height.iter().all(|&c| c <= 2));
        if k > 0 {
            // lg k = max(1, log2 k) (the paper's convention); heights are integers.
            let lg = (k as f64).log2().max(1.0);
            prop_assert!(f.iter().all(|t| f64::from(t.height) <= lg));
        }
        prop_assert!(interval_forest(levels, start, leaves - start + 1).is_err());
    }

    /// Theorem 8 and Corollary 9 on random placements of processors on 2^r leaves and random
    /// bandwidths: balanced within one at every partition, at most two strings per set, at most
    /// one processor per set at level ⌈lg n⌉, and every set's forest bandwidth at most
    /// w'_i = 4 Σ_{k≥i} w_k (and, for (w, α) trees, at most 4α/(α−1) · w/α^i).
    #[test]
    fn theorem8_balanced_tree_obeys_its_bound(
        r in 0u32..=9,
        density in 1u32..=8,
        seed_bits in prop::collection::vec(any::<u32>(), 512),
        ws in prop::collection::vec(0.0f64..100.0, 10),
        alpha in 1.01f64..=2.0,
    ) {
        let len = 1usize << r;
        let occupied: Vec<bool> = (0..len).map(|i| seed_bits[i] % 8 < density).collect();
        let n = occupied.iter().filter(|&&b| b).count() as u64;
        let t = balance(&occupied).unwrap();
        let depth = t.levels.len() - 1;
        prop_assert!(n <= 1 || (1u64 << (depth - 1)) < n && n <= 1u64 << depth, "depth ⌈lg n⌉");
        for (i, sets) in t.levels.iter().enumerate() {
            prop_assert_eq!(sets.len(), 1 << i);
            for set in sets {
                prop_assert!(set.strings.len() <= 2);
                prop_assert_eq!(set.leaves(), (len >> i) as u64);
                let count: u64 = set
                    .strings
                    .iter()
                    .map(|s| occupied[s.start as usize..s.end as usize].iter().filter(|&&b| b).count() as u64)
                    .sum();
                prop_assert_eq!(count, set.processors);
            }
            if i + 1 < t.levels.len() {
                for (j, set) in sets.iter().enumerate() {
                    let (l, rr) = (&t.levels[i + 1][2 * j], &t.levels[i + 1][2 * j + 1]);
                    prop_assert_eq!(l.processors + rr.processors, set.processors);
                    prop_assert!(l.processors.abs_diff(rr.processors) <= 1, "balanced within one");
                }
            }
        }
        prop_assert!(t.levels[depth].iter().all(|s| s.processors <= 1));
        // Theorem 8 with arbitrary non-negative bandwidths.
        let w = &ws[..=r as usize];
        let bound = theorem8_bandwidths(w).unwrap();
        let got = t.forest_bandwidths(w).unwrap();
        for (i, sets) in got.iter().enumerate() {
            for &b in sets {
                prop_assert!(b <= bound[i] * (1.0 + 1e-12), "level {i}: {b} > {}", bound[i]);
            }
        }
        // Corollary 9 with a (w, α) tree: w_k = w_0/α^k.
        let wa: Vec<f64> = (0..=r).map(|k| 100.0 / alpha.powi(k as i32)).collect();
        let factor = corollary9_factor(alpha).unwrap();
        let got = t.forest_bandwidths(&wa).unwrap();
        for (i, sets) in got.iter().enumerate() {
            for &b in sets {
                prop_assert!(b <= factor * wa[i] * (1.0 + 1e-12));
            }
        }
    }
}
