//! Checks shared by the unit tests of the topologies: structural invariants of the ids and
//! bundles, and every enumerated path against a breadth-first search over [`crate::to_petgraph`].

use std::collections::{BTreeSet, VecDeque};

use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::visit::EdgeRef;

use crate::{BundleId, Channel, ChannelId, Node, NodeId, NodeKind, Topology, to_petgraph};

/// Checks ids, node kinds and bundles: endpoints in range, no loops, capacities at least one,
/// every bundle non-empty with capacity equal to the sum of its channels' capacities, the
/// channels of a bundle on one level and direction and sharing their tail or their head, the
/// switch count equal to the number of switch nodes, and injection (ejection) nodes distinct.
pub(crate) fn check_structure<T: Topology + ?Sized>(t: &T) {
    let nodes = t.num_nodes();
    let mut members: Vec<Vec<Channel>> = vec![Vec::new(); t.num_bundles() as usize];
    for c in 0..t.num_channels() {
        let ch = t.channel(ChannelId(c));
        assert!(
            ch.from.0 < nodes && ch.to.0 < nodes,
            "channel {c} leaves the graph"
        );
        assert_ne!(ch.from, ch.to, "channel {c} is a loop");
        assert!(ch.capacity >= 1, "channel {c} has capacity 0");
        assert!(ch.bundle.0 < t.num_bundles(), "channel {c} has no bundle");
        members[ch.bundle.index()].push(ch);
    }
    for (b, chans) in members.iter().enumerate() {
        assert!(!chans.is_empty(), "bundle {b} is empty");
        let sum: u64 = chans.iter().map(|ch| ch.capacity).sum();
        assert_eq!(t.bundle_capacity(BundleId(b as u32)), sum, "bundle {b}");
        let first = chans[0];
        assert!(chans.iter().all(|ch| ch.level == first.level));
        assert!(chans.iter().all(|ch| ch.direction == first.direction));
        assert!(
            chans.iter().all(|ch| ch.from == first.from)
                || chans.iter().all(|ch| ch.to == first.to),
            "bundle {b} neither leaves nor enters one node"
        );
    }
    let switches = (0..nodes)
        .filter(|&v| t.node(NodeId(v)).kind == NodeKind::Switch)
        .count();
    assert_eq!(switches, t.num_switches() as usize);
    let inj: BTreeSet<NodeId> = (0..t.num_processors())
        .map(|p| t.injection_node(p))
        .collect();
    let ej: BTreeSet<NodeId> = (0..t.num_processors())
        .map(|p| t.ejection_node(p))
        .collect();
    assert_eq!(inj.len(), t.num_processors() as usize);
    assert_eq!(ej.len(), t.num_processors() as usize);
    assert!(inj.iter().chain(&ej).all(|v| v.0 < nodes));
}

/// Distances and numbers of shortest walks (counted per channel, so parallel channels count
/// separately) from `source`, by breadth-first search.
fn bfs(g: &DiGraph<Node, Channel>, source: NodeId) -> (Vec<usize>, Vec<u128>) {
    let mut dist = vec![usize::MAX; g.node_count()];
    let mut count = vec![0u128; g.node_count()];
    dist[source.index()] = 0;
    count[source.index()] = 1;
    let mut queue = VecDeque::from([source.index()]);
    while let Some(u) = queue.pop_front() {
        for e in g.edges(NodeIndex::new(u)) {
            let v = e.target().index();
            if dist[v] == usize::MAX {
                dist[v] = dist[u] + 1;
                queue.push_back(v);
            }
            if dist[v] == dist[u] + 1 {
                count[v] += count[u];
            }
        }
    }
    (dist, count)
}

/// Checks every path of every ordered pair of processors: `path_count` equals the number of
/// shortest walks found by BFS, each of the `path_count` paths is a walk from
/// `injection_node(src)` to `ejection_node(dst)` of the BFS length, the paths of a pair are
/// pairwise distinct, `path` is index 0, `distance` is the length, and the standard index is
/// in range. Returns the number of paths checked.
pub(crate) fn check_all_paths<T: Topology + ?Sized>(t: &T) -> u64 {
    all_paths(t, false)
}

/// [`check_all_paths`], and all paths of a pair cross the same bundles in the same order (so
/// the load over bundles does not depend on the choice of paths).
pub(crate) fn check_all_paths_same_bundles<T: Topology + ?Sized>(t: &T) -> u64 {
    all_paths(t, true)
}

