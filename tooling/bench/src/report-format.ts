/** Markdown building blocks for docs/benchmarks.md. */

export const f = (x: number | undefined, digits = 2): string =>
  x === undefined || Number.isNaN(x) ? "n/a" : Number.isFinite(x) ? x.toFixed(digits) : String(x);

export const signed = (x: number, digits = 2): string => (x >= 0 ? `+${f(x, digits)}` : f(x, digits));

/** A figure with its unit, or "n/a" alone when it is missing. */
export const withUnit = (text: string, unit: string): string => (text === "n/a" ? text : `${text} ${unit}`);

export const table = (head: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string>>): string =>
  [
    `| ${head.join(" | ")} |`,
    `| ${head.map(() => "---").join(" | ")} |`,
    ...rows.map((r) => `| ${r.join(" | ")} |`),
  ].join("\n");

export const verdict = (met: boolean | undefined): string =>
  met === undefined ? "not measured" : met ? "**met**" : "**missed**";

export interface Goal {
  readonly goal: string;
  readonly measured: string;
  readonly met: boolean | undefined;
}
