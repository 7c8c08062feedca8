//! Greenberg–Oh's claims outside the tables and figures (`greenberg-oh/algorithm_a`,
//! `queue_size`, `latency_l`): the verdict counts of the generated tables and the cross-checks
//! with Table I's runs.

use fatnet_repro::greenberg_oh::{self, Algorithm, Pattern, Stat};
use fatnet_repro::greenberg_oh_claims::{AlgorithmAClaims, LatencyInL, QueueSize, fit_line};
use fatnet_repro::{Effort, Experiment, Table, Verdict};

fn count(t: &Table, v: Verdict) -> usize {
    t.cells.iter().filter(|c| c.verdict == v).count()
}

fn claims_hold(t: &Table) -> usize {
    t.cells
        .iter()
        .filter(|c| c.key[0].to_string().starts_with("claim") && c.verdict == Verdict::Match)
        .count()
}

#[test]
fn algorithm_a_stays_within_its_bounds() {
    let t = AlgorithmAClaims.run(Effort::Full).unwrap();
    // Two ratios per (h, L, N): h = 1 at four sizes, h = 4 at three, L = 4 and 32.
    assert_eq!(
        count(&t, Verdict::NotInPaper),
        2 * 2 * (4 + 3),
        "{}",
        t.summary()
    );
    // Two trend claims per (h, L), each bounded or converging (judged by
    // `Verdict::not_growing`), and every worm in its phase.
    let trends = t
        .cells
        .iter()
        .filter(|c| c.key[0].to_string().contains("ratio bounded in N"))
        .collect::<Vec<_>>();
    assert_eq!(trends.len(), 2 * 2 * 2);
    assert!(
        trends
            .iter()
            .all(|c| matches!(c.verdict, Verdict::Match | Verdict::WithinTolerance)),
        "{}",
        t.summary()
    );
    assert_eq!(
        claims_hold(&t),
        1 + trends
            .iter()
            .filter(|c| c.verdict == Verdict::Match)
            .count(),
        "{}",
        t.summary()
    );
    // Lemma 3: 2 k × 2 L × 3 z, all within bound.
    assert_eq!(count(&t, Verdict::WithinBound), 12, "{}", t.summary());
    assert_eq!(
        count(&t, Verdict::Mismatch) + count(&t, Verdict::BoundViolated),
        0
    );
    // Theorem 4's ratio lies between k and 2k (k = 32e) up to the rounding of the phases.
    let k = 32.0 * std::f64::consts::E;
    for c in t
        .cells
        .iter()
        .filter(|c| c.key[0] == "Theorem 4: time / (c·d·η + c·L·η·log₂P)")
    {
        let r = c.ours.shown().unwrap();
        assert!(0.9 * k < r && r < 2.0 * k, "{r}");
    }
}

#[test]
fn queue_size_gains_little_beyond_two_flits() {
    let t = QueueSize.run(Effort::Full).unwrap();
    assert_eq!(count(&t, Verdict::NotInPaper), 5 * 4);
    // Per N: the bound "little gain beyond 2" (a measured bound) and "1 → 2 gains more".
    assert_eq!(count(&t, Verdict::WithinBound), 4, "{}", t.summary());
    assert_eq!(claims_hold(&t), 4, "{}", t.summary());
    // The q = 2 points are Table I's WORM-RP-RR random runs (same instances and seeds).
    let table1 = greenberg_oh::runs(Algorithm::WORM, Pattern::Random, 64, 10).unwrap();
    let q2 = t
        .cells
        .iter()
        .find(|c| c.key[0] == "WORM-RP-RR" && c.key[1] == "64" && c.key[2] == "2")
        .unwrap();
    assert_eq!(
        q2.ours.estimate().unwrap().mean,
        Stat::latency(&table1).mean
    );
}

#[test]
fn latency_grows_linearly_in_the_worm_length() {
    let t = LatencyInL.run(Effort::Full).unwrap();
    assert_eq!(count(&t, Verdict::NotInPaper), 2 * 5);
    assert_eq!(claims_hold(&t), 2, "{}", t.summary());
    // STORE's latency is L flit-steps per packet-step: exactly proportional to L.
    let mean = |l: &str| {
        t.cells
            .iter()
            .find(|c| c.key[0] == "STORE-RP-RR" && c.key[2] == l)
            .unwrap()
            .ours
            .estimate()
            .unwrap()
            .mean
    };
    assert_eq!(mean("64"), 2.0 * mean("32"));
}

