//! The engines' tie order: a Fisher–Yates shuffle whose draws are `rand`'s
//! `rng.random_range(0..=i)` for `i = len − 1, …, 1`, so a run's random stream does not depend
//! on how the shuffle is written.
//!
//! Each index comes from the sampler that `Rng::random_range` calls for an inclusive `usize`
//! range (`UniformUsize::sample_single_inclusive`), called directly: it inlines, where
//! `random_range` (generic, `#[track_caller]`) stayed a call per item, a fifth of the work of
//! an output-queued broadcast run (Stamoulis' Figure 7.6).

use rand::RngCore;
use rand::distr::uniform::{UniformSampler, UniformUsize};

/// Shuffles `items` uniformly at random, with the draws of
/// `for i in (1..len).rev() { items.swap(i, rng.random_range(0..=i)) }`.
#[inline]
pub(crate) fn shuffle<T, R: RngCore>(items: &mut [T], rng: &mut R) {
    for i in (1..items.len()).rev() {
        let j = UniformUsize::sample_single_inclusive(0, i, rng).expect("0..=i is not empty");
        items.swap(i, j);
    }
}

#[cfg(test)]
mod tests {
    use super::shuffle;
    use rand::{Rng, SeedableRng};
    use rand_pcg::Pcg64;

    /// The same order as the loop over `random_range`, for lengths up to a few thousand, and
    /// the generators left in the same state.
    #[test]
    fn draws_as_random_range_does() {
        for seed in 0..20u64 {
            for len in [0usize, 1, 2, 3, 10, 255, 4_097] {
                let (mut a, mut b) = (Pcg64::seed_from_u64(seed), Pcg64::seed_from_u64(seed));
                let mut ours: Vec<usize> = (0..len).collect();
                let mut theirs = ours.clone();
                shuffle(&mut ours, &mut a);
                for i in (1..len).rev() {
                    theirs.swap(i, b.random_range(0..=i));
                }
                assert_eq!(ours, theirs, "seed {seed}, len {len}");
                assert_eq!(a.random::<u64>(), b.random::<u64>());
            }
        }
    }
}
