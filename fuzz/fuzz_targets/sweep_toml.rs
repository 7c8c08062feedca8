//! Sweep files: the TOML checker (grid expansion included) on any text.
#![no_main]

use fatnet_repro::sweep::SweepSpec;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    let _ = SweepSpec::parse(text);
});
