//! Sveltia CMS's build, served from the site's own files. As published it loads
//! its fonts from jsDelivr and some of its modules (EXIF reading, SVG
//! optimising, HTML-to-Markdown) from unpkg when first used, and asks unpkg
//! whether it is the latest version. Each of those addresses is pointed at a
//! copy under `/admin/`, made from the npm packages the lockfile installs, so
//! the editor needs no CDN and its policy names none.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::SystemTime;

use regex::Regex;

use super::{Error, File};

/// The modules the editor imports from unpkg that it uses on this site.
const MODULES: [&str; 4] = ["immutable", "exifr", "svgo", "turndown"];

/// The editor's script (rewritten) and every file it loads, under `dir`
/// (`admin/cms/<version>`): made once for each install of the package, as
/// `site serve` builds again on every save.
pub fn files(node_modules: &Path, dir: &str) -> Result<Vec<File>, Error> {
    /// The script it was made from, when that changed last, the folder, the files.
    type Made = (PathBuf, Option<SystemTime>, String, Vec<File>);
    static MADE: Mutex<Option<Made>> = Mutex::new(None);
    let script = node_modules
        .join(super::CMS_PACKAGE)
        .join("dist")
        .join("sveltia-cms.js");
    let modified = std::fs::metadata(&script).and_then(|m| m.modified()).ok();
    let mut made = MADE
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some((path, when, at, files)) = made.as_ref() {
        if *path == script && *when == modified && at == dir {
            return Ok(files.clone());
        }
    }
    let files = make(node_modules, dir)?;
    *made = Some((script, modified, dir.to_string(), files.clone()));
    Ok(files)
}

fn make(node_modules: &Path, dir: &str) -> Result<Vec<File>, Error> {
    let package = node_modules.join(super::CMS_PACKAGE);
    let dist = package.join("dist");
    let script_path = dist.join("sveltia-cms.js");
    let mut script = std::fs::read_to_string(&script_path)
        .map_err(|e| Error::MissingEditor(format!("{}: {e}", script_path.display())))?;
    let mut out = Vec::new();

    // Fonts: `https://cdn.jsdelivr.net/fontsource/fonts/<name>[:vf]@<v>/<file>`
    // is `files/<name>-<file>` of `@fontsource[-variable]/<name>`.
    let fonts = Regex::new(
        r"https://cdn\.jsdelivr\.net/fontsource/fonts/([a-z0-9-]+)(:vf)?@([0-9.]+)/([a-z0-9-]+\.woff2)",
    )
    .expect("a valid pattern");
    let mut found = Vec::new();
    for m in fonts.captures_iter(&script) {
        let (url, name, variable, version, file) = (&m[0], &m[1], m.get(2).is_some(), &m[3], &m[4]);
        let scope = if variable {
            "@fontsource-variable"
        } else {
            "@fontsource"
        };
        let from = node_modules.join(scope).join(name);
        installed(&from, version)?;
        let copy = format!("admin/fonts/{name}-{file}");
        out.push(File::Copy(
            copy.clone(),
            from.join("files").join(format!("{name}-{file}")),
        ));
        found.push((url.to_string(), format!("/{copy}")));
    }
    if found.is_empty() {
        return Err(Error::Unexpected("its fonts' addresses"));
    }
    for (url, local) in found {
        script = script.replace(&url, &local);
    }

    // Its own address on unpkg: its version check reads `package.json` there,
    // and a language other than US English its strings, `locales/<code>.json`
    // of the same version.
    script = replace(
        &script,
        "`https://unpkg.com/@sveltia/cms`",
        "`/admin/npm/@sveltia/cms`",
    )?;
    let version = version_of(&package)?;
    out.push(File::Copy(
        "admin/npm/@sveltia/cms/package.json".into(),
        package.join("package.json"),
    ));
    let locales = package.join("locales");
    let mut names: Vec<String> = std::fs::read_dir(&locales)
        .map_err(|e| Error::MissingEditor(format!("{}: {e}", locales.display())))?
        .flatten()
        .map(|e| e.file_name().to_string_lossy().to_string())
        .filter(|n| n.ends_with(".json"))
        .collect();
    names.sort();
    if names.is_empty() {
        return Err(Error::MissingEditor(locales.display().to_string()));
    }
    for name in names {
        out.push(File::Copy(
            format!("admin/npm/@sveltia/cms@{version}/locales/{name}"),
            locales.join(&name),
        ));
    }

    // Modules: `https://unpkg.com/<name>@<version>/<file>`, the version being
    // the lowest its own package.json takes.
    script = replace(&script, "`https://unpkg.com/${e}`", "`/admin/npm/${e}`")?;
    for name in MODULES {
        let pattern = Regex::new(&format!(
            r#"(?:"{0}"|\b{0}):`\^?([0-9.]+)`"#,
            regex::escape(name)
        ))
        .expect("a valid pattern");
        let version = pattern
            .captures(&script)
            .map(|c| c[1].to_string())
            .ok_or(Error::Unexpected("the versions of the modules it loads"))?;
        let load = Regex::new(&format!(r"\(`{}`,`([^`?]+)", regex::escape(name)))
            .expect("a valid pattern");
        let file = load
            .captures(&script)
            .map(|c| c[1].to_string())
            .ok_or(Error::Unexpected("the files of the modules it loads"))?;
        let from = node_modules.join(name).join(&file);
        if !from.is_file() {
            return Err(Error::MissingEditor(from.display().to_string()));
        }
        out.push(File::Copy(
            format!("admin/npm/{name}@{version}/{file}"),
            from,
        ));
    }

    out.push(File::Text(format!("{dir}/sveltia-cms.js"), script.into()));
    let chunk = dist.join("chunks").join("react-dom.js");
    if !chunk.is_file() {
        return Err(Error::MissingEditor(chunk.display().to_string()));
    }
    out.push(File::Copy(format!("{dir}/chunks/react-dom.js"), chunk));
    Ok(out)
}

