//! The fields of each block type, and the parts blocks share: buttons,
//! pictures, cards, people, pins, and a section's heading (`section!`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::content::values::{Href, Icon, ImageSrc, Markdown};

/// A button or link. Without `href` it is shown as inert text: the destination
/// does not exist yet, and a link to nowhere would mislead.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Action {
    /// The words on the button.
    #[schemars(extend("x-i18n" = "translate"))]
    pub label: String,
    /// Where it leads. Leave it out while the destination does not exist yet.
    #[serde(default)]
    pub href: Option<Href>,
    /// `primary` (filled, the default) or `secondary` (outlined).
    #[serde(default)]
    pub style: ActionStyle,
}

/// How a button looks.
#[derive(Debug, Clone, Copy, Default, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ActionStyle {
    /// Filled.
    #[default]
    Primary,
    /// Outlined.
    Secondary,
}

/// A picture from `public/`, with the text that stands for it.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Image {
    /// A path under `public/`, e.g. `/images/map.svg`.
    pub src: ImageSrc,
    /// What the picture shows, for people who cannot see it; empty only for pure decoration.
    #[schemars(extend("x-i18n" = "translate"))]
    pub alt: String,
}

/// The background of a section.
#[derive(Debug, Clone, Copy, Default, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Tone {
    /// White (the default).
    #[default]
    Light,
    /// A pale brand tint, to set a section apart.
    Tinted,
    /// Dark, with light text.
    Dark,
}

/// Declares a section block: the shared heading fields (`id`, `eyebrow`,
/// `heading`, `intro`, `tone`) plus its own, as plain fields so that errors keep
/// their exact positions (serde's `flatten` would buffer them).
macro_rules! section {
    ($(#[$meta:meta])* pub struct $name:ident { $($(#[$fmeta:meta])* pub $field:ident : $ty:ty,)* }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
        #[serde(deny_unknown_fields)]
        pub struct $name {
            /// The section's fragment id, for links such as `/about#leadership-team`.
            #[serde(default)]
            #[schemars(extend("x-i18n" = "share"))]
            pub id: Option<String>,
            /// A short line above the heading.
            #[serde(default)]
            #[schemars(extend("x-i18n" = "translate"))]
            pub eyebrow: Option<String>,
            /// The section's heading.
            #[schemars(extend("x-i18n" = "translate"))]
            pub heading: String,
            /// Markdown under the heading.
            #[serde(default)]
            pub intro: Option<Markdown>,
            /// The background: `light` (the default), `tinted` or `dark`.
            #[serde(default)]
            pub tone: Tone,
            $($(#[$fmeta])* pub $field: $ty,)*
        }
    };
}

/// The opening band of a page.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Hero {
    /// A short line above the heading.
    #[serde(default)]
    #[schemars(extend("x-i18n" = "translate"))]
    pub eyebrow: Option<String>,
    /// The page's main heading (its h1).
    #[schemars(extend("x-i18n" = "translate"))]
    pub heading: String,
    /// A sentence or two under the heading.
    #[schemars(extend("x-i18n" = "translate"))]
    pub text: String,
    /// Short facts in one muted line, such as a date and an author.
    #[serde(default)]
    #[schemars(extend("x-i18n" = "translate"))]
    pub meta: Vec<String>,
    /// Buttons under the text.
    #[serde(default)]
    pub actions: Vec<Action>,
    /// A picture beside the text on wide screens.
    #[serde(default)]
    pub image: Option<Image>,
}

section! {
    /// A titled section of cards. Every part of a card is optional but its title, so
    /// one block serves capability, service, industry, article and case study cards.
    pub struct CardGrid {
        /// Cards per row on wide screens: 2, 3 (the default) or 4.
        #[serde(default = "three")]
        #[schemars(range(min = 2, max = 4))]
        pub columns: u8,
        /// Number the cards (1, 2, 3 …).
        #[serde(default)]
        pub numbered: bool,
        /// The cards, in order.
        pub cards: Vec<Card>,
    }
}

fn three() -> u8 {
    3
}

/// A card: a title and, optionally, a picture or icon, text, a list and a link.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Card {
    /// The card's title.
    #[schemars(extend("x-i18n" = "translate"))]
    pub title: String,
    /// A category, industry or kicker shown above the title.
    #[serde(default)]
    #[schemars(extend("x-i18n" = "translate"))]
    pub label: Option<String>,
    /// Markdown, a sentence or two.
    #[serde(default)]
    pub text: Option<Markdown>,
    /// A lucide icon name (lucide.dev/icons) or a file in templates/icons/.
    #[serde(default)]
    pub icon: Option<Icon>,
    /// A picture at the top of the card.
    #[serde(default)]
    pub image: Option<Image>,
    /// Date, author, company: shown in one muted line.
    #[serde(default)]
    #[schemars(extend("x-i18n" = "translate"))]
    pub meta: Vec<String>,
    /// A heading for `items`, such as "Key features" or "Results".
    #[serde(default)]
    #[schemars(extend("x-i18n" = "translate"))]
    pub items_heading: Option<String>,
    /// A checklist.
    #[serde(default)]
    #[schemars(extend("x-i18n" = "translate"))]
    pub items: Vec<String>,
    /// A heading for `entries`, such as "Spotlight".
    #[serde(default)]
    #[schemars(extend("x-i18n" = "translate"))]
    pub entries_heading: Option<String>,
    /// Short listed items, each with its own meta line.
    #[serde(default)]
    pub entries: Vec<Entry>,
    /// A link at the foot of the card.
    #[serde(default)]
    pub link: Option<Action>,
}

/// A short listed item with its own meta line (a spotlight article).
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    /// The item's title.
    #[schemars(extend("x-i18n" = "translate"))]
    pub title: String,
    /// Date, author: shown in one muted line.
    #[serde(default)]
    #[schemars(extend("x-i18n" = "translate"))]
    pub meta: Vec<String>,
}

