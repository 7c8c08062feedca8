//! Properties of Yuan's folded Clos results (paper 001): Lemma 1 against brute force over all
//! permutations, Theorem 3 (the n² routing), d-mod-m's exact blocking condition, the exact
//! worst-case contention, NONBLOCKINGADAPTIVE (Theorem 4) and the minimum-m search.

use fatnet_offline::OfflineError;
use fatnet_offline::clos::{
    AdaptiveConfig, ClosChannel, ClosRouting, DModM, MinTopSearch, PartitionTie, Representative,
    RoutingTable, SModM, YuanRouting, adaptive_top_bound, check_nonblocking, min_digits,
    min_top_switches, nonblocking_adaptive, simulate, simulate_routing, verify_counterexample,
    worst_contention,
};
use fatnet_topology::FoldedClos;
use fatnet_traffic::{Message, MessageSet};
use proptest::prelude::*;
use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_pcg::Pcg64;

fn ftree(n: u32, m: u32, r: u32) -> FoldedClos {
    FoldedClos::new(u64::from(n), u64::from(m), u64::from(r)).unwrap()
}

/// Calls `f` on every partial permutation of `0..p` (every injective map from a subset of
/// the sources to the destinations), the empty one included.
fn for_each_partial_permutation(p: u32, f: &mut impl FnMut(&[Message])) {
    fn go(
        s: u32,
        p: u32,
        used: &mut Vec<bool>,
        cur: &mut Vec<Message>,
        f: &mut impl FnMut(&[Message]),
    ) {
        if s == p {
            f(cur);
            return;
        }
        go(s + 1, p, used, cur, f);
        for d in 0..p {
            if !used[d as usize] {
                used[d as usize] = true;
                cur.push(Message::new(s, d));
                go(s + 1, p, used, cur, f);
                cur.pop();
                used[d as usize] = false;
            }
        }
    }
    go(0, p, &mut vec![false; p as usize], &mut Vec::new(), f);
}

/// The brute-force worst case: the largest load any partial permutation puts on a link
/// between the levels, by the simulator, and how many permutations were tried.
fn brute_force_worst(clos: &FoldedClos, routing: &impl ClosRouting) -> (u32, u64) {
    let (mut worst, mut tried) = (0, 0u64);
    for_each_partial_permutation(clos.ports(), &mut |perm| {
        tried += 1;
        let msgs = MessageSet::new(clos.ports(), perm.to_vec()).unwrap();
        let rep = simulate_routing(clos, routing, &msgs).unwrap();
        assert!(
            rep.contended
                .iter()
                .all(|c| matches!(c.channel, ClosChannel::Up { .. } | ClosChannel::Down { .. })),
            "a leaf channel is contended in a permutation"
        );
        worst = worst.max(rep.contended.iter().map(|c| c.load).max().unwrap_or(0));
    });
    (worst.max(u32::from(tried > 1 && has_cross(clos))), tried)
}

fn has_cross(clos: &FoldedClos) -> bool {
    clos.r() >= 2
}

#[test]
fn partial_permutations_are_counted_right() {
    // Σ_k C(p,k)² k!: 1, 2, 7, 34, 209, 1546, 13327 for p = 0..6.
    for (p, count) in [(1, 2), (2, 7), (3, 34), (4, 209), (6, 13_327)] {
        let mut k = 0;
        for_each_partial_permutation(p, &mut |_| k += 1);
        assert_eq!(k, count, "p = {p}");
    }
}

#[test]
fn yuan_routing_is_nonblocking_by_the_checker() {
    // Note C-T3.1/C-T3.2: every n <= 4, r <= 11 with m = n².
    for n in 1..=4u32 {
        for r in 1..=11u32 {
            let clos = ftree(n, n * n, r);
            let rep = check_nonblocking(&clos, &YuanRouting::new(&clos).unwrap()).unwrap();
            assert!(rep.is_nonblocking(), "n={n} r={r}: {rep:?}");
            let cross = u64::from(r * (r - 1) * n * n);
            assert_eq!((rep.cross_pairs, rep.paths), (cross, cross));
            // Each link carries exactly r−1 pairs (Fig. 3).
            assert_eq!(rep.max_link_pairs, u64::from(r - 1), "n={n} r={r}");
            // With more tops than n², the extra ones stay idle and nothing changes.
            let wide = ftree(n, n * n + 2, r);
            assert!(
                check_nonblocking(&wide, &YuanRouting::new(&wide).unwrap())
                    .unwrap()
                    .is_nonblocking()
            );
        }
    }
}

