//! The trial runner: independent random trials in parallel, with results that depend only on the
//! master seed, and the statistics that summarise them.
//!
//! **Key design decision: a trial's randomness is a function of its index, never of the thread
//! that runs it.** Trial `i` of a run with master seed `seed` receives the seed
//! [`derive_seed(seed, i)`](crate::derive_seed) (SplitMix64 of the pair) and must draw all its
//! randomness from a generator seeded with it, normally
//! `rand_pcg::Pcg64::seed_from_u64(trial_seed)`. Trials share no generator and no accumulator, so
//! the set of results is fixed before any thread starts; the runner returns them in trial order
//! (`result[i]` is trial `i`), and every statistic is computed afterwards from that vector in
//! index order. Hence the output is bit-for-bit the same for any number of threads and any
//! scheduling, and the same as a sequential loop `for i in 0..trials { f(i, derive_seed(seed, i)) }`.
//! The same property lets a sweep be split across machines (strided shares of the indices) or
//! resumed after an interruption without changing a single trial.
//!
//! # How experiments use it
//!
//! ```
//! use fatnet_scenario::runner::{Summary, run_trials};
//! use rand::{Rng, SeedableRng};
//! use rand_pcg::Pcg64;
//!
//! const SEED: u64 = 2024;
//! // One trial: everything random comes from `trial_seed`.
//! let delays: Vec<f64> = run_trials(SEED, 100, |_i, trial_seed| {
//!     let mut rng = Pcg64::seed_from_u64(trial_seed);
//!     (0..10).map(|_| rng.random::<f64>()).sum::<f64>()
//! })?;
//! let summary = Summary::of(&delays);
//! assert_eq!(summary.n, 100);
//! let (low, high) = (summary.ci95_low.unwrap(), summary.ci95_high.unwrap());
//! assert!(low < summary.mean.unwrap() && summary.mean.unwrap() < high);
//! # Ok::<(), fatnet_scenario::ScenarioError>(())
//! ```
//!
//! - Give each experiment one constant master seed (recorded in its output, as
//!   `fatnet_repro::Experiment::seed` does) and derive everything from it; when a table
//!   has several independent rows, give row `r` the master seed `derive_seed(SEED, r)` so that
//!   rows do not share trials.
//! - The trial closure must be a pure function of `(i, trial_seed)`: no `thread_rng`, no shared
//!   mutable state, no iteration over a `HashMap` into the result.
//! - Reduce with [`Summary::of`] (real-valued outcomes) or [`Proportion::of`] (success rates)
//!   after the run, never with a shared accumulator inside the closure.
//! - [`run_trials_with`] sets the thread count ([`RunnerConfig`]) and takes a progress hook for a
//!   progress bar; neither changes the results. To run inside an existing rayon pool, call
//!   [`run_trials`] within `pool.install(|| ...)`.
//! - [`try_run_trials`] is for trials that can fail: it returns the error of the failing trial
//!   with the lowest index, whichever thread fails first.
//! - Every entry point checks its numbers before a trial runs: a thread count outside
//!   `1..=`[`MAX_THREADS`] ([`RunnerConfig::check`]) or a trial count whose results would not
//!   fit [`TRIAL_BUDGET_BYTES`] ([`check_trial_budget`]) is a [`ScenarioError`], not a panic.

use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;

use crate::run::MAX_THREADS;
use crate::{Parameter, ScenarioError, derive_seed};

/// The most memory the per-trial results of one run may take: 1 GiB.
///
/// The scenario runners ([`PreparedPacket::run`](crate::packet::PreparedPacket::run) and its
/// route and dynamic siblings) keep every trial's record until the summary is computed (its
/// statistics are two-pass, in trial order, and `--per-trial` prints them all), so a run's
/// memory grows with its trial count. [`check_trial_budget`] refuses a trial count whose
/// records would exceed this budget before any trial runs (about 3 million packet trials;
/// a run that long would take days anyway).
pub const TRIAL_BUDGET_BYTES: u64 = 1 << 30;

