//! A scenario's message set: made once (a fixed pattern) or drawn per trial (a randomized
//! one), as every simulator and scheduler of this crate draws it.

use std::borrow::Cow;

use fatnet_traffic::{MessageSet, TrafficSpec};

use crate::{ScenarioError, derive_seed};

/// The messages of a prepared scenario.
#[derive(Debug)]
pub(crate) enum Pattern {
    /// A fixed pattern, made once from the run's master seed.
    Fixed(MessageSet),
    /// A randomized pattern, drawn per trial from the trial's seed.
    PerTrial(TrafficSpec),
}

impl Pattern {
    /// The pattern of `spec` on `processors` for a run with master seed `seed`: a fixed one is
    /// made now; a randomized one is drawn for trial 0 and dropped, so that traffic that does
    /// not suit the network fails before any trial runs.
    pub(crate) fn new(
        spec: &TrafficSpec,
        processors: u32,
        seed: u64,
    ) -> Result<Pattern, ScenarioError> {
        if spec.is_randomized() {
            generate(spec, processors, derive_seed(seed, 0))?;
            Ok(Pattern::PerTrial(spec.clone()))
        } else {
            Ok(Pattern::Fixed(generate(spec, processors, seed)?))
        }
    }

    /// The messages of the trial with seed `seed`.
    pub(crate) fn draw(
        &self,
        processors: u32,
        seed: u64,
    ) -> Result<Cow<'_, MessageSet>, ScenarioError> {
        match self {
            Pattern::Fixed(messages) => Ok(Cow::Borrowed(messages)),
            Pattern::PerTrial(spec) => generate(spec, processors, seed).map(Cow::Owned),
        }
    }

    /// Whether each trial draws its own instance.
    pub(crate) fn per_trial(&self) -> bool {
        matches!(self, Pattern::PerTrial(_))
    }
}

fn generate(spec: &TrafficSpec, processors: u32, seed: u64) -> Result<MessageSet, ScenarioError> {
    spec.generate(processors, seed)
        .map_err(|source| ScenarioError::Traffic {
            spec: spec.to_string(),
            processors,
            source,
        })
}
