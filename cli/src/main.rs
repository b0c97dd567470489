//! `wit`: coordination for AI coding agents sharing one repository.
fn main() {}