fn all_paths<T: Topology + ?Sized>(t: &T, same_bundles: bool) -> u64 {
    let g = to_petgraph(t).expect("a test topology is small");
    let mut checked = 0;
    let mut out = Vec::new();
    for src in 0..t.num_processors() {
        let start = t.injection_node(src);
        let (dist, count) = bfs(&g, start);
        for dst in 0..t.num_processors() {
            let end = t.ejection_node(dst);
            let len = dist[end.index()];
            assert_ne!(len, usize::MAX, "{src} cannot reach {dst}");
            let k = t.path_count(src, dst);
            assert_eq!(k, count[end.index()], "path count {src} -> {dst}");
            assert!(t.standard_path_index(src, dst) < k);
            assert_eq!(t.distance(src, dst), len);
            let mut seen = BTreeSet::new();
            let mut bundles0 = Vec::new();
            for index in 0..k {
                out.clear();
                out.push(ChannelId(u32::MAX)); // path_into must clear
                t.path_into(src, dst, index, &mut out);
                assert_eq!(out.len(), len, "{src} -> {dst} #{index} is not shortest");
                let mut at = start;
                for &c in &out {
                    let ch = t.channel(c);
                    assert_eq!(ch.from, at, "{src} -> {dst} #{index} is not a walk");
                    at = ch.to;
                }
                assert_eq!(at, end, "{src} -> {dst} #{index} ends elsewhere");
                let bundles: Vec<BundleId> = out.iter().map(|&c| t.channel(c).bundle).collect();
                if index == 0 {
                    assert_eq!(t.path(src, dst), out);
                    bundles0 = bundles;
                } else if same_bundles {
                    assert_eq!(bundles, bundles0, "{src} -> {dst} #{index}: other bundles");
                }
                assert!(seen.insert(out.clone()), "{src} -> {dst} #{index} repeats");
                checked += 1;
            }
        }
    }
    checked
}

/// The bundle checks of [`check_structure`] for topologies whose bundles join tree nodes made
/// of several switches (butterfly fat-tree, k-ary n-tree), so that the channels of a bundle
/// need not share a tail or a head: every bundle non-empty, its capacity the sum of its
/// channels' capacities, its channels on one level and direction.
pub(crate) fn check_bundles<T: Topology + ?Sized>(t: &T) {
    let mut members: Vec<Vec<Channel>> = vec![Vec::new(); t.num_bundles() as usize];
    for c in 0..t.num_channels() {
        let ch = t.channel(ChannelId(c));
        assert!(ch.bundle.0 < t.num_bundles(), "channel {c} has no bundle");
        members[ch.bundle.index()].push(ch);
    }
    for (b, chans) in members.iter().enumerate() {
        assert!(!chans.is_empty(), "bundle {b} is empty");
        let sum: u64 = chans.iter().map(|ch| ch.capacity).sum();
        assert_eq!(t.bundle_capacity(BundleId(b as u32)), sum, "bundle {b}");
        assert!(chans.iter().all(|ch| ch.level == chans[0].level));
        assert!(chans.iter().all(|ch| ch.direction == chans[0].direction));
    }
}

/// Checks the paths of one pair without a BFS (for instances too big for
/// [`check_all_paths`]): `len` channels each, walks from `injection_node(src)` to
/// `ejection_node(dst)`, pairwise distinct, and crossing the same bundles whatever the path
/// index. Returns the paths.
pub(crate) fn check_pair<T: Topology + ?Sized>(
    t: &T,
    src: u32,
    dst: u32,
    len: usize,
) -> Vec<Vec<ChannelId>> {
    let paths = t.shortest_paths(src, dst, usize::MAX).expect("no limit");
    assert_eq!(paths.len() as u128, t.path_count(src, dst));
    assert_eq!(t.distance(src, dst), len);
    assert!(t.standard_path_index(src, dst) < t.path_count(src, dst));
    let bundles =
        |p: &[ChannelId]| -> Vec<BundleId> { p.iter().map(|&c| t.channel(c).bundle).collect() };
    for (index, p) in paths.iter().enumerate() {
        assert_eq!(p.len(), len, "{src} -> {dst} #{index}");
        let mut at = t.injection_node(src);
        for &c in p {
            let ch = t.channel(c);
            assert_eq!(ch.from, at, "{src} -> {dst} #{index} is not a walk");
            at = ch.to;
        }
        assert_eq!(
            at,
            t.ejection_node(dst),
            "{src} -> {dst} #{index} ends elsewhere"
        );
        assert_eq!(
            bundles(p),
            bundles(&paths[0]),
            "{src} -> {dst} #{index}: bundles differ"
        );
    }
    let distinct: BTreeSet<&Vec<ChannelId>> = paths.iter().collect();
    assert_eq!(distinct.len(), paths.len(), "{src} -> {dst}: paths repeat");
    paths
}
