//! Closed-form queueing and routing bounds: the formulas that the simulators' measurements are
//! judged against.
//!
//! **Key design decision: closed forms only.** Every item is a function of plain numbers
//! (loads, capacities, probabilities, `λ`, `n`): nothing here knows a topology, a message set
//! or a simulator, and the crate depends on no other fatnet crate. A simulator computes `λ(M)`
//! or a capacity profile with `fatnet-load` / `fatnet-topology` and hands the numbers in, so
//! the bounds can be checked, tabulated and plotted without running anything, and a bound
//! never silently follows a change in the code it is meant to judge.
//!
//! Modules:
//! - [`greenberg_leiserson`]: Greenberg & Leiserson, *Randomized routing on fat-trees*
//!   (1986): the binomial tail and Lemmas 3–5, the congestion parameter `r`, the
//!   constants of Lemma 7, the cycle budgets of TRY-GUESS and RANDOM (Theorem 8, Figure 4),
//!   RANDOM′ (Theorem 11) and the constant-switch network of Figure 8.
//! - [`stamoulis`]: Stamoulis' thesis (1991): discrete-time and synchronised M/D/1
//!   queues, the M/D/c queue (Crommelin), the delay bounds of greedy routing on the hypercube
//!   and the butterfly (chapter 5), and the multiple-broadcast formulas of chapters 6–7.
//! - [`stats`]: Student's t critical values for confidence intervals.
//!
//! Conventions: `lg x = log2 x` and `ln x` is the natural logarithm, as in the papers; `e` is
//! Euler's number. Invalid input (a probability outside `[0, 1]`, a zero capacity, a NaN, ...)
//! is reported as a [`QueueingError`], never a panic.
//!
//! ```
//! use fatnet_queueing::greenberg_leiserson::binomial_tail;
//! use fatnet_queueing::stamoulis::queues::{md1_sojourn, mdc_sojourn};
//! use fatnet_queueing::QueueingError;
//!
//! // M/D/1 with unit service at load 1/2: sojourn 1 + ρ/(2(1 − ρ)) = 1.5 (Pollaczek–Khinchine),
//! // and the M/D/c formula with one server agrees.
//! assert_eq!(md1_sojourn(0.5)?, 1.5);
//! assert!((mdc_sojourn(1, 0.5)? - 1.5).abs() < 1e-9);
//! // At load 1 the queue is unstable: a typed error, not a NaN or a panic.
//! assert!(matches!(md1_sojourn(1.0), Err(QueueingError::Unstable { .. })));
//! // At least 2 successes in 3 fair trials: (3 + 1)/8.
//! assert!((binomial_tail(2, 3, 0.5)? - 0.5).abs() < 1e-12);
//! # Ok::<(), QueueingError>(())
//! ```

#![deny(missing_docs)]

mod error;
pub mod greenberg_leiserson;
pub mod stamoulis;
pub mod stats;

pub use error::{Parameter, QueueingError};
