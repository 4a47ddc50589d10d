/** bubblewrap options that only some versions have (0.8, Debian 12, has both). */
export interface BubblewrapFeatures {
  /** `--disable-userns`: no user namespace inside, so no new mount tricks from within. */
  disableUserns: boolean;
  /** `--size` before `--tmpfs`: the private /tmp is bounded. */
  tmpfsSize: boolean;
}

/** What one command's sandbox is made of: paths already resolved through symlinks. */
export interface SandboxPlace {
  mode: "read-only" | "workspace-write";
  workspace: string;
  network: boolean;
  cwd: string;
  /**
   * The `.git` (directory or file) of the workspace and of the cwd's directories up to it, kept
   * read-only in workspace-write: what git reads there (config, hooks) runs outside the sandbox
   * the next time the user runs git.
   */
  gitDirs: readonly string[];
  /**
   * Where those directories have no `.git` (workspace-write): a read-only empty one is mounted
   * there, so a command cannot make one (`git init`, then `core.fsmonitor` for the user's next
   * `git status` to run). bubblewrap leaves the empty directory behind as the mount point; git
   * passes over an empty `.git` as it looks for a repository.
   */
  gitGuards: readonly string[];
}

/** Bytes the private /tmp may hold. */
export const SANDBOX_TMP_BYTES = 512 * 1024 * 1024;

/**
 * Directories a sandboxed command sees empty and private: `/tmp` (its temp dir, the only place it
 * can write in read-only) and `/run`, where local services listen (D-Bus, docker, systemd,
 * ssh- and gpg-agent under /run/user): a socket on a read-only mount still takes connections.
 * `/dev` is a minimal one (null, zero, tty, random, a private shm); `/var/run` links to `/run`.
 */
export const HIDDEN_DIRECTORIES = ["/tmp", "/run", "/dev"] as const;

export function isInside(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir.endsWith("/") ? dir : `${dir}/`);
}

export function isHidden(path: string): boolean {
  return HIDDEN_DIRECTORIES.some((dir) => isInside(path, dir));
}

/**
 * The words that run a command in the sandbox, up to and including `--`: bubblewrap in a user
 * namespace without capabilities, the whole filesystem bound read-only, the hidden directories
 * replaced, the workspace bound writable (workspace-write, `.git` excepted) or visible, no network
 * namespace but loopback unless `network`. No PID namespace: the command and what it starts keep
 * the host's pids (they agree with `ps`, `kill` and other terminals), and its process group is the
 * terminal's, so the host's group kill reaches it. bubblewrap stays as its parent (the terminal's
 * pid) and exits with its status.
 */
export function bubblewrapArgv(
  bwrap: string,
  features: BubblewrapFeatures,
  place: SandboxPlace,
): string[] {
  const tmpfs = (dir: string) => [
    ...(features.tmpfsSize ? ["--size", String(SANDBOX_TMP_BYTES)] : []),
    "--tmpfs",
    dir,
  ];
  const argv = [bwrap, "--unshare-user"];
  if (features.disableUserns) {
    argv.push("--disable-userns");
  }
  argv.push("--cap-drop", "ALL", "--unshare-ipc");
  if (!place.network) {
    argv.push("--unshare-net");
  }
  argv.push("--ro-bind", "/", "/", "--dev", "/dev", ...tmpfs("/tmp"), "--tmpfs", "/run");
  if (place.network) {
    // Where systemd-resolved keeps the resolv.conf that /etc/resolv.conf links to.
    argv.push("--ro-bind-try", "/run/systemd/resolve", "/run/systemd/resolve");
  }
  const { workspace } = place;
  if (place.mode === "workspace-write") {
    argv.push("--bind", workspace, workspace);
    for (const git of place.gitDirs) {
      argv.push("--ro-bind", git, git);
    }
    for (const git of place.gitGuards) {
      argv.push("--tmpfs", git, "--remount-ro", git);
    }
  } else if (isHidden(workspace)) {
    argv.push("--ro-bind", workspace, workspace);
  }
  argv.push("--chdir", place.cwd, "--setenv", "TMPDIR", "/tmp", "--");
  return argv;
}
