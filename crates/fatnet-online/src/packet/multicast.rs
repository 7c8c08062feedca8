//! Multicast trees: one packet copied along an out-tree of links to several destinations.
//!
//! A [`MulticastTree`] is a set of links that forms an out-tree rooted at its source's
//! injection node and reaches the sink node of every destination. The engine copies a unit
//! at the tree's branch nodes (*asynchronous replication*): the unit at the front of an input
//! queue is copied into each of its child links as soon as that link accepts it, under the
//! same per-link rules as a unicast unit (one unit per link per step, start-of-step queue
//! lengths, worm ownership per child link under wormhole), and leaves its queue once every
//! child link has its copy. The copies then travel independently. A node that is a
//! destination and also forwards (a hypercube node inside the tree) absorbs a copy on
//! arrival and forwards the unit. The message is delivered when its last unit has reached
//! every destination, and its latency is measured to that step.

use crate::OnlineParameter;
use fatnet_topology::Processor;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::sync::Arc;

use super::OnlineError;
use super::net::{NONE, PacketNet};

/// Most links in one tree (tree positions are 16-bit).
pub const MAX_TREE_LINKS: usize = u16::MAX as usize - 1;

/// Most child links of one tree node (a unit's copies are tracked in a 64-bit mask).
pub const MAX_TREE_FANOUT: usize = 64;

/// An out-tree of links from a source processor to a set of destination processors.
///
/// Positions: 0 is the root (the source's injection queue); position `i + 1` is
/// `links()[i]`. Links are stored breadth-first from the root, the children of a node by
/// link id, so a tree does not depend on the order its links were given in.
#[derive(Debug, Clone)]
pub struct MulticastTree {
    src: Processor,
    dsts: Vec<Processor>,
    links: Arc<[u32]>,
    /// What the engines read a position's link from: `base[k] ^ xor` is `links[k]`. A tree
    /// built from its links has `base` = `links` (the same allocation) and `xor` = 0; a
    /// translate ([`MulticastTree::xor_translate`]) shares the base of the tree it was moved
    /// from, so that the `d · 2^d` trees of Stamoulis' direct scheme, `d` bases between them,
    /// are read per hop from a few kilobytes rather than from their own links (2 MB at
    /// `d = 8`, read at random: the largest stall of an output-queued broadcast hop).
    base: Arc<[u32]>,
    xor: u32,
    /// Everything else the engines read per position, shared between trees of one shape
    /// ([`MulticastTree::share_shapes`]).
    shape: Arc<Shape>,
    /// How many links the engine's network had (guards against use on another network).
    net_links: u32,
}

/// A tree's positions without their links: what an engine reads at every hop of a copy.
///
/// One 8-byte record per position, so that a hop reads one place instead of one array per
/// fact (the children's range, the delivery flag, the depth, the rank), and shared between the
/// trees that have it: the `d`-cube's rotated binomial trees of one tag differ only in their
/// links, so the `d · 2^d` trees of Stamoulis' direct scheme have `d` shapes, which stay in
/// cache while the trees' links are read at random.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Shape {
    pos: Vec<Position>,
}

impl Shape {
    /// A hash of every position (equal shapes have equal fingerprints).
    fn fingerprint(&self) -> u64 {
        self.pos.iter().fold(self.pos.len() as u64, |h, p| {
            let bits = u64::from(p.first_child)
                | u64::from(p.kids) << 16
                | u64::from(p.deliver) << 24
                | u64::from(p.depth) << 32
                | u64::from(p.rank) << 48;
            (h.rotate_left(5) ^ bits).wrapping_mul(0x9E37_79B9_7F4A_7C15)
        })
    }
}

/// One position of a tree's [`Shape`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Position {
    /// The first child's position. Positions are breadth-first from the root, so a
    /// position's children are consecutive: `first_child..first_child + kids`.
    first_child: u16,
    /// How many children (at most [`MAX_TREE_FANOUT`]).
    kids: u8,
    /// Whether the link's head is a destination's sink (never the root).
    deliver: bool,
    /// Links from the root (0 for the root).
    depth: u16,
    /// Its rank under [`super::ScanPolicy::Labelled`] (0 if unranked).
    rank: u16,
}

