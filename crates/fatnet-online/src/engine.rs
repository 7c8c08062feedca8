//! The delivery-cycle engine (Leiserson §II, Greenberg–Leiserson §1): circuit-switched cycles
//! on a binary fat-tree with concentrator switches that drop what does not fit.

use fatnet_topology::{FatTree, Topology};
use fatnet_traffic::{Message, MessageSet};
use rand::Rng;
use serde::{Deserialize, Serialize};

use crate::OnlineError;

fatnet_topology::named_options! {
    /// What a switch does when more messages want a channel than it has wires.
    ///
    /// All greedy policies are *admissible* in Greenberg–Leiserson's sense (§5): they drop
    /// only the excess (arrivals − capacity), and which messages they drop depends only on the
    /// input ports and wires the messages arrive on, and on the switch's own earlier decisions.
    pub enum DropPolicy("drop policy") {
        /// The analysis model of the RANDOM proof: a channel `c` is congested when the
        /// messages *sent* this cycle whose path uses `c` outnumber `cap(c)` (counting those
        /// dropped upstream), and every message through a congested channel is lost. Every
        /// greedy policy delivers a superset of what this delivers.
        Pessimistic = "pessimistic",
        /// Greedy concentrator, the surviving `cap(c)` chosen uniformly at random.
        Random = "random",
        /// Greedy concentrator with a fixed priority: the left child's (up) or the parent's
        /// (down) input port first, then the other; within a port, lower wires (lower source,
        /// resp. destination, addresses) first.
        FixedPriority = "fixed",
        /// Greedy concentrator whose port priority alternates: each time channel `c` has to
        /// drop, the port that had priority loses it for `c`'s next congestion (a stateful
        /// admissible switch).
        RoundRobin = "round-robin",
        /// The wire-level model of the constant-size-switch fat-tree (Greenberg–Leiserson §6,
        /// Fig. 8): every message takes a uniformly random wire of every channel on its path;
        /// a wire taken by two or more messages loses all of them.
        Wires = "wires",
    }
}

impl Default for DropPolicy {
    /// Greedy concentrators with random survivors.
    fn default() -> Self {
        DropPolicy::Random
    }
}

/// Where messages go.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Sink {
    /// To their destination processors (up to the lowest common ancestor, then down).
    #[default]
    Processors,
    /// Out of the tree through the root's external channel, whatever their destination field
    /// says: the setting of Greenberg–Leiserson's Theorem 9 ("routing messages out the root").
    External,
}

/// Counts of one delivery cycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct CycleStats {
    /// Messages injected.
    pub sent: u64,
    /// Messages delivered.
    pub delivered: u64,
    /// Messages lost (they stay at their source).
    pub dropped: u64,
    /// Message-channel steps: channels entered by some message (the engine's unit of work).
    pub steps: u64,
}

/// Greedy survivors of one channel: the first `port0` entries of `group` arrived on input
/// port 0, the rest on port 1.
struct Group<'g> {
    items: &'g mut [u32],
    port0: usize,
}

/// The delivery-cycle engine on one fat-tree and one message set.
///
/// Messages are referred to by their position in the message set. Per-message data the cycle
/// needs (source and destination leaves, height of the lowest common ancestor) is precomputed.
#[derive(Debug)]
pub struct DeliveryEngine<'a> {
    tree: &'a FatTree,
    msgs: &'a [Message],
    policy: DropPolicy,
    sink: Sink,
    /// Height of the lowest common ancestor of each message (0 for self-messages); with
    /// [`Sink::External`], `lg n + 1` (the message leaves through the root's channel).
    lca_height: Vec<u8>,
    /// Round-robin state per channel: the port that has priority.
    priority: Vec<u8>,
    /// Capacity per height.
    caps: Vec<u64>,
    /// Wire-level model: first wire of each channel, and occupancy per wire.
    wire_base: Vec<u64>,
    wire_count: Vec<u32>,
    // scratch
    cur: Vec<u32>,
    next: Vec<u32>,
    turning: Vec<Vec<u32>>,
    scratch: Vec<u32>,
    /// Packed sort keys ([`sort_by_then_id`]).
    keys: Vec<u64>,
}

