//! Chapter 5: the delay bounds of dynamic node-to-node routing on the `d`-cube and the
//! `d`-dimensional butterfly under Poisson traffic (thesis (5.2)–Prop. 5.18).
//!
//! Model: every node (butterfly: every level-1 node) generates packets by a Poisson process
//! of rate λ; each destination bit differs from the origin's with probability `p` (5.1);
//! transmissions take one unit. `T` is the mean delay from generation to delivery. The
//! hypercube's load factor is ρ = λp (5.2), the butterfly's ρ = λ·max{p, 1 − p} (5.27); no
//! scheme is stable for ρ ≥ 1, and greedy routing is stable for every ρ < 1 (Props. 5.11,
//! 5.16).
//!
//! **Proved and claimed.** The thesis states some bounds without a complete proof, and one
//! of its quoted bounds is wrong; this module keeps them apart:
//!
//! - Prop. 5.2 is evaluated with the exact M/D/c sojourn
//!   ([`mdc_sojourn`]), never with the printed \[Bru71\] bound, which
//!   is false for `c ≥ 2`.
//! - (5.18), the hypercube's sharper greedy bound, is stated without proof: it is reported as
//!   *claimed*. Prop. 5.18 for the butterfly is proved in slotted time only (5.33); its
//!   transfer to continuous time rests on "T ≥ T̄", the reverse of (5.26): the continuous form
//!   is *claimed*, the slotted form proved.

use crate::error::{Parameter, QueueingError, positive, probability};

use super::queues::{md1_sojourn, mdc_sojourn};

/// The largest dimension the bounds accept (`2^d` servers in Prop. 5.2).
pub const MAX_DIMENSION: u32 = 40;

/// The network of chapter 5.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Network {
    /// The `d`-cube, `2^d` nodes, greedy = canonical paths (increasing dimensions).
    Hypercube,
    /// The `d`-dimensional butterfly, traffic from level 1 to level `d + 1`, `d` arcs per path.
    Butterfly,
}

/// The checked parameters of a case.
#[derive(Debug, Clone, Copy)]
struct Case {
    d: f64,
    lambda: f64,
    p: f64,
}

fn case(network: Network, d: u32, lambda: f64, p: f64) -> Result<Case, QueueingError> {
    if !(1..=MAX_DIMENSION).contains(&d) {
        return Err(QueueingError::DimensionOutOfRange {
            d,
            min: 1,
            max: MAX_DIMENSION,
        });
    }
    let lambda = positive(Parameter::Lambda, lambda)?;
    let p = probability(Parameter::P, p)?;
    let rho = load(network, lambda, p);
    if rho >= 1.0 {
        return Err(QueueingError::Unstable {
            load: rho,
            limit: 1.0,
        });
    }
    Ok(Case {
        d: f64::from(d),
        lambda,
        p,
    })
}

fn load(network: Network, lambda: f64, p: f64) -> f64 {
    match network {
        Network::Hypercube => lambda * p,
        Network::Butterfly => lambda * p.max(1.0 - p),
    }
}

/// The load factor: ρ = λp on the cube (5.2), λ·max{p, 1 − p} on the butterfly (5.27). Every
/// scheme needs ρ < 1 (for any arrival process); greedy routing is stable for all ρ < 1.
///
/// # Errors
///
/// [`QueueingError::NotPositive`] for λ not positive and finite,
/// [`QueueingError::ProbabilityOutOfRange`] for `p` outside `[0, 1]`.
pub fn load_factor(network: Network, lambda: f64, p: f64) -> Result<f64, QueueingError> {
    let lambda = positive(Parameter::Lambda, lambda)?;
    let p = probability(Parameter::P, p)?;
    Ok(load(network, lambda, p))
}

