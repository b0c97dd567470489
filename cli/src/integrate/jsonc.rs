//! Editing JSON (and JSON with comments, as Cursor and Gemini CLI accept) by splicing text,
//! so that everything wit does not touch — other keys, their order, the indentation,
//! comments, trailing commas — stays byte for byte, and removing what wit inserted gives
//! back the original bytes.
//!
//! The file is parsed into a tree of spans (objects, arrays, scalars) over a copy of the
//! text in which comments are blanked to spaces (same length, so every offset is valid in
//! the original). An insertion adds one member or element after the last one, indented
//! like its siblings; a removal cuts exactly the span an insertion adds.

use serde_json::Value;

/// Why a JSON file could not be edited.
#[derive(Debug, thiserror::Error)]
pub enum JsonError {
    /// Not JSON (or JSON with comments).
    #[error("not valid JSON at byte {at}: {why}")]
    Syntax {
        /// Byte offset.
        at: usize,
        /// What was expected.
        why: String,
    },
    /// A key wit must write into holds something other than an object or an array.
    #[error("`{path}` is not {expected}; wit leaves it alone (fix or remove it, then run again)")]
    Shape {
        /// The dotted path.
        path: String,
        /// "an object" or "an array".
        expected: &'static str,
    },
}

/// A parsed value with its byte span `[start, end)`.
#[derive(Debug, Clone)]
enum Node {
    Object {
        start: usize,
        end: usize,
        members: Vec<(String, usize, Node)>,
    },
    Array {
        start: usize,
        end: usize,
        items: Vec<Node>,
    },
    Scalar {
        start: usize,
        end: usize,
    },
}

impl Node {
    fn start(&self) -> usize {
        match self {
            Node::Object { start, .. } | Node::Array { start, .. } | Node::Scalar { start, .. } => {
                *start
            }
        }
    }
    fn end(&self) -> usize {
        match self {
            Node::Object { end, .. } | Node::Array { end, .. } | Node::Scalar { end, .. } => *end,
        }
    }

    /// The value, read from the blanked text.
    fn value(&self, blank: &str) -> Value {
        match self {
            Node::Object { members, .. } => Value::Object(
                members
                    .iter()
                    .map(|(k, _, v)| (k.clone(), v.value(blank)))
                    .collect(),
            ),
            Node::Array { items, .. } => {
                Value::Array(items.iter().map(|n| n.value(blank)).collect())
            }
            Node::Scalar { start, end } => {
                serde_json::from_str(&blank[*start..*end]).unwrap_or(Value::Null)
            }
        }
    }
}

/// A parsed document: the original text, its blanked copy and the root value.
struct Doc<'a> {
    text: &'a str,
    blank: String,
    root: Node,
}

impl<'a> Doc<'a> {
    fn parse(text: &'a str) -> Result<Self, JsonError> {
        let blank = blank_comments(text);
        let mut p = Parser {
            s: blank.as_bytes(),
            i: 0,
        };
        let root = p.value(0)?;
        p.ws();
        if p.i != p.s.len() {
            return Err(p.err("nothing after the top-level value"));
        }
        if !matches!(root, Node::Object { .. }) {
            return Err(JsonError::Shape {
                path: "the top level".into(),
                expected: "an object",
            });
        }
        Ok(Doc { text, blank, root })
    }

    /// The node at `path` (object keys), or `None` from the first missing key on.
    fn get(&self, path: &[&str]) -> Result<Option<&Node>, JsonError> {
        let mut node = &self.root;
        for (i, key) in path.iter().enumerate() {
            let Node::Object { members, .. } = node else {
                return Err(shape(&path[..i], "an object"));
            };
            match members.iter().rev().find(|(k, _, _)| k == key) {
                Some((_, _, v)) => node = v,
                None => return Ok(None),
            }
        }
        Ok(Some(node))
    }

    /// The indentation of the line holding byte `pos`.
    fn line_indent(&self, pos: usize) -> &str {
        let line_start = self.text[..pos].rfind('\n').map_or(0, |i| i + 1);
        let rest = &self.text[line_start..];
        let n = rest.len() - rest.trim_start_matches([' ', '\t']).len();
        &rest[..n]
    }

