//! Go calls resolved by the language's own rules.
//!
//! - `f()`: the package's (the directory's) top-level `f`. When `f` is a type, `f(x)` is a
//!   conversion, which the Go spec does not make a call: no edge to the type, ever.
//! - `pkg.F()`: the top-level `F` of the package an import names (the directory matching
//!   the longest suffix of its path); a path whose first element has no dot is the
//!   standard library's, as the go command reads it, never the repository's
//!   (`encoding/json` is not `codec/json`).
//! - `v.M()` on a variable whose declared type the analyzer read (`new:T`: a method's
//!   receiver `c *Context`, a parameter, `var v T`, `v := &T{…}`): the method `M` of `T`
//!   in the package (`new:pkg.T`: of `pkg`).
//! - Any other receiver (a value of unknown type) resolves nothing: a method named `M`
//!   somewhere is not the one called.

use std::sync::Arc;

use wit_core::SymbolKind;

use crate::{Graph, SiteRef, SymbolRef, packages, paths};

/// What a name means at the top level of a Go package.
pub(crate) enum TopLevel {
    /// A function.
    Function(SymbolRef),
    /// A type: calling it is a conversion.
    Type,
}

impl Graph {
    /// Where the Go call `site` of `key` goes (see the module docs).
    pub(crate) fn go_resolve(&self, key: &Arc<str>, site: SiteRef<'_>) -> Option<SymbolRef> {
        let callee = site.callee;
        match site.receiver {
            None => match self.go_top_level(paths::dir(key), Some(key), callee)? {
                TopLevel::Function(f) => Some(f),
                TopLevel::Type => None,
            },
            Some("") => None,
            Some(r) => {
                if let Some(typed) = r.strip_prefix("new:") {
                    let (dir, ty) = match typed.split_once('.') {
                        Some((pkg, ty)) => (self.go_imported_dir(key, pkg)?, ty),
                        None => (paths::dir(key).to_owned(), typed),
                    };
                    return self.go_method(&dir, Some(key), ty, callee);
                }
                let dir = self.go_imported_dir(key, r)?;
                match self.go_top_level(&dir, None, callee)? {
                    TopLevel::Function(f) => Some(f),
                    TopLevel::Type => None,
                }
            }
        }
    }

    /// Whether the plain call `callee` of `key` converts to a type of the package.
    pub(crate) fn go_conversion(&self, key: &Arc<str>, site: SiteRef<'_>) -> bool {
        let dir = match site.receiver {
            None => paths::dir(key).to_owned(),
            Some(r) if !r.is_empty() && !r.starts_with("new:") => {
                match self.go_imported_dir(key, r) {
                    Some(d) => d,
                    None => return false,
                }
            }
            _ => return false,
        };
        matches!(
            self.go_top_level(&dir, Some(key), site.callee),
            Some(TopLevel::Type)
        )
    }

    /// The top-level `name` of the package in `dir`: `first`'s own first, then the other
    /// files in path order.
    fn go_top_level(&self, dir: &str, first: Option<&Arc<str>>, name: &str) -> Option<TopLevel> {
        self.go_files(dir, first).into_iter().find_map(|f| {
            let a = self.get(&f)?;
            let def = a
                .symbols
                .iter()
                .find(|s| s.container.is_none() && s.name == name)?;
            Some(if def.kind.is_callable() {
                TopLevel::Function(self.sym_ref(&f, a, def))
            } else {
                TopLevel::Type
            })
        })
    }

    /// The method `name` of the type `ty` of the package in `dir`.
    fn go_method(
        &self,
        dir: &str,
        first: Option<&Arc<str>>,
        ty: &str,
        name: &str,
    ) -> Option<SymbolRef> {
        self.go_files(dir, first).into_iter().find_map(|f| {
            let a = self.get(&f)?;
            let def = a.symbols.iter().find(|s| {
                s.kind == SymbolKind::Method && s.name == name && s.container.as_deref() == Some(ty)
            })?;
            Some(self.sym_ref(&f, a, def))
        })
    }

    /// The `.go` files of `dir`, `first` (when it is one) first, then in path order.
    fn go_files(&self, dir: &str, first: Option<&Arc<str>>) -> Vec<Arc<str>> {
        let mut files: Vec<&Arc<str>> = self
            .files
            .keys()
            .filter(|k| paths::dir(k) == dir && paths::extension(k) == "go")
            .collect();
        files.sort_by(|a, b| (Some(*a) != first, a).cmp(&(Some(*b) != first, b)));
        files.into_iter().cloned().collect()
    }

    /// The directory of the repository's package that the import named `local` in `key`
    /// brings in; `None` for the standard library (a path whose first element has no
    /// dot) and for packages the repository does not hold.
    fn go_imported_dir(&self, key: &Arc<str>, local: &str) -> Option<String> {
        let import = self.get(key)?.imports.iter().find(|i| i.local == local)?;
        let first = import.module.split('/').next().unwrap_or("");
        if !first.contains('.') {
            return None;
        }
        let dirs: std::collections::BTreeSet<&str> = self
            .files
            .keys()
            .filter(|k| paths::extension(k) == "go")
            .map(|k| paths::dir(k))
            .collect();
        packages::go_package_dir(&import.module, dirs.into_iter()).map(str::to_owned)
    }
}
