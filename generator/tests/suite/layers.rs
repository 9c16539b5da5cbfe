//! The house keeps its shape: every `crate::`, `super::` and `self::` path of the
//! library is read, and a module that imports one above it, or beside it on its
//! layer, fails the test with the file, the line and both modules; so does one
//! that imports a room its row's "what it may use" does not name, unless that
//! says "everything below". The layers are
//! the table of docs/architecture.md ("The house"), the one place they are listed:
//! the rooms of `generator/src` and, for a folder with a table of its own, the
//! rooms inside it. In a folder without one, no two rooms may import each other,
//! through any chain.
//!
//! A room is a file or folder of a folder; an import between a folder's `mod.rs`
//! and what is inside the folder is the folder's own business and not checked,
//! but a name that `mod.rs` re-exports from a child counts as that child's. The
//! binary (`main.rs`, `cli.rs`, `cmd/`) is a crate of its own on top, and only
//! reaches the library through its public surface.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use regex::Regex;

/// A module's path from the library's root: `["content", "values"]`.
type ModPath = Vec<String>;

/// One import: where it is written and the module it reaches.
#[derive(Debug, Clone)]
struct Import {
    file: String,
    line: usize,
    from: ModPath,
    to: ModPath,
    text: String,
}

/// The library's modules, as its files declare them.
struct Tree {
    /// Every module, with whether it is a folder (`mod.rs`).
    modules: BTreeMap<ModPath, bool>,
    /// For each folder, the names its `mod.rs` re-exports from a child.
    reexports: HashMap<ModPath, HashMap<String, String>>,
}

impl Tree {
    /// The deepest module `path` names, following a folder's re-exports.
    fn resolve(&self, path: &[String]) -> ModPath {
        let mut at: ModPath = Vec::new();
        for segment in path {
            let mut next = at.clone();
            next.push(segment.clone());
            if self.modules.contains_key(&next) {
                at = next;
                continue;
            }
            if let Some(child) = self.reexports.get(&at).and_then(|r| r.get(segment)) {
                at.push(child.clone());
            }
            break;
        }
        at
    }
}

/// The layers a table lists, by room: (folder, room) → layer.
type Layers = BTreeMap<(ModPath, String), u32>;

/// What each room's row says it may use: (folder, room) → the rooms of its
/// folder it may import (those it names, and the shared leaves when it names
/// "the leaves"), and those it names by name, each of which it must use; no
/// entry for "everything below" or a row that says nothing of it.
type Uses = BTreeMap<(ModPath, String), (BTreeSet<String>, BTreeSet<String>)>;

