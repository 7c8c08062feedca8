//! Failure what-if: named and random removals, the built-in minhop/updn routing against
//! shortest paths and against OpenSM's own tables, determinism over seeds and threads.

use std::collections::VecDeque;
use std::path::Path;

use fatnet_fabric::failures::{self, FailureOptions, FailureSpec, Reroute, draw_removal, metrics};
use fatnet_fabric::removal::Removal;
use fatnet_fabric::routing::{Engine, route};
use fatnet_fabric::{Fabric, FabricError, FabricFiles, NodeId, NodeKind, from_folded_clos};
use fatnet_offline::clos::DModM;
use fatnet_topology::FoldedClos;

const NED: &str = include_str!("../fixtures/two-switch/two.ned");
const INI: &str = include_str!("../fixtures/two-switch/two.fdbs.ini");
/// Everything across goes over the first cable (A_U1[3] -> B_U1[3]).
const FDBS: &str = "0: 255 0 1 2 2 255 255\n1: 255 2 2 0 1 255 255\n";

fn two_switches() -> Fabric {
    fatnet_fabric::read_flitsim(
        ("two.ned", NED),
        ("two.fdbs", FDBS),
        ("two.fdbs.ini", INI),
        None,
    )
    .unwrap()
    .0
}

#[test]
fn named_link_removal_before_and_after_rerouting() {
    let f = two_switches();
    let m0 = metrics(&f).unwrap();
    assert_eq!((m0.pairs, m0.delivered, m0.disconnected), (12, 12, 0));
    // The cable every cross pair uses: the 2·2·2 = 8 cross pairs are lost to the stale
    // tables, though the second cable still connects them.
    let r = Removal::parse(&f, &["A_U1[3]"]).unwrap();
    let damaged = f.without(&r).unwrap();
    assert_eq!(damaged.links().len(), 5);
    let before = metrics(&damaged).unwrap();
    assert_eq!(
        (before.disconnected, before.unrouted, before.delivered),
        (0, 8, 4)
    );
    assert!(!before.routes_valid);
    // Minhop moves them to the second cable: all 12 arrive, the 4 local in 2 hops, the 8
    // cross in 3 hops, and all 8 cross routes share one cable: contention 2.
    let after = metrics(&route(&damaged, Engine::MinHop).unwrap()).unwrap();
    assert_eq!((after.delivered, after.unrouted), (12, 0));
    assert!(after.routes_valid);
    assert_eq!(after.max_hops, 3);
    assert!((after.mean_hops - (4.0 * 2.0 + 8.0 * 3.0) / 12.0).abs() < 1e-12);
    assert_eq!(after.worst_contention, 2);
    // The effective bisection bandwidth: a bisection of the 4 hosts pairs them within each
    // switch (every flow alone: 1) or across (2 flows each way on the one cable used: 1/2).
    // Intact and re-routed fabrics use one cable for every cross route and see the same 100
    // bisections, so their eBB is equal; the stale tables lose routes, and eBB does not apply.
    let ebb = m0.ebb.unwrap();
    assert!(ebb > 0.5 && ebb < 1.0, "{ebb}");
    let direct = fatnet_fabric::effective_bisection_bandwidth(
        &f,
        &fatnet_fabric::EbbConfig {
            bisections: fatnet_fabric::failures::METRIC_BISECTIONS,
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(m0.ebb, Some(direct.mean));
    assert_eq!(after.ebb, m0.ebb);
    assert_eq!(before.ebb, None);
    // Two switches joined by cables cannot form a channel cycle.
    assert!(m0.credit_loop_free && before.credit_loop_free && after.credit_loop_free);
    // Both cables (the second by its full label, from B's end): the cross pairs are
    // disconnected, not unrouted.
    let r = Removal::parse(&f, &["B_U1[3]", "B_U1[4] -> A_U1[4]"]).unwrap();
    let both = metrics(&route(&f.without(&r).unwrap(), Engine::MinHop).unwrap()).unwrap();
    assert_eq!(
        (both.disconnected, both.unrouted, both.delivered),
        (8, 0, 4)
    );
    // A switch by name: B's hosts lose everyone, A's hosts keep each other.
    let r = Removal::parse(&f, &["B_U1"]).unwrap();
    let m = metrics(&f.without(&r).unwrap()).unwrap();
    assert_eq!((m.disconnected, m.delivered), (10, 2));
}

#[test]
fn unknown_names_and_too_many_links_are_errors() {
    let f = two_switches();
    for (names, pos) in [
        (vec!["A_U1[3]", "NOPE[1]"], 2),
        (vec!["A_U1[9]"], 1),
        (vec!["H_1_U1"], 1),
        (vec!["0x1234"], 1),
        (vec!["A_U1[3] -> B_U1[4]"], 1),
    ] {
        match Removal::parse(&f, &names) {
            Err(FabricError::Unknown { file, line, .. }) => {
                assert_eq!((file.as_str(), line), ("removal", pos), "{names:?}");
            }
            other => panic!("{names:?}: {other:?}"),
        }
    }
    // Two switch-to-switch links: three is too many, and says how many there are.
    let spec = FailureSpec::Links {
        count: 3,
        ca_links: false,
    };
    match draw_removal(&f, &spec, 1, 0) {
        Err(FabricError::TooLarge { count, limit, .. }) => assert_eq!((count, limit), (3, 2)),
        other => panic!("{other:?}"),
    }
    let spec = FailureSpec::Links {
        count: 3,
        ca_links: true,
    };
    assert_eq!(draw_removal(&f, &spec, 1, 0).unwrap().links.len(), 3);
}

/// Hop distance between two CAs through switches (CA links included).
fn distance(f: &Fabric, a: NodeId, b: NodeId) -> Option<u32> {
    let mut dist = vec![u32::MAX; f.node_count()];
    let start = f.peer(a, f.node(a).first_connected_port()?)?.node;
    dist[start.index()] = 1;
    let mut q = VecDeque::from([start]);
    while let Some(u) = q.pop_front() {
        for (_, e) in f.neighbours(u) {
            if e.node == b {
                return Some(dist[u.index()] + 1);
            }
            if f.node(e.node).kind() == NodeKind::Switch && dist[e.node.index()] == u32::MAX {
                dist[e.node.index()] = dist[u.index()] + 1;
                q.push_back(e.node);
            }
        }
    }
    None
}

fn assert_shortest(f: &Fabric) {
    let order = f.ca_order();
    for &s in order {
        for &d in order {
            if s != d {
                let hops = f
                    .trace(s, d)
                    .unwrap_or_else(|e| panic!("{s} -> {d}: {e:?}"));
                assert_eq!(Some(hops.len() as u32), distance(f, s, d), "{s} -> {d}");
            }
        }
    }
}

#[test]
fn builtin_routing_is_shortest_on_generated_fat_trees() {
    for (n, m, r) in [(2, 2, 3), (2, 4, 4), (3, 5, 6)] {
        let clos = FoldedClos::new(n, m, r).unwrap();
        let f = from_folded_clos(&clos, &DModM::new(&clos)).unwrap();
        for engine in [Engine::MinHop, Engine::UpDn] {
            let g = route(&f, engine).unwrap();
            assert_shortest(&g);
            // Deterministic.
            let h = route(&f, engine).unwrap();
            for s in g.switches() {
                assert_eq!(g.lft(s), h.lft(s));
            }
        }
    }
}

fn opensm_fixture(name: &str, engine: &str) -> Fabric {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/opensm");
    FabricFiles {
        fabric: dir.join(name).join(engine),
        routes: None,
        ca_order: None,
        format: Default::default(),
    }
    .load()
    .unwrap()
    .fabric
}

#[test]
fn builtin_routing_equals_opensm_tables() {
    for name in [
        "ftree-2-3-5",
        "ftree-2-4-4",
        "ftree-3-6-6",
        "ftree-3-9-12",
        "karyntree-2-3",
    ] {
        for engine in [Engine::MinHop, Engine::UpDn] {
            let theirs = opensm_fixture(name, engine.name());
            let ours = route(&theirs, engine).unwrap();
            assert_shortest(&ours);
            // Path lengths agree pair by pair; count the table entries that agree.
            let order = theirs.ca_order();
            for &s in order {
                for &d in order {
                    if s != d {
                        assert_eq!(
                            ours.trace(s, d).unwrap().len(),
                            theirs.trace(s, d).unwrap().len()
                        );
                    }
                }
            }
            let (mut same, mut total) = (0usize, 0usize);
            for sw in theirs.switches() {
                let (a, b) = (ours.lft(sw).unwrap(), theirs.lft(sw).unwrap());
                for lid in 1..theirs.lid_bound() as u16 {
                    if theirs.endpoint_of_lid(lid).is_some() {
                        total += 1;
                        same += usize::from(a.get(lid) == b.get(lid));
                    }
                }
            }
            eprintln!("{name} {engine}: {same} of {total} table entries agree with OpenSM");
            let (mo, mt) = (metrics(&ours).unwrap(), metrics(&theirs).unwrap());
            eprintln!(
                "  worst contention ours {} OpenSM {}",
                mo.worst_contention, mt.worst_contention
            );
            // OpenSM 3.3.23's order and tie rules, followed (module documentation of
            // `routing`), give its very tables on every fixture.
            assert_eq!(same, total, "{name} {engine}");
        }
    }
}

#[test]
fn one_top_switch_down_minhop_keeps_every_pair() {
    // ftree(n+m, r) minus one top: each bottom switch spreads its (r−1)·n remote
    // destinations over m − 1 up-links, so some up-link carries ⌈(r−1)n/(m−1)⌉ destinations
    // from its n sources (any table routing does); minhop's balancing reaches that bound,
    // and a down-link carries destinations of one bottom switch only (at most n).
    for (n, m, r, want) in [(2u32, 4u32, 4u32, 2u32), (2, 5, 3, 1), (3, 9, 4, 2)] {
        assert_eq!(want, n.min(((r - 1) * n).div_ceil(m - 1)));
        let clos = FoldedClos::new(n.into(), m.into(), r.into()).unwrap();
        let f = from_folded_clos(&clos, &DModM::new(&clos)).unwrap();
        let report = failures::run(
            &f,
            &FailureOptions {
                failures: FailureSpec::Named(vec!["T0".into()]),
                draws: 7,
                seed: 1,
                reroute: Reroute::Engine(Engine::MinHop),
            },
        )
        .unwrap();
        assert_eq!(report.draws.len(), 1);
        let d = &report.draws[0];
        assert_eq!(d.removed, vec!["T0".to_owned()]);
        // Old tables: d-mod-m sent destination x through top x mod m; those through T0 die.
        let p = u64::from(n * r);
        let via_t0 = (0..n * r).filter(|x| x % m == 0).count() as u64 * u64::from((r - 1) * n);
        assert_eq!(d.before.unrouted, via_t0);
        assert_eq!(d.before.disconnected, 0);
        let after = d.after.as_ref().unwrap();
        assert_eq!(after.delivered, p * (p - 1), "({n}, {m}, {r})");
        assert_eq!(after.max_hops, 4);
        assert_eq!(after.worst_contention, want, "({n}, {m}, {r})");
    }
}

fn random_options(draws: u32, seed: u64) -> FailureOptions {
    FailureOptions {
        failures: FailureSpec::Links {
            count: 2,
            ca_links: false,
        },
        draws,
        seed,
        reroute: Reroute::Engine(Engine::UpDn),
    }
}

#[test]
fn same_seed_same_draws_on_any_thread_count() {
    let clos = FoldedClos::new(2, 4, 4).unwrap();
    let f = from_folded_clos(&clos, &DModM::new(&clos)).unwrap();
    let run_on = |threads: usize, seed: u64| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| failures::run(&f, &random_options(12, seed)).unwrap())
    };
    let one = run_on(1, 5);
    assert_eq!(one, run_on(3, 5));
    assert_eq!(one, failures::run(&f, &random_options(12, 5)).unwrap());
    let other = run_on(2, 6);
    assert_ne!(
        one.draws.iter().map(|d| &d.removed).collect::<Vec<_>>(),
        other.draws.iter().map(|d| &d.removed).collect::<Vec<_>>()
    );
    // Each draw removes 2 distinct switch-to-switch links; a draw is its own seed's.
    for d in &one.draws {
        assert_eq!(d.removed.len(), 2);
        assert_ne!(d.removed[0], d.removed[1]);
        assert!(
            d.removed.iter().all(|l| !l.contains('H')),
            "{l:?}",
            l = d.removed
        );
        let alone = draw_removal(&f, &random_options(1, 5).failures, 5, d.index).unwrap();
        assert_eq!(alone.labels(&f), d.removed);
        // Two links of a 4x4 bipartite core never cut a pair off; updn re-routes everything.
        assert_eq!(d.before.disconnected, 0);
        assert!(d.after.as_ref().unwrap().routes_valid);
    }
    // The distributions summarise the draws.
    let dist = one.after.iter().find(|x| x.name == "delivered").unwrap();
    assert_eq!((dist.n, dist.min, dist.max), (12, 56.0, 56.0));
    let unrouted = one.before.iter().find(|x| x.name == "unrouted").unwrap();
    let sum: f64 = one.draws.iter().map(|d| d.before.unrouted as f64).sum();
    assert!((unrouted.mean - sum / 12.0).abs() < 1e-9);
    assert_eq!(unrouted.histogram.iter().map(|b| b.count).sum::<u64>(), 12);
}

#[test]
fn huge_work_is_refused_before_the_draws() {
    let clos = FoldedClos::new(2, 4, 4).unwrap();
    let f = from_folded_clos(&clos, &DModM::new(&clos)).unwrap();
    // 56 pairs x 4 hops x 2 analyses x draws > MAX_FAILURE_WORK.
    let draws = u32::MAX;
    match failures::run(&f, &random_options(draws, 1)) {
        Err(FabricError::TooLarge { count, limit, .. }) => {
            assert_eq!(count, u64::from(draws) * 2 * 56 * 4);
            assert_eq!(limit, failures::MAX_FAILURE_WORK);
        }
        other => panic!("{other:?}"),
    }
}
