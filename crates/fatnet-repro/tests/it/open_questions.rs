//! The open-question tables of Greenberg–Leiserson (`open-questions/offline_cycles`,
//! `open-questions/greedy_growth`): their quick runs have every row, the verdict counts the
//! rows imply, and cells consistent with their own numbers.

use fatnet_repro::open_greedy_growth::GreedyGrowth;
use fatnet_repro::open_offline_cycles::OfflineCycles;
use fatnet_repro::{Effort, Experiment, Verdict};

fn count(table: &fatnet_repro::Table, v: Verdict) -> usize {
    table.cells.iter().filter(|c| c.verdict == v).count()
}

#[test]
fn offline_cycles_quick_has_a_bound_and_a_ratio_per_row_and_the_optimum_is_never_below_lambda() {
    let table = OfflineCycles.run(Effort::Quick).unwrap();
    let rows = OfflineCycles::specs(Effort::Quick).len();
    // Every row: the bounds cell (⌈λ⌉ ≤ optimum ≤ Leiserson, checked) and the worst ratio;
    // then one summary cell.
    assert_eq!(table.cells.len(), 2 * rows + 1);
    assert_eq!(count(&table, Verdict::WithinBound), rows);
    assert_eq!(count(&table, Verdict::NotInPaper), rows + 1);
    for c in table
        .cells
        .iter()
        .filter(|c| c.key[3] == "max optimum/(λ + lg n)")
    {
        let get = |label: &str| c.detail.field(label).and_then(|v| v.exact()).unwrap();
        let (optimum, ceil, lam, lg_n, leiserson) = (
            get("optimum"),
            get("⌈λ⌉"),
            get("λ"),
            get("lg n"),
            get("Leiserson"),
        );
        assert!(ceil <= optimum && optimum <= leiserson, "{:?}", c.key);
        let ratio = c.ours.exact().unwrap();
        assert!((ratio - optimum / (lam + lg_n)).abs() < 1e-9);
    }
    // The summary cell is the largest ratio of the rows.
    let largest = table
        .cells
        .iter()
        .filter(|c| c.key[3] == "max optimum/(λ + lg n)")
        .map(|c| c.ours.exact().unwrap())
        .fold(0.0, f64::max);
    let summary = table.cells.last().unwrap();
    assert_eq!(summary.key[3], "largest optimum/(λ + lg n)");
    assert_eq!(summary.ours.exact(), Some(largest));
    assert!(
        table
            .notes
            .iter()
            .any(|n| n.starts_with("Largest optimum/(λ + lg n) found"))
    );
}

#[test]
fn greedy_growth_quick_checks_theorem9_on_powers_of_four_and_compares_with_the_search() {
    let table = GreedyGrowth.run(Effort::Quick).unwrap();
    let (sizes, _, _) = GreedyGrowth::plan(Effort::Quick);
    let fours = sizes.iter().filter(|l| l.is_multiple_of(2)).count();
    assert_eq!(table.cells.len(), sizes.len() + 2 * fours);
    assert_eq!(count(&table, Verdict::WithinBound), fours);
    assert_eq!(count(&table, Verdict::NotInPaper), sizes.len() + fours);
    for &l in sizes {
        let n = f64::from(1u32 << l);
        let of = |set: &str| {
            table
                .cells
                .iter()
                .find(|c| c.key[0].shown() == Some(n) && c.key[1] == set)
        };
        let search = of("search best").expect("a search row per n");
        let r = search.ours.exact().unwrap();
        let cycles = search
            .detail
            .field("cycles")
            .and_then(|v| v.exact())
            .unwrap();
        let lam = search.detail.field("λ(M)").and_then(|v| v.exact()).unwrap();
        assert!((r - cycles / lam).abs() < 1e-9);
        // GREEDY never beats the lower bound ⌈λ⌉.
        assert!(cycles >= lam.ceil());
        if let Some(vs) = of("search vs adversary") {
            let a = vs
                .detail
                .field("adversary")
                .and_then(|v| v.shown())
                .unwrap();
            let s = vs.detail.field("search").and_then(|v| v.shown()).unwrap();
            let said = if s >= a {
                "search ≥ adversary"
            } else {
                "search < adversary"
            };
            assert_eq!(vs.ours, said);
        }
    }
}
