//! Chapters 6–7: multiple broadcasts on the `d`-cube under Poisson traffic (thesis §6.2–§7.4).
//!
//! Model: every node generates broadcast packets by a Poisson process of rate λ; a broadcast
//! reaches all `2^d − 1` other nodes; time is slotted (a transmission takes one slot). The
//! load factor is ρ = λ(2^d − 1)/d (§6.2.1), and every scheme needs ρ < 1.
//!
//! **A printed formula that is wrong.** Prop. 7.5 (the indirect scheme's mean queue size)
//! applies Little's law with the per-*frame* rate against a delay in *slots*, which makes its
//! main term three times too large. [`prop_7_5_printed`] keeps the printed
//! form, labelled, to redraw the thesis' Figure 7.7; [`prop_7_5_corrected`] is our
//! correction, which matches simulation.

use crate::error::{Parameter, QueueingError, non_negative, positive};

use super::queues::{mdc_sojourn, synchronised_md1_delay};

/// The largest dimension accepted (`4^d` must stay exact in an `f64`).
pub const MAX_DIMENSION: u32 = 26;

fn dimension(d: u32, min: u32) -> Result<f64, QueueingError> {
    if (min..=MAX_DIMENSION).contains(&d) {
        Ok(f64::from(d))
    } else {
        Err(QueueingError::DimensionOutOfRange {
            d,
            min,
            max: MAX_DIMENSION,
        })
    }
}

/// `2^d − 1`, the destinations of one broadcast.
fn others(d: u32) -> f64 {
    (2f64).powi(d as i32) - 1.0
}

fn rho_below(rho: f64, limit: f64) -> Result<f64, QueueingError> {
    let rho = non_negative(Parameter::Rho, rho)?;
    if rho < limit {
        Ok(rho)
    } else {
        Err(QueueingError::Unstable { load: rho, limit })
    }
}

/// The load factor of broadcasts at rate λ per node: `ρ = λ(2^d − 1)/d` (F1): the mean number
/// of transmissions per arc per slot.
///
/// # Errors
///
/// [`QueueingError::DimensionOutOfRange`] for `d` outside `1..=26`,
/// [`QueueingError::NotPositive`] for λ not positive and finite.
pub fn load_factor(d: u32, lambda: f64) -> Result<f64, QueueingError> {
    let df = dimension(d, 1)?;
    Ok(positive(Parameter::Lambda, lambda)? * others(d) / df)
}

/// The rate λ that gives load factor ρ: `λ = ρd/(2^d − 1)`.
///
/// # Errors
///
/// As [`load_factor`], and [`QueueingError::Negative`] for ρ negative or not finite.
pub fn rate_for_load(d: u32, rho: f64) -> Result<f64, QueueingError> {
    let df = dimension(d, 1)?;
    Ok(non_negative(Parameter::Rho, rho)? * df / others(d))
}

/// Prop. 6.1, for **any** scheme: `T ≥ max{d, (1 − 2^−d)[𝒟(d; ρ) + 1/2]}`, with `𝒟(d; ρ)` the
/// mean delay of the discrete-time M/D/d queue fed at `dρ` per slot (computed exactly by
/// [`mdc_sojourn`]; the thesis then uses the Brumelle form `𝒟 ≥ 1/2 + ρ/(2d(1 − ρ))`).
///
/// # Errors
///
/// As [`load_factor`], [`QueueingError::Unstable`] for ρ ≥ 1.
pub fn prop_6_1_lower_bound(d: u32, rho: f64) -> Result<f64, QueueingError> {
    let df = dimension(d, 1)?;
    let rho = rho_below(rho, 1.0)?;
    let frac = others(d) / (others(d) + 1.0);
    Ok(df.max(frac * (mdc_sojourn(u64::from(d), rho)? + 0.5)))
}

/// Prop. 6.2, for every **oblivious** scheme: `T ≥ max{d, (1 − 2^−d)[3/2 + ρ/(2(1 − ρ))]}`.
///
/// # Errors
///
/// As [`prop_6_1_lower_bound`].
pub fn prop_6_2_lower_bound(d: u32, rho: f64) -> Result<f64, QueueingError> {
    let df = dimension(d, 1)?;
    let rho = rho_below(rho, 1.0)?;
    let frac = others(d) / (others(d) + 1.0);
    Ok(df.max(frac * (1.5 + rho / (2.0 * (1.0 - rho)))))
}

