//! Small pieces of HTML that stages on either side of the render need: text for
//! an attribute (the templates' helpers, the editor's page), a tag put first
//! into a page's head (the host's policies, on pages and on redirect pages), and
//! [`Html`], a page's body made in pieces.

use std::fmt;
use std::sync::Arc;

/// How large a piece of [`Html`] grows before the next one starts.
const PIECE: usize = 1 << 20;

/// HTML made in pieces of at most about a megabyte (a page's body from
/// Markdown): a body of tens of megabytes is never grown by doubling nor copied
/// whole, and a clone shares it.
#[derive(Clone, Default)]
pub struct Html(Arc<[Box<str>]>);

impl Html {
    pub fn len(&self) -> usize {
        self.0.iter().map(|p| p.len()).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.0.iter().all(|p| p.is_empty())
    }

    /// Its pieces, in order.
    pub fn pieces(&self) -> impl Iterator<Item = &str> {
        self.0.iter().map(|p| &**p)
    }
}

impl From<String> for Html {
    fn from(text: String) -> Html {
        let mut w = HtmlWriter::default();
        w.push_str(&text);
        w.finish()
    }
}

impl From<&str> for Html {
    fn from(text: &str) -> Html {
        let mut w = HtmlWriter::default();
        w.push_str(text);
        w.finish()
    }
}

impl fmt::Display for Html {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.pieces().try_for_each(|p| f.write_str(p))
    }
}

impl fmt::Debug for Html {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Html({} bytes)", self.len())
    }
}

impl PartialEq for Html {
    fn eq(&self, other: &Html) -> bool {
        self.len() == other.len()
            && self
                .pieces()
                .flat_map(str::bytes)
                .eq(other.pieces().flat_map(str::bytes))
    }
}

impl Eq for Html {}

impl serde::Serialize for Html {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// Makes an [`Html`] as it is written.
#[derive(Default)]
pub struct HtmlWriter {
    done: Vec<Box<str>>,
    current: String,
}

impl HtmlWriter {
    pub fn push_str(&mut self, text: &str) {
        if !self.current.is_empty() && self.current.len() + text.len() > PIECE {
            let full = std::mem::take(&mut self.current);
            self.done.push(full.into_boxed_str());
        }
        self.current.push_str(text);
    }

    pub fn finish(mut self) -> Html {
        if !self.current.is_empty() || self.done.is_empty() {
            self.done.push(self.current.into_boxed_str());
        }
        Html(Arc::from(self.done))
    }
}

impl fmt::Write for HtmlWriter {
    fn write_str(&mut self, text: &str) -> fmt::Result {
        self.push_str(text);
        Ok(())
    }
}

/// Text for a double-quoted attribute.
pub fn escape_attribute(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('"', "&quot;")
        .replace('<', "&lt;")
}

/// `html` with `extra` placed first in its `<head>`, right after `<meta charset>`
/// when the page has one (a policy must come before what it governs).
pub fn insert_in_head(html: &str, extra: &str) -> String {
    let at = head_insertion(html);
    let mut out = String::with_capacity(html.len() + extra.len());
    out.push_str(&html[..at]);
    out.push_str(extra);
    out.push_str(&html[at..]);
    out
}

/// Where [`insert_in_head`] places its text, found without copying the page:
/// a page's head is at its start, and a long page's body is never read.
fn head_insertion(html: &str) -> usize {
    let Some(head) = find_ignoring_case(html, 0, "<head") else {
        return 0;
    };
    let head_end = html[head..].find('>').map_or(head, |i| head + i + 1);
    let head_close = find_ignoring_case(html, head_end, "</head").unwrap_or(html.len());
    find_ignoring_case(&html[..head_close], head_end, "<meta charset")
        .and_then(|i| html[i..].find('>').map(|j| i + j + 1))
        .unwrap_or(head_end)
}

/// The first `needle` (ASCII, lower case) in `html` from `from` on, in any case.
fn find_ignoring_case(html: &str, from: usize, needle: &str) -> Option<usize> {
    let needle = needle.as_bytes();
    html.as_bytes()
        .get(from..)?
        .windows(needle.len())
        .position(|w| w.eq_ignore_ascii_case(needle))
        .map(|i| from + i)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn html_in_pieces_reads_as_one_text() {
        let big = "x".repeat(PIECE - 3);
        let mut w = HtmlWriter::default();
        w.push_str("<p>");
        w.push_str(&big);
        w.push_str("</p>");
        let html = w.finish();
        assert_eq!(html.pieces().count(), 2);
        assert_eq!(html.to_string(), format!("<p>{big}</p>"));
        assert_eq!(html, Html::from(format!("<p>{big}</p>").as_str()));
        assert!(Html::from("").is_empty() && Html::default().is_empty());
    }

    #[test]
    fn attribute_text_cannot_close_its_quotes_or_open_a_tag() {
        assert_eq!(
            escape_attribute(r#"a&b "c" <d>"#),
            "a&amp;b &quot;c&quot; &lt;d>"
        );
    }

    #[test]
    fn head_extras_go_right_after_the_charset() {
        let page =
            "<!doctype html><html><head>\n<meta charset=\"utf-8\">\n<title>T</title></head></html>";
        assert_eq!(
            insert_in_head(page, "<meta name=x>"),
            "<!doctype html><html><head>\n<meta charset=\"utf-8\"><meta name=x>\n<title>T</title></head></html>"
        );
        assert_eq!(
            insert_in_head("<html><head><title>T</title></head>", "<X>"),
            "<html><head><X><title>T</title></head>"
        );
        // In any case; a charset in the body is not the head's.
        assert_eq!(
            insert_in_head("<HEAD><TITLE>T</TITLE></HEAD><p><meta charset=x>", "<X>"),
            "<HEAD><X><TITLE>T</TITLE></HEAD><p><meta charset=x>"
        );
    }
}
