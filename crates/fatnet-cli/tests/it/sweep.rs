//! `fatnet sweep`: a run killed with SIGKILL at random moments and resumed gives exactly the
//! uninterrupted results; thread counts do not change the results file; bad sweep files list
//! every problem and create nothing; `summarize` reports the means of the results file.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command as StdCommand, Stdio};
use std::time::{Duration, Instant};

use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;
use serde_json::Value;

use crate::common::{assert_one_line_error, fatnet, stderr_of_failure, stdout_of};

/// 2 × 2 points × 100 trials = 400 tasks of about 3 ms each on bft:n=1024 (about a second on
/// two threads in a test build): long enough to be killed in the middle.
const LONG: &str = r#"simulator = "packet"
trials = 100
seed = 11

[params]
topology = "bft:n=1024"
traffic = ["permutation", "uniform"]
flow = ["worm", "store"]
flits = 16
"#;

/// 2 × 2 cross product and 2 zipped pairs: 8 points × 3 trials.
const SMALL: &str = include_str!("../../../fatnet-repro/tests/fixtures/small-sweep.toml");

fn write_sweep(dir: &Path, text: &str) -> PathBuf {
    let path = dir.join("sweep-in.toml");
    fs::write(&path, text).unwrap();
    path
}

fn results(dir: &Path) -> String {
    fs::read_to_string(dir.join("results.jsonl")).unwrap()
}

/// The lines of a results file sorted by task, checking there is no task twice.
fn sorted_lines(text: &str) -> Vec<String> {
    let mut lines: Vec<(u64, String)> = text
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            (v["task"].as_u64().unwrap(), l.to_string())
        })
        .collect();
    lines.sort();
    let before = lines.len();
    lines.dedup_by_key(|(t, _)| *t);
    assert_eq!(lines.len(), before, "a task appears twice");
    lines.into_iter().map(|(_, l)| l).collect()
}

fn run_args<'a>(sweep: &'a Path, out: &'a Path) -> Vec<&'a str> {
    vec![
        "sweep",
        "run",
        sweep.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]
}

#[test]
fn kill_9_at_random_moments_then_resume_gives_exactly_the_uninterrupted_results() {
    let tmp = tempfile::tempdir().unwrap();
    let sweep = write_sweep(tmp.path(), LONG);
    let whole = tmp.path().join("whole");
    let start = Instant::now();
    let mut args = run_args(&sweep, &whole);
    args.extend(["--threads", "2", "--batch", "1"]);
    fatnet().args(&args).assert().success();
    let duration = start.elapsed();
    let reference = results(&whole);
    assert_eq!(reference.lines().count(), 400);
    // One process, in one go: the lines come in task order.
    assert_eq!(sorted_lines(&reference).join("\n") + "\n", reference);

    let cut = tmp.path().join("cut");
    let cut_results = cut.join("results.jsonl");
    let lines_now = || {
        fs::read(&cut_results)
            .map(|b| b.iter().filter(|&&c| c == b'\n').count())
            .unwrap_or(0)
    };
    let bin = assert_cmd::cargo::cargo_bin("fatnet");
    let mut rng = Pcg64::seed_from_u64(2026);
    let mut interrupted = 0;
    for round in 0..8 {
        let mut args = run_args(&sweep, &cut);
        args.extend(["--threads", "2", "--batch", "1", "--quiet"]);
        if round > 0 {
            args.push("--resume");
        }
        let before = lines_now();
        let mut child = StdCommand::new(&bin)
            .args(&args)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        if round == 0 {
            // Before the first result: while the process starts or builds the network.
            std::thread::sleep(duration.mul_f64(rng.random_range(0.0..0.05)));
        } else {
            // After a random number of new results, then a random fraction of a task later.
            let target = before + rng.random_range(1..=(400 - before).div_ceil(3).max(1));
            let deadline = Instant::now() + duration * 4;
            while lines_now() < target && Instant::now() < deadline {
                std::thread::sleep(Duration::from_micros(200));
            }
            std::thread::sleep(Duration::from_micros(rng.random_range(0..3000)));
        }
        child.kill().unwrap(); // SIGKILL on Unix: no destructor, no flush runs
        let status = child.wait().unwrap();
        let done = lines_now();
        if !status.success() && done < 400 {
            interrupted += 1;
        }
        if round == 3 {
            // A crash in the middle of a write: half of a valid line at the end.
            let text = results(&cut);
            let half = &reference.lines().next().unwrap()[..40];
            fs::write(&cut_results, format!("{text}{half}")).unwrap();
        }
    }
    assert!(
        interrupted >= 6,
        "only {interrupted} of 8 kills landed before the end of the run"
    );
    assert!(lines_now() < 400, "the killed runs finished the sweep");
    let mut args = run_args(&sweep, &cut);
    args.extend(["--threads", "1", "--resume"]);
    fatnet().args(&args).assert().success();
    assert_eq!(sorted_lines(&results(&cut)), sorted_lines(&reference));
    // Resuming a finished sweep runs nothing and changes nothing.
    let before = results(&cut);
    let out = stdout_of(&args);
    assert!(out.contains("400 already done, 0 run now"), "{out}");
    assert_eq!(results(&cut), before);
}

