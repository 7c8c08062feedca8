//! `fatnet simulate --arrivals` (Stamoulis' dynamic routing) and `fatnet queue`.

use crate::common::{assert_one_line_error, fatnet, json};

#[test]
fn poisson_greedy_reports_the_delay_beside_its_bounds() {
    let v = json(&[
        "simulate",
        "hypercube:d=4",
        "--arrivals",
        "poisson",
        "--rate",
        "1.0",
        "--p",
        "0.5",
        "--slots",
        "20000",
        "--seed",
        "3",
        "--json",
    ]);
    let t = v["delay_mean"].as_f64().unwrap();
    let ci = v["delay_ci"].as_f64().unwrap();
    // The notes' simulation gives T ≈ 2.83 (002a R5.14).
    assert!((t - 2.83).abs() < 0.03 + ci, "T = {t}");
    assert_eq!(v["bounds"]["lower"].as_f64(), Some(2.25));
    assert_eq!(v["bounds"]["upper"].as_f64(), Some(4.0));
    assert_eq!(v["bounds"]["lower_source"], "Prop. 5.13");
    assert!((v["bounds"]["claimed_lower"].as_f64().unwrap() - 2.4375).abs() < 1e-12);
    assert_eq!(v["within_bounds"], true);
    assert_eq!(v["rho"].as_f64(), Some(0.5));
    assert_eq!(v["arc_rate"].as_array().unwrap().len(), 4);
    // Same seed, same output.
    let again = json(&[
        "simulate",
        "hypercube:d=4",
        "--arrivals",
        "poisson",
        "--rate",
        "1.0",
        "--p",
        "0.5",
        "--slots",
        "20000",
        "--seed",
        "3",
        "--json",
    ]);
    assert_eq!(v, again);
}

#[test]
fn antipodal_traffic_has_an_exact_delay() {
    let v = json(&[
        "simulate",
        "hypercube:d=3",
        "--arrivals",
        "poisson",
        "--rate",
        "0.5",
        "--p",
        "1",
        "--slots",
        "40000",
        "--json",
    ]);
    let exact = v["bounds"]["exact"].as_f64().unwrap();
    assert_eq!(exact, 3.5);
    let (t, ci) = (
        v["delay_mean"].as_f64().unwrap(),
        v["delay_ci"].as_f64().unwrap(),
    );
    assert!((t - exact).abs() <= ci + 0.01, "{t} ± {ci}");
}

#[test]
fn slotted_adaptive_and_trials() {
    let v = json(&[
        "simulate",
        "hypercube:d=5",
        "--arrivals",
        "slotted",
        "--router",
        "adaptive",
        "--rate",
        "1.6",
        "--slots",
        "3000",
        "--trials",
        "3",
        "--threads",
        "2",
        "--per-trial",
        "--json",
    ]);
    assert_eq!(v["router"], "adaptive");
    assert_eq!(v["trials"], 3);
    assert_eq!(v["per_trial"].as_array().unwrap().len(), 3);
    assert_eq!(v["bounds"]["upper"], serde_json::Value::Null);
    assert_eq!(v["bounds"]["lower_source"], "Prop. 5.2 (any scheme)");
    let t = v["delay_mean"].as_f64().unwrap();
    // Greedy at the same load is slower.
    let g = json(&[
        "simulate",
        "hypercube:d=5",
        "--arrivals",
        "slotted",
        "--rate",
        "1.6",
        "--slots",
        "3000",
        "--trials",
        "3",
        "--json",
    ]);
    assert!(t < g["delay_mean"].as_f64().unwrap());
    // One thread or two: the same numbers.
    let one = json(&[
        "simulate",
        "hypercube:d=5",
        "--arrivals",
        "slotted",
        "--router",
        "adaptive",
        "--rate",
        "1.6",
        "--slots",
        "3000",
        "--trials",
        "3",
        "--threads",
        "1",
        "--per-trial",
        "--json",
    ]);
    assert_eq!(v, one);
}

