//! Division of `u32` numerators by a divisor fixed for a run, by multiplication: the engines
//! divide in hot loops (a worm's message in the packet engine, the mixed-radix digits of the
//! slotted engine's shuffles), where a hardware division is a chain of tens of cycles.
//!
//! With `c = ⌈2^64 / n⌉`, for every `u32` `a` and `n ≥ 2` below `2^32`: `a / n = ⌊c·a / 2^64⌋`
//! and `a % n = ⌊(c·a mod 2^64)·n / 2^64⌋` (Lemire, Kaser and Kurz, "Faster remainder by
//! direct computation", 2019: a 64-bit multiplier is exact for 32-bit numerators).

/// A divisor `n ≥ 1` with its multiplier.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Divisor {
    n: u32,
    /// `⌈2^64 / n⌉` for `n ≥ 2`; 0 for `n = 1` (whose multiplier, `2^64`, has no `u64`).
    c: u64,
}

impl Divisor {
    /// `n` as a divisor; `n = 0` is refused by a panic (in a `const`, at compile time).
    pub(crate) const fn new(n: u32) -> Self {
        assert!(n >= 1, "division by zero");
        Divisor {
            n,
            c: if n == 1 { 0 } else { u64::MAX / n as u64 + 1 },
        }
    }

    /// `a / n`.
    #[inline(always)]
    pub(crate) fn quotient(self, a: u32) -> u32 {
        if self.n == 1 {
            a
        } else {
            ((u128::from(self.c) * u128::from(a)) >> 64) as u32
        }
    }

    /// `(a / n, a % n)`.
    #[inline(always)]
    pub(crate) fn div_rem(self, a: u32) -> (u32, u32) {
        if self.n == 1 {
            return (a, 0);
        }
        let q = (u128::from(self.c) * u128::from(a)) >> 64;
        let low = self.c.wrapping_mul(u64::from(a));
        let r = (u128::from(low) * u128::from(self.n)) >> 64;
        (q as u32, r as u32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_pcg::Pcg64;

    /// Against the hardware division: small divisors (the shuffles' radices), flit counts up
    /// to 65,535 (SPLIT's worms per message), large ones, each at the numerators' edges, the
    /// multiples' neighbours and random numerators.
    #[test]
    fn quotient_and_remainder_are_exact() {
        let mut rng = Pcg64::seed_from_u64(5);
        let divisors = (1..=300u32)
            .chain([
                1 << 10,
                1 << 15,
                65_535,
                65_536,
                1 << 20,
                3 << 29,
                u32::MAX - 1,
                u32::MAX,
            ])
            .chain((0..200).map(|_| rng.random_range(2..=u32::MAX)));
        for n in divisors.collect::<Vec<_>>() {
            let v = Divisor::new(n);
            let mut numerators = vec![0, 1, n - 1, n, n.wrapping_add(1), u32::MAX - 1, u32::MAX];
            let top = u32::MAX / n;
            numerators.extend([top, top / 2, top.saturating_sub(1)].map(|k| k * n));
            numerators.extend([top, top / 2].map(|k| (k * n).wrapping_sub(1)));
            numerators.extend((0..2_000).map(|_| rng.random::<u32>()));
            for a in numerators {
                assert_eq!(v.quotient(a), a / n, "{a} / {n}");
                assert_eq!(v.div_rem(a), (a / n, a % n), "{a} divrem {n}");
            }
        }
    }
}
