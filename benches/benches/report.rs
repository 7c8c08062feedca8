//! The fabric report (`fatnet_fabric::report`) on the 1,944-host fabric `is4_3l_1944n`.
//!
//! Target: the whole report as `fatnet fabric report` makes it (read the files, then
//! `report::assemble` with its defaults: route a seeded random permutation, the analysis of
//! `fatnet fabric check`, the hop histogram, the credit loops, 1,000 random bisections; render
//! the HTML page) in < 5 s. The page's size is printed once.
//! The fabric is read from `../shared/fabrics` (or `$FATNET_FABRICS`); without it the bench
//! prints a notice and measures nothing.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use fatnet_fabric::report::dot;
use fatnet_fabric::{Fabric, LinkLoads, Report, ReportOptions, assemble};

const NAME: &str = "is4_3l_1944n";

/// Everything `fatnet fabric report` does but read the files, parse arguments and write the
/// file: the library's one assembly with its defaults, then the HTML page.
fn full_report(fabric: &Fabric) -> String {
    assemble(fabric, &ReportOptions::default())
        .unwrap()
        .render()
        .unwrap()
}

fn report(c: &mut Criterion) {
    let Some(fabric) = fatnet_benches::flitsim_fabric(NAME) else {
        return;
    };
    let html = full_report(&fabric);
    let d = dot(&fabric, None).unwrap();
    eprintln!(
        "{NAME}: HTML report {} bytes, DOT {} bytes",
        html.len(),
        d.len()
    );
    let mut g = c.benchmark_group("fabric_report");
    g.sample_size(10);
    g.bench_function(format!("{NAME}/read+load+analyze+render"), |b| {
        b.iter(|| {
            let f = fatnet_benches::flitsim_fabric(NAME).unwrap();
            black_box(full_report(&f).len())
        })
    });
    // The drawing alone (levels, ordering, merged lines, the page).
    let n = fabric.ca_order().len() as u32;
    let pairs: Vec<(u32, u32)> = (0..n).map(|i| (i, (i + 1) % n)).collect();
    let load = fabric.traffic_load(&pairs, 0).unwrap();
    g.bench_function(format!("{NAME}/render"), |b| {
        b.iter(|| {
            let mut r = Report::new(black_box(&fabric));
            r.loads = Some(LinkLoads {
                traffic: "shift 1",
                per_link: &load.per_link,
            });
            black_box(r.render().unwrap().len())
        })
    });
    g.bench_function(format!("{NAME}/dot"), |b| {
        b.iter(|| black_box(dot(black_box(&fabric), Some(&load.per_link)).unwrap().len()))
    });
    g.finish();
}

criterion_group!(benches, report);
criterion_main!(benches);
