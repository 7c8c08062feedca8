//! Traffic generators: the workload families of the papers.
//!
//! | generator | paper | messages |
//! |---|---|---|
//! | [`random_permutation`] | Greenberg–Leiserson | `n`, a uniform permutation |
//! | [`complement`] | Greenberg–Oh §1.5 | `i -> n-1-i` |
//! | [`bit_reversal`] | classic | `i ->` bits of `i` reversed |
//! | [`transpose`] | classic | `(hi, lo) -> (lo, hi)` |
//! | [`many_to_one`] | Greenberg–Oh §1.5 | two hot spots, `0` and `n-1` |
//! | [`uniform`] | Greenberg–Oh "random instance" | `n`, uniform destinations |
//! | [`replicated_permutations`] | Greenberg–Leiserson "replicated λ′ times" | `k·n` |
//! | [`mesh_neighbours`] | Greenberg–Leiserson L2 | one per mesh edge direction |
//! | [`valiant`] | Valiant's two phases | `2·|base|` |
//! | [`bit_flip`] | Stamoulis (5.1) | `n`, each bit flipped w.p. `p` |
//!
//! Every generator checks its size before allocating: more than [`MAX_MESSAGES`] messages
//! is [`TrafficError::TooManyMessages`], more than [`crate::MEMORY_BUDGET`] bytes (the set and
//! the generator's scratch) is [`TrafficError::OverMemoryBudget`] with the estimate.
//!
//! Deterministic generators list the messages by source, `0..n`; see each function for
//! the order of the others. Randomized ones take `rng: &mut R` and consume it in a documented
//! order, so a seed fixes the output.

use rand::Rng;
use rand::seq::SliceRandom;

use crate::message::MAX_MESSAGES;
use crate::{MEMORY_BUDGET, Message, MessageSet, TrafficError};

fn at_least(what: &'static str, n: u32, min: u32) -> Result<(), TrafficError> {
    if n < min {
        Err(TrafficError::TooFewProcessors {
            what,
            processors: n,
            min,
        })
    } else {
        Ok(())
    }
}

/// `lg n` if `n >= 1` is a power of two.
fn log2_exact(pattern: &'static str, n: u32) -> Result<u32, TrafficError> {
    at_least(pattern, n, 1)?;
    if n.is_power_of_two() {
        Ok(n.trailing_zeros())
    } else {
        Err(TrafficError::NotPowerOfTwo {
            pattern,
            processors: n,
        })
    }
}

/// `k` with `n = 4^k`.
fn log4_exact(pattern: &'static str, n: u32) -> Result<u32, TrafficError> {
    at_least(pattern, n, 1)?;
    if n.is_power_of_two() && n.trailing_zeros().is_multiple_of(2) {
        Ok(n.trailing_zeros() / 2)
    } else {
        Err(TrafficError::NotPowerOfFour {
            pattern,
            processors: n,
        })
    }
}

/// Checks, before anything is allocated, that pattern `what` on `n` processors may make
/// `count` messages needing `bytes` bytes in all (the set and the generator's scratch).
///
/// # Errors
///
/// [`TrafficError::TooManyMessages`] above [`MAX_MESSAGES`], then
/// [`TrafficError::OverMemoryBudget`] above [`crate::MEMORY_BUDGET`].
fn check_count(what: &'static str, n: u32, count: u64, bytes: u128) -> Result<(), TrafficError> {
    if count > MAX_MESSAGES as u64 {
        return Err(TrafficError::TooManyMessages {
            count,
            max: MAX_MESSAGES as u64,
        });
    }
    if bytes > u128::from(MEMORY_BUDGET) {
        return Err(TrafficError::OverMemoryBudget {
            what,
            processors: n,
            count,
            estimate: u64::try_from(bytes).unwrap_or(u64::MAX),
            max: MEMORY_BUDGET,
        });
    }
    Ok(())
}

/// Bytes of one message of a set.
const MESSAGE_BYTES: u128 = std::mem::size_of::<Message>() as u128;

/// One message per processor: `i -> f(i)`.
///
/// # Errors
///
/// As [`check_count`] for `n` messages.
fn from_fn(
    what: &'static str,
    n: u32,
    mut f: impl FnMut(u32) -> u32,
) -> Result<MessageSet, TrafficError> {
    check_count(what, n, u64::from(n), u128::from(n) * MESSAGE_BYTES)?;
    Ok(MessageSet::from_valid(
        n,
        (0..n).map(|i| Message::new(i, f(i))).collect(),
    ))
}

