//! `fatnet schedule`: Leiserson's off-line schedules (Theorem 1, Corollary 2), verified; and
//! `fatnet schedule verify`: check a schedule a user wrote.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use clap::{Args, Subcommand};
use fatnet::offline::Violation;
use fatnet::offline::written::WrittenSchedule;
use fatnet::scenario::{ScheduleOptions, ScheduleScenario, ScheduleSummary};
use fatnet::topology::{Topology, TopologySpec};
use fatnet::traffic::TrafficSpec;
use serde::Serialize;

/// Arguments of `fatnet schedule`: a schedule to compute, or `verify` and a schedule to check.
#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct ScheduleArgs {
    #[command(subcommand)]
    action: Option<ScheduleAction>,
    /// A binary fat-tree, e.g. `fattree:n=1024,profile=universal,w=128`.
    #[arg(required = true)]
    spec: Option<TopologySpec>,
    /// The message set: a pattern or `file:PATH`.
    #[arg(long, short, required = true)]
    traffic: Option<TrafficSpec>,
    /// Seed of the random patterns (the seed of a sweep task's trial gives its message set).
    #[arg(long, default_value_t = fatnet::scenario::DEFAULT_SEED)]
    seed: u64,
    #[command(flatten)]
    options: ScheduleOptions,
    /// Print JSON (with the whole schedule) instead of a summary.
    #[arg(long)]
    json: bool,
    /// In text mode, also print every cycle's messages, `src->dst` (the JSON has the ids and
    /// the message set).
    #[arg(long)]
    cycles: bool,
}

#[derive(Debug, Subcommand)]
enum ScheduleAction {
    /// Check a schedule you wrote: exit status 0 valid, 1 invalid, 2 bad input.
    ///
    /// Checks a schedule file (yours, or one `fatnet schedule` wrote): every message delivered
    /// exactly once, no channel over its capacity in any cycle. Exit status 0 when the
    /// schedule is valid, 1 when it is not (a result, not an error: the first violation is
    /// printed), 2 on bad input.
    #[command(after_long_help = VERIFY_HELP)]
    Verify(VerifyArgs),
}

