// A commit published as site.yml publishes it, timed from the start of its
// first job until the live address serves the commit's words. site.yml runs as
// written (pipeline.mjs); what it talks to is stood in for on loopback:
//
//   Cloudflare Pages  the API stand-in (cloudflare-api.mjs), each deployment
//                     served by Cloudflare's own runtime, workerd, at its
//                     *.pages.dev address and, for production, at the
//                     project's own
//   Supabase          `site serve`'s built-in storage and messages' table, at
//                     the project's https://<ref>.supabase.co address
//
// Both addresses are reached over TLS through internet.mjs's proxy. The
// `openings` job, which tells the applications' table its postings after the
// site is live, is left out.

import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { startWorkerd } from "../../e2e/hosts.mjs";
import { startServer } from "../../e2e/support.mjs";
import { deploymentFolder, startCloudflareApi } from "./cloudflare-api.mjs";
import { startInternet } from "./internet.mjs";
import { runWorkflow } from "./pipeline.mjs";
import { root } from "./workflow.mjs";

const PROJECT = "meridian-digital";
const ACCOUNT = "2f6c1a7d9e0b4c3a8d5e6f7a1b2c3d4e";
const SUPABASE = "abcdefghijklmnopqrst.supabase.co";
const ANON_KEY = "publish-anon-key";
const PRODUCTION = `${PROJECT}.pages.dev`;

/** Starts the hosts' stand-ins. Resolves to `{ vars, secrets, env, production, deployments, stop }`. */
export async function startHosts() {
  const served = new Map(); // hostname → { url, stop }
  const workers = [];
  const hostOf = (url) => new URL(url).hostname;
  const api = await startCloudflareApi({
    token: "cf-api-token",
    account: ACCOUNT,
    project: PROJECT,
    async onDeployment(deployment) {
      const folder = deploymentFolder(deployment);
      const worker = await startWorkerd(folder);
      workers.push({ worker, folder });
      served.set(hostOf(deployment.url), worker);
      for (const alias of deployment.aliases ?? []) served.set(hostOf(alias), worker);
      if (deployment.environment === "production") served.set(PRODUCTION, worker);
    },
  });
  const supabase = await startServer({ env: { SITE_STORAGE_ANON_KEY: ANON_KEY } });
  const internet = await startInternet([`*.${PRODUCTION}`, PRODUCTION, SUPABASE], (hostname) =>
    hostname === SUPABASE ? supabase.url : served.get(hostname)?.url,
  );
  return {
    vars: {
      SITE_BASE_URL: "https://www.meridian-digital.com",
      SUPABASE_URL: `https://${SUPABASE}`,
      CLOUDFLARE_ACCOUNT_ID: ACCOUNT,
      CLOUDFLARE_PROJECT: PROJECT,
    },
    secrets: { SUPABASE_ANON_KEY: ANON_KEY, CLOUDFLARE_API_TOKEN: "cf-api-token" },
    // The proxy for the jobs that reach the hosts; the checks' Chromium goes nowhere.
    env: { ...internet.env, CLOUDFLARE_API_BASE_URL: api.url },
    envFor: (job) => !["test", "content"].includes(job),
    /** The address production is served at, once there is a production deployment. */
    production: () => served.get(PRODUCTION)?.url,
    deployments: api.deployments,
    unexpected: () => [...api.unexpected, ...internet.unexpected],
    async stop() {
      for (const { worker, folder } of workers) {
        await worker.stop();
        rmSync(folder, { recursive: true, force: true });
      }
      await internet.stop();
      await supabase.stop();
      await api.stop();
    },
  };
}

/**
 * A repository holding the project as it is on disk (its tracked and new files,
 * not what .gitignore leaves out), in one commit; `commit(edit)` adds a commit
 * made by `edit(dir)` and gives its hash.
 */
export function projectRepository() {
  const dir = mkdtempSync(path.join(tmpdir(), "site-origin-"));
  const git = (...args) => execFileSync("git", ["-C", dir, ...args], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();
  git("init", "-q", "-b", "main");
  // The project's files, as `git add -A` in the project would take them.
  execFileSync("git", ["--git-dir", path.join(dir, ".git"), "--work-tree", root, "add", "-A"]);
  const commitAll = (message) => {
    git("-c", "user.name=Editor", "-c", "user.email=editor@example.com", "commit", "-qm", message);
    return git("rev-parse", "HEAD");
  };
  const first = commitAll("the project");
  git("checkout", "-q", "-f");
  // Packed once, as a hosted repository is: each checkout's fetch from it then
  // sends what is packed instead of compressing every loose object again (about
  // 0.6 CPU-s a fetch, and a test file makes twenty).
  git("-c", "pack.window=0", "repack", "-adq");
  return {
    dir,
    first,
    git,
    commit(message, edit) {
      edit(dir);
      git("add", "-A");
      return commitAll(message);
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** Replaces what `pattern` matches in `file` of `dir` (it must match). */
export function edit(dir, file, pattern, replacement) {
  const full = path.join(dir, file);
  const text = readFileSync(full, "utf8");
  if (!pattern.test(text)) throw new Error(`${file} has nothing that matches ${pattern}`);
  writeFileSync(full, text.replace(pattern, replacement));
}

/**
 * Publishes `sha` of `repo` for `event` through `hosts`, and resolves to
 * `{ seconds, jobs, run }`: `seconds` from the start of the first job until the
 * production address served `words` at `route` (null if it never did).
 */
export async function publish({ repo, sha, event, hosts, store, runners, route, words, pretend = {}, onJobEnd }) {
  let live = null;
  let done = false;
  let started = Date.now();
  const watch = (async () => {
    while (!done && live === null) {
      const url = hosts.production();
      if (url) {
        try {
          const text = await (await fetch(url + route)).text();
          if (text.includes(words)) live = Date.now();
        } catch {}
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  })();
  const run = runWorkflow({
    source: repo.dir,
    sha,
    file: "site.yml",
    event,
    vars: hosts.vars,
    secrets: hosts.secrets,
    store,
    runners,
    env: hosts.env,
    envFor: hosts.envFor,
    pretend: { openings: "skipped", ...pretend },
    onJobEnd,
  });
  const result = await run;
  started = result.started;
  done = true;
  await watch;
  return { seconds: live === null ? null : (live - started) / 1000, jobs: result.jobs, run: result };
}
