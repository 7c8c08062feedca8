//! Greenberg and Oh's Algorithm A (§II) and its Theorem 5 doubling variant, as a schedule of
//! release times over the packet engine — not a second engine.
//!
//! **Algorithm A** (*Universal wormhole routing* (1997), §II). Given fixed paths of congestion `c`
//! and dilation `d` for `P` worms of `L` flits, with `η = min(d, L)`, draw for every worm a delay
//! uniformly from `0..n` with `n = ⌈k·c·η⌉` phases, hold it at its source for `delay·T` flit-steps,
//! then let it go greedily. With `k = 32e` and `T = 2d + L·log₂ P`, Theorem 4 shows that every worm
//! finishes inside its own phase `[delay·T, (delay + 1)·T)` with high probability, so the
//! schedule takes `n·T = O(c·d·η + c·L·η·log P)` flit-steps.
//!
//! **Theorem 5**: start with `T₀ = 2(d + L)` and `⌈32e·c·η⌉` phases; if some worm
//! missed its phase, rerun the whole algorithm with `T` doubled; the expected total is
//! `O(c·d·L)`.
//!
//! # Modelling choices
//!
//! - **Phases are not enforced**. The paper's analysis *assumes* that worms of
//!   different phases never interact and proves that `T` suffices for that w.h.p.; it gives no
//!   mechanism. We run every worm freely from its release step `delay·T` in one engine run
//!   (option (a) of §6.21) and check phase membership afterwards: worm `w` finished in its
//!   phase iff its delivery step is `< (delay_w + 1)·T`, i.e. its latency (delivery − release,
//!   the engine's 0-based counting) is `< T`. A worm that overran its phase may have delayed
//!   worms of the next phase; we count it as a miss and do not stop the run. For the doubling
//!   variant, "every worm finished in its phase" evaluated after the run is the global
//!   phase-end check of option (b), so a restart happens exactly when (b) would detect a miss;
//!   only the time charged to a failed attempt differs (see [`DoublingReport`]).
//! - **Fixed paths** ([`PathPolicy::Fixed`], or the deterministic [`PathPolicy::Standard`]):
//!   the analysis is for given paths, so the adaptive path policies are rejected. The engine
//!   draws each worm's path uniformly among its shortest
//!   paths from the run's seed, in message order, before anything else that depends on
//!   release times (see [`simulate`]); the paths are therefore a function of the engine seed
//!   and of the message list alone.
//! - **`c` and `d` are those of the drawn paths, measured by a dry pass.** The engine does not
//!   expose the paths it draws, and `c` must be known before the delays can be drawn. We run
//!   the engine once with the same seed and the same message list, each worm released alone
//!   (`L = 1`, releases `2(d_max + 1)` steps apart, so no two worms ever meet and nothing can
//!   deadlock), and read the congestion (largest number of heads that crossed one link) and
//!   dilation from its report. The real run uses the same seed, hence the same paths; its
//!   realized congestion is reported as [`AlgorithmAReport::realized_congestion`] and equals
//!   `c` whenever every worm is delivered (a unit test checks this). `c` is per link (wire):
//!   on the butterfly fat-tree and the hypercube links are channels.
//! - **`log₂ P`** is `⌈log₂ max(P, 2)⌉`, with `P` the number of messages (self-messages
//!   included): an integer, and at least 1 so that `T > 2d` for a lone worm.
//! - **Degenerate sets**: when no message leaves its source, `c = d = η = 0`; we use one phase
//!   (`⌈k·c·η⌉` is raised to at least 1).
//! - **Scan and queues** come from the caller's [`PacketConfig`]. The paper's analysis model
//!   scans inputs in a fixed order (FO) with one-flit input queues that forward a flit every
//!   step; under the engine's start-of-step capacity test a one-flit queue halves a link's
//!   throughput, so the engine's equivalent is `q = 2` ([`AlgorithmA::paper_config`]). Flow
//!   control must be wormhole.
//! - **Randomness**: `Pcg64::seed_from_u64(seed)` draws the engine seed first, then the delays
//!   in message order (for the doubling variant, fresh delays for every attempt, while the
//!   engine seed — hence the paths — stays the same: the paper reruns the algorithm on the
//!   same paths).