impl<'a> DeliveryEngine<'a> {
    /// An engine for `messages` on `tree` with a drop policy.
    ///
    /// # Errors
    ///
    /// [`OnlineError::ProcessorMismatch`] when the set has more processors than the tree;
    /// [`OnlineError::TooManyWires`] for [`DropPolicy::Wires`] when the tree has more than
    /// 2^32 wires.
    pub fn new(
        tree: &'a FatTree,
        messages: &'a MessageSet,
        policy: DropPolicy,
    ) -> Result<Self, OnlineError> {
        Self::with_sink(tree, messages, policy, Sink::Processors)
    }

    /// An engine whose messages go to `sink`.
    ///
    /// # Errors
    ///
    /// As [`DeliveryEngine::new`].
    pub fn with_sink(
        tree: &'a FatTree,
        messages: &'a MessageSet,
        policy: DropPolicy,
        sink: Sink,
    ) -> Result<Self, OnlineError> {
        if messages.processors() > tree.n() {
            return Err(OnlineError::ProcessorMismatch {
                messages: u64::from(messages.processors()),
                topology: u64::from(tree.n()),
            });
        }
        let msgs = messages.messages();
        let lca_height = match sink {
            Sink::Processors => msgs
                .iter()
                .map(|m| (32 - (m.src ^ m.dst).leading_zeros()) as u8)
                .collect(),
            Sink::External => vec![tree.levels() as u8 + 1; msgs.len()],
        };
        let channels = tree.num_channels() as usize;
        let (mut wire_base, mut wire_count) = (Vec::new(), Vec::new());
        if policy == DropPolicy::Wires {
            wire_base = Vec::with_capacity(channels + 1);
            let mut total = 0u64;
            for c in 0..channels {
                wire_base.push(total);
                total += tree.capacity_at_height(tree.height(fatnet_topology::ChannelId(c as u32)));
            }
            wire_base.push(total);
            if total > u64::from(u32::MAX) {
                return Err(OnlineError::TooManyWires { wires: total });
            }
            wire_count = vec![0; total as usize];
        }
        Ok(Self {
            tree,
            msgs,
            policy,
            sink,
            lca_height,
            priority: vec![0; channels],
            caps: tree.capacities().to_vec(),
            wire_base,
            wire_count,
            cur: Vec::new(),
            next: Vec::new(),
            turning: vec![Vec::new(); tree.levels() as usize],
            scratch: Vec::new(),
            keys: Vec::new(),
        })
    }

    /// The drop policy.
    pub fn policy(&self) -> DropPolicy {
        self.policy
    }

    /// Runs one delivery cycle injecting the messages `sent` (positions, each at most once)
    /// and appends the delivered ones to `delivered`. Messages from a processor to itself use
    /// no channel and are always delivered.
    pub fn cycle<R: Rng + ?Sized>(
        &mut self,
        sent: &[u32],
        rng: &mut R,
        delivered: &mut Vec<u32>,
    ) -> CycleStats {
        let before = delivered.len();
        let steps = match self.policy {
            DropPolicy::Pessimistic => self.cycle_pessimistic(sent, delivered),
            DropPolicy::Wires => self.cycle_wires(sent, rng, delivered),
            _ => self.cycle_greedy(sent, rng, delivered),
        };
        let d = (delivered.len() - before) as u64;
        CycleStats {
            sent: sent.len() as u64,
            delivered: d,
            dropped: sent.len() as u64 - d,
            steps,
        }
    }

