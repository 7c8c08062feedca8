//! Cycle budgets: TRY-GUESS and RANDOM (Figures 2–4, Theorem 8) and RANDOM′ (Theorem 11).

use std::f64::consts::E;

use serde::{Deserialize, Serialize};

use super::lg_n_lg_lg_n;
use crate::QueueingError;
use crate::error::{Parameter, non_negative, positive, processors};

/// `2^64` as an `f64`: the first value whose ceiling does not fit in a `u64`.
const TWO_POW_64: f64 = 18_446_744_073_709_551_616.0;

/// `⌈x⌉` as a `u64`, for finite `x ≥ 0`.
fn ceil_u64(x: f64) -> Result<u64, QueueingError> {
    let c = x.ceil();
    if c.is_finite() && c < TWO_POW_64 {
        Ok(c as u64)
    } else {
        Err(QueueingError::CycleCountOverflow)
    }
}

fn add(a: u64, b: u64) -> Result<u64, QueueingError> {
    a.checked_add(b).ok_or(QueueingError::CycleCountOverflow)
}

/// The number of delivery cycles TRY-GUESS(`λ_guess`) takes (Figure 3, note §4):
/// `Σ_{j=0}^{J−1} ⌈max{k1·λ_guess/2^j, k2·lg n}⌉ + 1`, with `J = #{j ≥ 0 : λ_guess/2^j > 1}`.
///
/// Lines 2–8 of Figure 3 halve `λ` from `λ_guess` while it exceeds 1, running the inner loop
/// (lines 3–6) `max{k1·λ, k2·lg n}` times at each value, rounded up (note §2: non-integer loop
/// bounds are rounded up); line 9 is one final send. The budget counts every cycle, as if `U`
/// never empties early. `λ_guess ≤ 1` costs the single final send.
///
/// # Errors
///
/// [`QueueingError::NotFinite`], [`QueueingError::Negative`] for a bad `lambda_guess` or
/// `lg_n`; [`QueueingError::NotPositive`] for `k1` or `k2` not positive;
/// [`QueueingError::CycleCountOverflow`] if the count does not fit in a `u64`.
pub fn try_guess_budget(
    lambda_guess: f64,
    k1: f64,
    k2: f64,
    lg_n: f64,
) -> Result<u64, QueueingError> {
    let lambda_guess = non_negative(Parameter::LambdaGuess, lambda_guess)?;
    let k1 = positive(Parameter::K1, k1)?;
    let k2 = positive(Parameter::K2, k2)?;
    let lg_n = non_negative(Parameter::LgN, lg_n)?;
    let floor = k2 * lg_n;
    let mut cycles = 1u64;
    // Halving is exact, so `lam` is exactly λ_guess/2^j; the loop runs at most ~1024 times.
    let mut lam = lambda_guess;
    while lam > 1.0 {
        cycles = add(cycles, ceil_u64((k1 * lam).max(floor))?)?;
        lam /= 2.0;
    }
    Ok(cycles)
}

/// RANDOM's two phases of guesses (Figure 2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum RandomPhase {
    /// Lines 3–7: guesses 2, 4, 16, 256, … (squaring) while `k1·λ_guess < k2·lg n`.
    Squaring,
    /// Lines 8–12: guesses `(k2/k1)·lg n·lg lg n · 2^i` (doubling).
    Doubling,
}

/// One call of TRY-GUESS in a RANDOM budget.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct GuessCost {
    /// The guess `λ_guess`.
    pub guess: f64,
    /// The phase that made it.
    pub phase: RandomPhase,
    /// [`try_guess_budget`] of the guess.
    pub cycles: u64,
}

/// The cycle budget of RANDOM on a message set with load factor `λ(M)`: see [`random_budget`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RandomBudget {
    /// Every cycle: the initial send plus the TRY-GUESS calls of [`RandomBudget::guesses`].
    pub total: u64,
    /// The TRY-GUESS calls, in order; the last is the first guess `≥ λ(M)`. Empty when
    /// `λ(M) ≤ 1`.
    pub guesses: Vec<GuessCost>,
}

