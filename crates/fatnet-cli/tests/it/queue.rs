//! `fatnet queue`: the closed forms of chapters 6–7 that have no simulator behind them — the
//! simple schemes' stability limits, the inferior sequential scheme, the light-traffic
//! limits, Lemma 7.2 and the generalised Rule C — against the notes' values (002b §2–3).

use crate::common::{assert_one_line_error, fatnet, json};

/// The `value` of `fatnet queue ARGS --json`.
fn value(args: &[&str]) -> f64 {
    let mut all = vec!["queue"];
    all.extend_from_slice(args);
    all.push("--json");
    json(&all)["value"].as_f64().unwrap()
}

#[test]
fn generalised_rule_c_peaks_at_rule_c() {
    let v = json(&[
        "queue",
        "rule-c-limit",
        "--d",
        "8",
        "--k",
        "2",
        "--l",
        "4",
        "--json",
    ]);
    assert_eq!((v["k"].as_u64(), v["l"].as_u64()), (Some(2), Some(4)));
    assert_eq!(v["reference"], "§7.3.1, (7.16)");
    let rule_c = value(&["indirect-limit", "--d", "8"]);
    assert!((v["value"].as_f64().unwrap() - rule_c).abs() < 1e-15);
    // Every other (K, L) with K, L ≤ 4 gives less.
    for k in 1..=4u32 {
        for l in (1..=4u32).filter(|&l| l != 2 * k) {
            let (ks, ls) = (k.to_string(), l.to_string());
            let x = value(&["rule-c-limit", "--d", "8", "--k", &ks, "--l", &ls]);
            assert!(x < rule_c - 1e-3, "K {k} L {l}: {x}");
        }
    }
    // K = L = 1: the broadcast capacity (7.15) binds at (1 − 2^−8)/2.
    let x = value(&["rule-c-limit", "--d", "8", "--k", "1", "--l", "1"]);
    assert!((x - 0.5 * 255.0 / 256.0).abs() < 1e-15);
}

#[test]
fn simple_scheme_limits_match_the_notes() {
    // §2.1: d = 10 → 0.1998, d = 8 → 0.2490; (6.7): 10 → 0.9932, 8 → 0.9961, 5 → 0.8857,
    // 3 → 0.7778 (notes 002b §2.1–2.2).
    for (d, one_tree, periodic) in [
        ("10", Some(0.1998), 0.9932),
        ("8", Some(0.2490), 0.9961),
        ("5", None, 0.8857),
        ("3", None, 0.7778),
    ] {
        if let Some(want) = one_tree {
            assert!(
                (value(&["one-tree-limit", "--d", d]) - want).abs() < 5e-5,
                "d {d}"
            );
        }
        assert!(
            (value(&["periodic-limit", "--d", d]) - periodic).abs() < 5e-5,
            "d {d}"
        );
    }
    // Single root: (1/d)(1 − 2^−d), half the one-tree limit.
    assert!((value(&["single-root-limit", "--d", "8"]) - 255.0 / 2048.0).abs() < 1e-15);
    // The inferior sequential scheme (F10): ρ*_5 = 31/800, and T̃ = d + 1/2 at ρ = 0.
    assert!((value(&["inferior-limit", "--d", "5"]) - 31.0 / 800.0).abs() < 1e-15);
    assert_eq!(value(&["inferior-delay", "--d", "5", "--rho", "0"]), 5.5);
    let half = value(&["inferior-delay", "--d", "5", "--rho", "0.019375"]);
    // ρ = ρ*/2: d + 1/2 + dρ/(2ρ*/2) = 5.5 + 5/2.
    assert!((half - 8.0).abs() < 1e-12, "{half}");
    assert_eq!(value(&["direct-light-traffic", "--d", "8"]), 8.5);
    assert_eq!(value(&["nonidling-light-traffic", "--d", "8"]), 12.0);
}

#[test]
fn lemma_7_2_depends_only_on_the_mean_length() {
    let args = |lengths: &'static str| {
        value(&[
            "lemma-7-2",
            "--lambda",
            "0.05",
            "--lengths",
            lengths,
            "--delta",
            "3",
        ])
    };
    // n = 2, λnΔ = 0.3: 3[3/2 + 0.3/1.4] + 3·3 − 3.
    let want = 3.0 * (1.5 + 0.3 / 1.4) + 6.0;
    assert!((args("4,2") - want).abs() < 1e-12);
    assert!((args("3,3") - want).abs() < 1e-12);
    assert!((args("1,5") - want).abs() < 1e-12);
    let v = json(&[
        "queue",
        "lemma-7-2",
        "--lambda",
        "0.05",
        "--lengths",
        "4,2",
        "--json",
    ]);
    assert_eq!(v["lengths"], serde_json::json!([4, 2]));
    assert_eq!(v["delta"], serde_json::Value::Null, "Δ defaults to 1");
}

#[test]
fn rates_queues_and_butterfly_estimate() {
    // F1 and its inverse on the 8-cube.
    assert!((value(&["broadcast-load", "--d", "8", "--lambda", "0.02"]) - 0.6375).abs() < 1e-15);
    assert!((value(&["broadcast-rate", "--d", "8", "--rho", "0.6375"]) - 0.02).abs() < 1e-15);
    // (2.3): Poisson moments give (2.4); Bernoulli arrivals never wait.
    let gd1 = value(&["discrete-gd1", "--rho", "0.6", "--second-factorial", "0.36"]);
    assert!((gd1 - value(&["discrete-md1", "--rho", "0.6"])).abs() < 1e-15);
    assert_eq!(
        value(&["discrete-gd1", "--rho", "0.4", "--second-factorial", "0"]),
        1.0
    );
    // Prop. 5.17's q_ρ on the butterfly at λ = 1, p = 1/2: 1 + 1.
    assert_eq!(
        value(&["butterfly-q-rho", "--d", "4", "--rho", "0.5", "--p", "0.5"]),
        2.0
    );
}

#[test]
fn new_formulas_refuse_bad_input() {
    for args in [
        &["queue", "rule-c-limit", "--d", "8", "--k", "0", "--l", "2"][..],
        &["queue", "rule-c-limit", "--d", "8", "--l", "2"],
        &["queue", "rule-c-limit", "--d", "1", "--k", "1", "--l", "2"],
        &["queue", "lemma-7-2", "--lambda", "0.1", "--lengths", "2,0"],
        &["queue", "lemma-7-2", "--lambda", "0.1"],
        &["queue", "lemma-7-2", "--lambda", "0.5", "--lengths", "2,2"],
        &["queue", "inferior-delay", "--d", "5", "--rho", "0.05"],
        &["queue", "discrete-gd1", "--rho", "0.5"],
        &["queue", "broadcast-load", "--d", "8", "--lambda", "0"],
        &["queue", "periodic-limit", "--d", "0"],
    ] {
        assert_one_line_error(args);
    }
    // A malformed list is clap's error: exit status 2, no panic.
    let a = fatnet()
        .args(["queue", "lemma-7-2", "--lambda", "0.1", "--lengths", "x,2"])
        .assert()
        .code(2);
    let err = String::from_utf8(a.get_output().stderr.clone()).unwrap();
    assert!(
        err.starts_with("error: ") && !err.contains("panicked"),
        "{err}"
    );
}
