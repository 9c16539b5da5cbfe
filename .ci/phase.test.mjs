// .ci/phase, which runs each long phase of `make test`: it says how the phase
// ended, passes its exit code on, and its output ends when the phase does.

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import path from "node:path";

const phase = path.join(import.meta.dirname, "phase");

/** Runs `.ci/phase name ...command`; resolves once its output has closed. */
function run(name, ...command) {
  return new Promise((resolve, reject) => {
    const child = spawn(phase, [name, ...command], { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.on("error", reject);
    // "close" comes after the process has exited and every holder of its output
    // has let go of it.
    child.on("close", (code) => resolve({ code, out }));
  });
}

test("a phase says when it starts and that it passed, with its command's exit code", async () => {
  const { code, out } = await run("demo", "true");
  assert.equal(code, 0);
  assert.match(out, /^▶ demo\n✔ demo in \d+ s\n$/);
});

test("a phase that fails says so and passes its command's exit code on", async () => {
  const { code, out } = await run("demo", "sh", "-c", "exit 3");
  assert.equal(code, 3);
  assert.match(out, /✘ demo failed \(exit 3\) after \d+ s\n$/);
});

// Its still-going message comes every 30 s: nothing it starts for that may
// outlive the phase and hold a reader (CI's log, `make test | tee`) for the rest.
test("a phase's output ends when the phase does", { timeout: 10_000 }, async () => {
  // Long enough for the beat to have started waiting.
  const { code } = await run("demo", "sleep", "0.5");
  assert.equal(code, 0);
});
