//! `fatnet fabric ebb|counts` on the two-switch fixture and on
//! `../shared/fabrics/ib_flit_sim/is1_3l_32n` when it is present.

use serde_json::Value;

use crate::common::{assert_one_line_error, fatnet, json, stderr_of_failure, stdout_of};
use crate::fabric::{fixture, s};

/// Everything across goes over the first cable: both hosts of a switch share it.
const ONE_CABLE: &str = "0: 255 0 1 2 2 255 255\n1: 255 2 2 0 1 255 255\n";

#[test]
fn ebb_on_two_switches() {
    let (_d, ned, fdbs) = fixture(ONE_CABLE);
    let args = [
        "fabric",
        "ebb",
        s(&ned),
        "--routes",
        s(&fdbs),
        "--bisections",
        "200",
        "--json",
    ];
    let v = json(&args);
    assert_eq!(
        (v["cas"].as_u64(), v["bisections"].as_u64()),
        (Some(4), Some(200))
    );
    assert_eq!(v["flows"], "both");
    assert_eq!(v["flows_per_bisection"], 4);
    // The 3 bisections of 4 CAs: {0,1}{2,3} stays on the switches (eBB 1); {0,2}{1,3} and
    // {0,3}{1,2} put both flows of each direction on the one cable (eBB 1/2).
    let draws: Vec<f64> = v["per_draw"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect();
    assert_eq!(draws.len(), 200);
    assert!(draws.iter().all(|&x| x == 1.0 || x == 0.5));
    let ones = draws.iter().filter(|&&x| x == 1.0).count();
    assert!(ones > 0 && ones < 200);
    let mean = draws.iter().sum::<f64>() / 200.0;
    assert!((v["mean"].as_f64().unwrap() - mean).abs() < 1e-12);
    assert_eq!(v["worst_contention"], 2);
    assert_eq!(v["worst_share"], 0.5);
    assert_eq!(v["min_flow_share"], 0.5);
    assert_eq!(v["histogram"].as_array().unwrap().len(), 20);
    assert_eq!(
        v["histogram"][10]["count"].as_u64().unwrap() as usize,
        200 - ones
    );
    assert_eq!(v["histogram"][19]["count"].as_u64().unwrap() as usize, ones);
    // The text form: the mean with its interval, the worst case, the bars.
    let text = stdout_of(&args[..args.len() - 1]);
    assert!(text.contains("effective bisection bandwidth (ORCS): 200 random bisections"));
    assert!(text.contains("(95 % Student t)"));
    assert!(text.contains("contention 2 on A_U1[3] -> B_U1[3], share 1/2 = 0.5000"));
    assert!(text.contains("[0.950, 1.000]"));
    // Same seed, any thread count: byte-identical output.
    let with_threads = |n: &str| {
        let out = fatnet()
            .env("RAYON_NUM_THREADS", n)
            .args(args)
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        String::from_utf8(out).unwrap()
    };
    assert_eq!(with_threads("1"), with_threads("3"));
    // Both cables used: nonblocking, every bisection at full bandwidth.
    let (_d, ned, fdbs) = fixture("0: 255 0 1 2 3 255 255\n1: 255 2 3 0 1 255 255\n");
    let v = json(&["fabric", "ebb", s(&ned), "--routes", s(&fdbs), "--json"]);
    assert_eq!(
        (v["mean"].as_f64(), v["min"].as_f64()),
        (Some(1.0), Some(1.0))
    );
    assert_eq!(v["half_width"], 0.0);
    assert_eq!(v["worst_contention"], 1);
}

#[test]
fn ebb_refusals() {
    let (_d, ned, fdbs) = fixture(ONE_CABLE);
    for bad in [
        ["--bisections", "0"],
        ["--bins", "0"],
        ["--bisections", "10000001"],
    ] {
        let mut args = vec!["fabric", "ebb", s(&ned), "--routes", s(&fdbs)];
        args.extend(bad);
        assert_one_line_error(&args);
    }
    // Without tables there is nothing to route.
    let err = stderr_of_failure(["fabric", "ebb", s(&ned)]);
    assert!(err.contains("pass --routes"), "{err}");
    // A dead end (no entry for H4 at A): the first broken pair.
    let (_d, ned, fdbs) = fixture("0: 255 0 1 2 255 255 255\n1: 255 2 2 0 1 255 255\n");
    let err = stderr_of_failure(["fabric", "ebb", s(&ned), "--routes", s(&fdbs)]);
    assert!(err.contains("route 0 -> 3"), "{err}");
}

#[test]
fn counts_on_two_switches() {
    let (_d, ned, fdbs) = fixture(ONE_CABLE);
    let v = json(&[
        "fabric",
        "counts",
        s(&ned),
        "--routes",
        s(&fdbs),
        "--traffic",
        "complement",
        "--ports",
        "--json",
    ]);
    // 12 routes: 4 of 2 hops on a switch, 8 of 3 hops across.
    assert_eq!(
        (v["routes"].as_u64(), v["delivered"].as_u64()),
        (Some(12), Some(12))
    );
    assert_eq!(v["hops"], serde_json::json!([0, 0, 4, 8]));
    assert_eq!(v["total_hops"], 32);
    let ports = v["ports"].as_array().unwrap();
    let total: u64 = ports.iter().map(|p| p["routes"].as_u64().unwrap()).sum();
    assert_eq!(total, 32);
    let cable = ports
        .iter()
        .find(|p| p["link"] == "A_U1[3] -> B_U1[3]")
        .unwrap();
    // A -> B: the 2 sources of A to the 2 destinations on B.
    assert_eq!(
        (cable["routes"].as_u64(), cable["destinations"].as_u64()),
        (Some(4), Some(2))
    );
    // Both switches are leaves (level 1): the cables are level 1 forward links.
    let fwd = level(&v["routes_by_level"], 1, "forward");
    assert_eq!(
        (
            fwd["links"].as_u64(),
            fwd["min"].as_u64(),
            fwd["max"].as_u64()
        ),
        (Some(4), Some(0), Some(4))
    );
    assert_eq!(fwd["imbalance"], 2.0);
    // complement: 0->3, 1->2 over A -> B, 3->0, 2->1 back: two per used cable.
    let t = &v["traffic"];
    assert_eq!(t["congestion"], 2);
    assert_eq!(
        level(&t["by_level"], 1, "forward")["histogram"],
        serde_json::json!([[0, 2], [2, 2]])
    );
    let text = stdout_of([
        "fabric",
        "counts",
        s(&ned),
        "--routes",
        s(&fdbs),
        "-t",
        "complement",
    ]);
    assert!(text.contains("hops (links traversed, CA links included)"));
    assert!(text.contains("traffic complement: 4 messages, 4 delivered, congestion 2"));
}

fn level<'a>(groups: &'a Value, level: u64, direction: &str) -> &'a Value {
    groups
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["level"] == level && g["direction"] == direction)
        .unwrap()
}

