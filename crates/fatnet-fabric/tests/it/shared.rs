//! The real fabrics of `../shared/fabrics/` (or `$FATNET_FABRICS`). When the directory is
//! absent (a clean clone elsewhere), each test prints a notice and returns.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use fatnet_fabric::{Fabric, LineReport, NodeKind, ibdm, ibnetdiscover, read_flitsim, read_text};

pub(crate) fn fabrics_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("FATNET_FABRICS").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/fabrics"),
        PathBuf::from,
    );
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!(
            "NOTICE: {} not found (set FATNET_FABRICS); skipping the shared-fabric test",
            dir.display()
        );
        None
    }
}

fn text(dir: &Path, rel: &str) -> (String, String) {
    (rel.to_owned(), read_text(&dir.join(rel)).unwrap())
}

fn assert_all_recognised(reports: &[LineReport]) {
    for r in reports {
        eprintln!(
            "{}: {} lines, {} unrecognised",
            r.file,
            r.lines,
            r.unrecognised_count()
        );
        assert_eq!(r.unrecognised, Vec::<usize>::new(), "{}", r.file);
        assert!(r.lines > 0);
    }
}

fn counts(f: &Fabric) -> (usize, usize, usize) {
    (f.switches().count(), f.cas().count(), f.links().len())
}

/// Every CA and switch has a LID, every port's peer points back.
fn assert_consistent(f: &Fabric) {
    for (i, n) in f.nodes().iter().enumerate() {
        for (p, e) in n.neighbours() {
            let back = f.peer(e.node, e.port).unwrap();
            assert_eq!((back.node.index(), back.port), (i, p));
        }
    }
    let ports: usize = f.nodes().iter().map(|n| n.neighbours().count()).sum();
    assert_eq!(ports, 2 * f.links().len());
}

#[test]
fn topograph_example_out() {
    let Some(dir) = fabrics_dir() else { return };
    let (file, t) = text(&dir, "topograph/example.out");
    let (f, r) = ibnetdiscover::parse(&t, &file).unwrap();
    assert_all_recognised(&[r]);
    // README: 40 switches (31 leaf, 9 spine), 582 CAs including SHARP aggregation nodes.
    assert_eq!(counts(&f), (40, 582, 1114));
    assert_consistent(&f);
    assert!(f.nodes().iter().all(|n| n.lid().is_some()));
    let sharp: Vec<_> = f
        .cas()
        .filter(|&c| f.node(c).description().contains("Aggregation Node"))
        .collect();
    assert_eq!(sharp.len(), 40);
    // Each aggregation node hangs off port 65 of its switch.
    for c in sharp {
        let (_, e) = f.neighbours(c).next().unwrap();
        assert_eq!(e.port, 65);
        assert_eq!(f.node(e.node).kind(), NodeKind::Switch);
    }
    // Spines (no CA neighbour other than their aggregation node) and leaves.
    let leaves = f
        .switches()
        .filter(|&s| {
            f.neighbours(s)
                .any(|(p, e)| p != 65 && f.node(e.node).kind() == NodeKind::Ca)
        })
        .count();
    assert_eq!(leaves, 31);
}

#[test]
fn hpc_toolset_x5() {
    let Some(dir) = fabrics_dir() else { return };
    let (file, t) = text(&dir, "hpc_toolset/X5.topofile");
    let (f, r) = ibnetdiscover::parse(&t, &file).unwrap();
    assert_all_recognised(&[r]);
    assert_eq!(counts(&f), (11, 89, 159));
    assert_consistent(&f);
    // `#` inside a quoted description.
    let s = f.node_by_guid(0x0008_f105_0010_8c5c).unwrap();
    assert_eq!(f.node(s).description(), "Voltaire 4036 # 4036-8C5C");
    assert_eq!(f.node(s).lid(), Some(16));
}

pub(crate) fn flitsim(dir: &Path, name: &str) -> (Fabric, Vec<LineReport>) {
    let ned = text(dir, &format!("ib_flit_sim/{name}/{name}.ned"));
    let fdbs = text(dir, &format!("ib_flit_sim/{name}/{name}.fdbs"));
    let ini = text(dir, &format!("ib_flit_sim/{name}/{name}.fdbs.ini"));
    let hcas = text(dir, &format!("ib_flit_sim/{name}/ftree.hcas"));
    read_flitsim(
        (&ned.0, &ned.1),
        (&fdbs.0, &fdbs.1),
        (&ini.0, &ini.1),
        Some((&hcas.0, &hcas.1)),
    )
    .unwrap()
}

