//! The one MiniJinja environment factory. Every function, filter and global a
//! template can use is registered here, so this file is the templates' whole
//! vocabulary (a test holds this table to the names registered below; `page`
//! and `now` are each render's context, `render/mod.rs`):
//!
//! | name | kind | what it gives |
//! |---|---|---|
//! | `page` | context | the page being rendered: its route, language, fields and blocks |
//! | `now` | context | the render's time in UTC, `2026-12-03T09:30:00Z`, to compare with an event's `end` |
//! | `site` | global | `content/site.yaml` |
//! | `base_url`, `year` | globals | the public address; the copyright year |
//! | `pages` | global | every page's `route`, `title`, `date` |
//! | `pages_in(section)` | function | a section's pages, newest first |
//! | `listing(collection, by=…, value=…)` | function | page 1 of a collection's listing in the page's language (else the default's): `items`, `links`, `prev`, `next`, `index`, `name` |
//! | `listing_at(route)` | function | the listing page at an address, or `none` |
//! | `facets(collection, by)` | function | a collection's categories, offices or teams in the page's language: `name`, `url`, `count` |
//! | `facet_url(collection, by, value)` | function | `/insights/category/cloud/`, `/de/insights/category/strategie/` |
//! | `articles(collection)` | function | a collection's articles in the listing the page's language shows, newest first |
//! | `featured_article(collection)` | function | the article that listing leads with: the newest marked `featured`, else the newest |
//! | `article_neighbours(route)` | function | the newer and older articles beside an article, in its language |
//! | `opening(translation_key)` | function | a job posting's opening (`content::openings`): until when it takes applications, and from which countries; the application form's props |
//! | `nav_active(route)` | function | the navigation link a route belongs to |
//! | `island(name, props, hydrate=…)` | function | an island's server HTML and marker |
//! | `island_scripts()` | function | the runtime and preloads the page's islands need |
//! | `asset(path)` | function | the URL of a bundled entry or a `public/` file |
//! | `fonts()` | function | the URLs of the web fonts the stylesheets load |
//! | `icon(name, size=…, class=…)` | function | an icon as inline SVG |
//! | `image(src, alt, eager=…, class=…, sizes=…)` | function | a `<picture>` (or SVG `<img>`) with its size |
//! | `social_card(title, eyebrow=…)` | function | the URL of the page's 1200×630 social card |
//! | `world_map(pins)` | function | a world map drawn at build time, with its pins placed |
//! | `organization_jsonld()` | function | schema.org data about the company |
//! | `structured_data(route, image)` | function | an event's or a job posting's schema.org data |
//! | `markdown`, `markdown_inline` | filters | Markdown to HTML |
//! | `date_long` | filter | `2026-03-01` → `March 1, 2026`, in the page's language (`1. März 2026`) |
//! | `t(key, name=…, default=…)` | function | the page's language's words for `key` (`content/strings/<code>.yaml`), `{name}` filled in |
//! | `label(text)` | function | a label of site.yaml (navigation, footer) in the page's language |
//! | `localize(href)` | function | an address of site.yaml, to its translation in the page's language when there is one |
//! | `localized_link` | filter | a `{label, href}` of site.yaml with both in the page's language |
//! | `words(section)` | function | every text of a strings section in the page's language, for an island |
//! | `email_breaks` | filter | an e-mail address that wraps only at `@` and dots |
//! | `language_name(code)` | function | a language's name in the page's language, from CLDR (`Englisch`) |
//! | `country_name` | filter | a country's name (`GB`) in the page's language, from CLDR |
//! | `countries()` | function | every country as `[code, name]`, in the page's language and its order |

use std::path::Path;
use std::sync::Arc;

use minijinja::value::{Kwargs, Serde};
use minijinja::{path_loader, Environment, State, UndefinedBehavior, Value};

use super::assets::{asset_url, organization_jsonld};
use super::icons::Icons;
use super::images::{Images, SocialCards, WorldMaps};
use super::islands::Islands;
use super::languages::{self, SiteLanguages};
use super::pages::{self, Listed, PageList};
use super::ssr;
use super::text;
use super::BuildValues;
use crate::bundle::Bundle;
use crate::content::references::Places;
use crate::content::Content;