/// Refuses `trials` when the run's per-trial records would take more than
/// [`TRIAL_BUDGET_BYTES`], before anything is allocated.
///
/// The estimate is `trials × bytes per trial`, where a trial costs the runner's slot for it
/// (`Option<Result<T, E>>`), its record in the returned vector (`T`) and `heap_per_trial`,
/// what the caller knows a record holds on the heap and what its summary copies per trial.
///
/// # Errors
///
/// [`ScenarioError::Refused`] naming [`Parameter::Trials`], with the estimate and the budget.
pub fn check_trial_budget<T, E>(trials: u64, heap_per_trial: u64) -> Result<(), ScenarioError> {
    let per_trial = (std::mem::size_of::<Option<Result<T, E>>>() + std::mem::size_of::<T>()) as u64
        + heap_per_trial;
    let estimate = u128::from(trials) * u128::from(per_trial);
    if estimate <= u128::from(TRIAL_BUDGET_BYTES) {
        return Ok(());
    }
    Err(ScenarioError::Refused {
        param: Parameter::Trials,
        value: trials.to_string(),
        reason: format!(
            "the per-trial results would take about {} ({per_trial} bytes per trial), over the \
             {} budget; at most {} trials fit",
            human_bytes(estimate),
            human_bytes(u128::from(TRIAL_BUDGET_BYTES)),
            TRIAL_BUDGET_BYTES / per_trial.max(1)
        ),
    })
}

