//! The references pass: the icons, pictures, layouts and pages that content names
//! exist. It runs once every page is loaded, since a link may lead to any page,
//! and reports each problem at the content file's line and field, where the
//! editor wrote it. A link to no page is a warning; the rest are errors.

use std::collections::{BTreeSet, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::languages::Lang;
use super::publish::Held;
use super::values::Target;
use super::yaml::{self, Reference};
use super::{Content, Page, Unloaded};
use crate::diagnostics::Diagnostic;
use crate::suggest;

/// Where the names in content are looked up.
pub struct Places {
    /// Folders of `<name>.svg` icons, first match wins.
    pub icons: Vec<PathBuf>,
    /// The site's static files.
    pub public: PathBuf,
    /// `templates/layouts/`.
    pub layouts: PathBuf,
    /// Files under `public/` that cannot be read (a link out of the site, a link
    /// to nothing), by address (`/images/a.png`), with why: a picture that uses
    /// one is an error at its own line, naming both.
    pub unusable: Vec<(String, String)>,
    /// The suggestions for links to no page, kept by `site serve` while the
    /// site's addresses stay the same (see [`RouteHints::same`]).
    pub hints: Arc<RouteHints>,
}

/// The addresses of the site, indexed for suggestions, and the hint given for
/// each link to no page: for every page's address, the default language's
/// pages, and pages with those held back (each set indexed when first needed).
#[derive(Default)]
pub struct RouteHints(std::sync::Mutex<std::collections::HashMap<Set, Hints>>);

/// Which addresses a link may be meant for.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Set {
    Pages,
    DefaultLanguage,
    WithHeld,
}

struct Hints {
    index: suggest::Index,
    hints: std::collections::HashMap<String, String>,
}

impl RouteHints {
    /// Whether two versions of a page (at one address) leave every set alike.
    pub fn same(a: &Page, b: &Page) -> bool {
        a.lang == b.lang && a.unpublished.is_some() == b.unpublished.is_some()
    }

    /// `; did you mean …?` for a link to no page of `set` (`routes`), or nothing.
    fn hint(&self, set: Set, path: &str, routes: &HashSet<&str>) -> String {
        let mut sets = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let hints = sets.entry(set).or_insert_with(|| {
            // Sorted, so a tie always gives the same suggestion.
            let mut names: Vec<&str> = routes.iter().copied().collect();
            names.sort_unstable();
            Hints {
                index: suggest::Index::new(names),
                hints: Default::default(),
            }
        });
        if let Some(hint) = hints.hints.get(path) {
            return hint.clone();
        }
        if hints.hints.len() >= SUGGESTED_LINKS {
            return String::new();
        }
        let hint = hints.index.did_you_mean(path);
        hints.hints.insert(path.to_string(), hint.clone());
        hint
    }
}

impl Places {
    /// The places of a site root, with lucide's icons from `node_modules`.
    pub fn of(root: &Path, node_modules: Option<&Path>) -> Places {
        let mut icons = vec![root.join("templates").join("icons")];
        icons.extend(node_modules.map(|n| n.join("lucide-static").join("icons")));
        Places {
            icons,
            public: root.join("public"),
            layouts: root.join("templates").join("layouts"),
            unusable: Vec::new(),
            hints: Default::default(),
        }
    }
}

/// The problems found: errors stop the build, warnings are shown.
#[derive(Debug, Default)]
pub struct Findings {
    pub errors: Vec<Diagnostic>,
    pub warnings: Vec<Diagnostic>,
}

/// Checks every reference of `content`, and gathers the pages' warnings.
pub fn check(root: &Path, content: &Content, places: &Places, held: &[Held]) -> Findings {
    let routes: HashSet<&str> = content.pages.iter().map(|p| p.route.as_str()).collect();
    let mut checker = Checker::new(root, places, Some(routes));
    // A page held back is not in the build (unless it shows drafts): a link to
    // it would lead nowhere until the page is published.
    let built: HashSet<&str> = content.pages.iter().map(|p| p.route.as_str()).collect();
    checker.held = held
        .iter()
        .filter(|h| !built.contains(h.route.as_str()))
        .map(|h| (h.route.clone(), h.why.describe()))
        .collect();
    checker
        .findings
        .warnings
        .extend(content.config_warnings.iter().cloned());
    checker.file("content/site.yaml", &content.config_references);
    for page in &content.pages {
        checker.file(&page.source, &page.references);
        for w in &page.warnings {
            let d = checker.sources.diagnostic(&page.source, w);
            checker.findings.warnings.push(d.as_warning());
        }
    }
    checker.unused_unusable();
    checker.redirects(content, held);
    checker.languages(content);
    for name in content.config.collections.iter().map(|c| &c.name) {
        let folder = root.join("content").join("pages").join(name);
        if !folder.is_dir() {
            checker.findings.errors.push(Diagnostic::new(
                "content/site.yaml",
                format!("collections: there is no folder content/pages/{name}/ for the collection `{name}`"),
            ));
        }
    }
    checker.findings
}

