//! `cargo xtask`: the project's automation, one binary.
//!
//! - `cargo xtask reproduce [--quick] [--paper P] [--check] [--threads N]` regenerates
//!   `docs/reproduction/<paper>/<table>.{md,csv}` and the table's figures
//!   `docs/reproduction/<paper>/<table>/<figure>.{svg,csv}` from the experiments of
//!   `fatnet-repro`; with `--check` it writes nothing and fails when a committed file differs
//!   from a fresh run. Experiments run concurrently, the longest first, each spreading its
//!   trials over rayon's global pool (`--threads`, all cores by default); a progress bar on stderr (drawn
//!   only on a terminal) names the running experiment, and stdout gets one line per finished
//!   experiment with its wall time.
//! - `cargo xtask tidy` checks the crate layering of `docs/architecture.md` with
//!   `cargo metadata` (a crate may depend only on crates above it), that the CLI, xtask and
//!   the wheel resolve the features `cargo test --workspace` does, so that they share its
//!   build (`features.rs`), that only the engines advance simulated time (`clock.rs`), and
//!   that rustdoc comments cite papers by authors and title, not by our file numbers, notes
//!   or issues (`citations.rs`).
//! - `cargo xtask guide [--release]` builds the CLI and runs every ```` ```sh ```` block of
//!   `docs/guide.md`, in order, in one fresh temporary directory (`guide.rs`).

use std::fs;
use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::sync::Mutex;
use std::time::{Duration, Instant};

mod citations;
mod clock;
mod features;
mod guide;

use anyhow::{Context, Result, bail};
use clap::{Parser, Subcommand};
use fatnet_repro::{Effort, Experiment, Paper, command_for, output_stem, select_only};
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;

#[derive(Debug, Parser)]
#[command(name = "cargo xtask", about = "fatnet project automation")]
struct Cli {
    #[command(subcommand)]
    command: Cmd,
}

#[derive(Debug, Subcommand)]
enum Cmd {
    /// Regenerate the papers' tables under docs/reproduction/.
    Reproduce {
        /// Reduced trials (CI). Deterministic tables are the same in both modes; stochastic
        /// ones are written under `docs/reproduction/<paper>/quick/`.
        #[arg(long)]
        quick: bool,
        /// Only this paper: leiserson, greenberg-leiserson, yuan, greenberg-oh, stamoulis,
        /// open-questions.
        #[arg(long)]
        paper: Option<Paper>,
        /// Only the experiment with this id (the file stem, e.g. `table1`; with --paper when
        /// two papers share it). The index is then left alone.
        #[arg(long, value_name = "ID")]
        only: Option<String>,
        /// Write nothing; fail if a committed table differs from a fresh run.
        #[arg(long)]
        check: bool,
        /// Worker threads for the trials (default: all cores). Results do not depend on it:
        /// every trial is seeded from (experiment seed, trial index), so any thread count
        /// writes the same files.
        #[arg(long, value_name = "N")]
        threads: Option<NonZeroUsize>,
    },
    /// Check the crate layering (a crate depends only on crates above it), that only the
    /// engines advance simulated time, and that doc comments cite no internal references.
    Tidy,
    /// Run every ```sh block of docs/guide.md, in order, in a fresh temporary directory with
    /// the workspace's `fatnet` on the PATH and the repository root in $FATNET_REPO.
    Guide {
        /// Build and run the release CLI instead of the dev one.
        #[arg(long)]
        release: bool,
    },
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives in the workspace root")
        .to_path_buf()
}

fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Cmd::Reproduce {
            quick,
            paper,
            only,
            check,
            threads,
        } => {
            // fatnet-repro's experiments run their trials in the current rayon pool, i.e. the
            // global one here, so sizing it sizes every experiment.
            if let Some(n) = threads {
                rayon::ThreadPoolBuilder::new()
                    .num_threads(n.get())
                    .build_global()
                    .context("cannot build the thread pool")?;
            }
            reproduce(
                if quick { Effort::Quick } else { Effort::Full },
                paper,
                only.as_deref(),
                check,
            )
        }
        Cmd::Tidy => tidy(),
        Cmd::Guide { release } => guide::run(&root(), release),
    }
}

