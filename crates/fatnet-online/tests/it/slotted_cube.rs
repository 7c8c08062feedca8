//! The slotted greedy and adaptive schemes (Stamoulis §5.4–5.5).

use fatnet_online::OnlineError;
use fatnet_online::greedy_cube::{GreedyConfig, GreedyNetwork, steady_state};
use fatnet_online::slotted_cube::{SlottedConfig, SlottedScheme, run};
use fatnet_online::{OnlineParameter, RunProtocol};

use SlottedScheme::{Adaptive, Greedy};

fn config(scheme: SlottedScheme, d: u32, lambda: f64, p: f64, horizon: u64) -> SlottedConfig {
    SlottedConfig {
        network: GreedyNetwork::Hypercube,
        scheme,
        d,
        lambda,
        p,
        protocol: RunProtocol::slots(horizon / 10, horizon, 20),
        confidence: 0.99,
        seed: 11,
    }
}

/// p = 1 sends every packet to the antipode; greedy paths are then disjoint and only the first
/// arc queues: a discrete-time M/D/1 queue with Poisson batches, T̄ = d + ρ/(2(1 − ρ)) (thesis
/// (2.4)).
#[test]
fn greedy_with_antipodal_traffic_is_the_discrete_md1_queue() {
    for (d, rho) in [(3, 0.3), (4, 0.6), (5, 0.8)] {
        let r = run(&config(Greedy, d, rho, 1.0, 60_000)).unwrap();
        let exact = f64::from(d) + rho / (2.0 * (1.0 - rho));
        assert!(
            (r.delay_mean - exact).abs() <= r.delay_half_width + 0.005,
            "d = {d}, ρ = {rho}: {} ± {} vs {exact}",
            r.delay_mean,
            r.delay_half_width
        );
        assert_eq!(r.hops_mean, f64::from(d));
    }
}

/// The thesis' coupling (5.19)–(5.26): with the same arrivals advanced to their slot start,
/// T ≤ T̄ ≤ T + τ, T from the exact continuous-time simulator.
#[test]
fn slotted_greedy_lies_between_t_and_t_plus_one() {
    for (d, lambda, p) in [(4, 1.0, 0.5), (5, 1.6, 0.5), (4, 2.0, 0.25)] {
        let slotted = run(&config(Greedy, d, lambda, p, 60_000)).unwrap();
        let cont = steady_state(&GreedyConfig {
            d,
            lambda,
            p,
            protocol: RunProtocol::new(6_000.0, 60_000.0, 20),
            confidence: 0.99,
            seed: 11,
            ..GreedyConfig::default()
        })
        .unwrap();
        let slack = slotted.delay_half_width + cont.delay_half_width;
        assert!(
            slotted.delay_mean >= cont.delay_mean - slack,
            "d = {d}: T̄ = {} < T = {}",
            slotted.delay_mean,
            cont.delay_mean
        );
        assert!(slotted.delay_mean <= cont.delay_mean + 1.0 + slack);
    }
}

/// Both schemes route on shortest paths (`dp` hops on average), never beat the hop count,
/// and obey Little's law N = λ 2^d T̄: a packet with delay D (an integer) is in the network
/// at exactly D slot starts, so N counted at slot starts is λ 2^d T̄ in expectation.
#[test]
fn shortest_paths_and_littles_law() {
    for scheme in [Greedy, Adaptive] {
        let (d, lambda, p) = (5, 1.2, 0.5);
        let r = run(&config(scheme, d, lambda, p, 30_000)).unwrap();
        assert!(
            (r.hops_mean - 2.5).abs() < 0.02,
            "{scheme:?}: {}",
            r.hops_mean
        );
        assert!(r.delay_mean >= r.hops_mean);
        let little = lambda * 32.0 * r.delay_mean;
        assert!(
            (r.number_mean - little).abs() < 0.02 * little,
            "{scheme:?}: N = {} vs λ2^dT̄ = {little}",
            r.number_mean
        );
    }
}

/// Light traffic: the delay tends to the mean path length dp for both schemes.
#[test]
fn light_traffic_delay_is_the_path_length() {
    for scheme in [Greedy, Adaptive] {
        let r = run(&config(scheme, 6, 0.01, 0.5, 200_000)).unwrap();
        assert!(
            (r.delay_mean - 3.0).abs() < 0.05,
            "{scheme:?}: {}",
            r.delay_mean
        );
    }
}

/// Figure 5.3's claim: in heavy traffic (ρ = 0.9, p = 1/2) the adaptive scheme's queueing
/// delay is far below greedy's, and greedy's lies within its bounds
/// pρ/(2(1 − ρ)) ≤ T̄ − dp ≤ ρdp/(1 − ρ) + 1 (Props. 5.13, 5.12 with (5.26)).
#[test]
fn adaptive_beats_greedy_in_heavy_traffic() {
    let (d, lambda, p) = (6, 1.8, 0.5);
    let g = run(&config(Greedy, d, lambda, p, 30_000)).unwrap();
    let a = run(&config(Adaptive, d, lambda, p, 30_000)).unwrap();
    let dp = 3.0;
    let (lo, hi) = (0.5 * 0.9 / 0.2, 0.9 * dp / 0.1 + 1.0);
    assert!(g.delay_mean - dp + g.delay_half_width >= lo);
    assert!(g.delay_mean - dp - g.delay_half_width <= hi);
    assert!(
        a.delay_mean - dp < 0.5 * (g.delay_mean - dp),
        "adaptive {} vs greedy {}",
        a.delay_mean,
        g.delay_mean
    );
    assert!(a.max_node_queue < g.max_node_queue);
}

