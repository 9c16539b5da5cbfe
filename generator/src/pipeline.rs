//! The build, one direction: load → bundle → render → weigh → write. [`build_in`]
//! is that list; each stage is a function below that takes what the stages before
//! it produced, and each is timed for `--verbose`.
//!
//! A [`Session`] is what `site serve` keeps from one build to the next: parsed
//! content, the bundle's parts and esbuild's incremental contexts, the warm
//! server-render process, the rendered pages and what the output folder holds. A
//! build with a fresh session (`site build`) does everything.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use crate::bundle::{Bundle, Bundles};
use crate::content::settings::Host;
use crate::content::settings::{self, Overrides};
use crate::content::{self, Content, Page};
use crate::diagnostics::Diagnostic;
use crate::memo::Memo;
use crate::output::headers::{self, Rule};
use crate::output::weight::{self, Weigher, Weight};
use crate::output::{self, Files, Source};
use crate::render::{self, environment, ssr, Rendered, Renderer, Settings};
pub use crate::timing::process_cpu_time;
use crate::timing::Stages;

#[derive(Debug, Clone, Default)]
pub struct Options {
    pub root: PathBuf,
    pub out: PathBuf,
    /// Overrides `base_url` of `site.yaml`.
    pub base_url: Option<String>,
    /// Overrides `host` of `site.yaml`.
    pub host: Option<Host>,
    /// A build for the live site: refuses to run without an https `base_url`, the
    /// storage URL and the anon key (also set by `SITE_PRODUCTION`).
    pub production: bool,
    /// Fail the build when a page is over its budget (else warn).
    pub strict_budgets: bool,
    /// Building for `site serve`, which provides the same-origin storage itself.
    pub serving: bool,
    /// Build drafts, scheduled pages and closed jobs too (`--drafts`, `site serve`).
    pub drafts: bool,
}

