//! Parameter validation that names every offending field.
//!
//! Errors take the shape of a flattened Zod error, which is what clients of the first
//! implementation read: `{"formErrors": [...], "fieldErrors": {"files": ["..."]}}`.
//! Unknown fields are ignored. `null` is not accepted for an optional field (as in Zod,
//! where `optional` means "may be absent").

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};
use wit_core::protocol::{ErrorCode, RpcError};

use crate::paths;

/// Longest identifier (`sessionId`, an agent's `name`, `intentId`, `contractId`,
/// `leaseId`), in bytes.
pub(crate) const MAX_ID_BYTES: usize = 256;
/// Longest path (`file`, each of `files`, a `symbolPath`, a lease pattern, `checkout`),
/// in bytes: Linux's `PATH_MAX`.
pub(crate) const MAX_PATH_BYTES: usize = 4096;
/// Longest symbol name (each of `intent.declare`'s `symbols`), in bytes.
pub(crate) const MAX_SYMBOL_NAME_BYTES: usize = 1024;
/// Longest free text (`description`, `reason`, any other string parameter), in bytes.
pub(crate) const MAX_TEXT_BYTES: usize = 16 * 1024;

/// The longest value `field` may have, in bytes (documented per parameter in
/// `openrpc.extensions.json`). Every stored name is bounded so: work that compares what is
/// stored (a lock's name with each candidate of a declare) stays proportional to what was
/// asked, whatever another session stored before (a 1 MiB symbol name once made every
/// declare pay a megabyte per comparison).
pub(crate) fn max_bytes(field: &str) -> usize {
    match field {
        "sessionId" | "name" | "intentId" | "contractId" | "leaseId" => MAX_ID_BYTES,
        "symbolPath" | "file" | "files" | "path" | "paths" | "checkout" => MAX_PATH_BYTES,
        "symbols" => MAX_SYMBOL_NAME_BYTES,
        _ => MAX_TEXT_BYTES,
    }
}

/// Builds the `INVALID_REQUEST` error with `formErrors` and `fieldErrors`.
pub(crate) fn invalid_request(
    form: Vec<String>,
    fields: BTreeMap<String, Vec<String>>,
) -> RpcError {
    RpcError::new(
        ErrorCode::InvalidRequest,
        Some(json!({ "formErrors": form, "fieldErrors": fields })),
    )
}

/// A reader over a params object that collects every field error before failing.
pub(crate) struct Params<'a> {
    map: &'a Map<String, Value>,
    errors: BTreeMap<String, Vec<String>>,
}

/// One entry of `symbols.at`'s `ranges`: UTF-8 byte offsets, `start <= end`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ByteRange {
    pub start: usize,
    pub end: usize,
}

/// One entry of `check-contracts`' `files`.
#[derive(Debug, Clone)]
pub(crate) struct FileContent {
    pub path: String,
    pub content: String,
}

/// One item of `claims.check`'s `files`: a file and its content after an edit (`None`:
/// the edit deletes it), and where the edit lands in its current content, when the
/// caller says.
#[derive(Debug, Clone)]
pub(crate) struct FileEdit {
    pub path: String,
    pub content: Option<String>,
    /// Byte ranges of the current content and their replacements, in order.
    pub edits: Option<Vec<(std::ops::Range<usize>, String)>>,
}

/// Most replacements one `claims.check` file carries.
pub(crate) const MAX_FILE_EDITS: usize = 10_000;

impl<'a> Params<'a> {
    /// Starts reading `map`.
    pub fn new(map: &'a Map<String, Value>) -> Self {
        Self {
            map,
            errors: BTreeMap::new(),
        }
    }

    fn fail(&mut self, field: &str, reason: impl Into<String>) {
        self.errors
            .entry(field.to_owned())
            .or_default()
            .push(reason.into());
    }

