//! Claims over real analyses of real sources (the built-in analyzers).

use super::claims::*;
use super::*;

fn analyse(path: &str, source: &str) -> wit_core::Analysis {
    let registry = wit_analyzers::builtin_registry();
    registry
        .for_path(path)
        .expect("supported")
        .analyze_full(source)
        .expect("analyses")
}

const FILE: &str = "src/pricing.ts";
const HEAD: &str = "export function price(n: number): number {\n  return n * 2;\n}\n\nexport function tax(n: number): number {\n  return n / 10;\n}\n";

/// Observes `now` against `HEAD` as `session`'s edit (or `Nobody` when `None`).
fn observe(now: Option<&str>, claims: &[Claim], actor: Actor<'_>, at: i64) -> Attribution {
    observe_against(HEAD, now, claims, actor, at)
}

fn observe_against(
    head: &str,
    now: Option<&str>,
    claims: &[Claim],
    actor: Actor<'_>,
    at: i64,
) -> Attribution {
    let ha = analyse(FILE, head);
    let na = now.map(|s| analyse(FILE, s));
    let seen = Observed {
        file: FILE,
        head: Some(Version {
            source: head,
            analysis: &ha,
        }),
        now: now
            .zip(na.as_ref())
            .map(|(source, analysis)| Version { source, analysis }),
    };
    attribute(&seen, claims, actor, at)
}

fn edit(session: &str) -> Actor<'_> {
    Actor::Edit {
        session,
        adopt_since: None,
        untouched: None,
    }
}

/// The claims after applying `a` to `claims`.
fn apply(claims: &[Claim], a: &Attribution) -> Vec<Claim> {
    let mut out: Vec<Claim> = claims
        .iter()
        .filter(|c| {
            !a.cleared
                .iter()
                .any(|x| x.key() == c.key() && x.session == c.session)
        })
        .filter(|c| {
            !a.upserts
                .iter()
                .any(|x| x.key() == c.key() && x.session == c.session)
        })
        .cloned()
        .collect();
    out.extend(a.upserts.iter().cloned());
    out
}

fn names(claims: &[Claim]) -> Vec<String> {
    let mut v: Vec<String> = claims
        .iter()
        .map(|c| {
            format!(
                "{} {} {}",
                session_label(&c.session),
                c.change.change.as_str(),
                c.symbol_path()
            )
        })
        .collect();
    v.sort();
    v
}

fn check_edit(current: &str, edited: Option<&str>, claims: &[Claim], me: &str) -> Vec<Hit> {
    let ca = analyse(FILE, current);
    let ea = edited.map(|s| analyse(FILE, s));
    let t = touches(
        Some(Version {
            source: current,
            analysis: &ca,
        }),
        edited
            .zip(ea.as_ref())
            .map(|(source, analysis)| Version { source, analysis }),
    );
    check(&t, claims, me)
}

#[test]
fn each_session_claims_the_definitions_its_edits_changed_and_a_revert_ends_the_claim() {
    let a_edit = HEAD.replace("n * 2", "n * 3");
    let got = observe(Some(&a_edit), &[], edit("agent-a"), 10);
    assert_eq!(names(&got.upserts), ["agent-a body src/pricing.ts:price"]);
    let claims = apply(&[], &got);
    assert!(
        claims[0].diff.contains("-  return n * 2;"),
        "{}",
        claims[0].diff
    );
    assert!(
        claims[0].diff.contains("+  return n * 3;"),
        "{}",
        claims[0].diff
    );
    // B edits another definition of the same file: B's claim; A's stays as it was.
    let b_edit = a_edit.replace("n / 10", "n / 5");
    let got = observe(Some(&b_edit), &claims, edit("agent-b"), 20);
    assert_eq!(names(&got.upserts), ["agent-b body src/pricing.ts:tax"]);
    assert!(got.cleared.is_empty());
    let claims = apply(&claims, &got);
    // A reverts its change: its claim ends, B's stays.
    let reverted = b_edit.replace("n * 3", "n * 2");
    let got = observe(Some(&reverted), &claims, edit("agent-a"), 30);
    assert_eq!(names(&got.cleared), ["agent-a body src/pricing.ts:price"]);
    assert!(got.upserts.is_empty());
    // The same version observed again (the watcher after the hook): nothing new.
    let claims = apply(&claims, &got);
    let again = observe(Some(&reverted), &claims, edit(""), 40);
    assert_eq!(again, Attribution::default());
}

