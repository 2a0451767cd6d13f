import { describe, expect, it } from "vitest";
import type { CellMedians, HttpCell } from "../src/http-overhead.js";
import { rotate } from "../src/http-overhead.js";
import type { PeerCell, PeerMedians, PeerResult } from "../src/peer/peer-bench.js";
import { goalsOf, parserThroughputGoals, renderReport } from "../src/report.js";
import type { BenchResults } from "../src/results.js";

const PLOTS = { latency: "l.svg", rps: "r.svg", parser: "p.svg" };

const results = (extra: Partial<BenchResults> = {}): BenchResults => ({
  version: 1,
  startedAt: "2026-01-01T00:00:00.000Z",
  wallSeconds: 60,
  command: "pnpm bench",
  config: {
    seconds: 1,
    warmupSeconds: 1,
    reps: 1,
    connections: [64],
    ttfbRequests: 1,
    idleStreams: 1,
    codex: false,
    codexRssAfter: [],
    codexLatencyTurns: 1,
    codexThroughputTurns: 1,
    codexFillConcurrency: 1,
    budgetSeconds: 1,
  },
  machine: { cpuModel: "x", cores: 2, memoryGiB: 1, node: "v24", platform: "linux", loadAverageAtStart: [0] },
  failures: {},
  ...extra,
});

const medians = (cpuUsPerRequest: number): CellMedians => ({
  rps: 1000,
  p50Ms: 1,
  p99Ms: 2,
  cpuUsPerRequest,
  cpuCores: 1,
});

const cell = (scenario: string, gateway: number, before?: number): HttpCell => ({
  scenario,
  label: scenario,
  connections: 64,
  runs: { baseline: [], gateway: [] },
  baseline: medians(100),
  gateway: medians(gateway),
  rpsRatio: 0.5,
  rpsRatioRange: [0.5, 0.5],
  addedP50Ms: 0,
  addedP99Ms: 0,
  addedCpuUsPerRequest: gateway - 100,
  addedCpuUsPerDelta: (gateway - 100) / 200,
  backendDeltas: 200,
  ...(before === undefined ? {} : { before: medians(before), beforeCpuUsPerDelta: (before - 100) / 200 }),
});

const peerMedians = (cpuUsPerRequest: number): PeerMedians => ({
  rps: 100,
  p50Ms: 1,
  p99Ms: 2,
  cpuUsPerRequest,
});
const peerCell = (withBefore: boolean): PeerCell => ({
  workload: "json",
  label: "non-stream",
  connections: 16,
  runs: [],
  medians: {
    direct: peerMedians(Number.NaN),
    portkey: peerMedians(900),
    ours: peerMedians(500),
    ...(withBefore ? { before: peerMedians(600) } : {}),
  },
});
const peer = (withBefore: boolean): PeerResult & { config: NonNullable<BenchResults["peer"]>["config"] } => ({
  ...(withBefore ? { before: { dir: "/x", commit: "abc1234" } } : {}),
  cells: [peerCell(withBefore)],
  toolCells: [],
  rssMiB: { ours: { afterStart: 90, afterRuns: 200 }, portkey: { afterStart: 80, afterRuns: 200 } },
  badResponses: 0,
  problems: [],
  config: { seconds: 1, warmupSeconds: 1, reps: 1, connections: [16], toolConnections: 16 },
});

