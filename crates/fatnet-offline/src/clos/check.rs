//! Yuan's Lemma 1 checker with a counterexample (from the proof of Lemma 1), and the exact
//! worst-case contention of a routing over all permutations.

use fatnet_topology::FoldedClos;
use fatnet_traffic::{Message, MessageSet};
use petgraph::algo::maximum_matching;
use petgraph::graph::{NodeIndex, UnGraph};
use serde::Serialize;

use super::{ClosChannel, ClosRouting, down_link, is_cross, link_channel, simulate, up_link};
use crate::OfflineError;

/// The most ordered pairs of processors [`check_nonblocking`] and [`worst_contention`] visit
/// (2^32: 65,536 processors, the largest fabric `fatnet-fabric` analyses; seconds to minutes).
pub const MAX_CHECKED_PAIRS: u64 = 1 << 32;

/// Refuses a check of `clos` over [`MAX_CHECKED_PAIRS`] pairs or whose per-link state would
/// exceed [`fatnet_topology::MEMORY_BUDGET`], before anything is allocated.
fn check_size(clos: &FoldedClos) -> Result<(), OfflineError> {
    let pairs = u64::from(clos.ports()).pow(2);
    if pairs > MAX_CHECKED_PAIRS {
        return Err(OfflineError::SearchTooLarge {
            what: "Lemma 1's check over every ordered pair of processors",
            size: pairs,
            limit: MAX_CHECKED_PAIRS,
        });
    }
    let bytes = 2 * u64::from(clos.r()) * u64::from(clos.m()) * size_of::<LinkPairs>() as u64;
    if bytes > fatnet_topology::MEMORY_BUDGET {
        return Err(OfflineError::SearchTooLarge {
            what: "the per-link state of Lemma 1's check, in bytes",
            size: bytes,
            limit: fatnet_topology::MEMORY_BUDGET,
        });
    }
    Ok(())
}

/// Calls `visit(s, d, t)` for every pair across bottom switches and every top switch `t` the
/// routing gives it, in `(s, d, t)` order, after validating the tops.
fn for_each_route(
    clos: &FoldedClos,
    routing: &(impl ClosRouting + ?Sized),
    mut visit: impl FnMut(u32, u32, u32),
) -> Result<(), OfflineError> {
    let p = clos.ports();
    for s in 0..p {
        for d in 0..p {
            if !is_cross(clos, s, d) {
                continue;
            }
            let tops = routing.tops(s, d);
            let tops = tops.as_slice();
            if tops.is_empty() {
                return Err(OfflineError::NoTopSwitch { src: s, dst: d });
            }
            for (k, &t) in tops.iter().enumerate() {
                if t >= clos.m() {
                    return Err(OfflineError::TopOutOfRange {
                        src: s,
                        dst: d,
                        top: u64::from(t),
                        m: u64::from(clos.m()),
                    });
                }
                // A top named twice is one path.
                if !tops[..k].contains(&t) {
                    visit(s, d, t);
                }
            }
        }
    }
    Ok(())
}

/// Two pairs of a permutation (distinct sources, distinct destinations) that a routing sends
/// over the same directed link: the certificate that the routing blocks (Lemma 1, "⇒").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Counterexample {
    /// The shared link, an uplink or a downlink.
    pub link: ClosChannel,
    /// The two pairs, `[src, dst]` each.
    pub pairs: [Message; 2],
}

/// The verdict of [`check_nonblocking`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct NonblockingReport {
    /// Pairs across bottom switches, `r(r−1)n²`.
    pub cross_pairs: u64,
    /// Paths routed: one per pair for a single-path routing, `Σ |tops(s, d)|` in general.
    pub paths: u64,
    /// The largest number of pairs any one link between the levels carries.
    pub max_link_pairs: u64,
    /// Links carrying two pairs with distinct sources and distinct destinations.
    pub blocking_links: u64,
    /// A two-pair permutation that collides, on the first blocking link in channel id order;
    /// `None` iff the routing is nonblocking.
    pub counterexample: Option<Counterexample>,
}

