//! `fatnet clos`: Yuan's folded Clos `ftree(n+m, r)` (Yuan, *On nonblocking folded-Clos networks*):
//! the Lemma 1 nonblocking check with a counterexample, the exact worst-case contention, and
//! routing one pattern (oblivious routings or NONBLOCKINGADAPTIVE) through the simulator.

use std::io::Write;

use anyhow::{Context, Result, bail};
use clap::{Args, ValueEnum};
use fatnet::offline::clos::{
    AdaptiveConfig, ChannelLoad, ClosChannel, ClosRoutingKind, check_nonblocking,
    nonblocking_adaptive, simulate_routing, verify_counterexample, worst_contention,
};
use fatnet::topology::{FoldedClos, TopologySpec};
use fatnet::traffic::{Message, TrafficSpec};
use serde::Serialize;

use crate::traffic_spec;

/// Arguments of `fatnet clos`.
#[derive(Args, Debug)]
pub struct ClosArgs {
    /// `check`: Lemma 1, nonblocking or a two-pair counterexample; `worst`: the exact
    /// worst-case contention over all permutations and a permutation attaining it; `route`:
    /// route one pattern (`--traffic`) and count the pairs per channel.
    #[arg(value_enum)]
    action: Action,
    /// The network as a topology spec, `ftree:n=N,m=M,r=R` (as every other command takes it),
    /// instead of `--n --m --r`.
    #[arg(value_name = "SPEC", conflicts_with_all = ["n", "m", "r"])]
    spec: Option<TopologySpec>,
    /// Leaves per bottom switch.
    #[arg(long, required_unless_present = "spec")]
    n: Option<u64>,
    /// Top switches (up links per bottom switch).
    #[arg(long, required_unless_present = "spec")]
    m: Option<u64>,
    /// Bottom switches (ports per top switch).
    #[arg(long, required_unless_present = "spec")]
    r: Option<u64>,
    /// The routing: Yuan's n² routing (needs m >= n²), d-mod-m, s-mod-m, or (with `route`
    /// only) Yuan's NONBLOCKINGADAPTIVE.
    #[arg(long, value_enum, default_value_t = ClosRoutingKind::Yuan)]
    routing: ClosRoutingKind,
    /// The pattern for `route`: a traffic spec or `file:PATH` (see `fatnet traffic --help`).
    #[arg(long, short, default_value = "permutation")]
    traffic: String,
    /// Seed of the random patterns.
    #[arg(long, default_value_t = fatnet::scenario::DEFAULT_SEED)]
    seed: u64,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Action {
    /// Lemma 1: nonblocking, or a counterexample.
    Check,
    /// The exact worst-case contention over all permutations.
    Worst,
    /// Route one pattern and simulate it.
    Route,
}

#[derive(Debug, Serialize)]
struct CounterexampleOut {
    link: ClosChannel,
    pairs: [Message; 2],
    verified: bool,
}

#[derive(Debug, Serialize)]
struct CheckOut {
    network: String,
    n: u64,
    m: u64,
    r: u64,
    routing: &'static str,
    nonblocking: bool,
    cross_pairs: u64,
    max_link_pairs: u64,
    blocking_links: u64,
    counterexample: Option<CounterexampleOut>,
    worst_contention: u32,
    worst_link: Option<ClosChannel>,
    worst_permutation: Vec<Message>,
}

#[derive(Debug, Serialize)]
struct AdaptiveOut {
    digits: u32,
    configurations: u32,
    tops_per_configuration: u32,
    tops_needed: u64,
    tops_spanned: u32,
}

#[derive(Debug, Serialize)]
struct RouteOut {
    network: String,
    n: u64,
    m: u64,
    r: u64,
    routing: &'static str,
    traffic: String,
    /// The traffic with its seed when the seed matters (text output only).
    #[serde(skip)]
    traffic_shown: String,
    seed: u64,
    messages: u64,
    cross: u64,
    max_contention: u32,
    contention_free: bool,
    contended: Vec<ChannelLoad>,
    adaptive: Option<AdaptiveOut>,
}

/// Runs `fatnet clos`.
pub fn run(args: ClosArgs, out: &mut impl Write) -> Result<()> {
    let (n, m, r) = match (&args.spec, args.n, args.m, args.r) {
        (Some(TopologySpec::FoldedClos { n, m, r }), ..) => (*n, *m, *r),
        (Some(other), ..) => bail!(
            "`fatnet clos` works on Yuan's folded Clos: give `ftree:n=N,m=M,r=R`, not `{other}`"
        ),
        (None, Some(n), Some(m), Some(r)) => (n, m, r),
        // clap requires --n, --m and --r without a SPEC.
        (None, ..) => bail!("give `ftree:n=N,m=M,r=R` or --n, --m and --r"),
    };
    let network = format!("ftree({n}+{m}, {r})");
    let clos = FoldedClos::new(n, m, r).with_context(|| format!("cannot build {network}"))?;
    let oblivious = args
        .routing
        .oblivious(&clos)
        .with_context(|| format!("on {network}"))?;
    match (args.action, oblivious) {
        (Action::Check | Action::Worst, None) => bail!(
            "`--routing adaptive` chooses routes per permutation: use it with `fatnet clos route`"
        ),
        (Action::Check | Action::Worst, Some(routing)) => {
            let report = check_nonblocking(&clos, &*routing)?;
            let worst = worst_contention(&clos, &*routing)?;
            let o = CheckOut {
                network,
                n,
                m,
                r,
                routing: args.routing.name(),
                nonblocking: report.is_nonblocking(),
                cross_pairs: report.cross_pairs,
                max_link_pairs: report.max_link_pairs,
                blocking_links: report.blocking_links,
                counterexample: report.counterexample.map(|cx| CounterexampleOut {
                    link: cx.link,
                    pairs: cx.pairs,
                    verified: verify_counterexample(&clos, &*routing, &cx),
                }),
                worst_contention: worst.contention,
                worst_link: worst.link,
                worst_permutation: worst.permutation,
            };
            if args.json {
                serde_json::to_writer_pretty(&mut *out, &o)?;
                writeln!(out)?;
            } else {
                print_check(out, &o, args.action == Action::Worst)?;
            }
        }
        (Action::Route, routing) => {
            let traffic: TrafficSpec = traffic_spec(&args.traffic)?;
            let messages = traffic
                .generate(clos.ports(), args.seed)
                .with_context(|| fatnet::scenario::wording::cannot_make_traffic(&traffic))?;
            let (report, adaptive) = match routing {
                Some(routing) => (simulate_routing(&clos, &*routing, &messages)?, None),
                None => {
                    let a = nonblocking_adaptive(&clos, &messages, &AdaptiveConfig::default())
                        .with_context(|| format!("NONBLOCKINGADAPTIVE on {network}"))?;
                    let summary = AdaptiveOut {
                        digits: a.digits,
                        configurations: a.configurations,
                        tops_per_configuration: a.tops_per_configuration,
                        tops_needed: a.tops_needed,
                        tops_spanned: a.tops_spanned,
                    };
                    (a.report, Some(summary))
                }
            };
            let o = RouteOut {
                network,
                n,
                m,
                r,
                routing: args.routing.name(),
                traffic: traffic.to_string(),
                traffic_shown: traffic.shown_with_seed(args.seed),
                seed: args.seed,
                messages: report.messages,
                cross: report.cross,
                max_contention: report.max_load,
                contention_free: report.is_contention_free(),
                contended: report.contended,
                adaptive,
            };
            if args.json {
                serde_json::to_writer_pretty(&mut *out, &o)?;
                writeln!(out)?;
            } else {
                print_route(out, &o)?;
            }
        }
    }
    Ok(())
}

fn yes(b: bool) -> &'static str {
    if b { "yes" } else { "no" }
}