use crate::OnlineParameter;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;
use serde::{Deserialize, Serialize};

use fatnet_traffic::MessageSet;

use super::{
    FlowControl, Injection, OnlineError, PacketConfig, PacketNet, PacketReport, PathPolicy,
    QueueCapacity, ScanPolicy, SinkModel, simulate,
};

/// The parameters of Algorithm A (defaults: the constants of Theorems 4 and 5).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct AlgorithmA {
    /// `k`: the schedule has `⌈k·c·η⌉` phases. Lemma 2 needs `k ≥ 8e`; the theorems use
    /// `32e ≈ 86.98` (`k′ = √(k/2e) = 4`).
    pub k: f64,
    /// `T`, the phase length in flit-steps. `None`: `2d + L·⌈log₂ P⌉` for
    /// [`algorithm_a`] (Theorem 4) and `T₀ = 2(d + L)` for [`algorithm_a_doubling`]
    /// (Theorem 5), where it is the first phase length.
    pub phase_length: Option<u64>,
    /// The doubling variant gives up after this many attempts (at least 1).
    pub max_attempts: u32,
}

impl Default for AlgorithmA {
    /// `k = 32e`, the paper's phase lengths, at most 24 attempts.
    fn default() -> Self {
        Self {
            k: 32.0 * std::f64::consts::E,
            phase_length: None,
            max_attempts: 24,
        }
    }
}

impl AlgorithmA {
    /// The paper's analysis model on the engine: wormhole, fixed paths, fixed-order scan,
    /// queue sinks and `q = 2` flits (the engine's equivalent of the paper's one-flit queues
    /// that forward a flit every step; see the module documentation), `L = flits`, latencies
    /// recorded.
    pub fn paper_config(flits: u32) -> PacketConfig {
        PacketConfig {
            flow: FlowControl::Wormhole,
            path: PathPolicy::Fixed,
            scan: ScanPolicy::FixedOrder,
            flits,
            queue: QueueCapacity::Bounded(2),
            sink: SinkModel::Queue,
            record_latencies: true,
            ..PacketConfig::default()
        }
    }

    fn validate(&self) -> Result<(), OnlineError> {
        if !(self.k.is_finite() && self.k > 0.0) {
            return Err(OnlineError::BadParameter {
                param: OnlineParameter::K,
                value: self.k.to_string(),
                expected: "a finite number > 0",
            });
        }
        if self.phase_length == Some(0) {
            return Err(OnlineError::BadParameter {
                param: OnlineParameter::PhaseLength,
                value: "0".into(),
                expected: "at least 1",
            });
        }
        if self.max_attempts == 0 {
            return Err(OnlineError::BadParameter {
                param: OnlineParameter::MaxAttempts,
                value: "0".into(),
                expected: "at least 1",
            });
        }
        Ok(())
    }
}

/// One run of Algorithm A.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AlgorithmAReport {
    /// `P`: messages routed.
    pub packets: u64,
    /// `c`: congestion of the fixed paths (largest number of paths through one link).
    pub congestion: u32,
    /// `d`: dilation of the fixed paths (longest path, in links).
    pub dilation: u32,
    /// `η = min(d, L)`.
    pub eta: u32,
    /// `⌈log₂ max(P, 2)⌉`.
    pub log_p: u32,
    /// Number of phases, `max(1, ⌈k·c·η⌉)`.
    pub phases: u64,
    /// `T`, the phase length in flit-steps.
    pub phase_length: u64,
    /// `phases · T`: the nominal schedule length.
    pub schedule_length: u64,
    /// The largest delay drawn, in phases.
    pub max_delay: u64,
    /// Every message's delay, in phases (released at `delay · T`), in message order.
    pub delays: Vec<u64>,
    /// The paper's time: the 0-based step in which the last worm was delivered. It is below
    /// `schedule_length` when every worm finished in its phase, and at least
    /// `max_delay · T` when every worm was delivered.
    pub time: u64,
    /// Whether every worm was delivered inside its own phase (latency `< T`).
    pub all_in_phase: bool,
    /// Worms not delivered inside their own phase (late, or not delivered at all).
    pub missed: u64,
    /// Theorem 4's ratio `phases·T / (c·d·η + c·L·η·log₂ P)` (`None` when `c·η = 0`). With
    /// the default `T` and `k`, it lies between `k` and `2k` up to the rounding of the phase
    /// count.
    pub theorem4_ratio: Option<f64>,
    /// The largest number of heads that crossed one link in this run: equals `congestion`
    /// when every worm was delivered (same seed, same fixed paths).
    pub realized_congestion: u32,
    /// The engine's report of the run (with every message's latency).
    pub run: PacketReport,
}

