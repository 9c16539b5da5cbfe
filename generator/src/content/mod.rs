//! The load stage: `content/site.yaml` and every page under `content/pages/`, read
//! into typed models. All problems of a run are collected, none stops the others.

pub mod blocks;
pub mod entries;
pub mod folders;
pub mod highlight;
pub mod languages;
pub mod listings;
pub mod markdown;
pub mod openings;
pub mod page;
pub mod publishing;
pub mod references;
pub mod routes;
pub mod settings;
pub mod site;
pub mod strings;
pub mod values;
pub mod yaml;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rayon::prelude::*;

pub use page::{Article, Page};
pub use routes::{canonical_href, canonical_url, route_for};
pub use site::SiteConfig;
pub use values::{Date, Href, Icon, ImageSrc, Layout, Markdown};

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
}

impl Content {
    pub fn languages(&self) -> languages::Languages {
        languages::Languages::new(&self.config.languages)
    }
}

/// What identifies a version of a file without reading it: its size, change
/// time and inode. Any save changes at least one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fingerprint {
    len: u64,
    modified: Option<std::time::SystemTime>,
    inode: u64,
}

impl Fingerprint {
    pub fn of(path: &Path) -> Option<Fingerprint> {
        use std::os::unix::fs::MetadataExt;
        let meta = std::fs::metadata(path).ok()?;
        Some(Fingerprint {
            len: meta.len(),
            modified: meta.modified().ok(),
            inode: meta.ino(),
        })
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

/// What of `site.yaml` a page is read with: which folders are collections (and
/// of what kind), the zone an event's times default to, the offices a job may be
/// at, and whether code is highlighted. When it changes, every page is read again.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Reading {
    pub collections: Vec<publishing::Collection>,
    pub timezone: publishing::TimeZone,
    pub offices: Vec<String>,
    pub highlight_code: bool,
    /// The build's day in the site's zone: what is dated after it is held back.
    pub today: chrono::NaiveDate,
    /// The site's languages: a file's name may end in one's code (`about.de.yaml`).
    pub languages: Vec<languages::Language>,
}

impl Reading {
    fn of(config: &SiteConfig) -> Reading {
        Reading {
            collections: config.collections.clone(),
            timezone: config.timezone.clone(),
            offices: config.offices.iter().map(|o| o.city.clone()).collect(),
            highlight_code: config.highlight_code,
            today: publishing::Clock::of(&config.timezone).today(),
            languages: config.languages.clone(),
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
            languages,
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
            return assemble(root, config, diagnostics, loaded);
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
    assemble(root, config, diagnostics, loaded.into_iter())
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

/// Whether `path` is a page file the walk of `content/pages/` would find.
fn is_page_file(path: &Path, pages_dir: &Path) -> bool {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    path.starts_with(pages_dir)
        && path.is_file()
        && !name.starts_with('.')
        && !name.ends_with('~')
        && path.extension().is_some()
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
    assemble(root, config, diagnostics, loaded.into_iter())
}

/// The content of the pages loaded (in any order) with `site.yaml` and the
/// strings, or every problem found.
fn assemble(
    root: &Path,
    config: Option<Config>,
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
        let languages = languages::Languages::new(&config.config.languages);
        strings = strings::read_strings(root, &languages, &config.config.labels());
        diagnostics.append(&mut strings.errors);
    }

    match config {
        Some(mut config) if diagnostics.is_empty() => {
            config.warnings.extend(strings.warnings);
            Ok(Content {
                config: config.config,
                config_references: config.references,
                config_warnings: config.warnings,
                pages,
                listings: Default::default(),
                strings: strings.strings,
                missing_strings: strings.missing,
            })
        }
        _ => Err(Failure {
            diagnostics,
            unloaded: failed,
        }),
    }
}

/// The storage settings alone, for `site serve`'s storage API: it must run even
/// while the rest of `site.yaml` has errors.
pub fn storage_settings(root: &Path) -> site::Storage {
    crate::content::settings::storage_with_environment(site_yaml_section(root, "storage"))
}

/// `site.yaml`'s `contact.messages`, read on its own (by `site messages`), the
/// default when absent.
pub fn message_delivery(root: &Path) -> site::MessageDelivery {
    site_yaml_section(root, "contact.messages")
}

/// A retention setting of `site.yaml` (`careers.retention_months`), read on its
/// own; `None` when absent or unreadable (the full load reports why).
pub fn retention_months(root: &Path, setting: &str) -> Option<u32> {
    let months: Option<site::RetentionMonths> = site_yaml_section(root, setting);
    months.map(|m| m.0)
}

/// `site.yaml`'s `timeouts`, read on their own: the bundle starts before the
/// content is loaded.
pub fn timeouts(root: &Path) -> site::Timeouts {
    site_yaml_section(root, "timeouts")
}

/// One section of `site.yaml` (a dotted path, `contact.messages`), read without
/// the rest; its default when the file or the section cannot be read (the full
/// load reports why).
fn site_yaml_section<T: serde::de::DeserializeOwned + Default>(root: &Path, path: &str) -> T {
    let text = std::fs::read_to_string(root.join("content").join("site.yaml")).ok();
    let node = text.and_then(|text| yaml::parse(&text).ok());
    let mut section = node.as_ref();
    for key in path.split('.') {
        section = section.and_then(|n| n.get(key));
    }
    section
        .and_then(|n| yaml::from_node::<T>(n, path).ok())
        .unwrap_or_default()
}

/// `site.yaml` read, with what it names and its warnings.
struct Config {
    config: SiteConfig,
    references: Vec<yaml::Reference>,
    warnings: Vec<Diagnostic>,
}

fn load_config(root: &Path) -> Result<Config, Vec<Diagnostic>> {
    let path = root.join("content").join("site.yaml");
    let file = relative(&path, root);
    let text: Arc<str> = read_text(&path, root).map_err(|d| vec![d])?.into();
    let node = yaml::parse(&text).map_err(|e| vec![e.diagnostic(&file, &text)])?;
    let (_, language_errors) = read_languages(&node);
    let language_errors: Vec<Diagnostic> = language_errors
        .iter()
        .map(|e| e.diagnostic(&file, &text))
        .collect();
    let warnings = yaml::cut_by_comments(&text, &node)
        .iter()
        .map(|w| w.warning(&file, &text))
        .collect();
    let (config, references) = yaml::read::<SiteConfig>(&node, "").map_err(|failed| {
        failed
            .errors
            .iter()
            .map(|e| e.diagnostic(&file, &text))
            .chain(language_errors.iter().cloned())
            .collect::<Vec<_>>()
    })?;
    if !language_errors.is_empty() {
        return Err(language_errors);
    }
    Ok(Config {
        config,
        references,
        warnings,
    })
}

/// The languages `site.yaml` lists, each read on its own: those that read, and
/// what is wrong with the list besides what reading says (a language listed
/// twice, a locale or date format that is none), each at its line. Used
/// whether or not the rest of site.yaml reads, so a run reports all of it.
fn read_languages(site: &yaml::Node) -> (Vec<languages::Language>, Vec<yaml::Error>) {
    let Some(yaml::Kind::Seq(items)) = site.get("languages").map(|n| &n.kind) else {
        return (Vec::new(), Vec::new());
    };
    let mut languages = Vec::new();
    let mut errors = Vec::new();
    let mut seen: HashMap<String, usize> = HashMap::new();
    for (i, item) in items.iter().enumerate() {
        let path = yaml::index_path("languages", i);
        let Ok(language) = yaml::from_node::<languages::Language>(item, &path) else {
            continue;
        };
        let span = item.get("code").map_or(item.span, |n| n.span);
        let lower = language.code().to_ascii_lowercase();
        if let Some(first) = seen.get(&lower) {
            errors.push(yaml::Error::at(
                span,
                &format!("{path}.code"),
                format!(
                    "`{}` is listed twice (also languages[{first}]): list each language once",
                    language.code()
                ),
            ));
            continue;
        }
        seen.insert(lower, i);
        for (field, message) in language.problems() {
            let at = item.get(field).map_or(span, |n| n.span);
            errors.push(yaml::Error::at(at, &format!("{path}.{field}"), message));
        }
        languages.push(language);
    }
    (languages, errors)
}

/// A content file as text. A byte that is not UTF-8 is an error at its line and
/// column (in characters), shown with the line as it reads.
pub fn read_text(path: &Path, root: &Path) -> Result<String, Diagnostic> {
    let bytes = std::fs::read(path).map_err(|e| Diagnostic::io(path, root, &e))?;
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let bytes = e.as_bytes();
        let before = String::from_utf8_lossy(&bytes[..at]);
        let line = before.matches('\n').count() + 1;
        let column = before[before.rfind('\n').map_or(0, |i| i + 1)..]
            .chars()
            .count()
            + 1;
        // The text as an editor shows it: the bad byte as U+FFFD, at the same offset.
        let shown: Arc<str> = String::from_utf8_lossy(bytes).into();
        Diagnostic::new(
            relative(path, root),
            format!(
                "byte 0x{:02X} is not UTF-8; save the file as UTF-8",
                bytes[at]
            ),
        )
        .at(line, column)
        .with_snippet(shown, at, char::REPLACEMENT_CHARACTER.len_utf8())
    })
}

/// Content files in a stable order. Hidden files and editor backups are skipped.
/// The page files after saves: the last load's, without those now gone, and
/// with those now there (in the order a walk would find them).
fn files_after(
    before: &[PathBuf],
    saved: &std::collections::BTreeSet<PathBuf>,
    pages_dir: &Path,
) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = before
        .iter()
        .filter(|f| !saved.contains(*f) || f.is_file())
        .cloned()
        .collect();
    for path in saved {
        // Paths compare folder by folder, the order of the walk.
        if let (true, Err(at)) = (is_page_file(path, pages_dir), files.binary_search(path)) {
            files.insert(at, path.clone());
        }
    }
    files
}

