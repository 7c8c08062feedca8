//! Verdicts: how our value compares with the paper's, and the one place that decides them.
//!
//! Every experiment builds its verdicts with these constructors, so that "match", "within
//! tolerance" and the rest mean the same thing in every table.

use serde::Serialize;

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
}

impl Verdict {
    /// Every verdict, in the order of the tables' summaries.
    pub const ALL: [Verdict; 7] = [
        Verdict::Match,
        Verdict::WithinTolerance,
        Verdict::SuspectedMisprint,
        Verdict::Mismatch,
        Verdict::NotInPaper,
        Verdict::WithinBound,
        Verdict::BoundViolated,
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

    /// Two grades of agreement: [`Verdict::Match`] if the strict test passes,
    /// [`Verdict::WithinTolerance`] if only the tolerant one does, else [`Verdict::Mismatch`].
    pub fn graded(strict: bool, tolerant: bool) -> Verdict {
        if strict {
            Verdict::Match
        } else if tolerant {
            Verdict::WithinTolerance
        } else {
            Verdict::Mismatch
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

    /// Within a relative band: [`Verdict::WithinTolerance`] if `|ours − paper| ≤
    /// tolerance·|paper|`, else [`Verdict::Mismatch`] (also for NaN).
    pub fn band(paper: f64, ours: f64, tolerance: f64) -> Verdict {
        Verdict::tolerance(paper, ours, tolerance * paper.abs())
    }

    /// Within an absolute allowance: [`Verdict::WithinTolerance`] if `|ours − paper| ≤
    /// allowed`, else [`Verdict::Mismatch`] (also for NaN).
    pub fn tolerance(paper: f64, ours: f64, allowed: f64) -> Verdict {
        if (ours - paper).abs() <= allowed {
            Verdict::WithinTolerance
        } else {
            Verdict::Mismatch
        }
    }

    /// A simulated value against a printed one: [`Verdict::Match`] if the printed value lies
    /// in our confidence interval `[low, high]`, else [`Verdict::band`].
    pub fn interval_or_band(paper: f64, low: f64, high: f64, ours: f64, tolerance: f64) -> Verdict {
        if low <= paper && paper <= high {
            Verdict::Match
        } else {
            Verdict::band(paper, ours, tolerance)
        }
    }

    /// A simulated value against a formula or printed value: [`Verdict::Match`] if
    /// `|ours − paper| ≤ half_width` (our interval's), else [`Verdict::band`].
    pub fn noise_or_band(paper: f64, ours: f64, half_width: f64, tolerance: f64) -> Verdict {
        if (ours - paper).abs() <= half_width {
            Verdict::Match
        } else {
            Verdict::band(paper, ours, tolerance)
        }
    }

    /// A claim "ours is smaller", from two confidence intervals: [`Verdict::Match`] if ours
    /// lies entirely below the other (`ours.1 < other.0`), [`Verdict::WithinTolerance`] if only
    /// its mean is smaller (the intervals overlap), else [`Verdict::Mismatch`].
    pub fn smaller(
        ours: (f64, f64),
        other: (f64, f64),
        ours_mean: f64,
        other_mean: f64,
    ) -> Verdict {
        if ours.1 < other.0 {
            Verdict::Match
        } else if ours_mean < other_mean {
            Verdict::WithinTolerance
        } else {
            Verdict::Mismatch
        }
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
            Verdict::WithinTolerance | Verdict::SuspectedMisprint => 1,
            _ => 0,
        };
        if rank(other) > rank(self) {
            other
        } else {
            self
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constructors_decide_as_documented() {
        assert_eq!(Verdict::holds(true), Verdict::Match);
        assert_eq!(Verdict::equal(3, 4), Verdict::Mismatch);
        assert_eq!(Verdict::bound(false), Verdict::BoundViolated);
        assert_eq!(Verdict::differs(true), Verdict::SuspectedMisprint);
        assert_eq!(Verdict::band(100.0, 105.0, 0.05), Verdict::WithinTolerance);
        assert_eq!(Verdict::band(100.0, 94.9, 0.05), Verdict::Mismatch);
        assert_eq!(Verdict::band(100.0, f64::NAN, 0.1), Verdict::Mismatch);
        assert_eq!(
            Verdict::interval_or_band(9.0, 8.5, 9.5, 9.4, 0.0),
            Verdict::Match
        );
        assert_eq!(
            Verdict::interval_or_band(9.0, 9.1, 9.5, 9.3, 0.05),
            Verdict::WithinTolerance
        );
        assert_eq!(Verdict::noise_or_band(10.0, 10.5, 0.5, 0.0), Verdict::Match);
        assert_eq!(
            Verdict::noise_or_band(10.0, 10.6, 0.5, 0.01),
            Verdict::Mismatch
        );
        assert_eq!(
            Verdict::smaller((1.0, 2.0), (2.5, 3.0), 1.5, 2.7),
            Verdict::Match
        );
        assert_eq!(
            Verdict::smaller((1.0, 2.6), (2.5, 3.0), 1.5, 2.7),
            Verdict::WithinTolerance
        );
        assert_eq!(
            Verdict::smaller((1.0, 3.6), (2.5, 3.0), 2.8, 2.7),
            Verdict::Mismatch
        );
        assert_eq!(Verdict::compared(false, true), Verdict::SuspectedMisprint);
        assert_eq!(Verdict::compared(true, true), Verdict::Match);
        assert_eq!(Verdict::graded(false, true), Verdict::WithinTolerance);
        assert_eq!(Verdict::graded(false, false), Verdict::Mismatch);
        assert_eq!(Verdict::every_sample(5, &[5, 5]), Verdict::Match);
        assert_eq!(Verdict::every_sample(5, &[]), Verdict::Mismatch);
        assert_eq!(
            Verdict::Match.weaker(Verdict::WithinTolerance),
            Verdict::WithinTolerance
        );
        assert_eq!(Verdict::Mismatch.weaker(Verdict::Match), Verdict::Mismatch);
    }
}
