//! On-line routers as policies of the delivery-cycle engine: each cycle a router chooses
//! which undelivered messages to inject; the engine ([`crate::run`]) owns the time loop.

use std::collections::VecDeque;

use fatnet_queueing::QueueingError;
use fatnet_queueing::greenberg_leiserson::{lemma7_k1, lemma7_k2};
use rand::Rng;
use rand_pcg::Pcg64;
use serde::{Deserialize, Serialize};

/// What a router injects in one cycle.
#[derive(Debug, Clone, PartialEq)]
pub enum Selection {
    /// Every undelivered message.
    All,
    /// Each undelivered message independently with this probability (a p-subset).
    Subset(f64),
    /// These messages (positions; must be undelivered).
    Ids(Vec<u32>),
}

/// An on-line routing strategy in the delivery-cycle model.
pub trait Router {
    /// A short name for reports.
    fn name(&self) -> String;
    /// Chooses the messages of the next cycle. `undelivered` lists the undelivered messages
    /// in increasing position; randomness must come from `rng` only.
    fn select(&mut self, undelivered: &[u32], rng: &mut Pcg64) -> Selection;
}

impl<R: Router + ?Sized> Router for Box<R> {
    fn name(&self) -> String {
        (**self).name()
    }
    fn select(&mut self, undelivered: &[u32], rng: &mut Pcg64) -> Selection {
        (**self).select(undelivered, rng)
    }
}

fatnet_topology::named_options! {
    /// A delivery-cycle router, by its one name (`fatnet route --router`, sweeps' `router`).
    pub enum RouterKind("router") {
        /// RANDOM with TRY-GUESS ([`RandomRouter`]): O(λ + lg n lg lg n) cycles w.h.p.
        Random = "random",
        /// GREEDY ([`Greedy`]): send everything every cycle.
        Greedy = "greedy",
        /// RANDOM′ ([`RandomPrime`]) for capacities ≥ a·lg n: O(λ) cycles w.h.p.
        RandomPrime = "random-prime",
        /// RANDOM′ with (k+1)·lg n passes per value of z, for the constant-size-switch
        /// fat-tree ([`RandomPrime::with_repetitions`]).
        ConstantSwitch = "constant-switch",
    }
}

fatnet_topology::named_options! {
    /// RANDOM's constants ([`RandomParams`]).
    pub enum RandomPreset("preset") {
        /// k1 = 2, k2 = 1, r = 2 ([`RandomParams::default`], this library's practical choice).
        Practical = "practical",
        /// The constants of Lemma 7 ([`RandomParams::proved`]: q = 1/(e⁴ r ln r), k1 = 4r/q,
        /// k2 = 36r, r the tree's congestion parameter); very slow by design.
        Proved = "proved",
    }
}

/// GREEDY (Greenberg–Leiserson Fig. 5): send every undelivered message every cycle.
#[derive(Debug, Clone, Copy, Default)]
pub struct Greedy;

impl Router for Greedy {
    fn name(&self) -> String {
        "greedy".into()
    }
    fn select(&mut self, _: &[u32], _: &mut Pcg64) -> Selection {
        Selection::All
    }
}

/// Parameters of RANDOM and TRY-GUESS (Greenberg–Leiserson Figs. 2–3).
///
/// A TRY-GUESS inner loop runs `⌈max{k1·λ, k2·lg n}⌉` cycles sending each undelivered message
/// with probability `p = 1/(r·λ)` (capped at 1). The paper proves its bounds with
/// `q = 1/(e⁴ r ln r)`, `k1 = 4r/q`, `k2 = 36r` and `r` the congestion parameter of the tree
/// ([`RandomParams::proved`]); with those, `k1 ≈ 10^5` and every run is dominated by its
/// constants. The paper itself says practical experiments use small constants:
/// [`RandomParams::default`] is `k1 = 2`, `k2 = 1`, `r = 2` (a choice of this library, not of
/// the paper).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RandomParams {
    /// Cycles per unit of λ in an inner loop.
    pub k1: f64,
    /// Cycles per unit of lg n in an inner loop.
    pub k2: f64,
    /// Sending-probability scale: `p = 1/(r·λ)`.
    pub r: f64,
}

impl Default for RandomParams {
    fn default() -> Self {
        Self {
            k1: 2.0,
            k2: 1.0,
            r: 2.0,
        }
    }
}

impl RandomParams {
    /// The constants of Lemma 7 for congestion parameter `r` and success probability
    /// `1 − O(1/n^k)`: `q = 1/(e⁴ r ln r)` (the note's reading of the OCR's
    /// "1/e^4 r ln r"), `k1 = 4r/q`, `k2 = 12(k+2)r` (`36r` for `k = 1`), from
    /// `fatnet_queueing::greenberg_leiserson`.
    ///
    /// # Errors
    ///
    /// The closed forms' error for `r ≤ e` (no fat-tree has so small an `r`).
    pub fn proved(r: f64, k: u32) -> Result<Self, QueueingError> {
        Ok(Self {
            k1: lemma7_k1(r)?,
            k2: lemma7_k2(r, k)?,
            r,
        })
    }
}

/// One step of a precomputed plan: an action repeated `cycles` times.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Step {
    All,
    Subset { p: f64, cycles: u64 },
}

/// RANDOM (Greenberg–Leiserson Fig. 2) with TRY-GUESS (Fig. 3).
///
/// Plan: send everything once (line 1); phase 1 tries the guesses 2, 4, 16, 256, … (squaring)
/// while `k1·guess < k2·lg n`; phase 2 starts at `(k2/k1)·lg n·lg lg n` (clamped to at least 2,
/// the note's guard for small n) and doubles. TRY-GUESS(λ) halves λ from the guess down to 1,
/// running an inner loop at each value, then sends everything once (line 9).
#[derive(Debug, Clone)]
pub struct RandomRouter {
    params: RandomParams,
    lg_n: f64,
    plan: VecDeque<Step>,
    phase1_guess: Option<f64>,
    phase2_guess: f64,
    started: bool,
}

