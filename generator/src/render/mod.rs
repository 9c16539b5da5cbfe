//! The render stage: MiniJinja templates (strict undefined, HTML autoescape) turn
//! every page into HTML, in parallel, and hand each to the build's [`Sink`] as
//! it is rendered: the render returns HTML and writes nothing. The environment
//! and everything templates can call are in `environment.rs`; `site serve` keeps
//! the pages of its last build and renders again only those whose inputs changed.
//!
//! One piece (621 lines): the `Renderer` and its passes over the pages (the
//! cache of the last build's pages, the errors gathered once for all pages,
//! a page, a 404 page, the stale notice) share the renderer's private state;
//! what stands alone is in the rooms below.

mod assets;
pub mod environment;
mod format;
mod icons;
mod images;
pub mod islands;
pub mod languages;
pub mod names;
pub mod pages;
pub mod parts;
pub mod ssr;
pub mod structured;
mod svg;
pub mod text;

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use minijinja::value::Serde;
use minijinja::{context, Environment, Value};
use rayon::prelude::*;
use serde::Serialize;

use crate::bundle::Bundle;
use crate::content::{canonical_url, Content, Page};
use crate::diagnostics::Diagnostic;
use islands::{Hydrate, PageIslands};

/// One rendered HTML document, with what its [`Sink`] measured of it.
#[derive(Debug)]
pub struct Rendered<M = ()> {
    pub route: String,
    pub body: Body,
    /// Whether the page read a list of pages (`pages`, `pages_in`).
    pub lists_pages: bool,
    /// Files made for the page (image variants, its social card): URL → file.
    pub files: Vec<(String, PathBuf)>,
    /// What the sink measured of the page as it took it.
    pub measure: M,
}

/// A page's HTML: kept by `site serve`, which compares it with what it wrote
/// last; written at once by `site build`, which keeps only its size.
#[derive(Debug)]
pub enum Body {
    Kept { html: Arc<str>, hash: blake3::Hash },
    Written(u64),
}

/// Room for a page's HTML around its body: this site's pages are 10 to 60 KB.
const PAGE_AROUND_BODY: usize = 64 * 1024;

impl Body {
    /// A page's HTML kept whole, with its hash.
    pub fn kept(html: String) -> Body {
        Body::Kept {
            hash: blake3::hash(html.as_bytes()),
            html: html.into(),
        }
    }
}

/// Where each page goes as soon as it is rendered, in the render's parallel
/// pass. The render writes nothing and measures nothing: `site build`'s sink
/// writes each page into the new output and weighs it there, so that only its
/// size stays in memory; `site serve`'s keeps the HTML, to write what changed.
pub trait Sink: Sync {
    /// What the sink measures of each page (its weight), kept beside it.
    type Measure: std::fmt::Debug + Send + Sync;
    /// Whether pages are written as they render: then no page is kept for the
    /// next build.
    fn writes(&self) -> bool;
    /// Takes a page's HTML, with the islands it hydrates; gives its body (the
    /// HTML kept, or the size written) and its measure, or why it cannot be
    /// written.
    fn page(
        &self,
        route: &str,
        html: String,
        hydrating: &[&str],
    ) -> Result<(Body, Self::Measure), String>;
}

/// The sink that keeps each page's HTML and measures nothing (the editor's
/// preview).
pub struct Keep;

impl Sink for Keep {
    type Measure = ();

    fn writes(&self) -> bool {
        false
    }

    fn page(&self, _: &str, html: String, _: &[&str]) -> Result<(Body, ()), String> {
        Ok((Body::kept(html), ()))
    }
}

/// Every problem of a render (template errors are reported once for all pages).
pub type Problems = Vec<Diagnostic>;

/// A document rendered outside the page list (a 404 page).
#[derive(Debug, Clone)]
pub struct Special {
    /// Where it is written: `/404.html`, `/de/404.html`.
    pub route: String,
    pub html: String,
    /// Files made for it: URL → file.
    pub files: Vec<(String, PathBuf)>,
}

/// The values that vary between builds of the same content (from the build's
/// settings): what every page's render reads besides the content.
#[derive(Debug, Clone, Hash)]
pub struct BuildValues {
    pub base_url: String,
    pub year: i32,
    /// Markup placed first in every `<head>` (the host's `<meta>` policies).
    pub head: String,
}

/// The pages of the last build, kept by `site serve` with what they were made
/// from (and what the sink measured of them).
#[derive(Debug)]
pub struct Cache<M> {
    /// What every page depends on: templates, `site.yaml`, settings, bundle.
    everything: Option<blake3::Hash>,
    /// The listed addresses, titles and dates.
    listing: Option<blake3::Hash>,
    pages: HashMap<String, (Arc<Page>, Arc<Rendered<M>>)>,
    /// How many pages the last call rendered (the rest were reused).
    pub rendered: usize,
}