/// What the check found, each as one line to print.
fn check(src: &Path, layers: &Layers, uses: &Uses) -> Vec<String> {
    let files = library_files(src);
    let tree = tree_of(src, &files);
    let imports: Vec<Import> = files
        .iter()
        .flat_map(|(path, module)| imports_of(src, path, module, &tree))
        .collect();
    let mut problems = Vec::new();
    let mut told = BTreeSet::new();
    // Every room of the library's root is on a layer.
    for (module, _) in tree.modules.iter().filter(|(m, _)| m.len() == 1) {
        if !layers.contains_key(&(Vec::new(), module[0].clone())) {
            problems.push(format!(
                "generator/src/{}: the room `{}` is on no layer of docs/architecture.md's table",
                display_file(&tree, module),
                module[0]
            ));
        }
    }
    // Each import, as an arrow between two rooms of one folder.
    let mut arrows: BTreeMap<ModPath, BTreeMap<(String, String), Import>> = BTreeMap::new();
    for import in &imports {
        let common = import
            .from
            .iter()
            .zip(&import.to)
            .take_while(|(a, b)| a == b)
            .count();
        if common == import.from.len() || common == import.to.len() {
            continue; // a folder and what is inside it
        }
        let folder = import.from[..common].to_vec();
        let (a, b) = (import.from[common].clone(), import.to[common].clone());
        match (
            layers.get(&(folder.clone(), a.clone())),
            layers.get(&(folder.clone(), b.clone())),
        ) {
            (Some(&la), Some(&lb))
                if lb <= la && told.insert((import.file.clone(), import.line, b.clone())) =>
            {
                problems.push(format!(
                "{}:{}: `{}` imports `{}` ({}), which is not below it: the layers of docs/architecture.md put `{}` on layer {} and `{}` on layer {}; arrows go down",
                import.file,
                import.line,
                room(&folder, &a),
                room(&folder, &b),
                import.text,
                room(&folder, &a),
                la,
                room(&folder, &b),
                lb
            ))
            }
            _ => {}
        }
        if let Some((named, _)) = uses.get(&(folder.clone(), a.clone())) {
            if !named.contains(&b) && told.insert((import.file.clone(), import.line, b.clone())) {
                problems.push(format!(
                    "{}:{}: `{}` imports `{}` ({}), which its row of docs/architecture.md does not name in \"what it may use\"",
                    import.file,
                    import.line,
                    room(&folder, &a),
                    room(&folder, &b),
                    import.text,
                ));
            }
        }
        arrows
            .entry(folder)
            .or_default()
            .entry((a, b))
            .or_insert_with(|| import.clone());
    }
    // A room named in a row's "what it may use" is one the room uses.
    for ((folder, a), (_, by_name)) in uses {
        let used: BTreeSet<&String> = arrows
            .get(folder)
            .map(|edges| {
                edges
                    .keys()
                    .filter(|(x, _)| x == a)
                    .map(|(_, b)| b)
                    .collect()
            })
            .unwrap_or_default();
        for b in by_name.iter().filter(|b| !used.contains(b)) {
            problems.push(format!(
                "docs/architecture.md: the row of `{}` names `{}` in \"what it may use\", which it does not use",
                room(folder, a),
                room(folder, b)
            ));
        }
    }
    // No two rooms of a folder import each other, through any chain.
    for (folder, edges) in &arrows {
        for circle in circles(edges.keys()) {
            let closing: Vec<String> = edges
                .iter()
                .filter(|((a, b), _)| circle.contains(a) && circle.contains(b))
                .map(|((a, b), i)| {
                    format!(
                        "`{}` → `{}` at {}:{} ({})",
                        room(folder, a),
                        room(folder, b),
                        i.file,
                        i.line,
                        i.text
                    )
                })
                .collect();
            let names: Vec<String> = circle
                .iter()
                .map(|r| format!("`{}`", room(folder, r)))
                .collect();
            problems.push(format!(
                "{} import each other: {}",
                names.join(", "),
                closing.join("; ")
            ));
        }
    }
    problems.sort();
    problems.dedup();
    problems
}

fn room(folder: &[String], name: &str) -> String {
    let mut parts = folder.to_vec();
    parts.push(name.to_string());
    parts.join("/")
}

fn display_file(tree: &Tree, module: &[String]) -> String {
    match tree.modules.get(module) {
        Some(true) => format!("{}/", module.join("/")),
        _ => format!("{}.rs", module.join("/")),
    }
}

/// The library's files with their modules; the binary's are left out.
fn library_files(src: &Path) -> Vec<(PathBuf, ModPath)> {
    let mut files = Vec::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("generator/src is readable") {
            let path = entry.expect("a folder entry").path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let rel = path.strip_prefix(src).expect("under src");
                let mut parts: Vec<String> = rel
                    .with_extension("")
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect();
                if matches!(parts[0].as_str(), "main" | "cli" | "cmd") {
                    continue;
                }
                if parts.last().is_some_and(|p| p == "mod") || parts == ["lib"] {
                    parts.pop();
                }
                files.push((path, parts));
            }
        }
    }
    files.sort();
    files
}

fn tree_of(src: &Path, files: &[(PathBuf, ModPath)]) -> Tree {
    let mut modules = BTreeMap::new();
    let mut reexports: HashMap<ModPath, HashMap<String, String>> = HashMap::new();
    for (path, module) in files {
        let folder = path
            .file_name()
            .is_some_and(|n| n == "mod.rs" || n == "lib.rs");
        if !module.is_empty() {
            modules.insert(module.clone(), folder);
        }
        if folder {
            let code = code_of(&std::fs::read_to_string(path).expect("readable"));
            for (segments, _, _) in use_paths(&code) {
                // `pub use child::Name` (or `self::child::Name`)
                let segments: Vec<&str> = segments
                    .iter()
                    .map(String::as_str)
                    .skip_while(|s| *s == "self")
                    .collect();
                if segments.len() >= 2 && segments[0] != "crate" && segments[0] != "super" {
                    reexports.entry(module.clone()).or_default().insert(
                        segments[segments.len() - 1].to_string(),
                        segments[0].to_string(),
                    );
                }
            }
        }
    }
    let _ = src;
    Tree { modules, reexports }
}

