import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ParserEvent } from "../../src/parser/index.js";
import { assertInvariants, normalize, parseChunks, splitAt } from "./parser-harness.js";

/**
 * A repair only adds what the model left out (escapes, closing brackets), so a repaired call
 * carries exactly the value the model wrote, or the block is not a call; a valid block beside a
 * broken one is never lost; and neither depends on how the text was cut into pushes.
 */

const SEED = 20261202;
const CLOSE = "</tool_call>";
const OPEN = "<tool_call>";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Strings built from the pieces that trip repairs: quotes, backslashes, tabs, newlines, the tags. */
const text = fc
  .array(
    fc.constantFrom(
      '"',
      "\\",
      "\t",
      "\n",
      " ",
      "a",
      "b",
      "x",
      "<",
      ">",
      "/",
      "{",
      "}",
      ",",
      ":",
      CLOSE,
      OPEN,
      "é",
    ),
    { maxLength: 14 },
  )
  .map((parts) => parts.join(""));
const key = fc.constantFrom("content", "path", "q", "n", "items");
const value: fc.Arbitrary<Json> = fc.letrec<{ v: Json }>((tie) => ({
  v: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    text,
    text,
    fc.integer({ min: -1000, max: 1000 }),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie("v"), { maxLength: 3 }),
    fc.dictionary(key, tie("v"), { maxKeys: 3 }),
  ),
})).v;
const argumentsValue = fc.dictionary(key, value, { minKeys: 1, maxKeys: 4 });

/** How carelessly the model writes strings: each flag leaves out escapes it should have written. */
interface Sloppiness {
  readonly rawControls: boolean;
  readonly rawQuotes: boolean;
  readonly rawBackslashes: boolean;
}
const sloppiness = fc.record({
  rawControls: fc.boolean(),
  rawQuotes: fc.boolean(),
  rawBackslashes: fc.boolean(),
});

const WS = new Set([" ", "\t", "\n", "\r"]);
const AMBIGUOUS_AFTER_QUOTE = new Set(['"', ",", ":", "{", "}", "[", "]"]);
const ESCAPE_LETTERS = new Set(['"', "\\", "/", "b", "f", "n", "r", "t", "u"]);

/** A quote the model leaves unescaped can be read back only if what follows cannot go on as JSON. */
function quoteReadsBack(s: string, at: number): boolean {
  for (let k = at + 1; k < s.length; k += 1) {
    const ch = s[k] as string;
    if (!WS.has(ch)) return !AMBIGUOUS_AFTER_QUOTE.has(ch);
  }
  return false;
}

/** A bare backslash reads back only before a character written as is that starts no escape. */
function backslashReadsBack(s: string, at: number, style: Sloppiness): boolean {
  const next = s[at + 1];
  if (next === undefined || ESCAPE_LETTERS.has(next)) return false;
  const code = next.charCodeAt(0);
  return code >= 0x20 || style.rawControls;
}

function writeString(s: string, style: Sloppiness): string {
  let out = '"';
  for (let k = 0; k < s.length; k += 1) {
    const ch = s[k] as string;
    const code = ch.charCodeAt(0);
    if (ch === '"') out += style.rawQuotes && quoteReadsBack(s, k) ? '"' : '\\"';
    else if (ch === "\\") out += style.rawBackslashes && backslashReadsBack(s, k, style) ? "\\" : "\\\\";
    else if (code < 0x20) out += style.rawControls ? ch : JSON.stringify(ch).slice(1, -1);
    else out += ch;
  }
  return `${out}"`;
}

/** JSON as a careless model writes it (keys are always clean: nothing is repaired in keys). */
function write(v: Json, style: Sloppiness): string {
  if (typeof v === "string") return writeString(v, style);
  if (Array.isArray(v)) return `[${v.map((x) => write(x, style)).join(", ")}]`;
  if (v !== null && typeof v === "object")
    return `{${Object.entries(v)
      .map(([k, x]) => `${JSON.stringify(k)}: ${write(x, style)}`)
      .join(", ")}}`;
  return JSON.stringify(v);
}

const block = (args: string, closeBraces = true) =>
  `${OPEN}{"name":"write_file","arguments":${closeBraces ? `${args}}` : args.slice(0, -1)}${CLOSE}`;

const ends = (events: ReadonlyArray<ParserEvent>) =>
  events.flatMap((e) => (e.type === "tool-call-end" ? [e] : []));

/** Parses in one piece, char by char and at the given cuts: the same events every time. */
function parseEveryWay(message: string, cuts: ReadonlyArray<number>): ParserEvent[] {
  const whole = parseChunks([message]);
  assertInvariants(whole);
  const reference = normalize(whole);
  for (const chunks of [[...message], splitAt(message, cuts)]) {
    const events = parseChunks(chunks);
    assertInvariants(events);
    expect(normalize(events)).toEqual(reference);
  }
  return reference;
}

const cuts = fc.array(fc.nat({ max: 600 }), { maxLength: 8 });

