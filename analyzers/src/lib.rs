//! Built-in language analyzers. (Under construction.)