/// Every module a file reaches by a path, with the line it is on.
fn imports_of(src: &Path, path: &Path, module: &ModPath, tree: &Tree) -> Vec<Import> {
    let text = std::fs::read_to_string(path).expect("readable");
    let code = code_of(&text);
    let file = format!(
        "generator/src/{}",
        path.strip_prefix(src).expect("under src").display()
    );
    let folder = path
        .file_name()
        .is_some_and(|n| n == "mod.rs" || n == "lib.rs");
    // Where `super` and `self` point from this file.
    let own: ModPath = module.clone();
    let parent: ModPath = match folder {
        true => own[..own.len().saturating_sub(1)].to_vec(),
        false => own[..own.len() - 1].to_vec(),
    };
    let mut found = Vec::new();
    let mut add = |segments: &[String], line: usize, text: String| {
        let absolute: Option<ModPath> = match segments.first().map(String::as_str) {
            Some("crate") | Some("$crate") => Some(segments[1..].to_vec()),
            Some("super") => {
                let mut base = own.clone();
                let mut rest = segments;
                while rest.first().is_some_and(|s| s == "super") {
                    base = match base == own {
                        true => parent.clone(),
                        false => base[..base.len().saturating_sub(1)].to_vec(),
                    };
                    rest = &rest[1..];
                }
                Some(base.into_iter().chain(rest.iter().cloned()).collect())
            }
            _ => None,
        };
        if let Some(absolute) = absolute {
            let to = tree.resolve(&absolute);
            if !to.is_empty() && to != own {
                found.push(Import {
                    file: file.clone(),
                    line,
                    from: own.clone(),
                    to,
                    text,
                });
            }
        }
    };
    for (segments, line, text) in use_paths(&code) {
        add(&segments, line, text);
    }
    let inline = Regex::new(r"(\$?crate|super)(::[A-Za-z_][A-Za-z0-9_]*)+").expect("a regex");
    for m in inline.find_iter(&code) {
        let before = code[..m.start()].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
            continue;
        }
        let segments: Vec<String> = m.as_str().split("::").map(str::to_string).collect();
        add(&segments, line_of(&code, m.start()), m.as_str().to_string());
    }
    found
}

fn line_of(code: &str, at: usize) -> usize {
    code[..at].bytes().filter(|b| *b == b'\n').count() + 1
}

/// The paths of every `use` declaration, each expanded from its braces:
/// (segments, line, as written).
fn use_paths(code: &str) -> Vec<(Vec<String>, usize, String)> {
    let start = Regex::new(r"\buse\s+").expect("a regex");
    let mut paths = Vec::new();
    for m in start.find_iter(code) {
        let before = code[..m.start()].trim_end();
        if !(before.is_empty()
            || before.ends_with(';')
            || before.ends_with('}')
            || before.ends_with('{')
            || before.ends_with(']')
            || before.ends_with("pub")
            || before.ends_with(')'))
        {
            continue;
        }
        let Some(end) = code[m.end()..].find(';') else {
            continue;
        };
        let tree: String = code[m.end()..m.end() + end]
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect();
        let line = line_of(code, m.start());
        for segments in expand(&tree) {
            let text = segments.join("::");
            paths.push((segments, line, text));
        }
    }
    paths
}

/// `a::{b, c::{d, e}}` → `a::b`, `a::c::d`, `a::c::e`; `x as y` → `x`.
fn expand(tree: &str) -> Vec<Vec<String>> {
    let Some(open) = tree.find('{') else {
        let path = tree.split(" as ").next().unwrap_or(tree);
        let path = path.split("as").next().unwrap_or(path);
        return vec![path
            .split("::")
            .filter(|s| !s.is_empty() && *s != "*")
            .map(|s| s.trim_end_matches("as").to_string())
            .collect()];
    };
    let prefix: Vec<String> = tree[..open]
        .split("::")
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect();
    let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
    let mut items = Vec::new();
    let (mut depth, mut from) = (0, 0);
    for (i, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(&inner[from..i]);
                from = i + 1;
            }
            _ => {}
        }
    }
    items.push(&inner[from..]);
    items
        .into_iter()
        .filter(|i| !i.is_empty())
        .flat_map(|item| {
            expand(item).into_iter().map(|rest| {
                let mut path = prefix.clone();
                // `self` in braces names the prefix itself.
                path.extend(rest.into_iter().filter(|s| s != "self"));
                path
            })
        })
        .collect()
}