const _: () = assert!(std::mem::size_of::<Position>() == 8);

impl Position {
    /// The child positions.
    #[inline]
    pub(crate) fn children(self) -> std::ops::Range<u16> {
        self.first_child..self.first_child + u16::from(self.kids)
    }

    /// How many children.
    #[inline]
    pub(crate) fn kids(self) -> usize {
        usize::from(self.kids)
    }

    /// Whether the link at this position ends at a destination's sink.
    #[inline]
    pub(crate) fn delivers(self) -> bool {
        self.deliver
    }

    /// Links from the root.
    #[inline]
    pub(crate) fn depth(self) -> u32 {
        u32::from(self.depth)
    }

    /// The rank (0 if unranked).
    #[inline]
    pub(crate) fn rank(self) -> u16 {
        self.rank
    }
}

/// One multicast message: the index of its tree in the run's tree list and its release step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Multicast {
    /// Index into the trees passed to [`super::simulate_multicast`].
    pub tree: u32,
    /// The engine step at which it joins its source's injection queue.
    pub release: u64,
}

/// [`OnlineError::BadProcessor`] for a source or destination outside `net`.
fn check_processors(
    net: &PacketNet,
    src: Processor,
    dsts: &[Processor],
) -> Result<(), OnlineError> {
    let processors = net.processors();
    let bad_dst = dsts.iter().position(|&d| d >= processors);
    if src >= processors || bad_dst.is_some() {
        let index = bad_dst.unwrap_or(0);
        return Err(OnlineError::BadProcessor {
            index,
            src,
            dst: dsts.get(index).copied().unwrap_or(src),
            processors,
        });
    }
    Ok(())
}

fn bad(why: String) -> OnlineError {
    OnlineError::BadTree { why }
}

/// Trees are equal when their source, destinations, links and shapes are: how the engines read
/// the links (`base`, `xor`) is not part of the tree.
impl PartialEq for MulticastTree {
    fn eq(&self, other: &Self) -> bool {
        self.src == other.src
            && self.dsts == other.dsts
            && self.links == other.links
            && self.shape == other.shape
            && self.net_links == other.net_links
    }
}

impl Eq for MulticastTree {}

