// The login shell's environment for commands (nvm, pyenv, direnv): snapshotted once from a real
// `bash -l -i`, cached, secrets and the shell's own state left out; off in the library by default.
import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TerminalHost } from "acp-terminal";
import { afterAll, describe, expect, it } from "vitest";
import { LocalTerminalProvider, loginShellEnvironment, ProcessManager } from "../src/index.js";

/** A HOME set up as nvm sets one up: ~/.bashrc sources ~/.nvm/nvm.sh, which puts a node first on PATH. */
function nvmHome(): { home: string; env: NodeJS.ProcessEnv; nodeBin: string } {
  const home = mkdtempSync(join(tmpdir(), "login-env-"));
  const nodeBin = join(home, ".nvm/versions/node/v99.0.0/bin");
  mkdirSync(nodeBin, { recursive: true });
  writeFileSync(join(nodeBin, "node"), "#!/bin/sh\necho v99.0.0-fixture\n");
  chmodSync(join(nodeBin, "node"), 0o755);
  writeFileSync(
    join(home, ".nvm/nvm.sh"),
    `export PATH="$NVM_DIR/versions/node/v99.0.0/bin:$PATH"\nexport NVM_BIN="$NVM_DIR/versions/node/v99.0.0/bin"\n`,
  );
  // Debian's ~/.profile: a login bash reads it, and it sources ~/.bashrc.
  writeFileSync(
    join(home, ".profile"),
    'if [ -n "$BASH_VERSION" ] && [ -f "$HOME/.bashrc" ]; then . "$HOME/.bashrc"; fi\n',
  );
  writeFileSync(
    join(home, ".bashrc"),
    [
      'export NVM_DIR="$HOME/.nvm"',
      '[ -s "$NVM_DIR/nvm.sh" ] && . "$NVM_DIR/nvm.sh"',
      "export MY_SETTING=from-bashrc",
      "export GITHUB_TOKEN=ghp_not_for_commands",
      "export AWS_SECRET_ACCESS_KEY=not-for-commands",
      "echo noise from the profile",
      "",
    ].join("\n"),
  );
  const env = { HOME: home, PATH: "/usr/local/bin:/usr/bin:/bin", SHELL: "/bin/bash", SHLVL: "0" };
  return { home, env, nodeBin };
}

describe("the login shell's environment", () => {
  const fixture = nvmHome();
  afterAll(() => rmSync(fixture.home, { recursive: true, force: true }));

  it("is the login shell's, without secrets nor the shell's own state, and taken once", async () => {
    const options = { shell: "bash", env: fixture.env };
    const first = loginShellEnvironment(options);
    expect(loginShellEnvironment(options)).toBe(first); // cached: one snapshot
    const env = (await first)!;
    expect(env.PATH!.split(":")[0]).toBe(fixture.nodeBin);
    expect(env).toMatchObject({ MY_SETTING: "from-bashrc", NVM_DIR: join(fixture.home, ".nvm") });
    for (const name of ["GITHUB_TOKEN", "AWS_SECRET_ACCESS_KEY", "PWD", "SHLVL", "PS1", "_"]) {
      expect(env, name).not.toHaveProperty(name);
    }
  });

  it("gives commands the node `which node` finds in the login shell, when asked; the library's default is off", async () => {
    // What the user's terminal finds (the profile's own noise before it).
    const loginWhich = execFileSync("bash", ["-lic", "which node"], {
      env: fixture.env,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    })
      .trimEnd()
      .split("\n")
      .at(-1)!;
    const host = new TerminalHost();
    const on = new ProcessManager({
      provider: new LocalTerminalProvider(host, {
        loginEnvironment: { shell: "bash", env: fixture.env },
      }),
    });
    const off = new ProcessManager({ provider: new LocalTerminalProvider(host) });
    try {
      const which = async (manager: ProcessManager) => {
        const { run } = await manager.run({
          sessionId: "s",
          command: "which node; node --version",
        });
        return manager.tail(run.id).text;
      };
      expect(loginWhich).toBe(join(fixture.nodeBin, "node"));
      expect(await which(on)).toBe(`${loginWhich}\nv99.0.0-fixture\n`);
      expect(await which(off)).not.toContain(fixture.nodeBin);
    } finally {
      await on.dispose();
      await off.dispose();
      await host.dispose();
    }
  });

  it("is null (commands run without it) when the shell fails or takes too long", async () => {
    expect(
      await loginShellEnvironment({ shell: "/nonexistent/shell", env: fixture.env }),
    ).toBeNull();
    const slow = mkdtempSync(join(tmpdir(), "login-env-slow-"));
    writeFileSync(join(slow, ".profile"), "sleep 30\n");
    try {
      const started = performance.now();
      expect(
        await loginShellEnvironment({
          shell: "bash",
          env: { ...fixture.env, HOME: slow },
          timeoutMs: 300,
        }),
      ).toBeNull();
      expect(performance.now() - started).toBeLessThan(5000);
    } finally {
      rmSync(slow, { recursive: true, force: true });
    }
  });
});
