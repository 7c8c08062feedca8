//! `fatnet fabric report`: the fabric as a picture. Reads the fabric, routes one traffic
//! through its tables, runs the analysis of `check`, and hands everything to the library's
//! renderer (`fatnet_fabric::report`): one self-contained HTML page, or with `--dot` a
//! Graphviz drawing ranked by levels. Nothing here draws; this file only gathers.

use std::fmt::Write as _;
use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use clap::Args;
use fatnet::fabric::report::{
    self as render, Histogram, LinkLoads, Report, Verdict, VerdictStatus,
};
use fatnet::fabric::{
    CreditLoops, EbbConfig, Fabric, FabricError, FaultKind, analyze, count_on_link, credit_loops,
    effective_bisection_bandwidth, hop_histogram,
};
use serde::Serialize;

use super::{FabricFileArgs, fabric_traffic, fault_text, load, pretty_json};

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
    #[arg(long, short, default_value = "permutation")]
    traffic: String,
    /// Seed of the random patterns.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Random bisections of the effective-bisection-bandwidth histogram (`fatnet fabric ebb`,
    /// seeded by --seed); 0 leaves it out.
    #[arg(long, default_value_t = EbbConfig::default().bisections)]
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

#[derive(Serialize)]
struct LevelJson {
    level: usize,
    switches: usize,
    cas: usize,
}

#[derive(Serialize)]
struct ReportJson {
    output: String,
    format: &'static str,
    bytes: usize,
    switches: usize,
    end_nodes: usize,
    links: usize,
    levels: Vec<LevelJson>,
    unreached_nodes: usize,
    traffic: Option<String>,
    seed: u64,
    /// Most routes of the traffic on one directed link.
    congestion: Option<u32>,
    routes_valid: Option<bool>,
    nonblocking: Option<bool>,
    worst_contention: Option<u32>,
    /// Routes per hop count: `[hops, routes]`.
    hop_histogram: Option<Vec<[u64; 2]>>,
    /// Mean effective bisection bandwidth over `bisections` draws, and its 95 % half-width.
    ebb_mean: Option<f64>,
    ebb_half_width: Option<f64>,
    /// Whether the channel dependency graph of the routes is acyclic (all routes on one VL).
    credit_loop_free: Option<bool>,
}

