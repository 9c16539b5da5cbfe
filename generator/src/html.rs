//! Small pieces of HTML that stages on either side of the render need: text for
//! an attribute (the templates' helpers, the editor's page), and a tag put first
//! into a page's head (the host's policies, on pages and on redirect pages).

/// Text for a double-quoted attribute.
pub fn escape_attribute(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('"', "&quot;")
        .replace('<', "&lt;")
}

/// `html` with `extra` placed first in its `<head>`, right after `<meta charset>`
/// when the page has one (a policy must come before what it governs).
pub fn insert_in_head(html: &str, extra: &str) -> String {
    let lower = html.to_ascii_lowercase();
    let Some(head) = lower.find("<head") else {
        return format!("{extra}{html}");
    };
    let head_end = lower[head..].find('>').map_or(head, |i| head + i + 1);
    let head_close = lower[head_end..]
        .find("</head")
        .map_or(lower.len(), |i| head_end + i);
    let at = lower[head_end..head_close]
        .find("<meta charset")
        .and_then(|i| {
            lower[head_end + i..]
                .find('>')
                .map(|j| head_end + i + j + 1)
        })
        .unwrap_or(head_end);
    format!("{}{extra}{}", &html[..at], &html[at..])
}

#[cfg(test)]
mod tests {
    use super::*;

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
    }
}
