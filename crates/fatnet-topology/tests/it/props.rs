//! Properties of the topologies over random parameters: the papers' counts and capacities,
//! every numbered shortest path against a breadth-first search of the exported graph, the
//! number of shortest paths, the bundles of the multi-path trees, the spec grammar, and
//! constructors that return `Ok` or a typed error on any input.

use std::collections::BTreeSet;
use std::ops::RangeInclusive;

use fatnet_topology::{
    AnyTopology, AreaGrowth, BundleId, Butterfly, ButterflyFatTree, CapacityProfile, Channel,
    ChannelId, Clos, FatTree, FoldedClos, Hypercube, KAryNTree, Node, NodeId, Topology,
    TopologyError, TopologySpec, VolumeGrowth, to_petgraph,
};
use petgraph::algo::dijkstra;
use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::visit::EdgeRef;
use proptest::prelude::*;
use proptest::strategy::Union;

// ----------------------------------------------------------------------------------------
// Parameters
// ----------------------------------------------------------------------------------------

/// A value in `min..=max` (`min >= 1`) whose bit length is uniform, so that small and huge
/// values are equally likely.
fn log_uniform(min: u64, max: u64) -> impl Strategy<Value = u64> {
    (min.ilog2()..=max.ilog2()).prop_flat_map(move |b| {
        let top = if b == 63 { u64::MAX } else { (2u64 << b) - 1 };
        (1u64 << b).max(min)..=top.min(max)
    })
}

/// Any `u64`, with 0, 1, small values, powers of two and four, their neighbours and
/// `u64::MAX` far more likely than under a uniform draw.
fn wide_u64() -> impl Strategy<Value = u64> {
    prop_oneof![
        0u64..=6,
        (0u32..64).prop_map(|b| 1u64 << b),
        (0u32..32).prop_map(|b| 1u64 << (2 * b)),
        (1u32..64).prop_map(|b| (1u64 << b) - 1),
        (1u32..63).prop_map(|b| (1u64 << b) + 1),
        log_uniform(1, u64::MAX),
        Just(u64::MAX),
    ]
}

/// The least root capacity of a universal fat-tree on `n` processors: the least `w` with
/// `w³ >= n²`, i.e. `⌈n^(2/3)⌉`.
fn universal_min_root(n: u64) -> u64 {
    let n2 = u128::from(n).pow(2);
    let mut w = (n2 as f64).cbrt() as u64;
    while w > 0 && u128::from(w - 1).pow(3) >= n2 {
        w -= 1;
    }
    while u128::from(w).pow(3) < n2 {
        w += 1;
    }
    w
}

/// A valid capacity profile for a fat-tree on `2^levels` processors, leaf capacities up to
/// `max_leaf`.
fn profile(levels: u32, max_leaf: u64) -> BoxedStrategy<CapacityProfile> {
    let n = 1u64 << levels;
    let lo = universal_min_root(n);
    // Small leaves meet the rounding ties of the smooth profiles (round(√2) at leaf 1).
    let leaf = prop_oneof![1..=max_leaf.min(4), 1..=max_leaf];
    let mut options = vec![
        leaf.clone().prop_map(CapacityProfile::Constant).boxed(),
        leaf.clone()
            .prop_map(|leaf| CapacityProfile::Doubling { leaf })
            .boxed(),
        (
            leaf.clone(),
            prop_oneof![Just(AreaGrowth::Smooth), Just(AreaGrowth::Stepped)],
        )
            .prop_map(|(leaf, growth)| CapacityProfile::Area { leaf, growth })
            .boxed(),
        (
            leaf.clone(),
            prop_oneof![Just(VolumeGrowth::Smooth), Just(VolumeGrowth::Stepped)],
        )
            .prop_map(|(leaf, growth)| CapacityProfile::Volume { leaf, growth })
            .boxed(),
        // Both ends of n^(2/3) <= w <= n, and everything between.
        prop_oneof![lo..=n, lo..=n.min(2 * lo), Just(lo), Just(n)]
            .prop_map(|root| CapacityProfile::Universal { root })
            .boxed(),
        prop::collection::vec(leaf, levels as usize + 1)
            .prop_map(CapacityProfile::Custom)
            .boxed(),
    ];
    if levels.is_multiple_of(2) {
        options.push(Just(CapacityProfile::Standard).boxed());
    }
    Union::new(options).boxed()
}

fn fattree_spec(levels: RangeInclusive<u32>, max_leaf: u64) -> impl Strategy<Value = TopologySpec> {
    levels.prop_flat_map(move |l| {
        profile(l, max_leaf).prop_map(move |profile| TopologySpec::FatTree { n: 1 << l, profile })
    })
}

fn bft_spec(levels: RangeInclusive<u32>) -> impl Strategy<Value = TopologySpec> {
    levels.prop_map(|l| TopologySpec::Bft { n: 1 << (2 * l) })
}

/// `2 · levels · k^levels`, the channel count of a k-ary n-tree (saturating).
fn karyntree_channels(k: u64, levels: u64) -> u128 {
    u128::from(k)
        .checked_pow(levels as u32)
        .and_then(|kn| kn.checked_mul(2 * u128::from(levels)))
        .unwrap_or(u128::MAX)
}

/// Every k-ary n-tree whose ids fit in `u32`.
fn karyntree_spec() -> impl Strategy<Value = TopologySpec> {
    log_uniform(2, KAryNTree::MAX_K).prop_flat_map(|k| {
        let max = (1..=KAryNTree::MAX_LEVELS)
            .take_while(|&l| karyntree_channels(k, l) <= u128::from(u32::MAX))
            .last()
            .expect("levels = 1 fits for every k <= MAX_K");
        (1..=max).prop_map(move |levels| TopologySpec::KAryNTree { k, levels })
    })
}

