/** `on`, as written by a user or a careless embedder: what each form means and what is refused. */
import { describe, expect, it } from "vitest";
import { checkExecutorTarget, parseExecutorTarget } from "../src/executors/target.js";
import { TerminalHost } from "../src/host/terminal-host.js";

describe("where commands run (on)", () => {
  it("reads ssh, docker and docker-image targets", () => {
    expect(parseExecutorTarget("ssh://box")).toEqual({
      kind: "ssh",
      host: "box",
      user: undefined,
      port: undefined,
    });
    expect(parseExecutorTarget("ssh://me@10.0.0.2:2222")).toEqual({
      kind: "ssh",
      host: "10.0.0.2",
      user: "me",
      port: 2222,
    });
    expect(parseExecutorTarget("ssh://[::1]:22")).toMatchObject({ host: "::1", port: 22 });
    expect(parseExecutorTarget("docker://app_1")).toEqual({ kind: "docker", container: "app_1" });
    expect(
      parseExecutorTarget("docker-image://ghcr.io/org/img:1.2?workspace=/src:/work&network=none"),
    ).toEqual({
      kind: "docker-image",
      image: "ghcr.io/org/img:1.2",
      workspace: { source: "/src", target: "/work" },
      network: "none",
    });
    expect(parseExecutorTarget("local")).toEqual({ kind: "local" });
  });

  it("reads podman, podman-image and devcontainer targets the same way", () => {
    expect(parseExecutorTarget("podman://box")).toEqual({ kind: "podman", container: "box" });
    expect(parseExecutorTarget("podman-image://img?network=none")).toEqual({
      kind: "podman-image",
      image: "img",
      workspace: undefined,
      network: "none",
    });
    expect(parseExecutorTarget("devcontainer:///home/me/project")).toEqual({
      kind: "devcontainer",
      workspaceFolder: "/home/me/project",
    });
  });

  it("honours the mount options it names and refuses the rest, and a parameter given twice", () => {
    expect(parseExecutorTarget("docker-image://img?workspace=/src:/w:ro,z")).toMatchObject({
      workspace: { source: "/src", target: "/w", readOnly: true, relabel: "z" },
    });
    expect(parseExecutorTarget("docker-image://img?workspace=/src:/w:rw")).toMatchObject({
      workspace: { source: "/src", target: "/w", readOnly: false },
    });
    expect(checkExecutorTarget("docker-image://img?workspace=/src:/w:ro,nosuid")).toMatch(
      /mount option "nosuid" is not supported \(ro or rw, and z or Z, each once\)$/,
    );
    expect(checkExecutorTarget("docker-image://img?workspace=/src:/w:ro,rw")).toMatch(
      /mount option "rw" is not supported/,
    );
    expect(checkExecutorTarget("docker-image://img?network=none&network=host")).toMatch(
      /: network is given twice$/,
    );
    expect(checkExecutorTarget("podman-image://img?workspace=/a&workspace=/b")).toMatch(
      /: workspace is given twice$/,
    );
    expect(checkExecutorTarget("devcontainer://relative/dir")).toMatch(
      /the workspace folder must be an absolute path$/,
    );
  });

  it("refuses what ssh or docker would take for an option, and every other form, naming the forms", () => {
    for (const on of [
      "ssh://-oProxyCommand=touch /tmp/x",
      "ssh://box:0",
      "ssh://box:70000",
      "ssh://a b",
      "docker://--privileged",
      "docker-image://img?mount=/etc",
      "docker-image://img?workspace=relative",
      "ftp://box",
      "box",
      "",
    ]) {
      expect(checkExecutorTarget(on), on).toMatch(
        /^expected "local", "ssh:\/\/\[user@\]host\[:port\]"/,
      );
    }
    expect(() => new TerminalHost({ on: "ssh://-x" })).toThrow(/^Invalid options\.on: expected/);
    expect(() => new TerminalHost({ on: 42 as never })).toThrow(/^Invalid options\.on: expected/);
  });
});
