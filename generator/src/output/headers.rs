//! The HTTP headers the site is served with, written to `_headers` (the format
//! Netlify and Cloudflare Pages read) so the CDN and `site serve` send the same.

/// A path pattern (`/*`, `/assets/*`) and the headers for paths it matches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    pub pattern: String,
    pub headers: Vec<(String, String)>,
}

/// The pattern of a host's defaults: they apply to any path where no other rule
/// sets the same header.
pub const DEFAULT_PATTERN: &str = "(host default)";

/// What the site's headers depend on.
#[derive(Debug, Clone, Default)]
pub struct Policy {
    /// The origin uploads go to (`https://<ref>.supabase.co`); empty for the same origin.
    pub storage_origin: String,
    /// A build for the live site, which is served over HTTPS only.
    pub production: bool,
}

impl Policy {
    /// The Content-Security-Policy: the site's own files only, and the storage
    /// origin for the upload request and nothing else. `'wasm-unsafe-eval'` lets
    /// the search (Pagefind) compile its own WebAssembly; it allows no `eval` of
    /// script text.
    pub fn content_security_policy(&self) -> String {
        let storage = if self.storage_origin.is_empty() {
            String::new()
        } else {
            format!(" {}", self.storage_origin)
        };
        format!(
            "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; img-src 'self' data: blob:; \
             connect-src 'self'{storage}; font-src 'self'; object-src 'none'; base-uri 'self'; \
             form-action 'self'; frame-ancestors 'none'"
        )
    }
}

/// The site's rules: security headers everywhere, and a year of caching for the
/// hashed assets. HTML has no rule of its own: hosts join the values of
/// overlapping rules, so a Cache-Control on `/*` would clash with the assets'
/// one, and every host this site supports already revalidates HTML by default
/// (see `hosts.rs`).
pub fn rules(policy: &Policy) -> Vec<Rule> {
    let h = |k: &str, v: &str| (k.to_string(), v.to_string());
    let mut everywhere = vec![
        h("Content-Security-Policy", &policy.content_security_policy()),
        h("X-Content-Type-Options", "nosniff"),
        h("X-Frame-Options", "DENY"),
        h("Referrer-Policy", "strict-origin-when-cross-origin"),
        h(
            "Permissions-Policy",
            "camera=(), microphone=(), geolocation=(), interest-cohort=()",
        ),
        h("Cross-Origin-Opener-Policy", "same-origin"),
    ];
    // Browsers then refuse plain HTTP to the site for two years. Only the live
    // site promises that: a preview may be served over HTTP. No `preload`: the
    // preload list is the domain owner's decision and hard to undo.
    if policy.production {
        everywhere.push(h(
            "Strict-Transport-Security",
            "max-age=63072000; includeSubDomains",
        ));
    }
    vec![
        Rule {
            pattern: "/*".into(),
            headers: everywhere,
        },
        // Hashed names change with their content, so they can be kept for a year.
        Rule {
            pattern: "/assets/*".into(),
            headers: vec![h("Cache-Control", "public, max-age=31536000, immutable")],
        },
    ]
}

/// The headers for a request path, in the order the rules give them; a host's
/// defaults only where no other rule sets that header.
pub fn for_path<'a>(rules: &'a [Rule], path: &str) -> Vec<&'a (String, String)> {
    let mut out: Vec<&(String, String)> = rules
        .iter()
        .filter(|r| r.pattern != DEFAULT_PATTERN && matches(&r.pattern, path))
        .flat_map(|r| r.headers.iter())
        .collect();
    for rule in rules.iter().filter(|r| r.pattern == DEFAULT_PATTERN) {
        for header in &rule.headers {
            if !out.iter().any(|(k, _)| k.eq_ignore_ascii_case(&header.0)) {
                out.push(header);
            }
        }
    }
    out
}

/// Netlify's and Cloudflare's matching: exact, or a trailing `*` matching any rest.
fn matches(pattern: &str, path: &str) -> bool {
    match pattern.strip_suffix('*') {
        Some(prefix) => path.starts_with(prefix),
        None => pattern == path,
    }
}

