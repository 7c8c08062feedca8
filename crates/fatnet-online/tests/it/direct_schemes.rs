//! Stamoulis' direct multiple-broadcast schemes (thesis chapter 6): one tree per node, the
//! periodic scheme P1 and its non-idling version with label priority, and the stability of
//! the efficient direct scheme.
//!
//! Stability is judged on the backlog (unfinished broadcasts, time-averaged over 20 windows):
//! above a limit some arcs receive `r > 1` copies per slot, so their queues grow by at least
//! `r − 1` per slot, each queued copy an unfinished broadcast; dividing by the most copies
//! one broadcast can queue on those arcs gives a lower bound on the backlog's growth rate,
//! which the measured trend must reach (to a 0.75 factor for the transient). Below the limit
//! the trend over the measured window must move the backlog by less than a tenth of its mean.

use fatnet_online::RunProtocol;
use fatnet_online::direct_broadcast::{DirectConfig, DirectReport, DirectScheme, TreeFamily};
use fatnet_online::packet::{
    FlowControl, Multicast, MulticastTree, PacketConfig, PacketNet, QueueCapacity, Queueing,
    ScanPolicy, SinkModel, simulate_multicast_labelled,
};
use fatnet_online::periodic_broadcast::{PeriodicDiscipline, PeriodicScheme};
use fatnet_online::{OnlineError, OnlineParameter};
use fatnet_queueing::stamoulis::broadcast::simple_scheme_limits;
use fatnet_queueing::stats::batch_means_half_width;
use fatnet_topology::Hypercube;

fn cfg(rho: f64, horizon: u64, seed: u64) -> DirectConfig {
    DirectConfig {
        rho,
        protocol: RunProtocol::slots(horizon / 10, horizon, 20),
        seed,
    }
}

fn lambda(d: u32, rho: f64) -> f64 {
    rho * f64::from(d) / f64::from((1u32 << d) - 1)
}

/// The backlog stays level: its trend over the measured window is below a tenth of its mean.
fn assert_bounded(r: &DirectReport, c: &DirectConfig, what: &str) {
    let mean = r.backlog.iter().sum::<f64>() / r.backlog.len() as f64;
    let drift = r.backlog_trend.abs() * (c.protocol.horizon - c.protocol.warmup);
    assert!(
        drift < 0.1 * mean,
        "{what}: backlog {mean:.2}, drift {drift:.3} (trend {:.2e})",
        r.backlog_trend
    );
}

/// The backlog grows at least at 0.75 times the lower bound `rate` (broadcasts per slot).
fn assert_grows(r: &DirectReport, rate: f64, what: &str) {
    assert!(rate > 0.0);
    assert!(
        r.backlog_trend > 0.75 * rate,
        "{what}: trend {} below the bound {rate}",
        r.backlog_trend
    );
}

/// §6.3.1: the arcs of dimension d carry λ·2^(d−1) packets per slot, so one tree per node is
/// stable only below (2/d)(1 − 2^−d); above, the 2^d arcs of dimension d grow by r − 1 each
/// and a broadcast has 2^(d−1) copies on them: the backlog grows by ≥ 2(r − 1) per slot.
#[test]
fn one_tree_per_node_is_stable_only_below_its_limit() {
    let d = 5;
    let s = DirectScheme::with_trees(d, TreeFamily::Canonical).unwrap();
    let limit = simple_scheme_limits(d).unwrap().one_tree;
    assert!((limit - 0.3875).abs() < 1e-12);
    let below = cfg(0.8 * limit, 20_000, 1);
    let r = s.simulate(&below).unwrap();
    assert_bounded(&r, &below, "one tree, 0.8 of the limit");
    assert!(r.delay_mean > f64::from(d) && r.delay_mean < 20.0);
    let rho = 1.2 * limit;
    let r = s.simulate(&cfg(rho, 10_000, 1)).unwrap();
    let arc = lambda(d, rho) * f64::from(1u32 << (d - 1));
    assert!((arc - 1.2).abs() < 1e-12);
    assert_grows(&r, 2.0 * (arc - 1.0), "one tree, 1.2 times the limit");
    // Every packet has the same tree: tag 0, the dimension order (1, …, d).
    assert_eq!(s.tree(3, 0).unwrap().height(), d);
    assert!(s.tree(3, 1).is_none());
}