/// The icons, pictures and layouts named by files that failed to load (their
/// links wait until every page loads).
pub fn check_unloaded(root: &Path, unloaded: &[Arc<Unloaded>], places: &Places) -> Vec<Diagnostic> {
    let mut checker = Checker::new(root, places, None);
    for file in unloaded {
        checker.file(&file.file, &file.references);
    }
    checker.unused_unusable();
    checker.findings.errors
}

/// One pass over references, with the names for suggestions and the files for
/// excerpts read once.
struct Checker<'a> {
    places: &'a Places,
    /// Every page's address; without them, links are not checked.
    routes: Option<HashSet<&'a str>>,
    names: Names,
    sources: Sources,
    findings: Findings,
    /// The pages held back from this build, and why.
    held: std::collections::HashMap<String, String>,
}

impl<'a> Checker<'a> {
    fn new(root: &Path, places: &'a Places, routes: Option<HashSet<&'a str>>) -> Checker<'a> {
        Checker {
            places,
            routes,
            names: Names::default(),
            sources: Sources::new(root),
            findings: Findings::default(),
            held: Default::default(),
        }
    }

    /// The unusable files of `public/` that no picture used: errors of their own.
    fn unused_unusable(&mut self) {
        for (url, why) in &self.places.unusable {
            if !self.names.used_unusable.contains(url) {
                self.findings
                    .errors
                    .push(Diagnostic::new(format!("public{url}"), why.clone()));
            }
        }
    }

    /// Checks the references named in `file`.
    fn file(&mut self, file: &str, references: &[Reference]) {
        for reference in references {
            let routes = self.routes.as_ref();
            let found = match &reference.target {
                // Where a redirect leads is checked with every redirect together.
                Target::Link(_) if reference.path.starts_with("redirects[") => continue,
                Target::Link(href) => self.held_link(href),
                _ => None,
            };
            let Some((message, warning)) =
                found.or_else(|| problem(reference, self.places, routes, &mut self.names))
            else {
                continue;
            };
            let error = yaml::Error::at(reference.span, &reference.path, message);
            let d = self.sources.diagnostic(file, &error);
            if warning {
                self.findings.warnings.push(d.as_warning());
            } else {
                self.findings.errors.push(d);
            }
        }
    }
}

