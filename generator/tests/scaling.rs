//! The build is linear: in the number of pages, and in the size of a page. Each
//! check builds the same kind of site at two sizes ten times apart, with the same
//! binary in the same run, and compares the time each page (or each paragraph, or
//! each card) costs at both: a step whose cost grows with the square of the size
//! costs about ten times more per unit at the larger size, a linear one the same.
//! The fixed cost of a build is measured on its own (the site at size zero) and
//! taken off first. Ratios within one run, so the machine's speed cancels out.
//!
//! The sitemap writer is also measured on its own, past the limits that cut a
//! sitemap into several (a build that large would take minutes).
//!
//! Times are from a few builds (one of the larger site; more when a site fails,
//! as `check` says), in CPU time where the system tells it, so the browser
//! tests that `make test` runs beside this one do not count; output on tmpfs
//! where there is one. This is the only test of its binary, so no other test
//! runs beside it.

mod common;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use common::{bench_post as post, copy_tree};
use site::build::{build_in, Session};
use site::BuildOptions;

/// The most a unit may cost at ten times the size, relative to the smaller.
const LIMIT: f64 = 1.5;
/// Builds of the empty and the smaller site in each attempt.
const RUNS: usize = 3;
/// Measurements of a site, at most, before it fails.
const ATTEMPTS: usize = 4;

/// A site in a fresh folder under the project (esbuild and Node are never needed,
/// but templates resolve the same way as the other tests').
struct Scratch {
    root: PathBuf,
    out: PathBuf,
}