#[test]
fn a_later_edit_by_another_session_adds_its_claim_and_keeps_the_first() {
    let a_edit = HEAD.replace("n * 2", "n * 3");
    let claims = apply(&[], &observe(Some(&a_edit), &[], edit("agent-a"), 10));
    let b_edit = a_edit.replace("n * 3", "n * 4");
    let got = observe(Some(&b_edit), &claims, edit("agent-b"), 20);
    let claims = apply(&claims, &got);
    assert_eq!(
        names(&claims),
        [
            "agent-a body src/pricing.ts:price",
            "agent-b body src/pricing.ts:price"
        ]
    );
    // B's claim remembers the version it found (A's), A's the version at HEAD.
    let a = claims.iter().find(|c| c.by("agent-a")).unwrap();
    let b = claims.iter().find(|c| c.by("agent-b")).unwrap();
    assert_eq!(b.prior, [a.version().to_owned()]);
    assert_ne!(a.prior, b.prior);
    // Two sessions' claims on one definition: a same-symbol collision between them.
    let by = changes_by_session(&claims);
    let found = forecast(
        Checkout::session("/r", "agent-a", &by["agent-a"]),
        Checkout::session("/r", "agent-b", &by["agent-b"]),
        &mut |_| TextVerdict::Unknown,
    );
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].kind, Kind::SameSymbol);
    assert_eq!(found[0].sides[0].session.as_deref(), Some("agent-a"));
    assert!(
        found[0]
            .summary
            .contains("changed by two sessions of this checkout (agent-a: body; agent-b: body)"),
        "{}",
        found[0].summary
    );
}

#[test]
fn a_stale_whole_file_write_undoes_another_sessions_change_and_is_a_hit_that_undoes() {
    let a_edit = HEAD.replace("n * 2", "n * 3");
    let claims = apply(&[], &observe(Some(&a_edit), &[], edit("agent-a"), 10));
    // B read the file before A's edit, changed tax, and writes the whole file back.
    let stale = HEAD.replace("n / 10", "n / 5");
    let hits = check_edit(&a_edit, Some(&stale), &claims, "agent-b");
    assert_eq!(hits.len(), 1);
    assert!(hits[0].undoes);
    assert_eq!(hits[0].claim.symbol_path(), "src/pricing.ts:price");
    // The same write by A itself: its own claim, no hit.
    assert!(check_edit(&a_edit, Some(&stale), &claims, "agent-a").is_empty());
    // B changing price further (from A's version): a hit that does not undo anything.
    let further = a_edit.replace("n * 3", "n * 4");
    let hits = check_edit(&a_edit, Some(&further), &claims, "agent-b");
    assert_eq!(hits.len(), 1);
    assert!(!hits[0].undoes);
    // B editing tax only: no hit, though A changed the same file.
    let other = a_edit.replace("n / 10", "n / 5");
    assert!(check_edit(&a_edit, Some(&other), &claims, "agent-b").is_empty());
    // Once B changed price itself, its next edit of price is no hit (it saw A's change).
    let claims = apply(
        &claims,
        &observe(Some(&further), &claims, edit("agent-b"), 20),
    );
    let more = further.replace("n * 4", "n * 5");
    assert!(check_edit(&further, Some(&more), &claims, "agent-b").is_empty());
    // …but writing back HEAD's version still undoes A's work.
    let hits = check_edit(&further, Some(HEAD), &claims, "agent-b");
    assert!(
        hits.iter().any(|h| h.undoes && h.claim.by("agent-a")),
        "{hits:?}"
    );
}

/// A definition of two statements, so that two sessions can change it apart.
const TWO: &str = "export function price(n: number): number {\n  const base = n * 2;\n  return base + 1;\n}\n\nexport function tax(n: number): number {\n  return n / 10;\n}\n";

