//! `cargo xtask guide`: runs every ```` ```sh ```` block of `docs/guide.md`, in order, so that
//! the tutorial cannot drift from the `fatnet` it describes.
//!
//! Each block runs in its own `bash` (`set -euo pipefail`), all of them in one fresh temporary
//! directory (files a block writes are there for the next ones; shell variables are not),
//! with `fatnet` on the PATH pointing at the workspace's freshly built CLI and the repository
//! root in `$FATNET_REPO`. A command that is expected to fail is written so that its block
//! still succeeds only on the expected failure (`fatnet schedule verify bad.txt ... || test $? -eq 1`).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use anyhow::{Context, Result, bail};

/// One fenced ```` ```sh ```` block of a Markdown file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShBlock {
    /// 1-based line of the opening fence in the Markdown file.
    pub line: usize,
    /// The block's lines, in order, without the fences.
    pub lines: Vec<String>,
}

/// The ```` ```sh ```` blocks of `markdown`, in order. A fence is a line of three or more
/// backticks (indentation allowed, as in a list item); its info string's first word is the
/// language, and only `sh` blocks are kept. A block is closed by a line of at least as many
/// backticks and nothing else; an unclosed block runs to the end of the file.
pub fn sh_blocks(markdown: &str) -> Vec<ShBlock> {
    let mut blocks = Vec::new();
    // (fence length, indentation, is sh, block being built)
    let mut open: Option<(usize, usize, bool, ShBlock)> = None;
    for (i, raw) in markdown.lines().enumerate() {
        let trimmed = raw.trim_start();
        let indent = raw.len() - trimmed.len();
        let ticks = trimmed.chars().take_while(|&c| c == '`').count();
        match &mut open {
            None => {
                if ticks >= 3 {
                    let info = trimmed[ticks..].trim();
                    let sh = info.split_whitespace().next() == Some("sh");
                    open = Some((
                        ticks,
                        indent,
                        sh,
                        ShBlock {
                            line: i + 1,
                            lines: Vec::new(),
                        },
                    ));
                }
            }
            Some((fence, block_indent, sh, block)) => {
                if ticks >= *fence && trimmed[ticks..].trim().is_empty() {
                    let (_, _, sh, block) = open.take().expect("a block is open");
                    if sh {
                        blocks.push(block);
                    }
                } else if *sh {
                    // Drop the fence's indentation (a block inside a list item), no more.
                    let keep = raw
                        .char_indices()
                        .find(|&(j, c)| j >= *block_indent || !c.is_whitespace())
                        .map_or(raw.len(), |(j, _)| j);
                    block.lines.push(raw[keep..].to_string());
                }
            }
        }
    }
    if let Some((_, _, true, block)) = open {
        blocks.push(block);
    }
    blocks
}

/// The script one block runs as: strict mode, stderr into stdout (one interleaved log), and
/// the failing command named on the way out.
fn script(block: &ShBlock) -> String {
    let mut s = String::from(
        "set -euo pipefail\nexec 2>&1\n\
         trap 'status=$?; printf \"\\nguide: this command failed with status %s: %s\\n\" \"$status\" \"$BASH_COMMAND\"' ERR\n",
    );
    for l in &block.lines {
        s.push_str(l);
        s.push('\n');
    }
    s
}

/// Builds the CLI with cargo (the dev profile, or release), returns the binary's path.
fn build_cli(root: &Path, release: bool) -> Result<PathBuf> {
    let mut build = Command::new(env!("CARGO"));
    build.args(["build", "-p", "fatnet-cli"]).current_dir(root);
    if release {
        build.arg("--release");
    }
    let status = build.status().context("cannot run cargo build")?;
    if !status.success() {
        bail!("cargo build -p fatnet-cli failed");
    }
    let meta = Command::new(env!("CARGO"))
        .args(["metadata", "--format-version", "1", "--no-deps"])
        .current_dir(root)
        .output()
        .context("cannot run cargo metadata")?;
    if !meta.status.success() {
        bail!(
            "cargo metadata failed: {}",
            String::from_utf8_lossy(&meta.stderr)
        );
    }
    let meta: serde_json::Value = serde_json::from_slice(&meta.stdout)?;
    let target = meta["target_directory"]
        .as_str()
        .context("cargo metadata gives no target_directory")?;
    let bin = Path::new(target)
        .join(if release { "release" } else { "debug" })
        .join(format!("fatnet{}", std::env::consts::EXE_SUFFIX));
    if !bin.is_file() {
        bail!("the build left no binary at {}", bin.display());
    }
    Ok(bin)
}

