//! Simultaneous broadcasts (Stamoulis chapter 4).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use fatnet_topology::{Hypercube, Topology};
use rand::Rng;
use serde::Serialize;

use super::slots::{Builder, Destination, Packet, PacketId, PacketKind, SlotSchedule};
use super::trees::UnbalancedTree;
use super::{check_nodes, cube, e};
use crate::OfflineError;

/// Lower bound on the time of `K` simultaneous broadcasts on the `d`-cube, for any algorithm
/// and any `K` broadcasting nodes (Stamoulis §4.2): `max{d, ⌈(2^d − 1)·K / (d·2^d)⌉}` slots —
/// each broadcast takes at least the diameter `d`, and the `K(2^d − 1)` transmissions need
/// that many arc-slots out of `d·2^d` per slot. (The thesis states the second term without
/// the ceiling; completion times are integers.)
///
/// # Panics
///
/// If `d` is 0 or above 32.
pub fn k_broadcast_lower_bound(d: u32, k: u64) -> u64 {
    assert!((1..=32).contains(&d), "d = {d} out of range");
    let n = 1u64 << d;
    u64::from(d).max(((n - 1) * k).div_ceil(u64::from(d) * n))
}

/// Stamoulis' bound on [`k_broadcasts`] (§4.4): `2⌈K/d⌉ + 4d + 2` slots — phase 1 `2d`,
/// phase 2 at most `⌈K/d⌉ + d + 2`, phase 3 `⌈K/d⌉ + d`.
///
/// # Panics
///
/// If `d` is 0.
pub fn k_broadcast_upper_bound(d: u32, k: u64) -> u64 {
    assert!(d >= 1, "d = 0");
    2 * k.div_ceil(u64::from(d)) + 4 * u64::from(d) + 2
}

/// The thesis's bounds on [`multinode_broadcast_a4`] (§4.4): at least
/// `⌊2^(d−1)/d⌋ + ⌈2^d/d⌉ + d` (root `e_(d−1)` receives at least `⌊2^(d−1)/d⌋` packets through
/// one arc in phase 2, then phase 3 takes `⌈2^d/d⌉ + d`) and at most `2⌈2^d/d⌉ + 2d + 2`.
///
/// # Panics
///
/// If `d` is 0 or above 32.
pub fn multinode_broadcast_a4_bounds(d: u32) -> (u64, u64) {
    assert!((1..=32).contains(&d), "d = {d} out of range");
    let (n, d) = (1u64 << d, u64::from(d));
    (
        (n / 2) / d + n.div_ceil(d) + d,
        2 * n.div_ceil(d) + 2 * d + 2,
    )
}

/// The optimal multinode-broadcast time on the `d`-cube, `⌈(2^d − 1)/d⌉` slots: every node
/// receives `2^d − 1` packets over `d` input arcs (it is also at least the diameter `d`). The
/// thesis quotes it from Bertsekas et al. (JPDC 1991) in §4.4, where the OCR misprints it as
/// `⌈2^(d−1)/d⌉`; [`multinode_broadcast`] attains it for `d <= 12`.
///
/// # Panics
///
/// If `d` is 0 or above 32.
pub fn multinode_broadcast_time(d: u32) -> u64 {
    assert!((1..=32).contains(&d), "d = {d} out of range");
    ((1u64 << d) - 1).div_ceil(u64::from(d))
}

/// A parallel suffix-sum computation (§4.3) and its schedule.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SuffixSums {
    /// `sums[x] = Σ_{y ≥ x} a_y`.
    pub sums: Vec<u64>,
    /// The `2d` slots of partial sums, one [`PacketKind::Control`] unicast packet per message.
    pub schedule: SlotSchedule,
}

/// Parallel suffix sums on the `d`-cube in `2d` slots (Stamoulis §4.3): node `x` starts with
/// `a[x]` and ends with `Σ_{y ≥ x} a[y]`.
///
/// The thesis embeds a complete binary tree (its Figure 4.1, after its reference LeL90; the
/// figure is not in our copy); we use the equivalent sweep over the canonical tree at node 0.
/// Up-sweep, slots `1..=d`: in slot `k` every `x` with `x mod 2^k = 2^(k−1)` sends its
/// partial sum of `a[x..x+2^(k−1)]` to `x ⊕ e_k`, which adds it. Down-sweep, slots
/// `d+1..=2d`: for `k = d, …, 1`, every `x` with `x mod 2^k = 0` sends `r_x − S_(k−1)(x)` to
/// `x ⊕ e_k`. Additions take no time, as in the thesis. The sums are returned as computed
/// along the messages.
///
/// # Errors
///
/// [`OfflineError::OutOfRange`] unless `1 <= d <= 12` and `a.len() == 2^d`.
pub fn suffix_sums(d: u32, a: &[u32]) -> Result<SuffixSums, OfflineError> {
    let cube = cube(d)?;
    if a.len() != cube.size() as usize {
        return Err(OfflineError::OutOfRange {
            param: "a.len()",
            value: a.len() as u64,
            allowed: "2^d",
        });
    }
    let mut b = Builder::new(&cube);
    let sums = prefix_phase(&mut b, d, a, 0);
    Ok(SuffixSums {
        sums,
        schedule: b.finish(),
    })
}

