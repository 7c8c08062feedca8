//! `fatnet clos`: Yuan's folded Clos checks from the command line.

use predicates::prelude::*;
use serde_json::Value;

use crate::common::fatnet;

/// `fatnet` with `args` and `--json`, parsed.
fn json(args: &[&str]) -> Value {
    crate::common::json(&[args, &["--json"]].concat())
}

#[test]
fn yuan_routing_is_nonblocking() {
    let v = json(&["clos", "check", "--n", "3", "--m", "9", "--r", "7"]);
    assert_eq!(v["routing"], "yuan");
    assert_eq!(v["nonblocking"], true);
    assert_eq!(v["counterexample"], Value::Null);
    assert_eq!(v["worst_contention"], 1);
    // r(r−1)n² pairs, r−1 per link.
    assert_eq!(v["cross_pairs"], 7 * 6 * 9);
    assert_eq!(v["max_link_pairs"], 6);
    assert_eq!(v["blocking_links"], 0);
}

#[test]
fn dmodm_blocks_with_a_verified_counterexample() {
    // m = 2n−1 (a strictly nonblocking telephone Clos) with r >= 2n+1.
    let v = json(&[
        "clos",
        "check",
        "--n",
        "2",
        "--m",
        "3",
        "--r",
        "5",
        "--routing",
        "dmodm",
    ]);
    assert_eq!(v["nonblocking"], false);
    let cx = &v["counterexample"];
    assert_eq!(cx["verified"], true);
    assert_eq!(cx["link"]["kind"], "up");
    let pairs = cx["pairs"].as_array().unwrap();
    assert_eq!(pairs.len(), 2);
    assert_ne!(pairs[0][0], pairs[1][0]);
    assert_ne!(pairs[0][1], pairs[1][1]);
    // Both destinations are ≡ the link's top mod m (d-mod-m).
    let top = cx["link"]["top"].as_u64().unwrap();
    for p in pairs {
        assert_eq!(p[1].as_u64().unwrap() % 3, top);
    }
    assert_eq!(v["worst_contention"], 2);
}

#[test]
fn worst_reports_a_permutation_attaining_the_contention() {
    // d-mod-m with one top switch: all n sources of a switch share its one uplink.
    let v = json(&[
        "clos",
        "worst",
        "--n",
        "3",
        "--m",
        "1",
        "--r",
        "4",
        "--routing",
        "dmodm",
    ]);
    assert_eq!(v["worst_contention"], 3);
    let perm = v["worst_permutation"].as_array().unwrap();
    assert_eq!(perm.len(), 3);
    let mut srcs: Vec<u64> = perm.iter().map(|p| p[0].as_u64().unwrap()).collect();
    let mut dsts: Vec<u64> = perm.iter().map(|p| p[1].as_u64().unwrap()).collect();
    srcs.dedup();
    dsts.sort_unstable();
    dsts.dedup();
    assert_eq!((srcs.len(), dsts.len()), (3, 3));
    assert_eq!(v["worst_link"]["kind"], "up");
}

#[test]
fn routing_a_permutation() {
    // Yuan's routing never contends; adaptive reports its configurations.
    let v = json(&[
        "clos",
        "route",
        "--n",
        "4",
        "--m",
        "16",
        "--r",
        "9",
        "--traffic",
        "permutation",
        "--seed",
        "7",
    ]);
    assert_eq!(v["contention_free"], true);
    assert_eq!(v["max_contention"], 1);
    assert_eq!(v["messages"], 36);
    let v = json(&[
        "clos",
        "route",
        "--n",
        "4",
        "--m",
        "12",
        "--r",
        "16",
        "--routing",
        "adaptive",
        "--seed",
        "3",
    ]);
    assert_eq!(v["contention_free"], true);
    assert_eq!(v["adaptive"]["digits"], 2);
    assert_eq!(v["adaptive"]["tops_per_configuration"], 12);
    assert!(v["adaptive"]["tops_spanned"].as_u64().unwrap() <= 12);
    // d-mod-m with m = 1 on the complement: many pairs on one uplink.
    let v = json(&[
        "clos",
        "route",
        "--n",
        "2",
        "--m",
        "1",
        "--r",
        "4",
        "--routing",
        "dmodm",
        "--traffic",
        "complement",
    ]);
    assert_eq!(v["contention_free"], false);
    assert_eq!(v["max_contention"], 2);
    assert!(!v["contended"].as_array().unwrap().is_empty());
}

#[test]
fn text_output_names_the_counterexample() {
    fatnet()
        .args([
            "clos",
            "check",
            "--n",
            "2",
            "--m",
            "2",
            "--r",
            "5",
            "--routing",
            "dmodm",
        ])
        .assert()
        .success()
        .stdout(predicate::str::contains("nonblocking       no"))
        .stdout(predicate::str::contains("verified by the simulator"));
}

#[test]
fn bad_parameters_exit_2_with_one_line() {
    for (args, needle) in [
        (
            vec!["clos", "check", "--n", "3", "--m", "8", "--r", "7"],
            "needs 9 top switches",
        ),
        (
            vec!["clos", "check", "--n", "0", "--m", "3", "--r", "5"],
            "cannot build ftree(0+3, 5)",
        ),
        (
            vec![
                "clos",
                "worst",
                "--n",
                "2",
                "--m",
                "4",
                "--r",
                "3",
                "--routing",
                "adaptive",
            ],
            "use it with `fatnet clos route`",
        ),
        (
            vec![
                "clos",
                "route",
                "--n",
                "2",
                "--m",
                "4",
                "--r",
                "4",
                "--routing",
                "adaptive",
                "--traffic",
                "uniform",
            ],
            "not a permutation",
        ),
        (
            vec![
                "clos",
                "route",
                "--n",
                "1",
                "--m",
                "4",
                "--r",
                "4",
                "--routing",
                "adaptive",
            ],
            "n >= 2",
        ),
    ] {
        let a = fatnet().args(&args).assert().code(2);
        let err = String::from_utf8(a.get_output().stderr.clone()).unwrap();
        assert!(err.starts_with("error: "), "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
    }
}

/// `fatnet clos` takes the topology spec as every other command does (issue 17), with the
/// same answer as `--n --m --r`; another kind of network, or both forms, are refused.
#[test]
fn clos_takes_the_topology_spec() {
    let by_spec = crate::common::stdout_of(["clos", "check", "ftree:n=3,m=9,r=12", "--json"]);
    let by_flags = crate::common::stdout_of([
        "clos", "check", "--n", "3", "--m", "9", "--r", "12", "--json",
    ]);
    assert_eq!(by_spec, by_flags);
    let err = crate::common::stderr_of_failure(["clos", "check", "bft:n=16"]);
    assert!(err.contains("ftree:n=N,m=M,r=R"), "{err}");
    let err = crate::common::stderr_of_failure(["clos", "check", "ftree:n=3,m=9,r=12", "--n", "3"]);
    assert!(err.contains("cannot be used with"), "{err}");
}
