//! Student's t critical values, for the confidence intervals of every simulator and of the
//! reproduction runner (one implementation, so that a batch-means interval and a trial-runner
//! interval at the same level use the same number).
//!
//! ```
//! use fatnet_queueing::stats::student_t;
//!
//! let t = student_t(9, 0.95).unwrap(); // the 95 % interval of 10 samples
//! assert!((t - 2.262_157_162_798_2).abs() < 1e-12);
//! assert_eq!(student_t(0, 0.95), None);
//! ```

use std::f64::consts::PI;

/// The half-width `t · s / √B` of the confidence interval at `level` for the mean of the
/// batch means `means` (NaN entries, empty batches, are left out; `s` is their sample
/// standard deviation, `t` Student's critical value with `B − 1` degrees of freedom). NaN
/// below two finite batch means.
///
/// **Assumes the batch means are independent.** They are not when a batch spans less time
/// than the system's memory, and the interval is then too narrow. Measured on 2026-11-30
/// against the spread of independent runs' means (`fatnet simulate … --json`, seeds 1 to
/// `n`; docs/bench/reproduce.md, session 21), with 20 batches:
///
/// | run | batch length | spread / batch-means SE | nominal 99 % covered |
/// |---|---|---|---|
/// | slotted greedy, 10-cube, ρ = 0.9, 10,000 slots, n = 100 | 450 slots | 1.32 ± 0.09 | 96 % |
/// | slotted greedy, 10-cube, ρ = 0.9, 20,000 slots, n = 50 | 900 slots | 1.27 ± 0.13 | 96 % |
/// | the same with 5 batches, n = 60 | 3,600 slots | 1.18 ± 0.11 | 98 % |
/// | slotted greedy, 8-cube, ρ = 0.9, 10,000 slots, n = 60 | 450 slots | 1.29 ± 0.12 | 95 % |
/// | continuous greedy, 10-cube, ρ = 0.8, 2,930 time units, n = 80 | 132 time units | 1.22 ± 0.10 | 96 % |
/// | slotted greedy, 6-cube, ρ = 0.5, 20,000 slots, n = 60 | 900 slots | 1.07 ± 0.10 | 100 % |
/// | slotted butterfly, d = 6, ρ = 0.8, 46,875 slots, n = 60 | 2,100 slots | 0.83 ± 0.08 | 100 % |
///
/// (± one standard error of the ratio.) Near saturation a nominal 99 % interval covers
/// about 95 %. Longer batches helped little at ρ = 0.9 (1.27 with 900 slots, 1.18 with
/// 3,600), so there the correlation reaches beyond thousands of slots. Not yet corrected: a
/// correction (batches sized in time, or a correlation test that merges batches) changes the
/// intervals of every table that uses one long run.
///
/// ```
/// use fatnet_queueing::stats::batch_means_half_width;
///
/// let h = batch_means_half_width(&[1.0, 2.0, 3.0, f64::NAN], 0.95);
/// assert!((h - 4.302_652_729_749_46 * (1.0f64 / 3.0).sqrt()).abs() < 1e-12);
/// assert!(batch_means_half_width(&[1.0], 0.95).is_nan());
/// ```
pub fn batch_means_half_width(means: &[f64], level: f64) -> f64 {
    let finite: Vec<f64> = means.iter().copied().filter(|m| m.is_finite()).collect();
    let b = finite.len();
    if b < 2 {
        return f64::NAN;
    }
    let bf = b as f64;
    let mean = finite.iter().sum::<f64>() / bf;
    let var = finite.iter().map(|m| (m - mean).powi(2)).sum::<f64>() / (bf - 1.0);
    student_t(b as u64 - 1, level).unwrap_or(f64::NAN) * (var / bf).sqrt()
}

/// The least-squares slope of `y` against `x` over `points` `(x, y)`; NaN below two points
/// or when every `x` is equal. Simulators report the slope of their batch means against time:
/// about 0 in steady state, positive when the delay grows.
///
/// ```
/// use fatnet_queueing::stats::least_squares_slope;
/// assert_eq!(least_squares_slope(&[(0.0, 1.0), (1.0, 3.0), (2.0, 5.0)]), 2.0);
/// assert!(least_squares_slope(&[(0.0, 1.0)]).is_nan());
/// ```
pub fn least_squares_slope(points: &[(f64, f64)]) -> f64 {
    if points.len() < 2 {
        return f64::NAN;
    }
    let n = points.len() as f64;
    let mx = points.iter().map(|p| p.0).sum::<f64>() / n;
    let my = points.iter().map(|p| p.1).sum::<f64>() / n;
    let sxx: f64 = points.iter().map(|p| (p.0 - mx).powi(2)).sum();
    let sxy: f64 = points.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    sxy / sxx
}

