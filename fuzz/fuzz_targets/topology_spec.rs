//! Topology specs: parse; a spec that parses prints to a spec that parses to itself.
#![no_main]

use fatnet_topology::TopologySpec;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    if let Ok(spec) = text.parse::<TopologySpec>() {
        let shown = spec.to_string();
        let again: TopologySpec = shown
            .parse()
            .unwrap_or_else(|e| panic!("`{shown}` (from `{text}`) does not parse: {e}"));
        assert_eq!(again, spec, "`{text}` round trip");
    }
});
