//! Running a sweep into its output directory, one writer at a time.
//!
//! Owns the output directory while a sweep runs: the advisory lock on `sweep.lock`, the
//! atomic copy of the sweep file, the choice of the missing tasks (from `store`'s done flags),
//! their batches handed to a [`TaskRunner`] ([`LocalTasks`]: rayon threads; `fatnet-cli`'s MPI
//! ranks) and each batch appended in task order, flushed and fsync'd. A runner only computes
//! (each task's line is `job`'s); no option here changes the set of result lines.

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::Path;

use rayon::prelude::*;

use super::SweepSpec;
use super::store::{RESULTS_FILE, SWEEP_FILE, TrialRecord, io_error, read_done};
use crate::ReproError;

/// Name of the lock file in the output directory: held by the process writing results.
pub const LOCK_FILE: &str = "sweep.lock";

/// How to run a sweep. Options, not results: no field changes the set of result lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SweepOptions {
    /// Continue the results already in the output directory instead of refusing to start.
    pub resume: bool,
    /// Worker threads; `None` for the current rayon pool.
    pub threads: Option<usize>,
    /// Tasks per batch: each batch is written, flushed and fsync'd before the next starts
    /// (at least 1).
    pub batch: usize,
}

impl Default for SweepOptions {
    fn default() -> Self {
        SweepOptions {
            resume: false,
            threads: None,
            batch: 64,
        }
    }
}

/// What [`run_sweep`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SweepRun {
    /// Tasks in the sweep.
    pub total: u64,
    /// Tasks found already finished in the results file.
    pub skipped: u64,
    /// Tasks run now.
    pub ran: u64,
    /// Bytes of a partial last line discarded on resume.
    pub discarded_bytes: u64,
}

/// Where a sweep's tasks run: this process's threads ([`LocalTasks`]) or, in `fatnet-cli`
/// built with the `mpi` feature, the ranks of an MPI job. [`run_sweep_with`] hands it one batch
/// at a time and writes what it returns; a runner only computes.
pub trait TaskRunner {
    /// Runs `tasks` (ascending task indices of `spec`) and returns one outcome per task, in the
    /// same order: the task's line of `results.jsonl` ([`SweepSpec::run_task_line`], newline
    /// included) or its error.
    ///
    /// # Errors
    ///
    /// An error of the runner itself (not of a task), such as a failed transfer between
    /// processes; the sweep stops after writing nothing of this batch.
    fn run_tasks(
        &mut self,
        spec: &SweepSpec,
        tasks: &[u64],
    ) -> Result<Vec<Result<Vec<u8>, ReproError>>, ReproError>;
}

/// Runs tasks on this process's threads: a rayon pool of a given size, or the current pool.
#[derive(Debug)]
pub struct LocalTasks {
    pool: Option<rayon::ThreadPool>,
}

impl LocalTasks {
    /// Runs on `threads` worker threads, or on the current rayon pool (all cores unless
    /// configured otherwise) for `None`. A pool that cannot be built falls back to the current
    /// one: the thread count never changes a result.
    pub fn new(threads: Option<usize>) -> LocalTasks {
        LocalTasks {
            pool: threads.and_then(|n| {
                rayon::ThreadPoolBuilder::new()
                    .num_threads(n.max(1))
                    .build()
                    .ok()
            }),
        }
    }

    /// Runs `tasks` of `spec` in parallel; one outcome per task, in order.
    pub fn run(&self, spec: &SweepSpec, tasks: &[u64]) -> Vec<Result<Vec<u8>, ReproError>> {
        self.map(tasks, |t| spec.run_task_line(t))
    }

    /// Runs `tasks` of `spec` in parallel; one record per task ([`SweepSpec::run_task`]), in
    /// order: what [`run`](Self::run) writes as lines, as values (the Python package's sweeps).
    pub fn run_records(
        &self,
        spec: &SweepSpec,
        tasks: &[u64],
    ) -> Vec<Result<TrialRecord, ReproError>> {
        self.map(tasks, |t| spec.run_task(t))
    }

    fn map<T: Send>(&self, tasks: &[u64], f: impl Fn(u64) -> T + Sync) -> Vec<T> {
        let work = || tasks.par_iter().map(|&t| f(t)).collect();
        match &self.pool {
            Some(pool) => pool.install(work),
            None => work(),
        }
    }
}

impl TaskRunner for LocalTasks {
    fn run_tasks(
        &mut self,
        spec: &SweepSpec,
        tasks: &[u64],
    ) -> Result<Vec<Result<Vec<u8>, ReproError>>, ReproError> {
        Ok(self.run(spec, tasks))
    }
}

