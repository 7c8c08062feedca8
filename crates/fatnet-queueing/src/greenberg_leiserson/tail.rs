//! The binomial tail and the probability lemmas built on it (Lemmas 3, 4, 5 and the Figure 8
//! wire bound).

use std::f64::consts::{E, PI};

use crate::QueueingError;
use crate::error::{Parameter, finite, non_negative, probability};

/// Terms of the tail sum are dropped once everything still to come is below this fraction of
/// the sum so far (well under the `f64` rounding unit).
const TAIL_EPS: f64 = 1.0 / (1u64 << 60) as f64;

/// The binomial tail `B(s, t, p) = Σ_{k=s..t} C(t, k) p^k (1 − p)^{t−k}`: the probability of
/// at least `s` successes in `t` independent trials of success probability `p` (paper §4,
/// before Lemma 3).
///
/// `B(0, t, p) = 1` and `B(s, t, p) = 0` for `s > t`. Computed as `exp` of
/// [`binomial_tail_ln`], so tails far below `f64::MIN_POSITIVE` come out as 0; use
/// [`binomial_tail_ln`] to compare such tails.
///
/// # Errors
///
/// [`QueueingError::ProbabilityOutOfRange`] if `p` is not in `[0, 1]`.
pub fn binomial_tail(s: u64, t: u64, p: f64) -> Result<f64, QueueingError> {
    Ok(binomial_tail_ln(s, t, p)?.exp())
}

/// `ln B(s, t, p)`, the natural logarithm of [`binomial_tail`] (`−∞` when the tail is 0).
///
/// Method, stable for `t` up to 10^6 and beyond, without a log-gamma function: the largest
/// term of the tail, at `a = max(s, ⌊(t + 1)p⌋)`, is evaluated in log space from Stirling's
/// series written as a relative entropy (no cancellation between `ln t!` and `ln a!`); the
/// other terms come from the ratio recurrence `T(k+1)/T(k) = (t−k)/(k+1) · p/(1−p)` relative to
/// it (all ≤ 1, so nothing overflows), summed outward from `a` until the geometric bound on the
/// rest is negligible. The work is `O(min(t − s, √(t·p(1−p)) + 1))` terms; the relative error is
/// about `10^-10` at `t = 10^6`.
///
/// # Errors
///
/// [`QueueingError::ProbabilityOutOfRange`] if `p` is not in `[0, 1]`.
pub fn binomial_tail_ln(s: u64, t: u64, p: f64) -> Result<f64, QueueingError> {
    let p = probability(Parameter::P, p)?;
    if s == 0 {
        return Ok(0.0);
    }
    if s > t || p == 0.0 {
        return Ok(f64::NEG_INFINITY);
    }
    if p == 1.0 {
        return Ok(0.0);
    }
    let mode = ((((t as f64) + 1.0) * p).floor() as u64).min(t);
    let anchor = s.max(mode);
    let odds = p / (1.0 - p);
    // Relative to the anchor term, which is the largest of the tail: every term is ≤ 1, and
    // the ratios fall monotonically going away from the mode, so after a term `T` reached with
    // ratio `ρ < 1` the rest is at most `T·ρ/(1 − ρ)`.
    let mut sum = 1.0;
    let mut term = 1.0;
    let mut k = anchor;
    while k < t {
        let ratio = (t - k) as f64 / (k + 1) as f64 * odds;
        term *= ratio;
        k += 1;
        sum += term;
        if negligible(term, ratio, sum) {
            break;
        }
    }
    term = 1.0;
    k = anchor;
    while k > s {
        let ratio = k as f64 / ((t - k + 1) as f64 * odds);
        term *= ratio;
        k -= 1;
        sum += term;
        if negligible(term, ratio, sum) {
            break;
        }
    }
    Ok((ln_binomial_term(t, anchor, p) + sum.ln()).min(0.0))
}

/// Whether the terms after `term` (each at most `ratio` times the one before) cannot change
/// `sum`.
fn negligible(term: f64, ratio: f64, sum: f64) -> bool {
    term == 0.0 || (ratio < 1.0 && term * ratio <= TAIL_EPS * sum * (1.0 - ratio))
}

