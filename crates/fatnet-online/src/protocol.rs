//! The run protocol of a steady-state simulation, one type for every dynamic simulator of
//! fatnet-online: the continuous-time greedy recursion ([`crate::greedy_cube`]), the slotted
//! schemes ([`crate::slotted_cube`]) and the broadcast schemes ([`crate::direct_broadcast`],
//! [`crate::periodic_broadcast`], [`crate::indirect_broadcast`]).
//!
//! **The protocol** (Stamoulis' simulations, thesis chapters 5–7): the network
//! starts empty; packets are generated from time 0; those generated in `[warmup, horizon)` are
//! measured; the measured packets are split into `batches` batches for a batch-means
//! confidence interval. What happens past the horizon (generation goes on until the measured
//! packets are delivered, or stops) and how a batch is formed (a window of generation time, or
//! a block of packets in generation order) are the simulator's, documented with it.
//!
//! **The rules, in one place** ([`RunProtocol::check`]): the horizon is positive and finite,
//! the warm-up in `[0, horizon)`, at least one batch; in slotted time
//! ([`TimeModel::Slotted`]) the horizon and the warm-up are whole numbers of slots and there
//! are at most as many batches as measured slots. One batch is allowed: the estimate is then
//! the plain mean and its interval's half-width is NaN (a confidence interval needs two).

use serde::{Deserialize, Serialize};

use crate::{OnlineError, OnlineParameter};

/// How long a steady-state run is and what it measures (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RunProtocol {
    /// Packets generated before this time (time units; slots in slotted time) are not
    /// measured.
    pub warmup: f64,
    /// Packets generated in `[warmup, horizon)` are measured.
    pub horizon: f64,
    /// Batches of the measured packets for the batch-means interval, at least 1 (2 for an
    /// interval).
    pub batches: u32,
}

impl Default for RunProtocol {
    /// 1,000 time units of warm-up, a horizon of 10,000, 20 batches.
    fn default() -> Self {
        RunProtocol {
            warmup: 1_000.0,
            horizon: 10_000.0,
            batches: 20,
        }
    }
}

/// Whether a simulator's time is continuous or counted in whole slots.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TimeModel {
    /// Continuous time: any finite horizon and warm-up.
    Continuous,
    /// Slotted time: whole numbers of slots.
    Slotted,
}

impl RunProtocol {
    /// The protocol `[warmup, horizon)` with `batches` batches (unchecked: see
    /// [`RunProtocol::check`]).
    pub const fn new(warmup: f64, horizon: f64, batches: u32) -> Self {
        RunProtocol {
            warmup,
            horizon,
            batches,
        }
    }

    /// The protocol of a slotted run, in whole slots.
    pub const fn slots(warmup: u64, horizon: u64, batches: u32) -> Self {
        RunProtocol::new(warmup as f64, horizon as f64, batches)
    }

    /// Checks the protocol for a simulator in `time` (the rules of the module documentation).
    ///
    /// # Errors
    ///
    /// [`OnlineError::BadParameter`] naming the first parameter at fault
    /// ([`OnlineParameter::Warmup`], [`OnlineParameter::Horizon`] or
    /// [`OnlineParameter::Batches`]).
    pub fn check(&self, time: TimeModel) -> Result<(), OnlineError> {
        let bad = |param, value: f64, expected| {
            Err(OnlineError::BadParameter {
                param,
                value: value.to_string(),
                expected,
            })
        };
        let slotted = time == TimeModel::Slotted;
        if !(self.horizon.is_finite() && self.horizon > 0.0) {
            return bad(
                OnlineParameter::Horizon,
                self.horizon,
                "positive and finite",
            );
        }
        if slotted && self.horizon.fract() != 0.0 {
            return bad(
                OnlineParameter::Horizon,
                self.horizon,
                "a whole number of slots",
            );
        }
        if slotted && self.horizon > MAX_WHOLE {
            return bad(OnlineParameter::Horizon, self.horizon, "at most 2^53 slots");
        }
        if !(self.warmup >= 0.0 && self.warmup < self.horizon) {
            return bad(
                OnlineParameter::Warmup,
                self.warmup,
                "at least 0 and below the horizon",
            );
        }
        if slotted && self.warmup.fract() != 0.0 {
            return bad(
                OnlineParameter::Warmup,
                self.warmup,
                "a whole number of slots",
            );
        }
        if self.batches == 0 {
            return bad(OnlineParameter::Batches, 0.0, "at least 1");
        }
        if slotted && f64::from(self.batches) > self.horizon - self.warmup {
            return bad(
                OnlineParameter::Batches,
                f64::from(self.batches),
                "at most the number of measured slots, horizon − warm-up",
            );
        }
        Ok(())
    }

    /// The warm-up and the horizon in whole slots, after [`RunProtocol::check`] for
    /// [`TimeModel::Slotted`].
    ///
    /// # Errors
    ///
    /// As [`RunProtocol::check`].
    pub fn whole_slots(&self) -> Result<(u64, u64), OnlineError> {
        self.check(TimeModel::Slotted)?;
        Ok((self.warmup as u64, self.horizon as u64))
    }
}

/// The largest whole number of slots: every integer up to 2^53 is an `f64`.
const MAX_WHOLE: f64 = 9_007_199_254_740_992.0;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rules() {
        let ok = RunProtocol::new(10.0, 100.0, 5);
        assert!(ok.check(TimeModel::Slotted).is_ok());
        assert_eq!(ok.whole_slots().ok(), Some((10, 100)));
        let param = |p: RunProtocol, time| match p.check(time) {
            Err(OnlineError::BadParameter { param, .. }) => param,
            other => panic!("{other:?}"),
        };
        use OnlineParameter::*;
        for h in [0.0, -1.0, f64::INFINITY, f64::NAN] {
            assert_eq!(
                param(RunProtocol { horizon: h, ..ok }, TimeModel::Continuous),
                Horizon
            );
        }
        let half = RunProtocol::new(10.0, 100.5, 5);
        assert!(half.check(TimeModel::Continuous).is_ok());
        assert_eq!(param(half, TimeModel::Slotted), Horizon);
        for w in [-1.0, 100.0, 200.0, f64::NAN] {
            assert_eq!(
                param(RunProtocol { warmup: w, ..ok }, TimeModel::Continuous),
                Warmup
            );
        }
        assert_eq!(
            param(RunProtocol { warmup: 0.5, ..ok }, TimeModel::Slotted),
            Warmup
        );
        assert_eq!(
            param(RunProtocol { batches: 0, ..ok }, TimeModel::Continuous),
            Batches
        );
        assert!(
            RunProtocol { batches: 1, ..ok }
                .check(TimeModel::Slotted)
                .is_ok()
        );
        // 90 measured slots: 90 batches fit, 91 do not (in continuous time they do).
        assert!(
            RunProtocol { batches: 90, ..ok }
                .check(TimeModel::Slotted)
                .is_ok()
        );
        let many = RunProtocol { batches: 91, ..ok };
        assert_eq!(param(many, TimeModel::Slotted), Batches);
        assert!(many.check(TimeModel::Continuous).is_ok());
        let e = many.check(TimeModel::Slotted).unwrap_err();
        assert_eq!(
            e.to_string(),
            "batches = 91 is out of range (at most the number of measured slots, horizon − warm-up)"
        );
    }
}
