//! Which translations are older than their source. A translation records what
//! its source said when it was last checked (`translated_from`): a fingerprint
//! of each translated field's words. The source's fields are fingerprinted again
//! at each build; a field whose fingerprint differs, or that is new or gone,
//! makes the translation stale. Only words count: reformatting the source, a
//! comment, a changed date, link or picture makes nothing stale, since neither
//! the copied and shared fields nor the spelling of the YAML or Markdown is
//! fingerprinted. A translation without a record is not stale: nobody said yet
//! what it was translated from.
//!
//! The fingerprint of a field's text is FNV-1a (32 bits) of its words (runs of
//! letters and digits) joined by single spaces, written as 8 hex digits; the
//! editor computes the same in the browser (`islands/admin/`).

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::Arc;

use super::files::read_text;
use super::page::{split_front_matter, Page};
use super::translatable::{texts, Kind};
use super::values::TranslatedFrom;
use super::yaml;

/// A stale translation: the translation, its source, and the source's fields
/// whose words changed since the translation was last checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stale {
    /// The translation's address and file.
    pub route: String,
    pub file: String,
    /// The source's address and file.
    pub source_route: String,
    pub source_file: String,
    /// The source's fields that changed, were added or were removed, in the
    /// source's order (removed ones last).
    pub fields: Vec<String>,
}

impl Stale {
    /// What the build, `site check` and the editor's preview say of it.
    pub fn message(&self) -> String {
        let fields: Vec<String> = self.fields.iter().map(|f| format!("`{f}`")).collect();
        format!(
            "this translation is older than {}: its words changed since the translation was last checked, in {}; bring the translation up to date and save it in the editor, or, if it still says the same, run `site translations --mark-current {}`",
            self.source_file,
            fields.join(", "),
            self.file
        )
    }
}

/// Every stale translation of a build, by the translation's address.
#[derive(Debug, Clone, Default)]
pub struct Staleness {
    by_route: HashMap<String, Stale>,
}

impl Staleness {
    /// The translation at `route`, when it is stale.
    pub fn of(&self, route: &str) -> Option<&Stale> {
        self.by_route.get(route)
    }

    /// Every stale translation, by file.
    pub fn all(&self) -> Vec<&Stale> {
        let mut all: Vec<&Stale> = self.by_route.values().collect();
        all.sort_by(|a, b| a.file.cmp(&b.file));
        all
    }

    pub fn is_empty(&self) -> bool {
        self.by_route.is_empty()
    }

    /// A hash of what is stale, for what depends on it (the pages' notices).
    pub fn hash_into(&self, h: &mut blake3::Hasher) {
        for stale in self.all() {
            h.update(stale.route.as_bytes());
            h.update(&[0]);
            for field in &stale.fields {
                h.update(field.as_bytes());
                h.update(&[0]);
            }
        }
    }
}

/// The stale translations among `pages`: each page with a record, against the
/// page of the default language it translates, read again from its file.
/// A site without records reads nothing.
pub fn find(root: &Path, pages: &[Arc<Page>]) -> Staleness {
    let recorded: Vec<&Page> = pages
        .iter()
        .filter(|p| p.translated_from.is_some() && !p.lang.is_default())
        .map(|p| p.as_ref())
        .collect();
    if recorded.is_empty() {
        return Staleness::default();
    }
    let sources: HashMap<&str, &Page> = pages
        .iter()
        .filter(|p| p.lang.is_default())
        .map(|p| (p.route.as_str(), p.as_ref()))
        .collect();
    let mut now: HashMap<&str, Option<Vec<(String, String)>>> = HashMap::new();
    let mut by_route = HashMap::new();
    for page in recorded {
        let Some(source) = sources.get(page.translation_key()) else {
            continue;
        };
        let Some(fingerprint) = now
            .entry(source.route.as_str())
            .or_insert_with(|| fingerprint_of_file(root, source))
        else {
            continue;
        };
        let record = page.translated_from.as_deref().map(|r| &r.0);
        let fields = changed(fingerprint, record.unwrap_or(&BTreeMap::new()));
        if !fields.is_empty() {
            by_route.insert(
                page.route.clone(),
                Stale {
                    route: page.route.clone(),
                    file: page.source.clone(),
                    source_route: source.route.clone(),
                    source_file: source.source.clone(),
                    fields,
                },
            );
        }
    }
    Staleness { by_route }
}

