//! Route tracing through the forwarding tables.

use crate::FabricError;
use crate::fabric::{Endpoint, Fabric, NodeId, NodeKind};

/// One hop of a route: the packet leaves `node` through `port`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Hop {
    /// The node the packet leaves.
    pub node: NodeId,
    /// The output port.
    pub port: u8,
}

/// Why a route does not reach its destination. A fault is data about the tables, not an error.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RouteFault {
    /// The destination has no LID, so no table can route to it.
    NoDestinationLid,
    /// The source has no connected port.
    SourceUnconnected,
    /// The packet reached a switch without a forwarding table.
    NoTable {
        /// The switch.
        switch: NodeId,
    },
    /// The switch's table has no entry (or the drop entry 255) for the destination LID.
    NoEntry {
        /// The switch.
        switch: NodeId,
    },
    /// The table sends the packet out of a port with no cable.
    Unconnected {
        /// The switch.
        switch: NodeId,
        /// The port.
        port: u8,
    },
    /// The packet arrived at another end node (or a switch consumed it with port 0).
    WrongTarget {
        /// Where it ended.
        reached: NodeId,
    },
    /// The packet visited more switches than the fabric has: it loops.
    Loop {
        /// The switch where the walk gave up.
        at: NodeId,
    },
}

/// The kind of a [`RouteFault`], for counting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FaultKind {
    /// [`RouteFault::Loop`].
    Loop,
    /// [`RouteFault::NoTable`], [`RouteFault::NoEntry`], [`RouteFault::Unconnected`],
    /// [`RouteFault::SourceUnconnected`] and [`RouteFault::NoDestinationLid`].
    DeadEnd,
    /// [`RouteFault::WrongTarget`].
    WrongTarget,
}

impl RouteFault {
    /// The fault's kind.
    #[must_use]
    pub fn kind(&self) -> FaultKind {
        match self {
            Self::Loop { .. } => FaultKind::Loop,
            Self::WrongTarget { .. } => FaultKind::WrongTarget,
            _ => FaultKind::DeadEnd,
        }
    }

    /// The fault in words, with node names from `fabric` (`no entry at S-0001`): the one
    /// wording of every report that lists faulty routes.
    #[must_use]
    pub fn describe(self, fabric: &Fabric) -> String {
        let name = |n: NodeId| fabric.node(n).name().to_owned();
        match self {
            Self::NoDestinationLid => "destination has no LID".into(),
            Self::SourceUnconnected => "source unconnected".into(),
            Self::NoTable { switch } => format!("no table at {}", name(switch)),
            Self::NoEntry { switch } => format!("no entry at {}", name(switch)),
            Self::Unconnected { switch, port } => {
                format!("{} sends out of unconnected port {port}", name(switch))
            }
            Self::WrongTarget { reached } => format!("arrives at {}", name(reached)),
            Self::Loop { at } => format!("loops (gave up at {})", name(at)),
        }
    }
}

impl FaultKind {
    /// The kind in words (`loop`, `dead end`, `wrong target`).
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Loop => "loop",
            Self::DeadEnd => "dead end",
            Self::WrongTarget => "wrong target",
        }
    }
}

/// The result of tracing every ordered pair of distinct CAs.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TraceSummary {
    /// Pairs traced.
    pub routes: u64,
    /// Routes that reach their destination.
    pub delivered: u64,
    /// Routes that loop.
    pub loops: u64,
    /// Routes that dead-end (no table, no entry, unconnected port, no LID).
    pub dead_ends: u64,
    /// Routes that arrive at the wrong node.
    pub wrong_target: u64,
    /// The sum of the delivered routes' hop counts (links crossed, CA links included).
    pub total_hops: u64,
    /// The longest delivered route, in hops.
    pub max_hops: u32,
    /// The first faults found (at most [`TraceSummary::EXAMPLES`]), in (destination, source)
    /// order of the CA order: (source, destination, fault).
    pub examples: Vec<(NodeId, NodeId, RouteFault)>,
}

impl TraceSummary {
    /// How many faulty routes [`TraceSummary::examples`] keeps.
    pub const EXAMPLES: usize = 16;

    /// Counts one traced route from `src` to `dst`.
    pub(crate) fn record(&mut self, src: NodeId, dst: NodeId, r: Result<u32, RouteFault>) {
        self.routes += 1;
        match r {
            Ok(h) => {
                self.delivered += 1;
                self.total_hops += u64::from(h);
                self.max_hops = self.max_hops.max(h);
            }
            Err(f) => {
                match f.kind() {
                    FaultKind::Loop => self.loops += 1,
                    FaultKind::DeadEnd => self.dead_ends += 1,
                    FaultKind::WrongTarget => self.wrong_target += 1,
                }
                if self.examples.len() < Self::EXAMPLES {
                    self.examples.push((src, dst, f));
                }
            }
        }
    }

    /// Whether every route reaches its destination.
    #[must_use]
    pub fn all_valid(&self) -> bool {
        self.delivered == self.routes
    }
}

impl Fabric {
    /// Follows the forwarding tables from `src` to `dst` (any nodes; normally CAs) and returns
    /// the hops, from the source's uplink to the link into `dst`, or the fault that stops it.
    ///
    /// A CA source sends out of its lowest connected port; the destination LID is `dst`'s
    /// ([`Node::lid`](crate::Node::lid)). Panics if `src` or `dst` is not a node of the fabric.
    ///
    /// # Errors
    /// The [`RouteFault`] of a route that does not arrive.
    pub fn trace(&self, src: NodeId, dst: NodeId) -> Result<Vec<Hop>, RouteFault> {
        let mut hops = Vec::new();
        self.walk(src, dst, |h| hops.push(h)).map(|_| hops)
    }

