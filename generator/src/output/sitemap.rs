//! `sitemap.xml` and `robots.txt`, from the routes and the base URL.

use std::collections::HashMap;

use crate::content::values::Date;
use crate::content::Page;
use crate::render::canonical_url;

pub fn sitemap(base_url: &str, pages: &[std::sync::Arc<Page>]) -> String {
    // A collection's listing changes with its newest article: each collection's
    // newest date, found in one pass.
    let mut newest: HashMap<&str, &Date> = HashMap::new();
    for page in pages.iter().filter(|p| p.unpublished.is_none()) {
        if let (Some(article), Some(date)) = (&page.article, &page.date) {
            let entry = newest.entry(article.collection.as_str()).or_insert(date);
            *entry = (*entry).max(date);
        }
    }
    let mut xml = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n",
    );
    // A page shown only as a preview (a draft, scheduled, closed) is no address
    // for search engines.
    for page in pages.iter().filter(|p| p.unpublished.is_none()) {
        xml.push_str("  <url><loc>");
        xml.push_str(&escape(&canonical_url(base_url, &page.route)));
        xml.push_str("</loc>");
        let collection = page.route.trim_matches('/');
        if let Some(date) = page.date.as_ref().or(newest.get(collection).copied()) {
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
