//! `FabricTopology`: the `fatnet_topology::Topology` invariants on OpenSM's committed dumps and
//! on generated folded Clos fabrics, and the loads of `fatnet-load` against the fabric's own
//! `traffic_load`.
//!
//! The packet engine on a `FabricTopology` is tested in `packet.rs`.

use std::path::{Path, PathBuf};

use fatnet_fabric::opensm::{self, SwitchTable};
use fatnet_fabric::{Fabric, FabricError, FabricTopology, NodeKind, from_folded_clos, read_text};
use fatnet_load::{LoadReport, PathSelection, channel_loads};
use fatnet_offline::clos::DModM;
use fatnet_topology::{BundleId, ChannelId, Direction, FoldedClos, NodeId, Topology};
use fatnet_traffic::{Message, MessageSet, patterns};
use rand::SeedableRng;
use rand_pcg::Pcg64;

const FABRICS: [&str; 5] = [
    "ftree-2-3-5",
    "ftree-2-4-4",
    "ftree-3-6-6",
    "ftree-3-9-12",
    "karyntree-2-3",
];
const ENGINES: [&str; 3] = ["ftree", "updn", "minhop"];

fn dir(fabric: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/opensm")
        .join(fabric)
}

/// The fixture's subnet and the engine's `opensm-lfts.dump` tables (the fixtures keep one
/// `opensm-subnet.lst` per fabric and the tables per engine, so `opensm::read_dumps`, which
/// wants both in one folder, does not apply).
fn subnet_and_tables(fabric: &str, engine: &str) -> (Fabric, Vec<SwitchTable>) {
    let d = dir(fabric);
    let lst = read_text(&d.join("opensm-subnet.lst")).unwrap();
    let (f, _) = opensm::parse_subnet_lst(&lst, "opensm-subnet.lst").unwrap();
    let dump = read_text(&d.join(engine).join("opensm-lfts.dump")).unwrap();
    let (tables, _) = opensm::parse_lfts(&dump, "opensm-lfts.dump").unwrap();
    (f, tables)
}

pub(crate) fn fixture(fabric: &str, engine: &str) -> Fabric {
    let (f, tables) = subnet_and_tables(fabric, engine);
    let mut f = opensm::attach_tables(f, &tables, "opensm-lfts.dump").unwrap();
    let order = dir(fabric).join(engine).join("opensm-ftree-ca-order.dump");
    if order.is_file() {
        let text = read_text(&order).unwrap();
        if !text.trim().is_empty() {
            f = opensm::apply_ca_order(f, &text, "order").unwrap().0;
        }
    }
    f
}

fn clos_fabrics() -> Vec<Fabric> {
    [(2, 4, 4), (3, 2, 5), (3, 1, 4), (2, 3, 2)]
        .into_iter()
        .map(|(n, m, r)| {
            let clos = FoldedClos::new(n, m, r).unwrap();
            from_folded_clos(&clos, &DModM::new(&clos)).unwrap()
        })
        .collect()
}

fn all_fabrics() -> Vec<(String, Fabric)> {
    let mut out = Vec::new();
    for fabric in FABRICS {
        for engine in ENGINES {
            out.push((format!("{fabric}/{engine}"), fixture(fabric, engine)));
        }
    }
    for (i, f) in clos_fabrics().into_iter().enumerate() {
        out.push((format!("clos #{i}"), f));
    }
    out
}