/// The cycles RANDOM (Figure 2) spends on a message set with load factor `λ = λ(M)` on `n`
/// processors when every TRY-GUESS behaves as Lemma 7 promises (Theorem 8's event of
/// probability `1 − O(1/n)`): `1 + Σ` [`try_guess_budget`] over the guesses up to and including
/// the first guess `≥ λ(M)` (note §4).
///
/// Choices, following the note (§2 Figure 2, §4, §6):
/// - line 1 sends `M` once; if `λ(M) ≤ 1` that delivers everything (pessimistic model) and the
///   budget is 1;
/// - phase 1 (lines 3–7) tries 2, 4, 16, 256, … (squaring) while `k1·λ_guess < k2·lg n`; the
///   test is made before each call, as in the `while` of line 4;
/// - phase 2 (lines 8–12) starts at `(k2/k1)·lg n·lg lg n` (the algorithm's threshold, not
///   Figure 4's `lg n·lg lg n`, note §6) and doubles. The start is clamped to at least 2 (note
///   §2): with the paper's constants `k2/k1 ≈ 1/470` it is below 1 unless `lg n·lg lg n > 470`,
///   and for `n ≤ 2` the product is ≤ 0 (taken as 0), so line 11 would never make it useful;
/// - the first guess `λ_guess ≥ λ(M)` is the last: with `λ(U) ≤ λ_guess` it delivers
///   everything, and `U` is assumed non-empty until then (the worst case the budget bounds).
///
/// `lg n = log2 n`.
///
/// # Errors
///
/// [`QueueingError::NotFinite`], [`QueueingError::Negative`] for a bad `lambda`;
/// [`QueueingError::NotPositive`] for `k1`, `k2` not positive; [`QueueingError::NoProcessors`]
/// for `n = 0`; [`QueueingError::CycleCountOverflow`] if the count does not fit in a `u64`.
pub fn random_budget(lambda: f64, k1: f64, k2: f64, n: u64) -> Result<RandomBudget, QueueingError> {
    let lambda = non_negative(Parameter::Lambda, lambda)?;
    let k1 = positive(Parameter::K1, k1)?;
    let k2 = positive(Parameter::K2, k2)?;
    let n = processors(n)?;
    let lg_n = (n as f64).log2();
    let mut budget = RandomBudget {
        total: 1,
        guesses: Vec::new(),
    };
    if lambda <= 1.0 {
        return Ok(budget);
    }
    let mut call = |guess: f64, phase: RandomPhase| -> Result<bool, QueueingError> {
        if !guess.is_finite() {
            return Err(QueueingError::CycleCountOverflow);
        }
        let cycles = try_guess_budget(guess, k1, k2, lg_n)?;
        budget.total = add(budget.total, cycles)?;
        budget.guesses.push(GuessCost {
            guess,
            phase,
            cycles,
        });
        Ok(guess >= lambda)
    };
    let mut guess = 2.0f64;
    while k1 * guess < k2 * lg_n {
        if call(guess, RandomPhase::Squaring)? {
            return Ok(budget);
        }
        guess *= guess;
    }
    let mut guess = (k2 / k1 * lg_n_lg_lg_n(n)).max(2.0);
    while !call(guess, RandomPhase::Doubling)? {
        guess *= 2.0;
    }
    Ok(budget)
}

/// The regimes of Figure 4 (RANDOM's delivery cycles, with probability `1 − O(1/n)`).
///
/// The paper's ranges share their end points; here each range includes its upper end:
/// `λ ≤ 1`, `1 < λ ≤ 2`, `2 < λ ≤ lg n·lg lg n`, `λ > lg n·lg lg n` (with `lg n·lg lg n` taken
/// as 0 for `n ≤ 2`, so the third regime is empty for `n ≤ 4`, where `lg n·lg lg n ≤ 2`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Figure4Regime {
    /// `0 ≤ λ ≤ 1`: one cycle.
    OneCycle,
    /// `1 < λ ≤ 2`: `O(lg n)` cycles.
    LgN,
    /// `2 < λ ≤ lg n·lg lg n`: `O(lg n·lg λ)` cycles.
    LgNLgLambda,
    /// `λ > lg n·lg lg n` (and polynomial in `n`): `O(λ)` cycles.
    Linear,
}

