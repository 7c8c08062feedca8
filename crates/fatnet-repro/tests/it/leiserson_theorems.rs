//! Leiserson's Theorem 4, Lemmas 6–7, Theorem 8 and Corollary 9 (`leiserson/theorems`): every
//! statement has its rows, and no count differs from the statement nor any bound is violated.

use fatnet_repro::leiserson_theorems::Theorems;
use fatnet_repro::{Effort, Experiment, Verdict};

#[test]
fn quick_table_has_every_statement_and_every_verdict_holds() {
    let t = Theorems.run(Effort::Quick).unwrap();
    let of = |s: &str| t.cells.iter().filter(|c| c.key[0] == s).count();
    // Theorem 4: 9 quantities per (n, w), three w per size (none coincide for lg n ≥ 6).
    assert_eq!(
        of("Theorem 4"),
        9 * 3 * Theorems::theorem4_sizes(Effort::Quick).len()
    );
    // Lemma 6: exhaustive + three random families, three quantities each.
    assert_eq!(of("Lemma 6"), 4 * 3);
    assert_eq!(of("Lemma 7"), 3 * 3);
    let sizes = Theorems::theorem8_sizes(Effort::Quick).len();
    assert_eq!(of("Theorem 8"), 3 * sizes * 4);
    assert_eq!(of("Corollary 9"), 3 * sizes * 2);
    for c in &t.cells {
        assert!(
            matches!(c.verdict, Verdict::Match | Verdict::WithinBound),
            "{:?}: paper {:?}, ours {} ({})",
            c.key,
            c.paper,
            c.ours,
            c.detail
        );
    }
    // The w = n tree doubles everywhere: 4n wire ends on each of its lg n switch levels, so
    // the component ratio is exactly 4 (n lg n with lg(w³/n²) = lg n).
    let full = t
        .cells
        .iter()
        .find(|c| {
            c.key[1] == "n = 2^9, w = 512" && c.key[2].to_string().starts_with("components: O")
        })
        .unwrap();
    assert_eq!(full.ours.exact(), Some(4.0));
    // Deterministic: same seed, same table.
    assert_eq!(t, Theorems.run(Effort::Quick).unwrap());
}
