//! Route counts: the per-port routes and destinations of a d-mod-m folded Clos against their
//! closed forms, the conservation laws (ports' routes = hops of all routes), faulty tables, the
//! per-level traffic histograms, and the shared fabrics' hop histograms.

use fatnet_fabric::{
    Fabric, FabricTopology, LevelSpread, PortId, from_folded_clos, hop_histogram, per_level,
    read_flitsim, route_counts,
};
use fatnet_offline::clos::DModM;
use fatnet_topology::{Direction, FoldedClos, Topology};

use crate::shared::{fabrics_dir, flitsim};

fn dmodm(clos: &FoldedClos) -> Fabric {
    from_folded_clos(clos, &DModM::new(clos)).unwrap()
}

fn port(f: &Fabric, name: &str, port: u8) -> PortId {
    f.port_id(f.node_by_name(name).unwrap(), port)
}

fn group(levels: &[LevelSpread], level: u32, direction: Direction) -> &LevelSpread {
    levels
        .iter()
        .find(|g| (g.level, g.direction) == (level, direction))
        .unwrap()
}

/// The closed forms of d-mod-m on `ftree(n+m, r)` (`P = r·n` CAs, CA `x` on bottom switch
/// `⌊x/n⌋`, a route between bottom switches goes up to top `dst mod m`):
///
/// - a CA's uplink carries its `P − 1` routes to `P − 1` destinations;
/// - a bottom switch's port to one of its CAs carries the `P − 1` routes to it (1 destination);
/// - bottom `v` → top `t` carries the routes from the `n` CAs of `v` to every destination `d`
///   off `v` with `d mod m = t`: `n · D` routes, `D = #{d ∉ v : d mod m = t}` destinations;
/// - top `t` → bottom `w` carries the routes from the `P − n` CAs off `w` to the destinations
///   `d` on `w` with `d mod m = t`: `(P − n) · E` routes, `E = #{d ∈ w : d mod m = t}`.
#[test]
fn dmodm_counts_follow_the_formula() {
    for (n, m, r) in [(2, 3, 4), (3, 2, 2), (4, 3, 3), (1, 1, 5)] {
        let clos = FoldedClos::new(n, m, r).unwrap();
        let f = dmodm(&clos);
        let c = route_counts(&f).unwrap();
        let (n, m, r) = (n as u32, m as u32, r as u32);
        let p = r * n;
        let on = |d: u32, v: u32| d / n == v;
        for x in 0..p {
            let up = port(&f, &format!("H{x}"), 1);
            assert_eq!(
                (c.routes[up.0 as usize], c.destinations[up.0 as usize]),
                (p - 1, p - 1)
            );
            let down = port(&f, &format!("B{}", x / n), (x % n + 1) as u8);
            assert_eq!(
                (c.routes[down.0 as usize], c.destinations[down.0 as usize]),
                (p - 1, 1)
            );
        }
        for v in 0..r {
            for t in 0..m {
                let d_up = (0..p).filter(|&d| !on(d, v) && d % m == t).count() as u32;
                let up = port(&f, &format!("B{v}"), (n + 1 + t) as u8);
                assert_eq!(
                    c.routes[up.0 as usize],
                    n * d_up,
                    "{n} {m} {r}: B{v} -> T{t}"
                );
                assert_eq!(c.destinations[up.0 as usize], d_up);
                let e_down = (0..p).filter(|&d| on(d, v) && d % m == t).count() as u32;
                let down = port(&f, &format!("T{t}"), (v + 1) as u8);
                assert_eq!(c.routes[down.0 as usize], (p - n) * e_down);
                assert_eq!(c.destinations[down.0 as usize], e_down);
            }
        }
        // Conservation: every hop of every route leaves through one port.
        let total: u64 = c.routes.iter().map(|&x| u64::from(x)).sum();
        assert_eq!(total, f.trace_all().total_hops);
        assert_eq!(total, c.hops.total_hops());
        // Hops: 2 on one bottom switch (n − 1 partners), 4 across.
        assert_eq!(
            c.hops.counts,
            vec![0, 0, u64::from(p * (n - 1)), 0, u64::from(p * (p - n))]
        );
        assert_eq!(c.hops.counts.iter().sum::<u64>(), c.hops.delivered);
        assert_eq!(c.hops.delivered, u64::from(p * (p - 1)));
        assert_eq!(hop_histogram(&f), c.hops);
        // Levels: CA links at level 0, bottom-top links at level 1; the summaries match the
        // formulas' extremes.
        let up1 = group(&c.routes_by_level, 1, Direction::Up);
        assert_eq!(up1.links, u64::from(r * m));
        let per_top: Vec<u32> = (0..m)
            .map(|t| (0..p).filter(|&d| d % m == t).count() as u32)
            .collect();
        assert_eq!(
            group(&c.routes_by_level, 0, Direction::Up).histogram,
            vec![(p - 1, u64::from(p))]
        );
        assert!(up1.max <= n * per_top.iter().max().unwrap());
        assert_eq!(up1.imbalance, f64::from(up1.max) / up1.mean);
        let levels: Vec<(u32, Direction)> = c
            .routes_by_level
            .iter()
            .map(|g| (g.level, g.direction))
            .collect();
        assert_eq!(
            levels,
            vec![
                (0, Direction::Up),
                (0, Direction::Down),
                (1, Direction::Up),
                (1, Direction::Down)
            ]
        );
    }
}

