//! Writing to a reader that went away (`fatnet traffic … | head -1`): the command stops
//! quietly with status 141 (what a shell reports for a tool killed by SIGPIPE), with nothing
//! on standard error: no "Broken pipe" error line, no panic.

use std::io::Read;
use std::process::{Command, Stdio};

/// Runs `fatnet args`, reads the first bytes of its output, closes the pipe, and returns the
/// exit status and standard error.
fn closed_early(args: &[&str]) -> (Option<i32>, String) {
    let mut child = Command::new(assert_cmd::cargo::cargo_bin("fatnet"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0u8; 64];
    stdout.read_exact(&mut first).unwrap();
    drop(stdout);
    let out = child.wait_with_output().unwrap();
    (out.status.code(), String::from_utf8(out.stderr).unwrap())
}

#[test]
fn a_closed_pipe_ends_the_command_quietly() {
    // Text (a million lines) and JSON (serde_json wraps the I/O error) outputs, each far
    // larger than a pipe's buffer.
    for args in [
        &["traffic", "-p", "1048576", "-t", "permutation"][..],
        &[
            "traffic",
            "-p",
            "1048576",
            "-t",
            "permutation",
            "--format",
            "json",
        ][..],
    ] {
        let (code, err) = closed_early(args);
        assert_eq!(code, Some(141), "{args:?}: {err}");
        assert!(err.is_empty(), "{args:?}: {err}");
    }
}
