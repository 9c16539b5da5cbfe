//! `content/site.yaml`: company facts, navigation, footer, contact details, storage.
//!
//! One piece (614 lines): this is the model of one file, and its structs are
//! read in the order an editor meets them in `site.yaml`; its doc comments
//! become the schema and `docs/content.md`, so splitting it would scatter one
//! file's reference across rooms.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::publishing::{Collection, Office, Redirect, TimeZone};
use super::values::{Href, Icon};

/// `content/site.yaml`: the company, its navigation, footer and contact details,
/// and how the site is built.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "Site")]
pub struct SiteConfig {
    /// The company name, used in titles and the copyright line.
    pub name: String,
    /// The public address the site is published at, e.g. `https://www.example.com`.
    pub base_url: String,
    /// Where the site is published: `cloudflare-pages` (the default), `netlify`,
    /// `github-pages` or `nginx`. It decides the host's own files in the output
    /// (`_headers`, `_nginx.conf`) and whether precompressed twins ship.
    #[serde(default)]
    pub host: Host,
    /// The languages the site is written in, each `{ code, name, direction,
    /// date_format }`. The first is the default, served at `/`; the pages of the
    /// others are served under `/<code>/` (`about.de.yaml` → `/de/about/`).
    /// Default: English alone.
    #[serde(default = "super::languages::default_languages")]
    pub languages: Vec<super::languages::Language>,
    /// A short line shown beside the name in the footer.
    pub tagline: String,
    /// The meta description of pages that do not set their own.
    pub description: String,
    /// The company's key figures, used across pages.
    pub figures: Figures,
    /// The header's links, in order.
    pub nav: Vec<Link>,
    /// The call-to-action button at the end of the header.
    pub header_cta: Link,
    /// The footer's text and links.
    pub footer: Footer,
    /// The company's main contact details.
    pub contact: Contact,
    /// Links to the company's social media profiles.
    pub social: Vec<SocialLink>,
    /// Folders of content/pages/ whose Markdown pages are the entries of a
    /// collection: `insights` (articles: dated, listed newest first, with a page
    /// per category and an Atom feed), or `{ name: events, kind: events }`
    /// (`articles`, `events` or `jobs`), with `per_page` for its listing's pages.
    #[serde(default)]
    #[schemars(with = "Vec<super::publishing::CollectionEntry>")]
    pub collections: Vec<Collection>,
    /// The time zone the build's day is counted in, an IANA name such as
    /// `Asia/Kolkata`: a page dated after today is held back until that day, a job
    /// whose `valid_through` has passed is taken off. Default: `UTC`.
    #[serde(default)]
    pub timezone: TimeZone,
    /// Old addresses that answer with a redirect, besides each page's `aliases`:
    /// `{ from: /old/, to: /new/ }`; `to` may be another site.
    #[serde(default)]
    pub redirects: Vec<Redirect>,
    /// The offices job postings are at, with their postal addresses.
    #[serde(default)]
    pub offices: Vec<Office>,
    /// Colour the code of fenced blocks in Markdown (```` ```rust ````) at build
    /// time, with the site's palette. Default: on.
    #[serde(default = "yes")]
    pub highlight_code: bool,
    /// Where the contact form's attachments go.
    #[serde(default)]
    pub storage: Storage,
    /// The job application form's settings.
    #[serde(default)]
    pub careers: Careers,
    /// Page-weight budgets, checked by every build.
    #[serde(default)]
    pub budgets: Option<Budgets>,
    /// How long the build waits for its helper processes.
    #[serde(default)]
    pub timeouts: Timeouts,
    /// Build a search index of every page's main content (`data-pagefind-body`)
    /// into `/pagefind/`, for the header's search.
    #[serde(default)]
    pub search: bool,
    /// The content editor at `/admin/`: `site serve` always has it; the live
    /// site when `enabled`.
    #[serde(default)]
    pub admin: Admin,
    /// How translations show: what a language's lists hold, and whether a
    /// translation older than its source says so.
    #[serde(default)]
    pub translations: TranslationSettings,
}

/// How the site shows its translations.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TranslationSettings {
    /// A language's list pages (`/de/insights/`) also list the default
    /// language's entries that have no translation in it, marked as written in
    /// the default language. Off: only the language's own entries. Default: on.
    #[serde(default = "on")]
    pub untranslated_entries: bool,
    /// A translation whose source's text changed since it was translated says
    /// so at its top, in its own language, with a link to the source. Off: only
    /// `site check` and the build's warnings say it. Default: on.
    #[serde(default = "on")]
    pub stale_notice: bool,
}

