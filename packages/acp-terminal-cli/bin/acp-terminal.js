#!/usr/bin/env node
// The installed `acp-terminal` command: the built program in dist/. This small file is committed so that
// an install before the first build links a bin that exists (one pointing into dist/ made pnpm warn).
const main = new URL("../dist/main.js", import.meta.url);
await import(main.href).catch((/** @type {{ code?: string, url?: string }} */ error) => {
  if (error?.code === "ERR_MODULE_NOT_FOUND" && String(error).includes(main.pathname)) {
    process.stderr.write(
      "acp-terminal is not built yet: run `corepack pnpm build` in the repository.\n",
    );
    process.exit(1);
  }
  throw error;
});
