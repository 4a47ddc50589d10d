/**
 * Every process a command started, those that left its process group (setsid, a double fork)
 * included: what kill and release sweep after the group (kill.ts). The launcher keeps one per
 * command (contain/launcher.ts); the direct backends have none.
 */
export interface ProcessTree {
  /** True until nothing the command started is left. */
  readonly treeAlive: boolean;
  readonly emptied: Promise<void>;
  /** `signal` to every process of the tree outside the command's process group; SIGKILL to all. */
  signalTree(signal: NodeJS.Signals): void;
}
