//! `fatnet simulate`.

use serde_json::Value;

use crate::common::{assert_one_line_error, fatnet, json};

/// Runs `fatnet` with `args`, asserts success, and returns (parsed stdout, stderr).
fn json_and_stderr(args: &[&str]) -> (Value, String) {
    let a = fatnet().args(args).assert().success();
    let out = a.get_output();
    (
        serde_json::from_slice(&out.stdout).unwrap(),
        String::from_utf8(out.stderr.clone()).unwrap(),
    )
}

fn write(dir: &tempfile::TempDir, name: &str, text: &str) -> String {
    let path = dir.path().join(name);
    std::fs::write(&path, text).unwrap();
    path.to_str().unwrap().to_string()
}

/// Table I's many-to-1 cells for N = 16: WORM = cL + d − 2 = 8·32 + 4 − 2, STORE =
/// L(2c + d − 3) = 32·(16 + 4 − 3), with the paper's defaults (L = 32, q = 2 flits / 1 packet).
#[test]
fn many_to_one_on_bft_16_matches_table_one() {
    for (flow, latency, queue) in [("worm", 258, 2), ("store", 544, 1)] {
        let v = json(&[
            "simulate",
            "bft:n=16",
            "--traffic",
            "many-to-one",
            "--flow",
            flow,
            "--json",
        ]);
        assert_eq!(v["latency_mean"], latency as f64, "{flow}");
        assert_eq!(v["latency_min"], latency, "{flow}");
        assert_eq!(v["latency_max"], latency, "{flow}");
        assert_eq!(v["latency_ci"], Value::Null, "one trial has no interval");
        assert_eq!(v["confidence"], 0.99);
        assert_eq!(v["congestion_mean"], 8.0);
        assert_eq!(
            (v["trials"].clone(), v["finished"].clone()),
            (1.into(), 1.into())
        );
        assert_eq!(v["messages"], 16);
        // The effective configuration, defaults included.
        assert_eq!(v["topology"], "bft:n=16");
        assert_eq!(v["traffic"], "many-to-one");
        assert_eq!(v["flow"], flow);
        assert_eq!(
            (v["path"].as_str(), v["scan"].as_str()),
            (Some("rp"), Some("rr"))
        );
        assert_eq!(
            (v["flits"].clone(), v["queue"].clone()),
            (32.into(), queue.into())
        );
        assert_eq!(
            (v["delay"].clone(), v["seed"].clone()),
            (1.into(), 1.into())
        );
        assert_eq!(v["sink"], "queue");
        assert!(v["steps"].as_u64().unwrap() > 0 && v["unit_hops"].as_u64().unwrap() > 0);
    }
}

#[test]
fn results_do_not_depend_on_the_thread_count() {
    let base = [
        "simulate",
        "bft:n=64",
        "--traffic",
        "permutation",
        "--trials",
        "4",
        "--seed",
        "9",
        "--per-trial",
        "--json",
    ];
    let one = json(&[&base[..], &["--threads", "1"]].concat());
    let two = json(&[&base[..], &["--threads", "2"]].concat());
    assert_eq!(one, two);
    assert_eq!(one["finished"], 4);
    let trials = one["per_trial"].as_array().unwrap();
    assert_eq!(trials.len(), 4);
    let latencies: Vec<u64> = trials
        .iter()
        .map(|t| t["latency"].as_u64().unwrap())
        .collect();
    let mean = latencies.iter().sum::<u64>() as f64 / 4.0;
    assert!((one["latency_mean"].as_f64().unwrap() - mean).abs() < 1e-9);
    assert_eq!(one["latency_max"], *latencies.iter().max().unwrap());
    assert!(one["latency_ci"].as_f64().unwrap() >= 0.0);
    // Fresh instances per trial: the trials are not all the same run.
    let means: Vec<&Value> = trials.iter().map(|t| &t["mean_latency"]).collect();
    assert!(means.iter().any(|&m| m != means[0]), "{means:?}");
    let other = json(&[&base[..4], &["--trials", "4", "--seed", "10", "--json"]].concat());
    assert_ne!(one["mean_latency_mean"], other["mean_latency_mean"]);
}

