//! The one error type of this crate.

use thiserror::Error;

/// Why an off-line problem could not be set up.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum OfflineError {
    /// The message set addresses more processors than the topology has.
    #[error("message set is on {messages} processors but the topology has {topology}")]
    ProcessorMismatch {
        /// Processors of the message set.
        messages: u64,
        /// Processors of the topology.
        topology: u64,
    },
    /// A message id is not in the message set.
    #[error("message {message} is not in the message set ({messages} messages)")]
    UnknownMessage {
        /// The id.
        message: u32,
        /// Size of the message set.
        messages: u64,
    },
    /// The messages given to a split do not all cross the same node in the same direction.
    #[error(
        "message {message} does not cross node {node} in the same direction as message {first}"
    )]
    NotOneGroup {
        /// The first message of the group.
        first: u32,
        /// The message that differs.
        message: u32,
        /// Heap number of the first message's lowest common ancestor.
        node: u32,
    },
    /// A message from a processor to itself cannot be split (it crosses no node).
    #[error("message {message} goes from a processor to itself and crosses no node")]
    SelfMessage {
        /// The id.
        message: u32,
    },
    /// Corollary 2 needs every capacity above lg n (above the channel's depth for the
    /// depth variant), so that the fictitious capacities are at least one.
    #[error(
        "Corollary 2 needs capacities above {needed}: channel {channel} has capacity {capacity}"
    )]
    CapacityTooSmall {
        /// The channel.
        channel: u32,
        /// Its capacity.
        capacity: u64,
        /// The capacity it would need to exceed.
        needed: u64,
    },
    /// Leiserson's Lemma 6 halves an even number of pearls; these strings hold an odd number.
    #[error("the strings hold {pearls} pearls: halving them needs an even number")]
    OddPearlCount {
        /// Pearls in both strings together.
        pearls: u64,
    },
    /// A bandwidth of a decomposition tree is negative or not a finite number.
    #[error("bandwidth w_{level} is not a finite number at least zero")]
    InvalidBandwidth {
        /// The level of the decomposition tree.
        level: usize,
    },
    /// A parameter is out of the supported range.
    #[error("{param} = {value} is out of range ({allowed})")]
    OutOfRange {
        /// The parameter.
        param: &'static str,
        /// The value given.
        value: u64,
        /// The allowed range, in words.
        allowed: &'static str,
    },
    /// A node id is not a node of the network (hypercube tasks: `node >= 2^d`).
    #[error("node {node} is out of range (the network has {nodes} nodes)")]
    NodeOutOfRange {
        /// The id.
        node: u64,
        /// Number of nodes.
        nodes: u64,
    },
    /// A task that needs distinct nodes got the same node twice.
    #[error("node {node} is given twice; the nodes must be distinct")]
    DuplicateNode {
        /// The repeated id.
        node: u32,
    },
    /// A dimension order of a hypercube spanning tree is not a permutation of `1..=d`.
    #[error("the dimension order is not a permutation of 1..={d}")]
    NotAPermutation {
        /// The cube's dimension.
        d: u32,
    },
    /// A folded Clos routing or algorithm needs more top switches than the network has.
    #[error("{what} needs {needed} top switches but the network has m = {m}")]
    TooFewTopSwitches {
        /// What needs them (a routing or an algorithm).
        what: &'static str,
        /// Top switches needed.
        needed: u64,
        /// Top switches of the network.
        m: u64,
    },
    /// A folded Clos routing names a top switch the network does not have.
    #[error("the route of {src} -> {dst} uses top switch {top}, but the network has m = {m}")]
    TopOutOfRange {
        /// Source leaf.
        src: u32,
        /// Destination leaf.
        dst: u32,
        /// The top switch named.
        top: u64,
        /// Top switches of the network.
        m: u64,
    },
    /// A folded Clos routing gives a pair across bottom switches no top switch.
    #[error("the routing gives {src} -> {dst} no top switch")]
    NoTopSwitch {
        /// Source leaf.
        src: u32,
        /// Destination leaf.
        dst: u32,
    },
    /// A list of routes does not have one entry per message.
    #[error("{routes} routes given for {messages} messages")]
    RouteCountMismatch {
        /// Routes given.
        routes: u64,
        /// Messages.
        messages: u64,
    },
    /// A message across bottom switches has no top switch in a list of folded Clos routes.
    #[error("message {message} crosses bottom switches but has no top switch")]
    MissingTop {
        /// The message id.
        message: u32,
    },
    /// A message within one bottom switch (or to itself) was given a top switch.
    #[error("message {message} stays within one bottom switch but was given a top switch")]
    NeedlessTop {
        /// The message id.
        message: u32,
    },
    /// A message set that must be a (partial) permutation repeats a source or a destination.
    #[error("message {message} repeats a source or a destination: the set is not a permutation")]
    MessagesNotPermutation {
        /// The first message whose source or destination was already used.
        message: u32,
    },
    /// An exhaustive search or check would exceed its budget (of work or of memory) before it
    /// could start.
    #[error("{what} is too large: {size} exceeds the limit {limit}")]
    SearchTooLarge {
        /// What is too large.
        what: &'static str,
        /// Its size.
        size: u64,
        /// The limit.
        limit: u64,
    },
    /// An exact search ran out of its node budget before it could prove an optimum; the
    /// optimum lies in `lower..=upper`.
    #[error(
        "the exact search stopped after {nodes} nodes: the optimum is between {lower} and {upper}"
    )]
    SearchBudgetExceeded {
        /// Nodes visited.
        nodes: u64,
        /// Largest value not yet excluded from below.
        lower: u64,
        /// Cycles of the best schedule known.
        upper: u64,
    },
    /// A line of a text schedule is not UTF-8 or not a cycle of `src->dst` pairs.
    #[error("line {line}: expected {expected}, found `{text}`")]
    MalformedScheduleLine {
        /// 1-based line number.
        line: usize,
        /// The line, shortened to 60 characters.
        text: String,
        /// What the line should be, in words.
        expected: &'static str,
    },
    /// A `cycle N:` line of a text schedule is not the cycle its position makes it.
    #[error(
        "line {line}: `cycle {found}:` is cycle {expected} (cycles are numbered from 0, in order)"
    )]
    WrongCycleNumber {
        /// 1-based line number.
        line: usize,
        /// The cycle the line is.
        expected: u64,
        /// The number written.
        found: u64,
    },
    /// A text schedule names a processor the topology does not have.
    #[error("line {line}: processor {node} is out of range (the topology has {processors})")]
    ScheduleLineNodeOutOfRange {
        /// 1-based line number.
        line: usize,
        /// The processor id.
        node: u64,
        /// Processors of the topology.
        processors: u32,
    },
    /// A JSON schedule does not parse, or lacks `schedule` or `pairs`.
    #[error("line {line} column {column}: {problem}")]
    ScheduleJson {
        /// 1-based line number (0 when the problem is the whole document).
        line: usize,
        /// 1-based column.
        column: usize,
        /// `serde_json`'s description of the problem.
        problem: String,
    },
    /// A pair of a JSON schedule's `pairs` names a processor the topology does not have.
    #[error("pairs[{message}]: processor {node} is out of range (the topology has {processors})")]
    SchedulePairOutOfRange {
        /// The message id (its position in `pairs`).
        message: u32,
        /// The processor id.
        node: u64,
        /// Processors of the topology.
        processors: u32,
    },
    /// A JSON schedule names another topology than the one it is checked on.
    #[error("the schedule was made for `{made_for}`, not `{given}`: pass --topology {made_for}")]
    ScheduleForAnotherTopology {
        /// The topology the file names, as written.
        made_for: String,
        /// The topology it was to be checked on.
        given: String,
    },
    /// A load analysis refused the topology (its tables exceed the memory budget).
    #[error(transparent)]
    Load {
        /// The refusal.
        #[from]
        source: fatnet_load::LoadError,
    },
}
