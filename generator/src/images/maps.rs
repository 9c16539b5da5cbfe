//! World maps drawn at build time: `world_map.mjs` projects Natural Earth's land
//! (npm `world-atlas`) with `d3-geo` in Node and says where each pin falls. The
//! drawing is cached under `.site/maps/` by a hash of the pins, the script and the
//! atlas, so a warm build starts no Node for it.

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use serde::{Deserialize, Serialize};

const SCRIPT: &str = include_str!("world_map.mjs");

/// The width the map is drawn at, in SVG units; the page scales it.
pub const WIDTH: u32 = 960;

/// A place to pin: its coordinates in degrees.
#[derive(Debug, Clone, Serialize)]
pub struct Place {
    pub latitude: f64,
    pub longitude: f64,
}

/// A drawn map.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Drawn {
    /// `/assets/maps/world-<hash>.svg`
    pub url: String,
    #[serde(skip)]
    pub file: PathBuf,
    pub width: u32,
    pub height: u32,
    /// Where each place falls on the map, in the map's units, in order.
    pub pins: Vec<Point>,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub struct Point {
    pub x: f64,
    pub y: f64,
}

#[derive(Deserialize)]
struct Output {
    svg: String,
    width: u32,
    height: u32,
    pins: Vec<Point>,
}

type Slot = Arc<OnceLock<Result<Arc<Drawn>, String>>>;

pub struct Maps {
    cache: PathBuf,
    node: Option<PathBuf>,
    node_modules: Option<PathBuf>,
    done: Mutex<HashMap<String, Slot>>,
}

impl Maps {
    pub fn new(root: &Path, node: Option<PathBuf>, node_modules: Option<PathBuf>) -> Maps {
        Maps {
            cache: root.join(".site").join("maps"),
            node,
            node_modules,
            done: Mutex::new(HashMap::new()),
        }
    }

    /// The map with `places` pinned, drawn once per build and cached across builds.
    pub fn draw(&self, places: &[Place]) -> Result<Arc<Drawn>, String> {
        let input = serde_json::json!({ "width": WIDTH, "pins": places }).to_string();
        let slot = self
            .done
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .entry(input.clone())
            .or_default()
            .clone();
        slot.get_or_init(|| self.make(&input)).clone()
    }

    fn make(&self, input: &str) -> Result<Arc<Drawn>, String> {
        let node_modules = self.node_modules.as_deref().ok_or(
            "a map needs the npm packages d3-geo, topojson-client and world-atlas; run `npm ci`",
        )?;
        let atlas = std::fs::read(node_modules.join("world-atlas").join("package.json"))
            .map_err(|_| "a map needs the npm package world-atlas; run `npm ci`".to_string())?;
        let hash = {
            let mut h = blake3::Hasher::new();
            h.update(SCRIPT.as_bytes());
            h.update(&atlas);
            h.update(input.as_bytes());
            h.finalize().to_hex()[..12].to_string()
        };
        let name = format!("world-{hash}.svg");
        let file = self.cache.join(&name);
        let meta = self.cache.join(format!("world-{hash}.json"));
        let cached = std::fs::read_to_string(&meta)
            .ok()
            .and_then(|t| serde_json::from_str::<Drawn>(&t).ok())
            .filter(|_| file.is_file());
        let drawn = match cached {
            Some(d) => d,
            None => {
                let out = self.run(node_modules, input)?;
                let drawn = Drawn {
                    url: format!("/assets/maps/{name}"),
                    file: PathBuf::new(),
                    width: out.width,
                    height: out.height,
                    pins: out.pins,
                };
                let write = || -> std::io::Result<()> {
                    std::fs::create_dir_all(&self.cache)?;
                    std::fs::write(&file, out.svg)?;
                    std::fs::write(&meta, serde_json::to_string(&drawn)?)
                };
                write().map_err(|e| {
                    format!("the map cache {} could not be written: {e}", file.display())
                })?;
                drawn
            }
        };
        Ok(Arc::new(Drawn { file, ..drawn }))
    }

    fn run(&self, node_modules: &Path, input: &str) -> Result<Output, String> {
        let node = self
            .node
            .as_deref()
            .ok_or("a map is drawn by Node, which was not found; install Node.js 20 or newer")?;
        // Bare imports of an evaluated module resolve from the working directory.
        let cwd = node_modules.parent().unwrap_or(node_modules);
        let mut child = Command::new(node)
            .args(["--input-type=module", "-e", SCRIPT])
            .current_dir(cwd)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("Node could not be started to draw the map: {e}"))?;
        if let Some(mut stdin) = child.stdin.take() {
            stdin
                .write_all(input.as_bytes())
                .map_err(|e| format!("the map's places could not be sent to Node: {e}"))?;
        }
        let output = child
            .wait_with_output()
            .map_err(|e| format!("drawing the map failed: {e}"))?;
        if !output.status.success() {
            let stderr = String::from_utf8_lossy(&output.stderr);
            let first = stderr
                .lines()
                .find(|l| l.contains("Error"))
                .unwrap_or("Node failed");
            return Err(format!("drawing the map failed: {first}"));
        }
        serde_json::from_slice(&output.stdout)
            .map_err(|e| format!("drawing the map gave no map: {e}"))
    }
}