impl MulticastTree {
    /// The tree made of `links` (in any order) from `src` to `dsts`.
    ///
    /// # Errors
    ///
    /// [`OnlineError::BadProcessor`] for a processor outside the network, and
    /// [`OnlineError::BadTree`] when the destinations are empty, repeated or include `src`,
    /// when a link does not exist, is repeated, leaves a terminal other than the source's
    /// node, or enters a node that another tree link (or the root) already reaches, when a
    /// link is not connected to the root, when a destination's sink is not reached, when a
    /// branch ends anywhere but at a destination's sink, or when the tree exceeds
    /// [`MAX_TREE_LINKS`] links or [`MAX_TREE_FANOUT`] children at a node.
    pub fn new(
        net: &PacketNet,
        src: Processor,
        dsts: &[Processor],
        links: &[u32],
    ) -> Result<Self, OnlineError> {
        check_processors(net, src, dsts)?;
        if dsts.is_empty() {
            return Err(bad("a multicast needs at least one destination".into()));
        }
        let mut sorted = dsts.to_vec();
        sorted.sort_unstable();
        if let Some(w) = sorted.windows(2).find(|w| w[0] == w[1]) {
            return Err(bad(format!("destination {} is listed twice", w[0])));
        }
        if sorted.binary_search(&src).is_ok() {
            return Err(bad(format!(
                "destination {src} is the source itself (a multicast copies to other processors)"
            )));
        }
        if links.len() > MAX_TREE_LINKS {
            return Err(bad(format!(
                "{} links, at most {MAX_TREE_LINKS} per tree",
                links.len()
            )));
        }
        let total = net.links();
        let root = net.injection_node(src);
        // (node, position of the tree link entering it), sorted by node: sorted vectors keep
        // the work proportional to the tree, not the network, and the errors deterministic.
        if let Some(&e) = links.iter().find(|&&e| e >= total) {
            return Err(bad(format!(
                "link {e} does not exist (the network has {total} links)"
            )));
        }
        let mut entering: Vec<(u32, u32)> = Vec::with_capacity(links.len() + 1);
        entering.push((root, 0));
        entering.extend(
            links
                .iter()
                .enumerate()
                .map(|(i, &e)| (net.link_head(e), i as u32 + 1)),
        );
        entering.sort_unstable();
        if let Some(w) = entering.windows(2).find(|w| w[0].0 == w[1].0) {
            let (head, first, second) = (w[0].0, w[0].1, w[1].1);
            let e = links[second as usize - 1];
            return Err(bad(if first == 0 {
                format!("link {e} enters the source's own node {head}")
            } else {
                format!(
                    "link {e} enters node {head}, which link {} already enters (not a tree)",
                    links[first as usize - 1]
                )
            }));
        }
        let entering_of = |v: u32| {
            entering
                .binary_search_by_key(&v, |&(node, _)| node)
                .ok()
                .map(|i| entering[i].1)
        };
        // Parent of every link; order parents first by a walk from the root.
        let n = links.len();
        // The children of every position, as one list in runs by parent (a vector per
        // position was an allocation per link: most of building the d · 2^d trees).
        let mut parent = Vec::with_capacity(n);
        for &e in links {
            let tail = net.link_tail(e);
            let Some(p) = entering_of(tail) else {
                return Err(bad(format!(
                    "link {e} leaves node {tail}, which no tree link reaches"
                )));
            };
            if p != 0 && net.is_ejection(links[p as usize - 1]) {
                return Err(bad(format!(
                    "link {e} leaves terminal node {tail}, which forwards nothing"
                )));
            }
            parent.push(p);
        }
        let mut start = vec![0u32; n + 2];
        for &p in &parent {
            start[p as usize + 1] += 1;
        }
        for k in 1..start.len() {
            start[k] += start[k - 1];
        }
        let mut fill = start.clone();
        let mut child = vec![0u32; n];
        for (i, &p) in parent.iter().enumerate() {
            child[fill[p as usize] as usize] = i as u32 + 1;
            fill[p as usize] += 1;
        }
        let kids_of = |p: usize| start[p] as usize..start[p + 1] as usize;
        // Canonical order (children by link id), whatever the order of `links`.
        for p in 0..=n {
            let run = &mut child[kids_of(p)];
            if run.len() > 1 {
                run.sort_unstable_by_key(|&k| links[k as usize - 1]);
            }
        }
        let mut order = vec![0u32];
        let mut next = 0;
        while next < order.len() {
            let p = order[next] as usize;
            next += 1;
            order.extend_from_slice(&child[kids_of(p)]);
        }
        if order.len() != n + 1 {
            let stray = (1..=n as u32)
                .find(|k| !order.contains(k))
                .map_or(NONE, |k| links[k as usize - 1]);
            return Err(bad(format!(
                "link {stray} is not connected to the source (a cycle)"
            )));
        }
        // Renumber positions in walk order (parents first).
        let mut new_pos = vec![0u32; n + 1];
        for (k, &old) in order.iter().enumerate() {
            new_pos[old as usize] = k as u32;
        }
        let tree_links: Arc<[u32]> = order[1..].iter().map(|&o| links[o as usize - 1]).collect();
        let mut sinks: Vec<(u32, Processor)> =
            sorted.iter().map(|&d| (net.ejection_node(d), d)).collect();
        sinks.sort_unstable();
        let is_sink = |v: u32| sinks.binary_search_by_key(&v, |&(node, _)| node).is_ok();
        let mut pos = vec![
            Position {
                first_child: 0,
                kids: 0,
                deliver: false,
                depth: 0,
                rank: 0,
            };
            n + 1
        ];
        // Breadth-first: the children of the positions in order are positions 1, 2, …
        let mut next_child = 1u32;
        for (k, &old) in order.iter().enumerate() {
            let kid = &child[kids_of(old as usize)];
            if kid.len() > MAX_TREE_FANOUT {
                return Err(bad(format!(
                    "a tree node has {} child links, at most {MAX_TREE_FANOUT}",
                    kid.len()
                )));
            }
            pos[k].first_child = next_child as u16;
            pos[k].kids = kid.len() as u8;
            for &c in kid {
                let c = new_pos[c as usize];
                debug_assert_eq!(c, next_child, "breadth-first positions");
                next_child += 1;
                pos[c as usize].depth = pos[k].depth + 1;
            }
            if k > 0 {
                let e = tree_links[k - 1];
                pos[k].deliver = is_sink(net.link_head(e));
                if kid.is_empty() && !pos[k].deliver {
                    return Err(bad(format!(
                        "the branch through link {e} ends at node {}, which is no destination's sink",
                        net.link_head(e)
                    )));
                }
            }
        }
        for &(sink, d) in &sinks {
            if entering_of(sink).is_none() || sink == root {
                return Err(bad(format!(
                    "destination {d} is not reached: no tree link enters its node {sink}"
                )));
            }
        }
        Ok(Self {
            src,
            dsts: sorted,
            base: Arc::clone(&tree_links),
            links: tree_links,
            xor: 0,
            shape: Arc::new(Shape { pos }),
            net_links: total,
        })
    }

