//! Which type's member a member access reads or writes ([`wit_core::MemberAccess`]), by
//! the rules calls resolve by: the receiver's class found as a method call's would be,
//! then the member declared in that class or a base ([`wit_core::Member`]).
//!
//! - TypeScript/JavaScript and Python: `this.x`/`self.x` in a method (or a function nested
//!   in one) is the caller's class's, or a base's; `this.repo.x` is the class of the field
//!   `repo` (when its declaration makes it evident)'s; `new:Order` (a parameter annotated
//!   `order: Order`, a local `new Order()`/`Order(…)`) is `Order`'s as the file sees that
//!   name (imports, re-exports); a module's variable of evident class is its class's.
//! - Java: `this`, a variable of declared type, a type name; the type's superclass chain.
//! - Go: a variable of declared type (`o *Order`, `o := &Order{}`): the package's struct.
//! - Rust, C# and plugins: `self`/`this` in a method of the type, which may be declared
//!   in another file of the directory (no types are inferred for other receivers).
//!
//! Nothing else resolves: an access on a value of unknown type names no member, however
//! its name matches; the forecast uses resolved members only.

use std::sync::Arc;

use wit_core::{Analysis, MemberAccess};

use crate::{Binding, Cx, Graph, Language, SiteRef, by_own_class, own_field, packages, paths};

/// A member a definition's code reads or writes.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MemberUse {
    /// The member, `file:Type.name`: the file declaring the type that declares it (the
    /// receiver's type, or a base of it).
    pub member: String,
    /// Zero-based line of the (first) access, in the user's file.
    pub line: usize,
    /// Whether the access writes it.
    pub write: bool,
    /// The receiver as the analysis spells it (`this`, `this.repo`, `new:Order`).
    pub receiver: String,
}

impl Graph {
    /// The members `user` (a qualified name, or an address with a `#` suffix) of `file`
    /// reads or writes, from `analysis` (the file's own: the graph keeps no accesses), as
    /// the receivers resolve; one per (member, write), at its first line.
    pub fn member_uses(&self, file: &str, analysis: &Analysis, user: &str) -> Vec<MemberUse> {
        self.uses_of(file, analysis, user, false)
    }

    /// [`Graph::member_uses`], and also the accesses on a receiver whose type resolves
    /// but declares no such member (nor do its bases), named as that type's:
    /// `file:Type.name`. Sessions of one checkout share its graph, which already holds
    /// one session's edit removing or renaming a member while another's code still reads
    /// it; that read must still name the member.
    pub fn member_uses_undeclared(
        &self,
        file: &str,
        analysis: &Analysis,
        user: &str,
    ) -> Vec<MemberUse> {
        self.uses_of(file, analysis, user, true)
    }

    /// The members `user` uses; `undeclared`: see [`Graph::member_uses_undeclared`].
    fn uses_of(
        &self,
        file: &str,
        analysis: &Analysis,
        user: &str,
        undeclared: bool,
    ) -> Vec<MemberUse> {
        let qualified = user.split('#').next().unwrap_or(user);
        let Some(key) = self.key(file) else {
            return Vec::new();
        };
        let mut out: Vec<MemberUse> = Vec::new();
        for access in analysis.accesses.iter().filter(|a| a.user == qualified) {
            let Some(member) = self.access_in(&key, access, undeclared) else {
                continue;
            };
            if out
                .iter()
                .any(|u| u.member == member && u.write == access.write)
            {
                continue;
            }
            out.push(MemberUse {
                member,
                line: access.line,
                write: access.write,
                receiver: access.receiver.clone(),
            });
        }
        out.sort();
        out
    }

    /// `file:Type.name` of the member `access` (of `file`) reads or writes, when its
    /// receiver's type is known and declares (or inherits) it.
    pub fn resolve_access(&self, file: &str, access: &MemberAccess) -> Option<String> {
        let key = self.key(file)?;
        self.access_in(&key, access, false)
    }

