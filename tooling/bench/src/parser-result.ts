import type { ParserBar } from "./plots.js";

/** Reads figures out of a parser bench result whose exact shape belongs to packages/core. */

export interface NumericLeaf {
  readonly path: string;
  readonly value: number;
}

/** Every numeric leaf with its dotted path (array items labelled by their `input`/`name` when present). */
export const numericLeaves = (value: unknown, path = ""): NumericLeaf[] => {
  if (typeof value === "number") return [{ path, value }];
  if (Array.isArray(value))
    return value.flatMap((item, i) => {
      const o = item as { input?: unknown; name?: unknown; chunkBytes?: unknown } | null;
      const tag = [o?.input ?? o?.name, typeof o?.chunkBytes === "number" ? `${o.chunkBytes}B` : undefined]
        .filter((x) => x !== undefined)
        .join("@");
      return numericLeaves(item, `${path}[${tag || i}]`);
    });
  if (typeof value === "object" && value !== null)
    return Object.entries(value).flatMap(([k, v]) => numericLeaves(v, path ? `${path}.${k}` : k));
  return [];
};

/** `…MBps`, `mbPerSecond`, `mb_per_sec` — but not `…1MBms` (a time in ms). */
const MBPS = /(mbps|mb_?per_?s(ec(ond)?)?)$/i;

/** The MB/s figures, labelled by the rest of their path (`throughputMBps.plainText` → `plainText`). */
export const parserBars = (result: unknown): ParserBar[] =>
  numericLeaves(result).flatMap((l) => {
    const segments = l.path.split(".");
    const at = segments.findIndex((s) => MBPS.test(s));
    if (at < 0) return [];
    const rest = at === segments.length - 1 ? segments.slice(0, at) : segments.slice(at + 1);
    return [{ label: rest.join(".").replace(/^throughput/, "") || l.path, mbPerSecond: l.value }];
  });

/** Every 4 MB / 1 MB time ratio the result reports (`linearity.*Ratio`). */
export const linearityRatios = (result: unknown): NumericLeaf[] =>
  numericLeaves(result).filter((l) => /linear/i.test(l.path) && /ratio$/i.test(l.path));
