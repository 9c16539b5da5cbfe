//! `content/site.yaml`: company facts, navigation, footer, contact details, storage.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SiteConfig {
    /// The company name, used in titles and the copyright line.
    pub name: String,
    /// The public address the site is published at, e.g. `https://www.example.com`.
    pub base_url: String,
    /// Where the site is published: `cloudflare-pages` (the default), `netlify`,
    /// `github-pages` or `nginx`. It decides the host's own files in the output
    /// (`_headers`, `_nginx.conf`) and whether precompressed twins ship.
    #[serde(default)]
    pub host: crate::output::hosts::Host,
    #[serde(default = "default_language")]
    pub language: String,
    /// A short line shown beside the name in the footer.
    pub tagline: String,
    /// The meta description of pages that do not set their own.
    pub description: String,
    pub figures: Figures,
    pub nav: Vec<Link>,
    /// The call-to-action button at the end of the header.
    pub header_cta: Link,
    pub footer: Footer,
    pub contact: Contact,
    pub social: Vec<SocialLink>,
    #[serde(default)]
    pub storage: Storage,
    /// Page-weight budgets, checked by every build.
    #[serde(default)]
    pub budgets: Option<Budgets>,
}

/// Limits on what a page loads before it is interactive, in KB (1,000 bytes) after gzip.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Budget {
    #[serde(default)]
    pub javascript_kb: Option<f64>,
    #[serde(default)]
    pub css_kb: Option<f64>,
    #[serde(default)]
    pub html_kb: Option<f64>,
}

#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Budgets {
    /// The budget of every route…
    pub default: Budget,
    /// …except these, whose limits replace the default's where they are set.
    #[serde(default)]
    pub routes: std::collections::BTreeMap<String, Budget>,
}

impl Budgets {
    /// The limits that apply to `route`; a key may be written with or without its
    /// trailing slash (`/contact` is `/contact/`).
    pub fn for_route(&self, route: &str) -> Budget {
        let own = self
            .routes
            .iter()
            .find(|(key, _)| super::canonical_href(key) == route)
            .map(|(_, b)| b.clone())
            .unwrap_or_default();
        Budget {
            javascript_kb: own.javascript_kb.or(self.default.javascript_kb),
            css_kb: own.css_kb.or(self.default.css_kb),
            html_kb: own.html_kb.or(self.default.html_kb),
        }
    }
}

fn default_language() -> String {
    "en".to_string()
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Link {
    pub label: String,
    pub href: super::Href,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SocialLink {
    pub label: String,
    pub href: String,
    /// A lucide icon name.
    pub icon: String,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Figures {
    pub countries: String,
    pub revenue: String,
    pub years: String,
    pub success_rate: String,
    pub employees: String,
    pub founded: String,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Footer {
    pub about: String,
    pub groups: Vec<LinkGroup>,
    pub legal: Vec<Link>,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct LinkGroup {
    pub title: String,
    pub links: Vec<Link>,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Contact {
    pub address: String,
    pub phone: String,
    pub email: String,
}

/// Where the contact form uploads attachments. An empty `url` means the site's own
/// origin, which `site serve` provides. `SITE_STORAGE_URL` and `SITE_STORAGE_ANON_KEY`
/// override these at build time (see `settings.rs`).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Storage {
    #[serde(default)]
    pub url: String,
    #[serde(default)]
    pub anon_key: String,
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
