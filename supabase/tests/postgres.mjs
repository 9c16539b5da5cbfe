// A throwaway PostgreSQL server for tests: Debian's binaries, a cluster in a
// temporary folder, a free port on 127.0.0.1, stopped and removed afterwards.
// PostgreSQL refuses to run as root, so as root it runs as the `postgres` user
// (through setpriv, which executes the program itself, so signals reach it).

import { execFileSync, spawn } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import path from "node:path";
import pg from "pg";
import { exitOf, listeningOnFreePort } from "../../e2e/support.mjs";

/** The folder of the newest installed server's programs (initdb, postgres). */
function binaries() {
  const base = "/usr/lib/postgresql";
  const versions = existsSync(base)
    ? readdirSync(base).filter((v) => existsSync(path.join(base, v, "bin", "postgres")))
    : [];
  versions.sort((a, b) => Number(b) - Number(a));
  if (versions.length === 0) {
    throw new Error("PostgreSQL is not installed: `make test` installs Debian's postgresql package when run as root");
  }
  if (!existsSync(path.join(base, versions[0], "lib", "pg_cron.so"))) {
    throw new Error(`pg_cron is not installed: \`make test\` installs Debian's postgresql-${versions[0]}-cron package when run as root`);
  }
  return path.join(base, versions[0], "bin");
}

/** Runs `program` as the `postgres` user when we are root. */
function command(program, args) {
  const asPostgres = ["--reuid=postgres", "--regid=postgres", "--init-groups", "--"];
  return userInfo().uid === 0 ? ["setpriv", [...asPostgres, program, ...args]] : [program, args];
}

/** Starts a server; resolves to `{ client(), stop() }`, `client()` being a connected superuser. */
export async function startPostgres() {
  const bin = binaries();
  const dir = mkdtempSync(path.join(tmpdir(), "site-pg-"));
  if (userInfo().uid === 0) {
    const id = (flag) => Number(execFileSync("id", [flag, "postgres"]).toString());
    chownSync(dir, id("-u"), id("-g"));
  }
  const data = path.join(dir, "data");
  const [initdb, initArgs] = command(path.join(bin, "initdb"), ["-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-sync"]);
  execFileSync(initdb, initArgs, { stdio: "pipe" });

  let log = "";
  // On a port another process holds, a connection could reach another test's server.
  const { port, child: server } = await listeningOnFreePort(
    (port) => {
      const [postgres, args] = command(path.join(bin, "postgres"), [
        "-D", data, "-p", String(port), "-k", dir,
        "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "full_page_writes=off",
        // The messages' retention job is a pg_cron job, as on Supabase.
        "-c", "shared_preload_libraries=pg_cron", "-c", "cron.database_name=postgres",
        "-c", "max_connections=200",
      ]);
      log = "";
      const server = spawn(postgres, args, { stdio: ["ignore", "ignore", "pipe"] });
      server.stderr.on("data", (d) => (log += d));
      return server;
    },
    { ms: 30_000, why: () => `PostgreSQL did not start:\n${log}` },
  ).catch((error) => {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  });
  const exited = exitOf(server);

  const connect = async () => {
    const client = new pg.Client({ host: "127.0.0.1", port, user: "postgres", database: "postgres" });
    await client.connect();
    return client;
  };
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      (await connect()).end();
      break;
    } catch (error) {
      if (server.exitCode !== null || Date.now() > deadline) {
        server.kill("SIGKILL");
        rmSync(dir, { recursive: true, force: true });
        throw new Error(`PostgreSQL did not start: ${error.message}\n${log}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return {
    port,
    client: connect,
    async stop() {
      // SIGINT is PostgreSQL's fast shutdown.
      if (server.exitCode === null) server.kill("SIGINT");
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const here = import.meta.dirname;

/**
 * Sets `db`'s database up as a new Supabase project's: its roles and default
 * privileges (supabase-roles.sql), Vault (vault-schema.sql) and the storage
 * schema (storage-schema.sql). With `projectUrl`, Vault holds it as
 * `project_url`, as docs/deploy.md has the team store it.
 */
export async function supabaseLike(db, { projectUrl } = {}) {
  for (const file of ["supabase-roles.sql", "vault-schema.sql", "storage-schema.sql"]) {
    await db.query(readFileSync(path.join(here, file), "utf8"));
  }
  if (projectUrl) await db.query("select vault.create_secret($1, 'project_url')", [projectUrl]);
}
