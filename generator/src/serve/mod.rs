//! `site serve`: builds, serves the output as the site's host would, rebuilds on
//! every saved change, reloads open pages, and hosts the storage API. What happens
//! is told to the caller as [`Event`]s; the library prints nothing.

mod connections;
mod hosting;
mod live;
mod watch;

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{mpsc, Arc, RwLock};
use std::time::Duration;

use axum::routing::get;
use axum::Router;

use crate::build::{self, Report, Session};
use crate::content;
use crate::content::openings::Opening;
use crate::diagnostics::{self, Diagnostic};
use crate::editor::{self, Draft};
use crate::rest;
use crate::storage::{self, Bucket, Store};
use hosting::Files;
use live::Live;
use watch::{Change, Saves};

/// Saves arriving within this long of each other make one rebuild.
const DEBOUNCE: Duration = Duration::from_millis(5);

#[derive(Debug, Clone)]
pub struct Options {
    pub build: build::Options,
    /// The address to listen on.
    pub host: String,
    /// The port to listen on; 0 picks a free one.
    pub port: u16,
    /// Count the messages' senders by the address a proxy in front saw
    /// (CF-Connecting-IP, else X-Forwarded-For's last entry).
    pub trust_proxy: bool,
    /// Each page gets the live reload script (which also shows the build's
    /// warnings); without it, pages are served as a visitor gets them.
    pub live_reload: bool,
}

