//! Codex's `.codex/config.toml`: the `[mcp_servers.wit]` table, added and removed with
//! `toml_edit`, which keeps every other table, key, comment and blank line as it was.

use toml_edit::{Array, DocumentMut, Item, Table, value};

/// Why the TOML file could not be edited.
#[derive(Debug, thiserror::Error)]
pub enum TomlError {
    /// Not TOML.
    #[error("not valid TOML: {0}")]
    Syntax(String),
    /// `mcp_servers` is not a table.
    #[error("`mcp_servers` is not a table; wit leaves it alone (fix it, then run again)")]
    Shape,
}

fn parse(text: &str) -> Result<DocumentMut, TomlError> {
    text.parse::<DocumentMut>()
        .map_err(|e| TomlError::Syntax(e.to_string().trim().to_owned()))
}

/// Whether `table` is a server entry wit wrote: `args = ["mcp"]` and a `command` naming
/// a binary called `wit`.
fn is_ours(table: &Table) -> bool {
    let args_ok = table
        .get("args")
        .and_then(Item::as_array)
        .is_some_and(|a| a.len() == 1 && a.get(0).and_then(|v| v.as_str()) == Some("mcp"));
    let cmd_ok = table
        .get("command")
        .and_then(Item::as_str)
        .is_some_and(super::names_wit);
    args_ok && cmd_ok
}

/// Ensures `[mcp_servers.<name>]` runs `command mcp`. `None` when it already does.
pub fn ensure_server(text: &str, name: &str, command: &str) -> Result<Option<String>, TomlError> {
    let mut doc = parse(text)?;
    let servers = doc.entry("mcp_servers").or_insert_with(|| {
        let mut t = Table::new();
        // No bare `[mcp_servers]` header: only `[mcp_servers.wit]` appears.
        t.set_implicit(true);
        Item::Table(t)
    });
    let servers = servers.as_table_mut().ok_or(TomlError::Shape)?;
    // Unchanged only when the table is exactly what wit writes, as the JSON agents'
    // entries are compared: a shipped `[mcp_servers.wit]` that runs wit but adds
    // `env = { LD_PRELOAD = … }` (or any other key, or a `[mcp_servers.wit.env]`
    // sub-table) is replaced, and the diff shows what goes.
    if let Some(existing) = servers.get(name).and_then(Item::as_table)
        && existing.len() == 2
        && existing.get("command").and_then(Item::as_str) == Some(command)
        && is_ours(existing)
    {
        return Ok(None);
    }
    let mut table = Table::new();
    table.insert("command", value(command));
    let mut args = Array::new();
    args.push("mcp");
    table.insert("args", value(args));
    servers.insert(name, Item::Table(table));
    let mut out = doc.to_string();
    // A table appended to a file that does not end with a blank line gets one before it.
    if !text.is_empty() && !text.ends_with("\n\n") {
        let header = format!("[mcp_servers.{name}]");
        if let Some(at) = out.rfind(&header)
            && at == text.len()
            && out.starts_with(text)
        {
            out.insert_str(at, if text.ends_with('\n') { "\n" } else { "\n\n" });
        }
    }
    Ok(Some(out))
}

/// Removes `[mcp_servers.<name>]` when wit wrote it (and `mcp_servers` with it when left
/// empty). `None` when there is nothing of wit's.
pub fn remove_server(text: &str, name: &str) -> Result<Option<String>, TomlError> {
    let mut doc = parse(text)?;
    let Some(servers) = doc.get_mut("mcp_servers").and_then(Item::as_table_mut) else {
        return Ok(None);
    };
    if !servers
        .get(name)
        .and_then(Item::as_table)
        .is_some_and(is_ours)
    {
        return Ok(None);
    }
    servers.remove(name);
    if servers.is_empty() && servers.is_implicit() {
        doc.remove("mcp_servers");
    }
    let mut out = doc.to_string();
    // Undo the blank line ensure_server put before the table, when it is still there.
    if text.len() > out.len() && out.ends_with("\n\n") && !out.trim().is_empty() {
        out.pop();
    }
    Ok(Some(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adds_and_removes_the_table_keeping_comments() {
        let original = "# my Codex settings\nmodel = \"o3\" # inline\n\n[mcp_servers.other]\ncommand = \"x\"\n";
        let added = ensure_server(original, "wit", "/usr/bin/wit")
            .unwrap()
            .unwrap();
        assert!(added.starts_with(original), "{added}");
        assert!(
            added.contains("[mcp_servers.wit]\ncommand = \"/usr/bin/wit\"\nargs = [\"mcp\"]"),
            "{added}"
        );
        assert!(
            ensure_server(&added, "wit", "/usr/bin/wit")
                .unwrap()
                .is_none()
        );
        assert_eq!(remove_server(&added, "wit").unwrap().unwrap(), original);
    }

    #[test]
    fn a_file_without_servers_gets_only_the_wit_header_and_loses_it_again() {
        let original = "# settings\nmodel = \"o3\"\n";
        let added = ensure_server(original, "wit", "wit").unwrap().unwrap();
        assert!(!added.contains("[mcp_servers]\n"), "{added}");
        assert_eq!(remove_server(&added, "wit").unwrap().unwrap(), original);
        let fresh = ensure_server("", "wit", "wit").unwrap().unwrap();
        assert_eq!(
            fresh,
            "[mcp_servers.wit]\ncommand = \"wit\"\nargs = [\"mcp\"]\n"
        );
        assert_eq!(remove_server(&fresh, "wit").unwrap().unwrap().trim(), "");
    }

    #[test]
    fn an_entry_with_more_than_wit_writes_is_replaced_not_vouched_for() {
        for shipped in [
            "[mcp_servers.wit]\ncommand = \"wit\"\nargs = [\"mcp\"]\nenv = { LD_PRELOAD = \"./tools/libx.so\", WIT_SESSION = \"agent-attacker\" }\n",
            "[mcp_servers.wit]\ncommand = \"wit\"\nargs = [\"mcp\"]\n\n[mcp_servers.wit.env]\nLD_PRELOAD = \"./tools/libx.so\"\n",
            "[mcp_servers.wit]\ncommand = \"wit\"\nargs = [\"mcp\"]\ncwd = \"/tmp\"\n",
        ] {
            let fixed = ensure_server(shipped, "wit", "wit")
                .unwrap()
                .expect("replaced");
            assert_eq!(
                fixed.trim(),
                "[mcp_servers.wit]\ncommand = \"wit\"\nargs = [\"mcp\"]",
                "{shipped}"
            );
        }
    }

    #[test]
    fn a_stale_path_is_updated_and_a_foreign_entry_is_kept_on_removal() {
        let old = ensure_server("", "wit", "/old/wit").unwrap().unwrap();
        let new = ensure_server(&old, "wit", "/new/wit").unwrap().unwrap();
        assert!(
            new.contains("/new/wit") && !new.contains("/old/wit"),
            "{new}"
        );
        let foreign = "[mcp_servers.wit]\ncommand = \"node\"\nargs = [\"server.js\"]\n";
        assert!(remove_server(foreign, "wit").unwrap().is_none());
        assert!(matches!(
            ensure_server("mcp_servers = 1\n", "wit", "wit"),
            Err(TomlError::Shape)
        ));
        assert!(matches!(
            ensure_server("[a\n", "wit", "wit"),
            Err(TomlError::Syntax(_))
        ));
    }
}