#[test]
fn shared_is1_3l_32n() {
    let Some(base) = crate::common::shared_fabric("ib_flit_sim/is1_3l_32n") else {
        return;
    };
    let ned = base.join("is1_3l_32n.ned");
    let fdbs = base.join("is1_3l_32n.fdbs");
    let v = json(&["fabric", "ebb", s(&ned), "--routes", s(&fdbs), "--json"]);
    assert_eq!(
        (v["cas"].as_u64(), v["bisections"].as_u64()),
        (Some(32), Some(1000))
    );
    assert!(v["ca_order"].as_str().unwrap().ends_with("ftree.hcas"));
    // The worst permutation puts a leaf's 4 hosts on one uplink (`fabric check`): no flow of
    // any bisection gets less than 1/4.
    assert_eq!(v["worst_contention"], 4);
    let draws = v["per_draw"].as_array().unwrap();
    assert_eq!(draws.len(), 1000);
    assert!(
        draws
            .iter()
            .all(|x| (0.25..=1.0).contains(&x.as_f64().unwrap()))
    );
    let (mean, h) = (
        v["mean"].as_f64().unwrap(),
        v["half_width"].as_f64().unwrap(),
    );
    assert!(v["min"].as_f64().unwrap() <= mean && mean <= v["max"].as_f64().unwrap());
    assert!(h > 0.0 && h < 0.02);
    let binned: u64 = v["histogram"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["count"].as_u64().unwrap())
        .sum();
    assert_eq!(binned, 1000);
    // Another seed: another sample of the same distribution.
    let w = json(&[
        "fabric",
        "ebb",
        s(&ned),
        "--routes",
        s(&fdbs),
        "--seed",
        "2",
        "--json",
    ]);
    let (mean2, h2) = (
        w["mean"].as_f64().unwrap(),
        w["half_width"].as_f64().unwrap(),
    );
    assert!(
        (mean - mean2).abs() <= h + h2,
        "{mean} ± {h} vs {mean2} ± {h2}"
    );
    // Counts: 32·31 routes of 2, 4 or 6 hops; every CA uplink carries 31 routes.
    let c = json(&["fabric", "counts", s(&ned), "--routes", s(&fdbs), "--json"]);
    assert_eq!(c["routes"], 992);
    assert_eq!(c["hops"], serde_json::json!([0, 0, 96, 0, 128, 0, 768]));
    assert_eq!(c["total_hops"], 32 * (3 * 2 + 4 * 4 + 24 * 6));
    let up0 = level(&c["routes_by_level"], 0, "up");
    assert_eq!(
        (
            up0["links"].as_u64(),
            up0["min"].as_u64(),
            up0["max"].as_u64()
        ),
        (Some(32), Some(31), Some(31))
    );
    let down0 = level(&c["destinations_by_level"], 0, "down");
    assert_eq!(
        (down0["min"].as_u64(), down0["max"].as_u64()),
        (Some(1), Some(1))
    );
}
