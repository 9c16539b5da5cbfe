//! The build, one direction: load → bundle → render → write, then a report.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::bundle::{self, Bundle};
use crate::content::{self, Content, Page};
use crate::diagnostics::Diagnostic;
use crate::headers::{self, Rule};
use crate::hosts::Host;
use crate::output::{self, Files, Source};
use crate::render::{self, Settings};
use crate::settings::{self, Overrides};
use crate::sitemap;
use crate::ssr;
use crate::toolchain::Toolchain;
use crate::weight;

#[derive(Debug, Clone)]
pub struct Options {
    pub root: PathBuf,
    pub out: PathBuf,
    /// Overrides `base_url` of `site.yaml`.
    pub base_url: Option<String>,
    /// Building for `site serve`, which provides the same-origin storage itself.
    pub serving: bool,
    /// Fail the build when a page is over its budget (else warn).
    pub strict_budgets: bool,
    /// Overrides `host` of `site.yaml`.
    pub host: Option<Host>,
    /// A build for the live site: refuses to run without an https `base_url`, the
    /// storage URL and the anon key (also set by `SITE_PRODUCTION`).
    pub production: bool,
}

#[derive(Debug)]
pub struct Report {
    pub pages: usize,
    pub files: usize,
    pub bytes: u64,
    /// Each page's weight, when `site.yaml` sets budgets.
    pub weights: Vec<(String, weight::Weight)>,
    pub ssr: ssr::Stats,
    pub bundle_rebuilt: bool,
    pub elapsed: Duration,
    pub stages: Vec<(&'static str, Duration)>,
    pub warnings: Vec<String>,
    /// The host built for, and the headers it will send (for `site serve`).
    pub host: Host,
    pub served_headers: Vec<Rule>,
    pub production: bool,
}

/// What a long-running `site serve` keeps from one build to the next: the bundle
/// (while islands and styles are unchanged) and the warm server-render process.
#[derive(Default)]
pub struct Session {
    bundle: Option<(Arc<Bundle>, Option<Toolchain>)>,
    ssr: Option<Arc<ssr::Renderer>>,
}

impl Session {
    /// Forgets the bundle, so the next build checks islands and styles again.
    pub fn islands_or_styles_changed(&mut self) {
        self.bundle = None;
    }
}

pub fn build(options: &Options) -> Result<Report, Vec<Diagnostic>> {
    build_in(options, &mut Session::default())
}

pub fn build_in(options: &Options, session: &mut Session) -> Result<Report, Vec<Diagnostic>> {
    let started = Instant::now();
    let mut stages = Vec::new();
    // Absolute, so paths handed to esbuild and Node mean the same from anywhere.
    let root = options.root.canonicalize().map_err(|e| {
        vec![Diagnostic::new(
            options.root.display().to_string(),
            format!("the site root cannot be used: {e}"),
        )]
    })?;
    let root = root.as_path();

    // Loading content and bundling islands do not depend on each other.
    let kept = session.bundle.clone();
    let (content, bundled) = rayon::join(
        || content::load(root),
        || match kept {
            Some(b) => Ok(b),
            None => bundle_site(root).map(|(b, t)| (Arc::new(b), t)),
        },
    );
    stages.push(("load + bundle", started.elapsed()));
    let (mut content, (bundle, tools)) = match (content, bundled) {
        (Ok(c), Ok(b)) => (c, b),
        (c, b) => {
            let mut all = c.err().unwrap_or_default();
            all.extend(b.err().unwrap_or_default());
            return Err(all);
        }
    };
    session.bundle = Some((bundle.clone(), tools.clone()));
    let overrides = Overrides {
        base_url: options.base_url.clone(),
        host: options.host,
        production: options.production,
    };
    let (resolved, mut warnings) =
        settings::resolve(root, &content.config, &overrides, options.serving)?;
    content.config.storage = resolved.storage.clone();
    content.config.host = resolved.host;

    let settings = Settings {
        base_url: resolved.base_url.clone(),
        year: build_year(),
    };
    let ssr = match &session.ssr {
        Some(ssr) if ssr.bundle_hash() == bundle.hash => ssr.clone(),
        _ => {
            let node = tools.as_ref().map(|t| t.node.clone()).unwrap_or_default();
            let ssr = Arc::new(ssr::Renderer::new(
                &node,
                bundle.server.as_deref(),
                &bundle.hash,
                root,
            ));
            session.ssr = Some(ssr.clone());
            ssr
        }
    };
    let rendered_before = ssr.stats();

    let t = Instant::now();
    let node_modules = tools.as_ref().map(|t| t.node_modules.clone());
    let renderer = render::environment(
        root,
        &content,
        &settings,
        bundle.clone(),
        ssr.clone(),
        node_modules.as_deref(),
    );
    let mut diagnostics = renderer.check_templates();
    if !diagnostics.is_empty() {
        return Err(diagnostics);
    }
    let pages = renderer.render_pages(&content.pages);
    let not_found = renderer.render_special("404.html", &not_found_page(&content));
    ssr.save();
    let (pages, not_found) = match (pages, not_found) {
        (Ok(p), Ok(n)) => (p, n),
        (p, n) => {
            diagnostics.extend(p.err().unwrap_or_default());
            diagnostics.extend(n.err());
            return Err(diagnostics);
        }
    };
    stages.push(("render", t.elapsed()));

    let t = Instant::now();
    let mut weights = Vec::new();
    if let Some(budgets) = &content.config.budgets {
        use rayon::prelude::*;
        let sizes = weight::Sizes::of(&bundle);
        weights = pages
            .par_iter()
            .map(|page| {
                let hydrating: Vec<&str> = page.islands.iter().map(String::as_str).collect();
                (
                    page.route.clone(),
                    weight::page_weight(&page.html, &hydrating, &bundle, &sizes),
                )
            })
            .collect();
        let over: Vec<String> = weights
            .iter()
            .flat_map(|(route, w)| weight::over_budget(route, *w, budgets))
            .collect();
        if options.strict_budgets && !over.is_empty() {
            return Err(over
                .into_iter()
                .map(|m| Diagnostic::new("content/site.yaml", format!("budgets: {m}")))
                .collect());
        }
        warnings.extend(over);
        stages.push(("weigh", t.elapsed()));
    }

    let t = Instant::now();
    let host = resolved.host;
    let rules = headers::rules(&headers::Policy {
        storage_origin: headers::origin(&content.config.storage.url),
    });
    let files = collect_files(
        root, &content, &settings, host, &rules, &bundle, pages, not_found,
    )
    .map_err(|e| vec![Diagnostic::new("dist/", e.to_string())])?;
    let count = files.len();
    let bytes = output::write(&options.out, &files).map_err(|e| {
        vec![Diagnostic::new(
            options.out.display().to_string(),
            e.to_string(),
        )]
    })?;
    stages.push(("write", t.elapsed()));

    Ok(Report {
        pages: content.pages.len(),
        files: count,
        bytes,
        weights,
        ssr: ssr.stats().since(rendered_before),
        bundle_rebuilt: bundle.rebuilt,
        elapsed: started.elapsed(),
        stages,
        warnings,
        host,
        served_headers: host.served_rules(&rules),
        production: resolved.production,
    })
}

/// Bundles when the site has islands or styles; a plain site needs no Node at all.
fn bundle_site(root: &Path) -> Result<(Bundle, Option<Toolchain>), Vec<Diagnostic>> {
    if !root.join("islands").is_dir() && !root.join("styles").is_dir() {
        return Ok((Bundle::empty(), None));
    }
    let tools =
        Toolchain::find(root).map_err(|e| vec![Diagnostic::new("node_modules/", e.to_string())])?;
    let bundle = bundle::bundle(root, &tools).map_err(|e| e.into_diagnostics(root))?;
    Ok((bundle, Some(tools)))
}

fn not_found_page(content: &Content) -> Page {
    Page {
        route: "/404.html".into(),
        source: "templates/404.html".into(),
        title: "Page not found".into(),
        description: content.config.description.clone(),
        layout: String::new(),
        date: None,
        tags: Vec::new(),
        blocks: Vec::new(),
        content: String::new(),
    }
}

#[allow(clippy::too_many_arguments)]
fn collect_files(
    root: &Path,
    content: &Content,
    settings: &Settings,
    host: Host,
    rules: &[Rule],
    bundle: &Bundle,
    pages: Vec<render::Rendered>,
    not_found: Option<String>,
) -> Result<Files, output::Error> {
    let mut files = Files::default();
    files.add_tree(&root.join("public"), "public")?;
    for (url, path) in &bundle.files {
        let twin = url.ends_with(".br") || url.ends_with(".gz");
        if twin && !host.serves_precompressed() {
            continue;
        }
        let rel = url.trim_start_matches('/').to_string();
        files.add(rel, Source::Immutable(path.clone()), "the bundle")?;
    }
    let policies = host.head_policies(rules);
    let page_bytes = |html: String| -> Vec<u8> {
        if policies.is_empty() {
            html.into_bytes()
        } else {
            output::insert_in_head(&html, &policies).into_bytes()
        }
    };
    for page in pages {
        let origin = format!("page {}", page.route);
        files.add(
            output::route_file(&page.route),
            Source::Bytes(page_bytes(page.html)),
            &origin,
        )?;
    }
    if let Some(html) = not_found {
        files.add(
            "404.html".into(),
            Source::Bytes(page_bytes(html)),
            "templates/404.html",
        )?;
    }
    let mut generated = vec![
        (
            "sitemap.xml",
            sitemap::sitemap(&settings.base_url, &content.pages),
        ),
        ("robots.txt", sitemap::robots(&settings.base_url)),
    ];
    generated.extend(host.config_files(rules));
    for (name, text) in generated {
        files.add(
            name.into(),
            Source::Bytes(text.into_bytes()),
            "the generator",
        )?;
    }
    Ok(files)
}

/// The year for the copyright line: from `SOURCE_DATE_EPOCH` when set (reproducible
/// builds), else today.
fn build_year() -> i32 {
    let secs = std::env::var("SOURCE_DATE_EPOCH")
        .ok()
        .and_then(|s| s.trim().parse::<i64>().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_secs() as i64)
                .unwrap_or(0)
        });
    year_of_days(secs.div_euclid(86_400))
}

/// The proleptic Gregorian year of a day count since 1970-01-01.
fn year_of_days(days: i64) -> i32 {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(month <= 2)) as i32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn computes_the_year_of_a_day() {
        assert_eq!(year_of_days(0), 1970);
        assert_eq!(year_of_days(20_453), 2025); // 2025-12-31
        assert_eq!(year_of_days(20_454), 2026); // 2026-01-01
    }
}
