//! The `site` command: parses the arguments and hands over to a command of `cmd/`.

mod cli;
mod cmd;

use clap::Parser;

fn main() {
    let cli = cli::Cli::parse();
    let ok = match &cli.command {
        cli::Command::Build(args) => cmd::build::run(args),
        cli::Command::Serve(args) => cmd::serve::run(args),
        cli::Command::Check(args) => cmd::check::run(args),
        cli::Command::Schema(args) => cmd::schema::run(args),
        cli::Command::Messages(args) => cmd::messages::run(args),
        cli::Command::Applications(args) => cmd::applications::run(args),
        cli::Command::Forms(args) => cmd::forms::run(args),
        cli::Command::Translations(args) => cmd::translations::run(args),
    };
    if !ok {
        std::process::exit(1);
    }
}
