//! Integration tests of fatnet-online.
mod packet;
mod packet_props;
mod props;
