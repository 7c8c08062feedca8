//! Greenberg & Leiserson, "Randomized Routing on Fat-Trees" (MIT/LCS/TM-307, 1986; FOCS 1985):
//! the paper's bounds, constants and cycle budgets as closed forms.
//!
//! The technical report survives as a scanned text with gaps (lost lines, ambiguous
//! formulas); our implementation note (unpublished, cited below as "the note") fixes one
//! reading of each, and where the paper is ambiguous each item says which reading it
//! implements.
//!
//! Model in one paragraph: `n` processors are the leaves of a complete binary tree with
//! `L = lg n` levels. Every tree edge is a pair of directed channels, and the root has one more
//! pair to the outside world, so there are `4n − 2` channels. A channel's *height* is 0 for the
//! leaf channels and `L` for the root's external pair; `cap(c) ≥ 1` is its number of wires.
//! Messages move in *delivery cycles*; a channel is *congested* in a cycle when more than
//! `cap(c)` messages try to use it, and then (in the analysis) all of them are lost. RANDOM sends
//! `p`-subsets of the undelivered messages with `p = 1/(r·λ_guess)`.
//!
//! Contents:
//! - the binomial tail `B(s, t, p)` ([`binomial_tail`]) and Lemma 3's bound
//!   ([`binomial_tail_bound`]); Lemma 4 ([`lemma4_bound`]); Lemma 5, exact
//!   ([`congestion_probability`]) and bounded ([`congestion_bound`]);
//! - the congestion parameter `r` ([`congestion_parameter`], [`worst_path_sum`]);
//! - Lemma 7's constants `q`, `k1`, `k2` and its exponent inequality ([`Lemma7Constants`],
//!   [`lemma7_inequality_holds`]);
//! - cycle budgets of TRY-GUESS ([`try_guess_budget`]) and RANDOM ([`random_budget`]), the
//!   Figure 4 regimes ([`figure4_regime`], [`figure4_reference`]);
//! - Theorem 11 for RANDOM′ ([`theorem11_bound`]);
//! - the constant-switch network of Figure 8 ([`new_net_wire_congestion`],
//!   [`new_net_wire_congestion_bound`]).
//!
//! `lg x = log2 x` throughout.
//!
//! ```
//! use fatnet_queueing::greenberg_leiserson::{
//!     Lemma7Constants, congestion_parameter, random_budget,
//! };
//!
//! // A standard fat-tree on 2^16 processors: capacity 2^⌊h/2⌋ at height h = 0..=16.
//! let caps: Vec<u64> = (0..=16u32).map(|h| 1 << (h / 2)).collect();
//! let r = congestion_parameter(&caps)?;
//! assert!((r - 24.22).abs() < 0.01);
//! // The paper's constants make k1/k2 ≈ 470, so phase 1 never runs at this size.
//! let c = Lemma7Constants::new(r, 1)?;
//! let budget = random_budget(100.0, c.k1, c.k2, 1 << 16)?;
//! assert!(budget.total > 100);
//! # Ok::<(), fatnet_queueing::QueueingError>(())
//! ```

mod budgets;
mod congestion;
mod tail;

pub use budgets::{
    Figure4Regime, GuessCost, RandomBudget, RandomPhase, Theorem11Bound, figure4_reference,
    figure4_regime, random_budget, theorem11_bound, try_guess_budget,
};
pub use congestion::{
    Lemma7Constants, congestion_parameter, lemma7_exponent, lemma7_inequality_holds, lemma7_k1,
    lemma7_k2, lemma7_q, worst_path_sum,
};
pub use tail::{
    binomial_tail, binomial_tail_bound, binomial_tail_bound_ln, binomial_tail_ln, congestion_bound,
    congestion_probability, lemma4_bound, new_net_wire_congestion, new_net_wire_congestion_bound,
};

/// `lg n · lg lg n` for `n ≥ 1` processors, taken as 0 when `n ≤ 2` (there `lg lg n ≤ 0`, and
/// for `n = 1` it is `−∞`): the term of Figure 4 and of RANDOM's phase-2 guess.
pub(crate) fn lg_n_lg_lg_n(n: u64) -> f64 {
    let lg_n = (n as f64).log2();
    if lg_n <= 1.0 { 0.0 } else { lg_n * lg_n.log2() }
}
