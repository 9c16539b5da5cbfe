//! Reading SVG files: an icon reduced to its `<svg>` element, and a picture's size.

/// An SVG file reduced to its `<svg>` element on one line, without the size,
/// class or title it came with (the caller sets those). `None` when the file has
/// no `<svg>` element at all.
pub fn clean_svg(text: &str) -> Option<String> {
    let start = text.find("<svg")?;
    let body = &text[start..];
    let tag_end = body.find('>')?;
    let (tag, rest) = body.split_at(tag_end);
    let mut attrs = String::from("<svg");
    for attr in split_attributes(&tag["<svg".len()..]) {
        let name = attr.split('=').next().unwrap_or("");
        if !matches!(name, "class" | "width" | "height" | "role") {
            attrs.push(' ');
            attrs.push_str(attr);
        }
    }
    let rest = strip_element(rest, "title");
    let joined: Vec<&str> = rest
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    Some(format!("{attrs}{}", joined.join("")))
}

/// The size of an SVG from its `width` and `height`, or else its `viewBox`.
pub fn svg_size(text: &str) -> Option<(u32, u32)> {
    let start = text.find("<svg")?;
    let tag = &text[start..start + text[start..].find('>')?];
    let attrs = split_attributes(&tag["<svg".len()..]);
    let attr = |name: &str| -> Option<String> {
        attrs.iter().find_map(|a| {
            let (k, v) = a.split_once('=')?;
            (k == name).then(|| v.trim_matches(['"', '\'']).to_string())
        })
    };
    let number = |v: String| v.trim_end_matches("px").parse::<f32>().ok();
    if let (Some(w), Some(h)) = (
        attr("width").and_then(number),
        attr("height").and_then(number),
    ) {
        return Some((w.round() as u32, h.round() as u32));
    }
    let view_box = attr("viewBox")?;
    let parts: Vec<f32> = view_box
        .split([' ', ','])
        .filter_map(|p| p.parse().ok())
        .collect();
    (parts.len() == 4).then(|| (parts[2].round() as u32, parts[3].round() as u32))
}

/// The attributes of a tag's inside (`a="1" b='2' c`), quotes kept.
fn split_attributes(tag: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = None;
    let mut quote = None;
    for (i, c) in tag.char_indices() {
        match (quote, c) {
            (None, '"' | '\'') => quote = Some(c),
            (Some(q), c) if c == q => {
                quote = None;
                if let Some(s) = start.take() {
                    out.push(&tag[s..=i]);
                }
            }
            (None, c) if c.is_whitespace() => {
                if let Some(s) = start.take() {
                    out.push(&tag[s..i]);
                }
            }
            (None, _) if start.is_none() => start = Some(i),
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push(tag[s..].trim_end_matches('/'));
    }
    out.into_iter()
        .filter(|a| !a.is_empty() && *a != "/")
        .collect()
}

fn strip_element(text: &str, name: &str) -> String {
    let (open, close) = (format!("<{name}>"), format!("</{name}>"));
    match (text.find(&open), text.find(&close)) {
        (Some(a), Some(b)) if b > a => format!("{}{}", &text[..a], &text[b + close.len()..]),
        _ => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn svg_files_become_one_clean_element() {
        let svg = clean_svg(
            "<!-- @license -->\n<svg\n  class=\"lucide\"\n  xmlns=\"http://www.w3.org/2000/svg\"\n  width=\"24\"\n  height=\"24\"\n  viewBox=\"0 0 24 24\"\n>\n  <title>X</title>\n  <path d=\"M1 1h2\" />\n</svg>\n",
        );
        assert_eq!(
            svg.as_deref(),
            Some(
                r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><path d="M1 1h2" /></svg>"#
            )
        );
    }

    #[test]
    fn a_file_without_an_svg_element_is_not_an_icon() {
        assert_eq!(clean_svg("not an svg at all"), None);
        assert_eq!(clean_svg(""), None);
        assert_eq!(clean_svg("<svg"), None, "a tag that never closes");
        assert_eq!(clean_svg("<sv"), None);
    }

    #[test]
    fn svg_size_comes_from_width_and_height_or_the_view_box() {
        assert_eq!(
            svg_size(r#"<svg width="640" height="400" viewBox="0 0 10 10">"#),
            Some((640, 400))
        );
        assert_eq!(
            svg_size(r#"<svg xmlns="x" viewBox="0 0 800 450">"#),
            Some((800, 450))
        );
        assert_eq!(svg_size(r#"<svg xmlns="x">"#), None);
        assert_eq!(svg_size("<svg"), None);
    }
}
