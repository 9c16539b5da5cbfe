//! `site build` over fixture sites: output, determinism, caching and memoisation.

mod common;

use common::{hash_tree, Site};

#[test]
fn builds_pages_from_blocks_and_markdown_with_server_rendered_islands() {
    let site = Site::new("basic");
    let stdout = site.build_ok(&[]);
    assert!(stdout.contains("Built 2 pages"), "{stdout}");

    let home = site.read("dist/index.html");
    assert!(home.contains("<h1 class=\"hero__heading\">Hello from the fixture</h1>"));
    assert!(
        home.contains("Server-rendered &amp; escaped &lt;text&gt;."),
        "text is escaped"
    );
    assert!(
        home.contains("First <em>card</em>."),
        "card text is Markdown"
    );
    // The header island: React's HTML, the marker, and its props as JSON data.
    assert!(home.contains(
        r#"<div data-island="Header" data-hydrate="idle" data-component="/assets/islands/Header-"#
    ));
    assert!(home.contains(r#"<a href="/" aria-current="page">Home</a>"#));
    assert!(home.contains(r#"<script type="application/json" data-island-props>{"brand":"#));
    assert!(home.contains(r#"<script type="module" src="/assets/islands/runtime-"#));
    assert!(home.contains("<link rel=\"canonical\" href=\"https://fixture.example/\">"));
    assert!(
        home.contains("&copy; 2026 Fixture Co."),
        "year of SOURCE_DATE_EPOCH"
    );

    let about = site.read("dist/about/index.html");
    assert!(about.contains(r#"<h2 id="our-story">Our Story</h2>"#));
    assert!(about.contains(r#"<a href="/about/" aria-current="page">About Us</a>"#));

    let not_found = site.read("dist/404.html");
    assert!(not_found.contains("Unexpected Application Error!"));
    assert!(not_found.contains("404 Not Found"));

    let sitemap = site.read("dist/sitemap.xml");
    assert!(sitemap.contains("<loc>https://fixture.example/</loc>"));
    assert!(
        sitemap.contains("<loc>https://fixture.example/about/</loc><lastmod>2026-03-01</lastmod>")
    );
    assert!(!sitemap.contains("404"));
    assert!(site
        .read("dist/robots.txt")
        .contains("Sitemap: https://fixture.example/sitemap.xml"));
    assert!(site
        .read("dist/_headers")
        .contains("/assets/*\n  Cache-Control: public, max-age=31536000, immutable"));
    assert!(
        site.dist().join("favicon.svg").is_file(),
        "public/ is copied"
    );
}

#[test]
fn base_url_can_be_overridden() {
    let site = Site::new("basic");
    site.build_ok(&["--base-url", "https://preview.example/"]);
    assert!(site
        .read("dist/sitemap.xml")
        .contains("<loc>https://preview.example/about/</loc>"));
    assert!(site
        .read("dist/index.html")
        .contains("href=\"https://preview.example/\""));
}

#[test]
fn a_page_loads_only_the_chunks_of_its_own_islands() {
    let site = Site::new("basic");
    site.build_ok(&[]);
    let home = site.read("dist/index.html");
    let about = site.read("dist/about/index.html");
    assert!(!home.contains("Badge"), "the home page has no Badge island");
    assert!(about.contains(
        r#"<div data-island="Badge" data-hydrate="visible" data-component="/assets/islands/Badge-"#
    ));
    assert!(about.contains(r#"<span class="badge">Since 2026-03-01</span>"#));
    // Each island is its own content-hashed chunk.
    let chunks: Vec<String> = hash_tree(&site.dist().join("assets/islands"))
        .into_keys()
        .collect();
    assert!(
        chunks
            .iter()
            .any(|c| c.starts_with("Badge-") && c.ends_with(".js")),
        "{chunks:?}"
    );
    assert!(
        chunks
            .iter()
            .any(|c| c.starts_with("Header-") && c.ends_with(".js")),
        "{chunks:?}"
    );
}

#[test]
fn hydrate_none_ships_server_html_and_no_script() {
    let site = Site::new("basic");
    site.write(
        "templates/layouts/with-badge.html",
        "<!doctype html><title>x</title>{{ island(\"Badge\", {\"text\": \"static\"}, hydrate=\"none\") }}{{ island_scripts() }}",
    );
    site.build_ok(&[]);
    let about = site.read("dist/about/index.html");
    assert!(about.contains(
        r#"<div data-island="Badge" data-hydrate="none"><span class="badge">static</span></div>"#
    ));
    assert!(!about.contains("<script"), "{about}");
}

#[test]
fn load_islands_are_preloaded() {
    let site = Site::new("basic");
    site.write(
        "templates/layouts/with-badge.html",
        "<!doctype html><title>x</title>{{ island(\"Badge\", {\"text\": \"now\"}, hydrate=\"load\") }}{{ island_scripts() }}",
    );
    site.build_ok(&[]);
    let about = site.read("dist/about/index.html");
    assert!(
        about.contains(r#"<link rel="modulepreload" href="/assets/islands/Badge-"#),
        "{about}"
    );
}

#[test]
fn two_builds_of_the_same_input_are_byte_identical() {
    let site = Site::new("basic");
    site.build_ok(&[]);
    let first = hash_tree(&site.dist());
    // A cold build: no bundle cache, no render memo.
    std::fs::remove_dir_all(site.root.join(".site")).unwrap();
    site.build_ok(&[]);
    assert_eq!(first, hash_tree(&site.dist()));
    // A warm build too.
    site.build_ok(&[]);
    assert_eq!(first, hash_tree(&site.dist()));
}

#[test]
fn esbuild_runs_only_when_islands_or_styles_change() {
    let site = Site::new("basic");
    assert!(site
        .build_ok(&["--verbose"])
        .contains("bundle: rebuilt by esbuild"));
    let warm = site.build_ok(&["--verbose"]);
    assert!(warm.contains("bundle: unchanged, from cache"), "{warm}");
    assert!(
        warm.contains("server renders: 0 rendered"),
        "warm builds start no Node: {warm}"
    );

    site.write(
        "content/pages/index.yaml",
        &site
            .read("content/pages/index.yaml")
            .replace("Hello from", "Hi from"),
    );
    assert!(site
        .build_ok(&["--verbose"])
        .contains("bundle: unchanged, from cache"));

    site.write(
        "islands/Badge.tsx",
        &site
            .read("islands/Badge.tsx")
            .replace("badge", "badge badge--new"),
    );
    assert!(site
        .build_ok(&["--verbose"])
        .contains("bundle: rebuilt by esbuild"));
    assert!(site
        .read("dist/about/index.html")
        .contains("badge badge--new"));
}

#[test]
fn the_header_renders_once_per_distinct_active_link_across_30_pages() {
    let site = Site::new("basic");
    for i in 0..30 {
        site.write(
            &format!("content/pages/services/offer-{i:02}.md"),
            &format!("---\ntitle: Offer {i}\ndescription: Offer number {i}.\n---\nText {i}.\n"),
        );
    }
    let stdout = site.build_ok(&["--verbose"]);
    // Active links: `/` (home), `/about/` (about), `/services/` (30 offers) and none (404).
    // Plus the Badge on the about page.
    assert!(stdout.contains("Built 32 pages"), "{stdout}");
    assert!(
        stdout.contains("server renders: 5 rendered, 29 reused from the memo"),
        "{stdout}"
    );
    let offer = site.read("dist/services/offer-07/index.html");
    assert!(offer.contains(r#"<a href="/services/" aria-current="page">Services</a>"#));
}

#[test]
fn an_editor_composes_a_new_landing_page_from_existing_blocks_in_yaml_alone() {
    let site = Site::new("basic");
    site.write(
        "content/pages/campaign.yaml",
        r#"title: Cloud Week
description: A week of cloud briefings.
blocks:
  - type: hero
    heading: Cloud Week 2027
    text: Five days, five briefings.
    actions: [{ label: Register, href: /contact }, { label: Agenda }]
  - type: stats
    heading: Last year
    stats: [{ value: "1,200", label: Attendees }, { value: "40", label: Sessions }]
  - type: steps
    id: agenda
    heading: Agenda
    steps:
      - { title: Monday, text: Strategy, activities: [Keynote] }
      - { title: Tuesday, text: Platforms, activities: [Workshops] }
  - type: faq
    heading: Questions
    questions: [{ question: Is it free?, answer: "Yes, **always**." }]
  - type: cta
    heading: Join us
    text: Seats are limited.
    actions: [{ label: Contact Us, href: /contact }]
"#,
    );
    site.build_ok(&[]);
    let html = site.read("dist/campaign/index.html");
    let order = [
        ">Cloud Week 2027</h1>",
        ">Last year</h2>",
        ">Agenda</h2>",
        ">Questions</h2>",
        ">Join us</h2>",
    ];
    let positions: Vec<usize> = order
        .iter()
        .map(|h| html.find(h).unwrap_or_else(|| panic!("{h} missing")))
        .collect();
    assert!(
        positions.windows(2).all(|w| w[0] < w[1]),
        "sections keep their order"
    );
    assert!(
        html.contains(r#"<span class="button button--primary button--inert">Agenda"#),
        "an action without href is inert"
    );
    assert!(html.contains("<strong>always</strong>"));
    assert!(html.contains(r#"<dd class="stat__value">1,200</dd>"#));
    assert!(site.read("dist/sitemap.xml").contains("/campaign/</loc>"));
    assert!(
        html.contains(r#"<a class="button button--primary" href="/contact/">Register</a>"#),
        "an editor's `/contact` is written as the address hosts serve directly"
    );
}

#[test]
fn an_unknown_icon_fails_the_build() {
    let site = Site::new("basic");
    site.write(
        "content/pages/index.yaml",
        "title: T\ndescription: D\nblocks:\n  - type: card_grid\n    heading: H\n    cards: [{ title: A, icon: no-such-icon }]\n",
    );
    let err = site.build_err();
    assert!(err.contains("unknown icon `no-such-icon`"), "{err}");
}

#[test]
fn images_get_their_size_and_lazy_loading() {
    let site = Site::new("basic");
    site.write(
        "content/pages/index.yaml",
        "title: T\ndescription: D\nblocks:\n  - type: card_grid\n    heading: H\n    cards: [{ title: A, image: { src: /images/tile-ai.svg, alt: A network } }]\n",
    );
    site.build_ok(&[]);
    let html = site.read("dist/index.html");
    assert!(
        html.contains(r#"<img src="/images/tile-ai.svg" alt="A network" width="640" height="400" loading="lazy" decoding="async">"#),
        "{html}"
    );
}

#[test]
fn nginx_gets_precompressed_twins_and_other_hosts_do_not() {
    use std::io::Read;
    let site = Site::new("basic");
    site.build_ok(&[]);
    let twins = |site: &Site| -> usize {
        walkdir::WalkDir::new(site.dist())
            .into_iter()
            .flatten()
            .filter(|e| {
                matches!(
                    e.path().extension().and_then(|x| x.to_str()),
                    Some("br" | "gz")
                )
            })
            .count()
    };
    assert_eq!(twins(&site), 0, "Cloudflare Pages compresses by itself");

    site.build_ok(&["--for", "nginx"]);
    let assets = site.dist().join("assets");
    let mut checked = 0;
    for entry in walkdir::WalkDir::new(&assets).into_iter().flatten() {
        let path = entry.path();
        if !matches!(
            path.extension().and_then(|e| e.to_str()),
            Some("js" | "css")
        ) {
            continue;
        }
        let original = std::fs::read(path).unwrap();
        let mut gz = Vec::new();
        flate2::read::GzDecoder::new(
            std::fs::File::open(format!("{}.gz", path.display())).unwrap(),
        )
        .read_to_end(&mut gz)
        .unwrap();
        let mut br = Vec::new();
        brotli::Decompressor::new(
            std::fs::File::open(format!("{}.br", path.display())).unwrap(),
            4096,
        )
        .read_to_end(&mut br)
        .unwrap();
        assert_eq!(gz, original, "{}", path.display());
        assert_eq!(br, original, "{}", path.display());
        checked += 1;
    }
    assert!(checked >= 4, "{checked} assets");
}

#[test]
fn each_host_gets_its_own_configuration_and_no_other() {
    let site = Site::new("basic");
    let files = |site: &Site| -> Vec<&'static str> {
        ["_headers", "_nginx.conf", ".nojekyll"]
            .into_iter()
            .filter(|f| site.dist().join(f).is_file())
            .collect()
    };
    for (host, expected) in [
        ("cloudflare-pages", vec!["_headers"]),
        ("netlify", vec!["_headers"]),
        ("github-pages", vec![".nojekyll"]),
        ("nginx", vec!["_nginx.conf"]),
    ] {
        let stdout = site.build_ok(&["--for", host]);
        assert!(stdout.contains(&format!("({host})")), "{stdout}");
        assert_eq!(files(&site), expected, "{host}");
        let home = site.read("dist/index.html");
        let meta = home.contains(r#"<meta http-equiv="Content-Security-Policy""#);
        assert_eq!(
            meta,
            host == "github-pages",
            "{host}: a policy in the page only where headers are impossible"
        );
    }
    let nginx = site.read("dist/_nginx.conf");
    assert!(nginx.contains("error_page 404 /404.html;"), "{nginx}");
    assert!(nginx.contains("location /assets/ {"), "{nginx}");
}

#[test]
fn the_host_is_a_setting_of_site_yaml() {
    let site = Site::new("basic");
    let config = site.read("content/site.yaml");
    site.write("content/site.yaml", &format!("{config}host: netlify\n"));
    assert!(site.build_ok(&[]).contains("(netlify)"));
    site.write("content/site.yaml", &format!("{config}host: vercel\n"));
    let err = site.build_err();
    assert!(err.contains("content/site.yaml:"), "{err}");
    assert!(err.contains("host"), "{err}");
}

#[test]
fn pages_over_budget_warn_and_fail_with_strict_budgets() {
    let site = Site::new("basic");
    let config = site.read("content/site.yaml");
    site.write(
        "content/site.yaml",
        &format!("{config}budgets:\n  default: {{ javascript_kb: 10, css_kb: 50 }}\n  routes:\n    /about: {{ javascript_kb: 500 }}\n"),
    );
    let out = site.build(&[]);
    assert!(out.status.success());
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stdout.contains("page weight in KB after gzip"), "{stdout}");
    assert!(stderr.contains("warning: /: JavaScript is"), "{stderr}");
    assert!(stderr.contains("over its budget of 10 KB"), "{stderr}");
    assert!(
        !stderr.contains("warning: /about/:"),
        "a route's own budget replaces the default: {stderr}"
    );

    let before = common::hash_tree(&site.dist());
    let strict = site.build(&["--strict-budgets"]);
    assert!(!strict.status.success());
    assert!(String::from_utf8_lossy(&strict.stderr).contains("budgets: /: JavaScript is"));
    assert_eq!(
        before,
        common::hash_tree(&site.dist()),
        "a failed build leaves the output alone"
    );
}
