//! Stamoulis' dynamic traffic on the `d`-cube (Stamoulis' thesis (1991), §5.1.1): every node
//! generates packets by an independent Poisson process of rate λ, and a packet born at `x`
//! goes to `z` with probability `p^H(x,z) (1 − p)^(d − H(x,z))` (5.1), i.e. each address bit is
//! flipped independently with probability `p`. The same law feeds the `d`-dimensional
//! butterfly of §5.6 (rows of level 1 to rows of level `d + 1`).
//!
//! **Key design decision: one random stream per node.** Node `x`'s arrivals come from their
//! own `Pcg64`, derived from the run's seed and `x` ([`node_rng`]), and are produced lazily in
//! time order by a [`NodeArrivals`] iterator. So a node's arrivals do not depend on how far the
//! other nodes have been generated: a simulator may pull them window by window, in any
//! order, and still see exactly the arrivals of [`PoissonTraffic::poisson`] with the same seed.
//!
//! Modelling choices (the thesis leaves them open):
//!
//! - A destination may equal its origin (probability `(1 − p)^d`). Such a packet is kept: it
//!   is counted with delay 0 on the cube (no transmission), as Little's law `N = λ 2^d T` of
//!   the thesis requires. Generators never drop it.
//! - Slotted batches (§5.4) are the continuous arrivals **advanced to the start of their
//!   slot**: node `x`'s batch at time `kτ` holds the arrivals of its Poisson stream in
//!   `[kτ, (k + 1)τ)`. Its size is Poisson(λτ), independent across nodes and slots, which is
//!   the thesis' model; it is also the thesis' coupling (5.19) of the slotted and the
//!   continuous system, sample path by sample path, for the same seed.
//!
//! ```
//! use fatnet_traffic::arrivals::PoissonTraffic;
//!
//! let traffic = PoissonTraffic::new(4, 0.5, 0.5)?;
//! assert_eq!(traffic.rho(), 0.25);
//! let a = traffic.poisson(100.0, 7)?;
//! assert!(a.windows(2).all(|w| w[0].time <= w[1].time));
//! assert_eq!(a, traffic.poisson(100.0, 7)?); // same seed, same arrivals
//! # Ok::<(), fatnet_traffic::TrafficError>(())
//! ```

use crate::{MEMORY_BUDGET, TrafficError};
use rand::seq::SliceRandom;
use rand::{Rng, RngCore};
use rand_pcg::Pcg64;
use serde::{Deserialize, Serialize};

/// The largest cube dimension: node ids are `u32`s.
pub const MAX_DIMENSION: u32 = 31;

/// The most arrivals a generated list may hold (`2^31`: simulators number packets by `u32`
/// and compare those numbers modulo `2^32`).
pub const MAX_ARRIVALS: u64 = 1 << 31;

/// Bytes of one [`Arrival`] in a list.
const ARRIVAL_BYTES: f64 = std::mem::size_of::<Arrival>() as f64;

/// One generated packet: born at `time` at node `src`, bound for node `dst`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Arrival {
    /// Generation time.
    pub time: f64,
    /// Origin node.
    pub src: u32,
    /// Destination node (may equal `src`).
    pub dst: u32,
}

/// The destination law (5.1): flip each of the `d` address bits independently with
/// probability `p`.
///
/// [`sample`](BitFlip::sample) consumes the generator as follows: nothing for `p = 0` or
/// `p = 1`; one `u32` (its low `d` bits are the flip mask) for `p = 1/2` exactly; otherwise one
/// `u64` per bit, lowest bit first, bit `b` flipped when the draw is below `p · 2^64` (the rule
/// of `rand`'s `random_bool`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BitFlip {
    d: u32,
    p: f64,
    threshold: u64,
}

impl BitFlip {
    /// The law for a `d`-cube with flip probability `p`.
    ///
    /// # Errors
    ///
    /// [`TrafficError::BadDimension`] for `d` outside `1..=31`,
    /// [`TrafficError::ProbabilityOutOfRange`] for `p` outside `[0, 1]` or NaN.
    pub fn new(d: u32, p: f64) -> Result<Self, TrafficError> {
        check_dimension(d)?;
        if !(0.0..=1.0).contains(&p) {
            return Err(TrafficError::ProbabilityOutOfRange { p });
        }
        // p · 2^64, saturating; p = 1 is handled apart.
        let threshold = (p * 18_446_744_073_709_551_616.0) as u64;
        Ok(Self { d, p, threshold })
    }

