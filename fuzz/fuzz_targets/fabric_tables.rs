//! libFuzzer harness for [`fatnet_fuzz::fabric_tables`] (the body, shared with the test suite's replay).
#![no_main]

libfuzzer_sys::fuzz_target!(|bytes: &[u8]| fatnet_fuzz::fabric_tables(bytes));
