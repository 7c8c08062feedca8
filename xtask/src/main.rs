//! `cargo xtask`: the project's automation, one binary.
//!
//! - `cargo xtask reproduce [--quick] [--paper P] [--check]` regenerates
//!   `docs/reproduction/<paper>/<table>.{md,csv}` from the experiments of `fatnet-repro`; with
//!   `--check` it writes nothing and fails when a committed file differs from a fresh run.
//! - `cargo xtask tidy` checks the crate layering of `docs/architecture.md` with
//!   `cargo metadata`: a crate may depend only on crates above it.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use anyhow::{Context, Result, bail};
use clap::{Parser, Subcommand};
use fatnet_repro::{Effort, Experiment, Paper, command_for, output_stem, select};

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
        /// ones are written under docs/reproduction/<paper>/quick/.
        #[arg(long)]
        quick: bool,
        /// Only this paper: leiserson, greenberg-leiserson, yuan, greenberg-oh, stamoulis.
        #[arg(long)]
        paper: Option<Paper>,
        /// Write nothing; fail if a committed table differs from a fresh run.
        #[arg(long)]
        check: bool,
    },
    /// Check the crate layering (a crate depends only on crates above it).
    Tidy,
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
            check,
        } => reproduce(
            if quick { Effort::Quick } else { Effort::Full },
            paper,
            check,
        ),
        Cmd::Tidy => tidy(),
    }
}

fn reproduce(effort: Effort, paper: Option<Paper>, check: bool) -> Result<()> {
    let dir = root().join("docs/reproduction");
    let experiments = select(paper);
    let mut stale = Vec::new();
    for e in &experiments {
        let e: &dyn Experiment = e.as_ref();
        let table = e
            .run(effort)
            .with_context(|| format!("{}/{}", e.paper(), e.id()))?;
        let command = command_for(e, effort);
        let stem = output_stem(e, effort);
        let md = table.to_markdown(&command, e.seed());
        let csv = table.to_csv(&command, e.seed())?;
        for (ext, content) in [("md", md), ("csv", csv)] {
            let path = dir.join(format!("{stem}.{ext}"));
            if check {
                let committed = fs::read_to_string(&path).unwrap_or_default();
                if committed != content {
                    stale.push(path);
                }
            } else {
                write_atomically(&path, content.as_bytes())?;
            }
        }
        println!("{stem}: {}", table.summary());
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

fn write_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = path.parent().context("output path has a parent")?;
    fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    tmp.write_all(bytes)?;
    tmp.persist(path)
        .with_context(|| format!("cannot write {}", path.display()))?;
    Ok(())
}

/// The layering, top to bottom: a crate may depend only on crates listed before it.
const LAYERS: &[&str] = &[
    "fatnet-topology",
    "fatnet-traffic",
    "fatnet-load",
    "fatnet-queueing",
    "fatnet-offline",
    "fatnet-online",
    "fatnet-fabric",
    "fatnet",
    "fatnet-repro",
    "fatnet-cli",
    "xtask",
    "fatnet-benches",
];

fn tidy() -> Result<()> {
    let out = Command::new(env!("CARGO"))
        .args(["metadata", "--format-version", "1", "--no-deps"])
        .current_dir(root())
        .output()
        .context("cannot run cargo metadata")?;
    if !out.status.success() {
        bail!(
            "cargo metadata failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout)?;
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
            if let Some(drank) = LAYERS.iter().position(|l| *l == dep)
                && drank >= rank
            {
                problems.push(format!(
                    "`{name}` depends on `{dep}`, which is not above it"
                ));
            }
        }
    }
    if problems.is_empty() {
        println!("tidy: layering ok ({} crates)", packages.len());
        Ok(())
    } else {
        for p in &problems {
            eprintln!("{p}");
        }
        bail!("{} layering problem(s)", problems.len())
    }
}
