//! The fabric as a picture: one self-contained HTML report (inline CSS and SVG) and a Graphviz
//! DOT drawing, both by levels.
//!
//! **Key design decision: the report renders what it is given, nothing more.** [`Report`] is a
//! plain struct with public fields: the [`Fabric`], optional per-directed-link [`LinkLoads`]
//! (as [`Fabric::traffic_load`] returns them in `TrafficLoad::per_link`), any number of
//! [`Histogram`]s (hop counts, effective bisection bandwidth, ...), any number of
//! [`Verdict`]s (Lemma 1, credit loops, ...) and the worst-case certificate
//! ([`WorstCase`]). [`Report::render`] computes nothing about routing: an analysis that
//! wants to be in the report is run by the caller and handed over in one of these forms, so
//! a new one plugs in with a few lines and no change here. Rendering is pure (no file or
//! process I/O) and deterministic: the same inputs give the same bytes.
//!
//! **Drawing by levels.** Rows are [`Fabric::levels`] (the one definition: hop distance from
//! the nearest CA through switches), level 0 (the CAs) at the bottom. Nodes no CA reaches
//! (`None`) are not drawn; the summary counts them. Within a level, nodes are ordered by the
//! barycentre of their neighbours one level below (Sugiyama, Tagawa and Toda, *Methods for
//! visual understanding of hierarchical system structures*, 1981: the barycentre heuristic
//! for crossing reduction; one bottom-up sweep, ties by node id), level 0 in CA order. With
//! more than [`Report::aggregate_cas_above`] CAs, the CAs are drawn as one mark per switch
//! they hang off, with their count. Parallel links between the same two marks are merged into
//! one line with their count; its colour is the largest load of any of its directed links,
//! on a sequential scale (ColorBrewer's YlOrRd, Brewer 2003) of [`LOAD_COLOURS`] steps up to
//! the traffic's maximum, grey for an unloaded line, with a legend. Hovering a node or a line
//! shows its names and loads (SVG `<title>`).
//!
//! The page holds no script and loads nothing: its Content-Security-Policy is
//! `default-src 'none'; style-src 'unsafe-inline'`, so a browser refuses (and logs) any fetch;
//! the only URL in it is the SVG namespace. Every text that comes from a file (node names,
//! descriptions) is escaped (`& < > " '`).

use std::collections::BTreeMap;
use std::fmt::Write as _;

mod assemble;

pub use assemble::{
    Assembled, LevelCount, MAX_VALUE_BINS, ReportFormat, ReportOptions, ReportSource,
    ReportSummary, ReportTraffic, assemble,
};

use crate::analysis::WorstCase;
use crate::error::FabricError;
use crate::fabric::{Fabric, NodeId, NodeKind};

/// The sequential colour scale of loaded lines, lightest (least load) first: ColorBrewer's
/// YlOrRd (its two lightest classes dropped, so that every step shows on white). A line with
/// load `l > 0` out of a maximum `max` gets step `⌈7·l / max⌉ − 1`: the hottest lines get the
/// last colour.
pub const LOAD_COLOURS: [&str; 7] = [
    "#fed976", "#feb24c", "#fd8d3c", "#fc4e2a", "#e31a1c", "#bd0026", "#800026",
];

/// The colour of a line that carries no load (or of every line, without a traffic).
pub const UNLOADED_COLOUR: &str = "#c4c4c4";

/// The default of [`Report::aggregate_cas_above`].
pub const AGGREGATE_CAS_ABOVE: usize = 256;

/// The colour of `load` on a scale whose top is `max` ([`LOAD_COLOURS`], [`UNLOADED_COLOUR`]).
#[must_use]
pub fn load_colour(load: u32, max: u32) -> &'static str {
    match load_step(load, max) {
        None => UNLOADED_COLOUR,
        Some(s) => LOAD_COLOURS[s],
    }
}

/// The step of `load` in [`LOAD_COLOURS`], `None` for no load.
fn load_step(load: u32, max: u32) -> Option<usize> {
    if load == 0 || max == 0 {
        return None;
    }
    let steps = LOAD_COLOURS.len() as u64;
    let s = (u64::from(load.min(max)) * steps).div_ceil(u64::from(max));
    Some(s as usize - 1)
}

/// The loads of one traffic, per directed link.
#[derive(Debug, Clone, Copy)]
pub struct LinkLoads<'a> {
    /// The traffic's name as the user gave it (`permutation, seed 1`).
    pub traffic: &'a str,
    /// Routes per output port, indexed by [`crate::PortId`] (`TrafficLoad::per_link`): one
    /// entry per [`Fabric::port_id_count`].
    pub per_link: &'a [u32],
}

