//! Fixtures shared by the criterion benchmarks in `benches/benches/` (and usable from tests).

use fatnet::topology::{CapacityProfile, FatTree};
use fatnet::traffic::{MessageSet, TrafficSpec};

/// The load-factor benchmark's tree: a binary fat-tree on `2^levels` processors with
/// full-bisection (doubling) capacities.
pub fn doubling_tree(levels: u32) -> FatTree {
    FatTree::new(1 << levels, CapacityProfile::Doubling { leaf: 1 }).expect("valid tree")
}

/// `k` independent random permutations on `n` processors, from `seed`.
pub fn replicated_permutations(n: u32, k: u64, seed: u64) -> MessageSet {
    format!("replicated:k={k}")
        .parse::<TrafficSpec>()
        .expect("valid spec")
        .generate(n, seed)
        .expect("valid traffic")
}
