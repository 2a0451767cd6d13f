import { describe, expect, it } from "vitest";
import { linearityRatios, numericLeaves, parserBars } from "../src/parser-result.js";
import { groupOf, summarizeProfile } from "../src/profile.js";
import { SLOW_DELTAS, SLOW_NEAR_MISS_DELTAS, TEXT_DELTAS, TOOL_DELTAS } from "../src/scenarios.js";
import { createSseReader, splitSseEvents, textDeltaOf } from "../src/sse.js";
import { median, quantile, summarize } from "../src/stats.js";
import { extraChunksPerDelta } from "../src/ttfb.js";

describe("stats", () => {
  it("interpolates quantiles and ignores non-finite samples", () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(quantile([0, 10], 0.99)).toBeCloseTo(9.9);
    expect(quantile([], 0.5)).toBeNaN();
    expect(summarize([1, Number.NaN, 3])).toMatchObject({ n: 3, p50: 2, max: 3 });
  });
});

describe("SSE replay", () => {
  const body = 'data: {"a":1}\n\n: telemetry\n\nevent: x\ndata: {"b":2}\n\ndata: [DONE]\n\n';

  it("splits a body into events whose concatenation is the body, byte for byte", () => {
    const events = splitSseEvents(body);
    expect(events).toHaveLength(4);
    expect(events.join("")).toBe(body);
  });

  it("reassembles events from arbitrary pieces", () => {
    const reader = createSseReader();
    const out = [...body].flatMap((ch) => reader.push(ch));
    expect(out).toEqual(splitSseEvents(body));
  });

  it("reads text deltas of both APIs and nothing else", () => {
    expect(textDeltaOf('data: {"choices":[{"delta":{"content":"hi"}}]}\n\n')).toBe("hi");
    expect(
      textDeltaOf('data: {"choices":[{"delta":{"role":"assistant","content":""}}]}\n\n'),
    ).toBeUndefined();
    expect(
      textDeltaOf(
        'event: response.output_text.delta\ndata: {"type":"response.output_text.delta","delta":"yo"}\n\n',
      ),
    ).toBe("yo");
    expect(textDeltaOf("data: [DONE]\n\n")).toBeUndefined();
    expect(textDeltaOf(": ping\n\n")).toBeUndefined();
  });
});

describe("workloads", () => {
  it("plays 200 plain deltas and three whole tool blocks", () => {
    expect(TEXT_DELTAS).toHaveLength(200);
    expect(TEXT_DELTAS.join("")).not.toContain("<");
    expect(TOOL_DELTAS.join("").match(/<tool_call>/g)).toHaveLength(3);
    expect(SLOW_DELTAS.join("")).not.toContain("<");
  });
});

describe("holdback measure", () => {
  it("is 0 for every delta forwarded as it came", () => {
    expect(extraChunksPerDelta(SLOW_DELTAS, SLOW_DELTAS)).toEqual(SLOW_DELTAS.map(() => 0));
  });

  it("sees a held `<` released with the next delta", () => {
    const backend = ["a <", "b c", "d"];
    expect(extraChunksPerDelta(backend, ["a ", "<b c", "d"])).toEqual([1, 0, 0]);
    expect(extraChunksPerDelta(backend, ["a <b c", "d"])).toEqual([1, 0, 0]);
  });

  it("marks a delta never delivered as infinitely late", () => {
    expect(extraChunksPerDelta(["a", "b"], ["a"])).toEqual([0, Number.POSITIVE_INFINITY]);
  });

  it("counts the control stream's held deltas", () => {
    const held = SLOW_NEAR_MISS_DELTAS.filter((d) => d.endsWith("<")).length;
    expect(held).toBeGreaterThan(0);
  });
});

describe("profile summary", () => {
  it("groups frames by workspace package, npm package, node internals and V8", () => {
    expect(
      groupOf("file:///work/main/node_modules/.pnpm/hono@4.13.19/node_modules/hono/dist/hono.js", "f"),
    ).toBe("hono");
    expect(groupOf("file:///work/main/packages/core/src/parser/sentinel-parser.ts", "push")).toBe(
      "packages/core/parser",
    );
    expect(groupOf("file:///work/main/apps/proxy/src/create-app.ts", "x")).toBe("apps/proxy");
    expect(groupOf("node:internal/streams/writable", "write")).toBe("node:internal");
    expect(groupOf("", "(garbage collector)")).toBe("(garbage collector)");
  });

  it("sums self time per node and leaves idle out", () => {
    const frame = (functionName: string, url: string) => ({ functionName, url, lineNumber: 0 });
    const summary = summarizeProfile({
      nodes: [
        { id: 1, callFrame: frame("(idle)", "") },
        { id: 2, callFrame: frame("push", "file:///x/packages/core/src/parser/p.ts") },
        { id: 3, callFrame: frame("write", "node:internal/net") },
      ],
      samples: [1, 2, 2, 3],
      timeDeltas: [5000, 1000, 1000, 2000],
    });
    expect(summary.totalMs).toBe(4);
    expect(summary.byGroup.map((g) => [g.name, g.share])).toEqual([
      ["packages/core/parser", 0.5],
      ["node:internal", 0.5],
    ]);
  });
});

describe("parser result reading", () => {
  const result = {
    throughput: [
      { input: "plain", chunkBytes: 64, mbPerSecond: 50 },
      { input: "near-miss", chunkBytes: 1, mbPerSecond: 5 },
    ],
    linearity: { ratio: 4.1 },
  };

  it("finds MB/s figures and the linearity ratio wherever they are", () => {
    expect(parserBars(result).map((b) => [b.label, b.mbPerSecond])).toEqual([
      ["[plain@64B]", 50],
      ["[near-miss@1B]", 5],
    ]);
    expect(linearityRatios(result).map((l) => l.value)).toEqual([4.1]);
    expect(numericLeaves({ a: { b: 1 }, c: "x" })).toEqual([{ path: "a.b", value: 1 }]);
  });

  it("reads the core bench's shape (figures keyed under throughputMBps)", () => {
    const core = {
      throughputMBps: { plainText: 7.5, toolHeavy: 1.6 },
      linearity: { mixedRatio: 3, singleBlockRatio: 4.2 },
    };
    expect(parserBars(core)).toEqual([
      { label: "plainText", mbPerSecond: 7.5 },
      { label: "toolHeavy", mbPerSecond: 1.6 },
    ]);
    expect(linearityRatios(core).map((l) => l.path)).toEqual([
      "linearity.mixedRatio",
      "linearity.singleBlockRatio",
    ]);
  });
});
