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

/// Where the butterfly keeps a packet's level inside [`Rec::rem`].
pub(super) const LEVEL_SHIFT: u32 = 24;
const ROW_BITS: u32 = (1 << LEVEL_SHIFT) - 1;

/// `a` is served before `b` at a node: earlier ready time, then lower tag (compared modulo
/// `2^32`, so tags of packets alive together must differ by less than `2^31`).
#[inline(always)]
fn before(a: &Rec, b: &Rec) -> bool {
    (a.t < b.t) | ((a.t == b.t) & ((a.tag.wrapping_sub(b.tag) as i32) < 0))
}

/// Receives every finished packet once, with its delivery time.
pub(super) trait Sink {
    fn finish(&mut self, tag: u32, time: f64);
}

/// Per-node lists in one buffer.
#[derive(Debug, Default)]
pub(super) struct Lists {
    recs: Vec<Rec>,
    start: Vec<usize>,
    len: Vec<usize>,
}

impl Lists {
    fn reset(&mut self, nodes: usize) {
        self.recs.clear();
        self.start.resize(nodes, 0);
        self.len.resize(nodes, 0);
    }

    fn get(&self, x: usize) -> &[Rec] {
        &self.recs[self.start[x]..self.start[x] + self.len[x]]
    }

    /// Appends node `x`'s list, built by `f` at the end of the buffer.
    #[inline]
    fn build(&mut self, x: usize, f: impl FnOnce(&mut Vec<Rec>)) {
        let s = self.recs.len();
        f(&mut self.recs);
        self.start[x] = s;
        self.len[x] = self.recs.len() - s;
    }
}

/// Merges two sorted lists onto `out`. (A branch-free merge measured slower here: the
/// lists come in long runs, which the branch predictor follows.)
#[inline]
fn merge_into(a: &[Rec], b: &[Rec], out: &mut Vec<Rec>) {
    if a.is_empty() {
        out.extend_from_slice(b);
        return;
    }
    if b.is_empty() {
        out.extend_from_slice(a);
        return;
    }
    out.reserve(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        let (x, y) = (a[i], b[j]);
        if before(&y, &x) {
            out.push(y);
            j += 1;
        } else {
            out.push(x);
            i += 1;
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
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
    stay: [Vec<Rec>; 2],
    vert: [Vec<Rec>; 2],
    straight: [Vec<Rec>; 2],
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
        self.cur.recs.len()
    }

    /// Starts a window: node `x`'s list becomes what `fill(x, carried, out)` appends to `out`,
    /// given the packets `carried` from the previous window (sorted; `fill` must keep the
    /// list sorted by ready time, then tag).
    pub fn start_window(&mut self, mut fill: impl FnMut(u32, &[Rec], &mut Vec<Rec>)) {
        let n = 1usize << self.d;
        self.next.reset(n);
        for x in 0..n {
            let carried = self.cur.get(x);
            self.next.build(x, |out| fill(x as u32, carried, out));
        }
        std::mem::swap(&mut self.cur, &mut self.next);
    }

    /// Runs levels `0..d` on the current window: every packet ready before `cutoff` at an arc
    /// crosses it; finished packets go to `sink`.
    pub fn run_levels<S: Sink>(&mut self, cutoff: f64, sink: &mut S) {
        for b in 0..self.d {
            if self.butterfly {
                self.level::<true, S>(b, cutoff, sink);
            } else {
                self.level::<false, S>(b, cutoff, sink);
            }
        }
    }

    fn level<const BUTTERFLY: bool, S: Sink>(&mut self, b: u32, cutoff: f64, sink: &mut S) {
        let n = 1usize << self.d;
        let bit = 1u32 << b;
        let last = b + 1 == self.d;
        let Self {
            free,
            cur,
            next,
            stay,
            vert,
            straight,
            tmp,
            done,
            hops,
            ..
        } = self;
        next.reset(n);
        let half = bit as usize;
        for hi in (0..n).step_by(2 * half) {
            for x in hi..hi + half {
                let pair = [x, x | half];
                for side in 0..2 {
                    let node = pair[side];
                    let src = cur.get(node);
                    *hops += if BUTTERFLY {
                        let f = 2 * (b as usize * n + node);
                        serve_butterfly(
                            src,
                            b,
                            last,
                            cutoff,
                            &mut free[f..f + 2],
                            &mut stay[side],
                            &mut straight[side],
                            &mut vert[side],
                            sink,
                        )
                    } else {
                        serve_cube(
                            src,
                            bit,
                            cutoff,
                            &mut free[b as usize * n + node],
                            &mut stay[side],
                            &mut vert[side],
                            done,
                            sink,
                        )
                    };
                }
                for side in 0..2 {
                    let node = pair[side];
                    let incoming = &vert[1 - side];
                    if BUTTERFLY {
                        let kept = &stay[side];
                        let own = &straight[side];
                        next.build(node, |out| {
                            if kept.is_empty() {
                                merge_into(own, incoming, out);
                            } else {
                                tmp.clear();
                                merge_into(kept, own, tmp);
                                merge_into(tmp, incoming, out);
                            }
                        });
                    } else {
                        let kept = &stay[side];
                        next.build(node, |out| merge_into(kept, incoming, out));
                    }
                }
            }
        }
        std::mem::swap(cur, next);
    }
}

/// Cube, one node at level `bit`: serves the packets that cross dimension `bit` now, in list
/// order; outputs to `out` (bound for the neighbour), keeps the rest in `stay`. Returns the
/// number of packets served.
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
) -> u64 {
    let n = src.len();
    stay.clear();
    stay.resize(n, Rec::default());
    out.clear();
    out.resize(n, Rec::default());
    // Pass 1, branch-free partition: the crossing packets (ready time kept) and the others.
    let (mut ns, mut nc) = (0usize, 0usize);
    {
        let (stay_s, out_s) = (&mut stay[..], &mut out[..]);
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
    stay.truncate(ns);
    // Pass 2, the FIFO recursion over the crossing packets; the finished ones leave the list.
    done.clear();
    done.resize(nc, (0, 0.0));
    let mut f = *free;
    let (mut no, mut nd) = (0usize, 0usize);
    {
        let done_s = &mut done[..];
        for k in 0..nc {
            let r = out[k];
            let dep = if r.t > f { r.t } else { f } + 1.0;
            f = dep;
            let finished = r.rem == 0;
            out[no] = Rec { t: dep, ..r };
            done_s[nd] = (r.tag, dep);
            no += usize::from(!finished);
            nd += usize::from(finished);
        }
    }
    *free = f;
    out.truncate(no);
    for &(tag, time) in &done[..nd] {
        sink.finish(tag, time);
    }
    (no + nd) as u64
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

/// Merges the carried list with new packets (both sorted) onto `out`.
pub(super) fn merge_new(carried: &[Rec], new: &[Rec], out: &mut Vec<Rec>) {
    merge_into(carried, new, out);
}
