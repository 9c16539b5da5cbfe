//! The typed blocks a page is made of. Each block type has a struct (`types.rs`),
//! a template `templates/blocks/<type>.html` and an example (`examples/`);
//! editors compose pages from them in YAML. Here: the `Block` enum, declared once
//! with `blocks!`, reading a block by its `type`, and the rules across a block's
//! fields. The doc comments are the editors' reference: they become the JSON
//! Schema's descriptions and `docs/content.md`.

mod types;

use schemars::JsonSchema;
use serde::Serialize;

// Each block type's struct, and the parts they share, are the blocks' own names.
pub use types::*;

use crate::content::yaml::{self, Node, Reference};
use crate::suggest;

/// Declares the block enum, its list of type names, and the dispatch from a YAML
/// mapping's `type` to the matching struct, in one place.
macro_rules! blocks {
    ($($(#[$meta:meta])* $tag:literal => $variant:ident($ty:ty)),+ $(,)?) => {
        /// A section of a page. `type` names the kind of block; the other fields
        /// depend on it.
        #[derive(Debug, Clone, Serialize, JsonSchema)]
        #[serde(tag = "type")]
        pub enum Block {
            $( $(#[$meta])* #[serde(rename = $tag)] $variant($ty), )+
        }

        impl Block {
            /// Every block type an editor may use, as written in YAML.
            pub const TYPES: &'static [&'static str] = &[$($tag),+];

            /// An example of each block type, for the content reference
            /// (`examples/<type>.yaml`, a list of one block).
            pub const EXAMPLES: &'static [(&'static str, &'static str)] =
                &[$(($tag, include_str!(concat!("examples/", $tag, ".yaml")))),+];

            /// Its type, as written in YAML.
            pub fn type_name(&self) -> &'static str {
                match self {
                    $( Block::$variant(_) => $tag, )+
                }
            }

            fn from_tagged(tag: &str, node: &Node, path: &str) -> Option<Read> {
                match tag {
                    $( $tag => Some(yaml::read_without::<$ty>(node, path, "type")
                        .map(|(b, found)| (Block::$variant(b), found))), )+
                    _ => None,
                }
            }
        }
    };
}

type Read = Result<(Block, Vec<Reference>), yaml::Failed>;

blocks! {
    /// The opening band of a page: a heading, text, buttons and a picture.
    "hero" => Hero(Hero),
    /// A titled section of cards: capabilities, services, industries, case studies.
    "card_grid" => CardGrid(CardGrid),
    /// Text beside a picture.
    "split" => Split(Split),
    /// Figures with labels, optionally followed by cards.
    "stats" => Stats(Stats),
    /// The regions the company works in.
    "regions" => Regions(Regions),
    /// A call-to-action band.
    "cta" => Cta(Cta),
    /// People with their role and a short biography.
    "team" => Team(Team),
    /// An ordered approach: phases with their activities.
    "steps" => Steps(Steps),
    /// Roles a visitor picks from; one is highlighted at a time.
    "role_selector" => RoleSelector(RoleSelector),
    /// The contact form beside the "get in touch" details.
    "contact" => Contact(Contact),
    /// The company's offices.
    "offices" => Offices(Offices),
    /// Text beside a world map, drawn at build time, with a pin for each place.
    "map" => Map(Map),
    /// Questions and answers.
    "faq" => Faq(Faq),
    /// A section of Markdown text.
    "text" => Text(Text),
    /// The hero of a collection's listing: its featured article, or its newest.
    "featured_article" => FeaturedArticle(FeaturedArticle),
    /// A collection's articles as cards, newest first.
    "articles" => Articles(Articles),
    /// A collection's upcoming events as cards, soonest first, with a link to
    /// the past ones.
    "events" => Events(Events),
    /// A collection's job postings as cards, newest first, with links to each
    /// office's and each team's postings.
    "jobs" => Jobs(Jobs),
}

impl Block {
    /// Reads one block from its YAML mapping; `path` names it (`blocks[2]`). Every
    /// mistake in the block is reported.
    pub fn from_node(node: &Node, path: &str) -> Read {
        // The lists and paths of the messages are built only for a mistake.
        let expected = || Block::TYPES.join(", ");
        let Some(tag_node) = node.get("type") else {
            let what = if matches!(node.kind, yaml::Kind::Map(_)) {
                format!(
                    "this block has no `type`; start it with `- type:` and one of {}",
                    expected()
                )
            } else {
                format!(
                    "a block is written as `name: value` lines starting with `- type:`, but this is {}; the types are {}",
                    node.described(),
                    expected()
                )
            };
            return Err(failed(vec![yaml::Error::at(node.span, path, what)]));
        };
        let tag_path = || yaml::child_path(path, "type");
        let Some(tag) = tag_node.as_str() else {
            return Err(failed(vec![yaml::Error::at(
                tag_node.span,
                &tag_path(),
                format!("a block type is a name, one of {}", expected()),
            )]));
        };
        let read = Block::from_tagged(tag, node, path).unwrap_or_else(|| {
            let message = match suggest::nearest(tag, Block::TYPES.iter().copied()) {
                Some(near) => format!("unknown block type `{tag}`; did you mean `{near}`?"),
                None => format!("unknown block type `{tag}`; the types are {}", expected()),
            };
            Err(failed(vec![yaml::Error::at(
                tag_node.span,
                &tag_path(),
                message,
            )]))
        });
        // The rules are checked on the written values, so that they are reported
        // beside the block's other mistakes.
        let broken = rules(tag, node, path);
        match read {
            Ok(read) if broken.is_empty() => Ok(read),
            Ok((_, references)) => Err(yaml::Failed {
                errors: broken,
                references,
            }),
            Err(mut failed) => {
                failed.errors.extend(broken);
                failed.errors.sort_by_key(|e| e.span.map(|s| s.offset));
                Err(failed)
            }
        }
    }
}

fn failed(errors: Vec<yaml::Error>) -> yaml::Failed {
    yaml::Failed {
        errors,
        references: Vec::new(),
    }
}

/// Rules across fields, which a field's type alone cannot say: a grid's
/// `columns` is 2, 3 or 4; a role selector's `default` is one of its `roles`; a
/// pin's latitude and longitude are on the globe.
fn rules(tag: &str, node: &Node, path: &str) -> Vec<yaml::Error> {
    let at = |field: &str, n: &Node, message: String| {
        yaml::Error::at(n.span, &yaml::child_path(path, field), message)
    };
    let mut broken = Vec::new();
    match tag {
        "card_grid" | "articles" | "events" | "jobs" => {
            let columns = node.get("columns");
            let value = columns.and_then(|n| match n.kind {
                yaml::Kind::Int(i) => Some(i),
                yaml::Kind::UInt(u) => i64::try_from(u).ok(),
                _ => None,
            });
            if let (Some(n), Some(v)) = (columns, value) {
                if !(2..=4).contains(&v) {
                    broken.push(at(
                        "columns",
                        n,
                        format!("a grid has 2, 3 or 4 columns, not {v}"),
                    ));
                }
            }
        }
        "role_selector" => {
            let roles: Vec<&str> = match node.get("roles").map(|n| &n.kind) {
                Some(yaml::Kind::Seq(items)) => items.iter().filter_map(Node::as_str).collect(),
                _ => Vec::new(),
            };
            if let Some((n, default)) = node
                .get("default")
                .and_then(|n| n.as_str().map(|d| (n, d)))
                .filter(|_| !roles.is_empty())
            {
                if !roles.contains(&default) {
                    let hint = suggest::did_you_mean(default, roles.iter().copied());
                    broken.push(at(
                        "default",
                        n,
                        format!(
                            "the default role `{default}` is not one of the roles ({}){hint}",
                            roles.join(", ")
                        ),
                    ));
                }
            }
        }
        "map" => {
            let pins = match node.get("pins").map(|n| &n.kind) {
                Some(yaml::Kind::Seq(items)) => items.as_slice(),
                _ => &[],
            };
            for (i, pin) in pins.iter().enumerate() {
                for (field, limit) in [("latitude", 90.0), ("longitude", 180.0)] {
                    let Some(n) = pin.get(field) else { continue };
                    let value = match n.kind {
                        yaml::Kind::Float(f) => Some(f),
                        yaml::Kind::Int(v) => Some(v as f64),
                        yaml::Kind::UInt(v) => Some(v as f64),
                        _ => None,
                    };
                    if let Some(v) = value.filter(|v| v.abs() > limit) {
                        // A latitude past 90 that would be a longitude: the pair is swapped.
                        let hint = if field == "latitude" && v.abs() <= 180.0 {
                            "; are latitude and longitude swapped?"
                        } else {
                            ""
                        };
                        broken.push(yaml::Error::at(
                            n.span,
                            &format!("{path}.pins[{i}].{field}"),
                            format!(
                                "a {field} is between -{limit} and {limit} degrees, not {v}{hint}"
                            ),
                        ));
                    }
                }
            }
        }
        _ => {}
    }
    broken
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(src: &str) -> Result<Block, yaml::Error> {
        let node = yaml::parse(src).unwrap();
        Block::from_node(&node, "blocks[0]")
            .map(|(b, _)| b)
            .map_err(|mut e| e.errors.remove(0))
    }

    fn errors(src: &str) -> Vec<yaml::Error> {
        let node = yaml::parse(src).unwrap();
        Block::from_node(&node, "blocks[0]").unwrap_err().errors
    }

    #[test]
    fn reads_a_block_by_its_type() {
        let b = block("type: hero\nheading: Hi\ntext: There\n").unwrap();
        assert!(matches!(b, Block::Hero(h) if h.heading == "Hi"));
    }

    #[test]
    fn names_the_known_types_for_an_unknown_one() {
        let err = block("type: carousel\nheading: Hi\n").unwrap_err();
        assert_eq!(err.path, "blocks[0].type");
        assert!(err.message.contains("unknown block type `carousel`"));
        assert!(err.message.contains("hero, card_grid, split"));
    }

    #[test]
    fn suggests_the_type_meant() {
        let err = block("type: card_gird\nheading: H\ncards: []\n").unwrap_err();
        assert!(
            err.message.contains("did you mean `card_grid`?"),
            "{}",
            err.message
        );
    }

    #[test]
    fn reports_every_mistake_in_a_block() {
        let errs = errors(
            "type: card_grid\nheadng: H\ncolumns: many\ncards:\n  - title: A\n    icon: Bad Name\n  - label: no title\n",
        );
        let paths: Vec<&str> = errs.iter().map(|e| e.path.as_str()).collect();
        assert_eq!(
            paths,
            [
                "blocks[0].headng",
                "blocks[0].columns",
                "blocks[0].cards[0].icon",
                "blocks[0].cards[1]",
            ],
            "{errs:#?}"
        );
        assert!(errs[0].message.contains("did you mean `heading`?"));
        // The misspelt `heading` is not reported again as absent.
        assert_eq!(errs.len(), 4);
        assert!(
            errs[3].message.contains("no `title`"),
            "{}",
            errs[3].message
        );
    }

    #[test]
    fn checks_rules_across_fields() {
        let err = block("type: card_grid\nheading: H\ncolumns: 5\ncards: []\n").unwrap_err();
        assert_eq!(err.path, "blocks[0].columns");
        assert!(
            err.message.contains("2, 3 or 4 columns, not 5"),
            "{}",
            err.message
        );
        let err = block("type: role_selector\nheading: H\nroles: [CEO, CFO]\ndefault: CF0\n")
            .unwrap_err();
        assert_eq!(err.path, "blocks[0].default");
        assert!(
            err.message.contains("did you mean `CFO`?"),
            "{}",
            err.message
        );
    }

    #[test]
    fn a_list_where_a_mapping_belongs_is_an_error() {
        let err = block("type: hero\nheading: H\ntext: T\nimage: [/images/story.svg, \"Alt\"]\n")
            .unwrap_err();
        assert_eq!(err.path, "blocks[0].image");
        assert!(err.message.contains("not as a list"), "{}", err.message);
    }

    #[test]
    fn requires_a_type() {
        let err = block("heading: Hi\n").unwrap_err();
        assert!(err.message.contains("has no `type`"), "{}", err.message);
    }

    #[test]
    fn rejects_fields_a_block_does_not_have() {
        let err = block("type: hero\nheading: Hi\ntext: x\ncolour: red\n").unwrap_err();
        assert_eq!(err.path, "blocks[0].colour");
        assert_eq!(err.span.map(|s| s.line), Some(4));
    }
}
