//! Multicast along a tree: exact latencies of lone multicasts, conservation under contention,
//! and the tree checks.

use fatnet_online::OnlineError;
use fatnet_online::packet::{
    FlowControl, Injection, Multicast, MulticastTree, Outcome, PacketConfig, PacketNet, PathPolicy,
    QueueCapacity, Queueing, SinkModel, simulate, simulate_multicast,
};
use fatnet_topology::{ButterflyFatTree, Hypercube};
use proptest::prelude::*;

fn bft(n: u64) -> PacketNet {
    PacketNet::new(ButterflyFatTree::new(n).unwrap()).unwrap()
}

fn hypercube(d: u64) -> PacketNet {
    PacketNet::new(Hypercube::new(d).unwrap()).unwrap()
}

fn checked(config: PacketConfig) -> PacketConfig {
    PacketConfig {
        check_conservation: true,
        record_latencies: true,
        ..config
    }
}

/// One multicast along `tree`, released at `release`, alone in the network.
fn lone(
    net: &PacketNet,
    tree: &MulticastTree,
    release: u64,
    config: &PacketConfig,
    seed: u64,
) -> fatnet_online::packet::PacketReport {
    let mc = [Multicast { tree: 0, release }];
    simulate_multicast(net, &[], std::slice::from_ref(tree), &mc, config, seed).unwrap()
}

fn flows() -> [PacketConfig; 3] {
    [
        PacketConfig::worm(),
        PacketConfig::store(),
        PacketConfig::split(),
    ]
}

/// A multicast to one destination is a unicast along the tree's path: same latency, same
/// flit-hops, for every flow control.
#[test]
fn single_destination_multicast_is_a_unicast() {
    let net = bft(64);
    for dst in [1u32, 5, 17, 63] {
        let tree = MulticastTree::shortest_paths(&net, 0, &[dst]).unwrap();
        assert_eq!(tree.height(), net.distance(0, dst));
        for config in flows() {
            let config = checked(config);
            let mc = lone(&net, &tree, 3, &config, 1);
            let uni = simulate(
                &net,
                &[Injection {
                    src: 0,
                    dst,
                    release: 3,
                }],
                &config,
                1,
            )
            .unwrap();
            assert_eq!(mc.outcome, Outcome::Delivered);
            assert_eq!(mc.latency, uni.latency, "dst {dst}, {:?}", config.flow);
            assert_eq!(mc.unit_hops, uni.unit_hops);
            assert_eq!(mc.dilation, uni.dilation);
        }
    }
}

/// A lone broadcast copies without contention: every branch pipelines, so the last tail
/// arrives after `height + L − 2` steps (the unicast count on the tree's longest path), and
/// every tree link carries each flit exactly once.
#[test]
fn lone_wormhole_broadcast_on_the_fat_tree() {
    let net = bft(256);
    let dsts: Vec<u32> = (1..256).collect();
    let tree = MulticastTree::shortest_paths(&net, 0, &dsts).unwrap();
    assert_eq!(tree.height(), 8);
    for flits in [1u32, 2, 7, 32] {
        let config = checked(PacketConfig {
            flits,
            sink: SinkModel::Immediate,
            ..PacketConfig::worm()
        });
        let r = lone(&net, &tree, 0, &config, 9);
        assert_eq!(r.outcome, Outcome::Delivered);
        assert_eq!(r.latency, u64::from(8 + flits - 2), "L = {flits}");
        assert_eq!(r.unit_hops, tree.links().len() as u64 * u64::from(flits));
        assert_eq!(r.dilation, 8);
        assert_eq!(r.congestion, 1);
    }
}

/// A broadcast on the d-cube reaches every other node, absorbing a copy at each node that
/// also forwards, in `d` packet-steps; 2^d − 1 links carry it once each.
#[test]
fn lone_hypercube_broadcast_store_and_forward() {
    for d in 2..=7u64 {
        let net = hypercube(d);
        let n = 1u32 << d;
        for src in [0u32, n - 1, n / 3] {
            let dsts: Vec<u32> = (0..n).filter(|&p| p != src).collect();
            let tree = MulticastTree::shortest_paths(&net, src, &dsts).unwrap();
            assert_eq!(tree.links().len() as u32, n - 1);
            assert_eq!(u64::from(tree.height()), d);
            let config = checked(PacketConfig {
                flow: FlowControl::StoreAndForward,
                flits: 1,
                queue: QueueCapacity::Unbounded,
                sink: SinkModel::Immediate,
                ..PacketConfig::default()
            });
            let r = lone(&net, &tree, 0, &config, 2);
            assert_eq!(r.outcome, Outcome::Delivered);
            // Step k (0-based) carries the packet across the tree's depth-(k + 1) links.
            assert_eq!(r.latency, d - 1, "d = {d}, src = {src}");
            assert_eq!(r.unit_hops, u64::from(n - 1));
        }
    }
}

