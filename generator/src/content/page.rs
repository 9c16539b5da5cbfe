//! One page of the site, read from `content/pages/**/*.yaml` (typed blocks) or
//! `content/pages/**/*.md` (front matter and a Markdown body). A Markdown page in
//! a collection's folder (`content/pages/insights/*.md`) is an article, an event
//! or a job posting. What the head of each kind may say is `matter.rs`'s.

use serde::Serialize;

use super::blocks::Block;
use super::entries::{Event, Job};
use super::languages::{Lang, Languages};
use super::matter::{ArticleMatter, EventMatter, FrontMatter, JobMatter, PageHead};
use super::publishing::{CollectionKind, Unpublished};
use super::values::{Date, ImageSrc, Layout, SitePath, Target};
use crate::content::markdown;
use crate::content::yaml::{self, Node, Reference};
use crate::lines::LineStarts;

#[derive(Debug, Clone, Default, Serialize)]
pub struct Page {
    /// The address, `/` or `/services/cloud/` (always with the trailing slash).
    pub route: String,
    /// Its language, from the file's name (`about.de.yaml`); the default
    /// language when the name gives none. Templates read its code (`page.lang`),
    /// which the render stage adds.
    #[serde(skip)]
    pub lang: Lang,
    /// The address of the default language's page it is a translation of, when
    /// that is not its own address; empty for a page of the default language
    /// (most pages: no copy of the address each). Read through
    /// [`Page::translation_key`].
    #[serde(skip)]
    pub original: String,
    /// The file it came from, relative to the site root.
    pub source: String,
    pub title: String,
    pub description: String,
    pub layout: String,
    pub date: Option<Date>,
    pub tags: Vec<String>,
    /// The blocks of a YAML page; empty for Markdown pages.
    pub blocks: Vec<Block>,
    /// The rendered body of a Markdown page, made in pieces; empty for YAML
    /// pages. Templates read it as `page.content` (the render hands it over
    /// without copying it).
    #[serde(skip)]
    pub content: crate::html::Html,
    /// What an article adds to a page; only members of a collection have it.
    pub article: Option<Article>,
    /// What an event adds: its times, place and registration link.
    pub event: Option<Event>,
    /// What a job posting adds: its location, team, type and dates.
    pub job: Option<Job>,
    /// `draft: true`: built by `site serve` and `--drafts` only.
    pub draft: bool,
    /// Old addresses of the page, each answered with a redirect to it.
    pub aliases: Vec<String>,
    /// In a translation: its record of what its source said when it was last
    /// checked (`staleness.rs` compares it with what the source says now).
    #[serde(skip)]
    pub translated_from: Option<Box<super::values::TranslatedFrom>>,
    /// Why the page is not published (a draft, scheduled, closed), decided by the
    /// build's day; `site build` leaves such pages out.
    pub unpublished: Option<Unpublished>,
    /// Icons, pictures, layouts and pages the content names, with where.
    #[serde(skip)]
    pub references: Vec<Reference>,
    /// Problems that do not stop the build (text cut by a `#`).
    #[serde(skip)]
    pub warnings: Vec<yaml::Error>,
}

impl Page {
    /// The address of the default language's page it is a translation of (for
    /// a page of the default language, its own): what ties translations together.
    pub fn translation_key(&self) -> &str {
        match self.original.is_empty() {
            true => &self.route,
            false => &self.original,
        }
    }

    /// The `translation_of` the file names, if any.
    pub fn translation_of(&self) -> Option<&str> {
        self.references.iter().find_map(|r| match &r.target {
            Target::Translation(route) => Some(route.as_str()),
            _ => None,
        })
    }

    /// The collection the page is an entry of, if any.
    pub fn collection(&self) -> Option<&str> {
        self.article
            .as_ref()
            .map(|a| a.collection.as_str())
            .or(self.event.as_ref().map(|e| e.collection.as_str()))
            .or(self.job.as_ref().map(|j| j.collection.as_str()))
    }
}

/// What of `site.yaml` a page is read with: which folders are collections (and
/// of what kind), the zone an event's times default to, the offices a job may be
/// at, and whether code is highlighted. When it changes, every page is read again;
/// the loader makes it (`load.rs`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Reading {
    pub collections: Vec<super::publishing::Collection>,
    pub timezone: super::publishing::TimeZone,
    pub offices: Vec<String>,
    pub highlight_code: bool,
    /// The build's day in the site's zone: what is dated after it is held back.
    pub today: chrono::NaiveDate,
    /// The site's languages: a file's name may end in one's code (`about.de.yaml`).
    pub languages: Languages,
}

