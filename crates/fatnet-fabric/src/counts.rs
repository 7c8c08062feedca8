//! ibdiagnet-style route counts: routes and destinations per output port, the hop histogram of
//! all CA-to-CA routes, and per-level summaries and histograms of any per-port count (the
//! routes, or the link loads of a traffic).
//!
//! **What the reference tools count, and what we follow.** ibutils' `ibdm`
//! (`SubnMgtVerifyAllCaToCaRoutes`, run by `ibdmchk` and `ibdiagnet -r`) traces every CA-to-CA
//! route through the forwarding tables, destination by destination, and prints:
//!
//! - the *LFT route hop histogram* ("HOPS NUM-CA-CA-PAIRS"): its `TraceRouteByLFT` counts the
//!   links leaving switches and the printout adds one for the source CA's link, so a hop is a
//!   link traversed, CA links included; two CAs on one leaf switch are 2 hops apart. Ours is
//!   the same count ([`HopHistogram`], the hops of [`crate::TraceSummary`]).
//! - per switch output port, the *number of paths* through it ("SWITCH OUT PORT - NUM PATHS")
//!   and the *number of destination LIDs* routed through it ("NUM DLIDS"), as histograms over
//!   the switch-to-switch ports: ports driving CAs are left out of both, "as they must have
//!   `Nca − 1`". opareport's `pathusage` report is the Omni-Path counterpart (paths per switch
//!   port).
//!
//! We keep every output port that has a cable, CA uplinks and ports driving CAs included, so
//! the counts add up (the routes over all ports = the hops of all routes) and a broken table
//! shows where it breaks; the per-level summaries ([`LevelSpread`]) put CA links in their own
//! groups (level 0, up and down), which is ibdm's exclusion made visible instead of silent.
//! A link's level and direction are those of [`crate::FabricTopology`]'s channels (the smaller
//! [`Fabric::levels`] level of its ends; up, down or forward), so "level 1 up" is the leaf
//! switches' uplinks. ibdm's histograms are the [`LevelSpread::histogram`]s of all levels
//! together; "the histogram should be narrow for all ports on same level of the tree" is the
//! [`LevelSpread::imbalance`] we print per level.
//!
//! **Key design decision: one destination-major sweep, no route table.** As ibdm does ("to
//! avoid memory scalability we do the path scanning with dest port in the external loop"), the
//! routes are traced destination by destination; a port's destination count grows when the
//! port sees a route to a destination it has not seen yet, which destination-major order
//! tells with one stamp per port. Memory is `O(ports)`; faulty routes are counted, never filed.

use std::collections::BTreeMap;

use fatnet_topology::Direction;
use serde::Serialize;

use crate::FabricError;
use crate::analysis::{MAX_ANALYSED_CAS, TrafficLoad};
use crate::fabric::{Fabric, NodeId};
use crate::topology::link_level;

/// The hop counts of all routes between distinct CAs of the CA order ([`hop_histogram`]).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct HopHistogram {
    /// Routes traced: `N · (N − 1)`.
    pub routes: u64,
    /// Routes that arrive.
    pub delivered: u64,
    /// `counts[h]`: delivered routes of `h` hops (links traversed, both CA links included).
    pub counts: Vec<u64>,
}

impl HopHistogram {
    /// The sum of the hops of the delivered routes.
    #[must_use]
    pub fn total_hops(&self) -> u64 {
        self.counts
            .iter()
            .enumerate()
            .map(|(h, &c)| h as u64 * c)
            .sum()
    }

    /// The longest delivered route (0 when none arrives).
    #[must_use]
    pub fn max_hops(&self) -> u32 {
        self.counts.iter().rposition(|&c| c > 0).unwrap_or(0) as u32
    }

    fn add(&mut self, hops: u32) {
        let h = hops as usize;
        if self.counts.len() <= h {
            self.counts.resize(h + 1, 0);
        }
        self.counts[h] += 1;
        self.delivered += 1;
    }
}

/// Traces every route between distinct CAs of [`Fabric::ca_order`] and counts them by hops
/// (links traversed, CA links included: ibdm's "LFT route hop histogram").
#[must_use]
pub fn hop_histogram(fabric: &Fabric) -> HopHistogram {
    let mut hist = HopHistogram::default();
    sweep(fabric, &mut hist, |_, _| {});
    hist
}

/// Walks every ordered pair of distinct CAs, destination-major, calling `visit(d, port)` for
/// every hop of a delivered route to destination position `d`, and counts the routes in
/// `hist`. A route's hops are visited only once it is known to arrive.
fn sweep(fabric: &Fabric, hist: &mut HopHistogram, mut visit: impl FnMut(u32, u32)) {
    fabric.walk_routes(|w| {
        hist.routes += 1;
        if let Ok(h) = w.result {
            hist.add(h);
            for hop in w.hops {
                visit(w.d, fabric.port_id(hop.node, hop.port).0);
            }
        }
    });
}

