//! What a checkout changed and what two checkouts' changes forecast: plain data, stored as
//! JSON in the coordination store and served as it is by `conflicts.forecast`.

use serde::{Deserialize, Serialize};

/// How a symbol of a checkout differs from the same symbol at the base.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Change {
    /// Not at the base.
    Added,
    /// At the base, gone now (and not found under another name).
    Removed,
    /// Same signature, other text.
    Body,
    /// Another signature (the text may differ elsewhere too).
    Signature,
    /// Gone under its base name, present under another with the same text otherwise.
    Renamed,
}

impl Change {
    /// `added`, `removed`, `body`, `signature` or `renamed`.
    pub fn as_str(self) -> &'static str {
        match self {
            Change::Added => "added",
            Change::Removed => "removed",
            Change::Body => "body",
            Change::Signature => "signature",
            Change::Renamed => "renamed",
        }
    }

    /// Whether the symbol exists in the checkout with code of its own that may call
    /// others.
    pub fn has_new_code(self) -> bool {
        !matches!(self, Change::Removed)
    }
}

/// A resolved call from a changed symbol, as the checkout's code graph links it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallRef {
    /// The callee, `file:name`.
    pub callee: String,
    /// One-based line of the (first) call site in the caller's file.
    pub line: usize,
}

/// One changed symbol of one file of a checkout.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SymbolChange {
    /// The symbol's address in the file (`price`, `Cart.total`): in the checkout's
    /// version, or the base's for a removed symbol.
    pub name: String,
    /// What matches it with another checkout's change of the same definition: the names
    /// of the definitions enclosing it, its qualified name and its kind
    /// (`test_b/index#function`), as at the base (as now, for an added one). Unlike an
    /// address (`index#2`), it does not move when a definition of the same name is added
    /// above it.
    #[serde(default)]
    pub key: String,
    /// What the definition is (`function`, `method`, `class`, …).
    pub kind: String,
    /// How it differs from the base.
    pub change: Change,
    /// For a renamed symbol, its address at the base.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    /// Its signature at the base, for a callable that was there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before: Option<String>,
    /// Its signature now, for a callable that is there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<String>,
    /// One-based line where it starts, in the version it is in.
    pub line: usize,
    /// A digest of its own text now (its text without its nested definitions), so that
    /// two checkouts making the very same change are told apart from two different ones;
    /// `None` for a removed symbol.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub digest: Option<String>,
    /// What its current code calls, resolved by the checkout's code graph (filled in by
    /// the daemon, which owns the graph).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub calls: Vec<CallRef>,
}

impl SymbolChange {
    /// The name the base knows it by: what another checkout's changes and calls name.
    pub fn base_name(&self) -> &str {
        match (self.change, &self.from) {
            (Change::Renamed, Some(from)) => from,
            _ => &self.name,
        }
    }

    /// What matches it with another checkout's change (its [`SymbolChange::key`], or its
    /// base name for a change stored without one).
    pub fn match_key(&self) -> &str {
        if self.key.is_empty() {
            self.base_name()
        } else {
            &self.key
        }
    }

    /// Whether the change breaks callers written against the base: the name they call is
    /// gone, or its parameters or result changed (a parameter renamed, and nothing else,
    /// does not break a positional caller; see [`crate::signature::breaks_callers`]).
    pub fn breaks_callers(&self) -> bool {
        match self.change {
            Change::Removed | Change::Renamed => true,
            Change::Signature => crate::signature::breaks_callers(
                self.before.as_deref().unwrap_or(""),
                self.after.as_deref().unwrap_or(""),
            ),
            Change::Added | Change::Body => false,
        }
    }
}

