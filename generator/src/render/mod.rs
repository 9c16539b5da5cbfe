//! The render stage: MiniJinja templates (strict undefined, HTML autoescape) turn
//! every page into HTML, in parallel. Template functions and filters live here in
//! Rust so templates stay short.

mod functions;
pub mod islands;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use minijinja::value::Kwargs;
use minijinja::value::Serde;
use minijinja::{context, path_loader, Environment, State, UndefinedBehavior, Value};
use rayon::prelude::*;
use serde::Serialize;

use crate::bundle::Bundle;
use crate::content::{Content, Page};
use crate::diagnostics::Diagnostic;
use crate::ssr;
use islands::{Islands, PageIslands};

/// One rendered HTML document.
#[derive(Debug)]
pub struct Rendered {
    pub route: String,
    pub html: String,
    /// The islands the page hydrates (for its JavaScript weight).
    pub islands: Vec<String>,
}

/// Settings that vary between builds of the same content.
#[derive(Debug, Clone)]
pub struct Settings {
    pub base_url: String,
    pub year: i32,
}

pub struct Renderer {
    env: Environment<'static>,
    templates: PathBuf,
    base_url: String,
}

/// The one environment factory: loader, functions, filters and globals.
pub fn environment(
    root: &Path,
    content: &Content,
    settings: &Settings,
    bundle: Arc<Bundle>,
    ssr: Arc<ssr::Renderer>,
    node_modules: Option<&Path>,
) -> Renderer {
    let templates = root.join("templates");
    let mut env = Environment::new();
    env.set_loader(path_loader(&templates));
    env.set_undefined_behavior(UndefinedBehavior::Strict);
    env.set_debug(true);
    env.set_formatter(html_formatter);

    let islands = Arc::new(Islands {
        bundle: bundle.clone(),
        ssr,
    });
    let placing = islands.clone();
    env.add_function(
        "island",
        move |state: &mut State, name: String, props: Option<Value>, kwargs: Kwargs| {
            placing.place(state, &name, props.unwrap_or(Value::UNDEFINED), kwargs)
        },
    );
    env.add_function("island_scripts", move |state: &mut State| {
        islands.scripts(state)
    });
    functions::register(&mut env, root, &bundle, content, node_modules);

    env.add_global("site", Value::from(Serde(&content.config)));
    env.add_global("base_url", Value::from(settings.base_url.clone()));
    env.add_global("year", Value::from(settings.year));
    // Every page's address, title and date, for the human sitemap and lists.
    let listed: Vec<Listed> = content
        .pages
        .iter()
        .map(|p| Listed {
            route: p.route.clone(),
            title: p.title.clone(),
            date: p.date.as_ref().map(|d| d.as_str().to_string()),
        })
        .collect();
    env.add_global("pages", Value::from(Serde(&listed)));
    // The pages below a section, newest first (then by address): a blog's index.
    let mut by_date = listed;
    by_date.sort_by(|a, b| b.date.cmp(&a.date).then_with(|| a.route.cmp(&b.route)));
    let by_date = Arc::new(by_date);
    env.add_function("pages_in", move |section: &str| {
        let prefix = format!("{}/", section.trim_end_matches('/'));
        let found: Vec<&Listed> = by_date
            .iter()
            .filter(|p| p.route.starts_with(&prefix) && p.route != prefix)
            .collect();
        Value::from(Serde(found))
    });
    env.add_filter("date_long", |iso: &str| crate::content::long_date(iso));

    Renderer {
        env,
        templates,
        base_url: settings.base_url.clone(),
    }
}

#[derive(Serialize)]
struct Listed {
    route: String,
    title: String,
    date: Option<String>,
}

#[derive(Serialize)]
struct PageContext<'a> {
    #[serde(flatten)]
    page: &'a Page,
    /// The canonical absolute URL.
    url: String,
}

impl Renderer {
    /// Compiles every template first, so all syntax errors are reported at once.
    pub fn check_templates(&self) -> Vec<Diagnostic> {
        let mut diagnostics = Vec::new();
        for entry in walkdir::WalkDir::new(&self.templates)
            .sort_by_file_name()
            .into_iter()
            .flatten()
        {
            if !entry.file_type().is_file() {
                continue;
            }
            let Ok(name) = entry.path().strip_prefix(&self.templates) else {
                continue;
            };
            let name = name.to_string_lossy().replace('\\', "/");
            if name.starts_with('.') || name.contains("/.") || !name.ends_with(".html") {
                continue;
            }
            if let Err(e) = self.env.get_template(&name) {
                diagnostics.push(self.diagnostic(&e, None));
            }
        }
        diagnostics
    }

