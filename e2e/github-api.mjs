// A loopback stand-in for the parts of GitHub's REST and GraphQL APIs that Sveltia CMS 0.221.1's
// `github` backend uses, backed by a real Git repository on disk driven with the `git` CLI.
//
// Scope: exactly the calls the backend makes (see the table in README-style comment below). Any
// other REST path answers 404 and any other GraphQL field answers a GitHub-style validation error;
// both are recorded in `unknown`, so a test can assert the editor needed nothing more.
//
// Sveltia's config: `backend: { name: github, repo: OWNER/NAME, branch: main, api_root: ORIGIN }`.
// Sveltia turns a non-github.com `api_root` into `ORIGIN/api/v3` (REST) and `ORIGIN/api/graphql`
// (GraphQL), like GitHub Enterprise Server, so those are the paths served here. `graphql_api_root`
// need not be set. (The bare `/…` and `/graphql` paths of api.github.com are served as well.)
//
// Repository: `repoDir` may be a bare or a non-bare repository. Commits are made with plumbing
// only (hash-object, a temporary GIT_INDEX_FILE, write-tree, commit-tree, update-ref with the old
// value for compare-and-swap), so the user's index is never touched. When the repository is
// non-bare and the branch that moves is the one checked out, the work tree is brought along with
// `git read-tree -m -u OLD NEW` — what `receive.denyCurrentBranch=updateInstead` does for a push —
// unless `syncWorkTree: false`. A failure there (local edits in the way) is kept in `warnings`.
//
// Calls made by Sveltia CMS 0.221.1 (non-Open-Authoring), all with `Authorization: token …`:
//   GET    /user                                        sign-in: login, name, email, avatar_url…
//   GET    /repos/:o/:r/collaborators/:login            access check; only `ok` is read (204)
//   GET    /repos/:o/:r/git/trees/:sha?recursive=1      file list: tree[].{type,path,sha,size}
//   GET    /repos/:o/:r/git/blobs/:sha  (Accept raw)    asset preview, over-512KB text
//   DELETE /repos/:o/:r/git/refs/heads/:branch          drop a workflow branch after merge/discard
//   PATCH  /repos/:o/:r/git/refs/heads/:branch          reset a left-over workflow branch {sha,force}
//   POST   /repos/:o/:r/pulls                           open a PR: number,node_id,title,html_url,head.sha,created_at,updated_at
//   PATCH  /repos/:o/:r/pulls/:n                        close / reopen ({state})
//   PUT    /repos/:o/:r/pulls/:n/merge                  publish ({merge_method: merge|squash, commit_title})
//   GET    /repos/:o/:r/pulls/:n/files?per_page=100     only for a PR with a renamed file
//   POST   /repos/:o/:r/issues/:n/labels                status label on a new PR
//   GET    /repos/:o/:r/issues/:n                       labels before a status change
//   PATCH  /repos/:o/:r/issues/:n                       replace labels ({labels})
//   POST   /repos/:o/:r/dispatches                      "Publish changes" deploy button (recorded only)
//   POST   /api/graphql  queries: repository{defaultBranchRef, ref(qualifiedName){target{…Commit}},
//            object(oid|expression){…Blob|…Commit}, pullRequests(…)}, commit history(first,path),
//            Commit.file(path){oid}, Commit.status/deployments/checkSuites (no CI here: empty);
//          mutations: createCommitOnBranch, createRef, convertPullRequestToDraft,
//            markPullRequestReadyForReview.
// Added for tests only (Sveltia does not call them): GET /repos/:o/:r/pulls[?state=&head=],
// GET /repos/:o/:r/pulls/:n. No sign-in flow other than the token: OAuth is not emulated.

import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ZERO_OID = '0'.repeat(40);
const DOCS = 'https://docs.github.com/rest';
// GitHub's GraphQL API cuts Blob.text off at 512 KB and says so with isTruncated
const GRAPHQL_TEXT_LIMIT = 512 * 1024;
// The headers GitHub allows in a CORS preflight (api.github.com answers with this fixed list)
const CORS_ALLOW_HEADERS =
  'Authorization, Content-Type, If-Match, If-Modified-Since, If-None-Match, If-Unmodified-Since, ' +
  'Accept-Encoding, X-GitHub-OTP, X-Requested-With, User-Agent, GraphQL-Features';
const CORS_EXPOSE_HEADERS =
  'ETag, Link, Location, Retry-After, X-GitHub-OTP, X-RateLimit-Limit, X-RateLimit-Remaining, ' +
  'X-RateLimit-Used, X-RateLimit-Resource, X-RateLimit-Reset, X-OAuth-Scopes, ' +
  'X-Accepted-OAuth-Scopes, X-Poll-Interval, X-GitHub-Media-Type, X-GitHub-SSO, ' +
  'X-GitHub-Request-Id, Deprecation, Sunset';
// A 1×1 transparent PNG, served for avatars so the editor never reaches out to github.com
const AVATAR_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

// ---------------------------------------------------------------------------------------------
// git
// ---------------------------------------------------------------------------------------------

class GitError extends Error {}

/**
 * Run git in `cwd`. Git variables from the caller's environment are dropped so that a test run
 * inside a hook or another repository can't redirect us.
 */
const makeGit = (cwd) => {
  const baseEnv = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !/^GIT_(DIR|WORK_TREE|INDEX_FILE|OBJECT_DIRECTORY|NAMESPACE)/.test(k)),
  );
  // Bound the number of concurrent git processes: a batched GraphQL query may ask for 250 files
  let running = 0;
  const waiting = [];
  const acquire = () =>
    running < 12 ? (running += 1, Promise.resolve()) : new Promise((r) => waiting.push(r));
  const release = () => (waiting.length ? waiting.shift()() : (running -= 1));

  return async (args, { input, env, okCodes = [0], raw = false } = {}) => {
    await acquire();
    try {
      return await new Promise((resolve, reject) => {
        const child = spawn('git', args, { cwd, env: { ...baseEnv, ...env } });
        const out = [];
        const err = [];
        child.stdout.on('data', (d) => out.push(d));
        child.stderr.on('data', (d) => err.push(d));
        child.on('error', reject);
        child.on('close', (code) => {
          const stdout = Buffer.concat(out);
          if (!okCodes.includes(code)) {
            reject(Object.assign(new GitError(`git ${args.join(' ')}: ${Buffer.concat(err).toString().trim()}`), { code }));
          } else {
            resolve(raw ? { stdout, code } : stdout.toString('utf8'));
          }
        });
        child.stdin.on('error', () => {}); // git may exit before reading all input
        child.stdin.end(input ?? '');
      });
    } finally {
      release();
    }
  };
};

const isOid = (s) => typeof s === 'string' && /^[0-9a-f]{40}$/.test(s);
// GitHub returns timestamps in UTC without milliseconds
const isoDate = (d) => new Date(d).toISOString().replace(/\.\d{3}Z$/, 'Z');
// Git's own heuristic: a NUL byte in the first 8000 bytes means binary
const isBinaryBuffer = (buf) => buf.subarray(0, 8000).includes(0);

/** Reject paths a GitHub commit can't hold, and any that would escape the tree. */
const checkPath = (path) => {
  if (typeof path !== 'string' || !path || path.startsWith('/') || path.endsWith('/') ||
    path.split('/').some((s) => s === '' || s === '.' || s === '..' || s.toLowerCase() === '.git') ||
    /[\0\n]/.test(path)) {
    throw new GraphQLError(`Path "${path}" is invalid`, 'UNPROCESSABLE');
  }
};

// ---------------------------------------------------------------------------------------------
// A small GraphQL parser and executor: enough for the documents Sveltia sends (operations with
// variable definitions, aliases, arguments of every literal kind, inline fragments)
// ---------------------------------------------------------------------------------------------

