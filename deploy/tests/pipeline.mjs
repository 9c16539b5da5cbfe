// Runs a workflow's jobs as GitHub Actions runs them for one event, on this
// machine: the workflow file as the pushed commit has it, each job when the
// jobs it needs have ended and its `if:` holds (evaluated by GitHub's own
// expression library, @actions/expressions), jobs that can run at once at once,
// a reusable workflow's jobs in place of the job that calls it, and every `run:`
// step's script, for real, by the shell GitHub uses, with the job's and step's
// `env`, `${{ }}` filled in, and the runner's own variables.
//
// A `uses:` step is stood in for by what the action does on a runner:
//
//   actions/checkout           a clone of the repository at the commit, of
//                              `fetch-depth` commits (1 unless it says)
//   actions/setup-node         the project's Node.js of that version first on
//                              PATH; with `cache: npm`, ~/.npm restored under the
//                              lockfiles' hash and saved after a job that
//                              succeeded without it
//   actions/cache              `path` restored under `key` (else the newest entry
//                              whose key starts with a `restore-keys` line), its
//                              `cache-hit` output, and saved after a job that
//                              succeeded without an exact hit
//   actions/cache/restore      restored as actions/cache restores, never saved
//   Swatinem/rust-cache        ~/.cargo's registry and target/, saved as that
//                              action saves them: without the workspace's own
//                              crate and the incremental files
//   actions/upload-artifact    the path copied into the run's artifacts
//   actions/download-artifact  copied back into `path`
//
// A job's `container:` is this machine itself, which is what those images hold
// (Debian 12, Rust stable, root), with the Debian packages already installed.
// Caches live in `store` across runs, as GitHub keeps them across workflow runs.
// A runner's folders (its home, workspace and temp) are new for each job; with
// `runners`, each job's are at the same place in every run, as on GitHub, where a
// job's runner always has the same paths: what Cargo compiled in one run is then
// up to date in the next, as it is on GitHub once rust-cache restores it (Cargo
// keeps its work under the paths it compiled at).

