//! The load stage: `content/site.yaml`, the strings and every page under
//! `content/pages/`, read into typed models in parallel. All problems of a run
//! are collected, none stops the others. `site serve` keeps a cache of the files
//! read, so a save reads and parses the saved file alone.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rayon::prelude::*;

use super::config::{load_config, read_languages, site_yaml_section, Config};
use super::files::{files_after, is_page_file, page_files, read_text, Fingerprint};
use super::languages::Languages;
use super::page::{self, Page, Reading};
use super::site::SiteConfig;
use super::translation_index::TranslationIndex;
use super::{listings, publishing, routes, strings, yaml};
use crate::diagnostics::{relative, Diagnostic};

#[derive(Debug)]
pub struct Content {
    pub config: SiteConfig,
    /// What `site.yaml` names (icons, links), with where.
    pub config_references: Vec<yaml::Reference>,
    /// Problems in `site.yaml` that do not stop the build.
    pub config_warnings: Vec<Diagnostic>,
    /// Sorted by route. A page that did not change between two builds of
    /// `site serve` is the same `Arc`, which later stages use to skip work.
    pub pages: Vec<Arc<Page>>,
    /// Each collection's listings, made by the publish step.
    pub listings: Arc<listings::Listings>,
    /// The words that belong to no page, per language.
    pub strings: strings::Strings,
    /// Per language but the default, the keys of its strings it lacks.
    pub missing_strings: std::collections::BTreeMap<String, Vec<String>>,
    /// Which pages translate which, made by the publish step.
    pub translations: Arc<TranslationIndex>,
    /// The translations older than their source.
    pub stale: Arc<super::staleness::Staleness>,
    /// The site's languages, made once as the pages were read.
    languages: Languages,
}

impl Content {
    /// The site's languages.
    pub fn languages(&self) -> &Languages {
        &self.languages
    }
}

type Loaded = Result<Arc<Page>, Arc<Unloaded>>;

/// A content file that did not load: its problems, and what the values read
/// around them name, so that a missing icon is reported beside the file's other
/// mistakes.
#[derive(Debug, Default)]
pub struct Unloaded {
    pub diagnostics: Vec<Diagnostic>,
    /// The file, relative to the site root.
    pub file: String,
    pub references: Vec<yaml::Reference>,
}

impl From<Vec<Diagnostic>> for Unloaded {
    fn from(diagnostics: Vec<Diagnostic>) -> Unloaded {
        Unloaded {
            diagnostics,
            ..Unloaded::default()
        }
    }
}

/// Why the content did not load: every problem, and the references of the files
/// that failed (for `references::check_unloaded`).
#[derive(Debug, Default)]
pub struct Failure {
    pub diagnostics: Vec<Diagnostic>,
    pub unloaded: Vec<Arc<Unloaded>>,
}

impl Reading {
    fn of(config: &SiteConfig) -> Reading {
        Reading {
            collections: config.collections.clone(),
            timezone: config.timezone.clone(),
            offices: config.offices.iter().map(|o| o.city.clone()).collect(),
            highlight_code: config.highlight_code,
            today: publishing::Clock::of(&config.timezone).today(),
            languages: Languages::new(&config.languages),
        }
    }

    /// What the pages are read with when `site.yaml` as a whole cannot be: each
    /// section it needs read on its own, so that a mistake elsewhere in the file
    /// is reported once, not again as an unknown field of every collection entry.
    fn of_sections(root: &Path) -> Reading {
        let timezone: publishing::TimeZone = site_yaml_section(root, "timezone");
        let offices: Vec<publishing::Office> = site_yaml_section(root, "offices");
        let highlight: Option<bool> = site_yaml_section(root, "highlight_code");
        // Each language that reads, though others (or the rest) do not.
        let text = std::fs::read_to_string(root.join("content").join("site.yaml")).ok();
        let languages = text
            .and_then(|t| yaml::parse(&t).ok())
            .map(|node| read_languages(&node).0)
            .unwrap_or_default();
        Reading {
            languages: Languages::new(&languages),
            collections: site_yaml_section(root, "collections"),
            offices: offices.into_iter().map(|o| o.city).collect(),
            highlight_code: highlight.unwrap_or(true),
            today: publishing::Clock::of(&timezone).today(),
            timezone,
        }
    }
}

