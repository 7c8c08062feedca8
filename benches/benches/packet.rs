//! The synchronous packet engine on Greenberg and Oh's workloads.
//!
//! Target (issue 5): ≥ 30 M flit-hops per second on one core for WORM RP-RR on N = 4096
//! random instances. A flit-hop is one flit (one packet for STORE) crossing one link; the
//! throughput is the run's own count of them over its wall time, the run including the
//! engine's per-run set-up (allocating queues and worm records for N = 4096).

use std::hint::black_box;

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, Criterion, Throughput, criterion_group, criterion_main};
use fatnet::online::RunProtocol;
use fatnet::online::direct_broadcast::{DirectConfig, DirectScheme};
use fatnet::online::packet::{
    FlowControl, Injection, MulticastTree, PacketConfig, PacketNet, PathPolicy, QueueCapacity,
    Queueing, RouteSource, SinkModel, batch_trial, multicast_trial, simulate,
};
use fatnet::topology::{ButterflyFatTree, Hypercube};
use fatnet::traffic::{MessageSet, patterns};
use fatnet_fabric::FabricTopology;
use rand::SeedableRng;
use rand_pcg::Pcg64;

/// Benchmark `id`: one batch of `m` on `net` under `config` (without conservation checks), one
/// delay draw, seed 7; its throughput is the flit-hops of a first run.
fn bench_batch(
    g: &mut BenchmarkGroup<'_, WallTime>,
    id: String,
    net: &PacketNet,
    m: &MessageSet,
    config: PacketConfig,
) {
    let config = PacketConfig {
        check_conservation: false,
        ..config
    };
    let hops = batch_trial(net, m, 1, &config, 7).unwrap().unit_hops;
    g.throughput(Throughput::Elements(hops));
    g.bench_function(id, |b| {
        b.iter(|| {
            batch_trial(net, black_box(m), 1, &config, 7)
                .unwrap()
                .latency
        })
    });
}

fn greenberg_oh(c: &mut Criterion) {
    let mut g = c.benchmark_group("packet_engine");
    g.sample_size(10);
    for n in [1024u64, 4096] {
        let net = PacketNet::new(ButterflyFatTree::new(n).unwrap()).unwrap();
        let m = patterns::uniform(n as u32, false, &mut Pcg64::seed_from_u64(5)).unwrap();
        for (name, config) in [
            ("worm_rp_rr", PacketConfig::worm()),
            ("store_rp_rr", PacketConfig::store()),
            ("split_rp_rr", PacketConfig::split()),
        ] {
            bench_batch(&mut g, format!("{name}/bft_n={n}/random"), &net, &m, config);
        }
    }
    g.finish();
}

/// Deep queues (more than 4 flits, held in the engine's `Rings`): WORM RP-RR, 32-flit worms
/// on the 4-ary 6-tree (4,096 processors), one message a processor to a uniform destination
/// other than itself, queues of 2 (the inline records, for comparison), 8 and 16 flits.
fn deep_queues(c: &mut Criterion) {
    let mut g = c.benchmark_group("packet_engine_deep_queues");
    g.sample_size(10);
    let net = PacketNet::new(fatnet::topology::KAryNTree::new(4, 6).unwrap()).unwrap();
    let m = patterns::uniform(4096, false, &mut Pcg64::seed_from_u64(5)).unwrap();
    for q in [2, 8, 16] {
        let config = PacketConfig {
            queue: QueueCapacity::Bounded(q),
            ..PacketConfig::worm()
        };
        let id = format!("worm_rp_rr_q{q}/karyntree_k=4_n=6/random");
        bench_batch(&mut g, id, &net, &m, config);
    }
    g.finish();
}

/// Multicast: every node of the 8-cube broadcasts one unit packet along its shortest-path
/// tree (store-and-forward, unbounded queues, absorbed on arrival): 65,280 packet-hops of
/// copying per run.
fn broadcast(c: &mut Criterion) {
    let mut g = c.benchmark_group("packet_engine_multicast");
    g.sample_size(10);
    let net = PacketNet::new(Hypercube::new(8).unwrap()).unwrap();
    let n = net.processors();
    let trees: Vec<MulticastTree> = (0..n)
        .map(|s| {
            let dsts: Vec<u32> = (0..n).filter(|&p| p != s).collect();
            MulticastTree::shortest_paths(&net, s, &dsts).unwrap()
        })
        .collect();
    let config = PacketConfig {
        flow: FlowControl::StoreAndForward,
        flits: 1,
        queue: QueueCapacity::Unbounded,
        sink: SinkModel::Immediate,
        check_conservation: false,
        ..PacketConfig::default()
    };
    let hops = multicast_trial(&net, &trees, 1, &config, 7)
        .unwrap()
        .unit_hops;
    g.throughput(Throughput::Elements(hops));
    g.bench_function("store_all_to_all_broadcast/hypercube_d=8", |b| {
        b.iter(|| {
            multicast_trial(&net, black_box(&trees), 1, &config, 7)
                .unwrap()
                .latency
        })
    });
    g.finish();
}

