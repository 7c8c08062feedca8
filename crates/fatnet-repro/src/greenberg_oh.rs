//! Greenberg & Oh, *Universal wormhole routing* (1997): Tables I and II, simulated with
//! the synchronous packet engine ([`fatnet::online::packet`]) on their butterfly fat-tree.
//! Figures 2–5 are in [`crate::greenberg_oh_figures`] and use the runs of this module.
//!
//! **Key design decision: one set of random instances, shared by every algorithm.** Trial `i`
//! of size `N` and pattern `P` gets the seed `derive_seed(row_seed(P, N), i)` whatever the
//! algorithm; its message set (for random instances) and its simulation seed are derived from
//! that seed alone ([`instance`], [`runs`]). So STORE and WORM, and every variant of the
//! figures, route the *same* instance in trial `i`, and every comparison of the tables and
//! figures is paired. Seeds never depend on which rows run, so a quick run's trials are the
//! first trials of the full run, and the thread count changes nothing.
//!
//! Runs are memoised for the life of the process ([`runs`]): a configuration that several
//! tables and figures need (WORM-RP-RR on random instances feeds Table I, Table II and
//! Figures 3–5) is simulated once. A run is a pure function of its key, so the memo changes
//! no number, only the time.
//!
//! The modelling choices the paper leaves open are documented where they are
//! made: self-destinations in [`Pattern::Random`], queue sizes, the delay unit, the UNIV
//! stand-in and SPLIT's queue in [`Algorithm::config`], the realized congestion in
//! [`Trial::congestion`], and the latency/c average in [`TableTwo`].

use std::sync::{Arc, Mutex, MutexGuard};

use fatnet::online::packet::{
    self, FlowControl, Outcome, PacketConfig, PacketNet, PathPolicy, ScanPolicy,
};
use fatnet::topology::ButterflyFatTree;
use fatnet::traffic::{MessageSet, TrafficError, patterns};
use rand::SeedableRng;
use rand_pcg::Pcg64;

use crate::cell::{Detail, Estimate, field, fixed, float};
use crate::runner::{Summary, try_run_trials};
use crate::verdict::{Judgement, Reference, judge};
use crate::{
    Cell, Effort, Experiment, ExperimentId, Frame, Paper, ReproError, Table, Tabular, Value,
    Verdict, derive_seed, detail, tabulate,
};

/// Master seed of every Greenberg–Oh experiment (the year of the paper).
pub const SEED: u64 = 1997;

/// `L`: flits per packet in every table and figure of the paper.
pub const FLITS: u32 = 32;

/// The paper's sizes: `N = 4^2 … 4^6`.
pub const SIZES: [u32; 5] = [16, 64, 256, 1024, 4096];

/// Engine steps after which a trial is abandoned (and reported as an error). The longest
/// run, WORM on many-to-1 at `N = 4096`, needs 65 546 steps.
pub const MAX_STEPS: u64 = 1_000_000;

/// The engine checks conservation every step for `N` up to this size: a cheap safety net on
/// the small networks, skipped on the large ones where it would dominate the run time.
pub const CHECK_MAX_N: u32 = 256;

/// Sizes of the tables: all five in the full run, `N ≤ 1024` in the quick run.
pub fn sizes(effort: Effort) -> &'static [u32] {
    match effort {
        Effort::Full => &SIZES,
        Effort::Quick => &SIZES[..4],
    }
}

/// Trials per cell: the paper's 30 in the full run, 5 in the quick run.
pub fn trials(effort: Effort) -> u64 {
    match effort {
        Effort::Full => 30,
        Effort::Quick => 5,
    }
}

/// `log₄ N`.
fn log4(n: u32) -> u32 {
    n.ilog2() / 2
}

/// The experiment, as its errors name it.
const EXPERIMENT: ExperimentId = ExperimentId::new(Paper::GreenbergOh, "runs");

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The paper's three traffic patterns (§III.B.3), one packet per processor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pattern {
    /// Random instance: every processor sends one packet to a destination drawn uniformly
    /// **among the other `N − 1` processors** (no self-destinations). The paper does not say
    /// whether a processor may pick itself (notes §6.2). We exclude it: a packet to itself has
    /// no path, and the notes' prototype (300 runs at `N = 16`) gave a realized congestion of
    /// 3.50 without self-destinations against 3.31 with them, where Table II prints 3.5 —
    /// weak evidence, but the only evidence. At `N ≥ 64` the choice hardly matters.
    Random,
    /// The complement permutation `a → N − 1 − a`: every packet crosses the root.
    Complement,
    /// Many-to-1: processors `0 … N/2 − 1` send to `N − 1`, the others to `0` (`c = N/2`).
    ManyToOne,
}

impl Pattern {
    /// All three, in the paper's column order.
    pub const ALL: [Pattern; 3] = [Pattern::Random, Pattern::Complement, Pattern::ManyToOne];

    /// The column name.
    pub fn label(self) -> &'static str {
        match self {
            Pattern::Random => "random",
            Pattern::Complement => "complement",
            Pattern::ManyToOne => "many-to-1",
        }
    }

    fn code(self) -> u64 {
        match self {
            Pattern::Random => 0,
            Pattern::Complement => 1,
            Pattern::ManyToOne => 2,
        }
    }
}

/// Master seed of the trials of `pattern` at size `n`: trial `i` uses
/// `derive_seed(row_seed(pattern, n), i)` for every algorithm.
pub fn row_seed(pattern: Pattern, n: u32) -> u64 {
    derive_seed(SEED, u64::from(log4(n)) * 10 + pattern.code())
}

/// The message set of the trial with seed `trial_seed`: random destinations are drawn from
/// `Pcg64::seed_from_u64(derive_seed(trial_seed, 0))`; the other patterns are fixed.
///
/// # Errors
///
/// The traffic generator's, for `n < 2`.
pub fn instance(pattern: Pattern, n: u32, trial_seed: u64) -> Result<MessageSet, TrafficError> {
    match pattern {
        Pattern::Random => patterns::uniform(
            n,
            false,
            &mut Pcg64::seed_from_u64(derive_seed(trial_seed, 0)),
        ),
        Pattern::Complement => patterns::complement(n),
        Pattern::ManyToOne => patterns::many_to_one(n),
    }
}

/// How a switch orders its inputs, with the UNIV stand-in's random priorities.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scan {
    /// RR: cyclically from a random input.
    RoundRobin,
    /// FO: fixed order.
    FixedOrder,
    /// FF: farthest first (path length `2ℓ`), ties in RR order.
    FarthestFirst,
    /// Random priorities from `1..=log₂ N`, smallest first (the UNIV stand-in).
    UnivPriority,
}

