//! Simulators and on-line routers.
//!
//! This crate holds the **delivery-cycle engine** of Leiserson (*Fat-Trees*, 1985) and
//! Greenberg & Leiserson (*Randomized routing on fat-trees*, 1986): in a cycle a set of messages is
//! injected, every channel carries at most `cap(c)` of them, the excess is dropped by a
//! [`DropPolicy`], and undelivered messages stay at their source to be retried. Routers
//! ([`Greedy`], [`RandomRouter`], [`RandomPrime`], [`Interleaved`]) are policies that choose what
//! to inject; [`run`] owns the only time loop, and a scheme that needs more than its report watches
//! it through a [`CycleObserver`] ([`run_observed`]) — the Theorem 9 adversary does.
//!
//! **Key design decision: one engine, routers as policies, one random stream.** A run draws
//! everything (the router's choices, the switches' random drops, the wires) from one
//! `rand_pcg::Pcg64` seeded with the run's `u64` seed, in a fixed order, so a run is a
//! function of its seed. Conservation (sent = delivered + dropped each cycle; delivered +
//! undelivered = |M|) is checked every cycle and a violation is an error, never a hang: runs
//! stop at `max_cycles` and report that they did.
//!
//! ```
//! use fatnet_online::{DropPolicy, Greedy, RunConfig, run};
//! use fatnet_topology::{CapacityProfile, FatTree};
//! use fatnet_traffic::patterns;
//!
//! // GREEDY sends every undelivered message every cycle. With unit capacities, the complement
//! // permutation (λ = 8) gets exactly one message per direction through the root per cycle,
//! // whatever the concentrators drop: 2 deliveries per cycle, 8 cycles, the lower bound ⌈λ⌉.
//! let tree = FatTree::new(16, CapacityProfile::Constant(1))?;
//! let messages = patterns::complement(16)?;
//! let report = run(&tree, &messages, DropPolicy::Random, &mut Greedy, 7, RunConfig::default())?;
//! assert!(report.finished);
//! assert_eq!((report.lower_bound, report.cycles), (8, 8));
//! assert!(report.trace.iter().all(|cycle| cycle.delivered == 2));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![deny(missing_docs)]

mod adversary;
pub mod direct_broadcast;
mod divide;
mod dynamic_options;
mod engine;
mod error;
pub mod greedy_cube;
pub mod indirect_broadcast;
pub mod packet;
pub mod periodic_broadcast;
pub mod protocol;
mod router;
mod shuffle;
pub mod slotted_cube;
mod step;

pub use adversary::greedy_adversary;
pub use dynamic_options::{Arrivals, BroadcastScheme, DynamicRouter};
pub use engine::{CycleStats, DeliveryEngine, DropPolicy, Sink};
pub use error::{OnlineError, OnlineParameter};
pub use protocol::{RunProtocol, TimeModel};
pub use router::{
    Greedy, Interleaved, RandomParams, RandomPreset, RandomPrime, RandomRouter, Router, RouterKind,
    Selection,
};

use fatnet_load::{LoadFactor, LoadReport, fat_tree_loads, fat_tree_loads_out_the_root};
use fatnet_topology::FatTree;
use fatnet_traffic::{Message, MessageSet};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;
use serde::Serialize;

/// Options of a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct RunConfig {
    /// Give up after this many cycles (the report says the run did not finish).
    pub max_cycles: u64,
    /// Compute λ of the undelivered messages after every cycle (costs `O(|U| + n)` per cycle).
    pub trace_load_factor: bool,
    /// Where messages go: their destination processors, or out of the root.
    pub sink: Sink,
}

impl Default for RunConfig {
    fn default() -> Self {
        Self {
            max_cycles: 1_000_000,
            trace_load_factor: false,
            sink: Sink::Processors,
        }
    }
}

/// One cycle of a run.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct CycleTrace {
    /// Messages injected.
    pub sent: u64,
    /// Messages delivered.
    pub delivered: u64,
    /// Messages still undelivered after the cycle.
    pub remaining: u64,
    /// λ of the undelivered messages after the cycle, if traced.
    pub load_factor_remaining: Option<f64>,
}

/// The result of routing a message set to completion (or to `max_cycles`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunReport {
    /// The router's name.
    pub router: String,
    /// The drop policy.
    pub policy: DropPolicy,
    /// The seed of the run.
    pub seed: u64,
    /// Messages.
    pub messages: u64,
    /// λ(M), exact.
    pub load_factor: LoadFactor,
    /// `⌈λ(M)⌉`: no router needs fewer cycles.
    pub lower_bound: u64,
    /// Delivery cycles used.
    pub cycles: u64,
    /// Whether every message was delivered.
    pub finished: bool,
    /// Message-channel steps simulated.
    pub steps: u64,
    /// Per-cycle trace.
    pub trace: Vec<CycleTrace>,
}

/// What [`run_observed`] shows after every delivery cycle, once the cycle's conservation
/// checks have passed.
#[derive(Debug, Clone, Copy)]
pub struct CycleView<'v> {
    /// The cycle, counted from 1.
    pub cycle: u64,
    /// The cycle's counts.
    pub stats: CycleStats,
    /// The messages delivered in the cycle (positions in the message set), in the engine's
    /// delivery order.
    pub delivered: &'v [u32],
    /// The messages still undelivered after the cycle, in increasing position.
    pub undelivered: &'v [u32],
}

