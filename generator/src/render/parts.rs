//! What a rendered page is made of, as far as the templates and styles can make
//! one page look different from another: its layout, its direction, its block
//! types, its islands, and every element name and class of its body. Two pages
//! with the same parts differ only in their words.
//!
//! [`cover`] chooses the fewest pages it can (greedily) that hold every part in
//! every layout and direction it occurs in. What the templates and styles can
//! break (colour contrast, a block's layout at each width) is checked in the
//! browser on those pages, so that check grows with the templates, not with the
//! number of pages; what words can break is checked on every page.

use std::collections::{BTreeSet, HashMap};

use scraper::{ElementRef, Html};
use serde::Serialize;

use crate::content::Page;

/// One page's parts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Parts {
    pub route: String,
    /// Its language's code, as its `<html lang>` says.
    pub lang: String,
    /// `ltr` or `rtl`, as its `<html dir>` says.
    pub dir: String,
    pub layout: String,
    /// `block:<type>` for each block type, `island:<Name>` for each island,
    /// `<name>` for each element name and `.<class>` for each class of its body.
    pub parts: BTreeSet<String>,
}

/// The parts of `page`, rendered as `html`.
pub fn parts(page: &Page, html: &str) -> Parts {
    let document = Html::parse_document(html);
    let root = document.root_element();
    let attribute = |name: &str| root.value().attr(name).unwrap_or_default().to_string();
    let mut parts: BTreeSet<String> = page
        .blocks
        .iter()
        .map(|block| format!("block:{}", block.type_name()))
        .collect();
    let body = root
        .children()
        .filter_map(ElementRef::wrap)
        .find(|e| e.value().name() == "body");
    for element in body
        .iter()
        .flat_map(|b| b.descendants())
        .filter_map(ElementRef::wrap)
    {
        let value = element.value();
        parts.insert(format!("<{}>", value.name()));
        parts.extend(value.classes().map(|class| format!(".{class}")));
        if let Some(island) = value.attr("data-island") {
            parts.insert(format!("island:{island}"));
        }
    }
    Parts {
        route: page.route.clone(),
        lang: attribute("lang"),
        dir: attribute("dir"),
        layout: page.layout.clone(),
        parts,
    }
}

/// The routes of the fewest pages (chosen greedily: each time the page that holds
/// the most parts not held yet, the first by route of those that tie) that
/// together hold each part of every page in that page's layout and direction,
/// and a page of each language (the words around every page, its header and
/// footer, are its language's). The same pages give the same cover.
pub fn cover(pages: &[Parts]) -> Vec<String> {
    let mut order: Vec<&Parts> = pages.iter().collect();
    order.sort_by(|a, b| a.route.cmp(&b.route));
    // Each page's parts as numbers, a part being the same in one layout and direction.
    let mut numbers: HashMap<(&str, &str, &str), usize> = HashMap::new();
    let held: Vec<Vec<usize>> = order
        .iter()
        .map(|page| {
            let scoped = std::iter::once("")
                .chain(page.parts.iter().map(String::as_str))
                .map(|part| (page.layout.as_str(), page.dir.as_str(), part));
            let mut own: Vec<usize> = scoped
                .chain(std::iter::once(("", "", page.lang.as_str())))
                .map(|key| {
                    let next = numbers.len();
                    *numbers.entry(key).or_insert(next)
                })
                .collect();
            own.sort_unstable();
            own.dedup();
            own
        })
        .collect();
    let mut covered = vec![false; numbers.len()];
    let mut chosen = Vec::new();
    loop {
        let best = held
            .iter()
            .enumerate()
            .map(|(i, own)| (own.iter().filter(|&&n| !covered[n]).count(), i))
            .filter(|&(new, _)| new > 0)
            // The most new parts; of those, the first page by route.
            .max_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
        let Some((_, i)) = best else { break };
        for &n in &held[i] {
            covered[n] = true;
        }
        chosen.push(order[i].route.clone());
    }
    chosen
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(route: &str, layout: &str, dir: &str, parts: &[&str]) -> Parts {
        Parts {
            route: route.into(),
            lang: "en".into(),
            dir: dir.into(),
            layout: layout.into(),
            parts: parts.iter().map(|p| p.to_string()).collect(),
        }
    }

    #[test]
    fn a_page_is_its_layout_direction_blocks_islands_elements_and_classes() {
        let faq =
            crate::content::yaml::parse("type: faq\nheading: Questions\nquestions: []\n").unwrap();
        let (faq, _) = crate::content::blocks::Block::from_node(&faq, "blocks[0]").unwrap();
        let page = Page {
            route: "/about/".into(),
            layout: "page".into(),
            blocks: vec![faq],
            ..Page::default()
        };
        let html = r#"<!doctype html><html lang="ar" dir="rtl"><head><title>t</title></head>
            <body><main><section class="section section--dark"><p>Words <em>here</em></p></section>
            <div data-island="Header" data-hydrate="idle"><header class="site-header"></header></div></main></body></html>"#;
        let parts = parts(&page, html);
        assert_eq!(
            (
                parts.lang.as_str(),
                parts.dir.as_str(),
                parts.layout.as_str()
            ),
            ("ar", "rtl", "page")
        );
        let expected = [
            "<body>",
            "<div>",
            "<em>",
            "<header>",
            "<main>",
            "<p>",
            "<section>",
            ".section",
            ".section--dark",
            ".site-header",
            "block:faq",
            "island:Header",
        ];
        assert_eq!(
            parts.parts,
            expected.iter().map(|p| p.to_string()).collect()
        );
    }

    #[test]
    fn the_cover_holds_every_part_in_each_layout_and_direction() {
        let pages = [
            page("/a/", "page", "ltr", &[".card", ".hero"]),
            page("/b/", "page", "ltr", &[".card"]),
            page("/c/", "page", "ltr", &[".faq", ".card"]),
            page("/ar/a/", "page", "rtl", &[".card", ".hero"]),
            page("/ar/b/", "page", "rtl", &[".card"]),
            page("/post/", "article", "ltr", &[".card"]),
        ];
        // /b/ and /ar/b/ hold nothing the others do not; /post/ holds `.card` in
        // another layout (two parts new there: its layout, and `.card` in it).
        assert_eq!(cover(&pages), ["/a/", "/ar/a/", "/post/", "/c/"]);
    }

    #[test]
    fn the_cover_holds_a_page_of_each_language() {
        let mut german = page("/de/b/", "page", "ltr", &[".card"]);
        german.lang = "de".into();
        let pages = [page("/a/", "page", "ltr", &[".card", ".hero"]), german];
        assert_eq!(cover(&pages), ["/a/", "/de/b/"]);
    }

    #[test]
    fn the_cover_prefers_the_page_with_most_new_parts_then_the_first_route() {
        let pages = [
            page("/z/", "page", "ltr", &[".a", ".b", ".c"]),
            page("/y/", "page", "ltr", &[".a", ".b"]),
            page("/x/", "page", "ltr", &[".c", ".d"]),
            page("/w/", "page", "ltr", &[".d"]),
        ];
        assert_eq!(cover(&pages), ["/z/", "/w/"]);
        // The order pages come in changes nothing.
        let mut reversed = pages.to_vec();
        reversed.reverse();
        assert_eq!(cover(&reversed), ["/z/", "/w/"]);
    }
}