/// Emits the `2d` slots of [`suffix_sums`] after slot `offset`; returns the sums.
fn prefix_phase(b: &mut Builder, d: u32, a: &[u32], offset: u32) -> Vec<u64> {
    let n = 1u32 << d;
    let control = |origin, to| Packet {
        origin,
        destination: Destination::Node(to),
        kind: PacketKind::Control,
    };
    // partial[k][x] = S_k(x) = Σ a[x..x+2^k] for x mod 2^k = 0.
    let mut partial: Vec<Vec<u64>> = vec![a.iter().map(|&v| u64::from(v)).collect()];
    for k in 1..=d {
        let mut next = partial[k as usize - 1].clone();
        for x in (e(k)..n).step_by(2 * e(k) as usize) {
            let p = b.packet(control(x, x ^ e(k)));
            b.send(offset + k, p, x, k);
            next[(x ^ e(k)) as usize] += next[x as usize];
        }
        partial.push(next);
    }
    let mut r = vec![0u64; n as usize];
    r[0] = partial[d as usize][0];
    for k in (1..=d).rev() {
        let slot = offset + 2 * d + 1 - k;
        for x in (0..n).step_by(2 * e(k) as usize) {
            let p = b.packet(control(x, x ^ e(k)));
            b.send(slot, p, x, k);
            r[(x ^ e(k)) as usize] = r[x as usize] - partial[k as usize - 1][x as usize];
        }
    }
    r
}

/// The `K` simultaneous broadcasts of Stamoulis §4.4, with the phases' lengths.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct KBroadcasts {
    /// The schedule: data packets `0..K` (packet `i` is the broadcast of `sources[i]`), then
    /// the control packets (prefix sums, termination signals).
    pub schedule: SlotSchedule,
    /// Slots of phase 1, the parallel prefix: `2d`, or 0 when it is skipped.
    pub prefix_slots: u32,
    /// Slots of phase 2 (gather to the roots), termination detection included.
    pub gather_slots: u32,
    /// Slots of phase 3 (scatter along the trees), termination packets included.
    pub scatter_slots: u32,
    /// `roots[i] = j`: data packet `i` is sent to root `e_j` and broadcast along `T^(j)`.
    pub roots: Vec<u32>,
    /// `root_loads[j − 1] = N^(j)`, the number of packets root `e_j` broadcasts.
    pub root_loads: Vec<u32>,
    /// The phase-2 slot (from 1) in which the last data packet reached its root (0 if every
    /// packet started at its root).
    pub last_gather_arrival: u32,
}

/// Checks `1 <= K <= 2^d` and the node ids.
fn check_sources(cube: &Hypercube, sources: &[u32]) -> Result<(), OfflineError> {
    if sources.is_empty() || sources.len() > cube.size() as usize {
        return Err(OfflineError::OutOfRange {
            param: "K",
            value: sources.len() as u64,
            allowed: "1..=2^d",
        });
    }
    check_nodes(cube, sources)
}

/// `a[x]` = number of packets of `x`, and for each source its 1-based occurrence index.
fn multiplicities(n: u32, sources: &[u32]) -> (Vec<u32>, Vec<u32>) {
    let mut a = vec![0u32; n as usize];
    let occurrence = sources
        .iter()
        .map(|&x| {
            a[x as usize] += 1;
            a[x as usize]
        })
        .collect();
    (a, occurrence)
}

/// Root index `((r_x − a_x − 1 + m) mod d) + 1` of the `m`-th packet of `x` (§4.4).
fn root_of(r: u64, a: u32, m: u32, d: u32) -> u32 {
    ((r - u64::from(a) + u64::from(m) - 1) % u64::from(d)) as u32 + 1
}

/// `K` simultaneous broadcasts on the `d`-cube by Stamoulis' algorithm (§4.4): at most
/// [`k_broadcast_upper_bound`]` = 2⌈K/d⌉ + 4d + 2` slots for every set of broadcasters.
///
/// `sources` lists the broadcasting nodes, one per packet (`1 <= K <= 2^d`). A node may appear
/// several times: it then broadcasts several packets, and its `m`-th packet goes to root
/// `((r_x − a_x − 1 + m) mod d) + 1` (end of §4.4); for distinct nodes this is
/// `((r_x − 1) mod d) + 1`.
///
/// Phase 1 (`2d` slots): [`suffix_sums`] of `a_x` = number of packets of `x`; `r_x` is then
/// `x`'s rank in decreasing node order. Phase 2: each packet travels to its root `e_j` along
/// the reverse of the path from `e_j` in [`UnbalancedTree::disjoint`]`(d, j)`; greedy
/// store-and-forward, and where several packets wait for one arc the one that arrived first at
/// the node goes first (ties: more hops left, then lower packet id) — the thesis allows any
/// non-idling rule. Termination (the thesis's "3 slots"): root `e_j` sees the first slot
/// `t_j >= d + 1` with no arrival (after slot `d` arrivals are contiguous on every arc, so
/// none follow), sends a control packet on the arc `(e_j, 0)` in slot `t_j + 1`; node 0, after
/// the `d` of them, signals every root on the arcs `(0, e_j)` in slot `max_j t_j + 2`, the last
/// slot of phase 2 (the thesis leaves this return signal implicit). Phase 3: root `e_j` sends
/// its packets down `T^(j)` in the order they arrived (ties: packet id), one per slot, then a
/// termination packet (a control broadcast); the `m`-th reaches depth `h` in slot `m + h − 1`.
///
/// # Errors
///
/// [`OfflineError::OutOfRange`] unless `1 <= d <= 12` and `1 <= K <= 2^d`;
/// [`OfflineError::NodeOutOfRange`] for a source not below `2^d`.
pub fn k_broadcasts(d: u32, sources: &[u32]) -> Result<KBroadcasts, OfflineError> {
    let cube = cube(d)?;
    check_sources(&cube, sources)?;
    let mut b = Builder::new(&cube);
    for &x in sources {
        b.packet(Packet::broadcast(x));
    }
    let (a, occurrence) = multiplicities(cube.size(), sources);
    let r = prefix_phase(&mut b, d, &a, 0);
    let roots = sources
        .iter()
        .zip(&occurrence)
        .map(|(&x, &m)| root_of(r[x as usize], a[x as usize], m, d))
        .collect();
    Ok(gather_scatter(b, &cube, sources, roots, 2 * d))
}

