//! The level-by-level engine shared by the cube and the butterfly.
//!
//! Packets live in per-node lists sorted by `(ready time, tag)`: the list of node `x` holds
//! the packets that are at `x` (on the butterfly: in row `x`) and have not finished. Level `b`
//! (dimension `b + 1` of the thesis) walks the node pairs `(x, x ⊕ 2^b)`: from each list it
//! serves, in list order, the packets that use a level-`b` arc and are ready before the
//! window's cutoff (the FIFO recursion `D = max(D_prev, t) + 1` per arc), keeps the others in
//! place, and builds the two new lists by merging the kept packets with the arc outputs that
//! arrive there. Every list stays sorted because arc outputs leave in increasing time.
//!
//! A packet ready at or after the cutoff is *deferred*: it stays in its node's list, untouched,
//! and is served in a later window. Packets born later are ready later, so at every arc a
//! window serves exactly the packets whose ready time falls in it, in the FIFO order of the
//! whole run: windowing changes nothing but memory and cache use.

/// One packet in flight.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(super) struct Rec {
    /// Ready time at the current node (generation time, then the last departure).
    pub t: f64,
    /// Cube: the dimensions still to cross (bit `b` = dimension `b + 1`). Butterfly: the low
    /// bits are `row ⊕ destination`, bits `LEVEL_SHIFT..` the level of the next arc.
    pub rem: u32,
    /// The packet's number (modulo `2^32`); breaks ties in ready time, lower first.
    pub tag: u32,
}

/// Up to this dimension the levels run over the whole cube at once (it fits in cache).
const BLOCK_LEVELS: u32 = 8;

/// Where the butterfly keeps a packet's level inside [`Rec::rem`].
pub(super) const LEVEL_SHIFT: u32 = 24;
const ROW_BITS: u32 = (1 << LEVEL_SHIFT) - 1;

/// `a` is served before `b` at a node: earlier ready time, then lower tag (compared modulo
/// `2^32`, so tags of packets alive together must differ by less than `2^31`).
///
/// Short-circuit on purpose: equal times are rare, so the merge's branch tests the times
/// only and the tag test stays off the common path (a non-short-circuit `|`/`&` form,
/// evaluated in full before the branch, measured 3 % slower over the whole run).
#[inline(always)]
fn before(a: &Rec, b: &Rec) -> bool {
    a.t < b.t || (a.t == b.t && (a.tag.wrapping_sub(b.tag) as i32) < 0)
}

/// Receives every finished packet once, with its delivery time.
pub(super) trait Sink {
    fn finish(&mut self, tag: u32, time: f64);
}

/// Per-node lists in one buffer.
///
/// The buffer only grows: its length is a capacity, and `used` records are valid. Lists are
/// written through slices of known length (a merge knows its output length), so the hot loops
/// store by index instead of checking the capacity at every `push`.
#[derive(Debug, Default)]
pub(super) struct Lists {
    recs: Vec<Rec>,
    used: usize,
    start: Vec<usize>,
    len: Vec<usize>,
}

impl Lists {
    fn reset(&mut self, nodes: usize) {
        self.used = 0;
        self.start.resize(nodes, 0);
        self.len.resize(nodes, 0);
    }

    fn get(&self, x: usize) -> &[Rec] {
        &self.recs[self.start[x]..self.start[x] + self.len[x]]
    }

    /// Appends node `x`'s list of `len` records, written by `f` into the slice it is given.
    #[inline]
    fn build(&mut self, x: usize, len: usize, f: impl FnOnce(&mut [Rec])) {
        let s = self.used;
        let e = s + len;
        if self.recs.len() < e {
            self.recs.resize(e.max(2 * self.recs.len()), Rec::default());
        }
        f(&mut self.recs[s..e]);
        self.start[x] = s;
        self.len[x] = len;
        self.used = e;
    }
}

