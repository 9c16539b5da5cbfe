//! Responsive images and social cards, over the plain fixture with raster files
//! each test paints itself: what a page links, what the output holds, what the
//! cache spares a warm build, and what a broken photo does to a build.

use crate::common::{hash_tree, Site};
use image::{ImageFormat, Rgb, RgbImage};

/// A gradient `width`×`height`, so encoders have real content to work on.
fn photo(width: u32, height: u32, seed: u8) -> RgbImage {
    RgbImage::from_fn(width, height, |x, y| {
        Rgb([
            (x * 255 / width) as u8,
            (y * 255 / height) as u8,
            seed.wrapping_add(((x + y) % 64) as u8),
        ])
    })
}

fn site_with_photo(name: &str, width: u32, height: u32, format: ImageFormat) -> Site {
    let site = Site::plain();
    photo(width, height, 40)
        .save_with_format(site.path(&format!("public/images/{name}")), format)
        .unwrap();
    site.edit(
        "content/pages/index.yaml",
        "/images/square.svg, alt: A square",
        &format!("/images/{name}, alt: A harbour at dawn"),
    );
    site
}

/// The `srcset` of the `<source>` or `<img>` whose attribute list contains `marker`.
fn srcset(html: &str, marker: &str) -> Vec<(String, u32)> {
    let tag = html
        .split('<')
        .find(|t| t.contains(marker) && t.contains("srcset="))
        .unwrap_or_else(|| panic!("no tag with {marker} in {html}"));
    let set = tag
        .split("srcset=\"")
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap();
    set.split(", ")
        .map(|c| {
            let (url, w) = c.rsplit_once(' ').unwrap();
            (url.to_string(), w.trim_end_matches('w').parse().unwrap())
        })
        .collect()
}