/// The multinode broadcast (`K = 2^d`, every node broadcasts) by the algorithm of §4.4
/// without phase 1, since the ranks `r_x = 2^d − x` are known: at most
/// `2⌈2^d/d⌉ + 2d + 2` slots and at least `⌊2^(d−1)/d⌋ + ⌈2^d/d⌉ + d`
/// ([`multinode_broadcast_a4_bounds`]). Data packet `x` is node `x`'s broadcast.
///
/// # Errors
///
/// [`OfflineError::OutOfRange`] unless `1 <= d <= 12`.
pub fn multinode_broadcast_a4(d: u32) -> Result<KBroadcasts, OfflineError> {
    let cube = cube(d)?;
    let n = cube.size();
    let sources: Vec<u32> = (0..n).collect();
    let mut b = Builder::new(&cube);
    for &x in &sources {
        b.packet(Packet::broadcast(x));
    }
    let roots = sources
        .iter()
        .map(|&x| root_of(u64::from(n - x), 1, 1, d))
        .collect();
    Ok(gather_scatter(b, &cube, &sources, roots, 0))
}

/// The randomized oblivious version of §4.5: no phase 1; every packet picks its root
/// uniformly from `1..=d` with `rng`, then phases 2 and 3 run as in [`k_broadcasts`] (the
/// idle-slot termination rule needs no knowledge of `K`). If `max_j N^(j) <= C·K/d` it ends
/// within `2C·K/d + 2d + 2` slots, i.e. `2·max_j N^(j) + 2d + 2`.
///
/// # Errors
///
/// As [`k_broadcasts`].
pub fn randomized_k_broadcasts(
    d: u32,
    sources: &[u32],
    rng: &mut impl Rng,
) -> Result<KBroadcasts, OfflineError> {
    let cube = cube(d)?;
    check_sources(&cube, sources)?;
    let mut b = Builder::new(&cube);
    for &x in sources {
        b.packet(Packet::broadcast(x));
    }
    let roots = sources.iter().map(|_| rng.random_range(1..=d)).collect();
    Ok(gather_scatter(b, &cube, sources, roots, 0))
}

/// A packet walking a fixed list of dimensions.
#[derive(Debug)]
struct Walker {
    packet: PacketId,
    at: u32,
    dims: Vec<u32>,
    next: usize,
    /// Local slot of arrival at `at` (0: the start).
    arrived: u32,
}

/// Greedy store-and-forward of the walkers from slot `offset + 1` on: in every slot each arc
/// sends, among the walkers waiting at its tail, the one that arrived first at the node
/// (ties: more hops left, then lower packet id). Returns each walker's local arrival slot at
/// the end of its walk (0 for an empty walk).
fn greedy_walks(
    b: &mut Builder,
    cube: &Hypercube,
    offset: u32,
    walkers: &mut [Walker],
) -> Vec<u32> {
    let mut done_at = vec![0u32; walkers.len()];
    let mut remaining = walkers.iter().filter(|w| !w.dims.is_empty()).count();
    let mut best: Vec<(u32, usize)> = vec![(0, 0); cube.num_channels() as usize];
    let mut touched = Vec::new();
    let key = |w: &Walker| (w.arrived, Reverse(w.dims.len() - w.next), w.packet);
    let mut t = 0u32;
    while remaining > 0 {
        t += 1;
        touched.clear();
        for (i, w) in walkers.iter().enumerate() {
            if w.next == w.dims.len() || w.arrived >= t {
                continue;
            }
            let a = cube.arc(w.at, w.dims[w.next]).index();
            if best[a].0 != t {
                best[a] = (t, i);
                touched.push(a);
            } else if key(w) < key(&walkers[best[a].1]) {
                best[a].1 = i;
            }
        }
        for &a in &touched {
            let i = best[a].1;
            let w = &mut walkers[i];
            let dim = w.dims[w.next];
            b.send(offset + t, w.packet, w.at, dim);
            w.at ^= e(dim);
            w.next += 1;
            w.arrived = t;
            if w.next == w.dims.len() {
                done_at[i] = t;
                remaining -= 1;
            }
        }
    }
    done_at
}

