import type { EnvVariable } from "../host/types.js";

/**
 * What a git approved by a pattern runs with, as configuration of the command line's rank (it
 * overrides the repository's, submodules' included: git passes it to the gits it starts): no
 * fsmonitor, no hooks (`post-index-change` runs when `git status` refreshes the index), no pager,
 * no look into submodules (their own config would run), no submodule diffs, no signature checks,
 * no transport at all (a promisor remote's lazy fetch runs its URL: `ext::sh -c …`); and no
 * optional index writes at all. `GIT_ALLOW_PROTOCOL` empty (no protocol) beats even a repository's
 * `protocol.<name>.allow`, which `protocol.allow` alone does not.
 */
const GIT_NEUTRAL_CONFIG: readonly (readonly [string, string])[] = [
  ["core.fsmonitor", "false"],
  ["core.hooksPath", "/dev/null"],
  ["core.pager", "cat"],
  ["diff.ignoreSubmodules", "all"],
  ["diff.submodule", "short"],
  ["status.submoduleSummary", "false"],
  ["submodule.recurse", "false"],
  ["log.showSignature", "false"],
  ["protocol.allow", "never"],
];

export const GIT_NEUTRAL_ENV: readonly EnvVariable[] = [
  { name: "GIT_CONFIG_COUNT", value: String(GIT_NEUTRAL_CONFIG.length) },
  ...GIT_NEUTRAL_CONFIG.flatMap(([key, value], i) => [
    { name: `GIT_CONFIG_KEY_${i}`, value: key },
    { name: `GIT_CONFIG_VALUE_${i}`, value },
  ]),
  { name: "GIT_OPTIONAL_LOCKS", value: "0" },
  { name: "GIT_PAGER", value: "cat" },
  { name: "GIT_ALLOW_PROTOCOL", value: "" },
  { name: "GIT_NO_LAZY_FETCH", value: "1" },
];