    pub fn render_pages(&self, pages: &[Page]) -> Result<Vec<Rendered>, Vec<Diagnostic>> {
        let results: Vec<Result<Rendered, Diagnostic>> = pages
            .par_iter()
            .map(|page| self.render_page(page))
            .collect();
        let mut out = Vec::with_capacity(results.len());
        // The same template error on many pages is one problem, reported once.
        let mut errors: BTreeMap<String, (Diagnostic, usize)> = BTreeMap::new();
        for r in results {
            match r {
                Ok(page) => out.push(page),
                Err(d) => errors.entry(d.to_string()).or_insert((d, 0)).1 += 1,
            }
        }
        if errors.is_empty() {
            Ok(out)
        } else {
            Err(errors
                .into_values()
                .map(|(mut d, n)| {
                    if n > 1 {
                        d.message.push_str(&format!(" (on {n} pages)"));
                    }
                    d
                })
                .collect())
        }
    }

    pub fn render_page(&self, page: &Page) -> Result<Rendered, Diagnostic> {
        let name = format!("layouts/{}.html", page.layout);
        let template = self.env.get_template(&name).map_err(|e| {
            if e.kind() == minijinja::ErrorKind::TemplateNotFound {
                Diagnostic::new(
                    page.source.clone(),
                    format!(
                        "layout `{}` does not exist: there is no templates/{name}",
                        page.layout
                    ),
                )
            } else {
                self.diagnostic(&e, Some(page))
            }
        })?;
        let ctx = PageContext {
            page,
            url: canonical_url(&self.base_url, &page.route),
        };
        let captured = template
            .render_captured(context! { page => Value::from(Serde(&ctx)) })
            .map_err(|e| self.diagnostic(&e, Some(page)))?;
        let islands = captured
            .state()
            .get_extension::<PageIslands>()
            .map(|p| {
                p.0.iter()
                    .filter(|(_, h)| *h != islands::Hydrate::None)
                    .map(|(n, _)| n.clone())
                    .collect()
            })
            .unwrap_or_default();
        Ok(Rendered {
            route: page.route.clone(),
            html: captured.into_output(),
            islands,
        })
    }

    /// Renders a template outside the page list (`404.html`), when the site has it.
    pub fn render_special(
        &self,
        template: &str,
        page: &Page,
    ) -> Result<Option<String>, Diagnostic> {
        if !self.templates.join(template).is_file() {
            return Ok(None);
        }
        let ctx = PageContext {
            page,
            url: canonical_url(&self.base_url, &page.route),
        };
        self.env
            .get_template(template)
            .and_then(|t| t.render(context! { page => Value::from(Serde(&ctx)) }))
            .map(Some)
            .map_err(|e| self.diagnostic(&e, Some(page)))
    }

    /// A MiniJinja error as a diagnostic at the innermost template position.
    fn diagnostic(&self, err: &minijinja::Error, page: Option<&Page>) -> Diagnostic {
        let mut inner = err;
        let mut cause: Option<&(dyn std::error::Error + 'static)> = std::error::Error::source(err);
        while let Some(c) = cause {
            if let Some(e) = c.downcast_ref::<minijinja::Error>() {
                if e.name().is_some() {
                    inner = e;
                }
            }
            cause = c.source();
        }
        let mut message = match inner.detail() {
            Some(detail) => format!("{}: {detail}", inner.kind()),
            None => inner.kind().to_string(),
        };
        if let Some(page) = page {
            message.push_str(&format!(" (rendering {})", page.source));
        }
        let Some(name) = inner.name() else {
            return Diagnostic::new("templates/", message);
        };
        let file = format!("templates/{name}");
        let mut d = Diagnostic::new(file, message);
        let source: Option<Arc<str>> = std::fs::read_to_string(self.templates.join(name))
            .ok()
            .map(Into::into);
        match (inner.line(), inner.range(), source) {
            (Some(line), Some(range), Some(src)) if range.start <= src.len() => {
                let line_start = src[..range.start].rfind('\n').map_or(0, |i| i + 1);
                let column = src[line_start..range.start].chars().count() + 1;
                d = d
                    .at(line, column)
                    .with_snippet(src, range.start, range.len());
            }
            (Some(line), _, _) => d = d.at(line, 1),
            _ => {}
        }
        d
    }
}

/// MiniJinja's formatter, but escaping only what HTML requires (`&<>"'`), so URLs
/// read as written (`/about`, not `&#x2f;about`).
fn html_formatter(
    out: &mut minijinja::Output,
    state: &mut State,
    value: &Value,
) -> Result<(), minijinja::Error> {
    match (state.auto_escape(), value.as_str()) {
        (minijinja::AutoEscape::Html, Some(text)) if !value.is_safe() => {
            let mut last = 0;
            for (i, c) in text.char_indices() {
                let entity = match c {
                    '&' => "&amp;",
                    '<' => "&lt;",
                    '>' => "&gt;",
                    '"' => "&quot;",
                    '\'' => "&#39;",
                    _ => continue,
                };
                out.write_str(&text[last..i])
                    .map_err(minijinja::Error::from)?;
                out.write_str(entity).map_err(minijinja::Error::from)?;
                last = i + 1;
            }
            out.write_str(&text[last..]).map_err(minijinja::Error::from)
        }
        _ => minijinja::escape_formatter(out, state, value),
    }
}

/// `https://example.com` + `/about/` → `https://example.com/about/`.
pub fn canonical_url(base_url: &str, route: &str) -> String {
    format!("{}{}", base_url.trim_end_matches('/'), route)
}
