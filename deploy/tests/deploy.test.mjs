// Each deploy workflow's publishing step, run for real: the step's own script,
// taken from the workflow file, under the Node.js the workflow sets up, with the
// deploy tool the lockfile pins, against a stand-in of the host on loopback.
//
//   Cloudflare Pages  wrangler pages deploy → a stand-in of Cloudflare's API
//   Netlify           netlify deploy        → a stand-in of Netlify's API
//   nginx             rsync and ssh         → a real sshd and nginx on loopback,
//                                              then the workflow's own crawl
//   GitHub Pages      the artifact as actions/upload-pages-artifact makes it;
//                     the upload and the Pages deployment need GitHub itself
//
// Each host's stand-in checks what arrived against the build: every file with
// its bytes, the host's configuration passed as configuration, the branch and
// the commit. A second case per host refuses the token, and the step must fail
// with the host's own message.

import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import https from "node:https";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import path from "node:path";
import { parse as parseToml } from "smol-toml";
import { parseHeaders, parseRedirects, startHost, startWorkerd } from "../../e2e/hosts.mjs";
import { BUILD_CLOCK, freePorts } from "../../e2e/support.mjs";
import { servedPaths, sitemapPagesIn } from "../crawl.mjs";
import { deploymentFolder, materialize, startCloudflareApi } from "./cloudflare-api.mjs";
import { startNetlifyApi } from "./netlify-api.mjs";
import { startSshServer } from "./ssh-server.mjs";
import { root, runStep, step, workflowJob } from "./workflow.mjs";

const bin = path.resolve(root, process.env.SITE_BIN ?? "target/debug/site");
const sha = () => randomBytes(20).toString("hex");

/**
 * A runner's workspace: the checkout's `deploy/` (with its installed tools) and
 * the site built for `host` as `dist/`, the artifact the deploy job downloads.
 */
function workspaceFor(host, ...args) {
  const workspace = mkdtempSync(path.join(tmpdir(), `site-deploy-${host}-`));
  symlinkSync(path.join(root, "deploy"), path.join(workspace, "deploy"));
  writeFileSync(path.join(workspace, ".node-version"), readFileSync(path.join(root, ".node-version")));
  execFileSync(bin, ["build", "--root", root, "--out", path.join(workspace, "dist"), "--for", host, ...args], { stdio: "pipe", env: { ...process.env, ...BUILD_CLOCK } });
  return workspace;
}

/** Every file of a build a host publishes, relative: all but its configuration files. */
function published(dist, config) {
  const files = [];
  const walk = (dir, prefix) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory()) walk(path.join(dir, e.name), `${prefix}${e.name}/`);
      else if (!config.includes(`${prefix}${e.name}`)) files.push(`${prefix}${e.name}`);
    }
  };
  walk(dist, "");
  return files.sort();
}

/** The site.yaml base URL the workspaces are built with (no --base-url). */
const SITE_BASE_URL = readFileSync(path.join(root, "content", "site.yaml"), "utf8").match(/^base_url:\s*(\S+)/m)[1];

/**
 * Serves `published` with `start` and runs the job's crawl step against it, as
 * if it were the published address; the crawl must pass. Removes `published`.
 */
async function crawlStepPasses(t, job, workspace, published, start) {
  const served = await start(published);
  try {
    const crawl = await runStep(job, step(job, "Every published URL answers 200 with no redirect"), {
      workspace,
      contexts: { steps: { publish: { outputs: { url: served.url } } }, inputs: { "base-url": SITE_BASE_URL } },
    });
    t.diagnostic(log(crawl));
    assert.equal(crawl.code, 0, log(crawl));
    // Every page of the build's sitemap.
    const pages = (await sitemapPagesIn(path.join(workspace, "dist"))).length;
    assert.match(crawl.stdout, new RegExp(`Crawled ${pages} pages and \\d+ internal URLs .*: every one answered as it should`));
    // The German and Arabic sites are in the crawl (their pages are in the
    // sitemap), and each home answers in its own language whatever the browser asks.
    const crawled = await sitemapPagesIn(path.join(workspace, "dist"));
    for (const [home, lang] of [["/de/", "de"], ["/ar/", "ar"]]) {
      assert.ok(crawled.some((url) => new URL(url).pathname === home), `${home} is in the sitemap the crawl follows`);
      const response = await fetch(served.url + home, { redirect: "manual", headers: { "accept-language": "en-US,en;q=0.9" } });
      assert.equal(response.status, 200, home);
      assert.match(await response.text(), new RegExp(`<html lang="${lang}"`), home);
    }
  } finally {
    await served.stop();
    rmSync(published, { recursive: true, force: true });
  }
}

