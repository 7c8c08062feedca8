//! What the fabric report shows: which sections, the wording of its verdicts, the binning of
//! its histograms and the summary facts, gathered in one place for every front end (`fatnet
//! fabric report`, the benches, the Python package).
//!
//! **Key design decision: assembly is separate from drawing, and is pure.** [`assemble`]
//! takes a [`Fabric`] and typed [`ReportOptions`] (the traffic already parsed into library
//! types, the seed, the bisections, the output format), runs the analyses the report holds
//! and returns an [`Assembled`]: the computed data, the [`Verdict`]s and [`Histogram`]s in
//! page order, and a [`ReportSummary`] of typed facts (the counts, the verdicts' outcomes,
//! the hop histogram, the effective bisection bandwidth). [`Assembled::render`] hands them to
//! [`Report::render`] (HTML) or [`super::dot`]. Nothing here prints or reads a file: a traffic
//! that names hosts in files is resolved by the caller ([`crate::FabricTraffic::pairs`]) and
//! handed over as [`ReportTraffic::Pairs`]; where the fabric came from is a
//! [`ReportSource`] the caller fills from its [`LoadedFabric`].

use std::borrow::Cow;
use std::fmt;

use serde::Serialize;

use fatnet_traffic::TrafficSpec;

use super::{Histogram, LinkLoads, Report, Verdict, VerdictStatus, count_levels, dot};
use crate::analysis::{Analysis, TrafficLoad, analyze, count_on_link};
use crate::credit::{CreditLoops, credit_loops};
use crate::ebb::{EbbConfig, effective_bisection_bandwidth};
use crate::error::FabricError;
use crate::fabric::Fabric;
use crate::files::{FabricFormat, LoadedFabric};
use crate::traffic::pattern_pairs;

/// Most bins of a histogram of values per link; wider ranges merge values.
pub const MAX_VALUE_BINS: u64 = 40;

/// The document [`Assembled::render`] makes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ReportFormat {
    /// One self-contained HTML page ([`Report::render`]) with every section.
    #[default]
    Html,
    /// The Graphviz drawing ([`super::dot`]): the picture and the traffic's loads only, so
    /// no analysis is run.
    Dot,
}

impl ReportFormat {
    /// The format's name (`html`, `dot`).
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            ReportFormat::Html => "html",
            ReportFormat::Dot => "dot",
        }
    }
}

/// The traffic that colours the links.
#[derive(Debug, Clone, PartialEq)]
pub enum ReportTraffic {
    /// A pattern over the CA order (processor `i` = the `i`-th CA), random ones drawn from
    /// [`ReportOptions::seed`]; shown as [`TrafficSpec::shown_with_seed`].
    Pattern(TrafficSpec),
    /// Pairs already resolved to CA-order positions (for example by
    /// [`crate::FabricTraffic::pairs`] from a host file), with the name the page shows.
    Pairs {
        /// The traffic's name as the user gave it.
        name: String,
        /// `(src, dst)` positions of [`Fabric::ca_order`].
        pairs: Vec<(u32, u32)>,
    },
}

impl fmt::Display for ReportTraffic {
    /// The pattern as written (`permutation`), or the given pairs' name.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReportTraffic::Pattern(p) => write!(f, "{p}"),
            ReportTraffic::Pairs { name, .. } => f.write_str(name),
        }
    }
}

impl Default for ReportTraffic {
    /// One uniform random permutation: the worst-case permutation has its own section and
    /// loads only the pairs of its one link, so it would colour almost nothing.
    fn default() -> Self {
        ReportTraffic::Pattern(TrafficSpec::Permutation)
    }
}

/// Where the fabric was read from: the first rows of the page's summary and its title.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReportSource {
    /// The topology file as the user named it.
    pub topology: String,
    /// The format read.
    pub format: FabricFormat,
    /// The forwarding-table file read, if any.
    pub routes: Option<String>,
    /// The CA-order file read, if any (`None`: node order).
    pub ca_order: Option<String>,
    /// Lines of no known shape over all files read.
    pub unrecognised: usize,
}