/// §3.1 of the notes: the efficient direct scheme at d = 5 is stable at ρ = 0.9 and not at
/// ρ > 1, where every arc grows by ρ − 1 and a broadcast has 2^d − 1 copies.
#[test]
fn efficient_direct_scheme_is_stable_below_one() {
    let d = 5;
    let s = DirectScheme::new(d).unwrap();
    let below = cfg(0.9, 20_000, 2);
    let r = s.simulate(&below).unwrap();
    assert_bounded(&r, &below, "direct, rho = 0.9");
    let rho = 1.1;
    let r = s.simulate(&cfg(rho, 10_000, 2)).unwrap();
    let rate = f64::from(d << d) * (rho - 1.0) / f64::from((1u32 << d) - 1);
    assert_grows(&r, rate, "direct, rho = 1.1");
}

/// Our multinode broadcast: P = ⌈(2^d − 1)/d⌉ slots, every node reached once, slots
/// increasing along the tree, at most P nodes per dimension (P on some): every arc carries
/// at most λP per slot, the limit (6.7).
#[test]
fn multinode_trees_balance_the_dimensions() {
    for d in 2..=8u32 {
        let s = scheme(d).unwrap();
        let n = 1u32 << d;
        let p = (n - 1).div_ceil(d);
        assert_eq!((s.period(), s.completion()), (p, p), "d = {d}");
        assert!((s.stability_limit() - simple_scheme_limits(d).unwrap().periodic_p1).abs() < 1e-12);
        let mut per_dim = vec![0u32; d as usize];
        for v in 1..n {
            let (slot, i) = (s.slot(v).unwrap(), s.dimension(v).unwrap());
            per_dim[i as usize] += 1;
            let parent = v ^ (1 << i);
            assert!(
                parent == 0 || s.slot(parent).unwrap() < slot,
                "d = {d}, v = {v}"
            );
        }
        assert_eq!(per_dim.iter().max(), Some(&p), "d = {d}: {per_dim:?}");
        assert_eq!(s.slot(0), None);
        // Node y's tree is node 0's translated by y.
        let y = n - 2;
        let tree = s.tree(y).unwrap();
        assert_eq!(tree.links().len(), n as usize - 1);
        for v in 1..n {
            let i = s.dimension(v).unwrap();
            let link = (i << d) | (y ^ v ^ (1 << i));
            assert_eq!(tree.rank(link), Some(s.slot(v).unwrap() as u16));
        }
    }
    for d in [0, 1, 13] {
        assert!(matches!(
            scheme(d),
            Err(OnlineError::BadParameter {
                param: OnlineParameter::D,
                ..
            })
        ));
    }
}

/// §6.3.2: under P1 every node is an M/D/1 queue with synchronisation Δ = P (2.6), and the
/// broadcast ends with its period: T = P[3/2 + λP/(2(1 − λP))]. Each simulated mean lies within
/// its 99 % batch-means interval of the formula.
#[test]
fn p1_delay_is_the_synchronised_md1_queue() {
    for d in 3..=6u32 {
        let s = scheme(d).unwrap();
        for f in [0.3, 0.6, 0.8] {
            let rho = f * s.stability_limit();
            let r = s
                .simulate(&cfg(rho, 40_000, 3), PeriodicDiscipline::Periodic)
                .unwrap();
            let h = batch_means_half_width(&r.batch_means, 0.99);
            let p = f64::from(s.period());
            let a = lambda(d, rho) * p;
            let formula = p * (1.5 + a / (2.0 * (1.0 - a)));
            assert!((s.p1_delay(rho).unwrap() - formula).abs() < 1e-9);
            assert!(
                (r.delay_mean - formula).abs() < h,
                "d = {d}, rho = {rho:.3}: T = {:.3} ± {h:.3}, (2.6) {formula:.3}",
                r.delay_mean
            );
        }
        assert_eq!(s.p1_delay(s.stability_limit()), None);
    }
}

/// (6.7) is necessary and sufficient for P1 and for its labelled non-idling version: above,
/// the 2^d arcs of a dimension with P trees receive r = λP > 1 per slot and a broadcast has P
/// copies on them (for P1, each node's queue grows by λ − 1/P): growth ≥ 2^d (r − 1)/P.
#[test]
fn periodic_schemes_are_stable_iff_6_7() {
    let d = 5;
    let s = scheme(d).unwrap();
    assert!((s.stability_limit() - 31.0 / 35.0).abs() < 1e-12);
    for discipline in [
        PeriodicDiscipline::Periodic,
        PeriodicDiscipline::LabelPriority,
    ] {
        let below = cfg(0.8 * s.stability_limit(), 20_000, 4);
        let r = s.simulate(&below, discipline).unwrap();
        assert_bounded(&r, &below, &format!("{discipline:?} at 0.8 of (6.7)"));
        let rho = 1.15 * s.stability_limit();
        let r = s.simulate(&cfg(rho, 3_000, 4), discipline).unwrap();
        let p = f64::from(s.period());
        let rate = f64::from(1u32 << d) * (lambda(d, rho) * p - 1.0) / p;
        assert_grows(&r, rate, &format!("{discipline:?} at 1.15 times (6.7)"));
    }
}