impl RandomRouter {
    /// RANDOM for a tree on `n` processors.
    pub fn new(params: RandomParams, n: u32) -> Self {
        let lg_n = f64::from(n.max(2)).log2();
        let lglg = lg_n.log2().max(1.0);
        Self {
            params,
            lg_n,
            plan: VecDeque::new(),
            phase1_guess: Some(2.0),
            phase2_guess: (params.k2 / params.k1 * lg_n * lglg).max(2.0),
            started: false,
        }
    }

    fn try_guess(&mut self, guess: f64) {
        let mut lam = guess;
        while lam > 1.0 {
            let cycles = (self.params.k1 * lam)
                .max(self.params.k2 * self.lg_n)
                .ceil() as u64;
            let p = (1.0 / (self.params.r * lam)).min(1.0);
            self.plan.push_back(Step::Subset {
                p,
                cycles: cycles.max(1),
            });
            lam /= 2.0;
        }
        self.plan.push_back(Step::All);
    }

    fn refill(&mut self) {
        if !self.started {
            self.started = true;
            self.plan.push_back(Step::All);
            return;
        }
        match self.phase1_guess {
            Some(g) if self.params.k1 * g < self.params.k2 * self.lg_n => {
                self.try_guess(g);
                self.phase1_guess = Some(g * g);
            }
            _ => {
                self.phase1_guess = None;
                let g = self.phase2_guess;
                self.try_guess(g);
                self.phase2_guess = 2.0 * g;
            }
        }
    }
}

impl Router for RandomRouter {
    fn name(&self) -> String {
        format!(
            "random(k1={},k2={},r={})",
            self.params.k1, self.params.k2, self.params.r
        )
    }

    fn select(&mut self, _: &[u32], _: &mut Pcg64) -> Selection {
        if self.plan.is_empty() {
            self.refill();
        }
        match self.plan.front_mut().expect("refilled") {
            Step::All => {
                self.plan.pop_front();
                Selection::All
            }
            Step::Subset { p, cycles } => {
                let p = *p;
                *cycles -= 1;
                if *cycles == 0 {
                    self.plan.pop_front();
                }
                Selection::Subset(p)
            }
        }
    }
}

/// RANDOM′ (Greenberg–Leiserson Fig. 7) for capacities `≥ a·lg n`: passes with `z = 1, 2, 4,
/// …` slots; in a pass every undelivered message picks a uniform slot and is sent in that
/// slot's cycle. Line 1 of the figure is lost in the OCR; we start with `z = 1` (the note's
/// reading; any O(λ) start keeps the bound).
///
/// With `repetitions > 1` every value of `z` is used for that many passes: the routing of the
/// constant-switch fat-tree (§6) uses `(k+1)·lg n` passes per `z` on the wire-level model.
#[derive(Debug, Clone)]
pub struct RandomPrime {
    z: u64,
    repetitions: u64,
    done_passes: u64,
    pending: VecDeque<Vec<u32>>,
}

impl RandomPrime {
    /// RANDOM′: one pass per value of `z`.
    pub fn new() -> Self {
        Self::with_repetitions(1)
    }

    /// The constant-switch variant: `repetitions = (k+1)·lg n` passes per value of `z`.
    pub fn with_repetitions(repetitions: u64) -> Self {
        Self {
            z: 1,
            repetitions: repetitions.max(1),
            done_passes: 0,
            pending: VecDeque::new(),
        }
    }
}

impl Default for RandomPrime {
    fn default() -> Self {
        Self::new()
    }
}

impl Router for RandomPrime {
    fn name(&self) -> String {
        if self.repetitions > 1 {
            format!("random-prime(x{})", self.repetitions)
        } else {
            "random-prime".into()
        }
    }

    fn select(&mut self, undelivered: &[u32], rng: &mut Pcg64) -> Selection {
        if self.pending.is_empty() {
            let z = self.z as usize;
            let mut slots = vec![Vec::new(); z];
            for &m in undelivered {
                slots[rng.random_range(0..z)].push(m);
            }
            self.pending = slots.into();
            self.done_passes += 1;
            if self.done_passes == self.repetitions {
                self.done_passes = 0;
                self.z *= 2;
            }
        }
        Selection::Ids(self.pending.pop_front().expect("filled"))
    }
}

/// The expected-time variant of a router (Greenberg–Leiserson §4): its cycles alternate with
/// cycles that send one undelivered message (always delivered), so delivery always finishes
/// and the expected number of cycles keeps the high-probability bound up to a factor 2.
#[derive(Debug, Clone)]
pub struct Interleaved<R> {
    inner: R,
    inner_next: bool,
}

impl<R> Interleaved<R> {
    /// Interleaves `inner` with single-message cycles, starting with `inner`.
    pub fn new(inner: R) -> Self {
        Self {
            inner,
            inner_next: true,
        }
    }
}

impl<R: Router> Router for Interleaved<R> {
    fn name(&self) -> String {
        format!("interleaved({})", self.inner.name())
    }

    fn select(&mut self, undelivered: &[u32], rng: &mut Pcg64) -> Selection {
        let inner_turn = self.inner_next;
        self.inner_next = !inner_turn;
        if inner_turn {
            self.inner.select(undelivered, rng)
        } else {
            Selection::Ids(undelivered.first().copied().into_iter().collect())
        }
    }
}