    /// [`Graph::resolve_access`] in the indexed file `key`; `undeclared`: a member the
    /// receiver's type (TS/JS, Python) does not declare is named as that type's.
    fn access_in(&self, key: &Arc<str>, access: &MemberAccess, undeclared: bool) -> Option<String> {
        let site = SiteRef {
            caller: &access.user,
            callee: &access.member,
            receiver: Some(&access.receiver),
            line: access.line,
            arguments: None,
        };
        let member = access.member.as_str();
        match packages::Family::of(paths::extension(key)) {
            Some(packages::Family::Java) => {
                return self
                    .java_receiver_types(key, site)
                    .into_iter()
                    .find_map(|(file, ty)| declared(self, &file, &ty, member));
            }
            Some(packages::Family::Go) => {
                let (file, ty) = self.go_member_file(key, &access.receiver, member)?;
                return Some(format!("{file}:{ty}.{member}"));
            }
            _ => {}
        }
        let receiver = access.receiver.as_str();
        if Language::of(key) == Language::Other {
            // Rust, C#, plugins: the method's own type, here or in another file of the
            // directory (a Rust struct and its `impl`s, a C# partial class).
            if !matches!(receiver, "self" | "this") {
                return None;
            }
            let (class, _) = access.user.rsplit_once('.')?;
            return declared(self, key, class, member).or_else(|| {
                self.files_in_dir(paths::dir(key), paths::extension(key))
                    .into_iter()
                    .find_map(|f| declared(self, f, class, member))
            });
        }
        let class = if by_own_class(Some(receiver)) && !access.user.contains('.') {
            self.enclosing_class(key, site)
        } else {
            access.user.rsplit_once('.').map(|(c, _)| c)
        };
        let mut cx = Cx::new();
        cx.at = Some((key.clone(), access.line));
        let as_declared_by = |file: &Arc<str>, class: &str| {
            let plain = class.split('#').next().unwrap_or(class);
            undeclared.then(|| format!("{file}:{plain}.{member}"))
        };
        let of = match receiver {
            "this" | "self" | "cls" => {
                let class = class?;
                return self
                    .member_in_class(key, class, member, &mut cx)
                    .or_else(|| as_declared_by(key, class));
            }
            r if own_field(r).is_some() => {
                let field = own_field(r)?;
                self.field_class(key, class?, field, &mut cx)?
            }
            r => {
                let written = r.strip_prefix("new:").unwrap_or(r);
                match self.name_binding(key, written, &mut cx)? {
                    Binding::Symbol(s) => s,
                    Binding::Value(file, i) => {
                        let class = self.get(&file)?.values.get(i)?.class.clone();
                        self.class_named(&file, &class, &mut cx)?
                    }
                    Binding::Module(_) => return None,
                }
            }
        };
        self.member_in_class(&of.file, &of.name, member, &mut cx)
            .or_else(|| as_declared_by(&of.file, &of.name))
    }

    /// `file:Class.member` of `member` declared in `class` (of `file`) or, else, in a base
    /// it extends (across files).
    fn member_in_class(
        &self,
        file: &Arc<str>,
        class: &str,
        member: &str,
        cx: &mut Cx,
    ) -> Option<String> {
        cx.spend()?;
        // An address (`Index#2`, `input#type`) names the class plainly in its members.
        let plain = class.split('#').next().unwrap_or(class);
        if let Some(found) = declared(self, file, plain, member) {
            return Some(found);
        }
        self.in_bases(file, plain, cx, |g, b, cx| {
            g.member_in_class(&b.file, &b.name, member, cx)
        })
    }
}

/// `file:Type.member` when `file` declares the member `member` of `ty`.
fn declared(g: &Graph, file: &Arc<str>, ty: &str, member: &str) -> Option<String> {
    g.get(file)?
        .members
        .iter()
        .any(|m| m.container == ty && m.name == member)
        .then(|| format!("{file}:{ty}.{member}"))
}
