// A short, bounded load on loopback: pages and uploads together, no errors, and
// every accepted upload reads back byte for byte.

import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { runLoad } from "../bench/load.mjs";
import { copySite, startServer } from "./support.mjs";

let server;

before(async () => {
  const site = copySite();
  const config = path.join(site, "content/site.yaml");
  writeFileSync(config, readFileSync(config, "utf8").replace(/anon_key: ".*"/, 'anon_key: "load-key"'));
  server = await startServer({ siteRoot: site });
});

after(async () => {
  await server?.stop();
});

test("pages and uploads under load: no errors, nothing lost or corrupted", async () => {
  const result = await runLoad({ url: server.url, key: "load-key", seconds: 4, concurrency: 16 });
  assert.deepEqual(result.errors, []);
  assert.ok(result.uploads > 20, `only ${result.uploads} uploads`);
  assert.ok(result.pages > 100, `only ${result.pages} page requests`);
  assert.equal(result.lost, 0);
  assert.equal(result.corrupted, 0);
});
