//! Sweeps: bad files list every problem with its line and create nothing; results do not depend
//! on the thread count; a run cut in the middle of a line and resumed gives exactly the
//! uninterrupted results.

use std::fs;
use std::path::Path;

use fatnet::offline::leiserson::{FictitiousCapacity, corollary2, theorem1};
use fatnet::online::{DropPolicy, Greedy, RunConfig};
use fatnet::topology::{AnyTopology, TopologySpec};
use fatnet::traffic::TrafficSpec;
use fatnet_repro::ReproError;
use fatnet_repro::derive_seed;
use fatnet_repro::sweep::{
    RESULTS_FILE, SweepKind, SweepOptions, SweepProblem, SweepProblemKind, SweepSpec, Task,
    TrialRecord, TrialResult, run_sweep,
};

/// 2 × 2 cross product, 2 zipped pairs: 8 points × 3 trials = 24 tasks, a randomized and a
/// fixed pattern.
const SWEEP: &str = include_str!("../fixtures/small-sweep.toml");

fn problems(source: &str) -> Vec<SweepProblem> {
    match SweepSpec::parse(source) {
        Err(ReproError::InvalidSweep { problems }) => problems,
        other => panic!("expected InvalidSweep, got {other:?}"),
    }
}

/// The problems of a one-trial sweep (seed 1) of `kind` (`simulator = "route"`, ...) whose
/// `[params]` table is `params`; its first key is on line 5.
fn params_problems(kind: &str, params: &str) -> Vec<SweepProblem> {
    problems(&format!("{kind}\ntrials = 1\nseed = 1\n[params]\n{params}"))
}

/// The problems as printed, for assertion messages and text checks.
fn describe(problems: &[SweepProblem]) -> Vec<String> {
    problems.iter().map(ToString::to_string).collect()
}

fn lines_of(dir: &Path) -> Vec<String> {
    let text = fs::read_to_string(dir.join(RESULTS_FILE)).unwrap();
    let mut lines: Vec<(u64, String)> = text
        .lines()
        .map(|l| {
            let r: TrialRecord = serde_json::from_str(l).unwrap();
            (r.task, l.to_string())
        })
        .collect();
    lines.sort();
    lines.into_iter().map(|(_, l)| l).collect()
}

fn run(spec: &SweepSpec, dir: &Path, threads: usize, batch: usize, resume: bool) {
    let options = SweepOptions {
        resume,
        threads: Some(threads),
        batch,
    };
    run_sweep(spec, dir, &options).unwrap();
}

#[test]
fn the_grid_has_every_combination_and_its_seeds() {
    let spec = SweepSpec::parse(SWEEP).unwrap();
    assert_eq!((spec.points(), spec.trials(), spec.tasks()), (8, 3, 24));
    let dir = tempfile::tempdir().unwrap();
    run(&spec, dir.path(), 2, 5, false);
    let records: Vec<TrialRecord> = lines_of(dir.path())
        .iter()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(records.len(), 24);
    assert_eq!(spec.task(24), None);
    for (k, r) in records.iter().enumerate() {
        assert_eq!(r.task, k as u64);
        assert_eq!((r.point, r.trial), (r.task / 3, r.task % 3));
        assert_eq!(
            r.seed,
            derive_seed(derive_seed(spec.seed(), r.point), r.trial)
        );
        assert_eq!(
            spec.task(r.task),
            Some(Task {
                point: r.point,
                trial: r.trial,
                seed: r.seed
            })
        );
        assert_eq!(Some(&r.params), spec.params(r.point));
        let TrialResult::Packet(result) = &r.result else {
            panic!("a packet sweep gave {:?}", r.result);
        };
        assert!(result.finished());
        assert_eq!(result.messages, 16);
    }
    // Zipped values vary together and last: points 0 and 1 differ only in flits and delay.
    let p0 = spec.params(0).unwrap();
    let p1 = spec.params(1).unwrap();
    assert_eq!(p0["flits"].to_string(), "4");
    assert_eq!(
        (p1["flits"].to_string(), p1["delay"].to_string()),
        ("8".into(), "3".into())
    );
    assert_eq!(p0["flow"], p1["flow"]);
    // A fixed pattern's trials differ only by delays and routing; trials are independent.
    assert_ne!(records[0].seed, records[1].seed);
}