/// Routes and destinations per output port over all CA-to-CA routes ([`route_counts`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RouteCounts {
    /// Delivered routes leaving through each output port, indexed by [`crate::PortId`].
    pub routes: Vec<u32>,
    /// Distinct destinations (CAs) of the routes leaving through each port, by [`crate::PortId`].
    pub destinations: Vec<u32>,
    /// The hop histogram of the same routes.
    pub hops: HopHistogram,
    /// [`RouteCounts::routes`] by level and direction.
    pub routes_by_level: Vec<LevelSpread>,
    /// [`RouteCounts::destinations`] by level and direction.
    pub destinations_by_level: Vec<LevelSpread>,
}

/// Traces every route between distinct CAs of [`Fabric::ca_order`] and counts, per output port,
/// the routes through it and their distinct destinations (ibdm's "NUM PATHS" and "NUM DLIDS"
/// per switch out port), with the hop histogram and the per-level summaries.
///
/// # Errors
/// [`FabricError::TooLarge`] beyond [`MAX_ANALYSED_CAS`] CAs (a port's route count must fit
/// `u32`).
pub fn route_counts(fabric: &Fabric) -> Result<RouteCounts, FabricError> {
    let cas = fabric.ca_order().len();
    if cas > MAX_ANALYSED_CAS as usize {
        return Err(FabricError::TooLarge {
            what: "CAs to analyse",
            count: cas as u64,
            limit: u64::from(MAX_ANALYSED_CAS),
        });
    }
    let ports = fabric.port_id_count();
    let mut routes = vec![0u32; ports];
    let mut destinations = vec![0u32; ports];
    let mut last = vec![u32::MAX; ports];
    let mut hops = HopHistogram::default();
    sweep(fabric, &mut hops, |d, p| {
        let p = p as usize;
        routes[p] += 1;
        if last[p] != d {
            last[p] = d;
            destinations[p] += 1;
        }
    });
    let routes_by_level = per_level(fabric, &routes);
    let destinations_by_level = per_level(fabric, &destinations);
    Ok(RouteCounts {
        routes,
        destinations,
        hops,
        routes_by_level,
        destinations_by_level,
    })
}

/// A per-port count over the directed links of one level and direction: its spread and its
/// histogram ([`per_level`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LevelSpread {
    /// The links' level: the smaller [`Fabric::levels`] level of their ends (0: CA links).
    pub level: u32,
    /// Up (towards the higher level), down, or forward (between switches of one level).
    pub direction: Direction,
    /// Directed links (output ports with a cable) in the group.
    pub links: u64,
    /// The smallest count.
    pub min: u32,
    /// The largest count.
    pub max: u32,
    /// The mean count.
    pub mean: f64,
    /// `max / mean`: 1 when every link of the group carries the same; 1 too when all carry 0.
    pub imbalance: f64,
    /// `(count, links with that count)`, by increasing count.
    pub histogram: Vec<(u32, u64)>,
}

/// Groups a per-port count (indexed by [`crate::PortId`], as [`RouteCounts::routes`] or
/// [`TrafficLoad::per_link`]) by the level and direction of each port's link, over every output
/// port with a cable whose two ends have a level ([`Fabric::levels`]); groups by level, then up,
/// down, forward.
#[must_use]
pub fn per_level(fabric: &Fabric, per_port: &[u32]) -> Vec<LevelSpread> {
    let levels = fabric.levels();
    let mut groups: BTreeMap<(u32, Direction), BTreeMap<u32, u64>> = BTreeMap::new();
    for (i, node) in fabric.nodes().iter().enumerate() {
        let Some(from) = levels[i] else { continue };
        for (port, peer) in node.neighbours() {
            let Some(to) = levels[peer.node.index()] else {
                continue;
            };
            let id = fabric.port_id(NodeId(i as u32), port);
            let count = per_port.get(id.0 as usize).copied().unwrap_or(0);
            *groups
                .entry(link_level(from, to))
                .or_default()
                .entry(count)
                .or_default() += 1;
        }
    }
    groups
        .into_iter()
        .map(|((level, direction), hist)| {
            let links: u64 = hist.values().sum();
            let total: u64 = hist.iter().map(|(&c, &k)| u64::from(c) * k).sum();
            let min = hist.keys().next().copied().unwrap_or(0);
            let max = hist.keys().next_back().copied().unwrap_or(0);
            let mean = total as f64 / links as f64;
            LevelSpread {
                level,
                direction,
                links,
                min,
                max,
                mean,
                imbalance: if max == 0 { 1.0 } else { f64::from(max) / mean },
                histogram: hist.into_iter().collect(),
            }
        })
        .collect()
}

/// The link loads of a traffic ([`Fabric::traffic_load`]) by level and direction.
#[must_use]
pub fn traffic_by_level(fabric: &Fabric, load: &TrafficLoad) -> Vec<LevelSpread> {
    per_level(fabric, &load.per_link)
}
