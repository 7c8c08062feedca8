//! Fat-trees and related interconnection networks.
//!
//! This crate builds the networks of the five papers fatnet implements: Leiserson's binary
//! fat-tree with arbitrary or universal channel capacities ([`FatTree`]), Greenberg and Oh's
//! butterfly fat-tree, Yuan's folded Clos `ftree(n+m, r)` and the unfolded `Clos(n, m, r)`,
//! Petrini and Vanneschi's k-ary n-trees, and Stamoulis' hypercube and butterfly.
//!
//! **Key design decision: ids are arithmetic, not stored.** Every topology numbers its nodes,
//! channels and bundles by formulas over its parameters, so a binary fat-tree on 2^20
//! processors costs a few words, not an adjacency list, and `path` is a handful of shifts.
//! All topologies answer the same questions through the [`Topology`] trait; [`AnyTopology`]
//! holds any of them, and [`TopologySpec`] parses the short strings of the command line
//! (`fattree:n=1024,profile=universal,w=128`, `bft:n=4096`, ...).
//!
//! Vocabulary shared by all topologies:
//!
//! - A **processor** is a terminal, numbered `0..num_processors()`. A message goes from the
//!   processor's [`Topology::injection_node`] to the destination's [`Topology::ejection_node`]
//!   (the same node on folded networks, different nodes on the unfolded Clos and butterfly).
//! - A **channel** is one directed resource with an integer capacity (messages it carries at
//!   once). Leiserson's channels are bundles of `cap(c)` wires; Greenberg–Oh's links have
//!   capacity 1.
//! - A **bundle** groups the parallel channels that join the same two tree nodes (for example
//!   the `2^l` links from a butterfly-fat-tree node to its parent). Where every shortest path
//!   between two processors crosses the same bundles, the load factor over bundles does not
//!   depend on the choice of paths. Topologies without parallel channels use one bundle per
//!   channel.
//! - A **level** is counted from the processors: level-0 channels touch processors. Trees
//!   number their levels upwards; the hypercube uses the dimension, the butterfly the stage.
//!
//! ```
//! use fatnet_topology::{Topology, TopologySpec};
//!
//! // Leiserson's binary fat-tree on 16 processors, every channel of capacity 1.
//! let tree = "fattree:n=16,profile=constant,cap=1".parse::<TopologySpec>()?.build()?;
//! assert_eq!(tree.num_processors(), 16);
//! // A message climbs to the lowest common ancestor and back down, on the only path:
//! // 0 → 15 crosses the root (4 channels up, 4 down), 0 → 1 only their parent.
//! assert_eq!((tree.distance(0, 15), tree.path_count(0, 15)), (8, 1));
//! assert_eq!(tree.distance(0, 1), 2);
//!
//! // Stamoulis' 4-cube: d·2^d = 64 directed arcs; 0 → 15 crosses the 4 dimensions in any of
//! // 4! = 24 orders.
//! let cube = "hypercube:d=4".parse::<TopologySpec>()?.build()?;
//! assert_eq!(cube.num_channels(), 64);
//! assert_eq!((cube.distance(0, 15), cube.path_count(0, 15)), (4, 24));
//! # Ok::<(), fatnet_topology::TopologyError>(())
//! ```

#![deny(missing_docs)]

mod any;
mod bft;
mod butterfly;
mod clos;
mod error;
mod export;
mod fattree;
mod graph;
mod hypercube;
mod karyntree;
mod names;
mod spec;
#[cfg(test)]
mod testing;

pub use any::AnyTopology;
pub use bft::ButterflyFatTree;
pub use butterfly::{Butterfly, MAX_BUTTERFLY_DIMENSION};
pub use clos::{Clos, FoldedClos};
pub use error::TopologyError;
pub use export::{
    LevelSummary, MAX_SUMMARY_CHANNELS, level_summary, node_label, petgraph_bytes_estimate,
    to_petgraph,
};
pub use fattree::{AreaGrowth, CapacityProfile, FatTree, VolumeGrowth};
pub use graph::{
    GraphEdge, GraphExport, GraphFormat, GraphNode, dot_bytes_estimate, graph_bytes_estimate,
    graph_export, graph_export_bytes_estimate, render_graph, to_dot, to_graphml,
};
pub use hypercube::{Hypercube, MAX_HYPERCUBE_DIMENSION};
pub use karyntree::KAryNTree;
pub use names::{UnknownName, option_help};
pub use spec::TopologySpec;