impl Checker<'_> {
    /// Every `translation_of` leads to a page of the default language; no two
    /// pages of a language translate the same page; a language with pages has
    /// a home page. What translates what is read from the translations index.
    fn languages(&mut self, content: &Content) {
        let mut problems: Vec<(String, yaml::Error)> = Vec::new();
        let languages = content.languages();
        let default = languages.default_language();
        // The default language's pages, listed once a `translation_of` needs them.
        let mut originals: Option<HashSet<&str>> = None;
        for page in &content.pages {
            for r in &page.references {
                let Target::Translation(route) = &r.target else {
                    continue;
                };
                let message = if page.lang.is_default() {
                    Some(format!(
                        "this page is in the default language ({}): only a translation names the page it translates; remove `translation_of`, or name the file with its language (`{}.<code>.{}`)",
                        default.name,
                        page.source.rsplit('/').next().unwrap_or("").split('.').next().unwrap_or(""),
                        page.source.rsplit('.').next().unwrap_or("yaml"),
                    ))
                } else {
                    let originals = originals.get_or_insert_with(|| {
                        content
                            .pages
                            .iter()
                            .filter(|p| p.lang.is_default())
                            .map(|p| p.route.as_str())
                            .collect()
                    });
                    (!originals.contains(route.as_str())).then(|| {
                        let hint =
                            self.places
                                .hints
                                .hint(Set::DefaultLanguage, route, originals);
                        format!(
                            "`{route}` is no page of the default language ({}), so this page translates nothing{hint}",
                            default.name
                        )
                    })
                };
                if let Some(message) = message {
                    problems.push((
                        page.source.clone(),
                        yaml::Error::at(r.span, &r.path, message),
                    ));
                }
            }
        }
        // Two pages of one language in a group: each names the one before it,
        // in the order of the pages.
        let source = |route: &str| {
            content
                .pages
                .binary_search_by(|p| p.route.as_str().cmp(route))
                .map_or_else(|_| route.to_string(), |at| content.pages[at].source.clone())
        };
        let mut twice: Vec<(&str, Diagnostic)> = Vec::new();
        for (key, members) in content.translations.groups() {
            for pair in members.windows(2) {
                let (before, this) = (&pair[0], &pair[1]);
                if before.lang == this.lang && !this.lang.is_default() {
                    twice.push((
                        this.route.as_str(),
                        Diagnostic::new(
                            source(&this.route),
                            format!(
                                "both {} and this page translate {key} into {}: keep one",
                                source(&before.route),
                                languages.language(this.lang).name
                            ),
                        ),
                    ));
                }
            }
        }
        twice.sort_by(|a, b| a.0.cmp(b.0));
        self.findings
            .errors
            .extend(twice.into_iter().map(|(_, d)| d));
        for (file, error) in problems {
            let d = self.sources.diagnostic(&file, &error);
            self.findings.errors.push(d);
        }
        // A language with pages but no home: its address answers 404, and its
        // switcher link from untranslated pages can only lead to the default's.
        let with_pages: HashSet<Lang> = content
            .translations
            .groups()
            .flat_map(|(_, members)| members.iter().map(|m| m.lang))
            .collect();
        for (lang, language) in languages.others() {
            let home = content.translations.route_in("/", lang).is_some();
            if with_pages.contains(&lang) && !home {
                self.findings.warnings.push(
                    Diagnostic::new(
                        format!("content/pages/index.{}.yaml", language.code()),
                        format!(
                            "{} has pages but no home page: until this file is written, {}/ answers 404 and the language switcher leads to the {} home",
                            language.name,
                            languages.prefix(lang),
                            default.name
                        ),
                    )
                    .as_warning(),
                );
            }
        }
    }

    /// A link to a page this build holds back: a warning that names why.
    fn held_link(&self, href: &str) -> Option<(String, bool)> {
        let path = href.split(['?', '#']).next().unwrap_or(href);
        let why = self.held.get(path)?;
        Some((
            format!("the link to `{path}` leads to a page that is {why}: it is left out of this build, so the link leads nowhere until the page is published"),
            true,
        ))
    }

    /// Every redirect leads, in one hop, to a page or out of the site: an old
    /// address is no page's, is redirected once, and leads to no other old
    /// address (a chain, or a loop). Each problem is an error at its line.
    fn redirects(&mut self, content: &Content, held: &[Held]) {
        // Each old address, with the file and the reference it is written at.
        let mut moved: Vec<(&str, &Reference, &str, String)> = Vec::new();
        for page in &content.pages {
            for r in &page.references {
                if let Target::Moved(from) = &r.target {
                    moved.push((&page.source, r, from, page.route.clone()));
                }
            }
        }
        for r in &content.config_references {
            let Target::Moved(from) = &r.target else {
                continue;
            };
            let index = r
                .path
                .strip_prefix("redirects[")
                .and_then(|rest| rest.split(']').next())
                .and_then(|i| i.parse::<usize>().ok());
            if let Some(to) = index.and_then(|i| content.config.redirects.get(i)) {
                moved.push(("content/site.yaml", r, from, to.to.as_str().to_string()));
            }
        }
        let mut pages: std::collections::HashMap<&str, &str> = content
            .pages
            .iter()
            .map(|p| (p.route.as_str(), p.source.as_str()))
            .collect();
        for h in held {
            pages.entry(&h.route).or_insert(&h.source);
        }
        // The first redirect of an address is the one hosts follow.
        let mut map: std::collections::HashMap<&str, &str> = Default::default();
        for (_, _, from, to) in &moved {
            map.entry(from).or_insert(to.as_str());
        }
        let mut first: std::collections::HashMap<&str, (&str, &str)> = Default::default();
        let mut problems = Vec::new();
        for (file, reference, from, to) in &moved {
            let path = |t: &str| t.split(['?', '#']).next().unwrap_or("").to_string();
            let message = if let Some(source) = pages.get(from) {
                Some(format!(
                    "`{from}` is the address of a page ({source}): a redirect from it would hide the page; remove the redirect, or move the page"
                ))
            } else if let Some((other, its_to)) = first.get(from) {
                Some(format!(
                    "`{from}` already redirects to `{its_to}` ({other}): an old address leads to one place; remove one of the two"
                ))
            } else if to.starts_with('/') && map.contains_key(path(to).as_str()) {
                match crate::content::publishing::follow(&map, from) {
                    Err(around) => Some(format!(
                        "this redirect is part of a loop: {}; point each old address at a page",
                        around.join(" → ")
                    )),
                    Ok(hops) => Some(format!(
                        "`{from}` redirects to `{to}`, which redirects on to `{}`: point it at `{}`, so that visitors and search engines arrive in one hop",
                        hops[2..].join("` → `"),
                        hops.last().map_or("", String::as_str)
                    )),
                }
            } else if to.starts_with('/')
                && path(to).ends_with('/')
                && !pages.contains_key(path(to).as_str())
            {
                let routes: HashSet<&str> = pages.keys().copied().collect();
                let hint = self.places.hints.hint(Set::WithHeld, &path(to), &routes);
                Some(format!(
                    "`{from}` redirects to `{to}`, which is no page of this site{hint}"
                ))
            } else {
                None
            };
            first.entry(from).or_insert((file, to.as_str()));
            if let Some(message) = message {
                problems.push((
                    file.to_string(),
                    yaml::Error::at(reference.span, &reference.path, message),
                ));
            }
        }
        for (file, error) in problems {
            let d = self.sources.diagnostic(&file, &error);
            self.findings.errors.push(d);
        }
    }
}