/// The Theorem 5 doubling variant: attempts with `T₀, 2T₀, 4T₀, …` until every worm finishes
/// in its phase.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DoublingReport {
    /// The phase length of every attempt, in order.
    pub phase_lengths: Vec<u64>,
    /// Worms that missed their phase in every attempt, in order (all zero but the last one
    /// means the last attempt succeeded).
    pub missed: Vec<u64>,
    /// Whether the last attempt had every worm finish in its phase (`false`: gave up after
    /// [`AlgorithmA::max_attempts`] attempts or when `phases · T` would overflow).
    pub succeeded: bool,
    /// The phase length of the last attempt.
    pub final_phase_length: u64,
    /// Measured time of all attempts run back to back, each starting in the step after the
    /// previous one's last delivery: `Σ (time_i + 1) − 1` (the 0-based step of the final
    /// delivery). A failed attempt is charged until its last delivery, as if the miss were
    /// detected then.
    pub total_time: u64,
    /// The paper's accounting, `Σ phases · T_i`: every attempt charged its whole schedule.
    pub total_schedule: u64,
    /// The last attempt.
    pub last: AlgorithmAReport,
}

/// The fixed paths' statistics and the engine seed shared by the attempts.
struct Plan {
    run_seed: u64,
    packets: u64,
    congestion: u32,
    dilation: u32,
    eta: u32,
    log_p: u32,
    phases: u64,
}

fn plan(
    net: &PacketNet,
    messages: &MessageSet,
    config: &PacketConfig,
    params: &AlgorithmA,
    rng: &mut Pcg64,
) -> Result<Plan, OnlineError> {
    params.validate()?;
    config.validate()?;
    if config.flow != FlowControl::Wormhole {
        return Err(OnlineError::Unsupported {
            why: "Algorithm A is a wormhole algorithm (FlowControl::Wormhole)",
        });
    }
    if !matches!(config.path, PathPolicy::Fixed | PathPolicy::Standard) {
        return Err(OnlineError::Unsupported {
            why: "Algorithm A routes on fixed paths (PathPolicy::Fixed or Standard)",
        });
    }
    let run_seed: u64 = rng.random();
    let packets = messages.len() as u64;

    // Dry pass: same seed and message list (hence the same paths), one flit, worms spaced so
    // that each travels alone.
    let d_max = messages
        .messages()
        .iter()
        .filter(|m| m.src != m.dst && m.src < net.processors() && m.dst < net.processors())
        .map(|m| u64::from(net.distance(m.src, m.dst)))
        .max()
        .unwrap_or(0);
    let spacing = 2 * (d_max + 1);
    let dry_injections: Vec<Injection> = messages
        .messages()
        .iter()
        .enumerate()
        .map(|(i, m)| Injection {
            src: m.src,
            dst: m.dst,
            release: i as u64 * spacing,
        })
        .collect();
    let dry_config = PacketConfig {
        flits: 1,
        max_steps: (packets + 1).saturating_mul(spacing).max(1),
        record_latencies: false,
        ..*config
    };
    let dry = simulate(net, &dry_injections, &dry_config, run_seed)?;
    // Isolated one-flit worms on shortest paths always arrive.
    debug_assert!(dry.finished(), "dry pass did not finish: {:?}", dry.outcome);
    let (congestion, dilation) = (dry.congestion, dry.dilation);

    let eta = dilation.min(config.flits);
    let log_p = packets.max(2).next_power_of_two().ilog2();
    let phases = (params.k * f64::from(congestion) * f64::from(eta)).ceil();
    if phases >= u64::MAX as f64 {
        return Err(OnlineError::TooLarge {
            what: "phases",
            value: u64::MAX,
            max: u64::MAX - 1,
        });
    }
    let phases = (phases as u64).max(1);
    Ok(Plan {
        run_seed,
        packets,
        congestion,
        dilation,
        eta,
        log_p,
        phases,
    })
}

