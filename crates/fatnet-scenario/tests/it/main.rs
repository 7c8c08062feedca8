//! Integration tests of fatnet-scenario.

mod dynamic;
mod packet;
mod trials;