/// `ln(C(t, k) p^k (1 − p)^{t−k})` for `0 < p < 1`, `k ≤ t`.
///
/// With `x = k/t`: `½ ln(t / (2π k (t−k))) − k ln(x/p) − (t−k) ln((1−x)/(1−p)) + δ(t) − δ(k) −
/// δ(t−k)`, where `δ` is the remainder of Stirling's formula.
fn ln_binomial_term(t: u64, k: u64, p: f64) -> f64 {
    if k == 0 {
        return t as f64 * (-p).ln_1p();
    }
    if k == t {
        return t as f64 * p.ln();
    }
    let (tf, kf, rf) = (t as f64, k as f64, (t - k) as f64);
    let x = kf / tf;
    let ratio = x / p;
    let ln_x_over_p = if ratio.is_finite() {
        ratio.ln()
    } else {
        x.ln() - p.ln()
    };
    0.5 * (tf / (2.0 * PI * kf * rf)).ln() - kf * ln_x_over_p - rf * ((-x).ln_1p() - (-p).ln_1p())
        + stirling_remainder(t)
        - stirling_remainder(k)
        - stirling_remainder(t - k)
}

/// `δ(n) = ln n! − (n ln n − n + ½ ln(2πn))` for `n ≥ 1`: summed exactly below 16, from the
/// Stirling series (five terms, error below `10^-16` from 16 on) above.
fn stirling_remainder(n: u64) -> f64 {
    let nf = n as f64;
    if n < 16 {
        let ln_factorial: f64 = (2..=n).map(|i| (i as f64).ln()).sum();
        return ln_factorial - (nf * nf.ln() - nf + 0.5 * (2.0 * PI * nf).ln());
    }
    let inv = 1.0 / nf;
    let inv2 = inv * inv;
    inv * (1.0 / 12.0
        - inv2 * (1.0 / 360.0 - inv2 * (1.0 / 1260.0 - inv2 * (1.0 / 1680.0 - inv2 / 1188.0))))
}

/// Lemma 3: `B(s, t, p) ≤ (e·p·t/s)^s` for `s ≥ 1`.
///
/// The paper states it without proof; it is the union bound `B(s, t, p) ≤ C(t, s) p^s` with
/// `C(t, s) ≤ (e·t/s)^s`, so it holds for every `t` and `p`. The value may exceed 1 (then the
/// bound is vacuous) and overflows to `+∞` for large `s` with `e·p·t > s`.
///
/// # Errors
///
/// [`QueueingError::ZeroThreshold`] if `s = 0`; [`QueueingError::ProbabilityOutOfRange`] if `p`
/// is not in `[0, 1]`.
pub fn binomial_tail_bound(s: u64, t: u64, p: f64) -> Result<f64, QueueingError> {
    Ok(binomial_tail_bound_ln(s, t, p)?.exp())
}

/// `ln` of Lemma 3's bound: `s·(1 + ln p + ln t − ln s)` (`−∞` when `p = 0` or `t = 0`).
///
/// # Errors
///
/// As [`binomial_tail_bound`].
pub fn binomial_tail_bound_ln(s: u64, t: u64, p: f64) -> Result<f64, QueueingError> {
    if s == 0 {
        return Err(QueueingError::ZeroThreshold);
    }
    let p = probability(Parameter::P, p)?;
    if p == 0.0 || t == 0 {
        return Ok(f64::NEG_INFINITY);
    }
    let sf = s as f64;
    Ok(sf * (1.0 + p.ln() + (t as f64).ln() - sf.ln()))
}

