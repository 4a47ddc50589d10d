import { bubblewrapSupport } from "../sandbox/bubblewrap-support.js";

/**
 * What a rule approves runs confined: in the read-only sandbox without network (bubblewrap),
 * where nothing is writable but a private /tmp (so neither `.git` nor the home directory), since
 * a rule cannot know what a program reads (a repository's config, a Makefile, a package.json) and
 * runs. Where bubblewrap cannot be had, rules approve nothing: why, and what to install, or
 * undefined when commands can be confined here. Found out once per process (~10 ms).
 */
export function confinementProblem(): string | undefined {
  const support = bubblewrapSupport();
  return support.available
    ? undefined
    : `what a rule approves runs in a read-only sandbox, which cannot be had here: ${support.reason}`;
}