impl Scan {
    fn name(self) -> &'static str {
        match self {
            Scan::RoundRobin => "RR",
            Scan::FixedOrder => "FO",
            Scan::FarthestFirst => "FF",
            Scan::UnivPriority => "PRIO",
        }
    }
}

/// One of the simulated algorithms: flow control, path selection, input scan, and whether
/// packets wait `R = log₂ N` initial random delays (Figure 2) instead of none (`R = 1`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Algorithm {
    /// STORE, WORM or SPLIT.
    pub flow: FlowControl,
    /// FP, RP or GP.
    pub path: PathPolicy,
    /// RR, FO, FF or the UNIV priorities.
    pub scan: Scan,
    /// `R = log₂ N` instead of `R = 1`.
    pub delayed: bool,
}

impl Algorithm {
    /// A combination with `R = 1`.
    pub const fn new(flow: FlowControl, path: PathPolicy, scan: Scan) -> Self {
        Self {
            flow,
            path,
            scan,
            delayed: false,
        }
    }

    /// STORE-RP-RR of Table I.
    pub const STORE: Algorithm = Algorithm::new(
        FlowControl::StoreAndForward,
        PathPolicy::Random,
        Scan::RoundRobin,
    );

    /// WORM-RP-RR of Table I.
    pub const WORM: Algorithm =
        Algorithm::new(FlowControl::Wormhole, PathPolicy::Random, Scan::RoundRobin);

    /// The UNIV stand-in of Figure 2 (with its `R = log₂ N` delays).
    pub const UNIV: Algorithm = Algorithm {
        flow: FlowControl::StoreAndForward,
        path: PathPolicy::Random,
        scan: Scan::UnivPriority,
        delayed: true,
    };

    /// The same algorithm with `R = log₂ N` initial delays.
    pub const fn with_delays(self) -> Self {
        Self {
            delayed: true,
            ..self
        }
    }

    /// The paper's name: `STORE-RP-RR`, `SPLIT-GP-FF`, `UNIV stand-in`; `, R = log₂N` is
    /// appended with delays (except for UNIV, which always has them).
    pub fn label(&self) -> String {
        let base = if self.scan == Scan::UnivPriority {
            "UNIV stand-in".to_string()
        } else {
            format!(
                "{}-{}-{}",
                self.flow.name().to_uppercase(),
                self.path.name().to_uppercase(),
                self.scan.name()
            )
        };
        if self.delayed && self.scan != Scan::UnivPriority {
            format!("{base}, R = log₂N")
        } else {
            base
        }
    }

    /// `R`: the number of initial delay values, `log₂ N` or 1.
    pub fn delays(&self, n: u32) -> u32 {
        if self.delayed { n.ilog2() } else { 1 }
    }

    /// The engine configuration at size `n`. The modelling choices:
    ///
    /// - **Queues and units** are the paper's (§III.B.2): STORE moves whole packets with
    ///   queues of `q = 1` packet ([`PacketConfig::store`]) and its latency is reported in
    ///   flit-steps, `L = 32` per packet-step; WORM has queues of `q = 2` flits
    ///   ([`PacketConfig::worm`]); every link into a processor is a queue of `q` units
    ///   drained one unit per step (the engine's default sink, which makes Table I's
    ///   many-to-1 cells exact, notes §5.3).
    /// - **SPLIT** ([`PacketConfig::split`]) sends each packet as `L` independent one-flit
    ///   packets with **`q = 2` flits**, the same buffer as WORM. The paper does not give the
    ///   queue size; with `q = 1` SPLIT would be about twice as slow as WORM, contradicting
    ///   the paper's "SPLIT RP-RR slightly better than WORM RP-RR" (notes §6.15).
    /// - **UNIV stand-in.** The paper says only that UNIV (Leighton, Maggs, Ranade, Rao)
    ///   gives every packet "a random priority from `[1, R]`" that orders the passage of
    ///   packets through a switch. Our stand-in is STORE-RP (same queues, same paths) whose
    ///   switches serve the smallest priority number first, ties in RR order
    ///   ([`ScanPolicy::RandomPriority`] with range `R = log₂ N`). It is not the algorithm of
    ///   \[15\] (no leveled-network ghost messages), and says so in the tables.
    /// - **Initial delays** ([`Algorithm::delays`]): a packet waits `x` units with `x` uniform
    ///   in `0 … R − 1`. The unit ([`packet::delay_unit`]) is one packet-step for
    ///   store-and-forward and `L·log₂ N` flit-steps for WORM and SPLIT (the paper's
    ///   "x·L·log N" has no base; notes §6.12). Only Figure 2 uses `R > 1`, and only with
    ///   store-and-forward algorithms.
    /// - **Checks**: conservation is checked every step for `N ≤` [`CHECK_MAX_N`]; runs stop
    ///   after [`MAX_STEPS`] steps.
    pub fn config(&self, n: u32) -> PacketConfig {
        let base = match self.flow {
            FlowControl::StoreAndForward => PacketConfig::store(),
            FlowControl::Wormhole => PacketConfig::worm(),
            FlowControl::Split => PacketConfig::split(),
        };
        PacketConfig {
            path: self.path,
            scan: match self.scan {
                Scan::RoundRobin => ScanPolicy::RoundRobin,
                Scan::FixedOrder => ScanPolicy::FixedOrder,
                Scan::FarthestFirst => ScanPolicy::FarthestFirst,
                Scan::UnivPriority => ScanPolicy::RandomPriority { range: n.ilog2() },
            },
            flits: FLITS,
            max_steps: MAX_STEPS,
            check_conservation: n <= CHECK_MAX_N,
            record_latencies: false,
            ..base
        }
    }
}

/// What one trial reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Trial {
    /// The paper's maximum latency, in flit-steps: the step in which the last tail arrived.
    pub latency: u64,
    /// Realized congestion `c`: the largest number of packets whose **head crossed** one link
    /// in the run (for SPLIT, every flit is a packet). The paper never defines `c` for
    /// adaptive paths; this is the reading that reproduces Table II (notes §5.2), where the
    /// load factor and the congestion of oblivious random paths do not.
    pub congestion: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct RunKey {
    algorithm: Algorithm,
    pattern: Pattern,
    n: u32,
    trials: u64,
}

type RunCache = Mutex<Vec<(RunKey, Arc<[Trial]>)>>;

static RUNS: RunCache = Mutex::new(Vec::new());
static NETS: Mutex<Vec<(u32, Arc<PacketNet>)>> = Mutex::new(Vec::new());

