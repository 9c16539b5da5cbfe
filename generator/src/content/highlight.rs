//! Fenced code in Markdown, coloured at build time: syntect reads the code with
//! the grammar of its language and marks each token with classes (`hl-keyword`,
//! `hl-string`), which `styles/_code.css` colours from the site's palette. No
//! script runs in the browser, and no inline style meets the CSP.

use std::sync::OnceLock;

use syntect::html::{ClassStyle, ClassedHTMLGenerator};
use syntect::parsing::SyntaxSet;
use syntect::util::LinesWithEndings;

/// The prefix of every class a token gets, so none meets the site's own.
pub const CLASS_PREFIX: &str = "hl-";

/// The grammars, read once per process (a few milliseconds) and only when a page
/// has fenced code.
fn syntaxes() -> &'static SyntaxSet {
    static SYNTAXES: OnceLock<SyntaxSet> = OnceLock::new();
    SYNTAXES.get_or_init(SyntaxSet::load_defaults_newlines)
}

/// The language a fence names: its first word (```` ```rust,ignore ```` is `rust`).
pub fn language(info: &str) -> &str {
    info.split(|c: char| c.is_whitespace() || c == ',' || c == '{')
        .next()
        .unwrap_or("")
}

/// The block as highlighted HTML, or `None` for a language without a grammar,
/// which is then shown as plain text.
pub fn code_block(info: &str, code: &str) -> Option<String> {
    let token = language(info);
    if token.is_empty() {
        return None;
    }
    let set = syntaxes();
    let syntax = set
        .find_syntax_by_token(token)
        .or_else(|| set.find_syntax_by_extension(&token.to_ascii_lowercase()))?;
    let mut html = ClassedHTMLGenerator::new_with_class_style(
        syntax,
        set,
        ClassStyle::SpacedPrefixed {
            prefix: CLASS_PREFIX,
        },
    );
    for line in LinesWithEndings::from(code) {
        html.parse_html_for_line_which_includes_newline(line).ok()?;
    }
    let lang = escape(token);
    Some(format!(
        "<pre class=\"code\" data-lang=\"{lang}\"><code class=\"language-{lang}\">{}</code></pre>\n",
        html.finalize()
    ))
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_tokens_with_classes() {
        let html = code_block("rust", "fn main() { let x = \"hi\"; }\n").unwrap();
        assert!(
            html.starts_with("<pre class=\"code\" data-lang=\"rust\">"),
            "{html}"
        );
        assert!(
            html.contains("class=\"hl-storage hl-type hl-function"),
            "{html}"
        );
        assert!(html.contains("hl-string"), "{html}");
        assert!(!html.contains("style="), "{html}");
    }

    #[test]
    fn an_unknown_language_is_left_plain() {
        assert!(code_block("klingon", "qapla'\n").is_none());
        assert!(code_block("", "text\n").is_none());
    }

    #[test]
    fn reads_the_first_word_of_the_fence() {
        assert_eq!(language("rust,ignore"), "rust");
        assert_eq!(language("python {linenos=true}"), "python");
        assert!(code_block("PY", "x = 1\n").is_some());
    }

    #[test]
    fn code_is_escaped() {
        let html = code_block("html", "<script>alert(1)</script>\n").unwrap();
        assert!(!html.contains("<script>"), "{html}");
    }
}