#[test]
fn butterfly_text_output() {
    let out = fatnet()
        .args([
            "simulate",
            "butterfly:d=4",
            "--arrivals",
            "poisson",
            "--rate",
            "1.2",
            "--slots",
            "3000",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("Prop. 5.14") && text.contains("Prop. 5.17"),
        "{text}"
    );
    assert!(text.contains("within bounds      yes"), "{text}");
}

#[test]
fn dynamic_input_errors() {
    for args in [
        &["simulate", "hypercube:d=4", "--arrivals", "poisson"][..],
        &[
            "simulate",
            "hypercube:d=4",
            "--arrivals",
            "poisson",
            "--rate",
            "2.5",
        ],
        &[
            "simulate",
            "hypercube:d=4",
            "--arrivals",
            "poisson",
            "--rate",
            "1",
            "--p",
            "2",
        ],
        &[
            "simulate",
            "hypercube:d=4",
            "--arrivals",
            "poisson",
            "--rate",
            "1",
            "--router",
            "adaptive",
        ],
        &[
            "simulate",
            "butterfly:d=4",
            "--arrivals",
            "slotted",
            "--router",
            "adaptive",
            "--rate",
            "1",
        ],
        &[
            "simulate",
            "bft:n=16",
            "--arrivals",
            "poisson",
            "--rate",
            "1",
        ],
        &[
            "simulate",
            "hypercube:d=4",
            "--arrivals",
            "poisson",
            "--rate",
            "1",
            "--traffic",
            "complement",
        ],
        &[
            "simulate",
            "hypercube:d=4",
            "--traffic",
            "complement",
            "--rate",
            "1",
        ],
        &[
            "simulate",
            "hypercube:d=4",
            "--arrivals",
            "poisson",
            "--rate",
            "1",
            "--warmup",
            "50",
            "--slots",
            "40",
        ],
        &[
            "simulate",
            "hypercube:d=4",
            "--arrivals",
            "poisson",
            "--rate",
            "1",
            "--batches",
            "1",
        ],
        &[
            "simulate",
            "hypercube:d=0",
            "--arrivals",
            "poisson",
            "--rate",
            "1",
        ],
    ] {
        assert_one_line_error(args);
    }
}

#[test]
fn queue_evaluates_the_closed_forms() {
    let v = json(&[
        "queue",
        "greedy-lower",
        "--d",
        "6",
        "--rho",
        "0.8",
        "--json",
    ]);
    assert_eq!(v["value"].as_f64(), Some(4.0));
    assert_eq!(v["status"], "proved");
    let v = json(&["queue", "mdc", "--c", "2", "--rho", "0.8", "--json"]);
    assert!((v["value"].as_f64().unwrap() - 1.90328).abs() < 5e-6);
    let v = json(&[
        "queue",
        "brumelle-printed",
        "--c",
        "2",
        "--rho",
        "0.8",
        "--json",
    ]);
    assert_eq!(v["status"], "wrong-as-printed");
    let v = json(&["queue", "prop-7-4", "--d", "8", "--rho", "0.5", "--json"]);
    assert!((v["value"].as_f64().unwrap() - 29.571).abs() < 5e-4);
    let list = fatnet().args(["queue", "list"]).output().unwrap();
    assert!(list.status.success());
    let text = String::from_utf8(list.stdout).unwrap();
    assert!(text.contains("prop-7-5-printed") && text.contains("WRONG as printed"));
    for args in [
        &["queue", "nonsense"][..],
        &["queue", "greedy-lower", "--d", "4"],
        &["queue", "greedy-upper", "--d", "4", "--rho", "1.2"],
        &["queue", "mdc", "--c", "0", "--rho", "0.5"],
        &["queue", "g", "--d", "4", "--m", "5", "--i", "1"],
    ] {
        assert_one_line_error(args);
    }
}

#[test]
fn broadcast_schemes_beside_the_thesis() {
    let v = json(&[
        "simulate",
        "hypercube:d=4",
        "--arrivals",
        "poisson",
        "--broadcast",
        "indirect",
        "--rate",
        "0.08",
        "--slots",
        "60000",
        "--json",
    ]);
    // ρ = 0.08 · 15/4 = 0.3: Prop. 7.4 gives 14.385 (notes 002b §3.11).
    assert!((v["rho"].as_f64().unwrap() - 0.3).abs() < 1e-12);
    let exact = v["bounds"]["exact"].as_f64().unwrap();
    assert!((exact - 14.385).abs() < 5e-4);
    let (t, ci) = (
        v["delay_mean"].as_f64().unwrap(),
        v["delay_ci"].as_f64().unwrap(),
    );
    assert!((t - exact).abs() < ci + 0.05, "{t} ± {ci} vs {exact}");
    let v = json(&[
        "simulate",
        "hypercube:d=5",
        "--arrivals",
        "poisson",
        "--broadcast",
        "direct",
        "--rate",
        "0.02",
        "--slots",
        "4000",
        "--json",
    ]);
    let approx = v["bounds"]["approximation"].as_f64().unwrap();
    let t = v["delay_mean"].as_f64().unwrap();
    // (6.19) is within 2 % of simulation for ρ ≤ 0.3 (thesis §6.5); here ρ = 0.124.
    assert!((t - approx).abs() < 0.02 * t, "{t} vs (6.19) {approx}");
    assert_eq!(v["within_bounds"], true);
    for args in [
        &[
            "simulate",
            "hypercube:d=5",
            "--arrivals",
            "poisson",
            "--broadcast",
            "indirect",
            "--rate",
            "0.2",
        ][..],
        &[
            "simulate",
            "butterfly:d=5",
            "--arrivals",
            "poisson",
            "--broadcast",
            "direct",
            "--rate",
            "0.01",
        ],
        &[
            "simulate",
            "hypercube:d=5",
            "--arrivals",
            "slotted",
            "--broadcast",
            "direct",
            "--rate",
            "0.01",
        ],
        &[
            "simulate",
            "hypercube:d=5",
            "--arrivals",
            "poisson",
            "--broadcast",
            "direct",
            "--rate",
            "0.01",
            "--p",
            "0.3",
        ],
        &[
            "simulate",
            "hypercube:d=5",
            "--traffic",
            "complement",
            "--broadcast",
            "direct",
        ],
    ] {
        assert_one_line_error(args);
    }
}

#[test]
fn slotted_butterfly_uses_the_proved_slotted_bound() {
    let v = json(&[
        "simulate",
        "butterfly:d=10",
        "--arrivals",
        "slotted",
        "--rate",
        "1",
        "--p",
        "0.5",
        "--slots",
        "3000",
        "--json",
    ]);
    // Prop. 5.14 gives 10.5; the slotted Prop. 5.18 (5.33) 10 + 4.5 · 0.25 = 11.125.
    assert!((v["bounds"]["lower"].as_f64().unwrap() - 11.125).abs() < 1e-12);
    assert_eq!(v["within_bounds"], true);
    assert_eq!(v["hops_mean"].as_f64(), Some(10.0));
}

fn broadcast(scheme: &str, d: &str, rate: &str, slots: &str) -> Vec<String> {
    [
        "simulate",
        d,
        "--arrivals",
        "poisson",
        "--broadcast",
        scheme,
        "--rate",
        rate,
        "--slots",
        slots,
        "--json",
    ]
    .map(String::from)
    .to_vec()
}

fn run_json(args: &[String]) -> serde_json::Value {
    json(&args.iter().map(String::as_str).collect::<Vec<_>>())
}

/// §6.3's simpler direct schemes: P1 beside its exact M/D/1 with synchronisation, the labelled
/// non-idling version below it, one tree per node with its own stability limit.
#[test]
fn simpler_direct_broadcast_schemes() {
    // d = 4: P = 4, λ = 0.12 gives ρ = 0.45 and λP = 0.48: (2.6) T = 4(3/2 + 0.48/1.04).
    let p1 = 4.0 * (1.5 + 0.48 / 1.04);
    let args = broadcast("periodic", "hypercube:d=4", "0.12", "40000");
    let v = run_json(&args);
    assert_eq!(v["scheme"], "periodic");
    assert!((v["rho"].as_f64().unwrap() - 0.45).abs() < 1e-12);
    assert!((v["bounds"]["stability_limit"].as_f64().unwrap() - 0.9375).abs() < 1e-12);
    let exact = v["bounds"]["exact"].as_f64().unwrap();
    assert!((exact - p1).abs() < 1e-9);
    assert_eq!(
        v["bounds"]["exact_source"],
        "M/D/1 with synchronisation (2.6), delta = P"
    );
    let (t, ci) = (
        v["delay_mean"].as_f64().unwrap(),
        v["delay_ci"].as_f64().unwrap(),
    );
    assert!((t - exact).abs() < ci + 0.02, "{t} ± {ci} vs (2.6) {exact}");
    assert_eq!(v, run_json(&args), "same seed, same output");

    let v = run_json(&broadcast(
        "periodic-nonidling",
        "hypercube:d=4",
        "0.12",
        "20000",
    ));
    assert!((v["bounds"]["upper"].as_f64().unwrap() - p1).abs() < 1e-9);
    let t = v["delay_mean"].as_f64().unwrap();
    // Labels keep P1's order, so each packet arrives no later; the tree has depth 4.
    assert!(t < p1 && t > 4.0, "{t}");
    assert_eq!(v["within_bounds"], true);
    assert!(v["backlog_trend"].as_f64().unwrap().abs() < 1e-3);

    // One tree per node at d = 5: stable only below (2/5)(1 − 1/32) = 0.3875.
    let v = run_json(&broadcast("one-tree", "hypercube:d=5", "0.05", "20000"));
    assert!((v["bounds"]["stability_limit"].as_f64().unwrap() - 0.3875).abs() < 1e-12);
    assert!(v["delay_mean"].as_f64().unwrap() > v["bounds"]["lower"].as_f64().unwrap());
    assert!(v["backlog_trend"].as_f64().unwrap().abs() < 1e-3);

    for args in [
        // ρ = 0.07 · 31/5 = 0.434 > 0.3875.
        broadcast("one-tree", "hypercube:d=5", "0.07", "1000"),
        // ρ = 0.15 · 31/5 = 0.93 > (6.7) = 0.8857.
        broadcast("periodic", "hypercube:d=5", "0.15", "1000"),
        broadcast("periodic-nonidling", "hypercube:d=5", "0.15", "1000"),
        broadcast("periodic", "hypercube:d=13", "0.0001", "1000"),
    ] {
        assert_one_line_error(&args.iter().map(String::as_str).collect::<Vec<_>>());
    }
}
