import { f, type Goal, signed, table } from "../report-format.js";
import { ratio } from "../stats.js";
import type { PeerCell, PeerResult } from "./peer-bench.js";

/** Goals against the peer (issue: ahead of Portkey on every row, 1.5 × on req/s and CPU). */
const GOAL_PEER_FACTOR = 1.5;
/** req/s against the peer, and CPU against the limit for a Node gateway (the bare forwarder). */
const GOAL_RPS_VS_PEER = 2;
const GOAL_CPU_VS_BARE = 2;
const GOAL_IDLE_RSS_MIB = 100;
const GOAL_RSS_VS_PEER = 1.2;
const GOAL_TOOLS_VS_PLAIN = 1.3;
/** Before/after: "no worse" within this noise margin of a shared machine's medians. */
export const GOAL_NO_WORSE = 1.05;

const cell = (p: PeerResult, workload: string, connections: number) =>
  p.cells.find((c) => c.workload === workload && c.connections === connections);

const added = (c: PeerCell | undefined, peer: string, key: "p50Ms" | "p99Ms") =>
  c ? (c.medians[peer]?.[key] ?? Number.NaN) - (c.medians.direct?.[key] ?? Number.NaN) : Number.NaN;

/** The issue's rows, unmeasured, for a run without the peer section (the table still lists every goal). */
const NOT_MEASURED: ReadonlyArray<string> = [
  "added p50 / p99 at 1 connection ≤ Portkey's — non-stream and SSE",
  `req/s ≥ ${GOAL_RPS_VS_PEER} × Portkey at 16 and 64 connections — non-stream and SSE`,
  `CPU per request ≤ Portkey's / ${GOAL_PEER_FACTOR} — non-stream and SSE`,
  `CPU per request ≤ ${GOAL_CPU_VS_BARE} × the bare forwarder's — non-stream and SSE`,
  "p99 ≤ Portkey's at 16 and 64 connections — non-stream and SSE",
  `idle RSS after start ≤ ${GOAL_IDLE_RSS_MIB} MiB`,
  `RSS after the peer runs ≤ ${GOAL_RSS_VS_PEER} × Portkey's`,
  `prompt-mode tools CPU per request ≤ ${GOAL_TOOLS_VS_PLAIN} × plain — JSON and SSE`,
];

export const peerGoals = (p: PeerResult | undefined): Goal[] => {
  if (!p) return NOT_MEASURED.map((goal) => ({ goal, measured: "n/a", met: undefined }));
  const goals: Goal[] = [];
  for (const workload of ["json", "sse"]) {
    const one = cell(p, workload, 1);
    for (const key of ["p50Ms", "p99Ms"] as const) {
      const ours = added(one, "ours", key);
      const portkey = added(one, "portkey", key);
      goals.push({
        goal: `added ${key.slice(0, 3)} at 1 connection ≤ Portkey's — ${one?.label ?? workload}`,
        measured: `${signed(ours)} vs ${signed(portkey)} ms`,
        met: Number.isFinite(ours) && Number.isFinite(portkey) ? ours <= portkey : undefined,
      });
    }
    for (const c of p.cells.filter((x) => x.workload === workload && x.connections > 1)) {
      const rps = ratio(c.medians.ours?.rps ?? Number.NaN, c.medians.portkey?.rps ?? Number.NaN);
      goals.push({
        goal: `req/s ≥ ${GOAL_RPS_VS_PEER} × Portkey at ${c.connections} connections — ${c.label}`,
        measured: `× ${f(rps, 2)}`,
        met: Number.isFinite(rps) ? rps >= GOAL_RPS_VS_PEER : undefined,
      });
      const oursCpu = c.medians.ours?.cpuUsPerRequest ?? Number.NaN;
      const bareCpu = c.medians.bare?.cpuUsPerRequest ?? Number.NaN;
      const overBare = ratio(oursCpu, bareCpu);
      goals.push({
        goal: `CPU per request ≤ ${GOAL_CPU_VS_BARE} × the bare forwarder's at ${c.connections} connections — ${c.label}`,
        measured: `${f(oursCpu, 0)} vs ${f(bareCpu, 0)} µs (ours / bare × ${f(overBare, 2)})`,
        met: Number.isFinite(overBare) ? overBare <= GOAL_CPU_VS_BARE : undefined,
      });
      const cpu = ratio(
        c.medians.portkey?.cpuUsPerRequest ?? Number.NaN,
        c.medians.ours?.cpuUsPerRequest ?? Number.NaN,
      );
      goals.push({
        goal: `CPU per request ≤ Portkey's / ${GOAL_PEER_FACTOR} at ${c.connections} connections — ${c.label}`,
        measured: `${f(c.medians.ours?.cpuUsPerRequest ?? Number.NaN, 0)} vs ${f(c.medians.portkey?.cpuUsPerRequest ?? Number.NaN, 0)} µs (Portkey / ours × ${f(cpu, 2)})`,
        met: Number.isFinite(cpu) ? cpu >= GOAL_PEER_FACTOR : undefined,
      });
      const ours = c.medians.ours?.p99Ms ?? Number.NaN;
      const portkey = c.medians.portkey?.p99Ms ?? Number.NaN;
      goals.push({
        goal: `p99 ≤ Portkey's at ${c.connections} connections — ${c.label}`,
        measured: `${f(ours, 2)} vs ${f(portkey, 2)} ms`,
        met: Number.isFinite(ours) && Number.isFinite(portkey) ? ours <= portkey : undefined,
      });
    }
  }
  const rss = p.rssMiB;
  goals.push({
    goal: `idle RSS after start ≤ ${GOAL_IDLE_RSS_MIB} MiB`,
    measured: `${f(rss.ours?.afterStart ?? Number.NaN, 0)} MiB (Portkey ${f(rss.portkey?.afterStart ?? Number.NaN, 0)})`,
    met: rss.ours ? rss.ours.afterStart <= GOAL_IDLE_RSS_MIB : undefined,
  });
  const after = ratio(rss.ours?.afterRuns ?? Number.NaN, rss.portkey?.afterRuns ?? Number.NaN);
  goals.push({
    goal: `RSS after the peer runs ≤ ${GOAL_RSS_VS_PEER} × Portkey's`,
    measured: `× ${f(after, 2)} (${f(rss.ours?.afterRuns ?? Number.NaN, 0)} vs ${f(rss.portkey?.afterRuns ?? Number.NaN, 0)} MiB)`,
    met: Number.isFinite(after) ? after <= GOAL_RSS_VS_PEER : undefined,
  });
  for (const c of p.toolCells) {
    const r = ratio(
      c.medians.tools?.cpuUsPerRequest ?? Number.NaN,
      c.medians.plain?.cpuUsPerRequest ?? Number.NaN,
    );
    goals.push({
      goal: `prompt-mode tools CPU per request ≤ ${GOAL_TOOLS_VS_PLAIN} × plain — ${c.label}`,
      measured: `× ${f(r, 2)}`,
      met: Number.isFinite(r) ? r <= GOAL_TOOLS_VS_PLAIN : undefined,
    });
  }
  return [...goals, ...peerBeforeGoals(p)];
};

