//! How many trials, from which seed, on how many threads: the options every run shares.

use serde::{Deserialize, Serialize};

use crate::runner::RunnerConfig;
use crate::{Parameter, ScenarioError};

/// The most worker threads a run accepts: far more than any machine has cores, few enough
/// that asking for them cannot exhaust the operating system.
pub const MAX_THREADS: usize = 4096;

/// The run options as users give them (every one optional); [`resolve`](Self::resolve)
/// applies the defaults.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
#[serde(deny_unknown_fields)]
pub struct RunOptions {
    /// Number of independent trials [default: 1].
    #[cfg_attr(feature = "clap", arg(long))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trials: Option<u64>,
    /// Master seed; trial i derives its own (see TRIALS AND SEEDS) [default: 1].
    #[cfg_attr(feature = "clap", arg(long))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// Worker threads [default: all cores]: trials run on them, and a large packet run splits
    /// its steps between them; results do not depend on it.
    #[cfg_attr(feature = "clap", arg(long))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threads: Option<usize>,
}

/// Resolved run options.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Run {
    /// Trials, at least 1.
    pub trials: u64,
    /// The master seed.
    pub seed: u64,
    /// Threads.
    pub runner: RunnerConfig,
}

impl RunOptions {
    /// `self`, with the options it does not give taken from `fallback`.
    pub fn or(self, fallback: RunOptions) -> RunOptions {
        RunOptions {
            trials: self.trials.or(fallback.trials),
            seed: self.seed.or(fallback.seed),
            threads: self.threads.or(fallback.threads),
        }
    }

    /// The run: 1 trial, seed 1 and every core unless given.
    ///
    /// # Errors
    ///
    /// [`ScenarioError::OutOfRange`] for 0 trials, or threads outside `1..=`[`MAX_THREADS`]
    /// ([`RunnerConfig::check`]).
    pub fn resolve(&self) -> Result<Run, ScenarioError> {
        let trials = self.trials.unwrap_or(1);
        if trials == 0 {
            return Err(ScenarioError::OutOfRange {
                param: Parameter::Trials,
                value: "0".into(),
                expected: "at least 1",
            });
        }
        let runner = RunnerConfig {
            threads: self.threads,
        };
        runner.check()?;
        Ok(Run {
            trials,
            seed: self.seed.unwrap_or(1),
            runner,
        })
    }
}
