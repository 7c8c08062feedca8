//! Trial counts and sweep sizes: refused up front, with the estimate, exit 2 and one line
//! (they used to panic with "capacity overflow" or abort on a 100 GB result vector); the
//! largest sweep `check` accepts runs instead of aborting.

use std::fs;

use crate::common::{assert_one_line_error, fatnet, stderr_of_failure};

/// `trials` for a packet run, a route run and a dynamic (`--arrivals`) run.
fn runs(trials: &str) -> [Vec<&str>; 3] {
    [
        vec![
            "simulate",
            "bft:n=64",
            "--traffic",
            "permutation",
            "--trials",
            trials,
        ],
        vec![
            "route",
            "fattree:n=64,profile=area",
            "--traffic",
            "permutation",
            "--trials",
            trials,
        ],
        vec![
            "simulate",
            "hypercube:d=4",
            "--arrivals",
            "poisson",
            "--rate",
            "0.5",
            "--trials",
            trials,
        ],
    ]
}

#[test]
fn trial_counts_over_the_budget_are_refused_with_the_estimate() {
    for trials in ["18446744073709551615", "1000000000"] {
        for args in runs(trials) {
            assert_one_line_error(&args);
            let err = stderr_of_failure(&args);
            assert!(
                err.starts_with(&format!("error: trials = {trials} is refused: ")),
                "{args:?}: {err}"
            );
            for part in ["GiB", "bytes per trial", "over the 1.0 GiB budget"] {
                assert!(err.contains(part), "{args:?}: no `{part}` in {err}");
            }
        }
    }
    for args in runs("0") {
        assert_one_line_error(&args);
        assert!(stderr_of_failure(&args).contains("trials = 0 is out of range"));
    }
    // `1e9` is not a number of trials.
    assert_one_line_error(&runs("1e9")[1]);
}

#[test]
fn trial_counts_in_a_config_file_are_refused_too() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("run.toml");
    fs::write(
        &file,
        "topology = \"bft:n=64\"\ntraffic = \"permutation\"\ntrials = 18446744073709551615\n",
    )
    .unwrap();
    let args = ["simulate", "--config", file.to_str().unwrap()];
    assert_one_line_error(&args);
    assert!(stderr_of_failure(args).contains("trials = 18446744073709551615 is refused"));
}

fn sweep_file(trials: u64) -> String {
    format!(
        "simulator = \"packet\"\ntrials = {trials}\nseed = 1\n\n[params]\n\
         topology = \"bft:n=16\"\ntraffic = \"permutation\"\n"
    )
}

#[test]
fn a_sweep_over_the_task_limit_is_refused_by_check_and_run_alike_and_writes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let sweep = tmp.path().join("over.toml");
    fs::write(&sweep, sweep_file((1 << 30) + 1)).unwrap();
    let out = tmp.path().join("out");
    let run = stderr_of_failure([
        "sweep",
        "run",
        sweep.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(run.contains("line 2: 1 points x 1073741825 trials is more than the 1073741824 tasks"));
    assert!(
        !out.exists(),
        "a refused sweep created its output directory"
    );
    let check = stderr_of_failure(["sweep", "check", sweep.to_str().unwrap()]);
    assert_eq!(check, run);
}

/// The largest sweep `check` accepts (2^30 − 1 tasks) runs under a 3 GB address-space limit:
/// it used to abort at once (exit 134) on an 8 GiB vector of pending task indices, leaving
/// its output directory behind. Killed after two seconds, it must still be running.
#[cfg(unix)]
#[test]
fn the_largest_sweep_check_accepts_runs_in_bounded_memory() {
    let tmp = tempfile::tempdir().unwrap();
    let sweep = tmp.path().join("big.toml");
    fs::write(&sweep, sweep_file((1 << 30) - 1)).unwrap();
    fatnet()
        .args(["sweep", "check", sweep.to_str().unwrap()])
        .assert()
        .success();
    let out = tmp.path().join("out");
    let bin = assert_cmd::cargo::cargo_bin("fatnet");
    let status = std::process::Command::new("sh")
        .arg("-c")
        .arg("ulimit -v 3000000 && exec timeout 2 \"$0\" sweep run \"$1\" --out \"$2\"")
        .arg(&bin)
        .arg(&sweep)
        .arg(&out)
        .stderr(std::process::Stdio::null())
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(124), "not running after two seconds");
    assert!(out.join("sweep.toml").exists());
}
