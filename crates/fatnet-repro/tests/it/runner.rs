//! The trial runner: results depend on the master seed and the trial index only, never on the
//! thread count or scheduling; the statistics match hand-computed values.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use fatnet_repro::derive_seed;
use fatnet_repro::runner::{
    Proportion, RunnerConfig, Summary, run_trials, run_trials_with, student_t_975, try_run_trials,
    try_run_trials_with,
};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

/// A trial with a data-dependent amount of work, so that threads finish out of order.
fn trial(_index: u64, trial_seed: u64) -> (u64, f64) {
    let mut rng = Pcg64::seed_from_u64(trial_seed);
    let draws = rng.random_range(1..2000);
    let mut sum = 0.0;
    for _ in 0..draws {
        sum += rng.random::<f64>();
    }
    (rng.random(), sum)
}

fn with_threads(threads: usize, seed: u64, trials: u64) -> Vec<(u64, f64)> {
    run_trials_with(
        &RunnerConfig {
            threads: Some(threads),
        },
        seed,
        trials,
        trial,
        &|_| {},
    )
    .unwrap()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * b.abs().max(1.0)
}

#[test]
fn same_seed_same_results_for_1_2_and_4_threads() {
    let one = with_threads(1, 42, 300);
    assert_eq!(one.len(), 300);
    // Bit-identical, floats included.
    assert_eq!(with_threads(2, 42, 300), one);
    assert_eq!(with_threads(4, 42, 300), one);
    assert_eq!(run_trials(42, 300, trial).unwrap(), one);
    // And identical to the sequential definition.
    let sequential: Vec<_> = (0..300).map(|i| trial(i, derive_seed(42, i))).collect();
    assert_eq!(one, sequential);
}

#[test]
fn summaries_do_not_depend_on_thread_count() {
    let summary = |threads| {
        let sums: Vec<f64> = with_threads(threads, 7, 500)
            .into_iter()
            .map(|r| r.1)
            .collect();
        Summary::of(&sums)
    };
    let one = summary(1);
    assert_eq!(summary(4), one);
    assert_eq!(one.n, 500);
}

#[test]
fn different_master_seeds_give_different_results() {
    let a = run_trials(1, 50, trial).unwrap();
    let b = run_trials(2, 50, trial).unwrap();
    assert_ne!(a, b);
    // Not just a permutation or a shift: no trial of one run reappears in the other.
    assert!(a.iter().all(|x| !b.contains(x)));
    // Within a run, trials differ from each other.
    assert!((1..a.len()).all(|i| a[i] != a[i - 1]));
}

#[test]
fn results_are_in_trial_order_with_derived_seeds() {
    for threads in [1, 4] {
        let results = run_trials_with(
            &RunnerConfig {
                threads: Some(threads),
            },
            99,
            1000,
            |i, trial_seed| (i, trial_seed),
            &|_| {},
        )
        .unwrap();
        let expected: Vec<_> = (0..1000).map(|i| (i, derive_seed(99, i))).collect();
        assert_eq!(results, expected);
    }
    assert!(run_trials(99, 0, |i, _| i).unwrap().is_empty());
}

#[test]
fn progress_hook_is_called_once_per_trial() {
    let calls = AtomicU64::new(0);
    let seen = Mutex::new(Vec::new());
    let results = run_trials_with(&RunnerConfig { threads: Some(4) }, 5, 257, trial, &|done| {
        calls.fetch_add(1, Ordering::Relaxed);
        seen.lock().unwrap().push(done);
    })
    .unwrap();
    assert_eq!(calls.load(Ordering::Relaxed), 257);
    let mut seen = seen.into_inner().unwrap();
    seen.sort_unstable();
    assert_eq!(seen, (1..=257).collect::<Vec<_>>());
    // The hook does not change the results.
    assert_eq!(results, with_threads(1, 5, 257));
}

#[test]
fn try_run_trials_returns_all_results_when_nothing_fails() {
    let ok: Result<Vec<_>, String> = try_run_trials(3, 64, |i, s| Ok((i, s))).unwrap();
    let expected: Vec<_> = (0..64).map(|i| (i, derive_seed(3, i))).collect();
    assert_eq!(ok.unwrap(), expected);
}

