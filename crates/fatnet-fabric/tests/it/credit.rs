//! Credit loops on fabrics OpenSM routed under ibsim (committed fixtures, and fresh dumps when
//! `FATNET_OPENSM_DUMPS` names them), on the shared real fabrics, and the readers of the
//! virtual-lane dumps on bad input.

use std::path::{Path, PathBuf};

use fatnet_fabric::credit::{parse_path_records, parse_sl2vl};
use fatnet_fabric::export::SwitchTorus;
use fatnet_fabric::{
    CreditLoop, CreditLoops, Fabric, FabricError, FabricFiles, NodeKind, PortId, VirtualLanes,
    credit_loops, read_text,
};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/opensm")
}

/// The fabric of `dir` (an engine folder beside its `opensm-subnet.lst`) with its tables.
fn load(dir: &Path) -> Fabric {
    FabricFiles::new(dir).load().unwrap().fabric
}

/// The virtual lanes of an engine folder that has `opensm-sl2vl.dump` and `saquery-pr.out`.
fn lanes(dir: &Path, f: &Fabric) -> Option<VirtualLanes> {
    let (t, p) = (dir.join("opensm-sl2vl.dump"), dir.join("saquery-pr.out"));
    (t.is_file() && p.is_file()).then(|| VirtualLanes::read(f, &t, &p).unwrap())
}

/// The (channel, VL) sequence of route `src -> dst` (CA-order positions), computed on its own
/// from `Fabric::trace` and the lane tables.
fn route_channels(
    f: &Fabric,
    lanes: Option<&VirtualLanes>,
    src: u32,
    dst: u32,
) -> Vec<(PortId, u8)> {
    let (s, d) = (f.ca_order()[src as usize], f.ca_order()[dst as usize]);
    let hops = f.trace(s, d).unwrap();
    let sl = lanes.map(|l| l.sl(f, s, d).unwrap());
    let mut out = Vec::new();
    let mut input = 0u8;
    for (i, h) in hops.iter().enumerate() {
        let vl = match (lanes, sl) {
            (Some(l), Some(sl)) if i == 0 => l.ca_vl(h.node, sl),
            (Some(l), Some(sl)) => l.switch_vl(h.node, input, h.port, sl).unwrap(),
            _ => 0,
        };
        out.push((f.port_id(h.node, h.port), vl));
        input = f.peer(h.node, h.port).unwrap().port;
    }
    out
}

/// Re-checks a witness: its links form a cycle (each one ends at the switch the next one
/// leaves), and each dependency's route uses the next channel right after this one.
fn assert_witness(f: &Fabric, lanes: Option<&VirtualLanes>, w: &CreditLoop) {
    let k = w.channels.len();
    assert!(k >= 2, "{w:?}");
    assert_eq!(w.routes.len(), k);
    for i in 0..k {
        let (a, b) = (w.channels[i], w.channels[(i + 1) % k]);
        let head = f.directed_link(a.link).unwrap().to.node;
        let tail = f.port_of(b.link).unwrap().node;
        assert_eq!(head, tail, "link {i} does not lead to link {}", i + 1);
        assert_eq!(f.node(head).kind(), NodeKind::Switch);
        let (s, d) = w.routes[i];
        let route = route_channels(f, lanes, s, d);
        assert!(
            route
                .windows(2)
                .any(|p| p[0] == (a.link, a.vl) && p[1] == (b.link, b.vl)),
            "route {s} -> {d} does not use {} right after {}",
            f.link_label(b.link),
            f.link_label(a.link)
        );
    }
}

/// The verdict and counts, with the witness re-checked.
fn check(dir: &Path, with_lanes: bool) -> (Fabric, CreditLoops) {
    let f = load(dir);
    let l = if with_lanes { lanes(dir, &f) } else { None };
    assert_eq!(with_lanes, l.is_some(), "{}", dir.display());
    let c = credit_loops(&f, l.as_ref()).unwrap();
    let n = f.ca_order().len() as u64;
    assert_eq!((c.routes, c.faulty_routes), (n * (n - 1), 0));
    assert_eq!(c.is_free(), c.cyclic_components == 0);
    assert_eq!(
        c.per_lane.iter().map(|x| x.channels).sum::<u64>(),
        c.channels
    );
    assert_eq!(
        c.per_lane.iter().map(|x| x.dependencies).sum::<u64>() + c.cross_lane_dependencies,
        c.dependencies
    );
    if let Some(w) = &c.witness {
        assert_witness(&f, l.as_ref(), w);
        assert!(c.cyclic_channels >= w.channels.len() as u64);
    }
    eprintln!(
        "{} (lanes {with_lanes}): {} channels, {} dependencies, {} cyclic components, witness of {} links",
        dir.display(),
        c.channels,
        c.dependencies,
        c.cyclic_components,
        c.witness.as_ref().map_or(0, |w| w.channels.len())
    );
    (f, c)
}

