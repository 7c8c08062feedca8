//! What an idle network costs the packet engine: one worm from processor 0 to processor
//! N − 1 on Greenberg and Oh's butterfly fat-tree `bft:n=N`, N = 2^10 … 2^18, the rest of the
//! network empty. The engine keeps its active nodes and its ejection queues to drain as bit
//! sets with a summary word per 4,096 (`Marks` in the step loop), so a step costs its work
//! plus one read per 4,096 nodes or links: the time per step should stay flat as N grows
//! 256-fold. Before the summaries every step read every word of both sets (N/64 + links/64
//! words).
//!
//! A run also allocates and initialises its state, O(links) once: the per-step cost is the
//! difference of a 9,216-flit and a 1,024-flit worm's run times over the difference of their
//! steps (best of five each). Criterion times the long run, the network built once outside.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, SamplingMode, criterion_group, criterion_main};
use fatnet::online::packet::{Injection, PacketConfig, PacketNet, simulate};
use fatnet::topology::TopologySpec;

const SIZES: &[u32] = &[1 << 10, 1 << 12, 1 << 14, 1 << 16, 1 << 18];

fn idle(c: &mut Criterion) {
    let mut g = c.benchmark_group("idle");
    g.sample_size(10);
    g.sampling_mode(SamplingMode::Flat);
    g.warm_up_time(Duration::from_millis(500));
    g.measurement_time(Duration::from_secs(2));
    let config = |flits| PacketConfig {
        check_conservation: false,
        flits,
        ..PacketConfig::worm()
    };
    let (short, long) = (config(1024), config(9216));
    for &n in SIZES {
        let spec = format!("bft:n={n}");
        let topology = spec.parse::<TopologySpec>().unwrap().build().unwrap();
        let net = PacketNet::new(topology).unwrap();
        let injections = [Injection {
            src: 0,
            dst: n - 1,
            release: 0,
        }];
        let best = |config: &PacketConfig| {
            let mut best = Duration::MAX;
            let mut steps = 0;
            for _ in 0..5 {
                let start = Instant::now();
                let r = simulate(&net, &injections, config, 1).unwrap();
                best = best.min(start.elapsed());
                assert_eq!(r.delivered, 1, "{spec}: the worm arrives");
                steps = r.steps;
            }
            (best.as_secs_f64(), steps)
        };
        let ((t0, s0), (t1, s1)) = (best(&short), best(&long));
        eprintln!(
            "idle {spec:<14} links = {:>8}: {:.1} ns per step ({} − {} steps), \
             {:.2} ms per run besides",
            net.links(),
            (t1 - t0) / (s1 - s0) as f64 * 1e9,
            s1,
            s0,
            (t0 - (t1 - t0) / (s1 - s0) as f64 * s0 as f64) * 1e3,
        );
        g.bench_function(format!("one-worm/{spec}"), |b| {
            b.iter(|| {
                simulate(&net, black_box(&injections), &long, 1)
                    .unwrap()
                    .steps
            })
        });
    }
    g.finish();
}

criterion_group!(benches, idle);
criterion_main!(benches);
