import tseslint from "typescript-eslint";

const promiseRules = {
  "@typescript-eslint/no-floating-promises": "error",
  "@typescript-eslint/no-misused-promises": "error",
};

// Rules for every TypeScript file, source and tests alike.
const styleRules = {
  // Braces on every if/else/for/while body, so that adding a second line cannot leave it outside.
  curly: ["error", "all"],
};

export default tseslint.config(
  { ignores: ["**/dist/**", "**/node_modules/**", "**/*.js", "**/*.mjs", "**/*.cjs"] },
  // A disable comment that no longer silences anything is an error: remove it.
  { linterOptions: { reportUnusedDisableDirectives: "error" } },
  {
    files: ["packages/*/src/**/*.ts"],
    extends: [tseslint.configs.base],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      ...promiseRules,
      ...styleRules,
      // A cast tells the compiler to trust us; check the value instead (a type guard, a zod
      // safeParse, a better-typed variable). Where the types really cannot say it (an SDK's type
      // gap, say), disable it on that line with the reason after "--".
      "@typescript-eslint/no-unsafe-type-assertion": "error",
    },
  },
  {
    // Tests are type-checked by tsconfig.test.json (against the built packages), so lint them with it.
    // no-unsafe-type-assertion stays off here: tests cast the answers they then assert on (147
    // casts), and a wrong cast fails the assertion that follows it.
    files: ["test/**/*.ts", "packages/*/test/**/*.ts"],
    extends: [tseslint.configs.base],
    languageOptions: {
      parserOptions: { project: "./tsconfig.test.json", tsconfigRootDir: import.meta.dirname },
    },
    rules: { ...promiseRules, ...styleRules },
  },
);
