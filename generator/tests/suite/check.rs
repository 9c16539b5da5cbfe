//! `site check` over a built fixture: a clean site has no findings; broken links,
//! fragments, redirected addresses and images are findings; and the command says
//! what to do when there is nothing built yet.

use crate::common::Site;

#[test]
fn a_clean_site_has_no_findings() {
    let site = Site::plain();
    site.build_ok();
    let summary = site::check(&site.dist()).unwrap();
    assert_eq!(summary.pages, 7, "six pages and the 404 page");
    assert!(summary.findings.is_empty(), "{:?}", summary.findings);
}

#[test]
fn broken_links_fragments_redirects_and_images_are_findings() {
    let site = Site::plain();
    site.write(
        "content/pages/privacy.md",
        "---\ntitle: Privacy\ndescription: D\n---\n[gone](/gone) [fragment](/#nowhere) [home](/)\n\n<p><a href=\"/about\">About</a> <img src=\"/images/square.svg\"></p>\n",
    );
    site.build_ok();
    let summary = site::check(&site.dist()).unwrap();
    let found: Vec<String> = summary
        .findings
        .iter()
        .map(|f| format!("{}: {}", f.page, f.message))
        .collect();
    assert_eq!(
        found,
        [
            "/privacy/: image /images/square.svg has no alt attribute",
            "/privacy/: link to /#nowhere: there is no element with id \"nowhere\" on /",
            "/privacy/: link to /about: hosts answer it with a redirect to /about/; link to /about/",
            "/privacy/: link to /gone/: no such page or file",
        ]
    );
}

#[test]
fn the_command_exits_non_zero_on_findings_and_lists_them() {
    let site = Site::plain();
    site.write(
        "content/pages/privacy.md",
        "---\ntitle: Privacy\ndescription: D\n---\n[gone](/gone)\n",
    );
    site.build_ok();
    let out = site.cli(&["check"]);
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("/privacy/\n  1. link to /gone/: no such page or file"),
        "{stdout}"
    );
    assert!(stdout.contains("1 finding"), "{stdout}");
}

#[test]
fn checking_before_building_says_what_to_do() {
    let site = Site::plain();
    let out = site.cli(&["check"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("holds no built site: run `site build` first"),
        "{stderr}"
    );
}
