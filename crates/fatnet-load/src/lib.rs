//! Channel loads and the load factor.
#![deny(missing_docs)]
