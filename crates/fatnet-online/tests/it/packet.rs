//! The packet engine against the numbers Greenberg and Oh's semantics determine exactly.

use fatnet_online::packet::{
    FlowControl, Injection, Outcome, PacketConfig, PacketNet, PathPolicy, ScanPolicy, batch,
    simulate,
};
use fatnet_topology::ButterflyFatTree;
use fatnet_traffic::patterns;
use rand::SeedableRng;
use rand_pcg::Pcg64;

fn bft(n: u64) -> PacketNet {
    PacketNet::new(ButterflyFatTree::new(n).unwrap()).unwrap()
}

fn run(
    net: &PacketNet,
    msgs: &fatnet_traffic::MessageSet,
    config: &PacketConfig,
    seed: u64,
) -> fatnet_online::packet::PacketReport {
    let inj = batch(msgs, 1, 1, &mut Pcg64::seed_from_u64(0)).unwrap();
    let cfg = PacketConfig {
        check_conservation: true,
        ..*config
    };
    simulate(net, &inj, &cfg, seed).unwrap()
}

/// Table I's many-to-1 cells: WORM = cL + d − 2, STORE = L(2c + d − 3), c = N/2, d = 2 log4 N.
#[test]
fn many_to_one_matches_table_one_exactly() {
    let worm = [258, 1028, 4102];
    let store = [544, 2144, 8352];
    for (i, n) in [16u64, 64, 256].into_iter().enumerate() {
        let net = bft(n);
        let m = patterns::many_to_one(n as u32).unwrap();
        for seed in 0..3 {
            let w = run(&net, &m, &PacketConfig::worm(), seed);
            assert_eq!(w.outcome, Outcome::Delivered);
            assert_eq!(w.latency, worm[i], "WORM N = {n}");
            assert_eq!(w.congestion, n as u32 / 2);
            let s = run(&net, &m, &PacketConfig::store(), seed);
            assert_eq!(s.latency, store[i], "STORE N = {n}");
        }
    }
}

/// An uncontended worm on a d-link path arrives after d + L − 2 steps.
#[test]
fn lone_worm_takes_d_plus_l_minus_two() {
    let net = bft(256);
    for (dst, d) in [(1u32, 2u64), (4, 4), (16, 6), (255, 8)] {
        for flits in [1u32, 2, 5, 32] {
            let inj = [Injection {
                src: 0,
                dst,
                release: 0,
            }];
            let cfg = PacketConfig {
                flits,
                check_conservation: true,
                ..PacketConfig::worm()
            };
            let r = simulate(&net, &inj, &cfg, 1).unwrap();
            assert_eq!(r.latency, d + u64::from(flits) - 2, "d = {d}, L = {flits}");
        }
    }
}

#[test]
fn complement_and_random_finish() {
    for n in [16u64, 64, 256, 1024] {
        let net = bft(n);
        let m = patterns::complement(n as u32).unwrap();
        for cfg in [
            PacketConfig::worm(),
            PacketConfig::store(),
            PacketConfig::split(),
        ] {
            for path in [PathPolicy::Random, PathPolicy::Greedy, PathPolicy::Fixed] {
                for scan in [
                    ScanPolicy::RoundRobin,
                    ScanPolicy::FixedOrder,
                    ScanPolicy::FarthestFirst,
                ] {
                    let c = PacketConfig { path, scan, ..cfg };
                    let r = run(&net, &m, &c, 7);
                    assert_eq!(r.outcome, Outcome::Delivered);
                    // The complement's load factor is √N/2 on links of capacity 1, so no
                    // path choice realizes less (split counts every flit as a worm).
                    let lambda = (n as f64).sqrt() as u32 / 2;
                    let worms = if c.flow == FlowControl::Split {
                        c.flits
                    } else {
                        1
                    };
                    assert!(r.congestion >= lambda * worms, "c below λ");
                    // A link passes one flit (STORE: one packet) per step, so its c worms
                    // need c·L − 1 (STORE: (c − 1)·L, split: c − 1) steps after the first.
                    let (cc, l) = (u64::from(r.congestion), u64::from(c.flits));
                    let bound = match c.flow {
                        FlowControl::Wormhole => cc * l - 1,
                        FlowControl::StoreAndForward => (cc - 1) * l,
                        FlowControl::Split => cc - 1,
                    };
                    assert!(r.latency >= bound, "latency {} below {bound}", r.latency);
                }
            }
        }
    }
}

/// A network beyond the engine's size gets a typed error, not an allocation failure.
#[test]
fn oversized_networks_are_refused() {
    use fatnet_online::OnlineError;
    use fatnet_online::packet::MAX_LINKS;
    let huge = ButterflyFatTree::new(1 << 26).unwrap(); // 4^13 processors, 2^28 links
    match PacketNet::new(huge) {
        Err(OnlineError::TooLarge { max, .. }) => assert_eq!(max, MAX_LINKS),
        other => panic!("expected TooLarge, got {:?}", other.map(|n| n.links())),
    }
}

/// A user's capacity near `u64::MAX` does not wrap the wire count past the check (it panicked
/// in debug builds, and in release wrapped to a small count and allocated without end).
#[test]
fn capacities_near_u64_max_are_refused_not_wrapped() {
    use fatnet_online::OnlineError;
    use fatnet_online::packet::MAX_LINKS;
    use fatnet_topology::{CapacityProfile, FatTree};
    for caps in [
        vec![u64::MAX, 2],
        vec![1, u64::MAX],
        vec![u64::MAX - 1, u64::MAX],
    ] {
        let t = FatTree::new(2, CapacityProfile::Custom(caps.clone())).unwrap();
        match PacketNet::new(t) {
            Err(OnlineError::TooLarge {
                what: "wires", max, ..
            }) => assert_eq!(max, MAX_LINKS),
            other => panic!(
                "{caps:?}: expected TooLarge, got {:?}",
                other.map(|n| n.links())
            ),
        }
    }
}

/// `max_queue` is the largest queue at the end of a step: one uncontended worm streams
/// through queues of two flits, each holding one flit between steps (a link takes the next
/// flit in the step its front leaves), whatever the order in which the step applies moves.
#[test]
fn one_worm_streams_with_one_flit_per_queue_between_steps() {
    let net = bft(64);
    for dst in [1u32, 17, 63] {
        let inj = [Injection {
            src: 0,
            dst,
            release: 0,
        }];
        let cfg = PacketConfig {
            check_conservation: true,
            ..PacketConfig::worm()
        };
        let r = simulate(&net, &inj, &cfg, 7).unwrap();
        assert_eq!(r.outcome, Outcome::Delivered);
        assert_eq!(r.max_queue, 1, "0 -> {dst}");
        // and the other way round (links traversed in the other node order)
        let inj = [Injection {
            src: dst,
            dst: 0,
            release: 0,
        }];
        let r = simulate(&net, &inj, &cfg, 7).unwrap();
        assert_eq!(r.max_queue, 1, "{dst} -> 0");
    }
}
