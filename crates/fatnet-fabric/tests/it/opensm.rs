//! OpenSM's dumps: the committed fixtures (OpenSM 3.3.23 under ibsim 0.10, see
//! `tests/fixtures/opensm/README.md`) always; fresh dumps from `scripts/opensm-loop.sh` when
//! `FATNET_OPENSM_DUMPS` names their folder (`.ci/run` does).

use std::path::{Path, PathBuf};

use fatnet_fabric::export::{ca_order_by_index, folded_clos_net, kary_ntree_net};
use fatnet_fabric::opensm::{self, TableSource};
use fatnet_fabric::{Fabric, FabricError, LineReport, NodeKind, ibnetdiscover, read_text};
use fatnet_topology::{FoldedClos, KAryNTree};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/opensm")
}

/// Reads `<fabric>/opensm-subnet.lst` with the engine's tables (and CA order).
fn read_fixture(fabric: &str, engine: &str, source: TableSource) -> (Fabric, Vec<LineReport>) {
    let dir = fixtures().join(fabric);
    let lst = read_text(&dir.join("opensm-subnet.lst")).unwrap();
    let (f, r0) = opensm::parse_subnet_lst(&lst, "opensm-subnet.lst").unwrap();
    let (name, text) = match source {
        TableSource::LftsDump => ("opensm-lfts.dump", "lfts"),
        TableSource::Fdbs => ("opensm.fdbs", "fdbs"),
    };
    let dump = read_text(&dir.join(engine).join(name)).unwrap();
    let (tables, r1) = match text {
        "lfts" => opensm::parse_lfts(&dump, name).unwrap(),
        _ => opensm::parse_fdbs(&dump, name).unwrap(),
    };
    let mut f = opensm::attach_tables(f, &tables, name).unwrap();
    let mut reports = vec![r0, r1];
    let order = dir.join(engine).join("opensm-ftree-ca-order.dump");
    if order.is_file() {
        let (g, r) = opensm::apply_ca_order(f, &read_text(&order).unwrap(), "order").unwrap();
        f = g;
        reports.push(r);
    }
    (f, reports)
}

fn unrecognised(reports: &[LineReport]) -> usize {
    reports.iter().map(LineReport::unrecognised_count).sum()
}

/// The largest number of CA-to-CA routes over one directed switch-to-switch link.
fn max_link_load(f: &Fabric) -> u32 {
    let mut load = vec![0u32; f.port_id_count()];
    for &d in f.ca_order() {
        for &s in f.ca_order() {
            if s != d {
                for h in f.trace(s, d).unwrap() {
                    let to = f.peer(h.node, h.port).unwrap().node;
                    if f.node(h.node).kind() == NodeKind::Switch
                        && f.node(to).kind() == NodeKind::Switch
                    {
                        load[f.port_id(h.node, h.port).0 as usize] += 1;
                    }
                }
            }
        }
    }
    load.into_iter().max().unwrap_or(0)
}

/// (switches, CAs, links)
type Shape = (usize, usize, usize);
/// (delivered routes, total hops, max hops, max switch-to-switch link load)
type Routes = (u64, u64, u32, u32);

/// (fabric, engine, shape, routes)
const EXPECTED: [(&str, &str, Shape, Routes); 6] = [
    ("ftree-2-4-4", "ftree", (8, 8, 24), (56, 208, 4, 6)),
    ("ftree-2-4-4", "updn", (8, 8, 24), (56, 208, 4, 6)),
    ("ftree-2-4-4", "minhop", (8, 8, 24), (56, 208, 4, 6)),
    ("karyntree-2-3", "ftree", (12, 8, 24), (56, 272, 6, 6)),
    ("karyntree-2-3", "updn", (12, 8, 24), (56, 272, 6, 8)),
    ("karyntree-2-3", "minhop", (12, 8, 24), (56, 272, 6, 8)),
];