/// The butterfly fat-tree on `n` processors, compiled once per process.
pub(crate) fn net(n: u32) -> Result<Arc<PacketNet>, ReproError> {
    if let Some(net) = lock(&NETS).iter().find(|(k, _)| *k == n) {
        return Ok(Arc::clone(&net.1));
    }
    let bft = ButterflyFatTree::new(u64::from(n)).map_err(|e| EXPERIMENT.error(e))?;
    let net = Arc::new(PacketNet::new(bft).map_err(|e| EXPERIMENT.error(e))?);
    lock(&NETS).push((n, Arc::clone(&net)));
    Ok(net)
}

/// `trials` trials of `algorithm` on `pattern` at size `n`, in trial order.
///
/// Trial `i` routes [`instance`]`(pattern, n, s)` with `s = derive_seed(row_seed(pattern, n),
/// i)` through [`packet::batch_trial`] with seed `derive_seed(s, 1)` (initial delays, then
/// every random choice of the run). The result is memoised for the life of the process: it
/// is a function of the arguments only.
///
/// # Errors
///
/// [`ReproError::Experiment`] if the engine rejects the configuration or a trial does not
/// deliver every packet within [`MAX_STEPS`] (a bug: the fat-tree cannot deadlock).
pub fn runs(
    algorithm: Algorithm,
    pattern: Pattern,
    n: u32,
    trials: u64,
) -> Result<Arc<[Trial]>, ReproError> {
    let key = RunKey {
        algorithm,
        pattern,
        n,
        trials,
    };
    if let Some((_, hit)) = lock(&RUNS).iter().find(|(k, _)| *k == key) {
        return Ok(Arc::clone(hit));
    }
    let net = net(n)?;
    let config = algorithm.config(n);
    let delays = algorithm.delays(n);
    type Failure = Box<dyn std::error::Error + Send + Sync>;
    let outcomes = try_run_trials(row_seed(pattern, n), trials, |i, trial_seed| {
        let messages = instance(pattern, n, trial_seed)?;
        let r = packet::batch_trial(&net, &messages, delays, &config, derive_seed(trial_seed, 1))?;
        if r.outcome != Outcome::Delivered {
            return Err(format!(
                "trial {i} ended with {:?} after {} steps, {} of {} delivered",
                r.outcome, r.steps, r.delivered, r.messages
            )
            .into());
        }
        Ok(Trial {
            latency: r.latency,
            congestion: r.congestion,
        })
    })
    .map_err(|e| EXPERIMENT.error(e))?
    .map_err(|e: Failure| {
        EXPERIMENT.error_in(
            format!("{} on {} at N = {n}", algorithm.label(), pattern.label()),
            e,
        )
    })?;
    let outcomes: Arc<[Trial]> = outcomes.into();
    lock(&RUNS).push((key, Arc::clone(&outcomes)));
    Ok(outcomes)
}

/// The mean of a sample with its 99% Student-t confidence interval (the paper's level).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stat {
    /// Sample size.
    pub n: u64,
    /// Mean.
    pub mean: f64,
    /// Half-width of the 99% CI of the mean, `t_{0.995, n−1}·sd/√n` (NaN below 2 samples).
    pub half99: f64,
    /// Sample standard deviation.
    pub sd: f64,
    /// Smallest sample.
    pub min: f64,
    /// Largest sample.
    pub max: f64,
}

impl Stat {
    /// Summarises `samples` in index order.
    pub fn of(samples: &[f64]) -> Stat {
        let s = Summary::of(samples);
        Stat {
            n: s.n,
            mean: s.mean.unwrap_or(f64::NAN),
            half99: s.ci99_half_width().unwrap_or(f64::NAN),
            sd: s.std_dev.unwrap_or(f64::NAN),
            min: s.min.unwrap_or(f64::NAN),
            max: s.max.unwrap_or(f64::NAN),
        }
    }

    /// Summarises the latencies of `trials`.
    pub fn latency(trials: &[Trial]) -> Stat {
        Stat::of(&trials.iter().map(|t| t.latency as f64).collect::<Vec<_>>())
    }

    /// Lower end of the 99% CI.
    pub fn low(&self) -> f64 {
        self.mean - self.half99
    }

    /// Upper end of the 99% CI.
    pub fn high(&self) -> f64 {
        self.mean + self.half99
    }

    /// The mean with its 99% interval, printed with `d` decimals.
    pub fn estimate(&self, d: usize) -> Value {
        self.est(d).into()
    }

    /// The mean with its 99% interval as an [`Estimate`], printed with `d` decimals.
    pub fn est(&self, d: usize) -> Estimate {
        Estimate {
            mean: self.mean,
            half_width: self.half99,
            n: self.n,
            confidence: 99,
            decimals: d,
        }
    }

    /// The least-squares slope of the means of `points` `(x, sample)` against `x`, with the
    /// half-width of its 99% interval: the slope is `Σ wᵢ yᵢ` with `wᵢ = (xᵢ − x̄)/Σ(x − x̄)²`
    /// over independent means `yᵢ`, so its standard error is `√(Σ wᵢ² sᵢ²/nᵢ)`; the quantile is
    /// Student's t with the smallest sample less one degrees of freedom (conservative). The one
    /// slope interval of every table that judges a trend in a curve of simulated means.
    pub fn slope(points: &[(f64, &Stat)], decimals: usize) -> Estimate {
        let xy: Vec<(f64, f64)> = points.iter().map(|(x, s)| (*x, s.mean)).collect();
        let slope = fatnet::queueing::stats::least_squares_slope(&xy);
        let mean_x = xy.iter().map(|p| p.0).sum::<f64>() / xy.len() as f64;
        let sxx: f64 = xy.iter().map(|p| (p.0 - mean_x).powi(2)).sum();
        let var: f64 = points
            .iter()
            .map(|(x, s)| {
                let w = (x - mean_x) / sxx;
                w * w * s.sd * s.sd / s.n as f64
            })
            .sum();
        let n = points.iter().map(|(_, s)| s.n).min().unwrap_or(0);
        let t = crate::runner::student_t_995(n.saturating_sub(1)).unwrap_or(f64::NAN);
        Estimate::new(slope, t * var.sqrt(), n, 99, decimals)
    }

    /// `99% CI [lo, hi] (half-width = h)` with `d` decimals.
    pub fn ci(&self, d: usize) -> Detail {
        detail![
            "99% CI [",
            fixed(self.low(), d),
            ", ",
            fixed(self.high(), d),
            "] (",
            field("half-width", fixed(self.half99, d)),
            ")",
        ]
    }
}

/// `ours / paper − 1`.
pub fn relative_difference(paper: f64, ours: f64) -> f64 {
    ours / paper - 1.0
}

/// Exactness: [`Verdict::Match`] if every sample equals the paper's value (so their mean does),
/// else [`Verdict::Mismatch`]; no samples is a mismatch.
pub fn exact_verdict(paper: u64, samples: &[u64]) -> Verdict {
    Verdict::every_sample(paper, samples)
}

