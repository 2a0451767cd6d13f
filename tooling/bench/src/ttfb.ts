import type { ServerChild } from "./child/protocol.js";
import { singleConnectionAgent, type TimedResponse, timedPost } from "./http-client.js";
import { mirrorScenario } from "./http-overhead.js";
import {
  requestBody,
  type Scenario,
  SLOW_DELAY_MS,
  SLOW_DELTAS,
  SLOW_NEAR_MISS_DELTAS,
} from "./scenarios.js";
import { median, quantile } from "./stats.js";

export interface TtfbResult {
  readonly scenario: string;
  readonly n: number;
  readonly baseline: {
    readonly firstByteP50: number;
    readonly firstTextP50: number;
    readonly firstTextP99: number;
  };
  readonly gateway: {
    readonly firstByteP50: number;
    readonly firstTextP50: number;
    readonly firstTextP99: number;
  };
  readonly addedFirstByteP50Ms: number;
  readonly addedFirstTextP50Ms: number;
  readonly addedFirstTextP99Ms: number;
}

const side = (xs: ReadonlyArray<TimedResponse>) => ({
  firstByteP50: median(xs.map((r) => r.firstByteMs)),
  firstTextP50: median(xs.map((r) => r.firstTextMs)),
  firstTextP99: quantile(
    xs.map((r) => r.firstTextMs),
    0.99,
  ),
});

/** Sequential requests on one kept-alive connection per side, alternating baseline / gateway. */
export const runTtfb = async (
  baseline: ServerChild,
  gateway: ServerChild,
  scenario: Scenario,
  n: number,
): Promise<TtfbResult> => {
  await mirrorScenario(baseline, gateway, scenario);
  const agents = { baseline: singleConnectionAgent(), gateway: singleConnectionAgent() };
  const results = { baseline: [] as TimedResponse[], gateway: [] as TimedResponse[] };
  try {
    for (let i = -20; i < n; i++) {
      for (const name of i % 2 === 0
        ? (["baseline", "gateway"] as const)
        : (["gateway", "baseline"] as const)) {
        const server = name === "baseline" ? baseline : gateway;
        const r = await timedPost(`${server.url}${scenario.path}`, scenario.body, agents[name]);
        if (r.status !== 200) throw new Error(`ttfb: ${name} answered ${r.status}`);
        if (i >= 0) results[name].push(r);
      }
    }
  } finally {
    agents.baseline.destroy();
    agents.gateway.destroy();
  }
  const b = side(results.baseline);
  const g = side(results.gateway);
  return {
    scenario: scenario.id,
    n,
    baseline: b,
    gateway: g,
    addedFirstByteP50Ms: g.firstByteP50 - b.firstByteP50,
    addedFirstTextP50Ms: g.firstTextP50 - b.firstTextP50,
    addedFirstTextP99Ms: g.firstTextP99 - b.firstTextP99,
  };
};

export interface HoldbackResult {
  readonly model: string;
  readonly backendDeltas: number;
  readonly sseTextEvents: number;
  /** Per backend delta: how many later backend deltas had to arrive before its last byte reached the client. */
  readonly extraChunks: ReadonlyArray<number>;
  readonly maxExtraChunks: number;
  /** Median gap between consecutive text events at the client vs the backend's pacing. */
  readonly medianGapMs: number;
  readonly pacingMs: number;
}

/**
 * Holdback, measured from content alone (no timing assumption): backend delta i ends at offset
 * E_i of the text; the first SSE text event reaching E_i also carries bytes up to some backend
 * delta k ≥ i, and cannot have been sent before delta k arrived, so k − i deltas of delay were added.
 */
export const extraChunksPerDelta = (
  backend: ReadonlyArray<string>,
  received: ReadonlyArray<string>,
): number[] => {
  const cumulative = (parts: ReadonlyArray<string>) => {
    let offset = 0;
    return parts.map((p) => {
      offset += p.length;
      return offset;
    });
  };
  const ends = cumulative(backend);
  const chunkAt = (pos: number) => ends.findIndex((e) => pos < e);
  const eventEnds = cumulative(received);
  return ends.map((end, i) => {
    const covering = eventEnds.find((e) => e >= end);
    if (covering === undefined) return Number.POSITIVE_INFINITY; // never delivered
    return chunkAt(covering - 1) - i;
  });
};

export const runHoldback = async (gateway: ServerChild, model: "bench-slow" | "bench-slow-near-miss") => {
  const backend = model === "bench-slow" ? SLOW_DELTAS : SLOW_NEAR_MISS_DELTAS;
  const agent = singleConnectionAgent();
  try {
    const r = await timedPost(`${gateway.url}/v1/chat/completions`, requestBody("chat", model, true), agent);
    const extra = extraChunksPerDelta(
      backend,
      r.deltas.map((d) => d.text),
    );
    const gaps = r.deltas.slice(1).map((d, i) => d.atMs - (r.deltas[i] as { atMs: number }).atMs);
    return {
      model,
      backendDeltas: backend.length,
      sseTextEvents: r.deltas.length,
      extraChunks: extra,
      maxExtraChunks: Math.max(...extra),
      medianGapMs: median(gaps),
      pacingMs: SLOW_DELAY_MS,
    } satisfies HoldbackResult;
  } finally {
    agent.destroy();
  }
};
