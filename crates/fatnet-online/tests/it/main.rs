//! Integration tests of fatnet-online.
mod indirect;
mod multicast;
mod output_queues;
mod packet;
mod packet_props;
mod props;
