//! Leiserson's off-line splitting scheduler (Leiserson, *Fat-Trees* (1985),
//! §III: Theorem 1 and Corollary 2).
//!
//! Messages are grouped by their lowest common ancestor `u` and their direction at `u`
//! (left→right or right→left). The messages of one group use disjoint channels from every
//! other group of the same level, so the groups of a level can share delivery cycles. A group
//! that is not a one-cycle set is **split** in halves whose loads on every channel are
//! within one of each other (`load(Q_2k, c) ≤ ⌈load(Q_k, c)/2⌉`), and the halves are split
//! again, in lockstep, until every part is a one-cycle set.
//!
//! **The split** ([`split`]) follows the proof of Theorem 1: think of each message as a
//! string with a source end and a destination end; pair the source ends hierarchically (two
//! by two within a processor, then the leftovers of the two children of every node, bottom
//! up) so that at most one end of any subtree is paired outside it; do the same with the
//! destination ends; the pairs link the strings into cycles and at most one path; walk each,
//! putting a string traversed source→destination in `Q_2k` and one traversed
//! destination→source in `Q_2k+1`, starting with the path's unpaired source end.
//!
//! **Key design decision: linear-time splits from orders kept sorted.** The hierarchical
//! pairing needs the ends in leaf order. Each part keeps its messages twice, sorted by
//! source and by destination; the halves are filtered subsequences, so they stay sorted for
//! free, and the pairing is one stack pass over the sorted ends (the "virtual tree" of the
//! leaves that hold ends; the height of the lowest common ancestor of two consecutive leaves
//! is `bit_length(a ^ b)`). One split is `O(|Q|)`; the initial sort is a counting sort,
//! `O(|M| + n)`; a whole schedule is `O(|M| lg λ + n lg n)` ⊆ `O(|M| lg n)` for the
//! polynomially bounded λ of the paper.
//!
//! Choices the paper leaves open (in the proofs of Theorem 1 and Corollary 2), recorded here:
//! - message **multisets** are accepted; messages from a processor to itself use no channel
//!   and are put in the first cycle;
//! - when `λ(M) ≤ 1` the schedule is the single cycle `M` (the theorem is vacuous there);
//! - Theorem 1 splits each group `⌈lg λ(G)⌉` times, `λ(G)` the group's own exact load
//!   factor: after `j` rounds every part has `load ≤ ⌈load(G, c)/2^j⌉ ≤ cap(c)` when
//!   `2^j ≥ λ(G)`, so no per-round one-cycle test is needed;
//! - Corollary 2 takes the number of rounds from the **global** fictitious load factor
//!   `λ'(M)` (all channels), not from the root groups only, although the text says "the
//!   message sets produced by partitioning the messages through the root": only the global
//!   value makes every cycle one-cycle at every level;
//! - the root's external channel carries no message and is ignored by Corollary 2's
//!   capacity precondition.

use std::cmp::Ordering;

use fatnet_load::LoadFactor;
use fatnet_topology::{ChannelId, FatTree, Topology};
use fatnet_traffic::{Message, MessageId, MessageSet};
use serde::Serialize;

use crate::{OfflineError, Schedule};

/// "No message": end of a chain, unpaired end.
const NONE: u32 = u32::MAX;
const UNCOLORED: u8 = 0;
const EVEN: u8 = 1;
const ODD: u8 = 2;

/// The two halves of a split: `even` = `Q_2k` (strings traversed source→destination),
/// `odd` = `Q_2k+1`. `|even| − |odd|` is 0 or 1 and every channel's loads differ by at most 1.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Split {
    /// `Q_2k`.
    pub even: Vec<MessageId>,
    /// `Q_2k+1`.
    pub odd: Vec<MessageId>,
}

fatnet_topology::named_options! {
    /// Which capacities Corollary 2's fictitious capacities subtract from.
    pub enum FictitiousCapacity("fictitious capacity") {
        /// The paper's `cap'(c) = cap(c) − lg n`.
        LgN = "lgn",
        /// The tighter `cap'(c) = cap(c) − depth(c)`: a channel at depth `k` is used by the
        /// groups of its `k` ancestors only, so the accumulated rounding error is at most `k`.
        Depth = "depth",
    }
}

impl Default for FictitiousCapacity {
    /// The paper's.
    fn default() -> Self {
        FictitiousCapacity::LgN
    }
}

