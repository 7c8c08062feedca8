//! `cargo xtask tidy`, time check: only the engines advance simulated time.
//!
//! The papers have three time models, so `fatnet-online` has three engines and no other code
//! advances simulated time (docs/architecture.md, fatnet-online): the delivery-cycle engine
//! (`run`), the synchronous step engine (`step::drive`) and the continuous-time FIFO
//! recursion (`greedy_cube`). A scheme is a driver that configures an engine, never a loop of
//! its own: a second loop is a second copy of the step semantics, which drifts.
//!
//! **The rule, mechanically.** In every `.rs` file under `crates/*/src`, a statement that
//! increments a *time variable* by a literal — `x += 1`, or `x = x + 1` — is an advance of
//! simulated time, where a time variable is a name of [`TIME_NAMES`], possibly reached
//! through fields (`report.cycles += 1`). Counters reached through a dereference (`*slot +=
//! 1`, a slot of an array) and increments by a non-literal (a Poisson source's `t +=
//! -ln(u)/λ`, which draws arrival times, not steps) are not. So the code base keeps its
//! clocks under these names, and names no other counter so: this is what makes the check
//! sound, and what a reviewer checks.
//!
//! Only the files of [`ENGINES`] may advance time. [`TO_BE_FOLDED`] lists the scheme loops not
//! yet turned into drivers of an engine (the list shrinking is progress), [`NOT_SIMULATORS`]
//! the code that counts slots without simulating; an entry of either list that no longer
//! advances time is an error too, so the lists stay exact. `for` loops over a time range are
//! not detected (every loop of the code base that simulates keeps an explicit counter, since
//! it skips idle stretches or stops on a condition).

/// Names of time variables: steps, slots, cycles, frames of a simulation's clock.
pub(crate) const TIME_NAMES: &[&str] = &[
    "t", "now", "time", "clock", "tick", "step", "slot", "cycle", "cycles", "frame", "round",
];

/// The engines: the files that may advance simulated time, with what they are.
pub(crate) const ENGINES: &[(&str, &str)] = &[
    (
        "crates/fatnet-online/src/lib.rs",
        "the delivery-cycle engine (`run`, `run_observed`)",
    ),
    (
        "crates/fatnet-online/src/step.rs",
        "the synchronous step engine (`drive`, over `StepModel`)",
    ),
    // The continuous-time FIFO recursion (`greedy_cube`) advances no step counter: its clock
    // moves by window boundaries (`now = cutoff`), which the rule does not match.
];

/// Scheme loops still to be folded into an engine (issue 16), with why they are still loops.
pub(crate) const TO_BE_FOLDED: &[(&str, &str)] = &[];

/// Code that counts slots but is not a simulator, with why it stays.
pub(crate) const NOT_SIMULATORS: &[(&str, &str)] = &[(
    "crates/fatnet-offline/src/hypercube/broadcast.rs",
    "builds offline slot schedules (`SlotSchedule`, checked afterwards) slot by slot; \
     fatnet-offline lies above fatnet-online in the layering, so it cannot call the engine",
)];

/// The time variable advanced on `line`, if any (see the module documentation).
pub(crate) fn advanced_time(line: &str) -> Option<&str> {
    let code = line.split("//").next().unwrap_or_default();
    let bytes = code.as_bytes();
    let mut from = 0;
    while let Some(pos) = code[from..].find('=').map(|p| p + from) {
        from = pos + 1;
        let prev = pos.checked_sub(1).map(|i| bytes[i]);
        let next = bytes.get(pos + 1).copied();
        // `==`, `<=`, `>=`, `!=`, `=>` and the compound assignments other than `+=` are not
        // increments.
        if matches!(next, Some(b'=' | b'>'))
            || matches!(
                prev,
                Some(b'=' | b'<' | b'>' | b'!' | b'-' | b'*' | b'/' | b'%' | b'&' | b'|' | b'^')
            )
        {
            continue;
        }
        let compound = prev == Some(b'+');
        let lhs_end = if compound { pos - 1 } else { pos };
        let Some(lhs) = place(&code[..lhs_end]) else {
            continue;
        };
        let rhs = code[pos + 1..]
            .split([';', '}', ')', ','])
            .next()
            .unwrap_or_default()
            .trim();
        let increment = if compound {
            Some(rhs)
        } else {
            rhs.split_once('+')
                .filter(|(base, _)| base.trim() == lhs)
                .map(|(_, inc)| inc.trim())
        };
        let Some(increment) = increment else {
            continue;
        };
        let name = lhs.rsplit('.').next().unwrap_or(lhs);
        if is_literal(increment) && TIME_NAMES.contains(&name) {
            return Some(name);
        }
    }
    None
}