/// Prop. 5.2, for **any** routing scheme on the cube: `T ≥ max{dp, p·𝒟(2^d; ρ)}`, with the
/// exact M/D/c sojourn `𝒟` (dimension 1 relaxed to an M/D/2^d queue).
///
/// # Errors
///
/// [`QueueingError::DimensionOutOfRange`] for `d` outside `1..=40`, the errors of
/// [`load_factor`], [`QueueingError::Unstable`] for ρ ≥ 1.
pub fn universal_lower_bound(d: u32, lambda: f64, p: f64) -> Result<f64, QueueingError> {
    let c = case(Network::Hypercube, d, lambda, p)?;
    let servers = mdc_sojourn(1u64 << d, c.lambda * c.p)?;
    Ok((c.d * c.p).max(c.p * servers))
}

/// Prop. 5.3, for every **oblivious** scheme on the cube (paths chosen independently of the
/// traffic): `T ≥ max{dp, p[1 + ρ/(2(1 − ρ))]}`.
///
/// # Errors
///
/// As [`universal_lower_bound`].
pub fn oblivious_lower_bound(d: u32, lambda: f64, p: f64) -> Result<f64, QueueingError> {
    let c = case(Network::Hypercube, d, lambda, p)?;
    Ok((c.d * c.p).max(c.p * md1_sojourn(c.lambda * c.p)?))
}

/// Prop. 5.13, greedy routing on the cube: `T ≥ dp + pρ/(2(1 − ρ))` (the dimension-1 arcs are
/// M/D/1 queues of rate ρ). Exact for `p = 1`: `T = d + ρ/(2(1 − ρ))` (disjoint paths).
///
/// # Errors
///
/// As [`universal_lower_bound`].
pub fn greedy_lower_bound(d: u32, lambda: f64, p: f64) -> Result<f64, QueueingError> {
    let c = case(Network::Hypercube, d, lambda, p)?;
    let rho = c.lambda * c.p;
    Ok(c.d * c.p + c.p * rho / (2.0 * (1.0 - rho)))
}

/// Prop. 5.12, greedy routing on the cube: `T ≤ dp/(1 − ρ)` (the network with
/// processor-sharing servers has product form, and has at least as many packets at all
/// times, Prop. 5.9).
///
/// # Errors
///
/// As [`universal_lower_bound`].
pub fn greedy_upper_bound(d: u32, lambda: f64, p: f64) -> Result<f64, QueueingError> {
    let c = case(Network::Hypercube, d, lambda, p)?;
    Ok(c.d * c.p / (1.0 - c.lambda * c.p))
}

/// (5.18) with Prop. 5.13, **claimed** (stated without proof in §5.3.5):
/// `T ≥ dp + (d − 1)ρp²(1 − p) + pρ/(2(1 − ρ))` for greedy routing on the cube.
///
/// # Errors
///
/// As [`universal_lower_bound`].
pub fn greedy_claimed_lower_bound(d: u32, lambda: f64, p: f64) -> Result<f64, QueueingError> {
    let c = case(Network::Hypercube, d, lambda, p)?;
    let rho = c.lambda * c.p;
    Ok(greedy_lower_bound(d, lambda, p)? + (c.d - 1.0) * rho * c.p * c.p * (1.0 - c.p))
}

/// Prop. 5.12's bound on the mean number of packets stored per node under greedy routing:
/// `N / 2^d ≤ dρ/(1 − ρ)` (5.15).
///
/// # Errors
///
/// As [`universal_lower_bound`].
pub fn greedy_node_queue_upper_bound(d: u32, lambda: f64, p: f64) -> Result<f64, QueueingError> {
    let c = case(Network::Hypercube, d, lambda, p)?;
    let rho = c.lambda * c.p;
    Ok(c.d * rho / (1.0 - rho))
}

/// Prop. 5.14, **any** scheme on the butterfly:
/// `T ≥ d + p·λp/(2(1 − λp)) + (1 − p)·λ(1 − p)/(2(1 − λ(1 − p)))` (the level-1 arcs are
/// M/D/1 queues). Exact for greedy routing when `p ∈ {0, 1}`.
///
/// # Errors
///
/// As [`universal_lower_bound`] (with the butterfly's ρ).
pub fn butterfly_lower_bound(d: u32, lambda: f64, p: f64) -> Result<f64, QueueingError> {
    let c = case(Network::Butterfly, d, lambda, p)?;
    let (v, s) = (c.lambda * c.p, c.lambda * (1.0 - c.p));
    Ok(c.d + c.p * v / (2.0 * (1.0 - v)) + (1.0 - c.p) * s / (2.0 * (1.0 - s)))
}