#[test]
fn fixtures_route_every_pair() {
    for (fabric, engine, (sw, ca, links), (delivered, hops, max_hops, load)) in EXPECTED {
        let (f, reports) = read_fixture(fabric, engine, TableSource::LftsDump);
        assert_eq!(unrecognised(&reports), 0, "{fabric}/{engine}");
        assert_eq!(f.switches().count(), sw);
        assert_eq!(f.cas().count(), ca);
        assert_eq!(f.links().len(), links);
        assert_eq!(f.switches().filter(|&s| f.lft(s).is_some()).count(), sw);
        let s = f.trace_all();
        assert!(s.all_valid(), "{fabric}/{engine}: {s:?}");
        assert_eq!(
            (s.delivered, s.total_hops, s.max_hops),
            (delivered, hops, max_hops),
            "{fabric}/{engine}"
        );
        assert_eq!(max_link_load(&f), load, "{fabric}/{engine}");
    }
}

#[test]
fn fixture_nets_are_what_export_writes() {
    let dir = fixtures();
    let ftree = |n, m, r| folded_clos_net(&FoldedClos::new(n, m, r).unwrap());
    let tree = kary_ntree_net(&KAryNTree::new(2, 3).unwrap());
    for (name, net) in [
        ("ftree-2-4-4", ftree(2, 4, 4)),
        // The folders of the `yuan/opensm` reproduction table.
        ("ftree-2-3-5", ftree(2, 3, 5)),
        ("ftree-3-6-6", ftree(3, 6, 6)),
        ("ftree-3-9-12", ftree(3, 9, 12)),
        ("karyntree-2-3", tree),
    ] {
        let committed = read_text(&dir.join(name).join("fabric.net")).unwrap();
        assert_eq!(committed, net, "{name}/fabric.net is stale");
        // OpenSM discovered exactly the exported links, with the exported port numbers.
        let (exported, r) = ibnetdiscover::parse(&net, "fabric.net").unwrap();
        assert_eq!(r.unrecognised_count(), 0);
        let (f, _) = read_fixture(name, "ftree", TableSource::LftsDump);
        assert_eq!(f.links().len(), exported.links().len());
        for l in exported.links() {
            let guid = |e: fatnet_fabric::Endpoint| exported.node(e.node).guid().unwrap();
            let a = f.node_by_guid(guid(l.a)).unwrap();
            let b = f.node_by_guid(guid(l.b)).unwrap();
            let peer = f.peer(a, l.a.port).unwrap();
            assert_eq!((peer.node, peer.port), (b, l.b.port), "{name}");
            assert_eq!(
                f.node(a).description(),
                exported.node(l.a.node).description()
            );
        }
    }
}

#[test]
fn ftree_ca_order_is_processor_order() {
    // OpenSM numbers the switches first (ibsim discovery order), then the CAs.
    for (name, cas, lid5) in [("ftree-2-4-4", 8, 0x000e), ("karyntree-2-3", 8, 0x0012)] {
        let (f, _) = read_fixture(name, "ftree", TableSource::LftsDump);
        assert_eq!(f.ca_order(), ca_order_by_index(&f, cas).unwrap().as_slice());
        assert_eq!(f.node(f.ca_order()[5]).description(), "ca 5");
        assert_eq!(f.node(f.ca_order()[5]).lid(), Some(lid5));
    }
}

#[test]
fn fdbs_and_ibroute_agree_with_the_lfts_dump() {
    let dir = fixtures();
    for name in ["ftree-2-4-4", "karyntree-2-3"] {
        let (lfts, _) = read_fixture(name, "ftree", TableSource::LftsDump);
        let (fdbs, r) = read_fixture(name, "ftree", TableSource::Fdbs);
        assert_eq!(unrecognised(&r), 0);
        for sw in lfts.switches() {
            let (a, b) = (lfts.lft(sw).unwrap(), fdbs.lft(sw).unwrap());
            for &ca in lfts.ca_order() {
                let lid = lfts.node(ca).lid().unwrap();
                assert_eq!(a.get(lid), b.get(lid), "{name}");
                assert!(a.get(lid).is_some());
            }
        }
    }
    let text = read_text(&dir.join("karyntree-2-3/ftree/ibroute.out")).unwrap();
    let (tables, r) = opensm::parse_lfts(&text, "ibroute.out").unwrap();
    assert_eq!(r.unrecognised_count(), 0);
    assert_eq!(tables.len(), 12);
    assert!(
        tables.iter().all(|t| t.lid.is_none()),
        "dump_lfts names switches by DR path"
    );
    let (f, _) = read_fixture("karyntree-2-3", "ftree", TableSource::LftsDump);
    for t in &tables {
        let sw = f.node_by_guid(t.guid).unwrap();
        assert_eq!(
            f.lft(sw).unwrap(),
            &t.lft,
            "the switches hold what OpenSM dumped"
        );
    }
    // opensm.fdbs keeps hop counts: a leaf switch is 1 hop from its CAs, 5 from the farthest.
    let text = read_text(&dir.join("karyntree-2-3/ftree/opensm.fdbs")).unwrap();
    let (tables, _) = opensm::parse_fdbs(&text, "opensm.fdbs").unwrap();
    let leaf = f
        .node_by_guid(fatnet_fabric::export::switch_guid(1, 0))
        .unwrap();
    let t = tables
        .iter()
        .find(|t| t.guid == f.node(leaf).guid().unwrap())
        .unwrap();
    let hops: Vec<u8> = f
        .ca_order()
        .iter()
        .map(|&c| t.hops[usize::from(f.node(c).lid().unwrap())])
        .collect();
    assert_eq!(hops, [1, 1, 3, 3, 5, 5, 5, 5]);
}

