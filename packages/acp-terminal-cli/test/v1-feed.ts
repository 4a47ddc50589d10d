import type { SessionUpdate } from "@agentclientprotocol/sdk";
import { showV1Update } from "../src/readers/v1-updates.js";
import type { Renderer } from "../src/view/renderer.js";

/**
 * A renderer as the v1 driver feeds it: `sessionUpdate` takes an ACP v1 session update through
 * the driver's own mapping to view events (`showV1Update`), so these tests hold what a v1
 * conversation shows, from the wire to the screen.
 */
export function fedByV1<R extends Renderer>(
  renderer: R,
): R & { sessionUpdate(update: SessionUpdate): void } {
  return Object.assign(renderer, {
    sessionUpdate: (update: SessionUpdate) => showV1Update(update, renderer),
  });
}