import { execFile, execFileSync, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { appendFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { cp, mkdir, rename, rm } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import YAML from "yaml";
import { condition, expand, expandString, hashFiles } from "./expressions.mjs";
import { nodeFor, parseOutputs, runnerEnv, shell } from "./workflow.mjs";

// What a runner does with files (caches, checkouts, artifacts) is done without
// blocking: every job runs in this one process, and on GitHub a job's copying
// holds up no other job, each being on a runner of its own.
const execute = promisify(execFile);

/** Copies `from` to `to` (a folder's contents, or a file), replacing `to`. */
async function copy(from, to) {
  await rm(to, { recursive: true, force: true });
  await mkdir(path.dirname(to), { recursive: true });
  await execute("cp", ["-a", from, to]);
}

/** The cache store: `store/<key>/<n>` for each path of an entry, newest entry last. */
export class Caches {
  constructor(dir) {
    this.dir = dir;
    mkdirSync(dir, { recursive: true });
  }
  #folder(key) {
    return path.join(this.dir, createHash("sha256").update(key).digest("hex").slice(0, 32));
  }
  /** Restores `paths` from `key`, else the newest entry whose key starts with one of `prefixes`; the key restored, or null. */
  async restore(key, prefixes, paths) {
    let found = existsSync(this.#folder(key)) ? key : null;
    if (!found) {
      const entries = readdirSync(this.dir)
        .map((d) => ({ d, meta: JSON.parse(readFileSync(path.join(this.dir, d, "key.json"), "utf8")) }))
        .sort((a, b) => a.meta.saved - b.meta.saved);
      for (const prefix of prefixes) {
        const hit = entries.findLast(({ meta }) => meta.key.startsWith(prefix));
        if (hit) {
          found = hit.meta.key;
          break;
        }
      }
    }
    if (!found) return null;
    for (const [i, p] of paths.entries()) {
      const saved = path.join(this.#folder(found), String(i));
      if (existsSync(saved)) await copy(saved, p);
    }
    return found;
  }
  has(key) {
    return existsSync(this.#folder(key));
  }
  /** Saves `paths` (those that exist) under `key`, unless an entry has it already (caches are immutable). */
  async save(key, paths, prepare = (p) => p) {
    const folder = this.#folder(key);
    if (existsSync(folder)) return;
    const partial = `${folder}.saving`;
    await mkdir(partial, { recursive: true });
    for (const [i, p] of paths.entries()) {
      if (existsSync(p)) {
        await copy(p, path.join(partial, String(i)));
        prepare(path.join(partial, String(i)), p);
      }
    }
    writeFileSync(path.join(partial, "key.json"), JSON.stringify({ key, saved: Date.now() }));
    await rename(partial, folder);
  }
}

/** What rust-cache leaves out of target/: the workspace's crates and incremental files, of every profile. */
function withoutWorkspaceCrates(target) {
  for (const profile of readdirSync(target, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name)) {
    const dir = path.join(target, profile);
    rmSync(path.join(dir, "incremental"), { recursive: true, force: true });
    for (const sub of ["deps", ".fingerprint", "build", ""]) {
      const d = path.join(dir, sub);
      if (!existsSync(d)) continue;
      for (const name of readdirSync(d)) {
        if (/^(lib)?site([-.]|$)/.test(name) || (sub === "" && statSync(path.join(d, name)).isFile())) rmSync(path.join(d, name), { recursive: true, force: true });
      }
    }
  }
}

/** Runs `script` with `env` in `cwd`, its output appended to `log`; resolves to its exit code. */
function runScript(script, { env, cwd, log, shellName, timeoutMs }) {
  const file = path.join(env.RUNNER_TEMP, `step-${Date.now()}-${Math.random().toString(36).slice(2)}.sh`);
  writeFileSync(file, script);
  const [bin, ...args] = shell(shellName);
  return new Promise((resolve) => {
    const child = spawn(bin, [...args, file], { cwd, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
    const write = (d) => appendFileSync(log, d);
    child.stdout.on("data", write);
    child.stderr.on("data", write);
    const timer = setTimeout(() => {
      appendFileSync(log, `\n[the step ran over its ${timeoutMs / 60000} minutes and was stopped]\n`);
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {}
    }, timeoutMs);
    child.once("close", (code, signal) => {
      clearTimeout(timer);
      resolve(code ?? signal);
    });
  });
}

/**
 * Runs `file` (a workflow under .github/workflows/) of the repository `source` at
 * `sha` for `event`:
 *   { name: "push", ref, before }  or
 *   { name: "pull_request", ref, base, head, number, fromFork }
 * with `vars` and `secrets`, caches in `store`, each job's runner in
 * `runners/<id>` when given (one run at a time), and `env` added to every step
 * of the jobs `envFor(id)` accepts (the stand-ins' addresses). A job named in
 * `pretend` (`{ id: "success" | "failure" }`) is not run: when its `if:` holds it
 * ends at once with that result, which shows which jobs a commit runs without
 * running them. Resolves to
 * `{ jobs: {id: {result, outputs, started, ended, log}}, artifacts, started }`.
 */
export async function runWorkflow({ source, sha, file, event, vars = {}, secrets = {}, store, runners, env = {}, envFor = () => true, pretend = {}, onJobEnd = () => {} }) {
  const run = mkdtempSync(path.join(tmpdir(), "site-pipeline-"));
  const artifacts = path.join(run, "artifacts");
  const caches = new Caches(store);
  const started = Date.now();
  const repository = "meridian-digital/site";
  const github = {
    event_name: event.name,
    sha,
    ref: event.ref,
    ref_name: event.ref.replace(/^refs\/(heads|tags)\//, ""),
    head_ref: event.name === "pull_request" ? event.headRef : "",
    repository,
    token: "a-token-for-this-run",
    event:
      event.name === "pull_request"
        ? { pull_request: { number: event.number, base: { sha: event.base }, head: { sha: event.head, repo: { full_name: event.fromFork ? "someone/site" : repository } } } }
        : { before: event.before ?? "" },
  };

  const workflowAt = (rel) => YAML.parse(execFileSync("git", ["-C", source, "show", `${sha}:${rel}`], { encoding: "utf8" }));
  const results = {};

  /** One job, run on its own runner. */
  async function runJob(id, job, { workflow, inputs = {}, jobSecrets = secrets, needs }) {
    const name = id.replaceAll("/", "-");
    let runner;
    if (runners) {
      runner = path.join(runners, name);
      await rm(runner, { recursive: true, force: true });
      mkdirSync(runner, { recursive: true });
    } else {
      runner = mkdtempSync(path.join(run, `${name}-`));
    }
    const home = path.join(runner, "home");
    const temp = path.join(runner, "temp");
    const workspace = path.join(runner, "work");
    for (const d of [home, temp, workspace]) mkdirSync(d, { recursive: true });
    // The image's npm settings (its registry, its certificates).
    const npmrc = path.join(homedir(), ".npmrc");
    if (existsSync(npmrc)) cpSync(npmrc, path.join(home, ".npmrc"));
    const log = path.join(runner, "log");
    writeFileSync(log, "");
    const status = { ok: true };
    const steps = {};
    const contexts = () => ({ github, inputs, vars, secrets: jobSecrets, needs, steps, runner: { os: "Linux", arch: "X64", temp }, env: {} });
    const scope = { status, workspace };
    const post = [];
    /**
     * `paths` restored from `key` (else the newest entry under one of `prefixes`),
     * as each cache action restores them, and saved as each saves them: at the
     * job's end, after a job that succeeded without an exact hit. The key
     * restored, or null.
     */
    const cached = async (key, prefixes, paths, prepare) => {
      const restored = await caches.restore(key, prefixes, paths);
      post.push(() => restored === key || !status.ok || caches.save(key, paths, prepare));
      return restored;
    };
    const extraPath = [];
    const baseEnv = {
      ...runnerEnv({ home, temp, workspace, sha }),
      GITHUB_EVENT_NAME: github.event_name,
      GITHUB_REF: github.ref,
      GITHUB_REF_NAME: github.ref_name,
      GITHUB_REPOSITORY: repository,
      // The machine's Rust toolchain (the container's), and a ~/.cargo of this runner's own.
      RUSTUP_HOME: process.env.RUSTUP_HOME ?? path.join(homedir(), ".rustup"),
      CARGO_HOME: path.join(home, ".cargo"),
      ...(envFor(id) ? env : {}),
    };
    const cargoBin = path.join(process.env.CARGO_HOME ?? path.join(homedir(), ".cargo"), "bin");
    const timeoutMs = (job["timeout-minutes"] ?? 360) * 60_000;
    const jobStarted = Date.now();
    appendFileSync(log, `::job ${id}\n`);

    for (const [index, s] of (job.steps ?? []).entries()) {
      const label = s.name ?? s.uses ?? `step ${index + 1}`;
      if (!condition(s.if, contexts(), scope)) {
        appendFileSync(log, `::skipped ${label}\n`);
        continue;
      }
      appendFileSync(log, `::step ${label} (at ${((Date.now() - started) / 1000).toFixed(1)} s)\n`);
      const outputs = {};
      let ok = true;
      try {
        const w = Object.fromEntries(Object.entries(s.with ?? {}).map(([k, v]) => [k, expand(v, contexts(), scope)]));
        if (s.uses) {
          const action = s.uses.split("@")[0];
          if (action === "actions/checkout") {
            const depth = Number(w["fetch-depth"] ?? 1);
            await execute("git", ["init", "-q", workspace]);
            const fetch = ["-C", workspace, "fetch", "-q", "--no-tags", "--upload-pack", "git -c uploadpack.allowAnySHA1InWant=true upload-pack"];
            await execute("git", [...fetch, ...(depth > 0 ? [`--depth=${depth}`] : []), `file://${source}`, sha]);
            await execute("git", ["-C", workspace, "checkout", "-q", "--detach", sha]);
          } else if (action === "actions/setup-node") {
            const version = String(w["node-version"] ?? readFileSync(path.join(workspace, w["node-version-file"]), "utf8")).trim().replace(/^v/, "");
            extraPath.unshift(nodeFor(version));
            if (w.cache === "npm") {
              const lockfiles = String(w["cache-dependency-path"] ?? "package-lock.json").split("\n").map((l) => l.trim()).filter(Boolean);
              const key = `node-cache-Linux-x64-npm-${hashFiles(workspace, lockfiles)}`;
              const npm = [path.join(home, ".npm")];
              await cached(key, [], npm);
            }
          } else if (action === "actions/cache" || action === "actions/cache/restore") {
            const paths = String(w.path).split("\n").map((l) => l.trim()).filter(Boolean).map((p) => path.resolve(workspace, p));
            const prefixes = String(w["restore-keys"] ?? "").split("\n").map((l) => l.trim()).filter(Boolean);
            const restored = action === "actions/cache" ? await cached(w.key, prefixes, paths) : await caches.restore(w.key, prefixes, paths);
            outputs["cache-hit"] = String(restored === w.key);
          } else if (action === "Swatinem/rust-cache") {
            const { stdout: rustc } = await execute(path.join(cargoBin, "rustc"), ["-vV"], { encoding: "utf8", env: { ...process.env, RUSTUP_HOME: baseEnv.RUSTUP_HOME } });
            const hash = createHash("sha256").update(rustc).update(hashFiles(workspace, ["**/Cargo.toml", "**/Cargo.lock"])).digest("hex").slice(0, 20);
            const key = `v0-rust-${id}-Linux-x64-${hash}`;
            const paths = [path.join(home, ".cargo", "registry"), path.join(workspace, "target")];
            const hit = await cached(key, [`v0-rust-${id}-Linux-x64-`], paths, (saved, from) => from.endsWith("target") && withoutWorkspaceCrates(saved));
            outputs["cache-hit"] = String(hit === key);
          } else if (action === "actions/upload-artifact") {
            const from = path.resolve(workspace, w.path);
            if (!existsSync(from)) throw new Error(`upload-artifact: no files were found at ${w.path}`);
            const to = path.join(artifacts, w.name, statSync(from).isDirectory() ? "" : path.basename(from));
            mkdirSync(path.join(artifacts, w.name), { recursive: true });
            await cp(from, to, { recursive: true });
          } else if (action === "actions/download-artifact") {
            const from = path.join(artifacts, w.name);
            if (!existsSync(from)) throw new Error(`download-artifact: no artifact named ${w.name}`);
            await cp(from, path.resolve(workspace, w.path ?? "."), { recursive: true });
          } else {
            throw new Error(`no stand-in for the action ${s.uses}`);
          }
        } else {
          const outputFile = path.join(temp, `output-${index}`);
          writeFileSync(outputFile, "");
          const stepEnv = {};
          for (const [k, v] of Object.entries({ ...(workflow.env ?? {}), ...(job.env ?? {}), ...(s.env ?? {}) })) stepEnv[k] = expandString(v, contexts(), scope);
          const code = await runScript(expandString(s.run, contexts(), scope), {
            env: {
              ...baseEnv,
              PATH: [...extraPath, cargoBin, baseEnv.PATH].join(":"),
              GITHUB_OUTPUT: outputFile,
              GITHUB_STEP_SUMMARY: path.join(temp, "summary"),
              ...stepEnv,
            },
            cwd: workspace,
            log,
            shellName: s.shell,
            timeoutMs: Math.max(1000, timeoutMs - (Date.now() - jobStarted)),
          });
          Object.assign(outputs, parseOutputs(readFileSync(outputFile, "utf8")));
          if (code !== 0) {
            appendFileSync(log, `::error ${label} exited with ${code}\n`);
            ok = false;
          }
        }
      } catch (error) {
        appendFileSync(log, `::error ${label}: ${error.message}\n`);
        ok = false;
      }
      if (s.id) steps[s.id] = { outputs, outcome: ok ? "success" : "failure", conclusion: ok ? "success" : "failure" };
      if (!ok) status.ok = false;
    }
    for (const save of post.reverse()) await save();
    const outputs = Object.fromEntries(Object.entries(job.outputs ?? {}).map(([k, v]) => [k, expandString(v, contexts(), scope)]));
    return { result: status.ok ? "success" : "failure", outputs, log };
  }

  /** Runs the jobs of `workflow` (with `inputs` and `jobSecrets` for a called one). */
  async function runJobs(workflow, { inputs, jobSecrets, prefix = "" } = {}) {
    const jobs = Object.entries(workflow.jobs);
    const own = {};
    const pending = new Map(jobs);
    const running = new Map();
    while (pending.size || running.size) {
      for (const [id, job] of [...pending]) {
        const needs = [job.needs ?? []].flat();
        if (!needs.every((n) => own[n])) continue;
        pending.delete(id);
        const needsContext = Object.fromEntries(needs.map((n) => [n, { result: own[n].result, outputs: own[n].outputs }]));
        const scope = { status: { ok: needs.every((n) => own[n].result === "success") }, workspace: source };
        const contexts = { github, inputs: inputs ?? {}, vars, secrets: jobSecrets ?? secrets, needs: needsContext };
        const promise = (async () => {
          const jobStarted = Date.now() - started;
          if (!condition(job.if, contexts, scope)) return { result: "skipped", outputs: {}, started: jobStarted, ended: jobStarted };
          const pretended = pretend[`${prefix}${id}`];
          if (pretended) return { result: pretended, outputs: {}, pretended: true, started: jobStarted, ended: jobStarted };
          let result;
          if (job.uses) {
            const called = workflowAt(job.uses.replace(/^\.\//, ""));
            const declared = called.on?.workflow_call?.inputs ?? {};
            const given = Object.fromEntries(Object.entries(job.with ?? {}).map(([k, v]) => [k, expand(v, contexts, scope)]));
            const calledInputs = Object.fromEntries(Object.entries(declared).map(([k, d]) => [k, given[k] ?? d.default ?? (d.type === "boolean" ? false : "")]));
            const calledSecrets = Object.fromEntries(Object.entries(job.secrets ?? {}).map(([k, v]) => [k, expandString(v, contexts, scope)]));
            const inner = await runJobs(called, { inputs: calledInputs, jobSecrets: calledSecrets, prefix: `${prefix}${id}/` });
            const all = Object.values(inner);
            result = { result: all.some((j) => j.result === "failure") ? "failure" : "success", outputs: {}, log: all.map((j) => j.log).filter(Boolean).join("\n") };
          } else {
            result = await runJob(`${prefix}${id}`, job, { workflow, inputs: inputs ?? {}, jobSecrets: jobSecrets ?? secrets, needs: needsContext });
          }
          return { ...result, started: jobStarted, ended: Date.now() - started };
        })();
        running.set(id, promise.then((r) => ({ id, r })));
      }
      if (running.size === 0) {
        if (pending.size) throw new Error(`jobs whose needs never end: ${[...pending.keys()].join(", ")}`);
        break;
      }
      const { id, r } = await Promise.race(running.values());
      running.delete(id);
      own[id] = r;
      results[`${prefix}${id}`] = r;
      onJobEnd(`${prefix}${id}`, r);
    }
    return own;
  }

  await runJobs(workflowAt(`.github/workflows/${file}`));
  return { jobs: results, artifacts, started, dir: run };
}

/** A job's log, for a report. */
export const logOf = (job) => (job?.log && existsSync(job.log) ? readFileSync(job.log, "utf8") : "");