/// A histogram to draw as bars: one bar per bin, in the order given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Histogram {
    /// The heading (`Hops per route`).
    pub title: String,
    /// What the bins are (`links crossed`).
    pub x_label: String,
    /// What is counted (`routes`).
    pub y_label: String,
    /// The bins: label and count.
    pub bins: Vec<(String, u64)>,
}

/// How a [`Verdict`] came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VerdictStatus {
    /// The property holds.
    Pass,
    /// The property fails.
    Fail,
    /// A finding without a pass/fail judgement.
    Info,
}

impl VerdictStatus {
    fn name(self) -> &'static str {
        match self {
            VerdictStatus::Pass => "pass",
            VerdictStatus::Fail => "fail",
            VerdictStatus::Info => "info",
        }
    }
}

/// A judgement of the fabric: a heading, its outcome and lines of detail (a witness, counts).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    /// What is judged (`Nonblocking (Yuan's Lemma 1)`).
    pub title: String,
    /// The outcome.
    pub status: VerdictStatus,
    /// Detail, one paragraph per line.
    pub detail: Vec<String>,
}

/// An HTML report of one fabric; fill the fields, then [`Report::render`].
#[derive(Debug, Clone)]
pub struct Report<'a> {
    /// The fabric drawn.
    pub fabric: &'a Fabric,
    /// The page title and heading.
    pub title: String,
    /// Extra rows of the summary table (files, the command that made the report, the seed).
    pub facts: Vec<(String, String)>,
    /// The loads that colour the picture; `None` draws every line grey.
    pub loads: Option<LinkLoads<'a>>,
    /// Judgements, shown in this order.
    pub verdicts: Vec<Verdict>,
    /// The worst-case permutation certificate ([`crate::LinkRoutes::worst_case`]).
    pub worst: Option<&'a WorstCase>,
    /// Histograms, shown in this order.
    pub histograms: Vec<Histogram>,
    /// The most permutation pairs the certificate's table lists (the rest are counted).
    pub permutation_rows: usize,
    /// With more CAs than this, CAs are drawn as one mark per switch they hang off.
    pub aggregate_cas_above: usize,
}

impl<'a> Report<'a> {
    /// An empty report of `fabric`: no loads, verdicts, certificate or histograms; up to 64
    /// permutation pairs listed; CAs aggregated above [`AGGREGATE_CAS_ABOVE`].
    #[must_use]
    pub fn new(fabric: &'a Fabric) -> Self {
        Self {
            fabric,
            title: "Fabric report".to_owned(),
            facts: Vec::new(),
            loads: None,
            verdicts: Vec::new(),
            worst: None,
            histograms: Vec::new(),
            permutation_rows: 64,
            aggregate_cas_above: AGGREGATE_CAS_ABOVE,
        }
    }

    /// The whole page: `<!DOCTYPE html>` to `</html>`, with inline CSS and SVG.
    ///
    /// # Errors
    /// [`FabricError::LengthMismatch`] when the loads or the certificate's per-link counts do
    /// not have one entry per port id of the fabric; [`FabricError::TooLarge`] when the
    /// certificate's link is not a port id of the fabric; [`FabricError::CaOutOfRange`] for a
    /// certificate pair beyond the CA order.
    pub fn render(&self) -> Result<String, FabricError> {
        let f = self.fabric;
        let ports = f.port_id_count();
        if let Some(l) = &self.loads {
            check_len("loads per link", ports, l.per_link.len())?;
        }
        if let Some(w) = self.worst {
            check_len("worst-case contention per link", ports, w.per_link.len())?;
            if let Some(link) = w.link
                && link.0 as usize >= ports
            {
                return Err(FabricError::TooLarge {
                    what: "worst-case link (port id)",
                    count: u64::from(link.0),
                    limit: ports.saturating_sub(1) as u64,
                });
            }
            let cas = f.ca_order().len() as u32;
            for &(s, d) in &w.permutation {
                for index in [s, d] {
                    if index >= cas {
                        return Err(FabricError::CaOutOfRange { index, cas });
                    }
                }
            }
        }
        let layout = Layout::new(
            f,
            self.loads.map(|l| l.per_link),
            self.worst.and_then(|w| w.link).map(|p| p.0 as usize),
            self.aggregate_cas_above,
        );
        let mut s = String::with_capacity(64 * 1024);
        self.head(&mut s);
        self.summary(&mut s, &layout);
        self.picture(&mut s, &layout);
        self.verdicts_html(&mut s);
        self.certificate(&mut s);
        for h in &self.histograms {
            histogram_svg(&mut s, h);
        }
        s.push_str(
            "<footer id=\"fatnet-report-end\">Made by <code>fatnet fabric report</code>: \
             no scripts, no external resources.</footer>\n</main>\n</body>\n</html>\n",
        );
        Ok(s)
    }