    /// The dimension.
    pub fn d(&self) -> u32 {
        self.d
    }

    /// The flip probability.
    pub fn p(&self) -> f64 {
        self.p
    }

    /// A destination for a packet born at `x` (any `u32`; only its low `d` bits are flipped).
    pub fn sample<R: RngCore + ?Sized>(&self, x: u32, rng: &mut R) -> u32 {
        let mask = mask(self.d);
        if self.p == 0.0 {
            x
        } else if self.p == 1.0 {
            x ^ mask
        } else if self.p == 0.5 {
            x ^ (rng.next_u32() & mask)
        } else {
            let mut z = x;
            for b in 0..self.d {
                if rng.next_u64() < self.threshold {
                    z ^= 1 << b;
                }
            }
            z
        }
    }
}

/// Stamoulis' dynamic traffic: Poisson(λ) generation at each of the `2^d` nodes, destinations
/// by the bit-flip law (5.1). The load factor of the cube is ρ = λp (5.2).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PoissonTraffic {
    law: BitFlip,
    lambda: f64,
}

impl PoissonTraffic {
    /// Traffic on the `d`-cube with rate `lambda` per node and flip probability `p`.
    ///
    /// # Errors
    ///
    /// [`TrafficError::BadDimension`] for `d` outside `1..=31`, [`TrafficError::BadRate`] for
    /// λ not positive and finite, [`TrafficError::ProbabilityOutOfRange`] for `p` outside
    /// `[0, 1]`.
    pub fn new(d: u32, lambda: f64, p: f64) -> Result<Self, TrafficError> {
        let law = BitFlip::new(d, p)?;
        if !(lambda.is_finite() && lambda > 0.0) {
            return Err(TrafficError::BadRate { lambda });
        }
        Ok(Self { law, lambda })
    }

    /// The dimension `d`.
    pub fn d(&self) -> u32 {
        self.law.d
    }

    /// Number of nodes, `2^d`.
    pub fn nodes(&self) -> u64 {
        1u64 << self.law.d
    }

    /// The rate λ per node.
    pub fn lambda(&self) -> f64 {
        self.lambda
    }

    /// The flip probability `p`.
    pub fn p(&self) -> f64 {
        self.law.p
    }

    /// The destination law.
    pub fn law(&self) -> BitFlip {
        self.law
    }

    /// The cube's load factor ρ = λp (5.2): the mean number of transmissions per arc per unit
    /// time under shortest-path routing. (On the butterfly it is λ·max{p, 1 − p}, (5.27).)
    pub fn rho(&self) -> f64 {
        self.lambda * self.law.p
    }

    /// Node `node`'s arrivals with the random stream [`node_rng`]`(seed, node)`.
    ///
    /// # Errors
    ///
    /// [`TrafficError::NodeOutOfRange`] for `node ≥ 2^d`.
    pub fn node_stream(&self, node: u32, seed: u64) -> Result<NodeArrivals, TrafficError> {
        self.node_stream_with(node, node_rng(seed, node))
    }

    /// Node `node`'s arrivals drawn from `rng`.
    ///
    /// # Errors
    ///
    /// [`TrafficError::NodeOutOfRange`] for `node ≥ 2^d`.
    pub fn node_stream_with<R: RngCore>(
        &self,
        node: u32,
        rng: R,
    ) -> Result<NodeArrivals<R>, TrafficError> {
        if u64::from(node) >= self.nodes() {
            return Err(TrafficError::NodeOutOfRange {
                node,
                nodes: self.nodes(),
            });
        }
        Ok(NodeArrivals::new(*self, node, rng))
    }