/// Prop. 5.17, greedy routing on the butterfly:
/// `T ≤ dp/(1 − λp) + d(1 − p)/(1 − λ(1 − p))`.
///
/// # Errors
///
/// As [`butterfly_lower_bound`].
pub fn butterfly_upper_bound(d: u32, lambda: f64, p: f64) -> Result<f64, QueueingError> {
    let c = case(Network::Butterfly, d, lambda, p)?;
    Ok(c.d * c.p / (1.0 - c.lambda * c.p) + c.d * (1.0 - c.p) / (1.0 - c.lambda * (1.0 - c.p)))
}

/// Prop. 5.18 in slotted time (τ = 1), **proved** (5.33): greedy routing on the butterfly has
/// `T̄ ≥ d + (1/2)(d − 1)λp(1 − p)` (a packet arriving on a straight arc meets a simultaneous
/// arrival from the independent vertical feeder with probability λp(1 − p) and loses the fair
/// tie half of the time).
///
/// # Errors
///
/// As [`butterfly_lower_bound`].
pub fn butterfly_slotted_lower_bound(d: u32, lambda: f64, p: f64) -> Result<f64, QueueingError> {
    let c = case(Network::Butterfly, d, lambda, p)?;
    Ok(c.d + 0.5 * (c.d - 1.0) * c.lambda * c.p * (1.0 - c.p))
}

/// Prop. 5.18 in continuous time, **claimed**: `T ≥ d + (1/2)(d − 1)ρ·min{p, 1 − p}`. The
/// thesis transfers the slotted bound by "T ≥ T̄", the reverse of (5.26).
///
/// # Errors
///
/// As [`butterfly_lower_bound`].
pub fn butterfly_claimed_lower_bound(d: u32, lambda: f64, p: f64) -> Result<f64, QueueingError> {
    let c = case(Network::Butterfly, d, lambda, p)?;
    let rho = load(Network::Butterfly, c.lambda, c.p);
    Ok(c.d + 0.5 * (c.d - 1.0) * rho * c.p.min(1.0 - c.p))
}

/// Prop. 5.17's per-node estimate for the butterfly: `q_ρ = λp/(1 − λp) + λ(1 − p)/(1 −
/// λ(1 − p))`, with `N/(d 2^d) ≤ q_ρ`.
///
/// # Errors
///
/// As [`butterfly_lower_bound`].
pub fn butterfly_q_rho(d: u32, lambda: f64, p: f64) -> Result<f64, QueueingError> {
    let c = case(Network::Butterfly, d, lambda, p)?;
    let (v, s) = (c.lambda * c.p, c.lambda * (1.0 - c.p));
    Ok(v / (1.0 - v) + s / (1.0 - s))
}

/// The thesis' bounds on the mean delay of greedy routing for one case, as a simulator
/// prints them beside its estimate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DelayBounds {
    /// The best proved lower bound.
    pub lower: f64,
    /// The best proved upper bound.
    pub upper: f64,
    /// Where the lower bound comes from.
    pub lower_source: &'static str,
    /// Where the upper bound comes from.
    pub upper_source: &'static str,
    /// The thesis' sharper lower bound stated without a complete proof ((5.18) on the cube,
    /// Prop. 5.18 in continuous time on the butterfly); `None` where it says nothing more.
    pub claimed_lower: Option<f64>,
    /// The exact mean delay where the thesis gives it (paths that never meet after the first
    /// arc: `p = 1` on the cube, `p ∈ {0, 1}` on the butterfly).
    pub exact: Option<f64>,
}