/// Bytes [`permutation_unchecked`] needs for one permutation on `n` processors: the
/// messages and the shuffled destinations.
fn permutation_bytes(n: u32) -> u128 {
    u128::from(n) * (MESSAGE_BYTES + 4)
}

/// A uniformly random permutation: processor `i` sends one message to `π(i)`.
///
/// `π` is drawn with [`SliceRandom::shuffle`] of `0..n`, so fixed points (self-messages)
/// occur as they fall, about once per permutation on average. Messages are listed by source.
///
/// # Errors
///
/// [`TrafficError::TooFewProcessors`] if `n == 0`.
pub fn random_permutation<R: Rng + ?Sized>(
    n: u32,
    rng: &mut R,
) -> Result<MessageSet, TrafficError> {
    at_least("permutation", n, 1)?;
    check_count("permutation", n, u64::from(n), permutation_bytes(n))?;
    Ok(permutation_unchecked(n, rng))
}

fn permutation_unchecked<R: Rng + ?Sized>(n: u32, rng: &mut R) -> MessageSet {
    let mut dst: Vec<u32> = (0..n).collect();
    dst.shuffle(rng);
    MessageSet::from_valid(
        n,
        dst.into_iter()
            .zip(0..)
            .map(|(d, s)| Message::new(s, d))
            .collect(),
    )
}

/// The complement permutation of Greenberg and Oh: `i -> n-1-i`.
///
/// On a power-of-two `n` this complements every address bit, so every message crosses the
/// root of a fat-tree. For odd `n` the middle processor sends to itself.
///
/// # Errors
///
/// [`TrafficError::TooFewProcessors`] if `n == 0`.
pub fn complement(n: u32) -> Result<MessageSet, TrafficError> {
    at_least("complement", n, 1)?;
    from_fn("complement", n, |i| n - 1 - i)
}

/// The bit-reversal permutation: `i` sends to the number whose `lg n` bits are those of
/// `i` in reverse order.
///
/// # Errors
///
/// [`TrafficError::NotPowerOfTwo`] unless `n` is a power of two (`n = 1` is allowed: one
/// self-message).
pub fn bit_reversal(n: u32) -> Result<MessageSet, TrafficError> {
    let bits = log2_exact("bitrev", n)?;
    from_fn("bitrev", n, |i| {
        if bits == 0 {
            0
        } else {
            i.reverse_bits() >> (32 - bits)
        }
    })
}

/// The transpose permutation on `n = 2^(2k)` processors: writing `i = hi·2^k + lo`
/// (the high and low halves of its `2k` bits), `i` sends to `lo·2^k + hi`.
///
/// This is the matrix transpose of a `2^k × 2^k` row-major array.
///
/// # Errors
///
/// [`TrafficError::NotPowerOfFour`] unless `n` is a power of four.
pub fn transpose(n: u32) -> Result<MessageSet, TrafficError> {
    let k = log4_exact("transpose", n)?;
    let mask = (1u32 << k) - 1;
    from_fn("transpose", n, |i| ((i & mask) << k) | (i >> k))
}

/// Greenberg and Oh's many-to-one hot spot: processors `0..n/2` send to `n-1`, processors
/// `n/2..n` send to `0` (`n/2` rounded down). One message per processor, none to itself.
///
/// Processor `n-1` receives `⌊n/2⌋` messages and processor `0` receives `⌈n/2⌉`.
///
/// # Errors
///
/// [`TrafficError::TooFewProcessors`] if `n < 2`.
pub fn many_to_one(n: u32) -> Result<MessageSet, TrafficError> {
    at_least("many-to-one", n, 2)?;
    let half = n / 2;
    from_fn("many-to-one", n, |i| if i < half { n - 1 } else { 0 })
}

/// Greenberg and Oh's random instance: each processor sends one message to a destination
/// drawn uniformly at random, independently.
///
/// With `allow_self` the destination is uniform over all `n` processors; without, it is
/// uniform over the other `n - 1`. Messages are listed by source, and the destinations are
/// drawn in that order, one `random_range` call each.
///
/// # Errors
///
/// [`TrafficError::TooFewProcessors`] if `n == 0`, or `n < 2` without `allow_self`.
pub fn uniform<R: Rng + ?Sized>(
    n: u32,
    allow_self: bool,
    rng: &mut R,
) -> Result<MessageSet, TrafficError> {
    if allow_self {
        at_least("uniform", n, 1)?;
        from_fn("uniform", n, |_| rng.random_range(0..n))
    } else {
        at_least("uniform without self-messages", n, 2)?;
        from_fn("uniform", n, |i| {
            let r = rng.random_range(0..n - 1);
            if r >= i { r + 1 } else { r }
        })
    }
}

