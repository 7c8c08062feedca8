//! Stamoulis' indirect broadcast scheme (Rules A–E) against Proposition 7.4 and 7.3.

use fatnet_online::OnlineError;
use fatnet_online::RunProtocol;
use fatnet_online::indirect_broadcast::{IndirectConfig, simulate_indirect};

/// Prop. 7.4: T = 3d + 1 + 3ρ / (2[(2/3)(1 − 2^−d) − ρ]) (written here, not imported, so
/// the simulator is checked against the thesis' formula independently).
fn prop_7_4(d: u32, rho: f64) -> f64 {
    let limit = 2.0 / 3.0 * (1.0 - 0.5f64.powi(d as i32));
    3.0 * f64::from(d) + 1.0 + 3.0 * rho / (2.0 * (limit - rho))
}

fn config(d: u32, rho: f64, horizon: u64, seed: u64) -> IndirectConfig {
    IndirectConfig {
        d,
        rho,
        protocol: RunProtocol::slots(horizon / 20, horizon, 20),
        seed,
    }
}

/// The mean delay matches Prop. 7.4 within 4 batch-means standard errors, d = 3..6, at loads
/// up to 0.75 of the stability limit (the notes' Monte Carlo table: 11.584 vs 11.588 at d = 3,
/// ρ = 0.3).
#[test]
fn mean_delay_matches_proposition_7_4() {
    for (d, rho) in [
        (3u32, 0.3),
        (4, 0.3),
        (5, 0.1),
        (5, 0.3),
        (6, 0.3),
        (6, 0.45),
    ] {
        let r = simulate_indirect(&config(d, rho, 120_000, u64::from(d))).unwrap();
        let (_, se) = batch_stats(&r.batch_means);
        let want = prop_7_4(d, rho);
        assert!(
            (r.delay_mean - want).abs() <= 4.0 * se + 0.002 * want,
            "d = {d}, ρ = {rho}: simulated {:.3} ± {:.3}, Prop. 7.4 {want:.3}",
            r.delay_mean,
            se
        );
        assert!(r.measured > 1000);
    }
}

/// Mean and standard error of the batch means.
fn batch_stats(b: &[f64]) -> (f64, f64) {
    let mean = b.iter().sum::<f64>() / b.len() as f64;
    let var = b.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (b.len() - 1) as f64;
    (mean, (var / b.len() as f64).sqrt())
}

/// Light traffic: T → 3d + 1 (root-bound path, the root buffer's frame, the broadcast); at
/// ρ = 0.005 the first-order term (9/4)ρ adds about 0.01.
#[test]
fn light_traffic_limit() {
    for d in [3u32, 5, 8] {
        let r = simulate_indirect(&config(d, 0.005, 1_000_000, 9)).unwrap();
        let (mean, se) = batch_stats(&r.batch_means);
        let limit = 3.0 * f64::from(d) + 1.0;
        assert!(
            (mean - limit).abs() <= 4.0 * se + 0.02,
            "d = {d}: {mean} ± {se} vs {limit} ({} packets)",
            r.measured
        );
        assert!(se < 0.2, "d = {d}: too few packets ({})", r.measured);
    }
}

/// Prop. 7.3: stable iff ρ < (2/3)(1 − 2^−d). Just below, the backlog stays small; just above,
/// it grows with the horizon (measured: the backlog when generation stops doubles when the
/// horizon doubles).
#[test]
fn stability_limit_of_proposition_7_3() {
    let d = 4;
    let limit = 2.0 / 3.0 * (1.0 - 0.5f64.powi(d));
    let below = |h| simulate_indirect(&config(d as u32, 0.9 * limit, h, 3)).unwrap();
    let above = |h| simulate_indirect(&config(d as u32, 1.15 * limit, h, 3)).unwrap();
    let (b1, b2) = (below(20_000), below(40_000));
    assert!(b2.waiting_at_horizon < 200, "{b1:?} {b2:?}");
    let (a1, a2) = (above(20_000), above(40_000));
    assert!(a1.waiting_at_horizon > 300, "{a1:?}");
    assert!(
        a2.waiting_at_horizon as f64 > 1.6 * a1.waiting_at_horizon as f64,
        "{} then {}",
        a1.waiting_at_horizon,
        a2.waiting_at_horizon
    );
}

#[test]
fn same_seed_same_run_and_bad_input() {
    let c = config(4, 0.3, 5_000, 1);
    assert_eq!(
        simulate_indirect(&c).unwrap(),
        simulate_indirect(&c).unwrap()
    );
    for bad in [
        IndirectConfig { d: 1, ..c },
        IndirectConfig { rho: 0.0, ..c },
        IndirectConfig { rho: f64::NAN, ..c },
        IndirectConfig {
            protocol: RunProtocol::slots(5_000, 5_000, 20),
            ..c
        },
        IndirectConfig {
            protocol: RunProtocol::slots(250, 5_000, 0),
            ..c
        },
    ] {
        assert!(matches!(
            simulate_indirect(&bad),
            Err(OnlineError::BadParameter { .. })
        ));
    }
}

