//! [`AnyTopology`]: one value that holds any topology of this crate.

use serde::Serialize;

use crate::{
    BundleId, Channel, ChannelId, FatTree, LevelSummary, Node, NodeId, Processor, Topology,
    TopologyError,
};
use crate::{Butterfly, Clos, FoldedClos, Hypercube};
use crate::{ButterflyFatTree, KAryNTree};

/// Declares `AnyTopology` with one variant per topology type and forwards [`Topology`] to it.
macro_rules! any_topology {
    ($($variant:ident($ty:ty)),* $(,)?) => {
        /// Any topology of this crate, for code that picks the network at run time (the CLI,
        /// experiment configs). Built from a [`crate::TopologySpec`].
        #[derive(Clone, Debug, PartialEq, Serialize)]
        #[serde(rename_all = "snake_case", tag = "kind")]
        #[non_exhaustive]
        pub enum AnyTopology {
            $(
                #[doc = concat!("A [`", stringify!($ty), "`].")]
                $variant($ty),
            )*
        }

        $(
            impl From<$ty> for AnyTopology {
                fn from(t: $ty) -> Self {
                    AnyTopology::$variant(t)
                }
            }
        )*

        impl AnyTopology {
            /// The topology as a trait object.
            pub fn as_dyn(&self) -> &dyn Topology {
                match self {
                    $(AnyTopology::$variant(t) => t,)*
                }
            }
        }
    };
}

any_topology! {
    FatTree(FatTree),
    ButterflyFatTree(ButterflyFatTree),
    KAryNTree(KAryNTree),
    FoldedClos(FoldedClos),
    Clos(Clos),
    Hypercube(Hypercube),
    Butterfly(Butterfly),
}

impl AnyTopology {
    /// The binary fat-tree, if this is one (it has a fast load computation).
    pub fn as_fat_tree(&self) -> Option<&FatTree> {
        match self {
            AnyTopology::FatTree(t) => Some(t),
            _ => None,
        }
    }
}

impl AnyTopology {
    /// Channel counts and capacities per (level, direction): by arithmetic on the binary
    /// fat-tree (any size, at once), otherwise by [`crate::level_summary`].
    ///
    /// # Errors
    ///
    /// As [`crate::level_summary`]: [`TopologyError::TooLarge`] above
    /// [`crate::MAX_SUMMARY_CHANNELS`] channels.
    pub fn level_summary(&self) -> Result<Vec<LevelSummary>, TopologyError> {
        match self {
            AnyTopology::FatTree(t) => Ok(t.level_summary()),
            other => crate::level_summary(other),
        }
    }
}

impl Topology for AnyTopology {
    fn name(&self) -> String {
        self.as_dyn().name()
    }
    fn num_processors(&self) -> u32 {
        self.as_dyn().num_processors()
    }
    fn num_nodes(&self) -> u32 {
        self.as_dyn().num_nodes()
    }
    fn num_switches(&self) -> u32 {
        self.as_dyn().num_switches()
    }
    fn num_channels(&self) -> u32 {
        self.as_dyn().num_channels()
    }
    fn num_bundles(&self) -> u32 {
        self.as_dyn().num_bundles()
    }
    fn node(&self, v: NodeId) -> Node {
        self.as_dyn().node(v)
    }
    fn channel(&self, c: ChannelId) -> Channel {
        self.as_dyn().channel(c)
    }
    fn bundle_capacity(&self, b: BundleId) -> u64 {
        self.as_dyn().bundle_capacity(b)
    }
    fn injection_node(&self, p: Processor) -> NodeId {
        self.as_dyn().injection_node(p)
    }
    fn ejection_node(&self, p: Processor) -> NodeId {
        self.as_dyn().ejection_node(p)
    }
    fn path_count(&self, src: Processor, dst: Processor) -> u128 {
        self.as_dyn().path_count(src, dst)
    }
    fn path_into(&self, src: Processor, dst: Processor, index: u128, out: &mut Vec<ChannelId>) {
        self.as_dyn().path_into(src, dst, index, out)
    }
    fn standard_path_index(&self, src: Processor, dst: Processor) -> u128 {
        self.as_dyn().standard_path_index(src, dst)
    }
    fn distance(&self, src: Processor, dst: Processor) -> usize {
        self.as_dyn().distance(src, dst)
    }
    fn check_processor(&self, p: u64) -> Result<Processor, TopologyError> {
        self.as_dyn().check_processor(p)
    }
}
