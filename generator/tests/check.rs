//! `site check` over built fixture sites.

mod common;

use std::process::Command;

use common::Site;

fn check(site: &Site) -> (bool, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_site"))
        .args(["check", "--root"])
        .arg(&site.root)
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).to_string(),
    )
}

/// The fixture with the pages its navigation and footer link to.
fn complete_site() -> Site {
    let site = Site::new("basic");
    for (file, title) in [
        ("contact", "Contact"),
        ("services", "Services"),
        ("privacy-policy", "Privacy"),
    ] {
        site.write(
            &format!("content/pages/{file}.md"),
            &format!("---\ntitle: {title}\ndescription: {title} page.\n---\nText.\n"),
        );
    }
    site
}

#[test]
fn a_clean_site_has_no_findings() {
    let site = complete_site();
    site.build_ok(&[]);
    let (ok, report) = check(&site);
    assert!(ok, "{report}");
    assert!(report.contains("no findings"), "{report}");
}

#[test]
fn broken_links_fragments_and_images_are_findings_and_fail_the_check() {
    let site = complete_site();
    site.write(
        "content/pages/about.md",
        "---\ntitle: About\ndescription: D\n---\n[gone](/gone) [frag](/#nowhere) [home](/)\n\n<img src=\"/favicon.svg\">\n\n<p><a href=\"/about\">About</a></p>\n",
    );
    site.build_ok(&[]);
    let (ok, report) = check(&site);
    assert!(!ok);
    assert!(report.contains("/about/\n"), "{report}");
    assert!(
        report.contains("link to /gone/: no such page or file"),
        "{report}"
    );
    assert!(
        report.contains(
            "link to /about: hosts answer it with a redirect to /about/; link to /about/"
        ),
        "a link in raw HTML is not rewritten, so it is a finding: {report}"
    );
    assert!(
        report.contains("link to /#nowhere: there is no element with id \"nowhere\" on /"),
        "{report}"
    );
    assert!(
        report.contains("image /favicon.svg has no alt attribute"),
        "{report}"
    );
    assert!(report.contains("4 findings"), "{report}");
}

#[test]
fn checking_before_building_says_what_to_do() {
    let site = Site::new("basic");
    let (ok, _) = check(&site);
    assert!(!ok);
}
