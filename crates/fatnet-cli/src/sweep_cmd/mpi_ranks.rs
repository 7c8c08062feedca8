//! `fatnet sweep run` under `mpirun` (cargo feature `mpi`, the `mpi` crate over the system's
//! MPI library).
//!
//! **Key design decision: ranks only compute; rank 0 owns every file.** Rank 0 reads and
//! validates the sweep file, sends its text to the other ranks (so only rank 0 needs the file
//! and the output directory), and drives [`run_sweep_with`] exactly as a single process does:
//! same resume logic, same batches, same fsyncs. Its [`TaskRunner`] splits each batch by task
//! index — task `t` runs on rank `t mod size` — runs its own share on its threads while the
//! other ranks run theirs, and gathers their lines. Each line is produced by
//! [`SweepSpec::run_task_line`], a function of the sweep text and the task index alone, and
//! rank 0 writes a batch in task order, so `results.jsonl` is byte-identical to a
//! single-process run of the same sweep.
//!
//! Messages (all on the world communicator, tag 0):
//! - rank 0 → rank r, once: the sweep file's bytes; empty means "stop, rank 0 failed".
//! - rank 0 → rank r, per batch: `u64`s `[1, tasks…]` (its share, maybe empty); `[0]` at the
//!   end, also after an error on rank 0.
//! - rank r → rank 0, per batch: per task of its share, in order, a frame `status: u8`
//!   (0 = ok, 1 = error), `len: u64` little-endian, then the line or the error's text.
//!
//! Run without `mpirun` (a world of one rank), it is the single-process run.

use std::io::Write;

use anyhow::{Result, anyhow};
use fatnet_repro::ReproError;
use fatnet_repro::sweep::{LocalTasks, SweepSpec, TaskRunner};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

use super::{RunArgs, default_threads, drive};

const STOP: u64 = 0;
const WORK: u64 = 1;

/// Runs `fatnet sweep run` on this rank.
pub(super) fn run(args: &RunArgs, out: &mut impl Write) -> Result<()> {
    let (universe, _) = mpi::initialize_with_threading(mpi::Threading::Funneled)
        .ok_or_else(|| anyhow!("MPI is already initialized"))?;
    let world = universe.world();
    if let Some(size) = super::launcher_size()
        && size as i32 != world.size()
    {
        anyhow::bail!(
            "the launcher started {size} ranks but MPI sees a world of {}: this fatnet was built against another MPI library than the mpirun that started it",
            world.size()
        );
    }
    let threads = args.threads.unwrap_or_else(default_threads);
    if world.rank() != 0 {
        return worker(&world, args.threads);
    }
    let size = world.size();
    let spec = match SweepSpec::from_file(&args.file) {
        Ok(spec) => spec,
        Err(e) => {
            for r in 1..size {
                world.process_at_rank(r).send(&[] as &[u8]);
            }
            return Err(e.into());
        }
    };
    for r in 1..size {
        world.process_at_rank(r).send(spec.source().as_bytes());
    }
    let mut runner = Ranks {
        world: &world,
        local: LocalTasks::new(args.threads),
    };
    drive(args, &spec, &mut runner, threads * size as usize, out)
    // `runner` is dropped here, before `universe`: the other ranks are told to stop first.
}

/// Rank 0's runner: splits each batch over the ranks by task index.
struct Ranks<'a> {
    world: &'a SimpleCommunicator,
    local: LocalTasks,
}

impl std::fmt::Debug for Ranks<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ranks")
            .field("size", &self.world.size())
            .finish()
    }
}

impl Drop for Ranks<'_> {
    fn drop(&mut self) {
        for r in 1..self.world.size() {
            self.world.process_at_rank(r).send(&[STOP][..]);
        }
    }
}