/// The documented seeding: trial i's random pattern is the set `fatnet traffic --seed s_i`
/// writes, and its run draws from (s_i, 1) whatever the pattern; so replaying that set from a
/// file with the same master seed reproduces the trial message by message.
#[test]
fn a_trial_is_replayed_from_its_traffic_seed() {
    let dir = tempfile::tempdir().unwrap();
    let first = json(&[
        "simulate",
        "hypercube:d=5",
        "--traffic",
        "permutation",
        "--seed",
        "5",
        "--latencies",
        "--json",
    ]);
    assert_eq!(first["traffic_per_trial"], true);
    let trial = &first["per_trial"][0];
    let s0 = trial["seed"].as_u64().unwrap().to_string();
    let file = dir.path().join("t.txt");
    fatnet()
        .args(["traffic", "--processors", "32", "--traffic", "permutation"])
        .args(["--seed", &s0, "--output", file.to_str().unwrap()])
        .assert()
        .success();
    let replay = json(&[
        "simulate",
        "hypercube:d=5",
        "--traffic",
        &format!("file:{}", file.display()),
        "--seed",
        "5",
        "--latencies",
        "--json",
    ]);
    assert_eq!(replay["traffic_per_trial"], false);
    assert_eq!(replay["per_trial"][0]["latencies"], trial["latencies"]);
    assert_eq!(
        replay["per_trial"][0]["latencies"]
            .as_array()
            .unwrap()
            .len(),
        32
    );
    assert_eq!(replay["latency_mean"], first["latency_mean"]);
}

#[test]
fn a_config_file_equals_its_flags_and_flags_override_it() {
    let dir = tempfile::tempdir().unwrap();
    let config = write(
        &dir,
        "sim.toml",
        r#"
topology = "bft:n=64"
traffic = "permutation"
flow = "split"
path = "gp"
scan = "fo"
flits = 8
queue = 3
delay = 2
trials = 3
seed = 4
threads = 2
max_steps = 1000000
sink = "immediate"
"#,
    );
    let from_file = json(&["simulate", "--config", &config, "--json"]);
    let from_flags = json(&[
        "simulate",
        "bft:n=64",
        "--traffic",
        "permutation",
        "--flow",
        "split",
        "--path",
        "gp",
        "--scan",
        "fo",
        "--flits",
        "8",
        "--queue",
        "3",
        "--delay",
        "2",
        "--trials",
        "3",
        "--seed",
        "4",
        "--max-steps",
        "1000000",
        "--sink",
        "immediate",
        "--json",
    ]);
    assert_eq!(from_file, from_flags);
    assert_eq!(from_file["flow"], "split");
    assert_eq!(from_file["queue"], 3);
    assert_eq!(from_file["finished"], 3);

    let overridden = json(&[
        "simulate",
        "--config",
        &config,
        "--flow",
        "worm",
        "--queue",
        "unbounded",
        "--json",
    ]);
    assert_eq!(overridden["flow"], "worm");
    assert_eq!(overridden["queue"], "unbounded");
    assert_eq!(overridden["flits"], 8, "the file's other keys still apply");
    assert_ne!(overridden["latency_mean"], from_file["latency_mean"]);

    // SPEC on the command line wins over `topology`; `scan = "prio"` with its range.
    let prio = write(
        &dir,
        "prio.toml",
        "topology = \"bft:n=1024\"\ntraffic = \"many-to-one\"\nscan = \"prio\"\npriority_range = 5\nqueue = \"unbounded\"\n",
    );
    let v = json(&["simulate", "bft:n=16", "--config", &prio, "--json"]);
    assert_eq!(
        (v["topology"].as_str(), v["processors"].as_u64()),
        (Some("bft:n=16"), Some(16))
    );
    assert_eq!(
        (v["scan"].as_str(), v["priority_range"].as_u64()),
        (Some("prio"), Some(5))
    );
    assert_eq!(v["queue"], "unbounded");
}

#[test]
fn deadlocks_and_step_limits_are_data_not_crashes() {
    // Split flits with one-flit queues and adaptive paths can fill a cycle of the 2-cube.
    let (v, err) = json_and_stderr(&[
        "simulate",
        "hypercube:d=2",
        "--traffic",
        "replicated:k=8",
        "--flow",
        "split",
        "--path",
        "fp",
        "--queue",
        "1",
        "--flits",
        "4",
        "--trials",
        "50",
        "--per-trial",
        "--json",
    ]);
    let (finished, deadlocked) = (
        v["finished"].as_u64().unwrap(),
        v["deadlocked"].as_u64().unwrap(),
    );
    assert!(
        deadlocked > 0 && finished > 0,
        "{finished} finished, {deadlocked} deadlocked"
    );
    assert_eq!(
        finished + deadlocked + v["step_limited"].as_u64().unwrap(),
        50
    );
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("warning: ") && err.contains("deadlocked"),
        "{err}"
    );
    let trials = v["per_trial"].as_array().unwrap();
    let done: Vec<u64> = trials
        .iter()
        .filter(|t| t["outcome"]["kind"] == "delivered")
        .map(|t| t["latency"].as_u64().unwrap())
        .collect();
    assert_eq!(done.len() as u64, finished);
    let mean = done.iter().sum::<u64>() as f64 / done.len() as f64;
    assert!((v["latency_mean"].as_f64().unwrap() - mean).abs() < 1e-9);
    for t in trials.iter().filter(|t| t["outcome"]["kind"] == "deadlock") {
        assert!(t["outcome"]["step"].is_u64());
        assert!(t["delivered"].as_u64() < t["messages"].as_u64());
    }

    let (v, err) = json_and_stderr(&[
        "simulate",
        "bft:n=16",
        "--traffic",
        "many-to-one",
        "--max-steps",
        "10",
        "--trials",
        "2",
        "--json",
    ]);
    assert_eq!(
        (v["finished"].as_u64(), v["step_limited"].as_u64()),
        (Some(0), Some(2))
    );
    assert_eq!(v["latency_mean"], Value::Null);
    assert_eq!(v["steps"], 20);
    assert!(
        err.contains("--max-steps 10") && err.lines().count() == 1,
        "{err}"
    );
}