#[test]
fn fat_trees_routed_by_opensm_are_free_of_credit_loops() {
    for fabric in [
        "ftree-2-4-4",
        "ftree-2-3-5",
        "ftree-3-6-6",
        "ftree-3-9-12",
        "karyntree-2-3",
    ] {
        for engine in ["ftree", "updn", "minhop"] {
            let (f, c) = check(&fixtures().join(fabric).join(engine), false);
            assert!(c.is_free(), "{fabric}/{engine}: {:?}", c.witness);
            // Every route's first and last link are channels; the graph has at most one
            // dependency per (switch, input port, output port).
            assert_eq!(c.lanes, 1);
            assert!(c.channels as usize <= 2 * f.links().len());
        }
    }
}

#[test]
fn minhop_on_a_ring_and_a_torus_has_credit_loops() {
    for fabric in ["ring-6-1", "torus-4x4-1"] {
        let (f, c) = check(&fixtures().join(fabric).join("minhop"), false);
        let w = c
            .witness
            .as_ref()
            .unwrap_or_else(|| panic!("{fabric}: no loop"));
        // A loop runs between switches only.
        for ch in &w.channels {
            let l = f.directed_link(ch.link).unwrap();
            assert_eq!(f.node(l.from.node).kind(), NodeKind::Switch);
            assert_eq!(f.node(l.to.node).kind(), NodeKind::Switch);
        }
    }
    // A 3 x 3 torus is too small for one: every switch is a neighbour in each dimension, so a
    // minimal route makes at most one hop per dimension, and minhop's choices there happen
    // to make no cycle across the two dimensions either (what OpenSM 3.3.23 did, checked).
    let (_, c) = check(&fixtures().join("torus-3x3-1/minhop"), false);
    assert!(c.is_free(), "{:?}", c.witness);
    // On a ring of 6 with one CA per switch, minhop's routes of up to 3 switch hops go both
    // ways round: a shortest loop runs round the ring in one direction, 6 links.
    let (_, c) = check(&fixtures().join("ring-6-1/minhop"), false);
    assert_eq!(c.witness.unwrap().channels.len(), 6);
}

#[test]
fn lash_and_dfsssp_are_free_of_credit_loops_per_virtual_lane() {
    for fabric in ["ring-6-1", "torus-3x3-1"] {
        for engine in ["lash", "dfsssp"] {
            let dir = fixtures().join(fabric).join(engine);
            let (_, c) = check(&dir, true);
            assert!(c.is_free(), "{fabric}/{engine}: {:?}", c.witness);
            // Both engines keep a route on one VL end to end.
            assert_eq!(c.cross_lane_dependencies, 0, "{fabric}/{engine}");
            let (_, plain) = check(&dir, false);
            eprintln!(
                "{fabric}/{engine}: {} VLs used; ignoring the VLs: {}",
                c.per_lane.len(),
                if plain.is_free() { "no loop" } else { "a loop" }
            );
            // Ignoring the lanes merges them: as many dependencies between links or fewer.
            assert!(plain.dependencies <= c.dependencies);
        }
    }
    // The ring needs more than one lane: ignoring them, the same tables have a loop.
    for engine in ["lash", "dfsssp"] {
        let dir = fixtures().join("ring-6-1").join(engine);
        let (_, c) = check(&dir, true);
        assert!(c.per_lane.len() >= 2, "{engine}: {:?}", c.per_lane);
        assert!(!check(&dir, false).1.is_free(), "{engine}");
    }
}

