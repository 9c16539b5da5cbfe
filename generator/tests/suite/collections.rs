//! A folder of Markdown pages named in `collections:` is a collection: its pages
//! are articles with a byline, listed newest first, linked to each other, in an
//! Atom feed and with their dates in the sitemap. Adding an article is adding one
//! file.

use crate::common::Site;

const LAYOUT: &str = r#"{% extends "base.html" %}
{% block content %}<p class="byline">{{ page.article.author }} · {{ page.article.category }} · {{ page.article.reading_minutes }} min</p>{{ page.content|safe }}
{% set around = article_neighbours(page.route) %}{% if around.older %}<a rel="prev" href="{{ around.older.route }}">{{ around.older.title }}</a>{% endif %}{% if around.newer %}<a rel="next" href="{{ around.newer.route }}">{{ around.newer.title }}</a>{% endif %}{% endblock %}
"#;

fn article(title: &str, date: &str, featured: bool) -> String {
    format!(
        "---\ntitle: {title}\ndescription: About {title}.\ndate: {date}\nauthor: Ada Writer\ncategory: Research\nimage: /images/square.svg\nalt: A square\nfeatured: {featured}\n---\nThe body of {title}, with [a link](/about).\n"
    )
}

/// The plain fixture with `news/` as a collection of two articles.
fn news_site() -> Site {
    let site = Site::plain();
    let config = site.read("content/site.yaml");
    site.write(
        "content/site.yaml",
        &format!("{config}collections: [news]\n"),
    );
    site.write("templates/layouts/article.html", LAYOUT);
    site.write(
        "content/pages/news/first.md",
        &article("First news", "2026-01-10", false),
    );
    site.write(
        "content/pages/news/second.md",
        &article("Second news", "2026-02-20", false),
    );
    site
}

#[test]
fn articles_link_to_their_neighbours_and_show_their_byline() {
    let site = news_site();
    site.build_ok();
    let first = site.read("dist/news/first/index.html");
    assert!(first.contains("Ada Writer · Research · 1 min"), "{first}");
    assert!(
        first.contains(r#"<a rel="next" href="/news/second/">Second news</a>"#),
        "{first}"
    );
    assert!(
        !first.contains(r#"rel="prev""#),
        "the oldest has no previous article"
    );
    let second = site.read("dist/news/second/index.html");
    assert!(
        second.contains(r#"<a rel="prev" href="/news/first/">First news</a>"#),
        "{second}"
    );
}

#[test]
fn the_feed_lists_the_articles_newest_first() {
    let site = news_site();
    site.build_ok();
    let xml = site.read("dist/news/feed.xml");
    let feed = feed_rs::parser::parse(xml.as_bytes()).expect("a valid Atom feed");
    assert_eq!(
        feed.title.map(|t| t.content),
        Some("News — Fixture Co".into())
    );
    let entries: Vec<(String, String, String)> = feed
        .entries
        .iter()
        .map(|e| {
            (
                e.title
                    .as_ref()
                    .map(|t| t.content.clone())
                    .unwrap_or_default(),
                e.links[0].href.clone(),
                e.published
                    .map(|d| d.date_naive().to_string())
                    .unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(
        entries,
        [
            (
                "Second news".into(),
                "https://fixture.example/news/second/".into(),
                "2026-02-20".into()
            ),
            (
                "First news".into(),
                "https://fixture.example/news/first/".into(),
                "2026-01-10".into()
            ),
        ]
    );
    assert_eq!(
        feed.entries[0].authors[0].name.as_deref(),
        Some("Ada Writer")
    );
    assert_eq!(feed.entries[0].categories[0].term, "Research");
    assert!(feed.entries[0]
        .summary
        .as_ref()
        .is_some_and(|s| s.content == "About Second news."));
}

#[test]
fn the_sitemap_dates_articles_and_their_listing_by_the_newest() {
    let site = news_site();
    site.build_ok();
    let sitemap = site.read("dist/sitemap.xml");
    assert!(
        sitemap.contains("<loc>https://fixture.example/news/</loc><lastmod>2026-02-20</lastmod>"),
        "{sitemap}"
    );
    assert!(
        sitemap.contains(
            "<loc>https://fixture.example/news/first/</loc><lastmod>2026-01-10</lastmod>"
        ),
        "{sitemap}"
    );
}

#[test]
fn adding_an_article_is_adding_one_file() {
    let site = news_site();
    site.build_ok();
    site.write(
        "content/pages/news/third.md",
        &article("Third news", "2026-03-05", true),
    );
    site.build_ok();
    let feed = site.read("dist/news/feed.xml");
    assert!(feed.find("Third news") < feed.find("Second news"), "{feed}");
    let second = site.read("dist/news/second/index.html");
    assert!(
        second.contains(r#"<a rel="next" href="/news/third/">Third news</a>"#),
        "{second}"
    );
    assert!(site.read("dist/news/index.html").contains("/news/third/"));
}

#[test]
fn an_article_needs_its_byline_and_picture() {
    let site = news_site();
    site.write(
        "content/pages/news/third.md",
        "---\ntitle: Third\ndescription: D.\ndate: 2026-03-05\n---\nBody.\n",
    );
    let err = site.build_err();
    for field in ["author", "category", "image", "alt"] {
        assert!(
            err.contains(&format!("this article has no `{field}`")),
            "{field}: {err}"
        );
    }
}

#[test]
fn a_feed_holds_the_fifty_newest_articles() {
    let site = news_site();
    for day in 1..=60 {
        site.write(
            &format!("content/pages/news/day-{day:02}.md"),
            &article(
                &format!("Day {day}"),
                &format!("2026-03-{:02}", day.min(28)),
                false,
            ),
        );
    }
    site.build_ok();
    let feed = site.read("dist/news/feed.xml");
    assert_eq!(feed.matches("<entry>").count(), 50, "{feed}");
    assert!(!feed.contains("First news"), "the oldest are left out");
}