    fn required(&mut self, field: &str) -> Option<&'a Value> {
        let v = self.map.get(field);
        if v.is_none() {
            self.fail(field, "is required");
        }
        v
    }

    fn string_value(&mut self, field: &str, v: &'a Value, non_empty: bool) -> Option<String> {
        match v {
            Value::String(s) if non_empty && s.is_empty() => {
                self.fail(field, "must not be empty");
                None
            }
            Value::String(s) if s.len() > max_bytes(field) => {
                self.fail(
                    field,
                    format!(
                        "must be at most {} bytes long (got {})",
                        max_bytes(field),
                        s.len()
                    ),
                );
                None
            }
            Value::String(s) => Some(s.clone()),
            other => {
                self.fail(field, format!("must be a string, got {}", type_name(other)));
                None
            }
        }
    }

    /// A required non-empty string.
    pub fn req_str(&mut self, field: &str) -> Option<String> {
        let v = self.required(field)?;
        self.string_value(field, v, true)
    }

    /// An optional string (empty allowed: it then matches nothing).
    pub fn opt_str(&mut self, field: &str) -> Option<String> {
        let v = self.map.get(field)?;
        self.string_value(field, v, false)
    }

    /// A required symbol path: a non-empty string containing `:`, in normal form (see
    /// [`crate::paths`]): the file part's `.` segments and repeated `/` dropped; a `..`,
    /// an absolute or empty file part, or a control character refused, naming the field.
    pub fn symbol_path(&mut self, field: &str) -> Option<String> {
        let s = self.req_str(field)?;
        self.normal_symbol_path(field, &s)
    }

    /// A required symbol path that v1 does not require to contain `:` (`lock.release`):
    /// normalized like [`Params::symbol_path`] when it has a colon; without one it names
    /// no lock and is passed on as written (the handler answers as v1 did).
    pub fn lenient_symbol_path(&mut self, field: &str) -> Option<String> {
        let s = self.req_str(field)?;
        if s.contains(':') {
            self.normal_symbol_path(field, &s)
        } else {
            Some(s)
        }
    }

    /// An optional symbol-path filter (`contract.query`): empty or without a colon it
    /// matches nothing and is kept as written; otherwise normalized.
    pub fn opt_symbol_path_filter(&mut self, field: &str) -> Option<String> {
        let s = self.opt_str(field)?;
        if s.contains(':') {
            self.normal_symbol_path(field, &s)
        } else {
            Some(s)
        }
    }

    /// An optional file filter (`intent.query`): empty it matches nothing and is kept;
    /// otherwise normalized like every other file path.
    pub fn opt_file(&mut self, field: &str) -> Option<String> {
        let s = self.opt_str(field)?;
        if s.is_empty() {
            return Some(s);
        }
        match paths::normalize_file(&s) {
            Ok(normal) => Some(normal),
            Err(why) => {
                self.fail(field, why);
                None
            }
        }
    }

    /// A required non-empty file path, normalized like every other one (see [`crate::paths`]).
    pub fn req_file(&mut self, field: &str) -> Option<String> {
        let s = self.req_str(field)?;
        match paths::normalize_file(&s) {
            Ok(normal) => Some(normal),
            Err(why) => {
                self.fail(field, why);
                None
            }
        }
    }

    /// A required array (at most `max` items) of `{startByte, endByte}` non-negative
    /// integers with `startByte <= endByte`.
    pub fn byte_ranges(&mut self, field: &str, max: usize) -> Option<Vec<ByteRange>> {
        let v = self.required(field)?;
        let Value::Array(items) = v else {
            self.fail(field, format!("must be an array, got {}", type_name(v)));
            return None;
        };
        if items.len() > max {
            self.fail(field, format!("must contain at most {max} items"));
            return None;
        }
        let mut out = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            let offset = |key: &str| {
                item.get(key)
                    .and_then(Value::as_u64)
                    .and_then(|n| usize::try_from(n).ok())
            };
            match (offset("startByte"), offset("endByte")) {
                (Some(start), Some(end)) if start <= end => out.push(ByteRange { start, end }),
                (Some(_), Some(_)) => self.fail(
                    field,
                    format!("item {i}: startByte must not exceed endByte"),
                ),
                _ => self.fail(
                    field,
                    format!("item {i} must be {{startByte, endByte}} with non-negative integers"),
                ),
            }
        }
        (out.len() == items.len()).then_some(out)
    }

    /// A required non-empty array of file paths, each non-empty and normalized.
    pub fn file_array(&mut self, field: &str) -> Option<Vec<String>> {
        let files = self.str_array(field, true, 1, true)?;
        let count = files.len();
        let mut out = Vec::with_capacity(count);
        for (i, f) in files.into_iter().enumerate() {
            match paths::normalize_file_owned(f) {
                Ok(normal) => out.push(normal),
                Err(why) => self.fail(field, format!("item {i}: {why}")),
            }
        }
        (out.len() == count).then_some(out)
    }

    fn normal_symbol_path(&mut self, field: &str, s: &str) -> Option<String> {
        match paths::normalize_symbol_path(s) {
            Ok(normal) => Some(normal),
            Err(why) => {
                self.fail(field, why);
                None
            }
        }
    }

    /// An optional positive integer.
    pub fn opt_positive_int(&mut self, field: &str, max: u64) -> Option<u64> {
        let v = self.map.get(field)?;
        match v.as_u64() {
            Some(n) if n > 0 && n <= max => Some(n),
            Some(0) => {
                self.fail(field, "must be a positive integer");
                None
            }
            Some(_) => {
                self.fail(field, format!("must be at most {max}"));
                None
            }
            None => {
                self.fail(
                    field,
                    format!("must be a positive integer, got {}", describe(v)),
                );
                None
            }
        }
    }

    /// An optional integer from 0 to `max` (`since`, `timeoutMs`).
    pub fn opt_non_negative_int(&mut self, field: &str, max: u64) -> Option<u64> {
        let v = self.map.get(field)?;
        match v.as_u64() {
            Some(n) if n <= max => Some(n),
            Some(_) => {
                self.fail(field, format!("must be at most {max}"));
                None
            }
            None => {
                self.fail(
                    field,
                    format!("must be a non-negative integer, got {}", describe(v)),
                );
                None
            }
        }
    }

    /// A required boolean.
    pub fn req_bool(&mut self, field: &str) -> Option<bool> {
        let v = self.required(field)?;
        self.bool_value(field, v)
    }

    /// An optional boolean.
    pub fn opt_bool(&mut self, field: &str) -> Option<bool> {
        let v = self.map.get(field)?;
        self.bool_value(field, v)
    }

    fn bool_value(&mut self, field: &str, v: &Value) -> Option<bool> {
        match v {
            Value::Bool(b) => Some(*b),
            other => {
                self.fail(
                    field,
                    format!("must be a boolean, got {}", type_name(other)),
                );
                None
            }
        }
    }

    /// A required array of lease patterns (see [`crate::leases::pattern`]), each checked
    /// and compiled; at most `max` of them.
    pub fn lease_patterns(&mut self, field: &str, max: usize) -> Option<crate::leases::Patterns> {
        let raw = self.str_array(field, true, 1, true)?;
        if raw.len() > max {
            self.fail(field, format!("must have at most {max} patterns"));
            return None;
        }
        match crate::leases::Patterns::parse(&raw) {
            Ok(patterns) => Some(patterns),
            Err((i, why)) => {
                self.fail(field, format!("item {i}: {why}"));
                None
            }
        }
    }

    /// A required string that is one of `allowed`.
    pub fn req_enum(&mut self, field: &str, allowed: &[&str]) -> Option<String> {
        let v = self.required(field)?;
        self.enum_value(field, v, allowed)
    }

    /// An optional string that is one of `allowed`.
    pub fn opt_enum(&mut self, field: &str, allowed: &[&str]) -> Option<String> {
        let v = self.map.get(field)?;
        self.enum_value(field, v, allowed)
    }

    fn enum_value(&mut self, field: &str, v: &'a Value, allowed: &[&str]) -> Option<String> {
        let s = self.string_value(field, v, false)?;
        if allowed.contains(&s.as_str()) {
            Some(s)
        } else {
            self.fail(field, format!("must be one of: {}", allowed.join(", ")));
            None
        }
    }

    /// A string array: required or not, with a minimum length, items non-empty or not.
    pub fn str_array(
        &mut self,
        field: &str,
        required: bool,
        min_items: usize,
        non_empty_items: bool,
    ) -> Option<Vec<String>> {
        let v = if required {
            self.required(field)?
        } else {
            self.map.get(field)?
        };
        let Value::Array(items) = v else {
            self.fail(field, format!("must be an array, got {}", type_name(v)));
            return None;
        };
        if items.len() < min_items {
            let noun = if min_items == 1 { "item" } else { "items" };
            self.fail(field, format!("must contain at least {min_items} {noun}"));
            return None;
        }
        let mut out = Vec::with_capacity(items.len());
        let mut ok = true;
        for (i, item) in items.iter().enumerate() {
            match item {
                Value::String(s) if non_empty_items && s.is_empty() => {
                    self.fail(field, format!("item {i} must not be empty"));
                    ok = false;
                }
                Value::String(s) if s.len() > max_bytes(field) => {
                    self.fail(
                        field,
                        format!(
                            "item {i} must be at most {} bytes long (got {})",
                            max_bytes(field),
                            s.len()
                        ),
                    );
                    ok = false;
                }
                Value::String(s) => out.push(s.clone()),
                other => {
                    self.fail(
                        field,
                        format!("item {i} must be a string, got {}", type_name(other)),
                    );
                    ok = false;
                }
            }
        }
        ok.then_some(out)
    }

    /// `check-contracts`' `files`: an array of `{path: non-empty string, content: string}`.
    pub fn file_contents(&mut self, field: &str) -> Option<Vec<FileContent>> {
        let v = self.required(field)?;
        let Value::Array(items) = v else {
            self.fail(field, format!("must be an array, got {}", type_name(v)));
            return None;
        };
        let mut out = Vec::with_capacity(items.len());
        let mut ok = true;
        for (i, item) in items.iter().enumerate() {
            let Value::Object(obj) = item else {
                self.fail(
                    field,
                    format!("item {i} must be an object, got {}", type_name(item)),
                );
                ok = false;
                continue;
            };
            let path = match obj.get("path") {
                Some(Value::String(s)) if s.len() > MAX_PATH_BYTES => {
                    self.fail(
                        field,
                        format!(
                            "item {i}: path must be at most {MAX_PATH_BYTES} bytes long (got {})",
                            s.len()
                        ),
                    );
                    None
                }
                Some(Value::String(s)) if !s.is_empty() => match paths::normalize_file(s) {
                    Ok(normal) => Some(normal),
                    Err(why) => {
                        self.fail(field, format!("item {i}: path: {why}"));
                        None
                    }
                },
                Some(Value::String(_)) => {
                    self.fail(field, format!("item {i}: path must not be empty"));
                    None
                }
                Some(other) => {
                    self.fail(
                        field,
                        format!("item {i}: path must be a string, got {}", type_name(other)),
                    );
                    None
                }
                None => {
                    self.fail(field, format!("item {i}: path is required"));
                    None
                }
            };
            let content = match obj.get("content") {
                Some(Value::String(s)) => Some(s.clone()),
                Some(other) => {
                    self.fail(
                        field,
                        format!(
                            "item {i}: content must be a string, got {}",
                            type_name(other)
                        ),
                    );
                    None
                }
                None => {
                    self.fail(field, format!("item {i}: content is required"));
                    None
                }
            };
            match (path, content) {
                (Some(path), Some(content)) => out.push(FileContent { path, content }),
                _ => ok = false,
            }
        }
        ok.then_some(out)
    }

    /// `claims.check`'s `files`: a non-empty array of at most `max` `{file: non-empty
    /// string, content: string or null}`.
    pub fn file_edits(&mut self, field: &str, max: usize) -> Option<Vec<FileEdit>> {
        let v = self.required(field)?;
        let Value::Array(items) = v else {
            self.fail(field, format!("must be an array, got {}", type_name(v)));
            return None;
        };
        if items.is_empty() || items.len() > max {
            self.fail(field, format!("must have 1 to {max} items"));
            return None;
        }
        let mut out = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            let Value::Object(obj) = item else {
                self.fail(
                    field,
                    format!("item {i} must be an object, got {}", type_name(item)),
                );
                continue;
            };
            let path = match obj.get("file") {
                Some(Value::String(s)) if !s.is_empty() => match paths::normalize_file(s) {
                    Ok(normal) => Some(normal),
                    Err(why) => {
                        self.fail(field, format!("item {i}: file: {why}"));
                        None
                    }
                },
                Some(other) => {
                    self.fail(
                        field,
                        format!(
                            "item {i}: file must be a non-empty string, got {}",
                            type_name(other)
                        ),
                    );
                    None
                }
                None => {
                    self.fail(field, format!("item {i}: file is required"));
                    None
                }
            };
            let content = match obj.get("content") {
                Some(Value::String(s)) => Some(Some(s.clone())),
                Some(Value::Null) => Some(None),
                Some(other) => {
                    self.fail(
                        field,
                        format!(
                            "item {i}: content must be a string or null, got {}",
                            type_name(other)
                        ),
                    );
                    None
                }
                None => {
                    self.fail(
                        field,
                        format!("item {i}: content is required (null: deleted)"),
                    );
                    None
                }
            };
            let edits = match obj.get("edits") {
                None | Some(Value::Null) => Some(None),
                Some(v) => match replacements(v) {
                    Ok(list) => Some(Some(list)),
                    Err(why) => {
                        self.fail(field, format!("item {i}: edits: {why}"));
                        None
                    }
                },
            };
            if let (Some(path), Some(content), Some(edits)) = (path, content, edits) {
                out.push(FileEdit {
                    path,
                    content,
                    edits,
                });
            }
        }
        (out.len() == items.len()).then_some(out)
    }

    /// `Ok` when every field was valid, else the `INVALID_REQUEST` naming them.
    pub fn finish(self) -> Result<(), RpcError> {
        if self.errors.is_empty() {
            Ok(())
        } else {
            Err(invalid_request(Vec::new(), self.errors))
        }
    }
}

