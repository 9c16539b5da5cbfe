//! Every file of the output, gathered before any is written: `public/`, the
//! bundle, the pictures pages made, the pages, the 404 page, and what the build
//! generates from the content (robots.txt, sitemaps, feeds, calendars, the host's
//! own files and redirects). A path claimed twice is an error naming both.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::bundle::Bundle;
use crate::content::publishing::{CollectionKind, Filter, Moved};
use crate::content::site::Host;
use crate::content::Content;
use crate::output::headers::Rule;
use crate::output::hosts::HostOutput;
use crate::output::{self, compress, sitemap, Error, Files, Source};

/// A rendered page as the write stage takes it.
pub struct PageFile<'a> {
    pub route: &'a str,
    pub source: Source,
    /// Files made for it (image variants, its social card): URL → file.
    pub made: &'a [(String, PathBuf)],
}

/// A 404 page as the write stage takes it.
pub struct NotFoundPage<'a> {
    /// Its address: `/404.html`, `/de/404.html`.
    pub route: &'a str,
    pub html: String,
    /// Files made for it (its social card): URL → file.
    pub made: &'a [(String, PathBuf)],
}

/// What the site is built for.
pub struct Site<'a> {
    pub host: Host,
    pub rules: &'a [Rule],
    pub base_url: &'a str,
    /// The policies a host without custom headers gets as `<meta>` tags.
    pub head: &'a str,
    /// `site serve` compresses as it serves: no twins are made for it.
    pub serving: bool,
    /// Files of the bundle this output leaves out (the content editor's
    /// script, when the output has no `/admin/`).
    pub left_out: std::collections::BTreeSet<String>,
    /// Files other rooms made for the output (the content editor's), each with
    /// who made it.
    pub added: Vec<(String, Source, &'static str)>,
    /// The sitemap's files (`output::sitemap::sitemap`), made by the caller,
    /// which keeps them while no page changed in what they say.
    pub sitemap: &'a [(String, String)],
    /// When the calendars were made (their DTSTAMP).
    pub built: chrono::DateTime<chrono::Utc>,
}

pub fn collect<'a>(
    root: &Path,
    content: &Content,
    mut site: Site,
    bundle: &Bundle,
    pages: impl IntoIterator<Item = PageFile<'a>>,
    not_found: impl IntoIterator<Item = NotFoundPage<'a>>,
    moved: &[Moved],
) -> Result<Files, Error> {
    let pages: Vec<PageFile> = pages.into_iter().collect();
    let not_found: Vec<NotFoundPage> = not_found.into_iter().collect();
    // Each language's 404 page, by address: the hosts' rules name them.
    let not_found_pages: Vec<String> = not_found.iter().map(|n| n.route.to_string()).collect();
    let mut files = Files::default();
    files.add_tree(&root.join("public"), "public")?;
    let left_out = &site.left_out;
    for (url, path) in bundle.files().filter(|(url, _)| !left_out.contains(*url)) {
        let rel = url.trim_start_matches('/').to_string();
        files.add(rel, Source::Immutable(path.clone()), "the bundle")?;
    }
    if site.host.serves_precompressed() && !site.serving {
        compress::add_twins(
            &mut files,
            bundle.files().filter(|(url, _)| !left_out.contains(*url)),
            &root.join(".site").join("compressed"),
        )?;
    }
    // Image variants and social cards, each once however many pages link it.
    let made: BTreeMap<&String, &PathBuf> = pages
        .iter()
        .flat_map(|p| p.made.iter())
        .chain(not_found.iter().flat_map(|n| n.made.iter()))
        .map(|(url, file)| (url, file))
        .collect();
    for (url, file) in made {
        let rel = url.trim_start_matches('/').to_string();
        files.add(rel, Source::Immutable(file.clone()), "the image cache")?;
    }
    for page in pages {
        files.add_page(page.route, page.source)?;
    }
    for page in not_found {
        files.add(
            page.route.trim_start_matches('/').to_string(),
            Source::Bytes(page.html.into_bytes()),
            "templates/404.html",
        )?;
    }
    for (rel, source, by) in std::mem::take(&mut site.added) {
        files.add(rel, source, by)?;
    }
    for (name, text) in generated(content, &site, moved, &not_found_pages) {
        files.add(name, Source::Bytes(text.into_bytes()), "the generator")?;
    }
    // The host's own files, last: a rule may name every other file's folder.
    let mut top = files.top_level();
    // The search index is written after these files, into a folder of its own.
    if content.config.search {
        top.push((crate::output::search::FOLDER.to_string(), true));
        top.sort();
        top.dedup();
    }
    for (name, text) in site
        .host
        .config_files(site.rules, moved, &top, &not_found_pages)
    {
        files.add(
            name.to_string(),
            Source::Bytes(text.into_bytes()),
            "the generator",
        )?;
    }
    Ok(files)
}

/// The files the build writes from the content alone.
fn generated(
    content: &Content,
    site: &Site,
    moved: &[Moved],
    not_found: &[String],
) -> Vec<(String, String)> {
    let base_url = site.base_url;
    let mut generated = vec![("robots.txt".to_string(), sitemap::robots(base_url))];
    generated.extend(site.sitemap.iter().cloned());
    // A feed for each listing of articles, and one for each of its categories,
    // in each language that has them.
    generated.extend(
        content
            .listings
            .lists
            .iter()
            .filter(|l| l.kind == CollectionKind::Articles)
            .filter(|l| matches!(l.filter, Filter::All | Filter::Category(_)))
            .map(|l| {
                output::feed::feed(
                    &content.config,
                    base_url,
                    &content.pages,
                    l,
                    content.languages(),
                )
            }),
    );
    generated.extend(output::calendar::files(
        &content.config,
        base_url,
        &content.pages,
        site.built,
    ));
    generated.extend(output::redirects::files(
        site.host, moved, not_found, base_url, site.head,
    ));
    generated
}
