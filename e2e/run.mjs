// Runs test files as `node --test --test-concurrency=N` does, each in a process of
// its own and N at a time, but in the order given: `node --test` sorts them by
// name, which can leave the longest file running alone at the end.
// Usage: node e2e/run.mjs <jobs> <file>...

import { run } from "node:test";
import { spec } from "node:test/reporters";

const [jobs, ...files] = process.argv.slice(2);
const stream = run({ files, concurrency: Number(jobs) });
stream.on("test:fail", () => (process.exitCode = 1));
stream.compose(spec).pipe(process.stdout);
