//! A build's memory grows with its pages in proportion, and no faster than
//! today's: each post of the benchmark site may add at most `LIMIT` to the peak.
//! The peak is what `site build --verbose` reports (the kernel's high-water
//! mark), for the benchmark site with 1,000 and 10,000 posts, with the same
//! binary in one run; the difference over the 9,000 posts between is what a post
//! costs, free of the fixed cost of a build. Memory is not noisy as time is, so a
//! fixed bound holds. (100,000 posts within 900 MiB needs at most 9.2 KiB a post;
//! a post of these costs about 3.5 KiB.)

mod common;

use std::path::Path;
use std::process::Command;

use common::{bench_post, copy_tree};

/// The most a post may add to the peak, in KiB.
const LIMIT: f64 = 5.0;

/// Builds the benchmark site with `n` posts; its peak memory in MiB, if the
/// system reports one.
fn peak_with(n: usize) -> Option<f64> {
    peak_of(n, None).0
}

/// Builds the benchmark site with `n` posts, the first of them followed by
/// `long` when given; its peak memory in MiB, if the system reports one, and
/// the first post's page.
fn peak_of(n: usize, long: Option<&str>) -> (Option<f64>, String) {
    let base =
        Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("memory-{}", std::process::id()));
    let root = base.join(format!("site-{n}"));
    let _ = std::fs::remove_dir_all(&root);
    let project = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    copy_tree(&project.join("bench").join("site"), &root);
    for i in 1..=n {
        let file = root.join(format!("content/pages/posts/p{i:05}.md"));
        let mut post = bench_post(i, n);
        if let (1, Some(long)) = (i, long) {
            post.push_str(long);
        }
        std::fs::write(file, post).unwrap();
    }
    let shm = Path::new("/dev/shm");
    let out = if shm.is_dir() {
        shm.to_path_buf()
    } else {
        base.clone()
    }
    .join(format!("site-memory-{n}-{}", std::process::id()));
    let output = Command::new(env!("CARGO_BIN_EXE_site"))
        .args(["build", "--verbose", "--root"])
        .arg(&root)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    let first = std::fs::read_to_string(out.join("posts/p00001/index.html")).unwrap_or_default();
    let _ = std::fs::remove_dir_all(&out);
    let _ = std::fs::remove_dir_all(&root);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    (peak_in(&stdout), first)
}

/// The peak that `site build --verbose` printed. Linux always reports one (the
/// kernel's `VmHWM`), so there a report without it is a failure: the guard must
/// never pass by measuring nothing. Elsewhere there may be nothing to compare.
fn peak_in(report: &str) -> Option<f64> {
    let peak = report
        .lines()
        .find_map(|l| l.trim().strip_prefix("peak memory: "))
        .and_then(|m| m.trim_end_matches(" MiB").parse().ok());
    if peak.is_none() && cfg!(target_os = "linux") {
        panic!("`site build --verbose` reported no peak memory on Linux, which always has one:\n{report}");
    }
    peak
}

#[test]
#[cfg(target_os = "linux")]
#[should_panic(expected = "reported no peak memory")]
fn a_report_without_its_peak_fails_on_linux() {
    peak_in("Built 3 pages, 9 files in 12 ms\n  peak memory: soon\n");
}

#[test]
fn the_peak_is_read_from_the_report() {
    assert_eq!(
        peak_in("Built 3 pages\n  peak memory: 157.5 MiB\n"),
        Some(157.5)
    );
}

#[test]
fn a_post_adds_no_more_memory_than_it_did() {
    let (Some(small), Some(large)) = (peak_with(1_000), peak_with(10_000)) else {
        eprintln!("this system reports no peak memory: nothing to compare (never on Linux)");
        return;
    };
    let per_post = (large - small) * 1024.0 / 9_000.0;
    eprintln!("peak memory: {small:.1} MiB with 1,000 posts, {large:.1} MiB with 10,000: {per_post:.2} KiB a post");
    assert!(
        per_post <= LIMIT,
        "a post adds {per_post:.2} KiB to the build's peak memory (at most {LIMIT}): \
         {small:.1} MiB with 1,000 posts, {large:.1} MiB with 10,000"
    );
}

/// A long page is held about once, as its source and its HTML, while it is
/// read, rendered, written and hashed for the search index: never as whole
/// copies of its HTML beside the body it was made from. Its page is the same
/// as a short one's around the body.
#[test]
fn a_long_page_is_held_about_once() {
    let paragraphs = 120_000;
    let long: String = (0..paragraphs)
        .map(|i| {
            format!("Paragraph {i} of a long reference page, with words to read and index.\n\n")
        })
        .collect();
    let size = long.len() as f64 / (1024.0 * 1024.0);
    let (Some(short), _) = peak_of(100, None) else {
        eprintln!("this system reports no peak memory: nothing to compare (never on Linux)");
        return;
    };
    let (Some(with_long), page) = peak_of(100, Some(&long)) else {
        return;
    };
    assert!(
        page.contains("<p>Paragraph 0 of a long reference page"),
        "{}",
        &page[..page.len().min(2000)]
    );
    assert!(page.contains(&format!("<p>Paragraph {} of", paragraphs - 1)));
    assert!(
        page.trim_end().ends_with("</html>"),
        "the page ends after its body"
    );
    assert!(
        !page.contains('\u{0}'),
        "no mark of the body's place is left"
    );
    let html = page.len() as f64 / (1024.0 * 1024.0);
    let added = with_long - short;
    eprintln!("a page of {size:.1} MiB of Markdown ({html:.1} MiB of HTML) adds {added:.1} MiB to the peak");
    // Its source and its HTML once each, and some room: a whole copy of the
    // page's HTML more would pass it.
    let bound = size + 2.0 * html;
    assert!(
        added <= bound,
        "a page of {size:.1} MiB of Markdown ({html:.1} MiB of HTML) adds {added:.1} MiB to the build's peak memory, \
         more than {bound:.1} MiB: its HTML is held more than once"
    );
}
