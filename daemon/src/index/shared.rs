//! What the indexes of the checkouts one daemon serves share: a file whose content is the
//! same in several worktrees is held once ([`wit_graph::FileBody`]), and a later
//! checkout's build takes it instead of reading a stored row or analysing the file.
//!
//! A body depends on the file's path and content and on the analyzer that read it, so
//! checkouts share one [`SharedIndex`] only when their analyzers are the same (their
//! `wit.toml` may differ: [`Families::for_analyzers`] keys them by the analyzers' ids and
//! origins). Entries are weak: a content no checkout holds any more is freed.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};

use wit_graph::{FileBody, Shared, WeakBody};

/// The bodies of one family of checkouts (same analyzers), by content hash (each body's
/// tag) and path (each body's own).
#[derive(Default)]
pub(crate) struct SharedIndex {
    graph: Shared,
    bodies: Mutex<Bodies>,
}

#[derive(Default)]
struct Bodies {
    /// By content hash; a content is almost always at one path, which each body carries.
    by_content: HashMap<[u8; 32], Vec<WeakBody>>,
    /// How many entries there were after the last sweep of dead ones.
    swept_at: usize,
}

/// Entries added past the last sweep before dead ones are swept again (a bound on the
/// map's garbage, amortised over the inserts).
const SWEEP_SLACK: usize = 1024;

impl SharedIndex {
    /// The names the graphs of this family share ([`wit_graph::Graph::sharing`]).
    pub(crate) fn graph(&self) -> &Shared {
        &self.graph
    }

    /// The body another checkout holds for `rel` with content hash `h`.
    pub(crate) fn find(&self, rel: &str, h: &[u8; 32]) -> Option<FileBody> {
        self.lock()
            .by_content
            .get(h)?
            .iter()
            .filter_map(WeakBody::upgrade)
            .find(|body| body.path() == rel)
    }

    /// Remembers `body` as what its path with its tag (the content hash) gives.
    pub(crate) fn keep(&self, body: &FileBody) {
        let mut bodies = self.lock();
        let at = bodies.by_content.entry(body.tag()).or_default();
        // The path's earlier entry goes (and any dead one with it).
        at.retain(|w| w.upgrade().is_some_and(|b| b.path() != body.path()));
        at.push(body.downgrade());
        if bodies.by_content.len() > bodies.swept_at + SWEEP_SLACK {
            bodies.by_content.retain(|_, at| {
                at.retain(|w| w.upgrade().is_some());
                !at.is_empty()
            });
            bodies.swept_at = bodies.by_content.len();
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Bodies> {
        self.bodies.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// The families of one process, by their analyzers.
#[derive(Default)]
pub(crate) struct Families {
    by_analyzers: Mutex<HashMap<String, Weak<SharedIndex>>>,
}

impl Families {
    /// The family of checkouts whose analyzers are `key` (see [`analyzers_key`]).
    pub(crate) fn for_analyzers(&self, key: &str) -> Arc<SharedIndex> {
        let mut map = self.by_analyzers.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(found) = map.get(key).and_then(Weak::upgrade) {
            return found;
        }
        map.retain(|_, w| w.strong_count() > 0);
        let fresh = Arc::new(SharedIndex::default());
        map.insert(key.to_owned(), Arc::downgrade(&fresh));
        fresh
    }
}

/// What decides whether two checkouts' bodies are interchangeable: every analyzer's id,
/// extensions and origin (built in, or the plugin's path).
pub(crate) fn analyzers_key(registry: &wit_core::Registry) -> String {
    let mut key = String::new();
    for e in registry.entries() {
        let origin = match &e.origin {
            wit_core::AnalyzerOrigin::Builtin => "builtin".to_owned(),
            wit_core::AnalyzerOrigin::Plugin(path) => path.display().to_string(),
        };
        key.push_str(&format!(
            "{}|{}|{origin}\n",
            e.analyzer.id(),
            e.extensions.join(",")
        ));
    }
    key
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use wit_graph::Graph;

    #[test]
    fn a_body_is_found_by_path_and_content_while_a_graph_holds_it() {
        let families = Families::default();
        let shared = families.for_analyzers("ts");
        assert!(Arc::ptr_eq(&shared, &families.for_analyzers("ts")));
        assert!(!Arc::ptr_eq(&shared, &families.for_analyzers("ts+plugin")));
        let mut g = Graph::sharing(shared.graph());
        let analysis = wit_core::Analysis::new(Vec::new());
        g.insert_tagged("a.ts", Arc::new(analysis), [1; 32]);
        let body = g.body("a.ts").unwrap();
        shared.keep(&body);
        drop(body);
        assert!(shared.find("a.ts", &[1; 32]).is_some());
        assert!(shared.find("a.ts", &[2; 32]).is_none());
        assert!(shared.find("b.ts", &[1; 32]).is_none());
        g.remove("a.ts");
        assert!(
            shared.find("a.ts", &[1; 32]).is_none(),
            "freed with its last graph"
        );
    }
}