/// The bounds on greedy routing's mean delay in **continuous time**: on the cube Prop. 5.13
/// (lower, which implies Props. 5.2–5.3 for greedy) and Prop. 5.12 (upper); on the butterfly
/// Props. 5.14 and 5.17.
///
/// ```
/// use fatnet_queueing::stamoulis::greedy::{Network, delay_bounds};
///
/// // The notes' simulated T ≈ 2.83 for d = 4, λ = 1, p = 1/2 lies inside.
/// let b = delay_bounds(Network::Hypercube, 4, 1.0, 0.5)?;
/// assert_eq!((b.lower, b.upper), (2.25, 4.0));
/// assert!((b.claimed_lower.unwrap() - 2.4375).abs() < 1e-12);
/// # Ok::<(), fatnet_queueing::QueueingError>(())
/// ```
///
/// # Errors
///
/// As [`universal_lower_bound`] (ρ computed for `network`).
pub fn delay_bounds(
    network: Network,
    d: u32,
    lambda: f64,
    p: f64,
) -> Result<DelayBounds, QueueingError> {
    let c = case(network, d, lambda, p)?;
    Ok(match network {
        Network::Hypercube => {
            let lower = greedy_lower_bound(d, lambda, p)?;
            DelayBounds {
                lower,
                upper: greedy_upper_bound(d, lambda, p)?,
                lower_source: "Prop. 5.13",
                upper_source: "Prop. 5.12",
                claimed_lower: (c.p > 0.0 && c.p < 1.0)
                    .then(|| greedy_claimed_lower_bound(d, lambda, p))
                    .transpose()?,
                exact: (c.p == 1.0 || c.p == 0.0).then_some(lower),
            }
        }
        Network::Butterfly => {
            let lower = butterfly_lower_bound(d, lambda, p)?;
            DelayBounds {
                lower,
                upper: butterfly_upper_bound(d, lambda, p)?,
                lower_source: "Prop. 5.14",
                upper_source: "Prop. 5.17",
                claimed_lower: (c.p > 0.0 && c.p < 1.0)
                    .then(|| butterfly_claimed_lower_bound(d, lambda, p))
                    .transpose()?,
                exact: (c.p == 1.0 || c.p == 0.0).then_some(lower),
            }
        }
    })
}

/// The bounds in **slotted time** with slot length `tau` (`1/τ` an integer; §5.4): the
/// continuous bounds with `T ≤ T̄ ≤ T + τ` (5.26), so the upper bound grows by τ; on the
/// butterfly with `τ = 1` the lower bound also takes Prop. 5.18's proved slotted form (5.33).
/// `exact` is kept only with `τ = 1`: the disjoint-path cases (`p = 1` on the cube, `p ∈ {0, 1}`
/// on the butterfly) are then the discrete M/D/1 queue (2.4) at the first arc followed by
/// `d − 1` queue-free hops, `d + ρ/(2(1 − ρ))`, the same value as in continuous time.
///
/// # Errors
///
/// As [`delay_bounds`], and [`QueueingError::NotPositive`] unless `1/τ` is a positive integer
/// (within `1e−9`).
pub fn slotted_delay_bounds(
    network: Network,
    d: u32,
    lambda: f64,
    p: f64,
    tau: f64,
) -> Result<DelayBounds, QueueingError> {
    let tau = positive(Parameter::Tau, tau)?;
    let m = 1.0 / tau;
    if tau > 1.0 || (m - m.round()).abs() > 1e-9 {
        return Err(QueueingError::NotPositive {
            parameter: Parameter::Tau,
            value: tau,
        });
    }
    let mut b = delay_bounds(network, d, lambda, p)?;
    b.upper += tau;
    b.upper_source = match network {
        Network::Hypercube => "Prop. 5.12 + τ (5.26)",
        Network::Butterfly => "Prop. 5.17 + τ (5.26)",
    };
    let unit = (tau - 1.0).abs() < 1e-12;
    b.exact = b.exact.filter(|_| unit);
    if network == Network::Butterfly && unit {
        let proved = butterfly_slotted_lower_bound(d, lambda, p)?;
        if proved > b.lower {
            b.lower = proved;
            b.lower_source = "Prop. 5.18 (5.33), slotted";
        }
        b.claimed_lower = None;
    }
    Ok(b)
}