/// An article of a collection: its byline, picture and reading time.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Article {
    /// The collection's folder, e.g. `insights`.
    pub collection: String,
    pub author: String,
    pub category: String,
    pub image: ImageSrc,
    pub alt: String,
    pub featured: bool,
    /// At 200 words a minute, at least 1.
    pub reading_minutes: usize,
}

/// Reads a YAML page. Every bad block and every mistake in it is reported.
pub fn from_yaml(route: String, source: String, text: &str) -> Result<Page, yaml::Failed> {
    let node = yaml::parse(text).map_err(only)?;
    if !matches!(node.kind, yaml::Kind::Map(_)) {
        return Err(only(yaml::Error::at(
            node.span,
            "",
            format!(
                "a page must be written as `name: value` lines (`title`, `description` and `blocks`), but this is {}",
                node.described()
            ),
        )));
    }
    let warnings = yaml::cut_by_comments(text, &node);
    let mut errors = Vec::new();
    let mut references = Vec::new();
    let head = match yaml::read::<PageHead>(&node, "") {
        Ok((head, found)) => {
            references.extend(found);
            Some(head)
        }
        Err(failed) => {
            errors.extend(failed.errors);
            references.extend(failed.references);
            None
        }
    };
    let blocks = match node.get("blocks") {
        Some(list) => read_blocks(list, &mut errors, &mut references),
        None => Vec::new(),
    };
    match head {
        Some(head) if errors.is_empty() => Ok(Page {
            route,
            source,
            title: head.title,
            description: head.description,
            layout: head
                .layout
                .map_or_else(|| "page".to_string(), |l| l.to_string()),
            blocks,
            draft: head.draft,
            unpublished: head.draft.then_some(Unpublished::Draft),
            aliases: paths(head.aliases),
            translated_from: head.translated_from.map(Box::new),
            references,
            warnings,
            ..Page::default()
        }),
        _ => Err(yaml::Failed { errors, references }),
    }
}

fn only(error: yaml::Error) -> yaml::Failed {
    yaml::Failed {
        errors: vec![error],
        references: Vec::new(),
    }
}

fn read_blocks(
    list: &Node,
    errors: &mut Vec<yaml::Error>,
    references: &mut Vec<Reference>,
) -> Vec<Block> {
    let yaml::Kind::Seq(items) = &list.kind else {
        errors.push(yaml::Error::at(
            list.span,
            "blocks",
            format!(
                "expected a list of blocks, each starting with `- type: …`, found {}",
                list.described()
            ),
        ));
        return Vec::new();
    };
    let mut blocks = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        match Block::from_node(item, &yaml::index_path("blocks", i)) {
            Ok((b, found)) => {
                blocks.push(b);
                references.extend(found);
            }
            Err(failed) => {
                errors.extend(failed.errors);
                references.extend(failed.references);
            }
        }
    }
    blocks
}

