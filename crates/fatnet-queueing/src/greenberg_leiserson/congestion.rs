//! The congestion parameter `r` (§4, before Lemma 6) and the constants of Lemma 7.

use std::f64::consts::{E, LN_2};

use serde::{Deserialize, Serialize};

use crate::QueueingError;
use crate::error::{Parameter, finite, positive};

/// The bisection for `r` stops when the bracket is this small relative to `r` (far tighter than
/// the `10^-9` the experiments need, and cheap: about 45 halvings).
const R_RELATIVE_TOLERANCE: f64 = 1e-12;

/// The largest path sum `max over channel paths of Σ_k (e/r)^{cap(c_k)}` of a fat-tree whose
/// capacities depend only on the height (the quantity that defines `r`).
///
/// `caps_by_height[h]` is the capacity of the channels at height `h`, leaf channels first
/// (`h = 0`) and the root's external channel last (`h = L = lg n`); its length is `L + 1`.
/// The paths are the maximal simple channel paths (a sub-path has a smaller sum, as every term
/// is positive):
/// - leaf to leaf with lowest common ancestor at height `h ≥ 1`: up through heights `0..h−1`,
///   down through `h−1..0`, sum `2·Σ_{j<h} (e/r)^{cap_j}`, largest for `h = L`;
/// - leaf to the outside world through the root (and back down): heights `0..=L`, sum
///   `Σ_{j≤L} (e/r)^{cap_j}`.
///
/// For `L = 0` (one processor) only the root path exists.
///
/// # Errors
///
/// [`QueueingError::EmptyProfile`], [`QueueingError::CapacityBelowOne`] for a bad profile;
/// [`QueueingError::NotFinite`] or [`QueueingError::NotPositive`] for a bad `r`.
pub fn worst_path_sum(caps_by_height: &[u64], r: f64) -> Result<f64, QueueingError> {
    check_profile(caps_by_height)?;
    let r = positive(Parameter::R, r)?;
    Ok(path_sum(caps_by_height, r))
}

fn check_profile(caps_by_height: &[u64]) -> Result<(), QueueingError> {
    if caps_by_height.is_empty() {
        return Err(QueueingError::EmptyProfile);
    }
    match caps_by_height.iter().position(|&c| c == 0) {
        Some(height) => Err(QueueingError::CapacityBelowOne { height }),
        None => Ok(()),
    }
}

/// [`worst_path_sum`] on a checked profile.
fn path_sum(caps_by_height: &[u64], r: f64) -> f64 {
    let x = E / r;
    let (root, below) = caps_by_height
        .split_last()
        .expect("profiles are checked to be non-empty");
    let below: f64 = below.iter().map(|&c| x.powf(c as f64)).sum();
    (2.0 * below).max(below + x.powf(*root as f64))
}

