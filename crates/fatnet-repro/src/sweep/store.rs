//! The results store: `results.jsonl`, one [`TrialRecord`] per finished task.
//!
//! Owns the record format, the check that every complete line is a record of this sweep and
//! no task appears twice, what a resume keeps (the complete lines; a partial last line is
//! truncated) and [`read_results`], the read-only view `sweep_summary` uses. It does not
//! decide which tasks run or hold the lock (`run`), and never runs a task (`job`).

use std::collections::BTreeMap;
use std::fs::{self, OpenOptions};
use std::io::{BufRead, BufReader};
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::check::ParamValue;
use super::job::TrialResult;
use super::{SweepSpec, Task};
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

/// The longest line of a results file (1 MiB; a record is a few hundred bytes): a longer one
/// is refused as corrupt after its first MiB, so a file of one endless line (`/dev/zero`
/// copied in) is not read into memory.
pub const MAX_RECORD_BYTES: u64 = 1 << 20;

/// Refuses a results file that is not a regular file (a FIFO or a device would block or never
/// end).
fn check_regular(file: &fs::File, path: &Path) -> Result<(), ReproError> {
    let meta = file.metadata().map_err(io_error(path))?;
    if meta.is_file() {
        Ok(())
    } else {
        Err(io_error(path)(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "not a regular file",
        )))
    }
}

pub(super) fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> ReproError + '_ {
    move |source| ReproError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// What a scan of a results file found.
struct Scan {
    /// One flag per task of the sweep (one byte each: at most
    /// [`MAX_TASKS`](super::MAX_TASKS) bytes), `true` for a finished task.
    flags: Vec<bool>,
    /// The number of records.
    count: u64,
    /// Bytes of the complete lines, up to and including the last newline.
    complete: u64,
    /// Bytes of a partial last line (an interrupted write) after them.
    partial: u64,
}

/// Reads a results file line by line (a partial last line is counted, not read as a record),
/// checking every complete line against `spec` (a record of this sweep, no task twice) and
/// handing each record to `on_record`. Only one line is in memory at a time: resuming a large
/// sweep costs its done flags, not its results.
fn scan_records(
    spec: &SweepSpec,
    path: &Path,
    reader: impl BufRead,
    on_record: &mut dyn FnMut(TrialRecord),
) -> Result<Scan, ReproError> {
    let mut reader = reader;
    let mut scan = Scan {
        flags: vec![false; usize::try_from(spec.tasks()).expect("tasks fit in memory")],
        count: 0,
        complete: 0,
        partial: 0,
    };
    let mut line = Vec::new();
    for index in 0.. {
        line.clear();
        let read = std::io::Read::take(reader.by_ref(), MAX_RECORD_BYTES + 1)
            .read_until(b'\n', &mut line)
            .map_err(io_error(path))?;
        if read == 0 {
            break;
        }
        if line.pop() != Some(b'\n') {
            if read as u64 > MAX_RECORD_BYTES {
                return Err(ReproError::CorruptResults {
                    path: path.to_path_buf(),
                    line: index + 1,
                });
            }
            scan.partial = read as u64;
            break;
        }
        scan.complete += read as u64;
        if line.is_empty() {
            continue;
        }
        let corrupt = || ReproError::CorruptResults {
            path: path.to_path_buf(),
            line: index + 1,
        };
        let record: TrialRecord = serde_json::from_slice(&line).map_err(|_| corrupt())?;
        let consistent = spec.task(record.task)
            == Some(Task {
                point: record.point,
                trial: record.trial,
                seed: record.seed,
            })
            && spec.params(record.point) == Some(&record.params)
            && record.result.kind() == spec.kind;
        if !consistent {
            return Err(corrupt());
        }
        if std::mem::replace(&mut scan.flags[record.task as usize], true) {
            return Err(ReproError::DuplicateTask {
                path: path.to_path_buf(),
                line: index + 1,
                task: record.task,
            });
        }
        scan.count += 1;
        on_record(record);
    }
    Ok(scan)
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
    let file = match OpenOptions::new().read(true).write(true).open(path) {
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
    check_regular(&file, path)?;
    let scan = scan_records(spec, path, BufReader::new(&file), &mut |_| {})?;
    if scan.partial > 0 {
        file.set_len(scan.complete).map_err(io_error(path))?;
        file.sync_all().map_err(io_error(path))?;
    }
    Ok(Done {
        flags: scan.flags,
        count: scan.count,
        discarded: scan.partial,
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
    let mut records = Vec::new();
    let partial_bytes = for_each_record(&spec, out_dir, &mut |r| records.push(r))?;
    records.sort_by_key(|r| r.task);
    Ok(SweepResults {
        spec,
        records,
        partial_bytes,
    })
}

/// Hands every record of `out_dir/results.jsonl` to `on_record`, in file order, checked as
/// [`read_results`] checks them but never held together: one line in memory at a time.
/// Returns the bytes of an ignored partial last line.
///
/// # Errors
///
/// As [`read_results`], for the results file of `spec` (the caller read the sweep file).
pub fn for_each_record(
    spec: &SweepSpec,
    out_dir: &Path,
    on_record: &mut dyn FnMut(TrialRecord),
) -> Result<u64, ReproError> {
    let path = out_dir.join(RESULTS_FILE);
    let file = fs::File::open(&path).map_err(io_error(&path))?;
    check_regular(&file, &path)?;
    Ok(scan_records(spec, &path, BufReader::new(file), on_record)?.partial)
}
