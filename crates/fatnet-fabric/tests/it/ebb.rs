//! Effective bisection bandwidth: a bisection computed by hand, nonblocking fabrics (every
//! bisection gets full bandwidth), the draws against their own definition, determinism across
//! seeds and thread counts, refusals, and the shared fabrics against their exact worst case.

use fatnet_fabric::ebb::{MAX_BISECTIONS, bisection_flows};
use fatnet_fabric::{
    BisectionFlows, Ebb, EbbConfig, Fabric, FabricError, analyze, effective_bisection_bandwidth,
    flow_shares, from_folded_clos, random_bisection, read_flitsim,
};
use fatnet_offline::clos::DModM;
use fatnet_topology::FoldedClos;

use crate::shared::{fabrics_dir, flitsim};

fn dmodm(n: u64, m: u64, r: u64) -> Fabric {
    let clos = FoldedClos::new(n, m, r).unwrap();
    from_folded_clos(&clos, &DModM::new(&clos)).unwrap()
}

fn config(bisections: u32, seed: u64) -> EbbConfig {
    EbbConfig {
        bisections,
        seed,
        ..EbbConfig::default()
    }
}

#[test]
fn a_bisection_by_hand() {
    // ftree(3+2, 2) with d-mod-2: bottom 0 holds CAs 0, 1, 2, bottom 1 holds 3, 4, 5; a route
    // across goes up to top `dst mod 2`. Pairs (0,3), (1,4), (2,5), both ways:
    // 0->3 and 2->5 both use top 1 (B0->T1 and T1->B1 carry 2 flows), 1->4 has top 0 alone;
    // back, 3->0 and 5->2 share top 0, 4->1 has top 1 alone.
    let f = dmodm(3, 2, 2);
    let flows = bisection_flows(&[(0, 3), (1, 4), (2, 5)], BisectionFlows::Both);
    assert_eq!(flows, vec![(0, 3), (3, 0), (1, 4), (4, 1), (2, 5), (5, 2)]);
    let shares = flow_shares(&f, &flows).unwrap();
    assert_eq!(shares, vec![0.5, 0.5, 1.0, 1.0, 0.5, 0.5]);
    // The bisection's eBB: (4 · 1/2 + 2 · 1) / 6 = 2/3.
    let ebb = shares.iter().sum::<f64>() / shares.len() as f64;
    assert!((ebb - 2.0 / 3.0).abs() < 1e-15);
    // One way: 0->3, 1->4, 2->5: the same shares 1/2, 1, 1/2.
    let one = flow_shares(
        &f,
        &bisection_flows(&[(0, 3), (1, 4), (2, 5)], BisectionFlows::OneWay),
    )
    .unwrap();
    assert_eq!(one, vec![0.5, 1.0, 0.5]);
    // Pairs on one bottom switch never leave it: full bandwidth; a flow to itself crosses no
    // link.
    assert_eq!(
        flow_shares(&f, &[(0, 1), (1, 0), (3, 3)]).unwrap(),
        vec![1.0; 3]
    );
    // m = 1: everything across shares the one top: 3 flows up from bottom 0.
    let f = dmodm(3, 1, 2);
    let shares = flow_shares(&f, &[(0, 3), (1, 4), (2, 5)]).unwrap();
    assert_eq!(shares, vec![1.0 / 3.0; 3]);
}

