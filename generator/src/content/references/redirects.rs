//! Every redirect leads somewhere in one hop: an old address is no page's, is
//! redirected once, and leads to a page or out of the site, not to another old
//! address (a chain, or a loop).

use std::collections::HashSet;

use super::hints::Set;
use super::Checker;
use crate::content::publish::Held;
use crate::content::values::Target;
use crate::content::yaml::{self, Reference};
use crate::content::Content;

impl Checker<'_> {
    /// Every redirect leads, in one hop, to a page or out of the site: an old
    /// address is no page's, is redirected once, and leads to no other old
    /// address (a chain, or a loop). Each problem is an error at its line.
    pub(super) fn redirects(&mut self, content: &Content, held: &[Held]) {
        // Each old address, with the file and the reference it is written at.
        let mut moved: Vec<(&str, &Reference, &str, String)> = Vec::new();
        for page in &content.pages {
            for r in &page.references {
                if let Target::Moved(from) = &r.target {
                    moved.push((&page.source, r, from, page.route.clone()));
                }
            }
        }
        for r in &content.config_references {
            let Target::Moved(from) = &r.target else {
                continue;
            };
            let index = r
                .path
                .strip_prefix("redirects[")
                .and_then(|rest| rest.split(']').next())
                .and_then(|i| i.parse::<usize>().ok());
            if let Some(to) = index.and_then(|i| content.config.redirects.get(i)) {
                moved.push(("content/site.yaml", r, from, to.to.as_str().to_string()));
            }
        }
        let mut pages: std::collections::HashMap<&str, &str> = content
            .pages
            .iter()
            .map(|p| (p.route.as_str(), p.source.as_str()))
            .collect();
        for h in held {
            pages.entry(&h.route).or_insert(&h.source);
        }
        // The first redirect of an address is the one hosts follow.
        let mut map: std::collections::HashMap<&str, &str> = Default::default();
        for (_, _, from, to) in &moved {
            map.entry(from).or_insert(to.as_str());
        }
        let mut first: std::collections::HashMap<&str, (&str, &str)> = Default::default();
        let mut problems = Vec::new();
        for (file, reference, from, to) in &moved {
            let path = |t: &str| t.split(['?', '#']).next().unwrap_or("").to_string();
            let message = if let Some(source) = pages.get(from) {
                Some(format!(
                    "`{from}` is the address of a page ({source}): a redirect from it would hide the page; remove the redirect, or move the page"
                ))
            } else if let Some((other, its_to)) = first.get(from) {
                Some(format!(
                    "`{from}` already redirects to `{its_to}` ({other}): an old address leads to one place; remove one of the two"
                ))
            } else if to.starts_with('/') && map.contains_key(path(to).as_str()) {
                match crate::content::publishing::follow(&map, from) {
                    Err(around) => Some(format!(
                        "this redirect is part of a loop: {}; point each old address at a page",
                        around.join(" → ")
                    )),
                    Ok(hops) => Some(format!(
                        "`{from}` redirects to `{to}`, which redirects on to `{}`: point it at `{}`, so that visitors and search engines arrive in one hop",
                        hops[2..].join("` → `"),
                        hops.last().map_or("", String::as_str)
                    )),
                }
            } else if to.starts_with('/')
                && path(to).ends_with('/')
                && !pages.contains_key(path(to).as_str())
            {
                let routes: HashSet<&str> = pages.keys().copied().collect();
                let hint = self.places.hints.hint(Set::WithHeld, &path(to), &routes);
                Some(format!(
                    "`{from}` redirects to `{to}`, which is no page of this site{hint}"
                ))
            } else {
                None
            };
            first.entry(from).or_insert((file, to.as_str()));
            if let Some(message) = message {
                problems.push((
                    file.to_string(),
                    yaml::Error::at(reference.span, &reference.path, message),
                ));
            }
        }
        for (file, error) in problems {
            let d = self.sources.diagnostic(&file, &error);
            self.findings.errors.push(d);
        }
    }
}
