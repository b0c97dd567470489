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
        end_line: 5,
        digest: Some("d".into()),
        calls: vec![CallRef {
            callee: "src/pricing.ts:price".into(),
            line: 4,
        }],
        members: Vec::new(),
        uses: Vec::new(),
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
    // Between the two functions only (an insertion): nothing touched.
    let gap = HEAD.find("\nexport function tax").unwrap();
    assert_eq!(
        touches_at(&v, &defs, &[(gap..gap, "\n")]).unwrap(),
        Vec::new()
    );
}