    fn head(&self, s: &mut String) {
        let title = esc(&self.title);
        let _ = write!(
            s,
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
             <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; \
             style-src 'unsafe-inline'\">\n<meta name=\"viewport\" \
             content=\"width=device-width, initial-scale=1\">\n<title>{title}</title>\n\
             <style>{CSS}</style>\n</head>\n<body>\n<main>\n<h1>{title}</h1>\n"
        );
    }

    fn summary(&self, s: &mut String, layout: &Layout) {
        let f = self.fabric;
        let count = |k: NodeKind| f.nodes().iter().filter(|n| n.kind() == k).count();
        s.push_str("<section id=\"summary\"><h2>Fabric</h2>\n<table class=\"facts\">\n");
        let mut row = |k: &str, v: &str| {
            let _ = writeln!(s, "<tr><th>{}</th><td>{}</td></tr>", esc(k), esc(v));
        };
        for (k, v) in &self.facts {
            row(k, v);
        }
        row("switches", &count(NodeKind::Switch).to_string());
        row("CAs (end nodes)", &count(NodeKind::Ca).to_string());
        let routers = count(NodeKind::Router);
        if routers > 0 {
            row("routers", &routers.to_string());
        }
        row("links", &f.links().len().to_string());
        row(
            "forwarding tables",
            if f.has_lfts() { "present" } else { "absent" },
        );
        for (level, (sw, ca)) in layout.level_counts.iter().enumerate() {
            let mut parts = Vec::new();
            if *ca > 0 {
                parts.push(format!("{ca} CAs"));
            }
            if *sw > 0 {
                parts.push(format!("{sw} switches"));
            }
            row(&format!("level {level}"), &parts.join(", "));
        }
        let (usw, uca, urt) = layout.unreached;
        if usw + uca + urt > 0 {
            row(
                "not drawn",
                &format!(
                    "{usw} switches, {uca} CAs and {urt} routers no CA of the CA order reaches \
                     through switches (no level)"
                ),
            );
        }
        s.push_str("</table></section>\n");
    }

    fn verdicts_html(&self, s: &mut String) {
        if self.verdicts.is_empty() {
            return;
        }
        s.push_str("<section id=\"verdicts\"><h2>Verdicts</h2>\n");
        for v in &self.verdicts {
            let _ = writeln!(
                s,
                "<div class=\"verdict {st}\"><h3><span class=\"badge\">{st}</span> {}</h3>",
                esc(&v.title),
                st = v.status.name()
            );
            for line in &v.detail {
                let _ = writeln!(s, "<p>{}</p>", esc(line));
            }
            s.push_str("</div>\n");
        }
        s.push_str("</section>\n");
    }

    fn picture(&self, s: &mut String, layout: &Layout) {
        s.push_str("<section id=\"picture\"><h2>The fabric by levels</h2>\n");
        match &self.loads {
            Some(l) => {
                let _ = writeln!(
                    s,
                    "<p>Lines coloured by the load of traffic <b>{}</b> (routes per directed \
                     link through the forwarding tables; a line is the largest load of its \
                     links in either direction). Congestion (most routes on one directed \
                     link): <b>{}</b>.</p>",
                    esc(l.traffic),
                    layout.max_load
                );
            }
            None => s.push_str("<p>No traffic: every line is grey.</p>\n"),
        }
        if layout.aggregated {
            s.push_str(
                "<p>CAs are drawn as one mark per switch they hang off, with their count.</p>\n",
            );
        }
        layout.svg(s, self.fabric);
        legend(s, layout.max_load, self.loads.is_some(), layout.worst_drawn);
        s.push_str("</section>\n");
    }

    fn certificate(&self, s: &mut String) {
        let Some(w) = self.worst else { return };
        let f = self.fabric;
        s.push_str("<section id=\"worst\"><h2>Worst-case permutation</h2>\n");
        let Some(link) = w.link else {
            s.push_str("<p>No route uses a link: contention 0.</p></section>\n");
            return;
        };
        let _ = writeln!(
            s,
            "<p>Contention <b>{}</b>: the most pairs of one permutation that the forwarding \
             tables route over one directed link (a maximum matching between the sources and \
             the destinations of the link's routes), attained on <b>{}</b> by the {} pairs \
             below{}.</p>",
            w.contention,
            esc(&f.link_label(link)),
            w.permutation.len(),
            if w.contention <= 1 {
                " (at most 1: the routing is nonblocking)"
            } else {
                ""
            }
        );
        s.push_str("<ol class=\"perm\">\n");
        let name = |i: u32| esc(f.node(f.ca_order()[i as usize]).name());
        for &(a, b) in w.permutation.iter().take(self.permutation_rows) {
            let _ = writeln!(
                s,
                "<li><b>{}</b> &#8594; <b>{}</b> <small>(CA-order {a}, {b})</small></li>",
                name(a),
                name(b)
            );
        }
        s.push_str("</ol>\n");
        let more = w.permutation.len().saturating_sub(self.permutation_rows);
        if more > 0 {
            let _ = writeln!(s, "<p>… and {more} more pairs.</p>");
        }
        s.push_str("</section>\n");
    }
}

