//! Islands and styles over the islands fixture: server-rendered markup, the chunks
//! each page loads, the bundle's cache per part, the render memo, and the
//! precompressed twins. These builds run esbuild and Node.

use crate::common::{hash_tree, Site};
use site::Host;

/// The public URL in `html` that starts with `prefix` (up to the closing quote).
fn url(html: &str, prefix: &str) -> String {
    let start = html
        .find(prefix)
        .unwrap_or_else(|| panic!("no {prefix} in {html}"));
    let end = html[start..].find('"').unwrap() + start;
    html[start..end].to_string()
}

#[test]
fn islands_are_rendered_at_build_time_and_hydrate_from_their_own_chunks() {
    let site = Site::islands();
    site.build_ok();
    let badge = site.read("dist/badge/index.html");
    assert!(badge.contains(r#"<div data-island="Badge" data-hydrate="visible" data-component="/assets/islands/Badge-"#), "{badge}");
    assert!(badge.contains(r#"><span class="badge badge--plain">Since 2026-03-01</span></div><script type="application/json" data-island-props>{"text":"Since 2026-03-01"}</script>"#), "{badge}");
    // hydrate="none": the server's HTML, and neither props nor a chunk.
    assert!(badge.contains(r#"<div data-island="Badge" data-hydrate="none"><span class="badge badge--loud">Static</span></div>"#), "{badge}");
    assert!(badge.contains(r#"<script type="module" src="/assets/islands/runtime-"#));
    assert!(
        !badge.contains("modulepreload"),
        "a visible island is not preloaded"
    );
    assert!(
        !badge.contains("Clock"),
        "a page loads only its own islands"
    );

    let clock = site.read("dist/clock/index.html");
    let entry = url(&clock, "/assets/islands/Clock-");
    assert!(
        clock.contains(&format!(r#"<link rel="modulepreload" href="{entry}">"#)),
        "{clock}"
    );
    assert!(
        clock.contains(r#"<link rel="modulepreload" href="/assets/chunks/"#),
        "its shared chunk too: {clock}"
    );

    let home = site.read("dist/index.html");
    assert!(
        !home.contains("<script"),
        "a page without islands loads no script"
    );
    let css = url(&home, "/assets/styles/main-");
    let sheet = site.read(&format!("dist{css}"));
    assert!(
        sheet.contains("--accent: #0b6b61") && sheet.contains(".badge{"),
        "{sheet}"
    );
}

#[test]
fn a_site_moved_with_its_caches_keeps_its_bundle_at_the_same_depth_only() {
    let site = Site::islands();
    assert!(site.build_ok().bundle_rebuilt);
    let page = site.read("dist/badge/index.html");
    let name = site.root.file_name().unwrap().to_string_lossy().to_string();

    // Renamed beside where it was, `.site/` with it: node_modules/ is where it
    // was from the root, so esbuild would make the same bundle.
    let moved = Site {
        root: site.root.with_file_name(format!("{name}-moved")),
    };
    std::fs::rename(&site.root, &moved.root).unwrap();
    std::mem::forget(site);
    let report = moved.build_ok();
    assert!(!report.bundle_rebuilt, "the bundle comes from its cache");
    assert_eq!(report.ssr.rendered, 0, "and every render from the memo");
    assert_eq!(moved.read("dist/badge/index.html"), page);

    // One folder deeper, esbuild names its outputs by other paths: bundled again.
    let deeper = Site {
        root: moved
            .root
            .with_file_name(format!("{name}-deeper"))
            .join("site"),
    };
    std::fs::create_dir_all(deeper.root.parent().unwrap()).unwrap();
    std::fs::rename(&moved.root, &deeper.root).unwrap();
    std::mem::forget(moved);
    assert!(deeper.build_ok().bundle_rebuilt);
    let _ = std::fs::remove_dir_all(deeper.root.parent().unwrap());
}

#[test]
fn esbuild_runs_only_for_the_part_that_changed() {
    let site = Site::islands();
    assert!(site.build_ok().bundle_rebuilt);
    let badge = |site: &Site| {
        url(
            &site.read("dist/badge/index.html"),
            "/assets/islands/Badge-",
        )
    };
    let css = |site: &Site| url(&site.read("dist/index.html"), "/assets/styles/main-");
    let (badge_before, css_before) = (badge(&site), css(&site));

    let again = site.build_ok();
    assert!(
        !again.bundle_rebuilt,
        "nothing changed: both parts come from the cache"
    );
    assert_eq!(again.ssr.rendered, 0, "and every render from the memo");

    site.edit("styles/_tokens.css", "#0b6b61", "#0b6b62");
    let styled = site.build_ok();
    assert!(styled.bundle_rebuilt);
    assert_ne!(css(&site), css_before, "the stylesheet has a new address");
    assert_eq!(
        badge(&site),
        badge_before,
        "a style edit rebuilds no island"
    );
    assert_eq!(styled.ssr.rendered, 0, "nor renders one again");

    site.edit("islands/Badge.tsx", "badge--", "tag badge--");
    let islands = site.build_ok();
    assert!(islands.bundle_rebuilt);
    assert_ne!(badge(&site), badge_before);
    assert!(site
        .read("dist/badge/index.html")
        .contains(r#"<span class="badge tag badge--plain">"#));
}

#[test]
fn an_island_renders_once_per_distinct_props() {
    let site = Site::islands();
    for i in 0..20 {
        site.write(
            &format!("content/pages/badges/b{i:02}.md"),
            &format!("---\ntitle: B{i}\ndescription: Badge {i}.\ndate: 2026-0{}-01\nlayout: with-badge\n---\nText.\n", 1 + i % 3),
        );
    }
    let report = site.build_ok();
    assert_eq!(report.pages, 28);
    // 43 renders: two badges on each of 21 pages and the clock. Distinct are three
    // dates (badge.md's 2026-03-01 among them), the static badge and the clock.
    assert_eq!(report.ssr.rendered, 5, "{:?}", report.ssr);
    assert_eq!(report.ssr.reused, 38, "{:?}", report.ssr);
}

#[test]
fn builds_with_islands_are_byte_identical() {
    let site = Site::islands();
    site.build_ok();
    let first = hash_tree(&site.dist());
    std::fs::remove_dir_all(site.path(".site")).unwrap();
    site.build_ok();
    assert_eq!(
        hash_tree(&site.dist()),
        first,
        "a cold build writes the same bytes"
    );
}

#[test]
fn nginx_gets_precompressed_twins_and_other_hosts_do_not() {
    use std::io::Read;
    let site = Site::islands();
    site.build_ok();
    let twins = |site: &Site| {
        hash_tree(&site.dist())
            .into_keys()
            .filter(|f| f.ends_with(".br") || f.ends_with(".gz"))
            .collect::<Vec<_>>()
    };
    assert!(
        twins(&site).is_empty(),
        "Cloudflare Pages compresses by itself"
    );

    let mut options = site.options();
    options.host = Some(Host::Nginx);
    site.build_ok_with(&options);
    let made = twins(&site);
    let scripts = hash_tree(&site.dist())
        .into_keys()
        .filter(|f| f.ends_with(".js") || f.ends_with(".css"))
        .count();
    assert_eq!(made.len(), 2 * scripts, "{made:?}");
    for twin in made.iter().filter(|t| t.ends_with(".br")) {
        let original = std::fs::read(site.dist().join(twin.trim_end_matches(".br"))).unwrap();
        let mut br = Vec::new();
        brotli::Decompressor::new(std::fs::File::open(site.dist().join(twin)).unwrap(), 4096)
            .read_to_end(&mut br)
            .unwrap();
        assert_eq!(br, original, "{twin}");
    }
}

#[test]
fn a_bundle_that_never_finishes_fails_after_its_limit() {
    let site = Site::islands();
    let mut config = site.read("content/site.yaml");
    config.push_str("timeouts: { bundle: 1 }\n");
    site.write("content/site.yaml", &config);
    site.fifo("islands/lib/never.ts");
    site.edit(
        "islands/Badge.tsx",
        "import { escape }",
        "import \"./lib/never.ts\";\nimport { escape }",
    );
    let said = site.build_err();
    assert!(
        said.contains("esbuild did not finish within 1 s, so it was stopped"),
        "{said}"
    );
}

/// An island that throws is named at its own line, also when the site itself lies
/// below a folder named `.site` or `node_modules` (a checkout inside another
/// project's work folder, as a runner's can be): only paths within the site are
/// read as the build's own.
#[test]
fn an_island_that_throws_is_named_at_its_line_wherever_the_site_lies() {
    let made = Site::islands();
    made.write(
        "templates/layouts/with-clock.html",
        r#"{% extends "layouts/markdown.html" %}{% block content %}{{ super() }}{{ island("Badge", {"text": "throw"}) }}{% endblock %}"#,
    );
    for outer in [".site", "node_modules"] {
        let site = Site {
            root: made.root.with_extension("nested").join(outer).join("site"),
        };
        crate::common::copy_tree(&made.root, &site.root);
        let said = site.build_err();
        assert!(
            said.contains("Error: Badge cannot show this text (islands/Badge.tsx:5:"),
            "below {outer}/: {said}"
        );
        drop(site);
        let _ = std::fs::remove_dir_all(made.root.with_extension("nested"));
    }
}