/// Merges two sorted lists into `out` (of length `a.len() + b.len()`). (A branch-free merge
/// measured slower here: the lists come in long runs, which the branch predictor follows.)
///
/// No two records alive together compare equal (tags differ), so the merged order does not
/// depend on which list is `a`: the list whose last record comes first is walked as `a`, and
/// the loop only checks `a`'s end (`b` cannot run out before `a` does).
#[inline]
fn merge_into(a: &[Rec], b: &[Rec], out: &mut [Rec]) {
    debug_assert_eq!(out.len(), a.len() + b.len());
    let (a, b) = match (a.last(), b.last()) {
        (None, _) => {
            out.copy_from_slice(b);
            return;
        }
        (_, None) => {
            out.copy_from_slice(a);
            return;
        }
        (Some(x), Some(y)) => {
            if before(y, x) {
                (b, a)
            } else {
                (a, b)
            }
        }
    };
    let (mut i, mut j) = (0, 0);
    while i < a.len() {
        let (x, y) = (a[i], b[j]);
        if before(&y, &x) {
            out[i + j] = y;
            j += 1;
        } else {
            out[i + j] = x;
            i += 1;
        }
    }
    out[i + j..].copy_from_slice(&b[j..]);
}

/// The engine: arc states and the per-node lists.
#[derive(Debug)]
pub(super) struct Engine {
    d: u32,
    butterfly: bool,
    /// When each arc becomes free. Cube: `b · 2^d + x`; butterfly: `2 (b · 2^d + x) + k`,
    /// `k = 0` straight, `1` vertical.
    free: Vec<f64>,
    cur: Lists,
    next: Lists,
    /// The lists of one sub-cube while its levels run (see [`Engine::run_levels`]).
    local_a: Lists,
    local_b: Lists,
    stay: [Vec<Rec>; 2],
    vert: [Vec<Rec>; 2],
    straight: [Vec<Rec>; 2],
    /// Scratch: a node's new packets in [`Engine::start_window`], the butterfly's first merge.
    tmp: Vec<Rec>,
    done: Vec<(u32, f64)>,
    hops: u64,
}

impl Engine {
    pub fn new(d: u32, butterfly: bool) -> Self {
        let n = 1usize << d;
        let arcs = n * d as usize * if butterfly { 2 } else { 1 };
        let mut cur = Lists::default();
        cur.reset(n);
        Self {
            d,
            butterfly,
            free: vec![f64::NEG_INFINITY; arcs],
            cur,
            next: Lists::default(),
            local_a: Lists::default(),
            local_b: Lists::default(),
            stay: Default::default(),
            vert: Default::default(),
            straight: Default::default(),
            tmp: Vec::new(),
            done: Vec::new(),
            hops: 0,
        }
    }

    /// Arc traversals so far.
    pub fn hops(&self) -> u64 {
        self.hops
    }

    /// Packets in flight (all deferred between windows).
    pub fn in_flight(&self) -> usize {
        self.cur.used
    }

    /// Starts a window: node `x`'s list becomes the packets carried from the previous window
    /// merged with the new ones that `fill(x, new)` appends to `new` (an empty vector; `fill`
    /// must append them sorted by ready time, then tag).
    pub fn start_window(&mut self, mut fill: impl FnMut(u32, &mut Vec<Rec>)) {
        let n = 1usize << self.d;
        let Self { cur, next, tmp, .. } = self;
        next.reset(n);
        for x in 0..n {
            tmp.clear();
            fill(x as u32, tmp);
            let carried = cur.get(x);
            next.build(x, carried.len() + tmp.len(), |out| {
                merge_into(carried, tmp, out)
            });
        }
        std::mem::swap(&mut self.cur, &mut self.next);
    }