/// Watches a run cycle by cycle ([`run_observed`]): a scheme that needs more than the
/// [`RunReport`] (per-message or per-region counts) observes the engine instead of driving
/// it. Closures `FnMut(&CycleView)` are observers.
pub trait CycleObserver {
    /// Called after every cycle.
    fn cycle(&mut self, view: &CycleView<'_>);
}

impl<F: FnMut(&CycleView<'_>)> CycleObserver for F {
    fn cycle(&mut self, view: &CycleView<'_>) {
        self(view)
    }
}

/// λ of a message set on a tree, for messages going to `sink`.
fn load_factor(tree: &FatTree, m: &MessageSet, sink: Sink) -> LoadFactor {
    let loads = match sink {
        Sink::Processors => fat_tree_loads(tree, m),
        Sink::External => fat_tree_loads_out_the_root(tree, m),
    }
    .expect("processors checked by the engine");
    LoadReport::for_fat_tree(tree, loads).load_factor
}

/// Routes `messages` on `tree` with `router` until everything is delivered or
/// `config.max_cycles` cycles have run; everything random comes from `Pcg64` seeded with `seed`.
///
/// # Errors
///
/// [`OnlineError`] for a message set on more processors than the tree, a router that selects
/// a message twice or a delivered one, or (a bug) a conservation violation.
pub fn run(
    tree: &FatTree,
    messages: &MessageSet,
    policy: DropPolicy,
    router: &mut dyn Router,
    seed: u64,
    config: RunConfig,
) -> Result<RunReport, OnlineError> {
    run_observed(
        tree,
        messages,
        policy,
        router,
        seed,
        config,
        &mut |_: &CycleView<'_>| {},
    )
}

/// [`run`], showing every cycle to `observer` (after the cycle's conservation checks, before
/// the next cycle starts).
///
/// # Errors
///
/// As [`run`].
pub fn run_observed(
    tree: &FatTree,
    messages: &MessageSet,
    policy: DropPolicy,
    router: &mut dyn Router,
    seed: u64,
    config: RunConfig,
    observer: &mut dyn CycleObserver,
) -> Result<RunReport, OnlineError> {
    let mut engine = DeliveryEngine::with_sink(tree, messages, policy, config.sink)?;
    let mut rng = Pcg64::seed_from_u64(seed);
    let total = messages.len() as u64;
    let lambda = load_factor(tree, messages, config.sink);
    let mut undelivered: Vec<u32> = (0..total as u32).collect();
    let mut is_undelivered = vec![true; messages.len()];
    let mut report = RunReport {
        router: router.name(),
        policy,
        seed,
        messages: total,
        load_factor: lambda,
        lower_bound: lambda.ceil(),
        cycles: 0,
        finished: false,
        steps: 0,
        trace: Vec::new(),
    };
    let mut sent: Vec<u32> = Vec::new();
    let mut delivered: Vec<u32> = Vec::new();
    let mut delivered_total = 0u64;
    while !undelivered.is_empty() && report.cycles < config.max_cycles {
        sent.clear();
        match router.select(&undelivered, &mut rng) {
            Selection::All => sent.extend_from_slice(&undelivered),
            Selection::Subset(p) => {
                if !(0.0..=1.0).contains(&p) {
                    return Err(OnlineError::BadProbability {
                        router: report.router.clone(),
                        p: p.to_string(),
                    });
                }
                sent.extend(undelivered.iter().copied().filter(|_| rng.random_bool(p)));
            }
            Selection::Ids(ids) => {
                for m in ids {
                    match is_undelivered.get_mut(m as usize) {
                        Some(u) if *u => *u = false, // marked as "selected" for the check
                        _ => {
                            return Err(OnlineError::BadSelection {
                                router: report.router.clone(),
                                message: m,
                            });
                        }
                    }
                    sent.push(m);
                }
                for &m in &sent {
                    is_undelivered[m as usize] = true;
                }
            }
        }
        delivered.clear();
        let stats = engine.cycle(&sent, &mut rng, &mut delivered);
        report.cycles += 1;
        report.steps += stats.steps;
        if stats.delivered + stats.dropped != stats.sent {
            return Err(OnlineError::Conservation {
                clock: "cycle",
                at: report.cycles,
                detail: format!(
                    "sent {} ≠ delivered {} + dropped {}",
                    stats.sent, stats.delivered, stats.dropped
                ),
            });
        }
        for &m in &delivered {
            if !std::mem::replace(&mut is_undelivered[m as usize], false) {
                return Err(OnlineError::Conservation {
                    clock: "cycle",
                    at: report.cycles,
                    detail: format!("message {m} delivered twice"),
                });
            }
        }
        undelivered.retain(|&m| is_undelivered[m as usize]);
        let remaining = undelivered.len() as u64;
        delivered_total += stats.delivered;
        if delivered_total + remaining != total {
            return Err(OnlineError::Conservation {
                clock: "cycle",
                at: report.cycles,
                detail: format!(
                    "delivered {delivered_total} + undelivered {remaining} ≠ {total} messages"
                ),
            });
        }
        let load_factor_remaining = config.trace_load_factor.then(|| {
            let rest: Vec<Message> = undelivered
                .iter()
                .map(|&m| messages.messages()[m as usize])
                .collect();
            let set = MessageSet::new(messages.processors(), rest).expect("subset of a valid set");
            load_factor(tree, &set, config.sink).value()
        });
        report.trace.push(CycleTrace {
            sent: stats.sent,
            delivered: stats.delivered,
            remaining,
            load_factor_remaining,
        });
        observer.cycle(&CycleView {
            cycle: report.cycles,
            stats,
            delivered: &delivered,
            undelivered: &undelivered,
        });
    }
    report.finished = undelivered.is_empty();
    Ok(report)
}
