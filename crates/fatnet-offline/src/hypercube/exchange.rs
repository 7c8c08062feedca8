//! The optimal total exchange (Stamoulis chapter 3; Bertsekas et al., JPDC 1991).

use fatnet_topology::{ChannelId, Hypercube, Topology};
use serde::Serialize;

use super::slots::{Packet, PacketId, SlotSchedule, Transmission};
use super::{cube, e};
use crate::OfflineError;

/// Largest dimension of [`total_exchange_recursive`] (it keeps every packet's hop list).
const MAX_RECURSIVE_DIMENSION: u32 = 10;

/// Lower bound on the completion time of a total exchange on the `d`-cube: `2^(d−1)` slots
/// (Stamoulis §3.2, (3.1)–(3.3)).
///
/// Derivation: an origin `x` has `C(d, k)` destinations at Hamming distance `k`, each needing
/// at least `k` transmissions, so `x`'s packets need at least `Σ_k k·C(d, k) = d·2^(d−1)`
/// transmissions and all `2^d` origins at least `d·2^(d−1)·2^d`. The cube has `d·2^d` directed
/// arcs, each carrying at most one packet per slot, so the task needs at least
/// `d·2^(d−1)·2^d / (d·2^d) = 2^(d−1)` slots. A schedule meets the bound only if every packet
/// follows a shortest path and every arc is busy in every slot; [`total_exchange`] does both.
///
/// # Panics
///
/// If `d` is 0 or above 64.
pub fn total_exchange_lower_bound(d: u32) -> u64 {
    assert!((1..=64).contains(&d), "d = {d} out of range");
    1 << (d - 1)
}

/// The transmission tables of Stamoulis §3.4 (Figure 3.2): the order in which node 0 sends
/// its own packets on each of its arcs. Node `x` sends its own packet for `x ⊕ w` on arc
/// `(x, x ⊕ e_m)` in slot `t` when `w` is entry `t` of column `m`.
///
/// Construction (the thesis's rule, with its "arbitrary" left-to-right order fixed as in the
/// printed figure): column 1 is `[e_1]`; column `k` lists the entries of table `k − 1` (its
/// columns `1..k−1`) row by row from top to bottom, each row from left to right, with bit `k`
/// set, followed by `e_k`. Column `k` has `2^(k−1)` entries: every node whose highest bit is
/// `k`. Table `k` is columns `1..=k`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TransmissionTables {
    d: u32,
    /// `columns[m − 1]` = column `m`.
    columns: Vec<Vec<u32>>,
    /// `row[w]` = the 1-based row of `w` in column `highest bit of w` (`row[0]` unused).
    row: Vec<u32>,
}

/// One hop of a packet: in slot `slot` it crosses dimension `dimension` from node `from`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Hop {
    /// The slot, from 1.
    pub slot: u32,
    /// The tail node.
    pub from: u32,
    /// The dimension crossed.
    pub dimension: u32,
}

impl TransmissionTables {
    /// The tables `1..=d`.
    ///
    /// # Errors
    ///
    /// [`OfflineError::OutOfRange`] unless `1 <= d <= 12`.
    pub fn new(d: u32) -> Result<Self, OfflineError> {
        cube(d)?;
        let mut columns: Vec<Vec<u32>> = vec![vec![e(1)]];
        for k in 2..=d {
            let mut col = Vec::with_capacity(1 << (k - 1));
            for r in 0..1usize << (k - 2) {
                for prev in &columns {
                    if let Some(&w) = prev.get(r) {
                        col.push(w | e(k));
                    }
                }
            }
            col.push(e(k));
            columns.push(col);
        }
        let mut row = vec![0u32; 1 << d];
        for col in &columns {
            for (r, &w) in col.iter().enumerate() {
                row[w as usize] = r as u32 + 1;
            }
        }
        Ok(Self { d, columns, row })
    }

    /// The dimension `d`.
    pub fn dimension(&self) -> u32 {
        self.d
    }

    /// Column `m` (`1..=d`): the destinations of node 0's own packets on arc `(0, e_m)`, in
    /// slots `1..=2^(m−1)`.
    ///
    /// # Panics
    ///
    /// If `m` is not in `1..=d`.
    pub fn column(&self, m: u32) -> &[u32] {
        assert!((1..=self.d).contains(&m), "column {m} out of range");
        &self.columns[m as usize - 1]
    }

