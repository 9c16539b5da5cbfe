//! The content editor's files in a build of the islands fixture with the
//! editor's script: what `/admin/` is told about the site. These builds run
//! esbuild.

use crate::common::Site;

/// The islands fixture with the editor's script and `admin:` turned on.
fn site_with_editor() -> Site {
    let site = Site::islands();
    site.write("islands/admin/main.ts", "console.log(\"the editor\");\n");
    let yaml = site.read("content/site.yaml");
    site.write(
        "content/site.yaml",
        &format!("{yaml}\nadmin: {{ enabled: true, repo: fixture/site }}\n"),
    );
    site
}

#[test]
fn the_editor_links_to_the_base_url_the_build_was_given() {
    let site = site_with_editor();
    site.build_ok();
    let config = site.read("dist/admin/config.json");
    assert!(
        config.contains(r#""site_url":"https://fixture.example""#),
        "site.yaml's base_url: {config}"
    );

    // `--base-url` overrides site.yaml's for the whole build, the editor's
    // link to the site included.
    let mut options = site.options();
    options.base_url = Some("https://staging.fixture.example".into());
    site.build_ok_with(&options);
    let config = site.read("dist/admin/config.json");
    assert!(
        config.contains(r#""site_url":"https://staging.fixture.example""#),
        "the command line's base_url: {config}"
    );
}
