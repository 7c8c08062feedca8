//! Greedy routing under Poisson traffic on the hypercube and the butterfly (Stamoulis ch. 5):
//! the exact level-by-level simulator against hand-computed departures and an independent
//! event-driven simulator, and the steady-state estimator against the thesis' exact values and
//! bounds (written here, not imported, so that the simulator is checked independently).

use fatnet_online::{OnlineParameter, RunProtocol};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

use fatnet_online::OnlineError;
use fatnet_online::greedy_cube::{
    GreedyConfig, GreedyNetwork, GreedyReport, MAX_DIMENSION, simulate, steady_state,
};
use fatnet_traffic::TrafficError;
use fatnet_traffic::arrivals::{Arrival, PoissonTraffic};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

use GreedyNetwork::{Butterfly, Hypercube};

// ---- the thesis' formulas (notes 002a §4, F10 and F13) -------------------------------------

/// Prop. 5.13: greedy on the cube, T ≥ dp + pρ/(2(1 − ρ)).
fn cube_lower(d: u32, p: f64, rho: f64) -> f64 {
    f64::from(d) * p + p * rho / (2.0 * (1.0 - rho))
}

/// Prop. 5.12: greedy on the cube, T ≤ dp/(1 − ρ).
fn cube_upper(d: u32, p: f64, rho: f64) -> f64 {
    f64::from(d) * p / (1.0 - rho)
}

/// Prop. 5.14: butterfly, T ≥ d + p·λp/(2(1 − λp)) + (1 − p)·λ(1 − p)/(2(1 − λ(1 − p))).
fn butterfly_lower(d: u32, lambda: f64, p: f64) -> f64 {
    let (v, s) = (lambda * p, lambda * (1.0 - p));
    f64::from(d) + p * v / (2.0 * (1.0 - v)) + (1.0 - p) * s / (2.0 * (1.0 - s))
}

/// Prop. 5.17: butterfly, T ≤ dp/(1 − λp) + d(1 − p)/(1 − λ(1 − p)).
fn butterfly_upper(d: u32, lambda: f64, p: f64) -> f64 {
    let d = f64::from(d);
    d * p / (1.0 - lambda * p) + d * (1.0 - p) / (1.0 - lambda * (1.0 - p))
}

/// p ∈ {0, 1} on the butterfly, p = 1 on the cube: disjoint paths, the first arc an M/D/1
/// queue, T = d + ρ/(2(1 − ρ)) exactly.
fn disjoint_exact(d: u32, rho: f64) -> f64 {
    f64::from(d) + rho / (2.0 * (1.0 - rho))
}

/// A run measuring about `packets` packets after a warm-up of a tenth of the run (at least
/// 200 time units), 20 batches, 99% intervals.
fn run(
    network: GreedyNetwork,
    d: u32,
    lambda: f64,
    p: f64,
    packets: f64,
    seed: u64,
) -> GreedyReport {
    let span = packets / (lambda * f64::from(1u32 << d));
    let warmup = (span / 10.0).max(200.0);
    steady_state(&GreedyConfig {
        network,
        d,
        lambda,
        p,
        protocol: RunProtocol::new(warmup, warmup + span, 20),
        confidence: 0.99,
        seed,
        window: None,
    })
    .unwrap()
}

// ---- exact departures ----------------------------------------------------------------------

fn arrival(time: f64, src: u32, dst: u32) -> Arrival {
    Arrival { time, src, dst }
}

/// Six packets on the 2-cube, departures computed by hand:
/// dimension 1: arc 0→1 serves A0 (ready 0, leaves 1) then A1 (ready 0.5, waits, leaves 2,
/// delivered); arc 1→0 serves A3 (1.25 → 2.25). Dimension 2: arc 1→3 serves A2 (0.25 → 1.25)
/// then A0 (ready 1, waits, 2.25); arc 0→2 serves A5 (0.75 → 1.75) then A3 (2.25 → 3.25).
/// A4 goes to itself: delivered at birth.
#[test]
fn hand_computed_cube_instance() {
    let a = [
        arrival(0.0, 0, 3),
        arrival(0.5, 0, 1),
        arrival(0.25, 1, 3),
        arrival(1.25, 1, 2),
        arrival(0.0, 2, 2),
        arrival(0.75, 0, 2),
    ];
    assert_eq!(
        simulate(Hypercube, 2, &a).unwrap(),
        vec![2.25, 2.0, 1.25, 3.25, 0.0, 1.75]
    );
}