fn check_len(what: &'static str, expected: usize, found: usize) -> Result<(), FabricError> {
    if expected == found {
        Ok(())
    } else {
        Err(FabricError::LengthMismatch {
            what,
            expected,
            found,
        })
    }
}

const CSS: &str = "body{font:14px/1.45 system-ui,sans-serif;margin:0;background:#fafafa;color:#222}\
main{max-width:1500px;margin:0 auto;padding:12px 20px}h1{font-size:22px;margin:4px 0 8px}\
h2{font-size:17px;margin:18px 0 6px;border-bottom:1px solid #ddd}h3{font-size:14px;margin:4px 0}\
table{border-collapse:collapse;font-size:13px}th,td{padding:2px 10px;text-align:left;\
border-bottom:1px solid #eee}th{font-weight:600}\
.verdict{border-left:5px solid #999;background:#fff;padding:4px 10px;margin:6px 0}\
.verdict p{margin:2px 0}.pass{border-color:#2e7d32}.fail{border-color:#c62828}.info{border-color:#1565c0}\
.badge{display:inline-block;min-width:3em;text-align:center;color:#fff;border-radius:3px;\
padding:0 4px;font-size:12px;text-transform:uppercase;background:#1565c0}\
.pass .badge{background:#2e7d32}.fail .badge{background:#c62828}\
svg{background:#fff;border:1px solid #ddd;max-width:100%;height:auto}\
svg text{font:11px system-ui,sans-serif;fill:#333}\
.legend span{display:inline-block;width:22px;height:10px;margin:0 3px 0 10px;vertical-align:middle}\
.perm{columns:5 250px;font-size:13px;margin:4px 0}.perm small{color:#777}\
.hist{display:inline-block;margin:4px 12px 4px 0;vertical-align:top}footer{color:#777;margin:20px 0 8px}";

/// A drawn mark: a node, or the CAs hanging off one node (`None`: off no node).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Mark {
    Node(NodeId),
    Cas(Option<NodeId>),
}

/// Merged links between two marks.
#[derive(Debug, Clone, Copy, Default)]
struct Bundle {
    links: u32,
    /// Largest load leaving the lower mark (up) and leaving the upper mark (down).
    up: u32,
    down: u32,
    worst: bool,
}

impl Bundle {
    fn load(&self) -> u32 {
        self.up.max(self.down)
    }
}

/// Per level of `levels` ([`Fabric::levels`]), (switches, CAs) with routers counted as CAs;
/// and the nodes with no level as (switches, CAs, routers). The one count of the picture, the
/// page's summary and [`Assembled::summary`].
fn count_levels(
    f: &Fabric,
    levels: &[Option<u32>],
) -> (Vec<(usize, usize)>, (usize, usize, usize)) {
    let depth = levels.iter().flatten().max().map_or(0, |&l| l as usize + 1);
    let mut level_counts = vec![(0usize, 0usize); depth];
    let mut unreached = (0, 0, 0);
    for (node, l) in f.nodes().iter().zip(levels) {
        match (l, node.kind()) {
            (Some(l), NodeKind::Switch) => level_counts[*l as usize].0 += 1,
            (Some(l), _) => level_counts[*l as usize].1 += 1,
            (None, NodeKind::Switch) => unreached.0 += 1,
            (None, NodeKind::Ca) => unreached.1 += 1,
            (None, NodeKind::Router) => unreached.2 += 1,
        }
    }
    (level_counts, unreached)
}

/// Levels, marks in drawing order and merged links: shared by the SVG and the DOT drawing.
struct Layout {
    /// Per level, the marks in drawing order; level 0 at index 0.
    rows: Vec<Vec<Mark>>,
    /// Per level, (switches, CAs) (aggregated CAs counted one by one).
    level_counts: Vec<(usize, usize)>,
    /// CAs per aggregated mark.
    members: BTreeMap<Mark, u32>,
    /// Position of every mark: (level, index in its row).
    at: BTreeMap<Mark, (usize, usize)>,
    /// Lines between two marks (lower or left first), in a deterministic order.
    bundles: Vec<((Mark, Mark), Bundle)>,
    /// Unreached (switches, CAs, routers).
    unreached: (usize, usize, usize),
    aggregated: bool,
    max_load: u32,
    worst_drawn: bool,
}

