//! Properties of the synchronous packet engine (`fatnet_online::packet`): conservation, the
//! lower bounds of Greenberg–Oh's counting, exact pipelines, the complement's load factor,
//! determinism, the hypercube, and deadlock detection.
//!
//! # The lower bounds, derived under the engine's 0-based counting
//!
//! A message released at step `r` joins its source's injection queue at `r` and may move in
//! step `r`; a link carries at most one unit per step; a message is delivered in the step in
//! which its last unit crosses its last link, and its latency is that step minus `r` (times
//! `L` for store-and-forward, whose steps are packet-steps).
//!
//! - **Dilation.** Unit `j` (0-based) of a worm crosses the `i`-th link (1-based) of its path
//!   no earlier than step `r + (i − 1) + j`: the units leave the source one per step, in order,
//!   and each link takes a step. For a wormhole worm the tail (`j = L − 1`) crosses link
//!   `d_i` at `≥ r + d_i + L − 2`, so **latency ≥ d_i + L − 2** (the lone worm attains it).
//!   For split the `L` one-flit worms all cross the processor's single up-link (one wire on
//!   the butterfly fat-tree), the last one no earlier than `r + L − 1`, and `d_i − 1` links
//!   remain: the same bound. For store-and-forward (`j = 0` only) the packet is delivered at
//!   `≥ r + d_i − 1` packet-steps: **latency ≥ (d_i − 1)·L**.
//! - **Congestion.** The realized congestion `c` is the largest number of worms whose head
//!   crossed one link `e`; every one of their `u` units crosses `e` (`u = L` for wormhole,
//!   `1` for store-and-forward and for split, whose `c` counts flits), one per step, the
//!   first no earlier than `r_min`, the earliest release among messages that leave their
//!   source. The last crossing is at `≥ r_min + c·u − 1`, and that worm's delivery is no
//!   earlier: **last delivery step ≥ r_min + c·u − 1**, i.e. `latency ≥ c·L − 1` for a
//!   wormhole batch released at 0 (the paper's `cL` lower bound with its `−1` for 0-based
//!   steps), `≥ (c − 1)·L` for store-and-forward and `≥ c − 1` for split.
//!
//! Both are bounds on the report's `latency` (the 0-based step of the last delivery, in
//! flit-steps), which must also equal `max_i (r_i·step + latency_i)` exactly.

use std::sync::OnceLock;

use fatnet_load::{PathSelection, analyze};
use fatnet_online::packet::{
    FlowControl, Injection, Outcome, PacketConfig, PacketNet, PacketReport, PathPolicy,
    QueueCapacity, ScanPolicy, SinkModel, batch_trial, simulate,
};
use fatnet_topology::{AnyTopology, ButterflyFatTree, Hypercube};
use fatnet_traffic::{MessageSet, patterns};
use proptest::prelude::*;

const FLOWS: [FlowControl; 3] = [
    FlowControl::Wormhole,
    FlowControl::StoreAndForward,
    FlowControl::Split,
];

const PATHS: [PathPolicy; 5] = [
    PathPolicy::Fixed,
    PathPolicy::Random,
    PathPolicy::Greedy,
    PathPolicy::DimensionOrder,
    PathPolicy::Standard,
];

fn scans(range: u32) -> [ScanPolicy; 5] {
    [
        ScanPolicy::RoundRobin,
        ScanPolicy::FixedOrder,
        ScanPolicy::FarthestFirst,
        ScanPolicy::OldestFirst,
        ScanPolicy::RandomPriority { range },
    ]
}

/// The butterfly fat-trees on 16 and 64 processors, compiled once.
fn bft(n: u32) -> &'static PacketNet {
    static NETS: OnceLock<[PacketNet; 2]> = OnceLock::new();
    let nets = NETS.get_or_init(|| {
        [16u64, 64].map(|n| PacketNet::new(ButterflyFatTree::new(n).unwrap()).unwrap())
    });
    match n {
        16 => &nets[0],
        64 => &nets[1],
        _ => unreachable!("only N = 16 and 64 are cached"),
    }
}

fn hypercube(d: u32) -> PacketNet {
    PacketNet::new(Hypercube::new(u64::from(d)).unwrap()).unwrap()
}

