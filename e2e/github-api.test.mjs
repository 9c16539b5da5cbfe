// Exercises the stand-in the way Sveltia CMS 0.221.1's GitHub backend does: the same paths, headers
// and GraphQL documents (copied from the backend's source, lib/services/backends/git/github/*.js),
// normalised the way its `fetchGraphQL` normalises them. Run: node --test github-api.test.mjs

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';

import { startGitHub } from './github-api.mjs';

const OWNER = 'acme';
const REPO = 'site';
const TOKEN = 'ghp_standin_test_token';
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

let dir;
let gh;
const git = (...args) => execFileSync('git', args, { cwd: dir, encoding: 'utf8' }).trim();

// ---------------------------------------------------------------- Sveltia's request helpers
// shared/api.js fetchAPI + utils/networking.js sendRequest, minus the token refresh

const fetchAPI = async (path, { method = 'GET', headers = {}, body = null, responseType = 'json', token = TOKEN } = {}) => {
  const h = new Headers(headers);
  if (token !== null) h.set('Authorization', `token ${token}`);
  if (responseType === 'json') h.set('Accept', 'application/json');
  if (body && typeof body === 'object') {
    h.set('Content-Type', 'application/json');
    body = JSON.stringify(body);
  }
  const res = await fetch(`${gh.url}${path}`, { method, headers: h, body, cache: 'no-cache' });
  if (responseType === 'raw') return res;
  if (res.ok && responseType === 'text') return res.text();
  const json = await res.json();
  if (!res.ok) throw Object.assign(new Error(json.message), { status: res.status, json });
  return json;
};

const graphqlVars = { owner: OWNER, repo: REPO, branch: 'main' };

/** shared/api.js fetchGraphQL: same normalisation and common variables; returns the whole body. */
const postGraphQL = async (query, variables = {}) => {
  query = query.replace(/\n\s*/g, ' ');
  Object.entries(graphqlVars).forEach(([key, value]) => {
    if (query.includes(`$${key}`)) variables[key] ??= value;
  });
  const res = await fetch(gh.graphqlUrl, {
    method: 'POST',
    headers: { Authorization: `token ${TOKEN}`, Accept: 'application/json', 'Content-Type': 'application/json' },
    body: JSON.stringify({ query, variables }),
  });
  assert.equal(res.status, 200);
  return res.json();
};
const fetchGraphQL = async (query, variables) => {
  const result = await postGraphQL(query, variables);
  assert.equal(result.errors, undefined, JSON.stringify(result.errors));
  return result.data;
};

// ---------------------------------------------------------------- documents copied from Sveltia

const FETCH_DEFAULT_BRANCH_NAME_QUERY = `
  query($owner: String!, $repo: String!) {
    repository(owner: $owner, name: $repo) {
      defaultBranchRef {
        name
      }
    }
  }
`;

const FETCH_LAST_COMMIT_QUERY = `
  query($owner: String!, $repo: String!, $branch: String!) {
    repository(owner: $owner, name: $repo) {
      ref(qualifiedName: $branch) {
        target {
          ... on Commit {
            history(first: 1) {
              nodes {
                oid
                message
              }
            }
          }
        }
      }
    }
  }
`;

// github/graphql.js buildAliasedQuery
const buildAliasedQuery = (parts, alias, { useBranch = false } = {}) => {
  const innerQuery = parts.map(({ index, fragment }) => `${alias}_${index}: ${fragment}`).join('\n');
  const branchVar = useBranch ? ', $branch: String!' : '';
  return `
    query($owner: String!, $repo: String!${branchVar}) {
      repository(owner: $owner, name: $repo) {
        ${innerQuery}
      }
    }
  `;
};

// github/files.js
const getFileContentsFragment = ({ sha }) => `object(oid: ${JSON.stringify(sha)}) { ... on Blob { text isTruncated } }`;
const getFileMetadataFragment = ({ path }) => `
  ref(qualifiedName: $branch) {
    target {
      ... on Commit {
        history(first: 1, path: ${JSON.stringify(path)}) {
          nodes {
            author {
              name
              email
              user {
                id: databaseId
                login
              }
            }
            committedDate
          }
        }
      }
    }
  }
`;

