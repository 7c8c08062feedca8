//! Verdicts: how our value compares with the paper's, and the one place that decides them.
//!
//! Every experiment builds its verdicts with these constructors, so that "match", "within
//! tolerance" and the rest mean the same thing in every table. There are four kinds of
//! comparison, one rule each:
//!
//! - **exact** values (counts, closed forms, schedules): [`Verdict::equal`],
//!   [`Verdict::holds`], [`Verdict::compared`], [`Verdict::every_sample`];
//! - **a measured value against a printed one or a formula**: [`judge`] (the significance
//!   test of the difference against the two-sample noise, the relative band, and the test's
//!   power at the band, all three reported by [`Judgement::detail`]);
//! - **a claim that one measured quantity exceeds another**: [`Verdict::positive`] on the
//!   estimate of their difference (significant, significant the other way, or not
//!   significant);
//! - **a bound**: [`Verdict::bound`] for exact values, [`Verdict::bound_measured`] for measured
//!   ones (violated only significantly), and for an asymptotic claim [`Verdict::trend`] (a
//!   limit range) or [`Verdict::not_growing`] (an O(·) ratio), which judge how the values move
//!   with the size, never as a violated bound.

use serde::Serialize;

use crate::cell::{Detail, Estimate, fixed, signed};
use crate::detail;

/// How our value compares with the paper's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Equal (or equal to the printed precision).
    Match,
    /// Different, inside the stated tolerance or confidence interval.
    WithinTolerance,
    /// Different, and the implementation notes flag the printed value as a suspected misprint
    /// (the disagreement is reported, not corrected).
    SuspectedMisprint,
    /// Different.
    Mismatch,
    /// The paper prints no value here (an extension row).
    NotInPaper,
    /// The paper states a bound (a theorem), not a value, and our value respects it.
    WithinBound,
    /// The paper states a bound and our value violates it.
    BoundViolated,
    /// A measured comparison the data cannot decide: the difference is not significant and
    /// the test had too little power to see one of the size that matters (see [`judge`] and
    /// [`Verdict::positive`]). Not a failure; more trials would decide it.
    NotSignificant,
    /// The paper's algorithm is not implemented: the row runs a stand-in, so its outcome says
    /// nothing about the paper's claim (reported, never counted as a match or a mismatch).
    StandIn,
}

impl Verdict {
    /// Every verdict, in the order of the tables' summaries.
    pub const ALL: [Verdict; 9] = [
        Verdict::Match,
        Verdict::WithinTolerance,
        Verdict::NotSignificant,
        Verdict::SuspectedMisprint,
        Verdict::Mismatch,
        Verdict::NotInPaper,
        Verdict::WithinBound,
        Verdict::BoundViolated,
        Verdict::StandIn,
    ];