/// A fresh, empty directory under the system's temporary directory.
fn fresh_dir() -> Result<PathBuf> {
    let base = std::env::temp_dir();
    for n in 0..1000u32 {
        let dir = base.join(format!("fatnet-guide-{}-{n}", std::process::id()));
        match fs::create_dir(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e).with_context(|| format!("cannot create {}", dir.display())),
        }
    }
    bail!(
        "cannot find a free temporary directory under {}",
        base.display()
    )
}

/// Runs every `sh` block of `docs/guide.md` under `root`; see the module documentation.
pub fn run(root: &Path, release: bool) -> Result<()> {
    let guide = root.join("docs/guide.md");
    let text =
        fs::read_to_string(&guide).with_context(|| format!("cannot read {}", guide.display()))?;
    let blocks = sh_blocks(&text);
    if blocks.is_empty() {
        bail!("{} has no ```sh blocks", guide.display());
    }
    let bin = build_cli(root, release)?;
    let tmp = fresh_dir()?;
    // Only `fatnet` goes on the PATH, not the rest of the target directory.
    let bin_dir = tmp.join("bin");
    let work = tmp.join("work");
    fs::create_dir(&bin_dir)?;
    fs::create_dir(&work)?;
    let link = bin_dir.join(bin.file_name().expect("a file name"));
    #[cfg(unix)]
    std::os::unix::fs::symlink(&bin, &link)
        .with_context(|| format!("cannot link {}", link.display()))?;
    #[cfg(not(unix))]
    fs::copy(&bin, &link).with_context(|| format!("cannot copy to {}", link.display()))?;
    let path = std::env::join_paths(std::iter::once(bin_dir.clone()).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))?;
    println!(
        "guide: {} block(s) of docs/guide.md in {} with {}",
        blocks.len(),
        work.display(),
        bin.display()
    );
    let start = Instant::now();
    for (i, block) in blocks.iter().enumerate() {
        let number = i + 1;
        let t = Instant::now();
        let out = Command::new("bash")
            .arg("-c")
            .arg(script(block))
            .current_dir(&work)
            .env("PATH", &path)
            .env("FATNET_REPO", root)
            .stdin(Stdio::null())
            .output()
            .context("cannot run bash")?;
        if !out.status.success() {
            let status = out.status.code().map_or_else(
                || "killed by a signal".to_string(),
                |c| format!("status {c}"),
            );
            bail!(
                "block {number} (docs/guide.md line {}) failed ({status}); the directory is kept: {}\n\
                 --- commands\n{}\n--- output\n{}",
                block.line,
                work.display(),
                block.lines.join("\n"),
                String::from_utf8_lossy(&out.stdout).trim_end()
            );
        }
        println!(
            "guide: block {number} (line {}) ok in {:.2} s",
            block.line,
            t.elapsed().as_secs_f64()
        );
    }
    println!(
        "guide: all {} block(s) ok in {:.1} s",
        blocks.len(),
        start.elapsed().as_secs_f64()
    );
    fs::remove_dir_all(&tmp).with_context(|| format!("cannot remove {}", tmp.display()))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_sh_blocks_are_kept_with_their_lines_in_order() {
        let md = "# Title\n\
                  ```sh\nfatnet topology a\nfatnet topology b\n```\n\
                  text\n\
                  ```toml\nsimulator = \"packet\"\n```\n\
                  ```\nplain\n```\n\
                  ```text\n$ fatnet x\noutput\n```\n\
                  ```sh\n\n# a comment\nfatnet load c || test $? -eq 1\n```\n";
        let blocks = sh_blocks(md);
        assert_eq!(
            blocks,
            vec![
                ShBlock {
                    line: 2,
                    lines: vec!["fatnet topology a".into(), "fatnet topology b".into()],
                },
                ShBlock {
                    line: 17,
                    lines: vec![
                        String::new(),
                        "# a comment".into(),
                        "fatnet load c || test $? -eq 1".into()
                    ],
                },
            ]
        );
    }

    #[test]
    fn a_longer_fence_holds_a_shorter_one_and_list_indentation_is_dropped() {
        let md = "````markdown\n```sh\nnot run\n```\n````\n\
                  - a step\n\n  ```sh\n  fatnet a\n    indented more\n  ```\n\
                  ```sh\nunclosed\n";
        let blocks = sh_blocks(md);
        assert_eq!(blocks.len(), 2, "{blocks:?}");
        assert_eq!(blocks[0].line, 8);
        assert_eq!(blocks[0].lines, vec!["fatnet a", "  indented more"]);
        assert_eq!(blocks[1].lines, vec!["unclosed"]);
    }

    #[test]
    fn the_script_is_strict_and_keeps_the_block() {
        let block = ShBlock {
            line: 1,
            lines: vec!["a".into(), "b".into()],
        };
        let s = script(&block);
        assert!(s.starts_with("set -euo pipefail\n"));
        assert!(s.ends_with("a\nb\n"));
    }
}
