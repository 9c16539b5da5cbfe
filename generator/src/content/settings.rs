//! The settings a build runs with, taken from `content/site.yaml`, then the
//! environment, then the command line; and the checks of a production build,
//! which must never publish a contact form pointing at a storage that does not
//! exist.

use std::path::Path;
use std::sync::Arc;

use base64::Engine;

/// The host is a setting too: `site build --for <host>` overrides site.yaml's.
use crate::content::site::Host;
use crate::content::site::{SiteConfig, Storage};
use crate::content::yaml;
use crate::diagnostics::Diagnostic;

/// What the command line asks for, above `site.yaml` and the environment.
#[derive(Debug, Clone, Default)]
pub struct Overrides {
    pub base_url: Option<String>,
    pub host: Option<Host>,
    pub production: bool,
}

#[derive(Debug, Clone)]
pub struct Settings {
    pub base_url: String,
    pub host: Host,
    pub storage: Storage,
    pub production: bool,
}

/// Where a setting's value came from, so a refused value is reported where the
/// user set it: its line of `site.yaml`, the environment variable, or the flag.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Source {
    SiteYaml,
    Environment(&'static str),
    Flag(&'static str),
}

impl Source {
    /// `site.yaml`'s value of `field`, unless `var` (or else `flag`) sets it.
    fn of(var: &'static str, flag: Option<(&'static str, bool)>) -> Source {
        match flag {
            Some((name, true)) => Source::Flag(name),
            _ if env(var).is_some() => Source::Environment(var),
            _ => Source::SiteYaml,
        }
    }
}

/// `SITE_PRODUCTION` makes every build a production build (CI sets it).
pub const PRODUCTION_VAR: &str = "SITE_PRODUCTION";
pub const BASE_URL_VAR: &str = "SITE_BASE_URL";
pub const STORAGE_URL_VAR: &str = "SITE_STORAGE_URL";
pub const STORAGE_KEY_VAR: &str = "SITE_STORAGE_ANON_KEY";

fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

/// The storage settings of `site.yaml` with `SITE_STORAGE_URL` and
/// `SITE_STORAGE_ANON_KEY` applied.
pub fn storage_with_environment(mut storage: Storage) -> Storage {
    if let Some(url) = env(STORAGE_URL_VAR) {
        storage.url = url.trim().to_string();
    }
    if let Some(key) = env(STORAGE_KEY_VAR) {
        storage.anon_key = key.trim().to_string();
    }
    storage
}

/// Resolves the settings. A production build that lacks what the live site needs
/// fails here, before anything is rendered; `serving` builds never warn about the
/// storage, which `site serve` provides itself.
pub fn resolve(
    root: &Path,
    config: &SiteConfig,
    overrides: &Overrides,
    serving: bool,
) -> Result<(Settings, Vec<String>), Vec<Diagnostic>> {
    let production = overrides.production
        || env(PRODUCTION_VAR).is_some_and(|v| !matches!(v.trim(), "0" | "false" | "no"));
    let settings = Settings {
        base_url: overrides
            .base_url
            .clone()
            .or_else(|| env(BASE_URL_VAR))
            .unwrap_or_else(|| config.base_url.clone())
            .trim()
            .to_string(),
        host: overrides.host.unwrap_or(config.host),
        storage: storage_with_environment(config.storage.clone()),
        production,
    };
    let mut warnings = Vec::new();
    let source = |field: &str| match field {
        "base_url" => Source::of(
            BASE_URL_VAR,
            Some(("--base-url", overrides.base_url.is_some())),
        ),
        "storage.url" => Source::of(STORAGE_URL_VAR, None),
        "storage.anon_key" => Source::of(STORAGE_KEY_VAR, None),
        _ => Source::SiteYaml,
    };
    // Each problem where its value was set: a line of site.yaml, or the variable
    // or flag that overrode it (an empty value is reported at site.yaml's field).
    let refuse = |problems: Vec<(&str, String)>| -> Vec<Diagnostic> {
        let site_yaml = SiteYaml::read(root);
        problems
            .into_iter()
            .map(|(field, message)| match source(field) {
                Source::SiteYaml => site_yaml.diagnostic(field, format!("{field}: {message}")),
                Source::Environment(var) => {
                    Diagnostic::new(format!("the environment variable {var}"), message)
                }
                Source::Flag(flag) => Diagnostic::new(flag, message),
            })
            .collect()
    };
    let timeouts = config.timeouts.problems();
    if !timeouts.is_empty() {
        return Err(refuse(timeouts));
    }
    if production {
        let problems = production_problems(&settings);
        if !problems.is_empty() {
            return Err(refuse(problems));
        }
    } else if settings.storage.url.is_empty() && !serving {
        warnings.push(format!(
            "storage.url is empty, so the contact form sends its uploads to the site's own \
             address: `site serve` takes them, a static host refuses them. Before building the \
             live site, set storage.url in content/site.yaml or {STORAGE_URL_VAR} \
             (`--production` refuses to run without it)"
        ));
    }
    Ok((settings, warnings))
}