impl ReportSource {
    /// The source of `loaded`, whose topology file the user named `topology`.
    #[must_use]
    pub fn new(topology: impl Into<String>, loaded: &LoadedFabric) -> Self {
        Self {
            topology: topology.into(),
            format: loaded.format,
            routes: loaded.routes.clone(),
            ca_order: loaded.ca_order.clone(),
            unrecognised: loaded.unrecognised,
        }
    }
}

/// What to put in the report; [`Default`] is what `fatnet fabric report` does without
/// options.
#[derive(Debug, Clone, PartialEq)]
pub struct ReportOptions {
    /// HTML (every section) or DOT (the picture only). Default HTML.
    pub format: ReportFormat,
    /// The traffic colouring the links. Default: a random permutation.
    pub traffic: ReportTraffic,
    /// Seed of a random traffic and of the effective bisection bandwidth's draws. Default 1.
    pub seed: u64,
    /// Random bisections of the effective-bisection-bandwidth section; 0 leaves it out.
    /// Default [`EbbConfig::default`]'s (1,000).
    pub bisections: u32,
    /// Where the fabric came from (title and first summary rows); `None` leaves them out.
    pub source: Option<ReportSource>,
}

impl Default for ReportOptions {
    fn default() -> Self {
        Self {
            format: ReportFormat::default(),
            traffic: ReportTraffic::default(),
            seed: 1,
            bisections: EbbConfig::default().bisections,
            source: None,
        }
    }
}

/// Switches and CAs (routers counted as CAs) of one level of [`Fabric::levels`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct LevelCount {
    /// The level (0: the CAs).
    pub level: usize,
    /// Switches on the level.
    pub switches: usize,
    /// CAs (and routers) on the level.
    pub cas: usize,
}

/// The report's facts as data: what `fatnet fabric report` prints after writing the page
/// (its `--json` fields, in this order). A field is `None` when its section is not in the
/// report (no forwarding tables, DOT output, no bisections, or a measure that does not apply).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReportSummary {
    /// Switches of the fabric.
    pub switches: usize,
    /// End nodes (CAs).
    pub end_nodes: usize,
    /// Links (cables).
    pub links: usize,
    /// Per level, bottom up.
    pub levels: Vec<LevelCount>,
    /// Nodes no CA reaches: not drawn.
    pub unreached_nodes: usize,
    /// The traffic's name (with its seed when random); `None` without forwarding tables.
    pub traffic: Option<String>,
    /// The seed of the options.
    pub seed: u64,
    /// Most routes of the traffic on one directed link.
    pub congestion: Option<u32>,
    /// Whether every route between distinct CAs arrives.
    pub routes_valid: Option<bool>,
    /// Yuan's Lemma 1.
    pub nonblocking: Option<bool>,
    /// The exact worst-case permutation contention.
    pub worst_contention: Option<u32>,
    /// Routes per hop count, `[hops, routes]`, hop counts with no route left out.
    pub hop_histogram: Option<Vec<[u64; 2]>>,
    /// Mean effective bisection bandwidth over the options' bisections.
    pub ebb_mean: Option<f64>,
    /// Its 95 % half-width (NaN, shown as `null`, for one bisection).
    pub ebb_half_width: Option<f64>,
    /// Whether the channel dependency graph of the routes is acyclic (all routes on one VL).
    pub credit_loop_free: Option<bool>,
}

/// A report ready to render, with the data it was made from.
#[derive(Debug, Clone)]
pub struct Assembled<'a> {
    /// The fabric.
    pub fabric: &'a Fabric,
    /// The document [`Assembled::render`] makes.
    pub format: ReportFormat,
    /// The page title.
    pub title: String,
    /// Summary rows of the page before the fabric's counts (files, the traffic).
    pub facts: Vec<(String, String)>,
    /// The traffic's loads (`None` without forwarding tables).
    pub loads: Option<TrafficLoad>,
    /// The analysis of `fatnet fabric check` (`None` without tables, or for DOT).
    pub analysis: Option<Analysis>,
    /// The verdicts, in page order.
    pub verdicts: Vec<Verdict>,
    /// The histograms, in page order.
    pub histograms: Vec<Histogram>,
    /// The facts as data.
    pub summary: ReportSummary,
}

