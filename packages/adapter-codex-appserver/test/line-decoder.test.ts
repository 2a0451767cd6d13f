import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  createLineDecoder,
  type DroppedLine,
  LINE_HEAD,
  type LineDecoder,
} from "../src/transport/line-decoder.js";

const bytes = (s: string) => new TextEncoder().encode(s);

/** Feeds `data` to `d` in pieces cut at `cuts` (taken modulo its length), then flushes: every line out. */
const feed = (d: LineDecoder, data: Uint8Array, cuts: ReadonlyArray<number>): string[] => {
  const points = [...new Set(cuts.map((c) => c % (data.length + 1)))].sort((a, b) => a - b);
  const out: string[] = [];
  let from = 0;
  for (const p of [...points, data.length]) {
    out.push(...d.push(data.slice(from, p)));
    from = p;
  }
  out.push(...d.flush());
  return out;
};

describe("line decoder", () => {
  it("splits on \\n and \\r\\n, skips blank lines, keeps the unterminated tail for flush", () => {
    const d = createLineDecoder({ maxLineLength: 100 });
    expect(d.push('{"a":1}\r\n\n{"b"')).toEqual(['{"a":1}']);
    expect(d.push(':2}\n{"c":')).toEqual(['{"b":2}']);
    expect(d.flush()).toEqual(['{"c":']);
  });

  it("reassembles multi-byte UTF-8 split across chunks", () => {
    const d = createLineDecoder({ maxLineLength: 100 });
    const all = bytes("héllo → wörld\n");
    expect([...d.push(all.slice(0, 2)), ...d.push(all.slice(2, 9)), ...d.push(all.slice(9))]).toEqual([
      "héllo → wörld",
    ]);
  });

  it("drops an oversized line whole, reports it, and resynchronises on the next newline", () => {
    const dropped: DroppedLine[] = [];
    const d = createLineDecoder({ maxLineLength: 10, onDrop: (x) => dropped.push(x) });
    const out = [...d.push("short\n0123456789"), ...d.push("ABCDEF"), ...d.push("GHI\nnext\n")];
    expect(out).toEqual(["short", "next"]);
    expect(dropped).toEqual([{ reason: "oversized", length: 19 }]);
    expect(d.push("0123456789X\nok\n")).toEqual(["ok"]);
    expect(dropped).toHaveLength(2);
  });

  it("yields the same lines whatever the chunking (property)", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.string({ unit: "grapheme", maxLength: 12 }).filter((s) => !/[\r\n]/.test(s) && s.trim() !== ""),
        ),
        fc.array(fc.nat(), { maxLength: 8 }),
        (lines, cuts) => {
          const data = bytes(lines.map((l) => `${l}\n`).join(""));
          const d = createLineDecoder({ maxLineLength: 1_000 });
          const out = feed(d, data, cuts);
          expect(out).toEqual(lines);
        },
      ),
    );
  });

  it("lets a line whose head is allowed grow to the large limit, whatever the chunking (property)", () => {
    const big = `{"method":"turn/completed","text":"${"x".repeat(60)}"}`;
    const garbage = `{"method":"other","text":"${"x".repeat(60)}"}`;
    const huge = `{"method":"turn/completed","text":"${"x".repeat(200)}"}`;
    const data = bytes(`${big}\n${garbage}\n${huge}\nok\n`);
    fc.assert(
      fc.property(fc.array(fc.nat(), { maxLength: 12 }), (cuts) => {
        const dropped: number[] = [];
        const d = createLineDecoder({
          maxLineLength: 50,
          largeLineLength: 150,
          allowLarge: (head) => head.startsWith('{"method":"turn/completed"'),
          onDrop: (x) => dropped.push(x.length),
        });
        const out = feed(d, data, cuts);
        expect(out).toEqual([big, "ok"]);
        expect(dropped).toEqual([garbage.length, huge.length]);
      }),
    );
  });

  it("skips a line whose head is unread while it streams, whatever its length and chunking (property)", () => {
    const echo = `{"method":"echo","image":"${"A".repeat(5_000)}"}`;
    const shortEcho = '{"method":"echo"}';
    const kept = `{"method":"keep","text":"${"y".repeat(300)}"}`;
    const data = bytes(`${echo}\n${kept}\n${shortEcho}\nok\n${echo}`);
    fc.assert(
      fc.property(fc.array(fc.nat(), { maxLength: 12 }), (cuts) => {
        const dropped: number[] = [];
        const heads: string[] = [];
        const d = createLineDecoder({
          maxLineLength: 1_000,
          skip: (head) => {
            heads.push(head);
            return head.startsWith('{"method":"echo"');
          },
          onDrop: (x) => dropped.push(x.length),
        });
        const out = feed(d, data, cuts);
        // Longer than the line limit, yet neither held nor reported: skipped, not oversized.
        expect(out).toEqual([kept, "ok"]);
        expect(dropped).toEqual([]);
        // Asked once per line, with its first LINE_HEAD characters (or the whole line if shorter).
        expect(heads).toEqual([
          echo.slice(0, LINE_HEAD),
          kept.slice(0, LINE_HEAD),
          shortEcho,
          "ok",
          echo.slice(0, LINE_HEAD),
        ]);
      }),
    );
  });

  it("cuts a named member's value out of a line while it streams, whatever the chunking (property)", () => {
    const answer = "z".repeat(3_000);
    const turn = (items: unknown) =>
      JSON.stringify({ method: "turn/completed", params: { turn: { id: "t", items, status: "completed" } } });
    const data = bytes(`${turn([{ text: answer }])}\n{"method":"other","items":[1]}\n`);
    fc.assert(
      fc.property(fc.array(fc.nat(), { maxLength: 12 }), (cuts) => {
        const dropped: number[] = [];
        const d = createLineDecoder({
          maxLineLength: 1_000,
          elide: (head) => (head.startsWith('{"method":"turn/completed"') ? "items" : undefined),
          onDrop: (x) => dropped.push(x.length),
        });
        const out = feed(d, data, cuts);
        // 3 KB on the wire, a hundred characters held: within the line limit.
        expect(out).toEqual([turn(null), '{"method":"other","items":[1]}']);
        expect(dropped).toEqual([]);
      }),
    );
  });
});
