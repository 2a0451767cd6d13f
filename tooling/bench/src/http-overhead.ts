import type { ServerChild } from "./child/protocol.js";
import { capture, type LoadRun, runLoad } from "./load.js";
import { type Scenario, TEXT_DELTAS } from "./scenarios.js";
import { splitSseEvents, textDeltaOf } from "./sse.js";
import { median, ratio } from "./stats.js";

export interface HttpCell {
  readonly scenario: string;
  readonly label: string;
  readonly connections: number;
  readonly runs: { readonly baseline: LoadRun[]; readonly gateway: LoadRun[]; readonly before?: LoadRun[] };
  /** Medians over the alternating runs. */
  readonly baseline: CellMedians;
  readonly gateway: CellMedians;
  /** The earlier build's gateway (BENCH_BEFORE_DIR), in the same alternation, when the run had one. */
  readonly before?: CellMedians | undefined;
  /** The earlier build's extra CPU per backend delta over the same baseline. */
  readonly beforeCpuUsPerDelta?: number | undefined;
  readonly rpsRatio: number;
  /** Lowest and highest gateway/baseline req/s ratio over the rep pairs (how noisy the cell was). */
  readonly rpsRatioRange: readonly [number, number];
  readonly addedP50Ms: number;
  readonly addedP99Ms: number;
  readonly addedCpuUsPerRequest: number;
  /** The gateway's extra CPU per backend delta: added CPU per request / deltas per request (absent in older results). */
  readonly addedCpuUsPerDelta?: number | undefined;
  readonly backendDeltas?: number | undefined;
}

export interface CellMedians {
  readonly rps: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly cpuUsPerRequest: number;
  /** Server CPU use during the run, in cores (1.0 = one core saturated). */
  readonly cpuCores: number;
}

export interface HttpOverheadOptions {
  readonly baseline: ServerChild;
  readonly gateway: ServerChild;
  /** An earlier build's gateway: a third side in the alternation (before/after from one run). */
  readonly before?: ServerChild | undefined;
  readonly scenarios: ReadonlyArray<Scenario>;
  readonly connections: ReadonlyArray<number>;
  readonly seconds: number;
  readonly warmupSeconds: number;
  readonly reps: number;
  readonly log: (line: string) => void;
}

const medians = (runs: ReadonlyArray<LoadRun>): CellMedians => ({
  rps: median(runs.map((r) => r.rps)),
  p50Ms: median(runs.map((r) => r.latencyMs.p50)),
  p99Ms: median(runs.map((r) => r.latencyMs.p99)),
  cpuUsPerRequest: median(runs.map((r) => r.cpuUsPerRequest)),
  cpuCores: median(runs.map((r) => r.cpuCores)),
});

/** `xs` rotated left by `n` (the order of round `n`). */
export const rotate = <T>(xs: ReadonlyArray<T>, n: number): T[] => {
  const k = n % xs.length;
  return [...xs.slice(k), ...xs.slice(0, k)];
};

const pairRange = (gateway: ReadonlyArray<LoadRun>, baseline: ReadonlyArray<LoadRun>): [number, number] => {
  const ratios = gateway.map((g, i) => ratio(g.rps, baseline[i]?.rps ?? Number.NaN));
  return [Math.min(...ratios), Math.max(...ratios)];
};

/**
 * Guards against benchmarking an error path: the gateway's answer must carry the whole scripted
 * text, or all three tool calls (and no sentinel text).
 */
export const checkWorkload = (scenario: Scenario, body: string) => {
  const text = scenario.stream
    ? splitSseEvents(body)
        .map((e) => textDeltaOf(e) ?? "")
        .join("")
    : body;
  if (scenario.id.endsWith("tools")) {
    const calls = body.match(/get_weather/g)?.length ?? 0;
    if (calls < 3 || text.includes("<tool_call>"))
      throw new Error(`${scenario.id}: expected 3 tool calls, got ${calls} (${body.slice(0, 200)})`);
  } else if (!text.includes(TEXT_DELTAS.join("").trim())) {
    throw new Error(`${scenario.id}: the scripted text is not in the answer (${body.slice(0, 200)})`);
  }
};

/**
 * Makes the baseline replay exactly what the gateway sends for `scenario` (headers and body, the
 * SSE body in one write) and checks the two bodies have the same length.
 */