/// The same packets on the 2-dimensional butterfly (rows 0..3, levels 1..3): level 1, arc
/// (0, v) serves A0 (0 → 1) then A1 (0.5 → 2); (1, s) A2 (0.25 → 1.25); (1, v) A3
/// (1.25 → 2.25, to row 0); (2, s) A4 (0 → 1); (0, s) A5 (0.75 → 1.75). Level 2, row 1: (1, v)
/// serves A0 (1 → 2) then A2 (1.25 → 3); (1, s) A1 (2 → 3). Row 0: (0, v) serves A5
/// (1.75 → 2.75) then A3 (2.25 → 3.75). Row 2: (2, s) A4 (1 → 2).
#[test]
fn hand_computed_butterfly_instance() {
    let a = [
        arrival(0.0, 0, 3),
        arrival(0.5, 0, 1),
        arrival(0.25, 1, 3),
        arrival(1.25, 1, 2),
        arrival(0.0, 2, 2),
        arrival(0.75, 0, 2),
    ];
    assert_eq!(
        simulate(Butterfly, 2, &a).unwrap(),
        vec![2.0, 3.0, 3.0, 3.75, 2.0, 2.75]
    );
}

/// Equal ready times are served in list order, whatever the origin.
#[test]
fn ties_are_broken_by_list_position() {
    // Both need arc 0→1 at time 0; the second in the list waits.
    let a = [arrival(0.0, 0, 1), arrival(0.0, 0, 1)];
    assert_eq!(simulate(Hypercube, 1, &a).unwrap(), vec![1.0, 2.0]);
    // At node 1 at time 1: one arrived over dimension 1, one was born there; both need the
    // dimension-2 arc 1→3. List position decides.
    let a = [arrival(1.0, 1, 3), arrival(0.0, 0, 3)];
    assert_eq!(simulate(Hypercube, 2, &a).unwrap(), vec![2.0, 3.0]);
    let a = [arrival(0.0, 0, 3), arrival(1.0, 1, 3)];
    assert_eq!(simulate(Hypercube, 2, &a).unwrap(), vec![2.0, 3.0]);
}

/// An independent simulator: all (packet, next arc) readiness events in one heap ordered by
/// (ready time, list position); a popped packet is served at `max(free, t) + 1`. Ready times
/// produced later are strictly later, so every arc serves its customers in (time, position)
/// order: the same FIFO rule as the level-by-level engine, reached by another route.
fn event_driven(network: GreedyNetwork, d: u32, arrivals: &[Arrival]) -> Vec<f64> {
    #[derive(PartialEq)]
    struct Key(f64, usize);
    impl Eq for Key {}
    impl PartialOrd for Key {
        fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
            Some(self.cmp(o))
        }
    }
    impl Ord for Key {
        fn cmp(&self, o: &Self) -> std::cmp::Ordering {
            self.0.total_cmp(&o.0).then(self.1.cmp(&o.1))
        }
    }
    let mut done = vec![f64::NAN; arrivals.len()];
    // (current row, next level)
    let mut state: Vec<(u32, u32)> = arrivals.iter().map(|a| (a.src, 0)).collect();
    let mut heap = BinaryHeap::new();
    for (i, a) in arrivals.iter().enumerate() {
        heap.push(Reverse(Key(a.time, i)));
    }
    let mut free: HashMap<(u32, u32, u32), f64> = HashMap::new();
    while let Some(Reverse(Key(t, i))) = heap.pop() {
        let (row, mut level) = state[i];
        let dst = arrivals[i].dst;
        if network == Hypercube {
            // Skip the dimensions already equal.
            while level < d && (row ^ dst) >> level & 1 == 0 {
                level += 1;
            }
            if level == d {
                done[i] = t;
                continue;
            }
        } else if level == d {
            done[i] = t;
            continue;
        }
        let vertical = (row ^ dst) >> level & 1;
        let arc = (level, row, vertical);
        let f = free.entry(arc).or_insert(f64::NEG_INFINITY);
        let dep = f.max(t) + 1.0;
        *f = dep;
        state[i] = (row ^ (vertical << level), level + 1);
        heap.push(Reverse(Key(dep, i)));
    }
    done
}