/// A random message set on `n` processors, with self-messages (kind 0), duplicates (kind 1,
/// pushed twice) and release steps in `0..30`.
fn injections(n: u32, max: usize) -> impl Strategy<Value = Vec<Injection>> {
    prop::collection::vec((0..n, 0..n, 0u8..5, 0u64..30), 0..max).prop_map(|raw| {
        let mut out = Vec::new();
        for (src, d, kind, release) in raw {
            let dst = if kind == 0 { src } else { d };
            let m = Injection { src, dst, release };
            out.push(m);
            if kind == 1 {
                out.push(m);
            }
        }
        out
    })
}

fn bft_instance(max: usize) -> impl Strategy<Value = (u32, Vec<Injection>)> {
    prop_oneof![Just(16u32), Just(64u32)].prop_flat_map(move |n| (Just(n), injections(n, max)))
}

fn queue() -> impl Strategy<Value = QueueCapacity> {
    prop_oneof![
        3 => (1u32..=3).prop_map(QueueCapacity::Bounded),
        1 => Just(QueueCapacity::Unbounded),
    ]
}

fn sink() -> impl Strategy<Value = SinkModel> {
    prop_oneof![Just(SinkModel::Queue), Just(SinkModel::Immediate)]
}

fn checked(config: PacketConfig) -> PacketConfig {
    PacketConfig {
        check_conservation: true,
        record_latencies: true,
        max_steps: 1_000_000,
        ..config
    }
}

