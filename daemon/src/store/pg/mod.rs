//! The PostgreSQL store (issue 13, in progress): schema and migrations. Each project's
//! state lives in a schema of its own (`wit_<hash>`, see [`super::target::schema_name`]),
//! so one database serves many repositories and every statement stays the same as for one
//! repository (`search_path` picks the project).

pub(crate) mod schema;
