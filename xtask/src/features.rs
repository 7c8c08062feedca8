//! `cargo xtask tidy`: every command of the workspace resolves the same features of every
//! crate as `cargo test --workspace`, so that they share one build of every library (see
//! `crates/fatnet-workspace-hack/Cargo.toml`, where a missing feature goes).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use anyhow::Result;

/// The packages users and CI build on their own in the dev profile (`cargo build -p`, `cargo
/// xtask`, the wheel), with the dependency kinds that command resolves. (`cargo bench` builds
/// in the bench profile, which shares nothing with the dev profile's build anyway.)
const SELECTIONS: &[(&str, &str, &str)] = &[
    ("fatnet-cli", "normal,build", "cargo build -p fatnet-cli"),
    ("xtask", "normal,build", "cargo xtask"),
    (
        "fatnet-py",
        "normal,build",
        "pip install ./crates/fatnet-py",
    ),
];

/// Features per crate (`name vVERSION`) as `cargo tree` resolves them for `args`.
fn resolved(root: &Path, args: &[&str]) -> Result<BTreeMap<String, BTreeSet<String>>> {
    let mut tree = vec!["tree"];
    tree.extend_from_slice(args);
    tree.extend_from_slice(&["--format", "{p} [{f}]", "--prefix", "none"]);
    let out = crate::cargo_stdout(root, &tree)?;
    Ok(parse(&String::from_utf8_lossy(&out)))
}

/// Parses `cargo tree --format "{p} [{f}]" --prefix none`: one crate per line, `name vX.Y.Z`
/// with maybe a path or `(proc-macro)`, then its features in brackets. A crate seen on several
/// lines (host and target) gets the union.
fn parse(text: &str) -> BTreeMap<String, BTreeSet<String>> {
    let mut crates: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for line in text.lines() {
        let line = line.trim().trim_end_matches(" (*)");
        let (Some(open), true) = (line.rfind(" ["), line.ends_with(']')) else {
            continue;
        };
        let mut words = line[..open].split_whitespace();
        let (Some(name), Some(version)) = (words.next(), words.next()) else {
            continue;
        };
        let features = &line[open + 2..line.len() - 1];
        crates
            .entry(format!("{name} {version}"))
            .or_default()
            .extend(
                features
                    .split(',')
                    .filter(|f| !f.is_empty())
                    .map(String::from),
            );
    }
    crates
}

/// The crates of `selection` whose features differ from the workspace's: (crate, features
/// only the workspace turns on, features only the selection turns on).
fn differences(
    workspace: &BTreeMap<String, BTreeSet<String>>,
    selection: &BTreeMap<String, BTreeSet<String>>,
) -> Vec<(String, Vec<String>, Vec<String>)> {
    selection
        .iter()
        .filter_map(|(name, features)| {
            let whole = workspace.get(name)?;
            (whole != features).then(|| {
                (
                    name.clone(),
                    whole.difference(features).cloned().collect(),
                    features.difference(whole).cloned().collect(),
                )
            })
        })
        .collect()
}

/// One problem per crate whose features a command resolves otherwise than the workspace.
pub fn check(root: &Path) -> Result<Vec<String>> {
    let workspace = resolved(root, &["--workspace", "--edges", "normal,build,dev"])?;
    let mut problems = Vec::new();
    for &(package, edges, command) in SELECTIONS {
        let selection = resolved(root, &["--package", package, "--edges", edges])?;
        for (name, missing, extra) in differences(&workspace, &selection) {
            problems.push(format!(
                "`{command}` builds {name} with other features than `cargo test --workspace` \
                 (only the workspace: [{}]; only this command: [{}]), so it compiles the \
                 libraries again: turn them on in crates/fatnet-workspace-hack/Cargo.toml",
                missing.join(", "),
                extra.join(", ")
            ));
        }
    }
    Ok(problems)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TREE: &str = "\
fatnet-cli v0.0.0 (/w/crates/fatnet-cli) []
serde v1.0.229 [default,derive,std]
serde_derive v1.0.229 (proc-macro) []
syn v2.0.119 [full,parsing]
syn v2.0.119 [derive] (*)
";

    #[test]
    fn a_tree_is_read_per_crate_with_the_union_of_its_lines() {
        let crates = parse(TREE);
        assert_eq!(crates.len(), 4);
        assert!(crates["fatnet-cli v0.0.0"].is_empty());
        assert!(crates["serde_derive v1.0.229"].is_empty());
        let syn: Vec<&str> = crates["syn v2.0.119"].iter().map(String::as_str).collect();
        assert_eq!(syn, ["derive", "full", "parsing"]);
    }

    #[test]
    fn a_missing_or_extra_feature_is_a_difference_and_an_absent_crate_is_not() {
        let workspace = parse(TREE);
        let mut selection = parse(TREE);
        assert!(differences(&workspace, &selection).is_empty());
        selection.get_mut("serde v1.0.229").unwrap().remove("std");
        selection
            .get_mut("syn v2.0.119")
            .unwrap()
            .insert("visit-mut".into());
        selection.remove("fatnet-cli v0.0.0");
        assert_eq!(
            differences(&workspace, &selection),
            vec![
                ("serde v1.0.229".into(), vec!["std".into()], vec![]),
                ("syn v2.0.119".into(), vec![], vec!["visit-mut".into()]),
            ]
        );
    }
}