fn reproduce(effort: Effort, paper: Option<Paper>, only: Option<&str>, check: bool) -> Result<()> {
    let start = Instant::now();
    let dir = root().join("docs/reproduction");
    let experiments = select_only(paper, only)?;
    // Drawn on stderr, and only when stderr is a terminal (indicatif hides it otherwise), so CI
    // logs get the plain stdout lines.
    let bar = ProgressBar::new(experiments.len() as u64);
    bar.set_style(
        ProgressStyle::with_template("[{elapsed_precise}] {bar:40} {pos}/{len}  {msg}")
            .expect("valid template"),
    );
    // Ticks keep the elapsed time moving during a long experiment.
    bar.enable_steady_tick(Duration::from_millis(250));
    let ran = run_experiments(&experiments, effort, check, &dir, &bar);
    bar.finish_and_clear();
    let Ran { mut stale, index } = ran?;
    println!(
        "reproduce: {} experiment(s) in {:.1} s on {} thread(s)",
        experiments.len(),
        start.elapsed().as_secs_f64(),
        rayon::current_num_threads()
    );
    // The index lists every full-run table, so only a full run of all papers writes (or
    // checks) it; a quick run leaves it alone.
    if paper.is_none() && only.is_none() && effort == Effort::Full {
        let content = format!(
            "# Reproduced tables\n\nGenerated by `cargo xtask reproduce`. Do not edit: regenerate.\n\n\
             Each table compares, cell by cell, the value printed in the paper with ours and gives a verdict; \
             suspected misprints of the papers are reported as mismatches, not corrected. \
             Verdicts follow one rule per kind of comparison (`crates/fatnet-repro/src/verdict.rs`): a measured value \
             is tested against its noise (two-sample when the paper's value is itself a simulation), then against a band, \
             with the test's power stated (\"not significant\" when the run cannot tell); a claim fails only on significant \
             evidence against it; an asymptotic claim is judged by its trend, never as a violated bound. \
             The `open-questions` rows explore questions the papers leave open.\n\n\
             | paper | table | title | verdicts |\n|---|---|---|---|\n{}\n",
            index.join("\n")
        );
        let path = dir.join("README.md");
        if check {
            if fs::read_to_string(&path).unwrap_or_default() != content {
                stale.push(path);
            }
        } else {
            write_atomically(&path, content.as_bytes())?;
        }
    }
    if check && !stale.is_empty() {
        for p in &stale {
            eprintln!("stale or missing: {}", p.display());
        }
        bail!(
            "{} generated file(s) differ from a fresh run; run `cargo xtask reproduce{}` and commit",
            stale.len(),
            if effort == Effort::Quick {
                " --quick"
            } else {
                ""
            }
        );
    }
    Ok(())
}

/// What [`run_experiments`] leaves for the end of the run.
#[derive(Debug)]
struct Ran {
    /// With `--check`, the outputs that differ from the committed files.
    stale: Vec<PathBuf>,
    /// One row of `docs/reproduction/README.md` per experiment, in order.
    index: Vec<String>,
}

