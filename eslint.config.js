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

// no-restricted-syntax rules: each message says what to use instead. ESLint does not merge this
// rule across config blocks (the last block that matches a file wins), so blocks list every set
// that applies to their files.
const restrictMessageOf = [
  {
    selector:
      "ConditionalExpression[test.operator='instanceof'][test.right.name='Error'][consequent.property.name='message'][alternate.callee.name='String']",
    message:
      "Use messageOf(error) instead of formatting a thrown value by hand: defined once, in acp-terminal's src/core/thrown.ts; the other packages import it from acp-terminal/internal (acp-process also through src/errors.ts).",
  },
];
const restrictExit = [
  {
    selector: "CallExpression[callee.object.name='process'][callee.property.name='exit']",
    message:
      "process.exit() belongs in an entry point (a main.ts) only: return an exit code or throw, and let main.ts exit, so that pending output is written and callers (and tests) keep control.",
  },
];
const restrictConsole = [
  {
    selector:
      "CallExpression[callee.object.name='console'][callee.property.name=/^(log|info|debug|trace)$/]",
    message:
      "Library code prints nothing on its own: write to the stream the caller gave (io.stdout, io.stderr), or report through a callback option (onEvent, onError).",
  },
];
const librarySyntax = [...restrictMessageOf, ...restrictExit, ...restrictConsole];
const restrictClock = [
  {
    selector: "CallExpression[callee.object.name='Date'][callee.property.name='now']",
    message:
      "No Date.now() in runs/: use the injected clock (ctx.clock / this.clock, see src/clock.ts) so that ManualClock tests control time. A real-time bound on a client call: withinMs()/sleep/realNowMs from runs/run/deadline.ts.",
  },
  {
    selector: "NewExpression[callee.name='Date']",
    message:
      "No new Date() in runs/: take the time from the injected clock (clock.now(), see src/clock.ts) and format that.",
  },
  {
    selector: "CallExpression[callee.name=/^(setTimeout|setInterval)$/]",
    message:
      "No setTimeout/setInterval in runs/: use clock.setTimeout() or repeatOnClock() (src/clock.ts), which tests drive with ManualClock. A real-time bound on a client call: withinMs()/sleep from runs/run/deadline.ts.",
  },
  {
    selector: "ImportDeclaration[source.value=/^node:timers/]",
    message:
      "No node:timers in runs/: timers come from the injected clock (src/clock.ts); real-time waits on a client live in runs/run/deadline.ts only.",
  },
];
const restrictTestSleeps = [
  {
    // A sleep: `new Promise((resolve) => setTimeout(resolve, ms))`. Deadlines (setTimeout(reject…)) pass.
    selector:
      "NewExpression[callee.name='Promise'] > ArrowFunctionExpression > CallExpression[callee.name='setTimeout'][arguments.0.type='Identifier']",
    message:
      "No sleeps in tests: wait for the condition itself with until() (test/support/until.ts), or for a readiness line the fixture prints.",
  },
];

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
      "no-restricted-syntax": ["error", ...librarySyntax],
    },
  },
  {
    // Entry points exit the process.
    files: ["packages/*/src/**/main.ts"],
    rules: { "no-restricted-syntax": ["error", ...restrictMessageOf, ...restrictConsole] },
  },
  {
    files: ["packages/acp-process/src/runs/**/*.ts"],
    ignores: ["packages/acp-process/src/runs/run/deadline.ts"],
    rules: { "no-restricted-syntax": ["error", ...librarySyntax, ...restrictClock] },
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
    rules: {
      ...promiseRules,
      ...styleRules,
      "no-restricted-syntax": ["error", ...restrictTestSleeps],
    },
  },
  {
    // until() itself is the one place that waits between checks.
    files: ["test/support/until.ts", "packages/acp-process/test/support.ts"],
    rules: { "no-restricted-syntax": "off" },
  },
);
