//! What editors of a growing site publish with: drafts and pages dated ahead are
//! held back from `site build` (and shown by `--drafts`), listings are cut into
//! pages with a page per category and its feed, and old addresses redirect.

use crate::common::Site;

const ARTICLE_LAYOUT: &str = r#"{% extends "base.html" %}
{% block content %}{% if page.unpublished %}<p class="badge">{{ page.unpublished.kind }}</p>{% endif %}{{ page.content|safe }}{% endblock %}
"#;

fn article(title: &str, date: &str, category: &str, more: &str) -> String {
    format!(
        "---\ntitle: {title}\ndescription: About {title}.\ndate: {date}\nauthor: Ada Writer\ncategory: {category}\nimage: /images/square.svg\nalt: A square\n{more}---\nThe body of {title}.\n"
    )
}

/// The plain fixture with `news/` as a collection, `per_page` items a page.
fn news_site(per_page: usize) -> Site {
    let site = Site::plain();
    site.remove("content/pages/news/first.md");
    site.remove("content/pages/news/second.md");
    let config = site.read("content/site.yaml");
    site.write(
        "content/site.yaml",
        &format!("{config}collections: [{{ name: news, per_page: {per_page} }}]\ntimezone: Europe/London\n"),
    );
    site.write("templates/layouts/article.html", ARTICLE_LAYOUT);
    site
}

/// The news collection with one article out and one draft.
fn news_site_with_a_draft() -> Site {
    let site = news_site(12);
    site.write(
        "content/pages/news/out.md",
        &article("Out", "2026-01-10", "Research", ""),
    );
    site.write(
        "content/pages/news/draft.md",
        &article("Draft", "2026-01-11", "Research", "draft: true\n"),
    );
    site
}

#[test]
fn drafts_and_articles_dated_ahead_are_held_back_until_their_day() {
    let site = news_site_with_a_draft();
    site.write(
        "content/pages/news/ahead.md",
        &article("Ahead", "2099-01-01", "Research", ""),
    );
    // A page that links to the draft: the link leads nowhere in this build.
    site.write(
        "content/pages/about.md",
        "---\ntitle: About\ndescription: About the fixture.\n---\nSee [the draft](/news/draft/).\n",
    );
    let report = site.build_ok();
    assert!(site.path("dist/news/out/index.html").is_file());
    assert!(!site.path("dist/news/draft/index.html").exists());
    assert!(!site.path("dist/news/ahead/index.html").exists());
    let held: Vec<(String, String)> = report
        .held
        .iter()
        .map(|h| (h.route.clone(), h.why.describe()))
        .collect();
    assert_eq!(
        held,
        [
            (
                "/news/ahead/".to_string(),
                "scheduled for 2099-01-01".to_string()
            ),
            ("/news/draft/".to_string(), "a draft".to_string()),
        ]
    );
    for file in [
        "dist/sitemap.xml",
        "dist/news/feed.xml",
        "dist/news/index.html",
    ] {
        let text = site.read(file);
        assert!(
            !text.contains("/news/draft/") && !text.contains("/news/ahead/"),
            "{file}: {text}"
        );
    }
    let warnings: Vec<String> = report.warnings.iter().map(|w| w.to_string()).collect();
    assert!(
        warnings.iter().any(|w| w.contains("content/pages/about.md")
            && w.contains("the link to `/news/draft/` leads to a page that is a draft")),
        "{warnings:?}"
    );
}

