//! Integration tests of fatnet-repro: `paper` compares the generated tables with the papers.

mod paper;
mod paper_stamoulis;
mod yuan_min_m;
