//! The `fatnet` command as a user runs it.

use predicates::prelude::*;

use crate::common::{fatnet, json, stderr_of_failure};

#[test]
fn topology_json_counts_every_kind() {
    // (spec, processors, switches, channels)
    for (spec, p, s, c) in [
        (
            "fattree:n=1024,profile=universal,w=128",
            1024,
            1023,
            4 * 1024 - 2,
        ),
        ("bft:n=64", 64, (64 - 8) / 2, 0),
        ("ftree:n=4,m=16,r=9", 36, 25, 2 * 36 + 2 * 9 * 16),
        ("clos:n=4,m=16,r=9", 36, 34, 2 * 36 + 2 * 9 * 16),
        ("karyntree:k=4,levels=3", 64, 48, 2 * 3 * 64),
        ("hypercube:d=10", 1024, 0, 10 * 1024),
        ("butterfly:d=8", 256, 9 * 256, 8 * 512),
    ] {
        let v = json(&["topology", spec, "--json"]);
        assert_eq!(v["processors"], p, "{spec}");
        assert_eq!(v["switches"], s, "{spec}");
        if c > 0 {
            assert_eq!(v["channels"], c, "{spec}");
        }
        assert_eq!(v["spec"], spec);
        assert!(v["levels"].as_array().is_some_and(|l| !l.is_empty()));
    }
}

#[test]
fn universal_fat_tree_summary_lists_the_exact_profile() {
    let v = json(&["topology", "fattree:n=64,profile=universal,w=16", "--json"]);
    let caps: Vec<u64> = v["levels"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| l["direction"] == "up")
        .map(|l| l["max_capacity"].as_u64().unwrap())
        .collect();
    // heights 0..=6: Leiserson's [16, 11, 7, 4, 3, 2, 1] read from the leaves.
    assert_eq!(caps, [1, 2, 3, 4, 7, 11, 16]);
}

#[test]
fn load_reports_the_exact_load_factor() {
    // Complement on an 8-leaf tree of unit capacities: 4 messages on each root-child channel.
    let v = json(&[
        "load",
        "fattree:n=8,profile=constant,cap=1",
        "--traffic",
        "complement",
        "--json",
    ]);
    assert_eq!(v["messages"], 8);
    assert_eq!(v["load_factor"], 4.0);
    assert_eq!(v["load_factor_exact"]["load"], 4);
    assert_eq!(v["congestion"], 4);
    assert_eq!(v["dilation"], 6);
    assert_eq!(v["one_cycle"], false);
    // Full bisection carries any permutation in one cycle.
    let v = json(&[
        "load",
        "fattree:n=256,profile=doubling",
        "--traffic",
        "permutation",
        "--seed",
        "3",
        "--json",
    ]);
    assert_eq!(v["one_cycle"], true);
    assert!(v["load_factor"].as_f64().unwrap() <= 1.0);
}

#[test]
fn load_is_reproducible_from_the_seed() {
    let args = [
        "load",
        "bft:n=256",
        "--traffic",
        "uniform",
        "--seed",
        "11",
        "--paths",
        "random",
        "--json",
    ];
    assert_eq!(json(&args), json(&args));
    let other = json(&[
        "load",
        "bft:n=256",
        "--traffic",
        "uniform",
        "--seed",
        "12",
        "--paths",
        "random",
        "--json",
    ]);
    assert_ne!(json(&args)["hottest"], other["hottest"]);
}

#[test]
fn traffic_file_round_trips_through_load() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.txt");
    fatnet()
        .args([
            "traffic",
            "--processors",
            "64",
            "--traffic",
            "transpose",
            "--output",
        ])
        .arg(&path)
        .assert()
        .success();
    let file_arg = format!("file:{}", path.display());
    let from_file = json(&["load", "hypercube:d=6", "--traffic", &file_arg, "--json"]);
    let direct = json(&["load", "hypercube:d=6", "--traffic", "transpose", "--json"]);
    assert_eq!(from_file["load_factor"], direct["load_factor"]);
    assert_eq!(from_file["congestion"], direct["congestion"]);
    assert_eq!(from_file["messages"], 64);
}

