//! Effective bisection bandwidth: the mean bandwidth a random bisection pattern gets from a
//! fabric's forwarding tables, as a distribution over seeded random bisections.
//!
//! **Definition (ORCS; Hoefler, Schneider and Lumsdaine, *Multistage Switches are not
//! Crossbars: Effects of Static Routing in High-Performance Networks*, IEEE Cluster 2008).**
//! A *bisection pattern* maps the CAs at random onto ranks and pairs them two by two, so each
//! CA has exactly one partner in the other half. Each flow is routed on its one static route
//! (the forwarding tables); a directed link crossed by `k` flows of the pattern gives each of
//! them `1/k` of its bandwidth, and a flow's bandwidth is set by the most congested link on its
//! route: `1 / max_link k`. The pattern's effective bisection bandwidth is the mean of its
//! flows' bandwidths, as a fraction of the link bandwidth; the fabric's eBB is the mean over
//! many patterns. Full-bisection clusters measured 55–60 % under static routing in that paper.
//!
//! What ORCS does and what we follow:
//!
//! - *Drawing a bisection.* ORCS shuffles the CA list (`shuffle_namelist`) and its `bisect`
//!   patterns pair consecutive ranks `(2k, 2k + 1)`; Netgauge's `ebb` benchmark (the same
//!   authors, measuring real machines) draws a random permutation and pairs its first half with
//!   its second. Both give a uniformly random perfect matching of the CAs; we shuffle the CA
//!   order with `rand_pcg::Pcg64` (Fisher–Yates, [`rand::seq::SliceRandom::shuffle`]) and pair
//!   positions `2k` and `2k + 1`.
//! - *Directions.* ORCS's `bisect` sends one way (`2k → 2k + 1`), its `bisect_fb_sym` and
//!   Netgauge's `ebb` both ways (every CA sends to and receives from its partner, as MPI's
//!   `Isend`/`Irecv` pairs do). Our default is both ways ([`BisectionFlows::Both`], `N` flows);
//!   [`BisectionFlows::OneWay`] gives ORCS's `bisect` (`N/2` flows). Links are directed
//!   (InfiniBand links are full duplex), so the two flows of a pair never share a link.
//! - *Flow bandwidth and pattern eBB.* As ORCS's `hist_acc_band` metric: per directed link the
//!   number of the pattern's routes over it (`insert_route_into_cable_cong_map`), per flow the
//!   largest count on its route (`get_max_congestion`), per pattern the mean of `1/count`
//!   (`get_acc_bandwidth`). The CA links count like every other link.
//! - *Statistics.* ORCS prints min, max, the mean, and a "possible error" of `2.576 · σ² / √n`
//!   (a variance where a standard deviation belongs). We report min, max, the mean with a 95 %
//!   Student-t interval `t · s / √n` ([`fatnet_queueing::stats::student_t`]), and the histogram
//!   on fixed bins over `[0, 1]` (ORCS: 20 bins of width 0.05, our default).
//! - *Beside it, the exact worst case.* `1 / WorstCase::contention`
//!   ([`crate::analysis::LinkRoutes::worst_case`]) is the smallest share any permutation can
//!   force on one of its flows, so every flow share, and every pattern's eBB, lies in
//!   `[1 / contention, 1]`; a nonblocking routing (Yuan's Lemma 1) gives eBB = 1 for every
//!   bisection.
//!
//! **Key design decision: trace on the fly, no route table.** A draw traces its `N` (or `N/2`)
//! routes through the tables into a scratch buffer of output-port ids, counts flows per port,
//! then takes each flow's maximum: `O(N · hops)` time and memory per draw, no `N²` table
//! (the 1,944-host `is4_3l_1944n` would need 3.78 M routes × ≤ 6 hops = 90 MB as `u32` port
//! ids). Walking a forwarding table is a few array lookups per hop: 1,000 bisections of
//! `is4_3l_1944n`, with the route check, take 1.2 s (median of `benches/benches/ebb.rs` on a
//! loaded 2-core machine; the target is 10 s). Every route is checked once up front; a fabric with a broken route is refused with the first
//! broken pair, rather than giving that flow some bandwidth it does not have. Draw `i` is
//! seeded with `fatnet_traffic::derive_seed(seed, i)`; draws run in parallel (rayon), each from
//! its own seed into its own slot, so the values do not depend on the thread count.

use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_pcg::Pcg64;
use rayon::prelude::*;
use serde::Serialize;

use crate::FabricError;
use crate::fabric::Fabric;
use crate::trace::RouteFault;