    /// The file's indentation unit: that of the first indented line, else two spaces.
    fn unit(&self) -> String {
        for line in self.text.lines().skip(1) {
            let n = line.len() - line.trim_start_matches([' ', '\t']).len();
            if n > 0 && n < line.len() {
                return line[..n].to_owned();
            }
        }
        "  ".to_owned()
    }

    /// Indentation for children of the container `node`.
    fn child_indent(&self, node: &Node, first_child: Option<usize>) -> String {
        let own = self.line_indent(node.start());
        match first_child {
            // A child on its own line sets the style; one on the opening line does not.
            Some(c) if self.text[node.start()..c].contains('\n') => self.line_indent(c).to_owned(),
            _ => format!("{own}{}", self.unit()),
        }
    }

    /// Text with `value` inserted as the last child of container `node` (`key` for an
    /// object's member).
    fn insert(&self, node: &Node, key: Option<&str>, value: &Value) -> String {
        let (start, end, last_end, first) = match node {
            Node::Object {
                start,
                end,
                members,
            } => (
                *start,
                *end,
                members.last().map(|(_, _, v)| v.end()),
                members.first().map(|(_, k, _)| *k),
            ),
            Node::Array { start, end, items } => (
                *start,
                *end,
                items.last().map(Node::end),
                items.first().map(Node::start),
            ),
            Node::Scalar { .. } => return self.text.to_owned(),
        };
        let indent = self.child_indent(node, first);
        let unit = self.unit();
        let rendered = render(value, &indent, &unit);
        let entry = match key {
            Some(k) => format!("{}: {rendered}", Value::String(k.to_owned())),
            None => rendered,
        };
        match last_end {
            Some(at) => format!("{},\n{indent}{entry}{}", &self.text[..at], &self.text[at..]),
            None => {
                // An empty container: whatever was between its brackets (blanks, a
                // comment) is replaced; removal gives back the bare brackets.
                let own = self.line_indent(start);
                format!(
                    "{}{}\n{indent}{entry}\n{own}{}{}",
                    &self.text[..start],
                    &self.text[start..start + 1],
                    &self.text[end - 1..end],
                    &self.text[end..]
                )
            }
        }
    }

    /// Text with child `index` of container `node` cut out (the span an insertion adds).
    fn cut(&self, node: &Node, index: usize) -> String {
        let spans: Vec<(usize, usize)> = match node {
            Node::Object { members, .. } => members.iter().map(|(_, k, v)| (*k, v.end())).collect(),
            Node::Array { items, .. } => items.iter().map(|n| (n.start(), n.end())).collect(),
            Node::Scalar { .. } => return self.text.to_owned(),
        };
        let (from, to) = if spans.len() == 1 {
            // The only child: the container becomes empty.
            (node.start() + 1, node.end() - 1)
        } else if index > 0 {
            (spans[index - 1].1, spans[index].1)
        } else {
            (spans[0].0, spans[1].0)
        };
        format!("{}{}", &self.text[..from], &self.text[to..])
    }
}

fn shape(path: &[&str], expected: &'static str) -> JsonError {
    JsonError::Shape {
        path: if path.is_empty() {
            "the top level".into()
        } else {
            path.join(".")
        },
        expected,
    }
}

/// `value` pretty-printed with `unit` per level, its inner lines shifted by `indent`.
fn render(value: &Value, indent: &str, unit: &str) -> String {
    use serde::Serialize;
    let mut out = Vec::new();
    let fmt = serde_json::ser::PrettyFormatter::with_indent(unit.as_bytes());
    let mut ser = serde_json::Serializer::with_formatter(&mut out, fmt);
    // Serializing a Value into a Vec cannot fail.
    let _ = value.serialize(&mut ser);
    String::from_utf8_lossy(&out).replace('\n', &format!("\n{indent}"))
}

/// A copy of `text` with every `//` and `/* */` comment (outside strings) replaced by
/// spaces, newlines kept, so offsets are the same in both.
fn blank_comments(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = b.to_vec();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'"' => {
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            }
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    out[i] = b' ';
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                let close = text[i + 2..].find("*/").map_or(b.len(), |j| i + 2 + j + 2);
                for c in &mut out[i..close] {
                    if *c != b'\n' {
                        *c = b' ';
                    }
                }
                i = close;
            }
            _ => i += 1,
        }
    }
    // Only ASCII bytes of comments were replaced by ASCII spaces... and the bytes of any
    // multi-byte character inside a comment too, each by a space: still valid UTF-8.
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

