//! The engines' tie orders, each drawing exactly as the `rand` call the engine was first
//! written with, so that a run's random stream does not depend on how the shuffle is written:
//! - [`shuffle`]: a Fisher–Yates shuffle with the draws of `rng.random_range(0..=i)` for
//!   `i = len − 1, …, 1` (the output-queued engine, the indirect broadcast);
//! - [`shuffle_as_slice_random`]: `rand`'s `SliceRandom::shuffle` (the slotted engine).
//!
//! In [`shuffle`], each index comes from the sampler that `Rng::random_range` calls for an
//! inclusive `usize` range (`UniformUsize::sample_single_inclusive`), called directly: it
//! inlines, where `random_range` (generic, `#[track_caller]`) stayed a call per item, a fifth
//! of the work of an output-queued broadcast run (Stamoulis' Figure 7.6).

use crate::divide::Divisor;
use rand::distr::uniform::{UniformSampler, UniformUsize};
use rand::seq::SliceRandom;
use rand::{Rng, RngCore};
use rand_pcg::Pcg64;

/// Shuffles `items` uniformly at random, with the draws of
/// `for i in (1..len).rev() { items.swap(i, rng.random_range(0..=i)) }`.
#[inline]
pub(crate) fn shuffle<T, R: RngCore>(items: &mut [T], rng: &mut R) {
    for i in (1..items.len()).rev() {
        let j = UniformUsize::sample_single_inclusive(0, i, rng).expect("0..=i is not empty");
        items.swap(i, j);
    }
}

/// Shuffles `v` exactly as `rand`'s [`SliceRandom::shuffle`] does: the same draws from `rng`
/// and the same permutation, so that every run keeps its results.
///
/// **Why not `rand`'s own.** The slotted engine's arrival-order shuffles take a tenth of a run
/// or more, and most of that went into a chain of hardware divisions, one per element, each
/// waiting for the last. `rand` (0.9) draws the indices of its Fisher–Yates shuffle (position
/// `i` swapped with a uniform index in `0..=i`, `i` increasing) as the mixed-radix digits of
/// one uniform draw in `0..(i + 1)(i + 2)⋯(i + k)`, for as many factors as fit a `u32`; here
/// the same digits come out of multiplications by precomputed reciprocals ([`div_rem`],
/// [`Divisor`]). The test `slice_random_shuffle_is_rands` holds this to `rand`'s shuffle,
/// permutation and generator state, for every length up to 300 and two long ones; a `rand`
/// that drew differently would fail it.
pub(crate) fn shuffle_as_slice_random<T: Copy>(v: &mut [T], rng: &mut Pcg64) {
    let len = v.len();
    if len <= 1 {
        return;
    }
    if len >= u32::MAX as usize {
        // `rand` draws otherwise there; never met here.
        v.shuffle(rng);
        return;
    }
    // Position 0 is swapped with itself without a draw.
    let mut chunk = 0u32;
    let mut digits = 0u32;
    for i in 1..len {
        let radix = i as u32 + 1;
        if digits == 0 {
            let (bound, count) = chunk_bound(radix);
            chunk = rng.random_range(..bound);
            digits = count;
        }
        digits -= 1;
        let j = if digits == 0 {
            chunk
        } else {
            let (q, r) = div_rem(chunk, radix);
            chunk = q;
            r
        } as usize;
        v.swap(i, j);
    }
}

/// The range of `rand`'s next draw in [`shuffle_as_slice_random`] at radix `m`: the product
/// `m (m + 1)⋯` of as many factors as fit a `u32`, and their number. Radix 2, where every shuffle starts and
/// most end (2 · 3 ⋯ 12: lengths up to 12 take one draw), is a constant, as in `rand`.
#[inline]
fn chunk_bound(m: u32) -> (u32, u32) {
    const FROM_2: (u32, u32) = product_bound(2);
    if m == 2 { FROM_2 } else { product_bound(m) }
}

/// [`chunk_bound`], computed.
const fn product_bound(m: u32) -> (u32, u32) {
    let mut product = m;
    let mut next = m + 1;
    while let Some(p) = product.checked_mul(next) {
        product = p;
        next += 1;
    }
    (product, next - m)
}

/// The divisors `0..=64` of [`div_rem`] (entries 0 and 1 unused).
const RADICES: [Divisor; 65] = {
    let mut r = [Divisor::new(1); 65];
    let mut n = 2;
    while n < r.len() {
        r[n] = Divisor::new(n as u32);
        n += 1;
    }
    r
};

/// `(a / n, a % n)` for `n ≥ 2`; for `n ≤ 64` by multiplication ([`Divisor`]), above by the
/// hardware division.
#[inline]
fn div_rem(a: u32, n: u32) -> (u32, u32) {
    match RADICES.get(n as usize) {
        Some(&v) if n >= 2 => v.div_rem(a),
        _ => (a / n, a % n),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

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

    #[test]
    fn slice_random_shuffle_is_rands() {
        for seed in 0..20u64 {
            let mut ours = Pcg64::seed_from_u64(seed);
            let mut theirs = Pcg64::seed_from_u64(seed);
            // Every length to 300 (one draw covers up to 12 radices at the start), and long
            // lists, past radix 65,536, where a draw covers one radix.
            for len in (0..=300usize).chain([1_000, 70_000]) {
                let mut a: Vec<usize> = (0..len).collect();
                let mut b = a.clone();
                shuffle_as_slice_random(&mut a, &mut ours);
                b.shuffle(&mut theirs);
                assert_eq!(a, b, "seed {seed}, length {len}");
            }
            assert_eq!(ours.random::<u64>(), theirs.random::<u64>(), "seed {seed}");
        }
    }

    #[test]
    fn div_rem_is_exact() {
        let mut rng = Pcg64::seed_from_u64(5);
        for n in 2..=70u32 {
            let edges = [0, 1, n - 1, n, n + 1, u32::MAX - 1, u32::MAX];
            let draws = (0..20_000).map(|_| rng.random::<u32>()).collect::<Vec<_>>();
            for a in edges.into_iter().chain(draws) {
                assert_eq!(div_rem(a, n), (a / n, a % n), "{a} / {n}");
            }
        }
    }
}