/// Prop. 7.5: the simulated mean queue size (the thesis' storage convention) agrees with the
/// notes' corrected formula and not with the printed one, whose main term is three times too
/// large (notes 002b §3.12; their simulation: d = 5, ρ = 0.3 gives Q = 1.636).
#[test]
fn queue_size_matches_the_corrected_proposition_7_5() {
    use fatnet_queueing::stamoulis::broadcast::{prop_7_5_corrected, prop_7_5_printed};
    use fatnet_queueing::stats::batch_means_half_width;
    for (d, rho) in [(3, 0.3), (5, 0.3), (5, 0.5)] {
        let r = simulate_indirect(&config(d, rho, 200_000, 4)).unwrap();
        let scale = f64::from(d) / f64::from(1u32 << d);
        let half = batch_means_half_width(&r.stored_batch_means, 0.99) * scale;
        let corrected = prop_7_5_corrected(d, rho).unwrap();
        let printed = prop_7_5_printed(d, rho).unwrap();
        assert!(
            (r.queue_size - corrected).abs() <= half + 0.005 * corrected,
            "d = {d}, ρ = {rho}: Q = {} ± {half}, corrected {corrected}",
            r.queue_size
        );
        assert!(
            (r.queue_size - printed).abs() > 10.0 * half,
            "printed {printed}"
        );
        assert!((r.stored_mean * scale - r.queue_size).abs() < 1e-12);
    }
}

/// The non-idling indirect scheme (undirected Johnsson–Ho trees flooded from the origin):
/// every tree reaches every node once, the eccentricities sum to (3d − 1)·2^(d−1) (Appendix
/// 7.B), and the light-traffic delay is 3d/2.
#[test]
fn nonidling_indirect_scheme() {
    use fatnet_online::direct_broadcast::{DirectConfig, DirectScheme, TreeFamily};
    for d in 2..=8u32 {
        let s = DirectScheme::with_trees(d, TreeFamily::JohnssonHoFlood).unwrap();
        for j in 0..d {
            let total: u64 = (0..1u32 << d)
                .map(|x| {
                    let t = s.tree(x, j).unwrap();
                    assert_eq!(t.links().len(), (1usize << d) - 1);
                    assert_eq!(t.dsts().len(), (1usize << d) - 1);
                    u64::from(t.height())
                })
                .sum();
            assert_eq!(total, u64::from(3 * d - 1) << (d - 1), "d = {d}, tree {j}");
        }
    }
    // Light traffic: T → 3d/2 (mean eccentricity (3d − 1)/2 plus the synchronisation 1/2).
    let d = 6;
    let s = DirectScheme::with_trees(d, TreeFamily::JohnssonHoFlood).unwrap();
    let r = s
        .simulate(&DirectConfig {
            rho: 0.002,
            protocol: fatnet_online::RunProtocol::slots(1_000, 200_000, 10),
            seed: 3,
        })
        .unwrap();
    assert!(r.measured > 1_000);
    assert!((r.delay_mean - 9.0).abs() < 0.1, "T = {}", r.delay_mean);
    assert!(DirectScheme::with_trees(1, TreeFamily::JohnssonHoFlood).is_err());
}

/// The indirect simulator's own Johnsson–Ho trees (`johnsson_ho_parents`) against the packet
/// engine's construction of the same trees (`MulticastTree::hypercube_rotated` rooted at
/// `2^j` with first dimension `j + 1`, as the arc-disjointness test builds them): for every
/// d = 2..10 and every tree, the same parent of every node, and only the root has none.
#[test]
fn johnsson_ho_trees_agree_with_the_multicast_trees() {
    use fatnet_online::indirect_broadcast::johnsson_ho_parents;
    use fatnet_online::packet::{MulticastTree, PacketNet};
    use fatnet_topology::Hypercube;
    for d in 2..=10u32 {
        let net = PacketNet::new(Hypercube::new(u64::from(d)).unwrap()).unwrap();
        let n = 1u32 << d;
        for j in 0..d {
            let ours = johnsson_ho_parents(d, j).unwrap();
            let tree = MulticastTree::hypercube_rotated(&net, 1 << j, (j + 1) % d).unwrap();
            let mut theirs = vec![None; n as usize];
            for &e in tree.links() {
                let (tail, head) = (net.link_tail(e), net.link_head(e));
                assert_eq!(
                    theirs[head as usize], None,
                    "d {d} tree {j}: node {head} twice"
                );
                theirs[head as usize] = Some(tail);
            }
            assert_eq!(ours, theirs, "d {d} tree {j}");
            let roots: Vec<u32> = (0..n).filter(|&x| ours[x as usize].is_none()).collect();
            assert_eq!(roots, vec![1 << j], "d {d} tree {j}");
        }
    }
    assert!(johnsson_ho_parents(1, 0).is_err());
    assert!(johnsson_ho_parents(4, 4).is_err());
}

