//! Greenberg–Oh's STORE readings (`greenberg-oh/store_variants`): the table's verdicts and
//! the facts about each reading that hold whatever the random draws.

use fatnet_repro::greenberg_oh::{Algorithm, PAPER_TABLE1, Pattern, runs};
use fatnet_repro::greenberg_oh_store::{ORDERING, READINGS, StoreVariants, VERSUS_FP};
use fatnet_repro::{Cell, Effort, Experiment, Value, Verdict};

#[test]
fn store_readings_table_verdicts() {
    let t = StoreVariants.run(Effort::Quick).unwrap();
    let sizes = [16u32, 64, 256];
    // Per size and reading: three Table I cells and the RP/GP ordering; per size, sticky RP
    // against FP.
    assert_eq!(t.cells.len(), sizes.len() * (READINGS.len() * 4 + 1));
    let total: usize = t.verdict_counts().iter().map(|&(_, k)| k).sum();
    assert_eq!(total, t.cells.len());
    // Every cell is compared with the paper: no extension rows, no bounds.
    assert!(
        t.cells.iter().all(|c| matches!(
            c.verdict,
            Verdict::Match | Verdict::WithinTolerance | Verdict::NotSignificant | Verdict::Mismatch
        )),
        "{}",
        t.summary()
    );
    let cell = |n: u32, reading: &str, column: &str| -> &Cell {
        t.cells
            .iter()
            .find(|c| c.key[0] == Value::from(n) && c.key[1] == reading && c.key[2] == column)
            .unwrap_or_else(|| panic!("no cell {n} {reading} {column}"))
    };
    let many = Pattern::ManyToOne.label();
    for (i, &n) in sizes.iter().enumerate() {
        let printed = PAPER_TABLE1[i][2] as i128;
        // The default is Table I's reading: exact on many-to-1, its random cell Table I's.
        let default = cell(n, READINGS[0].name, many);
        assert_eq!(
            (default.ours.clone(), default.verdict),
            (Value::Int(printed), Verdict::Match)
        );
        let table1 = runs(Algorithm::STORE, Pattern::Random, n, 5).unwrap();
        let mean = table1.iter().map(|t| t.latency as f64).sum::<f64>() / 5.0;
        let ours = cell(n, READINGS[0].name, Pattern::Random.label());
        assert!((ours.ours.shown().unwrap() - mean).abs() < 0.05, "{ours:?}");
        // The clock at the drain: one packet-step more in every trial.
        let drain = cell(n, "(c2) clock at drain", many);
        assert_eq!(
            (drain.ours.clone(), drain.verdict),
            (Value::Int(printed + 32), Verdict::Mismatch)
        );
        // Same-step moves and immediate sinks lift the halving of the 1-packet queues: the
        // hot spot drains faster than the paper's closed form in every trial.
        for reading in ["(b) same-step moves", "(a) + (b)", "(c1) immediate sink"] {
            let c = cell(n, reading, many);
            assert_eq!(c.verdict, Verdict::Mismatch, "{reading}");
            assert!(c.ours.shown().unwrap() < printed as f64, "{reading}: {c:?}");
        }
        // One ordering cell per reading.
        for r in &READINGS {
            let c = cell(n, r.name, ORDERING);
            assert!(c.paper.is_some());
        }
        assert!(cell(n, "(d) sticky RP draw", VERSUS_FP).paper.is_some());
    }
    // The notes quote the paper and state the outcome.
    assert!(
        t.notes
            .iter()
            .any(|n| n.contains("If the link is blocked, the packet waits"))
    );
    assert!(
        t.notes
            .iter()
            .any(|n| n.contains("Documented search, no cause found"))
    );
}