impl Assembled<'_> {
    /// The HTML page's inputs, borrowing from `self`.
    #[must_use]
    pub fn report(&self) -> Report<'_> {
        let mut r = Report::new(self.fabric);
        r.title.clone_from(&self.title);
        r.facts.clone_from(&self.facts);
        r.loads = self
            .loads
            .as_ref()
            .zip(self.summary.traffic.as_deref())
            .map(|(t, name)| LinkLoads {
                traffic: name,
                per_link: &t.per_link,
            });
        r.verdicts.clone_from(&self.verdicts);
        r.worst = self.analysis.as_ref().map(|a| &a.worst);
        r.histograms.clone_from(&self.histograms);
        r
    }

    /// The document in [`Assembled::format`]: the HTML page or the DOT drawing.
    ///
    /// # Errors
    /// As [`Report::render`] and [`super::dot`] (never for an [`Assembled`] made by
    /// [`assemble`], whose loads and certificate fit its fabric).
    pub fn render(&self) -> Result<String, FabricError> {
        match self.format {
            ReportFormat::Html => self.report().render(),
            ReportFormat::Dot => dot(
                self.fabric,
                self.loads.as_ref().map(|t| t.per_link.as_slice()),
            ),
        }
    }
}

/// Gathers the report of `fabric`: routes the traffic (with forwarding tables), and for HTML
/// runs the analysis of `fatnet fabric check` (routes, Lemma 1, worst case, cyclic shifts),
/// the credit loops on one virtual lane, the hop histogram and the effective bisection
/// bandwidth, and words them as verdicts and histograms. Without forwarding tables the report
/// is the structure only, with a verdict saying so.
///
/// # Errors
/// [`FabricError::Traffic`] when the pattern does not suit the number of CAs;
/// [`FabricError::CaOutOfRange`] for given pairs beyond the CA order; the errors of
/// [`Fabric::traffic_load`], [`analyze`], [`credit_loops`] and
/// [`effective_bisection_bandwidth`] (an odd CA count or a route that does not arrive is not
/// an error: the bisection section then says why it is not computed).
pub fn assemble<'a>(
    fabric: &'a Fabric,
    options: &ReportOptions,
) -> Result<Assembled<'a>, FabricError> {
    let f = fabric;
    let (traffic, loads) = if f.has_lfts() {
        let (name, pairs) = match &options.traffic {
            ReportTraffic::Pattern(p) => (
                p.shown_with_seed(options.seed),
                Cow::Owned(pattern_pairs(p, f, options.seed)?),
            ),
            ReportTraffic::Pairs { name, pairs } => (name.clone(), Cow::Borrowed(pairs)),
        };
        (Some(name), Some(f.traffic_load(&pairs, 0)?))
    } else {
        (None, None)
    };
    let levels = f.levels();
    let (level_counts, unreached) = count_levels(f, &levels);
    let mut a = Assembled {
        fabric: f,
        format: options.format,
        title: "Fabric report".to_owned(),
        facts: Vec::new(),
        loads,
        analysis: None,
        verdicts: Vec::new(),
        histograms: Vec::new(),
        summary: ReportSummary {
            switches: f.switches().count(),
            end_nodes: f.cas().count(),
            links: f.links().len(),
            levels: level_counts
                .iter()
                .enumerate()
                .map(|(level, &(switches, cas))| LevelCount {
                    level,
                    switches,
                    cas,
                })
                .collect(),
            unreached_nodes: unreached.0 + unreached.1 + unreached.2,
            traffic,
            seed: options.seed,
            congestion: None,
            routes_valid: None,
            nonblocking: None,
            worst_contention: None,
            hop_histogram: None,
            ebb_mean: None,
            ebb_half_width: None,
            credit_loop_free: None,
        },
    };
    a.summary.congestion = a.loads.as_ref().map(|t| t.congestion);
    if options.format == ReportFormat::Dot {
        return Ok(a);
    }
    if let Some(src) = &options.source {
        a.title = format!("Fabric report: {}", src.topology);
        a.facts.push(("topology".into(), src.topology.clone()));
        a.facts.push(("format".into(), src.format.name().into()));
        if let Some(routes) = &src.routes {
            a.facts
                .push(("forwarding tables file".into(), routes.clone()));
        }
        a.facts.push((
            "CA order".into(),
            src.ca_order.clone().unwrap_or_else(|| "node order".into()),
        ));
        if src.unrecognised > 0 {
            a.facts
                .push(("unrecognised lines".into(), src.unrecognised.to_string()));
        }
    }
    if let (Some(t), Some(name)) = (&a.loads, &a.summary.traffic) {
        a.facts.push(("traffic".into(), name.clone()));
        a.facts.push((
            "traffic routed".into(),
            format!(
                "{} messages, {} delivered, congestion {}, {} directed links used",
                t.messages, t.delivered, t.congestion, t.loaded_links
            ),
        ));
    }
    if !f.has_lfts() {
        a.verdicts.push(Verdict {
            title: "Routes".into(),
            status: VerdictStatus::Info,
            detail: vec![
                "No forwarding tables were given (--routes): structure only, no routes to judge."
                    .into(),
            ],
        });
        return Ok(a);
    }
    let an = analyze(f)?;
    check_verdicts(f, &an, &mut a.verdicts);
    let loops = credit_loops(f, None)?;
    a.summary.credit_loop_free = Some(loops.is_free());
    a.verdicts.push(credit_verdict(f, &loops));
    let hops = crate::counts::hop_histogram(f).counts;
    a.summary.hop_histogram = Some(
        hops.iter()
            .enumerate()
            .filter(|&(_, &c)| c > 0)
            .map(|(h, &c)| [h as u64, c])
            .collect(),
    );
    let first = hops.iter().position(|&c| c > 0).unwrap_or(0);
    a.histograms.push(Histogram {
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
    a.summary.routes_valid = Some(an.routes.summary().all_valid());
    a.summary.nonblocking = Some(an.lemma1.is_nonblocking());
    a.summary.worst_contention = Some(an.worst.contention);
    if let (Some(t), Some(name)) = (&a.loads, &a.summary.traffic) {
        a.histograms.push(Histogram {
            title: format!("Directed links by load of {name}"),
            x_label: "routes on the link".into(),
            y_label: "cabled directed links".into(),
            bins: value_bins(cabled(f, &t.per_link)),
        });
    }
    if options.bisections > 0 {
        ebb_section(f, options, an.worst.contention, &mut a)?;
    }
    a.histograms.push(Histogram {
        title: "Directed links by worst-case contention".into(),
        x_label: "most pairs of one permutation on the link".into(),
        y_label: "cabled directed links".into(),
        bins: value_bins(cabled(f, &an.worst.per_link)),
    });
    a.analysis = Some(an);
    Ok(a)
}

/// The values of the cabled output ports (ports with a peer), both ends of every link.
fn cabled(f: &Fabric, per_link: &[u32]) -> Vec<u32> {
    f.links()
        .iter()
        .flat_map(|l| [l.a, l.b])
        .filter_map(|e| per_link.get(f.port_id(e.node, e.port).0 as usize).copied())
        .collect()
}

/// Counts of each value `0..=max`, merged into at most [`MAX_VALUE_BINS`] equal ranges
/// (labels `7` or `8–9`).
fn value_bins(values: Vec<u32>) -> Vec<(String, u64)> {
    let max = values.iter().copied().max().unwrap_or(0);
    let width = (u64::from(max) + 1).div_ceil(MAX_VALUE_BINS).max(1);
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
/// the options' seed): a verdict line beside the exact worst case and the histogram of the
/// draws. A fabric the measure does not apply to (an odd CA count, a broken route) gets an
/// information line instead.
fn ebb_section(
    f: &Fabric,
    options: &ReportOptions,
    worst: u32,
    a: &mut Assembled<'_>,
) -> Result<(), FabricError> {
    let config = EbbConfig {
        bisections: options.bisections,
        seed: options.seed,
        ..EbbConfig::default()
    };
    let e = match effective_bisection_bandwidth(f, &config) {
        Ok(e) => e,
        // An odd CA count, or a route that does not arrive: the routes verdict says which.
        Err(err @ (FabricError::BisectionCas { .. } | FabricError::BadRoute { .. })) => {
            a.verdicts.push(Verdict {
                title: "Effective bisection bandwidth".into(),
                status: VerdictStatus::Info,
                detail: vec![format!("not computed: {err}")],
            });
            return Ok(());
        }
        Err(err) => return Err(err),
    };
    a.summary.ebb_mean = Some(e.mean);
    a.summary.ebb_half_width = Some(e.half_width);
    a.verdicts.push(Verdict {
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
    a.histograms.push(Histogram {
        title: format!(
            "Effective bisection bandwidth of {} random bisections",
            config.bisections
        ),
        x_label: "mean flow share (fraction of link bandwidth)".into(),
        y_label: "bisections".into(),
        bins: e
            .histogram
            .bins()
            .map(|(lo, hi, c)| (format!("{lo:.2}–{hi:.2}"), c))
            .collect(),
    });
    Ok(())
}

/// [`VerdictStatus::Pass`] when the property `holds`, else `otherwise` (a failure, or a
/// finding that is no failure).
fn pass_if(holds: bool, otherwise: VerdictStatus) -> VerdictStatus {
    if holds {
        VerdictStatus::Pass
    } else {
        otherwise
    }
}

/// The name of the `i`-th CA of the CA order.
fn ca_name(f: &Fabric, i: u32) -> String {
    f.node(f.ca_order()[i as usize]).name().to_owned()
}

/// The credit-loop verdict (`fatnet fabric credit-loops` without virtual lanes): the witness
/// loop's links, each with the route that makes the next link depend on it.
fn credit_verdict(f: &Fabric, c: &CreditLoops) -> Verdict {
    let mut detail = vec![c.one_lane_line(f)];
    if let Some(w) = &c.witness {
        let n = w.channels.len();
        for (k, (ch, &(s, d))) in w.channels.iter().zip(&w.routes).enumerate() {
            detail.push(format!(
                "{} → then {}: route {} → {}",
                f.link_label(ch.link),
                f.link_label(w.channels[(k + 1) % n].link),
                ca_name(f, s),
                ca_name(f, d)
            ));
        }
    }
    Verdict {
        title: "Credit loops (deadlock), all routes on one virtual lane".into(),
        status: pass_if(c.is_free(), VerdictStatus::Fail),
        detail,
    }
}

/// The verdicts of `fatnet fabric check`, in words, with names instead of positions.
fn check_verdicts(f: &Fabric, an: &Analysis, out: &mut Vec<Verdict>) {
    let ca = |i: u32| ca_name(f, i);
    let t = an.routes.summary();
    let mut detail = vec![format!(
        "{} routes traced (every ordered pair of distinct CAs), {} delivered, {} loop, {} \
         dead-end, {} reach the wrong node; at most {} hops.",
        t.routes, t.delivered, t.loops, t.dead_ends, t.wrong_target, t.max_hops
    )];
    for (src, dst, fault) in &t.examples {
        detail.push(format!(
            "{} -> {}: {}: {}",
            f.node(*src).name(),
            f.node(*dst).name(),
            fault.kind().name(),
            fault.describe(f)
        ));
    }
    out.push(Verdict {
        title: "Routes valid".into(),
        status: pass_if(t.all_valid(), VerdictStatus::Fail),
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
            status: pass_if(an.worst.contention <= 1, VerdictStatus::Info),
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
        status: pass_if(congested == 0, VerdictStatus::Info),
        detail,
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn value_bins_merge_into_at_most_forty_ranges() {
        // Values 0..=9: one bin per value, labelled by the value.
        let b = value_bins((0..10).collect());
        assert_eq!(b.len(), 10);
        assert_eq!(b[3], ("3".to_owned(), 1));
        // Values 0..=99: width 3, 34 bins, the last one cut at the maximum.
        let b = value_bins((0..100).collect());
        assert_eq!(b.len(), 34);
        assert_eq!(b[0], ("0–2".to_owned(), 3));
        assert_eq!(b[33], ("99".to_owned(), 1));
        assert_eq!(b.iter().map(|x| x.1).sum::<u64>(), 100);
        // No values: one empty bin at 0.
        assert_eq!(value_bins(Vec::new()), vec![("0".to_owned(), 0)]);
    }
}