/// The paper's number of trials per value of Tables I and II ("Each value represents 30
/// independent experiments"): the sampled reference of [`judge`].
pub const PAPER_TRIALS: u64 = 30;

/// The paper's simulated `value` against ours, by the one rule ([`judge`]): two-sample noise
/// (the paper's 30 trials, with our spread), then the band `tolerance`.
pub fn judged(value: f64, ours: &Stat, tolerance: f64) -> Judgement {
    judge(
        Reference::Sampled {
            value,
            trials: Some(PAPER_TRIALS),
        },
        &ours.est(1),
        tolerance,
    )
}

/// A least-squares fit `y ≈ k·x^p`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PowerFit {
    /// The factor `k`.
    pub k: f64,
    /// The exponent `p`.
    pub p: f64,
    /// Sum of squared residuals, `Σ (y − k·x^p)²`.
    pub sse: f64,
}

impl PowerFit {
    /// `k·x^p`.
    pub fn at(&self, x: f64) -> f64 {
        self.k * x.powf(self.p)
    }
}

/// Lowest and highest exponent [`fit_power`] considers.
pub const FIT_P_RANGE: (f64, f64) = (-4.0, 4.0);

/// The best `k` for exponent `p` and its sum of squared residuals.
fn sse_at(xs: &[f64], ys: &[f64], p: f64) -> (f64, f64) {
    let (mut num, mut den) = (0.0, 0.0);
    for (&x, &y) in xs.iter().zip(ys) {
        let xp = x.powf(p);
        num += y * xp;
        den += xp * xp;
    }
    let k = num / den;
    let sse = xs
        .iter()
        .zip(ys)
        .map(|(&x, &y)| (y - k * x.powf(p)).powi(2))
        .sum();
    (k, sse)
}

/// Nonlinear least squares in linear space: the `k` and `p` minimising `Σ (y − k·x^p)²`
/// (the fit of Greenberg–Oh's Table II, notes §5.5; a log–log regression would weight the
/// points differently and give `p ≈ 0.233` on the paper's numbers instead of 0.224).
///
/// For a fixed `p` the best `k` is `Σ y·x^p / Σ x^{2p}` in closed form; `p` is found by a grid
/// search over [`FIT_P_RANGE`] in steps of 0.01, then golden-section search on the two grid
/// intervals around the best grid point, to `1e-10`. `None` with fewer than two points,
/// lengths that differ, or an `x ≤ 0` or non-finite value.
pub fn fit_power(xs: &[f64], ys: &[f64]) -> Option<PowerFit> {
    if xs.len() != ys.len()
        || xs.len() < 2
        || xs.iter().any(|&x| !(x.is_finite() && x > 0.0))
        || ys.iter().any(|y| !y.is_finite())
    {
        return None;
    }
    let step = 0.01;
    let (lo, hi) = FIT_P_RANGE;
    let points = ((hi - lo) / step).round() as i64;
    let best = (0..=points)
        .map(|i| lo + i as f64 * step)
        .min_by(|&a, &b| sse_at(xs, ys, a).1.total_cmp(&sse_at(xs, ys, b).1))?;
    let (mut a, mut b) = ((best - step).max(lo), (best + step).min(hi));
    let ratio = (5f64.sqrt() - 1.0) / 2.0;
    let mut c = b - ratio * (b - a);
    let mut d = a + ratio * (b - a);
    while b - a > 1e-10 {
        if sse_at(xs, ys, c).1 < sse_at(xs, ys, d).1 {
            b = d;
        } else {
            a = c;
        }
        c = b - ratio * (b - a);
        d = a + ratio * (b - a);
    }
    let p = 0.5 * (a + b);
    let (k, sse) = sse_at(xs, ys, p);
    Some(PowerFit { k, p, sse })
}

/// Table I as printed: per `N`, STORE-RP-RR {random, complement, many-to-1}, then WORM-RP-RR.
pub const PAPER_TABLE1: [[u64; 6]; 5] = [
    [269, 198, 544, 125, 68, 258],
    [534, 442, 2144, 233, 161, 1028],
    [944, 829, 8352, 441, 301, 4102],
    [1677, 1565, 32992, 843, 583, 16392],
    [3031, 2896, 131360, 1592, 1123, 65546],
];

/// Table II as printed: mean realized `c` per `N`.
pub const PAPER_C: [f64; 5] = [3.5, 5.6, 10.2, 18.6, 34.3];

/// Table II as printed: mean latency/`c` per `N`.
pub const PAPER_LATENCY_PER_C: [f64; 5] = [35.6, 41.9, 43.4, 45.3, 46.4];

/// The paper's exponent of the fit of latency/`c` to `k·(log₄N)^p`.
pub const PAPER_P: f64 = 0.22;

/// Accepted range of the fitted exponent: the paper's 0.22 with the ±0.05 (and some) that
/// the noisy `N = 16` point gives re-runs (notes §5.4).
pub const P_TOLERANCE: f64 = 0.35;

/// Relative band of WORM's random and complement cells of Table I.
pub const WORM_TOLERANCE: f64 = 0.05;

/// Relative band of STORE's random and complement cells of Table I (wider: the notes'
/// prototype, with the same step semantics, was 4.5–8% above the paper on STORE random).
pub const STORE_TOLERANCE: f64 = 0.10;

/// Relative band of Table II's `c` (judged by [`judged`]).
pub const C_TOLERANCE: f64 = 0.05;

/// Relative band of Table II's latency/`c` (also accepted: within sampling noise). Wider than
/// `c`'s because it is a ratio of two noisy numbers and because the paper does not say whether
/// it averaged the per-run ratios or divided the means, which differ by a few percent at
/// `N = 16` (see [`TableTwo`]).
pub const RATIO_TOLERANCE: f64 = 0.10;

fn index_of(n: u32) -> usize {
    (log4(n) - 2) as usize
}

/// The closed forms of Table I's many-to-1 cells (notes §5.3): WORM `cL + d − 2`, STORE
/// `L·(2c + d − 3)`, with `c = N/2` and `d = 2·log₄ N`.
pub fn many_to_one_formula(flow: FlowControl, n: u32) -> u64 {
    let (c, d, l) = (u64::from(n / 2), u64::from(2 * log4(n)), u64::from(FLITS));
    match flow {
        FlowControl::StoreAndForward => l * (2 * c + d - 3),
        _ => c * l + d - 2,
    }
}

/// The notes' lower bounds for the complement (§5.3): the many-to-1 forms with `c = √N/2`.
fn complement_bound(flow: FlowControl, n: u32) -> u64 {
    let (c, d, l) = (
        u64::from(1u32 << (log4(n) - 1)),
        u64::from(2 * log4(n)),
        u64::from(FLITS),
    );
    match flow {
        FlowControl::StoreAndForward => l * (2 * c + d - 3),
        _ => c * l + d - 2,
    }
}