/// `(n, m, r)` of a folded and of an unfolded Clos network whose ids fit in `u32`.
fn clos_params() -> impl Strategy<Value = (u64, u64, u64)> {
    (
        log_uniform(1, 1 << 20),
        log_uniform(1, 1 << 20),
        log_uniform(1, 1 << 20),
    )
        .prop_filter("ids must fit in u32", |&(n, m, r)| {
            let (n, m, r) = (u128::from(n), u128::from(m), u128::from(r));
            let max = u128::from(u32::MAX);
            2 * r * (n + m) <= max && 2 * (r * n + r) + m <= max
        })
}

/// Any valid spec, sizes up to the largest the crate supports.
fn valid_spec() -> impl Strategy<Value = TopologySpec> {
    prop_oneof![
        fattree_spec(1..=30, 1000),
        bft_spec(1..=15),
        karyntree_spec(),
        clos_params().prop_map(|(n, m, r)| TopologySpec::FoldedClos { n, m, r }),
        clos_params().prop_map(|(n, m, r)| TopologySpec::Clos { n, m, r }),
        (1u64..=24).prop_map(|d| TopologySpec::Hypercube { d }),
        (1u64..=24).prop_map(|d| TopologySpec::Butterfly { d }),
    ]
}

/// Small instances of every kind, on which a breadth-first search is cheap.
fn small_spec() -> impl Strategy<Value = TopologySpec> {
    prop_oneof![
        fattree_spec(1..=6, 4),
        bft_spec(1..=4),
        (2u64..=4, 1u64..=3).prop_map(|(k, levels)| TopologySpec::KAryNTree { k, levels }),
        (1u64..=4, 1u64..=6, 1u64..=4).prop_map(|(n, m, r)| TopologySpec::FoldedClos { n, m, r }),
        (1u64..=4, 1u64..=6, 1u64..=4).prop_map(|(n, m, r)| TopologySpec::Clos { n, m, r }),
        (1u64..=6).prop_map(|d| TopologySpec::Hypercube { d }),
        (1u64..=5).prop_map(|d| TopologySpec::Butterfly { d }),
    ]
}

/// Small instances of the trees with several shortest paths and bundles of parallel channels.
fn small_multipath_spec() -> impl Strategy<Value = TopologySpec> {
    prop_oneof![
        bft_spec(1..=4),
        (2u64..=5, 1u64..=3).prop_map(|(k, levels)| TopologySpec::KAryNTree { k, levels }),
        (1u64..=4, 1u64..=8, 1u64..=5).prop_map(|(n, m, r)| TopologySpec::FoldedClos { n, m, r }),
        (1u64..=4, 1u64..=8, 1u64..=5).prop_map(|(n, m, r)| TopologySpec::Clos { n, m, r }),
    ]
}

/// Raw draws for up to 16 (source, destination, path index, other path index) probes, reduced
/// modulo the topology's ranges by [`pairs`].
fn probes() -> impl Strategy<Value = Vec<(u32, u32, u128, u128)>> {
    prop::collection::vec(any::<(u32, u32, u128, u128)>(), 1..=16)
}

/// Random channel ids (reduced modulo the channel count) for spot checks on large instances.
fn channel_probes() -> impl Strategy<Value = Vec<u32>> {
    prop::collection::vec(any::<u32>(), 64)
}

/// Strings that look a little like specs, and strings that don't.
fn garbage() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        "[a-z:=,/0-9 +-]{0,40}",
        concat!(
            " ?(fattree|bft|ftree|clos|karyntree|hypercube|butterfly|[a-z]{0,4})",
            "( ?:( ?(n|m|r|d|k|levels|profile|cap|leaf|w|growth|caps|[a-z =]{0,3}) ?=? ?",
            "(constant|doubling|area|volume|universal|standard|custom|smooth|stepped|",
            "[0-9]{1,2}|[+-]?[0-9]{0,21}|[0-9/ ]{0,9}|[a-z=:,]{0,3}) ?,?){0,6})?",
        ),
    ]
}

// ----------------------------------------------------------------------------------------
// Independent reference computations
// ----------------------------------------------------------------------------------------

/// Source and destination of each probe.
fn pairs(t: &AnyTopology, probes: &[(u32, u32, u128, u128)]) -> Vec<(u32, u32)> {
    let p = t.num_processors();
    probes.iter().map(|&(a, b, _, _)| (a % p, b % p)).collect()
}

/// `q³ · 4^k >= w³`, exactly (an overflowing left side is larger than any `w³`, `w < 2^64`).
fn cube_covers(q: u64, k: u32, w: u64) -> bool {
    u128::from(q)
        .checked_pow(3)
        .and_then(|q3| q3.checked_mul(1u128 << (2 * k)))
        .is_none_or(|lhs| lhs >= u128::from(w).pow(3))
}

