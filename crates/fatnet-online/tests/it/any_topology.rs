//! `PacketNet::with_routes`: the engine on any `Topology`, and the two route sources.
//!
//! The traced fabrics of `fatnet-fabric` are tested there (this crate does not depend on it);
//! here a hand-made topology whose routes are not shortest paths stands in for one.

use fatnet_online::OnlineError;
use fatnet_online::packet::{
    FlowControl, Injection, MAX_ROUTE_PAIRS, PacketConfig, PacketNet, PathPolicy, QueueCapacity,
    Queueing, RouteSource, ScanPolicy, SinkModel, simulate,
};
use fatnet_topology::{
    AnyTopology, BundleId, ButterflyFatTree, Channel, ChannelId, FoldedClos, Hypercube, Node,
    NodeId, Processor, Topology,
};
use fatnet_traffic::patterns;
use rand::SeedableRng;
use rand_pcg::Pcg64;

/// `ftree(n+m, r)` whose only route between two leaves of one bottom switch climbs to top
/// switch 0 and comes back (4 links where 2 would do); across bottom switches it is the
/// d-mod-m path. `broken` drops the last link of every route.
struct Detour {
    clos: FoldedClos,
    broken: bool,
}

impl Topology for Detour {
    fn name(&self) -> String {
        format!("detour({})", self.clos.name())
    }
    fn num_processors(&self) -> u32 {
        self.clos.num_processors()
    }
    fn num_nodes(&self) -> u32 {
        self.clos.num_nodes()
    }
    fn num_switches(&self) -> u32 {
        self.clos.num_switches()
    }
    fn num_channels(&self) -> u32 {
        self.clos.num_channels()
    }
    fn num_bundles(&self) -> u32 {
        self.clos.num_bundles()
    }
    fn node(&self, v: NodeId) -> Node {
        self.clos.node(v)
    }
    fn channel(&self, c: ChannelId) -> Channel {
        self.clos.channel(c)
    }
    fn bundle_capacity(&self, b: BundleId) -> u64 {
        self.clos.bundle_capacity(b)
    }
    fn injection_node(&self, p: Processor) -> NodeId {
        self.clos.injection_node(p)
    }
    fn ejection_node(&self, p: Processor) -> NodeId {
        self.clos.ejection_node(p)
    }
    fn path_count(&self, _src: Processor, _dst: Processor) -> u128 {
        1
    }
    fn path_into(&self, src: Processor, dst: Processor, index: u128, out: &mut Vec<ChannelId>) {
        assert_eq!(index, 0);
        out.clear();
        if src == dst {
            return;
        }
        let c = &self.clos;
        let (v, w) = (c.bottom_switch(src), c.bottom_switch(dst));
        let t = if v == w { 0 } else { dst % c.m() };
        out.extend([
            c.leaf_up_channel(src),
            c.up_channel(v, t),
            c.down_channel(t, w),
            c.leaf_down_channel(dst),
        ]);
        if self.broken {
            out.pop();
        }
    }
}

fn detour(broken: bool) -> Detour {
    Detour {
        clos: FoldedClos::new(2, 3, 4).unwrap(),
        broken,
    }
}

fn worm(path: PathPolicy) -> PacketConfig {
    PacketConfig {
        path,
        flits: 5,
        record_latencies: true,
        check_conservation: true,
        ..PacketConfig::worm()
    }
}

fn lone(src: Processor, dst: Processor) -> [Injection; 1] {
    [Injection {
        src,
        dst,
        release: 0,
    }]
}

/// A lone worm of `L` flits on a `d`-link route has latency `d + L − 2`: the detour's route
/// between leaves 0 and 1 (one bottom switch) has 4 links under the topology's paths, for
/// every path policy, and the shortest path 2 under shortest-path routes.
#[test]
fn topology_paths_follow_the_route_not_the_shortest_path() {
    let own = PacketNet::with_routes(detour(false), RouteSource::TopologyPaths).unwrap();
    let shortest = PacketNet::with_routes(detour(false), RouteSource::ShortestPaths).unwrap();
    assert_eq!(own.routes(), RouteSource::TopologyPaths);
    assert_eq!(own.max_hops(), 4);
    assert_eq!(own.distance(0, 1), 4);
    assert_eq!(shortest.max_hops(), 4);
    assert_eq!(shortest.distance(0, 1), 2);
    for path in [
        PathPolicy::Random,
        PathPolicy::Greedy,
        PathPolicy::DimensionOrder,
        PathPolicy::Fixed,
        PathPolicy::Standard,
    ] {
        let r = simulate(&own, &lone(0, 1), &worm(path), 3).unwrap();
        assert!(r.finished());
        assert_eq!((r.latency, r.dilation), (4 + 5 - 2, 4), "{path:?}");
        // The source-routed policies take the topology's path under either source.
        let expect: u32 = match path {
            PathPolicy::Fixed | PathPolicy::Standard => 4,
            _ => 2,
        };
        let r = simulate(&shortest, &lone(0, 1), &worm(path), 3).unwrap();
        assert_eq!(
            (r.latency, r.dilation),
            (u64::from(expect) + 5 - 2, expect),
            "{path:?}"
        );
    }
    // Output queues, unit packets: one step per link.
    let out = PacketConfig {
        flits: 1,
        ..PacketConfig::output_queued_unit(ScanPolicy::FixedOrder)
    };
    let r = simulate(&own, &lone(2, 3), &out, 1).unwrap();
    assert_eq!((r.latency, r.dilation), (3, 4));
}

