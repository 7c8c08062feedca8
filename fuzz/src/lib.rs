//! The bodies of the fuzz targets, one function per target over raw bytes.
//!
//! They live here, not in `fuzz_targets/`, so that two harnesses run the same code:
//! libFuzzer (each `fuzz_targets/NAME.rs` calls [`TARGETS`]' `NAME`) and the normal test
//! suite, whose `fuzz_replay` test (in `crates/fatnet-repro/tests/it/`) includes this file
//! and replays every seed (`fuzz/seeds/NAME/`) and every committed finding
//! (`fuzz/regressions/NAME/`) through the same function. A body panics exactly when it finds
//! a defect: an error returned for bad input is the expected outcome, a panic is not.
//!
//! This file is compiled by both workspaces: it names only crates that both depend on
//! (`fatnet-topology`, `-traffic`, `-load`, `-fabric`, `-scenario`, `-repro`).

use fatnet_fabric::traffic::{self, FabricTraffic};
use fatnet_fabric::{Fabric, FabricTopology, compare, flitsim, ibdm, ibnetdiscover, opensm};
use fatnet_load::{PathSelection, analyze};
use fatnet_repro::sweep::SweepSpec;
use fatnet_scenario::{Network, PacketRunFile, PacketScenario};
use fatnet_topology::{Topology, TopologySpec};
use fatnet_traffic::TrafficSpec;
use fatnet_traffic::io::{read_json, read_text};

/// A target's body: panics on a defect, returns on anything else.
pub type Body = fn(&[u8]);

/// Every target: its name (the file stem under `fuzz_targets/` and the folder under `seeds/`
/// and `regressions/`) and its body.
pub const TARGETS: &[(&str, Body)] = &[
    ("topology_spec", topology_spec),
    ("traffic_spec", traffic_spec),
    ("message_set", message_set),
    ("sweep_toml", sweep_toml),
    ("simulate_config", simulate_config),
    ("fabric_readers", fabric_readers),
    ("sl2vl_dump", sl2vl_dump),
    ("path_records", path_records),
    ("dst_seq", dst_seq),
    ("host_pairs", host_pairs),
    ("fabric_tables", fabric_tables),
];

/// The input as text: its longest valid UTF-8 prefix, as libFuzzer's `&str` harnesses take it
/// (so an input saved by one replays the same text here).
fn text(bytes: &[u8]) -> &str {
    match std::str::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => std::str::from_utf8(&bytes[..e.valid_up_to()]).expect("a valid prefix"),
    }
}

/// The largest network a body builds: keeps one execution in milliseconds.
const SMALL: u64 = 256;

/// Topology specs: a spec that parses prints to a spec that parses to itself; a small one
/// builds, its canonical path from the first to the last processor is a chain of channels from
/// the injection to the ejection node, and λ(M) of a random permutation is at most the
/// congestion of the standard routing (every channel has capacity at least one).
pub fn topology_spec(bytes: &[u8]) {
    let text = text(bytes);
    let Ok(spec) = text.parse::<TopologySpec>() else {
        return;
    };
    let shown = spec.to_string();
    let again: TopologySpec = shown
        .parse()
        .unwrap_or_else(|e| panic!("`{shown}` (from `{text}`) does not parse: {e}"));
    assert_eq!(again, spec, "`{text}` round trip");
    if !is_small(&spec) {
        return;
    }
    let Ok(topo) = spec.build() else {
        return;
    };
    let p = topo.num_processors();
    if p == 0 {
        return;
    }
    let (src, dst) = (0, p - 1);
    let path = topo.path(src, dst);
    let mut at = topo.injection_node(src);
    for &c in &path {
        let channel = topo.channel(c);
        assert_eq!(
            channel.from, at,
            "`{shown}`: path {src}->{dst} is not a chain"
        );
        assert!(
            channel.capacity >= 1,
            "`{shown}`: channel {c:?} has capacity 0"
        );
        at = channel.to;
    }
    if src != dst {
        assert_eq!(
            at,
            topo.ejection_node(dst),
            "`{shown}`: path ends elsewhere"
        );
    }
    let permutation: TrafficSpec = "permutation".parse().expect("a built-in pattern");
    if let Ok(messages) = permutation.generate(p, 7)
        && let Ok(report) = analyze(&topo, &messages, PathSelection::Standard)
    {
        let lambda = report.load_factor.load as f64 / report.load_factor.capacity as f64;
        assert!(
            lambda <= report.congestion as f64 + 1e-9,
            "`{shown}`: λ = {lambda} above the congestion {}",
            report.congestion
        );
    }
}

