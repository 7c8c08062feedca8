//! Integration tests of the `fatnet` binary.

mod cli;
mod schedule;