/// Files read by earlier builds, kept while their fingerprint stays the same, so
/// `site serve` reads and parses only what was saved.
#[derive(Debug, Default)]
pub struct Cache {
    pages: HashMap<PathBuf, (Fingerprint, Loaded)>,
    /// What the pages were read with.
    reading: Reading,
    /// Whether files are kept at all: a one-shot build reads each file once.
    pub keep: bool,
    /// The page files of the last load, in the order the walk found them.
    files: Vec<PathBuf>,
    /// What each of `files` gave, in the same order.
    loaded: Vec<Loaded>,
    /// The only page files that may have changed since the last load, when the
    /// watcher says so: the next load reads their state alone, and walks and
    /// stats nothing else. `None`: every file is looked at.
    pub saved: Option<std::collections::BTreeSet<PathBuf>>,
}

/// Reads every content file.
pub fn load(root: &Path) -> Result<Content, Failure> {
    load_cached(root, &mut Cache::default())
}

/// Reads `site.yaml` and the pages, taking unchanged pages from `cache`.
pub fn load_cached(root: &Path, cache: &mut Cache) -> Result<Content, Failure> {
    let mut diagnostics = Vec::new();
    let config = load_config(root).map_err(|d| diagnostics.extend(d)).ok();
    let reading = config
        .as_ref()
        .map_or_else(|| Reading::of_sections(root), |c| Reading::of(&c.config));
    if reading != cache.reading {
        cache.pages.clear();
        cache.reading = reading.clone();
    }

    let pages_dir = root.join("content").join("pages");
    let saved = cache
        .saved
        .take()
        .filter(|_| cache.keep && !cache.files.is_empty());
    if let Some(saved) = &saved {
        if cache.loaded.len() == cache.files.len() && !cache.pages.is_empty() {
            load_saved(root, cache, saved, &pages_dir, &reading);
            let loaded = cache.loaded.iter().cloned();
            return assemble(root, config, &reading.languages, diagnostics, loaded);
        }
    }
    let files = match &saved {
        Some(saved) => files_after(&cache.files, saved, &pages_dir),
        None => match page_files(&pages_dir) {
            Ok(files) => files,
            Err(d) => {
                diagnostics.push(d);
                Vec::new()
            }
        },
    };
    if cache.keep {
        cache.files = files.clone();
    }
    let keep = cache.keep;
    let previous = &cache.pages;
    // Each file is read unless `site serve` read it before and it is unchanged;
    // after a save the watcher named, only the saved files are looked at.
    let results: Vec<(PathBuf, Option<Fingerprint>, Loaded, bool)> = files
        .into_par_iter()
        .map(|path| {
            let unsaved = saved.as_ref().is_some_and(|s| !s.contains(&path));
            let fingerprint = match (keep, unsaved) {
                (false, _) => None,
                (true, true) => previous.get(&path).map(|(f, _)| *f),
                (true, false) => Fingerprint::of(&path),
            };
            let kept = previous
                .get(&path)
                .filter(|(f, _)| Some(*f) == fingerprint)
                .map(|(_, loaded)| loaded.clone());
            let reused = kept.is_some();
            let loaded = kept.unwrap_or_else(|| {
                load_page(root, &pages_dir, &path, &reading)
                    .map(Arc::new)
                    .map_err(Arc::new)
            });
            (path, fingerprint, loaded, reused)
        })
        .collect();

    // The cache is brought up to date in place: a save changes one entry.
    if keep {
        let changed = results.iter().any(|(_, _, _, reused)| !reused);
        if changed || results.len() != cache.pages.len() {
            if results.len() != cache.pages.len() {
                let present: std::collections::HashSet<&PathBuf> =
                    results.iter().map(|(p, ..)| p).collect();
                cache.pages.retain(|p, _| present.contains(p));
            }
            for (path, fingerprint, loaded, reused) in &results {
                if let (false, Some(f)) = (reused, fingerprint) {
                    cache.pages.insert(path.clone(), (*f, loaded.clone()));
                }
            }
        }
    }

    let loaded: Vec<Loaded> = results
        .into_iter()
        .map(|(_, _, loaded, _)| loaded)
        .collect();
    if keep {
        cache.loaded = loaded.clone();
    }
    assemble(
        root,
        config,
        &reading.languages,
        diagnostics,
        loaded.into_iter(),
    )
}

