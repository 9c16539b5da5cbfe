// An OpenSSH server on loopback (Debian's openssh-server) standing in for the
// machine the nginx workflow publishes to: a fresh host key, one authorised
// client key, and the current user as the deploy user. Needs root, as sshd does.

import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import path from "node:path";
import { exitOf, listeningOnFreePort } from "../../e2e/support.mjs";

export const SSHD = "/usr/sbin/sshd";

/**
 * Starts sshd on 127.0.0.1. Resolves to `{ port, user, privateKey, knownHosts,
 * log, stop }`: what the workflow's SSH_PRIVATE_KEY and SSH_KNOWN_HOSTS secrets
 * hold for a real server.
 */
export async function startSshServer() {
  const dir = mkdtempSync(path.join(tmpdir(), "site-sshd-"));
  const keygen = (file) => execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", "site-deploy-test", "-f", file], { stdio: "pipe" });
  keygen(path.join(dir, "host_key"));
  keygen(path.join(dir, "client_key"));
  writeFileSync(path.join(dir, "authorized_keys"), readFileSync(path.join(dir, "client_key.pub")));
  // sshd's privilege separation needs this folder, which its service usually makes.
  mkdirSync("/run/sshd", { recursive: true, mode: 0o755 });
  const config = (port) =>
    writeFileSync(
      path.join(dir, "sshd_config"),
      [
        `Port ${port}`,
        "ListenAddress 127.0.0.1",
        `HostKey ${path.join(dir, "host_key")}`,
        `AuthorizedKeysFile ${path.join(dir, "authorized_keys")}`,
        `PidFile ${path.join(dir, "sshd.pid")}`,
        "PermitRootLogin prohibit-password",
        "PasswordAuthentication no",
        "KbdInteractiveAuthentication no",
        "UsePAM no",
        "StrictModes no",
        "LogLevel VERBOSE",
      ].join("\n") + "\n",
    );
  let log = "";
  // Listening is ready: sshd accepts connections once it listens.
  const { port, child } = await listeningOnFreePort(
    (port) => {
      config(port);
      log = "";
      const child = spawn(SSHD, ["-D", "-e", "-f", path.join(dir, "sshd_config")], { stdio: ["ignore", "ignore", "pipe"] });
      child.stderr.on("data", (d) => (log += d));
      return child;
    },
    { ms: 10_000, why: () => `sshd did not start:\n${log}` },
  );
  const exited = exitOf(child);
  const hostKey = readFileSync(path.join(dir, "host_key.pub"), "utf8").split(" ").slice(0, 2).join(" ");
  return {
    port,
    user: userInfo().username,
    privateKey: readFileSync(path.join(dir, "client_key"), "utf8"),
    knownHosts: `[127.0.0.1]:${port} ${hostKey}`,
    log: () => log,
    async stop() {
      if (child.exitCode === null) child.kill("SIGTERM");
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
