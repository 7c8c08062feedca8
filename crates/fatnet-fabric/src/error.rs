//! The crate's one error type.

/// Why a fabric file could not be read or a fabric could not be built.
///
/// Every variant that comes from a file names the file and the 1-based line; `Syntax` also
/// says what the reader expected there. Readers never panic on bad input.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FabricError {
    /// The file could not be read.
    #[error("{file}: cannot read: {source}")]
    Io {
        /// The file.
        file: String,
        /// The underlying error.
        source: std::io::Error,
    },
    /// A line does not have the shape its first token promises.
    #[error("{file}:{line}: expected {expected}, found `{found}`")]
    Syntax {
        /// The file.
        file: String,
        /// The 1-based line.
        line: usize,
        /// What the reader expected at this point.
        expected: &'static str,
        /// The offending text (truncated to 80 characters).
        found: String,
    },
    /// A port number is outside the node's ports (or above 254, the largest InfiniBand port).
    #[error("{file}:{line}: port {port} of `{node}` is out of range (ports 1..={ports})")]
    PortOutOfRange {
        /// The file.
        file: String,
        /// The 1-based line.
        line: usize,
        /// The node's name.
        node: String,
        /// The port as written.
        port: u32,
        /// The node's number of ports.
        ports: u32,
    },
    /// The two ends of a link disagree: a port is listed as connected to two different places.
    #[error("{file}:{line}: `{node}` port {port} is linked to `{existing}` and, here, to `{new}`")]
    LinkMismatch {
        /// The file.
        file: String,
        /// The 1-based line.
        line: usize,
        /// The node whose port is listed twice.
        node: String,
        /// The port.
        port: u8,
        /// The earlier peer, as `name[port]`.
        existing: String,
        /// The peer named on this line, as `name[port]`.
        new: String,
    },
    /// A node is declared twice, or referenced as a switch and declared as a CA (or vice versa).
    #[error("{file}:{line}: node `{node}` conflicts with an earlier declaration ({what})")]
    NodeConflict {
        /// The file.
        file: String,
        /// The 1-based line.
        line: usize,
        /// The node's name.
        node: String,
        /// What conflicts.
        what: &'static str,
    },
    /// A LID is given to two ports, or one port is given two LIDs.
    #[error("{file}:{line}: LID {lid} conflicts with an earlier assignment ({what})")]
    LidConflict {
        /// The file.
        file: String,
        /// The 1-based line.
        line: usize,
        /// The LID.
        lid: u32,
        /// What conflicts.
        what: &'static str,
    },
    /// A file names a node or LID that the fabric does not have (or not of the required kind).
    #[error("{file}:{line}: unknown {what} `{name}`")]
    Unknown {
        /// The file.
        file: String,
        /// The 1-based line.
        line: usize,
        /// What kind of thing was looked up (switch, CA, LID).
        what: &'static str,
        /// The name or number as written.
        name: String,
    },
    /// A fabric too large for an analysis or a conversion (CAs, ports or LIDs).
    #[error("{what}: {count} exceeds the limit {limit}")]
    TooLarge {
        /// What is counted.
        what: &'static str,
        /// How many there are.
        count: u64,
        /// The most the operation supports.
        limit: u64,
    },
    /// Per-link data (loads, contention counts) whose length is not the fabric's number of
    /// port ids ([`Fabric::port_id_count`](crate::Fabric::port_id_count)): data of another
    /// fabric.
    #[error("{what}: {found} entries, but the fabric has {expected} port ids")]
    LengthMismatch {
        /// What the data is.
        what: &'static str,
        /// The fabric's number of port ids.
        expected: usize,
        /// The entries given.
        found: usize,
    },
    /// A CA index (a position in [`Fabric::ca_order`](crate::Fabric::ca_order)) out of range.
    #[error("CA index {index} out of range (the fabric has {cas} CAs)")]
    CaOutOfRange {
        /// The index.
        index: u32,
        /// The number of CAs.
        cas: u32,
    },
    /// A folded-Clos routing that forwarding tables cannot express: one top switch per
    /// (source bottom switch, destination) is needed (no source-dependent or multipath
    /// routing without LMC).
    #[error(
        "routing gives pair {src} -> {dst} the tops {tops:?}, but a forwarding table needs one top < {m} shared by all sources of the bottom switch (pair {other_src} -> {dst} differs)"
    )]
    NotTableRouting {
        /// The source leaf.
        src: u32,
        /// The destination leaf.
        dst: u32,
        /// The tops the routing gives the pair.
        tops: Vec<u32>,
        /// The number of top switches.
        m: u32,
        /// A source of the same bottom switch routed differently (or `src` itself).
        other_src: u32,
    },
    /// A conversion to a `fatnet_topology::Topology` ([`FabricTopology`](crate::FabricTopology))
    /// needs forwarding tables: without them the fabric has no routes.
    #[error("the fabric has no forwarding tables, so it has no routes to convert")]
    NoForwardingTables,
    /// A route that does not reach its destination, where every route must
    /// ([`FabricTopology`](crate::FabricTopology)): the first such pair, by source then
    /// destination in CA order.
    #[error("route {src} -> {dst} (CA-order positions) does not arrive: {fault:?}")]
    BadRoute {
        /// The source's position in the CA order.
        src: u32,
        /// The destination's position in the CA order.
        dst: u32,
        /// Why the route stops.
        fault: crate::RouteFault,
    },
    /// Something a format cannot read: forwarding tables of a structure-only format, or a
    /// folder where a format wants a file.
    #[error(
        "{file}: {what} cannot be read as {format} (tables: flitsim, opensm and ibnetdiscover; folders: opensm)"
    )]
    Unsupported {
        /// The path given.
        file: String,
        /// What it is (`forwarding tables`, `a folder`).
        what: &'static str,
        /// The format it would be read as.
        format: &'static str,
    },
    /// A file that has none of the records its format needs.
    #[error(
        "{file}: no port records ({unrecognised} lines of no known shape): is this an {expected}?"
    )]
    NoRecords {
        /// The file.
        file: String,
        /// Its lines of no known shape.
        unrecognised: usize,
        /// The file it should be.
        expected: &'static str,
    },
    /// A random bisection pairs every CA with one in the other half: it needs an even number
    /// of CAs, at least two ([`crate::ebb`]).
    #[error(
        "a bisection pairs the CAs two by two: it needs an even number of at least 2 CAs, the fabric has {cas}"
    )]
    BisectionCas {
        /// The number of CAs in the CA order.
        cas: u32,
    },
    /// An analysis parameter below its least meaningful value (no bisection, no histogram bin).
    #[error("{what} must be at least {min}, got {value}")]
    TooSmall {
        /// The parameter.
        what: &'static str,
        /// The value given.
        value: u64,
        /// The least value accepted.
        min: u64,
    },
    /// Something an analysis needs for every node or pair is missing from a file: a switch's
    /// SL-to-VL table, a row of it, or the SL of a pair of CAs.
    #[error("{file}: no {what} {name}")]
    MissingEntry {
        /// The file that should have it.
        file: String,
        /// What is missing.
        what: &'static str,
        /// For which node, port pair or route.
        name: String,
    },
    /// A network specification that cannot be built (`ring:`/`torus:` of
    /// [`SwitchTorus`](crate::export::SwitchTorus)).
    #[error("`{spec}`: expected {expected}")]
    BadSpec {
        /// The specification (truncated to 80 characters).
        spec: String,
        /// What was expected.
        expected: &'static str,
    },
    /// A traffic pattern that does not suit the fabric (its number of CAs), or a message-set
    /// file that cannot be read.
    #[error("traffic: {0}")]
    Traffic(#[from] fatnet_traffic::TrafficError),
    /// A file ended before a construct it opened was complete.
    #[error("{file}:{line}: unexpected end of file: expected {expected}")]
    UnexpectedEof {
        /// The file.
        file: String,
        /// The last line of the file.
        line: usize,
        /// What was still expected.
        expected: &'static str,
    },
    /// A re-routing by an external subnet manager ([`crate::failures::Reroute::OpenSm`]) that
    /// could not run: no runner given, a tool missing, or the tool failed.
    #[error("re-routing with opensm -R {engine}: {reason}")]
    ExternalRouting {
        /// The OpenSM routing engine.
        engine: String,
        /// What went wrong (the tool's message).
        reason: String,
    },
}

