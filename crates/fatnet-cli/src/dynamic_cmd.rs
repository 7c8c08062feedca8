//! `fatnet simulate hypercube:d=D --arrivals poisson ...`: Stamoulis' dynamic routing
//! (thesis chapter 5) and multiple broadcasts (chapters 6-7), a thin edge over the library's
//! [`DynamicScenario`] (defaults, refusals, seeds and the trial record live there), printed
//! beside the delay bounds the thesis proves for the case.

use std::io::Write;

use anyhow::Result;
use fatnet::scenario::{
    BroadcastSummary, DynamicScenario, DynamicSummary, RoutingSummary, RunOptions,
};

/// What `--help` says about this mode (appended to `fatnet simulate --help`).
pub const HELP: &str = "\
DYNAMIC ROUTING (--arrivals; Stamoulis, thesis chapter 5):
  fatnet simulate hypercube:d=D --arrivals poisson|slotted --rate LAMBDA [--p P]
                  [--router greedy|adaptive] [--slots S] [--warmup W] [--batches B]
                  [--trials T] [--seed S] [--threads K] [--per-trial] [--json]
  (or butterfly:d=D, greedy only). Every node (butterfly: every level-1 node)
  generates packets at rate LAMBDA; a packet's destination flips each address bit of its
  origin with probability P (thesis (5.1); the origin itself is possible and is delivered
  with delay 0 on the cube). Every arc carries one packet per unit time (one slot).
  --arrivals poisson: Poisson processes in continuous time; greedy routing (the differing
    dimensions in increasing order, FIFO arcs that never idle) simulated exactly, level by
    level (each arc's departures D_k = max(D_k-1, t_k) + 1).
  --arrivals slotted: Poisson(LAMBDA) batches at every slot boundary (the continuous
    arrivals advanced to the slot start, thesis (5.19)); one packet per arc per slot. Greedy
    breaks FIFO ties uniformly at random; --router adaptive is the adaptive store-and-forward
    scheme of §5.5 (closest-to-destination first, then FIFO, then random; a random free arc
    toward the destination, else the packet waits), hypercube only. On the butterfly the
    slotted bounds include Prop. 5.18's proved T̄ >= d + (1/2)(d - 1)LAMBDA*P(1 - P).
  The load factor is rho = LAMBDA*P on the cube, LAMBDA*max(P, 1-P) on the butterfly; no
  scheme is stable for rho >= 1, which is refused.
  The network starts empty; packets generated in [W, S) are measured (S in time units =
  slots; W defaults to floor(S/10), a whole number of slots); generation continues past S
  until they are all delivered. The delay T of a packet runs from its generation to the end
  of its last transmission. delay_ci is the 95% half-width from B batch means (equal windows
  of generation time) of one run, or, with T >= 2 trials, from the trials' means. Trial i
  gets the seed s_i = derive_seed(SEED, i) and its engine derive_seed(s_i, 1), as in packet
  simulation; a `simulator = \"dynamic\"` sweep task with seed s_i is that trial. `bounds` are the bounds the thesis proves for greedy routing in the
  case (cube: Props. 5.13 and 5.12; butterfly: Props. 5.14 and 5.17; slotted: the upper
  bound + 1 by (5.26), and Prop. 5.18 on the butterfly), with their sources and the exact
  value where the paths are disjoint (p = 1); `claimed_lower` is the thesis' sharper bound
  stated without a complete proof ((5.18), Prop. 5.18 in continuous time). For the adaptive
  scheme only Prop. 5.2 (any scheme) bounds T from below. JSON keys: topology, network, d,
  arrivals, rate, p, rho, router, slots, warmup, batches, trials, seed, confidence, packets,
  measured, delay_mean, delay_ci, delay_trend, hops_mean, number_mean, arc_rate
  (per-level arc throughput; Poisson only), straight_rate (butterfly), bounds {lower, upper,
  lower_source, upper_source, claimed_lower, exact}, within_bounds, packet_hops, per_trial
  (--per-trial: per trial its trial, seed and the record a sweep task writes: rho, packets,
  measured, delay_mean, delay_ci, delay_trend, hops_mean, number_mean, packet_hops,
  arc_rate, straight_rate, backlog_trend, lower_bound, upper_bound; null where a run cannot
  define a value). Errors (a missing --rate, a load at or above the stability limit, ...)
  name the parameter as a sweep file does (`rate`, `warmup`).

MULTIPLE BROADCASTS (--broadcast SCHEME; thesis chapters 6-7):
  fatnet simulate hypercube:d=D --arrivals poisson --broadcast SCHEME --rate LAMBDA
                  [--slots S] [--warmup W] [--batches B] [--trials T] [--seed S] [--json]
  Every node generates packets by a Poisson process of rate LAMBDA, each to be received by
  all other nodes; transmissions are slotted (one packet per arc per slot) and the delay runs
  from generation to the last reception. rho = LAMBDA (2^d - 1)/d. `direct` is the
  efficient direct scheme (a uniformly random one of the origin's d rotated trees, FIFO
  output queues; stable for rho < 1); `indirect` sends each packet to the root of one of
  Johnsson and Ho's d disjoint trees and broadcasts it from there under Rules A-E (stable
  for rho < (2/3)(1 - 2^-d), Prop. 7.3; the trees never interfere, so one tree is simulated
  with rate LAMBDA/d per node and `packets` counts that tree's); `nonidling` floods one of
  those trees, undirected, from the origin, with FIFO arcs and no slot classes (§7.4, as the
  notes read it; its light-traffic delay is 3d/2). The simpler direct schemes of §6.3:
  `one-tree` broadcasts every packet of x along x's dimension-order tree (1, ..., d) (stable
  only for rho < (2/d)(1 - 2^-d)); `periodic` is P1: every P = ceil((2^d - 1)/d) slots an
  optimal multinode broadcast runs, each node sending the head of its FIFO queue (our
  verified schedule stands in for the thesis' BOSTT91 one; d <= 12; stable iff
  rho < ((2^d - 1)/d)/P, (6.7)); `periodic-nonidling` sends every packet along its origin's
  tree of that schedule as fast as possible, each arc sending the smallest label (the P1
  period) first, ties in the schedule's slot order (stable iff (6.7)). P2 (SaS85's schedule)
  is not available. Loads at or above a scheme's limit are refused. Printed beside: Prop.
  6.2's lower bound (every scheme here is oblivious), for `direct` approximation (6.19) and,
  in very light traffic, the inferior scheme's upper bound; for `indirect` the exact Prop.
  7.4; for `periodic` the exact M/D/1 with synchronisation (2.6), delta = P, which bounds
  `periodic-nonidling` from above. JSON keys: topology, scheme, d, rate, rho, slots, warmup,
  batches, trials, seed, confidence, packets, measured, delay_mean, delay_ci, delay_trend,
  backlog_trend (unfinished broadcasts per slot; about 0 when stable), bounds {lower,
  lower_source, upper, upper_source, exact, exact_source, approximation, stability_limit},
  within_bounds, per_trial.";

