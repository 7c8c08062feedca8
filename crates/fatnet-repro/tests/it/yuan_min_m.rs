//! Yuan's Theorems 1–3 table (`yuan/min_m`): the exhaustive minimum m against the theorems.

use fatnet_repro::yuan_min_m::MinM;
use fatnet_repro::{Effort, Experiment, Value, Verdict};

#[test]
fn min_m_agrees_with_the_theorems_and_the_note() {
    let t = MinM.run(Effort::Full).unwrap();
    let ours = |instance: &str, quantity: &str| {
        t.cells
            .iter()
            .find(|c| c.key[0] == instance && c.key[1].to_string().starts_with(quantity))
            .unwrap_or_else(|| panic!("no cell {instance} {quantity}"))
    };
    // The note's values (note 001 §3), with (3, 3) settled at 6.
    for (instance, m) in [
        ("n=2, r=2", 2),
        ("n=3, r=2", 3),
        ("n=2, r=3", 4),
        ("n=2, r=4", 4),
        ("n=3, r=3", 6),
    ] {
        let c = ours(instance, "smallest m");
        assert_eq!(c.ours, Value::Int(m), "{instance}");
        assert_eq!(c.verdict, Verdict::WithinBound, "{instance}");
    }
    // Theorems 2–3 where r >= 2n+1.
    for (instance, m) in [("n=2, r=5", 4), ("n=2, r=7", 4), ("n=3, r=7", 9)] {
        let c = ours(instance, "smallest m");
        assert_eq!(
            (c.ours.clone(), c.verdict),
            (Value::Int(m), Verdict::Match),
            "{instance}"
        );
    }
    // Exact capacities of one top switch (note C2.1).
    assert_eq!(ours("n=2, r=5", "pairs one top").ours, Value::Int(20));
    assert_eq!(ours("n=3, r=3", "pairs one top").ours, Value::Int(12));
    // Nothing contradicts the paper; d-mod-m's counterexamples all verify.
    assert!(
        t.cells
            .iter()
            .all(|c| !matches!(c.verdict, Verdict::Mismatch | Verdict::BoundViolated)),
        "{}",
        t.summary()
    );
    assert!(
        t.cells
            .iter()
            .all(|c| !c.ours.to_string().contains("NOT verified"))
    );
    assert!(!MinM.quick_differs());
}
