//! The typed blocks a page is made of. Each block type has a struct here and a
//! template `templates/blocks/<type>.html`; editors compose pages from them in YAML.

use serde::{Deserialize, Serialize};

use crate::yaml::{self, Node};

/// Declares the block enum, its list of type names, and the dispatch from a YAML
/// mapping's `type` to the matching struct, in one place.
macro_rules! blocks {
    ($($tag:literal => $variant:ident($ty:ty)),+ $(,)?) => {
        #[derive(Debug, Clone, Serialize)]
        #[serde(tag = "type")]
        pub enum Block {
            $( #[serde(rename = $tag)] $variant($ty), )+
        }

        impl Block {
            /// Every block type an editor may use, as written in YAML.
            pub const TYPES: &'static [&'static str] = &[$($tag),+];

            fn from_tagged(tag: &str, node: &Node, path: &str) -> Option<Result<Block, yaml::Error>> {
                match tag {
                    $( $tag => Some(yaml::from_map_without::<$ty>(node, path, "type").map(Block::$variant)), )+
                    _ => None,
                }
            }
        }
    };
}

blocks! {
    "hero" => Hero(Hero),
    "card_grid" => CardGrid(CardGrid),
}

impl Block {
    /// Reads one block from its YAML mapping; `path` names it (`blocks[2]`).
    pub fn from_node(node: &Node, path: &str) -> Result<Block, yaml::Error> {
        let expected = Block::TYPES.join(", ");
        let Some(tag_node) = node.get("type") else {
            let what = if matches!(node.kind, yaml::Kind::Map(_)) {
                format!("missing field `type`, expected one of {expected}")
            } else {
                format!("a block must be a mapping with a `type`, one of {expected}")
            };
            return Err(yaml::Error::at(node.span, path, what));
        };
        let tag_path = yaml::child_path(path, "type");
        let Some(tag) = tag_node.as_str() else {
            return Err(yaml::Error::at(
                tag_node.span,
                &tag_path,
                format!("a block type must be a name, one of {expected}"),
            ));
        };
        Block::from_tagged(tag, node, path).unwrap_or_else(|| {
            Err(yaml::Error::at(
                tag_node.span,
                &tag_path,
                format!("unknown block type `{tag}`, expected one of {expected}"),
            ))
        })
    }
}

/// A button or link with a destination.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Action {
    pub label: String,
    pub href: String,
    /// `primary` (filled) or `secondary` (outlined).
    #[serde(default)]
    pub style: ActionStyle,
}

#[derive(Debug, Clone, Copy, Default, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ActionStyle {
    #[default]
    Primary,
    Secondary,
}

/// The opening band of a page: heading, supporting text and buttons.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Hero {
    #[serde(default)]
    pub eyebrow: Option<String>,
    pub heading: String,
    pub text: String,
    #[serde(default)]
    pub actions: Vec<Action>,
}

/// A titled section of cards.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct CardGrid {
    /// The section's fragment id, for links such as `/about#leadership-team`.
    #[serde(default)]
    pub id: Option<String>,
    #[serde(default)]
    pub eyebrow: Option<String>,
    pub heading: String,
    #[serde(default)]
    pub intro: Option<String>,
    pub cards: Vec<Card>,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Card {
    pub title: String,
    pub text: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(src: &str) -> Result<Block, yaml::Error> {
        let node = yaml::parse(src).unwrap();
        Block::from_node(&node, "blocks[0]")
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
        assert!(err.message.contains("hero, card_grid"));
    }

    #[test]
    fn requires_a_type() {
        let err = block("heading: Hi\n").unwrap_err();
        assert!(
            err.message.contains("missing field `type`"),
            "{}",
            err.message
        );
    }

    #[test]
    fn rejects_fields_a_block_does_not_have() {
        let err = block("type: hero\nheading: Hi\ntext: x\ncolour: red\n").unwrap_err();
        assert_eq!(err.path, "blocks[0].colour");
        assert_eq!(err.span.map(|s| s.line), Some(4));
    }
}
