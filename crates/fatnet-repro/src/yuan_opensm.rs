//! Yuan's theory against a real subnet manager: on the same `ftree(n+m, r)`, the forwarding
//! tables OpenSM 3.3.23 computed with its `ftree`, `updn` and `minhop` engines, Yuan's n²
//! routing (Theorem 3) and d-mod-m, each judged by Lemma 1, the exact worst-case permutation
//! contention and the contention of every cyclic shift.
//!
//! **Key design decision: OpenSM is data, not a dependency.** The OpenSM rows read only the
//! dumps committed under `crates/fatnet-fabric/tests/fixtures/opensm/ftree-N-M-R/` (made by
//! `scripts/opensm-loop.sh` on nets from `export_net`, see the README there), so the table is
//! deterministic and regenerates in CI without OpenSM or ibsim. The dumps' CAs are put in Yuan's
//! processor order by their GUIDs ([`export::ca_order_by_index`]: CA `x` has GUID
//! `0x4341_0000_0000_0000 | x << 8`), never by OpenSM's LIDs or its ftree CA order, so that
//! pair `(s, d)` means the same two leaves in every row. The n² routing and d-mod-m come from
//! `fatnet::offline::clos` directly; d-mod-m is also turned into forwarding tables
//! ([`from_folded_clos`]) and analysed like the dumps, as a cross-check of the two analyses.
//!
//! Theory, per network (Yuan, *On nonblocking folded-Clos networks*): Theorem 3 — the n² routing is
//! nonblocking when `m >= n²` (worst contention 1); Theorem 2 — for `r >= 2n+1` and `m < n²` every
//! single-path deterministic routing blocks; Theorem 1 — for `r <= 2n+1` every nonblocking one has
//! `m >= ⌈(r−1)n/2⌉`. A table of one LID per CA is single-path deterministic, so these bind
//! OpenSM's engines too. Elsewhere the paper says nothing and the verdict is `not in paper`.

use std::path::{Path, PathBuf};

use fatnet::fabric::analysis::{Analysis, analyze, count_on_link};
use fatnet::fabric::{Fabric, export, from_folded_clos, opensm, read_text};
use fatnet::offline::clos::{
    ClosRouting, DModM, YuanRouting, check_nonblocking, simulate_routing, worst_contention,
};
use fatnet::topology::FoldedClos;
use fatnet::traffic::{Message, MessageSet};

use crate::{
    Cell, Detail, Effort, Experiment, ExperimentId, Frame, Paper, ReproError, Table, Tabular,
    Value, Verdict, detail, tabulate,
};

/// The networks `(n, m, r)`, each with committed OpenSM dumps in `ftree-N-M-R/`.
pub const NETWORKS: [(u32, u32, u32); 4] = [(2, 4, 4), (2, 3, 5), (3, 6, 6), (3, 9, 12)];

/// OpenSM's routing engines with committed dumps.
pub const ENGINES: [&str; 3] = ["ftree", "updn", "minhop"];

/// The folder of the committed OpenSM dumps (inside `fatnet-fabric`'s test fixtures).
#[must_use]
pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fatnet-fabric/tests/fixtures/opensm")
}

/// OpenSM vs the n² routing vs d-mod-m on the same `ftree(n+m, r)`.
#[derive(Clone, Copy, Debug, Default)]
pub struct OpenSm;

const ID: &str = "opensm";

/// The experiment, as its errors name it.
const EXPERIMENT: ExperimentId = ExperimentId::new(Paper::Yuan, "opensm");

/// What Yuan's theorems say about every single-path deterministic routing of a network.
enum Theory {
    /// Theorem 2 or 1 forces blocking; the text names the theorem.
    Blocks(String),
    /// No theorem decides (the n² routing's Theorem 3 aside).
    Silent,
}

fn theory(n: u32, m: u32, r: u32) -> Theory {
    if r > 2 * n && m < n * n {
        Theory::Blocks(format!(
            "blocking (Thm 2: r ≥ 2n+1 = {}, m < n² = {})",
            2 * n + 1,
            n * n
        ))
    } else if r <= 2 * n + 1 && m < ((r - 1) * n).div_ceil(2) {
        Theory::Blocks(format!(
            "blocking (Thm 1: r ≤ 2n+1, m < ⌈(r−1)n/2⌉ = {})",
            ((r - 1) * n).div_ceil(2)
        ))
    } else {
        Theory::Silent
    }
}

