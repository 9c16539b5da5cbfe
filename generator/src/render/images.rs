//! `image(src, alt)`: a picture of a file under `public/`, always with its
//! intrinsic width and height (so nothing shifts as it loads), lazy unless `eager`
//! (the page's largest picture above the fold, fetched first). A JPEG, PNG or WebP
//! becomes a `<picture>` of AVIF, WebP and its own format at several widths, with
//! `sizes` saying how wide it is shown (`100vw` unless told); an SVG stays one `<img>`.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};

use minijinja::value::Kwargs;
use minijinja::{Error, ErrorKind, State, Value};

use super::svg::svg_size;
use crate::html::escape_attribute;
use crate::images::maps::{Maps, Place};
use crate::images::social::{self, Cards};
use crate::images::{Format, Processed, Processor};

/// Files a page links that are made while it renders (image variants, its social
/// card): public URL → file. Kept on the render state.
#[derive(Debug, Default)]
pub struct PageFiles(pub Vec<(String, PathBuf)>);

impl PageFiles {
    pub fn add(state: &mut State, url: &str, file: &std::path::Path) {
        state
            .get_or_insert_extension(PageFiles::default())
            .0
            .push((url.to_string(), file.to_path_buf()));
    }
}

pub struct Images {
    public: PathBuf,
    sizes: Mutex<HashMap<String, (u32, u32)>>,
    processor: Arc<Processor>,
}

impl Images {
    pub fn new(public: PathBuf, processor: Arc<Processor>) -> Images {
        Images {
            public,
            sizes: Mutex::new(HashMap::new()),
            processor,
        }
    }