/// `g_{m,i}` (6.10), proved in the thesis' Appendix 6.A: under the efficient direct scheme,
/// the probability that a packet's tree contains arc `(x, x ⊕ e_i)` given that it contains
/// `(x ⊕ e_m, x)`: `(2^((m − i) mod d) − 1)/(2^d − 1)`; `g_{i,i} = 0`. Dimensions are
/// numbered `1..=d`.
///
/// # Errors
///
/// [`QueueingError::DimensionOutOfRange`] for `d` outside `2..=26` or `m`, `i` outside
/// `1..=d`.
pub fn g(d: u32, m: u32, i: u32) -> Result<f64, QueueingError> {
    dimension(d, 2)?;
    for v in [m, i] {
        if !(1..=d).contains(&v) {
            return Err(QueueingError::DimensionOutOfRange {
                d: v,
                min: 1,
                max: d,
            });
        }
    }
    let k = (i64::from(m) - i64::from(i)).rem_euclid(i64::from(d)) as i32;
    Ok(((2f64).powi(k) - 1.0) / others(d))
}

/// `c_d = Σ_m g_{m,i}² = [d + (4^d − 1)/3 − 2(2^d − 1)]/(2^d − 1)²` (§6.5), which tends to
/// 1/3.
///
/// # Errors
///
/// [`QueueingError::DimensionOutOfRange`] for `d` outside `2..=26`.
pub fn c_d(d: u32) -> Result<f64, QueueingError> {
    let df = dimension(d, 2)?;
    let m = others(d);
    Ok((df + ((4f64).powi(d as i32) - 1.0) / 3.0 - 2.0 * m) / (m * m))
}

/// Approximation (6.19) of the efficient direct scheme's mean delay (§6.5; Assumptions A and
/// B make every arc a discrete G/D/1 queue): `T ≈ d/2 + d(1 − ρc_d)/(2(1 − ρ)) + 1/2`.
///
/// # Errors
///
/// As [`c_d`], [`QueueingError::Unstable`] for ρ ≥ 1.
pub fn approximation_6_19(d: u32, rho: f64) -> Result<f64, QueueingError> {
    let c = c_d(d)?;
    let rho = rho_below(rho, 1.0)?;
    let df = f64::from(d);
    Ok(df / 2.0 + df * (1.0 - rho * c) / (2.0 * (1.0 - rho)) + 0.5)
}

/// The stability limit of the indirect scheme (Prop. 7.3, (7.2)): stable iff
/// `ρ < (2/3)(1 − 2^−d)`. (The thesis' §7.4 prints `1 − 1/(2d)`, an OCR error.)
///
/// # Errors
///
/// [`QueueingError::DimensionOutOfRange`] for `d` outside `2..=26`.
pub fn indirect_stability_limit(d: u32) -> Result<f64, QueueingError> {
    dimension(d, 2)?;
    Ok(2.0 / 3.0 * (1.0 - 0.5f64.powi(d as i32)))
}

/// The generalised Rule C of §7.3.1: every cycle of `K + L`
/// slots gives `K` consecutive slots to root-bound traffic and `L` to broadcasting (Rule C is
/// `K = 1`, `L = 2`). Two necessary conditions for stability follow — the roots start at
/// most `L` broadcasts per cycle, `(λ/d)2^d(K + L) < L` (7.15), and the single arc feeding
/// buffer B_1 carries `(λ/d)2^{d−1}` per slot in only `K` slots per cycle,
/// `(λ/d)2^{d−1}(K + L) < K` — hence (7.16):
/// `(λ/d)2^d < min{L/(K + L), 2K/(K + L)}`.
///
/// This function returns (7.16) as a limit on the load factor: with `λ = ρd/(2^d − 1)`,
/// stable only if `ρ < (1 − 2^−d)·min{L, 2K}/(K + L)`. The bound is largest at `L = 2K`,
/// where it equals [`indirect_stability_limit`]: Rule C is the best alternation, and there it
/// is also sufficient (Prop. 7.3). For `L ≠ 2K` the thesis proves only necessity, so this is
/// an upper limit, not a claim that the alternation reaches it. (The thesis' remark "for
/// `K = 2L`, inequality (7.18)" means `L = 2K` and (7.16), a misprint.)
///
/// ```
/// use fatnet_queueing::stamoulis::broadcast::{generalised_rule_c_limit, indirect_stability_limit};
/// assert_eq!(generalised_rule_c_limit(6, 1, 2)?, indirect_stability_limit(6)?);
/// // One broadcast slot per two-slot cycle: the roots' capacity (7.15) binds at (1 − 2^−d)/2.
/// assert!((generalised_rule_c_limit(6, 1, 1)? - 0.5 * (1.0 - 1.0 / 64.0)).abs() < 1e-15);
/// # Ok::<(), fatnet_queueing::QueueingError>(())
/// ```
///
/// # Errors
///
/// [`QueueingError::DimensionOutOfRange`] for `d` outside `2..=26`,
/// [`QueueingError::EmptySlotClass`] for `K = 0` or `L = 0` (no slot to reach the roots, or
/// none to broadcast in).
pub fn generalised_rule_c_limit(d: u32, k: u32, l: u32) -> Result<f64, QueueingError> {
    dimension(d, 2)?;
    if k == 0 || l == 0 {
        return Err(QueueingError::EmptySlotClass { k, l });
    }
    let (k, l) = (f64::from(k), f64::from(l));
    Ok(l.min(2.0 * k) / (k + l) * (1.0 - 0.5f64.powi(d as i32)))
}

