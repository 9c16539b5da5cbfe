// Marks a commit with the address of its preview, as a commit status: GitHub
// shows it on the pull request, and the content editor shows it beside the
// draft that the commit is the head of.
//
//   node deploy/commit-status.mjs <commit> <preview URL> <context>
//
// GITHUB_API_URL and GITHUB_REPOSITORY are the runner's; GITHUB_TOKEN needs the
// job's `statuses: write`.

import { callApi } from "./api.mjs";

const [commit, url, context] = process.argv.slice(2);
const { GITHUB_API_URL: api = "https://api.github.com", GITHUB_REPOSITORY: repository, GITHUB_TOKEN: token } = process.env;
if (!/^[0-9a-f]{40}$/.test(commit ?? "") || !/^https?:\/\//.test(url ?? "") || !context) {
  console.error("usage: node deploy/commit-status.mjs <40-hex commit> <preview URL> <context>");
  process.exit(2);
}
if (!repository || !token) {
  console.error("GITHUB_REPOSITORY and GITHUB_TOKEN are needed (the runner sets them; the job needs `statuses: write`)");
  process.exit(2);
}
await callApi(api, token, "POST", `/repos/${repository}/statuses/${commit}`, {
  state: "success",
  target_url: url,
  description: "The preview of this commit",
  context,
}, { Accept: "application/vnd.github+json", "X-GitHub-Api-Version": "2022-11-28" });
console.log(`${commit.slice(0, 7)}: ${context} at ${url}`);
