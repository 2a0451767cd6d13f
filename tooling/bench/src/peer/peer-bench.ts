/**
 * The peer section of `pnpm bench`: our built gateway and Portkey's gateway in front of one fake
 * OpenAI-compatible upstream, and the upstream called directly, interleaved run by run.
 */
import { join } from "node:path";
import { type BeforeBuild, beforeBin } from "../before.js";
import { median } from "../stats.js";
import { textOf } from "./peer-check.js";
import { type PeerRun, type PeerWorkload, runPeerLoad } from "./peer-load.js";
import { type PeerProcess, rssOf, startBare, startOurs, startPortkey, startUpstream } from "./peers.js";

export interface PeerConfig {
  readonly seconds: number;
  readonly warmupSeconds: number;
  readonly reps: number;
  readonly connections: ReadonlyArray<number>;
  readonly toolConnections: number;
}

export const peerConfigFromEnv = (env: NodeJS.ProcessEnv): PeerConfig => {
  const quick = env.BENCH_QUICK === "1";
  const num = (name: string, full: number, fast: number) => Number(env[name] ?? (quick ? fast : full));
  return {
    seconds: num("BENCH_PEER_SECONDS", 4, 0.5),
    warmupSeconds: num("BENCH_PEER_WARMUP_SECONDS", 1, 0.3),
    reps: num("BENCH_PEER_REPS", 2, 1),
    connections: (env.BENCH_PEER_CONNECTIONS ?? "1,16,64").split(",").map(Number),
    toolConnections: num("BENCH_PEER_TOOL_CONNECTIONS", 16, 16),
  };
};

const SSE_DELTAS = 200;
const TOOL_DELTAS = 32;
const TOOLS = [
  {
    type: "function",
    function: {
      name: "get_weather",
      description: "Weather for a city",
      parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    },
  },
];
const user = [{ role: "user", content: "Say the words." }];

export const PEER_WORKLOADS: ReadonlyArray<PeerWorkload> = [
  {
    id: "json",
    label: "non-stream chat, small answer",
    body: { model: "fake-d8", messages: user },
    expect: { stream: false, text: textOf(8) },
  },
  {
    id: "sse",
    label: `SSE chat, ${SSE_DELTAS} deltas`,
    body: { model: `fake-d${SSE_DELTAS}`, messages: user, stream: true },
    expect: { stream: true, text: textOf(SSE_DELTAS) },
  },
];

/** Ours only: the prompt-mode tool path beside the plain path with as many deltas. */
export const TOOL_WORKLOADS: ReadonlyArray<readonly [PeerWorkload, PeerWorkload]> = [false, true].map(
  (stream) =>
    [
      {
        id: `plain-${stream ? "sse" : "json"}`,
        label: `plain, ${stream ? "SSE" : "JSON"}`,
        body: { model: `fake-d${TOOL_DELTAS}`, messages: user, stream },
        expect: { stream, text: textOf(TOOL_DELTAS) },
      },
      {
        id: `tools-${stream ? "sse" : "json"}`,
        label: `prompt-mode tools, ${stream ? "SSE" : "JSON"}`,
        body: { model: `fake-tool-d${TOOL_DELTAS}`, messages: user, tools: TOOLS, stream },
        expect: { stream, tool: true },
      },
    ] as const,
);

export interface PeerMedians {
  readonly rps: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly cpuUsPerRequest: number;
}

export interface PeerCell {
  readonly workload: string;
  readonly label: string;
  readonly connections: number;
  readonly runs: PeerRun[];
  readonly medians: Readonly<Record<string, PeerMedians>>;
}

export interface PeerResult {
  /** The earlier build run as a fourth contender (`before` in the medians), when there was one. */
  readonly before?: BeforeBuild | undefined;
  readonly cells: PeerCell[];
  readonly toolCells: PeerCell[];
  readonly rssMiB: Readonly<
    Record<
      string,
      {
        readonly afterStart: number;
        readonly afterRuns: number;
        /** After the workloads every gateway ran (before ours alone ran the tool pair; absent in older results). */
        readonly afterSharedRuns?: number;
      }
    >
  >;
  readonly badResponses: number;
  readonly problems: string[];
}

const mediansOf = (runs: ReadonlyArray<PeerRun>): PeerMedians => ({
  rps: median(runs.map((r) => r.rps)),
  p50Ms: median(runs.map((r) => r.p50Ms)),
  p99Ms: median(runs.map((r) => r.p99Ms)),
  cpuUsPerRequest: median(runs.map((r) => r.cpuUsPerRequest)),
});

