//! Social cards: the 1200×630 PNG that a link to a page shows in chat and social
//! apps (`og:image`), rendered from the site's SVG template
//! (`templates/social/card.svg`) with the page's title, in the brand face.
//!
//! Cached under `.site/social/` by a hash of the SVG, so only a page whose title
//! (or the template) changed is drawn again.

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

pub const WIDTH: u32 = 1200;
pub const HEIGHT: u32 = 630;

/// How cards are encoded, part of their cache key.
const ENCODING: &str = "png rgb fast · 1";

/// A drawn card as PNG. A card is opaque, so it is stored as RGB, and compressed
/// with fdeflate's fast mode: what most of a cold build's time went to was the
/// default compressor, for files that only social apps fetch.
fn encode(pixmap: &resvg::tiny_skia::Pixmap) -> Result<Vec<u8>, png::EncodingError> {
    let pixels = pixmap.data();
    // A card with any transparency keeps its alpha, undone from premultiplied.
    if pixels.chunks_exact(4).any(|p| p[3] != u8::MAX) {
        return pixmap.encode_png();
    }
    let rgb: Vec<u8> = pixels
        .chunks_exact(4)
        .flat_map(|p| [p[0], p[1], p[2]])
        .collect();
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, pixmap.width(), pixmap.height());
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_compression(png::Compression::Fast);
    encoder.write_header()?.write_image_data(&rgb)?;
    Ok(out)
}

/// Draws social cards; the fonts are read the first time one is drawn.
pub struct Cards {
    cache: PathBuf,
    fonts: Vec<PathBuf>,
    database: OnceLock<Arc<resvg::usvg::fontdb::Database>>,
}

/// A drawn card.
#[derive(Debug, Clone)]
pub struct Card {
    /// `/assets/social/<hash>.png`
    pub url: String,
    pub file: PathBuf,
}

impl Cards {
    /// `fonts`: the site's web fonts (woff2), which the card's text may use.
    pub fn new(root: &Path, fonts: Vec<PathBuf>) -> Cards {
        Cards {
            cache: root.join(".site").join("social"),
            fonts,
            database: OnceLock::new(),
        }
    }

    /// The card drawn from `svg`.
    pub fn card(&self, svg: &str) -> Result<Card, String> {
        let mut hasher = blake3::Hasher::new();
        hasher.update(ENCODING.as_bytes());
        hasher.update(svg.as_bytes());
        let hash = hasher.finalize().to_hex()[..16].to_string();
        let name = format!("{hash}.png");
        let file = self.cache.join(&name);
        if !file.is_file() {
            let png = self.draw(svg)?;
            std::fs::create_dir_all(&self.cache)
                .and_then(|()| {
                    let tmp = file.with_extension(format!("png.{}.tmp", std::process::id()));
                    std::fs::write(&tmp, &png)?;
                    std::fs::rename(&tmp, &file)
                })
                .map_err(|e| {
                    format!(
                        "the social card cache {} could not be written: {e}",
                        file.display()
                    )
                })?;
        }
        Ok(Card {
            url: format!("/assets/social/{name}"),
            file,
        })
    }

    fn draw(&self, svg: &str) -> Result<Vec<u8>, String> {
        let options = resvg::usvg::Options {
            fontdb: self.database().clone(),
            ..Default::default()
        };
        let tree = resvg::usvg::Tree::from_str(svg, &options)
            .map_err(|e| format!("the social card template is not valid SVG: {e}"))?;
        let mut pixmap = resvg::tiny_skia::Pixmap::new(WIDTH, HEIGHT)
            .ok_or_else(|| "the social card could not be allocated".to_string())?;
        let size = tree.size();
        let scale = resvg::tiny_skia::Transform::from_scale(
            WIDTH as f32 / size.width(),
            HEIGHT as f32 / size.height(),
        );
        resvg::render(&tree, scale, &mut pixmap.as_mut());
        encode(&pixmap).map_err(|e| format!("the social card could not be encoded: {e}"))
    }

    fn database(&self) -> &Arc<resvg::usvg::fontdb::Database> {
        self.database.get_or_init(|| {
            let mut db = resvg::usvg::fontdb::Database::new();
            for path in &self.fonts {
                // A font that cannot be read leaves the text to the fallback family.
                if let Some(ttf) = std::fs::read(path)
                    .ok()
                    .and_then(|b| wuff::decompress_woff2(&b).ok())
                {
                    db.load_font_data(ttf);
                }
            }
            // Only the site's own fonts: a card looks the same on every machine.
            Arc::new(db)
        })
    }
}

/// `text` broken into at most `lines` lines of at most `width` characters, at
/// spaces; what does not fit ends the last line with an ellipsis.
pub fn wrap(text: &str, width: usize, lines: usize) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut words = text.split_whitespace().peekable();
    while let Some(word) = words.next() {
        let full = out.len() == lines;
        match out.last_mut() {
            Some(line) if line.chars().count() + 1 + word.chars().count() <= width => {
                line.push(' ');
                line.push_str(word);
            }
            Some(line) if full => {
                ellipsize(line, width);
                return out;
            }
            _ => out.push(word.chars().take(width).collect()),
        }
        if words.peek().is_none() {
            break;
        }
    }
    out
}

fn ellipsize(line: &mut String, width: usize) {
    while line.chars().count() + 1 > width {
        match line.rfind(' ') {
            Some(i) => line.truncate(i),
            None => {
                line.pop();
            }
        }
    }
    line.push('…');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_wrap_at_spaces_and_long_ones_end_with_an_ellipsis() {
        assert_eq!(wrap("Contact", 20, 3), ["Contact"]);
        assert_eq!(
            wrap("Reinvent your enterprise around a digital core", 20, 3),
            ["Reinvent your", "enterprise around a", "digital core"]
        );
        assert_eq!(
            wrap("one two three four five six seven eight nine", 10, 2),
            ["one two", "three…"]
        );
    }
}
