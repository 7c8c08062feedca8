//! Two files of one fabric, compared: which nodes, links and port counts one has and the
//! other lacks.
//!
//! **Key design decision: match what names can match, let the cables match the rest.** Files
//! of the same system name things differently: an ibdm `.topo` calls a host `H-1` and a
//! director's line card `SWS_0 L1/P1`, the ib_flit_sim `.ned` of the same fabric calls them
//! `H_1_U1` and `SWS_0_leaf1_U1` (ibdm's chip names with `-` and `/` made `_`). Nodes are
//! matched, in this order, by node GUID (when both files give GUIDs), by name, by normalised
//! name (`-` and `/` read as `_`, a trailing chip suffix `_U1` dropped: the hosts and
//! single-chip switches of ibdm files), and then by structure: when `x` and `y` are matched,
//! the peer of `x` on port `p` and the peer of `y` on port `p` are matched too (same kind, both
//! still unmatched), breadth first from the matched nodes in node order. Ports are compared by
//! their InfiniBand numbers, which every reader uses. A link is common when both its ends are
//! matched and the other fabric links the matched ends; every other link is reported on the
//! side that has it. This is the comparison ibdm's `ibdmchk` and `ibnetdiscover --diff` make
//! between a reference topology and a discovered one (missing and extra links and nodes), with
//! the matching made to work across formats that do not share names.

use std::collections::VecDeque;

use crate::fabric::{Fabric, Link, NodeId};

/// How a node pair was matched.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MatchCounts {
    /// By node GUID.
    pub guid: usize,
    /// By the same name.
    pub name: usize,
    /// By normalised name (`-`, `/` as `_`, no trailing `_U1`).
    pub normalised: usize,
    /// Through the cables of matched nodes.
    pub structure: usize,
}

impl MatchCounts {
    /// All matched pairs.
    #[must_use]
    pub fn total(&self) -> usize {
        self.guid + self.name + self.normalised + self.structure
    }
}

/// What differs between two fabrics read from different files of one system
/// ([`compare`]). Node ids are each fabric's own; "a" is the first fabric, "b" the second.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FabricComparison {
    /// The matched node pairs `(a, b)`, in `a`'s node order.
    pub matched: Vec<(NodeId, NodeId)>,
    /// How they were matched.
    pub matched_by: MatchCounts,
    /// Nodes of `a` without a match in `b`, in node order.
    pub only_in_a: Vec<NodeId>,
    /// Nodes of `b` without a match in `a`, in node order.
    pub only_in_b: Vec<NodeId>,
    /// Matched pairs whose port counts differ.
    pub port_counts_differ: Vec<(NodeId, NodeId)>,
    /// Links both fabrics have.
    pub common_links: usize,
    /// Links of `a` that `b` lacks, in `a`'s link order.
    pub links_only_in_a: Vec<Link>,
    /// Links of `b` that `a` lacks, in `b`'s link order.
    pub links_only_in_b: Vec<Link>,
}

impl FabricComparison {
    /// Whether the two fabrics have the same nodes, links and port counts.
    #[must_use]
    pub fn is_same(&self) -> bool {
        self.only_in_a.is_empty()
            && self.only_in_b.is_empty()
            && self.port_counts_differ.is_empty()
            && self.links_only_in_a.is_empty()
            && self.links_only_in_b.is_empty()
    }
}

/// `H-1/U1` and `H_1_U1` → `h_1`; `SW-2-0` → `sw_2_0`.
fn normalise(name: &str) -> String {
    let s: String = name
        .chars()
        .map(|c| if c == '-' || c == '/' { '_' } else { c })
        .flat_map(char::to_lowercase)
        .collect();
    match s.strip_suffix("_u1") {
        Some(t) if !t.is_empty() => t.to_owned(),
        _ => s,
    }
}

struct Matcher<'a> {
    a: &'a Fabric,
    b: &'a Fabric,
    ab: Vec<Option<NodeId>>,
    ba: Vec<Option<NodeId>>,
}