/// The text with `from` replaced, which must be there: a new version of the
/// editor that loads something from elsewhere fails the build, not the editor.
fn replace(text: &str, from: &str, to: &str) -> Result<String, Error> {
    if !text.contains(from) {
        return Err(Error::Unexpected("an address it loads from"));
    }
    Ok(text.replace(from, to))
}

fn version_of(package: &Path) -> Result<String, Error> {
    std::fs::read_to_string(package.join("package.json"))
        .ok()
        .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
        .and_then(|v| v["version"].as_str().map(str::to_string))
        .ok_or_else(|| Error::MissingEditor(package.display().to_string()))
}

/// A font package the editor's version names, as installed.
fn installed(package: &Path, version: &str) -> Result<PathBuf, Error> {
    let found = version_of(package)?;
    if found != version {
        return Err(Error::FontVersion(
            package.display().to_string(),
            version.to_string(),
            found,
        ));
    }
    Ok(package.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The editor as installed loads nothing from a CDN once its files are made.
    #[test]
    fn the_editor_loads_nothing_from_a_cdn() {
        let node_modules = Path::new(env!("CARGO_MANIFEST_DIR")).join("../node_modules");
        if !node_modules.join(super::super::CMS_PACKAGE).is_dir() {
            panic!(
                "node_modules/ has no {}: run npm ci",
                super::super::CMS_PACKAGE
            );
        }
        let files = files(&node_modules, "admin/cms/x").unwrap();
        let script = files
            .iter()
            .find_map(|f| match f {
                File::Text(path, text) if path.ends_with("sveltia-cms.js") => {
                    Some(text.to_string())
                }
                _ => None,
            })
            .unwrap();
        for cdn in [
            "cdn.jsdelivr.net/fontsource",
            "`https://unpkg.com/${e}`",
            "`https://unpkg.com/@sveltia/cms`",
        ] {
            assert!(!script.contains(cdn), "{cdn}");
        }
        for f in &files {
            if let File::Copy(path, from) = f {
                assert!(from.is_file(), "{path}: {}", from.display());
            }
        }
        let copies: Vec<&str> = files
            .iter()
            .filter_map(|f| match f {
                File::Copy(p, _) => Some(p.as_str()),
                _ => None,
            })
            .collect();
        assert!(copies
            .iter()
            .any(|p| p.starts_with("admin/fonts/material-symbols-outlined")));
        assert!(copies.iter().any(|p| p.starts_with("admin/npm/immutable@")));
        assert!(copies.iter().any(|p| p.ends_with("/locales/en-GB.json")));
        assert!(copies.iter().any(|p| p.ends_with("/locales/de.json")));
    }
}