/// Brings the cache up to date after saves of `saved` alone: each is read again
/// when its fingerprint changed, added when new, dropped when gone; no other
/// file is looked at.
fn load_saved(
    root: &Path,
    cache: &mut Cache,
    saved: &std::collections::BTreeSet<PathBuf>,
    pages_dir: &Path,
    reading: &Reading,
) {
    for path in saved {
        let at = cache.files.binary_search(path);
        let fingerprint = is_page_file(path, pages_dir)
            .then(|| Fingerprint::of(path))
            .flatten();
        match (at, fingerprint) {
            (Ok(i), Some(f)) => {
                if cache.pages.get(path).map(|(was, _)| *was) != Some(f) {
                    let loaded = load_page(root, pages_dir, path, reading)
                        .map(Arc::new)
                        .map_err(Arc::new);
                    cache.loaded[i] = loaded.clone();
                    cache.pages.insert(path.clone(), (f, loaded));
                }
            }
            (Ok(i), None) => {
                cache.files.remove(i);
                drop(cache.loaded.remove(i));
                cache.pages.remove(path);
            }
            (Err(i), Some(f)) => {
                let loaded = load_page(root, pages_dir, path, reading)
                    .map(Arc::new)
                    .map_err(Arc::new);
                cache.files.insert(i, path.clone());
                cache.loaded.insert(i, loaded.clone());
                cache.pages.insert(path.clone(), (f, loaded));
            }
            (Err(_), None) => {}
        }
    }
}

/// The content as `site serve` last read it (`cache`), with `text` as the page
/// file `draft`, saved or not: only `site.yaml`, the strings and files the
/// cache lacks are read, and nothing is kept. For the editor's preview.
pub fn load_draft(
    root: &Path,
    cache: &Cache,
    draft: &Path,
    text: &str,
) -> Result<Content, Failure> {
    let mut diagnostics = Vec::new();
    let config = load_config(root).map_err(|d| diagnostics.extend(d)).ok();
    let reading = config
        .as_ref()
        .map_or_else(|| Reading::of_sections(root), |c| Reading::of(&c.config));
    let pages_dir = root.join("content").join("pages");
    // The last load's files with what each gave, while read alike; the draft's
    // own file is read from its text.
    let same = reading == cache.reading && cache.loaded.len() == cache.files.len();
    let mut files: Vec<(PathBuf, Option<Loaded>)> = match same {
        true => cache
            .files
            .iter()
            .cloned()
            .zip(cache.loaded.iter().cloned().map(Some))
            .collect(),
        false => cache.files.iter().map(|f| (f.clone(), None)).collect(),
    };
    match files.binary_search_by(|(f, _)| f.as_path().cmp(draft)) {
        Ok(at) => files[at].1 = None,
        Err(at) => files.insert(at, (draft.to_path_buf(), None)),
    }
    let loaded: Vec<Loaded> = files
        .into_par_iter()
        .map(|(path, kept)| match (path == draft, kept) {
            (false, Some(loaded)) => loaded,
            (true, _) => load_page_text(root, &pages_dir, &path, &reading, text.into())
                .map(Arc::new)
                .map_err(Arc::new),
            (false, None) => load_page(root, &pages_dir, &path, &reading)
                .map(Arc::new)
                .map_err(Arc::new),
        })
        .collect();
    assemble(
        root,
        config,
        &reading.languages,
        diagnostics,
        loaded.into_iter(),
    )
}

