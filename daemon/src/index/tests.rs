//! The index's answers to a question about a file: overlaid or from the graph's copy.

use std::sync::Arc;

use super::*;

const HELD: &str = "export function f() { return g(); }\nexport function g() { return 1; }\n";

/// An index of `src/a.ts` (holding [`HELD`]) whose directory counts as watched.
fn index() -> (tempfile::TempDir, Arc<AnalysisService>, RepoIndex) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::create_dir(root.join("src")).unwrap();
    std::fs::write(root.join("src/a.ts"), HELD).unwrap();
    let analysis = Arc::new(AnalysisService::new(
        root.clone(),
        wit_analyzers::builtin_registry(),
    ));
    let ix = RepoIndex::new(
        root,
        analysis.clone(),
        1 << 20,
        &Default::default(),
        Default::default(),
    );
    assert_eq!(ix.refresh("src/a.ts"), Refresh::Changed);
    ix.watched_lock().insert("src".into());
    (dir, analysis, ix)
}

/// Regression (issue 31, the graph's cost on a large repository): a file the analysis
/// cache had let go and analysed again, unchanged, is the content the index holds. The
/// question is answered from the graph's copy (whose answers the graph remembers), not
/// with the new analysis overlaid, which the graph computes afresh every time: on the
/// 10,000-file repository, where every question came with a new analysis, that was most
/// of what the graph added to a `lock.acquire`.
#[test]
fn an_unchanged_file_analysed_again_is_answered_from_the_graph_not_overlaid() {
    let (_dir, analysis, ix) = index();
    // Another version, then the held one again: a new analysis of the same content.
    let other = HELD.replace("return 1;", "return 12;");
    let FileOutcome::Analysed(first) = analysis.analyse_content("src/a.ts", &other) else {
        panic!("analyses");
    };
    let FileOutcome::Analysed(again) = analysis.analyse_content("src/a.ts", HELD) else {
        panic!("analyses");
    };
    assert!(ix.verify_with("src/a.ts", Some(&again)).is_none());
    // Another content with the same interface is overlaid (the first sight of an edit).
    let overlaid = ix.verify_with("src/a.ts", Some(&first));
    assert!(overlaid.is_some_and(|a| Arc::ptr_eq(&a, &first)));
}

/// Regression (issue 31, no request waits on the index): the build put a batch of 256
/// analyses into the graph under one write lock, 5–10 ms during which a request reading
/// the graph waited. Files go in one at a time: between two of a batch's files the graph
/// is free to read and already holds the earlier ones.
#[test]
fn a_batch_enters_the_graph_one_file_at_a_time_and_the_graph_is_readable_between() {
    let (_dir, analysis, ix) = index();
    let files: Vec<String> = (0..4).map(|i| format!("src/b{i}.ts")).collect();
    let analysed: Vec<Arc<Analysis>> = files
        .iter()
        .map(|rel| {
            let source = format!("export function b() {{ return {}; }}\n", rel.len());
            let FileOutcome::Analysed(a) = analysis.analyse_content(rel, &source) else {
                panic!("analyses");
            };
            a
        })
        .collect();
    let mut seen = 0;
    let batch = files.iter().zip(analysed).enumerate().map(|(i, (rel, a))| {
        // The commit asks for the next file only once the previous one is in.
        let graph = ix
            .graph
            .try_read()
            .expect("the graph is not locked between files");
        assert!(files[..i].iter().all(|f| graph.get(f).is_some()), "{i}");
        assert!(graph.get(rel).is_none());
        // Each file's hash is its graph entry's tag, set with it.
        assert!(
            files[..i]
                .iter()
                .enumerate()
                .all(|(k, f)| graph.tag(f) == Some([k as u8; 32]))
        );
        drop(graph);
        seen = i + 1;
        (rel.clone(), [i as u8; 32], super::Loaded::Analysis(a))
    });
    ix.commit(batch);
    assert_eq!(seen, files.len());
    assert!(files.iter().all(|f| ix.contains(f)));
}

/// Stopping a checkout (`daemon.stop` of one worktree in a process serving others) ends
/// its index thread even when no file ever changes: the watcher waits without a timeout,
/// and `stop` wakes it. (Before, it looked every 2 s; without the wake-up it would now
/// wait forever and this test would time out.)
#[test]
fn stopping_an_idle_index_ends_its_watcher() {
    let (dir, analysis, _) = index();
    let root = dir.path().canonicalize().unwrap();
    let wit = wit_boundary::WitDir::new(&root);
    wit.ensure().unwrap();
    let ix = Arc::new(RepoIndex::new(
        root,
        analysis,
        1 << 20,
        &Default::default(),
        Default::default(),
    ));
    let thread = ix.start(wit, None).expect("the index thread starts");
    // Ready: the build is over, so the thread is in (or entering) the watcher's wait.
    while !ix.ready() {
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    ix.stop();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        thread.join().unwrap();
        let _ = tx.send(());
    });
    assert!(
        rx.recv_timeout(std::time::Duration::from_secs(60)).is_ok(),
        "the index thread did not end after stop"
    );
}