impl Layout {
    fn new(
        f: &Fabric,
        loads: Option<&[u32]>,
        worst_port: Option<usize>,
        aggregate_above: usize,
    ) -> Self {
        let levels = f.levels();
        let aggregated = f.ca_order().len() > aggregate_above;
        let mark_of = |v: NodeId| -> Option<Mark> {
            levels[v.index()]?;
            let n = f.node(v);
            if aggregated && n.kind() == NodeKind::Ca {
                let up = n
                    .first_connected_port()
                    .and_then(|p| n.peer(p))
                    .map(|e| e.node);
                Some(Mark::Cas(up))
            } else {
                Some(Mark::Node(v))
            }
        };
        let (level_counts, unreached) = count_levels(f, &levels);
        let depth = level_counts.len();
        // Level 0: the CA order (its first CA places an aggregated mark).
        let mut rows: Vec<Vec<Mark>> = vec![Vec::new(); depth];
        let mut members: BTreeMap<Mark, u32> = BTreeMap::new();
        for &c in f.ca_order() {
            let Some(m) = mark_of(c) else { continue };
            let e = members.entry(m).or_insert(0);
            if *e == 0 {
                rows[0].push(m);
            }
            *e += 1;
        }
        if !aggregated {
            members.clear();
        }
        let mut at: BTreeMap<Mark, (usize, usize)> = BTreeMap::new();
        for (i, &m) in rows.first().into_iter().flatten().enumerate() {
            at.insert(m, (0, i));
        }
        // Levels 1..: barycentre of the neighbours one level below, ties by node id.
        let mut by_level: Vec<Vec<NodeId>> = vec![Vec::new(); depth];
        for (i, l) in levels.iter().enumerate() {
            if let Some(l) = l
                && *l > 0
            {
                by_level[*l as usize].push(NodeId(i as u32));
            }
        }
        for level in 1..depth {
            let below = rows[level - 1].len().max(1) as f64;
            let mut keyed: Vec<(f64, NodeId)> = by_level[level]
                .iter()
                .map(|&v| {
                    let (mut sum, mut n) = (0.0, 0u32);
                    for (_, e) in f.neighbours(v) {
                        if let Some(m) = mark_of(e.node)
                            && let Some(&(l, i)) = at.get(&m)
                            && l + 1 == level
                        {
                            sum += (i as f64 + 0.5) / below;
                            n += 1;
                        }
                    }
                    (if n == 0 { 0.5 } else { sum / f64::from(n) }, v)
                })
                .collect();
            keyed.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            for (i, &(_, v)) in keyed.iter().enumerate() {
                rows[level].push(Mark::Node(v));
                at.insert(Mark::Node(v), (level, i));
            }
        }
        // Links, merged per pair of marks; the lower (then left) mark first.
        let mut merged: BTreeMap<(Mark, Mark), Bundle> = BTreeMap::new();
        let mut max_load = 0;
        let mut worst_drawn = false;
        for link in f.links() {
            let (Some(ma), Some(mb)) = (mark_of(link.a.node), mark_of(link.b.node)) else {
                continue;
            };
            if ma == mb {
                continue;
            }
            let (pa, pb) = (at[&ma], at[&mb]);
            let (lo, hi, lo_end, hi_end) = if pa <= pb {
                (ma, mb, link.a, link.b)
            } else {
                (mb, ma, link.b, link.a)
            };
            let port = |e: crate::Endpoint| f.port_id(e.node, e.port).0 as usize;
            let load = |e| loads.and_then(|l| l.get(port(e)).copied()).unwrap_or(0);
            let b = merged.entry((lo, hi)).or_default();
            b.links += 1;
            b.up = b.up.max(load(lo_end));
            b.down = b.down.max(load(hi_end));
            max_load = max_load.max(b.load());
            if worst_port.is_some_and(|w| w == port(lo_end) || w == port(hi_end)) {
                b.worst = true;
                worst_drawn = true;
            }
        }
        let mut bundles: Vec<((Mark, Mark), Bundle)> = merged.into_iter().collect();
        // Unloaded lines first, the hottest last (drawn on top).
        bundles.sort_by_key(|(k, b)| (b.load(), *k));
        Self {
            rows,
            level_counts,
            members,
            at,
            bundles,
            unreached,
            aggregated,
            max_load,
            worst_drawn,
        }
    }

    fn label(&self, f: &Fabric, m: Mark) -> String {
        match m {
            Mark::Node(v) => {
                let n = f.node(v);
                if n.description().is_empty() || n.description() == n.name() {
                    n.name().to_owned()
                } else {
                    format!("{} ({})", n.name(), n.description())
                }
            }
            Mark::Cas(Some(v)) => format!("{} CAs on {}", self.members[&m], f.node(v).name()),
            Mark::Cas(None) => format!("{} unconnected CAs", self.members[&m]),
        }
    }

