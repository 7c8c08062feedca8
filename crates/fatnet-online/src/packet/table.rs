//! The BFS distance table of a network without arithmetic next hops (a traced fabric), with
//! one row per distinct *row target* rather than per processor.
//!
//! **Key design decision: rows are keyed by what they route to.** A processor whose ejection
//! node `e` has a single in-neighbour `s` (a terminal behind one switch: every single-port
//! InfiniBand CA) is reached only through `s`, so `dist(v, e) = dist(v, s) + 1` for every
//! `v ≠ e`: all processors behind one switch share the row of that switch. Processors whose
//! ejection node has several in-neighbours (or none) keep a row of their own, and processors
//! sharing an ejection node share it. Distances, candidates (in link-id order) and the
//! longest distance are exactly those of a per-processor table; memory and BFS time are
//! `rows × nodes`, bounded by [`MAX_TABLE_ENTRIES`].

use std::collections::VecDeque;

use super::OnlineError;
use super::net::{MAX_TABLE_ENTRIES, NONE};

/// Marks, in [`DistTable::row_of`], a row whose target is the in-neighbour of the ejection
/// node (distances one more than the row's, 0 at the ejection node).
const SHARED: u32 = 1 << 31;

/// A distance of [`DistTable::distance`] meaning "cannot reach".
pub(crate) const UNREACHABLE: u32 = u32::MAX;

/// BFS distances from every node to every row target.
#[derive(Debug, Clone)]
pub(crate) struct DistTable {
    nodes: usize,
    /// `dist[row · nodes + v]`: hops from `v` to the row's target (`u16::MAX`: unreachable).
    dist: Vec<u16>,
    /// Per processor: its row, with [`SHARED`] set when the target is the single
    /// in-neighbour of its ejection node.
    row_of: Vec<u32>,
}

