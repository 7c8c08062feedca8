//! The packet engine's in-run draws (RR starts, RP choices, the same-step reading's
//! rotations) are keyed by (run seed, step, node or input): a draw no longer depends on how
//! many draws other nodes made before it, which is what lets one run be split over threads
//! with the same result. That changes every run's draws but must not change their law.
//!
//! Over [`RUNS`] runs per case, the per-run mean and maximum latencies of the keyed draws
//! are compared with those of the former single sequential `Pcg64` stream, recorded in
//! `draws_before.rs`: equal means (Welch) and equal variances (F-test), family-wise at the
//! 99 % level (Bonferroni). The recorded samples were generated with this file's
//! [`print_samples`] at commit `0dd4883`, the last commit with the sequential stream; the
//! keyed runs use other seeds (`SEED_OFFSET`), so the two samples are independent.

use fatnet_online::packet::{
    PacketConfig, PacketNet, PathPolicy, QueueCapacity, ScanPolicy, StoreTiming, batch_trial,
};
use fatnet_topology::{ButterflyFatTree, KAryNTree};
use fatnet_traffic::{MessageSet, patterns};
use rand::SeedableRng;
use rand_pcg::Pcg64;

use crate::draws_before::BEFORE;
use crate::two_sample::{Comparison, compare};

/// Runs per case and draw scheme.
pub const RUNS: u64 = 100;
/// The keyed runs' seeds are `SEED_OFFSET + s`; the recorded ones were `s`.
const SEED_OFFSET: u64 = 1_000_000;

#[derive(Clone, Copy, Debug)]
enum Traffic {
    Uniform,
    Complement,
    ManyToOne,
}

#[derive(Clone, Copy, Debug)]
struct Case {
    name: &'static str,
    /// `0`: the butterfly fat-tree on 64 processors; `k`: the k-ary 3-tree.
    k: u32,
    traffic: Traffic,
    config: fn() -> PacketConfig,
}

fn worm() -> PacketConfig {
    PacketConfig::worm()
}
fn store() -> PacketConfig {
    PacketConfig::store()
}
fn split() -> PacketConfig {
    PacketConfig::split()
}
fn worm_gp() -> PacketConfig {
    PacketConfig {
        path: PathPolicy::Greedy,
        ..PacketConfig::worm()
    }
}
fn worm_ff() -> PacketConfig {
    PacketConfig {
        scan: ScanPolicy::FarthestFirst,
        ..PacketConfig::worm()
    }
}
fn store_univ() -> PacketConfig {
    PacketConfig {
        scan: ScanPolicy::RandomPriority { range: 6 },
        ..PacketConfig::store()
    }
}
fn store_same_step() -> PacketConfig {
    PacketConfig {
        store_timing: StoreTiming::OtherUpLinkSameStep,
        ..PacketConfig::store()
    }
}
fn worm_q4() -> PacketConfig {
    PacketConfig {
        queue: QueueCapacity::Bounded(4),
        flits: 8,
        ..PacketConfig::worm()
    }
}

const CASES: [Case; 9] = [
    Case {
        name: "WORM RP-RR uniform",
        k: 0,
        traffic: Traffic::Uniform,
        config: worm,
    },
    Case {
        name: "STORE RP-RR uniform",
        k: 0,
        traffic: Traffic::Uniform,
        config: store,
    },
    Case {
        name: "SPLIT RP-RR uniform",
        k: 0,
        traffic: Traffic::Uniform,
        config: split,
    },
    Case {
        name: "WORM GP-RR complement",
        k: 0,
        traffic: Traffic::Complement,
        config: worm_gp,
    },
    Case {
        name: "WORM RP-FF uniform",
        k: 0,
        traffic: Traffic::Uniform,
        config: worm_ff,
    },
    Case {
        name: "STORE RP-UNIV uniform",
        k: 0,
        traffic: Traffic::Uniform,
        config: store_univ,
    },
    Case {
        name: "STORE RP-RR other-up+same-step uniform",
        k: 0,
        traffic: Traffic::Uniform,
        config: store_same_step,
    },
    Case {
        name: "WORM RP-RR many-to-one, L = 8, q = 4",
        k: 0,
        traffic: Traffic::ManyToOne,
        config: worm_q4,
    },
    Case {
        name: "WORM RP-RR uniform on the 4-ary 3-tree",
        k: 4,
        traffic: Traffic::Uniform,
        config: worm,
    },
];