/// Table I: mean maximum latency of STORE-RP-RR and WORM-RP-RR, `L = 32`, `R = 1`.
#[derive(Clone, Copy, Debug, Default)]
pub struct TableOne;

/// The runs of one size of Table I: STORE-RP-RR then WORM-RP-RR, on each pattern.
#[derive(Clone, Debug)]
pub struct SizeRuns {
    n: u32,
    trials: u64,
    /// `[STORE, WORM]` × [`Pattern::ALL`].
    runs: [[Arc<[Trial]>; 3]; 2],
}

/// The runs of Table I for `sizes` with `trials` trials per cell.
///
/// # Errors
///
/// As [`runs`].
pub fn table1_rows(sizes: &[u32], trials: u64) -> Result<Vec<SizeRuns>, ReproError> {
    sizes
        .iter()
        .map(|&n| {
            let per = |alg: Algorithm| -> Result<[Arc<[Trial]>; 3], ReproError> {
                Ok([
                    runs(alg, Pattern::Random, n, trials)?,
                    runs(alg, Pattern::Complement, n, trials)?,
                    runs(alg, Pattern::ManyToOne, n, trials)?,
                ])
            };
            Ok(SizeRuns {
                n,
                trials,
                runs: [per(Algorithm::STORE)?, per(Algorithm::WORM)?],
            })
        })
        .collect()
}

/// The cells of one size of Table I: the six latencies, then "WORM < STORE" per pattern.
fn table1_cells(row: &SizeRuns) -> Vec<Cell> {
    let (n, trials) = (row.n, row.trials);
    let mut cells = Vec::new();
    let paper = PAPER_TABLE1[index_of(n)];
    let mut means = [[0.0f64; 3]; 2];
    for (a, alg) in [Algorithm::STORE, Algorithm::WORM].into_iter().enumerate() {
        for (p, pattern) in Pattern::ALL.into_iter().enumerate() {
            let t = &row.runs[a][p];
            let s = Stat::latency(t);
            means[a][p] = s.mean;
            let printed = paper[3 * a + p];
            let formula = many_to_one_formula(alg.flow, n);
            let note = String::new();
            let (ours, detail, verdict) = if pattern == Pattern::ManyToOne {
                let lat: Vec<u64> = t.iter().map(|t| t.latency).collect();
                let verdict = exact_verdict(printed, &lat);
                let form = if alg.flow == FlowControl::StoreAndForward {
                    "L·(2c + d − 3)"
                } else {
                    "cL + d − 2"
                };
                let spread = if s.min == s.max {
                    detail!["all ", trials, " trials = ", float(s.min)]
                } else {
                    detail!["trials range ", float(s.min), "–", float(s.max)]
                };
                let ours = if s.min == s.max {
                    // Every trial took the same (integer) number of steps.
                    Value::Int(s.min as i128)
                } else {
                    s.estimate(1)
                };
                (
                    ours,
                    detail![
                        ..spread,
                        "; closed form ",
                        form,
                        " = ",
                        formula,
                        " (c = N/2 = ",
                        n / 2,
                        ", d = ",
                        2 * log4(n),
                        ")",
                    ],
                    verdict,
                )
            } else {
                let tolerance = if alg.flow == FlowControl::StoreAndForward {
                    STORE_TOLERANCE
                } else {
                    WORM_TOLERANCE
                };
                let judgement = judged(printed as f64, &s, tolerance);
                let mut detail = detail![
                    ..s.ci(1),
                    ", ",
                    field("sd", fixed(s.sd, 1)),
                    ", range ",
                    float(s.min),
                    "–",
                    float(s.max),
                    "; ",
                    ..judgement.detail(),
                ];
                if pattern == Pattern::Complement {
                    detail.append(detail![
                        "; notes' lower bound ",
                        if alg.flow == FlowControl::StoreAndForward {
                            "L·(2c + d − 3)"
                        } else {
                            "cL + d − 2"
                        },
                        " = ",
                        complement_bound(alg.flow, n),
                    ]);
                }
                let verdict = judgement.verdict;
                (s.estimate(1), detail, verdict)
            };
            cells.push(Cell {
                key: vec![n.into(), alg.label().into(), pattern.label().into()],
                paper: Some(printed.into()),
                ours,
                detail,
                verdict,
                note,
            });
        }
    }
    for (p, pattern) in Pattern::ALL.into_iter().enumerate() {
        let (store, worm) = (&row.runs[0][p], &row.runs[1][p]);
        let faster = store
            .iter()
            .zip(worm.iter())
            .filter(|(s, w)| w.latency < s.latency)
            .count();
        // The claim on the paired differences STORE − WORM (`Verdict::positive`).
        let paired = Stat::of(
            &store
                .iter()
                .zip(worm.iter())
                .map(|(s, w)| s.latency as f64 - w.latency as f64)
                .collect::<Vec<_>>(),
        );
        let verdict = Verdict::positive(&paired.est(1));
        let holds = verdict == Verdict::Match;
        cells.push(Cell {
            key: vec![n.into(), "WORM < STORE".into(), pattern.label().into()],
            paper: Some(
                detail![
                    "holds (STORE/WORM = ",
                    fixed(paper[p] as f64 / paper[3 + p] as f64, 2),
                    ")",
                ]
                .into(),
            ),
            ours: detail![
                if holds {
                    "holds"
                } else if verdict == Verdict::NotSignificant {
                    "not significant"
                } else {
                    "does not hold"
                },
                " (STORE/WORM = ",
                fixed(means[0][p] / means[1][p], 2),
                ")",
            ]
            .into(),
            detail: detail![
                "means ",
                fixed(means[0][p], 1),
                " vs ",
                fixed(means[1][p], 1),
                "; WORM faster in ",
                faster,
                " of ",
                store.len(),
                " paired trials (same instance and seed); paired difference STORE − WORM: 99% CI [",
                fixed(paired.low(), 1),
                ", ",
                fixed(paired.high(), 1),
                "]",
            ],
            verdict,
            note: String::new(),
        });
    }
    cells
}

impl Experiment for TableOne {
    fn paper(&self) -> Paper {
        Paper::GreenbergOh
    }

    fn id(&self) -> &'static str {
        "table1"
    }

    fn cost(&self) -> u32 {
        7
    }

    fn seed(&self) -> Option<u64> {
        Some(SEED)
    }

    fn quick_differs(&self) -> bool {
        true
    }

    fn run(&self, effort: Effort) -> Result<Table, ReproError> {
        tabulate(self, effort)
    }
}

impl Tabular for TableOne {
    type Row = SizeRuns;