    /// Every node's arrivals in `[0, horizon)`, node `x` using [`node_rng`]`(seed, x)`,
    /// sorted by time (then by origin).
    ///
    /// # Errors
    ///
    /// [`TrafficError::BadHorizon`] for a horizon not positive and finite,
    /// [`TrafficError::TooManyArrivals`] when more than [`MAX_ARRIVALS`] are expected or
    /// drawn, [`TrafficError::OverMemoryBudget`] when the list would exceed
    /// [`crate::MEMORY_BUDGET`] (about 2^27 arrivals), checked before it is allocated.
    pub fn poisson(&self, horizon: f64, seed: u64) -> Result<Vec<Arrival>, TrafficError> {
        if !(horizon.is_finite() && horizon > 0.0) {
            return Err(TrafficError::BadHorizon { horizon });
        }
        let expected = self.lambda * self.nodes() as f64 * horizon;
        if expected > MAX_ARRIVALS as f64 {
            return Err(TrafficError::TooManyArrivals {
                expected: expected.min(u64::MAX as f64) as u64,
                max: MAX_ARRIVALS,
            });
        }
        // The list, sized for the expected count and 1% more; a list that grows past the
        // budget is refused as well (a reallocation doubles it).
        let bytes = |count: f64| (count * 1.01 + 16.0) * ARRIVAL_BYTES;
        let over_budget = |count: f64| TrafficError::OverMemoryBudget {
            what: "poisson arrivals",
            processors: self.nodes() as u32,
            count: count as u64,
            estimate: bytes(count).min(u64::MAX as f64) as u64,
            max: MEMORY_BUDGET,
        };
        if bytes(expected) > MEMORY_BUDGET as f64 {
            return Err(over_budget(expected));
        }
        let mut all = Vec::with_capacity((expected * 1.01) as usize + 16);
        for x in 0..self.nodes() as u32 {
            let mut s = self.node_stream(x, seed)?;
            while s.peek_time() < horizon {
                all.push(s.next_arrival());
            }
            if all.len() as u64 > MAX_ARRIVALS {
                return Err(TrafficError::TooManyArrivals {
                    expected: all.len() as u64,
                    max: MAX_ARRIVALS,
                });
            }
            if 2.0 * bytes(all.len() as f64) > MEMORY_BUDGET as f64 {
                return Err(over_budget(all.len() as f64));
            }
        }
        all.sort_by(|a, b| a.time.total_cmp(&b.time).then(a.src.cmp(&b.src)));
        Ok(all)
    }

    /// Slotted batches (§5.4): at each time `kτ`, `k = 0 .. slots − 1`, every node generates
    /// a Poisson(λτ) batch. The batch of node `x` at `kτ` is the part of its continuous
    /// stream ([`node_rng`]`(seed, x)`) in `[kτ, (k + 1)τ)`, advanced to `kτ` (the thesis'
    /// coupling (5.19)). The list is sorted by slot; **within a slot the arrivals of all
    /// nodes are in uniformly random order** (one shuffle per slot, drawn from a generator
    /// derived from the seed on a PCG stream no node uses), so a simulator that breaks ties by
    /// list position breaks them fairly at random. Times are `k / m` with `m = 1/τ`.
    ///
    /// # Errors
    ///
    /// [`TrafficError::BadSlot`] unless `1/τ` is a positive integer (within `1e−9`),
    /// [`TrafficError::BadHorizon`] for `slots = 0`, [`TrafficError::TooManyArrivals`] as for
    /// [`poisson`](Self::poisson).
    pub fn slotted(&self, tau: f64, slots: u64, seed: u64) -> Result<Vec<Arrival>, TrafficError> {
        let m = slots_per_unit(tau)?;
        if slots == 0 {
            return Err(TrafficError::BadHorizon { horizon: 0.0 });
        }
        let horizon = slots as f64 / m as f64;
        let mut all = self.poisson(horizon, seed)?;
        for a in &mut all {
            // The slot of `time`: floor(time · m), kept below `slots` against rounding.
            let k = ((a.time * m as f64).floor() as u64).min(slots - 1);
            a.time = k as f64 / m as f64;
        }
        // `poisson` sorted by time, so slots are contiguous; shuffle each.
        let mut rng = shuffle_rng(seed);
        let mut i = 0;
        while i < all.len() {
            let t = all[i].time;
            let j = i + all[i..].iter().take_while(|a| a.time == t).count();
            all[i..j].shuffle(&mut rng);
            i = j;
        }
        Ok(all)
    }
}

