//! The one error type of this crate.

use std::path::PathBuf;

use thiserror::Error;

/// Why a message set or a stream of arrivals could not be built, generated, parsed, read or
/// written.
///
/// Every variant displays as one line. Errors about a file are wrapped in
/// [`TrafficError::File`], which prefixes the path.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum TrafficError {
    /// A message names a processor that does not exist.
    #[error("message {index}: processor {processor} out of range (n = {processors})")]
    ProcessorOutOfRange {
        /// Position of the message in its set (its [`MessageId`](crate::MessageId)).
        index: usize,
        /// The bad processor id.
        processor: u64,
        /// Number of processors of the set.
        processors: u32,
    },
    /// A pattern (or a message set) needs more processors.
    #[error("{what} needs at least {min} processors, got n = {processors}")]
    TooFewProcessors {
        /// The pattern's name (`many-to-one`, ...) or `message set`.
        what: &'static str,
        /// The processor count given.
        processors: u32,
        /// The smallest supported processor count.
        min: u32,
    },
    /// A pattern needs the processor count to be a power of two.
    #[error("{pattern} needs n a power of two, got n = {processors}")]
    NotPowerOfTwo {
        /// The pattern's name.
        pattern: &'static str,
        /// The processor count given.
        processors: u32,
    },
    /// A pattern needs the processor count to be a power of four (`n = 2^(2k)`).
    #[error("{pattern} needs n a power of four (n = 2^(2k)), got n = {processors}")]
    NotPowerOfFour {
        /// The pattern's name.
        pattern: &'static str,
        /// The processor count given.
        processors: u32,
    },
    /// A probability is not in `[0, 1]` (or is NaN).
    #[error("probability p = {p} is not in [0, 1]")]
    ProbabilityOutOfRange {
        /// The value given.
        p: f64,
    },
    /// A cube dimension of the arrivals is 0 or above
    /// [`arrivals::MAX_DIMENSION`](crate::arrivals::MAX_DIMENSION).
    #[error("dimension d = {d} is out of range (1 to {max})")]
    BadDimension {
        /// The dimension given.
        d: u32,
        /// The largest supported dimension.
        max: u32,
    },
    /// An arrival rate λ is not positive and finite.
    #[error("arrival rate λ = {lambda} is not positive and finite")]
    BadRate {
        /// The rate given.
        lambda: f64,
    },
    /// A horizon of arrivals is not positive and finite.
    #[error("horizon {horizon} is not positive and finite")]
    BadHorizon {
        /// The horizon given.
        horizon: f64,
    },
    /// A slot length τ is not `1/m` for a positive integer `m`.
    #[error("slot length τ = {tau} is not 1/m for a positive integer m")]
    BadSlot {
        /// The slot length given.
        tau: f64,
    },
    /// A node id of the arrivals is not below `2^d`.
    #[error("node {node} is out of range (2^d = {nodes})")]
    NodeOutOfRange {
        /// The node given.
        node: u32,
        /// Nodes of the cube.
        nodes: u64,
    },
    /// An arrival list would hold more than
    /// [`arrivals::MAX_ARRIVALS`](crate::arrivals::MAX_ARRIVALS) arrivals.
    #[error("about {expected} arrivals expected, at most {max} supported")]
    TooManyArrivals {
        /// Expected (or reached) number of arrivals.
        expected: u64,
        /// The limit.
        max: u64,
    },
    /// A message set would hold more messages than [`MessageId`](crate::MessageId)s can number.
    #[error("{count} messages exceed the maximum of {max} per message set")]
    TooManyMessages {
        /// The number of messages that would have been needed.
        count: u64,
        /// The largest supported number of messages.
        max: u64,
    },
    /// Generating a message set would need more memory than [`crate::MEMORY_BUDGET`];
    /// refused before anything large is allocated.
    #[error(
        "{what} on n = {processors} would make {count} messages, about {estimate} bytes ({:.1} GiB), over the memory budget of {max} bytes ({:.0} GiB)",
        *estimate as f64 / f64::from(1u32 << 30),
        *max as f64 / f64::from(1u32 << 30)
    )]
    OverMemoryBudget {
        /// The pattern (`permutation`, `replicated`, ...).
        what: &'static str,
        /// The processor count given.
        processors: u32,
        /// The number of messages it would make.
        count: u64,
        /// The estimated bytes (the set and the generator's scratch).
        estimate: u64,
        /// The budget in bytes ([`crate::MEMORY_BUDGET`]).
        max: u64,
    },
    /// Two message sets, or a file and the caller, disagree on the number of processors.
    #[error("processor count mismatch: expected n = {expected}, found n = {found}")]
    ProcessorsMismatch {
        /// The processor count expected (of the receiving set, or the caller's).
        expected: u32,
        /// The processor count found.
        found: u32,
    },
    /// A traffic spec names an unknown pattern.
    #[error(
        "unknown traffic pattern `{name}` (expected one of: permutation, complement, bitrev, \
         transpose, many-to-one, uniform, replicated, mesh, valiant, bitflip, broadcast, file)"
    )]
    UnknownPattern {
        /// The name as written.
        name: String,
    },
    /// Broadcast traffic is one multicast per source, not a set of point-to-point messages.
    #[error(
        "`{spec}` is one multicast per source, not a message set: only the packet simulator \
         (`fatnet simulate`) routes broadcasts"
    )]
    NotAMessageSet {
        /// The spec as written canonically.
        spec: String,
    },
    /// A broadcast names a source the network does not have.
    #[error("broadcast source {src} does not exist (the network has {processors} processors)")]
    SourceOutOfRange {
        /// The source.
        src: u32,
        /// Processors of the network.
        processors: u32,
    },
    /// A traffic spec has a key its pattern does not take.
    #[error("`{pattern}` does not take key `{key}`")]
    UnknownKey {
        /// The pattern's name.
        pattern: &'static str,
        /// The key as written.
        key: String,
    },
    /// A traffic spec gives a key twice.
    #[error("key `{key}` given twice")]
    DuplicateKey {
        /// The key as written.
        key: String,
    },
    /// A traffic spec lacks a key its pattern requires.
    #[error("`{pattern}` needs key `{key}`")]
    MissingKey {
        /// The pattern's name.
        pattern: &'static str,
        /// The missing key.
        key: &'static str,
    },
    /// A value in a traffic spec could not be parsed or is out of range.
    #[error("bad value `{value}` for `{key}`: expected {expected}")]
    BadValue {
        /// The key (or, for an item without `=`, the item itself).
        key: String,
        /// The value as written.
        value: String,
        /// What was expected.
        expected: &'static str,
    },
    /// A file is larger than its limit ([`MAX_FILE_BYTES`](crate::io::MAX_FILE_BYTES) for a
    /// message set; see [`read_bounded`](crate::io::read_bounded)).
    #[error("{bytes} bytes, more than the {max} bytes such a file may have")]
    FileTooLarge {
        /// The file's size (or the bytes read before stopping).
        bytes: u64,
        /// The limit.
        max: u64,
    },
    /// A line of a text message file is malformed.
    #[error("line {line}: expected {expected}, found `{text}`")]
    MalformedLine {
        /// 1-based line number.
        line: usize,
        /// The line as written (shortened to 60 characters).
        text: String,
        /// What was expected.
        expected: &'static str,
    },
    /// A line of a text message file names a processor that does not exist.
    #[error("line {line}: processor {processor} out of range (n = {processors})")]
    LineProcessorOutOfRange {
        /// 1-based line number.
        line: usize,
        /// The bad processor id.
        processor: u64,
        /// Number of processors.
        processors: u32,
    },
    /// A JSON message file is not valid JSON or does not follow the schema.
    #[error("invalid message-set JSON: {source}")]
    Json {
        /// The parser's error (it names the line and column).
        #[source]
        source: serde_json::Error,
    },
    /// Reading or writing failed.
    #[error("I/O error: {source}")]
    Io {
        /// The underlying error.
        #[from]
        source: std::io::Error,
    },
    /// An error while reading or writing the file `path`.
    #[error("{}: {source}", path.display())]
    File {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        #[source]
        source: Box<TrafficError>,
    },
}

impl TrafficError {
    /// Wraps `self` in [`TrafficError::File`] naming `path`.
    pub(crate) fn in_file(self, path: impl Into<PathBuf>) -> Self {
        TrafficError::File {
            path: path.into(),
            source: Box::new(self),
        }
    }
}
