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

/// Runs `fatnet schedule verify` on `file` and returns its exit status and standard output.
fn verify(file: &std::path::Path, extra: &[&str]) -> (i32, String) {
    let out = crate::common::fatnet()
        .args(["schedule", "verify"])
        .arg(file)
        .args(extra)
        .output()
        .unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(!err.contains("panicked"), "{err}");
    (
        out.status.code().unwrap(),
        String::from_utf8(out.stdout).unwrap(),
    )
}

const TREE: &str = "fattree:n=64,profile=area";

#[test]
fn verify_accepts_what_schedule_writes_as_json_and_as_cycle_lines() {
    let dir = tempfile::tempdir().unwrap();
    let args = [
        "schedule",
        TREE,
        "--traffic",
        "replicated:k=3",
        "--seed",
        "7",
    ];
    let json = [&args[..], &["--json"]].concat();
    let computed = crate::common::json(&json);
    let path = dir.path().join("s.json");
    std::fs::write(&path, crate::common::stdout_of(json)).unwrap();
    let (code, out) = verify(&path, &["--topology", TREE, "--json"]);
    assert_eq!(code, 0, "{out}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["valid"], true);
    assert_eq!(v["violation"], Value::Null);
    assert_eq!(v["cycles"], computed["cycles"]);
    assert_eq!(v["messages"], computed["messages"]);
    assert_eq!(v["lower_bound"], computed["lower_bound"]);
    assert_eq!(v["load_factor_exact"], computed["load_factor_exact"]);
    // The cycle lines of --cycles are the text form; checked against the same message set.
    let text = crate::common::stdout_of([&args[..], &["--cycles"]].concat());
    let lines: Vec<&str> = text.lines().filter(|l| l.starts_with("cycle ")).collect();
    assert_eq!(lines.len() as u64, computed["cycles"].as_u64().unwrap());
    let path = dir.path().join("s.txt");
    std::fs::write(&path, lines.join("\n")).unwrap();
    let (code, out) = verify(
        &path,
        &[
            "--topology",
            TREE,
            "--traffic",
            "replicated:k=3",
            "--seed",
            "7",
        ],
    );
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("valid           yes"), "{out}");
    let lower = computed["lower_bound"].as_u64().unwrap();
    assert!(
        out.contains(&format!("no schedule has fewer than {lower} cycles")),
        "{out}"
    );
}

#[test]
fn verify_names_the_cycle_and_channel_over_capacity() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.txt");
    // 0->4 and 1->5 both leave the switch above leaves 0 and 1 by its capacity-1 up channel.
    std::fs::write(&path, "cycle 0: 2->3\ncycle 1: 0->4 1->5\n").unwrap();
    let tree = "fattree:n=8,profile=constant,cap=1";
    let (code, out) = verify(&path, &["--topology", tree]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains(
            "NO: cycle 1 puts 2 messages on channel 6 (s1.0 -> s2.0), whose capacity is 1"
        ),
        "{out}"
    );
    let (code, out) = verify(&path, &["--topology", tree, "--json"]);
    assert_eq!(code, 1);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["valid"], false);
    assert_eq!(
        v["violation"],
        serde_json::json!({"kind": "overloaded", "cycle": 1, "channel": 6, "load": 2, "capacity": 1})
    );
    // λ = 2 on that channel: the same pairs in two cycles verify.
    assert_eq!(v["lower_bound"], 2);
    std::fs::write(&path, "2->3 0->4\n1->5\n").unwrap();
    assert_eq!(verify(&path, &["--topology", tree]).0, 0);
}