/// Checks the capacities of a fat-tree on `2^levels` processors, leaf level first, against the
/// definition of each profile. Rounded profiles are checked by bracketing, not recomputed:
///
/// - area, smooth: `q = round(√X)`, `X = leaf²·2^h`, iff `q² − q < X <= q² + q`;
/// - volume, smooth: `q = round(∛X)`, `X = leaf³·4^h`, iff `(2q−1)³ < 8X < (2q+1)³`;
/// - universal: `q = min(⌈n/2^k⌉, ⌈w/2^(2k/3)⌉)` at depth `k`, where the second term is the
///   least `q` with `q³·4^k >= w³` (so `q` passes and `q − 1` fails).
fn check_capacities(
    levels: u32,
    profile: &CapacityProfile,
    caps: &[u64],
) -> Result<(), TestCaseError> {
    prop_assert_eq!(caps.len(), levels as usize + 1);
    let n = 1u64 << levels;
    for (h, &q) in caps.iter().enumerate() {
        let hu = h as u32;
        let q128 = u128::from(q);
        prop_assert!(q >= 1, "capacity 0 at height {}", h);
        match *profile {
            CapacityProfile::Constant(c) => prop_assert_eq!(q, c),
            CapacityProfile::Doubling { leaf } => prop_assert_eq!(q128, u128::from(leaf) << hu),
            CapacityProfile::Area {
                leaf,
                growth: AreaGrowth::Stepped,
            } => prop_assert_eq!(q128, u128::from(leaf) << (hu / 2)),
            CapacityProfile::Volume {
                leaf,
                growth: VolumeGrowth::Stepped,
            } => prop_assert_eq!(q128, u128::from(leaf) << (2 * (hu / 3))),
            CapacityProfile::Standard => prop_assert_eq!(q, 1u64 << hu.div_ceil(2)),
            CapacityProfile::Custom(ref given) => prop_assert_eq!(q, given[h]),
            CapacityProfile::Area {
                leaf,
                growth: AreaGrowth::Smooth,
            } => {
                let x = u128::from(leaf).pow(2).checked_mul(1u128 << hu);
                prop_assert!(x.is_some(), "leaf²·2^h overflows but q = {} fits", q);
                let x = x.unwrap();
                prop_assert!(
                    q128 * (q128 - 1) < x && x <= q128 * (q128 + 1),
                    "area: {} != round(√{}) at height {}",
                    q,
                    x,
                    h
                );
            }
            CapacityProfile::Volume {
                leaf,
                growth: VolumeGrowth::Smooth,
            } => {
                let x8 = u128::from(leaf)
                    .checked_pow(3)
                    .and_then(|l3| l3.checked_mul(1u128 << (2 * hu)))
                    .and_then(|x| x.checked_mul(8));
                prop_assert!(x8.is_some(), "8·leaf³·4^h overflows but q = {} fits", q);
                let x8 = x8.unwrap();
                prop_assert!(
                    (2 * q128 - 1).checked_pow(3).is_some_and(|lo| lo < x8)
                        && (2 * q128 + 1).checked_pow(3).is_none_or(|hi| x8 < hi),
                    "volume: {} != round(∛({}/8)) at height {}",
                    q,
                    x8,
                    h
                );
            }
            CapacityProfile::Universal { root: w } => {
                prop_assert!(w <= n && u128::from(w).pow(3) >= u128::from(n).pow(2));
                let k = levels - hu;
                let a = n.div_ceil(1 << k);
                prop_assert!(q <= a, "universal: {} > ⌈n/2^k⌉ = {} at depth {}", q, a, k);
                // q − 1 never covers w; q covers it unless ⌈n/2^k⌉ is the smaller term.
                prop_assert!(!cube_covers(q - 1, k, w), "universal: {} - 1 suffices", q);
                if q < a {
                    prop_assert!(cube_covers(q, k, w), "universal: {} too small", q);
                }
            }
        }
    }
    Ok(())
}

/// The number of shortest paths between two processors as the papers give it.
fn paper_path_count(spec: &TopologySpec, src: u32, dst: u32) -> u128 {
    let (s, d) = (u64::from(src), u64::from(dst));
    match *spec {
        TopologySpec::FatTree { .. } | TopologySpec::Butterfly { .. } => 1,
        // H! orders of the H differing dimensions.
        TopologySpec::Hypercube { .. } => (1..=u128::from((src ^ dst).count_ones())).product(),
        // m through the top switches, 1 within a bottom switch.
        TopologySpec::FoldedClos { n, m, .. } => {
            if s / n == d / n {
                1
            } else {
                m.into()
            }
        }
        TopologySpec::Clos { m, .. } => m.into(),
        // 2^(L−1) for a lowest common ancestor at level L >= 1.
        TopologySpec::Bft { .. } => match (0u32..).find(|&l| s >> (2 * l) == d >> (2 * l)) {
            Some(0) => 1,
            Some(l) => 1 << (l - 1),
            None => unreachable!(),
        },
        // k^(h−1) for a lowest common ancestor at height h >= 1.
        TopologySpec::KAryNTree { k, .. } => {
            match (0u32..).find(|&h| s / k.pow(h) == d / k.pow(h)) {
                Some(0) => 1,
                Some(h) => u128::from(k).pow(h - 1),
                None => unreachable!(),
            }
        }
        ref other => panic!("no formula for {other}"),
    }
}

/// Distance from `source` to every node and the number of shortest walks (channel sequences)
/// reaching it, by dynamic programming over the breadth-first layers.
fn shortest_walks(g: &DiGraph<Node, Channel>, source: NodeId) -> (Vec<Option<usize>>, Vec<u128>) {
    let mut dist = vec![None; g.node_count()];
    let mut walks = vec![0u128; g.node_count()];
    dist[source.index()] = Some(0);
    walks[source.index()] = 1;
    let mut layer = vec![source.index()];
    let mut d = 0;
    while !layer.is_empty() {
        let mut next = Vec::new();
        for &u in &layer {
            for e in g.edges(NodeIndex::new(u)) {
                let v = e.target().index();
                if dist[v].is_none() {
                    dist[v] = Some(d + 1);
                    next.push(v);
                }
                if dist[v] == Some(d + 1) {
                    walks[v] += walks[u];
                }
            }
        }
        layer = next;
        d += 1;
    }
    (dist, walks)
}

/// Petgraph's shortest-path distance from `src`'s injection node to `dst`'s ejection node.
fn bfs_distance(g: &DiGraph<Node, Channel>, t: &AnyTopology, src: u32, dst: u32) -> Option<usize> {
    let from = NodeIndex::new(t.injection_node(src).index());
    let to = NodeIndex::new(t.ejection_node(dst).index());
    dijkstra(g, from, Some(to), |_| 1usize).get(&to).copied()
}

