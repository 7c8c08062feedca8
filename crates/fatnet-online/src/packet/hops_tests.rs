//! The arithmetic next hops of the tree families against the BFS distance table they
//! replace: same candidates in the same order at every (node, destination), same distances,
//! same longest route, same reachability verdicts.

use fatnet_topology::{
    AnyTopology, AreaGrowth, Butterfly, CapacityProfile, Clos, FatTree, FoldedClos, KAryNTree,
    Topology, VolumeGrowth,
};
use proptest::prelude::*;

use super::PacketNet;

/// Compiles `t` both ways and compares everything the engine asks of the next hops.
fn compare(t: AnyTopology) {
    let name = t.name();
    let arith = PacketNet::new(t.clone()).unwrap();
    let table = PacketNet::with_table_for_tests(t).unwrap();
    assert_eq!(arith.table_entries(), 0, "{name}: not arithmetic");
    assert!(table.table_entries() > 0, "{name}: no table");
    assert_eq!(arith.links(), table.links(), "{name}");
    assert_eq!(arith.max_hops(), table.max_hops(), "{name}: max_hops");
    let (mut a, mut b, mut scratch) = (Vec::new(), Vec::new(), Vec::new());
    let mut candidates = 0usize;
    for dst in 0..arith.processors() {
        for v in 0..arith.nodes() {
            arith.next_hops(v, dst, &mut a);
            table.next_hops(v, dst, &mut b);
            assert_eq!(a, b, "{name}: next hops at node {v} towards {dst}");
            if let Some(&first) = b.first() {
                assert_eq!(arith.first_hop(v, dst, &mut scratch), first, "{name}");
            }
            candidates += b.len();
        }
        for src in 0..arith.processors() {
            assert_eq!(
                arith.distance(src, dst),
                table.distance(src, dst),
                "{name}: distance {src} -> {dst}"
            );
            assert_eq!(
                arith.check_reachable(src, dst).is_ok(),
                table.check_reachable(src, dst).is_ok(),
                "{name}: reachability {src} -> {dst}"
            );
        }
    }
    // Some head has a choice on every family with more than one processor: the comparison
    // is not between two empty lists.
    assert!(candidates > 0, "{name}");
}

fn fat_tree_profiles(levels: u32) -> Vec<CapacityProfile> {
    let mut profiles = vec![
        CapacityProfile::Constant(1),
        CapacityProfile::Constant(3),
        CapacityProfile::Doubling { leaf: 1 },
        CapacityProfile::Doubling { leaf: 2 },
        CapacityProfile::Area {
            leaf: 1,
            growth: AreaGrowth::Smooth,
        },
        CapacityProfile::Area {
            leaf: 2,
            growth: AreaGrowth::Stepped,
        },
        CapacityProfile::Volume {
            leaf: 1,
            growth: VolumeGrowth::Smooth,
        },
        CapacityProfile::Volume {
            leaf: 3,
            growth: VolumeGrowth::Stepped,
        },
        // Capacities that shrink and grow again.
        CapacityProfile::Custom(
            (0..=levels)
                .map(|h| u64::from(1 + (h * 5 + 2) % 4))
                .collect(),
        ),
    ];
    if levels.is_multiple_of(2) {
        profiles.push(CapacityProfile::Standard);
    }
    profiles.push(CapacityProfile::Universal { root: 1 << levels });
    profiles
}

#[test]
fn karyntree_matches_the_table() {
    for (k, levels) in [
        (2, 1),
        (2, 2),
        (2, 3),
        (2, 5),
        (3, 1),
        (3, 2),
        (3, 3),
        (4, 1),
        (4, 2),
        (4, 3),
        (5, 1),
        (5, 2),
        (5, 3),
    ] {
        compare(KAryNTree::new(k, levels).unwrap().into());
    }
}

#[test]
fn folded_clos_matches_the_table() {
    for (n, m, r) in [
        (1, 1, 1),
        (2, 1, 1),
        (1, 3, 1),
        (1, 1, 4),
        (2, 3, 4),
        (3, 2, 5),
        (4, 4, 3),
        (5, 2, 2),
    ] {
        compare(FoldedClos::new(n, m, r).unwrap().into());
    }
    compare(FoldedClos::nonblocking(2).unwrap().into());
    compare(FoldedClos::two_level_mport(6).unwrap().into());
}

