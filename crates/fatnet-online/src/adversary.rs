//! The message set of Greenberg–Leiserson's Theorem 9 that forces GREEDY with deterministic
//! admissible switches to take `Ω(λ lg n)` cycles on the standard fat-tree.
//!
//! Construction `BAD(T, λ)` for a standard subtree `T` with `4^j` leaves whose messages leave
//! through `T`'s root channel (capacity `√|T|`), `λ ≥ 12` a multiple of 12 (note §2):
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
//! cycles. The simulation in step 2 uses this crate's engine with the given policy, so the
//! set is built against exactly the switches it is run on; tests and the reproduction check
//! both claims instead of assuming them.
//!
//! "Spread evenly": `k` messages over `p` processors give `⌈k/p⌉` to the first `k mod p`
//! processors and `⌊k/p⌋` to the others (a choice of this library). Messages are given
//! destination = source; with [`Sink::External`] destinations are ignored.

use fatnet_topology::{CapacityProfile, FatTree};
use fatnet_traffic::{Message, MessageSet};
use rand::SeedableRng;
use rand_pcg::Pcg64;

use crate::{DeliveryEngine, DropPolicy, OnlineError, Sink};

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
    let mut engine = DeliveryEngine::with_sink(&tree, &set, policy, Sink::External)?;
    let mut undelivered: Vec<u32> = (0..set.len() as u32).collect();
    let mut through = [0u64; 4];
    let mut rng = Pcg64::seed_from_u64(0); // deterministic policies draw nothing
    let mut delivered = Vec::new();
    for _ in 0..t {
        delivered.clear();
        engine.cycle(&undelivered, &mut rng, &mut delivered);
        for &m in &delivered {
            through[(set.messages()[m as usize].src / quarter) as usize] += 1;
        }
        delivered.sort_unstable();
        undelivered.retain(|m| delivered.binary_search(m).is_err());
    }
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
