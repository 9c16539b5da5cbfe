//! Markdown to HTML with pulldown-cmark. Headings get stable ids made from their
//! text, so `#fragments` keep working when a page is edited elsewhere. Raw HTML
//! written in the Markdown passes an allowlist (`sanitize`).

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::LazyLock;

use pulldown_cmark::{html, CodeBlockKind, CowStr, Event, Options, Parser, Tag, TagEnd};
use rayon::prelude::*;

use crate::html::{Html, HtmlWriter};

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
    render_with_links(source, false).0.to_string()
}

/// Renders a Markdown document, and gives its links and pictures (in order) from
/// the same parse; with `highlight`, fenced code in a known language is coloured.
///
/// The document flows through as it is parsed, never held as a list of its
/// events: a page of tens of megabytes costs its HTML, made in pieces, and a
/// window of events. Its code blocks are coloured a window at a time, the
/// window's blocks side by side (`WINDOW_CODE`).
pub fn render_with_links(source: &str, highlight: bool) -> (Html, Vec<Link>) {
    let mut flow = Flow {
        parser: Parser::new_ext(source, options()).into_offset_iter(),
        highlight,
        links: Vec::new(),
        raw_html: false,
        used: HashMap::new(),
        ready: VecDeque::new(),
    };
    let mut out = HtmlWriter::default();
    // Writing into memory cannot fail.
    let _ = html::write_html_fmt(&mut out, &mut flow);
    let (links, raw_html) = (flow.links, flow.raw_html);
    let out = out.finish();
    match raw_html {
        true => (Html::from(sanitize(&out.to_string())), links),
        false => (out, links),
    }
}

/// How many code blocks a window holds at most, coloured side by side.
const WINDOW_CODE: usize = 64;
/// How many events a window holds at most (a long text without code).
const WINDOW_EVENTS: usize = 4096;

/// What a window holds: an event as it goes out, or a fenced code block to
/// colour (its fence's info, its text, and its own events should it stay plain).
enum Piece<'a> {
    Event(Event<'a>),
    Code {
        info: CowStr<'a>,
        code: String,
        inner: Vec<Event<'a>>,
    },
}

/// The document's events as they go out: headings with their ids, links in the
/// form hosts serve, refused links left out, fenced code coloured. Gathers the
/// links and whether the text has raw HTML on the way.
struct Flow<'a, I> {
    parser: I,
    highlight: bool,
    links: Vec<Link>,
    raw_html: bool,
    used: HashMap<String, usize>,
    ready: VecDeque<Event<'a>>,
}

impl<'a, I: Iterator<Item = (Event<'a>, std::ops::Range<usize>)>> Flow<'a, I> {
    /// The next event from the parser, noting links and raw HTML.
    fn parsed(&mut self) -> Option<Event<'a>> {
        let (event, range) = self.parser.next()?;
        match &event {
            Event::Start(Tag::Link { dest_url, .. } | Tag::Image { dest_url, .. }) => {
                self.links.push(Link {
                    url: dest_url.to_string(),
                    image: matches!(event, Event::Start(Tag::Image { .. })),
                    offset: range.start,
                });
            }
            Event::Html(_) | Event::InlineHtml(_) => self.raw_html = true,
            _ => {}
        }
        Some(event)
    }

    /// The next piece of the window: an event as it goes out, or a code block.
    fn piece(&mut self, dropping_link: &mut bool) -> Option<Vec<Piece<'a>>> {
        let event = self.parsed()?;
        Some(match event {
            Event::Start(Tag::Heading {
                level,
                id,
                classes,
                attrs,
            }) => {
                // The heading's own events, up to its end.
                let mut inner = Vec::new();
                let mut end = None;
                while let Some(e) = self.parsed() {
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
                let mut pieces = vec![Piece::Event(Event::Start(Tag::Heading {
                    level,
                    id: Some(CowStr::from(unique(&mut self.used, base))),
                    classes,
                    attrs,
                }))];
                pieces.extend(inner.into_iter().map(Piece::Event));
                pieces.extend(end.map(Piece::Event));
                pieces
            }
            // Content is checked when it loads; this keeps a refused link out of
            // the HTML (its text stays) even where a caller skipped that check.
            Event::Start(Tag::Link { ref dest_url, .. }) if check_link(dest_url).is_err() => {
                *dropping_link = true;
                Vec::new()
            }
            Event::End(TagEnd::Link) if *dropping_link => {
                *dropping_link = false;
                Vec::new()
            }
            Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(info))) if self.highlight => {
                let mut code = String::new();
                let mut inner = Vec::new();
                while let Some(e) = self.parsed() {
                    if matches!(e, Event::End(TagEnd::CodeBlock)) {
                        break;
                    }
                    if let Event::Text(t) = &e {
                        code.push_str(t);
                    }
                    inner.push(e);
                }
                vec![Piece::Code { info, code, inner }]
            }
            // Internal links get the address hosts serve without a redirect.
            Event::Start(Tag::Link {
                link_type,
                dest_url,
                title,
                id,
            }) => vec![Piece::Event(Event::Start(Tag::Link {
                link_type,
                dest_url: CowStr::from(canonical_href(&dest_url)),
                title,
                id,
            }))],
            other => vec![Piece::Event(other)],
        })
    }

    /// Fills `ready` with the next window, its code blocks coloured side by side;
    /// false at the end of the document.
    fn next_window(&mut self) -> bool {
        let mut window: Vec<Piece<'a>> = Vec::new();
        let (mut codes, mut dropping_link) = (0, false);
        while codes < WINDOW_CODE && window.len() < WINDOW_EVENTS {
            let Some(pieces) = self.piece(&mut dropping_link) else {
                break;
            };
            codes += pieces
                .iter()
                .filter(|p| matches!(p, Piece::Code { .. }))
                .count();
            window.extend(pieces);
        }
        if window.is_empty() {
            return false;
        }
        // A link left out is closed in this window: its end is never split off.
        while dropping_link {
            match self.piece(&mut dropping_link) {
                Some(pieces) => window.extend(pieces),
                None => break,
            }
        }
        let blocks: Vec<(&str, &str)> = window
            .iter()
            .filter_map(|p| match p {
                Piece::Code { info, code, .. } => Some((info.as_ref(), code.as_str())),
                Piece::Event(_) => None,
            })
            .collect();
        let coloured: Vec<Option<String>> = match blocks.len() {
            0 | 1 => blocks
                .iter()
                .map(|(info, code)| super::highlight::code_block(info, code))
                .collect(),
            _ => blocks
                .par_iter()
                .map(|(info, code)| super::highlight::code_block(info, code))
                .collect(),
        };
        let mut coloured = coloured.into_iter();
        for piece in window {
            match piece {
                Piece::Event(e) => self.ready.push_back(e),
                Piece::Code { info, inner, .. } => match coloured.next().flatten() {
                    Some(html) => self.ready.push_back(Event::Html(CowStr::from(html))),
                    None => {
                        self.ready
                            .push_back(Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(info))));
                        self.ready.extend(inner);
                        self.ready.push_back(Event::End(TagEnd::CodeBlock));
                    }
                },
            }
        }
        true
    }
}

impl<'a, I: Iterator<Item = (Event<'a>, std::ops::Range<usize>)>> Iterator for Flow<'a, I> {
    type Item = Event<'a>;

    fn next(&mut self) -> Option<Event<'a>> {
        loop {
            if let Some(e) = self.ready.pop_front() {
                return Some(e);
            }
            if !self.next_window() {
                return None;
            }
        }
    }
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
