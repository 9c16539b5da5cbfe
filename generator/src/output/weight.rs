//! Page weight: what each page makes the browser load before it is interactive
//! (its HTML, its stylesheets, the fonts it preloads, and the JavaScript its
//! islands need to hydrate), measured after gzip (fonts as they are: woff2 is
//! compressed already), and checked against the budgets of `site.yaml`.

use std::collections::BTreeSet;
use std::io::Write;

use crate::bundle::Bundle;
use crate::content::site::Budgets;

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Weight {
    pub html: u64,
    /// The HTML weighs more than `html` says: its compression stopped there,
    /// well past every budget (a page of tens of megabytes).
    pub html_over: bool,
    pub css: u64,
    pub javascript: u64,
    pub font: u64,
}

pub fn gzip_len(bytes: &[u8]) -> u64 {
    gzip_len_up_to(bytes, u64::MAX).0
}

/// The size of `bytes` after gzip (its best level), counted as it is made and
/// never kept; past `cap` bytes the compression stops, and the size so far comes
/// with `true`: the exact size of a page far over its budget is not worth the
/// seconds its compression takes.
pub fn gzip_len_up_to(bytes: &[u8], cap: u64) -> (u64, bool) {
    /// Counts what is written; refuses past the cap.
    struct Count {
        bytes: u64,
        cap: u64,
    }
    impl Write for Count {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.bytes += buf.len() as u64;
            match self.bytes > self.cap {
                true => Err(std::io::ErrorKind::FileTooLarge.into()),
                false => Ok(buf.len()),
            }
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut w = flate2::write::GzEncoder::new(Count { bytes: 0, cap }, flate2::Compression::best());
    // In pieces, so that the cap is seen soon after it is passed.
    for piece in bytes.chunks(1 << 16) {
        if w.write_all(piece).is_err() {
            return (w.get_ref().bytes, true);
        }
    }
    match w.finish() {
        Ok(count) => (count.bytes, false),
        Err(_) => (cap, true),
    }
}

/// Gzip sizes of the bundle's scripts and stylesheets: computed once per part
/// (its files never change, their names are hashes) and in parallel.
pub struct Sizes<'a> {
    bundle: &'a Bundle,
}

impl<'a> Sizes<'a> {
    pub fn of(bundle: &'a Bundle) -> Sizes<'a> {
        Sizes { bundle }
    }

    fn get(&self, url: &str) -> u64 {
        let parts = self
            .bundle
            .styles
            .as_deref()
            .into_iter()
            .chain(self.bundle.islands.as_deref().map(|i| &i.browser));
        for part in parts {
            if !part.files.contains_key(url) {
                continue;
            }
            let sizes = part.gzip_sizes.get_or_init(|| {
                use rayon::prelude::*;
                part.files
                    .par_iter()
                    .filter_map(|(u, path)| {
                        let size = if u.ends_with(".js") || u.ends_with(".css") {
                            gzip_len(&std::fs::read(path).ok()?)
                        } else if u.ends_with(".woff2") {
                            std::fs::metadata(path).ok()?.len()
                        } else {
                            return None;
                        };
                        Some((u.clone(), size))
                    })
                    .collect()
            });
            return sizes.get(url).copied().unwrap_or(0);
        }
        0
    }
}

/// Weighs pages as they are rendered: the bundle, and its files' sizes found once.
pub struct Weigher<'a> {
    bundle: &'a Bundle,
    sizes: Sizes<'a>,
    /// Where a page's HTML stops being weighed exactly (`html_cap`).
    cap: u64,
}