/// The content of the pages loaded (in any order) with `site.yaml` and the
/// strings, or every problem found.
fn assemble(
    root: &Path,
    config: Option<Config>,
    languages: &Languages,
    mut diagnostics: Vec<Diagnostic>,
    loaded: impl Iterator<Item = Loaded>,
) -> Result<Content, Failure> {
    let mut pages = Vec::new();
    let mut failed = Vec::new();
    for result in loaded {
        match result {
            Ok(page) => pages.push(page),
            Err(unloaded) => {
                diagnostics.extend(unloaded.diagnostics.iter().cloned());
                failed.push(unloaded);
            }
        }
    }
    // Sorted by route; two files on one route are side by side.
    pages.sort_by(|a, b| a.route.cmp(&b.route).then_with(|| a.source.cmp(&b.source)));
    for pair in pages.windows(2) {
        if pair[0].route == pair[1].route {
            diagnostics.push(Diagnostic::new(
                pair[1].source.clone(),
                format!(
                    "the route `{}` is claimed by both {} and {}; rename one of them",
                    pair[0].route, pair[0].source, pair[1].source
                ),
            ));
        }
    }

    // The words of each language, once site.yaml says which there are.
    let mut strings = strings::StringsRead::default();
    if let Some(config) = &config {
        strings = strings::read_strings(root, languages, &config.config.labels());
        diagnostics.append(&mut strings.errors);
    }

    match config {
        Some(mut config) if diagnostics.is_empty() => {
            config.warnings.extend(strings.warnings);
            Ok(Content {
                config: config.config,
                config_references: config.references,
                config_warnings: config.warnings,
                listings: Default::default(),
                strings: strings.strings,
                missing_strings: strings.missing,
                translations: Default::default(),
                stale: Arc::new(super::staleness::find(root, &pages)),
                pages,
                languages: languages.clone(),
            })
        }
        _ => Err(Failure {
            diagnostics,
            unloaded: failed,
        }),
    }
}

fn load_page(
    root: &Path,
    pages_dir: &Path,
    path: &Path,
    reading: &Reading,
) -> Result<Page, Unloaded> {
    // A file of another kind is refused for its name, unread.
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    let text = match matches!(ext, "yaml" | "yml" | "md") {
        true => read_text(path, root).map_err(|d| vec![d])?,
        false => String::new(),
    };
    load_page_text(root, pages_dir, path, reading, text.into())
}

/// The page of the file at `path`, whose text is `text`.
fn load_page_text(
    root: &Path,
    pages_dir: &Path,
    path: &Path,
    reading: &Reading,
    text: Arc<str>,
) -> Result<Page, Unloaded> {
    let file = relative(path, root);
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    if !matches!(ext, "yaml" | "yml" | "md") {
        return Err(vec![Diagnostic::new(
            file,
            "unsupported content file: pages are `.yaml` (blocks) or `.md` (Markdown)",
        )]
        .into());
    }
    // `about.de.yaml` is the German `about.yaml`, at `/de/about/`.
    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("");
    let (name, lang) = reading
        .languages
        .of_file(stem)
        .map_err(|m| vec![Diagnostic::new(file.clone(), m)])?;
    let unprefixed = path.with_file_name(format!("{name}.{ext}"));
    let key = routes::route_for(pages_dir, &unprefixed)
        .map_err(|m| vec![Diagnostic::new(file.clone(), m)])?;
    let route = format!("{}{key}", reading.languages.prefix(lang));
    let result = if ext == "md" {
        // A Markdown page directly in a collection's folder is one of its articles.
        let folder = path
            .parent()
            .and_then(|p| p.strip_prefix(pages_dir).ok())
            .map(|p| p.to_string_lossy().replace('\\', "/"));
        let collection = reading
            .collections
            .iter()
            .find(|c| folder.as_deref() == Some(c.name.as_str()));
        page::from_markdown(route, file.clone(), &text, collection, reading)
    } else {
        page::from_yaml(route, file.clone(), &text)
    };
    result
        .map(|mut page| {
            page.original = match page.translation_of() {
                Some(of) => of.to_string(),
                None if key == page.route => String::new(),
                None => key,
            };
            page.lang = lang;
            page
        })
        .map_err(|failed| Unloaded {
            diagnostics: failed
                .errors
                .iter()
                .map(|e| e.diagnostic(&file, &text))
                .collect(),
            file: file.clone(),
            references: failed.references,
        })
}
