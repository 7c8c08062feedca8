//! The packet engine of `fatnet-online` on fabrics, routing through their forwarding tables
//! (`PacketNet::with_routes(FabricTopology, RouteSource::TopologyPaths)`): exact equality with
//! the generated folded Clos routed d-mod-m, and runs on the ib_flit_sim fabrics and OpenSM's
//! dumps checked against route lengths counted by `Fabric::trace` and by a breadth-first search
//! over the cables.

use std::collections::VecDeque;

use fatnet_fabric::{Fabric, FabricTopology, from_folded_clos};
use fatnet_offline::clos::DModM;
use fatnet_online::packet::{
    FlowControl, Injection, PacketConfig, PacketNet, PacketReport, PathPolicy, QueueCapacity,
    Queueing, RouteSource, ScanPolicy, SinkModel, simulate,
};
use fatnet_topology::{FoldedClos, NodeId, Topology};
use fatnet_traffic::{MessageSet, patterns};
use rand::SeedableRng;
use rand_pcg::Pcg64;

use crate::shared::{fabrics_dir, flitsim};
use crate::topology::fixture;

/// The fabric's tables as the engine's routes.
fn fabric_net(f: &Fabric) -> PacketNet {
    PacketNet::with_routes(FabricTopology::new(f).unwrap(), RouteSource::TopologyPaths).unwrap()
}

fn injections(m: &MessageSet) -> Vec<Injection> {
    m.iter()
        .map(|(_, x)| Injection {
            src: x.src,
            dst: x.dst,
            release: 0,
        })
        .collect()
}

fn worm(flits: u32) -> PacketConfig {
    PacketConfig {
        flits,
        record_latencies: true,
        check_conservation: true,
        ..PacketConfig::worm()
    }
}

fn store(flits: u32) -> PacketConfig {
    PacketConfig {
        flits,
        record_latencies: true,
        check_conservation: true,
        ..PacketConfig::store()
    }
}

/// Output queues (Stamoulis' model) with `scan` ordering the joiners of a queue.
fn output(scan: ScanPolicy) -> PacketConfig {
    PacketConfig {
        queueing: Queueing::Output,
        flow: FlowControl::StoreAndForward,
        scan,
        flits: 1,
        queue: QueueCapacity::Unbounded,
        sink: SinkModel::Immediate,
        record_latencies: true,
        check_conservation: true,
        ..PacketConfig::default()
    }
}

/// Hops of the route from processor `s` to `d`, counted by `Fabric::trace` (not by the
/// topology the engine uses).
fn traced_hops(f: &Fabric, s: u32, d: u32) -> u64 {
    let order = f.ca_order();
    f.trace(order[s as usize], order[d as usize]).unwrap().len() as u64
}

/// Hop distances over the cables from processor `s` to every node (a BFS that knows nothing
/// of the tables).
fn cable_distances(f: &Fabric, s: u32) -> Vec<u64> {
    let mut dist = vec![u64::MAX; f.nodes().len()];
    let start = f.ca_order()[s as usize];
    dist[start.index()] = 0;
    let mut queue = VecDeque::from([start]);
    while let Some(v) = queue.pop_front() {
        for (_, e) in f.neighbours(v) {
            if dist[e.node.index()] == u64::MAX {
                dist[e.node.index()] = dist[v.index()] + 1;
                queue.push_back(e.node);
            }
        }
    }
    dist
}

/// A run of `m` on the fabric's tables finishes, and its flit-hops, dilation and lone-worm
/// latencies are those of the traced routes.
fn check_permutation(
    name: &str,
    f: &Fabric,
    net: &PacketNet,
    m: &MessageSet,
    config: &PacketConfig,
) {
    let r = simulate(net, &injections(m), config, 1).unwrap();
    assert!(r.finished(), "{name}: {:?}", r.outcome);
    assert_eq!(r.delivered, m.len() as u64, "{name}");
    let hops: Vec<u64> = m
        .iter()
        .map(|(_, x)| traced_hops(f, x.src, x.dst))
        .collect();
    // Flit-hops for wormhole, packet-hops for store-and-forward.
    let per_hop = match config.flow {
        FlowControl::StoreAndForward => 1,
        _ => u64::from(config.flits),
    };
    assert_eq!(r.unit_hops, per_hop * hops.iter().sum::<u64>(), "{name}");
    assert_eq!(u64::from(r.dilation), *hops.iter().max().unwrap(), "{name}");
    // Every message waits at least its uncontended latency.
    let lat = r.latencies.as_ref().unwrap();
    for (i, &h) in hops.iter().enumerate() {
        if h > 0 {
            assert!(lat[i] >= lone_latency(config, h), "{name}: message {i}");
        }
    }
}