/// The `Topology` contract, checked exhaustively, plus agreement with `Fabric::trace`.
fn check_invariants(name: &str, f: &Fabric, t: &FabricTopology) {
    let p = t.num_processors();
    assert_eq!(p as usize, f.ca_order().len(), "{name}");
    assert_eq!(t.num_switches() as usize, f.switches().count(), "{name}");
    assert_eq!(t.num_nodes(), p + t.num_switches(), "{name}");
    assert_eq!(t.num_bundles(), t.num_channels(), "{name}");
    assert_eq!(t.num_channels() as usize, 2 * f.links().len(), "{name}");
    for v in 0..t.num_nodes() {
        let node = t.node(NodeId(v));
        let is_proc = v < p;
        assert_eq!(
            node.kind == fatnet_topology::NodeKind::Processor,
            is_proc,
            "{name}"
        );
        assert_eq!(node.level == 0, is_proc, "{name}: level of node {v}");
        let fnode = t.fabric_node(NodeId(v));
        assert_eq!(t.topology_node(fnode), Some(NodeId(v)), "{name}");
        let kind = f.node(fnode).kind();
        assert_eq!(kind == NodeKind::Ca, is_proc, "{name}");
        // A switch at level l > 0 has a neighbour at level l - 1 (hop distance from the CAs).
        if !is_proc {
            let below = f.neighbours(fnode).any(|(_, e)| {
                t.topology_node(e.node)
                    .is_some_and(|w| t.node(w).level + 1 == node.level)
            });
            assert!(below, "{name}: switch {v} at level {}", node.level);
        }
    }
    for c in 0..t.num_channels() {
        let ch = t.channel(ChannelId(c));
        let back = t.channel(ChannelId(c ^ 1));
        assert_eq!((ch.from, ch.to), (back.to, back.from), "{name}");
        assert_eq!(ch.capacity, 1);
        assert_eq!(ch.bundle, BundleId(c));
        assert_eq!(t.bundle_capacity(ch.bundle), 1);
        let (lf, lt) = (t.node(ch.from).level, t.node(ch.to).level);
        assert!(lf.abs_diff(lt) <= 1, "{name}: channel {c} skips a level");
        assert_eq!(ch.level, lf.min(lt));
        let expect = match lt.cmp(&lf) {
            std::cmp::Ordering::Greater => Direction::Up,
            std::cmp::Ordering::Less => Direction::Down,
            std::cmp::Ordering::Equal => Direction::Forward,
        };
        assert_eq!(ch.direction, expect);
    }
    let mut path = Vec::new();
    for s in 0..p {
        for d in 0..p {
            assert_eq!(t.path_count(s, d), 1);
            t.path_into(s, d, 0, &mut path);
            if s == d {
                assert!(path.is_empty(), "{name}: {s} -> {s}");
                continue;
            }
            assert!(!path.is_empty());
            assert_eq!(t.channel(path[0]).from, t.injection_node(s), "{name}");
            assert_eq!(
                t.channel(*path.last().unwrap()).to,
                t.ejection_node(d),
                "{name}"
            );
            for w in path.windows(2) {
                assert_eq!(
                    t.channel(w[0]).to,
                    t.channel(w[1]).from,
                    "{name}: {s} -> {d}"
                );
            }
            let (fs, fd) = (f.ca_order()[s as usize], f.ca_order()[d as usize]);
            let hops: Vec<ChannelId> = f
                .trace(fs, fd)
                .unwrap()
                .into_iter()
                .map(|h| t.channel_of_port(h.node, h.port).unwrap())
                .collect();
            assert_eq!(path, hops, "{name}: {s} -> {d}");
            assert_eq!(t.distance(s, d), path.len());
        }
    }
}

#[test]
fn invariants_hold_on_opensm_dumps_and_generated_clos() {
    for (name, f) in all_fabrics() {
        let t = FabricTopology::new(&f).unwrap();
        check_invariants(&name, &f, &t);
    }
}

#[test]
fn levels_of_a_folded_clos_are_its_tiers() {
    let clos = FoldedClos::new(2, 4, 4).unwrap();
    let f = from_folded_clos(&clos, &DModM::new(&clos)).unwrap();
    let t = FabricTopology::new(&f).unwrap();
    assert_eq!((t.num_processors(), t.num_switches()), (8, 8));
    let levels: Vec<u32> = (0..t.num_nodes())
        .map(|v| t.node(NodeId(v)).level)
        .collect();
    // Processors, then bottom switches B0..B3, then tops T0..T3 (node order).
    assert_eq!(levels, [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2]);
    // Leaf to a leaf of another bottom switch: up, up, down, down.
    let dirs: Vec<Direction> = t
        .path(0, 7)
        .iter()
        .map(|&c| t.channel(c).direction)
        .collect();
    assert_eq!(
        dirs,
        [
            Direction::Up,
            Direction::Up,
            Direction::Down,
            Direction::Down
        ]
    );
    assert_eq!(t.path(0, 1).len(), 2);
}

