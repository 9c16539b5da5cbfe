// Checks, before a deploy, that a contact form built with `contact.messages:
// supabase` has a table to write to: the project's contact_messages must refuse
// the public a read (no SELECT grant) and take an insert. The insert probe is a
// message without privacy consent, which passes the grants, the types and the
// spam policy and is then refused by the table's own CHECK constraint, so nothing
// is written (and the refused row is not counted by the rate limit). The settings
// are read from the built pages, so what is checked is what is published.
//
//   node deploy/check-messages.mjs --dist dist

import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";

const TABLE = "contact_messages";
const MIGRATION = "supabase/migrations/20261123000000_contact_messages.sql";

/** The contact forms' settings found in the built site's pages, each once. */
export function formsIn(dist) {
  const found = new Map();
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(file);
      else if (entry.name.endsWith(".html")) {
        const html = readFileSync(file, "utf8");
        for (const m of html.matchAll(/<script type="application\/json" data-island-props>([^<]*)<\/script>/g)) {
          let props;
          try {
            props = JSON.parse(m[1]);
          } catch {
            continue;
          }
          if (typeof props.messages === "string" && props.storage) {
            const form = { messages: props.messages, url: props.storage.url, anonKey: props.storage.anonKey };
            found.set(JSON.stringify(form), form);
          }
        }
      }
    }
  };
  walk(dist);
  return [...found.values()];
}

async function request(url, init) {
  try {
    const response = await fetch(url, { ...init, redirect: "manual" });
    const text = await response.text();
    let body = null;
    try {
      body = JSON.parse(text);
    } catch {
      // Reported with its text below.
    }
    return { status: response.status, body, text };
  } catch (error) {
    return { error: error.cause?.message ?? error.message };
  }
}

const apply = `apply ${MIGRATION} to the project (docs/deploy.md)`;

/** Resolves to null when the project's table takes messages and hides them, else to why not. */
export async function messagesProblem(projectUrl, anonKey) {
  if (!projectUrl) return "the form sends messages to the site's own origin, which only `site serve` answers: set storage.url (docs/deploy.md)";
  const base = projectUrl.replace(/\/+$/, "");
  const headers = { apikey: anonKey, Authorization: `Bearer ${anonKey}` };
  const endpoint = `${base}/rest/v1/${TABLE}`;

  const read = await request(`${endpoint}?select=id&limit=1`, { headers });
  if (read.error) return `${base} cannot be reached: ${read.error}`;
  if (read.status === 200) {
    return `the public can read ${TABLE} in ${base} (it answered a read with ${read.text.slice(0, 80)}): ${apply}, which leaves it no SELECT`;
  }
  if (read.body?.code === "PGRST205" || read.body?.code === "42P01" || read.status === 404) {
    return `${base} has no table ${TABLE}: ${apply}`;
  }
  if (read.status === 401) {
    return `${base} refused the anon key (${read.body?.message ?? read.text.slice(0, 80)}): the build's SITE_STORAGE_ANON_KEY (the SUPABASE_ANON_KEY secret in CI) must be this project's anon or publishable key`;
  }
  if (read.body?.code !== "42501") {
    return `${base} answered a read of ${TABLE} with HTTP ${read.status}: ${read.text.slice(0, 200)}`;
  }

  const probe = {
    name: "Deploy check",
    email: "deploy-check@example.com",
    subject: "Deploy check",
    message: "A message the table must refuse: it has no privacy consent.",
    privacy: false,
    page: "/contact/",
    fill_ms: 60000,
    website: "",
  };
  const insert = await request(endpoint, {
    method: "POST",
    headers: { ...headers, "Content-Type": "application/json", Prefer: "return=minimal" },
    body: JSON.stringify(probe),
  });
  if (insert.error) return `${base} cannot be reached: ${insert.error}`;
  const { code, message = "" } = insert.body ?? {};
  if (code === "23514" && message.includes(`${TABLE}_privacy_check`)) return null;
  if (insert.status === 201) {
    return `${TABLE} in ${base} took a message without privacy consent (it is in the table, named "Deploy check"): its CHECK constraints are missing; ${apply}`;
  }
  if (code === "42501") return `the public cannot insert into ${TABLE} in ${base} (${message}): ${apply}`;
  if (code === "PGRST204") return `${TABLE} in ${base} lacks a column the form writes (${message}): ${apply}`;
  return `${base} answered the insert probe with HTTP ${insert.status}: ${insert.text.slice(0, 200)}`;
}

if (import.meta.main) {
  const usage = "usage: node deploy/check-messages.mjs --dist DIST\n\nChecks that the contact_messages table the built contact form writes to takes\nan insert and refuses the public a read (contact.messages: supabase).";
  if (process.argv.includes("--help") || process.argv.includes("-h")) {
    console.log(usage);
    process.exit(0);
  }
  const at = process.argv.indexOf("--dist");
  const dist = at > 0 ? process.argv[at + 1] : undefined;
  if (!dist) {
    console.error(usage);
    process.exit(2);
  }
  if (!existsSync(dist)) {
    console.error(`error: ${dist} does not exist: build the site first (site build)`);
    process.exit(2);
  }
  const forms = formsIn(dist);
  const delivering = forms.filter((f) => f.messages === "supabase");
  if (forms.length === 0) {
    console.log(`No contact form in ${dist}: nothing to check.`);
  } else if (delivering.length === 0) {
    console.log("Messages stay in the browser's console (contact.messages: console): nothing to check.");
  }
  let failed = false;
  for (const form of delivering) {
    const problem = await messagesProblem(form.url, form.anonKey);
    if (problem) {
      console.error(`error: ${problem}`);
      failed = true;
    } else {
      console.log(`${TABLE} in ${form.url} takes messages and refuses the public a read.`);
    }
  }
  process.exit(failed ? 1 : 0);
}
