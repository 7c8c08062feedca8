//! The step loop of the packet engine (semantics in the module documentation of `packet`).
//!
//! **Implementation.** Per-step work is proportional to the units that can move, not to the
//! network or to the units in flight:
//!
//! - every node keeps bit masks over its inputs — *non-empty* and *asleep* — so a scan visits
//!   only inputs whose front unit may move, in RR order by masking at the start position;
//! - a front unit that cannot move until some link pops or is released (its queue ahead is
//!   full, or every candidate link of a head is full or owned by another worm — nothing else
//!   can open them) goes to sleep, registered in a wait mask of each such link (over the
//!   inputs of the link's tail node): a mask of the link's pops if the link is full, of its
//!   release if another worm owns it. A head behind an owned link therefore sleeps through
//!   the owner's `L` pops and wakes once, when the owner's tail has crossed (this cut the
//!   move attempts of a WORM run on N = 4096 from 2.35 M to 1.59 M). A unit blocked only by
//!   this step's traffic, or by an unlucky RP draw, stays awake. Sleeping changes which
//!   random numbers are drawn (the RR start is drawn only at a node with two or more awake
//!   inputs), never the law of the run;
//! - with wormhole flow control the per-step "link carried a unit" flag is not kept at all:
//!   link ownership already guarantees one unit per link per step (see `Sim::owned`);
//! - a link with a bounded queue of at most 4 units keeps its queue, flags, its facts as an
//!   input and the next link of its front worm in one small record (32 bytes for `q <= 2`,
//!   never straddling a cache line: `Record2`, `Record4`); larger or unbounded queues are
//!   `VecDeque`s; the wait masks are kept apart, as narrow as the busiest node allows
//!   (`wait`: one byte per link and event on the trees), and a link's tail is the network's;
//! - from 4 MiB of records on, they live in an anonymous mapping advised for transparent huge
//!   pages (`Records`), so that the random reads of walks and moves rarely miss the TLB too:
//!   two threads, the peers' batch, 4-ary 10-tree 31.8 -> 27.6-27.9 s, `bft:n=2^20` 28.0-33.5
//!   -> 24.5-26.7 s; with each injection queue in one record (`InjQueue`) and 16 walks in turn
//!   (`WALKS`), 19.9-21.5 s and 21.6-24.1 s (session 14);
//! - a worm's body units find their next link in the record of the queue they stand in
//!   (`Sim::front_fwd`), not in the worm's route: a move reads and writes two link records and
//!   nothing indexed by worm;
//! - links keep the network's numbering: on the trees a connection's up and down links are
//!   neighbours (channels `2e` and `2e + 1`), so a node's input from its parent and its
//!   output to it share a cache line. (Numbering the engine's links by head node instead
//!   was 15–20 % slower on the 4-ary 8-tree and no faster on `bft:n=2^18`.)
//! - **walk mode** (wormhole unicast runs, one worm a message, under the snapshot reading):
//!   a worm's body units move by the worm's *walk* (`Sim::walk_link`), from
//!   its tail forward along the links its head took, instead of by node scans. 31 of the 32
//!   flit-hops of a 32-flit worm are body units, which need no choice (the worm owns the
//!   links they cross) and compete with nobody; a node scan decided each of them through
//!   its node's masks, its RR draw and the moves list, then applied it in a second pass
//!   over the same two link records. A walk reads each link once, moves the unit if the
//!   queue ahead was not full at the start of the step, and goes on; node scans see heads
//!   only (an input counts as non-empty while a head is at its front). Walks take turns a
//!   link at a time, 16 at once, each prefetching its next record on large networks, and a
//!   worm none of whose units could move sleeps until a pop lets them (`Sim::wake_behind`).
//!   Every run is the one the node scans give (`order_tests`, and the regression set of
//!   `scripts/engine-regression.sh`). On threads, the parts decide their nodes' heads, then
//!   walk their own lists of worms (`Sim::step_walks_threaded`). The peers' batch, one
//!   thread: 4-ary 6-tree 0.0555 -> 0.0398 s; two threads: 4-ary 7-tree 0.26 -> 0.16 s,
//!   `bft:n=2^20` 39.1 -> 27.9-30.1 s, the 4-ary 10-tree unchanged (about 32 s)
//!   (`docs/bench/2026-11-26-engine-scale.md`, session 13);
//! - **lazy walks** (walk mode with queues of 2 to 15 units and worms of at most 32): a worm
//!   keeps how many of its units each of its links holds, 2 bits a link in one word (4 bits
//!   in two words for queues of 4 to 15, since session 23), and a step's walk computes its
//!   moves from those counts, reading and writing only the records of the links at its two
//!   ends (`Sim::walk_lazy`): in a freely flowing worm every link between them holds one
//!   unit before and after the step. The peers' batch: 4-ary 6-tree 0.0408 -> 0.0197 s (one
//!   thread); two threads, 4-ary 10-tree 22.1 -> 13.4 s, `bft:n=2^20` 22.3 -> 15.9 s
//!   (session 15). Queues of 8 (session 23), 4-ary 7-tree, one thread: 3.05 s in `Deques`,
//!   0.68 s in `Rings` with every link walked, 0.39 s with lazy walks;
//! - the active nodes and the ejection queues to drain are bit sets with a summary bit per
//!   word (`Marks`): a step costs one read per 4,096 nodes or links plus its work, so idle
//!   parts of a large network cost (almost) nothing;
//! - on networks of at least [`PREFETCH_LINKS`] links, whose records do not fit in the
//!   caches, the records of the moves 4 places ahead (apply) and of the inputs of the active
//!   nodes 4 places ahead (decide) are prefetched: on the trees a node's input from a
//!   neighbour and its output to it share a cache line, so the second covers the links a
//!   node's units leave by. One thread, `bft:n=2^18` batch: 14.2-15.5 s before, 10.0-10.2 s
//!   after; below that size the prefetches cost more than they save (+10 % at 4,096).
//!
//! **Threads.** A run started inside a rayon pool of several threads splits its large steps
//! between them (`Sim::step_threaded`, or `Sim::step_walks_threaded` in walk mode): unicast
//! runs under the snapshot reading with bounded queues of at most 255 units (`Rings` beyond
//! 4, since session 23; before, deeper queues ran on one thread), on networks of at least
//! 4,096 nodes, in steps after one that moved at least 8,192 units (smaller steps do not
//! repay the fork-joins: three a step, two in walk mode), and of those, only while
//! threaded steps measure faster per move than one-thread steps in the same run (`Pace`).
//! The shared state is words
//! with one writer per phase (`cells`); a thread owns the nodes of its part of the active
//! words (parts by nearest processor, so whole subtrees on the trees: `Sim::parts_by_key`),
//! decides them, and pops and pushes their moves; a pop wakes the waiting inputs of
//! the link's tail and a push marks the head's input non-empty whoever owns those nodes,
//! with atomic bit updates (`Local::shared`). Every draw is keyed by step and node or input
//! (`draws`), and every pop before any push gives the one-thread state, so a run is the same
//! for any number of threads (tested on 2^16 processors with 1, 2 and 4 threads, and by a
//! repeated 16-part run on two threads). A part's pushes into links whose head it also owns
//! happen in the pop phase (the one-thread order); only pushes across parts wait for every
//! part's pops. Measured on a 2-core Intel Xeon machine (`docs/bench/2026-11-26-engine-scale.md`,
//! session 8), two threads against one on the peers' batch: 31.1 s against 53.0 s on the
//! 4-ary 10-tree, 36.9-39.9 s against 57.8 s on `bft:n=2^20`, 6.2-6.6 s against 10.9-11.1 s
//! on the 4-ary 9-tree.
//! Before the parts followed subtrees they were runs of node numbers, slices of the trees'
//! levels, and `bft` lost time on two threads; before the wakes and marks moved into the
//! phases, one thread replayed those of other parts' nodes at the end of every step.

use crate::OnlineParameter;
use crate::divide::Divisor;
use std::cell::{Cell, RefCell};
use std::collections::VecDeque;

use rayon::prelude::*;
use zerocopy::{FromBytes, IntoBytes, KnownLayout};

use fatnet_topology::ChannelId;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

use super::cells::{ASLEEP, C8, C16, C32, C64, NONEMPTY, NodeMasks, words64};
use super::draws::{Draws, Purpose, StepDraws};
use super::ledger::Ledger;
use super::multicast::{Multicast, MulticastTree};
use super::net::{NONE, PacketNet};
use super::wait::WaitMasks;
use super::{
    FarthestTies, FixedInputOrder, FlowControl, Injection, OnlineError, Outcome, PacketConfig,
    PacketReport, PathPolicy, QueueCapacity, Queueing, ScanPolicy, SinkModel, StoreTiming,
};
use crate::step::{Step, StepModel, drive};

/// The multicast part of a run.
#[derive(Clone, Copy, Debug)]
pub(super) struct Mc<'a> {
    pub(super) trees: &'a [MulticastTree],
    pub(super) multicasts: &'a [Multicast],
    /// Per multicast, its label under [`ScanPolicy::Labelled`] (empty: all 0).
    pub(super) labels: &'a [u64],
    /// Whether to count the stored packets per step ([`PacketReport::stored`]).
    pub(super) storage: bool,
}

/// A decided multicast copy: `unit` (its `hop` the child's tree position) crosses `link`;
/// `pop` on the input's last copy.
#[derive(Clone, Copy, Debug)]
struct CopyMove {
    inp: u32,
    link: u32,
    unit: Unit,
    pop: bool,
}

/// How many moves (apply) or active nodes (decide) ahead link records are prefetched.
const AHEAD: usize = 4;

/// At most this many input records of a node are prefetched ahead of its scan
/// (`Sim::prefetch_inputs`).
const PREFETCH_INPUTS: usize = 8;

/// Networks of at least this many links prefetch link records: 4 MiB of records at 32 bytes
/// a record, four times the machine's L2. Below, the prefetches cost more than they save
/// (`docs/bench/2026-11-26-engine-scale.md`).
const PREFETCH_LINKS: u32 = 1 << 17;

/// Runs `$body` on every move `(inp, e)` of `$moves` (inputs; `e` is the input's decided link,
/// [`Sim::move_link`]) in order; on a large network the records of an input and of the link
/// its move takes are prefetched before its turn ([`Sim::prefetch_move`]). A macro, not a function taking a closure: that cost 5.7 % more
/// instructions per run (measured).
macro_rules! each_move {
    ($sim:ident, $moves:ident, |$inp:ident, $e:ident| $body:block) => {
        if $sim.prefetch {
            for (i, &$inp) in $moves.iter().enumerate() {
                $sim.prefetch_move(&$moves, i);
                let $e = $sim.move_link($inp);
                $body
            }
        } else {
            for &$inp in &$moves {
                let $e = $sim.move_link($inp);
                $body
            }
        }
    };
}

/// Walks in progress at once in walk mode ([`Sim::walk_worms`]). Each has about one record
/// read in flight, and more than the core's line-fill buffers only queue behind them. With
/// link records on huge pages, the 4-ary 10-tree batch on two threads took 21.2-22.9 s with
/// 12, 19.9-20.6 s with 16, 20.4-20.9 s with 24 and 22.1-22.8 s with 32 walks (alternated);
/// at 4,096 and 16,384 processors 16 and 32 are alike (session 14).
const WALKS: usize = 16;

/// Lazy walks: how many worms ahead in the list the records of a worm's ends are prefetched
/// ([`Sim::walk_lazies`]).
const LAZY_AHEAD: usize = 8;

/// Lazy walks: the longest worm, in units. With queues of 2 units or more no link between a
/// worm's ends is ever empty (a link whose front unit leaves takes the unit behind it, unless
/// it was full, and then keeps one), so a worm spans at most as many links as it has units:
/// its counts ([`Counts`]) have 32 fields. With 1-unit queues it may spread out, and walks
/// visit every link.
const MAX_LAZY_UNITS: u32 = 32;

/// Lazy walks: a worm's counts ([`WormWalk::cnt`]), one field of [`Counts::FIELD`] bits a
/// link, from its front link (the lowest field) back to its rear, each the worm's units in
/// that link: a `u64` of 2-bit fields for queues of 2 or 3 units, a `u128` of 4-bit fields
/// for queues of 4 to 15 (its high word in [`Sim::cnt_hi`]). Both have [`MAX_LAZY_UNITS`]
/// fields. A step's moves follow from the counts by word operations on every field at once.
trait Counts:
    Copy
    + PartialEq
    + std::ops::Shl<u32, Output = Self>
    + std::ops::Shr<u32, Output = Self>
    + std::ops::BitAnd<Output = Self>
    + std::ops::BitOr<Output = Self>
    + std::ops::BitOrAssign
    + std::ops::BitAndAssign
    + std::ops::BitXor<Output = Self>
    + std::ops::Not<Output = Self>
    + std::ops::Add<Output = Self>
    + std::ops::Sub<Output = Self>
{
    /// Bits a field.
    const FIELD: u32;
    const BITS: u32;
    const ZERO: Self;
    const ONE: Self;
    /// The lowest bit of every field.
    const LOW: Self;
    fn of(x: u64) -> Self;
    /// The low 64 bits.
    fn low64(self) -> u64;
    fn ones(self) -> u32;
    fn leading(self) -> u32;
    /// Worm `w`'s counts.
    fn load(ww: &WormWalk, hi: &[C64], w: usize) -> Self;
    fn store(self, ww: &WormWalk, hi: &[C64], w: usize);
}

/// What [`Counts`] says the same way of its two words: all but where a worm's word is kept.
/// `$field` bits a field; the lowest bit of every field is the word's largest value over a
/// field's (`0x55…` for 2-bit fields, `0x11…` for 4-bit ones).
macro_rules! word_ops {
    ($field:literal) => {
        const FIELD: u32 = $field;
        const BITS: u32 = Self::BITS;
        const ZERO: Self = 0;
        const ONE: Self = 1;
        const LOW: Self = Self::MAX / ((1 << $field) - 1);
        #[inline(always)]
        fn of(x: u64) -> Self {
            Self::from(x)
        }
        #[inline(always)]
        #[allow(clippy::unnecessary_cast)]
        fn low64(self) -> u64 {
            self as u64
        }
        #[inline(always)]
        fn ones(self) -> u32 {
            self.count_ones()
        }
        #[inline(always)]
        fn leading(self) -> u32 {
            self.leading_zeros()
        }
    };
}

impl Counts for u64 {
    word_ops!(2);
    #[inline(always)]
    fn load(ww: &WormWalk, _: &[C64], _: usize) -> Self {
        ww.cnt.get()
    }
    #[inline(always)]
    fn store(self, ww: &WormWalk, _: &[C64], _: usize) {
        ww.cnt.set(self)
    }
}

impl Counts for u128 {
    word_ops!(4);
    #[inline(always)]
    fn load(ww: &WormWalk, hi: &[C64], w: usize) -> Self {
        u128::from(ww.cnt.get()) | u128::from(hi[w].get()) << 64
    }
    #[inline(always)]
    fn store(self, ww: &WormWalk, hi: &[C64], w: usize) {
        ww.cnt.set(self as u64);
        hi[w].set((self >> 64) as u64);
    }
}

/// The largest of the fields of `c` that have a bit of `which` (bits at fields' lowest).
fn most_in<C: Counts>(c: C, which: C) -> u32 {
    let mut most = 0;
    let mut rest = which;
    while rest != C::ZERO {
        let i = (C::BITS - 1 - rest.leading()) / C::FIELD;
        most = most.max(field(c, i));
        rest &= !(C::ONE << (C::FIELD * i));
    }
    most
}

/// The largest queue whose worms' counts fit a field of [`Counts`] for `u128`.
const MAX_LAZY_QUEUE: usize = 15;

/// One field's bits.
#[inline(always)]
fn field_mask<C: Counts>() -> C {
    C::of((1 << C::FIELD) - 1)
}

/// Field `i` of a worm's counts.
#[inline(always)]
fn field<C: Counts>(c: C, i: u32) -> u32 {
    (c >> (C::FIELD * i) & field_mask::<C>()).low64() as u32
}

/// The highest non-zero field of a worm's counts (its rear link's, or with the tail still at
/// the source its first link's), 0 when every field is zero.
#[inline(always)]
fn top_field<C: Counts>(c: C) -> u32 {
    if c == C::ZERO {
        0
    } else {
        (C::BITS - 1 - c.leading()) / C::FIELD
    }
}

/// The units a worm's counts hold.
#[inline(always)]
fn units_in<C: Counts>(c: C) -> u64 {
    (0..C::FIELD)
        .map(|b| u64::from((c & C::LOW << b).ones()) << b)
        .sum()
}

/// The lowest bit of every non-zero field of `c`.
#[inline(always)]
fn nonzero<C: Counts>(c: C) -> C {
    let mut any = c;
    for b in 1..C::FIELD {
        any |= c >> b;
    }
    any & C::LOW
}

/// `v` in every field.
#[inline(always)]
fn in_every_field<C: Counts>(v: u32) -> C {
    let mut all = C::ZERO;
    for b in 0..C::FIELD {
        if v >> b & 1 != 0 {
            all |= C::LOW << b;
        }
    }
    all
}

/// A worm's walk in progress in walk mode ([`Sim::walk_link`]): the worm (`NONE`: no walk),
/// the input that held its tail at the start, the input it is at, whether that input's units
/// all entered in this step, and whether a unit moved.
#[derive(Clone, Copy, Debug)]
struct Walk {
    w: u32,
    rear: u32,
    inp: u32,
    fresh: bool,
    moved: bool,
}

impl Default for Walk {
    fn default() -> Self {
        Self {
            w: NONE,
            rear: NONE,
            inp: NONE,
            fresh: false,
            moved: false,
        }
    }
}

/// Largest bounded queue kept inline in the link state.
const MAX_INLINE: u32 = 4;

/// A unit in a queue: a flit (or a whole store-and-forward packet) of a worm.
#[derive(Clone, Copy, Debug, Default)]
struct Unit {
    worm: u32,
    /// Position in its worm, 0 = head.
    seq: u16,
    /// Index in the worm's route of the next link to cross.
    hop: u16,
}

impl Unit {
    #[inline(always)]
    fn pack(self) -> u64 {
        u64::from(self.worm) | u64::from(self.seq) << 32 | u64::from(self.hop) << 48
    }
    #[inline(always)]
    fn unpack(x: u64) -> Self {
        Self {
            worm: x as u32,
            seq: (x >> 32) as u16,
            hop: (x >> 48) as u16,
        }
    }
}

/// The dynamic state of the links: queues, owners, and whether a link carried a unit in the
/// current step. Shared by the threads of a step (`&self`); who may change what, and when, is
/// in the module documentation of `cells` and at [`Sim::step_threaded`].
trait Store {
    /// Whether the store's queues can have lazy walks with narrow counts (a `u64`: queues of
    /// 2 or 3 units) and with wide ones (a `u128`: 4 to 15), see [`Counts`]. Only those walks
    /// are compiled for the store: a store whose queues are all of one size needs one width
    /// (each width's walks are a few thousand lines of machine code a store).
    const NARROW_COUNTS: bool;
    const WIDE_COUNTS: bool;
    fn queue_len(&self, e: usize) -> usize;
    fn queue_front(&self, e: usize) -> Unit;
    /// The unit at the back of link `e`'s (non-empty) queue.
    fn queue_back(&self, e: usize) -> Unit;
    fn queue_pop(&self, e: usize) -> Unit;
    fn queue_push(&self, e: usize, u: Unit);
    /// Whether a worm owns the link (its head crossed, its tail not yet).
    fn owned(&self, e: usize) -> bool;
    fn set_owned(&self, e: usize, owned: bool);
    /// The link the worm at the front of the link's queue continues on (see `Sim::front_fwd`),
    /// and the link the front unit's move of this step takes (`Sim::move_link`).
    fn fwd(&self, e: usize) -> u32;
    fn set_fwd(&self, e: usize, next: u32);
    /// The link's facts as an input of its head node (set once, before the run).
    fn info(&self, e: usize) -> InputInfo;
    fn set_info(&mut self, e: usize, info: InputInfo);
    fn used(&self, e: usize) -> bool;
    fn set_used(&self, e: usize, used: bool);
    /// A head crossed the link (by its tail node's owner).
    fn cross_head(&self, e: usize);
    /// How many heads crossed the link.
    fn crossings(&self, e: usize) -> u32;
    /// Whether some input may be waiting on the link for `event` (set on sleep, cleared on
    /// wake).
    fn waited(&self, e: usize, event: Event) -> bool;
    fn set_waited(&self, e: usize, event: Event, waited: bool);
    /// Asks the processor to bring link `e`'s record into the cache (a hint).
    #[inline(always)]
    fn prefetch(&self, _e: usize) {}

    /// What a head asks of link `e`: whether a worm owns it, whether it carried a unit in
    /// this step, and its queue's length (one look at the record).
    #[inline(always)]
    fn gate(&self, e: usize) -> Gate {
        Gate {
            owned: self.owned(e),
            used: self.used(e),
            len: self.queue_len(e),
        }
    }

    /// Pops link `e`'s front unit: it, the link's facts, whether the queue emptied, and
    /// whether some input may wait for the pop (one look at the link's record).
    #[inline(always)]
    fn pop_front(&self, e: usize) -> (Unit, InputInfo, bool, bool) {
        let u = self.queue_pop(e);
        (
            u,
            self.info(e),
            self.queue_len(e) == 0,
            self.waited(e, Event::Pop),
        )
    }

    /// Pushes `u` into link `e`: the queue's length before, and the link's facts.
    #[inline(always)]
    fn push_back(&self, e: usize, u: Unit) -> (usize, InputInfo) {
        let before = self.queue_len(e);
        self.queue_push(e, u);
        (before, self.info(e))
    }

    /// Link `e`'s front unit and the link its worm continues on (one look at the record).
    #[inline(always)]
    fn front_fwd(&self, e: usize) -> (Unit, u32) {
        (self.queue_front(e), self.fwd(e))
    }

    /// Link `e`'s queue length and facts (one look at the record).
    #[inline(always)]
    fn len_info(&self, e: usize) -> (usize, InputInfo) {
        (self.queue_len(e), self.info(e))
    }

    /// Sets link `e`'s queue to `n` units of `worm`, `seq`, `seq + 1`, ... from the front,
    /// each of hop `hop` (lazy walks: the link a worm's tail entered, [`Sim::walk_lazy`]).
    #[inline]
    fn refill(&self, e: usize, n: usize, worm: u32, seq: u16, hop: u16) {
        while self.queue_len(e) > 0 {
            self.queue_pop(e);
        }
        for k in 0..n as u16 {
            self.queue_push(
                e,
                Unit {
                    worm,
                    seq: seq + k,
                    hop,
                },
            );
        }
    }

    /// Moves link `inp`'s front unit, one hop on, to the back of link `e`'s queue; returns
    /// whether some input may wait for `inp` to pop (a walk's move of a body unit).
    #[inline(always)]
    fn shift(&self, inp: usize, e: usize) -> bool {
        let (u, _, _, waited) = self.pop_front(inp);
        self.queue_push(
            e,
            Unit {
                hop: u.hop + 1,
                ..u
            },
        );
        waited
    }
}

/// What a sleeping unit waits for on a link.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Event {
    /// The link's queue pops (it was full).
    Pop = 0,
    /// The worm owning the link releases it (its tail crossed).
    Release = 1,
}

/// A link as a head sees it ([`Store::gate`]).
#[derive(Clone, Copy, Debug)]
struct Gate {
    owned: bool,
    used: bool,
    len: usize,
}

/// Bits of [`LinkFields::flags`], the link's tail node's: set while it decides, cleared when
/// its moves cross the link.
const USED: u8 = 1;
const WAITED_RELEASE: u8 = 4;
const OWNED: u8 = 8;

/// A link record's fields before its units: everything a move tests and changes but the
/// units, and its count of crossing heads (four bytes of the record's sixteen, where a
/// separate array was 4 bytes more per link, 84 MB on the 4-ary 10-tree).
///
/// Who writes what in a step: `fwd` its head node (deciding); `flags` and `crossings` its
/// tail node (deciding, and when a unit crosses); `len`, `head` and the units its head node
/// (popping) and, in a later phase, its tail node (pushing); `pop_waited` its tail node
/// (deciding) and its head node (popping: the wake). Each is its own word, so no two threads
/// write one word in the same phase.
#[derive(Debug, FromBytes, IntoBytes, KnownLayout)]
#[repr(C)]
struct LinkFields {
    /// Its facts as an input ([`Store::info`]).
    info: InputInfo,
    /// Heads that crossed it ([`Store::cross_head`]).
    crossings: C32,
    /// The link the front worm continues on ([`Store::fwd`]).
    fwd: C32,
    len: C8,
    head: C8,
    /// [`USED`], [`OWNED`] and [`WAITED_RELEASE`].
    flags: C8,
    /// Whether some input may wait for the link to pop.
    pop_waited: C8,
}

impl Default for LinkFields {
    fn default() -> Self {
        Self {
            info: InputInfo::default(),
            crossings: C32::new(0),
            fwd: C32::new(NONE),
            len: C8::new(0),
            head: C8::new(0),
            flags: C8::new(0),
            pop_waited: C8::new(0),
        }
    }
}

impl LinkFields {
    /// The queue, a ring of `q` unit slots from `head`, loses its front: returns the front's
    /// position in the ring (below `q`) and the length left.
    #[inline(always)]
    fn take_front(&self, q: usize) -> (usize, u8) {
        let head = self.head.get();
        self.head
            .set(if head as usize + 1 == q { 0 } else { head + 1 });
        let left = self.len.get() - 1;
        self.len.set(left);
        (head as usize, left)
    }