/// Everything the environment is made from.
pub struct Inputs<'a> {
    pub root: &'a Path,
    pub content: &'a Content,
    pub settings: &'a BuildValues,
    pub bundle: Arc<Bundle>,
    pub ssr: Arc<ssr::Renderer>,
    /// Where lucide's icons are (`node_modules`), when the site has packages.
    pub node_modules: Option<&'a Path>,
    /// Makes the variants of raster images and the social cards, cached.
    pub images: Arc<crate::images::Processor>,
    /// Node, which draws maps, when it was found.
    pub node: Option<&'a Path>,
    /// Every job posting's opening (`content::openings::openings`).
    pub openings: &'a [crate::content::openings::Opening],
}

pub fn environment(inputs: Inputs, translations: Arc<SiteLanguages>) -> Environment<'static> {
    let Inputs {
        root,
        content,
        settings,
        bundle,
        ssr,
        node_modules,
        images: processor,
        node,
        openings,
    } = inputs;
    let mut env = Environment::new();
    env.set_loader(path_loader(root.join("templates")));
    // A renderer is made anew whenever a template changes (its hash is part of
    // the renderer's key), so a lookup need not stat the file each time: that
    // was a stat per template per page.
    env.set_auto_reload(false);
    env.set_undefined_behavior(UndefinedBehavior::Strict);
    env.set_debug(true);
    env.set_formatter(html_formatter);
    // The social card's SVG template is markup too.
    env.set_auto_escape_callback(|name| {
        if name.ends_with(".svg") {
            minijinja::AutoEscape::Html
        } else {
            minijinja::default_auto_escape_callback(name)
        }
    });

    // Globals.
    env.add_global("site", Value::from(Serde(&content.config)));
    env.add_global("base_url", Value::from(settings.base_url.clone()));
    env.add_global("year", Value::from(settings.year));
    let listed: Vec<Arc<Listed>> = content
        .pages
        .iter()
        .map(|p| Arc::new(Listed::of(p, content.languages())))
        .collect();
    let listing = Arc::new(pages::Listing::new(&listed, content.listings.clone()));
    env.add_global("pages", Value::from_object(PageList(listed)));

    // Pages and navigation.
    let l = listing.clone();
    env.add_function("pages_in", move |section: &str| {
        pages::pages_in(&l, section)
    });
    // A page's lists are its language's: the publish step made them per language.
    let (l, tr) = (listing.clone(), translations.clone());
    env.add_function(
        "listing",
        move |state: &State, collection: &str, by: Option<&str>, value: Option<&str>| {
            pages::listing(&l, languages::page_lang(&tr, state), collection, by, value)
        },
    );
    let l = listing.clone();
    env.add_function("listing_at", move |route: &str| {
        pages::listing_at(&l, route)
    });
    let (l, tr) = (listing.clone(), translations.clone());
    env.add_function(
        "facets",
        move |state: &State, collection: &str, by: &str| {
            pages::facets(&l, languages::page_lang(&tr, state), collection, by)
        },
    );
    let (l, tr) = (listing.clone(), translations.clone());
    env.add_function(
        "facet_url",
        move |state: &State, collection: &str, by: &str, value: &str| {
            pages::facet_url(&l, languages::page_lang(&tr, state), collection, by, value)
        },
    );
    // A job posting's opening (its id, closing moment, countries), by the page's
    // translation key, as the applications' table has it.
    let openings: std::collections::HashMap<String, Value> = openings
        .iter()
        .map(|o| (o.job_id.clone(), Value::from(Serde(o))))
        .collect();
    env.add_function("opening", move |translation_key: &str| {
        openings
            .get(&crate::content::openings::job_id_of(translation_key))
            .cloned()
            .unwrap_or(Value::UNDEFINED)
    });
    let (l, tr) = (listing.clone(), translations.clone());
    env.add_function("articles", move |state: &State, collection: &str| {
        pages::articles_value(&l, languages::page_lang(&tr, state), collection)
    });
    let (l, tr) = (listing.clone(), translations.clone());
    env.add_function(
        "featured_article",
        move |state: &State, collection: &str| {
            pages::featured_article(&l, languages::page_lang(&tr, state), collection)
        },
    );
    env.add_function("article_neighbours", move |route: &str| {
        pages::article_neighbours(&listing, route)
    });
    let nav: Vec<String> = content
        .config
        .nav
        .iter()
        .map(|l| l.href.as_str().to_string())
        .collect();
    env.add_function("nav_active", move |route: &str| {
        pages::nav_active(&nav, route)
    });

    // Islands.
    let islands = Arc::new(Islands {
        bundle: bundle.clone(),
        ssr,
    });
    let placing = islands.clone();
    env.add_function(
        "island",
        move |state: &mut State, name: String, props: Option<Value>, kwargs: Kwargs| {
            placing.place(state, &name, props.unwrap_or(Value::UNDEFINED), kwargs)
        },
    );
    env.add_function("island_scripts", move |state: &mut State| {
        islands.scripts(state)
    });

    // Assets, icons, images.
    let fonts: Vec<String> = bundle.fonts().into_iter().map(String::from).collect();
    let font_files = bundle
        .files()
        .filter(|(url, _)| url.ends_with(".woff2"))
        .map(|(_, file)| file.clone())
        .collect();
    // The face of the page's script is preloaded: the Arabic face on pages in a
    // language written in Arabic, the Latin face elsewhere. The other loads
    // only when text of its script is shown (its `unicode-range`), swapping in.
    let tr = translations.clone();
    env.add_function("fonts", move |state: &State| {
        let arabic = languages::written_in_arabic(&languages::page_language(&tr, state));
        let wanted: Vec<String> = fonts
            .iter()
            .filter(|url| arabic == url.contains("arabic"))
            .cloned()
            .collect();
        Value::from(wanted)
    });
    let public = root.join("public");
    env.add_function("asset", move |path: &str| asset_url(&bundle, &public, path));
    let icons = Icons::new(root, Places::of(root, node_modules).icons);
    env.add_function("icon", move |name: &str, kwargs: Kwargs| {
        icons.render(name, kwargs)
    });
    let images = Images::new(root.join("public"), processor);
    env.add_function(
        "image",
        move |state: &mut State, src: &str, alt: &str, kwargs: Kwargs| {
            images.render(state, src, alt, kwargs)
        },
    );
    let social = SocialCards {
        cards: crate::images::social::Cards::new(root, font_files),
    };
    env.add_function(
        "social_card",
        move |state: &mut State, title: &str, kwargs: Kwargs| social.render(state, title, kwargs),
    );
    let maps = WorldMaps {
        maps: crate::images::maps::Maps::new(
            root,
            node.map(Path::to_path_buf),
            node_modules.map(Path::to_path_buf),
        ),
    };
    env.add_function("world_map", move |state: &mut State, pins: Value| {
        maps.render(state, pins)
    });
    let organization = organization_jsonld(&content.config, &settings.base_url);
    env.add_function("organization_jsonld", move || {
        Value::from_safe_string(organization.clone())
    });
    let pages_by_route: std::collections::HashMap<String, Arc<crate::content::Page>> = content
        .pages
        .iter()
        .filter(|p| p.event.is_some() || p.job.is_some())
        .map(|p| (p.route.clone(), p.clone()))
        .collect();
    let config = content.config.clone();
    let languages = content.languages().clone();
    let base = settings.base_url.clone();
    env.add_function("structured_data", move |route: &str, image: &str| {
        let script = pages_by_route
            .get(route)
            .map(|p| super::structured::script(&config, &base, p, languages.code(p.lang), image))
            .unwrap_or_default();
        Value::from_safe_string(script)
    });

    // Filters.
    env.add_filter("markdown", text::markdown_filter);
    env.add_filter("markdown_inline", text::markdown_inline_filter);
    let tr = translations.clone();
    env.add_filter("date_long", move |state: &State, value: &str| {
        languages::date_long(&tr, state, value)
    });

    // Languages.
    let tr = translations.clone();
    env.add_function("t", move |state: &State, key: &str, kwargs: Kwargs| {
        languages::t(&tr, state, key, kwargs)
    });
    let tr = translations.clone();
    env.add_filter("localized_link", move |state: &State, link: Value| {
        languages::localized_link(&tr, state, link)
    });
    let tr = translations.clone();
    env.add_function("label", move |state: &State, text: &str| {
        languages::label(&tr, state, text)
    });
    let tr = translations.clone();
    env.add_function("localize", move |state: &State, href: &str| {
        languages::localize(&tr, state, href)
    });
    let tr = translations.clone();
    env.add_function("words", move |state: &State, section: &str| {
        languages::words(&tr, state, section)
    });
    env.add_filter("email_breaks", text::email_breaks);

    // Names no editor typed, in the page's language, from CLDR.
    let names = Arc::new(super::names::Names::new(node_modules));
    let (n, tr) = (names.clone(), translations.clone());
    env.add_function("language_name", move |state: &State, code: &str| {
        n.language(&languages::page_language(&tr, state), code)
            .map_err(names_error)
    });
    let (n, tr) = (names.clone(), translations.clone());
    env.add_filter("country_name", move |state: &State, code: &str| {
        n.country(&languages::page_language(&tr, state), code)
            .map_err(names_error)
    });
    env.add_function("countries", move |state: &State| {
        names
            .countries(&languages::page_language(&translations, state))
            .map(|all| {
                all.into_iter()
                    .map(|(code, name)| Value::from(vec![code, name]))
                    .collect::<Vec<_>>()
            })
            .map_err(names_error)
    });
    env
}