/// Back-to-back broadcasts from one source pipeline: each root link carries one packet per
/// step, so the k-th of `b` broadcasts finishes `k` steps after the first.
#[test]
fn broadcasts_from_one_source_pipeline() {
    let net = hypercube(5);
    let dsts: Vec<u32> = (1..32).collect();
    let tree = MulticastTree::shortest_paths(&net, 0, &dsts).unwrap();
    let config = checked(PacketConfig {
        flow: FlowControl::StoreAndForward,
        flits: 1,
        queue: QueueCapacity::Unbounded,
        sink: SinkModel::Immediate,
        ..PacketConfig::default()
    });
    let b = 6u64;
    let mcs: Vec<Multicast> = (0..b)
        .map(|_| Multicast {
            tree: 0,
            release: 0,
        })
        .collect();
    let r = simulate_multicast(&net, &[], std::slice::from_ref(&tree), &mcs, &config, 4).unwrap();
    assert_eq!(r.outcome, Outcome::Delivered);
    let lat = r.latencies.unwrap();
    for (k, &l) in lat.iter().enumerate() {
        assert_eq!(l, 4 + k as u64, "broadcast {k}");
    }
}

/// Unicasts and multicasts share a run; the report numbers unicasts first.
#[test]
fn unicasts_and_multicasts_together() {
    let net = bft(64);
    let tree = MulticastTree::shortest_paths(&net, 3, &[10, 20, 30, 40]).unwrap();
    let unicasts = [
        Injection {
            src: 1,
            dst: 2,
            release: 0,
        },
        Injection {
            src: 5,
            dst: 5,
            release: 2,
        },
    ];
    let mcs = [Multicast {
        tree: 0,
        release: 1,
    }];
    for config in flows() {
        let r = simulate_multicast(
            &net,
            &unicasts,
            std::slice::from_ref(&tree),
            &mcs,
            &checked(config),
            5,
        )
        .unwrap();
        assert_eq!(r.outcome, Outcome::Delivered);
        assert_eq!(r.messages, 3);
        let lat = r.latencies.unwrap();
        assert_eq!(lat.len(), 3);
        assert_eq!(lat[1], 0, "a self-message is delivered on release");
        assert!(lat[2] > 0);
    }
}

/// Trees that share their shapes (`MulticastTree::share_shapes`) route exactly as the trees
/// built apart, on both queueing models.
#[test]
fn shared_shapes_route_as_separate_trees() {
    let net = hypercube(4);
    let n = net.processors();
    let separate: Vec<MulticastTree> = (0..n)
        .flat_map(|root| (0..4).map(move |tag| (root, tag)))
        .map(|(root, tag)| MulticastTree::hypercube_rotated(&net, root, tag).unwrap())
        .collect();
    let mut shared = separate.clone();
    MulticastTree::share_shapes(&mut shared);
    let mcs: Vec<Multicast> = (0..3 * separate.len() as u32)
        .map(|i| Multicast {
            tree: (i * 7) % separate.len() as u32,
            release: u64::from(i / 5),
        })
        .collect();
    for queueing in [Queueing::Input, Queueing::Output] {
        // Store-and-forward with unbounded queues: input queues cannot deadlock.
        let config = checked(PacketConfig {
            queueing,
            flow: FlowControl::StoreAndForward,
            queue: QueueCapacity::Unbounded,
            sink: SinkModel::Immediate,
            ..PacketConfig::default()
        });
        let a = simulate_multicast(&net, &[], &separate, &mcs, &config, 5).unwrap();
        let b = simulate_multicast(&net, &[], &shared, &mcs, &config, 5).unwrap();
        assert_eq!(a, b, "{queueing:?}");
        assert_eq!(a.outcome, Outcome::Delivered, "{queueing:?}: {a:?}");
    }
}

