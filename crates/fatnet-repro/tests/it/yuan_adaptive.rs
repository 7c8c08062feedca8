//! Yuan's adaptive side (`yuan/adaptive`) and the open question `open-questions/yuan_adaptive_m`:
//! the tables' verdicts are what the computations give, and Lemma 6 / Theorem 5's recurrence
//! hold on random small cases.

use fatnet::offline::clos::{AdaptiveConfig, adaptive_top_bound, min_digits, nonblocking_adaptive};
use fatnet::topology::FoldedClos;
use fatnet::traffic::{Message, MessageSet};
use fatnet_repro::open_yuan_adaptive::{AdaptiveM, conflict_graph, edge_colour, is_proper};
use fatnet_repro::yuan_adaptive::{
    Adaptive, EXHAUSTIVE, exhaustive, lemma6_bound, lemma6_class, theorem5_configurations,
    three_level,
};
use fatnet_repro::{Effort, Experiment, Value, Verdict};
use proptest::prelude::*;

fn count(t: &fatnet_repro::Table, v: Verdict) -> usize {
    t.cells.iter().filter(|c| c.verdict == v).count()
}

#[test]
fn adaptive_verdicts_are_what_the_run_gives() {
    let t = Adaptive.run(Effort::Quick).unwrap();
    // The bound cells of the exhaustive rows: recomputed independently of the table.
    let mut over = 0;
    for (n, r) in EXHAUSTIVE {
        let w = exhaustive(n, r).unwrap();
        assert_eq!(w.contention_free, w.routings, "n={n} r={r}");
        over += usize::from(w.max_spanned > n * n);
        let c = min_digits(n, r).unwrap();
        // The remark before Theorem 5, with its ceiling, bounds every case.
        assert!(w.max_needed <= adaptive_top_bound(n, c));
        let cell = t
            .cells
            .iter()
            .find(|cell| {
                cell.key[0] == format!("n={n}, r={r} (c={c})").as_str()
                    && cell.key[1].to_string().starts_with("top switches")
            })
            .unwrap();
        assert_eq!(cell.ours, Value::Int(i128::from(w.max_spanned)));
    }
    // (2, 4): one configuration of 3·2 = 6 tops (the implementation note, C-T5.1), above n² = 4.
    let w = exhaustive(2, 4).unwrap();
    assert_eq!((w.max_configurations, w.max_spanned), (1, 6));
    let violated = t
        .cells
        .iter()
        .filter(|c| c.verdict == Verdict::BoundViolated)
        .count();
    assert!(violated >= over, "{}", t.summary());
    // The three-level rows: the built network has 2n⁴+2n³+n² switches, so every printed
    // 2n⁴+3n³+n² is a suspected misprint and nothing else is.
    for n in 2..=6u64 {
        let b = three_level(n).unwrap();
        assert_eq!(b.switches, 2 * n.pow(4) + 2 * n.pow(3) + n * n);
        assert_eq!(b.ports, n.pow(4) + n.pow(3));
    }
    assert_eq!(count(&t, Verdict::SuspectedMisprint), 5);
    // No mismatch: Theorem 4 held on every routing, Lemma 6 and the Theorem 5 trend too.
    assert_eq!(count(&t, Verdict::Mismatch), 0, "{}", t.summary());
    assert!(Adaptive.quick_differs());
}

#[test]
fn the_note_witness_needs_two_configurations() {
    let w = fatnet_repro::yuan_adaptive::note_witness().unwrap();
    // Two configurations of (c+1)·n = 18 tops: the paper's count is n² = 36; the second
    // configuration's first partition is used, so 19 tops are spanned.
    assert_eq!((w.max_configurations, w.max_needed), (2, 36));
    assert!(w.max_spanned > 18 && w.max_spanned <= 36);
    assert_eq!(w.contention_free, 1);
}

