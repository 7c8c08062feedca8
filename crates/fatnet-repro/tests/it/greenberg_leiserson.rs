//! Greenberg–Leiserson delivery cycles (`greenberg-leiserson/random_cycles`): the lower bound
//! ⌈λ⌉ holds in every row and the quick table is a function of the seed.

use fatnet_repro::greenberg_leiserson::RandomCycles;
use fatnet_repro::{Effort, Experiment, Value, Verdict};

#[test]
fn quick_run_respects_the_lower_bound_and_is_deterministic() {
    let first = RandomCycles.run(Effort::Quick).unwrap();
    // 2 sizes × 5 families × (2 trees × 2 routers + RANDOM′).
    assert_eq!(first.cells.len(), 2 * 5 * 5);
    for c in &first.cells {
        let mean = c.ours.estimate().expect("mean cycles").mean;
        let lower = c.detail.field("⌈λ⌉").and_then(Value::exact).expect("⌈λ⌉");
        assert_eq!(lower.fract(), 0.0, "{:?}: ⌈λ⌉ = {lower}", c.key);
        assert!(lower >= 1.0, "{:?}: ⌈λ⌉ = {lower}", c.key);
        assert!(mean >= lower, "{:?}: mean {mean} < ⌈λ⌉ = {lower}", c.key);
        assert_ne!(c.verdict, Verdict::BoundViolated, "{:?}: {}", c.key, c.note);
        assert_eq!(c.verdict, Verdict::WithinBound, "{:?}", c.key);
    }
    let second = RandomCycles.run(Effort::Quick).unwrap();
    assert_eq!(first, second);
}