/// Runs `experiments` concurrently (rayon: every experiment also runs its trials in the same
/// pool, so both cores stay busy through the small and serial experiments too), the
/// costliest first ([`fatnet_repro::Experiment::cost`]), and writes (or, with `check`, compares) their outputs under
/// `dir`, advancing `bar` after each and printing one line per experiment with its wall time,
/// in the order they finish. Outputs never depend on the schedule: every trial is seeded from
/// (experiment seed, trial index), and the index rows come back in `experiments` order.
fn run_experiments(
    experiments: &[Box<dyn Experiment>],
    effort: Effort,
    check: bool,
    dir: &Path,
    bar: &ProgressBar,
) -> Result<Ran> {
    let running: Mutex<Vec<String>> = Mutex::new(Vec::new());
    let show = |running: &[String]| bar.set_message(running.join(", "));
    // Costliest first; `par_bridge` hands the experiments to the threads in this order as
    // they become free (a slice's `par_iter` would split it in halves and start the second
    // half's first experiment, whatever its length, on the other thread). The sort is stable:
    // experiments of equal cost keep the report's order.
    let mut order: Vec<usize> = (0..experiments.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(experiments[i].cost()));
    let one = |i: usize| -> Result<(Vec<PathBuf>, String)> {
        let e: &dyn Experiment = experiments[i].as_ref();
        let name = format!("{}/{}", e.paper(), e.id());
        {
            let mut r = running.lock().expect("not poisoned");
            r.push(name.clone());
            show(&r);
        }
        let start = Instant::now();
        let outcome = run_one(e, effort, check, dir);
        {
            let mut r = running.lock().expect("not poisoned");
            r.retain(|n| *n != name);
            show(&r);
        }
        let (stale, stem, table) = outcome.with_context(|| name.clone())?;
        let seconds = start.elapsed().as_secs_f64();
        // With the bar lifted, so that the line does not land inside it on a terminal.
        bar.suspend(|| println!("{stem}: {} ({seconds:.1} s)", table.summary()));
        bar.inc(1);
        let row = format!(
            "| {} | [{}]({stem}.md) | {} | {} |",
            e.paper(),
            e.id(),
            table.title,
            table.summary()
        );
        Ok((stale, row))
    };
    let mut results: Vec<_> = order
        .into_iter()
        .par_bridge()
        .map(|i| (i, one(i)))
        .collect();
    results.sort_by_key(|&(i, _)| i);
    let mut stale = Vec::new();
    let mut index = Vec::new();
    for (_, r) in results {
        let (s, row) = r?;
        stale.extend(s);
        index.push(row);
    }
    Ok(Ran { stale, index })
}

/// Runs one experiment and writes (or compares) its table, CSV and figures; returns the stale
/// files, the output stem and the table.
fn run_one(
    e: &dyn Experiment,
    effort: Effort,
    check: bool,
    dir: &Path,
) -> Result<(Vec<PathBuf>, String, fatnet_repro::Table)> {
    let table = e.run(effort)?;
    let command = command_for(e, effort);
    let stem = output_stem(e, effort);
    let md = table.to_markdown(&command, e.seed());
    let csv = table.to_csv(&command, e.seed())?;
    let mut outputs = vec![(format!("{stem}.md"), md), (format!("{stem}.csv"), csv)];
    for f in e.figures(&table) {
        outputs.push((format!("{stem}/{}.svg", f.id), f.to_svg(&command, e.seed())));
        outputs.push((
            format!("{stem}/{}.csv", f.id),
            f.to_csv(&command, e.seed())?,
        ));
    }
    let mut stale = Vec::new();
    for (file, content) in outputs {
        let path = dir.join(file);
        if check {
            let committed = fs::read_to_string(&path).unwrap_or_default();
            if committed != content {
                stale.push(path);
            }
        } else {
            write_atomically(&path, content.as_bytes())?;
        }
    }
    Ok((stale, stem, table))
}

/// [`fatnet_repro::write_atomically`], creating the folder first (figures get one per table).
fn write_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = path.parent().context("output path has a parent")?;
    fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    Ok(fatnet_repro::write_atomically(path, bytes)?)
}

/// The layering, top to bottom: a crate may depend only on crates listed before it.
const LAYERS: &[&str] = &[
    "fatnet-workspace-hack",
    "fatnet-topology",
    "fatnet-traffic",
    "fatnet-load",
    "fatnet-queueing",
    "fatnet-offline",
    "fatnet-online",
    "fatnet-fabric",
    "fatnet-scenario",
    "fatnet",
    "fatnet-repro",
    "fatnet-cli",
    "fatnet-py",
    "xtask",
    "fatnet-benches",
];

/// Dependencies the layering would allow but the design forbids: the simulators take what
/// they need from the off-line schedulers as data (`PeriodicScheme::from_tree`), so that the
/// on-line crate stays usable without them.
const NEVER: &[(&str, &str)] = &[("fatnet-online", "fatnet-offline")];