#[test]
fn a_photograph_becomes_a_picture_of_avif_webp_and_its_own_format_at_several_widths() {
    let site = site_with_photo("harbour.jpg", 1000, 600, ImageFormat::Jpeg);
    site.build_ok();
    let home = site.read("dist/index.html");

    assert!(
        home.contains("<picture><source type=\"image/avif\""),
        "{home}"
    );
    assert!(
        home.contains(r#"width="1000" height="600" alt="A harbour at dawn" loading="lazy""#),
        "{home}"
    );
    for (marker, ext) in [
        ("image/avif", "avif"),
        ("image/webp", "webp"),
        ("<img", "jpg"),
    ] {
        let marker = if marker == "<img" {
            "alt=\"A harbour"
        } else {
            marker
        };
        let set = srcset(&home, marker);
        let widths: Vec<u32> = set.iter().map(|(_, w)| *w).collect();
        assert_eq!(
            widths,
            [400, 800, 1000],
            "{ext}: never wider than the original"
        );
        for (url, width) in set {
            assert!(
                url.starts_with("/assets/images/harbour-") && url.ends_with(ext),
                "{url}"
            );
            let bytes = std::fs::read(site.dist().join(url.trim_start_matches('/'))).unwrap();
            if ext == "avif" {
                assert_eq!(&bytes[4..12], b"ftypavif", "{url} is an AVIF file");
            } else {
                let decoded = image::load_from_memory(&bytes).unwrap();
                assert_eq!(decoded.width(), width, "{url}");
                assert_eq!(
                    decoded.height(),
                    width * 600 / 1000,
                    "{url} keeps the shape"
                );
            }
        }
    }
    let webp = srcset(&home, "image/webp");
    let smallest = std::fs::metadata(site.dist().join(webp[0].0.trim_start_matches('/'))).unwrap();
    let original = std::fs::metadata(site.path("public/images/harbour.jpg")).unwrap();
    assert!(
        smallest.len() < original.len() / 2,
        "a phone downloads far less than the original"
    );
}

/// Many pages that show one new photo render side by side while it is encoded
/// the first time; each waits for it, and the build ends. (Three widths are
/// enough to keep them waiting: a larger photo only costs the test more.)
#[test]
fn pages_that_share_a_new_photo_wait_for_one_encoding_and_the_build_ends() {
    // Wide enough for two widths; every pixel more is only encoding time.
    let site = site_with_photo("harbour.png", 520, 290, ImageFormat::Png);
    let home = site.read("content/pages/index.yaml");
    for i in 0..24 {
        site.write(&format!("content/pages/harbour-{i}.yaml"), &home);
    }
    let (done, finished) = std::sync::mpsc::channel();
    let builder = std::thread::spawn(move || {
        site.build_ok();
        let _ = done.send(());
        site
    });
    finished
        .recv_timeout(std::time::Duration::from_secs(240))
        .expect("the build ended");
    let site = builder.join().unwrap();
    let page = site.read("dist/harbour-23/index.html");
    assert!(srcset(&page, "alt=\"A harbour").len() > 1, "{page}");
}

#[test]
fn a_small_png_is_offered_at_its_own_width_only_and_a_webp_needs_no_third_format() {
    let site = site_with_photo("badge.png", 300, 200, ImageFormat::Png);
    site.build_ok();
    let home = site.read("dist/index.html");
    assert_eq!(srcset(&home, "image/avif").len(), 1);
    assert_eq!(srcset(&home, "alt=\"A harbour")[0].1, 300);
    assert!(srcset(&home, "alt=\"A harbour")[0].0.ends_with(".png"));

    let site = site_with_photo("wide.webp", 900, 300, ImageFormat::WebP);
    site.build_ok();
    let home = site.read("dist/index.html");
    assert!(
        !home.contains(r#"<source type="image/webp""#),
        "the <img> is the WebP: {home}"
    );
    assert!(srcset(&home, "alt=\"A harbour")
        .iter()
        .all(|(u, _)| u.ends_with(".webp")));
}

#[test]
fn a_warm_build_reuses_every_variant_and_a_replaced_photo_gets_new_ones() {
    // Two widths, in three formats: what a warm build must keep, in a few encodings.
    let site = site_with_photo("harbour.jpg", 520, 290, ImageFormat::Jpeg);
    site.build_ok();
    let cache = site.path(".site/images");
    let before = hash_tree(&cache);
    let times = |dir: &std::path::Path| -> Vec<std::time::SystemTime> {
        let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().flatten().collect();
        entries.sort_by_key(|e| e.path());
        entries
            .iter()
            .map(|e| e.metadata().unwrap().modified().unwrap())
            .collect()
    };
    let written = times(&cache);
    let first = site.read("dist/index.html");

    site.edit(
        "content/pages/index.yaml",
        "Hello from the fixture",
        "Hello again",
    );
    site.build_ok();
    assert_eq!(hash_tree(&cache), before, "no variant is made again");
    assert_eq!(times(&cache), written, "no variant is even rewritten");

    photo(520, 290, 200)
        .save_with_format(site.path("public/images/harbour.jpg"), ImageFormat::Jpeg)
        .unwrap();
    site.build_ok();
    let second = site.read("dist/index.html");
    let url = |html: &str| srcset(html, "image/avif")[0].0.clone();
    assert_ne!(
        url(&first),
        url(&second),
        "a new photo is a new address, never a stale cache"
    );
    assert!(site
        .dist()
        .join(url(&second).trim_start_matches('/'))
        .is_file());
    assert!(
        !site
            .dist()
            .join(url(&first).trim_start_matches('/'))
            .exists(),
        "the old variants leave the output"
    );
}

#[test]
fn a_photo_that_cannot_be_read_fails_the_build_by_name_and_keeps_the_output() {
    // One width is enough: the build before the defect only makes an output to keep.
    let site = site_with_photo("harbour.jpg", 300, 200, ImageFormat::Jpeg);
    site.build_ok();
    let before = hash_tree(&site.dist());
    let photo = std::fs::read(site.path("public/images/harbour.jpg")).unwrap();

    // A JPEG's first bytes and nothing else: named at the content line that shows
    // it, as it loads.
    std::fs::write(
        site.path("public/images/harbour.jpg"),
        b"\xff\xd8\xff not really a JPEG",
    )
    .unwrap();
    let err = site.build_err();
    assert!(
        err.contains("error: content/pages/index.yaml:15:60: blocks[1].cards[1].image.src (in the 2nd block, its 2nd card): `/images/harbour.jpg` is not a picture: public/images/harbour.jpg is cut short"),
        "{err}"
    );
    assert_eq!(hash_tree(&site.dist()), before);

    // A picture under another format's name.
    let mut png = Vec::new();
    image::RgbImage::new(4, 4)
        .write_to(&mut std::io::Cursor::new(&mut png), ImageFormat::Png)
        .unwrap();
    std::fs::write(site.path("public/images/harbour.jpg"), &png).unwrap();
    let err = site.build_err();
    assert!(
        err.contains("`/images/harbour.jpg` is not a JPEG file: public/images/harbour.jpg is a PNG picture with the wrong name; rename it `.png`"),
        "{err}"
    );
    assert_eq!(hash_tree(&site.dist()), before);

    // Its header reads, its pixels do not: named when it is drawn.
    let mut cut = photo.clone();
    let half = cut.len() / 2;
    cut[half..].iter_mut().for_each(|b| *b = 0xff);
    std::fs::write(site.path("public/images/harbour.jpg"), &cut).unwrap();
    if let Err(diags) = site.build_with(&site.options()) {
        let err = site.render(&diags);
        assert!(err.contains("harbour.jpg"), "{err}");
        assert_eq!(hash_tree(&site.dist()), before);
    }
}

#[test]
fn every_page_and_the_404_page_get_a_1200_by_630_social_card_with_their_own_title() {
    let site = Site::plain();
    site.write(
        "templates/partials/head.html",
        r#"<meta property="og:image" content="{{ base_url ~ social_card(page.title) }}">"#,
    );
    site.write(
        "templates/social/card.svg",
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{{ width }}" height="{{ height }}"><rect width="1200" height="630" fill="#0b1f3a"/>{% for line in lines %}<rect x="80" y="{{ 200 + loop.index0 * 80 }}" width="{{ line|length * 30 }}" height="60" fill="#fff"/>{% endfor %}</svg>"##,
    );
    site.build_ok();
    let card = |file: &str| {
        let html = site.read(&format!("dist/{file}"));
        let url = html
            .split(r#"<meta property="og:image" content="https://fixture.example"#)
            .nth(1)
            .and_then(|s| s.split('"').next())
            .unwrap_or_else(|| panic!("no og:image in {html}"))
            .to_string();
        assert!(
            url.starts_with("/assets/social/") && url.ends_with(".png"),
            "{url}"
        );
        let png = image::open(site.dist().join(url.trim_start_matches('/'))).unwrap();
        assert_eq!((png.width(), png.height()), (1200, 630));
        png.to_rgb8()
    };
    let home = card("index.html");
    let about = card("about/index.html");
    card("404.html");
    assert_eq!(
        home.get_pixel(5, 5),
        &Rgb([0x0b, 0x1f, 0x3a]),
        "the template's background"
    );
    assert!(home != about, "each card carries its page's title");
    assert_eq!(
        home.get_pixel(90, 210),
        &Rgb([255, 255, 255]),
        "the title's first line"
    );
}