impl NonblockingReport {
    /// Whether every permutation is routed without contention.
    pub fn is_nonblocking(&self) -> bool {
        self.counterexample.is_none()
    }
}

/// The (source, destination) pairs a link carries, as far as Yuan's Lemma 1 needs them:
/// enough to decide whether two of them have distinct sources and distinct destinations, and
/// to produce such a two-pair witness, in one pass. Used on generated networks here and on the
/// traced routes of real fabrics (`fatnet-fabric`).
#[derive(Clone, Copy, Debug, Default)]
pub struct LinkPairs {
    count: u64,
    first: Option<(u32, u32)>,
    /// The first pair whose source differs from `first`'s.
    other_src: Option<(u32, u32)>,
    /// The first pair whose destination differs from `first`'s.
    other_dst: Option<(u32, u32)>,
}

impl LinkPairs {
    /// Records one more pair over the link.
    pub fn add(&mut self, s: u32, d: u32) {
        self.count += 1;
        match self.first {
            None => self.first = Some((s, d)),
            Some((s0, d0)) => {
                if self.other_src.is_none() && s != s0 {
                    self.other_src = Some((s, d));
                }
                if self.other_dst.is_none() && d != d0 {
                    self.other_dst = Some((s, d));
                }
            }
        }
    }

    /// Whether more pairs cannot change [`LinkPairs::witness`] (both kinds of "other" pair
    /// are known): a scan may stop here.
    pub fn is_decided(&self) -> bool {
        self.other_src.is_some() && self.other_dst.is_some()
    }

    /// Two pairs with distinct sources and distinct destinations, if the link has them
    /// (as in the proof of Lemma 1): `a` first; `b` differs from `a` in source, `c` in destination.
    /// If `b` also differs in destination, `(a, b)`; else if `c` also differs in source, `(a, c)`;
    /// else `b = (s_b, d_a)` and `c = (s_a, d_c)`, so `(b, c)`.
    pub fn witness(&self) -> Option<[(u32, u32); 2]> {
        let (a, b, c) = (self.first?, self.other_src?, self.other_dst?);
        Some(if b.1 != a.1 {
            [a, b]
        } else if c.0 != a.0 {
            [a, c]
        } else {
            [b, c]
        })
    }
}

/// Decides whether `routing` makes `clos` nonblocking (Yuan's Definition 2) by Lemma 1: it
/// is iff every directed link between the levels carries pairs that all share one source or
/// all share one destination. Multipath routings are checked on the union of their paths
/// (§IV-B). Leaf links never conflict in a permutation and are not examined.
///
/// Time `O(r²n²·|tops|)` (every pair once per top), memory `O(r·m)`: each link keeps its
/// count, its first pair, and the first pairs that differ from it in source and in
/// destination, which is all the witness construction of Lemma 1's proof needs.
///
/// # Errors
///
/// [`OfflineError::TopOutOfRange`] or [`OfflineError::NoTopSwitch`] when the routing names a
/// top switch `clos` does not have, or none; [`OfflineError::SearchTooLarge`] for more than
/// [`MAX_CHECKED_PAIRS`] pairs or per-link state over the memory budget, before any work.
pub fn check_nonblocking(
    clos: &FoldedClos,
    routing: &(impl ClosRouting + ?Sized),
) -> Result<NonblockingReport, OfflineError> {
    check_size(clos)?;
    let links = 2 * clos.r() as usize * clos.m() as usize;
    let mut state = vec![LinkPairs::default(); links];
    let (mut cross, mut paths, mut last) = (0u64, 0u64, None);
    for_each_route(clos, routing, |s, d, t| {
        if last != Some((s, d)) {
            cross += 1;
            last = Some((s, d));
        }
        paths += 1;
        let (v, w) = (clos.bottom_switch(s), clos.bottom_switch(d));
        state[up_link(clos, v, t)].add(s, d);
        state[down_link(clos, t, w)].add(s, d);
    })?;
    let mut blocking = 0;
    let mut counterexample = None;
    for (i, st) in state.iter().enumerate() {
        if let Some([a, b]) = st.witness() {
            blocking += 1;
            counterexample.get_or_insert(Counterexample {
                link: link_channel(clos, i),
                pairs: [Message::new(a.0, a.1), Message::new(b.0, b.1)],
            });
        }
    }
    Ok(NonblockingReport {
        cross_pairs: cross,
        paths,
        max_link_pairs: state.iter().map(|s| s.count).max().unwrap_or(0),
        blocking_links: blocking,
        counterexample,
    })
}

