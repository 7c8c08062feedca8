//! Greedy routing under Poisson traffic (Stamoulis ch. 5), the exact level-by-level simulator.
//!
//! Target (issue 6): ≥ 50 M packet-hops per second on one core on the 12-cube at ρ = 0.9
//! (p = 1/2, λ = 1.8). A run is one `steady_state` call: arrival generation, the simulation
//! and the batch-means bookkeeping, from an empty network; the throughput is the run's own
//! count of arc traversals over its wall time.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use fatnet::online::RunProtocol;
use fatnet::online::greedy_cube::{GreedyConfig, GreedyNetwork, simulate, steady_state};
use fatnet::online::slotted_cube::{self, SlottedConfig, SlottedScheme};
use fatnet::traffic::arrivals::PoissonTraffic;

fn config(network: GreedyNetwork, d: u32, lambda: f64) -> GreedyConfig {
    GreedyConfig {
        network,
        d,
        lambda,
        p: 0.5,
        protocol: RunProtocol::new(50.0, 300.0, 10),
        confidence: 0.95,
        seed: 7,
        window: None,
    }
}

fn greedy(c: &mut Criterion) {
    let mut g = c.benchmark_group("greedy_cube");
    g.sample_size(10);
    for (name, network, lambda) in [
        ("hypercube", GreedyNetwork::Hypercube, 1.8),
        ("butterfly", GreedyNetwork::Butterfly, 1.8),
    ] {
        let config = config(network, 12, lambda);
        let hops = steady_state(&config).unwrap().packet_hops;
        g.throughput(Throughput::Elements(hops));
        g.bench_function(format!("steady_state/{name}/d=12/rho=0.9"), |b| {
            b.iter(|| steady_state(black_box(&config)).unwrap().delay_mean)
        });
    }
    // The one-shot simulator on a given arrival list (sorting the list included).
    let arrivals = PoissonTraffic::new(12, 1.8, 0.5)
        .unwrap()
        .poisson(100.0, 7)
        .unwrap();
    let hops: u64 = arrivals
        .iter()
        .map(|a| u64::from((a.src ^ a.dst).count_ones()))
        .sum();
    g.throughput(Throughput::Elements(hops));
    g.bench_function("simulate/hypercube/d=12/rho=0.9", |b| {
        b.iter(|| simulate(GreedyNetwork::Hypercube, 12, black_box(&arrivals)).unwrap()[0])
    });
    g.finish();
}

/// Stamoulis' slotted schemes (§5.4–5.6), a model of the step engine: one `slotted_cube::run`
/// from an empty network, streaming arrivals, batch means; throughput in arc traversals.
fn slotted(c: &mut Criterion) {
    let mut g = c.benchmark_group("slotted_cube");
    g.sample_size(10);
    // (name, network, scheme, d, λ, protocol): ρ = 0.9 on the 10-cube and butterfly, and
    // greedy near saturation (ρ = 0.98 on the 8-cube), where the lists are long.
    let moderate = RunProtocol::slots(50, 300, 10);
    for (name, network, scheme, d, lambda, protocol) in [
        (
            "hypercube/greedy/d=10/rho=0.9",
            GreedyNetwork::Hypercube,
            SlottedScheme::Greedy,
            10,
            1.8,
            moderate,
        ),
        (
            "hypercube/adaptive/d=10/rho=0.9",
            GreedyNetwork::Hypercube,
            SlottedScheme::Adaptive,
            10,
            1.8,
            moderate,
        ),
        (
            "butterfly/greedy/d=10/rho=0.9",
            GreedyNetwork::Butterfly,
            SlottedScheme::Greedy,
            10,
            1.8,
            moderate,
        ),
        (
            "hypercube/greedy/d=8/rho=0.98",
            GreedyNetwork::Hypercube,
            SlottedScheme::Greedy,
            8,
            1.96,
            RunProtocol::slots(500, 3_000, 10),
        ),
    ] {
        let config = SlottedConfig {
            network,
            scheme,
            d,
            lambda,
            p: 0.5,
            protocol,
            confidence: 0.95,
            seed: 7,
        };
        let hops = slotted_cube::run(&config).unwrap().packet_hops;
        g.throughput(Throughput::Elements(hops));
        g.bench_function(format!("run/{name}"), |b| {
            b.iter(|| slotted_cube::run(black_box(&config)).unwrap().delay_mean)
        });
    }
    g.finish();
}

criterion_group!(benches, greedy, slotted);
criterion_main!(benches);