#[derive(Debug)]
pub struct Report {
    /// The output folder written.
    pub out: PathBuf,
    pub pages: usize,
    /// Pages rendered by this build (the others were unchanged and reused).
    pub pages_rendered: usize,
    pub files: usize,
    /// Files written by this build (`site serve` writes only what changed).
    pub files_written: usize,
    /// Each page's weight, when `site.yaml` sets budgets.
    pub weights: Vec<(String, Weight)>,
    pub ssr: ssr::Stats,
    /// Whether esbuild ran (else every part of the bundle came from its cache).
    pub bundle_rebuilt: bool,
    pub elapsed: Duration,
    pub stages: Vec<(&'static str, Duration)>,
    /// The CPU time the build used, all its threads, and each stage's, where the
    /// system tells it: a busy machine delays a build without making it use
    /// more, so the scaling test compares these.
    pub cpu: Option<Duration>,
    pub cpu_stages: Vec<(&'static str, Duration)>,
    /// Problems that did not stop the build: links to no page, text cut by a
    /// `#`, pages over budget.
    pub warnings: Vec<Diagnostic>,
    /// The host built for, and the headers it will send (for `site serve`).
    pub host: Host,
    pub served_headers: Vec<Rule>,
    pub production: bool,
    /// The pages not published on the build's day (drafts, scheduled, closed):
    /// left out, or shown with a badge when `drafts`.
    pub held: Vec<content::publish::Held>,
    pub drafts: bool,
    /// The addresses that redirect (for `site serve` to answer as the host does).
    pub redirects: Vec<content::publishing::Moved>,
    /// Every job posting and until when it takes applications, closed ones too
    /// (for `site serve`'s applications table).
    pub openings: Vec<crate::forms::applications::Opening>,
}

/// What a long-running `site serve` keeps from one build to the next.
#[derive(Default)]
pub struct Session {
    content: content::Cache,
    bundles: Bundles,
    ssr: Option<Arc<ssr::Renderer>>,
    /// The server-render process, kept across bundles.
    worker: Arc<ssr::Worker>,
    pages: render::Cache,
    /// The listing pages made by the last build, kept while unchanged.
    listing_pages: std::collections::HashMap<String, Arc<Page>>,
    /// `Some` when the output is updated in place (`site serve`).
    written: Option<output::Written>,
    /// What the last walk of the folders found unusable under `public/`, kept
    /// for builds after saves that need no walk.
    unusable: Vec<(String, String)>,
    /// What a one-shot build no longer needs, freed after it returns.
    retired: Vec<Box<dyn std::any::Any + Send>>,
    /// The sitemap's files, by the base URL and the default language.
    sitemap: Memo<(String, String), Arc<Generated>>,
    /// What lists of pages show (`render::listing_hash`), by the listings.
    listing: Memo<blake3::Hash, blake3::Hash>,
    /// The suggestions for links to no page, while the addresses stay the same.
    hints: Memo<(), Arc<content::references::RouteHints>>,
    /// The renderer, by everything else it reads.
    renderer: Memo<RendererKey, Arc<Renderer>>,
    /// The 404 page the kept renderer rendered.
    not_found: Option<Option<render::Special>>,
    /// When `site serve`'s first build made the calendars: later builds stamp
    /// them alike, so a calendar changes only with its event.
    calendars_made: Option<chrono::DateTime<chrono::Utc>>,
}

/// Files the build makes from the content: (path in the output, text).
type Generated = Vec<(String, String)>;

/// What a renderer reads besides the pages' listed fields and translations.
#[derive(PartialEq)]
struct RendererKey {
    everything: blake3::Hash,
    listing: blake3::Hash,
    openings: Vec<crate::forms::applications::Opening>,
    /// The server-render process (a new one after the islands changed).
    ssr: usize,
}

impl Session {
    /// A session for `site serve`: esbuild contexts stay alive and the output is
    /// updated in place, file by file.
    pub fn serving() -> Session {
        let mut session = Session::default();
        session.content.keep = true;
        session.bundles.live = true;
        session.written = Some(output::Written::default());
        session
    }

    /// Files the watcher saw saved since the last build. When each is a page
    /// file under `content/pages/` (or is gone), the next build looks at those
    /// alone: it walks no folder and stats no other file. Anything else, and a
    /// link, makes it look at everything. Gives whether it looks at those alone.
    pub fn saved(&mut self, root: &Path, paths: &[PathBuf]) -> bool {
        let pages = root.join("content").join("pages");
        let alone = self.content.keep
            && !paths.is_empty()
            && paths.iter().all(|p| {
                p.starts_with(&pages)
                    && match std::fs::symlink_metadata(p) {
                        Ok(meta) => meta.file_type().is_file(),
                        Err(e) => e.kind() == std::io::ErrorKind::NotFound,
                    }
            });
        self.content.saved = alone.then(|| paths.iter().cloned().collect());
        alone
    }

    /// A file under `styles/` changed.
    pub fn styles_changed(&mut self) {
        self.bundles.styles_changed();
    }

    /// A file under `islands/` changed.
    pub fn islands_changed(&mut self) {
        self.bundles.islands_changed();
    }

    /// `value` is no longer needed: a one-shot build frees it after it returns,
    /// `site serve` beside the build, so that the save is served first.
    fn retire<T: Send + 'static>(&mut self, value: T) {
        match self.written {
            None => self.retired.push(Box::new(value)),
            Some(_) => {
                std::thread::spawn(move || drop(value));
            }
        }
    }
}

/// What a stage gives: its product, or every problem it found.
type Stage<T> = Result<T, Vec<Diagnostic>>;

pub fn build(options: &Options) -> Result<Report, Vec<Diagnostic>> {
    let mut session = Session::default();
    let report = build_in(options, &mut session);
    // Freeing every page's data takes a while at scale, and `site build` exits
    // right after: that work is done beside the caller, not before it returns.
    std::thread::spawn(move || drop(session));
    report
}

pub fn build_in(options: &Options, session: &mut Session) -> Result<Report, Vec<Diagnostic>> {
    let mut stages = Stages::start();
    let root = site_root(options)?;
    let root = root.as_path();
    // After saves the watcher named, the folders are as the last walk found them.
    let unusable = match session.content.saved.is_some() {
        true => session.unusable.clone(),
        false => {
            let unusable = stages.time("folders", || folders(root))?;
            session.unusable = unusable.clone();
            unusable
        }
    };
    let (mut content, bundle) = stages.time("load + bundle", || {
        load_and_bundle(root, session, &unusable)
    })?;
    let openings = content::openings::openings(&content.pages, content.config.timezone.tz());
    let published = stages.time("publish", || {
        publish(&mut content, options, &mut session.listing_pages)
    })?;
    let mut warnings = stages.time("references", || {
        references(root, &content, session, &unusable, &published)
    })?;
    let (settings, more) = stages.time("settings", || resolve(root, options, &mut content))?;
    warnings.extend(more);
    // `site build` writes a new output beside the old, each page as it renders.
    let staging = match session.written {
        Some(_) => None,
        None => Some(
            output::Staging::new(&options.out).map_err(|e| vec![output_diagnostic(root, &e)])?,
        ),
    };
    let pages = stages.time("render", || {
        render(
            root,
            &content,
            &settings,
            &bundle,
            &openings,
            staging.as_ref(),
            session,
        )
    })?;
    let Weighed { weights, warnings } =
        stages.time("weigh", || weigh(&content, &pages.pages, options, warnings))?;
    let count = pages.pages.len();
    let written = stages.time("write", || {
        write(
            root,
            options,
            &content,
            &settings,
            &bundle,
            pages,
            &published.redirects,
            staging,
            session,
        )
    })?;
    session.retire(content);
    Ok(Report {
        out: options.out.clone(),
        pages: count,
        pages_rendered: session.pages.rendered,
        files: written.files,
        files_written: written.written,
        weights,
        ssr: written.ssr,
        bundle_rebuilt: session.bundles.ran_esbuild,
        elapsed: stages.started.elapsed(),
        cpu: stages.cpu(),
        cpu_stages: stages.cpu_done,
        stages: stages.done,
        warnings,
        host: settings.host,
        served_headers: settings.host.served_rules(&written.rules),
        production: settings.production,
        held: published.held,
        drafts: options.drafts,
        redirects: published.redirects,
        openings,
    })
}

/// A page as the editor has it, saved or not, rendered for its preview.
#[derive(Debug)]
pub struct Preview {
    /// Its address.
    pub route: String,
    pub html: String,
}

/// Why a file has no preview.
pub const NO_PREVIEW: &str = "only a page under content/pages/ has a preview";

/// Whether `file` (relative to the site root) is a page file, which has a preview.
pub fn has_preview(file: &str) -> bool {
    file.starts_with("content/pages/") && !file.split('/').any(|part| part == "..")
}

/// Renders the page of the content file `file` (relative to the site root, under
/// `content/pages/`) as it would be with `text` in it, saved or not, against the
/// last build of `session` (`site serve`'s): its problems are those the build
/// would report. Nothing is written and nothing the session keeps changes.
pub fn preview(
    options: &Options,
    session: &mut Session,
    file: &str,
    text: &str,
) -> Result<Preview, Vec<Diagnostic>> {
    let root = site_root(options)?;
    let root = root.as_path();
    let path = root.join(file);
    if !has_preview(file) {
        return Err(vec![Diagnostic::new(file, NO_PREVIEW)]);
    }
    let mut content = content::load_draft(root, &session.content, &path, text)
        .map_err(|failure| failure.diagnostics)?;
    let bundle = session
        .bundles
        .bundle(root)
        .map_err(|e| e.into_diagnostics(root))?;
    let openings = content::openings::openings(&content.pages, content.config.timezone.tz());
    // Listing pages are made anew, so the kept ones stay as the last build left them.
    let published = publish(&mut content, options, &mut session.listing_pages.clone())?;
    let unusable = session.unusable.clone();
    references(root, &content, session, &unusable, &published)?;
    let (settings, _) = resolve(root, options, &mut content)?;
    let Some(page) = content.pages.iter().find(|p| p.source == file).cloned() else {
        return Err(vec![Diagnostic::new(
            file,
            "this page is not in the site being served (it is held back from it)",
        )]);
    };
    let made = renderer(root, &content, &settings, &bundle, &openings, session)?;
    if made.fresh {
        // The kept 404 page was rendered by the renderer this one replaced.
        session.not_found = None;
    }
    let rendered = made
        .renderer
        .render_page(&page, render::Output::default())
        .map_err(|d| vec![d])?;
    made.ssr.save();
    match rendered.body {
        render::Body::Kept { html, .. } => Ok(Preview {
            route: page.route.clone(),
            html: html.to_string(),
        }),
        render::Body::Written(_) => Err(vec![Diagnostic::new(file, "the page was not kept")]),
    }
}

/// The site root, absolute, so paths handed to esbuild and Node mean the same
/// from anywhere.
fn site_root(options: &Options) -> Stage<PathBuf> {
    options.root.canonicalize().map_err(|e| {
        vec![Diagnostic::new(
            options.root.display().to_string(),
            format!("the site root cannot be used: {e}"),
        )]
    })
}

/// Links out of the site, link loops and pipes fail the build before any read.
/// Those under `public/` are read only for the pictures content names, so each is
/// reported at the line of a picture that uses it (with the file), by the
/// references stage; they come back as (address, why).
fn folders(root: &Path) -> Stage<Vec<(String, String)>> {
    let (public, others): (Vec<Diagnostic>, Vec<Diagnostic>) = content::folders::check(root)
        .into_iter()
        .partition(|d| d.file.starts_with("public/"));
    if !others.is_empty() {
        let mut all = others;
        all.extend(public);
        return Err(all);
    }
    Ok(public
        .into_iter()
        .map(|d| (d.file["public".len()..].to_string(), d.message))
        .collect())
}

/// Load and bundle do not depend on each other, so they run side by side.
fn load_and_bundle(
    root: &Path,
    session: &mut Session,
    unusable: &[(String, String)],
) -> Result<(Content, Bundle), Vec<Diagnostic>> {
    let Session {
        content: cache,
        bundles,
        ..
    } = session;
    let (content, bundle) = rayon::join(
        || content::load_cached(root, cache),
        || bundles.bundle(root).map_err(|e| e.into_diagnostics(root)),
    );
    match (content, bundle) {
        (Ok(c), Ok(b)) => Ok((c, b)),
        (c, b) => {
            let failure = c.err().unwrap_or_default();
            let mut all = failure.diagnostics;
            // A file that failed still has its icons, pictures and layouts
            // checked, so they are reported with its other mistakes.
            let mut places = content::references::Places::of(root, bundles.node_modules());
            places.unusable = unusable.to_vec();
            all.extend(content::references::check_unloaded(
                root,
                &failure.unloaded,
                &places,
            ));
            all.extend(b.err().unwrap_or_default());
            Err(all)
        }
    }
}

/// The pages not published on the build's day, and each collection's listings
/// with the pages that show them; without `drafts`, the held pages leave.
fn publish(
    content: &mut Content,
    options: &Options,
    made: &mut std::collections::HashMap<String, Arc<Page>>,
) -> Stage<content::publish::Published> {
    let clock = content::publishing::Clock::of(&content.config.timezone);
    content::publish::publish(content, options.drafts, &clock, made)
}

/// The icons, pictures, layouts and pages content names exist, and every
/// redirect leads somewhere in one hop; links to no page (or to a page held
/// back) and the pages' own warnings come back as warnings.
fn references(
    root: &Path,
    content: &Content,
    session: &mut Session,
    unusable: &[(String, String)],
    published: &content::publish::Published,
) -> Stage<Vec<Diagnostic>> {
    let mut places = content::references::Places::of(root, session.bundles.node_modules());
    places.unusable = unusable.to_vec();
    places.hints = session.hints.get(
        &content.pages,
        (),
        content::references::RouteHints::same,
        Default::default,
    );
    let findings = content::references::check(root, content, &places, &published.held);
    if findings.errors.is_empty() {
        Ok(findings.warnings)
    } else {
        Err(findings.errors)
    }
}

/// The build's settings (site.yaml, the environment, the command line); a
/// production build that lacks what the live site needs stops here.
fn resolve(
    root: &Path,
    options: &Options,
    content: &mut Content,
) -> Stage<(Resolved, Vec<Diagnostic>)> {
    let overrides = Overrides {
        base_url: options.base_url.clone(),
        host: options.host,
        production: options.production,
    };
    let (resolved, warnings) =
        settings::resolve(root, &content.config, &overrides, options.serving)?;
    content.config.storage = resolved.storage.clone();
    content.config.host = resolved.host;
    let editor = (options.serving || content.config.admin.enabled)
        && root.join(crate::admin::ENTRY).is_file();
    let rules = headers::rules(&headers::Policy {
        storage_origin: headers::origin(&content.config.storage.url),
        production: resolved.production,
        editor: editor.then(|| crate::admin::content_security_policy(&content.config.admin)),
    });
    let render = Settings {
        base_url: resolved.base_url.clone(),
        year: build_year(),
        head: resolved.host.head_policies(&rules),
    };
    Ok((
        Resolved {
            host: resolved.host,
            production: resolved.production,
            rules,
            render,
        },
        warnings
            .into_iter()
            .map(|w| Diagnostic::new("content/site.yaml", w).as_warning())
            .collect(),
    ))
}

/// The settings later stages use.
struct Resolved {
    host: Host,
    production: bool,
    rules: Vec<Rule>,
    render: Settings,
}

/// The rendered pages, and the 404 page when the site has one.
struct Pages {
    pages: Vec<Arc<Rendered>>,
    not_found: Option<render::Special>,
}

/// Renders every page (reusing those whose inputs did not change) and the 404
/// page, weighing each when the site sets budgets; with `staging`, each page is
/// written there as it is rendered.
fn render(
    root: &Path,
    content: &Content,
    settings: &Resolved,
    bundle: &Bundle,
    openings: &[crate::forms::applications::Opening],
    staging: Option<&output::Staging>,
    session: &mut Session,
) -> Stage<Pages> {
    let Made {
        renderer,
        ssr,
        everything,
        listing,
        fresh,
    } = renderer(root, content, settings, bundle, openings, session)?;
    let weigher = content
        .config
        .budgets
        .as_ref()
        .map(|_| Weigher::new(bundle));
    let output = render::Output {
        staging,
        weigh: weigher.as_ref(),
    };
    let pages = renderer.render_pages(
        &content.pages,
        &mut session.pages,
        everything,
        listing,
        output,
    );
    // The 404 page reads what every page reads: a kept renderer's is kept too.
    let not_found = match session.not_found.clone().filter(|_| !fresh) {
        Some(kept) => Ok(kept),
        None => renderer.render_special("404.html", &not_found_page(content)),
    };
    session.not_found = not_found.as_ref().ok().cloned();
    ssr.save();
    match (pages, not_found) {
        (Ok(pages), Ok(not_found)) => Ok(Pages { pages, not_found }),
        (p, n) => {
            let mut all = p.err().unwrap_or_default();
            // The 404 page fails like the others when a shared template does.
            let repeated = |d: &Diagnostic| {
                all.iter()
                    .any(|a| a.file == d.file && a.message.starts_with(&d.message))
            };
            if let Some(d) = n.err().filter(|d| !repeated(d)) {
                all.push(d);
            }
            Err(all)
        }
    }
}

/// The renderer of a build, and what decides which pages it renders again.
struct Made {
    renderer: Arc<Renderer>,
    ssr: Arc<ssr::Renderer>,
    everything: blake3::Hash,
    listing: blake3::Hash,
    /// Made for this build (not kept from an earlier one).
    fresh: bool,
}

/// The renderer for `content`: the one kept, while no page changed in what every
/// page may read of the others (its listed fields, its translations), else a new
/// one whose templates are checked first.
fn renderer(
    root: &Path,
    content: &Content,
    settings: &Resolved,
    bundle: &Bundle,
    openings: &[crate::forms::applications::Opening],
    session: &mut Session,
) -> Stage<Made> {
    let ssr = server_renderer(root, bundle, session)?;
    ssr.set_limit(content.config.timeouts.render_limit());
    let everything = render::everything_hash(root, content, &settings.render, bundle);
    let listing = session.listing.get(
        &content.pages,
        render::lists_hash(content),
        render::pages::Listed::same,
        || render::listing_hash(content),
    );
    let key = RendererKey {
        everything,
        listing,
        openings: openings.to_vec(),
        ssr: Arc::as_ptr(&ssr) as usize,
    };
    let mut made = false;
    let node = session.bundles.tools(root).ok().map(|t| t.node.clone());
    let node_modules = session.bundles.node_modules();
    // Kept while no page changed in what every page may read of the others (its
    // listed fields, its translations): a save of a post's text renders it alone.
    let renderer = session.renderer.get(
        &content.pages,
        key,
        |a, b| render::pages::Listed::same(a, b) && a.translation_key == b.translation_key,
        || {
            made = true;
            Arc::new(Renderer::new(environment::Inputs {
                root,
                content,
                settings: &settings.render,
                bundle: Arc::new(bundle.clone()),
                ssr: ssr.clone(),
                node_modules,
                images: Arc::new(crate::images::Processor::new(root)),
                node: node.as_deref(),
                openings,
            }))
        },
    );
    if made {
        let diagnostics = renderer.check_templates();
        if !diagnostics.is_empty() {
            session.renderer.clear();
            return Err(diagnostics);
        }
    }
    Ok(Made {
        renderer,
        ssr,
        everything,
        listing,
        fresh: made,
    })
}

/// The warm Node process, or a new one when the islands changed.
fn server_renderer(
    root: &Path,
    bundle: &Bundle,
    session: &mut Session,
) -> Result<Arc<ssr::Renderer>, Vec<Diagnostic>> {
    if let Some(ssr) = &session.ssr {
        if ssr.bundle_hash() == bundle.islands_hash() {
            return Ok(ssr.clone());
        }
    }
    let node = match bundle.server() {
        Some(_) => session
            .bundles
            .tools(root)
            .map_err(|e| e.into_diagnostics(root))?
            .node
            .clone(),
        None => PathBuf::new(),
    };
    let ssr = Arc::new(ssr::Renderer::new(
        session.worker.clone(),
        &node,
        session.bundles.node_modules(),
        bundle.server(),
        bundle.islands_hash(),
        root,
    ));
    session.ssr = Some(ssr.clone());
    Ok(ssr)
}

/// Each page's weight, and the warnings of the build so far with the budgets'.
struct Weighed {
    weights: Vec<(String, Weight)>,
    warnings: Vec<Diagnostic>,
}

/// Each page's weight (measured as it was rendered), checked against the budgets
/// of `site.yaml`: over budget is a warning, or an error under `--strict-budgets`
/// (before the new output replaces the old).
fn weigh(
    content: &Content,
    pages: &[Arc<Rendered>],
    options: &Options,
    mut warnings: Vec<Diagnostic>,
) -> Stage<Weighed> {
    let Some(budgets) = &content.config.budgets else {
        return Ok(Weighed {
            weights: Vec::new(),
            warnings,
        });
    };
    let weights: Vec<(String, Weight)> = pages
        .iter()
        .filter_map(|p| Some((p.route.clone(), p.weight?)))
        .collect();
    // A translation has the budget of the page it translates (`/de/contact/`
    // that of `/contact`), reported at its own address.
    let layouts: std::collections::HashMap<&str, &str> = content
        .pages
        .iter()
        .map(|p| (p.route.as_str(), p.layout.as_str()))
        .collect();
    let over: Vec<String> = weights
        .iter()
        .flat_map(|(route, w)| {
            let key = content.translations.original(route).unwrap_or(route);
            let layout = layouts.get(route.as_str()).copied().unwrap_or("");
            weight::over_budget(key, layout, *w, budgets)
                .into_iter()
                .map(move |m| match key == route {
                    true => m,
                    false => m.replacen(key, route, 1),
                })
        })
        .collect();
    if options.strict_budgets && !over.is_empty() {
        return Err(over
            .into_iter()
            .map(|m| Diagnostic::new("content/site.yaml", format!("budgets: {m}")))
            .collect());
    }
    warnings.extend(
        over.into_iter()
            .map(|m| Diagnostic::new("content/site.yaml", format!("budgets: {m}")).as_warning()),
    );
    Ok(Weighed { weights, warnings })
}

/// What the write stage did.
struct Written {
    files: usize,
    written: usize,
    rules: Vec<Rule>,
    ssr: ssr::Stats,
}

/// Collects every file of the output, then writes what is not written yet: into
/// the staging folder, swapped in whole, or, in `site serve`, only what changed.
#[allow(clippy::too_many_arguments)]
fn write(
    root: &Path,
    options: &Options,
    content: &Content,
    settings: &Resolved,
    bundle: &Bundle,
    pages: Pages,
    moved: &[content::publishing::Moved],
    staging: Option<output::Staging>,
    session: &mut Session,
) -> Stage<Written> {
    let serving = session.written.is_some();
    // `site serve` always has the content editor; the live site when site.yaml says.
    let admin = match (serving || content.config.admin.enabled)
        && root.join(crate::admin::ENTRY).is_file()
    {
        true => {
            let tools = session
                .bundles
                .tools(root)
                .map_err(|e| e.into_diagnostics(root))?;
            crate::admin::files(root, content, bundle, &tools.node_modules, serving)
                .map_err(|e| vec![Diagnostic::new(e.file(), e.to_string())])?
        }
        false => None,
    };
    let base_url = &settings.render.base_url;
    let default = content.languages().default_language().code().to_string();
    let sitemap = session.sitemap.get(
        &content.pages,
        (base_url.clone(), default.clone()),
        output::sitemap::reads_the_same,
        || {
            Arc::new(output::sitemap::sitemap(
                base_url,
                &content.pages,
                &content.translations,
                content.languages(),
            ))
        },
    );
    let now = content::publishing::Clock::of(&content.config.timezone)
        .now
        .with_timezone(&chrono::Utc);
    let built = match serving {
        true => *session.calendars_made.get_or_insert(now),
        false => now,
    };
    let files = collect_files(
        root, content, settings, bundle, pages, moved, serving, admin, &sitemap, built,
    )
    .map_err(|e| vec![output_diagnostic(root, &e)])?;
    let count = files.len();
    let indexer = match content.config.search {
        true => {
            let tools = session
                .bundles
                .tools(root)
                .map_err(|e| e.into_diagnostics(root))?;
            Some(
                output::search::indexer(&tools.node_modules)
                    .map_err(|e| vec![Diagnostic::new("node_modules/", e.to_string())])?,
            )
        }
        false => None,
    };
    let limit = content.config.timeouts.index_limit();
    let search_cache = root.join(".site").join("search");
    // The index is made from the pages as written, before they are served.
    let finish = |site: &Path| match &indexer {
        Some(indexer) => Ok(output::search::index(indexer, site, &search_cache, limit)?),
        None => Ok(()),
    };
    let written = match (&mut session.written, staging) {
        (Some(written), _) => output::update(&options.out, &files, written, &finish),
        (None, Some(staging)) => staging.commit(&files, &finish).map(|_| count),
        (None, None) => output::write(&options.out, &files, &finish).map(|_| count),
    }
    .map_err(|e| vec![output_diagnostic(root, &e)])?;
    session.retire(files);
    let ssr = session
        .ssr
        .as_ref()
        .map(|s| s.take_stats())
        .unwrap_or_default();
    Ok(Written {
        files: count,
        written,
        rules: settings.rules.clone(),
        ssr,
    })
}

fn output_diagnostic(root: &Path, e: &output::Error) -> Diagnostic {
    match e {
        output::Error::Io(io) => io.diagnostic(root),
        other => Diagnostic::new("dist/", other.to_string()),
    }
}

fn not_found_page(content: &Content) -> Page {
    Page {
        route: "/404.html".into(),
        source: "templates/404.html".into(),
        title: "Page not found".into(),
        description: content.config.description.clone(),
        ..Page::default()
    }
}

#[allow(clippy::too_many_arguments)]
fn collect_files(
    root: &Path,
    content: &Content,
    settings: &Resolved,
    bundle: &Bundle,
    pages: Pages,
    moved: &[content::publishing::Moved],
    serving: bool,
    admin: Option<Vec<crate::admin::File>>,
    sitemap: &[(String, String)],
    built: chrono::DateTime<chrono::Utc>,
) -> Result<Files, output::Error> {
    let site = output::collect::Site {
        host: settings.host,
        rules: &settings.rules,
        base_url: &settings.render.base_url,
        head: &settings.render.head,
        serving,
        admin,
        sitemap,
        built,
    };
    let page_files = pages.pages.iter().map(|page| output::collect::PageFile {
        route: &page.route,
        source: match &page.body {
            render::Body::Kept { html, hash } => Source::Html(html.clone(), *hash),
            render::Body::Written(size) => Source::Written(*size),
        },
        made: &page.files,
    });
    let not_found = pages
        .not_found
        .as_ref()
        .map(|n| (n.html.clone(), n.files.as_slice()));
    output::collect::collect(root, content, &site, bundle, page_files, not_found, moved)
}

/// The year for the copyright line: from `SOURCE_DATE_EPOCH` when set (reproducible
/// builds), else today.
fn build_year() -> i32 {
    use chrono::Datelike;
    std::env::var("SOURCE_DATE_EPOCH")
        .ok()
        .and_then(|s| s.trim().parse::<i64>().ok())
        .and_then(|secs| chrono::DateTime::from_timestamp(secs, 0))
        .unwrap_or_else(chrono::Utc::now)
        .year()
}
