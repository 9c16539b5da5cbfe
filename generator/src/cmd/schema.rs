//! `site schema`: write the schemas and the content reference, or check them.

use crate::cli::SchemaArgs;

pub fn run(args: &SchemaArgs) -> bool {
    match site::schema::generate(&args.root, args.check) {
        Ok(outcome) if args.check => {
            for path in &outcome.stale {
                eprintln!(
                    "error: {} is stale: run `site schema` and commit the result",
                    path.display()
                );
            }
            if outcome.stale.is_empty() {
                println!("The schemas and docs/content.md are up to date");
            }
            outcome.stale.is_empty()
        }
        Ok(outcome) => {
            for path in &outcome.written {
                println!("wrote {}", path.display());
            }
            if outcome.written.is_empty() {
                println!("The schemas and docs/content.md were already up to date");
            }
            true
        }
        Err(e) => {
            eprintln!("error: cannot write the schemas: {e}");
            false
        }
    }
}
