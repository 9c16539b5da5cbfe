//! The bundle stage: esbuild builds the browser bundle (one chunk per island, shared
//! chunks, the hydration runtime, the CSS; content-hashed names and a metafile) and
//! the server-render bundle for Node. Results are cached under `.site/bundle/<hash>`,
//! keyed by a hash of every input, so an unchanged site never runs esbuild.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde::Deserialize;

use crate::diagnostics::{relative, Diagnostic};
use crate::toolchain::Toolchain;

/// Bump when the esbuild flags below change, so old caches are not reused.
const FLAGS_VERSION: &str = "2";
const RUNTIME: &str = "islands/runtime.ts";
const SERVER: &str = "islands/server.tsx";

#[derive(Debug)]
pub struct Bundle {
    /// Hash of every input; it names the cache folder and keys server renders.
    pub hash: String,
    /// Island name → its browser entry.
    pub islands: BTreeMap<String, Entry>,
    /// The hydration runtime's entry, when the site has islands.
    pub runtime: Option<Entry>,
    /// Source path (`styles/main.css`) → public URL, for the `asset()` function.
    pub entries: BTreeMap<String, String>,
    /// Every output file: public URL → file in the cache.
    pub files: BTreeMap<String, PathBuf>,
    /// Public URL → size in bytes and the URLs it imports.
    pub chunks: BTreeMap<String, Chunk>,
    /// The server-render bundle (CommonJS for Node), when the site has islands.
    pub server: Option<PathBuf>,
    /// Whether this run spawned esbuild (false: served from the cache).
    pub rebuilt: bool,
}

#[derive(Debug, Clone)]
pub struct Entry {
    pub url: String,
    /// Every chunk it imports statically, directly or not (for `modulepreload`).
    pub preload: Vec<String>,
}

#[derive(Debug, Clone)]
pub struct Chunk {
    pub imports: Vec<String>,
    pub dynamic_imports: Vec<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("esbuild failed")]
    Esbuild(Vec<Diagnostic>),
    #[error("esbuild's metafile could not be read: {0}")]
    Metafile(String),
    #[error("islands/ has islands but no {0}")]
    MissingIslandFile(&'static str),
}

