//! The render stage's glue: the renderer kept in the session or made anew, the
//! warm server-render process, and the [`Sink`] that takes each page as it is
//! rendered (written into `site build`'s staging folder and weighed there, or
//! kept whole for `site serve`).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::configure::Resolved;
use super::session::RendererKey;
use super::{Session, Stage};
use crate::bundle::Bundle;
use crate::content::{self, Content};
use crate::diagnostics::Diagnostic;
use crate::output::{self, weight::Weigher, weight::Weight};
use crate::render::{self, environment, ssr, Rendered, Renderer};

/// The rendered pages, and each language's 404 page when the site has one.
pub(super) struct Pages {
    pub(super) pages: Vec<Arc<Rendered<Option<Weight>>>>,
    pub(super) not_found: Vec<render::Special>,
}

/// Renders every page (reusing those whose inputs did not change) and the 404
/// page, weighing each when the site sets budgets; with `staging`, each page is
/// written there as it is rendered.
pub(super) fn render(
    root: &Path,
    content: &Content,
    settings: &Resolved,
    bundle: &Bundle,
    openings: &[crate::content::openings::Opening],
    staging: Option<&output::Staging>,
    session: &mut Session,
) -> Stage<Pages> {
    let RenderSetup {
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
        .map(|budgets| Weigher::new(bundle, budgets));
    let sink = Sink { staging, weigher };
    let pages = renderer.render_pages(
        &content.pages,
        &mut session.pages,
        everything,
        listing,
        &sink,
    );
    // The 404 pages read what every page reads: a kept renderer's are kept too.
    let not_found = match session.not_found.clone().filter(|_| !fresh) {
        Some(kept) => Ok(kept),
        None => content::publish::not_found_pages(content)
            .iter()
            .filter_map(|page| renderer.render_special("404.html", page).transpose())
            .collect(),
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

/// Where the render hands each page: with `staging` (`site build`), written there
/// at once and only its size kept; else kept whole. Weighed on the way when the
/// site sets budgets.
pub(super) struct Sink<'a> {
    staging: Option<&'a output::Staging>,
    weigher: Option<Weigher<'a>>,
}

impl render::Sink for Sink<'_> {
    type Measure = Option<Weight>;

    fn writes(&self) -> bool {
        self.staging.is_some()
    }

    fn page(
        &self,
        route: &str,
        html: String,
        hydrating: &[&str],
    ) -> Result<(render::Body, Option<Weight>), String> {
        let weight = self.weigher.as_ref().map(|w| w.weigh(&html, hydrating));
        let body = match self.staging {
            Some(staging) => {
                let path = staging.dir().join(output::route_file(route));
                let size = output::write_page(&path, html.as_bytes()).map_err(|e| e.to_string())?;
                render::Body::Written(size)
            }
            None => render::Body::kept(html),
        };
        Ok((body, weight))
    }
}

/// The renderer of a build, and what decides which pages it renders again.
pub(super) struct RenderSetup {
    pub(super) renderer: Arc<Renderer>,
    pub(super) ssr: Arc<ssr::Renderer>,
    pub(super) everything: blake3::Hash,
    pub(super) listing: blake3::Hash,
    /// RenderSetup for this build (not kept from an earlier one).
    pub(super) fresh: bool,
}

/// The renderer for `content`: the one kept, while no page changed in what every
/// page may read of the others (its listed fields, its translations), else a new
/// one whose templates are checked first.
pub(super) fn renderer(
    root: &Path,
    content: &Content,
    settings: &Resolved,
    bundle: &Bundle,
    openings: &[crate::content::openings::Opening],
    session: &mut Session,
) -> Stage<RenderSetup> {
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
        |a, b| render::pages::Listed::same(a, b) && a.translation_key() == b.translation_key(),
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
    Ok(RenderSetup {
        renderer,
        ssr,
        everything,
        listing,
        fresh: made,
    })
}

/// The warm Node process, or a new one when the islands changed.
pub(super) fn server_renderer(
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