fatnet_topology::named_options! {
    /// Which of Leiserson's schedulers to run: the one name of each in the command line
    /// (`fatnet schedule --algorithm`), sweeps (`algorithm`) and JSON.
    pub enum Scheduler("scheduler") {
        /// Theorem 1 ([`theorem1`]): `≤ lg n · 2^⌈lg λ⌉` cycles.
        Theorem1 = "theorem1",
        /// Corollary 2 ([`corollary2`]): `≤ 2^⌈lg λ'⌉ ≤ 2(a/(a−1))λ` cycles when every
        /// capacity is at least `a·lg n`, `a > 1`.
        Corollary2 = "corollary2",
    }
}

/// Which scheduler made a schedule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Algorithm {
    /// Theorem 1: level by level, groups of a level sharing cycles.
    Theorem1,
    /// Corollary 2: all levels at once, with fictitious capacities.
    Corollary2 {
        /// The fictitious capacity variant.
        capacity: FictitiousCapacity,
    },
}

/// A schedule from Leiserson's scheduler, with the numbers that bound it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LeisersonSchedule {
    /// The delivery cycles.
    pub schedule: Schedule,
    /// The algorithm.
    pub algorithm: Algorithm,
    /// λ(M), exact.
    pub load_factor: LoadFactor,
    /// `⌈λ(M)⌉`: no schedule has fewer cycles.
    pub lower_bound: u64,
    /// The number of cycles the algorithm guarantees: Theorem 1 `lg n · 2^⌈lg λ⌉`
    /// (`< 2 λ lg n`), Corollary 2 `2^⌈lg λ'⌉` (`< 2λ' ≤ 2(a/(a−1))λ`); 1 when `λ ≤ 1`.
    pub bound: u64,
    /// Corollary 2's fictitious load factor `λ'(M)`.
    pub fictitious_load_factor: Option<LoadFactor>,
    /// Corollary 2's `a = min_c cap(c) / lg n` (channels below the root).
    pub capacity_ratio: Option<f64>,
    /// Cycles used by each level of lowest common ancestors, root level first (Theorem 1).
    pub cycles_per_level: Vec<u64>,
}

impl LeisersonSchedule {
    /// Number of delivery cycles.
    pub fn cycles(&self) -> usize {
        self.schedule.len()
    }
}

/// `⌈lg(load/capacity)⌉` for a ratio above 1, 0 otherwise: the least `j` with
/// `2^j · capacity ≥ load`.
pub fn ceil_lg(lf: &LoadFactor) -> u32 {
    let mut j = 0;
    while (u128::from(lf.capacity) << j) < u128::from(lf.load) {
        j += 1;
    }
    j
}

/// One part of a group, numbered locally: position `i` is the `i`-th message in source-leaf
/// order. Keeping the leaves beside the positions and the destination order as positions
/// makes every array of a split as small as the part and mostly read in sequence.
#[derive(Debug, Default)]
struct Part {
    /// Message ids, in source-leaf order.
    ids: Vec<u32>,
    /// Source leaf of each position.
    src_leaf: Vec<u32>,
    /// Positions in destination-leaf order.
    dst_pos: Vec<u32>,
    /// Destination leaf of each entry of `dst_pos`.
    dst_leaf: Vec<u32>,
}

impl Part {
    /// A part from message ids sorted by source and by destination; `pos` is scratch of one
    /// entry per message of the set.
    fn new(msgs: &[Message], by_src: &[u32], by_dst: &[u32], pos: &mut [u32]) -> Self {
        for (i, &m) in by_src.iter().enumerate() {
            pos[m as usize] = i as u32;
        }
        Part {
            ids: by_src.to_vec(),
            src_leaf: by_src.iter().map(|&m| msgs[m as usize].src).collect(),
            dst_pos: by_dst.iter().map(|&m| pos[m as usize]).collect(),
            dst_leaf: by_dst.iter().map(|&m| msgs[m as usize].dst).collect(),
        }
    }

    fn with_capacity(k: usize) -> Self {
        Part {
            ids: Vec::with_capacity(k),
            src_leaf: Vec::with_capacity(k),
            dst_pos: Vec::with_capacity(k),
            dst_leaf: Vec::with_capacity(k),
        }
    }
}

/// Scratch state of the splits, indexed by position within the part being split.
#[derive(Default)]
struct Splitter {
    src_mate: Vec<u32>,
    dst_mate: Vec<u32>,
    color: Vec<u8>,
    new_pos: Vec<u32>,
    stack: Vec<(u32, u32)>,
}

