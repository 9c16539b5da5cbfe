//! Which inputs a changed file belongs to, and the watcher that turns editor saves
//! into rebuilds.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use notify::event::{AccessKind, AccessMode, CreateKind, EventKind, ModifyKind};
use notify::{Event, RecursiveMode, Watcher};

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

/// The saves of one burst of the watcher's events, in order. A file being
/// written is kept in `writing` until the event that it was closed, so that a
/// writer slowed between truncating and writing (a busy machine) makes one
/// save, not an empty file and then a full one. Gives the saves, empty when the
/// batch only began writes (the caller then looks again a moment later, in
/// case a writer never closes).
fn saves_of(
    root: &Path,
    events: &[Event],
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

/// A burst that never goes quiet (a process writing without pause) is still
/// handed on once it has lasted this many debounce periods.
const LONGEST_BURST: u32 = 20;

/// Watches the input folders; sends the changes and files of each burst of
/// events (those that come less than `debounce` apart), and an empty burst when
/// a file began to be written (for the check a moment later). The returned value
/// must be kept alive for as long as watching should go on.
///
/// The thread that gathers the bursts sleeps until an event comes: a preview
/// left open with nothing saved costs no processor time.
pub fn watch(
    root: &Path,
    debounce: Duration,
    send: impl Fn(Saves) + Send + 'static,
) -> Result<impl Drop, String> {
    let root_for_events: PathBuf = root.to_path_buf();
    let (events, arrived) = std::sync::mpsc::channel();
    let mut watcher = notify::recommended_watcher(move |event: notify::Result<Event>| {
        // An error of the watcher's names no file to build: it is dropped.
        if let Ok(event) = event {
            let _ = events.send(event);
        }
    })
    .map_err(|e| format!("cannot watch for changes: {e}"))?;
    for (dir, _) in WATCHED {
        let path = root.join(dir);
        if path.is_dir() {
            watcher
                .watch(&path, RecursiveMode::Recursive)
                .map_err(|e| format!("cannot watch {}: {e}", path.display()))?;
        }
    }
    std::thread::Builder::new()
        .name("site watch".into())
        .spawn(move || {
            let mut writing = HashSet::new();
            bursts(&arrived, debounce, debounce * LONGEST_BURST, |burst| {
                let (saves, began) =
                    saves_of(&root_for_events, &burst, &mut writing, REPORTS_CLOSE);
                if !saves.changes.is_empty() || began {
                    send(saves);
                }
            });
        })
        .map_err(|e| format!("cannot watch for changes: {e}"))?;
    // Dropping the watcher closes the channel, which ends the thread.
    Ok(watcher)
}

/// Hands each burst of `arrived` to `handle`: a burst begins with the first
/// item after a quiet time and ends when nothing more comes for `quiet`, or when
/// it has lasted `longest`. Blocks until an item comes, so waiting costs
/// nothing; returns once the sending side is gone (after handing on what came).
fn bursts<T>(
    arrived: &Receiver<T>,
    quiet: Duration,
    longest: Duration,
    mut handle: impl FnMut(Vec<T>),
) {
    while let Ok(first) = arrived.recv() {
        let began = Instant::now();
        let mut burst = vec![first];
        let mut open = true;
        loop {
            let left = longest.saturating_sub(began.elapsed());
            if left.is_zero() {
                break;
            }
            match arrived.recv_timeout(quiet.min(left)) {
                Ok(item) => burst.push(item),
                Err(RecvTimeoutError::Timeout) => break,
                Err(RecvTimeoutError::Disconnected) => {
                    open = false;
                    break;
                }
            }
        }
        handle(burst);
        if !open {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;

    #[test]
    fn items_that_come_together_are_one_burst_and_the_end_of_the_sender_ends_it() {
        let (send, arrived) = std::sync::mpsc::channel();
        for n in 1..=3 {
            send.send(n).unwrap();
        }
        drop(send);
        let mut seen = Vec::new();
        // A quiet time no test waits out: only the closed channel ends the burst.
        bursts(
            &arrived,
            Duration::from_secs(3600),
            Duration::from_secs(3600),
            |b| seen.push(b),
        );
        assert_eq!(seen, [vec![1, 2, 3]]);
    }

    #[test]
    fn a_burst_ends_after_a_quiet_time() {
        let handed = Arc::new(AtomicBool::new(false));
        let (send, arrived) = std::sync::mpsc::channel();
        let seen = handed.clone();
        let sender = std::thread::spawn(move || {
            send.send("first save").unwrap();
            // The second save waits until the first burst is handed on, which
            // only the quiet time can do while this sender lives.
            let until = Instant::now() + Duration::from_secs(60);
            while !seen.load(Ordering::SeqCst) && Instant::now() < until {
                std::thread::sleep(Duration::from_millis(1));
            }
            send.send("second save").unwrap();
        });
        let mut bursts_seen = Vec::new();
        bursts(
            &arrived,
            Duration::from_millis(5),
            Duration::from_secs(3600),
            |b| {
                bursts_seen.push(b);
                handed.store(true, Ordering::SeqCst);
            },
        );
        sender.join().unwrap();
        assert_eq!(bursts_seen, [vec!["first save"], vec!["second save"]]);
    }

    #[test]
    fn events_that_never_pause_are_handed_on_in_bursts_of_bounded_length() {
        let handed = Arc::new(AtomicBool::new(false));
        let (send, arrived) = std::sync::mpsc::channel();
        let seen = handed.clone();
        let sender = std::thread::spawn(move || {
            // A writer that never pauses as long as the quiet time below, until a
            // burst is handed on: only the longest burst's bound can end one
            // while it writes. Gives whether it saw that before its deadline.
            let until = Instant::now() + Duration::from_secs(60);
            while Instant::now() < until {
                if seen.load(Ordering::SeqCst) {
                    return true;
                }
                send.send(()).unwrap();
                std::thread::sleep(Duration::from_millis(1));
            }
            false
        });
        bursts(
            &arrived,
            Duration::from_secs(3600),
            Duration::from_millis(50),
            |_| {
                handed.store(true, Ordering::SeqCst);
            },
        );
        assert!(
            sender.join().unwrap(),
            "no burst was handed on while events kept coming"
        );
    }

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
        use notify::event::{DataChange, MetadataKind};
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

    fn event(kind: EventKind, path: &str) -> Event {
        Event::new(kind).add_path(PathBuf::from(path))
    }

    #[test]
    fn a_file_written_slowly_is_saved_once_when_it_is_closed() {
        use notify::event::DataChange;
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
        use notify::event::{RemoveKind, RenameMode};
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