#[test]
fn yuan_routing_is_contention_free_on_every_permutation_of_ftree_2_4_3() {
    // Note C1.3 extended to partial permutations: n = 2, r = 3, m = 4, 13 327 permutations.
    let clos = ftree(2, 4, 3);
    let yuan = YuanRouting::new(&clos).unwrap();
    let mut tried = 0;
    for_each_partial_permutation(clos.ports(), &mut |perm| {
        tried += 1;
        let msgs = MessageSet::new(6, perm.to_vec()).unwrap();
        let rep = simulate_routing(&clos, &yuan, &msgs).unwrap();
        assert!(rep.is_contention_free(), "{perm:?}: {rep:?}");
    });
    assert_eq!(tried, 13_327);
    // And d-mod-m on the same network (m = 4 < r·n = 6) has a permutation that collides.
    let (worst, _) = brute_force_worst(&clos, &DModM::new(&clos));
    assert_eq!(worst, 2);
}

/// d-mod-m's exact blocking condition (see [`DModM`]): n >= 2, r >= 2, and m < n for r = 2,
/// m < r·n for r >= 3.
fn dmodm_blocks(n: u32, m: u32, r: u32) -> bool {
    n >= 2 && r >= 2 && if r == 2 { m < n } else { m < r * n }
}

#[test]
fn dmodm_blocks_exactly_when_predicted_with_valid_counterexamples() {
    for n in 1..=4u32 {
        for r in 1..=7u32 {
            for m in 1..=(r * n + 2) {
                let clos = ftree(n, m, r);
                for routing in [&DModM::new(&clos) as &dyn ClosRouting, &SModM::new(&clos)] {
                    let rep = check_nonblocking(&clos, routing).unwrap();
                    // s-mod-m is d-mod-m with the roles of sources and destinations swapped.
                    assert_eq!(
                        !rep.is_nonblocking(),
                        dmodm_blocks(n, m, r),
                        "n={n} m={m} r={r}"
                    );
                    if let Some(cx) = rep.counterexample {
                        assert!(verify_counterexample(&clos, routing, &cx), "{cx:?}");
                        assert!(rep.blocking_links >= 1);
                    } else {
                        assert_eq!(rep.blocking_links, 0);
                    }
                }
                // In particular: for n, r >= 2, every m < n² blocks when r >= 3 and r >= n
                // (so always when r >= 2n+1, as Theorem 2 demands of any routing).
                if n >= 2 && r >= 3 && r >= n && m < n * n {
                    assert!(dmodm_blocks(n, m, r));
                }
            }
        }
    }
    // Where d-mod-m is nonblocking below n²: r = 2 with n <= m, and r < n with r·n <= m.
    assert!(!dmodm_blocks(3, 3, 2));
    assert!(!dmodm_blocks(4, 12, 3));
}

/// A random single-path table on `clos`.
fn random_table(clos: &FoldedClos, seed: u64) -> RoutingTable {
    let mut rng = Pcg64::seed_from_u64(seed);
    let m = clos.m();
    RoutingTable::from_fn(clos, |_, _| rand::Rng::random_range(&mut rng, 0..m)).unwrap()
}

/// A random multipath table: every pair gets 1..=2 tops.
fn random_multi_table(clos: &FoldedClos, seed: u64) -> RoutingTable {
    let mut rng = Pcg64::seed_from_u64(seed);
    let m = clos.m();
    RoutingTable::from_fn_multi(clos, |_, _| {
        let k = rand::Rng::random_range(&mut rng, 1..=2);
        (0..k)
            .map(|_| rand::Rng::random_range(&mut rng, 0..m))
            .collect()
    })
    .unwrap()
}

