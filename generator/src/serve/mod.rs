//! `site serve`: builds, serves the output as the static host would, rebuilds on
//! every saved change, reloads open pages, and hosts the storage API.

mod files;
mod live;
mod watch;

use std::io::IsTerminal;
use std::net::SocketAddr;
use std::path::Path;
use std::sync::{mpsc, Arc};
use std::time::Duration;

use axum::routing::get;
use axum::Router;

use crate::cmd::build::print_report;
use crate::content;
use crate::diagnostics;
use crate::pipeline::{self, Options, Session};
use crate::storage::{self, Bucket, Store};
use files::Files;
use live::Live;
use watch::Change;

/// Saves arriving within this long of each other make one rebuild.
const DEBOUNCE: Duration = Duration::from_millis(30);

pub fn run(mut options: Options, host: &str, port: u16, verbose: bool) -> bool {
    options.root = match options.root.canonicalize() {
        Ok(r) => r,
        Err(e) => {
            eprintln!(
                "error: {}: the site root cannot be used: {e}",
                options.root.display()
            );
            return false;
        }
    };
    let live = Arc::new(Live::new());
    let mut session = Session::default();
    let files = Arc::new(Files::new(&options.out, true));
    build(&options, &mut session, &live, &files, verbose);

    let settings = content::storage_settings(&options.root);
    let buckets: Vec<Bucket> = storage::policy::BUCKETS
        .iter()
        .map(|p| Bucket::from_policy(p))
        .collect();
    if !buckets.iter().any(|b| b.name == settings.bucket) {
        eprintln!(
            "warning: storage.bucket `{}` does not exist in production (supabase/migrations              creates {}); uploads will be refused with 404, here as there",
            settings.bucket,
            storage::policy::BUCKETS
                .iter()
                .map(|b| b.name)
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    let store = match Store::new(
        &options.root.join(".site").join("storage"),
        buckets,
        &settings.anon_key,
    ) {
        Ok(s) => Arc::new(s),
        Err(e) => {
            eprintln!("error: cannot prepare the storage folder .site/storage: {e}");
            return false;
        }
    };

    let (tx, rx) = mpsc::channel();
    let _watcher = match watch::watch(&options.root, DEBOUNCE, tx) {
        Ok(w) => w,
        Err(e) => {
            eprintln!("error: {e}");
            return false;
        }
    };
    {
        let (live, files, options) = (live.clone(), files.clone(), options.clone());
        std::thread::spawn(move || rebuild_loop(&options, session, &rx, &live, &files, verbose));
    }

    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: cannot start the server runtime: {e}");
            return false;
        }
    };
    runtime.block_on(listen(app(live, files, store), host, port, &options.out))
}

fn app(live: Arc<Live>, files: Arc<Files>, store: Arc<Store>) -> Router {
    let live_routes = Router::new()
        .route(live::EVENTS_PATH, get(live::events))
        .route(live::SCRIPT_PATH, get(live::script))
        .with_state(live);
    let site = Router::new().fallback(files::serve).with_state(files);
    live_routes.merge(storage::http::router(store)).merge(site)
}

async fn listen(app: Router, host: &str, port: u16, out: &Path) -> bool {
    let addr = format!("{host}:{port}");
    let listener = match tokio::net::TcpListener::bind(&addr).await {
        Ok(l) => l,
        Err(e) => {
            eprintln!("error: cannot listen on {addr}: {e}");
            return false;
        }
    };
    let local: SocketAddr = listener
        .local_addr()
        .unwrap_or_else(|_| ([127, 0, 0, 1], port).into());
    println!("Serving {} on http://{local}", out.display());
    let shutdown = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    match axum::serve(listener, app)
        .with_graceful_shutdown(shutdown)
        .await
    {
        Ok(()) => true,
        Err(e) => {
            eprintln!("error: the server stopped: {e}");
            false
        }
    }
}

/// One build: on success open pages reload; on failure the last good site stays
/// and the errors go to the terminal and to the pages' overlay.
fn build(options: &Options, session: &mut Session, live: &Live, files: &Files, verbose: bool) {
    match pipeline::build_in(options, session) {
        Ok(report) => {
            print_report(&report, options, verbose);
            files.built(report.host, report.served_headers);
            live.built();
        }
        Err(diags) => {
            eprint!(
                "{}",
                diagnostics::render(&diags, std::io::stderr().is_terminal())
            );
            live.failed(diagnostics::render(&diags, false));
        }
    }
}

fn rebuild_loop(
    options: &Options,
    mut session: Session,
    rx: &mpsc::Receiver<Vec<Change>>,
    live: &Live,
    files: &Files,
    verbose: bool,
) {
    while let Ok(mut changes) = rx.recv() {
        // Saves that arrived during the last build are handled in one go.
        while let Ok(more) = rx.try_recv() {
            changes.extend(more);
        }
        if changes.contains(&Change::Bundle) {
            session.islands_or_styles_changed();
        }
        build(options, &mut session, live, files, verbose);
    }
}
