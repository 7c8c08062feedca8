//! `fatnet schedule`.

use serde_json::Value;

use crate::common::{assert_one_line_error, json};

/// The schedule in the JSON is an exact partition of the message ids 0..|M| into cycles.
fn assert_partition(v: &Value) {
    let m = v["messages"].as_u64().unwrap();
    let mut ids: Vec<u64> = v["schedule"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|c| c.as_array().unwrap().iter().map(|x| x.as_u64().unwrap()))
        .collect();
    ids.sort_unstable();
    assert_eq!(ids, (0..m).collect::<Vec<_>>());
    assert_eq!(
        v["cycles"].as_u64().unwrap() as usize,
        v["schedule"].as_array().unwrap().len()
    );
}

#[test]
fn theorem1_schedule_is_verified_and_within_its_bound() {
    let v = json(&[
        "schedule",
        "fattree:n=256,profile=area",
        "--traffic",
        "replicated:k=4",
        "--seed",
        "5",
        "--json",
    ]);
    assert_eq!(v["verified"], true);
    assert_eq!(v["algorithm"], "theorem1");
    assert_partition(&v);
    let cycles = v["cycles"].as_u64().unwrap();
    assert!(cycles <= v["bound"].as_u64().unwrap());
    assert!(cycles >= v["lower_bound"].as_u64().unwrap());
    assert!(cycles as f64 >= v["load_factor"].as_f64().unwrap());
}

#[test]
fn corollary2_schedule_meets_four_lambda_when_capacities_are_twice_lg_n() {
    // n = 64, lg n = 6, capacities 12 = 2 lg n: a = 2, Corollary 2 gives at most 4λ cycles.
    let v = json(&[
        "schedule",
        "fattree:n=64,profile=constant,cap=12",
        "--traffic",
        "replicated:k=8",
        "--algorithm",
        "corollary2",
        "--json",
    ]);
    assert_eq!(v["verified"], true);
    assert_partition(&v);
    assert_eq!(v["capacity_ratio"], 2.0);
    let cycles = v["cycles"].as_f64().unwrap();
    assert!(cycles <= 4.0 * v["load_factor"].as_f64().unwrap());
}

#[test]
fn the_schedule_names_message_positions_of_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.txt");
    // Four messages through the root of a 4-leaf tree, all on the root-child channels of
    // capacity 2: λ = 2, and the schedule needs exactly 2 cycles.
    std::fs::write(&path, "0 2\n1 3\n0 3\n1 2\n").unwrap();
    let v = json(&[
        "schedule",
        "fattree:n=4,profile=constant,cap=2",
        "--traffic",
        &format!("file:{}", path.display()),
        "--json",
    ]);
    assert_eq!(v["messages"], 4);
    assert_eq!(v["cycles"], 2);
    assert_partition(&v);
    assert_eq!(
        v["pairs"],
        serde_json::json!([[0, 2], [1, 3], [0, 3], [1, 2]])
    );
    // In text, every cycle lists its messages as `src->dst`: two cycles, each message once.
    let text = crate::common::stdout_of([
        "schedule".to_string(),
        "fattree:n=4,profile=constant,cap=2".into(),
        "--traffic".into(),
        format!("file:{}", path.display()),
        "--cycles".into(),
    ]);
    let cycles: Vec<&str> = text.lines().filter(|l| l.starts_with("cycle ")).collect();
    assert_eq!(cycles.len(), 2, "{text}");
    let mut listed: Vec<&str> = cycles
        .iter()
        .flat_map(|l| l.split_once(": ").unwrap().1.split(' '))
        .collect();
    listed.sort_unstable();
    assert_eq!(listed, ["0->2", "0->3", "1->2", "1->3"], "{text}");
}

#[test]
fn schedule_rejects_other_topologies_and_small_capacities() {
    for args in [
        vec!["schedule", "bft:n=64", "--traffic", "complement"],
        vec![
            "schedule",
            "fattree:n=64,profile=constant,cap=6",
            "--traffic",
            "complement",
            "--algorithm",
            "corollary2",
        ],
        // Fictitious capacities are Corollary 2's.
        vec![
            "schedule",
            "fattree:n=64,profile=constant,cap=12",
            "--traffic",
            "complement",
            "--fictitious",
            "depth",
        ],
        // The old name of Theorem 1 is gone: one name per scheduler.
        vec![
            "schedule",
            "fattree:n=64,profile=constant,cap=12",
            "--traffic",
            "complement",
            "--algorithm",
            "leiserson",
        ],
    ] {
        assert_one_line_error(&args);
    }
}