class GraphQLError extends Error {
  constructor(message, type, extra = {}) {
    super(message);
    this.type = type;
    this.extra = extra;
  }
}

const tokenize = (src) => {
  const tokens = [];
  const re = /\s+|,|#[^\n]*|(\.\.\.|[{}()\[\]:!$=@|&])|("""[\s\S]*?"""|"(?:[^"\\\n]|\\.)*")|(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)|([_A-Za-z][_0-9A-Za-z]*)/gy;
  let m;
  while (re.lastIndex < src.length) {
    const at = re.lastIndex;
    m = re.exec(src);
    if (!m) throw new GraphQLError(`Parse error on "${src.slice(at, at + 10)}"`, 'PARSE');
    if (m[1]) tokens.push({ t: 'p', v: m[1] });
    else if (m[2]) {
      tokens.push({ t: 's', v: m[2].startsWith('"""') ? m[2].slice(3, -3) : JSON.parse(m[2]) });
    } else if (m[3]) tokens.push({ t: 'n', v: Number(m[3]) });
    else if (m[4]) tokens.push({ t: 'name', v: m[4] });
  }
  return tokens;
};

const parseDocument = (src) => {
  const toks = tokenize(src);
  let i = 0;
  const peek = (v) => toks[i] && (v === undefined || toks[i].v === v) ? toks[i] : undefined;
  const expect = (v) => {
    const tok = toks[i];
    if (!tok || (v !== undefined && tok.v !== v)) {
      throw new GraphQLError(`Parse error on "${tok ? tok.v : 'end of document'}"${v ? ` (expected ${v})` : ''}`, 'PARSE');
    }
    i += 1;
    return tok;
  };
  const name = () => {
    const tok = expect();
    if (tok.t !== 'name') throw new GraphQLError(`Parse error on "${tok.v}" (expected a name)`, 'PARSE');
    return tok.v;
  };
  const type = () => {
    let t;
    if (peek('[')) { expect('['); t = `[${type()}]`; expect(']'); } else t = name();
    if (peek('!')) { expect('!'); t += '!'; }
    return t;
  };
  const value = () => {
    const tok = expect();
    if (tok.t === 'p' && tok.v === '$') return { var: name() };
    if (tok.t === 's' || tok.t === 'n') return { lit: tok.v };
    if (tok.t === 'p' && tok.v === '[') {
      const list = [];
      while (!peek(']')) list.push(value());
      expect(']');
      return { list };
    }
    if (tok.t === 'p' && tok.v === '{') {
      const obj = {};
      while (!peek('}')) { const k = name(); expect(':'); obj[k] = value(); }
      expect('}');
      return { obj };
    }
    if (tok.t === 'name') {
      if (tok.v === 'true' || tok.v === 'false') return { lit: tok.v === 'true' };
      if (tok.v === 'null') return { lit: null };
      return { lit: tok.v }; // enum value
    }
    throw new GraphQLError(`Parse error on "${tok.v}"`, 'PARSE');
  };
  const args = () => {
    const out = {};
    if (!peek('(')) return out;
    expect('(');
    while (!peek(')')) { const k = name(); expect(':'); out[k] = value(); }
    expect(')');
    return out;
  };
  const selectionSet = () => {
    expect('{');
    const sels = [];
    while (!peek('}')) {
      if (peek('...')) {
        expect('...');
        if (!peek('on')) throw new GraphQLError('Named fragments are not supported by the stand-in', 'PARSE');
        expect('on');
        sels.push({ kind: 'inline', on: name(), selections: selectionSet() });
        continue;
      }
      let fieldName = name();
      let alias;
      if (peek(':')) { expect(':'); alias = fieldName; fieldName = name(); }
      const a = args();
      sels.push({ kind: 'field', alias, name: fieldName, args: a, selections: peek('{') ? selectionSet() : undefined });
    }
    expect('}');
    return sels;
  };
  const ops = [];
  while (i < toks.length) {
    let opType = 'query';
    let opName;
    const varDefs = {};
    if (peek('query') || peek('mutation') || peek('subscription')) {
      opType = expect().v;
      if (toks[i]?.t === 'name') opName = name();
      if (peek('(')) {
        expect('(');
        while (!peek(')')) {
          expect('$');
          const v = name();
          expect(':');
          varDefs[v] = { type: type() };
          if (peek('=')) { expect('='); varDefs[v].default = value(); }
        }
        expect(')');
      }
    }
    ops.push({ opType, opName, varDefs, selections: selectionSet() });
  }
  return ops;
};

/**
 * Execute `op` against `root`. A node is a plain object with `__typename` (and optionally
 * `__implements`) whose fields are values or `(args, ctx) => value` functions. Unknown fields are
 * reported like GitHub's validation errors, which come back without any `data`.
 */
const execute = async (op, root, variables, ctx) => {
  const errors = [];
  const invalid = [];
  const evalValue = (v) => {
    if ('var' in v) {
      if (!(v.var in op.varDefs)) {
        invalid.push({ message: `Variable $${v.var} is used by anonymous ${op.opType} but not declared`, extensions: { code: 'variableNotDefined', variableName: v.var } });
        return undefined;
      }
      return variables[v.var] ?? (op.varDefs[v.var].default ? evalValue(op.varDefs[v.var].default) : null);
    }
    if ('list' in v) return v.list.map(evalValue);
    if ('obj' in v) return Object.fromEntries(Object.entries(v.obj).map(([k, x]) => [k, evalValue(x)]));
    return v.lit;
  };
  const matches = (node, typeName) => node.__typename === typeName || (node.__implements ?? []).includes(typeName);

  const complete = async (value, sel, path) => {
    if (value === null || value === undefined) return null;
    if (Array.isArray(value)) return Promise.all(value.map((v, i) => complete(v, sel, [...path, i])));
    if (!sel.selections) return value;
    return selectAll(value, sel.selections, path);
  };

  const resolveField = async (node, sel, path) => {
    if (sel.name === '__typename') return node.__typename;
    const impl = node[sel.name];
    if (impl === undefined) {
      invalid.push({ path, extensions: { code: 'undefinedField', typeName: node.__typename, fieldName: sel.name }, message: `Field '${sel.name}' doesn't exist on type '${node.__typename}'` });
      ctx.onUnknownField(`${node.__typename}.${sel.name}`);
      return null;
    }
    try {
      const args = Object.fromEntries(Object.entries(sel.args).map(([k, v]) => [k, evalValue(v)]));
      const value = typeof impl === 'function' ? await impl(args) : impl;
      return await complete(value, sel, path);
    } catch (ex) {
      if (!(ex instanceof GraphQLError)) throw ex;
      errors.push({ type: ex.type, path, locations: [], message: ex.message, ...ex.extra });
      return null;
    }
  };

  // Sibling fields are resolved concurrently (a batch asks for hundreds of files), except the
  // top-level fields of a mutation, which GraphQL runs in order
  const selectAll = async (node, selections, path, serial = false) => {
    const flat = [];
    const collect = (sels) => sels.forEach((s) => {
      if (s.kind === 'inline') { if (matches(node, s.on)) collect(s.selections); } else flat.push(s);
    });
    collect(selections);
    const out = {};
    if (serial) {
      for (const s of flat) out[s.alias ?? s.name] = await resolveField(node, s, [...path, s.alias ?? s.name]);
    } else {
      const values = await Promise.all(flat.map((s) => resolveField(node, s, [...path, s.alias ?? s.name])));
      flat.forEach((s, k) => {
        const key = s.alias ?? s.name;
        // Two selections of one field (from an inline fragment and outside it) are merged
        out[key] = out[key] && typeof out[key] === 'object' && values[k] ? { ...out[key], ...values[k] } : values[k];
      });
    }
    return out;
  };

  const data = await selectAll(root, op.selections, [], op.opType === 'mutation');
  if (invalid.length) return { errors: invalid };
  return errors.length ? { data, errors } : { data };
};