    /// Walks the route, calling `visit` for every hop; returns the hop count.
    fn walk(
        &self,
        src: NodeId,
        dst: NodeId,
        mut visit: impl FnMut(Hop),
    ) -> Result<u32, RouteFault> {
        let lid = self.node(dst).lid().ok_or(RouteFault::NoDestinationLid)?;
        self.walk_lid(src, dst, lid, &mut visit)
    }

    #[inline]
    pub(crate) fn walk_lid(
        &self,
        src: NodeId,
        dst: NodeId,
        lid: u16,
        visit: &mut impl FnMut(Hop),
    ) -> Result<u32, RouteFault> {
        let limit = self.nodes().len() as u32 + 1;
        let mut at = src;
        let mut hops = 0u32;
        if src == dst {
            return Ok(0);
        }
        let mut port = if self.node(src).kind() == NodeKind::Switch {
            None
        } else {
            Some(
                self.node(src)
                    .first_connected_port()
                    .ok_or(RouteFault::SourceUnconnected)?,
            )
        };
        loop {
            let out = match port.take() {
                Some(p) => p,
                None => {
                    let table = self.lft(at).ok_or(RouteFault::NoTable { switch: at })?;
                    let p = table.get(lid).ok_or(RouteFault::NoEntry { switch: at })?;
                    if p == 0 {
                        return Err(RouteFault::WrongTarget { reached: at });
                    }
                    p
                }
            };
            let Some(Endpoint { node: next, .. }) = self.peer(at, out) else {
                return Err(RouteFault::Unconnected {
                    switch: at,
                    port: out,
                });
            };
            visit(Hop {
                node: at,
                port: out,
            });
            hops += 1;
            if next == dst {
                return Ok(hops);
            }
            if self.node(next).kind() != NodeKind::Switch {
                return Err(RouteFault::WrongTarget { reached: next });
            }
            if hops > limit {
                return Err(RouteFault::Loop { at: next });
            }
            at = next;
        }
    }

    /// Traces every ordered pair of distinct CAs of [`Fabric::ca_order`] and counts the
    /// outcomes. Deterministic: destinations in CA order, then sources in CA order.
    #[must_use]
    pub fn trace_all(&self) -> TraceSummary {
        let mut s = TraceSummary::default();
        self.walk_routes(|w| s.record(w.src, w.dst, w.result));
        s
    }

    /// Walks every route between distinct CAs of [`Fabric::ca_order`], destination-major
    /// (destinations in CA order, then sources in CA order), and gives `visit` each walked
    /// route ([`RouteWalk`]: its ends, the hops it made, how it ended). The one sweep behind
    /// [`Fabric::trace_all`], the per-link route table of the analysis, the route counts and
    /// the channel dependency graph. One call per route, the hops as a slice: the callers'
    /// per-hop loops stay tight.
    pub(crate) fn walk_routes(&self, mut visit: impl FnMut(RouteWalk<'_>)) {
        let order = self.ca_order();
        let mut hops: Vec<Hop> = Vec::new();
        for (d, &dst) in order.iter().enumerate() {
            let lid = self.node(dst).lid();
            for (s, &src) in order.iter().enumerate() {
                if s == d {
                    continue;
                }
                hops.clear();
                let result = match lid {
                    Some(lid) => self.walk_lid(src, dst, lid, &mut |h| hops.push(h)),
                    None => Err(RouteFault::NoDestinationLid),
                };
                visit(RouteWalk {
                    s: s as u32,
                    d: d as u32,
                    src,
                    dst,
                    hops: &hops,
                    result,
                });
            }
        }
    }

    /// Checks that every route between distinct CAs of [`Fabric::ca_order`] arrives, sources
    /// in CA order, then destinations: what every analysis that needs all routes refuses
    /// first.
    ///
    /// # Errors
    /// [`FabricError::BadRoute`] for the first route (by source, then destination) that does
    /// not arrive.
    pub(crate) fn check_routes(&self) -> Result<(), FabricError> {
        let order = self.ca_order();
        let lids: Vec<Option<u16>> = order.iter().map(|&c| self.node(c).lid()).collect();
        for (s, &src) in order.iter().enumerate() {
            for (d, &dst) in order.iter().enumerate() {
                if s == d {
                    continue;
                }
                let walked = match lids[d] {
                    Some(lid) => self.walk_lid(src, dst, lid, &mut |_| {}),
                    None => Err(RouteFault::NoDestinationLid),
                };
                walked.map_err(|fault| FabricError::BadRoute {
                    src: s as u32,
                    dst: d as u32,
                    fault,
                })?;
            }
        }
        Ok(())
    }
}

/// One route of [`Fabric::walk_routes`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct RouteWalk<'a> {
    /// The source's CA-order position.
    pub s: u32,
    /// The destination's CA-order position.
    pub d: u32,
    /// The source node.
    pub src: NodeId,
    /// The destination node.
    pub dst: NodeId,
    /// The hops made (every cabled port left), also when the route then fails.
    pub hops: &'a [Hop],
    /// The hop count, or the fault that stopped the route.
    pub result: Result<u32, RouteFault>,
}