#[test]
fn bad_input_is_a_one_line_error_with_status_2() {
    for args in [
        vec!["topology", "fattree:n=12,profile=doubling"],
        vec!["topology", "torus:n=4"],
        vec!["topology", "bft:n=32"],
        vec!["topology", "fattree:n=64,profile=universal,w=8"],
        vec!["load", "hypercube:d=4", "--traffic", "transpose:x=1"],
        vec!["load", "hypercube:d=3", "--traffic", "transpose"],
        vec![
            "load",
            "hypercube:d=4",
            "--traffic",
            "file:/nonexistent/m.txt",
        ],
    ] {
        let assert = fatnet().args(&args).assert().code(2);
        let err = String::from_utf8(assert.get_output().stderr.clone()).unwrap();
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert!(err.trim().starts_with("error: "), "{args:?}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
    }
}

#[test]
fn out_of_range_ids_in_a_file_are_rejected_without_panic() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.txt");
    std::fs::write(&path, "0 1\n2 99\n").unwrap();
    fatnet()
        .args(["load", "hypercube:d=3", "--traffic"])
        .arg(format!("file:{}", path.display()))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("99"));
}

#[test]
fn dot_output_is_graphviz() {
    fatnet()
        .args(["topology", "hypercube:d=2", "--dot"])
        .assert()
        .success()
        .stdout(predicate::str::contains("digraph").and(predicate::str::contains("->")));
}

#[test]
fn help_documents_the_grammar() {
    fatnet().args(["load", "--help"]).assert().success().stdout(
        predicate::str::contains("profile=universal,w=W")
            .and(predicate::str::contains("many-to-one")),
    );
}

#[test]
fn load_works_on_every_topology_kind() {
    // The complement crosses the middle of every network: check the reported numbers are
    // consistent with each other on every kind, for each path selection.
    for spec in [
        "fattree:n=64,profile=standard",
        "bft:n=64",
        "ftree:n=4,m=4,r=16",
        "clos:n=4,m=4,r=16",
        "karyntree:k=4,levels=3",
        "hypercube:d=6",
        "butterfly:d=6",
    ] {
        for paths in ["standard", "first", "random"] {
            let v = json(&[
                "load",
                spec,
                "--traffic",
                "complement",
                "--paths",
                paths,
                "--json",
            ]);
            assert_eq!(v["messages"], 64, "{spec}");
            let lf = v["load_factor"].as_f64().unwrap();
            let exact = &v["load_factor_exact"];
            let (l, c) = (
                exact["load"].as_f64().unwrap(),
                exact["capacity"].as_f64().unwrap(),
            );
            assert!((lf - l / c).abs() < 1e-12, "{spec}");
            assert!(lf > 0.0, "{spec}");
            assert_eq!(v["one_cycle"], lf <= 1.0, "{spec}");
            assert_eq!(
                v["lower_bound_cycles"].as_f64().unwrap(),
                lf.ceil(),
                "{spec}"
            );
            // congestion >= the load of the hottest bundle divided over its channels
            assert!(v["congestion"].as_u64().unwrap() >= 1, "{spec}");
            let hottest = v["hottest"].as_array().unwrap();
            assert_eq!(hottest[0]["load_factor"].as_f64().unwrap(), lf, "{spec}");
            assert!(v["dilation"].as_u64().unwrap() >= 2, "{spec}");
        }
    }
}

/// Hostile files (issue 17): a device is not read, binary garbage is quoted with its control
/// characters escaped, and an empty fabric file is refused by every reader alike.
#[test]
fn hostile_files_are_one_line_errors() {
    let err = stderr_of_failure(["load", "bft:n=64", "--traffic", "file:/dev/zero"]);
    assert!(err.contains("not a regular file"), "{err}");
    let dir = tempfile::tempdir().unwrap();
    let garbage = dir.path().join("garbage.txt");
    std::fs::write(&garbage, b"\x1b[31mred\x00 text\n1 2\n").unwrap();
    let err = stderr_of_failure([
        "load".into(),
        "bft:n=64".into(),
        "--traffic".into(),
        format!("file:{}", garbage.display()),
    ]);
    assert!(err.contains(r"`\u{1b}[31mred\u{0} text`"), "{err}");
    assert!(!err.contains('\x1b') && !err.contains('\0'), "{err:?}");
    assert_eq!(err.lines().count(), 1, "{err}");
    for (name, format) in [
        ("empty.ned", "flitsim"),
        ("empty.topo", "ibdm"),
        ("empty.txt", "ibnetdiscover"),
    ] {
        let file = dir.path().join(name);
        std::fs::write(&file, "").unwrap();
        let err = stderr_of_failure([
            "fabric".into(),
            "check".into(),
            file.display().to_string(),
            "--format".into(),
            format.into(),
        ]);
        assert!(err.contains("no port records"), "{format}: {err}");
    }
}