/// What is wrong with a reference, and whether it is only a warning. Links are
/// checked only against `routes`, when there are routes to check against.
fn problem(
    reference: &Reference,
    places: &Places,
    routes: Option<&HashSet<&str>>,
    names: &mut Names,
) -> Option<(String, bool)> {
    match &reference.target {
        Target::Icon(name) => {
            if places
                .icons
                .iter()
                .any(|dir| dir.join(format!("{name}.svg")).is_file())
            {
                return None;
            }
            let hint = suggest::did_you_mean(name, names.icons(places).iter().map(String::as_str));
            Some((
                format!("unknown icon `{name}`: it is neither a lucide icon (lucide.dev/icons) nor in templates/icons/{hint}"),
                false,
            ))
        }
        Target::Image(src) => {
            let path = src.split(['?', '#']).next().unwrap_or(src);
            let unusable = places.unusable.iter().find(|(url, _)| {
                path == url
                    || path
                        .strip_prefix(url.as_str())
                        .is_some_and(|r| r.starts_with('/'))
            });
            if let Some((url, why)) = unusable {
                names.used_unusable.insert(url.clone());
                return Some((
                    format!("the picture `{path}` cannot be used: public{url} is {why}"),
                    false,
                ));
            }
            let file = places.public.join(path.trim_start_matches('/'));
            if file.is_file() {
                return names.not_a_picture(path, &file).map(|m| (m, false));
            }
            let hint = names.files(places).did_you_mean(path);
            Some((
                format!("there is no picture `{path}`: no such file under public/{hint}"),
                false,
            ))
        }
        Target::Layout(name) => {
            if places.layouts.join(format!("{name}.html")).is_file() {
                return None;
            }
            let hint =
                suggest::did_you_mean(name, names.layouts(places).iter().map(String::as_str));
            Some((
                format!("unknown layout `{name}`: there is no templates/layouts/{name}.html{hint}"),
                false,
            ))
        }
        // Where an old address leads is checked with every redirect together.
        Target::Moved(_) => None,
        // Languages and translations are checked with the whole site (`languages`).
        Target::Language(_) | Target::Translation(_) => None,
        Target::Link(href) => {
            let routes = routes?;
            let path = href.split(['?', '#']).next().unwrap_or(href);
            // Files (`/favicon.svg`, `/insights/feed.xml`) are checked by `site check`.
            if !path.ends_with('/') || routes.contains(path) {
                return None;
            }
            let hint = places.hints.hint(Set::Pages, path, routes);
            Some((
                format!("the link to `{path}` leads to no page of this site{hint}"),
                true,
            ))
        }
    }
}

/// At most this many different links to no page get a suggestion: each measures
/// every address of the site, and a site whose links all lead nowhere would
/// otherwise cost the square of its size.
const SUGGESTED_LINKS: usize = 200;

