//! Load properties on every topology kind, for random message multisets: the loads add up to
//! the path lengths, λ(M) over bundles does not depend on the choice of shortest paths where
//! bundles make it so, λ(M) > 1 exactly when a bundle is overloaded, congestion and dilation
//! agree with an explicit path set, and the two closed forms on fat-trees (a permutation on a
//! full-bisection tree fits in one cycle, the complement on a unit tree has λ = n/2).

use std::cmp::Ordering;

use fatnet_load::{
    LoadFactor, LoadReport, PathSelection, analyze, channel_loads, congestion_and_dilation,
};
use fatnet_topology::{AnyTopology, BundleId, ChannelId, Topology, TopologySpec};
use fatnet_traffic::{Message, MessageSet, patterns};
use proptest::prelude::*;

/// Builds a topology from its spec string, the way the command line does.
fn build(spec: &str) -> AnyTopology {
    spec.parse::<TopologySpec>()
        .and_then(|s| s.build())
        .unwrap_or_else(|e| panic!("{spec}: {e}"))
}

/// A fat-tree spec on `2^levels` processors with one of the capacity profiles.
fn fattree_spec() -> impl Strategy<Value = String> {
    (1u32..=6).prop_flat_map(|levels| {
        let n = 1u64 << levels;
        // The least root capacity of a universal tree: w³ >= n².
        let w_min = (1..=n).find(|w| w.pow(3) >= n * n).unwrap();
        let mut profiles = vec![
            (1u64..=3).prop_map(|c| format!("constant,cap={c}")).boxed(),
            (1u64..=2)
                .prop_map(|leaf| format!("doubling,leaf={leaf}"))
                .boxed(),
            prop_oneof![Just("area"), Just("area,growth=stepped")]
                .prop_map(String::from)
                .boxed(),
            prop_oneof![Just("volume"), Just("volume,growth=stepped")]
                .prop_map(String::from)
                .boxed(),
            (w_min..=n).prop_map(|w| format!("universal,w={w}")).boxed(),
            prop::collection::vec(1u64..=3, levels as usize + 1)
                .prop_map(|caps| {
                    let caps: Vec<String> = caps.iter().map(u64::to_string).collect();
                    format!("custom,caps={}", caps.join("/"))
                })
                .boxed(),
        ];
        if levels % 2 == 0 {
            profiles.push(Just("standard".to_string()).boxed());
        }
        proptest::strategy::Union::new(profiles)
            .prop_map(move |profile| format!("fattree:n={n},profile={profile}"))
    })
}

/// Small instances of every kind whose λ(M) does not depend on the choice of shortest paths:
/// the binary fat-tree and the butterfly (unique paths), and the trees with bundles.
fn path_independent_topology() -> impl Strategy<Value = AnyTopology> {
    prop_oneof![
        fattree_spec(),
        (1u32..=3).prop_map(|l| format!("bft:n={}", 1u32 << (2 * l))),
        (1u32..=4, 1u32..=5, 1u32..=4).prop_map(|(n, m, r)| format!("ftree:n={n},m={m},r={r}")),
        (1u32..=4, 1u32..=5, 1u32..=4).prop_map(|(n, m, r)| format!("clos:n={n},m={m},r={r}")),
        (2u32..=4, 1u32..=3).prop_map(|(k, l)| format!("karyntree:k={k},levels={l}")),
        (1u32..=5).prop_map(|d| format!("butterfly:d={d}")),
    ]
    .prop_map(|spec| build(&spec))
}

/// Small instances of every kind.
fn any_topology() -> impl Strategy<Value = AnyTopology> {
    prop_oneof![
        6 => path_independent_topology(),
        1 => (1u32..=6).prop_map(|d| build(&format!("hypercube:d={d}"))),
    ]
}

/// A random multiset of messages on `n` processors, self-messages and repeats included:
/// sometimes a handful (often deliverable in one cycle), sometimes up to 200.
fn messages(n: u32) -> impl Strategy<Value = MessageSet> {
    prop_oneof![
        prop::collection::vec((0..n, 0..n), 0..=6),
        prop::collection::vec((0..n, 0..n), 0..=200),
    ]
    .prop_map(move |pairs| {
        let messages = pairs.into_iter().map(|(src, dst)| Message { src, dst });
        MessageSet::new(n, messages.collect()).unwrap()
    })
}

