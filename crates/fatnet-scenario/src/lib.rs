//! Scenarios: one typed description of a run, shared by every front end.
//!
//! **Key design decision: options are parsed once, into library types, and resolved in one
//! place.** A scenario is a topology spec, a traffic spec and a simulator's options, each
//! option an enum or number of the crate that owns it (named once, by
//! [`fatnet_topology::named_options!`]). The command line flattens the option structs of this
//! crate (feature `clap`), config and sweep files deserialise into the very same structs, and
//! [`PacketOptions::resolve`] holds every conditional default and every refusal. A sweep task,
//! a paper table and `fatnet simulate` that describe the same case call the same
//! [`PreparedPacket::trial`], so "a sweep trial equals the command" holds by construction.
//!
//! The crate also owns what every front end needs to run trials reproducibly: the seed
//! derivation ([`derive_seed`]), the parallel trial [`runner`] and [`write_atomically`].
//!
//! ```
//! use fatnet_scenario::{PacketOptions, PacketScenario, derive_seed};
//!
//! // The keys of `fatnet simulate`'s flags and of a sweep's `[params]`: Greenberg and Oh's
//! // butterfly fat-tree on 16 processors, a random permutation of 4-flit worms.
//! let scenario: PacketScenario = toml::from_str(
//!     r#"
//!     topology = "bft:n=16"
//!     traffic = "permutation"
//!     flits = 4
//!     "#,
//! )?;
//! let prepared = scenario.prepare(7)?;
//! let trial = prepared.trial(derive_seed(7, 0))?;
//! assert!(trial.finished());
//! assert_eq!((trial.messages, trial.delivered), (16, 16));
//! // A trial is a function of its seed.
//! assert_eq!(prepared.trial(derive_seed(7, 0))?, trial);
//!
//! // Refusals live in the library, not in a front end: a worm needs at least one flit.
//! let options = PacketOptions { flits: Some(0), ..scenario.options };
//! assert!(PacketScenario { options, ..scenario }.prepare(7).is_err());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod collective;
pub mod dynamic;
mod network;
pub mod packet;
mod pattern;
pub mod route;
mod run;
pub mod runner;
pub mod schedule;

pub use collective::{
    CollectiveReport, CollectiveScenario, PhaseBound, PhaseReport, PreparedCollective,
};
pub use dynamic::{
    BroadcastSummary, DynamicOptions, DynamicReport, DynamicScenario, DynamicSetup, DynamicSummary,
    DynamicTrial, PooledRun, PreparedDynamic, RoutingSummary, RunProtocol,
};
pub use network::Network;
pub use packet::{
    PacketOptions, PacketRunFile, PacketScenario, PacketSetup, PacketSummary, PacketTrial,
    PreparedPacket,
};
pub use route::{
    PreparedRoute, RouteOptions, RouteScenario, RouteSetup, RouteSummary, RouteTrial,
    RouteTrialRecord,
};
pub use run::{MAX_THREADS, Run, RunOptions};
pub use schedule::{
    PreparedSchedule, ScheduleOptions, ScheduleScenario, ScheduleSetup, ScheduleSummary,
    ScheduleTrial,
};

/// Stamoulis' periodic broadcast schemes on the `d`-cube along fatnet-offline's optimal
/// multinode broadcast tree ([`fatnet_offline::hypercube::multinode_broadcast_tree`]): the
/// simulator takes the tree as data ([`PeriodicScheme::from_tree`]), so that fatnet-online does
/// not depend on the off-line schedulers, and this is where the two meet.
///
/// # Errors
///
/// Those of [`PeriodicScheme::from_tree`] (`d` outside `2..=12` included).
pub fn periodic_scheme(d: u32) -> Result<PeriodicScheme, fatnet_online::OnlineError> {
    match fatnet_offline::hypercube::multinode_broadcast_tree(d) {
        Ok(tree) => PeriodicScheme::from_tree(d, &tree.slot, &tree.dim),
        // `d` out of the schedule's range: the scheme's own check names it.
        Err(_) => PeriodicScheme::from_tree(d, &[], &[]),
    }
}

