//! [`SlotSchedule`]: packets and their slot-by-slot transmissions, and the verifier.

use fatnet_topology::{ChannelId, Hypercube, Topology};
use serde::Serialize;

/// A packet's id: its position in the schedule's packet table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(transparent)]
pub struct PacketId(pub u32);

impl PacketId {
    /// The id as an index.
    #[inline]
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// Who must receive a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Destination {
    /// One node. A unicast packet is at one node at a time: a transmission moves it, so only
    /// the node that holds it may send it, once. It is delivered when it ends at this node.
    Node(u32),
    /// Every node (a broadcast). A broadcast packet is copied: a node that has received it
    /// keeps it and may send it in any later slot, on several arcs in the same slot. It is
    /// delivered when every node holds it.
    All,
}

/// What a packet is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PacketKind {
    /// A packet of the task itself (a total-exchange packet, a broadcast packet).
    Data,
    /// A packet of the algorithm's coordination: the partial sums of the parallel prefix, the
    /// termination signals of §4.4. Control packets obey the same rules (they occupy arcs)
    /// but do not count for [`SlotReport::last_delivery`].
    Control,
}

/// One packet of a static task.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Packet {
    /// The node that holds the packet at the start (slot 0).
    pub origin: u32,
    /// Its destination(s).
    pub destination: Destination,
    /// Data or control.
    pub kind: PacketKind,
}

impl Packet {
    /// A data packet from `origin` to `dst`.
    pub fn unicast(origin: u32, dst: u32) -> Self {
        Self {
            origin,
            destination: Destination::Node(dst),
            kind: PacketKind::Data,
        }
    }

    /// A data packet from `origin` to every node.
    pub fn broadcast(origin: u32) -> Self {
        Self {
            origin,
            destination: Destination::All,
            kind: PacketKind::Data,
        }
    }
}

/// One packet crossing one arc in one slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Transmission {
    /// The packet.
    pub packet: PacketId,
    /// The arc, numbered by [`Hypercube::arc`].
    pub arc: ChannelId,
}

/// Why a [`SlotSchedule`] is not a valid schedule of its packets: the first problem found.
///
/// The checks run in this order: the packet table (nodes in range), then the slots in
/// increasing order and, inside a slot, the transmissions in list order (packet and arc in
/// range, arc not used earlier in the slot, packet held by the sending node), then the
/// deliveries in packet order. Slots are numbered from 1, as in the thesis.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
#[non_exhaustive]
pub enum SlotViolation {
    /// A packet's origin or destination is not a node of the cube.
    NodeOutOfRange {
        /// The packet.
        packet: u32,
        /// The node id.
        node: u32,
    },
    /// A transmission names a packet the table does not have.
    UnknownPacket {
        /// The slot.
        slot: usize,
        /// The packet id.
        packet: u32,
    },
    /// A transmission names an arc the cube does not have.
    ArcOutOfRange {
        /// The slot.
        slot: usize,
        /// The arc id.
        arc: u32,
    },
    /// Two packets on one arc in one slot.
    ArcReused {
        /// The slot.
        slot: usize,
        /// The arc.
        arc: u32,
        /// Tail node of the arc.
        node: u32,
        /// Dimension of the arc.
        dimension: u32,
        /// The packet listed first.
        first: u32,
        /// The packet listed second.
        second: u32,
    },
    /// A node sends a packet it does not hold at the start of the slot: it never received
    /// it, receives it only in this slot or later, or (unicast) the packet has already left.
    NotHeld {
        /// The slot.
        slot: usize,
        /// The packet.
        packet: u32,
        /// The sending node.
        node: u32,
    },
    /// A packet never reaches one of its destinations (the first such node).
    NotDelivered {
        /// The packet.
        packet: u32,
        /// The destination it misses (for a unicast packet, its destination).
        node: u32,
    },
}

/// What [`SlotSchedule::verify`] measured on a valid schedule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct SlotReport {
    /// Completion time: the number of the last slot with a transmission (0 if none).
    pub slots: usize,
    /// Number of transmissions (packet-hops), control packets included.
    pub transmissions: usize,
    /// The slot in which the last destination of the last data packet received it.
    pub last_delivery: usize,
    /// Whether every arc of the cube carries a packet in every slot `1..=slots`.
    pub every_arc_busy: bool,
}