fn page_files(dir: &Path) -> Result<Vec<PathBuf>, Diagnostic> {
    let mut files = Vec::new();
    // Links were checked (`folders`): those left stay inside the site.
    for entry in walkdir::WalkDir::new(dir)
        .follow_links(true)
        .sort_by_file_name()
    {
        let entry = entry.map_err(|e| Diagnostic::new(dir.to_string_lossy(), e.to_string()))?;
        let name = entry.file_name().to_string_lossy();
        if name.starts_with('.') && entry.depth() > 0 {
            continue;
        }
        // Files without an extension are editors' and tools' temporary files.
        let scratch = name.ends_with('~') || entry.path().extension().is_none();
        if entry.file_type().is_file() && !scratch {
            files.push(entry.into_path());
        }
    }
    Ok(files)
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
    let languages = languages::Languages::new(&reading.languages);
    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("");
    let (name, language) = languages
        .of_file(stem)
        .map_err(|m| vec![Diagnostic::new(file.clone(), m)])?;
    let unprefixed = path.with_file_name(format!("{name}.{ext}"));
    let key =
        route_for(pages_dir, &unprefixed).map_err(|m| vec![Diagnostic::new(file.clone(), m)])?;
    let route = format!("{}{key}", languages.prefix(language.code()));
    let lang = language.code().to_string();
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
            page.translation_key = page.translation_of().map_or(key, str::to_string);
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
