//! The `fatnet` command.
//!
//! Strings are parsed here, once, into the typed specs of the library crates; everything
//! below this file works on types. Errors are printed on one line and exit with status 2.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand, ValueEnum};
use fatnet::load::{LoadFactor, LoadReport, PathRule, PathSelection, analyze, check_analysis};
use fatnet::topology::{
    AnyTopology, BundleId, ChannelId, Direction, GraphFormat, Topology, TopologySpec, node_label,
    render_graph,
};
use fatnet::traffic::{MessageSet, TrafficSpec};
use serde::Serialize;

mod clos_cmd;
mod dynamic_cmd;
mod exchange_cmd;
mod fabric_cmd;
mod queue_cmd;
mod route_cmd;
mod schedule_cmd;
mod simulate_cmd;
mod sweep_cmd;

const TOPOLOGY_GRAMMAR: &str = "\
TOPOLOGY SPECS (KIND:key=value,...):
  fattree:n=N,profile=constant,cap=C        binary fat-tree (Leiserson), n a power of two
  fattree:n=N,profile=doubling[,leaf=C]     capacities C*2^h: full bisection
  fattree:n=N,profile=area[,leaf=C][,growth=smooth|stepped]
                                            area-universal: x sqrt2 per level (or x2 every 2)
  fattree:n=N,profile=volume[,leaf=C][,growth=smooth|stepped]
                                            volume-universal: x 4^(1/3) per level (or x4 every 3)
  fattree:n=N,profile=universal,w=W         Leiserson universal, min(ceil(n/2^k), ceil(w/2^(2k/3))),
                                            n^(2/3) <= W <= n
  fattree:n=N,profile=standard              Greenberg-Leiserson standard tree (lg n even)
  fattree:n=N,profile=custom,caps=C0/C1/..  explicit capacities, leaf level first, root last
  bft:n=N                                   Greenberg-Oh butterfly fat-tree, N a power of 4
  ftree:n=N,m=M,r=R                         Yuan folded Clos ftree(n+m, r)
  clos:n=N,m=M,r=R                          unfolded Clos(n, m, r)
  karyntree:k=K,levels=L                    k-ary n-tree (Petrini-Vanneschi), K^L processors
  hypercube:d=D                             d-dimensional hypercube (Stamoulis)
  butterfly:d=D                             d-dimensional butterfly (Stamoulis)";

const TRAFFIC_GRAMMAR: &str = "\
TRAFFIC (--traffic NAME[:key=value,...]):
  permutation          uniform random permutation (seeded)
  complement           i -> n-1-i
  bitrev               i -> bit reversal of i (n a power of two)
  transpose            swap the high and low halves of the bits (lg n even)
  many-to-one          0..n/2-1 -> n-1 and n/2..n-1 -> 0 (Greenberg-Oh hot spots)
  uniform[:self=true]  each processor to a uniform destination (self excluded by default)
  replicated:k=K       K independent random permutations
  mesh[:torus=true]    nearest neighbours of a sqrt(n) x sqrt(n) mesh in Morton order
  valiant[:base=NAME]  Valiant's random intermediates applied to NAME (default permutation)
  bitflip:p=P          each address bit flipped with probability P (Stamoulis (5.1))
  file:PATH            a message-set file: JSON, or text with one `src dst` pair per line";

