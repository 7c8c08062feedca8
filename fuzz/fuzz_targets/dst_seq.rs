//! libFuzzer harness for [`fatnet_fuzz::dst_seq`] (the body, shared with the test suite's replay).
#![no_main]

libfuzzer_sys::fuzz_target!(|bytes: &[u8]| fatnet_fuzz::dst_seq(bytes));