/// `bytes` in binary units with one decimal: `1.0 GiB`, `149.0 GiB`, `2.5 ZiB`.
fn human_bytes(bytes: u128) -> String {
    const UNITS: [&str; 8] = ["KiB", "MiB", "GiB", "TiB", "PiB", "EiB", "ZiB", "YiB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut value = bytes as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

/// How to run trials. Options, not results: no field changes what a run returns.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RunnerConfig {
    /// Worker threads: `None` runs in the current rayon pool when called inside one
    /// (`ThreadPool::install`, a sweep's or a reproduction's tasks), else in a process-wide
    /// pool of rayon's default size (`RAYON_NUM_THREADS`, else the machine's cores), built on
    /// first use (a packet run's threaded steps are faster there than in rayon's global pool:
    /// `docs/bench`); `Some(n)` builds a pool of `n` threads for the run, `n` from 1 to
    /// [`MAX_THREADS`] ([`check`](Self::check)).
    pub threads: Option<usize>,
}

impl RunnerConfig {
    /// Checks the thread count: `None`, or from 1 to [`MAX_THREADS`]. Every runner entry
    /// point checks it before a trial runs, and so does
    /// [`RunOptions::resolve`](crate::RunOptions::resolve): one rule.
    ///
    /// # Errors
    ///
    /// [`ScenarioError::OutOfRange`] naming [`Parameter::Threads`] for another count.
    pub fn check(&self) -> Result<(), ScenarioError> {
        match self.threads {
            Some(threads) if !(1..=MAX_THREADS).contains(&threads) => {
                Err(ScenarioError::OutOfRange {
                    param: Parameter::Threads,
                    value: threads.to_string(),
                    expected: "1 to 4096 (omit it to use every core)",
                })
            }
            _ => Ok(()),
        }
    }
}

/// What every entry point checks before a trial runs: the thread count and the budget of the
/// run's slots and results ([`check_trial_budget`] of `T` with error `E`, no heap).
fn admit<T, E>(config: &RunnerConfig, trials: u64) -> Result<(), ScenarioError> {
    config.check()?;
    check_trial_budget::<T, E>(trials, 0)
}

/// Runs `trials` independent trials in the current rayon pool and returns their results in
/// trial order.
///
/// Trial `i` (for `i` in `0..trials`) is `f(i, derive_seed(seed, i))`. The result is the same for
/// any number of threads; see the [module documentation](self).
///
/// # Errors
///
/// [`ScenarioError::Refused`] before any trial runs if `trials` results would exceed
/// [`TRIAL_BUDGET_BYTES`] ([`check_trial_budget`]).
///
/// # Panics
///
/// If a trial panics (the panic is propagated once the other running trials end).
pub fn run_trials<T, F>(seed: u64, trials: u64, f: F) -> Result<Vec<T>, ScenarioError>
where
    F: Fn(u64, u64) -> T + Sync,
    T: Send,
{
    run_trials_with(&RunnerConfig::default(), seed, trials, f, &|_| {})
}

/// [`run_trials`] with a thread count and a progress hook.
///
/// `progress(done)` is called once after each finished trial, with the number of trials finished
/// so far: over a run it receives each of `1..=trials` exactly once. It runs on the worker
/// threads, so calls can arrive slightly out of order (`done = 7` before `done = 6`); a progress
/// bar should keep the maximum. The hook sees only counts, so it cannot affect the results; it
/// should be cheap, as it runs between trials.
///
/// If the pool of `config.threads` cannot be built (the system refuses new threads), the trials
/// run one after another on the calling thread: the same results, more slowly.
///
/// # Errors
///
/// Before any trial runs: [`ScenarioError::OutOfRange`] if `config` asks for a thread count
/// outside `1..=`[`MAX_THREADS`] ([`RunnerConfig::check`]); as [`run_trials`].
///
/// # Panics
///
/// As [`run_trials`].
pub fn run_trials_with<T, F>(
    config: &RunnerConfig,
    seed: u64,
    trials: u64,
    f: F,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Vec<T>, ScenarioError>
where
    F: Fn(u64, u64) -> T + Sync,
    T: Send,
{
    admit::<T, std::convert::Infallible>(config, trials)?;
    let done = AtomicU64::new(0);
    Ok(execute(config, trials, &|i| {
        let result = f(i, derive_seed(seed, i));
        progress(done.fetch_add(1, Ordering::Relaxed) + 1);
        result
    }))
}

/// [`run_trials`] for trials that can fail: all results in trial order, or the error of the
/// failing trial with the lowest index.
///
/// The error returned does not depend on timing: when trial `j` fails, trials above `j` that have
/// not started are skipped, but every trial below `j` still runs, so a lower-index failure that
/// happens later in time still wins.
///
/// # Errors
///
/// The outer error refuses the run before any trial runs, as [`run_trials`] does (the budget
/// counts a slot `Option<Result<T, E>>` and a result `T` per trial); the inner one is the error
/// of the lowest-index trial for which `f` returned `Err`.
///
/// # Panics
///
/// As [`run_trials`].
pub fn try_run_trials<T, E, F>(
    seed: u64,
    trials: u64,
    f: F,
) -> Result<Result<Vec<T>, E>, ScenarioError>
where
    F: Fn(u64, u64) -> Result<T, E> + Sync,
    T: Send,
    E: Send,
{
    try_run_trials_with(&RunnerConfig::default(), seed, trials, f, &|_| {})
}

/// [`try_run_trials`] with a thread count and a progress hook, as in [`run_trials_with`].
///
/// `progress` is called after every trial that ran, failed or not; skipped trials (above a
/// failure) are not counted, so it reaches `trials` exactly when no trial failed.
///
/// # Errors
///
/// As [`try_run_trials`], and the thread count's refusal as in [`run_trials_with`].
///
/// # Panics
///
/// As [`run_trials`].
pub fn try_run_trials_with<T, E, F>(
    config: &RunnerConfig,
    seed: u64,
    trials: u64,
    f: F,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Result<Vec<T>, E>, ScenarioError>
where
    F: Fn(u64, u64) -> Result<T, E> + Sync,
    T: Send,
    E: Send,
{
    admit::<T, E>(config, trials)?;
    // Lowest index known to have failed (u64::MAX: none yet). It only decreases, so a trial
    // skipped because its index was above it is above the final lowest failure too: every
    // trial below the lowest failure runs.
    let first_failure = AtomicU64::new(u64::MAX);
    let done = AtomicU64::new(0);
    let outcomes = execute(config, trials, &|i| {
        if i > first_failure.load(Ordering::Relaxed) {
            return None;
        }
        let outcome = f(i, derive_seed(seed, i));
        if outcome.is_err() {
            first_failure.fetch_min(i, Ordering::Relaxed);
        }
        progress(done.fetch_add(1, Ordering::Relaxed) + 1);
        Some(outcome)
    });
    // In index order, the first error wins. Collected from the slots' own iterator, so the
    // standard library reuses their buffer for the results where the layouts allow (a result
    // no more aligned than its slot, as for every record of this crate): the run's peak is its
    // slots, not its slots and a second vector of results.
    Ok(outcomes
        .into_iter()
        .map(|outcome| outcome.expect("a trial was skipped below the lowest failing trial"))
        .collect())
}

/// Evaluates `body(i)` for `i` in `0..trials` on the pool `config` asks for, results in index
/// order. `collect` on an indexed parallel iterator writes each result to its own slot, so the
/// order never depends on scheduling.
fn execute<T: Send>(
    config: &RunnerConfig,
    trials: u64,
    body: &(dyn Fn(u64) -> T + Sync),
) -> Vec<T> {
    // The entry points refused a count over the budget, which is far below the address space.
    let n = usize::try_from(trials).expect("the number of trials fits the trial budget");
    // usize -> u64 is lossless on every target Rust supports.
    let parallel = || (0..n).into_par_iter().map(|i| body(i as u64)).collect();
    match config.threads {
        None => match (rayon::current_thread_index(), default_pool()) {
            (None, Some(pool)) => pool.install(parallel),
            _ => parallel(),
        },
        Some(threads) => match rayon::ThreadPoolBuilder::new().num_threads(threads).build() {
            Ok(pool) => pool.install(parallel),
            Err(_) => (0..trials).map(body).collect(),
        },
    }
}

/// The pool of runs started outside any rayon pool without a thread count: rayon's default
/// size, built on the first such run (`None` if the system refuses the threads: the run then
/// goes to rayon's global pool).
///
/// Why not rayon's global pool itself: on the 2-core Intel machine of `docs/bench`, the
/// threaded steps of one packet run in the global pool took 55 ns a move (35 to 71 over eight
/// runs of the 4-ary 6-tree batch), against 34 ns (25 to 44) in a pool built with
/// `ThreadPoolBuilder`, whether of the default size or of `--threads 2`; the cause was not
/// found. Runs inside a pool (sweeps, reproductions, a caller's `install`) keep to it.
fn default_pool() -> Option<&'static rayon::ThreadPool> {
    static POOL: std::sync::OnceLock<Option<rayon::ThreadPool>> = std::sync::OnceLock::new();
    POOL.get_or_init(|| rayon::ThreadPoolBuilder::new().build().ok())
        .as_ref()
}

/// The 97.5% quantile of the standard normal distribution, `z` of a two-sided 95% interval.
const Z_975: f64 = 1.959_963_984_540_054;

/// `z_{0.995}`, the standard normal quantile for two-sided 99% intervals.
#[cfg(test)]
const Z_995: f64 = 2.575_829_303_548_900_4;

/// The 97.5% quantile `t_{0.975, df}` of Student's t distribution with `df` degrees of freedom:
/// the multiplier of the standard error in a two-sided 95% confidence interval for a mean.
/// `None` for `df = 0`, where it does not exist.
///
/// One implementation serves the whole project: [`fatnet_queueing::stats::student_t`]
/// (exact inversion up to 1000 degrees of freedom, Cornish–Fisher above). The unit tests
/// compare it against reference values computed to 40 digits.
pub fn student_t_975(df: u64) -> Option<f64> {
    fatnet_queueing::stats::student_t(df, 0.95)
}

/// `t_{0.995, df}`, the two-sided 99% critical value of Student's t (Greenberg and Oh's
/// confidence level), computed as [`student_t_975`] is.
pub fn student_t_995(df: u64) -> Option<f64> {
    fatnet_queueing::stats::student_t(df, 0.99)
}

/// Summary statistics of a real-valued sample, with a 95% confidence interval for its mean.
///
/// Computed from the slice in index order (the trial order of [`run_trials`]), so the same
/// sample always gives bit-identical fields. Fields that a sample this small does not define are
/// `None` rather than NaN:
///
/// | n | `mean`, `min`, `max` | `std_dev`, `std_err`, `ci95_low`, `ci95_high` |
/// |---|---|---|
/// | 0 | `None` | `None` |
/// | 1 | `Some` | `None` (no spread can be estimated from one value) |
/// | ≥ 2 | `Some` | `Some` |
///
/// Samples are not checked for finiteness: a NaN or infinite sample propagates through the
/// arithmetic as IEEE 754 prescribes (NaN makes `min` or `max` NaN too).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Summary {
    /// Sample size.
    pub n: u64,
    /// Arithmetic mean.
    pub mean: Option<f64>,
    /// Sample standard deviation (Bessel-corrected: divides by `n − 1`).
    pub std_dev: Option<f64>,
    /// Standard error of the mean, `std_dev / √n`.
    pub std_err: Option<f64>,
    /// Lower end of the 95% confidence interval for the mean,
    /// `mean − t_{0.975, n−1} · std_err` ([`student_t_975`]).
    pub ci95_low: Option<f64>,
    /// Upper end of the 95% confidence interval for the mean.
    pub ci95_high: Option<f64>,
    /// Smallest sample.
    pub min: Option<f64>,
    /// Largest sample.
    pub max: Option<f64>,
}

impl Summary {
    /// Half-width of the 99% confidence interval for the mean, `t_{0.995, n−1} · std_err`
    /// ([`student_t_995`]); `None` below two samples.
    pub fn ci99_half_width(&self) -> Option<f64> {
        Some(student_t_995(self.n.checked_sub(1)?)? * self.std_err?)
    }

    /// Summarises `samples`, in index order.
    ///
    /// The mean is the sum in index order divided by `n`; the variance is the two-pass sum of
    /// squared deviations from that mean, divided by `n − 1` (more accurate than the one-pass
    /// sum of squares).
    pub fn of(samples: &[f64]) -> Summary {
        let n = samples.len() as u64;
        let Some((&first, rest)) = samples.split_first() else {
            return Summary {
                n,
                mean: None,
                std_dev: None,
                std_err: None,
                ci95_low: None,
                ci95_high: None,
                min: None,
                max: None,
            };
        };
        let (mut min, mut max) = (first, first);
        for &x in rest {
            if x.is_nan() || min.is_nan() {
                min = f64::NAN;
                max = f64::NAN;
            } else {
                min = min.min(x);
                max = max.max(x);
            }
        }
        if first.is_nan() {
            (min, max) = (f64::NAN, f64::NAN);
        }
        let count = samples.len() as f64;
        let mean = samples.iter().sum::<f64>() / count;
        let spread = student_t_975(n - 1).map(|t| {
            let squares: f64 = samples.iter().map(|x| (x - mean) * (x - mean)).sum();
            let std_dev = (squares / (count - 1.0)).sqrt();
            let std_err = std_dev / count.sqrt();
            (std_dev, std_err, mean - t * std_err, mean + t * std_err)
        });
        Summary {
            n,
            mean: Some(mean),
            std_dev: spread.map(|s| s.0),
            std_err: spread.map(|s| s.1),
            ci95_low: spread.map(|s| s.2),
            ci95_high: spread.map(|s| s.3),
            min: Some(min),
            max: Some(max),
        }
    }
}

/// A success rate with its 95% Wilson score interval.
///
/// The Wilson interval (Wilson 1927) stays inside `[0, 1]` and keeps close to its nominal
/// coverage for small samples and for rates near 0 or 1, where the normal ("Wald") interval
/// `p̂ ± z·√(p̂(1−p̂)/n)` collapses to a point; with `z = z_{0.975}`:
///
/// `(p̂ + z²/2n ± z·√(p̂(1−p̂)/n + z²/4n²)) / (1 + z²/n)`.
///
/// With no trials, the rate and the interval are `None`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Proportion {
    /// Number of successes.
    pub successes: u64,
    /// Number of trials.
    pub trials: u64,
    /// `successes / trials`.
    pub estimate: Option<f64>,
    /// Lower end of the 95% Wilson interval.
    pub wilson95_low: Option<f64>,
    /// Upper end of the 95% Wilson interval.
    pub wilson95_high: Option<f64>,
}