/// The policies a page can carry itself, for hosts that send no custom headers:
/// the CSP (without `frame-ancestors`, which browsers ignore in a `<meta>`) and
/// the referrer policy. The rest (framing, sniffing, permissions, caching) has no
/// `<meta>` form; docs/deploy.md lists what is lost.
pub fn meta_policies(rules: &[Rule]) -> String {
    let site_wide = for_path(rules, "/");
    let get = |name: &str| {
        site_wide
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    };
    let escape = |s: &str| s.replace('&', "&amp;").replace('"', "&quot;");
    let mut out = String::new();
    if let Some(csp) = get("Content-Security-Policy") {
        let kept: Vec<&str> = csp
            .split(';')
            .map(str::trim)
            .filter(|d| !d.is_empty() && !d.starts_with("frame-ancestors"))
            .collect();
        out.push_str(&format!(
            r#"<meta http-equiv="Content-Security-Policy" content="{}">"#,
            escape(&kept.join("; "))
        ));
    }
    if let Some(referrer) = get("Referrer-Policy") {
        out.push_str(&format!(
            r#"<meta name="referrer" content="{}">"#,
            escape(referrer)
        ));
    }
    out
}

pub fn render(rules: &[Rule]) -> String {
    let mut out = String::new();
    for rule in rules {
        out.push_str(&rule.pattern);
        out.push('\n');
        for (k, v) in &rule.headers {
            out.push_str(&format!("  {k}: {v}\n"));
        }
    }
    out
}

/// The origin (`scheme://host[:port]`) of a URL, for the CSP.
pub fn origin(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return String::new();
    };
    let host = rest.split(['/', '?', '#']).next().unwrap_or("");
    if host.is_empty() {
        String::new()
    } else {
        format!("{scheme}://{host}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reads a `_headers` file back into rules, as a host does.
    pub fn parse(text: &str) -> Vec<Rule> {
        let mut rules: Vec<Rule> = Vec::new();
        for line in text.lines() {
            if line.trim().is_empty() || line.trim_start().starts_with('#') {
                continue;
            }
            if !line.starts_with(char::is_whitespace) {
                rules.push(Rule {
                    pattern: line.trim().to_string(),
                    headers: Vec::new(),
                });
            } else if let (Some(rule), Some((k, v))) =
                (rules.last_mut(), line.trim().split_once(':'))
            {
                rule.headers
                    .push((k.trim().to_string(), v.trim().to_string()));
            }
        }
        rules
    }

    #[test]
    fn hashed_assets_are_immutable_and_nothing_else_sets_caching() {
        let rules = rules(&Policy::default());
        let text = render(&rules);
        assert!(text.contains("/assets/*\n  Cache-Control: public, max-age=31536000, immutable\n"));
        let cache = |path: &str| -> Vec<String> {
            for_path(&rules, path)
                .into_iter()
                .filter(|(k, _)| k == "Cache-Control")
                .map(|(_, v)| v.clone())
                .collect()
        };
        assert_eq!(
            cache("/assets/islands/Header-X.js"),
            ["public, max-age=31536000, immutable"]
        );
        assert!(cache("/about/").is_empty());
        assert!(cache("/favicon.svg").is_empty());
    }

    #[test]
    fn only_the_live_site_promises_https() {
        let hsts = |production| {
            rules(&Policy {
                production,
                ..Policy::default()
            })[0]
                .headers
                .iter()
                .find(|(k, _)| k == "Strict-Transport-Security")
                .map(|(_, v)| v.clone())
        };
        assert_eq!(
            hsts(true).as_deref(),
            Some("max-age=63072000; includeSubDomains")
        );
        assert_eq!(hsts(false), None);
    }

    #[test]
    fn a_default_applies_only_where_no_rule_sets_the_header() {
        let mut rules = rules(&Policy::default());
        rules.push(Rule {
            pattern: DEFAULT_PATTERN.into(),
            headers: vec![("cache-control".into(), "max-age=0".into())],
        });
        let cache = |path: &str| -> Vec<&str> {
            for_path(&rules, path)
                .into_iter()
                .filter(|(k, _)| k.eq_ignore_ascii_case("Cache-Control"))
                .map(|(_, v)| v.as_str())
                .collect()
        };
        assert_eq!(
            cache("/assets/a.js"),
            ["public, max-age=31536000, immutable"]
        );
        assert_eq!(cache("/about/"), ["max-age=0"]);
    }

    #[test]
    fn reads_back_what_it_writes() {
        let rules = rules(&Policy {
            storage_origin: "https://x.example".into(),
            production: true,
        });
        assert_eq!(parse(&render(&rules)), rules);
    }

    #[test]
    fn the_storage_origin_and_nothing_else_may_be_connected_to() {
        let policy = Policy {
            storage_origin: origin("https://abc.supabase.co/storage/v1"),
            ..Policy::default()
        };
        let csp = policy.content_security_policy();
        assert!(
            csp.contains("connect-src 'self' https://abc.supabase.co;"),
            "{csp}"
        );
        assert_eq!(csp.matches("supabase").count(), 1, "{csp}");
        assert!(Policy::default()
            .content_security_policy()
            .contains("connect-src 'self';"));
    }
}