#[test]
fn a_drafts_build_shows_them_with_their_badge_but_never_to_search_engines() {
    let site = news_site_with_a_draft();
    let mut options = site.options();
    options.drafts = true;
    let report = site.build_ok_with(&options);
    assert_eq!(report.held.len(), 1);
    assert!(site
        .read("dist/news/draft/index.html")
        .contains(r#"<p class="badge">draft</p>"#));
    // Listed where it will be, but in no sitemap and no feed.
    assert!(site.read("dist/news/index.html").contains("/news/draft/"));
    assert!(!site.read("dist/sitemap.xml").contains("/news/draft/"));
    assert!(!site.read("dist/news/feed.xml").contains("/news/draft/"));
}

#[test]
fn a_listing_is_cut_into_pages_with_a_page_and_a_feed_per_category() {
    let site = news_site(2);
    for (i, category) in ["Research", "Research", "Cloud & AI", "Research", "Research"]
        .iter()
        .enumerate()
    {
        site.write(
            &format!("content/pages/news/a{i}.md"),
            &article(
                &format!("Item {i}"),
                &format!("2026-01-{:02}", 10 + i),
                category,
                "",
            ),
        );
    }
    // The collection's own index shows the first page of its listing.
    site.write(
        "content/pages/news.md",
        "---\ntitle: News\ndescription: Every news item.\nlayout: listing\n---\n",
    );
    site.build_ok();
    // Newest first, two a page.
    let index = site.read("dist/news/index.html");
    assert!(
        index.contains("/news/a4/") && index.contains("/news/a3/") && !index.contains("/news/a2/"),
        "{index}"
    );
    let second = site.read("dist/news/page/2/index.html");
    assert!(
        second.contains("/news/a2/") && second.contains("/news/a1/"),
        "{second}"
    );
    assert!(
        second.contains(r#"href="/news/page/2/" aria-current="page""#),
        "{second}"
    );
    assert!(site
        .read("dist/news/page/3/index.html")
        .contains("/news/a0/"));
    assert!(!site.path("dist/news/page/4").exists());
    // Each category's page, and its own feed.
    let research = site.read("dist/news/category/research/index.html");
    assert!(
        research.contains("/news/a4/") && !research.contains("/news/a2/"),
        "{research}"
    );
    assert!(site
        .path("dist/news/category/research/page/2/index.html")
        .is_file());
    let cloud = site.read("dist/news/category/cloud-ai/feed.xml");
    assert!(
        cloud.contains("Item 2") && !cloud.contains("Item 4"),
        "{cloud}"
    );
    let sitemap = site.read("dist/sitemap.xml");
    for route in [
        "/news/page/2/",
        "/news/category/research/",
        "/news/category/cloud-ai/",
    ] {
        assert!(
            sitemap.contains(&format!("https://fixture.example{route}")),
            "{route}"
        );
    }
}

#[test]
fn old_addresses_redirect_in_the_hosts_own_form() {
    let site = news_site(12);
    site.write(
        "content/pages/privacy.md",
        "---\ntitle: Privacy\ndescription: How we handle data.\naliases: [/old-privacy/]\n---\nOur policy.\n",
    );
    let config = site.read("content/site.yaml");
    site.write(
        "content/site.yaml",
        &format!("{config}redirects: [{{ from: /brochure/, to: \"https://example.org/brochure.pdf\", status: 302 }}]\n"),
    );
    use site::Host;
    // The build for `host`, and what it wrote at `file`.
    let built_for = |host: Host, file: &str| {
        let mut options = site.options();
        options.host = Some(host);
        site.build_ok_with(&options);
        site.read(file)
    };
    let redirects = built_for(Host::Netlify, "dist/_redirects");
    assert!(
        redirects.contains("/old-privacy /privacy/ 301\n/old-privacy/ /privacy/ 301\n"),
        "{redirects}"
    );
    assert!(
        redirects.contains("/brochure/ https://example.org/brochure.pdf 302\n"),
        "{redirects}"
    );

    let conf = built_for(Host::Nginx, "dist/_nginx.conf");
    assert!(
        conf.contains("location = /old-privacy/ {\n    return 301 /privacy/;\n}"),
        "{conf}"
    );

    let page = built_for(Host::GithubPages, "dist/old-privacy/index.html");
    assert!(
        page.contains(
            r#"<meta http-equiv="refresh" content="0; url=https://fixture.example/privacy/">"#
        ),
        "{page}"
    );
    assert!(!site.path("dist/_redirects").exists());
}
