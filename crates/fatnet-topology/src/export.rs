//! Export to petgraph, node labels and per-level summaries (the graph formats are in
//! [`crate::graph`]).

use std::collections::BTreeMap;

use petgraph::graph::DiGraph;
use serde::{Deserialize, Serialize};

use crate::{
    BundleId, Channel, ChannelId, Direction, Node, NodeId, NodeKind, Topology, TopologyError,
    check_memory_budget,
};

/// The most channels [`level_summary`] enumerates: 2^26, a few seconds of work. Above it the
/// summary is refused ([`TopologyError::TooLarge`]) instead of running for minutes, unless
/// the topology can answer it arithmetically ([`crate::AnyTopology::level_summary`] does for
/// the binary fat-tree).
pub const MAX_SUMMARY_CHANNELS: u32 = 1 << 26;

/// Estimated bytes of [`to_petgraph`]'s graph: one petgraph node per node and one petgraph
/// edge per channel, as petgraph stores them.
pub fn petgraph_bytes_estimate<T: Topology + ?Sized>(topo: &T) -> u128 {
    let node = std::mem::size_of::<petgraph::graph::Node<Node>>() as u128;
    let edge = std::mem::size_of::<petgraph::graph::Edge<Channel>>() as u128;
    u128::from(topo.num_nodes()) * node + u128::from(topo.num_channels()) * edge
}

/// The topology as a petgraph directed graph. Node index `i` is `NodeId(i)` and edge index `i`
/// is `ChannelId(i)`, so results computed on the graph map back without a lookup table.
///
/// # Errors
///
/// [`TopologyError::OverMemoryBudget`] when the graph ([`petgraph_bytes_estimate`]) would
/// exceed [`crate::MEMORY_BUDGET`]; nothing is allocated then.
pub fn to_petgraph<T: Topology + ?Sized>(
    topo: &T,
) -> Result<DiGraph<Node, Channel>, TopologyError> {
    check_memory_budget(
        || format!("the petgraph graph of {}", topo.name()),
        petgraph_bytes_estimate(topo),
    )?;
    Ok(build_petgraph(topo))
}

fn build_petgraph<T: Topology + ?Sized>(topo: &T) -> DiGraph<Node, Channel> {
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

/// A short name of node `v`: `p<i>` for processor `i`, `s<level>.<index>` for a switch,
/// `external` for the world outside a fat-tree's root. Processors of the unfolded Clos have
/// an input and an output terminal, both named after the processor.
pub fn node_label<T: Topology + ?Sized>(topo: &T, v: NodeId) -> String {
    label(&topo.node(v))
}

pub(crate) fn label(node: &Node) -> String {
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

/// Channel counts and capacities per (level, direction), in increasing level order, by
/// enumerating the channels.
///
/// # Errors
///
/// [`TopologyError::TooLarge`] when the topology has more than [`MAX_SUMMARY_CHANNELS`]
/// channels: the enumeration would take minutes and a byte per bundle.
pub fn level_summary<T: Topology + ?Sized>(topo: &T) -> Result<Vec<LevelSummary>, TopologyError> {
    if topo.num_channels() > MAX_SUMMARY_CHANNELS {
        return Err(TopologyError::TooLarge {
            what: "summarized channel",
            count: u128::from(topo.num_channels()),
            max: u128::from(MAX_SUMMARY_CHANNELS),
        });
    }
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
    Ok(rows.into_values().collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ButterflyFatTree, FatTree, Hypercube, MEMORY_BUDGET, dot_bytes_estimate, to_dot};

    fn over_budget(e: TopologyError, what: &str) {
        match e {
            TopologyError::OverMemoryBudget {
                what: w,
                estimate,
                max,
            } => {
                assert!(w.contains(what), "{w}");
                assert!(estimate > max, "{estimate} <= {max}");
                assert_eq!(max, MEMORY_BUDGET);
            }
            other => panic!("expected OverMemoryBudget, got {other:?}"),
        }
    }

    #[test]
    fn exports_of_huge_networks_are_refused_with_the_estimate() {
        let cube = Hypercube::new(24).unwrap();
        over_budget(to_dot(&cube).unwrap_err(), "DOT export of hypercube:d=24");
        over_budget(
            to_petgraph(&cube).unwrap_err(),
            "petgraph graph of hypercube:d=24",
        );
        let bft = ButterflyFatTree::new(1 << 30).unwrap();
        over_budget(to_dot(&bft).unwrap_err(), "DOT export of bft");
        let tree = FatTree::new(1 << 30, crate::CapacityProfile::Constant(1)).unwrap();
        over_budget(to_dot(&tree).unwrap_err(), "DOT export of fattree");
        let msg = to_dot(&cube).unwrap_err().to_string();
        assert!(msg.contains("GiB"), "{msg}");
    }

    #[test]
    fn small_exports_are_within_the_budget() {
        let cube = Hypercube::new(4).unwrap();
        assert!(dot_bytes_estimate(&cube) < 100_000);
        let dot = to_dot(&cube).unwrap();
        assert!(dot.len() as u128 <= dot_bytes_estimate(&cube));
        assert_eq!(to_petgraph(&cube).unwrap().edge_count(), 64);
    }

    #[test]
    fn enumerated_summaries_of_huge_networks_are_refused() {
        for t in [
            &Hypercube::new(24).unwrap() as &dyn Topology,
            &ButterflyFatTree::new(1 << 30).unwrap(),
        ] {
            assert!(matches!(
                level_summary(t),
                Err(TopologyError::TooLarge {
                    what: "summarized channel",
                    max,
                    ..
                }) if max == u128::from(MAX_SUMMARY_CHANNELS)
            ));
        }
    }
}