section! {
    /// Text beside a picture.
    pub struct Split {
        /// Markdown.
        pub text: Markdown,
        /// A checklist under the text.
        #[serde(default)]
        #[schemars(extend("x-i18n" = "translate"))]
        pub items: Vec<String>,
        /// Buttons under the text.
        #[serde(default)]
        pub actions: Vec<Action>,
        /// The picture.
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
        /// The figures.
        pub stats: Vec<Stat>,
        /// A heading for `cards`.
        #[serde(default)]
        #[schemars(extend("x-i18n" = "translate"))]
        pub cards_heading: Option<String>,
        /// Cards under the figures.
        #[serde(default)]
        pub cards: Vec<Card>,
        /// Cards of a collection's newest entries under the figures, after
        /// `cards`, e.g. `{ collection: news, limit: 3 }`.
        #[serde(default)]
        pub latest: Option<Latest>,
    }
}

/// A collection's newest entries, as cards.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Latest {
    /// The collection: a folder of content/pages/, e.g. `news`.
    #[schemars(extend("x-i18n" = "share"))]
    pub collection: String,
    /// How many. Default: 3.
    #[serde(default = "three_entries")]
    pub limit: u32,
    /// The words on each card's link. Default: the kind's own ("Read article").
    #[serde(default)]
    #[schemars(extend("x-i18n" = "translate"))]
    pub link_label: Option<String>,
    /// The words on the link to the whole collection, e.g. "All news".
    #[serde(default)]
    #[schemars(extend("x-i18n" = "translate"))]
    pub more_label: Option<String>,
}

fn three_entries() -> u32 {
    3
}

/// A figure with its label.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Stat {
    /// The figure as shown, e.g. "19.3 billion USD".
    #[schemars(extend("x-i18n" = "translate"))]
    pub value: String,
    /// What it counts, e.g. "Revenue".
    #[schemars(extend("x-i18n" = "translate"))]
    pub label: String,
    /// A sentence under the label.
    #[serde(default)]
    #[schemars(extend("x-i18n" = "translate"))]
    pub text: Option<String>,
}

section! {
    /// The regions the company works in.
    pub struct Regions {
        /// The regions, in order.
        pub regions: Vec<Region>,
    }
}

