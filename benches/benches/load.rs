//! Load factor on the binary fat-tree: the `O(|M| + n)` computation against path walking.
//!
//! Target (issue 2): n = 2^20 processors, a random permutation replicated 4× (4·2^20
//! messages), ≥ 30 M messages/s on one core.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use fatnet::load::{LoadReport, PathSelection, channel_loads, fat_tree_loads};
use fatnet_benches::{doubling_tree, replicated_permutations};

fn load_factor(c: &mut Criterion) {
    let mut g = c.benchmark_group("fat_tree_load_factor");
    g.sample_size(20);
    for levels in [10u32, 16, 20] {
        let tree = doubling_tree(levels);
        let m = replicated_permutations(tree.n(), 4, 7);
        g.throughput(Throughput::Elements(m.len() as u64));
        g.bench_function(format!("fast/n=2^{levels}/perm_x4"), |b| {
            b.iter(|| {
                let loads = fat_tree_loads(black_box(&tree), black_box(&m)).unwrap();
                LoadReport::for_fat_tree(&tree, loads).load_factor
            })
        });
        if levels <= 16 {
            g.bench_function(format!("path_walk/n=2^{levels}/perm_x4"), |b| {
                b.iter(|| {
                    channel_loads(black_box(&tree), black_box(&m), PathSelection::First).unwrap()
                })
            });
        }
    }
    g.finish();
}

criterion_group!(benches, load_factor);
criterion_main!(benches);
