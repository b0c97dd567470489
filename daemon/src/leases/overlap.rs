//! Whether two lease patterns can name a common path: each pattern becomes a small
//! nondeterministic automaton over characters, and the two overlap exactly when their
//! product reaches a state accepting in both — the intersection of the two languages is
//! not empty. The question and the answer are symmetric by construction (the product of
//! A and B is the product of B and A, mirrored), and a property test checks it together
//! with agreement with `globset` on concrete paths.

use std::collections::HashSet;

use super::pattern::{Pattern, Token};

/// What one transition reads.
#[derive(Debug, Clone)]
enum Label {
    Char(char),
    /// Any character but `/`.
    NotSlash,
    /// Any character.
    Any,
    /// A bracket: in (or not in) the ranges, never `/`.
    Class {
        ranges: Vec<(char, char)>,
        negated: bool,
    },
}

impl Label {
    fn contains(&self, c: char) -> bool {
        match self {
            Label::Char(x) => *x == c,
            Label::NotSlash => c != '/',
            Label::Any => true,
            Label::Class { ranges, negated } => {
                c != '/' && (ranges.iter().any(|&(lo, hi)| lo <= c && c <= hi) != *negated)
            }
        }
    }

    /// Characters among which the smallest common one lies, if there is one: the
    /// smallest member of an intersection of unions of ranges is the start of the
    /// alphabet, a range's low end, or one past an excluded range's high end.
    fn boundaries(&self, out: &mut Vec<char>) {
        match self {
            Label::Char(c) => out.push(*c),
            Label::NotSlash | Label::Any => {}
            Label::Class { ranges, .. } => {
                for &(lo, hi) in ranges {
                    out.push(lo);
                    if let Some(next) = char::from_u32(hi as u32 + 1) {
                        out.push(next);
                    }
                }
            }
        }
    }

    fn intersects(&self, other: &Label) -> bool {
        // Past '/' (excluded by NotSlash and brackets) and past the surrogate gap.
        let mut candidates = vec!['\0', '0', '\u{e000}'];
        self.boundaries(&mut candidates);
        other.boundaries(&mut candidates);
        candidates
            .into_iter()
            .any(|c| self.contains(c) && other.contains(c))
    }
}

/// An automaton: `edges[s]` are the labelled moves out of state `s`, `empty[s]` the
/// moves that read nothing; state 0 starts, `accepting` ends.
#[derive(Debug, Default)]
struct Automaton {
    edges: Vec<Vec<(Label, usize)>>,
    empty: Vec<Vec<usize>>,
    accepting: HashSet<usize>,
}

impl Automaton {
    fn state(&mut self) -> usize {
        self.edges.push(Vec::new());
        self.empty.push(Vec::new());
        self.edges.len() - 1
    }

    /// The union of the pattern's alternatives.
    fn of(pattern: &Pattern) -> Automaton {
        let mut a = Automaton::default();
        let start = a.state();
        for alternative in &pattern.alternatives {
            let mut at = a.state();
            a.empty[start].push(at);
            for token in alternative {
                at = a.token(at, token);
            }
            a.accepting.insert(at);
        }
        a
    }

    /// Appends `token` after state `at`; returns the state after it.
    fn token(&mut self, at: usize, token: &Token) -> usize {
        let next = self.state();
        match token {
            Token::Char(c) => self.edges[at].push((Label::Char(*c), next)),
            Token::One => self.edges[at].push((Label::NotSlash, next)),
            Token::Class { ranges, negated } => self.edges[at].push((
                Label::Class {
                    ranges: ranges.clone(),
                    negated: *negated,
                },
                next,
            )),
            Token::Star => {
                self.edges[at].push((Label::NotSlash, at));
                self.empty[at].push(next);
            }
            Token::AnyRun => {
                self.edges[at].push((Label::Any, at));
                self.empty[at].push(next);
            }
            Token::Segments => {
                // Nothing, or a run of anything that ends in `/`.
                self.empty[at].push(next);
                let run = self.state();
                self.empty[at].push(run);
                self.edges[run].push((Label::Any, run));
                self.edges[run].push((Label::Char('/'), next));
            }
        }
        next
    }

    fn closure(&self, state: usize, out: &mut Vec<usize>) {
        let mut stack = vec![state];
        while let Some(s) = stack.pop() {
            if !out.contains(&s) {
                out.push(s);
                stack.extend(self.empty[s].iter().copied());
            }
        }
    }
}

