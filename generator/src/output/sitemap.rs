//! `sitemap.xml` and `robots.txt`, from the routes and the base URL.
//!
//! The sitemaps protocol allows at most 50,000 URLs and 50 MiB to a file, and
//! search engines refuse a larger one. Past either limit `sitemap.xml` becomes a
//! sitemap index of `sitemap-1.xml`, `sitemap-2.xml`, …, each within both, so
//! `robots.txt` names one address at any size. A page with translations lists
//! each of them, itself and `x-default` as `xhtml:link` alternates, as Google
//! reads them.

use std::collections::HashMap;

use crate::content::canonical_url;
use crate::content::languages::Languages;
use crate::content::listings::Listings;
use crate::content::publishing::{CollectionKind, Filter};
use crate::content::translation_index::{Member, TranslationIndex};
use crate::content::values::Date;
use crate::content::Page;

/// One page of the sitemap: its address, and when it last changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Url {
    pub loc: String,
    pub lastmod: Option<String>,
    /// Its translations with itself (`hreflang`, URL), then `x-default`; empty
    /// when it has none.
    pub alternates: Vec<(String, String)>,
}

/// How much one sitemap file may hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    pub urls: usize,
    pub bytes: usize,
}

impl Limits {
    /// <https://www.sitemaps.org/protocol.html#index>: 50,000 URLs and
    /// 52,428,800 bytes, uncompressed.
    pub const PROTOCOL: Limits = Limits {
        urls: 50_000,
        bytes: 52_428_800,
    };
}

const XML_DECLARATION: &str = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
const URLSET: (&str, &str) = (
    "<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n",
    "</urlset>\n",
);
/// The opening of a sitemap whose entries name their translations.
const URLSET_XHTML: &str = "<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\" xmlns:xhtml=\"http://www.w3.org/1999/xhtml\">\n";
const INDEX: (&str, &str) = (
    "<sitemapindex xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n",
    "</sitemapindex>\n",
);

/// The sitemap's files for the site's pages: `sitemap.xml` alone, or the index
/// and its numbered sitemaps.
pub fn sitemap(
    base_url: &str,
    pages: &[std::sync::Arc<Page>],
    listings: &Listings,
    translations: &TranslationIndex,
    languages: &Languages,
) -> Vec<(String, String)> {
    files(
        base_url,
        &urls(base_url, pages, listings, translations, languages),
        Limits::PROTOCOL,
    )
}

/// Whether two versions of a page give the sitemap the same entries: what
/// [`urls`] reads of a page (its address is compared by the caller; which
/// listing holds which entries, by the caller's key).
pub fn reads_the_same(a: &Page, b: &Page) -> bool {
    a.unpublished.is_none() == b.unpublished.is_none()
        && a.translation_key() == b.translation_key()
        && a.lang == b.lang
        && a.date == b.date
        && a.article.as_ref().map(|x| &x.collection) == b.article.as_ref().map(|x| &x.collection)
}

/// The sitemap's entries: every published page, dated, with its published
/// translations (from the translations index). `pages` are sorted by address.
pub fn urls(
    base_url: &str,
    pages: &[std::sync::Arc<Page>],
    listings: &Listings,
    translations: &TranslationIndex,
    languages: &Languages,
) -> Vec<Url> {
    // A collection's index changes with the newest article it lists, in each
    // language: each listing's newest published date, found in one pass.
    let page = |route: &str| {
        pages
            .binary_search_by(|p| p.route.as_str().cmp(route))
            .ok()
            .map(|at| pages[at].as_ref())
    };
    let mut newest: HashMap<&str, &Date> = HashMap::new();
    for list in &listings.lists {
        if list.kind != CollectionKind::Articles || list.filter != Filter::All {
            continue;
        }
        let dates = list
            .entries
            .iter()
            .filter_map(|route| page(route))
            .filter(|p| p.unpublished.is_none())
            .filter_map(|p| p.date.as_ref());
        if let Some(date) = dates.max() {
            newest.insert(list.index.as_str(), date);
        }
    }
    // A page shown only as a preview (a draft, scheduled, closed) is no address
    // for search engines.
    pages
        .iter()
        .filter(|p| p.unpublished.is_none())
        .map(|page| {
            // In the order of their addresses.
            let mut members: Vec<&Member> = translations
                .group(page.translation_key())
                .iter()
                .filter(|m| m.published)
                .collect();
            members.sort_by(|a, b| a.route.cmp(&b.route));
            if members.len() < 2 {
                members.clear();
            }
            let mut alternates: Vec<(String, String)> = members
                .iter()
                .map(|m| {
                    let code = languages.code(m.lang).to_string();
                    (code, canonical_url(base_url, &m.route))
                })
                .collect();
            if let Some(default) = members.iter().find(|m| m.lang.is_default()) {
                alternates.push(("x-default".into(), canonical_url(base_url, &default.route)));
            }
            Url {
                alternates,
                loc: canonical_url(base_url, &page.route),
                lastmod: page
                    .date
                    .as_ref()
                    .or(newest.get(page.route.as_str()).copied())
                    .map(|d| d.as_str().to_string()),
            }
        })
        .collect()
}