impl Splitter {
    /// Splits `part` into `(Q_2k, Q_2k+1)`.
    fn split(&mut self, part: &Part) -> (Part, Part) {
        let p = part.ids.len();
        if self.color.len() < p {
            self.src_mate.resize(p, NONE);
            self.dst_mate.resize(p, NONE);
            self.color.resize(p, UNCOLORED);
            self.new_pos.resize(p, 0);
        }
        let unpaired_src = hierarchical_pairing(
            (0..p as u32).zip(part.src_leaf.iter().copied()),
            &mut self.src_mate[..p],
            &mut self.stack,
        );
        hierarchical_pairing(
            part.dst_pos
                .iter()
                .copied()
                .zip(part.dst_leaf.iter().copied()),
            &mut self.dst_mate[..p],
            &mut self.stack,
        );
        self.color[..p].fill(UNCOLORED);
        // The open path (odd |Q|) must be walked from its unpaired source end.
        if unpaired_src != NONE {
            self.trace(unpaired_src);
        }
        for i in 0..p as u32 {
            self.trace(i);
        }
        let (mut even, mut odd) = (Part::with_capacity(p / 2 + 1), Part::with_capacity(p / 2));
        let (mut ne, mut no) = (0u32, 0u32);
        for i in 0..p {
            let child = if self.color[i] == EVEN {
                self.new_pos[i] = ne;
                ne += 1;
                &mut even
            } else {
                self.new_pos[i] = no;
                no += 1;
                &mut odd
            };
            child.ids.push(part.ids[i]);
            child.src_leaf.push(part.src_leaf[i]);
        }
        for (&i, &leaf) in part.dst_pos.iter().zip(&part.dst_leaf) {
            let child = if self.color[i as usize] == EVEN {
                &mut even
            } else {
                &mut odd
            };
            child.dst_pos.push(self.new_pos[i as usize]);
            child.dst_leaf.push(leaf);
        }
        (even, odd)
    }

    /// Walks the chain from `start` along destination pairs then source pairs, alternating
    /// colours, until the chain ends or closes.
    fn trace(&mut self, start: u32) {
        if self.color[start as usize] != UNCOLORED {
            return;
        }
        let mut m = start;
        loop {
            self.color[m as usize] = EVEN;
            let m2 = self.dst_mate[m as usize];
            if m2 == NONE || self.color[m2 as usize] != UNCOLORED {
                return;
            }
            self.color[m2 as usize] = ODD;
            m = self.src_mate[m2 as usize];
            if m == NONE || self.color[m as usize] != UNCOLORED {
                return;
            }
        }
    }

    /// Splits `part` `rounds` times in lockstep into the `2^rounds` parts `Q_r, …, Q_2r−1`
    /// and returns the nonempty ones with their index `i` (part `Q_r+i`).
    ///
    /// A part of one message is not split further: its split is always (itself, ∅), so it
    /// ends as part `i·2^rest`. Without this shortcut a small group split many times (as in
    /// Corollary 2, where the round count is global) would cost `2^rounds` empty splits.
    fn split_rounds(&mut self, part: Part, rounds: u32) -> Vec<(u64, Part)> {
        let mut sets = vec![(0u64, part)];
        for _ in 0..rounds {
            let mut next = Vec::with_capacity(2 * sets.len());
            for (i, s) in sets {
                if s.ids.len() <= 1 {
                    next.push((2 * i, s));
                    continue;
                }
                let (a, b) = self.split(&s);
                next.push((2 * i, a));
                if !b.ids.is_empty() {
                    next.push((2 * i + 1, b));
                }
            }
            sets = next;
        }
        sets
    }
}

/// Pairs the `(end, leaf)` pairs of `ends` (sorted by leaf) so that at most one end of every subtree is
/// paired outside it; returns the end left unpaired (`NONE` if none).
///
/// One stack pass: the stack holds the open tree nodes on the right spine of the ends seen so
/// far, each with the unpaired end of its completed left part. Moving from leaf `a` to leaf
/// `b`, the nodes below height `bit_length(a ^ b)` are complete: their two leftovers are
/// paired (or the one that exists moves up).
fn hierarchical_pairing(
    ends: impl Iterator<Item = (u32, u32)>,
    mate: &mut [u32],
    stack: &mut Vec<(u32, u32)>,
) -> u32 {
    let merge = |a: u32, b: u32, mate: &mut [u32]| -> u32 {
        match (a, b) {
            (NONE, x) | (x, NONE) => x,
            (a, b) => {
                mate[a as usize] = b;
                mate[b as usize] = a;
                NONE
            }
        }
    };
    stack.clear();
    let mut ends = ends;
    let Some((first, mut prev_leaf)) = ends.next() else {
        return NONE;
    };
    mate[first as usize] = NONE;
    let mut cur = first;
    for (m, l) in ends {
        mate[m as usize] = NONE;
        let h = 32 - (prev_leaf ^ l).leading_zeros();
        while let Some(&(hs, left)) = stack.last() {
            if hs >= h {
                break;
            }
            stack.pop();
            cur = merge(left, cur, mate);
        }
        stack.push((h, cur));
        cur = m;
        prev_leaf = l;
    }
    while let Some((_, left)) = stack.pop() {
        cur = merge(left, cur, mate);
    }
    cur
}