// github/commits.js createCommit
const commitQuery = (additions) => {
  const fileShaQuery = additions.map(({ index, path }) => `file_${index}: file(path: ${JSON.stringify(path)}) { oid }`).join(' ');
  return `
    mutation($input: CreateCommitOnBranchInput!) {
      createCommitOnBranch(input: $input) {
        commit {
          oid
          committedDate
          ${fileShaQuery}
        }
      }
    }
  `;
};
const commitInput = ({ branch = 'main', expectedHeadOid, additions = [], deletions = [], message }) => ({
  branch: { repositoryNameWithOwner: `${OWNER}/${REPO}`, branchName: branch },
  expectedHeadOid,
  fileChanges: { additions: additions.map(({ path, contents }) => ({ path, contents })), deletions },
  message: { headline: message },
});
const b64 = (s) => Buffer.from(s).toString('base64');

// github/deployment.js fetchBranchHeadSHA and the combined deployment selection
const FETCH_BRANCH_HEAD_QUERY = `
      query($owner: String!, $repo: String!, $branch: String!) {
        repository(owner: $owner, name: $repo) {
          ref(qualifiedName: $branch) {
            target {
              ... on Commit {
                oid
              }
            }
          }
        }
      }
    `;
const DEPLOYMENT_SELECTION = [
  'status { contexts { context state targetUrl description } }',
  `deployments(
      last: 10
      orderBy: { field: CREATED_AT, direction: ASC }
    ) {
      nodes {
        environment
        latestStatus {
          state
          environmentUrl
          description
        }
      }
    }`,
  `checkSuites(last: 10) {
      nodes {
        checkRuns(last: 20) {
          nodes {
            name
            status
            conclusion
            detailsUrl
            summary
          }
        }
      }
    }`,
].join('\n');

// github/workflow.js
const STATUS_LABELS = ['sveltia-cms/', 'netlify-cms/', 'decap-cms/'].flatMap((p) =>
  ['draft', 'pending_review', 'pending_publish', 'pending_deletion'].map((s) => `${p}${s}`));
const getFetchPullRequestsQuery = () => `
  query($owner: String!, $repo: String!) {
    repository(owner: $owner, name: $repo) {
      pullRequests(
        states: OPEN
        labels: ${JSON.stringify(STATUS_LABELS)}
        first: ${100}
        orderBy: { field: UPDATED_AT, direction: DESC }
      ) {
        nodes {
          id
          number
          title
          url
          isDraft
          isCrossRepository
          createdAt
          updatedAt
          headRefName
          headRefOid
          author {
            login
            avatarUrl
            ... on User {
              name
              email
              databaseId
            }
          }
          labels(first: ${100}) {
            nodes {
              name
            }
          }
          files(first: ${100}) {
            nodes {
              path
              changeType
            }
          }
        }
      }
    }
  }
`;
const FETCH_BRANCH_BASE_QUERY = `
  query(
    $forkOwner: String!
    $forkRepo: String!
    $owner: String!
    $repo: String!
    $branch: String!
  ) {
    fork: repository(owner: $forkOwner, name: $forkRepo) {
      id
    }
    base: repository(owner: $owner, name: $repo) {
      ref(qualifiedName: $branch) {
        target {
          oid
        }
      }
    }
  }
`;
const CREATE_REF_MUTATION = `
  mutation($input: CreateRefInput!) {
    createRef(input: $input) {
      ref {
        name
      }
    }
  }
`;
const FETCH_OPEN_PULL_REQUEST_COUNT_QUERY = `
  query($owner: String!, $repo: String!, $branch: String!) {
    repository(owner: $owner, name: $repo) {
      pullRequests(headRefName: $branch, states: OPEN, first: 1) {
        totalCount
      }
    }
  }
`;
const draftStateMutation = (isDraft) => `
      mutation($input: ${isDraft ? 'ConvertPullRequestToDraftInput' : 'MarkPullRequestReadyForReviewInput'}!) {
        ${isDraft ? 'convertPullRequestToDraft' : 'markPullRequestReadyForReview'}(input: $input) {
          pullRequest {
            isDraft
          }
        }
      }
    `;
const pullRequestFileFragment = (branch, path) => `
      object(expression: ${JSON.stringify(`${branch}:${path}`)}) {
        ... on Blob {
          oid
          byteSize
          isBinary
          isTruncated
          text
        }
      }
    `;