#[test]
fn bad_files_list_every_problem_with_its_line_and_create_nothing() {
    let source = r#"simulator = "packet"
trials = 0
seed = "x"
colour = 3

[params]
topology = "bft:n=16"
traffic = ["permutation", "nonsense"]
flow = ["worm", "wormy"]
flit = 8
queue = -1

[zip]
delay = [1, 2, 3]
path = ["rp", "gp"]
"#;
    let found = problems(source);
    let expected: Vec<(Option<usize>, &str)> = vec![
        (Some(2), "trials"),
        (Some(3), "seed"),
        (Some(4), "colour"),
        (Some(8), "nonsense"),
        (Some(9), "wormy"),
        (Some(10), "params.flit"),
        (Some(11), "params.queue"),
        (Some(15), "zip.path"),
    ];
    let described: Vec<(Option<usize>, String)> =
        found.iter().map(|p| (p.line, p.kind.to_string())).collect();
    assert_eq!(found.len(), expected.len(), "{described:#?}");
    for ((line, text), (want_line, want)) in described.iter().zip(&expected) {
        assert_eq!(line, want_line, "{text}");
        assert!(text.contains(want), "{text} should name {want}");
    }
    assert!(matches!(found[0].kind, SweepProblemKind::WrongType { .. }));
    assert!(matches!(found[2].kind, SweepProblemKind::UnknownKey { .. }));
    assert!(matches!(found[3].kind, SweepProblemKind::BadValue { .. }));
    assert!(matches!(
        found[7].kind,
        SweepProblemKind::ZipLength {
            len: 2,
            expected: 3,
            ..
        }
    ));

    // Missing keys have no line; syntax errors have theirs.
    let missing = problems("trials = 2\n[params]\ntopology = \"bft:n=16\"\n");
    let kinds: Vec<String> = missing.iter().map(|p| p.kind.to_string()).collect();
    assert_eq!(
        kinds,
        [
            "missing key `simulator (or scheduler)`",
            "missing key `seed`",
            "missing key `params.traffic`"
        ]
    );
    assert!(missing.iter().all(|p| p.line.is_none()));
    let syntax = problems("simulator = \"packet\"\ntrials = 2\nseed = [1,\n");
    assert_eq!(syntax.len(), 1);
    assert!(matches!(syntax[0].kind, SweepProblemKind::Syntax { .. }));
    assert_eq!(syntax[0].line, Some(3));

    // Combinations the simulator refuses, topologies that cannot be built, traffic that does
    // not fit: found before any work, each naming its point.
    let combos = params_problems(
        "simulator = \"packet\"",
        r#"topology = ["bft:n=16", "bft:n=8"]
traffic = "transpose"
queueing = ["input", "output"]
flow = "worm"
"#,
    );
    let described = describe(&combos);
    assert_eq!(combos.len(), 3, "{described:#?}");
    assert!(
        combos
            .iter()
            .all(|p| matches!(p.kind, SweepProblemKind::Point { .. }))
    );
    assert_eq!(combos[0].line, Some(5), "{described:#?}");

    // Reading the same file from disk fails the same way, so no spec exists to run: that
    // `run_sweep` then creates no output directory is a property of the API (it takes a
    // validated spec). The end-to-end check (a bad file given to the CLI leaves no output
    // folder) is in fatnet-cli's tests of `fatnet sweep run`.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.toml");
    fs::write(&path, source).unwrap();
    assert!(matches!(
        SweepSpec::from_file(&path),
        Err(ReproError::InvalidSweep { .. })
    ));
}