/// One routing's three numbers and how they were obtained.
#[derive(Debug)]
struct Row {
    routing: String,
    /// `None` when the routing does not exist on this network.
    result: Option<RowResult>,
    /// Why it does not exist, or remarks.
    note: String,
    /// Paper statements: nonblocking expected (`Some(true)`), blocking (`Some(false)`), none.
    expect_nonblocking: Option<(bool, String)>,
}

#[derive(Debug)]
struct RowResult {
    nonblocking: bool,
    lemma1_detail: Detail,
    worst: u32,
    worst_detail: Detail,
    shifts_free: usize,
    shifts: usize,
    shifts_detail: Detail,
}

fn from_analysis(fabric: &Fabric, a: &Analysis, routes_detail: &Detail) -> RowResult {
    let lemma1_detail = match &a.lemma1.witness {
        Some(w) => detail![
            ..routes_detail.clone(),
            "; ",
            a.lemma1.blocking_links.len(),
            " blocking links; e.g. ",
            fabric.link_label(w.link),
            " carries ",
            ..pairs_text([w.pairs[0], w.pairs[1]].into_iter()).separated(" and "),
        ],
        None => detail![
            ..routes_detail.clone(),
            "; at most ",
            a.lemma1.max_link_routes,
            " routes on a link, each link single-source or single-destination",
        ],
    };
    let worst_detail = match a.worst.link {
        Some(l) => {
            let retraced = count_on_link(fabric, &a.worst.permutation, l);
            detail![
                a.worst.contention,
                " on ",
                fabric.link_label(l),
                ": ",
                ..pairs_text(a.worst.permutation.iter().copied()).separated(", "),
                " (re-traced: ",
                retraced,
                ")",
            ]
        }
        None => "no route uses a link".into(),
    };
    let free = a.shifts.iter().filter(|s| s.congestion <= 1).count();
    RowResult {
        nonblocking: a.lemma1.is_nonblocking(),
        lemma1_detail,
        worst: a.worst.contention,
        worst_detail,
        shifts_free: free,
        shifts: a.shifts.len(),
        shifts_detail: shifts_text(a.shifts.iter().map(|s| (s.shift, s.congestion))),
    }
}

/// Source–destination pairs `s→d`.
struct Pairs(Vec<(u32, u32)>);

fn pairs_text(pairs: impl Iterator<Item = (u32, u32)>) -> Pairs {
    Pairs(pairs.collect())
}

impl Pairs {
    /// `s→d` joined by `separator`.
    fn separated(self, separator: &str) -> Detail {
        Detail::join(
            self.0.into_iter().map(|(s, d)| detail![s, "→", d]),
            separator,
        )
    }
}

/// "contended at k = 1, 3 (max load 2)": the shifts that are not congestion-free.
fn shifts_text(loads: impl Iterator<Item = (u32, u32)>) -> Detail {
    let bad: Vec<(u32, u32)> = loads.filter(|&(_, l)| l > 1).collect();
    if bad.is_empty() {
        return "every shift i → i+k mod N at most 1 per link".into();
    }
    let max = bad.iter().map(|&(_, l)| l).max().unwrap_or(0);
    let ks = Detail::join(bad.iter().map(|&(k, _)| detail![k]), ", ");
    detail!["contended at k = ", ..ks, " (max load ", max, ")"]
}

/// The OpenSM dumps of `engine` on `ftree-N-M-R`, CAs in processor order by GUID.
fn read_opensm(dir: &Path, engine: &str, processors: u32) -> Result<Fabric, ReproError> {
    let fail = |e: Box<dyn std::error::Error + Send + Sync>| EXPERIMENT.error_in(dir.display(), e);
    let lst = read_text(&dir.join("opensm-subnet.lst")).map_err(|e| fail(e.into()))?;
    let (fabric, _) =
        opensm::parse_subnet_lst(&lst, "opensm-subnet.lst").map_err(|e| fail(e.into()))?;
    let file = format!("{engine}/opensm-lfts.dump");
    let dump = read_text(&dir.join(&file)).map_err(|e| fail(e.into()))?;
    let (tables, _) = opensm::parse_lfts(&dump, &file).map_err(|e| fail(e.into()))?;
    let fabric = opensm::attach_tables(fabric, &tables, &file).map_err(|e| fail(e.into()))?;
    let order = export::ca_order_by_index(&fabric, processors)
        .ok_or_else(|| fail("a CA GUID of the export is missing".into()))?;
    fabric.with_ca_order(order).map_err(|e| fail(e.into()))
}

