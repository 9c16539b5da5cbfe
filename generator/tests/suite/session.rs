//! What `site serve` does again after a save: a session keeps the last build, and
//! each change parses, renders and writes only what it touches.

use crate::common::Site;
use site::build::{build_in, Session};
use site::BuildReport;

fn rebuild(site: &Site, session: &mut Session) -> BuildReport {
    match build_in(&site.options(), session) {
        Ok(report) => report,
        Err(diags) => panic!("{}", site.render(&diags)),
    }
}

fn inode(site: &Site, rel: &str) -> u64 {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(site.dist().join(rel)).unwrap().ino()
}

#[test]
fn a_page_edit_renders_and_writes_that_page_alone() {
    let site = Site::plain();
    let mut session = Session::serving();
    let first = rebuild(&site, &mut session);
    assert_eq!(
        (first.pages_rendered, first.files_written),
        (6, first.files)
    );
    let home = inode(&site, "index.html");

    site.edit(
        "content/pages/news/first.md",
        "The first.",
        "The very first.",
    );
    let report = rebuild(&site, &mut session);
    assert_eq!(
        report.pages_rendered, 1,
        "its list shows no body, so it stays"
    );
    assert_eq!(report.files_written, 1);
    assert!(site
        .read("dist/news/first/index.html")
        .contains("The very first."));
    assert_eq!(
        inode(&site, "index.html"),
        home,
        "other pages are not touched"
    );

    let nothing = rebuild(&site, &mut session);
    assert_eq!((nothing.pages_rendered, nothing.files_written), (0, 0));
}

#[test]
fn a_listed_title_renders_the_lists_again() {
    let site = Site::plain();
    let mut session = Session::serving();
    rebuild(&site, &mut session);
    site.edit(
        "content/pages/news/first.md",
        "title: First news",
        "title: Earliest news",
    );
    let report = rebuild(&site, &mut session);
    assert_eq!(
        report.pages_rendered, 2,
        "the page and the list that names it"
    );
    assert!(site.read("dist/news/index.html").contains("Earliest news"));
}

