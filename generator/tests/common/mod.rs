//! A fixture site in a temporary folder: the project's own templates, islands,
//! styles and public files, overlaid with a fixture's content and extra files.
//! Sites live under Cargo's target folder, inside the project, so esbuild finds
//! the project's node_modules.

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub struct Site {
    pub root: PathBuf,
}

fn project() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn copy_tree(from: &Path, to: &Path) {
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
    /// A new site made from `fixture` (a folder under tests/fixtures).
    pub fn new(fixture: &str) -> Site {
        let base = Path::new(env!("CARGO_TARGET_TMPDIR")).join("sites");
        std::fs::create_dir_all(&base).unwrap();
        let root = tempfile_dir(&base, fixture);
        for dir in ["templates", "islands", "styles", "public"] {
            copy_tree(&project().join(dir), &root.join(dir));
        }
        copy_tree(
            &project().join("generator/tests/fixtures").join(fixture),
            &root,
        );
        Site { root }
    }

    pub fn write(&self, rel: &str, text: &str) {
        let path = self.root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    pub fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.root.join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
    }

    pub fn dist(&self) -> PathBuf {
        self.root.join("dist")
    }

    pub fn build(&self, extra: &[&str]) -> Output {
        self.build_with_env(extra, &[])
    }

    /// Builds with these environment variables set (and the production ones of
    /// the calling environment removed, so tests never inherit them).
    pub fn build_with_env(&self, extra: &[&str], env: &[(&str, &str)]) -> Output {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_site"));
        cmd.arg("build")
            .arg("--root")
            .arg(&self.root)
            .args(extra)
            .env("SOURCE_DATE_EPOCH", "1767225600");
        for var in [
            "SITE_PRODUCTION",
            "SITE_BASE_URL",
            "SITE_STORAGE_URL",
            "SITE_STORAGE_ANON_KEY",
        ] {
            cmd.env_remove(var);
        }
        cmd.envs(env.iter().copied());
        cmd.output().unwrap()
    }

    /// Builds and asserts success; returns stdout.
    pub fn build_ok(&self, extra: &[&str]) -> String {
        let out = self.build(extra);
        assert!(
            out.status.success(),
            "build failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).to_string()
    }

    /// Builds and asserts failure; returns stderr.
    pub fn build_err(&self) -> String {
        let out = self.build(&[]);
        assert!(!out.status.success(), "build unexpectedly succeeded");
        String::from_utf8_lossy(&out.stderr).to_string()
    }
}

impl Drop for Site {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

fn tempfile_dir(base: &Path, name: &str) -> PathBuf {
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
