//! Integration tests of fatnet-online.
mod packet;
mod props;
