//! esbuild, through its JavaScript API in one Node process (`bundler.cjs`): the
//! options of each build are written once here, builds of a request run side by
//! side, errors come back structured (file, line, column), and in `site serve`
//! each build keeps an incremental context, so a rebuild reuses what did not change.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::toolchain::Toolchain;
use super::Error;
use crate::diagnostics::{Diagnostic, IoError};
use crate::json_lines::{self, Process};

const SCRIPT: &str = include_str!("bundler.cjs");

/// The kinds of build, each with its own options.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `styles/*.css` (not partials), minified, with hashed names.
    Styles,
    /// The islands and the hydration runtime for browsers: ESM with code splitting.
    Browser,
    /// Every island for Node, for the server render: one CommonJS file.
    Server,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Styles => "styles",
            Kind::Browser => "browser",
            Kind::Server => "server",
        }
    }
}

/// One build to run: its kind, entry points (relative to the root) and output.
#[derive(Debug, Clone)]
pub struct Spec {
    pub kind: Kind,
    pub entries: Vec<String>,
    /// A folder for styles and browser builds, the file for the server build.
    pub out: PathBuf,
}

impl Spec {
    /// esbuild's options for this build: every flag of the bundle, in one place.
    fn options(&self, root: &Path) -> Value {
        let production = json!({ "process.env.NODE_ENV": "\"production\"" });
        match self.kind {
            Kind::Styles => json!({
                "absWorkingDir": root, "entryPoints": self.entries, "bundle": true,
                "minify": true, "charset": "utf8", "legalComments": "none",
                "outbase": root, "outdir": self.out, "publicPath": "/assets",
                "entryNames": "[dir]/[name]-[hash]", "assetNames": "media/[name]-[hash]",
                "loader": { ".woff2": "file" },
            }),
            Kind::Browser => json!({
                "absWorkingDir": root, "entryPoints": self.entries, "bundle": true,
                "splitting": true, "format": "esm", "platform": "browser", "target": "es2020",
                "minify": true, "jsx": "automatic", "charset": "utf8", "legalComments": "none",
                "outbase": root, "outdir": self.out, "publicPath": "/assets",
                "entryNames": "[dir]/[name]-[hash]", "chunkNames": "chunks/[name]-[hash]",
                "assetNames": "media/[name]-[hash]", "define": production,
            }),
            // React stays outside the server bundle: Node loads it from
            // node_modules, which makes the bundle small and quick to rebuild.
            Kind::Server => json!({
                "absWorkingDir": root, "entryPoints": self.entries, "bundle": true,
                "format": "cjs", "platform": "node", "target": "node18", "jsx": "automatic",
                "loader": { ".css": "empty" }, "legalComments": "none",
                "external": ["react", "react/*", "react-dom", "react-dom/*"],
                "sourcemap": true, "sourcesContent": false,
                "outfile": self.out, "define": production,
            }),
        }
    }
}

/// Bump when the options above change, so cached bundles are not reused.
pub const OPTIONS_VERSION: &str = "6";

/// esbuild's metafile: what each output is and imports.
#[derive(Debug, Deserialize)]
pub struct Metafile {
    pub outputs: std::collections::BTreeMap<String, MetaOutput>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MetaOutput {
    #[serde(default)]
    pub entry_point: Option<String>,
    #[serde(default)]
    pub imports: Vec<MetaImport>,
}

#[derive(Debug, Deserialize)]
pub struct MetaImport {
    pub path: String,
    pub kind: String,
    #[serde(default)]
    pub external: bool,
}

#[derive(Deserialize)]
struct Reply {
    #[serde(default)]
    fatal: Option<String>,
    #[serde(default)]
    results: Vec<Outcome>,
}

#[derive(Deserialize)]
struct Outcome {
    name: String,
    #[serde(default)]
    metafile: Option<Metafile>,
    #[serde(default)]
    errors: Vec<Message>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Message {
    text: String,
    #[serde(default)]
    file: Option<String>,
    #[serde(default)]
    line: Option<usize>,
    #[serde(default)]
    column: Option<usize>,
    #[serde(default)]
    line_text: Option<String>,
}

impl Message {
    fn diagnostic(self) -> Diagnostic {
        let mut message = self.text;
        if let (Some(text), Some(col)) = (&self.line_text, self.column) {
            message.push_str(&format!(
                "\n  {text}\n  {}^",
                " ".repeat(col.saturating_sub(1))
            ));
        }
        match (self.file, self.line, self.column) {
            (Some(file), Some(line), Some(column)) => {
                Diagnostic::new(file, message).at(line, column)
            }
            (Some(file), _, _) => Diagnostic::new(file, message),
            _ => Diagnostic::new("islands/", message),
        }
    }
}

#[derive(Serialize)]
struct Request<'a> {
    id: u64,
    live: bool,
    builds: Vec<BuildRequest<'a>>,
}

#[derive(Serialize)]
struct BuildRequest<'a> {
    name: &'a str,
    options: Value,
}