    /// The word written in the tables.
    pub fn label(self) -> &'static str {
        match self {
            Verdict::Match => "match",
            Verdict::WithinTolerance => "within tolerance",
            Verdict::SuspectedMisprint => "MISMATCH (suspected misprint)",
            Verdict::Mismatch => "MISMATCH",
            Verdict::NotInPaper => "not in paper",
            Verdict::WithinBound => "within bound",
            Verdict::BoundViolated => "BOUND VIOLATED",
            Verdict::NotSignificant => "not significant",
            Verdict::StandIn => "not reproduced: stand-in",
        }
    }

    /// A claim or an equality: [`Verdict::Match`] if it holds, else [`Verdict::Mismatch`].
    pub fn holds(ok: bool) -> Verdict {
        if ok {
            Verdict::Match
        } else {
            Verdict::Mismatch
        }
    }

    /// Exact equality of a printed value and ours.
    pub fn equal<T: PartialEq>(paper: T, ours: T) -> Verdict {
        Verdict::holds(paper == ours)
    }

    /// A bound of the paper: [`Verdict::WithinBound`] if ours respects it, else
    /// [`Verdict::BoundViolated`].
    pub fn bound(respected: bool) -> Verdict {
        if respected {
            Verdict::WithinBound
        } else {
            Verdict::BoundViolated
        }
    }

    /// A printed value against ours: [`Verdict::Match`] if they agree, else
    /// [`Verdict::differs`].
    pub fn compared(agree: bool, suspected_misprint: bool) -> Verdict {
        if agree {
            Verdict::Match
        } else {
            Verdict::differs(suspected_misprint)
        }
    }

    /// A printed value that differs from ours: [`Verdict::SuspectedMisprint`] when the
    /// implementation notes flag it, else [`Verdict::Mismatch`].
    pub fn differs(suspected_misprint: bool) -> Verdict {
        if suspected_misprint {
            Verdict::SuspectedMisprint
        } else {
            Verdict::Mismatch
        }
    }

    /// A claim "the quantity is positive" judged from the estimate of it (typically a
    /// difference `b − a` for the claim "a is smaller than b", from paired trials or two
    /// independent means): [`Verdict::Match`] if its confidence interval lies above zero (the
    /// claim holds significantly), [`Verdict::Mismatch`] if it lies below (its opposite holds
    /// significantly), else [`Verdict::NotSignificant`] — never a failure for lack of data.
    pub fn positive(difference: &Estimate) -> Verdict {
        let h = noise_of(difference);
        if difference.mean - h > 0.0 {
            Verdict::Match
        } else if difference.mean + h < 0.0 {
            Verdict::Mismatch
        } else {
            Verdict::NotSignificant
        }
    }

    /// An **asymptotic** claim ("tends to between 3/2 and 2", "bounded as N grows") judged by
    /// its trend over growing sizes, never as a violated bound: [`Verdict::Match`] if the
    /// value at the largest size lies in `[low, high]`; otherwise [`Verdict::WithinTolerance`]
    /// if the distance to the range shrinks at every step of the last three sizes (the values
    /// approach the claimed range), else [`Verdict::Mismatch`] (they do not approach it).
    /// `values` are in order of growing size; none is a mismatch.
    pub fn trend(values: &[f64], low: f64, high: f64) -> Verdict {
        let distance = |v: f64| {
            if v < low {
                low - v
            } else if v > high {
                v - high
            } else {
                0.0
            }
        };
        let Some(&last) = values.last() else {
            return Verdict::Mismatch;
        };
        if distance(last) == 0.0 {
            return Verdict::Match;
        }
        let tail = &values[values.len().saturating_sub(3)..];
        let approaching =
            tail.len() >= 2 && tail.windows(2).all(|w| distance(w[1]) < distance(w[0]));
        if approaching {
            Verdict::WithinTolerance
        } else {
            Verdict::Mismatch
        }
    }

    /// An asymptotic **O(·) claim** read on the ratio measured/claimed-order over growing
    /// sizes (`values` in order of size), judged by its trend, never as a violated bound:
    /// [`Verdict::Match`] if the ratio at the largest size is no larger than the largest ratio
    /// before it (it has stopped setting new highs, as a bounded ratio must);
    /// [`Verdict::WithinTolerance`] if it still grows but by less at each of the last two
    /// steps (increments shrinking, as a ratio converging to its bound from below does);
    /// else [`Verdict::Mismatch`] (still growing, not slowing, at the sizes measured). Fewer
    /// than two values is a mismatch: no trend.
    pub fn not_growing(values: &[f64]) -> Verdict {
        let Some((last, earlier)) = values.split_last() else {
            return Verdict::Mismatch;
        };
        if earlier.is_empty() {
            return Verdict::Mismatch;
        }
        let before = earlier.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        if *last <= before {
            return Verdict::Match;
        }
        let steps: Vec<f64> = values.windows(2).map(|w| w[1] - w[0]).collect();
        let slowing = steps.len() >= 2 && {
            let tail = &steps[steps.len() - 2..];
            tail[1] < tail[0]
        };
        if slowing {
            Verdict::WithinTolerance
        } else {
            Verdict::Mismatch
        }
    }

    /// A proved finite bound `lower ≤ value ≤ upper` against a measured value:
    /// [`Verdict::WithinBound`] unless our confidence interval lies entirely outside
    /// `[lower, upper]` ([`Verdict::BoundViolated`]): a simulation violates a bound only
    /// significantly. Use `f64::NEG_INFINITY` / `f64::INFINITY` for a one-sided bound.
    pub fn bound_measured(ours: &Estimate, lower: f64, upper: f64) -> Verdict {
        let h = noise_of(ours);
        Verdict::bound(ours.mean + h >= lower && ours.mean - h <= upper)
    }

    /// Exactness over samples: [`Verdict::Match`] if every sample equals the paper's value (so
    /// their mean does), else [`Verdict::Mismatch`]; no samples is a mismatch.
    pub fn every_sample(paper: u64, samples: &[u64]) -> Verdict {
        Verdict::holds(!samples.is_empty() && samples.iter().all(|&s| s == paper))
    }

    /// The weaker of two verdicts of the same comparison: a mismatch over a tolerance over a
    /// match.
    pub fn weaker(self, other: Verdict) -> Verdict {
        let rank = |v: Verdict| match v {
            Verdict::Mismatch | Verdict::BoundViolated => 2,
            Verdict::WithinTolerance | Verdict::SuspectedMisprint | Verdict::NotSignificant => 1,
            _ => 0,
        };
        if rank(other) > rank(self) {
            other
        } else {
            self
        }
    }
}

