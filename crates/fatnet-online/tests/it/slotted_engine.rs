//! Slotted greedy routing two ways (Stamoulis §5.4, §5.6): [`slotted_cube::run`] and the
//! packet engine's output queues driven as `fatnet-repro`'s greedy table drives them (its
//! own Poisson batches by inversion and bit flips, `Queueing::Output` with random ties,
//! delay = latency + 1). Over many seeds the per-run mean delays of the two have equal means
//! (Welch) and equal variances (F-test), family-wise at the 99 % level.
//!
//! Both measure the same thing: packets generated in slots `[warmup, horizon)`, delay from
//! the slot boundary of generation to the end of the slot of arrival, 0 for a packet to its
//! own node on the cube (on the butterfly it crosses `d` straight arcs), from an empty
//! network; generation goes on after the horizon (to `2 · horizon`, where `slotted_cube`
//! caps it), so the last measured packets meet the traffic generated after them.

use fatnet_online::greedy_cube::GreedyNetwork;
use fatnet_online::packet::{
    PacketConfig, PacketNet, ScanPolicy, simulate, slotted_bitflip_arrivals,
};
use fatnet_online::slotted_cube::{self, SlottedConfig, SlottedScheme};
use fatnet_topology::{Butterfly, Hypercube};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

use crate::two_sample::{Comparison, compare};

#[derive(Debug, Clone, Copy)]
struct Case {
    network: GreedyNetwork,
    d: u32,
    lambda: f64,
    p: f64,
    horizon: u64,
}

impl Case {
    fn warmup(&self) -> u64 {
        self.horizon / 10
    }
}

/// The engine's mean delay of one run.
fn engine_mean_delay(c: Case, seed: u64) -> f64 {
    let net = match c.network {
        GreedyNetwork::Hypercube => PacketNet::new(Hypercube::new(u64::from(c.d)).unwrap()),
        GreedyNetwork::Butterfly => PacketNet::new(Butterfly::new(u64::from(c.d)).unwrap()),
    }
    .unwrap();
    let mut rng = Pcg64::seed_from_u64(seed);
    let injections = slotted_bitflip_arrivals(c.d, c.lambda, c.p, 2 * c.horizon, &mut rng).unwrap();
    let config = PacketConfig::output_queued_unit(ScanPolicy::RoundRobin);
    let r = simulate(&net, &injections, &config, rng.random()).unwrap();
    assert!(r.finished(), "{c:?}: {:?}", r.outcome);
    let (mut sum, mut count) = (0u64, 0u64);
    for (m, &l) in injections.iter().zip(r.latencies.as_ref().unwrap()) {
        if (c.warmup()..c.horizon).contains(&m.release) {
            let at_once = c.network == GreedyNetwork::Hypercube && m.src == m.dst;
            sum += if at_once { 0 } else { l + 1 };
            count += 1;
        }
    }
    sum as f64 / count as f64
}

/// `slotted_cube`'s mean delay of one run.
fn slotted_mean_delay(c: Case, seed: u64) -> f64 {
    let r = slotted_cube::run(&SlottedConfig {
        network: c.network,
        scheme: SlottedScheme::Greedy,
        d: c.d,
        lambda: c.lambda,
        p: c.p,
        protocol: fatnet_online::RunProtocol::slots(c.warmup(), c.horizon, 10),
        confidence: 0.99,
        seed,
    })
    .unwrap();
    assert!(!r.extension_capped, "{c:?}");
    r.delay_mean
}

const CASES: [Case; 6] = [
    Case {
        network: GreedyNetwork::Hypercube,
        d: 3,
        lambda: 1.6,
        p: 0.5,
        horizon: 2_000,
    },
    Case {
        network: GreedyNetwork::Hypercube,
        d: 4,
        lambda: 1.8,
        p: 0.5,
        horizon: 2_000,
    },
    Case {
        network: GreedyNetwork::Hypercube,
        d: 5,
        lambda: 2.0,
        p: 0.25,
        horizon: 1_000,
    },
    Case {
        network: GreedyNetwork::Hypercube,
        d: 4,
        lambda: 0.6,
        p: 1.0,
        horizon: 2_000,
    },
    Case {
        network: GreedyNetwork::Butterfly,
        d: 3,
        lambda: 1.6,
        p: 0.5,
        horizon: 2_000,
    },
    Case {
        network: GreedyNetwork::Butterfly,
        d: 4,
        lambda: 1.0,
        p: 0.25,
        horizon: 1_000,
    },
];

/// Runs per simulator and case.
const RUNS: u64 = 100;

#[test]
fn slotted_cube_and_the_output_queued_engine_agree_in_distribution() {
    // Bonferroni: 2 tests per case, family-wise level 1 %.
    let alpha = 0.01 / (2 * CASES.len()) as f64;
    let mut failures = Vec::new();
    for (i, c) in CASES.iter().enumerate() {
        let base = 1_000 * i as u64;
        let slotted: Vec<f64> = (0..RUNS)
            .map(|s| slotted_mean_delay(*c, base + s))
            .collect();
        let engine: Vec<f64> = (0..RUNS)
            .map(|s| engine_mean_delay(*c, 500 + base + s))
            .collect();
        let Comparison {
            a,
            b,
            welch_t,
            welch_df,
            welch_p,
            f,
            f_p,
        } = compare(&slotted, &engine);
        eprintln!(
            "{:?} d={} λ={} p={} H={}: slotted {:.4} (var {:.3e}), engine {:.4} (var {:.3e}); Welch t={welch_t:.3} df={welch_df:.1} p={welch_p:.4}; F={f:.3} p={f_p:.4}",
            c.network, c.d, c.lambda, c.p, c.horizon, a.0, a.1, b.0, b.1
        );
        if welch_p < alpha || f_p < alpha {
            failures.push(format!("{c:?}: Welch p = {welch_p}, F p = {f_p}"));
        }
    }
    assert!(
        failures.is_empty(),
        "disagreement at α = {alpha}: {failures:#?}"
    );
}