/// Whether some path is named by both `a` and `b`.
pub(crate) fn overlap(a: &Pattern, b: &Pattern) -> bool {
    let (x, y) = (Automaton::of(a), Automaton::of(b));
    let mut seen: HashSet<(usize, usize)> = HashSet::new();
    let mut todo = vec![(0usize, 0usize)];
    while let Some((s, t)) = todo.pop() {
        if !seen.insert((s, t)) {
            continue;
        }
        let (mut xs, mut ys) = (Vec::new(), Vec::new());
        x.closure(s, &mut xs);
        y.closure(t, &mut ys);
        if xs.iter().any(|s| x.accepting.contains(s)) && ys.iter().any(|t| y.accepting.contains(t))
        {
            return true;
        }
        for &s in &xs {
            for (label_x, next_x) in &x.edges[s] {
                for &t in &ys {
                    for (label_y, next_y) in &y.edges[t] {
                        if label_x.intersects(label_y) {
                            todo.push((*next_x, *next_y));
                        }
                    }
                }
            }
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn p(s: &str) -> Pattern {
        Pattern::parse(s).unwrap_or_else(|e| panic!("{s:?}: {e}"))
    }

    #[test]
    fn the_overlaps_users_meet() {
        for (a, b, expected) in [
            ("src/**", "src/auth/token.ts", true),
            ("src/auth/", "src/**/*.ts", true),
            ("src/*.ts", "src/auth/*.ts", false),
            ("src/*.ts", "src/**/*.ts", true),
            ("src/auth/**", "src/db/**", false),
            ("**/*.py", "src/**/*.ts", false),
            ("**/*.py", "tests/x.py", true),
            ("src/[a-c]*.ts", "src/d*.ts", false),
            ("src/[!a]*.ts", "src/a*.ts", false),
            ("src/[!a]*.ts", "src/*b.ts", true),
            ("src/[!a].ts", "src/a.ts", false),
            ("src/{auth,db}/", "src/db/query.ts", true),
            ("src/{auth,db}/", "src/api/query.ts", false),
            ("a/**/b", "a/b", true),
            ("a/**/b", "a/x/y/b", true),
            ("a/?", "a/bc", false),
            ("**", "anything/at/all", true),
        ] {
            assert_eq!(overlap(&p(a), &p(b)), expected, "{a} vs {b}");
            assert_eq!(overlap(&p(b), &p(a)), expected, "{b} vs {a}");
        }
    }

    /// Pattern segments over a small alphabet, so that random pairs often share paths.
    fn pattern() -> impl Strategy<Value = String> {
        let atom = prop::sample::select(vec![
            "a", "b", "ab", "*", "?", "a*", "*b", "[ab]", "[!a]", "{a,b}", "{a,ab}", "?*",
        ]);
        let segment = prop_oneof![
            4 => prop::collection::vec(atom, 1..3)
                .prop_map(|v| v.concat())
                .prop_filter("'**' only as a whole segment", |s| !s.contains("**")),
            1 => Just("**".to_owned()),
        ];
        prop::collection::vec(segment, 1..4).prop_map(|v| v.join("/"))
    }

    fn path() -> impl Strategy<Value = String> {
        let segment = prop::sample::select(vec!["a", "b", "ab", "ba", "aa", "c", "abc"]);
        prop::collection::vec(segment, 1..5).prop_map(|v| v.join("/"))
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

        /// If A conflicts with B then B conflicts with A.
        #[test]
        fn overlap_is_symmetric(a in pattern(), b in pattern()) {
            let (a, b) = (p(&a), p(&b));
            prop_assert_eq!(overlap(&a, &b), overlap(&b, &a));
        }

        /// The automaton and globset agree on every concrete path: a file is under a
        /// pattern exactly when the pattern overlaps that file's own (literal) pattern.
        #[test]
        fn the_automaton_agrees_with_globset(a in pattern(), file in path()) {
            let a = p(&a);
            prop_assert_eq!(a.matches(&file), overlap(&a, &p(&file)), "{} vs {}", a.text, file);
        }

        /// No missed conflict: a path both patterns name makes them overlap.
        #[test]
        fn a_shared_path_is_always_an_overlap(
            a in pattern(),
            b in pattern(),
            files in prop::collection::vec(path(), 1..20),
        ) {
            let (a, b) = (p(&a), p(&b));
            if files.iter().any(|f| a.matches(f) && b.matches(f)) {
                prop_assert!(overlap(&a, &b), "{} vs {}", a.text, b.text);
            }
        }
    }
}
