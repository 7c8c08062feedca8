//! Output queueing (Stamoulis' model): exact small cases, the difference from input queueing,
//! multicast copying on arrival, conservation and the configuration checks.

use fatnet_online::OnlineError;
use fatnet_online::packet::{
    FlowControl, Injection, Multicast, MulticastTree, Outcome, PacketConfig, PacketNet, PathPolicy,
    QueueCapacity, Queueing, ScanPolicy, SinkModel, simulate, simulate_multicast,
};
use fatnet_topology::{Butterfly, ButterflyFatTree, Hypercube};
use proptest::prelude::*;

fn hypercube(d: u64) -> PacketNet {
    PacketNet::new(Hypercube::new(d).unwrap()).unwrap()
}

/// Stamoulis' greedy routing: output queues, unit packets, dimension order.
fn greedy() -> PacketConfig {
    PacketConfig {
        queueing: Queueing::Output,
        flow: FlowControl::StoreAndForward,
        path: PathPolicy::DimensionOrder,
        scan: ScanPolicy::RoundRobin,
        flits: 1,
        queue: QueueCapacity::Unbounded,
        sink: SinkModel::Immediate,
        check_conservation: true,
        record_latencies: true,
        ..PacketConfig::default()
    }
}

fn inj(src: u32, dst: u32, release: u64) -> Injection {
    Injection { src, dst, release }
}

/// On Stamoulis' butterfly a processor's packet to itself crosses the `d` straight arcs of
/// its row and queues with the others; on the cube it is delivered at its release.
#[test]
fn a_packet_to_itself_crosses_the_butterfly_but_not_the_cube() {
    for d in [1u64, 3, 5] {
        let net = PacketNet::new(Butterfly::new(d).unwrap()).unwrap();
        // Two packets from row 0 to row 0, released together, share all d straight arcs.
        let r = simulate(&net, &[inj(0, 0, 4), inj(0, 0, 4)], &greedy(), 1).unwrap();
        let mut lat = r.latencies.unwrap();
        lat.sort_unstable();
        assert_eq!(lat, vec![d - 1, d], "d = {d}");
        assert_eq!(r.unit_hops, 2 * d);
    }
    let r = simulate(&hypercube(3), &[inj(5, 5, 4)], &greedy(), 1).unwrap();
    assert_eq!((r.latencies.unwrap(), r.unit_hops), (vec![0], 0));
}

/// A lone packet crosses one link per step: delivered in step release + d − 1.
#[test]
fn a_lone_packet_moves_one_link_per_step() {
    let net = hypercube(6);
    for (dst, d) in [(1u32, 1u64), (3, 2), (0b101010, 3), (63, 6)] {
        let r = simulate(&net, &[inj(0, dst, 5)], &greedy(), 1).unwrap();
        assert_eq!(r.outcome, Outcome::Delivered);
        assert_eq!(r.latency, 5 + d - 1, "dst {dst}");
        assert_eq!(r.latencies.unwrap(), vec![d - 1]);
        assert_eq!(r.unit_hops, d);
        assert_eq!(u64::from(r.dilation), d);
    }
}

/// No head-of-line blocking: two packets released together at node 0 for different arcs both
/// leave in step 0 on output queues; on input queues the second waits behind the first in
/// the injection queue.
#[test]
fn output_queues_have_no_head_of_line_blocking() {
    let net = hypercube(2);
    let both = [inj(0, 1, 0), inj(0, 2, 0)];
    let out = simulate(&net, &both, &greedy(), 3).unwrap();
    assert_eq!(out.latencies.unwrap(), vec![0, 0]);
    let input = PacketConfig {
        queueing: Queueing::Input,
        ..greedy()
    };
    let r = simulate(&net, &both, &input, 3).unwrap();
    assert_eq!(r.latencies.unwrap(), vec![0, 1]);
}