struct Parser<'s> {
    s: &'s [u8],
    i: usize,
}

/// Nesting deeper than this is refused (a hostile file cannot overflow the stack).
const MAX_DEPTH: usize = 128;

impl Parser<'_> {
    fn err(&self, why: &str) -> JsonError {
        JsonError::Syntax {
            at: self.i,
            why: why.to_owned(),
        }
    }
    fn ws(&mut self) {
        while self.i < self.s.len() && self.s[self.i].is_ascii_whitespace() {
            self.i += 1;
        }
    }
    fn value(&mut self, depth: usize) -> Result<Node, JsonError> {
        if depth > MAX_DEPTH {
            return Err(self.err("nested too deeply"));
        }
        self.ws();
        let start = self.i;
        match self.s.get(self.i) {
            Some(b'{') => {
                self.i += 1;
                let mut members = Vec::new();
                loop {
                    self.ws();
                    match self.s.get(self.i) {
                        Some(b'}') => break,
                        Some(b'"') => {}
                        _ => return Err(self.err("expected a key or `}`")),
                    }
                    let key_start = self.i;
                    self.string()?;
                    let key: String = serde_json::from_slice(&self.s[key_start..self.i])
                        .map_err(|e| self.err(&e.to_string()))?;
                    self.ws();
                    if self.s.get(self.i) != Some(&b':') {
                        return Err(self.err("expected `:`"));
                    }
                    self.i += 1;
                    let v = self.value(depth + 1)?;
                    members.push((key, key_start, v));
                    self.ws();
                    match self.s.get(self.i) {
                        Some(b',') => self.i += 1,
                        Some(b'}') => break,
                        _ => return Err(self.err("expected `,` or `}`")),
                    }
                }
                self.i += 1;
                Ok(Node::Object {
                    start,
                    end: self.i,
                    members,
                })
            }
            Some(b'[') => {
                self.i += 1;
                let mut items = Vec::new();
                loop {
                    self.ws();
                    if self.s.get(self.i) == Some(&b']') {
                        break;
                    }
                    items.push(self.value(depth + 1)?);
                    self.ws();
                    match self.s.get(self.i) {
                        Some(b',') => self.i += 1,
                        Some(b']') => break,
                        _ => return Err(self.err("expected `,` or `]`")),
                    }
                }
                self.i += 1;
                Ok(Node::Array {
                    start,
                    end: self.i,
                    items,
                })
            }
            Some(b'"') => {
                self.string()?;
                Ok(Node::Scalar { start, end: self.i })
            }
            Some(_) => {
                while self.i < self.s.len()
                    && !matches!(self.s[self.i], b',' | b'}' | b']')
                    && !self.s[self.i].is_ascii_whitespace()
                {
                    self.i += 1;
                }
                serde_json::from_slice::<Value>(&self.s[start..self.i]).map_err(|_| {
                    JsonError::Syntax {
                        at: start,
                        why: "expected a value".into(),
                    }
                })?;
                Ok(Node::Scalar { start, end: self.i })
            }
            None => Err(self.err("unexpected end")),
        }
    }
    fn string(&mut self) -> Result<(), JsonError> {
        self.i += 1;
        while self.i < self.s.len() && self.s[self.i] != b'"' {
            self.i += if self.s[self.i] == b'\\' { 2 } else { 1 };
        }
        if self.i >= self.s.len() {
            return Err(self.err("unterminated string"));
        }
        self.i += 1;
        Ok(())
    }
}

/// The text of an empty document wit starts a missing file from.
pub const EMPTY: &str = "{}\n";

/// Whether `text` holds an empty top-level object (what removal leaves of a file wit
/// created, which is then deleted).
pub fn is_empty_object(text: &str) -> bool {
    Doc::parse(text)
        .is_ok_and(|d| matches!(&d.root, Node::Object { members, .. } if members.is_empty()))
}