impl Error {
    pub fn into_diagnostics(self, root: &Path) -> Vec<Diagnostic> {
        match self {
            Error::Esbuild(d) => d,
            Error::Io { path, source } => vec![Diagnostic::io(&path, root, &source)],
            Error::MissingIslandFile(f) => vec![Diagnostic::new(
                f,
                "missing: every site with islands needs the hydration runtime and the server-render entry",
            )],
            other => vec![Diagnostic::new("islands/", other.to_string())],
        }
    }
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> Error + '_ {
    move |source| Error::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// The inputs of the bundle stage, found on disk.
struct Inputs {
    /// Island names: `islands/<Name>.tsx` files whose name starts with a capital.
    islands: Vec<String>,
    /// Top-level `styles/*.css` files not starting with `_` (partials).
    styles: Vec<String>,
    hash: String,
}

fn scan(root: &Path, tools: &Toolchain) -> Result<Inputs, Error> {
    let mut hasher = blake3::Hasher::new();
    hasher.update(FLAGS_VERSION.as_bytes());
    hasher.update(root.to_string_lossy().as_bytes());
    for file in [
        "package-lock.json",
        "esbuild/package.json",
        "react-dom/package.json",
    ] {
        let path = if file == "package-lock.json" {
            tools.node_modules.with_file_name(file)
        } else {
            tools.node_modules.join(file)
        };
        if let Ok(bytes) = std::fs::read(&path) {
            hasher.update(file.as_bytes());
            hasher.update(&bytes);
        }
    }
    let mut islands = Vec::new();
    let mut styles = Vec::new();
    for dir in ["islands", "styles"] {
        let base = root.join(dir);
        if !base.is_dir() {
            continue;
        }
        for entry in walkdir::WalkDir::new(&base).sort_by_file_name() {
            let entry = entry.map_err(|e| Error::Io {
                path: base.clone(),
                source: e.into(),
            })?;
            if !entry.file_type().is_file() {
                continue;
            }
            let rel = relative(entry.path(), root);
            let bytes = std::fs::read(entry.path()).map_err(io(entry.path()))?;
            hasher.update(rel.as_bytes());
            hasher.update(&(bytes.len() as u64).to_le_bytes());
            hasher.update(&bytes);
            let name = entry.file_name().to_string_lossy();
            if entry.depth() != 1 {
                continue;
            }
            if dir == "islands"
                && name.ends_with(".tsx")
                && !name.contains(".test.")
                && name.starts_with(|c: char| c.is_ascii_uppercase())
            {
                islands.push(name.trim_end_matches(".tsx").to_string());
            } else if dir == "styles" && name.ends_with(".css") && !name.starts_with('_') {
                styles.push(rel);
            }
        }
    }
    Ok(Inputs {
        islands,
        styles,
        hash: hasher.finalize().to_hex()[..16].to_string(),
    })
}

pub fn bundle(root: &Path, tools: &Toolchain) -> Result<Bundle, Error> {
    let inputs = scan(root, tools)?;
    let cache = root.join(".site").join("bundle");
    let dir = cache.join(&inputs.hash);
    let mut rebuilt = false;
    if !dir.join("done").is_file() {
        build(root, tools, &inputs, &cache, &dir)?;
        rebuilt = true;
        prune(&cache, &inputs.hash);
    }
    let mut bundle = read_metafile(&dir, &inputs)?;
    bundle.rebuilt = rebuilt;
    Ok(bundle)
}

/// Runs both esbuild builds side by side into a temporary folder, then renames it
/// into place, so an interrupted build never leaves a cache entry that looks whole.
fn build(
    root: &Path,
    tools: &Toolchain,
    inputs: &Inputs,
    cache: &Path,
    dir: &Path,
) -> Result<(), Error> {
    let tmp = cache.join(format!("{}.tmp-{}", inputs.hash, std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).map_err(io(&tmp))?;

    let has_islands = !inputs.islands.is_empty();
    if has_islands {
        for f in [RUNTIME, SERVER] {
            if !root.join(f).is_file() {
                return Err(Error::MissingIslandFile(f));
            }
        }
    }

    let mut browser_entries: Vec<String> = Vec::new();
    if has_islands {
        browser_entries.push(RUNTIME.to_string());
        browser_entries.extend(inputs.islands.iter().map(|i| format!("islands/{i}.tsx")));
    }
    browser_entries.extend(inputs.styles.iter().cloned());

    let mut browser = esbuild(root, tools);
    browser
        .args(&browser_entries)
        .args([
            "--bundle",
            "--splitting",
            "--format=esm",
            "--platform=browser",
            "--target=es2020",
            "--minify",
            "--jsx=automatic",
            "--legal-comments=none",
            "--charset=utf8",
            "--entry-names=[dir]/[name]-[hash]",
            "--chunk-names=chunks/[name]-[hash]",
            "--asset-names=media/[name]-[hash]",
            "--public-path=/assets",
            "--define:process.env.NODE_ENV=\"production\"",
        ])
        .arg(format!("--outbase={}", root.display()))
        .arg(format!("--outdir={}", tmp.join("browser").display()))
        .arg(format!("--metafile={}", tmp.join("meta.json").display()));

    let mut server = if has_islands {
        let entry = tmp.join("server-entry.tsx");
        std::fs::write(&entry, server_entry(root, &inputs.islands)).map_err(io(&entry))?;
        let mut server = esbuild(root, tools);
        server
            .arg(&entry)
            .args([
                "--bundle",
                "--format=cjs",
                "--platform=node",
                "--target=node18",
                "--jsx=automatic",
                "--loader:.css=empty",
                "--legal-comments=none",
                "--define:process.env.NODE_ENV=\"production\"",
            ])
            .arg(format!("--outfile={}", tmp.join("server.cjs").display()));
        Some(server)
    } else {
        None
    };

    let browser_child = if browser_entries.is_empty() {
        None
    } else {
        Some(spawn(&mut browser)?)
    };
    let server_child = server.as_mut().map(spawn).transpose()?;
    let mut diagnostics = Vec::new();
    for child in [browser_child, server_child].into_iter().flatten() {
        let output = child.wait_with_output().map_err(io(&tools.esbuild))?;
        if !output.status.success() {
            diagnostics.extend(esbuild_diagnostics(&output));
        }
    }
    if !diagnostics.is_empty() {
        let _ = std::fs::remove_dir_all(&tmp);
        dedupe(&mut diagnostics);
        return Err(Error::Esbuild(diagnostics));
    }
    if browser_entries.is_empty() {
        std::fs::write(tmp.join("meta.json"), r#"{"outputs":{}}"#).map_err(io(&tmp))?;
    }
    precompress(&tmp.join("browser"))?;
    std::fs::write(tmp.join("done"), b"").map_err(io(&tmp))?;
    let _ = std::fs::remove_dir_all(dir);
    std::fs::rename(&tmp, dir).map_err(io(dir))?;
    Ok(())
}

/// Writes `.br` and `.gz` beside every script and stylesheet, once per bundle, for
/// hosts that serve precompressed files.
fn precompress(dir: &Path) -> Result<(), Error> {
    use rayon::prelude::*;
    use std::io::Write;
    if !dir.is_dir() {
        return Ok(());
    }
    let files: Vec<PathBuf> = walkdir::WalkDir::new(dir)
        .into_iter()
        .flatten()
        .filter(|e| e.file_type().is_file())
        .map(|e| e.into_path())
        .filter(|p| matches!(p.extension().and_then(|e| e.to_str()), Some("js" | "css")))
        .collect();
    files.par_iter().try_for_each(|path| {
        let path = path.as_path();
        let bytes = std::fs::read(path).map_err(io(path))?;
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        gz.write_all(&bytes).map_err(io(path))?;
        let gz = gz.finish().map_err(io(path))?;
        let mut br = Vec::new();
        {
            let mut w = brotli::CompressorWriter::new(&mut br, 4096, 11, 22);
            w.write_all(&bytes).map_err(io(path))?;
        }
        for (ext, data) in [("gz", gz), ("br", br)] {
            let mut name = path.as_os_str().to_owned();
            name.push(format!(".{ext}"));
            std::fs::write(&name, data).map_err(io(path))?;
        }
        Ok(())
    })
}

fn esbuild(root: &Path, tools: &Toolchain) -> Command {
    let mut cmd = Command::new(&tools.esbuild);
    cmd.current_dir(root)
        .env("NODE_PATH", &tools.node_modules)
        .args(["--log-level=error", "--color=false"]);
    cmd
}

fn spawn(cmd: &mut Command) -> Result<std::process::Child, Error> {
    cmd.stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .map_err(|source| Error::Io {
            path: PathBuf::from(cmd.get_program()),
            source,
        })
}

/// The Node entry: the site's server-render loop, given every island.
fn server_entry(root: &Path, islands: &[String]) -> String {
    let path =
        |rel: &str| serde_json::to_string(&root.join(rel).to_string_lossy()).unwrap_or_default();
    let mut src = format!("import {{ serve }} from {};\n", path(SERVER));
    for island in islands {
        src.push_str(&format!(
            "import {island} from {};\n",
            path(&format!("islands/{island}.tsx"))
        ));
    }
    src.push_str(&format!("serve({{ {} }});\n", islands.join(", ")));
    src
}

/// esbuild's text report: `✘ [ERROR] message`, a blank line, then `    file:line:col:`
/// and an excerpt. Each becomes a diagnostic with its position and excerpt.
fn esbuild_diagnostics(output: &Output) -> Vec<Diagnostic> {
    let text = String::from_utf8_lossy(&output.stderr);
    let mut out = Vec::new();
    for block in text.split("✘ [ERROR] ").skip(1) {
        let mut lines = block.lines();
        let message = lines.next().unwrap_or("").trim().to_string();
        let rest: Vec<&str> = lines.collect();
        let location = rest.iter().find_map(|l| {
            let l = l.trim().strip_suffix(':')?;
            let mut parts = l.rsplitn(3, ':');
            let col: usize = parts.next()?.parse().ok()?;
            let line: usize = parts.next()?.parse().ok()?;
            Some((parts.next()?.to_string(), line, col))
        });
        let excerpt: String = rest
            .iter()
            .filter(|l| {
                l.contains('│')
                    || l.trim_start().starts_with('╵')
                    || l.trim_start().starts_with('~')
                    || l.trim_start().starts_with('^')
            })
            .map(|l| format!("{l}\n"))
            .collect();
        let message = if excerpt.is_empty() {
            message
        } else {
            format!("{message}\n{}", excerpt.trim_end())
        };
        out.push(match location {
            // esbuild counts columns from 0.
            Some((file, line, col)) => Diagnostic::new(file, message).at(line, col + 1),
            None => Diagnostic::new("islands/", message),
        });
    }
    if out.is_empty() {
        out.push(Diagnostic::new(
            "islands/",
            format!("esbuild failed: {}", text.trim()),
        ));
    }
    out
}

fn dedupe(diagnostics: &mut Vec<Diagnostic>) {
    let mut seen = BTreeSet::new();
    diagnostics.retain(|d| seen.insert(d.to_string()));
}

/// Keeps the cache to the current bundle: older ones are never used again.
fn prune(cache: &Path, keep: &str) {
    let Ok(entries) = std::fs::read_dir(cache) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().to_string();
        if name != keep && !name.contains(".tmp-") {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

#[derive(Deserialize)]
struct Metafile {
    outputs: BTreeMap<String, MetaOutput>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct MetaOutput {
    #[serde(default)]
    entry_point: Option<String>,
    #[serde(default)]
    imports: Vec<MetaImport>,
}

#[derive(Deserialize)]
struct MetaImport {
    path: String,
    kind: String,
    #[serde(default)]
    external: bool,
}

fn read_metafile(dir: &Path, inputs: &Inputs) -> Result<Bundle, Error> {
    let meta_path = dir.join("meta.json");
    let text = std::fs::read_to_string(&meta_path).map_err(io(&meta_path))?;
    let meta: Metafile = serde_json::from_str(&text).map_err(|e| Error::Metafile(e.to_string()))?;
    // Output paths in the metafile are relative to esbuild's working directory (the
    // root) and name the temporary folder the build ran in; what follows `browser/`
    // is the public path.
    let browser = dir.join("browser");
    let url_of = |out: &str| -> Option<String> {
        let (_, rel) = out
            .replace('\\', "/")
            .split_once("/browser/")
            .map(|(a, b)| (a.to_string(), b.to_string()))?;
        Some(format!("/assets/{rel}"))
    };

    let mut files = BTreeMap::new();
    let mut chunks = BTreeMap::new();
    let mut entries = BTreeMap::new();
    for (out, info) in &meta.outputs {
        let url = url_of(out).ok_or_else(|| Error::Metafile(format!("unexpected output {out}")))?;
        if url.ends_with(".map") {
            continue;
        }
        let file = browser.join(url.trim_start_matches("/assets/"));
        for ext in ["gz", "br"] {
            let mut compressed = file.as_os_str().to_owned();
            compressed.push(format!(".{ext}"));
            let compressed = PathBuf::from(compressed);
            if compressed.is_file() {
                files.insert(format!("{url}.{ext}"), compressed);
            }
        }
        files.insert(url.clone(), file);
        let urls = |kind: &str| -> Vec<String> {
            info.imports
                .iter()
                .filter(|i| i.kind == kind && !i.external)
                .filter_map(|i| url_of(&i.path))
                .collect()
        };
        chunks.insert(
            url.clone(),
            Chunk {
                imports: urls("import-statement"),
                dynamic_imports: urls("dynamic-import"),
            },
        );
        if let Some(entry) = &info.entry_point {
            entries.insert(entry.clone(), url);
        }
    }

    let entry = |source: &str| -> Option<Entry> {
        let url = entries.get(source)?.clone();
        Some(Entry {
            preload: static_closure(&chunks, &url),
            url,
        })
    };
    let mut islands = BTreeMap::new();
    for name in &inputs.islands {
        let e = entry(&format!("islands/{name}.tsx"))
            .ok_or_else(|| Error::Metafile(format!("no output for island {name}")))?;
        islands.insert(name.clone(), e);
    }
    let runtime = if inputs.islands.is_empty() {
        None
    } else {
        Some(entry(RUNTIME).ok_or_else(|| Error::Metafile("no output for the runtime".into()))?)
    };
    let server = dir.join("server.cjs");
    Ok(Bundle {
        hash: inputs.hash.clone(),
        islands,
        runtime,
        entries,
        files,
        chunks,
        server: server.is_file().then_some(server),
        rebuilt: false,
    })
}

/// Every chunk reachable from `url` through static imports, in a stable order.
fn static_closure(chunks: &BTreeMap<String, Chunk>, url: &str) -> Vec<String> {
    let mut seen = BTreeSet::new();
    let mut stack = vec![url.to_string()];
    while let Some(u) = stack.pop() {
        if let Some(c) = chunks.get(&u) {
            for i in &c.imports {
                if seen.insert(i.clone()) {
                    stack.push(i.clone());
                }
            }
        }
    }
    seen.into_iter().collect()
}

impl Bundle {
    /// The bundle of a site with neither islands nor styles.
    pub fn empty() -> Bundle {
        Bundle {
            hash: "none".into(),
            islands: BTreeMap::new(),
            runtime: None,
            entries: BTreeMap::new(),
            files: BTreeMap::new(),
            chunks: BTreeMap::new(),
            server: None,
            rebuilt: false,
        }
    }
}
