//! Integration tests of fatnet-fabric: hand-written fixtures (always run), the shared real
//! fabrics (when `../shared/fabrics` is present), and property tests on bad input.

mod analysis;
mod counts;
mod credit;
mod ebb;
mod failures;
mod fixtures;
mod opensm;
mod packet;
mod props;
mod readers;
mod report;
mod shared;
mod topology;
