//! `wit analyzers`: every analyzer the daemon uses, the plugins it refused and why, and the
//! state of `wit.toml` and trust (the `analyzers.list` extension).

use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::context::{Ctx, call};
use crate::exit::CmdResult;
use crate::output::{Cell, Style, print_json, shown, table};

/// `analyzers.list`'s result.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct AnalyzerList {
    /// Every analyzer in the registry.
    pub analyzers: Vec<ListedAnalyzer>,
    /// Plugins refused at start.
    pub failed: Vec<FailedPlugin>,
    /// `wit.toml`.
    pub config: ConfigState,
    /// Trust, as found at start.
    pub trust: TrustState,
}

/// One analyzer.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ListedAnalyzer {
    /// `typescript`, `go`, …
    pub id: String,
    /// Extensions without the dot.
    pub extensions: Vec<String>,
    /// `builtin`, `plugin` or `language` (a `[[languages]]` entry of `wit.toml`).
    pub origin: String,
    /// A plugin's library, or a language's grammar library.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// A language's query files.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub queries: Vec<String>,
    /// A plugin's failed `analyze` calls.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failures: Option<u64>,
    /// A plugin's most recent failure.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_failure: Option<serde_json::Value>,
    /// A plugin library (or its directory) writable by group or others: computed here,
    /// by the same rule the daemon logs and `wit trust` shows.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// What the daemon found wrong with the shape of the plugin's results.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shape_warning: Option<String>,
}

/// A plugin (or a `[[languages]]` entry) that was not loaded.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct FailedPlugin {
    /// The library (a language's grammar).
    pub path: String,
    /// The language's id, when a `[[languages]]` entry failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
    /// Why.
    pub reason: String,
    /// What to do.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
}

/// The state of `wit.toml`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ConfigState {
    /// Its path.
    pub file: String,
    /// Whether it exists.
    pub present: bool,
    /// Why it was refused (`file:line:column: key: what`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The refused line (1-based).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u64>,
    /// The refused column (1-based).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<u64>,
    /// The refused key (`locks.default_ttl`), when the error is about one key.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
}

/// Trust, as the daemon found it.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct TrustState {
    /// `trusted`, `untrusted`, `stale`, `unknown` or `not-needed`.
    pub status: String,
    /// The trust store.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub store: Option<String>,
    /// Files changed since the grant (when stale).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub changed: Vec<String>,
}

/// `wit analyzers`.
pub async fn run(ctx: &Ctx) -> CmdResult {
    let mut client = ctx.client().await?;
    let mut list: AnalyzerList =
        call(&mut client, "analyzers.list", json!({}), "analyzers").await?;
    add_warnings(&mut list);
    if ctx.json {
        print_json(&list);
    } else {
        print!("{}", render(&list, &ctx.style));
    }
    Ok(())
}

/// Fills each plugin's [`ListedAnalyzer::warnings`] from its library's permissions now.
/// (`analyzers.list` does not carry them; the check needs nothing but the path, and this
/// process runs as the same user as the daemon.)
pub fn add_warnings(list: &mut AnalyzerList) {
    for a in &mut list.analyzers {
        if let Some(path) = &a.path {
            a.warnings = wit_boundary::library::permission_warnings(std::path::Path::new(path));
            a.warnings.extend(a.shape_warning.clone());
        }
    }
}

/// The human rendering.
pub fn render(list: &AnalyzerList, style: &Style) -> String {
    let any_failures = list.analyzers.iter().any(|a| a.failures.unwrap_or(0) > 0);
    let rows = list
        .analyzers
        .iter()
        .map(|a| {
            let origin = match (&a.path, a.origin.as_str()) {
                (Some(path), "language") => {
                    format!("wit.toml: grammar {path}, queries {}", a.queries.join(", "))
                }
                (Some(path), _) => format!("plugin {path}"),
                (None, _) => a.origin.clone(),
            };
            let mut health = String::new();
            if let Some(n) = a.failures.filter(|n| *n > 0) {
                let last = a
                    .last_failure
                    .as_ref()
                    .and_then(|f| f["reason"].as_str())
                    .unwrap_or("");
                health = format!("{n} failed analyses, last: {last}");
            }
            let mut row = vec![
                Cell::plain(&a.id),
                Cell::plain(
                    a.extensions
                        .iter()
                        .map(|e| format!(".{e}"))
                        .collect::<Vec<_>>()
                        .join(" "),
                ),
                Cell::plain(origin),
            ];
            if any_failures {
                row.push(Cell::styled(health, |t| style.yellow(t)));
            }
            row
        })
        .collect();
    let header: &[&str] = if any_failures {
        &["ANALYZER", "EXTENSIONS", "ORIGIN", "RUN-TIME FAILURES"]
    } else {
        &["ANALYZER", "EXTENSIONS", "ORIGIN"]
    };
    let mut out = table(style, header, rows);
    for a in &list.analyzers {
        for warning in &a.warnings {
            out.push_str(&format!(
                "\n{} analyzer {:?}: {}\n",
                style.yellow("warning:"),
                a.id,
                shown(warning)
            ));
        }
    }
    out.push_str(&problems(&list.config, &list.failed, style));
    out
}

/// The config error and refused plugins, one paragraph each (empty when all is well);
/// also shown by `wit status`.
pub fn problems(config: &ConfigState, failed: &[FailedPlugin], style: &Style) -> String {
    let mut out = String::new();
    if let Some(error) = &config.error {
        out.push_str(&format!(
            "\n{} {}\n  the daemon uses the default settings and no plugins; fix the file, then `wit daemon restart`\n",
            style.red("wit.toml refused:"),
            shown(error)
        ));
    }
    for f in failed {
        let what = match &f.language {
            Some(id) => format!("{} (grammar {})", shown(id), shown(&f.path)),
            None => shown(&f.path).into_owned(),
        };
        let title = if f.language.is_some() {
            "language not loaded:"
        } else {
            "plugin not loaded:"
        };
        out.push_str(&format!(
            "\n{} {what}\n  {}\n",
            style.red(title),
            shown(&f.reason)
        ));
        if let Some(hint) = &f.hint {
            out.push_str(&format!("  hint: {}\n", shown(hint)));
        }
    }
    out
}
