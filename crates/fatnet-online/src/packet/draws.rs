//! Keyed draws: the random choices a run makes while it runs (RR starts, RP choices, the
//! same-step reading's rotations), each from its own short stream keyed by (run key, step,
//! id, purpose) instead of the next values of one sequential generator.
//!
//! A sequential stream ties every draw to the number of draws made before it, so the nodes
//! of a step must be decided in one fixed order on one thread. A keyed draw depends only on
//! its key: nodes can be decided in any order, or split over threads, and the run is the same.
//! This is the counter-based design of Salmon et al., "Parallel random numbers: as easy as
//! 1, 2, 3" (SC 2011), with SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom
//! number generators", OOPSLA 2014; the finaliser is Stafford's "Mix13") as the keyed
//! function: the key is mixed twice (run key and step, then id and purpose), and the stream's
//! values are the mixes of the key plus multiples of the golden-ratio increment. Integers in a
//! range come from `rand`'s exact uniform sampling (`Rng::random_range`, rejection included)
//! on that stream, so every draw is uniform, not merely nearly so.
//!
//! The run key is drawn from the run's `Pcg64` after the draws made before the run starts
//! (priorities and source routes, which stay sequential): same seed, same run, for any order
//! of evaluation.

use rand::{Rng, RngCore};

/// SplitMix64's increment, `⌊2^64/φ⌋` rounded to odd.
const GOLDEN: u64 = 0x9e37_79b9_7f4a_7c15;

/// Stafford's Mix13, SplitMix64's output function.
#[inline]
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// What a draw is for: draws for different purposes with the same step and id are
/// independent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Purpose {
    /// A node's round-robin start (id: the node).
    RoundRobin = 0,
    /// A head's random up link (id: its input).
    RandomPath = 1,
    /// The same-step reading's order of heads woken together (id: the link that woke them).
    Rotation = 2,
}

/// The keyed draws of one run.
#[derive(Clone, Copy, Debug)]
pub(super) struct Draws {
    key: u64,
}

impl Draws {
    /// The draws of the run whose key is `key`.
    pub(super) fn new(key: u64) -> Self {
        Self { key }
    }

    /// The draws of step `step`.
    #[inline]
    pub(super) fn at(&self, step: u64) -> StepDraws {
        StepDraws(mix(self.key ^ mix(step.wrapping_mul(GOLDEN))))
    }

    /// A uniform integer in `0..n` (`n >= 1`) for `purpose` of `id` at step `step`.
    #[cfg(test)]
    fn below(&self, step: u64, id: u32, purpose: Purpose, n: u32) -> u32 {
        self.at(step).below(id, purpose, n)
    }
}

/// The keyed draws of one step of one run ([`Draws::at`]).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct StepDraws(u64);

impl StepDraws {
    /// A uniform integer in `0..n` (`n >= 1`) for `purpose` of `id`.
    #[inline]
    pub(super) fn below(&self, id: u32, purpose: Purpose, n: u32) -> u32 {
        debug_assert!(n >= 1);
        let mut s = Stream(mix(self.0 ^ ((u64::from(id) << 2) | purpose as u64)));
        s.random_range(0..n)
    }
}

/// A SplitMix64 stream from a key.
struct Stream(u64);

impl RngCore for Stream {
    #[inline]
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(GOLDEN);
        mix(self.0)
    }
    #[inline]
    fn next_u32(&mut self) -> u32 {
        (self.next_u64() >> 32) as u32
    }
    fn fill_bytes(&mut self, dst: &mut [u8]) {
        for chunk in dst.chunks_mut(8) {
            let v = self.next_u64().to_le_bytes();
            chunk.copy_from_slice(&v[..chunk.len()]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_draw_is_a_function_of_its_key() {
        let d = Draws::new(7);
        let a: Vec<u32> = (0..50)
            .map(|i| d.below(i, 3, Purpose::RoundRobin, 10))
            .collect();
        let b: Vec<u32> = (0..50)
            .rev()
            .map(|i| d.below(i, 3, Purpose::RoundRobin, 10))
            .rev()
            .collect();
        assert_eq!(a, b);
        assert!(a.iter().all(|&x| x < 10));
        // Another run key, step, id or purpose gives other values.
        let other = |f: &dyn Fn(u64) -> u32| (0..50).map(f).collect::<Vec<u32>>();
        assert_ne!(
            a,
            other(&|i| Draws::new(8).below(i, 3, Purpose::RoundRobin, 10))
        );
        assert_ne!(a, other(&|i| d.below(i + 50, 3, Purpose::RoundRobin, 10)));
        assert_ne!(a, other(&|i| d.below(i, 4, Purpose::RoundRobin, 10)));
        assert_ne!(a, other(&|i| d.below(i, 3, Purpose::RandomPath, 10)));
    }

    /// Pearson's χ² over the cells of `n` values: uniform per key sequence (steps), per id
    /// and in pairs (a step's draw against the next step's), at the 10^-6 level.
    #[test]
    fn draws_are_uniform_and_pairwise_independent() {
        let d = Draws::new(0x5eed);
        let chi2 = |counts: &[u64], expected: f64| -> f64 {
            counts
                .iter()
                .map(|&c| (c as f64 - expected).powi(2) / expected)
                .sum()
        };
        for n in [2u32, 3, 4, 7, 8] {
            let draws = 60_000u64;
            let mut by_step = vec![0u64; n as usize];
            let mut by_id = vec![0u64; n as usize];
            let mut pairs = vec![0u64; (n * n) as usize];
            for i in 0..draws {
                let x = d.below(i, 11, Purpose::RoundRobin, n);
                let y = d.below(i + 1, 11, Purpose::RoundRobin, n);
                by_step[x as usize] += 1;
                pairs[(x * n + y) as usize] += 1;
                by_id[d.below(5, i as u32, Purpose::RandomPath, n) as usize] += 1;
            }
            // The χ² quantile at 1 − 10^-6 by Wilson and Hilferty's approximation (z = 4.753;
            // above the exact quantile for small df: 27.5 against 23.9 at df = 1).
            let bound = |df: u32| {
                let h = 2.0 / (9.0 * f64::from(df));
                f64::from(df) * (1.0 - h + 4.753 * h.sqrt()).powi(3)
            };
            let e = draws as f64 / f64::from(n);
            assert!(chi2(&by_step, e) < bound(n - 1), "n = {n}: {by_step:?}");
            assert!(chi2(&by_id, e) < bound(n - 1), "n = {n}: {by_id:?}");
            let e2 = draws as f64 / f64::from(n * n);
            assert!(chi2(&pairs, e2) < bound(n * n - 1), "n = {n} pairs");
        }
    }
}