/// A region with its offices and clients.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Region {
    /// The region's name, e.g. "Asia Pacific".
    #[schemars(extend("x-i18n" = "translate"))]
    pub region: String,
    /// How many offices the company has there.
    pub offices: u32,
    /// Its clients there, as shown, e.g. "600+ clients".
    #[schemars(extend("x-i18n" = "translate"))]
    pub clients: String,
    /// A sentence about the region.
    #[serde(default)]
    #[schemars(extend("x-i18n" = "translate"))]
    pub text: Option<String>,
}

/// A call-to-action band.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Cta {
    /// The section's fragment id.
    #[serde(default)]
    #[schemars(extend("x-i18n" = "share"))]
    pub id: Option<String>,
    /// The band's heading.
    #[schemars(extend("x-i18n" = "translate"))]
    pub heading: String,
    /// A sentence under the heading.
    #[schemars(extend("x-i18n" = "translate"))]
    pub text: String,
    /// The buttons.
    pub actions: Vec<Action>,
}

section! {
    /// People with their role and a short biography.
    pub struct Team {
        /// The people, in order.
        pub people: Vec<Person>,
    }
}

/// A person of the company.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Person {
    /// Their full name.
    #[schemars(extend("x-i18n" = "copy"))]
    pub name: String,
    /// Their position, e.g. "Chief Executive Officer".
    #[schemars(extend("x-i18n" = "translate"))]
    pub position: String,
    /// A sentence or two about them.
    #[schemars(extend("x-i18n" = "translate"))]
    pub bio: String,
    /// Their portrait.
    #[serde(default)]
    pub image: Option<Image>,
}

section! {
    /// An ordered approach: phases with their activities.
    pub struct Steps {
        /// The phases, in order.
        pub steps: Vec<Step>,
    }
}

/// A phase of an approach.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Step {
    /// The phase's name.
    #[schemars(extend("x-i18n" = "translate"))]
    pub title: String,
    /// A sentence about it.
    #[schemars(extend("x-i18n" = "translate"))]
    pub text: String,
    /// What happens in it, one line each.
    #[schemars(extend("x-i18n" = "translate"))]
    pub activities: Vec<String>,
}

section! {
    /// Roles a visitor picks from; one is highlighted at a time.
    pub struct RoleSelector {
        /// The roles, in order, e.g. `[CEO, CFO, COO]`.
        #[schemars(extend("x-i18n" = "translate"))]
        pub roles: Vec<String>,
        /// The role highlighted at first; it must be one of `roles`.
        #[schemars(extend("x-i18n" = "translate"))]
        pub default: String,
    }
}

section! {
    /// The contact form beside the "get in touch" details.
    pub struct Contact {
        /// The heading of the details panel.
        #[schemars(extend("x-i18n" = "translate"))]
        pub panel_heading: String,
        /// Opening hours, one line each.
        #[schemars(extend("x-i18n" = "translate"))]
        pub hours: Vec<String>,
        /// The support link under the details.
        pub support: Action,
    }
}

section! {
    /// The company's offices.
    pub struct Offices {
        /// The offices, in order.
        pub offices: Vec<Office>,
    }
}

/// An office with its address and contact details.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Office {
    /// The office's name, e.g. "Corporate Office (India)".
    #[schemars(extend("x-i18n" = "translate"))]
    pub name: String,
    /// Its city.
    #[schemars(extend("x-i18n" = "translate"))]
    pub city: String,
    /// Its postal address. Put it in quotes when it holds a `#`.
    #[schemars(extend("x-i18n" = "copy"))]
    pub address: String,
    /// Its phone number, e.g. "+91 40 4520 8800".
    #[schemars(extend("x-i18n" = "share"))]
    pub phone: String,
    /// Its e-mail address.
    #[schemars(extend("x-i18n" = "share"))]
    pub email: String,
    /// Its opening hours.
    #[schemars(extend("x-i18n" = "translate"))]
    pub hours: String,
}

section! {
    /// Text beside a world map that the build draws from Natural Earth's data,
    /// with a pin at each place.
    pub struct Map {
        /// Markdown beside the map.
        pub text: Markdown,
        /// The places to pin, with their coordinates.
        pub pins: Vec<Pin>,
        /// What the map shows, for people who cannot see it.
        #[schemars(extend("x-i18n" = "translate"))]
        pub alt: String,
    }
}

