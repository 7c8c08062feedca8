//! Integration tests of fatnet-online.
mod multicast;
mod packet;
mod packet_props;
mod props;
