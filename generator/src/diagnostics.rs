//! Build diagnostics: every problem of a run, each with its file, line, column and
//! message, printed together with a source excerpt (miette's graphical report).

use std::fmt;
use std::path::Path;
use std::sync::Arc;

use miette::{GraphicalReportHandler, GraphicalTheme, LabeledSpan, MietteDiagnostic, NamedSource};

#[derive(Debug, Clone)]
pub struct Diagnostic {
    /// Path relative to the site root, as the editor knows it.
    pub file: String,
    pub line: Option<usize>,
    pub column: Option<usize>,
    pub message: String,
    pub snippet: Option<Snippet>,
    /// A warning is shown but does not stop the build.
    pub warning: bool,
}

#[derive(Debug, Clone)]
pub struct Snippet {
    pub source: Arc<str>,
    pub offset: usize,
    pub len: usize,
}

impl Diagnostic {
    pub fn new(file: impl Into<String>, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            file: file.into(),
            line: None,
            column: None,
            message: message.into(),
            snippet: None,
            warning: false,
        }
    }

    /// This problem as a warning: shown, but the build goes on.
    pub fn as_warning(mut self) -> Diagnostic {
        self.warning = true;
        self
    }

    pub fn at(mut self, line: usize, column: usize) -> Diagnostic {
        self.line = Some(line);
        self.column = Some(column);
        self
    }

    pub fn with_snippet(mut self, source: Arc<str>, offset: usize, len: usize) -> Diagnostic {
        self.snippet = Some(Snippet {
            source,
            offset,
            len,
        });
        self
    }

    pub fn io(path: &Path, root: &Path, err: &std::io::Error) -> Diagnostic {
        Diagnostic::new(relative(path, root), format!("cannot read or write: {err}"))
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.file)?;
        if let (Some(line), Some(column)) = (self.line, self.column) {
            write!(f, ":{line}:{column}")?;
        }
        write!(f, ": {}", self.message)
    }
}

/// The path as shown to users: relative to the site root where possible.
/// A file-system error with the path it happened at, for every module's errors.
#[derive(Debug, thiserror::Error)]
#[error("{}: {source}", path.display())]
pub struct IoError {
    pub path: std::path::PathBuf,
    #[source]
    pub source: std::io::Error,
}

impl IoError {
    /// `.map_err(IoError::at(path))`.
    pub fn at(path: &Path) -> impl FnOnce(std::io::Error) -> IoError + '_ {
        move |source| IoError {
            path: path.to_path_buf(),
            source,
        }
    }

    pub fn diagnostic(&self, root: &Path) -> Diagnostic {
        Diagnostic::io(&self.path, root, &self.source)
    }
}

pub fn relative(path: &Path, root: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .to_string_lossy()
        .replace('\\', "/")
}

/// At most this many problems are shown per file; a count stands for the rest.
const SHOWN_PER_FILE: usize = 50;

/// Renders diagnostics for the terminal: a `file:line:column: message` line each
/// (easy to grep and to click in editors), then the excerpt where there is one,
/// and the count of errors.
pub fn render(diagnostics: &[Diagnostic], color: bool) -> String {
    let mut out = render_each(diagnostics, color);
    let n = diagnostics.iter().filter(|d| !d.warning).count();
    out.push_str(&format!(
        "{n} error{} found; the previous output was left as it was\n",
        if n == 1 { "" } else { "s" }
    ));
    out
}

/// The code frame of a miette report, without the heading that repeats the
/// message (the `error: file:line:column: message` line above it says it once).
fn frame_only(report: &str) -> &str {
    let mut offset = 0;
    for line in report.split_inclusive('\n') {
        if line.contains('╭') {
            return &report[offset..];
        }
        offset += line.len();
    }
    report
}

/// Renders warnings (or any diagnostics) without the closing count.
pub fn render_each(diagnostics: &[Diagnostic], color: bool) -> String {
    let theme = if color {
        GraphicalTheme::unicode()
    } else {
        GraphicalTheme::unicode_nocolor()
    };
    let handler = GraphicalReportHandler::new_themed(theme).with_context_lines(2);
    let mut out = String::new();
    let mut per_file: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for d in diagnostics {
        let seen = per_file.entry(d.file.as_str()).or_default();
        *seen += 1;
        if *seen > SHOWN_PER_FILE {
            continue;
        }
        let kind = if d.warning { "warning" } else { "error" };
        out.push_str(&format!("{kind}: {d}\n"));
        if let Some(snippet) = &d.snippet {
            let len = snippet
                .len
                .min(snippet.source.len().saturating_sub(snippet.offset));
            let report = MietteDiagnostic::new(d.message.clone()).with_label(LabeledSpan::at(
                snippet.offset..snippet.offset + len,
                "here",
            ));
            let report = miette::Report::new(report)
                .with_source_code(NamedSource::new(&d.file, snippet.source.to_string()));
            let mut excerpt = String::new();
            if handler.render_report(&mut excerpt, report.as_ref()).is_ok() {
                out.push_str(frame_only(&excerpt));
            }
        }
    }
    let mut over: Vec<(&str, usize)> = per_file
        .into_iter()
        .filter(|(_, n)| *n > SHOWN_PER_FILE)
        .collect();
    over.sort();
    for (file, n) in over {
        out.push_str(&format!(
            "… and {} more in {file} (the first {SHOWN_PER_FILE} are shown)\n",
            n - SHOWN_PER_FILE
        ));
    }
    out
}