/// Prop. 7.4: the indirect scheme's mean delay `T = 3d + 1 + 3ρ/(2[(2/3)(1 − 2^−d) − ρ])`.
///
/// ```
/// use fatnet_queueing::stamoulis::broadcast::prop_7_4_delay;
/// assert!((prop_7_4_delay(8, 0.5)? - 29.571).abs() < 5e-4);
/// # Ok::<(), fatnet_queueing::QueueingError>(())
/// ```
///
/// # Errors
///
/// As [`indirect_stability_limit`], [`QueueingError::Unstable`] at or above the limit.
pub fn prop_7_4_delay(d: u32, rho: f64) -> Result<f64, QueueingError> {
    let limit = indirect_stability_limit(d)?;
    let rho = rho_below(rho, limit)?;
    Ok(3.0 * f64::from(d) + 1.0 + 3.0 * rho / (2.0 * (limit - rho)))
}

/// Prop. 7.5 **as printed** (wrong: Little's law with the per-frame rate): the indirect scheme's
/// mean queue size `Q = (3d/4)ρ(2^d − 2)/(2^d − 1) + 3ρd/(2^d − 1)·(3d/2 + 17/6 + 3ρ/(2[ρ* − ρ]))`.
///
/// # Errors
///
/// As [`prop_7_4_delay`].
pub fn prop_7_5_printed(d: u32, rho: f64) -> Result<f64, QueueingError> {
    let limit = indirect_stability_limit(d)?;
    let rho = rho_below(rho, limit)?;
    let (df, m) = (f64::from(d), others(d));
    Ok(0.75 * df * rho * (m - 1.0) / m
        + 3.0 * rho * df / m * (1.5 * df + 17.0 / 6.0 + 3.0 * rho / (2.0 * (limit - rho))))
}

/// Prop. 7.5 **corrected** (Little's law with the per-slot rate):
/// `Q = (3d/4)ρ(2^d − 2)/(2^d − 1) + ρd/(2^d − 1)·(3d/2 + 5/2 + 3ρ/(2[ρ* − ρ]))`.
///
/// # Errors
///
/// As [`prop_7_4_delay`].
pub fn prop_7_5_corrected(d: u32, rho: f64) -> Result<f64, QueueingError> {
    let limit = indirect_stability_limit(d)?;
    let rho = rho_below(rho, limit)?;
    let (df, m) = (f64::from(d), others(d));
    Ok(0.75 * df * rho * (m - 1.0) / m
        + rho * df / m * (1.5 * df + 2.5 + 3.0 * rho / (2.0 * (limit - rho))))
}

/// Prop. 7.6 (7.14): any scheme that splits each node's packets evenly over the `d` trees and
/// keeps each packet on its tree can be stable only if `ρ < (2/3)(1 − (1/3)/(2^d − 2/3))`.
///
/// # Errors
///
/// As [`indirect_stability_limit`].
pub fn prop_7_6_limit(d: u32) -> Result<f64, QueueingError> {
    dimension(d, 2)?;
    Ok(2.0 / 3.0 * (1.0 - (1.0 / 3.0) / ((2f64).powi(d as i32) - 2.0 / 3.0)))
}

