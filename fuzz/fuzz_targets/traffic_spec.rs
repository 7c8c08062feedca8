//! Traffic specs: parse; round trip; generate on 16 processors (never reading a file).
#![no_main]

use fatnet_traffic::TrafficSpec;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    if let Ok(spec) = text.parse::<TrafficSpec>() {
        let shown = spec.to_string();
        let again: TrafficSpec = shown
            .parse()
            .unwrap_or_else(|e| panic!("`{shown}` (from `{text}`) does not parse: {e}"));
        assert_eq!(again.to_string(), shown, "`{text}` round trip");
        if !matches!(spec, TrafficSpec::File { .. }) {
            // Errors are fine (a pattern may need more processors); panics are not.
            let _ = spec.generate(16, 7);
        }
    }
});
