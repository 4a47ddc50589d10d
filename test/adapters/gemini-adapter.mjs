// Gemini CLI as the recorder of the CLI runs it (record-cli.mjs): its npm package and version, its
// ACP mode, the stand-in for the Gemini API it talks to (GOOGLE_GEMINI_BASE_URL) and the fresh HOME
// each run gets. Installed beside the two adapters (adapters.mjs, installAdapters).
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startGeminiStandIn } from "./gemini-stand-in.mjs";

/** @type {import("./adapters.mjs").Adapter & { args: string[] }} */
export const GEMINI = {
  name: "@google/gemini-cli",
  version: "0.61.0",
  entry: "bundle/gemini.js",
  args: ["--acp"],
  startStandIn: startGeminiStandIn,
  prepare(home, standInUrl) {
    const config = join(home, ".gemini");
    mkdirSync(config, { recursive: true });
    writeFileSync(
      join(config, "settings.json"),
      JSON.stringify({
        security: { auth: { selectedType: "gemini-api-key" } },
        general: { disableAutoUpdate: true, disableUpdateNag: true },
        privacy: { usageStatisticsEnabled: false },
        telemetry: { enabled: false },
      }),
    );
    return {
      GEMINI_API_KEY: "stand-in-key",
      GOOGLE_GEMINI_BASE_URL: standInUrl,
      GEMINI_CLI_NO_RELAUNCH: "true",
    };
  },
  breakNewSession: {
    how: "no GEMINI_API_KEY",
    apply(env) {
      delete env.GEMINI_API_KEY;
    },
  },
};
