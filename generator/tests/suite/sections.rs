//! A section exists in every language its list page is translated into: a
//! collection whose index has a German translation has German lists (all its
//! entries, each category's, page 2 and after) at `/de/…`, with German words,
//! its own feed, and previous and next links within German. The default
//! language's entries not translated into German are listed too, marked as
//! English, unless site.yaml says otherwise. Each language has its own 404
//! page, and each host's rules serve it under the language's folder.

use crate::common::Site;
use site::content::site::Host;

const ARTICLE: &str = r#"{% extends "base.html" %}
{% block content %}{% set around = article_neighbours(page.route) %}{% if around.older %}<a rel="prev" href="{{ around.older.route }}">{{ around.older.title }}</a>{% endif %}{% if around.newer %}<a rel="next" href="{{ around.newer.route }}">{{ around.newer.title }}</a>{% endif %}
{% set topic = listing(page.article.collection, "category", page.article.category) %}{% if topic %}<a class="topic" href="{{ topic.first }}">{{ page.article.category }}</a>{% endif %}{% endblock %}
"#;

const LISTING: &str = r#"{% extends "base.html" %}
{% block content %}{% set list = listing_at(page.route) %}<h1>{{ page.title }}</h1><p class="lead">{{ page.description }}</p><p class="home"><a href="{{ list.index }}">{{ list.name }}</a></p>
<ul class="listing">{% for item in list.items %}<li lang="{{ item.lang }}"><a href="{{ item.route }}">{{ item.title }}</a></li>{% endfor %}</ul>
{% for f in facets(list.collection, "category") %}<a class="facet" href="{{ f.url }}">{{ f.name }}</a>{% endfor %}
{% for link in list.links %}<a class="page-link" href="{{ link.url }}">{{ link.number }}</a>{% endfor %}{% endblock %}
"#;

fn article(title: &str, date: &str, category: &str, translation_of: Option<&str>) -> String {
    let of = translation_of.map_or(String::new(), |t| format!("translation_of: {t}\n"));
    format!(
        "---\ntitle: {title}\ndescription: About {title}.\ndate: {date}\nauthor: Ada Writer\ncategory: {category}\nimage: /images/square.svg\nalt: A square\n{of}---\nThe body of {title}.\n"
    )
}

/// The plain fixture in English, German and French, with `news` a collection
/// of three English articles (two per page), two of them in German, and a
/// German news page; French has an article but no news page.
fn site() -> Site {
    let site = Site::plain();
    let config = site.read("content/site.yaml");
    site.write(
        "content/site.yaml",
        &format!(
            "{config}collections: [{{ name: news, per_page: 2 }}]\nlanguages:\n  - {{ code: en, name: English, date_format: \"%B %-d, %Y\" }}\n  \
             - {{ code: de, name: Deutsch, date_format: \"%-d. %B %Y\" }}\n  \
             - {{ code: fr, name: Français, date_format: \"%-d %B %Y\" }}\n"
        ),
    );
    site.write(
        "templates/base.html",
        "<!doctype html>\n<html lang=\"{{ page.language.code }}\">\n<head>\n<title>{{ page.title }} | {{ site.name }}</title>\n\
         {% for alt in page.alternates %}<link rel=\"alternate\" hreflang=\"{{ alt.hreflang }}\" href=\"{{ alt.url }}\">\n{% endfor %}\
         </head>\n<body>\n<nav>{% for link in site.nav %}<a href=\"{{ localize(link.href) }}\">{{ label(link.label) }}</a>{% endfor %}</nav>\n\
         <ul class=\"switcher\">{% for l in page.switcher %}<li><a href=\"{{ l.href }}\" hreflang=\"{{ l.code }}\">{{ l.name }}</a></li>{% endfor %}</ul>\n\
         <main>{% block content %}{% endblock %}</main>\n</body>\n</html>\n",
    );
    site.write("templates/layouts/article.html", ARTICLE);
    site.write("templates/layouts/listing.html", LISTING);
    site.write(
        "content/pages/news.md",
        "---\ntitle: News\ndescription: All the news.\nlayout: listing\n---\n",
    );
    site.write(
        "content/pages/news.de.md",
        "---\ntitle: Neuigkeiten\ndescription: Alle Neuigkeiten.\nlayout: listing\n---\n",
    );
    site.write(
        "content/pages/news/first.md",
        &article("First", "2026-01-10", "Research", None),
    );
    site.write(
        "content/pages/news/second.md",
        &article("Second", "2026-02-20", "Research", None),
    );
    site.write(
        "content/pages/news/third.md",
        &article("Third", "2026-03-05", "People", None),
    );
    site.write(
        "content/pages/news/first.de.md",
        &article("Erste", "2026-01-10", "Forschung", None),
    );
    site.write(
        "content/pages/news/third.de.md",
        &article("Dritte", "2026-03-05", "Menschen", None),
    );
    site.write(
        "content/pages/news/premier.fr.md",
        &article("Premier", "2026-01-10", "Recherche", Some("/news/first/")),
    );
    site.write(
        "content/strings/en.yaml",
        "listing:\n  category_title: \"{category} · {name}\"\n  category: \"Every {name} article about {category}.\"\n  numbered: \"{title} · page {number} of {pages}\"\nlabels: {}\n",
    );
    site.write(
        "content/strings/de.yaml",
        "listing:\n  category_title: \"{category} · {name}\"\n  category: \"Alle Artikel aus {name} zum Thema {category}.\"\n  numbered: \"{title} · Seite {number} von {pages}\"\nlabels:\n  News: Neuigkeiten\n",
    );
    site
}