/// Everything a production build lacks, as (field of site.yaml, message).
fn production_problems(settings: &Settings) -> Vec<(&'static str, String)> {
    let mut problems = Vec::new();
    let base = &settings.base_url;
    if base.is_empty() {
        problems.push((
            "base_url",
            format!(
                "a production build needs the public address of the site (https://www.meridiandigital.com) \
                 for canonical URLs, the sitemap and social cards; set base_url in \
                 content/site.yaml, {BASE_URL_VAR} or --base-url"
            ),
        ));
    } else if let Err(why) = public_https_url(base) {
        problems.push((
            "base_url",
            format!(
                "`{base}` cannot be the address of the live site: {why}; set base_url in \
                 content/site.yaml, {BASE_URL_VAR} or --base-url"
            ),
        ));
    }

    let storage = &settings.storage;
    if storage.url.is_empty() {
        problems.push((
            "storage.url",
            format!(
                "a production build needs the storage URL, the Supabase project that receives \
                 the contact form's attachments (https://<project-ref>.supabase.co): without it \
                 the form would upload to the static host, which refuses every upload; set \
                 storage.url in content/site.yaml or {STORAGE_URL_VAR} (docs/deploy.md)"
            ),
        ));
    } else if storage.url.trim_end_matches('/').ends_with("/storage/v1") {
        problems.push((
            "storage.url",
            format!(
                "`{}` should be the project URL without `/storage/v1`, which the form adds itself",
                storage.url
            ),
        ));
    } else if let Err(why) = public_https_url(&storage.url) {
        problems.push((
            "storage.url",
            format!("`{}` cannot receive uploads: {why}", storage.url),
        ));
    }

    if storage.anon_key.is_empty() {
        problems.push((
            "storage.anon_key",
            format!(
                "a production build needs the project's anon (publishable) key, which lets the \
                 form upload under the bucket's policies; set {STORAGE_KEY_VAR} (in CI, the \
                 repository secret SUPABASE_ANON_KEY) or storage.anon_key in content/site.yaml"
            ),
        ));
    } else if let Some(why) = secret_key(&storage.anon_key) {
        problems.push((
            "storage.anon_key",
            format!(
                "this key must never be published: {why}; use the project's anon (publishable) \
                 key, and replace the leaked one in the Supabase dashboard if it was ever public"
            ),
        ));
    }
    problems
}

/// An `https://` address of a real host, with no path: the site is published at
/// the root of its host.
fn public_https_url(url: &str) -> Result<(), String> {
    let Some(rest) = url.strip_prefix("https://") else {
        return Err("it must start with https://".into());
    };
    let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let host = authority
        .rsplit_once(':')
        .map_or(authority, |(h, port)| {
            if port.chars().all(|c| c.is_ascii_digit()) {
                h
            } else {
                authority
            }
        })
        .to_ascii_lowercase();
    if host.is_empty() || host.contains(['@', '?', '#', ' ']) {
        return Err("it has no host name".into());
    }
    if !path.trim_end_matches('/').is_empty() {
        return Err("it must be the bare origin, with no path".into());
    }
    let reserved = ["example", "test", "invalid", "localhost", "local"];
    let placeholder = reserved
        .iter()
        .any(|tld| host == *tld || host.ends_with(&format!(".{tld}")))
        || ["example.com", "example.net", "example.org"]
            .iter()
            .any(|d| host == *d || host.ends_with(&format!(".{d}")))
        || host.parse::<std::net::IpAddr>().is_ok();
    if placeholder {
        return Err(format!(
            "{host} is a placeholder or local address, not a public host"
        ));
    }
    Ok(())
}

/// Why `key` is a secret (a service-role JWT or an `sb_secret_` key), if it is.
fn secret_key(key: &str) -> Option<String> {
    if key.starts_with("sb_secret_") {
        return Some("it is a secret key (sb_secret_…), which bypasses every policy".into());
    }
    let mut parts = key.split('.');
    let (Some(_), Some(payload), Some(_), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return None;
    };
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(payload.trim_end_matches('='))
        .ok()?;
    let claims: serde_json::Value = serde_json::from_slice(&bytes).ok()?;
    match claims.get("role").and_then(|r| r.as_str()) {
        Some("anon") | None => None,
        Some(role) => Some(format!(
            "it is a `{role}` key, which bypasses the bucket's row-level security"
        )),
    }
}

/// `content/site.yaml`, read again only to point at the line of a setting.
struct SiteYaml {
    text: Option<Arc<str>>,
    node: Option<yaml::Node>,
}