/// A static task on the hypercube, scheduled slot by slot: a packet table and, for each slot
/// `t = 1, 2, …` (`slots()[t − 1]`), the packets that cross which arcs during that slot.
///
/// A packet received during slot `t` may be sent again from slot `t + 1` on. The schedule is
/// valid when [`SlotSchedule::verify`] accepts it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SlotSchedule {
    cube: Hypercube,
    packets: Vec<Packet>,
    slots: Vec<Vec<Transmission>>,
}

impl SlotSchedule {
    /// A schedule with the given packets and slots (not verified: call
    /// [`SlotSchedule::verify`]).
    pub fn new(cube: Hypercube, packets: Vec<Packet>, slots: Vec<Vec<Transmission>>) -> Self {
        Self {
            cube,
            packets,
            slots,
        }
    }

    /// The parts, e.g. to modify a schedule and build it again.
    pub fn into_parts(self) -> (Hypercube, Vec<Packet>, Vec<Vec<Transmission>>) {
        (self.cube, self.packets, self.slots)
    }

    /// The cube.
    pub fn cube(&self) -> &Hypercube {
        &self.cube
    }

    /// The packet table.
    pub fn packets(&self) -> &[Packet] {
        &self.packets
    }

    /// The slots: `slots()[t − 1]` lists the transmissions of slot `t`.
    pub fn slots(&self) -> &[Vec<Transmission>] {
        &self.slots
    }

    /// Completion time: the number of the last slot with a transmission (0 if none).
    pub fn completion_time(&self) -> usize {
        self.slots
            .iter()
            .rposition(|s| !s.is_empty())
            .map_or(0, |i| i + 1)
    }

    /// Number of transmissions.
    pub fn num_transmissions(&self) -> usize {
        self.slots.iter().map(Vec::len).sum()
    }

    /// Tail node, dimension and head node of a transmission's arc.
    pub fn endpoints(&self, t: Transmission) -> (u32, u32, u32) {
        let (from, dim) = self.cube.arc_parts(t.arc);
        (from, dim, from ^ (1 << (dim - 1)))
    }

    /// Number of own packets `x` has sent by the end of slot `n`, for every `n` in
    /// `1..=completion_time()` (Stamoulis' `N_d(x, n)`, §3.3): transmissions by `x` of packets
    /// whose origin is `x`.
    pub fn own_sent(&self, x: u32) -> Vec<u64> {
        let mut count = 0;
        let mut out = Vec::with_capacity(self.completion_time());
        for slot in &self.slots[..self.completion_time()] {
            for &t in slot {
                let (from, _) = self.cube.arc_parts(t.arc);
                if from == x && self.packets[t.packet.index()].origin == x {
                    count += 1;
                }
            }
            out.push(count);
        }
        out
    }

