//! Helpers shared by the CLI tests.

use assert_cmd::Command;
use serde_json::Value;

/// The `fatnet` binary under test.
pub fn fatnet() -> Command {
    Command::cargo_bin("fatnet").unwrap()
}

/// Runs `fatnet` with `args`, asserts success, and parses standard output as JSON.
pub fn json(args: &[&str]) -> Value {
    let out = fatnet()
        .args(args)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    serde_json::from_slice(&out).unwrap()
}
