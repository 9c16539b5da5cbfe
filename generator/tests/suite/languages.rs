//! A site in several languages: a language is one line of `languages:`, a
//! strings file and the translated pages beside the originals. Each page gets its
//! language, its translations (hreflang, reciprocal, with x-default), the
//! switcher's links, dates in its language and its own words; a missing word
//! falls back to the default language with a warning.

use crate::common::Site;

/// The plain fixture with English, German and, as an editor would add it, French.
fn site() -> Site {
    let site = Site::plain();
    site.edit(
        "content/site.yaml",
        "description: The fixture site.\n",
        "description: The fixture site.\nlanguages:\n  - { code: en, name: English, date_format: \"%B %-d, %Y\" }\n  \
         - { code: de, name: Deutsch, date_format: \"%-d. %B %Y\" }\n  \
         - { code: fr, name: Français, date_format: \"%-d %B %Y\" }\n",
    );
    site.write(
        "templates/base.html",
        "<!doctype html>\n<html lang=\"{{ page.language.code }}\" dir=\"{{ page.language.dir }}\">\n<head>\n\
         <title>{{ page.title }} | {{ site.name }}</title>\n<meta name=\"description\" content=\"{{ page.description }}\">\n\
         <link rel=\"canonical\" href=\"{{ page.url }}\">\n\
         {% for alt in page.alternates %}<link rel=\"alternate\" hreflang=\"{{ alt.hreflang }}\" href=\"{{ alt.url }}\">\n{% endfor %}\
         {% if page.x_default %}<link rel=\"alternate\" hreflang=\"x-default\" href=\"{{ page.x_default }}\">\n{% endif %}\
         </head>\n<body>\n<nav>{% for link in site.nav %}<a href=\"{{ localize(link.href) }}\">{{ label(link.label) }}</a>{% endfor %}</nav>\n\
         <ul class=\"switcher\">{% for l in page.switcher %}<li><a href=\"{{ l.href }}\" hreflang=\"{{ l.code }}\" lang=\"{{ l.code }}\">{{ l.name }}</a></li>{% endfor %}</ul>\n\
         <p class=\"words\">{{ t(\"greeting\", name=site.name) }}</p>\n\
         <main>{% block content %}{% endblock %}</main>\n</body>\n</html>\n",
    );
    site.write(
        "content/strings/en.yaml",
        "greeting: \"Welcome to {name}\"\nlabels: {}\n",
    );
    site.write(
        "content/strings/de.yaml",
        "greeting: \"Willkommen bei {name}\"\nlabels:\n  About: Über uns\n",
    );
    site.write(
        "content/pages/about.de.md",
        "---\ntitle: Über uns\ndescription: Über die Firma.\ndate: 2026-03-01\n---\nWir sind die Firma.\n",
    );
    site.write(
        "content/pages/a-propos.fr.md",
        "---\ntitle: À propos\ndescription: La société.\ndate: 2026-03-01\ntranslation_of: /about/\n---\nNous sommes la société.\n",
    );
    site
}

fn links(html: &str, start: &str) -> Vec<String> {
    html.match_indices(start)
        .map(|(i, _)| html[i..].split('>').next().unwrap_or("").to_string())
        .collect()
}