/// The Figure 4 regime of load factor `lambda` on `n` processors (see [`Figure4Regime`]).
///
/// # Errors
///
/// [`QueueingError::NotFinite`], [`QueueingError::Negative`] for a bad `lambda`;
/// [`QueueingError::NoProcessors`] for `n = 0`.
pub fn figure4_regime(lambda: f64, n: u64) -> Result<Figure4Regime, QueueingError> {
    let lambda = non_negative(Parameter::Lambda, lambda)?;
    let n = processors(n)?;
    Ok(if lambda <= 1.0 {
        Figure4Regime::OneCycle
    } else if lambda <= 2.0 {
        Figure4Regime::LgN
    } else if lambda <= lg_n_lg_lg_n(n) {
        Figure4Regime::LgNLgLambda
    } else {
        Figure4Regime::Linear
    })
}

/// `λ + lg n·lg lg n`, Theorem 8's `O(λ(M) + lg n·lg lg n)` without the constant: measured
/// cycle counts divided by it should stay bounded (note §5, experiment 1). `lg n·lg lg n` is
/// taken as 0 for `n ≤ 2`.
///
/// # Errors
///
/// [`QueueingError::NotFinite`], [`QueueingError::Negative`] for a bad `lambda`;
/// [`QueueingError::NoProcessors`] for `n = 0`.
pub fn figure4_reference(lambda: f64, n: u64) -> Result<f64, QueueingError> {
    let lambda = non_negative(Parameter::Lambda, lambda)?;
    let n = processors(n)?;
    Ok(lambda + lg_n_lg_lg_n(n))
}

/// Theorem 11's bounds for RANDOM′ (Figure 7) when every capacity is at least `a·lg n`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Theorem11Bound {
    /// `z*`: the smallest power of 2 with `z > e·2^{(k+2)/a}·λ(M)`, the pass length at which
    /// every channel is uncongested in every cycle with probability `1 − O(1/n)`.
    pub threshold: u64,
    /// `2z*`: the passes `z = 1, 2, 4, …, z*` take `2z* − 1` cycles.
    pub total_cycles: u64,
    /// The union bound `(4n − 2)·z*·n^{−(k+2)}` on failing in the pass `z*` (may exceed 1 for
    /// tiny `n`, where it says nothing).
    pub failure_probability: f64,
}

