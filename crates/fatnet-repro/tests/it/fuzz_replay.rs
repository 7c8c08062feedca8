//! The fuzz targets' bodies, replayed by the normal test suite: every seed input
//! (`fuzz/seeds/TARGET/`) and every committed finding (`fuzz/regressions/TARGET/`) goes
//! through the same function libFuzzer runs (`fuzz/src/lib.rs`), so a fixed crash stays fixed
//! without cargo-fuzz, sanitizers or a nightly feature.

use std::fs;
use std::path::{Path, PathBuf};

#[path = "../../../../fuzz/src/lib.rs"]
mod bodies;

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz")
}

/// The files of `dir` (none when it does not exist), sorted by name.
fn inputs(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .map(|e| e.expect("a readable directory entry").path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
}

#[test]
fn every_harness_has_a_body_and_every_body_a_harness() {
    let mut harnesses: Vec<String> = inputs(&fuzz_dir().join("fuzz_targets"))
        .iter()
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    harnesses.sort();
    let mut bodies: Vec<String> = bodies::TARGETS.iter().map(|(n, _)| n.to_string()).collect();
    bodies.sort();
    assert_eq!(harnesses, bodies);
}

#[test]
fn seeds_and_regressions_replay_without_a_panic() {
    for &(name, body) in bodies::TARGETS {
        let seeds = inputs(&fuzz_dir().join("seeds").join(name));
        assert!(!seeds.is_empty(), "fuzz/seeds/{name} has no seed");
        let regressions = inputs(&fuzz_dir().join("regressions").join(name));
        for input in seeds.iter().chain(&regressions) {
            let bytes = fs::read(input).expect("a readable input");
            // A panic here names the target and the file through the test's output.
            eprintln!("replay {name}: {}", input.display());
            body(&bytes);
        }
    }
}

/// The bodies check what they claim on inputs known to reach those checks: a small spec
/// builds and is routed, a message file parses.
#[test]
fn bodies_reach_their_checks() {
    bodies::topology_spec(b"karyntree:k=2,levels=3");
    bodies::topology_spec(b"fattree:n=16,profile=doubling");
    bodies::traffic_spec(b"permutation");
    bodies::message_set(b"0 1\n1 0\n");
}