impl DistTable {
    /// Builds the table and returns it with the longest finite distance from any node to
    /// any processor's ejection node.
    ///
    /// # Errors
    ///
    /// [`OnlineError::TooLarge`] when `rows × nodes` exceeds [`MAX_TABLE_ENTRIES`], before
    /// the table is allocated.
    pub(crate) fn build(
        nodes: u32,
        link_head: &[u32],
        link_tail: &[u32],
        ejection_node: &[u32],
    ) -> Result<(Self, u32), OnlineError> {
        let n = nodes as usize;
        // The single in-neighbour of every node, if it has exactly one (NONE otherwise).
        let mut in_neighbour = vec![NONE; n];
        let mut several = vec![false; n];
        for (&tail, &head) in link_tail.iter().zip(link_head) {
            let slot = &mut in_neighbour[head as usize];
            if *slot == NONE {
                *slot = tail;
            } else if *slot != tail {
                several[head as usize] = true;
            }
        }
        // Rows in order of first use by processor id.
        let mut row_at = vec![NONE; n];
        let mut targets = Vec::new();
        let mut row_of = Vec::with_capacity(ejection_node.len());
        for &e in ejection_node {
            let s = in_neighbour[e as usize];
            let (target, shared) = if s != NONE && s != e && !several[e as usize] {
                (s, SHARED)
            } else {
                (e, 0)
            };
            if row_at[target as usize] == NONE {
                row_at[target as usize] = targets.len() as u32;
                targets.push(target);
            }
            row_of.push(row_at[target as usize] | shared);
        }
        drop(row_at);
        let entries = targets.len() as u64 * u64::from(nodes);
        if entries > MAX_TABLE_ENTRIES {
            return Err(OnlineError::TooLarge {
                what: "next-hop table entries (distinct row targets × nodes)",
                value: entries,
                max: MAX_TABLE_ENTRIES,
            });
        }

        // Incoming links of every node (CSR), for the BFS on reversed links.
        let mut in_start = vec![0u32; n + 1];
        for &h in link_head {
            in_start[h as usize + 1] += 1;
        }
        for i in 0..n {
            in_start[i + 1] += in_start[i];
        }
        let mut fill = in_start.clone();
        let mut inn = vec![0u32; link_head.len()];
        for (e, &h) in link_head.iter().enumerate() {
            inn[fill[h as usize] as usize] = e as u32;
            fill[h as usize] += 1;
        }
        drop(fill);

        let mut dist = vec![u16::MAX; n * targets.len()];
        // Per row: the largest finite distance, how many nodes have it, and the next
        // largest (for a shared row, whose ejection node is left out of its maximum).
        let mut top = Vec::with_capacity(targets.len());
        let mut queue = VecDeque::new();
        for (r, &target) in targets.iter().enumerate() {
            let row = &mut dist[r * n..(r + 1) * n];
            row[target as usize] = 0;
            queue.clear();
            queue.push_back(target);
            while let Some(v) = queue.pop_front() {
                let dv = row[v as usize];
                for &e in &inn[in_start[v as usize] as usize..in_start[v as usize + 1] as usize] {
                    let u = link_tail[e as usize] as usize;
                    if row[u] == u16::MAX {
                        row[u] = dv + 1;
                        queue.push_back(u as u32);
                    }
                }
            }
            let (mut max, mut count, mut second) = (0u16, 0u32, None::<u16>);
            for &d in row.iter().filter(|&&d| d != u16::MAX) {
                if d > max {
                    second = (count > 0).then_some(max);
                    (max, count) = (d, 1);
                } else if d == max {
                    count += 1;
                } else if second.is_none_or(|s| d > s) {
                    second = Some(d);
                }
            }
            top.push((max, count, second));
        }

        // The longest distance to each processor's ejection node, from any node.
        let mut max_hops = 0u32;
        for (&r, &e) in row_of.iter().zip(ejection_node) {
            let (max, count, second) = top[(r & !SHARED) as usize];
            let longest = if r & SHARED == 0 {
                u32::from(max)
            } else {
                // dist(v, e) = row[v] + 1 for v ≠ e, 0 at e.
                let at_e = dist[(r & !SHARED) as usize * n + e as usize];
                if at_e == max && count == 1 {
                    second.map_or(0, |s| u32::from(s) + 1)
                } else {
                    u32::from(max) + 1
                }
            };
            max_hops = max_hops.max(longest);
        }
        Ok((
            Self {
                nodes: n,
                dist,
                row_of,
            },
            max_hops,
        ))
    }

    /// Number of rows (distinct row targets).
    #[cfg(test)]
    pub(crate) fn rows(&self) -> usize {
        self.dist.len() / self.nodes.max(1)
    }

    /// Number of entries.
    #[cfg(test)]
    pub(crate) fn entries(&self) -> usize {
        self.dist.len()
    }

    /// Hops from node `v` to `dst`'s ejection node `ejection`, [`UNREACHABLE`] if none.
    #[inline]
    pub(crate) fn distance(&self, v: u32, dst: u32, ejection: u32) -> u32 {
        let r = self.row_of[dst as usize];
        if r & SHARED != 0 && v == ejection {
            return 0;
        }
        match self.dist[(r & !SHARED) as usize * self.nodes + v as usize] {
            u16::MAX => UNREACHABLE,
            d => u32::from(d) + u32::from(r & SHARED != 0),
        }
    }

    /// Appends to `out` the links of `outs` (node `node`'s out links, in link-id order) whose
    /// head is one hop closer to `dst`'s ejection node `ejection`.
    #[inline]
    pub(crate) fn next_hops(
        &self,
        node: u32,
        dst: u32,
        ejection: u32,
        outs: &[u32],
        link_head: impl Fn(u32) -> u32,
        out: &mut Vec<u32>,
    ) {
        let here = self.distance(node, dst, ejection);
        if here == 0 || here == UNREACHABLE {
            return;
        }
        for &e in outs {
            if self.distance(link_head(e), dst, ejection) == here - 1 {
                out.push(e);
            }
        }
    }
}
