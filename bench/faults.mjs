// Faults and attacks against `site build` and `site serve`, measured. Each part
// prints what happened and how long it took or how much memory it cost:
//
//   memory   eight uploads at once, each with a 60 MB text field: the server's
//            resident memory before and its peak after
//   body     a 200 MB upload without a Content-Length, and one with it: how much
//            the client sent before the answer, and the answer it received
//   headers  1,100 connections that never finish their request headers: how long
//            the server keeps them, and how long a normal page takes meanwhile
//   island   a build whose island loops while it is server-rendered: exit code,
//            first line of the message, time taken (stopped after 90 s)
//
//   SITE_BIN=target/release/site node bench/faults.mjs [part…]

import { spawn } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";

import { copySite, startServer } from "../e2e/support.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const bin = path.resolve(root, process.env.SITE_BIN ?? "target/release/site");
const BOUNDARY = "----faults";
const MB = 1024 * 1024;

function status(pid) {
  const text = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (name) => Number(text.match(new RegExp(`${name}:\\s+(\\d+)`))[1]);
  return { rss: kb("VmRSS") / 1024, peak: kb("VmHWM") / 1024 };
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.floor(sorted.length / 2)] : NaN;
}

/** A key the production policy allows. */
function uploadPath(i) {
  return `/storage/v1/object/contact-attachments/public/${1_700_000_000_000 + i}_faults.png`;
}

/**
 * Sends a multipart upload whose parts are produced by `parts` (Buffers, written
 * as fast as the socket takes them) over a raw socket, and resolves with the
 * status line and body of the answer and how many bytes were sent before it came.
 */
function rawUpload(url, requestPath, { length, parts }) {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect({ host: hostname, port: Number(port) });
    let sent = 0;
    let answer = "";
    let sentAtAnswer = null;
    let done = false;
    const finish = (error) => {
      if (done) return;
      done = true;
      socket.destroy();
      const [head, body = ""] = answer.split("\r\n\r\n");
      resolve({ status: head.split("\r\n")[0] || `(no answer: ${error ?? "closed"})`, body: body.trim(), sentAtAnswer, sent });
    };
    socket.on("data", (d) => {
      if (sentAtAnswer === null) sentAtAnswer = sent;
      answer += d;
      if (/\r\n\r\n[\s\S]*\}/.test(answer)) finish();
    });
    socket.on("error", (e) => finish(e.code));
    socket.on("close", () => finish());
    socket.on("connect", async () => {
      const headers = [
        `POST ${requestPath} HTTP/1.1`,
        `Host: ${hostname}:${port}`,
        "Authorization: Bearer",
        `Content-Type: multipart/form-data; boundary=${BOUNDARY}`,
        length === undefined ? "Transfer-Encoding: chunked" : `Content-Length: ${length}`,
        "",
        "",
      ].join("\r\n");
      socket.write(headers);
      for (const part of parts()) {
        if (done) return;
        const chunk = length === undefined ? Buffer.concat([Buffer.from(`${part.length.toString(16)}\r\n`), part, Buffer.from("\r\n")]) : part;
        sent += part.length;
        if (!socket.write(chunk)) await new Promise((r) => socket.once("drain", r));
      }
      if (length === undefined && !done) socket.write("0\r\n\r\n");
    });
  });
}

function* textFieldUpload(size) {
  yield Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="metadata"\r\n\r\n`);
  const chunk = Buffer.alloc(MB, "a");
  for (let left = size; left > 0; left -= MB) yield left >= MB ? chunk : chunk.subarray(0, left);
  yield Buffer.from(`\r\n--${BOUNDARY}\r\nContent-Disposition: form-data; name=""; filename="a.png"\r\nContent-Type: image/png\r\n\r\n`);
  yield Buffer.from("89504e470d0a1a0a0000", "hex");
  yield Buffer.from(`\r\n--${BOUNDARY}--\r\n`);
}

function* fileUpload(size) {
  yield Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name=""; filename="big.png"\r\nContent-Type: image/png\r\n\r\n`);
  yield Buffer.from("89504e470d0a1a0a", "hex");
  const chunk = Buffer.alloc(MB, 0);
  for (let left = size; left > 0; left -= MB) yield left >= MB ? chunk : chunk.subarray(0, left);
  yield Buffer.from(`\r\n--${BOUNDARY}--\r\n`);
}

function byteLength(generator) {
  let n = 0;
  for (const part of generator) n += part.length;
  return n;
}

const short = (s) => (s.length > 140 ? `${s.slice(0, 140)}…` : s);

async function memory() {
  const server = await startServer({ siteRoot: copySite() });
  try {
    const before = status(server.pid);
    const uploads = Array.from({ length: 8 }, (_, i) => rawUpload(server.url, uploadPath(i), { length: byteLength(textFieldUpload(60 * MB)), parts: () => textFieldUpload(60 * MB) }));
    const answers = await Promise.all(uploads);
    const after = status(server.pid);
    console.log(`memory: resident ${before.rss.toFixed(0)} MB before; peak ${after.peak.toFixed(0)} MB after 8 uploads with a 60 MB text field each (peak before them ${before.peak.toFixed(0)} MB)`);
    const statuses = new Map();
    for (const a of answers) statuses.set(`${a.status} ${short(a.body)}`, (statuses.get(`${a.status} ${short(a.body)}`) ?? 0) + 1);
    for (const [s, n] of statuses) console.log(`  ${n} × ${s}`);
  } finally {
    await server.stop();
  }
}

