//! The HTTP headers the site is served with, written to `_headers` (the format
//! Netlify and Cloudflare Pages read) so the CDN and `site serve` send the same.

/// A path pattern (`/*`, `/assets/*`) and the headers for paths it matches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    pub pattern: String,
    pub headers: Vec<(String, String)>,
}

/// The rules for a site whose uploads go to `storage_origin` (empty: same origin).
pub fn rules(storage_origin: &str) -> Vec<Rule> {
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
    vec![
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
        // HTML gets no rule: hosts revalidate it by default.
        Rule {
            pattern: "/assets/*".into(),
            headers: vec![h("Cache-Control", "public, max-age=31536000, immutable")],
        },
    ]
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
    fn hashed_assets_are_immutable_and_html_is_not_cached() {
        let text = render(&rules(""));
        assert!(text.contains("/assets/*\n  Cache-Control: public, max-age=31536000, immutable\n"));
        assert_eq!(text.matches("Cache-Control").count(), 1);
    }

    #[test]
    fn storage_origin_is_allowed_to_connect() {
        let text = render(&rules(&origin("https://abc.supabase.co/storage/v1")));
        assert!(text.contains("connect-src 'self' https://abc.supabase.co;"));
    }
}