fn names_error(e: super::names::NamesError) -> minijinja::Error {
    minijinja::Error::new(minijinja::ErrorKind::InvalidOperation, e.to_string())
}

/// A page's body in the templates (`page.content`): HTML the build made from
/// Markdown, written into the page as it is, piece by piece, never copied whole.
#[derive(Debug)]
pub struct Body(pub crate::html::Html);

impl minijinja::value::Object for Body {
    fn is_true(self: &std::sync::Arc<Self>) -> bool {
        !self.0.is_empty()
    }

    fn render(self: &std::sync::Arc<Self>, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(&self.0, f)
    }
}

/// MiniJinja's formatter, but escaping only what HTML requires (`&<>"'`), so URLs
/// read as written (`/about/`, not `&#x2f;about&#x2f;`); a page's body goes in
/// as it is.
fn html_formatter(
    out: &mut minijinja::Output,
    state: &mut State,
    value: &Value,
) -> Result<(), minijinja::Error> {
    if let Some(body) = value.downcast_object_ref::<Body>() {
        for piece in body.0.pieces() {
            out.write_str(piece).map_err(minijinja::Error::from)?;
        }
        return Ok(());
    }
    match (state.auto_escape(), value.as_str()) {
        (minijinja::AutoEscape::Html, Some(text)) if !value.is_safe() => {
            let mut last = 0;
            for (i, c) in text.char_indices() {
                let entity = match c {
                    '&' => "&amp;",
                    '<' => "&lt;",
                    '>' => "&gt;",
                    '"' => "&quot;",
                    '\'' => "&#39;",
                    _ => continue,
                };
                out.write_str(&text[last..i])
                    .map_err(minijinja::Error::from)?;
                out.write_str(entity).map_err(minijinja::Error::from)?;
                last = i + 1;
            }
            out.write_str(&text[last..]).map_err(minijinja::Error::from)
        }
        _ => minijinja::escape_formatter(out, state, value),
    }
}

