//! The wait masks of the packet engine's links: per link and [`Event`], which inputs of the
//! link's tail node sleep until the link has the event.
//!
//! A mask is as wide as the network's busiest node needs: one byte per link and event when
//! no node has more than 8 inputs (the k-ary n-trees, the butterfly fat-tree, hypercubes up
//! to dimension 7), 16 or 32 bits up to 16 or 32 inputs, one 64-bit word up to 64; beyond
//! that, as many 64-bit words per link as its tail node has mask words, found through a
//! per-link offset. On the 4-ary 10-tree (21 M links) this is 42 MB where one word per link
//! and event with a separate offset and tail array was 504 MB.
//!
//! **Beyond 64 inputs, no masks: a link's event wakes every sleeper of its tail node.** Masks
//! as wide as such a node grow with the square of its degree (links × the tail's words): on
//! Leiserson's full-bisection fat-tree (`profile=doubling`) 37.9 M words at 16,384
//! processors and 604 M at 65,536, which refused the run. A sleeper woken for a link it does
//! not wait for decides again, finds its links still closed and sleeps again: nothing in a
//! decision that changes nothing is drawn from a stream or changes a scan, so such wakes
//! never change a run (the engine's tests run every case with these wakes and with the
//! masks, and compare). A node wakes its sleepers once per sleep (a flag per node, set by a
//! sleep and cleared by the wake that clears its asleep words), so a sleep on a channel of
//! thousands of wires costs one pass over the node's words, not one per wire.
//!
//! Only the same-step reading of store-and-forward
//! ([`super::StoreTiming::same_step`]) needs to know which inputs wait for one link (to
//! decide them again in the step, in order): it keeps the masks at every width.
//!
//! Every mask of link `e` is written only by the owner of `e`'s tail node (it sleeps its
//! inputs there and wakes them), so the cells need no read-modify-write (`cells`). A node's
//! flag is set by its owner and cleared by any thread that wakes it; clearing twice is
//! harmless, and sleeps and wakes of one node never share a phase.

use super::cells::{C8, C16, C32, C64};
use super::net::MAX_LINKS;
use super::sim::Event;
use crate::OnlineError;

/// A cell of a wait mask, read and written as the low bits of a `u64`.
trait Cell64: Default {
    fn load(&self) -> u64;
    fn store(&self, v: u64);
}

macro_rules! cell64 {
    ($c:ty, $t:ty) => {
        impl Cell64 for $c {
            #[inline(always)]
            fn load(&self) -> u64 {
                u64::from(self.get())
            }
            #[inline(always)]
            fn store(&self, v: u64) {
                debug_assert!(v <= u64::from(<$t>::MAX));
                self.set(v as $t)
            }
        }
    };
}
cell64!(C8, u8);
cell64!(C16, u16);
cell64!(C32, u32);
cell64!(C64, u64);

fn cells<C: Cell64>(n: usize) -> [Vec<C>; 2] {
    [0, 1].map(|_| std::iter::repeat_with(C::default).take(n).collect())
}

/// The wait masks of every link, per [`Event`] (module documentation).
#[derive(Debug)]
pub(super) enum WaitMasks {
    /// At most 8 inputs at any node.
    Bytes([Vec<C8>; 2]),
    /// At most 16.
    Halves([Vec<C16>; 2]),
    /// At most 32.
    Quads([Vec<C32>; 2]),
    /// At most 64.
    Word([Vec<C64>; 2]),
    /// More: link `e`'s masks are `words[first[e]..]`, as many as its tail's mask words
    /// (the same-step reading only).
    Words {
        first: Vec<u32>,
        words: [Vec<C64>; 2],
    },
    /// More than 64 inputs at some node (module documentation): per node, whether it may
    /// have sleepers that no wake has woken yet.
    Nodes(Vec<C8>),
}

