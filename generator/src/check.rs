//! Checks a built site the way a careful reviewer would: every internal link and
//! `#fragment` resolves, no placeholder links, links that open a new tab do so
//! safely, every image has alt text and a size, every page has one `h1`, a
//! title and a description, and the translations a page names (`hreflang`)
//! exist and name it back.

use std::collections::{BTreeMap, HashSet};
use std::path::Path;

use rayon::prelude::*;

use crate::diagnostics::IoError;
use scraper::{Html, Selector};

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Finding {
    /// The page, as its address (`/about`).
    pub page: String,
    pub message: String,
}

#[derive(Debug, Default)]
pub struct Summary {
    pub pages: usize,
    pub links: usize,
    pub images: usize,
    pub findings: Vec<Finding>,
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{0} does not exist or holds no built site: run `site build` first")]
    NoOutput(String),
    #[error(transparent)]
    Io(#[from] IoError),
    #[error("a selector of the checks does not parse: {0}")]
    Selector(String),
}

/// What a page holds that the checks look at.
#[derive(Debug, Default)]
struct Page {
    ids: HashSet<String>,
    /// (element, attribute value, opens a new tab, rel)
    links: Vec<Link>,
    images: Vec<Img>,
    h1: usize,
    /// `<article>`s without a heading of their own, by class.
    articles_without_heading: Vec<String>,
    title: String,
    description: Option<String>,
    /// `<html lang>`.
    lang: String,
    canonical: Option<String>,
    /// `<link rel="alternate" hreflang>`: (hreflang, URL).
    alternates: Vec<(String, String)>,
}

#[derive(Debug)]
struct Link {
    href: String,
    new_tab: bool,
    rel: String,
    /// The visible text of an `<a>`; `None` for stylesheets and scripts.
    text: Option<String>,
}

/// Link texts that say nothing about where the link goes (Lighthouse's list).
const GENERIC_LINK_TEXT: &[&str] = &[
    "click here",
    "click this",
    "go",
    "here",
    "this",
    "start",
    "right here",
    "more",
    "learn more",
    "read more",
    "continue",
    "more info",
    "more information",
];

#[derive(Debug)]
struct Img {
    src: String,
    alt: Option<String>,
    sized: bool,
}

/// The address of an HTML file of the output: `about/index.html` → `/about/`.
fn address(rel: &str) -> String {
    match rel.strip_suffix("index.html") {
        Some("") => "/".to_string(),
        Some(dir) if dir.ends_with('/') => format!("/{dir}"),
        _ => format!("/{rel}"),
    }
}

pub fn check(out: &Path) -> Result<Summary, Error> {
    let selectors = SELECTORS.as_ref().map_err(|e| Error::Selector(e.clone()))?;
    if !out.join("index.html").is_file() {
        return Err(Error::NoOutput(out.display().to_string()));
    }
    let mut files: HashSet<String> = HashSet::new();
    let mut html: Vec<String> = Vec::new();
    for entry in walkdir::WalkDir::new(out).sort_by_file_name() {
        let entry = entry.map_err(|e| IoError::at(out)(e.into()))?;
        if !entry.file_type().is_file() {
            continue;
        }
        let rel = entry
            .path()
            .strip_prefix(out)
            .map(|p| p.to_string_lossy().replace('\\', "/"))
            .unwrap_or_default();
        if rel.ends_with(".html") {
            html.push(rel.clone());
        }
        files.insert(rel);
    }

    let parsed: Vec<Result<(String, Page), Error>> = html
        .par_iter()
        .map(|rel| {
            let path = out.join(rel);
            let text = std::fs::read_to_string(&path).map_err(IoError::at(&path))?;
            Ok((address(rel), read_page(selectors, &text)))
        })
        .collect();
    let mut pages: BTreeMap<String, Page> = BTreeMap::new();
    for p in parsed {
        let (addr, page) = p?;
        pages.insert(addr, page);
    }

    let mut summary = Summary {
        pages: pages.len(),
        ..Summary::default()
    };
    for (addr, page) in &pages {
        summary.links += page.links.len();
        summary.images += page.images.len();
        let mut found = |message: String| {
            summary.findings.push(Finding {
                page: addr.clone(),
                message,
            })
        };
        check_page(page, &mut found);
        for link in &page.links {
            check_link(addr, link, &pages, &files, &mut found);
        }
        for img in &page.images {
            match &img.alt {
                None => found(format!("image {} has no alt attribute", img.src)),
                Some(_) if !img.sized => {
                    found(format!("image {} has no width and height", img.src))
                }
                Some(_) => {}
            }
            if let Some(problem) = resolve(addr, &img.src, &pages, &files) {
                found(format!("image {}: {problem}", img.src));
            }
        }
    }
    check_alternates(&pages, &mut |page: &str, message: String| {
        summary.findings.push(Finding {
            page: page.to_string(),
            message,
        })
    });
    summary.findings.sort();
    summary.findings.dedup();
    Ok(summary)
}

/// The CSS selectors the checks read a page with, parsed once. A typo in one is
/// an error of `check`, not a selector that silently never matches.
struct Selectors {
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
    fn parse() -> Result<Selectors, String> {
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

static SELECTORS: std::sync::LazyLock<Result<Selectors, String>> =
    std::sync::LazyLock::new(Selectors::parse);

fn read_page(sel: &Selectors, text: &str) -> Page {
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

/// How far each language but the default is translated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Coverage {
    pub code: String,
    pub name: String,
    /// Pages of the default language with a translation into it.
    pub translated: usize,
    /// Pages of the default language without one.
    pub missing: Vec<String>,
    /// Its strings file, and the keys it lacks.
    pub strings_file: String,
    pub missing_strings: Vec<String>,
}

/// Each language's coverage, from the site's content; `None` when the content
/// does not load (`site build` says why).
pub fn coverage(root: &Path) -> Option<Vec<Coverage>> {
    let content = crate::content::load(root).ok()?;
    let languages = content.languages();
    let originals: Vec<&crate::content::Page> = content
        .pages
        .iter()
        .filter(|p| p.lang.is_default())
        .map(|p| p.as_ref())
        .collect();
    Some(
        languages
            .others()
            .map(|(lang, l)| {
                let done: HashSet<&str> = content
                    .pages
                    .iter()
                    .filter(|p| p.lang == lang)
                    .map(|p| p.translation_key.as_str())
                    .collect();
                let (translated, missing): (
                    Vec<&&crate::content::Page>,
                    Vec<&&crate::content::Page>,
                ) = originals
                    .iter()
                    .partition(|p| done.contains(p.route.as_str()));
                Coverage {
                    code: l.code().to_string(),
                    name: l.name.clone(),
                    translated: translated.len(),
                    missing: missing.iter().map(|p| p.route.clone()).collect(),
                    strings_file: format!("content/strings/{}.yaml", l.code()),
                    missing_strings: content
                        .missing_strings
                        .get(l.code())
                        .cloned()
                        .unwrap_or_default(),
                }
            })
            .collect(),
    )
}

/// Every page's translations lead to pages that name it back, in its own
/// language, and name themselves (Google ignores alternates that are not
/// reciprocal).
fn check_alternates(pages: &BTreeMap<String, Page>, found: &mut impl FnMut(&str, String)) {
    let by_url: std::collections::HashMap<&str, &Page> = pages
        .values()
        .filter_map(|p| Some((p.canonical.as_deref()?, p)))
        .collect();
    for (addr, page) in pages.iter().filter(|(_, p)| !p.alternates.is_empty()) {
        let Some(own) = page.canonical.as_deref() else {
            found(
                addr,
                "names translations (hreflang) but has no canonical address".into(),
            );
            continue;
        };
        if !page
            .alternates
            .iter()
            .any(|(l, u)| *l == page.lang && u == own)
        {
            found(
                addr,
                format!(
                    "its hreflang alternates do not name the page itself (hreflang=\"{}\" {own})",
                    page.lang
                ),
            );
        }
        if !page.alternates.iter().any(|(l, _)| l == "x-default") {
            found(addr, "its hreflang alternates have no x-default".into());
        }
        for (lang, url) in page.alternates.iter().filter(|(l, _)| l != "x-default") {
            match by_url.get(url.as_str()) {
                None => found(
                    addr,
                    format!("the hreflang=\"{lang}\" alternate {url} is no page of this build"),
                ),
                Some(other) if other.lang != *lang => found(
                    addr,
                    format!(
                        "the hreflang=\"{lang}\" alternate {url} is in `{}`",
                        other.lang
                    ),
                ),
                Some(other)
                    if !other
                        .alternates
                        .iter()
                        .any(|(l, u)| *l == page.lang && u == own) =>
                {
                    found(
                        addr,
                        format!(
                            "the hreflang=\"{lang}\" alternate {url} does not name this page back"
                        ),
                    )
                }
                Some(_) => {}
            }
        }
    }
}

fn check_page(page: &Page, found: &mut impl FnMut(String)) {
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

fn check_link(
    addr: &str,
    link: &Link,
    pages: &BTreeMap<String, Page>,
    files: &HashSet<String>,
    found: &mut impl FnMut(String),
) {
    let href = link.href.trim();
    if href.is_empty() || href == "#" {
        found(format!(
            "placeholder link href=\"{href}\": link somewhere real or show inert text"
        ));
        return;
    }
    if href.to_ascii_lowercase().starts_with("javascript:") {
        found(format!("link to {href}: use a button for actions"));
        return;
    }
    if let Some(text) = &link.text {
        if GENERIC_LINK_TEXT.contains(&text.to_lowercase().as_str()) {
            found(format!(
                "link to {href} says only \"{text}\": say where it goes"
            ));
        }
    }
    if link.new_tab {
        let rel: HashSet<&str> = link.rel.split_whitespace().collect();
        if !(rel.contains("noopener") && rel.contains("noreferrer")) {
            found(format!(
                "link to {href} opens a new tab without rel=\"noopener noreferrer\""
            ));
        }
    }
    if let Some(problem) = resolve(addr, href, pages, files) {
        found(format!("link to {href}: {problem}"));
    }
}

/// Why an internal address does not resolve, or `None` when it does (or is external).
fn resolve(
    addr: &str,
    href: &str,
    pages: &BTreeMap<String, Page>,
    files: &HashSet<String>,
) -> Option<String> {
    let external = href.starts_with("//")
        || href.split_once(':').is_some_and(|(scheme, _)| {
            !scheme.is_empty()
                && scheme
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
        });
    if external {
        return None;
    }
    let (before_fragment, fragment) = match href.split_once('#') {
        Some((p, f)) => (p, Some(f)),
        None => (href, None),
    };
    let path = before_fragment.split('?').next().unwrap_or("");
    let target = if path.is_empty() {
        addr.to_string()
    } else if path.starts_with('/') {
        path.to_string()
    } else {
        // Relative to the page's own folder.
        let folder = &addr[..addr.rfind('/').map_or(0, |i| i + 1)];
        without_dot_segments(&format!("{folder}{path}"))
    };
    if let Some(page) = pages.get(&target) {
        return match fragment {
            Some(f) if !f.is_empty() && !page.ids.contains(f) => {
                Some(format!("there is no element with id \"{f}\" on {target}"))
            }
            _ => None,
        };
    }
    // A page's other spellings are answered with a redirect (or a second copy)
    // by the hosts, so each costs the visitor a round trip.
    let page_form = match target.strip_suffix("index.html") {
        Some(folder) if folder.ends_with('/') => folder.to_string(),
        _ => format!("{}/", target.trim_end_matches('/')),
    };
    if page_form != target && pages.contains_key(&page_form) {
        let mut canonical = page_form;
        if let Some(f) = fragment {
            canonical.push('#');
            canonical.push_str(f);
        }
        return Some(format!(
            "hosts answer it with a redirect to {canonical}; link to {canonical}"
        ));
    }
    let file = target.trim_start_matches('/');
    if files.contains(file) {
        None
    } else {
        Some("no such page or file".into())
    }
}

/// `/about/../contact/` → `/contact/`, as a browser resolves it.
fn without_dot_segments(path: &str) -> String {
    let mut out: Vec<&str> = Vec::new();
    let segments: Vec<&str> = path.split('/').skip(1).collect();
    for (i, segment) in segments.iter().enumerate() {
        let last = i + 1 == segments.len();
        match *segment {
            "." => {}
            ".." => {
                out.pop();
            }
            s => out.push(s),
        }
        // A path ending in `.` or `..` names a folder.
        if last && matches!(*segment, "." | "..") {
            out.push("");
        }
    }
    format!("/{}", out.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn site(pages: &[(&str, &str)]) -> (BTreeMap<String, Page>, HashSet<String>) {
        let map = pages
            .iter()
            .map(|(a, html)| (a.to_string(), read_page(selectors(), html)))
            .collect();
        let files = ["assets/main.css", "images/a.svg"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        (map, files)
    }

    fn findings(pages: &[(&str, &str)]) -> Vec<String> {
        let (map, files) = site(pages);
        let mut out = Vec::new();
        for (addr, page) in &map {
            let mut found = |m: String| out.push(format!("{addr}: {m}"));
            check_page(page, &mut found);
            for link in &page.links {
                check_link(addr, link, &map, &files, &mut found);
            }
        }
        out
    }

    const HEAD: &str = r#"<head><title>T</title><meta name="description" content="D"></head>"#;

    fn selectors() -> &'static Selectors {
        SELECTORS
            .as_ref()
            .expect("the selectors the checks use parse")
    }

    #[test]
    fn the_selectors_the_checks_use_parse() {
        if let Err(e) = Selectors::parse() {
            panic!("{e}");
        }
    }

    #[test]
    fn every_selector_finds_what_it_is_for() {
        let page = read_page(
            selectors(),
            r#"<html><head><title>T</title><meta name="description" content="D"><link rel="stylesheet" href="/s.css"><script src="/a.js"></script></head><body id="top"><h1>H</h1><a href="/x/">x</a><area href="/y/"><img src="/i.png" alt="" width="1" height="1"></body></html>"#,
        );
        assert!(page.ids.contains("top"));
        let hrefs: Vec<&str> = page.links.iter().map(|l| l.href.as_str()).collect();
        assert_eq!(hrefs, ["/x/", "/y/", "/s.css", "/a.js"]);
        assert_eq!(page.images.len(), 1);
        assert_eq!(page.h1, 1);
        assert_eq!(page.title, "T");
        assert_eq!(page.description.as_deref(), Some("D"));
    }

    #[test]
    fn internal_links_and_fragments_must_resolve() {
        let home = format!(
            r##"<html>{HEAD}<body><h1>H</h1><a href="/about/#team">ok</a><a href="/about/#nope">x</a><a href="/gone/">x</a><a href="#top">x</a><a href="/assets/main.css">ok</a><a href="https://example.com/x">ok</a><a href="mailto:a@b.c">ok</a></body></html>"##
        );
        let about = format!(
            r#"<html>{HEAD}<body><h1 id="team">A</h1><a href="../">ok</a><a href="team/">x</a></body></html>"#
        );
        let f = findings(&[("/", &home), ("/about/", &about)]);
        assert_eq!(
            f,
            [
                "/: link to /about/#nope: there is no element with id \"nope\" on /about/",
                "/: link to /gone/: no such page or file",
                "/: link to #top: there is no element with id \"top\" on /",
                "/about/: link to team/: no such page or file",
            ]
        );
    }

    #[test]
    fn a_link_that_hosts_answer_with_a_redirect_is_a_finding() {
        let home = format!(
            r##"<html>{HEAD}<body><h1>H</h1><a href="/about">x</a><a href="/about#team">x</a><a href="/about/index.html">x</a><a href="/about/">ok</a><a href="/images/a.svg">ok</a></body></html>"##
        );
        let about = format!(r#"<html>{HEAD}<body><h1 id="team">A</h1></body></html>"#);
        let f = findings(&[("/", &home), ("/about/", &about)]);
        assert_eq!(
            f,
            [
                "/: link to /about: hosts answer it with a redirect to /about/; link to /about/",
                "/: link to /about#team: hosts answer it with a redirect to /about/#team; link to /about/#team",
                "/: link to /about/index.html: hosts answer it with a redirect to /about/; link to /about/",
            ]
        );
    }

    #[test]
    fn placeholder_and_unsafe_new_tab_links_are_findings() {
        let home = format!(
            r##"<html>{HEAD}<body><h1>H</h1><a href="#">x</a><a href="https://x.example" target="_blank" rel="noopener">x</a><a href="https://y.example" target="_blank" rel="noopener noreferrer">ok</a></body></html>"##
        );
        let f = findings(&[("/", &home)]);
        assert_eq!(f.len(), 2, "{f:?}");
        assert!(f[0].contains("placeholder link"));
        assert!(f[1].contains("opens a new tab without rel=\"noopener noreferrer\""));
    }

    #[test]
    fn generic_link_text_is_a_finding() {
        let home = format!(
            r#"<html>{HEAD}<body><h1>H</h1><a href="/">Read more</a><a href="/">Read the annual report</a></body></html>"#
        );
        let f = findings(&[("/", &home)]);
        assert_eq!(
            f,
            ["/: link to / says only \"Read more\": say where it goes"]
        );
    }

    #[test]
    fn a_page_needs_one_h1_a_title_and_a_description() {
        let f = findings(&[(
            "/",
            "<html><head></head><body><h1>a</h1><h1>b</h1></body></html>",
        )]);
        assert_eq!(
            f,
            [
                "/: has 2 h1 headings; a page has exactly one",
                "/: has no title",
                "/: has no meta description"
            ]
        );
    }

    #[test]
    fn an_article_needs_a_heading() {
        let page = |body: &str| {
            format!(
                r#"<html><head><title>t</title><meta name="description" content="d"></head><body><h1>a</h1>{body}</body></html>"#
            )
        };
        assert_eq!(
            findings(&[("/", &page(r#"<article class="prose"><p>Text.</p></article>"#))]),
            ["/: has an <article class=\"prose\"> without a heading: give it one, or use another element"]
        );
        assert!(
            findings(&[("/", &page("<article><h2>Card</h2><p>Text.</p></article>"))]).is_empty()
        );
    }

    #[test]
    fn addresses_come_from_file_paths() {
        assert_eq!(address("index.html"), "/");
        assert_eq!(address("about/index.html"), "/about/");
        assert_eq!(address("404.html"), "/404.html");
    }

    #[test]
    fn translations_must_name_each_other() {
        let page = |lang: &str, url: &str, alternates: &[(&str, &str)]| {
            format!(
                "<html lang=\"{lang}\"><head><title>T</title><meta name=\"description\" content=\"d\"><link rel=\"canonical\" href=\"{url}\">{}</head><body><h1>T</h1></body></html>",
                alternates
                    .iter()
                    .map(|(l, u)| format!("<link rel=\"alternate\" hreflang=\"{l}\" href=\"{u}\">"))
                    .collect::<String>()
            )
        };
        let both = [
            ("en", "https://x.example/a/"),
            ("de", "https://x.example/de/a/"),
            ("x-default", "https://x.example/a/"),
        ];
        let mut pages = BTreeMap::new();
        let sel = selectors();
        pages.insert(
            "/a/".to_string(),
            read_page(sel, &page("en", "https://x.example/a/", &both)),
        );
        pages.insert(
            "/de/a/".to_string(),
            read_page(sel, &page("de", "https://x.example/de/a/", &both)),
        );
        let mut findings = Vec::new();
        check_alternates(&pages, &mut |p: &str, m: String| {
            findings.push(format!("{p}: {m}"))
        });
        assert!(findings.is_empty(), "{findings:?}");
        // The German page forgets the English one: the English page's alternate is not reciprocal.
        pages.insert(
            "/de/a/".to_string(),
            read_page(sel, &page("de", "https://x.example/de/a/", &both[1..])),
        );
        check_alternates(&pages, &mut |p: &str, m: String| {
            findings.push(format!("{p}: {m}"))
        });
        assert!(
            findings
                .iter()
                .any(|f| f.starts_with("/a/: ") && f.contains("does not name this page back")),
            "{findings:?}"
        );
    }
}
