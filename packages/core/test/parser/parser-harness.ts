import { expect } from "vitest";
import type { ToolSpec } from "../../src/model/tool-spec.js";
import type { ParserEvent, SentinelParserOptions } from "../../src/parser/index.js";
import { createSentinelParser } from "../../src/parser/index.js";
import { createArgumentsValidator } from "../../src/tools/index.js";
import type { Expected } from "./message-arbitraries.js";

/** Tools used across the parser tests. */
export const TEST_TOOLS: ReadonlyArray<ToolSpec> = [
  {
    name: "search",
    strict: false,
    parameters: { type: "object", properties: { q: { type: "string" } }, required: ["q"] },
  },
  { name: "write_file", strict: false },
  { name: "get_time", strict: false },
  {
    name: "exact",
    strict: true,
    parameters: {
      type: "object",
      properties: { n: { type: "integer" } },
      required: ["n"],
      additionalProperties: false,
    },
  },
  { name: "localSearch", strict: false },
  { name: "webSearch", strict: false },
  { name: "getCurrentTime", strict: false },
  { name: "readNote", strict: false },
  { name: "writeToFile", strict: false },
  { name: "replaceInFile", strict: false },
];

export function parserOptions(
  tools: ReadonlyArray<ToolSpec> = TEST_TOOLS,
  extra: Partial<SentinelParserOptions> = {},
): SentinelParserOptions {
  return {
    tools: new Map(tools.map((t) => [t.name, t])),
    validator: createArgumentsValidator(tools),
    ...extra,
  };
}

/** Shared default: one validator, so each tool schema is compiled once per test file. */
const DEFAULT_OPTIONS = parserOptions();

/** Feeds the chunks to a fresh parser and returns every event, flush included. */
export function parseChunks(chunks: ReadonlyArray<string>, options = DEFAULT_OPTIONS): ParserEvent[] {
  const parser = createSentinelParser(options);
  const events: ParserEvent[] = [];
  for (const chunk of chunks) events.push(...parser.push(chunk));
  events.push(...parser.flush());
  return events;
}

/** Merges adjacent text events and adjacent deltas of the same call (chunking-independent view). */
export function normalize(events: ReadonlyArray<ParserEvent>): ParserEvent[] {
  const out: ParserEvent[] = [];
  for (const e of events) {
    const last = out[out.length - 1];
    if (e.type === "text-delta" && last?.type === "text-delta")
      out[out.length - 1] = { type: "text-delta", delta: last.delta + e.delta };
    else if (e.type === "tool-call-delta" && last?.type === "tool-call-delta" && last.index === e.index) {
      out[out.length - 1] = { ...last, delta: last.delta + e.delta };
    } else out.push(e);
  }
  return out;
}

/** The chunking-independent view of a parse, reduced to what the model predicts. */
export function observed(events: ReadonlyArray<ParserEvent>): Expected[] {
  const out: Expected[] = [];
  for (const e of normalize(events)) {
    if (e.type === "text-delta") out.push({ kind: "text", text: e.delta });
    else if (e.type === "tool-call-end")
      out.push({ kind: "call", name: e.name, arguments: e.arguments, format: e.format });
    else if (e.type === "tool-call-rejected") out.push({ kind: "text", text: `<<rejected ${e.reason}>>` });
  }
  return out;
}

/** Every chunking must give the same normalized events as one chunk, and keep the invariants. */
export function assertSameAsOneChunk(
  message: string,
  chunkings: ReadonlyArray<ReadonlyArray<string>>,
  options?: SentinelParserOptions,
) {
  const whole = parseChunks([message], options);
  assertInvariants(whole);
  const reference = normalize(whole);
  for (const chunks of chunkings) {
    const events = parseChunks(chunks, options);
    assertInvariants(events);
    expect(normalize(events)).toEqual(reference);
  }
  return whole;
}

export const parse = (message: string, options = DEFAULT_OPTIONS) =>
  normalize(parseChunks([message], options));

/** Splits into pieces at the given cut points (sorted, clamped, deduplicated). */
export function splitAt(s: string, cuts: ReadonlyArray<number>): string[] {
  const points = [...new Set(cuts.map((c) => Math.min(Math.max(c, 0), s.length)))].sort((a, b) => a - b);
  const pieces: string[] = [];
  let from = 0;
  for (const p of points) {
    pieces.push(s.slice(from, p));
    from = p;
  }
  pieces.push(s.slice(from));
  return pieces;
}

const isParsable = (s: string) => {
  try {
    JSON.parse(s);
    return true;
  } catch {
    return false;
  }
};

/**
 * The wire invariants of one parse: calls are start → deltas → end, never interleaved, indexed
 * 0, 1, 2 …; deltas concatenate to the final arguments, which are a JSON object; no earlier
 * prefix parses (the Vercel AI SDK would finish the call there); no event splits a surrogate
 * pair; a soft rejection is followed by its raw block as text; a call is withdrawn only while open.
 */
export function assertInvariants(events: ReadonlyArray<ParserEvent>): void {
  let open: { index: number; args: string } | undefined;
  let nextIndex = 0;
  events.forEach((e, i) => {
    if (e.type === "tool-call-start") {
      expect(open, "call-start inside another call").toBeUndefined();
      expect(e.index).toBe(nextIndex);
      nextIndex += 1;
      open = { index: e.index, args: "" };
      return;
    }
    if (e.type === "tool-call-delta") {
      expect(open?.index, "delta outside its call").toBe(e.index);
      if (!open) return;
      // A prefix starting with `{` can only parse if it ends with `}` (cheap pre-check).
      const parses = /\}\s*$/.test(open.args) && isParsable(open.args);
      expect(parses, `prefix ${JSON.stringify(open.args)} already parses`).toBe(false);
      open.args += e.delta;
      expect(e.delta.length).toBeGreaterThan(0);
      return;
    }
    if (e.type === "tool-call-end") {
      expect(open?.index, "call-end outside its call").toBe(e.index);
      expect(open?.args).toBe(e.arguments);
      const value: unknown = JSON.parse(e.arguments);
      expect(typeof value === "object" && value !== null && !Array.isArray(value)).toBe(true);
      open = undefined;
      return;
    }
    if (e.type === "tool-call-rejected" && e.index !== undefined) {
      // A started call withdrawn (cut off or over the limit): it ends here, never as a call.
      expect(open?.index, "withdrawal of a call that is not open").toBe(e.index);
      expect(e.strict).toBe(false);
      open = undefined;
    }
    expect(open, `${e.type} inside a call`).toBeUndefined();
    if (e.type === "tool-call-rejected" && !e.strict) {
      const next = events[i + 1];
      expect(
        next?.type === "text-delta" && next.delta.startsWith(e.raw),
        "soft rejection without its raw text",
      ).toBe(true);
    }
    if (e.type === "text-delta") {
      expect(e.delta.length).toBeGreaterThan(0);
      expect(/^[\uDC00-\uDFFF]|[\uD800-\uDBFF]$/.test(e.delta), "text splits a surrogate pair").toBe(false);
    }
  });
  expect(open, "call left open").toBeUndefined();
  for (const e of events) {
    if (e.type === "tool-call-delta")
      expect(/[\uD800-\uDBFF]$/.test(e.delta), "delta ends in a high surrogate").toBe(false);
  }
}
