//! The crate's error type and the input checks shared by its modules.

use std::fmt;

use thiserror::Error;

/// The real-valued parameter that an error is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Parameter {
    /// A sending (or success) probability `p`.
    P,
    /// The load factor `λ(M)`.
    Lambda,
    /// RANDOM's current guess `λ_guess`.
    LambdaGuess,
    /// The mean `E[X]` of Lemma 4.
    Mean,
    /// The upper bound `b` of the random variable in Lemma 4.
    UpperBound,
    /// The threshold `w` of Lemma 4.
    Threshold,
    /// RANDOM's constant `k1` (inner-loop length per unit of `λ_guess`).
    K1,
    /// RANDOM's constant `k2` (inner-loop length per unit of `lg n`).
    K2,
    /// `lg n = log2 n`.
    LgN,
    /// Theorem 11's `a`, with every capacity at least `a·lg n`.
    A,
    /// The congestion parameter `r`.
    R,
    /// Stamoulis' load factor `ρ`.
    Rho,
    /// The mean number of arrivals per slot of a discrete-time queue.
    Arrivals,
    /// The synchronisation period `Δ` of a queue whose services start at multiples of `Δ`.
    Delta,
    /// A slot length `τ`.
    Tau,
}

impl fmt::Display for Parameter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Parameter::P => "p",
            Parameter::Lambda => "λ",
            Parameter::LambdaGuess => "λ_guess",
            Parameter::Mean => "mean",
            Parameter::UpperBound => "b",
            Parameter::Threshold => "w",
            Parameter::K1 => "k1",
            Parameter::K2 => "k2",
            Parameter::LgN => "lg n",
            Parameter::A => "a",
            Parameter::R => "r",
            Parameter::Rho => "ρ",
            Parameter::Arrivals => "E[A]",
            Parameter::Delta => "Δ",
            Parameter::Tau => "τ",
        })
    }
}

/// Why a closed form could not be evaluated. Every function of this crate returns it instead of
/// panicking on bad input.
#[derive(Debug, Clone, Copy, PartialEq, Error)]
#[non_exhaustive]
pub enum QueueingError {
    /// A probability outside `[0, 1]` (or NaN).
    #[error("{parameter} = {value} is not a probability in [0, 1]")]
    ProbabilityOutOfRange {
        /// Which probability.
        parameter: Parameter,
        /// The value given.
        value: f64,
    },
    /// A parameter that must be a finite number is NaN or infinite.
    #[error("{parameter} = {value} is not finite")]
    NotFinite {
        /// Which parameter.
        parameter: Parameter,
        /// The value given.
        value: f64,
    },
    /// A parameter that must be positive is zero or negative.
    #[error("{parameter} = {value} must be positive")]
    NotPositive {
        /// Which parameter.
        parameter: Parameter,
        /// The value given.
        value: f64,
    },
    /// A parameter that must be non-negative is negative.
    #[error("{parameter} = {value} must be non-negative")]
    Negative {
        /// Which parameter.
        parameter: Parameter,
        /// The value given.
        value: f64,
    },
    /// Lemma 3's bound `(e·p·t/s)^s` needs a tail threshold `s ≥ 1`.
    #[error("the tail threshold s must be at least 1")]
    ZeroThreshold,
    /// Lemma 4 needs `w < E[X] ≤ b`.
    #[error("Lemma 4 needs w < mean <= b, got w = {w}, mean = {mean}, b = {b}")]
    Lemma4Order {
        /// The threshold `w`.
        w: f64,
        /// The mean `E[X]`.
        mean: f64,
        /// The upper bound `b` of `X`.
        b: f64,
    },
    /// Lemma 5 conditions on a message that crosses the channel, so the load is at least 1.
    #[error("the channel load must be at least 1: the message itself crosses the channel")]
    ZeroLoad,
    /// A channel capacity of 0.
    #[error("a channel capacity must be at least 1")]
    ZeroCapacity,
    /// A capacity profile with a capacity of 0.
    #[error("the capacity at height {height} is 0; capacities must be at least 1")]
    CapacityBelowOne {
        /// The height of the offending channel (0 = leaf channels).
        height: usize,
    },
    /// A capacity profile without any height.
    #[error("the capacity profile is empty; it needs at least the leaf height 0")]
    EmptyProfile,
    /// A value of `r` that no fat-tree has: a single channel of capacity `c` already needs
    /// `(e/r)^c ≤ 1/2`, so every congestion parameter exceeds `e`.
    #[error("r = {r} is not a congestion parameter: every congestion parameter exceeds e")]
    CongestionParameterTooSmall {
        /// The value given.
        r: f64,
    },
    /// A network without processors (`n = 0`).
    #[error("the network needs at least one processor")]
    NoProcessors,
    /// A cycle count that does not fit in a `u64`.
    #[error("the cycle count does not fit in 64 bits")]
    CycleCountOverflow,
    /// A load at which the queue or network has no steady state.
    #[error("the load {load} is not below the stability limit {limit}: no steady state")]
    Unstable {
        /// The load given (or computed from the parameters).
        load: f64,
        /// The limit it must stay below.
        limit: f64,
    },
    /// A hypercube or butterfly dimension outside the supported range.
    #[error("dimension d = {d} is out of range ({min} to {max})")]
    DimensionOutOfRange {
        /// The dimension given.
        d: u32,
        /// The smallest accepted.
        min: u32,
        /// The largest accepted.
        max: u32,
    },
    /// A server count of 0.
    #[error("a queue needs at least one server")]
    NoServers,
    /// The sum `Σ l_i` of Lemma 7.2 without any path, or with a path of length 0.
    #[error("Lemma 7.2 needs at least one path, each of length at least 1")]
    BadPaths,
    /// A generalised Rule C cycle (§7.3.1) without a root-bound slot (`K = 0`) or without a
    /// broadcast slot (`L = 0`).
    #[error(
        "a cycle of K + L slots needs K >= 1 root-bound and L >= 1 broadcast slots, got K = {k}, L = {l}"
    )]
    EmptySlotClass {
        /// The root-bound slots per cycle.
        k: u32,
        /// The broadcast slots per cycle.
        l: u32,
    },
}

