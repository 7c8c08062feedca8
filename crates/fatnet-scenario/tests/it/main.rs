//! Integration tests of fatnet-scenario.

mod packet;