/// Whether OpenSM's ftree CA order (`ftree/opensm-ftree-ca-order.dump`) is processor order.
fn ftree_order_is_processor_order(dir: &Path, processors: u32) -> Result<bool, ReproError> {
    let fail = |e: Box<dyn std::error::Error + Send + Sync>| EXPERIMENT.error_in(dir.display(), e);
    let lst = read_text(&dir.join("opensm-subnet.lst")).map_err(|e| fail(e.into()))?;
    let (fabric, _) =
        opensm::parse_subnet_lst(&lst, "opensm-subnet.lst").map_err(|e| fail(e.into()))?;
    let file = "ftree/opensm-ftree-ca-order.dump";
    let text = read_text(&dir.join(file)).map_err(|e| fail(e.into()))?;
    let (fabric, _) = opensm::apply_ca_order(fabric, &text, file).map_err(|e| fail(e.into()))?;
    let ours = export::ca_order_by_index(&fabric, processors);
    Ok(ours.as_deref() == Some(fabric.ca_order()))
}

/// Lemma 1, the worst case and the shifts of an offline routing, by `fatnet::offline::clos`.
fn offline(clos: &FoldedClos, routing: &impl ClosRouting) -> Result<RowResult, ReproError> {
    let e = |x: fatnet::offline::OfflineError| EXPERIMENT.error(x);
    let report = check_nonblocking(clos, routing).map_err(e)?;
    let worst = worst_contention(clos, routing).map_err(e)?;
    let p = clos.ports();
    let lemma1_detail = match &report.counterexample {
        Some(cx) => detail![
            report.cross_pairs,
            " cross pairs; ",
            report.blocking_links,
            " blocking links; e.g. ",
            cx.link.to_string(),
            " carries ",
            ..pairs_text(cx.pairs.iter().map(|p| (p.src, p.dst))).separated(" and "),
        ],
        None => detail![
            report.cross_pairs,
            " cross pairs; at most ",
            report.max_link_pairs,
            " on a link, each link single-source or single-destination",
        ],
    };
    let worst_detail = match worst.link {
        Some(l) => {
            let perm =
                MessageSet::new(p, worst.permutation.clone()).map_err(|e| EXPERIMENT.error(e))?;
            let sim = simulate_routing(clos, routing, &perm).map_err(e)?;
            detail![
                worst.contention,
                " on ",
                l.to_string(),
                ": ",
                ..pairs_text(worst.permutation.iter().map(|m| (m.src, m.dst))).separated(", "),
                " (simulated: max load ",
                sim.max_load,
                ")",
            ]
        }
        None => "no pair crosses bottom switches".into(),
    };
    let mut loads = Vec::new();
    for k in 1..p {
        let shift = MessageSet::new(p, (0..p).map(|i| Message::new(i, (i + k) % p)).collect())
            .map_err(|e| EXPERIMENT.error(e))?;
        let sim = simulate_routing(clos, routing, &shift).map_err(e)?;
        loads.push((k, sim.max_load.max(1)));
    }
    Ok(RowResult {
        nonblocking: report.is_nonblocking(),
        lemma1_detail,
        worst: worst.contention,
        worst_detail,
        shifts_free: loads.iter().filter(|&&(_, l)| l <= 1).count(),
        shifts: loads.len(),
        shifts_detail: shifts_text(loads.into_iter()),
    })
}