    /// The queue gains a unit at its back: returns the back's position in the ring (below
    /// `q`) and the length before.
    #[inline(always)]
    fn take_back(&self, q: usize) -> (usize, u8) {
        let len = self.len.get();
        let pos = wrap(self.head.get() as usize + len as usize, q);
        self.len.set(len + 1);
        (pos, len)
    }

    #[inline(always)]
    fn set_flag(&self, bit: u8, on: bool) {
        let f = self.flags.get();
        self.flags.set(if on { f | bit } else { f & !bit });
    }
}

/// Ring position `i` (below `2q`) wrapped below `q`.
#[inline(always)]
fn wrap(i: usize, q: usize) -> usize {
    if i >= q { i - q } else { i }
}

/// A link record with room for a queue of one or two units ([`Links`]): half a cache line,
/// aligned so that it never straddles two.
#[derive(Debug, Default, FromBytes, IntoBytes, KnownLayout)]
#[repr(C, align(32))]
struct Record2 {
    fields: LinkFields,
    /// Packed [`Unit`]s.
    units: [C64; 2],
}

/// A link record with room for a queue of three or four units ([`Links`]): a cache line (the
/// padding is spelt out, so that the record has no padding bytes).
#[derive(Debug, Default, FromBytes, IntoBytes, KnownLayout)]
#[repr(C, align(64))]
struct Record4 {
    fields: LinkFields,
    /// Packed [`Unit`]s.
    units: [C64; 4],
    pad: [u64; 2],
}

// The layouts above.
const _: () = assert!(std::mem::size_of::<Record2>() == 32);
const _: () = assert!(std::mem::size_of::<Record4>() == 64);

/// A link record of [`Links`].
trait Record: Default + FromBytes + IntoBytes + KnownLayout + Sync {
    fn fields(&self) -> &LinkFields;
    fn fields_mut(&mut self) -> &mut LinkFields;
    fn units(&self) -> &[C64];
}

/// [`Record`] for a record type with `fields` and `units`.
macro_rules! record {
    ($t:ty) => {
        impl Record for $t {
            #[inline(always)]
            fn fields(&self) -> &LinkFields {
                &self.fields
            }
            #[inline(always)]
            fn fields_mut(&mut self) -> &mut LinkFields {
                &mut self.fields
            }
            #[inline(always)]
            fn units(&self) -> &[C64] {
                &self.units
            }
        }
    };
}
record!(Record2);
record!(Record4);

/// Networks whose link records take at least this many bytes keep them in an anonymous
/// mapping advised for transparent huge pages ([`Records`]): 4 MiB, the records of
/// [`PREFETCH_LINKS`] links at 32 bytes, the size from which they miss the caches.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
const HUGE_RECORDS: usize = 4 << 20;

/// The owner of a run's link records: a vector, or on large networks an anonymous mapping
/// advised for transparent huge pages. A walk or a move reads link records at random over
/// hundreds of megabytes on the largest networks, and with 4 KiB pages nearly every read
/// also misses the TLB; 2 MiB pages make the page walks rare. `glibc.malloc.hugetlb=1`
/// (huge pages for every allocation) took the 4-ary 10-tree batch from 31.0-31.4 s to
/// 26.5-27.8 s on two threads (`docs/bench/2026-11-26-engine-scale.md`, session 14). A
/// kernel without transparent huge pages, or with them off, gives ordinary pages: the
/// advice is only a hint, and a mapping that fails falls back to a vector. Other systems than
/// Linux keep a vector (the advice is Linux's).
#[derive(Debug)]
enum Records<R> {
    Heap(Vec<R>),
    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    Mapped(memmap2::MmapMut),
}

impl<R: Default + FromBytes + IntoBytes + KnownLayout> Records<R> {
    /// `n` default records.
    fn new(n: usize) -> Self {
        // Transparent huge pages are Linux's (elsewhere the mapping would gain nothing).
        #[cfg(target_os = "linux")]
        if let Some(bytes) = n.checked_mul(std::mem::size_of::<R>())
            && bytes >= HUGE_RECORDS
            && let Ok(mut map) = memmap2::MmapMut::map_anon(bytes)
        {
            // Only a hint: without transparent huge pages the mapping keeps small pages.
            let _ = map.advise(memmap2::Advice::HugePage);
            if let Ok(records) = <[R]>::mut_from_bytes(&mut map[..]) {
                for r in records.iter_mut() {
                    *r = R::default();
                }
                return Self::Mapped(map);
            }
        }
        Self::Heap((0..n).map(|_| R::default()).collect())
    }

    /// The records.
    fn slice(&mut self) -> &mut [R] {
        match self {
            Self::Heap(v) => v,
            Self::Mapped(map) => match <[R]>::mut_from_bytes(&mut map[..]) {
                Ok(records) => records,
                // `new` viewed the same bytes as records.
                Err(_) => unreachable!("a mapping of whole records"),
            },
        }
    }
}

/// How a store of bounded queues reaches link `e`: its [`LinkFields`] and the ring of unit
/// slots of its queue. One implementation of [`Store`] and [`Threads`] serves both layouts:
/// [`Links`], one record per link with a ring of a size known at compile time, and
/// [`Rings`], fields and rings in two arrays, the ring's size chosen at run time.
trait Slots: Sync {
    /// [`Store::NARROW_COUNTS`] and [`Store::WIDE_COUNTS`].
    const NARROW_COUNTS: bool;
    const WIDE_COUNTS: bool;
    fn at(&self, e: usize) -> (&LinkFields, &[C64]);
    fn fields_mut(&mut self, e: usize) -> &mut LinkFields;
    /// Asks the processor for link `e`'s record (a hint).
    fn prefetch_link(&self, e: usize);
    /// The ring's size: the queue's capacity.
    fn ring(&self) -> usize;
    /// Ring position `i` (below [`Slots::ring`]) as an index into the unit slots: `i`, or
    /// for [`Links`] `i % Q`, which lets the compiler drop the bounds check.
    fn slot(&self, i: usize) -> usize;
}

/// Links with a queue of at most `Q` units stored inline in their records ([`Record2`] for
/// `Q <= 2`, [`Record4`] for 3 and 4): everything a move tests and changes is in one cache
/// line.
#[derive(Debug)]
struct Links<'m, R, const Q: usize>(&'m mut [R]);

impl<R: Record, const Q: usize> Slots for Links<'_, R, Q> {
    const NARROW_COUNTS: bool = Q == 2 || Q == 3;
    const WIDE_COUNTS: bool = Q == 4;
    #[inline(always)]
    fn at(&self, e: usize) -> (&LinkFields, &[C64]) {
        let r = &self.0[e];
        (r.fields(), r.units())
    }
    #[inline(always)]
    fn fields_mut(&mut self, e: usize) -> &mut LinkFields {
        self.0[e].fields_mut()
    }
    #[inline(always)]
    fn prefetch_link(&self, e: usize) {
        prefetch_index::prefetch_index(&*self.0, e);
    }
    #[inline(always)]
    fn ring(&self) -> usize {
        Q
    }
    #[inline(always)]
    fn slot(&self, i: usize) -> usize {
        i % Q
    }
}

/// The largest queue held in [`Rings`] (a queue's length and ring position are bytes).
pub(super) const MAX_RING: u32 = 255;

/// At most this many unit slots (8 bytes each: 2 GiB) in [`Rings`], eight units for each of
/// [`MAX_LINKS`](super::net::MAX_LINKS) links. Larger rings (deeper queues on the largest
/// networks) are [`Deques`], whose queues are allocated when they first hold a unit, so
/// only the queues a run fills take memory (about 60 bytes a link besides).
const MAX_RING_SLOTS: u64 = super::net::MAX_LINKS * 8;

/// Links with a bounded queue deeper than [`MAX_INLINE`] units, up to [`MAX_RING`]: every
/// link's fields in one array (16 bytes each, four to a cache line) and its ring of `q` unit
/// slots in another, both in [`Records`] (huge pages on large networks). A head's test of
/// a link reads only its fields; a move reads one ring. Before, such queues were
/// [`Deques`], a heap-allocated `VecDeque` per link on one thread: a full-bisection fat-tree
/// of 16,384 processors with `--queue 8` took 13 times as long as with `--queue 2`.
#[derive(Debug)]
struct Rings<'m> {
    fields: &'m mut [LinkFields],
    units: &'m [C64],
    q: usize,
}

impl Slots for Rings<'_> {
    /// Its queues hold 5 units or more.
    const NARROW_COUNTS: bool = false;
    const WIDE_COUNTS: bool = true;
    #[inline(always)]
    fn at(&self, e: usize) -> (&LinkFields, &[C64]) {
        let first = e * self.q;
        (&self.fields[e], &self.units[first..first + self.q])
    }
    #[inline(always)]
    fn fields_mut(&mut self, e: usize) -> &mut LinkFields {
        &mut self.fields[e]
    }
    /// The fields and the ring's first slot: the whole ring up to 8 units, when the slots
    /// start on a cache line (a mapping does).
    #[inline(always)]
    fn prefetch_link(&self, e: usize) {
        prefetch_index::prefetch_index(&*self.fields, e);
        prefetch_index::prefetch_index(self.units, e * self.q);
    }
    #[inline(always)]
    fn ring(&self) -> usize {
        self.q
    }
    #[inline(always)]
    fn slot(&self, i: usize) -> usize {
        i
    }
}

impl<L: Slots> Store for L {
    const NARROW_COUNTS: bool = L::NARROW_COUNTS;
    const WIDE_COUNTS: bool = L::WIDE_COUNTS;
    #[inline(always)]
    fn prefetch(&self, e: usize) {
        self.prefetch_link(e);
    }
    #[inline(always)]
    fn gate(&self, e: usize) -> Gate {
        let (l, _) = self.at(e);
        let f = l.flags.get();
        Gate {
            owned: f & OWNED != 0,
            used: f & USED != 0,
            len: l.len.get() as usize,
        }
    }
    #[inline]
    fn queue_len(&self, e: usize) -> usize {
        self.at(e).0.len.get() as usize
    }
    #[inline]
    fn queue_front(&self, e: usize) -> Unit {
        let (l, units) = self.at(e);
        Unit::unpack(units[self.slot(l.head.get() as usize)].get())
    }
    #[inline(always)]
    fn len_info(&self, e: usize) -> (usize, InputInfo) {
        let (l, _) = self.at(e);
        (l.len.get() as usize, l.info)
    }
    #[inline(always)]
    fn shift(&self, inp: usize, e: usize) -> bool {
        let ((a, a_units), (b, b_units)) = (self.at(inp), self.at(e));
        let (front, _) = a.take_front(self.ring());
        let x = a_units[self.slot(front)].get();
        let (back, _) = b.take_back(self.ring());
        // One hop on: the hop is the packed unit's top 16 bits (`Unit::pack`).
        b_units[self.slot(back)].set(x + (1 << 48));
        a.pop_waited.get() != 0
    }
    #[inline(always)]
    fn refill(&self, e: usize, n: usize, worm: u32, seq: u16, hop: u16) {
        let (l, units) = self.at(e);
        l.head.set(0);
        l.len.set(n as u8);
        for (k, slot) in units[..n].iter().enumerate() {
            slot.set(
                Unit {
                    worm,
                    seq: seq + k as u16,
                    hop,
                }
                .pack(),
            );
        }
    }
    #[inline]
    fn queue_back(&self, e: usize) -> Unit {
        let (l, units) = self.at(e);
        let back = wrap(
            l.head.get() as usize + l.len.get() as usize - 1,
            self.ring(),
        );
        Unit::unpack(units[self.slot(back)].get())
    }
    #[inline(always)]
    fn front_fwd(&self, e: usize) -> (Unit, u32) {
        let (l, units) = self.at(e);
        (
            Unit::unpack(units[self.slot(l.head.get() as usize)].get()),
            l.fwd.get(),
        )
    }
    #[inline]
    fn queue_pop(&self, e: usize) -> Unit {
        let (l, units) = self.at(e);
        let (front, _) = l.take_front(self.ring());
        Unit::unpack(units[self.slot(front)].get())
    }
    #[inline]
    fn queue_push(&self, e: usize, u: Unit) {
        let (l, units) = self.at(e);
        let (back, _) = l.take_back(self.ring());
        units[self.slot(back)].set(u.pack());
    }
    #[inline]
    fn owned(&self, e: usize) -> bool {
        self.at(e).0.flags.get() & OWNED != 0
    }
    #[inline]
    fn set_owned(&self, e: usize, owned: bool) {
        self.at(e).0.set_flag(OWNED, owned);
    }
    #[inline]
    fn fwd(&self, e: usize) -> u32 {
        self.at(e).0.fwd.get()
    }
    #[inline]
    fn set_fwd(&self, e: usize, next: u32) {
        self.at(e).0.fwd.set(next);
    }
    #[inline]
    fn info(&self, e: usize) -> InputInfo {
        self.at(e).0.info
    }
    #[inline]
    fn set_info(&mut self, e: usize, info: InputInfo) {
        self.fields_mut(e).info = info;
    }
    #[inline]
    fn used(&self, e: usize) -> bool {
        self.at(e).0.flags.get() & USED != 0
    }
    #[inline]
    fn cross_head(&self, e: usize) {
        let c = &self.at(e).0.crossings;
        c.set(c.get() + 1);
    }
    #[inline]
    fn crossings(&self, e: usize) -> u32 {
        self.at(e).0.crossings.get()
    }
    #[inline]
    fn set_used(&self, e: usize, used: bool) {
        self.at(e).0.set_flag(USED, used);
    }
    #[inline]
    fn waited(&self, e: usize, event: Event) -> bool {
        let (l, _) = self.at(e);
        match event {
            Event::Pop => l.pop_waited.get() != 0,
            Event::Release => l.flags.get() & WAITED_RELEASE != 0,
        }
    }
    #[inline]
    fn set_waited(&self, e: usize, event: Event, waited: bool) {
        let (l, _) = self.at(e);
        match event {
            Event::Pop => l.pop_waited.set(u8::from(waited)),
            Event::Release => l.set_flag(WAITED_RELEASE, waited),
        }
    }
    #[inline(always)]
    fn pop_front(&self, e: usize) -> (Unit, InputInfo, bool, bool) {
        let (l, units) = self.at(e);
        let (front, left) = l.take_front(self.ring());
        let u = Unit::unpack(units[self.slot(front)].get());
        (u, l.info, left == 0, l.pop_waited.get() != 0)
    }
    #[inline(always)]
    fn push_back(&self, e: usize, u: Unit) -> (usize, InputInfo) {
        let (l, units) = self.at(e);
        let (back, before) = l.take_back(self.ring());
        units[self.slot(back)].set(u.pack());
        (before as usize, l.info)
    }
}

/// Links with unbounded queues, or bounded ones beyond [`Rings`] (runs on one thread: `Cell`s,
/// not shared words).
struct Deques {
    queues: Vec<RefCell<VecDeque<Unit>>>,
    owned: Vec<Cell<bool>>,
    fwd: Vec<Cell<u32>>,
    info: Vec<InputInfo>,
    used: Vec<Cell<bool>>,
    waited: Vec<[Cell<bool>; 2]>,
    crossings: Vec<Cell<u32>>,
}

impl Deques {
    fn new(links: usize) -> Self {
        Self {
            queues: (0..links).map(|_| RefCell::new(VecDeque::new())).collect(),
            owned: (0..links).map(|_| Cell::new(false)).collect(),
            fwd: (0..links).map(|_| Cell::new(NONE)).collect(),
            info: vec![InputInfo::default(); links],
            used: (0..links).map(|_| Cell::new(false)).collect(),
            waited: (0..links)
                .map(|_| [Cell::new(false), Cell::new(false)])
                .collect(),
            crossings: (0..links).map(|_| Cell::new(0)).collect(),
        }
    }
}

impl Store for Deques {
    /// Its queues are unbounded, or bounded at 5 units or more: deeper than [`MAX_RING`], or
    /// [`Rings`] that would not fit.
    const NARROW_COUNTS: bool = false;
    const WIDE_COUNTS: bool = true;
    #[inline]
    fn queue_len(&self, e: usize) -> usize {
        self.queues[e].borrow().len()
    }
    #[inline]
    fn queue_front(&self, e: usize) -> Unit {
        *self.queues[e]
            .borrow()
            .front()
            .expect("front of a non-empty queue")
    }
    #[inline]
    fn queue_back(&self, e: usize) -> Unit {
        *self.queues[e]
            .borrow()
            .back()
            .expect("back of a non-empty queue")
    }
    #[inline]
    fn queue_pop(&self, e: usize) -> Unit {
        self.queues[e]
            .borrow_mut()
            .pop_front()
            .expect("pop from a non-empty queue")
    }
    #[inline]
    fn queue_push(&self, e: usize, u: Unit) {
        self.queues[e].borrow_mut().push_back(u);
    }
    #[inline]
    fn owned(&self, e: usize) -> bool {
        self.owned[e].get()
    }
    #[inline]
    fn set_owned(&self, e: usize, owned: bool) {
        self.owned[e].set(owned);
    }
    #[inline]
    fn fwd(&self, e: usize) -> u32 {
        self.fwd[e].get()
    }
    #[inline]
    fn set_fwd(&self, e: usize, next: u32) {
        self.fwd[e].set(next);
    }
    #[inline]
    fn info(&self, e: usize) -> InputInfo {
        self.info[e]
    }
    #[inline]
    fn set_info(&mut self, e: usize, info: InputInfo) {
        self.info[e] = info;
    }
    #[inline]
    fn used(&self, e: usize) -> bool {
        self.used[e].get()
    }
    #[inline]
    fn cross_head(&self, e: usize) {
        self.crossings[e].set(self.crossings[e].get() + 1);
    }
    #[inline]
    fn crossings(&self, e: usize) -> u32 {
        self.crossings[e].get()
    }
    #[inline]
    fn set_used(&self, e: usize, used: bool) {
        self.used[e].set(used);
    }
    #[inline]
    fn waited(&self, e: usize, event: Event) -> bool {
        self.waited[e][event as usize].get()
    }
    #[inline]
    fn set_waited(&self, e: usize, event: Event, waited: bool) {
        self.waited[e][event as usize].set(waited);
    }
}

/// Routes `injections` on `net` under `config`; everything random comes from `seed`: the
/// priorities, the fixed paths and the key of the run's draws from `Pcg64` seeded with it, in
/// that order, and every draw made while the run runs from that key, the step and the node
/// or input drawing (module documentation, "Randomness").
///
/// # Errors
///
/// [`OnlineError::BadParameter`] for invalid parameters, [`OnlineError::BadProcessor`] for an
/// injection outside the network, [`OnlineError::Unroutable`] when a destination cannot be
/// reached, [`OnlineError::TooLarge`] beyond `2^32 − 1` worms, and (a bug)
/// [`OnlineError::Conservation`].
pub fn simulate(
    net: &PacketNet,
    injections: &[Injection],
    config: &PacketConfig,
    seed: u64,
) -> Result<PacketReport, OnlineError> {
    simulate_multicast(net, injections, &[], &[], config, seed)
}

/// Routes unicast `injections` and `multicasts` (each along its tree in `trees`, see
/// [`MulticastTree`]) together on `net` under `config`. Messages are numbered unicasts
/// first, then multicasts, in the report's latencies. A multicast's path policy is its tree
/// (the run's [`PathPolicy`] applies to unicasts only); under farthest-first its key is the
/// tree's height. Randomness as [`simulate`], multicast priorities drawn after the
/// unicasts'.
///
/// # Errors
///
/// As [`simulate`], and [`OnlineError::BadParameter`] for a tree index out of range or a tree
/// built on a network with another number of links.
pub fn simulate_multicast(
    net: &PacketNet,
    injections: &[Injection],
    trees: &[MulticastTree],
    multicasts: &[Multicast],
    config: &PacketConfig,
    seed: u64,
) -> Result<PacketReport, OnlineError> {
    run_multicast(net, injections, trees, multicasts, &[], false, config, seed)
}

/// As [`simulate_multicast`] without unicasts, multicast `i` carrying `labels[i]`: under
/// [`ScanPolicy::Labelled`] every output queue sends the copy of the smallest
/// `(label, rank of its tree position)` first (Stamoulis' label priority, thesis §6.3.3).
/// Under any other scan policy the labels are ignored.
///
/// # Errors
///
/// As [`simulate_multicast`], and [`OnlineError::BadParameter`] when `labels` and
/// `multicasts` differ in length.
pub fn simulate_multicast_labelled(
    net: &PacketNet,
    trees: &[MulticastTree],
    multicasts: &[Multicast],
    labels: &[u64],
    config: &PacketConfig,
    seed: u64,
) -> Result<PacketReport, OnlineError> {
    check_labels(labels, multicasts, false)?;
    run_multicast(net, &[], trees, multicasts, labels, false, config, seed)
}

/// As [`simulate_multicast_labelled`] (`labels` empty: all 0), also counting the packets
/// stored at the nodes in every step ([`PacketReport::stored`]): Stamoulis' queue size `Q`
/// (thesis §6.4) is its time average per node.
///
/// # Errors
///
/// As [`simulate_multicast_labelled`] (any length of `labels` but 0 or the number of
/// multicasts is refused), and [`OnlineError::BadParameter`] unless `config.queueing` is
/// [`Queueing::Output`], the only engine that counts storage.
pub fn simulate_multicast_stored(
    net: &PacketNet,
    trees: &[MulticastTree],
    multicasts: &[Multicast],
    labels: &[u64],
    config: &PacketConfig,
    seed: u64,
) -> Result<PacketReport, OnlineError> {
    check_labels(labels, multicasts, true)?;
    if config.queueing != Queueing::Output {
        return Err(OnlineError::BadParameter {
            param: OnlineParameter::Queueing,
            value: format!("{:?}", config.queueing),
            expected: "Output (storage is counted on output queues only)",
        });
    }
    run_multicast(net, &[], trees, multicasts, labels, true, config, seed)
}

/// Refuses `labels` unless there is one per multicast (or none, when `none_ok`).
fn check_labels(
    labels: &[u64],
    multicasts: &[Multicast],
    none_ok: bool,
) -> Result<(), OnlineError> {
    if labels.len() == multicasts.len() || (none_ok && labels.is_empty()) {
        return Ok(());
    }
    Err(OnlineError::BadParameter {
        param: OnlineParameter::Labels,
        value: format!(
            "{} labels for {} multicasts",
            labels.len(),
            multicasts.len()
        ),
        expected: if none_ok {
            "none, or one label per multicast"
        } else {
            "one label per multicast"
        },
    })
}

#[allow(clippy::too_many_arguments)]
fn run_multicast(
    net: &PacketNet,
    injections: &[Injection],
    trees: &[MulticastTree],
    multicasts: &[Multicast],
    labels: &[u64],
    storage: bool,
    config: &PacketConfig,
    seed: u64,
) -> Result<PacketReport, OnlineError> {
    config.validate()?;
    for (i, m) in multicasts.iter().enumerate() {
        let Some(tree) = trees.get(m.tree as usize) else {
            return Err(OnlineError::BadParameter {
                param: OnlineParameter::MulticastTreeIndex,
                value: format!("{} (multicast {i})", m.tree),
                expected: "an index into the tree list",
            });
        };
        if tree.net_links() != net.links() {
            return Err(OnlineError::BadParameter {
                param: OnlineParameter::MulticastTree,
                value: format!("{} (multicast {i})", m.tree),
                expected: "a tree built on this network",
            });
        }
    }
    let mc = Mc {
        trees,
        multicasts,
        labels,
        storage,
    };
    let processors = net.processors();
    for (index, m) in injections.iter().enumerate() {
        if m.src >= processors || m.dst >= processors {
            return Err(OnlineError::BadProcessor {
                index,
                src: m.src,
                dst: m.dst,
                processors,
            });
        }
        if m.src != m.dst {
            net.check_reachable(m.src, m.dst)?;
        }
    }
    let per_message: u64 = match config.flow {
        FlowControl::Split => u64::from(config.flits),
        _ => 1,
    };
    let worms = (injections.len() + multicasts.len()) as u64 * per_message;
    if worms >= u64::from(NONE) {
        return Err(OnlineError::TooLarge {
            what: "worms",
            value: worms,
            max: u64::from(NONE) - 1,
        });
    }
    if config.queueing == Queueing::Output {
        return super::outq::run(net, injections, mc, config, seed);
    }
    if config.store_timing != StoreTiming::Snapshot && !multicasts.is_empty() {
        return Err(OnlineError::Unsupported {
            why: "a store timing other than snapshot is defined for unicast packets only",
        });
    }
    let links = net.links() as usize;
    let per_message = per_message as u32;
    // The run on `store`, of queues of `q` units (each store its own `Sim` type).
    macro_rules! run {
        ($store:expr, $q:expr) => {{
            let sim = Sim::new(net, injections, mc, config, seed, per_message, $store, $q)?;
            drive(
                Run::new(sim, net),
                net,
                config.max_steps,
                config.check_conservation,
            )
        }};
    }
    macro_rules! inline {
        ($record:ty, $q:literal) => {{
            let mut records = Records::<$record>::new(links);
            run!(Links::<$record, $q>(records.slice()), $q)
        }};
    }
    match config.queue {
        QueueCapacity::Bounded(1) => inline!(Record2, 1),
        QueueCapacity::Bounded(2) => inline!(Record2, 2),
        QueueCapacity::Bounded(3) => inline!(Record4, 3),
        QueueCapacity::Bounded(MAX_INLINE) => inline!(Record4, 4),
        QueueCapacity::Bounded(q) if q <= MAX_RING && rings_fit(links, q) && !forced_deques() => {
            let q = q as usize;
            let mut fields = Records::<LinkFields>::new(links);
            let mut units = Records::<C64>::new(links * q);
            let store = Rings {
                fields: fields.slice(),
                units: units.slice(),
                q,
            };
            run!(store, q)
        }
        queue => {
            let q = match queue {
                QueueCapacity::Bounded(q) => q as usize,
                QueueCapacity::Unbounded => usize::MAX,
            };
            run!(Deques::new(links), q)
        }
    }
}

