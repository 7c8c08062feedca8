//! `fatnet route`.

use crate::common::{assert_one_line_error, json};

#[test]
fn random_routing_reports_cycles_next_to_lambda_for_every_trial() {
    let v = json(&[
        "route",
        "fattree:n=256,profile=area",
        "--traffic",
        "replicated:k=4",
        "--trials",
        "6",
        "--seed",
        "3",
        "--json",
    ]);
    let lower = v["lower_bound"].as_u64().unwrap();
    let cycles: Vec<u64> = v["cycles"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_u64().unwrap())
        .collect();
    assert_eq!(cycles.len(), 6);
    assert!(cycles.iter().all(|&c| c >= lower), "{cycles:?} < {lower}");
    assert!(v["finished"].as_array().unwrap().iter().all(|f| f == true));
    let mean = v["cycles_summary"]["mean"].as_f64().unwrap();
    let expected = cycles.iter().sum::<u64>() as f64 / 6.0;
    assert!((mean - expected).abs() < 1e-9);
    assert!(v["cycles_summary"]["ci95_low"].as_f64().unwrap() <= mean);
}

#[test]
fn trials_do_not_depend_on_the_thread_count() {
    let base = [
        "route",
        "fattree:n=128,profile=volume",
        "--traffic",
        "uniform",
        "--trials",
        "8",
        "--seed",
        "5",
        "--json",
    ];
    let one = json(&[&base[..], &["--threads", "1"]].concat());
    let four = json(&[&base[..], &["--threads", "4"]].concat());
    assert_eq!(one["cycles"], four["cycles"]);
    let other = json(&[
        "route",
        "fattree:n=128,profile=volume",
        "--traffic",
        "uniform",
        "--trials",
        "8",
        "--seed",
        "6",
        "--json",
    ]);
    assert_ne!(one["cycles"], other["cycles"]);
}

#[test]
fn every_router_and_policy_delivers_everything() {
    for (router, policy) in [
        ("greedy", "fixed"),
        ("greedy", "round-robin"),
        ("random", "pessimistic"),
        ("random-prime", "random"),
        ("constant-switch", "wires"),
    ] {
        let v = json(&[
            "route",
            "fattree:n=64,profile=area,leaf=12",
            "--traffic",
            "permutation",
            "--router",
            router,
            "--policy",
            policy,
            "--trials",
            "2",
            "--json",
        ]);
        assert!(
            v["finished"].as_array().unwrap().iter().all(|f| f == true),
            "{router} {policy}"
        );
        let lower = v["lower_bound"].as_u64().unwrap();
        assert!(
            v["cycles"]
                .as_array()
                .unwrap()
                .iter()
                .all(|c| c.as_u64().unwrap() >= lower)
        );
    }
}

#[test]
fn route_rejects_other_topologies_and_bad_constants() {
    for args in [
        vec!["route", "hypercube:d=4", "--traffic", "permutation"],
        vec![
            "route",
            "fattree:n=16,profile=area",
            "--traffic",
            "permutation",
            "--threads",
            "0",
        ],
        vec![
            "route",
            "fattree:n=16,profile=constant,cap=1",
            "--traffic",
            "complement",
            "--router",
            "greedy",
            "--policy",
            "pessimistic",
        ],
        vec![
            "route",
            "fattree:n=16,profile=area",
            "--traffic",
            "permutation",
            "--k1",
            "0",
        ],
        vec![
            "route",
            "fattree:n=16,profile=area",
            "--traffic",
            "permutation",
            "--trials",
            "0",
        ],
    ] {
        assert_one_line_error(&args);
    }
}
