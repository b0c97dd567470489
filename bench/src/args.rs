//! What the evaluation binaries' command lines share.

use std::path::PathBuf;

use anyhow::{Context, Result, bail};

/// The number following `flag` among `args` (`--pairs 60`).
pub fn number(args: &mut impl Iterator<Item = String>, flag: &str) -> Result<usize> {
    args.next()
        .with_context(|| format!("{flag} needs a number"))?
        .parse::<usize>()
        .with_context(|| format!("{flag} needs a number (0, 1, 2, …)"))
}

/// Any other argument of an evaluation's command line: an option it does not know is an
/// error, anything else is the one repository it reads (`repository`, set once).
pub fn repository_or_unknown(repository: &mut Option<PathBuf>, arg: &str) -> Result<()> {
    if arg.starts_with('-') {
        bail!("unknown argument {arg:?} (see --help)");
    }
    if repository.replace(arg.into()).is_some() {
        bail!("one repository only (see --help)");
    }
    Ok(())
}

/// The repository the command line named, or an error asking for it.
pub fn required_repository(repository: Option<PathBuf>) -> Result<PathBuf> {
    repository.context("which repository? (see --help)")
}
