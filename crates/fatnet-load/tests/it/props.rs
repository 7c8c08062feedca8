//! Properties of loads and load factors (Leiserson §III, Greenberg–Leiserson Lemma 1).

use std::cmp::Ordering;

use fatnet_load::{LoadFactor, PathSelection, analyze, channel_loads, fat_tree_loads};
use fatnet_topology::{AnyTopology, CapacityProfile, ChannelId, FatTree, Topology};
use fatnet_traffic::{Message, MessageSet};
use proptest::prelude::*;

/// A binary fat-tree with 2^levels processors and random per-height capacities in 1..=4.
fn fat_tree(max_levels: u32) -> impl Strategy<Value = FatTree> {
    (1..=max_levels).prop_flat_map(|levels| {
        prop::collection::vec(1u64..=4, levels as usize + 1)
            .prop_map(move |caps| FatTree::new(1 << levels, CapacityProfile::Custom(caps)).unwrap())
    })
}

/// A random multiset of messages on `n` processors (self-messages and repeats included).
fn messages(n: u32, max: usize) -> impl Strategy<Value = MessageSet> {
    prop::collection::vec((0..n, 0..n), 0..max).prop_map(move |pairs| {
        MessageSet::new(
            n,
            pairs
                .into_iter()
                .map(|(src, dst)| Message { src, dst })
                .collect(),
        )
        .unwrap()
    })
}

fn tree_and_messages(max_levels: u32, max: usize) -> impl Strategy<Value = (FatTree, MessageSet)> {
    fat_tree(max_levels).prop_flat_map(move |t| {
        let n = t.n();
        (Just(t), messages(n, max))
    })
}

proptest! {
    /// The O(|M| + n) computation equals walking every path.
    #[test]
    fn fast_fat_tree_loads_equal_path_walking((tree, m) in tree_and_messages(7, 300)) {
        let fast = fat_tree_loads(&tree, &m).unwrap();
        let slow = channel_loads(&tree, &m, PathSelection::First).unwrap();
        prop_assert_eq!(fast, slow);
    }

    /// Σ_c load(M, c) = Σ_m |path(m)|, and the fat-tree path of (i, j) has 2·h(i, j) channels.
    #[test]
    fn channel_loads_sum_to_path_lengths((tree, m) in tree_and_messages(7, 300)) {
        let loads = fat_tree_loads(&tree, &m).unwrap();
        let sum: u64 = loads.per_channel.iter().sum();
        let lengths: u64 = m.messages().iter().map(|x| tree.path(x.src, x.dst).len() as u64).sum();
        prop_assert_eq!(sum, lengths);
        prop_assert_eq!(loads.total_path_length, lengths);
        let dil = m.messages().iter().map(|x| tree.distance(x.src, x.dst) as u64).max().unwrap_or(0);
        prop_assert_eq!(loads.dilation, dil);
    }

    /// λ(M) > 1 exactly when some channel carries more than its capacity, λ(M) is attained by
    /// the reported channel, and no channel has a larger ratio.
    #[test]
    fn load_factor_exceeds_one_iff_a_channel_is_overloaded((tree, m) in tree_and_messages(6, 200)) {
        let topo = AnyTopology::from(tree.clone());
        let r = analyze(&topo, &m, PathSelection::Standard).unwrap();
        let overloaded = (0..tree.num_channels()).any(|c| {
            r.loads.per_channel[c as usize] > tree.channel(ChannelId(c)).capacity
        });
        prop_assert_eq!(r.load_factor.exceeds_one(), overloaded);
        prop_assert_eq!(r.is_one_cycle(), !overloaded);
        for c in 0..tree.num_channels() {
            let ch = tree.channel(ChannelId(c));
            let lf = LoadFactor { load: r.loads.per_channel[c as usize], capacity: ch.capacity, bundle: None };
            prop_assert_ne!(lf.cmp_value(&r.load_factor), Ordering::Greater);
        }
        if let Some(b) = r.load_factor.bundle {
            prop_assert_eq!(r.per_bundle()[b.index()], r.load_factor.load);
            prop_assert_eq!(tree.bundle_capacity(b), r.load_factor.capacity);
        } else {
            prop_assert_eq!(r.load_factor.load, 0);
        }
    }

    /// Greenberg–Leiserson Lemma 1 on tiny trees: no set S of channels has a larger load
    /// factor load(M, S)/cap(S) than the worst single channel, where load(M, S) counts the
    /// messages whose path meets S (every directed cut is such a set). All 2^14 channel sets
    /// of the 4-processor tree are checked.
    #[test]
    fn no_cut_is_worse_than_the_worst_channel(
        caps in prop::collection::vec(1u64..=3, 3),
        pairs in prop::collection::vec((0u32..4, 0u32..4), 0..24),
    ) {
        let tree = FatTree::new(4, CapacityProfile::Custom(caps)).unwrap();
        let m = MessageSet::new(4, pairs.iter().map(|&(src, dst)| Message { src, dst }).collect()).unwrap();
        let lambda = analyze(&tree.clone().into(), &m, PathSelection::Standard).unwrap().load_factor;
        let channels = tree.num_channels();
        prop_assert_eq!(channels, 14);
        // Bit mask of the channels each message's path uses.
        let masks: Vec<u32> = m.messages().iter().map(|x| {
            tree.path(x.src, x.dst).iter().fold(0u32, |acc, c| acc | (1 << c.0))
        }).collect();
        let caps: Vec<u64> = (0..channels).map(|c| tree.channel(ChannelId(c)).capacity).collect();
        for s in 1u32..(1 << channels) {
            let cap: u64 = (0..channels).filter(|c| s & (1 << c) != 0).map(|c| caps[c as usize]).sum();
            let load = masks.iter().filter(|&&mk| mk & s != 0).count() as u64;
            let cut = LoadFactor { load, capacity: cap, bundle: None };
            prop_assert_ne!(cut.cmp_value(&lambda), Ordering::Greater, "cut {:b}", s);
        }
    }
}
