//! The references pass: the icons, pictures, layouts and pages that content names
//! exist (`targets.rs`), every redirect leads somewhere in one hop
//! (`redirects.rs`), and translations translate a page of the default language
//! (`translation_links.rs`). It runs once every page is loaded, since a link may lead
//! to any page, and reports each problem at the content file's line and field,
//! where the editor wrote it. A link to no page is a warning; the rest are errors.

mod hints;
mod redirects;
mod targets;
mod translation_links;

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub use hints::RouteHints;
use targets::{problem, Names};

use super::publish::Held;
use super::values::Target;
use super::yaml::{self, Reference};
use super::{Content, Unloaded};
use crate::diagnostics::Diagnostic;

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
    /// A link to a page this build holds back: a warning that names why.
    fn held_link(&self, href: &str) -> Option<(String, bool)> {
        let path = href.split(['?', '#']).next().unwrap_or(href);
        let why = self.held.get(path)?;
        Some((
            format!("the link to `{path}` leads to a page that is {why}: it is left out of this build, so the link leads nowhere until the page is published"),
            true,
        ))
    }
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