    /// Table `k` (`1..=d`) as printed in Figure 3.2: `2^(k−1)` rows (slots), `k` columns (arcs
    /// `(0, e_1)`, …, `(0, e_k)`), empty where a column has ended.
    ///
    /// # Panics
    ///
    /// If `k` is not in `1..=d`.
    pub fn table(&self, k: u32) -> Vec<Vec<Option<u32>>> {
        assert!((1..=self.d).contains(&k), "table {k} out of range");
        (0..1usize << (k - 1))
            .map(|r| {
                self.columns[..k as usize]
                    .iter()
                    .map(|c| c.get(r).copied())
                    .collect()
            })
            .collect()
    }

    /// The slot in which every node `x` sends its own packet for `x ⊕ w` (`w ≠ 0`): the row
    /// of `w` in the column of its highest bit.
    ///
    /// # Panics
    ///
    /// If `w` is 0 or not below `2^d`.
    pub fn slot_of(&self, w: u32) -> u32 {
        assert!(w != 0 && w < (1 << self.d), "w = {w} out of range");
        self.row[w as usize]
    }

    /// The hops of the packet from `x` to `y` in [`total_exchange`] (closed form of the
    /// recursion). With `z = x ⊕ y` and its bits `b_1 > b_2 > … > b_m`, hop `i` crosses
    /// dimension `b_i` (decreasing dimensions: the reverse of the canonical path from `y` to
    /// `x`) in slot `Σ_{l<i} 2^(b_l − 2) + slot_of(z mod 2^(b_i))`: the packet waits for no
    /// slot reserved for it at the next node — in the recursion it is a phase-3 packet of the
    /// sub-cube below `b_1`, shifted by that sub-cube's phase 1.
    ///
    /// # Panics
    ///
    /// If `x` or `y` is not below `2^d`.
    pub fn hops(&self, x: u32, y: u32) -> Vec<Hop> {
        let mut out = Vec::with_capacity((x ^ y).count_ones() as usize);
        self.for_each_hop(x, y, |h| out.push(h));
        out
    }

    fn for_each_hop(&self, x: u32, y: u32, mut f: impl FnMut(Hop)) {
        assert!(x < (1 << self.d) && y < (1 << self.d), "node out of range");
        let z = x ^ y;
        let (mut rest, mut at, mut base) = (z, x, 0u32);
        while rest != 0 {
            let b = 32 - rest.leading_zeros();
            let low = z & ((1u32 << b) - 1);
            f(Hop {
                slot: base + self.row[low as usize],
                from: at,
                dimension: b,
            });
            at ^= e(b);
            rest ^= e(b);
            if b >= 2 {
                base += 1 << (b - 2);
            }
        }
    }
}

/// The id of the packet from `x` to `y` (`x ≠ y`) in [`total_exchange`] and
/// [`total_exchange_recursive`]: origins in increasing order, and for each origin its
/// destinations in increasing order, `x·(2^d − 1) + (y − [y > x])`.
///
/// # Panics
///
/// If `x == y` or either is not a node of `cube`.
pub fn exchange_packet(cube: &Hypercube, x: u32, y: u32) -> PacketId {
    let n = cube.size();
    assert!(x < n && y < n && x != y, "no packet {x} -> {y}");
    PacketId(x * (n - 1) + y - u32::from(y > x))
}

fn exchange_packets(n: u32) -> Vec<Packet> {
    (0..n)
        .flat_map(|x| {
            (0..n)
                .filter(move |&y| y != x)
                .map(move |y| Packet::unicast(x, y))
        })
        .collect()
}