/// Runs a dynamic simulation and prints it: `--per-trial` lists every trial, `--json` prints
/// the [`DynamicSummary`] as JSON.
pub fn run(
    scenario: &DynamicScenario,
    run: RunOptions,
    per_trial: bool,
    json: bool,
    out: &mut impl Write,
) -> Result<()> {
    let prepared = scenario.prepare()?;
    let run = run.resolve()?;
    let bar = crate::trial_progress_bar(run.trials);
    // Calls may arrive slightly out of order: never move the bar back.
    let trials = prepared.run(run.seed, run.trials, &run.runner, &|done| {
        bar.set_position(bar.position().max(done))
    })?;
    bar.finish_and_clear();
    let summary = DynamicSummary::of(&prepared, run.seed, trials, per_trial);
    if json {
        serde_json::to_writer_pretty(&mut *out, &summary)?;
        writeln!(out)?;
        return Ok(());
    }
    match &summary {
        DynamicSummary::Routing(o) => routing_text(out, o)?,
        DynamicSummary::Broadcast(o) => broadcast_text(out, o)?,
    }
    Ok(())
}

/// `x` with four decimals, or `-` where the run cannot define it.
fn num(x: Option<f64>) -> String {
    x.map_or("-".to_string(), |v| format!("{v:.4}"))
}

/// The delay line: the mean and its interval.
fn delay_line(out: &mut impl Write, mean: Option<f64>, ci: Option<f64>) -> std::io::Result<()> {
    match ci {
        Some(h) => writeln!(out, "mean delay T       {} ± {h:.4} (95%)", num(mean)),
        None => writeln!(out, "mean delay T       {}", num(mean)),
    }
}