/// Every processor broadcasts at once: heavy copying contention. Store-and-forward and split
/// with unbounded queues always deliver; every run keeps conservation (checked each step)
/// and is reproducible from its seed.
#[test]
fn all_to_all_broadcast_conserves_and_delivers() {
    for net in [bft(16), bft(64), hypercube(4)] {
        let n = net.processors();
        let trees: Vec<MulticastTree> = (0..n)
            .map(|s| {
                let dsts: Vec<u32> = (0..n).filter(|&p| p != s).collect();
                MulticastTree::shortest_paths(&net, s, &dsts).unwrap()
            })
            .collect();
        let mcs: Vec<Multicast> = (0..n)
            .map(|s| Multicast {
                tree: s,
                release: u64::from(s % 3),
            })
            .collect();
        for config in flows() {
            for queue in [QueueCapacity::Unbounded, QueueCapacity::Bounded(2)] {
                let config = checked(PacketConfig {
                    queue,
                    flits: 4,
                    ..config
                });
                let r = simulate_multicast(&net, &[], &trees, &mcs, &config, 11).unwrap();
                let again = simulate_multicast(&net, &[], &trees, &mcs, &config, 11).unwrap();
                assert_eq!(r, again, "same seed, same run");
                // A deadlock is detected in the step it happens: no run hits the step limit.
                assert_ne!(r.outcome, Outcome::StepLimit);
                if config.flow != FlowControl::Wormhole && queue == QueueCapacity::Unbounded {
                    assert_eq!(r.outcome, Outcome::Delivered, "{:?}", config.flow);
                }
                if r.outcome == Outcome::Delivered {
                    assert_eq!(r.delivered, u64::from(n));
                    // Every tree link is crossed by every unit of its message.
                    let units = match config.flow {
                        FlowControl::StoreAndForward => 1,
                        _ => 4,
                    };
                    let links: u64 = trees.iter().map(|t| t.links().len() as u64).sum();
                    assert_eq!(r.unit_hops, links * units);
                    // No message beats its tree's height.
                    let lat = r.latencies.unwrap();
                    for (s, l) in lat.iter().enumerate() {
                        let h = u64::from(trees[s].height());
                        let floor = match config.flow {
                            FlowControl::StoreAndForward => (h - 1) * 4,
                            _ => h + 4 - 2,
                        };
                        assert!(*l >= floor, "message {s}: {l} < {floor}");
                    }
                }
            }
        }
    }
}

fn bad_tree(r: Result<MulticastTree, OnlineError>, needle: &str) {
    match r {
        Err(OnlineError::BadTree { why }) => {
            assert!(why.contains(needle), "{why:?} does not mention {needle:?}")
        }
        other => panic!("expected a BadTree error mentioning {needle:?}, got {other:?}"),
    }
}