impl Matcher<'_> {
    fn try_pair(&mut self, x: NodeId, y: NodeId) -> bool {
        if self.ab[x.index()].is_some()
            || self.ba[y.index()].is_some()
            || self.a.node(x).kind() != self.b.node(y).kind()
        {
            return false;
        }
        self.ab[x.index()] = Some(y);
        self.ba[y.index()] = Some(x);
        true
    }
}

/// Compares two fabrics read from different files of one system (see the module
/// documentation for how nodes are matched). Deterministic: a function of the two fabrics.
#[must_use]
pub fn compare(a: &Fabric, b: &Fabric) -> FabricComparison {
    let mut m = Matcher {
        a,
        b,
        ab: vec![None; a.node_count()],
        ba: vec![None; b.node_count()],
    };
    let mut counts = MatchCounts::default();
    let ids = |f: &Fabric| (0..f.node_count() as u32).map(NodeId).collect::<Vec<_>>();
    for x in ids(a) {
        if let Some(g) = a.node(x).guid()
            && let Some(y) = b.node_by_guid(g)
            && m.try_pair(x, y)
        {
            counts.guid += 1;
        }
    }
    for x in ids(a) {
        if let Some(y) = b.node_by_name(a.node(x).name())
            && m.try_pair(x, y)
        {
            counts.name += 1;
        }
    }
    // Normalised names: only names that are unique on both sides.
    let mut by_norm: std::collections::BTreeMap<String, Option<NodeId>> = Default::default();
    for y in ids(b) {
        by_norm
            .entry(normalise(b.node(y).name()))
            .and_modify(|v| *v = None)
            .or_insert(Some(y));
    }
    let mut a_norm: std::collections::BTreeMap<String, usize> = Default::default();
    for x in ids(a) {
        *a_norm.entry(normalise(a.node(x).name())).or_default() += 1;
    }
    for x in ids(a) {
        let n = normalise(a.node(x).name());
        if a_norm[&n] == 1
            && let Some(Some(y)) = by_norm.get(&n)
            && m.try_pair(x, *y)
        {
            counts.normalised += 1;
        }
    }
    // Structure: breadth first from the matched pairs, in `a`'s node order.
    let mut queue: VecDeque<NodeId> = ids(a)
        .into_iter()
        .filter(|x| m.ab[x.index()].is_some())
        .collect();
    while let Some(x) = queue.pop_front() {
        let Some(y) = m.ab[x.index()] else { continue };
        for (p, ex) in a.neighbours(x) {
            if let Some(ey) = b.peer(y, p)
                && ex.port == ey.port
                && m.try_pair(ex.node, ey.node)
            {
                counts.structure += 1;
                queue.push_back(ex.node);
            }
        }
    }
    let mut out = FabricComparison {
        matched_by: counts,
        ..FabricComparison::default()
    };
    for x in ids(a) {
        match m.ab[x.index()] {
            Some(y) => {
                out.matched.push((x, y));
                if a.node(x).port_count() != b.node(y).port_count() {
                    out.port_counts_differ.push((x, y));
                }
            }
            None => out.only_in_a.push(x),
        }
    }
    out.only_in_b = ids(b)
        .into_iter()
        .filter(|y| m.ba[y.index()].is_none())
        .collect();
    let has = |f: &Fabric, map: &[Option<NodeId>], l: &Link| -> bool {
        match (map[l.a.node.index()], map[l.b.node.index()]) {
            (Some(u), Some(v)) => f
                .peer(u, l.a.port)
                .is_some_and(|e| e.node == v && e.port == l.b.port),
            _ => false,
        }
    };
    for l in a.links() {
        if has(b, &m.ab, l) {
            out.common_links += 1;
        } else {
            out.links_only_in_a.push(*l);
        }
    }
    out.links_only_in_b = b
        .links()
        .iter()
        .filter(|l| !has(a, &m.ba, l))
        .copied()
        .collect();
    out
}