#[test]
fn clos_matches_the_table() {
    for (n, m, r) in [
        (1, 1, 1),
        (2, 1, 1),
        (1, 3, 1),
        (1, 1, 4),
        (2, 3, 4),
        (3, 2, 5),
        (4, 5, 3),
    ] {
        compare(Clos::new(n, m, r).unwrap().into());
    }
}

#[test]
fn fat_tree_matches_the_table_with_every_profile() {
    for levels in 1..=6u32 {
        for profile in fat_tree_profiles(levels) {
            compare(FatTree::new(1 << levels, profile).unwrap().into());
        }
    }
}

#[test]
fn butterfly_matches_the_table() {
    for d in 1..=6 {
        compare(Butterfly::new(d).unwrap().into());
    }
}

/// The bare types are recognised as well as the `AnyTopology` variants.
#[test]
fn bare_tree_types_are_arithmetic() {
    use super::RouteSource::{ShortestPaths, TopologyPaths};
    let nets = [
        PacketNet::with_routes(KAryNTree::new(3, 2).unwrap(), ShortestPaths),
        PacketNet::with_routes(FoldedClos::new(2, 2, 3).unwrap(), ShortestPaths),
        PacketNet::with_routes(Clos::new(2, 2, 3).unwrap(), ShortestPaths),
        PacketNet::with_routes(
            FatTree::new(8, CapacityProfile::Doubling { leaf: 1 }).unwrap(),
            ShortestPaths,
        ),
        PacketNet::with_routes(Butterfly::new(4).unwrap(), ShortestPaths),
    ];
    for net in nets {
        let net = net.unwrap();
        assert_eq!(net.table_entries(), 0, "{net:?}");
        assert!(net.max_hops() >= 4, "{net:?}");
    }
    // Fixed routes stay fixed routes.
    let fixed = PacketNet::with_routes(KAryNTree::new(3, 2).unwrap(), TopologyPaths).unwrap();
    assert_eq!(fixed.routes(), TopologyPaths);
    assert_eq!(fixed.max_hops(), 4);
}

/// The 4-ary 7-tree (16,384 processors, refused with a table of 738,197,504 entries) and the
/// 4-ary 10-tree (2^20 processors) compile without a table.
#[test]
fn large_karyntrees_compile_without_a_table() {
    for (levels, processors) in [(7u64, 1u32 << 14), (10, 1 << 20)] {
        let t = KAryNTree::new(4, levels).unwrap();
        let nodes = u64::from(t.num_nodes());
        assert!(nodes * u64::from(processors) > super::MAX_TABLE_ENTRIES);
        let net = PacketNet::new(t).unwrap();
        assert_eq!(net.processors(), processors);
        assert_eq!(net.table_entries(), 0);
        assert_eq!(net.max_hops(), 2 * levels as u32);
        // A far pair: up to a top switch and down, every up port a candidate.
        let (src, dst) = (0, processors - 1);
        assert_eq!(net.distance(src, dst), 2 * levels as u32);
        let mut out = Vec::new();
        let leaf_switch = net.link_head(net.out_links(net.injection_node(src))[0]);
        net.next_hops(leaf_switch, dst, &mut out);
        assert_eq!(out.len(), 4);
        // Walking first hops reaches the destination in `distance` steps.
        let mut at = net.injection_node(src);
        for _ in 0..net.distance(src, dst) {
            at = net.link_head(net.first_hop(at, dst, &mut out));
        }
        assert_eq!(at, net.ejection_node(dst));
    }
}

fn any_tree() -> impl Strategy<Value = AnyTopology> {
    prop_oneof![
        (2u64..=5, 1u64..=3).prop_map(|(k, n)| KAryNTree::new(k, n).unwrap().into()),
        (1u64..=4, 1u64..=4, 1u64..=5)
            .prop_map(|(n, m, r)| FoldedClos::new(n, m, r).unwrap().into()),
        (1u64..=4, 1u64..=4, 1u64..=5).prop_map(|(n, m, r)| Clos::new(n, m, r).unwrap().into()),
        (1u32..=5)
            .prop_flat_map(|levels| {
                (
                    Just(levels),
                    proptest::collection::vec(1u64..=4, levels as usize + 1),
                )
            })
            .prop_map(|(levels, caps)| {
                FatTree::new(1 << levels, CapacityProfile::Custom(caps))
                    .unwrap()
                    .into()
            }),
        (1u64..=6).prop_map(|d| Butterfly::new(d).unwrap().into()),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn random_trees_match_the_table(t in any_tree()) {
        compare(t);
    }
}
