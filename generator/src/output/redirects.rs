//! The site's redirects (pages' `aliases` and `site.yaml`'s `redirects`) in each
//! host's own form: `_redirects` lines for Cloudflare Pages and Netlify, a
//! `return` per old address in nginx's `_nginx.conf`, and for GitHub Pages, which
//! has no redirects of its own, a small page at the old address that sends the
//! visitor on (`<meta http-equiv="refresh">`) and names the new one canonical.

use crate::content::canonical_url;
use crate::content::publishing::Moved;
use crate::content::settings::Host;

/// The files that carry the redirects for `host` (nginx's go into `_nginx.conf`,
/// see [`nginx`]). `head` is what every page's head carries on a host that sends
/// no headers of its own (the policies as `<meta>`), which the pages that send
/// the visitor on carry too.
pub fn files(host: Host, moved: &[Moved], base_url: &str, head: &str) -> Vec<(String, String)> {
    if moved.is_empty() {
        return Vec::new();
    }
    match host {
        Host::CloudflarePages | Host::Netlify => vec![("_redirects".into(), redirects_file(moved))],
        Host::GithubPages => moved
            .iter()
            .map(|m| {
                let page = refresh_page(m, base_url);
                let page = match head {
                    "" => page,
                    head => crate::html::insert_in_head(&page, head),
                };
                (page_file(&m.from), page)
            })
            .collect(),
        Host::Nginx => Vec::new(),
    }
}

/// `_redirects`: one line per form of each old address, `from to status`.
fn redirects_file(moved: &[Moved]) -> String {
    let mut out =
        String::from("# Written by `site build` from aliases and site.yaml's redirects.\n");
    for m in moved {
        for from in m.forms() {
            out.push_str(&format!("{from} {} {}\n", m.to, m.status));
        }
    }
    out
}

/// nginx's exact-match locations, one per form of each old address.
pub fn nginx(moved: &[Moved]) -> String {
    let mut out = String::new();
    for m in moved {
        for from in m.forms() {
            out.push_str(&format!(
                "location = {from} {{\n    return {} {};\n}}\n",
                m.status,
                m.to.replace([';', '{', '}', '"', ' '], "")
            ));
        }
    }
    out
}

/// Where GitHub Pages serves an old address from: `/about-us/` is
/// `about-us/index.html`; `/old.html` is itself.
fn page_file(from: &str) -> String {
    let rel = from.trim_start_matches('/');
    if rel.is_empty() || rel.ends_with('/') {
        format!("{rel}index.html")
    } else if rel.ends_with(".html") {
        rel.to_string()
    } else {
        format!("{rel}/index.html")
    }
}

/// A page that sends the visitor on at once, for hosts without redirects.
fn refresh_page(m: &Moved, base_url: &str) -> String {
    let to = if m.to.starts_with('/') {
        canonical_url(base_url, &m.to)
    } else {
        m.to.clone()
    };
    let to = html_escape(&to);
    format!(
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>Moved</title>\n<meta name=\"robots\" content=\"noindex\">\n<link rel=\"canonical\" href=\"{to}\">\n<meta http-equiv=\"refresh\" content=\"0; url={to}\">\n</head>\n<body>\n<p>This page has moved to <a href=\"{to}\">{to}</a>.</p>\n</body>\n</html>\n"
    )
}

fn html_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('"', "&quot;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn moved() -> Vec<Moved> {
        vec![
            Moved {
                from: "/about-us/".into(),
                to: "/about/".into(),
                status: 301,
            },
            Moved {
                from: "/brochure/".into(),
                to: "https://example.org/brochure.pdf".into(),
                status: 302,
            },
        ]
    }

    #[test]
    fn cloudflare_and_netlify_read_one_line_per_form() {
        let files = files(Host::Netlify, &moved(), "https://www.example.org", "");
        assert_eq!(files[0].0, "_redirects");
        assert!(files[0]
            .1
            .contains("/about-us /about/ 301\n/about-us/ /about/ 301\n"));
        assert!(files[0]
            .1
            .contains("/brochure/ https://example.org/brochure.pdf 302\n"));
    }

    #[test]
    fn nginx_returns_from_exact_locations() {
        let conf = nginx(&moved());
        assert!(conf.contains("location = /about-us {\n    return 301 /about/;\n}\n"));
        assert!(conf.contains("location = /about-us/ {\n    return 301 /about/;\n}\n"));
    }

    #[test]
    fn github_pages_gets_a_page_that_sends_the_visitor_on() {
        let files = files(
            Host::GithubPages,
            &moved(),
            "https://www.example.org",
            r#"<meta name="referrer" content="no-referrer">"#,
        );
        assert_eq!(files[0].0, "about-us/index.html");
        let page = &files[0].1;
        assert!(page.contains(
            r#"<meta http-equiv="refresh" content="0; url=https://www.example.org/about/">"#
        ));
        assert!(page.contains(r#"<link rel="canonical" href="https://www.example.org/about/">"#));
        assert!(page.contains(r#"<meta name="robots" content="noindex">"#));
        // The policies every page carries on a host without headers.
        assert!(
            page.contains(r#"<meta charset="utf-8"><meta name="referrer" content="no-referrer">"#)
        );
    }
}