fn items(html: &str) -> Vec<String> {
    let list = html.split("<ul class=\"listing\">").nth(1).unwrap_or("");
    let list = list.split("</ul>").next().unwrap_or("");
    list.split("<li ")
        .skip(1)
        .map(|li| {
            let lang = li.split('"').nth(1).unwrap_or("");
            let href = li
                .split("href=\"")
                .nth(1)
                .unwrap_or("")
                .split('"')
                .next()
                .unwrap_or("");
            format!("{lang} {href}")
        })
        .collect()
}

fn alternates(html: &str) -> Vec<String> {
    html.match_indices("<link rel=\"alternate\" hreflang=\"")
        .map(|(i, _)| html[i..].split('>').next().unwrap_or("").to_string())
        .map(|l| {
            l.split("hreflang=\"")
                .nth(1)
                .unwrap_or("")
                .replace("\" href=\"https://fixture.example", " ")
                .replace('"', "")
        })
        .collect()
}

#[test]
fn a_translated_list_page_lists_its_language_s_entries_and_the_untranslated_ones_marked() {
    let site = site();
    site.build_ok();
    let de = site.read("dist/de/news/index.html");
    // Newest first: German's own, and English's Second, which has no German
    // translation, marked as English; two a page.
    assert_eq!(items(&de), ["de /de/news/third/", "en /news/second/"]);
    let page2 = site.read("dist/de/news/page/2/index.html");
    assert_eq!(items(&page2), ["de /de/news/first/"]);
    assert!(
        page2.contains("<title>Neuigkeiten · Seite 2 von 2 | Fixture Co</title>"),
        "{page2}"
    );
    assert!(
        page2.contains("<a href=\"/de/news/\">Neuigkeiten</a>"),
        "{page2}"
    );
    // The English list is as it was: English entries alone.
    let en = site.read("dist/news/index.html");
    assert_eq!(items(&en), ["en /news/third/", "en /news/second/"]);
    // French has no news page: no French lists, and its article is reached
    // from its original's switcher.
    assert!(!site.path("dist/fr/news/index.html").exists());
    assert!(!site.path("dist/fr/news/feed.xml").exists());
}

#[test]
fn list_pages_name_their_translations() {
    let site = site();
    site.build_ok();
    let expected = ["en /news/", "de /de/news/"];
    assert_eq!(alternates(&site.read("dist/news/index.html")), expected);
    assert_eq!(alternates(&site.read("dist/de/news/index.html")), expected);
    // Page 2 translates page 2; a category the category its entries' originals have.
    assert_eq!(
        alternates(&site.read("dist/de/news/page/2/index.html")),
        ["en /news/page/2/", "de /de/news/page/2/"]
    );
    assert_eq!(
        alternates(&site.read("dist/de/news/category/forschung/index.html")),
        [
            "en /news/category/research/",
            "de /de/news/category/forschung/"
        ]
    );
    let sitemap = site.read("dist/sitemap.xml");
    assert!(
        sitemap.contains("<loc>https://fixture.example/de/news/</loc><lastmod>2026-03-05</lastmod><xhtml:link rel=\"alternate\" hreflang=\"de\" href=\"https://fixture.example/de/news/\"/>"),
        "{sitemap}"
    );
}

#[test]
fn a_category_of_a_language_is_as_its_entries_write_it() {
    let site = site();
    site.build_ok();
    let de = site.read("dist/de/news/index.html");
    // German's own categories, and the English category of the entry it borrows.
    let facets: Vec<&str> = de
        .match_indices("class=\"facet\" href=\"")
        .map(|(i, _)| de[i + 20..].split('"').next().unwrap_or(""))
        .collect();
    assert_eq!(
        facets,
        [
            "/de/news/category/forschung/",
            "/de/news/category/menschen/",
            "/de/news/category/research/"
        ]
    );
    let forschung = site.read("dist/de/news/category/forschung/index.html");
    assert_eq!(items(&forschung), ["de /de/news/first/"]);
    assert!(
        forschung.contains("<title>Forschung · Neuigkeiten | Fixture Co</title>"),
        "{forschung}"
    );
    assert!(
        forschung.contains("Alle Artikel aus Neuigkeiten zum Thema Forschung."),
        "{forschung}"
    );
    // A German article's category leads to the German list of it.
    let first = site.read("dist/de/news/first/index.html");
    assert!(
        first.contains("<a class=\"topic\" href=\"/de/news/category/forschung/\">"),
        "{first}"
    );
    // French has no lists: its article's category has no page.
    let premier = site.read("dist/fr/news/premier/index.html");
    assert!(!premier.contains("class=\"topic\""), "{premier}");
}