/// The fields of `now` whose fingerprint is not the recorded one, then the
/// recorded fields that are gone.
pub fn changed(now: &[(String, String)], record: &BTreeMap<String, String>) -> Vec<String> {
    let mut fields: Vec<String> = now
        .iter()
        .filter(|(path, print)| record.get(path) != Some(print))
        .map(|(path, _)| path.clone())
        .collect();
    let present: std::collections::HashSet<&str> = now.iter().map(|(p, _)| p.as_str()).collect();
    fields.extend(
        record
            .keys()
            .filter(|p| !present.contains(p.as_str()))
            .cloned(),
    );
    fields
}

/// The kind of page file a page was read from.
pub fn kind_of(page: &Page) -> Kind {
    match () {
        _ if page.source.ends_with(".yaml") || page.source.ends_with(".yml") => Kind::Page,
        _ if page.article.is_some() => Kind::Article,
        _ if page.event.is_some() => Kind::Event,
        _ if page.job.is_some() => Kind::Job,
        _ => Kind::Document,
    }
}

/// The fingerprint of `page`'s file as it is on disk, or `None` when it cannot
/// be read (the build reports that file's problems itself).
pub fn fingerprint_of_file(root: &Path, page: &Page) -> Option<Vec<(String, String)>> {
    let text = read_text(&root.join(&page.source), root).ok()?;
    fingerprint_of_text(kind_of(page), &text)
}

/// The fingerprint of a page file's text: each translated field's path and the
/// fingerprint of its words, in the file's order.
pub fn fingerprint_of_text(kind: Kind, text: &str) -> Option<Vec<(String, String)>> {
    let (document, body) = match kind {
        Kind::Page => (text, None),
        _ => {
            let (front, _, body, _) = split_front_matter(text)?;
            (front, Some(body))
        }
    };
    let node = yaml::parse(document).ok()?;
    let mut fields = texts(kind.shape(), &node);
    if let Some(body) = body {
        fields.push(("body".to_string(), body.to_string()));
    }
    Some(
        fields
            .into_iter()
            .map(|(path, text)| (path, words_fingerprint(&text)))
            .collect(),
    )
}

/// FNV-1a (32 bits) of the text's words joined by single spaces, as 8 hex
/// digits: the same for any spelling of the same words (line breaks, Markdown's
/// markers, quotes, punctuation), different when a word changes.
pub fn words_fingerprint(text: &str) -> String {
    const OFFSET: u32 = 0x811c_9dc5;
    const PRIME: u32 = 0x0100_0193;
    let mut hash = OFFSET;
    let mut feed = |byte: u8| {
        hash ^= u32::from(byte);
        hash = hash.wrapping_mul(PRIME);
    };
    let mut first = true;
    for word in text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        if !first {
            feed(b' ');
        }
        first = false;
        for &byte in word.as_bytes() {
            feed(byte);
        }
    }
    format!("{hash:08x}")
}

