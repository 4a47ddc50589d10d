import type { V2Check } from "../base/check.js";
import { cancelChecks } from "./cancel.js";
import { robustnessChecks } from "./robustness.js";

/** Every v2 check, in the order they run: robustness first, the cancel window last. */
export const ALL_V2_CHECKS: readonly V2Check[] = [...robustnessChecks, ...cancelChecks];