#[test]
fn a_partial_last_line_is_reported_and_discarded_on_resume() {
    let tmp = tempfile::tempdir().unwrap();
    let sweep = write_sweep(tmp.path(), SMALL);
    let out = tmp.path().join("out");
    fatnet().args(run_args(&sweep, &out)).assert().success();
    let reference = results(&out);
    let keep: Vec<&str> = reference.lines().take(10).collect();
    let torn = format!(
        "{}\n{}",
        keep.join("\n"),
        &reference.lines().nth(10).unwrap()[..25]
    );
    fs::write(out.join("results.jsonl"), &torn).unwrap();
    // `summarize` reads without repairing: it reports the partial line and leaves it.
    let text = stdout_of(["sweep", "summarize", out.to_str().unwrap()]);
    assert!(text.starts_with("10 of 24 tasks finished"), "{text}");
    assert_eq!(results(&out), torn);
    let md = fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(md.contains("A partial last line (25 bytes"), "{md}");
    let mut args = run_args(&sweep, &out);
    args.push("--resume");
    let stdout = stdout_of(&args);
    assert!(
        stdout.contains("24 tasks, 10 already done, 14 run now")
            && stdout.contains("discarded a partial last line of 25 bytes"),
        "{stdout}"
    );
    assert_eq!(results(&out), reference);
}

#[test]
fn one_two_and_four_threads_write_identical_files() {
    let tmp = tempfile::tempdir().unwrap();
    let sweep = write_sweep(tmp.path(), SMALL);
    let mut files = Vec::new();
    for threads in ["1", "2", "4"] {
        let out = tmp.path().join(format!("t{threads}"));
        let mut args = run_args(&sweep, &out);
        args.extend(["--threads", threads, "--batch", "5"]);
        fatnet().args(&args).assert().success();
        files.push(results(&out));
    }
    assert_eq!(files[0].lines().count(), 24);
    assert_eq!(files[0], files[1]);
    assert_eq!(files[0], files[2]);
}