/// Checks that `path` is a walk from `src`'s injection node to `dst`'s ejection node.
fn check_walk<T: Topology + ?Sized>(
    t: &T,
    src: u32,
    dst: u32,
    path: &[ChannelId],
) -> Result<(), TestCaseError> {
    let mut at = t.injection_node(src);
    for (i, &c) in path.iter().enumerate() {
        prop_assert!(c.0 < t.num_channels(), "{:?} is not a channel", c);
        let ch = t.channel(c);
        prop_assert_eq!(
            ch.from,
            at,
            "step {} of {} -> {} leaves the walk",
            i,
            src,
            dst
        );
        at = ch.to;
    }
    prop_assert_eq!(
        at,
        t.ejection_node(dst),
        "{} -> {} ends elsewhere",
        src,
        dst
    );
    Ok(())
}

/// The bundles a path crosses, as a sorted multiset.
fn bundle_multiset<T: Topology + ?Sized>(t: &T, path: &[ChannelId]) -> Vec<BundleId> {
    let mut b: Vec<BundleId> = path.iter().map(|&c| t.channel(c).bundle).collect();
    b.sort_unstable();
    b
}

/// All channels of a small topology, or the first, the last and the probed ones of a large
/// one.
fn channel_sample<T: Topology + ?Sized>(t: &T, probes: &[u32]) -> Vec<ChannelId> {
    let c = t.num_channels();
    if c <= 4096 {
        (0..c).map(ChannelId).collect()
    } else {
        [0, c - 1]
            .into_iter()
            .chain(probes.iter().map(|&x| x % c))
            .map(ChannelId)
            .collect()
    }
}

/// Invariants of every sampled channel, then `expected_bundle_capacity` (from the channel) for
/// each; on small instances the capacities of each bundle's channels add up to its capacity.
fn check_channels<T: Topology + ?Sized>(
    t: &T,
    probes: &[u32],
    expected_bundle_capacity: impl Fn(&Channel) -> u64,
) -> Result<(), TestCaseError> {
    let (nodes, bundles) = (t.num_nodes(), t.num_bundles());
    for c in channel_sample(t, probes) {
        let ch = t.channel(c);
        prop_assert!(ch.from.0 < nodes && ch.to.0 < nodes && ch.from != ch.to);
        prop_assert!(ch.bundle.0 < bundles && ch.capacity >= 1);
        prop_assert_eq!(
            t.bundle_capacity(ch.bundle),
            expected_bundle_capacity(&ch),
            "{:?}",
            ch
        );
    }
    if t.num_channels() <= 4096 {
        let mut sum = vec![0u64; bundles as usize];
        for c in 0..t.num_channels() {
            let ch = t.channel(ChannelId(c));
            sum[ch.bundle.index()] += ch.capacity;
        }
        for (b, s) in sum.into_iter().enumerate() {
            prop_assert_eq!(t.bundle_capacity(BundleId(b as u32)), s, "bundle {}", b);
        }
    }
    Ok(())
}

/// Queries at both ends of every id range (where arithmetic overflows first, if anywhere), the
/// first and last path between the first and last processor, and the name, which must parse and
/// build the same topology.
fn probe_extremes(t: AnyTopology) -> Result<(), TestCaseError> {
    let (p, nodes, channels, bundles) = (
        t.num_processors(),
        t.num_nodes(),
        t.num_channels(),
        t.num_bundles(),
    );
    prop_assert!(p >= 1 && nodes >= p && channels >= 1 && bundles >= 1);
    prop_assert!(t.num_switches() <= nodes);
    for v in [0, nodes - 1] {
        t.node(NodeId(v));
    }
    for c in [0, channels - 1] {
        let ch = t.channel(ChannelId(c));
        prop_assert!(ch.from.0 < nodes && ch.to.0 < nodes && ch.bundle.0 < bundles);
        prop_assert!(ch.capacity >= 1 && t.bundle_capacity(ch.bundle) >= ch.capacity);
    }
    for b in [0, bundles - 1] {
        prop_assert!(t.bundle_capacity(BundleId(b)) >= 1);
    }
    let (src, dst) = (0, p - 1);
    let count = t.path_count(src, dst);
    prop_assert!(count >= 1 && t.standard_path_index(src, dst) < count);
    let mut path = Vec::new();
    for index in [0, count - 1] {
        t.path_into(src, dst, index, &mut path);
        check_walk(&t, src, dst, &path)?;
        prop_assert_eq!(path.len(), t.distance(src, dst));
    }
    let rebuilt = t.name().parse::<TopologySpec>().and_then(|s| s.build());
    prop_assert_eq!(rebuilt, Ok(t));
    Ok(())
}

// ----------------------------------------------------------------------------------------
// Counts and capacities
// ----------------------------------------------------------------------------------------

