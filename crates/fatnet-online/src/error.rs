//! The one error type of fatnet-online: why a simulation could not run, for every engine and
//! scheme of the crate (the delivery-cycle engine, the packet engine and its models, the
//! continuous-time greedy recursion, the slotted and broadcast schemes).
//!
//! Bad input names its parameter by [`OnlineParameter`] and keeps the value given (the run
//! protocol's refusals, [`crate::RunProtocol::check`], included); errors of the layers below
//! (the traffic's [`TrafficError`]) are kept as sources; a broken invariant of an engine is
//! [`OnlineError::Conservation`], reported rather than hidden.

use fatnet_topology::Processor;
use fatnet_traffic::TrafficError;
use thiserror::Error;

/// A parameter of a simulation, as named in [`OnlineError::BadParameter`] (the name of its
/// field or option, as the `Display` form shows).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum OnlineParameter {
    /// A cube or butterfly dimension `d`.
    D,
    /// Greenberg–Oh's initial delays.
    Delays,
    /// The first dimension of a periodic broadcast's rotation.
    FirstDimension,
    /// Flits per packet.
    Flits,
    /// A steady-state run's horizon ([`crate::RunProtocol::horizon`]).
    Horizon,
    /// A steady-state run's warm-up ([`crate::RunProtocol::warmup`]).
    Warmup,
    /// A steady-state run's batches ([`crate::RunProtocol::batches`]).
    Batches,
    /// A tree index `j`.
    J,
    /// A parameter `k` (Algorithm A's phase count, a tree's arity).
    K,
    /// Multicast labels.
    Labels,
    /// Algorithm A's attempts.
    MaxAttempts,
    /// The packet engine's step limit.
    MaxSteps,
    /// A multicast tree.
    MulticastTree,
    /// A multicast's tree index.
    MulticastTreeIndex,
    /// Algorithm A's phase length.
    PhaseLength,
    /// A multicast's priority range.
    PriorityRange,
    /// A queue capacity.
    Queue,
    /// The queueing model.
    Queueing,
    /// A load factor ρ.
    Rho,
}

impl std::fmt::Display for OnlineParameter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            OnlineParameter::D => "d",
            OnlineParameter::Delays => "delays",
            OnlineParameter::FirstDimension => "first dimension",
            OnlineParameter::Flits => "flits",
            OnlineParameter::Horizon => "horizon",
            OnlineParameter::Warmup => "warmup",
            OnlineParameter::Batches => "batches",
            OnlineParameter::J => "j",
            OnlineParameter::K => "k",
            OnlineParameter::Labels => "labels",
            OnlineParameter::MaxAttempts => "max_attempts",
            OnlineParameter::MaxSteps => "max_steps",
            OnlineParameter::MulticastTree => "multicast tree",
            OnlineParameter::MulticastTreeIndex => "multicast tree index",
            OnlineParameter::PhaseLength => "phase_length",
            OnlineParameter::PriorityRange => "priority range",
            OnlineParameter::Queue => "queue",
            OnlineParameter::Queueing => "queueing",
            OnlineParameter::Rho => "rho",
        })
    }
}

