// Counts the names each entry point exports (values and types), from the built declarations.
// Usage: corepack pnpm build && node scripts/count-exports.mjs packages/acp-process/dist/index.d.ts ...
//        (LIST=1 also prints the names.)
//        node scripts/count-exports.mjs --check   (what `pnpm lint` runs)
// --check reads the entry-point tables of packages/*/README.md, rows such as
//   | `acp-terminal/keys` | what it holds | 5 |        or        | `acp-terminal` | ... | 84 (35 values) |
// and fails when a row's count is not what the package's built declarations export.
import fs from "node:fs";
import path from "node:path";
import ts from "typescript";

const root = path.resolve(import.meta.dirname, "..");

/**
 * The names each declaration file exports, and which of them are values.
 * @param {string[]} files
 * @returns {{ file: string, names: string[] | undefined, values: string[] }[]}
 */
export function exportsOf(files) {
  const program = ts.createProgram(files, {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    skipLibCheck: true,
  });
  const checker = program.getTypeChecker();
  return files.map((file) => {
    const source = program.getSourceFile(file);
    const module = source && checker.getSymbolAtLocation(source);
    if (!module) return { file, names: undefined, values: [] };
    const names = checker.getExportsOfModule(module);
    const values = names.filter(
      (name) =>
        (name.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(name) : name).flags &
        ts.SymbolFlags.Value,
    );
    return {
      file,
      names: names.map((name) => name.name).sort(),
      values: values.map((name) => name.name).sort(),
    };
  });
}

/** The README rows that state an entry point's count: import, README, line, names, values. */
export function documentedCounts() {
  const rows = [];
  const row = /^\| `([a-z][a-z0-9-]*(?:\/[a-z0-9-]+)?)`[^|]*\|.*\| (\d+)(?: \((\d+) values\))? \|$/;
  for (const dir of fs.readdirSync(path.join(root, "packages"))) {
    const readme = path.join(root, "packages", dir, "README.md");
    if (!fs.existsSync(readme)) continue;
    fs.readFileSync(readme, "utf8")
      .split("\n")
      .forEach((text, index) => {
        const match = row.exec(text);
        if (match)
          rows.push({
            entry: match[1],
            readme: path.relative(root, readme),
            line: index + 1,
            names: Number(match[2]),
            values: match[3] === undefined ? undefined : Number(match[3]),
          });
      });
  }
  return rows;
}

/** The built declaration file of an import such as `acp-terminal/keys`, from its package's exports. */
function declarationsOf(entry) {
  const [scopeless, ...rest] = entry.split("/");
  for (const dir of fs.readdirSync(path.join(root, "packages"))) {
    const manifestPath = path.join(root, "packages", dir, "package.json");
    if (!fs.existsSync(manifestPath)) continue;
    const manifest = JSON.parse(fs.readFileSync(manifestPath, "utf8"));
    if (manifest.name !== scopeless) continue;
    const types = manifest.exports?.[rest.length > 0 ? `./${rest.join("/")}` : "."]?.types;
    return types ? path.join(root, "packages", dir, types) : undefined;
  }
  return undefined;
}

/** The rows whose count differs from the built package, each with what it should say. */
export function countDrift() {
  const rows = documentedCounts();
  const files = rows.map((row) => declarationsOf(row.entry));
  const counted = exportsOf(files.filter((file) => file !== undefined));
  return rows.flatMap((row, index) => {
    const found = counted.find((entry) => entry.file === files[index]);
    if (!found?.names)
      return [{ ...row, problem: `no built declarations for ${row.entry} (build first?)` }];
    const names = found.names.length;
    const values = found.values.length;
    if (names === row.names && (row.values === undefined || values === row.values)) return [];
    const says = row.values === undefined ? `${names}` : `${names} (${values} values)`;
    return [{ ...row, problem: `${row.entry} exports ${says}: write that in the row's last cell` }];
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  if (process.argv[2] === "--check") {
    const drift = countDrift();
    for (const row of drift) console.error(`${row.readme}:${row.line}: ${row.problem}`);
    console.log(
      `${documentedCounts().length} entry points with a stated count, ${drift.length} wrong`,
    );
    if (drift.length > 0) process.exitCode = 1;
  } else {
    for (const { file, names, values } of exportsOf(process.argv.slice(2))) {
      if (!names) {
        console.log(`${file}: not a module (build first?)`);
        continue;
      }
      console.log(
        `${file}: ${names.length} names (${values.length} values, ${names.length - values.length} types only)`,
      );
      if (process.env.LIST) console.log(`  ${names.join(" ")}`);
    }
  }
}
