//! `fatnet fabric check|load` on small inline fixtures written to a temporary folder, and on
//! `../shared/fabrics/ib_flit_sim/is1_3l_32n` when it is present.

use std::path::{Path, PathBuf};

use crate::common::{assert_one_line_error, fatnet, json};

/// Two switches A, B joined by two cables; hosts H1, H2 on A and H3, H4 on B (0-based ports):
/// the fixture fatnet-fabric's own tests use.
pub(crate) const NED: &str =
    include_str!("../../../fatnet-fabric/tests/fixtures/two-switch/two.ned");
/// Everything across goes over the first cable (0-based port 2, IB port 3).
const FDBS: &str = "0: 255 0 1 2 2 255 255\n1: 255 2 2 0 1 255 255\n";
pub(crate) const INI: &str =
    include_str!("../../../fatnet-fabric/tests/fixtures/two-switch/two.fdbs.ini");

pub(crate) fn fixture(fdbs: &str) -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let ned = dir.path().join("two.ned");
    let tables = dir.path().join("two.fdbs");
    std::fs::write(&ned, NED).unwrap();
    std::fs::write(&tables, fdbs).unwrap();
    std::fs::write(dir.path().join("two.fdbs.ini"), INI).unwrap();
    (dir, ned, tables)
}

pub(crate) fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn check_two_switches() {
    let (_d, ned, fdbs) = fixture(FDBS);
    let v = json(&["fabric", "check", s(&ned), "--routes", s(&fdbs), "--json"]);
    assert_eq!(v["switches"], 2);
    assert_eq!(v["end_nodes"], 4);
    assert_eq!(v["links"], 6);
    assert_eq!(v["routes_valid"], true);
    assert_eq!(v["routes"]["traced"], 12);
    // Both hosts of A meet on A's first cable: blocking, worst contention 2.
    assert_eq!(v["nonblocking"], false);
    assert_eq!(v["blocking_links"], 2);
    assert_eq!(v["worst_contention"], 2);
    assert_eq!(v["worst_link"], "A_U1[3] -> B_U1[3]");
    assert_eq!(v["worst_permutation"].as_array().unwrap().len(), 2);
    // Shift 2 puts 0->2 and 1->3 on that cable; shifts 1 and 3 are congestion-free.
    assert_eq!(v["shifts"], 3);
    assert_eq!(v["shifts_congestion_free"], 2);
    assert_eq!(v["congested_shifts"][0]["shift"], 2);
    assert_eq!(v["congested_shifts"][0]["congestion"], 2);
    // Text form says the same.
    let out = fatnet()
        .args(["fabric", "check", s(&ned), "--routes", s(&fdbs)])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    assert!(text.contains("worst-case permutation contention: 2 on A_U1[3] -> B_U1[3]"));
    assert!(text.contains("cyclic shifts i -> i+k: 2 of 3 congestion-free"));
}

#[test]
fn check_nonblocking_tables_and_structure_only() {
    let (_d, ned, fdbs) = fixture("0: 255 0 1 2 3 255 255\n1: 255 2 3 0 1 255 255\n");
    let v = json(&["fabric", "check", s(&ned), "--routes", s(&fdbs), "--json"]);
    assert_eq!(v["nonblocking"], true);
    assert_eq!(v["worst_contention"], 1);
    assert_eq!(v["shifts_congestion_free"], 3);
    // Without tables: the structure, and the routing keys are null.
    let v = json(&["fabric", "check", s(&ned), "--json"]);
    assert_eq!(
        (v["switches"].as_u64(), v["links"].as_u64()),
        (Some(2), Some(6))
    );
    assert_eq!(v["routes_present"], false);
    assert!(v["nonblocking"].is_null() && v["worst_contention"].is_null());
}

#[test]
fn load_a_traffic() {
    let (dir, ned, fdbs) = fixture(FDBS);
    // complement: 0->3, 1->2 cross A -> B on the one cable, 2->1, 3->0 cross back.
    let v = json(&[
        "fabric",
        "load",
        s(&ned),
        "--routes",
        s(&fdbs),
        "--traffic",
        "complement",
        "--json",
    ]);
    assert_eq!(
        (v["messages"].as_u64(), v["delivered"].as_u64()),
        (Some(4), Some(4))
    );
    assert_eq!(v["congestion"], 2);
    assert_eq!(v["hottest"][0]["link"], "A_U1[3] -> B_U1[3]");
    assert_eq!(v["hottest"][0]["load"], 2);
    // A message file, in CA positions.
    let msgs = dir.path().join("m.txt");
    std::fs::write(&msgs, "0 2\n1 2\n3 2\n").unwrap();
    let file = format!("file:{}", s(&msgs));
    let v = json(&[
        "fabric",
        "load",
        s(&ned),
        "--routes",
        s(&fdbs),
        "--traffic",
        &file,
        "--json",
    ]);
    assert_eq!(v["congestion"], 3);
    assert_eq!(v["hottest"][0]["link"], "B_U1[1] -> H_3_U1[1]");
}

