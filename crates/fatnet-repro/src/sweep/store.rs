//! The results store: `results.jsonl`, one [`TrialRecord`] per finished task.
//!
//! Owns the record format, the check that every complete line is a record of this sweep and
//! no task appears twice, what a resume keeps (the complete lines; a partial last line is
//! truncated) and [`read_results`], the read-only view `sweep_summary` uses. It does not
//! decide which tasks run or hold the lock (`run`), and never runs a task (`job`).

use std::collections::BTreeMap;
use std::fs::{self, OpenOptions};
use std::io::Read;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::SweepSpec;
use super::check::ParamValue;
use super::job::TrialResult;
use crate::ReproError;

/// Name of the results file in the output directory.
pub const RESULTS_FILE: &str = "results.jsonl";
/// Name of the copy of the sweep file in the output directory.
pub const SWEEP_FILE: &str = "sweep.toml";

/// One finished task: a line of `results.jsonl`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TrialRecord {
    /// Task index, `point · trials + trial`.
    pub task: u64,
    /// Grid point index.
    pub point: u64,
    /// Trial index within the point.
    pub trial: u64,
    /// The trial's seed, `derive_seed(derive_seed(seed, point), trial)`.
    pub seed: u64,
    /// The point's parameters as written in the sweep file.
    pub params: BTreeMap<String, ParamValue>,
    /// The trial's outcome.
    pub result: TrialResult,
}

pub(super) fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> ReproError + '_ {
    move |source| ReproError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Length of the complete lines of `bytes`: up to and including its last newline (a partial
/// last line, an interrupted write, is what follows).
fn complete_len(bytes: &[u8]) -> usize {
    bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1)
}

/// The complete records of a results file's text `bytes` (a partial last line is ignored),
/// checked against `spec`: every line a record of this sweep, no task twice. Also returns the
/// done flags, one per task of `spec` (one byte each: at most [`MAX_TASKS`](super::MAX_TASKS)
/// bytes).
fn parse_records(
    spec: &SweepSpec,
    path: &Path,
    bytes: &[u8],
) -> Result<(Vec<TrialRecord>, Vec<bool>), ReproError> {
    let complete = complete_len(bytes);
    let mut seen = vec![false; usize::try_from(spec.tasks()).expect("tasks fit in memory")];
    let mut records = Vec::new();
    for (index, line) in bytes[..complete].split(|&b| b == b'\n').enumerate() {
        if line.is_empty() {
            continue;
        }
        let corrupt = || ReproError::CorruptResults {
            path: path.to_path_buf(),
            line: index + 1,
        };
        let record: TrialRecord = serde_json::from_slice(line).map_err(|_| corrupt())?;
        let consistent = record.task < spec.tasks()
            && record.point == record.task / spec.trials
            && record.trial == record.task % spec.trials
            && record.seed == spec.task_seed(record.task)
            && spec.params(record.point) == Some(&record.params)
            && record.result.kind() == spec.kind;
        if !consistent {
            return Err(corrupt());
        }
        if std::mem::replace(&mut seen[record.task as usize], true) {
            return Err(ReproError::DuplicateTask {
                path: path.to_path_buf(),
                line: index + 1,
                task: record.task,
            });
        }
        records.push(record);
    }
    Ok((records, seen))
}

/// What [`read_done`] found.
pub(super) struct Done {
    /// One flag per task (one byte each), `true` for a finished task.
    pub flags: Vec<bool>,
    /// How many flags are set.
    pub count: u64,
    /// Bytes of a partial last line, discarded.
    pub discarded: u64,
}

/// Reads the finished tasks of `path`, truncating a partial last line; returns the done flags
/// and the number of bytes discarded.
pub(super) fn read_done(spec: &SweepSpec, path: &Path) -> Result<Done, ReproError> {
    let mut file = match OpenOptions::new().read(true).write(true).open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let total = usize::try_from(spec.tasks()).expect("tasks fit in memory");
            return Ok(Done {
                flags: vec![false; total],
                count: 0,
                discarded: 0,
            });
        }
        Err(e) => return Err(io_error(path)(e)),
    };
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes).map_err(io_error(path))?;
    let (records, flags) = parse_records(spec, path, &bytes)?;
    let complete = complete_len(&bytes);
    let discarded = (bytes.len() - complete) as u64;
    if discarded > 0 {
        file.set_len(complete as u64).map_err(io_error(path))?;
        file.sync_all().map_err(io_error(path))?;
    }
    Ok(Done {
        flags,
        count: records.len() as u64,
        discarded,
    })
}

/// A sweep's results as found in its output directory, read without changing anything.
#[derive(Debug)]
pub struct SweepResults {
    /// The sweep, parsed from the directory's copy of the sweep file.
    pub spec: SweepSpec,
    /// The finished tasks' records, sorted by task.
    pub records: Vec<TrialRecord>,
    /// Bytes of a partial last line (an interrupted write), ignored; `resume` discards them.
    pub partial_bytes: u64,
}

/// Reads the results of the sweep in `out_dir` (its `sweep.toml` and `results.jsonl`) without
/// modifying them: a partial last line is ignored and counted, not truncated.
///
/// # Errors
///
/// - [`ReproError::Io`] if `out_dir/sweep.toml` or `out_dir/results.jsonl` cannot be read
///   (for instance: `out_dir` is not a sweep's output directory).
/// - [`ReproError::InvalidSweep`] if the copy of the sweep file no longer validates.
/// - [`ReproError::CorruptResults`] or [`ReproError::DuplicateTask`] if a complete line is not
///   a record of this sweep or repeats a task.
pub fn read_results(out_dir: &Path) -> Result<SweepResults, ReproError> {
    let spec = SweepSpec::from_file(&out_dir.join(SWEEP_FILE))?;
    let path = out_dir.join(RESULTS_FILE);
    let bytes = fs::read(&path).map_err(io_error(&path))?;
    let (mut records, _) = parse_records(&spec, &path, &bytes)?;
    records.sort_by_key(|r| r.task);
    let complete = complete_len(&bytes);
    Ok(SweepResults {
        spec,
        records,
        partial_bytes: (bytes.len() - complete) as u64,
    })
}
