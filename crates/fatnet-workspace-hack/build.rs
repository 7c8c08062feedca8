//! Empty: a build script is what makes cargo resolve this crate's build-dependencies, so that
//! host-side crates (syn, under every derive macro) get the workspace's features too.

fn main() {}