/// Output queues (Stamoulis' greedy routing): on the 12-cube every node injects one packet
/// per step for 200 steps, destinations by flipping each bit with probability 1/2
/// (ρ = λp = 0.5), dimension order, random ties.
fn output_queues(c: &mut Criterion) {
    let mut g = c.benchmark_group("packet_engine_output_queues");
    g.sample_size(10);
    let d = 12;
    let net = PacketNet::new(Hypercube::new(d).unwrap()).unwrap();
    let n = net.processors();
    let mut rng = Pcg64::seed_from_u64(3);
    let mut injections = Vec::new();
    for step in 0..200 {
        let m = patterns::bit_flip(n, 0.5, &mut rng).unwrap();
        injections.extend(m.iter().map(|(_, m)| Injection {
            src: m.src,
            dst: m.dst,
            release: step,
        }));
    }
    let config = PacketConfig {
        queueing: Queueing::Output,
        flow: FlowControl::StoreAndForward,
        path: PathPolicy::DimensionOrder,
        flits: 1,
        queue: QueueCapacity::Unbounded,
        sink: SinkModel::Immediate,
        check_conservation: false,
        ..PacketConfig::default()
    };
    let hops = simulate(&net, &injections, &config, 7).unwrap().unit_hops;
    g.throughput(Throughput::Elements(hops));
    g.bench_function("greedy_dor/hypercube_d=12/rho=0.5", |b| {
        b.iter(|| {
            simulate(&net, black_box(&injections), &config, 7)
                .unwrap()
                .latency
        })
    });
    g.finish();
}

/// Stamoulis' efficient direct broadcast scheme (§6.3.3) on the 8-cube at ρ = 0.8: every
/// packet is copied along one of its origin's 8 rotated binomial trees, on FIFO output queues,
/// for 2,000 slots (Figure 7.6's and Table 6.1's hot loop: about 0.9 M copy-hops a run).
/// Throughput in copy-hops (the run's `packet_hops`), including the run's set-up (building the
/// 2,048 trees).
fn direct_broadcast(c: &mut Criterion) {
    let mut g = c.benchmark_group("packet_engine_direct_broadcast");
    g.sample_size(10);
    let scheme = DirectScheme::new(8).unwrap();
    let config = DirectConfig {
        rho: 0.8,
        protocol: RunProtocol::slots(200, 2_000, 20),
        seed: 7,
    };
    let hops = scheme.simulate(&config).unwrap().packet_hops;
    g.throughput(Throughput::Elements(hops));
    g.bench_function("rotated_trees/hypercube_d=8/rho=0.8", |b| {
        b.iter(|| scheme.simulate(black_box(&config)).unwrap().delay_mean)
    });
    g.finish();
}

/// A traced fabric: ib_flit_sim's `is4_3l_1944n` (1,944 HCAs, 270 switch chips, OpenSM ftree
/// tables) routed through its tables (`RouteSource::TopologyPaths`): compiling the network
/// (`FabricTopology::new` traces and `PacketNet::with_routes` re-walks all 1944·1943 routes),
/// and one random permutation, WORM (L = 32, q = 2) and STORE (q = 1), from release to the
/// last delivery.
fn fabric(c: &mut Criterion) {
    let Some(fabric) = fatnet_benches::flitsim_fabric("is4_3l_1944n") else {
        return;
    };
    let mut g = c.benchmark_group("packet_engine_fabric");
    g.sample_size(10);
    let compile = || {
        let topology = FabricTopology::new(&fabric).unwrap();
        PacketNet::with_routes(topology, RouteSource::TopologyPaths).unwrap()
    };
    g.bench_function("compile/is4_3l_1944n", |b| b.iter(|| compile().max_hops()));
    let net = compile();
    let n = net.processors();
    let m = patterns::random_permutation(n, &mut Pcg64::seed_from_u64(5)).unwrap();
    for (name, config) in [
        ("worm", PacketConfig::worm()),
        ("store", PacketConfig::store()),
    ] {
        bench_batch(
            &mut g,
            format!("{name}/is4_3l_1944n/permutation"),
            &net,
            &m,
            config,
        );
    }
    g.finish();
}

criterion_group!(
    benches,
    greenberg_oh,
    deep_queues,
    broadcast,
    output_queues,
    direct_broadcast,
    fabric
);
criterion_main!(benches);