/// Re-checks a counterexample independently of [`check_nonblocking`]: the two pairs form a
/// permutation (distinct sources, distinct destinations, both across bottom switches), the
/// routing gives each the link's top switch, and the simulator, routing both through it,
/// counts two pairs on the link.
pub fn verify_counterexample(
    clos: &FoldedClos,
    routing: &(impl ClosRouting + ?Sized),
    cx: &Counterexample,
) -> bool {
    let p = clos.ports();
    let [a, b] = cx.pairs;
    if a.src == b.src || a.dst == b.dst {
        return false;
    }
    let (top, bottom) = match cx.link {
        ClosChannel::Up { bottom, top } | ClosChannel::Down { top, bottom } => (top, bottom),
        _ => return false,
    };
    if top >= clos.m() || bottom >= clos.r() {
        return false;
    }
    for m in [a, b] {
        if m.src >= p || m.dst >= p || !is_cross(clos, m.src, m.dst) {
            return false;
        }
        let end = match cx.link {
            ClosChannel::Up { .. } => m.src,
            _ => m.dst,
        };
        if clos.bottom_switch(end) != bottom
            || !routing.tops(m.src, m.dst).as_slice().contains(&top)
        {
            return false;
        }
    }
    let Ok(pair) = MessageSet::new(p, vec![a, b]) else {
        return false;
    };
    match simulate(clos, &pair, &[Some(top), Some(top)]) {
        Ok(rep) => rep
            .contended
            .iter()
            .any(|c| c.channel == cx.link && c.load == 2),
        Err(_) => false,
    }
}

/// The exact worst case of a routing over all (partial) permutations: the most pairs of one
/// permutation that share a link, the link, and a permutation attaining it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct WorstContention {
    /// The maximum over permutations and links between the levels of the pairs on one link;
    /// at most 1 iff the routing is nonblocking, at most `n` always (a link touches one
    /// bottom switch, with `n` sources or `n` destinations). 0 when no pair crosses bottom
    /// switches (`r = 1`). Leaf links carry at most one pair of a permutation.
    pub contention: u32,
    /// The first link in channel id order attaining it (`None` when `contention = 0`).
    pub link: Option<ClosChannel>,
    /// A permutation that puts `contention` pairs on `link`, sorted.
    pub permutation: Vec<Message>,
}

