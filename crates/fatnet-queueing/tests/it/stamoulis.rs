//! Stamoulis' closed forms against the implementation notes' reference values, single-queue
//! simulations, and their orderings.

use fatnet_queueing::QueueingError;
use fatnet_queueing::stamoulis::broadcast;
use fatnet_queueing::stamoulis::greedy::{self, Network};
use fatnet_queueing::stamoulis::queues::{
    brumelle_bound_as_printed, discrete_gd1, discrete_md1_delay, md1_sojourn, mdc_lower_bound,
    mdc_sojourn, slotted_service_delay, synchronised_md1_delay,
};
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

/// The notes' M/D/c reference values (002a F14, 002b §3.2), confirmed there by simulation.
#[test]
fn mdc_reproduces_the_reference_values() {
    for (c, rho, want) in [
        (2, 0.5, 1.17674),
        (2, 0.8, 1.90328),
        (2, 0.9, 3.14692),
        (4, 0.5, 1.04965),
        (4, 0.8, 1.38609),
        (4, 0.9, 1.99997),
        (8, 0.5, 1.00932),
        (8, 0.9, 1.44997),
        (8, 0.95, 2.06793),
        (16, 0.95, 1.49669),
        (64, 0.99, 1.71289),
        (256, 0.99, 1.16175),
    ] {
        let got = mdc_sojourn(c, rho).unwrap();
        assert!(
            (got - want).abs() < 5e-6,
            "𝒟({c}; {rho}) = {got}, notes {want}"
        );
    }
    assert!((mdc_sojourn(1, 0.9).unwrap() - 5.5).abs() < 1e-12);
    assert_eq!(mdc_sojourn(1 << 20, 0.9).unwrap(), 1.0);
}