use serde::{Deserialize, Serialize};

/// The most memory, in bytes, that one operation of the fatnet crates may allocate because of
/// a number a user gave (a topology size, a message count, a capacity): 2 GiB.
///
/// Topologies are arithmetic and cost a few words, but exporting one (petgraph, DOT), or a
/// per-channel or per-message table, costs memory proportional to a user's number, and
/// `hypercube:d=24` or `n=2^30` asks for 10–750 GB. Rather than abort when the allocator
/// fails (or thrash the machine), such operations estimate their size first and refuse with
/// [`TopologyError::OverMemoryBudget`] above this budget. 2 GiB because a command holds a
/// few such structures at once (a message set and its load tables), and together they must
/// fit a laptop or a CI runner (8 GB) and a 3 GB address-space limit (`ulimit -v 3000000`);
/// it leaves room for every size the experiments use (tens of millions of channels, message
/// sets of 2^27 messages).
pub const MEMORY_BUDGET: u64 = 2 << 30;

/// Checks an estimate against [`MEMORY_BUDGET`].
///
/// # Errors
///
/// [`TopologyError::OverMemoryBudget`] naming `what` and the estimate when `estimate`
/// exceeds the budget.
pub fn check_memory_budget(
    what: impl FnOnce() -> String,
    estimate: u128,
) -> Result<(), TopologyError> {
    if estimate > u128::from(MEMORY_BUDGET) {
        Err(TopologyError::OverMemoryBudget {
            what: what(),
            estimate: u64::try_from(estimate).unwrap_or(u64::MAX),
            max: MEMORY_BUDGET,
        })
    } else {
        Ok(())
    }
}

/// A processor (terminal) number, `0..num_processors()`.
pub type Processor = u32;

/// Index of a node (processor, switch or the external world) of a topology.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct NodeId(pub u32);

/// Index of a directed channel of a topology, `0..num_channels()`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct ChannelId(pub u32);

/// Index of a bundle of parallel channels, `0..num_bundles()`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct BundleId(pub u32);

impl ChannelId {
    /// The id as a `usize`, for indexing per-channel arrays.
    #[inline]
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl NodeId {
    /// The id as a `usize`, for indexing per-node arrays.
    #[inline]
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl BundleId {
    /// The id as a `usize`, for indexing per-bundle arrays.
    #[inline]
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// What a node is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NodeKind {
    /// A processor (terminal): the source or destination of messages.
    Processor,
    /// A switch: forwards messages.
    Switch,
    /// The outside world, reached through a fat-tree's root channel.
    External,
}

/// A node: its kind, its level and its index within the level.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Node {
    /// Processor, switch or external.
    pub kind: NodeKind,
    /// Level (0 = processors on trees; stage or dimension elsewhere).
    pub level: u32,
    /// Index of the node within its level, in the paper's numbering.
    pub index: u32,
}

/// The direction of a channel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    /// Towards the root of a tree.
    Up,
    /// Away from the root of a tree.
    Down,
    /// A network without a root (hypercube, butterfly, unfolded Clos).
    Forward,
}

/// A directed channel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Channel {
    /// Tail node.
    pub from: NodeId,
    /// Head node.
    pub to: NodeId,
    /// Number of messages the channel carries at once (wires, or links of capacity one).
    pub capacity: u64,
    /// Level (see the crate documentation).
    pub level: u32,
    /// Up, down or forward.
    pub direction: Direction,
    /// The bundle the channel belongs to.
    pub bundle: BundleId,
}