/// The place assigned to at the end of `before` (an identifier or a field path such as
/// `self.t`), unless it is reached through a dereference or is part of a larger expression.
fn place(before: &str) -> Option<&str> {
    let trimmed = before.trim_end();
    let start = trimmed
        .char_indices()
        .rev()
        .find(|&(_, c)| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
        .map_or(0, |(i, c)| i + c.len_utf8());
    let lhs = &trimmed[start..];
    let first = lhs.split('.').next()?;
    let ident = |s: &str| {
        s.chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    if !lhs.split('.').all(ident) || first.is_empty() {
        return None;
    }
    // What precedes the place must end a statement or open a block: not `*` (a dereference)
    // nor anything that makes it an operand.
    match trimmed[..start].trim_end().chars().last() {
        None | Some('{' | ';' | '>' | ')' | '(' | ',' | '|') => Some(lhs),
        _ => None,
    }
}

/// Whether `s` is a numeric literal (`1`, `1u64`, `2_000`, `1.0`).
fn is_literal(s: &str) -> bool {
    s.starts_with(|c: char| c.is_ascii_digit())
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
}

/// The problems of a workspace of `(path relative to the root, text)` files under the lists
/// `engines`, `to_fold` and `not_simulators`: every advance of time outside them, and every
/// exempted file that advances no time (a stale entry).
pub(crate) fn check(
    files: &[(String, String)],
    engines: &[(&str, &str)],
    to_fold: &[(&str, &str)],
    not_simulators: &[(&str, &str)],
) -> Vec<String> {
    let mut problems = Vec::new();
    let listed = |list: &[(&str, &str)], path: &str| list.iter().any(|(p, _)| *p == path);
    let mut advancing = Vec::new();
    for (path, text) in files {
        let hits: Vec<(usize, &str)> = text
            .lines()
            .enumerate()
            .filter_map(|(i, line)| advanced_time(line).map(|name| (i + 1, name)))
            .collect();
        if hits.is_empty() {
            continue;
        }
        advancing.push(path.as_str());
        if listed(engines, path) || listed(to_fold, path) || listed(not_simulators, path) {
            continue;
        }
        for (line, name) in hits {
            problems.push(format!(
                "{path}:{line}: advances simulated time (`{name}`) outside the engines. Only \
                 the three engines advance time (docs/architecture.md, fatnet-online): make this \
                 scheme a driver of one (step::drive for discrete steps); a counter that \
                 is not a clock needs another name than {TIME_NAMES:?}"
            ));
        }
    }
    for (list, what) in [
        (to_fold, "TO_BE_FOLDED"),
        (not_simulators, "NOT_SIMULATORS"),
    ] {
        for (path, _) in list {
            if !advancing.contains(path) {
                problems.push(format!(
                    "{path}: listed in {what} (xtask/src/clock.rs) but advances no simulated \
                     time any more: remove it from the list"
                ));
            }
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn increments_of_clocks_are_caught() {
        for (line, name) in [
            ("t += 1;", "t"),
            ("            t += 1;", "t"),
            ("        report.cycles += 1;", "cycles"),
            ("        self.now += 2; // next", "now"),
            ("        frame += 1;", "frame"),
            ("        slot = slot + 1;", "slot"),
            ("if go { step += 1u64; }", "step"),
            ("    t+=1;", "t"),
            ("    time += 1.0;", "time"),
            ("    let ρ = 1; ρ2 = 0; t += 1;", "t"),
        ] {
            assert_eq!(advanced_time(line), Some(name), "{line}");
        }
    }

    #[test]
    fn other_statements_are_not() {
        for line in [
            "*slot += 1;",
            "                    *at += 1;",
            "k += 1;",
            "hops += 1;",
            "steps += stats.steps;",
            "t += -(1.0 - rng.random::<f64>()).ln() / rate;",
            "let mut t = 0u64;",
            "t = next.min(self.config.max_steps);",
            "// t += 1;",
            "let x = t + 1;",
            "steps = t + 1;",
            "if t == t + 1 {}",
            "s.held += 1;",
            "x[t] += 1;",
            "t -= 1;",
            "let u = now <= t + 1;",
            "        what: \"load factor ρ = λ·p\", ρ = 1;",
        ] {
            assert_eq!(advanced_time(line), None, "{line}");
        }
    }

    fn files(entries: &[(&str, &str)]) -> Vec<(String, String)> {
        entries
            .iter()
            .map(|(p, t)| (p.to_string(), t.to_string()))
            .collect()
    }

    #[test]
    fn a_loop_outside_the_engines_is_an_error() {
        let loop_text = "fn run() {\n    let mut t = 0;\n    loop {\n        t += 1;\n    }\n}\n";
        let workspace = files(&[
            ("crates/a/src/engine.rs", loop_text),
            ("crates/a/src/scheme.rs", loop_text),
            (
                "crates/a/src/quiet.rs",
                "fn f() { let mut k = 0; k += 1; }\n",
            ),
        ]);
        let engines = [("crates/a/src/engine.rs", "the engine")];
        let problems = check(&workspace, &engines, &[], &[]);
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(problems[0].starts_with("crates/a/src/scheme.rs:4: advances"));
        // Listed as to be folded, it passes.
        let fold = [("crates/a/src/scheme.rs", "later")];
        assert!(check(&workspace, &engines, &fold, &[]).is_empty());
    }

    #[test]
    fn a_stale_exemption_is_an_error() {
        let workspace = files(&[("crates/a/src/folded.rs", "fn f() {}\n")]);
        let fold = [("crates/a/src/folded.rs", "was a loop")];
        let problems = check(&workspace, &[], &fold, &[]);
        assert_eq!(problems.len(), 1);
        assert!(problems[0].contains("remove it from the list"));
        let problems = check(&workspace, &[], &[], &fold);
        assert!(problems[0].contains("NOT_SIMULATORS"));
    }
}