/// The 97.5 % quantile of the standard normal distribution.
const Z_975: f64 = 1.959_963_984_540_054;

/// The 99.5 % quantile of the standard normal distribution.
const Z_995: f64 = 2.575_829_303_548_900_4;

/// Above this many degrees of freedom the Cornish–Fisher expansion replaces bisection.
const EXACT_MAX_DF: u64 = 1000;

/// The two-sided critical value `t` with `P(|T| < t) = level` for Student's t with `df ≥ 1`
/// degrees of freedom, `0 < level < 1`:
///
/// - for `df ≤ 1000`, by bisection on the closed forms of `P(|T| < t)` (Abramowitz & Stegun
///   26.7.3 for odd `df`, 26.7.4 for even), to full double precision;
/// - above, by the Cornish–Fisher expansion around the normal quantile to order `df⁻⁴`
///   (A&S 26.7.5), whose truncation error there is below `1e−13`; the normal quantile is
///   exact to double precision for the 95 % and 99 % levels and otherwise Acklam's rational
///   approximation (relative error below `1.2e−9`).
///
/// Computed here rather than with a statistics crate (statrs would bring a linear-algebra
/// dependency tree for one number). `None` for `df = 0` or a level outside `(0, 1)`.
pub fn student_t(df: u64, level: f64) -> Option<f64> {
    if df == 0 || !(level > 0.0 && level < 1.0) {
        return None;
    }
    if df > EXACT_MAX_DF {
        let x = if level == 0.95 {
            Z_975
        } else if level == 0.99 {
            Z_995
        } else {
            normal_quantile(0.5 + level / 2.0)
        };
        let nu = df as f64;
        let x2 = x * x;
        let g1 = x * (x2 + 1.0) / 4.0;
        let g2 = x * ((5.0 * x2 + 16.0) * x2 + 3.0) / 96.0;
        let g3 = x * (((3.0 * x2 + 19.0) * x2 + 17.0) * x2 - 15.0) / 384.0;
        let g4 = x * ((((79.0 * x2 + 776.0) * x2 + 1482.0) * x2 - 1920.0) * x2 - 945.0) / 92160.0;
        return Some(x + (g1 + (g2 + (g3 + g4 / nu) / nu) / nu) / nu);
    }
    let mut high = 1.0;
    while two_sided(high, df) < level && high < 1e300 {
        high *= 2.0;
    }
    let mut low = 0.0;
    for _ in 0..2000 {
        let mid = 0.5 * (low + high);
        if mid <= low || mid >= high {
            break;
        }
        if two_sided(mid, df) < level {
            low = mid;
        } else {
            high = mid;
        }
    }
    Some(0.5 * (low + high))
}

/// `P(|T| < t)` for Student's t with `df` degrees of freedom.
fn two_sided(t: f64, df: u64) -> f64 {
    let theta = (t / (df as f64).sqrt()).atan();
    let (sin, cos) = theta.sin_cos();
    let c2 = cos * cos;
    if df.is_multiple_of(2) {
        // sinθ (1 + ½cos²θ + (1·3)/(2·4) cos⁴θ + … up to cos^(df−2)θ)
        let (mut term, mut sum) = (1.0, 1.0);
        for k in 1..=(df - 2) / 2 {
            let k = k as f64;
            term *= (2.0 * k - 1.0) / (2.0 * k) * c2;
            sum += term;
        }
        sin * sum
    } else if df == 1 {
        2.0 * theta / PI
    } else {
        // (2/π)(θ + sinθ (cosθ + ⅔cos³θ + … up to cos^(df−2)θ))
        let (mut term, mut sum) = (cos, cos);
        for k in 1..=(df - 3) / 2 {
            let k = k as f64;
            term *= (2.0 * k) / (2.0 * k + 1.0) * c2;
            sum += term;
        }
        2.0 / PI * (theta + sin * sum)
    }
}