/// Whether `spec` has at most [`SMALL`] processors and switches per level (a quick bound from
/// the parameters alone, before anything is built).
fn is_small(spec: &TopologySpec) -> bool {
    let pow = |base: u64, exp: u64| base.checked_pow(u32::try_from(exp).ok()?);
    let size = match *spec {
        TopologySpec::FatTree { n, .. } | TopologySpec::Bft { n } => Some(n),
        TopologySpec::KAryNTree { k, levels } => pow(k, levels),
        TopologySpec::FoldedClos { n, m, r } | TopologySpec::Clos { n, m, r } => n
            .checked_mul(r)
            .and_then(|t| t.checked_add(m.checked_mul(r)?)),
        TopologySpec::Hypercube { d } | TopologySpec::Butterfly { d } => pow(2, d),
        _ => None,
    };
    size.is_some_and(|s| s <= SMALL)
}

/// Traffic specs: parse; round trip; generate on 16 processors (never reading a file, never
/// more than 1,024 messages).
pub fn traffic_spec(bytes: &[u8]) {
    let text = text(bytes);
    let Ok(spec) = text.parse::<TrafficSpec>() else {
        return;
    };
    let shown = spec.to_string();
    let again: TrafficSpec = shown
        .parse()
        .unwrap_or_else(|e| panic!("`{shown}` (from `{text}`) does not parse: {e}"));
    assert_eq!(again.to_string(), shown, "`{text}` round trip");
    // `replicated:k=K` on 16 processors is 16·K messages, legitimately seconds of work for a
    // large K (the first finding of the 10-minute runs, a timeout at K = 3,031,982, 48 M
    // messages, 5 s in a dev build): the body generates small sets only.
    if generates_small(&spec)
        && let Ok(set) = spec.generate(16, 7)
    {
        // Errors are fine (a pattern may need more processors); panics are not.
        assert!(set.messages().iter().all(|m| m.src < 16 && m.dst < 16));
    }
}

/// Whether `spec` makes a small set on a small network without reading a file: every pattern
/// but `file:` and `replicated:k=K` for K over 64.
fn generates_small(spec: &TrafficSpec) -> bool {
    match spec {
        TrafficSpec::File { .. } => false,
        TrafficSpec::Replicated { k } => *k <= 64,
        _ => true,
    }
}

/// Message-set files: the text reader and the JSON reader on the same bytes.
pub fn message_set(bytes: &[u8]) {
    if let Ok(set) = read_text(bytes, 64) {
        assert!(set.messages().iter().all(|m| m.src < 64 && m.dst < 64));
    }
    let _ = read_json(bytes);
}

/// Sweep files: the TOML checker (grid expansion included) on any text.
pub fn sweep_toml(bytes: &[u8]) {
    let _ = SweepSpec::parse(text(bytes));
}

