//! Integration tests of fatnet-repro: `paper` compares the generated tables with the papers.

mod constant_switch;
mod figures;
mod fuzz_replay;
mod greenberg_leiserson;
mod greenberg_oh_claims;
mod greenberg_oh_store;
mod leiserson_theorems;
mod lemma6;
mod open_questions;
mod paper;
mod paper_stamoulis;
mod runner;
mod stamoulis_fig7_5_7_8;
mod stamoulis_sensitivity;
mod sweep;
mod yuan_adaptive;
mod yuan_min_m;
mod yuan_opensm;