/// Ensures the object at `path` has `key` = `value` (objects on the way are created).
/// With `keep_existing`, a key already present is left as it is whatever its value.
/// Returns the new text, or `None` when nothing changes.
pub fn ensure_member(
    text: &str,
    path: &[&str],
    key: &str,
    value: &Value,
    keep_existing: bool,
) -> Result<Option<String>, JsonError> {
    let doc = Doc::parse(text)?;
    let (node, rest) = deepest(&doc, path)?;
    if !rest.is_empty() {
        return Ok(Some(insert_nested(&doc, node, rest, key, value)?));
    }
    let Node::Object { members, .. } = node else {
        return Err(shape(path, "an object"));
    };
    match members.iter().rposition(|(k, _, _)| k == key) {
        Some(_) if keep_existing => Ok(None),
        Some(i) if members[i].2.value(&doc.blank) == *value => Ok(None),
        Some(i) => {
            // Replace the value in place (a stale wit entry, e.g. another binary path).
            let v = &members[i].2;
            let indent = doc.line_indent(members[i].1).to_owned();
            let rendered = render(value, &indent, &doc.unit());
            Ok(Some(format!(
                "{}{rendered}{}",
                &text[..v.start()],
                &text[v.end()..]
            )))
        }
        None => Ok(Some(doc.insert(node, Some(key), value))),
    }
}

/// Ensures the array at `path` holds `value`: unchanged when an equal element is there, an
/// element `is_ours` says wit wrote (but different) is replaced, otherwise `value` is
/// appended. Objects and the array on the way are created.
pub fn ensure_element(
    text: &str,
    path: &[&str],
    value: &Value,
    is_ours: &dyn Fn(&Value) -> bool,
) -> Result<Option<String>, JsonError> {
    let doc = Doc::parse(text)?;
    let (node, rest) = deepest(&doc, path)?;
    if !rest.is_empty() {
        let (last, parents) = rest.split_last().unwrap_or((&"", &[]));
        let array = Value::Array(vec![value.clone()]);
        if parents.is_empty() {
            let Node::Object { .. } = node else {
                return Err(shape(&path[..path.len() - rest.len()], "an object"));
            };
            return Ok(Some(doc.insert(node, Some(last), &array)));
        }
        return Ok(Some(insert_nested(&doc, node, parents, last, &array)?));
    }
    let Node::Array { items, .. } = node else {
        return Err(shape(path, "an array"));
    };
    let values: Vec<Value> = items.iter().map(|n| n.value(&doc.blank)).collect();
    if values.iter().any(|v| v == value) {
        return Ok(None);
    }
    if let Some(i) = values.iter().position(is_ours) {
        let n = &items[i];
        let indent = doc.line_indent(n.start()).to_owned();
        let rendered = render(value, &indent, &doc.unit());
        return Ok(Some(format!(
            "{}{rendered}{}",
            &text[..n.start()],
            &text[n.end()..]
        )));
    }
    Ok(Some(doc.insert(node, None, value)))
}

/// Removes `key` from the object at `path` when `is_ours` accepts its value; containers on
/// `path` left empty are removed too (not the top level). `None` when nothing changes.
pub fn remove_member(
    text: &str,
    path: &[&str],
    key: &str,
    is_ours: &dyn Fn(&Value) -> bool,
) -> Result<Option<String>, JsonError> {
    let doc = Doc::parse(text)?;
    let Some(Node::Object { members, .. }) = doc.get(path)? else {
        return Ok(None);
    };
    let Some(i) = members
        .iter()
        .rposition(|(k, _, v)| k == key && is_ours(&v.value(&doc.blank)))
    else {
        return Ok(None);
    };
    let node = doc.get(path)?.cloned();
    let Some(node) = node else { return Ok(None) };
    let cut = doc.cut(&node, i);
    if members.len() == 1 && !path.is_empty() {
        return Ok(Some(prune(&cut, path)?));
    }
    Ok(Some(cut))
}