/// Packets that want one arc leave one per step, in a FIFO order: under the fixed order the
/// order of release; under RR every order is possible and each packet's rank is uniform.
#[test]
fn one_arc_serves_one_packet_per_step_fifo() {
    let net = hypercube(3);
    // Four packets from node 0 to node 1 (arc 0→1), released together, plus one later.
    let msgs = [
        inj(0, 1, 0),
        inj(0, 1, 0),
        inj(0, 1, 0),
        inj(0, 1, 0),
        inj(0, 1, 2),
    ];
    let fo = PacketConfig {
        scan: ScanPolicy::FixedOrder,
        ..greedy()
    };
    let r = simulate(&net, &msgs, &fo, 0).unwrap();
    // The late packet joins behind the two still waiting at step 2.
    assert_eq!(r.latencies.unwrap(), vec![0, 1, 2, 3, 2]);
    assert_eq!(r.max_queue, 4);
    let mut first_counts = [0u32; 4];
    for seed in 0..400 {
        let r = simulate(&net, &msgs[..4], &greedy(), seed).unwrap();
        let mut lat = r.latencies.unwrap();
        let winner = lat.iter().position(|&l| l == 0).unwrap();
        first_counts[winner] += 1;
        lat.sort_unstable();
        assert_eq!(lat, vec![0, 1, 2, 3]);
    }
    // Each of the four goes first about 100 times in 400 (binomial sd ≈ 8.7).
    for c in first_counts {
        assert!((60..=140).contains(&c), "{first_counts:?}");
    }
}

/// Same-step ties at one arc: oldest-first puts the new packet (generated during the last
/// step, so at the node first) ahead of the one arriving in transit; fixed order the reverse.
#[test]
fn new_packets_go_first_under_oldest_first() {
    let net = hypercube(2);
    // A: 0 → 3 crosses 0 → 1 in step 0 and wants 1 → 3 in step 1, when B (1 → 3) is new.
    let msgs = [inj(0, 3, 0), inj(1, 3, 1)];
    let oldest = PacketConfig {
        scan: ScanPolicy::OldestFirst,
        ..greedy()
    };
    let r = simulate(&net, &msgs, &oldest, 0).unwrap();
    assert_eq!(r.latencies.unwrap(), vec![2, 0]);
    let fo = PacketConfig {
        scan: ScanPolicy::FixedOrder,
        ..greedy()
    };
    let r = simulate(&net, &msgs, &fo, 0).unwrap();
    assert_eq!(r.latencies.unwrap(), vec![1, 1]);
    let mut seen = std::collections::BTreeSet::new();
    for seed in 0..64 {
        seen.insert(
            simulate(&net, &msgs, &greedy(), seed)
                .unwrap()
                .latencies
                .unwrap(),
        );
    }
    assert_eq!(seen.len(), 2, "RR breaks the tie both ways: {seen:?}");
}

/// A broadcast copies on arrival: alone on the d-cube it reaches depth k at step k − 1.
/// Every processor broadcasting at once is delivered, and no broadcast beats the bound of
/// (2^d − 1)/d steps for the node receiving the most through its d input arcs.
#[test]
fn broadcasts_on_output_queues() {
    for d in 2..=6u64 {
        let net = hypercube(d);
        let n = 1u32 << d;
        let trees: Vec<MulticastTree> = (0..n)
            .map(|s| {
                let dsts: Vec<u32> = (0..n).filter(|&p| p != s).collect();
                MulticastTree::shortest_paths(&net, s, &dsts).unwrap()
            })
            .collect();
        let one = [Multicast {
            tree: 0,
            release: 0,
        }];
        let r = simulate_multicast(&net, &[], &trees, &one, &greedy(), 1).unwrap();
        assert_eq!(r.latency, d - 1);
        assert_eq!(r.unit_hops, u64::from(n - 1));
        let all: Vec<Multicast> = (0..n)
            .map(|s| Multicast {
                tree: s,
                release: 0,
            })
            .collect();
        let r = simulate_multicast(&net, &[], &trees, &all, &greedy(), 1).unwrap();
        assert_eq!(r.outcome, Outcome::Delivered);
        assert_eq!(r.unit_hops, u64::from(n) * u64::from(n - 1));
        // The last packet needs (2^d − 1)/d steps of some node's inputs: 0-based step ≥ that − 1.
        let bound = u64::from(n - 1).div_ceil(d) - 1;
        assert!(r.latency >= bound, "d = {d}: {} < {bound}", r.latency);
    }
}

/// Stamoulis' efficient direct scheme: the d rotated trees of every node. Each spans the
/// cube with depth d, and together the d·2^d trees load every arc exactly 2^d − 1 times
/// (so the arc load is λ(2^d − 1)/d = ρ, the thesis' (6.1)).
#[test]
fn rotated_trees_balance_every_arc() {
    for d in 2..=7u32 {
        let net = hypercube(u64::from(d));
        let n = 1u32 << d;
        let mut load = vec![0u32; net.links() as usize];
        for root in 0..n {
            for first in 0..d {
                let t = MulticastTree::hypercube_rotated(&net, root, first).unwrap();
                assert_eq!(t.links().len() as u32, n - 1);
                assert_eq!(t.height(), d);
                assert_eq!(t.dsts().len() as u32, n - 1);
                for &e in t.links() {
                    load[e as usize] += 1;
                }
            }
        }
        assert!(load.iter().all(|&l| l == n - 1), "d = {d}");
    }
    let net = hypercube(3);
    assert!(matches!(
        MulticastTree::hypercube_rotated(&net, 0, 3),
        Err(OnlineError::BadParameter { .. })
    ));
    let bft = PacketNet::new(ButterflyFatTree::new(16).unwrap()).unwrap();
    assert!(matches!(
        MulticastTree::hypercube_rotated(&bft, 0, 0),
        Err(OnlineError::Unsupported { .. })
    ));
}