    fn svg(&self, s: &mut String, f: &Fabric) {
        const MARGIN_LEFT: f64 = 120.0;
        const ROW: f64 = 150.0;
        let widest = self.rows.iter().map(Vec::len).max().unwrap_or(0).max(1);
        let inner = (widest as f64 * 14.0).clamp(900.0, 6000.0);
        let width = MARGIN_LEFT + inner + 20.0;
        let depth = self.rows.len().max(1);
        let height = ROW * (depth as f64 - 1.0) + 80.0;
        let xy = |m: Mark| -> (f64, f64) {
            let (l, i) = self.at[&m];
            let n = self.rows[l].len() as f64;
            let x = MARGIN_LEFT + inner * (i as f64 + 0.5) / n;
            let y = height - 40.0 - ROW * l as f64;
            (x, y)
        };
        let _ = writeln!(
            s,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"fabric\" viewBox=\"0 0 {width:.0} \
             {height:.0}\" width=\"{width:.0}\" height=\"{height:.0}\" role=\"img\">"
        );
        for (l, &(sw, ca)) in self.level_counts.iter().enumerate() {
            let y = height - 40.0 - ROW * l as f64;
            let what = if l == 0 {
                format!("{ca} CAs")
            } else {
                format!("{sw} switches")
            };
            let _ = writeln!(
                s,
                "<text x=\"6\" y=\"{:.1}\">level {l}</text><text x=\"6\" y=\"{:.1}\">{what}</text>",
                y - 2.0,
                y + 12.0
            );
        }
        s.push_str("<g fill=\"none\" stroke-linecap=\"round\">\n");
        for ((a, b), bundle) in &self.bundles {
            let ((x1, y1), (x2, y2)) = (xy(*a), xy(*b));
            let load = bundle.load();
            let colour = load_colour(load, self.max_load);
            let w = match load_step(load, self.max_load) {
                None => 0.8,
                Some(st) => 1.0 + 2.5 * st as f64 / (LOAD_COLOURS.len() - 1) as f64,
            };
            let w = w * (1.0 + f64::from(bundle.links.min(8) - 1) * 0.15);
            if bundle.worst {
                let _ = writeln!(
                    s,
                    "<line x1=\"{x1:.1}\" y1=\"{y1:.1}\" x2=\"{x2:.1}\" y2=\"{y2:.1}\" \
                     stroke=\"#000\" stroke-width=\"{:.1}\" stroke-dasharray=\"6 4\"/>",
                    w + 4.0
                );
            }
            let _ = writeln!(
                s,
                "<line x1=\"{x1:.1}\" y1=\"{y1:.1}\" x2=\"{x2:.1}\" y2=\"{y2:.1}\" \
                 stroke=\"{colour}\" stroke-width=\"{w:.2}\" data-load=\"{load}\">\
                 <title>{} — {}: {} link{}, load up {} / down {}</title></line>",
                esc(&self.label(f, *a)),
                esc(&self.label(f, *b)),
                bundle.links,
                if bundle.links == 1 { "" } else { "s" },
                bundle.up,
                bundle.down
            );
        }
        s.push_str("</g>\n<g stroke=\"#333\" stroke-width=\"0.6\">\n");
        for row in &self.rows {
            let spacing = inner / row.len().max(1) as f64;
            let w = (spacing * 0.7).clamp(2.0, 26.0);
            for &m in row {
                let (x, y) = xy(m);
                let title = esc(&self.label(f, m));
                match m {
                    Mark::Node(v) if f.node(v).kind() == NodeKind::Switch => {
                        let _ = writeln!(
                            s,
                            "<rect class=\"switch\" x=\"{:.1}\" y=\"{:.1}\" width=\"{w:.1}\" \
                             height=\"12\" fill=\"#4a6fa5\"><title>{title}</title></rect>",
                            x - w / 2.0,
                            y - 6.0
                        );
                    }
                    Mark::Node(_) => {
                        let r = (w / 2.0).min(5.0);
                        let _ = writeln!(
                            s,
                            "<circle class=\"ca\" cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"{r:.1}\" \
                             fill=\"#8fbf7f\"><title>{title}</title></circle>"
                        );
                    }
                    Mark::Cas(_) => {
                        let _ = writeln!(
                            s,
                            "<rect class=\"cas\" x=\"{:.1}\" y=\"{:.1}\" width=\"{w:.1}\" \
                             height=\"10\" rx=\"3\" fill=\"#8fbf7f\"><title>{title}</title></rect>",
                            x - w / 2.0,
                            y - 5.0
                        );
                    }
                }
            }
        }
        s.push_str("</g>\n");
        // Names or counts under the bottom marks and over small rows, when they fit.
        for (l, row) in self.rows.iter().enumerate() {
            let spacing = inner / row.len().max(1) as f64;
            if spacing < 28.0 {
                continue;
            }
            for &m in row {
                let (x, y) = xy(m);
                let text = match m {
                    Mark::Cas(_) => self.members[&m].to_string(),
                    Mark::Node(v) => {
                        let name = f.node(v).name();
                        let keep = (spacing / 6.5) as usize;
                        if name.chars().count() > keep {
                            continue;
                        }
                        name.to_owned()
                    }
                };
                let dy = if l == 0 { 20.0 } else { -10.0 };
                let _ = writeln!(
                    s,
                    "<text x=\"{x:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
                    y + dy,
                    esc(&text)
                );
            }
        }
        s.push_str("</svg>\n");
    }
}

