//! Properties of the Greenberg–Leiserson closed forms: Lemmas 3–5 on random inputs, the
//! monotonicity of `r` and of the cycle budgets.

use fatnet_queueing::greenberg_leiserson::{
    RandomPhase, binomial_tail, binomial_tail_bound_ln, binomial_tail_ln, congestion_bound,
    congestion_parameter, congestion_probability, lemma4_bound, new_net_wire_congestion,
    new_net_wire_congestion_bound, random_budget, theorem11_bound, try_guess_budget,
    worst_path_sum,
};
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

/// `a ≤ b` up to a relative error of `10^-9` (and an absolute `10^-300` for underflow).
fn le(a: f64, b: f64) -> bool {
    a <= b + 1e-9 * b.abs() + 1e-300
}

proptest! {
    /// Lemma 3: B(s, t, p) ≤ (e·p·t/s)^s, compared in log space so that tiny tails count.
    #[test]
    fn lemma3_bound_dominates_the_tail(s in 1u64..300, t in 0u64..20_000, p in 0.0f64..=1.0) {
        let exact = binomial_tail_ln(s, t, p).unwrap();
        let bound = binomial_tail_bound_ln(s, t, p).unwrap();
        let holds = exact == f64::NEG_INFINITY || exact <= bound + 1e-9 * bound.abs().max(1.0);
        prop_assert!(holds, "ln B = {}, ln bound = {}", exact, bound);
    }

    /// B(s, t, p) + B(t − s + 1, t, 1 − p) = 1 (at least s successes, or at least t − s + 1
    /// failures), up to t = 10^6.
    #[test]
    fn tail_and_complementary_tail_sum_to_one(
        t in 1u64..1_000_000,
        frac in 0.0f64..=1.0,
        p in 0.0f64..=1.0,
    ) {
        let s = ((t as f64 * frac) as u64).clamp(1, t);
        let a = binomial_tail(s, t, p).unwrap();
        let b = binomial_tail(t - s + 1, t, 1.0 - p).unwrap();
        let sum = a + b;
        prop_assert!((sum - 1.0).abs() < 1e-9, "B({}, {}, {}) = {}, complement {}", s, t, p, a, b);
    }

    /// The tail shrinks as the threshold rises and grows with p.
    #[test]
    fn tail_is_monotone(s in 0u64..500, t in 0u64..5_000, p in 0.0f64..=1.0, q in 0.0f64..=1.0) {
        let (lo, hi) = if p <= q { (p, q) } else { (q, p) };
        prop_assert!(le(binomial_tail(s + 1, t, p).unwrap(), binomial_tail(s, t, p).unwrap()));
        prop_assert!(le(binomial_tail(s, t, lo).unwrap(), binomial_tail(s, t, hi).unwrap()));
    }

    /// Lemma 4 on random finite distributions on [0, b]: Pr{X ≤ w} ≤ 1 − (E[X] − w)/(b − w).
    #[test]
    fn lemma4_holds_on_finite_distributions(
        atoms in prop::collection::vec((0.0f64..=1.0, 1u32..100), 1..20),
        b in 1e-3f64..1e6,
        gap in 1e-9f64..=2.0,
    ) {
        let total: f64 = atoms.iter().map(|&(_, wt)| f64::from(wt)).sum();
        let mean = (atoms.iter().map(|&(x, wt)| x * b * f64::from(wt)).sum::<f64>() / total).min(b);
        let w = mean - gap * b;
        let below: f64 = atoms
            .iter()
            .filter(|&&(x, _)| x * b <= w)
            .map(|&(_, wt)| f64::from(wt))
            .sum();
        let bound = lemma4_bound(mean, b, w).unwrap();
        prop_assert!((0.0..1.0).contains(&bound) || bound == 0.0);
        prop_assert!(below / total <= bound + 1e-12, "Pr = {}, bound = {}", below / total, bound);
    }

    /// Lemma 5: the exact conditional congestion probability B(cap, load − 1, p) is at most
    /// (e·p·λ)^cap whenever load ≤ λ·cap.
    #[test]
    fn lemma5_exact_is_below_the_bound(
        load in 1u64..5_000,
        cap in 1u64..64,
        p in 0.0f64..=1.0,
        slack in 0.0f64..2.0,
    ) {
        let lambda = load as f64 / cap as f64 * (1.0 + slack);
        let exact = congestion_probability(load, cap, p).unwrap();
        let bound = congestion_bound(p, lambda, cap).unwrap();
        prop_assert!(le(exact, bound), "exact = {}, bound = {}", exact, bound);
    }

    /// Figure 8: the wire congestion B(1, load, p/cap) is at most e·p·λ when load ≤ λ·cap.
    #[test]
    fn new_net_wire_congestion_is_below_the_bound(
        load in 0u64..100_000,
        cap in 1u64..1_000,
        p in 0.0f64..=1.0,
        slack in 0.0f64..2.0,
    ) {
        let lambda = load as f64 / cap as f64 * (1.0 + slack);
        let exact = new_net_wire_congestion(load, cap, p).unwrap();
        prop_assert!(le(exact, new_net_wire_congestion_bound(p, lambda).unwrap()));
    }

    /// Raising any capacity never raises r; r satisfies its definition and exceeds e.
    #[test]
    fn r_is_monotone_in_the_capacities(
        caps in prop::collection::vec(1u64..64, 1..16),
        at in any::<prop::sample::Index>(),
        raise in 1u64..64,
    ) {
        let r = congestion_parameter(&caps).unwrap();
        prop_assert!(r > std::f64::consts::E);
        prop_assert!(worst_path_sum(&caps, r).unwrap() <= 0.5);
        let mut raised = caps.clone();
        raised[at.index(caps.len())] += raise;
        let r_raised = congestion_parameter(&raised).unwrap();
        prop_assert!(r_raised <= r * (1.0 + 1e-11), "r = {}, raised r = {}", r, r_raised);
    }

    /// TRY-GUESS's budget is non-decreasing in λ_guess.
    #[test]
    fn try_guess_budget_is_monotone(
        a in 0.0f64..1e6,
        b in 0.0f64..1e6,
        k1 in 0.1f64..100.0,
        k2 in 0.1f64..100.0,
        lg_n in 0.0f64..30.0,
    ) {
        let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
        let small = try_guess_budget(lo, k1, k2, lg_n).unwrap();
        let large = try_guess_budget(hi, k1, k2, lg_n).unwrap();
        prop_assert!(small <= large, "{} cycles at λ = {}, {} at {}", small, lo, large, hi);
    }

    /// RANDOM's budget is non-decreasing in λ(M); its last guess is the first one ≥ λ(M) and
    /// the phases come in order.
    #[test]
    fn random_budget_is_monotone(
        a in 0.0f64..1e6,
        b in 0.0f64..1e6,
        k1 in 0.1f64..100.0,
        k2 in 0.1f64..100.0,
        n in 1u64..(1 << 30),
    ) {
        let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
        let small = random_budget(lo, k1, k2, n).unwrap();
        let large = random_budget(hi, k1, k2, n).unwrap();
        prop_assert!(small.total <= large.total);
        let sum: u64 = large.guesses.iter().map(|g| g.cycles).sum();
        prop_assert_eq!(large.total, 1 + sum);
        if let Some((last, rest)) = large.guesses.split_last() {
            prop_assert!(last.guess >= hi);
            prop_assert!(rest.iter().all(|g| g.guess < hi));
            let ordered = large.guesses.windows(2).all(|w| {
                w[0].phase == RandomPhase::Squaring || w[1].phase == RandomPhase::Doubling
            });
            prop_assert!(ordered);
        } else {
            prop_assert!(hi <= 1.0);
        }
    }

    /// Theorem 11's total is non-decreasing in λ(M) and its threshold is the smallest power of
    /// 2 above e·2^{(k+2)/a}·λ.
    #[test]
    fn theorem11_is_monotone(
        a in 0.0f64..1e9,
        b in 0.0f64..1e9,
        cap_a in 0.5f64..8.0,
        k in 0u32..4,
        n in 1u64..(1 << 30),
    ) {
        let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
        let small = theorem11_bound(lo, cap_a, k, n).unwrap();
        let large = theorem11_bound(hi, cap_a, k, n).unwrap();
        prop_assert!(small.total_cycles <= large.total_cycles);
        let target = std::f64::consts::E * ((f64::from(k) + 2.0) / cap_a).exp2() * hi;
        prop_assert!(large.threshold.is_power_of_two());
        prop_assert!(large.threshold as f64 > target);
        prop_assert!(large.threshold == 1 || (large.threshold / 2) as f64 <= target);
    }
}

/// Lemma 5's exact formula is the conditional probability it claims: simulate the other
/// `load − 1` messages of a channel joining a `p`-subset and count `≥ cap` of them.
#[test]
fn lemma5_exact_matches_monte_carlo() {
    let mut rng = Pcg64::seed_from_u64(0x5eed_0005);
    for &(load, cap, p) in &[(30u64, 3u64, 0.1f64), (12, 1, 0.05), (200, 8, 0.03)] {
        let trials = 200_000u32;
        let congested = (0..trials)
            .filter(|_| (1..load).filter(|_| rng.random_bool(p)).count() as u64 >= cap)
            .count();
        let estimate = congested as f64 / f64::from(trials);
        let exact = congestion_probability(load, cap, p).unwrap();
        let sigma = (exact * (1.0 - exact) / f64::from(trials)).sqrt();
        assert!(
            (estimate - exact).abs() <= 5.0 * sigma + 1e-4,
            "load {load}, cap {cap}, p {p}: Monte Carlo {estimate}, exact {exact}"
        );
    }
}