    fn frame(&self) -> Frame {
        Frame {
            title: "Greenberg–Oh, Table I: mean maximum latency (flit-steps) of STORE-RP-RR (q = 1 packet) and WORM-RP-RR (q = 2 flits), L = 32, R = 1".into(),
            key_columns: vec!["N".into(), "algorithm".into(), "pattern".into()],
            detail_column: "99% CI, spread, difference from the paper".into(),
        }
    }

    fn compute(&self, effort: Effort) -> Result<Vec<SizeRuns>, ReproError> {
        table1_rows(sizes(effort), trials(effort))
    }

    fn cells(&self, row: &SizeRuns) -> Vec<Cell> {
        table1_cells(row)
    }

    fn notes(&self, effort: Effort, _rows: &[SizeRuns], cells: &[Cell]) -> Vec<String> {
        let count = trials(effort);
        let mismatched: Vec<String> = cells
            .iter()
            .filter(|c| c.verdict == Verdict::Mismatch)
            .map(|c| format!("{} {} at N = {}", c.key[1], c.key[2], c.key[0]))
            .collect();
        let store_off = cells.iter().any(|c| {
            c.verdict == Verdict::Mismatch
                && c.key[1] == Algorithm::STORE.label()
                && c.key[2] != Pattern::ManyToOne.label()
        });
        let mut notes = vec![
            format!(
                "Butterfly fat-tree (Greenberg–Oh §III.B.1), one packet per processor, L = {FLITS} flits, R = 1 (no initial delays), {count} trials per cell{}. STORE-RP-RR moves whole packets with queues of 1 packet and is reported in flit-steps (packet-steps × L); WORM-RP-RR has queues of 2 flits. RP: a head going up draws one of the two up links each step and waits if it is blocked; RR: every switch scans its inputs cyclically from a random start each step. Latency is the paper's maximum latency: the 0-based step in which the last tail reached its destination (engine semantics of the notes §2.6).",
                if effort == Effort::Quick {
                    " (quick run: N ≤ 1024 and 5 trials; the full run has the paper's 30)"
                } else {
                    ""
                }
            ),
            "Random instances: each processor sends to a destination drawn uniformly among the other N − 1 processors (no self-destinations). The paper does not say; the notes' prototype matched Table II's c = 3.5 at N = 16 without self-destinations (3.50) and not with them (3.31).".into(),
            "Pairing: trial i of a row routes the same instance with the same seed for STORE and WORM (seeds derived from seed 1997, N, pattern and i), so the \"WORM < STORE\" rows compare paired runs; the quick run's trials are the first trials of the full run.".into(),
            "Verdicts: many-to-1 must be exact in every trial (match). Random and complement cells follow the one rule of every table (`verdict::judge`): the paper's value is a 30-trial mean with sampling error of its own, taken to have our spread, so the difference is tested against the two-sample 99% noise √(1 + n/30)·h (h = our 99% half-width); not significant is a match when the test had at least 80% power to see a difference of one band (WORM ±5%, STORE ±10%), else \"not significant\" (the run cannot tell); significant and inside the band is within tolerance (a real offset, its size in the detail), outside it MISMATCH. Nothing is tuned to the paper's numbers.".into(),
            "Mean and CI: arithmetic mean over the trials and Student-t 99% confidence interval (t with n − 1 degrees of freedom), the paper's confidence level.".into(),
        ];
        if store_off {
            notes.push("STORE random/complement cells outside ±10%: the notes' independent prototype, with the same step semantics that make every many-to-1 cell exact, was also 4.5–8% above the paper on STORE random for N ≥ 64 and −2.5% to +9.3% on STORE complement (216.5 against the paper's 198 at N = 16; notes §5.4), so some undocumented detail of the paper's STORE differs (candidates, notes §6.14: how RP re-chooses in STORE, whether a packet blocked on its chosen up link may take the other in the same step, the drain timing at the destination). We report the disagreement rather than tune a knob to remove it.".into());
        }
        if !mismatched.is_empty() {
            notes.push(format!("Mismatches: {}.", mismatched.join("; ")));
        }
        notes
    }
}

/// Table II: mean realized congestion `c` and mean latency/`c` of WORM-RP-RR on the random
/// instances of Table I (the very same runs), and the fit of latency/`c` to `k·(log₄N)^p`.
///
/// **latency/`c` is the mean over runs of the per-run ratio** (the caption's "the latency
/// divided by c" read per experiment). The ratio of the means, `mean latency / mean c`, is
/// printed next to it: the paper's products `c × latency/c` reproduce its Table I WORM random
/// column within 0.7% at every `N`, which the ratio of means would do exactly and the mean of
/// ratios only approximately (Jensen's inequality; a few percent at `N = 16`, where `c` is
/// 3 to 5), so the paper may have divided the means. Both are reported; the verdict and the
/// fit use the mean of the per-run ratio, and the fit of the other reading is in the detail.
#[derive(Clone, Copy, Debug, Default)]
pub struct TableTwo;

impl Experiment for TableTwo {
    fn paper(&self) -> Paper {
        Paper::GreenbergOh
    }

    fn id(&self) -> &'static str {
        "table2"
    }

    fn seed(&self) -> Option<u64> {
        Some(SEED)
    }

    fn quick_differs(&self) -> bool {
        true
    }

    fn run(&self, effort: Effort) -> Result<Table, ReproError> {
        tabulate(self, effort)
    }
}

/// Table II's numbers at one size: the realized congestion `c`, the per-run latency/`c` and
/// the ratio of the means, over Table I's WORM-RP-RR random runs.
#[derive(Clone, Copy, Debug)]
pub struct Congestion {
    n: u32,
    c: Stat,
    ratio: Stat,
    /// mean latency / mean `c`.
    ratio_of_means: f64,
}

impl Tabular for TableTwo {
    type Row = Congestion;

    fn frame(&self) -> Frame {
        Frame {
            title: "Greenberg–Oh, Table II: mean realized congestion c and latency/c of WORM-RP-RR on random instances (L = 32, R = 1, q = 2 flits), and the fit latency/c = k·(log₄N)^p".into(),
            key_columns: vec!["N".into(), "quantity".into()],
            detail_column: "99% CI, difference from the paper, cross-checks".into(),
        }
    }

    fn compute(&self, effort: Effort) -> Result<Vec<Congestion>, ReproError> {
        let count = trials(effort);
        sizes(effort)
            .iter()
            .map(|&n| {
                let t = runs(Algorithm::WORM, Pattern::Random, n, count)?;
                let c = Stat::of(
                    &t.iter()
                        .map(|t| f64::from(t.congestion))
                        .collect::<Vec<_>>(),
                );
                let ratio = Stat::of(
                    &t.iter()
                        .map(|t| t.latency as f64 / f64::from(t.congestion))
                        .collect::<Vec<_>>(),
                );
                let lat = Stat::latency(&t);
                Ok(Congestion {
                    n,
                    c,
                    ratio,
                    ratio_of_means: lat.mean / c.mean,
                })
            })
            .collect()
    }