/// Stable counting sort of `items` by `key` (`0..buckets`).
fn counting_sort(items: &[u32], key: impl Fn(u32) -> usize, buckets: usize) -> Vec<u32> {
    let mut start = vec![0usize; buckets + 1];
    for &m in items {
        start[key(m) + 1] += 1;
    }
    for b in 0..buckets {
        start[b + 1] += start[b];
    }
    let mut out = vec![0u32; items.len()];
    for &m in items {
        let k = key(m);
        out[start[k]] = m;
        start[k] += 1;
    }
    out
}

/// The message set grouped by (lowest common ancestor, direction), each group sorted by
/// source and by destination.
struct Groups {
    /// Message positions grouped by key, sorted by source leaf within a group.
    by_src: Vec<u32>,
    /// The same, sorted by destination leaf within a group.
    by_dst: Vec<u32>,
    /// Group `g` (key `2u + dir`) is `by_src[start[g]..start[g+1]]`.
    start: Vec<usize>,
    /// Messages from a processor to itself.
    self_messages: Vec<u32>,
}

/// Group key of a message that is not a self-message: `2·lca + dir`, `dir = 1` when the source
/// is in the right subtree of the LCA.
#[inline]
fn group_key(n: u32, m: Message) -> usize {
    let h = 32 - (m.src ^ m.dst).leading_zeros();
    let leaf = n + m.src;
    ((leaf >> h) as usize) * 2 + ((leaf >> (h - 1)) & 1) as usize
}

impl Groups {
    fn new(n: u32, msgs: &[Message]) -> Self {
        let (mut crossing, mut self_messages) = (Vec::with_capacity(msgs.len()), Vec::new());
        for (i, m) in msgs.iter().enumerate() {
            if m.src == m.dst {
                self_messages.push(i as u32);
            } else {
                crossing.push(i as u32);
            }
        }
        let buckets = 2 * n as usize;
        let key = |m: u32| group_key(n, msgs[m as usize]);
        let by_src = counting_sort(
            &counting_sort(&crossing, |m| msgs[m as usize].src as usize, n as usize),
            key,
            buckets,
        );
        let by_dst = counting_sort(
            &counting_sort(&crossing, |m| msgs[m as usize].dst as usize, n as usize),
            key,
            buckets,
        );
        let mut start = vec![0usize; buckets + 1];
        for &m in &by_src {
            start[key(m) + 1] += 1;
        }
        for b in 0..buckets {
            start[b + 1] += start[b];
        }
        Self {
            by_src,
            by_dst,
            start,
            self_messages,
        }
    }

    fn part(&self, key: usize, msgs: &[Message], pos: &mut [u32]) -> Part {
        let r = self.start[key]..self.start[key + 1];
        Part::new(msgs, &self.by_src[r.clone()], &self.by_dst[r], pos)
    }

    fn len(&self, key: usize) -> usize {
        self.start[key + 1] - self.start[key]
    }
}

/// Splits a group of messages that all cross one node in the same direction, in time linear
/// in the group.
///
/// # Errors
///
/// - [`OfflineError::ProcessorMismatch`] when the set has more processors than the tree;
/// - [`OfflineError::UnknownMessage`] for an id not in the set;
/// - [`OfflineError::SelfMessage`] for a message from a processor to itself;
/// - [`OfflineError::NotOneGroup`] when two messages differ in their lowest common ancestor
///   or in their direction there.
pub fn split(
    tree: &FatTree,
    messages: &MessageSet,
    group: &[MessageId],
) -> Result<Split, OfflineError> {
    check_processors(tree, messages)?;
    let msgs = messages.messages();
    let n = tree.n();
    let mut key = None;
    for &id in group {
        let m = *msgs.get(id.index()).ok_or(OfflineError::UnknownMessage {
            message: id.0,
            messages: msgs.len() as u64,
        })?;
        if m.src == m.dst {
            return Err(OfflineError::SelfMessage { message: id.0 });
        }
        let k = group_key(n, m);
        match key {
            None => key = Some((k, id)),
            Some((k0, first)) if k0 != k => {
                return Err(OfflineError::NotOneGroup {
                    first: first.0,
                    message: id.0,
                    node: (k0 / 2) as u32,
                });
            }
            Some(_) => {}
        }
    }
    let ids: Vec<u32> = group.iter().map(|m| m.0).collect();
    let mut by_src = ids.clone();
    by_src.sort_by_key(|&m| msgs[m as usize].src);
    let mut by_dst = ids;
    by_dst.sort_by_key(|&m| msgs[m as usize].dst);
    let mut pos = vec![0u32; msgs.len()];
    let part = Part::new(msgs, &by_src, &by_dst, &mut pos);
    let (even, odd) = Splitter::default().split(&part);
    let ids = |p: Part| p.ids.into_iter().map(MessageId).collect();
    Ok(Split {
        even: ids(even),
        odd: ids(odd),
    })
}

