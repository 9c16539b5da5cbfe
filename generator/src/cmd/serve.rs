//! `site serve`: build, then serve the output as a static host would.

use std::net::SocketAddr;

use axum::Router;
use tower_http::services::{ServeDir, ServeFile};

use crate::cli::ServeArgs;
use crate::cmd::build;
use crate::pipeline;

pub fn run(args: &ServeArgs) -> bool {
    let options = build::options(&args.build, true);
    if !build::build_and_report(&options, args.build.verbose) {
        return false;
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
    runtime.block_on(serve(options, &args.host, args.port))
}

async fn serve(options: pipeline::Options, host: &str, port: u16) -> bool {
    let not_found = ServeFile::new(options.out.join("404.html"));
    let files = ServeDir::new(&options.out)
        .append_index_html_on_directories(true)
        .not_found_service(not_found);
    let app = Router::new().fallback_service(files);
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
    println!("Serving {} on http://{local}", options.out.display());
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
