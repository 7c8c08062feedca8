//! Integration tests of the `fatnet` binary.

mod cli;
mod clos;
mod collective;
mod common;
mod dynamic;
mod exchange;
mod fabric;
mod fabric_credit;
mod fabric_ebb;
mod fabric_failures;
mod fabric_readers;
mod fabric_report;
mod graph;
mod pipes;
mod queue;
mod route;
mod same_case;
mod schedule;
mod simulate;
mod simulate_fabric;
mod sizes;
mod sweep;
mod trials;
