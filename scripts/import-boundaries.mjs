// The layering rules, checked: for each package, which packages may depend on it, and for each
// folder of a package's src/, which units of the same package may import it (a unit is a folder,
// or a file directly in src/ such as index.ts). Every folder needs a rule, so a new folder is
// placed in the layering when it is made. Imports within a folder are free; files directly in
// src/ have no rule of their own (import-cycles.mjs keeps them from importing in a circle).
// Exits 1 on a violation or a folder without a rule; `pnpm lint` runs it.
// Usage: node scripts/import-boundaries.mjs
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

/** Package name → the workspace packages that may depend on it (any dependency kind). */
const PACKAGE_IMPORTERS = {
  "acp-terminal": [
    "acp-process",
    "acp-terminal-mcp",
    "acp-terminal-cli",
    "acp-terminal-conformance",
    "demo-agent",
  ],
  "acp-process": ["acp-terminal-mcp", "demo-agent"],
  "acp-terminal-mcp": ["acp-terminal-cli"],
  "acp-terminal-cli": [],
  "acp-terminal-conformance": [],
  "demo-agent": [],
};

/** Package folder → { folder of src/ → the units that may import it }. */
const FOLDER_IMPORTERS = {
  "acp-terminal": {
    "core/": ["*"],
    "terminate/": ["contain/", "spawn/", "executors/", "host/", "index.ts", "internal.ts"],
    "output/": ["host/", "index.ts", "internal.ts"],
    "spawn/": ["contain/", "sandbox/", "executors/", "host/", "approval/", "internal.ts"],
    "executors/": ["host/", "index.ts", "internal.ts"],
    "contain/": ["host/", "index.ts"],
    "sandbox/": ["host/", "approval/", "approval.ts", "index.ts", "internal.ts"],
    "host/": ["approval/", "protocol/", "rpc/", "approval.ts", "index.ts"],
    "approval/": ["approval.ts", "index.ts", "internal.ts"],
    "protocol/": ["rpc/"],
    "rpc/": ["index.ts", "internal.ts"],
    "keys/": [],
  },
  "acp-process": {
    "base/": ["*"],
    "model/": ["providers/", "runs/", "store/", "publish/", "tools/", "index.ts"],
    "providers/": ["model/", "runs/", "tools/", "index.ts", "provider.ts", "v2.ts"],
    "store/": ["runs/", "index.ts", "sqlite.ts"],
    "runs/": ["publish/", "tools/", "index.ts"],
    "publish/": ["v2.ts"],
    "tools/": ["tools.ts"],
  },
  // Bottom up: state/ (what outlives a run: logs, history, names, locks); view/ (the view events)
  // <- render/ (the renderers); agent/ (the agent process and how its failures read) and command/
  // (the command line) <- conversation/ (one conversation, the driver contract) <- drivers/ (one
  // per protocol version) <- sessions/ (`acp-terminal sessions`, names, locks) <- run-command.ts;
  // readers/ (an agent's reports as view events) serves the drivers and proxy/ (the second app,
  // `acp-terminal proxy`, which reuses agent/, command/, readers/ and view/ but not conversation/).
  "acp-terminal-cli": {
    "state/": ["agent/", "conversation/", "sessions/", "run-command.ts"],
    "command/": [
      "ask/",
      "conversation/",
      "drivers/",
      "readers/",
      "sessions/",
      "proxy/",
      "main.ts",
      "run-command.ts",
    ],
    "agent/": [
      "command/",
      "conversation/",
      "drivers/",
      "readers/",
      "sessions/",
      "proxy/",
      "run-command.ts",
    ],
    "ask/": ["conversation/", "drivers/", "readers/", "proxy/", "run-command.ts"],
    "view/": [
      "ask/",
      "conversation/",
      "drivers/",
      "readers/",
      "render/",
      "proxy/",
      "run-command.ts",
    ],
    "readers/": ["drivers/", "proxy/"],
    "proxy/": ["main.ts"],
    "render/": ["run-command.ts"],
    "conversation/": ["drivers/", "sessions/", "run-command.ts"],
    "drivers/": ["sessions/", "run-command.ts"],
    "sessions/": ["main.ts", "run-command.ts"],
  },
  "acp-terminal-conformance": {
    "base/": ["checks/", "v2/", "agent.ts", "index.ts", "report.ts", "runner.ts"],
    "checks/": ["agent.ts"],
    "v2/": ["index.ts", "main.ts"],
  },
  "acp-terminal-mcp": {
    "tasks/": ["call-tool.ts", "running-call.ts", "runtime.ts", "tool-server.ts"],
  },
  "demo-agent": {
    "commands/": ["demo/", "dispatch.ts"],
    "demo/": ["dispatch.ts", "index.ts"],
  },
};

/**
 * Package folder → { a folder of src/ → { its subfolders → the units inside it that may import
 * them } }: the same rule one level down, for a folder whose parts must not lean on each other.
 * acp-process's tools/ serves four tool surfaces that share core/: no surface imports another,
 * and only all.ts (which lists every tool) imports them all.
 */