#[test]
fn levels_are_the_topologys() {
    // Every port's group is the level and direction of FabricTopology's channel through it.
    let clos = FoldedClos::new(2, 3, 4).unwrap();
    let f = dmodm(&clos);
    let t = FabricTopology::new(&f).unwrap();
    let mut marks = vec![0u32; f.port_id_count()];
    let mut expected: std::collections::BTreeMap<(u32, Direction), u64> = Default::default();
    for (i, node) in f.nodes().iter().enumerate() {
        for (p, _) in node.neighbours() {
            let id = fatnet_fabric::NodeId(i as u32);
            marks[f.port_id(id, p).0 as usize] = 1;
            let ch = t.channel(t.channel_of_port(id, p).unwrap());
            *expected.entry((ch.level, ch.direction)).or_default() += 1;
        }
    }
    let got: std::collections::BTreeMap<(u32, Direction), u64> = per_level(&f, &marks)
        .iter()
        .map(|g| {
            (
                (g.level, g.direction),
                g.histogram.iter().map(|&(c, k)| u64::from(c) * k).sum(),
            )
        })
        .collect();
    assert_eq!(got, expected);
}

#[test]
fn traffic_loads_by_level() {
    // m = 1: the 3 CAs of bottom 0 send to the 3 of bottom 1: the one uplink carries 3.
    let clos = FoldedClos::new(3, 1, 2).unwrap();
    let f = dmodm(&clos);
    let load = f.traffic_load(&[(0, 3), (1, 4), (2, 5)], 0).unwrap();
    let g = fatnet_fabric::counts::traffic_by_level(&f, &load);
    let up1 = group(&g, 1, Direction::Up);
    assert_eq!((up1.links, up1.min, up1.max), (2, 0, 3));
    assert_eq!(up1.histogram, vec![(0, 1), (3, 1)]);
    assert_eq!((up1.mean, up1.imbalance), (1.5, 2.0));
    let up0 = group(&g, 0, Direction::Up);
    assert_eq!(up0.histogram, vec![(0, 3), (1, 3)]);
    // Loads add up to the traffic's hops: 3 routes of 4 links.
    let total: u64 = g
        .iter()
        .flat_map(|x| x.histogram.iter().map(|&(c, k)| u64::from(c) * k))
        .sum();
    assert_eq!(total, 12);
    // An idle group is balanced by definition.
    let idle = f.traffic_load(&[], 0).unwrap();
    let g = fatnet_fabric::counts::traffic_by_level(&f, &idle);
    assert!(g.iter().all(|x| x.max == 0 && x.imbalance == 1.0));
}

#[test]
fn faulty_routes_are_counted_not_filed() {
    // A has no entry for H4; B sends H1 back to H3: 8 of 12 routes arrive.
    let (f, _) = read_flitsim(
        ("two.ned", include_str!("../fixtures/two-switch/two.ned")),
        (
            "two.fdbs",
            "0: 255 0 1 2 255 255 255\n1: 255 0 3 0 1 255 255\n",
        ),
        (
            "two.fdbs.ini",
            include_str!("../fixtures/two-switch/two.fdbs.ini"),
        ),
        None,
    )
    .unwrap();
    let c = route_counts(&f).unwrap();
    assert_eq!((c.hops.routes, c.hops.delivered), (12, 8));
    let total: u64 = c.routes.iter().map(|&x| u64::from(x)).sum();
    assert_eq!(total, c.hops.total_hops());
    assert_eq!(total, f.trace_all().total_hops);
    // Only H3 reaches H4 (A has no entry for it): its switch port carries 1 route, from 1
    // destination.
    let into_h4 = port(&f, "B_U1", 2).0 as usize;
    assert_eq!((c.routes[into_h4], c.destinations[into_h4]), (1, 1));
}

#[test]
fn shared_fabrics() {
    let Some(dir) = fabrics_dir() else { return };
    // is1_3l_32n: per source 3 partners at 2 hops, 4 at 4, 24 at 6 (the trace test's count).
    let (f, _) = flitsim(&dir, "is1_3l_32n");
    let c = route_counts(&f).unwrap();
    assert_eq!(c.hops.counts, vec![0, 0, 32 * 3, 0, 32 * 4, 0, 32 * 24]);
    let total: u64 = c.routes.iter().map(|&x| u64::from(x)).sum();
    assert_eq!(total, c.hops.total_hops());
    // Every CA uplink carries its 31 routes to 31 destinations; every port into a CA 31
    // routes to 1 destination.
    let up0 = group(&c.routes_by_level, 0, Direction::Up);
    assert_eq!(up0.histogram, vec![(31, 32)]);
    let down0 = group(&c.destinations_by_level, 0, Direction::Down);
    assert_eq!(down0.histogram, vec![(1, 32)]);
    for g in &c.routes_by_level {
        eprintln!(
            "is1_3l_32n level {} {:?}: {} links, routes {}..{} mean {:.1}, imbalance {:.3}",
            g.level, g.direction, g.links, g.min, g.max, g.mean, g.imbalance
        );
    }
    // is4_3l_1944n: 17 partners at 2 hops, 36 at 4, the other 1,890 at 6.
    let (f, _) = flitsim(&dir, "is4_3l_1944n");
    let c = route_counts(&f).unwrap();
    assert_eq!(
        c.hops.counts,
        vec![0, 0, 1944 * 17, 0, 1944 * 36, 0, 1944 * (1943 - 17 - 36)]
    );
    let total: u64 = c.routes.iter().map(|&x| u64::from(x)).sum();
    assert_eq!(total, f.trace_all().total_hops);
    for g in &c.routes_by_level {
        eprintln!(
            "is4_3l_1944n level {} {:?}: {} links, routes {}..{} mean {:.1}, imbalance {:.3}; destinations {:?}",
            g.level,
            g.direction,
            g.links,
            g.min,
            g.max,
            g.mean,
            g.imbalance,
            {
                let d = group(&c.destinations_by_level, g.level, g.direction);
                (d.min, d.max)
            }
        );
    }
}
