//! `cargo xtask tidy`, citation check: rustdoc cites what a reader can look up.
//!
//! The rendered documentation is read by people who have neither the papers' file numbers
//! nor our implementation notes nor the issue tracker, so a `//!` or `///` line under
//! `crates/*/src` may not cite "paper 004", "notes 002a", `papers/notes/…` or "issue 8":
//! rustdoc cites a paper by authors and short title (the full bibliography is the
//! "References" section of the `fatnet` facade) and says what a decision was, not where it
//! was discussed. Plain `//` comments and tests may keep internal references.

use regex::Regex;

/// The internal references rustdoc must not make: file numbers of the papers, our notes
/// (by number or by path) and tracker issues.
pub(crate) const PATTERN: &str =
    r"(?i:papers?\s+00[0-4])|(?i:notes?[\s/]+00[0-4])|[Ii]ssues?\s+#?[0-9]+";

/// One problem per doc-comment line of `files` (path, text) that cites an internal reference.
pub(crate) fn check(files: &[(String, String)]) -> Vec<String> {
    let re = Regex::new(PATTERN).expect("the citation pattern is a valid regex");
    let mut problems = Vec::new();
    for (path, text) in files {
        for (i, line) in text.lines().enumerate() {
            let trimmed = line.trim_start();
            if !(trimmed.starts_with("//!") || trimmed.starts_with("///")) {
                continue;
            }
            if let Some(m) = re.find(trimmed) {
                problems.push(format!(
                    "{path}:{}: doc comment cites `{}`, which a reader cannot resolve; cite \
                     authors and short title (see the References of crates/fatnet/src/lib.rs) \
                     or say what was decided",
                    i + 1,
                    m.as_str()
                ));
            }
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::check;

    fn one(text: &str) -> Vec<String> {
        check(&[("crates/x/src/lib.rs".to_owned(), text.to_owned())])
    }

    #[test]
    fn flags_internal_references_in_doc_comments() {
        for line in [
            "//! Leiserson (paper 004, §III)",
            "/// the thesis (notes 002a §1.3)",
            "    /// see note 001 §2.1",
            "//! see `papers/notes/000-greenberg-leiserson.md`",
            "//! Issue 7 asks",
            "/// sweeps (issue 8)",
            "/// Papers 004 and 000",
        ] {
            let problems = one(line);
            assert_eq!(problems.len(), 1, "{line}");
            assert!(
                problems[0].starts_with("crates/x/src/lib.rs:1:"),
                "{}",
                problems[0]
            );
        }
    }

    #[test]
    fn leaves_code_comments_and_real_citations_alone() {
        let text = "// issue 16: still a loop (paper 002)\n\
                    //! Leiserson, *Fat-Trees* (1985), Theorem 1\n\
                    /// Table 6.1 (one 5,000-slot run per row)\n\
                    /// Stamoulis' thesis, §6.3.3; Greenberg & Oh (1997), Table I\n\
                    let issue = 3; // paper 004\n";
        assert!(one(text).is_empty(), "{:?}", one(text));
    }

    #[test]
    fn reports_the_line_number() {
        let problems = one("//! fine\n//! fine\n/// (notes 003 §2.6)\n");
        assert_eq!(problems.len(), 1);
        assert!(
            problems[0].starts_with("crates/x/src/lib.rs:3:"),
            "{}",
            problems[0]
        );
    }
}
