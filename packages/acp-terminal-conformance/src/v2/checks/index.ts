import type { V2Check } from "../base/check.js";
import { cancelChecks } from "./cancel.js";
import { streamChecks } from "./stream.js";
import { unknownVariantChecks } from "./unknown-variants.js";

/** Every v2 check, in the order they run: robustness first, the cancel window last. */
export const ALL_V2_CHECKS: readonly V2Check[] = [
  ...streamChecks,
  ...unknownVariantChecks,
  ...cancelChecks,
];
