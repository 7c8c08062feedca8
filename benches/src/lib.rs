//! Fixtures shared by the criterion benchmarks in `benches/benches/` (and usable from tests).

use std::path::PathBuf;

use fatnet::topology::{CapacityProfile, FatTree};
use fatnet::traffic::{MessageSet, TrafficSpec};
use fatnet_fabric::{Fabric, read_flitsim, read_text};

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

/// The ib_flit_sim fabric `name` (`.ned`, `.fdbs`, `.fdbs.ini`, `ftree.hcas`) from
/// `../shared/fabrics/ib_flit_sim/` (or `$FATNET_FABRICS`), or `None` with a notice when the
/// folder is absent.
pub fn flitsim_fabric(name: &str) -> Option<Fabric> {
    let dir = std::env::var_os("FATNET_FABRICS").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/fabrics"),
        PathBuf::from,
    );
    let base = dir.join("ib_flit_sim").join(name);
    if !base.is_dir() {
        eprintln!(
            "NOTICE: {} not found; skipping the fabric bench",
            base.display()
        );
        return None;
    }
    let read = |ext: &str| read_text(&base.join(format!("{name}.{ext}"))).unwrap();
    let (ned, fdbs, ini) = (read("ned"), read("fdbs"), read("fdbs.ini"));
    let hcas = read_text(&base.join("ftree.hcas")).unwrap();
    let (fabric, _) = read_flitsim(
        ("ned", &ned),
        ("fdbs", &fdbs),
        ("fdbs.ini", &ini),
        Some(("ftree.hcas", &hcas)),
    )
    .unwrap();
    Some(fabric)
}