    /// The channels of message `m`'s path, in order.
    fn path(&self, m: u32) -> impl Iterator<Item = usize> + '_ {
        let msg = self.msgs[m as usize];
        let n = self.tree.n();
        let h = u32::from(self.lca_height[m as usize]);
        let (a, b) = (n + msg.src, n + msg.dst);
        (0..h)
            .map(move |t| FatTree::up_channel(a >> t).index())
            .chain(
                (0..h)
                    .rev()
                    .map(move |t| FatTree::down_channel(b >> t).index()),
            )
    }

    fn cycle_pessimistic(&mut self, sent: &[u32], delivered: &mut Vec<u32>) -> u64 {
        // Loads of the sent set: count per channel, then keep messages whose channels all fit.
        let mut load = std::mem::take(&mut self.wire_count);
        load.clear();
        load.resize(self.tree.num_channels() as usize, 0);
        let mut steps = 0;
        for &m in sent {
            for c in self.path(m) {
                load[c] += 1;
                steps += 1;
            }
        }
        let caps = &self.caps;
        let tree = self.tree;
        for &m in sent {
            let ok = self.path(m).all(|c| {
                let cap = caps[tree.height(fatnet_topology::ChannelId(c as u32)) as usize];
                u64::from(load[c]) <= cap
            });
            if ok {
                delivered.push(m);
            }
        }
        for &m in sent {
            for c in self.path(m) {
                load[c] = 0;
            }
        }
        self.wire_count = load;
        steps
    }

    fn cycle_wires<R: Rng + ?Sized>(
        &mut self,
        sent: &[u32],
        rng: &mut R,
        delivered: &mut Vec<u32>,
    ) -> u64 {
        // Pick a wire per channel per message, count, then check; the picks are kept in
        // `scratch` in path order.
        self.scratch.clear();
        let mut steps = 0;
        let n = self.tree.n();
        for &m in sent {
            let msg = self.msgs[m as usize];
            let h = u32::from(self.lca_height[m as usize]);
            let (a, b) = (n + msg.src, n + msg.dst);
            let down = if self.sink == Sink::External { 0 } else { h };
            let ups = (0..h).map(|t| FatTree::up_channel(a >> t).index());
            let downs = (0..down)
                .rev()
                .map(|t| FatTree::down_channel(b >> t).index());
            for c in ups.chain(downs) {
                let width = self.wire_base[c + 1] - self.wire_base[c];
                let w = self.wire_base[c] + rng.random_range(0..width);
                self.wire_count[w as usize] += 1;
                self.scratch.push(w as u32);
                steps += 1;
            }
        }
        let mut k = 0;
        let per_height = if self.sink == Sink::External { 1 } else { 2 };
        for &m in sent {
            let len = per_height * usize::from(self.lca_height[m as usize]);
            if self.scratch[k..k + len]
                .iter()
                .all(|&w| self.wire_count[w as usize] == 1)
            {
                delivered.push(m);
            }
            k += len;
        }
        for &w in &self.scratch {
            self.wire_count[w as usize] = 0;
        }
        steps
    }

    fn cycle_greedy<R: Rng + ?Sized>(
        &mut self,
        sent: &[u32],
        rng: &mut R,
        delivered: &mut Vec<u32>,
    ) -> u64 {
        let n = self.tree.n();
        let levels = self.tree.levels();
        let msgs = self.msgs;
        let mut steps = 0u64;
        // Up phase: messages at the up channels of height h, sorted by source (so grouped by
        // node, left child's messages before the right child's).
        let mut cur = std::mem::take(&mut self.cur);
        let mut next = std::mem::take(&mut self.next);
        cur.clear();
        for &m in sent {
            if self.lca_height[m as usize] == 0 {
                delivered.push(m);
            } else {
                cur.push(m);
            }
        }
        sort_by_then_id(&mut cur, &mut self.keys, |m| msgs[m as usize].src);
        for t in &mut self.turning {
            t.clear();
        }
        // Out the root, the up phase continues through the root's external channel (height
        // lg n); its survivors leave the tree.
        let top = levels + u32::from(self.sink == Sink::External);
        for h in 0..top {
            next.clear();
            let cap = self.caps[h as usize] as usize;
            let mut a = 0;
            while a < cur.len() {
                let v = (n + msgs[cur[a] as usize].src) >> h;
                let mut b = a + 1;
                while b < cur.len() && (n + msgs[cur[b] as usize].src) >> h == v {
                    b += 1;
                }
                steps += (b - a) as u64;
                // Port 0: the left child (or the processor itself at height 0).
                let port0 = if h == 0 {
                    b - a
                } else {
                    cur[a..b]
                        .iter()
                        .take_while(|&&m| ((n + msgs[m as usize].src) >> (h - 1)) & 1 == 0)
                        .count()
                };
                let keep = self.select(
                    FatTree::up_channel(v).index(),
                    Group {
                        items: &mut cur[a..b],
                        port0,
                    },
                    cap,
                    rng,
                );
                for &m in &cur[a..a + keep] {
                    if h == levels {
                        delivered.push(m);
                    } else if u32::from(self.lca_height[m as usize]) == h + 1 {
                        self.turning[h as usize].push(m);
                    } else {
                        next.push(m);
                    }
                }
                a = b;
            }
            std::mem::swap(&mut cur, &mut next);
        }
        // Down phase: `cur` holds the messages coming down from the parent, sorted by
        // destination; the turning ones join at their height.
        cur.clear();
        let mut group: Vec<u32> = std::mem::take(&mut self.scratch);
        for h in (0..levels).rev() {
            let mut turning = std::mem::take(&mut self.turning[h as usize]);
            sort_by_then_id(&mut turning, &mut self.keys, |m| msgs[m as usize].dst);
            next.clear();
            let cap = self.caps[h as usize] as usize;
            let node = |m: u32| (n + msgs[m as usize].dst) >> h;
            let (mut i, mut j) = (0, 0);
            while i < cur.len() || j < turning.len() {
                let w = match (cur.get(i), turning.get(j)) {
                    (Some(&x), Some(&y)) => node(x).min(node(y)),
                    (Some(&x), None) => node(x),
                    (None, Some(&y)) => node(y),
                    (None, None) => unreachable!(),
                };
                group.clear();
                while i < cur.len() && node(cur[i]) == w {
                    group.push(cur[i]);
                    i += 1;
                }
                let port0 = group.len();
                while j < turning.len() && node(turning[j]) == w {
                    group.push(turning[j]);
                    j += 1;
                }
                steps += group.len() as u64;
                let keep = self.select(
                    FatTree::down_channel(w).index(),
                    Group {
                        items: &mut group,
                        port0,
                    },
                    cap,
                    rng,
                );
                let kept = &mut group[..keep];
                if h == 0 {
                    delivered.extend_from_slice(kept);
                } else {
                    // Keep `next` sorted by destination for the level below.
                    sort_by_then_id(kept, &mut self.keys, |m| msgs[m as usize].dst);
                    next.extend_from_slice(kept);
                }
            }
            self.turning[h as usize] = turning;
            std::mem::swap(&mut cur, &mut next);
        }
        self.cur = cur;
        self.next = next;
        self.scratch = group;
        steps
    }

    /// Reorders `g.items` so that its first `k` entries survive channel `c`; returns `k`.
    fn select<R: Rng + ?Sized>(
        &mut self,
        c: usize,
        g: Group<'_>,
        cap: usize,
        rng: &mut R,
    ) -> usize {
        let len = g.items.len();
        if len <= cap {
            return len;
        }
        match self.policy {
            DropPolicy::FixedPriority => {}
            DropPolicy::RoundRobin => {
                if self.priority[c] == 1 {
                    // Port 1 first: rotate the port-1 block to the front.
                    g.items.rotate_left(g.port0);
                }
                self.priority[c] ^= 1;
            }
            DropPolicy::Random => {
                // Partial Fisher–Yates: a uniform `cap`-subset in the first `cap` slots.
                for i in 0..cap {
                    let j = rng.random_range(i..len);
                    g.items.swap(i, j);
                }
            }
            DropPolicy::Pessimistic | DropPolicy::Wires => unreachable!("not a greedy policy"),
        }
        cap
    }
}