/** A step's output, as the log shows it, for the test's report. */
const log = (result) => `${result.stdout}${result.stderr}`.replace(/\x1b\[[0-9;]*m/g, "").trim();

describe("Cloudflare Pages: deploy-cloudflare-pages.yml's Publish step", () => {
  const job = workflowJob("deploy-cloudflare-pages.yml");
  const publish = step(job, "publish");
  const account = "2f6c1a7d9e0b4c3a8d5e6f7a1b2c3d4e";
  const project = "meridian-digital";
  let workspace;
  let api;

  before(async () => {
    workspace = workspaceFor("cloudflare-pages");
    api = await startCloudflareApi({ token: "cf-api-token", account, project });
  });
  after(async () => {
    await api?.stop();
    if (workspace) rmSync(workspace, { recursive: true, force: true });
  });

  const contexts = (token, branch, commit) => ({
    secrets: { CLOUDFLARE_API_TOKEN: token },
    vars: { CLOUDFLARE_ACCOUNT_ID: account, CLOUDFLARE_PROJECT: project },
    inputs: { branch },
    github: { sha: commit },
  });

  for (const branch of ["main", "feature/new-hero"]) {
    test(`publishes every file of dist/ from ${branch} and reports the deployment's URL`, async (t) => {
      const commit = sha();
      const result = await runStep(job, publish, {
        workspace,
        contexts: contexts("cf-api-token", branch, commit),
        extraEnv: { CLOUDFLARE_API_BASE_URL: api.url },
      });
      t.diagnostic(log(result));
      assert.equal(result.code, 0, log(result));
      const deployment = api.deployments.at(-1);
      assert.equal(deployment.deployment_trigger.metadata.branch, branch);
      assert.equal(deployment.deployment_trigger.metadata.commit_hash, commit);
      assert.equal(deployment.environment, branch === "main" ? "production" : "preview");

      // Every file, with its bytes; the host's files as configuration, not as files.
      const dist = path.join(workspace, "dist");
      const files = published(dist, ["_headers", "_redirects"]);
      assert.deepEqual([...deployment.files.keys()].sort(), files.map((f) => `/${f}`));
      for (const f of files) assert.deepEqual(deployment.files.get(`/${f}`), readFileSync(path.join(dist, f)), f);
      assert.equal(deployment.headers, readFileSync(path.join(dist, "_headers"), "utf8"));
      const redirects = path.join(dist, "_redirects");
      assert.equal(deployment.redirects, existsSync(redirects) ? readFileSync(redirects, "utf8") : undefined);

      // The URL the step reports is the one the API answered with.
      assert.equal(result.outputs.url, deployment.url);
      assert.match(result.summary, new RegExp(`Published ${branch} to ${deployment.url}`));
      assert.deepEqual(api.unexpected, []);
    });
  }

  test("the workflow's crawl step passes against what Cloudflare received, served by Cloudflare's runtime", async (t) => {
    // Only Cloudflare serves the deployment's *.pages.dev address, so the test
    // serves the files and configuration the API received with workerd instead.
    const deployment = api.deployments.find((d) => d.environment === "production");
    const published = deploymentFolder(deployment);
    await crawlStepPasses(t, job, workspace, published, startWorkerd);
  });

  test("fails with Cloudflare's own message when the API refuses the token", async () => {
    const before = api.deployments.length;
    const result = await runStep(job, publish, {
      workspace,
      contexts: contexts("a-revoked-token", "main", sha()),
      extraEnv: { CLOUDFLARE_API_BASE_URL: api.url },
    });
    // The refusal's output is shown only when the test fails.
    assert.notEqual(result.code, 0, log(result));
    assert.match(log(result), /A request to the Cloudflare API \(\/accounts\/\w+\/pages\/projects\/meridian-digital\) failed\.\s+Authentication error \[code: 10000\]/);
    assert.doesNotMatch(log(result), /deployment URL/);
    assert.equal(result.outputs.url, undefined);
    assert.equal(api.deployments.length, before);
  });
});

describe("Netlify: deploy-netlify.yml's Publish step", () => {
  const job = workflowJob("deploy-netlify.yml");
  const publish = step(job, "publish");
  const site = "5e8a2c1b-3d4f-4a6b-9c8d-7e6f5a4b3c2d";
  let workspace;
  let api;

  before(async () => {
    workspace = workspaceFor("netlify");
    api = await startNetlifyApi({ token: "nfp_netlify-token", site, name: "meridian-digital" });
  });
  after(async () => {
    await api?.stop();
    if (workspace) rmSync(workspace, { recursive: true, force: true });
  });

  const run = (token, { branch, production }, commit) =>
    runStep(job, publish, {
      workspace,
      contexts: {
        secrets: { NETLIFY_AUTH_TOKEN: token },
        vars: { NETLIFY_SITE_ID: site },
        inputs: { branch, production },
        github: { sha: commit },
      },
      extraEnv: {
        NETLIFY_API_URL: api.url,
        // Node's own proxy support (lower-case names: netlify-cli reads the
        // upper-case ones for its --http-proxy, which would route the API too).
        NODE_USE_ENV_PROXY: "1",
        https_proxy: api.proxy,
        no_proxy: "127.0.0.1",
        NODE_EXTRA_CA_CERTS: api.ca,
      },
    });

  for (const target of [
    { branch: "main", production: true },
    { branch: "Feature/New_Hero-for-the-autumn-campaign-2026", alias: "feature-new-hero-for-the-autumn-campa", production: false },
  ]) {
    test(`publishes every file of dist/ from ${target.branch} and reports the deploy's URL`, async (t) => {
      const commit = sha();
      const result = await run("nfp_netlify-token", target, commit);
      t.diagnostic(log(result));
      assert.equal(result.code, 0, log(result));
      const deploy = api.deploys.at(-1);
      assert.equal(deploy.state, "ready");
      assert.equal(deploy.title, `${target.branch} ${commit}`);
      // Production, or a branch deploy at the branch's own address (never a draft).
      assert.equal(deploy.draft, false);
      assert.equal(deploy.branch, target.alias);

      // Every file, with its bytes; _headers and _redirects reach Netlify as
      // configuration (netlify.toml), not as files.
      const dist = path.join(workspace, "dist");
      const files = published(dist, ["_headers", "_redirects"]);
      assert.deepEqual(Object.keys(deploy.files).sort(), [...files, "netlify.toml"].sort());
      for (const f of files) assert.deepEqual(api.file(deploy, f), readFileSync(path.join(dist, f)), f);
      const config = parseToml(api.file(deploy, "netlify.toml").toString("utf8"));
      const rules = parseHeaders(readFileSync(path.join(dist, "_headers"), "utf8"));
      assert.deepEqual(
        config.headers.map((h) => ({ pattern: h.for, headers: Object.entries(h.values) })),
        rules.map((r) => ({ pattern: r.pattern, headers: r.headers })),
      );
      // Each redirect rule, in order (the first that matches wins), as Netlify
      // received it: the same old address, new address and status, and no
      // condition, header or query of its own (netlify.toml writes them empty).
      const redirects = path.join(dist, "_redirects");
      const unconditional = (rest) => Object.fromEntries(Object.entries(rest).filter(([, v]) => !(typeof v === "object" && v && Object.keys(v).length === 0)));
      assert.deepEqual(
        (config.redirects ?? []).map(({ from, to, status, force, ...rest }) => ({ from, to, status, force: force ?? false, ...unconditional(rest) })),
        existsSync(redirects) ? parseRedirects(readFileSync(redirects, "utf8")) : [],
      );

      assert.equal(result.outputs.url, `https://${target.alias ?? deploy.id}--meridian-digital.netlify.app`);
      assert.deepEqual(api.unexpected, []);
    });
  }

  test("the workflow's crawl step passes against what Netlify received, served as Netlify serves it", async (t) => {
    // Netlify's own local server does not serve as Netlify does (docs/deploy.md),
    // so the files received are served by nginx configured as Netlify, with the
    // headers of the netlify.toml it received.
    const deploy = api.deploys.find((d) => d.state === "ready" && d.branch === undefined);
    const files = new Map(Object.keys(deploy.files).filter((f) => f !== "netlify.toml").map((f) => [f, api.file(deploy, f)]));
    const config = parseToml(api.file(deploy, "netlify.toml").toString("utf8"));
    const headers = config.headers.map((h) => `${h.for}\n${Object.entries(h.values).map(([k, v]) => `  ${k}: ${v}`).join("\n")}`).join("\n");
    const published = materialize(files, { _headers: `${headers}\n` });
    await crawlStepPasses(t, job, workspace, published, (dir) => startHost(dir, "netlify"));
  });

  test("fails with Netlify's own message when the API refuses the token", async () => {
    const before = api.deploys.length;
    const result = await run("nfp_revoked", { branch: "main", production: true }, sha());
    assert.notEqual(result.code, 0, log(result));
    assert.match(log(result), /Unauthorized/);
    assert.equal(result.outputs.url, undefined);
    assert.equal(api.deploys.length, before);
  });
});

describe("nginx: deploy-nginx.yml's Publish step, over SSH to a server on loopback", () => {
  const job = workflowJob("deploy-nginx.yml");
  const publish = step(job, "Publish");
  const crawlStep = step(job, "Every published URL answers 200 with no redirect");
  let ssh;
  let nginx;
  let workspace;
  let origin;
  const dir = mkdtempSync(path.join(tmpdir(), "site-nginx-server-"));
  const siteRoot = path.join(dir, "srv");

  before(async () => {
    ssh = await startSshServer();
    // Two ports, for the site's two server blocks: on one port both would be
    // TLS, and the block that redirects has no certificate.
    const [port, plain] = await freePorts(2);
    origin = `https://127.0.0.1:${port}`;
    workspace = workspaceFor("nginx", "--base-url", origin);
    // The server as docs/deploy.md sets it up: nginx running, the deploy user's
    // empty DEPLOY_ROOT, and deploy/nginx/site.conf ready to enable once the first
    // deploy has made `current` (it includes current/_nginx.conf).
    mkdirSync(siteRoot);
    mkdirSync(path.join(dir, "sites-enabled"));
    execFileSync("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", path.join(dir, "key.pem"), "-out", path.join(dir, "cert.pem"),
      "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"], { stdio: "pipe" });
    const site = readFileSync(path.join(root, "deploy/nginx/site.conf"), "utf8")
      .replaceAll("/srv/site", siteRoot)
      .replace(/ssl_certificate \S+;/, `ssl_certificate ${dir}/cert.pem;`)
      .replace(/ssl_certificate_key \S+;/, `ssl_certificate_key ${dir}/key.pem;`)
      .replace(/listen 80;/, `listen 127.0.0.1:${plain};`)
      .replace(/listen 443 ssl http2;/, `listen 127.0.0.1:${port} ssl http2;`)
      .replace(/\s*listen \[::\]:\d+[^;]*;/g, "");
    writeFileSync(path.join(dir, "site.conf"), site);
    const brotli = "/usr/lib/nginx/modules/ngx_http_brotli_static_module.so";
    writeFileSync(
      path.join(dir, "nginx.conf"),
      `${userInfo().uid === 0 ? "user root;" : ""}\n${existsSync(brotli) ? `load_module ${brotli};` : ""}\nworker_processes 1;\ndaemon off;\npid ${dir}/nginx.pid;\nerror_log ${dir}/error.log warn;\nevents { worker_connections 256; }\nhttp {\n  include /etc/nginx/mime.types;\n  default_type application/octet-stream;\n  access_log off;\n  client_body_temp_path ${dir}/body;\n  proxy_temp_path ${dir}/proxy;\n  fastcgi_temp_path ${dir}/fastcgi;\n  uwsgi_temp_path ${dir}/uwsgi;\n  scgi_temp_path ${dir}/scgi;\n  include ${dir}/sites-enabled/*.conf;\n}\n`,
    );
    nginx = spawn("/usr/sbin/nginx", ["-c", path.join(dir, "nginx.conf")], { stdio: "ignore" });
    for (let i = 0; i < 200 && !existsSync(path.join(dir, "nginx.pid")); i++) await new Promise((r) => setTimeout(r, 25));
  });
  after(async () => {
    if (nginx && nginx.exitCode === null) {
      nginx.kill("SIGQUIT");
      await new Promise((resolve) => nginx.once("exit", resolve));
    }
    await ssh?.stop();
    rmSync(dir, { recursive: true, force: true });
    if (workspace) rmSync(workspace, { recursive: true, force: true });
  });

  /** `urlPath` from the server: `{ status, text }`, or status 0 while it refuses connections. */
  const get = (urlPath) =>
    new Promise((resolve) => {
      https
        .get(`${origin}${urlPath}`, { ca: readFileSync(path.join(dir, "cert.pem")) }, (res) => {
          let text = "";
          res.on("data", (d) => (text += d));
          res.on("end", () => resolve({ status: res.statusCode, text }));
        })
        .on("error", () => resolve({ status: 0, text: "" }));
    });

  const deploy = (commit) =>
    runStep(job, publish, {
      workspace,
      contexts: {
        secrets: { SSH_PRIVATE_KEY: ssh.privateKey, SSH_KNOWN_HOSTS: ssh.knownHosts },
        vars: {
          DEPLOY_SSH_TARGET: `${ssh.user}@127.0.0.1`,
          DEPLOY_SSH_PORT: ssh.port,
          DEPLOY_ROOT: siteRoot,
          // This server's nginx runs from its own configuration file, not /etc/nginx's.
          DEPLOY_RELOAD: `nginx -t -q -c ${dir}/nginx.conf && nginx -s reload -c ${dir}/nginx.conf`,
        },
        inputs: { branch: "main", production: true },
        github: { sha: commit },
      },
    });

  test("the first deploy makes the releases folder, copies the build to a release of its own, switches `current` to it and reloads nginx; the crawl step passes", async (t) => {
    const commit = sha();
    const result = await deploy(commit);
    t.diagnostic(log(result) || "(the step printed nothing)");
    assert.equal(result.code, 0, `${log(result)}\n${ssh.log()}`);
    // As the guide says: now that `current` exists, enable the site and reload.
    symlinkSync(path.join(dir, "site.conf"), path.join(dir, "sites-enabled", "site.conf"));
    execFileSync("/usr/sbin/nginx", ["-t", "-q", "-c", path.join(dir, "nginx.conf")], { stdio: "pipe" });
    execFileSync("/usr/sbin/nginx", ["-s", "reload", "-c", path.join(dir, "nginx.conf")], { stdio: "pipe" });
    const release = path.join(siteRoot, "releases", commit);
    assert.equal(readFileSync(path.join(siteRoot, "current", "index.html"), "utf8"), readFileSync(path.join(workspace, "dist", "index.html"), "utf8"));
    assert.equal(execFileSync("readlink", [path.join(siteRoot, "current")], { encoding: "utf8" }).trim(), release);
    for (const f of published(path.join(workspace, "dist"), [])) {
      assert.deepEqual(readFileSync(path.join(release, f)), readFileSync(path.join(workspace, "dist", f)), f);
    }

    // The workflow's own crawl, against the server it just published to, once
    // nginx's new workers answer for the site (a reload only asks for them).
    const index = readFileSync(path.join(workspace, "dist", "index.html"), "utf8");
    let served = await get("/");
    for (const until = Date.now() + 30_000; (served.status !== 200 || served.text !== index) && Date.now() < until; served = await get("/")) {
      await new Promise((r) => setTimeout(r, 25));
    }
    assert.equal(served.status, 200, "nginx serves the site after its reload");
    const crawl = await runStep(job, crawlStep, {
      workspace,
      contexts: { inputs: { "base-url": origin } },
      extraEnv: { NODE_EXTRA_CA_CERTS: path.join(dir, "cert.pem") },
    });
    t.diagnostic(log(crawl));
    assert.equal(crawl.code, 0, log(crawl));
    assert.match(crawl.stdout, /every one answered as it should/);
  });

  test("a second deploy replaces the first in one switch and keeps it for a rollback", async () => {
    const first = execFileSync("readlink", [path.join(siteRoot, "current")], { encoding: "utf8" }).trim();
    writeFileSync(path.join(workspace, "dist", "robots.txt"), `${readFileSync(path.join(workspace, "dist", "robots.txt"), "utf8")}# second release\n`);
    const commit = sha();
    const result = await deploy(commit);
    assert.equal(result.code, 0, log(result));
    assert.equal(execFileSync("readlink", [path.join(siteRoot, "current")], { encoding: "utf8" }).trim(), path.join(siteRoot, "releases", commit));
    assert.ok(existsSync(path.join(first, "index.html")), "the previous release stays");
    // nginx's new workers answer once the reload has started them (the step's
    // `nginx -s reload` only asks for them), as after the first deploy.
    let served = await get("/robots.txt");
    for (const until = Date.now() + 30_000; !/# second release/.test(served.text) && Date.now() < until; served = await get("/robots.txt")) {
      await new Promise((r) => setTimeout(r, 25));
    }
    assert.match(served.text, /# second release/);
  });

  test("fails with ssh's own message when the server refuses the key", async () => {
    const result = await runStep(job, publish, {
      workspace,
      contexts: {
        secrets: { SSH_PRIVATE_KEY: execFileSync("sh", ["-c", `d=$(mktemp -d); ssh-keygen -q -t ed25519 -N '' -f $d/k; cat $d/k; rm -r $d`], { encoding: "utf8" }), SSH_KNOWN_HOSTS: ssh.knownHosts },
        vars: { DEPLOY_SSH_TARGET: `${ssh.user}@127.0.0.1`, DEPLOY_SSH_PORT: ssh.port, DEPLOY_ROOT: siteRoot },
        inputs: { branch: "main", production: true },
        github: { sha: sha() },
      },
    });
    assert.notEqual(result.code, 0, log(result));
    assert.match(log(result), /Permission denied \(publickey\)/);
  });
});

describe("GitHub Pages: the artifact deploy-github-pages.yml publishes", () => {
  let workspace;
  before(() => {
    workspace = workspaceFor("github-pages");
  });
  after(() => {
    if (workspace) rmSync(workspace, { recursive: true, force: true });
  });

  test("the build job keeps dist/'s hidden files in its artifact, which the deploy job hands to Pages whole", () => {
    const build = workflowJob("site.yml", "build");
    const upload = build.job.steps.find((s) => s.uses?.startsWith("actions/upload-artifact@"));
    assert.equal(upload.with.path, "dist/");
    // upload-artifact leaves out hidden files unless told, and .nojekyll is one.
    assert.equal(upload.with["include-hidden-files"], true);
    const deploy = workflowJob("deploy-github-pages.yml");
    const pages = deploy.job.steps.find((s) => s.uses?.startsWith("actions/upload-pages-artifact@"));
    assert.equal(pages.with.path, "dist");
    assert.match(pages.uses, /# v3\.0\.1$|@56afc609e74202658d3ffba0e8f6dda462b719fa/);
  });

  test("the Pages artifact holds every file of the build, each a plain file", () => {
    // actions/upload-pages-artifact v3.0.1 archives the folder with GNU tar,
    // following symbolic and hard links and leaving out .git and .github.
    const tar = path.join(workspace, "artifact.tar");
    execFileSync("tar", ["--dereference", "--hard-dereference", "--directory", path.join(workspace, "dist"), "-cf", tar, "--exclude=.git", "--exclude=.github", "."]);
    const listing = execFileSync("tar", ["-tvf", tar], { encoding: "utf8" }).trim().split("\n");
    const files = listing.filter((l) => !l.startsWith("d")).map((l) => l.split(/\s+/).pop().replace(/^\.\//, ""));
    for (const l of listing) assert.match(l, /^[-d]/, `only files and folders: ${l}`);
    assert.deepEqual(files.sort(), published(path.join(workspace, "dist"), []));
    assert.ok(files.includes(".nojekyll"));
    assert.ok(servedPaths(path.join(workspace, "dist")).length > 0);
  });
});

describe("what every deploy workflow does before its publishing step", () => {
  const deploys = ["deploy-cloudflare-pages.yml", "deploy-netlify.yml", "deploy-github-pages.yml", "deploy-nginx.yml"].map((f) => workflowJob(f));
  const build = workflowJob("site.yml", "build");

  test("each installs the deploy tools with the command the Makefile runs, so the tests use what a deploy installs", () => {
    const makefile = readFileSync(path.join(root, "Makefile"), "utf8");
    // The recipe's command, after the name .ci/phase reports it by.
    const command = makefile.match(/^deploy\/node_modules\/\.installed:.*\n\t(?:@\$\(PHASE\) "[^"]*" )?(.+)$/m)[1];
    for (const job of deploys) {
      const install = job.job.steps.find((s) => typeof s.run === "string" && s.run.includes("npm ci"));
      assert.equal(install?.run.trim(), command, `${job.file}`);
    }
  });

  test("each downloads the build job's artifact into dist/, the folder it publishes", () => {
    const upload = build.job.steps.find((s) => s.uses?.startsWith("actions/upload-artifact@"));
    for (const job of deploys) {
      const download = job.job.steps.find((s) => s.uses?.startsWith("actions/download-artifact@"));
      assert.deepEqual(download.with, { name: upload.with.name, path: "dist" }, job.file);
    }
  });
});
