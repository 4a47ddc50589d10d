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
  {
    files: ["packages/*/src/**/*.ts"],
    extends: [tseslint.configs.base],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: { ...promiseRules, ...styleRules },
  },
  {
    // Tests are type-checked by tsconfig.test.json (against the built packages), so lint them with it.
    files: ["test/**/*.ts", "packages/*/test/**/*.ts"],
    extends: [tseslint.configs.base],
    languageOptions: {
      parserOptions: { project: "./tsconfig.test.json", tsconfigRootDir: import.meta.dirname },
    },
    rules: { ...promiseRules, ...styleRules },
  },
);
