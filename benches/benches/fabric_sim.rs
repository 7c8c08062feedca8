//! Flit-by-flit simulation on a real fabric through its forwarding tables.
//!
//! Target: one random permutation on the 1,944-host fabric `is4_3l_1944n` (ib_flit_sim,
//! OpenSM ftree tables), wormhole, simulated flit by flit in < 2 s, through the scenario layer
//! that `fatnet simulate --fabric` runs: the network is read, traced and compiled once
//! (`PacketScenario::prepare`, outside the timed loop), then each iteration is one trial
//! (`PreparedPacket::trial`: draw the permutation, run the engine). A second group times one
//! phase of a collective (the shift-by-one phase of an all-to-all, with its lower bound).
//! The fabric is read from `../shared/fabrics` (or `$FATNET_FABRICS`); without it the bench
//! prints a notice and measures nothing.

use std::hint::black_box;
use std::path::PathBuf;
use std::sync::Arc;

use criterion::{Criterion, criterion_group, criterion_main};
use fatnet::fabric::FabricFiles;
use fatnet::online::packet::FlowControl;
use fatnet::scenario::{CollectiveScenario, Network, PacketOptions, PacketScenario, derive_seed};

fn network(name: &str) -> Option<Network> {
    let dir = std::env::var_os("FATNET_FABRICS").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/fabrics"),
        PathBuf::from,
    );
    let base = dir.join("ib_flit_sim").join(name);
    if !base.is_dir() {
        eprintln!("NOTICE: {} not found; skipping the bench", base.display());
        return None;
    }
    let mut files = FabricFiles::new(base.join(format!("{name}.ned")));
    files.routes = Some(base.join(format!("{name}.fdbs")));
    Some(Network::Fabric(files))
}

fn worm() -> PacketOptions {
    PacketOptions {
        flow: Some(FlowControl::Wormhole),
        ..PacketOptions::default()
    }
}

fn permutation(c: &mut Criterion) {
    let Some(topology) = network("is4_3l_1944n") else {
        return;
    };
    let scenario = PacketScenario {
        topology,
        traffic: "permutation".parse().unwrap(),
        options: worm(),
    };
    let prepared = scenario.prepare(1).unwrap();
    let mut g = c.benchmark_group("fabric_sim_permutation");
    g.sample_size(10);
    let mut i = 0;
    g.bench_function("is4_3l_1944n_worm", |b| {
        b.iter(|| {
            i += 1;
            let r = prepared.trial(derive_seed(1, i)).unwrap();
            assert!(r.finished());
            black_box(r.latency)
        })
    });
    g.finish();
}

fn collective_phase(c: &mut Criterion) {
    let Some(topology) = network("is4_3l_1944n") else {
        return;
    };
    let net = Arc::new(topology.packet_net().unwrap());
    let scenario = CollectiveScenario {
        topology,
        collective: "alltoall:order=shift".parse().unwrap(),
        options: worm(),
    };
    let prepared = scenario.prepare_on(net).unwrap();
    let phase = prepared.phase(0).unwrap();
    let mut g = c.benchmark_group("fabric_sim_collective_phase");
    g.sample_size(10);
    g.bench_function("is4_3l_1944n_shift1_worm", |b| {
        b.iter(|| {
            let p = prepared.run_phase(0, &phase, 1).unwrap();
            black_box(p.steps.unwrap())
        })
    });
    g.finish();
}

criterion_group!(benches, permutation, collective_phase);
criterion_main!(benches);
