//! The configure stage: the build's settings (`site.yaml`, the environment and the command line)
//! resolved once, and what the later stages take from them (the host, its
//! header rules, what every page's render reads).

use std::path::Path;

use super::{Options, Stage};
use crate::content::settings::{self, Overrides};
use crate::content::site::Host;
use crate::content::Content;
use crate::diagnostics::Diagnostic;
use crate::output::headers::{self, Rule};
use crate::output::hosts::HostOutput;
use crate::render::BuildValues;

/// The build's settings (site.yaml, the environment, the command line); a
/// production build that lacks what the live site needs stops here.
pub(super) fn resolve(
    root: &Path,
    options: &Options,
    content: &mut Content,
) -> Stage<(Resolved, Vec<Diagnostic>)> {
    let overrides = Overrides {
        base_url: options.base_url.clone(),
        host: options.host,
        production: options.production,
    };
    let (resolved, warnings) =
        settings::resolve(root, &content.config, &overrides, options.serving)?;
    content.config.storage = resolved.storage.clone();
    content.config.host = resolved.host;
    let editor = (options.serving || content.config.admin.enabled)
        && root.join(crate::editor::ENTRY).is_file();
    let rules = headers::rules(&headers::Policy {
        storage_origin: headers::origin(&content.config.storage.url),
        production: resolved.production,
        editor: editor.then(|| {
            crate::editor::content_security_policy(&content.config.admin, options.serving)
        }),
    });
    let render = BuildValues {
        base_url: resolved.base_url.clone(),
        year: build_year(),
        head: resolved.host.head_policies(&rules),
    };
    Ok((
        Resolved {
            host: resolved.host,
            production: resolved.production,
            rules,
            render,
        },
        warnings
            .into_iter()
            .map(|w| Diagnostic::new("content/site.yaml", w).as_warning())
            .collect(),
    ))
}

/// The settings later stages use.
pub(super) struct Resolved {
    pub(super) host: Host,
    pub(super) production: bool,
    pub(super) rules: Vec<Rule>,
    pub(super) render: BuildValues,
}

/// The year for the copyright line: from `SOURCE_DATE_EPOCH` when set (reproducible
/// builds), else today.
pub(super) fn build_year() -> i32 {
    use chrono::Datelike;
    std::env::var("SOURCE_DATE_EPOCH")
        .ok()
        .and_then(|s| s.trim().parse::<i64>().ok())
        .and_then(|secs| chrono::DateTime::from_timestamp(secs, 0))
        .unwrap_or_else(chrono::Utc::now)
        .year()
}
