//! `sitemap.xml` and `robots.txt`, from the routes and the base URL.

use crate::content::Page;
use crate::render::canonical_url;

pub fn sitemap(base_url: &str, pages: &[std::sync::Arc<Page>]) -> String {
    let mut xml = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n",
    );
    for page in pages {
        xml.push_str("  <url><loc>");
        xml.push_str(&escape(&canonical_url(base_url, &page.route)));
        xml.push_str("</loc>");
        // A collection's listing changes with its newest article.
        let newest = pages
            .iter()
            .filter(|p| {
                p.article
                    .as_ref()
                    .is_some_and(|a| format!("/{}/", a.collection) == page.route)
            })
            .filter_map(|p| p.date.as_ref())
            .max();
        if let Some(date) = page.date.as_ref().or(newest) {
            xml.push_str(&format!("<lastmod>{}</lastmod>", date.as_str()));
        }
        xml.push_str("</url>\n");
    }
    xml.push_str("</urlset>\n");
    xml
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
