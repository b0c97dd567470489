//! The JSON-RPC envelope: parsing and the documented validation order, and response
//! building.
//!
//! Order (PROTOCOL-NOTES): 1. not JSON → PARSE_ERROR; 2. not an object / bad `jsonrpc`,
//! `id` or `method` → VERSION_MISMATCH if a string `witVersion` other than "1" is present,
//! else INVALID_REQUEST; 3. `witVersion` ≠ "1" → VERSION_MISMATCH. Steps 4–6 (method,
//! params, domain) belong to the router.

use std::collections::BTreeMap;

use hyper::StatusCode;
use serde_json::{Value, json};
use wit_core::protocol::{ErrorCode, JSONRPC_VERSION, Response, RpcError, WIT_VERSION};

use crate::params::{invalid_request, type_name};

/// A request that passed the envelope checks.
#[derive(Debug)]
pub(crate) struct Call {
    pub id: String,
    pub method: String,
    /// `None` when `params` was omitted.
    pub params: Option<Value>,
}

/// An envelope rejection: the HTTP status and the JSON-RPC response to send.
#[derive(Debug)]
pub(crate) struct Rejection {
    pub status: StatusCode,
    pub body: Response,
}

/// Checks `body` against steps 1–3 of the validation order.
pub(crate) fn check(body: &[u8]) -> Result<Call, Box<Rejection>> {
    let value: Value = match serde_json::from_slice(body) {
        Ok(v) => v,
        Err(e) => {
            return Err(reject(
                None,
                RpcError::new(
                    ErrorCode::ParseError,
                    Some(json!({ "reason": e.to_string() })),
                ),
            ));
        }
    };
    let Value::Object(mut obj) = value else {
        return Err(reject(
            None,
            invalid_request(
                vec![format!(
                    "request must be a JSON object, got {}",
                    type_name(&value)
                )],
                BTreeMap::new(),
            ),
        ));
    };
    let id = match obj.get("id") {
        Some(Value::String(s)) => Some(s.clone()),
        _ => None,
    };
    let mut fields: BTreeMap<String, Vec<String>> = BTreeMap::new();
    if obj.get("jsonrpc") != Some(&Value::String(JSONRPC_VERSION.into())) {
        fields.insert("jsonrpc".into(), vec!["must be \"2.0\"".into()]);
    }
    if id.is_none() {
        fields.insert("id".into(), vec!["must be a string".into()]);
    }
    let method = match obj.get("method") {
        Some(Value::String(s)) => Some(s.clone()),
        _ => {
            fields.insert("method".into(), vec!["must be a string".into()]);
            None
        }
    };
    let wit_version = obj.get("witVersion");
    let version_ok = wit_version == Some(&Value::String(WIT_VERSION.into()));
    if !fields.is_empty() {
        if let Some(Value::String(_)) = wit_version
            && !version_ok
        {
            return Err(reject(id, version_mismatch(wit_version)));
        }
        return Err(reject(None, invalid_request(Vec::new(), fields)));
    }
    if !version_ok {
        return Err(reject(id, version_mismatch(wit_version)));
    }
    let (Some(id), Some(method)) = (id, method) else {
        unreachable!("both were checked above");
    };
    Ok(Call {
        id,
        method,
        // Taken, not copied: a declare's params may hold 50,000 files.
        params: obj.remove("params"),
    })
}

fn version_mismatch(received: Option<&Value>) -> RpcError {
    RpcError::new(
        ErrorCode::VersionMismatch,
        Some(
            json!({ "expected": WIT_VERSION, "received": received.cloned().unwrap_or(Value::Null) }),
        ),
    )
}

fn reject(id: Option<String>, error: RpcError) -> Box<Rejection> {
    Box::new(Rejection {
        status: StatusCode::BAD_REQUEST,
        body: error_response(id, error),
    })
}

/// A success response.
pub(crate) fn ok_response(id: String, result: Value) -> Response {
    Response {
        jsonrpc: JSONRPC_VERSION.into(),
        wit_version: WIT_VERSION.into(),
        id: Some(id),
        result: Some(result),
        error: None,
    }
}

/// An error response.
pub(crate) fn error_response(id: Option<String>, error: RpcError) -> Response {
    Response {
        jsonrpc: JSONRPC_VERSION.into(),
        wit_version: WIT_VERSION.into(),
        id,
        result: None,
        error: Some(error),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(body: &str) -> (StatusCode, Option<String>, String, Option<Value>) {
        let r = check(body.as_bytes()).unwrap_err();
        let e = r.body.error.unwrap();
        (r.status, r.body.id, e.message, e.data)
    }

    #[test]
    fn follows_the_documented_order() {
        assert_eq!(err("{").2, "PARSE_ERROR");
        assert_eq!(err("[1]").2, "INVALID_REQUEST");
        // A non-object body cannot carry witVersion.
        assert_eq!(err(r#"["witVersion", "2"]"#).2, "INVALID_REQUEST");
        let (_, id, msg, data) =
            err(r#"{"jsonrpc":"2.0","id":7,"method":"ping","witVersion":"2"}"#);
        assert_eq!((id, msg.as_str()), (None, "VERSION_MISMATCH"));
        assert_eq!(data.unwrap(), json!({"expected":"1","received":"2"}));
        let (_, _, msg, _) = err(r#"{"jsonrpc":"2.0","id":7,"method":"ping","witVersion":2}"#);
        assert_eq!(msg, "INVALID_REQUEST");
        let (status, id, msg, data) = err(r#"{"jsonrpc":"2.0","id":"a","method":"ping"}"#);
        assert_eq!(status, StatusCode::BAD_REQUEST);
        assert_eq!(
            (id.as_deref(), msg.as_str()),
            (Some("a"), "VERSION_MISMATCH")
        );
        assert_eq!(data.unwrap(), json!({"expected":"1","received":null}));
        let call =
            check(br#"{"jsonrpc":"2.0","id":"a","method":"ping","witVersion":"1"}"#).unwrap();
        assert_eq!((call.id.as_str(), call.method.as_str()), ("a", "ping"));
        assert!(call.params.is_none());
    }
}
