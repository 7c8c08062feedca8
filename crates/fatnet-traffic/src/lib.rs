//! Message sets and traffic patterns.
#![deny(missing_docs)]
