//! The sweep runner's own cost (issue 8): how many trials per second `run_sweep` sustains when
//! the trials themselves cost almost nothing (a 16-processor butterfly fat-tree, one packet
//! per processor), with results serialized to JSON, appended and fsync'd per batch. Each
//! iteration runs the whole sweep into a fresh directory.
//!
//! No target is stated in the issue; the point is that the runner is negligible next to real
//! trials (a Table I trial at N = 4096 takes about 30 ms).

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use fatnet_repro::sweep::{SweepOptions, SweepSpec, run_sweep};

const TINY: &str = r#"simulator = "packet"
trials = 512
seed = 1

[params]
topology = "bft:n=16"
traffic = "permutation"
flits = 4
"#;

fn runner_overhead(c: &mut Criterion) {
    let spec = SweepSpec::parse(TINY).unwrap();
    let mut group = c.benchmark_group("sweep");
    group.throughput(Throughput::Elements(spec.tasks()));
    group.sample_size(20);
    for batch in [1usize, 64] {
        group.bench_function(format!("tiny_512_trials_batch_{batch}"), |b| {
            b.iter(|| {
                let dir = tempfile::tempdir().unwrap();
                let options = SweepOptions {
                    resume: false,
                    threads: None,
                    batch,
                };
                black_box(run_sweep(&spec, dir.path(), &options).unwrap())
            });
        });
    }
    group.finish();
}

criterion_group!(benches, runner_overhead);
criterion_main!(benches);