#[test]
fn bad_sweep_files_list_every_problem_and_create_no_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let sweep = write_sweep(
        tmp.path(),
        r#"simulator = "packet"
trials = 0
seed = 1
colour = "blue"

[params]
topology = "bft:n=16"
traffic = "permutation"
flow = ["worm", "warp"]
flits = -3
"#,
    );
    let out = tmp.path().join("never");
    let err = stderr_of_failure(run_args(&sweep, &out));
    assert!(err.starts_with("error: "), "{err}");
    for expected in [
        "line 2", "trials", "line 4", "colour", "line 9", "warp", "line 10", "flits",
    ] {
        assert!(err.contains(expected), "missing `{expected}` in:\n{err}");
    }
    assert!(
        !out.exists(),
        "an output directory was created for a bad file"
    );
    // `check` reports the same problems.
    let check = stderr_of_failure(["sweep", "check", sweep.to_str().unwrap()]);
    assert_eq!(check, err);
    // A missing file is one clear line.
    crate::common::assert_one_line_error(&[
        "sweep",
        "run",
        tmp.path().join("absent.toml").to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(!out.exists());
    crate::common::assert_one_line_error(&[
        "sweep",
        "summarize",
        tmp.path().join("nothing-here").to_str().unwrap(),
    ]);
}

#[test]
fn out_of_range_values_are_refused_by_the_command_s_own_rules_at_their_line() {
    // The sweep keeps no ranges of its own: each point is resolved as `fatnet simulate`
    // resolves it, and the refusal names the value's line in the command's words.
    let tmp = tempfile::tempdir().unwrap();
    let sweep = write_sweep(
        tmp.path(),
        r#"simulator = "packet"
trials = 1
seed = 1

[params]
topology = "bft:n=16"
traffic = "permutation"
flits = [0, 32, 70000, 99999999999]
"#,
    );
    let err = stderr_of_failure(["sweep", "check", sweep.to_str().unwrap()]);
    let cli = crate::common::stderr_of_failure([
        "simulate",
        "bft:n=16",
        "-t",
        "permutation",
        "--flits",
        "70000",
    ]);
    let words = cli.trim().trim_start_matches("error: ");
    assert!(
        err.contains("line 8: point 2 ") && err.contains(words),
        "{err}\n{cli}"
    );
    assert!(err.contains("99999999999"), "{err}");
    // Every bad point has the line of flits, and only points 0, 2 and 3 are bad.
    let problems: Vec<&str> = err.lines().skip(1).map(str::trim_start).collect();
    assert_eq!(problems.len(), 3, "{err}");
    assert!(
        problems.iter().all(|l| l.starts_with("line 8: point ")),
        "{err}"
    );
    assert!(!err.contains("point 1 "), "{err}");
}

#[test]
#[cfg(not(feature = "mpi"))]
fn a_build_without_mpi_refuses_to_run_as_one_of_several_ranks() {
    let tmp = tempfile::tempdir().unwrap();
    let sweep = write_sweep(tmp.path(), SMALL);
    let out = tmp.path().join("out");
    let a = fatnet()
        .env("OMPI_COMM_WORLD_SIZE", "2")
        .args(run_args(&sweep, &out))
        .assert()
        .code(2);
    let err = String::from_utf8(a.get_output().stderr.clone()).unwrap();
    assert!(
        err.contains("built without MPI") && err.contains("--features mpi"),
        "{err}"
    );
    assert!(!out.exists());
}

#[test]
fn existing_results_need_resume_and_the_same_sweep_file() {
    let tmp = tempfile::tempdir().unwrap();
    let sweep = write_sweep(tmp.path(), SMALL);
    let out = tmp.path().join("out");
    fatnet().args(run_args(&sweep, &out)).assert().success();
    let before = results(&out);
    crate::common::assert_one_line_error(&run_args(&sweep, &out));
    let other = tmp.path().join("other.toml");
    fs::write(&other, SMALL.replace("seed = 11", "seed = 12")).unwrap();
    let mut args = run_args(&other, &out);
    args.push("--resume");
    crate::common::assert_one_line_error(&args);
    assert_eq!(results(&out), before);
}

#[test]
fn check_prints_the_grid() {
    let tmp = tempfile::tempdir().unwrap();
    let sweep = write_sweep(tmp.path(), SMALL);
    let out = stdout_of(["sweep", "check", sweep.to_str().unwrap()]);
    assert!(
        out.contains("8 points x 3 trials = 24 tasks, seed 11"),
        "{out}"
    );
    assert!(out.contains("swept: delay, flits, flow, traffic"), "{out}");
    assert_eq!(out.matches("  point ").count(), 8);
}

#[test]
fn summarize_reports_the_means_of_the_results_and_plots_each_swept_parameter() {
    let tmp = tempfile::tempdir().unwrap();
    let sweep = write_sweep(tmp.path(), SMALL);
    let out = tmp.path().join("out");
    fatnet().args(run_args(&sweep, &out)).assert().success();
    fatnet()
        .args([
            "sweep",
            "summarize",
            out.to_str().unwrap(),
            "--metric",
            "mean_latency",
        ])
        .assert()
        .success();
    // The mean latency of point 5, recomputed from the results file.
    let samples: Vec<f64> = results(&out)
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|v| v["point"] == 5)
        .map(|v| v["result"]["mean_latency"].as_f64().unwrap())
        .collect();
    assert_eq!(samples.len(), 3);
    let mean = samples.iter().sum::<f64>() / 3.0;
    let csv = fs::read_to_string(out.join("summary.csv")).unwrap();
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let row: Vec<&str> = csv
        .lines()
        .map(|l| l.split(',').collect::<Vec<_>>())
        .find(|r| r[0] == "5" && r[col("metric")] == "mean_latency")
        .expect("a row for point 5");
    let reported: f64 = row[col("mean")].parse().unwrap();
    assert!(
        (reported - mean).abs() <= 1e-9 * mean.abs(),
        "{reported} vs {mean}"
    );
    let (low, high): (f64, f64) = (
        row[col("ci95_low")].parse().unwrap(),
        row[col("ci95_high")].parse().unwrap(),
    );
    assert!(low <= mean && mean <= high);
    for key in ["delay", "flits", "flow", "traffic"] {
        let svg = fs::read_to_string(out.join(format!("mean_latency-vs-{key}.svg"))).unwrap();
        assert!(svg.starts_with("<svg ") && svg.ends_with("</svg>\n"));
        assert!(out.join(format!("mean_latency-vs-{key}.csv")).exists());
    }
    // Categorical axes name their values.
    let flow = fs::read_to_string(out.join("mean_latency-vs-flow.svg")).unwrap();
    assert!(flow.contains(">worm</text>") && flow.contains(">store</text>"));
    // An unknown metric is refused, naming the choices.
    let err = stderr_of_failure([
        "sweep",
        "summarize",
        out.to_str().unwrap(),
        "--metric",
        "speed",
    ]);
    assert!(err.contains("latency"), "{err}");
}