/// Malformed trees are refused with an error that names the problem.
#[test]
fn malformed_trees_are_refused() {
    let net = hypercube(3);
    let good = MulticastTree::shortest_paths(&net, 0, &[3, 5]).unwrap();
    let links = good.links().to_vec();
    // Rebuilding from its own links (any order) gives the same tree.
    let mut rev = links.clone();
    rev.reverse();
    assert_eq!(MulticastTree::new(&net, 0, &[5, 3], &rev).unwrap(), good);

    bad_tree(MulticastTree::new(&net, 0, &[], &links), "at least one");
    bad_tree(MulticastTree::new(&net, 0, &[3, 3, 5], &links), "twice");
    bad_tree(
        MulticastTree::new(&net, 0, &[0, 3], &links),
        "source itself",
    );
    bad_tree(
        MulticastTree::new(&net, 0, &[3, 5], &[9999]),
        "does not exist",
    );
    bad_tree(
        MulticastTree::new(&net, 0, &[3, 5], &links[..links.len() - 1]),
        "not reached",
    );
    // On the 3-cube the arc along dimension `dim` from `node` is link `dim · 8 + node`.
    let arc = |dim: u32, node: u32| dim * 8 + node;
    // A dead branch: an extra link 0 → 4, which is no destination.
    let mut extra = links.clone();
    if !extra.contains(&arc(2, 0)) {
        extra.push(arc(2, 0));
        bad_tree(
            MulticastTree::new(&net, 0, &[3, 5], &extra),
            "no destination",
        );
    }
    // Two links into node 1: 0 → 1 and 3 → 1.
    let twice = [arc(0, 0), arc(1, 0), arc(0, 2), arc(1, 3)];
    bad_tree(
        MulticastTree::new(&net, 0, &[1, 3], &twice),
        "already enters",
    );
    // A link whose tail the tree never reaches: 6 → 7.
    bad_tree(
        MulticastTree::new(&net, 0, &[7], &[arc(0, 6)]),
        "no tree link reaches",
    );
    // A link back into the source's node: 0 → 1 → 0.
    bad_tree(
        MulticastTree::new(&net, 0, &[1], &[arc(0, 0), arc(0, 1)]),
        "source's own node",
    );
    assert!(matches!(
        MulticastTree::new(&net, 9, &[1], &links),
        Err(OnlineError::BadProcessor { .. })
    ));
    // A tree index out of range, and a tree of another network.
    let config = PacketConfig::store();
    assert!(matches!(
        simulate_multicast(
            &net,
            &[],
            std::slice::from_ref(&good),
            &[Multicast {
                tree: 1,
                release: 0
            }],
            &config,
            0
        ),
        Err(OnlineError::BadParameter { .. })
    ));
    let other = hypercube(4);
    assert!(matches!(
        simulate_multicast(
            &other,
            &[],
            std::slice::from_ref(&good),
            &[Multicast {
                tree: 0,
                release: 0
            }],
            &config,
            0
        ),
        Err(OnlineError::BadParameter { .. })
    ));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Random multicast sets on the fat-tree: conservation holds every step; store-and-forward
    /// delivers every message (no false deadlock), in no less than the tree's height.
    #[test]
    fn random_multicasts_conserve(
        seed in any::<u64>(),
        groups in prop::collection::vec((0u32..64, prop::collection::btree_set(0u32..64, 1..12), 0u64..20), 1..12),
        flits in 1u32..6,
    ) {
        let net = bft(64);
        let mut trees = Vec::new();
        let mut mcs = Vec::new();
        for (src, dsts, release) in groups {
            let dsts: Vec<u32> = dsts.into_iter().filter(|&d| d != src).collect();
            if dsts.is_empty() {
                continue;
            }
            trees.push(MulticastTree::shortest_paths(&net, src, &dsts).unwrap());
            mcs.push(Multicast { tree: trees.len() as u32 - 1, release });
        }
        for (flow, queue) in [
            (FlowControl::StoreAndForward, QueueCapacity::Unbounded),
            (FlowControl::StoreAndForward, QueueCapacity::Bounded(1)),
            (FlowControl::Wormhole, QueueCapacity::Bounded(2)),
            (FlowControl::Split, QueueCapacity::Bounded(1)),
        ] {
            let config = checked(PacketConfig {
                flow,
                queue,
                flits,
                path: PathPolicy::Random,
                ..PacketConfig::default()
            });
            let r = simulate_multicast(&net, &[], &trees, &mcs, &config, seed).unwrap();
            // Store-and-forward on the fat-tree cannot deadlock, even with q = 1: a packet
            // waits only for links later in its up-then-down tree, so the waits are acyclic.
            if flow == FlowControl::StoreAndForward {
                prop_assert_eq!(r.outcome, Outcome::Delivered);
                for (m, &l) in r.latencies.unwrap().iter().enumerate() {
                    let h = u64::from(trees[mcs[m].tree as usize].height());
                    prop_assert!(l >= (h - 1) * u64::from(flits));
                }
            }
        }
    }
}