#[test]
fn try_run_trials_returns_the_lowest_failing_index_even_if_it_fails_last() {
    // Trial 3 waits until trial 50 has failed, then fails itself: the error must be trial 3's.
    let fifty_failed = AtomicBool::new(false);
    let fifty_was_first = AtomicBool::new(false);
    let calls = AtomicU64::new(0);
    let result: Result<Vec<u64>, String> = try_run_trials_with(
        &RunnerConfig { threads: Some(4) },
        11,
        64,
        |i, _| match i {
            3 => {
                let start = Instant::now();
                while !fifty_failed.load(Ordering::SeqCst)
                    && start.elapsed() < Duration::from_secs(20)
                {
                    std::thread::sleep(Duration::from_millis(1));
                }
                fifty_was_first.store(fifty_failed.load(Ordering::SeqCst), Ordering::SeqCst);
                Err("trial 3".to_string())
            }
            50 => {
                fifty_failed.store(true, Ordering::SeqCst);
                Err("trial 50".to_string())
            }
            _ => Ok(i),
        },
        &|_| {
            calls.fetch_add(1, Ordering::Relaxed);
        },
    )
    .unwrap();
    assert_eq!(result, Err("trial 3".to_string()));
    assert!(
        fifty_was_first.load(Ordering::SeqCst),
        "trial 50 should have failed before trial 3"
    );
    // Trials 0..=3 and 50 ran at least; skipped trials are not reported.
    let calls = calls.load(Ordering::Relaxed);
    assert!((5..=64).contains(&calls), "{calls} progress calls");

    // The same error for every thread count.
    for threads in [1, 2, 4] {
        let result: Result<Vec<u64>, u64> = try_run_trials_with(
            &RunnerConfig {
                threads: Some(threads),
            },
            11,
            200,
            |i, _| if i == 17 || i > 120 { Err(i) } else { Ok(i) },
            &|_| {},
        )
        .unwrap();
        assert_eq!(result, Err(17));
    }
}

#[test]
fn summary_of_one_to_five() {
    let s = Summary::of(&[1.0, 2.0, 3.0, 4.0, 5.0]);
    assert_eq!(s.n, 5);
    assert_eq!(s.mean, Some(3.0));
    assert_eq!((s.min, s.max), (Some(1.0), Some(5.0)));
    // sd = √(10 / 4) = √2.5, se = sd / √5 = √0.5, t_{0.975,4} = 2.7764451051977943.
    let sd = s.std_dev.unwrap();
    let se = s.std_err.unwrap();
    assert!(close(sd, 2.5_f64.sqrt()), "{sd}");
    assert!(close(se, 0.5_f64.sqrt()), "{se}");
    let t = student_t_975(4).unwrap();
    assert!(close(t, 2.7764451051977943), "{t}");
    // 3 ∓ 2.7764451051977943 · √0.5 (mpmath, 40 digits, rounded to f64).
    assert!(close(s.ci95_low.unwrap(), 1.0367568385224424));
    assert!(close(s.ci95_high.unwrap(), 4.963243161477558));
}

#[test]
fn wilson_intervals_match_reference_values() {
    // (successes, trials, low, high), the endpoints from the Wilson formula
    // evaluated with mpmath at 40 digits, rounded to f64.
    let cases = [
        (0, 10, 0.0, 0.27753279986288926),
        (5, 10, 0.23659309051256397, 0.7634069094874361),
        (10, 10, 0.7224672001371107, 1.0),
        (1, 1, 0.2065493143772374, 1.0),
        (3, 7, 0.1582198552514697, 0.7495416354723428),
        (81, 263, 0.2552885198782742, 0.36620957698280004),
    ];
    for (k, n, low, high) in cases {
        let p = Proportion::from_counts(k, n).unwrap();
        assert_eq!(p.estimate, Some(k as f64 / n as f64));
        let (l, h) = (p.wilson95_low.unwrap(), p.wilson95_high.unwrap());
        assert!(close(l, low), "{k}/{n}: low {l} vs {low}");
        assert!(close(h, high), "{k}/{n}: high {h} vs {high}");
    }
    let outcomes: Vec<bool> = (0..10).map(|i| i % 2 == 0).collect();
    assert_eq!(
        Proportion::of(&outcomes),
        Proportion::from_counts(5, 10).unwrap()
    );
}