/// A set of indices as a bit per index with a summary bit per 64-bit word: a pass over the
/// set costs one read per 4,096 indices plus one per non-zero word, so an idle network costs
/// (almost) nothing per step. Words are visited in increasing order, the order of the
/// indices. A word has one writer per phase of a step ([`Marks::set`], [`Marks::remove`]),
/// or several with [`Marks::set_shared`]; summary bits are set atomically.
#[derive(Debug, Default)]
struct Marks {
    words: Vec<C64>,
    /// Bit `j` of `summary[i]`: whether `words[64·i + j]` may be non-zero (set with every
    /// bit, cleared when a visit finds the word zero).
    summary: Vec<C64>,
}

impl Marks {
    fn new(bits: usize) -> Self {
        let words = bits.div_ceil(64);
        Self {
            words: words64(words),
            summary: words64(words.div_ceil(64)),
        }
    }

    /// Sets bit `i` (the word's one writer).
    #[inline(always)]
    fn set(&self, i: usize) {
        self.words[i / 64].or(1 << (i % 64));
        self.summary[i / 4096].fetch_or(1 << ((i / 64) % 64));
    }

    /// Sets bit `i` when other threads may set bits of its word in the same phase.
    #[inline(always)]
    fn set_shared(&self, i: usize) {
        self.words[i / 64].fetch_or(1 << (i % 64));
        self.summary[i / 4096].fetch_or(1 << ((i / 64) % 64));
    }

    /// Clears bit `i` (the summary is tidied at the next [`Marks::collect`]).
    #[inline(always)]
    fn remove(&self, i: usize) {
        self.words[i / 64].and_not(1 << (i % 64));
    }

    #[inline(always)]
    fn word(&self, w: usize) -> u64 {
        self.words[w].get()
    }

    /// The set bits of words `words` (indices into the set, increasing), each word read
    /// when the iteration reaches it.
    #[inline(always)]
    fn ones<'s>(&'s self, words: &'s [u32]) -> impl Iterator<Item = usize> + 's {
        words.iter().flat_map(move |&wi| {
            let mut bits = self.word(wi as usize);
            std::iter::from_fn(move || {
                (bits != 0).then(|| {
                    let i = wi as usize * 64 + bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    i
                })
            })
        })
    }

    /// Whether no bit is set (one read per summary word and per word it marks).
    fn is_empty(&self) -> bool {
        self.summary.iter().enumerate().all(|(i, s)| {
            let mut bits = s.get();
            while bits != 0 {
                if self.words[i * 64 + bits.trailing_zeros() as usize].get() != 0 {
                    return false;
                }
                bits &= bits - 1;
            }
            true
        })
    }

    /// Writes the indices of the non-zero words to `out` (cleared first), in increasing
    /// order, and drops the summary bits of zero words.
    fn collect(&mut self, out: &mut Vec<u32>) {
        out.clear();
        for (i, s) in self.summary.iter().enumerate() {
            let mut bits = s.get();
            let mut keep = bits;
            while bits != 0 {
                let j = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                let w = i * 64 + j;
                if self.words[w].get() == 0 {
                    keep &= !(1 << j);
                } else {
                    out.push(w as u32);
                }
            }
            s.set(keep);
        }
    }
}

/// What every move needs to know of an input (a link's queue, or a processor's injection
/// queue): its bit in its node's masks, `word << 6 | bit`, or, for exactly the ejection
/// links (which are not scanned), [`EJECTION`] with the terminal's node. Four bytes: the node
/// that scans an input is its word's ([`Sim::node_of`]), so a link's record has room for its
/// crossings.
#[derive(Clone, Copy, Debug, Default, FromBytes, IntoBytes, KnownLayout)]
#[repr(transparent)]
struct InputInfo {
    slot: u32,
}

/// The bit of an ejection link's [`InputInfo`] (mask words are fewer than 2^31: `MAX_LINKS`).
const EJECTION: u32 = 1 << 31;

impl InputInfo {
    /// An input: bit `bit` of mask word `word`.
    #[inline]
    fn input(word: u32, bit: u32) -> Self {
        Self {
            slot: word << 6 | bit,
        }
    }
    /// An ejection link into terminal `node`.
    #[inline]
    fn ejection(node: u32) -> Self {
        Self {
            slot: EJECTION | node,
        }
    }
    #[inline(always)]
    fn is_ejection(self) -> bool {
        self.slot & EJECTION != 0
    }
    /// The node of facts `self`: an ejection link's terminal, else the node of its mask
    /// word, which is the word itself when every node has one (`one_word`), else
    /// `word_node`'s.
    #[inline(always)]
    fn node(self, one_word: bool, word_node: &[u32]) -> u32 {
        if self.is_ejection() {
            self.slot & !EJECTION
        } else if one_word {
            self.slot >> 6
        } else {
            word_node[(self.slot >> 6) as usize]
        }
    }
    #[inline]
    fn word(self) -> usize {
        (self.slot >> 6) as usize
    }
    #[inline]
    fn bit(self) -> u64 {
        1 << (self.slot & 63)
    }
}

#[cfg(test)]
thread_local! {
    /// Test only: runs started on this thread decide their nodes in decreasing order.
    pub(super) static REVERSE_NODES: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// Test only: runs started on this thread keep wait masks at least this wide (`wait`),
    /// and find every node's mask words through `node_word`.
    pub(super) static WAIT_WIDTH: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    /// Test only: wait masks per link beyond 64 inputs too, not node-wide wakes (`wait`).
    pub(super) static PER_LINK_WAITS: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// Test only: bounded queues deeper than `MAX_INLINE` in `Deques`, not `Rings`.
    pub(super) static FORCE_DEQUES: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether the rings of `links` links with queues of `q` units fit [`MAX_RING_SLOTS`].
fn rings_fit(links: usize, q: u32) -> bool {
    (links as u64).saturating_mul(u64::from(q)) <= MAX_RING_SLOTS
}

/// Whether a test asked for [`Deques`] where [`Rings`] would do ([`FORCE_DEQUES`]).
fn forced_deques() -> bool {
    #[cfg(test)]
    return FORCE_DEQUES.with(std::cell::Cell::get);
    #[cfg(not(test))]
    false
}

/// Per word of 64 nodes, the key of its first node: the smallest processor index among the
/// processors at the least distance from it (a breadth-first search from every injection
/// node at once, over the links). On the trees, where nodes are numbered level by level, this
/// is the first processor of the node's subtree, so parts made of the words whose keys fall
/// in one processor range ([`Sim::parts_by_key`]) hold whole subtrees rather than a slice of
/// levels: a move then rarely touches a record or a mask word another thread touches in the
/// same phase.
fn locality_keys(net: &PacketNet, head: impl Fn(u32) -> u32) -> Vec<u32> {
    nearest_processors(net, head)
        .chunks(64)
        .map(|c| c[0])
        .collect()
}

/// Per node, the smallest processor index among the processors whose injection nodes are
/// nearest to it (`NONE` if none reaches it); see [`locality_keys`]. `head` gives a link's
/// head (a run reads it from the link's record).
fn nearest_processors(net: &PacketNet, head: impl Fn(u32) -> u32) -> Vec<u32> {
    let nodes = net.nodes() as usize;
    let mut key = vec![NONE; nodes];
    // The nodes at the current distance from the nearest injection node, and those found at
    // the next one, as bit sets (a bit a node: at 2^20 processors on the 4-ary n-tree, lists
    // and a distance per node were 45 MB more at the run's peak).
    let mut frontier = vec![0u64; nodes.div_ceil(64)];
    for p in 0..net.processors() {
        let v = net.injection_node(p) as usize;
        if key[v] == NONE {
            key[v] = p;
            frontier[v / 64] |= 1 << (v % 64);
        }
    }
    let (mut next, mut out) = (vec![0u64; frontier.len()], Vec::new());
    loop {
        let mut found = false;
        for (wi, &word) in frontier.iter().enumerate() {
            let mut w = word;
            while w != 0 {
                let v = wi * 64 + w.trailing_zeros() as usize;
                w &= w - 1;
                let kv = key[v];
                net.out_links_into(v as u32, &mut out);
                for &e in &out {
                    let h = head(e) as usize;
                    let bit = 1u64 << (h % 64);
                    if key[h] == NONE {
                        key[h] = kv;
                        next[h / 64] |= bit;
                        found = true;
                    } else if next[h / 64] & bit != 0 && key[h] > kv {
                        // Reached at the same distance from several: the smallest key.
                        key[h] = kv;
                    }
                }
            }
        }
        if !found {
            return key;
        }
        std::mem::swap(&mut frontier, &mut next);
        next.fill(0);
    }
}

/// How a node orders its ready inputs ([`Sim::decide_node`]), from the scan policy.
#[derive(Clone, Copy, Debug)]
struct ScanShape {
    /// By a per-worm key (FF, oldest first, priorities), ties by rank.
    keyed: bool,
    /// Fixed ranks: FO, and FF with fixed ties; otherwise RR from a random start.
    fixed: bool,
    /// Fixed ranks in reversed construction order.
    reversed: bool,
}

impl ScanShape {
    fn of(config: &PacketConfig) -> Self {
        let keyed = !matches!(config.scan, ScanPolicy::RoundRobin | ScanPolicy::FixedOrder);
        let fixed = config.scan == ScanPolicy::FixedOrder
            || (config.scan == ScanPolicy::FarthestFirst
                && config.farthest_ties == FarthestTies::FixedOrder);
        let reversed = fixed && config.fixed_order == FixedInputOrder::Reversed;
        Self {
            keyed,
            fixed,
            reversed,
        }
    }
}

struct Sim<'a, S> {
    config: &'a PacketConfig,
    injections: &'a [Injection],
    mc: Mc<'a>,
    /// The first multicast worm (unicast worms come first).
    mc_first: u32,
    /// The in-run draws, keyed by step and node or input (`draws`).
    draws: Draws,
    /// The draws of the current step.
    now: StepDraws,
    /// Units per worm: `L` for wormhole, 1 otherwise.
    unit_len: u32,
    /// Whether worms own links (`unit_len > 1`). Then the per-step flag of a link is never
    /// needed: a head takes only unowned links and owns the link from then on, so no other
    /// head enters it this step; a body unit enters only its worm's own next link, and only
    /// the front of the one queue before that link can (one unit per step).
    owned: bool,
    /// Worms per message: `L` for split, 1 otherwise.
    per_message: u32,
    /// `per_message` as a [`Divisor`] ([`Sim::message_of`]).
    per_message_div: Divisor,
    /// Whether every processor's sink is a terminal (then a unit arrives exactly when it
    /// crosses an ejection link).
    terminal_sinks: bool,
    q: usize,
    /// Whether heads follow the route fixed at their source (`PacketNet::source_routed`).
    source_routed: bool,
    /// [`StoreTiming`] (a): a blocked RP draw may take another candidate in the same step.
    other_up: bool,
    /// [`StoreTiming`] (b): decisions to a fixed point, into queues freed in the same step.
    same_step: bool,
    /// [`StoreTiming::StickyDraw`]: an RP draw is kept until the head moves.
    sticky: bool,
    /// Route slots per worm: its destination's ejection node, then (`keep_routes`) its
    /// route.
    stride: usize,
    /// Whether worms keep their routes (source routes, or RP draws kept until the head moves).
    keep_routes: bool,
    links: u32,
    /// Whether link records are prefetched ([`PREFETCH_LINKS`]).
    prefetch: bool,
    /// Whether every node has exactly one mask word (1 to 64 inputs), the word of its own
    /// number ([`Sim::words_of`]).
    one_word: bool,

    // Per worm: its destination's ejection node, then its route (`stride` links); empty when
    // nothing reads them (every sink a terminal, no route kept).
    route: Vec<C32>,
    /// Per message, its scan key (keyed scans only; empty otherwise).
    key: Vec<u64>,
    /// Per unicast message, its destination. Indexed by message rather than by worm: SPLIT's
    /// `L` worms of a message share it, and a head's next hops read it at every decision, so
    /// a table per worm (512 KB at N = 4096) missed the caches where this one (16 KB) hits.
    msg_dst: Vec<u32>,
    // Per message: units still to arrive, releases and deliveries.
    remaining: Vec<u32>,
    ledger: Ledger<'a>,

    // Per link.
    store: S,
    /// Ejection links with a unit for their terminal to drain.
    eject_busy: Marks,
    /// Wait masks per [`Event`] (`wait`).
    wait: WaitMasks,
    /// Per link, its tail node (the network's).
    link_tail: &'a [u32],
    /// Whether links come in reversed pairs, `2c` and `2c + 1` (`Sim::tail_of`).
    paired: bool,
    /// Per processor, its injection queue ([`InjQueue`]): the messages released to it, in
    /// release order, as a list through `inj_next` from its `msg` to `inj_last`. Sixteen
    /// bytes a processor and four a message, where a vector of worms per processor took
    /// about 56 bytes a processor (63 MB at 2^20 processors).
    inj: Vec<InjQueue>,
    inj_last: Vec<u32>,
    /// Per message, the next message of its source's injection queue.
    inj_next: Vec<u32>,
    // Per injection queue (input `links + p`; a link's are in its record, `Store::info`).
    info: Vec<InputInfo>,
    // Per node (empty when every node has one mask word: `one_word`).
    node_word: Vec<u32>,
    /// Per mask word, its node (empty when every node has one word: `one_word`).
    word_node: Vec<u32>,
    /// Per mask word, its non-empty and its asleep inputs.
    masks: NodeMasks,
    active: Marks,
    /// Scratch: the non-zero words of `active` or `eject_busy` in a pass.
    word_list: Vec<u32>,
    /// Per word of `active`, its part in a threaded step of `locals.len()` parts
    /// ([`Sim::parts_by_key`], computed at the first threaded step).
    word_part: Vec<u32>,
    /// Scratch of a threaded step: its active words by part.
    word_sorted: Vec<u32>,

    // Per input, multicast runs only: the children the front unit has been copied to.
    done: Vec<C64>,

    /// Test only: decide the active nodes in decreasing order ([`Sim::decide_node`]).
    #[cfg(test)]
    reverse_nodes: bool,

    // Counters.
    released_units: u64,
    /// Units created by multicast copying (one per copy beyond the first).
    spawned_units: u64,
    arrived_units: u64,
    queued: u64,
    pending_inj: u64,
    dilation: u32,
    unit_hops: u64,
    queued_sum: u128,
    max_queue: u32,
    /// Units moved in the last step (whether the next runs on threads).
    last_moves: u64,

    /// Walk mode ([`Sim::start_walks`]): the body units of worms move by their worms' walks
    /// ([`Sim::walk_link`]), and an input counts as non-empty only while a head is at its
    /// front, so node scans decide heads alone.
    walk: bool,
    /// Walk mode, per unicast worm: where its walk starts and, in lazy walks, its links'
    /// counts ([`WormWalk`]).
    ww: Vec<WormWalk>,
    /// Lazy walks ([`Sim::walk_lazy`]): a worm's links between its front and its rear keep
    /// their units in the worm's counts, not in their records.
    lazy: bool,
    /// Lazy walks with queues of 4 to 15 units: the worms' counts are `u128` ([`Counts`]),
    /// their high words here, per worm.
    wide_counts: bool,
    cnt_hi: Vec<C64>,
    /// Walk mode, per unicast worm: whether it is in `Local::flying` or `Local::woken`.
    listed: Vec<C8>,
    /// Walk mode: the part whose list of worms to walk takes the next worm woken.
    next_part: usize,
}

/// A processor's injection queue ([`Sim::inj`]): its front message (`NONE`: empty), that
/// message's worm at the front (`part`, of `per_message`) and that worm's next unit (`seq`),
/// and the first link of that worm once its head has left ([`Sim::front_fwd`]). One record,
/// so that a walk whose tail is still at its source reads one cache line, not four: with
/// four arrays the loads of the front's fields were 12 % of a 4-ary 10-tree run's walks.
#[derive(Debug)]
#[repr(align(16))]
struct InjQueue {
    msg: C32,
    fwd: C32,
    part: C16,
    seq: C16,
}

impl Default for InjQueue {
    fn default() -> Self {
        Self {
            msg: C32::new(NONE),
            fwd: C32::new(NONE),
            part: C16::new(0),
            seq: C16::new(0),
        }
    }
}

/// Walk mode, a unicast worm's walk ([`Sim::ww`]): the input that holds its tail (`rear`:
/// its source's injection queue until the tail leaves it; `NONE` before its head leaves the
/// injection queue and after its tail arrives) and, in lazy walks ([`Sim::walk_lazy`]), the
/// link that holds its head (`front`; once the head arrived, the link it arrived by; the
/// injection queue when the head arrived from there) and the worm's units in each link from
/// `front` back to `rear` (`cnt`, [`Counts`], `front`'s lowest). One record, so
/// that a walk starts with one read.
#[derive(Debug)]
#[repr(align(16))]
struct WormWalk {
    cnt: C64,
    rear: C32,
    front: C32,
}

impl Default for WormWalk {
    fn default() -> Self {
        Self {
            cnt: C64::new(0),
            rear: C32::new(NONE),
            front: C32::new(NONE),
        }
    }
}

/// What one thread of a step keeps for itself: its part of the nodes, the moves its nodes
/// decided, the effects it leaves to the owners of other nodes, its counts, and scratch.
/// A run on one thread has one, owning every node.
#[derive(Debug, Default)]
struct Local {
    /// The active words it owns in a threaded step: `first..end` of the step's list.
    first: u32,
    end: u32,
    /// Its part in a threaded step ([`Sim::parts_by_key`]).
    part: u32,

    /// The inputs whose front units its nodes decided to move (each input's link is in its
    /// record: [`Sim::move_link`]).
    moves: Vec<u32>,
    /// Links its moves' tails (now worms' heads or body units) enter, with the unit packed in
    /// two halves (12 bytes an entry where `(u32, Unit)` took 16; two-phase apply only).
    to_push: Vec<(u32, [u32; 2])>,
    /// Links that took a unit in this step's apply and may have raised the largest queue.
    pushed: Vec<u32>,
    used_list: Vec<u32>,
    copies: Vec<CopyMove>,
    /// Messages whose last unit arrived in this step.
    tails: Vec<u32>,
    /// Whether it is one of several parts of a step: its apply phases then set and clear
    /// other nodes' bits (non-empty, asleep, active) atomically ([`Sim::mark_nonempty`],
    /// [`Sim::wake`]).
    shared: bool,

    // Counts of the step.
    unit_hops: u64,
    arrived_units: u64,
    spawned_units: u64,
    queued_in: u64,
    queued_out: u64,
    injected: u64,
    dilation: u32,
    max_queue: u32,

    // Scratch.
    closed: Vec<(u32, Event)>,
    cands: Vec<u32>,
    order: Vec<(u64, u32, u32)>,

    // Same-step reading only (one thread): links whose front unit leaves this step (bit
    // set), their list, the blocked heads (node, input, RP draw or `NONE`, settled), per link
    // the first of its waiters (`NONE`: none) with the links that have some, the waiters
    // (entry, next waiter of the same link), the entries to decide again, per input whether
    // a sleeping head was queued in this step (bit set), and the units popped.
    leaving: Vec<u64>,
    leaving_list: Vec<u32>,
    blocked: Vec<(u32, u32, u32, bool)>,
    waiter_head: Vec<u32>,
    waited_links: Vec<u32>,
    waiters: Vec<(u32, u32)>,
    work: VecDeque<u32>,
    queued_inputs: Vec<u64>,
    popped: Vec<Unit>,

    // Walk mode only: the worms to walk in the next step, the worms woken in this one (added
    // to `flying` at its end), whether the units moving are walked ones (then an ejection
    // queue they enter is marked busy after the step's drain, from `eject_later`).
    flying: Vec<u32>,
    woken: Vec<u32>,
    walking: bool,
    eject_later: Vec<u32>,
    /// Lazy walks: links whose front unit (a worm's, with a younger worm's head behind it)
    /// left in a walk, popped with the heads' moves ([`Sim::walk_lazy`]).
    pops: Vec<u32>,
}

impl<'a, S: Store> Sim<'a, S> {
    /// The part of every active word in a threaded step of `parts` parts ([`locality_keys`]),
    /// once per run, before its first threaded step (and outside the time `Pace` measures: at
    /// 2^20 processors the search takes longer than a step, and measured with the step it
    /// made threaded steps look slower than they are).
    fn find_parts(&mut self, parts: usize, net: &PacketNet) {
        if !self.word_part.is_empty() {
            return;
        }
        let span = u64::from(net.processors()).max(1);
        let (store, one_word, word_node) = (&self.store, self.one_word, &self.word_node);
        self.word_part = locality_keys(net, |e| store.info(e as usize).node(one_word, word_node))
            .into_iter()
            .map(|key| (u64::from(key) * parts as u64 / span).min(parts as u64 - 1) as u32)
            .collect();
    }