    /// Checks the schedule against the model: every node id in range, every arc used at most
    /// once per slot, every packet sent only by a node that holds it at the start of the slot,
    /// every packet delivered to all its destinations.
    ///
    /// Runs in `O(transmissions + packets + 2^d·broadcast packets)` time; memory is two words
    /// per packet plus one per (broadcast packet, node).
    ///
    /// # Errors
    ///
    /// The first [`SlotViolation`], in the order described there.
    pub fn verify(&self) -> Result<SlotReport, SlotViolation> {
        let n = self.cube.size();
        let arcs = self.cube.num_channels();
        // Unicast packet p: `loc[p]` = node holding it, `since[p]` = slot it arrived there
        // (0: at the origin from the start). Broadcast packet p: `loc[p]` = its row in `recv`,
        // where `recv[row·n + v]` = slot in which v first received it (NEVER: not yet).
        const NEVER: u32 = u32::MAX;
        let mut loc = Vec::with_capacity(self.packets.len());
        let mut since = vec![0u32; self.packets.len()];
        let mut rows = 0u32;
        for (i, p) in self.packets.iter().enumerate() {
            let bad = |node| SlotViolation::NodeOutOfRange {
                packet: i as u32,
                node,
            };
            if p.origin >= n {
                return Err(bad(p.origin));
            }
            match p.destination {
                Destination::Node(y) if y >= n => return Err(bad(y)),
                Destination::Node(_) => loc.push(p.origin),
                Destination::All => {
                    loc.push(rows);
                    rows += 1;
                }
            }
        }
        let mut recv = vec![NEVER; rows as usize * n as usize];
        for (p, packet) in self.packets.iter().enumerate() {
            if packet.destination == Destination::All {
                recv[loc[p] as usize * n as usize + packet.origin as usize] = 0;
            }
        }
        let mut arc_slot = vec![0u32; arcs as usize];
        let mut arc_packet = vec![0u32; arcs as usize];
        for (s, slot) in self.slots.iter().enumerate() {
            let t = s as u32 + 1;
            for tr in slot {
                let p = tr.packet.0;
                let Some(packet) = self.packets.get(p as usize) else {
                    return Err(SlotViolation::UnknownPacket {
                        slot: s + 1,
                        packet: p,
                    });
                };
                let a = tr.arc.0;
                if a >= arcs {
                    return Err(SlotViolation::ArcOutOfRange {
                        slot: s + 1,
                        arc: a,
                    });
                }
                let (from, dim) = self.cube.arc_parts(tr.arc);
                if arc_slot[a as usize] == t {
                    return Err(SlotViolation::ArcReused {
                        slot: s + 1,
                        arc: a,
                        node: from,
                        dimension: dim,
                        first: arc_packet[a as usize],
                        second: p,
                    });
                }
                arc_slot[a as usize] = t;
                arc_packet[a as usize] = p;
                let to = from ^ (1 << (dim - 1));
                let pi = p as usize;
                let not_held = SlotViolation::NotHeld {
                    slot: s + 1,
                    packet: p,
                    node: from,
                };
                match packet.destination {
                    Destination::Node(_) => {
                        if loc[pi] != from || since[pi] >= t {
                            return Err(not_held);
                        }
                        loc[pi] = to;
                        since[pi] = t;
                    }
                    Destination::All => {
                        let row = loc[pi] as usize * n as usize;
                        if recv[row + from as usize] >= t {
                            return Err(not_held);
                        }
                        let r = &mut recv[row + to as usize];
                        *r = (*r).min(t);
                    }
                }
            }
        }
        let mut last_delivery = 0u32;
        for (p, packet) in self.packets.iter().enumerate() {
            let delivered = match packet.destination {
                Destination::Node(y) => {
                    if loc[p] != y {
                        return Err(SlotViolation::NotDelivered {
                            packet: p as u32,
                            node: y,
                        });
                    }
                    since[p]
                }
                Destination::All => {
                    let row = &recv[loc[p] as usize * n as usize..][..n as usize];
                    if let Some(v) = row.iter().position(|&r| r == NEVER) {
                        return Err(SlotViolation::NotDelivered {
                            packet: p as u32,
                            node: v as u32,
                        });
                    }
                    row.iter().copied().max().unwrap_or(0)
                }
            };
            if packet.kind == PacketKind::Data {
                last_delivery = last_delivery.max(delivered);
            }
        }
        let slots = self.completion_time();
        Ok(SlotReport {
            slots,
            transmissions: self.num_transmissions(),
            last_delivery: last_delivery as usize,
            every_arc_busy: self.slots[..slots].iter().all(|s| s.len() == arcs as usize),
        })
    }
}

/// Accumulates packets and transmissions; slots are numbered from 1.
#[derive(Debug)]
pub(crate) struct Builder {
    cube: Hypercube,
    packets: Vec<Packet>,
    slots: Vec<Vec<Transmission>>,
}

impl Builder {
    pub(crate) fn new(cube: &Hypercube) -> Self {
        Self {
            cube: cube.clone(),
            packets: Vec::new(),
            slots: Vec::new(),
        }
    }

    /// Adds a packet to the table.
    pub(crate) fn packet(&mut self, p: Packet) -> PacketId {
        self.packets.push(p);
        PacketId(self.packets.len() as u32 - 1)
    }

    /// `packet` crosses the arc from `from` across dimension `dim` in slot `slot` (from 1).
    pub(crate) fn send(&mut self, slot: u32, packet: PacketId, from: u32, dim: u32) {
        debug_assert!(slot >= 1);
        let s = slot as usize - 1;
        if self.slots.len() <= s {
            self.slots.resize_with(s + 1, Vec::new);
        }
        let arc = self.cube.arc(from, dim);
        self.slots[s].push(Transmission { packet, arc });
    }