/// `k` independent uniformly random permutations, concatenated: the "random permutations
/// replicated λ′ times" of Greenberg and Leiserson.
///
/// We read "replicated" as *independent* copies (each processor sends `k` messages and
/// receives `k`, to `k` independently drawn destinations), not as `k` copies of one
/// permutation: copies of one permutation only multiply its channel loads by `k`, which
/// [`random_permutation`] followed by repeated [`MessageSet::extend`] already gives.
/// Messages `r·n .. (r+1)·n` are round `r`'s permutation, listed by source; the rounds are
/// drawn in order with [`random_permutation`]. `k = 0` gives the empty set.
///
/// # Errors
///
/// [`TrafficError::TooFewProcessors`] if `n == 0`, [`TrafficError::TooManyMessages`] if
/// `k·n` exceeds [`crate::MAX_MESSAGES`].
pub fn replicated_permutations<R: Rng + ?Sized>(
    n: u32,
    k: u32,
    rng: &mut R,
) -> Result<MessageSet, TrafficError> {
    at_least("replicated", n, 1)?;
    let count = u64::from(n) * u64::from(k);
    // The set, plus one permutation (and its scratch) in flight.
    let bytes = u128::from(count) * MESSAGE_BYTES + permutation_bytes(n);
    check_count("replicated", n, count, bytes)?;
    let mut messages = Vec::with_capacity(n as usize * k as usize);
    for _ in 0..k {
        messages.extend_from_slice(permutation_unchecked(n, rng).messages());
    }
    Ok(MessageSet::from_valid(n, messages))
}

/// The Morton (Z-order) number of mesh cell (`row`, `col`): the bits of `row` and `col`
/// interleaved, `col`'s bit `b` at position `2b` and `row`'s bit `b` at position `2b + 1`.
///
/// So in a `2 × 2` mesh cells `(0,0), (0,1), (1,0), (1,1)` are processors `0, 1, 2, 3`, and
/// each subtree of a binary fat-tree over the processors holds a square or a `2:1`
/// rectangle of the mesh (recursive bisection). Inverse: [`morton_cell`].
///
/// Only the low 16 bits of `row` and `col` are used.
pub fn morton_index(row: u32, col: u32) -> u32 {
    (spread(row) << 1) | spread(col)
}

/// The mesh cell `(row, col)` of Morton number `id`; inverse of [`morton_index`].
pub fn morton_cell(id: u32) -> (u32, u32) {
    (compact(id >> 1), compact(id))
}

/// Moves bit `b` of the low 16 bits of `x` to bit `2b`.
fn spread(x: u32) -> u32 {
    let mut x = x & 0x0000_ffff;
    x = (x | (x << 8)) & 0x00ff_00ff;
    x = (x | (x << 4)) & 0x0f0f_0f0f;
    x = (x | (x << 2)) & 0x3333_3333;
    (x | (x << 1)) & 0x5555_5555
}

/// Moves bit `2b` of `x` to bit `b` (drops the odd bits).
fn compact(x: u32) -> u32 {
    let mut x = x & 0x5555_5555;
    x = (x | (x >> 1)) & 0x3333_3333;
    x = (x | (x >> 2)) & 0x0f0f_0f0f;
    x = (x | (x >> 4)) & 0x00ff_00ff;
    (x | (x >> 8)) & 0x0000_ffff
}

/// Nearest-neighbour traffic of a `√n × √n` mesh (or torus) laid out on the processors in
/// Morton order ([`morton_index`]): every processor sends one message to each of its mesh
/// neighbours.
///
/// In a mesh a processor has 2 (corner), 3 (edge) or 4 neighbours, and there are
/// `4·√n·(√n − 1)` messages. In a torus rows and columns wrap around and every processor
/// sends exactly 4 messages (`4n` in all). When the side is 2 the wrap-around link joins the
/// same two cells as the mesh link, and when it is 1 it is a loop, so such tori repeat
/// messages (and `n = 1` gives four self-messages); the multiset is still "one message per
/// link direction".
///
/// Order: by source processor `0..n`, and for each source its neighbours in the order
/// north (`row − 1`), south (`row + 1`), west (`col − 1`), east (`col + 1`), skipping those
/// outside a mesh.
///
/// # Errors
///
/// [`TrafficError::NotPowerOfFour`] unless `n` is a power of four;
/// [`TrafficError::TooManyMessages`] for a torus on `n = 2^30` processors.
pub fn mesh_neighbours(n: u32, torus: bool) -> Result<MessageSet, TrafficError> {
    let k = log4_exact("mesh", n)?;
    let side = 1u32 << k;
    let count = if torus {
        4 * u64::from(n)
    } else {
        4 * u64::from(side) * u64::from(side - 1)
    };
    check_count("mesh", n, count, u128::from(count) * MESSAGE_BYTES)?;
    let mut messages = Vec::with_capacity(count as usize);
    for id in 0..n {
        let (row, col) = morton_cell(id);
        // (row, col) offsets: north, south, west, east.
        for (dr, dc) in [(-1i64, 0i64), (1, 0), (0, -1), (0, 1)] {
            let (r, c) = (i64::from(row) + dr, i64::from(col) + dc);
            let s = i64::from(side);
            let (r, c) = if torus {
                (r.rem_euclid(s), c.rem_euclid(s))
            } else if (0..s).contains(&r) && (0..s).contains(&c) {
                (r, c)
            } else {
                continue;
            };
            messages.push(Message::new(id, morton_index(r as u32, c as u32)));
        }
    }
    debug_assert_eq!(messages.len() as u64, count);
    Ok(MessageSet::from_valid(n, messages))
}