fn rows(n: u32, m: u32, r: u32) -> Result<(Vec<Row>, String), ReproError> {
    let clos = FoldedClos::new(u64::from(n), u64::from(m), u64::from(r))
        .map_err(|e| EXPERIMENT.error(e))?;
    let p = clos.ports();
    let dir = fixtures().join(format!("ftree-{n}-{m}-{r}"));
    let blocks = match theory(n, m, r) {
        Theory::Blocks(t) => Some((false, t)),
        Theory::Silent => None,
    };
    let lft_bound = (r - 1) * n;
    let mut out = Vec::new();
    for engine in ENGINES {
        let fabric = read_opensm(&dir, engine, p)?;
        let a = analyze(&fabric).map_err(|e| EXPERIMENT.error(e))?;
        let s = a.routes.summary();
        let routes = detail![
            Value::Ratio {
                numerator: s.delivered as u64,
                denominator: s.routes as u64,
            },
            " routes delivered",
        ];
        let mut note = String::new();
        if s.delivered != s.routes {
            note = format!(
                "{} loops, {} dead ends, {} misdirected",
                s.loops, s.dead_ends, s.wrong_target
            );
        }
        if engine == "ftree" {
            let same = ftree_order_is_processor_order(&dir, p)?;
            note = if same {
                "OpenSM's ftree CA order is processor order, so its shifts are ours".into()
            } else {
                "OpenSM's ftree CA order differs from processor order (shifts here are in processor order)".into()
            };
        }
        out.push(Row {
            routing: format!("OpenSM {engine}"),
            result: Some(from_analysis(&fabric, &a, &routes)),
            note,
            expect_nonblocking: blocks.clone(),
        });
    }
    // Yuan's n² routing: source-dependent, so no destination-based table can hold it.
    let n2 = n * n;
    if m >= n2 {
        let routing = YuanRouting::new(&clos).map_err(|e| EXPERIMENT.error(e))?;
        out.push(Row {
            routing: "Yuan n² routing (offline)".into(),
            result: Some(offline(&clos, &routing)?),
            note: "top i·n+j for source port i, destination port j: source-dependent, not a destination-based LFT (needs LMC)".into(),
            expect_nonblocking: Some((true, "nonblocking, worst 1 (Thm 3: m ≥ n²)".into())),
        });
    } else {
        out.push(Row {
            routing: "Yuan n² routing (offline)".into(),
            result: None,
            note: format!("not applicable: needs m ≥ n² = {n2} top switches"),
            expect_nonblocking: None,
        });
    }
    // d-mod-m, offline and as forwarding tables.
    let dmodm = DModM::new(&clos);
    let res = offline(&clos, &dmodm)?;
    let fabric = from_folded_clos(&clos, &dmodm).map_err(|e| EXPERIMENT.error(e))?;
    let a = analyze(&fabric).map_err(|e| EXPERIMENT.error(e))?;
    let agree = a.lemma1.is_nonblocking() == res.nonblocking
        && a.worst.contention == res.worst
        && a.shifts.iter().filter(|s| s.congestion <= 1).count() == res.shifts_free;
    out.push(Row {
        routing: "d-mod-m (offline)".into(),
        result: Some(res),
        note: if agree {
            "its forwarding tables (from_folded_clos), traced like OpenSM's, give the same three numbers".into()
        } else {
            "DISAGREEMENT: its forwarding tables (from_folded_clos), traced, give different numbers".into()
        },
        expect_nonblocking: blocks,
    });
    let context = format!(
        "ftree({n}+{m}, {r}): {p} CAs; one-LID tables need m ≥ (r−1)n = {lft_bound}, d-mod-m m ≥ rn = {}",
        r * n
    );
    Ok((out, context))
}

fn cells_of(network: &str, row: &Row, cells: &mut Vec<Cell>) {
    let key = |q: &str| vec![network.into(), row.routing.clone().into(), q.into()];
    let Some(res) = &row.result else {
        cells.push(Cell {
            key: key("nonblocking (Lemma 1)"),
            paper: None,
            ours: "—".into(),
            detail: Detail::new(),
            verdict: Verdict::NotInPaper,
            note: row.note.clone(),
        });
        return;
    };
    let (paper, verdict) = match &row.expect_nonblocking {
        Some((want, text)) => (
            Some(text.clone().into()),
            Verdict::equal(*want, res.nonblocking),
        ),
        None => (None, Verdict::NotInPaper),
    };
    cells.push(Cell {
        key: key("nonblocking (Lemma 1)"),
        paper,
        ours: if res.nonblocking { "yes" } else { "no" }.into(),
        detail: res.lemma1_detail.clone(),
        verdict,
        note: row.note.clone(),
    });
    let (paper, verdict) = match &row.expect_nonblocking {
        Some((true, _)) => (Some("1 (Def. 2)".into()), Verdict::equal(res.worst, 1)),
        Some((false, _)) => (Some("≥ 2 (Lemma 1)".into()), Verdict::bound(res.worst >= 2)),
        None => (None, Verdict::NotInPaper),
    };
    cells.push(Cell {
        key: key("worst-case permutation contention (exact)"),
        paper,
        ours: res.worst.into(),
        detail: res.worst_detail.clone(),
        verdict,
        note: String::new(),
    });
    cells.push(Cell {
        key: key("congestion-free cyclic shifts"),
        paper: None,
        ours: Value::Ratio {
            numerator: res.shifts_free as u64,
            denominator: res.shifts as u64,
        },
        detail: res.shifts_detail.clone(),
        verdict: Verdict::NotInPaper,
        note: String::new(),
    });
}

