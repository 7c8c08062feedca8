//! Collectives on the packet engine: the lower bound holds on every phase of random small
//! cases, is attained without contention, and a run is a function of its seed.

use fatnet_online::packet::{FlowControl, Outcome, PathPolicy, QueueCapacity, Queueing};
use fatnet_scenario::{CollectiveScenario, PacketOptions, ScenarioError};
use fatnet_traffic::Collective;
use rand::{Rng, SeedableRng};

fn scenario(topology: &str, collective: &str, options: PacketOptions) -> CollectiveScenario {
    CollectiveScenario {
        topology: topology.parse().unwrap(),
        collective: collective.parse().unwrap(),
        options,
    }
}

/// Random small networks, collectives, flow controls, queueings, queue sizes, path policies,
/// lengths and seeds: no finished phase completes before its bound.
#[test]
fn no_phase_beats_its_bound() {
    let topologies = [
        "bft:n=16",
        "bft:n=64",
        "fattree:n=16,profile=constant,cap=1",
        "fattree:n=32,profile=doubling",
        "hypercube:d=4",
        "hypercube:d=3",
        "ftree:n=4,m=3,r=5",
        "karyntree:k=2,levels=4",
        "clos:n=3,m=2,r=4",
        "butterfly:d=3",
    ];
    let collectives = [
        "alltoall:order=shift",
        "alltoall:order=pairwise",
        "allreduce:alg=ring",
        "allreduce:alg=rd",
    ];
    let mut rng = rand_pcg::Pcg64::seed_from_u64(2026);
    let mut phases_checked = 0;
    let mut attained = 0;
    for case in 0..48 {
        let topology = topologies[case % topologies.len()];
        let collective = collectives[rng.random_range(0..collectives.len())];
        let output = rng.random_bool(0.2);
        let flow = if output {
            FlowControl::StoreAndForward
        } else {
            [
                FlowControl::Wormhole,
                FlowControl::StoreAndForward,
                FlowControl::Split,
            ][rng.random_range(0..3)]
        };
        let path =
            [PathPolicy::Random, PathPolicy::Greedy, PathPolicy::Standard][rng.random_range(0..3)];
        let options = PacketOptions {
            queueing: Some(if output {
                Queueing::Output
            } else {
                Queueing::Input
            }),
            flow: Some(flow),
            path: Some(path),
            flits: Some(rng.random_range(1..=9)),
            queue: (!output).then(|| QueueCapacity::Bounded(rng.random_range(1..=3))),
            ..PacketOptions::default()
        };
        let prepared = scenario(topology, collective, options).prepare().unwrap();
        let report = prepared.run(rng.random(), &|_| {}).unwrap();
        for p in &report.phases {
            let Some(steps) = p.steps else {
                // Wormhole with small queues may deadlock; a deadlock is no completion time.
                assert!(matches!(p.outcome, Outcome::Deadlock { .. }), "{p:?}");
                continue;
            };
            phases_checked += 1;
            assert!(
                steps >= p.bound.steps,
                "{topology} {collective} {options:?}: phase {} took {steps} < bound {:?}",
                p.phase,
                p.bound
            );
            attained += usize::from(steps == p.bound.steps);
        }
    }
    // The sweep saw many phases, and the bound is not vacuous: some phases meet it.
    assert!(phases_checked > 300, "{phases_checked}");
    assert!(attained > 0);
}

/// A contention-free phase meets the bound exactly: the exchange `i ↔ i XOR 1` stays under
/// one switch (two links per message, every link used once), so each worm takes `D + L − 1`
/// = `L + 1` steps, and each store-and-forward packet `L · D` = `2L` flit-steps.
#[test]
fn a_contention_free_phase_attains_the_bound() {
    for topology in [
        "bft:n=64",
        "fattree:n=16,profile=constant,cap=1",
        "ftree:n=4,m=2,r=3",
    ] {
        for (flow, expected) in [
            (FlowControl::Wormhole, 8 + 1),
            (FlowControl::StoreAndForward, 2 * 8),
            (FlowControl::Split, 8 + 1),
        ] {
            let options = PacketOptions {
                flow: Some(flow),
                ..PacketOptions::default()
            };
            let prepared = scenario(topology, "allreduce:alg=rd,flits=8", options)
                .prepare()
                .unwrap();
            let phase = prepared.phase(0).unwrap();
            let p = prepared.run_phase(0, &phase, 5).unwrap();
            assert_eq!(p.bound.dilation, 2, "{topology}");
            assert_eq!(p.bound.steps, expected, "{topology} {flow}");
            assert_eq!(p.steps, Some(expected), "{topology} {flow}");
            assert_eq!(p.ratio, Some(1.0));
        }
    }
}

/// Congestion dominates where a bundle is overloaded: on the binary fat-tree with unit
/// capacities, the shift by N/2 sends all N/2 messages of one half over the root's channel.
#[test]
fn the_congestion_term_dominates_on_a_thin_tree() {
    let options = PacketOptions {
        flits: Some(4),
        ..PacketOptions::default()
    };
    let prepared = scenario("fattree:n=16,profile=constant,cap=1", "alltoall", options)
        .prepare()
        .unwrap();
    let phase = prepared.phase(7).unwrap(); // shift k = 8
    let p = prepared.run_phase(7, &phase, 1).unwrap();
    let f = p.bound.load_factor.unwrap();
    assert_eq!((f.load, f.capacity), (8, 1));
    assert_eq!(p.bound.congestion_term, 32);
    assert_eq!(p.bound.path_term, 8 + 4 - 1);
    assert!(p.steps.unwrap() >= 32);
}

#[test]
fn phases_totals_and_seeds() {
    let prepared = scenario(
        "bft:n=16",
        "alltoall:order=pairwise",
        PacketOptions::default(),
    )
    .prepare()
    .unwrap();
    let a = prepared.run(9, &|_| {}).unwrap();
    assert_eq!(a.phase_count, 15);
    assert_eq!(a.phases.len(), 15);
    assert!(a.finished);
    assert_eq!(
        a.total_steps,
        Some(a.phases.iter().map(|p| p.steps.unwrap()).sum())
    );
    assert_eq!(
        a.total_bound,
        a.phases.iter().map(|p| p.bound.steps).sum::<u64>()
    );
    assert_eq!(a.phases[3].seed, fatnet_traffic::derive_seed(9, 3));
    // Same seed, same report; the phases' seeds follow the master seed.
    assert_eq!(prepared.run(9, &|_| {}).unwrap(), a);
    // Ring allreduce: 2 (N − 1) phases of ⌈V/N⌉ flits (V = the default 32 flits).
    let ring = scenario("bft:n=16", "allreduce", PacketOptions::default())
        .prepare()
        .unwrap()
        .run(1, &|_| {})
        .unwrap();
    assert_eq!(ring.phases.len(), 30);
    assert!(ring.phases.iter().all(|p| p.flits == 2));
}

#[test]
fn a_size_in_the_spec_and_flits_are_refused_together() {
    let options = PacketOptions {
        flits: Some(4),
        ..PacketOptions::default()
    };
    let e = scenario("bft:n=16", "alltoall:flits=8", options)
        .prepare()
        .unwrap_err();
    assert!(matches!(e, ScenarioError::Refused { .. }), "{e}");
    let e = scenario(
        "bft:n=16",
        "allreduce:alg=rd,bytes=10000000",
        PacketOptions::default(),
    )
    .prepare()
    .unwrap_err();
    assert!(matches!(e, ScenarioError::Traffic { .. }), "{e}");
    assert!(
        "alltoall:order=ring".parse::<Collective>().is_err(),
        "bad order"
    );
}