#[test]
fn a_translation_is_served_under_its_language_and_names_every_other() {
    let site = site();
    let report = site.build_ok();
    let about = site.read("dist/about/index.html");
    let de = site.read("dist/de/about/index.html");
    let fr = site.read("dist/fr/a-propos/index.html");
    assert!(de.contains("<html lang=\"de\" dir=\"ltr\">"), "{de}");
    assert!(fr.contains("<html lang=\"fr\""), "{fr}");
    // Every version names all three and the English one as x-default.
    for html in [&about, &de, &fr] {
        let alternates = links(html, "<link rel=\"alternate\"");
        assert_eq!(
            alternates,
            [
                "<link rel=\"alternate\" hreflang=\"en\" href=\"https://fixture.example/about/\"",
                "<link rel=\"alternate\" hreflang=\"de\" href=\"https://fixture.example/de/about/\"",
                "<link rel=\"alternate\" hreflang=\"fr\" href=\"https://fixture.example/fr/a-propos/\"",
                "<link rel=\"alternate\" hreflang=\"x-default\" href=\"https://fixture.example/about/\"",
            ],
        );
    }
    // The date in German, with German month names.
    assert!(de.contains("1. März 2026"), "{de}");
    assert!(fr.contains("1 mars 2026"), "{fr}");
    // Words: German's own; French has no strings file, so English's (a warning).
    assert!(de.contains("Willkommen bei Fixture Co"), "{de}");
    assert!(fr.contains("Welcome to Fixture Co"), "{fr}");
    assert!(
        report
            .warnings
            .iter()
            .any(|w| w.file == "content/strings/fr.yaml"
                && w.message.starts_with("the file is missing")),
        "{:?}",
        report.warnings
    );
    // The navigation leads to the German page where there is one, in German words.
    assert!(de.contains("<a href=\"/de/about/\">Über uns</a>"), "{de}");
    assert!(de.contains("<a href=\"/news/\">News</a>"), "{de}");
    // The switcher: this page in each language; a page in English alone leads
    // to each language's home (English's, for languages without their own).
    let switcher = de.split("<ul class=\"switcher\">").nth(1).unwrap_or("");
    let switcher = links(switcher.split("</ul>").next().unwrap_or(""), "<a href=");
    assert_eq!(
        switcher,
        [
            "<a href=\"/about/\" hreflang=\"en\" lang=\"en\"",
            "<a href=\"/de/about/\" hreflang=\"de\" lang=\"de\"",
            "<a href=\"/fr/a-propos/\" hreflang=\"fr\" lang=\"fr\"",
        ]
    );
    let news = site.read("dist/news/index.html");
    assert!(news.contains("<a href=\"/\" hreflang=\"de\""), "{news}");
    assert!(
        !news.contains("hreflang=\"x-default\""),
        "a page without translations names none"
    );
    // The sitemap names each page's translations.
    let sitemap = site.read("dist/sitemap.xml");
    assert!(sitemap.contains("<xhtml:link rel=\"alternate\" hreflang=\"fr\" href=\"https://fixture.example/fr/a-propos/\"/>"), "{sitemap}");
}

#[test]
fn a_key_a_language_lacks_is_listed_with_its_file() {
    let site = site();
    site.write(
        "content/strings/en.yaml",
        "greeting: \"Welcome to {name}\"\nfarewell: Goodbye\nlabels: {}\n",
    );
    site.write(
        "content/strings/fr.yaml",
        "greeting: \"Bienvenue chez {name}\"\ngretting: typo\n",
    );
    let report = site.build_ok();
    let said: Vec<String> = report
        .warnings
        .iter()
        .map(|w| format!("{}: {}", w.file, w.message))
        .collect();
    assert!(
        said.iter()
            .any(|w| w.starts_with("content/strings/de.yaml: no farewell")),
        "{said:#?}"
    );
    assert!(
        said.iter().any(|w| w.contains("content/strings/fr.yaml")
            && w.contains("gretting")
            && w.contains("did you mean `greeting`?")),
        "{said:#?}"
    );
    let coverage = site::check::coverage(&site.root).unwrap();
    let fr = coverage.iter().find(|c| c.code == "fr").unwrap();
    assert_eq!(fr.strings_file, "content/strings/fr.yaml");
    assert!(
        fr.missing_strings.contains(&"farewell".to_string()),
        "{fr:?}"
    );
    assert!(
        fr.missing_strings.contains(&"labels.About".to_string()),
        "{fr:?}"
    );
    assert_eq!(fr.translated, 1);
    assert!(fr.missing.contains(&"/news/".to_string()), "{fr:?}");
}