#[test]
fn bad_input_is_one_line_exit_2() {
    let (dir, ned, fdbs) = fixture(FDBS);
    let missing = dir.path().join("nope.ned");
    assert_one_line_error(&["fabric", "check", s(&missing)]);
    // A malformed table: the reader's file:line message.
    let bad = dir.path().join("bad.fdbs");
    std::fs::write(&bad, "0: 255 0 1 2 2 255 255\n1: 255 x\n").unwrap();
    std::fs::write(dir.path().join("bad.fdbs.ini"), INI).unwrap();
    let a = fatnet()
        .args(["fabric", "check", s(&ned), "--routes", s(&bad)])
        .assert()
        .code(2);
    let out = a.get_output();
    let err = String::from_utf8(out.stderr.clone()).unwrap();
    assert!(err.contains("bad.fdbs:2: expected a port"), "{err}");
    assert!(out.stdout.is_empty(), "no half-written output");
    assert_one_line_error(&["fabric", "check", s(&ned), "--routes", s(&bad)]);
    // Tables for a format we do not read tables for yet; load without tables; bad traffic.
    let topo = dir.path().join("x.out");
    std::fs::write(&topo, "").unwrap();
    assert_one_line_error(&["fabric", "check", s(&topo), "--routes", s(&fdbs)]);
    assert_one_line_error(&["fabric", "load", s(&ned), "--traffic", "complement"]);
    assert_one_line_error(&[
        "fabric",
        "load",
        s(&ned),
        "--routes",
        s(&fdbs),
        "--traffic",
        "nonsense",
    ]);
}

#[test]
fn shared_is1_3l_32n() {
    let Some(base) = crate::common::shared_fabric("ib_flit_sim/is1_3l_32n") else {
        return;
    };
    let ned = base.join("is1_3l_32n.ned");
    let fdbs = base.join("is1_3l_32n.fdbs");
    let v = json(&["fabric", "check", s(&ned), "--routes", s(&fdbs), "--json"]);
    assert_eq!(
        (v["switches"].as_u64(), v["end_nodes"].as_u64()),
        (Some(20), Some(32))
    );
    assert_eq!(v["links"], 96);
    assert!(v["ca_order"].as_str().unwrap().ends_with("ftree.hcas"));
    assert_eq!(v["routes_valid"], true);
    // OpenSM ftree tables: blocking by Lemma 1, worst permutation puts a leaf's 4 hosts on
    // one uplink, and yet all 31 shifts are congestion-free (see fatnet-fabric's tests).
    assert_eq!(v["nonblocking"], false);
    assert_eq!(v["blocking_links"], 64);
    assert_eq!(v["worst_contention"], 4);
    assert_eq!(v["worst_link"], "SW_L2_0_0_U1[5] -> SW_L1_0_0_U1[1]");
    assert_eq!(v["shifts_congestion_free"], 31);
    assert_eq!(v["congested_shifts"].as_array().unwrap().len(), 0);
}

fn opensm_fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fatnet-fabric/tests/fixtures/opensm")
}

