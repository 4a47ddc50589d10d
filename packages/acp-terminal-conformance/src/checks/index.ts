import type { Check } from "../base/check.js";
import { behaviourChecks } from "./behaviour.js";
import { processBehaviourChecks } from "./behaviour-process.js";
import { extensionChecks } from "./extensions.js";
import { lifecycleChecks } from "./lifecycle.js";
import { limitChecks } from "./limits.js";
import { processChecks } from "./process.js";

/** Every check, in the order they run: spec first, then behaviour, then extensions. */
export const ALL_CHECKS: readonly Check[] = [
  ...lifecycleChecks,
  ...limitChecks,
  ...processChecks,
  ...behaviourChecks,
  ...processBehaviourChecks,
  ...extensionChecks,
];
