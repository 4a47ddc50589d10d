import { runToExit, sh, type Check } from "../base/check.js";
import { expect } from "../base/probe.js";

/** A character as printf octal escapes, so the command line stays ASCII. */
function octal(char: string): string {
  return [...Buffer.from(char, "utf8")]
    .map((byte) => `\\${byte.toString(8).padStart(3, "0")}`)
    .join("");
}

function bytes(text: string): number {
  return Buffer.byteLength(text, "utf8");
}

/** Valid text: no replacement characters and no lone surrogates. */
function isValidText(text: string): boolean {
  return (
    !text.includes("\uFFFD") &&
    !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(text)
  );
}

/**
 * Prints `count` copies of `char` (its width in bytes does not divide `limit`, so the cut must
 * move past a partial character) and checks what the client kept.
 */
function boundaryCheck(width: number, char: string, count: number, limit: number): Check {
  const full = char.repeat(count);
  const keep = char.repeat(Math.floor(limit / width));
  return {
    id: `limit-char-boundary-${width}-byte`,
    name: `truncation falls on a character boundary (${width}-byte characters)`,
    kind: "must",
    async run(ctx) {
      const { output, truncated } = await runToExit(ctx, {
        ...sh(`printf '${octal(char).repeat(count)}'`),
        outputByteLimit: limit,
      });
      expect(isValidText(output), `output is not valid text: ${JSON.stringify(output)}`);
      expect(
        bytes(output) <= limit,
        `output is ${bytes(output)} bytes, over the limit of ${limit}`,
      );
      expect(
        full.endsWith(output),
        `output ${JSON.stringify(output)} is not a suffix of what was printed`,
      );
      expect(
        bytes(output) > limit - width,
        `output is ${bytes(output)} bytes; a whole character more fits in ${limit}`,
      );
      expect(truncated === true, `truncated must be true, got ${String(truncated)}`);
      expect(output === keep, `expected ${JSON.stringify(keep)}, got ${JSON.stringify(output)}`);
      return `${bytes(full)} bytes of ${JSON.stringify(char)} with limit ${limit}: kept ${bytes(output)} bytes, valid, truncated`;
    },
  };
}

export const limitChecks: Check[] = [
  {
    id: "limit-truncates-from-beginning",
    name: "outputByteLimit drops output from the beginning and sets truncated",
    kind: "must",
    async run(ctx) {
      const { output, truncated } = await runToExit(ctx, {
        ...sh("printf 0123456789abcdefghij"),
        outputByteLimit: 10,
      });
      expect(
        output === "abcdefghij",
        `expected the newest 10 bytes "abcdefghij", got ${JSON.stringify(output)}`,
      );
      expect(truncated === true, `truncated must be true, got ${String(truncated)}`);
      return `20 bytes with limit 10: kept "abcdefghij", truncated`;
    },
  },
  boundaryCheck(2, "é", 10, 5),
  boundaryCheck(3, "€", 10, 10),
  boundaryCheck(4, "😀", 5, 10),
  {
    id: "limit-exact-not-truncated",
    name: "output of exactly outputByteLimit bytes is not truncated",
    kind: "must",
    async run(ctx) {
      const { output, truncated } = await runToExit(ctx, {
        ...sh("printf 0123456789"),
        outputByteLimit: 10,
      });
      expect(output === "0123456789", `expected all 10 bytes, got ${JSON.stringify(output)}`);
      expect(
        truncated === false,
        `truncated must be false when nothing was dropped, got ${String(truncated)}`,
      );
      return "10 bytes with limit 10: all kept, not truncated";
    },
  },
];
