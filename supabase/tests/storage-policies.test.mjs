// The production storage migration against a real PostgreSQL: a minimal storage
// schema of our own (storage-schema.sql), the migration applied twice, then every
// kind of write the public (`anon`) role might attempt. The key that is allowed is
// the one the contact form's own code makes (islands/lib/contact.ts).

import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { formModules } from "./form.mjs";
import { startPostgres, supabaseLike } from "./postgres.mjs";

const root = path.resolve(import.meta.dirname, "../..");
const migrations = path.join(root, "supabase", "migrations");
const BUCKET = "contact-attachments";
const NOW = 1763800000000;

let server;
let db;
let formKey;

async function applyMigrations() {
  for (const file of readdirSync(migrations).filter((f) => f.endsWith(".sql")).sort()) {
    await db.query(readFileSync(path.join(migrations, file), "utf8"));
  }
}

/** Runs `sql` as the public role, in a transaction kept only when `keep`. */
async function asAnon(sql, params = [], { keep = true } = {}) {
  await db.query("begin");
  try {
    await db.query("set local role anon");
    const result = await db.query(sql, params);
    await db.query(keep ? "commit" : "rollback");
    return result;
  } catch (error) {
    await db.query("rollback");
    throw error;
  }
}

const insert = (bucket, name) =>
  asAnon("insert into storage.objects (bucket_id, name, metadata) values ($1, $2, '{}')", [bucket, name]);

/** Asserts that `promise` is refused by row-level security (SQLSTATE 42501). */
async function refusedByPolicy(promise) {
  await assert.rejects(promise, (error) => {
    assert.equal(error.code, "42501", error.message);
    assert.match(error.message, /row-level security policy/);
    return true;
  });
}

before(async () => {
  ({ storageKey: formKey } = await formModules("contact"));
  server = await startPostgres();
  db = await server.client();
  await supabaseLike(db);
  // Another bucket, and an upload of someone else's, made by the service.
  await db.query("insert into storage.buckets (id, name, public) values ('avatars', 'avatars', true)");
});

after(async () => {
  await db?.end();
  await server?.stop();
});

describe("the migration", () => {
  test("applies twice without error", async () => {
    await applyMigrations();
    await applyMigrations();
    const policies = await db.query("select policyname, cmd, roles from pg_policies where schemaname = 'storage' and tablename = 'objects' order by policyname");
    assert.deepEqual(policies.rows, [
      { policyname: "applications: public uploads", cmd: "INSERT", roles: "{anon}" },
      { policyname: `${BUCKET}: public uploads`, cmd: "INSERT", roles: "{anon}" },
    ]);
    await db.query("insert into storage.objects (bucket_id, name) values ($1, 'public/1700000000000_someone-else.png')", [BUCKET]);
  });

  test("creates the public bucket with a 5 MiB limit for JPEG, PNG and GIF", async () => {
    const { rows } = await db.query("select id, public, file_size_limit, allowed_mime_types from storage.buckets where id = $1", [BUCKET]);
    assert.deepEqual(rows, [{ id: BUCKET, public: true, file_size_limit: "5242880", allowed_mime_types: ["image/jpeg", "image/png", "image/gif"] }]);
  });
});

describe("as anon", () => {
  test("allowed: inserting the key the contact form makes, public/<timestamp>_<name>", async () => {
    const key = formKey("Café menu (final).PNG", NOW);
    assert.equal(key, `public/${NOW}_Cafe_menu_final.png`);
    const result = await insert(BUCKET, key);
    assert.equal(result.rowCount, 1);
  });

  test("refused: the same key again (it exists: no overwrite)", async () => {
    await assert.rejects(insert(BUCKET, formKey("Café menu (final).PNG", NOW)), (e) => e.code === "23505");
  });

  test("refused: a key outside public/", async () => {
    await refusedByPolicy(insert(BUCKET, `private/${NOW}_photo.png`));
    await refusedByPolicy(insert(BUCKET, `${NOW}_photo.png`));
  });

  test("refused: a key under public/ not of the form's shape", async () => {
    await refusedByPolicy(insert(BUCKET, "public/index.html"));
    await refusedByPolicy(insert(BUCKET, `public/${NOW}_a/b.png`));
    await refusedByPolicy(insert(BUCKET, `public/${NOW}_x.png/../../escape`));
  });

  test("refused: inserting into another bucket", async () => {
    await refusedByPolicy(insert("avatars", formKey("photo.png", NOW)));
  });

  test("refused: an upsert over an existing object", async () => {
    await refusedByPolicy(
      asAnon(
        "insert into storage.objects (bucket_id, name, metadata) values ($1, $2, '{}') on conflict (bucket_id, name) do update set metadata = '{\"replaced\": true}'",
        [BUCKET, formKey("Café menu (final).PNG", NOW)],
      ),
    );
  });

  test("refused: updating any object changes nothing", async () => {
    const result = await asAnon("update storage.objects set name = 'public/replaced.png', metadata = '{\"x\": 1}'");
    assert.equal(result.rowCount, 0);
    const { rows } = await db.query("select count(*)::int as n from storage.objects where name = 'public/replaced.png'");
    assert.equal(rows[0].n, 0);
  });

  test("refused: deleting any object removes nothing", async () => {
    const result = await asAnon("delete from storage.objects");
    assert.equal(result.rowCount, 0);
    const { rows } = await db.query("select count(*)::int as n from storage.objects");
    assert.equal(rows[0].n, 2);
  });

  test("refused: listing uploads, its own or anyone else's, sees none", async () => {
    const { rows } = await asAnon("select name from storage.objects");
    assert.deepEqual(rows, []);
  });

  test("refused: changing the bucket's limits", async () => {
    const result = await asAnon("update storage.buckets set file_size_limit = null, allowed_mime_types = null");
    assert.equal(result.rowCount, 0);
    await refusedByPolicy(asAnon("insert into storage.buckets (id, name, public) values ('mine', 'mine', true)"));
  });
});
