//! `fatnet sweep`: parameter sweeps from a TOML file. `run` expands the file into
//! grid points × trials and appends one JSON line per finished trial to `DIR/results.jsonl`,
//! fsync'd in batches, resumable after any crash; under `mpirun` (the `mpi` feature) the ranks
//! share the trials and rank 0 writes. `summarize` writes means, confidence intervals and one
//! plot per swept parameter (or the x axis, series and log axes asked for: parsed here into
//! [`PlotOptions`], checked by the library). `check` validates a file and prints its grid.

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, Result};
use clap::{Args, Subcommand};
use fatnet_repro::sweep::SweepKind;
use fatnet_repro::sweep::{SweepOptions, SweepRun, SweepSpec, TaskRunner, run_sweep_with};
use fatnet_repro::sweep_summary::{Metric, PlotOptions, metrics, summarize_sweep};

#[cfg(feature = "mpi")]
mod mpi_ranks;

const SWEEP_HELP: &str = "\
THE SWEEP FILE (TOML):
  simulator = \"packet\"      Greenberg-Oh packet simulation (the options of `fatnet simulate`),
                            or simulator = \"route\" (`fatnet route`), or
                            simulator = \"dynamic\" (`fatnet simulate --arrivals`), or
                            scheduler = \"leiserson\" (`fatnet schedule`)
  trials = 10               trials per grid point
  seed = 7                  master seed

  [params]                  a scalar is fixed; a list is swept (cross product)
  topology = \"bft:n=64\"
  traffic = [\"permutation\", \"uniform:self=false\"]
  flow = [\"worm\", \"store\"]

  [zip]                     optional: lists of one length, varied together (one more dimension)
  flits = [8, 32]
  delay = [1, 4]

  Parameters (defaults as the command named): topology and traffic (required), and
    packet:    queueing (input|output), flow (worm|store|split), path (rp|gp|fp|dor),
               scan (rr|fo|ff|oldest|prio), priority_range, flits, queue (integer or
               \"unbounded\"), sink (queue|immediate), delay, max_steps
    route:     router (random|greedy|random-prime|constant-switch), policy (pessimistic|
               random|fixed|round-robin|wires), preset (practical|proved), k, max_cycles
    leiserson: algorithm (theorem1|corollary2), fictitious (lgn|depth)
    dynamic:   topology (hypercube:d=D|butterfly:d=D) and rate (required, a number; no
               traffic: Poisson arrivals with bit-flip probability p), p (default 0.5),
               arrivals (poisson|slotted), router (greedy|adaptive), broadcast
               (direct|indirect|nonidling|one-tree|periodic|periodic-nonidling), slots
               (10000), warmup (floor(slots/10)), batches (20): the options, defaults and
               refusals of `fatnet simulate --arrivals` (loads at or above the stability
               limit included); a task is that command's trial, byte for byte
  route and leiserson need a binary fat-tree (fattree:...). A random traffic pattern draws a
  fresh instance per trial. Every bad key or value is reported with its line before any work
  starts.

RESULTS (DIR):
  sweep.toml       a copy of the sweep file (resume refuses another one)
  sweep.lock       held while a process writes: a second run on DIR is refused, not interleaved
  results.jsonl    one JSON object per finished trial: task, point, trial, seed, params, result;
                   appended in batches, each flushed and fsync'd; a partial last line (a crash
                   mid-write) is discarded by --resume. Task k = point * trials + trial runs
                   with seed derive(derive(seed, point), trial): the same lines for any thread
                   count, any number of MPI ranks, and any interruption + --resume (in task
                   order when run in one go; `sort` them to compare otherwise).
  summary.md/.csv  written by `summarize`, with <metric>-vs-<parameter>.svg/.csv per swept
                   parameter (<metric>-vs-<x>-by-<series>.svg/.csv with --series)

PLOTS (`summarize`):
  fatnet sweep summarize DIR                       one plot per swept parameter, lines by the
                                                   other swept parameters, default metric
  fatnet sweep summarize DIR --metric mean_latency --x flits --series traffic --log-y
                                                   one plot: flits across, one line per traffic
                                                   value, logarithmic vertical axis
  A numeric parameter is drawn as lines; a categorical one (worm, store) as points with error
  bars, as its values have no order. Log axes are base 2 (ticks 2^k). Refused before anything
  is written: a metric of another kind of sweep, a parameter that is not swept, --x equal to
  --series, --log-x over a parameter with a non-numeric or non-positive value. A mean <= 0 on
  a --log-y axis is listed in the CSV and named in the plot's \"not drawn\" note.

THREE WAYS TO RUN:
  fatnet sweep run sweep.toml --out results/                 all cores of this machine
  fatnet sweep run sweep.toml --out results/ --threads 1     one core
  mpirun -np 4 fatnet sweep run sweep.toml --out results/    MPI ranks (build with
                                                             `--features mpi`); rank 0 writes";

/// Arguments of `fatnet sweep`.
#[derive(Args, Debug)]
#[command(after_help = SWEEP_HELP)]
pub struct SweepArgs {
    #[command(subcommand)]
    command: SweepCommand,
}

#[derive(Debug, Subcommand)]
enum SweepCommand {
    /// Run a sweep file into an output directory (resumable; under mpirun, across ranks).
    #[command(after_help = SWEEP_HELP)]
    Run(RunArgs),
    /// Validate a sweep file and print its grid, without running anything.
    #[command(after_help = SWEEP_HELP)]
    Check {
        /// The sweep file.
        file: PathBuf,
    },
    /// Means with 95% confidence intervals per grid point, and one SVG plot per swept
    /// parameter (or the one --x asks for), written into the results directory (read-only on
    /// the results).
    #[command(after_help = SWEEP_HELP)]
    Summarize(SummarizeArgs),
}

#[derive(Args, Debug)]
struct RunArgs {
    /// The sweep file.
    file: PathBuf,
    /// Output directory: `sweep.toml` and `results.jsonl` are written there (created if
    /// missing; refused if it already holds results, unless --resume).
    #[arg(long, short)]
    out: PathBuf,
    /// Continue an interrupted sweep: keep the finished trials, discard a partial last line,
    /// run only the missing trials.
    #[arg(long)]
    resume: bool,
    /// Worker threads per process (default: all cores). Never changes a result.
    #[arg(long)]
    threads: Option<usize>,
    /// Trials per batch: each batch is written and fsync'd before the next starts (default:
    /// 4 per worker thread, across all MPI ranks). At most one batch is lost to a crash.
    #[arg(long)]
    batch: Option<usize>,
    /// No progress bar and no final line.
    #[arg(long, short)]
    quiet: bool,
}

#[derive(Args, Debug)]
struct SummarizeArgs {
    /// The output directory of `fatnet sweep run`.
    dir: PathBuf,
    /// The metric plotted per swept parameter (the CSV has them all). Default: `latency`
    /// for the packet simulator, `cycles` for the routers and the scheduler, `delay` for the
    /// dynamic simulator.
    #[arg(long, long_help = metric_help())]
    metric: Option<String>,
    /// The swept parameter on the horizontal axis: one plot instead of one per swept parameter.
    #[arg(long, value_name = "PARAM")]
    x: Option<String>,
    /// The swept parameter whose values are the lines (`PARAM=value` first in each legend
    /// entry; other swept parameters still split lines). Default: one line per combination of
    /// the other swept parameters.
    #[arg(long, value_name = "PARAM")]
    series: Option<String>,
    /// Logarithmic horizontal axis, base 2 (ticks 2^k); every plotted parameter must be a
    /// positive number.
    #[arg(long)]
    log_x: bool,
    /// Logarithmic vertical axis, base 2 (ticks 2^k); means <= 0 are named, not drawn.
    #[arg(long)]
    log_y: bool,
}

impl SummarizeArgs {
    /// The plot options, as the library takes them (it checks them against the sweep).
    fn plot_options(&self) -> PlotOptions {
        PlotOptions {
            metric: self.metric.clone(),
            x: self.x.clone(),
            series: self.series.clone(),
            log_x: self.log_x,
            log_y: self.log_y,
        }
    }

    /// The command line that reproduces the plots, recorded in each figure.
    fn command(&self, metric: &str) -> String {
        let mut command = format!(
            "fatnet sweep summarize {} --metric {metric}",
            self.dir.display()
        );
        for (flag, value) in [("--x", &self.x), ("--series", &self.series)] {
            if let Some(v) = value {
                command.push_str(&format!(" {flag} {v}"));
            }
        }
        for (flag, on) in [("--log-x", self.log_x), ("--log-y", self.log_y)] {
            if on {
                command.push_str(&format!(" {flag}"));
            }
        }
        command
    }
}

/// `--metric`'s long help: every metric of every kind of sweep.
fn metric_help() -> String {
    let mut text = String::from(
        "The metric plotted per swept parameter (the CSV has them all); the first of each list is the default.",
    );
    for kind in SweepKind::ALL {
        text.push_str(&format!("\n\n{kind}:"));
        for m in metrics(kind) {
            text.push_str(&format!("\n  {:<20} {}", m.name, m.description));
        }
    }
    text
}

/// Runs `fatnet sweep`.
pub fn run(args: SweepArgs, out: &mut impl Write) -> Result<()> {
    match args.command {
        SweepCommand::Run(args) => run_cmd(&args, out),
        SweepCommand::Check { file } => {
            let spec = SweepSpec::from_file(&file)?;
            writeln!(
                out,
                "{}: {} points x {} trials = {} tasks, seed {}",
                file.display(),
                spec.points(),
                spec.trials(),
                spec.tasks(),
                spec.seed()
            )?;
            let swept = spec.swept();
            writeln!(
                out,
                "swept: {}",
                if swept.is_empty() {
                    "nothing".to_string()
                } else {
                    swept.join(", ")
                }
            )?;
            for point in 0..spec.points() {
                let params = spec.params(point).expect("point in range");
                let text: Vec<String> = params.iter().map(|(k, v)| format!("{k}={v}")).collect();
                writeln!(out, "  point {point}: {}", text.join(" "))?;
            }
            Ok(())
        }
        SweepCommand::Summarize(args) => {
            let summary = summarize_sweep(&args.dir)?;
            let options = args.plot_options();
            let metric = Metric::named(summary.kind, options.metric.as_deref())?;
            let written = summary.write(&args.dir, &options, &args.command(metric.name))?;
            writeln!(
                out,
                "{} of {} tasks finished, {} points, swept: {}",
                summary.finished,
                summary.tasks,
                summary.points.len(),
                if summary.swept.is_empty() {
                    "nothing".to_string()
                } else {
                    summary.swept.join(", ")
                }
            )?;
            for path in written {
                writeln!(out, "wrote {}", path.display())?;
            }
            Ok(())
        }
    }
}

/// The progress bar of a sweep (indicatif draws nothing when stderr is not a terminal).
fn progress_bar(quiet: bool) -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::new(0);
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "[{elapsed_precise}] {bar:40} {pos}/{len} trials, {per_sec}, {eta} left",
        )
        .expect("valid template"),
    );
    if quiet {
        bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    }
    bar
}