/// Reads a Markdown page; `collection` is the collection its folder is, if any.
/// Error positions are given within the whole file.
pub fn from_markdown(
    route: String,
    source: String,
    text: &str,
    collection: Option<&super::publishing::Collection>,
    reading: &Reading,
) -> Result<Page, yaml::Failed> {
    let Some((front, front_offset, body, body_offset)) = split_front_matter(text) else {
        return Err(only(yaml::Error::at(
            yaml::Span {
                line: 1,
                column: 1,
                len: 1,
                ..Default::default()
            },
            "",
            "a Markdown page starts with front matter between `---` lines (title, description)",
        )));
    };
    let shift = |mut e: yaml::Error| {
        e.span = e.span.map(|s| s.shifted(front_offset, 1));
        e
    };
    let node = yaml::parse(front).map_err(|e| only(shift(e)))?;
    if !matches!(node.kind, yaml::Kind::Map(_)) {
        return Err(only(shift(yaml::Error::at(
            node.span,
            "",
            format!(
                "front matter must be written as `name: value` lines (title, description), but this is {}",
                node.described()
            ),
        ))));
    }
    let warnings = yaml::cut_by_comments(front, &node)
        .into_iter()
        .map(shift)
        .collect();
    let (content, links) = markdown::render_with_links(body, reading.highlight_code);
    let mut references = body_references(links, body_offset, text).map_err(only)?;
    let moved = |found: Vec<Reference>| {
        found
            .into_iter()
            .map(|mut r| {
                r.span = r.span.shifted(front_offset, 1);
                r
            })
            .collect::<Vec<_>>()
    };
    let all = |failed: yaml::Failed| yaml::Failed {
        errors: failed.errors.into_iter().map(shift).collect(),
        references: moved(failed.references),
    };
    // A rule across fields, broken: reported at the field it names.
    let at_field = |(field, message): (&str, String)| {
        let span = node.get(field).map_or(node.span, |n| n.span);
        all(yaml::Failed {
            errors: vec![yaml::Error::at(span, field, message)],
            references: Vec::new(),
        })
    };
    let mut page = Page {
        route,
        source,
        content,
        ..Page::default()
    };
    match collection {
        Some(c) if c.kind == CollectionKind::Events => {
            let (fm, found) = yaml::read::<EventMatter>(&node, "").map_err(all)?;
            references.extend(moved(found));
            let mut event = fm.event(&c.name, &reading.timezone).map_err(at_field)?;
            event.calendar = format!("{}.ics", page.route.trim_end_matches('/'));
            page.event = Some(event);
            page.layout = layout_or(fm.layout, "event");
            (page.title, page.description, page.tags) = (fm.title, fm.description, fm.tags);
            (page.draft, page.aliases) = (fm.draft, paths(fm.aliases));
            page.translated_from = fm.translated_from.map(Box::new);
        }
        Some(c) if c.kind == CollectionKind::Jobs => {
            let (fm, found) = yaml::read::<JobMatter>(&node, "").map_err(all)?;
            references.extend(moved(found));
            let job = fm.job(&c.name).map_err(at_field)?;
            if !job.remote && !reading.offices.contains(&job.location) {
                return Err(at_field((
                    "location",
                    unknown_office(&job.location, &reading.offices),
                )));
            }
            page.date = Some(fm.date_posted.clone());
            page.job = Some(job);
            page.layout = layout_or(fm.layout, "job");
            (page.title, page.description) = (fm.title, fm.description);
            (page.draft, page.aliases) = (fm.draft, paths(fm.aliases));
            page.translated_from = fm.translated_from.map(Box::new);
        }
        Some(c) => {
            let (fm, found) = yaml::read::<ArticleMatter>(&node, "").map_err(all)?;
            references.extend(moved(found));
            page.article = Some(Article {
                collection: c.name.clone(),
                author: fm.author,
                category: fm.category,
                image: fm.image,
                alt: fm.alt,
                featured: fm.featured,
                reading_minutes: reading_minutes(body),
            });
            page.layout = layout_or(fm.layout, "article");
            page.date = Some(fm.date);
            (page.title, page.description, page.tags) = (fm.title, fm.description, fm.tags);
            (page.draft, page.aliases) = (fm.draft, paths(fm.aliases));
            page.translated_from = fm.translated_from.map(Box::new);
        }
        None => {
            let (fm, found) = yaml::read::<FrontMatter>(&node, "").map_err(all)?;
            references.extend(moved(found));
            page.layout = layout_or(fm.layout, "markdown");
            page.date = fm.date;
            (page.title, page.description, page.tags) = (fm.title, fm.description, fm.tags);
            (page.draft, page.aliases) = (fm.draft, paths(fm.aliases));
            page.translated_from = fm.translated_from.map(Box::new);
        }
    }
    page.unpublished = unpublished(&page, reading.today);
    page.references = references;
    page.warnings = warnings;
    Ok(page)
}

/// Why `page` is not published on `today`: a draft; an entry of a collection
/// dated after it (held until that day's build); a job whose last day is past.
fn unpublished(page: &Page, today: chrono::NaiveDate) -> Option<Unpublished> {
    if page.draft {
        return Some(Unpublished::Draft);
    }
    if let Some(job) = &page.job {
        if job.valid_through.naive().is_some_and(|d| d < today) {
            return Some(Unpublished::Closed {
                date: job.valid_through.as_str().to_string(),
            });
        }
    }
    let dated = page.article.is_some() || page.job.is_some();
    match &page.date {
        Some(date) if dated && date.naive().is_some_and(|d| d > today) => {
            Some(Unpublished::Scheduled {
                date: date.as_str().to_string(),
            })
        }
        _ => None,
    }
}

fn layout_or(layout: Option<Layout>, default: &str) -> String {
    layout.map_or_else(|| default.to_string(), |l| l.to_string())
}

fn paths(aliases: Vec<SitePath>) -> Vec<String> {
    aliases
        .into_iter()
        .map(|a| a.as_str().to_string())
        .collect()
}