proptest! {
    /// Leiserson's fat-tree: 4n − 2 channels (the root's external pair included), n − 1
    /// switches, and every capacity as its profile defines it.
    #[test]
    fn fat_tree_counts_and_capacities(
        spec in fattree_spec(1..=30, 1000),
        probes in channel_probes(),
    ) {
        let TopologySpec::FatTree { n, ref profile } = spec else { unreachable!() };
        let t = FatTree::new(n, profile.clone()).unwrap();
        let levels = n.ilog2();
        prop_assert_eq!(u64::from(t.num_processors()), n);
        prop_assert_eq!(u64::from(t.num_channels()), 4 * n - 2);
        prop_assert_eq!(u64::from(t.num_switches()), n - 1);
        prop_assert_eq!(u64::from(t.num_nodes()), 2 * n);
        check_capacities(levels, profile, t.capacities())?;
        check_channels(&t, &probes, |ch| ch.capacity)?;
        for c in channel_sample(&t, &probes) {
            // Heap numbering: channel c hangs below node c/2 + 1, at height lg n − depth.
            let h = levels - (c.0 / 2 + 1).ilog2();
            let ch = t.channel(c);
            prop_assert_eq!(ch.level, h);
            prop_assert_eq!(ch.capacity, t.capacities()[h as usize]);
        }
    }

    /// Greenberg–Oh's butterfly fat-tree on N = 4^h processors: (N − √N)/2 switches,
    /// 4N − 4√N channels of capacity 1, level-l bundles of 2^l channels.
    #[test]
    fn butterfly_fat_tree_counts(spec in bft_spec(1..=15), probes in channel_probes()) {
        let TopologySpec::Bft { n } = spec else { unreachable!() };
        let t = ButterflyFatTree::new(n).unwrap();
        let sqrt = 1u64 << (n.ilog2() / 2);
        prop_assert_eq!(u64::from(t.num_processors()), n);
        prop_assert_eq!(u64::from(t.num_switches()), (n - sqrt) / 2);
        prop_assert_eq!(u64::from(t.num_channels()), 4 * n - 4 * sqrt);
        check_channels(&t, &probes, |ch| 1 << ch.level)?;
        for c in channel_sample(&t, &probes) {
            let ch = t.channel(c);
            prop_assert_eq!(ch.capacity, 1);
            let levels = [t.node(ch.from).level, t.node(ch.to).level];
            prop_assert_eq!(levels.iter().min(), Some(&ch.level));
            prop_assert_eq!(levels.iter().max(), Some(&(ch.level + 1)));
        }
    }

    /// Yuan's ftree(n+m, r): r + m switches, r·n processors, 2rn + 2rm channels; the links
    /// between a bottom switch and the top switches form bundles of capacity m.
    #[test]
    fn folded_clos_counts((n, m, r) in clos_params(), probes in channel_probes()) {
        let t = FoldedClos::new(n, m, r).unwrap();
        prop_assert_eq!(u64::from(t.num_switches()), r + m);
        prop_assert_eq!(u64::from(t.num_processors()), r * n);
        prop_assert_eq!(u64::from(t.num_channels()), 2 * r * n + 2 * r * m);
        check_channels(&t, &probes, |ch| if ch.level == 0 { 1 } else { m })?;
    }

    /// Clos(n, m, r): 2r + m switches, r·n processors on each side, 2rn + 2rm channels;
    /// the links between an edge switch and the middle switches form bundles of capacity m.
    #[test]
    fn clos_counts((n, m, r) in clos_params(), probes in channel_probes()) {
        let t = Clos::new(n, m, r).unwrap();
        prop_assert_eq!(u64::from(t.num_switches()), 2 * r + m);
        prop_assert_eq!(u64::from(t.num_processors()), r * n);
        prop_assert_eq!(u64::from(t.num_channels()), 2 * r * n + 2 * r * m);
        check_channels(&t, &probes, |ch| if matches!(ch.level, 1 | 2) { m } else { 1 })?;
    }

    /// Petrini–Vanneschi's k-ary n-tree: n·k^(n−1) switches, k^n processors, 2·n·k^n
    /// channels, level-h bundles of capacity k^h.
    #[test]
    fn karyntree_counts(spec in karyntree_spec(), probes in channel_probes()) {
        let TopologySpec::KAryNTree { k, levels } = spec else { unreachable!() };
        let t = KAryNTree::new(k, levels).unwrap();
        let kn = k.pow(levels as u32);
        prop_assert_eq!(u64::from(t.num_processors()), kn);
        prop_assert_eq!(u64::from(t.num_switches()), levels * k.pow(levels as u32 - 1));
        prop_assert_eq!(u64::from(t.num_channels()), 2 * levels * kn);
        check_channels(&t, &probes, |ch| k.pow(ch.level))?;
    }

    /// Stamoulis' d-cube: 2^d processors, d·2^d arcs, each flipping the bit of its dimension.
    #[test]
    fn hypercube_counts(d in 1u64..=24, probes in channel_probes()) {
        let t = Hypercube::new(d).unwrap();
        prop_assert_eq!(u64::from(t.num_processors()), 1 << d);
        prop_assert_eq!(u64::from(t.num_nodes()), 1 << d);
        prop_assert_eq!(t.num_switches(), 0);
        prop_assert_eq!(u64::from(t.num_channels()), d << d);
        check_channels(&t, &probes, |_| 1)?;
        for c in channel_sample(&t, &probes) {
            let ch = t.channel(c);
            prop_assert_eq!(ch.from.0 ^ ch.to.0, 1 << (ch.level - 1));
        }
    }

    /// Stamoulis' d-dimensional butterfly: (d+1)·2^d nodes, d·2^(d+1) arcs, 2^d processors.
    #[test]
    fn butterfly_counts(d in 1u64..=24, probes in channel_probes()) {
        let t = Butterfly::new(d).unwrap();
        prop_assert_eq!(u64::from(t.num_processors()), 1 << d);
        prop_assert_eq!(u64::from(t.num_nodes()), (d + 1) << d);
        prop_assert_eq!(u64::from(t.num_channels()), d << (d + 1));
        check_channels(&t, &probes, |_| 1)?;
    }
}

// ----------------------------------------------------------------------------------------
// Shortest paths
// ----------------------------------------------------------------------------------------

