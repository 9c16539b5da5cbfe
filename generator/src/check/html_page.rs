//! What a page holds that the checks look at, read once from its HTML with
//! CSS selectors parsed once, and the findings about the page itself: one
//! `h1`, a title, a description, no `<article>` without a heading.

use std::collections::HashSet;

use scraper::{Html, Selector};

/// What a page holds that the checks look at.
#[derive(Debug, Default)]
pub(super) struct Page {
    pub(super) ids: HashSet<String>,
    /// (element, attribute value, opens a new tab, rel)
    pub(super) links: Vec<Link>,
    pub(super) images: Vec<Img>,
    pub(super) h1: usize,
    /// `<article>`s without a heading of their own, by class.
    pub(super) articles_without_heading: Vec<String>,
    pub(super) title: String,
    pub(super) description: Option<String>,
    /// `<html lang>`.
    pub(super) lang: String,
    pub(super) canonical: Option<String>,
    /// `<link rel="alternate" hreflang>`: (hreflang, URL).
    pub(super) alternates: Vec<(String, String)>,
}

#[derive(Debug)]
pub(super) struct Link {
    pub(super) href: String,
    pub(super) new_tab: bool,
    pub(super) rel: String,
    /// The visible text of an `<a>`; `None` for stylesheets and scripts.
    pub(super) text: Option<String>,
}

#[derive(Debug)]
pub(super) struct Img {
    pub(super) src: String,
    pub(super) alt: Option<String>,
    pub(super) sized: bool,
}

/// The CSS selectors the checks read a page with, parsed once. A typo in one is
/// an error of `check`, not a selector that silently never matches.
pub(super) struct Selectors {
    ids: Selector,
    anchors: Selector,
    links: Selector,
    scripts: Selector,
    images: Selector,
    h1: Selector,
    articles: Selector,
    headings: Selector,
    title: Selector,
    description: Selector,
    html: Selector,
    canonical: Selector,
    alternates: Selector,
}

impl Selectors {
    pub(super) fn parse() -> Result<Selectors, String> {
        let s = |css: &str| Selector::parse(css).map_err(|e| format!("selector `{css}`: {e}"));
        Ok(Selectors {
            ids: s("[id]")?,
            anchors: s("a, area")?,
            links: s("link[href]")?,
            scripts: s("script[src]")?,
            images: s("img")?,
            h1: s("h1")?,
            articles: s("article")?,
            headings: s("h1, h2, h3, h4, h5, h6")?,
            title: s("head > title")?,
            description: s(r#"meta[name="description"]"#)?,
            html: s("html")?,
            canonical: s(r#"link[rel="canonical"]"#)?,
            alternates: s(r#"link[rel="alternate"][hreflang]"#)?,
        })
    }
}

pub(super) static SELECTORS: std::sync::LazyLock<Result<Selectors, String>> =
    std::sync::LazyLock::new(Selectors::parse);

pub(super) fn read_page(sel: &Selectors, text: &str) -> Page {
    let doc = Html::parse_document(text);
    let mut page = Page::default();
    for el in doc.select(&sel.ids) {
        if let Some(id) = el.attr("id") {
            page.ids.insert(id.to_string());
        }
    }
    for el in doc.select(&sel.anchors) {
        let Some(href) = el.attr("href") else {
            continue;
        };
        let text: String = el
            .text()
            .collect::<String>()
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        page.links.push(Link {
            href: href.to_string(),
            new_tab: el.attr("target") == Some("_blank"),
            rel: el.attr("rel").unwrap_or("").to_string(),
            text: Some(text),
        });
    }
    // Stylesheets, icons, preloads and scripts must resolve too.
    for (selector, attr) in [(&sel.links, "href"), (&sel.scripts, "src")] {
        for el in doc.select(selector) {
            let rel = el.attr("rel").unwrap_or("");
            // Absolute addresses of this site; `hreflang` ones are checked below.
            if rel == "canonical" || el.attr("hreflang").is_some() {
                continue;
            }
            if let Some(v) = el.attr(attr) {
                page.links.push(Link {
                    href: v.to_string(),
                    new_tab: false,
                    rel: String::new(),
                    text: None,
                });
            }
        }
    }
    for el in doc.select(&sel.images) {
        page.images.push(Img {
            src: el.attr("src").unwrap_or("").to_string(),
            alt: el.attr("alt").map(str::to_string),
            sized: el.attr("width").is_some() && el.attr("height").is_some(),
        });
    }
    page.h1 = doc.select(&sel.h1).count();
    // An article is a section of its own: the HTML standard (and the W3C checker)
    // wants it to have a heading.
    for article in doc.select(&sel.articles) {
        if article.select(&sel.headings).next().is_none() {
            page.articles_without_heading
                .push(article.attr("class").unwrap_or("").to_string());
        }
    }
    page.title = doc
        .select(&sel.title)
        .next()
        .map(|t| t.text().collect::<String>().trim().to_string())
        .unwrap_or_default();
    page.description = doc
        .select(&sel.description)
        .next()
        .and_then(|m| m.attr("content"))
        .map(|c| c.trim().to_string());
    page.lang = doc
        .select(&sel.html)
        .next()
        .and_then(|h| h.attr("lang"))
        .unwrap_or("")
        .to_string();
    page.canonical = doc
        .select(&sel.canonical)
        .next()
        .and_then(|l| l.attr("href"))
        .map(str::to_string);
    page.alternates = doc
        .select(&sel.alternates)
        .filter_map(|l| Some((l.attr("hreflang")?.to_string(), l.attr("href")?.to_string())))
        .collect();
    page
}

pub(super) fn check_page(page: &Page, found: &mut impl FnMut(String)) {
    if page.h1 != 1 {
        found(format!(
            "has {} h1 headings; a page has exactly one",
            page.h1
        ));
    }
    for class in &page.articles_without_heading {
        found(format!(
            "has an <article class=\"{class}\"> without a heading: give it one, or use another element"
        ));
    }
    if page.title.is_empty() {
        found("has no title".into());
    }
    match page.description.as_deref() {
        None | Some("") => found("has no meta description".into()),
        _ => {}
    }
}
