//! Integration tests of fatnet-fabric: hand-written fixtures (always run), the shared real
//! fabrics (when `../shared/fabrics` is present), and property tests on bad input.

mod analysis;
mod fixtures;
mod opensm;
mod packet;
mod props;
mod readers;
mod shared;
mod topology;
