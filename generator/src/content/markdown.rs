//! Markdown to HTML with pulldown-cmark. Headings get stable ids made from their
//! text, so `#fragments` keep working when a page is edited elsewhere. Raw HTML
//! written in the Markdown passes an allowlist (`sanitize`).

use std::collections::{HashMap, HashSet};
use std::sync::LazyLock;

use pulldown_cmark::{html, CodeBlockKind, CowStr, Event, Options, Parser, Tag, TagEnd};

use super::routes::{canonical_href, check_link};

fn options() -> Options {
    Options::ENABLE_TABLES
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_SMART_PUNCTUATION
        | Options::ENABLE_HEADING_ATTRIBUTES
}

/// Renders a Markdown document; headings without an explicit `{#id}` get one.
pub fn render(source: &str) -> String {
    render_with_links(source, false).0
}

/// Renders a Markdown document, and gives its links and pictures (in order) from
/// the same parse; with `highlight`, fenced code in a known language is coloured.
pub fn render_with_links(source: &str, highlight: bool) -> (String, Vec<Link>) {
    let mut events: Vec<Event> = Vec::new();
    let mut links = Vec::new();
    for (event, range) in Parser::new_ext(source, options()).into_offset_iter() {
        if let Event::Start(Tag::Link { dest_url, .. } | Tag::Image { dest_url, .. }) = &event {
            links.push(Link {
                url: dest_url.to_string(),
                image: matches!(event, Event::Start(Tag::Image { .. })),
                offset: range.start,
            });
        }
        events.push(event);
    }
    let raw_html = events
        .iter()
        .any(|e| matches!(e, Event::Html(_) | Event::InlineHtml(_)));
    let mut used: HashMap<String, usize> = HashMap::new();
    let mut out: Vec<Event> = Vec::with_capacity(events.len());
    let mut dropping_link = false;
    let mut events = events.into_iter().peekable();
    while let Some(event) = events.next() {
        match event {
            Event::Start(Tag::Heading {
                level,
                id,
                classes,
                attrs,
            }) => {
                // The heading's own events, up to its end.
                let mut inner = Vec::new();
                let mut end = None;
                for e in events.by_ref() {
                    if matches!(e, Event::End(TagEnd::Heading(_))) {
                        end = Some(e);
                        break;
                    }
                    inner.push(e);
                }
                let base = match id {
                    Some(id) => id.to_string(),
                    None => slug(&plain_text(&inner)),
                };
                out.push(Event::Start(Tag::Heading {
                    level,
                    id: Some(CowStr::from(unique(&mut used, base))),
                    classes,
                    attrs,
                }));
                out.extend(inner);
                out.extend(end);
            }
            // Content is checked when it loads; this keeps a refused link out of
            // the HTML (its text stays) even where a caller skipped that check.
            Event::Start(Tag::Link { ref dest_url, .. }) if check_link(dest_url).is_err() => {
                dropping_link = true;
            }
            Event::End(TagEnd::Link) if dropping_link => dropping_link = false,
            Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(info))) if highlight => {
                let mut code = String::new();
                let mut inner = Vec::new();
                for e in events.by_ref() {
                    if matches!(e, Event::End(TagEnd::CodeBlock)) {
                        break;
                    }
                    if let Event::Text(t) = &e {
                        code.push_str(t);
                    }
                    inner.push(e);
                }
                match super::highlight::code_block(&info, &code) {
                    Some(html) => out.push(Event::Html(CowStr::from(html))),
                    None => {
                        out.push(Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(info))));
                        out.extend(inner);
                        out.push(Event::End(TagEnd::CodeBlock));
                    }
                }
            }
            // Internal links get the address hosts serve without a redirect.
            Event::Start(Tag::Link {
                link_type,
                dest_url,
                title,
                id,
            }) => out.push(Event::Start(Tag::Link {
                link_type,
                dest_url: CowStr::from(canonical_href(&dest_url)),
                title,
                id,
            })),
            other => out.push(other),
        }
    }
    let mut html_out = String::with_capacity(source.len() * 3 / 2);
    html::push_html(&mut html_out, out.into_iter());
    if raw_html {
        html_out = sanitize(&html_out);
    }
    (html_out, links)
}

/// What raw HTML in Markdown may keep: ammonia's allowlist of elements (text,
/// lists, tables, quotes, code, pictures, `details`), with `id` and `class` on
/// any of them, links to http, https, mailto and tel or a path on this site. Gone
/// are scripts, styles, forms, frames, `on…` handlers, `style` attributes and
/// any other address scheme. Only a text that has raw HTML passes through it: the
/// HTML pulldown-cmark writes itself needs no cleaning.
pub fn sanitize(html: &str) -> String {
    static ALLOWLIST: LazyLock<ammonia::Builder<'static>> = LazyLock::new(|| {
        let mut builder = ammonia::Builder::default();
        builder
            .link_rel(None)
            .add_generic_attributes(["id", "class"])
            .add_tag_attributes("pre", ["data-lang"])
            .url_schemes(HashSet::from(["http", "https", "mailto", "tel"]));
        builder
    });
    ALLOWLIST.clean(html).to_string()
}

