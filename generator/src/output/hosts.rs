//! What each host the site is published on needs from the output: its
//! configuration files, the headers it sends, its 404 page, the policies a page
//! must carry itself. The host itself, and what it is as a setting, is
//! `content::site::Host`; this is its output's side, as the trait
//! [`HostOutput`], so a reader sees where each method comes from. Every host
//! answers a page at its address with the trailing slash (`/about/`) with 200;
//! they differ in how they take headers and compression (docs/deploy.md).

use crate::content::publishing::Moved;
use crate::content::site::Host;
use crate::output::headers::{self, Rule};

/// What a host needs from the output, and how it answers.
pub trait HostOutput {
    /// Whether a file of the output is the host's configuration, never served.
    fn is_config_file(&self, rel: &str) -> bool;
    /// The host's own configuration files in the output, from the site's rules.
    fn config_files(
        &self,
        rules: &[Rule],
        moved: &[Moved],
        top: &[(String, bool)],
        not_found: &[String],
    ) -> Vec<(&'static str, String)>;
    /// The headers the host will actually send, as rules.
    fn served_rules(&self, rules: &[Rule]) -> Vec<Rule>;
    /// The 404 page the host answers an address that is no file with.
    fn not_found_page(&self, path: &str, pages: &[String], exists: impl Fn(&str) -> bool)
        -> String;
    /// What goes at the top of every page's `<head>`.
    fn head_policies(&self, rules: &[Rule]) -> String;
}

/// The Cache-Control the host sends when no rule of ours sets one.
fn default_cache_control(host: Host) -> &'static str {
    match host {
        // Both revalidate every file on every request unless told otherwise.
        Host::CloudflarePages | Host::Netlify | Host::Nginx => "public, max-age=0, must-revalidate",
        Host::GithubPages => "max-age=600",
    }
}

impl HostOutput for Host {
    fn is_config_file(&self, rel: &str) -> bool {
        rel == "_headers" || rel == NGINX_CONF || rel.starts_with('.')
    }

    /// The host's own configuration files in the output, from the site's rules.
    /// `top`: the output's top-level files and folders (`true` for a folder).
    /// `not_found`: each language's 404 page (`/404.html`, `/de/404.html`).
    fn config_files(
        &self,
        rules: &[Rule],
        moved: &[Moved],
        top: &[(String, bool)],
        not_found: &[String],
    ) -> Vec<(&'static str, String)> {
        match *self {
            Host::CloudflarePages => vec![("_headers", headers::render_detaching(rules))],
            Host::Netlify => vec![("_headers", headers::render_scoped(rules, top))],
            Host::Nginx => vec![(
                NGINX_CONF,
                nginx_conf(rules, default_cache_control(*self), not_found)
                    + &super::redirects::nginx(moved),
            )],
            // Files under `_`-folders would be dropped by Jekyll; we publish as-is.
            Host::GithubPages => vec![(".nojekyll", String::new())],
        }
    }

    /// The headers the host will actually send, as rules, for `site serve` to
    /// send the same: ours where the host takes them, and the host's default
    /// Cache-Control wherever none of ours sets one.
    fn served_rules(&self, rules: &[Rule]) -> Vec<Rule> {
        let mut served = if self.sends_custom_headers() {
            rules.to_vec()
        } else {
            Vec::new()
        };
        served.push(Rule {
            pattern: headers::DEFAULT_PATTERN.into(),
            headers: vec![(
                "Cache-Control".to_string(),
                default_cache_control(*self).to_string(),
            )],
        });
        served
    }

    /// The 404 page the host answers an address that is no file with:
    /// Cloudflare Pages, by itself, the nearest `404.html` up the address's
    /// folders (`exists` tells whether the output has a file); Netlify and
    /// nginx, by the rules the build writes for them, the page of the language
    /// whose folder the address is in; GitHub Pages only ever its top-level one.
    /// `pages` are each language's 404 page; the answer is one of them, or a
    /// `404.html` of the output.
    fn not_found_page(
        &self,
        path: &str,
        pages: &[String],
        exists: impl Fn(&str) -> bool,
    ) -> String {
        const TOP: &str = "/404.html";
        match *self {
            Host::CloudflarePages => {
                // The address's own folder, then each above it.
                let mut folder = &path[..path.rfind('/').map_or(0, |i| i + 1)];
                while !folder.is_empty() {
                    let page = format!("{folder}404.html");
                    if exists(&page) {
                        return page;
                    }
                    let above = folder[..folder.len() - 1].rfind('/');
                    folder = &folder[..above.map_or(0, |i| i + 1)];
                }
                TOP.to_string()
            }
            Host::Netlify | Host::Nginx => super::redirects::language_pages(pages)
                .into_iter()
                .find(|(folder, _)| path.starts_with(folder.as_str()))
                .map_or_else(|| TOP.to_string(), |(_, page)| page),
            Host::GithubPages => TOP.to_string(),
        }
    }