/// Runs a sweep into `out_dir` (created if needed), appending to `out_dir/results.jsonl`, on
/// [`SweepOptions::threads`] threads of this process. See [`run_sweep_with`].
///
/// # Errors
///
/// As [`run_sweep_with`].
pub fn run_sweep(
    spec: &SweepSpec,
    out_dir: &Path,
    options: &SweepOptions,
) -> Result<SweepRun, ReproError> {
    run_sweep_with(
        spec,
        out_dir,
        options,
        &mut LocalTasks::new(options.threads),
        &mut |_| {},
    )
}

/// Runs a sweep into `out_dir` (created if needed), appending to `out_dir/results.jsonl`: the
/// missing tasks, in ascending order, in batches of [`SweepOptions::batch`] handed to `runner`;
/// each batch's lines are written in task order, flushed and fsync'd before the next batch
/// starts. `progress` is called once before the first batch and after every batch with the
/// counts so far. [`SweepOptions::threads`] is ignored: the runner decides where tasks run.
///
/// # Errors
///
/// - [`ReproError::SweepBusy`] if another process is writing into `out_dir` (it holds
///   `out_dir/sweep.lock`).
/// - [`ReproError::ResultsExist`] if `out_dir` already holds results and `options.resume` is
///   false: nothing is written (but the lock file).
/// - [`ReproError::SweepChanged`] on resume when `out_dir/sweep.toml` is another sweep.
/// - [`ReproError::CorruptResults`] or [`ReproError::DuplicateTask`] on resume when a
///   complete line is not a record of this sweep or repeats a task.
/// - [`ReproError::SweepTask`] when a trial fails (the lowest such task of its batch; the
///   batch's finished tasks are written first).
/// - [`ReproError::Io`] when a file cannot be read or written.
/// - The runner's own errors.
pub fn run_sweep_with(
    spec: &SweepSpec,
    out_dir: &Path,
    options: &SweepOptions,
    runner: &mut dyn TaskRunner,
    progress: &mut dyn FnMut(&SweepRun),
) -> Result<SweepRun, ReproError> {
    let results = out_dir.join(RESULTS_FILE);
    let copy = out_dir.join(SWEEP_FILE);
    fs::create_dir_all(out_dir).map_err(io_error(out_dir))?;
    // One writer per directory: a second `run` or `resume` on it is refused, never interleaved.
    // The operating system drops the lock when the process dies, even by SIGKILL.
    let lock_path = out_dir.join(LOCK_FILE);
    let lock = OpenOptions::new()
        .create(true)
        .write(true)
        .truncate(false)
        .open(&lock_path)
        .map_err(io_error(&lock_path))?;
    match lock.try_lock() {
        Ok(()) => {}
        Err(std::fs::TryLockError::WouldBlock) => {
            return Err(ReproError::SweepBusy {
                path: out_dir.to_path_buf(),
            });
        }
        Err(std::fs::TryLockError::Error(e)) => return Err(io_error(&lock_path)(e)),
    }
    let has_results = fs::metadata(&results).is_ok_and(|m| m.len() > 0);
    if has_results && !options.resume {
        return Err(ReproError::ResultsExist { path: results });
    }
    let existing = match crate::read_config(&copy) {
        Ok(text) => Some(text),
        Err(ReproError::Io { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(e),
    };
    if options.resume
        && let Some(text) = &existing
        && *text != spec.source
    {
        return Err(ReproError::SweepChanged { path: copy });
    }
    if existing.as_deref() != Some(spec.source.as_str()) {
        // Atomically: a crash never leaves a torn copy, which `resume` would take for another
        // sweep.
        crate::write_atomically(&copy, spec.source.as_bytes())?;
    }
    let done = read_done(spec, &results)?;
    let mut file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(&results)
        .map_err(io_error(&results))?;
    if let Ok(dir) = File::open(out_dir) {
        // Make the new directory entries durable; not every platform can sync a directory.
        let _ = dir.sync_all();
    }
    let mut run = SweepRun {
        total: spec.tasks(),
        skipped: done.count,
        ran: 0,
        discarded_bytes: done.discarded,
    };
    progress(&run);
    // The missing tasks, a batch at a time: the done flags (a byte per task) are the only
    // memory that grows with the sweep, so every sweep `check` accepts can run.
    let mut pending = (0..spec.tasks()).filter(|&t| !done.flags[t as usize]);
    let mut batch = Vec::with_capacity(options.batch.max(1));
    loop {
        batch.clear();
        batch.extend(pending.by_ref().take(options.batch.max(1)));
        if batch.is_empty() {
            break;
        }
        let outcomes = runner.run_tasks(spec, &batch)?;
        let mut buffer = Vec::new();
        let mut first_error = None;
        for outcome in outcomes {
            match outcome {
                Ok(line) => {
                    buffer.extend_from_slice(&line);
                    run.ran += 1;
                }
                Err(e) => {
                    first_error.get_or_insert(e);
                }
            }
        }
        file.write_all(&buffer)
            .and_then(|()| file.sync_data())
            .map_err(io_error(&results))?;
        if let Some(e) = first_error {
            return Err(e);
        }
        progress(&run);
    }
    Ok(run)
}