fatnet_topology::named_options! {
    /// Which flows a bisection pair sends.
    pub enum BisectionFlows("bisection flows") {
        /// Both partners send to each other (Netgauge's `ebb`, ORCS's `bisect_fb_sym`): `N`
        /// flows.
        Both = "both",
        /// Position `2k` sends to `2k + 1` only (ORCS's `bisect`): `N/2` flows.
        OneWay = "one-way",
    }
}

/// The most bisections one run may draw: the per-draw values are kept (8 bytes each).
pub const MAX_BISECTIONS: u32 = 10_000_000;

/// The most histogram bins.
pub const MAX_BINS: u32 = 10_000;

/// The parameters of an effective-bisection-bandwidth run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct EbbConfig {
    /// How many random bisections to draw (default 1,000).
    pub bisections: u32,
    /// The master seed: draw `i` uses `fatnet_traffic::derive_seed(seed, i)` (default 1).
    pub seed: u64,
    /// Histogram bins over `[0, 1]` (default 20: ORCS's width 0.05).
    pub bins: u32,
    /// One or both directions per pair (default both).
    pub flows: BisectionFlows,
}

impl Default for EbbConfig {
    fn default() -> Self {
        Self {
            bisections: 1000,
            seed: 1,
            bins: 20,
            flows: BisectionFlows::Both,
        }
    }
}

impl EbbConfig {
    /// Checks the parameters (before anything is allocated).
    ///
    /// # Errors
    /// [`FabricError::TooSmall`] for no bisection or no bin, [`FabricError::TooLarge`] above
    /// [`MAX_BISECTIONS`] or [`MAX_BINS`].
    pub fn validate(&self) -> Result<(), FabricError> {
        for (what, value, min) in [
            ("bisections", self.bisections, 1),
            ("histogram bins", self.bins, 1),
        ] {
            if value < min {
                return Err(FabricError::TooSmall {
                    what,
                    value: u64::from(value),
                    min: u64::from(min),
                });
            }
        }
        for (what, count, limit) in [
            ("bisections", self.bisections, MAX_BISECTIONS),
            ("histogram bins", self.bins, MAX_BINS),
        ] {
            if count > limit {
                return Err(FabricError::TooLarge {
                    what,
                    count: u64::from(count),
                    limit: u64::from(limit),
                });
            }
        }
        Ok(())
    }
}

/// A histogram of values in `[0, 1]` on equal bins: bin `i` holds `[i/B, (i+1)/B)`, the last
/// bin also holds 1.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Histogram {
    /// The count per bin.
    pub counts: Vec<u64>,
}

impl Histogram {
    /// Bins `values` (each in `[0, 1]`) into `bins` equal bins.
    #[must_use]
    pub fn of_fractions(values: &[f64], bins: u32) -> Self {
        let b = bins.max(1) as usize;
        let mut counts = vec![0u64; b];
        for &v in values {
            let i = ((v * b as f64).floor().max(0.0) as usize).min(b - 1);
            counts[i] += 1;
        }
        Self { counts }
    }

    /// The bounds `[low, high)` of bin `i`.
    #[must_use]
    pub fn bin_range(&self, i: usize) -> (f64, f64) {
        let b = self.counts.len() as f64;
        (i as f64 / b, (i + 1) as f64 / b)
    }

    /// Every bin in order as `(low, high, count)` ([`Histogram::bin_range`] and its count).
    pub fn bins(&self) -> impl Iterator<Item = (f64, f64, u64)> + '_ {
        self.counts.iter().enumerate().map(|(i, &count)| {
            let (low, high) = self.bin_range(i);
            (low, high, count)
        })
    }
}

/// The effective bisection bandwidth of a fabric's routing over seeded random bisections
/// ([`effective_bisection_bandwidth`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Ebb {
    /// The parameters.
    pub config: EbbConfig,
    /// The CAs (`N`, the CA order).
    pub cas: u32,
    /// Flows per bisection: `N` both ways, `N/2` one way.
    pub flows_per_bisection: u32,
    /// The eBB of each draw, in draw order: the mean flow share, as a fraction of the link
    /// bandwidth.
    pub per_draw: Vec<f64>,
    /// The mean over draws.
    pub mean: f64,
    /// The half-width of the 95 % Student-t interval of the mean (NaN for one draw).
    pub half_width: f64,
    /// The smallest draw.
    pub min: f64,
    /// The largest draw.
    pub max: f64,
    /// The per-draw values on `config.bins` bins over `[0, 1]`.
    pub histogram: Histogram,
    /// The smallest flow share seen in any draw (`1 / the most flows on one link`).
    pub min_flow_share: f64,
}

/// The confidence level of [`Ebb::half_width`].
pub const EBB_LEVEL: f64 = 0.95;

