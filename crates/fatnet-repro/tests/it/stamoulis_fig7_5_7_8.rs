//! Stamoulis Figures 7.5 and 7.8 (quick forms): the verdict counts of the tables, and every
//! claim cell's verdict following from the numbers it reports.

use fatnet_repro::stamoulis_fig7_5::Figure7_5;
use fatnet_repro::stamoulis_fig7_8::Figure7_8;
use fatnet_repro::{Effort, Experiment, Value, Verdict};

/// The numbers of a claim's phrase, in order.
fn numbers(v: &Value) -> Vec<f64> {
    match v {
        Value::Phrase(d) => d
            .values()
            .flat_map(|v| match v {
                Value::Interval { low, high, .. } => vec![*low, *high],
                v => v.shown().into_iter().collect(),
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// Figure 7.5: 3 loads × d = 2 … 7 first-order terms, not in the paper, each positive (the
/// excess over the contention-free delay); one claim per load whose verdict is graded by its
/// slope interval; the figure draws every point with its error bar.
#[test]
fn figure7_5_verdict_counts_follow_the_slopes() {
    let t = Figure7_5.run(Effort::Quick).unwrap();
    assert_eq!(t, Figure7_5.run(Effort::Quick).unwrap());
    let (terms, claims): (Vec<_>, Vec<_>) = t.cells.iter().partition(|c| c.key[2] == "T − 3d/2");
    assert_eq!(terms.len(), 3 * 6);
    assert_eq!(claims.len(), 3);
    for c in &terms {
        assert_eq!(c.verdict, Verdict::NotInPaper, "{c:?}");
        let e = c.ours.estimate().unwrap();
        assert!(e.mean > 0.0 && e.mean < 1.0 && e.half_width > 0.0, "{c:?}");
    }
    for c in &claims {
        let n = numbers(&c.ours);
        let (slope, lo, hi) = (n[0], n[1], n[2]);
        assert!(lo <= slope && slope <= hi, "{c:?}");
        // The printed interval is rounded to 4 decimals: decide away from its ends.
        let expected = if lo > 1e-4 {
            Verdict::Match
        } else if hi < -1e-4 {
            Verdict::Mismatch
        } else {
            Verdict::NotSignificant
        };
        if lo.abs() > 1e-4 && hi.abs() > 1e-4 {
            assert_eq!(c.verdict, expected, "{c:?}");
        }
    }
    let count = |v| t.cells.iter().filter(|c| c.verdict == v).count();
    assert_eq!(count(Verdict::NotInPaper), 18);
    assert_eq!(
        count(Verdict::Match) + count(Verdict::NotSignificant) + count(Verdict::Mismatch),
        3
    );
    let f = Figure7_5.figures(&t);
    assert_eq!(f.len(), 1);
    assert_eq!(f[0].series.len(), 6);
    assert_eq!(f[0].error_bars.len(), 18);
    assert!(
        f[0].series
            .iter()
            .all(|s| s.points.len() == 6 && s.points.iter().all(|p| p.1.is_finite()))
    );
}

/// Figure 7.8: Rules A–E at d = 2 … 8, the direct and the non-idling scheme at d = 2 … 6,
/// all not in the paper; one claim per d of the two schemes, whose verdict follows from the
/// intervals it prints ([`Verdict::positive`] on the difference); M at least 1 and at least Q.
#[test]
fn figure7_8_claim_verdicts_follow_the_intervals() {
    let t = Figure7_8.run(Effort::Quick).unwrap();
    let of = |key: &str| -> Vec<&fatnet_repro::Cell> {
        t.cells.iter().filter(|c| c.key[0] == key).collect()
    };
    assert_eq!(of("indirect, Rules A–E").len(), 7);
    for scheme in ["direct", "non-idling indirect"] {
        let cells = of(scheme);
        assert_eq!(cells.len(), 5, "{scheme}");
        for c in cells {
            assert_eq!(c.verdict, Verdict::NotInPaper);
            let m = c.ours.shown().unwrap();
            let q = c.detail.field("Q").and_then(Value::shown).unwrap();
            assert!(m >= 1.0 && m > q, "{c:?}");
        }
    }
    let claims = of("claim: non-idling M below direct");
    assert_eq!(claims.len(), 5);
    for c in &claims {
        let n = numbers(&c.ours);
        let (a, a_lo, a_hi, b, b_lo, b_hi) = (n[0], n[1], n[2], n[3], n[4], n[5]);
        assert!(a_lo <= a && a <= a_hi && b_lo <= b && b <= b_hi, "{c:?}");
        // The difference b − a against √(h_a² + h_b²), from the printed (rounded) intervals.
        let noise = ((a_hi - a_lo) / 2.0).hypot((b_hi - b_lo) / 2.0);
        let gap = b - a;
        if (gap.abs() - noise).abs() > 0.02 {
            let expected = if gap > noise {
                Verdict::Match
            } else if gap < -noise {
                Verdict::Mismatch
            } else {
                Verdict::NotSignificant
            };
            assert_eq!(c.verdict, expected, "{c:?}");
        }
    }
    let count = |v| t.cells.iter().filter(|c| c.verdict == v).count();
    assert_eq!(count(Verdict::NotInPaper), 7 + 2 * 5);
    assert_eq!(
        count(Verdict::Match) + count(Verdict::NotSignificant) + count(Verdict::Mismatch),
        5
    );
}