/// The two phases of Valiant's randomized routing, as built by [`valiant`].
///
/// Message `i` of [`first`](Self::first) and message `i` of [`second`](Self::second) are the
/// two legs of message `i` of the base set. Both phases have the base set's processor count
/// and length, which [`valiant`] checked fits twice into one set, so [`combined`](Self::combined)
/// cannot fail.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValiantPhases {
    first: MessageSet,
    second: MessageSet,
}

impl ValiantPhases {
    /// Phase 1: source to random intermediate, `(s, r)`.
    pub fn first(&self) -> &MessageSet {
        &self.first
    }

    /// Phase 2: random intermediate to destination, `(r, d)`.
    pub fn second(&self) -> &MessageSet {
        &self.second
    }

    /// Both phases in one set: the first phase's messages (ids `0..m`), then the second's
    /// (ids `m..2m`).
    pub fn combined(&self) -> MessageSet {
        let mut messages = Vec::with_capacity(self.first.len() + self.second.len());
        messages.extend_from_slice(self.first.messages());
        messages.extend_from_slice(self.second.messages());
        MessageSet::from_valid(self.first.processors(), messages)
    }

    /// The two phases `(first, second)`.
    pub fn into_phases(self) -> (MessageSet, MessageSet) {
        (self.first, self.second)
    }
}

/// Valiant's random intermediates: each message `(s, d)` of `base` becomes `(s, r)` in the
/// first phase and `(r, d)` in the second, with `r` uniform over all `n` processors
/// (including `s` and `d`, as in Valiant's scheme), drawn independently per message in
/// message order.
///
/// # Errors
///
/// [`TrafficError::TooManyMessages`] if `2·|base|` exceeds [`crate::MAX_MESSAGES`], so that
/// [`ValiantPhases::combined`] always fits.
pub fn valiant<R: Rng + ?Sized>(
    base: &MessageSet,
    rng: &mut R,
) -> Result<ValiantPhases, TrafficError> {
    let n = base.processors();
    // The two phases, and the combined set that usually follows.
    let count = 2 * base.len() as u64;
    check_count("valiant", n, count, 2 * u128::from(count) * MESSAGE_BYTES)?;
    let mut first = Vec::with_capacity(base.len());
    let mut second = Vec::with_capacity(base.len());
    for m in base.messages() {
        let r = rng.random_range(0..n);
        first.push(Message::new(m.src, r));
        second.push(Message::new(r, m.dst));
    }
    Ok(ValiantPhases {
        first: MessageSet::from_valid(n, first),
        second: MessageSet::from_valid(n, second),
    })
}