/// The files (name, text) that hold `urls`: one `sitemap.xml` when it fits in
/// `limits`, else `sitemap.xml` as the index of `sitemap-1.xml` … `sitemap-N.xml`.
pub fn files(base_url: &str, urls: &[Url], limits: Limits) -> Vec<(String, String)> {
    let frame = XML_DECLARATION.len() + URLSET.0.len() + URLSET.1.len();
    let mut sitemaps: Vec<String> = Vec::new();
    let xhtml = urls.iter().any(|u| !u.alternates.is_empty());
    let urlset = |entries: &str| urlset(entries, xhtml);
    let mut current = String::new();
    let mut count = 0;
    for url in urls {
        let entry = entry(url);
        let full = count == limits.urls || frame + current.len() + entry.len() > limits.bytes;
        if full && count > 0 {
            sitemaps.push(urlset(&current));
            current.clear();
            count = 0;
        }
        current.push_str(&entry);
        count += 1;
    }
    if sitemaps.is_empty() {
        return vec![("sitemap.xml".to_string(), urlset(&current))];
    }
    sitemaps.push(urlset(&current));
    let base = base_url.trim_end_matches('/');
    let mut index = format!("{XML_DECLARATION}{}", INDEX.0);
    for n in 1..=sitemaps.len() {
        index.push_str(&format!(
            "  <sitemap><loc>{}</loc></sitemap>\n",
            escape(&format!("{base}/sitemap-{n}.xml"))
        ));
    }
    index.push_str(INDEX.1);
    std::iter::once(("sitemap.xml".to_string(), index))
        .chain(
            sitemaps
                .into_iter()
                .enumerate()
                .map(|(i, text)| (format!("sitemap-{}.xml", i + 1), text)),
        )
        .collect()
}

fn entry(url: &Url) -> String {
    let mut line = format!("  <url><loc>{}</loc>", escape(&encoded(&url.loc)));
    if let Some(lastmod) = &url.lastmod {
        line.push_str(&format!("<lastmod>{}</lastmod>", escape(lastmod)));
    }
    for (hreflang, href) in &url.alternates {
        line.push_str(&format!(
            "<xhtml:link rel=\"alternate\" hreflang=\"{}\" href=\"{}\"/>",
            escape(hreflang),
            escape(&encoded(href))
        ));
    }
    line.push_str("</url>\n");
    line
}

/// A URL as the protocol takes it: its letters outside ASCII percent-encoded
/// as UTF-8 (`/ar/insights/category/مالية/` is `…/%D9%85%D8%A7…/`).
fn encoded(url: &str) -> String {
    let mut out = String::with_capacity(url.len());
    for c in url.chars() {
        if c.is_ascii() {
            out.push(c);
        } else {
            let mut bytes = [0; 4];
            for b in c.encode_utf8(&mut bytes).bytes() {
                out.push_str(&format!("%{b:02X}"));
            }
        }
    }
    out
}

fn urlset(entries: &str, xhtml: bool) -> String {
    let open = if xhtml { URLSET_XHTML } else { URLSET.0 };
    format!("{XML_DECLARATION}{open}{entries}{}", URLSET.1)
}