/// Figure 7.8's measurement: all d trees side by side, every node's storage. Tree T^(1) of
/// that run is exactly `simulate_indirect`'s run; the node-by-node time averages add up to
/// the trees' totals (two bookkeepings: per node through the relays' depth occupancy, per
/// tree through the packets' storage intervals); M is the largest per-node maximum and no
/// node's maximum is below its own time average.
#[test]
fn node_storage_adds_up_and_m_bounds_it() {
    use fatnet_online::indirect_broadcast::simulate_indirect_nodes;
    for (d, rho) in [(3u32, 0.3), (5, 0.3), (6, 0.5)] {
        let c = config(d, rho, 30_000, 11);
        let r = simulate_indirect_nodes(&c).unwrap();
        let one = simulate_indirect(&c).unwrap();
        assert_eq!(r.tree_stored_means.len(), d as usize);
        assert_eq!(r.tree_stored_means[0], one.stored_mean, "d = {d}");
        assert!(r.packets > one.packets);
        let n = f64::from(1u32 << d);
        let by_tree = r.tree_stored_means.iter().sum::<f64>() / n;
        let by_batch = r.queue_batch_means.iter().sum::<f64>() / r.queue_batch_means.len() as f64;
        assert!((r.queue_size - by_tree).abs() < 1e-9 * by_tree, "{r:?}");
        assert!((r.queue_size - by_batch).abs() < 1e-9 * by_batch);
        assert_eq!(r.node_means.len(), 1 << d);
        assert_eq!(r.max_queue, *r.node_max.iter().max().unwrap());
        assert_eq!(r.node_max[r.max_node as usize], r.max_queue);
        for (x, (&m, &mean)) in r.node_max.iter().zip(&r.node_means).enumerate() {
            assert!(m as f64 >= mean, "node {x}: max {m} below its mean {mean}");
        }
        // Every tree is an independent copy: each tree's share is Q·2^d/d within 15%.
        for (j, &t) in r.tree_stored_means.iter().enumerate() {
            assert!(
                (t - by_tree * n / f64::from(d)).abs() < 0.15 * t,
                "tree {j}: {r:?}"
            );
        }
        assert!(r.max_queue as f64 > 2.0 * r.queue_size, "{r:?}");
    }
}

/// Q of all d trees agrees with the corrected Prop. 7.5 (as Q of one tree does), within the
/// 99% batch-means interval plus 0.5%.
#[test]
fn node_storage_q_matches_the_corrected_proposition_7_5() {
    use fatnet_online::indirect_broadcast::simulate_indirect_nodes;
    use fatnet_queueing::stamoulis::broadcast::prop_7_5_corrected;
    use fatnet_queueing::stats::batch_means_half_width;
    for (d, rho) in [(4u32, 0.3), (5, 0.5)] {
        let r = simulate_indirect_nodes(&config(d, rho, 100_000, 6)).unwrap();
        let half = batch_means_half_width(&r.queue_batch_means, 0.99);
        let corrected = prop_7_5_corrected(d, rho).unwrap();
        assert!(
            (r.queue_size - corrected).abs() <= half + 0.005 * corrected,
            "d = {d}, ρ = {rho}: Q = {} ± {half}, corrected {corrected}",
            r.queue_size
        );
    }
}

/// Node 0 is a leaf of every tree and no tree's root, so it stores only its own packets, from
/// generation to the end of the C_0 slot in which they leave it: in light traffic 1.5 slots
/// to the next C_0 slot plus that slot, 2.5 slots, at rate λ = ρd/(2^d − 1) (Little). The
/// root e_1 and the node 1…1, a relay in every tree, store far more.
#[test]
fn node_zero_stores_only_its_own_packets() {
    use fatnet_online::indirect_broadcast::simulate_indirect_nodes;
    let (d, rho) = (4u32, 0.05);
    let r = simulate_indirect_nodes(&config(d, rho, 300_000, 8)).unwrap();
    let lambda = rho * f64::from(d) / 15.0;
    let want = 2.5 * lambda;
    assert!(
        (r.node_means[0] - want).abs() < 0.08 * want,
        "node 0: {} vs {want}",
        r.node_means[0]
    );
    assert!(r.node_means[1] > 3.0 * r.node_means[0]);
    assert!(r.node_means[15] > 3.0 * r.node_means[0]);
}

#[test]
fn node_storage_same_seed_same_run_and_bad_input() {
    use fatnet_online::indirect_broadcast::simulate_indirect_nodes;
    let c = config(4, 0.3, 5_000, 1);
    let a = simulate_indirect_nodes(&c).unwrap();
    assert_eq!(a, simulate_indirect_nodes(&c).unwrap());
    assert_ne!(
        a,
        simulate_indirect_nodes(&IndirectConfig { seed: 2, ..c }).unwrap()
    );
    for bad in [
        IndirectConfig { d: 21, ..c },
        IndirectConfig { rho: -1.0, ..c },
        IndirectConfig {
            protocol: RunProtocol::slots(6_000, 6_000, 20),
            ..c
        },
        IndirectConfig {
            protocol: RunProtocol::slots(300, 6_000, 0),
            ..c
        },
        config(12, 0.3, 1_000_000, 1),
    ] {
        assert!(matches!(
            simulate_indirect_nodes(&bad),
            Err(OnlineError::BadParameter { .. })
        ));
    }
}