fn with_messages(
    topology: impl Strategy<Value = AnyTopology>,
) -> impl Strategy<Value = (AnyTopology, MessageSet)> {
    topology.prop_flat_map(|t| {
        let n = t.num_processors();
        (Just(t), messages(n))
    })
}

fn selections(seed: u64) -> [PathSelection; 3] {
    [
        PathSelection::Standard,
        PathSelection::First,
        PathSelection::Random { seed },
    ]
}

/// Whether every bundle is a single channel (the binary fat-tree, hypercube and butterfly).
fn one_channel_bundles(t: &AnyTopology) -> bool {
    matches!(
        t,
        AnyTopology::FatTree(_) | AnyTopology::Hypercube(_) | AnyTopology::Butterfly(_)
    )
}

/// Bundle loads recomputed from the channel loads.
fn bundle_loads(t: &AnyTopology, r: &LoadReport) -> Vec<u64> {
    let mut per_bundle = vec![0u64; t.num_bundles() as usize];
    for (c, &load) in r.loads.per_channel.iter().enumerate() {
        per_bundle[t.channel(ChannelId(c as u32)).bundle.index()] += load;
    }
    per_bundle
}

/// The explicit paths of `selection` (`Standard` or `First`), one per message.
fn explicit_paths(
    t: &AnyTopology,
    m: &MessageSet,
    selection: PathSelection,
) -> Vec<Vec<ChannelId>> {
    m.messages()
        .iter()
        .map(|x| {
            let index = match selection {
                PathSelection::Standard => t.standard_path_index(x.src, x.dst),
                PathSelection::First => 0,
                PathSelection::Random { .. } => unreachable!("not reproducible"),
            };
            let mut path = Vec::new();
            t.path_into(x.src, x.dst, index, &mut path);
            path
        })
        .collect()
}