// ---------------------------------------------------------------- fixture

const lastCommit = async (branch) => {
  const data = await fetchGraphQL(FETCH_LAST_COMMIT_QUERY, branch ? { branch } : {});
  return data.repository.ref.target.history.nodes[0];
};

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gh-standin-test-'));
  git('init', '-q', '-b', 'main');
  git('config', 'user.name', 'Fixture');
  git('config', 'user.email', 'fixture@example.com');
  mkdirSync(join(dir, 'content/pages/insights'), { recursive: true });
  mkdirSync(join(dir, 'public/images'), { recursive: true });
  writeFileSync(join(dir, 'content/pages/index.yaml'), 'title: Home\ndescription: Welcome\n');
  writeFileSync(join(dir, 'content/pages/insights/a.md'), '---\ntitle: A\n---\nBody of A\n');
  writeFileSync(join(dir, 'public/images/x.png'), PNG);
  git('add', '-A');
  git('commit', '-q', '-m', 'initial');
  gh = await startGitHub({ repoDir: dir, owner: OWNER, name: REPO, token: TOKEN });
});

after(async () => {
  await gh?.stop();
  rmSync(dir, { recursive: true, force: true });
});

// ---------------------------------------------------------------- tests

describe('authentication and sign-in', () => {
  test('a request without a token, or with a wrong one, gets 401 like GitHub', async () => {
    const none = await fetch(`${gh.url}/user`);
    assert.equal(none.status, 401);
    assert.equal((await none.json()).message, 'Requires authentication');
    const wrong = await fetch(`${gh.url}/repos/${OWNER}/${REPO}/git/trees/main?recursive=1`, { headers: { Authorization: 'token nope' } });
    assert.equal(wrong.status, 401);
    assert.equal((await wrong.json()).message, 'Bad credentials');
    const gql = await fetch(gh.graphqlUrl, { method: 'POST', body: '{"query":"{ __typename }"}' });
    assert.equal(gql.status, 401);
  });

  test('GET /user and the collaborator check', async () => {
    const me = await fetchAPI('/user');
    assert.equal(me.login, 'editor');
    for (const key of ['id', 'name', 'email', 'avatar_url', 'html_url']) assert.ok(me[key], key);
    const ok = await fetchAPI(`/repos/${OWNER}/${REPO}/collaborators/${encodeURIComponent(me.login)}`, { headers: { Accept: 'application/json' }, responseType: 'raw' });
    assert.equal(ok.status, 204);
    const stranger = await fetchAPI(`/repos/${OWNER}/${REPO}/collaborators/someone-else`, { responseType: 'raw' });
    assert.equal(stranger.status, 404);
  });

  test('CORS: preflight answered, Authorization allowed, origin open', async () => {
    const res = await fetch(`${gh.url}/user`, {
      method: 'OPTIONS',
      headers: { Origin: 'http://127.0.0.1:9', 'Access-Control-Request-Method': 'GET', 'Access-Control-Request-Headers': 'authorization,content-type' },
    });
    assert.equal(res.status, 204);
    assert.equal(res.headers.get('access-control-allow-origin'), '*');
    assert.match(res.headers.get('access-control-allow-headers'), /Authorization/);
    assert.match(res.headers.get('access-control-allow-headers'), /Content-Type/);
    const me = await fetch(`${gh.url}/user`, { headers: { Authorization: `token ${TOKEN}`, Origin: 'http://127.0.0.1:9' } });
    assert.equal(me.headers.get('access-control-allow-origin'), '*');
  });
});