const SUBFOLDER_IMPORTERS = {
  "acp-process": {
    "tools/": {
      "core/": ["*"],
      "exec-process/": ["all.ts"],
      "process-api/": ["all.ts"],
      "shell/": ["all.ts"],
      "unified-exec/": ["all.ts"],
    },
  },
};

function sourceFiles(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(ts|mts)$/.test(name) && !name.endsWith(".d.ts") ? [path] : [];
  });
}

function relativeImports(file) {
  const text = readFileSync(file, "utf8");
  const found = [];
  for (const match of text.matchAll(
    /(?:^|\n)\s*(?:import|export)\b[^;]*?\bfrom\s*["'](\.{1,2}\/[^"']+)["']|(?:^|\n)\s*import\s*["'](\.{1,2}\/[^"']+)["']/g,
  )) {
    const base = resolve(dirname(file), (match[1] ?? match[2]).replace(/\.js$/, ""));
    const target = [`${base}.ts`, join(base, "index.ts")].find((path) => existsSync(path));
    if (target) found.push(target);
  }
  return found;
}

function unitOf(root, file) {
  const path = relative(root, file);
  return path.includes("/") ? `${path.split("/")[0]}/` : path;
}

const violations = [];
let edgesChecked = 0;
const manifests = readdirSync("packages")
  .filter((dir) => existsSync(join("packages", dir, "package.json")))
  .map((dir) => ({
    dir,
    pkg: JSON.parse(readFileSync(join("packages", dir, "package.json"), "utf8")),
  }));
const names = new Set(manifests.map(({ pkg }) => pkg.name));

for (const { dir, pkg } of manifests) {
  if (!(pkg.name in PACKAGE_IMPORTERS)) {
    violations.push(
      `package ${pkg.name} has no rule in PACKAGE_IMPORTERS (scripts/import-boundaries.mjs)`,
    );
  }
  const deps = ["dependencies", "optionalDependencies", "peerDependencies", "devDependencies"]
    .flatMap((kind) => Object.keys(pkg[kind] ?? {}))
    .filter((dep) => names.has(dep));
  for (const dep of new Set(deps)) {
    edgesChecked++;
    if (!(PACKAGE_IMPORTERS[dep] ?? []).includes(pkg.name)) {
      violations.push(
        `${pkg.name} depends on ${dep}, which only ${PACKAGE_IMPORTERS[dep]?.join(", ") || "no package"} may depend on`,
      );
    }
  }

  const root = resolve("packages", dir, "src");
  if (!existsSync(root)) continue;
  const rules = FOLDER_IMPORTERS[dir];
  if (rules === undefined) {
    violations.push(
      `packages/${dir} has no rule in FOLDER_IMPORTERS (scripts/import-boundaries.mjs)`,
    );
    continue;
  }
  for (const name of readdirSync(root)) {
    if (statSync(join(root, name)).isDirectory() && !(`${name}/` in rules)) {
      violations.push(
        `packages/${dir}/src/${name}/ has no rule saying which folders may import it (FOLDER_IMPORTERS in scripts/import-boundaries.mjs)`,
      );
    }
  }
  const nested = SUBFOLDER_IMPORTERS[dir] ?? {};
  for (const [folder, subRules] of Object.entries(nested)) {
    for (const name of readdirSync(join(root, folder))) {
      if (statSync(join(root, folder, name)).isDirectory() && !(`${name}/` in subRules)) {
        violations.push(
          `packages/${dir}/src/${folder}${name}/ has no rule saying which parts of ${folder} may import it (SUBFOLDER_IMPORTERS in scripts/import-boundaries.mjs)`,
        );
      }
    }
  }
  for (const file of sourceFiles(root)) {
    const from = unitOf(root, file);
    for (const target of relativeImports(file)) {
      const to = unitOf(root, target);
      if (to === from && to in nested) {
        checkSubfolders(dir, resolve(root, to), nested[to], file, target);
        continue;
      }
      if (to === from || !to.endsWith("/")) continue;
      edgesChecked++;
      const allowed = rules[to] ?? [];
      if (!allowed.includes("*") && !allowed.includes(from)) {
        violations.push(
          `packages/${dir}/src/${relative(root, file)} imports ${relative(root, target)}: ${to} may be imported by ${allowed.join(", ") || "no other unit"} only`,
        );
      }
    }
  }
}

/** One import between two files of the same folder checked against that folder's subfolder rules. */
function checkSubfolders(dir, folderRoot, subRules, file, target) {
  const from = unitOf(folderRoot, file);
  const to = unitOf(folderRoot, target);
  if (to === from || !to.endsWith("/")) return;
  edgesChecked++;
  const allowed = subRules[to] ?? [];
  if (!allowed.includes("*") && !allowed.includes(from)) {
    violations.push(
      `packages/${dir}/src/${relative(resolve(folderRoot, ".."), file)} imports ${relative(resolve(folderRoot, ".."), target)}: ${to} may be imported by ${allowed.join(", ") || "no other part"} of its folder only`,
    );
  }
}

for (const violation of violations) console.log(`  ${violation}`);
console.log(
  `import boundaries: ${manifests.length} packages, ${edgesChecked} package dependencies and cross-folder imports checked, ${violations.length} violation(s)`,
);
if (violations.length > 0) process.exitCode = 1;
