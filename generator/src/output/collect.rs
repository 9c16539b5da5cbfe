//! Every file of the output, gathered before any is written: `public/`, the
//! bundle, the pictures pages made, the pages, the 404 page, and what the build
//! generates from the content (robots.txt, sitemaps, feeds, calendars, the host's
//! own files and redirects). A path claimed twice is an error naming both.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::bundle::Bundle;
use crate::content::languages::Lang;
use crate::content::publishing::{CollectionKind, Filter, Moved};
use crate::content::settings::Host;
use crate::content::Content;
use crate::output::headers::Rule;
use crate::output::{self, compress, sitemap, Error, Files, Source};

/// A rendered page as the write stage takes it.
pub struct PageFile<'a> {
    pub route: &'a str,
    pub source: Source,
    /// Files made for it (image variants, its social card): URL → file.
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
    not_found: Option<(String, &'a [(String, PathBuf)])>,
    moved: &[Moved],
) -> Result<Files, Error> {
    let pages: Vec<PageFile> = pages.into_iter().collect();
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
        .chain(not_found.iter().flat_map(|(_, made)| made.iter()))
        .map(|(url, file)| (url, file))
        .collect();
    for (url, file) in made {
        let rel = url.trim_start_matches('/').to_string();
        files.add(rel, Source::Immutable(file.clone()), "the image cache")?;
    }
    for page in pages {
        files.add_page(page.route, page.source)?;
    }
    if let Some((html, _)) = not_found {
        files.add(
            "404.html".into(),
            Source::Bytes(html.into_bytes()),
            "templates/404.html",
        )?;
    }
    for (rel, source, by) in std::mem::take(&mut site.added) {
        files.add(rel, source, by)?;
    }
    for (name, text) in generated(content, &site, moved) {
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
    for (name, text) in site.host.config_files(site.rules, moved, &top) {
        files.add(
            name.to_string(),
            Source::Bytes(text.into_bytes()),
            "the generator",
        )?;
    }
    Ok(files)
}

/// The files the build writes from the content alone.
fn generated(content: &Content, site: &Site, moved: &[Moved]) -> Vec<(String, String)> {
    let base_url = site.base_url;
    let mut generated = vec![("robots.txt".to_string(), sitemap::robots(base_url))];
    generated.extend(site.sitemap.iter().cloned());
    // A feed for each collection of articles, and one for each of its categories.
    let languages = content.languages();
    let default = languages.default_language();
    let no_labels = std::collections::BTreeMap::new();
    generated.extend(
        content
            .listings
            .lists
            .iter()
            .filter(|l| l.kind == CollectionKind::Articles)
            .filter_map(|l| match &l.filter {
                Filter::All => Some((l, None)),
                Filter::Category(c) => Some((l, Some(c.as_str()))),
                _ => None,
            })
            .map(|(l, category)| {
                output::feed::feed(
                    &content.config,
                    base_url,
                    &content.pages,
                    &l.collection,
                    category,
                    (Lang::default(), default, "", &no_labels),
                )
            }),
    );
    // Each other language: a feed per collection it has articles in.
    for (lang, language) in languages.others() {
        let collections: std::collections::BTreeSet<&str> = content
            .pages
            .iter()
            .filter(|p| p.lang == lang && p.unpublished.is_none())
            .filter_map(|p| p.article.as_ref().map(|a| a.collection.as_str()))
            .collect();
        for collection in collections {
            let prefix = languages.prefix(lang);
            let labels = content
                .strings
                .by_language
                .get(language.code())
                .map(|m| m.as_ref().clone())
                .unwrap_or_default();
            generated.push(output::feed::feed(
                &content.config,
                base_url,
                &content.pages,
                collection,
                None,
                (lang, language, &prefix, &labels),
            ));
        }
    }
    generated.extend(output::calendar::files(
        &content.config,
        base_url,
        &content.pages,
        site.built,
    ));
    generated.extend(output::redirects::files(
        site.host, moved, base_url, site.head,
    ));
    generated
}