/// The Node process running esbuild. Dropping it ends the process.
pub struct Bundler {
    process: Process,
    next_id: u64,
    /// Keep incremental contexts between requests (`site serve`).
    live: bool,
}

impl Bundler {
    pub fn start(tools: &Toolchain, root: &Path, live: bool) -> Result<Bundler, Error> {
        let mut command = Command::new(&tools.node);
        command
            .arg("--eval")
            .arg(SCRIPT)
            .current_dir(root)
            .env("SITE_ESBUILD_MODULE", tools.node_modules.join("esbuild"));
        if let Some(binary) = &tools.esbuild_binary {
            command.env("ESBUILD_BINARY_PATH", binary);
        }
        let process = Process::spawn(command).map_err(|e| match e {
            json_lines::Error::Spawn { source, .. } => Error::Io(IoError::at(&tools.node)(source)),
            other => Error::Bundler(other.to_string()),
        })?;
        Ok(Bundler {
            process,
            next_id: 1,
            live,
        })
    }

    /// Runs `specs` side by side; the metafile of each, in order, or every error.
    /// A run that takes longer than `limit` stops the process and fails.
    pub fn run(
        &mut self,
        root: &Path,
        specs: &[Spec],
        limit: std::time::Duration,
    ) -> Result<Vec<Metafile>, Error> {
        let id = self.next_id;
        self.next_id += 1;
        let request = Request {
            id,
            live: self.live,
            builds: specs
                .iter()
                .map(|s| BuildRequest {
                    name: s.kind.name(),
                    options: s.options(root),
                })
                .collect(),
        };
        let reply: Reply = self
            .process
            .exchange(&request, limit)
            .map_err(|e| match e {
                json_lines::Error::TimedOut(limit) => Error::Bundler(format!(
                    "esbuild did not finish within {}, so it was stopped: look for an import that \
                 never resolves or a plugin that never returns (`timeouts.bundle` in \
                 content/site.yaml sets the limit)",
                    json_lines::seconds(limit)
                )),
                json_lines::Error::Stopped(how) => Error::BundlerStopped(how),
                other => Error::Bundler(format!("the bundler: {other}")),
            })?;
        if let Some(fatal) = reply.fatal {
            return Err(Error::Bundler(fatal));
        }
        // Results come in the order of the request.
        if reply.results.len() != specs.len()
            || reply
                .results
                .iter()
                .zip(specs)
                .any(|(o, s)| o.name != s.kind.name())
        {
            return Err(Error::Bundler(
                "the bundler answered another request".into(),
            ));
        }
        let mut metafiles = Vec::new();
        let mut diagnostics = Vec::new();
        for outcome in reply.results {
            match outcome.metafile {
                Some(m) if outcome.errors.is_empty() => metafiles.push(m),
                _ => diagnostics.extend(outcome.errors.into_iter().map(Message::diagnostic)),
            }
        }
        if diagnostics.is_empty() {
            Ok(metafiles)
        } else {
            let mut seen = std::collections::BTreeSet::new();
            diagnostics.retain(|d| seen.insert(d.to_string()));
            Err(Error::Esbuild(diagnostics))
        }
    }
}