async function body() {
  const server = await startServer({ siteRoot: copySite() });
  try {
    for (const withLength of [false, true]) {
      const size = 200 * MB;
      const started = performance.now();
      const a = await rawUpload(server.url, uploadPath(100 + Number(withLength)), {
        length: withLength ? byteLength(fileUpload(size)) : undefined,
        parts: () => fileUpload(size),
      });
      const took = performance.now() - started;
      const sentAt = a.sentAtAnswer === null ? "never answered" : `${(a.sentAtAnswer / MB).toFixed(1)} MB sent when the answer came`;
      console.log(`body ${withLength ? "with" : "without"} Content-Length (200 MB): ${sentAt}, ${(a.sent / MB).toFixed(1)} MB sent in all, ${(took / 1000).toFixed(2)} s; ${a.status} ${short(a.body)}`);
    }
    // The way a browser or storage-js sends it: fetch writes the whole body and
    // reads the answer only then, so an answer sent early must survive that.
    for (const withLength of [false, true]) {
      const size = 200 * MB;
      const started = performance.now();
      const parts = [...fileUpload(size)];
      const body = withLength
        ? new Blob(parts)
        : new ReadableStream({
            pull(controller) {
              const next = parts.shift();
              if (next) controller.enqueue(next);
              else controller.close();
            },
          });
      let seen;
      try {
        const response = await fetch(server.url + uploadPath(200 + Number(withLength)), {
          method: "POST",
          headers: { Authorization: "Bearer", "Content-Type": `multipart/form-data; boundary=${BOUNDARY}` },
          body,
          duplex: "half",
        });
        seen = `${response.status} ${short(await response.text())}`;
      } catch (e) {
        seen = `${e.name}: ${e.message} (${e.cause?.code ?? e.cause?.message ?? ""})`;
      }
      console.log(`body by fetch ${withLength ? "with" : "without"} Content-Length (200 MB): ${((performance.now() - started) / 1000).toFixed(2)} s; ${seen}`);
    }
    console.log(`  peak memory of the server: ${status(server.pid).peak.toFixed(0)} MB`);
  } finally {
    await server.stop();
  }
}

async function headers() {
  const server = await startServer({ siteRoot: copySite() });
  const { hostname, port } = new URL(server.url);
  const limit = 60_000;
  const closedAfter = [];
  const sockets = [];
  const opened = performance.now();
  for (let i = 0; i < 1100; i++) {
    const socket = net.connect({ host: hostname, port: Number(port) });
    socket.on("connect", () => socket.write(`GET / HTTP/1.1\r\nHost: ${hostname}\r\nX-Slow: `));
    socket.on("error", () => {});
    socket.on("close", () => closedAfter.push(performance.now() - opened));
    sockets.push(socket);
  }
  await new Promise((r) => setTimeout(r, 1000));
  const pageStarted = performance.now();
  let page;
  try {
    const response = await fetch(server.url + "/", { signal: AbortSignal.timeout(limit) });
    await response.arrayBuffer();
    page = `${response.status} in ${((performance.now() - pageStarted) / 1000).toFixed(2)} s`;
  } catch (e) {
    page = `no answer (${e.name}) after ${((performance.now() - pageStarted) / 1000).toFixed(0)} s`;
  }
  const deadline = opened + limit;
  while (closedAfter.length < sockets.length && performance.now() < deadline) await new Promise((r) => setTimeout(r, 250));
  const open = sockets.length - closedAfter.length;
  const kept = closedAfter.length ? `closed after ${(median(closedAfter) / 1000).toFixed(1)} s (median; ${(Math.min(...closedAfter) / 1000).toFixed(1)}–${(Math.max(...closedAfter) / 1000).toFixed(1)} s)` : "none closed";
  console.log(`headers: 1,100 unfinished requests: ${closedAfter.length} ${kept}; ${open} still open after ${limit / 1000} s; a page requested meanwhile: ${page}`);
  console.log(`  resident memory of the server: ${status(server.pid).rss.toFixed(0)} MB`);
  for (const s of sockets) s.destroy();
  await server.stop();
}

async function island() {
  const base = path.join(root, ".site", "faults");
  mkdirSync(base, { recursive: true });
  const site = mkdtempSync(path.join(base, "island-"));
  for (const layer of ["plain", "islands"]) cpSync(path.join(root, "generator/tests/fixtures", layer), site, { recursive: true });
  writeFileSync(
    path.join(site, "templates/layouts/with-clock.html"),
    `{% extends "layouts/markdown.html" %}\n{% block content %}{{ super() }}{{ island("Badge", {"text": "loop"}) }}{% endblock %}\n`,
  );
  const started = performance.now();
  const child = spawn(bin, ["build", "--root", site, "--out", path.join(site, "dist")], { stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.on("data", (d) => (output += d));
  child.stderr.on("data", (d) => (output += d));
  const timer = setTimeout(() => child.kill("SIGKILL"), 90_000);
  const [code, signal] = await new Promise((r) => child.on("exit", (c, s) => r([c, s])));
  clearTimeout(timer);
  const took = (performance.now() - started) / 1000;
  const first = output.split("\n").find((l) => l.startsWith("error")) ?? "(no error)";
  console.log(`island: a looping island: ${signal ? `killed by ${signal} (still running)` : `exit ${code}`} after ${took.toFixed(1)} s; ${first}`);
  rmSync(site, { recursive: true, force: true });
}

const parts = { memory, body, headers, island };
const wanted = process.argv.slice(2);
for (const name of wanted.length ? wanted : Object.keys(parts)) {
  if (!parts[name]) throw new Error(`no part ${name}; the parts are ${Object.keys(parts).join(", ")}`);
  await parts[name]();
}
