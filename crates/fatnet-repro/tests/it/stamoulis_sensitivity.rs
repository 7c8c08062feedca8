//! Stamoulis' direct-scheme sensitivity study (`stamoulis/table6_sensitivity`) and the
//! heavy-traffic open question (`open-questions/greedy_heavy_traffic`), in quick mode.

use fatnet_repro::open_heavy_traffic::GreedyHeavyTraffic;
use fatnet_repro::stamoulis_direct_sensitivity::DirectSensitivity;
use fatnet_repro::{Effort, Experiment, Table, Value, Verdict};

fn count(t: &Table, v: Verdict) -> usize {
    t.cells.iter().filter(|c| c.verdict == v).count()
}

fn cell<'a>(t: &'a Table, k0: &str, k1: &str) -> &'a fatnet_repro::Cell {
    t.cells
        .iter()
        .find(|c| c.key[0] == k0 && c.key[1].to_string().starts_with(k1))
        .unwrap_or_else(|| panic!("no cell {k0} / {k1}"))
}

#[test]
fn sensitivity_verdicts_and_orders() {
    let t = DirectSensitivity.run(Effort::Quick).unwrap();
    // 8 variants × (3 quick cells + mean offset + 2 claims).
    assert_eq!(t.cells.len(), 48);
    // The quick run's verdicts (deterministic: same seeds, same table).
    assert_eq!(
        (
            count(&t, Verdict::Match),
            count(&t, Verdict::NotSignificant),
            count(&t, Verdict::Mismatch),
            count(&t, Verdict::WithinBound),
            count(&t, Verdict::BoundViolated)
        ),
        (10, 19, 3, 15, 1),
        "{}",
        t.summary()
    );
    let offset = |variant: &str| {
        let c = cell(&t, variant, "mean signed offset");
        (c.ours.shown().unwrap(), c.verdict)
    };
    // Forwarded packets ahead of new ones runs far above the thesis; generation-time priority
    // lands on it; the default lies between.
    let (forwarded, fv) = offset("FIFO, forwarded first");
    let (default, _) = offset("as now (FIFO, new first)");
    let (generation, gv) = offset("generation time");
    assert_eq!((fv, gv), (Verdict::Mismatch, Verdict::Match));
    assert!(
        generation < default && default < forwarded,
        "{generation} {default} {forwarded}"
    );
    // The same births under both windows of 1,000 slots: the order alone moves the delay down.
    let (g1000, _) = offset("generation time, no warm-up, 1,000 slots");
    let (d1000, _) = offset("as now, no warm-up, 1,000 slots");
    assert!(g1000 < d1000);
    // Every claim row names a bound of 1% or 2%.
    for c in t
        .cells
        .iter()
        .filter(|c| c.key[1].to_string().starts_with("claim"))
    {
        assert!(matches!(c.paper, Some(ref p) if p.to_string().starts_with("≤ ")));
    }
}

#[test]
fn heavy_traffic_ratio_stays_under_the_bound_and_away_from_zero() {
    let t = GreedyHeavyTraffic.run(Effort::Quick).unwrap();
    // 2 dimensions × 3 p × 6 loads, then per p: 2 trend rows and one row against d.
    assert_eq!(t.cells.len(), 36 + 9);
    assert_eq!(count(&t, Verdict::WithinBound), 36, "{}", t.summary());
    assert_eq!(count(&t, Verdict::NotInPaper), 9);
    // The ratio T(1 − ρ)/(dp) never exceeds the proved bound 1 + (1 − ρ)/(dp) by more than
    // noise, and the smallest seen is well above 0.
    let ratios: Vec<f64> = t
        .cells
        .iter()
        .filter(|c| c.verdict == Verdict::WithinBound)
        .filter_map(|c| c.ours.shown())
        .collect();
    assert_eq!(ratios.len(), 36);
    assert!(ratios.iter().all(|&r| r > 0.2 && r < 1.1), "{ratios:?}");
    assert!(matches!(t.cells[0].key[0], Value::Int(3)));
}