#[test]
fn one_two_and_four_threads_write_the_same_results() {
    let spec = SweepSpec::parse(SWEEP).unwrap();
    let runs: Vec<Vec<String>> = [(1, 24), (2, 7), (4, 3)]
        .into_iter()
        .map(|(threads, batch)| {
            let dir = tempfile::tempdir().unwrap();
            run(&spec, dir.path(), threads, batch, false);
            lines_of(dir.path())
        })
        .collect();
    assert_eq!(runs[0].len(), 24);
    assert_eq!(runs[0], runs[1]);
    assert_eq!(runs[0], runs[2]);
}

#[test]
fn resume_after_a_cut_mid_line_gives_exactly_the_uninterrupted_results() {
    let spec = SweepSpec::parse(SWEEP).unwrap();
    let whole = tempfile::tempdir().unwrap();
    run(&spec, whole.path(), 2, 4, false);
    let expected = lines_of(whole.path());
    let bytes = fs::read(whole.path().join(RESULTS_FILE)).unwrap();

    // Cut at several points: inside a line, just after a newline, at 1 byte, at 0 bytes.
    let first_newline = bytes.iter().position(|&b| b == b'\n').unwrap();
    for cut in [bytes.len() / 2, bytes.len() - 3, first_newline + 1, 1, 0] {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join(RESULTS_FILE), &bytes[..cut]).unwrap();
        fs::write(dir.path().join("sweep.toml"), SWEEP).unwrap();
        let summary = run_sweep(
            &spec,
            dir.path(),
            &SweepOptions {
                resume: true,
                threads: Some(3),
                batch: 5,
            },
        )
        .unwrap();
        let kept = bytes[..cut].iter().filter(|&&b| b == b'\n').count() as u64;
        assert_eq!(summary.skipped, kept, "cut {cut}");
        assert_eq!(summary.ran, 24 - kept, "cut {cut}");
        assert_eq!(lines_of(dir.path()), expected, "cut {cut}");
        // Resuming a finished sweep runs nothing and changes nothing.
        let again = run_sweep(
            &spec,
            dir.path(),
            &SweepOptions {
                resume: true,
                ..SweepOptions::default()
            },
        )
        .unwrap();
        assert_eq!(
            (again.skipped, again.ran, again.discarded_bytes),
            (24, 0, 0)
        );
        assert_eq!(lines_of(dir.path()), expected, "cut {cut}");
    }
}

#[test]
fn existing_results_are_never_overwritten_without_resume() {
    let spec = SweepSpec::parse(SWEEP).unwrap();
    let dir = tempfile::tempdir().unwrap();
    run(&spec, dir.path(), 1, 64, false);
    let before = fs::read(dir.path().join(RESULTS_FILE)).unwrap();
    let err = run_sweep(&spec, dir.path(), &SweepOptions::default()).unwrap_err();
    assert!(matches!(err, ReproError::ResultsExist { .. }), "{err}");
    assert_eq!(fs::read(dir.path().join(RESULTS_FILE)).unwrap(), before);

    // Resuming with another sweep file is refused too.
    let other = SweepSpec::parse(&SWEEP.replace("seed = 11", "seed = 12")).unwrap();
    let resume = SweepOptions {
        resume: true,
        ..SweepOptions::default()
    };
    let err = run_sweep(&other, dir.path(), &resume).unwrap_err();
    assert!(matches!(err, ReproError::SweepChanged { .. }), "{err}");
    assert_eq!(fs::read(dir.path().join(RESULTS_FILE)).unwrap(), before);
}