/// `value` if it is finite.
pub(crate) fn finite(parameter: Parameter, value: f64) -> Result<f64, QueueingError> {
    if value.is_finite() {
        Ok(value)
    } else {
        Err(QueueingError::NotFinite { parameter, value })
    }
}

/// `value` if it is a probability (NaN is not).
pub(crate) fn probability(parameter: Parameter, value: f64) -> Result<f64, QueueingError> {
    if (0.0..=1.0).contains(&value) {
        Ok(value)
    } else {
        Err(QueueingError::ProbabilityOutOfRange { parameter, value })
    }
}

/// `value` if it is finite and `≥ 0`.
pub(crate) fn non_negative(parameter: Parameter, value: f64) -> Result<f64, QueueingError> {
    if finite(parameter, value)? >= 0.0 {
        Ok(value)
    } else {
        Err(QueueingError::Negative { parameter, value })
    }
}

/// `value` if it is finite and `> 0`.
pub(crate) fn positive(parameter: Parameter, value: f64) -> Result<f64, QueueingError> {
    if finite(parameter, value)? > 0.0 {
        Ok(value)
    } else {
        Err(QueueingError::NotPositive { parameter, value })
    }
}

/// `n` if it is at least 1.
pub(crate) fn processors(n: u64) -> Result<u64, QueueingError> {
    if n == 0 {
        Err(QueueingError::NoProcessors)
    } else {
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checks_accept_and_reject_the_right_values() {
        assert_eq!(probability(Parameter::P, 0.0), Ok(0.0));
        assert_eq!(probability(Parameter::P, 1.0), Ok(1.0));
        assert!(matches!(
            probability(Parameter::P, f64::NAN),
            Err(QueueingError::ProbabilityOutOfRange {
                parameter: Parameter::P,
                ..
            })
        ));
        assert_eq!(
            probability(Parameter::P, 1.5),
            Err(QueueingError::ProbabilityOutOfRange {
                parameter: Parameter::P,
                value: 1.5
            })
        );
        assert_eq!(
            non_negative(Parameter::Lambda, -1.0),
            Err(QueueingError::Negative {
                parameter: Parameter::Lambda,
                value: -1.0
            })
        );
        assert_eq!(
            positive(Parameter::K1, 0.0),
            Err(QueueingError::NotPositive {
                parameter: Parameter::K1,
                value: 0.0
            })
        );
        assert_eq!(
            finite(Parameter::R, f64::INFINITY),
            Err(QueueingError::NotFinite {
                parameter: Parameter::R,
                value: f64::INFINITY
            })
        );
        assert_eq!(processors(0), Err(QueueingError::NoProcessors));
        assert_eq!(
            QueueingError::NotPositive {
                parameter: Parameter::LgN,
                value: 0.0
            }
            .to_string(),
            "lg n = 0 must be positive"
        );
    }
}
