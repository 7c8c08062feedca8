//! Graph export of any topology: node and edge lists as JSON ([`GraphExport`]), GraphML
//! ([`to_graphml`]) and Graphviz DOT ranked by level ([`to_dot`]).
//!
//! **Key design decision: an edge is a directed channel.** Every [`Channel`] becomes one edge
//! with its capacity, level, direction and bundle, so the export holds exactly
//! [`Topology::num_nodes`] nodes and [`Topology::num_channels`] edges, the sum of the edge
//! capacities is the network's total capacity, and edge `i` is `ChannelId(i)`. Parallel
//! channels (a butterfly fat-tree's links to a parent) stay separate edges that share a
//! `bundle`; grouping edges by `bundle` and summing their capacities gives the bundles of the
//! load factor.
//!
//! Node `i` is `NodeId(i)`, with its [`node_label`](crate::node_label) (`p<i>`,
//! `s<level>.<index>`, `external`), kind and level. The output is deterministic: nodes and
//! edges in id order.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use crate::export::label;
use crate::{
    Channel, ChannelId, Direction, NodeId, NodeKind, Topology, TopologyError, check_memory_budget,
};

crate::named_options! {
    /// A file format of the graph export ([`render_graph`]).
    pub enum GraphFormat("graph format") {
        /// JSON node and edge lists (`GraphExport`).
        Json = "json",
        /// GraphML, with `<key>` declarations for every attribute.
        Graphml = "graphml",
        /// Graphviz DOT, one `rank=same` group per level, processors at the bottom.
        Dot = "dot",
    }
}

/// One node of a [`GraphExport`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GraphNode {
    /// The node id (`NodeId`).
    pub id: u32,
    /// Its short name (`p<i>`, `s<level>.<index>`, `external`).
    pub label: String,
    /// Processor, switch or external.
    pub kind: NodeKind,
    /// Its level (0 = processors on trees; stage or dimension elsewhere).
    pub level: u32,
    /// Its index within the level.
    pub index: u32,
}

/// One edge of a [`GraphExport`]: a directed channel.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GraphEdge {
    /// The channel id (`ChannelId`).
    pub id: u32,
    /// Tail node id.
    pub source: u32,
    /// Head node id.
    pub target: u32,
    /// The channel's level (level-0 channels touch processors).
    pub level: u32,
    /// Up, down or forward.
    pub direction: Direction,
    /// Messages the channel carries at once.
    pub capacity: u64,
    /// The bundle of parallel channels it belongs to (`BundleId`).
    pub bundle: u32,
}

/// A topology as node and edge lists, for JSON.
///
/// An edge is a directed channel: every [`Channel`] becomes one edge with its capacity,
/// level, direction and bundle, so the export holds exactly [`Topology::num_nodes`] nodes and
/// [`Topology::num_channels`] edges, the edge capacities sum to the network's total capacity,
/// and edge `i` is `ChannelId(i)`. Parallel channels (a butterfly fat-tree's links to a
/// parent) stay separate edges that share a `bundle`: grouping edges by `bundle` and summing
/// their capacities gives the bundles of the load factor. Node `i` is `NodeId(i)`, with its
/// [`node_label`](crate::node_label), kind and level. Nodes and edges are in id order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GraphExport {
    /// The topology's name ([`Topology::name`]).
    pub name: String,
    /// Every node, in id order.
    pub nodes: Vec<GraphNode>,
    /// Every directed channel, in id order.
    pub edges: Vec<GraphEdge>,
}

// Upper bounds of the text of one node and one edge in each format, with every number at its
// widest (ten digits for a u32, twenty for a capacity), so that the estimates bound the output.
const JSON_NODE_TEXT: u128 = 192;
const JSON_EDGE_TEXT: u128 = 256;
const GRAPHML_NODE_TEXT: u128 = 208;
const GRAPHML_EDGE_TEXT: u128 = 288;
// A DOT node line, plus a `{ rank=same; ... }` group per level (at most one per node).
const DOT_NODE_TEXT: u128 = 136;
const DOT_EDGE_TEXT: u128 = 176;
// Headers and key declarations.
const PREAMBLE: u128 = 4096;

fn counts<T: Topology + ?Sized>(topo: &T) -> (u128, u128) {
    (
        u128::from(topo.num_nodes()),
        u128::from(topo.num_channels()),
    )
}