    /// A shortest-path tree from `src` to `dsts`: the breadth-first tree of the network from
    /// the source's node (out-links in link-id order, a node kept with the first link that
    /// reaches it), cut down to the branches that lead to a destination. Every destination
    /// is reached by a shortest path.
    ///
    /// # Errors
    ///
    /// As [`MulticastTree::new`]; [`OnlineError::Unroutable`] when a destination cannot be
    /// reached.
    pub fn shortest_paths(
        net: &PacketNet,
        src: Processor,
        dsts: &[Processor],
    ) -> Result<Self, OnlineError> {
        check_processors(net, src, dsts)?;
        let nodes = net.nodes() as usize;
        let root = net.injection_node(src);
        let mut via = vec![NONE; nodes];
        let mut seen = vec![false; nodes];
        seen[root as usize] = true;
        let mut queue = std::collections::VecDeque::from([root]);
        while let Some(v) = queue.pop_front() {
            // Terminals other than the root forward nothing.
            if v != root && via[v as usize] != NONE && net.is_ejection(via[v as usize]) {
                continue;
            }
            for &e in net.out_links(v) {
                let h = net.link_head(e) as usize;
                if !seen[h] {
                    seen[h] = true;
                    via[h] = e;
                    queue.push_back(h as u32);
                }
            }
        }
        let mut keep = vec![false; nodes];
        let mut links = Vec::new();
        for &d in dsts {
            let mut v = net.ejection_node(d);
            if v != root && via[v as usize] == NONE {
                return Err(OnlineError::Unroutable { src, dst: d });
            }
            while v != root && !keep[v as usize] {
                keep[v as usize] = true;
                let e = via[v as usize];
                links.push(e);
                v = net.link_tail(e);
            }
        }
        Self::new(net, src, dsts, &links)
    }

