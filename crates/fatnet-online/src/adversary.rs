//! The message set of Greenberg–Leiserson's Theorem 9 that forces GREEDY with deterministic
//! admissible switches to take `Ω(λ lg n)` cycles on the standard fat-tree.
//!
//! Construction `BAD(T, λ)` for a standard subtree `T` with `4^j` leaves whose messages leave
//! through `T`'s root channel (capacity `√|T|`), `λ ≥ 12` a multiple of 12 (the proof of
//! Greenberg & Leiserson's Theorem 9, made executable):
//!
//! 1. `|T| = 1`: λ messages on the single processor (its channel has capacity 1).
//! 2. Otherwise let `t = λ/6`. Simulate the switches at `T`'s root with each of the four
//!    quarter subtrees holding `λ√|T|/6` messages spread evenly over its processors (enough
//!    to keep every quarter's root channel, of capacity `√|T|/2`, full for `t` cycles), for
//!    `t` GREEDY cycles, and count how many messages each quarter got through. The quarter
//!    that got the fewest through (at most a quarter of them; ties to the lowest index) is
//!    *unfavored*.
//! 3. The unfavored quarter gets `BAD(quarter, λ)`; each other quarter gets `λ√|T|/6`
//!    messages spread evenly over its processors.
//!
//! The proof's claims are that `λ(M) ≤ λ` and that GREEDY needs at least `(1/24)·λ·lg n`
//! cycles. The simulation in step 2 is [`crate::run`] with [`Greedy`] and the given policy
//! for `t` cycles (conservation checked every cycle), watched by an observer that counts the
//! deliveries per quarter; so the set is built against exactly the switches it is run on, and
//! the adversary owns no time loop. Tests and the reproduction check both claims instead of
//! assuming them.
//!
//! "Spread evenly": `k` messages over `p` processors give `⌈k/p⌉` to the first `k mod p`
//! processors and `⌊k/p⌋` to the others (a choice of this library). Messages are given
//! destination = source; with [`Sink::External`] destinations are ignored.

use fatnet_topology::{CapacityProfile, FatTree};
use fatnet_traffic::{Message, MessageSet};

use crate::{CycleView, DropPolicy, Greedy, OnlineError, RunConfig, Sink, run_observed};

/// Builds `BAD(FT, λ)` for the standard fat-tree on `n = 4^j` processors against `policy`.
///
/// # Errors
///
/// [`OnlineError::BadAdversary`] unless `n` is a power of four (at least 4) and `λ` a positive
/// multiple of 12, or when `policy` is not a deterministic greedy concentrator
/// (`FixedPriority` or `RoundRobin`).
pub fn greedy_adversary(
    n: u32,
    lambda: u64,
    policy: DropPolicy,
) -> Result<MessageSet, OnlineError> {
    let bad = |why: &'static str| OnlineError::BadAdversary { why };
    if n < 4 || !n.is_power_of_two() || !n.trailing_zeros().is_multiple_of(2) {
        return Err(bad("n must be a power of four, at least 4"));
    }
    if lambda == 0 || !lambda.is_multiple_of(12) {
        return Err(bad("λ must be a positive multiple of 12"));
    }
    if !matches!(policy, DropPolicy::FixedPriority | DropPolicy::RoundRobin) {
        return Err(bad(
            "Theorem 9 is about deterministic admissible switches: use FixedPriority or RoundRobin",
        ));
    }
    let mut messages = Vec::new();
    build(n.trailing_zeros(), 0, lambda, policy, &mut messages)?;
    MessageSet::new(n, messages).map_err(|_| bad("message count overflow"))
}

/// Appends `BAD` for the subtree of height `h` (2^h leaves) starting at processor `first`.
fn build(
    h: u32,
    first: u32,
    lambda: u64,
    policy: DropPolicy,
    out: &mut Vec<Message>,
) -> Result<(), OnlineError> {
    if h == 0 {
        out.extend((0..lambda).map(|_| Message::new(first, first)));
        return Ok(());
    }
    let leaves = 1u32 << h;
    let quarter = leaves / 4;
    let root_cap = 1u64 << (h / 2); // √|T|
    let per_quarter = lambda * root_cap / 6;
    let t = lambda / 6;
    // Step 2: simulate the subtree with every quarter full, for t cycles.
    let tree =
        FatTree::new(u64::from(leaves), CapacityProfile::Standard).expect("h is even and positive");
    let mut sim = Vec::new();
    for q in 0..4 {
        spread(q * quarter, quarter, per_quarter, &mut sim);
    }
    let set = MessageSet::new(leaves, sim).expect("ids in range");
    let mut through = [0u64; 4];
    let config = RunConfig {
        max_cycles: t,
        trace_load_factor: false,
        sink: Sink::External,
    };
    let mut count = |view: &CycleView<'_>| {
        for &m in view.delivered {
            through[(set.messages()[m as usize].src / quarter) as usize] += 1;
        }
    };
    // Deterministic policies draw nothing: the seed does not matter.
    run_observed(&tree, &set, policy, &mut Greedy, 0, config, &mut count)?;
    let unfavored = (0..4)
        .min_by_key(|&q| (through[q], q))
        .expect("four quarters") as u32;
    // Step 3.
    for q in 0..4 {
        if q == unfavored {
            build(h - 2, first + q * quarter, lambda, policy, out)?;
        } else {
            spread(first + q * quarter, quarter, per_quarter, out);
        }
    }
    Ok(())
}