/// §6.3.3: the labels keep P1's transmission order, so every packet completes no later than
/// under P1 (same births, compared packet by packet), and the mean delay is below (2.6).
#[test]
fn label_priority_is_never_later_than_p1() {
    for (d, f) in [(4u32, 0.5), (4, 0.9), (5, 0.7)] {
        let s = scheme(d).unwrap();
        let c = cfg(f * s.stability_limit(), 4_000, 5);
        let p1 = s
            .completion_times(&c, PeriodicDiscipline::Periodic)
            .unwrap();
        let ni = s
            .completion_times(&c, PeriodicDiscipline::LabelPriority)
            .unwrap();
        assert_eq!(p1.len(), ni.len());
        assert!(p1.len() > 1000);
        let mut earlier = 0;
        for (a, b) in p1.iter().zip(&ni) {
            assert_eq!(a.0, b.0);
            assert!(
                b.1 <= a.1,
                "d = {d}: born {}, P1 {} vs labelled {}",
                a.0,
                a.1,
                b.1
            );
            earlier += usize::from(b.1 < a.1);
        }
        assert!(earlier > p1.len() / 2, "d = {d}: {earlier} of {}", p1.len());
    }
}

/// In light traffic a labelled packet crosses its tree uncontended: T → height + 1/2 (the
/// synchronisation time); the mean delay stays below P1's (2.6).
#[test]
fn label_priority_light_traffic() {
    for d in [4u32, 6] {
        let s = scheme(d).unwrap();
        let height = f64::from(s.tree(0).unwrap().height());
        assert!(height >= f64::from(d) && height <= f64::from(s.period()));
        let r = s
            .simulate(&cfg(0.002, 100_000, 6), PeriodicDiscipline::LabelPriority)
            .unwrap();
        assert!(r.measured > 200);
        assert!(
            (r.delay_mean - height - 0.5).abs() < 0.05,
            "d = {d}: T = {}, height {height}",
            r.delay_mean
        );
        let rho = 0.6 * s.stability_limit();
        let r = s
            .simulate(&cfg(rho, 20_000, 6), PeriodicDiscipline::LabelPriority)
            .unwrap();
        assert!(r.delay_mean < s.p1_delay(rho).unwrap());
        assert!(r.delay_mean >= height);
    }
}

#[test]
fn same_seed_same_result() {
    let direct = DirectScheme::with_trees(4, TreeFamily::Canonical).unwrap();
    let c = cfg(0.2, 3_000, 7);
    let r = direct.simulate(&c).unwrap();
    assert_eq!(r, direct.simulate(&c).unwrap());
    assert_ne!(r, direct.simulate(&cfg(0.2, 3_000, 8)).unwrap());
    let s = scheme(4).unwrap();
    for discipline in [
        PeriodicDiscipline::Periodic,
        PeriodicDiscipline::LabelPriority,
    ] {
        let a = s.simulate(&c, discipline).unwrap();
        let b = s.simulate(&c, discipline).unwrap();
        // NaN (P1's mean_queued) is not equal to itself: compare the rest.
        assert_eq!(a.batch_means, b.batch_means);
        assert_eq!(a.backlog, b.backlog);
        assert_eq!(a.packet_hops, b.packet_hops);
        let other = s.simulate(&cfg(0.2, 3_000, 8), discipline).unwrap();
        assert_ne!(a.batch_means, other.batch_means);
    }
}

#[test]
fn bad_runs_are_typed_errors() {
    let s = scheme(3).unwrap();
    for (c, param) in [
        (cfg(0.0, 100, 1), OnlineParameter::Rho),
        (cfg(f64::NAN, 100, 1), OnlineParameter::Rho),
        (
            DirectConfig {
                protocol: RunProtocol::slots(100, 100, 20),
                ..cfg(0.1, 100, 1)
            },
            OnlineParameter::Warmup,
        ),
        (
            DirectConfig {
                protocol: RunProtocol::slots(10, 100, 0),
                ..cfg(0.1, 100, 1)
            },
            OnlineParameter::Batches,
        ),
    ] {
        for discipline in [
            PeriodicDiscipline::Periodic,
            PeriodicDiscipline::LabelPriority,
        ] {
            assert!(matches!(
                s.simulate(&c, discipline),
                Err(OnlineError::BadParameter { param: p, .. }) if p == param
            ));
        }
    }
}