/// How one file of a checkout differs from the base.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum FileChange {
    /// A file an analyzer covers: its changed symbols (empty when only text outside any
    /// definition changed, such as imports or comments).
    Symbols {
        /// The changed symbols, in file order.
        symbols: Vec<SymbolChange>,
        /// Whether the checkout deleted the file (every symbol is then removed; a file
        /// deleted on one side and changed on the other is a modify/delete collision even
        /// where the change is outside every definition).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        deleted: bool,
        /// When the text outside every top-level definition (imports, module-level
        /// code, comments between definitions) changed: that text at the base and now,
        /// as blobs (see [`crate::outside_text`]), for git's own merge against the other
        /// checkout's.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        outside: Option<Outside>,
    },
    /// A file no analyzer covers (or one its analyzer could not read): compared as text,
    /// with git's own three-way merge.
    Text {
        /// The id of its current content (a SHA-256, the name under which the checkout's
        /// daemon keeps a private copy for the other daemons of the repository to merge;
        /// never an object written to the repository's database), or `None` when the
        /// checkout deleted it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        blob: Option<String>,
        /// Why it is compared as text although it has an analyzer (it did not analyse),
        /// for the reader; `None` for a file no analyzer covers.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        note: Option<String>,
    },
    /// A file the checkout changed that the forecast could not compare: its version or
    /// the base's is too large to read, or more changed text than the daemon keeps.
    /// Listed with the reason rather than left out, and a file both checkouts changed
    /// where either side is one of these is a textual forecast without git's verdict.
    Uncompared {
        /// Why, for people: `too large to compare (…)`.
        why: String,
    },
}

/// The text outside a file's definitions, at the base and now, as content ids (see
/// [`FileChange::Text::blob`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Outside {
    /// At the base; `None` when the file is new (merged against the empty blob).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base: Option<String>,
    /// Now.
    pub now: String,
}

/// One forecast's kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// Both checkouts changed one definition.
    SameSymbol,
    /// One changed a definition's signature (or removed or renamed it); the other changed
    /// or added code that calls it.
    SignatureVsCallers,
    /// Both changed a file no analyzer covers, and git's merge of the two does not apply
    /// cleanly.
    Textual,
}

impl Kind {
    /// `same-symbol`, `signature-vs-callers` or `textual`.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::SameSymbol => "same-symbol",
            Kind::SignatureVsCallers => "signature-vs-callers",
            Kind::Textual => "textual",
        }
    }
}

/// What one checkout (or one session of a checkout) did that takes part in a forecast.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Side {
    /// The checkout (its root path, as its daemon names it).
    pub checkout: String,
    /// For a collision between two sessions of one checkout: the session whose claimed
    /// change this side is (`""`: a change no agent's hook announced, seen by the file
    /// watcher). Absent for a collision between two checkouts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    /// The symbol it changed, `file:name` (the file, for a textual forecast).
    pub symbol_path: String,
    /// How: `added`, `removed`, `body`, `signature`, `renamed`, `calls` (the caller's
    /// side of signature-vs-callers), `modified` or `deleted` (textual).
    pub change: String,
    /// Signature at the base, when it matters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before: Option<String>,
    /// Signature now, when it matters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<String>,
    /// One-based line in that checkout's version of the file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
}

/// One hop of a call chain: a definition, and the line of its call of the next hop.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Hop {
    /// `file:name`.
    pub symbol_path: String,
    /// The checkout whose code this hop is read from.
    pub checkout: String,
    /// The session whose version of the code this hop is, between sessions of one
    /// checkout (see [`Side::session`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    /// One-based line of its call of the next hop (none for the last hop).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
}

/// A collision that two checkouts' uncommitted (or unmerged) changes would make, or two
/// sessions' uncommitted changes in one checkout make.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Forecast {
    /// Stable while the collision stands: its kind, the symbols and the two checkouts.
    pub id: String,
    /// What collides.
    pub kind: Kind,
    /// The definitions involved, `file:name` (the file, for a textual forecast).
    pub symbol_paths: Vec<String>,
    /// What each checkout did, in the pair's order.
    pub sides: Vec<Side>,
    /// For signature-vs-callers: from the caller (in the calling checkout) to the changed
    /// definition, each hop named.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub chain: Vec<Hop>,
    /// One sentence for people.
    pub summary: String,
}