pub fn robots(base_url: &str) -> String {
    format!(
        "User-agent: *\nAllow: /\n\nSitemap: {}/sitemap.xml\n",
        base_url.trim_end_matches('/')
    )
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: &str = "https://www.example.com/";

    fn urls(n: usize) -> Vec<Url> {
        (1..=n)
            .map(|i| Url {
                loc: format!("https://www.example.com/posts/p{i}/"),
                lastmod: Some("2026-11-24".into()),
                alternates: Vec::new(),
            })
            .collect()
    }

    fn locs(xml: &str) -> Vec<&str> {
        xml.split("<loc>")
            .skip(1)
            .filter_map(|s| s.split("</loc>").next())
            .collect()
    }

    #[test]
    fn fifty_thousand_urls_are_one_sitemap() {
        let files = files(BASE, &urls(50_000), Limits::PROTOCOL);
        assert_eq!(files.len(), 1);
        let (name, xml) = &files[0];
        assert_eq!(name, "sitemap.xml");
        assert!(xml.contains("<urlset "));
        assert_eq!(locs(xml).len(), 50_000);
    }

    #[test]
    fn one_url_more_makes_sitemap_xml_the_index_of_two() {
        let files = files(BASE, &urls(50_001), Limits::PROTOCOL);
        let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["sitemap.xml", "sitemap-1.xml", "sitemap-2.xml"]);
        let index = &files[0].1;
        assert!(index.contains("<sitemapindex "), "{index}");
        assert_eq!(
            locs(index),
            [
                "https://www.example.com/sitemap-1.xml",
                "https://www.example.com/sitemap-2.xml"
            ]
        );
        assert_eq!(locs(&files[1].1).len(), 50_000);
        assert_eq!(locs(&files[2].1), ["https://www.example.com/posts/p50001/"]);
        // Every page once, in order.
        let all: Vec<&str> = files[1..].iter().flat_map(|(_, x)| locs(x)).collect();
        let expected = urls(50_001);
        assert!(all.iter().zip(&expected).all(|(a, b)| *a == b.loc));
        assert_eq!(all.len(), expected.len());
    }

    #[test]
    fn a_sitemap_is_cut_before_it_passes_the_byte_limit() {
        let limits = Limits {
            urls: 50_000,
            bytes: 1_000,
        };
        let files = files(BASE, &urls(100), limits);
        assert!(files.len() > 2);
        for (name, xml) in &files {
            assert!(xml.len() <= 1_000, "{name} is {} bytes", xml.len());
        }
        let pages: usize = files[1..].iter().map(|(_, x)| locs(x).len()).sum();
        assert_eq!(pages, 100);
    }

    #[test]
    fn letters_outside_ascii_are_percent_encoded() {
        assert_eq!(
            encoded("https://x.example/ar/مالية/"),
            "https://x.example/ar/%D9%85%D8%A7%D9%84%D9%8A%D8%A9/"
        );
        assert_eq!(
            encoded("https://x.example/about/"),
            "https://x.example/about/"
        );
    }

    #[test]
    fn addresses_are_escaped() {
        let url = Url {
            loc: "https://www.example.com/a&b/".into(),
            lastmod: None,
            alternates: Vec::new(),
        };
        let files = files(BASE, &[url], Limits::PROTOCOL);
        assert!(files[0]
            .1
            .contains("<url><loc>https://www.example.com/a&amp;b/</loc></url>"));
    }

    #[test]
    fn robots_txt_names_sitemap_xml_at_any_size() {
        assert_eq!(
            robots(BASE),
            "User-agent: *\nAllow: /\n\nSitemap: https://www.example.com/sitemap.xml\n"
        );
    }

    #[test]
    fn a_translated_page_lists_every_translation_and_x_default() {
        let mut all = Languages::default().all;
        for code in ["de", "ar"] {
            let mut language = all[0].clone();
            language.code = crate::content::languages::LanguageCode::from_checked(code);
            all.push(language);
        }
        let languages = Languages::new(&all);
        let page = |route: &str, file: &str| {
            std::sync::Arc::new(Page {
                route: route.into(),
                lang: languages.of_file(file).unwrap().1,
                original: if route == "/about/" {
                    String::new()
                } else {
                    "/about/".into()
                },
                ..Page::default()
            })
        };
        let pages = [
            page("/about/", "about"),
            page("/ar/about/", "about.ar"),
            page("/de/about/", "about.de"),
        ];
        let sitemap = |pages: &[std::sync::Arc<Page>]| {
            sitemap(
                BASE,
                pages,
                &Default::default(),
                &TranslationIndex::new(pages),
                &languages,
            )
        };
        let xml = &sitemap(&pages)[0].1;
        assert!(xml.contains("xmlns:xhtml=\"http://www.w3.org/1999/xhtml\""));
        let de = xml
            .lines()
            .find(|l| l.contains("<loc>https://www.example.com/de/about/</loc>"))
            .unwrap();
        for (lang, href) in [
            ("en", "/about/"),
            ("de", "/de/about/"),
            ("ar", "/ar/about/"),
            ("x-default", "/about/"),
        ] {
            let link = format!("<xhtml:link rel=\"alternate\" hreflang=\"{lang}\" href=\"https://www.example.com{href}\"/>");
            assert!(de.contains(&link), "{link} in {de}");
        }
        // A page of one language names no alternates, and the sitemap no namespace.
        let alone = &sitemap(&pages[..1])[0].1;
        assert!(!alone.contains("xhtml"), "{alone}");
    }
}