/// On random instances — continuous times, and integer times full of ties — the engine equals
/// the event-driven simulator exactly, on both networks; the cases with d ≥ 9 run the levels
/// in the engine's two cache-blocked phases.
#[test]
fn engine_equals_an_event_driven_simulator() {
    let mut rng = Pcg64::seed_from_u64(2024);
    for case in 0..66 {
        let (d, count) = if case < 60 {
            (1 + case % 5, rng.random_range(1..400))
        } else {
            (9 + case % 3, rng.random_range(1000..6000))
        };
        let n = 1u32 << d;
        let integer = case % 2 == 0;
        let a: Vec<Arrival> = (0..count)
            .map(|_| {
                let time = if integer {
                    f64::from(rng.random_range(0..30u32))
                } else {
                    rng.random::<f64>() * 30.0
                };
                arrival(time, rng.random_range(0..n), rng.random_range(0..n))
            })
            .collect();
        for network in [Hypercube, Butterfly] {
            assert_eq!(
                simulate(network, d, &a).unwrap(),
                event_driven(network, d, &a),
                "{network:?}, d = {d}, case {case}"
            );
        }
    }
}

// ---- the steady-state estimator ------------------------------------------------------------

/// The steady-state run delivers the same packets at the same times as `simulate` on the
/// arrivals of `PoissonTraffic::poisson` with the same seed (its windows change nothing).
#[test]
fn steady_state_agrees_with_simulate_on_the_same_arrivals() {
    for network in [Hypercube, Butterfly] {
        let config = GreedyConfig {
            network,
            d: 4,
            lambda: 1.5,
            p: 0.5,
            protocol: RunProtocol::new(50.0, 400.0, 5),
            confidence: 0.95,
            seed: 17,
            window: Some(3.0),
        };
        let r = steady_state(&config).unwrap();
        assert!(!r.extension_capped && r.generated_until >= config.protocol.horizon);
        let arrivals = PoissonTraffic::new(4, 1.5, 0.5)
            .unwrap()
            .poisson(r.generated_until, 17)
            .unwrap();
        assert_eq!(arrivals.len() as u64, r.packets_simulated);
        let done = simulate(network, 4, &arrivals).unwrap();
        let measured: Vec<f64> = arrivals
            .iter()
            .zip(&done)
            .filter(|(a, _)| (50.0..400.0).contains(&a.time))
            .map(|(a, f)| f - a.time)
            .collect();
        assert_eq!(measured.len() as u64, r.measured);
        let mean = measured.iter().sum::<f64>() / measured.len() as f64;
        assert!(
            (mean - r.delay_mean).abs() < 1e-9,
            "{network:?}: {mean} vs {}",
            r.delay_mean
        );
        // Time-average number in system over [50, 400), from the delivery times.
        let area: f64 = arrivals
            .iter()
            .zip(&done)
            .filter(|(a, _)| a.time < 400.0)
            .map(|(a, f)| f.clamp(50.0, 400.0) - a.time.clamp(50.0, 400.0))
            .sum();
        assert!((area / 350.0 - r.number_mean).abs() < 1e-9);
        let hops: f64 = arrivals
            .iter()
            .filter(|a| (50.0..400.0).contains(&a.time))
            .map(|a| match network {
                Hypercube => f64::from((a.src ^ a.dst).count_ones()),
                Butterfly => 4.0,
            })
            .sum();
        assert!((hops / measured.len() as f64 - r.hops_mean).abs() < 1e-12);
    }
}

