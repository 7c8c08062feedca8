//! `fatnet fabric failures`: remove named or random links/switches, re-route or not, and
//! report every metric before and after as distributions over seeded draws
//! (`fatnet_fabric::failures`).

use std::fmt::Write as _;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

use anyhow::Result;
use clap::{ArgGroup, Args};
use fatnet::fabric::export::fabric_net;
use fatnet::fabric::failures::{self, Distribution, FailureOptions, FailureSpec, Reroute};
use fatnet::fabric::routing::adopt_tables;
use fatnet::fabric::{Fabric, FabricError, FabricFiles, FabricFormat};
use serde::Serialize;

use super::{FabricFileArgs, load, pretty_json};

pub(super) const FAILURES_HELP: &str = "\
WHAT IS REMOVED:
  --links K        K random links per draw, among the switch-to-switch links (--ca-links:
                   among all links; a CA's own link only loses that CA)
  --switches K     K random switches per draw (a leaf switch takes its CAs with it)
  --remove NAME..  these, once: a link by one end `NAME[port]` (as `fabric check` prints
                   links) or its full label `NAME[port] -> NAME[port]`; a switch by name or
                   node GUID (0x...)
  Draw i removes a uniform K-subset with Pcg64 seeded by derive_seed(SEED, i): the same seed
  gives the same draws on any number of threads. Nodes, ports, LIDs and the other switches'
  tables are kept: the tables now point into missing cables (\"before\": what breaks if the
  subnet manager does nothing).

RE-ROUTING (--reroute):
  none     keep the old tables (only \"before\" is reported)
  minhop   fresh tables as OpenSM's minhop computes them: per destination, the least-loaded
           of the least-hop ports, lowest port on ties, destinations in OpenSM's order
  updn     the same over up*/down* hop counts (ranks from OpenSM's automatic roots, else the
           top level)
  Both reproduce OpenSM 3.3.23's tables entry for entry on the committed fixtures.

METRICS (per draw, before and after; then mean ± 95% half-width, min, max, histogram):
  disconnected      ordered CA pairs with no path left in the graph (lost whatever routes)
  unrouted          pairs with a path that the tables do not deliver (lost to the routing)
  delivered, loops, routes_valid (unrouted == 0), max_hops, mean_hops
  worst_contention  exact worst-case permutation contention (max matching per link)
  nonblocking, blocking_links   Yuan's Lemma 1
  max_shift_congestion, congestion_free_shifts   every cyclic shift i -> i+k (CA order)
  credit_loop_free  no cycle in the channel dependency graph of the routes, all on one VL
                    (`fabric credit-loops`)
  ebb               mean effective bisection bandwidth over the same 100 bisections of seed 1
                    (`fabric ebb`); n/a when some route does not arrive
  The tools followed: the fail-in-place toolchain (Domke, Hoefler, Matsuoka, SC14: OpenSM
  under ibsim re-routes after failures; disconnected vs. not routed) and INRFlow's random
  link/switch failures.

  Work (draws x analyses x CA pairs x longest route) above 5e10 route hops is refused
  before the first draw.";

/// Arguments of `fatnet fabric failures`.
#[derive(Args, Debug)]
#[command(group(ArgGroup::new("what").required(true).args(["links", "switches", "remove"])))]
pub(super) struct FailuresArgs {
    #[command(flatten)]
    files: FabricFileArgs,
    /// Remove K random links per draw (switch-to-switch unless --ca-links).
    #[arg(long, value_name = "K")]
    links: Option<u32>,
    /// Remove K random switches per draw.
    #[arg(long, value_name = "K")]
    switches: Option<u32>,
    /// Remove these links (`NAME[port]`) and switches (name or GUID), once.
    #[arg(long, value_name = "NAME", num_args = 1..)]
    remove: Vec<String>,
    /// With --links: CA links are candidates too.
    #[arg(long, requires = "links")]
    ca_links: bool,
    /// Draws (random removals).
    #[arg(long, default_value_t = FailureOptions::DEFAULT_DRAWS)]
    draws: u32,
    /// Master seed of the draws.
    #[arg(long, default_value_t = fatnet::scenario::DEFAULT_SEED)]
    seed: u64,
    /// Re-routing after the failure: none, minhop, updn, or opensm:ENGINE (a real OpenSM
    /// under ibsim, through --opensm-script).
    #[arg(long, default_value_t = Reroute::default())]
    reroute: Reroute,
    /// The OpenSM-in-the-loop script (runs ibsim + `opensm -o -R ENGINE` on a net file and
    /// collects the dumps) used by --reroute opensm:ENGINE.
    #[arg(long, value_name = "PATH", default_value = "scripts/opensm-loop.sh")]
    opensm_script: PathBuf,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

impl FailuresArgs {
    fn options(&self) -> FailureOptions {
        let failures = match (self.links, self.switches) {
            (Some(count), _) => FailureSpec::Links {
                count,
                ca_links: self.ca_links,
            },
            (None, Some(count)) => FailureSpec::Switches { count },
            (None, None) => FailureSpec::Named(self.remove.clone()),
        };
        FailureOptions {
            failures,
            draws: self.draws,
            seed: self.seed,
            reroute: self.reroute.clone(),
        }
    }
}

#[derive(Serialize)]
struct FailuresJson<'a> {
    topology: String,
    ca_order: Option<String>,
    #[serde(flatten)]
    report: &'a failures::FailureReport,
}

/// An integer as an integer, a metric that does not apply (NaN) as `n/a`, anything else with
/// 3 decimals.
fn num(x: f64) -> String {
    if x.is_nan() {
        "n/a".into()
    } else if x.fract() == 0.0 {
        format!("{x:.0}")
    } else {
        format!("{x:.3}")
    }
}

fn stat(d: &Distribution) -> String {
    if d.n == 0 {
        return "n/a (no draw it applies to)".into();
    }
    if d.n == 1 {
        return num(d.mean);
    }
    format!(
        "{:.3} ± {:.3} [{}, {}]",
        d.mean,
        d.half_width,
        num(d.min),
        num(d.max)
    )
}

fn histogram(d: &Distribution) -> String {
    d.histogram
        .iter()
        .map(|b| {
            if b.lo == b.hi {
                // Distinct values: enough digits to tell them apart.
                let v = if b.lo.fract() == 0.0 {
                    num(b.lo)
                } else {
                    format!("{:.6}", b.lo)
                };
                format!("{v}:{}", b.count)
            } else {
                format!("{}..{}:{}", num(b.lo), num(b.hi), b.count)
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Runs `fatnet fabric failures`.
pub(super) fn failures(args: &FailuresArgs) -> Result<String> {
    let l = load(&args.files)?;
    let f = &l.fabric;
    let options = args.options();
    // One OpenSM at a time: each run starts its own ibsim.
    let lock = Mutex::new(0u64);
    let external = |damaged: &Fabric, engine: &str| {
        let mut n = lock
            .lock()
            .map_err(|_| external_error(engine, "an earlier run panicked".into()))?;
        *n += 1;
        opensm_route(&args.opensm_script, damaged, engine, *n)
    };
    let report = failures::run_with(f, &options, &external)?;
    if args.json {
        let j = FailuresJson {
            topology: args.files.topology.display().to_string(),
            ca_order: l.ca_order.clone(),
            report: &report,
        };
        return pretty_json(&j);
    }
    let mut s = String::new();
    writeln!(
        s,
        "fabric {}: {} switches, {} CAs, {} links; CA order {}",
        args.files.topology.display(),
        f.switches().count(),
        f.cas().count(),
        f.links().len(),
        l.ca_order.as_deref().unwrap_or("node order")
    )?;
    if !f.has_lfts() {
        writeln!(
            s,
            "note: no forwarding tables given: \"before\" routes nothing (pass --routes)"
        )?;
    }
    let what = match &options.failures {
        FailureSpec::Links { count, ca_links } => format!(
            "{count} random {} per draw, {} draws, seed {}",
            if *ca_links {
                "links"
            } else {
                "switch-to-switch links"
            },
            report.draws.len(),
            options.seed
        ),
        FailureSpec::Switches { count } => format!(
            "{count} random switches per draw, {} draws, seed {}",
            report.draws.len(),
            options.seed
        ),
        FailureSpec::Named(_) => format!("removed: {}", report.draws[0].removed.join(", ")),
    };
    writeln!(s, "{what}; re-routing: {}", options.reroute)?;
    let base = report.baseline.values();
    writeln!(
        s,
        "{:<24} {:>10}  {:<36} re-routed",
        "metric", "intact", "old tables"
    )?;
    for (k, (name, v)) in base.iter().enumerate() {
        let before = &report.before[k];
        let after = report.after.get(k).map(stat).unwrap_or_default();
        writeln!(
            s,
            "{name:<24} {:>10}  {:<36} {after}",
            num(*v),
            stat(before)
        )?;
    }
    if report.draws.len() > 1 {
        writeln!(s, "histograms (value:draws):")?;
        for (k, (name, _)) in base.iter().enumerate() {
            if report.before[k].min != report.before[k].max {
                writeln!(s, "  {name} old tables: {}", histogram(&report.before[k]))?;
            }
            if let Some(a) = report.after.get(k).filter(|a| a.min != a.max) {
                writeln!(s, "  {name} re-routed: {}", histogram(a))?;
            }
        }
    }
    Ok(s)
}

fn external_error(engine: &str, reason: String) -> FabricError {
    FabricError::ExternalRouting {
        engine: engine.to_owned(),
        reason,
    }
}

/// Routes `damaged` with a real OpenSM: writes its net file, runs `script NET OUT ENGINE`
/// (`scripts/opensm-loop.sh`: ibsim + `opensm -o -R ENGINE`, dumps in `OUT/ENGINE`), reads
/// the dumps back and puts OpenSM's tables onto `damaged` by GUID.
fn opensm_route(
    script: &Path,
    damaged: &Fabric,
    engine: &str,
    run: u64,
) -> Result<Fabric, FabricError> {
    let fail = |reason: String| external_error(engine, reason);
    if !script.is_file() {
        return Err(fail(format!(
            "no script {} (pass --opensm-script scripts/opensm-loop.sh)",
            script.display()
        )));
    }
    let dir = std::env::temp_dir().join(format!("fatnet-failures-{}-{run}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|e| fail(format!("{}: {e}", dir.display())))?;
    let result = (|| {
        let net = dir.join("fabric.net");
        std::fs::write(&net, fabric_net(damaged)?)
            .map_err(|e| fail(format!("{}: {e}", net.display())))?;
        let out = dir.join("dumps");
        let o = Command::new(script)
            .arg(&net)
            .arg(&out)
            .arg(engine)
            .output()
            .map_err(|e| fail(format!("cannot run {}: {e}", script.display())))?;
        if !o.status.success() {
            let err = String::from_utf8_lossy(&o.stderr);
            let first = err.lines().next().unwrap_or("").trim().to_owned();
            return Err(fail(format!(
                "{} exited with {}: {first}",
                script.display(),
                o.status
            )));
        }
        let routed = FabricFiles {
            fabric: out.join(engine),
            routes: None,
            ca_order: None,
            format: FabricFormat::Opensm,
        }
        .load()?;
        adopt_tables(damaged, &routed.fabric)
    })();
    let _ = std::fs::remove_dir_all(&dir);
    result
}