impl Experiment for OpenSm {
    fn paper(&self) -> Paper {
        Paper::Yuan
    }

    fn id(&self) -> &'static str {
        ID
    }

    fn seed(&self) -> Option<u64> {
        None
    }

    fn quick_differs(&self) -> bool {
        false
    }

    fn run(&self, effort: Effort) -> Result<Table, ReproError> {
        tabulate(self, effort)
    }
}

/// One computed row: every routing analysed on one network.
#[derive(Debug)]
pub struct Network {
    name: String,
    routings: Vec<Row>,
    /// The network's sizes and the table-routing bounds, for the notes.
    context: String,
}

impl Tabular for OpenSm {
    type Row = Network;

    fn frame(&self) -> Frame {
        Frame {
            title: "Yuan on a real subnet manager: OpenSM ftree, updn and minhop vs the n² routing vs d-mod-m on the same ftree(n+m, r)".into(),
            key_columns: vec!["network".into(), "routing".into(), "quantity".into()],
            detail_column: "how".into(),
        }
    }

    fn compute(&self, _effort: Effort) -> Result<Vec<Network>, ReproError> {
        NETWORKS
            .into_iter()
            .map(|(n, m, r)| {
                let (routings, context) = rows(n, m, r)?;
                Ok(Network {
                    name: format!("ftree({n}+{m}, {r})"),
                    routings,
                    context,
                })
            })
            .collect()
    }

    fn cells(&self, network: &Network) -> Vec<Cell> {
        let mut cells = Vec::new();
        for row in &network.routings {
            cells_of(&network.name, row, &mut cells);
        }
        cells
    }

    fn notes(&self, _effort: Effort, networks: &[Network], _cells: &[Cell]) -> Vec<String> {
        let contexts: Vec<&str> = networks.iter().map(|n| n.context.as_str()).collect();
        vec![
                "OpenSM rows: forwarding tables of OpenSM 3.3.23 (`-R ftree|updn|minhop`) on the fabric simulated by ibsim 0.10, read from the dumps committed under `crates/fatnet-fabric/tests/fixtures/opensm/ftree-N-M-R/` (regenerate them with `scripts/opensm-loop.sh`, see the README there; this table never runs OpenSM). Every route between two CAs is traced through the tables; CAs are numbered by their exported GUIDs (CA x = 0x4341000000000000 | x<<8), i.e. Yuan's leaf x = v·n + k, not by OpenSM's LIDs. Switch `S-5357LL00IIII00` is level LL (01 bottom, 02 top), index IIII; its port p ≤ n leads to leaf p−1, port n+1+t to top t.".into(),
                "Yuan's n² routing and d-mod-m are computed with `fatnet::offline::clos` (Lemma 1 checker, exact worst case by bipartite matching per link, simulator). The n² routing picks the top switch from the source's and the destination's local ports: it is source-dependent and cannot be a destination-based forwarding table with one LID per CA (it needs LMC, n LIDs per CA), which is why OpenSM cannot produce it. d-mod-m is destination-based; its tables are also built and traced like OpenSM's as a cross-check.".into(),
                "Paper column: what Yuan's theorems say about the instance. Theorem 3: the n² routing is nonblocking for m ≥ n² (worst contention 1). Theorem 2 (r ≥ 2n+1, m < n²) and Theorem 1 (r ≤ 2n+1, m < ⌈(r−1)n/2⌉): every single-path deterministic routing blocks, which includes every table routing with one LID per CA (OpenSM here) and d-mod-m; then Lemma 1 gives a two-pair permutation with contention 2, so the worst case is ≥ 2. Elsewhere the paper says nothing about these routings: `not in paper`. Shifts are not in Yuan's paper: OpenSM's ftree engine claims shift permutations are congestion-free, and the column checks it.".into(),
                format!("[ours, not the paper's] With one LID per CA every source of a bottom switch reaches a destination through the same uplink, so a nonblocking table routing needs a distinct top switch per outside destination: m ≥ (r−1)·n. d-mod-m is nonblocking iff m ≥ r·n (r ≥ 3). No network here meets either, so every table routing, OpenSM's included, must block on all of them, m = n² or not. Per network: {}.", contexts.join("; ")),
        ]
    }
}
