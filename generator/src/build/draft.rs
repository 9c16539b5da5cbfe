//! A draft rendered for the editor's preview: one page as it would be with
//! the editor's text in it, against what the last build of `site serve` kept.
//! What a preview is ([`Preview`]) and which files have one are the editor's
//! (`editor/preview.rs`), whose route hands the drafts to the rebuild thread.

use super::render::renderer;
use super::{publish, references, resolve, site_root, Options, Session, EXTRA_ENTRIES};
use crate::content;
use crate::diagnostics::Diagnostic;
use crate::editor::{has_preview, Preview, NO_PREVIEW};
use crate::render;

/// Renders the page of the content file `file` (relative to the site root, under
/// `content/pages/`) as it would be with `text` in it, saved or not, against the
/// last build of `session` (`site serve`'s): its problems are those the build
/// would report. Nothing is written and nothing the session keeps changes.
pub fn render_draft(
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
        .bundle(root, EXTRA_ENTRIES, super::bundle_limit(root))
        .map_err(|e| e.into_diagnostics(root))?;
    let openings = crate::content::openings::openings(&content.pages, content.config.timezone.tz());
    // Listing pages are made anew, so the kept ones stay as the last build left them.
    let published = publish(&mut content, options, &mut session.listing_pages.clone())?;
    let unusable = session.unusable.clone();
    let warnings = references(root, &content, session, &unusable, &published)?;
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
        .render_page(&page, &render::Keep)
        .map_err(|d| vec![d])?;
    made.ssr.save();
    // The page's own warnings (a translation older than its source, a link to
    // no page), which the editor shows as the build says them.
    let warnings: Vec<Diagnostic> = warnings.into_iter().filter(|w| w.file == file).collect();
    match rendered.body {
        render::Body::Kept { html, .. } => Ok(Preview {
            route: page.route.clone(),
            html: html.to_string(),
            warnings: match warnings.is_empty() {
                true => Vec::new(),
                false => vec![crate::diagnostics::render_each(&warnings, false)],
            },
        }),
        render::Body::Written(_) => Err(vec![Diagnostic::new(file, "the page was not kept")]),
    }
}
