//! One failure what-if draw on the 1,944-host fabric `is4_3l_1944n` (ib_flit_sim, OpenSM
//! ftree tables): remove one random switch-to-switch link (`Fabric::without`), re-route with
//! the built-in minhop (`routing::route`), and compute every metric after
//! (`failures::metrics`: all 3.78 M routes traced and filed, Lemma 1, the exact worst case
//! per link, all cyclic shifts, connectivity). The stale-table metrics of a draw cost one
//! more `metrics`. The fabric is read from `../shared/fabrics` (or `$FATNET_FABRICS`);
//! without it the bench prints a notice and measures nothing.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use fatnet_fabric::failures::{FailureSpec, draw_removal, metrics};
use fatnet_fabric::routing::{Engine, route};

fn one_draw(c: &mut Criterion) {
    let Some(fabric) = fatnet_benches::flitsim_fabric("is4_3l_1944n") else {
        return;
    };
    let spec = FailureSpec::Links {
        count: 1,
        ca_links: false,
    };
    let mut g = c.benchmark_group("failures_one_draw");
    g.sample_size(10);
    let mut draw = 0u32;
    g.bench_function("is4_3l_1944n_link_minhop", |b| {
        b.iter(|| {
            draw += 1;
            let removal = draw_removal(&fabric, &spec, 1, draw).unwrap();
            let damaged = fabric.without(&removal).unwrap();
            let routed = route(&damaged, Engine::MinHop).unwrap();
            black_box(metrics(&routed).unwrap().worst_contention)
        })
    });
    g.bench_function("is4_3l_1944n_minhop_only", |b| {
        b.iter(|| route(black_box(&fabric), Engine::MinHop).unwrap())
    });
    g.finish();
}

criterion_group!(benches, one_draw);
criterion_main!(benches);
