//! `fatnet fabric compare A B`: two files of one fabric (a `.topo` and a `.ned`, an
//! `ibnetdiscover` dump and an OpenSM subnet list, ...) compared with
//! `fatnet_fabric::compare`: the nodes, links and port counts one has and the other lacks.

use std::fmt::Write as _;
use std::path::PathBuf;

use anyhow::Result;
use clap::Args;
use fatnet::fabric::{Fabric, FabricFiles, FabricFormat, Link, NodeId, compare};
use serde::Serialize;

use super::pretty_json;

pub(super) const COMPARE_HELP: &str = "\
WHAT IS COMPARED:
  Each file is read structure only (no tables), each with its own --format-a / --format-b.
  Nodes are matched by node GUID (when both files give GUIDs), by name, by normalised name
  ('-' and '/' read as '_', a trailing chip suffix _U1 dropped: ibdm's H-1 is ib_flit_sim's
  H_1_U1), then through the cables: the peers of matched nodes on the same port number are
  matched. A link is common when the other file links the matched ends on the same ports.
  Reported: nodes, links and port counts present in one file only (the missing and extra
  links and nodes that ibdmchk and ibnetdiscover --diff report against a reference topology).

  An ibdm .topo describes systems: a director appears as its front panel (SYS L<n>/P<p>), its
  spine chips and internal cables are in ibdm's .ibnl files, not in the .topo. Against the
  .ned of the same fabric, compare lists them as present in the .ned only.

EXIT STATUS: 0 whether or not the files differ (the report says which); non-zero when a file
cannot be read.";

/// Arguments of `fatnet fabric compare`.
#[derive(Args, Debug)]
pub(super) struct CompareArgs {
    /// The first topology file (`.topo`, `.ned`, an `ibnetdiscover` dump, `opensm-subnet.lst`
    /// or an OpenSM dump folder).
    a: PathBuf,
    /// The second topology file.
    b: PathBuf,
    /// The format of the first file.
    #[arg(long, value_enum, default_value_t = FabricFormat::Auto)]
    format_a: FabricFormat,
    /// The format of the second file.
    #[arg(long, value_enum, default_value_t = FabricFormat::Auto)]
    format_b: FabricFormat,
    /// How many nodes and links of each kind of difference to list.
    #[arg(long, default_value_t = 10)]
    examples: usize,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

#[derive(Serialize)]
struct Side {
    file: String,
    format: &'static str,
    nodes: usize,
    links: usize,
    unrecognised_lines: usize,
    /// Nodes without a match in the other file (the first `--examples`).
    only_here: Vec<String>,
    only_here_count: usize,
    /// Links the other file lacks, as `NAME[port] -- NAME[port]` (the first `--examples`).
    links_only_here: Vec<String>,
    links_only_here_count: usize,
}

#[derive(Serialize)]
struct PortsJson {
    a: String,
    b: String,
    ports_a: u8,
    ports_b: u8,
}

#[derive(Serialize)]
struct MatchedJson {
    total: usize,
    by_guid: usize,
    by_name: usize,
    by_normalised_name: usize,
    by_structure: usize,
}

#[derive(Serialize)]
struct CompareJson {
    same: bool,
    a: Side,
    b: Side,
    matched: MatchedJson,
    common_links: usize,
    port_counts_differ: Vec<PortsJson>,
    port_counts_differ_count: usize,
}

fn link_text(f: &Fabric, l: &Link) -> String {
    format!(
        "{}[{}] -- {}[{}]",
        f.node(l.a.node).name(),
        l.a.port,
        f.node(l.b.node).name(),
        l.b.port
    )
}

fn side(
    path: &std::path::Path,
    l: &fatnet::fabric::LoadedFabric,
    only: &[NodeId],
    links: &[Link],
    n: usize,
) -> Side {
    let f = &l.fabric;
    Side {
        file: path.display().to_string(),
        format: l.format.name(),
        nodes: f.node_count(),
        links: f.links().len(),
        unrecognised_lines: l.unrecognised,
        only_here: only
            .iter()
            .take(n)
            .map(|&x| f.node(x).name().to_owned())
            .collect(),
        only_here_count: only.len(),
        links_only_here: links.iter().take(n).map(|x| link_text(f, x)).collect(),
        links_only_here_count: links.len(),
    }
}

/// Runs `fatnet fabric compare`.
pub(super) fn run(args: &CompareArgs) -> Result<String> {
    let load = |path: &PathBuf, format| {
        FabricFiles {
            format,
            ..FabricFiles::new(path)
        }
        .load()
    };
    let la = load(&args.a, args.format_a)?;
    let lb = load(&args.b, args.format_b)?;
    let (fa, fb) = (&la.fabric, &lb.fabric);
    let c = compare(fa, fb);
    let n = args.examples;
    let j = CompareJson {
        same: c.is_same(),
        a: side(&args.a, &la, &c.only_in_a, &c.links_only_in_a, n),
        b: side(&args.b, &lb, &c.only_in_b, &c.links_only_in_b, n),
        matched: MatchedJson {
            total: c.matched_by.total(),
            by_guid: c.matched_by.guid,
            by_name: c.matched_by.name,
            by_normalised_name: c.matched_by.normalised,
            by_structure: c.matched_by.structure,
        },
        common_links: c.common_links,
        port_counts_differ: c
            .port_counts_differ
            .iter()
            .take(n)
            .map(|&(x, y)| PortsJson {
                a: fa.node(x).name().to_owned(),
                b: fb.node(y).name().to_owned(),
                ports_a: fa.node(x).port_count(),
                ports_b: fb.node(y).port_count(),
            })
            .collect(),
        port_counts_differ_count: c.port_counts_differ.len(),
    };
    if args.json {
        return pretty_json(&j);
    }
    let mut s = String::new();
    for (tag, x) in [("A", &j.a), ("B", &j.b)] {
        writeln!(
            s,
            "{tag}: {} ({}): {} nodes, {} links, {} unrecognised lines",
            x.file, x.format, x.nodes, x.links, x.unrecognised_lines
        )?;
    }
    let m = &j.matched;
    writeln!(
        s,
        "matched {} nodes ({} by GUID, {} by name, {} by normalised name, {} through cables); {} links in both",
        m.total, m.by_guid, m.by_name, m.by_normalised_name, m.by_structure, j.common_links
    )?;
    if j.same {
        writeln!(
            s,
            "same fabric: no node, link or port count in one file only"
        )?;
        return Ok(s);
    }
    writeln!(s, "the files disagree:")?;
    for (tag, x) in [("A", &j.a), ("B", &j.b)] {
        if x.only_here_count > 0 {
            writeln!(
                s,
                "  {} nodes only in {tag}, e.g. {}",
                x.only_here_count,
                x.only_here.join(", ")
            )?;
        }
        if x.links_only_here_count > 0 {
            writeln!(s, "  {} links only in {tag}, e.g.", x.links_only_here_count)?;
            for l in &x.links_only_here {
                writeln!(s, "    {l}")?;
            }
        }
    }
    if j.port_counts_differ_count > 0 {
        let ex: Vec<String> = j
            .port_counts_differ
            .iter()
            .map(|p| format!("{} {} / {} {}", p.a, p.ports_a, p.b, p.ports_b))
            .collect();
        writeln!(
            s,
            "  {} matched nodes with different port counts, e.g. {}",
            j.port_counts_differ_count,
            ex.join(", ")
        )?;
    }
    Ok(s)
}