/// The latency of a message alone on a route of `hops` links: `hops + L − 2` for a worm,
/// `(hops − 1)·L` for a store-and-forward packet (flit-steps, the engine's counting).
fn lone_latency(config: &PacketConfig, hops: u64) -> u64 {
    let l = u64::from(config.flits);
    match config.flow {
        FlowControl::StoreAndForward => (hops - 1) * l,
        _ => hops + l - 2,
    }
}

/// `from_folded_clos` with d-mod-m tables and the built-in `FoldedClos` routed by its standard
/// path (d-mod-m) are the same network to the engine: every report is equal, per-message
/// latencies included, for wormhole and store-and-forward on input queues (RR and FF scans)
/// and for output queues (fixed-order ties), on permutations and uniform traffic.
///
/// Why they can be equal, and the numbering checked below: `from_folded_clos` adds the leaves
/// `H0..` first (so CA order is leaf order and processor `x` is leaf `x` on both sides), then
/// the bottom switches, then the tops, so `FabricTopology`'s nodes (processors, then switches
/// in node order) are `FoldedClos`'s node ids; links are channels, and although the two number
/// channels differently, the links entering each node come in the same relative order (leaf up
/// links by leaf, then top down links by top), which is the order a node scans its inputs and
/// the order in which output queues receive packets in transit.
///
/// Not compared sample by sample: output queues with random ties (RR, oldest-first), which
/// shuffle all of a step's joiners as one list kept in link-id order, so that a different
/// channel numbering gives a different (equally likely) order: on `ftree(3+2, 5)` with seed 0
/// the oldest-first runs differ in two latencies. They agree in law, not draw by draw.
#[test]
fn a_d_mod_m_fabric_runs_exactly_as_the_folded_clos_routed_d_mod_m() {
    let standard = |c: PacketConfig| PacketConfig {
        path: PathPolicy::Standard,
        ..c
    };
    let configs = [
        standard(worm(4)),
        standard(store(3)),
        PacketConfig {
            scan: ScanPolicy::FarthestFirst,
            ..standard(worm(2))
        },
        standard(output(ScanPolicy::FixedOrder)),
    ];
    for (n, m, r) in [(2, 4, 4), (3, 2, 5), (4, 3, 6)] {
        let clos = FoldedClos::new(n, m, r).unwrap();
        let fabric = from_folded_clos(&clos, &DModM::new(&clos)).unwrap();
        let topo = FabricTopology::new(&fabric).unwrap();
        let p = clos.num_processors();
        assert_eq!(topo.num_processors(), p);
        assert_eq!(topo.num_nodes(), clos.num_nodes());
        for x in 0..p {
            let ca = fabric.ca_order()[x as usize];
            assert_eq!(fabric.node(ca).name(), format!("H{x}"));
            assert_eq!(topo.topology_node(ca), Some(NodeId(x)));
        }
        // Node for node, the traced route is the d-mod-m path.
        let nodes = |t: &dyn Topology, s, d| -> Vec<NodeId> {
            let mut path = Vec::new();
            t.path_into(s, d, t.standard_path_index(s, d), &mut path);
            path.iter().map(|&c| t.channel(c).to).collect()
        };
        for s in 0..p {
            for d in 0..p {
                assert_eq!(nodes(&topo, s, d), nodes(&clos, s, d), "{s} -> {d}");
            }
        }
        let fab = PacketNet::with_routes(topo, RouteSource::TopologyPaths).unwrap();
        let built = PacketNet::with_routes(clos, RouteSource::ShortestPaths).unwrap();
        let mut cases = 0;
        for seed in 0..3u64 {
            let mut rng = Pcg64::seed_from_u64(seed);
            for traffic in [
                patterns::random_permutation(p, &mut rng).unwrap(),
                patterns::uniform(p, false, &mut rng).unwrap(),
            ] {
                let inj = injections(&traffic);
                for config in &configs {
                    let a: PacketReport = simulate(&built, &inj, config, seed).unwrap();
                    let b = simulate(&fab, &inj, config, seed).unwrap();
                    assert!(a.finished());
                    assert_eq!(a.latencies.as_ref().unwrap().len(), inj.len());
                    assert_eq!(a, b, "ftree({n}+{m}, {r}), seed {seed}, {config:?}");
                    // RP on the fabric has one candidate per hop: the same run again.
                    let rp = PacketConfig {
                        path: PathPolicy::Random,
                        ..*config
                    };
                    assert_eq!(simulate(&fab, &inj, &rp, seed).unwrap(), a);
                    cases += 1;
                }
            }
        }
        assert_eq!(cases, 3 * 2 * configs.len());
    }
}

