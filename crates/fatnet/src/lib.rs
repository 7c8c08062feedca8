//! fatnet: fat-trees and related interconnection networks.
//!
//! This crate only re-exports: [`topology`] builds networks (Leiserson's fat-trees with
//! arbitrary or universal capacities, Greenberg–Oh's butterfly fat-tree, Yuan's folded Clos,
//! k-ary n-trees, Stamoulis' hypercube and butterfly), [`traffic`] makes message sets, and
//! [`load`] measures how hard a message set loads a network (load factor λ(M), congestion,
//! dilation). The [`prelude`] has the names most programs need.
//!
//! ```
//! use fatnet::prelude::*;
//!
//! let tree = FatTree::universal(1024, 128).unwrap();
//! let messages = "replicated:k=2".parse::<TrafficSpec>().unwrap().generate(1024, 7).unwrap();
//! let report = analyze(&tree.into(), &messages, PathSelection::Standard).unwrap();
//! assert!(report.load_factor.ceil() >= 1);
//! ```

#![deny(missing_docs)]

pub use fatnet_fabric as fabric;
pub use fatnet_load as load;
pub use fatnet_offline as offline;
pub use fatnet_online as online;
pub use fatnet_queueing as queueing;
pub use fatnet_scenario as scenario;
pub use fatnet_topology as topology;
pub use fatnet_traffic as traffic;

/// The types and functions most programs need.
pub mod prelude {
    pub use fatnet_load::{LoadFactor, LoadReport, PathSelection, analyze};
    pub use fatnet_topology::{
        AnyTopology, Butterfly, ButterflyFatTree, CapacityProfile, ChannelId, Clos, FatTree,
        FoldedClos, Hypercube, KAryNTree, NodeId, Topology, TopologySpec,
    };
    pub use fatnet_traffic::{Message, MessageSet, TrafficSpec};
}
