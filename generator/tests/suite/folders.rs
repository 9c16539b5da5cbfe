//! The folders the build reads (`content/`, `templates/`, `public/`): symbolic
//! links that stay inside the site are followed; a link out of the site, a link
//! loop, a link to nothing or a named pipe fails the build naming the path, and
//! the previous output is left as it was.

use std::os::unix::fs::symlink;

use crate::common::Site;

/// Builds once, lets `spoil` change the site, and returns what the failed build
/// said; the first build's output must survive byte for byte.
fn fails_after(site: &Site, spoil: impl FnOnce(&Site)) -> String {
    site.build_ok();
    let before = crate::common::hash_tree(&site.dist());
    spoil(site);
    let said = site.build_err();
    assert_eq!(
        crate::common::hash_tree(&site.dist()),
        before,
        "dist/ changed"
    );
    said
}

#[test]
fn links_that_stay_inside_the_site_are_followed() {
    let site = Site::plain();
    symlink("square.svg", site.path("public/images/again.svg")).unwrap();
    site.write(
        "drafts/linked.md",
        "---\ntitle: Linked\ndescription: A page kept outside content/.\n---\nBy link.\n",
    );
    symlink(
        "../../drafts/linked.md",
        site.path("content/pages/linked.md"),
    )
    .unwrap();
    site.build_ok();
    assert_eq!(
        site.read("dist/images/again.svg"),
        site.read("public/images/square.svg")
    );
    assert!(site.read("dist/linked/index.html").contains("By link."));
}

#[test]
fn a_link_out_of_the_site_fails_the_build_naming_it() {
    let site = Site::plain();
    let said = fails_after(&site, |site| {
        symlink("/etc/passwd", site.path("public/passwd")).unwrap();
        symlink("/etc", site.path("templates/partials")).unwrap();
        symlink("/etc/hostname", site.path("content/pages/host.md")).unwrap();
    });
    for (path, target) in [
        ("content/pages/host.md", "/etc/hostname"),
        ("public/passwd", "/etc/passwd"),
        ("templates/partials", "/etc"),
    ] {
        assert!(
            said.contains(&format!(
                "{path}: a symbolic link to `{target}`, outside the site"
            )),
            "{said}"
        );
    }
    assert!(!said.contains("root:x:0"), "nothing is read through it");
}

#[test]
fn a_link_loop_fails_the_build_naming_it() {
    let site = Site::plain();
    let said = fails_after(&site, |site| {
        symlink("..", site.path("public/images/up")).unwrap();
        symlink("b.md", site.path("content/pages/a.md")).unwrap();
        symlink("a.md", site.path("content/pages/b.md")).unwrap();
    });
    assert!(
        said.contains("public/images/up: a symbolic link loop: it leads back to `public`"),
        "{said}"
    );
    assert!(
        said.contains("content/pages/a.md: a symbolic link loop (to `b.md`)"),
        "{said}"
    );
    assert!(
        said.contains("content/pages/b.md: a symbolic link loop (to `a.md`)"),
        "{said}"
    );
}

#[test]
fn a_link_to_nothing_fails_the_build_naming_it() {
    let site = Site::plain();
    let said = fails_after(&site, |site| {
        symlink("gone.svg", site.path("public/images/logo.svg")).unwrap();
    });
    assert!(
        said.contains(
            "public/images/logo.svg: a symbolic link to `gone.svg`, which does not exist"
        ),
        "{said}"
    );
}

#[test]
fn a_named_pipe_fails_the_build_instead_of_hanging_it() {
    let site = Site::plain();
    let said = fails_after(&site, |site| site.fifo("templates/blocks/pipe.html"));
    assert!(
        said.contains("templates/blocks/pipe.html: a named pipe, not a file"),
        "{said}"
    );
}

#[test]
fn a_picture_that_is_a_link_out_of_the_site_is_named_with_the_line_that_shows_it() {
    let site = Site::plain();
    let said = fails_after(&site, |site| {
        symlink("/etc/hostname", site.path("public/images/team.png")).unwrap();
        site.edit(
            "content/pages/index.yaml",
            "/images/square.svg",
            "/images/team.png",
        );
    });
    let first = said.lines().next().unwrap();
    assert!(
        first.starts_with("error: content/pages/index.yaml:15:60: blocks[1].cards[1].image.src (in the 2nd block, its 2nd card): the picture `/images/team.png` cannot be used: public/images/team.png is a symbolic link to `/etc/hostname`, outside the site"),
        "{said}"
    );
    assert!(
        said.contains("1 error found"),
        "one error, not a second for the link: {said}"
    );
}
