//! Whether what a reference names exists: an icon (lucide's or the site's), a
//! picture under `public/` that is the picture its name says, a layout, a page.
//! The names for a suggestion are listed once, and only when one is needed.

use std::collections::{BTreeSet, HashSet};
use std::path::{Path, PathBuf};

use super::hints::Set;
use super::Places;
use crate::content::values::Target;
use crate::content::yaml::Reference;
use crate::suggest;

/// What is wrong with a reference, and whether it is only a warning. Links are
/// checked only against `routes`, when there are routes to check against.
pub(super) fn problem(
    reference: &Reference,
    places: &Places,
    routes: Option<&HashSet<&str>>,
    names: &mut Names,
) -> Option<(String, bool)> {
    match &reference.target {
        Target::Icon(name) => {
            if places
                .icons
                .iter()
                .any(|dir| dir.join(format!("{name}.svg")).is_file())
            {
                return None;
            }
            let hint = suggest::did_you_mean(name, names.icons(places).iter().map(String::as_str));
            Some((
                format!("unknown icon `{name}`: it is neither a lucide icon (lucide.dev/icons) nor in templates/icons/{hint}"),
                false,
            ))
        }
        Target::Image(src) => {
            let path = src.split(['?', '#']).next().unwrap_or(src);
            let unusable = places.unusable.iter().find(|(url, _)| {
                path == url
                    || path
                        .strip_prefix(url.as_str())
                        .is_some_and(|r| r.starts_with('/'))
            });
            if let Some((url, why)) = unusable {
                names.used_unusable.insert(url.clone());
                return Some((
                    format!("the picture `{path}` cannot be used: public{url} is {why}"),
                    false,
                ));
            }
            let file = places.public.join(path.trim_start_matches('/'));
            if file.is_file() {
                return names.not_a_picture(path, &file).map(|m| (m, false));
            }
            let hint = names.files(places).did_you_mean(path);
            Some((
                format!("there is no picture `{path}`: no such file under public/{hint}"),
                false,
            ))
        }
        Target::Layout(name) => {
            if places.layouts.join(format!("{name}.html")).is_file() {
                return None;
            }
            let hint =
                suggest::did_you_mean(name, names.layouts(places).iter().map(String::as_str));
            Some((
                format!("unknown layout `{name}`: there is no templates/layouts/{name}.html{hint}"),
                false,
            ))
        }
        // Where an old address leads is checked with every redirect together.
        Target::Moved(_) => None,
        // Languages and translations are checked with the whole site (`languages`).
        Target::Language(_) | Target::Translation(_) => None,
        Target::Link(href) => {
            let routes = routes?;
            let path = href.split(['?', '#']).next().unwrap_or(href);
            // Files (`/favicon.svg`, `/insights/feed.xml`) are checked by `site check`.
            if !path.ends_with('/') || routes.contains(path) {
                return None;
            }
            let hint = places.hints.hint(Set::Pages, path, routes);
            Some((
                format!("the link to `{path}` leads to no page of this site{hint}"),
                true,
            ))
        }
    }
}

/// The names something may have, listed once and only when a suggestion is needed.
#[derive(Default)]
pub(super) struct Names {
    icons: Option<Vec<String>>,
    files: Option<suggest::Index>,
    layouts: Option<Vec<String>>,
    /// The unusable files of `public/` that a picture uses.
    pub(super) used_unusable: HashSet<String>,
    /// Pictures already read, and what is wrong with each.
    pictures: std::collections::HashMap<PathBuf, Option<String>>,
}

impl Names {
    /// What is wrong with `file` as the picture `path`: a photo (JPEG, PNG, WebP,
    /// GIF, AVIF by its name) whose first bytes are no such picture. Each file is
    /// read once, however many pages show it.
    fn not_a_picture(&mut self, path: &str, file: &Path) -> Option<String> {
        let ext = path.rsplit_once('.')?.1.to_ascii_lowercase();
        if !matches!(
            ext.as_str(),
            "jpg" | "jpeg" | "png" | "webp" | "gif" | "avif"
        ) {
            return None;
        }
        let wanted = ext.to_ascii_uppercase().replace("JPG", "JPEG");
        self.pictures
            .entry(file.to_path_buf())
            .or_insert_with(|| {
                let header = std::fs::File::open(file).and_then(|f| {
                    let mut bytes = Vec::with_capacity(64);
                    std::io::Read::read_to_end(&mut std::io::Read::take(f, 64), &mut bytes)?;
                    Ok(bytes)
                });
                let found = header.ok().and_then(|h| imagesize::image_type(&h).ok());
                let is = |t: &imagesize::ImageType| format!("{t:?}").to_ascii_uppercase();
                match found {
                    Some(t) if is(&t) == wanted || (wanted == "AVIF" && is(&t) == "HEIF") => {
                        imagesize::size(file).err().map(|_| {
                            format!("`{path}` is not a picture: public{path} is cut short; save or export it again")
                        })
                    }
                    Some(t) => Some(format!(
                        "`{path}` is not a {wanted} file: public{path} is a {} picture with the \
                         wrong name; rename it `.{}` or export it again as {wanted}",
                        is(&t),
                        is(&t).to_ascii_lowercase().replace("jpeg", "jpg")
                    )),
                    None => Some(format!(
                        "`{path}` is not a picture: public{path} is not a {wanted} file (its first \
                         bytes are not an image's); save or export it again as one"
                    )),
                }
            })
            .clone()
    }

    fn icons(&mut self, places: &Places) -> &[String] {
        self.icons
            .get_or_insert_with(|| stems(&places.icons, "svg"))
    }

    fn layouts(&mut self, places: &Places) -> &[String] {
        self.layouts
            .get_or_insert_with(|| stems(std::slice::from_ref(&places.layouts), "html"))
    }

    fn files(&mut self, places: &Places) -> &suggest::Index {
        self.files.get_or_insert_with(|| {
            let files: Vec<String> = walkdir::WalkDir::new(&places.public)
                .follow_links(true)
                .into_iter()
                .filter_map(Result::ok)
                .filter(|e| e.file_type().is_file())
                .filter_map(|e| {
                    let rel = e.path().strip_prefix(&places.public).ok()?;
                    Some(format!("/{}", rel.to_string_lossy().replace('\\', "/")))
                })
                .collect();
            suggest::Index::new(files.iter().map(String::as_str))
        })
    }
}

/// The names of the `.ext` files in `dirs`.
fn stems(dirs: &[PathBuf], ext: &str) -> Vec<String> {
    let mut names = BTreeSet::new();
    for dir in dirs {
        let Ok(entries) = std::fs::read_dir(dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.extension().and_then(|e| e.to_str()) == Some(ext) {
                if let Some(stem) = path.file_stem().and_then(|s| s.to_str()) {
                    names.insert(stem.to_string());
                }
            }
        }
    }
    names.into_iter().collect()
}
