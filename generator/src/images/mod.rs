//! Responsive images: a JPEG, PNG or WebP under `public/` becomes AVIF, WebP and
//! its own format at several widths (never wider than the original), for a
//! `<picture>` to choose from; every page gets a social card ([`social`]); and
//! world maps are drawn from geographic data ([`maps`]).
//!
//! Work is cached under `.site/images/` by a hash of the original's bytes and of
//! the encoder settings, so a warm build only hashes the file. Within a build each
//! image is processed once, however many pages show it, its variants in parallel.

pub mod maps;
pub mod social;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use rayon::prelude::*;

/// The widths offered, in CSS pixels at 1x: from a phone's column to a 2x desktop.
pub const WIDTHS: [u32; 5] = [400, 800, 1200, 1600, 2400];

/// Bump when the encoders or their settings change, so cached variants are redone.
const SETTINGS: &str = "avif q62 s8 · webp q78 · jpeg q82 · png · lanczos3 · 1";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Avif,
    Webp,
    Jpeg,
    Png,
}

impl Format {
    pub fn extension(self) -> &'static str {
        match self {
            Format::Avif => "avif",
            Format::Webp => "webp",
            Format::Jpeg => "jpg",
            Format::Png => "png",
        }
    }

    pub fn mime(self) -> &'static str {
        match self {
            Format::Avif => "image/avif",
            Format::Webp => "image/webp",
            Format::Jpeg => "image/jpeg",
            Format::Png => "image/png",
        }
    }

    /// The format of an original, by its extension.
    pub fn of_original(src: &str) -> Option<Format> {
        let ext = src.rsplit_once('.')?.1.to_ascii_lowercase();
        match ext.as_str() {
            "jpg" | "jpeg" => Some(Format::Jpeg),
            "png" => Some(Format::Png),
            "webp" => Some(Format::Webp),
            _ => None,
        }
    }
}

/// One encoded file.
#[derive(Debug, Clone)]
pub struct Variant {
    pub format: Format,
    pub width: u32,
    /// Where the page links it: `/assets/images/<name>-<hash>-<width>.<ext>`.
    pub url: String,
    /// The cached file.
    pub file: PathBuf,
}

/// An original and its variants.
#[derive(Debug, Clone)]
pub struct Processed {
    pub width: u32,
    pub height: u32,
    /// The formats to offer, best first; the last is the original's, for `<img>`.
    pub formats: Vec<Format>,
    pub variants: Vec<Variant>,
}

impl Processed {
    pub fn of_format(&self, format: Format) -> impl Iterator<Item = &Variant> {
        self.variants.iter().filter(move |v| v.format == format)
    }
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("no image `{0}` in public/")]
    Missing(String),
    #[error("image `{src}` could not be read: {reason}")]
    Decode { src: String, reason: String },
    #[error("image `{src}` could not be encoded as {format}: {reason}")]
    Encode {
        src: String,
        format: &'static str,
        reason: String,
    },
    #[error("the image cache {path} could not be written: {reason}")]
    Cache { path: PathBuf, reason: String },
}

type Slot = Arc<OnceLock<Result<Arc<Processed>, String>>>;

/// Processes the originals of one site, each at most once per build.
pub struct Processor {
    public: PathBuf,
    cache: PathBuf,
    done: Mutex<HashMap<String, Slot>>,
}

impl Processor {
    pub fn new(root: &Path) -> Processor {
        Processor {
            public: root.join("public"),
            cache: root.join(".site").join("images"),
            done: Mutex::new(HashMap::new()),
        }
    }

    /// Whether `src` names an image this processor makes variants of.
    pub fn handles(src: &str) -> bool {
        Format::of_original(src).is_some()
    }

    /// The variants of `src` (a path under `public/`, `/images/team.jpg`).
    pub fn process(&self, src: &str) -> Result<Arc<Processed>, String> {
        let slot = self
            .done
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .entry(src.to_string())
            .or_default()
            .clone();
        slot.get_or_init(|| self.make(src).map(Arc::new).map_err(|e| e.to_string()))
            .clone()
    }

