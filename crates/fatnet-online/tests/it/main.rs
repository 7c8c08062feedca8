//! Integration tests of fatnet-online.
mod any_topology;
mod direct_schemes;
mod draws_before;
mod greedy_cube;
mod indirect;
mod keyed_draws;
mod multicast;
mod output_queues;
mod packet;
mod packet_props;
mod props;
mod slotted_cube;
mod slotted_engine;
mod two_sample;