/// The fat-tree works too (terminals absorb on arrival).
#[test]
fn fat_tree_on_output_queues() {
    let net = PacketNet::new(ButterflyFatTree::new(64).unwrap()).unwrap();
    let msgs: Vec<Injection> = (0..64).map(|s| inj(s, 63 - s, 0)).collect();
    for path in [
        PathPolicy::Random,
        PathPolicy::Greedy,
        PathPolicy::Fixed,
        PathPolicy::DimensionOrder,
    ] {
        let cfg = PacketConfig { path, ..greedy() };
        let r = simulate(&net, &msgs, &cfg, 2).unwrap();
        assert_eq!(r.outcome, Outcome::Delivered, "{path:?}");
        assert_eq!(r.unit_hops, 64 * 6);
        assert!(r.latency >= 5);
    }
}

/// Output queueing allows only what it models; the error says what to change.
#[test]
fn output_queueing_rejects_other_models() {
    let net = hypercube(3);
    let msgs = [inj(0, 7, 0)];
    for (cfg, needle) in [
        (
            PacketConfig {
                flow: FlowControl::Wormhole,
                ..greedy()
            },
            "store-and-forward",
        ),
        (
            PacketConfig {
                queue: QueueCapacity::Bounded(2),
                ..greedy()
            },
            "unbounded",
        ),
        (
            PacketConfig {
                sink: SinkModel::Queue,
                ..greedy()
            },
            "immediate",
        ),
        (
            PacketConfig {
                scan: ScanPolicy::FarthestFirst,
                ..greedy()
            },
            "FIFO",
        ),
    ] {
        match simulate(&net, &msgs, &cfg, 0) {
            Err(OnlineError::Unsupported { why }) => assert!(why.contains(needle), "{why}"),
            other => panic!("expected Unsupported mentioning {needle}, got {other:?}"),
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    /// Random unicast traffic with releases on the 5-cube under every path policy:
    /// conservation is checked every step, everything is delivered, no packet is faster than
    /// its Hamming distance, same seed gives the same run, and FO with dimension order uses
    /// no randomness at all.
    #[test]
    fn random_traffic_conserves_and_delivers(
        msgs in prop::collection::vec((0u32..32, 0u32..32, 0u64..30), 1..200),
        seed in any::<u64>(),
    ) {
        let net = hypercube(5);
        let inj: Vec<Injection> = msgs.iter().map(|&(s, d, r)| inj(s, d, r)).collect();
        for path in [PathPolicy::DimensionOrder, PathPolicy::Random, PathPolicy::Greedy, PathPolicy::Fixed] {
            let cfg = PacketConfig { path, ..greedy() };
            let r = simulate(&net, &inj, &cfg, seed).unwrap();
            prop_assert_eq!(r.outcome, Outcome::Delivered);
            let lat = r.latencies.clone().unwrap();
            for (m, &(s, d, _)) in msgs.iter().enumerate() {
                let h = u64::from((s ^ d).count_ones());
                prop_assert!(lat[m] + 1 >= h.max(1) || (s == d && lat[m] == 0));
            }
            let hops: u64 = msgs.iter().map(|&(s, d, _)| u64::from((s ^ d).count_ones())).sum();
            prop_assert_eq!(r.unit_hops, hops);
            prop_assert_eq!(&simulate(&net, &inj, &cfg, seed).unwrap(), &r);
        }
        let fo = PacketConfig { scan: ScanPolicy::FixedOrder, ..greedy() };
        prop_assert_eq!(
            simulate(&net, &inj, &fo, seed).unwrap(),
            simulate(&net, &inj, &fo, seed ^ 1).unwrap()
        );
        // The hypercube's standard path is dimension order, fixed at the source: the same
        // run, random numbers included.
        let std = PacketConfig { path: PathPolicy::Standard, ..greedy() };
        prop_assert_eq!(
            simulate(&net, &inj, &std, seed).unwrap(),
            simulate(&net, &inj, &greedy(), seed).unwrap()
        );
    }
}