    /// The spanning tree of the `d`-cube that Stamoulis' efficient direct broadcast scheme
    /// gives a packet born at `root` with tag `first` (the non-idling SaS85 scheme, thesis
    /// §6.3.3): dimensions are taken in the cyclic order `first, first + 1,
    /// …, d − 1, 0, …, first − 1` (0-based); the root sends on every dimension, and a node
    /// reached over the `k`-th dimension of that order forwards on every later one. A
    /// binomial tree of depth `d` with `2^d − 1` links reaching every other node.
    ///
    /// # Errors
    ///
    /// [`OnlineError::Unsupported`] unless `net` is a hypercube; [`OnlineError::BadParameter`]
    /// for `first ≥ d`; [`OnlineError::BadProcessor`] for a root outside the cube.
    pub fn hypercube_rotated(
        net: &PacketNet,
        root: Processor,
        first: u32,
    ) -> Result<Self, OnlineError> {
        let Some(d) = net.hypercube_dimension() else {
            return Err(OnlineError::Unsupported {
                why: "rotated dimension-order trees exist on the hypercube only",
            });
        };
        if first >= d {
            return Err(OnlineError::BadParameter {
                param: OnlineParameter::FirstDimension,
                value: first.to_string(),
                expected: "below the cube's dimension",
            });
        }
        check_processors(net, root, &[])?;
        let order: Vec<u32> = (0..d).map(|k| (first + k) % d).collect();
        let mut links = Vec::with_capacity((1usize << d) - 1);
        // (node, index in `order` of the next dimension it forwards on)
        let mut frontier = vec![(root, 0usize)];
        while let Some((x, from)) = frontier.pop() {
            for (k, &dim) in order.iter().enumerate().skip(from) {
                links.push((dim << d) | x);
                frontier.push((x ^ (1 << dim), k + 1));
            }
        }
        let dsts: Vec<Processor> = (0..1u32 << d).filter(|&p| p != root).collect();
        Self::new(net, root, &dsts, &links)
    }

    /// This tree moved by the `d`-cube's automorphism `x ↦ x ⊕ r`: the tree of source
    /// `src ⊕ r` whose link across dimension `i` leaves `x ⊕ r` wherever this one's leaves
    /// `x` (links are numbered `(i << d) | x`, [`MulticastTree::hypercube_rotated`]), with
    /// the same shape, shared.
    ///
    /// The positions keep their order: they are breadth-first with a node's children by link
    /// id, and a node's child links differ only in their dimension, which the move keeps. So
    /// the result is the tree [`MulticastTree::new`] builds from the moved links, at the cost
    /// of copying them (building the `d · 2^d` trees of the direct scheme at `d = 10` took
    /// seconds).
    ///
    /// # Errors
    ///
    /// [`OnlineError::Unsupported`] unless `net` is a hypercube; [`OnlineError::BadParameter`]
    /// when the tree was built on another network; [`OnlineError::BadProcessor`] for `r`
    /// outside the cube.
    pub fn xor_translate(&self, net: &PacketNet, r: Processor) -> Result<Self, OnlineError> {
        let Some(d) = net.hypercube_dimension() else {
            return Err(OnlineError::Unsupported {
                why: "trees are translated on the hypercube only",
            });
        };
        if self.net_links != net.links() {
            return Err(OnlineError::BadParameter {
                param: OnlineParameter::MulticastTree,
                value: format!("a tree built on a network of {} links", self.net_links),
                expected: "a tree built on this network",
            });
        }
        check_processors(net, r, &[])?;
        let mask = (1u32 << d) - 1;
        let mut dsts: Vec<Processor> = self.dsts.iter().map(|&p| p ^ r).collect();
        dsts.sort_unstable();
        Ok(Self {
            src: self.src ^ r,
            dsts,
            links: self.links.iter().map(|&e| e ^ (r & mask)).collect(),
            base: Arc::clone(&self.base),
            xor: self.xor ^ (r & mask),
            shape: Arc::clone(&self.shape),
            net_links: self.net_links,
        })
    }

    /// The tree with every link ranked by `rank(link)`: under [`super::ScanPolicy::Labelled`]
    /// copies of equal label leave a queue in increasing rank (Stamoulis' "the packet that
    /// would cross this arc first in the multinode broadcast schedule goes first", §6.3.3).
    #[must_use]
    pub fn with_ranks(mut self, mut rank: impl FnMut(u32) -> u16) -> Self {
        let shape = Arc::make_mut(&mut self.shape);
        for (p, &e) in shape.pos[1..].iter_mut().zip(self.links.iter()) {
            p.rank = rank(e);
        }
        self
    }

    /// The rank of `link` in the tree (0 if unranked), `None` if the link is not in the tree.
    pub fn rank(&self, link: u32) -> Option<u16> {
        let k = self.links.iter().position(|&e| e == link)?;
        Some(self.shape.pos[k + 1].rank)
    }