/// The cell of word `j` of link `e`'s mask for `event`, bound to `$c` in `$body`.
macro_rules! at {
    ($self:ident, $event:ident, $e:ident, $j:ident, |$c:ident| $body:expr) => {
        at!(@arms $self, $event, $e, $j, $c, $body; Bytes, Halves, Quads, Word)
    };
    (@arms $self:ident, $event:ident, $e:ident, $j:ident, $c:ident, $body:expr; $($one:ident),*) => {
        match $self {
            $(WaitMasks::$one(m) => {
                debug_assert_eq!($j, 0);
                let $c = &m[$event as usize][$e];
                $body
            })*
            WaitMasks::Words { first, words } => {
                let $c = &words[$event as usize][first[$e] as usize + $j];
                $body
            }
            // Only the same-step reading reads a link's mask (`Sim::wake_into_work`) and
            // `Sim::wake_in` takes one only when `take_node` says there are masks; `Sim::new`
            // keeps masks for the same-step reading (`per_link`), so no input reaches this.
            WaitMasks::Nodes(_) => unreachable!("node-wide wakes keep no masks"),
        }
    };
}

impl WaitMasks {
    /// Empty masks for links whose tail nodes have `tail_words` mask words each (64 inputs
    /// a word), on a network of `nodes` nodes whose busiest node has `max_inputs` inputs.
    /// Beyond 64 inputs, node-wide wakes, unless `per_link` (the same-step reading): then the
    /// words are counted before anything is allocated, and more than [`MAX_LINKS`] per event
    /// (a node with hundreds of thousands of inputs and outputs) is refused.
    pub(super) fn new(
        nodes: usize,
        max_inputs: usize,
        per_link: bool,
        tail_words: impl ExactSizeIterator<Item = u32> + Clone,
    ) -> Result<Self, OnlineError> {
        let links = tail_words.len();
        Ok(match max_inputs {
            0..=8 => Self::Bytes(cells(links)),
            9..=16 => Self::Halves(cells(links)),
            17..=32 => Self::Quads(cells(links)),
            33..=64 => Self::Word(cells(links)),
            _ if !per_link => {
                Self::Nodes(std::iter::repeat_with(C8::default).take(nodes).collect())
            }
            _ => {
                let total: u64 = tail_words.clone().map(u64::from).sum();
                if total > MAX_LINKS {
                    return Err(OnlineError::TooLarge {
                        what: "wait-mask words (links × their tail's input words)",
                        value: total,
                        max: MAX_LINKS,
                    });
                }
                let mut first = Vec::with_capacity(links);
                let mut n = 0u32;
                for w in tail_words {
                    first.push(n);
                    n += w;
                }
                Self::Words {
                    first,
                    words: cells(n as usize),
                }
            }
        })
    }

    /// Input bits `bits` of word `j` of node `node` sleep until link `e` (leaving `node`) has
    /// `event`: set in the link's mask, or the node flagged.
    #[inline(always)]
    pub(super) fn sleep(&self, event: Event, e: usize, node: u32, j: usize, bits: u64) {
        if let WaitMasks::Nodes(flags) = self {
            flags[node as usize].set(1);
        } else {
            at!(self, event, e, j, |c| c.store(c.load() | bits))
        }
    }

    /// Under node-wide wakes: whether `node` may have sleepers, and from now on not (its
    /// waker clears their asleep bits). `None` with per-link masks.
    #[inline(always)]
    pub(super) fn take_node(&self, node: u32) -> Option<bool> {
        match self {
            WaitMasks::Nodes(flags) => {
                let flag = &flags[node as usize];
                let was = flag.get() != 0;
                if was {
                    flag.set(0);
                }
                Some(was)
            }
            _ => None,
        }
    }

    /// Word `j` of link `e`'s mask for `event`.
    #[inline(always)]
    pub(super) fn get(&self, event: Event, e: usize, j: usize) -> u64 {
        at!(self, event, e, j, |c| c.load())
    }

