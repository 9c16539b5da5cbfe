//! `site serve`: build, then serve with live reload and the storage API.

use crate::cli::ServeArgs;
use crate::cmd::build;
use crate::serve;

pub fn run(args: &ServeArgs) -> bool {
    serve::run(
        build::options(&args.build, true),
        &args.host,
        args.port,
        args.build.verbose,
    )
}
