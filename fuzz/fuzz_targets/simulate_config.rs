//! `fatnet simulate --config` files: the typed options read from TOML.
#![no_main]

use fatnet_scenario::PacketRunFile;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    let _ = PacketRunFile::parse(text);
});
