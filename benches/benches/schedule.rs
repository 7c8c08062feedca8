//! Leiserson's scheduler (Theorem 1, Corollary 2).
//!
//! Target (issue 3): n = 2^16 processors, |M| = 2^20 messages (16 independent random
//! permutations), < 2 s on one core (goal < 1 s). The other sizes measure the scaling with
//! |M| and n.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use fatnet::offline::leiserson::{FictitiousCapacity, corollary2, theorem1};
use fatnet::topology::{CapacityProfile, FatTree};
use fatnet_benches::replicated_permutations;

fn schedulers(c: &mut Criterion) {
    let mut g = c.benchmark_group("leiserson");
    g.sample_size(10);
    // (lg n, permutations k): |M| = k·n
    for (levels, k) in [(16u32, 16u64), (16, 4), (16, 64), (12, 16), (20, 1)] {
        let n = 1u64 << levels;
        // Leiserson's universal tree with the smallest root capacity ⌈n^(2/3)⌉ rounded to a
        // power of two at or above it.
        let w = (1u64 << (2 * levels).div_ceil(3)).min(n);
        let tree = FatTree::universal(n, w).unwrap();
        let m = replicated_permutations(n as u32, k, 3);
        g.throughput(Throughput::Elements(m.len() as u64));
        g.bench_function(format!("theorem1/n=2^{levels}/M={k}n"), |b| {
            b.iter(|| theorem1(black_box(&tree), black_box(&m)).unwrap().cycles())
        });
        let wide = FatTree::new(n, CapacityProfile::Constant(4 * u64::from(levels))).unwrap();
        g.bench_function(format!("corollary2/n=2^{levels}/M={k}n"), |b| {
            b.iter(|| {
                corollary2(black_box(&wide), black_box(&m), FictitiousCapacity::LgN)
                    .unwrap()
                    .cycles()
            })
        });
    }
    g.finish();
}

criterion_group!(benches, schedulers);
criterion_main!(benches);