/// Phases 2 and 3 of §4.4 for data packets `0..K` (origins `sources`, roots `roots`), after
/// `prefix_slots` slots of phase 1 already in `b`.
fn gather_scatter(
    mut b: Builder,
    cube: &Hypercube,
    sources: &[u32],
    roots: Vec<u32>,
    prefix_slots: u32,
) -> KBroadcasts {
    let d = cube.dimension();
    let trees: Vec<UnbalancedTree> = (1..=d)
        .map(|j| UnbalancedTree::disjoint(d, j).expect("1 <= j <= d"))
        .collect();
    // Phase 2.
    let mut walkers: Vec<Walker> = sources
        .iter()
        .zip(&roots)
        .enumerate()
        .map(|(i, (&x, &j))| {
            let mut dims = trees[j as usize - 1].path(x);
            dims.reverse();
            Walker {
                packet: PacketId(i as u32),
                at: x,
                dims,
                next: 0,
                arrived: 0,
            }
        })
        .collect();
    let arrival = greedy_walks(&mut b, cube, prefix_slots, &mut walkers);
    let last_gather_arrival = arrival.iter().copied().max().unwrap_or(0);
    // Termination detection: t_j = first slot >= d + 1 with no arrival at e_j.
    let mut at_root: Vec<Vec<u32>> = vec![Vec::new(); d as usize];
    for (i, &j) in roots.iter().enumerate() {
        at_root[j as usize - 1].push(i as u32);
    }
    let mut detect = Vec::with_capacity(d as usize);
    for (j, packets) in at_root.iter_mut().enumerate() {
        let mut slots: Vec<u32> = packets.iter().map(|&i| arrival[i as usize]).collect();
        slots.sort_unstable();
        let mut t = d + 1;
        while slots.binary_search(&t).is_ok() {
            t += 1;
        }
        assert!(
            slots.last().is_none_or(|&s| s < t),
            "root e_{}: arrival after an idle slot (contiguity, §4.4)",
            j + 1
        );
        detect.push(t);
        packets.sort_by_key(|&i| (arrival[i as usize], i));
    }
    for (j, &t) in (1..=d).zip(&detect) {
        let p = b.packet(Packet {
            origin: e(j),
            destination: Destination::Node(0),
            kind: PacketKind::Control,
        });
        b.send(prefix_slots + t + 1, p, e(j), j);
    }
    let gather_slots = detect.iter().copied().max().expect("d >= 1") + 2;
    for j in 1..=d {
        let p = b.packet(Packet {
            origin: 0,
            destination: Destination::Node(e(j)),
            kind: PacketKind::Control,
        });
        b.send(prefix_slots + gather_slots, p, 0, j);
    }
    // Phase 3.
    let start = prefix_slots + gather_slots;
    let mut scatter_slots = 0;
    for (tree, packets) in trees.iter().zip(&at_root) {
        let stop = b.packet(Packet {
            origin: tree.root(),
            destination: Destination::All,
            kind: PacketKind::Control,
        });
        let arcs: Vec<(u32, u32, u32)> = (0..cube.size())
            .filter_map(|y| tree.parent(y).map(|(p, i)| (p, i, tree.depth(y))))
            .collect();
        let sequence = packets.iter().map(|&i| PacketId(i)).chain([stop]);
        for (m, packet) in (1u32..).zip(sequence) {
            for &(parent, dim, depth) in &arcs {
                b.send(start + m + depth - 1, packet, parent, dim);
            }
            scatter_slots = scatter_slots.max(m + d - 1);
        }
    }
    KBroadcasts {
        schedule: b.finish(),
        prefix_slots,
        gather_slots,
        scatter_slots,
        roots,
        root_loads: at_root.iter().map(|p| p.len() as u32).collect(),
        last_gather_arrival,
    }
}

/// How [`tree_broadcasts`] resolves contention for an arc.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Contention {
    /// The copy that arrived first at the node goes first; ties to the lower packet id. (With
    /// two broadcasters this consistent tie-break alone already gives `d` slots: the first
    /// packet is never delayed, and the second never meets it, in the same slot, on the path
    /// to its own antipode.)
    Fifo,
    /// §4.6.2: a copy whose subtree contains its origin's antipode (`x̄`, at distance `d`)
    /// goes first, then as [`Contention::Fifo`]. With two broadcasters at most one of two
    /// contending copies has this priority, and both broadcasts end in `d` slots.
    AntipodeFirst,
}

/// Broadcasts along each broadcaster's own canonical tree (Stamoulis §4.6.1): every packet
/// follows the completely unbalanced tree rooted at its origin with increasing dimension order;
/// a copy that arrived at `z` across dimension `i` (the origin: `i = 0`) is sent across every
/// dimension `j > i`. Contending copies are served by `contention`. Whatever the rule, every
/// copy waits at most `K − 1` slots: at most `d + K − 1` slots in all (for `K = O(d)`; with
/// adversarial sets of size `2^(d−1)` it needs `2^(d−1)`, §4.2).
///
/// `sources` lists the broadcasters, one per packet (`1 <= K <= 2^d`; repeats allowed).
///
/// # Errors
///
/// [`OfflineError::OutOfRange`] unless `1 <= d <= 12` and `1 <= K <= 2^d`;
/// [`OfflineError::NodeOutOfRange`] for a source not below `2^d`.
pub fn tree_broadcasts(
    d: u32,
    sources: &[u32],
    contention: Contention,
) -> Result<SlotSchedule, OfflineError> {
    let cube = cube(d)?;
    check_sources(&cube, sources)?;
    let mask = cube.size() - 1;
    let mut b = Builder::new(&cube);
    // Per arc: waiting copies keyed by (priority, arrival slot, packet).
    type Queue = BinaryHeap<Reverse<(u8, u32, u32)>>;
    let mut queues: Vec<Queue> = vec![Queue::new(); cube.num_channels() as usize];
    let mut active: Vec<usize> = Vec::new();
    let enqueue =
        |queues: &mut Vec<Queue>, active: &mut Vec<usize>, p: u32, z: u32, after: u32, t: u32| {
            let antipode = !sources[p as usize] & mask;
            for j in after + 1..=d {
                let below_antipode = (z ^ antipode) & (e(j) - 1) == 0;
                let priority = match contention {
                    Contention::AntipodeFirst if below_antipode => 0,
                    Contention::AntipodeFirst => 1,
                    Contention::Fifo => 0,
                };
                let a = cube.arc(z, j).index();
                if queues[a].is_empty() {
                    active.push(a);
                }
                queues[a].push(Reverse((priority, t, p)));
            }
        };
    for (p, &x) in sources.iter().enumerate() {
        b.packet(Packet::broadcast(x));
        enqueue(&mut queues, &mut active, p as u32, x, 0, 0);
    }
    let mut t = 0;
    let mut sent = Vec::new();
    while !active.is_empty() {
        t += 1;
        sent.clear();
        for &a in &active {
            let Reverse((_, _, p)) = queues[a].pop().expect("active arcs have a queue");
            let (z, j) = cube.arc_parts(fatnet_topology::ChannelId(a as u32));
            b.send(t, PacketId(p), z, j);
            sent.push((p, z ^ e(j), j));
        }
        active.retain(|&a| !queues[a].is_empty());
        for &(p, z, j) in &sent {
            enqueue(&mut queues, &mut active, p, z, j, t);
        }
    }
    Ok(b.finish())
}