/// Under the topology's paths every policy has one candidate per hop and draws no random
/// number for it: RP, GP, dimension order and the standard path give the same run.
#[test]
fn under_topology_paths_every_policy_is_the_same_run() {
    let net = PacketNet::with_routes(detour(false), RouteSource::TopologyPaths).unwrap();
    let n = net.processors();
    for seed in 0..4u64 {
        let m = patterns::random_permutation(n, &mut Pcg64::seed_from_u64(seed)).unwrap();
        let inj: Vec<Injection> = m
            .iter()
            .map(|(_, x)| Injection {
                src: x.src,
                dst: x.dst,
                release: 0,
            })
            .collect();
        let reference = simulate(&net, &inj, &worm(PathPolicy::Standard), seed).unwrap();
        assert!(reference.finished());
        for path in [
            PathPolicy::Random,
            PathPolicy::Greedy,
            PathPolicy::DimensionOrder,
            PathPolicy::Fixed,
        ] {
            assert_eq!(
                simulate(&net, &inj, &worm(path), seed).unwrap(),
                reference,
                "{path:?}"
            );
        }
    }
}

/// A topology whose route does not reach its destination is refused with the pair, at
/// construction under the topology's paths and when the route is drawn otherwise.
#[test]
fn a_broken_route_is_a_typed_error() {
    match PacketNet::with_routes(detour(true), RouteSource::TopologyPaths) {
        Err(OnlineError::BrokenPath {
            src, dst, index, ..
        }) => {
            assert_eq!((src, dst, index), (0, 1, 0));
        }
        other => panic!("expected BrokenPath, got {other:?}"),
    }
    let net = PacketNet::with_routes(detour(true), RouteSource::ShortestPaths).unwrap();
    assert!(
        simulate(&net, &lone(0, 1), &worm(PathPolicy::Random), 1)
            .unwrap()
            .finished()
    );
    for path in [PathPolicy::Fixed, PathPolicy::Standard] {
        assert!(matches!(
            simulate(&net, &lone(3, 6), &worm(path), 1),
            Err(OnlineError::BrokenPath { src: 3, dst: 6, .. })
        ));
    }
}

/// Checking every route is quadratic in the processors: beyond [`MAX_ROUTE_PAIRS`] ordered
/// pairs the network is refused with the count, before anything is built.
#[test]
fn too_many_routes_to_check_are_refused() {
    let cube = Hypercube::new(14).unwrap(); // 2^14 processors: 2^28 − 2^14 ordered pairs
    match PacketNet::with_routes(cube.clone(), RouteSource::TopologyPaths) {
        Err(OnlineError::TooLarge { value, max, .. }) => {
            assert_eq!((value, max), ((1 << 28) - (1 << 14), MAX_ROUTE_PAIRS));
        }
        other => panic!("expected TooLarge, got {other:?}"),
    }
    // Shortest paths on the hypercube are arithmetic: no table, no check.
    assert_eq!(
        PacketNet::with_routes(cube, RouteSource::ShortestPaths)
            .unwrap()
            .max_hops(),
        14
    );
}

/// `new` and `with_routes` (bare or inside `AnyTopology`) compile the same network: the same
/// runs, on the arithmetic topologies and on a table-routed one, input and output queues.
#[test]
fn with_routes_is_new_for_every_form_of_a_builtin_topology() {
    let configs = [
        worm(PathPolicy::Random),
        PacketConfig {
            flow: FlowControl::StoreAndForward,
            queue: QueueCapacity::Bounded(1),
            ..worm(PathPolicy::Greedy)
        },
        PacketConfig {
            queueing: Queueing::Output,
            flow: FlowControl::StoreAndForward,
            queue: QueueCapacity::Unbounded,
            sink: SinkModel::Immediate,
            ..worm(PathPolicy::Random)
        },
    ];
    let nets = |t: AnyTopology| -> [PacketNet; 3] {
        [
            PacketNet::new(t.clone()).unwrap(),
            PacketNet::with_routes(t.clone(), RouteSource::ShortestPaths).unwrap(),
            match t {
                AnyTopology::ButterflyFatTree(b) => {
                    PacketNet::with_routes(b, RouteSource::ShortestPaths).unwrap()
                }
                AnyTopology::Hypercube(h) => {
                    PacketNet::with_routes(h, RouteSource::ShortestPaths).unwrap()
                }
                AnyTopology::FoldedClos(c) => {
                    PacketNet::with_routes(c, RouteSource::ShortestPaths).unwrap()
                }
                _ => unreachable!(),
            },
        ]
    };
    for t in [
        AnyTopology::from(ButterflyFatTree::new(64).unwrap()),
        AnyTopology::from(Hypercube::new(5).unwrap()),
        AnyTopology::from(FoldedClos::new(3, 2, 5).unwrap()),
    ] {
        let [a, b, c] = nets(t);
        assert_eq!(a.hypercube_dimension(), c.hypercube_dimension());
        let n = a.processors();
        let m = patterns::uniform(n, false, &mut Pcg64::seed_from_u64(9)).unwrap();
        let inj: Vec<Injection> = m
            .iter()
            .map(|(i, x)| Injection {
                src: x.src,
                dst: x.dst,
                release: u64::from(i.0 % 3),
            })
            .collect();
        for config in &configs {
            let r = simulate(&a, &inj, config, 11).unwrap();
            assert!(r.finished());
            assert_eq!(simulate(&b, &inj, config, 11).unwrap(), r);
            assert_eq!(simulate(&c, &inj, config, 11).unwrap(), r);
        }
    }
}