#[test]
fn verify_finds_a_missing_message_and_one_not_in_the_set() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.json");
    // Message 2 (0->3) is in `pairs` but in no cycle.
    std::fs::write(
        &path,
        r#"{"schedule": [[0, 1], [3]], "pairs": [[0, 2], [1, 3], [0, 3], [1, 2]]}"#,
    )
    .unwrap();
    let tree = "fattree:n=4,profile=constant,cap=2";
    let (code, out) = verify(&path, &["--topology", tree]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("NO: message 2 (0->3) is not delivered"),
        "{out}"
    );
    // Against a given set, a pair the set lacks.
    let set = dir.path().join("m.txt");
    std::fs::write(&set, "0 2\n1 3\n").unwrap();
    let text = dir.path().join("s.txt");
    std::fs::write(&text, "0->2\n1->3 3->1\n").unwrap();
    let traffic = format!("file:{}", set.display());
    let (code, out) = verify(&text, &["--topology", tree, "--traffic", &traffic]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("NO: cycle 1 delivers 3->1, which is not in the message set"),
        "{out}"
    );
    std::fs::write(&text, "0->2\n1->3 0->2\n").unwrap();
    let (code, out) = verify(&text, &["--topology", tree, "--traffic", &traffic]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("NO: message 0 (0->2) is delivered twice, in cycles 0 and 1"),
        "{out}"
    );
}

#[test]
fn verify_refuses_bad_input_with_status_2_naming_the_line() {
    let dir = tempfile::tempdir().unwrap();
    let tree = "fattree:n=4,profile=constant,cap=2";
    for (contents, expected) in [
        ("0->2\n1-3\n", "line 2: expected `src->dst` pairs"),
        (
            "cycle 0: 0->2\ncycle 5: 1->3\n",
            "line 2: `cycle 5:` is cycle 1",
        ),
        ("0->2\n\n1->4\n", "line 3: processor 4 is out of range"),
        ("{\"schedule\": [[0]]}", "missing field `pairs`"),
    ] {
        let path = dir.path().join("bad");
        std::fs::write(&path, contents).unwrap();
        let p = path.display().to_string();
        let args = ["schedule", "verify", &p, "--topology", tree];
        assert_one_line_error(&args);
        let err = crate::common::stderr_of_failure(args);
        assert!(err.contains(expected), "{contents:?}: {err}");
    }
    // Not a regular file, no file at all, and no --topology.
    for args in [
        vec!["schedule", "verify", "/dev/zero", "--topology", tree],
        vec![
            "schedule",
            "verify",
            "/nonexistent/s.txt",
            "--topology",
            tree,
        ],
    ] {
        assert_one_line_error(&args);
    }
    let a = crate::common::fatnet()
        .args(["schedule", "verify", "s.txt"])
        .assert()
        .code(2);
    assert!(String::from_utf8_lossy(&a.get_output().stderr).contains("--topology"));
    // The help documents the statuses and both formats.
    let help = crate::common::stdout_of(["schedule", "verify", "--help"]);
    for needle in [
        "EXIT STATUS",
        "1  the schedule is invalid",
        "2  bad input",
        "cycle 0: 0->2 1->3",
    ] {
        assert!(help.contains(needle), "{needle}: {help}");
    }
}

/// A JSON schedule names the topology it was made for; checking it on another one is refused
/// (exit 2) instead of judging paths the schedule was never made for. The same topology in
/// another spelling is the same topology.
#[test]
fn verify_refuses_a_json_schedule_made_for_another_topology() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.json");
    let json = crate::common::stdout_of(["schedule", TREE, "--traffic", "permutation", "--json"]);
    std::fs::write(&path, json).unwrap();
    let other = "fattree:n=64,profile=doubling";
    let out = crate::common::fatnet()
        .args(["schedule", "verify"])
        .arg(&path)
        .args(["--topology", other])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("was made for `fattree:n=64,profile=area") && err.contains("pass --topology"),
        "{err}"
    );
    // The canonical spelling of TREE spells out its defaults: still the same topology.
    let (code, _) = verify(
        &path,
        &[
            "--topology",
            "fattree:n=64,profile=area,leaf=1,growth=smooth",
        ],
    );
    assert_eq!(code, 0);
}