/// Two simultaneous broadcasts in `d` slots, the optimum (Stamoulis §4.6.2):
/// [`tree_broadcasts`] with [`Contention::AntipodeFirst`].
///
/// # Errors
///
/// [`OfflineError::OutOfRange`] unless `1 <= d <= 12`; [`OfflineError::NodeOutOfRange`];
/// [`OfflineError::DuplicateNode`] if `x == y`.
pub fn two_broadcasts(d: u32, x: u32, y: u32) -> Result<SlotSchedule, OfflineError> {
    check_nodes(&cube(d)?, &[x, y])?;
    if x == y {
        return Err(OfflineError::DuplicateNode { node: x });
    }
    tree_broadcasts(d, &[x, y], Contention::AntipodeFirst)
}

/// Where [`ranked_broadcasts`] gets the broadcasters' ranks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Ranks {
    /// The ranks are known in advance (e.g. one node with all packets, or a set that
    /// broadcasts repeatedly): `d` slots.
    Known,
    /// The ranks are computed first by the `2d`-slot parallel prefix ([`suffix_sums`]):
    /// `3d` slots.
    Prefix,
}

/// `K <= d` simultaneous broadcasts with distinct ranks in `d` slots, without contention
/// (Stamoulis §4.6.3). The packet of rank `r` (its position in decreasing node order, as
/// computed by the prefix; the `m`-th of `a_x` packets of `x` has rank `r_x − a_x + m`) is
/// broadcast by recursive doubling: in slot `m`, every node holding it sends it across
/// dimension `((r + m − 2) mod d) + 1`. Distinct ranks put different packets on different
/// dimensions in every slot.
///
/// Choice: the thesis lists the tree's order as `(r mod d) + 1, ((r + 1) mod d) + 1, …` but the
/// slot rule `((r + m − 2) mod d) + 1` gives dimension `r` in slot 1; we follow the slot rule
/// (either consistent reading works). The thesis states `K = d`; the argument needs only
/// distinct ranks in `1..=d`, so `K <= d` is accepted.
///
/// # Errors
///
/// [`OfflineError::OutOfRange`] unless `1 <= d <= 12` and `1 <= K <= d`;
/// [`OfflineError::NodeOutOfRange`] for a source not below `2^d`.
pub fn ranked_broadcasts(
    d: u32,
    sources: &[u32],
    ranks: Ranks,
) -> Result<SlotSchedule, OfflineError> {
    let cube = cube(d)?;
    if sources.is_empty() || sources.len() > d as usize {
        return Err(OfflineError::OutOfRange {
            param: "K",
            value: sources.len() as u64,
            allowed: "1..=d",
        });
    }
    check_nodes(&cube, sources)?;
    let mut b = Builder::new(&cube);
    for &x in sources {
        b.packet(Packet::broadcast(x));
    }
    let (a, occurrence) = multiplicities(cube.size(), sources);
    let (r, offset) = match ranks {
        Ranks::Prefix => (prefix_phase(&mut b, d, &a, 0), 2 * d),
        Ranks::Known => {
            let mut r = vec![0u64; a.len()];
            let mut sum = 0;
            for x in (0..a.len()).rev() {
                sum += u64::from(a[x]);
                r[x] = sum;
            }
            (r, 0)
        }
    };
    for (p, (&x, &m)) in sources.iter().zip(&occurrence).enumerate() {
        let rank = (r[x as usize] - u64::from(a[x as usize]) + u64::from(m)) as u32;
        doubling(
            &mut b,
            PacketId(p as u32),
            x,
            (1..=d).map(|m| (rank + m - 2) % d + 1),
            offset,
        );
    }
    Ok(b.finish())
}

/// Recursive doubling of `packet` from `origin`: in slot `offset + m` every holder sends it
/// across the `m`-th dimension of `order`.
fn doubling(
    b: &mut Builder,
    packet: PacketId,
    origin: u32,
    order: impl Iterator<Item = u32>,
    offset: u32,
) {
    let mut holders = vec![origin];
    for (m, dim) in (1u32..).zip(order) {
        let reached: Vec<u32> = holders.iter().map(|&z| z ^ e(dim)).collect();
        for &z in &holders {
            b.send(offset + m, packet, z, dim);
        }
        holders.extend(reached);
    }
}

/// A single-node broadcast in `d` slots, the diameter: recursive doubling along the
/// canonical tree of `source` (slot `m` crosses dimension `m`).
///
/// # Errors
///
/// [`OfflineError::OutOfRange`] unless `1 <= d <= 12`; [`OfflineError::NodeOutOfRange`].
pub fn single_node_broadcast(d: u32, source: u32) -> Result<SlotSchedule, OfflineError> {
    let cube = cube(d)?;
    check_nodes(&cube, &[source])?;
    let mut b = Builder::new(&cube);
    let p = b.packet(Packet::broadcast(source));
    doubling(&mut b, p, source, 1..=d, 0);
    Ok(b.finish())
}