/// Draws `config.bisections` random bisections of the CA order and computes each one's
/// effective bisection bandwidth under the fabric's forwarding tables (the module
/// documentation gives the definition and its sources).
///
/// # Errors
/// The errors of [`EbbConfig::validate`]; [`FabricError::BisectionCas`] for an odd number of
/// CAs or fewer than 2; [`FabricError::TooLarge`] beyond
/// [`crate::analysis::MAX_ANALYSED_CAS`] CAs; [`FabricError::NoForwardingTables`] without
/// tables; [`FabricError::BadRoute`] for the first route between CAs of the CA order (by
/// source, then destination) that does not arrive.
pub fn effective_bisection_bandwidth(
    fabric: &Fabric,
    config: &EbbConfig,
) -> Result<Ebb, FabricError> {
    config.validate()?;
    let order = fabric.ca_order();
    if order.len() > crate::analysis::MAX_ANALYSED_CAS as usize {
        return Err(FabricError::TooLarge {
            what: "CAs to analyse",
            count: order.len() as u64,
            limit: u64::from(crate::analysis::MAX_ANALYSED_CAS),
        });
    }
    let cas = order.len() as u32;
    if cas < 2 || cas % 2 == 1 {
        return Err(FabricError::BisectionCas { cas });
    }
    if !fabric.has_lfts() {
        return Err(FabricError::NoForwardingTables);
    }
    fabric.check_routes()?;
    let lids: Vec<u16> = order
        .iter()
        .map(|&c| fabric.node(c).lid().unwrap_or(0))
        .collect();
    let flows_per_bisection = match config.flows {
        BisectionFlows::Both => cas,
        BisectionFlows::OneWay => cas / 2,
    };
    let draws: Vec<(f64, f64)> = (0..config.bisections)
        .into_par_iter()
        .map_init(
            || Scratch::new(fabric.port_id_count(), cas),
            |scratch, i| {
                let seed = fatnet_traffic::derive_seed(config.seed, u64::from(i));
                scratch.draw(fabric, &lids, seed, config.flows)
            },
        )
        .collect();
    let per_draw: Vec<f64> = draws.iter().map(|d| d.0).collect();
    let min_flow_share = draws.iter().map(|d| d.1).fold(1.0, f64::min);
    let n = per_draw.len() as f64;
    let mean = per_draw.iter().sum::<f64>() / n;
    let half_width = fatnet_queueing::stats::batch_means_half_width(&per_draw, EBB_LEVEL);
    let min = per_draw.iter().copied().fold(f64::INFINITY, f64::min);
    let max = per_draw.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let histogram = Histogram::of_fractions(&per_draw, config.bins);
    Ok(Ebb {
        config: *config,
        cas,
        flows_per_bisection,
        per_draw,
        mean,
        half_width,
        min,
        max,
        histogram,
        min_flow_share,
    })
}

/// Shuffles `0..perm.len()` into `perm` with the generator of draw seed `seed`.
fn shuffle_into(perm: &mut [u32], seed: u64) {
    for (i, p) in perm.iter_mut().enumerate() {
        *p = i as u32;
    }
    perm.shuffle(&mut Pcg64::seed_from_u64(seed));
}

/// The random bisection of `cas` CA-order positions drawn from `seed`: the positions shuffled
/// (Fisher–Yates with `Pcg64::seed_from_u64(seed)`) and paired `(2k, 2k + 1)`. Draw `i` of
/// [`effective_bisection_bandwidth`] is `random_bisection(cas, derive_seed(seed, i))`; an odd
/// last position stays unpaired.
#[must_use]
pub fn random_bisection(cas: u32, seed: u64) -> Vec<(u32, u32)> {
    let mut perm = vec![0u32; cas as usize];
    shuffle_into(&mut perm, seed);
    perm.chunks_exact(2).map(|p| (p[0], p[1])).collect()
}

/// The flows of a bisection's pairs: `a → b` then, both ways, `b → a`, pair by pair.
#[must_use]
pub fn bisection_flows(pairs: &[(u32, u32)], flows: BisectionFlows) -> Vec<(u32, u32)> {
    let mut out = Vec::with_capacity(pairs.len() * 2);
    for &(a, b) in pairs {
        out.push((a, b));
        if flows == BisectionFlows::Both {
            out.push((b, a));
        }
    }
    out
}