#[test]
fn summarize_draws_the_x_axis_series_and_log_scale_asked_for_and_refuses_bad_choices() {
    let tmp = tempfile::tempdir().unwrap();
    let sweep = write_sweep(tmp.path(), SMALL);
    let out = tmp.path().join("out");
    fatnet().args(run_args(&sweep, &out)).assert().success();
    let dir = out.to_str().unwrap();
    let text = stdout_of([
        "sweep",
        "summarize",
        dir,
        "--x",
        "flits",
        "--series",
        "traffic",
        "--log-y",
    ]);
    // One plot, not one per swept parameter.
    assert_eq!(text.matches(".svg").count(), 1, "{text}");
    assert!(!out.join("latency-vs-flow.svg").exists());
    let svg = fs::read_to_string(out.join("latency-vs-flits-by-traffic.svg")).unwrap();
    assert!(out.join("latency-vs-flits-by-traffic.csv").exists());
    // flits is numeric: lines; traffic leads each legend entry, flow still splits lines.
    assert_eq!(svg.matches("<polyline").count(), 4, "{svg}");
    assert!(
        svg.contains(">traffic=permutation, flow=worm</text>"),
        "{svg}"
    );
    // Log y axis: powers-of-two tick labels; the command is recorded.
    assert!(svg.contains("2<tspan dy=\"-5\""), "{svg}");
    assert!(svg.contains("--x flits --series traffic --log-y"), "{svg}");
    // A categorical x axis is drawn as points with error bars, never joined.
    stdout_of(["sweep", "summarize", dir, "--x", "flow"]);
    let flow = fs::read_to_string(out.join("latency-vs-flow.svg")).unwrap();
    assert!(
        !flow.contains("<polyline") && flow.contains("<circle"),
        "{flow}"
    );
    // Refusals: exit 2, one line naming the parameter, nothing written.
    fs::remove_file(out.join("summary.md")).unwrap();
    for (args, named) in [
        (
            vec!["--x", "topology"],
            "`topology` is not a swept parameter",
        ),
        (
            vec!["--series", "speed"],
            "`speed` is not a swept parameter",
        ),
        (vec!["--x", "flow", "--series", "flow"], "both `flow`"),
        (
            vec!["--x", "traffic", "--log-x"],
            "`traffic`, whose values are not all numbers",
        ),
        (vec!["--metric", "cycles"], "`cycles` is not a metric"),
    ] {
        let mut all = vec!["sweep", "summarize", dir];
        all.extend(&args);
        assert_one_line_error(&all);
        let err = stderr_of_failure(&all);
        assert!(err.contains(named), "{args:?}: {err}");
    }
    assert!(!out.join("summary.md").exists());
}

#[test]
fn the_documented_example_sweep_is_valid_and_has_over_a_thousand_trials() {
    let example =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/sweeps/bft-flow-control.toml");
    let out = stdout_of(["sweep", "check", example.to_str().unwrap()]);
    assert!(
        out.contains("18 points x 60 trials = 1080 tasks, seed 2026"),
        "{out}"
    );
    assert!(out.contains("swept: flits, flow, traffic"), "{out}");
    // Every example under docs/sweeps validates.
    let dir = example.parent().unwrap();
    let mut checked = 0;
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "toml") {
            fatnet()
                .args(["sweep", "check", path.to_str().unwrap()])
                .assert()
                .success();
            checked += 1;
        }
    }
    assert!(checked >= 2, "{checked} examples");
}

#[test]
fn scheduler_sweeps_summarize_their_own_metrics() {
    let tmp = tempfile::tempdir().unwrap();
    let sweep = write_sweep(
        tmp.path(),
        r#"scheduler = "leiserson"
trials = 3
seed = 1

[params]
topology = ["fattree:n=64,profile=area", "fattree:n=256,profile=area"]
traffic = "permutation"
"#,
    );
    let out = tmp.path().join("out");
    fatnet().args(run_args(&sweep, &out)).assert().success();
    fatnet()
        .args(["sweep", "summarize", out.to_str().unwrap()])
        .assert()
        .success();
    // The default metric of a scheduler sweep is its cycles.
    assert!(out.join("cycles-vs-topology.svg").exists());
    let md = fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(
        md.contains("| cycles | cycles_over_lambda | cycles_over_bound |"),
        "{md}"
    );
    // A packet metric is not one of a scheduler sweep's: refused, naming the right ones.
    let err = stderr_of_failure([
        "sweep",
        "summarize",
        out.to_str().unwrap(),
        "--metric",
        "latency",
    ]);
    assert!(
        err.contains("not a metric of scheduler = \"leiserson\"")
            && err.contains("cycles_over_bound"),
        "{err}"
    );
}