#[test]
fn the_line_fit_recovers_a_line_and_its_residuals() {
    let f = fit_line(&[1.0, 2.0, 3.0], &[3.0, 5.0, 7.0]).unwrap();
    assert!((f.a - 1.0).abs() < 1e-12 && (f.b - 2.0).abs() < 1e-12);
    assert!((f.r2 - 1.0).abs() < 1e-12);
    let f = fit_line(&[0.0, 1.0, 2.0], &[0.0, 2.0, 1.0]).unwrap();
    // Slope 0.5, intercept 0.5, residuals -0.5, 1, -0.5; R² = 1 - 1.5/2.
    assert!((f.b - 0.5).abs() < 1e-12 && (f.a - 0.5).abs() < 1e-12);
    assert!((f.r2 - 0.25).abs() < 1e-12);
    assert_eq!(f.residuals, vec![-0.5, 1.0, -0.5]);
    assert!(fit_line(&[1.0, 1.0], &[2.0, 3.0]).is_none());
    assert!(fit_line(&[1.0], &[2.0]).is_none());
}

#[test]
fn the_trend_rule_tells_a_bounded_ratio_from_a_logarithmic_one() {
    // Rising towards a limit: within tolerance; falling: a match.
    assert_eq!(
        Verdict::not_growing(&[81.3, 87.9, 89.3, 89.5]),
        Verdict::WithinTolerance
    );
    assert_eq!(Verdict::not_growing(&[100.0, 90.0, 80.0]), Verdict::Match);
    // Proportional to log₂ N over N = 16 … 1024: not bounded.
    assert_eq!(
        Verdict::not_growing(&[4.0, 6.0, 8.0, 10.0]),
        Verdict::Mismatch
    );
    assert_eq!(Verdict::not_growing(&[]), Verdict::Mismatch);
}

#[test]
fn figure_4_5_claims_under_the_open_choices() {
    use fatnet_repro::greenberg_oh_claims::{FIG45_CLAIMS, Fig45Choices};
    let t = Fig45Choices.run(Effort::Full).unwrap();
    // Six settings and the summary, six claims each, every one decided.
    assert_eq!(t.cells.len(), 7 * FIG45_CLAIMS.len());
    assert_eq!(
        count(&t, Verdict::Match) + count(&t, Verdict::Mismatch),
        t.cells.len()
    );
    let cell = |choice: &str, value: &str, claim: &str| {
        t.cells
            .iter()
            .find(|c| c.key[0] == choice && c.key[1] == value && c.key[2] == claim)
            .unwrap()
            .verdict
    };
    // WORM-RP-RR beats SPLIT-RP-FO under every choice.
    assert_eq!(
        cell("every choice", "all values", FIG45_CLAIMS[3]),
        Verdict::Match
    );
    // With 1-flit queues SPLIT is about twice as slow as WORM: the paper's "SPLIT RP-RR
    // slightly better" cannot hold (why the figures use 2 flits).
    assert_eq!(
        cell("SPLIT queue", "1 flits", FIG45_CLAIMS[2]),
        Verdict::Mismatch
    );
    // FF's tie rule decides "FF performs similarly to FO".
    assert_eq!(
        cell("FF ties", "fixed order", FIG45_CLAIMS[1]),
        Verdict::Match
    );
    assert_eq!(
        cell("default", "as in the figures", FIG45_CLAIMS[1]),
        Verdict::Mismatch
    );
    // The summary row of a claim holds iff every setting's row does.
    for claim in FIG45_CLAIMS {
        let all = t
            .cells
            .iter()
            .filter(|c| c.key[2] == claim && c.key[0] != "every choice")
            .all(|c| c.verdict == Verdict::Match);
        assert_eq!(
            cell("every choice", "all values", claim) == Verdict::Match,
            all
        );
    }
}
