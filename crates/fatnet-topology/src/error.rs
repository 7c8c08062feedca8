//! The one error type of this crate.

use thiserror::Error;

/// Why a topology could not be built, or a topology spec could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum TopologyError {
    /// A parameter that must be a power of two is not.
    #[error("{param} = {value} must be a power of two")]
    NotPowerOfTwo {
        /// The parameter's name as the user wrote it (`n`, ...).
        param: &'static str,
        /// The value given.
        value: u64,
    },
    /// A parameter that must be a power of four is not.
    #[error("{param} = {value} must be a power of four")]
    NotPowerOfFour {
        /// The parameter's name.
        param: &'static str,
        /// The value given.
        value: u64,
    },
    /// A parameter that must be even is not.
    #[error("{param} = {value} must be even")]
    NotEven {
        /// The parameter's name.
        param: &'static str,
        /// The value given.
        value: u64,
    },
    /// A parameter is outside the range the construction supports.
    #[error("{param} = {value} is out of range (allowed {min}..={max})")]
    OutOfRange {
        /// The parameter's name.
        param: &'static str,
        /// The value given.
        value: u64,
        /// Smallest allowed value.
        min: u64,
        /// Largest allowed value.
        max: u64,
    },
    /// A channel capacity would be zero.
    #[error("capacity at level {level} is below one")]
    CapacityBelowOne {
        /// Height of the offending channel level (0 = leaf channels).
        level: u32,
    },
    /// A custom capacity profile has the wrong number of levels.
    #[error(
        "custom capacities: expected {expected} levels (leaf level first, root channel last), got {got}"
    )]
    CapacityCount {
        /// Number of levels the tree has (lg n + 1).
        expected: usize,
        /// Number of capacities given.
        got: usize,
    },
    /// Leiserson's universal fat-tree needs n^(2/3) <= w <= n.
    #[error("universal fat-tree needs n^(2/3) <= w <= n, got n = {n}, w = {w}")]
    UniversalRootCapacity {
        /// Number of processors.
        n: u64,
        /// Root capacity requested.
        w: u64,
    },
    /// The "standard" fat-tree of Greenberg and Leiserson needs lg n even.
    #[error("the standard fat-tree needs lg n even, got n = {n}")]
    StandardNeedsEvenLevels {
        /// Number of processors.
        n: u64,
    },
    /// The network would have more nodes or channels than ids can address.
    #[error("{what} count {count} exceeds the supported maximum {max}")]
    TooLarge {
        /// What overflowed (`channels`, `nodes`, `capacity`).
        what: &'static str,
        /// The count that would have been needed.
        count: u128,
        /// The maximum supported.
        max: u128,
    },
    /// Building a representation of the network (a petgraph graph, a DOT text, a per-channel
    /// table) would need more memory than [`crate::MEMORY_BUDGET`] allows; refused before
    /// anything large is allocated.
    #[error(
        "{what} would need about {estimate} bytes ({:.1} GiB), over the memory budget of {max} bytes ({:.0} GiB)",
        *estimate as f64 / f64::from(1u32 << 30),
        *max as f64 / f64::from(1u32 << 30)
    )]
    OverMemoryBudget {
        /// What would have been built (`DOT export of hypercube:d=24`, ...).
        what: String,
        /// The estimated size in bytes.
        estimate: u64,
        /// The budget in bytes ([`crate::MEMORY_BUDGET`]).
        max: u64,
    },
    /// A processor id is not a processor of this topology.
    #[error("processor {processor} out of range (topology has {processors} processors)")]
    ProcessorOutOfRange {
        /// The id given.
        processor: u64,
        /// Number of processors of the topology.
        processors: u64,
    },
    /// A topology spec names an unknown topology kind.
    #[error(
        "unknown topology `{kind}` (expected one of: fattree, bft, ftree, clos, karyntree, hypercube, butterfly)"
    )]
    UnknownTopology {
        /// The kind as written.
        kind: String,
    },
    /// A topology spec is missing a required key.
    #[error("`{topology}` spec is missing `{key}`")]
    MissingKey {
        /// Topology kind.
        topology: &'static str,
        /// The key that is missing.
        key: &'static str,
    },
    /// A topology spec has a key the topology does not take.
    #[error("`{topology}` spec does not take `{key}`")]
    UnknownKey {
        /// Topology kind.
        topology: &'static str,
        /// The key as written.
        key: String,
    },
    /// A key is given twice.
    #[error("key `{key}` given twice")]
    DuplicateKey {
        /// The key as written.
        key: String,
    },
    /// A value in a topology spec could not be parsed.
    #[error("bad value `{value}` for `{key}`: {expected}")]
    BadValue {
        /// The key.
        key: String,
        /// The value as written.
        value: String,
        /// What was expected.
        expected: &'static str,
    },
    /// An unknown fat-tree capacity profile.
    #[error(
        "unknown capacity profile `{profile}` (expected constant, doubling, area, volume, universal, standard or custom)"
    )]
    UnknownProfile {
        /// The profile as written.
        profile: String,
    },
}