export const mirrorScenario = async (baseline: ServerChild, gateway: ServerChild, scenario: Scenario) => {
  const fromGateway = await capture(gateway.url, scenario);
  if (fromGateway.status !== 200) throw new Error(`${scenario.id}: gateway answered ${fromGateway.status}`);
  checkWorkload(scenario, fromGateway.body);
  const events = scenario.stream ? splitSseEvents(fromGateway.body) : [fromGateway.body];
  await baseline.request({
    type: "serve",
    payload: { headers: fromGateway.headers, events, stream: scenario.stream },
  });
  const fromBaseline = await capture(baseline.url, scenario);
  return {
    gatewayBytes: fromGateway.body.length,
    baselineBytes: fromBaseline.body.length,
    events: events.length,
  };
};

/** The earlier build must answer the workload too (its bytes may differ: only the content is checked). */
const checkBefore = async (before: ServerChild, scenario: Scenario) => {
  const answer = await capture(before.url, scenario);
  if (answer.status !== 200) throw new Error(`${scenario.id}: the before gateway answered ${answer.status}`);
  checkWorkload(scenario, answer.body);
  return answer.body.length;
};

type Side = "baseline" | "gateway" | "before";

/**
 * The A/B matrix: per scenario and connection count, warm every side, then alternate runs (AB, BA,
 * …; with an earlier build, the three sides rotate: ABC, BCA, CAB).
 */
export const runHttpOverhead = async (o: HttpOverheadOptions) => {
  const cells: HttpCell[] = [];
  const payloads: Record<string, Awaited<ReturnType<typeof mirrorScenario>> & { beforeBytes?: number }> = {};
  const sides: Side[] = o.before ? ["baseline", "gateway", "before"] : ["baseline", "gateway"];
  const server = (side: Side) => (side === "before" ? o.before : o[side]) as ServerChild;
  for (const scenario of o.scenarios) {
    payloads[scenario.id] = {
      ...(await mirrorScenario(o.baseline, o.gateway, scenario)),
      ...(o.before ? { beforeBytes: await checkBefore(o.before, scenario) } : {}),
    };
    for (const connections of o.connections) {
      o.log(`http: ${scenario.id} at ${connections} connections`);
      for (const side of sides) await runLoad(server(side), scenario, connections, o.warmupSeconds);
      const runs: Record<Side, LoadRun[]> = { baseline: [], gateway: [], before: [] };
      for (let rep = 0; rep < o.reps; rep++) {
        // Two sides: A B, B A, …; three: A B C, B C A, C A B, …
        const order = rotate(sides, rep);
        for (const side of order)
          runs[side].push(await runLoad(server(side), scenario, connections, o.seconds));
      }
      const failed = Object.values(runs)
        .flat()
        .filter((r) => r.errors > 0 || r.non2xx > 0);
      if (failed.length > 0) o.log(`  warning: ${failed.length} runs had errors or non-2xx answers`);
      const baseline = medians(runs.baseline);
      const gateway = medians(runs.gateway);
      const before = o.before ? medians(runs.before) : undefined;
      cells.push({
        scenario: scenario.id,
        label: scenario.label,
        connections,
        runs: o.before ? runs : { baseline: runs.baseline, gateway: runs.gateway },
        baseline,
        gateway,
        ...(before
          ? {
              before,
              beforeCpuUsPerDelta:
                (before.cpuUsPerRequest - baseline.cpuUsPerRequest) / scenario.backendDeltas,
            }
          : {}),
        rpsRatio: ratio(gateway.rps, baseline.rps),
        rpsRatioRange: pairRange(runs.gateway, runs.baseline),
        addedP50Ms: gateway.p50Ms - baseline.p50Ms,
        addedP99Ms: gateway.p99Ms - baseline.p99Ms,
        addedCpuUsPerRequest: gateway.cpuUsPerRequest - baseline.cpuUsPerRequest,
        addedCpuUsPerDelta: (gateway.cpuUsPerRequest - baseline.cpuUsPerRequest) / scenario.backendDeltas,
        backendDeltas: scenario.backendDeltas,
      });
      const last = cells.at(-1) as HttpCell;
      o.log(
        `  rps ${baseline.rps.toFixed(0)} → ${gateway.rps.toFixed(0)} (×${last.rpsRatio.toFixed(3)}), p99 +${last.addedP99Ms.toFixed(2)} ms, cpu/req ${baseline.cpuUsPerRequest.toFixed(0)} → ${gateway.cpuUsPerRequest.toFixed(0)} µs${before ? ` (before ${before.cpuUsPerRequest.toFixed(0)} µs, ${before.rps.toFixed(0)} req/s)` : ""}`,
      );
    }
  }
  return { cells, payloads };
};