#[test]
fn check_opensm_dumps() {
    let base = opensm_fixtures();
    // (fabric, engine, switches, blocking links, shifts congestion-free, CA order from the
    // ftree dump)
    let expected = [
        ("ftree-2-4-4", "ftree", 8, 8, 7, true),
        ("ftree-2-4-4", "updn", 8, 8, 7, false),
        ("ftree-2-4-4", "minhop", 8, 8, 7, false),
        ("karyntree-2-3", "ftree", 12, 8, 7, true),
        ("karyntree-2-3", "updn", 12, 16, 4, false),
        ("karyntree-2-3", "minhop", 12, 16, 4, false),
    ];
    for (fabric, engine, switches, blocking, shifts_free, ordered) in expected {
        let dir = base.join(fabric);
        let tables = dir.join(engine);
        // The dump folder as TOPOLOGY, format by auto-detection.
        let v = json(&["fabric", "check", s(&dir), "--routes", s(&tables), "--json"]);
        let what = format!("{fabric}/{engine}");
        assert_eq!(v["format"], "opensm", "{what}");
        assert_eq!(v["unrecognised_lines"], 0, "{what}");
        assert_eq!(v["switches"], switches, "{what}");
        assert_eq!(v["end_nodes"], 8, "{what}");
        assert_eq!(v["links"], 24, "{what}");
        assert_eq!(v["routes"]["traced"], 56, "{what}");
        assert_eq!(v["routes"]["delivered"], 56, "{what}");
        assert_eq!(v["routes_valid"], true, "{what}");
        // No engine is nonblocking in Yuan's sense: two CAs of switch (1, 0) share its first
        // uplink towards some destinations, so some permutation puts 2 routes on one link.
        assert_eq!(v["nonblocking"], false, "{what}");
        assert_eq!(v["blocking_links"], blocking, "{what}");
        assert_eq!(v["worst_contention"], 2, "{what}");
        assert_eq!(
            v["worst_link"], "S-5357010000000000[3] -> S-5357020000000000[1]",
            "{what}"
        );
        assert_eq!(v["worst_permutation"].as_array().unwrap().len(), 2);
        assert_eq!(v["shifts"], 7, "{what}");
        // OpenSM's ftree keeps its promise in its own CA order; updn/minhop on the 2-ary
        // 3-tree congest 3 of the 7 shifts (in subnet-list order).
        assert_eq!(v["shifts_congestion_free"], shifts_free, "{what}");
        assert_eq!(v["ca_order"].is_string(), ordered, "{what}");
        assert!(
            v["routes_file"]
                .as_str()
                .unwrap()
                .ends_with("opensm-lfts.dump")
        );
    }
}

#[test]
fn check_opensm_file_forms() {
    let dir = opensm_fixtures().join("ftree-2-4-4");
    let lst = dir.join("opensm-subnet.lst");
    // opensm-subnet.lst as TOPOLOGY, opensm.fdbs as the table file: the same verdicts.
    let fdbs = dir.join("ftree/opensm.fdbs");
    let v = json(&["fabric", "check", s(&lst), "--routes", s(&fdbs), "--json"]);
    assert_eq!(v["format"], "opensm");
    assert_eq!(v["routes"]["delivered"], 56);
    assert_eq!(v["worst_contention"], 2);
    assert_eq!(v["shifts_congestion_free"], 7);
    assert!(
        v["ca_order"]
            .as_str()
            .unwrap()
            .ends_with("opensm-ftree-ca-order.dump")
    );
    // Without --routes: the structure only.
    let v = json(&["fabric", "check", s(&lst), "--json"]);
    assert_eq!(
        (v["switches"].as_u64(), v["links"].as_u64()),
        (Some(8), Some(24))
    );
    assert_eq!(v["routes_present"], false);
    // A folder as scripts/opensm-loop.sh writes it (subnet list, tables and CA order in one
    // folder): TOPOLOGY alone, --routes defaults to the folder.
    let tmp = tempfile::tempdir().unwrap();
    std::fs::copy(&lst, tmp.path().join("opensm-subnet.lst")).unwrap();
    for f in ["opensm-lfts.dump", "opensm-ftree-ca-order.dump"] {
        std::fs::copy(dir.join("ftree").join(f), tmp.path().join(f)).unwrap();
    }
    let v = json(&[
        "fabric",
        "check",
        s(tmp.path()),
        "--format",
        "opensm",
        "--json",
    ]);
    assert_eq!(v["routes_valid"], true);
    assert_eq!(v["routes"]["delivered"], 56);
    assert_eq!(v["blocking_links"], 8);
    assert_eq!(v["worst_contention"], 2);
    assert_eq!(v["shifts_congestion_free"], 7);
    // load through OpenSM's tables: the 2-ary 3-tree's ftree routing carries the complement
    // permutation with one route per link.
    let tree = opensm_fixtures().join("karyntree-2-3");
    let v = json(&[
        "fabric",
        "load",
        s(&tree),
        "--routes",
        s(&tree.join("ftree")),
        "--traffic",
        "complement",
        "--json",
    ]);
    assert_eq!(
        (v["messages"].as_u64(), v["delivered"].as_u64()),
        (Some(8), Some(8))
    );
    assert_eq!(v["congestion"], 1);
    assert_eq!(v["loaded_links"], 48);
}

