//! `rpc.discover`: protocol v1 (`openrpc.json`, the compatibility promise, byte for byte)
//! and its extensions (`openrpc.extensions.json`, same format) served as one document.

use serde_json::Value;

/// `openrpc.json`: protocol v1.
pub const OPENRPC_JSON: &str = include_str!("../../openrpc.json");
/// `openrpc.extensions.json`: the methods and fields beyond v1.
pub const OPENRPC_EXTENSIONS_JSON: &str = include_str!("../../openrpc.extensions.json");

/// The document `rpc.discover` serves, built on the first call and shared by every
/// worktree the process serves. Parsed, it is about 0.6 MiB of heap: built eagerly, each
/// worktree's start-up held a copy of its own whether or not anyone ever asked (measured
/// with massif, issue 31), and an idle daemon carried it too.
pub(crate) fn document() -> &'static Value {
    static DOCUMENT: std::sync::OnceLock<Value> = std::sync::OnceLock::new();
    DOCUMENT.get_or_init(build)
}

/// The v1 document with the extension methods appended, their schemas added to
/// `components.schemas` (v1's own are never replaced), the extensions' notes on v1
/// methods under `x-extends`, and the HTTP endpoints beyond `POST /rpc` under
/// `x-http-endpoints`. `Null` only if an embedded document does not parse, which
/// the tests rule out.
fn build() -> Value {
    let (Ok(mut doc), Ok(ext)) = (
        serde_json::from_str::<Value>(OPENRPC_JSON),
        serde_json::from_str::<Value>(OPENRPC_EXTENSIONS_JSON),
    ) else {
        return Value::Null;
    };
    if let (Some(methods), Some(more)) = (
        doc.get_mut("methods").and_then(Value::as_array_mut),
        ext.get("methods").and_then(Value::as_array),
    ) {
        methods.extend(more.iter().cloned());
    }
    if let Some(more) = ext
        .pointer("/components/schemas")
        .and_then(Value::as_object)
    {
        let schemas = doc
            .pointer_mut("/components/schemas")
            .and_then(Value::as_object_mut);
        if let Some(schemas) = schemas {
            for (k, v) in more {
                schemas.entry(k.clone()).or_insert_with(|| v.clone());
            }
        }
    }
    for key in ["x-extends", "x-http-endpoints"] {
        if let (Some(obj), Some(notes)) = (doc.as_object_mut(), ext.get(key)) {
            obj.insert(key.into(), notes.clone());
        }
    }
    doc
}

/// The method names a document specifies.
#[cfg(test)]
pub(crate) fn method_names(doc: &Value) -> Vec<String> {
    doc.get("methods")
        .and_then(Value::as_array)
        .map(|m| {
            m.iter()
                .filter_map(|m| m.get("name").and_then(Value::as_str).map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    #[test]
    fn the_router_and_the_two_documents_agree() {
        let v1: Value = serde_json::from_str(OPENRPC_JSON).unwrap();
        let ext: Value = serde_json::from_str(OPENRPC_EXTENSIONS_JSON).unwrap();
        let v1_names: BTreeSet<String> = method_names(&v1).into_iter().collect();
        let ext_names: BTreeSet<String> = method_names(&ext).into_iter().collect();
        assert!(
            v1_names.is_disjoint(&ext_names),
            "an extension redefines a v1 method"
        );
        let documented: BTreeSet<String> = v1_names.union(&ext_names).cloned().collect();
        let routed: BTreeSet<String> = crate::router::METHODS
            .iter()
            .map(|m| (*m).to_owned())
            .collect();
        assert_eq!(
            routed, documented,
            "router methods vs openrpc.json + extensions"
        );
        let served: BTreeSet<String> = method_names(document()).into_iter().collect();
        assert_eq!(served, documented, "rpc.discover serves both");
    }

    #[test]
    fn the_http_endpoints_are_specified_and_served() {
        let served = document();
        let events = &served["x-http-endpoints"]["GET /events"];
        let params: Vec<&str> = events["parameters"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["name"].as_str().unwrap())
            .collect();
        assert_eq!(
            params,
            [
                "since",
                "kinds",
                "sessionId",
                "keepAliveMs",
                "Last-Event-ID"
            ]
        );
        assert_eq!(
            events["responses"]["200"]["schema"]["$ref"],
            "#/components/schemas/Event"
        );
        assert_eq!(crate::sse::PATH, "/events");
    }

    #[test]
    fn the_served_document_keeps_v1_intact() {
        let v1: Value = serde_json::from_str(OPENRPC_JSON).unwrap();
        let served = document();
        assert_eq!(served["info"], v1["info"]);
        for m in v1["methods"].as_array().unwrap() {
            assert!(
                served["methods"].as_array().unwrap().contains(m),
                "v1 method {} changed",
                m["name"]
            );
        }
        for (k, v) in v1["components"]["schemas"].as_object().unwrap() {
            assert_eq!(&served["components"]["schemas"][k], v, "schema {k}");
        }
    }
}