/// What `serve` reports as it goes.
#[derive(Debug)]
pub enum Event<'a> {
    /// A build (the first, or one after a save) succeeded and is being served.
    Built(&'a Report),
    /// A build failed; the last good site is still served.
    Failed(&'a [Diagnostic]),
    /// The server listens on this address (the output folder is second).
    Listening(SocketAddr, &'a std::path::Path),
    /// Something the user should know that stops nothing.
    Warning(String),
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{0}: the site root cannot be used: {1}")]
    Root(PathBuf, std::io::Error),
    #[error("cannot prepare the storage folder .site/storage: {0}")]
    Storage(std::io::Error),
    #[error("cannot prepare a folder of the forms' rows under .site/: {0}")]
    Messages(crate::rest::InboxError),
    #[error("{0}")]
    Watch(String),
    #[error("cannot start the server runtime: {0}")]
    Runtime(std::io::Error),
    #[error("cannot listen on {0}: {1}")]
    Listen(String, std::io::Error),
    #[error("the server stopped: {0}")]
    Stopped(std::io::Error),
}

/// Builds, then serves until interrupted (Ctrl-C).
pub fn serve<F>(options: Options, on_event: F) -> Result<(), Error>
where
    F: Fn(Event) + Send + Sync + 'static,
{
    let Options {
        build: mut build_options,
        host,
        port,
        trust_proxy,
        live_reload,
    } = options;
    build_options.serving = true;
    // The preview shows what is not published yet, with its badge.
    build_options.drafts = true;
    build_options.root = build_options
        .root
        .canonicalize()
        .map_err(|e| Error::Root(build_options.root.clone(), e))?;
    let on_event = Arc::new(on_event);
    let live = Arc::new(Live::new());
    let files = Arc::new(Files::new(&build_options.out, live_reload));
    let mut session = Session::serving();
    let mut panel = Panel::default();
    // The postings of the last good build, for the applications' table.
    let openings: Arc<RwLock<Vec<Opening>>> = Arc::default();
    let served = Served {
        live: live.clone(),
        files: files.clone(),
        openings: openings.clone(),
    };
    if let Some(outcome) = build(&build_options, &mut session, &served, &*on_event, false) {
        announce(&served, &mut panel, outcome, true);
    }

    let mut store = storage_for(&build_options, &*on_event)?;
    // The built-in storage takes CVs for the postings of the last build that
    // are open now, as the bucket's policy takes them for public.job_openings.
    let postings = openings.clone();
    store.takes_applications = storage::OpenPostings(Arc::new(move |job: &str| {
        let now = chrono::Utc::now();
        postings
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
            .any(|o| o.job_id == job && o.closes_at > now)
    }));
    let store = Arc::new(store);
    let inboxes = crate::forms::TABLES
        .iter()
        .map(|table| rest::Inbox::open(&build_options.root, table))
        .collect::<Result<_, _>>()
        .map_err(Error::Messages)?;
    let backend = Arc::new(rest::http::Backend {
        inboxes,
        anon_key: store.anon_key.clone(),
        store: store.clone(),
        openings,
        storage_url: content::storage_settings(&build_options.root).url,
        trust_proxy,
    });
    let (tx, rx) = mpsc::channel();
    let saves = tx.clone();
    let _watcher = watch::watch(&build_options.root, DEBOUNCE, move |s| {
        let _ = saves.send(Work::Saves(s));
    })
    .map_err(Error::Watch)?;
    {
        let (options, on_event) = (build_options.clone(), on_event.clone());
        std::thread::spawn(move || {
            rebuild_loop(&options, session, panel, &rx, &served, &*on_event)
        });
    }

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(Error::Runtime)?;
    let out = build_options.out.clone();
    let root = build_options.root.clone();
    runtime.block_on(async move {
        let addr = format!("{host}:{port}");
        let listener = connections::listen(&addr)
            .await
            .map_err(|e| Error::Listen(addr.clone(), e))?;
        let local: SocketAddr = listener.local_addr().map_err(|e| Error::Listen(addr, e))?;
        on_event(Event::Listening(local, &out));
        let shutdown = async {
            let _ = tokio::signal::ctrl_c().await;
        };
        // The editor's previews are rendered between builds, by the rebuild thread.
        let work = tx.clone();
        let drafts: editor::Drafts = Arc::new(move |draft| tx.send(Work::Preview(draft)).is_ok());
        let editor = editor::routes(root, drafts);
        connections::serve(
            listener,
            app(live, files, store, backend, editor, work),
            shutdown,
        )
        .await
        .map_err(Error::Stopped)
    })
}

/// The built-in storage: the production project's buckets, under `.site/storage/`.
fn storage_for(options: &build::Options, on_event: &dyn Fn(Event)) -> Result<Store, Error> {
    let settings = content::storage_settings(&options.root);
    let buckets: Vec<Bucket> = storage::policy::BUCKETS
        .iter()
        .map(|p| Bucket::from_policy(p))
        .collect();
    if !buckets.iter().any(|b| b.name == settings.bucket) {
        let names: Vec<&str> = storage::policy::BUCKETS.iter().map(|b| b.name).collect();
        on_event(Event::Warning(format!(
            "storage.bucket `{}` does not exist in production (supabase/migrations creates {}); \
             uploads will be refused with 404, here as there",
            settings.bucket,
            names.join(", ")
        )));
    }
    let dir = options.root.join(".site").join("storage");
    let mut store = Store::new(&dir, buckets, &settings.anon_key).map_err(Error::Storage)?;
    store.service_key = storage::service_key(&dir).map_err(Error::Storage)?;
    Ok(store)
}

fn app(
    live: Arc<Live>,
    files: Arc<Files>,
    store: Arc<Store>,
    backend: Arc<rest::http::Backend>,
    editor: Router,
    work: mpsc::Sender<Work>,
) -> Router {
    let live_routes = Router::new()
        .route(live::EVENTS_PATH, get(live::events))
        .route(live::SCRIPT_PATH, get(live::script))
        .with_state(live);
    let parts = Router::new()
        .route(PARTS_PATH, get(parts_route))
        .with_state(work);
    let site = Router::new().fallback(hosting::serve).with_state(files);
    live_routes
        .merge(parts)
        .merge(storage::http::router(store))
        .merge(rest::http::router(backend))
        .merge(editor)
        .merge(site)
}

/// The warnings panel of the last build, kept while the warnings stay the same:
/// drawing each excerpt again on every save would delay the reload.
#[derive(Default)]
struct Panel {
    warnings: Vec<String>,
    text: String,
}

/// What a build updates for the server: open pages, the files, the postings.
struct Served {
    live: Arc<Live>,
    files: Arc<Files>,
    openings: Arc<RwLock<Vec<Opening>>>,
}

/// What a build leaves for open pages.
enum Outcome {
    /// A good build: whether it wrote a file, and its warnings.
    Built {
        wrote: bool,
        warnings: Vec<Diagnostic>,
    },
    /// A failed build: the last good site stays; its errors as the overlay shows them.
    Failed(String),
}

/// One build. On success the server takes the new output and the report goes to
/// the caller; on failure the last good site stays and the errors go to the
/// caller. Open pages are told by [`announce`], once the saves are built.
/// A quiet build (the check for saves whose event was lost) that finds nothing
/// new gives `None`.
fn build(
    options: &build::Options,
    session: &mut Session,
    served: &Served,
    on_event: &dyn Fn(Event),
    quiet: bool,
) -> Option<Outcome> {
    match build::build_in(options, session) {
        Ok(report) if quiet && report.files_written == 0 && report.pages_rendered == 0 => None,
        Ok(report) => {
            *served.openings.write().unwrap_or_else(|p| p.into_inner()) = report.openings.clone();
            served.files.built(
                report.host,
                report.served_headers.clone(),
                &report.redirects,
                &report.not_found,
            );
            if let (Some(job), true) = (&report.search, report.files_written > 0) {
                served.files.search.pages_changed(job.clone());
            }
            on_event(Event::Built(&report));
            Some(Outcome::Built {
                wrote: report.files_written > 0,
                warnings: report.warnings,
            })
        }
        Err(_) if quiet && served.live.is_failed() => None,
        Err(diags) => {
            on_event(Event::Failed(&diags));
            Some(Outcome::Failed(diagnostics::render(&diags, false)))
        }
    }
}

/// Tells open pages what the builds since the last announcement left: after a
/// good build they reload once, and only when a build wrote a file (`wrote`) or
/// the page's overlay or warnings change; after a failed one they show its errors.
/// A save that changed nothing served (a second event of one save, a file saved
/// unchanged) reloads no page.
fn announce(served: &Served, panel: &mut Panel, outcome: Outcome, wrote: bool) {
    match outcome {
        Outcome::Built { warnings, .. } => {
            let texts: Vec<String> = warnings.iter().map(|w| w.to_string()).collect();
            let shown = texts != panel.warnings || served.live.is_failed();
            if texts != panel.warnings {
                panel.text = diagnostics::render_each(&warnings, false);
                panel.warnings = texts;
            }
            served.live.built(panel.text.clone(), wrote || shown);
        }
        Outcome::Failed(text) => served.live.failed(text),
    }
}

/// How long `site serve` waits, after a build that looked at the saved files
/// alone, before it looks at every file: a save whose event the system lost
/// (a full event queue, a network folder) is served a moment later all the same.
/// A file that was opened for writing and not yet closed is looked for the same
/// way, in case its writer never closes it.
const FULL_CHECK_AFTER: Duration = Duration::from_secs(1);

/// What the rebuild thread is asked to do.
pub enum Work {
    /// Files were saved.
    Saves(Saves),
    /// The editor's preview of a page, saved or not.
    Preview(Draft),
    /// The parts of the last build's pages and their cover, as JSON.
    Parts(tokio::sync::oneshot::Sender<String>),
}

fn rebuild_loop(
    options: &build::Options,
    mut session: Session,
    mut panel: Panel,
    rx: &mpsc::Receiver<Work>,
    served: &Served,
    on_event: &dyn Fn(Event),
) {
    let mut checked = true;
    // Work taken from the channel while looking for saves, not done yet.
    let mut waiting: VecDeque<Work> = VecDeque::new();
    loop {
        let work = match (waiting.pop_front(), checked) {
            (Some(work), _) => work,
            (None, true) => match rx.recv() {
                Ok(work) => work,
                Err(_) => return,
            },
            (None, false) => match rx.recv_timeout(FULL_CHECK_AFTER) {
                Ok(work) => work,
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    // Quiet unless it finds what the saves' builds did not.
                    if let Some(outcome) = build(options, &mut session, served, on_event, true) {
                        let wrote = matches!(outcome, Outcome::Built { wrote: true, .. });
                        announce(served, &mut panel, outcome, wrote);
                    }
                    checked = true;
                    continue;
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => return,
            },
        };
        let saves = match work {
            Work::Saves(saves) => saves,
            Work::Preview(draft) => {
                preview(options, &mut session, draft);
                continue;
            }
            Work::Parts(reply) => {
                let _ = reply.send(parts(&session));
                continue;
            }
        };
        // Open pages hear once from the saves that come while they are built:
        // each build takes every save that arrived before it, and the pages
        // are told when no save is left, with whether any of the builds wrote.
        let mut next = Some(saves);
        let mut wrote = false;
        let mut outcome = None;
        let mut drafts = Vec::new();
        while let Some(mut saves) = next.take() {
            while let Ok(more) = rx.try_recv() {
                match more {
                    Work::Saves(more) => saves.extend(more),
                    Work::Preview(draft) => drafts.push(draft),
                    // Answered once the saves are built.
                    other => waiting.push_back(other),
                }
            }
            if saves.paths.is_empty() {
                // A file is being written: its save comes when it is closed, and
                // the check after a second finds it if that never comes.
                checked = false;
                continue;
            }
            if saves.changes.contains(&Change::Styles) {
                session.styles_changed();
            }
            if saves.changes.contains(&Change::Islands) {
                session.islands_changed();
            }
            let alone = session.saved(&options.root, &saves.paths);
            let built = build(options, &mut session, served, on_event, false);
            wrote |= matches!(built, Some(Outcome::Built { wrote: true, .. }));
            outcome = built.or(outcome);
            checked = !alone;
            while let Ok(more) = rx.try_recv() {
                match more {
                    Work::Saves(more) => match &mut next {
                        Some(next) => next.extend(more),
                        None => next = Some(more),
                    },
                    other => waiting.push_back(other),
                }
            }
        }
        if let Some(outcome) = outcome {
            announce(served, &mut panel, outcome, wrote);
        }
        for draft in drafts {
            preview(options, &mut session, draft);
        }
    }
}

/// The path that answers with the parts of the last build's pages and their cover.
pub const PARTS_PATH: &str = "/__site/parts.json";

/// `{"pages": [{route, lang, dir, layout, parts}], "cover": [route]}` of the
/// last good build: what the browser tests check fully (`render::parts`).
fn parts(session: &Session) -> String {
    let pages = session.parts();
    let cover = crate::render::parts::cover(&pages);
    serde_json::json!({ "pages": pages, "cover": cover }).to_string()
}

/// Asks the rebuild thread for [`parts`].
async fn parts_route(
    axum::extract::State(work): axum::extract::State<mpsc::Sender<Work>>,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    let (reply, answer) = tokio::sync::oneshot::channel();
    let stopped = || axum::http::StatusCode::SERVICE_UNAVAILABLE.into_response();
    if work.send(Work::Parts(reply)).is_err() {
        return stopped();
    }
    match answer.await {
        Ok(json) => (
            [(axum::http::header::CONTENT_TYPE, "application/json")],
            json,
        )
            .into_response(),
        Err(_) => stopped(),
    }
}

/// Answers the editor with the page of its draft, or the build's own errors.
fn preview(options: &build::Options, session: &mut Session, draft: Draft) {
    let answer = build::render_draft(options, session, &draft.file, &draft.text)
        .map_err(|diags| diagnostics::render_each(&diags, false));
    let _ = draft.reply.send(answer);
}
