//! The arithmetic next hops of the built-in topologies against the BFS distance table they
//! replace, and the distance table (one row per row target) against a per-processor BFS
//! computed here: same candidates in the same order at every (node, destination), same
//! distances, same longest route, same reachability verdicts.

use fatnet_topology::{
    AnyTopology, AreaGrowth, BundleId, Butterfly, ButterflyFatTree, CapacityProfile, Channel,
    ChannelId, Clos, FatTree, FoldedClos, Hypercube, KAryNTree, Node, NodeId, Processor, Topology,
    VolumeGrowth,
};
use proptest::prelude::*;

use super::{MAX_TABLE_ENTRIES, PacketNet, RouteSource};
use crate::OnlineError;

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
    same_ends(&arith, &table);
}

/// The links' ends, ejection flags and every node's outgoing links of `derived` are those of
/// `stored` (a table keeps them stored; the arithmetic net derives them where links pair up).
fn same_ends(derived: &PacketNet, stored: &PacketNet) {
    let name = stored.topology().name();
    assert!(
        !stored.stored_tails().is_empty(),
        "{name}: a table stores the tails"
    );
    assert_eq!(derived.paired(), stored.paired(), "{name}");
    for e in 0..stored.links() {
        assert_eq!(
            derived.link_head(e),
            stored.link_head(e),
            "{name}: link {e}"
        );
        assert_eq!(
            derived.link_tail(e),
            stored.link_tail(e),
            "{name}: link {e}"
        );
        assert_eq!(
            derived.is_ejection(e),
            stored.is_ejection(e),
            "{name}: link {e}"
        );
    }
    let mut leaving = vec![Vec::new(); stored.nodes() as usize];
    for e in 0..stored.links() {
        leaving[stored.link_tail(e) as usize].push(e);
    }
    let mut into = Vec::new();
    for v in 0..stored.nodes() {
        assert_eq!(stored.out_links(v), leaving[v as usize], "{name}: node {v}");
        assert_eq!(
            derived.out_links(v),
            stored.out_links(v),
            "{name}: node {v}"
        );
        // The engine's walk, which builds no tables on derived ends.
        derived.out_links_into(v, &mut into);
        assert_eq!(into, stored.out_links(v), "{name}: node {v}");
    }
}

