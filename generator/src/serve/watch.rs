//! Which inputs a changed file belongs to, and the watcher that turns editor saves
//! into rebuilds.

use std::path::{Path, PathBuf};
use std::time::Duration;

use notify_debouncer_full::notify::event::{EventKind, ModifyKind};
use notify_debouncer_full::notify::RecursiveMode;
use notify_debouncer_full::{new_debouncer, DebounceEventResult};

/// What a changed file is; it decides how much of the pipeline runs again. Every
/// kind rebuilds through the same pipeline, which skips what did not change: a
/// content file is parsed again alone (the others are kept by fingerprint), and
/// only pages whose inputs changed are rendered and written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Change {
    /// `content/`: the changed files are parsed again; their pages, and pages that
    /// list them when a listed title or date changed, are rendered again.
    Content,
    /// `templates/`: every page is rendered again.
    Templates,
    /// `public/`: the changed files are copied again.
    Public,
    /// `styles/`: the styles are bundled again (incrementally); pages are rendered
    /// again for the new stylesheet address. Islands and their renders are kept.
    Styles,
    /// `islands/`: the islands are bundled again (incrementally) and rendered by a
    /// new server-render process.
    Islands,
}

/// The folders that are watched, each with the change it means.
pub const WATCHED: [(&str, Change); 5] = [
    ("content", Change::Content),
    ("templates", Change::Templates),
    ("public", Change::Public),
    ("islands", Change::Islands),
    ("styles", Change::Styles),
];

/// The kind of change `path` is, or `None` for files that are not inputs: editor
/// swap and backup files, and anything outside the watched folders.
pub fn classify(root: &Path, path: &Path) -> Option<Change> {
    let rel = path.strip_prefix(root).ok()?;
    let name = rel.file_name()?.to_string_lossy();
    let scratch = name.starts_with('.')
        || name.ends_with('~')
        || name.ends_with(".swp")
        || name.ends_with(".swx")
        || name.ends_with(".tmp")
        || name == "4913";
    if scratch {
        return None;
    }
    let top = rel.components().next()?.as_os_str().to_string_lossy();
    WATCHED
        .iter()
        .find(|(dir, _)| *dir == top)
        .map(|(_, change)| *change)
}

/// Whether an event can change what a build reads. Reads (which the build itself
/// does) and metadata changes (access times) cannot, and must not start a build.
fn changes_content(kind: &EventKind) -> bool {
    match kind {
        EventKind::Create(_) | EventKind::Remove(_) | EventKind::Any | EventKind::Other => true,
        EventKind::Modify(ModifyKind::Metadata(_)) => false,
        EventKind::Modify(_) => true,
        EventKind::Access(_) => false,
    }
}

/// One debounced burst of saves: the kinds of change, and the files.
#[derive(Debug, Default)]
pub struct Saves {
    pub changes: Vec<Change>,
    pub paths: Vec<PathBuf>,
}

impl Saves {
    pub fn extend(&mut self, more: Saves) {
        self.changes.extend(more.changes);
        self.paths.extend(more.paths);
        self.changes.sort();
        self.changes.dedup();
        self.paths.sort();
        self.paths.dedup();
    }
}

/// Watches the input folders; sends the changes and files of each debounced
/// burst. The returned value must be kept alive for as long as watching should go on.
pub fn watch(
    root: &Path,
    debounce: Duration,
    send: impl Fn(Saves) + Send + 'static,
) -> Result<impl Drop, String> {
    let root_for_events: PathBuf = root.to_path_buf();
    let mut debouncer = new_debouncer(debounce, None, move |result: DebounceEventResult| {
        let Ok(events) = result else {
            return;
        };
        let mut saves = Saves::default();
        for path in events
            .iter()
            .filter(|e| changes_content(&e.kind))
            .flat_map(|e| e.paths.iter())
        {
            if let Some(change) = classify(&root_for_events, path) {
                saves.changes.push(change);
                saves.paths.push(path.clone());
            }
        }
        if !saves.changes.is_empty() {
            saves.extend(Saves::default());
            send(saves);
        }
    })
    .map_err(|e| format!("cannot watch for changes: {e}"))?;
    for (dir, _) in WATCHED {
        let path = root.join(dir);
        if path.is_dir() {
            debouncer
                .watch(&path, RecursiveMode::Recursive)
                .map_err(|e| format!("cannot watch {}: {e}", path.display()))?;
        }
    }
    Ok(debouncer)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_changes_by_folder() {
        let root = Path::new("/site");
        let c = |p: &str| classify(root, &root.join(p));
        assert_eq!(c("content/pages/about.yaml"), Some(Change::Content));
        assert_eq!(c("content/site.yaml"), Some(Change::Content));
        assert_eq!(c("templates/blocks/hero.html"), Some(Change::Templates));
        assert_eq!(c("public/images/map.svg"), Some(Change::Public));
        assert_eq!(c("islands/Header.tsx"), Some(Change::Islands));
        assert_eq!(c("styles/_header.css"), Some(Change::Styles));
    }

    #[test]
    fn reads_and_metadata_changes_start_no_build() {
        use notify_debouncer_full::notify::event::{
            AccessKind, CreateKind, DataChange, MetadataKind,
        };
        assert!(!changes_content(&EventKind::Access(AccessKind::Any)));
        assert!(!changes_content(&EventKind::Modify(ModifyKind::Metadata(
            MetadataKind::AccessTime
        ))));
        assert!(changes_content(&EventKind::Modify(ModifyKind::Data(
            DataChange::Content
        ))));
        assert!(changes_content(&EventKind::Create(CreateKind::File)));
    }

    #[test]
    fn ignores_editor_scratch_files_and_other_folders() {
        let root = Path::new("/site");
        let c = |p: &str| classify(root, &root.join(p));
        assert_eq!(c("content/pages/.about.yaml.swp"), None);
        assert_eq!(c("content/pages/about.yaml~"), None);
        assert_eq!(c("content/pages/4913"), None);
        assert_eq!(c("dist/index.html"), None);
        assert_eq!(c(".dist.tmp-42/index.html"), None);
        assert_eq!(c("node_modules/react/index.js"), None);
        assert_eq!(classify(root, Path::new("/elsewhere/content/x.yaml")), None);
    }
}