/// Found by claims-eval on flask (`Flask.__init__`, `send_file`, `Flask.test_client`):
/// A changes one line of a definition, B (warned) another line of it; B's whole-file
/// write from its read made before A's change gives the definition a version it never had
/// (B's line without A's), so no earlier version matched and the lost update went through
/// without a word.
#[test]
fn a_stale_write_dropping_another_sessions_lines_of_a_definition_both_changed_undoes_them() {
    let a_edit = TWO.replace("n * 2", "n * 3");
    let claims = apply(
        &[],
        &observe_against(TWO, Some(&a_edit), &[], edit("agent-a"), 10),
    );
    let both = a_edit.replace("base + 1", "base + 5");
    let claims = apply(
        &claims,
        &observe_against(TWO, Some(&both), &claims, edit("agent-b"), 20),
    );
    assert_eq!(
        names(&claims),
        [
            "agent-a body src/pricing.ts:price",
            "agent-b body src/pricing.ts:price"
        ]
    );
    // B writes the file it read before A's edit, with its own change (and one of tax).
    let stale = TWO
        .replace("base + 1", "base + 5")
        .replace("n / 10", "n / 5");
    let hits = check_edit(&both, Some(&stale), &claims, "agent-b");
    assert_eq!(hits.len(), 1, "{hits:?}");
    assert!(hits[0].undoes && hits[0].claim.by("agent-a"), "{hits:?}");
    // Building on both changes is no hit at all (B changed price last); changing A's line
    // further is a hit, and undoes nothing.
    let further = both.replace("base + 5", "base + 6");
    assert!(check_edit(&both, Some(&further), &claims, "agent-b").is_empty());
    let on_a = both.replace("n * 3", "n * 4");
    let hits = check_edit(&both, Some(&on_a), &claims, "agent-b");
    assert!(hits.iter().all(|h| !h.undoes), "{hits:?}");
    // B putting back its own line (reverting its own change) leaves A's: nothing undone.
    assert!(check_edit(&both, Some(&a_edit), &claims, "agent-b").is_empty());
}

#[test]
fn a_sessions_run_of_edits_is_all_its_own_and_putting_back_any_of_it_undoes_it() {
    let head = "export function price(n: number): number {\n  const base = n * 2;\n  const fee = 1;\n  return base + fee;\n}\n";
    // A changes two lines of price in two edits; nobody edits price between them.
    let first = head.replace("n * 2", "n * 3");
    let claims = apply(
        &[],
        &observe_against(head, Some(&first), &[], edit("agent-a"), 10),
    );
    let second = first.replace("base + fee", "base + fee * 2");
    let claims = apply(
        &claims,
        &observe_against(head, Some(&second), &claims, edit("agent-a"), 20),
    );
    assert!(
        claims[0]
            .own_before
            .as_deref()
            .is_some_and(|t| t.contains("n * 2")),
        "{claims:?}"
    );
    // An edit by B putting back A's first line (its second kept) undoes A's work.
    let back = second.replace("n * 3", "n * 2");
    let hits = check_edit(&second, Some(&back), &claims, "agent-b");
    assert!(hits.iter().any(|h| h.undoes), "{hits:?}");
}

#[test]
fn putting_back_is_told_by_runs_of_lines() {
    let was = "a\nb\nc\nd\n";
    let theirs = "a\nB\nc\nd\n";
    // Now both changes; the edit puts b back and keeps its own d change.
    assert!(puts_back(was, theirs, "a\nB\nc\nD\n", "a\nb\nc\nD\n"));
    // The edit changes B further: building on it.
    assert!(!puts_back(was, theirs, "a\nB\nc\nD\n", "a\nBB\nc\nD\n"));
    // Their line is gone already (changed back by someone): nothing left to undo.
    assert!(!puts_back(was, theirs, "a\nb\nc\nD\n", "a\nb\nc\nd\n"));
    // An insertion of theirs, dropped by the edit.
    assert!(puts_back(
        was,
        "a\nb\nnew\nc\nd\n",
        "a\nb\nnew\nc\nd\n",
        "a\nb\nc\nd\n"
    ));
    // Their new line still in the edit, moved to the end: nothing put back.
    assert!(!puts_back(was, theirs, theirs, "a\nb\nc\nd\nB\n"));
    // Both replaced b, theirs first, the editor's line put beside theirs; the editor's
    // write from its earlier read keeps its own line and drops theirs.
    assert!(puts_back(
        was,
        theirs,
        "a\nB\nMINE\nc\nd\n",
        "a\nMINE\nc\nd\n"
    ));
    // Changing their line (in place) is building on it.
    assert!(!puts_back(
        was,
        theirs,
        "a\nB\nMINE\nc\nd\n",
        "a\nB2\nMINE\nc\nd\n"
    ));
}