#[test]
fn previous_and_next_stay_within_one_language() {
    let site = site();
    site.build_ok();
    // German: Dritte (newest), Erste; English's Second between them is not German.
    let third = site.read("dist/de/news/third/index.html");
    assert!(
        third.contains("<a rel=\"prev\" href=\"/de/news/first/\">Erste</a>"),
        "{third}"
    );
    assert!(!third.contains("rel=\"next\""), "{third}");
    let first = site.read("dist/de/news/first/index.html");
    assert!(
        first.contains("<a rel=\"next\" href=\"/de/news/third/\">Dritte</a>"),
        "{first}"
    );
    // English's Second, listed on German pages too, keeps its English neighbours.
    let second = site.read("dist/news/second/index.html");
    assert!(
        second.contains("<a rel=\"prev\" href=\"/news/first/\">First</a>"),
        "{second}"
    );
    assert!(
        second.contains("<a rel=\"next\" href=\"/news/third/\">Third</a>"),
        "{second}"
    );
}

#[test]
fn a_language_has_its_own_feed_with_the_entries_it_lists() {
    let site = site();
    site.build_ok();
    let xml = site.read("dist/de/news/feed.xml");
    let feed = feed_rs::parser::parse(xml.as_bytes()).expect("a valid Atom feed");
    assert_eq!(
        feed.title.map(|t| t.content),
        Some("Neuigkeiten — Fixture Co".into())
    );
    let links: Vec<String> = feed
        .entries
        .iter()
        .map(|e| e.links[0].href.clone())
        .collect();
    assert_eq!(
        links,
        [
            "https://fixture.example/de/news/third/",
            "https://fixture.example/news/second/",
            "https://fixture.example/de/news/first/"
        ]
    );
    assert!(xml.contains("xml:lang=\"de\""), "{xml}");
    // The English entry says it is English.
    assert!(
        xml.contains("<title xml:lang=\"en\">Second</title>"),
        "{xml}"
    );
    assert!(site
        .path("dist/de/news/category/forschung/feed.xml")
        .exists());
}

#[test]
fn with_untranslated_entries_off_a_language_lists_only_its_own() {
    let site = site();
    let config = site.read("content/site.yaml");
    site.write(
        "content/site.yaml",
        &format!("{config}translations: {{ untranslated_entries: false }}\n"),
    );
    site.build_ok();
    let de = site.read("dist/de/news/index.html");
    assert_eq!(items(&de), ["de /de/news/third/", "de /de/news/first/"]);
    assert!(!site.path("dist/de/news/page/2/index.html").exists());
    assert!(!site
        .path("dist/de/news/category/research/index.html")
        .exists());
}

#[test]
fn navigation_follows_a_section_into_the_page_s_language() {
    let site = site();
    site.build_ok();
    let de = site.read("dist/de/news/first/index.html");
    assert!(de.contains("<a href=\"/de/news/\">Neuigkeiten</a>"), "{de}");
    // French has no news page: its navigation leads to the English one.
    let fr = site.read("dist/fr/news/premier/index.html");
    assert!(fr.contains("<a href=\"/news/\">News</a>"), "{fr}");
}

#[test]
fn each_language_has_its_404_page_which_links_no_404_page() {
    let site = site();
    site.build_ok();
    for (page, lang) in [
        ("dist/404.html", "en"),
        ("dist/de/404.html", "de"),
        ("dist/fr/404.html", "fr"),
    ] {
        let html = site.read(page);
        assert!(html.contains(&format!("<html lang=\"{lang}\">")), "{html}");
        assert!(
            !html.contains("404.html"),
            "{page} links a 404 page: {html}"
        );
    }
    // Its switcher leads to each language's home.
    let de = site.read("dist/de/404.html");
    assert!(de.contains("<a href=\"/\" hreflang=\"en\">"), "{de}");
    assert!(
        de.contains("<a href=\"/de/\" hreflang=\"de\">")
            || de.contains("<a href=\"/\" hreflang=\"de\">"),
        "{de}"
    );
}

#[test]
fn each_host_serves_a_language_s_404_page_under_its_folder() {
    let site = site();
    let mut options = site.options();
    options.host = Some(Host::Netlify);
    site.build_ok_with(&options);
    let redirects = site.read("dist/_redirects");
    assert!(
        redirects.contains("/de/* /de/404.html 404\n"),
        "{redirects}"
    );
    assert!(
        redirects.contains("/fr/* /fr/404.html 404\n"),
        "{redirects}"
    );
    options.host = Some(Host::Nginx);
    site.build_ok_with(&options);
    let conf = site.read("dist/_nginx.conf");
    assert!(
        conf.contains("location /de/ {\n    error_page 404 /de/404.html;\n"),
        "{conf}"
    );
    assert!(conf.contains("error_page 404 /404.html;\n"), "{conf}");
    // Cloudflare Pages finds the nearest 404.html by itself: no rule for it.
    options.host = Some(Host::CloudflarePages);
    site.build_ok_with(&options);
    assert!(!site.path("dist/_redirects").exists());
    assert!(site.path("dist/de/404.html").exists());
}