/// Renders a short piece of Markdown (a card's text) without the wrapping paragraph.
pub fn render_inline(source: &str) -> String {
    let html = render(source);
    let trimmed = html.trim_end();
    match trimmed
        .strip_prefix("<p>")
        .and_then(|s| s.strip_suffix("</p>"))
    {
        Some(inner) if !inner.contains("<p>") => inner.to_string(),
        _ => html,
    }
}

/// A link or picture written in Markdown, with where its text starts.
pub struct Link {
    pub url: String,
    pub image: bool,
    pub offset: usize,
}

/// Every link and picture of a Markdown text, in order.
pub fn links(source: &str) -> Vec<Link> {
    Parser::new_ext(source, options())
        .into_offset_iter()
        .filter_map(|(event, range)| match event {
            Event::Start(Tag::Link { dest_url, .. }) => Some(Link {
                url: dest_url.to_string(),
                image: false,
                offset: range.start,
            }),
            Event::Start(Tag::Image { dest_url, .. }) => Some(Link {
                url: dest_url.to_string(),
                image: true,
                offset: range.start,
            }),
            _ => None,
        })
        .collect()
}

fn plain_text(events: &[Event]) -> String {
    let mut text = String::new();
    for e in events {
        if let Event::Text(t) | Event::Code(t) = e {
            text.push_str(t);
        }
    }
    text
}

/// Lowercase ASCII words joined by hyphens: "Our Story & Values" → "our-story-values".
pub fn slug(text: &str) -> String {
    let mut s = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_alphanumeric() {
            s.extend(c.to_lowercase());
        } else if !s.is_empty() && !s.ends_with('-') {
            s.push('-');
        }
    }
    let s = s.trim_end_matches('-').to_string();
    if s.is_empty() {
        "section".to_string()
    } else {
        s
    }
}

fn unique(used: &mut HashMap<String, usize>, base: String) -> String {
    let n = used.entry(base.clone()).or_insert(0);
    *n += 1;
    if *n == 1 {
        base
    } else {
        format!("{base}-{}", *n - 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gives_headings_stable_unique_ids() {
        let html = render("## Our Story\n\ntext\n\n## Our Story\n\n### Data & AI\n");
        assert!(
            html.contains(r#"<h2 id="our-story">Our Story</h2>"#),
            "{html}"
        );
        assert!(html.contains(r#"<h2 id="our-story-1">"#), "{html}");
        assert!(html.contains(r#"<h3 id="data-ai">"#), "{html}");
    }

    #[test]
    fn keeps_explicit_ids() {
        let html = render("## Team {#leadership-team}\n");
        assert!(
            html.contains(r#"<h2 id="leadership-team">Team</h2>"#),
            "{html}"
        );
    }

    #[test]
    fn internal_links_get_their_trailing_slash() {
        let html = render("[Contact](/contact) [Map](/images/map.svg) [Team](/about#team)");
        assert!(html.contains(r#"href="/contact/""#), "{html}");
        assert!(html.contains(r#"href="/images/map.svg""#), "{html}");
        assert!(html.contains(r#"href="/about/#team""#), "{html}");
    }

    #[test]
    fn a_link_the_link_rule_refuses_is_written_as_its_text() {
        let html = render("[click](javascript:alert(1)) and [ok](/about)");
        assert!(!html.contains("javascript"), "{html}");
        assert!(html.contains("click and"), "{html}");
        assert!(html.contains(r#"href="/about/""#), "{html}");
    }

    #[test]
    fn raw_html_keeps_markup_and_loses_what_runs() {
        let html = render(concat!(
            "Text <img src=x onerror=alert(1)> and <b onclick=\"go()\">bold</b>\n\n",
            "<script>alert(2)</script>\n\n",
            "<a href=\"javascript:alert(3)\">a</a> <a href=\"https://example.com/\">b</a>\n\n",
            "<iframe src=\"https://example.com/\"></iframe><p style=\"color:red\">p</p>\n\n",
            "<details><summary>More</summary>Hidden</details>\n\n## Kept {#kept}\n",
        ));
        for gone in [
            "onerror",
            "onclick",
            "script",
            "alert",
            "javascript",
            "iframe",
            "style",
        ] {
            assert!(!html.contains(gone), "{gone} in {html}");
        }
        for kept in [
            r#"<img src="x">"#,
            "<b>bold</b>",
            r#"<a href="https://example.com/">b</a>"#,
            "<details><summary>More</summary>Hidden</details>",
            r#"<h2 id="kept">Kept</h2>"#,
        ] {
            assert!(html.contains(kept), "{kept} not in {html}");
        }
    }

    #[test]
    fn markdown_without_raw_html_is_not_rewritten() {
        let source = "## A\n\n[x](/about) **b** `c`\n\n| a |\n|:-:|\n| 1 |\n";
        let html = render(source);
        assert!(
            html.contains(r#"<th style="text-align: center">"#),
            "{html}"
        );
        assert!(html.contains(r#"<h2 id="a">"#), "{html}");
    }

    #[test]
    fn finds_links_and_pictures_with_their_offsets() {
        let found = links("a [b](/x) ![c](/i.png)");
        let seen: Vec<_> = found
            .iter()
            .map(|l| (l.url.as_str(), l.image, l.offset))
            .collect();
        assert_eq!(seen, [("/x", false, 2), ("/i.png", true, 10)]);
    }

    #[test]
    fn renders_inline_text_without_a_paragraph() {
        assert_eq!(render_inline("Hello *there*"), "Hello <em>there</em>");
    }
}