/// A network of processors, switches and capacitated directed channels with shortest paths.
///
/// Ids are dense: nodes `0..num_nodes()`, channels `0..num_channels()`, bundles
/// `0..num_bundles()`, processors `0..num_processors()`. Methods taking ids panic when an id
/// is out of range: ids that come from users are checked first with
/// [`Topology::check_processor`].
pub trait Topology {
    /// A short human-readable description, in the spec grammar where possible.
    fn name(&self) -> String;
    /// Number of processors (terminals).
    fn num_processors(&self) -> u32;
    /// Number of nodes, processors and switches (and the external node) included.
    fn num_nodes(&self) -> u32;
    /// Number of switches.
    fn num_switches(&self) -> u32;
    /// Number of directed channels.
    fn num_channels(&self) -> u32;
    /// Number of bundles of parallel channels.
    fn num_bundles(&self) -> u32;
    /// The node with id `v`.
    fn node(&self, v: NodeId) -> Node;
    /// The channel with id `c`.
    fn channel(&self, c: ChannelId) -> Channel;
    /// Total capacity of the channels of bundle `b`.
    fn bundle_capacity(&self, b: BundleId) -> u64;
    /// The node where processor `p` injects messages.
    fn injection_node(&self, p: Processor) -> NodeId;
    /// The node where messages for processor `p` arrive.
    fn ejection_node(&self, p: Processor) -> NodeId;
    /// Number of distinct shortest paths from `src` to `dst`.
    fn path_count(&self, src: Processor, dst: Processor) -> u128;
    /// Writes the shortest path number `index` (`0..path_count(src, dst)`) from `src` to `dst`
    /// into `out` (cleared first), as the channels in the order the message crosses them.
    /// Index 0 is the paper's canonical path.
    fn path_into(&self, src: Processor, dst: Processor, index: u128, out: &mut Vec<ChannelId>);

    /// The path index of this topology's standard deterministic oblivious routing: 0 where
    /// the path is unique or the paper fixes a canonical order (hypercube: increasing
    /// dimensions), `dst mod path_count` (d-mod-k) on multi-path trees.
    fn standard_path_index(&self, src: Processor, dst: Processor) -> u128 {
        let _ = (src, dst);
        0
    }

    /// The canonical (index 0) shortest path from `src` to `dst`.
    fn path(&self, src: Processor, dst: Processor) -> Vec<ChannelId> {
        let mut out = Vec::new();
        self.path_into(src, dst, 0, &mut out);
        out
    }

    /// Length (number of channels) of a shortest path from `src` to `dst`.
    fn distance(&self, src: Processor, dst: Processor) -> usize {
        self.path(src, dst).len()
    }

    /// All shortest paths from `src` to `dst`, or `None` when there are more than `limit`.
    fn shortest_paths(
        &self,
        src: Processor,
        dst: Processor,
        limit: usize,
    ) -> Option<Vec<Vec<ChannelId>>> {
        let count = self.path_count(src, dst);
        if count > limit as u128 {
            return None;
        }
        Some(
            (0..count)
                .map(|k| {
                    let mut out = Vec::new();
                    self.path_into(src, dst, k, &mut out);
                    out
                })
                .collect(),
        )
    }

    /// Checks that `p` is a processor of this topology.
    ///
    /// # Errors
    ///
    /// [`TopologyError::ProcessorOutOfRange`] when `p >= num_processors()`.
    fn check_processor(&self, p: u64) -> Result<Processor, TopologyError> {
        if p < u64::from(self.num_processors()) {
            Ok(p as Processor)
        } else {
            Err(TopologyError::ProcessorOutOfRange {
                processor: p,
                processors: u64::from(self.num_processors()),
            })
        }
    }
}

/// Checks that a count fits the `u32` ids of this crate.
pub(crate) fn fits_u32(what: &'static str, count: u128) -> Result<u32, TopologyError> {
    u32::try_from(count).map_err(|_| TopologyError::TooLarge {
        what,
        count,
        max: u128::from(u32::MAX),
    })
}