/// The standard normal quantile (Acklam's algorithm), `0 < q < 1`.
fn normal_quantile(q: f64) -> f64 {
    const A: [f64; 6] = [
        -3.969_683_028_665_376e1,
        2.209_460_984_245_205e2,
        -2.759_285_104_469_687e2,
        1.383_577_518_672_69e2,
        -3.066_479_806_614_716e1,
        2.506_628_277_459_239,
    ];
    const B: [f64; 5] = [
        -5.447_609_879_822_406e1,
        1.615_858_368_580_409e2,
        -1.556_989_798_598_866e2,
        6.680_131_188_771_972e1,
        -1.328_068_155_288_572e1,
    ];
    const C: [f64; 6] = [
        -7.784_894_002_430_293e-3,
        -3.223_964_580_411_365e-1,
        -2.400_758_277_161_838,
        -2.549_732_539_343_734,
        4.374_664_141_464_968,
        2.938_163_982_698_783,
    ];
    const D: [f64; 4] = [
        7.784_695_709_041_462e-3,
        3.224_671_290_700_398e-1,
        2.445_134_137_142_996,
        3.754_408_661_907_416,
    ];
    let tail = |r: f64| {
        let s = (-2.0 * r.ln()).sqrt();
        (((((C[0] * s + C[1]) * s + C[2]) * s + C[3]) * s + C[4]) * s + C[5])
            / ((((D[0] * s + D[1]) * s + D[2]) * s + D[3]) * s + 1.0)
    };
    const LOW: f64 = 0.02425;
    if q < LOW {
        tail(q)
    } else if q > 1.0 - LOW {
        -tail(1.0 - q)
    } else {
        let s = q - 0.5;
        let r = s * s;
        (((((A[0] * r + A[1]) * r + A[2]) * r + A[3]) * r + A[4]) * r + A[5]) * s
            / (((((B[0] * r + B[1]) * r + B[2]) * r + B[3]) * r + B[4]) * r + 1.0)
    }
}

/// The standard normal distribution function `Φ(x) = P(Z ≤ x)`, from the complementary
/// error function's Chebyshev fit of Numerical Recipes (`erfcc`, fractional error below
/// `1.2e−7` everywhere): the precision of a reported power or p-value, not of a tail bound.
/// NaN for NaN.
///
/// ```
/// use fatnet_queueing::stats::normal_cdf;
/// assert!((normal_cdf(0.0) - 0.5).abs() < 1e-7);
/// assert!((normal_cdf(1.959_963_984_540_054) - 0.975).abs() < 1e-7);
/// assert!((normal_cdf(-2.575_829_303_548_9) - 0.005).abs() < 1e-8);
/// ```
pub fn normal_cdf(x: f64) -> f64 {
    // Φ(x) = erfc(−x/√2) / 2.
    let z = -x / std::f64::consts::SQRT_2;
    let a = z.abs();
    let t = 1.0 / (1.0 + 0.5 * a);
    let poly = -a * a - 1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_203_98
                                + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    let erfc = t * poly.exp();
    let erfc = if z >= 0.0 { erfc } else { 2.0 - erfc };
    erfc / 2.0
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reference values computed to 18 digits (mpmath, regularized incomplete beta).
    #[test]
    fn critical_values() {
        for (df, level, want) in [
            (1, 0.95, 12.706_204_736_174_7),
            (2, 0.95, 4.302_652_729_749_46),
            (9, 0.95, 2.262_157_162_798_2),
            (19, 0.95, 2.093_024_054_408_26),
            (19, 0.99, 2.860_934_606_464_98),
            (30, 0.99, 2.749_995_653_567_22),
            (1000, 0.95, 1.962_339_080_826_41),
            (5000, 0.95, 1.960_438_551_706_51),
            (100_000, 0.99, 2.575_878_469_908_38),
        ] {
            let t = student_t(df, level).unwrap();
            assert!(
                (t - want).abs() < 1e-7 * want,
                "df {df}, {level}: {t} vs {want}"
            );
        }
        assert_eq!(student_t(0, 0.95), None);
        assert_eq!(student_t(5, 1.0), None);
        assert_eq!(student_t(5, f64::NAN), None);
        assert!((normal_quantile(0.975) - 1.959_963_984_540_054).abs() < 3e-9);
        assert!((normal_quantile(0.001) + 3.090_232_306_167_814).abs() < 1e-8);
    }

    fn t975(df: u64) -> Option<f64> {
        student_t(df, 0.95)
    }

    #[test]
    fn t_quantile_is_continuous_across_the_method_switch_and_tends_to_z() {
        let exact = t975(EXACT_MAX_DF).unwrap();
        let expansion = t975(EXACT_MAX_DF + 1).unwrap();
        assert!(exact > expansion && exact - expansion < 3e-6);
        assert!((t975(u64::MAX).unwrap() - Z_975).abs() < 1e-15);
    }

    #[test]
    fn t_distribution_function_has_known_closed_forms() {
        // df = 1 (Cauchy): P(|T| < 1) = 1/2; df = 2: P(|T| < t) = t / √(2 + t²).
        assert!((two_sided(1.0, 1) - 0.5).abs() < 1e-15);
        for t in [0.5_f64, 1.0, 3.0] {
            let expected = t / (2.0 + t * t).sqrt();
            assert!((two_sided(t, 2) - expected).abs() < 1e-15);
        }
        assert_eq!(two_sided(0.0, 7), 0.0);
    }
}
