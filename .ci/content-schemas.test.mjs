// The committed JSON Schemas and the build's loader agree: an independent
// validator (ajv) accepts every content file of the site and of the generator's
// good fixtures, and rejects each broken fixture marked `.schema-invalid`.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync, existsSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { parse } from "yaml";

const root = new URL("..", import.meta.url).pathname;
const ajv = new Ajv2020({ allErrors: true, strict: false });
addFormats(ajv);
// The formats schemars writes for Rust's number types, checked as their ranges.
const whole = (max) => ({ type: "number", validate: (n) => Number.isInteger(n) && n >= 0 && n <= max });
ajv.addFormat("uint8", whole(255));
ajv.addFormat("uint32", whole(2 ** 32 - 1));
ajv.addFormat("uint64", whole(Number.MAX_SAFE_INTEGER));
ajv.addFormat("uint", whole(Number.MAX_SAFE_INTEGER));
ajv.addFormat("double", { type: "number", validate: Number.isFinite });
const schema = (name) =>
  ajv.compile(JSON.parse(readFileSync(join(root, "schemas", `${name}.schema.json`), "utf8")));
const validators = {
  site: schema("site"),
  page: schema("page"),
  "front-matter": schema("front-matter"),
  article: schema("article"),
  event: schema("event"),
  job: schema("job"),
  strings: schema("strings"),
};

function files(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : [path];
  });
}

/** The schema of each collection's entries, by folder, from a site root's site.yaml. */
function collections(siteRoot) {
  const schemaOf = { articles: "article", events: "event", jobs: "job" };
  try {
    const listed = parse(readFileSync(join(siteRoot, "content", "site.yaml"), "utf8"))?.collections ?? [];
    // A collection is its folder's name, or `{ name, kind }`.
    return new Map(listed.map((c) => (typeof c === "string" ? [c, "article"] : [c.name, schemaOf[c.kind ?? "articles"]])));
  } catch {
    return new Map();
  }
}

/** The problems of `text`, the content file `rel` (under content/) of a site
 * root whose collections are `inCollections`; empty when it is valid. */
function problems(rel, text, inCollections) {
  let data;
  let kind;
  try {
    if (rel === "site.yaml") {
      [data, kind] = [parse(text), "site"];
    } else if (rel.startsWith("strings/")) {
      [data, kind] = [parse(text), "strings"];
    } else if (rel.endsWith(".yaml") || rel.endsWith(".yml")) {
      [data, kind] = [parse(text), "page"];
    } else if (rel.endsWith(".md")) {
      const m = /^---\r?\n([\s\S]*?)\r?\n?---\r?\n/.exec(text);
      if (!m) return ["no front matter"];
      const folder = rel.split("/").slice(1, -1).join("/");
      kind = inCollections.get(folder) ?? "front-matter";
      data = parse(m[1]);
    } else {
      return [];
    }
  } catch (e) {
    return [`not YAML: ${e.message.split("\n")[0]}`];
  }
  const validate = validators[kind];
  return validate(data)
    ? []
    : validate.errors.map((e) => `${kind}: ${e.instancePath || "/"} ${e.message}`);
}

/** Every content file of a site root, with its problems. */
function checkSite(siteRoot) {
  const content = join(siteRoot, "content");
  const inCollections = collections(siteRoot);
  return files(content).map((path) => [
    relative(siteRoot, path),
    problems(relative(content, path).split(sep).join("/"), readFileSync(path, "utf8"), inCollections),
  ]);
}

test("every content file of the site passes its schema", () => {
  const checked = checkSite(root);
  assert.ok(checked.length > 20, `${checked.length} files`);
  for (const [file, found] of checked) assert.deepEqual(found, [], file);
});

test("every content file of the generator's good fixtures passes its schema", () => {
  const fixtures = join(root, "generator", "tests", "fixtures");
  for (const name of readdirSync(fixtures)) {
    for (const [file, found] of checkSite(join(fixtures, name))) {
      assert.deepEqual(found, [], `${name}/${file}`);
    }
  }
});

test("each broken fixture marked .schema-invalid fails its schema", () => {
  const broken = join(root, "generator", "tests", "broken");
  const plain = join(root, "generator", "tests", "fixtures", "plain");
  const marked = readdirSync(broken).filter((c) => existsSync(join(broken, c, ".schema-invalid")));
  assert.ok(marked.length >= 12, `${marked.length} marked cases`);
  for (const name of marked) {
    // A case's files are laid over the plain fixture, whose collections apply.
    const caseRoot = join(broken, name);
    const siteRoot = existsSync(join(caseRoot, "content", "site.yaml")) ? caseRoot : plain;
    const found = files(join(caseRoot, "content")).flatMap((path) =>
      problems(
        relative(join(caseRoot, "content"), path).split(sep).join("/"),
        readFileSync(path, "utf8"),
        collections(siteRoot),
      ),
    );
    assert.ok(found.length > 0, `${name}: the schema accepted it`);
  }
});