/// `claims.check`'s `edits`: at most [`MAX_FILE_EDITS`] `{startByte, endByte, text}`,
/// `startByte <= endByte`, in order and not overlapping.
fn replacements(v: &Value) -> Result<Vec<(std::ops::Range<usize>, String)>, String> {
    let Value::Array(items) = v else {
        return Err(format!("must be an array, got {}", type_name(v)));
    };
    if items.len() > MAX_FILE_EDITS {
        return Err(format!("must have at most {MAX_FILE_EDITS} items"));
    }
    let mut out: Vec<(std::ops::Range<usize>, String)> = Vec::with_capacity(items.len());
    for (j, item) in items.iter().enumerate() {
        let int = |k: &str| item.get(k).and_then(Value::as_u64).map(|n| n as usize);
        let (Some(start), Some(end), Some(text)) = (
            int("startByte"),
            int("endByte"),
            item.get("text").and_then(Value::as_str),
        ) else {
            return Err(format!(
                "item {j} must be {{startByte, endByte: non-negative integers, text: string}}"
            ));
        };
        if start > end || out.last().is_some_and(|(r, _)| r.end > start) {
            return Err(format!(
                "item {j}: ranges must be ordered, not overlapping, startByte <= endByte"
            ));
        }
        out.push((start..end, text.to_owned()));
    }
    Ok(out)
}

