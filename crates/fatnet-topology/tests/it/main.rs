//! Integration tests of `fatnet-topology`: `props` checks the papers' formulas, the shortest
//! paths and the spec grammar with proptest.

mod props;