impl<'a> Weigher<'a> {
    pub fn new(bundle: &'a Bundle, budgets: &Budgets) -> Weigher<'a> {
        Weigher {
            bundle,
            sizes: Sizes::of(bundle),
            cap: html_cap(budgets),
        }
    }

    pub fn weigh(&self, html: &str, hydrating: &[&str]) -> Weight {
        page_weight(html, hydrating, self.bundle, &self.sizes, self.cap)
    }
}

/// Four times the largest HTML budget (a megabyte where none is set): a page
/// whose HTML is still compressing past it is over every budget, and is
/// reported as weighing more than that.
pub fn html_cap(budgets: &Budgets) -> u64 {
    let largest = std::iter::once(&budgets.default)
        .chain(budgets.routes.values())
        .chain(budgets.layouts.values())
        .filter_map(|b| b.html_kb)
        .fold(None, |max: Option<f64>, kb| {
            Some(max.map_or(kb, |m| m.max(kb)))
        });
    match largest {
        Some(kb) => (kb * 1000.0 * 4.0) as u64,
        None => 1_000_000,
    }
}

/// The weight of one page: its HTML, the stylesheets it links, and the scripts
/// its hydrating islands need (the runtime, React, each island's chunks), but not
/// what islands import later on demand (the storage client, on submit).
pub fn page_weight(
    html: &str,
    hydrating: &[&str],
    bundle: &Bundle,
    sizes: &Sizes,
    cap: u64,
) -> Weight {
    let css = links(html, "rel=\"stylesheet\"")
        .iter()
        .map(|u| sizes.get(u))
        .sum();
    let font = links(html, "as=\"font\"")
        .iter()
        .map(|u| sizes.get(u))
        .sum();
    let mut roots: Vec<String> = hydrating
        .iter()
        .filter_map(|i| bundle.island(i))
        .map(|e| e.url)
        .collect();
    if let (false, Some(runtime)) = (roots.is_empty(), bundle.runtime()) {
        // The runtime imports React's part on demand, but always before hydrating.
        if let Some(chunk) = bundle.chunk(&runtime.url) {
            roots.extend(chunk.dynamic_imports.iter().cloned());
        }
        roots.push(runtime.url);
    }
    let mut scripts: BTreeSet<String> = roots.iter().cloned().collect();
    if let Some(islands) = &bundle.islands {
        let refs: Vec<&str> = roots.iter().map(String::as_str).collect();
        scripts.extend(islands.browser.static_closure(&refs));
    }
    let (html, html_over) = gzip_len_up_to(html.as_bytes(), cap);
    Weight {
        html,
        html_over,
        css,
        javascript: scripts.iter().map(|u| sizes.get(u)).sum(),
        font,
    }
}

/// The `href` of every `<link>` with `attribute` (`rel="stylesheet"`, `as="font"`).
fn links(html: &str, attribute: &str) -> Vec<String> {
    let mut out = Vec::new();
    for tag in html.split("<link ").skip(1) {
        let tag = tag.split('>').next().unwrap_or("");
        if tag.contains(attribute) {
            if let Some(href) = tag
                .split("href=\"")
                .nth(1)
                .and_then(|h| h.split('"').next())
            {
                out.push(href.to_string());
            }
        }
    }
    out
}

/// Every limit a route is over, as sentences.
pub fn over_budget(route: &str, layout: &str, weight: Weight, budgets: &Budgets) -> Vec<String> {
    let budget = budgets.for_route(route, layout);
    let kb = |b: u64| b as f64 / 1000.0;
    [
        ("JavaScript", weight.javascript, budget.javascript_kb),
        ("CSS", weight.css, budget.css_kb),
        ("HTML", weight.html, budget.html_kb),
        ("The font", weight.font, budget.font_kb),
    ]
    .into_iter()
    .filter_map(|(what, bytes, limit)| {
        let limit = limit?;
        (kb(bytes) > limit).then(|| {
            format!(
                "{route}: {what} is {}{:.1} KB{}, over its budget of {limit} KB",
                match what == "HTML" && weight.html_over {
                    true => "more than ",
                    false => "",
                },
                kb(bytes),
                if what == "The font" {
                    ""
                } else {
                    " after gzip"
                }
            )
        })
    })
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_is_weighed_exactly_up_to_its_cap_and_past_it_said_to_weigh_more() {
        let text: String = (0..200_000)
            .map(|i| format!("<p>{}</p>", i * 7919 % 100_003))
            .collect();
        let (exact, over) = gzip_len_up_to(text.as_bytes(), u64::MAX);
        assert!(!over);
        assert_eq!(exact, gzip_len(text.as_bytes()));
        let (capped, over) = gzip_len_up_to(text.as_bytes(), exact / 4);
        assert!(
            over && capped > exact / 4 && capped < exact,
            "{capped} of {exact}"
        );
        let w = Weight {
            html: capped,
            html_over: true,
            ..Weight::default()
        };
        let budgets = Budgets {
            default: crate::content::site::Budget {
                html_kb: Some(30.0),
                ..Default::default()
            },
            routes: Default::default(),
            layouts: Default::default(),
        };
        assert_eq!(html_cap(&budgets), 120_000);
        assert!(
            over_budget("/big/", "page", w, &budgets)[0].starts_with("/big/: HTML is more than ")
        );
    }
    use crate::content::site::Budget;

    #[test]
    fn finds_the_stylesheets_and_fonts_a_page_links() {
        let html = r#"<link rel="icon" href="/f.svg"><link rel="preload" href="/assets/media/f-Y.woff2" as="font" type="font/woff2" crossorigin><link rel="stylesheet" href="/assets/styles/main-X.css">"#;
        assert_eq!(
            links(html, r#"rel="stylesheet""#),
            ["/assets/styles/main-X.css"]
        );
        assert_eq!(links(html, r#"as="font""#), ["/assets/media/f-Y.woff2"]);
    }

    #[test]
    fn a_route_or_layout_budget_overrides_the_default_where_set() {
        let budgets = Budgets {
            default: Budget {
                javascript_kb: Some(75.0),
                css_kb: Some(20.0),
                html_kb: None,
                font_kb: Some(35.0),
            },
            routes: [(
                "/contact".to_string(),
                Budget {
                    javascript_kb: Some(95.0),
                    ..Budget::default()
                },
            )]
            .into(),
            layouts: [(
                "job".to_string(),
                Budget {
                    javascript_kb: Some(100.0),
                    ..Budget::default()
                },
            )]
            .into(),
        };
        let w = Weight {
            html: 900_000,
            html_over: false,
            css: 10_000,
            javascript: 90_000,
            font: 27_348,
        };
        // The key `/contact` names the page at `/contact/`.
        assert!(over_budget("/contact/", "page", w, &budgets).is_empty());
        let over = over_budget("/about/", "page", w, &budgets);
        assert_eq!(
            over,
            ["/about/: JavaScript is 90.0 KB after gzip, over its budget of 75 KB"]
        );
        // Every page of a layout, unless its route has its own.
        assert!(over_budget("/careers/a/", "job", w, &budgets).is_empty());
        let heavier = Weight {
            javascript: 101_000,
            ..w
        };
        assert_eq!(
            over_budget("/careers/a/", "job", heavier, &budgets).len(),
            1
        );
        assert_eq!(over_budget("/contact/", "job", heavier, &budgets).len(), 1);
    }
}