/// The JSON type name of a value, for messages.
pub(crate) fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn describe(v: &Value) -> String {
    match v {
        Value::Number(n) => n.to_string(),
        other => type_name(other).to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_bad_field_is_named() {
        let v = json!({"files": [], "ttlMs": 0, "symbols": ["a", 3], "accept": "yes"});
        let map = v.as_object().unwrap();
        let mut p = Params::new(map);
        assert!(p.req_str("sessionId").is_none());
        assert!(p.str_array("files", true, 1, true).is_none());
        assert!(p.str_array("symbols", false, 0, false).is_none());
        assert!(p.opt_positive_int("ttlMs", u64::MAX).is_none());
        assert!(p.req_bool("accept").is_none());
        let err = p.finish().unwrap_err();
        let data = err.data.unwrap();
        let fields = data["fieldErrors"].as_object().unwrap();
        let names: Vec<&str> = fields.keys().map(String::as_str).collect();
        assert_eq!(names, ["accept", "files", "sessionId", "symbols", "ttlMs"]);
        assert_eq!(fields["sessionId"], json!(["is required"]));
        assert_eq!(fields["files"], json!(["must contain at least 1 item"]));
    }

    #[test]
    fn paths_are_normalized_and_refusals_name_their_field() {
        let v = json!({
            "symbolPath": "./src//a.ts:f",
            "files": ["src/./a.ts", "b.ts"],
            "file": "",
            "filter": "no colon",
        });
        let mut p = Params::new(v.as_object().unwrap());
        assert_eq!(p.symbol_path("symbolPath").as_deref(), Some("src/a.ts:f"));
        assert_eq!(
            p.file_array("files"),
            Some(vec!["src/a.ts".to_owned(), "b.ts".to_owned()])
        );
        // Empty filters match nothing, as in v1; so does a symbol filter without a colon.
        assert_eq!(p.opt_file("file").as_deref(), Some(""));
        assert_eq!(
            p.opt_symbol_path_filter("filter").as_deref(),
            Some("no colon")
        );
        assert!(p.finish().is_ok());

        let v = json!({
            "symbolPath": "src/../a.ts:f",
            "files": ["ok.ts", "/abs.ts"],
            "file": "a\u{0}b",
            "released": "../x:f",
            "check": [{"path": "./../x.ts", "content": ""}],
        });
        let mut p = Params::new(v.as_object().unwrap());
        assert!(p.symbol_path("symbolPath").is_none());
        assert!(p.file_array("files").is_none());
        assert!(p.opt_file("file").is_none());
        assert!(p.lenient_symbol_path("released").is_none());
        assert!(p.file_contents("check").is_none());
        let err = p.finish().unwrap_err();
        let data = err.data.unwrap();
        let fields = data["fieldErrors"].as_object().unwrap();
        let names: Vec<&str> = fields.keys().map(String::as_str).collect();
        assert_eq!(names, ["check", "file", "files", "released", "symbolPath"]);
        assert_eq!(
            fields["symbolPath"],
            json!(["the file must not contain a '..' segment"])
        );
        assert!(fields["files"][0].as_str().unwrap().starts_with("item 1: "));
    }

    #[test]
    fn ttl_must_be_a_positive_integer() {
        for bad in [json!(-5), json!(1.5), json!("100"), json!(null), json!(0)] {
            let v = json!({ "ttlMs": bad });
            let mut p = Params::new(v.as_object().unwrap());
            assert!(p.opt_positive_int("ttlMs", u64::MAX).is_none(), "{bad}");
            assert!(p.finish().is_err());
        }
        let v = json!({ "ttlMs": 250 });
        let mut p = Params::new(v.as_object().unwrap());
        assert_eq!(p.opt_positive_int("ttlMs", u64::MAX), Some(250));
    }
}
