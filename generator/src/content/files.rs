//! The content's files: which files under `content/pages/` are pages (in the
//! order a walk finds them), what identifies a version of one without reading it,
//! and a file's text, whose first byte that is not UTF-8 is an error at its place.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::diagnostics::{relative, Diagnostic};

/// What identifies a version of a file without reading it: its size, change
/// time and inode. Any save changes at least one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fingerprint {
    len: u64,
    modified: Option<std::time::SystemTime>,
    inode: u64,
}

impl Fingerprint {
    pub fn of(path: &Path) -> Option<Fingerprint> {
        use std::os::unix::fs::MetadataExt;
        let meta = std::fs::metadata(path).ok()?;
        Some(Fingerprint {
            len: meta.len(),
            modified: meta.modified().ok(),
            inode: meta.ino(),
        })
    }
}

/// A content file as text. A byte that is not UTF-8 is an error at its line and
/// column (in characters), shown with the line as it reads.
pub fn read_text(path: &Path, root: &Path) -> Result<String, Diagnostic> {
    let bytes = std::fs::read(path).map_err(|e| Diagnostic::io(path, root, &e))?;
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let bytes = e.as_bytes();
        let before = String::from_utf8_lossy(&bytes[..at]);
        let line = before.matches('\n').count() + 1;
        let column = before[before.rfind('\n').map_or(0, |i| i + 1)..]
            .chars()
            .count()
            + 1;
        // The text as an editor shows it: the bad byte as U+FFFD, at the same offset.
        let shown: Arc<str> = String::from_utf8_lossy(bytes).into();
        Diagnostic::new(
            relative(path, root),
            format!(
                "byte 0x{:02X} is not UTF-8; save the file as UTF-8",
                bytes[at]
            ),
        )
        .at(line, column)
        .with_snippet(shown, at, char::REPLACEMENT_CHARACTER.len_utf8())
    })
}

/// Whether `path` is a page file the walk of `content/pages/` would find.
pub fn is_page_file(path: &Path, pages_dir: &Path) -> bool {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    path.starts_with(pages_dir)
        && path.is_file()
        && !name.starts_with('.')
        && !name.ends_with('~')
        && path.extension().is_some()
}

/// The page files after saves: the last load's, without those now gone, and
/// with those now there (in the order a walk would find them).
pub fn files_after(
    before: &[PathBuf],
    saved: &std::collections::BTreeSet<PathBuf>,
    pages_dir: &Path,
) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = before
        .iter()
        .filter(|f| !saved.contains(*f) || f.is_file())
        .cloned()
        .collect();
    for path in saved {
        // Paths compare folder by folder, the order of the walk.
        if let (true, Err(at)) = (is_page_file(path, pages_dir), files.binary_search(path)) {
            files.insert(at, path.clone());
        }
    }
    files
}

/// The page files under `dir`, in a stable order. Hidden files and editor
/// backups are skipped.
pub fn page_files(dir: &Path) -> Result<Vec<PathBuf>, Diagnostic> {
    let mut files = Vec::new();
    // Links were checked (`folders`): those left stay inside the site.
    for entry in walkdir::WalkDir::new(dir)
        .follow_links(true)
        .sort_by_file_name()
    {
        let entry = entry.map_err(|e| Diagnostic::new(dir.to_string_lossy(), e.to_string()))?;
        let name = entry.file_name().to_string_lossy();
        if name.starts_with('.') && entry.depth() > 0 {
            continue;
        }
        // Files without an extension are editors' and tools' temporary files.
        let scratch = name.ends_with('~') || entry.path().extension().is_none();
        if entry.file_type().is_file() && !scratch {
            files.push(entry.into_path());
        }
    }
    Ok(files)
}