#[test]
fn truncated_and_corrupted_dumps_are_errors_not_panics() {
    let dir = fixtures().join("karyntree-2-3");
    let lst = read_text(&dir.join("opensm-subnet.lst")).unwrap();
    let lfts = read_text(&dir.join("ftree/opensm-lfts.dump")).unwrap();
    let fdbs = read_text(&dir.join("ftree/opensm.fdbs")).unwrap();
    let order = read_text(&dir.join("ftree/opensm-ftree-ca-order.dump")).unwrap();
    // A table cut off before its footer.
    let cut: String = lfts.lines().take(10).map(|l| format!("{l}\n")).collect();
    match opensm::parse_lfts(&cut, "cut.dump") {
        Err(FabricError::UnexpectedEof { file, line, .. }) => {
            assert_eq!((file.as_str(), line), ("cut.dump", 10));
        }
        other => panic!("{other:?}"),
    }
    // A record cut in the middle of a line names that line.
    let half = &lst[..lst.find("\n").unwrap() / 2];
    match opensm::parse_subnet_lst(half, "half.lst") {
        Err(FabricError::Syntax { line: 1, file, .. }) => assert_eq!(file, "half.lst"),
        other => panic!("{other:?}"),
    }
    // A wrong footer count.
    let bad = lfts.replacen("20 lids dumped", "19 lids dumped", 1);
    assert!(matches!(
        opensm::parse_lfts(&bad, "x"),
        Err(FabricError::Syntax { line: 22, .. })
    ));
    // A table for a GUID the subnet does not have.
    let (f, _) = opensm::parse_subnet_lst(&lst, "lst").unwrap();
    let alien = lfts.replacen("guid 0x5357010000000000", "guid 0x5357010000000001", 1);
    let (t, _) = opensm::parse_lfts(&alien, "alien").unwrap();
    assert!(matches!(
        opensm::attach_tables(f.clone(), &t, "alien"),
        Err(FabricError::Unknown { line: 1, .. })
    ));
    // A CA order naming a switch LID.
    assert!(matches!(
        opensm::apply_ca_order(f.clone(), "0x0001\tsw 1 0\n", "order"),
        Err(FabricError::Unknown { line: 1, .. })
    ));
    // Every prefix of every dump, cut at any line, is read or refused with a line in range.
    for (text, which) in [(&lst, 0), (&lfts, 1), (&fdbs, 2), (&order, 3)] {
        for cut in (0..text.len()).step_by(97) {
            let Some(prefix) = text.get(..cut) else {
                continue;
            };
            let lines = prefix.lines().count().max(1);
            let r = match which {
                0 => opensm::parse_subnet_lst(prefix, "p").map(|_| ()),
                1 => opensm::parse_lfts(prefix, "p").map(|_| ()),
                2 => opensm::parse_fdbs(prefix, "p").map(|_| ()),
                _ => opensm::apply_ca_order(f.clone(), prefix, "p").map(|_| ()),
            };
            if let Err(e) = r {
                let l = e.line().unwrap();
                assert!((1..=lines).contains(&l), "{e}");
            }
        }
    }
}