/// The k-ary n-trees, the binary fat-trees and the butterfly fat-tree keep no tails and no
/// outgoing links per link (their links come in reversed pairs); the hypercube, the butterfly
/// and the folded Clos network, whose links do not, keep them.
#[test]
fn paired_networks_derive_their_tails_and_outgoing_links() {
    let paired: [AnyTopology; 4] = [
        KAryNTree::new(4, 3).unwrap().into(),
        FatTree::new(16, CapacityProfile::Constant(1))
            .unwrap()
            .into(),
        ButterflyFatTree::new(64).unwrap().into(),
        ButterflyFatTree::new(256).unwrap().into(),
    ];
    for t in paired {
        let name = t.name();
        let net = PacketNet::new(t.clone()).unwrap();
        assert!(net.paired(), "{name}");
        assert!(net.stored_tails().is_empty(), "{name}: tails stored");
        same_ends(&net, &PacketNet::with_table_for_tests(t).unwrap());
    }
    for t in [
        AnyTopology::from(Hypercube::new(4).unwrap()),
        Butterfly::new(3).unwrap().into(),
        FoldedClos::new(2, 4, 4).unwrap().into(),
    ] {
        let net = PacketNet::new(t.clone()).unwrap();
        assert!(!net.paired(), "{}", t.name());
        assert_eq!(net.stored_tails().len(), net.links() as usize);
    }
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
    use RouteSource::{ShortestPaths, TopologyPaths};
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
        assert!(nodes * u64::from(processors) > MAX_TABLE_ENTRIES);
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

/// Any topology behind a type the engine does not recognise: it gets a distance table.
struct Opaque(AnyTopology);

impl Topology for Opaque {
    fn name(&self) -> String {
        format!("opaque {}", self.0.name())
    }
    fn num_processors(&self) -> u32 {
        self.0.num_processors()
    }
    fn num_nodes(&self) -> u32 {
        self.0.num_nodes()
    }
    fn num_switches(&self) -> u32 {
        self.0.num_switches()
    }
    fn num_channels(&self) -> u32 {
        self.0.num_channels()
    }
    fn num_bundles(&self) -> u32 {
        self.0.num_bundles()
    }
    fn node(&self, v: NodeId) -> Node {
        self.0.node(v)
    }
    fn channel(&self, c: ChannelId) -> Channel {
        self.0.channel(c)
    }
    fn bundle_capacity(&self, b: BundleId) -> u64 {
        self.0.bundle_capacity(b)
    }
    fn injection_node(&self, p: Processor) -> NodeId {
        self.0.injection_node(p)
    }
    fn ejection_node(&self, p: Processor) -> NodeId {
        self.0.ejection_node(p)
    }
    fn path_count(&self, src: Processor, dst: Processor) -> u128 {
        self.0.path_count(src, dst)
    }
    fn path_into(&self, src: Processor, dst: Processor, index: u128, out: &mut Vec<ChannelId>) {
        self.0.path_into(src, dst, index, out)
    }
}

/// Checks `net` against a per-processor BFS computed here, independently of the engine's
/// tables: the next hops at every (node, destination), every distance, every reachability
/// verdict and the longest distance.
fn check_against_per_processor_bfs(net: &PacketNet) {
    let n = net.nodes() as usize;
    let mut incoming = vec![Vec::new(); n];
    for e in 0..net.links() {
        incoming[net.link_head(e) as usize].push(net.link_tail(e));
    }
    let (mut got, mut want) = (Vec::new(), Vec::new());
    let mut longest = 0;
    for dst in 0..net.processors() {
        let mut d = vec![u32::MAX; n];
        let target = net.ejection_node(dst);
        d[target as usize] = 0;
        let mut queue = std::collections::VecDeque::from([target]);
        while let Some(v) = queue.pop_front() {
            for &u in &incoming[v as usize] {
                if d[u as usize] == u32::MAX {
                    d[u as usize] = d[v as usize] + 1;
                    queue.push_back(u);
                }
            }
        }
        longest = longest.max(d.iter().copied().filter(|&x| x != u32::MAX).max().unwrap());
        for v in 0..net.nodes() {
            want.clear();
            let here = d[v as usize];
            if here != 0 && here != u32::MAX {
                want.extend(
                    net.out_links(v)
                        .iter()
                        .copied()
                        .filter(|&e| d[net.link_head(e) as usize] == here - 1),
                );
            }
            net.next_hops(v, dst, &mut got);
            assert_eq!(got, want, "{net:?}: node {v} towards {dst}");
        }
        for src in 0..net.processors() {
            let at = d[net.injection_node(src) as usize];
            assert_eq!(
                net.distance(src, dst),
                if at == u32::MAX { 0 } else { at },
                "{net:?}: {src} -> {dst}"
            );
            assert_eq!(net.check_reachable(src, dst).is_ok(), at != u32::MAX);
        }
    }
    assert_eq!(net.max_hops(), longest, "{net:?}");
}

/// The shared-row table gives what a per-processor table gives, on every family (whose
/// ejection nodes have one in-neighbour, several or are routing nodes), and has one row per
/// distinct row target.
#[test]
fn tables_keyed_by_row_target_match_a_per_processor_bfs() {
    let cases: Vec<(AnyTopology, usize)> = vec![
        // One row per leaf switch.
        (KAryNTree::new(3, 3).unwrap().into(), 9),
        (KAryNTree::new(2, 4).unwrap().into(), 8),
        // One row per bottom / output switch.
        (FoldedClos::new(3, 2, 4).unwrap().into(), 4),
        (FoldedClos::new(1, 2, 3).unwrap().into(), 3),
        (Clos::new(2, 3, 4).unwrap().into(), 4),
        // One row per leaf's parent, whatever the wires.
        (
            FatTree::new(16, CapacityProfile::Constant(2))
                .unwrap()
                .into(),
            8,
        ),
        (
            FatTree::new(2, CapacityProfile::Doubling { leaf: 1 })
                .unwrap()
                .into(),
            1,
        ),
        // Butterfly fat-tree leaves hang off one switch each: 4 per switch.
        (ButterflyFatTree::new(64).unwrap().into(), 16),
        // Ejection nodes with two in-neighbours (butterfly) or routing nodes (hypercube):
        // one row per processor.
        (Butterfly::new(4).unwrap().into(), 16),
        (Hypercube::new(4).unwrap().into(), 16),
    ];
    for (t, rows) in cases {
        let table = PacketNet::with_routes(Opaque(t.clone()), RouteSource::ShortestPaths).unwrap();
        assert_eq!(table.table_rows(), rows, "{table:?}");
        assert_eq!(table.table_entries(), rows * table.nodes() as usize);
        check_against_per_processor_bfs(&table);
        // And the arithmetic of the same topology against the same reference.
        check_against_per_processor_bfs(&PacketNet::new(t).unwrap());
    }
}

/// The refusal counts rows × nodes, before any table is allocated; a network whose
/// per-processor table would be refused now fits when its processors share rows.
#[test]
fn table_size_is_rows_times_nodes() {
    // 2^14 routing nodes, one row each: 2^28 entries.
    let cube = Opaque(Hypercube::new(14).unwrap().into());
    match PacketNet::with_routes(cube, RouteSource::ShortestPaths) {
        Err(OnlineError::TooLarge { what, value, max }) => {
            assert!(what.contains("row targets"), "{what}");
            assert_eq!((value, max), (1 << 28, MAX_TABLE_ENTRIES));
        }
        other => panic!("{other:?}"),
    }
    // 32-ary 3-tree: 32,768 processors × 35,840 nodes would be 1.17 G entries; its 1,024
    // leaf switches make 36.7 M.
    let t = KAryNTree::new(32, 3).unwrap();
    let arith = PacketNet::new(t.clone()).unwrap();
    let table = PacketNet::with_routes(Opaque(t.into()), RouteSource::ShortestPaths).unwrap();
    assert!(u64::from(table.processors()) * u64::from(table.nodes()) > MAX_TABLE_ENTRIES);
    assert_eq!(table.table_rows(), 1024);
    assert_eq!(table.max_hops(), arith.max_hops());
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for dst in (0..table.processors()).step_by(331) {
        for v in 0..table.nodes() {
            arith.next_hops(v, dst, &mut a);
            table.next_hops(v, dst, &mut b);
            assert_eq!(a, b, "node {v} towards {dst}");
        }
        for src in (0..table.processors()).step_by(97) {
            assert_eq!(arith.distance(src, dst), table.distance(src, dst));
        }
    }
}

/// A one-way ring of `r` switches, switch `i` → switch `i+1`, with terminal `i` fed by
/// switch `i` and feeding switch `i+1`: a terminal is the node farthest from its own
/// in-neighbour, the case where a shared row's longest distance is not its row's longest
/// plus one.
struct OneWayRing(u32);

impl Topology for OneWayRing {
    fn name(&self) -> String {
        format!("one-way ring of {}", self.0)
    }
    fn num_processors(&self) -> u32 {
        self.0
    }
    fn num_nodes(&self) -> u32 {
        2 * self.0
    }
    fn num_switches(&self) -> u32 {
        self.0
    }
    fn num_channels(&self) -> u32 {
        3 * self.0
    }
    fn num_bundles(&self) -> u32 {
        3 * self.0
    }
    fn node(&self, v: NodeId) -> Node {
        let r = self.0;
        Node {
            kind: if v.0 < r {
                fatnet_topology::NodeKind::Switch
            } else {
                fatnet_topology::NodeKind::Processor
            },
            level: u32::from(v.0 < r),
            index: v.0 % r,
        }
    }
    fn channel(&self, c: ChannelId) -> Channel {
        let (r, i) = (self.0, c.0 % self.0);
        let (from, to) = match c.0 / r {
            0 => (i, (i + 1) % r),
            1 => (i, r + i),
            _ => (r + i, (i + 1) % r),
        };
        Channel {
            from: NodeId(from),
            to: NodeId(to),
            capacity: 1,
            level: 0,
            direction: fatnet_topology::Direction::Forward,
            bundle: BundleId(c.0),
        }
    }
    fn bundle_capacity(&self, _: BundleId) -> u64 {
        1
    }
    fn injection_node(&self, p: Processor) -> NodeId {
        NodeId(self.0 + p)
    }
    fn ejection_node(&self, p: Processor) -> NodeId {
        NodeId(self.0 + p)
    }
    fn path_count(&self, _: Processor, _: Processor) -> u128 {
        1
    }
    fn path_into(&self, src: Processor, dst: Processor, _: u128, out: &mut Vec<ChannelId>) {
        let r = self.0;
        out.clear();
        if src == dst {
            return;
        }
        out.push(ChannelId(2 * r + src));
        let mut at = (src + 1) % r;
        while at != dst {
            out.push(ChannelId(at));
            at = (at + 1) % r;
        }
        out.push(ChannelId(r + dst));
    }
}

#[test]
fn shared_rows_leave_the_ejection_node_out_of_the_longest_distance() {
    for r in [2, 3, 5] {
        let net = PacketNet::with_routes(OneWayRing(r), RouteSource::ShortestPaths).unwrap();
        assert_eq!(net.table_rows(), r as usize);
        // Terminal i reaches its own switch i the long way round: r hops; the farthest
        // node from terminal i is switch i + 1 (or terminal i + 1), r hops.
        assert_eq!(net.max_hops(), r);
        check_against_per_processor_bfs(&net);
    }
}

/// Every link is a wire of its channel, and a channel's wires are consecutive links: with one
/// link per channel (no table kept) and with capacities (a table).
#[test]
fn links_are_wires_of_their_channels() {
    use super::net::ChannelLinks;
    let nets = [
        PacketNet::new(KAryNTree::new(4, 3).unwrap()).unwrap(),
        PacketNet::new(FatTree::new(16, CapacityProfile::Constant(2)).unwrap()).unwrap(),
        PacketNet::new(FatTree::new(16, CapacityProfile::Doubling { leaf: 1 }).unwrap()).unwrap(),
    ];
    for net in &nets {
        let wires = net.channel_links();
        let channels = net.topology().num_channels();
        assert_eq!(
            matches!(wires, ChannelLinks::One(_)),
            channels == net.links(),
            "{net:?}"
        );
        let mut next = 0;
        for c in 0..channels {
            let (lo, hi) = wires.wires(c as usize).unwrap();
            assert_eq!(lo, next, "{net:?}: channel {c}");
            assert!(hi > lo);
            for e in lo..hi {
                assert_eq!(net.channel_of(e).0, c);
            }
            next = hi;
        }
        assert_eq!(next, net.links());
        assert_eq!(wires.wires(channels as usize), None);
    }
}

/// The engine's decisions on arithmetic next hops (`Sim::head_link_run`: the candidates as a
/// run of link ids, never listed) are those it makes on the table's lists: the same run, on
/// every tree family, under every path policy a head decides by and the other-up reading.
#[test]
fn runs_on_arithmetic_hops_are_the_runs_on_the_table() {
    use super::{FlowControl, PacketConfig, PathPolicy, QueueCapacity, StoreTiming, batch};
    use fatnet_traffic::patterns;
    use rand::SeedableRng;
    use rand_pcg::Pcg64;
    let nets: Vec<AnyTopology> = vec![
        FatTree::new(64, CapacityProfile::Doubling { leaf: 1 })
            .unwrap()
            .into(),
        FatTree::new(64, CapacityProfile::Constant(3))
            .unwrap()
            .into(),
        FatTree::new(64, CapacityProfile::Universal { root: 64 })
            .unwrap()
            .into(),
        KAryNTree::new(4, 3).unwrap().into(),
        FoldedClos::new(3, 4, 6).unwrap().into(),
        Clos::new(3, 4, 6).unwrap().into(),
    ];
    let base = PacketConfig {
        check_conservation: true,
        record_latencies: true,
        ..PacketConfig::worm()
    };
    let configs = [
        base,
        PacketConfig {
            path: PathPolicy::Greedy,
            ..base
        },
        PacketConfig {
            path: PathPolicy::DimensionOrder,
            ..base
        },
        PacketConfig {
            flow: FlowControl::StoreAndForward,
            queue: QueueCapacity::Bounded(1),
            store_timing: StoreTiming::OtherUpLink,
            ..base
        },
        PacketConfig {
            flow: FlowControl::Split,
            flits: 4,
            ..base
        },
    ];
    for t in nets {
        let name = t.name();
        let arith = PacketNet::new(t.clone()).unwrap();
        let table = PacketNet::with_table_for_tests(t).unwrap();
        let n = arith.processors();
        let m = patterns::uniform(n, true, &mut Pcg64::seed_from_u64(3)).unwrap();
        let inj = batch(&m, 3, 8, &mut Pcg64::seed_from_u64(4)).unwrap();
        for config in &configs {
            let a = super::simulate(&arith, &inj, config, 11).unwrap();
            let b = super::simulate(&table, &inj, config, 11).unwrap();
            assert_eq!(a, b, "{name}: {config:?}");
            assert_eq!(a.delivered, a.messages, "{name}: {config:?}");
        }
    }
}
