//! The build, as [`build_in`]'s list of named stages, each a function taking
//! what the stages before it produced, each timed for `--verbose` under its name:
//!
//! 1. `folders`: links out of the site, loops and pipes, before any read (below);
//! 2. `load + bundle`: the content and esbuild's bundle, side by side (below);
//! 3. `publish`: held pages, listings, redirects, the translations index (below);
//! 4. `references`: what content names exists (below);
//! 5. `configure`: the settings the later stages use, resolved once, `configure.rs`;
//! 6. `render`: every page, through the sink that writes it into staging or
//!    keeps it, and measures its weight, `render.rs`;
//! 7. `budgets`: those weights judged against `site.yaml`'s budgets, `budgets.rs`;
//! 8. `editor`: the content editor's files, `editor.rs`;
//! 9. `write`: the output's other files collected and written, and staging
//!    swapped in for the old output, `write.rs`.
//!
//! A stage that fails ends the build before `write` swaps anything in, so the
//! previous output stays as it was.
//!
//! A [`Session`] (`session.rs`) is what `site serve` keeps from one build to the
//! next; a build with a fresh session (`site build`) does everything. The
//! editor's preview of unsaved text renders one page against it (`draft.rs`).

mod budgets;
mod configure;
mod draft;
mod editor;
mod memo;
mod render;
mod session;
mod write;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use crate::bundle::Bundle;
use crate::content::site::Host;
use crate::content::{self, Content, Page};
use crate::diagnostics::Diagnostic;
use crate::output::headers::Rule;
use crate::output::hosts::HostOutput;
use crate::output::weight::Weight;
use crate::render::ssr;
pub use crate::timing::process_cpu_time;
use crate::timing::Stages;
use budgets::{budgets, Judged};
use configure::resolve;
pub use draft::render_draft;
use editor::editor;
use render::render;
pub use session::Session;
use write::{staging, write, ToWrite};

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
    /// Each language's 404 page (`/404.html`, `/de/404.html`), for `site
    /// serve` to answer a missing address as the host does.
    pub not_found: Vec<String>,
    /// `site serve`'s search index, which it makes when a page asks for it
    /// (`site build` has made it already).
    pub search: Option<crate::output::search::Job>,
    /// Every job posting and until when it takes applications, closed ones too
    /// (for `site serve`'s applications table).
    pub openings: Vec<crate::content::openings::Opening>,
}

/// The browser entries the build adds beside the islands: the content editor's.
const EXTRA_ENTRIES: &[&str] = &[crate::editor::ENTRY];

/// What a stage gives: its product, or every problem it found.
type Stage<T> = Result<T, Vec<Diagnostic>>;

/// A build with a fresh session: `site build`.
pub fn build(options: &Options) -> Result<Report, Vec<Diagnostic>> {
    let mut session = Session::default();
    let report = build_in(options, &mut session);
    // Freeing every page's data takes a while at scale, and `site build` exits
    // right after: that work is done beside the caller, not before it returns.
    std::thread::spawn(move || drop(session));
    report
}

/// A build with what `session` kept from the last one: the stages, in order.
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
    let (settings, more) = stages.time("configure", || resolve(root, options, &mut content))?;
    warnings.extend(more);
    let staging = staging(root, options, session)?;
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
    let Judged { weights, warnings } = stages.time("budgets", || {
        budgets(&content, &pages.pages, options, warnings)
    })?;
    let count = pages.pages.len();
    let not_found: Vec<String> = pages.not_found.iter().map(|n| n.route.clone()).collect();
    // The content editor's files, when the output has `/admin/`.
    let editor = stages.time("editor", || {
        editor(root, &content, &settings, &bundle, session)
    })?;
    let written = stages.time("write", || {
        write(
            root,
            options,
            &content,
            &settings,
            &bundle,
            ToWrite {
                pages,
                editor,
                moved: &published.redirects,
                staging,
            },
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
        not_found,
        openings,
        search: written.search,
    })
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

/// How long esbuild may take: site.yaml's `timeouts.bundle`, read on its own
/// because the bundle runs beside the load that reads the rest.
pub(super) fn bundle_limit(root: &Path) -> std::time::Duration {
    content::timeouts(root).bundle_limit()
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
        || {
            bundles
                .bundle(root, EXTRA_ENTRIES, bundle_limit(root))
                .map_err(|e| e.into_diagnostics(root))
        },
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