/// A place on the map.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Pin {
    /// The place's name, shown beside its pin.
    #[schemars(extend("x-i18n" = "translate"))]
    pub label: String,
    /// A word or two under the name, e.g. "Headquarters".
    #[serde(default)]
    #[schemars(extend("x-i18n" = "translate"))]
    pub note: Option<String>,
    /// Degrees north of the equator (south is negative), e.g. 17.44.
    #[schemars(range(min = -90, max = 90))]
    pub latitude: f64,
    /// Degrees east of Greenwich (west is negative), e.g. 78.38.
    #[schemars(range(min = -180, max = 180))]
    pub longitude: f64,
    /// Draw this pin larger and in the accent colour.
    #[serde(default)]
    pub headquarters: bool,
}

section! {
    /// Questions and answers, open one at a time without JavaScript.
    pub struct Faq {
        /// The questions, in order.
        pub questions: Vec<Question>,
    }
}

/// A question and its answer.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Question {
    /// The question.
    #[schemars(extend("x-i18n" = "translate"))]
    pub question: String,
    /// Markdown.
    pub answer: Markdown,
}

section! {
    /// A section of Markdown text.
    pub struct Text {
        /// Markdown.
        pub text: Markdown,
    }
}

/// The hero of a collection's listing page: the article marked `featured: true`,
/// or the newest one, with a "Read Full Article" link to it.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FeaturedArticle {
    /// The collection: a folder of content/pages/, e.g. `insights`.
    #[schemars(extend("x-i18n" = "share"))]
    pub collection: String,
    /// The words on the link to the article.
    #[serde(default = "read_full_article")]
    #[schemars(extend("x-i18n" = "translate"))]
    pub label: String,
}

fn read_full_article() -> String {
    "Read Full Article".to_string()
}

section! {
    /// A collection's articles as cards, newest first: each with its picture,
    /// category, title, description, date, author and a link.
    pub struct Articles {
        /// The collection: a folder of content/pages/, e.g. `insights`.
        #[schemars(extend("x-i18n" = "share"))]
        pub collection: String,
        /// Cards per row on wide screens: 2, 3 (the default) or 4.
        #[serde(default = "three")]
        #[schemars(range(min = 2, max = 4))]
        pub columns: u8,
        /// Show at most this many. Default: all.
        #[serde(default)]
        pub limit: Option<u32>,
        /// Leave out the article the `featured_article` block shows.
        #[serde(default)]
        pub skip_featured: bool,
        /// The words on each card's link.
        #[serde(default = "read_article")]
        #[schemars(extend("x-i18n" = "translate"))]
        pub link_label: String,
    }
}

fn read_article() -> String {
    "Read article".to_string()
}

section! {
    /// A collection of events: those to come as cards, soonest first (paginated
    /// by the collection's `per_page`), and a link to the past ones' archive.
    pub struct Events {
        /// The collection: a folder of content/pages/ of kind `events`.
        #[schemars(extend("x-i18n" = "share"))]
        pub collection: String,
        /// Cards per row on wide screens: 2, 3 (the default) or 4.
        #[serde(default = "three")]
        #[schemars(range(min = 2, max = 4))]
        pub columns: u8,
        /// The words on the link to the past events.
        #[serde(default = "past_events")]
        #[schemars(extend("x-i18n" = "translate"))]
        pub archive_label: String,
    }
}

fn past_events() -> String {
    "Past events".to_string()
}

section! {
    /// A collection of job postings as cards, newest first (paginated by the
    /// collection's `per_page`), with links to each office's and each team's
    /// postings, which work without JavaScript.
    pub struct Jobs {
        /// The collection: a folder of content/pages/ of kind `jobs`.
        #[schemars(extend("x-i18n" = "share"))]
        pub collection: String,
        /// Cards per row on wide screens: 2, 3 (the default) or 4.
        #[serde(default = "three")]
        #[schemars(range(min = 2, max = 4))]
        pub columns: u8,
    }
}