/// Found by claims-eval on flask (`SecureCookieSessionInterface.save_session`,
/// `Flask.make_response`): both sessions replaced the same line of a definition, A first,
/// B (warned) keeping A's line and adding its own beside it; B's whole-file write from its
/// read made before A's change keeps B's line and drops A's, and went through without a
/// word (B changed the definition last, and the line's text was neither HEAD's nor A's).
#[test]
fn a_stale_write_dropping_another_sessions_line_on_lines_both_replaced_undoes_it() {
    let a_edit = TWO.replace("  return base + 1;\n", "  return base + 2;\n");
    let claims = apply(
        &[],
        &observe_against(TWO, Some(&a_edit), &[], edit("agent-a"), 10),
    );
    let both = a_edit.replace(
        "  return base + 2;\n",
        "  return base + 2;\n  // and B's note\n",
    );
    let claims = apply(
        &claims,
        &observe_against(TWO, Some(&both), &claims, edit("agent-b"), 20),
    );
    // B's read: HEAD; its own change replaced the same line with its note.
    let stale = TWO.replace("  return base + 1;\n", "  // and B's note\n");
    let hits = check_edit(&both, Some(&stale), &claims, "agent-b");
    assert!(
        hits.iter().any(|h| h.undoes && h.claim.by("agent-a")),
        "{hits:?}"
    );
    // B changing A's line further is still only a hit that undoes nothing.
    let on_a = both.replace("base + 2", "base + 3");
    let hits = check_edit(&both, Some(&on_a), &claims, "agent-b");
    assert!(hits.iter().all(|h| !h.undoes), "{hits:?}");
}

/// Found by claims-eval on express (`exports.flashFormatters.d`): A adds a method to an
/// object, B renames the object; every definition in it changes key, so A's added method
/// looked removed, and removing a definition its session added is undoing it: B's rename
/// was refused, A's method was credited to B.
#[test]
fn renaming_a_definition_around_another_sessions_change_neither_undoes_nor_takes_it() {
    let head = "export class Old {\n  m(): number {\n    return 1;\n  }\n}\n";
    let a_edit = head.replace(
        "  }\n}\n",
        "  }\n\n  n(): number {\n    return 2;\n  }\n}\n",
    );
    let claims = apply(
        &[],
        &observe_against(head, Some(&a_edit), &[], edit("agent-a"), 10),
    );
    assert_eq!(names(&claims), ["agent-a added src/pricing.ts:Old.n"]);
    let renamed = a_edit.replace("class Old", "class New");
    let hits = check_edit(&a_edit, Some(&renamed), &claims, "agent-b");
    assert!(hits.iter().all(|h| !h.undoes), "{hits:?}");
    // B's edit recorded: A's method is still A's, under its new name.
    let got = observe_against(head, Some(&renamed), &claims, edit("agent-b"), 20);
    let claims = apply(&claims, &got);
    let mine: Vec<String> = names(&claims)
        .into_iter()
        .filter(|n| n.starts_with("agent-a"))
        .collect();
    assert_eq!(mine, ["agent-a added src/pricing.ts:New.n"], "{claims:?}");
    // And a stale write from before A's edit still undoes it, under its new name.
    let stale = head.replace("class Old", "class New");
    let hits = check_edit(&renamed, Some(&stale), &claims, "agent-b");
    assert!(
        hits.iter().any(|h| h.undoes && h.claim.by("agent-a")),
        "{hits:?}"
    );
}

#[test]
fn a_write_that_drops_a_definition_another_session_added_undoes_it() {
    let added = format!("{HEAD}\nexport function fresh(): number {{\n  return 1;\n}}\n");
    let claims = apply(&[], &observe(Some(&added), &[], edit("agent-a"), 10));
    assert_eq!(names(&claims), ["agent-a added src/pricing.ts:fresh"]);
    assert_eq!(claims[0].prior, [ABSENT]);
    let stale = HEAD.replace("n / 10", "n / 5");
    let hits = check_edit(&added, Some(&stale), &claims, "agent-b");
    assert_eq!(hits.len(), 1);
    assert!(hits[0].undoes);
    assert_eq!(hits[0].touch.after, ABSENT);
    // Deleting the whole file undoes it too.
    let hits = check_edit(&added, None, &claims, "agent-b");
    assert!(hits.iter().any(|h| h.undoes));
}