/// Tiny networks: at most 6 processors (13 327 partial permutations).
fn tiny() -> impl Strategy<Value = (u32, u32, u32)> {
    prop_oneof![
        (Just(1u32), 2..=5u32, 1..=3u32),
        (Just(2u32), 2..=3u32, 1..=5u32),
        (Just(3u32), Just(2u32), 1..=4u32),
    ]
    .prop_map(|(n, r, m)| (n, m, r))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Lemma 1 (note C1.1) and the exact worst case against brute force over every partial
    /// permutation, for random single-path and multipath routings.
    #[test]
    fn checker_and_worst_case_match_brute_force((n, m, r) in tiny(), seed in any::<u64>(), multi in any::<bool>()) {
        let clos = ftree(n, m, r);
        let table = if multi { random_multi_table(&clos, seed) } else { random_table(&clos, seed) };
        let (brute, _) = brute_force_worst(&clos, &table);
        let rep = check_nonblocking(&clos, &table).unwrap();
        prop_assert_eq!(rep.is_nonblocking(), brute <= 1);
        if let Some(cx) = rep.counterexample {
            prop_assert!(verify_counterexample(&clos, &table, &cx));
        }
        let worst = worst_contention(&clos, &table).unwrap();
        prop_assert_eq!(worst.contention, brute);
        prop_assert!(worst.contention <= n);
        // The reported permutation attains it on the reported link.
        let msgs = MessageSet::new(clos.ports(), worst.permutation.clone()).unwrap();
        prop_assert!(msgs.is_permutation());
        let sim = simulate_routing(&clos, &table, &msgs).unwrap();
        if worst.contention >= 2 {
            let link = worst.link.unwrap();
            prop_assert!(sim.contended.iter().any(|c| c.channel == link && c.load == worst.contention));
        } else {
            prop_assert!(sim.is_contention_free());
        }
    }

    /// NONBLOCKINGADAPTIVE (Theorem 4) on random partial permutations, with every
    /// tie-breaking option: contention-free by the simulator, within the top-switch bound,
    /// and local (the routes of a switch's pairs depend only on that switch's pairs).
    #[test]
    fn adaptive_is_contention_free_and_local(
        n in 2..=6u32,
        extra_digits in 0..=1u32,
        r_frac in 0.0..1.0f64,
        keep in 0.3..=1.0f64,
        seed in any::<u64>(),
        highest in any::<bool>(),
        largest in any::<bool>(),
    ) {
        // r between 2 and n^2 (c = 2 at most by default), capped for speed.
        let r_max = (n * n).min(30);
        let r = 2 + ((r_max - 2) as f64 * r_frac) as u32;
        let c = min_digits(n, r).unwrap() + extra_digits;
        let m = adaptive_top_bound(n, c) as u32;
        let clos = ftree(n, m, r);
        let p = clos.ports();
        let mut rng = Pcg64::seed_from_u64(seed);
        let mut dst: Vec<u32> = (0..p).collect();
        dst.shuffle(&mut rng);
        let msgs: Vec<Message> = (0..p)
            .filter(|_| rand::Rng::random_bool(&mut rng, keep))
            .map(|s| Message::new(s, dst[s as usize]))
            .collect();
        let perm = MessageSet::new(p, msgs.clone()).unwrap();
        let config = AdaptiveConfig {
            digits: Some(c),
            partition_tie: if highest { PartitionTie::Highest } else { PartitionTie::Lowest },
            representative: if largest { Representative::LargestDestination } else { Representative::SmallestDestination },
        };
        let out = nonblocking_adaptive(&clos, &perm, &config).unwrap();
        prop_assert!(out.report.is_contention_free(), "{:?}", out.report);
        // The report is the simulator's, on these routes.
        prop_assert_eq!(&simulate(&clos, &perm, &out.tops).unwrap(), &out.report);
        prop_assert!(u64::from(out.configurations) <= u64::from(n).div_ceil(u64::from(c) + 2));
        prop_assert!(u64::from(out.tops_spanned) <= out.tops_needed);
        prop_assert!(out.tops_needed <= adaptive_top_bound(n, c));
        // Locality (P2): drop the pairs of every other source switch, reverse the order:
        // the routes of switch 0's pairs do not change.
        let mine: Vec<(usize, Message)> = msgs
            .iter()
            .copied()
            .enumerate()
            .filter(|(_, m)| m.src / n == 0)
            .rev()
            .collect();
        let alone = MessageSet::new(p, mine.iter().map(|&(_, m)| m).collect()).unwrap();
        let out_alone = nonblocking_adaptive(&clos, &alone, &config).unwrap();
        for (k, &(i, _)) in mine.iter().enumerate() {
            prop_assert_eq!(out_alone.tops[k], out.tops[i]);
        }
    }
}

