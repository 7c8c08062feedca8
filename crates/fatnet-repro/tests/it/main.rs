//! Integration tests of fatnet-repro: `paper` compares the generated tables with the papers.

mod greenberg_leiserson;
mod paper;
mod paper_stamoulis;
mod runner;
mod yuan_min_m;