/// The record a translation of `source` writes now: its fingerprint.
pub fn record_of(fingerprint: &[(String, String)]) -> TranslatedFrom {
    TranslatedFrom(fingerprint.iter().cloned().collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAGE: &str = "title: About us\ndescription: Who we are and what we do.\nblocks:\n  - type: text\n    id: story\n    heading: Our Story\n    text: >-\n      We started in 2021 with a small team\n      and a big idea.\n";

    fn prints(text: &str) -> Vec<(String, String)> {
        fingerprint_of_text(Kind::Page, text).unwrap()
    }

    #[test]
    fn a_text_edit_makes_a_translation_stale_at_that_field() {
        let record: BTreeMap<String, String> = prints(PAGE).into_iter().collect();
        let edited = PAGE.replace("a big idea", "a bigger idea");
        assert_eq!(changed(&prints(&edited), &record), ["blocks[0].text"]);
        let retitled = PAGE.replace("About us", "About Meridian");
        assert_eq!(changed(&prints(&retitled), &record), ["title"]);
    }

    #[test]
    fn reformatting_a_comment_or_a_shared_value_makes_nothing_stale() {
        let record: BTreeMap<String, String> = prints(PAGE).into_iter().collect();
        // The same words, folded differently and quoted.
        let reflowed = PAGE.replace(
            "    text: >-\n      We started in 2021 with a small team\n      and a big idea.\n",
            "    text: \"We started in 2021 with a small team and a big idea.\"\n",
        );
        // A comment, and an id (shared) changed.
        let commented = format!(
            "# Checked by the legal team.\n{}",
            PAGE.replace("id: story", "id: our-story")
        );
        for text in [reflowed, commented] {
            assert_eq!(
                changed(&prints(&text), &record),
                Vec::<String>::new(),
                "{text}"
            );
        }
    }

    #[test]
    fn a_changed_date_or_picture_of_an_article_makes_nothing_stale_but_its_text_does() {
        let article = "---\ntitle: Edge AI\ndescription: Models beside the machines.\ndate: 2026-11-14\nauthor: Priya Menon\ncategory: Technology\nimage: /images/a.svg\nalt: A chip\n---\nPlants see *defects* sooner.\n";
        let record: BTreeMap<String, String> = fingerprint_of_text(Kind::Article, article)
            .unwrap()
            .into_iter()
            .collect();
        let redated = article
            .replace("2026-11-14", "2026-11-20")
            .replace("/images/a.svg", "/images/b.svg");
        let now = fingerprint_of_text(Kind::Article, &redated).unwrap();
        assert!(changed(&now, &record).is_empty());
        // Markdown's emphasis written another way is the same words.
        let restyled = article.replace("*defects*", "_defects_");
        let now = fingerprint_of_text(Kind::Article, &restyled).unwrap();
        assert!(changed(&now, &record).is_empty());
        let rewritten = article.replace("sooner", "much sooner");
        let now = fingerprint_of_text(Kind::Article, &rewritten).unwrap();
        assert_eq!(changed(&now, &record), ["body"]);
    }

    #[test]
    fn a_field_added_or_removed_in_the_source_is_a_change() {
        let record: BTreeMap<String, String> = prints(PAGE).into_iter().collect();
        let added = PAGE.replace(
            "    heading: Our Story\n",
            "    eyebrow: Since 2021\n    heading: Our Story\n",
        );
        assert_eq!(changed(&prints(&added), &record), ["blocks[0].eyebrow"]);
        let removed = PAGE.replace(
            "description: Who we are and what we do.\n",
            "description: \"\"\n",
        );
        assert_eq!(changed(&prints(&removed), &record), ["description"]);
    }

    /// The table the editor's script is held to as well (islands/admin/fingerprint.test.ts).
    #[test]
    fn the_fingerprints_are_those_of_the_shared_table() {
        let table: serde_json::Value =
            serde_json::from_str(include_str!("../../tests/fingerprints.json")).unwrap();
        for case in table["words"].as_array().unwrap() {
            let text = case["text"].as_str().unwrap();
            assert_eq!(words_fingerprint(text), case["fingerprint"], "{text:?}");
        }
        for case in table["files"].as_array().unwrap() {
            let kind = match case["kind"].as_str().unwrap() {
                "page" => Kind::Page,
                "article" => Kind::Article,
                "event" => Kind::Event,
                "job" => Kind::Job,
                _ => Kind::Document,
            };
            let text = case["text"].as_str().unwrap();
            let print = fingerprint_of_text(kind, text).unwrap();
            assert_eq!(serde_json::json!(print), case["fingerprint"], "{text}");
            // The editor's side is given the rules the table names: the models' own.
            let model = serde_json::to_value(kind.shape()).unwrap();
            let named = &table["shapes"][case["kind"].as_str().unwrap()];
            assert!(
                part_of(named, &model),
                "{kind:?}: {named} is not the models' rules"
            );
        }
    }

    /// Whether `part` (a shape as serde writes it) says what `whole` says of each field it names.
    fn part_of(part: &serde_json::Value, whole: &serde_json::Value) -> bool {
        let named = |list: &serde_json::Value, name: &serde_json::Value| {
            list.as_array()
                .and_then(|l| l.iter().find(|pair| pair[0] == *name))
                .map(|pair| pair[1].clone())
        };
        let each = |key: &str| {
            part[key].as_array().is_some_and(|pairs| {
                pairs.iter().all(|pair| {
                    named(&whole[key], &pair[0]).is_some_and(|inner| part_of(&pair[1], &inner))
                })
            })
        };
        match () {
            _ if part.get("value").is_some() => part == whole,
            _ if part.get("list").is_some() => part_of(&part["list"], &whole["list"]),
            _ if part.get("fields").is_some() => each("fields"),
            _ => each("typed"),
        }
    }

    #[test]
    fn the_words_fingerprint_is_fnv_1a_of_the_words() {
        // FNV-1a of "" and of "a", the algorithm's published values.
        assert_eq!(words_fingerprint(""), "811c9dc5");
        assert_eq!(words_fingerprint("a"), "e40c292c");
        assert_eq!(
            words_fingerprint("Hello,   world!"),
            words_fingerprint("hello world".replace('h', "H").as_str())
        );
        assert_eq!(
            words_fingerprint("Über **uns**"),
            words_fingerprint("Über uns")
        );
        assert_ne!(words_fingerprint("über uns"), words_fingerprint("Über uns"));
    }
}