impl Default for TranslationSettings {
    fn default() -> TranslationSettings {
        TranslationSettings {
            untranslated_entries: true,
            stale_notice: true,
        }
    }
}

fn on() -> bool {
    true
}

/// The content editor at `/admin/` on the live site: the GitHub repository its
/// saves are commits to, and how editors sign in.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Admin {
    /// Put the editor at `/admin/` in production builds too. Default: off.
    #[serde(default)]
    pub enabled: bool,
    /// The GitHub repository of this site, `owner/name`; needed when `enabled`.
    #[serde(default)]
    #[schemars(regex(pattern = r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$"))]
    pub repo: Option<String>,
    /// The branch the live site is built from. Default: `main`.
    #[serde(default = "main_branch")]
    pub branch: String,
    /// `simple`: saving publishes, a commit on `branch`. `editorial_workflow`:
    /// saving makes a draft, a branch with a pull request (and the host's preview
    /// of it); publishing merges it.
    #[serde(default)]
    pub publish_mode: PublishMode,
    /// The OAuth helper editors sign in through with "Sign In with GitHub", e.g.
    /// `https://sveltia-cms-auth.<account>.workers.dev`, or `https://api.netlify.com`
    /// for Netlify's. Without it, editors sign in with a personal access token.
    #[serde(default)]
    #[schemars(regex(pattern = "^https://"))]
    pub auth_url: Option<String>,
    /// GitHub's REST API, for GitHub Enterprise Server. Default: `https://api.github.com`.
    #[serde(default)]
    #[schemars(regex(pattern = "^https?://"))]
    pub api_root: Option<String>,
}

impl Default for Admin {
    fn default() -> Admin {
        Admin {
            enabled: false,
            repo: None,
            branch: main_branch(),
            publish_mode: PublishMode::default(),
            auth_url: None,
            api_root: None,
        }
    }
}

fn main_branch() -> String {
    "main".into()
}

/// How the editor publishes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PublishMode {
    /// Saving publishes.
    #[default]
    Simple,
    /// Saving makes a draft (a branch and a pull request); publishing merges it.
    EditorialWorkflow,
}

impl SiteConfig {
    /// The texts of its links (navigation, footer), which each language's
    /// strings translate under `labels`.
    pub fn labels(&self) -> Vec<String> {
        let mut labels: Vec<String> = self
            .nav
            .iter()
            .chain([&self.header_cta])
            .chain(self.footer.groups.iter().flat_map(|g| g.links.iter()))
            .chain(self.footer.legal.iter())
            .map(|l| l.label.clone())
            .chain(self.footer.groups.iter().map(|g| g.title.clone()))
            .collect();
        labels.sort();
        labels.dedup();
        labels
    }
}

/// How long the build waits, in seconds, for the processes it runs: one that does
/// not answer in time (an island that loops, say) is stopped, and the build fails
/// saying what it was doing.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Timeouts {
    /// The server render of one island on one page, in seconds.
    #[serde(default = "default_render_timeout")]
    #[schemars(range(min = 0.1, max = 3600))]
    pub render: f64,
    /// One run of the bundler (esbuild) over the islands and styles, in seconds.
    #[serde(default = "default_bundle_timeout")]
    #[schemars(range(min = 0.1, max = 3600))]
    pub bundle: f64,
    /// One run of the search indexer (Pagefind) over the pages, in seconds.
    #[serde(default = "default_index_timeout")]
    #[schemars(range(min = 0.1, max = 3600))]
    pub index: f64,
}

fn default_render_timeout() -> f64 {
    10.0
}

fn default_bundle_timeout() -> f64 {
    60.0
}

fn default_index_timeout() -> f64 {
    60.0
}

impl Default for Timeouts {
    fn default() -> Self {
        Timeouts {
            render: default_render_timeout(),
            bundle: default_bundle_timeout(),
            index: default_index_timeout(),
        }
    }
}

impl Timeouts {
    /// The fields that are not a number of seconds from 0.1 to 3600.
    pub fn problems(&self) -> Vec<(&'static str, String)> {
        [
            ("timeouts.render", self.render),
            ("timeouts.bundle", self.bundle),
        ]
        .into_iter()
        .filter(|(_, s)| !(0.1..=3600.0).contains(s))
        .map(|(field, s)| {
            (
                field,
                format!("expected a number of seconds from 0.1 to 3600, found {s}"),
            )
        })
        .collect()
    }

    pub fn render_limit(&self) -> std::time::Duration {
        limit(self.render, default_render_timeout())
    }

    pub fn bundle_limit(&self) -> std::time::Duration {
        limit(self.bundle, default_bundle_timeout())
    }