/// The names something may have, listed once and only when a suggestion is needed.
#[derive(Default)]
struct Names {
    icons: Option<Vec<String>>,
    files: Option<suggest::Index>,
    layouts: Option<Vec<String>>,
    /// The unusable files of `public/` that a picture uses.
    used_unusable: HashSet<String>,
    /// Pictures already read, and what is wrong with each.
    pictures: std::collections::HashMap<PathBuf, Option<String>>,
}

impl Names {
    /// What is wrong with `file` as the picture `path`: a photo (JPEG, PNG, WebP,
    /// GIF, AVIF by its name) whose first bytes are no such picture. Each file is
    /// read once, however many pages show it.
    fn not_a_picture(&mut self, path: &str, file: &Path) -> Option<String> {
        let ext = path.rsplit_once('.')?.1.to_ascii_lowercase();
        if !matches!(
            ext.as_str(),
            "jpg" | "jpeg" | "png" | "webp" | "gif" | "avif"
        ) {
            return None;
        }
        let wanted = ext.to_ascii_uppercase().replace("JPG", "JPEG");
        self.pictures
            .entry(file.to_path_buf())
            .or_insert_with(|| {
                let header = std::fs::File::open(file).and_then(|f| {
                    let mut bytes = Vec::with_capacity(64);
                    std::io::Read::read_to_end(&mut std::io::Read::take(f, 64), &mut bytes)?;
                    Ok(bytes)
                });
                let found = header.ok().and_then(|h| imagesize::image_type(&h).ok());
                let is = |t: &imagesize::ImageType| format!("{t:?}").to_ascii_uppercase();
                match found {
                    Some(t) if is(&t) == wanted || (wanted == "AVIF" && is(&t) == "HEIF") => {
                        imagesize::size(file).err().map(|_| {
                            format!("`{path}` is not a picture: public{path} is cut short; save or export it again")
                        })
                    }
                    Some(t) => Some(format!(
                        "`{path}` is not a {wanted} file: public{path} is a {} picture with the \
                         wrong name; rename it `.{}` or export it again as {wanted}",
                        is(&t),
                        is(&t).to_ascii_lowercase().replace("jpeg", "jpg")
                    )),
                    None => Some(format!(
                        "`{path}` is not a picture: public{path} is not a {wanted} file (its first \
                         bytes are not an image's); save or export it again as one"
                    )),
                }
            })
            .clone()
    }

    fn icons(&mut self, places: &Places) -> &[String] {
        self.icons
            .get_or_insert_with(|| stems(&places.icons, "svg"))
    }

    fn layouts(&mut self, places: &Places) -> &[String] {
        self.layouts
            .get_or_insert_with(|| stems(std::slice::from_ref(&places.layouts), "html"))
    }

    fn files(&mut self, places: &Places) -> &suggest::Index {
        self.files.get_or_insert_with(|| {
            let files: Vec<String> = walkdir::WalkDir::new(&places.public)
                .follow_links(true)
                .into_iter()
                .filter_map(Result::ok)
                .filter(|e| e.file_type().is_file())
                .filter_map(|e| {
                    let rel = e.path().strip_prefix(&places.public).ok()?;
                    Some(format!("/{}", rel.to_string_lossy().replace('\\', "/")))
                })
                .collect();
            suggest::Index::new(files.iter().map(String::as_str))
        })
    }
}

/// The names of the `.ext` files in `dirs`.
fn stems(dirs: &[PathBuf], ext: &str) -> Vec<String> {
    let mut names = BTreeSet::new();
    for dir in dirs {
        let Ok(entries) = std::fs::read_dir(dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.extension().and_then(|e| e.to_str()) == Some(ext) {
                if let Some(stem) = path.file_stem().and_then(|s| s.to_str()) {
                    names.insert(stem.to_string());
                }
            }
        }
    }
    names.into_iter().collect()
}

/// Content files read again for their excerpts, only when there is a problem.
struct Sources {
    root: PathBuf,
    read: std::collections::HashMap<String, Arc<str>>,
}

impl Sources {
    fn new(root: &Path) -> Sources {
        Sources {
            root: root.to_path_buf(),
            read: Default::default(),
        }
    }

    fn diagnostic(&mut self, file: &str, error: &yaml::Error) -> Diagnostic {
        let root = &self.root;
        let source = self
            .read
            .entry(file.to_string())
            .or_insert_with(|| {
                std::fs::read_to_string(root.join(file))
                    .unwrap_or_default()
                    .into()
            })
            .clone();
        if source.is_empty() {
            return Diagnostic::new(file, error.to_string());
        }
        error.diagnostic(file, &source)
    }
}
