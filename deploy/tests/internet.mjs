// The public hosts a workflow's steps reach, on loopback: an HTTP proxy, for
// `https_proxy` (with NODE_USE_ENV_PROXY, Node's own proxy support), that answers
// for the names a test gives it (a deployment's *.pages.dev address, the
// Supabase project) over TLS, with a certificate it makes for those names and
// Node trusts (NODE_EXTRA_CA_CERTS), and hands each request to the local server
// standing in for that name. Requests to loopback pass through, and the package
// registries are reached directly (`no_proxy`); any other host is refused and
// recorded in `unexpected`.

import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import https from "node:https";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";

const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]", "::1"]);
/** What a job installs from, which is not stood in for. */
const REGISTRIES = ["registry.npmjs.org", "index.crates.io", "static.crates.io", "crates.io"];
const NO_PROXY = ["127.0.0.1", "localhost", ...REGISTRIES].join(",");

/** Answers a proxy's CONNECT on `socket` by joining it to the loopback `port`. */
export function tunnel(socket, head, port) {
  const upstream = net.connect(port, "127.0.0.1", () => {
    socket.write("HTTP/1.1 200 Connection Established\r\n\r\n");
    upstream.write(head);
    upstream.pipe(socket);
    socket.pipe(upstream);
  });
  upstream.on("error", () => socket.destroy());
  socket.on("error", () => upstream.destroy());
}

/** Whether `hostname` is one of `names` (a name, or `*.` and a suffix). */
const matches = (names, hostname) => names.some((n) => (n.startsWith("*.") ? hostname.endsWith(n.slice(1)) : hostname === n));

/**
 * Starts the proxy for `names`. Resolves to `{ proxy, ca, env, route, unexpected,
 * stop }`: `route(hostname)` is asked, for each request, for the origin
 * (`http://127.0.0.1:<port>`) that answers for that name, or undefined; `env`
 * is what a step needs to go through the proxy.
 */
export async function startInternet(names, route) {
  const unexpected = [];
  const certs = mkdtempSync(path.join(tmpdir(), "site-internet-tls-"));
  const key = path.join(certs, "key.pem");
  const ca = path.join(certs, "cert.pem");
  execFileSync("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", ca, "-days", "1",
    "-subj", `/CN=${names[0]}`, "-addext", `subjectAltName=${names.map((n) => `DNS:${n}`).join(",")}`], { stdio: "ignore" });

  // Each request, to the server that stands in for its host, keeping its Host.
  const forward = (req, res, origin) => {
    const upstream = http.request(new URL(req.url, origin), { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode, answer.rawHeaders);
      answer.pipe(res);
    });
    upstream.on("error", (e) => {
      res.writeHead(502);
      res.end(`the stand-in for ${req.headers.host} did not answer: ${e.message}`);
    });
    req.pipe(upstream);
  };

  const tls = https.createServer({ key: readFileSync(key), cert: readFileSync(ca) }, (req, res) => {
    const hostname = (req.headers.host ?? "").replace(/:\d+$/, "");
    const origin = route(hostname);
    if (!origin) {
      unexpected.push(`${req.method} https://${hostname}${req.url} (no stand-in answers for it)`);
      res.writeHead(502);
      return res.end();
    }
    forward(req, res, origin);
  });

  const proxy = http.createServer((req, res) => {
    // A plain request through the proxy: only to loopback (the hosts' API stand-ins).
    let target;
    try {
      target = new URL(req.url);
    } catch {
      target = null;
    }
    if (!target || !LOOPBACK.has(target.hostname)) {
      unexpected.push(`${req.method} ${req.url} (through the proxy)`);
      res.writeHead(502);
      return res.end();
    }
    forward(req, res, target.origin);
  });
  proxy.on("connect", (req, socket, head) => {
    const [hostname, port] = req.url.split(/:(?=\d+$)/);
    if (LOOPBACK.has(hostname)) return tunnel(socket, head, Number(port));
    if (!matches(names, hostname)) {
      unexpected.push(`CONNECT ${req.url}`);
      socket.end("HTTP/1.1 403 Forbidden\r\n\r\n");
      return;
    }
    socket.write("HTTP/1.1 200 Connection Established\r\n\r\n");
    if (head.length) socket.unshift(head);
    tls.emit("connection", socket);
  });
  await new Promise((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${proxy.address().port}`;
  // Node trusts one extra file: the certificate, and what the machine trusted already.
  const bundle = path.join(certs, "trusted.pem");
  const machine = process.env.NODE_EXTRA_CA_CERTS;
  writeFileSync(bundle, readFileSync(ca, "utf8") + (machine && existsSync(machine) ? `\n${readFileSync(machine, "utf8")}` : ""));
  return {
    proxy: url,
    ca,
    env: { NODE_USE_ENV_PROXY: "1", https_proxy: url, HTTPS_PROXY: url, no_proxy: NO_PROXY, NO_PROXY, NODE_EXTRA_CA_CERTS: bundle },
    unexpected,
    async stop() {
      proxy.closeAllConnections();
      tls.closeAllConnections();
      await new Promise((resolve) => proxy.close(resolve));
      rmSync(certs, { recursive: true, force: true });
    },
  };
}
