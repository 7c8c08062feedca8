//! Numbers that size an allocation: refused at once with the estimate (exit 2, one line
//! `error: ...`), never an abort on a failed allocation, a panic or minutes of work.
//!
//! Each command runs under a 4 GB address-space limit and a timeout, so that a refusal that
//! goes missing fails the test (exit 134 or a timeout) instead of exhausting the machine.

use std::time::Duration;

use assert_cmd::Command;

/// `fatnet args...` under `ulimit -v` (4 GB) and a 60 s timeout.
fn limited(args: &[&str]) -> Command {
    let bin = assert_cmd::cargo::cargo_bin("fatnet");
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg("ulimit -v 4000000; exec \"$0\" \"$@\"")
        .arg(bin)
        .args(args)
        .timeout(Duration::from_secs(60));
    cmd
}

/// Asserts exit 2 and one line `error: ...` that contains every one of `needles`.
fn refused(args: &[&str], needles: &[&str]) {
    let a = limited(args).assert().code(2);
    let out = a.get_output();
    assert!(out.stdout.is_empty(), "{args:?}: printed output");
    let err = String::from_utf8(out.stderr.clone()).unwrap();
    assert!(err.starts_with("error: "), "{args:?}: {err}");
    assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
    for n in needles {
        assert!(err.contains(n), "{args:?}: `{n}` not in {err}");
    }
}

#[test]
fn the_binary_fat_tree_of_2_30_processors_is_summarized_arithmetically() {
    let a = limited(&["topology", "fattree:n=1073741824,profile=doubling"])
        .timeout(Duration::from_secs(10))
        .assert()
        .success();
    let out = String::from_utf8(a.get_output().stdout.clone()).unwrap();
    assert!(out.contains("processors  1073741824"), "{out}");
    assert!(out.contains("channels    4294967294"), "{out}");
    let root = out.lines().last().unwrap();
    assert!(root.contains("1073741824"), "{out}");
}

#[test]
fn summaries_too_large_to_enumerate_are_refused() {
    refused(
        &["topology", "bft:n=1073741824"],
        &["bft:n=1073741824", "4294836224", "67108864"],
    );
    refused(
        &["topology", "--json", "hypercube:d=24"],
        &["hypercube:d=24", "402653184"],
    );
}

#[test]
fn dot_exports_over_the_memory_budget_are_refused_with_the_estimate() {
    for spec in [
        "hypercube:d=24",
        "bft:n=1073741824",
        "fattree:n=1073741824,profile=constant,cap=1",
    ] {
        refused(
            &["topology", "--dot", spec],
            &["DOT export", "would need about", "GiB", "memory budget"],
        );
    }
}

#[test]
fn graph_exports_over_the_memory_budget_are_refused_with_the_estimate() {
    for (format, what) in [
        ("json", "JSON graph export"),
        ("graphml", "GraphML export"),
        ("dot", "DOT export"),
    ] {
        // 2^24 nodes and 24 · 2^24 channels: a few hundred bytes of text each.
        refused(
            &["topology", "hypercube:d=24", "--graph", format],
            &[
                what,
                "hypercube:d=24",
                "would need about",
                "GiB",
                "memory budget",
            ],
        );
        refused(
            &[
                "topology",
                "fattree:n=268435456,profile=doubling",
                "--graph",
                format,
            ],
            &[what, "would need about", "GiB", "memory budget"],
        );
    }
}

#[test]
fn traffic_over_the_memory_budget_is_refused_with_the_estimate() {
    for (p, t, count) in [
        ("1", "replicated:k=4294967295", "4294967295 messages"),
        ("65536", "replicated:k=65535", "4294901760 messages"),
        ("4294967295", "permutation", "4294967295 messages"),
        ("4294967295", "uniform", "4294967295 messages"),
        ("4294967295", "complement", "4294967295 messages"),
    ] {
        refused(
            &["traffic", "-p", p, "-t", t],
            &[count, &format!("n = {p}"), "GiB", "memory budget"],
        );
    }
}

#[test]
fn load_analyses_over_the_memory_budget_are_refused_before_the_traffic_is_made() {
    for spec in [
        "hypercube:d=24",
        "bft:n=1073741824",
        "fattree:n=268435456,profile=doubling",
    ] {
        refused(
            &["load", spec, "--traffic", "permutation"],
            &[
                "load analysis of",
                "would need about",
                "GiB",
                "memory budget",
            ],
        );
    }
}

#[test]
fn schedules_and_routes_over_the_memory_budget_are_refused_before_the_traffic_is_made() {
    for cmd in ["schedule", "route"] {
        for spec in [
            "fattree:n=1073741824,profile=doubling",
            "fattree:n=268435456,profile=doubling",
        ] {
            refused(
                &[cmd, spec, "--traffic", "permutation"],
                &[
                    "load analysis of",
                    "would need about",
                    "GiB",
                    "memory budget",
                ],
            );
        }
    }
}

#[test]
fn capacities_near_u64_max_are_refused_by_the_packet_engine_not_wrapped() {
    refused(
        &[
            "simulate",
            "fattree:n=2,profile=custom,caps=18446744073709551615/2",
            "--traffic",
            "permutation",
        ],
        &["too many wires", "33554432"],
    );
}

/// Yuan's Lemma 1 check and the worst-case contention over every pair: refused before any
/// work when the pairs or the per-link state are too many (they used to abort asking 96 GB).
#[test]
fn clos_checks_too_large_to_run_are_refused() {
    for command in ["check", "worst"] {
        refused(
            &["clos", command, "ftree:n=100,m=10000,r=100000"],
            &["every ordered pair", "100000000000000", "4294967296"],
        );
        refused(
            &["clos", command, "ftree:n=1,m=1048576,r=1024"],
            &["per-link state", "2147483648"],
        );
    }
}
