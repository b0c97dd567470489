//! `file:name` symbol paths (`src/auth.ts:validateToken`).

use std::fmt;

/// A symbol path split at its **first** colon into a file and a symbol name.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SymbolPath<'a> {
    /// The file, relative to the repository root as the client wrote it.
    pub file: &'a str,
    /// The symbol name (bare `f` or qualified `Class.method`).
    pub name: &'a str,
}

impl<'a> SymbolPath<'a> {
    /// Splits `path` at the first colon; `None` when it has none.
    pub fn parse(path: &'a str) -> Option<Self> {
        let (file, name) = path.split_once(':')?;
        Some(Self { file, name })
    }
}

impl fmt::Display for SymbolPath<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.file, self.name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_at_the_first_colon() {
        let p = SymbolPath::parse("src/a.ts:ns:f").unwrap();
        assert_eq!((p.file, p.name), ("src/a.ts", "ns:f"));
        assert!(SymbolPath::parse("src/a.ts").is_none());
        assert_eq!(SymbolPath::parse(":f").unwrap().file, "");
        assert_eq!(p.to_string(), "src/a.ts:ns:f");
    }
}
