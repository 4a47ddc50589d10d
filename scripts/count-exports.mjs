// Counts the names each entry point exports (values and types), from the built declarations.
// Usage: corepack pnpm build && node scripts/count-exports.mjs packages/acp-process/dist/index.d.ts ...
// (LIST=1 also prints the names.)
import ts from "typescript";

const files = process.argv.slice(2);
const program = ts.createProgram(files, {
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  target: ts.ScriptTarget.ES2022,
  skipLibCheck: true,
});
const checker = program.getTypeChecker();
for (const file of files) {
  const source = program.getSourceFile(file);
  const module = source && checker.getSymbolAtLocation(source);
  if (!module) {
    console.log(`${file}: not a module (build first?)`);
    continue;
  }
  const names = checker.getExportsOfModule(module);
  const values = names.filter(
    (name) =>
      (name.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(name) : name).flags &
      ts.SymbolFlags.Value,
  );
  console.log(
    `${file}: ${names.length} names (${values.length} values, ${names.length - values.length} types only)`,
  );
  if (process.env.LIST)
    console.log(
      `  ${names
        .map((name) => name.name)
        .sort()
        .join(" ")}`,
    );
}
