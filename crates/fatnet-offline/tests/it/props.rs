//! Properties of Leiserson's scheduler (paper 004, Theorem 1 and Corollary 2).

use fatnet_load::{LoadFactor, fat_tree_loads};
use fatnet_offline::leiserson::{FictitiousCapacity, ceil_lg, corollary2, split, theorem1};
use fatnet_topology::{CapacityProfile, FatTree};
use fatnet_traffic::{Message, MessageId, MessageSet};
use proptest::prelude::*;

/// A fat-tree with 2^levels processors and random per-height capacities in `lo..=hi`.
fn tree(max_levels: u32, lo: u64, hi: u64) -> impl Strategy<Value = FatTree> {
    (1..=max_levels).prop_flat_map(move |levels| {
        prop::collection::vec(lo..=hi, levels as usize + 1)
            .prop_map(move |caps| FatTree::new(1 << levels, CapacityProfile::Custom(caps)).unwrap())
    })
}

/// Random multisets, half of them skewed towards a hot spot (processor 0 receives a lot).
fn messages(n: u32, max: usize) -> impl Strategy<Value = MessageSet> {
    (prop::collection::vec((0..n, 0..n, any::<bool>()), 0..max)).prop_map(move |v| {
        MessageSet::new(
            n,
            v.into_iter()
                .map(|(s, d, hot)| Message::new(s, if hot { 0 } else { d }))
                .collect(),
        )
        .unwrap()
    })
}

fn tree_and_messages(
    max_levels: u32,
    lo: u64,
    hi: u64,
    max: usize,
) -> impl Strategy<Value = (FatTree, MessageSet)> {
    tree(max_levels, lo, hi).prop_flat_map(move |t| {
        let n = t.n();
        (Just(t), messages(n, max))
    })
}

fn sub_loads(tree: &FatTree, m: &MessageSet, ids: &[MessageId]) -> Vec<u64> {
    let sub = MessageSet::new(
        m.processors(),
        ids.iter().map(|&i| m.messages()[i.index()]).collect(),
    )
    .unwrap();
    fat_tree_loads(tree, &sub).unwrap().per_channel
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Theorem 1: the schedule is an exact partition into one-cycle sets, with at most
    /// lg n · 2^⌈lg λ⌉ (< 2 λ lg n) cycles, and never fewer than ⌈λ⌉.
    #[test]
    fn theorem1_schedules_verify_within_the_bound((t, m) in tree_and_messages(7, 1, 4, 400)) {
        let s = theorem1(&t, &m).unwrap();
        prop_assert_eq!(s.schedule.verify(&t, &m), Ok(()));
        let cycles = s.cycles() as u64;
        prop_assert!(cycles <= s.bound, "{} cycles > bound {}", cycles, s.bound);
        let lambda = s.load_factor;
        if lambda.exceeds_one() {
            prop_assert_eq!(s.bound, u64::from(t.levels()) << ceil_lg(&lambda));
            prop_assert!((cycles as f64) < 2.0 * lambda.value() * f64::from(t.levels()));
        }
        prop_assert!(cycles >= lambda.ceil());
        prop_assert_eq!(s.cycles_per_level.iter().sum::<u64>() as usize + usize::from(!lambda.exceeds_one() && !m.is_empty()), s.cycles());
    }

    /// Corollary 2: with capacities ≥ a·lg n (a > 1) the schedule verifies and has at most
    /// 2^⌈lg λ'⌉ ≤ max(1, 2λ') ≤ max(1, 2(a/(a−1))·λ) cycles, for both fictitious capacities.
    #[test]
    fn corollary2_schedules_verify_within_the_bound((t, m) in tree_and_messages(6, 7, 16, 400)) {
        for variant in [FictitiousCapacity::LgN, FictitiousCapacity::Depth] {
            match corollary2(&t, &m, variant) {
                Ok(s) => {
                    prop_assert_eq!(s.schedule.verify(&t, &m), Ok(()));
                    let cycles = s.cycles() as u64;
                    prop_assert!(cycles <= s.bound);
                    let lf = s.fictitious_load_factor.unwrap();
                    prop_assert!(s.bound as f64 <= (2.0 * lf.value()).max(1.0));
                    if variant == FictitiousCapacity::LgN {
                        let a = s.capacity_ratio.unwrap();
                        prop_assert!(a > 1.0);
                        prop_assert!(cycles as f64 <= (2.0 * a / (a - 1.0) * s.load_factor.value()).max(1.0) + 1e-9);
                    }
                }
                Err(e) => {
                    // only allowed when some capacity is at most lg n
                    let lg = u64::from(t.levels());
                    prop_assert!(variant == FictitiousCapacity::LgN && t.capacities()[..t.levels() as usize].iter().any(|&c| c <= lg), "{}", e);
                }
            }
        }
    }

    /// Every split is a partition whose halves differ by at most one message and by at most
    /// one on every channel, so each has at most ⌈load/2⌉ on every channel.
    #[test]
    fn each_split_halves_every_channel_to_within_one(
        levels in 1u32..=7,
        pairs in prop::collection::vec((any::<u32>(), any::<u32>()), 1..300),
        right_to_left in any::<bool>(),
        node_pick in any::<u32>(),
    ) {
        // A group crossing one node u in one direction: sources in one child's subtree,
        // destinations in the other's.
        let n = 1u32 << levels;
        let tree = FatTree::new(u64::from(n), CapacityProfile::Constant(1)).unwrap();
        let depth = node_pick % levels; // u at this depth
        let u = (1u32 << depth) + (node_pick >> 8) % (1 << depth);
        let width = n >> (depth + 1); // leaves under each child of u
        let first_leaf = |child: u32| (child << (levels - depth - 1)) - n;
        let (l, r) = (first_leaf(2 * u), first_leaf(2 * u + 1));
        let (from, to) = if right_to_left { (r, l) } else { (l, r) };
        let m = MessageSet::new(n, pairs.iter().map(|&(a, b)| Message::new(from + a % width, to + b % width)).collect()).unwrap();
        let all: Vec<MessageId> = (0..m.len() as u32).map(MessageId).collect();
        let s = split(&tree, &m, &all).unwrap();
        prop_assert!(s.even.len() == s.odd.len() || s.even.len() == s.odd.len() + 1);
        let mut ids: Vec<u32> = s.even.iter().chain(&s.odd).map(|x| x.0).collect();
        ids.sort_unstable();
        prop_assert_eq!(ids, (0..m.len() as u32).collect::<Vec<_>>());
        let (a, b) = (sub_loads(&tree, &m, &s.even), sub_loads(&tree, &m, &s.odd));
        let whole = sub_loads(&tree, &m, &all);
        for c in 0..a.len() {
            prop_assert!(a[c].abs_diff(b[c]) <= 1, "channel {}: {} vs {}", c, a[c], b[c]);
            prop_assert!(a[c] <= whole[c].div_ceil(2) && b[c] <= whole[c].div_ceil(2));
        }
    }
}

#[test]
fn ceil_lg_matches_floating_point_away_from_powers_of_two() {
    for load in 1..200u64 {
        for capacity in 1..20u64 {
            let lf = LoadFactor {
                load,
                capacity,
                bundle: None,
            };
            let x = load as f64 / capacity as f64;
            let expect = if x <= 1.0 { 0 } else { x.log2().ceil() as u32 };
            assert_eq!(ceil_lg(&lf), expect, "{load}/{capacity}");
        }
    }
}