/// Config and sweep files go through the same bounded reader as traffic and fabric files: a
/// device is refused before it is read (it used to be read until memory ran out), a file over
/// 16 MiB is refused with its size, and a missing file is named.
#[test]
fn config_files_are_read_bounded() {
    let err = stderr_of_failure(["simulate", "--config", "/dev/zero"]);
    assert!(err.contains("not a regular file"), "{err}");
    let err = stderr_of_failure(["sweep", "check", "/dev/zero"]);
    assert!(err.contains("not a regular file"), "{err}");
    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("big.toml");
    let file = std::fs::File::create(&big).unwrap();
    file.set_len((16 << 20) + 1).unwrap();
    let err = stderr_of_failure(["sweep".into(), "check".into(), big.display().to_string()]);
    assert!(
        err.contains("16777217 bytes, more than the 16777216"),
        "{err}"
    );
    let missing = dir.path().join("missing.toml");
    let err = stderr_of_failure([
        "simulate".into(),
        "--config".into(),
        missing.display().to_string(),
    ]);
    assert!(err.contains("missing.toml"), "{err}");
}

/// `fatnet load` says what each number is (issue 17): λ(M) is the same lower bound for every
/// routing, while congestion and dilation are the chosen routing's, named with its rule and
/// busiest channel.
#[test]
fn load_names_the_bound_and_the_routing() {
    let text = |paths: &str| {
        crate::common::stdout_of([
            "load",
            "karyntree:k=4,levels=3",
            "--traffic",
            "transpose",
            "--paths",
            paths,
        ])
    };
    let line = |t: &str, key: &str| -> String {
        t.lines().find(|l| l.starts_with(key)).unwrap().to_string()
    };
    let (standard, first) = (text("standard"), text("first"));
    let lambda = line(&standard, "load factor");
    assert!(
        lambda.contains("a lower bound for every routing"),
        "{lambda}"
    );
    assert_eq!(lambda, line(&first, "load factor"));
    let c = line(&standard, "congestion");
    assert!(
        c.starts_with("congestion      4 on channel") && c.contains("under --paths standard"),
        "{c}"
    );
    let c = line(&first, "congestion");
    assert!(
        c.starts_with("congestion      12 on channel") && c.contains("under --paths first"),
        "{c}"
    );
    assert!(standard.contains("hottest bundles by λ"), "{standard}");
    // The hottest channel of the routing carries the congestion, on the channel it names.
    assert!(
        first.contains("hottest channels under --paths first (routes over capacity):"),
        "{first}"
    );
    let v = json(&[
        "load",
        "karyntree:k=4,levels=3",
        "--traffic",
        "transpose",
        "--paths",
        "first",
        "--top",
        "3",
        "--json",
    ]);
    let hot = v["hottest_channels"].as_array().unwrap();
    assert_eq!(hot.len(), 3);
    assert_eq!(hot[0]["load"], 12);
    assert_eq!(hot[0]["load"], v["congestion"]);
    assert_eq!(hot[0]["channel"], v["congestion_channel"]);
    assert_eq!(
        v["congestion_at"],
        format!(
            "{} -> {}",
            hot[0]["from"].as_str().unwrap(),
            hot[0]["to"].as_str().unwrap()
        )
    );
    // Worst first, by routes over capacity.
    let ratios: Vec<f64> = hot.iter().map(|h| h["ratio"].as_f64().unwrap()).collect();
    assert!(ratios.windows(2).all(|w| w[0] >= w[1]), "{ratios:?}");
    let table = first.split("hottest channels under").nth(1).unwrap();
    let row: Vec<&str> = table.lines().nth(2).unwrap().split_whitespace().collect();
    assert_eq!(
        row[..3],
        [&hot[0]["channel"].to_string(), "12", "1"],
        "{table}"
    );
}

/// `--help` explains every value of an option with its whole first paragraph (it used to stop
/// at the end of the doc comment's first line, mid-sentence) and shows rustdoc links as text.
#[test]
fn help_texts_are_whole_sentences_without_rustdoc_links() {
    let commands: &[&[&str]] = &[
        &["topology"],
        &["load"],
        &["schedule"],
        &["schedule", "verify"],
        &["clos", "check"],
        &["fabric", "check"],
        &["fabric", "load"],
        &["route"],
        &["simulate"],
        &["sweep", "summarize"],
        &["queue"],
        &["traffic"],
    ];
    for command in commands {
        let help = crate::common::stdout_of(command.iter().copied().chain(["--help"]));
        assert!(!help.contains("[`"), "{command:?}: {help}");
        assert!(!help.contains("`]"), "{command:?}: {help}");
    }
    let route = crate::common::stdout_of(["route", "--help"]);
    assert!(
        route.contains("whose path uses `c` outnumber `cap(c)`"),
        "{route}"
    );
    let load = crate::common::stdout_of(["load", "--help"]);
    assert!(load.contains("d-mod-k on trees."), "{load}");
}
