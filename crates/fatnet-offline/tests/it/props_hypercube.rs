//! Stamoulis' static tasks on the hypercube (paper 002, chapters 3–4): the schedules verify,
//! meet the thesis's times and bounds, and the verifier rejects corrupted schedules with the
//! right violation.

use fatnet_offline::hypercube::{
    Contention, Destination, Ranks, SlotSchedule, SlotViolation, Transmission, TransmissionTables,
    exchange_packet, k_broadcast_lower_bound, k_broadcast_upper_bound, k_broadcasts,
    multinode_broadcast, multinode_broadcast_a4, multinode_broadcast_a4_bounds,
    multinode_broadcast_time, randomized_k_broadcasts, ranked_broadcasts, single_node_broadcast,
    total_exchange, total_exchange_lower_bound, total_exchange_recursive, tree_broadcasts,
};
use proptest::prelude::*;
use proptest::sample::Index;
use rand::SeedableRng;
use rand::seq::index::sample;
use rand_pcg::Pcg64;

/// `K` distinct random nodes of the `d`-cube.
fn random_set(seed: u64, d: u32, k: usize) -> Vec<u32> {
    let mut rng = Pcg64::seed_from_u64(seed);
    sample(&mut rng, 1 << d, k)
        .into_iter()
        .map(|x| x as u32)
        .collect()
}

#[test]
fn total_exchange_takes_exactly_2_to_the_d_minus_1_slots_with_every_arc_busy() {
    for d in 1..=10 {
        let s = total_exchange(d).unwrap();
        let r = s.verify().unwrap();
        assert_eq!(r.slots as u64, total_exchange_lower_bound(d), "d = {d}");
        assert_eq!(r.last_delivery, r.slots);
        assert!(r.every_arc_busy, "d = {d}");
        // Shortest paths only: d·2^(d−1) hops per origin.
        assert_eq!(r.transmissions, (d as usize) << (2 * d - 1));
        let n = s.cube().size() as usize;
        assert_eq!(s.packets().len(), n * (n - 1));
    }
}

#[test]
fn the_closed_form_is_the_thesis_recursion() {
    for d in 1..=8 {
        assert_eq!(
            total_exchange(d).unwrap(),
            total_exchange_recursive(d).unwrap(),
            "d = {d}"
        );
    }
}

#[test]
fn own_packets_sent_by_slot_n_follow_proposition_3_1() {
    // N_d(x, n) = Σ_k min(n, 2^(k−1)) <= 2^(d−1) + n − 1, with equality at n = 2^(d−1).
    for d in 1..=7u32 {
        let s = total_exchange(d).unwrap();
        for x in [0, 1, (1 << d) - 1, 0b1010_1010 & ((1 << d) - 1)] {
            let sent = s.own_sent(x);
            for (i, &got) in sent.iter().enumerate() {
                let n = i as u64 + 1;
                let formula: u64 = (1..=d).map(|k| n.min(1 << (k - 1))).sum();
                assert_eq!(got, formula, "d={d} x={x} n={n}");
                assert!(got < (1 << (d - 1)) + n, "(3.5) fails: d={d} x={x} n={n}");
            }
            assert_eq!(sent.last().copied(), Some((1 << d) - 1));
        }
    }
}

#[test]
fn total_exchange_is_translation_invariant() {
    let t = TransmissionTables::new(8).unwrap();
    for (x, y) in [(0b1011_0001, 0b0110_1110), (3, 200), (255, 0), (17, 18)] {
        let h = t.hops(x, y);
        let h0 = t.hops(0, x ^ y);
        assert_eq!(h.len(), h0.len());
        for (a, b) in h.iter().zip(&h0) {
            assert_eq!(
                (a.slot, a.dimension, a.from),
                (b.slot, b.dimension, b.from ^ x)
            );
        }
        // Decreasing dimensions: the reverse of the canonical path from y to x.
        assert!(h.windows(2).all(|w| w[0].dimension > w[1].dimension));
        assert!(h.windows(2).all(|w| w[0].slot < w[1].slot));
    }
}

