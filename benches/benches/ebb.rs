//! Effective bisection bandwidth and route counts on the 1,944-host fabric `is4_3l_1944n`
//! (ib_flit_sim, 270 switch chips, tables from OpenSM's ftree).
//!
//! Target: 1,000 random bisections in < 10 s. Each draw traces its 1,944 flows through the
//! tables (no route table), so the draws should take well under a second; the route check that
//! precedes them is one walk of all 1944·1943 routes. The counts are one destination-major
//! sweep of the same routes. The fabric is read from `../shared/fabrics` (or
//! `$FATNET_FABRICS`); without it the bench prints a notice and measures nothing.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use fatnet_fabric::{EbbConfig, effective_bisection_bandwidth, route_counts};

fn ebb(c: &mut Criterion) {
    let Some(fabric) = fatnet_benches::flitsim_fabric("is4_3l_1944n") else {
        return;
    };
    let mut g = c.benchmark_group("fabric_ebb");
    g.sample_size(10);
    let config = EbbConfig::default();
    g.bench_function("is4_3l_1944n_1000_bisections", |b| {
        b.iter(|| {
            effective_bisection_bandwidth(black_box(&fabric), &config)
                .unwrap()
                .mean
        })
    });
    g.finish();
}

fn counts(c: &mut Criterion) {
    let Some(fabric) = fatnet_benches::flitsim_fabric("is4_3l_1944n") else {
        return;
    };
    let mut g = c.benchmark_group("fabric_counts");
    g.sample_size(10);
    g.bench_function("is4_3l_1944n", |b| {
        b.iter(|| route_counts(black_box(&fabric)).unwrap().hops.delivered)
    });
    g.finish();
}

criterion_group!(benches, ebb, counts);
criterion_main!(benches);