/// The bound the thesis quotes from [Bru71] in Prop. 5.2 is false (notes 002a §6 #1); the
/// 1/2-form holds.
#[test]
fn the_printed_brumelle_bound_fails_and_the_safe_one_holds() {
    for (c, rho) in [(2, 0.8), (4, 0.9)] {
        assert!(brumelle_bound_as_printed(c, rho).unwrap() > mdc_sojourn(c, rho).unwrap());
    }
    for c in [1u64, 2, 3, 4, 8, 16, 64, 256] {
        for rho in [0.1, 0.3, 0.5, 0.7, 0.9, 0.95, 0.98] {
            let exact = mdc_sojourn(c, rho).unwrap();
            assert!(
                mdc_lower_bound(c, rho).unwrap() <= exact + 1e-12,
                "c = {c}, ρ = {rho}"
            );
            assert!(exact >= 1.0 && exact <= md1_sojourn(rho).unwrap() + 1e-12);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// More servers at the same load per server wait less; a higher load waits more.
    #[test]
    fn mdc_is_monotone(c in 1u64..64, rho in 0.05f64..0.95) {
        let here = mdc_sojourn(c, rho).unwrap();
        prop_assert!(mdc_sojourn(c + 1, rho).unwrap() <= here + 1e-12);
        prop_assert!(mdc_sojourn(c, rho + 0.02).unwrap() >= here - 1e-12);
    }

    /// Greedy's proved bounds are ordered on the cube and the butterfly, and the cube's
    /// greedy lower bound implies the universal and oblivious ones.
    #[test]
    fn bounds_are_ordered(d in 1u32..14, rho in 0.01f64..0.97, p in 0.05f64..1.0) {
        let lambda = rho / p;
        let lower = greedy::greedy_lower_bound(d, lambda, p).unwrap();
        prop_assert!(lower <= greedy::greedy_upper_bound(d, lambda, p).unwrap() + 1e-12);
        prop_assert!(greedy::universal_lower_bound(d, lambda, p).unwrap() <= lower + 1e-12);
        prop_assert!(greedy::oblivious_lower_bound(d, lambda, p).unwrap() <= lower + 1e-12);
        let lambda_b = rho / p.max(1.0 - p);
        let lb = greedy::butterfly_lower_bound(d, lambda_b, p).unwrap();
        prop_assert!(lb <= greedy::butterfly_upper_bound(d, lambda_b, p).unwrap() + 1e-12);
        prop_assert!(lb >= f64::from(d));
    }
}

/// The notes' simulated delays (002a R5.14) lie within the bounds, whose values the notes
/// print: (d, λ, p, T, Prop. 5.13, (5.18), Prop. 5.12).
#[test]
fn notes_bound_values_and_simulations() {
    for (d, lambda, p, t, lo, claimed, hi) in [
        (4, 1.0, 0.5, 2.83, 2.25, 2.44, 4.0),
        (4, 1.6, 0.5, 5.50, 3.00, 3.30, 10.0),
        (6, 1.6, 0.5, 8.03, 4.0, 4.5, 15.0),
        (5, 2.0, 0.25, 1.84, 1.375, 1.469, 2.5),
    ] {
        let b = greedy::delay_bounds(Network::Hypercube, d, lambda, p).unwrap();
        assert!((b.lower - lo).abs() < 5e-3, "{d} {lambda} {p}: {}", b.lower);
        assert!((b.claimed_lower.unwrap() - claimed).abs() < 5e-3);
        assert!((b.upper - hi).abs() < 5e-3);
        assert!(b.lower <= t && t <= b.upper);
        assert_eq!(b.exact, None);
    }
    // p = 1: exact.
    let b = greedy::delay_bounds(Network::Hypercube, 4, 0.7, 1.0).unwrap();
    assert!((b.exact.unwrap() - 5.166_666_666_666_667).abs() < 1e-12);
    assert_eq!(b.claimed_lower, None);
}

/// The slotted bounds widen the upper bound by τ; on the butterfly the proved slotted
/// Prop. 5.18 can raise the lower bound.
#[test]
fn slotted_bounds() {
    let c = greedy::delay_bounds(Network::Hypercube, 6, 1.6, 0.5).unwrap();
    let s = greedy::slotted_delay_bounds(Network::Hypercube, 6, 1.6, 0.5, 1.0).unwrap();
    assert_eq!((s.lower, s.upper), (c.lower, c.upper + 1.0));
    let h = greedy::slotted_delay_bounds(Network::Hypercube, 6, 1.6, 0.5, 0.5).unwrap();
    assert_eq!(h.upper, c.upper + 0.5);
    // Butterfly, d = 10, λ = 1, p = 1/2: Prop. 5.14 gives 10.5; (5.33) 10 + 4.5·0.25 = 11.125.
    let b = greedy::slotted_delay_bounds(Network::Butterfly, 10, 1.0, 0.5, 1.0).unwrap();
    assert!((b.lower - 11.125).abs() < 1e-12, "{}", b.lower);
    assert!(b.lower_source.contains("5.18"));
    // Disjoint butterfly paths (p ∈ {0, 1}) stay exact in unit slots (discrete M/D/1 at the
    // first arc), not with shorter slots.
    for p in [0.0, 1.0] {
        let e = greedy::slotted_delay_bounds(Network::Butterfly, 4, 0.7, p, 1.0).unwrap();
        assert!((e.exact.unwrap() - (4.0 + 0.7 / 0.6)).abs() < 1e-12);
        let half = greedy::slotted_delay_bounds(Network::Butterfly, 4, 0.7, p, 0.5).unwrap();
        assert_eq!(half.exact, None);
    }
    for tau in [0.0, 0.3, 2.0, f64::NAN] {
        assert!(greedy::slotted_delay_bounds(Network::Hypercube, 3, 0.5, 0.5, tau).is_err());
    }
}

/// A Poisson(mean) draw by inversion.
fn poisson(rng: &mut Pcg64, mean: f64) -> u64 {
    let (mut k, mut p) = (0u64, (-mean).exp());
    let mut cdf = p;
    let u: f64 = rng.random();
    while u > cdf && k < 1000 {
        k += 1;
        p *= mean / k as f64;
        cdf += p;
    }
    k
}

/// (2.4), (2.5) and (2.6) against direct simulations of the single queue (10^6 slots, or
/// packets).
#[test]
fn single_queue_formulas_match_simulation() {
    let mut rng = Pcg64::seed_from_u64(2);
    // Discrete M/D/1: Y_{k+1} = [Y_k − 1]^+ + A_k; mean delay by Little from mean Y.
    let a = 0.6;
    let (mut y, mut total) = (0u64, 0u64);
    let slots = 1_000_000;
    for _ in 0..slots {
        y = y.saturating_sub(1) + poisson(&mut rng, a);
        total += y;
    }
    let simulated = total as f64 / slots as f64 / a;
    let exact = discrete_md1_delay(a).unwrap();
    assert!((exact - 1.75).abs() < 1e-12);
    assert!((simulated - exact).abs() < 0.02, "{simulated} vs {exact}");
    // Continuous Poisson arrivals, services starting at multiples of Δ and lasting Δ: FIFO,
    // a packet starts at the first multiple of Δ at or after max(arrival, previous end).
    for (lambda, delta) in [(0.6, 1.0), (0.2, 3.0)] {
        let (mut t, mut free, mut sum) = (0.0f64, 0.0f64, 0.0);
        let n = 1_000_000;
        for _ in 0..n {
            t += -(1.0 - rng.random::<f64>()).ln() / lambda;
            let start = (t.max(free) / delta).ceil() * delta;
            free = start + delta;
            sum += free - t;
        }
        let simulated = sum / f64::from(n);
        let exact = synchronised_md1_delay(lambda, delta).unwrap();
        assert!(
            (simulated - exact).abs() < 0.01 * exact,
            "λ {lambda}, Δ {delta}: {simulated} vs {exact}"
        );
    }
    assert!((slotted_service_delay(0.6).unwrap() - 2.25).abs() < 1e-12);
    assert!((synchronised_md1_delay(0.2, 3.0).unwrap() - 6.75).abs() < 1e-12);
    // G/D/1 with Bernoulli arrivals never queues: T = 1.
    assert_eq!(discrete_gd1(0.4, 0.0).unwrap().delay, 1.0);
}

/// Chapters 6–7 against the notes' tabulated values (002b §3).
#[test]
fn broadcast_formulas_reproduce_the_notes() {
    for (d, want) in [
        (2, 0.11111),
        (3, 0.20408),
        (4, 0.26222),
        (5, 0.29553),
        (6, 0.31368),
        (8, 0.32823),
        (10, 0.33204),
        (12, 0.33301),
    ] {
        assert!((broadcast::c_d(d).unwrap() - want).abs() < 5e-6, "c_{d}");
    }
    // Σ_m g_{m,i} = 1 − d/(2^d − 1) and Σ_m g² = c_d, for every i.
    for d in 2..=9u32 {
        for i in 1..=d {
            let gs: Vec<f64> = (1..=d).map(|m| broadcast::g(d, m, i).unwrap()).collect();
            let m = f64::from((1u32 << d) - 1);
            assert!((gs.iter().sum::<f64>() - (1.0 - f64::from(d) / m)).abs() < 1e-12);
            let sq: f64 = gs.iter().map(|g| g * g).sum();
            assert!((sq - broadcast::c_d(d).unwrap()).abs() < 1e-12);
        }
    }
    for (d, want) in [
        (2, 0.5),
        (3, 0.58333),
        (5, 0.645833),
        (8, 0.664063),
        (12, 0.666504),
    ] {
        assert!((broadcast::indirect_stability_limit(d).unwrap() - want).abs() < 5e-6);
    }
    for (rho, want) in [
        (0.05, 25.122),
        (0.25, 25.906),
        (0.5, 29.571),
        (0.6, 39.049),
        (0.65, 94.333),
    ] {
        assert!(
            (broadcast::prop_7_4_delay(8, rho).unwrap() - want).abs() < 5e-4,
            "ρ {rho}"
        );
    }
    assert_eq!(broadcast::prop_7_4_delay(5, 0.0).unwrap(), 16.0);
    // Prop. 7.5: printed and corrected, ρ = 0.3 (Figure 7.7 curve; 2.718 at d = 12 is the
    // notes' value, not Euler's number).
    #[allow(clippy::approx_constant)]
    for (d, printed, corrected) in [
        (2, 5.150, 1.850),
        (5, 2.778, 1.636),
        (8, 2.247, 1.941),
        (12, 2.758, 2.718),
    ] {
        assert!(
            (broadcast::prop_7_5_printed(d, 0.3).unwrap() - printed).abs() < 5e-4,
            "d {d}"
        );
        assert!((broadcast::prop_7_5_corrected(d, 0.3).unwrap() - corrected).abs() < 5e-4);
    }
    // Prop. 7.6: relative gaps to (7.2) of 0.261% (d = 8) and 0.065% (d = 10); d = 5 value.
    for (d, gap) in [(8, 0.261), (10, 0.065)] {
        let (a, b) = (
            broadcast::prop_7_6_limit(d).unwrap(),
            broadcast::indirect_stability_limit(d).unwrap(),
        );
        assert!(((a - b) / b * 100.0 - gap).abs() < 1e-3, "d {d}");
    }
    assert!((broadcast::prop_7_6_limit(5).unwrap() - 0.659574).abs() < 5e-6);
    // Prop. 6.1 with the exact 𝒟, Prop. 6.2: for d = 4 at ρ = 0.9 the oblivious bound is 5.625.
    assert!((broadcast::prop_6_2_lower_bound(4, 0.9).unwrap() - 5.625).abs() < 1e-12);
    assert_eq!(broadcast::prop_6_1_lower_bound(8, 0.5).unwrap(), 8.0);
    // Lemma 7.2 with equal lengths is the synchronised M/D/1 plus the propagation.
    let lengths = [3u64; 4];
    let l = broadcast::lemma_7_2_delay(0.05, &lengths, 3.0).unwrap();
    assert!((l - (synchronised_md1_delay(0.2, 3.0).unwrap() + 6.0)).abs() < 1e-12);
    // (6.19) against Table 6.1's printed approximation (d = 8, ρ = 0.1: 4.5 + 4(1 − .032823)/0.9 + .5).
    let a = broadcast::approximation_6_19(8, 0.1).unwrap();
    assert!((a - (4.0 + 8.0 * (1.0 - 0.1 * broadcast::c_d(8).unwrap()) / 1.8 + 0.5)).abs() < 1e-12);
}

/// The inferior sequential scheme's delay bounds the direct schemes in light traffic and tends
/// to d + 1/2.
#[test]
fn inferior_scheme() {
    let limit = broadcast::inferior_scheme_limit(5).unwrap();
    assert!((limit - 31.0 / (25.0 * 32.0)).abs() < 1e-15);
    assert_eq!(broadcast::inferior_scheme_delay(5, 0.0).unwrap(), 5.5);
    assert!(broadcast::inferior_scheme_delay(5, limit / 2.0).unwrap() > 5.5);
    assert!(matches!(
        broadcast::inferior_scheme_delay(5, limit),
        Err(QueueingError::Unstable { .. })
    ));
}

/// The generalised Rule C (7.16) over every cycle with K, L ≤ 10 (notes 002b §3.14): the
/// largest limit is reached exactly at L = 2K, where it is Prop. 7.3's (7.2); below L = 2K
/// the broadcast capacity (7.15) binds, above it the arc feeding B_1.
#[test]
fn generalised_rule_c_is_best_at_l_equal_2k() {
    for d in 2..=12u32 {
        let rule_c = broadcast::indirect_stability_limit(d).unwrap();
        let frac = 1.0 - 0.5f64.powi(d as i32);
        let mut best = (0.0f64, Vec::new());
        for k in 1..=10u32 {
            for l in 1..=10u32 {
                let v = broadcast::generalised_rule_c_limit(d, k, l).unwrap();
                let (kf, lf) = (f64::from(k), f64::from(l));
                let binding = if l <= 2 * k { lf } else { 2.0 * kf };
                assert!(
                    (v - frac * binding / (kf + lf)).abs() < 1e-15,
                    "d {d} K {k} L {l}"
                );
                assert!(v <= rule_c + 1e-15, "d {d} K {k} L {l}");
                if v > best.0 + 1e-12 {
                    best = (v, vec![(k, l)]);
                } else if (v - best.0).abs() <= 1e-12 {
                    best.1.push((k, l));
                }
            }
        }
        assert!(
            (best.0 - rule_c).abs() < 1e-15,
            "d {d}: {} vs {rule_c}",
            best.0
        );
        assert_eq!(
            best.1,
            vec![(1, 2), (2, 4), (3, 6), (4, 8), (5, 10)],
            "d {d}"
        );
    }
    // Rule C itself is (K, L) = (1, 2); the two-slot alternation loses a quarter of it.
    assert_eq!(
        broadcast::generalised_rule_c_limit(8, 1, 2).unwrap(),
        broadcast::indirect_stability_limit(8).unwrap()
    );
    let half = broadcast::generalised_rule_c_limit(8, 1, 1).unwrap();
    assert!((half / broadcast::indirect_stability_limit(8).unwrap() - 0.75).abs() < 1e-15);
    assert_eq!(
        broadcast::generalised_rule_c_limit(8, 0, 2),
        Err(QueueingError::EmptySlotClass { k: 0, l: 2 })
    );
    assert_eq!(
        broadcast::generalised_rule_c_limit(8, 3, 0),
        Err(QueueingError::EmptySlotClass { k: 3, l: 0 })
    );
    assert!(matches!(
        broadcast::generalised_rule_c_limit(1, 1, 2),
        Err(QueueingError::DimensionOutOfRange { .. })
    ));
}

#[test]
fn bad_input_is_a_typed_error() {
    assert_eq!(mdc_sojourn(0, 0.5), Err(QueueingError::NoServers));
    assert!(matches!(
        mdc_sojourn(2, 1.0),
        Err(QueueingError::Unstable { .. })
    ));
    assert!(matches!(
        mdc_sojourn(2, f64::NAN),
        Err(QueueingError::NotFinite { .. })
    ));
    assert!(matches!(
        discrete_md1_delay(1.2),
        Err(QueueingError::Unstable { .. })
    ));
    assert!(matches!(
        synchronised_md1_delay(0.5, 2.0),
        Err(QueueingError::Unstable { .. })
    ));
    assert!(matches!(
        greedy::delay_bounds(Network::Hypercube, 0, 1.0, 0.5),
        Err(QueueingError::DimensionOutOfRange { .. })
    ));
    assert!(matches!(
        greedy::delay_bounds(Network::Hypercube, 4, 2.5, 0.5),
        Err(QueueingError::Unstable { .. })
    ));
    assert!(matches!(
        greedy::delay_bounds(Network::Butterfly, 4, 2.5, 0.5),
        Err(QueueingError::Unstable { .. })
    ));
    assert!(matches!(
        greedy::delay_bounds(Network::Hypercube, 4, 1.0, 1.5),
        Err(QueueingError::ProbabilityOutOfRange { .. })
    ));
    assert!(matches!(
        broadcast::prop_7_4_delay(4, 0.7),
        Err(QueueingError::Unstable { .. })
    ));
    assert!(matches!(
        broadcast::g(4, 5, 1),
        Err(QueueingError::DimensionOutOfRange { .. })
    ));
    assert_eq!(
        broadcast::lemma_7_2_delay(0.1, &[], 1.0),
        Err(QueueingError::BadPaths)
    );
    assert_eq!(
        broadcast::lemma_7_2_delay(0.1, &[2, 0], 1.0),
        Err(QueueingError::BadPaths)
    );
    assert!(
        !QueueingError::Unstable {
            load: 1.2,
            limit: 1.0
        }
        .to_string()
        .is_empty()
    );
}