    #[allow(clippy::too_many_arguments)]
    fn new(
        net: &'a PacketNet,
        injections: &'a [Injection],
        mc: Mc<'a>,
        config: &'a PacketConfig,
        seed: u64,
        per_message: u32,
        mut store: S,
        q: usize,
    ) -> Result<Self, OnlineError> {
        let mut rng = Pcg64::seed_from_u64(seed);
        let links = net.links();
        let unit_len = match config.flow {
            FlowControl::Wormhole => config.flits,
            _ => 1,
        };
        let unicast_worms = injections.len() * per_message as usize;
        let messages = injections.len() + mc.multicasts.len();
        let max_hops = u64::from(net.max_hops());

        // Scan keys, smallest first: priorities drawn in message order.
        let mut key = Vec::with_capacity(messages);
        let mut msg_dst = Vec::with_capacity(injections.len());
        for m in injections {
            let k = match config.scan {
                ScanPolicy::FarthestFirst => max_hops - u64::from(net.distance(m.src, m.dst)),
                ScanPolicy::OldestFirst => m.release,
                ScanPolicy::RandomPriority { range } => u64::from(rng.random_range(1..=range)),
                // Rejected by `validate` on input queues.
                ScanPolicy::RoundRobin | ScanPolicy::FixedOrder | ScanPolicy::Labelled => 0,
            };
            key.push(k);
            msg_dst.push(m.dst);
        }
        let mut remaining = vec![per_message; injections.len()];
        for m in mc.multicasts {
            let tree = &mc.trees[m.tree as usize];
            let k = match config.scan {
                ScanPolicy::FarthestFirst => max_hops.saturating_sub(u64::from(tree.height())),
                ScanPolicy::OldestFirst => m.release,
                ScanPolicy::RandomPriority { range } => u64::from(rng.random_range(1..=range)),
                // Rejected by `validate` on input queues.
                ScanPolicy::RoundRobin | ScanPolicy::FixedOrder | ScanPolicy::Labelled => 0,
            };
            key.push(k);
            remaining.push(per_message * tree.dsts().len() as u32);
        }

        // Source routes, drawn in worm order after the priorities; the route records are as
        // long as the longest route drawn (a fabric's numbered paths may be longer than the
        // shortest paths `max_hops` bounds under `RouteSource::ShortestPaths`).
        let source_routed = net.source_routed(config.path);
        let (mut path_channels, mut path_links): (Vec<ChannelId>, _) = (Vec::new(), Vec::new());
        let mut drawn: Vec<u32> = Vec::new();
        let mut longest = net.max_hops();
        if source_routed {
            for m in injections {
                for _ in 0..per_message {
                    if m.src == m.dst {
                        drawn.push(0);
                        continue;
                    }
                    net.source_path(
                        m.src,
                        m.dst,
                        config.path,
                        &mut rng,
                        &mut path_channels,
                        &mut path_links,
                    )?;
                    drawn.push(path_links.len() as u32);
                    drawn.extend_from_slice(&path_links);
                    longest = longest.max(path_links.len() as u32);
                }
            }
        }
        // A worm's route is read back only when it is fixed at its source or when an RP draw
        // is kept until the head moves; otherwise each worm keeps its destination's ejection
        // node only (a route of 21 links is 84 bytes a worm at 2^20 endpoints, and the head's
        // write to it a cache miss, every flit's under SPLIT).
        let keep_routes = source_routed || config.store_timing == StoreTiming::StickyDraw;
        let stride = if keep_routes {
            longest.max(1) as usize + 1
        } else {
            1
        };
        // Every draw of the run itself is keyed by this (`draws`).
        let draws = Draws::new(rng.random());

        let nodes = net.nodes() as usize;

        // Input slots: node v's inputs are bits of words node_word[v]..node_word[v+1].
        let mut node_word = Vec::with_capacity(nodes + 1);
        let inputs = links as usize + net.processors() as usize;
        // Links keep their facts as inputs in their own record; `info` keeps the injection
        // queues' (input `links + p`).
        let mut info = vec![InputInfo::default(); net.processors() as usize];
        // Ejection links are no node's inputs (module `net`): they keep their terminal. Every
        // other link is an input of its head, and gets its facts below.
        for (e, head) in net.ejection_links() {
            store.set_info(e as usize, InputInfo::ejection(head));
        }
        let mut words = 0u32;
        let mut max_inputs = 0;
        for v in 0..nodes as u32 {
            node_word.push(words);
            let of_v = net.inputs_of(v);
            let new_words = of_v.len().div_ceil(64) as u64;
            if u64::from(words) + new_words > u64::from(EJECTION >> 6) {
                return Err(OnlineError::TooLarge {
                    what: "input mask words (a word per 64 inputs of a node)",
                    value: u64::from(words) + new_words,
                    max: u64::from(EJECTION >> 6),
                });
            }
            for (i, &inp) in of_v.iter().enumerate() {
                let facts = InputInfo::input(words + (i / 64) as u32, (i % 64) as u32);
                if inp < links {
                    store.set_info(inp as usize, facts);
                } else {
                    info[(inp - links) as usize] = facts;
                }
            }
            max_inputs = max_inputs.max(of_v.len());
            words += new_words as u32;
        }
        node_word.push(words);
        let one_word = node_word.iter().enumerate().all(|(v, &w)| w as usize == v);
        #[cfg(test)]
        let max_inputs = max_inputs.max(WAIT_WIDTH.with(std::cell::Cell::get));
        // Test only: wide wait masks also take the general path to the mask words.
        #[cfg(test)]
        let one_word = one_word && WAIT_WIDTH.with(std::cell::Cell::get) == 0;
        // The same-step reading asks which inputs wait for one link (`Sim::wake_into_work`).
        let per_link_waits = config.store_timing.same_step();
        #[cfg(test)]
        let per_link_waits = per_link_waits || PER_LINK_WAITS.with(std::cell::Cell::get);
        // A link's tail, from its partner's record where links pair up (`Sim::tail_of`).
        let paired = net.paired();
        let tails = net.stored_tails();
        let word_node: Vec<u32> = if one_word {
            Vec::new()
        } else {
            let mut of = vec![0; words as usize];
            for (v, w) in node_word.windows(2).enumerate() {
                of[w[0] as usize..w[1] as usize].fill(v as u32);
            }
            of
        };
        let tail = |e: u32| {
            if paired {
                store.info(e as usize ^ 1).node(one_word, &word_node)
            } else {
                tails[e as usize]
            }
        };
        let wait = WaitMasks::new(
            nodes,
            max_inputs,
            per_link_waits,
            (0..links).map(|e| {
                let t = tail(e) as usize;
                node_word[t + 1] - node_word[t]
            }),
        )?;
        // Nothing reads the destinations' ejection nodes where every sink is a terminal and no
        // route is kept (a unit arrives when it crosses an ejection link): no route records.
        let mut route = if keep_routes || !net.terminal_sinks {
            vec![NONE; unicast_worms * stride]
        } else {
            Vec::new()
        };
        for w in 0..route.len() / stride {
            let dst = msg_dst[w / per_message as usize];
            route[w * stride] = net.ejection_node[dst as usize];
        }
        if source_routed {
            // `drawn` holds, per unicast worm, its route's length and then its links.
            let mut at = 0;
            for w in 0..unicast_worms {
                let len = drawn[at] as usize;
                route[w * stride + 1..w * stride + 1 + len]
                    .copy_from_slice(&drawn[at + 1..at + 1 + len]);
                at += 1 + len;
            }
            drop(drawn);
        }

        let processors = net.processors() as usize;
        let sim = Sim {
            config,
            injections,
            mc,
            mc_first: unicast_worms as u32,
            draws,
            now: StepDraws::default(),
            unit_len,
            owned: unit_len > 1,
            per_message,
            per_message_div: Divisor::new(per_message),
            terminal_sinks: net.terminal_sinks,
            q,
            source_routed,
            other_up: config.store_timing.other_up_link(),
            same_step: config.store_timing.same_step(),
            sticky: config.store_timing == StoreTiming::StickyDraw,
            stride,
            keep_routes,
            links,
            prefetch: links >= PREFETCH_LINKS,
            one_word,
            route: route.into_iter().map(C32::new).collect(),
            // Only the keyed scans read the keys (8 bytes a message).
            key: if ScanShape::of(config).keyed {
                key
            } else {
                Vec::new()
            },
            msg_dst,
            remaining,
            ledger: Ledger::new(injections, mc.multicasts, config),
            store,
            eject_busy: Marks::new(links as usize),
            wait,
            link_tail: tails,
            paired,
            inj: std::iter::repeat_with(InjQueue::default)
                .take(processors)
                .collect(),
            inj_last: vec![NONE; processors],
            inj_next: vec![NONE; messages],
            info,
            // Every node's words are its own number when it has one: no table (15 MB at 2^20
            // processors on the 4-ary n-tree).
            node_word: if one_word { Vec::new() } else { node_word },
            word_node,
            masks: NodeMasks::new(words as usize, one_word && max_inputs <= 8),
            active: Marks::new(nodes),
            word_list: Vec::new(),
            word_sorted: Vec::new(),
            word_part: Vec::new(),
            done: if mc.multicasts.is_empty() {
                Vec::new()
            } else {
                words64(inputs)
            },
            #[cfg(test)]
            reverse_nodes: REVERSE_NODES.with(std::cell::Cell::get),
            released_units: 0,
            spawned_units: 0,
            arrived_units: 0,
            queued: 0,
            pending_inj: 0,
            dilation: 0,
            unit_hops: 0,
            queued_sum: 0,
            max_queue: 0,
            last_moves: 0,
            walk: false,
            ww: Vec::new(),
            lazy: false,
            wide_counts: false,
            cnt_hi: Vec::new(),
            listed: Vec::new(),
            next_part: 0,
        };
        Ok(sim)
    }

    /// Source and (unicast only) destination of message `m`.
    #[inline]
    fn endpoints_of(&self, m: usize) -> (u32, Option<u32>) {
        match self.injections.get(m) {
            Some(inj) => (inj.src, Some(inj.dst)),
            None => {
                let mc = &self.mc.multicasts[m - self.injections.len()];
                (self.mc.trees[mc.tree as usize].src(), None)
            }
        }
    }

