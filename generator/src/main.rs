mod bundle;
mod check;
mod cli;
mod cmd;
mod content;
mod diagnostics;
mod headers;
mod hosts;
mod markdown;
mod output;
mod pipeline;
mod render;
mod serve;
mod settings;
mod sitemap;
mod ssr;
mod storage;
mod toolchain;
mod weight;
mod yaml;

use clap::Parser;

fn main() {
    let cli = cli::Cli::parse();
    let ok = match &cli.command {
        cli::Command::Build(args) => cmd::build::run(args),
        cli::Command::Serve(args) => cmd::serve::run(args),
        cli::Command::Check(args) => cmd::check::run(args),
    };
    if !ok {
        std::process::exit(1);
    }
}
