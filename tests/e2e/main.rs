//! End-to-end tests: the real `wit` binary, a real daemon on a temp repo, real git.
//!
//! Shared helpers live in `support/` (temp repos, the daemon guard, the socket client).

mod support;

mod cli_basics;
mod cli_conflicts;
mod cli_coordination;
mod cli_daemon;
mod cli_daily;
mod cli_graph;
mod cli_init;
mod cli_leases;
mod cli_version_notice;
mod cli_watch;
mod code_layout;
mod daemon_analysis_cache;
mod daemon_contracts;
mod daemon_envelope;
mod daemon_event_stream;
mod daemon_events;
mod daemon_graph;
mod daemon_intents;
mod daemon_leases;
mod daemon_lifecycle;
mod daemon_liveness;
mod daemon_locks;
mod daemon_robustness;
mod daemon_stalls;
mod daemon_symbol_names;
mod daemon_waiting;
mod daemon_watch_budget;
mod forecast_worktrees;
mod guard_edits;
mod hooks_commit;
mod hooks_contract_lifecycle;
mod hooks_security;
mod integrate_agents;
mod languages_builtin;
mod languages_from_toml;
mod mcp_server;
mod migrate_first_impl;
mod plugins_config;
mod plugins_failures;
mod plugins_go;
mod plugins_trust;
mod security_init;
mod security_output;
mod security_socket;
mod security_wit_dir;
mod shared_store;
mod store_backends;
mod worktrees;