    /// Makes the trees of equal shape (equal positions, children, delivering positions,
    /// depths and ranks; links may differ) share one copy of it. Results do not change; a run
    /// over many trees of few shapes reads less memory per hop (the `d`-cube's rotated
    /// binomial trees: `d` shapes for `d · 2^d` trees).
    pub fn share_shapes(trees: &mut [MulticastTree]) {
        // Shapes by a cheap fingerprint, confirmed equal in full (a `HashSet` of the shapes
        // themselves hashed every field of every position: most of the set-up of a d = 8 run).
        let mut seen: HashMap<u64, Vec<Arc<Shape>>> = HashMap::new();
        for tree in trees {
            let same = seen.entry(tree.shape.fingerprint()).or_default();
            match same.iter().find(|s| **s == tree.shape) {
                Some(shared) => tree.shape = Arc::clone(shared),
                None => same.push(Arc::clone(&tree.shape)),
            }
        }
    }

    /// The source processor.
    pub fn src(&self) -> Processor {
        self.src
    }

    /// The destinations, sorted.
    pub fn dsts(&self) -> &[Processor] {
        &self.dsts
    }

    /// The tree's links, parents before children.
    pub fn links(&self) -> &[u32] {
        &self.links
    }

    /// The longest root-to-leaf path, in links.
    pub fn height(&self) -> u32 {
        self.shape
            .pos
            .iter()
            .map(|p| u32::from(p.depth))
            .max()
            .unwrap_or(0)
    }

    /// Position `k` (0 is the root).
    #[inline]
    pub(crate) fn at(&self, k: u16) -> Position {
        self.shape.pos[k as usize]
    }