/// Exact λ of every group of messages whose lowest common ancestor is at `depth`, indexed by
/// group key (`2u + dir`); `loads` holds the per-channel loads of those messages.
///
/// A channel below depth `depth` carries messages of one group only: the group of its
/// ancestor `u` at that depth, in the direction that leaves (up) or enters (down) the child
/// subtree of `u` holding the channel.
fn group_load_factors(tree: &FatTree, depth: u32, loads: &[u64], out: &mut [LoadFactor]) {
    let n = tree.n();
    for v in (2u32 << depth)..2 * n {
        let below = v.ilog2() - depth - 1; // depth(v) − depth(child of u)
        let child = v >> below;
        let u = (child >> 1) as usize;
        let child_is_right = (child & 1) as usize;
        let cap = tree.capacity_at_height(tree.levels() - v.ilog2());
        // up(v) carries the group leaving `child`'s side; down(v) the one entering it.
        for (channel, dir) in [
            (FatTree::up_channel(v), child_is_right),
            (FatTree::down_channel(v), 1 - child_is_right),
        ] {
            let load = loads[channel.index()];
            if load == 0 {
                continue;
            }
            let cand = LoadFactor {
                load,
                capacity: cap,
                bundle: None,
            };
            let slot = &mut out[2 * u + dir];
            if cand.cmp_value(slot) == Ordering::Greater {
                *slot = cand;
            }
        }
    }
}

/// Per-channel loads of the messages `ids` (no self-messages) in one pass over them and one
/// over the tree (as `fatnet_load::fat_tree_loads`), into `loads` (`4n − 2` entries).
fn loads_of(
    tree: &FatTree,
    msgs: &[Message],
    ids: &[u32],
    loads: &mut [u64],
    scratch: &mut Vec<[u64; 3]>,
) {
    let n = tree.n() as usize;
    scratch.clear();
    scratch.resize(2 * n, [0; 3]);
    for &i in ids {
        let m = msgs[i as usize];
        let h = 32 - (m.src ^ m.dst).leading_zeros();
        let a = n + m.src as usize;
        scratch[a][0] += 1;
        scratch[n + m.dst as usize][1] += 1;
        scratch[a >> h][2] += 1;
    }
    for v in (1..n).rev() {
        let (l, r) = (scratch[2 * v], scratch[2 * v + 1]);
        for k in 0..3 {
            scratch[v][k] += l[k] + r[k];
        }
    }
    for v in 1..2 * n {
        let [s, d, x] = scratch[v];
        loads[2 * (v - 1)] = s - x;
        loads[2 * (v - 1) + 1] = d - x;
    }
}

/// λ(M) of a whole message set on the tree, exact.
fn load_factor(tree: &FatTree, messages: &MessageSet) -> LoadFactor {
    let loads = fatnet_load::fat_tree_loads(tree, messages).expect("processors checked");
    fatnet_load::LoadReport::for_fat_tree(tree, loads).load_factor
}

