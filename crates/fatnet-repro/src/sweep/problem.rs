//! What can be wrong with a sweep file, and which line to blame.
//!
//! Owns [`SweepProblem`] and [`SweepProblemKind`] (the entries of
//! [`ReproError::InvalidSweep`]), the collector the checks
//! push them into, and the byte-offset-to-line arithmetic. It does not decide what is wrong:
//! `check` and `spec` find the problems of the text, `job` the refusals of the scenarios.

use crate::ReproError;

/// One problem of a sweep file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SweepProblem {
    /// 1-based line of the offending key or value; `None` for a missing key or a problem of a
    /// combination of values.
    pub line: Option<usize>,
    /// What is wrong.
    pub kind: SweepProblemKind,
}

impl std::fmt::Display for SweepProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line {
            Some(line) => write!(f, "line {line}: {}", self.kind),
            None => write!(f, "{}", self.kind),
        }
    }
}

/// What is wrong in a sweep file.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SweepProblemKind {
    /// The text is not TOML.
    #[error("not TOML: {message}")]
    Syntax {
        /// The parser's message.
        message: String,
    },
    /// A key the format does not have.
    #[error("unknown key `{key}`")]
    UnknownKey {
        /// The key, with its table (`params.flit`).
        key: String,
    },
    /// A required key is absent.
    #[error("missing key `{key}`")]
    MissingKey {
        /// The key.
        key: String,
    },
    /// A value of the wrong TOML type.
    #[error("`{key}`: expected {expected}")]
    WrongType {
        /// The key.
        key: String,
        /// What was expected.
        expected: &'static str,
    },
    /// A value of the right type that is not allowed.
    #[error("`{key}`: bad value `{value}`: {reason}")]
    BadValue {
        /// The key.
        key: String,
        /// The value as written.
        value: String,
        /// Why it is refused.
        reason: String,
    },
    /// A swept or zipped list with no values.
    #[error("`{key}`: empty list")]
    EmptyList {
        /// The key.
        key: String,
    },
    /// A parameter of another simulator or scheduler.
    #[error("`{key}` is not a parameter of {kind}")]
    NotForKind {
        /// The key, with its table (`params.flits`).
        key: String,
        /// What the sweep runs, as written (`scheduler = "leiserson"`).
        kind: String,
    },
    /// More tasks than a sweep may have.
    #[error("{points} points x {trials} trials is more than the {max} tasks a sweep may have")]
    TooManyTasks {
        /// Grid points.
        points: u64,
        /// Trials per point.
        trials: u64,
        /// The limit, [`MAX_TASKS`](super::MAX_TASKS).
        max: u64,
    },
    /// Both `simulator` and `scheduler`.
    #[error("give either `simulator` or `scheduler`, not both")]
    BothKinds,
    /// A key in both `[params]` and `[zip]`.
    #[error("`{key}` is in both [params] and [zip]")]
    Duplicate {
        /// The key.
        key: String,
    },
    /// Zipped lists of different lengths.
    #[error("`zip.{key}` has {len} values, the first zipped list {expected}")]
    ZipLength {
        /// The key.
        key: String,
        /// Its length.
        len: usize,
        /// The length of the first zipped list.
        expected: usize,
    },
    /// A grid point whose options the simulator refuses.
    #[error("point {point} ({params}): {reason}")]
    Point {
        /// Index of the point.
        point: u64,
        /// Its parameters, `key=value` separated by spaces.
        params: String,
        /// Why it is refused.
        reason: String,
    },
}

/// 1-based line of byte `offset` of `source`.
pub(super) fn line_of(source: &str, offset: usize) -> usize {
    source.as_bytes()[..offset.min(source.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// Collects problems with their lines.
pub(super) struct Problems<'s> {
    pub(super) source: &'s str,
    pub(super) list: Vec<SweepProblem>,
}

impl Problems<'_> {
    pub(super) fn at(&mut self, span: std::ops::Range<usize>, kind: SweepProblemKind) {
        let line = Some(line_of(self.source, span.start));
        self.list.push(SweepProblem { line, kind });
    }

    /// The sweep's error: every problem, sorted by line (the stable sort keeps the order
    /// found within a line; problems without a line come last).
    pub(super) fn into_error(mut self) -> ReproError {
        self.list.sort_by_key(|p| p.line.unwrap_or(usize::MAX));
        ReproError::InvalidSweep {
            problems: self.list,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_one_based() {
        let s = "a\nbc\n\nd";
        assert_eq!(line_of(s, 0), 1);
        assert_eq!(line_of(s, 2), 2);
        assert_eq!(line_of(s, 6), 4);
    }
}