/// What a measured value is compared with.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Reference {
    /// A closed form, a bound's value or an exact printed number: no noise of its own.
    Exact(f64),
    /// A printed simulation result: a sample mean with sampling noise of its own. The paper
    /// does not print its spread, so it is taken to be ours (same model, same spread per
    /// trial) over `trials` trials, or over as many trials as ours when the paper does not say.
    Sampled {
        /// The printed mean.
        value: f64,
        /// The paper's number of trials, if it states one.
        trials: Option<u64>,
    },
}

impl Reference {
    /// The reference value.
    pub fn value(self) -> f64 {
        match self {
            Reference::Exact(v) | Reference::Sampled { value: v, .. } => v,
        }
    }
}

/// The outcome of [`judge`], with every number that decided it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Judgement {
    /// The verdict.
    pub verdict: Verdict,
    /// `ours − reference`.
    pub difference: f64,
    /// The half-width of the difference's confidence interval (ours alone against an exact
    /// reference; both samples' against a sampled one).
    pub noise: f64,
    /// The relative band `|ours − reference| ≤ band·|reference|` (0: none).
    pub band: f64,
    /// The reference value.
    pub reference: f64,
    /// Whether `|difference| > noise`: significant at the estimate's confidence.
    pub significant: bool,
    /// The probability that the test finds a difference of exactly one band significant
    /// (`None` without a band).
    pub power: Option<f64>,
    /// The confidence level of the intervals, in percent.
    pub confidence: u8,
    /// Whether the reference has noise of its own ([`Reference::Sampled`]).
    pub two_sample: bool,
}

impl Judgement {
    /// `Δ = +4.7% (99% noise ±9.8% two-sample; band ±10%, power 45%)`: the numbers of the rule.
    pub fn detail(&self) -> Detail {
        let relative = |x: f64| 100.0 * x / self.reference.abs();
        let mut d = detail![
            "Δ = ",
            signed(relative(self.difference), 1),
            "% (",
            crate::cell::int(self.confidence),
            "% noise ±",
            fixed(relative(self.noise), 1),
            "%",
            if self.two_sample { " two-sample" } else { "" },
        ];
        if self.band > 0.0 {
            d.append(detail!["; band ±", fixed(100.0 * self.band, 1), "%"]);
            if let Some(p) = self.power {
                d.append(detail![", power ", fixed(100.0 * p, 0), "%"]);
            }
        }
        d.push(")");
        d
    }
}

/// The half-width of an estimate's interval; 0 when it is undefined (a single run of a
/// deterministic simulation has no noise).
fn noise_of(e: &Estimate) -> f64 {
    if e.half_width.is_finite() {
        e.half_width.abs()
    } else {
        0.0
    }
}

/// Power below which a difference that is not significant is [`Verdict::NotSignificant`]
/// rather than a match: the conventional 80 %.
pub const MIN_POWER: f64 = 0.8;