/// An optimal multinode broadcast: every node broadcasts one packet (data packet `x` is node
/// `x`'s), in [`multinode_broadcast_time`]` = ⌈(2^d − 1)/d⌉` slots for `1 <= d <= 12`.
///
/// The thesis quotes this optimum from Bertsekas et al. (JPDC 1991) without a construction;
/// this one is ours.
/// The schedule is translation invariant: a spanning tree of the cube rooted at 0, with a slot
/// `s(v)` and a dimension `i(v)` for every node `v ≠ 0` (`v` receives node 0's packet in slot
/// `s(v)` across dimension `i(v)`), and node `y`'s packet reaches `y ⊕ v` in slot `s(v)` across
/// the arc from `y ⊕ v ⊕ e_(i(v))`. It is valid when `s` increases along the tree's paths and
/// no two nodes share a (slot, dimension) pair: then every arc of dimension `i` carries, in
/// slot `s`, the packet of exactly one origin. Slot by slot we add a maximum matching between
/// the dimensions and the unreached nodes adjacent to reached ones (Kuhn's augmenting paths;
/// candidates by increasing Hamming weight, then id). For `d <= 12` this greedy fills all `d`
/// dimensions in every slot but the last, which is the optimum; [`SlotSchedule::verify`]
/// certifies the result, and the tests check the time for every `d`.
///
/// # Errors
///
/// [`OfflineError::OutOfRange`] unless `1 <= d <= 12`.
pub fn multinode_broadcast(d: u32) -> Result<SlotSchedule, OfflineError> {
    let cube = cube(d)?;
    let n = cube.size();
    let mut labels = mnb_labels(d, n);
    let mut b = Builder::new(&cube);
    for y in 0..n {
        b.packet(Packet::broadcast(y));
    }
    labels.sort_unstable_by_key(|&(v, dim, slot)| (slot, dim, v));
    for &(v, dim, slot) in &labels {
        for y in 0..n {
            b.send(slot, PacketId(y), y ^ v ^ e(dim), dim);
        }
    }
    Ok(b.finish())
}

/// The spanning tree and timing of [`multinode_broadcast`], which is translation invariant:
/// node `v ≠ 0` receives node 0's packet in the 1-based slot `slot[v]` across the 0-based
/// dimension `dim[v]`, and node `y`'s packet reaches `y ⊕ v` in the same slot across the same
/// dimension (`slot[0] = 0`, `dim[0] = u32::MAX`). The on-line periodic broadcast schemes
/// (`fatnet_online::periodic_broadcast`) take it, so that the simulator does not depend on the
/// off-line schedulers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MnbTree {
    /// The cube's dimension.
    pub d: u32,
    /// `s(v)`, 1-based (0 for the root).
    pub slot: Vec<u32>,
    /// `i(v)`, 0-based (`u32::MAX` for the root).
    pub dim: Vec<u32>,
}

/// The tree of [`multinode_broadcast`]`(d)` (see [`MnbTree`]).
///
/// # Errors
///
/// [`OfflineError::OutOfRange`] unless `1 <= d <= 12`.
pub fn multinode_broadcast_tree(d: u32) -> Result<MnbTree, OfflineError> {
    let n = cube(d)?.size();
    let mut slot = vec![0u32; n as usize];
    let mut dim = vec![u32::MAX; n as usize];
    for (v, j, t) in mnb_labels(d, n) {
        slot[v as usize] = t;
        dim[v as usize] = j - 1;
    }
    Ok(MnbTree { d, slot, dim })
}

/// `(v, dimension (1-based), slot)` for every node `v ≠ 0` of [`multinode_broadcast`]'s tree,
/// in the order found.
fn mnb_labels(d: u32, n: u32) -> Vec<(u32, u32, u32)> {
    const NEVER: u32 = u32::MAX;
    let mut reached = vec![NEVER; n as usize];
    reached[0] = 0;
    let mut labels: Vec<(u32, u32, u32)> = Vec::with_capacity(n as usize - 1); // (v, dim, slot)
    let mut count = 1;
    let mut t = 0;
    let mut owner = vec![0u32; n as usize]; // dimension matched to a node (0: none)
    let mut seen = vec![0u32; n as usize];
    let mut stamp = 0u32;
    while count < n {
        t += 1;
        let candidates: Vec<Vec<u32>> = (1..=d)
            .map(|j| {
                let mut c: Vec<u32> = (0..n)
                    .filter(|&v| reached[v as usize] == NEVER && reached[(v ^ e(j)) as usize] < t)
                    .collect();
                c.sort_by_key(|&v| (v.count_ones(), v));
                c
            })
            .collect();
        let mut matched: Vec<u32> = Vec::new();
        for j in 1..=d {
            stamp += 1;
            augment(j, &candidates, &mut owner, &mut seen, stamp, &mut matched);
        }
        for &v in &matched {
            reached[v as usize] = t;
            labels.push((v, owner[v as usize], t));
            owner[v as usize] = 0;
        }
        assert!(
            !matched.is_empty(),
            "a connected cube always has a candidate"
        );
        count += matched.len() as u32;
    }
    labels
}

