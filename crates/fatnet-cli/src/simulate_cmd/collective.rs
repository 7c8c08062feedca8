//! `fatnet simulate --collective SPEC`: a collective's phases, one after another, on the
//! packet engine (`fatnet_scenario::collective`), each beside its lower bound.

use std::io::Write;

use anyhow::Result;
use fatnet::online::packet::{FlowControl, Outcome};
use fatnet::scenario::{CollectiveReport, CollectiveScenario};

/// What `fatnet simulate --help` says about collectives.
pub const HELP: &str = "\
COLLECTIVES (--collective SPEC, instead of --traffic):
  A collective operation of every processor, as MPICH schedules it (Thakur, Rabenseifner and
  Gropp, \"Optimization of collective communication operations in MPICH\", 2005), run as
  phases of point-to-point messages:
    alltoall:order=shift     N-1 phases; phase k: i -> i+k mod N (the default order)
    alltoall:order=pairwise  N-1 phases; phase k: i <-> i XOR k (N a power of two; otherwise
                             the shift order, as MPICH does)
    allreduce:alg=ring       2(N-1) phases (reduce-scatter, then allgather): i -> i+1 mod N,
                             each message ceil(V/N) flits (the default algorithm)
    allreduce:alg=rd         recursive doubling, log2 N phases: i <-> i XOR 2^k, the whole
                             vector V; N not a power of two: MPICH's folding (a first phase
                             2j -> 2j+1 for the N-p extra ranks, p the largest power of two
                             below N, then log2 p phases on p ranks, then 2j+1 -> 2j)
  Add `,flits=F` or `,bytes=B` (64-byte flits) for the size: an all-to-all block, an
  allreduce vector V; without it --flits (default 32) is the size, and both together are
  refused. Phases are separated by a barrier: each runs on an empty network (released at step
  0, or after --delay's random delays) and the next starts when it has delivered every
  message; phase k's engine seed is derive_seed(SEED, k). Every option of the engine applies
  (--flow, --queue, --scan, --queueing, ...); --trials does not (one run).
  Each phase is reported with its completion time T, in flit-steps up to and including the
  step that delivers its last message, and its congestion-based lower bound B, from the
  engine's timing model: with L the message length, D the longest route of the phase and
  lambda = load/wires of the most loaded bundle of parallel links (fatnet load's load factor
  on the network's routes; on a fabric, the most routes of the phase on one directed link):
    worm:  B = max(ceil(lambda L), D + L - 1)   (an uncontended worm takes D + L - 1)
    split: B = max(ceil(lambda L), D + ceil(L/w) - 1), w the most wires out of a processor
    store: B = L max(ceil(lambda), D)
  On the hypercube under a path policy other than std the term lambda is left out (its
  shortest paths share no link). T >= B always; T = B on a phase without contention.
  Text: one row per phase (phase, pattern, messages, flits, T, B, T/B) and the totals;
  --json: the configuration, `phases` (phase, pattern, messages, flits, outcome, steps,
  bound {load_factor, dilation, congestion_term, path_term, steps}, ratio, congestion, seed),
  finished, total_steps, total_bound, ratio. A phase that deadlocks or stops at --max-steps
  ends the run (status 0, a warning, the phases so far).";

/// Runs the collective and prints its report.
pub fn run(
    scenario: &CollectiveScenario,
    seed: u64,
    json: bool,
    out: &mut impl Write,
) -> Result<()> {
    let prepared = scenario.prepare()?;
    let bar = crate::trial_progress_bar(u64::from(prepared.phase_count()));
    let report = prepared.run(seed, &|done| bar.set_position(u64::from(done)))?;
    bar.finish_and_clear();
    if !report.finished
        && let Some(last) = report.phases.last()
    {
        eprintln!(
            "warning: phase {} ({}) did not finish: {}; {} of {} phases ran",
            last.phase,
            last.pattern,
            match last.outcome {
                Outcome::Deadlock { step } => format!("deadlock at step {step}"),
                Outcome::StepLimit => format!("stopped at --max-steps {}", report.max_steps),
                Outcome::Delivered => "delivered".into(),
            },
            report.phases.len(),
            report.phase_count
        );
    }
    if json {
        serde_json::to_writer_pretty(&mut *out, &report)?;
        writeln!(out)?;
    } else {
        print_text(out, &report)?;
    }
    Ok(())
}

fn print_text(out: &mut impl Write, r: &CollectiveReport) -> Result<()> {
    let c = r;
    writeln!(
        out,
        "topology    {} ({} processors)",
        r.topology, r.processors
    )?;
    writeln!(
        out,
        "collective  {} ({} phases, a barrier between phases; seed {})",
        r.collective, r.phase_count, r.seed
    )?;
    writeln!(
        out,
        "routing     {} {}-{}, q = {}, {} sinks, {} queues, delays R = {}",
        c.flow.name().to_uppercase(),
        c.path.name().to_uppercase(),
        c.scan.name().to_uppercase(),
        c.queue,
        c.sink,
        c.queueing,
        r.delay
    )?;
    let bound = match c.flow {
        FlowControl::Wormhole => "max(ceil(lambda L), D + L - 1)",
        FlowControl::Split => "max(ceil(lambda L), D + ceil(L/w) - 1)",
        FlowControl::StoreAndForward => "L max(ceil(lambda), D)",
    };
    writeln!(
        out,
        "times       flit-steps to the last delivery; bound {bound}"
    )?;
    writeln!(out)?;
    writeln!(
        out,
        "{:>6}  {:<18} {:>9} {:>6} {:>10} {:>10} {:>7} {:>9} {:>5}",
        "phase", "pattern", "messages", "flits", "steps", "bound", "ratio", "lambda", "D"
    )?;
    for p in &r.phases {
        let lambda = p
            .bound
            .load_factor
            .map_or("—".to_string(), |f| format!("{}/{}", f.load, f.capacity));
        writeln!(
            out,
            "{:>6}  {:<18} {:>9} {:>6} {:>10} {:>10} {:>7} {:>9} {:>5}",
            p.phase,
            p.pattern.to_string(),
            p.messages,
            p.flits,
            p.steps.map_or("—".to_string(), |s| s.to_string()),
            p.bound.steps,
            p.ratio.map_or("—".to_string(), |x| format!("{x:.3}")),
            lambda,
            p.bound.dilation
        )?;
    }
    writeln!(
        out,
        "{:>6}  {:<18} {:>9} {:>6} {:>10} {:>10} {:>7}",
        "total",
        if r.finished { "" } else { "(unfinished)" },
        r.phases.iter().map(|p| p.messages).sum::<u64>(),
        "",
        r.total_steps.map_or("—".to_string(), |s| s.to_string()),
        r.total_bound,
        r.ratio.map_or("—".to_string(), |x| format!("{x:.3}"))
    )?;
    Ok(())
}