/// Removes every element of the array at `path` that `is_ours` accepts; containers left
/// empty are removed too (not the top level). `None` when nothing changes.
pub fn remove_elements(
    text: &str,
    path: &[&str],
    is_ours: &dyn Fn(&Value) -> bool,
) -> Result<Option<String>, JsonError> {
    let mut current = text.to_owned();
    let mut changed = false;
    loop {
        let doc = Doc::parse(&current)?;
        let Some(node @ Node::Array { items, .. }) = doc.get(path)? else {
            break;
        };
        let Some(i) = items.iter().position(|n| is_ours(&n.value(&doc.blank))) else {
            break;
        };
        let emptied = items.len() == 1;
        let mut next = doc.cut(node, i);
        if emptied {
            next = prune(&next, path)?;
        }
        current = next;
        changed = true;
        if emptied {
            break;
        }
    }
    Ok(changed.then_some(current))
}

/// Removes the (empty) container at `path` from its parent, and each parent left empty,
/// up to but not including the top level.
fn prune(text: &str, path: &[&str]) -> Result<String, JsonError> {
    let mut current = text.to_owned();
    let mut path = path.to_vec();
    while let Some(key) = path.pop() {
        let doc = Doc::parse(&current)?;
        let empty = match doc.get(&path)?.and_then(|p| match p {
            Node::Object { members, .. } => members
                .iter()
                .rposition(|(k, _, _)| *k == key)
                .map(|i| (p, i, &members[i].2)),
            _ => None,
        }) {
            Some((parent, i, child)) => {
                let is_empty = match child {
                    Node::Object { members, .. } => members.is_empty(),
                    Node::Array { items, .. } => items.is_empty(),
                    Node::Scalar { .. } => false,
                };
                if !is_empty {
                    break;
                }
                let siblings = match parent {
                    Node::Object { members, .. } => members.len(),
                    _ => 0,
                };
                let parent = parent.clone();
                current = doc.cut(&parent, i);
                siblings == 1
            }
            None => break,
        };
        if !empty {
            break;
        }
    }
    Ok(current)
}

