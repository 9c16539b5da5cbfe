//! What `site serve` keeps from one build to the next: parsed content, the
//! bundle's parts and esbuild's incremental contexts, the warm server-render
//! process, the rendered pages and what the output folder holds, and values
//! made from every page, each in a [`Memo`] while no page changed in what it
//! reads. `site build` uses a fresh one.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::memo::Memo;
use crate::bundle::Bundles;
use crate::content::{self, Page};
use crate::output::{self, weight::Weight};
use crate::render::{self, ssr, Renderer};

/// What a long-running `site serve` keeps from one build to the next.
#[derive(Default)]
pub struct Session {
    pub(super) content: content::Cache,
    pub(super) bundles: Bundles,
    pub(super) ssr: Option<Arc<ssr::Renderer>>,
    /// The server-render process, kept across bundles.
    pub(super) worker: Arc<ssr::Worker>,
    pub(super) pages: render::Cache<Option<Weight>>,
    /// The listing pages made by the last build, kept while unchanged.
    pub(super) listing_pages: std::collections::HashMap<String, Arc<Page>>,
    /// `Some` when the output is updated in place (`site serve`).
    pub(super) written: Option<output::Written>,
    /// What the last walk of the folders found unusable under `public/`, kept
    /// for builds after saves that need no walk.
    pub(super) unusable: Vec<(String, String)>,
    /// What a one-shot build no longer needs, freed after it returns.
    pub(super) retired: Vec<Box<dyn std::any::Any + Send>>,
    /// The sitemap's files, by the base URL, the default language and which
    /// listing holds which entries (`render::lists_hash`).
    pub(super) sitemap: Memo<(String, String, blake3::Hash), Arc<Generated>>,
    /// What lists of pages show (`render::listing_hash`), by the listings.
    pub(super) listing: Memo<blake3::Hash, blake3::Hash>,
    /// The suggestions for links to no page, while the addresses stay the same.
    pub(super) hints: Memo<(), Arc<content::references::RouteHints>>,
    /// The renderer, by everything else it reads.
    pub(super) renderer: Memo<RendererKey, Arc<Renderer>>,
    /// The 404 pages the kept renderer rendered.
    pub(super) not_found: Option<Vec<render::Special>>,
    /// When `site serve`'s first build made the calendars: later builds stamp
    /// them alike, so a calendar changes only with its event.
    pub(super) calendars_made: Option<chrono::DateTime<chrono::Utc>>,
}

/// Files the build makes from the content: (path in the output, text).
pub(super) type Generated = Vec<(String, String)>;

/// What a renderer reads besides the pages' listed fields and translations.
#[derive(PartialEq)]
pub(super) struct RendererKey {
    pub(super) everything: blake3::Hash,
    pub(super) listing: blake3::Hash,
    pub(super) openings: Vec<crate::content::openings::Opening>,
    /// The server-render process (a new one after the islands changed).
    pub(super) ssr: usize,
}

impl Session {
    /// A session for `site serve`: esbuild contexts stay alive and the output is
    /// updated in place, file by file.
    pub fn serving() -> Session {
        let mut session = Session::default();
        session.content.keep = true;
        session.bundles.live = true;
        session.written = Some(output::Written::default());
        session.sitemap = Memo::kept();
        session.listing = Memo::kept();
        session.hints = Memo::kept();
        session.renderer = Memo::kept();
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

    /// The parts of each page of the last build (`render::parts`), by route.
    pub fn parts(&self) -> Vec<render::parts::Parts> {
        use rayon::prelude::*;
        let kept: Vec<(&Page, &str)> = self.pages.kept().collect();
        let mut parts: Vec<render::parts::Parts> = kept
            .par_iter()
            .map(|(page, html)| render::parts::parts(page, html))
            .collect();
        parts.sort_by(|a, b| a.route.cmp(&b.route));
        parts
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
    pub(super) fn retire<T: Send + 'static>(&mut self, value: T) {
        match self.written {
            None => self.retired.push(Box::new(value)),
            Some(_) => {
                std::thread::spawn(move || drop(value));
            }
        }
    }
}
