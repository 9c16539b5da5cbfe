//! Fixture sites for the generator's tests, built through the library.
//!
//! A site is made of layers from `tests/fixtures/` copied in order (`plain`, then
//! optionally `islands`), in a fresh folder under Cargo's target folder: inside
//! the project, so esbuild and Node find its `node_modules`. The fixtures have
//! their own small templates and islands; they never use the website's.

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use site::{BuildOptions, BuildReport, Diagnostic};

pub struct Site {
    pub root: PathBuf,
}

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests")
}

pub fn copy_tree(from: &Path, to: &Path) {
    for entry in walkdir::WalkDir::new(from) {
        let entry = entry.unwrap();
        let rel = entry.path().strip_prefix(from).unwrap();
        let dest = to.join(rel);
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&dest).unwrap();
        } else {
            std::fs::copy(entry.path(), &dest).unwrap();
        }
    }
}

impl Site {
    /// A site from `layers` of `tests/fixtures/`, the later over the earlier.
    pub fn new(layers: &[&str]) -> Site {
        // Settings from the environment would change every build.
        for var in [
            "SITE_PRODUCTION",
            "SITE_BASE_URL",
            "SITE_STORAGE_URL",
            "SITE_STORAGE_ANON_KEY",
        ] {
            assert!(
                std::env::var_os(var).is_none(),
                "unset {var} to run the tests"
            );
        }
        let base = Path::new(env!("CARGO_TARGET_TMPDIR")).join("sites");
        std::fs::create_dir_all(&base).unwrap();
        let root = fresh_dir(&base, &layers.join("+"));
        for layer in layers {
            copy_tree(&fixtures().join("fixtures").join(layer), &root);
        }
        Site { root }
    }

    /// The site without islands or styles: builds need neither esbuild nor Node.
    pub fn plain() -> Site {
        Site::new(&["plain"])
    }

    /// The plain site with search on: its main content indexed by Pagefind.
    pub fn searchable() -> Site {
        let site = Site::plain();
        let mut config = site.read("content/site.yaml");
        config.push_str("search: true\n");
        site.write("content/site.yaml", &config);
        site.write(
            "templates/base.html",
            &site
                .read("templates/base.html")
                .replace("<main", "<main data-pagefind-body"),
        );
        site
    }

    /// The plain site with two islands and a stylesheet.
    pub fn islands() -> Site {
        Site::new(&["plain", "islands"])
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    pub fn write(&self, rel: &str, text: &str) {
        let path = self.root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    pub fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.root.join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
    }

    /// Replaces the first `from` in `rel` with `to`.
    pub fn edit(&self, rel: &str, from: &str, to: &str) {
        let text = self.read(rel);
        assert!(text.contains(from), "{rel} has no {from:?}");
        self.write(rel, &text.replacen(from, to, 1));
    }

    /// A named pipe at `rel` that nobody writes to: reading it never ends.
    pub fn fifo(&self, rel: &str) {
        let made = Command::new("mkfifo").arg(self.path(rel)).status().unwrap();
        assert!(made.success(), "mkfifo {rel}");
    }

    pub fn remove(&self, rel: &str) {
        std::fs::remove_file(self.root.join(rel)).unwrap();
    }

    pub fn dist(&self) -> PathBuf {
        self.root.join("dist")
    }

    pub fn options(&self) -> BuildOptions {
        BuildOptions {
            root: self.root.clone(),
            out: self.dist(),
            ..BuildOptions::default()
        }
    }

    pub fn build_with(&self, options: &BuildOptions) -> Result<BuildReport, Vec<Diagnostic>> {
        site::build(options)
    }

    /// Builds and expects success.
    pub fn build_ok(&self) -> BuildReport {
        self.build_ok_with(&self.options())
    }

    pub fn build_ok_with(&self, options: &BuildOptions) -> BuildReport {
        match site::build(options) {
            Ok(report) => report,
            Err(diags) => panic!("the build failed:\n{}", self.render(&diags)),
        }
    }

    /// Builds and expects failure; every diagnostic as the terminal shows it.
    pub fn build_err(&self) -> String {
        self.build_err_with(&self.options())
    }

    pub fn build_err_with(&self, options: &BuildOptions) -> String {
        match site::build(options) {
            Ok(_) => panic!("the build unexpectedly succeeded"),
            Err(diags) => self.render(&diags),
        }
    }

    /// Diagnostics as printed (no colour), with the site's folder as `<root>`.
    pub fn render(&self, diags: &[Diagnostic]) -> String {
        site::diagnostics::render(diags, false).replace(&self.root.display().to_string(), "<root>")
    }

    /// Runs the `site` binary with `args` (the site root added).
    pub fn cli(&self, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_site"))
            .args(args)
            .arg("--root")
            .arg(&self.root)
            .output()
            .unwrap()
    }
}

impl Drop for Site {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

fn fresh_dir(base: &Path, name: &str) -> PathBuf {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static N: AtomicUsize = AtomicUsize::new(0);
    let dir = base.join(format!(
        "{name}-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Every file below `dir` with the hash of its bytes.
pub fn hash_tree(dir: &Path) -> BTreeMap<String, String> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .map(Result::unwrap)
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            let rel = e
                .path()
                .strip_prefix(dir)
                .unwrap()
                .to_string_lossy()
                .to_string();
            let bytes = std::fs::read(e.path()).unwrap();
            (rel, blake3::hash(&bytes).to_hex().to_string())
        })
        .collect()
}

/// The benchmark's site (`bench/site`) with `posts` of its posts, in a fresh
/// folder `name` under Cargo's target folder; gives that folder.
pub fn bench_site(name: &str, posts: usize) -> PathBuf {
    let root =
        Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let project = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    copy_tree(&project.join("bench").join("site"), &root);
    for i in 1..=posts {
        let path = root.join(format!("content/pages/posts/p{i:05}.md"));
        std::fs::write(path, bench_post(i, posts)).unwrap();
    }
    root
}

/// A post like those of the shared benchmark corpus: front matter, a heading,
/// three paragraphs with emphasis and a link to another post, a list, code.
#[allow(dead_code)]
pub fn bench_post(i: usize, n: usize) -> String {
    let other = (i * 7919) % n.max(1) + 1;
    format!(
        "---\ntitle: Post {i} about building things\ndescription: What post {i} says, in one line.\n\
         date: {}-{:02}-{:02}\ntags: [build, post{}, t{}]\n---\n\
         ## Section {i}\n\nFirst paragraph of post {i} with *emphasis* and words to read.\n\n\
         Second paragraph, with **strong** words and [another post](../p{other:05}/).\n\n\
         Third paragraph, plain.\n\n- one\n- two\n- three\n- four\n\n```python\nprint({i})\n```\n",
        2015 + i % 10,
        1 + i % 12,
        1 + i % 28,
        i % 30,
        i % 7,
    )
}