/// The optimal total exchange on the `d`-cube (Stamoulis chapter 3; Bertsekas, Özveren,
/// Stamoulis, Tseng, Tsitsiklis 1991): every node sends a distinct packet to every other
/// node; the schedule completes in exactly `2^(d−1)` slots, the lower bound
/// ([`total_exchange_lower_bound`]), with every arc busy in every slot.
///
/// Packet `x → y` is [`exchange_packet`]`(x, y)`; its hops are
/// [`TransmissionTables::hops`]. This is the thesis's algorithm: the same schedule as the
/// three-phase recursion of the proof of Proposition 3.1 ([`total_exchange_recursive`], with
/// the recursion's free tie-break fixed as Figure 3.2 fixes it), and the same transmission
/// order as the distributed rules of §3.4. Each slot lists its `d·2^d` transmissions in arc
/// order.
///
/// Size: `2^d(2^d − 1)` packets and `d·2^(2d−1)` transmissions (1 GB at `d = 12`).
///
/// # Errors
///
/// [`OfflineError::OutOfRange`] unless `1 <= d <= 12`.
pub fn total_exchange(d: u32) -> Result<SlotSchedule, OfflineError> {
    let cube = cube(d)?;
    let tables = TransmissionTables::new(d)?;
    let n = cube.size();
    let arcs = cube.num_channels();
    const HOLE: PacketId = PacketId(u32::MAX);
    let mut slots: Vec<Vec<Transmission>> = (0..1u32 << (d - 1))
        .map(|_| {
            (0..arcs)
                .map(|a| Transmission {
                    packet: HOLE,
                    arc: ChannelId(a),
                })
                .collect()
        })
        .collect();
    let mut p = 0u32;
    for x in 0..n {
        for y in (0..n).filter(|&y| y != x) {
            tables.for_each_hop(x, y, |h| {
                let arc = cube.arc(h.from, h.dimension);
                let cell = &mut slots[h.slot as usize - 1][arc.index()];
                debug_assert_eq!(cell.packet, HOLE, "two packets on one arc");
                cell.packet = PacketId(p);
            });
            p += 1;
        }
    }
    Ok(SlotSchedule::new(cube, exchange_packets(n), slots))
}

