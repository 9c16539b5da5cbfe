// Prints the address a deploy tool says it published to, read from the tool's
// own machine-readable output, or fails saying what the output held instead:
//
//   node deploy/deployment-url.mjs cloudflare-pages "$WRANGLER_OUTPUT_FILE_PATH"
//   node deploy/deployment-url.mjs netlify netlify.json      (netlify deploy --json)
//
// wrangler writes one JSON object a line to WRANGLER_OUTPUT_FILE_PATH; the one of
// type `pages-deploy` carries the deployment's URL. `netlify deploy --json`
// prints one object whose `deploy_url` is the deploy's own address.

import { readFileSync } from "node:fs";

/** The deployment URL in `text`, the output of `host`'s tool, or an Error. */
export function deploymentUrl(host, text) {
  let url;
  if (host === "cloudflare-pages") {
    const entries = text
      .split("\n")
      .filter((line) => line.trim())
      .map((line) => JSON.parse(line));
    url = entries.findLast((e) => e.type === "pages-deploy")?.url;
  } else if (host === "netlify") {
    url = JSON.parse(text).deploy_url;
  } else {
    throw new Error(`no deploy tool for host \`${host}\` (cloudflare-pages or netlify)`);
  }
  if (typeof url !== "string" || !/^https:\/\/[^/\s]+\/?$/.test(url)) {
    throw new Error(`the ${host} deploy tool reported no deployment URL (found ${JSON.stringify(url ?? null)})`);
  }
  return url.replace(/\/$/, "");
}

if (import.meta.main) {
  const [host, file] = process.argv.slice(2);
  try {
    console.log(deploymentUrl(host, readFileSync(file, "utf8")));
  } catch (e) {
    console.error(`::error::${e.message}`);
    process.exit(1);
  }
}
