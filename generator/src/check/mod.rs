//! Checks a built site the way a careful reviewer would: every internal link and
//! `#fragment` resolves, no placeholder links, links that open a new tab do so
//! safely, every image has alt text and a size, every page has one `h1`, a
//! title and a description, and the translations a page names (`hreflang`)
//! exist and name it back.

mod html_page;
mod languages;
mod links;

use std::collections::{BTreeMap, HashSet};
use std::path::Path;

use rayon::prelude::*;

use crate::diagnostics::IoError;
use html_page::{check_page, read_page, Page, SELECTORS};
use languages::check_alternates;
pub use languages::{coverage, Coverage};
use links::{check_link, resolve};

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Finding {
    /// The page, as its address (`/about`).
    pub page: String,
    pub message: String,
}

#[derive(Debug, Default)]
pub struct Summary {
    pub pages: usize,
    /// Of the pages, the 404 pages (`404.html`, `de/404.html`).
    pub not_found: usize,
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
        not_found: pages
            .keys()
            .filter(|a| a.as_str() == "/404.html" || a.ends_with("/404.html"))
            .count(),
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

#[cfg(test)]
mod tests {
    use super::html_page::Selectors;
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
