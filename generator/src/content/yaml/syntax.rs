//! YAML's pitfalls in an editor's words. The parser says where it gave up and
//! why in its own terms ("mapping values are not allowed in this context"); the
//! cause is usually one of a few slips, often on the line above: a tab, a line
//! indented too far or not lined up, a `: ` inside unquoted text, a quote or
//! bracket left open. [`explain`] looks for them around the parser's position.
//!
//! [`cut_by_comments`] finds the quieter slip: unquoted text that a ` #` cut
//! short, because YAML reads the rest of the line as a comment.

use super::{child_path, index_path, Error, Kind, Node, Span};
use crate::lines::LineStarts;

/// The error for a document the parser refused, at the line to fix.
pub fn explain(source: &str, at: Option<Span>, parser: &str) -> Error {
    let lines: Vec<&str> = source.lines().collect();
    let line_no = at.map_or(lines.len().max(1), |s| s.line.max(1));
    let error = |line: usize, column: usize, message: String| {
        let start = Span::line_start(source, line);
        // Columns count characters; the offset is in bytes.
        let in_line = lines
            .get(line.saturating_sub(1))
            .and_then(|text| text.char_indices().nth(column.saturating_sub(1)))
            .map_or(0, |(byte, _)| byte);
        Error::at(
            Span {
                offset: start.offset + in_line,
                len: 1,
                line,
                column,
            },
            "",
            message,
        )
    };

    // The parser reports a tab that starts a line at the end of the line above.
    let searched = if parser.contains("tab") {
        line_no + 1
    } else {
        line_no
    };
    if let Some((line, column)) = first_tab_indent(&lines, searched) {
        return error(
            line,
            column,
            "this line is indented with a tab; YAML indents with spaces only: replace the tab with spaces".into(),
        );
    }
    if parser.contains("duplicate key") || parser.contains("duplicate mapping key") {
        let key = parser
            .split('`')
            .nth(1)
            .or_else(|| {
                parser
                    .split_once("duplicate mapping key: ")
                    .map(|(_, rest)| rest.split(',').next().unwrap_or(rest))
            })
            .unwrap_or("a key");
        return located(
            at,
            format!("`{key}` appears twice in the same mapping; keep one of them"),
        );
    }
    if parser.contains("unclosed quote")
        || parser.contains("while scanning a quoted scalar")
        || parser.contains("quoted scalar")
    {
        let (line, column) = at.map_or((line_no, 1), |s| (s.line, s.column));
        // A quoted text may run over lines, so the parser stops far below the
        // quote that was left open: point at that quote.
        let (line, column) = opening_quote(&lines, line).unwrap_or((line, column));
        let quote = lines
            .get(line - 1)
            .and_then(|l| l.chars().nth(column - 1))
            .filter(|c| *c == '"' || *c == '\'')
            .unwrap_or('"');
        return error(
            line,
            column,
            format!(
                "this quote is never closed: end the text with {quote} on the same line, or remove the opening {quote}"
            ),
        );
    }
    if let Some(offset) = at.map(|s| s.offset) {
        let flow = parser.contains("flow") || parser.contains("expected ',' or");
        if let Some((line, column, open)) = unclosed_bracket(source, offset).filter(|_| {
            flow || parser.contains("illegal placement") || parser.contains("mapping values")
        }) {
            let (close, what, example) = if open == '[' {
                (']', "a list", "[a, b]")
            } else {
                ('}', "a mapping", "{ src: /a.svg, alt: A }")
            };
            return error(
                line,
                column,
                format!(
                    "this `{open}` is never closed: {what} written in brackets ends with `{close}` on the same line, as in `{example}`"
                ),
            );
        }
    }
    let current = lines.get(line_no - 1).copied().unwrap_or("");
    let column = at.map_or(1, |s| s.column);
    if parser.contains("mapping values are not allowed") {
        if let Some(message) = colon_in_text(current, column) {
            return error(line_no, column, message);
        }
        if let Some((above_no, above)) = content_line_above(&lines, line_no) {
            let (own, theirs) = (indent(current), indent(above));
            if own > theirs && has_scalar_value(above) {
                let key = key_of(above).unwrap_or("the line above");
                let how_far = if own == theirs + 1 {
                    "one space too far".to_string()
                } else {
                    format!("{} spaces too far", own - theirs)
                };
                return error(
                    line_no,
                    1,
                    format!(
                        "this line is indented {how_far}: it starts at column {}, but `{key}` on line {above_no} starts at column {}, so YAML reads it as part of `{key}`'s value; line it up with `{key}`",
                        own + 1,
                        theirs + 1
                    ),
                );
            }
            if let Some(message) = missing_space_after_colon(above) {
                return error(above_no, indent(above) + 1, message);
            }
        }
    }
    if parser.contains("did not find expected") || parser.contains("mapping values") {
        if let Some((above_no, above)) = content_line_above(&lines, line_no) {
            let (own, theirs) = (indent(current), item_indent(above));
            if own != theirs && own < indent(above).max(theirs) {
                let key = key_of(above).unwrap_or("the line above");
                return error(
                    line_no,
                    own + 1,
                    format!(
                        "this line is not lined up with the lines above it: it starts at column {}, but `{key}` on line {above_no} starts at column {}; fields of one mapping start in the same column",
                        own + 1,
                        theirs + 1
                    ),
                );
            }
        }
    }
    located(
        at,
        format!(
            "this is not valid YAML ({parser}); check the indentation of this line and the line above, and put text that contains `: ` or ` #` in quotes"
        ),
    )
}

