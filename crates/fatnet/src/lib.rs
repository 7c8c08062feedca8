//! fatnet: fat-trees and related interconnection networks.
#![deny(missing_docs)]
pub use fatnet_load as load;
pub use fatnet_topology as topology;
pub use fatnet_traffic as traffic;
