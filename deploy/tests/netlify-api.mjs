// A stand-in for the part of Netlify's API that `netlify deploy` uses (a deploy
// by file digest), on loopback, for the deploy tests. netlify-cli is pointed at
// it with NETLIFY_API_URL. Its routes, from Netlify's OpenAPI description:
//
//   GET  /api/v1/sites/:site                 the site (with its account)
//   GET  /api/v1/accounts                    the token's accounts
//   GET  /api/v1/accounts/:account/env       the site's environment variables
//   POST /api/v1/sites/:site/deploys         a new deploy (?title= its message)
//   PUT  /api/v1/sites/:site/deploys/:id     its files, {path: sha1}; answers with
//                                            the digests it still needs (`required`)
//   PUT  /api/v1/deploys/:id/files/:path     one file's bytes (its SHA-1 is checked)
//   GET  /api/v1/sites/:site/deploys/:id     its state, `ready` once complete
//
// netlify-cli also asks Netlify's extension API (api.netlifysdk.com, which
// NETLIFY_API_URL does not move) for the site's extensions. The stand-in answers
// that too: through `proxy`, an HTTP proxy on loopback that tunnels only that host
// to a TLS server of its own, with a certificate the test makes and Node trusts
// (NODE_EXTRA_CA_CERTS). Any other host is refused and recorded in `unexpected`.

import { createHash, randomBytes } from "node:crypto";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import http from "node:http";
import https from "node:https";
import { tmpdir } from "node:os";
import path from "node:path";
import { tunnel } from "./internet.mjs";

export const EXTENSIONS_HOST = "api.netlifysdk.com";

const sha1 = (bytes) => createHash("sha1").update(bytes).digest("hex");

/**
 * Starts the stand-in. `token` is the personal access token it accepts; `site`
 * is the one site's ID and `name` its name. Resolves to `{ url, proxy, ca,
 * deploys, file, unexpected, stop }`: `url` for NETLIFY_API_URL, `proxy` for
 * `https_proxy`, `ca` a certificate file for NODE_EXTRA_CA_CERTS.
 */
