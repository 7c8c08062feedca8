//! Parameter sweeps from a TOML file, with results that survive interruption.
//!
//! **Key design decision: a task's result is a function of its index and the sweep file
//! only.** The file expands to a fixed list of grid points; task `k = point · trials + trial`
//! runs trial `trial` of point `point` with the seed
//! `derive_seed(derive_seed(seed, point), trial)`, exactly trial `trial` of
//! `fatnet simulate --seed derive_seed(seed, point)` with that point's options. So the set of
//! finished tasks, not the order they finished in, defines `results.jsonl`: any thread count,
//! any [`TaskRunner`] (such as the MPI ranks of `fatnet-cli`) and any interruption followed by
//! `resume` give the same lines, up to their order.
//!
//! # The sweep file
//!
//! ```toml
//! simulator = "packet"      # Greenberg and Oh's packet simulation (`fatnet simulate`)
//! trials = 10               # trials per grid point
//! seed = 7                  # master seed
//!
//! [params]                  # a scalar is fixed; a list is swept (cross product)
//! topology = "bft:n=64"
//! traffic = ["permutation", "uniform:self=false"]
//! flow = ["worm", "store", "split"]
//!
//! [zip]                     # optional: lists of one length, varied together
//! flits = [8, 32]
//! delay = [1, 4]
//! ```
//!
//! A top-level key says what runs: `simulator = "packet"` (Greenberg and Oh's packet simulation,
//! `fatnet simulate`), `simulator = "route"` (Greenberg and Leiserson's delivery-cycle routers,
//! `fatnet route`), `simulator = "dynamic"` (Stamoulis' routing under Poisson traffic,
//! `fatnet simulate --arrivals`) or `scheduler = "leiserson"` (Leiserson's off-line schedules,
//! `fatnet schedule`). Parameters, with those commands' defaults: `topology` and `traffic`
//! (specs, required; the dynamic simulator takes `rate` instead of `traffic`), and
//!
//! - packet: `queueing` (`input`, `output`), `flow` (`worm`, `store`, `split`), `path` (`rp`,
//!   `gp`, `fp`, `dor`), `scan` (`rr`, `fo`, `ff`, `oldest`, `prio`), `priority_range`,
//!   `flits`, `queue` (an integer or `"unbounded"`), `sink` (`queue`, `immediate`), `delay`
//!   and `max_steps`;
//! - route: `router` (`random`, `greedy`, `random-prime`, `constant-switch`), `policy`
//!   (`pessimistic`, `random`, `fixed`, `round-robin`, `wires`), `interleave`, `preset`
//!   (`practical`, `proved`: RANDOM's constants), `k1`, `k2`, `r`, `k` (constant-switch's
//!   `(k+1)·lg n` passes), `max_cycles` and `out_the_root`;
//! - leiserson: `algorithm` (`theorem1`, `corollary2`) and `fictitious` (`lgn`, `depth`).
//! - dynamic: `rate` (λ per node, a number), `p` (bit-flip probability, 0.5), `arrivals`
//!   (`poisson`, `slotted`), `router` (`greedy`, `adaptive`), `broadcast` (`direct`,
//!   `indirect`, `nonidling`, `one-tree`, `periodic`, `periodic-nonidling`), `slots`
//!   (10,000), `warmup` (`slots / 10`, rounded down) and `batches` (20); one steady-state run
//!   per trial.
//!
//! Route and leiserson need a binary fat-tree (`fattree:...`), dynamic `hypercube:d=D` or
//! `butterfly:d=D`. Points are the cross product of
//! the `[params]` keys in alphabetical order (the last key varying fastest), with the `[zip]`
//! index as one more, last, dimension. Broadcast traffic (`broadcast`, `broadcast:src=K`)
//! runs on the packet simulator; the dynamic simulator's `broadcast` key runs Stamoulis'
//! multiple-broadcast schemes.
//!
//! **Which instance a trial sees.** A randomized pattern is drawn afresh for every trial, from
//! the trial's seed; a fixed pattern is made once per point, from `derive_seed(seed, point)`.
//! The simulator's or router's own randomness is seeded with `derive_seed(trial seed, 1)`;
//! Leiserson's scheduler is deterministic. The options of a packet, route, dynamic or
//! leiserson point deserialise into the command's own options struct
//! (`fatnet_scenario::PacketOptions`, `RouteOptions`, `DynamicOptions`, `ScheduleOptions`)
//! and run the library's `trial`: the task of trial `i` equals trial `i` of
//! `fatnet simulate` (`--arrivals` included) or `fatnet route --seed derive_seed(seed, point)`,
//! and
//! `fatnet schedule --seed <the task's seed>`, refusals included, word for word.
//!
//! [`SweepSpec::parse`] checks everything before any work starts: unknown keys, wrong types,
//! bad values, zipped lists of unequal length, option combinations the simulator refuses,
//! topologies that cannot be built and traffic that does not suit them. It reports every
//! problem, each with its line, in one [`ReproError::InvalidSweep`].
//!
//! # The results file
//!
//! [`run_sweep`] writes `out_dir/sweep.toml` (the sweep's text) and appends one
//! [`TrialRecord`] per finished task to `out_dir/results.jsonl`, as one JSON line, in batches
//! of [`SweepOptions::batch`] tasks, each batch flushed and fsync'd before the next starts.
//! With [`SweepOptions::resume`] it keeps the lines already there, truncates a partial last
//! line (a crash during a write) and runs only the missing tasks. While it runs it holds an
//! advisory lock on `out_dir/sweep.lock`, so a second process on the same directory is refused
//! ([`ReproError::SweepBusy`]) instead of duplicating tasks; the copy of the sweep file is
//! replaced atomically, so a crash never leaves a torn one.
//!
//! [`ReproError::InvalidSweep`]: crate::ReproError::InvalidSweep
//! [`ReproError::SweepBusy`]: crate::ReproError::SweepBusy
//!
//! # Where things are
//!
//! One concern per file, in the order a sweep flows through them; this module only
//! re-exports their public items.
//!
//! - `spec`: the file's top level and [`SweepSpec`] (what a parsed sweep answers),
//!   [`SweepKind`], the task limit [`MAX_TASKS`].
//! - `check`: one `[params]` or `[zip]` entry on its own (key, TOML type, choice, spec
//!   syntax), [`ParamValue`].
//! - `problem`: [`SweepProblem`] and [`SweepProblemKind`], collected with their lines.
//! - `grid`: the checked values to the ordered list of grid points.
//! - `job`: a point prepared as the command's scenario, and a task run as its trial
//!   ([`SweepSpec::run_task_line`], [`TrialResult`]); every default and refusal is the
//!   scenario's.
//! - `store`: `results.jsonl` ([`TrialRecord`]), what a resume keeps, [`read_results`].
//! - `run`: [`run_sweep_with`] and its lock, [`TaskRunner`] and [`LocalTasks`].

mod check;
mod grid;
mod job;
mod problem;
mod run;
mod spec;
mod store;

pub use check::ParamValue;
pub use job::{DynamicResult, RouteResult, ScheduleResult, TrialResult};
pub use problem::{SweepProblem, SweepProblemKind};
pub use run::{
    LOCK_FILE, LocalTasks, SweepOptions, SweepRun, TaskRunner, run_sweep, run_sweep_with,
};
pub use spec::{MAX_TASKS, SweepKind, SweepSpec, Task};
pub use store::{
    MAX_RECORD_BYTES, RESULTS_FILE, SWEEP_FILE, SweepResults, TrialRecord, for_each_record,
    read_results,
};
