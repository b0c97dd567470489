//! A real repository's history as the evaluations replay it: its git commands
//! ([`git`]), the pairs of changes they replay ([`pairs`]), and which definitions a
//! diff's lines fall in ([`lines`]).

pub mod git;
pub mod lines;
pub mod pairs;