proptest! {
    // Cheap cases: four times proptest's default, still well under a second.
    #![proptest_config(ProptestConfig::with_cases(1024))]

    /// Every numbered path is a walk from the source's injection node to the destination's
    /// ejection node whose length is `distance` and petgraph's shortest-path distance; two
    /// different indices give two different paths.
    #[test]
    fn numbered_paths_are_shortest_walks(spec in small_spec(), probes in probes()) {
        let t = spec.build().unwrap();
        let g = to_petgraph(&t).expect("small");
        let (mut path, mut other) = (Vec::new(), Vec::new());
        for (&(src, dst), &(_, _, i, j)) in pairs(&t, &probes).iter().zip(&probes) {
            let count = t.path_count(src, dst);
            prop_assert!(count >= 1);
            prop_assert!(t.standard_path_index(src, dst) < count);
            let i = i % count;
            path.push(ChannelId(u32::MAX)); // path_into clears `out` first
            t.path_into(src, dst, i, &mut path);
            check_walk(&t, src, dst, &path)?;
            prop_assert_eq!(path.len(), t.distance(src, dst));
            prop_assert_eq!(Some(path.len()), bfs_distance(&g, &t, src, dst));
            if i == 0 {
                prop_assert_eq!(&t.path(src, dst), &path);
            }
            if count >= 2 {
                let j = if j % count == i { (i + 1) % count } else { j % count };
                t.path_into(src, dst, j, &mut other);
                check_walk(&t, src, dst, &other)?;
                prop_assert_eq!(other.len(), path.len());
                prop_assert_ne!(&path, &other, "{} -> {}: #{} = #{}", src, dst, i, j);
            }
        }
    }

    /// `path_count` is the papers' count (1 on the fat-tree and butterfly, H! on the
    /// hypercube, m across a folded Clos, 2^(L−1) on the butterfly fat-tree, k^(h−1) on the
    /// k-ary n-tree) and the number of shortest walks in the exported graph; where there are
    /// few, the numbered paths are exactly those walks.
    #[test]
    fn path_counts_are_the_papers_and_count_every_shortest_walk(
        spec in small_spec(),
        probes in probes(),
    ) {
        let t = spec.build().unwrap();
        let g = to_petgraph(&t).expect("small");
        let mut path = Vec::new();
        for (src, dst) in pairs(&t, &probes) {
            let count = t.path_count(src, dst);
            prop_assert_eq!(count, paper_path_count(&spec, src, dst), "{} -> {}", src, dst);
            let (dist, walks) = shortest_walks(&g, t.injection_node(src));
            let end = t.ejection_node(dst).index();
            prop_assert_eq!(dist[end], Some(t.distance(src, dst)));
            prop_assert_eq!(walks[end], count, "{} -> {}", src, dst);
            if count <= 1024 {
                let mut seen = BTreeSet::new();
                for index in 0..count {
                    t.path_into(src, dst, index, &mut path);
                    check_walk(&t, src, dst, &path)?;
                    prop_assert_eq!(Some(path.len()), dist[end]);
                    let new = seen.insert(path.clone());
                    prop_assert!(new, "{} -> {} #{} repeats", src, dst, index);
                }
            }
        }
    }

    /// On the multi-path trees every shortest path between two processors crosses the same
    /// multiset of bundles, whatever its index.
    #[test]
    fn bundles_crossed_do_not_depend_on_the_path(
        spec in small_multipath_spec(),
        probes in probes(),
    ) {
        let t = spec.build().unwrap();
        let mut path = Vec::new();
        for (&(src, dst), &(_, _, i, _)) in pairs(&t, &probes).iter().zip(&probes) {
            let count = t.path_count(src, dst);
            let canonical = bundle_multiset(&t, &t.path(src, dst));
            let indices: Vec<u128> = if count <= 64 {
                (0..count).collect()
            } else {
                vec![i % count, count - 1]
            };
            for index in indices {
                t.path_into(src, dst, index, &mut path);
                let bundles = bundle_multiset(&t, &path);
                prop_assert_eq!(&bundles, &canonical, "{} -> {} #{}", src, dst, index);
            }
        }
    }
}

// ----------------------------------------------------------------------------------------
// Spec grammar and constructors
// ----------------------------------------------------------------------------------------

/// The fat-tree constructor's result, checked against what it must be for `(n, profile)`.
fn check_fat_tree_result(n: u64, profile: &CapacityProfile) -> Result<(), TestCaseError> {
    let result = FatTree::new(n, profile.clone());
    if !n.is_power_of_two() {
        prop_assert_eq!(
            result,
            Err(TopologyError::NotPowerOfTwo {
                param: "n",
                value: n
            })
        );
        return Ok(());
    }
    if !(2..=1 << 30).contains(&n) {
        let out_of_range = matches!(result, Err(TopologyError::OutOfRange { param: "n", .. }));
        prop_assert!(out_of_range, "{:?}", result);
        return Ok(());
    }
    let levels = n.ilog2();
    let n128 = u128::from(n);
    let err = match result {
        Ok(t) => {
            check_capacities(levels, profile, t.capacities())?;
            return probe_extremes(t.into());
        }
        Err(e) => e,
    };
    let too_large = matches!(
        err,
        TopologyError::TooLarge {
            what: "capacity",
            ..
        }
    );
    match *profile {
        CapacityProfile::Custom(ref caps) if caps.len() != levels as usize + 1 => prop_assert_eq!(
            err,
            TopologyError::CapacityCount {
                expected: levels as usize + 1,
                got: caps.len()
            }
        ),
        CapacityProfile::Custom(ref caps) => {
            let level = caps.iter().position(|&c| c == 0);
            prop_assert!(level.is_some(), "{:?} rejected: {:?}", caps, err);
            prop_assert_eq!(
                err,
                TopologyError::CapacityBelowOne {
                    level: level.unwrap() as u32
                }
            );
        }
        CapacityProfile::Standard => {
            prop_assert_eq!(err, TopologyError::StandardNeedsEvenLevels { n });
            prop_assert!(levels % 2 == 1);
        }
        CapacityProfile::Universal { root } => {
            prop_assert_eq!(err, TopologyError::UniversalRootCapacity { n, w: root });
            let w = u128::from(root);
            prop_assert!(w > n128 || w.pow(3) < n128 * n128);
        }
        CapacityProfile::Constant(c) => {
            prop_assert_eq!(err, TopologyError::CapacityBelowOne { level: 0 });
            prop_assert_eq!(c, 0);
        }
        CapacityProfile::Doubling { leaf: 0 }
        | CapacityProfile::Area { leaf: 0, .. }
        | CapacityProfile::Volume { leaf: 0, .. } => {
            prop_assert_eq!(err, TopologyError::CapacityBelowOne { level: 0 })
        }
        // The largest capacity, at the root's height, exceeds u64.
        CapacityProfile::Doubling { leaf } => {
            prop_assert!(too_large && u128::from(leaf) << levels > u128::from(u64::MAX))
        }
        CapacityProfile::Area {
            leaf,
            growth: AreaGrowth::Stepped,
        } => prop_assert!(too_large && u128::from(leaf) << (levels / 2) > u128::from(u64::MAX)),
        CapacityProfile::Volume {
            leaf,
            growth: VolumeGrowth::Stepped,
        } => {
            prop_assert!(too_large && u128::from(leaf) << (2 * (levels / 3)) > u128::from(u64::MAX))
        }
        // round(√X) > u64::MAX = M  ⇔  X > M² + M = M·2^64.
        CapacityProfile::Area {
            leaf,
            growth: AreaGrowth::Smooth,
        } => {
            let x = u128::from(leaf).pow(2).checked_mul(1 << levels);
            prop_assert!(too_large && x.is_none_or(|x| x > u128::from(u64::MAX) << 64));
        }
        // The exact integer computation needs 8·leaf³·4^h to fit in u128; larger leaves are
        // rejected as too large even where the rounded capacity (>= 2^41) would fit in u64.
        CapacityProfile::Volume {
            leaf,
            growth: VolumeGrowth::Smooth,
        } => {
            let x = u128::from(leaf)
                .checked_pow(3)
                .and_then(|l3| l3.checked_mul(1 << (2 * levels)));
            prop_assert!(too_large && x.is_none_or(|x| x > u128::MAX / 8));
        }
    }
    Ok(())
}