/// Lemma 7.2: `n` paths of lengths `l_1 … l_n ≥ 1` sharing their last arc, Poisson(λ) arrivals
/// at each start, transmissions that start only at multiples of `Δ` and last `Δ`; stable iff
/// `λnΔ < 1`, and then the mean delay is
/// `Δ[3/2 + λnΔ/(2(1 − λnΔ))] + (Δ/n)Σ l_i − Δ` — it depends on the tree only through the
/// mean path length.
///
/// # Errors
///
/// [`QueueingError::BadPaths`] for no path or a path of length 0,
/// [`QueueingError::NotPositive`] for λ or Δ not positive and finite,
/// [`QueueingError::Unstable`] for `λnΔ ≥ 1`.
pub fn lemma_7_2_delay(lambda: f64, lengths: &[u64], delta: f64) -> Result<f64, QueueingError> {
    if lengths.is_empty() || lengths.contains(&0) {
        return Err(QueueingError::BadPaths);
    }
    let n = lengths.len() as f64;
    let lambda = positive(Parameter::Lambda, lambda)?;
    let delta = positive(Parameter::Delta, delta)?;
    let mean_length = lengths.iter().map(|&l| l as f64).sum::<f64>() / n;
    Ok(synchronised_md1_delay(lambda * n, delta)? + delta * mean_length - delta)
}

/// The light-traffic limit of the direct non-idling schemes (§6.3.3): `T → d + 1/2`.
///
/// # Errors
///
/// [`QueueingError::DimensionOutOfRange`] for `d` outside `1..=26`.
pub fn direct_light_traffic_delay(d: u32) -> Result<f64, QueueingError> {
    Ok(dimension(d, 1)? + 0.5)
}

/// The light-traffic limit of the non-idling indirect scheme (Appendix 7.B): `T → 3d/2`.
///
/// # Errors
///
/// [`QueueingError::DimensionOutOfRange`] for `d` outside `2..=26`.
pub fn nonidling_indirect_light_traffic_delay(d: u32) -> Result<f64, QueueingError> {
    Ok(1.5 * dimension(d, 2)?)
}

/// Stability limits of the simpler schemes of §6.3 and §7.1.1 (necessary conditions):
/// one fixed tree per node `(2/d)(1 − 2^−d)`; the single-root indirect scheme
/// `(1/d)(1 − 2^−d)`; the periodic scheme with one BOSTT91 tree per node
/// `((2^d − 1)/d)/⌈(2^d − 1)/d⌉` (6.7).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SimpleSchemeLimits {
    /// One fixed (canonical) tree per node, §6.3.1.
    pub one_tree: f64,
    /// All broadcasts through one root, §7.1.1.
    pub single_root: f64,
    /// The periodic P1 scheme, (6.7).
    pub periodic_p1: f64,
}

/// The limits of [`SimpleSchemeLimits`] for dimension `d`.
///
/// # Errors
///
/// [`QueueingError::DimensionOutOfRange`] for `d` outside `1..=26`.
pub fn simple_scheme_limits(d: u32) -> Result<SimpleSchemeLimits, QueueingError> {
    let df = dimension(d, 1)?;
    let frac = 1.0 - 0.5f64.powi(d as i32);
    let per = others(d) / df;
    Ok(SimpleSchemeLimits {
        one_tree: 2.0 / df * frac,
        single_root: frac / df,
        periodic_p1: per / per.ceil(),
    })
}

/// The stability limit of the "inferior" sequential scheme of §6.3.3 (F10):
/// `ρ*_d = (2^d − 1)/(d² 2^d)`.
///
/// # Errors
///
/// [`QueueingError::DimensionOutOfRange`] for `d` outside `1..=26`.
pub fn inferior_scheme_limit(d: u32) -> Result<f64, QueueingError> {
    let df = dimension(d, 1)?;
    Ok(others(d) / (df * df * (others(d) + 1.0)))
}

/// The mean delay of the inferior sequential scheme (§6.3.3, F10), an upper bound on the
/// delay of the direct non-idling schemes (which the thesis uses for their light-traffic
/// limit `d + 1/2`): `T̃ = d + 1/2 + dρ/(2(ρ*_d − ρ))`, for `ρ < ρ*_d` only.
///
/// # Errors
///
/// As [`inferior_scheme_limit`], [`QueueingError::Unstable`] for `ρ ≥ ρ*_d`.
pub fn inferior_scheme_delay(d: u32, rho: f64) -> Result<f64, QueueingError> {
    let limit = inferior_scheme_limit(d)?;
    let rho = rho_below(rho, limit)?;
    let df = f64::from(d);
    Ok(df + 0.5 + df * rho / (2.0 * (limit - rho)))
}
