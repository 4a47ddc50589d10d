/**
 * A real OpenSSH server for tests: `sshd` on a free loopback port with a throwaway host key and
 * client key, logging in as the user running the tests (root in CI), and an ssh_config whose
 * aliases the executor resolves as `ssh` does: `acp-test` (HostName, Port, User, IdentityFile) and
 * `acp-jump` (the same, reached through `ProxyJump acp-test`), and with `busyboxPath` (a directory
 * of busybox's applet links) `acp-busybox`: a key whose sessions have PATH set to that directory
 * alone, so that `sh` and every utility there is busybox's, as on a busybox or Alpine machine. Where sshd cannot be had, it throws
 * saying how to get it: the suites fail loudly, they never pass without a server.
 */
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, connect } from "node:net";
import { tmpdir, userInfo } from "node:os";
import path from "node:path";
import { pollUntil } from "./poll.mjs";

/**
 * @typedef {object} TestSshd
 * @property {number} port
 * @property {string[]} sshCommand ssh and its first arguments (`-F` the config), as ACP_TERMINAL_SSH_COMMAND takes them
 * @property {string} configFile
 * @property {() => Promise<void>} stop
 */

const SSHD_CANDIDATES = ["/usr/sbin/sshd", "/usr/local/sbin/sshd", "/sbin/sshd"];

/** @returns {Promise<number>} */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address
          ? resolve(address.port)
          : reject(new Error("no port")),
      );
    });
  });
}

/** @param {number} port @returns {Promise<boolean>} */
function accepts(port) {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

/** @returns {Promise<TestSshd>} */
/** @param {{ busyboxPath?: string }} [options] */
export async function startSshd({ busyboxPath } = {}) {
  const sshd = SSHD_CANDIDATES.find((candidate) => existsSync(candidate));
  if (!sshd) {
    throw new Error(
      "SSH executor tests need OpenSSH's sshd, which is not installed: apt-get install openssh-server (.ci/run does it when it runs as root)",
    );
  }
  const dir = mkdtempSync(path.join(tmpdir(), "acp-sshd-"));
  const file = (/** @type {string} */ name) => path.join(dir, name);
  for (const key of ["host_key", "id", ...(busyboxPath ? ["id-busybox"] : [])]) {
    execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", file(key)]);
  }
  // SHLVL=1 keeps bash from sourcing ~/.bashrc for every session (bash takes a shell started by
  // sshd below level 2 for a remote shell): this machine's root .bashrc runs `pyenv init`, about
  // 0.35 s a session, which is the account's cost, not the executor's. Benchmarks say so too.
  writeFileSync(
    file("authorized_keys"),
    `environment="SHLVL=1" ${readFileSync(file("id.pub"), "utf8")}` +
      (busyboxPath
        ? `environment="SHLVL=1",environment="PATH=${busyboxPath}" ${readFileSync(file("id-busybox.pub"), "utf8")}`
        : ""),
  );
  if (process.getuid?.() === 0) {
    mkdirSync("/run/sshd", { recursive: true }); // privilege separation directory
  }
  const port = await freePort();
  const hostKey = readFileSync(file("host_key.pub"), "utf8").split(" ").slice(0, 2).join(" ");
  writeFileSync(file("known_hosts"), `[127.0.0.1]:${port} ${hostKey}\n`);
  writeFileSync(
    file("sshd_config"),
    [
      `Port ${port}`,
      "ListenAddress 127.0.0.1",
      `HostKey ${file("host_key")}`,
      `PidFile ${file("sshd.pid")}`,
      `AuthorizedKeysFile ${file("authorized_keys")}`,
      "StrictModes no",
      "UsePAM no",
      "PasswordAuthentication no",
      "KbdInteractiveAuthentication no",
      "PubkeyAuthentication yes",
      "PermitRootLogin prohibit-password",
      "PermitUserEnvironment SHLVL,PATH",
      "MaxStartups 100:30:200",
      "PrintMotd no",
      "LogLevel ERROR",
    ].join("\n") + "\n",
  );
  const user = userInfo().username;
  const identity = [
    `  HostName 127.0.0.1`,
    `  Port ${port}`,
    `  User ${user}`,
    `  IdentityFile ${file("id")}`,
    "  IdentitiesOnly yes",
    `  UserKnownHostsFile ${file("known_hosts")}`,
    "  StrictHostKeyChecking yes",
  ];
  writeFileSync(
    file("ssh_config"),
    [
      ...["Host acp-test", ...identity, "Host acp-jump", ...identity, "  ProxyJump acp-test"],
      ...(busyboxPath
        ? ["Host acp-busybox", ...identity.filter((line) => !line.includes("IdentityFile"))]
        : []),
      ...(busyboxPath ? [`  IdentityFile ${file("id-busybox")}`] : []),
      "",
    ].join("\n"),
  );
  const child = spawn(sshd, ["-D", "-e", "-f", file("sshd_config")], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  let said = "";
  child.stderr.on("data", (chunk) => (said += chunk.toString()));
  const exited = new Promise((resolve) => child.once("exit", resolve));
  try {
    await pollUntil(
      async () => {
        if (child.exitCode !== null) {
          throw new Error(`sshd exited ${child.exitCode}: ${said}`);
        }
        return accepts(port);
      },
      10_000,
      `sshd listening on 127.0.0.1:${port}`,
    );
  } catch (error) {
    child.kill("SIGKILL");
    throw error;
  }
  return {
    port,
    sshCommand: ["ssh", "-F", file("ssh_config")],
    configFile: file("ssh_config"),
    stop: async () => {
      child.kill("SIGTERM");
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