/// The lower bounds of the module documentation, and the report's internal consistency.
fn check_bounds(
    net: &PacketNet,
    inj: &[Injection],
    cfg: &PacketConfig,
    r: &PacketReport,
) -> Result<(), TestCaseError> {
    let l = u64::from(cfg.flits);
    let step = cfg.step_length();
    let lat = r.latencies.as_ref().expect("latencies recorded");
    prop_assert_eq!(lat.len(), inj.len());
    let mut last = 0u64;
    let mut r_min = u64::MAX;
    let mut d_max = 0u64;
    for (m, &x) in inj.iter().zip(lat) {
        last = last.max(m.release * step + x);
        if m.src == m.dst {
            prop_assert_eq!(x, 0, "a self-message is delivered on release");
            continue;
        }
        let d = u64::from(net.distance(m.src, m.dst));
        d_max = d_max.max(d);
        r_min = r_min.min(m.release);
        let bound = match cfg.flow {
            FlowControl::StoreAndForward => (d - 1) * l,
            FlowControl::Wormhole | FlowControl::Split => d + l - 2,
        };
        prop_assert!(
            x >= bound,
            "latency {} < {} ({:?} {}→{})",
            x,
            bound,
            cfg.flow,
            m.src,
            m.dst
        );
    }
    prop_assert_eq!(r.latency, last, "report latency = max(release + latency)");
    prop_assert_eq!(u64::from(r.dilation), d_max, "shortest paths only");
    if r.congestion > 0 {
        let units = match cfg.flow {
            FlowControl::Wormhole => l,
            FlowControl::StoreAndForward | FlowControl::Split => 1,
        };
        let bound = (r_min + u64::from(r.congestion) * units - 1) * step;
        prop_assert!(
            r.latency >= bound,
            "latency {} < congestion bound {}",
            r.latency,
            bound
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Every flow × path × scan delivers every message of a random set (self-messages,
    /// duplicates, random releases) with conservation checked every step, and respects the
    /// dilation and congestion lower bounds.
    #[test]
    fn every_policy_conserves_and_delivers_within_the_lower_bounds(
        (n, inj) in bft_instance(60),
        flits in 1u32..=8,
        queue in queue(),
        sink in sink(),
        range in 1u32..=4,
        seed in any::<u64>(),
    ) {
        let net = bft(n);
        for flow in FLOWS {
            for path in PATHS {
                for scan in scans(range) {
                    let cfg = checked(PacketConfig {
                        flow, path, scan, flits, queue, sink, ..PacketConfig::default()
                    });
                    let r = simulate(net, &inj, &cfg, seed);
                    prop_assert!(r.is_ok(), "{:?}", r);
                    let r = r.unwrap();
                    prop_assert_eq!(r.outcome, Outcome::Delivered, "{:?}", cfg);
                    prop_assert_eq!(r.messages, inj.len() as u64);
                    prop_assert_eq!(r.delivered, inj.len() as u64);
                    check_bounds(net, &inj, &cfg, &r)?;
                }
            }
        }
    }

    /// Store-and-forward, `k` packets from one source to one destination `d` links away:
    /// with `q = 1` a link passes one packet per two steps (a queue full at the start of a
    /// step accepts nothing), so packet `j` crosses link `i` in step `2j + i − 1` and is
    /// delivered after `(2j + d − 1)·L` flit-steps, the last one after `(2(k − 1) + d − 1)·L`
    /// — Table I's many-to-1 `L(2c + d − 3)` with `c = k`. With `q ≥ 2` a link passes one
    /// packet per step: `(j + d − 1)·L`. Exact for every path, scan and sink policy: the
    /// packets are two steps apart, so no two ever compete for an input or an output.
    #[test]
    fn store_and_forward_pipelines_exactly(
        n in prop_oneof![Just(16u32), Just(64u32)],
        src in 0u32..64, dst in 0u32..64,
        k in 1u64..=8, flits in 1u32..=8, range in 1u32..=4,
        sink in sink(), seed in any::<u64>(),
    ) {
        let (src, dst) = (src % n, dst % n);
        prop_assume!(src != dst);
        let net = bft(n);
        let d = u64::from(net.distance(src, dst));
        let l = u64::from(flits);
        let inj = vec![Injection { src, dst, release: 0 }; k as usize];
        for (q, spacing) in [(1u32, 2u64), (2, 1), (3, 1)] {
            for path in PATHS {
                for scan in scans(range) {
                    let cfg = checked(PacketConfig {
                        flow: FlowControl::StoreAndForward, path, scan, flits,
                        queue: QueueCapacity::Bounded(q), sink, ..PacketConfig::default()
                    });
                    let r = simulate(net, &inj, &cfg, seed).unwrap();
                    prop_assert_eq!(r.outcome, Outcome::Delivered);
                    prop_assert_eq!(r.latency, (spacing * (k - 1) + d - 1) * l, "q = {}, {:?}", q, cfg);
                    let expect: Vec<u64> = (0..k).map(|j| (spacing * j + d - 1) * l).collect();
                    prop_assert_eq!(r.latencies.as_ref().unwrap(), &expect);
                    prop_assert_eq!(u64::from(r.congestion), k);
                }
            }
        }
    }

    /// Same seed, same report (every field, latencies included), for direct runs and for
    /// static-batch trials.
    #[test]
    fn runs_are_determined_by_their_seed(
        (n, inj) in bft_instance(60),
        flits in 1u32..=8, queue in queue(), sink in sink(), range in 1u32..=4,
        flow in 0usize..3, path in 0usize..5, scan in 0usize..5, seed in any::<u64>(),
    ) {
        let net = bft(n);
        let cfg = checked(PacketConfig {
            flow: FLOWS[flow], path: PATHS[path], scan: scans(range)[scan],
            flits, queue, sink, ..PacketConfig::default()
        });
        let a = simulate(net, &inj, &cfg, seed).unwrap();
        let b = simulate(net, &inj, &cfg, seed).unwrap();
        prop_assert_eq!(&a, &b);
        let m = MessageSet::new(n, inj.iter().map(|x| (x.src, x.dst).into()).collect()).unwrap();
        let a = batch_trial(net, &m, 4, &cfg, seed).unwrap();
        let b = batch_trial(net, &m, 4, &cfg, seed).unwrap();
        prop_assert_eq!(a, b);
    }

    /// The hypercube with unbounded queues, immediate sinks, store-and-forward `L = 1` and
    /// dimension order: a lone packet crosses one dimension per step and is delivered in
    /// step `popcount(src ⊕ dst) − 1` after its release (0-based), and every random batch is
    /// delivered (unbounded queues cannot deadlock) within the lower bounds.
    #[test]
    fn hypercube_dimension_order_store_and_forward(
        d in 1u32..=6, src in any::<u32>(), dst in any::<u32>(), release in 0u64..20,
        batch in injections(64, 60), range in 1u32..=4, seed in any::<u64>(),
    ) {
        let n = 1u32 << d;
        let net = hypercube(d);
        let (src, dst) = (src % n, dst % n);
        for scan in scans(range) {
            let cfg = checked(PacketConfig {
                flow: FlowControl::StoreAndForward, path: PathPolicy::DimensionOrder, scan,
                flits: 1, queue: QueueCapacity::Unbounded, sink: SinkModel::Immediate,
                ..PacketConfig::default()
            });
            let r = simulate(&net, &[Injection { src, dst, release }], &cfg, seed).unwrap();
            prop_assert_eq!(r.outcome, Outcome::Delivered);
            let h = u64::from((src ^ dst).count_ones());
            prop_assert_eq!(r.latencies.as_ref().unwrap()[0], h.saturating_sub(1));
            prop_assert_eq!(r.latency, release + h.saturating_sub(1));
            prop_assert_eq!(u64::from(r.dilation), h);

            let batch: Vec<Injection> = batch
                .iter()
                .map(|m| Injection { src: m.src % n, dst: m.dst % n, release: m.release })
                .collect();
            let r = simulate(&net, &batch, &cfg, seed).unwrap();
            prop_assert_eq!(r.outcome, Outcome::Delivered);
            prop_assert_eq!(r.delivered, batch.len() as u64);
            for (m, &x) in batch.iter().zip(r.latencies.as_ref().unwrap()) {
                prop_assert!(x >= u64::from((m.src ^ m.dst).count_ones()).saturating_sub(1));
            }
            if r.congestion > 0 {
                let r_min = batch.iter().filter(|m| m.src != m.dst).map(|m| m.release).min().unwrap();
                prop_assert!(r.latency >= r_min + u64::from(r.congestion) - 1);
            }
        }
    }

    /// Wormhole with `q = 1` and long worms on the 3-cube: runs end as delivered or as a
    /// detected deadlock, never by running into the step limit; dimension order never
    /// deadlocks (its channel dependency graph is acyclic). Other policies deadlock on random
    /// sets only rarely (about 1 run in 500 with one 8-flit worm per node released at once,
    /// on the 2- to 4-cube, mostly with fixed paths), which is why the square test below
    /// constructs a deadlock.
    #[test]
    fn hypercube_wormhole_ends_in_delivery_or_detected_deadlock(
        batch in injections(8, 24), flits in 2u32..=16, at_once in any::<bool>(),
        seed in any::<u64>(),
    ) {
        let net = hypercube(3);
        // Releasing everything in step 0 makes cycles of heads likely.
        let batch: Vec<Injection> = batch
            .into_iter()
            .map(|m| Injection { release: if at_once { 0 } else { m.release }, ..m })
            .collect();
        for path in PATHS {
            let cfg = checked(PacketConfig {
                flow: FlowControl::Wormhole, path, scan: ScanPolicy::RoundRobin, flits,
                queue: QueueCapacity::Bounded(1), sink: SinkModel::Queue,
                ..PacketConfig::default()
            });
            let r = simulate(&net, &batch, &cfg, seed).unwrap();
            match r.outcome {
                Outcome::Delivered => prop_assert_eq!(r.delivered, batch.len() as u64),
                Outcome::Deadlock { step } => {
                    prop_assert!(
                        !matches!(path, PathPolicy::DimensionOrder | PathPolicy::Standard),
                        "dimension order deadlocked"
                    );
                    prop_assert!(r.delivered < batch.len() as u64);
                    prop_assert!(step < 10_000, "deadlock detected late, at step {}", step);
                }
                Outcome::StepLimit => prop_assert!(false, "{:?} ran into the step limit", path),
            }
        }
        // The standard path is dimension order, fixed at the source: the same run.
        let run = |path| {
            let cfg = checked(PacketConfig {
                flow: FlowControl::Wormhole, path, scan: ScanPolicy::RoundRobin, flits,
                queue: QueueCapacity::Bounded(1), sink: SinkModel::Queue,
                record_latencies: true, ..PacketConfig::default()
            });
            simulate(&net, &batch, &cfg, seed).unwrap()
        };
        prop_assert_eq!(run(PathPolicy::Standard), run(PathPolicy::DimensionOrder));
    }
}

/// The complement permutation `a → N − 1 − a` on the butterfly fat-tree: every message
/// crosses the root, whose child bundles carry `N/4` messages over `√N/2` wires, and the
/// level-`l` bundles carry `4^l` over `2^l`; so `λ = √N/2` exactly (independent of the
/// paths), and no path policy realizes a congestion below it (pigeonhole over the wires of
/// the worst bundle). For split every flit is a worm: `L·√N/2`.
#[test]
fn complement_load_factor_is_half_root_n_and_congestion_never_below() {
    for n in [16u32, 64, 256, 1024] {
        let half_root = u64::from(n.isqrt() / 2);
        let bft = AnyTopology::from(ButterflyFatTree::new(u64::from(n)).unwrap());
        let net = PacketNet::new(bft.clone()).unwrap();
        let m = patterns::complement(n).unwrap();
        for selection in [
            PathSelection::Standard,
            PathSelection::First,
            PathSelection::Random { seed: 5 },
        ] {
            let load = analyze(&bft, &m, selection).unwrap();
            let lf = load.load_factor;
            assert_eq!(
                lf.load,
                half_root * lf.capacity,
                "N = {n}: λ = {}/{}",
                lf.load,
                lf.capacity
            );
            assert!(load.congestion >= half_root);
        }
        let inj: Vec<Injection> = m
            .messages()
            .iter()
            .map(|x| Injection {
                src: x.src,
                dst: x.dst,
                release: 0,
            })
            .collect();
        for flow in FLOWS {
            for path in PATHS {
                let cfg = PacketConfig {
                    flow,
                    path,
                    flits: 4,
                    check_conservation: true,
                    ..PacketConfig::default()
                };
                let r = simulate(&net, &inj, &cfg, u64::from(n)).unwrap();
                assert_eq!(r.outcome, Outcome::Delivered);
                let per_message = if flow == FlowControl::Split { 4 } else { 1 };
                assert!(
                    u64::from(r.congestion) >= per_message * half_root,
                    "N = {n}, {flow:?} {path:?}: c = {} < √N/2",
                    r.congestion
                );
                // Every message crosses the root: a path of 2·log4 N links.
                assert_eq!(r.dilation, 2 * n.ilog(4));
            }
        }
    }
}

/// A deadlock, constructed: on the 2-cube (the square 00 → 01 → 11 → 10 → 00) four worms go
/// to the opposite corner, each turning the same way round the square. When every head takes
/// its first link in step 0 (all four are free), each then needs the link the next worm
/// owns: a cycle in the channel dependencies, which shortest paths allow on the hypercube.
/// Fixed paths and RP pick the clockwise or counter-clockwise turn at random, so some seeds
/// deadlock; the engine must say so rather than hang. Dimension order (and greedy, which
/// equals it when every link is free, and the standard path, which is dimension order) never
/// does.
#[test]
fn the_square_deadlocks_under_random_paths_and_is_reported() {
    let net = hypercube(2);
    let inj: Vec<Injection> = [(0u32, 3u32), (1, 2), (3, 0), (2, 1)]
        .into_iter()
        .map(|(src, dst)| Injection {
            src,
            dst,
            release: 0,
        })
        .collect();
    for path in PATHS {
        let mut deadlocks = 0;
        for seed in 0..64 {
            let cfg = checked(PacketConfig {
                flow: FlowControl::Wormhole,
                path,
                scan: ScanPolicy::RoundRobin,
                flits: 8,
                queue: QueueCapacity::Bounded(1),
                sink: SinkModel::Queue,
                ..PacketConfig::default()
            });
            let r = simulate(&net, &inj, &cfg, seed).unwrap();
            match r.outcome {
                Outcome::Delivered => assert_eq!(r.delivered, 4),
                Outcome::Deadlock { step } => {
                    deadlocks += 1;
                    assert_eq!(r.delivered, 0, "{path:?} seed {seed}");
                    // Heads cross in step 0 and block in step 1; the last body flits stop
                    // behind them within a few more steps.
                    assert!(
                        step <= 2 * 8,
                        "{path:?} seed {seed}: detected at step {step}"
                    );
                }
                Outcome::StepLimit => panic!("{path:?} seed {seed}: step limit"),
            }
        }
        match path {
            PathPolicy::Fixed | PathPolicy::Random => {
                assert!(deadlocks > 0, "{path:?}: no seed deadlocked")
            }
            // The hypercube's standard path is dimension order.
            PathPolicy::Greedy | PathPolicy::DimensionOrder | PathPolicy::Standard => {
                assert_eq!(deadlocks, 0, "{path:?} deadlocked")
            }
        }
    }
}