impl<M> Cache<M> {
    /// Each page kept whole with its HTML (`site serve`'s), in no order.
    pub fn kept(&self) -> impl Iterator<Item = (&Page, &str)> {
        self.pages
            .values()
            .filter_map(|(page, rendered)| match &rendered.body {
                Body::Kept { html, .. } => Some((&**page, &**html)),
                Body::Written(_) => None,
            })
    }
}

impl<M> Default for Cache<M> {
    fn default() -> Self {
        Cache {
            everything: None,
            listing: None,
            pages: HashMap::new(),
            rendered: 0,
        }
    }
}

pub struct Renderer {
    env: Environment<'static>,
    templates: PathBuf,
    base_url: String,
    head: String,
    translations: Arc<languages::SiteLanguages>,
    /// The site's time zone, for `now`: each render reads the clock, so a
    /// renderer kept across builds never tells an old time.
    timezone: crate::content::publishing::TimeZone,
    /// The translations older than their source, for their notice.
    stale: Arc<crate::content::staleness::Staleness>,
}

#[derive(Serialize)]
struct PageContext<'a> {
    #[serde(flatten)]
    page: &'a Page,
    /// The canonical absolute URL.
    url: String,
    /// The default language's page it translates (its own address, for one of
    /// the default language).
    translation_key: &'a str,
    /// Its language, translations and the switcher's links.
    #[serde(flatten)]
    languages: languages::PageLanguages<'a>,
    /// When it is a translation older than its source: the source's address.
    stale: Option<StaleNotice<'a>>,
    /// Its body (`environment::Body`), handed over without a copy.
    content: Value,
}

/// What a stale translation's notice links to: its source.
#[derive(Serialize)]
struct StaleNotice<'a> {
    source: &'a str,
    /// The source's language code.
    lang: &'a str,
}

/// A hash of everything all pages depend on: the templates, `public/`, `site.yaml`,
/// the settings and the bundle. When it changes, every page is rendered again.
pub fn everything_hash(
    root: &Path,
    content: &Content,
    settings: &BuildValues,
    bundle: &Bundle,
) -> blake3::Hash {
    let mut h = blake3::Hasher::new();
    let templates = root.join("templates");
    for entry in walkdir::WalkDir::new(&templates)
        .follow_links(true)
        .sort_by_file_name()
        .into_iter()
        .flatten()
        .filter(|e| e.file_type().is_file())
    {
        h.update(entry.path().to_string_lossy().as_bytes());
        if let Ok(bytes) = std::fs::read(entry.path()) {
            h.update(&(bytes.len() as u64).to_le_bytes());
            h.update(&bytes);
        }
    }
    // The pictures under public/: a replaced photo gets new variants, so every
    // page that shows it must link them (by size and time, not read).
    for entry in walkdir::WalkDir::new(root.join("public"))
        .follow_links(true)
        .sort_by_file_name()
        .into_iter()
        .flatten()
        .filter(|e| e.file_type().is_file())
    {
        h.update(entry.path().to_string_lossy().as_bytes());
        if let Some(f) = crate::content::Fingerprint::of(entry.path()) {
            h.update(format!("{f:?}").as_bytes());
        }
    }
    h.update(
        serde_json::to_string(&content.config)
            .unwrap_or_default()
            .as_bytes(),
    );
    // The words of every language, and which pages translate which: a page's
    // switcher and alternates name its translations.
    // Only pages with translations count: adding a page of one language alone
    // renders no other page again.
    content.strings.hash_into(&mut h);
    for (key, members) in content.translations.groups() {
        for m in members {
            for part in [content.languages().code(m.lang), key, &m.route] {
                h.update(part.as_bytes());
                h.update(&[0]);
            }
        }
    }
    // A stale translation's notice: which pages have one.
    content.stale.hash_into(&mut h);
    h.update(format!("{settings:?}").as_bytes());
    h.update(bundle.hash().as_bytes());
    h.finalize()
}

/// A hash of which listing holds which entries, in which order.
pub fn lists_hash(content: &Content) -> blake3::Hash {
    let mut h = blake3::Hasher::new();
    for list in &content.listings.lists {
        for route in std::iter::once(&list.first).chain(&list.entries) {
            h.update(&(route.len() as u64).to_le_bytes());
            h.update(route.as_bytes());
        }
        h.update(&[0xff]);
    }
    h.finalize()
}