// ---------------------------------------------------------------------------------------------
// The stand-in
// ---------------------------------------------------------------------------------------------

/**
 * Start the stand-in.
 * @param {object} opts
 * @param {string} opts.repoDir Git repository (bare or not) whose branches are served.
 * @param {string} opts.owner Repository owner, as in the CMS `repo: owner/name`.
 * @param {string} opts.name Repository name.
 * @param {string} opts.token The one personal access token that is accepted.
 * @param {number} [opts.port] Port on 127.0.0.1; 0 picks a free one.
 * @param {{ login?: string, name?: string, email?: string, id?: number }} [opts.user] The token's user.
 * @param {boolean} [opts.syncWorkTree] Update a non-bare checkout when its branch moves. Default true.
 * @returns {Promise<{ url: string, graphqlUrl: string, apiRoot: string, calls: object[],
 *   unknown: object[], warnings: string[], dispatches: object[], pulls: Map<number, object>,
 *   stop: () => Promise<void> }>}
 */
export async function startGitHub({ repoDir, owner, name, token, port = 0, user: userOpts = {}, syncWorkTree = true }) {
  if (!repoDir || !owner || !name || !token) throw new Error('repoDir, owner, name and token are required');
  const git = makeGit(repoDir);
  const user = { login: 'editor', name: 'Site Editor', email: 'editor@example.com', id: 1001, ...userOpts };
  const repoId = `R_${Buffer.from(`${owner}/${name}`).toString('base64url')}`;
  const isBare = (await git(['rev-parse', '--is-bare-repository'])).trim() === 'true';
  // The branch the repository's HEAD names is the default branch (GitHub's defaultBranchRef)
  const headRef = (await git(['symbolic-ref', '-q', 'HEAD'], { okCodes: [0, 1] })).trim();
  const defaultBranch = headRef.replace(/^refs\/heads\//, '') || 'main';

  const calls = [];
  const unknown = [];
  const warnings = [];
  const dispatches = [];
  /** Commit statuses by commit: what `POST /statuses/:sha` was told, latest per context. */
  const statuses = new Map();
  /** @type {Map<number, any>} pull requests (and the issues they are), in memory */
  const pulls = new Map();
  /** @type {Map<string, any>} repository labels by name */
  const labels = new Map();
  let nextNumber = 1;
  let nextLabelId = 1;
  let origin = '';

  // All writes go through one queue, so a compare-and-swap on a ref can't interleave with another
  let writeChain = Promise.resolve();
  const serialize = (fn) => {
    const p = writeChain.then(fn, fn);
    writeChain = p.catch(() => {});
    return p;
  };

  // ------------------------------------------------------------------------- repository reads

  const revParse = async (expr) => {
    if (typeof expr !== 'string' || !expr || expr.startsWith('-')) return null;
    const out = await git(['rev-parse', '--verify', '-q', expr], { okCodes: [0, 1, 128] });
    return isOid(out.trim()) ? out.trim() : null;
  };
  /** Resolve a branch name, `refs/…` name, or full commit SHA to a commit. */
  const resolveCommit = async (refOrSha) => {
    if (isOid(refOrSha)) return revParse(`${refOrSha}^{commit}`);
    if (typeof refOrSha !== 'string' || !refOrSha) return null;
    if (refOrSha.startsWith('refs/')) return revParse(`${refOrSha}^{commit}`);
    return (await revParse(`refs/heads/${refOrSha}^{commit}`)) ?? revParse(`refs/tags/${refOrSha}^{commit}`);
  };
  const branchHead = (branch) => revParse(`refs/heads/${branch}^{commit}`);
  const objectType = async (oid) => (await git(['cat-file', '-t', oid], { okCodes: [0, 1, 128] })).trim() || null;
  const readBlob = async (oid) => (await git(['cat-file', 'blob', oid], { raw: true })).stdout;

  const commitCache = new Map(); // commits are immutable, so their metadata is cached by oid
  const readCommit = (oid) => {
    if (!commitCache.has(oid)) {
      commitCache.set(oid, git(['show', '-s', '--format=%H%x00%T%x00%P%x00%an%x00%ae%x00%aI%x00%cn%x00%ce%x00%cI%x00%B', oid]).then((out) => {
        const [sha, tree, parents, an, ae, ad, cn, ce, cd, ...msg] = out.split('\0');
        return { sha, tree, parents: parents.split(' ').filter(Boolean), author: { name: an, email: ae, date: ad }, committer: { name: cn, email: ce, date: cd }, message: msg.join('\0').replace(/\n+$/, '') };
      }));
      commitCache.get(oid).catch(() => commitCache.delete(oid));
    }
    return commitCache.get(oid);
  };

  /** Files changed by a PR: its head against the merge base with the base branch. */
  const diffFiles = async (fromOid, toOid) => {
    if (!fromOid || !toOid) return [];
    const out = await git(['diff', '--name-status', '-M', '-z', fromOid, toOid]);
    const parts = out.split('\0').filter((s, k, a) => k < a.length - 1 || s);
    const files = [];
    for (let k = 0; k < parts.length;) {
      const status = parts[k++];
      if (status[0] === 'R' || status[0] === 'C') files.push({ status: status[0], previous: parts[k++], path: parts[k++] });
      else files.push({ status: status[0], path: parts[k++] });
    }
    return files;
  };
  const prDiffBase = async (pr) => {
    if (pr.merged) return pr.mergeBaseOid;
    const head = await prHeadOid(pr);
    const base = await branchHead(pr.base);
    if (!head || !base) return null;
    return (await git(['merge-base', base, head], { okCodes: [0, 1] })).trim() || null;
  };
  const prHeadOid = async (pr) => (pr.state === 'open' && (await branchHead(pr.head))) || pr.headOid;

  // ------------------------------------------------------------------------- repository writes

  /**
   * Move a branch with compare-and-swap (`old` may be ZERO_OID to create it), then bring a
   * non-bare checkout of that branch along, as a push with updateInstead would.
   */
  const moveBranch = async (branch, newOid, oldOid, reason) => {
    await git(['update-ref', '-m', reason, `refs/heads/${branch}`, newOid, oldOid]);
    if (!isBare && syncWorkTree && headRef === `refs/heads/${branch}` && oldOid !== ZERO_OID) {
      try {
        await git(['read-tree', '-m', '-u', oldOid, newOid]);
      } catch (ex) {
        warnings.push(`work tree not updated for ${branch}: ${ex.message}`);
      }
    }
    // A new commit on a PR's head branch updates the PR, as it does on GitHub
    const now = isoDate(Date.now());
    for (const pr of pulls.values()) if (pr.state === 'open' && pr.head === branch) pr.updatedAt = now;
  };

  const gitIdentity = (who, date) => ({
    GIT_AUTHOR_NAME: who.name, GIT_AUTHOR_EMAIL: who.email, GIT_AUTHOR_DATE: date,
    // GitHub commits made through its API carry GitHub as committer
    GIT_COMMITTER_NAME: 'GitHub', GIT_COMMITTER_EMAIL: 'noreply@github.com', GIT_COMMITTER_DATE: date,
  });

  /**
   * Build a commit from `parent` plus additions (base64 contents) and deletions in a temporary
   * index, so the repository's own index and work tree are left alone.
   */
  const buildCommit = async ({ parent, additions, deletions, message }) => {
    const dir = await mkdtemp(join(tmpdir(), 'gh-standin-'));
    const env = { GIT_INDEX_FILE: join(dir, 'index') };
    try {
      await git(['read-tree', parent], { env });
      const existing = new Map(
        (await git(['ls-files', '-s', '-z'], { env })).split('\0').filter(Boolean).map((line) => {
          const [meta, path] = line.split('\t');
          return [path, meta.split(' ')[0]];
        }),
      );
      const lines = [];
      for (const { path } of deletions) {
        checkPath(path);
        if (!existing.has(path)) {
          throw new GraphQLError(`A path was requested for deletion which does not exist as of commit oid \`${parent}\``, 'UNPROCESSABLE');
        }
        lines.push(`0 ${ZERO_OID}\t${path}`);
      }
      for (const { path, contents } of additions) {
        checkPath(path);
        if (typeof contents !== 'string' || !/^[A-Za-z0-9+/=\s]*$/.test(contents)) {
          throw new GraphQLError(`Contents of "${path}" are not valid base64`, 'UNPROCESSABLE');
        }
        const oid = (await git(['hash-object', '-w', '--stdin'], { input: Buffer.from(contents, 'base64') })).trim();
        // Keep an executable bit the file already had; anything else is a regular file
        lines.push(`${existing.get(path) === '100755' ? '100755' : '100644'} ${oid}\t${path}`);
      }
      if (lines.length) await git(['update-index', '--index-info'], { env, input: `${lines.join('\n')}\n` });
      const tree = (await git(['write-tree'], { env })).trim();
      const date = isoDate(Date.now());
      return (await git(['commit-tree', tree, '-p', parent, '-F', '-'], { input: message, env: gitIdentity(user, date) })).trim();
    } catch (ex) {
      if (ex instanceof GitError) throw new GraphQLError(ex.message, 'UNPROCESSABLE');
      throw ex;
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  };

  // ------------------------------------------------------------------------- REST objects

  const api = () => `${origin}/api/v3`;
  const repoURL = () => `${origin}/${owner}/${name}`;
  const avatarURL = (login) => `${origin}/avatars/${encodeURIComponent(login)}.png`;
  const userJSON = () => ({
    login: user.login, id: user.id, node_id: `U_${user.id}`, avatar_url: avatarURL(user.login),
    html_url: `${origin}/${user.login}`, url: `${api()}/users/${user.login}`, type: 'User', site_admin: false,
    name: user.name, email: user.email,
  });
  const repoJSON = () => ({
    id: 1, node_id: repoId, name, full_name: `${owner}/${name}`, private: true,
    owner: { login: owner, type: 'User' }, html_url: repoURL(), url: `${api()}/repos/${owner}/${name}`,
    default_branch: defaultBranch,
  });
  const labelJSON = (labelName) => {
    if (!labels.has(labelName)) {
      const id = nextLabelId++;
      labels.set(labelName, { id, node_id: `LA_${id}`, url: `${api()}/repos/${owner}/${name}/labels/${encodeURIComponent(labelName)}`, name: labelName, color: 'ededed', default: false, description: null });
    }
    return labels.get(labelName);
  };
  const prJSON = async (pr) => {
    const headSha = await prHeadOid(pr);
    return {
      url: `${api()}/repos/${owner}/${name}/pulls/${pr.number}`, id: pr.number, node_id: pr.nodeId,
      html_url: `${repoURL()}/pull/${pr.number}`, number: pr.number, state: pr.state, locked: false,
      title: pr.title, body: pr.body, user: userJSON(), labels: pr.labels.map(labelJSON), draft: pr.draft,
      merged: pr.merged, mergeable: pr.state === 'open' ? true : null, merged_at: pr.mergedAt,
      merge_commit_sha: pr.mergeCommitOid, created_at: pr.createdAt, updated_at: pr.updatedAt, closed_at: pr.closedAt,
      head: { label: `${owner}:${pr.head}`, ref: pr.head, sha: headSha, repo: repoJSON(), user: userJSON() },
      base: { label: `${owner}:${pr.base}`, ref: pr.base, sha: await branchHead(pr.base), repo: repoJSON(), user: userJSON() },
    };
  };
  const issueJSON = (pr) => ({
    url: `${api()}/repos/${owner}/${name}/issues/${pr.number}`, id: pr.number, node_id: pr.nodeId,
    number: pr.number, title: pr.title, body: pr.body, state: pr.state, user: userJSON(),
    labels: pr.labels.map(labelJSON), html_url: `${repoURL()}/pull/${pr.number}`,
    pull_request: { url: `${api()}/repos/${owner}/${name}/pulls/${pr.number}`, html_url: `${repoURL()}/pull/${pr.number}` },
    created_at: pr.createdAt, updated_at: pr.updatedAt, closed_at: pr.closedAt,
  });
  const refJSON = (branch, oid) => ({
    ref: `refs/heads/${branch}`, node_id: `REF_${Buffer.from(branch).toString('base64url')}`,
    url: `${api()}/repos/${owner}/${name}/git/refs/heads/${branch}`,
    object: { sha: oid, type: 'commit', url: `${api()}/repos/${owner}/${name}/git/commits/${oid}` },
  });

  // ------------------------------------------------------------------------- GraphQL nodes

  const gitActorNode = (who) => ({
    __typename: 'GitActor', name: who.name, email: who.email, date: who.date, avatarUrl: avatarURL(who.email),
    // GitHub links a commit author to an account by e-mail address
    user: who.email === user.email ? userNode() : null,
  });
  const userNode = () => ({
    __typename: 'User', __implements: ['Actor', 'Node'], id: `U_${user.id}`, databaseId: user.id,
    login: user.login, name: user.name, email: user.email, avatarUrl: avatarURL(user.login), url: `${origin}/${user.login}`,
  });
  const connection = (items, { first, last } = {}) => {
    let nodes = items;
    if (first !== undefined && first !== null) nodes = nodes.slice(0, first);
    if (last !== undefined && last !== null) nodes = nodes.slice(-last || nodes.length);
    return { __typename: 'Connection', totalCount: items.length, nodes };
  };
  const commitNode = (oid) => {
    const meta = () => readCommit(oid);
    return {
      __typename: 'Commit', __implements: ['GitObject', 'Node'], oid, id: `C_${oid}`, url: `${repoURL()}/commit/${oid}`,
      message: async () => (await meta()).message,
      messageHeadline: async () => (await meta()).message.split('\n')[0],
      committedDate: async () => isoDate((await meta()).committer.date),
      authoredDate: async () => isoDate((await meta()).author.date),
      author: async () => gitActorNode((await meta()).author),
      committer: async () => gitActorNode((await meta()).committer),
      history: async ({ first, path } = {}) => {
        const args = ['log', '--format=%H', ...(first ? ['-n', String(first)] : []), oid, ...(path ? ['--', path] : [])];
        const oids = (await git(args)).split('\n').filter(Boolean);
        return { __typename: 'CommitHistoryConnection', totalCount: oids.length, nodes: oids.map(commitNode) };
      },
      file: async ({ path }) => {
        if (!path || path.startsWith('-')) return null;
        const out = (await git(['ls-tree', '-z', oid, '--', path])).split('\0')[0];
        if (!out) return null;
        const [meta2, p] = out.split('\t');
        const [mode, type, entryOid] = meta2.split(' ');
        return { __typename: 'TreeEntry', oid: entryOid, path: p, name: p.split('/').pop(), mode: Number.parseInt(mode, 8), type };
      },
      // Statuses are those posted (a deploy workflow's preview); nothing deploys or checks here.
      status: () => {
        const contexts = statuses.get(oid) ?? [];
        return contexts.length ? { __typename: 'Status', contexts: contexts.map((c) => ({ __typename: 'StatusContext', ...c })) } : null;
      },
      deployments: (args) => connection([], args),
      checkSuites: (args) => connection([], args),
    };
  };
  const blobNode = (oid) => {
    let content;
    const load = () => (content ??= readBlob(oid));
    return {
      __typename: 'Blob', __implements: ['GitObject', 'Node'], oid, id: `B_${oid}`,
      byteSize: async () => (await load()).length,
      isBinary: async () => isBinaryBuffer(await load()),
      isTruncated: async () => !isBinaryBuffer(await load()) && (await load()).length > GRAPHQL_TEXT_LIMIT,
      text: async () => {
        const buf = await load();
        return isBinaryBuffer(buf) ? null : buf.subarray(0, GRAPHQL_TEXT_LIMIT).toString('utf8');
      },
    };
  };
  const objectNode = async (oid) => {
    const type = await objectType(oid);
    if (type === 'commit') return commitNode(oid);
    if (type === 'blob') return blobNode(oid);
    if (type === 'tree') return { __typename: 'Tree', __implements: ['GitObject', 'Node'], oid, id: `T_${oid}` };
    return null;
  };
  const refNode = async (qualifiedName) => {
    if (typeof qualifiedName !== 'string' || !qualifiedName) return null;
    const full = qualifiedName.startsWith('refs/') ? qualifiedName : `refs/heads/${qualifiedName}`;
    const oid = await revParse(`${full}^{commit}`);
    if (!oid) return null;
    const [, prefix, short] = full.match(/^(refs\/(?:heads|tags)\/)(.*)$/) ?? [null, 'refs/', full.slice(5)];
    return { __typename: 'Ref', id: `REF_${Buffer.from(full).toString('base64url')}`, name: short, prefix, target: commitNode(oid) };
  };
  const prNode = (pr) => ({
    __typename: 'PullRequest', __implements: ['Node'], id: pr.nodeId, number: pr.number, title: pr.title, body: pr.body,
    url: `${repoURL()}/pull/${pr.number}`, state: pr.merged ? 'MERGED' : pr.state.toUpperCase(), isDraft: pr.draft,
    merged: pr.merged, isCrossRepository: false, createdAt: pr.createdAt, updatedAt: pr.updatedAt,
    headRefName: pr.head, baseRefName: pr.base, headRefOid: () => prHeadOid(pr),
    author: userNode(),
    labels: (args) => connection(pr.labels.map((l) => ({ __typename: 'Label', name: l, id: labelJSON(l).node_id, color: 'ededed' })), args),
    files: async (args) => {
      const files = await diffFiles(await prDiffBase(pr), await prHeadOid(pr));
      const changeType = { A: 'ADDED', D: 'DELETED', M: 'MODIFIED', R: 'RENAMED', C: 'COPIED', T: 'CHANGED' };
      return connection(files.map((f) => ({ __typename: 'PullRequestChangedFile', path: f.path, changeType: changeType[f.status] ?? 'MODIFIED' })), args);
    },
  });

  const repositoryNode = () => ({
    __typename: 'Repository', __implements: ['Node'], id: repoId, name, nameWithOwner: `${owner}/${name}`,
    defaultBranchRef: () => refNode(`refs/heads/${defaultBranch}`),
    ref: ({ qualifiedName }) => refNode(qualifiedName),
    object: async ({ oid, expression }) => {
      if (oid !== undefined) return isOid(oid) ? objectNode(oid) : null;
      // `branch:path` expressions; resolved against branches first, as GitHub does
      if (typeof expression !== 'string' || expression.startsWith('-')) return null;
      const [rev, ...rest] = expression.split(':');
      const target = rest.length ? `${isOid(rev) ? rev : `refs/heads/${rev}`}:${rest.join(':')}` : (isOid(rev) ? rev : `refs/heads/${rev}`);
      const found = await revParse(target);
      return found ? objectNode(found) : null;
    },
    pullRequests: async ({ states, labels: wanted, headRefName, baseRefName, first, last, orderBy } = {}) => {
      const stateOf = (pr) => (pr.merged ? 'MERGED' : pr.state.toUpperCase());
      const stateList = states === undefined || states === null ? null : [states].flat();
      let list = [...pulls.values()].filter((pr) =>
        (!stateList || stateList.includes(stateOf(pr))) &&
        (!wanted || [wanted].flat().some((l) => pr.labels.includes(l))) &&
        (!headRefName || pr.head === headRefName) && (!baseRefName || pr.base === baseRefName));
      const field = { UPDATED_AT: 'updatedAt', CREATED_AT: 'createdAt' }[orderBy?.field] ?? 'createdAt';
      list.sort((a, b) => (a[field] < b[field] ? -1 : a[field] > b[field] ? 1 : a.number - b.number));
      if (orderBy?.direction === 'DESC') list = list.reverse();
      return connection(list.map(prNode), { first, last });
    },
  });

  const findPRByNodeId = (id) => {
    const pr = [...pulls.values()].find((p) => p.nodeId === id);
    if (!pr) throw new GraphQLError(`Could not resolve to a node with the global id of '${id}'`, 'NOT_FOUND');
    return pr;
  };

  const queryRoot = () => ({
    __typename: 'Query',
    repository: ({ owner: o, name: n }) => {
      if (String(o).toLowerCase() !== owner.toLowerCase() || String(n).toLowerCase() !== name.toLowerCase()) {
        throw new GraphQLError(`Could not resolve to a Repository with the name '${o}/${n}'.`, 'NOT_FOUND');
      }
      return repositoryNode();
    },
  });

  const mutationRoot = () => ({
    __typename: 'Mutation',
    createCommitOnBranch: ({ input }) => serialize(async () => {
      const { branch: target = {}, expectedHeadOid, fileChanges = {}, message = {} } = input ?? {};
      const repoName = target.repositoryNameWithOwner ?? '';
      if (repoName.toLowerCase() !== `${owner}/${name}`.toLowerCase()) {
        throw new GraphQLError(`Could not resolve to a Repository with the name '${repoName}'.`, 'NOT_FOUND');
      }
      if (!expectedHeadOid) throw new GraphQLError("Argument 'expectedHeadOid' on InputObject 'CreateCommitOnBranchInput' is required.", 'INVALID');
      if (!message.headline) throw new GraphQLError("Argument 'headline' on InputObject 'CommitMessage' is required.", 'INVALID');
      const branch = String(target.branchName ?? '').replace(/^refs\/heads\//, '');
      const head = await branchHead(branch);
      if (!head) throw new GraphQLError(`A ref named "refs/heads/${branch}" does not exist in the repository.`, 'NOT_FOUND');
      // The guard against overwriting someone else's push: GitHub refuses a moved head outright
      if (head !== expectedHeadOid) {
        throw new GraphQLError(`Expected branch to point to "${expectedHeadOid}" but it did not. Pull and try again.`, 'STALE_DATA');
      }
      const oid = await buildCommit({
        parent: head,
        additions: fileChanges.additions ?? [],
        deletions: fileChanges.deletions ?? [],
        message: message.body ? `${message.headline}\n\n${message.body}` : message.headline,
      });
      await moveBranch(branch, oid, head, 'createCommitOnBranch');
      return { __typename: 'CreateCommitOnBranchPayload', commit: commitNode(oid), ref: await refNode(branch) };
    }),
    createRef: ({ input }) => serialize(async () => {
      const { repositoryId, name: refName, oid } = input ?? {};
      if (repositoryId !== repoId) throw new GraphQLError(`Could not resolve to a node with the global id of '${repositoryId}'`, 'NOT_FOUND');
      if (typeof refName !== 'string' || !refName.startsWith('refs/heads/') ||
        (await git(['check-ref-format', refName], { okCodes: [0, 1], raw: true })).code !== 0) {
        throw new GraphQLError(`Reference name "${refName}" is not valid`, 'UNPROCESSABLE');
      }
      const branch = refName.slice('refs/heads/'.length);
      if (await revParse(refName)) throw new GraphQLError(`A ref named "${refName}" already exists in the repository.`, 'UNPROCESSABLE');
      if (!isOid(oid) || (await objectType(oid)) !== 'commit') throw new GraphQLError('Object does not exist', 'UNPROCESSABLE');
      await moveBranch(branch, oid, ZERO_OID, 'createRef');
      return { __typename: 'CreateRefPayload', ref: await refNode(refName) };
    }),
    convertPullRequestToDraft: ({ input }) => serialize(async () => {
      const pr = findPRByNodeId(input?.pullRequestId);
      pr.draft = true;
      pr.updatedAt = isoDate(Date.now());
      return { __typename: 'ConvertPullRequestToDraftPayload', pullRequest: prNode(pr) };
    }),
    markPullRequestReadyForReview: ({ input }) => serialize(async () => {
      const pr = findPRByNodeId(input?.pullRequestId);
      pr.draft = false;
      pr.updatedAt = isoDate(Date.now());
      return { __typename: 'MarkPullRequestReadyForReviewPayload', pullRequest: prNode(pr) };
    }),
  });

  // ------------------------------------------------------------------------- HTTP plumbing

  const errorBody = (status, message, extra = {}) => ({ message, documentation_url: DOCS, status: String(status), ...extra });
  class HttpError extends Error {
    constructor(status, message, extra) { super(message); this.status = status; this.extra = extra; }
  }
  const notFound = () => new HttpError(404, 'Not Found');
  const unprocessable = (message, errors) => new HttpError(422, message, errors ? { errors } : undefined);

  const readBody = async (req) => {
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const text = Buffer.concat(chunks).toString('utf8');
    if (!text) return {};
    try {
      return JSON.parse(text);
    } catch {
      throw new HttpError(400, 'Problems parsing JSON');
    }
  };

  const tokenOf = (req) => {
    const m = /^(?:token|bearer)\s+(\S+)$/i.exec(req.headers.authorization ?? '');
    return m ? m[1] : null;
  };

  // ------------------------------------------------------------------------- REST handlers

  /** GET /user — the token's owner; Sveltia reads id, name, login, email, avatar_url, html_url. */
  const handleUser = async () => ({ status: 200, body: userJSON() });

  /** GET /repos/:o/:r/collaborators/:login — 204 when the user can write, 404 otherwise. */
  const handleCollaborator = async ({ params }) => {
    if (params[0].toLowerCase() !== user.login.toLowerCase()) throw notFound();
    return { status: 204 };
  };

  /** GET /repos/:o/:r/git/trees/:ref?recursive=1 */
  const handleTree = async ({ params, query }) => {
    const ref = params[0];
    const commit = await resolveCommit(ref);
    const treeOid = commit ? await revParse(`${commit}^{tree}`) : (isOid(ref) && (await objectType(ref)) === 'tree' ? ref : null);
    if (!treeOid) throw notFound();
    const recursive = query.has('recursive') && !['0', 'false'].includes(query.get('recursive'));
    const out = await git(['ls-tree', '-l', '-z', ...(recursive ? ['-r', '-t'] : []), treeOid]);
    const tree = out.split('\0').filter(Boolean).map((line) => {
      const [meta, path] = line.split('\t');
      const [mode, type, sha, size] = meta.split(/\s+/);
      const base = `${api()}/repos/${owner}/${name}/git/${type === 'tree' ? 'trees' : 'blobs'}/${sha}`;
      return type === 'blob' ? { path, mode, type, sha, size: Number(size), url: base } : { path, mode, type, sha, url: base };
    });
    return { status: 200, body: { sha: treeOid, url: `${api()}/repos/${owner}/${name}/git/trees/${treeOid}`, tree, truncated: false } };
  };

  /** GET /repos/:o/:r/git/blobs/:sha — JSON with base64 content, or the bytes with the raw media type. */
  const handleBlob = async ({ params, req }) => {
    const sha = params[0];
    if (!isOid(sha) || (await objectType(sha)) !== 'blob') throw notFound();
    const buf = await readBlob(sha);
    if (/application\/vnd\.github(?:\.v3)?\.raw/.test(req.headers.accept ?? '')) {
      // Binary blobs come back as octet-stream; Sveltia reads anything else as text (e.g. SVG)
      return { status: 200, raw: buf, type: isBinaryBuffer(buf) ? 'application/octet-stream' : 'text/plain; charset=utf-8' };
    }
    const content = buf.toString('base64').replace(/.{60}/g, '$&\n');
    return { status: 200, body: { sha, node_id: `B_${sha}`, size: buf.length, url: `${api()}/repos/${owner}/${name}/git/blobs/${sha}`, content: content.endsWith('\n') || !content ? content : `${content}\n`, encoding: 'base64' } };
  };

  /** DELETE|PATCH /repos/:o/:r/git/refs/heads/:branch */
  const handleBranchRef = ({ params, method, body }) => serialize(async () => {
    const branch = params[0];
    const head = await branchHead(branch);
    if (method === 'DELETE') {
      if (!head) throw unprocessable('Reference does not exist');
      if (branch === defaultBranch) throw unprocessable('Cannot delete the default branch');
      await git(['update-ref', '-d', `refs/heads/${branch}`, head]);
      // GitHub closes an open pull request whose head branch is deleted
      for (const pr of pulls.values()) {
        if (pr.state === 'open' && pr.head === branch) Object.assign(pr, { state: 'closed', headOid: head, closedAt: isoDate(Date.now()), updatedAt: isoDate(Date.now()) });
      }
      return { status: 204 };
    }
    // PATCH: update the reference, fast-forward only unless `force`
    const { sha, force = false } = body;
    if (!head) throw unprocessable('Reference does not exist');
    if (!isOid(sha) || (await objectType(sha)) !== 'commit') throw unprocessable('Object does not exist');
    if (!force) {
      const ff = (await git(['merge-base', '--is-ancestor', head, sha], { okCodes: [0, 1], raw: true })).code === 0;
      if (!ff) throw unprocessable('Update is not a fast forward');
    }
    await moveBranch(branch, sha, head, 'update ref');
    return { status: 200, body: refJSON(branch, sha) };
  });

  const getPR = (n) => {
    const pr = pulls.get(Number(n));
    if (!pr) throw notFound();
    return pr;
  };

  /** POST /repos/:o/:r/pulls — Sveltia sends title, head, base, draft, body. */
  const handleCreatePull = ({ body }) => serialize(async () => {
    const { title, body: prBody = null, draft = false } = body;
    const head = String(body.head ?? '').replace(new RegExp(`^${owner}:`, 'i'), '');
    const base = String(body.base ?? '');
    if (!title) throw unprocessable('Validation Failed', [{ resource: 'PullRequest', field: 'title', code: 'missing_field' }]);
    const headOid = await branchHead(head);
    if (!headOid) throw unprocessable('Validation Failed', [{ resource: 'PullRequest', field: 'head', code: 'invalid' }]);
    const baseOid = await branchHead(base);
    if (!baseOid) throw unprocessable('Validation Failed', [{ resource: 'PullRequest', field: 'base', code: 'invalid' }]);
    const ahead = Number((await git(['rev-list', '--count', `${baseOid}..${headOid}`])).trim());
    if (!ahead) throw unprocessable('Validation Failed', [{ resource: 'PullRequest', code: 'custom', message: `No commits between ${base} and ${head}` }]);
    if ([...pulls.values()].some((p) => p.state === 'open' && p.head === head && p.base === base)) {
      throw unprocessable('Validation Failed', [{ resource: 'PullRequest', code: 'custom', message: `A pull request already exists for ${owner}:${head}.` }]);
    }
    const now = isoDate(Date.now());
    const number = nextNumber++;
    const pr = {
      number, nodeId: `PR_${randomUUID().replace(/-/g, '').slice(0, 16)}`, title, body: prBody, head, base,
      state: 'open', draft: !!draft, merged: false, mergedAt: null, mergeCommitOid: null, mergeBaseOid: null,
      labels: [], createdAt: now, updatedAt: now, closedAt: null, headOid,
    };
    pulls.set(number, pr);
    return { status: 201, body: await prJSON(pr) };
  });

  /** GET /repos/:o/:r/pulls (test helper; Sveltia lists PRs over GraphQL) */
  const handleListPulls = async ({ query }) => {
    const state = query.get('state') ?? 'open';
    const head = query.get('head')?.replace(/^[^:]*:/, '');
    const list = [...pulls.values()].filter((p) => (state === 'all' || p.state === state) && (!head || p.head === head)).reverse();
    return { status: 200, body: await Promise.all(list.map(prJSON)) };
  };

  /** GET|PATCH /repos/:o/:r/pulls/:n — Sveltia PATCHes {state: closed|open}. */
  const handlePull = ({ params, method, body }) => serialize(async () => {
    const pr = getPR(params[0]);
    if (method === 'PATCH') {
      if (body.state === 'open' && pr.state === 'closed') {
        if (pr.merged) throw unprocessable('Validation Failed', [{ resource: 'PullRequest', code: 'custom', message: 'state cannot be changed. The pull request has been merged.' }]);
        if (!(await branchHead(pr.head))) throw unprocessable('Validation Failed', [{ resource: 'PullRequest', code: 'custom', message: 'state cannot be changed. The head branch has been deleted.' }]);
        Object.assign(pr, { state: 'open', closedAt: null });
      } else if (body.state === 'closed' && pr.state === 'open') {
        Object.assign(pr, { state: 'closed', closedAt: isoDate(Date.now()), headOid: await prHeadOid(pr) });
      }
      if (typeof body.title === 'string') pr.title = body.title;
      if (typeof body.body === 'string') pr.body = body.body;
      pr.updatedAt = isoDate(Date.now());
    }
    return { status: 200, body: await prJSON(pr) };
  });

  /** GET /repos/:o/:r/pulls/:n/files — filename, status, previous_filename. */
  const handlePullFiles = async ({ params, query }) => {
    const pr = getPR(params[0]);
    const statusName = { A: 'added', D: 'removed', M: 'modified', R: 'renamed', C: 'copied', T: 'changed' };
    const files = await diffFiles(await prDiffBase(pr), await prHeadOid(pr));
    const perPage = Math.min(Number(query.get('per_page') ?? 30) || 30, 100);
    return {
      status: 200,
      body: files.slice(0, perPage).map((f) => ({
        sha: null, filename: f.path, status: statusName[f.status] ?? 'modified',
        ...(f.previous ? { previous_filename: f.previous } : {}),
      })),
    };
  };

  /** PUT /repos/:o/:r/pulls/:n/merge — a real merge commit (merge) or a single commit (squash). */
  const handleMerge = ({ params, body }) => serialize(async () => {
    const pr = getPR(params[0]);
    const { merge_method: method = 'merge', commit_title: title, commit_message: message, sha } = body;
    if (pr.state !== 'open') throw new HttpError(405, 'Pull Request is not mergeable');
    if (pr.draft) throw new HttpError(405, 'Pull Request is still a draft');
    const head = await branchHead(pr.head);
    const base = await branchHead(pr.base);
    if (!head || !base) throw new HttpError(405, 'Pull Request is not mergeable');
    if (sha && sha !== head) throw new HttpError(409, 'Head branch was modified. Review and try the merge again.');
    if (!['merge', 'squash'].includes(method)) {
      // `rebase` is not something Sveltia asks for; refuse visibly rather than fake it
      unknown.push({ method: 'PUT', path: `merge_method=${method}`, reason: 'merge method not implemented' });
      throw new HttpError(405, `Merge method ${method} is not supported by the stand-in`);
    }
    const merged = await git(['merge-tree', '--write-tree', base, head], { okCodes: [0, 1], raw: true });
    if (merged.code !== 0) throw new HttpError(405, 'Pull Request is not mergeable');
    const tree = merged.stdout.toString().split('\n')[0].trim();
    const mergeBase = (await git(['merge-base', base, head])).trim();
    const headline = title ?? (method === 'merge' ? `Merge pull request #${pr.number} from ${owner}/${pr.head}` : `${pr.title} (#${pr.number})`);
    const text = message ?? (title ? '' : pr.title);
    const date = isoDate(Date.now());
    const parents = method === 'merge' ? ['-p', base, '-p', head] : ['-p', base];
    const commit = (await git(['commit-tree', tree, ...parents, '-F', '-'], { input: text ? `${headline}\n\n${text}` : headline, env: gitIdentity(user, date) })).trim();
    await moveBranch(pr.base, commit, base, `merge pull request #${pr.number}`);
    Object.assign(pr, { state: 'closed', merged: true, mergedAt: date, closedAt: date, updatedAt: date, mergeCommitOid: commit, headOid: head, mergeBaseOid: mergeBase });
    return { status: 200, body: { sha: commit, merged: true, message: 'Pull Request successfully merged' } };
  });

  /** GET|PATCH /repos/:o/:r/issues/:n — a PR's labels; PATCH {labels} replaces them. */
  const handleIssue = ({ params, method, body }) => serialize(async () => {
    const pr = getPR(params[0]);
    if (method === 'PATCH') {
      if (Array.isArray(body.labels)) pr.labels = [...new Set(body.labels.map((l) => (typeof l === 'string' ? l : l.name)))];
      pr.updatedAt = isoDate(Date.now());
    }
    return { status: 200, body: issueJSON(pr) };
  });

  /** POST /repos/:o/:r/issues/:n/labels {labels} — adds, and answers with all the labels. */
  const handleAddLabels = ({ params, body }) => serialize(async () => {
    const pr = getPR(params[0]);
    const add = (Array.isArray(body) ? body : body.labels ?? []).map((l) => (typeof l === 'string' ? l : l.name));
    pr.labels = [...new Set([...pr.labels, ...add])];
    pr.updatedAt = isoDate(Date.now());
    return { status: 200, body: pr.labels.map(labelJSON) };
  });

  /** POST /repos/:o/:r/dispatches — nothing runs Actions here; the event is recorded. */
  const handleDispatch = async ({ body }) => {
    if (!body.event_type) throw unprocessable('Invalid request.\n\n"event_type" wasn\'t supplied.');
    dispatches.push(body);
    return { status: 204 };
  };

  /** POST /repos/:o/:r/statuses/:sha {state, target_url, description, context} */
  const handleStatus = async ({ params, body }) => {
    const [sha] = params;
    if (!/^[0-9a-f]{40}$/.test(sha)) throw unprocessable('No commit found for SHA: ' + sha);
    if (!['error', 'failure', 'pending', 'success'].includes(body.state)) throw unprocessable('Validation Failed');
    const context = body.context ?? 'default';
    const entry = { context, state: body.state.toUpperCase(), targetUrl: body.target_url ?? null, description: body.description ?? null };
    statuses.set(sha, [...(statuses.get(sha) ?? []).filter((c) => c.context !== context), entry]);
    return { status: 201, body: { id: statuses.size, state: body.state, context, target_url: entry.targetUrl, description: entry.description } };
  };

  /** POST /api/graphql */
  const handleGraphQL = async ({ body, call }) => {
    const { query, variables = {}, operationName } = body;
    if (typeof query !== 'string') return { status: 200, body: { errors: [{ message: 'A query attribute must be specified and must be a string.' }] } };
    let ops;
    try {
      ops = parseDocument(query);
    } catch (ex) {
      if (!(ex instanceof GraphQLError)) throw ex;
      return { status: 200, body: { errors: [{ message: ex.message, locations: [] }] } };
    }
    const op = operationName ? ops.find((o) => o.opName === operationName) : ops[0];
    if (!op) return { status: 200, body: { errors: [{ message: `No operation named "${operationName}"` }] } };
    // e.g. `query repository{ref}` or `mutation createCommitOnBranch`: the top-level fields and,
    // for `repository`, which of its fields were asked for (aliases folded), so a log reads well
    const uniq = (list) => list.filter((v, k, arr) => arr.indexOf(v) === k);
    const describe = (sel) => (sel.name === 'repository' && sel.selections
      ? `repository{${uniq(sel.selections.map((c) => c.name ?? `...on ${c.on}`)).join(',')}}`
      : sel.name ?? `...on ${sel.on}`);
    call.operation = `${op.opType} ${uniq(op.selections.map(describe)).join(',')}`;
    if (op.opType === 'subscription') {
      unknown.push({ method: 'POST', path: call.path, operation: call.operation, reason: 'subscription' });
      return { status: 200, body: { errors: [{ message: 'Subscriptions are not supported' }] } };
    }
    const root = op.opType === 'mutation' ? mutationRoot() : queryRoot();
    const result = await execute(op, root, variables ?? {}, {
      onUnknownField: (field) => unknown.push({ method: 'POST', path: call.path, operation: call.operation, field, reason: 'GraphQL field not implemented' }),
    });
    if (result.errors) call.errors = result.errors.map((e) => e.message);
    return { status: 200, body: result };
  };

  // Routes below /repos/:owner/:name. Path parameters are captured URI-decoded.
  const seg = '([^/]+)';
  const repoRoutes = [
    ['GET', new RegExp(`^/collaborators/${seg}$`), handleCollaborator],
    ['GET', /^\/git\/trees\/(.+)$/, handleTree],
    ['GET', new RegExp(`^/git/blobs/${seg}$`), handleBlob],
    ['DELETE', /^\/git\/refs\/heads\/(.+)$/, handleBranchRef],
    ['PATCH', /^\/git\/refs\/heads\/(.+)$/, handleBranchRef],
    ['POST', /^\/pulls$/, handleCreatePull],
    ['POST', new RegExp(`^/statuses/${seg}$`), handleStatus],
    ['GET', /^\/pulls$/, handleListPulls],
    ['GET', /^\/pulls\/(\d+)$/, handlePull],
    ['PATCH', /^\/pulls\/(\d+)$/, handlePull],
    ['GET', /^\/pulls\/(\d+)\/files$/, handlePullFiles],
    ['PUT', /^\/pulls\/(\d+)\/merge$/, handleMerge],
    ['GET', /^\/issues\/(\d+)$/, handleIssue],
    ['PATCH', /^\/issues\/(\d+)$/, handleIssue],
    ['POST', /^\/issues\/(\d+)\/labels$/, handleAddLabels],
    ['POST', /^\/dispatches$/, handleDispatch],
  ];

  const route = (method, path) => {
    if (method === 'GET' && path === '/user') return { handler: handleUser, params: [] };
    const m = /^\/repos\/([^/]+)\/([^/]+)(\/.*)$/.exec(path);
    if (!m) return null;
    // GitHub matches owner and repository names case-insensitively; anything else is not ours
    if (decodeURIComponent(m[1]).toLowerCase() !== owner.toLowerCase() || decodeURIComponent(m[2]).toLowerCase() !== name.toLowerCase()) return null;
    for (const [verb, re, handler] of repoRoutes) {
      const r = verb === method && re.exec(m[3]);
      if (r) return { handler, params: r.slice(1).map(decodeURIComponent) };
    }
    return null;
  };

  const send = (res, status, { body, raw, type, headers = {} } = {}) => {
    const h = {
      'Access-Control-Allow-Origin': '*',
      'Access-Control-Expose-Headers': CORS_EXPOSE_HEADERS,
      'X-GitHub-Media-Type': 'github.v3; format=json',
      ...headers,
    };
    if (raw !== undefined) {
      res.writeHead(status, { ...h, 'Content-Type': type, 'Content-Length': raw.length });
      res.end(raw);
    } else if (body !== undefined && status !== 204) {
      const data = Buffer.from(JSON.stringify(body));
      res.writeHead(status, { ...h, 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': data.length });
      res.end(data);
    } else {
      res.writeHead(status, h);
      res.end();
    }
  };

  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url, 'http://127.0.0.1');
    const call = { method: req.method, path: url.pathname + url.search };
    calls.push(call);
    try {
      if (url.pathname.startsWith('/avatars/')) {
        call.status = 200;
        return send(res, 200, { raw: AVATAR_PNG, type: 'image/png' });
      }
      // CORS preflight: answered without authentication, as GitHub does
      if (req.method === 'OPTIONS') {
        call.status = 204;
        call.requestedHeaders = req.headers['access-control-request-headers'];
        return send(res, 204, { headers: {
          'Access-Control-Allow-Methods': 'GET, POST, PATCH, PUT, DELETE',
          'Access-Control-Allow-Headers': CORS_ALLOW_HEADERS,
          'Access-Control-Max-Age': '86400',
        } });
      }
      const isGraphQL = url.pathname === '/api/graphql' || url.pathname === '/graphql';
      const restPath = url.pathname.replace(/^\/api\/v3(?=\/)/, '');
      const match = isGraphQL ? (req.method === 'POST' ? { handler: handleGraphQL, params: [] } : null) : route(req.method, restPath);
      const given = tokenOf(req);
      if (given !== token) {
        call.status = 401;
        if (isGraphQL && !given) return send(res, 401, { body: { message: 'This endpoint requires you to be authenticated.', documentation_url: 'https://docs.github.com/graphql/guides/forming-calls-with-graphql#authenticating-with-graphql' } });
        return send(res, 401, { body: errorBody(401, given ? 'Bad credentials' : 'Requires authentication') });
      }
      if (!match) {
        unknown.push({ method: req.method, path: call.path, reason: 'REST endpoint not implemented' });
        call.status = 404;
        return send(res, 404, { body: errorBody(404, 'Not Found') });
      }
      const body = ['POST', 'PUT', 'PATCH'].includes(req.method) ? await readBody(req) : {};
      const out = await match.handler({ req, method: req.method, params: match.params, query: url.searchParams, body, call });
      call.status = out.status;
      return send(res, out.status, out);
    } catch (ex) {
      if (ex instanceof HttpError) {
        call.status = ex.status;
        return send(res, ex.status, { body: errorBody(ex.status, ex.message, ex.extra) });
      }
      call.status = 500;
      call.error = ex.message;
      warnings.push(`${req.method} ${call.path}: ${ex.stack}`);
      return send(res, 500, { body: errorBody(500, `Stand-in error: ${ex.message}`) });
    }
  });

  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  origin = `http://127.0.0.1:${server.address().port}`;

  return {
    apiRoot: origin, // what to put in the CMS config as `api_root`
    url: `${origin}/api/v3`, // the REST base Sveltia derives from it
    graphqlUrl: `${origin}/api/graphql`, // the GraphQL URL Sveltia derives from it
    calls,
    unknown,
    warnings,
    dispatches,
    statuses,
    pulls,
    stop: () => new Promise((resolve) => {
      server.closeAllConnections?.();
      server.close(() => resolve());
    }),
  };
}