    /// Runs levels `0..d` on the current window: every packet ready before `cutoff` at an arc
    /// crosses it; finished packets go to `sink`.
    ///
    /// **Blocked for the cache.** Level `b` only pairs nodes that differ in bit `b`, so the
    /// levels below `k` never leave a block of `2^k` consecutive nodes, and the levels from
    /// `k` up never leave a set of nodes with equal low `k` bits. Phase 1 runs levels
    /// `0..k` block by block, phase 2 levels `k..d` set by set, each on a local copy of the
    /// sub-cube's lists that fits in cache; the whole window's lists cross main memory twice
    /// instead of `d` times. Every arc still sees its customers level after level, so the
    /// result is the same as running the levels one by one over all nodes.
    pub fn run_levels<S: Sink>(&mut self, cutoff: f64, sink: &mut S) {
        let d = self.d;
        let k = if d <= BLOCK_LEVELS { d } else { d.div_ceil(2) };
        // Phase 1: node = (g << k) | i, local bit l is dimension l.
        self.phase(1 << (d - k), k, 0, k, 1, cutoff, sink);
        if k < d {
            // Phase 2: node = (i << k) | g, local bit l is dimension k + l.
            self.phase(1 << k, d - k, k, 0, 1 << k, cutoff, sink);
        }
    }

    /// Runs levels `dim0 .. dim0 + m_log` on `groups` sub-cubes of `2^m_log` nodes; node `i`
    /// of group `g` is `(g << base_shift) + i · stride`.
    #[allow(clippy::too_many_arguments)]
    fn phase<S: Sink>(
        &mut self,
        groups: usize,
        m_log: u32,
        dim0: u32,
        base_shift: u32,
        stride: usize,
        cutoff: f64,
        sink: &mut S,
    ) {
        let n = 1usize << self.d;
        let m = 1usize << m_log;
        if groups == 1 && stride == 1 {
            // The sub-cube is the whole cube (d ≤ BLOCK_LEVELS): the window's lists are the
            // local lists, so they are moved in and out instead of copied.
            debug_assert_eq!(m, n);
            std::mem::swap(&mut self.cur, &mut self.local_a);
            self.levels(m_log, dim0, 0, 1, cutoff, sink);
            std::mem::swap(&mut self.cur, &mut self.local_a);
            return;
        }
        self.next.reset(n);
        for g in 0..groups {
            let node = |i: usize| (g << base_shift) + i * stride;
            self.local_a.reset(m);
            for i in 0..m {
                let src = self.cur.get(node(i));
                self.local_a
                    .build(i, src.len(), |out| out.copy_from_slice(src));
            }
            self.levels(m_log, dim0, g << base_shift, stride, cutoff, sink);
            for i in 0..m {
                let src = self.local_a.get(i);
                self.next
                    .build(node(i), src.len(), |out| out.copy_from_slice(src));
            }
        }
        std::mem::swap(&mut self.cur, &mut self.next);
    }

    /// Runs levels `dim0 .. dim0 + m_log` on the local lists (`local_a`, which holds the
    /// result at the end); local node `i` is global node `base + i · stride`.
    fn levels<S: Sink>(
        &mut self,
        m_log: u32,
        dim0: u32,
        base: usize,
        stride: usize,
        cutoff: f64,
        sink: &mut S,
    ) {
        for l in 0..m_log {
            if self.butterfly {
                self.level::<true, S>(l, dim0 + l, base, stride, cutoff, sink);
            } else {
                self.level::<false, S>(l, dim0 + l, base, stride, cutoff, sink);
            }
            std::mem::swap(&mut self.local_a, &mut self.local_b);
        }
    }

