//! `fatnet fabric credit-loops` (and the credit-loop line of `fabric check`) on the OpenSM
//! fixtures of fatnet-fabric: minhop on a ring loops, LASH per virtual lane does not.

use std::path::PathBuf;

use crate::common::{assert_one_line_error, json, stdout_of};

fn fixture(rel: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../fatnet-fabric/tests/fixtures/opensm")
        .join(rel)
        .to_str()
        .unwrap()
        .to_owned()
}

#[test]
fn minhop_on_a_ring_has_a_credit_loop_with_its_routes() {
    let dir = fixture("ring-6-1/minhop");
    let v = json(&["fabric", "credit-loops", &dir, "--json"]);
    assert_eq!(v["credit_loop_free"], false);
    assert_eq!(v["routes"], 30);
    assert_eq!(v["lanes"], 1);
    let w = v["witness"].as_array().unwrap();
    assert_eq!(w.len(), 6);
    for hop in w {
        assert!(hop["link"].as_str().unwrap().starts_with("S-"), "{hop}");
        assert_eq!(hop["route"].as_array().unwrap().len(), 2);
    }
    let text = stdout_of(["fabric", "credit-loops", &dir]);
    assert!(text.contains("credit loops: yes"), "{text}");
    let check = json(&["fabric", "check", &dir, "--json"]);
    assert_eq!(check["credit_loop_free"], false);
}

#[test]
fn lash_is_free_of_credit_loops_per_virtual_lane_only() {
    let dir = fixture("ring-6-1/lash");
    let sl = format!("{dir}/saquery-pr.out");
    let sl2vl = format!("{dir}/opensm-sl2vl.dump");
    let v = json(&[
        "fabric",
        "credit-loops",
        &dir,
        "--sl",
        &sl,
        "--sl2vl",
        &sl2vl,
        "--json",
    ]);
    assert_eq!(v["credit_loop_free"], true);
    assert_eq!(v["per_lane"].as_array().unwrap().len(), 3);
    assert_eq!(v["witness"].as_array().unwrap().len(), 0);
    let plain = json(&["fabric", "credit-loops", &dir, "--json"]);
    assert_eq!(plain["credit_loop_free"], false);
    let check = stdout_of(["fabric", "check", &fixture("ftree-2-4-4/ftree")]);
    assert!(
        check.contains("credit loops (all routes on one VL): none"),
        "{check}"
    );
}

#[test]
fn bad_lane_files_and_specs_are_one_line_errors() {
    let dir = fixture("ring-6-1/lash");
    let sl2vl = format!("{dir}/opensm-sl2vl.dump");
    // The SL-to-VL dump is no path-record file: no SL for the first pair.
    assert_one_line_error(&[
        "fabric",
        "credit-loops",
        &dir,
        "--sl",
        &sl2vl,
        "--sl2vl",
        &sl2vl,
    ]);
    assert_one_line_error(&["fabric", "export", "ring:s=2,h=1"]);
    assert_one_line_error(&["fabric", "export", "torus:x=3,y=3,h=300"]);
}

#[test]
fn export_writes_rings_and_tori() {
    let net = stdout_of(["fabric", "export", "torus:x=3,y=4,h=2"]);
    assert_eq!(net.matches("\nSwitch\t").count(), 12);
    assert_eq!(net.matches("\nCa\t").count(), 24);
}