/// The exact worst-case contention of `routing` over all permutations (multipath pairs
/// counted on every path, as in [`simulate_routing`](super::simulate_routing)).
///
/// The pairs routed over a link form a bipartite graph between their sources and their
/// destinations; a permutation is a matching of it (distinct sources, distinct
/// destinations), so the most pairs of one permutation on the link is the graph's maximum
/// matching, and the worst case is the maximum over links.
///
/// Matching: a first pass (the one of [`check_nonblocking`]) finds the links with two pairs
/// of distinct sources and destinations; every other link carries at most one pair of any
/// permutation, so only the blocking links' pairs are collected (nothing at all for a
/// nonblocking routing) and matched with petgraph's `maximum_matching` (Gabow, `O(V³)`),
/// already a dependency. It fits: a link's graph has at most `r·n` vertices, its matchings
/// at most `n` edges, the search stops as soon as some link reaches the bound `n`, and a
/// dedicated bipartite algorithm (Hopcroft–Karp) would only pay off on graphs far larger
/// than any network this crate can tabulate.
///
/// Time `O(r²n²·|tops|)` plus the matchings; memory `O(r·m)` plus the pairs on blocking
/// links.
///
/// # Errors
///
/// As [`check_nonblocking`].
pub fn worst_contention(
    clos: &FoldedClos,
    routing: &(impl ClosRouting + ?Sized),
) -> Result<WorstContention, OfflineError> {
    check_size(clos)?;
    let links = 2 * clos.r() as usize * clos.m() as usize;
    // Pass 1: which links have two pairs with distinct sources and destinations (Lemma 1).
    let mut state = vec![LinkPairs::default(); links];
    for_each_route(clos, routing, |s, d, t| {
        let (v, w) = (clos.bottom_switch(s), clos.bottom_switch(d));
        state[up_link(clos, v, t)].add(s, d);
        state[down_link(clos, t, w)].add(s, d);
    })?;
    // Every other link carries at most one pair of any permutation.
    let mut best = match state.iter().position(|st| st.first.is_some()) {
        None => {
            return Ok(WorstContention {
                contention: 0,
                link: None,
                permutation: Vec::new(),
            });
        }
        Some(l) => {
            let (s, d) = state[l].first.expect("nonempty link");
            WorstContention {
                contention: 1,
                link: Some(link_channel(clos, l)),
                permutation: vec![Message::new(s, d)],
            }
        }
    };
    let blocking: Vec<usize> = (0..links)
        .filter(|&l| state[l].witness().is_some())
        .collect();
    if blocking.is_empty() {
        return Ok(best);
    }
    // Pass 2: the pairs of the blocking links only, in two sweeps (count, fill).
    let mut slot = vec![usize::MAX; links];
    for (k, &l) in blocking.iter().enumerate() {
        slot[l] = k;
    }
    let mut start = vec![0usize; blocking.len() + 1];
    for (k, &l) in blocking.iter().enumerate() {
        start[k + 1] = start[k] + state[l].count as usize;
    }
    let mut fill = start.clone();
    let mut pairs = vec![(0u32, 0u32); start[blocking.len()]];
    for_each_route(clos, routing, |s, d, t| {
        let (v, w) = (clos.bottom_switch(s), clos.bottom_switch(d));
        for l in [up_link(clos, v, t), down_link(clos, t, w)] {
            if slot[l] != usize::MAX {
                pairs[fill[slot[l]]] = (s, d);
                fill[slot[l]] += 1;
            }
        }
    })?;
    let bound = clos.n();
    for (k, &l) in blocking.iter().enumerate() {
        let matched = max_matching(&pairs[start[k]..start[k + 1]], clos.ports());
        if matched.len() as u32 > best.contention {
            best = WorstContention {
                contention: matched.len() as u32,
                link: Some(link_channel(clos, l)),
                permutation: matched,
            };
            if best.contention >= bound {
                break;
            }
        }
    }
    Ok(best)
}

