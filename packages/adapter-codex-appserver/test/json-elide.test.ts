import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createValueElider } from "../src/transport/json-elide.js";

/** `value` with the first member named `key`, in text order, set to null (what eliding it should give). */
const withFirstNull = (value: unknown, key: string): { value: unknown; found: boolean } => {
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    let found = false;
    for (const v of value) {
      if (found) out.push(v);
      else {
        const r = withFirstNull(v, key);
        found = r.found;
        out.push(r.value);
      }
    }
    return { value: out, found };
  }
  if (typeof value !== "object" || value === null) return { value, found: false };
  // Entries, not assignment: a member named "__proto__" stays a member.
  const out: Array<[string, unknown]> = [];
  let found = false;
  for (const [k, v] of Object.entries(value)) {
    if (found) out.push([k, v]);
    else if (k === key) {
      out.push([k, null]);
      found = true;
    } else {
      const r = withFirstNull(v, key);
      found = r.found;
      out.push([k, r.value]);
    }
  }
  return { value: Object.fromEntries(out), found };
};

/** Feeds `text` to a fresh elider in pieces cut at `cuts`. */
const elide = (text: string, key: string, cuts: ReadonlyArray<number>) => {
  const e = createValueElider(key);
  const points = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
  let out = "";
  let from = 0;
  for (const p of [...points, text.length]) {
    out += e(text.slice(from, p));
    from = p;
  }
  return out;
};

const KEYS = ["items", "id", "x", 'it"ems', "\\"];

describe("cutting one member's value out of a JSON text as it streams", () => {
  it("gives the text with that value null, whatever the text and the cuts (property)", () => {
    const key = fc.constantFrom(...KEYS);
    const value = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: "small" },
        fc.jsonValue({ maxDepth: 1 }),
        fc.array(tie("node"), { maxLength: 4 }),
        fc.dictionary(fc.oneof(fc.constantFrom(...KEYS), fc.string({ maxLength: 4 })), tie("node"), {
          maxKeys: 4,
        }),
      ),
    })).node;
    fc.assert(
      fc.property(value, key, fc.array(fc.nat(), { maxLength: 10 }), fc.boolean(), (v, k, cuts, spaced) => {
        const text = JSON.stringify(v, null, spaced ? 1 : undefined);
        const out = elide(text, k, cuts);
        // Compared as JSON gives them (JSON has no -0).
        expect(JSON.parse(out)).toEqual(JSON.parse(JSON.stringify(withFirstNull(v, k).value)));
        if (!withFirstNull(v, k).found) expect(out).toBe(text);
      }),
      { numRuns: 2_000 },
    );
  });

  it("codex's end of turn keeps its id, status and error; its items (the answer again) are gone", () => {
    const answer = `He said "hi" \\ ${"x".repeat(100_000)} ]}`;
    const line = JSON.stringify({
      method: "turn/completed",
      params: {
        threadId: "th",
        turn: {
          id: "tu",
          rootTurnId: "tu",
          items: [{ type: "agentMessage", id: "m", text: answer, phase: null }],
          itemsView: "summary",
          status: "completed",
          error: null,
          durationMs: 91,
        },
      },
    });
    const out = elide(line, "items", [17, 300, 5_000, 70_000]);
    expect(out.length).toBeLessThan(300);
    expect(JSON.parse(out)).toEqual({
      method: "turn/completed",
      params: {
        threadId: "th",
        turn: {
          id: "tu",
          rootTurnId: "tu",
          items: null,
          itemsView: "summary",
          status: "completed",
          error: null,
          durationMs: 91,
        },
      },
    });
  });
});
