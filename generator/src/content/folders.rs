//! The folders the build reads (`content/`, `templates/`, `public/`), checked
//! before anything is read from them: a symbolic link that leads outside the site
//! root, a link loop, a link to nothing, and anything that is not a file or a
//! folder (a named pipe would hang the read) are errors naming the path. Links
//! that stay inside the root are followed like the files they lead to.

use std::collections::HashSet;
use std::fs::FileType;
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};

use crate::diagnostics::{relative, Diagnostic};

/// The folders of a site the build reads files from.
pub const READ: [&str; 3] = ["content", "templates", "public"];

/// Every problem of the folders, in path order; empty when all is well.
pub fn check(root: &Path) -> Vec<Diagnostic> {
    let Ok(real_root) = root.canonicalize() else {
        return Vec::new();
    };
    let mut walk = Walk {
        root,
        real_root: &real_root,
        seen: HashSet::new(),
        problems: Vec::new(),
    };
    for dir in READ {
        walk.folder(&root.join(dir));
    }
    walk.problems
}

struct Walk<'a> {
    root: &'a Path,
    real_root: &'a Path,
    /// Real paths of the folders walked, so each is walked once.
    seen: HashSet<PathBuf>,
    problems: Vec<Diagnostic>,
}

impl Walk<'_> {
    fn problem(&mut self, path: &Path, message: String) {
        self.problems
            .push(Diagnostic::new(relative(path, self.root), message));
    }

    /// Walks `dir` as the build sees it (`path` names it, possibly through links).
    fn folder(&mut self, dir: &Path) {
        let Ok(meta) = std::fs::symlink_metadata(dir) else {
            return;
        };
        if meta.file_type().is_symlink() {
            self.link(dir);
            return;
        }
        if let Ok(real) = dir.canonicalize() {
            if !self.seen.insert(real) {
                return;
            }
        }
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        let mut entries: Vec<_> = entries.flatten().collect();
        entries.sort_by_key(|e| e.file_name());
        for entry in entries {
            // Hidden files and folders are never read.
            if entry.file_name().to_string_lossy().starts_with('.') {
                continue;
            }
            let path = entry.path();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_symlink() {
                self.link(&path);
            } else if kind.is_dir() {
                self.folder(&path);
            } else if !kind.is_file() {
                self.problem(&path, not_a_file(kind));
            }
        }
    }

    fn link(&mut self, path: &Path) {
        let target = std::fs::read_link(path)
            .map(|t| t.display().to_string())
            .unwrap_or_default();
        let real = match path.canonicalize() {
            Ok(real) => real,
            Err(e) if e.raw_os_error() == Some(rustix::io::Errno::LOOP.raw_os_error()) => {
                // Links that lead to each other.
                return self.problem(
                    path,
                    format!("a symbolic link loop (to `{target}`): it never reaches a file; remove it or point it at a file of the site"),
                );
            }
            Err(_) => {
                return self.problem(
                    path,
                    format!("a symbolic link to `{target}`, which does not exist; remove it or point it at a file of the site"),
                );
            }
        };
        if !real.starts_with(self.real_root) {
            return self.problem(
                path,
                format!(
                    "a symbolic link to `{}`, outside the site: the build reads only files inside \
                     the site's folder; copy the file in instead",
                    real.display()
                ),
            );
        }
        let Ok(meta) = std::fs::metadata(&real) else {
            return;
        };
        if meta.is_dir() {
            let real_parent = path
                .parent()
                .and_then(|p| p.canonicalize().ok())
                .unwrap_or_default();
            if real_parent.starts_with(&real) {
                return self.problem(
                    path,
                    format!(
                        "a symbolic link loop: it leads back to `{}`, a folder it is in, so the \
                         folder would never end; remove it",
                        real.strip_prefix(self.real_root).unwrap_or(&real).display()
                    ),
                );
            }
            self.folder(&real);
        } else if !meta.is_file() {
            self.problem(path, not_a_file(meta.file_type()));
        }
    }
}

fn not_a_file(kind: FileType) -> String {
    let what = if kind.is_fifo() {
        "a named pipe"
    } else if kind.is_socket() {
        "a socket"
    } else if kind.is_block_device() || kind.is_char_device() {
        "a device"
    } else {
        "something else"
    };
    format!("{what}, not a file: the build reads only files and folders; remove it")
}