/// Lemma 4: if `X ≤ b` has mean `E[X] = mean` and `w < mean`, then
/// `Pr{X ≤ w} ≤ 1 − (mean − w)/(b − w)`.
///
/// The paper states it without proof: `mean ≤ w·Pr{X ≤ w} + b·(1 − Pr{X ≤ w})`. Lemma 7 applies
/// it with `b = cap(c)` and `w = cap(c)/(8r)` to the number of messages a channel delivers in a
/// cycle. Computed as the equal `(b − mean)/(b − w)`, which is in `[0, 1)`.
///
/// # Errors
///
/// [`QueueingError::NotFinite`] if an argument is NaN or infinite;
/// [`QueueingError::Lemma4Order`] unless `w < mean ≤ b`.
pub fn lemma4_bound(mean: f64, b: f64, w: f64) -> Result<f64, QueueingError> {
    let mean = finite(Parameter::Mean, mean)?;
    let b = finite(Parameter::UpperBound, b)?;
    let w = finite(Parameter::Threshold, w)?;
    if !(w < mean && mean <= b) {
        return Err(QueueingError::Lemma4Order { w, mean, b });
    }
    // Halving first keeps the differences finite for arguments near ±f64::MAX.
    Ok((b / 2.0 - mean / 2.0) / (b / 2.0 - w / 2.0))
}

/// Lemma 5, exact: the probability that channel `c` is congested by a `p`-subset `M′` of `M`,
/// *given* that a message `m` crossing `c` is in `M′`: `B(cap, load − 1, p)`, where `load =
/// load(M, c)` counts `m`.
///
/// Congestion means more than `cap(c)` messages of `M′` on `c`, that is at least `cap(c)` of the
/// other `load − 1`, each present independently with probability `p` (note §3, row L5). The
/// unconditional probability `B(cap + 1, load, p)` is smaller (note §6), which is why Theorem 11
/// can reuse the bound without the condition.
///
/// # Errors
///
/// [`QueueingError::ZeroLoad`] if `load = 0` (the message itself crosses `c`);
/// [`QueueingError::ZeroCapacity`] if `cap = 0`; [`QueueingError::ProbabilityOutOfRange`] if `p`
/// is not in `[0, 1]`.
pub fn congestion_probability(load: u64, cap: u64, p: f64) -> Result<f64, QueueingError> {
    if load == 0 {
        return Err(QueueingError::ZeroLoad);
    }
    if cap == 0 {
        return Err(QueueingError::ZeroCapacity);
    }
    binomial_tail(cap, load - 1, p)
}

/// Lemma 5's bound: `Pr[c congested by M′ | m ∈ M′] ≤ (e·p·λ(M))^{cap(c)}`.
///
/// It follows from Lemma 3 with `t = load − 1 < λ(M)·cap(c)`, so it bounds
/// [`congestion_probability`] whenever `load ≤ λ·cap`. The value may exceed 1 (vacuous).
///
/// # Errors
///
/// [`QueueingError::ProbabilityOutOfRange`] if `p` is not in `[0, 1]`;
/// [`QueueingError::NotFinite`] or [`QueueingError::Negative`] for a bad `lambda`;
/// [`QueueingError::ZeroCapacity`] if `cap = 0`.
pub fn congestion_bound(p: f64, lambda: f64, cap: u64) -> Result<f64, QueueingError> {
    let p = probability(Parameter::P, p)?;
    let lambda = non_negative(Parameter::Lambda, lambda)?;
    if cap == 0 {
        return Err(QueueingError::ZeroCapacity);
    }
    Ok((E * p * lambda).powf(cap as f64))
}

/// The Figure 8 network (§6, "another universal network"): the probability that a given wire
/// of channel `c` is congested, as the paper writes it, `B(1, load(M, c), p/cap(c)) =
/// 1 − (1 − p/cap)^load`.
///
/// Each message of the `p`-subset picks a uniform wire of `c`, so it lands on the given wire
/// with probability `p/cap`. Conditioned on a message `m` using the wire, the exact
/// probability is `B(1, load − 1, p/cap)`, which is smaller: the paper's expression is an upper
/// bound, kept here as printed.
///
/// # Errors
///
/// [`QueueingError::ZeroCapacity`] if `cap = 0`; [`QueueingError::ProbabilityOutOfRange`] if `p`
/// is not in `[0, 1]`.
pub fn new_net_wire_congestion(load: u64, cap: u64, p: f64) -> Result<f64, QueueingError> {
    let p = probability(Parameter::P, p)?;
    if cap == 0 {
        return Err(QueueingError::ZeroCapacity);
    }
    let per_wire = p / cap as f64;
    Ok(-(load as f64 * (-per_wire).ln_1p()).exp_m1())
}

