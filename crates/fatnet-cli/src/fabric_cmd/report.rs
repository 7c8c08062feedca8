//! `fatnet fabric report`: the fabric as a picture. Reads the fabric, routes one traffic
//! through its tables, runs the analysis of `check`, and hands everything to the library's
//! renderer (`fatnet_fabric::report`): one self-contained HTML page, or with `--dot` a
//! Graphviz drawing ranked by levels. Nothing here draws or decides what the report holds:
//! this file parses the arguments into `ReportOptions`, calls `report::assemble` and writes
//! the document and the summary.

use std::fmt::Write as _;
use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use clap::Args;
use fatnet::fabric::report::{
    self as render, ReportFormat, ReportOptions, ReportSource, ReportSummary, ReportTraffic,
    assemble,
};
use fatnet::fabric::{FabricError, FabricTraffic};
use serde::Serialize;

use super::{FabricFileArgs, fabric_traffic, load, pretty_json};

/// The `--help` text after the options; `{AGGREGATE}` is the library's threshold.
pub(super) fn report_help() -> String {
    REPORT_HELP.replace("{AGGREGATE}", &render::AGGREGATE_CAS_ABOVE.to_string())
}

const REPORT_HELP: &str = "\
WHAT IS DRAWN:
  The fabric by levels (Fabric::levels: hop distance from the nearest CA of the CA order
  through switches; CAs at the bottom, switches above; nodes no CA reaches are counted, not
  drawn). Nodes within a level are ordered by the barycentre of their neighbours one level
  below (Sugiyama et al. 1981), the CAs in CA order. With more than {AGGREGATE} CAs, the CAs
  hanging off one switch are one mark with their count. Parallel links between two marks are one
  line; its colour is the largest load of its links in either direction for --traffic
  (routes per directed link through the forwarding tables, as `fatnet fabric load`), on
  ColorBrewer's YlOrRd scale up to the congestion, grey for no load; the worst-case link is
  outlined with dashes.

WHAT THE PAGE HOLDS (HTML):
  the fabric's counts and levels; the verdicts of `fatnet fabric check` (routes valid, Yuan's
  Lemma 1 with its witness, cyclic shifts); the picture; the worst-case permutation
  certificate (contention, link, the permutation's pairs by CA name, re-traced); histograms
  of hops per route (links crossed, CA links included), of directed links by load, and of
  links by worst-case contention. One file, inline CSS and SVG, no scripts, no external
  resources (its Content-Security-Policy forbids any fetch).

TRAFFIC:
  --traffic defaults to `permutation`: one uniform random permutation drawn from --seed (the
  worst-case permutation has its own section and loads only the pairs of its one link, so it
  would colour almost nothing). Without forwarding tables there are no routes: the picture is
  the structure only, grey.

OUTPUT:
  -o FILE writes the page (or the DOT text with --dot) through a temporary file and a rename
  (an existing non-regular file is refused) and prints a summary (--json: as JSON); without
  -o the document goes to standard output.

  fatnet fabric report is4_3l_1944n.ned --routes is4_3l_1944n.fdbs -o report.html
  fatnet fabric report out/ftree --format opensm --dot | dot -Tsvg > fabric.svg";

/// Arguments of `fatnet fabric report`.
#[derive(Args, Debug)]
pub(super) struct ReportArgs {
    #[command(flatten)]
    files: FabricFileArgs,
    /// The traffic colouring the links: a pattern or `file:PATH` (processors = the CAs, in CA
    /// order).
    #[arg(long, short, default_value_t = ReportOptions::default().traffic.to_string())]
    traffic: String,
    /// Seed of the random patterns.
    #[arg(long, default_value_t = ReportOptions::default().seed)]
    seed: u64,
    /// Random bisections of the effective-bisection-bandwidth histogram (`fatnet fabric ebb`,
    /// seeded by --seed); 0 leaves it out.
    #[arg(long, default_value_t = ReportOptions::default().bisections)]
    bisections: u32,
    /// Write Graphviz DOT (levels ranked with `rank=same`) instead of HTML.
    #[arg(long)]
    dot: bool,
    /// Write the document to FILE (through a temporary file and a rename) and print a summary.
    #[arg(long, short)]
    output: Option<PathBuf>,
    /// Print the summary as JSON (needs --output).
    #[arg(long)]
    json: bool,
}

/// The `--json` summary: where the document went, then the library's facts.
#[derive(Serialize)]
struct ReportJson<'a> {
    output: String,
    format: &'static str,
    bytes: usize,
    #[serde(flatten)]
    summary: &'a ReportSummary,
}

