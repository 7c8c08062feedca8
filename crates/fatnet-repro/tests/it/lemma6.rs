//! Lemmas 5 and 6 of Greenberg–Leiserson, as measured by the `lemma6` experiment.

use fatnet_repro::lemma6::DeliveryProbability;
use fatnet_repro::{Effort, Experiment, Verdict};

#[test]
fn lemma5_ratios_are_at_most_one_and_no_message_is_delivered_below_p_over_2() {
    let t = DeliveryProbability.run(Effort::Quick).unwrap();
    assert_eq!(t.cells.len(), 4 * 3 * 3);
    for c in &t.cells {
        assert_ne!(
            c.verdict,
            Verdict::BoundViolated,
            "{:?}: {} ({})",
            c.key,
            c.ours,
            c.detail
        );
        if c.key[2].to_string().starts_with("Lemma 5") {
            let ratio = c.ours.exact().unwrap();
            assert!((0.0..=1.0).contains(&ratio), "{ratio}");
        }
    }
    // Deterministic: same seed, same table.
    assert_eq!(t, DeliveryProbability.run(Effort::Quick).unwrap());
}