#[test]
fn an_unattributed_change_is_adopted_by_the_session_whose_hook_reports_it_soon_after() {
    let a_edit = HEAD.replace("n * 2", "n * 3");
    // The watcher saw the write first.
    let claims = apply(&[], &observe(Some(&a_edit), &[], edit(""), 10));
    assert_eq!(names(&claims), ["unattributed body src/pricing.ts:price"]);
    // A's hook reports it: adopted when the unattributed claim is recent enough.
    let late = observe(
        Some(&a_edit),
        &claims,
        Actor::Edit {
            session: "agent-a",
            adopt_since: Some(11),
            untouched: None,
        },
        12,
    );
    assert_eq!(late, Attribution::default());
    let got = observe(
        Some(&a_edit),
        &claims,
        Actor::Edit {
            session: "agent-a",
            adopt_since: Some(5),
            untouched: None,
        },
        12,
    );
    assert_eq!(
        names(&got.cleared),
        ["unattributed body src/pricing.ts:price"]
    );
    assert_eq!(names(&got.upserts), ["agent-a body src/pricing.ts:price"]);
    assert_eq!(
        got.upserts[0].since, 10,
        "the change started when it was seen"
    );
}

#[test]
fn a_commit_ends_the_claims_it_took_in_and_moves_the_others_against_the_new_head() {
    let both = HEAD.replace("n * 2", "n * 3").replace("n / 10", "n / 5");
    let claims = apply(
        &[],
        &observe(
            Some(&HEAD.replace("n * 2", "n * 3")),
            &[],
            edit("agent-a"),
            10,
        ),
    );
    let claims = apply(&claims, &observe(Some(&both), &claims, edit("agent-b"), 20));
    assert_eq!(claims.len(), 2);
    // A commits price only: HEAD now has it.
    let new_head = HEAD.replace("n * 2", "n * 3");
    let got = observe_against(&new_head, Some(&both), &claims, Actor::Nobody, 30);
    assert_eq!(names(&got.cleared), ["agent-a body src/pricing.ts:price"]);
    assert!(got.upserts.iter().all(|c| c.by("agent-b")));
}

#[test]
fn a_signature_change_against_another_sessions_new_call_is_a_forecast_between_sessions() {
    let sig = HEAD.replace("price(n: number)", "price(n: number, rate: number)");
    let claims_a = apply(&[], &observe(Some(&sig), &[], edit("agent-a"), 10));
    assert_eq!(names(&claims_a), ["agent-a signature src/pricing.ts:price"]);
    // B's claim elsewhere whose code calls price (the daemon fills in resolved calls).
    let mut b = claims_a[0].clone();
    b.session = "agent-b".into();
    b.file = "src/checkout.ts".into();
    b.change = SymbolChange {
        name: "pay".into(),
        key: "pay#function".into(),
        kind: "function".into(),
        change: Change::Added,
        from: None,
        before: None,
        after: Some("()".into()),
        line: 3,
        digest: Some("d".into()),
        calls: vec![CallRef {
            callee: "src/pricing.ts:price".into(),
            line: 4,
        }],
    };
    let mut all = claims_a.clone();
    all.push(b);
    let by = changes_by_session(&all);
    let found = forecast(
        Checkout::session("/r", "agent-a", &by["agent-a"]),
        Checkout::session("/r", "agent-b", &by["agent-b"]),
        &mut |_| TextVerdict::Unknown,
    );
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].kind, Kind::SignatureVsCallers);
    assert_eq!(
        found[0].summary,
        "agent-a changes src/pricing.ts:price (signature (n: number): number → (n: number, \
         rate: number): number) and agent-b's new src/checkout.ts:pay calls it (line 4)"
    );
    assert_eq!(found[0].chain[0].session.as_deref(), Some("agent-b"));
}

#[test]
fn a_short_diff_has_context_a_bound_and_no_headers() {
    assert_eq!(
        short_diff("a\nb\nc\n", "a\nB\nc\n"),
        "a\n-b\n+B\n c".replace("a\n", " a\n")
    );
    assert_eq!(short_diff("same", "same"), "");
    let long_before: String = (0..40).map(|i| format!("line {i}\n")).collect();
    let d = short_diff(&long_before, "");
    assert_eq!(d.lines().count(), 15, "{d}");
    assert!(d.ends_with("… 26 more lines"), "{d}");
}

