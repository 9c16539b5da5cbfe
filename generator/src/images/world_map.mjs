// Draws the world map of a `map` block at build time: the land of Natural Earth
// (npm world-atlas, 1:110m) in the Natural Earth projection (d3-geo), as an SVG
// file, and where each pin falls on it. Never runs in the browser.
//   stdin:  {"width": 960, "pins": [{"label", "latitude", "longitude"}, ...]}
//   stdout: {"svg": "<svg ...>", "width", "height", "pins": [{"x", "y"}, ...]}

import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { geoGraticule, geoNaturalEarth1, geoPath } from "d3-geo";
import { feature } from "topojson-client";

const require = createRequire(path.join(process.cwd(), "package.json"));
const atlas = JSON.parse(readFileSync(require.resolve("world-atlas/land-110m.json"), "utf8"));
const land = feature(atlas, atlas.objects.land);

const input = JSON.parse(readFileSync(0, "utf8"));
const width = input.width;
// The whole globe fitted to the width, then cropped above 75°N and below 56°S,
// where no one needs a pin.
const projection = geoNaturalEarth1().fitWidth(width, { type: "Sphere" });
const top = Math.floor(projection([0, 75])[1]);
const bottom = Math.ceil(projection([0, -56])[1]);
projection.translate([projection.translate()[0], projection.translate()[1] - top]);
const height = bottom - top;
const draw = geoPath(projection).digits(0);

const svg =
  `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">` +
  `<path d="${draw(geoGraticule().step([30, 20])())}" fill="none" stroke="#dfe6f0" stroke-width="0.8"/>` +
  `<path d="${draw(land)}" fill="#a9bcd8"/>` +
  `</svg>`;

const pins = input.pins.map((p) => {
  const [x, y] = projection([p.longitude, p.latitude]);
  return { x: Math.round(x * 10) / 10, y: Math.round(y * 10) / 10 };
});
process.stdout.write(JSON.stringify({ svg, width, height, pins }));