    pub fn index_limit(&self) -> std::time::Duration {
        limit(self.index, default_index_timeout())
    }
}

/// Seconds as a duration; out-of-range values (refused by the settings stage)
/// fall back to the default.
fn limit(seconds: f64, default: f64) -> std::time::Duration {
    let seconds = if (0.1..=3600.0).contains(&seconds) {
        seconds
    } else {
        default
    };
    std::time::Duration::from_secs_f64(seconds)
}

/// Limits on what a page loads before it is interactive, in KB (1,000 bytes) after gzip.
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Budget {
    /// JavaScript loaded at first, in KB after gzip.
    #[serde(default)]
    pub javascript_kb: Option<f64>,
    /// CSS, in KB after gzip.
    #[serde(default)]
    pub css_kb: Option<f64>,
    /// The HTML document, in KB after gzip.
    #[serde(default)]
    pub html_kb: Option<f64>,
    /// The web fonts a page preloads, in KB as served (woff2 is compressed already).
    #[serde(default)]
    pub font_kb: Option<f64>,
}

/// Page-weight budgets: a default, and routes with their own.
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Budgets {
    /// The budget of every route…
    pub default: Budget,
    /// …except these, whose limits replace the default's where they are set…
    #[serde(default)]
    pub routes: std::collections::BTreeMap<String, Budget>,
    /// …and the pages of these layouts (`job`: every job posting, with its
    /// application form), where their route has no budget of its own.
    #[serde(default)]
    pub layouts: std::collections::BTreeMap<String, Budget>,
}

impl Budgets {
    /// The limits that apply to `route`, a page of `layout`; a key may be written
    /// with or without its trailing slash (`/contact` is `/contact/`).
    pub fn for_route(&self, route: &str, layout: &str) -> Budget {
        let own = self
            .routes
            .iter()
            .find(|(key, _)| super::canonical_href(key) == route)
            .map(|(_, b)| b.clone())
            .or_else(|| self.layouts.get(layout).cloned())
            .unwrap_or_default();
        Budget {
            javascript_kb: own.javascript_kb.or(self.default.javascript_kb),
            css_kb: own.css_kb.or(self.default.css_kb),
            html_kb: own.html_kb.or(self.default.html_kb),
            font_kb: own.font_kb.or(self.default.font_kb),
        }
    }
}

fn yes() -> bool {
    true
}

impl SiteConfig {
    /// The collection whose folder is `name`.
    pub fn collection(&self, name: &str) -> Option<&Collection> {
        self.collections.iter().find(|c| c.name == name)
    }
}

/// A link with its words.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Link {
    /// The words of the link.
    pub label: String,
    /// Where it leads: a path on this site, a #fragment, or an https, http, mailto or tel address.
    pub href: Href,
}

#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SocialLink {
    /// The network's name, read out to screen-reader users, e.g. "LinkedIn".
    pub label: String,
    /// The profile's address.
    pub href: Href,
    /// A lucide icon name or a file in templates/icons/, e.g. `linkedin`.
    pub icon: Icon,
}

#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Figures {
    /// Countries the company works in, as shown, e.g. "54+".
    pub countries: String,
    /// Revenue, as shown, e.g. "19.3 billion USD".
    pub revenue: String,
    /// Years in business, as shown.
    pub years: String,
    /// Project success rate, as shown, e.g. "98%".
    pub success_rate: String,
    /// Number of employees, as shown.
    pub employees: String,
    /// The year the company was founded.
    pub founded: String,
}

#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Footer {
    /// A sentence about the company.
    pub about: String,
    /// Columns of links, each with a title.
    pub groups: Vec<LinkGroup>,
    /// The legal links of the bottom line.
    pub legal: Vec<Link>,
}

#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LinkGroup {
    /// The column's title.
    pub title: String,
    /// Its links, in order.
    pub links: Vec<Link>,
}

#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Contact {
    /// The corporate office's postal address.
    pub address: String,
    /// The main phone number.
    pub phone: String,
    /// The main e-mail address.
    pub email: String,
    /// Where the contact form's messages go: `console` (the default: the browser's
    /// console only) or `supabase`, the `contact_messages` table of the storage's
    /// Supabase project (docs/deploy.md).
    #[serde(default)]
    pub messages: MessageDelivery,
    /// How long messages are kept in that table before a nightly job deletes them,
    /// in months (1 to 120). Default: 12. The privacy policy should say the same.
    #[serde(default)]
    pub retention_months: RetentionMonths,
}

/// The job application form: how long applications and CVs are kept.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Careers {
    /// How long applications and their CVs are kept before a nightly job deletes
    /// them, in months (1 to 120). Default: 6. The applicants' privacy notice
    /// must say the same (a test holds them together).
    #[serde(default = "six_months")]
    pub retention_months: RetentionMonths,
}

