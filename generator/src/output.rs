//! The write stage: the whole site is written into a temporary folder beside the
//! output and then swapped in, so a failed build never leaves a half-written site.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{0} is written twice: by {1} and by {2}")]
    Collision(String, String, String),
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> Error + '_ {
    move |source| Error::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Where a file's bytes come from.
#[derive(Debug)]
pub enum Source {
    Bytes(Vec<u8>),
    Copy(PathBuf),
    /// A file that never changes (the bundle cache): hard-linked where possible.
    /// Files an editor may change in place (`public/`) are copied instead, so the
    /// previous output can never change through a link.
    Immutable(PathBuf),
}

/// Everything that goes into the output, keyed by its path in the output.
#[derive(Debug, Default)]
pub struct Files {
    files: BTreeMap<String, (Source, String)>,
}

impl Files {
    /// Adds a file; `origin` says where it came from, for collision messages.
    pub fn add(&mut self, path: String, source: Source, origin: &str) -> Result<(), Error> {
        if let Some((_, other)) = self.files.get(&path) {
            return Err(Error::Collision(path, other.clone(), origin.to_string()));
        }
        self.files.insert(path, (source, origin.to_string()));
        Ok(())
    }

    pub fn len(&self) -> usize {
        self.files.len()
    }

    /// Adds every file under `dir` (hidden files skipped) at the same relative path.
    pub fn add_tree(&mut self, dir: &Path, origin: &str) -> Result<(), Error> {
        if !dir.is_dir() {
            return Ok(());
        }
        for entry in walkdir::WalkDir::new(dir).sort_by_file_name() {
            let entry = entry.map_err(|e| Error::Io {
                path: dir.to_path_buf(),
                source: e.into(),
            })?;
            let hidden = entry.file_name().to_string_lossy().starts_with('.');
            if hidden || !entry.file_type().is_file() {
                continue;
            }
            let rel = entry
                .path()
                .strip_prefix(dir)
                .map(|p| p.to_string_lossy().replace('\\', "/"))
                .unwrap_or_default();
            let label = format!("{origin}/{rel}");
            self.add(rel, Source::Copy(entry.into_path()), &label)?;
        }
        Ok(())
    }

    pub fn iter(&self) -> impl Iterator<Item = (&String, &Source)> {
        self.files.iter().map(|(k, (s, _))| (k, s))
    }
}

/// The output file of a route: `/` → `index.html`, `/about/` → `about/index.html`.
pub fn route_file(route: &str) -> String {
    let trimmed = route.trim_matches('/');
    if trimmed.is_empty() {
        "index.html".to_string()
    } else {
        format!("{trimmed}/index.html")
    }
}

/// `html` with `extra` placed first in its `<head>`, right after `<meta charset>`
/// when the page has one (a policy must come before what it governs).
pub fn insert_in_head(html: &str, extra: &str) -> String {
    let lower = html.to_ascii_lowercase();
    let Some(head) = lower.find("<head") else {
        return format!("{extra}{html}");
    };
    let head_end = lower[head..].find('>').map_or(head, |i| head + i + 1);
    let head_close = lower[head_end..]
        .find("</head")
        .map_or(lower.len(), |i| head_end + i);
    let at = lower[head_end..head_close]
        .find("<meta charset")
        .and_then(|i| {
            lower[head_end + i..]
                .find('>')
                .map(|j| head_end + i + j + 1)
        })
        .unwrap_or(head_end);
    format!("{}{extra}{}", &html[..at], &html[at..])
}

/// Writes `files` as the new content of `out`, replacing what was there in one step.
/// Returns the number of bytes written.
pub fn write(out: &Path, files: &Files) -> Result<u64, Error> {
    let parent = out
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(parent).map_err(io(parent))?;
    let name = out
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_else(|| "dist".into());
    let tmp = parent.join(format!(".{name}.tmp-{}", std::process::id()));
    if tmp.exists() {
        std::fs::remove_dir_all(&tmp).map_err(io(&tmp))?;
    }
    std::fs::create_dir_all(&tmp).map_err(io(&tmp))?;

    let result = write_all(&tmp, files).and_then(|bytes| swap(&tmp, out).map(|_| bytes));
    if result.is_err() {
        let _ = std::fs::remove_dir_all(&tmp);
    }
    result
}

