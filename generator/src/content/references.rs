//! The references pass: the icons, pictures, layouts and pages that content names
//! exist. It runs once every page is loaded, since a link may lead to any page,
//! and reports each problem at the content file's line and field, where the
//! editor wrote it. A link to no page is a warning; the rest are errors.

use std::collections::{BTreeSet, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::values::{Reference, Target};
use super::{yaml, Content, Unloaded};
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
pub fn check(root: &Path, content: &Content, places: &Places) -> Findings {
    let routes: HashSet<&str> = content.pages.iter().map(|p| p.route.as_str()).collect();
    let mut checker = Checker::new(root, places, Some(routes));
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
    for name in &content.config.collections {
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
}

impl<'a> Checker<'a> {
    fn new(root: &Path, places: &'a Places, routes: Option<HashSet<&'a str>>) -> Checker<'a> {
        Checker {
            places,
            routes,
            names: Names::default(),
            sources: Sources::new(root),
            findings: Findings::default(),
        }
    }

    /// Checks the references named in `file`.
    fn file(&mut self, file: &str, references: &[Reference]) {
        for reference in references {
            let routes = self.routes.as_ref();
            let Some((message, warning)) = problem(reference, self.places, routes, &mut self.names)
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
            if places.public.join(path.trim_start_matches('/')).is_file() {
                return None;
            }
            let hint = suggest::did_you_mean(path, names.files(places).iter().map(String::as_str));
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
        Target::Link(href) => {
            let routes = routes?;
            let path = href.split(['?', '#']).next().unwrap_or(href);
            // Files (`/favicon.svg`, `/insights/feed.xml`) are checked by `site check`.
            if !path.ends_with('/') || routes.contains(path) {
                return None;
            }
            let hint = suggest::did_you_mean(path, routes.iter().copied());
            Some((
                format!("the link to `{path}` leads to no page of this site{hint}"),
                true,
            ))
        }
    }
}

/// The names something may have, listed once and only when a suggestion is needed.
#[derive(Default)]
struct Names {
    icons: Option<Vec<String>>,
    files: Option<Vec<String>>,
    layouts: Option<Vec<String>>,
}

impl Names {
    fn icons(&mut self, places: &Places) -> &[String] {
        self.icons
            .get_or_insert_with(|| stems(&places.icons, "svg"))
    }

    fn layouts(&mut self, places: &Places) -> &[String] {
        self.layouts
            .get_or_insert_with(|| stems(std::slice::from_ref(&places.layouts), "html"))
    }

    fn files(&mut self, places: &Places) -> &[String] {
        self.files.get_or_insert_with(|| {
            walkdir::WalkDir::new(&places.public)
                .follow_links(true)
                .into_iter()
                .filter_map(Result::ok)
                .filter(|e| e.file_type().is_file())
                .filter_map(|e| {
                    let rel = e.path().strip_prefix(&places.public).ok()?;
                    Some(format!("/{}", rel.to_string_lossy().replace('\\', "/")))
                })
                .collect()
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
