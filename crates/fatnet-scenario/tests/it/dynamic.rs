//! Dynamic scenarios: defaults, refusals, seeds.

use fatnet_online::greedy_cube::{GreedyConfig, GreedyNetwork, steady_state};
use fatnet_online::{Arrivals, BroadcastScheme, DynamicRouter};
use fatnet_scenario::dynamic::DynamicModel;
use fatnet_scenario::{
    DynamicOptions, DynamicScenario, Parameter, RunProtocol, ScenarioError, derive_seed,
};

fn cube(d: u64) -> fatnet_topology::TopologySpec {
    fatnet_topology::TopologySpec::Hypercube { d }
}

fn rate(rate: f64) -> DynamicOptions {
    DynamicOptions {
        rate: Some(rate),
        ..DynamicOptions::default()
    }
}

#[test]
fn defaults_are_poisson_greedy_and_the_documented_protocol() {
    let setup = rate(1.0).resolve(&cube(4)).unwrap();
    assert_eq!(
        setup.protocol,
        RunProtocol {
            horizon: 10_000.0,
            warmup: 1_000.0,
            batches: 20
        }
    );
    assert_eq!(setup.rho, 0.5);
    let DynamicModel::Routing {
        arrivals,
        router,
        p,
        bounds,
    } = setup.model
    else {
        panic!("routing expected");
    };
    assert_eq!(
        (arrivals, router, p),
        (Arrivals::Poisson, DynamicRouter::Greedy, 0.5)
    );
    assert_eq!((bounds.lower, bounds.upper), (2.25, Some(4.0)));
    // The warm-up default is rounded down, so that slotted arrivals accept it.
    let slotted = DynamicOptions {
        arrivals: Some(Arrivals::Slotted),
        slots: Some(1005.0),
        ..rate(1.0)
    };
    assert_eq!(slotted.resolve(&cube(4)).unwrap().protocol.warmup, 100.0);
}

#[test]
fn refusals_name_their_parameter() {
    let refused = |options: DynamicOptions| options.resolve(&cube(4)).unwrap_err();
    assert!(matches!(
        refused(DynamicOptions::default()),
        ScenarioError::Missing {
            param: Parameter::Rate
        }
    ));
    assert!(matches!(
        refused(rate(2.5)),
        ScenarioError::Refused {
            param: Parameter::Rate,
            ..
        }
    ));
    assert!(matches!(
        refused(DynamicOptions {
            router: Some(DynamicRouter::Adaptive),
            ..rate(1.0)
        }),
        ScenarioError::Refused {
            param: Parameter::Router,
            ..
        }
    ));
    assert!(matches!(
        refused(DynamicOptions {
            arrivals: Some(Arrivals::Slotted),
            slots: Some(100.5),
            ..rate(1.0)
        }),
        ScenarioError::OutOfRange {
            param: Parameter::Slots,
            ..
        }
    ));
    assert!(matches!(
        refused(DynamicOptions {
            broadcast: Some(BroadcastScheme::Direct),
            p: Some(0.3),
            ..rate(0.01)
        }),
        ScenarioError::Refused {
            param: Parameter::P,
            ..
        }
    ));
    let fat_tree: fatnet_topology::TopologySpec = "bft:n=16".parse().unwrap();
    assert!(matches!(
        rate(1.0).resolve(&fat_tree).unwrap_err(),
        ScenarioError::WrongTopology { .. }
    ));
}

#[test]
fn a_trial_seeds_the_engine_with_the_packet_convention() {
    let options = DynamicOptions {
        slots: Some(500.0),
        ..rate(1.0)
    };
    let prepared = DynamicScenario {
        topology: cube(4),
        options,
    }
    .prepare()
    .unwrap();
    let seed = derive_seed(7, 2);
    let got = prepared.trial(seed).unwrap();
    let want = steady_state(&GreedyConfig {
        network: GreedyNetwork::Hypercube,
        d: 4,
        lambda: 1.0,
        p: 0.5,
        protocol: RunProtocol::new(50.0, 500.0, 20),
        confidence: 0.95,
        seed: derive_seed(seed, 1),
        window: None,
    })
    .unwrap();
    assert_eq!(got.delay_mean, Some(want.delay_mean));
    assert_eq!(got.measured, want.measured);
    assert_eq!(got, prepared.trial(seed).unwrap(), "deterministic");
}

#[test]
fn runs_too_large_for_memory_or_time_are_refused_with_the_estimate() {
    use fatnet_scenario::{DynamicOptions, Parameter, ScenarioError};
    let cube: fatnet_topology::TopologySpec = "hypercube:d=10".parse().unwrap();
    let long = DynamicOptions {
        rate: Some(0.5),
        slots: Some(1e12),
        ..DynamicOptions::default()
    };
    match long.resolve(&cube) {
        Err(ScenarioError::OutOfRange {
            param: Parameter::Slots,
            ..
        }) => {}
        other => panic!("{other:?}"),
    }
    let many = DynamicOptions {
        rate: Some(0.5),
        slots: Some(1e6),
        ..DynamicOptions::default()
    };
    let e = many.resolve(&cube).unwrap_err();
    assert!(
        matches!(
            e,
            ScenarioError::Refused {
                param: Parameter::Slots,
                ..
            }
        ) && e.to_string().contains("5.120e8 packets"),
        "{e}"
    );
    // Just under the limit resolves.
    let fits = DynamicOptions {
        rate: Some(0.5),
        slots: Some(2.0e5),
        ..DynamicOptions::default()
    };
    assert!(fits.resolve(&cube).is_ok());
}

/// A summary of no trial (a direct library call) has no delay and no interval; it used to
/// underflow computing the interval's degrees of freedom.
#[test]
fn a_summary_of_no_trial_has_no_interval() {
    let prepared = DynamicScenario {
        topology: cube(3),
        options: DynamicOptions {
            slots: Some(100.0),
            ..rate(0.5)
        },
    }
    .prepare()
    .unwrap();
    let summary = fatnet_scenario::DynamicSummary::of(&prepared, 1, Vec::new(), false);
    let json = serde_json::to_value(&summary).unwrap();
    assert_eq!(json["trials"], 0, "{json}");
    assert!(json["delay_mean"].is_null(), "{json}");
    assert!(json["delay_ci"].is_null(), "{json}");
}
