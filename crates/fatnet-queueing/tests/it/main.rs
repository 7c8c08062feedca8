//! Integration tests of fatnet-queueing: `props` checks the lemmas and the monotonicity of the
//! closed forms with proptest (and one seeded Monte Carlo check of Lemma 5's exact formula);
//! `paper` checks the note's reference values for the congestion parameter `r`.

mod paper;
mod props;
mod stamoulis;