/// Runs `fatnet fabric report`; returns what goes to standard output.
pub(super) fn run(a: &ReportArgs) -> Result<String> {
    if a.json && a.output.is_none() {
        bail!("--json prints the summary of a written file: give --output FILE");
    }
    let spec = fabric_traffic(&a.traffic)?;
    let l = load(&a.files)?;
    let f = &l.fabric;
    let n = f.ca_order().len();
    let cannot = || fatnet::scenario::wording::cannot_make_traffic_on_cas(&spec, n);
    let traffic = match &spec {
        FabricTraffic::Pattern(p) => ReportTraffic::Pattern(p.clone()),
        // Files that name hosts are read here, and only when there are tables to route them.
        other => ReportTraffic::Pairs {
            name: other.shown_with_seed(a.seed),
            pairs: if f.has_lfts() {
                other.pairs(f, a.seed).with_context(cannot)?
            } else {
                Vec::new()
            },
        },
    };
    let options = ReportOptions {
        format: if a.dot {
            ReportFormat::Dot
        } else {
            ReportFormat::Html
        },
        traffic,
        seed: a.seed,
        bisections: a.bisections,
        source: Some(ReportSource::new(
            a.files.topology.display().to_string(),
            &l,
        )),
    };
    let assembled = match assemble(f, &options) {
        Err(e @ FabricError::Traffic(_)) => return Err(anyhow::Error::new(e).context(cannot())),
        r => r?,
    };
    let document = assembled.render()?;
    let Some(path) = &a.output else {
        return Ok(document);
    };
    crate::write_atomically(path, document.as_bytes())?;
    let j = ReportJson {
        output: path.display().to_string(),
        format: options.format.name(),
        bytes: document.len(),
        summary: &assembled.summary,
    };
    if a.json {
        return pretty_json(&j);
    }
    let sum = j.summary;
    let mut s = String::new();
    writeln!(
        s,
        "wrote {} ({}, {} bytes): {} switches, {} end nodes, {} links, {} levels",
        j.output,
        j.format,
        j.bytes,
        sum.switches,
        sum.end_nodes,
        sum.links,
        sum.levels.len()
    )?;
    for lv in &sum.levels {
        writeln!(
            s,
            "  level {}: {} CAs, {} switches",
            lv.level, lv.cas, lv.switches
        )?;
    }
    if sum.unreached_nodes > 0 {
        writeln!(s, "  not drawn (no level): {} nodes", sum.unreached_nodes)?;
    }
    match (&sum.traffic, sum.congestion) {
        (Some(t), Some(c)) => writeln!(s, "traffic {t}: congestion {c}")?,
        _ => writeln!(s, "no forwarding tables: structure only")?,
    }
    if let (Some(v), Some(nb), Some(w)) = (sum.routes_valid, sum.nonblocking, sum.worst_contention)
    {
        writeln!(
            s,
            "routes valid: {}, nonblocking (Lemma 1): {}, worst-case contention: {w}",
            yes(v),
            yes(nb)
        )?;
    }
    if let Some(free) = sum.credit_loop_free {
        writeln!(
            s,
            "credit loops (one VL): {}",
            if free { "none" } else { "yes" }
        )?;
    }
    if let (Some(m), Some(h)) = (sum.ebb_mean, sum.ebb_half_width) {
        writeln!(
            s,
            "effective bisection bandwidth: {m:.4} ± {h:.4} (95 %, {} bisections)",
            a.bisections
        )?;
    }
    Ok(s)
}

fn yes(b: bool) -> &'static str {
    if b { "yes" } else { "no" }
}
