//! Bad input: every error of a run is reported with file, line, column and field
//! path, the exit status is non-zero, and the previous output is left as it was.

mod common;

use common::{hash_tree, Site};

const INDEX: &str = "content/pages/index.yaml";

fn break_index(site: &Site, from: &str, to: &str) {
    let text = site.read(INDEX);
    assert!(text.contains(from), "fixture has no {from:?}");
    site.write(INDEX, &text.replacen(from, to, 1));
}

#[test]
fn bad_yaml_is_reported_with_its_position() {
    let site = Site::new("basic");
    break_index(
        &site,
        "heading: Hello from the fixture",
        "heading: [Hello from the fixture",
    );
    let err = site.build_err();
    assert!(err.contains("error: content/pages/index.yaml:"), "{err}");
    assert!(err.contains("invalid YAML"), "{err}");
}

#[test]
fn a_wrong_type_names_the_field_path_line_and_column() {
    let site = Site::new("basic");
    break_index(
        &site,
        "  - type: card_grid\n    heading: Cards",
        "  - type: card_grid\n    heading: [Cards, More]",
    );
    let err = site.build_err();
    assert!(
        err.contains("error: content/pages/index.yaml:10:14: blocks[1].heading: invalid type: sequence, expected a string"),
        "{err}"
    );
}

#[test]
fn a_missing_required_field_names_its_block() {
    let site = Site::new("basic");
    break_index(&site, "    text: Server-rendered & escaped <text>.\n", "");
    let err = site.build_err();
    assert!(
        err.contains("error: content/pages/index.yaml:4:5: blocks[0]: missing field `text`"),
        "{err}"
    );
}

#[test]
fn an_unknown_block_type_lists_the_known_ones() {
    let site = Site::new("basic");
    break_index(&site, "type: card_grid", "type: carousel");
    let err = site.build_err();
    assert!(
        err.contains("error: content/pages/index.yaml:9:11: blocks[1].type: unknown block type `carousel`, expected one of hero, card_grid"),
        "{err}"
    );
}

#[test]
fn an_unknown_field_is_rejected_at_its_key() {
    let site = Site::new("basic");
    break_index(
        &site,
        "    heading: Cards\n",
        "    heading: Cards\n    colour: red\n",
    );
    let err = site.build_err();
    assert!(
        err.contains("content/pages/index.yaml:11:5: blocks[1].colour: unknown field `colour`"),
        "{err}"
    );
}

#[test]
fn every_error_of_a_run_is_reported_at_once() {
    let site = Site::new("basic");
    break_index(&site, "type: card_grid", "type: carousel");
    break_index(&site, "    text: Server-rendered & escaped <text>.\n", "");
    site.write(
        "content/pages/about.md",
        "---\ntitle: About\ndescription: D\ndate: someday\n---\nx\n",
    );
    site.write(
        "content/site.yaml",
        &site
            .read("content/site.yaml")
            .replace("name: Fixture Co", "name: Fixture Co\nlogo: x.png"),
    );
    let err = site.build_err();
    assert!(
        err.contains("content/pages/index.yaml:4:5: blocks[0]: missing field `text`"),
        "{err}"
    );
    // The removed line moves the block up by one.
    assert!(
        err.contains("content/pages/index.yaml:8:11: blocks[1].type: unknown block type"),
        "{err}"
    );
    assert!(err.contains("content/pages/about.md:4:7: date: invalid date `someday`, expected a date written YYYY-MM-DD"), "{err}");
    assert!(
        err.contains("content/site.yaml:2:1: logo: unknown field `logo`"),
        "{err}"
    );
    assert!(err.contains("4 errors found"), "{err}");
}