impl Proportion {
    /// The success rate of `outcomes` (`true` = success), e.g. the output of [`run_trials`].
    pub fn of(outcomes: &[bool]) -> Proportion {
        let successes = outcomes.iter().filter(|&&ok| ok).count() as u64;
        Proportion::from_counts(successes, outcomes.len() as u64)
            .expect("successes never exceed outcomes")
    }

    /// The success rate of `successes` out of `trials`; `None` if `successes > trials`.
    pub fn from_counts(successes: u64, trials: u64) -> Option<Proportion> {
        if successes > trials {
            return None;
        }
        let mut proportion = Proportion {
            successes,
            trials,
            estimate: None,
            wilson95_low: None,
            wilson95_high: None,
        };
        if trials > 0 {
            let n = trials as f64;
            let p = successes as f64 / n;
            let z2 = Z_975 * Z_975;
            let denominator = 1.0 + z2 / n;
            let center = (p + z2 / (2.0 * n)) / denominator;
            let half = Z_975 / denominator * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
            proportion.estimate = Some(p);
            // Exact endpoints are 0 at p = 0 and 1 at p = 1; clamp away rounding.
            proportion.wilson95_low = Some(if successes == 0 {
                0.0
            } else {
                (center - half).max(0.0)
            });
            proportion.wilson95_high = Some(if successes == trials {
                1.0
            } else {
                (center + half).min(1.0)
            });
        }
        Some(proportion)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A run without a thread count keeps to the caller's pool when called inside one, and
    /// otherwise runs on the threads of the process's default pool (rayon's default size),
    /// never on the caller's thread.
    #[test]
    fn runs_without_a_thread_count_use_the_callers_pool_or_the_default_pool() {
        let probe = || {
            try_run_trials_with(
                &RunnerConfig::default(),
                1,
                6,
                |_, _| {
                    Ok::<_, ()>((
                        default_pool().is_some_and(|p| p.current_thread_index().is_some()),
                        rayon::current_num_threads(),
                    ))
                },
                &|_| {},
            )
            .expect("the thread count is valid")
            .expect("no trial fails")
        };
        let default_size = rayon::ThreadPoolBuilder::new()
            .build()
            .expect("a pool")
            .current_num_threads();
        assert!(
            rayon::current_thread_index().is_none(),
            "tests run outside rayon"
        );
        assert!(
            probe()
                .iter()
                .all(|&(on_pool, n)| on_pool && n == default_size),
            "outside any pool: the default pool, of {default_size} threads"
        );
        let three = rayon::ThreadPoolBuilder::new()
            .num_threads(3)
            .build()
            .expect("a pool");
        assert!(
            three
                .install(probe)
                .iter()
                .all(|&(on_default, n)| !on_default && n == 3),
            "inside a pool of 3: that pool"
        );
    }

    /// The refusal's text states the same limit as [`MAX_THREADS`] (it is a `&'static str`,
    /// so the number is written out; this keeps the two together).
    #[test]
    fn the_thread_refusal_names_the_limit() {
        let e = RunnerConfig {
            threads: Some(MAX_THREADS + 1),
        }
        .check()
        .unwrap_err();
        assert!(
            e.to_string().contains(&format!("1 to {MAX_THREADS} ")),
            "{e}"
        );
        assert!(
            RunnerConfig {
                threads: Some(MAX_THREADS)
            }
            .check()
            .is_ok()
        );
    }

    /// `t_{0.975, df}` as the nearest `f64`, computed with mpmath at 40 digits by inverting
    /// the regularized incomplete beta function.
    const T_975: [(u64, f64); 17] = [
        (1, 12.706204736174705),
        (2, 4.302652729749464),
        (3, 3.1824463052837095),
        (4, 2.7764451051977943),
        (5, 2.5705818356363155),
        (9, 2.2621571627982053),
        (10, 2.228138851986275),
        (29, 2.0452296421327043),
        (30, 2.042272456301238),
        (31, 2.0395134463964086),
        (40, 2.0210753903062733),
        (100, 1.9839715185235522),
        (999, 1.96234146113345),
        (1000, 1.9623390808264085),
        (1001, 1.96233670528088),
        (5000, 1.960438551706508),
        (1_000_000, 1.959966356814107),
    ];

    #[test]
    fn t_quantiles_match_reference_values() {
        assert_eq!(student_t_975(0), None);
        for (df, expected) in T_975 {
            let t = student_t_975(df).unwrap();
            assert!(
                (t - expected).abs() <= 1e-12 * expected,
                "df = {df}: {t} vs {expected}"
            );
        }
    }

    #[test]
    fn t_995_matches_reference_values() {
        // t_{0.995, df}, from mpmath (30 digits): regularized incomplete beta root.
        for (df, t) in [
            (1, 63.656_741_162_871_58),
            (2, 9.924_843_200_918_28),
            (29, 2.756_385_903_670_335),
            (1000, 2.580_754_698_065_951),
        ] {
            let got = student_t_995(df).unwrap();
            assert!((got - t).abs() < 1e-9 * t, "df {df}: {got} vs {t}");
        }
        let big = student_t_995(100_000).unwrap();
        assert!(big > Z_995 && big - Z_995 < 1e-4);
        assert_eq!(student_t_995(0), None);
    }

    #[test]
    fn summary_of_nothing_and_of_one_value() {
        let empty = Summary::of(&[]);
        assert_eq!(empty.n, 0);
        assert_eq!((empty.mean, empty.min, empty.max), (None, None, None));
        assert_eq!((empty.std_dev, empty.ci95_low), (None, None));

        let one = Summary::of(&[4.5]);
        assert_eq!(one.n, 1);
        assert_eq!(
            (one.mean, one.min, one.max),
            (Some(4.5), Some(4.5), Some(4.5))
        );
        assert_eq!((one.std_dev, one.std_err), (None, None));
        assert_eq!((one.ci95_low, one.ci95_high), (None, None));
    }

    #[test]
    fn summary_of_a_constant_sample_has_a_zero_width_interval() {
        let s = Summary::of(&[2.0; 6]);
        assert_eq!(s.mean, Some(2.0));
        assert_eq!((s.std_dev, s.std_err), (Some(0.0), Some(0.0)));
        assert_eq!((s.ci95_low, s.ci95_high), (Some(2.0), Some(2.0)));
    }

    #[test]
    fn summary_propagates_nan() {
        for sample in [[f64::NAN, 1.0], [1.0, f64::NAN]] {
            let s = Summary::of(&sample);
            assert!(s.mean.unwrap().is_nan() && s.std_dev.unwrap().is_nan());
            assert!(s.min.unwrap().is_nan() && s.max.unwrap().is_nan());
        }
    }

    #[test]
    fn wilson_interval_edges() {
        assert_eq!(Proportion::from_counts(3, 2), None);
        let none = Proportion::from_counts(0, 0).unwrap();
        assert_eq!(
            (none.estimate, none.wilson95_low, none.wilson95_high),
            (None, None, None)
        );

        // 0 of 10: [0, z²/(n + z²)]; 10 of 10 mirrors it.
        let zero = Proportion::from_counts(0, 10).unwrap();
        let all = Proportion::from_counts(10, 10).unwrap();
        let edge = Z_975 * Z_975 / (10.0 + Z_975 * Z_975);
        assert_eq!((zero.estimate, zero.wilson95_low), (Some(0.0), Some(0.0)));
        assert!((zero.wilson95_high.unwrap() - edge).abs() < 1e-15);
        assert_eq!((all.estimate, all.wilson95_high), (Some(1.0), Some(1.0)));
        assert!((all.wilson95_low.unwrap() - (1.0 - edge)).abs() < 1e-15);
    }

    #[test]
    fn trial_budget_refuses_with_the_estimate() {
        // 8 + 16 + 8 bytes per trial: 2^25 trials are exactly the budget.
        assert!(check_trial_budget::<u64, u64>(1 << 25, 8).is_ok());
        assert!(check_trial_budget::<u64, u64>(1, 0).is_ok());
        assert!(check_trial_budget::<u64, u64>((1 << 25) + 1, 8).is_err());
        let refused = check_trial_budget::<u64, u64>(1 << 26, 8).unwrap_err();
        assert!(
            matches!(&refused, ScenarioError::Refused { param: Parameter::Trials, value, .. } if value == "67108864"),
            "{refused:?}"
        );
        assert_eq!(
            refused.to_string(),
            "trials = 67108864 is refused: the per-trial results would take about 2.0 GiB \
             (32 bytes per trial), over the 1.0 GiB budget; at most 33554432 trials fit"
        );
        // No overflow at the top of the range.
        let top = check_trial_budget::<u64, u64>(u64::MAX, 8).unwrap_err();
        assert!(top.to_string().contains("about 512.0 EiB"), "{top}");
    }

    #[test]
    fn human_bytes_units() {
        assert_eq!(human_bytes(1000), "1000 B");
        assert_eq!(human_bytes(1536), "1.5 KiB");
        assert_eq!(human_bytes(160_000_000_000), "149.0 GiB");
    }

    #[test]
    fn try_run_skips_nothing_below_a_failure() {
        for threads in [1, 3] {
            let ran = std::sync::Mutex::new(Vec::new());
            let result: Result<Vec<u64>, u64> = try_run_trials_with(
                &RunnerConfig {
                    threads: Some(threads),
                },
                1,
                100,
                |i, _| {
                    ran.lock().unwrap().push(i);
                    if i % 10 == 7 { Err(i) } else { Ok(i) }
                },
                &|_| {},
            )
            .unwrap();
            assert_eq!(result, Err(7));
            let mut ran = ran.into_inner().unwrap();
            ran.sort_unstable();
            assert_eq!(ran[..8], [0, 1, 2, 3, 4, 5, 6, 7]);
        }
    }
}