impl SiteYaml {
    fn read(root: &Path) -> SiteYaml {
        let text: Option<Arc<str>> = std::fs::read_to_string(root.join("content/site.yaml"))
            .ok()
            .map(Into::into);
        let node = text.as_deref().and_then(|t| yaml::parse(t).ok());
        SiteYaml { text, node }
    }

    fn diagnostic(&self, field: &str, message: String) -> Diagnostic {
        let d = Diagnostic::new("content/site.yaml", message);
        let mut node = self.node.as_ref();
        for key in field.split('.') {
            node = node.and_then(|n| n.get(key));
        }
        match (node, &self.text) {
            (Some(n), Some(text)) => d.at(n.span.line, n.span.column).with_snippet(
                text.clone(),
                n.span.offset,
                n.span.len,
            ),
            _ => d,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(base_url: &str, url: &str, key: &str) -> Settings {
        Settings {
            base_url: base_url.into(),
            host: Host::default(),
            storage: Storage {
                url: url.into(),
                anon_key: key.into(),
                ..Storage::default()
            },
            production: true,
        }
    }

    fn jwt(role: &str) -> String {
        let b64 = |s: &str| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(s);
        format!(
            "{}.{}.signature",
            b64(r#"{"alg":"HS256","typ":"JWT"}"#),
            b64(&format!(
                r#"{{"iss":"supabase","ref":"abc","role":"{role}"}}"#
            ))
        )
    }

    #[test]
    fn a_complete_production_setting_passes() {
        let s = settings(
            "https://www.meridian.com",
            "https://abcdefgh.supabase.co",
            &jwt("anon"),
        );
        assert!(production_problems(&s).is_empty());
        let publishable = settings(
            "https://www.meridian.com/",
            "https://abcdefgh.supabase.co/",
            "sb_publishable_abc123",
        );
        assert!(production_problems(&publishable).is_empty());
    }

    #[test]
    fn every_missing_setting_is_named() {
        let fields: Vec<&str> = production_problems(&settings("", "", ""))
            .into_iter()
            .map(|(f, _)| f)
            .collect();
        assert_eq!(fields, ["base_url", "storage.url", "storage.anon_key"]);
    }

    #[test]
    fn addresses_must_be_public_https_origins() {
        for bad in [
            "http://www.meridian.com",
            "https://www.meridiandigital.example",
            "https://localhost:8080",
            "https://127.0.0.1",
            "https://example.com",
            "https://user.github.io/repo",
            "https://",
        ] {
            assert!(public_https_url(bad).is_err(), "{bad}");
        }
        for good in ["https://www.meridian.com", "https://abc.supabase.co:443/"] {
            assert_eq!(public_https_url(good), Ok(()), "{good}");
        }
    }

    #[test]
    fn the_deploy_guide_suggests_a_base_url_a_production_build_accepts() {
        // Read, not included: the guide is no part of the binary, and so no part
        // of the kept generator's key (site.yml).
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/deploy.md");
        let guide = std::fs::read_to_string(path).expect("docs/deploy.md is readable");
        let row = guide
            .lines()
            .find(|l| l.contains("`SITE_BASE_URL`") && l.starts_with('|'))
            .expect("docs/deploy.md has a row for SITE_BASE_URL");
        let example = row
            .split('`')
            .find(|s| s.starts_with("https://"))
            .expect("the row gives an example address");
        assert_eq!(public_https_url(example), Ok(()), "{row}");
    }

    #[test]
    fn a_secret_key_is_refused() {
        let problems = production_problems(&settings(
            "https://www.meridian.com",
            "https://abc.supabase.co",
            &jwt("service_role"),
        ));
        assert_eq!(problems.len(), 1);
        assert!(problems[0].1.contains("`service_role` key"), "{problems:?}");
        assert!(secret_key("sb_secret_xyz").is_some());
        assert!(secret_key("sb_publishable_xyz").is_none());
    }

    #[test]
    fn the_storage_url_is_the_project_url() {
        let problems = production_problems(&settings(
            "https://www.meridian.com",
            "https://abc.supabase.co/storage/v1",
            &jwt("anon"),
        ));
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(problems[0].1.contains("without `/storage/v1`"));
    }

    #[test]
    fn errors_point_at_the_setting_in_site_yaml() {
        let site = SiteYaml {
            text: Some("name: X\nstorage:\n  url: \"\"\n".into()),
            node: yaml::parse("name: X\nstorage:\n  url: \"\"\n").ok(),
        };
        let d = site.diagnostic("storage.url", "storage.url: needed".into());
        assert_eq!((d.line, d.column), (Some(3), Some(8)));
        let d = site.diagnostic("base_url", "base_url: needed".into());
        assert_eq!(d.line, None);
        assert_eq!(d.to_string(), "content/site.yaml: base_url: needed");
    }
}