#[test]
fn open_question_classes_are_ordered() {
    let t = AdaptiveM.run(Effort::Full).unwrap();
    let (mut violated, mut within, mut matched) = (0, 0, 0);
    for (n, r) in fatnet_repro::open_yuan_adaptive::INSTANCES {
        let a = fatnet_repro::open_yuan_adaptive::answer(n, r, 1).unwrap();
        // Classes 1-2 against n², class 3 within n², class 4 equal to n.
        for m in [a.nba, a.nba_best.0] {
            if m <= n * n {
                within += 1;
            } else {
                violated += 1;
            }
        }
        within += 1;
        matched += 1;
        // The colouring found routes every permutation checked.
        assert_eq!(a.local_checked.0, a.local_checked.1);
        assert_eq!(a.local.exact().is_some(), a.local_checked.0 > 0);
        // Global ≤ any local ≤ NONBLOCKINGADAPTIVE's best tie ≤ its default.
        assert_eq!(a.global.0, n);
        assert_eq!(a.global.1, a.global.2);
        assert!(a.local.lower >= n && a.local.upper <= a.nba_best.0.max(n * n));
        assert!(a.nba_best.0 <= a.nba);
        if r == 2 {
            // No two source switches share a destination switch: n suffice.
            assert_eq!(a.local.exact(), Some(n));
        }
    }
    assert_eq!(
        count(&t, Verdict::BoundViolated),
        violated,
        "{}",
        t.summary()
    );
    assert_eq!(count(&t, Verdict::WithinBound), within, "{}", t.summary());
    assert_eq!(count(&t, Verdict::Match), matched, "{}", t.summary());
}

#[test]
fn edge_colouring_of_a_shift_uses_n_colours() {
    let (n, r) = (3, 4);
    let msgs: Vec<(u32, u32)> = (0..n * r).map(|s| (s, (s + n) % (n * r))).collect();
    let (colours, delta) = edge_colour(n, r, &msgs);
    assert_eq!(delta, n);
    // Proper: no two pairs of one source switch, or of one destination switch, share a colour.
    for (i, a) in msgs.iter().enumerate() {
        for (j, b) in msgs.iter().enumerate().skip(i + 1) {
            if a.0 / n == b.0 / n || a.1 / n == b.1 / n {
                assert_ne!(colours[i], colours[j]);
            }
        }
    }
    let g = conflict_graph(2, 2);
    assert!(!is_proper(&g, &vec![0; g.vertices.len()]));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Lemma 6: any k distinct numbers of c+1 base-n digits have a class (distinct d_0, or
    /// distinct (d_i − d_0) mod n) of at least ⌈k^(1/(2(c+1)))⌉.
    #[test]
    fn lemma6_holds(n in 2..=6u32, c in 1..=3u32, picks in proptest::collection::vec(any::<u32>(), 1..60)) {
        let size = n.pow(c + 1);
        let mut set: Vec<u32> = picks.iter().map(|x| x % size).collect();
        set.sort_unstable();
        set.dedup();
        let k = set.len() as u64;
        prop_assert!(lemma6_class(n, c, &set) >= lemma6_bound(k, c));
    }

    /// Theorems 4–5 on one source switch: NONBLOCKINGADAPTIVE routes any destination set
    /// contention-free, within the Theorem 5 recurrence and the ⌈n/(c+2)⌉ configurations.
    #[test]
    fn adaptive_within_theorem5_recurrence(n in 2..=8u32, r_frac in 0.0..1.0f64, v_frac in 0.0..1.0f64, picks in proptest::collection::vec(any::<u32>(), 1..8)) {
        let r = 2 + ((n * n - 1) as f64 * r_frac) as u32;
        let c = min_digits(n, r).unwrap();
        let v = ((r as f64 * v_frac) as u32).min(r - 1);
        let clos = FoldedClos::new(u64::from(n), adaptive_top_bound(n, c), u64::from(r)).unwrap();
        let outside: Vec<u32> = (0..n * r).filter(|&d| d / n != v).collect();
        let mut dst: Vec<u32> = picks.iter().map(|x| outside[*x as usize % outside.len()]).collect();
        dst.sort_unstable();
        dst.dedup();
        dst.truncate(n as usize);
        let msgs = dst.iter().enumerate().map(|(k, &d)| Message::new(v * n + k as u32, d)).collect();
        let set = MessageSet::new(n * r, msgs).unwrap();
        let out = nonblocking_adaptive(&clos, &set, &AdaptiveConfig::default()).unwrap();
        prop_assert!(out.report.is_contention_free());
        prop_assert!(u64::from(out.configurations) <= theorem5_configurations(dst.len() as u64, c));
        prop_assert!(u64::from(out.configurations) <= u64::from(n.div_ceil(c + 2)));
    }
}