export async function startNetlifyApi({ token, site, name }) {
  const account = { id: "6a1f0c2d9e8b7a6f5e4d3c2b", slug: "meridian-digital", name: "Meridian Digital" };
  const siteInfo = {
    id: site,
    name,
    url: `https://${name}.netlify.app`,
    ssl_url: `https://${name}.netlify.app`,
    admin_url: `https://app.netlify.com/projects/${name}`,
    account_id: account.id,
    account_slug: account.slug,
    account_name: account.name,
    build_settings: {},
    feature_flags: {},
  };
  const stored = new Map(); // sha1 → bytes
  const deploys = [];
  const unexpected = [];

  const api = http.createServer(async (req, res) => {
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const body = Buffer.concat(chunks);
    const json = (status, value) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(value));
    };
    const url = new URL(req.url, "http://stand-in");
    const route = decodeURI(url.pathname);
    if (req.headers.authorization !== `Bearer ${token}`) {
      // Netlify answers a token it does not know with a plain-text 401.
      res.writeHead(401, { "content-type": "text/plain" });
      return res.end("Unauthorized");
    }
    let m;
    if (req.method === "GET" && route === `/api/v1/sites/${site}`) return json(200, siteInfo);
    if (req.method === "GET" && route === "/api/v1/accounts") return json(200, [account]);
    if (req.method === "GET" && route === `/api/v1/accounts/${account.slug}/env`) return json(200, []);
    if (req.method === "POST" && route === `/api/v1/sites/${site}/deploys`) {
      const request = JSON.parse(body.toString("utf8") || "{}");
      const id = randomBytes(12).toString("hex");
      // The deploy's message comes as the `title` query parameter.
      // The alias begins a host name: Netlify documents at most 37 characters.
      if (request.branch !== undefined && !/^[a-z0-9](?:[a-z0-9-]{0,35}[a-z0-9])?$/.test(request.branch)) {
        return json(422, { code: 422, message: `Invalid alias \`${request.branch}\`: at most 37 lower-case letters, digits and hyphens` });
      }
      const deploy = { id, site_id: site, name, state: "new", title: url.searchParams.get("title") ?? undefined, draft: request.draft, branch: request.branch, request, files: null };
      deploys.push(deploy);
      return json(200, view(deploy));
    }
    if (req.method === "PUT" && (m = route.match(new RegExp(`^/api/v1/sites/${site}/deploys/([0-9a-f]+)$`)))) {
      const deploy = deploys.find((d) => d.id === m[1]);
      if (!deploy) return json(404, { code: 404, message: "Not Found" });
      const update = JSON.parse(body.toString("utf8"));
      Object.assign(deploy, { files: update.files ?? {}, branch: update.branch ?? deploy.branch, draft: update.draft ?? deploy.draft, update, state: "uploading" });
      deploy.required = [...new Set(Object.values(deploy.files))].filter((d) => !stored.has(d));
      if (deploy.required.length === 0) deploy.state = "ready";
      return json(200, view(deploy));
    }
    if (req.method === "PUT" && (m = route.match(/^\/api\/v1\/deploys\/([0-9a-f]+)\/files\/(.+)$/))) {
      const deploy = deploys.find((d) => d.id === m[1]);
      const expected = deploy?.files?.[m[2]];
      if (!expected) return json(422, { code: 422, message: `${m[2]} is not a file of this deploy` });
      if (sha1(body) !== expected) return json(422, { code: 422, message: `${m[2]}: the content does not match its SHA-1` });
      stored.set(expected, body);
      if (deploy.required.every((d) => stored.has(d))) deploy.state = "ready";
      return json(200, { id: expected, path: `/${m[2]}`, sha: expected, size: body.length });
    }
    if (req.method === "GET" && (m = route.match(new RegExp(`^/api/v1/(?:sites/${site}/)?deploys/([0-9a-f]+)$`)))) {
      const deploy = deploys.find((d) => d.id === m[1]);
      if (deploy) return json(200, view(deploy));
    }
    unexpected.push(`${req.method} ${route}`);
    json(404, { code: 404, message: "Not Found" });
  });

  /** A deploy as the API shows it. */
  const view = (d) => {
    const host = d.branch ? `${d.branch}--${name}` : `${d.id}--${name}`;
    return {
      id: d.id,
      site_id: d.site_id,
      name,
      state: d.state,
      title: d.title,
      branch: d.branch,
      context: d.branch ? "branch-deploy" : d.draft ? "draft" : "production",
      required: d.required ?? [],
      required_functions: [],
      url: `http://${host}.netlify.app`,
      ssl_url: `https://${host}.netlify.app`,
      deploy_url: `http://${host}.netlify.app`,
      deploy_ssl_url: `https://${host}.netlify.app`,
      admin_url: siteInfo.admin_url,
    };
  };

  // The extension API, over TLS with a certificate made for it.
  const certs = mkdtempSync(path.join(tmpdir(), "site-netlify-tls-"));
  const key = path.join(certs, "key.pem");
  const ca = path.join(certs, "cert.pem");
  execFileSync("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", ca, "-days", "1",
    "-subj", `/CN=${EXTENSIONS_HOST}`, "-addext", `subjectAltName=DNS:${EXTENSIONS_HOST}`], { stdio: "pipe" });
  const extensions = https.createServer({ key: readFileSync(key), cert: readFileSync(ca) }, (req, res) => {
    const route = new URL(req.url, `https://${EXTENSIONS_HOST}`).pathname;
    if (req.method === "GET" && (route === `/team/${account.id}/integrations/installations/meta/${site}` || route === `/site/${site}/integrations/safe`)) {
      res.writeHead(200, { "content-type": "application/json" });
      return res.end("[]");
    }
    unexpected.push(`${req.method} https://${EXTENSIONS_HOST}${route}`);
    res.writeHead(404, { "content-type": "application/json" });
    res.end('{"code":404,"message":"Not Found"}');
  });
  const proxy = http.createServer((req, res) => {
    unexpected.push(`${req.method} ${req.url} (through the proxy)`);
    res.writeHead(403);
    res.end();
  });
  const tunnels = new Set();
  proxy.on("connect", (req, socket, head) => {
    tunnels.add(socket);
    socket.on("close", () => tunnels.delete(socket));
    if (req.url !== `${EXTENSIONS_HOST}:443`) {
      unexpected.push(`CONNECT ${req.url}`);
      socket.end("HTTP/1.1 403 Forbidden\r\n\r\n");
      return;
    }
    tunnel(socket, head, extensions.address().port);
  });

  for (const s of [api, extensions, proxy]) await new Promise((resolve) => s.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${api.address().port}`,
    proxy: `http://127.0.0.1:${proxy.address().port}`,
    ca,
    site: siteInfo,
    deploys,
    /** The bytes a deploy holds at `path`, uploaded by it or by an earlier deploy. */
    file: (deploy, path) => stored.get(deploy.files?.[path]),
    unexpected,
    async stop() {
      for (const socket of tunnels) socket.destroy();
      for (const s of [api, extensions, proxy]) {
        s.closeAllConnections?.();
        await new Promise((resolve) => s.close(resolve));
      }
      rmSync(certs, { recursive: true, force: true });
    },
  };
}