/** After vs the earlier build (BENCH_BEFORE_DIR), CPU per request through the real upstream: no worse. */
const peerBeforeGoals = (p: PeerResult): Goal[] =>
  p.before
    ? p.cells
        .filter((c) => c.connections > 1 && c.medians.before && c.medians.ours)
        .map((c) => {
          const after = c.medians.ours?.cpuUsPerRequest ?? Number.NaN;
          const before = c.medians.before?.cpuUsPerRequest ?? Number.NaN;
          const r = ratio(after, before);
          return {
            goal: `CPU per request ≤ ${GOAL_NO_WORSE} × before (${p.before?.commit}), peer route at ${c.connections} connections — ${c.label}`,
            measured: `${f(before, 0)} → ${f(after, 0)} µs (× ${f(r, 2)})`,
            met: Number.isFinite(r) ? r <= GOAL_NO_WORSE : undefined,
          };
        })
    : [];

/** Before → after columns, only in a run that had an earlier build (no empty columns otherwise). */
const beforeTable = (cells: ReadonlyArray<PeerCell>) =>
  table(
    [
      "workload",
      "conns",
      "req/s before → after",
      "after / before req/s",
      "p50 ms before / after",
      "p99 ms before / after",
      "CPU µs/req before → after",
      "after / before CPU",
    ],
    cells.map((c) => {
      const b = c.medians.before;
      const o = c.medians.ours;
      const n = (x: number | undefined, digits = 0) => f(x ?? Number.NaN, digits);
      return [
        c.label,
        String(c.connections),
        `${n(b?.rps)} → ${n(o?.rps)}`,
        f(ratio(o?.rps ?? Number.NaN, b?.rps ?? Number.NaN), 2),
        `${n(b?.p50Ms, 2)} / ${n(o?.p50Ms, 2)}`,
        `${n(b?.p99Ms, 2)} / ${n(o?.p99Ms, 2)}`,
        `${n(b?.cpuUsPerRequest)} → ${n(o?.cpuUsPerRequest)}`,
        f(ratio(o?.cpuUsPerRequest ?? Number.NaN, b?.cpuUsPerRequest ?? Number.NaN), 2),
      ];
    }),
  );

