//! The pieces of the evaluation that read text: whitespace-normalized comparison, the
//! driver's lines, and the reasons read from them.

use crate::eval::{notes, regions, tokens};

#[test]
fn whitespace_normalized_comparison_ignores_layout_only() {
    assert_eq!(tokens(b"a  b\n\n\tc\n"), tokens(b"a b c"));
    assert_ne!(tokens(b"a b"), tokens(b"ab"));
}

#[test]
fn the_drivers_lines_are_read_by_path() {
    let stderr = "Auto-merging src/a.ts\nwit: src/a.ts: merged definition by definition (git's line merge stopped on it)\nCONFLICT (content): Merge conflict in b.py\nwit: b.py: left to git's line merge: the ours version has a syntax error at line 3\n";
    let n = notes(stderr);
    assert_eq!(n.len(), 2);
    assert!(n["src/a.ts"].starts_with("merged definition by definition"));
    assert!(n["b.py"].contains("syntax error"));
}

#[test]
fn conflicting_regions_are_counted_by_their_opening_markers() {
    let text = b"a\n<<<<<<< HEAD\nb\n=======\nc\n>>>>>>> x\n<<<<<<<< deeper\n<<<<<<< HEAD\n";
    assert_eq!(regions(text), 2);
}