/// Runs `fatnet fabric report`; returns what goes to standard output.
pub(super) fn run(a: &ReportArgs) -> Result<String> {
    if a.json && a.output.is_none() {
        bail!("--json prints the summary of a written file: give --output FILE");
    }
    let spec = fabric_traffic(&a.traffic)?;
    let l = load(&a.files)?;
    let f = &l.fabric;
    // The traffic's loads, when there are tables to route it.
    let traffic = spec.shown_with_seed(a.seed);
    let loads = if f.has_lfts() {
        let n = f.ca_order().len();
        let pairs = spec
            .pairs(f, a.seed)
            .with_context(|| format!("cannot make traffic `{spec}` on {n} CAs"))?;
        Some(f.traffic_load(&pairs, 0)?)
    } else {
        None
    };
    let per_link = loads.as_ref().map(|t| t.per_link.as_slice());
    let levels = f.levels();
    let mut j = ReportJson {
        output: a
            .output
            .as_ref()
            .map_or_else(String::new, |p| p.display().to_string()),
        format: if a.dot { "dot" } else { "html" },
        bytes: 0,
        switches: f.switches().count(),
        end_nodes: f.cas().count(),
        links: f.links().len(),
        levels: level_counts(f, &levels),
        unreached_nodes: levels.iter().filter(|l| l.is_none()).count(),
        traffic: loads.as_ref().map(|_| traffic.clone()),
        seed: a.seed,
        congestion: loads.as_ref().map(|t| t.congestion),
        routes_valid: None,
        nonblocking: None,
        worst_contention: None,
        hop_histogram: None,
        ebb_mean: None,
        ebb_half_width: None,
        credit_loop_free: None,
    };
    let document = if a.dot {
        render::dot(f, per_link)?
    } else {
        let mut r = Report::new(f);
        r.title = format!("Fabric report: {}", a.files.topology.display());
        r.facts
            .push(("topology".into(), a.files.topology.display().to_string()));
        r.facts.push(("format".into(), l.format.name().into()));
        if let Some(routes) = &l.routes {
            r.facts
                .push(("forwarding tables file".into(), routes.clone()));
        }
        r.facts.push((
            "CA order".into(),
            l.ca_order.clone().unwrap_or_else(|| "node order".into()),
        ));
        if l.unrecognised > 0 {
            r.facts
                .push(("unrecognised lines".into(), l.unrecognised.to_string()));
        }
        if let Some(t) = &loads {
            r.facts.push(("traffic".into(), traffic.clone()));
            r.facts.push((
                "traffic routed".into(),
                format!(
                    "{} messages, {} delivered, congestion {}, {} directed links used",
                    t.messages, t.delivered, t.congestion, t.loaded_links
                ),
            ));
            r.loads = Some(LinkLoads {
                traffic: &traffic,
                per_link: &t.per_link,
            });
        }
        let analysis = if f.has_lfts() {
            Some(analyze(f)?)
        } else {
            r.verdicts.push(Verdict {
                title: "Routes".into(),
                status: VerdictStatus::Info,
                detail: vec![
                    "No forwarding tables were given (--routes): structure only, no routes to judge."
                        .into(),
                ],
            });
            None
        };
        let hops;
        if let Some(an) = &analysis {
            verdicts(f, an, &mut r.verdicts);
            let loops = credit_loops(f, None)?;
            j.credit_loop_free = Some(loops.is_free());
            r.verdicts.push(credit_verdict(f, &loops));
            r.worst = Some(&an.worst);
            hops = hop_histogram(f).counts;
            j.hop_histogram = Some(
                hops.iter()
                    .enumerate()
                    .filter(|&(_, &c)| c > 0)
                    .map(|(h, &c)| [h as u64, c])
                    .collect(),
            );
            let first = hops.iter().position(|&c| c > 0).unwrap_or(0);
            r.histograms.push(Histogram {
                title: "Hops per route".into(),
                x_label: "links crossed (CA links included)".into(),
                y_label: "routes".into(),
                bins: hops
                    .iter()
                    .enumerate()
                    .skip(first)
                    .map(|(h, &c)| (h.to_string(), c))
                    .collect(),
            });
            j.routes_valid = Some(an.routes.summary().all_valid());
            j.nonblocking = Some(an.lemma1.is_nonblocking());
            j.worst_contention = Some(an.worst.contention);
            if let Some(t) = &loads {
                r.histograms.push(Histogram {
                    title: format!("Directed links by load of {traffic}"),
                    x_label: "routes on the link".into(),
                    y_label: "cabled directed links".into(),
                    bins: value_bins(cabled(f, &t.per_link)),
                });
            }
            if a.bisections > 0 {
                ebb_section(f, a, an.worst.contention, &mut r, &mut j)?;
            }
            r.histograms.push(Histogram {
                title: "Directed links by worst-case contention".into(),
                x_label: "most pairs of one permutation on the link".into(),
                y_label: "cabled directed links".into(),
                bins: value_bins(cabled(f, &an.worst.per_link)),
            });
        }
        r.render()?
    };
    j.bytes = document.len();
    let Some(path) = &a.output else {
        return Ok(document);
    };
    crate::write_atomically(path, document.as_bytes())?;
    if a.json {
        return pretty_json(&j);
    }
    let mut s = String::new();
    writeln!(
        s,
        "wrote {} ({}, {} bytes): {} switches, {} end nodes, {} links, {} levels",
        j.output,
        j.format,
        j.bytes,
        j.switches,
        j.end_nodes,
        j.links,
        j.levels.len()
    )?;
    for lv in &j.levels {
        writeln!(
            s,
            "  level {}: {} CAs, {} switches",
            lv.level, lv.cas, lv.switches
        )?;
    }
    if j.unreached_nodes > 0 {
        writeln!(s, "  not drawn (no level): {} nodes", j.unreached_nodes)?;
    }
    match (&j.traffic, j.congestion) {
        (Some(t), Some(c)) => writeln!(s, "traffic {t}: congestion {c}")?,
        _ => writeln!(s, "no forwarding tables: structure only")?,
    }
    if let (Some(v), Some(nb), Some(w)) = (j.routes_valid, j.nonblocking, j.worst_contention) {
        writeln!(
            s,
            "routes valid: {}, nonblocking (Lemma 1): {}, worst-case contention: {w}",
            yes(v),
            yes(nb)
        )?;
    }
    if let Some(free) = j.credit_loop_free {
        writeln!(
            s,
            "credit loops (one VL): {}",
            if free { "none" } else { "yes" }
        )?;
    }
    if let (Some(m), Some(h)) = (j.ebb_mean, j.ebb_half_width) {
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

fn level_counts(f: &Fabric, levels: &[Option<u32>]) -> Vec<LevelJson> {
    let depth = levels.iter().flatten().max().map_or(0, |&l| l as usize + 1);
    let mut out: Vec<LevelJson> = (0..depth)
        .map(|level| LevelJson {
            level,
            switches: 0,
            cas: 0,
        })
        .collect();
    for (node, l) in f.nodes().iter().zip(levels) {
        if let Some(l) = l {
            if node.kind() == fatnet::fabric::NodeKind::Switch {
                out[*l as usize].switches += 1;
            } else {
                out[*l as usize].cas += 1;
            }
        }
    }
    out
}

/// The values of the cabled output ports (ports with a peer).
fn cabled(f: &Fabric, per_link: &[u32]) -> Vec<u32> {
    f.links()
        .iter()
        .flat_map(|l| [l.a, l.b])
        .filter_map(|e| per_link.get(f.port_id(e.node, e.port).0 as usize).copied())
        .collect()
}

/// Counts of each value `0..=max`, merged into at most 40 equal ranges.
fn value_bins(values: Vec<u32>) -> Vec<(String, u64)> {
    let max = values.iter().copied().max().unwrap_or(0);
    let width = (u64::from(max) + 1).div_ceil(40).max(1);
    let bins = (u64::from(max) + 1).div_ceil(width) as usize;
    let mut count = vec![0u64; bins];
    for v in values {
        count[(u64::from(v) / width) as usize] += 1;
    }
    count
        .into_iter()
        .enumerate()
        .map(|(i, c)| {
            let lo = i as u64 * width;
            let hi = (lo + width - 1).min(u64::from(max));
            let label = if lo == hi {
                lo.to_string()
            } else {
                format!("{lo}–{hi}")
            };
            (label, c)
        })
        .collect()
}

/// The effective bisection bandwidth (`fatnet fabric ebb`'s definition and defaults, seeded by
/// `--seed`): a verdict line beside the exact worst case and the histogram of the draws. A
/// fabric the measure does not apply to (an odd CA count, a broken route) gets an information
/// line instead.
fn ebb_section(
    f: &Fabric,
    a: &ReportArgs,
    worst: u32,
    r: &mut Report<'_>,
    j: &mut ReportJson,
) -> Result<()> {
    let config = EbbConfig {
        bisections: a.bisections,
        seed: a.seed,
        ..EbbConfig::default()
    };
    let e = match effective_bisection_bandwidth(f, &config) {
        Ok(e) => e,
        // An odd CA count, or a route that does not arrive: the routes verdict says which.
        Err(err @ (FabricError::BisectionCas { .. } | FabricError::BadRoute { .. })) => {
            r.verdicts.push(Verdict {
                title: "Effective bisection bandwidth".into(),
                status: VerdictStatus::Info,
                detail: vec![format!("not computed: {err}")],
            });
            return Ok(());
        }
        Err(err) => return Err(err.into()),
    };
    j.ebb_mean = Some(e.mean);
    j.ebb_half_width = Some(e.half_width);
    r.verdicts.push(Verdict {
        title: "Effective bisection bandwidth".into(),
        status: VerdictStatus::Info,
        detail: vec![format!(
            "{:.4} ± {:.4} (95 %) of the link bandwidth over {} random bisections (ORCS: each \
             flow gets 1/k for the most flows k on one link of its route; both directions), \
             min {:.4}, max {:.4}; the exact worst-case permutation forces {} pairs on one \
             link, a share of 1/{}.",
            e.mean,
            e.half_width,
            config.bisections,
            e.min,
            e.max,
            worst,
            worst.max(1)
        )],
    });
    r.histograms.push(Histogram {
        title: format!(
            "Effective bisection bandwidth of {} random bisections",
            config.bisections
        ),
        x_label: "mean flow share (fraction of link bandwidth)".into(),
        y_label: "bisections".into(),
        bins: e
            .histogram
            .counts
            .iter()
            .enumerate()
            .map(|(i, &c)| {
                let (lo, hi) = e.histogram.bin_range(i);
                (format!("{lo:.2}–{hi:.2}"), c)
            })
            .collect(),
    });
    Ok(())
}

/// The credit-loop verdict (`fatnet fabric credit-loops` without virtual lanes): the witness
/// loop's links, each with the route that makes the next link depend on it.
fn credit_verdict(f: &Fabric, c: &CreditLoops) -> Verdict {
    let ca = |i: u32| f.node(f.ca_order()[i as usize]).name().to_owned();
    let mut detail = vec![super::credit::verdict_line(f, c)];
    if let Some(w) = &c.witness {
        let n = w.channels.len();
        for (k, (ch, &(s, d))) in w.channels.iter().zip(&w.routes).enumerate() {
            detail.push(format!(
                "{} → then {}: route {} → {}",
                f.link_label(ch.link),
                f.link_label(w.channels[(k + 1) % n].link),
                ca(s),
                ca(d)
            ));
        }
    }
    Verdict {
        title: "Credit loops (deadlock), all routes on one virtual lane".into(),
        status: if c.is_free() {
            VerdictStatus::Pass
        } else {
            VerdictStatus::Fail
        },
        detail,
    }
}

/// The verdicts of `fatnet fabric check`, in words, with names instead of positions.
fn verdicts(f: &Fabric, an: &fatnet::fabric::Analysis, out: &mut Vec<Verdict>) {
    let ca = |i: u32| f.node(f.ca_order()[i as usize]).name().to_owned();
    let t = an.routes.summary();
    let mut detail = vec![format!(
        "{} routes traced (every ordered pair of distinct CAs), {} delivered, {} loop, {} \
         dead-end, {} reach the wrong node; at most {} hops.",
        t.routes, t.delivered, t.loops, t.dead_ends, t.wrong_target, t.max_hops
    )];
    for (src, dst, fault) in &t.examples {
        let kind = match fault.kind() {
            FaultKind::Loop => "loop",
            FaultKind::DeadEnd => "dead end",
            FaultKind::WrongTarget => "wrong target",
        };
        detail.push(format!(
            "{} -> {}: {kind}: {}",
            f.node(*src).name(),
            f.node(*dst).name(),
            fault_text(f, *fault)
        ));
    }
    out.push(Verdict {
        title: "Routes valid".into(),
        status: if t.all_valid() {
            VerdictStatus::Pass
        } else {
            VerdictStatus::Fail
        },
        detail,
    });
    let lemma = match an.lemma1.witness {
        None => Verdict {
            title: "Nonblocking (Yuan's Lemma 1)".into(),
            status: VerdictStatus::Pass,
            detail: vec![
                "No directed link carries two routes with distinct sources and distinct \
                 destinations: every permutation is routed without two of its pairs on one link."
                    .into(),
            ],
        },
        Some(w) => Verdict {
            title: "Nonblocking (Yuan's Lemma 1)".into(),
            status: VerdictStatus::Fail,
            detail: vec![
                format!(
                    "{} directed links carry two routes with distinct sources and distinct \
                     destinations.",
                    an.lemma1.blocking_links.len()
                ),
                format!(
                    "Witness: {} -> {} and {} -> {} both cross {}.",
                    ca(w.pairs[0].0),
                    ca(w.pairs[0].1),
                    ca(w.pairs[1].0),
                    ca(w.pairs[1].1),
                    f.link_label(w.link)
                ),
            ],
        },
    };
    out.push(lemma);
    if let Some(link) = an.worst.link {
        let again = count_on_link(f, &an.worst.permutation, link);
        out.push(Verdict {
            title: "Worst-case permutation contention".into(),
            status: if an.worst.contention <= 1 {
                VerdictStatus::Pass
            } else {
                VerdictStatus::Info
            },
            detail: vec![format!(
                "{} pairs of one permutation on {}; re-traced through the tables: {again} of \
                 them cross it.",
                an.worst.contention,
                f.link_label(link)
            )],
        });
    }
    let congested = an.shifts.iter().filter(|x| x.congestion > 1).count();
    let worst_shift = an
        .shifts
        .iter()
        .max_by_key(|x| (x.congestion, std::cmp::Reverse(x.shift)));
    let mut detail = vec![format!(
        "{} of {} cyclic shifts i -> i+k mod N (CA order) are congestion-free.",
        an.shifts.len() - congested,
        an.shifts.len()
    )];
    if let Some(w) = worst_shift
        && w.congestion > 1
    {
        detail.push(format!(
            "Worst: k = {} puts {} routes on {}.",
            w.shift,
            w.congestion,
            w.link.map(|p| f.link_label(p)).unwrap_or_default()
        ));
    }
    out.push(Verdict {
        title: "Cyclic shifts".into(),
        status: if congested == 0 {
            VerdictStatus::Pass
        } else {
            VerdictStatus::Info
        },
        detail,
    });
}