    /// One level on the local lists (`local_a` to `local_b`): local bit `l`, global dimension
    /// `b`; local node `i` is global node `base + i · stride`.
    fn level<const BUTTERFLY: bool, S: Sink>(
        &mut self,
        l: u32,
        b: u32,
        base: usize,
        stride: usize,
        cutoff: f64,
        sink: &mut S,
    ) {
        let n = 1usize << self.d;
        let bit = 1u32 << b;
        let last = b + 1 == self.d;
        let Self {
            free,
            local_a: cur,
            local_b: next,
            stay,
            vert,
            straight,
            tmp,
            done,
            hops,
            ..
        } = self;
        let m = cur.start.len();
        next.reset(m);
        let half = 1usize << l;
        for hi in (0..m).step_by(2 * half) {
            for i in hi..hi + half {
                let pair = [i, i | half];
                let global = [base + pair[0] * stride, base + pair[1] * stride];
                if BUTTERFLY {
                    for side in 0..2 {
                        let f = 2 * (b as usize * n + global[side]);
                        *hops += serve_butterfly(
                            cur.get(pair[side]),
                            b,
                            last,
                            cutoff,
                            &mut free[f..f + 2],
                            &mut stay[side],
                            &mut straight[side],
                            &mut vert[side],
                            sink,
                        );
                    }
                    for side in 0..2 {
                        let incoming = &vert[1 - side];
                        let kept = &stay[side];
                        let own = &straight[side];
                        let len = kept.len() + own.len() + incoming.len();
                        next.build(pair[side], len, |out| {
                            if kept.is_empty() {
                                merge_into(own, incoming, out);
                            } else {
                                let need = kept.len() + own.len();
                                if tmp.len() < need {
                                    tmp.resize(need, Rec::default());
                                }
                                merge_into(kept, own, &mut tmp[..need]);
                                merge_into(&tmp[..need], incoming, out);
                            }
                        });
                    }
                } else {
                    let mut counts = [Counts::default(); 2];
                    for side in 0..2 {
                        counts[side] = serve_cube(
                            cur.get(pair[side]),
                            bit,
                            cutoff,
                            &mut free[b as usize * n + global[side]],
                            &mut stay[side],
                            &mut vert[side],
                            done,
                            sink,
                        );
                        *hops += counts[side].served;
                    }
                    for side in 0..2 {
                        let kept = &stay[side][..counts[side].kept];
                        let incoming = &vert[1 - side][..counts[1 - side].out];
                        next.build(pair[side], kept.len() + incoming.len(), |out| {
                            merge_into(kept, incoming, out)
                        });
                    }
                }
            }
        }
    }
}

/// Cube, one node at level `bit`: serves the packets that cross dimension `bit` now, in list
/// order; outputs to `out` (bound for the neighbour), keeps the rest in `stay`; returns how
/// many records of each buffer are valid.
///
/// Two passes. The first partitions the list without branches (every record is written to
/// both `stay` and `out` and one length advances: whether a packet crosses is a coin flip,
/// which a branch would mispredict half the time). The second runs the FIFO recursion over
/// the crossing packets only, so the loop-carried chain `max, +1` is not paid for the others.
#[inline]
#[allow(clippy::too_many_arguments)]
fn serve_cube<S: Sink>(
    src: &[Rec],
    bit: u32,
    cutoff: f64,
    free: &mut f64,
    stay: &mut Vec<Rec>,
    out: &mut Vec<Rec>,
    done: &mut Vec<(u32, f64)>,
    sink: &mut S,
) -> Counts {
    let n = src.len();
    // The buffers only grow: their lengths are capacities, the counts are returned.
    if stay.len() < n {
        stay.resize(n, Rec::default());
    }
    if out.len() < n {
        out.resize(n, Rec::default());
    }
    // Pass 1, branch-free partition: the crossing packets (ready time kept) and the others.
    let (mut ns, mut nc) = (0usize, 0usize);
    {
        let (stay_s, out_s) = (&mut stay[..n], &mut out[..n]);
        for &r in src {
            let cross = (r.rem & bit != 0) & (r.t < cutoff);
            stay_s[ns] = r;
            out_s[nc] = Rec {
                t: r.t,
                rem: r.rem ^ bit,
                tag: r.tag,
            };
            ns += usize::from(!cross);
            nc += usize::from(cross);
        }
    }
    // Pass 2, the FIFO recursion over the crossing packets; the finished ones leave the list.
    if done.len() < nc {
        done.resize(nc, (0, 0.0));
    }
    let mut f = *free;
    let (mut no, mut nd) = (0usize, 0usize);
    {
        let (out_s, done_s) = (&mut out[..nc], &mut done[..nc]);
        for k in 0..nc {
            let r = out_s[k];
            let dep = if r.t > f { r.t } else { f } + 1.0;
            f = dep;
            let finished = r.rem == 0;
            out_s[no] = Rec { t: dep, ..r };
            done_s[nd] = (r.tag, dep);
            no += usize::from(!finished);
            nd += usize::from(finished);
        }
    }
    *free = f;
    for &(tag, time) in &done[..nd] {
        sink.finish(tag, time);
    }
    Counts {
        kept: ns,
        out: no,
        served: (no + nd) as u64,
    }
}