/// One node's arrivals, lazily and in increasing time: an infinite iterator.
///
/// The stream draws, in order: the first inter-arrival time; then for each arrival its
/// destination ([`BitFlip::sample`]) and the next inter-arrival time. An inter-arrival time is
/// `−ln(1 − U)/λ` with `U` uniform in `[0, 1)` (`rng.random::<f64>()`).
#[derive(Debug, Clone)]
pub struct NodeArrivals<R = Pcg64> {
    rng: R,
    law: BitFlip,
    src: u32,
    inv_lambda: f64,
    next: f64,
}

impl<R: RngCore> NodeArrivals<R> {
    fn new(traffic: PoissonTraffic, src: u32, mut rng: R) -> Self {
        let inv_lambda = 1.0 / traffic.lambda;
        let next = exp_gap(&mut rng, inv_lambda);
        Self {
            rng,
            law: traffic.law,
            src,
            inv_lambda,
            next,
        }
    }

    /// The origin node.
    pub fn src(&self) -> u32 {
        self.src
    }

    /// The time of the next arrival.
    pub fn peek_time(&self) -> f64 {
        self.next
    }

    /// The next arrival (the stream never ends).
    pub fn next_arrival(&mut self) -> Arrival {
        let time = self.next;
        let dst = self.law.sample(self.src, &mut self.rng);
        self.next = time + exp_gap(&mut self.rng, self.inv_lambda);
        Arrival {
            time,
            src: self.src,
            dst,
        }
    }
}

impl<R: RngCore> Iterator for NodeArrivals<R> {
    type Item = Arrival;

    fn next(&mut self) -> Option<Arrival> {
        Some(self.next_arrival())
    }
}

/// The random stream of node `node` in a run seeded with `seed`: a `Pcg64` on stream
/// (increment) `node`, its state a SplitMix64 hash of `(seed, node)`. Distinct nodes get
/// distinct PCG streams, so their sequences never coincide.
pub fn node_rng(seed: u64, node: u32) -> Pcg64 {
    let a = splitmix64(seed ^ splitmix64(u64::from(node)));
    let b = splitmix64(a ^ 0x6a09_e667_f3bc_c909);
    Pcg64::new((u128::from(a) << 64) | u128::from(b), u128::from(node))
}

/// The generator of the slot shuffles of [`PoissonTraffic::slotted`] (stream `2^32`, beyond
/// every node's).
fn shuffle_rng(seed: u64) -> Pcg64 {
    let a = splitmix64(seed ^ 0xbb67_ae85_84ca_a73b);
    Pcg64::new(u128::from(a) << 64 | u128::from(splitmix64(a)), 1u128 << 32)
}

/// SplitMix64's finaliser (Steele, Lea and Flood).
fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Refuses a list of about `expected` generated packets of `elem` bytes each before it is
/// allocated: more than [`MAX_ARRIVALS`], or more than [`MEMORY_BUDGET`] bytes (sized for the
/// expected count and 1% more). `drawn` lists are re-checked while they grow
/// ([`check_drawn`]), since a reallocation doubles them.
fn check_expected(
    what: &'static str,
    nodes: u64,
    expected: f64,
    elem: usize,
) -> Result<(), TrafficError> {
    if expected.is_nan() || expected > MAX_ARRIVALS as f64 {
        return Err(TrafficError::TooManyArrivals {
            expected: if expected.is_nan() {
                u64::MAX
            } else {
                expected.min(u64::MAX as f64) as u64
            },
            max: MAX_ARRIVALS,
        });
    }
    let estimate = (expected * 1.01 + 16.0) * elem as f64;
    if estimate > MEMORY_BUDGET as f64 {
        return Err(TrafficError::OverMemoryBudget {
            what,
            processors: u32::try_from(nodes).unwrap_or(u32::MAX),
            count: expected as u64,
            estimate: estimate as u64,
            max: MEMORY_BUDGET,
        });
    }
    Ok(())
}