describe("repair never changes what the model meant", () => {
  it("a call carries exactly the value written: clean, careless, or missing its closing braces (500 runs)", {
    timeout: 120_000,
  }, () => {
    fc.assert(
      fc.property(argumentsValue, sloppiness, fc.boolean(), cuts, (v, style, closeBraces, cutPoints) => {
        const args = write(v, style);
        const message = block(args, closeBraces);
        const calls = ends(parseEveryWay(message, cutPoints));
        expect(calls.length).toBeLessThanOrEqual(1);
        for (const call of calls) expect(JSON.parse(call.arguments)).toEqual(v);
        // Nothing ambiguous was written: the value reads back, unless a string holds a tag and
        // the block needed repair (the block may then have ended at that tag: not a call), or
        // the close tag came right after a quote (`"a.md"</tool_call>`: the quote may be the
        // string's own, the tag part of it).
        const clean = isCleanJson(args);
        const holdsTag = args.includes(CLOSE) || args.includes(OPEN);
        const tagAfterQuote = !closeBraces && args.slice(0, -1).trimEnd().endsWith('"');
        if ((clean && closeBraces) || (!holdsTag && !tagAfterQuote)) expect(calls).toHaveLength(1);
        if (clean && closeBraces) expect(calls[0]?.repaired).toBe(false);
      }),
      { numRuns: 500, seed: SEED },
    );
  });

  it("arguments written as a JSON string holding careless JSON read back exactly or are no call (300 runs)", {
    timeout: 120_000,
  }, () => {
    fc.assert(
      fc.property(argumentsValue, sloppiness, cuts, (v, style, cutPoints) => {
        const message = block(JSON.stringify(write(v, style)));
        for (const call of ends(parseEveryWay(message, cutPoints)))
          expect(JSON.parse(call.arguments)).toEqual(v);
      }),
      { numRuns: 300, seed: SEED + 1 },
    );
  });

  it("every two-way split of a careless block gives the same events (150 runs)", { timeout: 120_000 }, () => {
    const short = fc
      .tuple(argumentsValue, sloppiness, fc.boolean())
      .map(([v, style, closeBraces]) => block(write(v, style), closeBraces))
      .filter((message) => message.length <= 240);
    fc.assert(
      fc.property(short, (message) => {
        const reference = normalize(parseChunks([message]));
        for (let cut = 1; cut < message.length; cut += 1) {
          const events = parseChunks([message.slice(0, cut), message.slice(cut)]);
          assertInvariants(events);
          expect(normalize(events), `cut at ${cut}`).toEqual(reference);
        }
      }),
      { numRuns: 150, seed: SEED + 4 },
    );
  });

  it("a valid block beside a broken one is never lost (400 runs)", { timeout: 120_000 }, () => {
    const valid = fc
      .tuple(fc.constantFrom("search", "get_time"), fc.string({ maxLength: 8 }))
      .map(([name, q]) => ({ name, arguments: name === "search" ? { q } : {} }));
    const broken = fc.oneof(
      // A string never closed, holding the close tag the model meant to end the block with.
      text.map(
        (t) => `${OPEN}{"name":"write_file","arguments":{"content":"x${t.replaceAll('"', "")} ${CLOSE}`,
      ),
      // A block whose open tag was never followed by a close tag.
      fc.constant(`${OPEN}{"name":"get_time"`),
      fc.constant(`${OPEN}{"name":"write_file","arguments":{"a": nope}}${CLOSE}`),
      fc.constant(`${OPEN}{"name":"write_file","arguments":{"a":"b" "c":"d"}}${CLOSE}`),
      fc.constant(`${OPEN}{"name":"write_file","arguments":{"a":1,}}${CLOSE}`),
    );
    fc.assert(
      fc.property(
        broken,
        valid,
        fc.constantFrom("\n", " ", "", "\nThen:\n"),
        cuts,
        (bad, call, gap, cutPoints) => {
          const good = `${OPEN}${JSON.stringify(call)}${CLOSE}`;
          const calls = ends(parseEveryWay(`${bad}${gap}${good}`, cutPoints));
          expect(calls.map((e) => [e.name, JSON.parse(e.arguments)])).toEqual([[call.name, call.arguments]]);
        },
      ),
      { numRuns: 400, seed: SEED + 2 },
    );
  });

  it("several objects in one block are one call each, in order (200 runs)", { timeout: 60_000 }, () => {
    const one = fc
      .tuple(fc.constantFrom("search", "get_time", "write_file"), argumentsValue)
      .map(([name, v]) => ({ name, arguments: v }));
    fc.assert(
      fc.property(
        fc.array(one, { minLength: 2, maxLength: 3 }),
        fc.constantFrom("\n", "", ", ", " \n"),
        cuts,
        (calls, sep, cutPoints) => {
          const message = `${OPEN}${calls.map((c) => JSON.stringify(c)).join(sep)}${CLOSE}`;
          const ended = ends(parseEveryWay(message, cutPoints));
          expect(ended.map((e) => [e.name, JSON.parse(e.arguments)])).toEqual(
            calls.map((c) => [c.name, c.arguments]),
          );
        },
      ),
      { numRuns: 200, seed: SEED + 3 },
    );
  });
});

function isCleanJson(s: string): boolean {
  try {
    JSON.parse(s);
    return true;
  } catch {
    return false;
  }
}
