//! `cargo xtask guide`: runs every ```` ```sh ```` block of `docs/guide.md`, in order, so that
//! the tutorial cannot drift from the `fatnet` it describes.
//!
//! Each block runs in its own `bash` (`set -euo pipefail`), all of them in one fresh temporary
//! directory (files a block writes are there for the next ones; shell variables are not),
//! with `fatnet` on the PATH pointing at the workspace's freshly built CLI and the repository
//! root in `$FATNET_REPO`. A command that is expected to fail is written so that its block
//! still succeeds only on the expected failure (`fatnet schedule verify bad.txt ... || test $? -eq 1`).
//! A ```` ```text ```` block right after a ```` ```sh ```` block is an excerpt of its output
//! and must still match it (`...` for what is left out), so the numbers the guide shows are
//! the numbers `fatnet` prints.

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
    /// The ```` ```text ```` block right after it (nothing but blank lines between), if any:
    /// an excerpt of what the commands print, checked against their output.
    pub excerpt: Option<Excerpt>,
}

/// A ```` ```text ```` block that shows part of the output of the ```` ```sh ```` block before it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Excerpt {
    /// 1-based line of the opening fence.
    pub line: usize,
    /// The block's lines, in order, without the fences.
    pub lines: Vec<String>,
}

/// A fenced block of any language.
struct Fence {
    /// The info string's first word (empty when there is none).
    lang: String,
    /// 0-based lines of the opening and closing fences (the closing one may be past the end).
    open: usize,
    close: usize,
    lines: Vec<String>,
}

/// The fenced blocks of `markdown`, in order. A fence is a line of three or more backticks
/// (indentation allowed, as in a list item); its info string's first word is the language. A
/// block is closed by a line of at least as many backticks and nothing else; an unclosed block
/// runs to the end of the file. The fence's indentation is removed from the block's lines.
fn fences(markdown: &str) -> Vec<Fence> {
    let mut out = Vec::new();
    // (fence length, indentation, block being built)
    let mut open: Option<(usize, usize, Fence)> = None;
    let mut last = 0;
    for (i, raw) in markdown.lines().enumerate() {
        last = i;
        let trimmed = raw.trim_start();
        let indent = raw.len() - trimmed.len();
        let ticks = trimmed.chars().take_while(|&c| c == '`').count();
        match &mut open {
            None => {
                if ticks >= 3 {
                    let lang = trimmed[ticks..].split_whitespace().next().unwrap_or("");
                    let fence = Fence {
                        lang: lang.to_string(),
                        open: i,
                        close: i,
                        lines: Vec::new(),
                    };
                    open = Some((ticks, indent, fence));
                }
            }
            Some((length, block_indent, fence)) => {
                if ticks >= *length && trimmed[ticks..].trim().is_empty() {
                    let (_, _, mut fence) = open.take().expect("a block is open");
                    fence.close = i;
                    out.push(fence);
                } else {
                    // Drop the fence's indentation (a block inside a list item), no more.
                    let keep = raw
                        .char_indices()
                        .find(|&(j, c)| j >= *block_indent || !c.is_whitespace())
                        .map_or(raw.len(), |(j, _)| j);
                    fence.lines.push(raw[keep..].to_string());
                }
            }
        }
    }
    if let Some((_, _, mut fence)) = open {
        fence.close = last + 1;
        out.push(fence);
    }
    out
}

/// The ```` ```sh ```` blocks of `markdown`, in order, each with the ```` ```text ```` block
/// that follows it with nothing but blank lines between (its output excerpt), if any. Blocks
/// of other languages are skipped; see [`fences`] for what a fence is.
pub fn sh_blocks(markdown: &str) -> Vec<ShBlock> {
    let lines: Vec<&str> = markdown.lines().collect();
    let all = fences(markdown);
    let mut blocks = Vec::new();
    for (k, fence) in all.iter().enumerate() {
        if fence.lang != "sh" {
            continue;
        }
        let excerpt = all.get(k + 1).and_then(|next| {
            let adjacent = lines
                .get(fence.close + 1..next.open)
                .is_some_and(|between| between.iter().all(|l| l.trim().is_empty()));
            (next.lang == "text" && adjacent).then(|| Excerpt {
                line: next.open + 1,
                lines: next.lines.clone(),
            })
        });
        blocks.push(ShBlock {
            line: fence.open + 1,
            lines: fence.lines.clone(),
            excerpt,
        });
    }
    blocks
}

