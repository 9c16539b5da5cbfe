//! The write stage's glue: every file of the output collected (the rendered
//! pages, the editor's files, what is made from the content), then written into
//! the staging folder and swapped in whole, or, in `site serve`, only what
//! changed.

use std::path::Path;
use std::sync::Arc;

use super::configure::Resolved;
use super::render::Pages;
use super::{Options, Session, Stage};
use crate::bundle::Bundle;
use crate::content::{self, Content};
use crate::diagnostics::Diagnostic;
use crate::output::headers::Rule;
use crate::output::{self, Files, Source};
use crate::render::{self, ssr};

/// What the write stage writes besides what is made from the content: the
/// rendered pages, the editor's files, the redirects, and where.
pub(super) struct ToWrite<'a> {
    pub(super) pages: Pages,
    pub(super) editor: Option<Vec<(String, Source)>>,
    pub(super) moved: &'a [content::publishing::Moved],
    /// `site build`'s new output, which has the pages already.
    pub(super) staging: Option<output::Staging>,
}

/// What the write stage did.
pub(super) struct Written {
    pub(super) files: usize,
    pub(super) written: usize,
    pub(super) rules: Vec<Rule>,
    pub(super) ssr: ssr::Stats,
    /// `site serve`'s search index, made when a page asks for it.
    pub(super) search: Option<output::search::Job>,
}

/// Collects every file of the output, then writes what is not written yet: into
/// the staging folder, swapped in whole, or, in `site serve`, only what changed.
pub(super) fn write(
    root: &Path,
    options: &Options,
    content: &Content,
    settings: &Resolved,
    bundle: &Bundle,
    made: ToWrite,
    session: &mut Session,
) -> Stage<Written> {
    let ToWrite {
        pages,
        editor,
        moved,
        staging,
    } = made;
    let serving = session.written.is_some();
    let base_url = &settings.render.base_url;
    let default = content.languages().default_language().code().to_string();
    // Kept while no page changed in what it reads, nor a listing in what it
    // holds (a collection's index is dated by the newest article it lists).
    let sitemap = session.sitemap.get(
        &content.pages,
        (
            base_url.clone(),
            default.clone(),
            render::lists_hash(content),
        ),
        output::sitemap::reads_the_same,
        || {
            Arc::new(output::sitemap::sitemap(
                base_url,
                &content.pages,
                &content.listings,
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
    let site = site(settings, bundle, editor, serving, &sitemap, built);
    let files = collect(root, content, site, bundle, pages, moved)
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
    // `site build` makes the index from the pages as written, before they are
    // swapped in; `site serve` when a page first asks for it (`search::Deferred`).
    let finish = |site: &Path| match (&indexer, serving) {
        (Some(indexer), false) => Ok(output::search::index(indexer, site, &search_cache, limit)?),
        _ => Ok(()),
    };
    let search = indexer
        .clone()
        .filter(|_| serving)
        .map(|indexer| output::search::Job {
            indexer,
            site: options.out.clone(),
            cache: search_cache.clone(),
            limit,
        });
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
        search,
    })
}

/// `site build` writes a new output beside the old, each page as it renders:
/// its staging folder, made before the render. `site serve` updates its output
/// in place.
pub(super) fn staging(
    root: &Path,
    options: &Options,
    session: &Session,
) -> Stage<Option<output::Staging>> {
    match session.written {
        Some(_) => Ok(None),
        None => output::Staging::new(&options.out)
            .map(Some)
            .map_err(|e| vec![output_diagnostic(root, &e)]),
    }
}

fn output_diagnostic(root: &Path, e: &output::Error) -> Diagnostic {
    match e {
        output::Error::Io(io) => io.diagnostic(root),
        other => Diagnostic::new("dist/", other.to_string()),
    }
}

/// What the output is written for: the host and its rules, the settings, the
/// editor's files, and the content's files made already.
fn site<'a>(
    settings: &'a Resolved,
    bundle: &Bundle,
    editor: Option<Vec<(String, Source)>>,
    serving: bool,
    sitemap: &'a [(String, String)],
    built: chrono::DateTime<chrono::Utc>,
) -> output::collect::Site<'a> {
    // An output without `/admin/` leaves out the files only the editor loads.
    let left_out = match editor {
        Some(_) => Default::default(),
        None => bundle.only_of(crate::editor::ENTRY),
    };
    let added = editor
        .into_iter()
        .flatten()
        .map(|(rel, source)| (rel, source, "the content editor"))
        .collect();
    output::collect::Site {
        host: settings.host,
        rules: &settings.rules,
        base_url: &settings.render.base_url,
        head: &settings.render.head,
        serving,
        left_out,
        added,
        sitemap,
        built,
    }
}

/// Every file of the output: the rendered pages (kept, or written already) and
/// the 404 page handed to the output's collection with the rest.
fn collect(
    root: &Path,
    content: &Content,
    site: output::collect::Site,
    bundle: &Bundle,
    pages: Pages,
    moved: &[content::publishing::Moved],
) -> Result<Files, output::Error> {
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
        .iter()
        .map(|n| output::collect::NotFoundPage {
            route: &n.route,
            html: n.html.clone(),
            made: &n.files,
        });
    output::collect::collect(root, content, site, bundle, page_files, not_found, moved)
}