/// The deepest node on `path` that exists, and the keys still missing below it.
fn deepest<'d, 'p>(
    doc: &'d Doc<'_>,
    path: &'p [&'p str],
) -> Result<(&'d Node, &'p [&'p str]), JsonError> {
    let mut node = &doc.root;
    for (i, key) in path.iter().enumerate() {
        let Node::Object { members, .. } = node else {
            return Err(shape(&path[..i], "an object"));
        };
        match members.iter().rev().find(|(k, _, _)| k == key) {
            Some((_, _, v)) => node = v,
            None => return Ok((node, &path[i..])),
        }
    }
    Ok((node, &[]))
}

/// Inserts `{rest[1]: {… {key: value}}}` as member `rest[0]` of `node`.
fn insert_nested(
    doc: &Doc<'_>,
    node: &Node,
    rest: &[&str],
    key: &str,
    value: &Value,
) -> Result<String, JsonError> {
    if !matches!(node, Node::Object { .. }) {
        return Err(shape(&rest[..0], "an object"));
    }
    let mut v = serde_json::json!({ key: value });
    for k in rest[1..].iter().rev() {
        v = serde_json::json!({ *k: v });
    }
    Ok(doc.insert(node, Some(rest[0]), &v))
}

/// The value of the whole document (comments ignored), for callers that inspect it.
pub fn parse_value(text: &str) -> Result<Value, JsonError> {
    let doc = Doc::parse(text)?;
    Ok(doc.root.value(&doc.blank))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn never(_: &Value) -> bool {
        false
    }
    fn wit(v: &Value) -> bool {
        v.get("args") == Some(&json!(["mcp"]))
    }

    #[test]
    fn inserts_into_an_existing_object_and_removes_back_to_the_bytes() {
        let original = "{\n    \"mcpServers\": {\n        \"other\": {\"command\": \"x\"}\n    },\n    \"z\": 1\n}\n";
        let entry = json!({"command": "wit", "args": ["mcp"]});
        let added = ensure_member(original, &["mcpServers"], "wit", &entry, false)
            .unwrap()
            .unwrap();
        assert!(
            added.contains("        \"wit\": {\n            \"args\""),
            "{added}"
        );
        assert_eq!(parse_value(&added).unwrap()["mcpServers"]["wit"], entry);
        assert_eq!(parse_value(&added).unwrap()["z"], 1);
        assert!(
            ensure_member(&added, &["mcpServers"], "wit", &entry, false)
                .unwrap()
                .is_none()
        );
        let removed = remove_member(&added, &["mcpServers"], "wit", &wit)
            .unwrap()
            .unwrap();
        assert_eq!(removed, original);
    }

    #[test]
    fn creates_missing_containers_and_prunes_them_on_removal() {
        let original = "{\n  // keep me\n  \"permissions\": {\"allow\": []}, /* and me */\n}\n";
        let group =
            json!({"matcher": "Edit", "hooks": [{"type": "command", "command": "wit guard"}]});
        let added = ensure_element(original, &["hooks", "PreToolUse"], &group, &never)
            .unwrap()
            .unwrap();
        assert!(
            added.contains("// keep me") && added.contains("/* and me */"),
            "{added}"
        );
        assert_eq!(
            parse_value(&added).unwrap()["hooks"]["PreToolUse"][0],
            group
        );
        assert!(
            ensure_element(&added, &["hooks", "PreToolUse"], &group, &never)
                .unwrap()
                .is_none()
        );
        let ours = |v: &Value| v.get("matcher") == Some(&json!("Edit"));
        let removed = remove_elements(&added, &["hooks", "PreToolUse"], &ours)
            .unwrap()
            .unwrap();
        assert_eq!(removed, original);
    }

    #[test]
    fn a_new_file_is_built_from_empty_and_emptied_again() {
        let entry = json!({"command": "wit", "args": ["mcp"]});
        let added = ensure_member(EMPTY, &["mcpServers"], "wit", &entry, false)
            .unwrap()
            .unwrap();
        assert_eq!(
            added,
            "{\n  \"mcpServers\": {\n    \"wit\": {\n      \"args\": [\n        \"mcp\"\n      ],\n      \"command\": \"wit\"\n    }\n  }\n}\n"
        );
        let removed = remove_member(&added, &["mcpServers"], "wit", &wit)
            .unwrap()
            .unwrap();
        assert!(is_empty_object(&removed), "{removed}");
    }

    #[test]
    fn a_stale_entry_of_ours_is_replaced_and_foreign_entries_are_kept() {
        let text = "{\"a\": [{\"id\": 1}, {\"id\": \"wit-old\"}]}";
        let ours = |v: &Value| v["id"].as_str().is_some_and(|s| s.starts_with("wit"));
        let new = ensure_element(text, &["a"], &json!({"id": "wit-new"}), &ours)
            .unwrap()
            .unwrap();
        assert_eq!(
            parse_value(&new).unwrap(),
            json!({"a": [{"id": 1}, {"id": "wit-new"}]})
        );
        let gone = remove_elements(&new, &["a"], &ours).unwrap().unwrap();
        assert_eq!(gone, "{\"a\": [{\"id\": 1}]}");
        // keep_existing leaves a present key alone.
        assert!(
            ensure_member("{\"version\": 2}", &[], "version", &json!(1), true)
                .unwrap()
                .is_none()
        );
    }

    #[test]
    fn wrong_shapes_and_bad_syntax_are_clear_errors() {
        let e = ensure_element(
            "{\"hooks\": []}",
            &["hooks", "PreToolUse"],
            &json!(1),
            &never,
        )
        .unwrap_err();
        assert!(e.to_string().contains("`hooks` is not an object"), "{e}");
        let e = ensure_member("{\"a\": }", &[], "k", &json!(1), false).unwrap_err();
        assert!(matches!(e, JsonError::Syntax { .. }), "{e}");
        let e = ensure_member("[1]", &[], "k", &json!(1), false).unwrap_err();
        assert!(matches!(e, JsonError::Shape { .. }), "{e}");
        let deep = "[".repeat(1000);
        assert!(parse_value(&format!("{{\"a\": {deep}}}")).is_err());
    }

    #[test]
    fn a_member_not_ours_is_not_removed() {
        let text = "{\"mcpServers\": {\"wit\": {\"command\": \"mine\"}}}";
        assert!(
            remove_member(text, &["mcpServers"], "wit", &wit)
                .unwrap()
                .is_none()
        );
    }
}