/// Leiserson's Theorem 1 scheduler: at most `lg n · 2^⌈lg λ(M)⌉ < 2 λ(M) lg n` delivery
/// cycles (one cycle when `λ(M) ≤ 1`).
///
/// Level by level from the root, every (lowest common ancestor, direction) group of the
/// level is split `⌈lg λ(G)⌉` times; part `i` of every group of the level goes to the
/// level's cycle `i`.
///
/// # Errors
///
/// [`OfflineError::ProcessorMismatch`] when the set has more processors than the tree.
pub fn theorem1(tree: &FatTree, messages: &MessageSet) -> Result<LeisersonSchedule, OfflineError> {
    check_processors(tree, messages)?;
    let lambda = load_factor(tree, messages);
    let levels = tree.levels();
    let lg_lambda = ceil_lg(&lambda);
    let mut result = LeisersonSchedule {
        schedule: Schedule::default(),
        algorithm: Algorithm::Theorem1,
        load_factor: lambda,
        lower_bound: lambda.ceil(),
        bound: if lambda.exceeds_one() {
            u64::from(levels) << lg_lambda
        } else {
            1
        },
        fictitious_load_factor: None,
        capacity_ratio: None,
        cycles_per_level: vec![0; levels as usize],
    };
    if messages.is_empty() {
        return Ok(result);
    }
    if !lambda.exceeds_one() {
        result.schedule = Schedule::new(vec![(0..messages.len() as u32).map(MessageId).collect()]);
        return Ok(result);
    }
    let msgs = messages.messages();
    let n = tree.n();
    let groups = Groups::new(n, msgs);
    let mut splitter = Splitter::default();
    let mut pos = vec![0u32; msgs.len()];
    let mut cycles: Vec<Vec<MessageId>> = Vec::new();
    let mut loads = vec![0u64; tree.num_channels() as usize];
    let mut scratch = Vec::new();
    let mut group_lf = vec![LoadFactor::ZERO; 2 * n as usize];
    for depth in 0..levels {
        let keys = (2usize << depth)..(4usize << depth);
        if keys.clone().all(|k| groups.len(k) == 0) {
            continue;
        }
        // Loads of this level's messages, then each group's exact load factor.
        let ids = &groups.by_src[groups.start[keys.start]..groups.start[keys.end]];
        loads_of(tree, msgs, ids, &mut loads, &mut scratch);
        group_lf[keys.clone()].fill(LoadFactor::ZERO);
        group_load_factors(tree, depth, &loads, &mut group_lf);
        let mut parts = Vec::new();
        for key in keys {
            if groups.len(key) == 0 {
                continue;
            }
            parts.extend(
                splitter.split_rounds(groups.part(key, msgs, &mut pos), ceil_lg(&group_lf[key])),
            );
        }
        let level = assemble(parts);
        result.cycles_per_level[depth as usize] = level.len() as u64;
        cycles.extend(level);
    }
    add_self_messages(&mut cycles, &groups.self_messages);
    result.schedule = Schedule::new(cycles);
    Ok(result)
}

/// Leiserson's Corollary 2 scheduler for capacities `cap(c) ≥ a·lg n`, `a > 1`: at most
/// `2^⌈lg λ'(M)⌉ < 2λ'(M) ≤ 2(a/(a−1))·λ(M)` cycles, where `λ'` is the load factor for the
/// fictitious capacities `cap(c) − lg n` (or `cap(c) − depth(c)`, see
/// [`FictitiousCapacity`]).
///
/// Every group of every level is split `⌈lg λ'(M)⌉` times and part `i` of every group goes
/// to cycle `i`: the halving error, at most one per ancestor group, accumulates to less than
/// the `lg n` (or `depth`) the fictitious capacities hold back.
///
/// # Errors
///
/// - [`OfflineError::ProcessorMismatch`] when the set has more processors than the tree;
/// - [`OfflineError::CapacityTooSmall`] when a channel below the root has capacity at most
///   `lg n` (at most its depth, for [`FictitiousCapacity::Depth`]).
pub fn corollary2(
    tree: &FatTree,
    messages: &MessageSet,
    capacity: FictitiousCapacity,
) -> Result<LeisersonSchedule, OfflineError> {
    check_processors(tree, messages)?;
    let levels = tree.levels();
    let lg_n = u64::from(levels.max(1));
    // Fictitious capacities per height (the external root channel, height lg n, excluded).
    let mut min_ratio = f64::INFINITY;
    let mut fictitious = vec![0u64; levels as usize];
    for h in 0..levels {
        let cap = tree.capacity_at_height(h);
        let depth = u64::from(levels - h);
        let held = match capacity {
            FictitiousCapacity::LgN => lg_n,
            FictitiousCapacity::Depth => depth,
        };
        if cap <= held {
            // The first channel of that height, for the error message.
            let v = 1u32 << (levels - h);
            return Err(OfflineError::CapacityTooSmall {
                channel: FatTree::up_channel(v).0,
                capacity: cap,
                needed: held,
            });
        }
        fictitious[h as usize] = cap - held;
        min_ratio = min_ratio.min(cap as f64 / lg_n as f64);
    }
    let lambda = load_factor(tree, messages);
    let loads = fatnet_load::fat_tree_loads(tree, messages).expect("processors checked");
    let mut lambda_f = LoadFactor::ZERO;
    for (c, &load) in loads.per_channel.iter().enumerate() {
        let ch = ChannelId(c as u32);
        let h = tree.height(ch);
        if load == 0 || h == levels {
            continue;
        }
        let cand = LoadFactor {
            load,
            capacity: fictitious[h as usize],
            bundle: None,
        };
        if cand.cmp_value(&lambda_f) == Ordering::Greater {
            lambda_f = cand;
        }
    }
    let rounds = ceil_lg(&lambda_f);
    let mut result = LeisersonSchedule {
        schedule: Schedule::default(),
        algorithm: Algorithm::Corollary2 { capacity },
        load_factor: lambda,
        lower_bound: lambda.ceil(),
        bound: 1 << rounds,
        fictitious_load_factor: Some(lambda_f),
        capacity_ratio: Some(min_ratio),
        cycles_per_level: Vec::new(),
    };
    if messages.is_empty() {
        return Ok(result);
    }
    let msgs = messages.messages();
    let groups = Groups::new(tree.n(), msgs);
    let mut splitter = Splitter::default();
    let mut pos = vec![0u32; msgs.len()];
    let mut parts = Vec::new();
    for key in 2..2 * tree.n() as usize {
        if groups.len(key) == 0 {
            continue;
        }
        parts.extend(splitter.split_rounds(groups.part(key, msgs, &mut pos), rounds));
    }
    let mut cycles = assemble(parts);
    add_self_messages(&mut cycles, &groups.self_messages);
    result.schedule = Schedule::new(cycles);
    Ok(result)
}