/// The window length is a memory/speed knob only: windows shorter than a batch, windows that
/// straddle batch boundaries (0.37, 7 and 1000 against batches of 270) and one window for the
/// whole run give the same estimates.
#[test]
fn window_length_does_not_change_the_estimates() {
    for network in [Hypercube, Butterfly] {
        let base = GreedyConfig {
            network,
            d: 4,
            lambda: 1.6,
            p: 0.5,
            protocol: RunProtocol::new(300.0, 3000.0, 10),
            confidence: 0.95,
            seed: 5,
            window: None,
        };
        let reference = steady_state(&base).unwrap();
        for window in [0.37, 7.0, 1000.0, 1e6] {
            let r = steady_state(&GreedyConfig {
                window: Some(window),
                ..base
            })
            .unwrap();
            let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * b.abs().max(1.0);
            assert_eq!(r.measured, reference.measured);
            assert_eq!(r.packets, reference.packets);
            assert!(close(r.delay_mean, reference.delay_mean), "window {window}");
            assert!(
                close(r.number_mean, reference.number_mean),
                "window {window}"
            );
            for (x, y) in r.batch_means.iter().zip(&reference.batch_means) {
                assert!(close(*x, *y), "window {window}");
            }
            assert_eq!(r.arc_rate, reference.arc_rate);
        }
    }
}

/// Light traffic: T → dp on the cube (the mean path length; no queueing), d on the butterfly;
/// the mean number of hops per packet is dp (resp. d).
#[test]
fn light_traffic_delay_is_the_mean_path_length() {
    let (d, p, lambda) = (6, 0.5, 0.02);
    let r = run(Hypercube, d, lambda, p, 2e5, 1);
    let rho = lambda * p;
    assert!(r.delay_mean + r.delay_half_width >= cube_lower(d, p, rho));
    assert!(r.delay_mean - r.delay_half_width <= cube_upper(d, p, rho));
    assert!((r.delay_mean - 3.0).abs() < 0.03, "T = {}", r.delay_mean);
    assert!((r.hops_mean - 3.0).abs() < 0.02, "hops {}", r.hops_mean);

    let r = run(Butterfly, d, 0.01, 0.3, 2e5, 2);
    assert!(r.delay_mean + r.delay_half_width >= butterfly_lower(d, 0.01, 0.3));
    assert!(r.delay_mean - r.delay_half_width <= butterfly_upper(d, 0.01, 0.3));
    assert!((r.delay_mean - 6.0).abs() < 0.03, "T = {}", r.delay_mean);
    assert_eq!(r.hops_mean, 6.0);
}

/// p = 1 on the cube (every packet to the antipode) and p ∈ {0, 1} on the butterfly: paths
/// are disjoint and T = d + ρ/(2(1 − ρ)) exactly; the estimate's 99% interval covers it and is
/// narrow.
#[test]
fn disjoint_paths_give_the_exact_md1_delay() {
    for (network, d, lambda, p, seed) in [
        (Hypercube, 4, 0.7, 1.0, 3),
        (Hypercube, 6, 0.5, 1.0, 4),
        (Butterfly, 4, 0.7, 1.0, 5),
        (Butterfly, 5, 0.6, 0.0, 6),
    ] {
        let r = run(network, d, lambda, p, 4e5, seed);
        let exact = disjoint_exact(d, lambda);
        assert!(
            (r.delay_mean - exact).abs() <= r.delay_half_width,
            "{network:?} d = {d}: {} ± {} vs {exact}",
            r.delay_mean,
            r.delay_half_width
        );
        assert!(r.delay_half_width < 0.03, "{}", r.delay_half_width);
    }
}