/// The per-channel loads of `fatnet-load` over the fabric topology agree with the fabric's own
/// `traffic_load` link by link, so the congestions agree; and as every link of a fabric is its
/// own bundle of capacity 1, λ equals that congestion here.
#[test]
fn loads_and_congestion_equal_traffic_load() {
    let mut rng = Pcg64::seed_from_u64(7);
    for (name, f) in all_fabrics() {
        let t = FabricTopology::new(&f).unwrap();
        let p = t.num_processors();
        let mut sets = vec![patterns::complement(p).unwrap()];
        for _ in 0..3 {
            sets.push(patterns::random_permutation(p, &mut rng).unwrap());
        }
        for shift in [1, p / 2] {
            let msgs = (0..p).map(|s| Message::new(s, (s + shift) % p)).collect();
            sets.push(MessageSet::new(p, msgs).unwrap());
        }
        for set in &sets {
            let pairs: Vec<(u32, u32)> = set.messages().iter().map(|m| (m.src, m.dst)).collect();
            let fabric_load = f.traffic_load(&pairs, 0).unwrap();
            assert_eq!(fabric_load.delivered, pairs.len() as u64);
            let loads = channel_loads(&t, set, PathSelection::Standard).unwrap();
            for c in 0..t.num_channels() {
                let ch = t.channel(ChannelId(c));
                let fnode = t.fabric_node(ch.from);
                let port = f
                    .neighbours(fnode)
                    .find(|&(port, _)| t.channel_of_port(fnode, port) == Some(ChannelId(c)))
                    .unwrap()
                    .0;
                assert_eq!(
                    loads.per_channel[c as usize],
                    u64::from(fabric_load.per_link[f.port_id(fnode, port).0 as usize]),
                    "{name}: channel {c}"
                );
            }
            let report = LoadReport::new(&t, loads);
            assert_eq!(report.load_factor.capacity, 1, "{name}");
            assert_eq!(
                report.load_factor.load,
                u64::from(fabric_load.congestion),
                "{name}"
            );
            assert_eq!(report.congestion, u64::from(fabric_load.congestion));
        }
    }
}

#[test]
fn a_fabric_without_tables_is_refused() {
    let lst = read_text(&dir("ftree-2-4-4").join("opensm-subnet.lst")).unwrap();
    let (f, _) = opensm::parse_subnet_lst(&lst, "opensm-subnet.lst").unwrap();
    assert!(matches!(
        FabricTopology::new(&f),
        Err(FabricError::NoForwardingTables)
    ));
}

/// Without one switch's table, routes through it dead-end: the error names the first broken
/// pair by source, then destination, in CA order, as `Fabric::trace` finds it.
#[test]
fn the_first_broken_route_is_reported() {
    for fabric in FABRICS {
        let (f, mut tables) = subnet_and_tables(fabric, "minhop");
        tables.remove(tables.len() / 2);
        let f = opensm::attach_tables(f, &tables, "opensm-lfts.dump").unwrap();
        let order = f.ca_order();
        let expected = (0..order.len())
            .flat_map(|s| (0..order.len()).map(move |d| (s, d)))
            .filter(|&(s, d)| s != d)
            .find_map(|(s, d)| {
                f.trace(order[s], order[d])
                    .err()
                    .map(|fault| (s as u32, d as u32, fault))
            })
            .expect("a missing table breaks some route");
        match FabricTopology::new(&f) {
            Err(FabricError::BadRoute { src, dst, fault }) => {
                assert_eq!((src, dst, fault), expected, "{fabric}");
            }
            other => panic!("{fabric}: expected BadRoute, got {other:?}"),
        }
    }
}
