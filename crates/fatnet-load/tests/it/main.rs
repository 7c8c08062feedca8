//! Integration tests of fatnet-load: `props` checks the load-factor theorems with proptest,
//! `props_topologies` the load invariants on every topology kind.

mod props;
mod props_topologies;