fn located(at: Option<Span>, message: String) -> Error {
    match at {
        Some(span) => Error::at(span, "", message),
        None => Error::whole(message),
    }
}

/// The first tab in the indentation of a line up to `last` (1-based).
fn first_tab_indent(lines: &[&str], last: usize) -> Option<(usize, usize)> {
    lines.iter().take(last).enumerate().find_map(|(i, l)| {
        let lead = l.len() - l.trim_start_matches([' ', '\t', '-']).len();
        l[..lead].find('\t').map(|c| (i + 1, c + 1))
    })
}

/// Where `[` or `{` was opened and not closed before `offset` (quotes and
/// comments skipped).
fn unclosed_bracket(source: &str, offset: usize) -> Option<(usize, usize, char)> {
    let mut open: Vec<(usize, usize, char)> = Vec::new();
    // The parser's offset may fall inside a character.
    let end = source.floor_char_boundary(offset.min(source.len()));
    for (i, line) in source[..end].lines().enumerate() {
        let mut quote: Option<char> = None;
        let mut previous = ' ';
        for (c_i, c) in line.chars().enumerate() {
            match (quote, c) {
                (Some(q), _) if c == q => quote = None,
                (Some(_), _) => {}
                // An apostrophe inside a word opens nothing.
                (None, '"' | '\'') if matches!(previous, ' ' | '[' | '{' | ',') => quote = Some(c),
                (None, '#') if previous == ' ' => break,
                (None, '[' | '{') => open.push((i + 1, c_i + 1, c)),
                (None, ']' | '}') => {
                    open.pop();
                }
                _ => {}
            }
            previous = c;
        }
    }
    open.pop()
}

/// `text: Our motto: build`: a second `: ` after the key's, at the parser's column.
fn colon_in_text(line: &str, column: usize) -> Option<String> {
    let body = line.trim_start().trim_start_matches("- ");
    let (key, value) = body.split_once(": ")?;
    let value = value.trim();
    let quoted = value.starts_with(['"', '\'']);
    let key_end = line.find(&format!("{key}: "))? + key.len();
    if quoted || column <= key_end + 1 || !value.contains(": ") {
        return None;
    }
    let fixed = value.replace('"', "\\\"");
    Some(format!(
        "the text of `{key}` contains `: `, which YAML reads as the start of another field; put the text in quotes: `{key}: \"{fixed}\"`"
    ))
}