/// Cycle `i` is the union of the parts with index `i` over all groups; indices no group
/// reaches give no (empty) cycle.
fn assemble(mut parts: Vec<(u64, Part)>) -> Vec<Vec<MessageId>> {
    parts.sort_by_key(|(i, _)| *i);
    let mut cycles: Vec<Vec<MessageId>> = Vec::new();
    let mut last = None;
    for (i, p) in parts {
        if last != Some(i) {
            cycles.push(Vec::new());
            last = Some(i);
        }
        cycles
            .last_mut()
            .expect("pushed above")
            .extend(p.ids.into_iter().map(MessageId));
    }
    cycles
}

fn add_self_messages(cycles: &mut Vec<Vec<MessageId>>, selfs: &[u32]) {
    if selfs.is_empty() {
        return;
    }
    if cycles.is_empty() {
        cycles.push(Vec::new());
    }
    cycles[0].extend(selfs.iter().map(|&m| MessageId(m)));
}

fn check_processors(tree: &FatTree, m: &MessageSet) -> Result<(), OfflineError> {
    if m.processors() > tree.n() {
        return Err(OfflineError::ProcessorMismatch {
            messages: u64::from(m.processors()),
            topology: u64::from(tree.n()),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use fatnet_topology::CapacityProfile;

    fn set(n: u32, pairs: &[(u32, u32)]) -> MessageSet {
        MessageSet::new(n, pairs.iter().map(|&(s, d)| Message::new(s, d)).collect()).unwrap()
    }

    fn loads(tree: &FatTree, msgs: &MessageSet, ids: &[MessageId]) -> Vec<u64> {
        let sub = MessageSet::new(
            msgs.processors(),
            ids.iter().map(|&i| msgs.messages()[i.index()]).collect(),
        )
        .unwrap();
        fatnet_load::fat_tree_loads(tree, &sub).unwrap().per_channel
    }

    /// The worked example of the notes (§2.3): n = 4, all crossing the root left to right.
    #[test]
    fn worked_example_of_the_notes() {
        let tree = FatTree::new(4, CapacityProfile::Constant(1)).unwrap();
        let m = set(4, &[(0, 2), (0, 3), (1, 2), (1, 3), (0, 2)]);
        let all: Vec<MessageId> = (0..5).map(MessageId).collect();
        let s = split(&tree, &m, &all).unwrap();
        assert_eq!(s.even.len(), 3);
        assert_eq!(s.odd.len(), 2);
        let (a, b) = (loads(&tree, &m, &s.even), loads(&tree, &m, &s.odd));
        for c in 0..a.len() {
            assert!(
                a[c].abs_diff(b[c]) <= 1,
                "channel {c}: {} vs {}",
                a[c],
                b[c]
            );
        }
        // up(2) (node 2 = left child of the root) carries 3 and 2.
        let c = FatTree::up_channel(2).index();
        assert_eq!((a[c], b[c]), (3, 2));
    }

    #[test]
    fn hierarchical_pairing_keeps_one_end_per_subtree() {
        // leaves 0, 1, 1, 2: leaf 1 pairs its two ends; 0 and 2 pair at the root.
        let leaves = [0u32, 1, 1, 2];
        let order: Vec<u32> = (0..4).collect();
        let mut mate = vec![NONE; 4];
        let left = hierarchical_pairing(
            order.iter().map(|&m| (m, leaves[m as usize])),
            &mut mate,
            &mut Vec::new(),
        );
        assert_eq!(left, NONE);
        assert_eq!(mate, [3, 2, 1, 0]);
        // odd count: one end stays unpaired
        let mut mate = vec![NONE; 3];
        let left = hierarchical_pairing(
            [(0, 0), (1, 1), (2, 3)].into_iter(),
            &mut mate,
            &mut Vec::new(),
        );
        assert_eq!((mate[0], mate[1], left), (1, 0, 2));
    }

    #[test]
    fn split_rejects_mixed_groups() {
        let tree = FatTree::new(4, CapacityProfile::Constant(1)).unwrap();
        let m = set(4, &[(0, 2), (2, 0), (1, 1)]);
        assert!(matches!(
            split(&tree, &m, &[MessageId(0), MessageId(1)]),
            Err(OfflineError::NotOneGroup { .. })
        ));
        assert!(matches!(
            split(&tree, &m, &[MessageId(2)]),
            Err(OfflineError::SelfMessage { message: 2 })
        ));
        assert!(matches!(
            split(&tree, &m, &[MessageId(7)]),
            Err(OfflineError::UnknownMessage { message: 7, .. })
        ));
    }

    #[test]
    fn theorem1_schedules_the_complement_within_the_bound() {
        let tree = FatTree::new(16, CapacityProfile::Constant(1)).unwrap();
        let m = set(16, &(0..16).map(|i| (i, 15 - i)).collect::<Vec<_>>());
        let s = theorem1(&tree, &m).unwrap();
        s.schedule.verify(&tree, &m).unwrap();
        assert_eq!(s.load_factor.load, 8);
        assert_eq!(s.lower_bound, 8);
        assert!(s.cycles() as u64 <= s.bound);
        assert_eq!(s.bound, 4 * 8);
        // all messages cross the root: only the root level has cycles, exactly λ of them
        assert_eq!(s.cycles_per_level, [8, 0, 0, 0]);
        assert_eq!(s.cycles(), 8);
    }

    #[test]
    fn one_cycle_sets_and_self_messages() {
        let tree = FatTree::new(8, CapacityProfile::Doubling { leaf: 1 }).unwrap();
        let m = set(8, &[(0, 7), (3, 3), (5, 1)]);
        let s = theorem1(&tree, &m).unwrap();
        assert_eq!(s.cycles(), 1);
        s.schedule.verify(&tree, &m).unwrap();
        let only_self = set(8, &[(2, 2), (4, 4)]);
        let s = theorem1(&tree, &only_self).unwrap();
        assert_eq!(s.cycles(), 1);
        s.schedule.verify(&tree, &only_self).unwrap();
        let empty = set(8, &[]);
        assert_eq!(theorem1(&tree, &empty).unwrap().cycles(), 0);
    }

    #[test]
    fn corollary2_needs_capacity_above_lg_n_and_meets_its_bound() {
        let small = FatTree::new(16, CapacityProfile::Constant(4)).unwrap();
        let m = set(16, &(0..16).map(|i| (i, 15 - i)).collect::<Vec<_>>());
        assert!(matches!(
            corollary2(&small, &m, FictitiousCapacity::LgN),
            Err(OfflineError::CapacityTooSmall {
                capacity: 4,
                needed: 4,
                ..
            })
        ));
        let tree = FatTree::new(16, CapacityProfile::Constant(8)).unwrap();
        let big = set(
            16,
            &(0..64)
                .map(|i| (i % 16, (i * 7 + 3) % 16))
                .collect::<Vec<_>>(),
        );
        for variant in [FictitiousCapacity::LgN, FictitiousCapacity::Depth] {
            let s = corollary2(&tree, &big, variant).unwrap();
            s.schedule.verify(&tree, &big).unwrap();
            assert!(s.cycles() as u64 <= s.bound);
            let a = s.capacity_ratio.unwrap();
            assert_eq!(a, 2.0);
            assert!(s.cycles() as f64 <= (2.0 * a / (a - 1.0) * s.load_factor.value()).max(1.0));
        }
    }

    #[test]
    fn ceil_lg_is_exact() {
        let lf = |load, capacity| LoadFactor {
            load,
            capacity,
            bundle: None,
        };
        assert_eq!(ceil_lg(&lf(0, 1)), 0);
        assert_eq!(ceil_lg(&lf(1, 1)), 0);
        assert_eq!(ceil_lg(&lf(3, 2)), 1);
        assert_eq!(ceil_lg(&lf(4, 2)), 1);
        assert_eq!(ceil_lg(&lf(5, 2)), 2);
        assert_eq!(ceil_lg(&lf(1025, 1)), 11);
    }
}