impl TaskRunner for Ranks<'_> {
    fn run_tasks(
        &mut self,
        spec: &SweepSpec,
        tasks: &[u64],
    ) -> Result<Vec<Result<Vec<u8>, ReproError>>, ReproError> {
        let size = self.world.size() as u64;
        let share = |rank: u64| -> Vec<u64> {
            tasks.iter().copied().filter(|t| t % size == rank).collect()
        };
        for r in 1..size {
            let mut message = vec![WORK];
            message.extend(share(r));
            self.world.process_at_rank(r as i32).send(&message[..]);
        }
        let mine = share(0);
        let mut outcomes: Vec<Option<Result<Vec<u8>, ReproError>>> =
            (0..tasks.len()).map(|_| None).collect();
        let position = |task: u64| {
            tasks
                .binary_search(&task)
                .expect("a task of this batch (tasks ascend)")
        };
        for (task, outcome) in mine.iter().zip(self.local.run(spec, &mine)) {
            outcomes[position(*task)] = Some(outcome);
        }
        for r in 1..size {
            let (bytes, _) = self.world.process_at_rank(r as i32).receive_vec::<u8>();
            let theirs = share(r);
            let frames = decode(&bytes, theirs.len()).ok_or_else(|| ReproError::SweepTask {
                task: theirs.first().copied().unwrap_or(0),
                reason: format!("rank {r} sent a malformed reply of {} bytes", bytes.len()),
            })?;
            for (task, (ok, payload)) in theirs.iter().zip(frames) {
                outcomes[position(*task)] = Some(if ok {
                    Ok(payload)
                } else {
                    Err(ReproError::SweepTask {
                        task: *task,
                        reason: format!("on rank {r}: {}", String::from_utf8_lossy(&payload)),
                    })
                });
            }
        }
        Ok(outcomes
            .into_iter()
            .map(|o| o.expect("every task of the batch has one rank"))
            .collect())
    }
}

/// A worker rank: receives the sweep, then runs its share of each batch until told to stop.
fn worker(world: &SimpleCommunicator, threads: Option<usize>) -> Result<()> {
    let root = world.process_at_rank(0);
    let (source, _) = root.receive_vec::<u8>();
    if source.is_empty() {
        return Ok(());
    }
    // Rank 0 validated this very text; should parsing still fail here, every task reports it.
    let spec = String::from_utf8(source)
        .map_err(|e| e.to_string())
        .and_then(|text| SweepSpec::parse(&text).map_err(|e| e.to_string()));
    let local = LocalTasks::new(threads);
    loop {
        let (message, _) = root.receive_vec::<u64>();
        let Some((&WORK, tasks)) = message.split_first() else {
            return Ok(());
        };
        let outcomes: Vec<Result<Vec<u8>, String>> = match &spec {
            Ok(spec) => local
                .run(spec, tasks)
                .into_iter()
                .map(|o| o.map_err(|e| e.to_string()))
                .collect(),
            Err(e) => tasks
                .iter()
                .map(|_| Err(format!("cannot parse the sweep: {e}")))
                .collect(),
        };
        root.send(&encode(&outcomes)[..]);
    }
}

/// Frames outcomes: `status`, `len` (u64 little-endian), payload.
fn encode(outcomes: &[Result<Vec<u8>, String>]) -> Vec<u8> {
    let mut bytes = Vec::new();
    for outcome in outcomes {
        let (status, payload) = match outcome {
            Ok(line) => (0u8, line.as_slice()),
            Err(reason) => (1u8, reason.as_bytes()),
        };
        bytes.push(status);
        bytes.extend_from_slice(&(payload.len() as u64).to_le_bytes());
        bytes.extend_from_slice(payload);
    }
    bytes
}

/// Reads `count` frames of [`encode`]: `(ok, payload)`; `None` if malformed.
fn decode(mut bytes: &[u8], count: usize) -> Option<Vec<(bool, Vec<u8>)>> {
    let mut frames = Vec::with_capacity(count);
    for _ in 0..count {
        let (&status, rest) = bytes.split_first()?;
        let len = u64::from_le_bytes(rest.get(..8)?.try_into().ok()?) as usize;
        let payload = rest.get(8..8 + len)?;
        frames.push((status == 0, payload.to_vec()));
        bytes = &rest[8 + len..];
    }
    bytes.is_empty().then_some(frames)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_round_trip_and_reject_truncation() {
        let outcomes = vec![
            Ok(b"{\"a\":1}\n".to_vec()),
            Err("boom".into()),
            Ok(Vec::new()),
        ];
        let bytes = encode(&outcomes);
        let frames = decode(&bytes, 3).unwrap();
        assert_eq!(frames[0], (true, b"{\"a\":1}\n".to_vec()));
        assert_eq!(frames[1], (false, b"boom".to_vec()));
        assert_eq!(frames[2], (true, Vec::new()));
        assert!(decode(&bytes[..bytes.len() - 1], 3).is_none());
        assert!(decode(&bytes, 2).is_none());
    }
}