/// Checks that `excerpt` shows lines of `output`: every excerpt line, in order, matches a later
/// output line than the one before. A line `...` (or an empty one) stands for lines left out;
/// `...` inside a line stands for any text. Returns the first excerpt line that matches no
/// later output line.
pub fn missing_excerpt_line<'a>(excerpt: &'a [String], output: &str) -> Option<&'a str> {
    let out: Vec<&str> = output.lines().map(str::trim_end).collect();
    let mut from = 0;
    for want in excerpt {
        let want = want.trim_end();
        if want.trim().is_empty() || want.trim() == "..." {
            continue;
        }
        let pieces: Vec<&str> = want.split("...").collect();
        let matches = |line: &str| {
            let mut rest = line;
            for (n, piece) in pieces.iter().enumerate() {
                if n == 0 {
                    match rest.strip_prefix(piece) {
                        Some(r) => rest = r,
                        None => return false,
                    }
                } else if n == pieces.len() - 1 {
                    return rest.ends_with(piece);
                } else {
                    match rest.find(piece) {
                        Some(at) => rest = &rest[at + piece.len()..],
                        None => return false,
                    }
                }
            }
            pieces.len() > 1 || rest.is_empty()
        };
        match out[from..].iter().position(|l| matches(l)) {
            Some(at) => from += at + 1,
            None => return Some(want),
        }
    }
    None
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
    let meta = crate::workspace_metadata(root)?;
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
            // A non-interactive bash sources $BASH_ENV first: keep the user's setup out.
            .env_remove("BASH_ENV")
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
        let output = String::from_utf8_lossy(&out.stdout);
        if let Some(excerpt) = &block.excerpt
            && let Some(missing) = missing_excerpt_line(&excerpt.lines, &output)
        {
            bail!(
                "block {number} (docs/guide.md line {}) ran, but its output no longer shows the \
                 excerpt at line {}: no line matches\n  {missing}\n(after the lines before it; \
                 `...` stands for any text); update the excerpt or find what changed; the \
                 directory is kept: {}\n--- commands\n{}\n--- output\n{}",
                block.line,
                excerpt.line,
                work.display(),
                block.lines.join("\n"),
                output.trim_end()
            );
        }
        println!(
            "guide: block {number} (line {}) ok in {:.2} s{}",
            block.line,
            t.elapsed().as_secs_f64(),
            if block.excerpt.is_some() {
                ", output excerpt matches"
            } else {
                ""
            }
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
                    excerpt: None,
                },
                ShBlock {
                    line: 17,
                    lines: vec![
                        String::new(),
                        "# a comment".into(),
                        "fatnet load c || test $? -eq 1".into()
                    ],
                    excerpt: None,
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
            excerpt: None,
        };
        let s = script(&block);
        assert!(s.starts_with("set -euo pipefail\n"));
        assert!(s.ends_with("a\nb\n"));
    }
    #[test]
    fn a_text_block_right_after_an_sh_block_is_its_excerpt() {
        let md = "```sh\nfatnet a\n```\n\n```text\nout a\n```\n\
                  ```sh\nfatnet b\n```\nprose\n```text\nnot b's\n```\n\
                  ```sh\nfatnet c\n```\n```toml\nx = 1\n```\n```text\nnot c's\n```\n";
        let blocks = sh_blocks(md);
        assert_eq!(blocks.len(), 3);
        assert_eq!(
            blocks[0].excerpt,
            Some(Excerpt {
                line: 5,
                lines: vec!["out a".into()]
            })
        );
        assert_eq!(blocks[1].excerpt, None, "prose in between");
        assert_eq!(blocks[2].excerpt, None, "another block in between");
    }

    #[test]
    fn an_excerpt_matches_lines_in_order_with_ellipses() {
        let out = "topology  x\nprocessors  64\nswitches  63\nlevel 0 up 1\nlevel 6 up 8\n";
        let ex = |lines: &[&str]| lines.iter().map(|l| l.to_string()).collect::<Vec<_>>();
        assert_eq!(
            missing_excerpt_line(&ex(&["topology  x", "...", "level 6 up 8"]), out),
            None
        );
        assert_eq!(
            missing_excerpt_line(&ex(&["processors ...", "level ... up 8", ""]), out),
            None
        );
        // A whole line must match, in order, and each output line serves once.
        assert_eq!(
            missing_excerpt_line(&ex(&["processors  6"]), out),
            Some("processors  6")
        );
        assert_eq!(
            missing_excerpt_line(&ex(&["switches  63", "processors  64"]), out),
            Some("processors  64")
        );
        assert_eq!(
            missing_excerpt_line(&ex(&["level 6 up 8", "level 6 up 8"]), out),
            Some("level 6 up 8")
        );
        assert_eq!(
            missing_excerpt_line(&ex(&["level 0...0 up 1"]), out),
            Some("level 0...0 up 1"),
            "the pieces around `...` do not overlap"
        );
    }
}