/// The check of [`check_expected`] on a list being drawn, `len` packets so far: a list may
/// outgrow its expectation by chance, never the limits.
fn check_drawn(
    what: &'static str,
    nodes: u64,
    len: usize,
    elem: usize,
) -> Result<(), TrafficError> {
    if len as u64 > MAX_ARRIVALS {
        return Err(TrafficError::TooManyArrivals {
            expected: len as u64,
            max: MAX_ARRIVALS,
        });
    }
    // Twice: the next reallocation doubles the list.
    check_expected(what, nodes, 2.0 * len as f64, elem)
}

/// Poisson births of `nodes` nodes at rate `rate` each in `[0, horizon)`, drawn from **one**
/// generator `rng` node by node (node 0's whole stream first, then node 1's, …), every birth
/// followed by the draws of its `tag` (a tree, a label: whatever the caller draws per
/// packet); merged in time as (time, origin, tag), equal times in node order.
///
/// This is the broadcast schemes' source (Stamoulis chapters 6–7: every node generates
/// broadcasts by a Poisson process); the routing simulators use one stream per node
/// ([`PoissonTraffic::node_stream`]) so that they can pull arrivals lazily. Gaps are
/// `−ln(1 − U)/rate` (the division, not a multiplication by `1/rate`, fixes the rounding and
/// so the tables).
///
/// ```
/// use fatnet_traffic::arrivals::shared_stream_births;
/// use rand::SeedableRng;
///
/// let mut rng = rand_pcg::Pcg64::seed_from_u64(1);
/// let births = shared_stream_births(4, 0.5, 100.0, &mut rng, |_| ()).unwrap();
/// assert!(births.windows(2).all(|w| w[0].0 <= w[1].0));
/// assert!(births.iter().all(|&(t, x, ())| (0.0..100.0).contains(&t) && x < 4));
/// // About rate × nodes × horizon = 200 births.
/// assert!((120..280).contains(&births.len()));
/// ```
pub fn shared_stream_births<R: Rng + ?Sized, T>(
    nodes: u32,
    rate: f64,
    horizon: f64,
    rng: &mut R,
    mut tag: impl FnMut(&mut R) -> T,
) -> Result<Vec<(f64, u32, T)>, TrafficError> {
    if !(horizon.is_finite() && horizon > 0.0) {
        return Err(TrafficError::BadHorizon { horizon });
    }
    if !(rate.is_finite() && rate > 0.0) {
        return Err(TrafficError::BadRate { lambda: rate });
    }
    const WHAT: &str = "poisson births";
    let elem = std::mem::size_of::<(f64, u32, T)>();
    check_expected(
        WHAT,
        u64::from(nodes),
        rate * f64::from(nodes) * horizon,
        elem,
    )?;
    let mut births = Vec::new();
    for origin in 0..nodes {
        let mut t = 0.0;
        loop {
            t += -(1.0 - rng.random::<f64>()).ln() / rate;
            if t >= horizon {
                break;
            }
            births.push((t, origin, tag(rng)));
        }
        check_drawn(WHAT, u64::from(nodes), births.len(), elem)?;
    }
    births.sort_by(|a, b| a.0.total_cmp(&b.0));
    Ok(births)
}