fn routing_text(out: &mut impl Write, o: &RoutingSummary) -> std::io::Result<()> {
    writeln!(
        out,
        "{} ({} nodes), {} routing, {} arrivals: rate {} per node, p = {}, rho = {:.4}",
        o.topology,
        match o.network {
            "butterfly" => format!("{} x {}", o.d + 1, 1u64 << o.d),
            _ => (1u64 << o.d).to_string(),
        },
        o.router,
        o.arrivals,
        o.rate,
        o.p,
        o.rho
    )?;
    writeln!(
        out,
        "run: time [0, {}), measured from {}, {} batches, {} trial(s), seed {}",
        o.run.slots, o.run.warmup, o.run.batches, o.run.trials, o.run.seed
    )?;
    writeln!(
        out,
        "packets generated {}, measured {}, packet-hops {}",
        o.run.packets, o.run.measured, o.packet_hops
    )?;
    delay_line(out, o.run.delay_mean, o.run.delay_ci)?;
    match o.bounds.upper {
        Some(upper) => writeln!(
            out,
            "bounds             {:.4} ({}) <= T <= {upper:.4} ({})",
            o.bounds.lower, o.bounds.lower_source, o.bounds.upper_source
        )?,
        None => writeln!(
            out,
            "bounds             T >= {:.4} ({}); no upper bound proved",
            o.bounds.lower, o.bounds.lower_source
        )?,
    }
    if let Some(c) = o.bounds.claimed_lower {
        writeln!(
            out,
            "claimed lower      {c:.4} (stated without complete proof)"
        )?;
    }
    if let Some(w) = o.within_bounds {
        writeln!(out, "within bounds      {}", if w { "yes" } else { "NO" })?;
    }
    writeln!(out, "mean hops          {}", num(o.hops_mean))?;
    let little = o.run.delay_mean.map(|t| o.rate * (1u64 << o.d) as f64 * t);
    writeln!(
        out,
        "mean number in network {} (Little: rate x nodes x T = {})",
        o.number_mean.map_or("-".to_string(), |v| format!("{v:.2}")),
        little.map_or("-".to_string(), |v| format!("{v:.2}"))
    )?;
    writeln!(
        out,
        "delay trend        {} per time unit (about 0 in steady state)",
        o.run
            .delay_trend
            .map_or("-".to_string(), |v| format!("{v:.2e}"))
    )?;
    per_trial_text(out, o.per_trial.as_deref())
}

fn broadcast_text(out: &mut impl Write, o: &BroadcastSummary) -> std::io::Result<()> {
    writeln!(
        out,
        "{}, {} broadcast scheme, Poisson arrivals: rate {} per node, rho = {:.4} (stable below {:.4})",
        o.topology, o.scheme, o.rate, o.rho, o.bounds.stability_limit
    )?;
    writeln!(
        out,
        "run: slots [0, {}), measured from {}, {} batches, {} trial(s), seed {}",
        o.run.slots, o.run.warmup, o.run.batches, o.run.trials, o.run.seed
    )?;
    writeln!(
        out,
        "packets generated {}, measured {}",
        o.run.packets, o.run.measured
    )?;
    delay_line(out, o.run.delay_mean, o.run.delay_ci)?;
    writeln!(
        out,
        "lower bound        {:.4} ({})",
        o.bounds.lower, o.bounds.lower_source
    )?;
    if let (Some(u), Some(src)) = (o.bounds.upper, o.bounds.upper_source) {
        writeln!(out, "upper bound        {u:.4} ({src})")?;
    }
    if let (Some(x), Some(src)) = (o.bounds.exact, o.bounds.exact_source) {
        writeln!(out, "exact              {x:.4} ({src})")?;
    }
    if let Some(a) = o.bounds.approximation {
        writeln!(out, "approximation      {a:.4} ((6.19))")?;
    }
    per_trial_text(out, o.per_trial.as_deref())
}

/// The `--per-trial` table.
fn per_trial_text(
    out: &mut impl Write,
    trials: Option<&[fatnet::scenario::DynamicTrial]>,
) -> std::io::Result<()> {
    let Some(trials) = trials else {
        return Ok(());
    };
    writeln!(out)?;
    writeln!(
        out,
        "{:>6} {:>20} {:>10} {:>10} {:>10} {:>10}",
        "trial", "seed", "packets", "measured", "delay", "delay_ci"
    )?;
    for t in trials {
        let r = &t.report;
        writeln!(
            out,
            "{:>6} {:>20} {:>10} {:>10} {:>10} {:>10}",
            t.trial,
            t.seed,
            r.packets,
            r.measured,
            num(r.delay_mean),
            num(r.delay_ci)
        )?;
    }
    Ok(())
}
