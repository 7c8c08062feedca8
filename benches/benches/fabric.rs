//! Route tracing through real forwarding tables (issue 7).
//!
//! Target: the whole analysis of the 1,944-host fabric `is4_3l_1944n` (ib_flit_sim, 270
//! switch chips, tables from OpenSM's ftree) in < 10 s, so tracing all 1944·1943 ≈ 3.8 M
//! routes should take about 1 s. The fabric is read from `../shared/fabrics` (or
//! `$FATNET_FABRICS`); without it the bench prints a notice and measures nothing.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use fatnet_fabric::{Fabric, analyze};

fn load(name: &str) -> Option<Fabric> {
    fatnet_benches::flitsim_fabric(name)
}

fn trace_all(c: &mut Criterion) {
    let Some(fabric) = load("is4_3l_1944n") else {
        return;
    };
    let mut g = c.benchmark_group("fabric_trace_all");
    g.sample_size(10);
    let n = fabric.ca_order().len() as u64;
    g.throughput(Throughput::Elements(n * (n - 1)));
    g.bench_function("is4_3l_1944n", |b| {
        b.iter(|| black_box(&fabric).trace_all())
    });
    g.finish();
}

/// The whole analysis: all routes traced and filed per link, Lemma 1, the exact worst-case
/// contention of every link (a maximum matching each) and all 1,943 cyclic shifts.
fn analysis(c: &mut Criterion) {
    let Some(fabric) = load("is4_3l_1944n") else {
        return;
    };
    let mut g = c.benchmark_group("fabric_analyze");
    g.sample_size(10);
    let n = fabric.ca_order().len() as u64;
    g.throughput(Throughput::Elements(n * (n - 1)));
    g.bench_function("is4_3l_1944n", |b| {
        b.iter(|| analyze(black_box(&fabric)).unwrap().worst.contention)
    });
    g.finish();
}

fn read(c: &mut Criterion) {
    if load("is4_3l_1944n").is_none() {
        return;
    }
    let mut g = c.benchmark_group("fabric_read");
    g.sample_size(10);
    g.bench_function("is4_3l_1944n", |b| b.iter(|| load("is4_3l_1944n").unwrap()));
    g.finish();
}

criterion_group!(benches, trace_all, analysis, read);
criterion_main!(benches);
