//! Edit distance between names, and the nearest names to a misspelt one: the suggestions
//! of quick fixes and inventory hints.

/// Up to `limit` names within a small edit distance of `name`, closest first.
pub fn nearest(name: &str, candidates: &[&str], limit: usize) -> Vec<String> {
    let max = (name.chars().count() / 3).max(2);
    let lower: Vec<char> = name.to_lowercase().chars().collect();
    let (mut other, mut rows) = (Vec::new(), (Vec::new(), Vec::new()));
    let mut scored: Vec<(usize, &str)> = Vec::new();
    for c in candidates {
        let contains = name.len() >= 4 && c.contains(name);
        lowercase_into(c, &mut other);
        // Beyond `max` only a name containing `name` is kept: the distance of the others
        // is not needed past it (most of the ~3,000 operator names stop early).
        let bound = if contains { usize::MAX } else { max };
        let d = distance_within(&lower, &other, bound, &mut rows);
        if d <= max || contains {
            scored.push((d, c));
        }
    }
    scored.sort();
    scored.into_iter().take(limit).map(|(_, c)| c.to_string()).collect()
}

pub fn levenshtein(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    distance_within(&a, &b, usize::MAX, &mut (Vec::new(), Vec::new()))
}

/// `text.to_lowercase()`'s characters, into a reused buffer.
fn lowercase_into(text: &str, out: &mut Vec<char>) {
    out.clear();
    if text.is_ascii() {
        out.extend(text.bytes().map(|b| char::from(b.to_ascii_lowercase())));
    } else {
        out.extend(text.to_lowercase().chars());
    }
}

/// The edit distance of `a` and `b` when it is at most `bound`; otherwise some number
/// above `bound` (the smallest entry of a row never decreases in later rows, so the
/// computation stops once it exceeds the bound). `rows` is scratch space.
fn distance_within(a: &[char], b: &[char], bound: usize, rows: &mut (Vec<usize>, Vec<usize>)) -> usize {
    if a.len().abs_diff(b.len()) > bound {
        return bound.saturating_add(1);
    }
    let (prev, cur) = rows;
    prev.clear();
    prev.extend(0..=b.len());
    cur.clear();
    cur.resize(b.len() + 1, 0);
    for i in 1..=a.len() {
        cur[0] = i;
        let mut smallest = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            cur[j] = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + cost);
            smallest = smallest.min(cur[j]);
        }
        std::mem::swap(prev, cur);
        if smallest > bound {
            return smallest;
        }
    }
    prev[b.len()]
}