/// A maximum set of pairs with distinct sources and distinct destinations, sorted.
fn max_matching(pairs: &[(u32, u32)], processors: u32) -> Vec<Message> {
    let mut graph = UnGraph::<(bool, u32), ()>::with_capacity(pairs.len(), pairs.len());
    let mut src_node = vec![None::<NodeIndex>; processors as usize];
    let mut dst_node = vec![None::<NodeIndex>; processors as usize];
    for &(s, d) in pairs {
        let a = *src_node[s as usize].get_or_insert_with(|| graph.add_node((false, s)));
        let b = *dst_node[d as usize].get_or_insert_with(|| graph.add_node((true, d)));
        graph.add_edge(a, b, ());
    }
    let matching = maximum_matching(&graph);
    let mut out: Vec<Message> = matching
        .edges()
        .map(|(a, b)| {
            let (a, b) = (graph[a], graph[b]);
            if a.0 {
                Message::new(b.1, a.1)
            } else {
                Message::new(a.1, b.1)
            }
        })
        .collect();
    out.sort_unstable();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clos::{DModM, RoutingTable, YuanRouting};

    /// Checks too large to finish or to fit are refused before any work (they used to
    /// allocate 96 GB and abort).
    #[test]
    fn huge_checks_are_refused_up_front() {
        let too_many_pairs = FoldedClos::new(1000, 1000, 1000).unwrap();
        let routing = DModM::new(&too_many_pairs);
        for e in [
            check_nonblocking(&too_many_pairs, &routing).unwrap_err(),
            worst_contention(&too_many_pairs, &routing)
                .map(|_| ())
                .unwrap_err(),
        ] {
            assert!(
                matches!(e, OfflineError::SearchTooLarge { size: 1_000_000_000_000, limit, .. } if limit == MAX_CHECKED_PAIRS),
                "{e}"
            );
        }
        // Few pairs, but 2·r·m links of state over the memory budget.
        let too_wide = FoldedClos::new(1, 1 << 20, 1 << 10).unwrap();
        let e = check_nonblocking(&too_wide, &DModM::new(&too_wide)).unwrap_err();
        assert!(
            matches!(e, OfflineError::SearchTooLarge { limit, .. } if limit == fatnet_topology::MEMORY_BUDGET),
            "{e}"
        );
    }

    #[test]
    fn witness_covers_the_three_cases() {
        let mut st = LinkPairs::default();
        for (s, d) in [(0, 5), (1, 6)] {
            st.add(s, d);
        }
        assert_eq!(st.witness(), Some([(0, 5), (1, 6)]));
        // b shares a's destination, c differs in both: (a, c).
        let mut st = LinkPairs::default();
        for (s, d) in [(0, 5), (1, 5), (2, 6)] {
            st.add(s, d);
        }
        assert_eq!(st.witness(), Some([(0, 5), (2, 6)]));
        // b = (s_b, d_a), c = (s_a, d_c): (b, c).
        let mut st = LinkPairs::default();
        for (s, d) in [(0, 5), (1, 5), (0, 6)] {
            st.add(s, d);
        }
        assert_eq!(st.witness(), Some([(1, 5), (0, 6)]));
        // One source, many destinations: no witness.
        let mut st = LinkPairs::default();
        for (s, d) in [(0, 5), (0, 6), (0, 7)] {
            st.add(s, d);
        }
        assert_eq!((st.witness(), st.count), (None, 3));
    }

    #[test]
    fn yuan_is_nonblocking_and_dmodm_blocks() {
        let clos = FoldedClos::new(2, 4, 5).unwrap();
        let rep = check_nonblocking(&clos, &YuanRouting::new(&clos).unwrap()).unwrap();
        assert!(rep.is_nonblocking());
        // r(r−1)n² = 80 pairs; each link carries r−1 = 4 (note C-T3.2).
        assert_eq!(
            (rep.cross_pairs, rep.paths, rep.max_link_pairs),
            (80, 80, 4)
        );
        assert_eq!(rep.blocking_links, 0);
        // d-mod-m: Up(0, 0) carries 0 -> 4, 0 -> 8, 1 -> 4, ...; the witness of note §2.1
        // is (b, c) = (1 -> 4, 0 -> 8).
        let dmodm = DModM::new(&clos);
        let rep = check_nonblocking(&clos, &dmodm).unwrap();
        let cx = rep.counterexample.unwrap();
        assert_eq!(cx.link, ClosChannel::Up { bottom: 0, top: 0 });
        assert_eq!(cx.pairs, [Message::new(1, 4), Message::new(0, 8)]);
        assert!(verify_counterexample(&clos, &dmodm, &cx));
        // Up(v, t) blocks iff two leaves outside v are ≡ t mod 4: all 4 tops for switches
        // 0, 2, 4, only tops 0 and 1 for switches 1 and 3 (leaves 6, 7 resp. 2, 3 are the
        // only ones of their residue outside). Downlinks carry one destination (m >= n).
        assert_eq!(rep.blocking_links, 4 + 2 + 4 + 2 + 4);
        // The same two pairs do not collide under Yuan's routing.
        let yuan = YuanRouting::new(&clos).unwrap();
        assert!(!verify_counterexample(&clos, &yuan, &cx));
        // The note's examples (C-T2.3) verify too: n=2, r=5, m=4 on Up(0, 2) with 0 -> 2 and
        // 1 -> 6; m = n = 3, r = 7 on Up(0, 0) with 0 -> 3 and 1 -> 6.
        let note = Counterexample {
            link: ClosChannel::Up { bottom: 0, top: 2 },
            pairs: [Message::new(0, 2), Message::new(1, 6)],
        };
        assert!(verify_counterexample(&clos, &dmodm, &note));
        let clos = FoldedClos::new(3, 3, 7).unwrap();
        let note = Counterexample {
            link: ClosChannel::Up { bottom: 0, top: 0 },
            pairs: [Message::new(0, 3), Message::new(1, 6)],
        };
        assert!(verify_counterexample(&clos, &DModM::new(&clos), &note));
        let cx = check_nonblocking(&clos, &DModM::new(&clos))
            .unwrap()
            .counterexample
            .unwrap();
        assert_eq!(cx.link, ClosChannel::Up { bottom: 0, top: 0 });
        assert_eq!(cx.pairs, [Message::new(1, 3), Message::new(0, 6)]);
    }

    #[test]
    fn forged_counterexamples_are_rejected() {
        let clos = FoldedClos::new(2, 2, 3).unwrap();
        let r = DModM::new(&clos);
        let good = check_nonblocking(&clos, &r)
            .unwrap()
            .counterexample
            .unwrap();
        assert!(verify_counterexample(&clos, &r, &good));
        let mut same_src = good;
        same_src.pairs[1].src = same_src.pairs[0].src;
        assert!(!verify_counterexample(&clos, &r, &same_src));
        let mut leaf = good;
        leaf.link = ClosChannel::LeafUp { leaf: 0 };
        assert!(!verify_counterexample(&clos, &r, &leaf));
        let mut other_top = good;
        other_top.link = ClosChannel::Up {
            bottom: 0,
            top: 1 - good.link.top().unwrap(),
        };
        assert!(!verify_counterexample(&clos, &r, &other_top));
        let mut outside = good;
        outside.pairs[0].dst = 99;
        assert!(!verify_counterexample(&clos, &r, &outside));
    }

    #[test]
    fn worst_contention_of_known_routings() {
        // Yuan: 1. d-mod-m with m = 1: all n sources of a switch collide on its one uplink.
        let clos = FoldedClos::new(3, 9, 4).unwrap();
        let w = worst_contention(&clos, &YuanRouting::new(&clos).unwrap()).unwrap();
        assert_eq!(w.contention, 1);
        let clos = FoldedClos::new(3, 1, 4).unwrap();
        let w = worst_contention(&clos, &DModM::new(&clos)).unwrap();
        assert_eq!(w.contention, 3);
        assert_eq!(w.link, Some(ClosChannel::Up { bottom: 0, top: 0 }));
        assert_eq!(w.permutation.len(), 3);
        // The permutation really puts three pairs on the link.
        let msgs = MessageSet::new(12, w.permutation.clone()).unwrap();
        assert!(msgs.is_permutation());
        let rep = super::super::simulate_routing(&clos, &DModM::new(&clos), &msgs).unwrap();
        assert_eq!(rep.max_load, 3);
        // r = 1: nothing crosses.
        let clos = FoldedClos::new(3, 1, 1).unwrap();
        let w = worst_contention(&clos, &DModM::new(&clos)).unwrap();
        assert_eq!((w.contention, w.link), (0, None));
    }

    #[test]
    fn bad_routings_are_errors() {
        let clos = FoldedClos::new(2, 2, 2).unwrap();
        let wide = FoldedClos::new(2, 3, 2).unwrap();
        let table = RoutingTable::from_fn(&wide, |_, _| 2).unwrap();
        assert_eq!(
            check_nonblocking(&clos, &table),
            Err(OfflineError::TopOutOfRange {
                src: 0,
                dst: 2,
                top: 2,
                m: 2
            })
        );
        assert!(worst_contention(&clos, &table).is_err());
    }
}
