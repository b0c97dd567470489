//! End-to-end tests: the real `wit` binary, a real daemon on a temp repo, real git.