fn legend(s: &mut String, max: u32, loaded: bool, worst: bool) {
    s.push_str("<p class=\"legend\">");
    let _ = write!(
        s,
        "<span style=\"background:{UNLOADED_COLOUR}\"></span>no load"
    );
    if loaded && max > 0 {
        let steps = LOAD_COLOURS.len() as u64;
        for (i, c) in LOAD_COLOURS.iter().enumerate() {
            // Loads l with ⌈steps·l/max⌉ = i + 1: from ⌊i·max/steps⌋ + 1 to ⌊(i+1)·max/steps⌋.
            let lo = (i as u64 * u64::from(max)) / steps + 1;
            let hi = ((i as u64 + 1) * u64::from(max)) / steps;
            if lo > hi {
                continue;
            }
            let range = if lo == hi {
                lo.to_string()
            } else {
                format!("{lo}–{hi}")
            };
            let _ = write!(s, "<span style=\"background:{c}\"></span>{range}");
        }
        s.push_str(" routes on the busiest link of a line");
    }
    if worst {
        s.push_str(
            "<span style=\"background:repeating-linear-gradient(90deg,#000 0 6px,#fff 6px 10px)\">\
             </span>the worst-case link",
        );
    }
    s.push_str("</p>\n");
}

fn histogram_svg(s: &mut String, h: &Histogram) {
    const W: f64 = 640.0;
    const H: f64 = 240.0;
    const LEFT: f64 = 56.0;
    const BOTTOM: f64 = 48.0;
    let n = h.bins.len().max(1);
    let max = h.bins.iter().map(|b| b.1).max().unwrap_or(0);
    let plot_w = W - LEFT - 12.0;
    let plot_h = H - BOTTOM - 24.0;
    let bar = plot_w / n as f64;
    let total: u64 = h.bins.iter().map(|b| b.1).sum();
    let _ = writeln!(
        s,
        "<div class=\"hist\"><h3>{}</h3>\n<svg xmlns=\"http://www.w3.org/2000/svg\" \
         class=\"histogram\" viewBox=\"0 0 {W} {H}\" width=\"{W}\" height=\"{H}\" role=\"img\">",
        esc(&h.title)
    );
    let base = H - BOTTOM;
    let _ = writeln!(
        s,
        "<line x1=\"{LEFT}\" y1=\"{base}\" x2=\"{:.1}\" y2=\"{base}\" stroke=\"#444\"/>\
         <text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{max}</text>\
         <text x=\"{:.1}\" y=\"{base}\" text-anchor=\"end\">0</text>",
        W - 10.0,
        LEFT - 4.0,
        base - plot_h + 4.0,
        LEFT - 4.0
    );
    // Label every k-th bin so that labels do not overlap.
    let every = (n as f64 * 30.0 / plot_w).ceil().max(1.0) as usize;
    for (i, (label, count)) in h.bins.iter().enumerate() {
        let x = LEFT + bar * i as f64;
        let bh = if max == 0 {
            0.0
        } else {
            plot_h * *count as f64 / max as f64
        };
        let _ = writeln!(
            s,
            "<rect x=\"{:.2}\" y=\"{:.2}\" width=\"{:.2}\" height=\"{bh:.2}\" fill=\"#4a6fa5\">\
             <title>{}: {count}</title></rect>",
            x + bar * 0.1,
            base - bh,
            (bar * 0.8).max(0.5),
            esc(label)
        );
        if i % every == 0 {
            let _ = writeln!(
                s,
                "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
                x + bar / 2.0,
                base + 14.0,
                esc(label)
            );
        }
        if n <= 24 && *count > 0 {
            let _ = writeln!(
                s,
                "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{count}</text>",
                x + bar / 2.0,
                base - bh - 3.0
            );
        }
    }
    let _ = writeln!(
        s,
        "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{} ({} {} in all)</text>\n</svg></div>",
        LEFT + plot_w / 2.0,
        H - 12.0,
        esc(&h.x_label),
        total,
        esc(&h.y_label)
    );
}

