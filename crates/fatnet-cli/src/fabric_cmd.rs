//! `fatnet fabric`: real InfiniBand fabrics. `check` reads a topology (and its
//! forwarding tables), traces every route and judges the routing: Yuan's Lemma 1,
//! the exact worst-case permutation contention, and every cyclic shift; `load` routes one
//! traffic through the tables; `export` writes a generated fat-tree in ibsim's net format for
//! OpenSM to route (`scripts/opensm-loop.sh`).

use std::fmt::Write as _;
use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use clap::{Args, Subcommand};
use fatnet::fabric::export::{
    check_folded_clos, check_kary_ntree, folded_clos_net, kary_ntree_net,
};
use fatnet::fabric::{FabricFiles, FabricFormat, FabricTraffic, LoadedFabric, PortId, analyze};
use fatnet::topology::{FoldedClos, KAryNTree, TopologySpec};
use serde::Serialize;

mod compare;

mod counts;
mod credit;
mod ebb;
mod failures;
mod report;

const FABRIC_HELP: &str = "\
FILES:
  --format flitsim       ib_flit_sim: TOPOLOGY is the .ned; --routes the .fdbs, with its switch
                         index in <ROUTES>.ini (the .fdbs.ini beside it); the CA order is
                         --ca-order, else ftree.hcas beside the .fdbs when present, else node
                         order (ports from 0 in these files, read as InfiniBand ports from 1)
  --format opensm        OpenSM dumps (OSM_TMP_DIR, or an engine folder that
                         scripts/opensm-loop.sh wrote): TOPOLOGY is opensm-subnet.lst or the
                         dump folder holding it; --routes is a dump folder (its
                         opensm-lfts.dump is read) or a table file (opensm-lfts.dump, ibroute /
                         dump_fts output, or opensm.fdbs); when TOPOLOGY is a folder with an
                         opensm-lfts.dump, --routes defaults to that folder. The CA order is
                         --ca-order, else opensm-ftree-ca-order.dump beside the tables when
                         present and not empty (the ftree engine), else node order
  --format ibnetdiscover infiniband-diags topology dump (every variant ibnetdiscover wrote
                         since 2007: -g chassis grouping, -f, -l lists, port GUIDs or none);
                         --routes is a table file read as for opensm (ibroute / dump_fts /
                         dump_lfts.sh output, opensm-lfts.dump, opensm.fdbs) or a folder with
                         an opensm-lfts.dump; tables attach by switch GUID, LIDs come from the
                         dump's `lid` comments (a switch dumped with lid 0 takes its table
                         header's). The CA order is --ca-order (a .dump file read as OpenSM's
                         ftree order, anything else as ftree.hcas), else
                         opensm-ftree-ca-order.dump beside the tables when present and not
                         empty, else node order
  --format ibdm          ibdm .topo system file (structure only so far; a director is its
                         front panel only: `fatnet fabric compare TOPO NED` lists what the
                         .ned of the same fabric has beyond it)
  --format auto          a folder or opensm-subnet.lst -> opensm, .ned -> flitsim,
                         .topo -> ibdm, anything else -> ibnetdiscover

WHAT IS COMPUTED (check, with tables):
  routes       every ordered pair of distinct CAs traced through the forwarding tables;
               loops, dead ends and wrong targets are counted, with examples
  nonblocking  Yuan's Lemma 1 (\"On Nonblocking Folded-Clos Networks\", paper 001): a
               single-path routing routes every permutation without two pairs on one
               directed link iff no link carries two routes with distinct sources and
               distinct destinations; when it fails, two such routes are the witness
  worst        the exact worst-case permutation contention: per link, a maximum matching
               between the sources and destinations of its routes; the worst link and a
               permutation attaining it (re-traced to confirm the count)
  shifts       every cyclic shift i -> i+k mod N in CA order (OpenSM's ftree engine
               promises these are congestion-free): which shifts load some link twice";