/// One attempt: draw the delays, release, run, check phase membership.
fn attempt(
    net: &PacketNet,
    messages: &MessageSet,
    config: &PacketConfig,
    plan: &Plan,
    phase_length: u64,
    rng: &mut Pcg64,
) -> Result<AlgorithmAReport, OnlineError> {
    let schedule_length = plan
        .phases
        .checked_mul(phase_length)
        .ok_or(OnlineError::TooLarge {
            what: "phases (phases × T must fit in u64)",
            value: plan.phases,
            max: u64::MAX / phase_length,
        })?;
    let delays: Vec<u64> = (0..messages.len())
        .map(|_| rng.random_range(0..plan.phases))
        .collect();
    let injections: Vec<Injection> = messages
        .messages()
        .iter()
        .zip(&delays)
        .map(|(m, &x)| Injection {
            src: m.src,
            dst: m.dst,
            release: x * phase_length,
        })
        .collect();
    let run_config = PacketConfig {
        record_latencies: true,
        ..*config
    };
    let run = simulate(net, &injections, &run_config, plan.run_seed)?;
    let latencies = run.latencies.as_deref().unwrap_or(&[]);
    // Undelivered messages are recorded as u64::MAX, which is never < T.
    let in_phase = latencies.iter().filter(|&&l| l < phase_length).count() as u64;
    let missed = plan.packets - in_phase;
    let (c, d, eta, l) = (
        f64::from(plan.congestion),
        f64::from(plan.dilation),
        f64::from(plan.eta),
        f64::from(run_config.flits),
    );
    let bound = c * d * eta + c * l * eta * f64::from(plan.log_p);
    Ok(AlgorithmAReport {
        packets: plan.packets,
        congestion: plan.congestion,
        dilation: plan.dilation,
        eta: plan.eta,
        log_p: plan.log_p,
        phases: plan.phases,
        phase_length,
        schedule_length,
        max_delay: delays.iter().copied().max().unwrap_or(0),
        delays,
        time: run.latency,
        all_in_phase: missed == 0,
        missed,
        theorem4_ratio: (bound > 0.0).then(|| schedule_length as f64 / bound),
        realized_congestion: run.congestion,
        run,
    })
}

/// Routes `messages` with Algorithm A on `net` under `config` (see the module documentation
/// for every modelling choice): `⌈k·c·η⌉` phases of `T` flit-steps (default
/// `T = 2d + L·⌈log₂ P⌉`), each worm released at `delay·T` with `delay` uniform over the
/// phases, then routed greedily by the engine. The run is bounded by
/// [`PacketConfig::max_steps`] like any other: worms not delivered by then count as missed.
///
/// # Errors
///
/// [`OnlineError::Unsupported`] unless `config` is wormhole with fixed paths;
/// [`OnlineError::BadParameter`] for `k ≤ 0` or not finite, `T = 0`, or a bad `config`;
/// [`OnlineError::TooLarge`] when `phases · T` overflows; otherwise as [`simulate`].
pub fn algorithm_a(
    net: &PacketNet,
    messages: &MessageSet,
    config: &PacketConfig,
    params: &AlgorithmA,
    seed: u64,
) -> Result<AlgorithmAReport, OnlineError> {
    let mut rng = Pcg64::seed_from_u64(seed);
    let plan = plan(net, messages, config, params, &mut rng)?;
    let t = params
        .phase_length
        .unwrap_or(2 * u64::from(plan.dilation) + u64::from(config.flits) * u64::from(plan.log_p));
    attempt(net, messages, config, &plan, t, &mut rng)
}

