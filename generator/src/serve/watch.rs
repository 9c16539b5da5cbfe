//! Which inputs a changed file belongs to, and the watcher that turns editor saves
//! into rebuilds.

use std::path::{Path, PathBuf};
use std::time::Duration;

use std::collections::HashSet;

use notify_debouncer_full::notify::event::{
    AccessKind, AccessMode, CreateKind, EventKind, ModifyKind,
};
use notify_debouncer_full::notify::RecursiveMode;
use notify_debouncer_full::{new_debouncer, DebounceEventResult, DebouncedEvent};

/// What a changed file is; it decides how much of the build runs again. Every
/// kind rebuilds through the same build, which skips what did not change: a
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

/// What an event says of its file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Meaning {
    /// Nothing a build reads changed: a read (which the build itself does), or
    /// metadata (access times).
    Nothing,
    /// The file is being written: truncated, written to or created, and not yet
    /// closed. Read now, it may be empty or half written.
    Writing,
    /// The file is as its writer left it: closed after writing, renamed,
    /// removed, or changed on a system whose watcher does not report closes.
    Saved,
}

/// Whether the system tells when a file written to is closed (Linux's inotify
/// does). Where it does, one save is one build however long the writer takes
/// between truncating the file and writing it; elsewhere a write is a save.
const REPORTS_CLOSE: bool = cfg!(target_os = "linux");

fn meaning(kind: &EventKind, reports_close: bool) -> Meaning {
    match kind {
        EventKind::Access(AccessKind::Close(AccessMode::Write)) => Meaning::Saved,
        EventKind::Access(_) | EventKind::Modify(ModifyKind::Metadata(_)) => Meaning::Nothing,
        EventKind::Modify(ModifyKind::Name(_))
        | EventKind::Remove(_)
        | EventKind::Create(CreateKind::Folder)
        | EventKind::Any
        | EventKind::Other => Meaning::Saved,
        EventKind::Create(_) | EventKind::Modify(_) => match reports_close {
            true => Meaning::Writing,
            false => Meaning::Saved,
        },
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

/// The saves of one batch of the debouncer's events, in order. A file being
/// written is kept in `writing` until the event that it was closed, so that a
/// writer slowed between truncating and writing (a busy machine) makes one
/// save, not an empty file and then a full one. Gives the saves, empty when the
/// batch only began writes (the caller then looks again a moment later, in
/// case a writer never closes).
fn saves_of(
    root: &Path,
    events: &[DebouncedEvent],
    writing: &mut HashSet<PathBuf>,
    reports_close: bool,
) -> (Saves, bool) {
    let mut saves = Saves::default();
    let mut began = false;
    for event in events {
        let meaning = meaning(&event.kind, reports_close);
        for path in &event.paths {
            let Some(change) = classify(root, path) else {
                continue;
            };
            match meaning {
                Meaning::Nothing => {}
                Meaning::Writing => {
                    began |= writing.insert(path.clone());
                }
                Meaning::Saved => {
                    writing.remove(path);
                    saves.changes.push(change);
                    saves.paths.push(path.clone());
                }
            }
        }
    }
    saves.extend(Saves::default());
    (saves, began)
}

/// Watches the input folders; sends the changes and files of each debounced
/// burst, and an empty burst when a file began to be written (for the check a
/// moment later). The returned value must be kept alive for as long as
/// watching should go on.
pub fn watch(
    root: &Path,
    debounce: Duration,
    send: impl Fn(Saves) + Send + 'static,
) -> Result<impl Drop, String> {
    let root_for_events: PathBuf = root.to_path_buf();
    let mut writing = HashSet::new();
    let mut debouncer = new_debouncer(debounce, None, move |result: DebounceEventResult| {
        let Ok(events) = result else {
            return;
        };
        let (saves, began) = saves_of(&root_for_events, &events, &mut writing, REPORTS_CLOSE);
        if !saves.changes.is_empty() || began {
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
        use notify_debouncer_full::notify::event::{DataChange, MetadataKind};
        let m = |kind| meaning(&kind, true);
        assert_eq!(m(EventKind::Access(AccessKind::Any)), Meaning::Nothing);
        assert_eq!(
            m(EventKind::Access(AccessKind::Close(AccessMode::Read))),
            Meaning::Nothing
        );
        assert_eq!(
            m(EventKind::Modify(ModifyKind::Metadata(
                MetadataKind::AccessTime
            ))),
            Meaning::Nothing
        );
        // Where closes are not reported, a write is the save.
        assert_eq!(
            meaning(
                &EventKind::Modify(ModifyKind::Data(DataChange::Content)),
                false
            ),
            Meaning::Saved
        );
    }

    fn event(kind: EventKind, path: &str) -> DebouncedEvent {
        let event = notify_debouncer_full::notify::Event::new(kind).add_path(PathBuf::from(path));
        DebouncedEvent::new(event, std::time::Instant::now())
    }

    #[test]
    fn a_file_written_slowly_is_saved_once_when_it_is_closed() {
        use notify_debouncer_full::notify::event::DataChange;
        let root = Path::new("/site");
        let page = "/site/content/pages/index.yaml";
        let write = EventKind::Modify(ModifyKind::Data(DataChange::Any));
        let mut writing = HashSet::new();
        // The truncation comes in one batch, the write and the close in the next.
        let (first, began) = saves_of(root, &[event(write, page)], &mut writing, true);
        assert!(first.paths.is_empty() && began);
        let closed = EventKind::Access(AccessKind::Close(AccessMode::Write));
        let (second, began) = saves_of(
            root,
            &[event(write, page), event(closed, page)],
            &mut writing,
            true,
        );
        assert_eq!(second.paths, [PathBuf::from(page)]);
        assert_eq!(second.changes, [Change::Content]);
        assert!(!began && writing.is_empty());
    }

    #[test]
    fn a_new_file_is_saved_when_closed_and_a_rename_or_removal_at_once() {
        use notify_debouncer_full::notify::event::{RemoveKind, RenameMode};
        let root = Path::new("/site");
        let mut writing = HashSet::new();
        let created = EventKind::Create(CreateKind::File);
        let (saves, _) = saves_of(
            root,
            &[event(created, "/site/content/a.yaml")],
            &mut writing,
            true,
        );
        assert!(saves.paths.is_empty());
        let renamed = EventKind::Modify(ModifyKind::Name(RenameMode::To));
        let removed = EventKind::Remove(RemoveKind::File);
        let (saves, _) = saves_of(
            root,
            &[
                event(renamed, "/site/content/b.yaml"),
                event(removed, "/site/styles/c.css"),
            ],
            &mut writing,
            true,
        );
        assert_eq!(saves.changes, [Change::Content, Change::Styles]);
        assert_eq!(saves.paths.len(), 2);
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