/// Stamoulis' destination distribution (5.1) on `n = 2^d` processors: each processor `x`
/// sends one message to `z`, where each of the `d` bits of `x` is flipped independently
/// with probability `p`, so `Pr[z | x] = p^H(x,z) (1 − p)^(d − H(x,z))`.
///
/// Messages are listed by source; for each source the bits are drawn from bit 0 upwards,
/// one `random_bool(p)` call each. `p = 0` gives the identity, `p = 1` the complement.
///
/// # Errors
///
/// [`TrafficError::NotPowerOfTwo`] unless `n` is a power of two,
/// [`TrafficError::ProbabilityOutOfRange`] unless `0 <= p <= 1`.
pub fn bit_flip<R: Rng + ?Sized>(n: u32, p: f64, rng: &mut R) -> Result<MessageSet, TrafficError> {
    let d = log2_exact("bitflip", n)?;
    if !(0.0..=1.0).contains(&p) {
        return Err(TrafficError::ProbabilityOutOfRange { p });
    }
    from_fn("bitflip", n, |x| {
        let mut z = x;
        for b in 0..d {
            if rng.random_bool(p) {
                z ^= 1 << b;
            }
        }
        z
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_pcg::Pcg64;

    fn dsts(s: &MessageSet) -> Vec<u32> {
        s.messages().iter().map(|m| m.dst).collect()
    }

    fn srcs_are_identity(s: &MessageSet) -> bool {
        s.messages().iter().zip(0..).all(|(m, i)| m.src == i)
    }

    fn rng(seed: u64) -> Pcg64 {
        Pcg64::seed_from_u64(seed)
    }

    #[test]
    fn complement_16() {
        let s = complement(16).unwrap();
        assert!(srcs_are_identity(&s));
        assert_eq!(
            dsts(&s),
            vec![15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0]
        );
        assert!(s.is_permutation());
        assert_eq!(dsts(&complement(1).unwrap()), vec![0]);
        assert_eq!(dsts(&complement(5).unwrap()), vec![4, 3, 2, 1, 0]);
        assert!(matches!(
            complement(0),
            Err(TrafficError::TooFewProcessors { processors: 0, .. })
        ));
    }

    #[test]
    fn bit_reversal_16() {
        let s = bit_reversal(16).unwrap();
        assert!(srcs_are_identity(&s));
        // 0001 -> 1000, 0010 -> 0100, 0011 -> 1100, 0110 -> 0110, 1011 -> 1101 ...
        assert_eq!(
            dsts(&s),
            vec![0, 8, 4, 12, 2, 10, 6, 14, 1, 9, 5, 13, 3, 11, 7, 15]
        );
        assert!(s.is_permutation());
        assert_eq!(dsts(&bit_reversal(1).unwrap()), vec![0]);
        assert_eq!(dsts(&bit_reversal(2).unwrap()), vec![0, 1]);
        assert_eq!(
            dsts(&bit_reversal(8).unwrap()),
            vec![0, 4, 2, 6, 1, 5, 3, 7]
        );
        assert!(matches!(
            bit_reversal(12),
            Err(TrafficError::NotPowerOfTwo { processors: 12, .. })
        ));
        assert!(matches!(
            bit_reversal(0),
            Err(TrafficError::TooFewProcessors { .. })
        ));
    }

    #[test]
    fn bit_reversal_is_an_involution_at_large_n() {
        let n = 1 << 20;
        let s = bit_reversal(n).unwrap();
        let d = dsts(&s);
        assert_eq!(d[1], n / 2);
        assert_eq!(d[n as usize - 1], n - 1);
        assert!(d.iter().zip(0..).all(|(&z, x)| d[z as usize] == x));
    }

    #[test]
    fn transpose_16() {
        // 4 x 4 row-major: i = 4*hi + lo -> 4*lo + hi.
        let s = transpose(16).unwrap();
        assert!(srcs_are_identity(&s));
        assert_eq!(
            dsts(&s),
            vec![0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15]
        );
        assert!(s.is_permutation());
        assert_eq!(s.self_messages(), 4);
        assert_eq!(dsts(&transpose(4).unwrap()), vec![0, 2, 1, 3]);
        assert_eq!(dsts(&transpose(1).unwrap()), vec![0]);
        for n in [2, 8, 12, 32] {
            assert!(matches!(
                transpose(n),
                Err(TrafficError::NotPowerOfFour { processors, .. }) if processors == n
            ));
        }
    }

    #[test]
    fn many_to_one_counts() {
        let s = many_to_one(16).unwrap();
        assert!(srcs_are_identity(&s));
        assert_eq!(dsts(&s), [[15; 8], [0; 8]].concat());
        let ind = s.in_degrees();
        assert_eq!(ind[15], 8);
        assert_eq!(ind[0], 8);
        assert_eq!(ind.iter().sum::<u32>(), 16);
        assert_eq!(s.max_out_degree(), 1);
        assert_eq!(s.self_messages(), 0);
        let s = many_to_one(5).unwrap();
        assert_eq!(dsts(&s), vec![4, 4, 0, 0, 0]);
        assert_eq!(dsts(&many_to_one(2).unwrap()), vec![1, 0]);
        assert!(matches!(
            many_to_one(1),
            Err(TrafficError::TooFewProcessors {
                processors: 1,
                min: 2,
                ..
            })
        ));
    }

    #[test]
    fn random_permutation_is_permutation_and_seeded() {
        for n in [1, 2, 3, 16, 1000] {
            let s = random_permutation(n, &mut rng(7)).unwrap();
            assert_eq!(s.len(), n as usize);
            assert!(srcs_are_identity(&s));
            assert!(s.is_permutation());
        }
        let a = random_permutation(64, &mut rng(1)).unwrap();
        let b = random_permutation(64, &mut rng(1)).unwrap();
        let c = random_permutation(64, &mut rng(2)).unwrap();
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert!(random_permutation(0, &mut rng(1)).is_err());
    }

    #[test]
    fn uniform_respects_self_option_and_seed() {
        let s = uniform(64, false, &mut rng(3)).unwrap();
        assert!(srcs_are_identity(&s));
        assert_eq!(s.self_messages(), 0);
        assert_eq!(s.max_out_degree(), 1);
        // With self-messages allowed, 4096 draws on n = 16 hit themselves about 256 times.
        let mut r = rng(4);
        let selfs: usize = (0..256)
            .map(|_| uniform(16, true, &mut r).unwrap().self_messages())
            .sum();
        assert!((150..400).contains(&selfs), "{selfs}");
        assert_eq!(
            uniform(64, true, &mut rng(5)).unwrap(),
            uniform(64, true, &mut rng(5)).unwrap()
        );
        assert_ne!(
            uniform(64, false, &mut rng(5)).unwrap(),
            uniform(64, false, &mut rng(6)).unwrap()
        );
        // Without self-messages, n = 2 is forced: 0 -> 1, 1 -> 0.
        assert_eq!(dsts(&uniform(2, false, &mut rng(0)).unwrap()), vec![1, 0]);
        assert_eq!(dsts(&uniform(1, true, &mut rng(0)).unwrap()), vec![0]);
        assert!(matches!(
            uniform(1, false, &mut rng(0)),
            Err(TrafficError::TooFewProcessors { min: 2, .. })
        ));
    }

    #[test]
    fn uniform_without_self_covers_all_other_destinations() {
        let mut seen = [[false; 4]; 4];
        let mut r = rng(9);
        for _ in 0..200 {
            for m in uniform(4, false, &mut r).unwrap().messages() {
                seen[m.src as usize][m.dst as usize] = true;
            }
        }
        for (s, row) in seen.iter().enumerate() {
            for (d, &hit) in row.iter().enumerate() {
                assert_eq!(hit, s != d, "{s} -> {d}");
            }
        }
    }

    fn over_budget(r: Result<MessageSet, TrafficError>, pattern: &str, messages: u64) {
        match r {
            Err(TrafficError::OverMemoryBudget {
                what,
                count,
                estimate,
                max,
                ..
            }) => {
                assert_eq!(what, pattern);
                assert_eq!(count, messages);
                assert!(estimate >= count * 8 && estimate > max, "{estimate}");
                assert_eq!(max, crate::MEMORY_BUDGET);
            }
            other => panic!("{pattern}: expected OverMemoryBudget, got {other:?}"),
        }
    }

    #[test]
    fn sets_over_the_memory_budget_are_refused_before_allocating() {
        let big = u32::MAX;
        over_budget(
            random_permutation(big, &mut rng(0)),
            "permutation",
            4294967295,
        );
        over_budget(complement(big), "complement", 4294967295);
        over_budget(uniform(big, true, &mut rng(0)), "uniform", 4294967295);
        over_budget(many_to_one(big), "many-to-one", 4294967295);
        over_budget(bit_reversal(1 << 31), "bitrev", 1 << 31);
        over_budget(bit_flip(1 << 31, 0.5, &mut rng(0)), "bitflip", 1 << 31);
        over_budget(transpose(1 << 30), "transpose", 1 << 30);
        over_budget(
            mesh_neighbours(1 << 28, false),
            "mesh",
            4 * (1 << 14) * ((1 << 14) - 1),
        );
        // Under MAX_MESSAGES (u32::MAX) but 34 GB.
        over_budget(
            replicated_permutations(65536, 65535, &mut rng(0)),
            "replicated",
            65536 * 65535,
        );
        over_budget(
            replicated_permutations(1, u32::MAX, &mut rng(0)),
            "replicated",
            4294967295,
        );
        // Over MAX_MESSAGES: the count is refused first.
        assert!(matches!(
            replicated_permutations(2, u32::MAX, &mut rng(0)),
            Err(TrafficError::TooManyMessages { .. })
        ));
        let msg = complement(big).unwrap_err().to_string();
        assert!(
            msg.contains("complement on n = 4294967295") && msg.contains("GiB"),
            "{msg}"
        );
    }

    #[test]
    fn replicated_is_k_regular_and_rounds_are_permutations() {
        let (n, k) = (32u32, 5u32);
        let s = replicated_permutations(n, k, &mut rng(11)).unwrap();
        assert_eq!(s.len(), (n * k) as usize);
        assert!(s.out_degrees().iter().all(|&d| d == k));
        assert!(s.in_degrees().iter().all(|&d| d == k));
        for round in s.messages().chunks(n as usize) {
            let r = MessageSet::new(n, round.to_vec()).unwrap();
            assert!(r.is_permutation());
            assert!(srcs_are_identity(&r));
        }
        // Independent rounds: not all equal.
        let rounds: Vec<_> = s.messages().chunks(n as usize).collect();
        assert!(rounds.iter().any(|r| *r != rounds[0]));
        assert_eq!(s, replicated_permutations(n, k, &mut rng(11)).unwrap());
        assert_ne!(s, replicated_permutations(n, k, &mut rng(12)).unwrap());
        assert!(
            replicated_permutations(n, 0, &mut rng(0))
                .unwrap()
                .is_empty()
        );
        assert!(matches!(
            replicated_permutations(1 << 16, 1 << 16, &mut rng(0)),
            Err(TrafficError::TooManyMessages { .. })
        ));
    }

    #[test]
    fn morton_round_trip() {
        assert_eq!(morton_index(0, 0), 0);
        assert_eq!(morton_index(0, 1), 1);
        assert_eq!(morton_index(1, 0), 2);
        assert_eq!(morton_index(1, 1), 3);
        assert_eq!(morton_index(0, 2), 4);
        assert_eq!(morton_index(3, 3), 15);
        assert_eq!(morton_index(2, 1), 9);
        for id in (0..1 << 20).step_by(97) {
            let (r, c) = morton_cell(id);
            assert_eq!(morton_index(r, c), id);
        }
        assert_eq!(morton_cell(u32::MAX), (0xffff, 0xffff));
    }

    fn adjacent(side: u32, a: u32, b: u32, torus: bool) -> bool {
        let ((ra, ca), (rb, cb)) = (morton_cell(a), morton_cell(b));
        let dist = |x: u32, y: u32| {
            let d = x.abs_diff(y);
            if torus { d.min(side - d) } else { d }
        };
        dist(ra, rb) + dist(ca, cb) == 1
    }

    #[test]
    fn mesh_16() {
        let s = mesh_neighbours(16, false).unwrap();
        assert_eq!(s.len(), 48); // 2 directions x 4 rows x 3 links x 2 (both ways)
        assert!(
            s.messages()
                .iter()
                .all(|m| adjacent(4, m.src, m.dst, false))
        );
        let out = s.out_degrees();
        // Corners (0,0)=0, (0,3)=5, (3,0)=10, (3,3)=15 have 2 neighbours, inner cells 4.
        for (id, &d) in out.iter().enumerate() {
            let (r, c) = morton_cell(id as u32);
            let expected = 4 - u32::from(r == 0 || r == 3) - u32::from(c == 0 || c == 3);
            assert_eq!(d, expected, "cell ({r},{c})");
        }
        assert_eq!(out, s.in_degrees());
        assert_eq!([out[0], out[5], out[10], out[15]], [2, 2, 2, 2]);
        assert_eq!(out[3], 4); // (1,1)
        // Processor 3 = (1,1): north (0,1)=1, south (2,1)=9, west (1,0)=2, east (1,2)=6.
        let from3: Vec<_> = s
            .messages()
            .iter()
            .filter(|m| m.src == 3)
            .map(|m| m.dst)
            .collect();
        assert_eq!(from3, vec![1, 9, 2, 6]);
        // Processor 0 = (0,0): south (1,0)=2, east (0,1)=1.
        assert_eq!(&dsts(&s)[..2], &[2, 1]);
        // Each undirected link once in each direction: the set is symmetric.
        let mut fwd: Vec<_> = s.messages().iter().map(|m| (m.src, m.dst)).collect();
        let mut rev: Vec<_> = s.messages().iter().map(|m| (m.dst, m.src)).collect();
        fwd.sort_unstable();
        rev.sort_unstable();
        assert_eq!(fwd, rev);
        fwd.dedup();
        assert_eq!(fwd.len(), 48);
    }

    #[test]
    fn torus_16() {
        let s = mesh_neighbours(16, true).unwrap();
        assert_eq!(s.len(), 64);
        assert!(s.messages().iter().all(|m| adjacent(4, m.src, m.dst, true)));
        assert!(s.out_degrees().iter().all(|&d| d == 4));
        assert!(s.in_degrees().iter().all(|&d| d == 4));
        // Processor 0 = (0,0): north wraps to (3,0)=10, south (1,0)=2, west wraps to (0,3)=5,
        // east (0,1)=1.
        assert_eq!(&dsts(&s)[..4], &[10, 2, 5, 1]);
        assert_eq!(s.self_messages(), 0);
    }

    #[test]
    fn mesh_small_and_invalid() {
        assert!(mesh_neighbours(1, false).unwrap().is_empty());
        let t1 = mesh_neighbours(1, true).unwrap();
        assert_eq!((t1.len(), t1.self_messages()), (4, 4));
        let m4 = mesh_neighbours(4, false).unwrap();
        assert_eq!(m4.len(), 8);
        let t4 = mesh_neighbours(4, true).unwrap();
        assert_eq!(t4.len(), 16);
        assert_eq!(dsts(&t4)[..4], [2, 2, 1, 1]);
        assert_eq!(mesh_neighbours(64, false).unwrap().len(), 4 * 8 * 7);
        assert!(matches!(
            mesh_neighbours(8, false),
            Err(TrafficError::NotPowerOfFour { processors: 8, .. })
        ));
        assert!(matches!(
            mesh_neighbours(0, true),
            Err(TrafficError::TooFewProcessors { .. })
        ));
    }

    #[test]
    fn valiant_phases_chain() {
        let base = complement(64).unwrap();
        let v = valiant(&base, &mut rng(21)).unwrap();
        assert_eq!(v.first().len(), 64);
        assert_eq!(v.second().len(), 64);
        for ((b, f), s) in base
            .messages()
            .iter()
            .zip(v.first().messages())
            .zip(v.second().messages())
        {
            assert_eq!(f.src, b.src);
            assert_eq!(f.dst, s.src);
            assert_eq!(s.dst, b.dst);
        }
        let c = v.combined();
        assert_eq!(c.len(), 128);
        assert_eq!(&c.messages()[..64], v.first().messages());
        assert_eq!(&c.messages()[64..], v.second().messages());
        // Intermediates are spread out, not all equal.
        let mids: std::collections::BTreeSet<_> =
            v.first().messages().iter().map(|m| m.dst).collect();
        assert!(mids.len() > 20);
        assert_eq!(v, valiant(&base, &mut rng(21)).unwrap());
        assert_ne!(v, valiant(&base, &mut rng(22)).unwrap());
        let (a, b) = v.clone().into_phases();
        assert_eq!((&a, &b), (v.first(), v.second()));
        assert!(
            valiant(&MessageSet::empty(4).unwrap(), &mut rng(0))
                .unwrap()
                .combined()
                .is_empty()
        );
    }

    #[test]
    fn bit_flip_extremes_and_seed() {
        assert_eq!(
            bit_flip(16, 0.0, &mut rng(1)).unwrap(),
            from_fn("bitflip", 16, |i| i).unwrap()
        );
        assert_eq!(
            bit_flip(16, 1.0, &mut rng(1)).unwrap(),
            complement(16).unwrap()
        );
        let a = bit_flip(256, 0.3, &mut rng(5)).unwrap();
        assert!(srcs_are_identity(&a));
        assert_eq!(a, bit_flip(256, 0.3, &mut rng(5)).unwrap());
        assert_ne!(a, bit_flip(256, 0.3, &mut rng(6)).unwrap());
        // Mean Hamming distance d·p = 8 · 0.3 = 2.4 per message.
        let mut r = rng(8);
        let total: u32 = (0..64)
            .flat_map(|_| bit_flip(256, 0.3, &mut r).unwrap().into_messages())
            .map(|m| (m.src ^ m.dst).count_ones())
            .sum();
        let mean = f64::from(total) / (64.0 * 256.0);
        assert!((mean - 2.4).abs() < 0.05, "{mean}");
        assert_eq!(dsts(&bit_flip(1, 0.5, &mut rng(0)).unwrap()), vec![0]);
    }

    #[test]
    fn bit_flip_rejects_bad_parameters() {
        for p in [-0.1, 1.5, f64::NAN, f64::INFINITY] {
            assert!(matches!(
                bit_flip(16, p, &mut rng(0)),
                Err(TrafficError::ProbabilityOutOfRange { .. })
            ));
        }
        assert!(matches!(
            bit_flip(24, 0.5, &mut rng(0)),
            Err(TrafficError::NotPowerOfTwo { .. })
        ));
    }
}
