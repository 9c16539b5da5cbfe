//! One page of the site, read from `content/pages/**/*.yaml` (typed blocks) or
//! `content/pages/**/*.md` (front matter and a Markdown body).

use serde::de::IgnoredAny;
use serde::{Deserialize, Serialize};

use super::blocks::Block;
use crate::content::markdown;
use crate::content::yaml::{self, Node};

#[derive(Debug, Clone, Serialize)]
pub struct Page {
    /// The address, `/` or `/services/cloud/` (always with the trailing slash).
    pub route: String,
    /// The file it came from, relative to the site root.
    pub source: String,
    pub title: String,
    pub description: String,
    pub layout: String,
    pub date: Option<Date>,
    pub tags: Vec<String>,
    /// The blocks of a YAML page; empty for Markdown pages.
    pub blocks: Vec<Block>,
    /// The rendered body of a Markdown page; empty for YAML pages.
    pub content: String,
}

/// A calendar date written `YYYY-MM-DD`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct Date(String);

impl Date {
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl<'de> Deserialize<'de> for Date {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        let b = s.as_bytes();
        let digits = |r: std::ops::Range<usize>| b[r].iter().all(u8::is_ascii_digit);
        let valid = b.len() == 10
            && b[4] == b'-'
            && b[7] == b'-'
            && digits(0..4)
            && digits(5..7)
            && digits(8..10)
            && (1..=12).contains(&s[5..7].parse::<u8>().unwrap_or(0))
            && (1..=31).contains(&s[8..10].parse::<u8>().unwrap_or(0));
        if valid {
            Ok(Date(s))
        } else {
            Err(serde::de::Error::custom(format!(
                "invalid date `{s}`, expected a date written YYYY-MM-DD"
            )))
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PageHead {
    title: String,
    description: String,
    #[serde(default)]
    layout: Option<String>,
    #[allow(dead_code)]
    blocks: IgnoredAny,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FrontMatter {
    title: String,
    description: String,
    #[serde(default)]
    layout: Option<String>,
    #[serde(default)]
    date: Option<Date>,
    #[serde(default)]
    tags: Vec<String>,
}

/// Reads a YAML page. Every bad block is reported, not only the first.
pub fn from_yaml(route: String, source: String, text: &str) -> Result<Page, Vec<yaml::Error>> {
    let node = yaml::parse(text).map_err(|e| vec![e])?;
    if !matches!(node.kind, yaml::Kind::Map(_)) {
        return Err(vec![yaml::Error::at(
            node.span,
            "",
            "a page must be a mapping with `title`, `description` and `blocks`",
        )]);
    }
    let mut errors = Vec::new();
    let head = yaml::from_node::<PageHead>(&node, "")
        .map_err(|e| errors.push(e))
        .ok();
    let blocks = match node.get("blocks") {
        Some(list) => read_blocks(list, &mut errors),
        None => Vec::new(),
    };
    match head {
        Some(head) if errors.is_empty() => Ok(Page {
            route,
            source,
            title: head.title,
            description: head.description,
            layout: head.layout.unwrap_or_else(|| "page".to_string()),
            date: None,
            tags: Vec::new(),
            blocks,
            content: String::new(),
        }),
        _ => Err(errors),
    }
}

fn read_blocks(list: &Node, errors: &mut Vec<yaml::Error>) -> Vec<Block> {
    let yaml::Kind::Seq(items) = &list.kind else {
        errors.push(yaml::Error::at(
            list.span,
            "blocks",
            "expected a list of blocks, each starting with `- type: …`",
        ));
        return Vec::new();
    };
    let mut blocks = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        match Block::from_node(item, &yaml::index_path("blocks", i)) {
            Ok(b) => blocks.push(b),
            Err(e) => errors.push(e),
        }
    }
    blocks
}

/// Reads a Markdown page. Error positions are given within the whole file.
pub fn from_markdown(route: String, source: String, text: &str) -> Result<Page, Vec<yaml::Error>> {
    let Some((front, front_offset, body)) = split_front_matter(text) else {
        return Err(vec![yaml::Error::at(
            yaml::Span {
                line: 1,
                column: 1,
                ..Default::default()
            },
            "",
            "a Markdown page starts with front matter between `---` lines (title, description)",
        )]);
    };
    let shift = |mut e: yaml::Error| {
        e.span = e.span.map(|s| s.shifted(front_offset, 1));
        vec![e]
    };
    let node = yaml::parse(front).map_err(shift)?;
    let fm: FrontMatter = yaml::from_node(&node, "").map_err(shift)?;
    Ok(Page {
        route,
        source,
        title: fm.title,
        description: fm.description,
        layout: fm.layout.unwrap_or_else(|| "markdown".to_string()),
        date: fm.date,
        tags: fm.tags,
        blocks: Vec::new(),
        content: markdown::render(body),
    })
}

/// Splits `---\n<yaml>\n---\n<body>` into the YAML, its byte offset, and the body.
fn split_front_matter(text: &str) -> Option<(&str, usize, &str)> {
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
        let (fm, offset, body) = split_front_matter("---\ntitle: A\n---\n# Body\n").unwrap();
        assert_eq!((fm, offset, body), ("title: A\n", 4, "# Body\n"));
        assert!(split_front_matter("# no front matter\n").is_none());
        assert!(split_front_matter("---\ntitle: A\n").is_none());
    }

    #[test]
    fn reports_front_matter_errors_at_their_line_in_the_file() {
        let errs = from_markdown(
            "/a".into(),
            "a.md".into(),
            "---\ntitle: A\ndescription: B\ndate: soon\n---\nx\n",
        )
        .unwrap_err();
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
        let errs = from_yaml("/".into(), "index.yaml".into(), src).unwrap_err();
        assert_eq!(errs.len(), 2, "{errs:?}");
        assert_eq!(errs[0].path, "blocks[0].type");
        assert_eq!(errs[1].path, "blocks[1]");
    }
}