/// Johnsson and Ho's d arc-disjoint spanning trees (Stamoulis §2.1.4, notes 002b §0): T^(j) is
/// the rotated tree rooted at e_j whose order starts at dimension j + 1. They are pairwise
/// arc-disjoint, leave exactly the d arcs (0, e_i) unused, and never hold an arc together
/// with its reverse; for d = 3 they are the notes' test vector.
#[test]
fn johnsson_ho_trees_are_arc_disjoint() {
    for d in 2..=10u32 {
        let net = hypercube(u64::from(d));
        let mut owner = vec![u32::MAX; net.links() as usize];
        for j in 0..d {
            // 0-based: root e_j = 1 << j, first dimension j + 1 (mod d).
            let tree = MulticastTree::hypercube_rotated(&net, 1 << j, (j + 1) % d).unwrap();
            for &e in tree.links() {
                assert_eq!(owner[e as usize], u32::MAX, "d = {d}: arc {e} in two trees");
                owner[e as usize] = j;
            }
        }
        let unused: Vec<u32> = (0..net.links())
            .filter(|&e| owner[e as usize] == u32::MAX)
            .collect();
        // Arc (0, e_i) is link i·2^d + 0.
        let expected: Vec<u32> = (0..d).map(|i| i << d).collect();
        assert_eq!(unused, expected, "d = {d}");
        // No tree holds an arc and its reverse: arc (x, x ⊕ e_i) reversed is (x ⊕ e_i, x).
        for e in 0..net.links() {
            let (dim, x) = (e >> d, e & ((1 << d) - 1));
            let rev = (dim << d) | (x ^ (1 << dim));
            if owner[e as usize] != u32::MAX {
                assert_ne!(owner[e as usize], owner[rev as usize], "d = {d}, arc {e}");
            }
        }
    }
    // The notes' d = 3 vector for T^(1) (1-based dimensions): root 001, order (2, 3, 1).
    let net = hypercube(3);
    let t1 = MulticastTree::hypercube_rotated(&net, 0b001, 1).unwrap();
    let arc = |from: u32, dim1: u32| ((dim1 - 1) << 3) | from;
    let mut expected = vec![
        arc(0b001, 2),
        arc(0b001, 3),
        arc(0b001, 1),
        arc(0b011, 3),
        arc(0b011, 1),
        arc(0b101, 1),
        arc(0b111, 1),
    ];
    expected.sort_unstable();
    let mut got = t1.links().to_vec();
    got.sort_unstable();
    assert_eq!(got, expected);
}

/// `g_{m,i}` (Stamoulis (6.10), App. 6.A; notes 002b §3.6) by exhaustive enumeration over the
/// efficient direct scheme's own trees (`hypercube_rotated`, tag = first dimension): with the
/// origin y and the tag j uniform, the fraction of the trees containing the arc
/// `(x ⊕ e_m, x)` that also contain `(x, x ⊕ e_i)` equals the closed form
/// `fatnet_queueing::stamoulis::broadcast::g` exactly (as a ratio of integers), for every
/// node x and every m, i, d = 2..7. Also the intermediate fact of App. 6.A: exactly
/// `2^((m − j) mod d)` origins send a j-packet over `(x ⊕ e_m, x)`, `2^d − 1` in all.
#[test]
fn g_by_enumeration_over_the_direct_schemes_trees() {
    use fatnet_queueing::stamoulis::broadcast::g;
    for d in 2..=7u32 {
        let net = hypercube(u64::from(d));
        let (n, du) = (1u32 << d, d as usize);
        // Link (i << d) | x is the arc from x along dimension i (0-based).
        let arc = |x: u32, i: u32| ((i << d) | x) as usize;
        let idx = |x: u32, m: u32| x as usize * du + m as usize;
        let mut enter = vec![0u64; n as usize * du];
        let mut by_tag = vec![0u64; n as usize * du * du];
        let mut both = vec![0u64; n as usize * du * du];
        let mut has = vec![false; net.links() as usize];
        for y in 0..n {
            for j in 0..d {
                let tree = MulticastTree::hypercube_rotated(&net, y, j).unwrap();
                has.fill(false);
                for &e in tree.links() {
                    has[e as usize] = true;
                }
                for x in 0..n {
                    for m in 0..d {
                        if !has[arc(x ^ (1 << m), m)] {
                            continue;
                        }
                        enter[idx(x, m)] += 1;
                        by_tag[idx(x, m) * du + j as usize] += 1;
                        for i in (0..d).filter(|&i| has[arc(x, i)]) {
                            both[idx(x, m) * du + i as usize] += 1;
                        }
                    }
                }
            }
        }
        let others = u64::from(n - 1);
        for x in 0..n {
            for m in 0..d {
                assert_eq!(enter[idx(x, m)], others, "d {d} x {x} m {m}");
                for j in 0..d {
                    let k = (m + d - j) % d;
                    assert_eq!(by_tag[idx(x, m) * du + j as usize], 1 << k);
                }
                for i in 0..d {
                    let count = both[idx(x, m) * du + i as usize];
                    let k = (m + d - i) % d;
                    // count / (2^d − 1) = (2^k − 1)/(2^d − 1), exactly.
                    assert_eq!(count, (1u64 << k) - 1, "d {d} x {x} m {m} i {i}");
                    let formula = g(d, m + 1, i + 1).unwrap();
                    assert!(
                        (count as f64 / others as f64 - formula).abs() < 1e-15,
                        "d {d} m {m} i {i}"
                    );
                }
            }
        }
    }
}
