//! The budgets stage: each page's weight, measured as it was rendered (by the
//! render's sink: this stage measures nothing), judged against
//! the budgets of `site.yaml`.

use std::sync::Arc;

use super::{Options, Stage};
use crate::content::Content;
use crate::diagnostics::Diagnostic;
use crate::output::weight::{self, Weight};
use crate::render::Rendered;

/// Each page's weight, and the warnings of the build so far with the budgets'.
pub(super) struct Judged {
    pub(super) weights: Vec<(String, Weight)>,
    pub(super) warnings: Vec<Diagnostic>,
}

/// Each page's weight (measured as it was rendered), checked against the budgets
/// of `site.yaml`: over budget is a warning, or an error under `--strict-budgets`
/// (before the new output replaces the old).
pub(super) fn budgets(
    content: &Content,
    pages: &[Arc<Rendered<Option<Weight>>>],
    options: &Options,
    mut warnings: Vec<Diagnostic>,
) -> Stage<Judged> {
    let Some(budgets) = &content.config.budgets else {
        return Ok(Judged {
            weights: Vec::new(),
            warnings,
        });
    };
    let weights: Vec<(String, Weight)> = pages
        .iter()
        .filter_map(|p| Some((p.route.clone(), p.measure?)))
        .collect();
    // A translation has the budget of the page it translates (`/de/contact/`
    // that of `/contact`), reported at its own address.
    let layouts: std::collections::HashMap<&str, &str> = content
        .pages
        .iter()
        .map(|p| (p.route.as_str(), p.layout.as_str()))
        .collect();
    let over: Vec<String> = weights
        .iter()
        .flat_map(|(route, w)| {
            let key = content.translations.original(route).unwrap_or(route);
            let layout = layouts.get(route.as_str()).copied().unwrap_or("");
            weight::over_budget(key, layout, *w, budgets)
                .into_iter()
                .map(move |m| match key == route {
                    true => m,
                    false => m.replacen(key, route, 1),
                })
        })
        .collect();
    if options.strict_budgets && !over.is_empty() {
        return Err(over
            .into_iter()
            .map(|m| Diagnostic::new("content/site.yaml", format!("budgets: {m}")))
            .collect());
    }
    warnings.extend(
        over.into_iter()
            .map(|m| Diagnostic::new("content/site.yaml", format!("budgets: {m}")).as_warning()),
    );
    Ok(Judged { weights, warnings })
}
