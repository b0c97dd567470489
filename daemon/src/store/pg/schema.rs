//! PostgreSQL schema and forward migrations, versioned per project.
//!
//! The same tables as SQLite's (`store/schema.rs`), written for PostgreSQL: `BIGSERIAL`
//! numbers where gaps do not matter (audit, intents, contracts), `BIGINT` Unix milliseconds and
//! 0/1 flags (the store modules' integers are 64-bit on both backends). Migrations run under one
//! transaction-scoped advisory lock ([`MIGRATION_LOCK`]), so daemons starting at the same
//! moment migrate once, in turn — one lock for every project, since creating the shared
//! `public.wit_projects` concurrently would race in PostgreSQL's catalog.

/// Migration `i` takes a project's schema from version `i` to `i + 1`. Append only.
const MIGRATIONS: &[&str] = &[
    r#"
CREATE TABLE agents (
    id            BIGSERIAL PRIMARY KEY,
    session_id    TEXT NOT NULL UNIQUE,
    name          TEXT NOT NULL,
    registered_at BIGINT NOT NULL
);
CREATE TABLE locks (
    symbol_path TEXT PRIMARY KEY,
    session_id  TEXT NOT NULL,
    acquired_at BIGINT NOT NULL,
    expires_at  BIGINT NOT NULL
);
CREATE INDEX locks_by_session ON locks(session_id);
CREATE INDEX locks_by_expiry ON locks(expires_at);
CREATE TABLE intents (
    seq         BIGSERIAL PRIMARY KEY,
    id          TEXT NOT NULL UNIQUE,
    session_id  TEXT NOT NULL,
    description TEXT NOT NULL,
    files       TEXT NOT NULL,
    symbols     TEXT NOT NULL,
    start_byte  BIGINT,
    end_byte    BIGINT,
    status      TEXT NOT NULL,
    declared_at BIGINT NOT NULL,
    updated_at  BIGINT NOT NULL,
    file_set    TEXT NOT NULL DEFAULT '[]'
);
CREATE INDEX intents_by_session ON intents(session_id);
CREATE INDEX intents_by_status ON intents(status);
-- Keyed by the path itself (SQLite's integer path hash is a function of its own), then
-- whether the intent is live, then the intent: what the overlap check seeks.
CREATE TABLE intent_files (
    file       TEXT NOT NULL,
    live       BIGINT NOT NULL,
    intent_seq BIGINT NOT NULL,
    start_byte BIGINT,
    end_byte   BIGINT,
    PRIMARY KEY (file, live, intent_seq)
);
CREATE TABLE contracts (
    seq                  BIGSERIAL UNIQUE,
    id                   TEXT PRIMARY KEY,
    proposer_session_id  TEXT NOT NULL,
    symbol_path          TEXT NOT NULL,
    file                 TEXT NOT NULL,
    signature            TEXT NOT NULL,
    status               TEXT NOT NULL,
    responder_session_id TEXT,
    proposed_at          BIGINT NOT NULL,
    responded_at         BIGINT,
    retired_by           TEXT,
    retired_at           BIGINT,
    retire_reason        TEXT,
    superseded_by        TEXT
);
CREATE INDEX contracts_by_symbol ON contracts(symbol_path);
CREATE INDEX contracts_by_file_status ON contracts(file, status);
-- `seq` is assigned by the writer as the last one plus one, under the project's write
-- lock (store::events): gap-free, which a sequence object is not.
CREATE TABLE events (
    seq        BIGINT PRIMARY KEY,
    at         BIGINT NOT NULL,
    kind       TEXT NOT NULL,
    session_id TEXT,
    subject    TEXT NOT NULL,
    data       TEXT NOT NULL
);
CREATE TABLE audit (
    id          BIGSERIAL PRIMARY KEY,
    at          BIGINT NOT NULL,
    action      TEXT NOT NULL,
    symbol_path TEXT NOT NULL,
    holder      TEXT NOT NULL,
    by_session  TEXT,
    reason      TEXT NOT NULL
);
CREATE INDEX audit_by_symbol ON audit(symbol_path, holder);
CREATE TABLE heartbeats (
    session_id TEXT PRIMARY KEY,
    last_at    BIGINT NOT NULL
);
CREATE TABLE leases (
    id          TEXT PRIMARY KEY,
    session_id  TEXT NOT NULL,
    mode        TEXT NOT NULL,
    paths       TEXT NOT NULL,
    reason      TEXT,
    acquired_at BIGINT NOT NULL,
    expires_at  BIGINT NOT NULL
);
CREATE INDEX leases_by_expiry ON leases(expires_at);
CREATE INDEX leases_by_session ON leases(session_id);
CREATE TABLE ended_sessions (
    session_id TEXT PRIMARY KEY,
    ended_at   BIGINT NOT NULL,
    reason     TEXT NOT NULL
);
CREATE TABLE session_worktrees (
    session_id TEXT PRIMARY KEY,
    worktree   TEXT NOT NULL,
    seen_at    BIGINT NOT NULL
);
"#,
    // The path as a lock's holder, or a contract's proposer, named it (NULL: its
    // canonical path), for v1's answers.
    "ALTER TABLE locks ADD COLUMN spelling TEXT;\nALTER TABLE contracts ADD COLUMN spelling TEXT;",
    r#"
-- The conflict forecast (crate::forecast): the checkouts sharing this state, what each
-- changed against the merge bases the others need, and the forecasts between two.
CREATE TABLE checkouts (
    checkout TEXT PRIMARY KEY,
    branch   TEXT,
    head     TEXT,
    state    TEXT NOT NULL,
    version  BIGINT NOT NULL,
    seen_at  BIGINT NOT NULL
);
CREATE TABLE checkout_changes (
    checkout TEXT NOT NULL,
    base     TEXT NOT NULL,
    file     TEXT NOT NULL,
    change   TEXT NOT NULL,
    PRIMARY KEY (checkout, base, file)
);
CREATE TABLE forecast_pairs (
    a  TEXT NOT NULL,
    b  TEXT NOT NULL,
    va BIGINT NOT NULL,
    vb BIGINT NOT NULL,
    PRIMARY KEY (a, b)
);
CREATE TABLE forecasts (
    id    TEXT PRIMARY KEY,
    a     TEXT NOT NULL,
    b     TEXT NOT NULL,
    body  TEXT NOT NULL,
    since BIGINT NOT NULL
);
CREATE INDEX forecasts_by_pair ON forecasts(a, b);
"#,
    r#"
-- Claims (crate::claims): who changed which definition of a checkout, uncommitted. One
-- row per (checkout, file, definition, session); `body` is the claim as JSON
-- (wit_forecast::claims::Claim). The session is '' for a change no agent's hook
-- announced. Collisions between two sessions of one checkout, kept like the forecasts
-- between checkouts (`body` is a wit_forecast::Forecast).
CREATE TABLE claims (
    checkout   TEXT NOT NULL,
    file       TEXT NOT NULL,
    def_key    TEXT NOT NULL,
    session_id TEXT NOT NULL,
    since      BIGINT NOT NULL,
    edited_at  BIGINT NOT NULL,
    body       TEXT NOT NULL,
    PRIMARY KEY (checkout, file, def_key, session_id)
);
CREATE INDEX claims_by_session ON claims(session_id);
CREATE INDEX claims_by_edit ON claims(edited_at);
CREATE TABLE collisions (
    id       TEXT PRIMARY KEY,
    checkout TEXT NOT NULL,
    body     TEXT NOT NULL,
    since    BIGINT NOT NULL
);
CREATE INDEX collisions_by_checkout ON collisions(checkout);
"#,
];

/// The advisory lock key of migrations (any constant; "wit" in ASCII).
const MIGRATION_LOCK: i64 = 0x0077_6974;

/// A PostgreSQL error with the server's own message (the `Display` of a server error is
/// only "db error").
pub(crate) fn db(e: tokio_postgres::Error) -> String {
    match e.as_db_error() {
        Some(d) => format!("{}: {}", d.severity(), d.message()),
        None => e.to_string(),
    }
}

/// The schema version this build writes.
pub(crate) const CURRENT_VERSION: i32 = MIGRATIONS.len() as i32;

/// Creates the project's schema when missing and applies every migration newer than its
/// version; returns the version it is at. Refuses a schema newer than this build.
pub(crate) async fn migrate(
    client: &mut tokio_postgres::Client,
    project: &str,
) -> Result<i32, String> {
    let schema = super::super::target::schema_name(project);
    let tx = client.transaction().await.map_err(db)?;
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])
        .await
        .map_err(db)?;
    tx.batch_execute(&format!(
        "CREATE TABLE IF NOT EXISTS public.wit_projects (
             project TEXT PRIMARY KEY, schema_name TEXT NOT NULL UNIQUE);
         CREATE SCHEMA IF NOT EXISTS {schema};
         CREATE TABLE IF NOT EXISTS {schema}.schema_version (version INTEGER NOT NULL);
         SET LOCAL search_path = {schema};"
    ))
    .await
    .map_err(db)?;
    tx.execute(
        "INSERT INTO public.wit_projects (project, schema_name) VALUES ($1, $2)
         ON CONFLICT (project) DO NOTHING",
        &[&project, &schema],
    )
    .await
    .map_err(db)?;
    let version: i32 = match tx
        .query_opt("SELECT version FROM schema_version", &[])
        .await
        .map_err(db)?
    {
        Some(row) => row.get(0),
        None => {
            tx.execute("INSERT INTO schema_version (version) VALUES (0)", &[])
                .await
                .map_err(db)?;
            0
        }
    };
    if version > CURRENT_VERSION {
        return Err(format!(
            "the store's schema for this project is version {version}, newer than this wit \
             ({CURRENT_VERSION}); upgrade wit"
        ));
    }
    for sql in MIGRATIONS.iter().skip(version as usize) {
        tx.batch_execute(sql).await.map_err(db)?;
    }
    tx.execute(
        "UPDATE schema_version SET version = $1",
        &[&CURRENT_VERSION],
    )
    .await
    .map_err(db)?;
    tx.commit().await.map_err(db)?;
    Ok(CURRENT_VERSION)
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn connect(conninfo: &str) -> tokio_postgres::Client {
        let (client, conn) = tokio_postgres::connect(conninfo, tokio_postgres::NoTls)
            .await
            .expect("connect to the test cluster");
        tokio::spawn(conn);
        client
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn migrations_create_one_schema_per_project_once_even_when_daemons_race() {
        let cluster = wit_testkit::postgres::Cluster::start();
        cluster.create_db("wit");
        let conninfo = cluster.conninfo("wit");
        // Four daemons of one project and one of another start at once.
        let mut tasks = Vec::new();
        for project in [
            "github.com/acme/api",
            "github.com/acme/api",
            "github.com/acme/api",
            "github.com/acme/api",
            "github.com/acme/web",
        ] {
            let conninfo = conninfo.clone();
            tasks.push(tokio::spawn(async move {
                let mut client = connect(&conninfo).await;
                migrate(&mut client, project).await
            }));
        }
        for t in tasks {
            assert_eq!(t.await.unwrap(), Ok(CURRENT_VERSION));
        }
        let client = connect(&conninfo).await;
        let projects: i64 = client
            .query_one("SELECT COUNT(*) FROM public.wit_projects", &[])
            .await
            .unwrap()
            .get(0);
        assert_eq!(projects, 2);
        let api = crate::store::target::schema_name("github.com/acme/api");
        let tables: i64 = client
            .query_one(
                "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = $1",
                &[&api],
            )
            .await
            .unwrap()
            .get(0);
        assert_eq!(tables, 18, "17 state tables and schema_version");
        // A schema from a newer wit is refused, not downgraded.
        client
            .execute(
                &format!("UPDATE {api}.schema_version SET version = 99"),
                &[],
            )
            .await
            .unwrap();
        let mut again = connect(&conninfo).await;
        let refused = migrate(&mut again, "github.com/acme/api")
            .await
            .unwrap_err();
        assert!(refused.contains("newer than this wit"), "{refused}");
    }
}