/// Why a simulation could not run: bad input with its parameter named by enum, the errors of
/// the layers below as sources, or a broken engine invariant.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum OnlineError {
    /// A parameter is outside its range.
    #[error("{param} = {value} is out of range ({expected})")]
    BadParameter {
        /// The parameter.
        param: OnlineParameter,
        /// Its value, as text.
        value: String,
        /// What is allowed.
        expected: &'static str,
    },
    /// The traffic parameters (d, λ, p) are invalid.
    #[error(transparent)]
    Traffic(#[from] TrafficError),
    /// A dimension is 0 or above the simulator's largest.
    #[error("dimension d = {d} is out of range (1 to {max})")]
    BadDimension {
        /// The dimension given.
        d: u32,
        /// The largest supported dimension.
        max: u32,
    },
    /// A confidence level is not in `(0, 1)`.
    #[error("confidence level {confidence} is not in (0, 1)")]
    BadConfidence {
        /// The level given.
        confidence: f64,
    },
    /// The greedy recursion's window length is not positive and finite.
    #[error("window length {length} is not positive and finite")]
    BadWindowLength {
        /// The length given.
        length: f64,
    },
    /// The network or the run is too large for the engine.
    #[error("too many {what}: {value} (at most {max})")]
    TooLarge {
        /// What is counted.
        what: &'static str,
        /// The count.
        value: u64,
        /// The limit.
        max: u64,
    },
    /// The message set has more processors than the tree.
    #[error("message set is on {messages} processors but the topology has {topology}")]
    ProcessorMismatch {
        /// Processors of the message set.
        messages: u64,
        /// Processors of the topology.
        topology: u64,
    },
    /// The wire-level model needs one counter per wire.
    #[error("the wire-level model supports at most 2^32 wires, this tree has {wires}")]
    TooManyWires {
        /// Wires of the tree.
        wires: u64,
    },
    /// A router selected a message that is delivered or not in the set.
    #[error("router {router} selected message {message}, which is not undelivered")]
    BadSelection {
        /// The router.
        router: String,
        /// The message.
        message: u32,
    },
    /// A router's subset probability is not in [0, 1].
    #[error("router {router} asked for a p-subset with p = {p}")]
    BadProbability {
        /// The router.
        router: String,
        /// The probability, as text.
        p: String,
    },
    /// The Theorem 9 adversary cannot be built for these parameters.
    #[error("cannot build the GREEDY adversary: {why}")]
    BadAdversary {
        /// Why.
        why: &'static str,
    },
    /// An injection names a processor the network does not have.
    #[error(
        "injection {index} goes from {src} to {dst}, but the network has {processors} processors"
    )]
    BadProcessor {
        /// Index of the injection.
        index: usize,
        /// Its source.
        src: Processor,
        /// Its destination.
        dst: Processor,
        /// Processors of the network.
        processors: u32,
    },
    /// An arrival of the greedy recursion names a node outside the network.
    #[error("arrival {index} goes from {src} to {dst}, but rows are numbered below {nodes}")]
    NodeOutOfRange {
        /// Position in the arrival list.
        index: usize,
        /// Its origin.
        src: u32,
        /// Its destination.
        dst: u32,
        /// `2^d`.
        nodes: u64,
    },
    /// An arrival time is not finite.
    #[error("arrival {index} has time {time}, which is not finite")]
    BadTime {
        /// Position in the arrival list.
        index: usize,
        /// The time given.
        time: f64,
    },
    /// A numbered path of the topology does not lead, link by link, from its source's
    /// injection node to its destination's ejection node (a broken [`fatnet_topology::Topology`]
    /// implementation), or is too long for the engine.
    #[error("path {index} from processor {src} to processor {dst} is broken: {why}")]
    BrokenPath {
        /// Source.
        src: Processor,
        /// Destination.
        dst: Processor,
        /// The path's index (`Topology::path_into`).
        index: u128,
        /// What is wrong.
        why: &'static str,
    },
    /// Some processor cannot reach another.
    #[error("processor {dst} cannot be reached from processor {src}")]
    Unroutable {
        /// Source.
        src: Processor,
        /// Destination.
        dst: Processor,
    },
    /// A multicast tree is malformed.
    #[error("bad multicast tree: {why}")]
    BadTree {
        /// What is wrong.
        why: String,
    },
    /// This policy combination is not supported.
    #[error("unsupported combination: {why}")]
    Unsupported {
        /// Why.
        why: &'static str,
    },
    /// The adaptive scheme asked for on the butterfly, where every path is unique.
    #[error("the adaptive scheme needs the hypercube: butterfly paths are unique")]
    AdaptiveOnButterfly,
    /// An engine lost or duplicated a unit (a bug, reported rather than hidden).
    #[error("conservation violated in {clock} {at}: {detail}")]
    Conservation {
        /// The engine's clock: `cycle`, `step` or `slot`.
        clock: &'static str,
        /// Its value when the check failed.
        at: u64,
        /// What did not add up.
        detail: String,
    },
}
