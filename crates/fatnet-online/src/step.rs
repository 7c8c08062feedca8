//! The synchronous step engine: the one loop of fatnet-online that advances discrete simulated
//! time (design: three time models, three engines; this is the second).
//!
//! A model implements [`StepModel`]: what happens *within* a step. The models are the packet
//! engine's two queueing models — input queues ([`Queueing::Input`](crate::packet::Queueing::Input),
//! `packet/sim.rs`) and output queues ([`Queueing::Output`](crate::packet::Queueing::Output),
//! `packet/outq.rs`) — Stamoulis' slotted greedy and adaptive schemes on per-node lists fed by
//! a streaming Poisson source ([`crate::slotted_cube`], one step per slot), and the indirect
//! broadcast scheme's gated source of 3-slot frames ([`crate::indirect_broadcast`], one step
//! per frame). [`drive`] owns the step counter and what happens *between* steps, identically
//! for every model:
//!
//! 1. the messages due at step `t` are released ([`StepModel::release`]);
//! 2. the run ends [`Outcome::Delivered`] once the model is [`finished`](StepModel::finished),
//!    else [`Outcome::StepLimit`] at `t = max_steps` (so a run of `max_steps` steps has run
//!    steps `0..max_steps`);
//! 3. an idle network ([`StepModel::idle`]: nothing queued, nothing waiting to be injected)
//!    jumps to the next release step (capped at `max_steps`), costing nothing for the idle
//!    stretch; those steps are neither simulated nor counted in the queue average's numerator,
//!    but they are counted in the step count passed to [`StepModel::finish`] once a later step
//!    runs;
//! 4. otherwise one step runs ([`StepModel::step`]); the report's step count becomes `t + 1`;
//!    conservation is checked if asked; a step that reports [`Step::Deadlocked`] ends the run
//!    [`Outcome::Deadlock`] (after the conservation check, so a bug is reported as such);
//! 5. `t += 1`.
//!
//! The driver is generic over the model (monomorphised, no dynamic dispatch), and a model's
//! `step` is kept out of line with its hot callees inlined into it, as they were inlined into
//! the model's own loop before: callgrind counts the same instructions per run as that loop
//! within 0.1 % on WORM N = 4096 (input queues) and 0.8 % more on output queues. The driver
//! draws no random numbers, so a model's draws are in the order the model makes them.

use crate::packet::Outcome;

/// What a step did, as far as the driver needs to know.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Step {
    /// The run goes on.
    Continue,
    /// Nothing moved and nothing ever will (every unit in flight waits for another): the run
    /// ends with [`Outcome::Deadlock`].
    Deadlocked,
}

/// A queueing model driven step by step by [`drive`]. Every method but
/// [`finish`](StepModel::finish) is called with the current step `t`; the driver calls them
/// in the order of the module documentation.
pub(crate) trait StepModel {
    /// What the model runs on, read-only (the packet engine's network; `()` for a model that
    /// holds its network).
    type Net: ?Sized;
    /// What a run reports.
    type Report;
    /// What a conservation check reports (a bug, never bad input).
    type Error;

    /// Releases the messages due at step `t` (release step at most `t`).
    fn release(&mut self, net: &Self::Net, t: u64);

    /// Whether the run is complete at step `t` (for a static batch: every message delivered).
    fn finished(&self, t: u64) -> bool;

    /// Whether nothing is in flight: no unit queued, waiting for injection, or being drained.
    /// The driver then skips to [`next_release`](StepModel::next_release).
    fn idle(&self) -> bool;

    /// The release step of the next message not yet released, if any.
    fn next_release(&self) -> Option<u64>;

    /// Runs step `t`.
    fn step(&mut self, net: &Self::Net, t: u64) -> Step;

    /// Checks conservation after step `t`.
    ///
    /// # Errors
    ///
    /// A conservation error (a bug) when units were created or lost.
    fn check_conservation(&self, net: &Self::Net, t: u64) -> Result<(), Self::Error>;

    /// The report of a run that ended with `outcome` after `steps` steps.
    fn finish(self, outcome: Outcome, steps: u64) -> Self::Report;
}

/// Runs `model` from step 0 until it is finished, deadlocks or reaches `max_steps`; checks
/// conservation after every step when `check_conservation` is set.
///
/// # Errors
///
/// The error of [`StepModel::check_conservation`].
#[inline]
pub(crate) fn drive<M: StepModel>(
    mut model: M,
    net: &M::Net,
    max_steps: u64,
    check_conservation: bool,
) -> Result<M::Report, M::Error> {
    let mut t = 0u64;
    let mut steps = 0u64;
    let outcome = loop {
        model.release(net, t);
        if model.finished(t) {
            break Outcome::Delivered;
        }
        if t >= max_steps {
            break Outcome::StepLimit;
        }
        // Skip idle stretches before the next release.
        if model.idle()
            && let Some(next) = model.next_release()
            && next > t
        {
            t = next.min(max_steps);
            continue;
        }
        let step = model.step(net, t);
        steps = t + 1;
        if check_conservation {
            model.check_conservation(net, t)?;
        }
        if step == Step::Deadlocked {
            break Outcome::Deadlock { step: t };
        }
        t += 1;
    };
    Ok(model.finish(outcome, steps))
}