#[test]
fn every_draw_is_its_bisection() {
    // Draw i is the bisection of derive_seed(seed, i), and its value the mean of its flows'
    // shares, in both flow modes, on a blocking fabric (m = 1).
    let f = dmodm(3, 1, 4);
    for flows in BisectionFlows::ALL.iter().copied() {
        let cfg = EbbConfig {
            bisections: 40,
            seed: 11,
            bins: 10,
            flows,
        };
        let e = effective_bisection_bandwidth(&f, &cfg).unwrap();
        assert_eq!(e.per_draw.len(), 40);
        assert_eq!(e.cas, 12);
        let per_pair = if flows == BisectionFlows::Both { 2 } else { 1 };
        assert_eq!(e.flows_per_bisection, 6 * per_pair);
        let mut least = 1.0f64;
        for (i, &v) in e.per_draw.iter().enumerate() {
            let pairs = random_bisection(12, fatnet_traffic::derive_seed(11, i as u64));
            // A perfect matching of the 12 positions.
            let mut seen: Vec<u32> = pairs.iter().flat_map(|&(a, b)| [a, b]).collect();
            seen.sort_unstable();
            assert_eq!(seen, (0..12).collect::<Vec<_>>());
            let shares = flow_shares(&f, &bisection_flows(&pairs, flows)).unwrap();
            least = shares.iter().copied().fold(least, f64::min);
            assert_eq!(
                v,
                shares.iter().sum::<f64>() / shares.len() as f64,
                "draw {i}"
            );
        }
        assert_eq!(e.min_flow_share, least);
        // The histogram counts every draw once, in the bin of its value.
        assert_eq!(e.histogram.counts.iter().sum::<u64>(), 40);
        for &v in &e.per_draw {
            let bin = ((v * 10.0).floor() as usize).min(9);
            let (lo, hi) = e.histogram.bin_range(bin);
            assert!(lo <= v && (v < hi || bin == 9));
        }
        assert!(e.min <= e.mean && e.mean <= e.max);
        // m = 1 puts the 3 sources of a bottom switch on its one uplink: worst share 1/3.
        assert!(e.min_flow_share >= 1.0 / 3.0);
        assert!(e.min < 1.0);
    }
}

#[test]
fn nonblocking_fabrics_give_every_bisection_full_bandwidth() {
    // d-mod-m with m >= r·n (r >= 3) and m >= n (r = 2) is nonblocking (Yuan's Lemma 1): no
    // permutation puts two flows on a link, so every share is 1.
    for (n, m, r) in [(2, 10, 5), (3, 3, 2), (4, 4, 2)] {
        let f = dmodm(n, m, r);
        assert!(analyze(&f).unwrap().lemma1.is_nonblocking());
        let e = effective_bisection_bandwidth(&f, &config(200, 3)).unwrap();
        assert!(e.per_draw.iter().all(|&v| v == 1.0), "{n} {m} {r}");
        assert_eq!(
            (e.mean, e.min, e.max, e.min_flow_share),
            (1.0, 1.0, 1.0, 1.0)
        );
        assert_eq!(e.half_width, 0.0);
        assert_eq!(*e.histogram.counts.last().unwrap(), 200);
    }
    // And a blocking one does not: d-mod-m on ftree(2+2, 3) needs m >= 6.
    let f = dmodm(2, 2, 3);
    let e = effective_bisection_bandwidth(&f, &config(200, 3)).unwrap();
    assert!(e.min < 1.0 && e.min_flow_share == 0.5);
}

#[test]
fn same_seed_same_values_any_thread_count() {
    let f = dmodm(4, 2, 6);
    let run = |threads: usize, seed: u64| -> Ebb {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| effective_bisection_bandwidth(&f, &config(300, seed)).unwrap())
    };
    let one = run(1, 5);
    assert_eq!(one, run(4, 5));
    assert_eq!(one, run(3, 5));
    let other = run(2, 6);
    assert_ne!(one.per_draw, other.per_draw);
}

