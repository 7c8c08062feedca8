//! Shortest-path computation on every topology: paths per second.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use fatnet::topology::{ChannelId, Topology, TopologySpec};

fn paths(c: &mut Criterion) {
    let mut g = c.benchmark_group("path");
    for spec in [
        "fattree:n=65536,profile=doubling",
        "bft:n=65536",
        "ftree:n=16,m=16,r=32",
        "clos:n=16,m=16,r=32",
        "karyntree:k=4,levels=8",
        "hypercube:d=16",
        "butterfly:d=16",
    ] {
        let topo = spec.parse::<TopologySpec>().unwrap().build().unwrap();
        let n = topo.num_processors();
        // A fixed pseudo-random sequence of pairs (a multiplicative hash), no RNG in the loop.
        let pairs: Vec<(u32, u32)> = (0..4096u32)
            .map(|i| {
                let a = i.wrapping_mul(2_654_435_761) % n;
                let b = (i ^ 0x5bd1_e995).wrapping_mul(2_246_822_519) % n;
                (a, b)
            })
            .collect();
        g.throughput(Throughput::Elements(pairs.len() as u64));
        g.bench_function(spec, |b| {
            let mut out: Vec<ChannelId> = Vec::with_capacity(64);
            b.iter(|| {
                let mut total = 0usize;
                for &(s, d) in &pairs {
                    let k = topo.standard_path_index(s, d);
                    topo.path_into(black_box(s), black_box(d), k, &mut out);
                    total += out.len();
                }
                total
            })
        });
    }
    g.finish();
}

criterion_group!(benches, paths);
criterion_main!(benches);
