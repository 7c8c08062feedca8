//! `fatnet exchange` and `fatnet broadcast`: Stamoulis' hypercube tasks from the command line.

use predicates::prelude::*;

use crate::common::{fatnet, json};

#[test]
fn exchange_json_reports_the_optimal_time_for_every_small_cube() {
    for d in 1..=6u64 {
        let v = json(&["exchange", "--d", &d.to_string(), "--json"]);
        let n = 1u64 << d;
        assert_eq!(v["slots"], 1u64 << (d - 1), "d = {d}");
        assert_eq!(v["lower_bound"], 1u64 << (d - 1));
        assert_eq!(v["optimal"], true);
        assert_eq!(v["verified"], true);
        assert_eq!(v["every_arc_busy"], true);
        assert_eq!(v["packets"], n * (n - 1));
        assert_eq!(v["transmissions"], d * (n / 2) * n);
        assert!(v.get("schedule").is_none());
    }
}

#[test]
fn exchange_schedule_lists_every_transmission_once_per_arc_and_slot() {
    let v = json(&["exchange", "--d", "3", "--json", "--schedule", "--tables"]);
    let hops = v["schedule"].as_array().unwrap();
    assert_eq!(hops.len(), 3 * 4 * 8);
    let mut seen = std::collections::HashSet::new();
    for h in hops {
        let key = (
            h["slot"].as_u64().unwrap(),
            h["from"].as_u64().unwrap(),
            h["dimension"].as_u64().unwrap(),
        );
        assert!(seen.insert(key), "arc used twice: {key:?}");
        assert_eq!(h["to"].as_u64().unwrap(), key.1 ^ (1 << (key.2 - 1)), "{h}");
    }
    // Figure 3.2, table 3.
    assert_eq!(v["tables"], serde_json::json!([[1], [3, 2], [5, 7, 6, 4]]));
}

#[test]
fn exchange_text_prints_the_summary_tables_and_schedule() {
    fatnet()
        .args(["exchange", "--d", "4", "--tables", "--schedule"])
        .assert()
        .success()
        .stdout(
            predicate::str::contains("slots           8 (lower bound 2^(d-1) = 8, optimal)")
                .and(predicate::str::contains(
                    "every arc busy  yes (64 arcs x 8 slots)",
                ))
                .and(predicate::str::contains(
                    "    5                        1111",
                ))
                .and(predicate::str::contains("slot 8"))
                .and(predicate::str::contains("0000 -4-> 1000  packet")),
        );
}

#[test]
fn bad_dimensions_fail_with_one_line_and_status_2() {
    for d in ["0", "13"] {
        let out = fatnet()
            .args(["exchange", "--d", d])
            .assert()
            .code(2)
            .get_output()
            .clone();
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains("out of range (1..=12)"), "{err}");
    }
}

#[test]
fn broadcast_a4_meets_the_thesis_bound_on_its_example() {
    let v = json(&["broadcast", "--d", "3", "--sources", "0,2,3,6", "--json"]);
    assert_eq!(v["k"], 4);
    assert_eq!(v["claim"], "<= 2⌈K/d⌉+4d+2 = 18");
    assert_eq!(v["claim_holds"], true);
    assert!(v["slots"].as_u64().unwrap() <= 18);
    assert_eq!(v["phases"]["prefix"], 6);
    assert_eq!(v["phases"]["root_loads"], serde_json::json!([2, 1, 1]));
}

#[test]
fn broadcast_special_cases_meet_their_exact_times() {
    for (args, slots) in [
        (vec!["--algorithm", "antipode", "--sources", "1,6"], 5),
        (
            vec!["--algorithm", "ranked-known", "--sources", "3,9,17"],
            5,
        ),
        (vec!["--algorithm", "ranked", "--sources", "3,9"], 15),
        (vec!["--algorithm", "single", "--sources", "31"], 5),
        (vec!["--algorithm", "multinode"], 7),
    ] {
        let mut all = vec!["broadcast", "--d", "5", "--json"];
        all.extend(&args);
        let v = json(&all);
        assert_eq!(v["slots"], slots, "{args:?}");
        assert_eq!(v["claim_holds"], true, "{args:?}");
    }
    let v = json(&[
        "broadcast",
        "--d",
        "5",
        "--json",
        "--algorithm",
        "random",
        "--seed",
        "3",
        "--sources",
        "1,2,3,4,5,6,7,8,9,10",
    ]);
    assert_eq!(v["claim_holds"], true);
    assert_eq!(v["phases"]["prefix"], 0);
}

#[test]
fn broadcast_rejects_bad_sources() {
    for (args, needle) in [
        (vec!["--d", "3", "--sources", "8"], "node 8 is out of range"),
        (
            vec!["--d", "3"],
            "number of sources = 0 is out of range (at least 1)",
        ),
        (
            vec!["--d", "3", "--algorithm", "single", "--sources", "1,2"],
            "exactly 1 for the single-node broadcast",
        ),
        (
            vec!["--d", "3", "--algorithm", "ranked", "--sources", "0,1,2,3"],
            "K = 4 is out of range",
        ),
        (
            vec!["--d", "3", "--algorithm", "multinode", "--sources", "1"],
            "multinode algorithms broadcast from every node",
        ),
    ] {
        let mut all = vec!["broadcast"];
        all.extend(&args);
        fatnet()
            .args(&all)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(needle));
    }
}