/// The code of a file without its comments, its strings' contents and its unit
/// tests (`#[cfg(test)] mod tests`), lines kept where they were.
fn code_of(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let blank = |s: &str| -> String {
        s.chars()
            .map(|c| if c == '\n' { '\n' } else { ' ' })
            .collect()
    };
    while i < bytes.len() {
        let rest = &text[i..];
        if rest.starts_with("//") {
            let end = rest.find('\n').unwrap_or(rest.len());
            out.push_str(&blank(&rest[..end]));
            i += end;
        } else if rest.starts_with("/*") {
            let end = rest.find("*/").map(|e| e + 2).unwrap_or(rest.len());
            out.push_str(&blank(&rest[..end]));
            i += end;
        } else if let Some(hashes) = raw_string_start(rest) {
            let close = format!("\"{}", "#".repeat(hashes));
            let open_len = 2 + hashes + usize::from(rest.starts_with("br"));
            let end = rest[open_len..]
                .find(&close)
                .map(|e| open_len + e + close.len())
                .unwrap_or(rest.len());
            out.push_str(&blank(&rest[..end]));
            i += end;
        } else if rest.starts_with('"') {
            let mut j = 1;
            let rb = rest.as_bytes();
            while j < rb.len() && rb[j] != b'"' {
                j += if rb[j] == b'\\' { 2 } else { 1 };
            }
            let end = (j + 1).min(rest.len());
            out.push_str(&blank(&rest[..end]));
            i += end;
        } else if let Some(len) = char_literal(rest) {
            out.push_str(&blank(&rest[..len]));
            i += len;
        } else {
            let c = rest.chars().next().expect("not empty");
            out.push(c);
            i += c.len_utf8();
        }
    }
    // Unit tests are not the house: drop each `#[cfg(test)]` module.
    let tests = Regex::new(r"#\[cfg\(test\)\]\s*(pub\s+)?mod\s+\w+\s*\{").expect("a regex");
    while let Some(m) = tests.find(&out) {
        let mut depth = 0;
        let mut end = out.len();
        for (k, c) in out[m.end() - 1..].char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = m.end() - 1 + k + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        let blanked = blank(&out[m.start()..end]);
        out.replace_range(m.start()..end, &blanked);
    }
    out
}

/// The number of `#`s of a raw string starting here (`r"`, `r#"`, `br"`).
fn raw_string_start(rest: &str) -> Option<usize> {
    let after = rest.strip_prefix("br").or_else(|| rest.strip_prefix('r'))?;
    let hashes = after.bytes().take_while(|b| *b == b'#').count();
    after[hashes..].starts_with('"').then_some(hashes)
}

/// The length of a character literal starting here (`'{'`, `'\n'`, `'\''`), or
/// `None` for a lifetime.
fn char_literal(rest: &str) -> Option<usize> {
    let rb = rest.as_bytes();
    if rb.first() != Some(&b'\'') {
        return None;
    }
    if rb.get(1) == Some(&b'\\') {
        let close = rest[2..].find('\'')?;
        return Some(2 + close + 1);
    }
    let c = rest[1..].chars().next()?;
    let after = 1 + c.len_utf8();
    (rest.as_bytes().get(after) == Some(&b'\'')).then_some(after + 1)
}

/// The sets of rooms that reach each other (Tarjan's strongly connected
/// components of two or more).
fn circles<'a>(edges: impl Iterator<Item = &'a (String, String)>) -> Vec<BTreeSet<String>> {
    let mut graph: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (a, b) in edges {
        graph.entry(a).or_default().push(b);
        graph.entry(b).or_default();
    }
    struct State<'g> {
        graph: &'g BTreeMap<&'g str, Vec<&'g str>>,
        index: HashMap<&'g str, usize>,
        low: HashMap<&'g str, usize>,
        stack: Vec<&'g str>,
        on: BTreeSet<&'g str>,
        found: Vec<BTreeSet<String>>,
    }
    fn visit<'g>(s: &mut State<'g>, v: &'g str) {
        let n = s.index.len();
        s.index.insert(v, n);
        s.low.insert(v, n);
        s.stack.push(v);
        s.on.insert(v);
        for &w in &s.graph[v] {
            if !s.index.contains_key(w) {
                visit(s, w);
                let lw = s.low[w];
                let lv = s.low.get_mut(v).expect("visited");
                *lv = (*lv).min(lw);
            } else if s.on.contains(w) {
                let iw = s.index[w];
                let lv = s.low.get_mut(v).expect("visited");
                *lv = (*lv).min(iw);
            }
        }
        if s.low[v] == s.index[v] {
            let mut set = BTreeSet::new();
            while let Some(w) = s.stack.pop() {
                s.on.remove(w);
                set.insert(w.to_string());
                if w == v {
                    break;
                }
            }
            if set.len() > 1 {
                s.found.push(set);
            }
        }
    }
    let mut state = State {
        graph: &graph,
        index: HashMap::new(),
        low: HashMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        found: Vec::new(),
    };
    for v in graph.keys() {
        if !state.index.contains_key(v) {
            visit(&mut state, v);
        }
    }
    state.found
}