/// What [`serve_cube`] left in its buffers.
#[derive(Debug, Clone, Copy, Default)]
struct Counts {
    /// Valid records at the start of `stay`.
    kept: usize,
    /// Valid records at the start of `out`.
    out: usize,
    /// Packets that crossed the arc.
    served: u64,
}

/// Butterfly, one row at level `b`: serves the packets whose next arc is at level `b`
/// (straight to `straight`, vertical to `vert`), keeps the others in `stay`.
#[allow(clippy::too_many_arguments)]
#[inline]
fn serve_butterfly<S: Sink>(
    src: &[Rec],
    b: u32,
    last: bool,
    cutoff: f64,
    free: &mut [f64],
    stay: &mut Vec<Rec>,
    straight: &mut Vec<Rec>,
    vert: &mut Vec<Rec>,
    sink: &mut S,
) -> u64 {
    stay.clear();
    straight.clear();
    vert.clear();
    let bit = 1u32 << b;
    let mut served = 0;
    for &r in src {
        if r.rem >> LEVEL_SHIFT == b && r.t < cutoff {
            let vertical = r.rem & bit != 0;
            let f = &mut free[usize::from(vertical)];
            let dep = if r.t > *f { r.t } else { *f } + 1.0;
            *f = dep;
            served += 1;
            if last {
                sink.finish(r.tag, dep);
            } else {
                let rec = Rec {
                    t: dep,
                    rem: (r.rem & ROW_BITS & !bit) | ((b + 1) << LEVEL_SHIFT),
                    tag: r.tag,
                };
                if vertical {
                    vert.push(rec);
                } else {
                    straight.push(rec);
                }
            }
        } else {
            stay.push(r);
        }
    }
    served
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_pcg::Pcg64;

    /// `merge_into` gives the list sorted by (time, tag), on lists with runs of every length
    /// and equal times.
    #[test]
    fn merge_gives_the_sorted_union() {
        let mut rng = Pcg64::seed_from_u64(7);
        for case in 0..300 {
            let n = rng.random_range(0..40usize);
            let mut all: Vec<Rec> = (0..n)
                .map(|tag| Rec {
                    // Few distinct times: many ties, broken by tag.
                    t: f64::from(rng.random_range(0..(1 + case % 12) as u32)),
                    rem: 0,
                    tag: tag as u32,
                })
                .collect();
            let by_key = |x: &Rec, y: &Rec| x.t.total_cmp(&y.t).then(x.tag.cmp(&y.tag));
            all.sort_by(by_key);
            // Split into two sorted lists: long runs (case even) or a coin per packet.
            let (mut a, mut b) = (Vec::new(), Vec::new());
            let mut side = false;
            for r in &all {
                if case % 2 == 1 || rng.random_bool(0.2) {
                    side = rng.random_bool(0.5);
                }
                if side { a.push(*r) } else { b.push(*r) }
            }
            let mut out = vec![Rec::default(); n];
            merge_into(&a, &b, &mut out);
            assert_eq!(out, all, "case {case}");
            merge_into(&b, &a, &mut out);
            assert_eq!(out, all, "case {case}, lists swapped");
        }
    }
}
