//! `site::build` over the plain fixture (no islands, no styles): what it writes,
//! for each host, and how it leaves a previous output when it fails. None of
//! these builds starts esbuild or Node.

use crate::common::{hash_tree, Site};
use site::Host;

#[test]
fn pages_are_written_from_blocks_and_markdown() {
    let site = Site::plain();
    let report = site.build_ok();
    assert_eq!(report.pages, 6);

    let home = site.read("dist/index.html");
    assert!(home.contains("<h1>Hello from the fixture</h1>"), "{home}");
    assert!(
        home.contains("<h3>First &amp; &lt;best&gt;</h3>"),
        "text is escaped"
    );
    assert!(
        home.contains("The <em>first</em> card."),
        "card text is Markdown"
    );
    assert!(home.contains(r#"<svg class="icon icon-star" width="20" height="20" aria-hidden="true" focusable="false" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><path"#), "{home}");
    assert!(
        !home.contains("<title>Star</title>"),
        "the icon's own title is dropped"
    );
    assert!(home.contains(r#"<img src="/images/square.svg" alt="A square" width="40" height="30" loading="lazy" decoding="async">"#));
    assert!(home.contains(r#"<span class="action inert">Coming soon</span>"#));
    assert!(
        !home.contains("<script"),
        "a page without islands has no script"
    );

    let about = site.read("dist/about/index.html");
    assert!(about.contains(r#"<h2 id="contact">Our Story</h2>"#));
    assert!(about.contains(r#"<time datetime="2026-03-01">March 1, 2026</time>"#));
    assert!(about.contains(r#"<link rel="canonical" href="https://fixture.example/about/">"#));
    assert!(site.read("dist/404.html").contains("<h1>Not found</h1>"));
    assert!(
        site.dist().join("images/square.svg").is_file(),
        "public/ is copied"
    );
    assert!(
        !site.path(".site/bundle").exists(),
        "a site without islands or styles needs no bundle"
    );
}

#[test]
fn addresses_end_in_a_slash_and_internal_links_are_written_so() {
    let site = Site::plain();
    site.build_ok();
    let home = site.read("dist/index.html");
    assert!(
        home.contains(r#"<a href="/" aria-current="page">Home</a><a href="/about/">About</a>"#),
        "{home}"
    );
    assert!(
        home.contains(r#"<a class="action" href="/about/">Read about us</a>"#),
        "an editor's `/about`"
    );
    let about = site.read("dist/about/index.html");
    assert!(
        about.contains(r#"<a href="/news/">links</a>"#),
        "a Markdown link"
    );
    assert!(
        about.contains(r#"<a href="/images/square.svg">files</a>"#),
        "files keep their name"
    );
    assert!(about.contains(r#"<a href="/about/" aria-current="page">About</a>"#));
    let first = site.read("dist/news/first/index.html");
    assert!(
        first.contains(r#"<a href="/news/" aria-current="page">News</a>"#),
        "a section's pages belong to it"
    );

    let sitemap = site.read("dist/sitemap.xml");
    assert!(sitemap.contains("<loc>https://fixture.example/</loc>"));
    assert!(
        sitemap.contains("<loc>https://fixture.example/about/</loc><lastmod>2026-03-01</lastmod>")
    );
    assert!(!sitemap.contains("404"));
    assert!(site
        .read("dist/robots.txt")
        .contains("Sitemap: https://fixture.example/sitemap.xml"));
}

#[test]
fn a_section_lists_its_pages_newest_first() {
    let site = Site::plain();
    site.build_ok();
    let news = site.read("dist/news/index.html");
    let second = news.find("Second news").unwrap();
    let first = news.find("First news").unwrap();
    assert!(second < first, "{news}");
    assert!(news.contains(r#"<a href="/news/second/">Second news</a> 2026-02-20"#));
}

#[test]
fn base_url_can_be_overridden() {
    let site = Site::plain();
    let mut options = site.options();
    options.base_url = Some("https://preview.example/".into());
    site.build_ok_with(&options);
    assert!(site
        .read("dist/sitemap.xml")
        .contains("<loc>https://preview.example/about/</loc>"));
    assert!(site
        .read("dist/index.html")
        .contains(r#"href="https://preview.example/""#));
}

#[test]
fn each_host_gets_its_own_configuration_and_no_other() {
    let site = Site::plain();
    let present = |site: &Site| -> Vec<&'static str> {
        ["_headers", "_nginx.conf", ".nojekyll"]
            .into_iter()
            .filter(|f| site.dist().join(f).is_file())
            .collect()
    };
    for (host, expected) in [
        (Host::CloudflarePages, vec!["_headers"]),
        (Host::Netlify, vec!["_headers"]),
        (Host::GithubPages, vec![".nojekyll"]),
        (Host::Nginx, vec!["_nginx.conf"]),
    ] {
        let mut options = site.options();
        options.host = Some(host);
        let report = site.build_ok_with(&options);
        assert_eq!(report.host, host);
        assert_eq!(present(&site), expected, "{host:?}");
        let home = site.read("dist/index.html");
        let meta =
            home.contains(r#"<meta charset="utf-8"><meta http-equiv="Content-Security-Policy""#);
        assert_eq!(
            meta,
            host == Host::GithubPages,
            "{host:?}: a policy in the page only where headers are impossible"
        );
    }
    let nginx = site.read("dist/_nginx.conf");
    assert!(nginx.contains("error_page 404 /404.html;"), "{nginx}");
    assert!(site
        .read("dist/index.html")
        .contains(r#"<link rel="canonical" href="https://fixture.example/">"#));
}

#[test]
fn the_host_is_a_setting_of_site_yaml() {
    let site = Site::plain();
    let config = site.read("content/site.yaml");
    site.write("content/site.yaml", &format!("{config}host: netlify\n"));
    assert_eq!(site.build_ok().host, Host::Netlify);
}

#[test]
fn an_editor_adds_a_landing_page_in_yaml_alone() {
    let site = Site::plain();
    site.write(
        "content/pages/campaign.yaml",
        "title: Cloud Week\ndescription: A week of briefings.\nblocks:\n  - type: hero\n    heading: Cloud Week 2027\n    text: Five days.\n    actions: [{ label: Register, href: /about }]\n  - type: card_grid\n    heading: Days\n    cards: [{ title: Monday }, { title: Tuesday }]\n",
    );
    site.build_ok();
    let html = site.read("dist/campaign/index.html");
    let hero = html.find("Cloud Week 2027").unwrap();
    let days = html.find("<h2>Days</h2>").unwrap();
    assert!(hero < days, "blocks keep their order");
    assert!(site.read("dist/sitemap.xml").contains("/campaign/</loc>"));
}

#[test]
fn raw_html_in_a_cards_text_reaches_the_page_without_what_runs() {
    let site = Site::plain();
    site.write(
        "content/pages/campaign.yaml",
        "title: Cloud Week\ndescription: A week.\nblocks:\n  - type: card_grid\n    heading: Days\n    cards:\n      - title: Monday\n        text: 'Talks <img src=x onerror=alert(1)> <abbr title=\"Artificial intelligence\">AI</abbr>'\n",
    );
    site.build_ok();
    let html = site.read("dist/campaign/index.html");
    assert!(!html.contains("onerror"), "{html}");
    assert!(html.contains(r#"Talks <img src="x">"#), "{html}");
    assert!(html.contains(r#"<abbr title="Artificial intelligence">AI</abbr>"#));
}

#[test]
fn two_builds_of_the_same_input_are_byte_identical() {
    let site = Site::plain();
    site.build_ok();
    let first = hash_tree(&site.dist());
    site.build_ok();
    assert_eq!(hash_tree(&site.dist()), first);
}

#[test]
fn a_failed_build_leaves_the_previous_output_byte_for_byte() {
    let site = Site::plain();
    site.build_ok();
    let before = hash_tree(&site.dist());
    site.edit(
        "content/pages/index.yaml",
        "type: card_grid",
        "type: carousel",
    );
    site.build_err();
    assert_eq!(hash_tree(&site.dist()), before);
    let leftovers: Vec<String> = std::fs::read_dir(&site.root)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().to_string())
        .filter(|n| n.contains(".tmp-"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn pages_over_budget_warn_and_fail_with_strict_budgets() {
    let site = Site::plain();
    let config = site.read("content/site.yaml");
    site.write(
        "content/site.yaml",
        &format!("{config}budgets:\n  default: {{ html_kb: 0.1 }}\n  routes:\n    /about: {{ html_kb: 50 }}\n"),
    );
    let report = site.build_ok();
    assert_eq!(report.weights.len(), 6);
    assert!(
        report
            .warnings
            .iter()
            .any(|w| w.message.starts_with("budgets: /: HTML is ")
                && w.message.ends_with("over its budget of 0.1 KB")),
        "{:?}",
        report.warnings
    );
    assert!(
        !report
            .warnings
            .iter()
            .any(|w| w.message.starts_with("budgets: /about/:")),
        "a route's own budget replaces the default (`/about` is `/about/`)"
    );

    let before = hash_tree(&site.dist());
    let mut strict = site.options();
    strict.strict_budgets = true;
    let err = site.build_err_with(&strict);
    assert!(
        err.contains("content/site.yaml: budgets: /: HTML is "),
        "{err}"
    );
    assert_eq!(
        hash_tree(&site.dist()),
        before,
        "a strict failure writes nothing"
    );
}

#[test]
fn a_production_build_names_only_the_storage_it_uploads_to() {
    let site = Site::plain();
    let config = site.read("content/site.yaml");
    site.write(
        "content/site.yaml",
        &(config.replace("base_url: https://fixture.example", "base_url: https://www.fixture-company.com")
            + "storage: { url: \"https://abcdefghijklmnop.supabase.co\", anon_key: sb_publishable_fixture }\n"),
    );
    let mut options = site.options();
    options.production = true;
    let report = site.build_ok_with(&options);
    assert!(report.production);
    let headers = site.read("dist/_headers");
    assert!(
        headers.contains("connect-src 'self' https://abcdefghijklmnop.supabase.co;"),
        "{headers}"
    );
    assert_eq!(headers.matches("supabase.co").count(), 1, "{headers}");
    assert!(
        headers.contains("  Strict-Transport-Security: max-age=63072000; includeSubDomains\n"),
        "the live site promises HTTPS: {headers}"
    );
    assert!(site
        .read("dist/sitemap.xml")
        .contains("<loc>https://www.fixture-company.com/about/</loc>"));
}

#[test]
fn a_development_build_without_storage_only_warns() {
    let site = Site::plain();
    let report = site.build_ok();
    assert!(
        !site
            .read("dist/_headers")
            .contains("Strict-Transport-Security"),
        "a preview may be served over HTTP"
    );
    assert!(
        report
            .warnings
            .iter()
            .any(|w| w.message.starts_with("storage.url is empty")),
        "{:?}",
        report.warnings
    );
}

#[test]
fn text_cut_by_a_comment_and_links_to_no_page_are_warnings_at_their_line() {
    let site = Site::plain();
    site.edit(
        "content/site.yaml",
        "tagline: A small site for tests.",
        "tagline: The small site #1 for tests.",
    );
    site.edit(
        "content/pages/index.yaml",
        "href: /about }",
        "href: /abuot }",
    );
    let report = site.build_ok();
    let said: Vec<String> = report.warnings.iter().map(|w| w.to_string()).collect();
    assert!(
        said.iter().any(|w| w.starts_with("content/site.yaml:4:")
            && w.contains("tagline: this `#` starts a comment")
            && w.contains("put the text in quotes if the # belongs to it")),
        "{said:#?}"
    );
    assert!(
        said.iter()
            .any(|w| w.starts_with("content/pages/index.yaml:8:")
                && w.contains("blocks[0].actions[0].href (in the 1st block, its 1st action): the link to `/abuot/` leads to no page")
                && w.contains("did you mean `/about/`?")),
        "{said:#?}"
    );
    assert!(report.warnings.iter().all(|w| w.warning));
}