fn net(k: u32) -> PacketNet {
    if k == 0 {
        PacketNet::new(ButterflyFatTree::new(64).unwrap()).unwrap()
    } else {
        PacketNet::new(KAryNTree::new(u64::from(k), 3).unwrap()).unwrap()
    }
}

fn messages(t: Traffic, n: u32, seed: u64) -> MessageSet {
    match t {
        Traffic::Uniform => patterns::uniform(n, false, &mut Pcg64::seed_from_u64(seed)).unwrap(),
        Traffic::Complement => patterns::complement(n).unwrap(),
        Traffic::ManyToOne => patterns::many_to_one(n).unwrap(),
    }
}

/// Per run of `case` with seeds `first..first + RUNS`: (mean latency, maximum latency).
fn samples(case: &Case, first: u64) -> Vec<(f64, f64)> {
    let net = net(case.k);
    let config = PacketConfig {
        check_conservation: true,
        ..(case.config)()
    };
    (first..first + RUNS)
        .map(|seed| {
            let m = messages(case.traffic, net.processors(), seed);
            let r = batch_trial(&net, &m, 1, &config, seed ^ 0x5eed).unwrap();
            assert!(r.finished(), "{}: {:?}", case.name, r.outcome);
            (r.mean_latency, r.latency as f64)
        })
        .collect()
}

/// Prints the current engine's samples in the form of `draws_before.rs`.
#[test]
#[ignore = "generator of draws_before.rs; run by hand"]
fn print_samples() {
    println!(
        "pub const BEFORE: [[(f64, f64); {RUNS}]; {}] = [",
        CASES.len()
    );
    for c in &CASES {
        println!("    // {}", c.name);
        println!("    [");
        for (mean, max) in samples(c, 0) {
            println!("        ({mean:?}, {max:?}),");
        }
        println!("    ],");
    }
    println!("];");
}

#[test]
fn keyed_draws_have_the_law_of_the_sequential_stream() {
    // Bonferroni: 2 statistics × 2 tests per case, family-wise level 1 %.
    let alpha = 0.01 / (4 * CASES.len()) as f64;
    let mut failures = Vec::new();
    for (c, before) in CASES.iter().zip(BEFORE.iter()) {
        let after = samples(c, SEED_OFFSET);
        for (stat, pick) in [
            (
                "mean latency",
                (|s: &(f64, f64)| s.0) as fn(&(f64, f64)) -> f64,
            ),
            ("max latency", |s: &(f64, f64)| s.1),
        ] {
            let a: Vec<f64> = before.iter().map(pick).collect();
            let b: Vec<f64> = after.iter().map(pick).collect();
            let Comparison {
                a: (ma, va),
                b: (mb, vb),
                welch_p,
                f_p,
                ..
            } = compare(&a, &b);
            eprintln!(
                "{} {stat}: sequential {ma:.2} (var {va:.2}), keyed {mb:.2} (var {vb:.2}); Welch p = {welch_p:.4}, F p = {f_p:.4}",
                c.name
            );
            // A constant statistic (many-to-one's maximum is exact) has no variance to test.
            let constant = va == 0.0 && vb == 0.0;
            if constant && ma != mb {
                failures.push(format!("{} {stat}: {ma} before, {mb} after", c.name));
            }
            if !constant && (welch_p < alpha || f_p < alpha) {
                failures.push(format!(
                    "{} {stat}: Welch p = {welch_p}, F p = {f_p}",
                    c.name
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "disagreement at α = {alpha}: {failures:#?}"
    );
}
