//! The benchmark's report: one row per measure, as a table and as JSON, and the median of
//! several runs. Its own module, below every scenario that writes rows.

use serde_json::{Value, json};

use crate::stats::{Samples, us};

/// One line of the report.
#[derive(Clone)]
pub struct Row {
    name: String,
    value: String,
    target: String,
    json: Value,
    /// The row's headline number (a p50, a rate, a size), for taking medians of runs.
    key: f64,
}

/// All results.
#[derive(Default)]
pub struct Report {
    rows: Vec<Row>,
}

impl Report {
    pub(crate) fn latency(&mut self, name: &str, s: &Samples, target: &str) {
        self.rows.push(Row {
            name: name.into(),
            value: format!(
                "p50 {:>8.1} µs   p99 {:>8.1} µs   (n={})",
                us(s.p50()),
                us(s.p99()),
                s.0.len()
            ),
            target: target.into(),
            json: json!({"p50_us": us(s.p50()), "p99_us": us(s.p99()), "n": s.0.len()}),
            key: us(s.p50()),
        });
    }

    /// A row of the code-graph scenario (`graph.rs`).
    pub(crate) fn row(&mut self, name: &str, value: String, target: &str, json: Value, key: f64) {
        self.value(name, value, target, json, key);
    }

    /// A latency row of the code-graph scenario.
    pub(crate) fn latency_row(&mut self, name: &str, s: &Samples, target: &str) {
        self.latency(name, s, target);
    }

    pub(crate) fn value(&mut self, name: &str, value: String, target: &str, json: Value, key: f64) {
        self.rows.push(Row {
            name: name.into(),
            value,
            target: target.into(),
            json,
            key,
        });
    }

    /// The median of several runs, measure by measure: for each row, the run whose
    /// headline number is the median (so every figure shown is one real measurement,
    /// with its own p99 and details). Runs must have the same rows.
    pub fn median_of(runs: Vec<Report>) -> Report {
        let Some(first) = runs.first() else {
            return Report::default();
        };
        let rows = (0..first.rows.len())
            .map(|i| {
                let mut candidates: Vec<&Row> = runs.iter().filter_map(|r| r.rows.get(i)).collect();
                candidates.sort_by(|a, b| a.key.total_cmp(&b.key));
                let mut row = candidates[candidates.len() / 2].clone();
                if runs.len() > 1 {
                    let all: Vec<f64> = runs
                        .iter()
                        .filter_map(|r| r.rows.get(i))
                        .map(|r| r.key)
                        .collect();
                    if let Value::Object(m) = &mut row.json {
                        m.insert("runs".into(), json!(all));
                    }
                }
                row
            })
            .collect();
        Report { rows }
    }

    /// A plain-text table.
    pub fn table(&self) -> String {
        let w = self.rows.iter().map(|r| r.name.len()).max().unwrap_or(0);
        let v = self
            .rows
            .iter()
            .map(|r| r.value.chars().count())
            .max()
            .unwrap_or(0);
        let mut out = format!("{:w$}  {:v$}  target\n", "measure", "result");
        for r in &self.rows {
            let pad = v - r.value.chars().count();
            out += &format!(
                "{:w$}  {}{}  {}\n",
                r.name,
                r.value,
                " ".repeat(pad),
                r.target
            );
        }
        out
    }

    /// The budget of issue 23 side by side, from this run's rows (those it has): the
    /// graph's cost on `lock.acquire`, idle memory, the cold index against `ctags -R`, the
    /// resolved share, and resolution against the oracles.
    pub fn budget(&self) -> String {
        let wanted = |name: &str| {
            name == "fixture, graph on / graph off: lock.acquire, warm"
                || name == "graph: lock.acquire again (warm)"
                || name.starts_with("memory idle")
                || name == "graph: cold index"
                || name == "graph: cold index / parse-only floor"
                || name == "graph: call-site resolution"
                || name.starts_with("graph vs oracle")
        };
        let rows: Vec<&Row> = self.rows.iter().filter(|r| wanted(&r.name)).collect();
        if rows.is_empty() {
            return String::new();
        }
        let w = rows.iter().map(|r| r.name.len()).max().unwrap_or(0);
        let mut out = String::from("\nbudget, side by side (this run):\n");
        for r in rows {
            out += &format!("  {:w$}  {}   [{}]\n", r.name, r.value.trim(), r.target);
        }
        out
    }

    /// The JSON form: one object keyed by measure name.
    pub fn json(&self) -> Value {
        let mut m = serde_json::Map::new();
        for r in &self.rows {
            m.insert(r.name.clone(), r.json.clone());
        }
        Value::Object(m)
    }
}