/// Each flow's share of the link bandwidth when all of `flows` (CA-order positions) run at
/// once on their routes: `1 / k` for the most flows `k` on one directed link of its route (1
/// for a flow from a CA to itself, which crosses no link). The mean of a bisection's shares is
/// its eBB.
///
/// # Errors
/// [`FabricError::CaOutOfRange`] for a position beyond the CA order; [`FabricError::BadRoute`]
/// for the first flow whose route does not arrive.
pub fn flow_shares(fabric: &Fabric, flows: &[(u32, u32)]) -> Result<Vec<f64>, FabricError> {
    let order = fabric.ca_order();
    let cas = order.len() as u32;
    let mut routes: Vec<Vec<u32>> = Vec::with_capacity(flows.len());
    let mut load = vec![0u32; fabric.port_id_count()];
    for &(s, d) in flows {
        for index in [s, d] {
            if index >= cas {
                return Err(FabricError::CaOutOfRange { index, cas });
            }
        }
        let mut hops = Vec::new();
        if s != d {
            let (src, dst) = (order[s as usize], order[d as usize]);
            let walked = match fabric.node(dst).lid() {
                Some(lid) => fabric.walk_lid(src, dst, lid, &mut |h| {
                    hops.push(fabric.port_id(h.node, h.port).0);
                }),
                None => Err(RouteFault::NoDestinationLid),
            };
            walked.map_err(|fault| FabricError::BadRoute {
                src: s,
                dst: d,
                fault,
            })?;
        }
        for &p in &hops {
            load[p as usize] += 1;
        }
        routes.push(hops);
    }
    Ok(routes
        .iter()
        .map(|hops| {
            let worst = hops.iter().map(|&p| load[p as usize]).max().unwrap_or(1);
            1.0 / f64::from(worst)
        })
        .collect())
}

/// One thread's buffers, reused across its draws.
struct Scratch {
    /// Flows per output port, all zero between draws.
    load: Vec<u32>,
    /// The shuffled CA positions.
    perm: Vec<u32>,
    /// The output-port ids of every flow's route, flow after flow.
    hops: Vec<u32>,
    /// Where each flow's hops start in `hops` (one more entry than flows).
    start: Vec<usize>,
}

impl Scratch {
    fn new(ports: usize, cas: u32) -> Self {
        Self {
            load: vec![0; ports],
            perm: (0..cas).collect(),
            hops: Vec::new(),
            start: Vec::new(),
        }
    }

    /// One bisection from `seed`: its eBB and its smallest flow share.
    fn draw(
        &mut self,
        fabric: &Fabric,
        lids: &[u16],
        seed: u64,
        flows: BisectionFlows,
    ) -> (f64, f64) {
        let order = fabric.ca_order();
        shuffle_into(&mut self.perm, seed);
        self.hops.clear();
        self.start.clear();
        self.start.push(0);
        let Self {
            load,
            perm,
            hops,
            start,
        } = self;
        let mut route = |s: u32, d: u32| {
            let (src, dst) = (order[s as usize], order[d as usize]);
            // Every route was checked to arrive (`check_routes`).
            let walked = fabric.walk_lid(src, dst, lids[d as usize], &mut |h| {
                let p = fabric.port_id(h.node, h.port).0;
                load[p as usize] += 1;
                hops.push(p);
            });
            debug_assert!(walked.is_ok());
            start.push(hops.len());
        };
        for pair in perm.chunks_exact(2) {
            route(pair[0], pair[1]);
            if flows == BisectionFlows::Both {
                route(pair[1], pair[0]);
            }
        }
        let mut sum = 0.0;
        let mut least = 1.0f64;
        for f in 0..start.len() - 1 {
            let worst = hops[start[f]..start[f + 1]]
                .iter()
                .map(|&p| load[p as usize])
                .max()
                .unwrap_or(1);
            let share = 1.0 / f64::from(worst);
            sum += share;
            least = least.min(share);
        }
        for &p in hops.iter() {
            load[p as usize] = 0;
        }
        (sum / (start.len() - 1) as f64, least)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histogram_bins_are_half_open_and_the_last_holds_one() {
        let h = Histogram::of_fractions(&[0.0, 0.049, 0.05, 0.5, 0.999, 1.0], 20);
        assert_eq!(h.counts.len(), 20);
        assert_eq!(
            (h.counts[0], h.counts[1], h.counts[10], h.counts[19]),
            (2, 1, 1, 2)
        );
        assert_eq!(h.counts.iter().sum::<u64>(), 6);
        assert_eq!(h.bin_range(19), (0.95, 1.0));
    }

    #[test]
    fn a_bisection_is_a_perfect_matching_of_its_seed() {
        let a = random_bisection(10, 7);
        assert_eq!(a, random_bisection(10, 7));
        assert_ne!(a, random_bisection(10, 8));
        let mut all: Vec<u32> = a.iter().flat_map(|&(x, y)| [x, y]).collect();
        all.sort_unstable();
        assert_eq!(all, (0..10).collect::<Vec<_>>());
        // An odd last position stays unpaired.
        assert_eq!(random_bisection(5, 1).len(), 2);
        assert_eq!(
            bisection_flows(&[(0, 1)], BisectionFlows::Both),
            vec![(0, 1), (1, 0)]
        );
    }
}