/// Runs the sweep with `runner`, showing progress; `workers` sizes the default batch.
fn drive(
    args: &RunArgs,
    spec: &SweepSpec,
    runner: &mut dyn TaskRunner,
    workers: usize,
    out: &mut impl Write,
) -> Result<()> {
    let options = SweepOptions {
        resume: args.resume,
        threads: args.threads,
        batch: args.batch.unwrap_or(4 * workers),
    };
    let bar = progress_bar(args.quiet);
    let start = Instant::now();
    let mut on_batch = |run: &SweepRun| {
        bar.set_length(run.total);
        bar.set_position(run.skipped + run.ran);
    };
    let result = run_sweep_with(spec, &args.out, &options, runner, &mut on_batch);
    bar.finish_and_clear();
    let run = result.with_context(|| format!("sweep {}", args.file.display()))?;
    if !args.quiet {
        writeln!(
            out,
            "{}: {} tasks, {} already done, {} run now in {:.1} s{} -> {}",
            args.file.display(),
            run.total,
            run.skipped,
            run.ran,
            start.elapsed().as_secs_f64(),
            if run.discarded_bytes > 0 {
                format!(
                    " (discarded a partial last line of {} bytes)",
                    run.discarded_bytes
                )
            } else {
                String::new()
            },
            args.out.join(fatnet_repro::sweep::RESULTS_FILE).display()
        )?;
    }
    Ok(())
}

