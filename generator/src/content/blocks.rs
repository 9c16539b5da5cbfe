//! The typed blocks a page is made of. Each block type has a struct here and a
//! template `templates/blocks/<type>.html`; editors compose pages from them in YAML.

use serde::{Deserialize, Serialize};

use crate::content::yaml::{self, Node};

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
    "split" => Split(Split),
    "stats" => Stats(Stats),
    "regions" => Regions(Regions),
    "cta" => Cta(Cta),
    "team" => Team(Team),
    "steps" => Steps(Steps),
    "role_selector" => RoleSelector(RoleSelector),
    "contact" => Contact(Contact),
    "offices" => Offices(Offices),
    "faq" => Faq(Faq),
    "text" => Text(Text),
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

/// A button or link. Without `href` it is shown as inert text: the destination
/// does not exist yet, and a link to nowhere would mislead.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Action {
    pub label: String,
    #[serde(default)]
    pub href: Option<super::Href>,
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

/// A picture from `public/`, with the text that stands for it.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Image {
    /// A path under `public/`, e.g. `/images/map.svg`.
    pub src: String,
    /// What the picture shows; empty only for pure decoration.
    pub alt: String,
}

/// The background of a section.
#[derive(Debug, Clone, Copy, Default, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Tone {
    #[default]
    Light,
    Tinted,
    Dark,
}

/// Declares a section block: the shared heading fields (`id`, `eyebrow`,
/// `heading`, `intro`, `tone`) plus its own, as plain fields so that errors keep
/// their exact positions (serde's `flatten` would buffer them).
macro_rules! section {
    ($(#[$meta:meta])* pub struct $name:ident { $($(#[$fmeta:meta])* pub $field:ident : $ty:ty,)* }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Deserialize, Serialize)]
        #[serde(deny_unknown_fields)]
        pub struct $name {
            /// The section's fragment id, for links such as `/about#leadership-team`.
            #[serde(default)]
            pub id: Option<String>,
            #[serde(default)]
            pub eyebrow: Option<String>,
            pub heading: String,
            /// Markdown.
            #[serde(default)]
            pub intro: Option<String>,
            #[serde(default)]
            pub tone: Tone,
            $($(#[$fmeta])* pub $field: $ty,)*
        }
    };
}

/// The opening band of a page.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Hero {
    #[serde(default)]
    pub eyebrow: Option<String>,
    pub heading: String,
    pub text: String,
    #[serde(default)]
    pub meta: Vec<String>,
    #[serde(default)]
    pub actions: Vec<Action>,
    #[serde(default)]
    pub image: Option<Image>,
}

section! {
    /// A titled section of cards. Every part of a card is optional but its title, so
    /// one block serves capability, service, industry, article and case study cards.
    pub struct CardGrid {
        /// Cards per row on wide screens: 2, 3 or 4.
        #[serde(default = "three")]
        pub columns: u8,
        /// Number the cards (1, 2, 3 …).
        #[serde(default)]
        pub numbered: bool,
        pub cards: Vec<Card>,
    }
}

fn three() -> u8 {
    3
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Card {
    pub title: String,
    /// A category, industry or kicker shown above the title.
    #[serde(default)]
    pub label: Option<String>,
    /// Markdown.
    #[serde(default)]
    pub text: Option<String>,
    /// A lucide icon name.
    #[serde(default)]
    pub icon: Option<String>,
    #[serde(default)]
    pub image: Option<Image>,
    /// Date, author, company: shown in one muted line.
    #[serde(default)]
    pub meta: Vec<String>,
    /// A heading for `items`, such as "Key features" or "Results".
    #[serde(default)]
    pub items_heading: Option<String>,
    #[serde(default)]
    pub items: Vec<String>,
    /// A heading for `entries`, such as "Spotlight".
    #[serde(default)]
    pub entries_heading: Option<String>,
    #[serde(default)]
    pub entries: Vec<Entry>,
    #[serde(default)]
    pub link: Option<Action>,
}

/// A short listed item with its own meta line (a spotlight article).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    pub title: String,
    #[serde(default)]
    pub meta: Vec<String>,
}

section! {
    /// Text beside a picture.
    pub struct Split {
        /// Markdown.
        pub text: String,
        /// A checklist under the text.
        #[serde(default)]
        pub items: Vec<String>,
        #[serde(default)]
        pub actions: Vec<Action>,
        pub image: Image,
        /// Put the picture on the left on wide screens.
        #[serde(default)]
        pub image_first: bool,
        /// Draw a play button over the picture (a video that is not published yet).
        #[serde(default)]
        pub play_overlay: bool,
    }
}

section! {
    /// Figures with labels, optionally followed by cards (news).
    pub struct Stats {
        pub stats: Vec<Stat>,
        #[serde(default)]
        pub cards_heading: Option<String>,
        #[serde(default)]
        pub cards: Vec<Card>,
    }
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Stat {
    pub value: String,
    pub label: String,
    #[serde(default)]
    pub text: Option<String>,
}

section! {
    /// The regions the company works in.
    pub struct Regions {
        pub regions: Vec<Region>,
    }
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Region {
    pub region: String,
    pub offices: u32,
    pub clients: String,
    #[serde(default)]
    pub text: Option<String>,
}

/// A call-to-action band.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Cta {
    #[serde(default)]
    pub id: Option<String>,
    pub heading: String,
    pub text: String,
    pub actions: Vec<Action>,
}

section! {
    /// People with their role and a short biography.
    pub struct Team {
        pub people: Vec<Person>,
    }
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Person {
    pub name: String,
    pub position: String,
    pub bio: String,
    #[serde(default)]
    pub image: Option<Image>,
}

section! {
    /// An ordered approach: phases with their activities.
    pub struct Steps {
        pub steps: Vec<Step>,
    }
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Step {
    pub title: String,
    pub text: String,
    pub activities: Vec<String>,
}

section! {
    /// Roles a visitor picks from; one is highlighted at a time.
    pub struct RoleSelector {
        pub roles: Vec<String>,
        /// The role highlighted at first; it must be one of `roles`.
        pub default: String,
    }
}

section! {
    /// The contact form beside the "get in touch" details.
    pub struct Contact {
        pub panel_heading: String,
        /// Opening hours, one line each.
        pub hours: Vec<String>,
        pub support: Action,
    }
}

section! {
    /// The company's offices.
    pub struct Offices {
        pub offices: Vec<Office>,
    }
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Office {
    /// The office's name, e.g. "Corporate Office (India)".
    pub name: String,
    pub city: String,
    pub address: String,
    pub phone: String,
    pub email: String,
    pub hours: String,
}

section! {
    /// Questions and answers, open one at a time without JavaScript.
    pub struct Faq {
        pub questions: Vec<Question>,
    }
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Question {
    pub question: String,
    /// Markdown.
    pub answer: String,
}

section! {
    /// A section of Markdown text.
    pub struct Text {
        /// Markdown.
        pub text: String,
    }
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
        assert!(err.message.contains("hero, card_grid, split"));
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
