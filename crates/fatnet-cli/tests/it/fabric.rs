//! `fatnet fabric check|load` on small inline fixtures written to a temporary folder, and on
//! `../shared/fabrics/ib_flit_sim/is1_3l_32n` when it is present.

use std::path::{Path, PathBuf};

use crate::common::{assert_one_line_error, fatnet, json};

/// Two switches A, B joined by two cables; hosts H1, H2 on A and H3, H4 on B (0-based ports).
const NED: &str = "network two
{
	submodules:
		H_1_U1: HCA { parameters: srcLid = 1; }
		H_2_U1: HCA { parameters: srcLid = 2; }
		H_3_U1: HCA { parameters: srcLid = 3; }
		H_4_U1: HCA { parameters: srcLid = 4; }
		A_U1: Switch {
		parameters: numSwitchPorts = 4;
			gates: port[4];
		}
		B_U1: Switch {
		parameters: numSwitchPorts = 4;
			gates: port[4];
		}
	connections:
		H_1_U1.port <--> W <--> A_U1.port[0];
		H_2_U1.port <--> W <--> A_U1.port[1];
		H_3_U1.port <--> W <--> B_U1.port[0];
		H_4_U1.port <--> W <--> B_U1.port[1];
		A_U1.port[2] <--> W <--> B_U1.port[2];
		A_U1.port[3] <--> W <--> B_U1.port[3];
}
";
/// Everything across goes over the first cable (0-based port 2, IB port 3).
const FDBS: &str = "0: 255 0 1 2 2 255 255\n1: 255 2 2 0 1 255 255\n";
const INI: &str = "[General]\n**.A_U1.pktfwd.fdbIndex = 0\n**.B_U1.pktfwd.fdbIndex = 1\n";

fn fixture(fdbs: &str) -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let ned = dir.path().join("two.ned");
    let tables = dir.path().join("two.fdbs");
    std::fs::write(&ned, NED).unwrap();
    std::fs::write(&tables, fdbs).unwrap();
    std::fs::write(dir.path().join("two.fdbs.ini"), INI).unwrap();
    (dir, ned, tables)
}

fn s(p: &Path) -> &str {
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
    assert_eq!(v["congested_shifts"][0]["max_load"], 2);
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
    assert_eq!(v["load_factor"], 2);
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
    assert_eq!(v["load_factor"], 3);
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
    let dir = std::env::var_os("FATNET_FABRICS").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/fabrics"),
        PathBuf::from,
    );
    let base = dir.join("ib_flit_sim/is1_3l_32n");
    if !base.is_dir() {
        eprintln!("NOTICE: {} not found; skipping", base.display());
        return;
    }
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
