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

macro_rules! cell {
    ($(#[$doc:meta])* $name:ident, $atomic:ty, $t:ty) => {
        $(#[$doc])*
        #[derive(Debug, Default)]
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

impl C64 {
    /// Sets `bits` (its one writer).
    #[inline(always)]
    pub(super) fn or(&self, bits: u64) {
        self.set(self.get() | bits);
    }

    /// Clears `bits` (its one writer).
    #[inline(always)]
    pub(super) fn and_not(&self, bits: u64) {
        self.set(self.get() & !bits);
    }

    /// Sets `bits` when several threads may set bits of the word in the same phase (an
    /// atomic read-modify-write, skipped when they are set already).
    #[inline(always)]
    pub(super) fn fetch_or(&self, bits: u64) {
        if self.get() & bits != bits {
            self.0.fetch_or(bits, Relaxed);
        }
    }

    /// Clears `bits` when several threads may clear bits of the word in the same phase (an
    /// atomic read-modify-write, skipped when they are clear already).
    #[inline(always)]
    pub(super) fn fetch_and_not(&self, bits: u64) {
        if self.get() & bits != 0 {
            self.0.fetch_and(!bits, Relaxed);
        }
    }
}

/// `n` words holding `v`.
pub(super) fn words32(n: usize, v: u32) -> Vec<C32> {
    std::iter::repeat_with(|| C32::new(v)).take(n).collect()
}

/// `n` zero words.
pub(super) fn words64(n: usize) -> Vec<C64> {
    std::iter::repeat_with(C64::default).take(n).collect()
}
