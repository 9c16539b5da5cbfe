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
    let mut findings = Findings::default();
    let mut names = Names::default();
    let mut sources = Sources::new(root);
    findings
        .warnings
        .extend(content.config_warnings.iter().cloned());
    let config = ("content/site.yaml", &content.config_references[..]);
    let pages = content
        .pages
        .iter()
        .map(|p| (p.source.as_str(), &p.references[..]));
    for (file, references) in std::iter::once(config).chain(pages) {
        for reference in references {
            let Some((message, warning)) = problem(reference, places, &routes, &mut names) else {
                continue;
            };
            let error = yaml::Error::at(reference.span, &reference.path, message);
            let d = sources.diagnostic(file, &error);
            if warning {
                findings.warnings.push(d.as_warning());
            } else {
                findings.errors.push(d);
            }
        }
    }
    for page in &content.pages {
        for w in &page.warnings {
            let d = sources.diagnostic(&page.source, w);
            findings.warnings.push(d.as_warning());
        }
    }
    for name in &content.config.collections {
        let folder = root.join("content").join("pages").join(name);
        if !folder.is_dir() {
            findings.errors.push(Diagnostic::new(
                "content/site.yaml",
                format!("collections: there is no folder content/pages/{name}/ for the collection `{name}`"),
            ));
        }
    }
    findings
}

/// The icons, pictures and layouts named by files that failed to load (their
/// links wait until every page loads).
pub fn check_unloaded(root: &Path, unloaded: &[Arc<Unloaded>], places: &Places) -> Vec<Diagnostic> {
    let routes = HashSet::new();
    let mut names = Names::default();
    let mut sources = Sources::new(root);
    let mut errors = Vec::new();
    for file in unloaded {
        for reference in &file.references {
            if matches!(reference.target, Target::Link(_)) {
                continue;
            }
            if let Some((message, _)) = problem(reference, places, &routes, &mut names) {
                let error = yaml::Error::at(reference.span, &reference.path, message);
                errors.push(sources.diagnostic(&file.file, &error));
            }
        }
    }
    errors
}

/// What is wrong with a reference, and whether it is only a warning.
fn problem(
    reference: &Reference,
    places: &Places,
    routes: &HashSet<&str>,
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
                .follow_links(false)
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
