//! Integration tests of `fatnet-traffic`: one binary, one module per concern.

mod props;