/// `k` messages over processors `first..first+p`, as evenly as possible.
fn spread(first: u32, p: u32, k: u64, out: &mut Vec<Message>) {
    let p64 = u64::from(p);
    for i in 0..p {
        let count = k / p64 + u64::from(u64::from(i) < k % p64);
        let x = first + i;
        out.extend((0..count).map(|_| Message::new(x, x)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use DropPolicy::{FixedPriority, RoundRobin};

    /// FNV-1a over the sources of the set, in order (destinations equal sources).
    fn fingerprint(m: &MessageSet) -> u64 {
        let mut h = 0xcbf2_9ce4_8422_2325u64;
        for msg in m.messages() {
            assert_eq!(msg.src, msg.dst);
            for b in msg.src.to_le_bytes() {
                h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
            }
        }
        h
    }

    /// The sets built by the adversary's own greedy loop before it became an observer of
    /// [`crate::run`] (commit b699b88): `(policy, n, λ, |M|, fingerprint)`. The set is a
    /// function of the unfavored quarter chosen at every level, so equal fingerprints mean
    /// the simulated cycles chose alike.
    const OLD_LOOP: [(DropPolicy, u32, u64, usize, u64); 40] = [
        (FixedPriority, 4, 12, 24, 0xf0f338ae12712965),
        (FixedPriority, 4, 24, 48, 0xf09110fab7959fa5),
        (FixedPriority, 4, 48, 96, 0xed3b37e8c16edc25),
        (FixedPriority, 4, 96, 192, 0xe348d07778d29525),
        (FixedPriority, 16, 12, 48, 0x5e2272c561c1d845),
        (FixedPriority, 16, 24, 96, 0xfd27a5e57fba0965),
        (FixedPriority, 16, 48, 192, 0x458c3b5aa55fdfa5),
        (FixedPriority, 16, 96, 384, 0xa9ea0150f5b55c25),
        (FixedPriority, 256, 12, 192, 0x7a6ac3e28b25e985),
        (FixedPriority, 256, 24, 384, 0x4ff302c0b6172365),
        (FixedPriority, 256, 48, 768, 0xf3d412f00a65baa5),
        (FixedPriority, 256, 96, 1536, 0xe4f543d53077de25),
        (FixedPriority, 4096, 12, 768, 0x96869dcd93e88bc5),
        (FixedPriority, 4096, 24, 1536, 0x60f1c0931296c485),
        (FixedPriority, 4096, 48, 3072, 0x5e24af37c65fe6e5),
        (FixedPriority, 4096, 96, 6144, 0x3e547f03c90293a5),
        (FixedPriority, 65536, 12, 3072, 0x6b35466b540e02c5),
        (FixedPriority, 65536, 24, 6144, 0xbf3c03242d5e6485),
        (FixedPriority, 65536, 48, 12288, 0x9242baa2ae43dde5),
        (FixedPriority, 65536, 96, 24576, 0x9b0fd00b8c485465),
        (RoundRobin, 4, 12, 24, 0x88b30936a2c734e5),
        (RoundRobin, 4, 24, 48, 0x6970eca0710016a5),
        (RoundRobin, 4, 48, 96, 0x62c5c567d78d4a25),
        (RoundRobin, 4, 96, 192, 0xd0c3ff7af4b57125),
        (RoundRobin, 16, 12, 48, 0x85607d3fabd85fc5),
        (RoundRobin, 16, 24, 96, 0xf1a108c59b20b865),
        (RoundRobin, 16, 48, 192, 0xd10debc48a53bda5),
        (RoundRobin, 16, 96, 384, 0xabf0ec49e2371825),
        (RoundRobin, 256, 12, 192, 0x3e75b5e9f6e0e145),
        (RoundRobin, 256, 24, 384, 0x10f16fe37c1ff1e5),
        (RoundRobin, 256, 48, 768, 0x90b91564aa760ea5),
        (RoundRobin, 256, 96, 1536, 0x1acb1ee8256b7625),
        (RoundRobin, 4096, 12, 768, 0x488111de62aab385),
        (RoundRobin, 4096, 24, 1536, 0x993b8e8bed470d65),
        (RoundRobin, 4096, 48, 3072, 0xde1dccf6fa011aa5),
        (RoundRobin, 4096, 96, 6144, 0x106aefd98f1d2f25),
        (RoundRobin, 65536, 12, 3072, 0x002ccbe2887da685),
        (RoundRobin, 65536, 24, 6144, 0x782202f0be315965),
        (RoundRobin, 65536, 48, 12288, 0x2efc9031eb3617a5),
        (RoundRobin, 65536, 96, 24576, 0xccd00fccbfd7d325),
    ];

    #[test]
    fn the_sets_equal_those_of_the_old_greedy_loop() {
        for (policy, n, lambda, len, want) in OLD_LOOP {
            let m = greedy_adversary(n, lambda, policy).unwrap();
            assert_eq!(
                (m.len(), fingerprint(&m)),
                (len, want),
                "{policy:?} n = {n} λ = {lambda}"
            );
        }
        // The two policies favour different quarters: the fingerprint tells them apart.
        assert_ne!(OLD_LOOP[16].4, OLD_LOOP[36].4);
    }
}