/// Fresh dumps from `scripts/opensm-loop.sh`: `$FATNET_OPENSM_DUMPS/<fabric>/<engine>/`. Every
/// engine's tables must route every CA pair, with no unrecognised line in any file, and the
/// engine that routed must be the one asked for.
#[test]
fn fresh_opensm_dumps() {
    let Some(root) = std::env::var_os("FATNET_OPENSM_DUMPS") else {
        println!("FATNET_OPENSM_DUMPS unset: no fresh OpenSM dumps to check (see .ci/run)");
        return;
    };
    let root = PathBuf::from(root);
    let mut fabrics: Vec<_> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    fabrics.sort();
    assert!(
        !fabrics.is_empty(),
        "no fabric folders in {}",
        root.display()
    );
    let mut checked = 0;
    for fabric in &fabrics {
        for engine in ["ftree", "updn", "minhop"] {
            let dir = fabric.join(engine);
            if !dir.is_dir() {
                continue;
            }
            let used = read_text(&dir.join("engine-used")).unwrap();
            assert_eq!(used.trim(), engine, "{}", dir.display());
            for source in [TableSource::LftsDump, TableSource::Fdbs] {
                let (f, reports) = opensm::read_dumps(&dir, source).unwrap();
                assert_eq!(unrecognised(&reports), 0, "{reports:?}");
                let s = f.trace_all();
                assert!(s.all_valid(), "{}: {s:?}", dir.display());
                assert_eq!(s.routes, (f.cas().count() * (f.cas().count() - 1)) as u64);
                if source == TableSource::LftsDump {
                    println!(
                        "{}: {} switches, {} CAs, {}/{} routes valid, {} hops max, max link load {}",
                        dir.display(),
                        f.switches().count(),
                        f.cas().count(),
                        s.delivered,
                        s.routes,
                        s.max_hops,
                        max_link_load(&f)
                    );
                }
            }
            // The tables the switches hold (ibroute) are the ones OpenSM dumped.
            let (f, _) = opensm::read_dumps(&dir, TableSource::LftsDump).unwrap();
            let text = read_text(&dir.join("ibroute.out")).unwrap();
            let (tables, r) = opensm::parse_lfts(&text, "ibroute.out").unwrap();
            assert_eq!(r.unrecognised_count(), 0);
            assert_eq!(tables.len(), f.switches().count());
            for t in &tables {
                let sw = f.node_by_guid(t.guid).unwrap();
                assert_eq!(f.lft(sw).unwrap(), &t.lft);
            }
            // ibnetdiscover sees the same fabric.
            let text = read_text(&dir.join("ibnetdiscover.out")).unwrap();
            let (g, r) = ibnetdiscover::parse(&text, "ibnetdiscover.out").unwrap();
            assert_eq!(r.unrecognised_count(), 0);
            assert_eq!(g.links().len(), f.links().len());
            for ca in f.cas() {
                let other = g.node_by_guid(f.node(ca).guid().unwrap()).unwrap();
                assert_eq!(g.node(other).lid(), f.node(ca).lid());
            }
            checked += 1;
        }
    }
    assert!(
        checked >= 3,
        "only {checked} engine folders under {}",
        root.display()
    );
}

/// An engine's folder of tables, beside the one subnet dump of its fabric (the fixtures'
/// layout), is a fabric on its own: the subnet comes from the parent folder, the tables from
/// the folder; the same fabric and routes as naming both.
#[test]
fn an_engine_folder_finds_the_subnet_in_its_parent() {
    use fatnet_fabric::FabricFiles;
    let dir = fixtures().join("ftree-2-4-4");
    let folder = FabricFiles {
        fabric: dir.join("updn"),
        routes: None,
        ca_order: None,
        format: Default::default(),
    }
    .load()
    .unwrap();
    let both = FabricFiles {
        fabric: dir.join("opensm-subnet.lst"),
        routes: Some(dir.join("updn")),
        ca_order: None,
        format: Default::default(),
    }
    .load()
    .unwrap();
    assert_eq!(folder.fabric.cas().count(), 8);
    let (a, b) = (folder.fabric.trace_all(), both.fabric.trace_all());
    assert!(a.all_valid(), "{a:?}");
    assert_eq!((a.delivered, a.total_hops), (b.delivered, b.total_hops));
    assert_eq!((a.delivered, a.total_hops), (56, 208));
}
