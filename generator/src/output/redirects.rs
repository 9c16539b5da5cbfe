//! The site's redirects (pages' `aliases` and `site.yaml`'s `redirects`) in each
//! host's own form: `_redirects` lines for Cloudflare Pages and Netlify, a
//! `return` per old address in nginx's `_nginx.conf`, and for GitHub Pages, which
//! has no redirects of its own, a small page at the old address that sends the
//! visitor on (`<meta http-equiv="refresh">`) and names the new one canonical.
//! Netlify's `_redirects` also gives each language's folder its own 404 page
//! (`/de/* /de/404.html 404`); Cloudflare Pages finds it by itself.

use crate::content::canonical_url;
use crate::content::publishing::Moved;
use crate::content::site::Host;

/// The files that carry the redirects for `host` (nginx's go into `_nginx.conf`,
/// see [`nginx`]), and Netlify's rules for each language's 404 page
/// (`not_found`: each 404 page, `/404.html`, `/de/404.html`). `head` is what
/// every page's head carries on a host that sends no headers of its own (the
/// policies as `<meta>`), which the pages that send the visitor on carry too.
pub fn files(
    host: Host,
    moved: &[Moved],
    not_found: &[String],
    base_url: &str,
    head: &str,
) -> Vec<(String, String)> {
    let languages = match host {
        Host::Netlify => language_pages(not_found),
        _ => Vec::new(),
    };
    if moved.is_empty() && languages.is_empty() {
        return Vec::new();
    }
    match host {
        Host::CloudflarePages | Host::Netlify => {
            vec![("_redirects".into(), redirects_file(moved, &languages))]
        }
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

/// Each 404 page but the top-level one, with the folder it answers for
/// (`/de/`, `/de/404.html`), the longest folders first (a rule names the
/// first that matches).
pub fn language_pages(not_found: &[String]) -> Vec<(String, String)> {
    let mut pages: Vec<(String, String)> = not_found
        .iter()
        .filter_map(|page| {
            let folder = page.strip_suffix("404.html")?;
            (folder.len() > 1).then(|| (folder.to_string(), page.clone()))
        })
        .collect();
    pages.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then_with(|| a.0.cmp(&b.0)));
    pages
}

/// `_redirects`: one line per form of each old address, `from to status`;
/// then, below them (the first rule that matches is the one), each language's
/// folder answered with its 404 page where no file is (a rule that is not
/// forced never hides a file).
fn redirects_file(moved: &[Moved], languages: &[(String, String)]) -> String {
    let mut out =
        String::from("# Written by `site build` from aliases and site.yaml's redirects.\n");
    for m in moved {
        for from in m.forms() {
            out.push_str(&format!("{from} {} {}\n", m.to, m.status));
        }
    }
    if !languages.is_empty() {
        out.push_str(
            "# Each language's own 404 page for the addresses of its folder that are no page.\n",
        );
    }
    for (folder, page) in languages {
        out.push_str(&format!("{folder}* {page} 404\n"));
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
        let files = files(Host::Netlify, &moved(), &[], "https://www.example.org", "");
        assert_eq!(files[0].0, "_redirects");
        assert!(files[0]
            .1
            .contains("/about-us /about/ 301\n/about-us/ /about/ 301\n"));
        assert!(files[0]
            .1
            .contains("/brochure/ https://example.org/brochure.pdf 302\n"));
    }

    #[test]
    fn netlify_answers_each_language_s_folder_with_its_404_page_after_the_redirects() {
        let not_found = [
            "/404.html".to_string(),
            "/de/404.html".to_string(),
            "/ar/404.html".to_string(),
        ];
        let netlify = files(
            Host::Netlify,
            &moved(),
            &not_found,
            "https://www.example.org",
            "",
        );
        let text = &netlify[0].1;
        assert!(
            text.contains("/ar/* /ar/404.html 404\n/de/* /de/404.html 404\n"),
            "{text}"
        );
        assert!(
            text.find("/about-us/ /about/ 301") < text.find("/de/*"),
            "{text}"
        );
        assert!(
            !text.contains("/* /404.html"),
            "Netlify serves the top-level one by itself"
        );
        // Without redirects, the rules alone.
        assert_eq!(
            files(
                Host::Netlify,
                &[],
                &not_found,
                "https://www.example.org",
                ""
            )
            .len(),
            1
        );
        // Cloudflare Pages finds the nearest 404.html itself, and takes no 404 rule.
        let cloudflare = files(
            Host::CloudflarePages,
            &moved(),
            &not_found,
            "https://www.example.org",
            "",
        );
        assert!(!cloudflare[0].1.contains("404"), "{}", cloudflare[0].1);
        assert!(files(
            Host::CloudflarePages,
            &[],
            &not_found,
            "https://www.example.org",
            ""
        )
        .is_empty());
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
            &[],
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