/// Any capacity profile, with parameters from [`wide_u64`].
fn wide_profile() -> impl Strategy<Value = CapacityProfile> {
    prop_oneof![
        wide_u64().prop_map(CapacityProfile::Constant),
        wide_u64().prop_map(|leaf| CapacityProfile::Doubling { leaf }),
        (wide_u64(), any::<bool>()).prop_map(|(leaf, smooth)| CapacityProfile::Area {
            leaf,
            growth: if smooth {
                AreaGrowth::Smooth
            } else {
                AreaGrowth::Stepped
            }
        }),
        (wide_u64(), any::<bool>()).prop_map(|(leaf, smooth)| CapacityProfile::Volume {
            leaf,
            growth: if smooth {
                VolumeGrowth::Smooth
            } else {
                VolumeGrowth::Stepped
            }
        }),
        wide_u64().prop_map(|root| CapacityProfile::Universal { root }),
        Just(CapacityProfile::Standard),
        prop::collection::vec(wide_u64(), 0..=32).prop_map(CapacityProfile::Custom),
    ]
}

/// `Ok` exactly when `valid`, otherwise one of the `expected` errors; `Ok` values pass
/// [`probe_extremes`].
fn check_result<T: Into<AnyTopology>>(
    result: Result<T, TopologyError>,
    valid: bool,
    expected: impl Fn(&TopologyError) -> bool,
) -> Result<(), TestCaseError> {
    match result {
        Ok(t) => {
            prop_assert!(valid, "accepted invalid parameters");
            probe_extremes(t.into())
        }
        Err(e) => {
            prop_assert!(!valid, "rejected valid parameters: {:?}", e);
            prop_assert!(expected(&e), "unexpected error {:?}", e);
            Ok(())
        }
    }
}

/// Whether a (folded or unfolded) Clos network on `(n, m, r)` with `nodes` nodes has ids
/// that fit in `u32`; its channel count is `2r(n + m)` either way.
fn clos_valid(n: u64, m: u64, r: u64, nodes: u128) -> bool {
    let channels = u128::from(r)
        .saturating_mul(u128::from(n) + u128::from(m))
        .saturating_mul(2);
    let max = u128::from(u32::MAX);
    n >= 1 && m >= 1 && r >= 1 && channels <= max && nodes <= max
}

/// The errors a Clos constructor may give on `(n, m, r)`: `OutOfRange` naming the first zero
/// parameter, or `TooLarge` when all are positive.
fn clos_error(n: u64, m: u64, r: u64) -> impl Fn(&TopologyError) -> bool {
    move |e| match *e {
        TopologyError::OutOfRange {
            param, value: 0, ..
        } => {
            let first_zero = [("n", n), ("m", m), ("r", r)]
                .into_iter()
                .find(|&(_, v)| v == 0);
            first_zero.map(|(p, _)| p) == Some(param)
        }
        TopologyError::TooLarge { what, .. } => {
            !(n == 0 || m == 0 || r == 0) && matches!(what, "channels" | "nodes")
        }
        _ => false,
    }
}