    fn make(&self, src: &str) -> Result<Processed, Error> {
        let rel = src.trim_start_matches('/');
        let original = Format::of_original(rel).ok_or_else(|| Error::Missing(src.into()))?;
        if rel.split('/').any(|s| s == ".." || s.is_empty()) {
            return Err(Error::Missing(src.into()));
        }
        let path = self.public.join(rel);
        let bytes = std::fs::read(&path).map_err(|_| Error::Missing(src.into()))?;
        let (width, height) = imagesize::blob_size(&bytes)
            .map(|s| (s.width as u32, s.height as u32))
            .map_err(|e| Error::Decode {
                src: src.into(),
                reason: e.to_string(),
            })?;
        let hash = {
            let mut h = blake3::Hasher::new();
            h.update(SETTINGS.as_bytes());
            h.update(&bytes);
            h.finalize().to_hex()[..12].to_string()
        };
        let stem = Path::new(rel)
            .file_stem()
            .map(|s| slug(&s.to_string_lossy()))
            .unwrap_or_default();
        let formats = match original {
            Format::Webp => vec![Format::Avif, Format::Webp],
            other => vec![Format::Avif, Format::Webp, other],
        };
        let widths = widths_for(width);
        let variants: Vec<Variant> = formats
            .iter()
            .flat_map(|&format| {
                let (cache, stem, hash) = (&self.cache, &stem, &hash);
                widths.iter().map(move |&w| {
                    let name = format!("{stem}-{hash}-{w}.{}", format.extension());
                    Variant {
                        format,
                        width: w,
                        url: format!("/assets/images/{name}"),
                        file: cache.join(name),
                    }
                })
            })
            .collect();
        let missing: Vec<&Variant> = variants.iter().filter(|v| !v.file.is_file()).collect();
        if !missing.is_empty() {
            let decoded = image::load_from_memory(&bytes).map_err(|e| Error::Decode {
                src: src.into(),
                reason: e.to_string(),
            })?;
            std::fs::create_dir_all(&self.cache).map_err(|e| Error::Cache {
                path: self.cache.clone(),
                reason: e.to_string(),
            })?;
            encode_all(&decoded, &missing, src)?;
        }
        Ok(Processed {
            width,
            height,
            formats,
            variants,
        })
    }
}

/// Encodes the variants side by side, on the encoders' own pool entered from a
/// thread of its own. A page's render waits for its picture here while other
/// renders may need the same picture: had it waited on the render pool's own
/// threads, rayon would have had it run another page's render meanwhile, which,
/// needing that same picture, would wait on the very slot being filled beneath
/// it, for ever. A plain thread's join takes no other work.
fn encode_all(image: &image::DynamicImage, missing: &[&Variant], src: &str) -> Result<(), Error> {
    static ENCODERS: OnceLock<Option<rayon::ThreadPool>> = OnceLock::new();
    let pool = ENCODERS.get_or_init(|| {
        rayon::ThreadPoolBuilder::new()
            .thread_name(|i| format!("site-encoder-{i}"))
            .build()
            .ok()
    });
    let encode = || {
        missing
            .par_iter()
            .map(|v| encode_to_cache(image, v, src))
            .collect::<Result<Vec<()>, Error>>()
    };
    std::thread::scope(|scope| {
        scope
            .spawn(|| match pool {
                Some(pool) => pool.install(encode),
                None => missing
                    .iter()
                    .map(|v| encode_to_cache(image, v, src))
                    .collect::<Result<Vec<()>, Error>>(),
            })
            .join()
    })
    .map_err(|_| Error::Cache {
        path: PathBuf::from(src),
        reason: "its encoder stopped".into(),
    })??;
    Ok(())
}