/// Props. 5.12 and 5.13: dp + pρ/(2(1 − ρ)) ≤ T ≤ dp/(1 − ρ), within the 99% interval, on a
/// grid of d, ρ and p.
#[test]
fn cube_greedy_bounds_hold_on_a_grid() {
    for d in [3u32, 5, 8] {
        for rho in [0.2, 0.5, 0.8] {
            for p in [0.25, 0.5, 0.75] {
                let lambda = rho / p;
                let r = run(
                    Hypercube,
                    d,
                    lambda,
                    p,
                    1e6,
                    u64::from(d) * 100 + (rho * 10.0) as u64,
                );
                let (lo, hi) = (cube_lower(d, p, rho), cube_upper(d, p, rho));
                assert!(
                    r.delay_mean + r.delay_half_width >= lo
                        && r.delay_mean - r.delay_half_width <= hi,
                    "d = {d}, ρ = {rho}, p = {p}: T = {} ± {} outside [{lo}, {hi}]",
                    r.delay_mean,
                    r.delay_half_width
                );
                assert!(
                    r.delay_half_width < 0.03 * r.delay_mean,
                    "too wide an interval"
                );
            }
        }
    }
}

/// Props. 5.14 and 5.17 on the butterfly, ρ = λ·max{p, 1 − p}, on the same grid.
#[test]
fn butterfly_greedy_bounds_hold_on_a_grid() {
    for d in [3u32, 5, 8] {
        for rho in [0.2, 0.5, 0.8] {
            for p in [0.25, 0.5, 0.75] {
                let lambda = rho / f64::max(p, 1.0 - p);
                let r = run(
                    Butterfly,
                    d,
                    lambda,
                    p,
                    1e6,
                    u64::from(d) * 100 + (rho * 10.0) as u64,
                );
                assert!((r.rho - rho).abs() < 1e-12);
                let (lo, hi) = (butterfly_lower(d, lambda, p), butterfly_upper(d, lambda, p));
                assert!(
                    r.delay_mean + r.delay_half_width >= lo
                        && r.delay_mean - r.delay_half_width <= hi,
                    "d = {d}, ρ = {rho}, p = {p}: T = {} ± {} outside [{lo}, {hi}]",
                    r.delay_mean,
                    r.delay_half_width
                );
                assert!(
                    r.delay_half_width < 0.03 * r.delay_mean,
                    "too wide an interval"
                );
            }
        }
    }
}

/// The reference values of the implementation notes (002a R5.14 and R5.15: "my simulation,
/// continuous time, ±~1 %", not the thesis'), reproduced within 1.5 % plus the 99% interval.
#[test]
fn notes_reference_values() {
    for (network, d, lambda, p, want) in [
        (Hypercube, 4, 1.0, 0.5, 2.83),
        (Hypercube, 4, 1.6, 0.5, 5.50),
        (Hypercube, 6, 1.6, 0.5, 8.03),
        (Hypercube, 5, 2.0, 0.25, 1.84),
        (Hypercube, 4, 0.7, 1.0, 5.167),
        (Butterfly, 6, 1.2, 0.5, 9.057),
    ] {
        let r = run(network, d, lambda, p, 1e6, 21);
        assert!(
            (r.delay_mean - want).abs() <= 0.015 * want + r.delay_half_width,
            "{network:?} d = {d}, λ = {lambda}, p = {p}: {} ± {} vs {want}",
            r.delay_mean,
            r.delay_half_width
        );
    }
}

/// Little's law (5.14): the time-average number in the network is λ 2^d T.
#[test]
fn littles_law_holds() {
    for (network, d, lambda, p) in [(Hypercube, 5, 1.2, 0.5), (Butterfly, 4, 1.1, 0.4)] {
        let r = run(network, d, lambda, p, 4e5, 8);
        let little = lambda * f64::from(1u32 << d) * r.delay_mean;
        assert!(
            (r.number_mean - little).abs() < 0.01 * little,
            "{network:?}: N = {} vs λ2^dT = {little}",
            r.number_mean
        );
    }
}

/// Props. 5.10 and 5.15: every level's arcs carry λp (cube; butterfly vertical arcs), the
/// butterfly's straight arcs λ(1 − p).
#[test]
fn every_level_carries_its_load() {
    let r = run(Hypercube, 5, 1.5, 0.3, 4e5, 9);
    assert_eq!(r.arc_rate.len(), 5);
    assert!(r.straight_rate.is_empty());
    for &x in &r.arc_rate {
        assert!((x - 0.45).abs() < 0.01, "{:?}", r.arc_rate);
    }
    let r = run(Butterfly, 5, 1.2, 0.3, 4e5, 10);
    for (&v, &s) in r.arc_rate.iter().zip(&r.straight_rate) {
        assert!(
            (v - 0.36).abs() < 0.01 && (s - 0.84).abs() < 0.015,
            "{v} {s}"
        );
    }
}