    pub fn render(
        &self,
        state: &mut State,
        src: &str,
        alt: &str,
        kwargs: Kwargs,
    ) -> Result<Value, Error> {
        let eager: Option<bool> = kwargs.get("eager")?;
        let class: Option<String> = kwargs.get("class")?;
        let sizes: Option<String> = kwargs.get("sizes")?;
        kwargs.assert_all_used()?;
        let loading = if eager.unwrap_or(false) {
            r#" fetchpriority="high""#
        } else {
            r#" loading="lazy""#
        };
        let class = class
            .map(|c| format!(r#" class="{}""#, escape_attribute(&c)))
            .unwrap_or_default();
        let alt = escape_attribute(alt);
        if Processor::handles(src) {
            let processed = self
                .processor
                .process(src)
                .map_err(|e| Error::new(ErrorKind::InvalidOperation, e))?;
            for v in &processed.variants {
                PageFiles::add(state, &v.url, &v.file);
            }
            let sizes = escape_attribute(sizes.as_deref().unwrap_or("100vw"));
            return Ok(Value::from_safe_string(picture(
                &processed,
                &format!(r#"alt="{alt}"{loading} decoding="async"{class}"#),
                &sizes,
            )));
        }
        let (width, height) = self.size(src)?;
        Ok(Value::from_safe_string(format!(
            r#"<img src="{}" alt="{alt}" width="{width}" height="{height}"{loading} decoding="async"{class}>"#,
            escape_attribute(src),
        )))
    }

    /// The intrinsic size of an SVG (from its attributes) or other image.
    fn size(&self, src: &str) -> Result<(u32, u32), Error> {
        if let Some(s) = self
            .sizes
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(src)
        {
            return Ok(*s);
        }
        let rel = src.trim_start_matches('/');
        let missing = || {
            Error::new(
                ErrorKind::InvalidOperation,
                format!("no image `{src}` in public/"),
            )
        };
        if rel.split('/').any(|s| s == "..") {
            return Err(missing());
        }
        let path = self.public.join(rel);
        let size = if rel.ends_with(".svg") {
            let text = std::fs::read_to_string(&path).map_err(|_| missing())?;
            svg_size(&text).ok_or_else(|| {
                Error::new(
                    ErrorKind::InvalidOperation,
                    format!("image `{src}` has no width and height (or viewBox) to size it by"),
                )
            })?
        } else {
            let dim = imagesize::size(&path).map_err(|_| missing())?;
            (dim.width as u32, dim.height as u32)
        };
        self.sizes
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(src.to_string(), size);
        Ok(size)
    }
}

/// `<picture>`: a `<source>` per better format, then the `<img>` in the original's.
fn picture(p: &Processed, attributes: &str, sizes: &str) -> String {
    let srcset = |format: Format| {
        p.of_format(format)
            .map(|v| format!("{} {}w", v.url, v.width))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let Some((&fallback, better)) = p.formats.split_last() else {
        return String::new();
    };
    let mut out = String::from("<picture>");
    for &format in better {
        out.push_str(&format!(
            r#"<source type="{}" srcset="{}" sizes="{sizes}">"#,
            format.mime(),
            srcset(format)
        ));
    }
    // Browsers without srcset take a middle width: sharp enough, not the largest.
    let src = p
        .of_format(fallback)
        .filter(|v| v.width <= 1200)
        .last()
        .or_else(|| p.of_format(fallback).next())
        .map(|v| v.url.as_str())
        .unwrap_or_default();
    out.push_str(&format!(
        r#"<img src="{src}" srcset="{}" sizes="{sizes}" width="{}" height="{}" {attributes}></picture>"#,
        srcset(fallback),
        p.width,
        p.height
    ));
    out
}

/// `social_card(title, eyebrow=…)`: the URL of the page's social card, drawn from
/// `templates/social/card.svg` with the title in lines that fit.
pub struct SocialCards {
    pub cards: Cards,
}

impl SocialCards {
    pub fn render(&self, state: &mut State, title: &str, kwargs: Kwargs) -> Result<Value, Error> {
        let eyebrow: Option<String> = kwargs.get("eyebrow")?;
        kwargs.assert_all_used()?;
        let template = state.env().get_template("social/card.svg")?;
        let svg = template.render(minijinja::context! {
            lines => social::wrap(title, 24, 3),
            eyebrow => eyebrow,
            site => state.lookup("site"),
            width => social::WIDTH,
            height => social::HEIGHT,
        })?;
        let card = self
            .cards
            .card(&svg)
            .map_err(|e| Error::new(ErrorKind::InvalidOperation, e))?;
        PageFiles::add(state, &card.url, &card.file);
        Ok(Value::from(card.url))
    }
}

/// `world_map(pins)`: the map of a `map` block, drawn at build time: its `src`,
/// `width` and `height`, and each pin with its `x` and `y` on the map and the
/// `side` its label goes on (left when another pin is close on its right).
pub struct WorldMaps {
    pub maps: Maps,
}

#[derive(serde::Deserialize)]
struct PinIn {
    label: String,
    #[serde(default)]
    note: Option<String>,
    latitude: f64,
    longitude: f64,
    #[serde(default)]
    headquarters: bool,
}

impl WorldMaps {
    pub fn render(&self, state: &mut State, pins: Value) -> Result<Value, Error> {
        let pins: Vec<PinIn> = serde_json::to_value(&pins)
            .and_then(serde_json::from_value)
            .map_err(|e| Error::new(ErrorKind::InvalidOperation, format!("map pins: {e}")))?;
        let places: Vec<Place> = pins
            .iter()
            .map(|p| Place {
                latitude: p.latitude,
                longitude: p.longitude,
            })
            .collect();
        let drawn = self
            .maps
            .draw(&places)
            .map_err(|e| Error::new(ErrorKind::InvalidOperation, e))?;
        PageFiles::add(state, &drawn.url, &drawn.file);
        let points = &drawn.pins;
        let placed: Vec<serde_json::Value> = pins
            .iter()
            .zip(points)
            .enumerate()
            .map(|(i, (pin, at))| {
                let crowded = points.iter().enumerate().any(|(j, other)| {
                    j != i
                        && other.x > at.x
                        && other.x - at.x < 160.0
                        && (other.y - at.y).abs() < 40.0
                });
                let side = if crowded || at.x > drawn.width as f64 - 150.0 {
                    "left"
                } else {
                    "right"
                };
                serde_json::json!({
                    "label": pin.label, "note": pin.note, "headquarters": pin.headquarters,
                    "x": at.x, "y": at.y, "side": side,
                })
            })
            .collect();
        Ok(Value::from(minijinja::value::Serde(serde_json::json!({
            "src": drawn.url, "width": drawn.width, "height": drawn.height, "pins": placed,
        }))))
    }
}
