//! Greenberg–Leiserson's constant-switch fat-tree and Theorem 11
//! (`greenberg-leiserson/constant_switch`): the quick table has a row per size, family and
//! part, the Theorem 11 column is `2z*` of the theorem's formula, and the verdicts follow
//! from the numbers.

use fatnet_repro::constant_switch::{A, ConstantSwitch, FAMILIES, K};
use fatnet_repro::{Effort, Experiment, Value, Verdict};

#[test]
fn quick_run_has_every_row_and_computes_its_bounds_and_verdicts() {
    let table = ConstantSwitch.run(Effort::Quick).unwrap();
    let sizes = ConstantSwitch::sizes(Effort::Quick);
    let trials = ConstantSwitch::trials(Effort::Quick) as f64;
    let of = |claim: &str| {
        table
            .cells
            .iter()
            .filter(|c| c.key[0] == claim)
            .collect::<Vec<_>>()
    };
    let (fig8, thm11, trend) = (
        of("Fig. 8 (wires)"),
        of("Thm 11 (RANDOM′)"),
        of("Fig. 8 trend"),
    );
    assert_eq!(fig8.len(), sizes.len() * FAMILIES.len());
    assert_eq!(thm11.len(), sizes.len() * FAMILIES.len());
    assert_eq!(trend.len(), FAMILIES.len());
    for family in FAMILIES {
        for &l in sizes {
            let n = f64::from(1u32 << l);
            for cells in [&fig8, &thm11] {
                assert_eq!(
                    cells
                        .iter()
                        .filter(|c| c.key[1].shown() == Some(n) && c.key[2] == family)
                        .count(),
                    1,
                    "n = {n}, {family}"
                );
            }
        }
    }
    // Figure 8 rows: the normalised ratio is the mean over λ lg² n, and no trial beat ⌈λ⌉.
    for c in &fig8 {
        let mean = c.ours.estimate().expect("mean cycles").mean;
        let lambda = c.detail.field("λ").and_then(Value::shown).unwrap();
        let lg = c.key[1].shown().unwrap().log2();
        let ratio = c.detail.field("cycles/(λ lg² n)").and_then(Value::shown);
        let expected = mean / (lambda * lg * lg);
        assert!(
            (ratio.unwrap() - expected).abs() <= 5e-4 + 1e-3 * expected,
            "{:?}",
            c.key
        );
        let lower = c.detail.field("⌈λ⌉").and_then(Value::exact).unwrap();
        assert!(mean >= lower, "{:?}", c.key);
        // §6's per-wire bound e·p·λ with p = 1/(rλ), r = 4e·lg n, is 1/(4 lg n).
        let wire = c.detail.field("wire congestion max").and_then(Value::shown);
        let bound = c.detail.field("e·p·λ").and_then(Value::shown).unwrap();
        assert!((bound - 1.0 / (4.0 * lg)).abs() < 1e-4, "{:?}", c.key);
        assert!(wire.unwrap() <= bound, "{:?}", c.key);
        assert_eq!(c.verdict, Verdict::WithinBound, "{:?}", c.key);
    }
    // Trend cells: the verdict is the comparison of the printed ratios.
    for c in &trend {
        let last = c.ours.shown().unwrap();
        let before = c.detail.field("max over smaller n").and_then(Value::shown);
        assert_eq!(
            c.verdict,
            Verdict::holds(last <= before.unwrap()),
            "{:?}",
            c.key
        );
    }
    // Theorem 11 rows: 2z* from the formula, z* the smallest power of 2 above
    // e·2^((k+2)/a)·λ, and the verdict from the fraction of trials within it.
    for c in &thm11 {
        let lambda = c.detail.field("λ").and_then(Value::shown).unwrap();
        let z = c.detail.field("z*").and_then(Value::exact).unwrap();
        let target = std::f64::consts::E * (f64::from(K + 2) / f64::from(A)).exp2() * lambda;
        assert!(
            z.log2().fract() == 0.0 && z > target * 0.999,
            "{:?}: z* = {z}",
            c.key
        );
        assert!(
            z / 2.0 <= target * 1.001 || z == 1.0,
            "{:?}: z* = {z}",
            c.key
        );
        let Some(Value::Phrase(paper)) = &c.paper else {
            panic!("{:?}: the paper's column is a phrase", c.key)
        };
        let printed = paper.field("2z*").and_then(Value::exact);
        assert_eq!(printed, Some(2.0 * z), "{:?}", c.key);
        let within = c.detail.field("within 2z*").and_then(Value::exact).unwrap();
        let failure = c
            .detail
            .field("failure bound")
            .and_then(Value::shown)
            .unwrap();
        let over = (trials - within) / trials;
        assert_eq!(
            c.verdict,
            Verdict::bound(over == 0.0 || over <= failure + 1e-4),
            "{:?}",
            c.key
        );
    }
    assert_eq!(table, ConstantSwitch.run(Effort::Quick).unwrap());
}
