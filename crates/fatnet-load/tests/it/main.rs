//! Integration tests of fatnet-load: `props` checks the load-factor theorems with proptest.

mod props;
