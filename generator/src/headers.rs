//! The HTTP headers the site is served with, written to `_headers` (the format
//! Netlify and Cloudflare Pages read) so the CDN and `site serve` send the same.

/// A path pattern (`/*`, `/assets/*`) and the headers for paths it matches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    pub pattern: String,
    pub headers: Vec<(String, String)>,
}

/// The rules for a site whose uploads go to `storage_origin` (empty: same origin)
/// and whose HTML documents are at `html_paths`.
pub fn rules(storage_origin: &str, html_paths: &[String]) -> Vec<Rule> {
    let extra = if storage_origin.is_empty() {
        String::new()
    } else {
        format!(" {storage_origin}")
    };
    let csp = format!(
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:{extra}; \
         connect-src 'self'{extra}; font-src 'self'; object-src 'none'; base-uri 'self'; \
         form-action 'self'; frame-ancestors 'none'"
    );
    let h = |k: &str, v: &str| (k.to_string(), v.to_string());
    let mut rules = vec![
        Rule {
            pattern: "/*".into(),
            headers: vec![
                h("Content-Security-Policy", &csp),
                h("X-Content-Type-Options", "nosniff"),
                h("X-Frame-Options", "DENY"),
                h("Referrer-Policy", "strict-origin-when-cross-origin"),
                h(
                    "Permissions-Policy",
                    "camera=(), microphone=(), geolocation=(), interest-cohort=()",
                ),
                h("Cross-Origin-Opener-Policy", "same-origin"),
            ],
        },
        // Hashed names change with their content, so they can be kept for a year.
        Rule {
            pattern: "/assets/*".into(),
            headers: vec![h("Cache-Control", "public, max-age=31536000, immutable")],
        },
    ];
    // HTML must be revalidated so a deploy shows at once. Each document gets its own
    // rule: hosts join the values of overlapping rules, so no wildcard may set it.
    for path in html_paths {
        rules.push(Rule {
            pattern: path.clone(),
            headers: vec![h("Cache-Control", "public, max-age=0, must-revalidate")],
        });
    }
    rules
}

/// The headers for a request path, in the order the rules give them.
pub fn for_path<'a>(rules: &'a [Rule], path: &str) -> Vec<&'a (String, String)> {
    rules
        .iter()
        .filter(|r| matches(&r.pattern, path))
        .flat_map(|r| r.headers.iter())
        .collect()
}

/// Netlify's matching: exact, or a trailing `*` matching any rest.
fn matches(pattern: &str, path: &str) -> bool {
    match pattern.strip_suffix('*') {
        Some(prefix) => path.starts_with(prefix),
        None => {
            pattern == path
                || (pattern != "/" && pattern.trim_end_matches('/') == path.trim_end_matches('/'))
        }
    }
}

/// Reads a `_headers` file back into rules.
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
        } else if let (Some(rule), Some((k, v))) = (rules.last_mut(), line.trim().split_once(':')) {
            rule.headers
                .push((k.trim().to_string(), v.trim().to_string()));
        }
    }
    rules
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

    #[test]
    fn hashed_assets_are_immutable_and_html_is_revalidated() {
        let rules = rules("", &["/".to_string(), "/about".to_string()]);
        let text = render(&rules);
        assert!(text.contains("/assets/*\n  Cache-Control: public, max-age=31536000, immutable\n"));
        assert!(text.contains("/about\n  Cache-Control: public, max-age=0, must-revalidate\n"));
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
        assert_eq!(cache("/about"), ["public, max-age=0, must-revalidate"]);
        assert_eq!(cache("/"), ["public, max-age=0, must-revalidate"]);
        assert!(cache("/favicon.svg").is_empty());
    }

    #[test]
    fn reads_back_what_it_writes() {
        let rules = rules("https://x.example", &["/".to_string()]);
        assert_eq!(parse(&render(&rules)), rules);
    }

    #[test]
    fn storage_origin_is_allowed_to_connect() {
        let text = render(&rules(&origin("https://abc.supabase.co/storage/v1"), &[]));
        assert!(text.contains("connect-src 'self' https://abc.supabase.co;"));
    }
}