#[test]
fn adaptive_on_every_permutation_of_ftree_2_m_4() {
    // Note C-T4.1: n = 2, r = 4 (c = 2), all 8! full permutations, m = ⌈2/4⌉·3·2 = 6.
    let clos = ftree(2, 6, 4);
    let mut dst: Vec<u32> = (0..8).collect();
    let mut count = 0;
    let mut most_configurations = 0;
    // Heap's algorithm over the destinations.
    fn heap(k: usize, a: &mut Vec<u32>, f: &mut impl FnMut(&[u32])) {
        if k == 1 {
            f(a);
            return;
        }
        for i in 0..k - 1 {
            heap(k - 1, a, f);
            if k.is_multiple_of(2) {
                a.swap(i, k - 1)
            } else {
                a.swap(0, k - 1)
            }
        }
        heap(k - 1, a, f);
    }
    heap(8, &mut dst, &mut |d| {
        count += 1;
        let perm =
            MessageSet::new(8, (0..8).map(|s| Message::new(s, d[s as usize])).collect()).unwrap();
        let out = nonblocking_adaptive(&clos, &perm, &AdaptiveConfig::default()).unwrap();
        assert!(out.report.is_contention_free(), "{d:?}");
        most_configurations = most_configurations.max(out.configurations);
    });
    assert_eq!(count, 40_320);
    // Note §3 C-T5.1: (2, 4) needs one configuration, 6 tops (> n² = 4).
    assert_eq!(most_configurations, 1);
}

#[test]
fn adaptive_rejects_too_few_tops() {
    // n = 3, r = 9, c = 2: a configuration is 9 tops. Switch 0 sends to leaves 3, 12, 21
    // (switches 1, 4, 7: same p = 0 and s_0 = 1, s_1 = 0, 1, 2), which only the third
    // partition separates: tops 6, 7, 8.
    let n = 3;
    let perm = MessageSet::new(
        27,
        vec![Message::new(0, 3), Message::new(1, 12), Message::new(2, 21)],
    )
    .unwrap();
    let clos = ftree(n, 3 * n - 1, n * n);
    assert_eq!(
        nonblocking_adaptive(&clos, &perm, &AdaptiveConfig::default()),
        Err(OfflineError::TooFewTopSwitches {
            what: "NONBLOCKINGADAPTIVE on this permutation",
            needed: 9,
            m: 8
        })
    );
    let clos = ftree(n, 3 * n, n * n);
    let out = nonblocking_adaptive(&clos, &perm, &AdaptiveConfig::default()).unwrap();
    assert_eq!(out.tops, vec![Some(6), Some(7), Some(8)]);
    assert_eq!(
        (out.configurations, out.tops_needed, out.tops_spanned),
        (1, 9, 9)
    );
    assert!(out.report.is_contention_free());
}

#[test]
fn minimum_m_certificates_survive_brute_force() {
    // The certificates of the exhaustive search for (2,2) and (2,3), and the infeasibility of
    // m = 3 for (2, 3): every routing with 3 tops blocks some permutation (spot-checked on
    // random tables).
    let cfg = MinTopSearch::default();
    for (n, r, min) in [(2, 2, 2), (2, 3, 4), (3, 2, 3)] {
        let res = min_top_switches(n, r, &cfg).unwrap();
        assert_eq!(res.exact(), Some(min));
        let clos = ftree(n, min, r);
        let (worst, _) = brute_force_worst(&clos, &res.certificate);
        assert_eq!(worst, 1, "n={n} r={r}");
        let small = ftree(n, min - 1, r);
        for seed in 0..20 {
            let rep = check_nonblocking(&small, &random_table(&small, seed)).unwrap();
            assert!(!rep.is_nonblocking());
        }
    }
    // Theorem 1 is a lower bound wherever it applies (r <= 2n+1), and n² an upper bound.
    for (n, r) in [(2, 2), (2, 3), (2, 4), (2, 5), (3, 2), (3, 3), (4, 2)] {
        let res = min_top_switches(n, r, &cfg).unwrap();
        let m = res.exact().unwrap();
        assert!(u64::from(m) >= res.theorem1_bound);
        assert!(m <= n * n);
        if r > 2 * n {
            assert_eq!(m, n * n, "Theorem 2");
        }
    }
}