    /// The links of position `p`'s children, in the order of [`Position::children`] (read
    /// from the shared base, see [`MulticastTree::base`]).
    #[inline]
    pub(crate) fn child_links(&self, p: Position) -> impl Iterator<Item = u32> + '_ {
        let first = usize::from(p.first_child) - 1;
        let xor = self.xor;
        self.base[first..first + p.kids()]
            .iter()
            .map(move |&e| e ^ xor)
    }

    /// The number of links of the network the tree was built on.
    pub(crate) fn net_links(&self) -> u32 {
        self.net_links
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fatnet_topology::Hypercube;

    /// The `d`-cube's rotated trees of one tag share one shape after `share_shapes`, trees of
    /// different tags do not, and sharing changes no tree.
    #[test]
    fn rotated_trees_of_one_tag_share_their_shape() {
        let d = 4;
        let net = PacketNet::new(Hypercube::new(u64::from(d)).unwrap()).unwrap();
        let built: Vec<MulticastTree> = (0..1u32 << d)
            .flat_map(|root| (0..d).map(move |tag| (root, tag)))
            .map(|(root, tag)| MulticastTree::hypercube_rotated(&net, root, tag).unwrap())
            .collect();
        let mut shared = built.clone();
        MulticastTree::share_shapes(&mut shared);
        assert_eq!(shared, built, "sharing changes no tree");
        for (i, a) in shared.iter().enumerate() {
            for (j, b) in shared.iter().enumerate() {
                let same_tag = i % d as usize == j % d as usize;
                assert_eq!(
                    Arc::ptr_eq(&a.shape, &b.shape),
                    same_tag,
                    "trees {i} and {j}"
                );
            }
        }
        // Before sharing every tree had its own.
        assert!(!Arc::ptr_eq(&built[0].shape, &built[d as usize].shape));
    }

    /// Every link as the engines read it ([`MulticastTree::child_links`]), position by
    /// position: the tree's links, in order.
    fn engine_links(t: &MulticastTree) -> Vec<u32> {
        let mut out = Vec::new();
        for k in 0..=t.links().len() as u16 {
            let p = t.at(k);
            if p.kids() > 0 {
                out.extend(t.child_links(p));
            }
        }
        out
    }

    /// A translate is the tree built afresh from the moved links: the rotated trees of every
    /// root, and shortest-path trees to scattered destinations (equivariant under the move:
    /// out-links are taken by dimension at every node).
    #[test]
    fn translates_are_the_trees_built_afresh() {
        use rand::{Rng, SeedableRng};
        for d in 1..=6u32 {
            let net = PacketNet::new(Hypercube::new(u64::from(d)).unwrap()).unwrap();
            let n = 1u32 << d;
            for tag in 0..d {
                let base = MulticastTree::hypercube_rotated(&net, 0, tag).unwrap();
                for r in 0..n {
                    let moved = base.xor_translate(&net, r).unwrap();
                    let fresh = MulticastTree::hypercube_rotated(&net, r, tag).unwrap();
                    assert_eq!(moved, fresh);
                    assert!(Arc::ptr_eq(&moved.shape, &base.shape));
                    // The engines read the moved links through the shared base.
                    assert!(Arc::ptr_eq(&moved.base, &base.base));
                    assert_eq!(engine_links(&moved), engine_links(&fresh));
                    assert_eq!(engine_links(&fresh), fresh.links());
                    // A translate of a translate is the translate by both moves.
                    let twice = moved.xor_translate(&net, r ^ 1).unwrap();
                    assert_eq!(
                        engine_links(&twice),
                        engine_links(&base.xor_translate(&net, 1).unwrap())
                    );
                }
            }
            let mut rng = rand_pcg::Pcg64::seed_from_u64(u64::from(d));
            for _ in 0..20 {
                let src = rng.random_range(0..n);
                let mut dsts: Vec<u32> = (0..n)
                    .filter(|&p| p != src && rng.random_bool(0.3))
                    .collect();
                if dsts.is_empty() {
                    dsts.push(src ^ 1);
                }
                let tree = MulticastTree::shortest_paths(&net, src, &dsts).unwrap();
                let r = rng.random_range(0..n);
                let moved: Vec<u32> = dsts.iter().map(|&p| p ^ r).collect();
                assert_eq!(
                    tree.xor_translate(&net, r).unwrap(),
                    MulticastTree::shortest_paths(&net, src ^ r, &moved).unwrap(),
                    "d = {d}, src {src}, r = {r}"
                );
            }
        }
    }

    /// Translating needs a hypercube, the tree's own network and a node of it.
    #[test]
    fn translating_refuses_other_networks_and_nodes() {
        let cube = PacketNet::new(Hypercube::new(3).unwrap()).unwrap();
        let tree = MulticastTree::hypercube_rotated(&cube, 0, 0).unwrap();
        assert!(matches!(
            tree.xor_translate(&cube, 8),
            Err(OnlineError::BadProcessor { .. })
        ));
        let bigger = PacketNet::new(Hypercube::new(4).unwrap()).unwrap();
        assert!(matches!(
            tree.xor_translate(&bigger, 1),
            Err(OnlineError::BadParameter { .. })
        ));
        let bft = PacketNet::new(fatnet_topology::ButterflyFatTree::new(16).unwrap()).unwrap();
        let on_bft = MulticastTree::shortest_paths(&bft, 0, &[5]).unwrap();
        assert!(matches!(
            on_bft.xor_translate(&bft, 1),
            Err(OnlineError::Unsupported { .. })
        ));
    }

    /// Ranking a tree whose shape is shared gives it its own copy.
    #[test]
    fn ranking_a_shared_shape_copies_it() {
        let net = PacketNet::new(Hypercube::new(3).unwrap()).unwrap();
        let mut trees: Vec<MulticastTree> = (0..2)
            .map(|root| MulticastTree::hypercube_rotated(&net, root, 0).unwrap())
            .collect();
        MulticastTree::share_shapes(&mut trees);
        let first = trees[0].links()[0];
        let ranked = trees[0]
            .clone()
            .with_ranks(|e| if e == first { 5 } else { 1 });
        assert_eq!(ranked.rank(first), Some(5));
        assert_eq!(
            trees[0].rank(first),
            Some(0),
            "the shared shape is unchanged"
        );
        assert_eq!(trees[1].rank(trees[1].links()[0]), Some(0));
    }
}
