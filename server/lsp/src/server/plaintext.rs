//! Markdown as a person reads it in plain text, for clients whose hover or completion
//! documentation takes plain text only: the markup a reader would see as noise goes
//! (emphasis, code ticks, heading marks, code fences, link targets in brackets), the words,
//! lists, tables and line breaks stay. Only the markdown the server itself writes is
//! handled; anything else passes through as written.

/// `markdown` rendered for a plain-text display.
pub fn from_markdown(markdown: &str) -> String {
    let mut out = Vec::new();
    for line in markdown.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") {
            // A fence: the code between stays, the fence line goes.
            continue;
        }
        if trimmed.chars().all(|c| c == '-') && trimmed.len() >= 3 {
            out.push("────────".to_string());
            continue;
        }
        let line = match trimmed.strip_prefix('#') {
            Some(_) => trimmed.trim_start_matches('#').trim_start(),
            None => line,
        };
        out.push(inline(line));
    }
    out.join("\n")
}

/// One line without inline markup: `**x**`, `*x*`, `_x_` at word edges, `` `x` ``,
/// `[text](target)` (as "text (target)"), backslash escapes.
fn inline(line: &str) -> String {
    let chars: Vec<char> = line.chars().collect();
    let mut out = String::with_capacity(line.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '\\' if i + 1 < chars.len() && chars[i + 1].is_ascii_punctuation() => {
                out.push(chars[i + 1]);
                i += 2;
            }
            '`' => {
                // Code: its text as it is (no markup inside code).
                let run = chars[i..].iter().take_while(|&&x| x == '`').count();
                let close = find_run(&chars, i + run, '`', run);
                match close {
                    Some(end) => {
                        out.extend(&chars[i + run..end]);
                        i = end + run;
                    }
                    None => {
                        out.extend(&chars[i..i + run]);
                        i += run;
                    }
                }
            }
            '*' | '_' => {
                let run = chars[i..].iter().take_while(|&&x| x == c).count();
                let opens = chars.get(i + run).is_some_and(|n| !n.is_whitespace())
                    && (i == 0 || !chars[i - 1].is_alphanumeric());
                let close = opens.then(|| find_run(&chars, i + run, c, run)).flatten();
                match close {
                    Some(end) if end > i + run && !chars[end - 1].is_whitespace() => {
                        out.push_str(&inline(&chars[i + run..end].iter().collect::<String>()));
                        i = end + run;
                    }
                    _ => {
                        out.extend(&chars[i..i + run]);
                        i += run;
                    }
                }
            }
            '[' => match link(&chars, i) {
                Some((text, target, end)) => {
                    out.push_str(&inline(&text));
                    if !target.is_empty() && target != text {
                        out.push_str(&format!(" ({target})"));
                    }
                    i = end;
                }
                None => {
                    out.push('[');
                    i += 1;
                }
            },
            _ => {
                out.push(c);
                i += 1;
            }
        }
    }
    out
}

/// Where the next run of exactly `len` `marker`s starts at or after `from`.
fn find_run(chars: &[char], from: usize, marker: char, len: usize) -> Option<usize> {
    let mut j = from;
    while j < chars.len() {
        if chars[j] == marker {
            let run = chars[j..].iter().take_while(|&&x| x == marker).count();
            if run == len {
                return Some(j);
            }
            j += run;
        } else {
            j += 1;
        }
    }
    None
}

/// `[text](target)` at `start`: its text, target and the index after it.
fn link(chars: &[char], start: usize) -> Option<(String, String, usize)> {
    let close = start + chars[start..].iter().position(|&c| c == ']')?;
    if chars.get(close + 1) != Some(&'(') {
        return None;
    }
    let end = close + 1 + chars[close + 1..].iter().position(|&c| c == ')')?;
    let text: String = chars[start + 1..close].iter().collect();
    let target: String = chars[close + 2..end].iter().collect();
    Some((text, target, end + 1))
}

#[cfg(test)]
mod tests {
    use super::from_markdown;

    #[test]
    fn markup_goes_words_stay() {
        assert_eq!(from_markdown("**`float16`** is *allowed*"), "float16 is allowed");
        assert_eq!(from_markdown("### Counts\n\n- 3 tests"), "Counts\n\n- 3 tests");
        assert_eq!(from_markdown("```python\nx = 1\n```"), "x = 1");
        assert_eq!(from_markdown("see [the docs](https://x.y/z)"), "see the docs (https://x.y/z)");
        assert_eq!(from_markdown("a\n\n---\n\nb"), "a\n\n────────\n\nb");
        assert_eq!(from_markdown("*Counts for torchcts 0.4.1.*"), "Counts for torchcts 0.4.1.");
    }

    #[test]
    fn what_is_not_markup_stays() {
        // Globs, products and snake_case are not emphasis; an unclosed tick is a tick.
        assert_eq!(from_markdown("**/results/*.json"), "**/results/*.json");
        assert_eq!(from_markdown("2 * 3 * 4"), "2 * 3 * 4");
        assert_eq!(from_markdown("semantic_level and max_ulp_diff"), "semantic_level and max_ulp_diff");
        assert_eq!(from_markdown("a ` b"), "a ` b");
        assert_eq!(from_markdown("\\*not emphasis\\*"), "*not emphasis*");
        assert_eq!(from_markdown("| a | b |\n|---|---|"), "| a | b |\n|---|---|");
    }
}
