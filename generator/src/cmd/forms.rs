//! `site forms`: checks that the files made from the forms' rules (the Supabase
//! migrations, islands/lib/forms.generated.ts) are current, or `--write`s them.

use crate::cli::FormsArgs;

pub fn run(args: &FormsArgs) -> bool {
    if !args.write {
        let stale = site::forms::stale(&args.root);
        for path in &stale {
            eprintln!(
                "error: {} differs from generator/src/forms/ and content/site.yaml; run `site forms --write`",
                path.display()
            );
        }
        if stale.is_empty() {
            println!("The migrations and islands/lib/forms.generated.ts are current.");
        }
        return stale.is_empty();
    }
    for (path, text) in site::forms::generated(&args.root) {
        if std::fs::read_to_string(&path).ok().as_deref() == Some(text.as_str()) {
            continue;
        }
        if let Err(e) = std::fs::write(&path, text) {
            eprintln!("error: cannot write {}: {e}", path.display());
            return false;
        }
        println!("Wrote {}", path.display());
    }
    println!("Apply changed migrations to the Supabase project as docs/deploy.md says.");
    true
}