#[cfg(not(feature = "mpi"))]
fn run_cmd(args: &RunArgs, out: &mut impl Write) -> Result<()> {
    if let Some(0) = args.threads {
        anyhow::bail!("--threads must be at least 1");
    }
    if let Some(0) = args.batch {
        anyhow::bail!("--batch must be at least 1");
    }
    // Launched by mpirun without MPI support, every rank would run the whole sweep.
    if let Some(size) = launcher_size().filter(|&n| n > 1) {
        anyhow::bail!(
            "launched as one of {size} MPI ranks, but this fatnet was built without MPI: \
             rebuild with `cargo build --release -p fatnet-cli --features mpi` \
             (needs libopenmpi-dev openmpi-bin libclang-dev), or run without mpirun"
        );
    }
    let spec = SweepSpec::from_file(&args.file)?;
    let mut runner = fatnet_repro::sweep::LocalTasks::new(args.threads);
    let workers = args.threads.unwrap_or_else(default_threads);
    drive(args, &spec, &mut runner, workers, out)
}

#[cfg(feature = "mpi")]
fn run_cmd(args: &RunArgs, out: &mut impl Write) -> Result<()> {
    if let Some(0) = args.threads {
        anyhow::bail!("--threads must be at least 1");
    }
    if let Some(0) = args.batch {
        anyhow::bail!("--batch must be at least 1");
    }
    mpi_ranks::run(args, out)
}

/// The number of ranks the MPI launcher says it started (Open MPI's `OMPI_COMM_WORLD_SIZE`,
/// MPICH's and Slurm's `PMI_SIZE`), if it did.
fn launcher_size() -> Option<u32> {
    ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE"]
        .iter()
        .find_map(|v| std::env::var(v).ok()?.parse::<u32>().ok())
}

/// Threads of rayon's default pool: one per core.
fn default_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}
