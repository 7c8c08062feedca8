//! Integration tests of fatnet-offline: `props` checks the theorems with proptest.

mod props;