/// Above ρ = 1 no scheme is stable: the batch means grow.
#[test]
fn overload_grows_the_delay() {
    for scheme in [Greedy, Adaptive] {
        let r = run(&config(scheme, 4, 2.2, 0.5, 4_000)).unwrap();
        let first = r.batch_means[0];
        let last = *r.batch_means.last().unwrap();
        assert!(last > first + 50.0, "{scheme:?}: {first} -> {last}");
    }
}

#[test]
fn same_seed_same_report() {
    for scheme in [Greedy, Adaptive] {
        let c = config(scheme, 5, 1.5, 0.5, 3_000);
        let a = run(&c).unwrap();
        assert_eq!(a, run(&c).unwrap());
        let b = run(&SlottedConfig { seed: 12, ..c }).unwrap();
        assert_ne!(a.delay_mean, b.delay_mean);
    }
}

#[test]
fn bad_input_is_a_typed_error() {
    let ok = config(Greedy, 4, 1.0, 0.5, 1_000);
    assert!(run(&ok).is_ok());
    let bad = |c: SlottedConfig| run(&c).unwrap_err();
    assert!(matches!(
        bad(SlottedConfig { d: 0, ..ok }),
        OnlineError::BadDimension { .. }
    ));
    assert!(matches!(
        bad(SlottedConfig { d: 21, ..ok }),
        OnlineError::BadDimension { .. }
    ));
    assert!(matches!(
        bad(SlottedConfig { lambda: 0.0, ..ok }),
        OnlineError::Traffic(_)
    ));
    assert!(matches!(
        bad(SlottedConfig {
            lambda: f64::NAN,
            ..ok
        }),
        OnlineError::Traffic(_)
    ));
    assert!(matches!(
        bad(SlottedConfig { p: 1.5, ..ok }),
        OnlineError::Traffic(_)
    ));
    assert!(matches!(
        bad(SlottedConfig {
            protocol: RunProtocol {
                warmup: 1_000.0,
                ..ok.protocol
            },
            ..ok
        }),
        OnlineError::BadParameter {
            param: OnlineParameter::Warmup,
            ..
        }
    ));
    // Slots are whole, and there are at most as many batches as measured slots.
    for (protocol, param) in [
        (
            RunProtocol::new(100.0, 1_000.5, 20),
            OnlineParameter::Horizon,
        ),
        (
            RunProtocol::new(100.5, 1_000.0, 20),
            OnlineParameter::Warmup,
        ),
        (RunProtocol::slots(100, 1_000, 0), OnlineParameter::Batches),
        (
            RunProtocol::slots(100, 1_000, 901),
            OnlineParameter::Batches,
        ),
    ] {
        assert!(
            matches!(
                bad(SlottedConfig { protocol, ..ok }),
                OnlineError::BadParameter { param: p, .. } if p == param
            ),
            "{protocol:?}"
        );
    }
    // One batch: a mean without an interval.
    let one = run(&SlottedConfig {
        protocol: RunProtocol::slots(100, 1_000, 1),
        ..ok
    })
    .unwrap();
    assert!(one.delay_mean.is_finite() && one.delay_half_width.is_nan());
    assert!(matches!(
        bad(SlottedConfig {
            confidence: 1.0,
            ..ok
        }),
        OnlineError::BadConfidence { .. }
    ));
    for c in [
        SlottedConfig { d: 0, ..ok },
        SlottedConfig {
            protocol: RunProtocol::slots(100, 1_000, 0),
            ..ok
        },
    ] {
        assert!(!bad(c).to_string().is_empty());
    }
}

/// The butterfly (§5.6): T ≤ T̄ ≤ T + 1 against the exact continuous simulator with the same
/// arrivals, every packet crosses d arcs, Prop. 5.18's proved slotted bound
/// T̄ ≥ d + (1/2)(d − 1)λp(1 − p) holds, and p ∈ {0, 1} gives the discrete M/D/1 delay
/// d + ρ/(2(1 − ρ)).
#[test]
fn butterfly_slotted_greedy() {
    for (d, lambda, p) in [(4, 1.2, 0.5), (6, 1.6, 0.5), (5, 1.0, 0.25)] {
        let c = SlottedConfig {
            network: GreedyNetwork::Butterfly,
            ..config(Greedy, d, lambda, p, 40_000)
        };
        let slotted = run(&c).unwrap();
        assert_eq!(slotted.hops_mean, f64::from(d));
        let cont = steady_state(&GreedyConfig {
            network: GreedyNetwork::Butterfly,
            d,
            lambda,
            p,
            protocol: RunProtocol::new(4_000.0, 40_000.0, 20),
            confidence: 0.99,
            seed: 11,
            ..GreedyConfig::default()
        })
        .unwrap();
        let slack = slotted.delay_half_width + cont.delay_half_width;
        assert!(slotted.delay_mean >= cont.delay_mean - slack, "d = {d}");
        assert!(slotted.delay_mean <= cont.delay_mean + 1.0 + slack);
        let prop_5_18 = f64::from(d) + 0.5 * f64::from(d - 1) * lambda * p * (1.0 - p);
        assert!(
            slotted.delay_mean + slotted.delay_half_width >= prop_5_18,
            "d = {d}"
        );
    }
    let c = SlottedConfig {
        network: GreedyNetwork::Butterfly,
        ..config(Greedy, 4, 0.7, 1.0, 60_000)
    };
    let r = run(&c).unwrap();
    let exact = 4.0 + 0.7 / (2.0 * 0.3);
    assert!(
        (r.delay_mean - exact).abs() <= r.delay_half_width + 0.01,
        "{}",
        r.delay_mean
    );
    assert!(matches!(
        run(&SlottedConfig {
            network: GreedyNetwork::Butterfly,
            ..config(Adaptive, 4, 1.0, 0.5, 1_000)
        }),
        Err(OnlineError::AdaptiveOnButterfly)
    ));
}