/// Estimated bytes of [`graph_export`]'s lists (a node's label included).
pub fn graph_export_bytes_estimate<T: Topology + ?Sized>(topo: &T) -> u128 {
    let (n, e) = counts(topo);
    let node = std::mem::size_of::<GraphNode>() as u128 + 24;
    let edge = std::mem::size_of::<GraphEdge>() as u128;
    n * node + e * edge
}

/// Estimated bytes of [`render_graph`] in `format`: the text, and what is built to write it
/// (the lists for JSON, the nodes sorted by level for DOT).
pub fn graph_bytes_estimate<T: Topology + ?Sized>(topo: &T, format: GraphFormat) -> u128 {
    let (n, e) = counts(topo);
    PREAMBLE
        + match format {
            GraphFormat::Json => {
                graph_export_bytes_estimate(topo) + n * JSON_NODE_TEXT + e * JSON_EDGE_TEXT
            }
            GraphFormat::Graphml => n * GRAPHML_NODE_TEXT + e * GRAPHML_EDGE_TEXT,
            GraphFormat::Dot => n * (DOT_NODE_TEXT + 8) + e * DOT_EDGE_TEXT,
        }
}

/// Estimated bytes of [`to_dot`] (the DOT case of [`graph_bytes_estimate`]).
pub fn dot_bytes_estimate<T: Topology + ?Sized>(topo: &T) -> u128 {
    graph_bytes_estimate(topo, GraphFormat::Dot)
}

fn what<T: Topology + ?Sized>(topo: &T, format: GraphFormat) -> String {
    let kind = match format {
        GraphFormat::Json => "JSON graph export",
        GraphFormat::Graphml => "GraphML export",
        GraphFormat::Dot => "DOT export",
    };
    format!("the {kind} of {}", topo.name())
}

/// The topology as node and edge lists ([`GraphExport`]).
///
/// # Errors
///
/// [`TopologyError::OverMemoryBudget`] when the lists ([`graph_export_bytes_estimate`])
/// would exceed [`crate::MEMORY_BUDGET`]; nothing is allocated then.
pub fn graph_export<T: Topology + ?Sized>(topo: &T) -> Result<GraphExport, TopologyError> {
    check_memory_budget(
        || format!("the graph export of {}", topo.name()),
        graph_export_bytes_estimate(topo),
    )?;
    Ok(build_export(topo))
}

fn build_export<T: Topology + ?Sized>(topo: &T) -> GraphExport {
    let nodes = (0..topo.num_nodes())
        .map(|v| {
            let node = topo.node(NodeId(v));
            GraphNode {
                id: v,
                label: label(&node),
                kind: node.kind,
                level: node.level,
                index: node.index,
            }
        })
        .collect();
    let edges = (0..topo.num_channels())
        .map(|c| {
            let ch = topo.channel(ChannelId(c));
            GraphEdge {
                id: c,
                source: ch.from.0,
                target: ch.to.0,
                level: ch.level,
                direction: ch.direction,
                capacity: ch.capacity,
                bundle: ch.bundle.0,
            }
        })
        .collect();
    GraphExport {
        name: topo.name(),
        nodes,
        edges,
    }
}

/// The topology's graph in `format`: pretty JSON of [`GraphExport`], [`to_graphml`] or
/// [`to_dot`].
///
/// # Errors
///
/// [`TopologyError::OverMemoryBudget`] naming the format and the topology when the output
/// and what is built to write it ([`graph_bytes_estimate`]) would exceed
/// [`crate::MEMORY_BUDGET`]; nothing is allocated then.
pub fn render_graph<T: Topology + ?Sized>(
    topo: &T,
    format: GraphFormat,
) -> Result<String, TopologyError> {
    check_memory_budget(|| what(topo, format), graph_bytes_estimate(topo, format))?;
    Ok(match format {
        GraphFormat::Json => {
            let mut text = serde_json::to_string_pretty(&build_export(topo))
                // Strings, integers and unit enums only: serialising cannot fail.
                .expect("a GraphExport serializes");
            text.push('\n');
            text
        }
        GraphFormat::Graphml => write_graphml(topo),
        GraphFormat::Dot => write_dot(topo),
    })
}