#[test]
fn lanes_that_change_along_a_route_link_the_lanes() {
    // The ring's LASH tables with every switch mapping SL s to VL (s + 1) mod 8 on the links
    // between switches: every route changes lane at its first switch, the dependencies cross
    // lanes, and the graph is still acyclic (each route's switch hops stay on one lane).
    let dir = fixtures().join("ring-6-1/lash");
    let f = load(&dir);
    let text = read_text(&dir.join("opensm-sl2vl.dump")).unwrap();
    let (mut tables, _) = parse_sl2vl(&text, "sl2vl").unwrap();
    for t in &mut tables {
        if t.kind == NodeKind::Switch {
            for row in &mut t.rows {
                for v in row.2.iter_mut() {
                    *v = (*v + 1) % 8;
                }
            }
        }
    }
    let (paths, _) =
        parse_path_records(&read_text(&dir.join("saquery-pr.out")).unwrap(), "pr").unwrap();
    let l = VirtualLanes::new(&f, &tables, "sl2vl", &paths, "pr").unwrap();
    let c = credit_loops(&f, Some(&l)).unwrap();
    assert!(c.cross_lane_dependencies > 0);
    assert!(c.is_free());
    // Every route on the same lane (all SLs 0): the plain graph, lane by lane.
    let zero: Vec<_> = paths
        .iter()
        .map(|p| fatnet_fabric::credit::PathSl { sl: 0, ..*p })
        .collect();
    let (tables, _) = parse_sl2vl(&text, "sl2vl").unwrap();
    let l = VirtualLanes::new(&f, &tables, "sl2vl", &zero, "pr").unwrap();
    let one = credit_loops(&f, Some(&l)).unwrap();
    let plain = credit_loops(&f, None).unwrap();
    assert_eq!(
        (one.channels, one.dependencies, one.is_free()),
        (plain.channels, plain.dependencies, plain.is_free())
    );
    assert_witness(&f, Some(&l), one.witness.as_ref().unwrap());
}

#[test]
fn fixture_nets_of_rings_and_tori_are_what_export_writes() {
    for (fabric, spec) in [
        ("ring-6-1", "ring:s=6,h=1"),
        ("torus-3x3-1", "torus:x=3,y=3,h=1"),
        ("torus-4x4-1", "torus:x=4,y=4,h=1"),
    ] {
        let t: SwitchTorus = spec.parse().unwrap();
        let want = read_text(&fixtures().join(fabric).join("fabric.net")).unwrap();
        assert_eq!(t.net(), want, "{fabric}");
    }
}

#[test]
fn virtual_lane_files_that_do_not_fit_the_fabric_are_errors() {
    let dir = fixtures().join("ring-6-1/lash");
    let f = load(&dir);
    let text = read_text(&dir.join("opensm-sl2vl.dump")).unwrap();
    let (tables, _) = parse_sl2vl(&text, "sl2vl").unwrap();
    let pr = read_text(&dir.join("saquery-pr.out")).unwrap();
    let (paths, _) = parse_path_records(&pr, "pr").unwrap();
    assert_eq!(paths.len(), 30);
    // A pair without its SL.
    let e = VirtualLanes::new(&f, &tables, "sl2vl", &paths[1..], "pr").unwrap_err();
    assert!(matches!(e, FabricError::MissingEntry { .. }), "{e}");
    assert!(e.to_string().contains("path SL"), "{e}");
    // A switch without its table.
    let first_switch = tables
        .iter()
        .position(|t| t.kind == NodeKind::Switch)
        .unwrap();
    let mut fewer = tables.clone();
    fewer.remove(first_switch);
    let e = VirtualLanes::new(&f, &fewer, "sl2vl", &paths, "pr").unwrap_err();
    assert!(matches!(e, FabricError::MissingEntry { .. }), "{e}");
    // A missing row.
    let mut short = tables.clone();
    short[first_switch].rows.pop();
    let e = VirtualLanes::new(&f, &short, "sl2vl", &paths, "pr").unwrap_err();
    assert!(e.to_string().contains("SL-to-VL row"), "{e}");
    // A table given twice, and one at a LID no switch has.
    let mut twice = tables.clone();
    twice.push(tables[first_switch].clone());
    let e = VirtualLanes::new(&f, &twice, "sl2vl", &paths, "pr").unwrap_err();
    assert!(matches!(e, FabricError::NodeConflict { .. }), "{e}");
    let mut elsewhere = tables.clone();
    elsewhere[first_switch].lid = 999;
    let e = VirtualLanes::new(&f, &elsewhere, "sl2vl", &paths, "pr").unwrap_err();
    assert!(matches!(e, FabricError::Unknown { .. }), "{e}");
}

