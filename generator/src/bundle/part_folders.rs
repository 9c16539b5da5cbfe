//! The bundle's folders: a part's inputs found and hashed, its output folder
//! prepared and its older caches pruned, and the server entry written there.

use std::path::Path;

use super::{io, Error, SERVER};
use crate::diagnostics::relative;

/// The inputs of a part, found on disk.
pub(super) struct Inputs {
    pub(super) hash: String,
    /// Entry points (relative to the root), or island names for the islands part.
    pub(super) names: Vec<String>,
}

pub(super) fn prepare_out(out: &Path, live: bool) -> Result<(), Error> {
    if !live {
        let _ = std::fs::remove_dir_all(out);
    }
    std::fs::create_dir_all(out).map_err(io(out))
}

pub(super) fn write_if_changed(path: &Path, text: &str) -> Result<(), Error> {
    if std::fs::read_to_string(path).ok().as_deref() == Some(text) {
        return Ok(());
    }
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(io(parent))?;
    }
    std::fs::write(path, text).map_err(io(path))
}

/// The path that leads from the folder `from` to `to`, both absolute:
/// `/a/site` to `/a/node_modules` is `../node_modules`.
pub(super) fn path_between(from: &Path, to: &Path) -> String {
    let (from, to): (Vec<_>, Vec<_>) = (from.components().collect(), to.components().collect());
    let shared = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    let up = std::iter::repeat_n("..".to_string(), from.len() - shared);
    let down = to[shared..]
        .iter()
        .map(|c| c.as_os_str().to_string_lossy().to_string());
    up.chain(down).collect::<Vec<_>>().join("/")
}

/// `islands/Header.tsx` → `Header`.
pub(super) fn island_name(rel: &str) -> &str {
    rel.rsplit('/')
        .next()
        .unwrap_or(rel)
        .trim_end_matches(".tsx")
}

/// Hashes every file under `root/dir` (and `lock`, the packages), and lists the
/// files `entry(name, depth)` picks, relative to the root and sorted.
pub(super) fn scan(
    root: &Path,
    dir: &str,
    lock: &str,
    entry: impl Fn(&str, usize) -> bool,
) -> Result<Inputs, Error> {
    let mut hasher = blake3::Hasher::new();
    hasher.update(lock.as_bytes());
    let base = root.join(dir);
    let mut names = Vec::new();
    for e in walkdir::WalkDir::new(&base).sort_by_file_name() {
        let e = e.map_err(|err| io(&base)(err.into()))?;
        if !e.file_type().is_file() {
            continue;
        }
        let rel = relative(e.path(), root);
        let bytes = std::fs::read(e.path()).map_err(io(e.path()))?;
        hasher.update(rel.as_bytes());
        hasher.update(&(bytes.len() as u64).to_le_bytes());
        hasher.update(&bytes);
        let name = e.file_name().to_string_lossy();
        if !name.contains(".test.") && entry(&name, e.depth()) {
            names.push(rel);
        }
    }
    Ok(Inputs {
        hash: hasher.finalize().to_hex()[..16].to_string(),
        names,
    })
}

/// Keeps the cache of `kind` to its current part: older ones are never used again.
pub(super) fn prune(cache: &Path, kind: &str, keep: &str) {
    let Ok(entries) = std::fs::read_dir(cache) else {
        return;
    };
    let current = format!("{kind}-{keep}");
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().to_string();
        let ours = name.starts_with(&format!("{kind}-"));
        if ours && name != current && !name.contains(".tmp-") && !name.ends_with("-live") {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// The Node entry: the site's `render` (`islands/server.tsx`) and every island with
/// the props schema it declares in `islands/<Name>.props.ts`, as a module for the
/// server-render process to load.
pub(super) fn server_entry(root: &Path, islands: &[String]) -> String {
    let path =
        |rel: &str| serde_json::to_string(&root.join(rel).to_string_lossy()).unwrap_or_default();
    let mut src = format!("export {{ render }} from {};\n", path(SERVER));
    let mut table = Vec::new();
    for island in islands {
        src.push_str(&format!(
            "import {island} from {};\nimport {{ props as {island}Props }} from {};\n",
            path(&format!("islands/{island}.tsx")),
            path(&format!("islands/{island}.props.ts")),
        ));
        table.push(format!(
            "{island}: {{ component: {island}, props: {island}Props }}"
        ));
    }
    src.push_str(&format!(
        "export const islands = {{ {} }};\n",
        table.join(", ")
    ));
    src
}

#[cfg(test)]
mod tests {
    use super::path_between;
    use std::path::Path;

    #[test]
    fn the_path_between_two_folders_goes_up_to_what_they_share_then_down() {
        let between = |a: &str, b: &str| path_between(Path::new(a), Path::new(b));
        assert_eq!(between("/p", "/p/node_modules"), "node_modules");
        assert_eq!(
            between("/p/.site/e2e-sites/site-a", "/p/node_modules"),
            "../../../node_modules"
        );
        assert_eq!(
            between("/work/site", "/work/tools/node_modules"),
            "../tools/node_modules"
        );
        assert_eq!(between("/p", "/p"), "");
    }
}