/// The topology in GraphML: a directed graph with a node per node and an edge per channel;
/// node attributes `label`, `kind`, `level`, `index`, edge attributes `level`, `direction`,
/// `capacity` (`long`), `bundle`, each declared by a `<key>` (`nlabel`, `nkind`, `nlevel`,
/// `nindex`, `elevel`, `edirection`, `ecapacity`, `ebundle`), and the topology's name as the
/// graph's `name`. Node ids are `n<id>`, edge ids `e<channel id>`.
///
/// # Errors
///
/// [`TopologyError::OverMemoryBudget`] when the text ([`graph_bytes_estimate`]) would exceed
/// [`crate::MEMORY_BUDGET`]; nothing is allocated then.
pub fn to_graphml<T: Topology + ?Sized>(topo: &T) -> Result<String, TopologyError> {
    render_graph(topo, GraphFormat::Graphml)
}

/// The topology in Graphviz DOT, drawn bottom-up (`rankdir=BT`) with one `{ rank=same; ... }`
/// group per node level, in increasing level order: processors at the bottom, the roots (and a
/// fat-tree's `external` node) at the top; the stages of a butterfly or an unfolded Clos from
/// bottom to top; a hypercube, whose nodes are all processors, on one rank. Processors are
/// boxes, switches circles; every node carries `kind` and `level` attributes. Every channel is
/// an edge with `capacity`, `level` and `direction` attributes, its capacity as `label`, a
/// `penwidth` of the capacity's bit length (1, 2, 3, ... for 1, 2–3, 4–7, ...), blue going up,
/// red going down, black forward. Node ids are `n<id>`.
///
/// # Errors
///
/// [`TopologyError::OverMemoryBudget`] when the text ([`dot_bytes_estimate`]) would exceed
/// [`crate::MEMORY_BUDGET`]; nothing is allocated then.
pub fn to_dot<T: Topology + ?Sized>(topo: &T) -> Result<String, TopologyError> {
    render_graph(topo, GraphFormat::Dot)
}

fn kind_name(kind: NodeKind) -> &'static str {
    match kind {
        NodeKind::Processor => "processor",
        NodeKind::Switch => "switch",
        NodeKind::External => "external",
    }
}

fn direction_name(d: Direction) -> &'static str {
    match d {
        Direction::Up => "up",
        Direction::Down => "down",
        Direction::Forward => "forward",
    }
}

/// `text` with the five XML special characters escaped, for attribute values and content.
fn xml_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    out
}

/// `text` as the inside of a DOT quoted string.
fn dot_escape(text: &str) -> String {
    text.replace('\\', "\\\\").replace('"', "\\\"")
}

/// The keys of the GraphML export: (id, for, attr.name, attr.type).
const GRAPHML_KEYS: [(&str, &str, &str, &str); 9] = [
    ("name", "graph", "name", "string"),
    ("nlabel", "node", "label", "string"),
    ("nkind", "node", "kind", "string"),
    ("nlevel", "node", "level", "int"),
    ("nindex", "node", "index", "long"),
    ("elevel", "edge", "level", "int"),
    ("edirection", "edge", "direction", "string"),
    ("ecapacity", "edge", "capacity", "long"),
    ("ebundle", "edge", "bundle", "long"),
];

// `write!` into a `String` cannot fail: the results below are ignored.
fn write_graphml<T: Topology + ?Sized>(topo: &T) -> String {
    let mut s = String::new();
    s.push_str("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    s.push_str(
        "<graphml xmlns=\"http://graphml.graphdrawing.org/xmlns\" \
         xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" \
         xsi:schemaLocation=\"http://graphml.graphdrawing.org/xmlns \
         http://graphml.graphdrawing.org/xmlns/1.0/graphml.xsd\">\n",
    );
    for (id, for_, name, ty) in GRAPHML_KEYS {
        let _ = writeln!(
            s,
            "  <key id=\"{id}\" for=\"{for_}\" attr.name=\"{name}\" attr.type=\"{ty}\"/>"
        );
    }
    s.push_str("  <graph id=\"G\" edgedefault=\"directed\">\n");
    let _ = writeln!(
        s,
        "    <data key=\"name\">{}</data>",
        xml_escape(&topo.name())
    );
    for v in 0..topo.num_nodes() {
        let node = topo.node(NodeId(v));
        let _ = writeln!(
            s,
            "    <node id=\"n{v}\"><data key=\"nlabel\">{}</data><data key=\"nkind\">{}</data>\
             <data key=\"nlevel\">{}</data><data key=\"nindex\">{}</data></node>",
            xml_escape(&label(&node)),
            kind_name(node.kind),
            node.level,
            node.index
        );
    }
    for c in 0..topo.num_channels() {
        let ch = topo.channel(ChannelId(c));
        let _ = writeln!(
            s,
            "    <edge id=\"e{c}\" source=\"n{}\" target=\"n{}\"><data key=\"elevel\">{}</data>\
             <data key=\"edirection\">{}</data><data key=\"ecapacity\">{}</data>\
             <data key=\"ebundle\">{}</data></edge>",
            ch.from.0,
            ch.to.0,
            ch.level,
            direction_name(ch.direction),
            ch.capacity,
            ch.bundle.0
        );
    }
    s.push_str("  </graph>\n</graphml>\n");
    s
}