use fatnet_online::periodic_broadcast::PeriodicScheme;

use std::path::{Path, PathBuf};

use thiserror::Error;

fatnet_topology::named_options! {
    /// A parameter of a scenario or a run, by the name it has in files, sweeps and JSON (the
    /// command line spells it with `--` and dashes).
    pub enum Parameter("parameter") {
        /// The network.
        Topology = "topology",
        /// The message set.
        Traffic = "traffic",
        /// Where queues sit.
        Queueing = "queueing",
        /// Flow control.
        Flow = "flow",
        /// Path selection.
        Path = "path",
        /// Input scan.
        Scan = "scan",
        /// The priority range of the random-priority scan.
        PriorityRange = "priority_range",
        /// Flits per packet.
        Flits = "flits",
        /// Link queue capacity.
        Queue = "queue",
        /// What terminals do with arriving units.
        Sink = "sink",
        /// Initial random delays.
        Delay = "delay",
        /// The step limit.
        MaxSteps = "max_steps",
        /// Independent trials.
        Trials = "trials",
        /// The master seed.
        Seed = "seed",
        /// Worker threads.
        Threads = "threads",
        /// Leiserson's scheduler: Theorem 1 or Corollary 2.
        Algorithm = "algorithm",
        /// Corollary 2's fictitious capacities.
        Fictitious = "fictitious",
        /// The router (delivery-cycle or dynamic routing).
        Router = "router",
        /// What a congested switch drops.
        Policy = "policy",
        /// RANDOM's constants.
        Preset = "preset",
        /// RANDOM's cycles per unit of λ.
        K1 = "k1",
        /// RANDOM's cycles per unit of lg n.
        K2 = "k2",
        /// RANDOM's sending-probability scale.
        R = "r",
        /// The constant-switch router's `k`.
        K = "k",
        /// Interleaving single-message cycles.
        Interleave = "interleave",
        /// Routing every message out through the root.
        OutTheRoot = "out_the_root",
        /// The delivery-cycle limit.
        MaxCycles = "max_cycles",
        /// How packets arrive (dynamic routing).
        Arrivals = "arrivals",
        /// Packets generated per node per unit time.
        Rate = "rate",
        /// The bit-flip probability of destinations.
        P = "p",
        /// The length of a dynamic run.
        Slots = "slots",
        /// The warm-up of a dynamic run.
        Warmup = "warmup",
        /// Batches of the batch-means interval.
        Batches = "batches",
        /// A multiple-broadcast scheme.
        Broadcast = "broadcast",
    }
}

impl Parameter {
    /// The command-line flag: `--` and the name with dashes (`--priority-range`).
    pub fn flag(self) -> String {
        format!("--{}", self.name().replace('_', "-"))
    }

    /// The parameter a key of a config file (or of a Python dict) names.
    ///
    /// # Errors
    ///
    /// The message that refuses an unknown key, listing the known ones.
    pub fn from_key(key: &str) -> Result<Parameter, String> {
        key.parse().map_err(|_| {
            format!(
                "unknown key `{}`: expected one of {}",
                key.escape_debug(),
                Parameter::NAMES.join(", ")
            )
        })
    }
}