/// Above ρ = 1 the delay grows with generation time; below it does not.
#[test]
fn delay_grows_only_above_rho_one() {
    let config = |lambda: f64, horizon: f64| GreedyConfig {
        network: Hypercube,
        d: 3,
        lambda,
        p: 0.5,
        protocol: RunProtocol::new(horizon / 10.0, horizon, 20),
        confidence: 0.99,
        seed: 12,
        window: None,
    };
    // ρ = 1.3: the dimension-1 arcs receive 1.3 packets per unit time, so their backlog, and
    // the delay, grow by about 0.3 per unit time.
    let unstable = steady_state(&config(2.6, 4000.0)).unwrap();
    let (first, last) = (unstable.batch_means[0], unstable.batch_means[19]);
    assert!(
        unstable.delay_trend > 0.1 && last - first > 0.2 * 3420.0,
        "trend {}, batch means {first} … {last}",
        unstable.delay_trend
    );
    for lambda in [1.0, 1.6] {
        let stable = steady_state(&config(lambda, 40_000.0)).unwrap(); // ρ = 0.5, 0.8
        assert!(
            (stable.delay_trend * 36_000.0).abs() < 4.0 * stable.delay_half_width,
            "λ = {lambda}: trend {} ± {}",
            stable.delay_trend,
            stable.delay_half_width
        );
        assert!(!stable.extension_capped);
    }
    let butterfly = steady_state(&GreedyConfig {
        network: Butterfly,
        lambda: 1.5,
        p: 0.25, // ρ = 1.5 · 0.75 = 1.125 on the straight arcs
        ..config(0.0, 4000.0)
    })
    .unwrap();
    assert!(
        butterfly.delay_trend > 0.02,
        "trend {}",
        butterfly.delay_trend
    );
}

/// A run is a function of its configuration.
#[test]
fn same_seed_same_report() {
    let config = GreedyConfig {
        d: 5,
        lambda: 1.4,
        p: 0.5,
        protocol: RunProtocol::new(200.0, 2000.0, 20),
        ..GreedyConfig::default()
    };
    let a = steady_state(&config).unwrap();
    assert_eq!(a, steady_state(&config).unwrap());
    let b = steady_state(&GreedyConfig { seed: 1, ..config }).unwrap();
    assert_ne!(a.delay_mean, b.delay_mean);
    assert_ne!(a.packets, b.packets);
}

/// Bad parameters are typed errors, never panics.
/// Whether `e` is the run protocol's refusal of `param`.
fn protocol_error(e: &OnlineError, param: OnlineParameter) -> bool {
    matches!(e, OnlineError::BadParameter { param: p, .. } if *p == param)
}

/// One batch is a valid protocol: the mean is estimated, its interval is not (NaN).
#[test]
fn one_batch_gives_a_mean_without_an_interval() {
    let r = steady_state(&GreedyConfig {
        d: 3,
        protocol: RunProtocol::new(10.0, 400.0, 1),
        ..GreedyConfig::default()
    })
    .unwrap();
    assert!(r.delay_mean.is_finite() && r.delay_mean > 0.0);
    assert_eq!(r.batch_means.len(), 1);
    assert!(r.delay_half_width.is_nan());
}