#[test]
fn a_template_edit_renders_every_page_again() {
    let site = Site::plain();
    let mut session = Session::serving();
    rebuild(&site, &mut session);
    site.edit(
        "templates/base.html",
        "<footer>",
        "<footer class=\"edited\">",
    );
    let report = rebuild(&site, &mut session);
    assert_eq!(report.pages_rendered, 6);
    assert!(site
        .read("dist/about/index.html")
        .contains(r#"<footer class="edited">"#));
}

#[test]
fn a_removed_page_leaves_the_output() {
    let site = Site::plain();
    let mut session = Session::serving();
    rebuild(&site, &mut session);
    assert!(site.dist().join("privacy/index.html").is_file());
    site.remove("content/pages/privacy.md");
    let report = rebuild(&site, &mut session);
    assert_eq!(report.pages, 5);
    assert!(!site.dist().join("privacy/index.html").exists());
    assert!(
        !site.dist().join("privacy").exists(),
        "its folder goes with it"
    );
    assert!(!site.read("dist/sitemap.xml").contains("/privacy/"));
    // A nested page's folders go up to the first that still holds something.
    site.remove("content/pages/news/first.md");
    rebuild(&site, &mut session);
    assert!(!site.dist().join("news/first").exists());
    assert!(site.dist().join("news/second/index.html").is_file());
}

#[test]
fn a_failed_save_keeps_the_served_site_and_the_next_good_one_replaces_it() {
    let site = Site::plain();
    let mut session = Session::serving();
    rebuild(&site, &mut session);
    let before = crate::common::hash_tree(&site.dist());
    site.edit("content/pages/index.yaml", "type: hero", "type: heroic");
    assert!(build_in(&site.options(), &mut session).is_err());
    assert_eq!(crate::common::hash_tree(&site.dist()), before);
    site.edit("content/pages/index.yaml", "type: heroic", "type: hero");
    site.edit("content/pages/index.yaml", "Hello from", "Hi from");
    let report = rebuild(&site, &mut session);
    assert_eq!(report.pages_rendered, 1);
    assert!(site.read("dist/index.html").contains("Hi from the fixture"));
}

#[test]
fn a_style_edit_bundles_the_styles_alone_and_renders_no_island() {
    let site = Site::islands();
    let mut session = Session::serving();
    rebuild(&site, &mut session);
    site.edit("styles/_tokens.css", "#0b6b61", "#123456");
    session.styles_changed();
    let report = rebuild(&site, &mut session);
    assert!(report.bundle_rebuilt);
    assert_eq!(report.ssr.rendered, 0, "{:?}", report.ssr);
    assert_eq!(
        report.pages_rendered, 8,
        "every page names the new stylesheet"
    );

    site.edit(
        "islands/Clock.tsx",
        "class=\"clock\"",
        "class=\"clock edited\"",
    );
    session.islands_changed();
    let report = rebuild(&site, &mut session);
    assert!(site
        .read("dist/clock/index.html")
        .contains(r#"<time class="clock edited">UTC</time>"#));
    assert!(report.ssr.rendered >= 1);
}

/// Kills the Node processes this test started for `site` (found by their working
/// folder, the site root), as a crash or the out-of-memory killer would.
fn kill_node_processes_of(site: &Site) -> usize {
    let me = std::process::id().to_string();
    let mut killed = 0;
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let pid = entry.file_name().to_string_lossy().to_string();
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // The parent is the fourth field, after the name in parentheses.
        let after_name = stat.rsplit_once(") ").map(|(_, rest)| rest).unwrap_or("");
        let parent = after_name.split(' ').nth(1).unwrap_or("");
        let cwd = std::fs::read_link(entry.path().join("cwd")).unwrap_or_default();
        if parent == me && cwd == site.root.canonicalize().unwrap() {
            let status = std::process::Command::new("kill")
                .args(["-KILL", &pid])
                .status()
                .unwrap();
            assert!(status.success());
            killed += 1;
        }
    }
    killed
}

#[test]
fn a_render_process_that_died_is_started_anew_for_the_next_build() {
    let site = Site::islands();
    let mut session = Session::serving();
    rebuild(&site, &mut session);
    assert!(
        kill_node_processes_of(&site) >= 1,
        "the render process is running"
    );

    // New props, so the island must be rendered again.
    site.edit(
        "content/pages/badge.md",
        "date: 2026-03-01",
        "date: 2026-04-02",
    );
    let report = rebuild(&site, &mut session);
    assert!(report.ssr.rendered >= 1);
    assert!(site
        .read("dist/badge/index.html")
        .contains("Since 2026-04-02"));
}

/// After saves the watcher named, a build looks at those files alone: a save
/// whose event was lost is not seen by it, and is by the check of every file
/// that `site serve` makes a moment later.
#[test]
fn a_save_whose_event_was_lost_is_found_by_the_check_of_every_file() {
    let site = Site::plain();
    let mut session = Session::serving();
    rebuild(&site, &mut session);
    site.edit(
        "content/pages/news/first.md",
        "The first.",
        "The very first.",
    );
    site.write(
        "content/pages/news/third.md",
        "---\ntitle: Third\ndescription: The third.\ndate: 2026-01-03\n---\n\nThe third.\n",
    );
    // The watcher saw the new file only; the edit's event was lost.
    assert!(session.saved(&site.root, &[site.path("content/pages/news/third.md")]));
    let saved = rebuild(&site, &mut session);
    assert!(site
        .read("dist/news/third/index.html")
        .contains("The third."));
    assert!(
        !site
            .read("dist/news/first/index.html")
            .contains("The very first."),
        "a build after saves looks at the saved files alone"
    );
    assert!(saved.pages_rendered >= 1);

    let checked = rebuild(&site, &mut session);
    assert!(site
        .read("dist/news/first/index.html")
        .contains("The very first."));
    assert_eq!(checked.pages_rendered, 1);

    // A removed file the watcher saw leaves the output without a walk.
    std::fs::remove_file(site.path("content/pages/news/third.md")).unwrap();
    assert!(session.saved(&site.root, &[site.path("content/pages/news/third.md")]));
    rebuild(&site, &mut session);
    assert!(!site.dist().join("news/third/index.html").exists());

    // A save outside the pages (site.yaml, a template) looks at everything.
    assert!(!session.saved(&site.root, &[site.path("content/site.yaml")]));
    assert!(!session.saved(&site.root, &[site.path("templates/base.html")]));
}

#[test]
fn what_a_save_changes_of_a_page_reaches_the_sitemap_and_a_body_edit_keeps_it() {
    let site = Site::plain();
    let mut session = Session::serving();
    rebuild(&site, &mut session);
    let sitemap = site.read("dist/sitemap.xml");
    site.edit(
        "content/pages/news/first.md",
        "The first.",
        "The first, edited.",
    );
    let report = rebuild(&site, &mut session);
    assert_eq!(
        report.files_written, 1,
        "the page alone: the sitemap is as it was"
    );
    assert_eq!(site.read("dist/sitemap.xml"), sitemap);
    site.edit(
        "content/pages/news/first.md",
        "date: 2026-01-10",
        "date: 2026-01-12",
    );
    rebuild(&site, &mut session);
    assert!(site
        .read("dist/sitemap.xml")
        .contains("<lastmod>2026-01-12</lastmod>"));
}

#[test]
fn a_link_to_no_page_is_told_the_nearest_address_of_the_site_as_it_is_now() {
    let site = Site::plain();
    let mut session = Session::serving();
    site.edit(
        "content/pages/privacy.md",
        "\n---\n",
        "\n---\nSee [us](/abuot/).\n",
    );
    let warned = |report: &BuildReport| -> String {
        report
            .warnings
            .iter()
            .map(|w| w.message.clone())
            .find(|m| m.contains("/abuot/"))
            .unwrap_or_default()
    };
    let first = rebuild(&site, &mut session);
    assert!(
        warned(&first).contains("did you mean `/about/`"),
        "{}",
        warned(&first)
    );
    // The addresses change: the suggestion is made from the new ones.
    std::fs::rename(
        site.path("content/pages/about.md"),
        site.path("content/pages/abut.md"),
    )
    .unwrap();
    let again = rebuild(&site, &mut session);
    assert!(
        warned(&again).contains("did you mean `/abut/`"),
        "{}",
        warned(&again)
    );
}

#[test]
fn a_preview_renders_the_text_as_the_editor_has_it_and_changes_nothing() {
    let site = Site::plain();
    let mut session = Session::serving();
    rebuild(&site, &mut session);
    let served = crate::common::hash_tree(&site.dist());
    let file = "content/pages/news/first.md";
    let text = site
        .read(file)
        .replace("title: First news", "title: Draft news");
    let preview = site::build::render_draft(&site.options(), &mut session, file, &text).unwrap();
    assert_eq!(preview.route, "/news/first/");
    assert!(preview.html.contains("Draft news"));
    // A page not saved yet has its preview too.
    let new =
        "---\ntitle: Third news\ndescription: The third item.\ndate: 2026-01-20\n---\nThe third.\n";
    let third = site::build::render_draft(
        &site.options(),
        &mut session,
        "content/pages/news/third.md",
        new,
    )
    .unwrap();
    assert!(third.html.contains("The third."));
    // A draft the build refuses gives the build's own error, at its line.
    let broken = text.replace("date: 2026-01-10", "date: 2026-13-10");
    let errors =
        site::build::render_draft(&site.options(), &mut session, file, &broken).unwrap_err();
    assert!(
        errors
            .iter()
            .any(|d| d.to_string().contains("content/pages/news/first.md:4")),
        "{}",
        site.render(&errors)
    );
    assert_eq!(
        crate::common::hash_tree(&site.dist()),
        served,
        "nothing is written"
    );
    let after = rebuild(&site, &mut session);
    assert_eq!(
        (after.pages_rendered, after.files_written),
        (0, 0),
        "and the next build finds nothing changed"
    );
    assert!(site.read("dist/news/index.html").contains("First news"));
}

#[test]
fn an_events_calendar_is_written_again_only_when_the_event_changes() {
    let site = Site::plain();
    let config = site.read("content/site.yaml");
    site.write(
        "content/site.yaml",
        &format!("{config}collections: [{{ name: events, kind: events }}]\n"),
    );
    site.write(
        "templates/layouts/event.html",
        "{% extends \"base.html\" %}\n",
    );
    site.write(
        "content/pages/events/summit.md",
        "---\ntitle: Summit\ndescription: Our summit.\nstart: 2099-03-10 09:00\nend: 2099-03-10 17:00\nplace: Online\nregistration: https://events.example/summit\n---\nThe summit.\n",
    );
    let mut session = Session::serving();
    rebuild(&site, &mut session);
    let calendar = site.read("dist/events/summit.ics");
    std::thread::sleep(std::time::Duration::from_millis(1100));
    // A later build (the check a second after a save) finds nothing to write.
    let again = rebuild(&site, &mut session);
    assert_eq!((again.pages_rendered, again.files_written), (0, 0));
    site.edit(
        "content/pages/events/summit.md",
        "end: 2099-03-10 17:00",
        "end: 2099-03-10 18:00",
    );
    rebuild(&site, &mut session);
    let moved = site.read("dist/events/summit.ics");
    assert_ne!(moved, calendar);
    let stamp = |ics: &str| {
        ics.lines()
            .find(|l| l.starts_with("DTSTAMP"))
            .map(str::to_string)
    };
    assert_eq!(
        stamp(&moved),
        stamp(&calendar),
        "stamped when serving began"
    );
}

#[test]
fn serve_makes_the_search_index_when_it_is_asked_for_not_on_each_save() {
    use site::output::search::Deferred;
    let site = Site::searchable();
    let mut session = Session::serving();
    let first = rebuild(&site, &mut session);
    assert!(
        !site.path("dist/pagefind").exists(),
        "a save's reload waits for no indexer"
    );
    let index = Deferred::default();
    index.make().unwrap();
    assert!(
        !site.path("dist/pagefind").exists(),
        "nothing to make before a build hands its pages over"
    );
    index.pages_changed(
        first
            .search
            .expect("a site with search hands its index over"),
    );
    index.make().unwrap();
    let entry = site.read("dist/pagefind/pagefind-entry.json");
    let made = std::fs::metadata(site.path("dist/pagefind/pagefind-entry.json"))
        .unwrap()
        .modified()
        .unwrap();
    index.make().unwrap();
    assert_eq!(
        std::fs::metadata(site.path("dist/pagefind/pagefind-entry.json"))
            .unwrap()
            .modified()
            .unwrap(),
        made,
        "asked again with no new pages, it is not made again"
    );

    site.edit(
        "content/pages/news/first.md",
        "The first.",
        "The first, about quokkas.",
    );
    let saved = rebuild(&site, &mut session);
    index.pages_changed(saved.search.unwrap());
    assert_eq!(
        site.read("dist/pagefind/pagefind-entry.json"),
        entry,
        "the save alone indexes nothing"
    );
    index.make().unwrap();
    assert_ne!(
        site.read("dist/pagefind/pagefind-entry.json"),
        entry,
        "the next request indexes the saved words"
    );
}

#[test]
fn an_index_that_cannot_be_made_says_why_until_the_pages_change() {
    use site::output::search::{Deferred, Job};
    let site = Site::searchable();
    let mut session = Session::serving();
    let job = rebuild(&site, &mut session).search.unwrap();
    let index = Deferred::default();
    index.pages_changed(Job {
        indexer: "/bin/false".into(),
        ..job.clone()
    });
    let why = index.make().unwrap_err();
    assert!(why.contains("the search indexer failed"), "{why}");
    // Told again without running the indexer once more.
    assert_eq!(index.make().unwrap_err(), why);
    index.pages_changed(job);
    index.make().unwrap();
    assert!(site.path("dist/pagefind/pagefind.js").is_file());
}