/// An error and its sources on one line, `outer: inner: …`, each cause once (a cause whose
/// text is already in the line, as when an error prints its source, is skipped): the form of
/// every one-line error of the command line and of a sweep's problems.
///
/// Control characters other than the line break are escaped (`\u{1b}`, `\u{0}`, `\r`): errors
/// quote the user's files, and a file of binary garbage must not write escape sequences to the
/// terminal. (Line breaks are kept: a sweep's problems are listed one per line; the quoted
/// lines of a file hold none.)
pub fn one_line(e: &(dyn std::error::Error + 'static)) -> String {
    printable(&joined(e))
}

/// `text` with every control character but `\n` escaped as Rust does (`\u{1b}`, `\u{0}`, `\t`).
fn printable(text: &str) -> String {
    let escaped = |c: char| c.is_control() && c != '\n';
    if !text.chars().any(escaped) {
        return text.to_owned();
    }
    text.chars()
        .map(|c| {
            if escaped(c) {
                c.escape_default().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// The causes of `e` joined (see [`one_line`]).
fn joined(e: &(dyn std::error::Error + 'static)) -> String {
    let mut line = String::new();
    let mut cause = Some(e);
    while let Some(c) = cause {
        let text = c.to_string();
        if !line.contains(&text) {
            if !line.is_empty() {
                line.push_str(": ");
            }
            line.push_str(&text);
        }
        cause = c.source();
    }
    line
}

/// Why a scenario cannot run.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum ScenarioError {
    /// A parameter is missing.
    #[error("no {param}: it is required")]
    Missing {
        /// The parameter.
        param: Parameter,
    },
    /// A parameter is outside its range.
    #[error("{param} = {value} is out of range: expected {expected}")]
    OutOfRange {
        /// The parameter.
        param: Parameter,
        /// Its value, as text.
        value: String,
        /// What is allowed.
        expected: &'static str,
    },
    /// A parameter that only means something with another parameter's value.
    #[error("{param} applies only with {other} = {value}")]
    Requires {
        /// The parameter given.
        param: Parameter,
        /// The parameter it depends on.
        other: Parameter,
        /// The value `other` must have.
        value: &'static str,
    },
    /// The topology is not one the simulator or scheduler runs on.
    #[error("{what} needs {needs}, not `{spec}`")]
    WrongTopology {
        /// The simulator or scheduler.
        what: &'static str,
        /// The topologies it runs on.
        needs: &'static str,
        /// The spec given.
        spec: String,
    },
    /// A value the simulator refuses in this case.
    #[error("{param} = {value} is refused: {reason}")]
    Refused {
        /// The parameter.
        param: Parameter,
        /// Its value, as text.
        value: String,
        /// Why.
        reason: String,
    },
    /// The delivery-cycle engine refused the case.
    #[error("delivery-cycle routing")]
    Route {
        /// Why.
        #[source]
        source: fatnet_online::OnlineError,
    },
    /// Leiserson's scheduler refused the case.
    #[error("Leiserson's scheduler")]
    Schedule {
        /// Why.
        #[source]
        source: fatnet_offline::OfflineError,
    },
    /// The packet engine refuses the options.
    #[error("packet options refused")]
    Options {
        /// Why.
        #[source]
        source: fatnet_online::OnlineError,
    },
    /// A dynamic-routing or broadcast engine, or the thesis' formulas for its case, failed.
    #[error("{what}")]
    Dynamic {
        /// What failed.
        what: &'static str,
        /// Why.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// A topology spec does not parse.
    #[error(transparent)]
    TopologySpec(#[from] fatnet_topology::TopologyError),
    /// A `fabric:` network spec does not parse.
    #[error("invalid fabric spec `{spec}`: {why}")]
    FabricSpec {
        /// The text.
        spec: String,
        /// What is wrong.
        why: String,
    },
    /// The case's per-channel load tables would exceed the memory budget (refused before the
    /// traffic is made).
    #[error(transparent)]
    Load(#[from] fatnet_load::LoadError),
    /// The topology cannot be built.
    #[error("cannot build the topology `{spec}`")]
    Topology {
        /// The spec.
        spec: String,
        /// Why.
        #[source]
        source: fatnet_topology::TopologyError,
    },
    /// A fabric cannot be read or traced.
    #[error("cannot read the fabric `{fabric}`")]
    Fabric {
        /// The fabric's files.
        fabric: String,
        /// Why (boxed: a fabric error is large).
        #[source]
        source: Box<fatnet_fabric::FabricError>,
    },
    /// The traffic does not suit the network.
    #[error("cannot make the traffic `{spec}` on {processors} processors")]
    Traffic {
        /// The spec.
        spec: String,
        /// Processors of the network.
        processors: u32,
        /// Why.
        #[source]
        source: fatnet_traffic::TrafficError,
    },
    /// The packet engine refused the case or failed.
    #[error("packet simulation on `{topology}`")]
    Packet {
        /// The network.
        topology: String,
        /// Why.
        #[source]
        source: fatnet_online::OnlineError,
    },
    /// Trial `trial` failed.
    #[error("trial {trial} (seed {seed})")]
    Trial {
        /// The trial index.
        trial: u64,
        /// Its seed.
        seed: u64,
        /// Why.
        #[source]
        source: Box<ScenarioError>,
    },
    /// A config file is malformed.
    #[error("line {line}, column {column}: {message}")]
    File {
        /// 1-based line.
        line: usize,
        /// 1-based column, in characters.
        column: usize,
        /// What is wrong.
        message: String,
    },
    /// Reading or writing a file failed.
    #[error("{}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        #[source]
        source: std::io::Error,
    },
}

pub use fatnet_traffic::derive_seed;

/// The seed of every command and function that draws (random patterns, random paths, failure
/// draws), when none is given: the CLI's `--seed` and Python's `seed=` default to it.
pub const DEFAULT_SEED: u64 = 1;

/// How many of the hottest channels or links a load report lists when not told (`--top`,
/// Python's `top=`).
pub const DEFAULT_TOP: usize = 5;

/// The wording of the errors every front end reports about a spec the user gave, one place
/// for the CLI's contexts and the Python package's messages (the library's error follows
/// after `: `).
pub mod wording {
    use std::fmt::Display;

    /// A topology spec that does not parse.
    pub fn invalid_topology_spec(spec: &(impl Display + ?Sized)) -> String {
        format!("invalid topology spec `{spec}`")
    }

    /// A topology spec that parses but cannot be built.
    pub fn cannot_build(spec: &(impl Display + ?Sized)) -> String {
        format!("cannot build `{spec}`")
    }

    /// A traffic spec that cannot be made on the network.
    pub fn cannot_make_traffic(spec: &(impl Display + ?Sized)) -> String {
        format!("cannot make traffic `{spec}`")
    }

    /// A traffic spec that cannot be made on a fabric of `cas` channel adapters.
    pub fn cannot_make_traffic_on_cas(spec: &(impl Display + ?Sized), cas: impl Display) -> String {
        format!("cannot make traffic `{spec}` on {cas} CAs")
    }
}

/// The largest configuration file read: a `fatnet simulate --config` file or a sweep file
/// (16 MiB; the largest sweep of the repository is a few KiB).
pub const MAX_CONFIG_BYTES: u64 = 16 << 20;

/// Reads the configuration file `path` (TOML) as UTF-8 text, with the workspace's one bounded
/// reader ([`fatnet_traffic::io::read_bounded`]): a device, a pipe or a file over
/// [`MAX_CONFIG_BYTES`] is refused before it is read into memory.
///
/// # Errors
///
/// [`ScenarioError::Io`] naming `path`: the file cannot be read (the source keeps its kind,
/// `NotFound` included), is not a regular file (`InvalidInput`), is larger than
/// [`MAX_CONFIG_BYTES`] (`FileTooLarge`) or is not UTF-8 (`InvalidData`).
pub fn read_config(path: &Path) -> Result<String, ScenarioError> {
    let io = |source| ScenarioError::Io {
        path: path.to_path_buf(),
        source,
    };
    let bytes = fatnet_traffic::io::read_bounded(path, MAX_CONFIG_BYTES).map_err(|e| match e {
        fatnet_traffic::TrafficError::Io { source } => io(source),
        too_large @ fatnet_traffic::TrafficError::FileTooLarge { .. } => io(std::io::Error::new(
            std::io::ErrorKind::FileTooLarge,
            too_large.to_string(),
        )),
        other => io(std::io::Error::other(other.to_string())),
    })?;
    String::from_utf8(bytes).map_err(|e| {
        let good = e.utf8_error().valid_up_to();
        let line = e.as_bytes()[..good].iter().filter(|&&b| b == b'\n').count() + 1;
        io(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("line {line}: not UTF-8 text"),
        ))
    })
}

/// Writes `bytes` to `path` through a temporary file in the same directory, synced and then
/// renamed over `path`: a reader sees the old file or the new one, never half of one, and a
/// crash leaves at most a stray temporary file. The directory must exist.
///
/// # Errors
///
/// [`ScenarioError::Io`] naming `path` if the temporary file cannot be created, written,
/// synced or renamed.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), ScenarioError> {
    use std::io::Write as _;
    let io = |source| ScenarioError::Io {
        path: path.to_path_buf(),
        source,
    };
    // The rename would replace whatever is there: a symbolic link, a device (`/dev/null`), a
    // FIFO. Only a regular file (or nothing) is replaced.
    let existing = std::fs::symlink_metadata(path).ok();
    if let Some(meta) = &existing
        && !meta.file_type().is_file()
    {
        return Err(io(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "exists and is not a regular file; not replaced",
        )));
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    // A temporary file is private (0600) by default; the file it becomes is not. A new file
    // gets the mode any program's new file gets (0666 less the umask, applied by open(2)); a
    // replaced file keeps its own mode.
    let mut builder = tempfile::Builder::new();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    let mut tmp = builder.tempfile_in(dir).map_err(io)?;
    if let Some(meta) = &existing {
        tmp.as_file()
            .set_permissions(meta.permissions())
            .map_err(io)?;
    }
    tmp.write_all(bytes)
        .and_then(|()| tmp.as_file().sync_all())
        .map_err(io)?;
    tmp.persist(path).map_err(|e| io(e.error))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An output file is created like any program's new file (0666 less the umask), not
    /// private like the temporary file it was written through; a replaced file keeps its mode.
    #[cfg(unix)]
    #[test]
    fn written_files_have_the_usual_modes() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        // What this process's umask gives a new file.
        let probe = dir.path().join("probe");
        std::fs::write(&probe, b"").unwrap();
        let path = dir.path().join("out.txt");
        write_atomically(&path, b"one").unwrap();
        assert_eq!(mode(&path), mode(&probe));
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).unwrap();
        write_atomically(&path, b"two").unwrap();
        assert_eq!(mode(&path), 0o640);
        assert_eq!(std::fs::read(&path).unwrap(), b"two");
    }

    #[test]
    fn one_line_lists_each_cause_once() {
        let inner = fatnet_online::OnlineError::BadParameter {
            param: fatnet_online::OnlineParameter::Flits,
            value: "0".into(),
            expected: "1 to 65535",
        };
        let outer = ScenarioError::Options { source: inner };
        assert_eq!(
            one_line(&outer),
            "packet options refused: flits = 0 is out of range (1 to 65535)"
        );
        // A cause already in the line is not repeated.
        let io = std::io::Error::other("disk full");
        let e = ScenarioError::Trial {
            trial: 2,
            seed: 9,
            source: Box::new(ScenarioError::Io {
                path: "x".into(),
                source: io,
            }),
        };
        let line = one_line(&e);
        assert!(line.starts_with("trial 2 (seed 9): "), "{line}");
        assert_eq!(line.matches("disk full").count(), 1, "{line}");
    }

    /// A file of binary garbage quoted by an error: the escape sequence, the NUL, the carriage
    /// return and the tab reach the terminal as text; a line break stays one.
    #[test]
    fn one_line_escapes_control_characters() {
        let io = std::io::Error::other("found `\u{1b}[31mred\0\r\tnext`\nsecond line");
        assert_eq!(
            one_line(&io),
            "found `\\u{1b}[31mred\\u{0}\\r\\tnext`\nsecond line"
        );
        let plain = std::io::Error::other("no control characters: é ✓");
        assert_eq!(one_line(&plain), "no control characters: é ✓");
    }
}