const beforeSection = (p: PeerResult) =>
  p.before
    ? `
Before and after, from the same interleaved runs: \`before\` is the built bin of commit \`${p.before.commit}\`
(\`BENCH_BEFORE_DIR\`), run as a fourth contender in the rotation above; \`after\` is this checkout's (\`ours\`).

${beforeTable(p.cells)}

RSS after start / after the runs above: before ${f(p.rssMiB.before?.afterStart ?? Number.NaN, 0)} / ${f(p.rssMiB.before?.afterSharedRuns ?? Number.NaN, 0)} MiB, after ${f(p.rssMiB.ours?.afterStart ?? Number.NaN, 0)} / ${f(p.rssMiB.ours?.afterSharedRuns ?? Number.NaN, 0)} MiB.
`
    : "";

const peerTable = (cells: ReadonlyArray<PeerCell>) =>
  table(
    [
      "workload",
      "conns",
      "req/s direct / bare / Portkey / ours",
      "ours / Portkey req/s",
      "p50 ms direct / bare / Portkey / ours",
      "p99 ms direct / bare / Portkey / ours",
      "CPU µs/req bare / Portkey / ours",
      "ours / bare CPU",
    ],
    cells.map((c) => {
      const d = c.medians.direct;
      const b = c.medians.bare;
      const p = c.medians.portkey;
      const o = c.medians.ours;
      const n = (x: number | undefined, digits = 0) => f(x ?? Number.NaN, digits);
      return [
        c.label,
        String(c.connections),
        `${n(d?.rps)} / ${n(b?.rps)} / ${n(p?.rps)} / ${n(o?.rps)}`,
        f(ratio(o?.rps ?? Number.NaN, p?.rps ?? Number.NaN), 2),
        `${n(d?.p50Ms, 2)} / ${n(b?.p50Ms, 2)} / ${n(p?.p50Ms, 2)} / ${n(o?.p50Ms, 2)}`,
        `${n(d?.p99Ms, 2)} / ${n(b?.p99Ms, 2)} / ${n(p?.p99Ms, 2)} / ${n(o?.p99Ms, 2)}`,
        `${n(b?.cpuUsPerRequest)} / ${n(p?.cpuUsPerRequest)} / ${n(o?.cpuUsPerRequest)}`,
        f(ratio(o?.cpuUsPerRequest ?? Number.NaN, b?.cpuUsPerRequest ?? Number.NaN), 2),
      ];
    }),
  );

const toolTable = (cells: ReadonlyArray<PeerCell>) =>
  table(
    ["workload", "conns", "req/s plain / tools", "CPU µs/req plain / tools", "tools / plain CPU"],
    cells.map((c) => {
      const pl = c.medians.plain;
      const t = c.medians.tools;
      return [
        c.label,
        String(c.connections),
        `${f(pl?.rps ?? Number.NaN, 0)} / ${f(t?.rps ?? Number.NaN, 0)}`,
        `${f(pl?.cpuUsPerRequest ?? Number.NaN, 0)} / ${f(t?.cpuUsPerRequest ?? Number.NaN, 0)}`,
        f(ratio(t?.cpuUsPerRequest ?? Number.NaN, pl?.cpuUsPerRequest ?? Number.NaN), 2),
      ];
    }),
  );

/** § Peer: the built gateway against Portkey's gateway and the upstream called directly. */
export const peerSection = (p: PeerResult | undefined, seconds: string): string =>
  p
    ? `## 0. The built gateway against a peer (Portkey)

Our gateway as \`npm start\` runs it (\`node apps/proxy/bin/codex-tool-gateway.mjs\`, default log level, one
\`openai-compatible\` route per model), Portkey's gateway (\`@portkey-ai/gateway\` from npm, \`--headless\`,
\`@hono/node-server\` 1.14.1 as its streaming needs), a bare forwarder (the limit for a Node gateway: \`node:http\`
in, undici out, the same bytes, no parsing; \`src/peer/bare-forwarder-main.ts\`) and the upstream called directly, each one Node process,
in front of one fake OpenAI-compatible upstream the bench owns (its own process). Runs are interleaved
(the order rotates each round), ${seconds}; every response is checked (status, \`[DONE]\`, the last word or
the tool's name; one in 16 parsed completely): ${p.badResponses} bad response(s)${p.problems.length > 0 ? ` (${p.problems.join("; ")})` : ""}.
Gateway CPU is the process's utime + stime from \`/proc\` over the run, per completed request.

${peerTable(p.cells)}

RSS after start: ours ${f(p.rssMiB.ours?.afterStart ?? Number.NaN, 0)} MiB, Portkey ${f(p.rssMiB.portkey?.afterStart ?? Number.NaN, 0)} MiB; after the runs: ours ${f(p.rssMiB.ours?.afterRuns ?? Number.NaN, 0)} MiB, Portkey ${f(p.rssMiB.portkey?.afterRuns ?? Number.NaN, 0)} MiB.
${beforeSection(p)}
Ours only, the prompt-mode tool path (request with \`tools\`, the upstream writes a sentinel block cut into 32 deltas, the client gets a real \`tool_calls\` answer) beside the plain path with as many deltas:

${toolTable(p.toolCells)}
`
    : "";
