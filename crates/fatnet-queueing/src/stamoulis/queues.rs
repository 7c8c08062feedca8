//! The single queues of the thesis (§2.2, (2.3)–(2.6)): the
//! discrete-time G/D/1 and M/D/1 queues, continuous arrivals with slotted service, the M/D/1
//! queue with synchronisation, and the M/D/c queue (Crommelin) that Props. 5.2 and 6.1 need.
//!
//! All service times are one unit (one slot); a *delay* or *sojourn* counts the waiting and
//! the service.

use crate::error::{Parameter, QueueingError, non_negative, positive};

/// Steady state of the discrete-time G/D/1 queue with unit service (thesis §2.2.1): `A_k`
/// arrivals in slot `k`, i.i.d., arriving just before the end of the slot; `Y` counts the
/// packets in the system at a slot start.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DiscreteQueue {
    /// Mean number in system, `N = E[A] + E[A(A − 1)] / (2(1 − E[A]))` (F5).
    pub number: f64,
    /// Mean delay, `T = N / E[A] = 1 + E[A(A − 1)] / (2 E[A](1 − E[A]))` (2.3).
    pub delay: f64,
}

fn stable(load: f64, limit: f64) -> Result<f64, QueueingError> {
    if load < limit {
        Ok(load)
    } else {
        Err(QueueingError::Unstable { load, limit })
    }
}

/// The discrete-time G/D/1 queue (2.3) with `E[A] = mean` and `E[A(A − 1)] =
/// second_factorial` (for Poisson arrivals `mean²`, for Bernoulli `0`).
///
/// # Errors
///
/// [`QueueingError::NotPositive`] for a mean that is not positive and finite,
/// [`QueueingError::Negative`] for a negative factorial moment, [`QueueingError::Unstable`]
/// for `E[A] ≥ 1` (the queue is stable iff `E[A] < 1`, or `A ≡ 1`).
pub fn discrete_gd1(mean: f64, second_factorial: f64) -> Result<DiscreteQueue, QueueingError> {
    let a = stable(positive(Parameter::Arrivals, mean)?, 1.0)?;
    let f = non_negative(Parameter::Arrivals, second_factorial)?;
    let number = a + f / (2.0 * (1.0 - a));
    Ok(DiscreteQueue {
        number,
        delay: number / a,
    })
}

/// The discrete-time M/D/1 queue (2.4): Poisson(`a`) arrivals per slot, `T = 1 + a / (2(1 −
/// a))`.
///
/// ```
/// use fatnet_queueing::stamoulis::queues::discrete_md1_delay;
/// assert!((discrete_md1_delay(0.6)? - 1.75).abs() < 1e-15);
/// # Ok::<(), fatnet_queueing::QueueingError>(())
/// ```
///
/// # Errors
///
/// As [`discrete_gd1`].
pub fn discrete_md1_delay(a: f64) -> Result<f64, QueueingError> {
    Ok(discrete_gd1(a, a * a)?.delay)
}

/// Poisson arrivals of rate `lambda` in continuous time, service starting only at slot
/// boundaries (2.5): `T = 3/2 + λ / (2(1 − λ))` (the discrete M/D/1 plus the mean
/// synchronisation time 1/2).
///
/// # Errors
///
/// As [`discrete_gd1`].
pub fn slotted_service_delay(lambda: f64) -> Result<f64, QueueingError> {
    Ok(discrete_md1_delay(lambda)? + 0.5)
}

/// The M/D/1 queue with synchronisation `Δ` (2.6): Poisson arrivals of rate `lambda`, services
/// of length `Δ` that may start only at `0, Δ, 2Δ, …`; `T = Δ[3/2 + λΔ / (2(1 − λΔ))]`,
/// stable iff `λΔ < 1`.
///
/// # Errors
///
/// [`QueueingError::NotPositive`] for `Δ` or λ not positive and finite,
/// [`QueueingError::Unstable`] for `λΔ ≥ 1`.
pub fn synchronised_md1_delay(lambda: f64, delta: f64) -> Result<f64, QueueingError> {
    let delta = positive(Parameter::Delta, delta)?;
    let lambda = positive(Parameter::Lambda, lambda)?;
    Ok(delta * slotted_service_delay(lambda * delta)?)
}

