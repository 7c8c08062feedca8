//! Helpers shared by the CLI tests.

use assert_cmd::Command;
use serde_json::Value;

/// The `fatnet` binary under test.
pub fn fatnet() -> Command {
    Command::cargo_bin("fatnet").unwrap()
}

/// Runs `fatnet` with `args`, asserts success, and parses standard output as JSON.
pub fn json(args: &[&str]) -> Value {
    serde_json::from_str(&stdout_of(args)).unwrap()
}
/// Runs `fatnet` with `args`, asserts success, returns standard output.
pub fn stdout_of<I, S>(args: I) -> String
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    let out = fatnet()
        .args(args)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    String::from_utf8(out).unwrap()
}

/// Runs `fatnet` with `args`, asserts exit status 2 and no panic, returns standard error.
pub fn stderr_of_failure<I, S>(args: I) -> String
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    let a = fatnet().args(args).assert().code(2);
    let err = String::from_utf8(a.get_output().stderr.clone()).unwrap();
    assert!(!err.contains("panicked"), "{err}");
    err
}

/// Runs `fatnet` with `args` and asserts the failure users are promised for bad input: exit
/// status 2, no panic, and exactly one line `error: ...` on standard error.
pub fn assert_one_line_error(args: &[&str]) {
    let a = fatnet().args(args).assert().code(2);
    let err = String::from_utf8(a.get_output().stderr.clone()).unwrap();
    assert!(!err.contains("panicked"), "{args:?}: {err}");
    assert!(err.starts_with("error: "), "{args:?}: {err}");
    assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
}

/// The shared fabric folder `rel` (under `../shared/fabrics`, or `$FATNET_FABRICS`), `None`
/// with a notice when it is absent (a clean clone elsewhere).
pub fn shared_fabric(rel: &str) -> Option<std::path::PathBuf> {
    let dir = std::env::var_os("FATNET_FABRICS").map_or_else(
        || std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/fabrics"),
        std::path::PathBuf::from,
    );
    let base = dir.join(rel);
    if base.is_dir() {
        Some(base)
    } else {
        eprintln!("NOTICE: {} not found; skipping", base.display());
        None
    }
}
