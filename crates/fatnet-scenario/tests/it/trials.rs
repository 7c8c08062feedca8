//! Trial counts and thread counts: refused before any trial runs when the records would not fit
//! the budget or the thread count is out of range, by the runner's entry points and the
//! scenarios' runs alike.

use std::sync::atomic::{AtomicU64, Ordering};

use fatnet_scenario::runner::{
    RunnerConfig, TRIAL_BUDGET_BYTES, run_trials, run_trials_with, try_run_trials,
    try_run_trials_with,
};
use fatnet_scenario::{
    DynamicOptions, DynamicScenario, MAX_THREADS, PacketOptions, PacketScenario, Parameter,
    RouteOptions, RouteScenario, RunOptions, ScenarioError,
};

/// Asserts `error` refuses `trials` with the estimate and the budget.
fn assert_refused(error: &ScenarioError, trials: u64) {
    let ScenarioError::Refused {
        param: Parameter::Trials,
        value,
        reason,
    } = error
    else {
        panic!("not a refusal of the trials: {error:?}");
    };
    assert_eq!(*value, trials.to_string());
    assert!(reason.contains("bytes per trial"), "{reason}");
    assert!(reason.contains("over the 1.0 GiB budget"), "{reason}");
}

/// The three kinds of run the tests refuse numbers for, each small and prepared.
fn packet_case() -> fatnet_scenario::PreparedPacket {
    PacketScenario {
        topology: "bft:n=64".parse().unwrap(),
        traffic: "permutation".parse().unwrap(),
        options: PacketOptions::default(),
    }
    .prepare(1)
    .unwrap()
}

fn route_case() -> fatnet_scenario::PreparedRoute {
    RouteScenario {
        topology: "fattree:n=64,profile=area".parse().unwrap(),
        traffic: "permutation".parse().unwrap(),
        options: RouteOptions::default(),
    }
    .prepare(1)
    .unwrap()
}

fn dynamic_case() -> fatnet_scenario::PreparedDynamic {
    DynamicScenario {
        topology: fatnet_topology::TopologySpec::Hypercube { d: 4 },
        options: DynamicOptions {
            rate: Some(0.5),
            ..DynamicOptions::default()
        },
    }
    .prepare()
    .unwrap()
}

/// The trial counts that used to panic (capacity overflow) or abort (a result vector of
/// 100 GB and more), and the first count over the budget for any record of up to 1 KiB.
const TOO_MANY: [u64; 3] = [u64::MAX, 1_000_000_000, TRIAL_BUDGET_BYTES];

#[test]
fn packet_runs_refuse_trials_over_the_budget_before_running_one() {
    let prepared = packet_case();
    let ran = AtomicU64::new(0);
    let progress = |_| {
        ran.fetch_add(1, Ordering::Relaxed);
    };
    for trials in TOO_MANY {
        let e = prepared
            .run(1, trials, &RunnerConfig::default(), &progress)
            .unwrap_err();
        assert_refused(&e, trials);
    }
    assert_eq!(ran.load(Ordering::Relaxed), 0, "no trial ran");
    // Recording latencies keeps a latency per message: a fixed message set lowers the limit.
    let recording = PacketScenario {
        topology: "bft:n=64".parse().unwrap(),
        traffic: "complement".parse().unwrap(),
        options: PacketOptions::default(),
    }
    .prepare(1)
    .unwrap()
    .recording_latencies();
    let e = recording
        .run(1, 2_000_000, &RunnerConfig::default(), &progress)
        .unwrap_err();
    assert_refused(&e, 2_000_000);
    assert_eq!(ran.load(Ordering::Relaxed), 0, "no trial ran");
    assert_eq!(
        prepared
            .run(1, 2, &RunnerConfig::default(), &progress)
            .unwrap()
            .len(),
        2
    );
}

#[test]
fn route_runs_refuse_trials_over_the_budget_before_running_one() {
    let prepared = route_case();
    for trials in TOO_MANY {
        let e = prepared
            .run(1, trials, &RunnerConfig::default(), &|_| {
                panic!("a trial ran")
            })
            .unwrap_err();
        assert_refused(&e, trials);
    }
}

#[test]
fn dynamic_runs_refuse_trials_over_the_budget_before_running_one() {
    let prepared = dynamic_case();
    for trials in TOO_MANY {
        let e = prepared
            .run(1, trials, &RunnerConfig::default(), &|_| {
                panic!("a trial ran")
            })
            .unwrap_err();
        assert_refused(&e, trials);
    }
}

/// Asserts `error` refuses `threads` as [`RunOptions::resolve`] does: one rule.
fn assert_threads_refused(error: &ScenarioError, threads: usize) {
    assert!(
        matches!(
            error,
            ScenarioError::OutOfRange {
                param: Parameter::Threads,
                value,
                expected: "1 to 4096 (omit it to use every core)",
            } if *value == threads.to_string()
        ),
        "{error:?}"
    );
    let resolved = RunOptions {
        threads: Some(threads),
        ..RunOptions::default()
    }
    .resolve()
    .unwrap_err();
    assert_eq!(resolved.to_string(), error.to_string());
}

/// Thread counts the runner refuses: none (which rayon would take for "every core"), one over
/// the limit, and one that would ask the system for as many threads as rayon allows.
const BAD_THREADS: [usize; 3] = [0, MAX_THREADS + 1, usize::MAX];

#[test]
fn the_runner_refuses_bad_numbers_from_a_direct_caller_before_running_a_trial() {
    let never = |_: u64, _: u64| -> u64 { panic!("a trial ran") };
    let never_try = |_: u64, _: u64| -> Result<u64, String> { panic!("a trial ran") };
    let no_progress = |_: u64| panic!("a trial ran");
    for trials in TOO_MANY {
        // A vector of `trials` slots used to overflow its capacity or abort out of memory.
        assert_refused(&run_trials(1, trials, never).unwrap_err(), trials);
        assert_refused(&try_run_trials(1, trials, never_try).unwrap_err(), trials);
    }
    for threads in BAD_THREADS {
        let config = RunnerConfig {
            threads: Some(threads),
        };
        assert_threads_refused(&config.check().unwrap_err(), threads);
        let e = run_trials_with(&config, 1, 3, never, &no_progress).unwrap_err();
        assert_threads_refused(&e, threads);
        let e = try_run_trials_with(&config, 1, 3, never_try, &no_progress).unwrap_err();
        assert_threads_refused(&e, threads);
    }
    // The limits themselves run.
    let one = RunnerConfig { threads: Some(1) };
    assert_eq!(
        run_trials_with(&one, 1, 3, |i, _| i, &|_| {}).unwrap(),
        [0, 1, 2]
    );
    assert_eq!(
        try_run_trials_with(&one, 1, 3, |i, _| Ok::<_, String>(i), &|_| {}).unwrap(),
        Ok(vec![0, 1, 2])
    );
}

#[test]
fn scenario_runs_refuse_a_thread_count_before_running_a_trial() {
    let dynamic = dynamic_case();
    let route = route_case();
    let packet = packet_case();
    let ran = |_| panic!("a trial ran");
    for threads in BAD_THREADS {
        let config = RunnerConfig {
            threads: Some(threads),
        };
        assert_threads_refused(&dynamic.run(1, 2, &config, &ran).unwrap_err(), threads);
        assert_threads_refused(&route.run(1, 2, &config, &ran).unwrap_err(), threads);
        assert_threads_refused(&packet.run(1, 2, &config, &ran).unwrap_err(), threads);
    }
}
