//! Message-set files: the text reader and the JSON reader on the same bytes.
#![no_main]

use fatnet_traffic::io::{read_json, read_text};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    if let Ok(set) = read_text(bytes, 64) {
        assert!(set.messages().iter().all(|m| m.src < 64 && m.dst < 64));
    }
    let _ = read_json(bytes);
});