#[test]
fn a_failed_build_leaves_the_previous_output_byte_for_byte() {
    let site = Site::new("basic");
    site.build_ok(&[]);
    let before = hash_tree(&site.dist());
    break_index(&site, "type: card_grid", "type: carousel");
    site.build_err();
    assert_eq!(before, hash_tree(&site.dist()));
    // Nothing half-written is left beside it either.
    let leftovers: Vec<String> = std::fs::read_dir(&site.root)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().to_string())
        .filter(|n| n.contains(".tmp-"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn two_files_claiming_one_route_is_an_error() {
    let site = Site::new("basic");
    site.write(
        "content/pages/about.yaml",
        "title: A\ndescription: B\nblocks: []\n",
    );
    let err = site.build_err();
    assert!(err.contains("the route `/about/` is claimed by both content/pages/about.md and content/pages/about.yaml"), "{err}");
}

#[test]
fn a_template_error_names_the_template_line_and_column() {
    let site = Site::new("basic");
    site.write(
        "templates/blocks/hero.html",
        "<section>\n  <h1>{{ block.headline }}</h1>\n</section>\n",
    );
    let err = site.build_err();
    assert!(
        err.contains("error: templates/blocks/hero.html:2:10: undefined value"),
        "{err}"
    );
    assert!(err.contains("rendering content/pages/index.yaml"), "{err}");
}

#[test]
fn template_syntax_errors_are_all_reported() {
    let site = Site::new("basic");
    site.write("templates/blocks/hero.html", "{% if block.eyebrow %}\n");
    site.write("templates/blocks/card_grid.html", "{{ block.heading \n");
    let err = site.build_err();
    assert!(err.contains("templates/blocks/hero.html:"), "{err}");
    assert!(err.contains("templates/blocks/card_grid.html:"), "{err}");
    assert!(err.contains("2 errors found"), "{err}");
}

#[test]
fn an_unknown_island_or_directive_is_a_template_error() {
    let site = Site::new("basic");
    site.write(
        "templates/layouts/with-badge.html",
        "{{ island(\"Carousel\", {}) }}\n{{ island(\"Badge\", {\"text\": \"x\"}, hydrate=\"later\") }}\n",
    );
    let err = site.build_err();
    assert!(err.contains("unknown island `Carousel`"), "{err}");
    assert!(
        err.contains("(Badge, ContactForm, Header, RoleSelector, Toaster)"),
        "{err}"
    );
    site.write(
        "templates/layouts/with-badge.html",
        "{{ island(\"Badge\", {\"text\": \"x\"}, hydrate=\"later\") }}\n",
    );
    let err = site.build_err();
    assert!(
        err.contains(
            "unknown hydrate directive `later`, expected one of load, idle, visible, none"
        ),
        "{err}"
    );
}

#[test]
fn a_broken_island_is_reported_with_file_line_and_column() {
    let site = Site::new("basic");
    site.write(
        "islands/Badge.tsx",
        "export default function Badge() {\n  return <span>oops</div>;\n}\n",
    );
    let err = site.build_err();
    assert!(err.contains("error: islands/Badge.tsx:2:"), "{err}");
    assert!(
        err.contains("Unexpected closing \"div\" tag does not match opening \"span\" tag"),
        "{err}"
    );
}

#[test]
fn an_island_that_throws_while_rendering_names_itself() {
    let site = Site::new("basic");
    site.write(
        "islands/Badge.tsx",
        "export default function Badge(): never {\n  throw new Error(\"no badge today\");\n}\n",
    );
    let err = site.build_err();
    assert!(err.contains("island `Badge` failed to render"), "{err}");
    assert!(err.contains("no badge today"), "{err}");
    assert!(err.contains("templates/layouts/with-badge.html:4"), "{err}");
}

/// The settings a production build needs, as CI sets them.
const PRODUCTION: [(&str, &str); 4] = [
    ("SITE_PRODUCTION", "1"),
    ("SITE_BASE_URL", "https://www.fixture-company.com"),
    ("SITE_STORAGE_URL", "https://abcdefghijklmnop.supabase.co"),
    ("SITE_STORAGE_ANON_KEY", "sb_publishable_fixture"),
];

#[test]
fn a_production_build_refuses_to_run_without_its_settings() {
    let site = Site::new("basic");
    site.build_ok(&[]);
    let before = hash_tree(&site.dist());
    let out = site.build_with_env(&["--production"], &[]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("error: content/site.yaml:2:11: base_url: `https://fixture.example` cannot be the address of the live site: fixture.example is a placeholder or local address"),
        "{err}"
    );
    assert!(
        err.contains(
            "error: content/site.yaml: storage.url: a production build needs the storage URL"
        ),
        "{err}"
    );
    assert!(
        err.contains("SITE_STORAGE_URL"),
        "says how to set it: {err}"
    );
    assert!(
        err.contains(
            "storage.anon_key: a production build needs the project's anon (publishable) key"
        ),
        "{err}"
    );
    assert!(err.contains("3 errors found"), "{err}");
    assert_eq!(hash_tree(&site.dist()), before, "the previous output stays");

    // SITE_PRODUCTION alone makes it a production build too.
    let out = site.build_with_env(&[], &[("SITE_PRODUCTION", "1")]);
    assert!(!out.status.success());
}

#[test]
fn a_production_build_publishes_only_to_the_storage_it_names() {
    let site = Site::new("basic");
    let out = site.build_with_env(&[], &PRODUCTION);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("(production, cloudflare-pages)"));
    let headers = site.read("dist/_headers");
    assert!(
        headers.contains("connect-src 'self' https://abcdefghijklmnop.supabase.co;"),
        "{headers}"
    );
    assert_eq!(headers.matches("supabase.co").count(), 1, "{headers}");
    assert!(site
        .read("dist/sitemap.xml")
        .contains("<loc>https://www.fixture-company.com/about/</loc>"));

    let insecure = site.build_with_env(
        &[],
        &[
            PRODUCTION[0],
            PRODUCTION[1],
            ("SITE_STORAGE_URL", "http://abcdefghijklmnop.supabase.co"),
            PRODUCTION[3],
        ],
    );
    let err = String::from_utf8_lossy(&insecure.stderr);
    assert!(
        err.contains("storage.url: `http://abcdefghijklmnop.supabase.co` cannot receive uploads: it must start with https://"),
        "{err}"
    );
}

#[test]
fn a_development_build_without_storage_only_warns() {
    let site = Site::new("basic");
    let out = site.build(&[]);
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("warning: storage.url is empty"), "{err}");
}
