// The contact form's own rules, compiled from their TypeScript sources by esbuild
// for Node, so the policy tests use what the browser runs.

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { build } from "esbuild";

const root = path.resolve(import.meta.dirname, "../..");

/** The exports of `islands/lib/<name>.ts` for each name, as one module. */
export async function formModules(...names) {
  const dir = mkdtempSync(path.join(tmpdir(), "site-form-"));
  const entry = path.join(dir, "entry.ts");
  writeFileSync(entry, names.map((n) => `export * from ${JSON.stringify(path.join(root, "islands/lib", `${n}.ts`))};\n`).join(""));
  const outfile = path.join(dir, "form.mjs");
  await build({ entryPoints: [entry], outfile, format: "esm", bundle: true, logLevel: "error" });
  const module = await import(outfile);
  rmSync(dir, { recursive: true, force: true });
  return module;
}