proptest! {
    /// Σ_c load(M, c) = Σ_m |path(m)| = `total_path_length`, and the dilation is the longest
    /// path, whichever shortest paths are chosen (all of them have the same length).
    #[test]
    fn loads_sum_to_path_lengths((t, m) in with_messages(any_topology()), seed: u64) {
        let lengths: u64 = m.messages().iter().map(|x| t.distance(x.src, x.dst) as u64).sum();
        let longest = m.messages().iter().map(|x| t.distance(x.src, x.dst) as u64).max();
        for selection in selections(seed) {
            let loads = channel_loads(&t, &m, selection).unwrap();
            prop_assert_eq!(loads.per_channel.iter().sum::<u64>(), lengths, "{:?}", selection);
            prop_assert_eq!(loads.total_path_length, lengths);
            prop_assert_eq!(loads.dilation, longest.unwrap_or(0));
            prop_assert_eq!(loads.messages, m.len() as u64);
            let r = analyze(&t, &m, selection).unwrap();
            prop_assert_eq!(r.loads.per_channel.iter().sum::<u64>(), lengths);
            prop_assert_eq!(r.loads.total_path_length, lengths);
            prop_assert_eq!(r.per_bundle().iter().sum::<u64>(), lengths);
        }
    }

    /// On the binary fat-tree and the butterfly (unique paths) and on the trees whose
    /// parallel links form bundles, every selection gives the same bundle loads and λ(M).
    #[test]
    fn load_factor_does_not_depend_on_the_paths(
        (t, m) in with_messages(path_independent_topology()),
        seed: u64,
    ) {
        let reports = selections(seed).map(|s| analyze(&t, &m, s).unwrap());
        for r in &reports[1..] {
            prop_assert_eq!(r.per_bundle(), reports[0].per_bundle(), "{}", t.name());
            prop_assert_eq!(
                r.load_factor.cmp_value(&reports[0].load_factor),
                Ordering::Equal,
                "{}: {:?} vs {:?}",
                t.name(),
                r.load_factor,
                reports[0].load_factor
            );
        }
    }

    /// λ(M) is the largest bundle ratio, attained by the reported bundle, and exceeds 1
    /// exactly when some bundle carries more than its capacity; where bundles are single
    /// channels, exactly when some channel does.
    #[test]
    fn load_factor_exceeds_one_iff_a_bundle_is_overloaded(
        (t, m) in with_messages(any_topology()),
        seed: u64,
    ) {
        for selection in selections(seed) {
            let r = analyze(&t, &m, selection).unwrap();
            let per_bundle = bundle_loads(&t, &r);
            prop_assert_eq!(r.per_bundle(), &per_bundle[..]);
            let mut overloaded = false;
            for (b, &load) in per_bundle.iter().enumerate() {
                let capacity = t.bundle_capacity(BundleId(b as u32));
                overloaded |= load > capacity;
                let ratio = LoadFactor { load, capacity, bundle: None };
                prop_assert_ne!(ratio.cmp_value(&r.load_factor), Ordering::Greater, "bundle {}", b);
            }
            prop_assert_eq!(r.load_factor.exceeds_one(), overloaded, "{}", t.name());
            prop_assert_eq!(r.is_one_cycle(), !overloaded);
            match r.load_factor.bundle {
                Some(b) => {
                    prop_assert_eq!(r.load_factor.load, per_bundle[b.index()]);
                    prop_assert_eq!(r.load_factor.capacity, t.bundle_capacity(b));
                }
                None => prop_assert_eq!(r.loads.total_path_length, 0),
            }
            if one_channel_bundles(&t) {
                prop_assert_eq!(t.num_bundles(), t.num_channels());
                let channel_overloaded = (0..t.num_channels()).any(|c| {
                    r.loads.per_channel[c as usize] > t.channel(ChannelId(c)).capacity
                });
                prop_assert_eq!(r.load_factor.exceeds_one(), channel_overloaded);
            }
        }
    }

    /// Congestion is the largest channel load, and `congestion_and_dilation` of the explicit
    /// paths that `Standard` and `First` choose gives the report's congestion and dilation.
    #[test]
    fn congestion_and_dilation_match_explicit_paths(
        (t, m) in with_messages(any_topology()),
        seed: u64,
    ) {
        for selection in selections(seed) {
            let r = analyze(&t, &m, selection).unwrap();
            let max = r.loads.per_channel.iter().copied().max().unwrap_or(0);
            prop_assert_eq!(r.congestion, max);
            match r.congestion_channel {
                Some(c) => prop_assert_eq!(r.loads.per_channel[c.index()], max),
                None => prop_assert_eq!(max, 0),
            }
            if !matches!(selection, PathSelection::Random { .. }) {
                let paths = explicit_paths(&t, &m, selection);
                prop_assert_eq!(
                    congestion_and_dilation(&t, &paths),
                    Ok((r.congestion, r.loads.dilation)),
                    "{} {:?}",
                    t.name(),
                    selection
                );
            }
        }
    }

    /// A full-bisection fat-tree (capacity 2^h at height h) delivers any permutation in one
    /// cycle: λ <= 1.
    #[test]
    fn permutation_fits_a_full_bisection_fat_tree(
        perm in (1u32..=10).prop_flat_map(|l| Just((0..1 << l).collect::<Vec<_>>()).prop_shuffle()),
        seed: u64,
    ) {
        let n = perm.len() as u32;
        let t = build(&format!("fattree:n={n},profile=doubling"));
        let messages = perm.iter().zip(0..).map(|(&dst, src)| Message { src, dst });
        let m = MessageSet::new(n, messages.collect()).unwrap();
        prop_assert!(m.is_permutation());
        for selection in selections(seed) {
            let r = analyze(&t, &m, selection).unwrap();
            prop_assert!(!r.load_factor.exceeds_one(), "{:?}", r.load_factor);
            prop_assert!(r.is_one_cycle());
        }
    }

    /// The complement sends every message across the root, so on a fat-tree with unit
    /// capacities each of the root's child channels carries n/2 messages: λ = n/2 exactly.
    #[test]
    fn complement_on_a_unit_fat_tree_has_load_factor_n_over_2(levels in 1u32..=12, seed: u64) {
        let n = 1u32 << levels;
        let t = build(&format!("fattree:n={n},profile=constant,cap=1"));
        let m = patterns::complement(n).unwrap();
        let half = LoadFactor { load: u64::from(n / 2), capacity: 1, bundle: None };
        for selection in selections(seed) {
            let r = analyze(&t, &m, selection).unwrap();
            prop_assert_eq!(r.load_factor.cmp_value(&half), Ordering::Equal, "{:?}", r.load_factor);
            let loads = channel_loads(&t, &m, selection).unwrap();
            prop_assert_eq!(loads.per_channel.iter().copied().max(), Some(u64::from(n / 2)));
        }
    }
}