describe('reading the repository', () => {
  test('default branch and last commit', async () => {
    const data = await fetchGraphQL(FETCH_DEFAULT_BRANCH_NAME_QUERY);
    assert.equal(data.repository.defaultBranchRef.name, 'main');
    const head = await lastCommit();
    assert.equal(head.oid, git('rev-parse', 'main'));
    assert.equal(head.message, 'initial');
    const sha = (await fetchGraphQL(FETCH_BRANCH_HEAD_QUERY)).repository.ref.target.oid;
    assert.equal(sha, head.oid);
  });

  test('the recursive tree lists the files', async () => {
    const { hash } = { hash: (await lastCommit()).oid };
    const result = await fetchAPI(`/repos/${OWNER}/${REPO}/git/trees/${hash}?recursive=1`);
    const blobs = result.tree.filter(({ type }) => type === 'blob');
    assert.deepEqual(blobs.map((b) => b.path).sort(), ['content/pages/index.yaml', 'content/pages/insights/a.md', 'public/images/x.png']);
    const png = blobs.find((b) => b.path === 'public/images/x.png');
    assert.equal(png.size, PNG.length);
    assert.equal(png.sha, git('rev-parse', 'main:public/images/x.png'));
    // A branch name works too, as on GitHub
    assert.equal((await fetchAPI(`/repos/${OWNER}/${REPO}/git/trees/main?recursive=1`)).sha, git('rev-parse', 'main^{tree}'));
  });

  test('a blob reads back: base64 JSON, raw text, raw binary', async () => {
    const sha = git('rev-parse', 'main:content/pages/index.yaml');
    const json = await fetchAPI(`/repos/${OWNER}/${REPO}/git/blobs/${sha}`);
    assert.equal(json.encoding, 'base64');
    assert.equal(Buffer.from(json.content, 'base64').toString(), 'title: Home\ndescription: Welcome\n');
    const text = await fetchAPI(`/repos/${OWNER}/${REPO}/git/blobs/${sha}`, { headers: { Accept: 'application/vnd.github.raw' }, responseType: 'text' });
    assert.equal(text, 'title: Home\ndescription: Welcome\n');
    const pngSha = git('rev-parse', 'main:public/images/x.png');
    const raw = await fetchAPI(`/repos/${OWNER}/${REPO}/git/blobs/${pngSha}`, { headers: { Accept: 'application/vnd.github.raw' }, responseType: 'raw' });
    assert.equal(raw.headers.get('content-type'), 'application/octet-stream');
    assert.deepEqual(Buffer.from(await raw.arrayBuffer()), PNG);
  });

  test('batched GraphQL: file contents and last-commit metadata', async () => {
    const files = [
      { path: 'content/pages/index.yaml', sha: git('rev-parse', 'main:content/pages/index.yaml') },
      { path: 'content/pages/insights/a.md', sha: git('rev-parse', 'main:content/pages/insights/a.md') },
    ];
    const parts = (getFragment) => files.map((f, index) => ({ index, fragment: getFragment(f) }));
    const contents = await fetchGraphQL(buildAliasedQuery(parts(getFileContentsFragment), 'content'), {});
    assert.deepEqual(contents.repository.content_0, { text: 'title: Home\ndescription: Welcome\n', isTruncated: false });
    assert.equal(contents.repository.content_1.text, '---\ntitle: A\n---\nBody of A\n');
    const meta = await fetchGraphQL(buildAliasedQuery(parts(getFileMetadataFragment), 'commit', { useBranch: true }), {});
    const node = meta.repository.commit_1.target.history.nodes[0];
    assert.equal(node.author.name, 'Fixture');
    assert.equal(node.author.user, null); // the fixture author is not the token's user
    assert.match(node.committedDate, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });

  test('deployment lookup answers with nothing to report', async () => {
    const sha = git('rev-parse', 'main');
    const query = buildAliasedQuery([{ index: 0, fragment: `object(oid: ${JSON.stringify(sha)}) { ... on Commit { ${DEPLOYMENT_SELECTION} } }` }], 'commit');
    const data = await fetchGraphQL(query, {});
    assert.deepEqual(data.repository.commit_0, { status: null, deployments: { nodes: [] }, checkSuites: { nodes: [] } });
  });
});

describe('saving to the configured branch', () => {
  test('createCommitOnBranch with one changed file makes one commit on main', async () => {
    const before = git('rev-parse', 'main');
    const additions = [{ index: 0, path: 'content/pages/index.yaml', contents: b64('title: Home, edited\ndescription: Welcome\n') }];
    const data = await fetchGraphQL(commitQuery(additions), {
      input: commitInput({ expectedHeadOid: before, additions, message: 'Update Pages “index”' }),
    });
    const { commit } = data.createCommitOnBranch;
    assert.equal(commit.oid, git('rev-parse', 'main'));
    assert.equal(git('rev-parse', 'main~1'), before);
    assert.equal(git('rev-list', '--count', `${before}..main`), '1');
    assert.equal(git('diff', '--name-status', 'HEAD~1', 'HEAD'), 'M\tcontent/pages/index.yaml');
    assert.equal(git('show', 'main:content/pages/index.yaml'), 'title: Home, edited\ndescription: Welcome');
    assert.equal(commit.file_0.oid, git('rev-parse', 'main:content/pages/index.yaml'));
    assert.equal(git('log', '-1', '--format=%an <%ae>|%cn|%s', 'main'), 'Site Editor <editor@example.com>|GitHub|Update Pages “index”');
    // The checked-out work tree follows the branch, and nothing is left staged or modified
    assert.equal(readFileSync(join(dir, 'content/pages/index.yaml'), 'utf8'), 'title: Home, edited\ndescription: Welcome\n');
    assert.equal(git('status', '--porcelain'), '');
    // The commit is now what the last-commit query and the file history report
    assert.equal((await lastCommit()).oid, commit.oid);
    const meta = await fetchGraphQL(buildAliasedQuery([{ index: 0, fragment: getFileMetadataFragment({ path: 'content/pages/index.yaml' }) }], 'commit', { useBranch: true }), {});
    assert.equal(meta.repository.commit_0.target.history.nodes[0].author.user.login, 'editor');
  });

  test('a stale expectedHeadOid is refused as GitHub refuses it', async () => {
    const head = git('rev-parse', 'main');
    const stale = git('rev-parse', 'main~1');
    const additions = [{ index: 0, path: 'content/pages/index.yaml', contents: b64('title: Lost update\n') }];
    const result = await postGraphQL(commitQuery(additions), { input: commitInput({ expectedHeadOid: stale, additions, message: 'stale' }) });
    assert.deepEqual(result.data, { createCommitOnBranch: null });
    assert.equal(result.errors[0].type, 'STALE_DATA');
    assert.equal(result.errors[0].message, `Expected branch to point to "${stale}" but it did not. Pull and try again.`);
    assert.deepEqual(result.errors[0].path, ['createCommitOnBranch']);
    assert.equal(git('rev-parse', 'main'), head);
  });

  test('uploading an image and deleting an entry', async () => {
    const image = Buffer.concat([PNG, Buffer.from([0, 1, 2, 3])]);
    const additions = [{ index: 0, path: 'public/images/new photo.png', contents: image.toString('base64') }];
    let head = git('rev-parse', 'main');
    const up = await fetchGraphQL(commitQuery(additions), { input: commitInput({ expectedHeadOid: head, additions, message: 'Upload “public/images/new photo.png”' }) });
    assert.equal(git('diff', '--name-status', 'main~1', 'main'), 'A\tpublic/images/new photo.png');
    assert.deepEqual(execFileSync('git', ['cat-file', 'blob', up.createCommitOnBranch.commit.file_0.oid], { cwd: dir }), image);
    head = git('rev-parse', 'main');
    await fetchGraphQL(commitQuery([]), { input: commitInput({ expectedHeadOid: head, deletions: [{ path: 'content/pages/insights/a.md' }], message: 'Delete Insights “a”' }) });
    assert.equal(git('diff', '--name-status', 'main~1', 'main'), 'D\tcontent/pages/insights/a.md');
    // Deleting a path that isn't there fails, and nothing moves
    head = git('rev-parse', 'main');
    const bad = await postGraphQL(commitQuery([]), { input: commitInput({ expectedHeadOid: head, deletions: [{ path: 'nope.md' }], message: 'x' }) });
    assert.ok(bad.errors?.length);
    assert.equal(git('rev-parse', 'main'), head);
  });
});

describe('editorial workflow', () => {
  const branch = 'cms/pages/about';
  let pr;

  test('draft: branch from main, commit on it, open a PR with a label', async () => {
    const { fork, base } = await fetchGraphQL(FETCH_BRANCH_BASE_QUERY, { forkOwner: OWNER, forkRepo: REPO });
    const sha = base.ref.target.oid;
    assert.equal(sha, git('rev-parse', 'main'));
    await fetchGraphQL(CREATE_REF_MUTATION, { input: { repositoryId: fork.id, name: `refs/heads/${branch}`, oid: sha } });
    assert.equal(git('rev-parse', branch), sha);
    // Creating it again fails with the message Sveltia looks for
    const again = await postGraphQL(CREATE_REF_MUTATION, { input: { repositoryId: fork.id, name: `refs/heads/${branch}`, oid: sha } });
    assert.match(again.errors[0].message, /already exists/);
    // …after which Sveltia asks whether a PR is open and, if not, resets the branch
    const count = await fetchGraphQL(FETCH_OPEN_PULL_REQUEST_COUNT_QUERY, { owner: OWNER, repo: REPO, branch });
    assert.equal(count.repository.pullRequests.totalCount, 0);
    await fetchAPI(`/repos/${OWNER}/${REPO}/git/refs/heads/${encodeURI(branch)}`, { method: 'PATCH', body: { sha, force: true } });

    const additions = [{ index: 0, path: 'content/pages/about.yaml', contents: b64('title: About\ndescription: Us\n') }];
    await fetchGraphQL(commitQuery(additions), { input: commitInput({ branch, expectedHeadOid: sha, additions, message: 'Create Pages “about”' }) });
    assert.equal(git('rev-parse', 'main'), sha, 'main does not move');
    assert.equal(git('diff', '--name-status', 'main', branch), 'A\tcontent/pages/about.yaml');

    const result = await fetchAPI(`/repos/${OWNER}/${REPO}/pulls`, {
      method: 'POST',
      body: { title: 'Create Pages “about”', head: branch, base: 'main', draft: true, body: 'Automatically generated by Sveltia CMS' },
    });
    pr = result;
    assert.equal(result.number, 1);
    for (const key of ['node_id', 'title', 'html_url', 'created_at', 'updated_at']) assert.ok(result[key], key);
    assert.equal(result.head.sha, git('rev-parse', branch));
    const labels = await fetchAPI(`/repos/${OWNER}/${REPO}/issues/${result.number}/labels`, { method: 'POST', body: { labels: ['sveltia-cms/draft'] } });
    assert.deepEqual(labels.map((l) => l.name), ['sveltia-cms/draft']);
  });

  test('the PR is listed with its labels, files and file contents', async () => {
    const { repository } = await fetchGraphQL(getFetchPullRequestsQuery());
    assert.equal(repository.pullRequests.nodes.length, 1);
    const node = repository.pullRequests.nodes[0];
    assert.equal(node.number, pr.number);
    assert.equal(node.id, pr.node_id);
    assert.equal(node.isDraft, true);
    assert.equal(node.isCrossRepository, false);
    assert.equal(node.headRefName, branch);
    assert.equal(node.headRefOid, git('rev-parse', branch));
    assert.equal(node.author.login, 'editor');
    assert.deepEqual(node.labels.nodes, [{ name: 'sveltia-cms/draft' }]);
    assert.deepEqual(node.files.nodes, [{ path: 'content/pages/about.yaml', changeType: 'ADDED' }]);
    const blobs = await fetchGraphQL(buildAliasedQuery([{ index: 0, fragment: pullRequestFileFragment(branch, 'content/pages/about.yaml') }], 'file'), { owner: OWNER, repo: REPO });
    assert.deepEqual(blobs.repository.file_0, {
      oid: git('rev-parse', `${branch}:content/pages/about.yaml`), byteSize: Buffer.byteLength('title: About\ndescription: Us\n'), isBinary: false, isTruncated: false, text: 'title: About\ndescription: Us\n',
    });
    const count = await fetchGraphQL(FETCH_OPEN_PULL_REQUEST_COUNT_QUERY, { owner: OWNER, repo: REPO, branch });
    assert.equal(count.repository.pullRequests.totalCount, 1);
  });

  test('update: another commit on the branch', async () => {
    const head = (await lastCommit(branch)).oid;
    const additions = [{ index: 0, path: 'content/pages/about.yaml', contents: b64('title: About us\ndescription: Us\n') }];
    await fetchGraphQL(commitQuery(additions), { input: commitInput({ branch, expectedHeadOid: head, additions, message: 'Update Pages “about”' }) });
    assert.equal(git('rev-list', '--count', `main..${branch}`), '2');
  });

  test('status change: labels replaced, draft state toggled', async () => {
    const issue = await fetchAPI(`/repos/${OWNER}/${REPO}/issues/${pr.number}`);
    const newLabels = [...issue.labels.map(({ name }) => name).filter((n) => !STATUS_LABELS.includes(n)), 'sveltia-cms/pending_publish'];
    await fetchAPI(`/repos/${OWNER}/${REPO}/issues/${pr.number}`, { method: 'PATCH', body: { labels: newLabels } });
    const ready = await fetchGraphQL(draftStateMutation(false), { input: { pullRequestId: pr.node_id } });
    assert.deepEqual(ready, { markPullRequestReadyForReview: { pullRequest: { isDraft: false } } });
    const node = (await fetchGraphQL(getFetchPullRequestsQuery())).repository.pullRequests.nodes[0];
    assert.deepEqual(node.labels.nodes, [{ name: 'sveltia-cms/pending_publish' }]);
    assert.equal(node.isDraft, false);
  });

  test('publish: merging the PR puts a merge commit on main; the branch is deleted', async () => {
    const mainBefore = git('rev-parse', 'main');
    const headBefore = git('rev-parse', branch);
    const merged = await fetchAPI(`/repos/${OWNER}/${REPO}/pulls/${pr.number}/merge`, { method: 'PUT', body: { merge_method: 'merge', commit_title: pr.title } });
    assert.equal(merged.merged, true);
    assert.equal(merged.sha, git('rev-parse', 'main'));
    assert.equal(git('rev-parse', 'main^1'), mainBefore);
    assert.equal(git('rev-parse', 'main^2'), headBefore);
    assert.equal(git('log', '-1', '--format=%s', 'main'), 'Create Pages “about”');
    assert.equal(git('diff', '--name-status', 'main^1', 'main'), 'A\tcontent/pages/about.yaml');
    assert.equal(git('show', 'main:content/pages/about.yaml'), 'title: About us\ndescription: Us');
    assert.equal(readFileSync(join(dir, 'content/pages/about.yaml'), 'utf8'), 'title: About us\ndescription: Us\n');
    const del = await fetchAPI(`/repos/${OWNER}/${REPO}/git/refs/heads/${encodeURI(branch)}`, { method: 'DELETE', responseType: 'raw' });
    assert.equal(del.status, 204);
    assert.equal(execFileSync('git', ['branch', '--list', branch], { cwd: dir, encoding: 'utf8' }), '');
    assert.equal((await fetchGraphQL(getFetchPullRequestsQuery())).repository.pullRequests.nodes.length, 0);
    // A second merge is refused
    await assert.rejects(fetchAPI(`/repos/${OWNER}/${REPO}/pulls/${pr.number}/merge`, { method: 'PUT', body: { merge_method: 'merge' } }), { status: 405 });
  });

  test('a draft PR cannot be merged; discard closes it and drops the branch', async () => {
    const b = 'cms/pages/tmp';
    const { fork, base } = await fetchGraphQL(FETCH_BRANCH_BASE_QUERY, { forkOwner: OWNER, forkRepo: REPO });
    await fetchGraphQL(CREATE_REF_MUTATION, { input: { repositoryId: fork.id, name: `refs/heads/${b}`, oid: base.ref.target.oid } });
    const additions = [{ index: 0, path: 'content/pages/tmp.yaml', contents: b64('title: Tmp\n') }];
    await fetchGraphQL(commitQuery(additions), { input: commitInput({ branch: b, expectedHeadOid: base.ref.target.oid, additions, message: 'Create Pages “tmp”' }) });
    const p = await fetchAPI(`/repos/${OWNER}/${REPO}/pulls`, { method: 'POST', body: { title: 'tmp', head: b, base: 'main', draft: true, body: '' } });
    await assert.rejects(fetchAPI(`/repos/${OWNER}/${REPO}/pulls/${p.number}/merge`, { method: 'PUT', body: { merge_method: 'merge' } }), { status: 405 });
    const mainBefore = git('rev-parse', 'main');
    await fetchAPI(`/repos/${OWNER}/${REPO}/pulls/${p.number}`, { method: 'PATCH', body: { state: 'closed' } });
    await fetchAPI(`/repos/${OWNER}/${REPO}/git/refs/heads/${encodeURI(b)}`, { method: 'DELETE', responseType: 'raw' });
    assert.equal(git('rev-parse', 'main'), mainBefore);
    assert.equal((await fetchAPI(`/repos/${OWNER}/${REPO}/pulls/${p.number}`)).state, 'closed');
  });

  test('squash merge makes a single-parent commit', async () => {
    const b = 'cms/pages/squashed';
    const { fork, base } = await fetchGraphQL(FETCH_BRANCH_BASE_QUERY, { forkOwner: OWNER, forkRepo: REPO });
    await fetchGraphQL(CREATE_REF_MUTATION, { input: { repositoryId: fork.id, name: `refs/heads/${b}`, oid: base.ref.target.oid } });
    const additions = [{ index: 0, path: 'content/pages/sq.yaml', contents: b64('title: Sq\n') }];
    await fetchGraphQL(commitQuery(additions), { input: commitInput({ branch: b, expectedHeadOid: base.ref.target.oid, additions, message: 'Create Pages “sq”' }) });
    const p = await fetchAPI(`/repos/${OWNER}/${REPO}/pulls`, { method: 'POST', body: { title: 'sq', head: b, base: 'main', draft: false, body: '' } });
    await fetchAPI(`/repos/${OWNER}/${REPO}/pulls/${p.number}/merge`, { method: 'PUT', body: { merge_method: 'squash', commit_title: 'sq' } });
    assert.equal(git('rev-list', '--parents', '-n', '1', 'main').split(' ').length, 2);
    assert.equal(git('diff', '--name-status', 'main~1', 'main'), 'A\tcontent/pages/sq.yaml');
  });
});

describe('a bare repository', () => {
  test('commits land on the branch of a bare clone', async () => {
    const bare = mkdtempSync(join(tmpdir(), 'gh-standin-bare-'));
    execFileSync('git', ['clone', '-q', '--bare', dir, bare]);
    const other = await startGitHub({ repoDir: bare, owner: OWNER, name: REPO, token: 'other' });
    try {
      const bgit = (...args) => execFileSync('git', args, { cwd: bare, encoding: 'utf8' }).trim();
      const head = bgit('rev-parse', 'main');
      const res = await fetch(other.graphqlUrl, {
        method: 'POST',
        headers: { Authorization: 'token other', 'Content-Type': 'application/json' },
        body: JSON.stringify({
          query: commitQuery([]).replace(/\n\s*/g, ' '),
          variables: { input: commitInput({ expectedHeadOid: head, additions: [{ path: 'content/pages/bare.yaml', contents: b64('title: Bare\n') }], message: 'bare' }) },
        }),
      });
      const { data } = await res.json();
      assert.equal(data.createCommitOnBranch.commit.oid, bgit('rev-parse', 'main'));
      assert.equal(bgit('diff', '--name-status', 'main~1', 'main'), 'A\tcontent/pages/bare.yaml');
      assert.deepEqual(other.warnings, []);
    } finally {
      await other.stop();
      rmSync(bare, { recursive: true, force: true });
    }
  });
});

describe('bookkeeping', () => {
  test('unknown REST calls answer 404 and are recorded; unknown GraphQL fields are refused', async () => {
    const before = gh.unknown.length;
    const res = await fetchAPI(`/repos/${OWNER}/${REPO}/contents/README.md`, { responseType: 'raw' });
    assert.equal(res.status, 404);
    const gql = await postGraphQL('query($owner: String!, $repo: String!) { repository(owner: $owner, name: $repo) { stargazerCount } }');
    assert.equal(gql.data, undefined);
    assert.match(gql.errors[0].message, /Field 'stargazerCount' doesn't exist on type 'Repository'/);
    assert.deepEqual(gh.unknown.slice(before).map((u) => u.field ?? u.path), [`/api/v3/repos/${OWNER}/${REPO}/contents/README.md`, 'Repository.stargazerCount']);
    gh.unknown.length = before;
  });

  test('every call was recorded, with the GraphQL operation', async () => {
    assert.ok(gh.calls.some((c) => c.operation === 'mutation createCommitOnBranch'));
    assert.ok(gh.calls.some((c) => c.method === 'PUT' && c.path.endsWith('/pulls/1/merge')));
    assert.deepEqual(gh.unknown, []);
    assert.deepEqual(gh.warnings, []);
  });
});
