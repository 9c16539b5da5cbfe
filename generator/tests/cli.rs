//! The `site` command itself: what it prints and how it exits. What the commands
//! do is tested through the library; this is the thin layer on top.

mod common;

use common::Site;

#[test]
fn build_prints_a_summary_and_exits_zero() {
    let site = Site::plain();
    let out = site.cli(&["build", "--verbose"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.starts_with("Built 6 pages, "), "{stdout}");
    assert!(stdout.contains("(cloudflare-pages)"), "{stdout}");
    for stage in ["load + bundle", "settings", "render", "weigh", "write"] {
        assert!(
            stdout.contains(&format!("  {stage}: ")),
            "{stage}: {stdout}"
        );
    }
    assert!(String::from_utf8_lossy(&out.stderr)
        .contains("warning: content/site.yaml: storage.url is empty"));
}

#[test]
fn a_failed_build_prints_every_error_and_exits_one() {
    let site = Site::plain();
    site.edit(
        "content/pages/index.yaml",
        "type: card_grid",
        "type: carousel",
    );
    site.edit("content/pages/about.md", "date: 2026-03-01", "date: soon");
    let out = site.cli(&["build"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(
            "error: content/pages/index.yaml:10:11: blocks[1].type: unknown block type `carousel`"
        ),
        "{stderr}"
    );
    assert!(
        stderr.contains("error: content/pages/about.md:4:7: date: `soon` is not a date"),
        "{stderr}"
    );
    assert!(
        stderr.contains("2 errors found; the previous output was left as it was"),
        "{stderr}"
    );
}

#[test]
fn an_unknown_host_is_refused_with_the_known_ones() {
    let site = Site::plain();
    let out = site.cli(&["build", "--for", "vercel"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(
            "unknown host `vercel`, expected one of cloudflare-pages, netlify, github-pages, nginx"
        ),
        "{stderr}"
    );
}

#[test]
fn a_search_index_is_built_with_the_site_and_its_failure_fails_the_build() {
    let site = Site::plain();
    let mut config = site.read("content/site.yaml");
    config.push_str("search: true\n");
    site.write("content/site.yaml", &config);
    site.write(
        "templates/base.html",
        &site
            .read("templates/base.html")
            .replace("<main", "<main data-pagefind-body"),
    );
    let built = site.cli(&["build"]);
    assert!(
        built.status.success(),
        "{}",
        String::from_utf8_lossy(&built.stderr)
    );
    assert!(site.path("dist/pagefind/pagefind.js").is_file());
    assert!(
        !site.path("dist/pagefind/pagefind-ui.js").exists(),
        "Pagefind's own interface is left out"
    );
    let kept = || -> Vec<String> {
        std::fs::read_dir(site.path(".site/search"))
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().to_string())
            .collect()
    };
    let first = kept();
    assert_eq!(first.len(), 1, "the index is kept for the next build");
    let again = site.cli(&["build"]);
    assert!(again.status.success());
    assert_eq!(kept(), first, "unchanged pages: the kept index is used");
    let before = common::hash_tree(&site.dist());

    site.edit("content/pages/about.md", "Our Story", "Our History");
    let failed = std::process::Command::new(env!("CARGO_BIN_EXE_site"))
        .args(["build", "--root"])
        .arg(&site.root)
        .env("SITE_PAGEFIND", "/bin/false")
        .output()
        .unwrap();
    assert_eq!(failed.status.code(), Some(1));
    let said = String::from_utf8_lossy(&failed.stderr);
    assert!(
        said.contains("the search indexer failed (exit status: 1)"),
        "{said}"
    );
    assert_eq!(
        common::hash_tree(&site.dist()),
        before,
        "dist/ is untouched"
    );
}
