//! Integration tests of fatnet-offline: `props` checks the theorems with proptest.

mod props;
mod props_clos;
mod props_decomposition;
mod props_hypercube;
mod props_optimal;