proptest! {
    // Cheap cases: four times proptest's default, still well under a second.
    #![proptest_config(ProptestConfig::with_cases(1024))]

    /// `Display` prints a spec that parses back to the same value, in any key order and with
    /// spaces; the spec builds, and the topology's name is the spec.
    #[test]
    fn valid_specs_round_trip_and_name_their_topology(spec in valid_spec()) {
        let s = spec.to_string();
        prop_assert_eq!(s.parse::<TopologySpec>(), Ok(spec.clone()));
        let (kind, keys) = s.split_once(':').unwrap();
        let reversed: Vec<&str> = keys.split(',').rev().collect();
        let shuffled = format!(" {kind}: {} ", reversed.join(" , "));
        prop_assert_eq!(shuffled.parse::<TopologySpec>(), Ok(spec.clone()));
        let t = spec.build();
        prop_assert!(t.is_ok(), "{}: {:?}", s, t);
        prop_assert_eq!(t.unwrap().name(), s);
    }

    /// The parser returns `Ok` or `Err` on any string; what it accepts prints canonically,
    /// parses back to the same spec, and builds a topology named by the spec or fails with an
    /// error.
    #[test]
    fn garbage_never_panics_the_parser(s in garbage()) {
        if let Ok(spec) = s.parse::<TopologySpec>() {
            prop_assert_eq!(spec.to_string().parse::<TopologySpec>(), Ok(spec.clone()));
            if let Ok(t) = spec.build() {
                prop_assert_eq!(t.name(), spec.to_string());
            }
        }
    }

    /// `FatTree::new` returns `Ok` with the profile's capacities or the error that names the
    /// problem, for any `n` and profile parameters.
    #[test]
    fn fat_tree_constructor_never_panics(n in wide_u64(), profile in wide_profile()) {
        check_fat_tree_result(n, &profile)?;
    }

    /// The constructors of the other topologies return `Ok` exactly for the parameters
    /// whose ids fit, and a typed error otherwise; at the largest sizes nothing overflows.
    #[test]
    fn other_constructors_never_panic(a in wide_u64(), b in wide_u64(), c in wide_u64()) {
        let bft_valid = a.is_power_of_two() && a.ilog2() % 2 == 0 && (4..=1 << 30).contains(&a);
        check_result(ButterflyFatTree::new(a), bft_valid, |e| match *e {
            TopologyError::NotPowerOfFour { param: "n", value } => {
                value == a && !(a.is_power_of_two() && a.ilog2() % 2 == 0)
            }
            TopologyError::OutOfRange { param: "n", value, .. } => value == a,
            _ => false,
        })?;

        let k_ok = (2..=KAryNTree::MAX_K).contains(&a);
        let levels_ok = (1..=KAryNTree::MAX_LEVELS).contains(&b);
        let fits = karyntree_channels(a, b.min(64)) <= u128::from(u32::MAX);
        check_result(KAryNTree::new(a, b), k_ok && levels_ok && fits, |e| match *e {
            TopologyError::OutOfRange { param: "k", value, .. } => value == a && !k_ok,
            TopologyError::OutOfRange { param: "levels", value, .. } => {
                value == b && k_ok && !levels_ok
            }
            TopologyError::TooLarge { what: "channels", .. } => k_ok && levels_ok,
            _ => false,
        })?;

        // Node counts in u128, saturating: (2^64 − 1)² + 2·(2^64 − 1) is exactly u128::MAX.
        let (n2, m2, r2) = (u128::from(a), u128::from(b), u128::from(c));
        let folded_nodes = (r2 * n2).saturating_add(r2).saturating_add(m2);
        let clos_nodes = (r2 * n2 + r2).saturating_mul(2).saturating_add(m2);
        check_result(
            FoldedClos::new(a, b, c),
            clos_valid(a, b, c, folded_nodes),
            clos_error(a, b, c),
        )?;
        check_result(
            Clos::new(a, b, c),
            clos_valid(a, b, c, clos_nodes),
            clos_error(a, b, c),
        )?;
        // ftree(n + n², n + n²): nonblocking for n processors per bottom switch.
        let m = u64::try_from(n2 * n2);
        let nonblocking_valid = match m {
            Ok(m) if a >= 1 => a.checked_add(m).is_some_and(|r| {
                let r = u128::from(r);
                clos_valid(a, m, r as u64, r * n2 + r + u128::from(m))
            }),
            _ => false,
        };
        check_result(FoldedClos::nonblocking(a), nonblocking_valid, |e| {
            matches!(
                *e,
                TopologyError::OutOfRange { param: "n", value: 0, .. }
                    | TopologyError::TooLarge { .. }
            )
        })?;
        // Two-level m-port: ftree(m/2 + m/2, m).
        let half = u128::from(a / 2);
        let mport_valid =
            a % 2 == 0 && clos_valid(a / 2, a / 2, a, (n2 * half).saturating_add(n2 + half));
        check_result(FoldedClos::two_level_mport(a), mport_valid, |e| match *e {
            TopologyError::OutOfRange { param: "radix", value: 0, .. } => a == 0,
            TopologyError::NotEven { param: "radix", value } => value == a && a % 2 == 1,
            TopologyError::TooLarge { .. } => a % 2 == 0 && a > 0,
            _ => false,
        })?;

        let d_valid = (1..=24).contains(&a);
        let d_error = |e: &TopologyError| {
            matches!(*e, TopologyError::OutOfRange { param: "d", value, .. } if value == a)
        };
        check_result(Hypercube::new(a), d_valid, d_error)?;
        check_result(Butterfly::new(a), d_valid, d_error)?;
    }
}

/// The two overflows the properties above found, pinned: `4n` in `num_channels` at
/// `n = 2^30`, and the square of a float square-root estimate of `2^64` in the smooth area
/// profile (leaf² = (2^64 − 1)² rounds to 2^128 as an `f64`).
#[test]
fn largest_fat_trees_do_not_overflow() {
    let t = FatTree::new(1 << 30, CapacityProfile::Standard).unwrap();
    assert_eq!(t.num_channels(), u32::MAX - 1);
    assert_eq!(t.capacities().last(), Some(&(1 << 15)));
    let area = |leaf| {
        FatTree::new(
            2,
            CapacityProfile::Area {
                leaf,
                growth: AreaGrowth::Smooth,
            },
        )
    };
    // Height 0 carries leaf itself; height 1 needs round(leaf·√2) > u64::MAX.
    assert!(matches!(
        area(u64::MAX),
        Err(TopologyError::TooLarge {
            what: "capacity",
            ..
        })
    ));
    // Around the largest leaf whose √2 step fits: round(√2 · L) is u64::MAX − 1 for
    // L = 13043817825332782211 and 2^64 for L + 1, with 2L² just below 2^128.
    let t = area(13_043_817_825_332_782_211).unwrap();
    assert_eq!(t.capacities(), [13_043_817_825_332_782_211, u64::MAX - 1]);
    assert!(matches!(
        area(13_043_817_825_332_782_212),
        Err(TopologyError::TooLarge {
            what: "capacity",
            ..
        })
    ));
}