/// Sorts the message positions `items` by `(key(m), m)`.
///
/// Positions are distinct, so this order is total and every sort gives the same result (the
/// one `sort_unstable_by_key(|&m| (key(m), m))` gives). Each entry is packed once into a `u64`
/// (key high, position low) and the plain integers are sorted, instead of looking the message
/// set up twice per comparison.
fn sort_by_then_id(items: &mut [u32], keys: &mut Vec<u64>, key: impl Fn(u32) -> u32) {
    keys.clear();
    keys.extend(
        items
            .iter()
            .map(|&m| (u64::from(key(m)) << 32) | u64::from(m)),
    );
    keys.sort_unstable();
    for (m, &k) in items.iter_mut().zip(keys.iter()) {
        *m = k as u32;
    }
}

#[cfg(test)]
mod tests {
    use rand::{Rng, SeedableRng};
    use rand_pcg::Pcg64;

    use super::sort_by_then_id;

    #[test]
    fn packed_keys_sort_as_the_pairs_do() {
        let mut rng = Pcg64::seed_from_u64(5);
        let mut keys = Vec::new();
        for len in [0usize, 1, 2, 17, 1_000] {
            // Few distinct keys (many ties) and keys up to `u32::MAX`.
            for range in [4u32, u32::MAX] {
                let key: Vec<u32> = (0..len).map(|_| rng.random_range(0..range)).collect();
                let mut items: Vec<u32> = (0..len as u32).collect();
                for i in (1..len).rev() {
                    items.swap(i, rng.random_range(0..=i));
                }
                let mut expected = items.clone();
                expected.sort_unstable_by_key(|&m| (key[m as usize], m));
                sort_by_then_id(&mut items, &mut keys, |m| key[m as usize]);
                assert_eq!(items, expected, "len {len}, keys below {range}");
            }
        }
    }
}
