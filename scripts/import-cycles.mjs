// Counts import cycles between folders (and between files) of each package's src/, from the
// relative imports in the TypeScript sources (type-only imports count: they tie the layers too),
// and between the workspace's packages, from every kind of dependency their package.json declares
// (an optional peer or a dev dependency closes a cycle as surely as a dependency). A file directly
// in src/ (index.ts, errors.ts) is a unit of its own, so that the entry point on top and the shared
// base at the bottom do not make one folder. Also fails on a source file that imports a workspace
// package its package.json does not declare, or imports a module by a computed name (`import(x)`),
// which no compiler or checker follows.
// Exits 1 when it finds any of these; `pnpm lint` runs it.
// Usage: node scripts/import-cycles.mjs [packages/acp-process/src ...]
import { readFileSync, readdirSync, statSync, existsSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const roots = process.argv.slice(2);
const wholeWorkspace = roots.length === 0;
if (wholeWorkspace) {
  for (const name of readdirSync("packages"))
    if (existsSync(join("packages", name, "src"))) roots.push(join("packages", name, "src"));
}

function sourceFiles(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(ts|mts)$/.test(name) && !name.endsWith(".d.ts") ? [path] : [];
  });
}

function importsOf(file) {
  const text = readFileSync(file, "utf8");
  const found = [];
  for (const match of text.matchAll(
    /(?:^|\n)\s*(?:import|export)\b[^;]*?\bfrom\s*["'](\.{1,2}\/[^"']+)["']|(?:^|\n)\s*import\s*["'](\.{1,2}\/[^"']+)["']/g,
  )) {
    const spec = match[1] ?? match[2];
    const base = resolve(dirname(file), spec.replace(/\.js$/, ""));
    const target = [`${base}.ts`, join(base, "index.ts")].find((path) => existsSync(path));
    if (target) found.push(target);
  }
  return found;
}

function unitOf(root, file) {
  const folder = relative(root, dirname(file));
  return folder === "" ? relative(root, file) : `${folder}/`;
}

/** Strongly connected components with more than one member (Tarjan). */
function cycles(graph) {
  let index = 0;
  const stack = [];
  const meta = new Map();
  const result = [];
  const visit = (node) => {
    meta.set(node, { index, low: index, onStack: true });
    index++;
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (!meta.has(next)) {
        visit(next);
        meta.get(node).low = Math.min(meta.get(node).low, meta.get(next).low);
      } else if (meta.get(next).onStack)
        meta.get(node).low = Math.min(meta.get(node).low, meta.get(next).index);
    }
    if (meta.get(node).low === meta.get(node).index) {
      const component = [];
      for (;;) {
        const member = stack.pop();
        meta.get(member).onStack = false;
        component.push(member);
        if (member === node) break;
      }
      if (component.length > 1) result.push(component.sort());
    }
  };
  for (const node of graph.keys()) if (!meta.has(node)) visit(node);
  return result;
}

let problems = 0;
for (const root of roots) {
  const files = sourceFiles(root).map((file) => resolve(file));
  for (const file of files) {
    for (const line of computedImports(file)) {
      console.log(`  ${relative(".", file)}:${line}: import() of a computed module name`);
      problems++;
    }
  }
  const fileGraph = new Map();
  const folderGraph = new Map();
  const folderEdges = new Map();
  for (const file of files) {
    const targets = importsOf(file);
    fileGraph.set(file, new Set(targets));
    const from = unitOf(root, file);
    if (!folderGraph.has(from)) folderGraph.set(from, new Set());
    for (const target of targets) {
      const to = unitOf(root, target);
      if (to === from) continue;
      folderGraph.get(from).add(to);
      const key = `${from} -> ${to}`;
      folderEdges.set(key, [
        ...(folderEdges.get(key) ?? []),
        `${relative(root, file)} -> ${relative(root, target)}`,
      ]);
    }
  }
  const folderCycles = cycles(folderGraph);
  const fileCycles = cycles(fileGraph);
  console.log(
    `${root}: ${files.length} files, ${folderGraph.size} units (folders, and files directly in src/), ${folderCycles.length} folder-level cycle(s), ${fileCycles.length} file-level cycle(s)`,
  );
  for (const component of folderCycles) {
    console.log(`  folders in a cycle: ${component.join(", ")}`);
    for (const from of component) {
      for (const to of component) {
        for (const edge of folderEdges.get(`${from} -> ${to}`) ?? []) console.log(`    ${edge}`);
      }
    }
  }
  for (const component of fileCycles)
    console.log(`  files in a cycle: ${component.map((file) => relative(root, file)).join(", ")}`);
  problems += folderCycles.length + fileCycles.length;
}

if (wholeWorkspace) {
  problems += checkPackages();
}
if (problems > 0) {
  console.log(`${problems} problem(s): imports must point down (see the lines above)`);
  process.exitCode = 1;
}

/** Lines of `file` that call import() with anything but a string literal. */
function computedImports(file) {
  const lines = readFileSync(file, "utf8").split("\n");
  return lines.flatMap((line, index) =>
    /\bimport\(\s*(?!["'`])/.test(line) && !/^\s*(\/\/|\*)/.test(line) ? [index + 1] : [],
  );
}

/**
 * The package graph of packages/*: edges from every dependency kind of each package.json to the
 * other workspace packages; and every bare import of a workspace package in src/ must be declared
 * as a dependency, optional dependency or peer. Returns the number of problems found.
 */
function checkPackages() {
  const manifests = new Map();
  for (const name of readdirSync("packages")) {
    const file = join("packages", name, "package.json");
    if (existsSync(file)) manifests.set(name, JSON.parse(readFileSync(file, "utf8")));
  }
  const byName = new Map([...manifests].map(([dir, pkg]) => [pkg.name, dir]));
  const graph = new Map();
  const kinds = ["dependencies", "optionalDependencies", "peerDependencies", "devDependencies"];
  let found = 0;
  for (const [dir, pkg] of manifests) {
    const declared = kinds.flatMap((kind) => Object.keys(pkg[kind] ?? {}));
    graph.set(pkg.name, new Set(declared.filter((dep) => byName.has(dep))));
    const runtime = new Set(
      ["dependencies", "optionalDependencies", "peerDependencies"].flatMap((kind) =>
        Object.keys(pkg[kind] ?? {}),
      ),
    );
    const src = join("packages", dir, "src");
    if (!existsSync(src)) continue;
    for (const file of sourceFiles(src)) {
      const text = readFileSync(file, "utf8");
      for (const match of text.matchAll(/(?:from|import\()\s*["']([^."'][^"']*)["']/g)) {
        const spec = match[1];
        const name = spec.startsWith("@")
          ? spec.split("/").slice(0, 2).join("/")
          : spec.split("/")[0];
        if (byName.has(name) && name !== pkg.name && !runtime.has(name)) {
          console.log(
            `  ${file}: imports ${spec}, but ${pkg.name}'s package.json does not depend on ${name}`,
          );
          found++;
        }
      }
    }
  }
  const packageCycles = cycles(graph);
  const edges = [...graph].flatMap(([from, tos]) => [...tos].map((to) => `${from} -> ${to}`));
  console.log(
    `packages: ${graph.size} packages, ${edges.length} workspace dependencies, ${packageCycles.length} package-level cycle(s)`,
  );
  for (const edge of edges.sort()) console.log(`  ${edge}`);
  for (const component of packageCycles)
    console.log(`  packages in a cycle: ${component.join(", ")}`);
  return found + packageCycles.length;
}
