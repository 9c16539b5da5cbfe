//! Command-line arguments. The doc comments are the `--help` text.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

/// A static site generator: YAML and Markdown content, MiniJinja templates, and
/// React islands rendered at build time.
#[derive(Debug, Parser)]
#[command(name = "site", version)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Build the site into the output folder.
    Build(BuildArgs),
    /// Build, then serve the output folder on a local address.
    Serve(ServeArgs),
    /// Check the built site: links, fragments, images, headings, titles.
    Check(CheckArgs),
    /// Write the content files' JSON Schemas (schemas/) and the content
    /// reference (docs/content.md), generated from the models the build reads.
    Schema(SchemaArgs),
    /// Show the contact messages `site serve` received (.site/messages/).
    Messages(MessagesArgs),
    /// Show the job applications `site serve` received (.site/applications/),
    /// or the postings the applications' table takes them for.
    Applications(ApplicationsArgs),
    /// Check, or write, the files made from the forms' rules: the Supabase
    /// migrations and islands/lib/forms.generated.ts.
    Forms(FormsArgs),
    /// List every translation and whether it is older than its source, or mark
    /// translations checked outside the editor as current.
    Translations(TranslationsArgs),
}

#[derive(Debug, Args)]
pub struct TranslationsArgs {
    /// The site root.
    #[arg(long, default_value = ".")]
    pub root: PathBuf,
    /// Record in each of these translations (every translation, with `--all`)
    /// its source as it is now: they say what their source says.
    #[arg(long, value_name = "FILE", num_args = 0..)]
    pub mark_current: Option<Vec<PathBuf>>,
    /// With `--mark-current`: every translation of the site.
    #[arg(long, requires = "mark_current")]
    pub all: bool,
}

#[derive(Debug, Args)]
pub struct ApplicationsArgs {
    /// The site root.
    #[arg(long, default_value = ".")]
    pub root: PathBuf,
    /// Print the applications as JSON, one object per line, oldest first.
    #[arg(long)]
    pub json: bool,
    /// Print every job posting and until when it takes applications, as the JSON
    /// rows of `public.job_openings` (deploy/sync-openings.mjs sends them), instead.
    #[arg(long)]
    pub openings: bool,
}

#[derive(Debug, Args)]
pub struct FormsArgs {
    /// The site root.
    #[arg(long, default_value = ".")]
    pub root: PathBuf,
    /// Write the files again, instead of checking them.
    #[arg(long)]
    pub write: bool,
}

#[derive(Debug, Args)]
pub struct MessagesArgs {
    /// The site root.
    #[arg(long, default_value = ".")]
    pub root: PathBuf,
    /// Print the messages as JSON, one object per line, oldest first.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct SchemaArgs {
    /// The site root: the folder holding content/.
    #[arg(long, default_value = ".")]
    pub root: PathBuf,
    /// Write nothing; fail if a committed file differs from what would be written.
    #[arg(long)]
    pub check: bool,
}

#[derive(Debug, Args)]
pub struct BuildArgs {
    /// The site root: the folder holding content/, templates/ and islands/.
    #[arg(long, default_value = ".")]
    pub root: PathBuf,
    /// The output folder (default: <root>/dist).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// The public address of the site, overriding base_url in content/site.yaml.
    #[arg(long)]
    pub base_url: Option<String>,
    /// Print stage timings and server-render counts.
    #[arg(long, short)]
    pub verbose: bool,
    /// Fail when a page is over the budgets of content/site.yaml (else warn).
    #[arg(long)]
    pub strict_budgets: bool,
    /// The host to build for, overriding `host` in content/site.yaml:
    /// cloudflare-pages, netlify, github-pages or nginx.
    #[arg(long = "for", value_name = "HOST", value_parser = site::Host::parse)]
    pub for_host: Option<site::Host>,
    /// A build for the live site: fails unless base_url is a public https address
    /// and the storage URL and anon key are set. SITE_PRODUCTION=1 does the same.
    #[arg(long)]
    pub production: bool,
    /// Build drafts, scheduled pages and closed jobs too, each with a badge and
    /// kept from search engines: a preview. `site serve` always does.
    #[arg(long)]
    pub drafts: bool,
}

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The site root.
    #[arg(long, default_value = ".")]
    pub root: PathBuf,
    /// The built site to check (default: <root>/dist).
    #[arg(long)]
    pub out: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct ServeArgs {
    #[command(flatten)]
    pub build: BuildArgs,
    /// The address to listen on.
    #[arg(long, default_value = "127.0.0.1")]
    pub host: String,
    /// The port to listen on; 0 picks a free one.
    #[arg(long, default_value_t = 8080)]
    pub port: u16,
    /// Behind a proxy (Cloudflare, nginx): count the contact messages' senders by
    /// the address it saw, CF-Connecting-IP or else the last X-Forwarded-For
    /// entry. Only behind one that sets them: any client can write both.
    #[arg(long)]
    pub trust_proxy: bool,
    /// Serve the pages as a visitor gets them: without the live reload script,
    /// so no reload on a save and no panel of the build's warnings.
    #[arg(long)]
    pub no_live_reload: bool,
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn the_command_line_is_well_formed() {
        Cli::command().debug_assert();
    }
}
