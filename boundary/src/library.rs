//! Plugin libraries: opened once without following symlinks, read from that descriptor,
//! hashed, checked, and loaded from a sealed in-memory copy of exactly the hashed bytes.
