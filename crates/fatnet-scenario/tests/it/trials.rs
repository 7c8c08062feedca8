//! Trial counts: refused before any trial runs when their records would not fit the budget.

use std::sync::atomic::{AtomicU64, Ordering};

use fatnet_scenario::runner::{RunnerConfig, TRIAL_BUDGET_BYTES};
use fatnet_scenario::{
    DynamicOptions, DynamicScenario, PacketOptions, PacketScenario, Parameter, RouteOptions,
    RouteScenario, ScenarioError,
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

/// The trial counts that used to panic (capacity overflow) or abort (a result vector of
/// 100 GB and more), and the first count over the budget for any record of up to 1 KiB.
const TOO_MANY: [u64; 3] = [u64::MAX, 1_000_000_000, TRIAL_BUDGET_BYTES];

#[test]
fn packet_runs_refuse_trials_over_the_budget_before_running_one() {
    let prepared = PacketScenario {
        topology: "bft:n=64".parse().unwrap(),
        traffic: "permutation".parse().unwrap(),
        options: PacketOptions::default(),
    }
    .prepare(1)
    .unwrap();
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
    let prepared = RouteScenario {
        topology: "fattree:n=64,profile=area".parse().unwrap(),
        traffic: "permutation".parse().unwrap(),
        options: RouteOptions::default(),
    }
    .prepare(1)
    .unwrap();
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
    let prepared = DynamicScenario {
        topology: fatnet_topology::TopologySpec::Hypercube { d: 4 },
        options: DynamicOptions {
            rate: Some(0.5),
            ..DynamicOptions::default()
        },
    }
    .prepare()
    .unwrap();
    for trials in TOO_MANY {
        let e = prepared
            .run(1, trials, &RunnerConfig::default(), &|_| {
                panic!("a trial ran")
            })
            .unwrap_err();
        assert_refused(&e, trials);
    }
}