/// Fat-tree and related interconnection networks: build topologies, generate traffic,
/// measure how hard a message set loads a network.
#[derive(Debug, Parser)]
#[command(name = "fatnet", version, about, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Summarise a topology: processors, switches, channels and capacities per level; or
    /// export its whole graph (`--graph json|graphml|dot`).
    #[command(after_help = TOPOLOGY_GRAMMAR)]
    Topology {
        /// The topology, e.g. `fattree:n=1024,profile=universal,w=128` or `bft:n=4096`.
        spec: String,
        /// Print the summary as JSON instead of a table.
        #[arg(long, conflicts_with_all = ["dot", "graph"])]
        json: bool,
        /// Print the whole graph instead of the summary: a node per processor and switch (id,
        /// label, kind, level) and an edge per directed channel (source, target, level,
        /// direction, capacity, bundle). `dot` draws processors at the bottom and roots at the
        /// top, one rank per level, pens as wide as the capacity's bit length.
        #[arg(long, value_enum, value_name = "FORMAT")]
        graph: Option<GraphFormat>,
        /// The same as `--graph dot`.
        #[arg(long, conflicts_with = "graph")]
        dot: bool,
        /// Output file (written atomically); standard output if absent.
        #[arg(long, short)]
        output: Option<PathBuf>,
    },
    /// Load factor λ(M) and the hottest bundles; congestion, dilation and the hottest channels
    /// of the routing (--paths) of a message set.
    #[command(after_help = format!("{TOPOLOGY_GRAMMAR}\n\n{TRAFFIC_GRAMMAR}"))]
    Load {
        /// The topology.
        spec: String,
        /// The message set: a pattern or `file:PATH`.
        #[arg(long, short)]
        traffic: String,
        /// Seed of the random patterns and of `--paths random`.
        #[arg(long, default_value_t = fatnet::scenario::DEFAULT_SEED)]
        seed: u64,
        /// Shortest path of each message where there are several.
        #[arg(long, value_enum, default_value_t = PathRule::default())]
        paths: PathRule,
        /// How many of the hottest bundles (by λ) and of the hottest channels of the routing
        /// (by routes over capacity) to list.
        #[arg(long, default_value_t = fatnet::scenario::DEFAULT_TOP)]
        top: usize,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Leiserson's off-line schedule of a message set on a fat-tree (Theorem 1 or
    /// Corollary 2), verified cycle by cycle; or `verify FILE --topology SPEC` to check a
    /// schedule you wrote (exit status 1 when it is invalid).
    #[command(after_help = format!("{TOPOLOGY_GRAMMAR}\n\n{TRAFFIC_GRAMMAR}"))]
    Schedule(schedule_cmd::ScheduleArgs),
    /// Stamoulis' optimal total exchange on the d-cube (every node sends a packet to every
    /// other node in 2^(d-1) slots), verified slot by slot.
    Exchange(exchange_cmd::ExchangeArgs),
    /// Stamoulis' simultaneous broadcasts on the d-cube (chapter 4), verified slot by slot.
    Broadcast(exchange_cmd::BroadcastArgs),
    /// Yuan's folded Clos ftree(n+m, r): check a routing for nonblocking (Lemma 1, with a
    /// counterexample), its exact worst-case contention, or route a pattern
    /// (`check|worst|route ftree:n=N,m=M,r=R --routing yuan|dmodm|smodm|adaptive`, or
    /// `--n N --m M --r R`).
    #[command(after_help = TRAFFIC_GRAMMAR)]
    Clos(clos_cmd::ClosArgs),
    /// Real InfiniBand fabrics: read a topology and its forwarding tables, trace every
    /// route, judge the routing (Yuan's Lemma 1, exact worst-case permutation contention,
    /// cyclic shifts) or load it with a traffic (`check|load FILE --routes TABLES`).
    Fabric(fabric_cmd::FabricArgs),
    /// On-line routing in the delivery-cycle model (Greenberg–Leiserson): RANDOM, GREEDY,
    /// RANDOM′ or the constant-switch router, over many seeded trials, next to λ(M).
    #[command(after_help = format!("{TOPOLOGY_GRAMMAR}\n\n{TRAFFIC_GRAMMAR}"))]
    Route(route_cmd::RouteArgs),
    /// Synchronous packet routing (Greenberg–Oh's STORE, WORM and SPLIT; FP/RP/GP paths,
    /// FO/RR/FF scans) on any topology, over many seeded trials: latency with 99% intervals.
    Simulate(Box<simulate_cmd::SimulateArgs>),
    /// Parameter sweeps from a TOML file: run them on all cores or under mpirun, resume them
    /// after a crash, summarize them (`run FILE --out DIR [--resume]`, `summarize DIR`,
    /// `check FILE`).
    Sweep(sweep_cmd::SweepArgs),
    /// Evaluate one of Stamoulis' closed forms (queues, greedy-routing bounds, broadcast
    /// formulas): `fatnet queue NAME --d D --rho R [--p P]`, or `fatnet queue list`.
    Queue(queue_cmd::QueueArgs),
    /// Generate a message set and write it as text (`src dst` per line) or JSON.
    #[command(after_help = TRAFFIC_GRAMMAR)]
    Traffic {
        /// Number of processors.
        #[arg(long, short)]
        processors: u32,
        /// The pattern.
        #[arg(long, short)]
        traffic: String,
        /// Seed of the random patterns.
        #[arg(long, default_value_t = fatnet::scenario::DEFAULT_SEED)]
        seed: u64,
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
        /// Output file (written atomically); standard output if absent.
        #[arg(long, short)]
        output: Option<PathBuf>,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Format {
    /// One `src dst` pair per line.
    Text,
    /// `{"processors": n, "messages": [[src, dst], ...]}`.
    Json,
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        // Help and version go to stdout with status 0, as clap prints them.
        Err(e) if !e.use_stderr() => e.exit(),
        // A usage error (unknown flag, a value a library type refuses) is one line and
        // status 2, like every other error.
        Err(e) => {
            // clap's message and its hints (possible values) up to the first blank line.
            let text = e.render().to_string();
            let lines: Vec<&str> = text
                .lines()
                .map(str::trim)
                .take_while(|l| !l.is_empty())
                .collect();
            eprintln!("{}", lines.join(" "));
            return ExitCode::from(2);
        }
    };
    let mut out = std::io::stdout().lock();
    match run(cli, &mut out).and_then(|code| {
        out.flush()?;
        Ok(code)
    }) {
        Ok(code) => code,
        // The reader went away (`fatnet queue list | head`): stop quietly, as a Unix tool
        // killed by SIGPIPE does, with the status a shell reports for one (128 + 13).
        Err(e) if broken_pipe(&e) => ExitCode::from(141),
        Err(e) => {
            let _ = out.flush();
            eprintln!("error: {}", fatnet::scenario::one_line(e.as_ref()));
            ExitCode::from(2)
        }
    }
}

/// Whether `e` is, or was caused by, writing to a closed pipe (directly, or through
/// `serde_json`, which wraps the I/O error it meets).
fn broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
            || cause
                .downcast_ref::<serde_json::Error>()
                .is_some_and(|j| j.io_error_kind() == Some(std::io::ErrorKind::BrokenPipe))
    })
}

