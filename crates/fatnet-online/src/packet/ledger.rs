//! Message bookkeeping shared by the two step loops (input and output queues): the release
//! order, deliveries and latencies, and the report.

use super::{Injection, Multicast, Outcome, PacketConfig, PacketReport};

/// Releases and deliveries of a run's messages (unicasts first, then multicasts).
#[derive(Debug)]
pub(super) struct Ledger<'a> {
    injections: &'a [Injection],
    multicasts: &'a [Multicast],
    /// Flit-steps per engine step.
    step: u64,
    record: bool,
    /// Messages in order of release (stable: equal releases in message order).
    order: Vec<u32>,
    next: usize,
    pub(super) delivered: u64,
    last: u64,
    latency_sum: u128,
    latencies: Vec<u64>,
}

impl<'a> Ledger<'a> {
    pub(super) fn new(
        injections: &'a [Injection],
        multicasts: &'a [Multicast],
        config: &PacketConfig,
    ) -> Self {
        let messages = injections.len() + multicasts.len();
        let mut ledger = Ledger {
            injections,
            multicasts,
            step: config.step_length(),
            record: config.record_latencies,
            order: (0..messages as u32).collect(),
            next: 0,
            delivered: 0,
            last: 0,
            latency_sum: 0,
            latencies: if config.record_latencies {
                vec![u64::MAX; messages]
            } else {
                Vec::new()
            },
        };
        let mut order = std::mem::take(&mut ledger.order);
        order.sort_by_key(|&m| ledger.release_of(m as usize));
        ledger.order = order;
        ledger
    }

    /// Number of messages.
    pub(super) fn total(&self) -> u64 {
        self.order.len() as u64
    }

    /// Release step of message `m`.
    #[inline]
    pub(super) fn release_of(&self, m: usize) -> u64 {
        match self.injections.get(m) {
            Some(inj) => inj.release,
            None => self.multicasts[m - self.injections.len()].release,
        }
    }

    /// The next message due at step `t` (its release step ≤ `t`), taken off the list.
    #[inline]
    pub(super) fn pop_due(&mut self, t: u64) -> Option<usize> {
        let &m = self.order.get(self.next)?;
        if self.release_of(m as usize) > t {
            return None;
        }
        self.next += 1;
        Some(m as usize)
    }

    /// The release step of the next message not yet released.
    pub(super) fn next_release(&self) -> Option<u64> {
        self.order
            .get(self.next)
            .map(|&m| self.release_of(m as usize))
    }

    /// Message `m`, released at `release`, is delivered in step `t`.
    #[inline]
    pub(super) fn deliver(&mut self, m: usize, release: u64, t: u64) {
        self.delivered += 1;
        self.last = self.last.max(t);
        let latency = (t - release) * self.step;
        self.latency_sum += u128::from(latency);
        if self.record {
            self.latencies[m] = latency;
        }
    }

    /// The report of a run that ended with `outcome` after `steps` steps; the remaining
    /// fields come from the step loop.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn report(
        self,
        outcome: Outcome,
        steps: u64,
        congestion: u32,
        dilation: u32,
        unit_hops: u64,
        queued_sum: u128,
        max_queue: u32,
    ) -> PacketReport {
        PacketReport {
            outcome,
            messages: self.total(),
            delivered: self.delivered,
            steps,
            latency: if self.delivered > 0 {
                self.last * self.step
            } else {
                0
            },
            mean_latency: if self.delivered > 0 {
                self.latency_sum as f64 / self.delivered as f64
            } else {
                0.0
            },
            congestion,
            dilation,
            unit_hops,
            mean_queued: if steps > 0 {
                queued_sum as f64 / steps as f64
            } else {
                0.0
            },
            max_queue,
            latencies: self.record.then_some(self.latencies),
            stored: None,
            stored_peak: None,
        }
    }
}