#[test]
fn bad_parameters_and_fabrics_are_typed_errors() {
    let f = dmodm(3, 1, 3); // 9 CAs
    assert!(matches!(
        effective_bisection_bandwidth(&f, &EbbConfig::default()),
        Err(FabricError::BisectionCas { cas: 9 })
    ));
    let f = dmodm(1, 1, 2);
    let bad = |cfg: EbbConfig| effective_bisection_bandwidth(&f, &cfg).unwrap_err();
    assert!(matches!(
        bad(config(0, 1)),
        FabricError::TooSmall {
            what: "bisections",
            value: 0,
            min: 1
        }
    ));
    assert!(matches!(
        bad(EbbConfig {
            bins: 0,
            ..EbbConfig::default()
        }),
        FabricError::TooSmall { value: 0, .. }
    ));
    // Refused before the per-draw values are allocated.
    assert!(matches!(
        bad(config(MAX_BISECTIONS + 1, 1)),
        FabricError::TooLarge { what: "bisections", count, .. } if count == u64::from(MAX_BISECTIONS) + 1
    ));
    // One draw: no interval.
    let one = effective_bisection_bandwidth(&f, &config(1, 1)).unwrap();
    assert!(one.half_width.is_nan() && one.per_draw.len() == 1);
    // Tables with a dead end (A has no entry for H4): the first broken pair, in
    // (source, destination) order, is 0 -> 3.
    let (broken, _) = read_flitsim(
        ("two.ned", include_str!("../fixtures/two-switch/two.ned")),
        (
            "two.fdbs",
            "0: 255 0 1 2 255 255 255\n1: 255 2 2 0 1 255 255\n",
        ),
        (
            "two.fdbs.ini",
            include_str!("../fixtures/two-switch/two.fdbs.ini"),
        ),
        None,
    )
    .unwrap();
    assert!(matches!(
        effective_bisection_bandwidth(&broken, &EbbConfig::default()),
        Err(FabricError::BadRoute { src: 0, dst: 3, .. })
    ));
    assert!(matches!(
        flow_shares(&broken, &[(0, 4)]),
        Err(FabricError::CaOutOfRange { index: 4, cas: 4 })
    ));
}

/// On a real fabric: every draw and every flow share lies in `[1 / worst contention, 1]`, and
/// two independent runs agree within their intervals.
fn shared_fabric(name: &str, bisections: u32) -> Option<(Ebb, u32)> {
    let dir = fabrics_dir()?;
    let (f, _) = flitsim(&dir, name);
    let worst = analyze(&f).unwrap().worst.contention;
    let e = effective_bisection_bandwidth(&f, &config(bisections, 1)).unwrap();
    let low = 1.0 / f64::from(worst);
    assert!(e.per_draw.iter().all(|&v| (low..=1.0).contains(&v)));
    assert!(e.min_flow_share >= low && e.min_flow_share <= e.min);
    assert!(e.half_width > 0.0 && e.half_width < 0.05);
    let again = effective_bisection_bandwidth(&f, &config(bisections, 2)).unwrap();
    assert!(
        (e.mean - again.mean).abs() <= e.half_width + again.half_width,
        "{} ± {} vs {} ± {}",
        e.mean,
        e.half_width,
        again.mean,
        again.half_width
    );
    eprintln!(
        "{name}: eBB {:.4} ± {:.4} (95 %), min {:.4}, max {:.4}, least flow share {:.4}, worst-case contention {worst}",
        e.mean, e.half_width, e.min, e.max, e.min_flow_share
    );
    Some((e, worst))
}

#[test]
fn shared_is1_3l_32n() {
    let Some((e, worst)) = shared_fabric("is1_3l_32n", 1000) else {
        return;
    };
    // Blocking (worst contention above 1), so some bisection loses bandwidth.
    assert!(worst > 1);
    assert!(e.min < 1.0);
    assert_eq!(e.cas, 32);
}

#[test]
fn shared_is4_3l_1944n() {
    let Some((e, worst)) = shared_fabric("is4_3l_1944n", 200) else {
        return;
    };
    assert!(worst > 1);
    assert_eq!(e.flows_per_bisection, 1944);
    // Far from a crossbar: a full-bisection fat-tree under static routing loses a large part
    // of its bisection bandwidth to random bisections.
    assert!(e.max < 1.0);
}
