//! Stamoulis, "Routing and Performance Evaluation in Interconnection Networks" (MIT PhD
//! thesis, 1991): the closed forms of chapters 2 and 5–7, each documented with its
//! equation or proposition number, and marked where our checks (algebra,
//! exact evaluation or simulation) found the printed formula wrong.
//!
//! - [`queues`]: the single queues of §2.2 — discrete-time G/D/1 and M/D/1 (2.3)–(2.4),
//!   continuous arrivals with slotted service (2.5), the M/D/1 queue with synchronisation
//!   (2.6), the continuous M/D/1 queue, and the M/D/c queue by Crommelin's series, with the
//!   lower bound that holds and the \[Bru71\] bound as printed (which does not).
//! - [`greedy`]: chapter 5, dynamic routing on the hypercube and the butterfly: load factors,
//!   Props. 5.2, 5.3, 5.12–5.14, 5.17, 5.18 and (5.18), proved and claimed kept apart, and
//!   [`greedy::delay_bounds`] / [`greedy::slotted_delay_bounds`] for a simulator to print.
//! - [`broadcast`]: chapters 6–7, multiple broadcasts: Props. 6.1, 6.2, `g_{m,i}`, `c_d`,
//!   approximation (6.19), Lemma 7.2, Props. 7.3–7.6 (7.5 printed and corrected), the
//!   generalised Rule C (7.16).
//!
//! ```
//! use fatnet_queueing::stamoulis::{broadcast, greedy, queues};
//!
//! // 𝒟(4; 0.9), the M/D/4 sojourn (Crommelin's formula).
//! assert!((queues::mdc_sojourn(4, 0.9)? - 1.99997).abs() < 5e-6);
//! // Greedy routing on the 6-cube at ρ = 0.8, p = 1/2: 4 ≤ T ≤ 15.
//! let b = greedy::delay_bounds(greedy::Network::Hypercube, 6, 1.6, 0.5)?;
//! assert!((b.lower - 4.0).abs() < 1e-12 && (b.upper - 15.0).abs() < 1e-12);
//! // The indirect scheme is stable below (2/3)(1 − 2^−d).
//! assert!((broadcast::indirect_stability_limit(4)? - 0.625).abs() < 1e-15);
//! # Ok::<(), fatnet_queueing::QueueingError>(())
//! ```

pub mod broadcast;
pub mod greedy;
pub mod queues;