#[test]
fn bad_input_is_a_one_line_error_with_no_output() {
    let dir = tempfile::tempdir().unwrap();
    let unknown_key = write(
        &dir,
        "a.toml",
        "topology = \"bft:n=16\"\nflws = \"store\"\n",
    );
    let bad_value = write(&dir, "b.toml", "traffic = \"many-to-one\"\nqueue = 0\n");
    let bad_syntax = write(&dir, "c.toml", "trials = \n");
    let missing = dir.path().join("none.toml");
    let missing = missing.to_str().unwrap();
    let m = ["--traffic", "many-to-one"];
    let cases: Vec<Vec<&str>> = vec![
        vec!["bft:n=32", "--traffic", "permutation"],
        vec!["bft:n=16", m[0], m[1], "--flits", "0"],
        vec!["bft:n=16", m[0], m[1], "--queue", "0"],
        vec!["bft:n=16", m[0], m[1], "--queue", "lots"],
        vec!["bft:n=16", "--traffic", "no-such-pattern"],
        vec!["bft:n=16", m[0], m[1], "--trials", "0"],
        vec!["bft:n=16", m[0], m[1], "--threads", "0"],
        vec!["bft:n=16", m[0], m[1], "--delay", "0"],
        vec!["bft:n=16", m[0], m[1], "--priority-range", "4"],
        vec![
            "bft:n=16",
            m[0],
            m[1],
            "--scan",
            "prio",
            "--priority-range",
            "0",
        ],
        vec!["bft:n=16"],
        vec!["--traffic", "permutation"],
        vec!["--config", &unknown_key, m[0], m[1]],
        vec!["bft:n=16", "--config", &bad_value],
        vec!["bft:n=16", "--config", &bad_syntax, m[0], m[1]],
        vec!["bft:n=16", "--config", missing, m[0], m[1]],
    ];
    for case in cases {
        let args = [&["simulate"][..], &case, &["--json"]].concat();
        assert_one_line_error(&args);
        let a = fatnet().args(&args).assert().code(2);
        assert!(a.get_output().stdout.is_empty(), "{args:?}");
    }
    // File errors name the file, the line and the problem.
    let a = fatnet()
        .args([
            "simulate",
            "--config",
            &unknown_key,
            "--traffic",
            "permutation",
        ])
        .assert()
        .code(2);
    let err = String::from_utf8(a.get_output().stderr.clone()).unwrap();
    assert!(
        err.contains("a.toml") && err.contains("line 2") && err.contains("flws"),
        "{err}"
    );
}

#[test]
fn help_names_the_papers_schemes_and_the_latency_convention() {
    let a = fatnet().args(["simulate", "--help"]).assert().success();
    let help = String::from_utf8(a.get_output().stdout.clone()).unwrap();
    for word in [
        "STORE",
        "WORM",
        "SPLIT",
        "FP",
        "RP",
        "GP",
        "FO",
        "RR",
        "FF",
        "flit-steps",
        "0-based",
        "99%",
        "--config",
        "EXIT STATUS",
        "bft:n=N",
        "many-to-one",
    ] {
        assert!(help.contains(word), "--help lacks {word}");
    }
}

#[test]
fn text_output_summarises_the_run() {
    let a = fatnet()
        .args([
            "simulate",
            "bft:n=16",
            "--traffic",
            "many-to-one",
            "--trials",
            "3",
        ])
        .assert()
        .success();
    let text = String::from_utf8(a.get_output().stdout.clone()).unwrap();
    assert!(text.contains("WORM RP-RR"), "{text}");
    assert!(text.contains("mean 258.00 ± 0.00 (99% CI)"), "{text}");
    assert!(text.contains("3 finished"), "{text}");
}

