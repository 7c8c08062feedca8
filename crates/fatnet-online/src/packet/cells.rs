//! Words of the packet engine's state that several threads of one run may share.
//!
//! A step on several threads (`sim`) gives every word one writer per phase of the step (the
//! thread that owns the node the word belongs to), with barriers between the phases. The
//! words are atomics accessed with relaxed loads and stores — plain moves on x86-64 and
//! AArch64, no read-modify-write — so the engine needs no `unsafe`, and a broken ownership
//! rule would show as a run that depends on the thread count (tested), never as undefined
//! behaviour. The few words two threads may change in one phase use atomic read-modify-writes
//! ([`C64::fetch_or`], [`C64::fetch_and_not`]): bits of the summary of a bit set, ejection
//! queues to drain, and a node's non-empty, asleep and active bits, which the threads that
//! push into its inputs or pop its outputs set and clear in the apply phases. Setting and
//! clearing bits commute, so the words end every phase the same in any order.

use std::sync::atomic::{AtomicU8, AtomicU16, AtomicU32, AtomicU64, Ordering::Relaxed};

use zerocopy::{FromBytes, IntoBytes, KnownLayout};

macro_rules! cell {
    ($(#[$doc:meta])* $name:ident, $atomic:ty, $t:ty) => {
        $(#[$doc])*
        ///
        /// Any bit pattern is a value and it has no padding (`zerocopy`'s derives check both),
        /// so link records of these words may live in a mapping viewed as records
        /// (`sim::Records`).
        #[derive(Debug, Default, FromBytes, IntoBytes, KnownLayout)]
        #[repr(transparent)]
        pub(super) struct $name($atomic);

        impl $name {
            #[inline(always)]
            pub(super) const fn new(v: $t) -> Self {
                Self(<$atomic>::new(v))
            }
            #[inline(always)]
            pub(super) fn get(&self) -> $t {
                self.0.load(Relaxed)
            }
            #[inline(always)]
            pub(super) fn set(&self, v: $t) {
                self.0.store(v, Relaxed)
            }
        }

        impl Clone for $name {
            fn clone(&self) -> Self {
                Self::new(self.get())
            }
        }
    };
}

cell!(
    /// A byte with one writer per phase.
    C8,
    AtomicU8,
    u8
);
cell!(
    /// A 16-bit word with one writer per phase.
    C16,
    AtomicU16,
    u16
);
cell!(
    /// A 32-bit word with one writer per phase.
    C32,
    AtomicU32,
    u32
);
cell!(
    /// A 64-bit word with one writer per phase (or set by [`C64::fetch_or`]).
    C64,
    AtomicU64,
    u64
);

macro_rules! bits {
    ($name:ident, $t:ty) => {
        impl $name {
            /// Sets `bits` (its one writer).
            #[inline(always)]
            pub(super) fn or(&self, bits: $t) {
                self.set(self.get() | bits);
            }

            /// Clears `bits` (its one writer).
            #[inline(always)]
            pub(super) fn and_not(&self, bits: $t) {
                self.set(self.get() & !bits);
            }

            /// Sets `bits` when several threads may set bits of the word in the same phase
            /// (an atomic read-modify-write, skipped when they are set already).
            #[inline(always)]
            pub(super) fn fetch_or(&self, bits: $t) {
                if self.get() & bits != bits {
                    self.0.fetch_or(bits, Relaxed);
                }
            }

            /// Clears `bits` when several threads may clear bits of the word in the same
            /// phase (an atomic read-modify-write, skipped when they are clear already).
            #[inline(always)]
            pub(super) fn fetch_and_not(&self, bits: $t) {
                if self.get() & bits != 0 {
                    self.0.fetch_and(!bits, Relaxed);
                }
            }
        }
    };
}
bits!(C8, u8);
bits!(C64, u64);

/// Per mask word (`sim`), which inputs are non-empty ([`NONEMPTY`]) and which asleep
/// ([`ASLEEP`]): a byte each when every node has one word of at most 8 inputs (the k-ary
/// n-trees, the butterfly fat-tree), else a 64-bit word each. On the 4-ary 10-tree's 3.7 M
/// nodes the bytes are 7 MB where the words were 59 MB. Bits are given and returned as the
/// low bits of a `u64`.
#[derive(Debug)]
pub(super) enum NodeMasks {
    Bytes([Vec<C8>; 2]),
    Words([Vec<C64>; 2]),
}

/// The non-empty inputs' masks of [`NodeMasks`].
pub(super) const NONEMPTY: usize = 0;
/// The asleep inputs' masks of [`NodeMasks`].
pub(super) const ASLEEP: usize = 1;

/// Runs `$op` on word `$w` of masks `$which`, as `u64` bits.
macro_rules! on_mask {
    ($self:ident, $which:ident, $w:ident, $op:ident, $bits:ident) => {
        match $self {
            NodeMasks::Bytes(m) => {
                debug_assert!($bits <= u64::from(u8::MAX));
                m[$which][$w].$op($bits as u8)
            }
            NodeMasks::Words(m) => m[$which][$w].$op($bits),
        }
    };
}

impl NodeMasks {
    /// `words` zero words of each kind, bytes when `bytes`.
    pub(super) fn new(words: usize, bytes: bool) -> Self {
        if bytes {
            Self::Bytes([0, 1].map(|_| std::iter::repeat_with(C8::default).take(words).collect()))
        } else {
            Self::Words([0, 1].map(|_| words64(words)))
        }
    }

    #[inline(always)]
    pub(super) fn get(&self, which: usize, w: usize) -> u64 {
        match self {
            Self::Bytes(m) => u64::from(m[which][w].get()),
            Self::Words(m) => m[which][w].get(),
        }
    }

    /// The inputs of word `w` that are non-empty and awake.
    #[inline(always)]
    pub(super) fn ready(&self, w: usize) -> u64 {
        match self {
            Self::Bytes(m) => u64::from(m[NONEMPTY][w].get() & !m[ASLEEP][w].get()),
            Self::Words(m) => m[NONEMPTY][w].get() & !m[ASLEEP][w].get(),
        }
    }

    /// [`C64::or`] on word `w` of `which`.
    #[inline(always)]
    pub(super) fn or(&self, which: usize, w: usize, bits: u64) {
        on_mask!(self, which, w, or, bits)
    }

    /// [`C64::and_not`] on word `w` of `which`.
    #[inline(always)]
    pub(super) fn and_not(&self, which: usize, w: usize, bits: u64) {
        on_mask!(self, which, w, and_not, bits)
    }

    /// [`C64::fetch_or`] on word `w` of `which`.
    #[inline(always)]
    pub(super) fn fetch_or(&self, which: usize, w: usize, bits: u64) {
        on_mask!(self, which, w, fetch_or, bits)
    }

    /// [`C64::fetch_and_not`] on word `w` of `which`.
    #[inline(always)]
    pub(super) fn fetch_and_not(&self, which: usize, w: usize, bits: u64) {
        on_mask!(self, which, w, fetch_and_not, bits)
    }

    /// The number of words.
    pub(super) fn len(&self) -> usize {
        match self {
            Self::Bytes(m) => m[0].len(),
            Self::Words(m) => m[0].len(),
        }
    }
}

/// `n` zero words.
pub(super) fn words64(n: usize) -> Vec<C64> {
    std::iter::repeat_with(C64::default).take(n).collect()
}