/// The congestion parameter `r` (§4): the smallest `r > 0` with
/// `Σ_k (e/r)^{cap(c_k)} ≤ 1/2` on every channel path `c_1 … c_l`, for a fat-tree with
/// capacities given per height (see [`worst_path_sum`] for the layout and the paths).
///
/// The worst path sum is continuous and strictly decreasing in `r`, so `r` is where it equals
/// `1/2`, found by bisection on `[e, 2e·l]` (`l` = the longest path's channel count: at `r = e`
/// every term is 1; at `2e·l` every term is at most `e/r = 1/(2l)`) to a relative bracket of
/// `10^-12`. The upper end of the bracket is returned, so the inequality holds at the result.
///
/// Reference values from the note (leaf-to-leaf paths, `lg n → ∞`): standard `2^⌊h/2⌋` →
/// 24.22, `2^⌈h/2⌉` → 14.96, `round(2^{h/2})` → 23.19, `round(2^{2h/3})` → 13.58, doubling →
/// 13.21; all capacities 1 → exactly `4e·lg n` for `lg n ≥ 1` (the bracket's upper end).
///
/// # Errors
///
/// [`QueueingError::EmptyProfile`] for an empty profile, [`QueueingError::CapacityBelowOne`]
/// for a zero capacity.
pub fn congestion_parameter(caps_by_height: &[u64]) -> Result<f64, QueueingError> {
    check_profile(caps_by_height)?;
    let levels = caps_by_height.len() - 1;
    let longest = (2 * levels).max(levels + 1) as f64;
    let mut lo = E;
    let mut hi = 2.0 * E * longest;
    // The bracket halves each time; the cap on iterations only guards against a bracket that
    // rounding can no longer shrink.
    for _ in 0..200 {
        if hi - lo <= R_RELATIVE_TOLERANCE * hi {
            break;
        }
        let mid = lo + (hi - lo) / 2.0;
        if path_sum(caps_by_height, mid) <= 0.5 {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Ok(hi)
}

/// `r` if it can be a congestion parameter: finite and above `e`.
fn check_r(r: f64) -> Result<f64, QueueingError> {
    let r = finite(Parameter::R, r)?;
    if r > E {
        Ok(r)
    } else {
        Err(QueueingError::CongestionParameterTooSmall { r })
    }
}

/// Lemma 7's `q = 1/(e^4 · r · ln r)`: the fraction of "bad" cycles tolerated among `z`.
///
/// The OCR prints "q = 1/e^4 r ln r"; the note (§6) reads it as `1/(e^4·r·ln r)`, under which the
/// exponent inequality ([`lemma7_inequality_holds`]) holds for `r ≳ 8.307`. The other reading,
/// `e^{−4r ln r}`, also satisfies it but makes `k1` astronomically large. For `r > e`,
/// `q < e^{-5}`.
///
/// # Errors
///
/// [`QueueingError::NotFinite`] or [`QueueingError::CongestionParameterTooSmall`] unless
/// `e < r < ∞`.
pub fn lemma7_q(r: f64) -> Result<f64, QueueingError> {
    let r = check_r(r)?;
    Ok(1.0 / (E.powi(4) * r * r.ln()))
}

/// Lemma 7's `k1 = 4r/q = 4e^4 r² ln r`: TRY-GUESS runs at least `k1·λ_guess` cycles per
/// halving, enough for `(1 − q)z` good cycles to halve `λ(U)`. For the standard fat-tree
/// (`r ≈ 24.22`) it is about `4.08·10^5`.
///
/// # Errors
///
/// As [`lemma7_q`].
pub fn lemma7_k1(r: f64) -> Result<f64, QueueingError> {
    Ok(4.0 * r / lemma7_q(r)?)
}

/// Lemma 7's `k2 = 12(k + 2)r`, which makes RANDOM succeed with probability `1 − O(1/n^k)`
/// (Theorem 8); the paper's `k2 = 36r` is `k = 1`, the per-channel failure `2^{−z/(12r)} ≤
/// n^{−3}`.
///
/// # Errors
///
/// As [`lemma7_q`].
pub fn lemma7_k2(r: f64, k: u32) -> Result<f64, QueueingError> {
    let r = check_r(r)?;
    Ok(12.0 * (f64::from(k) + 2.0) * r)
}

/// The exponent of Lemma 7's final inequality, `H2(q) + (1 − q)·log2(1 − 1/(8r))`, with `q =
/// lemma7_q(r)` and `H2` the binary entropy.
///
/// The proof bounds the probability of more than `qz` bad cycles among `z` by
/// `C(z, (1−q)z)(1 − 1/(8r))^{(1−q)z} ≤ 2^{z·(this exponent)}` and needs it to be at most
/// `2^{−z/(12r)}` (the note's §6 reading: the OCR's `s` is `z` throughout).
///
/// # Errors
///
/// As [`lemma7_q`].
pub fn lemma7_exponent(r: f64) -> Result<f64, QueueingError> {
    let q = lemma7_q(r)?;
    let h2 = -(q * q.ln() + (1.0 - q) * (-q).ln_1p()) / LN_2;
    Ok(h2 + (1.0 - q) * (-1.0 / (8.0 * r)).ln_1p() / LN_2)
}

/// Whether Lemma 7's inequality `H2(q) + (1 − q)·log2(1 − 1/(8r)) ≤ −1/(12r)` holds at `r`.
///
/// Numerically it holds from `r ≈ 8.307` on and fails between `e` and there (note §3, row L7).
/// Every fat-tree with capacity-1 leaf channels and `n ≥ 2` has `r ≥ 4e ≈ 10.87`, so it holds
/// there.
///
/// # Errors
///
/// As [`lemma7_q`].
pub fn lemma7_inequality_holds(r: f64) -> Result<bool, QueueingError> {
    Ok(lemma7_exponent(r)? <= -1.0 / (12.0 * r))
}

/// Lemma 7's constants for one congestion parameter `r` and polynomial exponent `k`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Lemma7Constants {
    /// The congestion parameter.
    pub r: f64,
    /// The exponent of the success probability `1 − O(1/n^k)`.
    pub k: u32,
    /// [`lemma7_q`].
    pub q: f64,
    /// [`lemma7_k1`].
    pub k1: f64,
    /// [`lemma7_k2`].
    pub k2: f64,
}

impl Lemma7Constants {
    /// The constants for `r` and `k` (`k = 1` gives the paper's `k2 = 36r`).
    ///
    /// # Errors
    ///
    /// As [`lemma7_q`].
    pub fn new(r: f64, k: u32) -> Result<Self, QueueingError> {
        Ok(Lemma7Constants {
            r,
            k,
            q: lemma7_q(r)?,
            k1: lemma7_k1(r)?,
            k2: lemma7_k2(r, k)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_ones_gives_four_e_lg_n_exactly() {
        for levels in 1..=20usize {
            let r = congestion_parameter(&vec![1; levels + 1]).unwrap();
            assert_eq!(r, 4.0 * E * levels as f64, "lg n = {levels}");
        }
        // lg n = 4: 43.49 (note §3, row "def r").
        let r4 = congestion_parameter(&[1; 5]).unwrap();
        assert!((r4 - 43.49).abs() < 0.005);
        // One processor: only the root channel, (e/r)^1 = 1/2.
        assert_eq!(congestion_parameter(&[1]).unwrap(), 2.0 * E);
    }

    #[test]
    fn small_profiles_by_hand() {
        // lg n = 1, caps [1, 1]: leaf-to-leaf 2(e/r), root path 2(e/r): r = 4e.
        assert_eq!(congestion_parameter(&[1, 1]).unwrap(), 4.0 * E);
        // caps [2]: (e/r)^2 = 1/2, r = e√2.
        let r = congestion_parameter(&[2]).unwrap();
        assert!((r - E * 2f64.sqrt()).abs() < 1e-11 * r);
        // caps [1, 2, 1]: leaf-to-leaf 2(x + x²), root x + x² + x: the root path wins only if
        // x > x + x² … never; solve 2(x + x²) = 1/2: x = (−1 + √2)/2.
        let r = congestion_parameter(&[1, 2, 1]).unwrap();
        let x = (2f64.sqrt() - 1.0) / 2.0;
        assert!((r - E / x).abs() < 1e-11 * r);
        // caps [4, 1]: leaf-to-leaf 2x⁴, root x⁴ + x: root path wins; x + x⁴ = 1/2.
        let r = congestion_parameter(&[4, 1]).unwrap();
        let x = E / r;
        assert!((x + x.powi(4) - 0.5).abs() < 1e-11);
        assert!(worst_path_sum(&[4, 1], r).unwrap() <= 0.5);
    }

    #[test]
    fn profile_validation() {
        assert_eq!(congestion_parameter(&[]), Err(QueueingError::EmptyProfile));
        assert_eq!(
            congestion_parameter(&[1, 0, 2]),
            Err(QueueingError::CapacityBelowOne { height: 1 })
        );
        assert!(matches!(
            worst_path_sum(&[1], 0.0),
            Err(QueueingError::NotPositive {
                parameter: Parameter::R,
                ..
            })
        ));
        assert!(matches!(
            worst_path_sum(&[1], f64::NAN),
            Err(QueueingError::NotFinite { .. })
        ));
    }

    #[test]
    fn lemma7_constants_match_the_note() {
        // r = 24.22: q ≈ 2.37e−4, k1 ≈ 4.08e5, k2 ≈ 872.
        let c = Lemma7Constants::new(24.22, 1).unwrap();
        assert!((c.q - 2.37e-4).abs() < 0.005e-4, "{}", c.q);
        assert!((c.k1 - 4.08e5).abs() < 0.005e5, "{}", c.k1);
        assert!((c.k2 - 871.92).abs() < 1e-9, "{}", c.k2);
        // r = 14.96: k1 ≈ 1.32e5, k2 ≈ 538.
        let c = Lemma7Constants::new(14.96, 1).unwrap();
        assert!((c.k1 - 1.32e5).abs() < 0.005e5, "{}", c.k1);
        assert!((c.k2 - 538.56).abs() < 1e-9);
        // k1 = 4e^4 r² ln r; k2 = 12(k+2)r.
        let r = 10.0f64;
        assert!((lemma7_k1(r).unwrap() - 4.0 * E.powi(4) * r * r * r.ln()).abs() < 1e-6);
        assert_eq!(lemma7_k2(r, 0), Ok(240.0));
        assert_eq!(lemma7_k2(r, 3), Ok(600.0));
    }

    #[test]
    fn lemma7_inequality_threshold() {
        for r in [8.31, 8.5, 4.0 * E, 13.21, 24.22, 100.0, 1e3, 1e6] {
            assert!(lemma7_inequality_holds(r).unwrap(), "r = {r}");
        }
        for r in [2.8, 4.0, 6.0, 8.0, 8.30] {
            assert!(!lemma7_inequality_holds(r).unwrap(), "r = {r}");
        }
        assert_eq!(
            lemma7_q(E),
            Err(QueueingError::CongestionParameterTooSmall { r: E })
        );
        assert!(matches!(
            lemma7_k2(f64::INFINITY, 1),
            Err(QueueingError::NotFinite { .. })
        ));
    }
}
