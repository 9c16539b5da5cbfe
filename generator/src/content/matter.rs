//! What a page file says about itself: the head of a YAML page and the front
//! matter of each kind of Markdown page (a page, an article, an event, a job
//! posting), and how an event's and a job's front matter become what pages see
//! (`entries.rs`). Every model refuses unknown fields; its doc comments are the
//! editors' reference (the schemas and `docs/content.md`).
//!
//! The fields they share (`layout`, `tags`, `draft`, `aliases`,
//! `translation_of`, `translated_from`) are declared once, in `matter!`, which writes each where a
//! model names it: a model's fields stay plain fields in their order, so an
//! unknown one is refused at its line with a suggestion (serde's `flatten`
//! would lose both).

use schemars::JsonSchema;
use serde::de::IgnoredAny;
use serde::Deserialize;

use super::blocks::Block;
use super::entries::{EmploymentType, Event, Job, Place, Salary};
use super::publishing::TimeZone;
use super::values::{
    Date, DateTime, Href, ImageSrc, Layout, SitePath, TranslatedFrom, TranslationOf,
};

/// Declares a page file's model: its own fields as written and, in their places,
/// the shared ones (`shared layout,` …). `layout` and `aliases` take the doc
/// lines written above them (a layout's default and an address's example differ
/// by kind), as `draft` may; `tags` and `translation_of` read alike everywhere.
macro_rules! matter {
    ($(#[$meta:meta])* pub struct $name:ident { $($fields:tt)* }) => {
        matter!(@field [$(#[$meta])*] $name [] $($fields)*);
    };
    (@field [$($meta:tt)*] $name:ident [$($done:tt)*]) => {
        #[derive(Deserialize, JsonSchema)]
        #[serde(deny_unknown_fields)]
        $($meta)*
        pub struct $name { $($done)* }
    };
    (@field $meta:tt $name:ident [$($done:tt)*] $(#[doc = $doc:literal])+ shared layout, $($rest:tt)*) => {
        matter!(@field $meta $name [$($done)*
            $(#[doc = $doc])+
            #[serde(default)]
            pub layout: Option<Layout>,
        ] $($rest)*);
    };
    (@field $meta:tt $name:ident [$($done:tt)*] shared tags, $($rest:tt)*) => {
        matter!(@field $meta $name [$($done)*
            /// Words the page is about, for search.
            #[serde(default)]
            #[schemars(extend("x-i18n" = "translate"))]
            pub tags: Vec<String>,
        ] $($rest)*);
    };
    (@field $meta:tt $name:ident [$($done:tt)*] $(#[doc = $doc:literal])+ shared draft, $($rest:tt)*) => {
        matter!(@field $meta $name [$($done)*
            $(#[doc = $doc])+
            #[serde(default)]
            // A translation may wait while its source is out, or be out first.
            #[schemars(extend("x-i18n" = "own"))]
            pub draft: bool,
        ] $($rest)*);
    };
    (@field $meta:tt $name:ident [$($done:tt)*] shared draft, $($rest:tt)*) => {
        matter!(@field $meta $name [$($done)*]
            /// Not published yet: `site serve` shows it with a Draft badge; `site build`
            /// leaves it out (`--drafts` builds it).
            shared draft,
            $($rest)*);
    };
    (@field $meta:tt $name:ident [$($done:tt)*] $(#[doc = $doc:literal])+ shared aliases, $($rest:tt)*) => {
        matter!(@field $meta $name [$($done)*
            $(#[doc = $doc])+
            #[serde(default)]
            pub aliases: Vec<SitePath>,
        ] $($rest)*);
    };
    (@field $meta:tt $name:ident [$($done:tt)*] shared translation_of, $($rest:tt)*) => {
        matter!(@field $meta $name [$($done)*
            /// In a translation (`about.de.yaml`) whose name differs from the page it
            /// translates: that page's address in the default language, e.g. `/about/`.
            #[serde(default)]
            #[allow(dead_code)]
            pub translation_of: Option<TranslationOf>,
        ] $($rest)*);
    };
    (@field $meta:tt $name:ident [$($done:tt)*] shared translated_from, $($rest:tt)*) => {
        matter!(@field $meta $name [$($done)*
            /// In a translation: what the page it translates said when the translation
            /// was last checked, a fingerprint of each translated field. The editor
            /// writes it when a translation is saved; `site translations --mark-current`
            /// for a file translated elsewhere.
            #[serde(default)]
            pub translated_from: Option<TranslatedFrom>,
        ] $($rest)*);
    };
    (@field $meta:tt $name:ident [$($done:tt)*] $(#[$field_meta:meta])* pub $field:ident : $ty:ty, $($rest:tt)*) => {
        matter!(@field $meta $name [$($done)* $(#[$field_meta])* pub $field: $ty,] $($rest)*);
    };
}

matter! {
    /// A page made of blocks: `content/pages/**/*.yaml`. Its address comes from its
    /// path: `content/pages/about.yaml` is `/about/`.
    #[schemars(title = "Page")]
    pub struct PageHead {
        /// The page's title: the browser tab, search results and social cards.
        #[schemars(extend("x-i18n" = "translate"))]
        pub title: String,
        /// One or two sentences for search results and social cards.
        #[schemars(extend("x-i18n" = "translate"))]
        pub description: String,
        /// The layout the blocks are placed in: a file in templates/layouts/. Default: `page`.
        shared layout,
        shared draft,
        /// Old addresses of this page, each redirected here, e.g. `[/about-us/]`.
        shared aliases,
        shared translation_of,
        shared translated_from,
        /// The sections of the page, top to bottom. Each starts with `- type:` and the
        /// block type's name.
        #[schemars(with = "Vec<Block>")]
        #[allow(dead_code)]
        pub blocks: IgnoredAny,
    }
}

matter! {
    /// The front matter of a Markdown page, between `---` lines at its top.
    #[schemars(title = "Front matter")]
    pub struct FrontMatter {
        /// The page's title, shown as its heading.
        #[schemars(extend("x-i18n" = "translate"))]
        pub title: String,
        /// One or two sentences for search results and social cards.
        #[schemars(extend("x-i18n" = "translate"))]
        pub description: String,
        /// A file in templates/layouts/. Default: `markdown`.
        shared layout,
        /// When the page was written or last changed, YYYY-MM-DD; shown on the page and
        /// in the sitemap. A day after the build's holds the page back until then.
        #[serde(default)]
        pub date: Option<Date>,
        shared tags,
        shared draft,
        /// Old addresses of this page, each redirected here, e.g. `[/old/address/]`.
        shared aliases,
        shared translation_of,
        shared translated_from,
    }
}

matter! {
    /// The front matter of an article: a Markdown page in a collection's folder,
    /// such as `content/pages/insights/`.
    #[schemars(title = "Article front matter")]
    pub struct ArticleMatter {
        /// The article's headline.
        #[schemars(extend("x-i18n" = "translate"))]
        pub title: String,
        /// One or two sentences: the card's text, search results and the feed.
        #[schemars(extend("x-i18n" = "translate"))]
        pub description: String,
        /// The day it is published, YYYY-MM-DD. Articles are listed newest first; a day
        /// after the build's holds the article back until then.
        pub date: Date,
        /// Who wrote it, e.g. "Priya Menon, Chief Technology Officer".
        #[schemars(extend("x-i18n" = "translate"))]
        pub author: String,
        /// Its topic, shown above the title on cards, e.g. "Technology".
        #[schemars(extend("x-i18n" = "translate"))]
        pub category: String,
        /// The article's picture: a file under public/, e.g. /images/insights/ai.svg.
        pub image: ImageSrc,
        /// What the picture shows, for people who cannot see it.
        #[schemars(extend("x-i18n" = "translate"))]
        pub alt: String,
        /// Show this article in the listing's hero. Without one, the newest is shown.
        #[serde(default)]
        pub featured: bool,
        /// A file in templates/layouts/. Default: `article`.
        shared layout,
        shared tags,
        shared draft,
        /// Old addresses of this article, each redirected here.
        shared aliases,
        shared translation_of,
        shared translated_from,
    }
}

matter! {
    /// The front matter of an event: a Markdown page in a collection of kind
    /// `events`, such as `content/pages/events/`.
    #[schemars(title = "Event front matter")]
    pub struct EventMatter {
        /// The event's name.
        #[schemars(extend("x-i18n" = "translate"))]
        pub title: String,
        /// One or two sentences: the card's text, search results and calendars.
        #[schemars(extend("x-i18n" = "translate"))]
        pub description: String,
        /// When it starts, in its own time zone: YYYY-MM-DD HH:MM.
        pub start: DateTime,
        /// When it ends, in its own time zone: YYYY-MM-DD HH:MM.
        pub end: DateTime,
        /// The time zone of `start` and `end`, an IANA name such as `Europe/London`.
        /// Default: the site's `timezone`.
        #[serde(default)]
        pub timezone: Option<TimeZone>,
        /// Where it happens: `Online`, or a venue `{ name, street, city, country }`.
        #[schemars(extend("x-i18n" = "copy"))]
        pub place: Place,
        /// Where visitors register: an https address.
        pub registration: Href,
        /// Who speaks, by name.
        #[serde(default)]
        #[schemars(extend("x-i18n" = "copy"))]
        pub speakers: Vec<String>,
        /// A picture for its card and page: a file under public/.
        #[serde(default)]
        pub image: Option<ImageSrc>,
        /// What the picture shows, for people who cannot see it.
        #[serde(default)]
        #[schemars(extend("x-i18n" = "translate"))]
        pub alt: Option<String>,
        /// Not published yet: shown by `site serve` with a Draft badge, left out of
        /// `site build` (`--drafts` builds it).
        shared draft,
        /// Old addresses of this page, each redirected here, e.g. `[/events/old-name/]`.
        shared aliases,
        shared translation_of,
        shared translated_from,
        /// A file in templates/layouts/. Default: `event`.
        shared layout,
        shared tags,
    }
}

matter! {
    /// The front matter of a job posting: a Markdown page in a collection of kind
    /// `jobs`, such as `content/pages/careers/`.
    #[schemars(title = "Job posting front matter")]
    pub struct JobMatter {
        /// The job's title, e.g. `Senior Cloud Engineer`.
        #[schemars(extend("x-i18n" = "translate"))]
        pub title: String,
        /// One or two sentences: the card's text and search results.
        #[schemars(extend("x-i18n" = "translate"))]
        pub description: String,
        /// Where the job is: an office's `city` from `offices` in site.yaml, or `Remote`.
        #[schemars(extend("x-i18n" = "share"))]
        pub location: String,
        /// For a `Remote` job, the countries applicants may live in, by two-letter
        /// code, e.g. `[GB, IE]`.
        #[serde(default)]
        #[schemars(extend("x-i18n" = "share"))]
        pub applicants_from: Vec<String>,
        /// The team it is in, e.g. `Cloud Engineering`.
        #[schemars(extend("x-i18n" = "translate"))]
        pub team: String,
        /// `full_time`, `part_time`, `contract`, `temporary` or `internship`.
        pub employment_type: EmploymentType,
        /// The day it was posted, YYYY-MM-DD. A day in the future holds it back.
        pub date_posted: Date,
        /// Its last day, YYYY-MM-DD: the first build after it takes it off the site.
        pub valid_through: Date,
        /// What it pays, when it is said.
        #[serde(default)]
        pub salary: Option<Salary>,
        /// Not published yet: shown by `site serve` with a Draft badge, left out of
        /// `site build` (`--drafts` builds it).
        shared draft,
        /// Old addresses of this page, each redirected here.
        shared aliases,
        shared translation_of,
        shared translated_from,
        /// A file in templates/layouts/. Default: `job`.
        shared layout,
    }
}

impl EventMatter {
    /// The event as pages see it; `site_zone` when it names no zone of its own.
    /// An end before its start is an error, as is a time the zone skips.
    pub fn event(
        &self,
        collection: &str,
        site_zone: &TimeZone,
    ) -> Result<Event, (&'static str, String)> {
        use chrono::TimeZone as _;
        let zone = self.timezone.clone().unwrap_or_else(|| site_zone.clone());
        let tz = zone.tz();
        let local = |t: &DateTime, which: &'static str| {
            let naive = t
                .naive()
                .ok_or_else(|| (which, format!("{which} is not a date and time")))?;
            tz.from_local_datetime(&naive).earliest().ok_or_else(|| {
                (
                    which,
                    format!(
                        "`{}` does not exist in {}: the clocks skip it",
                        t.as_str(),
                        zone.0
                    ),
                )
            })
        };
        let start = local(&self.start, "start")?;
        let end = local(&self.end, "end")?;
        if end < start {
            return Err((
                "end",
                format!(
                    "the event ends (`{}`) before it starts (`{}`)",
                    self.end.as_str(),
                    self.start.as_str()
                ),
            ));
        }
        let utc = |t: &chrono::DateTime<chrono_tz::Tz>| {
            t.with_timezone(&chrono::Utc)
                .format("%Y-%m-%dT%H:%M:%SZ")
                .to_string()
        };
        let offset =
            |t: &chrono::DateTime<chrono_tz::Tz>| t.format("%Y-%m-%dT%H:%M:%S%:z").to_string();
        Ok(Event {
            collection: collection.to_string(),
            start: utc(&start),
            end: utc(&end),
            start_local: offset(&start),
            end_local: offset(&end),
            day: start.format("%Y-%m-%d").to_string(),
            end_day: end.format("%Y-%m-%d").to_string(),
            start_time: start.format("%H:%M").to_string(),
            end_time: end.format("%H:%M").to_string(),
            timezone: zone.0.clone(),
            zone: start.format("%Z").to_string(),
            place: self.place.clone(),
            registration: self.registration.as_str().to_string(),
            speakers: self.speakers.clone(),
            image: self.image.clone(),
            alt: self.alt.clone(),
            calendar: String::new(),
        })
    }
}

impl JobMatter {
    pub fn job(&self, collection: &str) -> Result<Job, (&'static str, String)> {
        let remote = self.location.trim().eq_ignore_ascii_case("remote");
        if remote && self.applicants_from.is_empty() {
            return Err(("location", "a Remote job names the countries applicants may live in: add `applicants_from: [GB]` (two-letter codes)".into()));
        }
        if let (Some(posted), Some(last)) = (self.date_posted.naive(), self.valid_through.naive()) {
            if last < posted {
                return Err((
                    "valid_through",
                    format!(
                        "{} is before date_posted ({}): a posting's last day comes after the day it is posted",
                        self.valid_through.as_str(),
                        self.date_posted.as_str()
                    ),
                ));
            }
        }
        if let Some(s) = &self.salary {
            if s.max < s.min {
                return Err((
                    "salary",
                    format!("its max ({}) is below its min ({})", s.max, s.min),
                ));
            }
        }
        Ok(Job {
            collection: collection.to_string(),
            location: if remote {
                "Remote".into()
            } else {
                self.location.trim().to_string()
            },
            applicants_from: self.applicants_from.clone(),
            team: self.team.clone(),
            employment_type: self.employment_type,
            employment: self.employment_type.label(),
            date_posted: self.date_posted.clone(),
            valid_through: self.valid_through.clone(),
            salary: self.salary.clone(),
            salary_text: self.salary.as_ref().map(Salary::text),
            remote,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::content::yaml;

    fn errors<T: for<'a> Deserialize<'a>>(text: &str) -> Vec<yaml::Error> {
        let node = yaml::parse(text).unwrap();
        yaml::from_node::<T>(&node, "").map(|_| ()).unwrap_err()
    }

    #[test]
    fn a_shared_field_is_read_like_any_other() {
        let node = yaml::parse("title: T\ndescription: D\ndraft: true\ntags: [a]\n").unwrap();
        let fm: FrontMatter = yaml::from_node(&node, "").unwrap();
        assert!(fm.draft);
        assert_eq!(fm.tags, ["a"]);
        assert!(fm.layout.is_none() && fm.aliases.is_empty());
    }

    #[test]
    fn an_unknown_field_is_refused_at_its_line_naming_the_fields_in_their_order() {
        let e = &errors::<JobMatter>("title: T\ndescription: D\ncolour: red\n")[0];
        assert_eq!(
            (e.path.as_str(), e.span.map(|s| s.line)),
            ("colour", Some(3))
        );
        assert!(
            e.message.ends_with(
                "`salary`, `draft`, `aliases`, `translation_of`, `translated_from`, `layout`"
            ),
            "{}",
            e.message
        );
        let e = &errors::<EventMatter>("title: T\ndraf: true\n")[0];
        assert!(e.message.contains("did you mean `draft`?"), "{}", e.message);
    }
}
