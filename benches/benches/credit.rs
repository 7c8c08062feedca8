//! The credit-loop check (`fatnet_fabric::credit_loops`): trace every route of the 1,944-host
//! fabric `is4_3l_1944n` (3.78 M routes), build the channel dependency graph and find its
//! strongly connected components. Target: < 1 s. The fabric is read from `../shared/fabrics`
//! (or `$FATNET_FABRICS`); without it the bench prints a notice and measures nothing.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use fatnet_fabric::credit_loops;

fn credit(c: &mut Criterion) {
    let Some(fabric) = fatnet_benches::flitsim_fabric("is4_3l_1944n") else {
        return;
    };
    let mut g = c.benchmark_group("fabric_credit_loops");
    g.sample_size(10);
    let n = fabric.ca_order().len() as u64;
    g.throughput(Throughput::Elements(n * (n - 1)));
    g.bench_function("is4_3l_1944n", |b| {
        b.iter(|| credit_loops(black_box(&fabric), None).unwrap().is_free())
    });
    g.finish();
}

criterion_group!(benches, credit);
criterion_main!(benches);