/// **The rule for a measured value against a reference**, used by every table:
///
/// 1. The difference `ours − reference` is tested against its noise: our interval's
///    half-width `h` at our confidence level for an exact reference, `h·√(1 + n/m)` for a
///    sampled one (the two-sample interval of two means with our spread, `n` our trials, `m`
///    the paper's, `m = n` when unknown).
/// 2. **Not significant** (`|Δ| ≤ noise`): [`Verdict::Match`] if the test had power at least
///    [`MIN_POWER`] to find a difference of one band (`band·|reference|`) significant, or if
///    there is no band; else [`Verdict::NotSignificant`] — the run cannot tell a band-sized
///    offset from noise, which is neither a match nor a failure.
/// 3. **Significant, inside the band** (`|Δ| ≤ band·|reference|`): [`Verdict::WithinTolerance`]
///    — a real offset, smaller than the band; the detail shows its size.
/// 4. **Significant, outside the band**: [`Verdict::Mismatch`] (also for NaN).
///
/// The power is that of the two-sided test at the interval's confidence, in its normal
/// approximation: with `z` the interval's critical value (Student's, `n − 1` degrees of
/// freedom), `σ = noise / z` and `δ = band·|reference|`, `Φ(δ/σ − z) + Φ(−δ/σ − z)`.
pub fn judge(reference: Reference, ours: &Estimate, band: f64) -> Judgement {
    let paper = reference.value();
    let h = noise_of(ours);
    let (noise, two_sample) = match reference {
        Reference::Exact(_) => (h, false),
        Reference::Sampled { trials, .. } => {
            let m = trials.unwrap_or(ours.n).max(1) as f64;
            (h * (1.0 + ours.n as f64 / m).sqrt(), true)
        }
    };
    let difference = ours.mean - paper;
    let allowed = band * paper.abs();
    let z = fatnet::queueing::stats::student_t(
        ours.n.saturating_sub(1).max(1),
        f64::from(ours.confidence) / 100.0,
    )
    .unwrap_or(f64::NAN);
    let power = (band > 0.0).then(|| {
        if noise == 0.0 {
            return 1.0;
        }
        let sigma = noise / z;
        let phi = fatnet::queueing::stats::normal_cdf;
        phi(allowed / sigma - z) + phi(-allowed / sigma - z)
    });
    let significant = difference.abs() > noise || difference.is_nan();
    let verdict = if difference.is_nan() {
        Verdict::Mismatch
    } else if !significant {
        if power.is_none_or(|p| p >= MIN_POWER) {
            Verdict::Match
        } else {
            Verdict::NotSignificant
        }
    } else if difference.abs() <= allowed {
        Verdict::WithinTolerance
    } else {
        Verdict::Mismatch
    };
    Judgement {
        verdict,
        difference,
        noise,
        band,
        reference: paper,
        significant,
        power,
        confidence: ours.confidence,
        two_sample,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn est(mean: f64, half_width: f64, n: u64) -> Estimate {
        Estimate::new(mean, half_width, n, 99, 2)
    }

    #[test]
    fn exact_constructors_decide_as_documented() {
        assert_eq!(Verdict::holds(true), Verdict::Match);
        assert_eq!(Verdict::equal(3, 4), Verdict::Mismatch);
        assert_eq!(Verdict::bound(false), Verdict::BoundViolated);
        assert_eq!(Verdict::differs(true), Verdict::SuspectedMisprint);
        assert_eq!(Verdict::compared(false, true), Verdict::SuspectedMisprint);
        assert_eq!(Verdict::compared(true, true), Verdict::Match);
        assert_eq!(Verdict::every_sample(5, &[5, 5]), Verdict::Match);
        assert_eq!(Verdict::every_sample(5, &[]), Verdict::Mismatch);
        assert_eq!(
            Verdict::Match.weaker(Verdict::WithinTolerance),
            Verdict::WithinTolerance
        );
        assert_eq!(Verdict::Mismatch.weaker(Verdict::Match), Verdict::Mismatch);
        assert_eq!(
            Verdict::Match.weaker(Verdict::NotSignificant),
            Verdict::NotSignificant
        );
    }

    #[test]
    fn the_measured_rule_tests_significance_then_the_band_and_states_its_power() {
        // Inside a narrow interval: a match, with full power at a 5 % band.
        let j = judge(Reference::Exact(100.0), &est(100.5, 1.0, 30), 0.05);
        assert_eq!(j.verdict, Verdict::Match);
        assert!(!j.significant && j.power.unwrap() > 0.999);
        // Significant, inside the band: within tolerance, the offset is real.
        let j = judge(Reference::Exact(100.0), &est(103.0, 1.0, 30), 0.05);
        assert_eq!(j.verdict, Verdict::WithinTolerance);
        // Significant, outside the band: a mismatch.
        assert_eq!(
            judge(Reference::Exact(100.0), &est(106.0, 1.0, 30), 0.05).verdict,
            Verdict::Mismatch
        );
        // Not significant, but the noise (±17) is wider than the band (±5): the run cannot
        // tell, which is neither a match nor a failure.
        let j = judge(Reference::Exact(100.0), &est(108.7, 17.0, 30), 0.05);
        assert_eq!(j.verdict, Verdict::NotSignificant);
        assert!(j.power.unwrap() < 0.5);
        // A sampled reference widens the noise by √(1 + n/m): √2 with the same trials.
        let j = judge(
            Reference::Sampled {
                value: 100.0,
                trials: None,
            },
            &est(101.2, 1.0, 30),
            0.05,
        );
        assert!((j.noise - std::f64::consts::SQRT_2).abs() < 1e-12);
        assert_eq!(j.verdict, Verdict::Match);
        let j = judge(
            Reference::Sampled {
                value: 100.0,
                trials: Some(10),
            },
            &est(101.9, 1.0, 30),
            0.05,
        );
        assert!((j.noise - 2.0).abs() < 1e-12 && j.verdict == Verdict::Match);
        // Without a band, no power: only significance decides.
        let j = judge(Reference::Exact(10.0), &est(10.4, 0.5, 30), 0.0);
        assert_eq!((j.verdict, j.power), (Verdict::Match, None));
        assert_eq!(
            judge(Reference::Exact(10.0), &est(10.6, 0.5, 30), 0.0).verdict,
            Verdict::Mismatch
        );
        // NaN is a mismatch; an undefined interval is no noise.
        assert_eq!(
            judge(Reference::Exact(1.0), &est(f64::NAN, 0.1, 30), 0.1).verdict,
            Verdict::Mismatch
        );
        assert_eq!(
            judge(Reference::Exact(1.0), &est(1.0, f64::NAN, 1), 0.1).verdict,
            Verdict::Match
        );
        let shown = judge(Reference::Exact(100.0), &est(104.7, 9.8, 30), 0.10)
            .detail()
            .to_string();
        assert!(
            shown.starts_with("Δ = +4.7% (99% noise ±9.8%; band ±10.0%, power "),
            "{shown}"
        );
    }

    #[test]
    fn power_grows_with_the_band_over_the_noise() {
        let power = |band: f64| {
            judge(Reference::Exact(100.0), &est(100.0, 2.576, 1_000_000), band)
                .power
                .unwrap()
        };
        // σ = 1: a 2.576σ band is detected half the time, 2.576σ + 0.84σ about 80 %.
        assert!((power(0.02576) - 0.5).abs() < 1e-3);
        assert!((power(0.02576 + 0.008416) - 0.8).abs() < 2e-3);
        assert!(power(0.01) < power(0.02) && power(0.02) < power(0.05));
    }

    #[test]
    fn claims_asymptotics_and_measured_bounds() {
        assert_eq!(Verdict::positive(&est(3.0, 1.0, 30)), Verdict::Match);
        assert_eq!(Verdict::positive(&est(-3.0, 1.0, 30)), Verdict::Mismatch);
        assert_eq!(
            Verdict::positive(&est(0.5, 1.0, 30)),
            Verdict::NotSignificant
        );
        assert_eq!(
            Verdict::positive(&est(-0.5, 1.0, 30)),
            Verdict::NotSignificant
        );
        // §4.4's ratios 3.75, 2.45, 2.38 approach [3/2, 2] without entering it.
        assert_eq!(
            Verdict::trend(&[3.75, 2.45, 2.38], 1.5, 2.0),
            Verdict::WithinTolerance
        );
        assert_eq!(Verdict::trend(&[3.75, 2.45, 1.9], 1.5, 2.0), Verdict::Match);
        assert_eq!(
            Verdict::trend(&[2.1, 2.3, 2.5], 1.5, 2.0),
            Verdict::Mismatch
        );
        assert_eq!(Verdict::trend(&[2.5], 1.5, 2.0), Verdict::Mismatch);
        assert_eq!(Verdict::trend(&[], 1.5, 2.0), Verdict::Mismatch);
        assert_eq!(Verdict::not_growing(&[1.0, 1.4, 1.3]), Verdict::Match);
        assert_eq!(
            Verdict::not_growing(&[1.0, 1.4, 1.5]),
            Verdict::WithinTolerance
        );
        assert_eq!(Verdict::not_growing(&[1.0, 1.1, 1.5]), Verdict::Mismatch);
        assert_eq!(Verdict::not_growing(&[1.0]), Verdict::Mismatch);
        assert_eq!(
            Verdict::bound_measured(&est(10.0, 1.0, 30), 10.5, f64::INFINITY),
            Verdict::WithinBound
        );
        assert_eq!(
            Verdict::bound_measured(&est(10.0, 1.0, 30), 11.5, f64::INFINITY),
            Verdict::BoundViolated
        );
        assert_eq!(
            Verdict::bound_measured(&est(10.0, 1.0, 30), f64::NEG_INFINITY, 8.0),
            Verdict::BoundViolated
        );
    }
}