describe("the goal table", () => {
  it("lists every goal of the issue, unmeasured, when no section ran", () => {
    const goals = goalsOf(results()).map((g) => g.goal);
    for (const needle of [
      "× Portkey",
      "Portkey's / 1.5",
      "added p50 / p99 at 1 connection",
      "idle RSS after start ≤ 100 MiB",
      "RSS after the peer runs ≤ 1.2",
      "prompt-mode tools",
      "× the limit's",
      "per backend text delta ≤ 1 µs",
      "parser throughput ≥ 1000 MB/s",
      "parser throughput ≥ 200 MB/s",
      "codex cold start",
      "time to first token",
      "gateway CPU flat over a 30-turn session",
    ])
      expect(
        goals.some((g) => g.includes(needle)),
        needle,
      ).toBe(true);
    expect(goalsOf(results()).every((g) => g.met === undefined)).toBe(true);
  });

  it("judges the parser on codex's chunk sizes when the parser bench reports them", () => {
    const fixed = { throughputMBps: { plainText: 1500, toolHeavy: 100 } };
    expect(parserThroughputGoals(fixed).map((g) => [g.measured, g.met])).toEqual([
      ["1500 MB/s", true],
      ["100 MB/s", false],
    ]);
    const codex = {
      throughputMBps: { ...fixed.throughputMBps, plainTextCodexChunks: 900, toolHeavyCodexChunks: 250 },
      codexChunkChars: { plainText: 7, toolHeavy: 12 },
    };
    const goals = parserThroughputGoals(codex);
    expect(goals.map((g) => [g.measured, g.met])).toEqual([
      ["900 MB/s", false],
      ["250 MB/s", true],
    ]);
    expect(goals[0]?.goal).toContain(
      "`plainTextCodexChunks` (codex's chunk sizes: codexChunkChars.plainText 7",
    );
  });

  it("judges cold start against the app-server alone + 300 ms", () => {
    const at = (ready: number) =>
      goalsOf(
        results({
          codexGateway: {
            coldStart: {
              reps: 1,
              gateway: { firstLogLine: 100, appServerReady: 200, listening: 210, ready },
              appServerAlone: 60,
              nodeAlone: 40,
              samples: { gateway: [], appServerAlone: [], nodeAlone: [] },
            },
            latencyMs: { ratioOfMedians: 1 },
            rss: [],
          } as unknown as NonNullable<BenchResults["codexGateway"]>,
        }),
      ).find((g) => g.goal.startsWith("codex cold start"));
    expect(at(360)?.met).toBe(true);
    expect(at(361)?.met).toBe(false);
  });
});

describe("before → after", () => {
  it("adds no before rows, columns or text to a run without an earlier build", () => {
    const r = results({ http: { cells: [cell("chat-stream-text", 300)], payloads: {} }, peer: peer(false) });
    const doc = renderReport(r, PLOTS);
    expect(doc).not.toMatch(/before →|before\/after|before \(|BENCH_BEFORE_DIR/i);
    expect(goalsOf(r).some((g) => g.goal.includes("before"))).toBe(false);
  });

  it("reports the commit, the per-request and per-delta CPU of both builds and judges no worse", () => {
    const r = results({
      before: { dir: "/x", commit: "abc1234" },
      http: {
        cells: [cell("chat-stream-text", 300, 400), cell("chat-json-text", 500, 400)],
        payloads: {},
      },
      peer: peer(true),
    });
    const doc = renderReport(r, PLOTS);
    expect(doc).toContain("commit `abc1234`");
    expect(doc).toContain(
      "| chat-stream-text | 64 | 1000 → 1000 | 2.00 / 2.00 | 400 → 300 | 0.75 | 1.50 → 1.00 |",
    );
    expect(doc).toContain(
      "| non-stream | 16 | 100 → 100 | 1.00 | 1.00 / 1.00 | 2.00 / 2.00 | 600 → 500 | 0.83 |",
    );
    const verdicts = goalsOf(r)
      .filter((g) => g.goal.includes("before (abc1234)"))
      .map((g) => [g.goal.split(" — ")[1], g.goal.includes("delta"), g.met]);
    expect(verdicts).toEqual([
      ["non-stream", false, true],
      ["chat-stream-text", false, true],
      ["chat-json-text", false, false],
      ["chat-stream-text", true, true],
      ["chat-json-text", true, false],
    ]);
  });

  it("rotates the order of the sides round by round", () => {
    expect([0, 1, 2, 3].map((n) => rotate(["a", "b", "c"], n).join(""))).toEqual([
      "abc",
      "bca",
      "cab",
      "abc",
    ]);
    expect([0, 1, 2].map((n) => rotate(["a", "b"], n).join(""))).toEqual(["ab", "ba", "ab"]);
  });
});