/// The pen width of a channel: the bit length of its capacity.
fn penwidth(capacity: u64) -> u32 {
    (u64::BITS - capacity.leading_zeros()).max(1)
}

fn dot_edge(s: &mut String, ch: &Channel) {
    let color = match ch.direction {
        Direction::Up => "blue",
        Direction::Down => "red",
        Direction::Forward => "black",
    };
    let _ = writeln!(
        s,
        "  n{} -> n{} [label=\"{cap}\" capacity={cap} penwidth={} color={color} level={} \
         direction={}];",
        ch.from.0,
        ch.to.0,
        penwidth(ch.capacity),
        ch.level,
        direction_name(ch.direction),
        cap = ch.capacity,
    );
}

fn write_dot<T: Topology + ?Sized>(topo: &T) -> String {
    let name = dot_escape(&topo.name());
    let mut s = String::new();
    let _ = writeln!(s, "// {name}");
    let _ = writeln!(s, "digraph \"{name}\" {{");
    s.push_str("  rankdir=BT;\n  node [fontsize=10];\n");
    // Node ids per level, each list in id order; at most one level per node.
    let mut levels: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
    for v in 0..topo.num_nodes() {
        levels
            .entry(topo.node(NodeId(v)).level)
            .or_default()
            .push(v);
    }
    for (level, ids) in &levels {
        let _ = writeln!(s, "  {{ rank=same; // level {level}");
        for &v in ids {
            let node = topo.node(NodeId(v));
            let shape = match node.kind {
                NodeKind::Processor => "box",
                NodeKind::Switch => "circle",
                NodeKind::External => "doublecircle",
            };
            let _ = writeln!(
                s,
                "    n{v} [label=\"{}\" shape={shape} kind={} level={}];",
                label(&node),
                kind_name(node.kind),
                node.level
            );
        }
        s.push_str("  }\n");
    }
    drop(levels);
    for c in 0..topo.num_channels() {
        dot_edge(&mut s, &topo.channel(ChannelId(c)));
    }
    s.push_str("}\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{AnyTopology, BundleId, MEMORY_BUDGET, TopologySpec, node_label};

    fn build(spec: &str) -> AnyTopology {
        spec.parse::<TopologySpec>().unwrap().build().unwrap()
    }

    /// One spec of every kind, with its (nodes, processor nodes, edges, total edge capacity,
    /// node levels).
    const CASES: [(&str, u32, u32, u32, u64, u32); 8] = [
        // 8 processors, 7 switches, the external node; 2 · 15 channels of 1, 2, 4, 8.
        (
            "fattree:n=8,profile=doubling",
            16,
            8,
            30,
            2 * (8 + 8 + 8 + 8),
            5,
        ),
        ("fattree:n=8,profile=constant,cap=3", 16, 8, 30, 30 * 3, 5),
        // 16 processors, 4 level-1 and 2 level-2 switches; 2 · (16 + 4 · 2) links.
        ("bft:n=16", 22, 16, 48, 48, 3),
        ("karyntree:k=2,levels=3", 20, 8, 48, 48, 4),
        ("ftree:n=2,m=3,r=4", 15, 8, 40, 40, 3),
        // An input and an output terminal per processor.
        ("clos:n=2,m=3,r=4", 27, 16, 40, 40, 5),
        // Nodes are processors; a butterfly's are all switches (4 stages of 8).
        ("hypercube:d=3", 8, 8, 24, 24, 1),
        ("butterfly:d=3", 32, 0, 48, 48, 4),
    ];

    #[test]
    fn exports_hold_every_node_and_channel_of_every_kind() {
        for (spec, nodes, processor_nodes, edges, capacity, levels) in CASES {
            let t = build(spec);
            let g = graph_export(&t).unwrap();
            assert_eq!(g.name, t.name());
            assert_eq!(g.nodes.len() as u32, t.num_nodes(), "{spec}");
            assert_eq!(g.edges.len() as u32, t.num_channels(), "{spec}");
            assert_eq!(
                (g.nodes.len() as u32, g.edges.len() as u32),
                (nodes, edges),
                "{spec}"
            );
            let processors = g.nodes.iter().filter(|n| n.kind == NodeKind::Processor);
            let switches = g.nodes.iter().filter(|n| n.kind == NodeKind::Switch);
            assert_eq!(processors.count() as u32, processor_nodes, "{spec}");
            assert_eq!(switches.count() as u32, t.num_switches(), "{spec}");
            for (i, n) in g.nodes.iter().enumerate() {
                let node = t.node(NodeId(i as u32));
                assert_eq!((n.id, n.level, n.kind), (i as u32, node.level, node.kind));
                assert_eq!(n.label, node_label(&t, NodeId(i as u32)));
            }
            let distinct: std::collections::BTreeSet<u32> =
                g.nodes.iter().map(|n| n.level).collect();
            assert_eq!(distinct.len() as u32, levels, "{spec}");
            for e in &g.edges {
                let ch = t.channel(ChannelId(e.id));
                assert_eq!((e.source, e.target), (ch.from.0, ch.to.0));
                assert_eq!(
                    (e.level, e.direction, e.capacity),
                    (ch.level, ch.direction, ch.capacity)
                );
                assert_eq!(e.bundle, ch.bundle.0);
            }
            // Edge capacities add up to the bundles' capacities, and to the hand count.
            let total: u64 = g.edges.iter().map(|e| e.capacity).sum();
            let bundles: u64 = (0..t.num_bundles())
                .map(|b| t.bundle_capacity(BundleId(b)))
                .sum();
            assert_eq!((total, bundles), (capacity, capacity), "{spec}");
            // And the JSON round-trips.
            let json = render_graph(&t, GraphFormat::Json).unwrap();
            assert_eq!(serde_json::from_str::<GraphExport>(&json).unwrap(), g);
            assert!(json.len() as u128 <= graph_bytes_estimate(&t, GraphFormat::Json));
        }
    }

    #[test]
    fn graphml_is_well_formed_declares_its_keys_and_holds_the_graph() {
        for (spec, nodes, _, edges, capacity, _) in CASES {
            let t = build(spec);
            let text = to_graphml(&t).unwrap();
            assert!(text.len() as u128 <= graph_bytes_estimate(&t, GraphFormat::Graphml));
            let doc = roxmltree::Document::parse(&text).unwrap();
            let root = doc.root_element();
            assert_eq!(root.tag_name().name(), "graphml");
            let keys: BTreeMap<&str, (&str, &str, &str)> = root
                .children()
                .filter(|n| n.has_tag_name("key"))
                .map(|k| {
                    let a = |name| k.attribute(name).unwrap();
                    (a("id"), (a("for"), a("attr.name"), a("attr.type")))
                })
                .collect();
            assert_eq!(keys["nlevel"], ("node", "level", "int"));
            assert_eq!(keys["nkind"], ("node", "kind", "string"));
            assert_eq!(keys["ecapacity"], ("edge", "capacity", "long"));
            assert_eq!(keys["elevel"], ("edge", "level", "int"));
            let graph = root.children().find(|n| n.has_tag_name("graph")).unwrap();
            assert_eq!(graph.attribute("edgedefault"), Some("directed"));
            let data = |n: roxmltree::Node<'_, '_>, key: &str| -> String {
                let d = n.children().find(|d| d.attribute("key") == Some(key));
                d.unwrap().text().unwrap_or("").to_string()
            };
            assert_eq!(data(graph, "name"), t.name());
            let mut n = 0;
            let mut e = 0;
            let mut total = 0u64;
            for child in graph.children().filter(roxmltree::Node::is_element) {
                for d in child.children().filter(|d| d.has_tag_name("data")) {
                    assert!(keys.contains_key(d.attribute("key").unwrap()), "{spec}");
                }
                match child.tag_name().name() {
                    "node" => {
                        let node = t.node(NodeId(n));
                        assert_eq!(child.attribute("id"), Some(format!("n{n}").as_str()));
                        assert_eq!(data(child, "nlevel"), node.level.to_string());
                        assert_eq!(data(child, "nkind"), kind_name(node.kind));
                        n += 1;
                    }
                    "edge" => {
                        let ch = t.channel(ChannelId(e));
                        let from = format!("n{}", ch.from.0);
                        assert_eq!(child.attribute("source"), Some(from.as_str()));
                        total += data(child, "ecapacity").parse::<u64>().unwrap();
                        e += 1;
                    }
                    _ => {}
                }
            }
            assert_eq!((n, e, total), (nodes, edges, capacity), "{spec}");
        }
    }

    #[test]
    fn xml_and_dot_strings_are_escaped() {
        assert_eq!(xml_escape("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&apos;");
        assert_eq!(dot_escape("a\"b\\"), "a\\\"b\\\\");
    }

    #[test]
    fn dot_has_one_rank_group_per_level_in_increasing_order() {
        for (spec, nodes, _, edges, capacity, levels) in CASES {
            let t = build(spec);
            let dot = to_dot(&t).unwrap();
            assert!(dot.len() as u128 <= dot_bytes_estimate(&t), "{spec}");
            assert!(dot.contains("rankdir=BT;"));
            assert_eq!(dot.matches("rank=same;").count() as u32, levels, "{spec}");
            // Every node is declared inside its level's group, in increasing level order.
            let mut group: Option<u32> = None;
            let mut seen = 0;
            for line in dot.lines() {
                if let Some(rest) = line.strip_prefix("  { rank=same; // level ") {
                    let level: u32 = rest.parse().unwrap();
                    assert!(group.is_none_or(|g| g < level), "{spec}: {line}");
                    group = Some(level);
                } else if line.starts_with("    n") {
                    let level = line.split("level=").nth(1).unwrap().trim_end_matches("];");
                    assert_eq!(level, group.unwrap().to_string(), "{spec}: {line}");
                    seen += 1;
                }
            }
            assert_eq!(seen, nodes, "{spec}");
            let edge_lines: Vec<&str> = dot.lines().filter(|l| l.contains(" -> ")).collect();
            assert_eq!(edge_lines.len() as u32, edges, "{spec}");
            let total: u64 = edge_lines
                .iter()
                .map(|l| {
                    let cap = l.split("capacity=").nth(1).unwrap();
                    cap.split(' ').next().unwrap().parse::<u64>().unwrap()
                })
                .sum();
            assert_eq!(total, capacity, "{spec}");
            assert_eq!(dot, to_dot(&t).unwrap(), "deterministic");
        }
    }

    #[test]
    fn the_fat_tree_is_drawn_processors_at_the_bottom_and_pens_grow_with_capacity() {
        let t = build("fattree:n=4,profile=doubling");
        let dot = to_dot(&t).unwrap();
        let first = dot.find("rank=same; // level 0").unwrap();
        let p0 = format!(
            "n{} [label=\"p0\" shape=box kind=processor level=0]",
            t.injection_node(0).0
        );
        let p0 = dot.find(&p0).unwrap();
        let ext = dot
            .find("[label=\"external\" shape=doublecircle kind=external")
            .unwrap();
        assert!(first < p0 && p0 < ext);
        // Capacities 1, 2, 4 (the root channel) have pens 1, 2, 3.
        for (cap, pen) in [(1, 1), (2, 2), (4, 3)] {
            assert!(
                dot.contains(&format!("capacity={cap} penwidth={pen} ")),
                "{dot}"
            );
        }
        assert_eq!((penwidth(1), penwidth(3), penwidth(1 << 40)), (1, 2, 41));
    }

    #[test]
    fn graph_exports_of_huge_networks_are_refused_before_allocating() {
        let cube = build("hypercube:d=24");
        for (format, what) in [
            (GraphFormat::Json, "JSON graph export of hypercube:d=24"),
            (GraphFormat::Graphml, "GraphML export of hypercube:d=24"),
            (GraphFormat::Dot, "DOT export of hypercube:d=24"),
        ] {
            match render_graph(&cube, format).unwrap_err() {
                TopologyError::OverMemoryBudget {
                    what: w,
                    estimate,
                    max,
                } => {
                    assert!(w.contains(what), "{w}");
                    assert_eq!(u128::from(estimate), graph_bytes_estimate(&cube, format));
                    assert_eq!(max, MEMORY_BUDGET);
                }
                other => panic!("{other:?}"),
            }
        }
        assert!(matches!(
            graph_export(&cube),
            Err(TopologyError::OverMemoryBudget { .. })
        ));
    }

    #[test]
    fn formats_are_named_once() {
        assert_eq!("graphml".parse::<GraphFormat>(), Ok(GraphFormat::Graphml));
        assert_eq!(GraphFormat::Dot.to_string(), "dot");
        assert!("xml".parse::<GraphFormat>().is_err());
    }
}