    fn cells(&self, row: &Congestion) -> Vec<Cell> {
        let Congestion {
            n,
            c,
            ratio,
            ratio_of_means: rom,
        } = *row;
        let i = index_of(n);
        let mut cells = Vec::new();
        let explain = |s: &Stat, j: &Judgement, d: usize| {
            detail![
                ..s.ci(d),
                ", ",
                field("sd", fixed(s.sd, d)),
                "; ",
                ..j.detail()
            ]
        };
        let judged_c = judged(PAPER_C[i], &c, C_TOLERANCE);
        let judged_ratio = judged(PAPER_LATENCY_PER_C[i], &ratio, RATIO_TOLERANCE);
        cells.push(Cell {
            key: vec![n.into(), "c".into()],
            paper: Some(fixed(PAPER_C[i], 1)),
            ours: c.estimate(2),
            detail: detail![
                ..explain(&c, &judged_c, 2),
                "; range ",
                float(c.min),
                "–",
                float(c.max),
            ],
            verdict: judged_c.verdict,
            note: String::new(),
        });
        cells.push(Cell {
            key: vec![n.into(), "latency/c".into()],
            paper: Some(fixed(PAPER_LATENCY_PER_C[i], 1)),
            ours: ratio.estimate(1),
            detail: detail![
                ..explain(&ratio, &judged_ratio, 1),
                "; ",
                field("ratio of means", fixed(rom, 1)),
                "; ",
                field("c × latency/c", fixed(c.mean * ratio.mean, 1)),
                " (Table I: ",
                PAPER_TABLE1[i][3],
                ")",
            ],
            verdict: judged_ratio.verdict,
            note: String::new(),
        });
        cells
    }

    /// The fit of latency/`c` to `k·(log₄N)^p`, of ours and of the paper's column.
    fn summary_cells(&self, _effort: Effort, rows: &[Congestion]) -> Result<Vec<Cell>, ReproError> {
        let xs: Vec<f64> = rows.iter().map(|r| f64::from(log4(r.n))).collect();
        let ratio_means: Vec<f64> = rows.iter().map(|r| r.ratio.mean).collect();
        let ratio_of_means: Vec<f64> = rows.iter().map(|r| r.ratio_of_means).collect();
        let range = format!(
            "{}–{}",
            rows.first().map_or(0, |r| r.n),
            rows.last().map_or(0, |r| r.n)
        );
        let mut cells = Vec::new();
        let fit = fit_power(&xs, &ratio_means)
            .ok_or_else(|| EXPERIMENT.failed("latency/c fit failed"))?;
        let fit_rom = fit_power(&xs, &ratio_of_means)
            .ok_or_else(|| EXPERIMENT.failed("ratio-of-means fit"))?;
        let paper_x: Vec<f64> = SIZES.iter().map(|&n| f64::from(log4(n))).collect();
        let paper_fit = fit_power(&paper_x, &PAPER_LATENCY_PER_C)
            .ok_or_else(|| EXPERIMENT.failed("fit of the paper"))?;
        // A fitted exponent has no interval here: the rule sees an exact value, so any
        // difference is significant and only the band decides.
        let judged_p = judge(
            Reference::Exact(PAPER_P),
            &Estimate::new(fit.p, f64::NAN, 1, 99, 3),
            P_TOLERANCE,
        );
        let fitted = Detail::join(xs.iter().map(|&x| detail![fixed(fit.at(x), 1)]), ", ");
        cells.push(Cell {
            key: vec![range.clone().into(), "fit p".into()],
            paper: Some(detail!["≈ ", float(PAPER_P)].into()),
            ours: fixed(fit.p, 3),
            detail: detail![
                field("k", fixed(fit.k, 2)),
                ", ",
                field("SSE", fixed(fit.sse, 2)),
                ", fitted latency/c = ",
                ..fitted,
                "; fit of the ratio of means: p = ",
                fixed(fit_rom.p, 3),
                ", k = ",
                fixed(fit_rom.k, 2),
            ],
            verdict: judged_p.verdict,
            note: format!(
                "band ±{:.0}% ({:.3}–{:.3}): the fit is sensitive to the noisy N = 16 point (notes §5.4); it has no interval",
                100.0 * P_TOLERANCE,
                PAPER_P * (1.0 - P_TOLERANCE),
                PAPER_P * (1.0 + P_TOLERANCE)
            ),
        });
        cells.push(Cell {
            key: vec![range.into(), "fit k".into()],
            paper: None,
            ours: fixed(fit.k, 2),
            detail: detail![
                "the paper prints no k; the fit of its own numbers gives k = ",
                fixed(paper_fit.k, 2),
            ],
            verdict: Verdict::NotInPaper,
            note: String::new(),
        });
        cells.push(Cell {
            key: vec!["16–4096 (paper's numbers)".into(), "fit p".into()],
            paper: Some(detail!["≈ ", float(PAPER_P)].into()),
            ours: fixed(paper_fit.p, 4),
            detail: detail![
                "fit of the printed latency/c column: k = ",
                fixed(paper_fit.k, 2),
                ", SSE = ",
                fixed(paper_fit.sse, 2),
                " (notes §4: p = 0.2244, k = 31.53)",
            ],
            verdict: Verdict::holds((paper_fit.p - PAPER_P).abs() < 0.005),
            note: "checks the fitting method, not the simulation".into(),
        });
        Ok(cells)
    }

