//! `fatnet fabric report` (HTML and `--dot`) on OpenSM's ftree tables for ftree(2+4, 4) (a
//! fixture of fatnet-fabric) and on the two-switch fixture without tables.

use std::path::PathBuf;

use crate::common::{assert_one_line_error, fatnet, json, stdout_of};
use crate::fabric::{NED, fixture, s};

/// OpenSM 3.3.23's ftree routing of ftree(2+4, 4): 8 CAs, 4 bottom and 4 top switches.
fn ftree_dump() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../fatnet-fabric/tests/fixtures/opensm/ftree-2-4-4/ftree")
}

#[test]
fn html_report_is_written_and_summarised() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("report.html");
    let fabric = ftree_dump();
    let v = json(&[
        "fabric",
        "report",
        s(&fabric),
        "--seed",
        "3",
        "-o",
        s(&out),
        "--json",
    ]);
    let html = std::fs::read_to_string(&out).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert!(html.contains("<svg"));
    assert!(html.ends_with("</html>\n"));
    assert_eq!(v["bytes"], html.len());
    assert_eq!(v["format"], "html");
    assert_eq!(
        (v["switches"].clone(), v["end_nodes"].clone()),
        (8.into(), 8.into())
    );
    assert_eq!(v["levels"].as_array().unwrap().len(), 3);
    assert_eq!(v["levels"][1]["switches"], 4);
    assert_eq!(v["traffic"], "permutation (seed 3)");
    assert_eq!(v["routes_valid"], true);
    // `fatnet fabric check` on the same fixture: OpenSM's ftree is blocking here, worst 2.
    let check = json(&["fabric", "check", s(&fabric), "--json"]);
    assert_eq!(v["nonblocking"], check["nonblocking"]);
    assert_eq!(v["worst_contention"], check["worst_contention"]);
    // Every ordered pair of distinct CAs is in the hop histogram: 8·7 routes.
    let hops: u64 = v["hop_histogram"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b[1].as_u64().unwrap())
        .sum();
    assert_eq!(hops, 56);
    // The congestion matches `fatnet fabric load` with the same traffic and seed.
    let load = json(&[
        "fabric",
        "load",
        s(&fabric),
        "--traffic",
        "permutation",
        "--seed",
        "3",
        "--json",
    ]);
    assert_eq!(v["congestion"], load["congestion"]);
    // The eBB section is `fatnet fabric ebb` with the report's seed and bisections.
    let ebb = json(&["fabric", "ebb", s(&fabric), "--seed", "3", "--json"]);
    assert_eq!(v["ebb_mean"], ebb["mean"]);
    assert!(html.contains("Effective bisection bandwidth of 1000 random bisections"));
    // The credit-loop verdict is `fatnet fabric check`'s (OpenSM's ftree: loop-free).
    assert_eq!(v["credit_loop_free"], check["credit_loop_free"]);
    assert_eq!(v["credit_loop_free"], true);
    assert!(html.contains("Credit loops (deadlock)"));
    assert!(html.contains("Nonblocking (Yuan&#39;s Lemma 1)"));
    assert!(html.contains("Hops per route"));
    assert!(html.contains("Worst-case permutation"));
    // Text summary; rewriting the same file gives the same bytes.
    let text = stdout_of(["fabric", "report", s(&fabric), "--seed", "3", "-o", s(&out)]);
    assert!(text.starts_with(&format!("wrote {} (html, {} bytes)", s(&out), html.len())));
    assert!(text.contains("level 1: 0 CAs, 4 switches"));
    assert_eq!(std::fs::read_to_string(&out).unwrap(), html);
}

#[test]
fn dot_goes_to_standard_output() {
    let d = stdout_of(["fabric", "report", s(&ftree_dump()), "--dot"]);
    assert!(d.starts_with("// fatnet fabric report --dot"));
    assert_eq!(d.matches("{ rank=same;").count(), 3);
    assert_eq!(d.matches("shape=box").count(), 8);
    assert_eq!(d.matches('{').count(), d.matches('}').count());
}

#[test]
fn structure_only_without_tables() {
    let (dir, _, _) = fixture("");
    let ned = dir.path().join("two.ned");
    assert_eq!(std::fs::read_to_string(&ned).unwrap(), NED);
    let out = dir.path().join("r.html");
    let v = json(&["fabric", "report", s(&ned), "-o", s(&out), "--json"]);
    assert_eq!(v["traffic"], serde_json::Value::Null);
    assert_eq!(v["routes_valid"], serde_json::Value::Null);
    let html = std::fs::read_to_string(&out).unwrap();
    assert!(html.contains("No traffic: every line is grey."));
    assert!(html.contains("structure only"));
}

#[test]
fn bad_requests_are_refused() {
    let fabric = ftree_dump();
    assert_one_line_error(&["fabric", "report", s(&fabric), "--json"]);
    assert_one_line_error(&["fabric", "report", s(&fabric), "--traffic", "nonsense"]);
    // A folder where the page would go is not replaced.
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("taken");
    std::fs::create_dir(&target).unwrap();
    assert_one_line_error(&["fabric", "report", s(&fabric), "-o", s(&target)]);
    assert!(target.is_dir());
    // --help explains what is drawn and from which definitions.
    let help = fatnet()
        .args(["fabric", "report", "--help"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let help = String::from_utf8(help).unwrap();
    assert!(help.contains("Fabric::levels") && help.contains("Lemma 1"));
}