#[test]
fn an_edit_known_to_touch_one_definition_leaves_an_earlier_unrecorded_change_unattributed() {
    // tax was changed before (no hook reported it); A's checked edit changes price only.
    let both = HEAD.replace("n * 2", "n * 3").replace("n / 10", "n / 5");
    let untouched: std::collections::BTreeSet<String> = ["tax#function".to_owned()].into();
    let got = observe(
        Some(&both),
        &[],
        Actor::Edit {
            session: "agent-a",
            adopt_since: None,
            untouched: Some(&untouched),
        },
        10,
    );
    assert_eq!(
        names(&got.upserts),
        [
            "agent-a body src/pricing.ts:price",
            "unattributed body src/pricing.ts:tax"
        ]
    );
}

#[test]
fn where_an_edit_lands_tells_what_it_touches_as_a_whole_analysis_would() {
    let a = analyse(FILE, HEAD);
    let v = Version {
        source: HEAD,
        analysis: &a,
    };
    let defs = definitions_of(&v);
    let at = |from: &str, to: &str| {
        let start = HEAD.find(from).unwrap();
        let edits = [(start..start + from.len(), to)];
        let quick = touches_at(&v, &defs, &edits);
        let edited = format!("{}{to}{}", &HEAD[..start], &HEAD[start + from.len()..]);
        let ea = analyse(FILE, &edited);
        let full = touches(
            Some(v),
            Some(Version {
                source: &edited,
                analysis: &ea,
            }),
        );
        (quick, full)
    };
    // Inside one function: the same touch and the same text after as a whole analysis.
    let (quick, full) = at("n * 2", "n * 3");
    let quick = quick.unwrap();
    assert_eq!(quick.len(), 1);
    assert_eq!(quick[0].key, full[0].key);
    assert_eq!(quick[0].after, full[0].after);
    // Back to HEAD's text: the digest of HEAD's version (what an undo check compares).
    let changed = HEAD.replace("n * 2", "n * 3");
    let ca = analyse(FILE, &changed);
    let cv = Version {
        source: &changed,
        analysis: &ca,
    };
    let cdefs = definitions_of(&cv);
    let start = changed.find("n * 3").unwrap();
    let back = touches_at(&cv, &cdefs, &[(start..start + 5, "n * 2")]).unwrap();
    assert_eq!(back[0].after, defs["price#function"].digest);
    // A change of indentation inside: a touch, as a whole analysis says.
    let (quick, full) = at("  return n * 2;", "    return n * 2;");
    let quick = quick.unwrap();
    assert_eq!(
        quick.iter().map(|t| &t.after).collect::<Vec<_>>(),
        full.iter().map(|t| &t.after).collect::<Vec<_>>()
    );
    // An edit across the edge between two functions: not told this way.
    let (quick, _) = at("}\n\nexport function tax", "}\nexport function tax");
    assert_eq!(quick, None);
    // Between the two functions (an insertion): not told this way either, since what is
    // put there belongs to whatever the parse makes of it.
    let gap = HEAD.find("\nexport function tax").unwrap();
    assert_eq!(touches_at(&v, &defs, &[(gap..gap, "\n")]), None);
}

/// Found by claims-eval on flask (77d293cf49e5+1b40b3b573f5): lines appended below a
/// blank line at the end of a Python method are the method's; where the edit lands (the
/// class's own text between two methods) took them for a change of the class.
#[test]
fn lines_put_between_two_methods_are_not_taken_for_the_class_by_where_they_land() {
    const PY: &str = "class Flask:\n    config = {'A': 1}\n\n    def teardown(self):\n        \
                      self.send()\n\n    def other(self):\n        pass\n";
    let a = analyse("app.py", PY);
    let v = Version {
        source: PY,
        analysis: &a,
    };
    let defs = definitions_of(&v);
    let added = "        if self.x:\n            self.clear()\n\n";
    let at = PY.find("    def other").unwrap();
    assert_eq!(touches_at(&v, &defs, &[(at..at, added)]), None);
    let edited = format!("{}{added}{}", &PY[..at], &PY[at..]);
    let ea = analyse("app.py", &edited);
    let full = touches(
        Some(v),
        Some(Version {
            source: &edited,
            analysis: &ea,
        }),
    );
    assert_eq!(
        full.iter().map(|t| t.name.as_str()).collect::<Vec<_>>(),
        ["Flask.teardown"]
    );
}
