//! Integration tests of fatnet-scenario.

mod collective;
mod dynamic;
mod packet;
mod trials;