#[test]
fn arrivals_and_forwarding_follow_the_distributed_rules_of_section_3_4() {
    for d in 2..=6u32 {
        let s = total_exchange(d).unwrap();
        let cube = s.cube().clone();
        for x in [0u32, (1 << d) - 1, 5 % (1 << d)] {
            for k in 1..=d {
                // Packets x sends across dimension k: own ones in slots 1..=2^(k−1), forwarded
                // ones after; no forwarding across dimension d.
                let out = cube.arc(x, k);
                for (t, slot) in s.slots().iter().enumerate() {
                    let tr = slot.iter().find(|tr| tr.arc == out).unwrap();
                    let own = s.packets()[tr.packet.index()].origin == x;
                    assert_eq!(own, t < 1 << (k - 1), "d={d} x={x} k={k} slot {}", t + 1);
                }
                // Arrivals across (x ⊕ e_k, x): groups of 2^(k−1) from one origin, the groups
                // in increasing order of origin ⊕ x.
                let inc = cube.arc(x ^ (1 << (k - 1)), k);
                let origins: Vec<u32> = s
                    .slots()
                    .iter()
                    .map(|slot| {
                        let tr = slot.iter().find(|tr| tr.arc == inc).unwrap();
                        s.packets()[tr.packet.index()].origin
                    })
                    .collect();
                let groups: Vec<u32> = origins
                    .chunks(1 << (k - 1))
                    .map(|g| {
                        assert!(g.iter().all(|&o| o == g[0]), "d={d} x={x} k={k}: {g:?}");
                        g[0] ^ x
                    })
                    .collect();
                assert!(groups.windows(2).all(|w| w[0] < w[1]), "{groups:?}");
            }
        }
    }
}

#[test]
fn multinode_broadcasts_meet_their_times() {
    for d in 1..=10 {
        let s = multinode_broadcast(d).unwrap();
        assert_eq!(
            s.verify().unwrap().slots as u64,
            multinode_broadcast_time(d),
            "d = {d}"
        );
    }
    for d in 1..=8 {
        let kb = multinode_broadcast_a4(d).unwrap();
        let slots = kb.schedule.verify().unwrap().slots as u64;
        let (lo, hi) = multinode_broadcast_a4_bounds(d);
        assert!(
            lo <= slots && slots <= hi,
            "d = {d}: {lo} <= {slots} <= {hi}"
        );
    }
}

#[test]
fn a4_multinode_phase_2_matches_the_notes_simulation() {
    // Last phase-2 arrival of the A4 multinode broadcast, as simulated in the implementation
    // note (FIFO and farthest-first agreed): d = 3..9.
    for (d, expected) in (3..=9).zip([2, 4, 6, 7, 11, 33, 31]) {
        assert_eq!(
            multinode_broadcast_a4(d).unwrap().last_gather_arrival,
            expected,
            "d = {d}"
        );
    }
}