/// Theorem 11 (RANDOM′, Figure 7, with the note's reading of the lost line 1 as `z ← 1`): if
/// every `cap(c) ≥ a·lg n` and `λ(M) ≤ n^k`, RANDOM′ finishes within `2z*` cycles except with
/// probability at most `(4n − 2)·z*·n^{−(k+2)}`.
///
/// In the pass with `z = z*` each message is sent in a uniform one of `z` cycles, so a cycle's
/// messages form a `(1/z)`-subset and Lemma 5 gives congestion probability `(eλ/z)^{cap} ≤
/// 2^{−(k+2)·cap/a} ≤ n^{−(k+2)}` per channel and cycle; the union runs over the `4n − 2`
/// channels and the `z*` cycles. The hypothesis `λ(M) ≤ n^k` only keeps `z* = O(n^k)` and is
/// not checked. For `λ ≥ 1/(2e)`, `2z* ≤ 4e·2^{(k+2)/a}·λ(M)`.
///
/// # Errors
///
/// [`QueueingError::NotFinite`], [`QueueingError::Negative`] for a bad `lambda`;
/// [`QueueingError::NotFinite`], [`QueueingError::NotPositive`] for a bad `a`;
/// [`QueueingError::NoProcessors`] for `n = 0`; [`QueueingError::CycleCountOverflow`] if `2z*`
/// does not fit in a `u64`.
pub fn theorem11_bound(
    lambda: f64,
    a: f64,
    k: u32,
    n: u64,
) -> Result<Theorem11Bound, QueueingError> {
    let lambda = non_negative(Parameter::Lambda, lambda)?;
    let a = positive(Parameter::A, a)?;
    let n = processors(n)?;
    let exponent = f64::from(k) + 2.0;
    let target = E * (exponent / a).exp2() * lambda;
    let mut threshold = 1u64;
    // Powers of 2 are exact in f64, so the comparison is exact; an infinite target overflows.
    while threshold as f64 <= target {
        threshold = threshold
            .checked_mul(2)
            .ok_or(QueueingError::CycleCountOverflow)?;
    }
    let total_cycles = threshold
        .checked_mul(2)
        .ok_or(QueueingError::CycleCountOverflow)?;
    let nf = n as f64;
    let failure_probability =
        ((4.0 * nf - 2.0).ln() + (threshold as f64).ln() - exponent * nf.ln()).exp();
    Ok(Theorem11Bound {
        threshold,
        total_cycles,
        failure_probability,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn try_guess_budget_by_hand() {
        // λg = 8, k1 = k2 = 1, lg n = 3: j = 0, 1, 2 (8, 4, 2 > 1): 8 + 4 + 3, plus the final send.
        assert_eq!(try_guess_budget(8.0, 1.0, 1.0, 3.0), Ok(16));
        // λg = 2: J = 1: ⌈max(2k1, k2 lg n)⌉ + 1.
        assert_eq!(try_guess_budget(2.0, 10.0, 1.0, 5.0), Ok(21));
        assert_eq!(try_guess_budget(2.0, 1.0, 4.0, 4.0), Ok(17));
        // λg = 3: 3 and 1.5 exceed 1: ⌈2.5·3⌉ + ⌈2.5·1.5⌉ + 1 = 8 + 4 + 1 with a small floor.
        assert_eq!(try_guess_budget(3.0, 2.5, 0.1, 1.0), Ok(13));
        // λg ≤ 1: only the final send.
        assert_eq!(try_guess_budget(1.0, 5.0, 5.0, 10.0), Ok(1));
        assert_eq!(try_guess_budget(0.0, 5.0, 5.0, 10.0), Ok(1));
        assert!(matches!(
            try_guess_budget(2.0, 0.0, 1.0, 1.0),
            Err(QueueingError::NotPositive {
                parameter: Parameter::K1,
                ..
            })
        ));
        assert!(matches!(
            try_guess_budget(f64::INFINITY, 1.0, 1.0, 1.0),
            Err(QueueingError::NotFinite {
                parameter: Parameter::LambdaGuess,
                ..
            })
        ));
        assert_eq!(
            try_guess_budget(1e300, 1e10, 1.0, 1.0),
            Err(QueueingError::CycleCountOverflow)
        );
    }

    #[test]
    fn random_budget_by_hand() {
        // λ = 5, k1 = 1, k2 = 4, n = 16 (lg n = 4, k2 lg n = 16):
        // line 1: 1; phase 1: 2 (1·2 < 16): 16 + 1 = 17; 4 (4 < 16): 16 + 16 + 1 = 33;
        // 16 is not < 16, so phase 2 starts at 4·4·lg 4 = 32 ≥ 5: 32 + 16·4 + 1 = 97.
        let b = random_budget(5.0, 1.0, 4.0, 16).unwrap();
        assert_eq!(b.total, 1 + 17 + 33 + 97);
        let guesses: Vec<(f64, RandomPhase, u64)> = b
            .guesses
            .iter()
            .map(|g| (g.guess, g.phase, g.cycles))
            .collect();
        assert_eq!(
            guesses,
            vec![
                (2.0, RandomPhase::Squaring, 17),
                (4.0, RandomPhase::Squaring, 33),
                (32.0, RandomPhase::Doubling, 97),
            ]
        );
        // λ = 3 stops at the guess 4 in phase 1.
        assert_eq!(random_budget(3.0, 1.0, 4.0, 16).unwrap().total, 1 + 17 + 33);
        // λ ≤ 1: the single send of line 1.
        let one = random_budget(1.0, 1.0, 4.0, 16).unwrap();
        assert_eq!((one.total, one.guesses.len()), (1, 0));
    }

    #[test]
    fn random_budget_figure4_second_row() {
        // 1 < λ ≤ 2 with phase 1 active: line 1, TRY-GUESS(2) = ⌈k2 lg n⌉ + 1: k2 lg n + 2.
        let b = random_budget(1.5, 2.0, 3.0, 1024).unwrap();
        assert_eq!(b.total, 30 + 2);
        // Phase 1 inactive (k1·2 ≥ k2 lg n): phase 2 from max(2, (k2/k1) lg n lg lg n).
        // k1 = 100, k2 = 1, n = 16: (1/100)·4·2 = 0.08 → 2; TRY-GUESS(2) = 200 + 1; then 4.
        let b = random_budget(3.0, 100.0, 1.0, 16).unwrap();
        assert_eq!(b.guesses.len(), 2);
        assert_eq!(b.guesses[0].guess, 2.0);
        assert_eq!(b.guesses[1].guess, 4.0);
        assert_eq!(b.total, 1 + 201 + (400 + 200 + 1));
    }

    #[test]
    fn random_budget_small_n_is_clamped() {
        // n = 1 and n = 2: lg n lg lg n is taken as 0; phase 1 never runs (k2·lg n ≤ k2).
        for n in [1u64, 2] {
            let b = random_budget(7.0, 1.0, 1.0, n).unwrap();
            let gs: Vec<f64> = b.guesses.iter().map(|g| g.guess).collect();
            assert_eq!(gs, vec![2.0, 4.0, 8.0], "n = {n}");
        }
        assert_eq!(
            random_budget(2.0, 1.0, 1.0, 0),
            Err(QueueingError::NoProcessors)
        );
    }

    #[test]
    fn figure4_regimes() {
        let n = 1 << 16; // lg n lg lg n = 16·4 = 64.
        assert_eq!(figure4_regime(0.0, n), Ok(Figure4Regime::OneCycle));
        assert_eq!(figure4_regime(1.0, n), Ok(Figure4Regime::OneCycle));
        assert_eq!(figure4_regime(1.5, n), Ok(Figure4Regime::LgN));
        assert_eq!(figure4_regime(2.0, n), Ok(Figure4Regime::LgN));
        assert_eq!(figure4_regime(2.5, n), Ok(Figure4Regime::LgNLgLambda));
        assert_eq!(figure4_regime(64.0, n), Ok(Figure4Regime::LgNLgLambda));
        assert_eq!(figure4_regime(64.5, n), Ok(Figure4Regime::Linear));
        // n = 4: lg n lg lg n = 2, the third regime is empty.
        assert_eq!(figure4_regime(2.5, 4), Ok(Figure4Regime::Linear));
        assert_eq!(figure4_reference(10.0, n), Ok(74.0));
        assert_eq!(figure4_reference(10.0, 2), Ok(10.0));
        assert_eq!(figure4_reference(10.0, 1), Ok(10.0));
        assert!(matches!(
            figure4_regime(f64::NAN, n),
            Err(QueueingError::NotFinite { .. })
        ));
    }

    #[test]
    fn theorem11_by_hand() {
        // a = 3, k = 1: e·2^1·λ; λ = 2: 10.87 → z* = 16, total 32.
        let t = theorem11_bound(2.0, 3.0, 1, 1024).unwrap();
        assert_eq!((t.threshold, t.total_cycles), (16, 32));
        let want = (4.0 * 1024.0 - 2.0) * 16.0 / 1024f64.powi(3);
        assert!((t.failure_probability - want).abs() < 1e-12 * want);
        // λ = 0: z* = 1 (1 > 0).
        assert_eq!(theorem11_bound(0.0, 1.0, 1, 8).unwrap().threshold, 1);
        // z* is the smallest power of 2 strictly above the target.
        for &lambda in &[0.01, 0.5, 2.0 / E, 1.0, 7.0, 123.4] {
            let t = theorem11_bound(lambda, 3.0, 1, 8).unwrap();
            let target = E * 2.0 * lambda;
            assert!(t.threshold.is_power_of_two());
            assert!(t.threshold as f64 > target);
            assert!(t.threshold == 1 || (t.threshold / 2) as f64 <= target);
        }
        assert!(matches!(
            theorem11_bound(1.0, 0.0, 1, 8),
            Err(QueueingError::NotPositive {
                parameter: Parameter::A,
                ..
            })
        ));
        assert_eq!(
            theorem11_bound(1e300, 1.0, 1, 8),
            Err(QueueingError::CycleCountOverflow)
        );
        // 2z* ≤ 4e·2^{(k+2)/a}·λ for λ ≥ 1/(2e).
        for &lambda in &[0.2, 1.0, 3.3, 1000.0] {
            let t = theorem11_bound(lambda, 2.0, 2, 64).unwrap();
            assert!(t.total_cycles as f64 <= 4.0 * E * 4.0 * lambda);
        }
    }
}