/// The `.ned` links as `(name, port)` pairs with `.topo` names (`SW_L0_0_0_U1` → `SW-L0-0-0`,
/// `SWS_0_leaf1_U1` → `SWS_0/L1`), for comparison with the `.topo`.
fn ned_links_as_topo(f: &Fabric) -> BTreeSet<((String, u8), (String, u8))> {
    let name = |s: &str| -> String {
        let s = s.strip_suffix("_U1").unwrap_or(s);
        if let Some((sys, leaf)) = s.split_once("_leaf") {
            format!("{sys}/L{leaf}")
        } else {
            s.replace('_', "-")
        }
    };
    link_set(f, name)
}

fn link_set(f: &Fabric, name: impl Fn(&str) -> String) -> BTreeSet<((String, u8), (String, u8))> {
    f.links()
        .iter()
        .map(|l| {
            let a = (name(f.node(l.a.node).name()), l.a.port);
            let b = (name(f.node(l.b.node).name()), l.b.port);
            if a < b { (a, b) } else { (b, a) }
        })
        .collect()
}

#[test]
fn is1_3l_32n() {
    let Some(dir) = fabrics_dir() else { return };
    let (f, reports) = flitsim(&dir, "is1_3l_32n");
    assert_all_recognised(&reports);
    assert_eq!(counts(&f), (20, 32, 96));
    assert_consistent(&f);
    assert!(
        f.switches()
            .all(|s| f.lft(s).is_some_and(|t| t.len() == 33))
    );
    // ftree.hcas lists H-1..H-32 with LIDs 1..32.
    let lids: Vec<_> = f
        .ca_order()
        .iter()
        .map(|&c| f.node(c).lid().unwrap())
        .collect();
    assert_eq!(lids, (1..=32).collect::<Vec<u16>>());
    // The tables are complete: every one of the 32·31 routes arrives, in 2, 4 or 6 hops.
    let s = f.trace_all();
    assert_eq!((s.routes, s.delivered), (992, 992));
    assert!(s.all_valid() && s.examples.is_empty());
    assert_eq!(s.max_hops, 6);
    // 3 same-leaf partners at 2 hops, 4 at 4 hops (same L1 pair), 24 at 6 hops: per source
    // 3·2 + 4·4 + 24·6 = 166; 32 sources.
    assert_eq!(s.total_hops, 32 * (3 * 2 + 4 * 4 + 24 * 6));
    // The .topo describes the same wiring (ports P1.. = gates port[0]..).
    let (topo_file, topo) = text(&dir, "ib_flit_sim/is1_3l_32n/is1_3l_32n.topo");
    let (t, r) = ibdm::parse(&topo, &topo_file, &ibdm::IbdmOptions::default()).unwrap();
    assert_all_recognised(&[r]);
    assert_eq!(counts(&t), (20, 32, 96));
    assert_eq!(link_set(&t, str::to_owned), ned_links_as_topo(&f));
}

#[test]
fn is4_3l_1944n() {
    let Some(dir) = fabrics_dir() else { return };
    let (f, reports) = flitsim(&dir, "is4_3l_1944n");
    assert_all_recognised(&reports);
    // 108 leaf switches + 3 directors of 36 leaf and 18 spine chips: 270 chips.
    assert_eq!(counts(&f), (270, 1944, 5832));
    assert_consistent(&f);
    // All 1944·1943 routes, at opt-level 1 in about 0.2 s: every one arrives.
    let s = f.trace_all();
    assert_eq!(s.routes, 1944 * 1943);
    assert!(s.all_valid(), "{:?}", s.examples);
    assert_eq!(s.max_hops, 6);
    // Per source: 17 partners on the same leaf at 2 hops; 36 on the two other leaves that share
    // a director leaf chip (each chip serves 3 leaves with 6 cables each) at 4 hops; the rest
    // through a director spine at 6 hops (leaf, director leaf, spine, director leaf, leaf).
    assert_eq!(
        s.total_hops,
        1944 * (17 * 2 + 36 * 4 + (1943 - 17 - 36) * 6)
    );
    // The .topo's director ports `L<n>/P<p>` are port p of line card n's leaf chip.
    let (topo_file, topo) = text(&dir, "ib_flit_sim/is4_3l_1944n/is4_3l_1944n.topo");
    let (t, r) = ibdm::parse(&topo, &topo_file, &ibdm::IbdmOptions::default()).unwrap();
    assert_all_recognised(&[r]);
    // 108 leaves + 3 director systems (isolated placeholders) + 108 line-card chips.
    assert_eq!(counts(&t), (219, 1944, 3888));
    let ned = ned_links_as_topo(&f);
    let topo_links = link_set(&t, str::to_owned);
    assert!(topo_links.is_subset(&ned));
}