#[cfg(test)]
mod vocabulary {
    use std::collections::BTreeSet;

    /// The names the table at the top of this file lists, but the render's context.
    fn documented(source: &str) -> BTreeSet<String> {
        let name = regex::Regex::new(r"`([a-z_]+)").expect("a pattern");
        source
            .lines()
            .filter_map(|l| l.strip_prefix("//! | `"))
            .filter(|row| !row.contains("| context |"))
            .flat_map(|row| {
                let first = row.split(" | ").next().unwrap_or("").to_string();
                name.captures_iter(&format!("`{first}"))
                    .map(|c| c[1].to_string())
                    .collect::<Vec<_>>()
            })
            .collect()
    }

    /// The names this file registers as functions, filters and globals.
    fn registered(source: &str) -> BTreeSet<String> {
        let call = regex::Regex::new(r#"add_(?:function|filter|global)\(\s*"([a-z_]+)""#)
            .expect("a pattern");
        call.captures_iter(source)
            .map(|c| c[1].to_string())
            .collect()
    }

    #[test]
    fn the_table_at_the_top_names_every_registered_name_and_no_other() {
        let source = include_str!("environment.rs");
        let (documented, registered) = (documented(source), registered(source));
        assert!(registered.len() > 20, "{registered:?}");
        let missing: Vec<_> = registered.difference(&documented).collect();
        let stale: Vec<_> = documented.difference(&registered).collect();
        assert!(
            missing.is_empty() && stale.is_empty(),
            "not in the table: {missing:?}; in the table but not registered: {stale:?}"
        );
    }
}
