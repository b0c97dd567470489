//! What the evaluation binaries' command lines share.

use anyhow::{Context, Result};

/// The number following `flag` among `args` (`--pairs 60`).
pub fn number(args: &mut impl Iterator<Item = String>, flag: &str) -> Result<usize> {
    args.next()
        .with_context(|| format!("{flag} needs a number"))?
        .parse::<usize>()
        .with_context(|| format!("{flag} needs a number (0, 1, 2, …)"))
}