/// The total exchange built by the three-phase recursion of the proof of Proposition 3.1
/// (Stamoulis §3.3), an independent construction of the schedule of [`total_exchange`].
///
/// The `d`-cube splits into `C_0` (bit `d` = 0) and `C_1`. Phase 1 (slots `1..=2^(d−2)`): a
/// total exchange inside each sub-cube. Phase 2 (slots `1..=2^(d−1)`): node `x` sends to its
/// counterpart `x ⊕ e_d`, one per slot, its `2^(d−1)` packets for the other sub-cube, in the
/// order in which the counterpart forwards them in phase 3 — by the slot, then the dimension,
/// of their first hop in the sub-cube exchange (rule (a); this tie-break is the one that
/// reproduces Figure 3.2) — and the packet for the counterpart itself last (rule (b)).
/// Phase 3 (slots `2^(d−2)+1..=2^(d−1)`): the sub-cube exchange again, shifted by `2^(d−2)`,
/// on the packets received in phase 2. Slots list their transmissions in arc order.
///
/// Keeps every packet's hop list: `O(d·4^d)` memory.
///
/// # Errors
///
/// [`OfflineError::OutOfRange`] unless `1 <= d <= 10`.
pub fn total_exchange_recursive(d: u32) -> Result<SlotSchedule, OfflineError> {
    let cube = cube(d)?;
    if d > MAX_RECURSIVE_DIMENSION {
        return Err(OfflineError::OutOfRange {
            param: "d",
            value: u64::from(d),
            allowed: "1..=10",
        });
    }
    // s[a·h + b] = hops of a → b in the current cube of h nodes.
    let mut h = 2usize;
    let mut s: Vec<Vec<Hop>> = vec![Vec::new(); 4];
    s[1] = vec![Hop {
        slot: 1,
        from: 0,
        dimension: 1,
    }];
    s[2] = vec![Hop {
        slot: 1,
        from: 1,
        dimension: 1,
    }];
    for k in 2..=d {
        let n = 2 * h;
        let shift = 1u32 << (k - 2);
        let mut r: Vec<Vec<Hop>> = vec![Vec::new(); n * n];
        let moved = |hops: &[Hop], slot: u32, node: u32| -> Vec<Hop> {
            hops.iter()
                .map(|x| Hop {
                    slot: x.slot + slot,
                    from: x.from + node,
                    dimension: x.dimension,
                })
                .collect()
        };
        // Phase 1.
        for a in 0..h {
            for b in (0..h).filter(|&b| b != a) {
                for base in [0, h] {
                    r[(a + base) * n + b + base] = moved(&s[a * h + b], 0, base as u32);
                }
            }
        }
        // Phases 2 and 3.
        for x in 0..n {
            let xl = x % h;
            let other = if x < h { h } else { 0 };
            let mut order: Vec<usize> = (0..h).filter(|&yl| yl != xl).collect();
            order.sort_by_key(|&yl| {
                let first = s[xl * h + yl][0];
                (first.slot, first.dimension)
            });
            order.push(xl);
            for (q, &yl) in order.iter().enumerate() {
                let mut hops = vec![Hop {
                    slot: q as u32 + 1,
                    from: x as u32,
                    dimension: k,
                }];
                if yl != xl {
                    hops.extend(moved(&s[xl * h + yl], shift, other as u32));
                }
                r[x * n + yl + other] = hops;
            }
        }
        s = r;
        h = n;
    }
    let n = cube.size();
    let mut slots: Vec<Vec<Transmission>> = vec![Vec::new(); 1 << (d - 1)];
    for x in 0..n {
        for y in (0..n).filter(|&y| y != x) {
            let packet = exchange_packet(&cube, x, y);
            for hop in &s[(x * n + y) as usize] {
                slots[hop.slot as usize - 1].push(Transmission {
                    packet,
                    arc: cube.arc(hop.from, hop.dimension),
                });
            }
        }
    }
    for slot in &mut slots {
        slot.sort_unstable_by_key(|t| t.arc);
    }
    Ok(SlotSchedule::new(cube, exchange_packets(n), slots))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Figure 3.2 as printed (table 4 = columns 1..4; tables 1..3 are its prefixes).
    const FIGURE_3_2: [&[u32]; 4] = [
        &[0b0001],
        &[0b0011, 0b0010],
        &[0b0101, 0b0111, 0b0110, 0b0100],
        &[
            0b1001, 0b1011, 0b1101, 0b1010, 0b1111, 0b1110, 0b1100, 0b1000,
        ],
    ];

    #[test]
    fn tables_reproduce_figure_3_2() {
        let t = TransmissionTables::new(4).unwrap();
        for (m, col) in FIGURE_3_2.iter().enumerate() {
            assert_eq!(t.column(m as u32 + 1), *col, "column {}", m + 1);
        }
        let table3 = t.table(3);
        assert_eq!(table3.len(), 4);
        assert_eq!(table3[0], vec![Some(1), Some(3), Some(5)]);
        assert_eq!(table3[3], vec![None, None, Some(4)]);
        // Tables of smaller cubes are prefixes.
        let t2 = TransmissionTables::new(2).unwrap();
        assert_eq!(t2.table(2), t.table(2));
    }

    #[test]
    fn every_column_lists_the_nodes_of_its_highest_bit_once() {
        let t = TransmissionTables::new(9).unwrap();
        for k in 1..=9 {
            let mut col = t.column(k).to_vec();
            assert_eq!(col.last(), Some(&e(k)));
            col.sort_unstable();
            assert_eq!(col, (e(k)..2 * e(k)).collect::<Vec<_>>(), "column {k}");
        }
        assert_eq!(t.slot_of(0b1011), 2);
    }

    #[test]
    fn closed_form_hops_match_the_notes_examples() {
        let t = TransmissionTables::new(4).unwrap();
        let slots = |x, y| t.hops(x, y).iter().map(|h| h.slot).collect::<Vec<_>>();
        assert_eq!(slots(0b0000, 0b1011), vec![2, 5, 6]);
        assert_eq!(slots(0b0101, 0b1110), vec![2, 5, 6]);
        let h = t.hops(0b0000, 0b1011);
        assert_eq!(
            h.iter().map(|h| (h.from, h.dimension)).collect::<Vec<_>>(),
            vec![(0b0000, 4), (0b1000, 2), (0b1010, 1)]
        );
    }

    #[test]
    fn small_exchanges_are_optimal_and_agree_with_the_recursion() {
        for d in 1..=6 {
            let s = total_exchange(d).unwrap();
            let r = s.verify().unwrap();
            assert_eq!(r.slots as u64, total_exchange_lower_bound(d), "d = {d}");
            assert!(r.every_arc_busy, "d = {d}");
            assert_eq!(r.transmissions, (d as usize) << (2 * d - 1));
            assert_eq!(total_exchange_recursive(d).unwrap(), s, "d = {d}");
        }
    }

    #[test]
    fn packet_ids_follow_origin_then_destination() {
        let c = Hypercube::new(3).unwrap();
        assert_eq!(exchange_packet(&c, 0, 1), PacketId(0));
        assert_eq!(exchange_packet(&c, 1, 0), PacketId(7));
        assert_eq!(exchange_packet(&c, 7, 6), PacketId(55));
        let s = total_exchange(3).unwrap();
        let p = s.packets()[exchange_packet(&c, 5, 2).index()];
        assert_eq!(p, Packet::unicast(5, 2));
    }

    #[test]
    fn out_of_range_dimensions_are_errors() {
        assert!(matches!(
            total_exchange(13),
            Err(OfflineError::OutOfRange { param: "d", .. })
        ));
        assert!(matches!(
            total_exchange_recursive(11),
            Err(OfflineError::OutOfRange {
                allowed: "1..=10",
                ..
            })
        ));
        assert!(TransmissionTables::new(0).is_err());
    }
}
