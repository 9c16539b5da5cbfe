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
    /// The content editor's own Content-Security-Policy, when the output has
    /// `/admin/`: there it replaces the site's.
    pub editor: Option<String>,
}

/// Where the content editor is.
pub const EDITOR_PATTERN: &str = "/admin/*";

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
    let mut rules = vec![
        Rule {
            pattern: "/*".into(),
            headers: everywhere,
        },
        // Hashed names change with their content, so they can be kept for a year.
        Rule {
            pattern: "/assets/*".into(),
            headers: vec![h("Cache-Control", "public, max-age=31536000, immutable")],
        },
    ];
    // The editor's own policy, and an opener policy that keeps the window of
    // "Sign In with GitHub" able to tell the editor it signed in.
    if let Some(editor) = &policy.editor {
        rules.push(Rule {
            pattern: EDITOR_PATTERN.into(),
            headers: vec![
                h("Content-Security-Policy", editor),
                h("Cross-Origin-Opener-Policy", "same-origin-allow-popups"),
            ],
        });
    }
    rules
}

/// The headers for a request path, in the order the rules give them; where two
/// rules set the same header the more specific one's alone (a policy joined
/// with another would enforce both); a host's defaults only where no other rule
/// sets that header. `render_for` writes each host's form of the same.
pub fn for_path<'a>(rules: &'a [Rule], path: &str) -> Vec<&'a (String, String)> {
    let matching: Vec<&Rule> = rules
        .iter()
        .filter(|r| r.pattern != DEFAULT_PATTERN && matches(&r.pattern, path))
        .collect();
    let mut out: Vec<&(String, String)> = matching
        .iter()
        .flat_map(|r| {
            r.headers.iter().filter(|(k, _)| {
                !matching.iter().any(|other| {
                    other.pattern.len() > r.pattern.len()
                        && other.headers.iter().any(|(o, _)| o.eq_ignore_ascii_case(k))
                })
            })
        })
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

/// A header that a more specific rule sets too, which hosts would join: the
/// rule that gives way, the header, and the more specific pattern.
fn replaced(rules: &[Rule]) -> Vec<(usize, String, String)> {
    let mut out = Vec::new();
    for (i, rule) in rules.iter().enumerate() {
        for (k, _) in &rule.headers {
            for other in rules {
                if other.pattern.len() > rule.pattern.len()
                    && matches(&rule.pattern, other.pattern.trim_end_matches('*'))
                    && other.headers.iter().any(|(o, _)| o.eq_ignore_ascii_case(k))
                {
                    out.push((i, k.clone(), other.pattern.clone()));
                }
            }
        }
    }
    out
}

/// `_headers` as Cloudflare Pages reads it: joined like Netlify's, except that
/// a more specific rule detaches (`! Name`) a header it sets itself.
pub fn render_detaching(rules: &[Rule]) -> String {
    let replaced = replaced(rules);
    let mut out = String::new();
    for rule in rules {
        out.push_str(&rule.pattern);
        out.push('\n');
        for (_, k, _) in replaced.iter().filter(|(_, _, p)| *p == rule.pattern) {
            out.push_str(&format!("  ! {k}\n"));
        }
        for (k, v) in &rule.headers {
            out.push_str(&format!("  {k}: {v}\n"));
        }
    }
    out
}