impl FabricError {
    /// The 1-based line of the file the error is about, when it is about one line.
    #[must_use]
    pub fn line(&self) -> Option<usize> {
        match self {
            FabricError::Syntax { line, .. }
            | FabricError::PortOutOfRange { line, .. }
            | FabricError::LinkMismatch { line, .. }
            | FabricError::NodeConflict { line, .. }
            | FabricError::LidConflict { line, .. }
            | FabricError::Unknown { line, .. }
            | FabricError::UnexpectedEof { line, .. } => Some(*line),
            _ => None,
        }
    }
}

/// A file name and a line, for building errors.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Loc<'a> {
    pub file: &'a str,
    pub line: usize,
}

impl Loc<'_> {
    pub(crate) fn syntax(self, expected: &'static str, found: &str) -> FabricError {
        FabricError::Syntax {
            file: self.file.to_owned(),
            line: self.line,
            expected,
            found: found.chars().take(80).collect(),
        }
    }

    pub(crate) fn node_conflict(self, node: &str, what: &'static str) -> FabricError {
        FabricError::NodeConflict {
            file: self.file.to_owned(),
            line: self.line,
            node: node.to_owned(),
            what,
        }
    }

    pub(crate) fn lid_conflict(self, lid: u32, what: &'static str) -> FabricError {
        FabricError::LidConflict {
            file: self.file.to_owned(),
            line: self.line,
            lid,
            what,
        }
    }

    pub(crate) fn unknown(self, what: &'static str, name: &str) -> FabricError {
        FabricError::Unknown {
            file: self.file.to_owned(),
            line: self.line,
            what,
            name: name.chars().take(80).collect(),
        }
    }

    pub(crate) fn port_range(self, node: &str, port: u32, ports: u32) -> FabricError {
        FabricError::PortOutOfRange {
            file: self.file.to_owned(),
            line: self.line,
            node: node.to_owned(),
            port,
            ports,
        }
    }
}
