import { availableParallelism, totalmem } from "node:os";
import { ProcessError } from "../../base/errors.js";
import type { ProcessManager } from "../../runs/manager/manager.js";
import type { ResourceLimits } from "../../model/run-record.js";
import type { RunSnapshot } from "../../model/run-events.js";

// How process.run reads a run's end as the specification's errors (CommandNotFound, SpawnFailed,
// ResourceLimitExceeded), and turns cpu_limit/memory_limit into kernel limits.

/** `ResourceLimitExceeded` when the run ended by its limits: SIGXCPU (the CPU rlimit), or an allocation failure under a memory limit. */
export function limitExceeded(manager: ProcessManager, run: RunSnapshot): string | null {
  const limits = run.resourceLimits;
  if (!limits || run.status === "killed" || run.status === "timed_out") {
    return null;
  }
  if (limits.cpuSeconds !== undefined && run.signal === "SIGXCPU") {
    return `the command used its CPU allowance of ${limits.cpuSeconds} CPU seconds (cpu_limit × timeout) and was stopped by SIGXCPU`;
  }
  const failed = run.signal !== null || (run.exitCode !== null && run.exitCode !== 0);
  if (limits.memoryBytes !== undefined && run.signal === "SIGKILL") {
    // Not our kill (status is not killed): the kernel's OOM killer, at the tree's cgroup limit.
    return `the command was killed by the kernel's OOM killer at its memory_limit of ${limits.memoryBytes} bytes (the whole process tree's memory, a cgroup limit)`;
  }
  if (limits.memoryBytes !== undefined && failed) {
    const tail = manager.tail(run.id, { maxChars: 4000 }).text;
    if (
      /cannot allocate|out of memory|bad_alloc|MemoryError|ENOMEM|allocation failed|memory exhausted/i.test(
        tail,
      )
    ) {
      return `the command failed to allocate memory under its memory_limit of ${limits.memoryBytes} bytes (RLIMIT_AS)`;
    }
  }
  return null;
}

/**
 * A command that never ran although a shell started: the shell (running a command line, or the
 * rlimit wrapper exec'ing the program) exited 127 and its last words are that the command's first
 * word was not found (`bash: line 1: foo: command not found`, `sh: 1: exec: foo: not found`).
 * Only the command's own first word counts: a missing tool deeper in a script is the script's
 * exit code, not this.
 */
export function shellCommandNotFound(manager: ProcessManager, run: RunSnapshot): boolean {
  if (run.exitCode !== 127 || (run.args !== null && !run.resourceLimits)) {
    return false;
  }
  const program = run.args === null ? /^\s*(\S+)/.exec(run.command)?.[1] : run.command;
  if (!program) {
    return false;
  }
  const escaped = program.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`: ${escaped}: (command )?not found\\n?$`).test(
    manager.tail(run.id, { maxChars: 1000 }).text,
  );
}

/** The error for a run that never started, named as the specification names it. */
export function startError(run: RunSnapshot): ProcessError {
  const reason = run.error ?? "the command could not be started";
  if (run.startFailure === "command_not_found") {
    return new ProcessError(
      "CommandNotFound",
      `${reason} (process_id ${run.id}). Check that it is installed with process.run(command='which', args=['<name>']), or give its absolute path.`,
    );
  }
  return new ProcessError(
    "SpawnFailed",
    `${reason} (process_id ${run.id}). Check that the command is executable, that working_directory exists, and that the client allows it; then retry.`,
  );
}

/** `cpu_limit` × the run's timeout as an RLIMIT_CPU allowance, and `memory_limit` as RLIMIT_AS; checked against this machine. */
export function limitsFor(
  input: { cpu_limit?: number | undefined; memory_limit?: number | undefined },
  timeoutS: number,
): ResourceLimits | undefined {
  if (input.cpu_limit === undefined && input.memory_limit === undefined) {
    return undefined;
  }
  const limits: ResourceLimits = {};
  if (input.cpu_limit !== undefined) {
    const cores = availableParallelism();
    if (input.cpu_limit > cores) {
      throw ProcessError.invalidParams(
        "cpu_limit",
        `at most ${cores} (the cores this agent has)`,
        input.cpu_limit,
      );
    }
    if (timeoutS === 0) {
      throw ProcessError.invalidParams(
        "cpu_limit",
        "a timeout with it on a background run: the limit is enforced as cpu_limit × timeout CPU seconds (RLIMIT_CPU), so it needs a time window",
        input.cpu_limit,
      );
    }
    limits.cpuSeconds = Math.max(1, Math.ceil(input.cpu_limit * timeoutS));
    limits.cpuCores = input.cpu_limit;
  }
  if (input.memory_limit !== undefined) {
    if (input.memory_limit > totalmem()) {
      throw ProcessError.invalidParams(
        "memory_limit",
        `at most ${totalmem()} bytes (this machine's memory)`,
        input.memory_limit,
      );
    }
    limits.memoryBytes = input.memory_limit;
  }
  return limits;
}