/// Runs a command: status 0, or a result a command reports as its status (`fatnet schedule
/// verify`: 1 for an invalid schedule). Errors are status 2, in `main`.
fn run(cli: Cli, out: &mut impl Write) -> Result<ExitCode> {
    match cli.command {
        Command::Topology {
            spec,
            json,
            graph,
            dot,
            output,
        } => {
            let (spec, topo) = topology(&spec)?;
            let mut buf = Vec::new();
            if let Some(format) = graph.or(dot.then_some(GraphFormat::Dot)) {
                let text = render_graph(&topo, format)
                    .with_context(|| format!("cannot export `{spec}`"))?;
                buf = text.into_bytes();
            } else if json {
                serde_json::to_writer_pretty(&mut buf, &TopologySummary::new(&spec, &topo)?)?;
                writeln!(buf)?;
            } else {
                print_topology(&mut buf, &spec, &topo)?;
            }
            match output {
                None => out.write_all(&buf)?,
                Some(path) => write_atomically(&path, &buf)?,
            }
        }
        Command::Load {
            spec,
            traffic,
            seed,
            paths,
            top,
            json,
        } => {
            let (spec, topo) = topology(&spec)?;
            let traffic = traffic_spec(&traffic)?;
            // Before any message is made: a refused size costs nothing.
            check_analysis(&topo)?;
            let messages = traffic
                .generate(topo.num_processors(), seed)
                .with_context(|| fatnet::scenario::wording::cannot_make_traffic(&traffic))?;
            let selection = PathSelection::new(paths, seed);
            let report = analyze(&topo, &messages, selection)?;
            let summary =
                LoadSummary::new(&spec, &traffic, seed, paths, &topo, &messages, &report, top);
            if json {
                serde_json::to_writer_pretty(&mut *out, &summary)?;
                writeln!(out)?;
            } else {
                print_load(out, &summary)?;
            }
        }
        Command::Schedule(args) => return schedule_cmd::run(args, out),
        Command::Route(args) => route_cmd::run_route(args, out)?,
        Command::Simulate(args) => simulate_cmd::run(*args, out)?,
        Command::Queue(args) => queue_cmd::run(&args, out)?,
        Command::Exchange(args) => exchange_cmd::run(args, out)?,
        Command::Broadcast(args) => exchange_cmd::run_broadcast(args, out)?,
        Command::Clos(args) => clos_cmd::run(args, out)?,
        Command::Fabric(args) => fabric_cmd::run(args, out)?,
        Command::Sweep(args) => sweep_cmd::run(args, out)?,
        Command::Traffic {
            processors,
            traffic,
            seed,
            format,
            output,
        } => {
            let traffic = traffic_spec(&traffic)?;
            let messages = traffic
                .generate(processors, seed)
                .with_context(|| fatnet::scenario::wording::cannot_make_traffic(&traffic))?;
            let mut buf = Vec::new();
            match format {
                Format::Text => fatnet::traffic::io::write_text(&mut buf, &messages)?,
                Format::Json => fatnet::traffic::io::write_json(&mut buf, &messages)?,
            }
            match output {
                None => out.write_all(&buf)?,
                Some(path) => write_atomically(&path, &buf)?,
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Parses and builds a topology spec: errors are one line naming the spec.
fn topology(spec: &str) -> Result<(TopologySpec, AnyTopology)> {
    let parsed: TopologySpec = spec
        .parse()
        .with_context(|| fatnet::scenario::wording::invalid_topology_spec(&spec))?;
    let topo = parsed
        .build()
        .with_context(|| fatnet::scenario::wording::cannot_build(&spec))?;
    Ok((parsed, topo))
}

/// Parses a traffic spec.
fn traffic_spec(spec: &str) -> Result<TrafficSpec> {
    spec.parse()
        .with_context(|| format!("invalid traffic spec `{spec}`"))
}

/// Writes `bytes` to `path` atomically ([`fatnet_repro::write_atomically`]): never a
/// half-written file.
fn write_atomically(path: &std::path::Path, bytes: &[u8]) -> Result<()> {
    Ok(fatnet_repro::write_atomically(path, bytes)?)
}

#[derive(Debug, Serialize)]
struct TopologySummary {
    spec: String,
    processors: u32,
    switches: u32,
    nodes: u32,
    channels: u32,
    bundles: u32,
    levels: Vec<fatnet::topology::LevelSummary>,
}

impl TopologySummary {
    fn new(spec: &TopologySpec, topo: &AnyTopology) -> Result<Self> {
        let levels = topo
            .level_summary()
            .with_context(|| format!("cannot summarize `{spec}`"))?;
        Ok(Self {
            spec: spec.to_string(),
            processors: topo.num_processors(),
            switches: topo.num_switches(),
            nodes: topo.num_nodes(),
            channels: topo.num_channels(),
            bundles: topo.num_bundles(),
            levels,
        })
    }
}

fn direction_name(d: Direction) -> &'static str {
    match d {
        Direction::Up => "up",
        Direction::Down => "down",
        Direction::Forward => "forward",
    }
}

fn range(lo: u64, hi: u64) -> String {
    if lo == hi {
        lo.to_string()
    } else {
        format!("{lo}..{hi}")
    }
}

fn print_topology(out: &mut impl Write, spec: &TopologySpec, topo: &AnyTopology) -> Result<()> {
    let s = TopologySummary::new(spec, topo)?;
    writeln!(out, "topology    {}", s.spec)?;
    writeln!(out, "processors  {}", s.processors)?;
    writeln!(out, "switches    {}", s.switches)?;
    writeln!(out, "channels    {}", s.channels)?;
    writeln!(out, "bundles     {}", s.bundles)?;
    writeln!(out)?;
    writeln!(
        out,
        "{:>5}  {:<8} {:>10} {:>12} {:>9} {:>16}",
        "level", "dir", "channels", "capacity", "bundles", "bundle capacity"
    )?;
    for l in &s.levels {
        writeln!(
            out,
            "{:>5}  {:<8} {:>10} {:>12} {:>9} {:>16}",
            l.level,
            direction_name(l.direction),
            l.channels,
            range(l.min_capacity, l.max_capacity),
            l.bundles,
            range(l.min_bundle_capacity, l.max_bundle_capacity)
        )?;
    }
    Ok(())
}

#[derive(Debug, Serialize)]
struct HotBundle {
    bundle: u32,
    load: u64,
    capacity: u64,
    load_factor: f64,
    level: u32,
    direction: &'static str,
    /// A representative channel of the bundle and its end nodes (`p<i>` processor,
    /// `s<level>.<index>` switch, `external`).
    channel: u32,
    from: String,
    to: String,
}

/// A channel of the chosen routing, by routes over capacity.
#[derive(Debug, Serialize)]
struct HotChannel {
    channel: u32,
    /// Routes over the channel under `--paths`.
    load: u64,
    capacity: u64,
    /// `load / capacity`.
    ratio: f64,
    level: u32,
    direction: &'static str,
    from: String,
    to: String,
}

#[derive(Debug, Serialize)]
struct LoadSummary {
    topology: String,
    traffic: String,
    /// The traffic with its seed when the seed matters (text output only).
    #[serde(skip)]
    traffic_shown: String,
    seed: u64,
    messages: u64,
    self_messages: u64,
    load_factor: f64,
    load_factor_exact: ExactLambda,
    lower_bound_cycles: u64,
    one_cycle: bool,
    /// The routing the congestion, dilation and path lengths are of (`--paths`).
    paths: String,
    congestion: u64,
    congestion_channel: Option<u32>,
    /// The busiest channel, `from -> to`.
    congestion_at: Option<String>,
    /// The busiest channel's capacity: congestion counts messages, λ divides by capacity.
    congestion_capacity: Option<u64>,
    dilation: u64,
    total_path_length: u64,
    hottest: Vec<HotBundle>,
    /// The channels of the routing (`--paths`) with the most routes over capacity.
    hottest_channels: Vec<HotChannel>,
}

#[derive(Debug, Serialize)]
struct ExactLambda {
    load: u64,
    capacity: u64,
}

impl LoadSummary {
    #[allow(clippy::too_many_arguments)]
    fn new(
        spec: &TopologySpec,
        traffic: &TrafficSpec,
        seed: u64,
        paths: PathRule,
        topo: &AnyTopology,
        messages: &MessageSet,
        report: &LoadReport,
        top: usize,
    ) -> Self {
        let lf: LoadFactor = report.load_factor;
        // A representative channel per bundle, found in one pass.
        let hot = report.hottest_bundles(topo, top);
        let mut repr: Vec<Option<ChannelId>> = vec![None; hot.len()];
        for c in 0..topo.num_channels() {
            let b = topo.channel(ChannelId(c)).bundle;
            for (i, h) in hot.iter().enumerate() {
                if h.bundle == Some(b) && repr[i].is_none() {
                    repr[i] = Some(ChannelId(c));
                }
            }
            if repr.iter().all(Option::is_some) {
                break;
            }
        }
        let hottest = hot
            .iter()
            .zip(repr)
            .filter_map(|(h, c)| {
                let c = c?;
                let ch = topo.channel(c);
                let BundleId(b) = h.bundle?;
                Some(HotBundle {
                    bundle: b,
                    load: h.load,
                    capacity: h.capacity,
                    load_factor: h.value(),
                    level: ch.level,
                    direction: direction_name(ch.direction),
                    channel: c.0,
                    from: node_label(topo, ch.from),
                    to: node_label(topo, ch.to),
                })
            })
            .collect();
        let hottest_channels = report
            .hottest_channels(topo, top)
            .iter()
            .map(|h| {
                let ch = topo.channel(h.channel);
                HotChannel {
                    channel: h.channel.0,
                    load: h.load,
                    capacity: h.capacity,
                    ratio: h.value(),
                    level: ch.level,
                    direction: direction_name(ch.direction),
                    from: node_label(topo, ch.from),
                    to: node_label(topo, ch.to),
                }
            })
            .collect();
        Self {
            topology: spec.to_string(),
            traffic: traffic.to_string(),
            traffic_shown: traffic.shown_with_seed(seed),
            seed,
            messages: report.loads.messages,
            self_messages: messages.self_messages() as u64,
            load_factor: lf.value(),
            load_factor_exact: ExactLambda {
                load: lf.load,
                capacity: lf.capacity,
            },
            lower_bound_cycles: lf.ceil(),
            one_cycle: report.is_one_cycle(),
            paths: paths.to_string(),
            congestion: report.congestion,
            congestion_channel: report.congestion_channel.map(|c| c.0),
            congestion_at: report.congestion_channel.map(|c| {
                let ch = topo.channel(c);
                format!(
                    "{} -> {}",
                    node_label(topo, ch.from),
                    node_label(topo, ch.to)
                )
            }),
            congestion_capacity: report.congestion_channel.map(|c| topo.channel(c).capacity),
            dilation: report.loads.dilation,
            total_path_length: report.loads.total_path_length,
            hottest,
            hottest_channels,
        }
    }
}

fn print_load(out: &mut impl Write, s: &LoadSummary) -> Result<()> {
    writeln!(out, "topology        {}", s.topology)?;
    writeln!(out, "traffic         {}", s.traffic_shown)?;
    writeln!(
        out,
        "messages        {} ({} to self)",
        s.messages, s.self_messages
    )?;
    writeln!(
        out,
        "load factor     {:.6} = {}/{}  (λ(M) over channel bundles, a lower bound for every \
         routing: >= {} delivery cycles; {})",
        s.load_factor,
        s.load_factor_exact.load,
        s.load_factor_exact.capacity,
        s.lower_bound_cycles,
        if s.one_cycle {
            "one-cycle set"
        } else {
            "not one-cycle"
        }
    )?;
    match (
        &s.congestion_at,
        s.congestion_channel,
        s.congestion_capacity,
    ) {
        (Some(at), Some(c), Some(cap)) => writeln!(
            out,
            "congestion      {} on channel {c} ({at}, capacity {cap})  (messages on the busiest \
             channel under --paths {}, not divided by its capacity; by routes over capacity see \
             the hottest channels below)",
            s.congestion, s.paths
        )?,
        _ => writeln!(
            out,
            "congestion      {}  (--paths {})",
            s.congestion, s.paths
        )?,
    }
    writeln!(
        out,
        "dilation        {}  (longest path under --paths {})",
        s.dilation, s.paths
    )?;
    writeln!(out, "path length sum {}", s.total_path_length)?;
    if !s.hottest.is_empty() {
        writeln!(out)?;
        writeln!(
            out,
            "hottest bundles by λ (loads of the routing-independent analysis):"
        )?;
        writeln!(
            out,
            "{:>9} {:>10} {:>9} {:>10} {:>6}  {:<8} channel (from -> to)",
            "bundle", "load", "capacity", "λ", "level", "dir"
        )?;
        for h in &s.hottest {
            writeln!(
                out,
                "{:>9} {:>10} {:>9} {:>10.4} {:>6}  {:<8} {} ({} -> {})",
                h.bundle,
                h.load,
                h.capacity,
                h.load_factor,
                h.level,
                h.direction,
                h.channel,
                h.from,
                h.to
            )?;
        }
    }
    if !s.hottest_channels.is_empty() {
        writeln!(out)?;
        writeln!(
            out,
            "hottest channels under --paths {} (routes over capacity):",
            s.paths
        )?;
        writeln!(
            out,
            "{:>9} {:>10} {:>9} {:>10} {:>6}  {:<8} from -> to",
            "channel", "routes", "capacity", "ratio", "level", "dir"
        )?;
        for h in &s.hottest_channels {
            writeln!(
                out,
                "{:>9} {:>10} {:>9} {:>10.4} {:>6}  {:<8} {} -> {}",
                h.channel, h.load, h.capacity, h.ratio, h.level, h.direction, h.from, h.to
            )?;
        }
    }
    Ok(())
}

/// The progress bar of a command that runs `trials` seeded trials (hidden for a single trial;
/// indicatif draws nothing when stderr is not a terminal).
pub(crate) fn trial_progress_bar(trials: u64) -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::new(trials);
    bar.set_style(
        indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} trials, {eta} left")
            .expect("valid template"),
    );
    if trials < 2 {
        bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    }
    bar
}