/// The standard output of `cargo ARGS` run in `root`; an error with cargo's standard error
/// when it fails.
pub(crate) fn cargo_stdout(root: &Path, args: &[&str]) -> Result<Vec<u8>> {
    let out = Command::new(env!("CARGO"))
        .args(args)
        .current_dir(root)
        .output()
        .with_context(|| format!("cannot run cargo {}", args.join(" ")))?;
    if !out.status.success() {
        bail!(
            "cargo {} failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    Ok(out.stdout)
}

/// `cargo metadata` of the workspace's own packages.
pub(crate) fn workspace_metadata(root: &Path) -> Result<serde_json::Value> {
    let out = cargo_stdout(root, &["metadata", "--format-version", "1", "--no-deps"])?;
    Ok(serde_json::from_slice(&out)?)
}

fn tidy() -> Result<()> {
    let meta = workspace_metadata(&root())?;
    let packages = meta["packages"].as_array().context("no packages")?;
    let mut problems = Vec::new();
    for p in packages {
        let name = p["name"].as_str().unwrap_or_default();
        let Some(rank) = LAYERS.iter().position(|l| *l == name) else {
            problems.push(format!(
                "crate `{name}` is not in the layering of xtask/src/main.rs"
            ));
            continue;
        };
        for d in p["dependencies"].as_array().into_iter().flatten() {
            let dep = d["name"].as_str().unwrap_or_default();
            // dev-dependencies may reach anywhere below (tests use the facade).
            if d["kind"].as_str() == Some("dev") {
                continue;
            }
            if NEVER.contains(&(name, dep)) {
                problems.push(format!(
                    "`{name}` depends on `{dep}`, which the design forbids (xtask NEVER)"
                ));
            }
            if let Some(drank) = LAYERS.iter().position(|l| *l == dep)
                && drank >= rank
            {
                problems.push(format!(
                    "`{name}` depends on `{dep}`, which is not above it"
                ));
            }
        }
    }
    let layering = problems.len();
    if layering == 0 {
        println!("tidy: layering ok ({} crates)", packages.len());
    }
    let feature_problems = features::check(&root())?;
    if feature_problems.is_empty() {
        println!("tidy: features ok (the CLI, xtask and the wheel resolve the workspace's)");
    }
    let unified = feature_problems.len();
    problems.extend(feature_problems);
    let files = workspace_sources()?;
    let clock_problems = clock::check(
        &files,
        clock::ENGINES,
        clock::TO_BE_FOLDED,
        clock::NOT_SIMULATORS,
    );
    if clock_problems.is_empty() {
        println!(
            "tidy: time ok ({} files; {} engine files, {} loops to be folded, {} exempt)",
            files.len(),
            clock::ENGINES.len(),
            clock::TO_BE_FOLDED.len(),
            clock::NOT_SIMULATORS.len()
        );
    }
    let time = clock_problems.len();
    problems.extend(clock_problems);
    let citations = citations::check(&files);
    if citations.is_empty() {
        println!("tidy: citations ok ({} files)", files.len());
    }
    let cited = citations.len();
    problems.extend(citations);
    if problems.is_empty() {
        Ok(())
    } else {
        for p in &problems {
            eprintln!("{p}");
        }
        bail!(
            "{layering} layering problem(s), {unified} feature problem(s), {time} time problem(s), {cited} citation problem(s)"
        )
    }
}

/// Every `.rs` file under `crates/*/src`, as (path relative to the root with `/`, text),
/// sorted by path.
fn workspace_sources() -> Result<Vec<(String, String)>> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
        for entry in fs::read_dir(dir).with_context(|| format!("cannot list {}", dir.display()))? {
            let path = entry?.path();
            if path.is_dir() {
                walk(&path, out)?;
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
        Ok(())
    }
    let root = root();
    let mut paths = Vec::new();
    for krate in fs::read_dir(root.join("crates")).context("cannot list crates/")? {
        let src = krate?.path().join("src");
        if src.is_dir() {
            walk(&src, &mut paths)?;
        }
    }
    let mut files = Vec::with_capacity(paths.len());
    for path in paths {
        let text =
            fs::read_to_string(&path).with_context(|| format!("cannot read {}", path.display()))?;
        let rel = path.strip_prefix(&root).unwrap_or(&path);
        let rel: Vec<String> = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        files.push((rel.join("/"), text));
    }
    files.sort();
    Ok(files)
}