#[test]
fn bad_input_is_a_typed_error() {
    let ok = GreedyConfig {
        d: 3,
        protocol: RunProtocol::new(10.0, 100.0, 20),
        ..GreedyConfig::default()
    };
    assert!(steady_state(&ok).is_ok());
    type Check = fn(&OnlineError) -> bool;
    let cases: Vec<(GreedyConfig, Check)> = vec![
        (GreedyConfig { d: 0, ..ok }, |e| {
            matches!(e, OnlineError::BadDimension { d: 0, .. })
        }),
        (
            GreedyConfig {
                d: MAX_DIMENSION + 1,
                ..ok
            },
            |e| matches!(e, OnlineError::BadDimension { d: 21, max: 20 }),
        ),
        (GreedyConfig { lambda: 0.0, ..ok }, |e| {
            matches!(e, OnlineError::Traffic(TrafficError::BadRate { .. }))
        }),
        (
            GreedyConfig {
                lambda: f64::NAN,
                ..ok
            },
            |e| matches!(e, OnlineError::Traffic(TrafficError::BadRate { .. })),
        ),
        (GreedyConfig { lambda: -1.0, ..ok }, |e| {
            matches!(e, OnlineError::Traffic(TrafficError::BadRate { .. }))
        }),
        (GreedyConfig { p: 1.5, ..ok }, |e| {
            matches!(
                e,
                OnlineError::Traffic(TrafficError::ProbabilityOutOfRange { .. })
            )
        }),
        (GreedyConfig { p: f64::NAN, ..ok }, |e| {
            matches!(
                e,
                OnlineError::Traffic(TrafficError::ProbabilityOutOfRange { .. })
            )
        }),
        (
            GreedyConfig {
                protocol: RunProtocol::new(0.0, 0.0, 20),
                ..ok
            },
            |e| protocol_error(e, OnlineParameter::Horizon),
        ),
        (
            GreedyConfig {
                protocol: RunProtocol {
                    horizon: f64::INFINITY,
                    ..ok.protocol
                },
                ..ok
            },
            |e| protocol_error(e, OnlineParameter::Horizon),
        ),
        (
            GreedyConfig {
                protocol: RunProtocol {
                    warmup: 100.0,
                    ..ok.protocol
                },
                ..ok
            },
            |e| protocol_error(e, OnlineParameter::Warmup),
        ),
        (
            GreedyConfig {
                protocol: RunProtocol {
                    warmup: -1.0,
                    ..ok.protocol
                },
                ..ok
            },
            |e| protocol_error(e, OnlineParameter::Warmup),
        ),
        (
            GreedyConfig {
                protocol: RunProtocol {
                    warmup: f64::NAN,
                    ..ok.protocol
                },
                ..ok
            },
            |e| protocol_error(e, OnlineParameter::Warmup),
        ),
        (
            GreedyConfig {
                protocol: RunProtocol {
                    batches: 0,
                    ..ok.protocol
                },
                ..ok
            },
            |e| protocol_error(e, OnlineParameter::Batches),
        ),
        (
            GreedyConfig {
                confidence: 1.0,
                ..ok
            },
            |e| matches!(e, OnlineError::BadConfidence { .. }),
        ),
        (
            GreedyConfig {
                confidence: f64::NAN,
                ..ok
            },
            |e| matches!(e, OnlineError::BadConfidence { .. }),
        ),
        (
            GreedyConfig {
                window: Some(0.0),
                ..ok
            },
            |e| matches!(e, OnlineError::BadWindowLength { .. }),
        ),
        (
            GreedyConfig {
                window: Some(f64::NAN),
                ..ok
            },
            |e| matches!(e, OnlineError::BadWindowLength { .. }),
        ),
    ];
    for (config, check) in cases {
        let e = steady_state(&config).unwrap_err();
        assert!(check(&e), "{config:?}: {e}");
        assert!(!e.to_string().is_empty());
    }
    let a = [arrival(0.0, 0, 8)];
    assert!(matches!(
        simulate(Hypercube, 3, &a),
        Err(OnlineError::NodeOutOfRange {
            index: 0,
            dst: 8,
            nodes: 8,
            ..
        })
    ));
    let a = [arrival(0.0, 0, 1), arrival(f64::NAN, 0, 1)];
    assert!(matches!(
        simulate(Butterfly, 3, &a),
        Err(OnlineError::BadTime { index: 1, .. })
    ));
    assert!(matches!(
        simulate(Hypercube, 0, &[]),
        Err(OnlineError::BadDimension { d: 0, .. })
    ));
    assert_eq!(simulate(Hypercube, 3, &[]).unwrap(), Vec::<f64>::new());
}