/// The fabric in Graphviz DOT: an undirected graph drawn bottom-up (`rankdir=BT`), one
/// `{ rank=same; ... }` group per level of [`Fabric::levels`] in increasing level order (the
/// CAs at the bottom), nodes within a level in the order of the HTML picture (barycentre,
/// so `dot` starts from few crossings), CAs aggregated per switch above
/// [`AGGREGATE_CAS_ABOVE`], parallel links merged (`links=` and a `×k` label), each line
/// coloured as in the picture with a pen width growing with its load (`load=` the largest
/// load of its links). Node ids are `n<node id>` and, for aggregated CAs, `cas<switch id>`
/// (`cas_none` for unconnected CAs). Nodes with no level are left out (a comment counts them).
///
/// # Errors
/// [`FabricError::LengthMismatch`] when `loads` does not have one entry per port id.
pub fn dot(fabric: &Fabric, loads: Option<&[u32]>) -> Result<String, FabricError> {
    if let Some(l) = loads {
        check_len("loads per link", fabric.port_id_count(), l.len())?;
    }
    let layout = Layout::new(fabric, loads, None, AGGREGATE_CAS_ABOVE);
    let id = |m: Mark| match m {
        Mark::Node(v) => format!("n{}", v.0),
        Mark::Cas(Some(v)) => format!("cas{}", v.0),
        Mark::Cas(None) => "cas_none".to_owned(),
    };
    let mut s = String::new();
    let (usw, uca, urt) = layout.unreached;
    let _ = writeln!(
        s,
        "// fatnet fabric report --dot: {} switches, {} CAs, {} links; not drawn (no level): \
         {usw} switches, {uca} CAs, {urt} routers",
        fabric.switches().count(),
        fabric.cas().count(),
        fabric.links().len()
    );
    s.push_str("graph \"fabric\" {\n  rankdir=BT;\n  node [fontsize=10];\n");
    for (level, row) in layout.rows.iter().enumerate() {
        let _ = writeln!(s, "  {{ rank=same; // level {level}");
        for &m in row {
            let shape = match m {
                Mark::Node(v) if fabric.node(v).kind() == NodeKind::Switch => {
                    "box style=filled fillcolor=\"#4a6fa5\" fontcolor=white"
                }
                Mark::Node(_) => "ellipse",
                Mark::Cas(_) => "folder",
            };
            let _ = writeln!(
                s,
                "    {} [label=\"{}\" shape={shape} level={level}];",
                id(m),
                dot_escape(&layout.label(fabric, m))
            );
        }
        s.push_str("  }\n");
    }
    for ((a, b), bundle) in &layout.bundles {
        let load = bundle.load();
        let pen = match load_step(load, layout.max_load) {
            None => 1.0,
            Some(st) => 1.5 + 3.0 * st as f64 / (LOAD_COLOURS.len() - 1) as f64,
        };
        let label = if bundle.links > 1 {
            format!(" label=\"×{}\"", bundle.links)
        } else {
            String::new()
        };
        let _ = writeln!(
            s,
            "  {} -- {} [color=\"{}\" penwidth={pen:.1} links={} load={load}{label}];",
            id(*a),
            id(*b),
            load_colour(load, layout.max_load),
            bundle.links
        );
    }
    s.push_str("}\n");
    Ok(s)
}

/// `text` with the five HTML/XML special characters escaped, for content and attributes.
fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// `text` as the inside of a DOT quoted string (line breaks as `\n`).
fn dot_escape(text: &str) -> String {
    text.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
        .replace('\r', "")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping() {
        assert_eq!(esc("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&#39;");
        assert_eq!(dot_escape("a\"b\\\nc"), "a\\\"b\\\\\\nc");
    }

    #[test]
    fn colour_steps_cover_the_range() {
        assert_eq!(load_colour(0, 5), UNLOADED_COLOUR);
        assert_eq!(load_colour(3, 0), UNLOADED_COLOUR);
        assert_eq!(load_colour(5, 5), LOAD_COLOURS[6]);
        assert_eq!(load_colour(1, 1), LOAD_COLOURS[6]);
        assert_eq!(load_colour(1, 700), LOAD_COLOURS[0]);
        // Steps never decrease with the load.
        let steps: Vec<usize> = (1..=50).map(|l| load_step(l, 50).unwrap()).collect();
        assert!(steps.windows(2).all(|w| w[0] <= w[1]));
        assert_eq!(steps[0], 0);
    }
}