fn print_check(out: &mut impl Write, o: &CheckOut, worst: bool) -> Result<()> {
    writeln!(out, "network           {}", o.network)?;
    writeln!(out, "routing           {}", o.routing)?;
    writeln!(out, "nonblocking       {}", yes(o.nonblocking))?;
    writeln!(out, "cross pairs       {}", o.cross_pairs)?;
    writeln!(out, "max pairs/link    {}", o.max_link_pairs)?;
    writeln!(out, "blocking links    {}", o.blocking_links)?;
    if let Some(cx) = &o.counterexample {
        writeln!(
            out,
            "counterexample    {} carries {} -> {} and {} -> {} ({})",
            cx.link,
            cx.pairs[0].src,
            cx.pairs[0].dst,
            cx.pairs[1].src,
            cx.pairs[1].dst,
            if cx.verified {
                "verified by the simulator"
            } else {
                "NOT verified"
            }
        )?;
    }
    writeln!(out, "worst contention  {}", o.worst_contention)?;
    if worst {
        if let Some(link) = o.worst_link {
            writeln!(out, "worst link        {link}")?;
        }
        let pairs: Vec<String> = o
            .worst_permutation
            .iter()
            .map(|m| format!("{} -> {}", m.src, m.dst))
            .collect();
        writeln!(out, "worst permutation {}", pairs.join(", "))?;
    }
    Ok(())
}

fn print_route(out: &mut impl Write, o: &RouteOut) -> Result<()> {
    writeln!(out, "network           {}", o.network)?;
    writeln!(out, "routing           {}", o.routing)?;
    writeln!(out, "traffic           {}", o.traffic_shown)?;
    writeln!(
        out,
        "messages          {} ({} across bottom switches)",
        o.messages, o.cross
    )?;
    if let Some(a) = &o.adaptive {
        writeln!(
            out,
            "configurations    {} of {} tops (c = {}): {} tops needed, {} spanned",
            a.configurations, a.tops_per_configuration, a.digits, a.tops_needed, a.tops_spanned
        )?;
    }
    writeln!(out, "max contention    {}", o.max_contention)?;
    writeln!(out, "contention-free   {}", yes(o.contention_free))?;
    const SHOWN: usize = 10;
    for c in o.contended.iter().take(SHOWN) {
        writeln!(out, "  {} pairs on {}", c.load, c.channel)?;
    }
    if o.contended.len() > SHOWN {
        writeln!(
            out,
            "  ... {} more contended channels",
            o.contended.len() - SHOWN
        )?;
    }
    Ok(())
}