/// Theorem 5's doubling variant: Algorithm A with `⌈k·c·η⌉` phases (`k = 32e` by default)
/// and `T = T₀ = 2(d + L)` (or [`AlgorithmA::phase_length`]); while some worm misses its
/// phase, rerun it on the same paths with fresh delays and `T` doubled, at most
/// [`AlgorithmA::max_attempts`] times.
///
/// # Errors
///
/// As [`algorithm_a`]; an overflow of `phases · T` after the first attempt ends the doubling
/// (`succeeded: false`) instead.
pub fn algorithm_a_doubling(
    net: &PacketNet,
    messages: &MessageSet,
    config: &PacketConfig,
    params: &AlgorithmA,
    seed: u64,
) -> Result<DoublingReport, OnlineError> {
    let mut rng = Pcg64::seed_from_u64(seed);
    let plan = plan(net, messages, config, params, &mut rng)?;
    let mut t = params
        .phase_length
        .unwrap_or(2 * (u64::from(plan.dilation) + u64::from(config.flits)));
    let mut phase_lengths = Vec::new();
    let mut missed = Vec::new();
    let mut total_time = 0u64;
    let mut total_schedule = 0u64;
    let mut last = attempt(net, messages, config, &plan, t, &mut rng)?;
    loop {
        phase_lengths.push(t);
        missed.push(last.missed);
        total_time = total_time.saturating_add(last.time);
        total_schedule = total_schedule.saturating_add(last.schedule_length);
        if last.all_in_phase || phase_lengths.len() >= params.max_attempts as usize {
            break;
        }
        let Some(next) = t
            .checked_mul(2)
            .filter(|&n| plan.phases.checked_mul(n).is_some())
        else {
            break;
        };
        t = next;
        total_time = total_time.saturating_add(1);
        last = attempt(net, messages, config, &plan, t, &mut rng)?;
    }
    Ok(DoublingReport {
        phase_lengths,
        missed,
        succeeded: last.all_in_phase,
        final_phase_length: t,
        total_time,
        total_schedule,
        last,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use fatnet_topology::ButterflyFatTree;
    use fatnet_traffic::{Message, patterns};

    fn bft(n: u64) -> PacketNet {
        PacketNet::new(ButterflyFatTree::new(n).unwrap()).unwrap()
    }

    fn random_instance(n: u32, seed: u64) -> MessageSet {
        patterns::uniform(n, false, &mut Pcg64::seed_from_u64(seed)).unwrap()
    }

    fn config(flits: u32) -> PacketConfig {
        PacketConfig {
            check_conservation: true,
            ..AlgorithmA::paper_config(flits)
        }
    }

    /// The bookkeeping of one run: `c`, `d`, `η`, `T`, the phases, the delays, and the
    /// schedule length `phases·T` against the measured time.
    #[test]
    fn schedule_matches_the_parameters() {
        for n in [16u32, 64] {
            let net = bft(u64::from(n));
            for flits in [2u32, 5, 32] {
                for seed in 0..3 {
                    let m = random_instance(n, seed);
                    let cfg = config(flits);
                    let r = algorithm_a(&net, &m, &cfg, &AlgorithmA::default(), seed).unwrap();
                    let d = m
                        .messages()
                        .iter()
                        .map(|x| net.distance(x.src, x.dst))
                        .max()
                        .unwrap();
                    assert!(r.run.finished());
                    assert_eq!(r.dilation, d);
                    assert_eq!(r.congestion, r.realized_congestion, "same seed, same paths");
                    assert_eq!(r.run.dilation, d);
                    assert_eq!(r.eta, d.min(flits));
                    assert_eq!(r.log_p, n.ilog2());
                    assert_eq!(r.phase_length, u64::from(2 * d + flits * n.ilog2()));
                    let k = 32.0 * std::f64::consts::E;
                    let phases = (k * f64::from(r.congestion * r.eta)).ceil() as u64;
                    assert_eq!(r.phases, phases);
                    assert_eq!(r.schedule_length, phases * r.phase_length);
                    assert_eq!(r.delays.len(), m.len());
                    assert!(r.delays.iter().all(|&x| x < phases));
                    // Release at delay·T: every latency is delivery − release.
                    let lat = r.run.latencies.as_ref().unwrap();
                    let last = r
                        .delays
                        .iter()
                        .zip(lat)
                        .map(|(&x, &l)| x * r.phase_length + l)
                        .max()
                        .unwrap();
                    assert_eq!(r.time, last);
                    let late = lat.iter().filter(|&&l| l >= r.phase_length).count() as u64;
                    assert_eq!(r.missed, late);
                    // The schedule: the last phase starts at max_delay·T; every worm inside
                    // its phase means the run ends before phases·T.
                    assert!(r.time >= r.max_delay * r.phase_length);
                    if r.all_in_phase {
                        assert!(r.time < (r.max_delay + 1) * r.phase_length);
                        assert!(r.time < r.schedule_length);
                    }
                    // Theorem 4: phases·T / (cdη + cLη log P) between k and 2k (rounding of
                    // the phase count adds at most 2/(cη)).
                    let ratio = r.theorem4_ratio.unwrap();
                    assert!(ratio >= k && ratio <= 2.0 * k + 2.0, "ratio {ratio}");
                }
            }
        }
    }

    /// The paper's w.h.p. claim at k = 32e: every worm finishes inside its own phase, on
    /// random instances in both regimes (L ≤ d and L > d).
    #[test]
    fn with_k_32e_every_worm_finishes_in_its_phase() {
        for n in [16u32, 64] {
            let net = bft(u64::from(n));
            for flits in [1u32, 4, 8, 32] {
                for seed in 0..8 {
                    let m = random_instance(n, 100 + seed);
                    let r = algorithm_a(&net, &m, &config(flits), &AlgorithmA::default(), seed)
                        .unwrap();
                    assert!(
                        r.all_in_phase,
                        "N = {n}, L = {flits}, seed {seed}: {} worms missed their phase",
                        r.missed
                    );
                    assert_eq!(r.missed, 0);
                    assert!(r.time < r.schedule_length);
                }
            }
        }
    }

    /// Same seed, same report; the scan order is the caller's.
    #[test]
    fn runs_are_determined_by_their_seed_and_take_the_callers_scan() {
        let net = bft(64);
        let m = random_instance(64, 9);
        for scan in [ScanPolicy::FixedOrder, ScanPolicy::RoundRobin] {
            let cfg = PacketConfig { scan, ..config(8) };
            let a = algorithm_a(&net, &m, &cfg, &AlgorithmA::default(), 5).unwrap();
            let b = algorithm_a(&net, &m, &cfg, &AlgorithmA::default(), 5).unwrap();
            assert_eq!(a, b);
            assert!(a.all_in_phase);
        }
    }

    /// A phase of one step is too short for any worm of a path of two or more links.
    #[test]
    fn too_short_phases_are_reported_as_misses() {
        let net = bft(16);
        let m = random_instance(16, 1);
        let params = AlgorithmA {
            phase_length: Some(1),
            ..AlgorithmA::default()
        };
        let r = algorithm_a(&net, &m, &config(4), &params, 3).unwrap();
        assert!(r.run.finished());
        assert!(!r.all_in_phase);
        assert_eq!(r.missed, 16);
        assert_eq!(r.schedule_length, r.phases);
    }

    /// Self-messages and empty sets: one phase at least, nothing missed.
    #[test]
    fn degenerate_sets() {
        let net = bft(16);
        let m = MessageSet::new(16, vec![Message::new(3, 3), Message::new(7, 7)]).unwrap();
        let r = algorithm_a(&net, &m, &config(4), &AlgorithmA::default(), 0).unwrap();
        assert_eq!((r.congestion, r.dilation, r.eta, r.phases), (0, 0, 0, 1));
        assert!(r.all_in_phase);
        assert_eq!(r.theorem4_ratio, None);
        let empty = MessageSet::empty(16).unwrap();
        let r = algorithm_a(&net, &empty, &config(4), &AlgorithmA::default(), 0).unwrap();
        assert_eq!((r.packets, r.missed, r.phases), (0, 0, 1));
    }

    #[test]
    fn rejects_what_the_analysis_does_not_cover() {
        let net = bft(16);
        let m = random_instance(16, 0);
        let a = AlgorithmA::default();
        for cfg in [
            PacketConfig {
                path: PathPolicy::Random,
                ..config(4)
            },
            PacketConfig {
                flow: FlowControl::StoreAndForward,
                ..config(4)
            },
        ] {
            assert!(matches!(
                algorithm_a(&net, &m, &cfg, &a, 0),
                Err(OnlineError::Unsupported { .. })
            ));
        }
        for bad in [
            AlgorithmA { k: 0.0, ..a },
            AlgorithmA { k: f64::NAN, ..a },
            AlgorithmA {
                phase_length: Some(0),
                ..a
            },
            AlgorithmA {
                max_attempts: 0,
                ..a
            },
        ] {
            assert!(matches!(
                algorithm_a_doubling(&net, &m, &config(4), &bad, 0),
                Err(OnlineError::BadParameter { .. })
            ));
        }
    }

    /// Theorem 5 with k = 32e: T₀ = 2(d + L) already suffices on these sizes, and the
    /// accounting of one attempt is that attempt's.
    #[test]
    fn doubling_starts_at_two_d_plus_l() {
        for n in [16u32, 64] {
            let net = bft(u64::from(n));
            for flits in [4u32, 32] {
                let m = random_instance(n, 7);
                let r = algorithm_a_doubling(&net, &m, &config(flits), &AlgorithmA::default(), 2)
                    .unwrap();
                let t0 = 2 * (u64::from(r.last.dilation) + u64::from(flits));
                assert_eq!(r.phase_lengths[0], t0);
                assert!(r.succeeded);
                assert_eq!(r.final_phase_length, *r.phase_lengths.last().unwrap());
                assert_eq!(r.final_phase_length, r.last.phase_length);
                if r.phase_lengths.len() == 1 {
                    assert_eq!(r.total_time, r.last.time);
                    assert_eq!(r.total_schedule, r.last.schedule_length);
                }
            }
        }
    }

    /// With far too few phases the first attempts fail and T doubles until the greedy run
    /// fits in a phase; the totals add the attempts back to back.
    #[test]
    fn doubling_doubles_until_every_worm_is_in_its_phase() {
        let net = bft(64);
        let m = random_instance(64, 11);
        let params = AlgorithmA {
            k: 0.01,
            phase_length: Some(2),
            ..AlgorithmA::default()
        };
        let r = algorithm_a_doubling(&net, &m, &config(8), &params, 4).unwrap();
        assert!(r.succeeded);
        assert!(r.phase_lengths.len() > 1);
        for (i, &t) in r.phase_lengths.iter().enumerate() {
            assert_eq!(t, 2 << i);
        }
        let (last, failed) = r.missed.split_last().unwrap();
        assert_eq!(*last, 0);
        assert!(failed.iter().all(|&x| x > 0));
        assert!(r.total_time > r.last.time);
        let phases = r.last.phases;
        assert_eq!(
            r.total_schedule,
            r.phase_lengths.iter().map(|t| t * phases).sum::<u64>()
        );
        // Every attempt takes at least d + L − 2 steps: the totals add up to at least that.
        let attempts = r.phase_lengths.len() as u64;
        assert!(r.total_time + 1 >= attempts * (u64::from(r.last.dilation) + 8 - 1));
    }
}
