//! The browser tests check fully only the pages of the build's cover (the
//! fewest pages that hold every part of the site: `render::parts`), so that
//! their cost grows with the templates, not with the pages. That holds while
//! pages made from the same templates have the same parts: the same site with
//! ten times the posts has a cover of the same size.

use crate::common::bench_site;
use site::build::{build_in, Options, Session};
use site::render::parts::cover;

/// The routes of the cover of the bench site with `posts` posts.
fn cover_with(posts: usize) -> Vec<String> {
    let root = bench_site(&format!("parts-{posts}"), posts);
    let options = Options {
        root: root.clone(),
        out: root.join("dist"),
        serving: true,
        ..Options::default()
    };
    let mut session = Session::serving();
    if let Err(d) = build_in(&options, &mut session) {
        panic!("{}", site::diagnostics::render(&d, false));
    }
    let parts = session.parts();
    assert!(parts.len() > posts, "every post has its parts");
    let _ = std::fs::remove_dir_all(&root);
    cover(&parts)
}

#[test]
fn ten_times_the_pages_from_the_same_templates_have_a_cover_of_the_same_size() {
    let small = cover_with(40);
    let large = cover_with(400);
    assert_eq!(
        large.len(),
        small.len(),
        "the cover of 40 posts: {small:?}\nof 400: {large:?}"
    );
}