    /// Word `j` of link `e`'s mask for `event`, cleared.
    #[inline(always)]
    pub(super) fn take(&self, event: Event, e: usize, j: usize) -> u64 {
        at!(self, event, e, j, |c| {
            let w = c.load();
            if w != 0 {
                c.store(0);
            }
            w
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_width_follows_the_busiest_node() {
        let w = |max, per_link| match WaitMasks::new(4, max, per_link, [1u32; 3].into_iter())
            .unwrap()
        {
            WaitMasks::Bytes(_) => 8,
            WaitMasks::Halves(_) => 16,
            WaitMasks::Quads(_) => 32,
            WaitMasks::Word(_) => 64,
            WaitMasks::Words { .. } => 65,
            WaitMasks::Nodes(_) => 0,
        };
        for per_link in [false, true] {
            assert_eq!(
                [1, 8, 9, 16, 17, 32, 33, 64].map(|max| w(max, per_link)),
                [8, 8, 16, 16, 32, 32, 64, 64]
            );
        }
        assert_eq!(w(65, true), 65);
        assert_eq!(w(65, false), 0);
    }

    #[test]
    fn masks_keep_their_bits_apart() {
        for max in [8, 16, 32, 64] {
            let m = WaitMasks::new(4, max, false, [1u32; 4].into_iter()).unwrap();
            let top = 1u64 << (max - 1);
            m.sleep(Event::Pop, 2, 0, 0, top | 1);
            m.sleep(Event::Release, 1, 0, 0, 2);
            assert_eq!(m.take_node(0), None);
            assert_eq!(m.get(Event::Pop, 2, 0), top | 1, "{max}");
            assert_eq!(m.get(Event::Release, 2, 0), 0);
            assert_eq!(m.get(Event::Pop, 1, 0), 0);
            assert_eq!(m.take(Event::Release, 1, 0), 2);
            assert_eq!(m.get(Event::Release, 1, 0), 0);
        }
        // Tails with 2, 1 and 3 words: link 2's words start after link 0's and link 1's.
        let m = WaitMasks::new(4, 130, true, [2u32, 1, 3].into_iter()).unwrap();
        m.sleep(Event::Pop, 2, 0, 2, 1 << 63);
        m.sleep(Event::Pop, 0, 0, 1, 5);
        assert_eq!(m.get(Event::Pop, 2, 2), 1 << 63);
        assert_eq!(m.get(Event::Pop, 0, 1), 5);
        assert_eq!(m.get(Event::Pop, 1, 0), 0);
        assert_eq!(m.take(Event::Pop, 0, 1), 5);
        assert_eq!(m.get(Event::Pop, 0, 1), 0);
    }

    #[test]
    fn too_many_words_are_refused_before_allocating() {
        // 2^13 links whose tails have 2^13 words each: 2^26 words, above the limit.
        let err = WaitMasks::new(
            1 << 10,
            1 << 19,
            true,
            std::iter::repeat_n(1u32 << 13, 1 << 13),
        )
        .unwrap_err();
        assert!(
            matches!(err, OnlineError::TooLarge { value, .. } if value == 1 << 26),
            "{err}"
        );
        // Node-wide wakes need no words: the same network is accepted.
        assert!(
            WaitMasks::new(
                1 << 10,
                1 << 19,
                false,
                std::iter::repeat_n(1u32 << 13, 1 << 13)
            )
            .is_ok()
        );
    }

    #[test]
    fn a_node_is_woken_once_per_sleep() {
        let m = WaitMasks::new(3, 100, false, [2u32; 5].into_iter()).unwrap();
        assert_eq!(m.take_node(1), Some(false));
        m.sleep(Event::Pop, 4, 1, 1, 1);
        m.sleep(Event::Release, 3, 1, 0, 8);
        assert_eq!(m.take_node(2), Some(false));
        assert_eq!(m.take_node(1), Some(true));
        assert_eq!(m.take_node(1), Some(false));
    }
}