/// Stamoulis' slotted arrivals on `2^d` nodes (thesis §5.4) from **one** generator, as
/// (slot, origin, destination): at every slot boundary `0..slots`, node `x` generates a
/// Poisson(`lambda`) batch (drawn by inversion of its distribution function, at most 10,000
/// packets), each packet going to `x` with every one of the `d` address bits flipped with
/// probability `p` (5.1). Draws are made slot by slot, node by node, packet by packet (the
/// count, then the `d` flips) from `rng`. A third layout beside the per-node streams
/// ([`PoissonTraffic`]) and [`shared_stream_births`]: the packet engine's up-front
/// injections for the `stamoulis/greedy` table and its equivalence test with `slotted_cube`.
///
/// # Errors
///
/// [`TrafficError::BadDimension`] for `d` above [`MAX_DIMENSION`], [`TrafficError::BadRate`] unless `lambda` is
/// positive and finite, [`TrafficError::TooManyArrivals`] or
/// [`TrafficError::OverMemoryBudget`] when the expected list (`lambda · 2^d · slots`) is over
/// [`MAX_ARRIVALS`] or [`MEMORY_BUDGET`], checked before drawing and again while drawing.
///
/// ```
/// use fatnet_traffic::arrivals::inversion_batches;
/// use rand::SeedableRng;
///
/// let mut rng = rand_pcg::Pcg64::seed_from_u64(3);
/// let a = inversion_batches(3, 0.5, 0.5, 1_000, &mut rng).unwrap();
/// assert!(a.windows(2).all(|w| w[0].0 <= w[1].0));
/// // About λ · 2^d · slots = 4,000 packets.
/// assert!((3_600..4_400).contains(&a.len()));
/// ```
pub fn inversion_batches<R: Rng + ?Sized>(
    d: u32,
    lambda: f64,
    p: f64,
    slots: u64,
    rng: &mut R,
) -> Result<Vec<(u64, u32, u32)>, TrafficError> {
    if d > MAX_DIMENSION {
        return Err(TrafficError::BadDimension {
            d,
            max: MAX_DIMENSION,
        });
    }
    if !(lambda.is_finite() && lambda > 0.0) {
        return Err(TrafficError::BadRate { lambda });
    }
    const WHAT: &str = "slotted arrivals";
    let elem = std::mem::size_of::<(u64, u32, u32)>();
    let nodes = 1u64 << d;
    check_expected(WHAT, nodes, lambda * nodes as f64 * slots as f64, elem)?;
    let poisson = |rng: &mut R| {
        let (mut k, mut pk) = (0u32, (-lambda).exp());
        let mut cdf = pk;
        let u: f64 = rng.random();
        while u > cdf && k < 10_000 {
            k += 1;
            pk *= lambda / f64::from(k);
            cdf += pk;
        }
        k
    };
    let mut arrivals = Vec::new();
    for slot in 0..slots {
        for x in 0..1u32 << d {
            for _ in 0..poisson(rng) {
                let mut z = x;
                for b in 0..d {
                    if rng.random::<f64>() < p {
                        z ^= 1 << b;
                    }
                }
                arrivals.push((slot, x, z));
            }
        }
        check_drawn(WHAT, nodes, arrivals.len(), elem)?;
    }
    Ok(arrivals)
}

fn exp_gap<R: RngCore + ?Sized>(rng: &mut R, inv_lambda: f64) -> f64 {
    -(1.0 - rng.random::<f64>()).ln() * inv_lambda
}

/// Inlined: a packet's destination draw calls it, from the engines' crates.
#[inline]
fn mask(d: u32) -> u32 {
    if d >= 32 { u32::MAX } else { (1u32 << d) - 1 }
}

fn check_dimension(d: u32) -> Result<(), TrafficError> {
    if (1..=MAX_DIMENSION).contains(&d) {
        Ok(())
    } else {
        Err(TrafficError::BadDimension {
            d,
            max: MAX_DIMENSION,
        })
    }
}