#[test]
fn opensm_bad_input_is_one_line_exit_2() {
    let base = opensm_fixtures();
    let ftree = base.join("ftree-2-4-4");
    let tree = base.join("karyntree-2-3");
    // Tables of another fabric: an unknown switch GUID, named with file and line.
    let a = fatnet()
        .args([
            "fabric",
            "check",
            s(&ftree),
            "--routes",
            s(&tree.join("ftree")),
        ])
        .assert()
        .code(2);
    let err = String::from_utf8(a.get_output().stderr.clone()).unwrap();
    assert!(
        err.contains("karyntree-2-3/ftree/opensm-lfts.dump:41: unknown switch GUID"),
        "{err}"
    );
    assert_one_line_error(&[
        "fabric",
        "check",
        s(&ftree),
        "--routes",
        s(&tree.join("ftree")),
    ]);
    // A table dump given as the subnet list; a folder without a subnet list; a folder for
    // another format.
    let lfts = ftree.join("ftree/opensm-lfts.dump");
    assert_one_line_error(&["fabric", "check", s(&lfts), "--format", "opensm"]);
    // (An engine's folder whose parent holds the subnet list is a fabric: see
    // `fabric_check_reads_an_engine_folder`.) A folder with neither:
    let empty = tempfile::tempdir().unwrap();
    let engine = empty.path().join("engine");
    std::fs::create_dir(&engine).unwrap();
    std::fs::copy(&lfts, engine.join("opensm-lfts.dump")).unwrap();
    assert_one_line_error(&["fabric", "check", s(&engine)]);
    assert_one_line_error(&["fabric", "check", s(&ftree), "--format", "flitsim"]);
    // A folder of tables missing its opensm-lfts.dump.
    assert_one_line_error(&["fabric", "check", s(&ftree), "--routes", s(empty.path())]);
}

#[test]
fn export_writes_ibsim_nets() {
    let base = opensm_fixtures();
    // The committed fixtures were exported from these specs.
    for (spec, fabric) in [
        ("ftree:n=2,m=4,r=4", "ftree-2-4-4"),
        ("karyntree:k=2,levels=3", "karyntree-2-3"),
    ] {
        let out = fatnet()
            .args(["fabric", "export", spec])
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        let want = std::fs::read_to_string(base.join(fabric).join("fabric.net")).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), want, "{spec}");
    }
    // --output writes the same bytes; ftree(3+9, 12): 12 + 9 switches, 36 CAs.
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("f.net");
    fatnet()
        .args([
            "fabric",
            "export",
            "ftree:n=3,m=9,r=12",
            "--output",
            s(&file),
        ])
        .assert()
        .success()
        .stdout("");
    let net = std::fs::read_to_string(&file).unwrap();
    assert_eq!(net.lines().filter(|l| l.starts_with("Switch")).count(), 21);
    assert_eq!(net.lines().filter(|l| l.starts_with("Ca")).count(), 36);
    assert!(net.contains("caguid=0x4341000000002300"), "CA 35's GUID");
    // Refused: other networks, impossible parameters, switches over 254 ports, more nodes
    // than LIDs. Nothing is written on error.
    let bad = tmp.path().join("bad.net");
    for spec in [
        "hypercube:d=3",
        "fattree:n=8,profile=constant,cap=1",
        "ftree:n=0,m=1,r=1",
        "ftree:n=200,m=100,r=4",
        "karyntree:k=4,levels=9",
        "nonsense",
    ] {
        assert_one_line_error(&["fabric", "export", spec]);
        assert_one_line_error(&["fabric", "export", spec, "--output", s(&bad)]);
        assert!(!bad.exists(), "{spec}");
    }
    let a = fatnet()
        .args(["fabric", "export", "hypercube:d=3"])
        .assert()
        .code(2);
    let err = String::from_utf8(a.get_output().stderr.clone()).unwrap();
    assert!(err.contains("`ftree:n=N,m=M,r=R`") && err.contains("`karyntree:k=K,levels=L`"));
}

/// The fixtures' layout (one subnet dump, a folder of tables per routing engine): an engine's
/// folder is checked with the subnet list of its parent.
#[test]
fn fabric_check_reads_an_engine_folder() {
    let ftree = opensm_fixtures().join("ftree-2-4-4");
    let folder = crate::common::stdout_of(["fabric", "check", s(&ftree.join("updn")), "--json"]);
    let both = crate::common::stdout_of([
        "fabric",
        "check",
        s(&ftree.join("opensm-subnet.lst")),
        "--routes",
        s(&ftree.join("updn")),
        "--json",
    ]);
    let (a, b): (serde_json::Value, serde_json::Value) = (
        serde_json::from_str(&folder).unwrap(),
        serde_json::from_str(&both).unwrap(),
    );
    assert_eq!(a["end_nodes"], 8, "{a}");
    for key in ["routes_valid", "nonblocking", "worst_contention", "links"] {
        assert_eq!(a[key], b[key], "{key}");
    }
}
