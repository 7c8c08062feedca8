//! The congestion parameter `r` against the note's reference values (paper 000, §3 row
//! "def r": leaf-to-leaf paths, `lg n → ∞`). Sixty levels put the limit well within `f64`: the
//! terms of high channels are `(e/r)^{2^30}`.

use std::f64::consts::E;

use fatnet_queueing::greenberg_leiserson::{congestion_parameter, worst_path_sum};

const LEVELS: u32 = 60;

fn profile(cap: impl Fn(u32) -> u64) -> Vec<u64> {
    (0..=LEVELS).map(cap).collect()
}

fn assert_r(name: &str, caps: &[u64], published: f64) {
    let r = congestion_parameter(caps).unwrap();
    assert!(
        (r - published).abs() < 0.005,
        "{name}: r = {r}, note gives {published}"
    );
    // The returned r satisfies the definition, and a slightly smaller one does not.
    assert!(worst_path_sum(caps, r).unwrap() <= 0.5);
    assert!(worst_path_sum(caps, r * (1.0 - 1e-9)).unwrap() > 0.5);
}

#[test]
fn standard_floor_half_h() {
    assert_r("2^⌊h/2⌋", &profile(|h| 1 << (h / 2)), 24.22);
}

#[test]
fn standard_ceil_half_h() {
    assert_r("2^⌈h/2⌉", &profile(|h| 1 << h.div_ceil(2)), 14.96);
}

#[test]
fn area_universal_rounded() {
    assert_r(
        "round(2^(h/2))",
        &profile(|h| (f64::from(h) / 2.0).exp2().round() as u64),
        23.19,
    );
}

#[test]
fn volume_universal_rounded() {
    assert_r(
        "round(2^(2h/3))",
        &profile(|h| (2.0 * f64::from(h) / 3.0).exp2().round() as u64),
        13.58,
    );
}

#[test]
fn doubling_every_level() {
    assert_r("2^h", &profile(|h| 1 << h), 13.21);
}

#[test]
fn all_ones_is_four_e_lg_n() {
    for levels in [1usize, 4, 10, 60] {
        let r = congestion_parameter(&vec![1; levels + 1]).unwrap();
        assert_eq!(r, 4.0 * E * levels as f64);
    }
    let r = congestion_parameter(&[1; 5]).unwrap();
    assert!((r - 43.49).abs() < 0.005, "{r}");
}

#[test]
fn the_limit_is_reached_well_before_sixty_levels() {
    // The standard tree's r at 20 and 60 levels agree to 1e-9: the series converges doubly
    // exponentially.
    let r20 =
        congestion_parameter(&(0..=20u32).map(|h| 1u64 << (h / 2)).collect::<Vec<_>>()).unwrap();
    let r60 = congestion_parameter(&profile(|h| 1 << (h / 2))).unwrap();
    assert!((r20 - r60).abs() < 1e-9 * r60, "{r20} vs {r60}");
}