/// The section "The house" of docs/architecture.md, with its tables.
fn house(doc: &str) -> String {
    format!("\n{doc}")
        .split("\n## ")
        .find(|s| s.starts_with("The house"))
        .expect("docs/architecture.md has a section \"The house\"")
        .to_string()
}

/// The rooms a table's cell names, each as (folder, room): `serve/`, `check.rs`,
/// `content/values.rs`.
fn rooms_of(cell: &str) -> Vec<(ModPath, String)> {
    let path = Regex::new(r"`([A-Za-z0-9_/.]+)`").expect("a regex");
    path.captures_iter(cell)
        .map(|room| {
            let mut parts: Vec<String> = room[1]
                .trim_end_matches('/')
                .trim_end_matches(".rs")
                .split('/')
                .map(str::to_string)
                .collect();
            let name = parts.pop().expect("a room");
            (parts, name)
        })
        .collect()
}

/// The layers of docs/architecture.md's tables: rows of `| N | `room`, `room` | … |`
/// under its heading "The house". A room is a path under generator/src.
fn layers_of(doc: &str) -> Layers {
    let row = Regex::new(r"^\|\s*(\d+)\s*\|([^|]*)\|").expect("a regex");
    let mut layers = Layers::new();
    for line in house(doc).lines() {
        let Some(cells) = row.captures(line) else {
            continue;
        };
        let layer: u32 = cells[1].parse().expect("a layer number");
        for room in rooms_of(&cells[2]) {
            layers.insert(room, layer);
        }
    }
    layers
}

/// What each row of the tables may use, from its fourth cell: "everything
/// below" (no entry), "nothing of …", or a list of the folder's rooms by name
/// (`content`, `output's files and headers`: `output`), "the leaves" meaning
/// the rooms on the table's last layer. Words in brackets are comments.
fn uses_of(doc: &str) -> Uses {
    let layers = layers_of(doc);
    let row = Regex::new(r"^\|\s*(\d+)\s*\|([^|]*)\|[^|]*\|([^|]*)\|").expect("a regex");
    let brackets = Regex::new(r"\([^)]*\)").expect("a regex");
    let name = Regex::new(r"^`?([a-z_]+)").expect("a regex");
    let mut uses = Uses::new();
    for line in house(doc).lines() {
        let Some(cells) = row.captures(line) else {
            continue;
        };
        let said = brackets.replace_all(&cells[3], "").trim().to_string();
        if said.is_empty()
            || said.starts_with("everything below")
            || said.contains("public surface")
        {
            continue;
        }
        for (parts, own) in rooms_of(&cells[2]) {
            let (mut named, mut by_name) = (BTreeSet::new(), BTreeSet::new());
            if !said.starts_with("nothing") {
                for item in said.split(',').map(str::trim) {
                    if item.starts_with("the leaves") {
                        let last = layers
                            .iter()
                            .filter(|((f, _), _)| *f == parts)
                            .map(|(_, l)| *l)
                            .max()
                            .unwrap_or(0);
                        named.extend(
                            layers
                                .iter()
                                .filter(|((f, _), l)| *f == parts && **l == last)
                                .map(|((_, r), _)| r.clone()),
                        );
                    } else if let Some(n) = name.captures(item) {
                        named.insert(n[1].to_string());
                        by_name.insert(n[1].to_string());
                    }
                }
            }
            uses.insert((parts, own), (named, by_name));
        }
    }
    uses
}

fn project() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

#[test]
fn arrows_go_down_and_no_two_modules_import_each_other() {
    let doc = std::fs::read_to_string(project().join("docs/architecture.md")).expect("the doc");
    let layers = layers_of(&doc);
    let problems = check(&project().join("generator/src"), &layers, &uses_of(&doc));
    assert!(
        problems.is_empty(),
        "the house lost its shape:\n{}",
        problems.join("\n")
    );
}