/// Drops transmission `i` of slot `t` (0-based).
fn drop_transmission(s: SlotSchedule, t: usize, i: usize) -> (SlotSchedule, Transmission) {
    let (cube, packets, mut slots) = s.into_parts();
    let tr = slots[t].remove(i);
    (SlotSchedule::new(cube, packets, slots), tr)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn k_broadcasts_verify_within_the_bounds(d in 1u32..=8, kf in 0.0f64..1.0, seed: u64) {
        let k = 1 + (kf * ((1u32 << d) as f64)) as usize;
        let k = k.min(1 << d);
        let sources = random_set(seed, d, k);
        let kb = k_broadcasts(d, &sources).unwrap();
        let r = kb.schedule.verify().unwrap();
        let k = k as u64;
        prop_assert!(r.slots as u64 <= k_broadcast_upper_bound(d, k));
        prop_assert!(r.last_delivery as u64 >= k_broadcast_lower_bound(d, k));
        prop_assert_eq!(r.slots as u32, kb.prefix_slots + kb.gather_slots + kb.scatter_slots);
        // Phase 2 within ⌈K/d⌉ + d + 2, phase 3 exactly ⌈K/d⌉ + d.
        let c = k.div_ceil(u64::from(d));
        prop_assert!(u64::from(kb.gather_slots) <= c + u64::from(d) + 2);
        prop_assert_eq!(u64::from(kb.scatter_slots), c + u64::from(d));
        let lo = k / u64::from(d);
        prop_assert!(kb.root_loads.iter().all(|&n| (lo..=c).contains(&u64::from(n))));
    }

    #[test]
    fn randomized_k_broadcasts_verify(d in 1u32..=8, kf in 0.0f64..1.0, seed: u64) {
        let k = (1 + (kf * ((1u32 << d) as f64)) as usize).min(1 << d);
        let sources = random_set(seed, d, k);
        let mut rng = Pcg64::seed_from_u64(seed ^ 0x5eed);
        let kb = randomized_k_broadcasts(d, &sources, &mut rng).unwrap();
        let r = kb.schedule.verify().unwrap();
        let max = u64::from(*kb.root_loads.iter().max().unwrap());
        prop_assert!(r.slots as u64 <= 2 * max + 2 * u64::from(d) + 2);
        prop_assert_eq!(kb.prefix_slots, 0);
    }

    #[test]
    fn tree_broadcasts_verify_within_d_plus_k_minus_1(
        d in 1u32..=8,
        k in 1usize..=24,
        seed: u64,
        antipode: bool,
    ) {
        let k = k.min(1 << d);
        let sources = random_set(seed, d, k);
        let c = if antipode { Contention::AntipodeFirst } else { Contention::Fifo };
        let r = tree_broadcasts(d, &sources, c).unwrap().verify().unwrap();
        prop_assert!((r.slots as u64) < u64::from(d) + k as u64);
        prop_assert!(r.slots as u64 >= u64::from(d));
    }

    #[test]
    fn ranked_and_single_broadcasts_take_d_slots(d in 1u32..=9, kf in 0.0f64..1.0, seed: u64) {
        let k = 1 + (kf * f64::from(d)) as usize;
        let k = k.min(d as usize);
        let sources = random_set(seed, d, k);
        let r = ranked_broadcasts(d, &sources, Ranks::Known).unwrap().verify().unwrap();
        prop_assert_eq!(r.slots as u32, d);
        let r = ranked_broadcasts(d, &sources, Ranks::Prefix).unwrap().verify().unwrap();
        prop_assert_eq!(r.slots as u32, 3 * d);
        let r = single_node_broadcast(d, sources[0]).unwrap().verify().unwrap();
        prop_assert_eq!((r.slots as u32, r.transmissions), (d, (1usize << d) - 1));
    }

    #[test]
    fn dropping_a_transmission_is_caught(d in 1u32..=5, t in any::<Index>(), i in any::<Index>()) {
        let s = total_exchange(d).unwrap();
        let t = t.index(s.slots().len());
        let i = i.index(s.slots()[t].len());
        let cube = s.cube().clone();
        let p = s.packets()[s.slots()[t][i].packet.index()];
        let (x, Destination::Node(y)) = (p.origin, p.destination) else {
            unreachable!("total-exchange packets are unicast")
        };
        let tables = TransmissionTables::new(d).unwrap();
        let (broken, tr) = drop_transmission(s, t, i);
        let hops = tables.hops(x, y);
        let at = hops.iter().position(|h| h.slot as usize == t + 1).unwrap();
        let expected = match hops.get(at + 1) {
            // The next hop is sent by a node that never got the packet.
            Some(next) => SlotViolation::NotHeld {
                slot: next.slot as usize,
                packet: tr.packet.0,
                node: next.from,
            },
            None => SlotViolation::NotDelivered { packet: tr.packet.0, node: y },
        };
        prop_assert_eq!(exchange_packet(&cube, x, y), tr.packet);
        prop_assert_eq!(broken.verify(), Err(expected));
    }

    #[test]
    fn an_arc_used_twice_in_a_slot_is_caught(
        d in 1u32..=5,
        t in any::<Index>(),
        i in any::<Index>(),
        j in any::<Index>(),
    ) {
        let (cube, packets, mut slots) = total_exchange(d).unwrap().into_parts();
        let t = t.index(slots.len());
        let len = slots[t].len();
        let (i, j) = (i.index(len), j.index(len));
        prop_assume!(i != j);
        let (first, second) = (i.min(j), i.max(j));
        slots[t][second].arc = slots[t][first].arc;
        let arc = slots[t][first].arc;
        let (node, dimension) = cube.arc_parts(arc);
        let expected = SlotViolation::ArcReused {
            slot: t + 1,
            arc: arc.0,
            node,
            dimension,
            first: slots[t][first].packet.0,
            second: slots[t][second].packet.0,
        };
        prop_assert_eq!(SlotSchedule::new(cube, packets, slots).verify(), Err(expected));
    }

    #[test]
    fn forwarding_before_receipt_is_caught(d in 2u32..=5, pick in any::<Index>()) {
        // Move the second hop of a two-or-more-hop packet into the slot of its first hop, in
        // place of the packet that used that arc then.
        let s = total_exchange(d).unwrap();
        let tables = TransmissionTables::new(d).unwrap();
        let n = s.cube().size();
        let far: Vec<(u32, u32)> = (0..n)
            .flat_map(|x| (0..n).map(move |y| (x, y)))
            .filter(|&(x, y)| (x ^ y).count_ones() >= 2)
            .collect();
        let (x, y) = far[pick.index(far.len())];
        let hops = tables.hops(x, y);
        let (h1, h2) = (hops[0], hops[1]);
        let (cube, packets, mut slots) = s.into_parts();
        let p = exchange_packet(&cube, x, y);
        let arc2 = cube.arc(h2.from, h2.dimension);
        let s1 = h1.slot as usize - 1;
        let cell = slots[s1].iter_mut().find(|tr| tr.arc == arc2).unwrap();
        cell.packet = p;
        let expected = SlotViolation::NotHeld {
            slot: h1.slot as usize,
            packet: p.0,
            node: h2.from,
        };
        prop_assert_eq!(SlotSchedule::new(cube, packets, slots).verify(), Err(expected));
    }

    #[test]
    fn a_broadcast_copy_sent_before_receipt_is_caught(
        d in 2u32..=8,
        source in any::<Index>(),
        pick in any::<Index>(),
    ) {
        // Recursive doubling: slot m uses only dimension m, so moving a later transmission
        // into an earlier slot cannot collide; it is sent before its sender has the packet.
        let source = source.index(1 << d) as u32;
        let (cube, packets, mut slots) = single_node_broadcast(d, source).unwrap().into_parts();
        let late: Vec<(usize, usize)> = (1..slots.len())
            .flat_map(|t| (0..slots[t].len()).map(move |i| (t, i)))
            .collect();
        let (t, i) = late[pick.index(late.len())];
        let tr = slots[t][i];
        let (from, _) = cube.arc_parts(tr.arc);
        prop_assume!(from != source);
        // `from` received the packet in the slot of its highest dimension differing from the
        // source's (dimension m is crossed in slot m).
        let received = 32 - (from ^ source).leading_zeros() as usize;
        slots[t].remove(i);
        slots[received - 1].push(tr);
        let expected = SlotViolation::NotHeld { slot: received, packet: 0, node: from };
        prop_assert_eq!(SlotSchedule::new(cube, packets, slots).verify(), Err(expected));
    }
}