    /// The tree of multicast worm `worm`.
    #[inline]
    fn tree_of(&self, worm: u32) -> &'a MulticastTree {
        let m = self.message_of(worm as usize) - self.injections.len();
        &self.mc.trees[self.mc.multicasts[m].tree as usize]
    }

    /// The message of worm `worm`: `worm / per_message`, by a multiplication ([`Divisor`];
    /// worms are below `NONE`, so `u32`). A division here, read at every head decision of a
    /// SPLIT run, cost more than the decision.
    #[inline(always)]
    fn message_of(&self, worm: usize) -> usize {
        self.per_message_div.quotient(worm as u32) as usize
    }

    /// Records that the unit at the front of input `inp` moves on link `e` this step (a head:
    /// its worm's body follows, [`Sim::front_fwd`]; every move: [`Sim::move_link`]).
    #[inline(always)]
    fn set_fwd(&self, inp: u32, e: u32) {
        if inp < self.links {
            self.store.set_fwd(inp as usize, e);
        } else {
            self.inj[(inp - self.links) as usize].fwd.set(e);
        }
    }

    /// The node that scans the input of facts `i` (a terminal for an ejection link).
    #[inline(always)]
    fn node_of(&self, i: InputInfo) -> u32 {
        i.node(self.one_word, &self.word_node)
    }

    /// The facts of input `inp` (a link, or an injection queue).
    #[inline(always)]
    fn input_info(&self, inp: u32) -> InputInfo {
        if inp < self.links {
            self.store.info(inp as usize)
        } else {
            self.info[(inp - self.links) as usize]
        }
    }

    /// Marks the input of facts `info` non-empty, and its node active. `shared` on the
    /// threads of a step, where several tails may push into one node's inputs in the same
    /// phase: the bits are then set atomically.
    #[inline(always)]
    fn mark_nonempty(&self, info: InputInfo, shared: bool) {
        if shared {
            self.masks.fetch_or(NONEMPTY, info.word(), info.bit());
            self.active.set_shared(self.node_of(info) as usize);
        } else {
            self.masks.or(NONEMPTY, info.word(), info.bit());
            self.active.set(self.node_of(info) as usize);
        }
    }

    /// Marks input `inp` empty (`shared`: atomically, on the threads of a step).
    #[inline]
    fn mark_empty(&self, inp: u32, shared: bool) {
        let i = self.input_info(inp);
        if shared {
            self.masks.fetch_and_not(NONEMPTY, i.word(), i.bit());
        } else {
            self.masks.and_not(NONEMPTY, i.word(), i.bit());
        }
    }

    #[inline]
    fn front(&self, inp: u32) -> Unit {
        if inp < self.links {
            self.store.queue_front(inp as usize)
        } else {
            let p = (inp - self.links) as usize;
            Unit {
                worm: self.inj[p].msg.get() * self.per_message + u32::from(self.inj[p].part.get()),
                seq: self.inj[p].seq.get(),
                hop: 0,
            }
        }
    }

    /// The front unit of input `inp` and the link its worm continues on: the link its head
    /// took from `inp` (wormhole only). A queue is FIFO and a worm's units are consecutive in
    /// it, so the front's worm is the one whose head left `inp` last: its body units read
    /// their next link here, in the input's own record (one look at it for both), rather
    /// than in the worm's route (a random access per unit on a large network).
    #[inline(always)]
    fn front_fwd(&self, inp: u32) -> (Unit, u32) {
        if inp < self.links {
            self.store.front_fwd(inp as usize)
        } else {
            (
                self.front(inp),
                self.inj[(inp - self.links) as usize].fwd.get(),
            )
        }
    }

    /// Whether a head may take link `e` this step.
    #[inline]
    fn free_for_head(&self, e: u32) -> bool {
        let g = self.store.gate(e as usize);
        (self.owned || !g.used) && !g.owned && g.len < self.q
    }

    /// Whether link `e` stays closed to a head until it pops or is released.
    #[inline]
    fn closed_for_head(&self, e: u32) -> bool {
        let g = self.store.gate(e as usize);
        g.owned || g.len >= self.q
    }

    /// Registers input `inp` (asleep, `bit` in its node's masks at word `word`) in link `e`'s
    /// wait mask for `event` (`e` leaves the input's node).
    #[inline(always)]
    fn wait_on(&self, inp_word: usize, node: u32, bit: u64, e: u32, event: Event) {
        let offset = inp_word - self.words_of(node).0;
        self.wait.sleep(event, e as usize, node, offset, bit);
        self.store.set_waited(e as usize, event, true);
    }

    /// Puts input `inp` to sleep until one of `links` (all leaving its node) opens for a
    /// head: an owned link when it is released, a full one when it pops.
    #[inline]
    fn sleep_head(&self, inp: u32, links: impl IntoIterator<Item = u32>) {
        let i = self.input_info(inp);
        self.masks.or(ASLEEP, i.word(), i.bit());
        for e in links {
            let event = if self.store.owned(e as usize) {
                Event::Release
            } else {
                Event::Pop
            };
            self.wait_on(i.word(), self.node_of(i), i.bit(), e, event);
        }
    }

    /// Puts input `inp` to sleep until one of `links` (all leaving its node) has its event.
    fn sleep_on(&self, inp: u32, links: &[(u32, Event)]) {
        let i = self.input_info(inp);
        self.masks.or(ASLEEP, i.word(), i.bit());
        for &(e, event) in links {
            self.wait_on(i.word(), self.node_of(i), i.bit(), e, event);
        }
    }

    /// Tries to copy the front unit `u` of input `inp`, a multicast unit, into the child
    /// links it has not reached yet (module documentation of `multicast`): each child takes
    /// its copy under the unicast rules, the unit leaves its queue with its last copy, and it
    /// sleeps when no copy was possible and every missing child is closed until a pop or a
    /// release.
    #[cold]
    fn try_copy(&self, lo: &mut Local, inp: u32, u: Unit) {
        let tree = self.tree_of(u.worm);
        let at = tree.at(u.hop);
        let all = if at.kids() == 64 {
            u64::MAX
        } else {
            (1u64 << at.kids()) - 1
        };
        let mut done = self.done[inp as usize].get();
        let mut closed = std::mem::take(&mut lo.closed);
        closed.clear();
        let mut open = false;
        let first = lo.copies.len();
        for (i, (c, e)) in at.children().zip(tree.child_links(at)).enumerate() {
            if done & (1 << i) != 0 {
                continue;
            }
            let ei = e as usize;
            let go = if u.seq == 0 {
                if self.free_for_head(e) {
                    if self.unit_len > 1 {
                        self.store.set_owned(ei, true);
                    }
                    true
                } else {
                    if self.closed_for_head(e) {
                        let event = if self.store.owned(ei) {
                            Event::Release
                        } else {
                            Event::Pop
                        };
                        closed.push((e, event));
                    } else {
                        open = true;
                    }
                    false
                }
            } else if self.store.queue_len(ei) >= self.q {
                closed.push((e, Event::Pop));
                false
            } else if !self.owned && self.store.used(ei) {
                open = true;
                false
            } else {
                true
            };
            if go {
                if !self.owned {
                    self.store.set_used(ei, true);
                    lo.used_list.push(e);
                }
                done |= 1 << i;
                lo.copies.push(CopyMove {
                    inp,
                    link: e,
                    unit: Unit { hop: c, ..u },
                    pop: false,
                });
            }
        }
        if done == all {
            let last = lo.copies.len() - 1;
            lo.copies[last].pop = true;
            done = 0;
        } else if lo.copies.len() == first && !open && !closed.is_empty() {
            self.sleep_on(inp, &closed);
        }
        self.done[inp as usize].set(done);
        lo.closed = closed;
    }

    /// Puts input `inp` to sleep until link `e` (leaving its node) pops.
    #[inline]
    fn sleep_pop(&self, inp: u32, e: u32) {
        let i = self.input_info(inp);
        self.masks.or(ASLEEP, i.word(), i.bit());
        self.wait_on(i.word(), self.node_of(i), i.bit(), e, Event::Pop);
    }

    /// Node `v`'s mask words, `first..end`: `v..v + 1` when every node has one.
    #[inline(always)]
    fn words_of(&self, v: u32) -> (usize, usize) {
        let v = v as usize;
        if self.one_word {
            (v, v + 1)
        } else {
            (self.node_word[v] as usize, self.node_word[v + 1] as usize)
        }
    }

    /// Link `e`'s tail node: on networks whose links come in reversed pairs, the head of
    /// `e`'s partner, whose record shares `e`'s cache line.
    #[inline(always)]
    fn tail_of(&self, e: usize) -> u32 {
        if self.paired {
            self.node_of(self.store.info(e ^ 1))
        } else {
            self.link_tail[e]
        }
    }

    /// Wakes the inputs waiting for `event` on link `e` (one thread).
    #[inline(always)]
    fn wake(&self, e: usize, event: Event) {
        self.wake_in(e, event, false);
    }

    /// Wakes the inputs waiting for `event` on link `e`: by the thread that owns `e`'s
    /// record in this phase (its tail's owner, or its head's when `e` pops), `shared` when
    /// other threads may wake inputs of the same tail node in the same phase (then its
    /// asleep and active bits are cleared and set atomically).
    #[inline(always)]
    fn wake_in(&self, e: usize, event: Event, shared: bool) {
        if !self.store.waited(e, event) {
            return;
        }
        self.store.set_waited(e, event, false);
        let tail = self.tail_of(e);
        let (base, end) = self.words_of(tail);
        let mut any = false;
        // Node-wide wakes (`wait`): every sleeper of the tail, once per sleep.
        let node_wide = self.wait.take_node(tail);
        if node_wide == Some(true) {
            any = true;
        }
        for j in 0..end - base {
            let w = match node_wide {
                None => self.wait.take(event, e, j),
                Some(true) => self.masks.get(ASLEEP, base + j),
                Some(false) => break,
            };
            if w != 0 {
                if shared {
                    self.masks.fetch_and_not(ASLEEP, base + j, w);
                } else {
                    self.masks.and_not(ASLEEP, base + j, w);
                }
                any = true;
            }
        }
        if any {
            if shared {
                self.active.set_shared(tail as usize);
            } else {
                self.active.set(tail as usize);
            }
        }
    }

    /// Link `e` popped (by its head's owner): wakes the inputs of its tail waiting for it.
    #[inline(always)]
    fn wake_pop(&self, lo: &Local, e: usize) {
        self.wake_in(e, Event::Pop, lo.shared);
    }

    /// Starts walk mode (before the run's first step): [`Run::new`] does so for runs of
    /// unicast wormhole worms, one worm a message, under the snapshot reading, on one thread
    /// or several.
    fn start_walks(&mut self, lazy: bool) {
        let worms = self.mc_first as usize;
        self.walk = true;
        let compiled = if self.q > 3 {
            S::WIDE_COUNTS
        } else {
            S::NARROW_COUNTS
        };
        self.lazy = lazy
            && compiled
            && (2..=MAX_LAZY_QUEUE).contains(&self.q)
            && self.unit_len <= MAX_LAZY_UNITS;
        self.wide_counts = self.lazy && self.q > 3;
        #[cfg(test)]
        LAZY_BITS.with(|b| {
            b.set(match (self.lazy, self.wide_counts) {
                (false, _) => 0,
                (true, false) => u64::BITS,
                (true, true) => u128::BITS,
            })
        });
        if self.wide_counts {
            self.cnt_hi = std::iter::repeat_with(|| C64::new(0)).take(worms).collect();
        }
        self.ww = std::iter::repeat_with(WormWalk::default)
            .take(worms)
            .collect();
        self.listed = std::iter::repeat_with(|| C8::new(0)).take(worms).collect();
    }

    /// Walk mode: worm `w` walks in the next step.
    #[inline(always)]
    fn wake_worm(&self, lo: &mut Local, w: u32) {
        let listed = &self.listed[w as usize];
        if listed.get() == 0 {
            listed.set(1);
            lo.woken.push(w);
        }
    }

    /// Walk mode: link `e` popped `u` (a head left, a walk's unit left after every walk, or
    /// a terminal drained it): the worms whose units may move now walk in the next step.
    /// `u`'s, unless `u` is its tail (its next unit is at `e`'s front, or behind, with room
    /// in `e`), and the one at the back of `e`'s queue (its units enter `e` next). The new
    /// front is `u`'s next unit or a head (which the node scans move). A walk's own pops need
    /// none of this: the walking worm is listed already, and they leave no other worm's unit
    /// at the front.
    #[inline]
    fn wake_behind(&self, lo: &mut Local, e: usize, u: Unit, emptied: bool) {
        if u32::from(u.seq) + 1 < self.unit_len {
            self.wake_worm(lo, u.worm);
        }
        if !emptied {
            self.wake_worm(lo, self.store.queue_back(e).worm);
        }
    }

    /// Walk mode: walks the worms of `lo.flying` ([`Sim::walk_link`]), [`WALKS`] at a time,
    /// a link of each in turn: on a network whose link records miss the caches, each walk
    /// prefetches the record of its next link and the others' turns hide the wait (one walk
    /// at a time spent 87 % of a 4-ary 8-tree run waiting for those records). The order in
    /// which walks take their turns changes nothing: two walks share no link but one whose
    /// move waits for the heads' ([`Sim::walk_link`]). A worm none of whose units moved
    /// leaves the list until a pop lets its units move again ([`Sim::wake_behind`]): only its
    /// own walk, its head's move, a terminal's drain or an older worm's last units leaving
    /// its head's link pop the links it waits on. Returns whether any unit moved.
    fn walk_worms(&self, lo: &mut Local) -> bool {
        // The store's constant first: a width it cannot have is not compiled for it.
        if S::WIDE_COUNTS && self.wide_counts {
            return self.walk_lazies::<u128>(lo);
        } else if S::NARROW_COUNTS && self.lazy {
            return self.walk_lazies::<u64>(lo);
        }
        let mut flying = std::mem::take(&mut lo.flying);
        lo.walking = true;
        let mut walks = [Walk::default(); WALKS];
        let (mut next, mut kept, mut live) = (0, 0, 0);
        let mut any = false;
        while live < WALKS && next < flying.len() {
            walks[live] = self.start_walk(flying[next]);
            next += 1;
            live += 1;
        }
        while live > 0 {
            let mut k = 0;
            while k < live {
                let walk = &mut walks[k];
                if self.walk_link(lo, walk) {
                    k += 1;
                    continue;
                }
                // The walk ended.
                any |= walk.moved;
                if walk.moved && self.ww[walk.w as usize].rear.get() != NONE {
                    flying[kept] = walk.w;
                    kept += 1;
                } else {
                    self.listed[walk.w as usize].set(0);
                }
                if next < flying.len() {
                    if self.prefetch
                        && let Some(&ahead) = flying.get(next + WALKS)
                    {
                        prefetch_index::prefetch_index(&self.ww, ahead as usize);
                    }
                    *walk = self.start_walk(flying[next]);
                    next += 1;
                    k += 1;
                } else {
                    live -= 1;
                    walks[k] = walks[live];
                }
            }
        }
        flying.truncate(kept);
        lo.walking = false;
        lo.flying = flying;
        any
    }

    /// Lazy walks: walks the worms of `lo.flying` ([`Sim::walk_lazy`]) in turn; on a large
    /// network, [`LAZY_AHEAD`] worms ahead the records of a worm's ends are brought into the
    /// cache, and twice as far ahead its walk's state. Returns whether any unit moved.
    fn walk_lazies<C: Counts>(&self, lo: &mut Local) -> bool {
        let mut flying = std::mem::take(&mut lo.flying);
        lo.walking = true;
        let mut kept = 0;
        let mut any = false;
        for i in 0..flying.len() {
            if self.prefetch {
                self.prefetch_lazy::<C>(&flying, i);
            }
            let w = flying[i];
            let moved = self.walk_lazy::<C>(lo, w);
            any |= moved;
            if moved && self.ww[w as usize].rear.get() != NONE {
                flying[kept] = w;
                kept += 1;
            } else {
                self.listed[w as usize].set(0);
            }
        }
        flying.truncate(kept);
        lo.walking = false;
        lo.flying = flying;
        any
    }

    /// Lazy walks, before the walk of `flying[i]`: brings into the cache the state of the
    /// worm [`LAZY_AHEAD`] times 3 ahead, the records of the ends of the worm twice as far
    /// ahead, and for the worm `LAZY_AHEAD` ahead the records its walk may go on to: the link
    /// after its rear (which its tail enters next) and, once its head arrived, the link its
    /// units arrive by. Without the last, these two dependent reads were 47 % of the 4-ary
    /// 10-tree batch's walk samples.
    #[inline(always)]
    fn prefetch_lazy<C: Counts>(&self, flying: &[u32], i: usize) {
        if let Some(&a) = flying.get(i + 3 * LAZY_AHEAD) {
            prefetch_index::prefetch_index(&self.ww, a as usize);
            if C::BITS > 64 {
                prefetch_index::prefetch_index(&self.cnt_hi, a as usize);
            }
        }
        if let Some(&b) = flying.get(i + 2 * LAZY_AHEAD) {
            let ww = &self.ww[b as usize];
            self.prefetch_input(ww.rear.get());
            self.prefetch_input(ww.front.get());
        }
        if let Some(&w) = flying.get(i + LAZY_AHEAD) {
            let ww = &self.ww[w as usize];
            let (rear, front) = (ww.rear.get(), ww.front.get());
            if rear < self.links && rear != front {
                let after = self.store.fwd(rear as usize);
                if after < self.links {
                    self.store.prefetch(after as usize);
                }
            }
            if front < self.links && self.store.queue_len(front as usize) > 0 {
                let (u, after) = self.store.front_fwd(front as usize);
                if u.worm == w && u.seq != 0 && after < self.links {
                    self.store.prefetch(after as usize);
                }
            }
        }
    }

    /// Brings the record of input `inp` into the cache: a link's, or a processor's injection
    /// queue's (none for `NONE`).
    #[inline(always)]
    fn prefetch_input(&self, inp: u32) {
        if inp < self.links {
            self.store.prefetch(inp as usize);
        } else if inp != NONE {
            let p = (inp - self.links) as usize;
            prefetch_index::prefetch_index(&self.inj, p);
        }
    }

    /// Walk mode: the walk of worm `w`, at the input that holds its tail (none, `inp` =
    /// `NONE`, once the tail arrived).
    #[inline(always)]
    fn start_walk(&self, w: u32) -> Walk {
        let rear = self.ww[w as usize].rear.get();
        if self.prefetch {
            self.prefetch_input(rear);
        }
        Walk {
            w,
            rear,
            inp: rear,
            fresh: false,
            moved: false,
        }
    }

    /// Walk mode: one link of a worm's walk: moves the unit at the front of `walk.inp` if it
    /// may, and goes on to the next link; `false` when the walk ends.
    ///
    /// A worm's walk moves its units behind its head that may move in this step, from its
    /// tail forward along the links its head took (each input's `fwd`). A unit at the front
    /// of an input since the start of the step moves when its link's queue is not full: the
    /// snapshot reading's rule for a worm's body (no choice and no competition: a worm owns
    /// the links its body crosses). Walking from the tail, a link is read before any unit
    /// enters or leaves it in the step (only the unit behind it enters it, and its own front
    /// leaves only when the walk gets there), so the lengths read are those of the start of
    /// the step; a unit that entered an empty link in this step does not move on in it. The
    /// walk stops at the worm's head (the node scans move heads), behind an older worm's
    /// units in its head's link, or at the link it arrives by.
    ///
    /// Two worms' walks share one link only: the tail's, when a younger worm's head is
    /// queued behind it. A unit leaving that link joins the heads' moves, applied after every
    /// walk, so that the younger worm's walk reads the link's length at the start of the
    /// step.
    #[inline(always)]
    fn walk_link(&self, lo: &mut Local, walk: &mut Walk) -> bool {
        let (w, inp) = (walk.w, walk.inp);
        if inp == NONE {
            return false;
        }
        // `w`'s tail in its source's injection queue: `w` is its front message.
        let waiting = inp >= self.links || self.store.queue_len(inp as usize) > 0;
        if !walk.fresh && waiting {
            let (u, e) = self.front_fwd(inp);
            if u.worm != w || u.seq == 0 {
                return false;
            }
            debug_assert!(e != NONE);
            let (before, info) = self.store.len_info(e as usize);
            if before < self.q {
                walk.moved = true;
                if inp == walk.rear
                    && inp < self.links
                    && self.store.queue_back(inp as usize).worm != w
                {
                    lo.moves.push(inp);
                } else if inp < self.links
                    && u32::from(u.seq) + 1 < self.unit_len
                    && !self.arrives(info, w)
                {
                    // A body unit from one link of its worm to the next: only the two
                    // queues change (what `pop_input`, `move_unit` and `push_unit` do
                    // besides comes to nothing: the queued count stays, no link is
                    // released, nothing arrives, and the input stays empty for the node
                    // scans).
                    if self.store.shift(inp as usize, e as usize) {
                        self.wake_pop(lo, inp as usize);
                    }
                    lo.unit_hops += 1;
                    if before as u32 >= self.max_queue {
                        lo.pushed.push(e);
                    }
                    self.walk_on(walk, e, before == 0);
                    return true;
                } else {
                    let u = self.pop_input(lo, inp);
                    match self.move_unit(lo, e, u) {
                        Some(next) => self.push_unit(lo, e, next),
                        None => return false,
                    }
                    self.walk_on(walk, e, before == 0);
                    return true;
                }
            }
        }
        let e = self.move_link(inp);
        if self.arrives(self.store.info(e as usize), w) {
            return false;
        }
        self.walk_on(walk, e, false);
        true
    }

    /// Walk mode: `walk` goes on to link `e` (`fresh`: its units all entered in this step),
    /// and brings the record of the link after it into the cache.
    #[inline(always)]
    fn walk_on(&self, walk: &mut Walk, e: u32, fresh: bool) {
        walk.inp = e;
        walk.fresh = fresh;
        if self.prefetch {
            let after = self.store.fwd(e as usize);
            if after < self.links {
                self.store.prefetch(after as usize);
            }
        }
    }

    /// Lazy walks: head `u` crossed link `e` (`arrived`: and arrived). The worm's counts
    /// gain a link in front (`e`, holding the head), or, once the head arrived, lose it from
    /// the front link, which stays the worm's front.
    #[inline(always)]
    fn head_moved<C: Counts>(&self, u: Unit, e: u32, arrived: bool) {
        let w = u.worm as usize;
        let ww = &self.ww[w];
        let hi = &self.cnt_hi[..];
        if u.hop == 0 {
            // From its injection queue (`pop_input` made it the worm's rear).
            ww.front.set(if arrived { ww.rear.get() } else { e });
            C::of(u64::from(!arrived)).store(ww, hi, w);
        } else if arrived {
            (C::load(ww, hi, w) - C::ONE).store(ww, hi, w);
        } else {
            let c = C::load(ww, hi, w) - C::ONE;
            debug_assert!(
                c >> (C::BITS - C::FIELD) == C::ZERO,
                "lazy walk: a worm spans more than {MAX_LAZY_UNITS} links"
            );
            debug_assert!(
                c & field_mask::<C>() != C::ZERO,
                "lazy walk: the head left an empty link behind"
            );
            (c << C::FIELD | C::ONE).store(ww, hi, w);
            ww.front.set(e);
        }
    }

    /// Lazy walks: one step of worm `w`'s walk, its units moved as [`Sim::walk_link`]'s
    /// visits would move them, reading and writing only the records of the links at its two
    /// ends. Returns whether a unit moved.
    ///
    /// In a worm that flows freely every link between its front and its rear holds one unit
    /// before and after the step: a walk visiting each link reads a record to learn that,
    /// and changes only the units' labels (82 % of a 4-ary 9-tree batch's visits, session 14
    /// of `docs/bench/2026-11-26-engine-scale.md`). Here the worm keeps how many of its units
    /// each of its links holds, [`FIELD`] bits a link from its front link (the head's, or
    /// once the head arrived the link it arrived by) to its rear (the tail's), in
    /// [`WormWalk::cnt`]: the step's moves follow by word operations from the counts at the
    /// start of the step, the rule of a walk (a link's front unit moves when the link ahead
    /// is not full; a unit that entered a link in the step does not move on). Only the front
    /// and rear links' records hold their units; the links between them (owned by the worm,
    /// so no head reads their queues, and no input waits for their pops: a head waits for
    /// an owned link's release) keep stale units until the tail enters one, which is then
    /// filled with the worm's last units ([`Store::refill`]) and released. A unit's labels
    /// are recomputed where it enters a record: its `seq` from the counts, its `hop` from
    /// the rear's.
    ///
    /// As in a walk, a unit leaving a rear link shared with a younger worm's head leaves
    /// with the heads' moves (`Local::moves`, or `Local::pops` when the unit enters a link
    /// between the ends), so that the younger worm's walk reads the start length.
    #[inline(always)]
    fn walk_lazy<C: Counts>(&self, lo: &mut Local, w: u32) -> bool {
        let ww = &self.ww[w as usize];
        let rear = ww.rear.get();
        if rear == NONE {
            return false;
        }
        let front = ww.front.get();
        let at_source = rear >= self.links;
        if front == rear && at_source {
            // No link holds a unit: the head arrived from the injection queue.
            let e = self.move_link(rear);
            if self.store.queue_len(e as usize) >= self.q {
                return false;
            }
            let u = self.pop_input(lo, rear);
            let next = self.move_unit(lo, e, u);
            debug_assert!(next.is_none(), "lazy walk: the head arrived");
            return true;
        }
        let c = C::load(ww, &self.cnt_hi, w as usize);
        let top = top_field(c);
        let len0 = self.store.queue_len(front as usize);
        // Bits `FIELD * i`: link `i` holds a unit of the worm; is full (the front link by
        // its length, which may count an older worm's units).
        let nonempty = nonzero(c);
        let full = !nonzero(c ^ in_every_field::<C>(self.q as u32)) & C::LOW & !C::ONE
            | C::of(u64::from(len0 >= self.q));
        // The links whose front unit moves (not the front link's: its head moves by the node
        // scans, and once it arrived, its units move below).
        let moving = nonempty & !(full << C::FIELD) & !C::ONE;
        let bit = |i: u32| C::ONE << (C::FIELD * i);
        // The injection queue's units, and the hop of the rear link's units.
        let (left, hop_top) = if at_source {
            let p = (rear - self.links) as usize;
            (self.unit_len - u32::from(self.inj[p].seq.get()), 1)
        } else {
            (0, self.store.queue_front(rear as usize).hop)
        };
        let from_source = at_source && full & bit(top) == C::ZERO;
        // Lazy links that take a unit, and the units' hops between the ends.
        let mut into = C::ZERO;
        let mut interior = moving;
        if from_source {
            let f = self.move_link(rear);
            let u = self.pop_input(lo, rear);
            if top == 0 {
                let next = self
                    .move_unit(lo, f, u)
                    .expect("lazy walk: no arrival here");
                self.push_unit(lo, f, next);
            } else {
                into |= bit(top);
                lo.queued_in += 1;
                if self.cross(lo, f as usize, u) {
                    let n = field(c, top) + 1 - field(moving, top);
                    self.store
                        .refill(f as usize, n as usize, w, (self.unit_len - n) as u16, 1);
                    ww.rear.set(f);
                }
            }
        } else if !at_source && moving & bit(top) != C::ZERO {
            interior &= !bit(top);
            let shared = self.store.queue_back(rear as usize).worm != w;
            if top == 1 {
                if shared {
                    lo.moves.push(rear);
                } else {
                    let u = self.pop_input(lo, rear);
                    let next = self
                        .move_unit(lo, front, u)
                        .expect("lazy walk: no arrival here");
                    self.push_unit(lo, front, next);
                }
            } else {
                let e = self.move_link(rear);
                let u = if shared {
                    lo.pops.push(rear);
                    lo.queued_in += 1;
                    self.store.queue_front(rear as usize)
                } else {
                    let (u, _, _, waited) = self.store.pop_front(rear as usize);
                    if waited {
                        self.wake_pop(lo, rear as usize);
                    }
                    u
                };
                into |= bit(top - 1);
                if self.cross(lo, e as usize, u) {
                    let n = field(c, top - 1) + 1 - field(moving, top - 1);
                    self.store.refill(
                        e as usize,
                        n as usize,
                        w,
                        (self.unit_len - n) as u16,
                        u.hop + 1,
                    );
                    ww.rear.set(e);
                }
            }
        }
        if interior & bit(1) != C::ZERO {
            // A unit enters the front link: its labels from the units behind it and the
            // rear's hop.
            interior &= !bit(1);
            let behind = u64::from(left) + units_in(c >> C::FIELD);
            let u = Unit {
                worm: w,
                seq: (u64::from(self.unit_len) - behind) as u16,
                hop: hop_top + top as u16,
            };
            lo.queued_out += 1;
            lo.unit_hops += 1;
            self.push_unit(lo, front, u);
        }
        lo.unit_hops += u64::from(interior.ones());
        into |= interior >> C::FIELD;
        // Once the head arrived, the front link's front unit arrives.
        let mut arrived = false;
        if len0 > 0 && field(c, 0) > 0 {
            let u0 = self.store.queue_front(front as usize);
            if u0.worm == w && u0.seq != 0 {
                let e = self.move_link(front);
                if self.store.queue_len(e as usize) < self.q {
                    arrived = true;
                    if rear == front && self.store.queue_back(front as usize).worm != w {
                        // The rear, shared with a younger worm's head.
                        lo.moves.push(front);
                    } else {
                        let u = self.pop_input(lo, front);
                        let next = self.move_unit(lo, e, u);
                        debug_assert!(next.is_none(), "lazy walk: the front link's units arrive");
                    }
                }
            }
        }
        let after =
            c - moving + (moving >> C::FIELD) + if from_source { bit(top) } else { C::ZERO }
                - C::of(u64::from(arrived));
        after.store(ww, &self.cnt_hi, w as usize);
        // The links between the ends need no measuring for the run's largest queue: none
        // holds more units than a link measured before this step. A link's count grows only
        // when the link ahead was full at the start of the step, so some link then held `q`
        // units; the first link ever to hold `q` did so by a measured push (`push_unit`, a
        // walk's shift), since a front link's length is its record's and the front link is
        // never an ejection queue (a head that arrives leaves `ww.front` where it was). A link
        // that took a unit and passed one on keeps its count. Checked in debug builds, on
        // the tests' runs of every queue from 2 to 16 and both sinks.
        debug_assert!(
            into == C::ZERO || most_in(after, into) <= self.max_queue,
            "lazy walk: a link between a worm's ends outgrew the largest queue measured"
        );
        moving != C::ZERO || from_source || arrived
    }

    /// The conservation check under lazy walks: `queued`, counted from the links' records,
    /// with the links between each worm's ends counted from the worm's counts instead.
    fn lazy_queued<C: Counts>(&self, t: u64, mut queued: u64) -> Result<u64, OnlineError> {
        // The links between a worm's ends: its counts, not their records.
        for (w, ww) in self.ww.iter().enumerate() {
            let rear = ww.rear.get();
            let front = ww.front.get();
            if rear == NONE || rear == front {
                continue;
            }
            let c = C::load(ww, &self.cnt_hi, w);
            let top = top_field(c);
            // The first link between the ends (the rear's next), and its field: a rear
            // link is field `top`, an injection queue is behind it.
            let mut e = self.move_link(rear);
            let mut i = if rear >= self.links {
                top
            } else {
                top.saturating_sub(1)
            };
            while i >= 1 {
                if e == NONE || e == front {
                    return Err(OnlineError::Conservation {
                        clock: "step",
                        at: t,
                        detail: format!("worm {w}: its links end before its counts"),
                    });
                }
                queued -= self.store.queue_len(e as usize) as u64;
                queued += u64::from(field(c, i));
                e = self.store.fwd(e as usize);
                i -= 1;
            }
        }
        Ok(queued)
    }

    /// A message is delivered at step `t`.
    fn deliver_message(&mut self, m: usize, t: u64) {
        let release = self.ledger.release_of(m);
        self.ledger.deliver(m, release, t);
    }

    /// Releases the messages due at step `t`.
    fn release(&mut self, t: u64) {
        while let Some(m) = self.ledger.pop_due(t) {
            let release = self.ledger.release_of(m);
            let (src, dst) = self.endpoints_of(m);
            if dst == Some(src) {
                self.deliver_message(m, t.max(release));
                continue;
            }
            let p = src as usize;
            if self.inj[p].msg.get() == NONE {
                self.inj[p].msg.set(m as u32);
                // The injection queue's facts: its node is the processor's injection node.
                self.mark_nonempty(self.info[p], false);
            } else {
                self.inj_next[self.inj_last[p] as usize] = m as u32;
            }
            self.inj_last[p] = m as u32;
            let units = u64::from(self.per_message) * u64::from(self.unit_len);
            self.released_units += units;
            self.pending_inj += units;
        }
    }

    /// Tries to move the front unit of input `inp` of node `v` (see the module documentation
    /// for when a unit sleeps instead).
    #[inline(always)]
    fn try_move(&self, lo: &mut Local, net: &PacketNet, v: u32, inp: u32) {
        let (u, fwd) = self.front_fwd(inp);
        if u.worm >= self.mc_first {
            self.try_copy(lo, inp, u);
            return;
        }
        debug_assert!(
            !self.walk || u.seq == 0,
            "walk mode: node scans see heads only"
        );
        let w = u.worm as usize;
        let slot = w * self.stride + 1 + u.hop as usize;
        let e = if u.seq == 0 {
            let e = self.head_link(&mut lo.cands, net, v, inp, w, slot);
            if e == NONE {
                return;
            }
            if self.keep_routes {
                self.route[slot].set(e);
            }
            if self.unit_len > 1 {
                self.store.set_owned(e as usize, true);
            }
            // The worm's body follows it (wormhole), and apply reads the move's link here.
            self.set_fwd(inp, e);
            e
        } else {
            let e = fwd;
            debug_assert!(!self.keep_routes || e == self.route[slot].get());
            if self.store.queue_len(e as usize) >= self.q {
                self.sleep_pop(inp, e);
                return;
            }
            if !self.owned && self.store.used(e as usize) {
                return;
            }
            e
        };
        if !self.owned {
            self.store.set_used(e as usize, true);
            lo.used_list.push(e);
        }
        lo.moves.push(inp);
    }

    /// The link a head at node `v` (front of input `inp`, worm `w`, route slot `slot`) takes
    /// this step, `NONE` if none (it then sleeps when every candidate is closed). `cands` is
    /// scratch, borrowed rather than taken out of the thread's state and put back. On the
    /// tree families the candidates are a run of link ids, decided by [`Sim::head_link_run`]
    /// without listing them (a test checks both give the same runs).
    #[inline(always)]
    fn head_link(
        &self,
        cands: &mut Vec<u32>,
        net: &PacketNet,
        v: u32,
        inp: u32,
        w: usize,
        slot: usize,
    ) -> u32 {
        if self.source_routed {
            cands.clear();
            cands.push(self.route[slot].get());
        } else {
            let dst = self.msg_dst[self.message_of(w)];
            if self.sticky {
                net.next_hops(v, dst, cands);
            } else if let Some(run) = net.next_hops_or_run(v, dst, cands) {
                return self.head_link_run(run, inp);
            }
            if self.config.path == PathPolicy::DimensionOrder {
                cands.truncate(1);
            }
            if self.sticky && self.route[slot].get() != NONE {
                // The draw made when the head first sought this hop.
                cands.clear();
                cands.push(self.route[slot].get());
            }
        }
        if cands.iter().all(|&e| self.closed_for_head(e)) {
            self.sleep_head(inp, cands.iter().copied());
            NONE
        } else if self.config.path == PathPolicy::Greedy {
            cands
                .iter()
                .copied()
                .find(|&e| self.free_for_head(e))
                .unwrap_or(NONE)
        } else {
            let random = cands.len() > 1 && self.config.path == PathPolicy::Random;
            let k = if random {
                self.now.below(inp, Purpose::RandomPath, cands.len() as u32) as usize
            } else {
                0
            };
            let e = cands[k];
            if self.sticky && random {
                self.route[slot].set(e);
            }
            if self.free_for_head(e) {
                e
            } else if random && self.other_up {
                self.other_candidate(cands, k, |sim, e| sim.free_for_head(e))
            } else {
                NONE
            }
        }
    }

    /// [`Sim::head_link`] on the tree families, whose candidates are the run of link ids
    /// `run` (`hops::Run`), never listed: a channel of Leiserson's fat-trees has up to half a
    /// million wires at 2^20 processors, and listing them made every decision at the top of
    /// a full-bisection tree cost as many steps as the channel has wires.
    ///
    /// The same decision in another order: the link is picked first (a free link is never
    /// closed) and the candidates are scanned for an open one only when none was picked,
    /// stopping at the first, so a decision looks at one wire of a channel of thousands
    /// unless nearly all are closed. The random draw is keyed (`draws`), so drawing it
    /// before that scan, and for a head that then sleeps, changes nothing. (The listed
    /// candidates of `head_link` keep the closed check first: with two or three of them it
    /// costs less than a draw; `hops_tests` runs every tree both ways and compares.)
    #[inline(always)]
    fn head_link_run(&self, run: super::hops::Run, inp: u32) -> u32 {
        let n = if self.config.path == PathPolicy::DimensionOrder {
            run.count.min(1)
        } else {
            run.count
        };
        let at = |i: u32| run.first + i * run.stride;
        let picked = match self.config.path {
            _ if n == 0 => None,
            PathPolicy::Greedy => (0..n).map(at).find(|&e| self.free_for_head(e)),
            path => {
                let random = n > 1 && path == PathPolicy::Random;
                let k = if random {
                    self.now.below(inp, Purpose::RandomPath, n)
                } else {
                    0
                };
                let e = at(k);
                if self.free_for_head(e) {
                    Some(e)
                } else if random && self.other_up {
                    (1..n)
                        .map(|j| at((k + j) % n))
                        .find(|&e| self.free_for_head(e))
                } else {
                    None
                }
            }
        };
        if picked.is_none() && (0..n).map(at).all(|e| self.closed_for_head(e)) {
            self.sleep_head(inp, (0..n).map(at));
        }
        picked.unwrap_or(NONE)
    }

    /// [`StoreTiming`] (a): the first candidate after the drawn `cands[k]`, cyclically, that
    /// `open` accepts (`NONE` if none).
    fn other_candidate(&self, cands: &[u32], k: usize, open: impl Fn(&Self, u32) -> bool) -> u32 {
        (1..cands.len())
            .map(|j| cands[(k + j) % cands.len()])
            .find(|&e| open(self, e))
            .unwrap_or(NONE)
    }

    /// Whether the front unit of link `e` leaves it this step (same-step reading): it was
    /// forwarded, or `e` is an ejection queue the terminal drains this step.
    #[inline]
    fn leaves(&self, lo: &Local, e: u32) -> bool {
        let (word, bit) = (e as usize / 64, 1u64 << (e % 64));
        (lo.leaving[word] | self.eject_busy.word(word)) & bit != 0
    }

    /// Whether link `e`'s queue, after this step's departure, is full (same-step reading).
    #[inline]
    fn full_now(&self, lo: &Local, e: u32) -> bool {
        self.store.queue_len(e as usize) - usize::from(self.leaves(lo, e)) >= self.q
    }

    /// Whether a unit may cross link `e` now (same-step reading; store-and-forward, so no
    /// link is owned).
    #[inline]
    fn open_now(&self, lo: &Local, e: u32) -> bool {
        !self.store.used(e as usize) && !self.full_now(lo, e)
    }

    /// The scan visits input `inp` of node `v`.
    #[inline(always)]
    fn scan_input(&self, lo: &mut Local, net: &PacketNet, v: u32, inp: u32) {
        if self.same_step {
            if let Some(drawn) = self.try_move_same_step(lo, net, v, inp, NONE) {
                let entry = lo.blocked.len() as u32;
                lo.blocked.push((v, inp, drawn, false));
                self.wait_for_leaving(lo, entry, drawn);
            }
        } else {
            self.try_move(lo, net, v, inp);
        }
    }

    /// [`StoreTiming::SameStep`]: tries to move the front packet of input `inp` of node `v`
    /// (store-and-forward, unicast), `drawn` being its RP draw of this step (`NONE`: not
    /// drawn yet). A queue counts as full only if it stays full after this step's departure.
    /// Returns `Some(draw)` when the packet is blocked only by queues that are full now but
    /// whose front may still leave in this step (decide it again later in the step), `None`
    /// when it moved or is blocked for the step (its link carried a packet already).
    fn try_move_same_step(
        &self,
        lo: &mut Local,
        net: &PacketNet,
        v: u32,
        inp: u32,
        drawn: u32,
    ) -> Option<u32> {
        let u = self.front(inp);
        let w = u.worm as usize;
        let slot = w * self.stride + 1 + u.hop as usize;
        let mut cands = std::mem::take(&mut lo.cands);
        cands.clear();
        if self.source_routed {
            cands.push(self.route[slot].get());
        } else {
            net.next_hops(v, self.msg_dst[self.message_of(w)], &mut cands);
            if self.config.path == PathPolicy::DimensionOrder {
                cands.truncate(1);
            }
        }
        let random = cands.len() > 1 && self.config.path == PathPolicy::Random;
        // A link that has not carried a packet this step may still open.
        let may_open = |sim: &Self, e: u32| !sim.store.used(e as usize);
        let open_now = |sim: &Self, e: u32| sim.open_now(lo, e);
        let (e, retry) = if drawn == NONE && cands.iter().all(|&e| !open_now(self, e)) {
            // Nothing open yet; RP draws once something is (the same law as drawing now).
            let again = cands.iter().any(|&e| may_open(self, e));
            (NONE, again.then_some(NONE))
        } else if !random {
            // GP, FP, DOR: the first open candidate.
            let e = cands
                .iter()
                .copied()
                .find(|&e| open_now(self, e))
                .unwrap_or(NONE);
            let again = e == NONE && cands.iter().any(|&e| may_open(self, e));
            (e, again.then_some(NONE))
        } else {
            let k = if drawn == NONE {
                self.now.below(inp, Purpose::RandomPath, cands.len() as u32) as usize
            } else {
                cands
                    .iter()
                    .position(|&e| e == drawn)
                    .expect("the draw is a candidate")
            };
            let d = cands[k];
            let e = if open_now(self, d) {
                d
            } else if self.other_up {
                self.other_candidate(&cands, k, open_now)
            } else {
                NONE
            };
            let again = e == NONE
                && if self.other_up {
                    cands.iter().any(|&e| may_open(self, e))
                } else {
                    may_open(self, d)
                };
            (e, again.then_some(d))
        };
        lo.cands = cands;
        if e == NONE {
            return retry;
        }
        if self.keep_routes {
            self.route[slot].set(e);
        }
        self.store.set_used(e as usize, true);
        lo.used_list.push(e);
        self.set_fwd(inp, e);
        lo.moves.push(inp);
        if inp < self.links {
            lo.leaving[inp as usize / 64] |= 1 << (inp % 64);
            lo.leaving_list.push(inp);
            // The heads waiting for this link's queue, in the order they registered (scan
            // order): decide them again.
            let mut w = lo.waiter_head[inp as usize];
            let first = lo.work.len();
            while w != NONE {
                let (entry, next) = lo.waiters[w as usize];
                lo.work.push_back(entry);
                w = next;
            }
            lo.work.make_contiguous()[first..].reverse();
            lo.waiter_head[inp as usize] = NONE;
            self.wake_into_work(lo, net, inp);
        }
        None
    }

    /// [`StoreTiming::SameStep`]: queues the heads asleep until link `e` pops, now that its
    /// front is decided to leave in this step, to be decided in this step (after the heads
    /// already waiting for `e`; several at once in cyclic input order from a random start,
    /// as RR scans). They stay asleep for the rest of the scan and are woken as usual when
    /// `e` pops in this step's apply; a head is queued once per step.
    fn wake_into_work(&self, lo: &mut Local, net: &PacketNet, e: u32) {
        let ei = e as usize;
        if !self.store.waited(ei, Event::Pop) {
            return;
        }
        let tail = self.tail_of(ei);
        let (base, end) = self.words_of(tail);
        let ins = net.inputs_of(tail);
        let first = lo.blocked.len();
        for j in 0..end - base {
            let mut w = self.wait.get(Event::Pop, ei, j) & self.masks.get(ASLEEP, base + j);
            while w != 0 {
                let b = w.trailing_zeros() as usize;
                w &= w - 1;
                let inp = ins[j * 64 + b];
                let (word, bit) = (inp as usize / 64, 1u64 << (inp % 64));
                if lo.queued_inputs[word] & bit == 0 {
                    lo.queued_inputs[word] |= bit;
                    lo.blocked.push((tail, inp, NONE, false));
                }
            }
        }
        let woken = lo.blocked.len() - first;
        if woken >= 2 {
            let start = self.now.below(e, Purpose::Rotation, woken as u32) as usize;
            lo.blocked[first..].rotate_left(start);
        }
        for entry in first..lo.blocked.len() {
            lo.work.push_back(entry as u32);
        }
    }

    /// Registers blocked entry `entry` on the candidate links (left in `lo.cands` by
    /// [`Sim::try_move_same_step`]) whose queue is full but may still empty in this step: the
    /// drawn one only for RP without (a).
    fn wait_for_leaving(&self, lo: &mut Local, entry: u32, drawn: u32) {
        let cands = std::mem::take(&mut lo.cands);
        for &e in &cands {
            if (drawn != NONE && !self.other_up && e != drawn)
                || self.store.used(e as usize)
                || !self.full_now(lo, e)
            {
                continue;
            }
            let head = &mut lo.waiter_head[e as usize];
            if *head == NONE {
                lo.waited_links.push(e);
            }
            lo.waiters.push((entry, *head));
            *head = lo.waiters.len() as u32 - 1;
        }
        lo.cands = cands;
    }

    /// [`StoreTiming::SameStep`]: decides the blocked packets again as the queues they wait
    /// for are emptied by this step's decisions, until no more can move.
    ///
    /// A head asleep on a full queue is decided in this step as soon as that queue's front
    /// is decided to leave (heads asleep on an ejection queue the terminal
    /// drains are woken before the scan); heads still blocked by full queues go to sleep at
    /// the end. Woken heads are decided after the awake ones that wait for the same queue,
    /// a bias of this reading's implementation that the snapshot does not have.
    fn settle(&self, lo: &mut Local, net: &PacketNet) {
        while let Some(entry) = lo.work.pop_front() {
            let (v, inp, drawn, settled) = lo.blocked[entry as usize];
            if settled {
                continue;
            }
            let before = lo.moves.len();
            let again = self.try_move_same_step(lo, net, v, inp, drawn);
            match again {
                Some(d) => {
                    lo.blocked[entry as usize].2 = d;
                    self.wait_for_leaving(lo, entry, d);
                }
                None => lo.blocked[entry as usize].3 = true,
            }
            debug_assert!(again.is_none() || lo.moves.len() == before);
        }
        for &e in &lo.waited_links {
            lo.waiter_head[e as usize] = NONE;
        }
        lo.waited_links.clear();
        lo.waiters.clear();
        // The heads still blocked by full queues sleep until one of them pops (in this
        // step's apply, if its front leaves: then they are awake in the next step).
        let blocked = std::mem::take(&mut lo.blocked);
        let mut cands = std::mem::take(&mut lo.cands);
        for &(v, inp, _, settled) in &blocked {
            lo.queued_inputs[inp as usize / 64] &= !(1u64 << (inp % 64));
            if settled {
                continue;
            }
            let u = self.front(inp);
            let w = u.worm as usize;
            cands.clear();
            if self.source_routed {
                cands.push(self.route[w * self.stride + 1 + u.hop as usize].get());
            } else {
                net.next_hops(v, self.msg_dst[self.message_of(w)], &mut cands);
                if self.config.path == PathPolicy::DimensionOrder {
                    cands.truncate(1);
                }
            }
            if cands.iter().all(|&e| self.closed_for_head(e)) {
                self.sleep_head(inp, cands.iter().copied());
            }
        }
        lo.cands = cands;
        lo.blocked = blocked;
        lo.blocked.clear();
    }

    /// The active nodes of words `words` (indices into `active`) scan their ready inputs once.
    #[inline(always)]
    fn decide_words(&self, lo: &mut Local, net: &PacketNet, words: &[u32]) {
        let scan = ScanShape::of(self.config);
        #[cfg(test)]
        if self.reverse_nodes {
            // Test only: the nodes in decreasing order (`decide_node`).
            let nodes: Vec<usize> = self.active.ones(words).collect();
            for &v in nodes.iter().rev() {
                let v = v as u32;
                self.decide_node(lo, net, v, scan);
            }
            return;
        }
        for &wi in words {
            let wi = wi as usize;
            // The nodes `AHEAD` places further have their input records brought into the
            // cache (on the trees a node's input from a neighbour and its output to it share
            // a cache line).
            let mut bits = self.active.word(wi);
            if self.prefetch {
                let mut ahead = bits;
                for _ in 0..AHEAD {
                    if ahead != 0 {
                        self.prefetch_inputs(net, (wi * 64) as u32 + ahead.trailing_zeros());
                        ahead &= ahead - 1;
                    }
                }
                while bits != 0 {
                    let v = (wi * 64) as u32 + bits.trailing_zeros();
                    bits &= bits - 1;
                    if ahead != 0 {
                        self.prefetch_inputs(net, (wi * 64) as u32 + ahead.trailing_zeros());
                        ahead &= ahead - 1;
                    }
                    self.decide_node(lo, net, v, scan);
                }
            } else {
                while bits != 0 {
                    let v = (wi * 64) as u32 + bits.trailing_zeros();
                    bits &= bits - 1;
                    self.decide_node(lo, net, v, scan);
                }
            }
        }
    }

    /// Brings the records of node `v`'s inputs into the cache: its first
    /// [`PREFETCH_INPUTS`], all of them on the trees whose nodes have at most 8 (a node of a
    /// large fat-tree has thousands, of which a step reads the few that are ready).
    #[inline(always)]
    fn prefetch_inputs(&self, net: &PacketNet, v: u32) {
        for &inp in net.inputs_of(v).iter().take(PREFETCH_INPUTS) {
            if inp < self.links {
                self.store.prefetch(inp as usize);
            }
        }
    }

    /// Active node `v` scans its ready inputs once. Nodes are decided independently: a node
    /// writes only its own inputs' and outputs' state, and its draws are keyed by step and
    /// node or input (`draws`), so the order of the nodes does not change the step (the
    /// same-step reading's settling excepted), and nodes of different threads' parts may be
    /// decided at once.
    #[inline(always)]
    fn decide_node(&self, lo: &mut Local, net: &PacketNet, v: u32, scan: ScanShape) {
        let ScanShape {
            keyed,
            fixed,
            reversed,
        } = scan;
        let (first, end) = self.words_of(v);
        let ins = net.inputs_of(v);
        if end - first == 1 && !keyed && !reversed {
            // Fast path: one mask word, RR by masking at the start position.
            let ready = self.masks.ready(first);
            if ready == 0 {
                self.active.remove(v as usize);
                return;
            }
            let (mut early, mut late) = (ready, 0u64);
            if ready & (ready - 1) != 0 && self.config.scan == ScanPolicy::RoundRobin {
                let start = self.now.below(v, Purpose::RoundRobin, ins.len() as u32);
                let below = (1u64 << start) - 1;
                early = ready & !below;
                late = ready & below;
            }
            for mut part in [early, late] {
                while part != 0 {
                    let i = part.trailing_zeros() as usize;
                    part &= part - 1;
                    self.scan_input(lo, net, v, ins[i]);
                }
            }
            return;
        }
        // General path: collect, order by (key, RR rank), scan.
        let mut order = std::mem::take(&mut lo.order);
        order.clear();
        for j in 0..end - first {
            let mut ready = self.masks.ready(first + j);
            while ready != 0 {
                let i = (j * 64) as u32 + ready.trailing_zeros();
                ready &= ready - 1;
                order.push((0, i, i));
            }
        }
        if order.is_empty() {
            self.active.remove(v as usize);
            lo.order = order;
            return;
        }
        if order.len() >= 2 && !(fixed && !keyed && !reversed) {
            let n = ins.len() as u32;
            let start = if fixed {
                0
            } else {
                self.now.below(v, Purpose::RoundRobin, n)
            };
            for entry in order.iter_mut() {
                entry.1 = if fixed {
                    if reversed { n - 1 - entry.2 } else { entry.2 }
                } else if entry.2 >= start {
                    entry.2 - start
                } else {
                    entry.2 + n - start
                };
                if keyed {
                    entry.0 =
                        self.key[self.message_of(self.front(ins[entry.2 as usize]).worm as usize)];
                }
            }
            order.sort_unstable();
        }
        for &(_, _, i) in order.iter() {
            self.scan_input(lo, net, v, ins[i as usize]);
        }
        lo.order = order;
    }

    /// Terminals drain one unit from every ejection queue that was non-empty at the start of
    /// the step; returns how many.
    fn drain(&mut self, lo: &mut Local) -> u64 {
        let mut drained = 0;
        let mut words = std::mem::take(&mut self.word_list);
        self.eject_busy.collect(&mut words);
        for e in self.eject_busy.ones(&words) {
            let u = self.store.queue_pop(e);
            drained += 1;
            self.wake(e, Event::Pop);
            let emptied = self.store.queue_len(e) == 0;
            if self.walk {
                self.wake_behind(lo, e, u, emptied);
            }
            if emptied {
                self.eject_busy.remove(e);
            }
        }
        self.word_list = words;
        drained
    }

    /// Removes the front unit of input `inp` (of a node `lo` owns).
    #[inline(always)]
    fn pop_input(&self, lo: &mut Local, inp: u32) -> Unit {
        if inp < self.links {
            let (u, i, emptied, waited) = self.store.pop_front(inp as usize);
            lo.queued_out += 1;
            if self.walk {
                // A walk pops a body unit, with its worm's unit or nothing behind: the input
                // stays empty for the node scans and the worm is walking. Other pops: the
                // input is non-empty while a head is at its front (one queued behind an
                // older worm's tail, now gone).
                if !lo.walking {
                    if !emptied && self.store.queue_front(inp as usize).seq == 0 {
                        self.mark_nonempty(i, lo.shared);
                    } else {
                        self.masks.and_not(NONEMPTY, i.word(), i.bit());
                    }
                    self.wake_behind(lo, inp as usize, u, emptied);
                }
            } else {
                // Branch-free: whether the queue emptied is a coin flip for the predictor.
                self.masks
                    .and_not(NONEMPTY, i.word(), i.bit() * u64::from(emptied));
            }
            if waited {
                self.wake_pop(lo, inp as usize);
            }
            u
        } else {
            let p = (inp - self.links) as usize;
            let m = self.inj[p].msg.get();
            let part = self.inj[p].part.get();
            let worm = m * self.per_message + u32::from(part);
            let seq = self.inj[p].seq.get();
            lo.injected += 1;
            if u32::from(seq) + 1 == self.unit_len {
                self.inj[p].seq.set(0);
                if u32::from(part) + 1 == self.per_message {
                    self.inj[p].part.set(0);
                    let next = self.inj_next[m as usize];
                    self.inj[p].msg.set(next);
                    if next == NONE {
                        // A walk's, on the threads of a step: other walks may take units from
                        // other injection queues of this node.
                        self.mark_empty(inp, lo.shared);
                    } else if self.walk {
                        // The next message's head is at the front.
                        self.mark_nonempty(self.info[p], lo.shared);
                    }
                } else {
                    self.inj[p].part.set(part + 1);
                }
            } else {
                self.inj[p].seq.set(seq + 1);
            }
            if self.walk && seq == 0 {
                // The head left; its body follows by walks.
                self.mark_empty(inp, lo.shared);
                self.ww[worm as usize].rear.set(inp);
                self.wake_worm(lo, worm);
            }
            Unit { worm, seq, hop: 0 }
        }
    }

    /// Unit `u` crosses link `ei` (leaving a node `lo` owns): counts the hop and the head's
    /// crossing, and a worm's tail releases the link. Returns whether `u` is a tail.
    #[inline(always)]
    fn cross(&self, lo: &mut Local, ei: usize, u: Unit) -> bool {
        lo.unit_hops += 1;
        if u.seq == 0 {
            self.store.cross_head(ei);
        }
        let tail = u32::from(u.seq) + 1 == self.unit_len;
        if tail && self.unit_len > 1 {
            self.store.set_owned(ei, false);
            // The link's waiters are at its tail, this node, whose asleep bits other threads
            // may clear in the same phase (their pops of its other out-links).
            self.wake_in(ei, Event::Release, lo.shared);
        }
        tail
    }

    /// Applies the decided multicast copies (one thread).
    #[cold]
    fn apply_copies(&self, lo: &mut Local) {
        let copies = std::mem::take(&mut lo.copies);
        for c in &copies {
            if c.pop {
                self.pop_input(lo, c.inp);
            } else {
                lo.spawned_units += 1;
            }
            let (e, u) = (c.link, c.unit);
            let ei = e as usize;
            let tail = self.cross(lo, ei, u);
            let tree = self.tree_of(u.worm);
            let at = tree.at(u.hop);
            let forwards = at.kids() > 0;
            if at.delivers() {
                lo.arrived_units += 1;
                if forwards {
                    // The node absorbs a copy and forwards the unit.
                    lo.spawned_units += 1;
                }
                if self.store.info(ei).is_ejection() && self.config.sink == SinkModel::Queue {
                    self.store.queue_push(ei, u);
                    self.eject_busy.set_shared(ei);
                }
                if tail {
                    lo.dilation = lo.dilation.max(at.depth());
                    lo.tails.push(self.message_of(u.worm as usize) as u32);
                }
            }
            if forwards {
                self.push_unit(lo, e, u);
            }
        }
        lo.copies = copies;
        lo.copies.clear();
    }

    /// Unit `u` enters link `e`'s queue (a link leaving a node `lo` owns, after every pop of
    /// the step or in the one-thread order).
    #[inline(always)]
    fn push_unit(&self, lo: &mut Local, e: u32, u: Unit) {
        let (before, info) = self.store.push_back(e as usize, u);
        lo.queued_in += 1;
        // The queue ends the step at most this long: only a link that could raise the run's
        // largest queue is measured at the end of the step.
        if before as u32 >= self.max_queue {
            lo.pushed.push(e);
        }
        // Walk mode: a body unit is no node's business.
        if before == 0 && (!self.walk || u.seq == 0) {
            self.mark_nonempty(info, lo.shared);
        }
    }

    /// Whether a unicast unit of `worm` arrives when it crosses the link of facts `info`.
    /// Every sink a terminal: exactly when it crosses an ejection link (terminals forward
    /// nothing, so no path passes through one); else at its destination's ejection node.
    #[inline(always)]
    fn arrives(&self, info: InputInfo, worm: u32) -> bool {
        if self.terminal_sinks {
            info.is_ejection()
        } else {
            self.node_of(info) == self.route[worm as usize * self.stride].get()
        }
    }

    /// Unit `u`, popped by move `(inp, e)`, crosses `e`: arrives, or is returned to be pushed
    /// into `e`.
    #[inline(always)]
    fn move_unit(&self, lo: &mut Local, e: u32, u: Unit) -> Option<Unit> {
        let ei = e as usize;
        let tail = self.cross(lo, ei, u);
        let info = self.store.info(ei);
        let next = Unit {
            hop: u.hop + 1,
            ..u
        };
        let arrived = self.arrives(info, u.worm);
        if self.walk && tail {
            self.ww[u.worm as usize]
                .rear
                .set(if arrived { NONE } else { e });
        }
        if self.lazy && u.seq == 0 {
            if S::WIDE_COUNTS && self.wide_counts {
                self.head_moved::<u128>(u, e, arrived);
            } else if S::NARROW_COUNTS {
                self.head_moved::<u64>(u, e, arrived);
            }
        }
        if !arrived {
            return Some(next);
        }
        lo.arrived_units += 1;
        if info.is_ejection() && self.config.sink == SinkModel::Queue {
            self.store.queue_push(ei, next);
            if lo.walking {
                // Drained from the next step on: marked after this step's drain.
                lo.eject_later.push(e);
            } else {
                self.eject_busy.set_shared(ei);
            }
        }
        if tail {
            lo.dilation = lo.dilation.max(u32::from(next.hop));
            lo.tails.push(self.message_of(u.worm as usize) as u32);
        }
        None
    }

    /// Applies `lo`'s decided moves on one thread, each popped, crossed and pushed in turn
    /// (the same state as every pop before any push: a link takes at most one unit and
    /// loses at most one per step, and wakes and marks only clear and set bits). The step
    /// ends later ([`Sim::end_apply`]), after the moves of every part.
    #[inline(always)]
    fn apply_moves(&self, lo: &mut Local) {
        if !lo.copies.is_empty() {
            self.apply_copies(lo);
        }
        let moves = std::mem::take(&mut lo.moves);
        if self.same_step {
            // Every departure before any arrival: a unit may enter a queue whose front
            // leaves in this step.
            let mut popped = std::mem::take(&mut lo.popped);
            popped.clear();
            for &inp in &moves {
                popped.push(self.pop_input(lo, inp));
            }
            for (&inp, &u) in moves.iter().zip(&popped) {
                let e = self.move_link(inp);
                if let Some(next) = self.move_unit(lo, e, u) {
                    self.push_unit(lo, e, next);
                }
            }
            lo.popped = popped;
        } else {
            each_move!(self, moves, |inp, e| {
                let u = self.pop_input(lo, inp);
                if let Some(next) = self.move_unit(lo, e, u) {
                    self.push_unit(lo, e, next);
                }
            });
        }
        lo.moves = moves;
    }

    /// Before move `i`: brings the record of input `moves[i + 3 * AHEAD]` into the cache,
    /// and of the link `moves[i + AHEAD]` takes (read from that input's record, fetched
    /// `2 * AHEAD` moves ago). With the input's record 2 * AHEAD ahead instead the 4-ary
    /// 9-tree batch took 3 % longer (one thread), the dependent read of the link waiting for
    /// it.
    #[inline(always)]
    fn prefetch_move(&self, moves: &[u32], i: usize) {
        if let Some(&inp) = moves.get(i + 3 * AHEAD)
            && inp < self.links
        {
            self.store.prefetch(inp as usize);
        }
        if let Some(&inp) = moves.get(i + AHEAD) {
            self.store.prefetch(self.move_link(inp) as usize);
        }
    }

    /// The link the move of input `inp`'s front unit takes this step: the one its decision
    /// wrote into the input's record ([`Sim::set_fwd`]; a worm's body units follow its head
    /// there, so it is also their link).
    #[inline(always)]
    fn move_link(&self, inp: u32) -> u32 {
        if inp < self.links {
            self.store.fwd(inp as usize)
        } else {
            self.inj[(inp - self.links) as usize].fwd.get()
        }
    }

    /// Two-phase apply, first phase: `lo`'s moves pop, cross and arrive; a unit whose link's
    /// head is in `lo`'s part enters its queue at once (only this part pops that queue, on
    /// this thread: the one-thread order), the others wait in `lo.to_push` for every part's
    /// pops. On the trees, with parts by subtree, most links join two nodes of one part.
    fn apply_pops(&self, lo: &mut Local) {
        let moves = std::mem::take(&mut lo.moves);
        lo.to_push.clear();
        each_move!(self, moves, |inp, e| {
            let u = self.pop_input(lo, inp);
            if let Some(next) = self.move_unit(lo, e, u) {
                let head = self.node_of(self.store.info(e as usize));
                if self.word_part[head as usize / 64] == lo.part {
                    self.push_unit(lo, e, next);
                } else {
                    let packed = next.pack();
                    lo.to_push.push((e, [packed as u32, (packed >> 32) as u32]));
                }
            }
        });
        lo.moves = moves;
    }

    /// Two-phase apply, second phase (after every thread's first): the units enter their
    /// queues.
    fn apply_pushes(&self, lo: &mut Local) {
        let to_push = std::mem::take(&mut lo.to_push);
        for &(e, [low, high]) in &to_push {
            let u = Unit::unpack(u64::from(low) | u64::from(high) << 32);
            self.push_unit(lo, e, u);
        }
        lo.to_push = to_push;
        self.end_apply(lo);
    }

    /// The end of `lo`'s apply: the step's largest queue, and the per-step flags cleared.
    #[inline(always)]
    fn end_apply(&self, lo: &mut Local) {
        lo.moves.clear();
        // The largest queue at the end of the step: a link may take a unit before its own
        // front leaves in the same step's move order.
        let mut max_queue = 0;
        for &e in &lo.pushed {
            max_queue = max_queue.max(self.store.queue_len(e as usize) as u32);
        }
        lo.pushed.clear();
        lo.max_queue = lo.max_queue.max(max_queue);
        for &e in &lo.used_list {
            self.store.set_used(e as usize, false);
        }
        lo.used_list.clear();
        for &e in &lo.leaving_list {
            lo.leaving[e as usize / 64] &= !(1 << (e % 64));
        }
        lo.leaving_list.clear();
    }

    /// The serial end of a step: the messages delivered, and the threads' counts.
    fn merge(&mut self, locals: &mut [Local], t: u64) {
        self.last_moves = 0;
        for lo in locals.iter_mut() {
            for &m in &lo.tails {
                let m = m as usize;
                self.remaining[m] -= 1;
                if self.remaining[m] == 0 {
                    self.deliver_message(m, t);
                }
            }
            lo.tails.clear();
            self.last_moves += lo.unit_hops;
            self.unit_hops += std::mem::take(&mut lo.unit_hops);
            self.arrived_units += std::mem::take(&mut lo.arrived_units);
            self.spawned_units += std::mem::take(&mut lo.spawned_units);
            self.queued += std::mem::take(&mut lo.queued_in);
            self.queued -= std::mem::take(&mut lo.queued_out);
            self.pending_inj -= std::mem::take(&mut lo.injected);
            self.dilation = self.dilation.max(std::mem::take(&mut lo.dilation));
            self.max_queue = self.max_queue.max(std::mem::take(&mut lo.max_queue));
        }
    }

    /// One step on one thread. `locals` is the run's first `Local` alone (small steps, runs
    /// that never split), or all of them for a large step of a run that splits large steps
    /// between threads when one thread has its turn (`Pace`): then the active words are cut
    /// into as many runs as `locals` has parts, in word order, each run's moves kept by its
    /// part. The moves are those of one list cut into pieces, applied in the same order, and
    /// the step ends (its largest queue, its flags cleared) after the last piece: the run is
    /// the same. Kept in one list, the moves of the largest one-thread step were a second copy
    /// of what the parts' lists hold in a threaded step: 8 million moves, 33.5 MB of a
    /// two-thread run's peak on the 4-ary 10-tree. (The words handed out as a threaded step
    /// hands them, [`Sim::parts_by_key`], saved as much memory, but the 4-ary 6-tree batch
    /// took 0.0505 against 0.0490 s, medians of 60 alternated runs: a one-thread decide in
    /// subtree order, and a sort of the words.) The same-step reading and multicasts run with
    /// one `Local`. In walk mode `locals` is always all of them: each keeps worms to walk.
    #[inline(always)]
    fn step_serial(&mut self, locals: &mut [Local], net: &PacketNet) -> (bool, u64) {
        debug_assert!(locals.len() == 1 || !self.same_step && self.mc.multicasts.is_empty());
        for lo in locals.iter_mut() {
            lo.shared = false;
        }
        if self.same_step {
            // Ejection queues drained in this step are open to the heads asleep on them.
            let mut words = std::mem::take(&mut self.word_list);
            self.eject_busy.collect(&mut words);
            for e in self.eject_busy.ones(&words) {
                self.wake(e, Event::Pop);
            }
            self.word_list = words;
        }
        let mut words = std::mem::take(&mut self.word_list);
        self.active.collect(&mut words);
        let per = words.len().div_ceil(locals.len()).max(1);
        for (lo, run) in locals.iter_mut().zip(words.chunks(per)) {
            self.decide_words(lo, net, run);
        }
        self.word_list = words;
        if self.same_step {
            self.settle(&mut locals[0], net);
        }
        let mut walked = false;
        if self.walk {
            for lo in locals.iter_mut() {
                walked |= self.walk_worms(lo);
            }
        }
        self.end_step(locals, walked)
    }

    /// The end of a one-thread step, or of a threaded step in walk mode, after the decisions
    /// and the walks (`walked`: whether a walk moved a unit): the terminals drain, the
    /// ejection queues walks filled are marked busy, the moves of `locals` (heads', and
    /// walks' that wait for them) are applied on this thread in turn, and the worms woken
    /// are handed to the parts' lists of worms to walk, in turn.
    fn end_step(&mut self, locals: &mut [Local], walked: bool) -> (bool, u64) {
        for lo in locals.iter_mut() {
            lo.shared = false;
        }
        let drained = self.drain(&mut locals[0]);
        for lo in locals.iter_mut() {
            for &e in &lo.eject_later {
                self.eject_busy.set(e as usize);
            }
            lo.eject_later.clear();
        }
        // Lazy walks: the units that left rear links shared with a younger worm's head.
        for lo in locals.iter_mut() {
            let pops = std::mem::take(&mut lo.pops);
            for &e in &pops {
                self.pop_input(lo, e);
            }
            lo.pops = pops;
            lo.pops.clear();
        }
        let moved = walked
            || locals
                .iter()
                .any(|lo| !lo.moves.is_empty() || !lo.copies.is_empty());
        for lo in locals.iter_mut() {
            self.apply_moves(lo);
        }
        for lo in locals.iter_mut() {
            self.end_apply(lo);
        }
        if self.walk {
            // Which part walks a worm changes nothing (`walk_worms`).
            let parts = locals.len();
            for k in 0..parts {
                let mut woken = std::mem::take(&mut locals[k].woken);
                for &w in &woken {
                    locals[self.next_part % parts].flying.push(w);
                    self.next_part += 1;
                }
                woken.clear();
                locals[k].woken = woken;
            }
        }
        (moved, drained)
    }

    /// The decisions of a step on the threads of `locals`: the active words are handed to
    /// the parts by the processors nearest to them ([`Sim::parts_by_key`]: whole subtrees on
    /// the trees), a part owning the nodes of its words, and rayon balances the parts between
    /// the threads; each part decides its active nodes (a node writes only the state of its
    /// own inputs and outputs, and its draws are keyed, [`Sim::decide_node`]). The parts stay
    /// `shared` for the phases that follow on threads.
    fn decide_threaded(&mut self, locals: &mut [Local], net: &PacketNet)
    where
        S: Sync,
    {
        #[cfg(test)]
        THREADED_STEPS.with(|c| c.set(c.get() + 1));
        let mut words = std::mem::take(&mut self.word_list);
        self.active.collect(&mut words);
        words = self.parts_by_key(words, locals, net);
        for lo in locals.iter_mut() {
            lo.shared = true;
        }
        let sim = &*self;
        let words_ref = &words;
        locals.par_iter_mut().for_each(|lo| {
            let run = &words_ref[lo.first as usize..lo.end as usize];
            sim.decide_words(lo, net, run);
        });
        self.word_list = words;
    }

    /// One step in walk mode on the threads of `locals`: the parts decide their active nodes'
    /// heads as in [`Sim::step_threaded`], then walk their worms
    /// ([`Sim::walk_worms`]; a walk writes only its worm's links, and the bits it sets and
    /// clears in other nodes' masks atomically, `Local::shared`), and the step ends on this
    /// thread ([`Sim::end_step`]): the heads' moves are few (one a worm).
    fn step_walks_threaded(&mut self, locals: &mut [Local], net: &PacketNet) -> (bool, u64)
    where
        S: Sync,
    {
        self.decide_threaded(locals, net);
        let sim = &*self;
        let walked = locals
            .par_iter_mut()
            .map(|lo| sim.walk_worms(lo))
            .reduce(|| false, |a, b| a || b);
        self.end_step(locals, walked)
    }

    /// One step on the threads of `locals` (unicast, snapshot reading, bounded queues in
    /// records or rings):
    ///
    /// 1. the parts decide their active nodes ([`Sim::decide_threaded`]);
    /// 2. the terminals drain (one thread);
    /// 3. every part's moves pop their inputs, cross and arrive, and a pop wakes the inputs
    ///    of the link's tail that wait for it, whoever owns the tail (its asleep and active
    ///    bits cleared and set atomically, [`Local::shared`]); a unit whose link's head is
    ///    in the same part enters its queue now ([`Sim::apply_pops`]: that queue is popped
    ///    and pushed by this part alone, in the one-thread order);
    /// 4. then the other units enter their queues (popped by another part, which has done
    ///    so in phase 3), marking the head's input non-empty, atomically as in phase 3;
    /// 5. one thread adds up the deliveries and the counts ([`Sim::merge`]).
    ///
    /// Every pop before any push gives the state of the one-thread order (a link takes at
    /// most one unit and loses at most one per step; wakes and marks only clear and set
    /// bits, which commute), so a run is the same for any number of threads and any parts.
    /// Before, the wakes and marks of nodes another thread owns were replayed by one thread
    /// in step 5: a cache miss each on a link's record, a sixth of a two-thread run's samples
    /// on the 4-ary 9-tree batch. And the parts were runs of active words in node order,
    /// which on the trees (numbered level by level) are slices of levels: nearly every move
    /// then wrote a record or a mask word that another thread read or wrote in the same
    /// phase. Subtree parts: `bft:n=2^20` on two threads 70.4 -> 57.9 s.
    fn step_threaded(&mut self, locals: &mut [Local], net: &PacketNet) -> (bool, u64)
    where
        S: Sync,
    {
        self.decide_threaded(locals, net);
        let drained = self.drain(&mut locals[0]);
        let moved = locals.iter().any(|lo| !lo.moves.is_empty());
        let sim = &*self;
        locals.par_iter_mut().for_each(|lo| sim.apply_pops(lo));
        locals.par_iter_mut().for_each(|lo| sim.apply_pushes(lo));
        (moved, drained)
    }

    /// Hands the active `words` of a threaded step to the parts of `locals`: part `k` takes
    /// the words whose key (their nearest processor, [`locality_keys`]) falls in the `k`-th
    /// of as many equal processor ranges, in word order (a stable counting sort), so that on
    /// the trees a part holds whole subtrees. Returns the words by part, `locals[k]`'s at
    /// `first..end`.
    fn parts_by_key(&mut self, words: Vec<u32>, locals: &mut [Local], net: &PacketNet) -> Vec<u32> {
        let parts = locals.len();
        self.find_parts(parts, net);
        let part = &self.word_part;
        let mut start = vec![0u32; parts + 1];
        for &w in &words {
            start[part[w as usize] as usize + 1] += 1;
        }
        for k in 0..parts {
            start[k + 1] += start[k];
        }
        for (k, lo) in locals.iter_mut().enumerate() {
            lo.first = start[k];
            lo.end = start[k + 1];
            lo.part = k as u32;
        }
        let mut sorted = std::mem::take(&mut self.word_sorted);
        sorted.clear();
        sorted.resize(words.len(), 0);
        for &w in &words {
            let k = part[w as usize] as usize;
            sorted[start[k] as usize] = w;
            start[k] += 1;
        }
        self.word_sorted = words;
        sorted
    }

    fn check_conservation_at(&self, t: u64) -> Result<(), OnlineError> {
        let mut queued = 0u64;
        for e in 0..self.links as usize {
            let len = self.store.queue_len(e);
            if len > self.q {
                return Err(OnlineError::Conservation {
                    clock: "step",
                    at: t,
                    detail: format!("link {e} holds {len} units, capacity {}", self.q),
                });
            }
            if !self.store.info(e).is_ejection() {
                queued += len as u64;
            }
        }
        if S::WIDE_COUNTS && self.wide_counts {
            queued = self.lazy_queued::<u128>(t, queued)?;
        } else if S::NARROW_COUNTS && self.lazy {
            queued = self.lazy_queued::<u64>(t, queued)?;
        }
        let mut pending = 0u64;
        for p in 0..self.inj.len() {
            let mut m = self.inj[p].msg.get();
            if m == NONE {
                continue;
            }
            let mut waiting = -i64::from(self.inj[p].part.get());
            while m != NONE {
                waiting += i64::from(self.per_message);
                m = self.inj_next[m as usize];
            }
            pending += waiting as u64 * u64::from(self.unit_len) - u64::from(self.inj[p].seq.get());
        }
        if queued != self.queued || pending != self.pending_inj {
            return Err(OnlineError::Conservation {
                clock: "step",
                at: t,
                detail: format!(
                    "counted {queued} queued and {pending} waiting units, tracked {} and {}",
                    self.queued, self.pending_inj
                ),
            });
        }
        if self.released_units + self.spawned_units != self.arrived_units + queued + pending {
            return Err(OnlineError::Conservation {
                clock: "step",
                at: t,
                detail: format!(
                    "released {} + copied {} units, arrived {} + queued {queued} + waiting {pending}",
                    self.released_units, self.spawned_units, self.arrived_units
                ),
            });
        }
        Ok(())
    }
}