/// The widths to make of an original `width` wide: each of [`WIDTHS`] below it,
/// and the original's own width up to the largest of them (never upscaled).
pub fn widths_for(width: u32) -> Vec<u32> {
    let largest = width.min(WIDTHS[WIDTHS.len() - 1]);
    // A width within a tenth of the largest would cost bytes and save none.
    let mut out: Vec<u32> = WIDTHS
        .iter()
        .copied()
        .filter(|&w| w * 10 < largest * 9)
        .collect();
    out.push(largest);
    out
}

fn encode_to_cache(image: &image::DynamicImage, v: &Variant, src: &str) -> Result<(), Error> {
    let resized = if v.width < image.width() {
        let height = ((image.height() as u64 * v.width as u64 + image.width() as u64 / 2)
            / image.width() as u64)
            .max(1) as u32;
        image.resize_exact(v.width, height, image::imageops::FilterType::Lanczos3)
    } else {
        image.clone()
    };
    let encode_error = |reason: String| Error::Encode {
        src: src.into(),
        format: v.format.extension(),
        reason,
    };
    let bytes = encode(&resized, v.format).map_err(encode_error)?;
    // Written whole under a temporary name, then renamed: an interrupted build
    // never leaves a truncated variant that a later build would take as done.
    let tmp = v.file.with_extension(format!(
        "{}.{}.tmp",
        v.format.extension(),
        std::process::id()
    ));
    std::fs::write(&tmp, &bytes)
        .and_then(|()| std::fs::rename(&tmp, &v.file))
        .map_err(|e| Error::Cache {
            path: v.file.clone(),
            reason: e.to_string(),
        })
}

fn encode(image: &image::DynamicImage, format: Format) -> Result<Vec<u8>, String> {
    let rgba = image.to_rgba8();
    let (w, h) = (rgba.width(), rgba.height());
    match format {
        Format::Avif => {
            let pixels: Vec<ravif::RGBA8> = rgba
                .pixels()
                .map(|p| ravif::RGBA8::new(p[0], p[1], p[2], p[3]))
                .collect();
            ravif::Encoder::new()
                .with_quality(62.0)
                .with_alpha_quality(70.0)
                .with_speed(8)
                // The images of a page are encoded side by side already.
                .with_num_threads(Some(1))
                .encode_rgba(ravif::Img::new(&pixels[..], w as usize, h as usize))
                .map(|e| e.avif_file)
                .map_err(|e| e.to_string())
        }
        Format::Webp => Ok(webp::Encoder::from_rgba(rgba.as_raw(), w, h)
            .encode(78.0)
            .to_vec()),
        Format::Jpeg => {
            let mut out = Vec::new();
            let rgb = image::DynamicImage::ImageRgba8(rgba).to_rgb8();
            image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, 82)
                .encode_image(&rgb)
                .map_err(|e| e.to_string())?;
            Ok(out)
        }
        Format::Png => {
            let mut out = Vec::new();
            image::DynamicImage::ImageRgba8(rgba)
                .write_to(&mut std::io::Cursor::new(&mut out), image::ImageFormat::Png)
                .map_err(|e| e.to_string())?;
            Ok(out)
        }
    }
}

/// A file name part: letters, digits and dashes.
fn slug(name: &str) -> String {
    let s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    let s = s.trim_matches('-').to_string();
    if s.is_empty() {
        "image".into()
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widths_stop_at_the_original_and_never_upscale() {
        assert_eq!(widths_for(300), [300]);
        assert_eq!(widths_for(1000), [400, 800, 1000]);
        assert_eq!(widths_for(1200), [400, 800, 1200]);
        assert_eq!(widths_for(1280), [400, 800, 1280]);
        assert_eq!(widths_for(5000), [400, 800, 1200, 1600, 2400]);
    }

    #[test]
    fn only_rasters_get_variants() {
        assert!(Processor::handles("/images/team.JPG"));
        assert!(Processor::handles("/images/a.webp"));
        assert!(!Processor::handles("/images/a.svg"));
        assert!(!Processor::handles("/images/a.gif"));
    }
}