fn labelled_engine() -> PacketConfig {
    PacketConfig {
        queueing: Queueing::Output,
        flow: FlowControl::StoreAndForward,
        scan: ScanPolicy::Labelled,
        flits: 1,
        queue: QueueCapacity::Unbounded,
        sink: SinkModel::Immediate,
        record_latencies: true,
        ..PacketConfig::default()
    }
}

/// The labelled scan sends the smallest (label, rank) first, whatever the arrival order.
#[test]
fn labelled_queues_send_the_smallest_label_first() {
    let net = PacketNet::new(Hypercube::new(2).unwrap()).unwrap();
    // Node 0's tree along dimension order (1, 2), links ranked 7 except the first.
    let tree = MulticastTree::hypercube_rotated(&net, 0, 0).unwrap();
    let first = tree.links()[0];
    let tree = tree.with_ranks(|e| if e == first { 1 } else { 7 });
    assert_eq!(tree.rank(first), Some(1));
    let trees = [tree];
    let mcs: Vec<Multicast> = (0..4)
        .map(|_| Multicast {
            tree: 0,
            release: 0,
        })
        .collect();
    let labels = [5, 1, 3, 2];
    let r =
        simulate_multicast_labelled(&net, &trees, &mcs, &labels, &labelled_engine(), 1).unwrap();
    let lat = r.latencies.unwrap();
    // Uncontended a broadcast takes 2 steps (latency 1); each arc sends one per step, so
    // the labels 1, 2, 3, 5 finish in steps 1, 2, 3, 4.
    assert_eq!(lat, vec![4, 1, 3, 2]);
    assert!(matches!(
        simulate_multicast_labelled(&net, &trees, &mcs, &labels[..3], &labelled_engine(), 1),
        Err(OnlineError::BadParameter {
            param: OnlineParameter::Labels,
            ..
        })
    ));
    let input = PacketConfig {
        queueing: Queueing::Input,
        ..labelled_engine()
    };
    assert!(matches!(
        input.validate(),
        Err(OnlineError::Unsupported { .. })
    ));
}

/// The non-leaf nodes of a tree (the distinct tails of its links, the root included).
fn forwarding_nodes(net: &PacketNet, tree: &MulticastTree) -> f64 {
    let mut tails: Vec<u32> = tree.links().iter().map(|&e| net.link_tail(e)).collect();
    tails.sort_unstable();
    tails.dedup();
    tails.len() as f64
}

/// Little's law for the queue size `Q` in light traffic: with almost no contention a packet
/// waits 1/2 slot on average at its origin before its first slot and is then stored for
/// exactly one slot at each of the `I` non-leaf nodes of its tree, so `Q·2^d = λ·2^d·(I + 1/2)`
/// (per node `Q = λ(I + 1/2)`). `I` is counted here from the trees themselves: `2^(d−1)` for
/// the binomial trees of the direct scheme, more for our multinode-broadcast trees.
#[test]
fn queue_size_obeys_littles_law_in_light_traffic() {
    let rho = 0.01;
    for d in [4u32, 6] {
        let net = PacketNet::new(Hypercube::new(u64::from(d)).unwrap()).unwrap();
        let direct = DirectScheme::new(d).unwrap();
        let i_direct = forwarding_nodes(&net, direct.tree(3, 1).unwrap());
        assert_eq!(i_direct, f64::from(1u32 << (d - 1)));
        let periodic = scheme(d).unwrap();
        let i_periodic = forwarding_nodes(&net, periodic.tree(3).unwrap());
        let c = cfg(rho, 400_000, 11);
        let runs = [
            ("direct", direct.simulate(&c).unwrap(), i_direct),
            (
                "label priority",
                periodic
                    .simulate(&c, PeriodicDiscipline::LabelPriority)
                    .unwrap(),
                i_periodic,
            ),
        ];
        for (name, r, i) in runs {
            let little = lambda(d, rho) * (i + 0.5);
            let half = batch_means_half_width(&r.queue_size_batches, 0.99);
            // Contention only adds storage; at ρ = 0.01 it adds well under 1%.
            assert!(
                r.queue_size > little - half && r.queue_size < 1.01 * little + half,
                "{name}, d = {d}: Q = {} ± {half}, λ(I + 1/2) = {little}",
                r.queue_size
            );
        }
    }
}