/// The Figure 8 network's wire congestion bound `e·p·λ(M)` (§6): by Lemma 3,
/// `B(1, load, p/cap) ≤ e·(p/cap)·load ≤ e·p·λ(M)`. With `p = 1/(rλ)` and `r = 4e·lg n`
/// (capacity-1 wires) Lemma 6 holds with `r = Θ(lg n)`.
///
/// # Errors
///
/// [`QueueingError::ProbabilityOutOfRange`] if `p` is not in `[0, 1]`;
/// [`QueueingError::NotFinite`] or [`QueueingError::Negative`] for a bad `lambda`.
pub fn new_net_wire_congestion_bound(p: f64, lambda: f64) -> Result<f64, QueueingError> {
    let p = probability(Parameter::P, p)?;
    let lambda = non_negative(Parameter::Lambda, lambda)?;
    Ok(E * p * lambda)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `C(t, k)` exactly, for small `t`.
    fn choose(t: u64, k: u64) -> u128 {
        (0..k).fold(1u128, |c, i| c * u128::from(t - i) / u128::from(i + 1))
    }

    /// `B(s, t, p)` by direct summation in `f64`.
    fn direct(s: u64, t: u64, p: f64) -> f64 {
        (s..=t)
            .map(|k| choose(t, k) as f64 * p.powi(k as i32) * (1.0 - p).powi((t - k) as i32))
            .sum()
    }

    fn close(a: f64, b: f64, rel: f64) -> bool {
        (a - b).abs() <= rel * a.abs().max(b.abs()) || (a == 0.0 && b == 0.0)
    }

    #[test]
    fn tail_at_one_half_is_an_exact_dyadic_fraction() {
        // B(3, 5, 1/2) = (10 + 5 + 1)/32; B(4, 6, 1/2) = (15 + 6 + 1)/64; B(1, 3, 1/2) = 7/8.
        assert!(close(binomial_tail(3, 5, 0.5).unwrap(), 0.5, 1e-14));
        assert!(close(binomial_tail(4, 6, 0.5).unwrap(), 22.0 / 64.0, 1e-14));
        assert!(close(binomial_tail(1, 3, 0.5).unwrap(), 7.0 / 8.0, 1e-14));
        assert!(close(
            binomial_tail(10, 10, 0.5).unwrap(),
            1.0 / 1024.0,
            1e-14
        ));
        // B(2, 4, 1/3) = (C(4,2)·4 + C(4,3)·2 + 1)/81 = 33/81.
        assert!(close(
            binomial_tail(2, 4, 1.0 / 3.0).unwrap(),
            33.0 / 81.0,
            1e-14
        ));
    }

    #[test]
    fn tail_matches_direct_summation_for_small_t() {
        for t in 0..=40u64 {
            for s in 0..=t + 1 {
                for &p in &[0.0, 1e-6, 0.01, 0.1, 0.3, 0.5, 0.77, 0.99, 1.0] {
                    let got = binomial_tail(s, t, p).unwrap();
                    let want = if s == 0 { 1.0 } else { direct(s, t, p) };
                    assert!(
                        close(got, want, 1e-12),
                        "B({s}, {t}, {p}) = {got}, want {want}"
                    );
                }
            }
        }
    }

    #[test]
    fn tail_edge_cases() {
        assert_eq!(binomial_tail(0, 0, 0.3), Ok(1.0));
        assert_eq!(binomial_tail(1, 0, 0.3), Ok(0.0));
        assert_eq!(binomial_tail(5, 4, 1.0), Ok(0.0));
        assert_eq!(binomial_tail(4, 4, 1.0), Ok(1.0));
        assert_eq!(binomial_tail(1, 100, 0.0), Ok(0.0));
        assert_eq!(binomial_tail_ln(1, 100, 0.0), Ok(f64::NEG_INFINITY));
        assert!(matches!(
            binomial_tail(1, 1, -0.1),
            Err(QueueingError::ProbabilityOutOfRange { .. })
        ));
        assert!(matches!(
            binomial_tail(1, 1, f64::NAN),
            Err(QueueingError::ProbabilityOutOfRange { .. })
        ));
    }

    #[test]
    fn tail_at_a_million_trials() {
        // B(t/2, t, 1/2) = 1/2 + C(t, t/2)/2^{t+1}, and
        // C(2m, m)/4^m = (1 − 1/(8m) + 1/(128m²))/√(πm) + O(m^-3.5).
        let t = 1_000_000u64;
        let m = (t / 2) as f64;
        let central = (1.0 - 1.0 / (8.0 * m) + 1.0 / (128.0 * m * m)) / (PI * m).sqrt();
        let want = 0.5 + central / 2.0;
        assert!(close(binomial_tail(t / 2, t, 0.5).unwrap(), want, 1e-10));
        // Complement: B(s, t, p) + B(t − s + 1, t, 1 − p) = 1.
        for &(s, p) in &[
            (1_000u64, 0.001),
            (500, 0.001),
            (300_000, 0.3),
            (299_000, 0.3),
        ] {
            let a = binomial_tail(s, t, p).unwrap();
            let b = binomial_tail(t - s + 1, t, 1.0 - p).unwrap();
            assert!(
                (a + b - 1.0).abs() < 1e-9,
                "B({s}, {t}, {p}) = {a}, complement {b}"
            );
        }
    }

    #[test]
    fn tail_against_high_precision_reference_values() {
        // (s, t, p, B(s, t, p)) from a 50-digit summation (mpmath, rounded to f64); we ask for a
        // relative error ≤ 10^-9.
        let reference = [
            (2000u64, 1_000_000u64, 1e-3, 1.853_653_994_401_347_8e-170),
            (1000, 1_000_000, 1e-3, 0.504_211_555_166_992),
            (1100, 1_000_000, 1e-3, 9.574_669_700_285_397e-4),
            (300_000, 1_000_000, 0.3, 0.500_377_244_087_967_1),
            (301_000, 1_000_000, 0.3, 0.014_608_639_268_020_396),
            (299_000, 1_000_000, 0.3, 0.985_512_230_190_749_4),
            (500_000, 1_000_000, 0.5, 0.500_398_942_180_665_9),
            (50, 100_000, 1e-4, 1.840_226_421_433_795_4e-19),
            (10, 1_000_000, 1e-9, 2.753_103_991_596_951_5e-37),
            (999_990, 1_000_000, 0.999_999, 0.999_999_989_952_69),
        ];
        for (s, t, p, want) in reference {
            let got = binomial_tail(s, t, p).unwrap();
            assert!(
                close(got, want, 1e-9),
                "B({s}, {t}, {p}) = {got}, want {want}"
            );
        }
        // ln B(2000, 10^6, 10^-3) = −390.822306985797...
        let ln_b = binomial_tail_ln(2000, 1_000_000, 1e-3).unwrap();
        assert!((ln_b + 390.822_306_985_797_49).abs() < 1e-8, "{ln_b}");
    }

    #[test]
    fn stirling_remainder_is_continuous_at_the_switch() {
        // ln 16! summed directly against the series value at 16.
        let ln_16_factorial: f64 = (2..=16u32).map(|i| f64::from(i).ln()).sum();
        let n = 16.0f64;
        let series = ln_16_factorial - (n * n.ln() - n + 0.5 * (2.0 * PI * n).ln());
        assert!((stirling_remainder(16) - series).abs() < 1e-14);
        assert!((stirling_remainder(1) - (1.0 - 0.5 * (2.0 * PI).ln())).abs() < 1e-15);
    }

    #[test]
    fn lemma3_bound_values() {
        // (e·p·t/s)^s: s = 2, t = 10, p = 0.1 → (e/2)^2.
        assert!(close(
            binomial_tail_bound(2, 10, 0.1).unwrap(),
            (E / 2.0).powi(2),
            1e-14
        ));
        assert_eq!(binomial_tail_bound(3, 0, 0.5), Ok(0.0));
        assert_eq!(
            binomial_tail_bound(0, 5, 0.5),
            Err(QueueingError::ZeroThreshold)
        );
        assert!(binomial_tail(2, 10, 0.1).unwrap() <= binomial_tail_bound(2, 10, 0.1).unwrap());
    }

    #[test]
    fn lemma4_values_and_validation() {
        // X uniform on {0, 10}: mean 5; Pr{X ≤ 1} = 1/2 ≤ 1 − 4/9 = 5/9.
        assert!(close(
            lemma4_bound(5.0, 10.0, 1.0).unwrap(),
            5.0 / 9.0,
            1e-15
        ));
        assert_eq!(lemma4_bound(10.0, 10.0, 3.0), Ok(0.0));
        assert_eq!(
            lemma4_bound(5.0, 10.0, 5.0),
            Err(QueueingError::Lemma4Order {
                w: 5.0,
                mean: 5.0,
                b: 10.0
            })
        );
        assert!(matches!(
            lemma4_bound(11.0, 10.0, 1.0),
            Err(QueueingError::Lemma4Order { .. })
        ));
        assert!(matches!(
            lemma4_bound(f64::NAN, 10.0, 1.0),
            Err(QueueingError::NotFinite {
                parameter: Parameter::Mean,
                ..
            })
        ));
        assert!(
            lemma4_bound(f64::MAX, f64::MAX, -f64::MAX)
                .unwrap()
                .is_finite()
        );
    }

    #[test]
    fn lemma5_exact_and_bound() {
        // load 3, cap 1: congested iff at least one of the 2 others is sent: 1 − (1−p)^2.
        let p = 0.1;
        assert!(close(
            congestion_probability(3, 1, p).unwrap(),
            1.0 - 0.81,
            1e-14
        ));
        // load 1: the message is alone.
        assert_eq!(congestion_probability(1, 1, 0.9), Ok(0.0));
        // load 5, cap 2: at least 2 of 4: 1 − 0.9^4 − 4·0.1·0.9^3.
        let want = 1.0 - 0.9f64.powi(4) - 4.0 * 0.1 * 0.9f64.powi(3);
        assert!(close(
            congestion_probability(5, 2, 0.1).unwrap(),
            want,
            1e-13
        ));
        assert!(close(
            congestion_bound(0.1, 2.5, 2).unwrap(),
            (E * 0.25).powi(2),
            1e-14
        ));
        assert_eq!(
            congestion_probability(0, 1, 0.5),
            Err(QueueingError::ZeroLoad)
        );
        assert_eq!(
            congestion_probability(3, 0, 0.5),
            Err(QueueingError::ZeroCapacity)
        );
        assert_eq!(
            congestion_bound(0.5, 1.0, 0),
            Err(QueueingError::ZeroCapacity)
        );
        assert!(matches!(
            congestion_bound(0.5, -1.0, 1),
            Err(QueueingError::Negative {
                parameter: Parameter::Lambda,
                ..
            })
        ));
    }

    #[test]
    fn new_net_wire_values() {
        // load 4, cap 2, p = 1/2: 1 − (3/4)^4.
        let got = new_net_wire_congestion(4, 2, 0.5).unwrap();
        assert!(close(got, 1.0 - 0.75f64.powi(4), 1e-14));
        assert!(close(got, binomial_tail(1, 4, 0.25).unwrap(), 1e-14));
        assert_eq!(new_net_wire_congestion(0, 2, 0.5), Ok(0.0));
        assert!(close(
            new_net_wire_congestion_bound(0.25, 2.0).unwrap(),
            E * 0.5,
            1e-15
        ));
        assert!(got <= new_net_wire_congestion_bound(0.5, 2.0).unwrap());
        assert_eq!(
            new_net_wire_congestion(4, 0, 0.5),
            Err(QueueingError::ZeroCapacity)
        );
    }
}
