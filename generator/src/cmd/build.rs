//! `site build`: run the build once and report.

use std::io::IsTerminal;

use crate::cli::BuildArgs;
use site::diagnostics;
use site::{BuildOptions as Options, BuildReport as Report};

pub fn options(args: &BuildArgs) -> Options {
    Options {
        root: args.root.clone(),
        out: args.out.clone().unwrap_or_else(|| args.root.join("dist")),
        base_url: args.base_url.clone(),
        serving: false,
        strict_budgets: args.strict_budgets,
        host: args.for_host,
        production: args.production,
        drafts: args.drafts,
    }
}

/// Builds and prints the summary or every error. Returns whether it succeeded.
pub fn run(args: &BuildArgs) -> bool {
    match site::build(&options(args)) {
        Ok(report) => {
            print_report(&report, args.verbose);
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

pub fn print_report(report: &Report, verbose: bool) {
    print_changes(report, verbose, &mut Shown::default());
}

/// What the reports printed so far said, so that `site serve` prints after a
/// save only what changed: the warnings, the pages shown though held back, and
/// the weight of each page.
#[derive(Default)]
pub struct Shown {
    reports: usize,
    warnings: Vec<String>,
    held: Vec<String>,
    weights: std::collections::HashMap<String, site::output::weight::Weight>,
}

/// Prints `report`, leaving out what the reports before it (`shown`) said.
pub fn print_changes(report: &Report, verbose: bool, shown: &mut Shown) {
    let first = shown.reports == 0;
    shown.reports += 1;
    let warnings: Vec<String> = report.warnings.iter().map(|w| w.to_string()).collect();
    let same_warnings = !first && warnings == shown.warnings;
    if !report.warnings.is_empty() && !same_warnings {
        eprint!(
            "{}",
            diagnostics::render_each(&report.warnings, std::io::stderr().is_terminal())
        );
    }
    shown.warnings = warnings;
    println!(
        "Built {} page{}, {} files in {} ms → {} ({}{})",
        report.pages,
        if report.pages == 1 { "" } else { "s" },
        report.files,
        report.elapsed.as_millis(),
        report.out.display(),
        if report.production {
            "production, "
        } else {
            ""
        },
        report.host.name(),
    );
    if same_warnings && !report.warnings.is_empty() {
        let n = report.warnings.len();
        println!(
            "  the same {n} warning{} as before",
            if n == 1 { "" } else { "s" }
        );
    }
    let held: Vec<String> = report.held.iter().map(|h| h.route.clone()).collect();
    let same_held = !first && held == shown.held;
    shown.held = held;
    if !report.held.is_empty() && !same_held {
        let shown = report.drafts;
        println!(
            "  {} {} page{}{}:",
            if shown { "Showing" } else { "Held back" },
            report.held.len(),
            if report.held.len() == 1 { "" } else { "s" },
            if shown {
                " that `site build` leaves out"
            } else {
                " (`--drafts` builds them)"
            }
        );
        for held in &report.held {
            println!(
                "    {:<36} {}, {}",
                held.route,
                held.why.describe(),
                held.source
            );
        }
    }
    let changed: Vec<&(String, site::output::weight::Weight)> = report
        .weights
        .iter()
        .filter(|(route, w)| first || shown.weights.get(route) != Some(w))
        .collect();
    shown.weights = report.weights.iter().cloned().collect();
    if !changed.is_empty() {
        println!(
            "  page weight in KB{}, after gzip but the font (HTML · CSS · JavaScript · font):",
            if first {
                ""
            } else {
                " of the pages it changed"
            }
        );
        let kb = |b: u64| format!("{:.1}", b as f64 / 1000.0);
        for (route, w) in changed {
            println!(
                "    {route:<36} {:>6} · {:>6} · {:>6} · {:>6}",
                match w.html_over {
                    true => format!(">{}", kb(w.html)),
                    false => kb(w.html),
                },
                kb(w.css),
                kb(w.javascript),
                kb(w.font)
            );
        }
    }
    if verbose {
        for (stage, time) in &report.stages {
            println!("  {stage}: {:.1} ms", time.as_secs_f64() * 1000.0);
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
        println!(
            "  pages rendered: {} of {}; files written: {} of {}",
            report.pages_rendered, report.pages, report.files_written, report.files
        );
        if let Some(kib) = peak_memory_kib() {
            println!("  peak memory: {:.1} MiB", kib as f64 / 1024.0);
        }
    }
}

/// The process's peak resident memory so far, as the kernel counts it (Linux's
/// `VmHWM`); none elsewhere.
fn peak_memory_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}
