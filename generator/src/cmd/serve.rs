//! `site serve`: build, then serve with live reload and the storage API, printing
//! each build's report or errors as they come.

use std::io::IsTerminal;

use site::{diagnostics, ServeEvent, ServeOptions};

use crate::cli::ServeArgs;
use crate::cmd::build;

pub fn run(args: &ServeArgs) -> bool {
    let verbose = args.build.verbose;
    let options = ServeOptions {
        build: build::options(&args.build),
        host: args.host.clone(),
        port: args.port,
        trust_proxy: args.trust_proxy,
        live_reload: !args.no_live_reload,
    };
    // After the first build, a save's report says only what it changed.
    let shown = std::sync::Mutex::new(build::Shown::default());
    let printed = site::serve(options, move |event| match event {
        ServeEvent::Built(report) => {
            let mut shown = shown.lock().unwrap_or_else(|p| p.into_inner());
            build::print_changes(report, verbose, &mut shown);
        }
        ServeEvent::Failed(diags) => eprint!(
            "{}",
            diagnostics::render(diags, std::io::stderr().is_terminal())
        ),
        ServeEvent::Listening(addr, out) => println!("Serving {} on http://{addr}", out.display()),
        ServeEvent::Warning(w) => eprintln!("warning: {w}"),
    });
    match printed {
        Ok(()) => true,
        Err(e) => {
            eprintln!("error: {e}");
            false
        }
    }
}