/// A job's location that is no office of `site.yaml`.
fn unknown_office(location: &str, offices: &[String]) -> String {
    if offices.is_empty() {
        return format!(
            "`{location}` is not an office: site.yaml lists no `offices`; add it there with its address, or write `Remote`"
        );
    }
    let hint = crate::suggest::did_you_mean(location, offices.iter().map(String::as_str));
    format!(
        "`{location}` is not one of the offices of site.yaml ({}), nor `Remote`{hint}",
        offices.join(", ")
    )
}

/// The links and pictures of a Markdown body (`links`, offsets within the body),
/// each at its own line of `text`, the whole file; a link the link rule refuses
/// is an error there.
fn body_references(
    links: Vec<markdown::Link>,
    body_offset: usize,
    text: &str,
) -> Result<Vec<Reference>, yaml::Error> {
    let lines = LineStarts::new(text);
    let span = |offset: usize| {
        let at = body_offset + offset;
        let (line, column) = lines.locate(at);
        yaml::Span {
            offset: at,
            len: 1,
            line,
            column,
        }
    };
    let found = super::values::checked_links(links)
        .map_err(|mistake| yaml::Error::at(span(mistake.offset), "", mistake.message))?;
    Ok(found
        .into_iter()
        .map(|f| Reference {
            target: f.target,
            span: span(f.offset),
            path: String::new(),
        })
        .collect())
}

/// Minutes to read `body` at 200 words a minute, at least 1.
fn reading_minutes(body: &str) -> usize {
    body.split_whitespace().count().div_ceil(200).max(1)
}

/// Splits `---\n<yaml>\n---\n<body>` into the YAML, its byte offset, the body
/// and the body's byte offset.
pub fn split_front_matter(text: &str) -> Option<(&str, usize, &str, usize)> {
    let text_start = text.strip_prefix('\u{feff}').map_or(0, |_| 3);
    let rest = &text[text_start..];
    let first_end = rest.find('\n')?;
    if rest[..first_end].trim_end() != "---" {
        return None;
    }
    let front_start = first_end + 1;
    let mut pos = front_start;
    loop {
        let line_end = rest[pos..].find('\n').map_or(rest.len(), |i| pos + i);
        if rest[pos..line_end].trim_end() == "---" {
            let body_start = (line_end + 1).min(rest.len());
            return Some((
                &rest[front_start..pos],
                text_start + front_start,
                &rest[body_start..],
                text_start + body_start,
            ));
        }
        if line_end >= rest.len() {
            return None;
        }
        pos = line_end + 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_front_matter() {
        let (fm, offset, body, body_offset) =
            split_front_matter("---\ntitle: A\n---\n# Body\n").unwrap();
        assert_eq!(
            (fm, offset, body, body_offset),
            ("title: A\n", 4, "# Body\n", 17)
        );
        assert!(split_front_matter("# no front matter\n").is_none());
        assert!(split_front_matter("---\ntitle: A\n").is_none());
    }

    #[test]
    fn reports_front_matter_errors_at_their_line_in_the_file() {
        let errs = from_markdown(
            "/a".into(),
            "a.md".into(),
            "---\ntitle: A\ndescription: B\ndate: soon\n---\nx\n",
            None,
            &Reading::default(),
        )
        .unwrap_err()
        .errors;
        assert_eq!(errs[0].span.map(|s| s.line), Some(4));
        assert!(
            errs[0].message.contains("YYYY-MM-DD"),
            "{}",
            errs[0].message
        );
    }

    #[test]
    fn reports_every_bad_block_of_a_page() {
        let src = "title: T\ndescription: D\nblocks:\n  - type: nope\n  - type: hero\n    heading: H\n  - type: hero\n    heading: H\n    text: ok\n";
        let errs = from_yaml("/".into(), "index.yaml".into(), src)
            .unwrap_err()
            .errors;
        assert_eq!(errs.len(), 2, "{errs:?}");
        assert_eq!(errs[0].path, "blocks[0].type");
        assert_eq!(errs[1].path, "blocks[1]");
    }

    #[test]
    fn a_page_that_fails_keeps_what_its_values_name() {
        let src = "title: T\ndescription: D\nblocks:\n  - type: card_grid\n    heading: H\n    colour: red\n    cards: [{ title: A, icon: star }]\n";
        let failed = from_yaml("/".into(), "index.yaml".into(), src).unwrap_err();
        assert_eq!(failed.errors.len(), 1);
        assert_eq!(failed.references.len(), 1, "{:?}", failed.references);
        assert_eq!(failed.references[0].path, "blocks[0].cards[0].icon");
    }
}
