//! Every broken fixture and what the build says about it, compared in full with
//! its snapshot in `tests/suite/snapshots/diagnostics/`.
//!
//! A case is a folder of `tests/broken/`: files laid over the plain fixture (over
//! the islands one when the folder has a `.base` reading `islands`), a `.remove`
//! listing files to delete, and a `.options` that may read `production`. After
//! Each case also starts from an earlier build's `dist/`, which must survive the
//! failed build unchanged. After changing a message, review the new snapshots with `cargo insta review`, or
//! accept them with `INSTA_UPDATE=always cargo test --test suite diagnostics`.

use std::path::Path;

use crate::common::Site;

fn read(case: &Path, name: &str) -> String {
    std::fs::read_to_string(case.join(name)).unwrap_or_default()
}

/// What the build says about one case.
fn diagnose(case: &Path) -> String {
    let base = read(case, ".base");
    let site = match base.trim() {
        "islands" => Site::islands(),
        _ => Site::plain(),
    };
    for entry in walkdir::WalkDir::new(case).into_iter().flatten() {
        let rel = entry.path().strip_prefix(case).unwrap();
        let name = rel.to_string_lossy();
        let meta = name.starts_with('.') || name == "README.md";
        if entry.file_type().is_file() && !meta {
            let dest = site.root.join(rel);
            std::fs::create_dir_all(dest.parent().unwrap()).unwrap();
            std::fs::copy(entry.path(), dest).unwrap();
        }
    }
    for rel in read(case, ".remove")
        .lines()
        .filter(|l| !l.trim().is_empty())
    {
        site.remove(rel.trim());
    }
    let mut options = site.options();
    options.production = read(case, ".options").contains("production");
    // What an earlier build left must survive the failed one, byte for byte.
    site.write(
        "dist/index.html",
        "<!doctype html><title>The last good build</title>",
    );
    site.write("dist/assets/site.css", "body { color: black }");
    let before = crate::common::hash_tree(&site.dist());
    let said = site.build_err_with(&options);
    assert_eq!(
        crate::common::hash_tree(&site.dist()),
        before,
        "{}: the failed build changed dist/",
        case.display()
    );
    said
}

#[test]
fn every_broken_fixture_fails_with_its_diagnostics() {
    let broken = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("broken");
    let mut cases: Vec<_> = std::fs::read_dir(&broken)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    cases.sort();
    assert!(cases.len() >= 20, "{} cases", cases.len());
    // The cases build side by side; their snapshots are compared in order.
    let said: Vec<(String, String)> = std::thread::scope(|scope| {
        let running: Vec<_> = cases
            .iter()
            .map(|case| {
                let name = case.file_name().unwrap().to_string_lossy().to_string();
                (name, scope.spawn(move || diagnose(case)))
            })
            .collect();
        running
            .into_iter()
            .map(|(name, handle)| (name, handle.join().expect("a case panicked")))
            .collect()
    });
    // One folder of snapshots for this test, named by case alone.
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path("snapshots/diagnostics");
    settings.set_prepend_module_to_snapshot(false);
    settings.bind(|| {
        for (name, text) in said {
            insta::assert_snapshot!(name, text);
        }
    });
}
