//! Integration tests of fatnet-online.
mod props;
