//! Export to petgraph and Graphviz DOT, and per-level summaries.

use std::collections::BTreeMap;

use petgraph::dot::{Config, Dot};
use petgraph::graph::DiGraph;
use serde::{Deserialize, Serialize};

use crate::{BundleId, Channel, ChannelId, Direction, Node, NodeId, NodeKind, Topology};

/// The topology as a petgraph directed graph. Node index `i` is `NodeId(i)` and edge index `i`
/// is `ChannelId(i)`, so results computed on the graph map back without a lookup table.
pub fn to_petgraph<T: Topology + ?Sized>(topo: &T) -> DiGraph<Node, Channel> {
    let mut g = DiGraph::with_capacity(topo.num_nodes() as usize, topo.num_channels() as usize);
    for v in 0..topo.num_nodes() {
        g.add_node(topo.node(NodeId(v)));
    }
    for c in 0..topo.num_channels() {
        let ch = topo.channel(ChannelId(c));
        g.add_edge(ch.from.0.into(), ch.to.0.into(), ch);
    }
    g
}

/// The topology in Graphviz DOT: processors as boxes labelled `p<i>`, switches as circles
/// labelled `s<level>.<index>`, channels labelled with their capacity.
pub fn to_dot<T: Topology + ?Sized>(topo: &T) -> String {
    let g = to_petgraph(topo);
    let dot = Dot::with_attr_getters(
        &g,
        &[Config::EdgeNoLabel, Config::NodeNoLabel],
        &|_, e| {
            let ch = e.weight();
            let style = match ch.direction {
                Direction::Up => "color=blue",
                Direction::Down => "color=red",
                Direction::Forward => "color=black",
            };
            format!("label=\"{}\" {style}", ch.capacity)
        },
        &|_, (_, node)| match node.kind {
            NodeKind::Processor => format!("label=\"p{}\" shape=box", node.index),
            NodeKind::Switch => format!("label=\"s{}.{}\" shape=circle", node.level, node.index),
            NodeKind::External => "label=\"external\" shape=doublecircle".to_string(),
        },
    );
    format!("// {}\n{dot:?}", topo.name())
}

/// A short name of node `v`: `p<i>` for processor `i`, `s<level>.<index>` for a switch,
/// `external` for the world outside a fat-tree's root. Processors of the unfolded Clos have
/// an input and an output terminal, both named after the processor.
pub fn node_label<T: Topology + ?Sized>(topo: &T, v: NodeId) -> String {
    label(&topo.node(v))
}

fn label(node: &Node) -> String {
    match node.kind {
        NodeKind::Processor => format!("p{}", node.index),
        NodeKind::Switch => format!("s{}.{}", node.level, node.index),
        NodeKind::External => "external".to_string(),
    }
}

/// Channels of one level and direction, and their capacities.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LevelSummary {
    /// Level (see the crate documentation).
    pub level: u32,
    /// Direction of the channels.
    pub direction: Direction,
    /// Number of channels.
    pub channels: u64,
    /// Number of bundles these channels form.
    pub bundles: u64,
    /// Smallest channel capacity.
    pub min_capacity: u64,
    /// Largest channel capacity.
    pub max_capacity: u64,
    /// Smallest bundle capacity.
    pub min_bundle_capacity: u64,
    /// Largest bundle capacity.
    pub max_bundle_capacity: u64,
}

/// Channel counts and capacities per (level, direction), in increasing level order.
pub fn level_summary<T: Topology + ?Sized>(topo: &T) -> Vec<LevelSummary> {
    let mut rows: BTreeMap<(u32, Direction), LevelSummary> = BTreeMap::new();
    let mut seen = vec![false; topo.num_bundles() as usize];
    for c in 0..topo.num_channels() {
        let ch = topo.channel(ChannelId(c));
        let row = rows
            .entry((ch.level, ch.direction))
            .or_insert(LevelSummary {
                level: ch.level,
                direction: ch.direction,
                channels: 0,
                bundles: 0,
                min_capacity: u64::MAX,
                max_capacity: 0,
                min_bundle_capacity: u64::MAX,
                max_bundle_capacity: 0,
            });
        row.channels += 1;
        row.min_capacity = row.min_capacity.min(ch.capacity);
        row.max_capacity = row.max_capacity.max(ch.capacity);
        if !seen[ch.bundle.index()] {
            seen[ch.bundle.index()] = true;
            let cap = topo.bundle_capacity(BundleId(ch.bundle.0));
            row.bundles += 1;
            row.min_bundle_capacity = row.min_bundle_capacity.min(cap);
            row.max_bundle_capacity = row.max_bundle_capacity.max(cap);
        }
    }
    rows.into_values().collect()
}