/// ib_flit_sim's 32-node fabric (OpenSM ftree tables, 3 levels of 8-port switches): a lone
/// worm's latency is (hops of its traced route) + L − 2, a lone store-and-forward packet's
/// (hops − 1)·L; the hop counts agree with a breadth-first search over the cables (ftree's
/// routes are shortest: 2, 4 or 6 hops), and the shortest-path engine gives the same lone
/// latencies. Random permutations finish with the traced routes' flit-hops.
#[test]
fn is1_3l_32n_routes_through_its_tables() {
    let Some(dir) = fabrics_dir() else { return };
    let (f, _) = flitsim(&dir, "is1_3l_32n");
    let net = fabric_net(&f);
    let shortest =
        PacketNet::with_routes(FabricTopology::new(&f).unwrap(), RouteSource::ShortestPaths)
            .unwrap();
    assert_eq!((net.processors(), net.max_hops()), (32, 6));
    let mut by_hops = [0u32; 7];
    for s in [0u32, 5, 17, 31] {
        let dist = cable_distances(&f, s);
        for d in 0..32 {
            if d == s {
                continue;
            }
            let hops = traced_hops(&f, s, d);
            assert_eq!(hops, dist[f.ca_order()[d as usize].index()], "{s} -> {d}");
            by_hops[hops as usize] += 1;
            for config in [worm(8), store(4)] {
                let lone = [Injection {
                    src: s,
                    dst: d,
                    release: 0,
                }];
                let r = simulate(&net, &lone, &config, 0).unwrap();
                assert_eq!(r.latency, lone_latency(&config, hops), "{s} -> {d}");
                assert_eq!(u64::from(r.dilation), hops);
                let r = simulate(&shortest, &lone, &config, 0).unwrap();
                assert_eq!(r.latency, lone_latency(&config, hops), "{s} -> {d}");
            }
        }
    }
    // Per source 3 partners on its leaf, 4 more under its level-2 pair, 24 across the top.
    assert_eq!(by_hops, [0, 0, 4 * 3, 0, 4 * 4, 0, 4 * 24]);
    for seed in 0..3 {
        let m = patterns::random_permutation(32, &mut Pcg64::seed_from_u64(seed)).unwrap();
        for config in [worm(8), store(4), output(ScanPolicy::RoundRobin)] {
            check_permutation("is1_3l_32n", &f, &net, &m, &config);
        }
    }
}

/// ib_flit_sim's 1,944-node fabric (108 leaf switches, 3 directors: 270 chips): one random
/// permutation, wormhole, finishes with the traced routes' flit-hops and dilation.
#[test]
fn is4_3l_1944n_runs_a_permutation_through_its_tables() {
    let Some(dir) = fabrics_dir() else { return };
    let (f, _) = flitsim(&dir, "is4_3l_1944n");
    let net = fabric_net(&f);
    assert_eq!(
        (net.processors(), net.nodes(), net.max_hops()),
        (1944, 2214, 6)
    );
    let m = patterns::random_permutation(1944, &mut Pcg64::seed_from_u64(1)).unwrap();
    check_permutation("is4_3l_1944n", &f, &net, &m, &worm(8));
}

/// OpenSM's tables (committed dumps of `ftree(3+9, 12)`, engines ftree, updn and minhop): lone
/// worms take (traced hops) + L − 2, and random permutations finish with the traced routes'
/// unit hops, wormhole and store-and-forward.
#[test]
fn opensm_dumps_route_the_engine() {
    for engine in ["ftree", "updn", "minhop"] {
        let f = fixture("ftree-3-9-12", engine);
        let net = fabric_net(&f);
        let p = net.processors();
        assert_eq!(p, 36);
        for (s, d) in [(0, 1), (0, 35), (7, 20), (35, 3)] {
            let hops = traced_hops(&f, s, d);
            let lone = [Injection {
                src: s,
                dst: d,
                release: 0,
            }];
            let r = simulate(&net, &lone, &worm(6), 0).unwrap();
            assert_eq!(r.latency, hops + 6 - 2, "{engine}: {s} -> {d}");
        }
        let m = patterns::random_permutation(p, &mut Pcg64::seed_from_u64(4)).unwrap();
        for config in [worm(6), store(2)] {
            check_permutation(engine, &f, &net, &m, &config);
        }
    }
}
