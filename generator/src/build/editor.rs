//! The content editor's files, a step of its own before the write: the build
//! asks the editor for them and hands them to the write stage as plain output
//! files.

use std::path::Path;

use super::configure::Resolved;
use super::{Session, Stage};
use crate::bundle::Bundle;
use crate::content::Content;
use crate::diagnostics::Diagnostic;
use crate::output::Source;

/// The content editor's files: `site serve` always has the editor, the live
/// site when site.yaml asks for it; none for a site without its script.
pub(super) fn editor(
    root: &Path,
    content: &Content,
    settings: &Resolved,
    bundle: &Bundle,
    session: &mut Session,
) -> Stage<Option<Vec<(String, Source)>>> {
    let serving = session.written.is_some();
    if !((serving || content.config.admin.enabled) && root.join(crate::editor::ENTRY).is_file()) {
        return Ok(None);
    }
    let tools = session
        .bundles
        .tools(root)
        .map_err(|e| e.into_diagnostics(root))?;
    let base_url = &settings.render.base_url;
    crate::editor::files(
        root,
        content,
        base_url,
        bundle,
        &tools.node_modules,
        serving,
    )
    .map_err(|e| vec![Diagnostic::new(e.file(), e.to_string())])
}