impl Default for Careers {
    fn default() -> Careers {
        Careers {
            retention_months: six_months(),
        }
    }
}

fn six_months() -> RetentionMonths {
    RetentionMonths(6)
}

/// Where the contact form's messages go.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum MessageDelivery {
    /// Written to the browser's console only.
    #[default]
    Console,
    /// Inserted into the `contact_messages` table of the Supabase project.
    Supabase,
}

impl MessageDelivery {
    pub fn as_str(self) -> &'static str {
        match self {
            MessageDelivery::Console => "console",
            MessageDelivery::Supabase => "supabase",
        }
    }
}

/// How many months contact messages are kept, checked where it is written
/// (`values::check_retention_months`), so a wrong one is reported with the file's
/// other mistakes. Default: 12.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct RetentionMonths(pub u32);

impl Default for RetentionMonths {
    fn default() -> RetentionMonths {
        RetentionMonths(12)
    }
}

impl<'de> Deserialize<'de> for RetentionMonths {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(rename = "site.months")]
        struct Written(u32);
        Written::deserialize(d).map(|Written(months)| RetentionMonths(months))
    }
}

impl JsonSchema for RetentionMonths {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        std::borrow::Cow::Borrowed("RetentionMonths")
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "integer",
            "minimum": 1,
            "maximum": 120,
            "description": "Months kept, 1 to 120."
        })
    }
}

/// Where the contact form uploads attachments. An empty `url` means the site's own
/// origin, which `site serve` provides. `SITE_STORAGE_URL` and `SITE_STORAGE_ANON_KEY`
/// override these at build time (see `settings.rs`).
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Storage {
    /// The storage server's origin, e.g. `https://abc.supabase.co`; empty for the
    /// site's own origin (`site serve`).
    #[serde(default)]
    pub url: String,
    /// The public (anon) key the browser sends.
    #[serde(default)]
    pub anon_key: String,
    /// The bucket attachments go to.
    #[serde(default = "default_bucket")]
    pub bucket: String,
}

fn default_bucket() -> String {
    "contact-attachments".to_string()
}

impl Default for Storage {
    fn default() -> Self {
        Storage {
            url: String::new(),
            anon_key: String::new(),
            bucket: default_bucket(),
        }
    }
}

/// Where the site is published.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize, schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum Host {
    /// Reads `_headers`; redirects `/about` to `/about/` with 308; compresses itself.
    #[default]
    CloudflarePages,
    /// Reads `_headers`; redirects `/about` to `/about/` with 301; compresses itself.
    Netlify,
    /// Sends no custom headers (the policies go into each page as `<meta>`);
    /// redirects `/about` to `/about/` with 301; compresses itself.
    GithubPages,
    /// Includes `_nginx.conf`, written by the build; serves the `.br`/`.gz` twins.
    Nginx,
}

impl Host {
    pub const ALL: [Host; 4] = [
        Host::CloudflarePages,
        Host::Netlify,
        Host::GithubPages,
        Host::Nginx,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Host::CloudflarePages => "cloudflare-pages",
            Host::Netlify => "netlify",
            Host::GithubPages => "github-pages",
            Host::Nginx => "nginx",
        }
    }

    pub fn parse(name: &str) -> Result<Host, String> {
        Host::ALL
            .into_iter()
            .find(|h| h.name() == name)
            .ok_or_else(|| {
                let names: Vec<&str> = Host::ALL.iter().map(|h| h.name()).collect();
                format!(
                    "unknown host `{name}`, expected one of {}",
                    names.join(", ")
                )
            })
    }

    /// Whether the host serves precompressed twins (`main.css.br`) by itself.
    /// Cloudflare, Netlify and GitHub Pages compress on their own, so for them
    /// the twins would only be extra public files.
    pub fn serves_precompressed(self) -> bool {
        self == Host::Nginx
    }

    /// Whether the host can send the site's own headers at all.
    pub fn sends_custom_headers(self) -> bool {
        self != Host::GithubPages
    }

    /// How the host answers a folder's address without its slash (`/about`): a
    /// redirect to `/about/` with this status.
    pub fn folder_redirect(self) -> u16 {
        match self {
            Host::CloudflarePages => 308,
            Host::Netlify | Host::GithubPages | Host::Nginx => 301,
        }
    }

    /// Whether `/about/index.html` is redirected to `/about/` (else served as is).
    pub fn redirects_index_html(self) -> bool {
        self == Host::CloudflarePages
    }
}
