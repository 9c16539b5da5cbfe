// A stand-in for the part of Cloudflare's API that `wrangler pages deploy` uses
// (the direct upload of a Pages project), on loopback, for the deploy tests.
// wrangler is pointed at it with CLOUDFLARE_API_BASE_URL. It follows the API's
// documented shapes: every answer is the `{ success, errors, messages, result }`
// envelope; the account token authorises the project's routes, and the upload
// token (a JWT) the asset routes:
//
//   GET  /accounts/:account/pages/projects/:project              the project
//   GET  /accounts/:account/pages/projects/:project/upload-token {jwt}
//   POST /pages/assets/check-missing   {hashes}  → the hashes not yet uploaded
//   POST /pages/assets/upload          [{key, value (base64), metadata, base64}]
//   POST /pages/assets/upsert-hashes   {hashes}
//   POST /accounts/:account/pages/projects/:project/deployments  (multipart:
//        manifest, branch, commit_hash, commit_dirty, _headers, _redirects, …)
//   GET  /accounts/:account/pages/projects/:project/deployments/:id
//
// It keeps what it received, so a test can compare a deployment with the build.
// Anything else is answered 404 and recorded in `unexpected`.

import { createHmac, randomUUID } from "node:crypto";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";

const AUTH_ERROR = { code: 10000, message: "Authentication error" };

const b64url = (value) => Buffer.from(JSON.stringify(value)).toString("base64url");

/**
 * Starts the stand-in. `token` is the API token it accepts, `account` and
 * `project` the only project it has; `onDeployment` is awaited with each new
 * deployment before the API answers for it. Resolves to `{ url, deployments,
 * unexpected, assets, stop }`; `url` is the value for CLOUDFLARE_API_BASE_URL.
 */