    fn notes(&self, effort: Effort, _rows: &[Congestion], _cells: &[Cell]) -> Vec<String> {
        let count = trials(effort);
        // The fit of the paper's own column, as the method computes it.
        let paper_x: Vec<f64> = SIZES.iter().map(|&n| f64::from(log4(n))).collect();
        let paper_fit = fit_power(&paper_x, &PAPER_LATENCY_PER_C).map_or_else(
            || "no fit".to_string(),
            |f| format!("p = {:.4}, k = {:.2}", f.p, f.k),
        );
        let quick = if effort == Effort::Quick {
            " (quick run: N ≤ 1024, 5 trials)"
        } else {
            ""
        };
        vec![
        format!("The runs are Table I's WORM-RP-RR random runs (same seeds, same instances), {count} per size{quick}."),
        "c is the realized congestion of a run: the largest number of worms whose head crossed one link. With adaptive RP paths the paper never defines c; this reading reproduces its values, where the load factor λ and the congestion of oblivious random paths do not (notes §5.2).".into(),
        "latency/c is the mean over runs of the per-run ratio. The paper does not say whether it divided per run or divided the means; the ratio of means is given in the detail column (at N = 16 the two differ by a few percent because c is small), together with c × latency/c, which the paper's numbers make equal to its Table I WORM random column within 0.7% — what the ratio of means does exactly.".into(),
        format!("Tolerances: c within ±{:.0}% and latency/c within ±{:.0}% of the paper, or (for both) a difference no larger than the two-sample 99% noise √2·h, h being our 99% Student-t half-width: the paper's values are themselves 30-run means of small integers (c is 3 to 5 at N = 16), whose sampling error is as large as ours; a fixed band narrower than that would fail a faithful reproduction by chance. latency/c gets the wider band because it is the ratio of two noisy numbers and because of the averaging ambiguity above.", 100.0 * C_TOLERANCE, 100.0 * RATIO_TOLERANCE),
        format!("Fit: nonlinear least squares in linear space, minimising Σ (y − k·x^p)² over x = log₄N: k in closed form Σ y·x^p / Σ x^(2p) for each p, p by grid search (step 0.01 on [{}, {}]) refined by golden-section search. The verdict asks p within ±{:.0}% of the paper's \"p ≈ 0.22\". The same function fitted to the paper's printed column gives {paper_fit} (the notes' values), which validates the method.", FIT_P_RANGE.0, FIT_P_RANGE.1, 100.0 * P_TOLERANCE),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fit_reproduces_the_notes_fit_of_the_paper_numbers() {
        let xs = [2.0, 3.0, 4.0, 5.0, 6.0];
        let fit = fit_power(&xs, &PAPER_LATENCY_PER_C).unwrap();
        assert!((fit.p - 0.2244).abs() < 1e-4, "{fit:?}");
        assert!((fit.k - 31.53).abs() < 0.01, "{fit:?}");
        assert!((fit.sse - 4.62).abs() < 0.01, "{fit:?}");
        // The notes' fitted values.
        for (x, y) in xs.iter().zip([36.84, 40.35, 43.04, 45.25, 47.14]) {
            assert!((fit.at(*x) - y).abs() < 0.01, "x = {x}: {}", fit.at(*x));
        }
    }

    #[test]
    fn fit_recovers_an_exact_power_law_and_rejects_bad_input() {
        let xs = [1.5, 2.0, 3.0, 7.0];
        let ys: Vec<f64> = xs.iter().map(|x: &f64| 2.5 * x.powf(-0.75)).collect();
        let fit = fit_power(&xs, &ys).unwrap();
        assert!((fit.p + 0.75).abs() < 1e-8 && (fit.k - 2.5).abs() < 1e-8);
        assert!(fit.sse < 1e-12);
        assert_eq!(fit_power(&[2.0], &[1.0]), None);
        assert_eq!(fit_power(&[2.0, 3.0], &[1.0]), None);
        assert_eq!(fit_power(&[0.0, 3.0], &[1.0, 2.0]), None);
        assert_eq!(fit_power(&[2.0, 3.0], &[1.0, f64::NAN]), None);
    }

    #[test]
    fn verdict_bands() {
        assert_eq!(exact_verdict(544, &[544, 544]), Verdict::Match);
        assert_eq!(exact_verdict(544, &[544, 576]), Verdict::Mismatch);
        assert_eq!(exact_verdict(544, &[]), Verdict::Mismatch);
        // The paper's value is a 30-trial mean: the noise is two-sample.
        let s = Stat {
            n: 30,
            mean: 3.9,
            half99: 0.3,
            sd: 0.6,
            min: 3.0,
            max: 5.0,
        };
        let j = judged(3.5, &s, 0.05);
        assert!((j.noise - 0.3 * std::f64::consts::SQRT_2).abs() < 1e-12);
        assert_eq!(j.verdict, Verdict::NotSignificant);
        let tight = Stat { half99: 0.05, ..s };
        assert_eq!(judged(3.5, &tight, 0.05).verdict, Verdict::Mismatch);
        assert_eq!(judged(3.8, &tight, 0.05).verdict, Verdict::WithinTolerance);
    }

    #[test]
    fn closed_forms_are_the_printed_many_to_one_cells() {
        for (i, &n) in SIZES.iter().enumerate() {
            let store = many_to_one_formula(FlowControl::StoreAndForward, n);
            let worm = many_to_one_formula(FlowControl::Wormhole, n);
            assert_eq!((store, worm), (PAPER_TABLE1[i][2], PAPER_TABLE1[i][5]));
        }
        assert_eq!(complement_bound(FlowControl::Wormhole, 16), 66);
        assert_eq!(complement_bound(FlowControl::StoreAndForward, 4096), 2336);
    }

    #[test]
    fn random_instances_exclude_self_and_are_shared_across_algorithms() {
        let a = instance(Pattern::Random, 64, 11).unwrap();
        let b = instance(Pattern::Random, 64, 11).unwrap();
        assert_eq!(a, b);
        assert_ne!(a, instance(Pattern::Random, 64, 12).unwrap());
        assert!(a.iter().all(|(_, m)| m.src != m.dst));
        assert_eq!(a.len(), 64);
        assert_eq!(
            Algorithm::STORE.label(),
            "STORE-RP-RR",
            "labels are the paper's names"
        );
        assert_eq!(Algorithm::UNIV.label(), "UNIV stand-in");
        assert_eq!(Algorithm::STORE.with_delays().delays(1024), 10);
    }

    #[test]
    fn small_table1_has_exact_many_to_one_cells_and_worm_beats_store() {
        let cells: Vec<Cell> = table1_rows(&[16, 64], 3)
            .unwrap()
            .iter()
            .flat_map(|row| TableOne.cells(row))
            .collect();
        assert_eq!(cells.len(), 2 * (6 + 3));
        let m1: Vec<&Cell> = cells
            .iter()
            .filter(|c| c.key[2] == "many-to-1" && c.key[1] != "WORM < STORE")
            .collect();
        assert_eq!(m1.len(), 4);
        for c in m1 {
            assert_eq!(c.verdict, Verdict::Match, "{c:?}");
            assert_eq!(Some(&c.ours), c.paper.as_ref(), "{c:?}");
        }
        // Three paired trials: WORM is faster in each, significantly so or not significant
        // (the paired 99% interval of 3 trials is wide), never significantly slower.
        for c in cells.iter().filter(|c| c.key[1] == "WORM < STORE") {
            assert!(
                matches!(c.verdict, Verdict::Match | Verdict::NotSignificant),
                "{c:?}"
            );
        }
        // Memoised: a second call returns the same runs.
        let again = runs(Algorithm::WORM, Pattern::Random, 16, 3).unwrap();
        let fresh = runs(Algorithm::WORM, Pattern::Random, 16, 3).unwrap();
        assert!(Arc::ptr_eq(&again, &fresh));
    }
}
