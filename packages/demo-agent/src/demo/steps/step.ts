import type { DemoSession } from "../../session.js";

/** Message text for the tour, with the step's facts for programs in `_meta["demo-agent"]`. */
export type Say = (text: string, facts?: Record<string, unknown>) => Promise<void>;

/** One stop of the tour: a title, announced before it runs, and what it does. */
export interface Step {
  title: string;
  run(session: DemoSession, say: Say): Promise<void>;
}