export async function startCloudflareApi({ token, account, project, productionBranch = "main", onDeployment = async () => {} }) {
  const secret = randomUUID();
  const assets = new Map(); // hash → { bytes, contentType }
  const deployments = [];
  const unexpected = [];

  const jwt = () => {
    const head = b64url({ alg: "HS256", typ: "JWT" });
    const body = b64url({ exp: Math.floor(Date.now() / 1000) + 300, max_file_count_allowed: 20000 });
    const signature = createHmac("sha256", secret).update(`${head}.${body}`).digest("base64url");
    return `${head}.${body}.${signature}`;
  };
  const jwtValid = (value) => {
    const [head, body, signature] = (value ?? "").split(".");
    return !!signature && createHmac("sha256", secret).update(`${head}.${body}`).digest("base64url") === signature;
  };

  const projectInfo = () => ({
    name: project,
    subdomain: `${project}.pages.dev`,
    production_branch: productionBranch,
    deployment_configs: { production: { compatibility_date: "2026-11-01" }, preview: { compatibility_date: "2026-11-01" } },
  });

  const server = http.createServer(async (req, res) => {
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const body = Buffer.concat(chunks);
    const send = (status, result, errors = []) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify({ success: errors.length === 0, errors, messages: [], result: errors.length ? null : result }));
    };
    const route = new URL(req.url, "http://stand-in").pathname.replace(/^\/client\/v4/, "");
    const bearer = (req.headers.authorization ?? "").replace(/^Bearer /, "");
    const projectPath = `/accounts/${account}/pages/projects/${project}`;

    // The asset routes take the upload token; the rest the account's API token.
    if (route.startsWith("/pages/assets/")) {
      if (!jwtValid(bearer)) return send(401, null, [{ code: 8000013, message: "Unauthorized: the upload token is invalid or has expired" }]);
      const json = JSON.parse(body.toString("utf8"));
      if (req.method === "POST" && route === "/pages/assets/check-missing") {
        return send(200, json.hashes.filter((h) => !assets.has(h)));
      }
      if (req.method === "POST" && route === "/pages/assets/upload") {
        for (const file of json) {
          if (!/^[0-9a-f]{32}$/.test(file.key) || file.base64 !== true || typeof file.value !== "string") {
            return send(400, null, [{ code: 8000096, message: `an upload needs a 32-character hex key and a base64 value: ${JSON.stringify(file).slice(0, 80)}` }]);
          }
          assets.set(file.key, { bytes: Buffer.from(file.value, "base64"), contentType: file.metadata?.contentType });
        }
        return send(200, null);
      }
      if (req.method === "POST" && route === "/pages/assets/upsert-hashes") {
        const unknown = json.hashes.filter((h) => !assets.has(h));
        if (unknown.length) return send(400, null, [{ code: 8000096, message: `never uploaded: ${unknown.join(", ")}` }]);
        return send(200, null);
      }
    } else if (req.method === "GET" && route === "/user/tokens/verify") {
      // wrangler asks, after an authentication error, what the token is.
      if (bearer !== token) return send(401, null, [{ code: 1000, message: "Invalid API Token" }]);
      return send(200, { id: "f267e341f3dd4697bd3b9f71dd96247f", status: "active" });
    } else if (bearer !== token) {
      return send(403, null, [AUTH_ERROR]);
    } else if (req.method === "GET" && route === projectPath) {
      return send(200, projectInfo());
    } else if (req.method === "GET" && route === `${projectPath}/upload-token`) {
      return send(200, { jwt: jwt() });
    } else if (req.method === "POST" && route === `${projectPath}/deployments`) {
      const form = await new Response(body, { headers: { "content-type": req.headers["content-type"] } }).formData();
      const field = async (name) => {
        const v = form.get(name);
        return v === null ? undefined : typeof v === "string" ? v : await v.text();
      };
      const manifest = JSON.parse((await field("manifest")) ?? "{}");
      const missing = Object.entries(manifest).filter(([, hash]) => !assets.has(hash));
      if (missing.length) {
        return send(400, null, [{ code: 8000022, message: `files were never uploaded: ${missing.map(([p]) => p).join(", ")}` }]);
      }
      const branch = await field("branch");
      const id = randomUUID();
      const production = (branch ?? productionBranch) === productionBranch;
      const deployment = {
        id,
        short_id: id.slice(0, 8),
        project_name: project,
        environment: production ? "production" : "preview",
        url: `https://${id.slice(0, 8)}.${project}.pages.dev`,
        production_branch: productionBranch,
        aliases: production ? null : [`https://${branch.toLowerCase().replace(/[^a-z0-9]+/g, "-")}.${project}.pages.dev`],
        deployment_trigger: {
          type: "ad_hoc",
          metadata: { branch, commit_hash: await field("commit_hash"), commit_message: await field("commit_message"), commit_dirty: (await field("commit_dirty")) === "true" },
        },
        latest_stage: { name: "deploy", status: "success" },
      };
      deployments.push({
        ...deployment,
        // What was published: each path's bytes, and the host's configuration.
        files: new Map(Object.entries(manifest).map(([p, hash]) => [p, assets.get(hash).bytes])),
        contentTypes: new Map(Object.entries(manifest).map(([p, hash]) => [p, assets.get(hash).contentType])),
        headers: await field("_headers"),
        redirects: await field("_redirects"),
        fields: [...form.keys()],
      });
      // Live before the API answers, as Cloudflare's deployments are.
      await onDeployment(deployments.at(-1));
      return send(200, deployment);
    } else if (req.method === "GET" && route.startsWith(`${projectPath}/deployments/`)) {
      const found = deployments.find((d) => route === `${projectPath}/deployments/${d.id}`);
      if (found) {
        const { files, contentTypes, headers, redirects, fields, ...deployment } = found;
        return send(200, deployment);
      }
    } else if (req.method === "GET" && route.startsWith(`/accounts/${account}/pages/projects/`)) {
      return send(404, null, [{ code: 8000007, message: "Project not found. The specified project name does not match any of your existing projects." }]);
    }
    unexpected.push(`${req.method} ${route}`);
    send(404, null, [{ code: 7003, message: `Could not route to ${route}, perhaps your object identifier is invalid?` }]);
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/client/v4`,
    deployments,
    unexpected,
    assets,
    stop: () => new Promise((resolve) => server.close(resolve)),
  };
}

/** Writes what a host received, `path → bytes` (paths from the root), into a new folder. */
export function materialize(files, extra = {}) {
  const dir = mkdtempSync(path.join(tmpdir(), "site-published-"));
  for (const [p, bytes] of [...files, ...Object.entries(extra)]) {
    const file = path.join(dir, p.replace(/^\//, ""));
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, bytes);
  }
  return dir;
}

/** A new folder holding what `deployment` published: its files, and its _headers and _redirects. */
export const deploymentFolder = (deployment) =>
  materialize(deployment.files, { _headers: deployment.headers, ...(deployment.redirects ? { _redirects: deployment.redirects } : {}) });
