//! Which range is the innermost around a position, for many positions at once.

/// A byte range of a syntax-tree node, carrying a value. Ranges of one tree are either
/// nested or disjoint, never partly overlapping.
#[derive(Debug, Clone, Copy)]
pub(super) struct Span<T> {
    pub(super) start: usize,
    pub(super) end: usize,
    pub(super) value: T,
}

/// For each of `points` (byte offsets, in ascending order), the value of the innermost
/// span containing it, or `None`.
///
/// One sweep with a stack of open spans: O((s + p) + s log s) whatever the nesting, where
/// asking each point separately would be O(s · p).
pub(super) fn innermost<T: Copy>(spans: &mut [Span<T>], points: &[usize]) -> Vec<Option<T>> {
    debug_assert!(points.is_sorted());
    // Outer before inner when two spans start together.
    spans.sort_unstable_by_key(|s| (s.start, std::cmp::Reverse(s.end)));
    let mut open: Vec<Span<T>> = Vec::new();
    let mut next = 0;
    points
        .iter()
        .map(|&at| {
            while next < spans.len() && spans[next].start <= at {
                let span = spans[next];
                while open.last().is_some_and(|s| s.end <= span.start) {
                    open.pop();
                }
                open.push(span);
                next += 1;
            }
            while open.last().is_some_and(|s| s.end <= at) {
                open.pop();
            }
            open.last().map(|s| s.value)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_innermost_span_or_none() {
        let span = |start, end, value| Span { start, end, value };
        // a: 0..100 holds b: 10..50, which holds c: 20..30; d: 60..70 is inside a only.
        let mut spans = vec![
            span(60, 70, 'd'),
            span(20, 30, 'c'),
            span(0, 100, 'a'),
            span(10, 50, 'b'),
        ];
        let got = innermost(&mut spans, &[0, 15, 25, 30, 55, 65, 70, 100, 150]);
        let want = [
            Some('a'),
            Some('b'),
            Some('c'),
            Some('b'),
            Some('a'),
            Some('d'),
            Some('a'),
            None,
            None,
        ];
        assert_eq!(got, want);
    }
}