/// A hash of what page lists show: every address, title, description, date and
/// article byline.
pub fn listing_hash(content: &Content) -> blake3::Hash {
    let mut h = blake3::Hasher::new();
    // Each text with its length first, so no two listings hash alike.
    let mut text = |t: &str| {
        h.update(&(t.len() as u64).to_le_bytes());
        h.update(t.as_bytes());
    };
    for p in &content.pages {
        text(&p.route);
        text(&p.title);
        text(&p.description);
        text(p.date.as_ref().map_or("", |d| d.as_str()));
        match &p.article {
            Some(a) => {
                for field in [
                    &a.collection,
                    &a.author,
                    &a.category,
                    a.image.as_str(),
                    &a.alt,
                ] {
                    text(field);
                }
                text(if a.featured { "featured" } else { "" });
                text(&a.reading_minutes.to_string());
            }
            None => text("-"),
        }
        // Events, jobs and badges are few: their JSON is hash enough.
        for json in [
            p.event.as_ref().map(serde_json::to_string),
            p.job.as_ref().map(serde_json::to_string),
            p.unpublished.as_ref().map(serde_json::to_string),
        ] {
            text(&json.and_then(Result::ok).unwrap_or_default());
        }
    }
    // Which listing holds which entries, in which order (events move to the
    // archive as days pass).
    for list in &content.listings.lists {
        text(&list.first);
        for route in &list.entries {
            text(route);
        }
    }
    h.finalize()
}

impl Renderer {
    pub fn new(inputs: environment::Inputs) -> Renderer {
        let templates = inputs.root.join("templates");
        let base_url = inputs.settings.base_url.clone();
        let head = inputs.settings.head.clone();
        let translations = Arc::new(languages::SiteLanguages::new(inputs.content, &base_url));
        let timezone = inputs.content.config.timezone.clone();
        let stale = inputs.content.stale.clone();
        Renderer {
            timezone,
            stale,
            env: environment::environment(inputs, translations.clone()),
            templates,
            base_url,
            head,
            translations,
        }
    }