/// `m = 1/τ` when it is a positive integer.
fn slots_per_unit(tau: f64) -> Result<u64, TrafficError> {
    let bad = TrafficError::BadSlot { tau };
    if !(tau.is_finite() && tau > 0.0 && tau <= 1.0) {
        return Err(bad);
    }
    let m = (1.0 / tau).round();
    if m < 1.0 || m > (1u64 << 32) as f64 || (m * tau - 1.0).abs() > 1e-9 {
        return Err(bad);
    }
    Ok(m as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn rng(seed: u64) -> Pcg64 {
        Pcg64::seed_from_u64(seed)
    }

    #[test]
    fn bad_parameters_are_typed_errors() {
        assert!(matches!(
            PoissonTraffic::new(0, 1.0, 0.5),
            Err(TrafficError::BadDimension { d: 0, max: 31 })
        ));
        assert!(matches!(
            PoissonTraffic::new(32, 1.0, 0.5),
            Err(TrafficError::BadDimension { d: 32, .. })
        ));
        for lambda in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            assert!(matches!(
                PoissonTraffic::new(3, lambda, 0.5),
                Err(TrafficError::BadRate { .. })
            ));
        }
        for p in [-0.1, 1.5, f64::NAN] {
            assert!(matches!(
                PoissonTraffic::new(3, 1.0, p),
                Err(TrafficError::ProbabilityOutOfRange { .. })
            ));
        }
        let t = PoissonTraffic::new(3, 1.0, 0.5).unwrap();
        for h in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            assert!(matches!(
                t.poisson(h, 1),
                Err(TrafficError::BadHorizon { .. })
            ));
        }
        for tau in [0.0, 0.3, 1.5, f64::NAN, -0.5] {
            assert!(matches!(
                t.slotted(tau, 10, 1),
                Err(TrafficError::BadSlot { .. })
            ));
        }
        assert!(matches!(
            t.slotted(0.5, 0, 1),
            Err(TrafficError::BadHorizon { .. })
        ));
        assert!(matches!(
            t.node_stream(8, 1),
            Err(TrafficError::NodeOutOfRange { node: 8, nodes: 8 })
        ));
        let big = PoissonTraffic::new(20, 1000.0, 0.5).unwrap();
        assert!(matches!(
            big.poisson(1e6, 1),
            Err(TrafficError::TooManyArrivals { .. })
        ));
        // Under MAX_ARRIVALS (2^31) but 16 bytes each: 32 GB.
        assert!(matches!(
            big.poisson(1.0, 1),
            Err(TrafficError::OverMemoryBudget {
                what: "poisson arrivals",
                processors: 1_048_576,
                count: 1_048_576_000,
                ..
            })
        ));
    }

    /// Each bit flips with probability p, independently: the 2^d patterns have the law
    /// p^H (1 − p)^(d − H) (Lemma 5.1), checked by a chi-square statistic.
    #[test]
    fn bit_flip_law_matches_5_1() {
        let d = 3;
        for p in [0.2, 0.5, 0.9] {
            let law = BitFlip::new(d, p).unwrap();
            let mut r = rng(3);
            let n = 200_000;
            let mut counts = [0u64; 8];
            for i in 0..n {
                let x = (i % 8) as u32;
                counts[(law.sample(x, &mut r) ^ x) as usize] += 1;
            }
            let chi2: f64 = (0..8u32)
                .map(|y| {
                    let h = y.count_ones() as i32;
                    let e = n as f64 * p.powi(h) * (1.0 - p).powi(d as i32 - h);
                    (counts[y as usize] as f64 - e).powi(2) / e
                })
                .sum();
            // 7 degrees of freedom: P(χ² > 24.3) ≈ 0.001.
            assert!(chi2 < 24.3, "p = {p}: χ² = {chi2}, counts {counts:?}");
        }
        let mut r = rng(1);
        assert_eq!(BitFlip::new(5, 0.0).unwrap().sample(9, &mut r), 9);
        assert_eq!(BitFlip::new(5, 1.0).unwrap().sample(9, &mut r), 9 ^ 31);
    }

    /// Per-node counts in a window are Poisson(λh): mean and variance λh; gaps are sorted.
    #[test]
    fn poisson_counts_have_poisson_moments() {
        let t = PoissonTraffic::new(6, 0.7, 0.25).unwrap();
        let h = 50.0;
        let a = t.poisson(h, 11).unwrap();
        assert!(a.windows(2).all(|w| w[0].time <= w[1].time));
        assert!(
            a.iter()
                .all(|x| x.time >= 0.0 && x.time < h && x.src < 64 && x.dst < 64)
        );
        let mut per = [0f64; 64];
        for x in &a {
            per[x.src as usize] += 1.0;
        }
        let mean = per.iter().sum::<f64>() / 64.0;
        let var = per.iter().map(|c| (c - mean).powi(2)).sum::<f64>() / 63.0;
        assert!((mean - 35.0).abs() < 3.0, "mean {mean}");
        assert!((var / 35.0 - 1.0).abs() < 0.5, "variance {var}");
        let hops = a.iter().map(|x| (x.src ^ x.dst).count_ones()).sum::<u32>() as f64;
        assert!((hops / a.len() as f64 - 1.5).abs() < 0.1);
    }

    /// A node's arrivals do not depend on the other nodes or on how the stream is read.
    #[test]
    fn node_streams_are_independent_of_reading_order() {
        let t = PoissonTraffic::new(4, 1.3, 0.5).unwrap();
        let a = t.poisson(20.0, 5).unwrap();
        let mine: Vec<Arrival> = a.iter().copied().filter(|x| x.src == 9).collect();
        let s: Vec<Arrival> = t
            .node_stream(9, 5)
            .unwrap()
            .take_while(|x| x.time < 20.0)
            .collect();
        assert_eq!(mine, s);
        assert_ne!(a, t.poisson(20.0, 6).unwrap());
    }

    /// Slotted batches: times on the grid, per-slot counts Poisson(λτ), the same packets as
    /// the continuous stream advanced to their slot.
    #[test]
    fn slotted_batches_are_the_advanced_stream() {
        let t = PoissonTraffic::new(3, 2.0, 0.5).unwrap();
        let slots = 4000;
        let s = t.slotted(0.5, slots, 8).unwrap();
        let c = t.poisson(2000.0, 8).unwrap();
        assert_eq!(s.len(), c.len());
        assert!(s.windows(2).all(|w| w[0].time <= w[1].time));
        assert!(s.iter().all(|a| (a.time * 2.0).fract() == 0.0));
        let mut per_slot = vec![0f64; slots as usize * 8];
        for a in &s {
            per_slot[(a.time * 2.0) as usize * 8 + a.src as usize] += 1.0;
        }
        let mean = per_slot.iter().sum::<f64>() / per_slot.len() as f64;
        let var =
            per_slot.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (per_slot.len() - 1) as f64;
        assert!(
            (mean - 1.0).abs() < 0.03 && (var - 1.0).abs() < 0.05,
            "{mean} {var}"
        );
        // Same multiset of (slot, src, dst) as the advanced continuous arrivals.
        let key = |a: &Arrival| ((a.time * 2.0).floor() as u64, a.src, a.dst);
        let mut ks: Vec<_> = s.iter().map(key).collect();
        let mut kc: Vec<_> = c.iter().map(key).collect();
        ks.sort_unstable();
        kc.sort_unstable();
        assert_eq!(ks, kc);
        assert_eq!(s, t.slotted(0.5, slots, 8).unwrap());
    }

    /// The single-generator lists are refused with their size before anything is drawn
    /// (these used to allocate until memory ran out), and checked again while drawing.
    #[test]
    fn single_generator_lists_are_bounded() {
        let mut rng = Pcg64::seed_from_u64(1);
        let e = shared_stream_births(1 << 20, 1.0, 1e6, &mut rng, |_| ()).unwrap_err();
        assert!(matches!(e, TrafficError::TooManyArrivals { .. }), "{e}");
        let e = shared_stream_births(1 << 10, 1.0, 1e6, &mut rng, |_| ()).unwrap_err();
        assert!(
            matches!(
                e,
                TrafficError::OverMemoryBudget {
                    count: 1_024_000_000,
                    ..
                }
            ),
            "{e}"
        );
        let e = shared_stream_births(4, f64::NAN, 10.0, &mut rng, |_| ()).unwrap_err();
        assert!(matches!(e, TrafficError::BadRate { .. }), "{e}");
        let e = shared_stream_births(4, 1.0, f64::INFINITY, &mut rng, |_| ()).unwrap_err();
        assert!(matches!(e, TrafficError::BadHorizon { .. }), "{e}");
        let e = inversion_batches(31, 1.0, 0.5, u64::MAX, &mut rng).unwrap_err();
        assert!(matches!(e, TrafficError::TooManyArrivals { .. }), "{e}");
        let e = inversion_batches(20, 1.0, 0.5, 200, &mut rng).unwrap_err();
        assert!(matches!(e, TrafficError::OverMemoryBudget { .. }), "{e}");
        let e = inversion_batches(40, 1.0, 0.5, 1, &mut rng).unwrap_err();
        assert!(matches!(e, TrafficError::BadDimension { d: 40, .. }), "{e}");
        // Within the limits, the lists are drawn as before.
        assert!(
            !inversion_batches(2, 0.5, 0.5, 10, &mut rng)
                .unwrap()
                .is_empty()
        );
    }
}