fn write_all(dir: &Path, files: &Files) -> Result<u64, Error> {
    // Create every folder first, then write files in parallel.
    let mut dirs: Vec<PathBuf> = files
        .iter()
        .filter_map(|(rel, _)| dir.join(rel).parent().map(Path::to_path_buf))
        .collect();
    dirs.sort();
    dirs.dedup();
    for d in &dirs {
        std::fs::create_dir_all(d).map_err(io(d))?;
    }
    let entries: Vec<(&String, &Source)> = files.iter().collect();
    entries
        .par_iter()
        .map(|(rel, source)| {
            let path = dir.join(rel);
            match source {
                Source::Bytes(bytes) => std::fs::write(&path, bytes)
                    .map(|_| bytes.len() as u64)
                    .map_err(io(&path)),
                Source::Copy(from) => std::fs::copy(from, &path).map_err(io(from)),
                Source::Immutable(from) => match std::fs::hard_link(from, &path) {
                    Ok(()) => std::fs::metadata(&path).map(|m| m.len()).map_err(io(from)),
                    Err(_) => std::fs::copy(from, &path).map_err(io(from)),
                },
            }
        })
        .try_reduce(|| 0, |a, b| Ok(a + b))
}

/// Puts `tmp` in the place of `out`: an atomic exchange where the file system
/// supports it, else two renames; the old output is then removed.
fn swap(tmp: &Path, out: &Path) -> Result<(), Error> {
    if !out.exists() {
        return std::fs::rename(tmp, out).map_err(io(out));
    }
    let exchanged = rustix::fs::renameat_with(
        rustix::fs::CWD,
        tmp,
        rustix::fs::CWD,
        out,
        rustix::fs::RenameFlags::EXCHANGE,
    );
    if exchanged.is_ok() {
        // `tmp` now holds the previous output.
        let _ = std::fs::remove_dir_all(tmp);
        return Ok(());
    }
    let old = tmp.with_extension("old");
    let _ = std::fs::remove_dir_all(&old);
    std::fs::rename(out, &old).map_err(io(out))?;
    if let Err(e) = std::fs::rename(tmp, out) {
        let _ = std::fs::rename(&old, out);
        return Err(io(out)(e));
    }
    let _ = std::fs::remove_dir_all(&old);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes_map_to_index_files() {
        assert_eq!(route_file("/"), "index.html");
        assert_eq!(route_file("/about/"), "about/index.html");
        assert_eq!(route_file("/services/cloud/"), "services/cloud/index.html");
    }

    #[test]
    fn head_extras_go_right_after_the_charset() {
        let page =
            "<!doctype html><html><head>\n<meta charset=\"utf-8\">\n<title>T</title></head></html>";
        assert_eq!(
            insert_in_head(page, "<meta name=x>"),
            "<!doctype html><html><head>\n<meta charset=\"utf-8\"><meta name=x>\n<title>T</title></head></html>"
        );
        assert_eq!(
            insert_in_head("<html><head><title>T</title></head>", "<X>"),
            "<html><head><X><title>T</title></head>"
        );
    }

    #[test]
    fn a_path_written_twice_is_an_error() {
        let mut files = Files::default();
        files
            .add("a/index.html".into(), Source::Bytes(vec![]), "page /a")
            .unwrap();
        let err = files
            .add(
                "a/index.html".into(),
                Source::Bytes(vec![]),
                "public/a/index.html",
            )
            .unwrap_err();
        assert!(err.to_string().contains("page /a"));
    }

    #[test]
    fn replaces_the_previous_output_whole() {
        let dir = std::env::temp_dir().join(format!("site-output-test-{}", std::process::id()));
        let out = dir.join("dist");
        std::fs::create_dir_all(out.join("old")).unwrap();
        std::fs::write(out.join("old/file.txt"), "old").unwrap();
        let mut files = Files::default();
        files
            .add("index.html".into(), Source::Bytes(b"new".to_vec()), "test")
            .unwrap();
        write(&out, &files).unwrap();
        assert_eq!(
            std::fs::read_to_string(out.join("index.html")).unwrap(),
            "new"
        );
        assert!(!out.join("old").exists());
        let leftovers: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert_eq!(leftovers.len(), 1, "{leftovers:?}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