/// `--traffic broadcast:src=K`: one packet copied along a shortest-path tree. Alone in the
/// network it pipelines on every branch: the d-cube's broadcast takes d packet-steps (latency
/// d − 1, 0-based), a worm on the 64-leaf fat-tree (height 6) takes 6 + L − 2 steps, and every
/// tree link carries every unit once.
#[test]
fn a_lone_broadcast_pipelines_along_its_tree() {
    let v = json(&[
        "simulate",
        "hypercube:d=5",
        "--traffic",
        "broadcast:src=7",
        "--flow",
        "store",
        "--flits",
        "1",
        "--sink",
        "immediate",
        "--json",
    ]);
    assert_eq!(v["traffic"], "broadcast:src=7");
    assert_eq!(v["messages"], 1);
    assert_eq!(v["latency_mean"], 4.0);
    assert_eq!(v["unit_hops"], 31);
    assert_eq!(v["dilation_max"], 5);
    let v = json(&[
        "simulate",
        "bft:n=64",
        "--traffic",
        "broadcast:src=0",
        "--flits",
        "8",
        "--sink",
        "immediate",
        "--json",
    ]);
    assert_eq!(v["latency_mean"], 12.0);
    assert_eq!(v["congestion_max"], 1);
}

/// `--traffic broadcast`: every processor broadcasts. Store-and-forward delivers all of them
/// and reproduces from the seed; wormhole with q = 2 deadlocks, which is reported as data.
#[test]
fn all_to_all_broadcast_runs_and_deadlocks_are_data() {
    let args = [
        "simulate",
        "bft:n=16",
        "--traffic",
        "broadcast",
        "--flow",
        "store",
        "--trials",
        "3",
        "--delay",
        "4",
        "--json",
    ];
    let v = json(&args);
    assert_eq!(v["messages"], 16);
    assert_eq!(v["finished"], 3);
    // Each of the 16 processors receives 15 packets through its one ejection link, which
    // passes a packet every second step with q = 1: at least 30 packet-steps.
    assert!(v["latency_min"].as_u64().unwrap() >= 29 * 32);
    assert_eq!(json(&args), v, "same seed, same result");
    let (v, err) = json_and_stderr(&["simulate", "bft:n=16", "--traffic", "broadcast", "--json"]);
    assert_eq!(v["deadlocked"], 1);
    assert!(err.contains("deadlocked"), "{err}");
}

#[test]
fn bad_broadcast_specs_are_one_line_errors() {
    for spec in [
        "broadcast:src=16",
        "broadcast:src=x",
        "broadcast:dst=1",
        "broadcasts",
    ] {
        assert_one_line_error(&["simulate", "bft:n=16", "--traffic", spec]);
    }
}

/// `--queueing output`: Stamoulis' model, with its defaults (store-and-forward, unbounded
/// queues, immediate sinks) filled in and reported; a lone packet crosses a link per step;
/// an impossible combination is a one-line error; the config file key works.
#[test]
fn output_queueing_from_flags_and_file() {
    let v = json(&[
        "simulate",
        "hypercube:d=4",
        "--queueing",
        "output",
        "--traffic",
        "complement",
        "--flits",
        "1",
        "--path",
        "dor",
        "--json",
    ]);
    assert_eq!(v["queueing"], "output");
    assert_eq!(v["flow"], "store");
    assert_eq!(v["queue"], "unbounded");
    assert_eq!(v["sink"], "immediate");
    // Complement on the 4-cube under dimension order: each dimension's arcs carry one
    // packet per step with no conflict, so every packet arrives in step d − 1 = 3.
    assert_eq!(v["latency_mean"], 3.0);
    assert_eq!(v["mean_latency_mean"], 3.0);
    let v = json(&["simulate", "bft:n=16", "--traffic", "complement", "--json"]);
    assert_eq!(v["queueing"], "input", "input queues stay the default");
    assert_one_line_error(&[
        "simulate",
        "hypercube:d=4",
        "--queueing",
        "output",
        "--flow",
        "worm",
        "--traffic",
        "complement",
    ]);
    assert_one_line_error(&[
        "simulate",
        "hypercube:d=4",
        "--queueing",
        "output",
        "--queue",
        "2",
        "--traffic",
        "complement",
    ]);
    let dir = tempfile::tempdir().unwrap();
    let file = write(
        &dir,
        "o.toml",
        "topology = \"hypercube:d=4\"\ntraffic = \"complement\"\nqueueing = \"output\"\nflits = 1\npath = \"dor\"\n",
    );
    let v = json(&["simulate", "--config", &file, "--json"]);
    assert_eq!(v["queueing"], "output");
    assert_eq!(v["latency_mean"], 3.0);
}