/// Kuhn's augmenting path from dimension `j`: `owner[v]` is the dimension matched to `v`.
fn augment(
    j: u32,
    candidates: &[Vec<u32>],
    owner: &mut [u32],
    seen: &mut [u32],
    stamp: u32,
    matched: &mut Vec<u32>,
) -> bool {
    for &v in &candidates[j as usize - 1] {
        if seen[v as usize] == stamp {
            continue;
        }
        seen[v as usize] = stamp;
        let o = owner[v as usize];
        if o == 0 || augment(o, candidates, owner, seen, stamp, matched) {
            if o == 0 {
                matched.push(v);
            }
            owner[v as usize] = j;
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;
    use rand::seq::index::sample;
    use rand_pcg::Pcg64;

    use super::*;

    #[test]
    fn the_mnb_tree_is_the_schedule_translated() {
        for d in 1..=8 {
            let schedule = multinode_broadcast(d).unwrap();
            schedule.verify().unwrap();
            let tree = multinode_broadcast_tree(d).unwrap();
            let n = 1u32 << d;
            assert_eq!((tree.slot[0], tree.dim[0]), (0, u32::MAX));
            let mut seen = 0u64;
            for (t, transmissions) in schedule.slots().iter().enumerate() {
                for &tr in transmissions {
                    let (_, dimension, to) = schedule.endpoints(tr);
                    let origin = schedule.packets()[tr.packet.index()].origin;
                    let v = (to ^ origin) as usize;
                    assert_eq!((tree.slot[v], tree.dim[v]), (t as u32 + 1, dimension - 1));
                    seen += 1;
                }
            }
            // Every origin reaches every other node once.
            assert_eq!(seen, u64::from(n) * u64::from(n - 1), "d = {d}");
            let last = *tree.slot.iter().max().unwrap();
            assert_eq!(u64::from(last), multinode_broadcast_time(d), "d = {d}");
        }
        assert!(multinode_broadcast_tree(13).is_err());
    }

    /// Verifies and returns (completion, last data delivery).
    fn run(s: &SlotSchedule) -> (u64, u64) {
        let r = s.verify().unwrap_or_else(|v| panic!("{v:?}"));
        (r.slots as u64, r.last_delivery as u64)
    }

    fn random_set(rng: &mut Pcg64, d: u32, k: usize) -> Vec<u32> {
        sample(rng, 1 << d, k)
            .into_iter()
            .map(|x| x as u32)
            .collect()
    }

    #[test]
    fn suffix_sums_reproduce_the_thesis_example() {
        // §4.4: nodes 0, 2, 3, 6 of the 3-cube broadcast.
        let mut a = vec![0; 8];
        for x in [0, 2, 3, 6] {
            a[x] = 1;
        }
        let s = suffix_sums(3, &a).unwrap();
        assert_eq!(s.sums, vec![4, 3, 3, 2, 1, 1, 1, 0]);
        assert_eq!(run(&s.schedule).0, 6);
        assert_eq!(s.schedule.num_transmissions(), 2 * 7);
    }

    #[test]
    fn suffix_sums_of_random_inputs_take_2d_slots() {
        let mut rng = Pcg64::seed_from_u64(3);
        for d in 1..=8 {
            let a: Vec<u32> = (0..1 << d).map(|_| rng.random_range(0..1000)).collect();
            let s = suffix_sums(d, &a).unwrap();
            let mut expected = vec![0u64; a.len()];
            let mut sum = 0;
            for x in (0..a.len()).rev() {
                sum += u64::from(a[x]);
                expected[x] = sum;
            }
            assert_eq!(s.sums, expected, "d = {d}");
            assert_eq!(run(&s.schedule).0, 2 * u64::from(d));
        }
        assert!(suffix_sums(3, &[1, 2]).is_err());
    }

    #[test]
    fn k_broadcasts_meet_the_bound_with_balanced_roots() {
        let mut rng = Pcg64::seed_from_u64(11);
        for d in 1..=7u32 {
            for k in [
                1,
                2,
                d as usize,
                d as usize + 1,
                1 << (d - 1),
                (1 << d) - 1,
                1 << d,
            ] {
                let sources = random_set(&mut rng, d, k);
                let kb = k_broadcasts(d, &sources).unwrap();
                let (slots, _) = run(&kb.schedule);
                let k = k as u64;
                assert!(
                    slots <= k_broadcast_upper_bound(d, k),
                    "d={d} K={k}: {slots}"
                );
                assert!(slots >= k_broadcast_lower_bound(d, k));
                assert_eq!(
                    slots,
                    u64::from(kb.prefix_slots + kb.gather_slots + kb.scatter_slots)
                );
                assert_eq!(kb.prefix_slots, 2 * d);
                let (lo, hi) = (k / u64::from(d), k.div_ceil(u64::from(d)));
                assert!(
                    kb.root_loads
                        .iter()
                        .all(|&n| (lo..=hi).contains(&u64::from(n))),
                    "{:?}",
                    kb.root_loads
                );
                assert!(u64::from(kb.last_gather_arrival) < hi + u64::from(d));
                assert_eq!(u64::from(kb.scatter_slots), hi + u64::from(d));
            }
        }
    }

    #[test]
    fn a_node_with_several_packets_spreads_them_over_the_roots() {
        let kb = k_broadcasts(4, &[5, 5, 5, 5, 9]).unwrap();
        run(&kb.schedule);
        // r_5 = 5, a_5 = 4: packets m = 1..4 go to roots ((5 − 4 − 1 + m) mod 4) + 1.
        assert_eq!(kb.roots, vec![2, 3, 4, 1, 1]);
        assert_eq!(kb.root_loads, vec![2, 1, 1, 1]);
    }

    #[test]
    fn multinode_broadcast_by_a4_is_within_the_thesis_bounds() {
        for d in 1..=7 {
            let kb = multinode_broadcast_a4(d).unwrap();
            let (slots, _) = run(&kb.schedule);
            let (lo, hi) = multinode_broadcast_a4_bounds(d);
            assert!(
                (lo..=hi).contains(&slots),
                "d = {d}: {lo} <= {slots} <= {hi}"
            );
            assert_eq!(kb.prefix_slots, 0);
        }
    }

    #[test]
    fn randomized_broadcasts_end_within_twice_the_largest_root_load() {
        let mut rng = Pcg64::seed_from_u64(5);
        for d in 2..=7u32 {
            let sources = random_set(&mut rng, d, (1 << d) / 2);
            let kb = randomized_k_broadcasts(d, &sources, &mut rng).unwrap();
            let (slots, _) = run(&kb.schedule);
            let max = u64::from(*kb.root_loads.iter().max().unwrap());
            assert!(slots <= 2 * max + 2 * u64::from(d) + 2, "d = {d}");
            assert_eq!(kb.root_loads.iter().sum::<u32>() as usize, sources.len());
        }
    }

    #[test]
    fn tree_broadcasts_take_at_most_d_plus_k_minus_one() {
        let mut rng = Pcg64::seed_from_u64(7);
        for d in 1..=7u32 {
            for k in 1..=(3 * d as usize).min(1 << d) {
                let sources = random_set(&mut rng, d, k);
                for c in [Contention::Fifo, Contention::AntipodeFirst] {
                    let s = tree_broadcasts(d, &sources, c).unwrap();
                    let (slots, last) = run(&s);
                    assert!(slots < u64::from(d) + k as u64, "d={d} K={k} {c:?}");
                    assert_eq!(slots, last);
                    assert_eq!(s.num_transmissions(), k * ((1 << d) - 1));
                }
            }
        }
    }

    #[test]
    fn prespecified_trees_are_slow_on_an_adversarial_set() {
        // §4.2: every node with bit d set reaches node 0 last across the arc (e_d, 0).
        for d in 2..=7u32 {
            let sources: Vec<u32> = (1 << (d - 1)..1 << d).collect();
            let k = sources.len() as u64;
            let (slots, _) = run(&tree_broadcasts(d, &sources, Contention::Fifo).unwrap());
            assert!(slots >= k, "d = {d}");
            let (a4, _) = run(&k_broadcasts(d, &sources).unwrap().schedule);
            assert!(a4 <= k_broadcast_upper_bound(d, k));
        }
    }

    #[test]
    fn two_broadcasts_take_exactly_d_slots() {
        for d in 1..=5u32 {
            for x in 0..1 << d {
                for y in (0..1 << d).filter(|&y| y != x) {
                    let (slots, _) = run(&two_broadcasts(d, x, y).unwrap());
                    assert_eq!(slots, u64::from(d), "d={d} x={x} y={y}");
                }
            }
        }
        assert_eq!(
            two_broadcasts(3, 2, 2),
            Err(OfflineError::DuplicateNode { node: 2 })
        );
    }

    #[test]
    fn fifo_with_a_consistent_tie_break_is_also_exact_for_two_broadcasts() {
        // The lower-id packet wins every tie, so it is never delayed; the other packet's copy on
        // its path to its antipode never meets it in the same slot at the same arc (that would
        // force x = y), so it is never delayed there either: d slots without §4.6.2's rule.
        for d in 1..=4u32 {
            for x in 0..1 << d {
                for y in (0..1 << d).filter(|&y| y != x) {
                    let s = tree_broadcasts(d, &[x, y], Contention::Fifo).unwrap();
                    assert_eq!(run(&s).0, u64::from(d), "d={d} x={x} y={y}");
                }
            }
        }
    }

    #[test]
    fn ranked_broadcasts_take_d_slots_or_3d_with_the_prefix() {
        let mut rng = Pcg64::seed_from_u64(9);
        for d in 1..=8u32 {
            for k in 1..=d as usize {
                let sources = random_set(&mut rng, d, k);
                let known = ranked_broadcasts(d, &sources, Ranks::Known).unwrap();
                assert_eq!(run(&known), (u64::from(d), u64::from(d)));
                let prefix = ranked_broadcasts(d, &sources, Ranks::Prefix).unwrap();
                assert_eq!(run(&prefix), (3 * u64::from(d), 3 * u64::from(d)));
            }
            // One node with d packets needs no prefix.
            let one = ranked_broadcasts(d, &vec![1; d as usize], Ranks::Known).unwrap();
            assert_eq!(run(&one).0, u64::from(d));
        }
        assert!(ranked_broadcasts(3, &[0, 1, 2, 3], Ranks::Known).is_err());
    }

    #[test]
    fn single_node_broadcast_takes_d_slots_and_2_to_the_d_minus_1_transmissions() {
        for d in 1..=10u32 {
            let s = single_node_broadcast(d, (1 << d) - 1).unwrap();
            assert_eq!(run(&s), (u64::from(d), u64::from(d)));
            assert_eq!(s.num_transmissions(), (1 << d) - 1);
        }
    }

    #[test]
    fn multinode_broadcast_is_optimal() {
        for d in 1..=9u32 {
            let s = multinode_broadcast(d).unwrap();
            let r = s.verify().unwrap();
            assert_eq!(r.slots as u64, multinode_broadcast_time(d), "d = {d}");
            // Every arc is busy in every slot but the last.
            let arcs = (d as usize) << d;
            assert!(s.slots()[..r.slots - 1].iter().all(|t| t.len() == arcs));
        }
    }

    #[test]
    fn bounds_follow_the_formulas() {
        assert_eq!(k_broadcast_upper_bound(4, 16), 2 * 4 + 16 + 2);
        assert_eq!(k_broadcast_lower_bound(4, 16), 4);
        assert_eq!(k_broadcast_lower_bound(4, 2), 4);
        assert_eq!(k_broadcast_lower_bound(10, 1024), 103);
        assert_eq!(multinode_broadcast_time(10), 103);
        assert_eq!(multinode_broadcast_a4_bounds(4), (2 + 4 + 4, 8 + 8 + 2));
    }

    #[test]
    fn bad_inputs_are_errors() {
        assert!(matches!(
            k_broadcasts(3, &[]),
            Err(OfflineError::OutOfRange { param: "K", .. })
        ));
        assert_eq!(
            k_broadcasts(3, &[1, 8]).unwrap_err(),
            OfflineError::NodeOutOfRange { node: 8, nodes: 8 }
        );
        assert!(tree_broadcasts(2, &[0; 5], Contention::Fifo).is_err());
        assert!(single_node_broadcast(13, 0).is_err());
    }
}