/// `_headers` as Netlify reads it, which joins every matching rule's headers
/// and cannot take one away: a header a more specific rule sets itself is
/// given, instead of to its wider pattern, to each of the output's top-level
/// files and folders outside that rule (`top`: `index.html`, `about`, …). A
/// path of no file (a 404) then goes without it.
pub fn render_scoped(rules: &[Rule], top: &[(String, bool)]) -> String {
    let replaced = replaced(rules);
    if replaced.is_empty() {
        return render(rules);
    }
    let mut scoped: Vec<Rule> = Vec::new();
    for (i, rule) in rules.iter().enumerate() {
        let moved: Vec<&(String, String)> = rule
            .headers
            .iter()
            .filter(|(k, _)| replaced.iter().any(|(j, h, _)| *j == i && h == k))
            .collect();
        scoped.push(Rule {
            pattern: rule.pattern.clone(),
            headers: rule
                .headers
                .iter()
                .filter(|h| !moved.contains(h))
                .cloned()
                .collect(),
        });
        if moved.is_empty() {
            continue;
        }
        let prefix = rule.pattern.trim_end_matches('*');
        let mut patterns = vec![prefix.to_string()];
        for (name, folder) in top {
            let pattern = match folder {
                true => format!("{prefix}{name}/*"),
                false => format!("{prefix}{name}"),
            };
            let inside = replaced
                .iter()
                .any(|(j, _, p)| *j == i && matches(p, &format!("{prefix}{name}/")));
            if !inside {
                patterns.push(pattern);
            }
        }
        for pattern in patterns {
            scoped.push(Rule {
                pattern,
                headers: moved.iter().map(|h| (*h).clone()).collect(),
            });
        }
    }
    render(&scoped)
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
            editor: Some("default-src 'self'".into()),
        });
        assert_eq!(parse(&render(&rules)), rules);
    }

    fn with_editor() -> Vec<Rule> {
        rules(&Policy {
            editor: Some("default-src 'self'; style-src 'self' 'unsafe-inline'".into()),
            ..Policy::default()
        })
    }

    fn csp(rules: &[Rule], path: &str) -> Vec<String> {
        for_path(rules, path)
            .into_iter()
            .filter(|(k, _)| k == "Content-Security-Policy")
            .map(|(_, v)| v.clone())
            .collect()
    }

    #[test]
    fn the_editor_has_its_own_policy_and_the_site_keeps_its_own() {
        let rules = with_editor();
        assert_eq!(
            csp(&rules, "/admin/"),
            ["default-src 'self'; style-src 'self' 'unsafe-inline'"]
        );
        assert_eq!(
            csp(&rules, "/about/"),
            [Policy::default().content_security_policy()]
        );
        assert!(for_path(&rules, "/admin/")
            .iter()
            .any(|(k, v)| k == "X-Frame-Options" && v == "DENY"));
        let opener = |path: &str| -> Vec<&str> {
            for_path(&rules, path)
                .into_iter()
                .filter(|(k, _)| k == "Cross-Origin-Opener-Policy")
                .map(|(_, v)| v.as_str())
                .collect()
        };
        assert_eq!(opener("/admin/"), ["same-origin-allow-popups"]);
        assert_eq!(opener("/about/"), ["same-origin"]);
    }

    #[test]
    fn cloudflare_detaches_the_sites_policy_where_the_editor_has_its_own() {
        let text = render_detaching(&with_editor());
        assert!(
            text.contains("/admin/*\n  ! Content-Security-Policy\n  ! Cross-Origin-Opener-Policy\n  Content-Security-Policy: default-src 'self'; style-src"),
            "{text}"
        );
        assert_eq!(text.matches("! ").count(), 2);
    }

    #[test]
    fn netlify_gets_the_sites_policy_on_every_top_level_entry_but_the_editor() {
        let top = [
            ("index.html".to_string(), false),
            ("about".to_string(), true),
            ("admin".to_string(), true),
            ("assets".to_string(), true),
        ];
        let text = render_scoped(&with_editor(), &top);
        let rules = parse(&text);
        let site = Policy::default().content_security_policy();
        assert!(!rules[0]
            .headers
            .iter()
            .any(|(k, _)| k == "Content-Security-Policy"));
        for path in ["/", "/index.html", "/about/", "/assets/a.js"] {
            assert_eq!(csp(&rules, path), std::slice::from_ref(&site), "{path}");
        }
        assert_eq!(
            csp(&rules, "/admin/"),
            ["default-src 'self'; style-src 'self' 'unsafe-inline'"]
        );
        assert!(
            !text.contains("/admin/*\n  Content-Security-Policy: default-src 'self'; script-src")
        );
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
