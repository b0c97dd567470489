//! The graph's resolution against outside oracles, as rows of this run: the `graph-eval`
//! binary (beside this one) run on its default repositories, one row per repository with
//! its recall and precision against the TypeScript checker or jedi.

use std::process::Command;

use anyhow::{Context, Result, bail};
use serde_json::{Value, json};

use crate::report::Report;

/// Runs `graph-eval --json` and adds its figures; a row saying why when it cannot run
/// (no `graph-eval` built, no Node or jedi): the rest of the run stands.
pub fn run(report: &mut Report) {
    match evaluate() {
        Ok(repos) => {
            for r in repos {
                let name = r["name"].as_str().unwrap_or("?").to_owned();
                let c = &r["counts"];
                let count = |k: &str| c[k].as_u64().unwrap_or(0);
                let recall = r["recall"].as_f64().unwrap_or(0.0) * 100.0;
                let precision = r["precision"].as_f64().unwrap_or(0.0) * 100.0;
                report.value(
                    &format!("graph vs oracle: {name}"),
                    format!(
                        "recall {recall:.1} % ({}/{}), precision {precision:.1} % ({}/{})",
                        count("edges_right"),
                        count("edges"),
                        count("resolved_agree"),
                        count("resolved_judged"),
                    ),
                    "recall ≥ 85 %, precision ≥ 98 %",
                    json!({"recall": recall, "precision": precision, "counts": c.clone(), "oracles": r["oracles"].clone()}),
                    recall,
                );
            }
        }
        Err(e) => report.value(
            "graph vs oracle",
            format!("not run: {e:#}"),
            "recall ≥ 85 %, precision ≥ 98 %",
            Value::Null,
            0.0,
        ),
    }
}

fn evaluate() -> Result<Vec<Value>> {
    let eval = std::env::current_exe()?.with_file_name("graph-eval");
    if !eval.exists() {
        bail!(
            "{} not found: `cargo build --release -p wit-bench --bin graph-eval`",
            eval.display()
        );
    }
    eprintln!("graph vs oracles: {} --json", eval.display());
    let out = Command::new(&eval)
        .arg("--json")
        .output()
        .context("running graph-eval")?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        bail!(
            "graph-eval failed: {}",
            err.lines().last().unwrap_or("no message")
        );
    }
    let doc: Value = serde_json::from_slice(&out.stdout).context("graph-eval's JSON")?;
    Ok(doc["repositories"].as_array().cloned().unwrap_or_default())
}