#[test]
fn malformed_virtual_lane_dumps_are_errors_with_their_line() {
    let head = "Switch 0x5357010000000000, base LID 1, \"sw 1 0\"\n#in out : 0 1\n";
    let row = "0   1   : 0  1  2  3  4  5  6  7  0  1  2  3  4  5  6  7\n";
    let ok = format!("{head}{row}");
    let (t, r) = parse_sl2vl(&ok, "d").unwrap();
    assert_eq!(
        (t.len(), t[0].rows.len(), r.unrecognised_count()),
        (1, 1, 0)
    );
    for (bad, line) in [
        (row.to_owned(), 1),
        (format!("{head}{row}{row}"), 4),
        (format!("{head}0 1 : 0 1 2\n"), 3),
        (format!("{head}0 1 : 0 1 2 3 4 5 6 7 0 1 2 3 4 5 6 16\n"), 3),
        (
            format!("{head}0 255 : 0 1 2 3 4 5 6 7 0 1 2 3 4 5 6 7\n"),
            3,
        ),
        (
            format!("{head}0 1 : 0 1 2 3 4 5 6 7 0 1 2 3 4 5 6 7 8\n"),
            3,
        ),
        ("Switch 0x12, base LID 0, \"x\"\n".to_owned(), 1),
        ("Switch zz, base LID 1, \"x\"\n".to_owned(), 1),
        ("Channel Adapter 0x12, LID 1\n".to_owned(), 1),
    ] {
        let e = parse_sl2vl(&bad, "d").unwrap_err();
        assert_eq!(e.line(), Some(line), "{bad:?}: {e}");
    }
    let rec = "PathRecord dump:\n\t\tdlid....................14\n\t\tslid....................10\n\t\tsl......................0x3\n";
    let (p, _) = parse_path_records(rec, "pr").unwrap();
    assert_eq!((p[0].slid, p[0].dlid, p[0].sl), (10, 14, 3));
    for (bad, line) in [
        ("\t\tsl......0x1\n".to_owned(), 1),
        (
            "PathRecord dump:\n\t\tslid....1\n\t\tsl....0x0\n".to_owned(),
            1,
        ),
        (rec.replace("0x3", "0x10"), 4),
        (rec.replace("14", "0"), 2),
        (rec.replace("14", "49152"), 2),
        (rec.replace("14", "1x"), 2),
        (format!("{rec}{}", rec.replace("0x3", "0x4")), 5),
    ] {
        let e = parse_path_records(&bad, "pr").unwrap_err();
        assert_eq!(e.line(), Some(line), "{bad:?}: {e}");
    }
    // Repeating a record with the same SL is fine.
    let (p, _) = parse_path_records(&format!("{rec}{rec}"), "pr").unwrap();
    assert_eq!(p.len(), 1);
}

#[test]
fn shared_fabrics_are_free_of_credit_loops() {
    let Some(dir) = crate::shared::fabrics_dir() else {
        return;
    };
    // (name, channels, dependencies): every CA and switch link in both directions is used.
    for (name, channels, deps) in [("is1_3l_32n", 192, 480), ("is4_3l_1944n", 11_664, 149_688)] {
        let (f, _) = crate::shared::flitsim(&dir, name);
        let c = credit_loops(&f, None).unwrap();
        let n = f.ca_order().len() as u64;
        assert_eq!((c.routes, c.faulty_routes), (n * (n - 1), 0));
        assert!(c.is_free(), "{name}: {:?}", c.witness);
        assert_eq!((c.channels, c.dependencies), (channels, deps));
        assert_eq!(c.channels as usize, 2 * f.links().len());
        eprintln!(
            "{name}: {} channels, {} dependencies, loop-free",
            c.channels, c.dependencies
        );
    }
}

/// Fresh dumps of `scripts/opensm-loop.sh` (`.ci/run`): fat-trees (`ftree*`, `karyntree*`)
/// are loop-free under every engine; rings and tori (`ring*`, `torus*`) have a loop under
/// minhop and none per VL under lash and dfsssp.
#[test]
fn fresh_opensm_credit_loops() {
    let Some(root) = std::env::var_os("FATNET_OPENSM_DUMPS") else {
        println!("FATNET_OPENSM_DUMPS unset: no fresh OpenSM dumps to check (see .ci/run)");
        return;
    };
    let mut checked = 0;
    let mut fabrics: Vec<_> = std::fs::read_dir(PathBuf::from(root))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    fabrics.sort();
    for fabric in &fabrics {
        let name = fabric.file_name().unwrap().to_string_lossy().into_owned();
        let direct = name.starts_with("ring") || name.starts_with("torus");
        for engine in ["ftree", "updn", "minhop", "lash", "dfsssp"] {
            let dir = fabric.join(engine);
            if !dir.is_dir() {
                continue;
            }
            let deadlock_free = matches!(engine, "lash" | "dfsssp");
            let (_, c) = check(&dir, deadlock_free);
            let want_free = !direct || deadlock_free;
            assert_eq!(c.is_free(), want_free, "{}: {:?}", dir.display(), c.witness);
            println!(
                "{}: credit loops {}",
                dir.display(),
                if c.is_free() { "none" } else { "yes" }
            );
            checked += 1;
        }
    }
    assert!(checked > 0, "no engine folders checked");
}