const VERIFY_HELP: &str = "\
SCHEDULE FILES (JSON if the first character other than white space is `{`, text otherwise;
a regular file of at most 1 GiB):
  JSON   what `fatnet schedule --json` writes: `schedule`, the cycles as lists of message ids,
         and `pairs`, the message set as [src, dst] by id; other fields are ignored. The file
         carries its message set: an id not in `pairs`, an id twice or an id in no cycle is
         a violation.
           {\"schedule\": [[0, 1], [2, 3]], \"pairs\": [[0, 2], [1, 3], [0, 3], [1, 2]]}
  text   the cycle lines `fatnet schedule --cycles` prints (`... --cycles | grep '^cycle '`):
         one cycle per line, `src->dst` pairs separated by spaces, optionally after `cycle N:`
         (N counts from 0; an empty cycle is `cycle N:`); `#` starts a comment; blank lines
         are ignored. A text file has no message set: it is checked against --traffic, or,
         without it, against the pairs it lists.
           cycle 0: 0->2 1->3
           cycle 1: 0->3 1->2
Messages follow the topology's standard paths (unique on the binary fat-tree). With
--traffic, the k-th occurrence of a pair in the file is the k-th message with that pair.

EXIT STATUS:
  0  the schedule is valid
  1  the schedule is invalid: the first violation is printed (a cycle and a channel with its
     load and capacity, a message not delivered, delivered twice, or not in the set)
  2  bad input: an unreadable or malformed file (the error names the line), a bad spec";

/// Arguments of `fatnet schedule verify`.
#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// The schedule file: JSON (`fatnet schedule --json`) or text (`cycle N: src->dst ...`
    /// lines); see --help.
    file: PathBuf,
    /// The network, e.g. `fattree:n=1024,profile=universal,w=128`.
    #[arg(long)]
    topology: TopologySpec,
    /// The message set the schedule must deliver (a pattern or `file:PATH`); without it, the
    /// file's own (JSON `pairs`) or the pairs a text file lists.
    #[arg(long, short)]
    traffic: Option<TrafficSpec>,
    /// Seed of the random patterns of --traffic.
    #[arg(long, default_value_t = fatnet::scenario::DEFAULT_SEED)]
    seed: u64,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

/// Runs `fatnet schedule` (status 0), or `fatnet schedule verify` (status 0 when the
/// schedule is valid, 1 when it is not).
pub fn run(args: ScheduleArgs, out: &mut impl Write) -> Result<ExitCode> {
    if let Some(ScheduleAction::Verify(v)) = args.action {
        return verify(v, out);
    }
    let (Some(topology), Some(traffic)) = (args.spec, args.traffic) else {
        bail!("fatnet schedule needs a topology and --traffic");
    };
    let traffic_shown = traffic.shown_with_seed(args.seed);
    let scenario = ScheduleScenario {
        topology,
        traffic,
        options: args.options,
    };
    let prepared = scenario.prepare(args.seed)?;
    let o = ScheduleSummary::run(&prepared, args.seed)?;
    if args.json {
        serde_json::to_writer_pretty(&mut *out, &o)?;
        writeln!(out)?;
    } else {
        let t = &o.trial;
        writeln!(out, "topology        {}", o.topology)?;
        writeln!(out, "traffic         {traffic_shown}")?;
        match o.fictitious {
            Some(f) => writeln!(out, "algorithm       {} (fictitious {f})", o.algorithm)?,
            None => writeln!(out, "algorithm       {}", o.algorithm)?,
        }
        writeln!(out, "messages        {}", t.messages)?;
        writeln!(
            out,
            "load factor     {:.6} = {}/{}  (lower bound {} cycles)",
            t.load_factor, o.load_factor_exact[0], o.load_factor_exact[1], t.lower_bound
        )?;
        if let (Some(lf), Some(a)) = (o.fictitious_load_factor, o.capacity_ratio) {
            writeln!(
                out,
                "fictitious λ'   {lf:.6}  (a = min cap / lg n = {a:.3})"
            )?;
        }
        writeln!(
            out,
            "cycles          {}  (guaranteed ≤ {}; {:.3} × λ)",
            t.cycles,
            t.bound,
            t.cycles as f64 / t.load_factor.max(f64::MIN_POSITIVE)
        )?;
        if !o.cycles_per_level.is_empty() {
            writeln!(out, "per LCA depth   {:?}", o.cycles_per_level)?;
        }
        writeln!(
            out,
            "verified        {}",
            if t.verified {
                "yes: every message once, no channel over capacity in any cycle"
            } else {
                "NO"
            }
        )?;
        if args.cycles {
            for (i, c) in o.schedule.iter().enumerate() {
                let pairs: Vec<String> = c
                    .iter()
                    .map(|&id| {
                        let [src, dst] = o.pairs[id as usize];
                        format!("{src}->{dst}")
                    })
                    .collect();
                writeln!(out, "cycle {i}: {}", pairs.join(" "))?;
            }
        }
    }
    if !o.trial.verified {
        bail!("internal error: the schedule does not verify");
    }
    Ok(ExitCode::SUCCESS)
}

/// The report of `fatnet schedule verify`.
#[derive(Debug, Serialize)]
struct VerifyReport {
    topology: String,
    file: String,
    /// The message set checked against: the traffic spec, or `null` for the file's own.
    traffic: Option<String>,
    seed: Option<u64>,
    valid: bool,
    messages: u64,
    cycles: u64,
    /// λ(M) over channel bundles, and as `[load, capacity]`.
    load_factor: f64,
    load_factor_exact: [u64; 2],
    /// `⌈λ(M)⌉`: no schedule of the set has fewer cycles.
    lower_bound: u64,
    /// The first violation, typed (`kind` and its fields), and in words.
    violation: Option<Violation>,
    problem: Option<String>,
}

fn verify(args: VerifyArgs, out: &mut impl Write) -> Result<ExitCode> {
    let topo = args
        .topology
        .build()
        .with_context(|| fatnet::scenario::wording::cannot_build(&args.topology))?;
    let n = topo.num_processors();
    let set = match &args.traffic {
        Some(t) => Some(
            t.generate(n, args.seed)
                .with_context(|| fatnet::scenario::wording::cannot_make_traffic(&t))?,
        ),
        None => None,
    };
    let bytes = fatnet::traffic::io::read_bounded(&args.file, fatnet::traffic::io::MAX_FILE_BYTES)
        .with_context(|| format!("cannot read schedule {}", args.file.display()))?;
    let written = WrittenSchedule::parse(&bytes, n)
        .with_context(|| format!("cannot read schedule {}", args.file.display()))?;
    written
        .check_made_for(&args.topology)
        .with_context(|| format!("schedule {}", args.file.display()))?;
    let verdict = written.check(&topo, set.as_ref())?;
    let lf = verdict.load_factor;
    let report = VerifyReport {
        topology: args.topology.to_string(),
        file: args.file.display().to_string(),
        traffic: args.traffic.as_ref().map(ToString::to_string),
        seed: args.traffic.as_ref().map(|_| args.seed),
        valid: verdict.is_valid(),
        messages: verdict.messages.len() as u64,
        cycles: verdict.cycles as u64,
        load_factor: lf.value(),
        load_factor_exact: [lf.load, lf.capacity],
        lower_bound: lf.ceil(),
        problem: verdict
            .violation
            .as_ref()
            .map(|v| v.describe(&topo, &verdict.messages)),
        violation: verdict.violation,
    };
    if args.json {
        serde_json::to_writer_pretty(&mut *out, &report)?;
        writeln!(out)?;
    } else {
        writeln!(out, "topology        {}", report.topology)?;
        match (&report.traffic, report.seed) {
            (Some(t), Some(seed)) => writeln!(
                out,
                "messages        {} (--traffic {t}, seed {seed})",
                report.messages
            )?,
            _ => writeln!(out, "messages        {} (from the file)", report.messages)?,
        }
        writeln!(
            out,
            "load factor     {:.6} = {}/{}  (λ(M) over channel bundles: no schedule has fewer \
             than {} cycles)",
            report.load_factor,
            report.load_factor_exact[0],
            report.load_factor_exact[1],
            report.lower_bound
        )?;
        writeln!(
            out,
            "cycles          {}  (lower bound {})",
            report.cycles, report.lower_bound
        )?;
        match &report.problem {
            None => writeln!(
                out,
                "valid           yes: every message once, no channel over capacity in any cycle"
            )?,
            Some(p) => writeln!(out, "valid           NO: {p}")?,
        }
    }
    Ok(if report.valid {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
