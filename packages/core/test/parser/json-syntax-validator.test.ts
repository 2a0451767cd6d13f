import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { repairJson } from "../../src/parser/json-repair.js";
import { createJsonSyntaxValidator } from "../../src/parser/json-syntax-validator.js";
import { createTextBuffer } from "../../src/parser/text-buffer.js";

/** A committed prefix closed with the fewest characters (what `closers()` says). */
function closeJsonPrefix(prefix: string): string {
  const v = createJsonSyntaxValidator({ trailing: "absorb" });
  for (let i = 0; i < prefix.length; i += 1) v.feed(prefix[i] as string, prefix.charCodeAt(i));
  return v.status() === "complete" ? prefix : prefix + (v.closers() ?? "");
}

function run(text: string) {
  const buffer = createTextBuffer(false);
  const v = createJsonSyntaxValidator({ text: buffer, trailing: "absorb" });
  const commits: number[] = [];
  for (let i = 0; i < text.length; i += 1) {
    v.feed(text[i] as string, text.charCodeAt(i));
    commits.push(v.commitEnd());
  }
  return { v, out: buffer.toString(), commits };
}

const parses = (s: string) => {
  try {
    JSON.parse(s);
    return true;
  } catch {
    return false;
  }
};

describe("incremental JSON syntax validator", () => {
  it("commits inside value strings and after values, never the top-level brace", () => {
    const { v, commits, out } = run('{"a": "xy", "b": [1, {"c": true}]}');
    expect(v.status()).toBe("complete");
    expect(out).toBe('{"a": "xy", "b": [1, {"c": true}]}');
    const points = [...new Set(commits)].map((k) => out.slice(0, k));
    expect(points).toEqual([
      "",
      '{"a": "',
      '{"a": "x',
      '{"a": "xy',
      '{"a": "xy"',
      '{"a": "xy", "b": [',
      '{"a": "xy", "b": [1',
      '{"a": "xy", "b": [1, {',
      '{"a": "xy", "b": [1, {"c": true',
      '{"a": "xy", "b": [1, {"c": true}',
      '{"a": "xy", "b": [1, {"c": true}]',
    ]);
  });

  it("holds back an escape until it is complete and a high surrogate until its partner", () => {
    const { commits } = run('{"a":"\\u00e9😀"}');
    // commits[i] is the commit point after char i: `{"a":"` is chars 0-5, the escape 6-11,
    // 😀 is two code units (12, 13), then the closing quote (14).
    expect(commits.slice(5, 15)).toEqual([6, 6, 6, 6, 6, 6, 12, 12, 14, 15]);
  });

  it("escapes raw control characters inside strings and reports it", () => {
    const { v, out } = run('{"a":"x\ny\t"}');
    expect(out).toBe('{"a":"x\\ny\\t"}');
    expect(v.sanitized()).toBe(true);
    expect(v.status()).toBe("complete");
  });

  it("rejects what JSON rejects: trailing commas, bad escapes, garbage after the value", () => {
    for (const bad of [
      '{"a":1,}',
      '{"a":"\\x"}',
      '{"a":1} x',
      "{'a':1}",
      '{"a":01}',
      '{"a":1.}',
      '{"a":tru}',
    ]) {
      expect(run(bad).v.status(), bad).toBe("failed");
    }
  });

  it("closes any committed prefix into valid JSON with the fewest characters", () => {
    expect(closeJsonPrefix('{"a": "xy')).toBe('{"a": "xy"}');
    expect(closeJsonPrefix('{"a": [1, {"b": null')).toBe('{"a": [1, {"b": null}]}');
    expect(closeJsonPrefix('{"a": [')).toBe('{"a": []}');
  });

  it("agrees with JSON.parse on objects and their mutations (400 runs)", () => {
    const mutated = fc
      .tuple(
        fc.json(),
        fc.array(fc.tuple(fc.nat(), fc.constantFrom("", ",", "}", "]", '"', "\\", ":", " ", "1", "\n"))),
      )
      .map(([json, edits]) => {
        let s = `{"k":${json}}`;
        for (const [at, ch] of edits) {
          const i = at % (s.length + 1);
          s = ch === "" ? s.slice(0, i) + s.slice(i + 1) : s.slice(0, i) + ch + s.slice(i);
        }
        return s;
      });
    fc.assert(
      fc.property(mutated, (text) => {
        const { v, out, commits } = run(text);
        const valid = v.status() === "complete" && !v.sanitized();
        expect(valid).toBe(parses(text) && text.trimStart().startsWith("{"));
        for (const k of new Set(commits)) {
          if (k === 0) continue;
          const prefix = out.slice(0, k);
          expect(parses(prefix), prefix).toBe(false);
          expect(parses(closeJsonPrefix(prefix)), prefix).toBe(true);
        }
      }),
      { numRuns: 400, seed: 7 },
    );
  });
});

describe("repairJson: only what is missing is added", () => {
  it("keeps inner quotes, stray backslashes and raw control characters as written", () => {
    const cases: ReadonlyArray<readonly [string, unknown]> = [
      ['{"content":"He said "hello" to me"}', { content: 'He said "hello" to me' }],
      ['{"content":"a\\\tb rest"}', { content: "a\\\tb rest" }],
      ['{"p":"C:\\q\\ux1"}', { p: "C:\\q\\ux1" }],
      ['{"a":["x"y", 1]}', { a: ['x"y', 1] }],
      ['{"a":"b"', { a: "b" }],
      ['{"a":[1, {"b": 2', { a: [1, { b: 2 }] }],
    ];
    for (const [text, value] of cases) expect(JSON.parse(repairJson(text) ?? "null"), text).toEqual(value);
  });

  it("refuses what it would have to guess or drop", () => {
    for (const text of [
      '{"a":"x" "b":"y"}', // a missing comma, or a quote inside the string?
      '{"a":"x":"y"}',
      '{"a":1,}',
      "{'a':1}",
      '{"a":"cut off',
      '{"a":"x"}{"b":1}',
    ])
      expect(repairJson(text), text).toBeUndefined();
  });
});