/// The continuous-time M/D/1 queue with unit service and arrival rate `r` (F7): mean sojourn
/// `1 + r / (2(1 − r))` (Pollaczek–Khinchine).
///
/// # Errors
///
/// [`QueueingError::Negative`] for a negative or non-finite rate, [`QueueingError::Unstable`]
/// for `r ≥ 1`.
pub fn md1_sojourn(r: f64) -> Result<f64, QueueingError> {
    let r = stable(non_negative(Parameter::Rho, r)?, 1.0)?;
    Ok(1.0 + r / (2.0 * (1.0 - r)))
}

/// Terms of Crommelin's series that [`mdc_sojourn`] sums at most.
const CROMMELIN_MAX_TERMS: u64 = 2_000_000;

/// `𝒟(c; ρ)`: the mean sojourn (waiting + the unit service) of the M/D/c queue with `c`
/// servers, unit service and total arrival rate `Λ = cρ` (Crommelin 1932, as in Tijms; the thesis
/// uses it in Props. 5.2 and 6.1):
///
/// `W_q = Σ_{k≥1} [P(X_k ≥ kc) − (c/Λ) P(X_k ≥ kc + 1)]`, `X_k ~ Poisson(kΛ)`,
/// `𝒟 = 1 + W_q`.
///
/// The same number is the mean delay of the discrete-time M/D/c queue of Prop. 6.1 (Poisson
/// arrivals of mean `cρ` per slot, at most `c` departures per slot; the chain at slot starts is
/// that of the continuous queue at integer times).
///
/// **Accuracy.** The Poisson tails are summed from their first term, computed in log space
/// (Stirling's series for `ln m!`), so the terms are accurate to about `1e−12` relative. The
/// series' terms decay like `exp(−k c (ρ − 1 − ln ρ))`; it stops when a term falls below
/// `1e−17` of the sum, or after 2,000,000 terms (reached only for `c (1 − ρ)²` below about
/// `2e−5`, e.g. `c = 2`, `ρ > 0.997`). `c = 1` is answered in closed form, [`md1_sojourn`].
/// The notes' reference values (F14: `𝒟(2; .5) = 1.17674`, …, `𝒟(256; .99) = 1.16175`) are
/// reproduced to the 5 printed decimals.
///
/// ```
/// use fatnet_queueing::stamoulis::queues::mdc_sojourn;
/// assert!((mdc_sojourn(2, 0.8)? - 1.90328).abs() < 5e-6);
/// assert!((mdc_sojourn(8, 0.9)? - 1.44997).abs() < 5e-6);
/// # Ok::<(), fatnet_queueing::QueueingError>(())
/// ```
///
/// # Errors
///
/// [`QueueingError::NoServers`] for `c = 0`, [`QueueingError::Negative`] for ρ negative or
/// not finite, [`QueueingError::Unstable`] for `ρ ≥ 1`.
pub fn mdc_sojourn(c: u64, rho: f64) -> Result<f64, QueueingError> {
    if c == 0 {
        return Err(QueueingError::NoServers);
    }
    let rho = stable(non_negative(Parameter::Rho, rho)?, 1.0)?;
    if c == 1 {
        return md1_sojourn(rho);
    }
    Ok(1.0 + crommelin_wait(c, rho))
}

/// Crommelin's series for the mean wait of the M/D/c queue, `c ≥ 1`, `0 ≤ ρ < 1`.
fn crommelin_wait(c: u64, rho: f64) -> f64 {
    if rho == 0.0 {
        return 0.0;
    }
    let cf = c as f64;
    let big_lambda = cf * rho;
    let mut wq = 0.0;
    for k in 1..=CROMMELIN_MAX_TERMS {
        let kf = k as f64;
        let mu = kf * big_lambda;
        let m = kf * cf;
        // P(X ≥ m) = P(X = m) + P(X ≥ m + 1); the bracket is
        // P(X = m) + (1 − 1/ρ) P(X ≥ m + 1).
        let (at_m, above) = poisson_point_and_tail_above(mu, m);
        let term = at_m + (1.0 - 1.0 / rho) * above;
        wq += term;
        if at_m == 0.0 || term.abs() <= 1e-17 * wq.abs().max(1e-300) {
            break;
        }
    }
    wq
}

