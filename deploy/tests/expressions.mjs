// GitHub Actions' expressions, `${{ }}`, evaluated by GitHub's own library
// (@actions/expressions), with the status functions and hashFiles a runner
// adds: for the workflow tests (workflow.mjs) and the pipeline (pipeline.mjs).

import { Evaluator, Lexer, Parser, data } from "@actions/expressions";
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

/** GitHub's status functions and hashFiles, for one job or step's evaluation. */
function functions({ status, workspace }) {
  const fn = (name, minArgs, maxArgs, call) => [name.toLowerCase(), { name, minArgs, maxArgs, call }];
  return new Map([
    fn("success", 0, 0, () => new data.BooleanData(status.ok)),
    fn("failure", 0, 0, () => new data.BooleanData(!status.ok)),
    fn("cancelled", 0, 0, () => new data.BooleanData(false)),
    fn("always", 0, 0, () => new data.BooleanData(true)),
    fn("hashFiles", 1, 255, (...patterns) => new data.StringData(hashFiles(workspace, patterns.map((p) => p.coerceString())))),
  ]);
}

/** Whether a value is true as an `if:` reads it. */
function truthy(value) {
  switch (value.kind) {
    case data.Kind.Boolean:
      return value.value;
    case data.Kind.Null:
      return false;
    case data.Kind.Number:
      return value.number() !== 0 && !Number.isNaN(value.number());
    case data.Kind.String:
      return value.coerceString() !== "";
    default:
      return true;
  }
}

/** Evaluates one expression (no `${{ }}`) in `contexts`. */
export function evaluate(expression, contexts, scope) {
  const tokens = new Lexer(expression).lex().tokens;
  const extensions = [...functions(scope).values()].map(({ call, ...info }) => info);
  const tree = new Parser(tokens, Object.keys(contexts), extensions).parse();
  const dictionary = JSON.parse(JSON.stringify(contexts), data.reviver);
  return new Evaluator(tree, dictionary, functions(scope)).evaluate();
}

/**
 * An `if:` (with or without `${{ }}`); without a status function it also needs
 * success(). `scope` is `{ status: { ok }, workspace }`: whether every step or
 * job before has succeeded, and the folder hashFiles reads.
 */
export function condition(text, contexts, scope) {
  if (text === undefined) return scope.status.ok;
  const expression = String(text).replace(/^\s*\$\{\{([\s\S]*)\}\}\s*$/, "$1");
  const withStatus = /\b(success|failure|cancelled|always)\s*\(/.test(expression) ? expression : `success() && (${expression})`;
  return truthy(evaluate(withStatus, contexts, scope));
}

/**
 * A value with its `${{ }}` filled in: a string that is one expression keeps the
 * expression's type (a boolean input stays a boolean), as GitHub does.
 */
export function expand(value, contexts, scope) {
  if (typeof value !== "string") return value;
  const whole = value.match(/^\s*\$\{\{([\s\S]*?)\}\}\s*$/);
  if (whole) return JSON.parse(JSON.stringify(evaluate(whole[1], contexts, scope), data.replacer) ?? "null");
  return value.replace(/\$\{\{([\s\S]*?)\}\}/g, (_, e) => evaluate(e, contexts, scope).coerceString());
}
export const expandString = (value, contexts, scope) => {
  const v = expand(value, contexts, scope);
  return v === null || v === undefined ? "" : typeof v === "object" ? JSON.stringify(v) : String(v);
};

/** GitHub's hashFiles: the SHA-256 of the SHA-256 of every matching file, in path order. */
export function hashFiles(workspace, patterns) {
  const files = [];
  const walk = (rel) => {
    for (const e of readdirSync(path.join(workspace, rel), { withFileTypes: true })) {
      const name = rel ? `${rel}/${e.name}` : e.name;
      if (e.name === ".git") continue;
      if (e.isDirectory()) walk(name);
      else if (e.isFile()) files.push(name);
    }
  };
  walk("");
  const matching = files.filter((f) => patterns.some((p) => path.matchesGlob(f, p))).sort();
  if (matching.length === 0) return "";
  const all = createHash("sha256");
  for (const f of matching) all.update(createHash("sha256").update(readFileSync(path.join(workspace, f))).digest());
  return all.digest("hex");
}