impl Scratch {
    fn new(name: &str) -> Scratch {
        let base = Path::new(env!("CARGO_TARGET_TMPDIR")).join("scaling");
        let root = base.join(format!("{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(&root).unwrap();
        // The output on tmpfs: the disk's timings would swamp the build's.
        let shm = Path::new("/dev/shm");
        let out_base = if shm.is_dir() {
            shm.to_path_buf()
        } else {
            base
        };
        let out = out_base.join(format!("site-scaling-{name}-{}", std::process::id()));
        Scratch { root, out }
    }

    fn write(&self, rel: &str, text: &str) {
        let path = self.root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    /// `runs` builds' timings, in CPU time where the system tells it: tests
    /// beside this one (the browser's) delay a build without making it use more.
    fn build(&self, runs: usize) -> Vec<Timing> {
        let options = BuildOptions {
            root: self.root.clone(),
            out: self.out.clone(),
            ..BuildOptions::default()
        };
        (0..runs)
            .map(|_| {
                let _ = std::fs::remove_dir_all(&self.out);
                // `site::build` frees its session on a thread of its own, beside
                // the next build; freed here instead, before the next is measured.
                let mut session = Session::default();
                let built = build_in(&options, &mut session);
                drop(session);
                let report = match built {
                    Ok(r) => r,
                    Err(d) => panic!("{}", site::diagnostics::render(&d, false)),
                };
                match report.cpu {
                    Some(cpu) => Timing {
                        total: cpu,
                        stages: report.cpu_stages,
                    },
                    None => Timing {
                        total: report.elapsed,
                        stages: report.stages,
                    },
                }
            })
            .collect()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
        let _ = std::fs::remove_dir_all(&self.out);
    }
}

struct Timing {
    total: Duration,
    stages: Vec<(&'static str, Duration)>,
}

impl Timing {
    /// Of several measurements of the same site, whole and stage by stage, the
    /// value `pick` chooses from each one's sorted values.
    fn each(all: &[Timing], pick: fn(&[Duration]) -> Duration) -> Timing {
        let of = |mut values: Vec<Duration>| {
            values.sort();
            pick(&values)
        };
        Timing {
            total: of(all.iter().map(|t| t.total).collect()),
            stages: all[0]
                .stages
                .iter()
                .enumerate()
                .map(|(i, &(name, _))| (name, of(all.iter().map(|t| t.stages[i].1).collect())))
                .collect(),
        }
    }

    /// The best: what the work costs, when noise only adds time.
    fn best(all: &[Timing]) -> Timing {
        Timing::each(all, |v| v[0])
    }

    /// The (lower) median: what the work costs when noise goes both ways.
    fn median(all: &[Timing]) -> Timing {
        Timing::each(all, |v| v[(v.len() - 1) / 2])
    }
}

/// Builds at size 0, `n` and `10 n` (`grow` brings the site to a size; at 0 the
/// page it grows is left out). A unit must cost at most `LIMIT` times as much at
/// the larger size, in the whole build and in each stage that takes a tenth of
/// it or more (a quadratic stage beside a slow linear one would hide in the
/// total). The figures, stage by stage, are printed (`cargo test -- --nocapture`);
/// the problems are returned.
///
/// A machine busy with other work (the browser tests beside this one) can add
/// half again to one build's CPU time, at either size. So a site that fails is
/// built again at each size, up to `ATTEMPTS` times in all, each size keeping
/// every measurement: the figures converge on what the work costs, and the site
/// fails only if it still fails then (a step that is really quadratic does,
/// however often it is measured). The site at size 0 and the larger one are
/// taken at their best. The smaller one at its median: in this machine's slow
/// hours the CPU clock now and then read one of its stages far below its cost
/// (`render` at 56 % and 66 % of what it costs alone, in two fresh clones' runs
/// of `make test`), and a best kept that, making a linear site fail.
#[must_use]
fn check(
    what: &str,
    unit: &str,
    n: usize,
    site: &Scratch,
    grow: impl Fn(&Scratch, usize),
) -> Vec<String> {
    let sizes = [0, n, 10 * n];
    let mut measured: [Vec<Timing>; 3] = [Vec::new(), Vec::new(), Vec::new()];
    let mut problems = Vec::new();
    for attempt in 0..ATTEMPTS {
        if attempt > 0 {
            eprintln!("{what}: measuring again, to tell a slow step from a busy machine");
        }
        for (i, &size) in sizes.iter().enumerate() {
            grow(site, size);
            // The larger site is built once an attempt: it is most of the
            // test's time.
            let runs = if size == 10 * n { 1 } else { RUNS };
            measured[i].extend(site.build(runs));
        }
        let (base, small, large) = (
            Timing::best(&measured[0]),
            Timing::median(&measured[1]),
            Timing::best(&measured[2]),
        );
        problems = compare(what, unit, (&base, (n, &small), (10 * n, &large)));
        if problems.is_empty() {
            break;
        }
    }
    problems
}

/// The problems of one site's timings: at size 0, `small` and `large`.
fn compare(
    what: &str,
    unit: &str,
    (base, small, large): (&Timing, (usize, &Timing), (usize, &Timing)),
) -> Vec<String> {
    let per_unit =
        |size: usize, t: Duration, b: Duration| t.saturating_sub(b).as_secs_f64() / size as f64;
    let total_small = per_unit(small.0, small.1.total, base.total);
    let total_large = per_unit(large.0, large.1.total, base.total);
    let mut problems = Vec::new();
    let mut report = format!(
        "{what}: {:.1} µs a {unit} at {} {unit}s, {:.1} µs at {} (×{:.2}; a build of none: {} ms)\n",
        total_small * 1e6,
        small.0,
        total_large * 1e6,
        large.0,
        total_large / total_small,
        base.total.as_millis(),
    );
    if total_large / total_small > LIMIT {
        problems.push(format!(
            "{what}: a {unit} costs ×{:.2} at ten times the size",
            total_large / total_small
        ));
    }
    for (i, (stage, _)) in base.stages.iter().enumerate() {
        let stage_of = |t: &Timing| t.stages.get(i).map_or(Duration::ZERO, |s| s.1);
        let small_unit = per_unit(small.0, stage_of(small.1), stage_of(base));
        let large_unit = per_unit(large.0, stage_of(large.1), stage_of(base));
        let ratio = large_unit / small_unit.max(f64::MIN_POSITIVE);
        // A stage too quick to measure at the small size has no ratio worth printing.
        let shown = if small_unit > 1e-9 {
            format!("×{ratio:.2}")
        } else {
            "too quick to compare".into()
        };
        let _ = writeln!(
            report,
            "  {stage:<14} {:>8.2} µs → {:>8.2} µs a {unit} ({shown})",
            small_unit * 1e6,
            large_unit * 1e6,
        );
        if large_unit >= total_large / 10.0 && ratio > LIMIT {
            problems.push(format!(
                "{what}: its `{stage}` stage costs ×{ratio:.2} a {unit} at ten times the size"
            ));
        }
    }
    eprintln!("{report}");
    problems
        .into_iter()
        .map(|p| format!("{p} (at most ×{LIMIT})\n{report}"))
        .collect()
}

fn project() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

#[test]
fn the_build_is_linear_in_its_pages_and_in_the_size_of_a_page() {
    let mut problems = Vec::new();
    // Pages: the benchmark site (Hugo's pages) with 0, 1,000 and 10,000 posts.
    let pages = Scratch::new("pages");
    copy_tree(&project().join("bench").join("site"), &pages.root);
    let posts = pages.root.join("content/pages/posts");
    problems.extend(check("the build", "page", 1_000, &pages, |site, n| {
        for entry in std::fs::read_dir(&posts).unwrap().flatten() {
            if entry.file_name() != "index.md" {
                std::fs::remove_file(entry.path()).unwrap();
            }
        }
        for i in 1..=n {
            site.write(&format!("content/pages/posts/p{i:05}.md"), &post(i, n));
        }
    }));

    // Three languages: every post in English, German and Arabic, so every page
    // names its two translations (`hreflang`, the switcher, the sitemap; the
    // benchmark site's templates show them).
    let languages = Scratch::new("languages");
    copy_tree(&project().join("bench").join("site"), &languages.root);
    let config = std::fs::read_to_string(languages.root.join("content/site.yaml")).unwrap();
    languages.write(
        "content/site.yaml",
        &format!(
            "{config}languages:\n{}{}{}",
            "  - { code: en, name: English, date_format: \"%B %-d, %Y\" }\n",
            "  - { code: de, name: Deutsch, date_format: \"%-d. %B %Y\" }\n",
            "  - { code: ar, name: العربية, direction: rtl, date_format: \"%-d %B %Y\" }\n"
        ),
    );
    let language_posts = languages.root.join("content/pages/posts");
    problems.extend(check(
        "a site in three languages (a post is three pages)",
        "post",
        300,
        &languages,
        |site, n| {
            for entry in std::fs::read_dir(&language_posts).unwrap().flatten() {
                if !entry.file_name().to_string_lossy().starts_with("index") {
                    std::fs::remove_file(entry.path()).unwrap();
                }
            }
            for i in 1..=n {
                for suffix in ["", ".de", ".ar"] {
                    site.write(
                        &format!("content/pages/posts/p{i:05}{suffix}.md"),
                        &post(i, n),
                    );
                }
            }
        },
    ));

    // A collection in three languages: articles that each link to their
    // neighbours in their language, in a feed per language and category, and
    // each language's listing, cut into pages with numbered links, with every
    // category's page. German translates every article, Arabic four in five,
    // so its lists also show the English articles it lacks.
    let news = Scratch::new("collection");
    copy_tree(
        &project().join("generator/tests/fixtures/plain"),
        &news.root,
    );
    let config = std::fs::read_to_string(news.root.join("content/site.yaml")).unwrap();
    news.write(
        "content/site.yaml",
        &format!(
            "{config}collections: [news]\nlanguages:\n{}{}{}",
            "  - { code: en, name: English, date_format: \"%B %-d, %Y\" }\n",
            "  - { code: de, name: Deutsch, date_format: \"%-d. %B %Y\" }\n",
            "  - { code: ar, name: العربية, direction: rtl, date_format: \"%-d %B %Y\" }\n"
        ),
    );
    news.write(
        "templates/layouts/article.html",
        "{% extends \"base.html\" %}{% block content %}<h1>{{ page.title }}</h1>{{ page.content|safe }}\
         {% set around = article_neighbours(page.route) %}{% if around.older %}<a rel=\"prev\" href=\"{{ around.older.route }}\">{{ around.older.title }}</a>{% endif %}\
         {% if around.newer %}<a rel=\"next\" href=\"{{ around.newer.route }}\">{{ around.newer.title }}</a>{% endif %}{% endblock %}",
    );
    for (suffix, title) in [("", "News"), (".de", "Neuigkeiten"), (".ar", "الأخبار")] {
        news.write(
            &format!("content/pages/news{suffix}.md"),
            &format!("---\ntitle: {title}\ndescription: All of it.\nlayout: listing\n---\n"),
        );
    }
    news.write(
        "templates/layouts/listing.html",
        "{% extends \"base.html\" %}{% block content %}<h1>{{ page.title }}</h1>{% set featured = featured_article(\"news\") %}\
         {% set list = listing_at(page.route) %}{% for a in list.items %}<a href=\"{{ a.route }}\" lang=\"{{ a.lang }}\">{{ a.title }}</a>{% endfor %}\
         {% for l in list.links %}<a href=\"{{ l.url }}\">{{ l.number }}</a>{% endfor %}\
         {% for f in facets(list.collection, \"category\") %}<a href=\"{{ f.url }}\">{{ f.name }}</a>{% endfor %}{% endblock %}",
    );
    let news_dir = news.root.join("content/pages/news");
    problems.extend(check(
        "a collection in three languages",
        "news item",
        300,
        &news,
        |site, n| {
            let _ = std::fs::remove_dir_all(&news_dir);
            std::fs::create_dir_all(&news_dir).unwrap();
            for i in 1..=n.max(1) {
                for (suffix, category) in [("", "Research"), (".de", "Forschung"), (".ar", "بحث")] {
                    if suffix == ".ar" && i % 5 == 0 {
                        continue;
                    }
                    site.write(
                        &format!("content/pages/news/a{i:05}{suffix}.md"),
                        &format!(
                            "---\ntitle: Article {i}\ndescription: About {i}.\ndate: {}-{:02}-{:02}\nauthor: Ada Writer\n\
                             category: {category} {}\nimage: /images/square.svg\nalt: A square\n---\nThe body of {i}, with [a link](/about).\n",
                            2015 + i % 10,
                            1 + i % 12,
                            1 + i % 28,
                            i % 4,
                        ),
                    );
                }
            }
        },
    ));

    // A long Markdown page: paragraphs that each link to another page.
    let markdown = Scratch::new("markdown");
    copy_tree(
        &project().join("generator/tests/fixtures/plain"),
        &markdown.root,
    );
    problems.extend(check(
        "a Markdown page",
        "paragraph",
        10_000,
        &markdown,
        |site, n| {
            let _ = std::fs::remove_file(site.root.join("content/pages/careers.md"));
            if n == 0 {
                return;
            }
            let mut body = String::from("---\ntitle: Careers\ndescription: Work with us.\n---\n");
            for i in 0..n {
                let _ = write!(
                body,
                "Paragraph {i}: join a team that ships work for millions; [talk to us](/about) about a role.\n\n"
            );
            }
            site.write("content/pages/careers.md", &body);
        },
    ));

    // A long YAML page: one block of many cards.
    let cards = Scratch::new("cards");
    copy_tree(
        &project().join("generator/tests/fixtures/plain"),
        &cards.root,
    );
    problems.extend(check("a YAML page", "card", 1_000, &cards, |site, n| {
        let _ = std::fs::remove_file(site.root.join("content/pages/offices.yaml"));
        if n == 0 {
            return;
        }
        let mut page = String::from(
            "title: Offices\ndescription: Where we are.\nlayout: page\nblocks:\n  - type: card_grid\n    heading: Offices\n    cards:\n",
        );
        for i in 0..n {
            let _ = writeln!(
                page,
                "      - {{ title: \"Office {i}\", icon: star, text: \"Open *every* day; [write](/about) to office {i}.\" }}"
            );
        }
        site.write("content/pages/offices.yaml", &page);
    }));
    problems.extend(sitemap_writer());
    assert!(problems.is_empty(), "not linear:\n{}", problems.join("\n"));
}

/// The sitemap writer past its limits, on its own: a build of the hundreds of
/// thousands of pages that cut the sitemap would take minutes, the writer alone
/// a fraction of a second. Limits of 5,000 URLs a file cut 20,000 and 200,000
/// URLs into 4 and 40 sitemaps and their index; a URL must cost about the same.
fn sitemap_writer() -> Vec<String> {
    use site::output::sitemap::{files, Limits, Url};
    let limits = Limits {
        urls: 5_000,
        ..Limits::PROTOCOL
    };
    let urls = |n: usize| -> Vec<Url> {
        (1..=n)
            .map(|i| Url {
                loc: format!("https://www.example.com/posts/p{i:06}/"),
                lastmod: Some(format!("2026-{:02}-{:02}", 1 + i % 12, 1 + i % 28)),
                // Each post in three languages, as the site's translated pages are.
                alternates: ["en", "de", "ar", "x-default"]
                    .iter()
                    .map(|l| {
                        (
                            l.to_string(),
                            format!("https://www.example.com/{l}/posts/p{i:06}/"),
                        )
                    })
                    .collect(),
            })
            .collect()
    };
    // The best time of `runs` writes of `n` URLs, in seconds a URL.
    let per_url = |n: usize, runs: usize| -> f64 {
        let urls = urls(n);
        let mut best = Duration::MAX;
        for _ in 0..runs {
            // CPU time where the system tells it, as for the builds.
            let (clock, cpu) = (std::time::Instant::now(), site::build::process_cpu_time());
            let written = files("https://www.example.com/", &urls, limits);
            let spent = match (cpu, site::build::process_cpu_time()) {
                (Some(before), Some(after)) => after.saturating_sub(before),
                _ => clock.elapsed(),
            };
            best = best.min(spent);
            assert_eq!(written.len(), n / limits.urls + 1);
        }
        best.as_secs_f64() / n as f64
    };
    // As for the builds: measured again while it fails, each size keeping its best.
    let (mut small, mut large) = (f64::MAX, f64::MAX);
    let mut problem = None;
    for attempt in 0..ATTEMPTS {
        if attempt > 0 {
            eprintln!(
                "the sitemap writer: measuring again, to tell a slow step from a busy machine"
            );
        }
        let runs = if attempt == 0 { RUNS } else { 1 };
        small = small.min(per_url(20_000, runs));
        large = large.min(per_url(200_000, runs));
        let report = format!(
            "the sitemap writer: {:.3} µs a URL at 20,000 URLs, {:.3} µs at 200,000 (×{:.2})",
            small * 1e6,
            large * 1e6,
            large / small
        );
        eprintln!("{report}");
        problem = (large / small > LIMIT).then(|| format!("{report} (at most ×{LIMIT})"));
        if problem.is_none() {
            break;
        }
    }
    problem.into_iter().collect()
}