/// `(P(X = m), P(X ≥ m + 1))` for `X ~ Poisson(mu)`, `m ≥ mu` an integer-valued float.
fn poisson_point_and_tail_above(mu: f64, m: f64) -> (f64, f64) {
    let log_point = -mu + m * mu.ln() - ln_factorial(m);
    if log_point < -745.0 {
        return (0.0, 0.0);
    }
    let point = log_point.exp();
    // P(X ≥ m + 1) = P(X = m) Σ_{i≥1} Π_{j=1..i} μ/(m + j).
    let mut term = point;
    let mut sum = 0.0;
    let mut j = 1.0;
    loop {
        term *= mu / (m + j);
        sum += term;
        if term <= 1e-18 * sum || term == 0.0 {
            break;
        }
        j += 1.0;
    }
    (point, sum)
}

/// `ln m!` for an integer-valued `m ≥ 0`: exact summation below 32, Stirling's series above
/// (error below `1e−16` relative there).
fn ln_factorial(m: f64) -> f64 {
    if m < 32.0 {
        let mut s = 0.0;
        let mut i = 2.0;
        while i <= m {
            s += f64::ln(i);
            i += 1.0;
        }
        return s;
    }
    let inv = 1.0 / m;
    let inv2 = inv * inv;
    m * m.ln() - m
        + 0.5 * (2.0 * std::f64::consts::PI * m).ln()
        + inv * (1.0 / 12.0 - inv2 * (1.0 / 360.0 - inv2 * (1.0 / 1260.0 - inv2 / 1680.0)))
}

/// The lower bound on `𝒟(c; ρ)` that survives our check (a Brumelle-type bound; the
/// thesis' Prop. 5.2 prints a wrong one):
/// `1/2 + ρ / (2c(1 − ρ))`. The thesis' chapter 6 uses this form (Prop. 6.1).
///
/// # Errors
///
/// As [`mdc_sojourn`].
pub fn mdc_lower_bound(c: u64, rho: f64) -> Result<f64, QueueingError> {
    if c == 0 {
        return Err(QueueingError::NoServers);
    }
    let rho = stable(non_negative(Parameter::Rho, rho)?, 1.0)?;
    Ok(0.5 + rho / (2.0 * c as f64 * (1.0 - rho)))
}

/// **Wrong as printed; kept only to show it.** The bound the thesis quotes from \[Bru71\] in
/// Prop. 5.2, `𝒟(c; ρ) ≥ 1 + ρ / (2c(1 − ρ))`, is false for every `c ≥ 2` the notes tried
/// (002a §6 #1): `c = 2, ρ = 0.8` gives `2.0 > 𝒟 = 1.903`. Use [`mdc_sojourn`] or
/// [`mdc_lower_bound`].
///
/// # Errors
///
/// As [`mdc_sojourn`].
pub fn brumelle_bound_as_printed(c: u64, rho: f64) -> Result<f64, QueueingError> {
    Ok(mdc_lower_bound(c, rho)? + 0.5)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ln_factorial_is_continuous_at_the_switch() {
        let exact: f64 = (2..=40).map(|i| f64::ln(f64::from(i))).sum();
        assert!((ln_factorial(40.0) - exact).abs() < 1e-12 * exact);
        let exact31: f64 = (2..=31).map(|i| f64::ln(f64::from(i))).sum();
        assert!((ln_factorial(31.0) - exact31).abs() < 1e-13);
        assert_eq!(ln_factorial(0.0), 0.0);
        assert_eq!(ln_factorial(1.0), 0.0);
    }

    #[test]
    fn the_series_with_one_server_is_pollaczek_khinchine() {
        for rho in [0.1, 0.5, 0.8, 0.9] {
            let series = 1.0 + crommelin_wait(1, rho);
            let exact = md1_sojourn(rho).unwrap();
            assert!(
                (series - exact).abs() < 1e-9,
                "ρ = {rho}: {series} vs {exact}"
            );
        }
    }

    #[test]
    fn poisson_tails_sum_to_one() {
        for (mu, m) in [(3.0, 5.0), (50.0, 60.0), (900.0, 1000.0)] {
            let (point, above) = poisson_point_and_tail_above(mu, m);
            // Sum the lower part directly.
            let mut below = 0.0;
            let mut t = (-mu).exp();
            if mu < 700.0 {
                for i in 0..(m as u64) {
                    below += t;
                    t *= mu / (i as f64 + 1.0);
                }
                assert!((below + point + above - 1.0).abs() < 1e-12, "{mu} {m}");
            }
        }
    }
}