    /// What goes at the top of every page's `<head>`: the policies a host without
    /// custom headers cannot send (nothing for the others).
    fn head_policies(&self, rules: &[Rule]) -> String {
        if self.sends_custom_headers() {
            String::new()
        } else {
            headers::meta_policies(rules)
        }
    }
}

/// The nginx include, at the root of the output.
pub const NGINX_CONF: &str = "_nginx.conf";

/// An nginx include for the server block whose `root` is the output folder: the
/// site's headers on every response (nginx's `add_header` does not combine across
/// locations, so each location repeats the site-wide ones), `/about` answered with
/// a 301 to `/about/` (nginx's own folder rule), and `404.html` for unknown paths:
/// under a language's folder, that language's (`not_found`: each 404 page).
fn nginx_conf(rules: &[Rule], default_cache_control: &str, not_found: &[String]) -> String {
    let site_wide: Vec<&(String, String)> = rules
        .iter()
        .filter(|r| r.pattern == "/*")
        .flat_map(|r| r.headers.iter())
        .collect();
    let add = |out: &mut String, (k, v): &(String, String)| {
        out.push_str(&format!(
            "    add_header {k} \"{}\" always;\n",
            v.replace('"', "'")
        ));
    };
    let mut out = String::from(
        "# Written by `site build` for nginx. Include it in the server block whose root\n\
         # is this folder, for example:\n\
         #     root /srv/site/dist;\n\
         #     include /srv/site/dist/_nginx.conf;\n\
         # deploy/nginx/site.conf is a complete server block.\n\
         index index.html;\n\
         error_page 404 /404.html;\n\
         absolute_redirect off;\n\
         gzip_static on;\n\
         gzip_vary on;\n",
    );
    out.push_str(&format!(
        "location = /{NGINX_CONF} {{\n    return 404;\n}}\n"
    ));
    let mut prefixes: Vec<&Rule> = rules
        .iter()
        .filter(|r| r.pattern != "/*" && r.pattern.ends_with("/*"))
        .collect();
    prefixes.sort_by(|a, b| a.pattern.cmp(&b.pattern));
    for rule in prefixes {
        out.push_str(&format!(
            "location {} {{\n",
            rule.pattern.trim_end_matches('*')
        ));
        // A header the rule sets itself replaces the site-wide one there (the
        // editor's policy on /admin/).
        for h in site_wide
            .iter()
            .filter(|(k, _)| !rule.headers.iter().any(|(o, _)| o.eq_ignore_ascii_case(k)))
        {
            add(&mut out, h);
        }
        for h in &rule.headers {
            add(&mut out, h);
        }
        out.push_str("}\n");
    }
    // Debian's mime.types has no type for calendar files, and a `types` block
    // here would replace all of them: their location gives theirs as its default.
    // Each language's folder answers a missing address with its own 404 page.
    let languages: Vec<(String, String)> = super::redirects::language_pages(not_found)
        .into_iter()
        .map(|(folder, page)| (folder, format!("    error_page 404 {page};\n")))
        .collect();
    let locations = [
        ("/".to_string(), String::new()),
        (
            "~* \\.ics$".to_string(),
            "    default_type \"text/calendar; charset=utf-8\";\n".to_string(),
        ),
    ];
    for (location, extra) in languages.into_iter().chain(locations) {
        out.push_str(&format!("location {location} {{\n{extra}"));
        for h in &site_wide {
            add(&mut out, h);
        }
        add(
            &mut out,
            &(
                "Cache-Control".to_string(),
                default_cache_control.to_string(),
            ),
        );
        out.push_str("}\n");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn site_rules() -> Vec<Rule> {
        headers::rules(&headers::Policy::default())
    }

    #[test]
    fn names_read_back() {
        for host in Host::ALL {
            assert_eq!(Host::parse(host.name()), Ok(host));
        }
        let err = Host::parse("vercel").unwrap_err();
        assert!(
            err.contains("cloudflare-pages, netlify, github-pages, nginx"),
            "{err}"
        );
    }

    #[test]
    fn each_host_gets_its_own_configuration() {
        let rules = site_rules();
        let names = |h: Host| -> Vec<&str> {
            h.config_files(&rules, &[], &[], &[])
                .iter()
                .map(|f| f.0)
                .collect()
        };
        assert_eq!(names(Host::CloudflarePages), ["_headers"]);
        assert_eq!(names(Host::Netlify), ["_headers"]);
        assert_eq!(names(Host::GithubPages), [".nojekyll"]);
        assert_eq!(names(Host::Nginx), ["_nginx.conf"]);
        assert!(Host::Nginx.serves_precompressed());
        assert!(!Host::CloudflarePages.serves_precompressed());
    }

    #[test]
    fn nginx_sends_the_site_wide_headers_in_every_location() {
        let rules = site_rules();
        let conf = nginx_conf(&rules, "public, max-age=0, must-revalidate", &[]);
        let csp = conf.matches("add_header Content-Security-Policy").count();
        assert_eq!(csp, conf.matches("location ").count() - 1, "{conf}");
        assert!(conf.contains("location /assets/ {\n    add_header Content-Security-Policy"));
        assert!(conf
            .contains("add_header Cache-Control \"public, max-age=31536000, immutable\" always;"));
        assert!(conf.contains("location = /_nginx.conf {\n    return 404;\n}"));
    }

    #[test]
    fn each_host_answers_an_address_that_is_no_page_with_its_language_s_404_page() {
        let pages = ["/404.html".to_string(), "/de/404.html".to_string()];
        let files = ["/404.html", "/de/404.html", "/docs/404.html"];
        let exists = |f: &str| files.contains(&f);
        let page = |host: Host, path: &str| host.not_found_page(path, &pages, exists);
        for host in [Host::CloudflarePages, Host::Netlify, Host::Nginx] {
            assert_eq!(page(host, "/de/no-such-page/"), "/de/404.html", "{host:?}");
            assert_eq!(page(host, "/de/a/b/c.html"), "/de/404.html", "{host:?}");
            assert_eq!(page(host, "/design/"), "/404.html", "{host:?}");
            assert_eq!(page(host, "/"), "/404.html", "{host:?}");
        }
        // Cloudflare finds any 404.html up the tree; the rules name the languages'.
        assert_eq!(page(Host::CloudflarePages, "/docs/x/"), "/docs/404.html");
        assert_eq!(page(Host::Netlify, "/docs/x/"), "/404.html");
        assert_eq!(page(Host::GithubPages, "/de/no-such-page/"), "/404.html");
    }

    #[test]
    fn nginx_answers_in_each_language_s_folder_with_its_404_page() {
        let pages = ["/404.html".to_string(), "/de/404.html".to_string()];
        let conf = nginx_conf(&site_rules(), "public, max-age=0, must-revalidate", &pages);
        assert!(conf.contains("error_page 404 /404.html;\n"), "{conf}");
        let de = conf.split("location /de/ {\n").nth(1).unwrap_or("");
        let de = de.split('}').next().unwrap_or("");
        assert!(
            de.starts_with("    error_page 404 /de/404.html;\n"),
            "{conf}"
        );
        // A location of its own sends the site-wide headers itself.
        assert!(de.contains("add_header Content-Security-Policy"), "{de}");
        assert!(
            de.contains("add_header Cache-Control \"public, max-age=0, must-revalidate\""),
            "{de}"
        );
    }

    #[test]
    fn only_github_pages_needs_policies_in_the_page() {
        let rules = site_rules();
        assert_eq!(Host::Netlify.head_policies(&rules), "");
        let meta = Host::GithubPages.head_policies(&rules);
        assert!(
            meta.contains(r#"<meta http-equiv="Content-Security-Policy""#),
            "{meta}"
        );
        // Browsers ignore frame-ancestors in a <meta> policy, and warn about it.
        assert!(!meta.contains("frame-ancestors"), "{meta}");
    }

    #[test]
    fn serve_sends_what_the_host_sends() {
        let rules = site_rules();
        let cache = |host: Host, path: &str| -> Vec<String> {
            let served = host.served_rules(&rules);
            headers::for_path(&served, path)
                .into_iter()
                .filter(|(k, _)| k == "Cache-Control")
                .map(|(_, v)| v.clone())
                .collect()
        };
        assert_eq!(
            cache(Host::CloudflarePages, "/assets/x.js"),
            ["public, max-age=31536000, immutable"]
        );
        assert_eq!(
            cache(Host::CloudflarePages, "/about/"),
            ["public, max-age=0, must-revalidate"]
        );
        assert_eq!(cache(Host::GithubPages, "/assets/x.js"), ["max-age=600"]);
        let csp = |host: Host| {
            headers::for_path(&host.served_rules(&rules), "/")
                .iter()
                .any(|(k, _)| k == "Content-Security-Policy")
        };
        assert!(csp(Host::Netlify));
        assert!(!csp(Host::GithubPages));
    }
}