    /// The notice of a stale translation: its source's address and language.
    fn stale_notice<'a>(&'a self, page: &Page) -> Option<StaleNotice<'a>> {
        let stale = self.stale.of(&page.route)?;
        Some(StaleNotice {
            source: &stale.source_route,
            lang: self.translations.default_code(),
        })
    }

    /// Compiles every template first, so all syntax errors are reported at once.
    pub fn check_templates(&self) -> Vec<Diagnostic> {
        let mut diagnostics = Vec::new();
        for entry in walkdir::WalkDir::new(&self.templates)
            .follow_links(true)
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
                diagnostics.push(self.diagnostic(&e));
            }
        }
        diagnostics
    }

    /// Renders every page, taking from `cache` those whose inputs are unchanged:
    /// the same page data, the same `everything` and, for pages that list pages,
    /// the same listing. Each page goes to `sink` as soon as it is rendered, in
    /// the same parallel pass; a sink that writes pages (`site build`) has
    /// nothing cached.
    pub fn render_pages<S: Sink>(
        &self,
        pages: &[Arc<Page>],
        cache: &mut Cache<S::Measure>,
        everything: blake3::Hash,
        listing: blake3::Hash,
        sink: &S,
    ) -> Result<Vec<Arc<Rendered<S::Measure>>>, Problems> {
        if cache.everything != Some(everything) || sink.writes() {
            cache.pages.clear();
        }
        let listing_changed = cache.listing != Some(listing);
        type Outcome<M> = Result<(Arc<Rendered<M>>, bool), Box<(Diagnostic, String)>>;
        let results: Vec<Outcome<S::Measure>> = pages
            .par_iter()
            .map(|page| {
                let kept = cache.pages.get(&page.route).filter(|(before, rendered)| {
                    Arc::ptr_eq(before, page) && !(rendered.lists_pages && listing_changed)
                });
                match kept {
                    Some((_, rendered)) => Ok((rendered.clone(), false)),
                    None => self
                        .render_page(page, sink)
                        .map(|r| (Arc::new(r), true))
                        .map_err(|d| Box::new((d, page.source.clone()))),
                }
            })
            .collect();
        let mut out = Vec::with_capacity(results.len());
        // The same template error on many pages is one problem, reported once,
        // naming the first page it happened on.
        let mut errors: BTreeMap<String, (Diagnostic, Vec<String>)> = BTreeMap::new();
        let mut rendered = 0;
        for r in results {
            match r {
                Ok((page, fresh)) => {
                    rendered += usize::from(fresh);
                    out.push(page);
                }
                Err(failed) => {
                    let (d, source) = *failed;
                    errors
                        .entry(d.to_string())
                        .or_insert((d, Vec::new()))
                        .1
                        .push(source);
                }
            }
        }
        if !errors.is_empty() {
            cache.everything = None;
            return Err(errors
                .into_values()
                .map(|(mut d, sources)| {
                    let first = sources.iter().min().cloned().unwrap_or_default();
                    match sources.len() {
                        // A problem of the page itself names the page already.
                        1 if d.file == first => {}
                        1 => d.message.push_str(&format!(" (rendering {first})")),
                        n => d
                            .message
                            .push_str(&format!(" (rendering {n} pages, {first} first)")),
                    }
                    d
                })
                .collect());
        }
        cache.rendered = rendered;
        if !sink.writes() {
            cache.everything = Some(everything);
            cache.listing = Some(listing);
            cache.pages = pages
                .iter()
                .cloned()
                .zip(out.iter().cloned())
                .map(|(page, rendered)| (page.route.clone(), (page, rendered)))
                .collect();
        }
        Ok(out)
    }

    pub fn render_page<S: Sink>(
        &self,
        page: &Page,
        sink: &S,
    ) -> Result<Rendered<S::Measure>, Diagnostic> {
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
                self.diagnostic(&e)
            }
        })?;
        let ctx = PageContext {
            page,
            url: canonical_url(&self.base_url, &page.route),
            translation_key: page.translation_key(),
            languages: self.translations.of(page),
            stale: self.stale_notice(page),
            content: Value::from_object(environment::Body(page.content.clone())),
        };
        pages::start_tracking();
        // Sized for the body and the page around it at once: a growing buffer
        // copies itself each time it doubles, and a long page's last doubling
        // holds it twice.
        let mut out = Vec::with_capacity(page.content.len() + PAGE_AROUND_BODY);
        let captured = template
            .render_captured_to(
                context! { page => Value::from(Serde(&ctx)), now => self.now() },
                &mut out,
            )
            .map_err(|e| self.diagnostic(&e))?;
        let files = captured
            .state()
            .get_extension::<images::PageFiles>()
            .map(|f| f.0.clone())
            .unwrap_or_default();
        // The islands the page hydrates, which decide the scripts it loads.
        let hydrating: Vec<String> = captured
            .state()
            .get_extension::<PageIslands>()
            .iter()
            .flat_map(|p| p.0.iter())
            .filter(|(_, h)| *h != Hydrate::None)
            .map(|(n, _)| n.clone())
            .collect();
        let lists_pages = pages::listed_pages();
        drop(captured);
        // The formatter writes only `str`s, so this is never refused.
        let html = String::from_utf8(out).map_err(|e| {
            Diagnostic::new(page.source.clone(), format!("the page is not UTF-8: {e}"))
        })?;
        let html = self.finish(html);
        let hydrating: Vec<&str> = hydrating.iter().map(String::as_str).collect();
        let (body, measure) = sink.page(&page.route, html, &hydrating).map_err(|e| {
            Diagnostic::new(page.source.clone(), format!("cannot write the page: {e}"))
        })?;
        Ok(Rendered {
            route: page.route.clone(),
            body,
            lists_pages,
            files,
            measure,
        })
    }

    /// Now, in UTC, to compare with an event's `end` (`2026-12-03T17:30:00Z`).
    fn now(&self) -> String {
        crate::content::publishing::Clock::of(&self.timezone)
            .now
            .with_timezone(&chrono::Utc)
            .format("%Y-%m-%dT%H:%M:%SZ")
            .to_string()
    }

    /// The page with the host's policies first in its `<head>`, when there are any.
    fn finish(&self, html: String) -> String {
        if self.head.is_empty() {
            html
        } else {
            crate::html::insert_in_head(&html, &self.head)
        }
    }

    /// Renders a template outside the page list (`404.html`, for each
    /// language's 404 page), when the site has it: its HTML and the files made
    /// for it (its social card). Such a page is no address of its own: its
    /// language switcher leads to each language's home.
    pub fn render_special(
        &self,
        template: &str,
        page: &Page,
    ) -> Result<Option<Special>, Diagnostic> {
        if !self.templates.join(template).is_file() {
            return Ok(None);
        }
        let ctx = PageContext {
            page,
            url: canonical_url(&self.base_url, &page.route),
            translation_key: page.translation_key(),
            languages: self.translations.of_addressless(page),
            stale: self.stale_notice(page),
            content: Value::from_object(environment::Body(page.content.clone())),
        };
        let captured = self
            .env
            .get_template(template)
            .and_then(|t| {
                t.render_captured(context! { page => Value::from(Serde(&ctx)), now => self.now() })
            })
            .map_err(|e| self.diagnostic(&e))?;
        let files = captured
            .state()
            .get_extension::<images::PageFiles>()
            .map(|f| f.0.clone())
            .unwrap_or_default();
        Ok(Some(Special {
            route: page.route.clone(),
            html: self.finish(captured.into_output()),
            files,
        }))
    }

    fn diagnostic(&self, err: &minijinja::Error) -> Diagnostic {
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
        let message = match inner.detail() {
            Some(detail) => format!("{}: {detail}", inner.kind()),
            None => inner.kind().to_string(),
        };
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
