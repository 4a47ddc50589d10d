#!/usr/bin/env node
// The installed `acp-terminal-conformance`: the program built in dist/ (`corepack pnpm build`). Committed, so an
// install before the first build links a file that exists.
import "../dist/main.js";