/** Warm every side, then `reps` rounds with the order rotated each round. */
const interleave = async (
  sides: ReadonlyArray<readonly [string, PeerProcess, PeerWorkload]>,
  connections: number,
  c: PeerConfig,
): Promise<PeerRun[]> => {
  for (const [, peer, w] of sides) await runPeerLoad(peer, w, connections, c.warmupSeconds);
  const runs: PeerRun[] = [];
  for (let rep = 0; rep < c.reps; rep++)
    for (let i = 0; i < sides.length; i++) {
      const [key, peer, w] = sides[(i + rep) % sides.length] as (typeof sides)[number];
      runs.push({ ...(await runPeerLoad(peer, w, connections, c.seconds)), peer: key });
    }
  return runs;
};

const cellOf = (workload: string, label: string, connections: number, runs: PeerRun[]): PeerCell => {
  const medians: Record<string, PeerMedians> = {};
  for (const key of new Set(runs.map((r) => r.peer)))
    medians[key] = mediansOf(runs.filter((r) => r.peer === key));
  return { workload, label, connections, runs, medians };
};

const mib = (bytes: number) => bytes / 2 ** 20;

export const runPeerBench = async (
  c: PeerConfig,
  workDir: string,
  log: (line: string) => void,
  before?: BeforeBuild,
): Promise<PeerResult> => {
  const upstream = await startUpstream();
  const models = [`fake-d8`, `fake-d${SSE_DELTAS}`, `fake-d${TOOL_DELTAS}`, `fake-tool-d${TOOL_DELTAS}`];
  const started: PeerProcess[] = [upstream];
  try {
    const ours = await startOurs(upstream.url, models, join(workDir, "peer-ours.log"));
    started.push(ours);
    const portkey = await startPortkey(upstream.url, join(workDir, "peer-portkey.log"));
    started.push(portkey);
    const bare = await startBare(upstream.url);
    started.push(bare);
    const earlier = before
      ? await startOurs(upstream.url, models, join(workDir, "peer-before.log"), {
          bin: beforeBin(before),
          name: "before",
        })
      : undefined;
    if (earlier) started.push(earlier);
    const direct: PeerProcess = { ...upstream, name: "direct" };
    const gateways = [bare, portkey, ...(earlier ? [earlier] : []), ours];
    const rssAfterStart: Record<string, number> = {};
    for (const g of gateways) rssAfterStart[g.name] = mib(await rssOf(g.pid));
    const cells: PeerCell[] = [];
    for (const w of PEER_WORKLOADS)
      for (const connections of c.connections) {
        log(`peer: ${w.id} at ${connections} connections`);
        const sides = [direct, ...gateways].map((p) => [p.name, p, w] as const);
        const cell = cellOf(w.id, w.label, connections, await interleave(sides, connections, c));
        const m = cell.medians;
        log(
          `  req/s direct ${m.direct?.rps.toFixed(0)} bare ${m.bare?.rps.toFixed(0)} portkey ${m.portkey?.rps.toFixed(0)}${m.before ? ` before ${m.before.rps.toFixed(0)}` : ""} ours ${m.ours?.rps.toFixed(0)}; cpu/req bare ${m.bare?.cpuUsPerRequest.toFixed(0)} portkey ${m.portkey?.cpuUsPerRequest.toFixed(0)}${m.before ? ` before ${m.before.cpuUsPerRequest.toFixed(0)}` : ""} ours ${m.ours?.cpuUsPerRequest.toFixed(0)} µs`,
        );
        cells.push(cell);
      }
    const rssAfterShared: Record<string, number> = {};
    for (const g of gateways) rssAfterShared[g.name] = mib(await rssOf(g.pid));
    const toolCells: PeerCell[] = [];
    for (const [plain, tools] of TOOL_WORKLOADS) {
      log(`peer: ours ${plain.id} vs ${tools.id}`);
      const sides = [["plain", ours, plain] as const, ["tools", ours, tools] as const];
      toolCells.push(
        cellOf(tools.id, tools.label, c.toolConnections, await interleave(sides, c.toolConnections, c)),
      );
    }
    const rssMiB: Record<string, PeerResult["rssMiB"][string]> = {};
    for (const g of gateways)
      rssMiB[g.name] = {
        afterStart: rssAfterStart[g.name] ?? Number.NaN,
        afterRuns: mib(await rssOf(g.pid)),
        afterSharedRuns: rssAfterShared[g.name] ?? Number.NaN,
      };
    const all = [...cells, ...toolCells].flatMap((x) => x.runs);
    const problems = [
      ...new Set(all.filter((r) => r.firstProblem).map((r) => `${r.peer}: ${r.firstProblem}`)),
    ];
    return {
      ...(before ? { before } : {}),
      cells,
      toolCells,
      rssMiB,
      badResponses: all.reduce((n, r) => n + r.bad, 0),
      problems,
    };
  } finally {
    for (const p of started.reverse()) await p.close();
  }
};