/// `fatnet simulate --config` files: the typed options read from TOML, then the checks that
/// run before any trial, the CLI's argument-to-config path: the run options (trial budget,
/// threads) and, on a small built-in network with a generated traffic, the whole preparation
/// (options resolved against the network, the network built, trial 0's traffic made).
pub fn simulate_config(bytes: &[u8]) {
    let Ok(file) = PacketRunFile::parse(text(bytes)) else {
        return;
    };
    let Ok(run) = file.run.resolve() else {
        return;
    };
    if let (Some(Network::Topology(spec)), Some(traffic)) = (&file.topology, &file.traffic)
        && is_small(spec)
        && generates_small(traffic)
    {
        let scenario = PacketScenario {
            topology: Network::Topology(spec.clone()),
            traffic: traffic.clone(),
            options: file.options,
        };
        let _ = scenario.prepare(run.seed);
    }
}

/// Every fabric reader on the same text: ib_flit_sim `.ned` and `.fdbs`, ibdm `.topo`,
/// ibnetdiscover, OpenSM's subnet list and forwarding tables; a fabric that parses is traced
/// as a topology when it is small.
pub fn fabric_readers(bytes: &[u8]) {
    let text = text(bytes);
    let mut fabrics = Vec::new();
    fabrics.extend(flitsim::parse_ned(text, "f.ned").ok());
    fabrics.extend(ibdm::parse(text, "f.topo", &ibdm::IbdmOptions::default()).ok());
    fabrics.extend(ibnetdiscover::parse(text, "f.txt").ok());
    fabrics.extend(opensm::parse_subnet_lst(text, "opensm-subnet.lst").ok());
    let _ = flitsim::parse_fdbs(text, "f.fdbs");
    let _ = opensm::parse_fdbs(text, "opensm-lfts.dump");
    for (fabric, _) in fabrics {
        if fabric.node_count() <= 64 {
            let _ = FabricTopology::new(&fabric);
        }
    }
}

/// OpenSM's `opensm-sl2vl.dump` (`fatnet_fabric::credit::parse_sl2vl`): a table that parses has
/// VLs 0..=15, ports up to 254, a unicast base LID and each (input, output) pair once.
pub fn sl2vl_dump(bytes: &[u8]) {
    let text = text(bytes);
    let Ok((tables, report)) = fatnet_fabric::credit::parse_sl2vl(text, "opensm-sl2vl.dump") else {
        return;
    };
    assert!(
        report
            .unrecognised
            .iter()
            .all(|l| (1..=report.lines).contains(l))
    );
    for t in &tables {
        assert!((1..=0xBFFF).contains(&t.lid), "{t:?}");
        let mut pairs: Vec<(u8, u8)> = t.rows.iter().map(|r| (r.0, r.1)).collect();
        assert!(pairs.iter().all(|&(i, o)| i <= 254 && o <= 254), "{t:?}");
        pairs.sort_unstable();
        let n = pairs.len();
        pairs.dedup();
        assert_eq!(pairs.len(), n, "a port pair twice: {t:?}");
        assert!(t.rows.iter().all(|r| r.2.iter().all(|&v| v <= 15)), "{t:?}");
    }
}

/// `saquery PR` output (`fatnet_fabric::credit::parse_path_records`): a record that parses has
/// unicast LIDs and an SL 0..=15, one record per (slid, dlid) pair.
pub fn path_records(bytes: &[u8]) {
    let text = text(bytes);
    let Ok((records, _)) = fatnet_fabric::credit::parse_path_records(text, "saquery-pr.out") else {
        return;
    };
    let mut pairs: Vec<(u16, u16)> = records.iter().map(|r| (r.slid, r.dlid)).collect();
    for r in &records {
        assert!(
            (1..=0xBFFF).contains(&r.slid) && (1..=0xBFFF).contains(&r.dlid),
            "{r:?}"
        );
        assert!(r.sl <= 15, "{r:?}");
    }
    pairs.sort_unstable();
    let n = pairs.len();
    pairs.dedup();
    assert_eq!(pairs.len(), n, "a (slid, dlid) pair twice");
}