    pub(crate) fn finish(self) -> SlotSchedule {
        SlotSchedule::new(self.cube, self.packets, self.slots)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cube(d: u64) -> Hypercube {
        Hypercube::new(d).unwrap()
    }

    /// 0 → 3 on the 2-cube via 1 (dimension 1 in slot 1, dimension 2 in slot 2).
    fn two_hops() -> SlotSchedule {
        let c = cube(2);
        let mut b = Builder::new(&c);
        let p = b.packet(Packet::unicast(0, 3));
        b.send(1, p, 0, 1);
        b.send(2, p, 1, 2);
        b.finish()
    }

    #[test]
    fn a_two_hop_path_verifies() {
        let s = two_hops();
        let r = s.verify().unwrap();
        assert_eq!(
            r,
            SlotReport {
                slots: 2,
                transmissions: 2,
                last_delivery: 2,
                every_arc_busy: false
            }
        );
        assert_eq!(s.endpoints(s.slots()[1][0]), (1, 2, 3));
        assert_eq!(s.own_sent(0), vec![1, 1]);
    }

    #[test]
    fn sending_in_the_slot_of_arrival_is_rejected() {
        let (c, packets, mut slots) = two_hops().into_parts();
        let second = slots.pop().unwrap();
        slots[0].extend(second);
        let s = SlotSchedule::new(c, packets, slots);
        assert_eq!(
            s.verify(),
            Err(SlotViolation::NotHeld {
                slot: 1,
                packet: 0,
                node: 1
            })
        );
    }

    #[test]
    fn a_unicast_packet_cannot_be_copied() {
        let c = cube(2);
        let mut b = Builder::new(&c);
        let p = b.packet(Packet::unicast(0, 1));
        b.send(1, p, 0, 1);
        b.send(1, p, 0, 2);
        assert_eq!(
            b.finish().verify(),
            Err(SlotViolation::NotHeld {
                slot: 1,
                packet: 0,
                node: 0
            })
        );
    }

    #[test]
    fn a_broadcast_packet_is_copied_and_must_reach_every_node() {
        let c = cube(2);
        let mut b = Builder::new(&c);
        let p = b.packet(Packet::broadcast(2));
        b.send(1, p, 2, 1);
        b.send(1, p, 2, 2);
        let partial = b.finish();
        assert_eq!(
            partial.verify(),
            Err(SlotViolation::NotDelivered { packet: 0, node: 1 })
        );
        let (c, packets, mut slots) = partial.into_parts();
        slots.push(vec![Transmission {
            packet: PacketId(0),
            arc: c.arc(3, 2),
        }]);
        let r = SlotSchedule::new(c, packets, slots).verify().unwrap();
        assert_eq!((r.slots, r.transmissions, r.last_delivery), (2, 3, 2));
    }

    #[test]
    fn table_and_slot_errors_are_typed() {
        let c = cube(2);
        let bad = SlotSchedule::new(c.clone(), vec![Packet::unicast(0, 4)], vec![]);
        assert_eq!(
            bad.verify(),
            Err(SlotViolation::NodeOutOfRange { packet: 0, node: 4 })
        );
        let unknown = SlotSchedule::new(
            c.clone(),
            vec![Packet::unicast(0, 0)],
            vec![vec![Transmission {
                packet: PacketId(5),
                arc: c.arc(0, 1),
            }]],
        );
        assert_eq!(
            unknown.verify(),
            Err(SlotViolation::UnknownPacket { slot: 1, packet: 5 })
        );
        let arc = SlotSchedule::new(
            c.clone(),
            vec![Packet::unicast(0, 0)],
            vec![
                vec![],
                vec![Transmission {
                    packet: PacketId(0),
                    arc: ChannelId(8),
                }],
            ],
        );
        assert_eq!(
            arc.verify(),
            Err(SlotViolation::ArcOutOfRange { slot: 2, arc: 8 })
        );
        let mut b = Builder::new(&c);
        let p = b.packet(Packet::unicast(0, 1));
        let q = b.packet(Packet::broadcast(0));
        b.send(1, p, 0, 1);
        b.send(1, q, 0, 1);
        assert_eq!(
            b.finish().verify(),
            Err(SlotViolation::ArcReused {
                slot: 1,
                arc: 0,
                node: 0,
                dimension: 1,
                first: 0,
                second: 1
            })
        );
    }

    #[test]
    fn control_packets_do_not_count_as_deliveries_and_empty_tails_do_not_count_as_slots() {
        let c = cube(1);
        let mut b = Builder::new(&c);
        let p = b.packet(Packet {
            origin: 0,
            destination: Destination::Node(1),
            kind: PacketKind::Control,
        });
        b.send(1, p, 0, 1);
        let (c, packets, mut slots) = b.finish().into_parts();
        slots.push(Vec::new());
        let s = SlotSchedule::new(c, packets, slots);
        let r = s.verify().unwrap();
        assert_eq!((r.slots, r.last_delivery), (1, 0));
        assert!(!r.every_arc_busy);
        assert_eq!(s.completion_time(), 1);
    }
}