/// Nodes below which a run never splits a step between threads.
const MIN_THREADED_NODES: u32 = 4096;
/// Parts of a step per thread: rayon balances them between the threads.
const PARTS_PER_THREAD: usize = 8;
/// Moves of the previous step below which a step runs on one thread: a step on threads
/// pays three fork-joins and a serial merge, which only large steps repay (module
/// documentation of `sim`, and `docs/bench`).
const MIN_THREADED_MOVES: u64 = 8192;
/// Large steps between two turns of the kind of step [`Pace`] found slower: always for one
/// thread, at most for the threads.
const REPACE: u32 = 32;
/// Large steps before the threads' first turn after one thread was found faster.
const REPACE_FIRST: u32 = 4;

/// Which kind of large step is faster on this machine and network, the threaded or the
/// one-thread step, measured on the run's own steps: the result of a run never depends on
/// the choice (every pop before any push, keyed draws: module documentation), only its time.
/// Both kinds are measured once (the first large steps), then the faster one runs, and the
/// slower one gets a turn again, so that a run whose steps change size, or whose first
/// measurement was unlucky, can change its mind: one thread every [`REPACE`]-th large step;
/// the threads after [`REPACE_FIRST`] large steps, then after twice as many at each turn, up
/// to every [`REPACE`]-th. The figure of a kind is its nanoseconds per move: the first
/// measurement of a turn replaces it (the old figure may be from another phase of the run,
/// or unlucky), and measurements in a row are smoothed into it (weight 1/4 to the newest).
///
/// A threaded step after a one-thread step is a warm-up, not a measurement: it wakes the
/// pool's threads (asleep during one-thread steps) and, the first time, grows every part's
/// lists. On the 4-ary 6-tree batch (4,096 processors, about 70 large steps) such steps
/// measured 42 to 67 ns a move against 32 for threaded steps in a row. A turn of the threads
/// lasts until it is measured: a step too small to split, between the warm-up and the
/// measurement, lets the threads sleep again, and the next large step warms them up again.
///
/// Why (session 11, `docs/bench/2026-11-26-engine-scale.md`): before, every turn came after
/// 32 large steps, a small step ended the threads' turn, and every figure was smoothed; 5 to
/// 6 of 20 runs of that batch stayed on one thread for 63 to 67 of their 72 large steps.
/// Their threaded measurement in the run's first steps (where every move costs more) had
/// come out slower than the one-thread step after it (69.2 against 59.3 ns a move in one
/// such run, where another measured 29.3 against 47.7): a threaded measurement errs high
/// (cold threads), never low. The turns that last and replace the figure alone left 13 of 30
/// runs on one thread for 32 or more large steps; with the threads' shorter first gaps none
/// of 30 (57 to 69 threaded large steps each). Gaps as short for one thread's turns cost
/// more than the unlucky runs did (median 0.0497 against 0.0489 s over 80 runs, alternated).
///
/// Why measure rather than fix a threshold: on the 2-core Intel machine of
/// `docs/bench/2026-11-26-engine-scale.md` (session 6), the butterfly fat-tree's steps of
/// about 12,000 moves ran slower on two threads than on one (15 s against 11 s at 2^18
/// endpoints), while the 4-ary n-tree's steps of the same size gained; the threshold
/// (`MIN_THREADED_MOVES`) that would keep the one from losing cost the other its gain.
#[derive(Debug, Default)]
struct Pace {
    threaded: Option<f64>,
    serial: Option<f64>,
    /// Large steps since the slower kind last ran.
    since: u32,
    /// Large steps before the threads' next turn while they are the slower kind:
    /// [`REPACE_FIRST`] (0 before the first turn), doubled at each turn up to [`REPACE`].
    threads_gap: u32,
    /// Threaded steps in a row, up to 2 (the first is the warm-up).
    streak: u8,
    /// Whether the threads' turn waits for its measurement.
    turn: bool,
    /// The kind of the last measured step.
    last: Option<bool>,
}

