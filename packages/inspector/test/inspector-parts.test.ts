import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createRedactor, partsText } from "../src/redact.js";
import { createRequestLog } from "../src/request-log.js";
import { createTrafficStats } from "../src/traffic-stats.js";

const open = (log: ReturnType<typeof createRequestLog>, i: number, kind: "kept" | "refused" = "kept") =>
  log.open({ requestId: `r${i}`, at: i, method: "POST", path: "/v1/chat/completions" }, kind);

describe("the inspector's request log", () => {
  it("keeps the newest requests up to its count, newest first", () => {
    const log = createRequestLog({ maxRequests: 3, maxBytes: 1 << 20 });
    for (let i = 1; i <= 5; i++) open(log, i);
    expect(log.list().map((r) => r.requestId)).toEqual(["r5", "r4", "r3"]);
  });

  it("drops the oldest requests when what they keep passes its bytes, and caps one request at a quarter", () => {
    const log = createRequestLog({ maxRequests: 100, maxBytes: 8192 });
    const first = open(log, 1);
    // Every record costs its base size before any text.
    expect(log.bytes()).toBeGreaterThan(500);
    expect(log.grow(first, 1000)).toBe(true);
    // One request may not take more than a quarter of the log.
    expect(log.grow(first, 1000)).toBe(false);
    for (let i = 2; i <= 6; i++) expect(log.grow(open(log, i), 1000)).toBe(true);
    expect(log.bytes()).toBeLessThanOrEqual(8192);
    expect(log.list().map((r) => r.requestId)).toEqual(["r6", "r5", "r4", "r3", "r2"]);
    // A request pushed out while still running is no longer counted.
    const before = log.bytes();
    log.count(first, 100);
    expect(log.bytes()).toBe(before);
  });

  it("keeps refused requests in a ring of their own: they never push out admitted ones", () => {
    const log = createRequestLog({ maxRequests: 10, maxBytes: 1 << 20 });
    for (let i = 1; i <= 5; i++) open(log, i);
    for (let i = 6; i <= 200; i++) open(log, i, "refused");
    const kept = log.list().filter((r) => Number(r.requestId.slice(1)) <= 5);
    expect(kept).toHaveLength(5);
    expect(log.counts()).toEqual({ kept: 5, refused: 10 });
    // One list, newest first across both rings.
    expect(log.list()[0]?.requestId).toBe("r200");
  });
});

describe("the inspector's traffic per minute", () => {
  it("counts requests, errors and tool calls per minute and reads p50/p99 time to first token", () => {
    let now = 10 * 60_000;
    const stats = createTrafficStats(() => now);
    for (let i = 0; i < 98; i++) stats.observe({ status: 200, error: false, toolCalls: 1, ttftMs: 40 });
    stats.observe({ status: 200, error: true, toolCalls: 1, ttftMs: 40 });
    stats.observe({ status: 400, error: true, toolCalls: 0, ttftMs: 9_000 });
    now += 60_000;
    stats.observe({ status: 502, error: true, toolCalls: 2 });
    const s = stats.series();
    expect(s.t).toHaveLength(60);
    expect(s.requests.slice(-2)).toEqual([100, 1]);
    // A client's 4xx is not a gateway failure; a stream that failed after its 200 is.
    expect(s.errors.slice(-2)).toEqual([1, 1]);
    expect(s.clientErrors.slice(-2)).toEqual([1, 0]);
    expect(s.errorRate.slice(-2)).toEqual([1, 100]);
    expect(s.clientErrorRate.slice(-2)).toEqual([1, 0]);
    expect(s.toolCalls.slice(-2)).toEqual([99, 2]);
    expect(s.ttftP50.at(-2)).toBe(50);
    expect(s.ttftP99.at(-2)).toBe(50);
    expect(s.ttftP50.at(-1)).toBeNull();
    // An hour later the old minutes are gone, not added to.
    now += 60 * 60_000;
    expect(stats.series().requests.every((n) => n === 0)).toBe(true);
  });
});

describe("the inspector's redaction", () => {
  it("replaces the gateway's keys and keeps no image data", () => {
    const r = createRedactor(["sk-secret-0123456789"]);
    const text = r.text(
      partsText(r, [
        { type: "text", text: "key sk-secret-0123456789 here" },
        { type: "image", url: "data:image/png;base64,AAAABBBBCCCC" },
        { type: "image", url: "https://img.example/cat.png?sig=abc" },
      ]),
    );
    expect(text).toBe("key [redacted] here[image image/png, 9 bytes][image https://img.example/cat.png]");
  });
});

describe("the inspector's one-pass secret search", () => {
  const naive = (keys: string[], text: string) => {
    // Every occurrence's range, merged: what the matcher must find.
    const hit = new Uint8Array(text.length + 1);
    for (const k of keys)
      for (let i = text.indexOf(k); i !== -1; i = text.indexOf(k, i + 1)) hit.fill(1, i, i + k.length);
    let out = "";
    for (let i = 0; i < text.length; ) {
      if (!hit[i]) out += text[i++];
      else {
        while (hit[i]) i++;
        out += "[redacted]";
      }
    }
    return out;
  };

  it("redacts exactly what searching each key apart would, overlaps and repeats included", () => {
    const alphabet = fc.constantFrom("a", "b", "c", "-", "é");
    const key = fc.array(alphabet, { minLength: 8, maxLength: 12 }).map((cs) => cs.join(""));
    fc.assert(
      fc.property(
        fc.array(key, { minLength: 1, maxLength: 6 }),
        fc.array(fc.oneof(alphabet, key)),
        (keys, parts) => {
          const text = parts.join("");
          expect(createRedactor(keys).text(text)).toBe(naive(keys, text));
        },
      ),
      { numRuns: 300 },
    );
  });

  it("finds a key as JSON writes it, and never cuts text inside a key", () => {
    const r = createRedactor(['key"with\\quote-0123']);
    expect(r.text(JSON.stringify({ v: 'x key"with\\quote-0123 y' }))).toBe('{"v":"x [redacted] y"}');
    // Sent in slices, a key across a slice's end is redacted whole all the same.
    const sliced = createRedactor(["sk-secret-0123456789"]);
    const text = `${"a".repeat(95)}sk-secret-0123456789${"b".repeat(95)}`.repeat(20);
    for (const size of [1, 7, 100, 101, 4_000])
      expect([...sliced.pieces(text, size)].join("")).toBe(sliced.text(text));
    const cutter = createRedactor(["sk-secret-0123456789"]);
    const cut = cutter.cut(`${"a".repeat(10)}sk-secret-0123456789${"b".repeat(100)}`, 20);
    expect(cut).toBe(`${"a".repeat(10)}… [120 more chars]`);
  });
});