/// Pathwise: an unfinished broadcast is stored at some node at every moment (a copy that has
/// not arrived waits at, or is being sent by, a node that stores the packet), so in every
/// window the stored packets `Q·2^d` are at least the backlog, and at most the backlog times
/// the forwarding nodes of a tree. Heavy load, so that queues are long.
#[test]
fn queue_size_is_between_backlog_bounds() {
    let d = 6u32;
    let net = PacketNet::new(Hypercube::new(u64::from(d)).unwrap()).unwrap();
    let c = cfg(0.8, 6_000, 12);
    for family in [
        TreeFamily::Rotated,
        TreeFamily::Canonical,
        TreeFamily::JohnssonHoFlood,
    ] {
        let scheme = DirectScheme::with_trees(d, family).unwrap();
        let rho = if family == TreeFamily::Canonical {
            0.25
        } else {
            c.rho
        };
        let r = scheme.simulate(&DirectConfig { rho, ..c }).unwrap();
        let i = forwarding_nodes(&net, scheme.tree(0, 0).unwrap());
        let n = f64::from(1u32 << d);
        assert_eq!(r.queue_size_batches.len(), r.backlog.len());
        for (q, b) in r.queue_size_batches.iter().zip(&r.backlog) {
            assert!(
                q * n >= b - 1e-9,
                "{family:?}: stored {} < backlog {b}",
                q * n
            );
            assert!(
                q * n <= b * i + 1e-9,
                "{family:?}: stored {} > {i} × {b}",
                q * n
            );
        }
    }
}

/// The scheme along fatnet-offline's optimal multinode broadcast tree.
fn scheme(d: u32) -> Result<PeriodicScheme, fatnet_online::OnlineError> {
    match fatnet_offline::hypercube::multinode_broadcast_tree(d) {
        Ok(t) => PeriodicScheme::from_tree(d, &t.slot, &t.dim),
        Err(_) => PeriodicScheme::from_tree(d, &[], &[]),
    }
}

/// Every node's tree is the one built from its own links and ranks (node `y`'s link into
/// `y ⊕ v` across `i(v)`, ranked `s(v)`), as `from_tree` built them before it translated node
/// 0's.
#[test]
fn every_nodes_tree_is_built_from_its_links() {
    for d in [3, 5] {
        let scheme = scheme(d).unwrap();
        let net = PacketNet::new(Hypercube::new(u64::from(d)).unwrap()).unwrap();
        let n = 1u32 << d;
        for y in 0..n {
            let dim = |v: u32| scheme.dimension(v).unwrap();
            let links: Vec<u32> = (1..n)
                .map(|v| (dim(v) << d) | (y ^ v ^ (1 << dim(v))))
                .collect();
            let dsts: Vec<u32> = (0..n).filter(|&p| p != y).collect();
            let fresh = MulticastTree::new(&net, y, &dsts, &links)
                .unwrap()
                .with_ranks(|e| {
                    let (i, tail) = (e >> d, e & (n - 1));
                    scheme.slot(tail ^ (1 << i) ^ y).unwrap() as u16
                });
            assert_eq!(scheme.tree(y).unwrap(), &fresh, "d = {d}, node {y}");
        }
    }
}

#[test]
fn a_tree_that_would_overload_an_arc_is_refused() {
    // An optimal tree of the 3-cube (P = 3): slot 1 reaches 1, 2, 4; slot 2 reaches 3 (from 1),
    // 5 (from 4), 6 (from 2); slot 3 reaches 7 (from 3).
    let slot = [0, 1, 1, 2, 1, 2, 2, 3];
    let dim = [u32::MAX, 0, 1, 1, 2, 0, 2, 2];
    let ok = PeriodicScheme::from_tree(3, &slot, &dim).unwrap();
    assert_eq!((ok.period(), ok.completion()), (3, 3));
    let refused = |slot: &[u32], dim: &[u32], words: &str| {
        let e = PeriodicScheme::from_tree(3, slot, dim).unwrap_err();
        assert!(e.to_string().contains(words), "{words}: {e}");
    };
    // 6 from 4 across dimension 1 in slot 2, like 3 from 1: two packets on one arc.
    let mut two = dim;
    two[6] = 1;
    refused(&slot, &two, "two nodes");
    // 3 in slot 1, when its parent 1 receives only in slot 1.
    let mut early = slot;
    early[3] = 1;
    refused(&early, &dim, "its parent");
    // 7 one slot late: not optimal.
    let mut late = slot;
    late[7] = 4;
    refused(&late, &dim, "not the optimal");
    refused(&slot[..4], &dim[..4], "for 8 nodes");
    assert!(PeriodicScheme::from_tree(1, &[0, 1], &[u32::MAX, 0]).is_err());
    assert!(scheme(13).is_err());
    // fatnet-offline's tree passes the same checks for every d.
    for d in 2..=8 {
        assert_eq!(scheme(d).unwrap().period(), ((1u32 << d) - 1).div_ceil(d));
    }
}
