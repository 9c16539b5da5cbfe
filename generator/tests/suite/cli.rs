//! The `site` command itself: what it prints and how it exits. What the commands
//! do is tested through the library; this is the thin layer on top.

use crate::common::Site;

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
    for stage in [
        "load + bundle",
        "configure",
        "render",
        "budgets",
        "editor",
        "write",
    ] {
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
            "error: content/pages/index.yaml:10:11: blocks[1].type (in the 2nd block): unknown block type `carousel`"
        ),
        "{stderr}"
    );
    // Each once: the line, then its code frame, not the message again.
    assert_eq!(
        stderr.matches("unknown block type `carousel`").count(),
        1,
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
    let site = Site::searchable();
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
    let before = crate::common::hash_tree(&site.dist());

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
        crate::common::hash_tree(&site.dist()),
        before,
        "dist/ is untouched"
    );
}

#[test]
fn a_refused_base_url_is_reported_where_it_was_set() {
    let site = Site::plain();
    let storage = [
        ("SITE_STORAGE_URL", "https://abcdefghijklmnop.supabase.co"),
        ("SITE_STORAGE_ANON_KEY", "sb_publishable_fixture"),
    ];
    let build = |args: &[&str], env: &[(&str, &str)]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_site"))
            .args(["build", "--production", "--root"])
            .arg(&site.root)
            .args(args)
            .envs(storage.iter().chain(env).copied())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1));
        String::from_utf8_lossy(&out.stderr).into_owned()
    };

    // From the command line: the flag, not site.yaml's line.
    let stderr = build(&["--base-url", "http://www.fixture-company.com"], &[]);
    assert!(
        stderr.starts_with("error: --base-url: `http://www.fixture-company.com` cannot be the address of the live site: it must start with https://"),
        "{stderr}"
    );
    assert!(!stderr.contains("content/site.yaml:"), "{stderr}");

    // From the environment: the variable.
    let stderr = build(&[], &[("SITE_BASE_URL", "https://www.fixture.test")]);
    assert!(
        stderr.starts_with("error: the environment variable SITE_BASE_URL: `https://www.fixture.test` cannot be the address of the live site: www.fixture.test is a placeholder"),
        "{stderr}"
    );

    // From site.yaml: its line and field.
    let stderr = build(&[], &[]);
    assert!(
        stderr.starts_with(
            "error: content/site.yaml:3:11: base_url: `https://fixture.example` cannot be"
        ),
        "{stderr}"
    );
}

/// The project's own files, read by the tests that hold the docs to the binary.
fn project_file(rel: &str) -> String {
    std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .parent()
            .unwrap()
            .join(rel),
    )
    .unwrap()
}

#[test]
fn the_readme_synopsis_names_every_flag_of_every_command_and_no_other() {
    let readme = project_file("README.md");
    for command in ["build", "serve", "check", "schema"] {
        let help = std::process::Command::new(env!("CARGO_BIN_EXE_site"))
            .args([command, "--help"])
            .output()
            .unwrap();
        let help = String::from_utf8_lossy(&help.stdout);
        let mut flags: Vec<&str> = help
            .split_whitespace()
            .filter(|w| w.starts_with("--") && *w != "--help")
            .map(|w| w.trim_end_matches(','))
            .collect();
        flags.sort();
        flags.dedup();
        let synopsis = readme
            .lines()
            .find(|l| l.starts_with(&format!("site {command} ")))
            .unwrap_or_else(|| panic!("the README has no synopsis of `site {command}`"));
        let mut written: Vec<&str> = synopsis
            .split(['[', ']', ' ', '|'])
            .filter(|w| w.starts_with("--"))
            .collect();
        written.sort();
        written.dedup();
        assert_eq!(written, flags, "README: {synopsis}");
    }
}

#[test]
fn the_deploy_guide_quotes_a_production_build_without_settings_as_it_is() {
    // This project, built for production with none of the live site's settings.
    let out = std::env::temp_dir().join(format!("site-guide-{}", std::process::id()));
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap();
    let run = std::process::Command::new(env!("CARGO_BIN_EXE_site"))
        .args(["build", "--production", "--root"])
        .arg(root)
        .arg("--out")
        .arg(&out)
        .env_remove("SITE_BASE_URL")
        .env_remove("SITE_STORAGE_URL")
        .env_remove("SITE_STORAGE_ANON_KEY")
        .output()
        .unwrap();
    let said: Vec<String> = String::from_utf8_lossy(&run.stderr)
        .lines()
        .filter(|l| l.starts_with("error:") || l.ends_with("left as it was"))
        .map(String::from)
        .collect();
    assert_eq!(said.len(), 4, "{said:?}");
    let guide = project_file("docs/deploy.md");
    let quoted: Vec<&str> = guide
        .lines()
        .skip_while(|l| !l.starts_with("error: content/site.yaml"))
        .take_while(|l| !l.starts_with("```"))
        .collect();
    assert_eq!(quoted, said, "docs/deploy.md quotes another build");
}

/// A site without islands needs no Node.js packages, also when served (the
/// content editor is a script of the islands): `site serve` on such a site, with
/// no node_modules/ above it or the working directory, builds and serves.
#[test]
fn serve_needs_no_node_modules_for_a_site_without_islands() {
    use std::io::BufRead;
    let plain = Site::plain();
    let outside = std::env::temp_dir().join(format!("site-no-node-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&outside);
    crate::common::copy_tree(&plain.root, &outside);
    let mut serve = std::process::Command::new(env!("CARGO_BIN_EXE_site"))
        .args(["serve", "--port", "0", "--root"])
        .arg(&outside)
        .current_dir(std::env::temp_dir())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = std::io::BufReader::new(serve.stdout.take().unwrap()).lines();
    let serving = lines.find(|l| l.as_ref().is_ok_and(|l| l.starts_with("Serving")));
    let _ = serve.kill();
    let output = serve.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(serving.is_some() && !stderr.contains("error"), "{stderr}");
    assert!(outside.join("dist/index.html").is_file());
    let _ = std::fs::remove_dir_all(&outside);
}
