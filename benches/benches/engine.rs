//! The delivery-cycle engine: one cycle injecting every message, per drop policy.
//!
//! Target (issue 4): ≥ 50 M message-channel steps per second on one core. A step is one
//! message entering one channel (for the pessimistic and wire models, every channel of every
//! injected path).

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use fatnet::online::{DeliveryEngine, DropPolicy};
use fatnet::topology::FatTree;
use fatnet_benches::replicated_permutations;
use rand::SeedableRng;
use rand_pcg::Pcg64;

fn cycle(c: &mut Criterion) {
    let mut g = c.benchmark_group("delivery_cycle");
    g.sample_size(20);
    let levels = 16u32;
    let n = 1u64 << levels;
    let tree = FatTree::universal(n, 1 << (2 * levels).div_ceil(3)).unwrap();
    let m = replicated_permutations(n as u32, 4, 9);
    let all: Vec<u32> = (0..m.len() as u32).collect();
    for policy in [
        DropPolicy::Pessimistic,
        DropPolicy::Random,
        DropPolicy::FixedPriority,
        DropPolicy::RoundRobin,
        DropPolicy::Wires,
    ] {
        let mut engine = DeliveryEngine::new(&tree, &m, policy).unwrap();
        let mut rng = Pcg64::seed_from_u64(1);
        let mut out = Vec::new();
        let steps = engine.cycle(&all, &mut rng, &mut out).steps;
        g.throughput(Throughput::Elements(steps));
        g.bench_function(format!("{policy:?}/n=2^{levels}/perm_x4"), |b| {
            b.iter(|| {
                out.clear();
                engine.cycle(black_box(&all), &mut rng, &mut out).delivered
            })
        });
    }
    g.finish();
}

criterion_group!(benches, cycle);
criterion_main!(benches);
