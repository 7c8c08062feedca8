//! Greenberg–Leiserson delivery cycles (`greenberg-leiserson/random_cycles`): the lower bound
//! ⌈λ⌉ holds in every row and the quick table is a function of the seed.

use fatnet_repro::greenberg_leiserson::RandomCycles;
use fatnet_repro::{Effort, Experiment, Verdict};

/// `⌈λ⌉` as printed in a row's detail column.
fn ceil_lambda(detail: &str) -> f64 {
    let start = detail.find("⌈λ⌉ = ").expect("⌈λ⌉ in the detail") + "⌈λ⌉ = ".len();
    let rest = &detail[start..];
    let end = rest.find(';').unwrap_or(rest.len());
    rest[..end].trim().parse().expect("an integer ⌈λ⌉")
}

#[test]
fn quick_run_respects_the_lower_bound_and_is_deterministic() {
    let first = RandomCycles.run(Effort::Quick).unwrap();
    // 2 sizes × 5 families × (2 trees × 2 routers + RANDOM′).
    assert_eq!(first.cells.len(), 2 * 5 * 5);
    for c in &first.cells {
        let mean: f64 = c.ours.parse().expect("mean cycles");
        let lower = ceil_lambda(&c.detail);
        assert!(lower >= 1.0, "{:?}: ⌈λ⌉ = {lower}", c.key);
        assert!(mean >= lower, "{:?}: mean {mean} < ⌈λ⌉ = {lower}", c.key);
        assert_ne!(c.verdict, Verdict::BoundViolated, "{:?}: {}", c.key, c.note);
        assert_eq!(c.verdict, Verdict::WithinBound, "{:?}", c.key);
    }
    let second = RandomCycles.run(Effort::Quick).unwrap();
    assert_eq!(first, second);
}