/// A small library of three rooms, to show the check fails when it should.
fn fixture(files: &[(&str, &str)]) -> tempfile_dir::Dir {
    let dir = tempfile_dir::Dir::new();
    for (name, text) in files {
        let path = dir.path().join(name);
        std::fs::create_dir_all(path.parent().expect("a folder")).expect("made");
        std::fs::write(path, text).expect("written");
    }
    dir
}

/// A temporary folder, removed when dropped.
mod tempfile_dir {
    pub struct Dir(std::path::PathBuf);
    impl Dir {
        pub fn new() -> Dir {
            let path = std::env::temp_dir().join(format!(
                "site-layers-{}-{}",
                std::process::id(),
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map(|d| d.as_nanos())
                    .unwrap_or_default()
            ));
            std::fs::create_dir_all(&path).expect("a temporary folder");
            Dir(path)
        }
        pub fn path(&self) -> &std::path::Path {
            &self.0
        }
    }
    impl Drop for Dir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

const TABLE: &str = "## The house\n\n| layer | room |\n|---|---|\n| 1 | `top.rs` |\n| 2 | `middle/` |\n| 3 | `leaf.rs` |\n";

#[test]
fn an_import_of_a_room_above_fails_with_the_file_the_line_and_both_rooms() {
    let src = fixture(&[
        ("lib.rs", "mod top;\nmod middle;\nmod leaf;\n"),
        ("top.rs", "use crate::leaf::h;\npub fn g() {}\n"),
        ("middle/mod.rs", "mod inner;\npub use inner::Thing;\n"),
        ("middle/inner.rs", "// `crate::top` in a comment is no import\npub struct Thing;\nfn f() { crate::leaf::h(); crate::top::g(); }\n"),
        ("leaf.rs", "pub fn h() {}\n"),
    ]);
    let problems = check(src.path(), &layers_of(TABLE), &uses_of(TABLE));
    assert_eq!(
        problems,
        ["generator/src/middle/inner.rs:3: `middle` imports `top` (crate::top::g), which is not below it: the layers of docs/architecture.md put `middle` on layer 2 and `top` on layer 1; arrows go down"]
    );
}

#[test]
fn two_rooms_of_a_folder_that_import_each_other_fail_and_so_does_a_room_on_no_layer() {
    let src = fixture(&[
        ("lib.rs", "mod top;\nmod middle;\nmod leaf;\nmod stray;\n"),
        ("top.rs", ""),
        ("middle/mod.rs", "mod a;\nmod b;\n"),
        ("middle/a.rs", "use super::b::B;\npub struct A;\n"),
        ("middle/b.rs", "use crate::middle::{a::A, self};\npub struct B;\n#[cfg(test)]\nmod tests {\n    use super::super::a::A;\n}\n"),
        ("leaf.rs", ""),
        ("stray.rs", ""),
    ]);
    let problems = check(src.path(), &layers_of(TABLE), &uses_of(TABLE));
    assert_eq!(
        problems,
        [
            "`middle/a`, `middle/b` import each other: `middle/a` → `middle/b` at generator/src/middle/a.rs:1 (super::b::B); `middle/b` → `middle/a` at generator/src/middle/b.rs:1 (crate::middle::a::A)",
            "generator/src/stray.rs: the room `stray` is on no layer of docs/architecture.md's table",
        ]
    );
}

#[test]
fn an_import_its_row_does_not_name_fails_and_so_does_a_name_it_does_not_use() {
    let table =
        "## The house\n\n| layer | room | what it does | what it may use |\n|---|---|---|---|\n\
                 | 1 | `top.rs` | the top | middle (as an example), the leaves |\n\
                 | 2 | `middle/` | the middle | nothing of the crate |\n\
                 | 3 | `leaf.rs`, `other.rs` | the leaves | nothing of the crate |\n";
    let src = fixture(&[
        ("lib.rs", "mod top;\nmod middle;\nmod leaf;\nmod other;\n"),
        ("top.rs", "use crate::leaf::h;\n"),
        ("middle/mod.rs", "use crate::other::o;\n"),
        ("leaf.rs", "pub fn h() {}\n"),
        ("other.rs", "pub fn o() {}\n"),
    ]);
    let problems = check(src.path(), &layers_of(table), &uses_of(table));
    assert_eq!(
        problems,
        [
            "docs/architecture.md: the row of `top` names `middle` in \"what it may use\", which it does not use",
            "generator/src/middle/mod.rs:1: `middle` imports `other` (crate::other::o), which its row of docs/architecture.md does not name in \"what it may use\"",
        ]
    );
}