/// The fabric the traffic and table bodies resolve against: switch `S-1` (LID 1, GUID 1) with
/// the CAs `H-2` .. `H-5` (LIDs 2..5, described `host 2` ..) on its ports 1..4.
fn small_fabric() -> Fabric {
    let mut text = String::from("Switch\t4 \"S-1\"\t\t# \"sw\" base port 0 lid 1 lmc 0\n");
    for h in 2..=5 {
        text.push_str(&format!(
            "[{}]\t\"H-{h}\"[1]({h}1) \t\t# \"host {h}\" lid {h} 4xQDR\n",
            h - 1
        ));
    }
    ibnetdiscover::parse(&text, "small")
        .expect("a valid fabric")
        .0
}

/// Every pair is a pair of CA-order positions.
fn check_pairs(fabric: &Fabric, pairs: &[(u32, u32)]) {
    let n = fabric.ca_order().len() as u32;
    assert!(pairs.iter().all(|&(s, d)| s < n && d < n), "{pairs:?}");
}

/// ib_flit_sim destination sequences: the input up to a line `---` is the `.dstSeq`, the rest
/// its `.dstSeq.ini`; resolved against [`small_fabric`], the pairs are CA positions and one per
/// entry of every assigned vector.
pub fn dst_seq(bytes: &[u8]) {
    let text = text(bytes);
    let (seq_text, ini_text) = text.split_once("\n---\n").unwrap_or((text, ""));
    let seq = traffic::parse_dst_seq(seq_text, "x.dstSeq");
    let ini = traffic::parse_dst_seq_ini(ini_text, "x.dstSeq.ini");
    let (Ok((seq, _)), Ok((ini, _))) = (seq, ini) else {
        return;
    };
    let fabric = small_fabric();
    if let Ok(pairs) = traffic::dst_seq_pairs(&fabric, &seq, "x.dstSeq", &ini, "x.dstSeq.ini") {
        check_pairs(&fabric, &pairs);
        let entries: usize = ini.iter().map(|a| seq.vectors[&a.index].lids.len()).sum();
        assert_eq!(pairs.len(), entries);
    }
}

/// Host-name traffic against [`small_fabric`], and the input as a `--traffic` text: one that
/// parses prints to a text that parses to itself.
pub fn host_pairs(bytes: &[u8]) {
    let text = text(bytes);
    let fabric = small_fabric();
    if let Ok((pairs, _)) = traffic::parse_host_pairs(&fabric, text, "hosts.txt") {
        check_pairs(&fabric, &pairs);
    }
    if let Ok(t) = text.parse::<FabricTraffic>() {
        let again: FabricTraffic = t.to_string().parse().expect("printed traffic parses");
        assert_eq!(again.to_string(), t.to_string());
    }
}

/// The table readers (`opensm-lfts.dump` / `ibroute` / `dump_fts`, `opensm.fdbs`) attached to
/// [`small_fabric`] and traced; the `ibnetdiscover` reader's fabric compared with itself (the
/// same) and with [`small_fabric`] (every node and link counted once).
pub fn fabric_tables(bytes: &[u8]) {
    let text = text(bytes);
    for tables in [
        opensm::parse_lfts(text, "opensm-lfts.dump"),
        opensm::parse_fdbs(text, "opensm.fdbs"),
    ] {
        if let Ok((tables, _)) = tables
            && let Ok(f) = opensm::attach_tables(small_fabric(), &tables, "t")
        {
            let s = f.trace_all();
            assert_eq!(s.routes, 4 * 3);
        }
    }
    if let Ok((f, _)) = ibnetdiscover::parse(text, "f.txt") {
        assert!(compare(&f, &f).is_same());
        let g = small_fabric();
        let c = compare(&f, &g);
        assert_eq!(c.matched.len() + c.only_in_a.len(), f.node_count());
        assert_eq!(c.matched.len() + c.only_in_b.len(), g.node_count());
        assert_eq!(c.common_links + c.links_only_in_a.len(), f.links().len());
        assert_eq!(c.common_links + c.links_only_in_b.len(), g.links().len());
    }
}