/// `title:Welcome` on the line above: without a space after the colon YAML reads
/// one piece of text, and the next line's field has no mapping to belong to.
fn missing_space_after_colon(line: &str) -> Option<String> {
    let body = line.trim_start().trim_start_matches("- ");
    let (key, value) = body.split_once(':')?;
    let plain_key = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '-');
    if !plain_key || value.is_empty() || value.starts_with([' ', '/']) {
        return None;
    }
    Some(format!(
        "a space is missing after `{key}:`, so YAML reads `{body}` as one piece of text; write `{key}: {value}`"
    ))
}

fn content_line_above<'a>(lines: &[&'a str], line_no: usize) -> Option<(usize, &'a str)> {
    (1..line_no).rev().find_map(|n| {
        let l = lines.get(n - 1)?;
        let t = l.trim();
        (!t.is_empty() && !t.starts_with('#')).then_some((n, *l))
    })
}

fn indent(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

/// Where the fields of a line start: after `- ` for a list item.
fn item_indent(line: &str) -> usize {
    let own = indent(line);
    let rest = &line[own..];
    own + (rest.len() - rest.trim_start_matches("- ").len())
}

fn key_of(line: &str) -> Option<&str> {
    let body = line.trim_start().trim_start_matches("- ");
    body.split_once(':')
        .map(|(k, _)| k.trim())
        .filter(|k| !k.is_empty() && !k.contains(' '))
}

/// `heading: Hello`: the key has its value on its own line.
fn has_scalar_value(line: &str) -> bool {
    let body = line.trim_start().trim_start_matches("- ");
    match body.split_once(": ") {
        Some((_, value)) => {
            let v = value.trim();
            !v.is_empty() && !v.starts_with(['|', '>', '#', '&'])
        }
        None => !body.ends_with(':'),
    }
}

/// The last quote before line `until` that starts a value and is not closed on
/// its line, as (line, column).
fn opening_quote(lines: &[&str], until: usize) -> Option<(usize, usize)> {
    (0..until.min(lines.len())).rev().find_map(|i| {
        let line = lines[i];
        let value_start = line.find(": ").map(|p| p + 2).or_else(|| {
            line.trim_start()
                .starts_with("- ")
                .then(|| line.find("- ").map_or(0, |p| p + 2))
        })?;
        let value = &line[value_start..];
        let trimmed = value.trim_start();
        let quote = trimmed.chars().next().filter(|c| *c == '"' || *c == '\'')?;
        let closed = trimmed[1..].contains(quote);
        (!closed).then(|| (i + 1, value_start + (value.len() - trimmed.len()) + 1))
    })
}

/// Warnings for unquoted text followed by ` #` on its line: YAML ended the
/// text there and took the rest for a comment.
pub fn cut_by_comments(source: &str, node: &Node) -> Vec<Error> {
    let mut found = Vec::new();
    // The line table only for a file with a cut to report.
    walk(source, &std::cell::OnceCell::new(), node, "", &mut found);
    found
}

fn walk(
    source: &str,
    lines: &std::cell::OnceCell<LineStarts>,
    node: &Node,
    path: &str,
    found: &mut Vec<Error>,
) {
    match &node.kind {
        Kind::Seq(items) => {
            for (i, item) in items.iter().enumerate() {
                walk(source, lines, item, &index_path(path, i), found);
            }
        }
        Kind::Map(entries) => {
            for (key, value) in entries {
                walk(source, lines, value, &child_path(path, &key.name), found);
            }
        }
        Kind::Str(text) => {
            let start = node.span.offset;
            let plain = source
                .get(start..)
                .and_then(|s| s.chars().next())
                .is_some_and(|c| !matches!(c, '"' | '\'' | '|' | '>'));
            let end = start + node.span.len;
            let Some(rest) = source.get(end..) else {
                return;
            };
            let line_rest = rest.split('\n').next().unwrap_or("");
            let spaces = line_rest.len() - line_rest.trim_start().len();
            if plain && spaces > 0 && line_rest.trim_start().starts_with('#') {
                let at = end + spaces;
                let (line, column) = lines.get_or_init(|| LineStarts::new(source)).locate(at);
                let comment = line_rest.trim();
                found.push(Error::at(
                    Span {
                        offset: at,
                        len: comment.len(),
                        line,
                        column,
                    },
                    path,
                    format!(
                        "this `#` starts a comment, so the text ends at `{text}` and `{comment}` is left out; put the text in quotes if the # belongs to it"
                    ),
                ));
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::super::parse;

    fn explained(source: &str) -> (usize, String) {
        let e = parse(source).unwrap_err();
        (e.span.map_or(0, |s| s.line), e.message)
    }

    #[test]
    fn an_error_after_wide_characters_points_at_its_byte() {
        let source = "title: T\nmeta: { été: «x», b: [a, b\ndescription: D\n";
        let e = parse(source).unwrap_err();
        let span = e.span.unwrap();
        assert!(e.message.contains("is never closed"), "{}", e.message);
        assert_eq!(
            &source[span.offset..span.offset + span.len],
            "[",
            "{}",
            e.message
        );
        assert_eq!((span.line, span.column), (2, 22));
    }

    #[test]
    fn a_line_indented_one_space_too_far() {
        let (line, message) =
            explained("title: T\nblocks:\n  - type: hero\n    heading: H\n     text: x\n");
        assert_eq!(line, 5);
        assert!(message.contains("indented one space too far"), "{message}");
        assert!(message.contains("line it up with `heading`"), "{message}");
    }

    #[test]
    fn a_line_not_lined_up() {
        let (line, message) =
            explained("title: T\nblocks:\n  - type: hero\n    heading: H\n   text: x\n");
        assert_eq!(line, 5);
        assert!(message.contains("not lined up"), "{message}");
    }

    #[test]
    fn a_colon_inside_unquoted_text() {
        let (line, message) = explained("title: T\ntext: Our motto: build\n");
        assert_eq!(line, 2);
        assert!(
            message.contains(r#"`text: "Our motto: build"`"#),
            "{message}"
        );
    }

    #[test]
    fn a_tab() {
        let (line, message) = explained("title: T\nblocks:\n\t- type: hero\n");
        assert_eq!(line, 3);
        assert!(message.contains("tab"), "{message}");
    }

    #[test]
    fn an_unclosed_quote_or_bracket() {
        let (line, message) = explained("title: \"T\ndescription: D\n");
        assert_eq!(line, 1);
        assert!(message.contains("quote is never closed"), "{message}");
        let (line, message) = explained("title: T\nmeta: [a, b\ndescription: D\n");
        assert_eq!(line, 2);
        assert!(message.contains("`[` is never closed"), "{message}");
        let (line, message) = explained("image: { src: /a.svg, alt: A\ndescription: D\n");
        assert_eq!(line, 1);
        assert!(message.contains("`{` is never closed"), "{message}");
    }

    #[test]
    fn a_missing_space_after_a_colon() {
        let (line, message) = explained("title:T\ndescription: D\n");
        assert_eq!(line, 1);
        assert!(message.contains("write `title: T`"), "{message}");
    }

    #[test]
    fn warns_about_text_cut_by_a_comment() {
        let src = "address: 8 Marina View, #32-01 Asia Square\nquoted: \"a #b\"\n# a comment line\nname: A # note\n";
        let node = parse(src).unwrap();
        let warnings = super::cut_by_comments(src, &node);
        assert_eq!(warnings.len(), 2, "{warnings:?}");
        assert_eq!(warnings[0].path, "address");
        assert_eq!(warnings[0].span.map(|s| (s.line, s.column)), Some((1, 25)));
        assert!(warnings[0].message.contains("`8 Marina View,`"));
        assert_eq!(warnings[1].path, "name");
    }
}
