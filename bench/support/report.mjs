/**
 * Printing figures: each beside its baseline measured in the same run, the ratio, the goal and
 * whether it was met. Goals are information: nothing here fails a run on time.
 */

const pad = (text, width) => String(text).padEnd(width);

export const fmt = {
  ms: (value) =>
    Number.isFinite(value) ? `${value < 10 ? value.toFixed(2) : value.toFixed(1)} ms` : "n/a",
  mbps: (value) => `${value.toFixed(0)} MB/s`,
  mb: (bytes) => `${(bytes / 1_000_000).toFixed(1)} MB`,
  ratio: (value) => (Number.isFinite(value) ? `${value.toFixed(2)}x` : "n/a"),
  s: (ms) => `${(ms / 1000).toFixed(2)} s`,
};

/** Collects rows and prints them as one aligned table. */
export class Report {
  #rows = [];
  #notes = [];

  /**
   * @param {{figure: string, value: string, baseline?: string, ratio?: string, goal?: string, met?: boolean}} row
   */
  row(row) {
    this.#rows.push(row);
  }

  note(text) {
    this.#notes.push(text);
  }

  /** Goals with a verdict: met and missed counts. */
  get verdicts() {
    const judged = this.#rows.filter((row) => row.met !== undefined);
    return {
      met: judged.filter((row) => row.met).length,
      missed: judged.filter((row) => !row.met).length,
    };
  }

  print() {
    const columns = /** @type {const} */ ([
      ["figure", (row) => row.figure],
      ["value", (row) => row.value],
      ["baseline (same run)", (row) => row.baseline ?? ""],
      ["ratio", (row) => row.ratio ?? ""],
      ["goal", (row) => row.goal ?? ""],
      ["met", (row) => (row.met === undefined ? "" : row.met ? "yes" : "NO")],
    ]);
    const widths = columns.map(([title, cell]) =>
      Math.max(title.length, ...this.#rows.map((row) => String(cell(row)).length)),
    );
    const line = (cells) =>
      cells
        .map((cell, i) => pad(cell, widths[i]))
        .join("  ")
        .trimEnd();
    console.log(line(columns.map(([title]) => title)));
    console.log(line(widths.map((width) => "-".repeat(width))));
    for (const row of this.#rows) console.log(line(columns.map(([, cell]) => cell(row))));
    for (const note of this.#notes) console.log(`  note: ${note}`);
    const { met, missed } = this.verdicts;
    console.log(
      `goals: ${met} met, ${missed} missed (figures only; a missed goal does not fail the run)`,
    );
  }
}

/** Prints a benchmark's title and a line saying what it measures. */
export function header(title, what) {
  console.log(`${title}\n${what}\n`);
}