fn records_of(spec: &SweepSpec) -> Vec<TrialRecord> {
    let dir = tempfile::tempdir().unwrap();
    run(spec, dir.path(), 2, 7, false);
    lines_of(dir.path())
        .iter()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn fat_tree(spec: &str) -> fatnet::topology::FatTree {
    match spec.parse::<TopologySpec>().unwrap().build().unwrap() {
        AnyTopology::FatTree(t) => t,
        other => panic!("not a fat-tree: {other:?}"),
    }
}

#[test]
fn scheduler_trials_are_leisersons_schedules_of_each_trials_own_instance() {
    let spec = SweepSpec::parse(
        r#"scheduler = "leiserson"
trials = 4
seed = 9
[params]
topology = "fattree:n=64,profile=area,leaf=8"
traffic = ["permutation", "transpose"]
algorithm = ["theorem1", "corollary2"]
"#,
    )
    .unwrap();
    assert_eq!(spec.kind(), SweepKind::Schedule);
    let tree = fat_tree("fattree:n=64,profile=area,leaf=8");
    let records = records_of(&spec);
    assert_eq!(records.len(), 16);
    for r in &records {
        let TrialResult::Schedule(got) = &r.result else {
            panic!("a scheduler sweep gave {:?}", r.result);
        };
        let traffic: TrafficSpec = r.params["traffic"].to_string().parse().unwrap();
        // A random pattern is drawn with the trial's seed; a fixed one with the point's.
        let pattern_seed = if traffic.is_randomized() {
            r.seed
        } else {
            derive_seed(9, r.point)
        };
        let messages = traffic.generate(64, pattern_seed).unwrap();
        let want = match r.params["algorithm"].to_string().as_str() {
            "theorem1" => theorem1(&tree, &messages).unwrap(),
            _ => corollary2(&tree, &messages, FictitiousCapacity::LgN).unwrap(),
        };
        assert_eq!(got.cycles, want.cycles() as u64, "task {}", r.task);
        assert_eq!(got.bound, want.bound);
        assert_eq!(got.lower_bound, want.lower_bound);
        assert!(got.verified);
        assert!(got.lower_bound <= got.cycles && got.cycles <= got.bound);
    }
    // Random permutations differ between trials; the transpose does not.
    let loads: Vec<f64> = records
        .iter()
        .filter(|r| r.point == 0)
        .map(|r| match &r.result {
            TrialResult::Schedule(s) => s.load_factor,
            _ => unreachable!(),
        })
        .collect();
    assert!(loads.windows(2).any(|w| w[0] != w[1]), "{loads:?}");
}

#[test]
fn router_trials_are_the_delivery_cycle_engine_with_the_documented_seeds() {
    let spec = SweepSpec::parse(
        r#"simulator = "route"
trials = 3
seed = 4
[params]
topology = "fattree:n=128,profile=area"
traffic = "permutation"
router = ["greedy", "random"]
max_cycles = 100000
"#,
    )
    .unwrap();
    assert_eq!(spec.kind(), SweepKind::Route);
    let tree = fat_tree("fattree:n=128,profile=area");
    let records = records_of(&spec);
    assert_eq!(records.len(), 6);
    for r in records
        .iter()
        .filter(|r| r.params["router"].to_string() == "greedy")
    {
        let TrialResult::Route(got) = &r.result else {
            panic!("a route sweep gave {:?}", r.result);
        };
        let messages = TrafficSpec::Permutation.generate(128, r.seed).unwrap();
        let config = RunConfig {
            max_cycles: 100_000,
            ..RunConfig::default()
        };
        let want = fatnet::online::run(
            &tree,
            &messages,
            DropPolicy::Random,
            &mut Greedy,
            derive_seed(r.seed, 1),
            config,
        )
        .unwrap();
        assert_eq!(got.cycles, want.cycles, "task {}", r.task);
        assert_eq!(got.lower_bound, want.lower_bound);
        assert!(got.finished && got.cycles >= got.lower_bound);
    }
}

#[test]
fn parameters_of_another_kind_and_unsuitable_networks_are_refused_with_their_lines() {
    let found = params_problems(
        "simulator = \"route\"",
        r#"topology = "fattree:n=16,profile=area"
traffic = "permutation"
flits = 8
algorithm = "theorem1"
router = "random"
"#,
    );
    let described = describe(&found);
    assert_eq!(found.len(), 2, "{described:#?}");
    assert_eq!(found[0].line, Some(7));
    assert!(
        matches!(&found[0].kind, SweepProblemKind::NotForKind { key, .. } if key == "params.flits")
    );
    assert!(described[0].contains("not a parameter of simulator = \"route\""));
    assert_eq!(found[1].line, Some(8));
    // Options the router refuses are found at their points once every value is valid:
    // GREEDY under the pessimistic model never finishes, `k` is only for constant-switch.
    let refused = params_problems(
        "simulator = \"route\"",
        r#"topology = "fattree:n=16,profile=area"
traffic = "permutation"
router = ["greedy", "random"]
policy = "pessimistic"
k = 2
"#,
    );
    let described = describe(&refused);
    assert_eq!(refused.len(), 2, "{described:#?}");
    assert!(
        refused
            .iter()
            .all(|p| matches!(p.kind, SweepProblemKind::Point { .. }) && p.line == Some(9))
    );
    assert!(
        described.iter().all(|d| d.contains("constant-switch")),
        "{described:#?}"
    );
    let greedy = params_problems(
        "simulator = \"route\"",
        r#"topology = "fattree:n=16,profile=area"
traffic = "permutation"
router = ["greedy", "random"]
policy = "pessimistic"
"#,
    );
    let described = describe(&greedy);
    assert_eq!(greedy.len(), 1, "{described:#?}");
    assert!(matches!(
        greedy[0].kind,
        SweepProblemKind::Point { point: 0, .. }
    ));
    assert!(described[0].contains("GREEDY"), "{described:#?}");

    let both = problems(
        "simulator = \"route\"\nscheduler = \"leiserson\"\ntrials = 1\nseed = 1\n[params]\ntopology = \"fattree:n=16,profile=area\"\ntraffic = \"permutation\"\n",
    );
    assert!(
        both.iter()
            .any(|p| matches!(p.kind, SweepProblemKind::BothKinds) && p.line == Some(2))
    );

    // The scheduler needs a binary fat-tree; Corollary 2 needs capacities above lg n.
    let nets = params_problems(
        "scheduler = \"leiserson\"",
        r#"topology = ["bft:n=16", "fattree:n=64,profile=constant,cap=2"]
traffic = "permutation"
algorithm = "corollary2"
"#,
    );
    let described = describe(&nets);
    assert_eq!(nets.len(), 2, "{described:#?}");
    assert_eq!(nets[0].line, Some(5));
    assert!(described[0].contains("binary fat-tree"), "{described:#?}");
    assert_eq!(nets[1].line, Some(7));
    assert!(matches!(
        nets[1].kind,
        SweepProblemKind::Point { point: 1, .. }
    ));
}

#[test]
fn a_second_writer_on_the_same_directory_is_refused() {
    let spec = SweepSpec::parse(SWEEP).unwrap();
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir_all(dir.path()).unwrap();
    // Another process's lock, as `fatnet sweep run` holds it while it writes.
    let held = fs::File::create(dir.path().join(fatnet_repro::sweep::LOCK_FILE)).unwrap();
    held.lock().unwrap();
    let options = SweepOptions::default();
    assert!(matches!(
        run_sweep(&spec, dir.path(), &options),
        Err(ReproError::SweepBusy { .. })
    ));
    assert!(!dir.path().join(RESULTS_FILE).exists());
    held.unlock().unwrap();
    run_sweep(&spec, dir.path(), &options).unwrap();
    assert_eq!(lines_of(dir.path()).len(), 24);
}

#[test]
fn dynamic_trials_are_steady_state_runs_with_the_documented_seeds() {
    use fatnet::online::greedy_cube::{GreedyConfig, GreedyNetwork, steady_state};
    let spec = SweepSpec::parse(
        r#"simulator = "dynamic"
trials = 2
seed = 8
[params]
topology = "hypercube:d=5"
rate = [0.5, 1]
slots = 2000
"#,
    )
    .unwrap();
    assert_eq!(spec.kind(), SweepKind::Dynamic);
    let records = records_of(&spec);
    assert_eq!(records.len(), 4);
    for r in &records {
        let TrialResult::Dynamic(got) = &r.result else {
            panic!("a dynamic sweep gave {:?}", r.result);
        };
        // An integer written for a rate is read as a number.
        let rate = match r.params["rate"] {
            fatnet_repro::sweep::ParamValue::Float(x) => x,
            ref other => panic!("rate stored as {other:?}"),
        };
        let want = steady_state(&GreedyConfig {
            network: GreedyNetwork::Hypercube,
            d: 5,
            lambda: rate,
            p: 0.5,
            protocol: fatnet::online::RunProtocol::new(200.0, 2000.0, 20),
            confidence: 0.95,
            seed: derive_seed(r.seed, 1),
            window: None,
        })
        .unwrap();
        assert_eq!(got.delay_mean, Some(want.delay_mean), "task {}", r.task);
        assert_eq!(got.measured, want.measured);
        assert_eq!(got.rho, rate * 0.5);
        let upper = got.upper_bound.unwrap();
        assert!(got.lower_bound <= upper);
    }
}

#[test]
fn dynamic_sweeps_refuse_what_the_simulator_refuses() {
    let found = params_problems(
        "simulator = \"dynamic\"",
        r#"topology = "hypercube:d=4"
traffic = "permutation"
rate = "fast"
router = "random"
"#,
    );
    let described = describe(&found);
    assert_eq!(found.len(), 3, "{described:#?}");
    let lines: Vec<Option<usize>> = found.iter().map(|p| p.line).collect();
    assert_eq!(lines, [Some(6), Some(7), Some(8)], "{described:#?}");
    assert!(matches!(found[0].kind, SweepProblemKind::NotForKind { .. }));
    assert!(matches!(found[1].kind, SweepProblemKind::WrongType { .. }));
    assert!(described[2].contains("greedy, adaptive"), "{described:#?}");

    // Ranges are the scenario's (`DynamicOptions::resolve`): reported at the point, with the
    // line of the parameter they name.
    let range = params_problems(
        "simulator = \"dynamic\"",
        "topology = \"hypercube:d=4\"\nrate = 1\np = 1.5\n",
    );
    let described = describe(&range);
    assert_eq!(range.len(), 1, "{described:#?}");
    assert_eq!(range[0].line, Some(7), "{described:#?}");
    assert!(
        described[0].contains("p = 1.5 is out of range: expected a probability in [0, 1]"),
        "{described:#?}"
    );

    // Unstable loads, the adaptive scheme in continuous time, a fat-tree: each at its point.
    let points = params_problems(
        "simulator = \"dynamic\"",
        r#"topology = ["hypercube:d=4", "fattree:n=16,profile=area"]
rate = [1.0, 2.5]
router = "adaptive"
"#,
    );
    let described = describe(&points);
    assert!(
        points
            .iter()
            .all(|p| matches!(p.kind, SweepProblemKind::Point { .. })),
        "{described:#?}"
    );
    assert!(
        described.iter().any(|d| d.contains("slotted")),
        "{described:#?}"
    );
    assert!(
        described.iter().any(|d| d.contains("hypercube:d=D")),
        "{described:#?}"
    );
    // A missing rate is a missing key.
    let missing = problems(
        "simulator = \"dynamic\"\ntrials = 1\nseed = 1\n[params]\ntopology = \"hypercube:d=4\"\n",
    );
    assert_eq!(missing.len(), 1);
    assert_eq!(missing[0].kind.to_string(), "missing key `params.rate`");
}

#[test]
fn a_grid_too_large_to_run_is_refused_before_it_is_built() {
    let found = problems(
        "simulator = \"packet\"\ntrials = 18446744073709551615\nseed = 1\n[params]\ntopology = \"bft:n=16\"\ntraffic = \"permutation\"\nflits = [4, 8]\n",
    );
    assert_eq!(found.len(), 1, "{:#?}", describe(&found));
    assert_eq!(found[0].line, Some(2));
    assert!(matches!(
        found[0].kind,
        SweepProblemKind::TooManyTasks {
            points: 2,
            trials: u64::MAX,
            ..
        }
    ));
}

/// Runs the first batch it is handed on this process's threads and refuses the second,
/// keeping every batch: enough to see that a sweep runs and records its first batch.
struct FirstBatch(Vec<Vec<u64>>);

impl fatnet_repro::sweep::TaskRunner for FirstBatch {
    fn run_tasks(
        &mut self,
        spec: &SweepSpec,
        tasks: &[u64],
    ) -> Result<Vec<Result<Vec<u8>, ReproError>>, ReproError> {
        self.0.push(tasks.to_vec());
        if self.0.len() > 1 {
            return Err(ReproError::Io {
                path: "second batch".into(),
                source: std::io::Error::other("stopped after the first batch"),
            });
        }
        Ok(fatnet_repro::sweep::LocalTasks::new(Some(1)).run(spec, tasks))
    }
}

#[test]
fn every_sweep_check_accepts_can_start_running() {
    use fatnet_repro::sweep::{MAX_TASKS, run_sweep_with};
    let file = |trials: u64| {
        format!(
            "simulator = \"packet\"\ntrials = {trials}\nseed = 1\n[params]\n\
             topology = \"bft:n=16\"\ntraffic = \"permutation\"\n"
        )
    };
    // One rule, in the reader both `fatnet sweep check` and `run` use: MAX_TASKS tasks, not
    // one more, refused with the counts on the line of `trials`.
    let files = tempfile::tempdir().unwrap();
    let (over, largest) = (
        files.path().join("over.toml"),
        files.path().join("max.toml"),
    );
    fs::write(&over, file(MAX_TASKS + 1)).unwrap();
    fs::write(&largest, file(MAX_TASKS)).unwrap();
    match SweepSpec::from_file(&over) {
        Err(ReproError::InvalidSweep { problems }) => assert_eq!(
            problems,
            [SweepProblem {
                line: Some(2),
                kind: SweepProblemKind::TooManyTasks {
                    points: 1,
                    trials: MAX_TASKS + 1,
                    max: MAX_TASKS,
                },
            }]
        ),
        other => panic!("expected the task limit, got {other:?}"),
    }
    let spec = SweepSpec::from_file(&largest).unwrap();
    assert_eq!(
        (spec.points(), spec.trials(), spec.tasks()),
        (1, MAX_TASKS, MAX_TASKS)
    );
    assert_eq!(spec.task(MAX_TASKS), None);

    // The largest sweep starts at once and records its first batch: the runner used to
    // collect the pending task indices first (8 bytes a task, 8 GiB here) and abort out of
    // memory. Now its only per-task memory is a done flag, a byte.
    let dir = tempfile::tempdir().unwrap();
    let options = SweepOptions {
        batch: 3,
        ..SweepOptions::default()
    };
    let run_until_second_batch = |resume: bool| {
        let mut runner = FirstBatch(Vec::new());
        let mut counts = Vec::new();
        let error = run_sweep_with(
            &spec,
            dir.path(),
            &SweepOptions { resume, ..options },
            &mut runner,
            &mut |r| counts.push((r.total, r.skipped, r.ran)),
        )
        .unwrap_err();
        // The runner's own refusal of the second batch, not a failure before it.
        assert!(
            matches!(&error, ReproError::Io { path, .. } if path.as_os_str() == "second batch"),
            "{error:?}"
        );
        (runner.0, counts)
    };
    let (batches, counts) = run_until_second_batch(false);
    assert_eq!(batches, [[0, 1, 2], [3, 4, 5]]);
    // (total, skipped, ran): before the first batch, and after it.
    assert_eq!(counts, [(MAX_TASKS, 0, 0), (MAX_TASKS, 0, 3)]);
    let lines = lines_of(dir.path());
    assert_eq!(lines.len(), 3);
    for (task, line) in (0..3).zip(&lines) {
        let record: TrialRecord = serde_json::from_str(line).unwrap();
        assert_eq!(
            (record.task, record.point, record.trial, record.seed),
            (task, 0, task, derive_seed(derive_seed(1, 0), task))
        );
        assert_eq!(
            format!("{line}\n").into_bytes(),
            spec.run_task_line(task).unwrap()
        );
    }
    // Resumed, it keeps the batch it recorded and starts from the next task.
    let (batches, counts) = run_until_second_batch(true);
    assert_eq!(batches, [[3, 4, 5], [6, 7, 8]]);
    assert_eq!(counts, [(MAX_TASKS, 3, 0), (MAX_TASKS, 3, 3)]);
    assert_eq!(lines_of(dir.path()).len(), 6);
}

/// A results file of one endless line is refused after its first MiB, not read into memory,
/// and a results file that is a FIFO or a device is refused before it is read.
#[test]
fn hostile_results_files_are_refused() {
    use fatnet_repro::sweep::{MAX_RECORD_BYTES, read_results};
    let spec = SweepSpec::parse(SWEEP).unwrap();
    let dir = tempfile::tempdir().unwrap();
    run(&spec, dir.path(), 1, 64, false);
    let results = dir.path().join(RESULTS_FILE);
    let mut text = fs::read(&results).unwrap();
    let first_line = text.iter().position(|&b| b == b'\n').unwrap() + 1;
    text.truncate(first_line);
    text.extend(std::iter::repeat_n(b'x', MAX_RECORD_BYTES as usize + 10));
    text.push(b'\n');
    fs::write(&results, &text).unwrap();
    let err = read_results(dir.path()).unwrap_err();
    assert!(
        matches!(err, ReproError::CorruptResults { line: 2, .. }),
        "{err}"
    );
    let resume = SweepOptions {
        resume: true,
        ..SweepOptions::default()
    };
    let err = run_sweep(&spec, dir.path(), &resume).unwrap_err();
    assert!(
        matches!(err, ReproError::CorruptResults { line: 2, .. }),
        "{err}"
    );

    fs::remove_file(&results).unwrap();
    std::os::unix::fs::symlink("/dev/zero", &results).unwrap();
    let err = read_results(dir.path()).unwrap_err();
    assert!(err.to_string().contains("not a regular file"), "{err}");
    let err = run_sweep(&spec, dir.path(), &resume).unwrap_err();
    assert!(err.to_string().contains("not a regular file"), "{err}");
}

/// `summarize_sweep` streams the results file and puts the trials back in task order: records
/// written in any order give the summary of the sorted, in-memory path byte for byte; a sweep
/// whose per-trial metrics would exceed the budget is refused before its results are read.
#[test]
fn streamed_summary_equals_the_in_memory_one_and_is_bounded() {
    use fatnet_repro::sweep::{SWEEP_FILE, read_results};
    use fatnet_repro::sweep_summary::{SUMMARY_BUDGET, SweepSummary, summarize_sweep};
    let spec = SweepSpec::parse(SWEEP).unwrap();
    let dir = tempfile::tempdir().unwrap();
    run(&spec, dir.path(), 1, 64, false);
    let results = dir.path().join(RESULTS_FILE);
    let text = fs::read_to_string(&results).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    lines.reverse();
    fs::write(&results, lines.join("\n") + "\n").unwrap();
    let streamed = summarize_sweep(dir.path()).unwrap();
    let in_memory = SweepSummary::of(&read_results(dir.path()).unwrap());
    assert_eq!(streamed.finished, 24);
    assert_eq!(streamed.to_csv().unwrap(), in_memory.to_csv().unwrap());
    assert_eq!(
        streamed.to_markdown("fatnet sweep summarize"),
        in_memory.to_markdown("fatnet sweep summarize")
    );

    let big = tempfile::tempdir().unwrap();
    let source = "simulator = \"packet\"\ntrials = 536870912\nseed = 1\n[params]\n\
                  topology = \"bft:n=16\"\ntraffic = \"permutation\"\n";
    fs::write(big.path().join(SWEEP_FILE), source).unwrap();
    // No results file: the refusal comes first.
    match summarize_sweep(big.path()) {
        Err(ReproError::SummaryTooLarge {
            tasks,
            estimate,
            max,
            ..
        }) => {
            assert_eq!(tasks, 536_870_912);
            assert!(estimate > max && max == SUMMARY_BUDGET, "{estimate}");
        }
        other => panic!("expected SummaryTooLarge, got {other:?}"),
    }
}