impl Pace {
    /// Whether the next large step runs on the threads.
    fn threaded(&mut self) -> bool {
        if self.turn {
            // The threads' turn runs until a threaded step is measured.
            return true;
        }
        match (self.threaded, self.serial) {
            (None, _) => {
                self.turn = true;
                true
            }
            (_, None) => false,
            (Some(t), Some(s)) => {
                self.since += 1;
                // The threads, found slower, get their turn after growing gaps (a
                // threaded measurement errs high: cold threads); one thread every
                // `REPACE`-th large step.
                let gap = match self.threads_gap {
                    _ if t <= s => REPACE,
                    0 => REPACE_FIRST,
                    g => g,
                };
                if self.since >= gap {
                    self.since = 0;
                    // The slower kind's turn.
                    self.turn = t > s;
                    if self.turn {
                        self.threads_gap = (2 * gap).min(REPACE);
                    }
                    self.turn
                } else {
                    t <= s
                }
            }
        }
    }

    /// A large step of the kind `threaded` took `ns` nanoseconds for `moves` moves.
    fn record(&mut self, threaded: bool, ns: f64, moves: u64) {
        if !threaded {
            self.streak = 0;
        } else if self.streak < 2 {
            self.streak += 1;
            if self.streak == 1 {
                return;
            }
        }
        if threaded {
            self.turn = false;
        }
        let x = ns / moves.max(1) as f64;
        let in_a_row = self.last == Some(threaded);
        self.last = Some(threaded);
        let kind = if threaded {
            &mut self.threaded
        } else {
            &mut self.serial
        };
        *kind = Some(match *kind {
            Some(old) if in_a_row => 0.75 * old + 0.25 * x,
            _ => x,
        });
    }

    /// A step too small to split ran (on one thread: the pool's threads may fall asleep).
    fn small(&mut self) {
        self.streak = 0;
    }
}

#[cfg(test)]
thread_local! {
    /// Test only: runs started on this thread split every step they can into this many
    /// parts (0: as a run would).
    pub(super) static FORCE_PARTS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    /// Test only: the steps split between threads by runs stepped on this thread.
    pub(super) static THREADED_STEPS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    /// Test only: with [`FORCE_PARTS`], every step runs on this thread with its moves kept
    /// by the parts (`Sim::step_serial`) instead of split between threads.
    pub(super) static FORCE_SERIAL_SPLIT: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// Test only: runs started on this thread never walk (`Sim::start_walks`): bodies move
    /// by node scans, as every unit did before walk mode.
    pub(super) static NO_WALKS: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// Test only: walks visit every link of a worm (no lazy walks, [`Sim::walk_lazy`]).
    pub(super) static NO_LAZY: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// Test only: the bits of the counts ([`Counts`]) of the lazy walks of the last run that
    /// started walks on this thread (`Sim::start_walks`); 0 without lazy walks.
    pub(super) static LAZY_BITS: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// A run: the shared state and one [`Local`] per thread of a step.
struct Run<'a, S> {
    sim: Sim<'a, S>,
    locals: Vec<Local>,
    /// Whether `sim` may split a step between the threads of `locals`.
    threaded: bool,
    /// Whether it does, on a large step.
    pace: Pace,
}

impl<'a, S: Store> Run<'a, S> {
    /// [`PARTS_PER_THREAD`] `Local`s per thread of the current rayon pool when a step can be
    /// split (two or more threads; a large network; unicast, the snapshot reading and inline
    /// queues, [`Threads`]), else one.
    fn new(mut sim: Sim<'a, S>, net: &PacketNet) -> Self
    where
        S: Threads,
    {
        let splittable = S::SHARED
            && sim.mc.multicasts.is_empty()
            && sim.config.store_timing == StoreTiming::Snapshot;
        let threads = rayon::current_num_threads();
        let parts = if splittable && net.nodes() >= MIN_THREADED_NODES && threads > 1 {
            threads * PARTS_PER_THREAD
        } else {
            1
        };
        #[cfg(test)]
        let parts = match FORCE_PARTS.with(std::cell::Cell::get) {
            0 => parts,
            k if splittable => k,
            _ => 1,
        };
        #[cfg(test)]
        let walks = !NO_WALKS.with(std::cell::Cell::get);
        #[cfg(not(test))]
        let walks = true;
        #[cfg(test)]
        let lazy = !NO_LAZY.with(std::cell::Cell::get);
        #[cfg(not(test))]
        let lazy = true;
        if walks
            && sim.unit_len > 1
            && sim.per_message == 1
            && sim.mc.multicasts.is_empty()
            && !sim.same_step
        {
            sim.start_walks(lazy);
        }
        let mut locals: Vec<Local> = (0..parts.max(1)).map(|_| Local::default()).collect();
        if sim.same_step {
            let lo = &mut locals[0];
            let links = sim.links as usize;
            lo.leaving = vec![0; links.div_ceil(64)];
            lo.waiter_head = vec![NONE; links];
            lo.queued_inputs = vec![0; (links + net.processors() as usize).div_ceil(64)];
        }
        Self {
            sim,
            threaded: parts > 1,
            locals,
            pace: Pace::default(),
        }
    }
}

#[cfg(test)]
mod pace_tests {
    use super::{Pace, REPACE, REPACE_FIRST};

    /// Runs the threads' turn to its measurement: a warm-up, then a measured step of
    /// `ns_per_move`.
    fn threads_turn(pace: &mut Pace, ns_per_move: f64) {
        assert!(pace.threaded(), "the turn starts");
        pace.record(true, 1e9, 1000);
        assert!(
            pace.threaded(),
            "the warm-up is not a measurement: the next step is"
        );
        pace.record(true, ns_per_move * 1000.0, 1000);
    }

    /// Large steps until the kind `threaded` runs, the others recorded at `other_ns`.
    fn steps_until(pace: &mut Pace, threaded: bool, other_ns: f64) -> u32 {
        let mut steps = 1;
        while pace.threaded() != threaded {
            pace.record(!threaded, other_ns * 1000.0, 1000);
            steps += 1;
        }
        steps
    }

    /// Each kind runs once, then the faster one. The threads, when slower, run again after
    /// 4, 8, 16, 32, 32, … large steps, one thread when slower every 32nd; the threads' turn
    /// lasts until it is measured, through small steps; its measurement replaces their figure,
    /// and measurements in a row are smoothed.
    #[test]
    fn the_faster_kind_runs_and_the_slower_is_measured_again() {
        let mut pace = Pace::default();
        threads_turn(&mut pace, 3.0);
        assert!(!pace.threaded(), "then one thread is measured");
        pace.record(false, 2000.0, 1000);
        // One thread (2 ns a move) is faster than the threads (3 ns).
        let mut gaps = Vec::new();
        for _ in 0..5 {
            gaps.push(steps_until(&mut pace, true, 2.0));
            // The turn lasts through a small step and an interrupted warm-up.
            pace.record(true, 1e9, 1000);
            pace.small();
            assert!(pace.threaded(), "the turn outlasts a small step");
            pace.record(true, 1e9, 1000);
            assert!(pace.threaded());
            pace.record(true, 3000.0, 1000);
        }
        assert_eq!(
            gaps,
            [
                REPACE_FIRST,
                2 * REPACE_FIRST,
                4 * REPACE_FIRST,
                REPACE,
                REPACE
            ],
            "the threads' turns while slower"
        );
        // A turn that measures the threads faster replaces their figure (3 before): they run
        // from then on, and one thread every `REPACE`-th large step.
        steps_until(&mut pace, true, 2.0);
        pace.record(true, 1e9, 1000);
        assert!(pace.threaded());
        pace.record(true, 1000.0, 1000);
        assert_eq!(
            steps_until(&mut pace, false, 1.0),
            REPACE,
            "one thread's turn"
        );
        // One thread measures 0.5 ns, which replaces its figure: it runs, and the threads,
        // slower, get their turn after 32 large steps (their gap grew to its most).
        pace.record(false, 500.0, 1000);
        assert_eq!(steps_until(&mut pace, true, 0.5), REPACE);
        // The threads' measurements in a row are smoothed, 0.25 to the newest: 0.4, then
        // 0.425, then 0.51875 > 0.5.
        pace.record(true, 1e9, 1000);
        assert!(pace.threaded());
        pace.record(true, 400.0, 1000);
        assert!(pace.threaded(), "0.4 < 0.5: the threads run");
        pace.record(true, 500.0, 1000);
        assert!(pace.threaded(), "smoothed: 0.425 < 0.5");
        pace.record(true, 800.0, 1000);
        assert!(!pace.threaded(), "0.51875 > 0.5: one thread again");
        pace.record(false, 500.0, 1000);
        // A step too small to split lets the threads sleep: the next threaded step is a
        // warm-up again, and does not count.
        steps_until(&mut pace, true, 0.5);
        pace.record(true, 1e9, 1000);
        pace.record(true, 400.0, 1000);
        assert!(pace.threaded());
        pace.small();
        assert!(pace.threaded());
        pace.record(true, 1e9, 1000);
        assert!(pace.threaded(), "the warm-up did not count");
    }
}

#[cfg(test)]
mod store_tests {
    use super::{C64, Deques, LinkFields, Links, Record2, Records, Rings, Store, Unit};

    fn unit(worm: u32, seq: u16, hop: u16) -> Unit {
        Unit { worm, seq, hop }
    }

    fn units(store: &impl Store, e: usize) -> Vec<(u32, u16, u16)> {
        let mut out = Vec::new();
        for _ in 0..store.queue_len(e) {
            let u = store.queue_pop(e);
            out.push((u.worm, u.seq, u.hop));
        }
        out
    }

    /// `Store::shift`, a walk's move, is a pop and a push one hop on, on both stores, with
    /// the queues' ring positions wrapped.
    fn shifts(store: impl Store) {
        store.queue_push(0, unit(7, 3, 4));
        store.queue_push(0, unit(7, 4, 4));
        store.queue_push(1, unit(9, 0, 2));
        store.queue_pop(1);
        store.queue_push(1, unit(7, 2, 5));
        assert!(!store.shift(0, 1), "no input waits for link 0");
        assert_eq!(units(&store, 0), vec![(7, 4, 4)]);
        assert_eq!(units(&store, 1), vec![(7, 2, 5), (7, 3, 5)]);
        store.queue_push(0, unit(8, 1, 0));
        store.set_waited(0, super::Event::Pop, true);
        assert!(store.shift(0, 1), "an input waits for link 0");
        assert_eq!(units(&store, 1), vec![(8, 1, 1)]);
    }

    #[test]
    fn a_shift_is_a_pop_and_a_push_one_hop_on() {
        let mut records = Records::<Record2>::new(2);
        shifts(Links::<Record2, 2>(records.slice()));
        shifts(Deques::new(2));
        // A ring of five slots, its positions wrapped at run time.
        let (mut fields, mut units) = (Records::<LinkFields>::new(2), Records::<C64>::new(10));
        shifts(Rings {
            fields: fields.slice(),
            units: units.slice(),
            q: 5,
        });
    }

    /// Rings up to eight slots a link on the largest network the engine takes; deeper
    /// queues there go to [`Deques`](super::Deques), allocated as they fill.
    #[test]
    fn rings_fit_eight_slots_a_link_at_the_link_limit() {
        use super::super::net::MAX_LINKS;
        use super::{MAX_RING_SLOTS, rings_fit};
        let links = MAX_LINKS as usize;
        assert!(rings_fit(links, 8));
        assert!(!rings_fit(links, 9));
        assert!(rings_fit(links / 2, 16));
        assert!(!rings_fit(usize::MAX, 255), "no overflow");
        assert_eq!(MAX_RING_SLOTS, MAX_LINKS * 8);
    }

    /// A queue in [`Rings`] holds `q` units in order through every wrap of its ring, for any
    /// `q` up to [`MAX_RING`](super::MAX_RING).
    #[test]
    fn a_ring_keeps_its_units_in_order_through_its_wraps() {
        for q in [5, 7, 8, 13, super::MAX_RING as usize] {
            let (mut fields, mut slots) =
                (Records::<LinkFields>::new(3), Records::<C64>::new(3 * q));
            let rings = Rings {
                fields: fields.slice(),
                units: slots.slice(),
                q,
            };
            let mut model = std::collections::VecDeque::new();
            let mut next = 0u32;
            // Fill to `q`, drain to 1, three times over: the head passes every position.
            for _ in 0..3 {
                while rings.queue_len(1) < q {
                    rings.queue_push(1, unit(next, next as u16, 0));
                    model.push_back(next);
                    next += 1;
                    assert_eq!(rings.queue_back(1).worm, next - 1);
                }
                while rings.queue_len(1) > 1 {
                    assert_eq!(rings.queue_front(1).worm, model[0]);
                    assert_eq!(rings.queue_pop(1).worm, model.pop_front().unwrap());
                }
            }
            assert_eq!(
                units(&rings, 1),
                model.iter().map(|&w| (w, w as u16, 0)).collect::<Vec<_>>()
            );
            assert_eq!(
                (rings.queue_len(0), rings.queue_len(2)),
                (0, 0),
                "q = {q}: the neighbours"
            );
        }
    }

    /// Records in a mapping ([`Records`]) start as the vector's do, and hold what is written.
    #[cfg(target_os = "linux")]
    fn mapped<R: super::Record, const Q: usize>() {
        use super::{HUGE_RECORDS, NONE};
        let n = HUGE_RECORDS / std::mem::size_of::<R>() + 3;
        let mut records = Records::<R>::new(n);
        assert!(
            matches!(records, Records::Mapped(_)),
            "a mapping from {HUGE_RECORDS} bytes"
        );
        let links = Links::<R, Q>(records.slice());
        assert_eq!(links.0.len(), n);
        for e in [0, 1, n / 2, n - 1] {
            assert_eq!(
                (links.queue_len(e), links.fwd(e), links.owned(e)),
                (0, NONE, false)
            );
        }
        for e in [0, n - 1] {
            links.set_fwd(e, 7);
            for seq in 0..Q as u16 {
                links.queue_push(
                    e,
                    Unit {
                        worm: 5,
                        seq,
                        hop: 1,
                    },
                );
            }
        }
        let last = units(&links, n - 1);
        assert_eq!(last.len(), Q);
        assert_eq!(last[Q - 1], (5, Q as u16 - 1, 1));
        assert_eq!(
            (links.fwd(0), links.fwd(1), links.queue_len(1)),
            (7, NONE, 0)
        );
        let small = Records::<R>::new(4);
        assert!(
            matches!(small, Records::Heap(_)),
            "a vector below {HUGE_RECORDS} bytes"
        );
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn mapped_records_start_empty_and_keep_their_units() {
        mapped::<Record2, 2>();
        mapped::<super::Record4, 3>();
    }
}

#[cfg(test)]
mod locality_tests {
    use super::{NONE, nearest_processors};
    use crate::packet::PacketNet;
    use fatnet_topology::{ButterflyFatTree, KAryNTree, Topology};

    /// On the butterfly fat-tree a node's key is the first processor of its subtree: the
    /// processor itself, and for switch `(l, a)`, `l >= 1`, subtree `a >> (l − 1)` of `4^l`
    /// processors.
    #[test]
    fn a_bft_nodes_key_is_its_subtrees_first_processor() {
        let bft = ButterflyFatTree::new(256).unwrap();
        let net = PacketNet::new(bft.clone()).unwrap();
        let key = nearest_processors(&net, |e| net.link_head(e));
        for p in 0..256 {
            assert_eq!(key[bft.node_at(0, p).0 as usize], p);
        }
        for l in 1..=bft.levels() {
            for a in 0..bft.switches_at(l) {
                let first = (a >> (l - 1)) << (2 * l);
                assert_eq!(
                    key[bft.node_at(l, a).0 as usize],
                    first,
                    "switch ({l}, {a})"
                );
            }
        }
    }

