//! Precompressed twins (`main-X.css.br`, `.gz`) for hosts that serve them (nginx).
//! Each is made once per content: they are kept under `.site/compressed/` by the
//! hash of what they compress, and made in parallel, so an unchanged chunk (React)
//! is never compressed again.

use std::io::Write;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::{Error, Files, Source};
use crate::diagnostics::IoError;

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> Error + '_ {
    move |e| Error::Io(IoError::at(path)(e))
}

/// Whether a file is worth compressing ahead: scripts and stylesheets.
fn compressible(url: &str) -> bool {
    url.ends_with(".js") || url.ends_with(".css")
}

/// The `.br` and `.gz` twins of each of `files` (public URL → file), from the
/// cache in `cache` or made now.
pub fn twins<'a>(
    files: impl Iterator<Item = (&'a String, &'a PathBuf)>,
    cache: &Path,
) -> Result<Vec<(String, PathBuf)>, Error> {
    std::fs::create_dir_all(cache).map_err(io(cache))?;
    let wanted: Vec<(&String, &PathBuf)> = files.filter(|(url, _)| compressible(url)).collect();
    let made: Vec<Vec<(String, PathBuf)>> = wanted
        .par_iter()
        .map(|(url, path)| {
            let bytes = std::fs::read(path).map_err(io(path))?;
            let key = blake3::hash(&bytes).to_hex();
            let mut out = Vec::new();
            for ext in ["br", "gz"] {
                let twin = cache.join(format!("{key}.{ext}"));
                if !twin.is_file() {
                    let data = compress(&bytes, ext).map_err(io(path))?;
                    let tmp = cache.join(format!("{key}.{ext}.tmp-{}", std::process::id()));
                    std::fs::write(&tmp, data).map_err(io(&tmp))?;
                    std::fs::rename(&tmp, &twin).map_err(io(&twin))?;
                }
                out.push((format!("{url}.{ext}"), twin));
            }
            Ok(out)
        })
        .collect::<Result<_, Error>>()?;
    Ok(made.into_iter().flatten().collect())
}

fn compress(bytes: &[u8], ext: &str) -> std::io::Result<Vec<u8>> {
    if ext == "gz" {
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        gz.write_all(bytes)?;
        gz.finish()
    } else {
        let mut br = Vec::new();
        {
            let mut w = brotli::CompressorWriter::new(&mut br, 4096, 11, 22);
            w.write_all(bytes)?;
        }
        Ok(br)
    }
}

/// Adds the twins of every bundled script and stylesheet to `files`.
pub fn add_twins<'a>(
    files: &mut Files,
    bundle_files: impl Iterator<Item = (&'a String, &'a PathBuf)>,
    cache: &Path,
) -> Result<(), Error> {
    for (url, twin) in twins(bundle_files, cache)? {
        files.add(
            url.trim_start_matches('/').to_string(),
            Source::Immutable(twin),
            "the precompressed twins",
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    #[test]
    fn twins_decompress_to_the_file_and_are_made_once() {
        let dir = std::env::temp_dir().join(format!("site-twins-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let script = dir.join("a.js");
        std::fs::write(&script, "console.log('twins');".repeat(50)).unwrap();
        let files = [
            ("/assets/a.js".to_string(), script.clone()),
            ("/assets/a.png".to_string(), script.clone()),
        ];
        let cache = dir.join("cache");
        let made = twins(files.iter().map(|(u, p)| (u, p)), &cache).unwrap();
        let urls: Vec<&str> = made.iter().map(|(u, _)| u.as_str()).collect();
        assert_eq!(urls, ["/assets/a.js.br", "/assets/a.js.gz"]);
        let mut br = Vec::new();
        brotli::Decompressor::new(std::fs::File::open(&made[0].1).unwrap(), 4096)
            .read_to_end(&mut br)
            .unwrap();
        assert_eq!(br, std::fs::read(&script).unwrap());
        let modified = std::fs::metadata(&made[0].1).unwrap().modified().unwrap();
        twins(files.iter().map(|(u, p)| (u, p)), &cache).unwrap();
        assert_eq!(
            std::fs::metadata(&made[0].1).unwrap().modified().unwrap(),
            modified
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
