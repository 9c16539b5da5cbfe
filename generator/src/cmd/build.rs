//! `site build`: run the pipeline once and report.

use std::io::IsTerminal;

use crate::cli::BuildArgs;
use crate::diagnostics;
use crate::pipeline::{self, Options, Report};

pub fn options(args: &BuildArgs, serving: bool) -> Options {
    Options {
        root: args.root.clone(),
        out: args.out.clone().unwrap_or_else(|| args.root.join("dist")),
        base_url: args.base_url.clone(),
        serving,
        strict_budgets: args.strict_budgets,
        host: args.for_host,
        production: args.production,
    }
}

/// Builds and prints the summary or every error. Returns whether it succeeded.
pub fn run(args: &BuildArgs) -> bool {
    build_and_report(&options(args, false), args.verbose)
}

pub fn build_and_report(options: &Options, verbose: bool) -> bool {
    match pipeline::build(options) {
        Ok(report) => {
            print_report(&report, options, verbose);
            true
        }
        Err(diags) => {
            eprint!(
                "{}",
                diagnostics::render(&diags, std::io::stderr().is_terminal())
            );
            false
        }
    }
}

pub fn print_report(report: &Report, options: &Options, verbose: bool) {
    for w in &report.warnings {
        eprintln!("warning: {w}");
    }
    println!(
        "Built {} page{}, {} files, {} in {} ms → {} ({}{})",
        report.pages,
        if report.pages == 1 { "" } else { "s" },
        report.files,
        human_bytes(report.bytes),
        report.elapsed.as_millis(),
        options.out.display(),
        if report.production {
            "production, "
        } else {
            ""
        },
        report.host.name(),
    );
    if !report.weights.is_empty() {
        println!("  page weight in KB after gzip (HTML · CSS · JavaScript):");
        let kb = |b: u64| format!("{:.1}", b as f64 / 1000.0);
        for (route, w) in &report.weights {
            println!(
                "    {route:<36} {:>6} · {:>6} · {:>6}",
                kb(w.html),
                kb(w.css),
                kb(w.javascript)
            );
        }
    }
    if verbose {
        for (stage, time) in &report.stages {
            println!("  {stage}: {} ms", time.as_millis());
        }
        println!(
            "  bundle: {}",
            if report.bundle_rebuilt {
                "rebuilt by esbuild"
            } else {
                "unchanged, from cache"
            }
        );
        println!(
            "  server renders: {} rendered, {} reused from the memo",
            report.ssr.rendered, report.ssr.reused
        );
    }
}

pub fn human_bytes(n: u64) -> String {
    if n < 1024 {
        format!("{n} B")
    } else if n < 1024 * 1024 {
        format!("{:.1} KiB", n as f64 / 1024.0)
    } else {
        format!("{:.1} MiB", n as f64 / (1024.0 * 1024.0))
    }
}