    /// On the k-ary n-tree every node is reached, a processor is its own key, and the keys
    /// of a leaf switch's processors are the switch's processors (its key is their least).
    #[test]
    fn a_trees_keys_follow_its_processors() {
        let t = KAryNTree::new(4, 3).unwrap();
        let net = PacketNet::new(t.clone()).unwrap();
        let key = nearest_processors(&net, |e| net.link_head(e));
        assert!(key.iter().all(|&k| k != NONE));
        for p in 0..t.num_processors() {
            let v = t.injection_node(p).0 as usize;
            assert_eq!(key[v], p);
            let leaf = net.link_head(net.out_links(v as u32)[0]) as usize;
            assert!(
                key[leaf] <= p && p - key[leaf] < 4,
                "processor {p}, leaf key {}",
                key[leaf]
            );
        }
    }
}

/// Whether a store's words may be shared by the threads of a step: the inline queues' are
/// ([`cells`](super::cells)), the deques' are not.
trait Threads: Store {
    const SHARED: bool;
    /// One step of `run`, on its threads when it has some and the step is large enough.
    fn step(run: &mut Run<'_, Self>, net: &PacketNet) -> (bool, u64)
    where
        Self: Sized;
}

impl<L: Slots> Threads for L {
    const SHARED: bool = true;
    #[inline(always)]
    fn step(run: &mut Run<'_, Self>, net: &PacketNet) -> (bool, u64) {
        let Run {
            sim,
            locals,
            threaded,
            pace,
        } = run;
        #[cfg(test)]
        let forced = FORCE_PARTS.with(std::cell::Cell::get) > 0;
        #[cfg(not(test))]
        let forced = false;
        #[cfg(test)]
        if *threaded && forced && FORCE_SERIAL_SPLIT.with(std::cell::Cell::get) {
            return sim.step_serial(locals, net);
        }
        let threaded_step = |sim: &mut Sim<'_, Self>, locals: &mut [Local]| {
            if sim.walk {
                sim.step_walks_threaded(locals, net)
            } else {
                sim.step_threaded(locals, net)
            }
        };
        if *threaded && forced {
            threaded_step(sim, locals)
        } else if *threaded && sim.last_moves >= MIN_THREADED_MOVES {
            let split = pace.threaded();
            if split {
                sim.find_parts(locals.len(), net);
            }
            let start = std::time::Instant::now();
            let done = if split {
                threaded_step(sim, locals)
            } else {
                sim.step_serial(locals, net)
            };
            let moves = locals.iter().map(|lo| lo.unit_hops).sum();
            pace.record(split, start.elapsed().as_nanos() as f64, moves);
            done
        } else {
            pace.small();
            // Walk mode: every part's worms walk.
            let parts = if sim.walk { locals.len() } else { 1 };
            sim.step_serial(&mut locals[..parts], net)
        }
    }
}

impl Threads for Deques {
    const SHARED: bool = false;
    #[inline(always)]
    fn step(run: &mut Run<'_, Self>, net: &PacketNet) -> (bool, u64) {
        run.sim.step_serial(&mut run.locals[..1], net)
    }
}

impl<S: Threads> StepModel for Run<'_, S> {
    type Net = PacketNet;
    type Report = PacketReport;
    type Error = OnlineError;

    #[inline]
    fn release(&mut self, _net: &PacketNet, t: u64) {
        self.sim.release(t);
    }

    #[inline]
    fn finished(&self, _t: u64) -> bool {
        self.sim.ledger.delivered == self.sim.ledger.total()
    }

    #[inline]
    fn idle(&self) -> bool {
        let sim = &self.sim;
        sim.queued == 0 && sim.pending_inj == 0 && sim.eject_busy.is_empty()
    }

    #[inline]
    fn next_release(&self) -> Option<u64> {
        self.sim.ledger.next_release()
    }

    /// Out of line, with `apply_moves` and `wake` forced inline: so the step compiles as the
    /// body of the former loop did, everything it calls inlined. Inlined into `drive`, LLVM
    /// kept the apply and `wake` out of line: +9 % instructions on WORM N = 4096 (callgrind).
    #[inline(never)]
    fn step(&mut self, net: &PacketNet, t: u64) -> Step {
        self.sim.now = self.sim.draws.at(t);
        let (moved, drained) = S::step(self, net);
        let sim = &mut self.sim;
        sim.merge(&mut self.locals, t);
        sim.queued_sum += u128::from(sim.queued);
        // Nothing moved, so nothing was woken: if every unit sleeps, none ever will move.
        if !moved
            && drained == 0
            && sim.queued + sim.pending_inj > 0
            && (0..sim.masks.len()).all(|w| sim.masks.ready(w) == 0)
        {
            Step::Deadlocked
        } else {
            Step::Continue
        }
    }

    fn check_conservation(&self, _net: &PacketNet, t: u64) -> Result<(), OnlineError> {
        self.sim.check_conservation_at(t)
    }

    fn finish(self, outcome: Outcome, steps: u64) -> PacketReport {
        let sim = self.sim;
        let congestion = (0..sim.links as usize)
            .map(|e| sim.store.crossings(e))
            .max()
            .unwrap_or(0);
        sim.ledger.report(
            outcome,
            steps,
            congestion,
            sim.dilation,
            sim.unit_hops,
            sim.queued_sum,
            sim.max_queue,
        )
    }
}

#[cfg(test)]
mod order_tests {
    use super::{
        FORCE_DEQUES, FORCE_PARTS, FORCE_SERIAL_SPLIT, LAZY_BITS, NO_LAZY, NO_WALKS,
        PER_LINK_WAITS, REVERSE_NODES, THREADED_STEPS, WAIT_WIDTH,
    };
    use crate::packet::{
        FlowControl, Injection, Multicast, MulticastTree, PacketConfig, PacketNet, PathPolicy,
        QueueCapacity, ScanPolicy, SinkModel, StoreTiming, batch, simulate, simulate_multicast,
    };
    use fatnet_topology::{ButterflyFatTree, Hypercube, KAryNTree};
    use fatnet_traffic::patterns;
    use rand::SeedableRng;
    use rand_pcg::Pcg64;

    fn injections(n: u32, seed: u64) -> Vec<Injection> {
        let m = patterns::uniform(n, true, &mut Pcg64::seed_from_u64(seed)).unwrap();
        batch(&m, 4, 16, &mut Pcg64::seed_from_u64(seed + 1)).unwrap()
    }

    fn both<T: PartialEq + std::fmt::Debug>(what: &str, run: impl Fn() -> T) {
        let forward = run();
        REVERSE_NODES.with(|r| r.set(true));
        let reversed = run();
        REVERSE_NODES.with(|r| r.set(false));
        assert_eq!(forward, reversed, "{what}: the node order changed the run");
        // Worms' bodies moved by the node scans instead of by walks (`Sim::walk_link`).
        NO_WALKS.with(|w| w.set(true));
        let scanned = run();
        NO_WALKS.with(|w| w.set(false));
        assert_eq!(
            forward, scanned,
            "{what}: moving bodies by node scans instead of walks changed the run"
        );
        // Walks that visit every link of a worm (`Sim::walk_link`) instead of lazy walks.
        NO_LAZY.with(|w| w.set(true));
        let eager = run();
        NO_LAZY.with(|w| w.set(false));
        assert_eq!(forward, eager, "{what}: lazy walks changed the run");
        // Every step split into 2, 3 and 5 parts (on this thread), whenever the run can be;
        // then every step on one thread with its moves kept by as many parts.
        for serial in [false, true] {
            for parts in [2, 3, 5] {
                FORCE_PARTS.with(|f| f.set(parts));
                FORCE_SERIAL_SPLIT.with(|f| f.set(serial));
                let split = run();
                FORCE_PARTS.with(|f| f.set(0));
                FORCE_SERIAL_SPLIT.with(|f| f.set(false));
                let how = if serial {
                    "moves kept by"
                } else {
                    "steps split into"
                };
                assert_eq!(
                    forward, split,
                    "{what}: {how} {parts} parts changed the run"
                );
            }
        }
        // Wait masks of every width (these networks' nodes have at most 8 inputs), and the
        // mask words found through `node_word`.
        for width in [16, 32, 64, 65] {
            WAIT_WIDTH.with(|w| w.set(width));
            let wide = run();
            WAIT_WIDTH.with(|w| w.set(0));
            assert_eq!(
                forward, wide,
                "{what}: {width}-bit wait masks changed the run"
            );
        }
        // Beyond 64 inputs: node-wide wakes (above) and per-link masks give the same run.
        WAIT_WIDTH.with(|w| w.set(65));
        PER_LINK_WAITS.with(|w| w.set(true));
        let per_link = run();
        PER_LINK_WAITS.with(|w| w.set(false));
        WAIT_WIDTH.with(|w| w.set(0));
        assert_eq!(
            forward, per_link,
            "{what}: per-link wait masks beyond 64 inputs changed the run"
        );
        // Queues deeper than `MAX_INLINE`: in `Rings` (above, on any number of parts) and in
        // `Deques`, one `VecDeque` per link, the same run.
        FORCE_DEQUES.with(|d| d.set(true));
        let deques = run();
        FORCE_DEQUES.with(|d| d.set(false));
        assert_eq!(
            forward, deques,
            "{what}: queues in `Deques` changed the run"
        );
    }

    /// The property a step on several threads rests on: deciding the nodes of every step in
    /// the other order gives the very same run (every draw keyed, every node's decisions its
    /// own), on every flow control, path and scan policy of the snapshot reading, with deep
    /// queues, immediate sinks and multicasts.
    #[test]
    fn the_order_of_the_nodes_does_not_change_a_run() {
        let bft = PacketNet::new(ButterflyFatTree::new(64).unwrap()).unwrap();
        let tree = PacketNet::new(KAryNTree::new(4, 3).unwrap()).unwrap();
        let cube = PacketNet::new(Hypercube::new(6).unwrap()).unwrap();
        let base = PacketConfig {
            check_conservation: true,
            record_latencies: true,
            ..PacketConfig::worm()
        };
        let configs = [
            ("worm", base),
            (
                "store",
                PacketConfig {
                    flow: FlowControl::StoreAndForward,
                    queue: QueueCapacity::Bounded(1),
                    ..base
                },
            ),
            (
                "split",
                PacketConfig {
                    flow: FlowControl::Split,
                    flits: 8,
                    ..base
                },
            ),
            (
                "worm gp ff",
                PacketConfig {
                    path: PathPolicy::Greedy,
                    scan: ScanPolicy::FarthestFirst,
                    ..base
                },
            ),
            (
                "worm fp fo q8",
                PacketConfig {
                    path: PathPolicy::Fixed,
                    scan: ScanPolicy::FixedOrder,
                    queue: QueueCapacity::Bounded(8),
                    flits: 8,
                    ..base
                },
            ),
            // Walks sharing a link: a worm's tail with a younger worm's head behind it, with
            // room in the queue (2-flit worms, 4-flit queues), whole worms in one queue
            // (unbounded), and 1-flit queues with immediate sinks.
            (
                "worm L2 q4",
                PacketConfig {
                    flits: 2,
                    queue: QueueCapacity::Bounded(4),
                    ..base
                },
            ),
            // Lazy walks (`Sim::walk_lazy`) with whole worms in one queue, a worm's tail and
            // a younger worm's head sharing its front link, and 3-unit queues.
            (
                "worm L2 q3",
                PacketConfig {
                    flits: 2,
                    queue: QueueCapacity::Bounded(3),
                    ..base
                },
            ),
            (
                "worm L3 q3 immediate",
                PacketConfig {
                    flits: 3,
                    queue: QueueCapacity::Bounded(3),
                    sink: SinkModel::Immediate,
                    ..base
                },
            ),
            (
                "worm L5 q3",
                PacketConfig {
                    flits: 5,
                    queue: QueueCapacity::Bounded(3),
                    ..base
                },
            ),
            // Rings of a size known at run time (`Rings`): 5-flit worms in 6-flit queues,
            // and store-and-forward packets of 2 units in queues of 5.
            (
                "worm L5 q6",
                PacketConfig {
                    flits: 5,
                    queue: QueueCapacity::Bounded(6),
                    ..base
                },
            ),
            (
                "store L2 q5",
                PacketConfig {
                    flow: FlowControl::StoreAndForward,
                    flits: 2,
                    queue: QueueCapacity::Bounded(5),
                    ..base
                },
            ),
            (
                "worm L3 unbounded",
                PacketConfig {
                    flits: 3,
                    queue: QueueCapacity::Unbounded,
                    ..base
                },
            ),
            (
                "worm q1 immediate",
                PacketConfig {
                    queue: QueueCapacity::Bounded(1),
                    sink: SinkModel::Immediate,
                    ..base
                },
            ),
            (
                "store univ immediate",
                PacketConfig {
                    flow: FlowControl::StoreAndForward,
                    queue: QueueCapacity::Unbounded,
                    scan: ScanPolicy::RandomPriority { range: 6 },
                    sink: SinkModel::Immediate,
                    ..base
                },
            ),
            (
                "store other-up",
                PacketConfig {
                    flow: FlowControl::StoreAndForward,
                    queue: QueueCapacity::Bounded(1),
                    store_timing: StoreTiming::OtherUpLink,
                    ..base
                },
            ),
        ];
        // Leiserson's full-bisection fat-tree: channels of up to 64 wires, nodes of up to
        // 192 inputs, so wakes are node-wide (`wait`) and every candidate set a run of wires.
        let fat = PacketNet::new(
            "fattree:n=256,profile=doubling"
                .parse::<fatnet_topology::TopologySpec>()
                .unwrap()
                .build()
                .unwrap(),
        )
        .unwrap();
        for (name, config) in configs {
            for (net_name, net, seeds) in [
                ("bft", &bft, 3),
                ("4-ary 3-tree", &tree, 3),
                ("6-cube", &cube, 3),
                ("full-bisection fat-tree", &fat, 1),
            ] {
                for seed in 0..seeds {
                    let inj = injections(net.processors(), seed);
                    both(&format!("{name} on {net_name}, seed {seed}"), || {
                        simulate(net, &inj, &config, seed).unwrap()
                    });
                }
            }
        }
        // Multicasts beside unicasts.
        let trees: Vec<MulticastTree> = (0..8)
            .map(|s| {
                let dsts: Vec<u32> = (0..64).filter(|&d| d != s * 8).collect();
                MulticastTree::shortest_paths(&bft, s * 8, &dsts).unwrap()
            })
            .collect();
        let mcs: Vec<Multicast> = (0..8)
            .map(|tree| Multicast {
                tree,
                release: u64::from(tree) * 3,
            })
            .collect();
        let inj = injections(64, 9);
        both("multicasts", || {
            simulate_multicast(&bft, &inj, &trees, &mcs, &base, 5).unwrap()
        });
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]

        /// Lazy walks (`Sim::walk_lazy`: a worm's units per link kept in one word, only its
        /// ends' records touched) give the run that walks visiting every link give, on random
        /// message sets: any sources and destinations (self-messages and several messages a
        /// source), releases spread over 40 steps, short and 32-flit worms, queues of 2 to 16
        /// units (2-bit counts, 4-bit counts, and at 16 no lazy walks), both sinks and the three tree-routing path policies, on the butterfly
        /// fat-tree, two k-ary n-trees and the hypercube, with conservation checked every
        /// step (lazy counts included).
        #[test]
        fn lazy_walks_give_the_runs_of_visiting_walks(
            which in 0usize..4,
            raw in proptest::collection::vec((0u32..64, 0u32..64, 0u64..40), 1..150),
            flits in proptest::prop_oneof![2u32..=6, proptest::strategy::Just(32u32)],
            q in 2u32..=16,
            immediate in proptest::bool::ANY,
            path in 0usize..3,
            seed in proptest::num::u64::ANY,
        ) {
            let net = match which {
                0 => PacketNet::new(ButterflyFatTree::new(64).unwrap()).unwrap(),
                1 => PacketNet::new(KAryNTree::new(4, 3).unwrap()).unwrap(),
                2 => PacketNet::new(KAryNTree::new(2, 4).unwrap()).unwrap(),
                _ => PacketNet::new(Hypercube::new(6).unwrap()).unwrap(),
            };
            let n = net.processors();
            let inj: Vec<Injection> = raw
                .iter()
                .map(|&(src, dst, release)| Injection {
                    src: src % n,
                    dst: dst % n,
                    release,
                })
                .collect();
            let config = PacketConfig {
                check_conservation: true,
                record_latencies: true,
                flits,
                queue: QueueCapacity::Bounded(q),
                sink: if immediate {
                    SinkModel::Immediate
                } else {
                    SinkModel::Queue
                },
                path: [PathPolicy::Random, PathPolicy::Greedy, PathPolicy::Fixed][path],
                ..PacketConfig::worm()
            };
            let lazy = simulate(&net, &inj, &config, seed).unwrap();
            NO_LAZY.with(|w| w.set(true));
            let visiting = simulate(&net, &inj, &config, seed);
            NO_LAZY.with(|w| w.set(false));
            proptest::prop_assert_eq!(lazy, visiting.unwrap());
        }
    }

    /// Wormhole runs walk lazily with every bounded queue of 2 to 15 units, in whichever store
    /// holds it (inline records, rings, or deques when rings are refused): each store compiles
    /// only the count widths its queues can have (`Store::NARROW_COUNTS`, `WIDE_COUNTS`), and
    /// one that claimed too few would silently fall back to visiting walks (the same runs,
    /// several times slower), which no comparison of runs can see.
    #[test]
    fn queues_of_2_to_15_units_walk_lazily_in_every_store() {
        let net = PacketNet::new(KAryNTree::new(4, 2).unwrap()).unwrap();
        let inj: Vec<Injection> = (0..16)
            .map(|src| Injection {
                src,
                dst: (src * 5 + 3) % 16,
                release: 0,
            })
            .collect();
        for deques in [false, true] {
            for q in 1..=17 {
                let config = PacketConfig {
                    flits: 8,
                    queue: QueueCapacity::Bounded(q),
                    ..PacketConfig::worm()
                };
                FORCE_DEQUES.with(|d| d.set(deques));
                LAZY_BITS.with(|b| b.set(u32::MAX));
                let run = simulate(&net, &inj, &config, 7);
                let bits = LAZY_BITS.with(std::cell::Cell::get);
                FORCE_DEQUES.with(|d| d.set(false));
                assert_eq!(run.unwrap().delivered, 16, "q {q}");
                let want = match q {
                    2..=3 => 64,
                    4..=15 => 128,
                    _ => 0,
                };
                assert_eq!(bits, want, "q {q}, forced deques {deques}");
            }
        }
    }

    /// A hot spot: every processor sends to processor 0 (its terminal drains its ejection
    /// queue a unit a step), so worms stand still behind the one that owns the way in, and
    /// their links fill between their ends (the debug check in `Sim::walk_lazy` sees fields
    /// of 2 units and more here). Lazy walks do not measure those links for the run's
    /// largest queue (`Sim::walk_lazy` says why they need not); the run is the visiting
    /// walks' run, whose largest queue is the capacity.
    #[test]
    fn worms_queued_for_a_hot_spot_give_the_visiting_walks_largest_queue() {
        let net = PacketNet::new(KAryNTree::new(4, 3).unwrap()).unwrap();
        let inj: Vec<Injection> = (1..64)
            .map(|src| Injection {
                src,
                dst: 0,
                release: u64::from(src % 3),
            })
            .collect();
        for q in [2, 3, 4, 5, 8, 15, 16] {
            for flits in [8, 32] {
                let config = PacketConfig {
                    check_conservation: true,
                    record_latencies: true,
                    flits,
                    queue: QueueCapacity::Bounded(q),
                    sink: SinkModel::Queue,
                    ..PacketConfig::worm()
                };
                let lazy = simulate(&net, &inj, &config, 3).unwrap();
                NO_LAZY.with(|w| w.set(true));
                let visiting = simulate(&net, &inj, &config, 3);
                NO_LAZY.with(|w| w.set(false));
                assert_eq!(lazy.max_queue, q, "q {q}, {flits} flits");
                assert_eq!(lazy, visiting.unwrap(), "q {q}, {flits} flits");
            }
        }
    }

    /// A step on one thread whose moves are kept by several parts ends after its last part
    /// (`Sim::step_serial`): a link that takes a unit in one part and loses its front in
    /// a later one holds no more units at the end of the step than before. Two lone worms
    /// never fill a 2-flit queue, so the largest queue stays 1 however the moves are cut.
    #[test]
    fn a_serial_step_kept_by_parts_ends_after_its_last_part() {
        let tree = PacketNet::new(KAryNTree::new(4, 3).unwrap()).unwrap();
        let inj = [(0, 63), (5, 40)].map(|(src, dst)| Injection {
            src,
            dst,
            release: 0,
        });
        let config = PacketConfig {
            check_conservation: true,
            record_latencies: true,
            ..PacketConfig::worm()
        };
        let alone = simulate(&tree, &inj, &config, 1).unwrap();
        assert_eq!(alone.max_queue, 1, "lone worms fill no queue");
        for parts in [2, 3, 5] {
            FORCE_PARTS.with(|f| f.set(parts));
            FORCE_SERIAL_SPLIT.with(|f| f.set(true));
            let split = simulate(&tree, &inj, &config, 1).unwrap();
            FORCE_PARTS.with(|f| f.set(0));
            FORCE_SERIAL_SPLIT.with(|f| f.set(false));
            assert_eq!(alone, split, "moves kept by {parts} parts changed the run");
        }
    }

    /// Runs split into parts do split: a WORM run on the butterfly fat-tree steps on parts in
    /// every step that moves something.
    #[test]
    fn forced_parts_split_the_steps() {
        let bft = PacketNet::new(ButterflyFatTree::new(64).unwrap()).unwrap();
        let inj = injections(64, 1);
        FORCE_PARTS.with(|f| f.set(3));
        THREADED_STEPS.with(|c| c.set(0));
        let report = simulate(&bft, &inj, &PacketConfig::worm(), 1).unwrap();
        FORCE_PARTS.with(|f| f.set(0));
        let split = THREADED_STEPS.with(std::cell::Cell::get);
        assert!(
            split > 0 && split == report.steps,
            "{split} of {} steps split",
            report.steps
        );
    }

    /// Many parts on two real threads, again and again: the threads that pop a node's
    /// out-links, release them and push into its inputs change its asleep, non-empty and
    /// active bits in the same phase. A lost update would leave an input asleep or unscanned:
    /// a longer run, or one that stops at the step limit.
    #[test]
    fn threads_changing_one_nodes_bits_lose_no_update() {
        let net = PacketNet::new(KAryNTree::new(4, 5).unwrap()).unwrap();
        let m =
            patterns::random_permutation(net.processors(), &mut Pcg64::seed_from_u64(5)).unwrap();
        let inj = batch(&m, 2, 1, &mut Pcg64::seed_from_u64(6)).unwrap();
        let config = PacketConfig {
            path: PathPolicy::Greedy,
            record_latencies: true,
            ..PacketConfig::worm()
        };
        let one = simulate(&net, &inj, &config, 7).unwrap();
        assert_eq!(one.outcome, crate::packet::Outcome::Delivered);
        let config = PacketConfig {
            max_steps: 2 * one.steps,
            ..config
        };
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        for attempt in 0..40 {
            let split = pool.install(|| {
                FORCE_PARTS.with(|f| f.set(16));
                let report = simulate(&net, &inj, &config, 7).unwrap();
                FORCE_PARTS.with(|f| f.set(0));
                report
            });
            assert_eq!(one, split, "attempt {attempt}: two threads changed the run");
        }
    }

    /// A run with 2^16 processors is the same on 1, 2 and 4 threads, and on 2 and 4 its
    /// large steps do run on the threads.
    #[test]
    fn a_large_run_is_the_same_on_any_number_of_threads() {
        same_on_any_number_of_threads(PacketNet::new(KAryNTree::new(4, 8).unwrap()).unwrap());
    }

    /// The same on Leiserson's full-bisection fat-tree, whose nodes near the root have
    /// thousands of inputs (node-wide wakes, `wait`; refused before them at this size).
    #[test]
    fn a_large_full_bisection_fat_tree_is_the_same_on_any_number_of_threads() {
        let tree = "fattree:n=16384,profile=doubling"
            .parse::<fatnet_topology::TopologySpec>()
            .unwrap()
            .build()
            .unwrap();
        same_on_any_number_of_threads(PacketNet::new(tree).unwrap());
    }

    fn same_on_any_number_of_threads(net: PacketNet) {
        assert!(net.processors() >= 1 << 14);
        let m = patterns::uniform(net.processors(), false, &mut Pcg64::seed_from_u64(3)).unwrap();
        let inj = batch(&m, 1, 1, &mut Pcg64::seed_from_u64(4)).unwrap();
        let config = PacketConfig {
            flits: 8,
            record_latencies: true,
            ..PacketConfig::worm()
        };
        let runs: Vec<_> = [1, 2, 4]
            .into_iter()
            .map(|threads| {
                let pool = rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .unwrap();
                pool.install(|| {
                    THREADED_STEPS.with(|c| c.set(0));
                    let report = simulate(&net, &inj, &config, 11).unwrap();
                    (threads, report, THREADED_STEPS.with(std::cell::Cell::get))
                })
            })
            .collect();
        let (_, one, none) = &runs[0];
        assert_eq!(*none, 0, "one thread never splits a step");
        assert_eq!(one.outcome, crate::packet::Outcome::Delivered);
        for (threads, report, split) in &runs[1..] {
            assert!(*split > 0, "{threads} threads split no step");
            assert_eq!(one, report, "{threads} threads changed the run");
        }
    }
}