const FABRIC_TRAFFIC: &str = "\
TRAFFIC THAT NAMES HOSTS (fabric load only; resolved through the fabric, not by position):
  dstseq:PATH[,ini=INI]  an ib_flit_sim destination sequence (src/vec_file.cc): `N: LID LID ...`
                         per line; each host of INI (default PATH.ini; `**HOST.app.dstSeqVecIdx =
                         N` or `**HOST.gen.dstSeqIndex = N`) sends one message to every LID of
                         its vector, LIDs resolved to CAs through the fabric's LID map
  hosts:PATH             one `SRC DST` pair per line, by node name (ibdm's H-1/U1 also finds
                         the .ned's H_1_U1) or by a CA's node description (double-quoted when
                         it has spaces), `#` comments
  An unknown host or LID is an error naming the file and the line.";

/// Arguments of `fatnet fabric`.
#[derive(Args, Debug)]
pub struct FabricArgs {
    #[command(subcommand)]
    command: FabricCommand,
}

#[derive(Subcommand, Debug)]
enum FabricCommand {
    /// Read a fabric, trace every route through its tables and judge the routing: valid
    /// routes, nonblocking (Yuan's Lemma 1) with a witness, exact worst-case permutation
    /// contention with the permutation, and the congestion of every cyclic shift.
    #[command(after_help = FABRIC_HELP)]
    Check {
        #[command(flatten)]
        files: FabricFileArgs,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Route one traffic (processor i = the i-th CA of the CA order) through the tables:
    /// per-link loads, the congestion (most routes on one directed link, under the fabric's
    /// forwarding tables; not λ, which is over bundles and bounds every routing) and the
    /// hottest links.
    #[command(after_help = format!("{FABRIC_HELP}\n\n{}\n{FABRIC_TRAFFIC}", crate::TRAFFIC_GRAMMAR))]
    Load {
        #[command(flatten)]
        files: FabricFileArgs,
        /// The traffic: a pattern or `file:PATH` (processors = the CAs, in CA order),
        /// `dstseq:PATH[,ini=INI]` (ib_flit_sim) or `hosts:PATH` (host-name pairs).
        #[arg(long, short)]
        traffic: String,
        /// Seed of the random patterns.
        #[arg(long, default_value_t = fatnet::scenario::DEFAULT_SEED)]
        seed: u64,
        /// How many of the hottest links to list.
        #[arg(long, default_value_t = fatnet::scenario::DEFAULT_TOP)]
        top: usize,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Effective bisection bandwidth (ORCS): the mean bandwidth random bisection patterns get
    /// under the forwarding tables, as a distribution over seeded bisections, beside the exact
    /// worst case.
    #[command(after_help = format!("{}\n\n{FABRIC_HELP}", ebb::HELP))]
    Ebb(ebb::EbbArgs),
    /// ibdiagnet-style counts: routes and destinations per output port, the hop histogram of
    /// all CA-to-CA routes, per-level summaries, and a traffic's link loads by level.
    #[command(after_help = format!("{}\n\n{FABRIC_HELP}\n\n{}", counts::HELP, crate::TRAFFIC_GRAMMAR))]
    Counts(counts::CountsArgs),
    /// Draw the fabric: one self-contained HTML page (inline SVG, no network access) with the
    /// fabric by levels, links coloured by the load of a traffic, the verdicts of `check`, the
    /// worst-case certificate and histograms; or, with `--dot`, Graphviz DOT ranked by level.
    #[command(after_help = format!("{}\n\n{FABRIC_HELP}\n\n{}", report::report_help(), crate::TRAFFIC_GRAMMAR))]
    Report(report::ReportArgs),
    /// Compare two files of one fabric (a `.topo` and a `.ned`, an `ibnetdiscover` dump and an
    /// OpenSM subnet list, ...): the nodes, links and port counts one has and the other lacks.
    #[command(after_help = compare::COMPARE_HELP)]
    Compare(compare::CompareArgs),
    /// Write a generated fat-tree in ibsim's net format (an `ibnetdiscover`-style file) with
    /// deterministic GUIDs, for OpenSM to route under ibsim (`scripts/opensm-loop.sh`).
    #[command(after_help = EXPORT_HELP)]
    Export {
        /// The network: `ftree:n=N,m=M,r=R` (Yuan's folded Clos), `karyntree:k=K,levels=L`,
        /// `ring:s=S,h=H` or `torus:x=X,y=Y,h=H` (switches with H CAs each).
        spec: String,
        /// Write to FILE (through a temporary file and a rename) instead of standard output.
        #[arg(long, short)]
        output: Option<PathBuf>,
    },
    /// Failure what-if: remove named or random links/switches (seeded draws), keep the old
    /// tables or re-route (built-in minhop/updn, as OpenSM computes them), and report lost
    /// pairs (disconnected vs. unrouted) and every metric of `check`, before and after, as
    /// distributions over the draws.
    #[command(after_help = format!("{FABRIC_HELP}\n\n{}", failures::FAILURES_HELP))]
    Failures(failures::FailuresArgs),
    /// Credit loops (deadlock): build the channel dependency graph of every traced route (an
    /// arc from link a to link b when some route uses b right after a), per virtual lane when
    /// the SL-to-VL tables and the routes' SLs are given, and report a cycle with, for each of
    /// its dependencies, a route that creates it.
    #[command(after_help = credit::HELP)]
    CreditLoops {
        #[command(flatten)]
        files: FabricFileArgs,
        #[command(flatten)]
        lanes: credit::LaneArgs,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
}

const EXPORT_HELP: &str = "\
NETWORKS:
  ftree:n=N,m=M,r=R       Yuan's folded Clos ftree(n+m, r): r bottom switches with n CAs and
                          n+m ports, m top switches with r ports
  karyntree:k=K,levels=L  Petrini and Vanneschi's k-ary n-tree: L levels of K^(L-1) switches
                          with 2K ports, K^L CAs
  ring:s=S,h=H            a ring of S >= 3 switches with H CAs each (h defaults to 1): port
                          k+1 -> CA, port H+1 -> the next switch (its port H+2)
  torus:x=X,y=Y,h=H       a 2-D torus of X*Y switches (X, Y >= 3), switch (x, y) has index
                          x + X*y; ports H+1/H+2 -> +x/-x, H+3/H+4 -> +y/-y, H CAs each
                          (direct networks: minhop routes them with credit loops; lash and
                          dfsssp break them with virtual lanes, see `fabric credit-loops`)
  Other topology specs have no InfiniBand form here and are refused.

GUIDS (deterministic: the same spec always writes the same file):
  CA x (processor x)           node GUID 0x4341000000000000 | x << 8, named H-<GUID>,
                               described `ca <x>`; its port 1 has port GUID node GUID + 1
  switch (level, index)        node GUID 0x5357000000000000 | level << 40 | index << 8,
                               named S-<GUID>, described `sw <level> <index>`; level 1 holds
                               the CAs' switches
  ftree: bottom switch v is (1, v), port k+1 -> CA v*n+k, port n+1+t -> top switch (2, t)
  ring, torus: switch i is (1, i); CA x hangs off switch x/H, port x%H+1
  Switches come first (level by level), then the CAs in index order; ibsim puts the SM on the
  first switch and OpenSM numbers LIDs switches first, then CAs.

WITH OPENSM (Debian's opensm, ibsim-utils, infiniband-diags):
  fatnet fabric export ftree:n=2,m=4,r=4 --output ftree.net
  scripts/opensm-loop.sh ftree.net out ftree updn minhop
  fatnet fabric check out/ftree --format opensm     # subnet, tables and ftree CA order

  A switch has at most 254 ports and the fabric at most 49,151 nodes (the unicast LIDs):
  larger networks are refused.";

#[derive(Args, Debug)]
struct FabricFileArgs {
    /// The topology file (`.ned`, `.topo`, an `ibnetdiscover` dump, `opensm-subnet.lst` or an
    /// OpenSM dump folder).
    topology: PathBuf,
    /// The forwarding tables (`.fdbs` for flitsim, its index is `<ROUTES>.ini`; a dump folder
    /// or table file for opensm).
    #[arg(long)]
    routes: Option<PathBuf>,
    /// A CA-order file (`ftree.hcas`: `NAME/PORT LID` per line).
    #[arg(long)]
    ca_order: Option<PathBuf>,
    /// The topology format.
    #[arg(long, value_enum, default_value_t = FabricFormat::Auto)]
    format: FabricFormat,
}

impl FabricFileArgs {
    fn files(&self) -> FabricFiles {
        FabricFiles {
            fabric: self.topology.clone(),
            routes: self.routes.clone(),
            ca_order: self.ca_order.clone(),
            format: self.format,
        }
    }
}

fn load(files: &FabricFileArgs) -> Result<LoadedFabric> {
    Ok(files.files().load()?)
}

/// `fatnet fabric export`: the net file of a folded Clos or k-ary n-tree spec.
fn export(spec: &str) -> Result<String> {
    if spec.starts_with("ring:") || spec.starts_with("torus:") {
        let t: fatnet::fabric::export::SwitchTorus = spec.parse()?;
        return Ok(t.net());
    }
    let parsed: TopologySpec = spec
        .parse()
        .with_context(|| fatnet::scenario::wording::invalid_topology_spec(&spec))?;
    let cannot = || fatnet::scenario::wording::cannot_build(&spec);
    Ok(match parsed {
        TopologySpec::FoldedClos { n, m, r } => {
            let t = FoldedClos::new(n, m, r).with_context(cannot)?;
            check_folded_clos(&t).with_context(|| format!("`{spec}`"))?;
            folded_clos_net(&t)
        }
        TopologySpec::KAryNTree { k, levels } => {
            let t = KAryNTree::new(k, levels).with_context(cannot)?;
            check_kary_ntree(&t).with_context(|| format!("`{spec}`"))?;
            kary_ntree_net(&t)
        }
        other => bail!(
            "fabric export writes `ftree:n=N,m=M,r=R` (folded Clos) or `karyntree:k=K,levels=L` (k-ary n-tree), not `{other}`"
        ),
    })
}

/// Runs `fatnet fabric`.
pub fn run(args: FabricArgs, out: &mut impl Write) -> Result<()> {
    // Everything is computed before anything is printed: no half-written output.
    let text = match args.command {
        FabricCommand::Check { files, json } => check(&files, json)?,
        FabricCommand::Load {
            files,
            traffic,
            seed,
            top,
            json,
        } => load_cmd(&files, &traffic, seed, top, json)?,
        FabricCommand::Ebb(a) => ebb::run(&a)?,
        FabricCommand::Counts(a) => counts::run(&a)?,
        FabricCommand::Failures(a) => failures::failures(&a)?,
        FabricCommand::Report(a) => report::run(&a)?,
        FabricCommand::CreditLoops { files, lanes, json } => credit::run(&files, &lanes, json)?,
        FabricCommand::Compare(a) => compare::run(&a)?,
        FabricCommand::Export { spec, output } => {
            let net = export(&spec)?;
            if let Some(path) = output {
                return crate::write_atomically(&path, net.as_bytes());
            }
            net
        }
    };
    out.write_all(text.as_bytes())?;
    Ok(())
}

#[derive(Serialize)]
struct FaultJson {
    src: String,
    dst: String,
    fault: String,
}

#[derive(Serialize)]
struct RoutesJson {
    traced: u64,
    delivered: u64,
    loops: u64,
    dead_ends: u64,
    wrong_target: u64,
    max_hops: u32,
    examples: Vec<FaultJson>,
}

#[derive(Serialize)]
struct ShiftJson {
    shift: u32,
    congestion: u32,
    link: Option<String>,
}

#[derive(Serialize)]
struct CheckJson {
    topology: String,
    format: &'static str,
    routes_file: Option<String>,
    ca_order: Option<String>,
    unrecognised_lines: usize,
    switches: usize,
    end_nodes: usize,
    links: usize,
    routes_present: bool,
    routes: Option<RoutesJson>,
    routes_valid: Option<bool>,
    nonblocking: Option<bool>,
    blocking_links: Option<usize>,
    /// Two routes `[src, dst]` (CA-order positions) on `lemma1_witness_link`.
    lemma1_witness: Option<[[u32; 2]; 2]>,
    lemma1_witness_link: Option<String>,
    worst_contention: Option<u32>,
    worst_link: Option<String>,
    /// `[src, dst]` CA-order positions.
    worst_permutation: Option<Vec<[u32; 2]>>,
    shifts: Option<u32>,
    shifts_congestion_free: Option<u32>,
    /// The shifts that load some link more than once.
    congested_shifts: Option<Vec<ShiftJson>>,
    /// No cycle in the channel dependency graph, all routes on one virtual lane.
    credit_loop_free: Option<bool>,
}

fn check(files: &FabricFileArgs, json: bool) -> Result<String> {
    let l = load(files)?;
    let f = &l.fabric;
    let ca = |i: u32| f.node(f.ca_order()[i as usize]).name().to_owned();
    let label = |p: PortId| f.link_label(p);
    let mut j = CheckJson {
        topology: files.topology.display().to_string(),
        format: l.format.name(),
        routes_file: l.routes.clone(),
        ca_order: l.ca_order.clone(),
        unrecognised_lines: l.unrecognised,
        switches: f.switches().count(),
        end_nodes: f.cas().count(),
        links: f.links().len(),
        routes_present: f.has_lfts(),
        routes: None,
        routes_valid: None,
        nonblocking: None,
        blocking_links: None,
        lemma1_witness: None,
        lemma1_witness_link: None,
        worst_contention: None,
        worst_link: None,
        worst_permutation: None,
        shifts: None,
        shifts_congestion_free: None,
        congested_shifts: None,
        credit_loop_free: None,
    };
    let mut s = String::new();
    writeln!(
        s,
        "fabric {} ({}): {} switches, {} end nodes, {} links, {} unrecognised lines",
        j.topology, j.format, j.switches, j.end_nodes, j.links, j.unrecognised_lines
    )?;
    if !f.has_lfts() {
        writeln!(
            s,
            "routes: absent (no forwarding tables given; pass --routes): structure only"
        )?;
    } else {
        let a = analyze(f)?;
        let t = a.routes.summary();
        j.routes = Some(RoutesJson {
            traced: t.routes,
            delivered: t.delivered,
            loops: t.loops,
            dead_ends: t.dead_ends,
            wrong_target: t.wrong_target,
            max_hops: t.max_hops,
            examples: t
                .examples
                .iter()
                .map(|&(src, dst, fault)| FaultJson {
                    src: f.node(src).name().to_owned(),
                    dst: f.node(dst).name().to_owned(),
                    fault: fault.describe(f),
                })
                .collect(),
        });
        j.routes_valid = Some(t.all_valid());
        j.nonblocking = Some(a.lemma1.is_nonblocking());
        j.blocking_links = Some(a.lemma1.blocking_links.len());
        j.lemma1_witness = a.lemma1.witness.map(|w| w.pairs.map(|(s, d)| [s, d]));
        j.lemma1_witness_link = a.lemma1.witness.map(|w| label(w.link));
        j.worst_contention = Some(a.worst.contention);
        j.worst_link = a.worst.link.map(label);
        j.worst_permutation = Some(a.worst.permutation.iter().map(|&(s, d)| [s, d]).collect());
        let congested: Vec<ShiftJson> = a
            .shifts
            .iter()
            .filter(|x| x.congestion > 1)
            .map(|x| ShiftJson {
                shift: x.shift,
                congestion: x.congestion,
                link: x.link.map(label),
            })
            .collect();
        j.shifts = Some(a.shifts.len() as u32);
        j.shifts_congestion_free = Some((a.shifts.len() - congested.len()) as u32);
        writeln!(
            s,
            "CA order: {}",
            l.ca_order.as_deref().unwrap_or("node order")
        )?;
        writeln!(
            s,
            "routes: {} traced, {} delivered, {} loop, {} dead-end, {} reach the wrong node; at most {} hops",
            t.routes, t.delivered, t.loops, t.dead_ends, t.wrong_target, t.max_hops
        )?;
        for (src, dst, fault) in &t.examples {
            writeln!(
                s,
                "  {} -> {}: {}",
                f.node(*src).name(),
                f.node(*dst).name(),
                fault.describe(f)
            )?;
        }
        match a.lemma1.witness {
            None => writeln!(
                s,
                "nonblocking (Yuan's Lemma 1): yes, no link carries two routes with distinct sources and distinct destinations"
            )?,
            Some(w) => writeln!(
                s,
                "nonblocking (Yuan's Lemma 1): no, {} links carry two routes with distinct sources and destinations, e.g. {} -> {} and {} -> {} on {}",
                a.lemma1.blocking_links.len(),
                ca(w.pairs[0].0),
                ca(w.pairs[0].1),
                ca(w.pairs[1].0),
                ca(w.pairs[1].1),
                label(w.link)
            )?,
        }
        if let Some(link) = a.worst.link {
            let perm: Vec<String> = a
                .worst
                .permutation
                .iter()
                .map(|&(s, d)| format!("{} -> {}", ca(s), ca(d)))
                .collect();
            writeln!(
                s,
                "worst-case permutation contention: {} on {}, attained by {}",
                a.worst.contention,
                label(link),
                perm.join(", ")
            )?;
        } else {
            writeln!(
                s,
                "worst-case permutation contention: 0 (no route uses a link)"
            )?;
        }
        let worst_shift = a
            .shifts
            .iter()
            .max_by_key(|x| (x.congestion, std::cmp::Reverse(x.shift)));
        write!(
            s,
            "cyclic shifts i -> i+k: {} of {} congestion-free",
            a.shifts.len() - congested.len(),
            a.shifts.len()
        )?;
        match worst_shift {
            Some(w) if w.congestion > 1 => writeln!(
                s,
                "; worst k = {} loads {} routes on {}",
                w.shift,
                w.congestion,
                w.link.map(label).unwrap_or_default()
            )?,
            _ => writeln!(s)?,
        }
        j.congested_shifts = Some(congested);
        let loops = fatnet::fabric::credit_loops(f, None)?;
        j.credit_loop_free = Some(loops.is_free());
        writeln!(s, "{}", loops.one_lane_line(f))?;
    }
    if json {
        return pretty_json(&j);
    }
    Ok(s)
}

#[derive(Serialize)]
struct HotJson {
    link: String,
    load: u32,
}

#[derive(Serialize)]
struct LoadJson {
    topology: String,
    traffic: String,
    seed: u64,
    ca_order: Option<String>,
    end_nodes: usize,
    messages: u64,
    delivered: u64,
    faults: Vec<FaultJson>,
    /// Most routes on one directed link, under the fabric's forwarding tables.
    congestion: u32,
    loaded_links: u64,
    hottest: Vec<HotJson>,
}

/// `j` as pretty JSON with a final newline: the `--json` output of every `fatnet fabric`
/// command.
fn pretty_json(j: &impl Serialize) -> Result<String> {
    let mut out = serde_json::to_string_pretty(j)?;
    out.push('\n');
    Ok(out)
}

/// A fabric traffic as the user gives it (a pattern, `file:PATH`, `dstseq:PATH`, `hosts:PATH`):
/// what `fabric load`, `fabric counts --traffic` and `fabric report --traffic` route.
fn fabric_traffic(traffic: &str) -> Result<FabricTraffic> {
    traffic
        .parse()
        .with_context(|| format!("invalid traffic spec `{traffic}`"))
}

fn load_cmd(
    files: &FabricFileArgs,
    traffic: &str,
    seed: u64,
    top: usize,
    json: bool,
) -> Result<String> {
    let spec = fabric_traffic(traffic)?;
    let l = load(files)?;
    let f = &l.fabric;
    if !f.has_lfts() {
        bail!("fabric load needs forwarding tables: pass --routes");
    }
    let n = f.ca_order().len();
    let pairs = spec
        .pairs(f, seed)
        .with_context(|| fatnet::scenario::wording::cannot_make_traffic_on_cas(&spec, n))?;
    let t = f.traffic_load(&pairs, top)?;
    let ca = |i: u32| f.node(f.ca_order()[i as usize]).name().to_owned();
    let j = LoadJson {
        topology: files.topology.display().to_string(),
        traffic: spec.to_string(),
        seed,
        ca_order: l.ca_order.clone(),
        end_nodes: f.cas().count(),
        messages: t.messages,
        delivered: t.delivered,
        faults: t
            .faults
            .iter()
            .map(|&(s, d, fault)| FaultJson {
                src: ca(s),
                dst: ca(d),
                fault: fault.describe(f),
            })
            .collect(),
        congestion: t.congestion,
        loaded_links: t.loaded_links,
        hottest: t
            .hottest
            .iter()
            .map(|&(p, load)| HotJson {
                link: f.link_label(p),
                load,
            })
            .collect(),
    };
    if json {
        return pretty_json(&j);
    }
    let mut s = String::new();
    writeln!(
        s,
        "fabric {}: traffic {} on {} CAs, CA order {}",
        j.topology,
        if spec.is_random() {
            format!("{spec} (seed {seed})")
        } else {
            spec.to_string()
        },
        j.end_nodes,
        j.ca_order.as_deref().unwrap_or("node order")
    )?;
    writeln!(
        s,
        "messages {}, delivered {}, congestion {} (most routes on one directed link, under the \
         fabric's forwarding tables), links used {}",
        j.messages, j.delivered, j.congestion, j.loaded_links
    )?;
    for x in &j.faults {
        writeln!(s, "  {} -> {}: {}", x.src, x.dst, x.fault)?;
    }
    for h in &j.hottest {
        writeln!(s, "  {:>6}  {}", h.load, h.link)?;
    }
    Ok(s)
}
