//! `site`, a static site generator: YAML and Markdown content rendered to HTML with
//! MiniJinja, and React islands bundled by esbuild, rendered at build time and
//! hydrated in the browser.
//!
//! The library does the work; the `site` binary only parses arguments and prints.
//! Each command is a call here with an options struct in and a report out:
//! [`build`], [`serve`] and [`check`]. A build runs the nine stages
//! [`build`](mod@build) lists: the content loaded ([`content`]) beside the
//! islands' bundle ([`bundle`]), every page rendered ([`render`]), the weights
//! judged against the budgets, and the output written ([`output`]).

pub mod build;
pub mod bundle;
pub mod check;
mod conditional;
pub mod content;
mod cors;
pub mod diagnostics;
pub mod editor;
pub mod forms;
pub mod html;
pub mod images;
mod json_lines;
pub(crate) mod lines;
pub mod output;
pub mod render;
pub mod rest;
pub mod schema;
pub mod serve;
pub mod storage;
pub(crate) mod suggest;
mod timing;
pub mod translation_status;

pub use build::{build, Options as BuildOptions, Report as BuildReport};
pub use check::{check, Summary as CheckReport};
pub use content::site::Host;
pub use diagnostics::Diagnostic;
pub use serve::{serve, Event as ServeEvent, Options as ServeOptions};
