//! How the packet engine scales with N: the batch of the peers' comparison
//! (`docs/bench/peers.md`) — one 32-flit packet per processor to a uniform destination other
//! than itself, wormhole, 2-flit queues, one trial — on Greenberg and Oh's butterfly fat-tree
//! `bft:n=N`, the 4-ary n-tree `karyntree:k=4` and Leiserson's full-bisection binary fat-tree
//! `fattree:n=N,profile=doubling` (a channel at height `h` is `2^h` wires, so its top nodes
//! have tens of thousands of inputs), N = 2^10 … 2^16 on all three.
//!
//! Reported: router traversals per second, a flit passing through one switch
//! (`unit_hops − L·messages`: every path is one link longer than the switches it crosses),
//! and flit-hops per second (`unit_hops`, link crossings; criterion's throughput). The timed
//! run is [`batch_trial`] alone: the network (`PacketNet::new`) and the message set are built
//! once outside it. Networks the engine refuses are reported and skipped (none since the
//! 4-ary n-tree has arithmetic next hops, whose next-hop table was refused from N = 2^14, and
//! the full-bisection fat-tree wakes node-wide, whose wait masks were refused from 2^14).
//!
//! Each network runs in a rayon pool of 1 and of 2 threads (`threads=1`, `threads=2`): a run
//! splits its large steps between the threads of its pool (the same run either way).

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, SamplingMode, Throughput, criterion_group, criterion_main};
use fatnet::online::packet::{PacketConfig, PacketNet, batch_trial};
use fatnet::topology::TopologySpec;
use fatnet::traffic::patterns;
use rand::SeedableRng;
use rand_pcg::Pcg64;

/// The networks: (spec, N).
const NETWORKS: &[(&str, u32)] = &[
    ("bft:n=1024", 1 << 10),
    ("bft:n=4096", 1 << 12),
    ("bft:n=16384", 1 << 14),
    ("bft:n=65536", 1 << 16),
    ("karyntree:k=4,levels=5", 1 << 10),
    ("karyntree:k=4,levels=6", 1 << 12),
    ("karyntree:k=4,levels=7", 1 << 14),
    ("karyntree:k=4,levels=8", 1 << 16),
    ("fattree:n=1024,profile=doubling", 1 << 10),
    ("fattree:n=4096,profile=doubling", 1 << 12),
    ("fattree:n=16384,profile=doubling", 1 << 14),
    ("fattree:n=65536,profile=doubling", 1 << 16),
];

fn scaling(c: &mut Criterion) {
    let mut g = c.benchmark_group("scaling");
    g.sample_size(10);
    // One run per sample: a run at N = 2^16 takes about a second.
    g.sampling_mode(SamplingMode::Flat);
    g.warm_up_time(Duration::from_secs(1));
    g.measurement_time(Duration::from_secs(3));
    // WORM RP-RR, L = 32, q = 2 flits, queue sinks (the CLI's defaults for `--flow worm`).
    let config = PacketConfig {
        check_conservation: false,
        ..PacketConfig::worm()
    };
    for &(spec, n) in NETWORKS {
        let topology = spec
            .parse::<TopologySpec>()
            .unwrap()
            .build()
            .expect("the topology builds");
        let net = match PacketNet::new(topology) {
            Ok(net) => net,
            Err(e) => {
                eprintln!("scaling {spec:<24} N = {n:>6}: refused: {e}");
                continue;
            }
        };
        assert_eq!(net.processors(), n);
        let m = patterns::uniform(n, false, &mut Pcg64::seed_from_u64(5)).unwrap();
        for threads in [1, 2] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .expect("a pool of two threads");
            // A direct measurement beside criterion's: the best of three runs.
            let mut best = Duration::MAX;
            let mut report = None;
            for _ in 0..3 {
                let start = Instant::now();
                let r = pool.install(|| batch_trial(&net, &m, 1, &config, 7).unwrap());
                best = best.min(start.elapsed());
                report = Some(r);
            }
            let r = report.unwrap();
            assert_eq!(r.delivered, r.messages, "{spec}: the batch drains");
            let traversals = r.unit_hops - u64::from(config.flits) * r.messages;
            let secs = best.as_secs_f64();
            eprintln!(
                "scaling {spec:<24} N = {n:>6}, {threads} thread(s): {:.3} s, {} steps, \
                 mean latency {:.1}, {:.1} M router traversals/s, {:.1} M flit-hops/s",
                secs,
                r.steps,
                r.mean_latency,
                traversals as f64 / secs / 1e6,
                r.unit_hops as f64 / secs / 1e6,
            );
            g.throughput(Throughput::Elements(r.unit_hops));
            g.bench_function(format!("worm/{spec}/uniform/threads={threads}"), |b| {
                b.iter(|| {
                    pool.install(|| {
                        batch_trial(&net, black_box(&m), 1, &config, 7)
                            .unwrap()
                            .latency
                    })
                })
            });
        }
    }
    g.finish();
}

criterion_group!(benches, scaling);
criterion_main!(benches);
