import type { ColdStartResult } from "./codex-cold-start.js";
import { f, type Goal, table } from "./report-format.js";
import type { BenchResults } from "./results.js";

/** The codex goals of the table (cold start, time to first token, per-turn latency, RSS) and §4's cold start. */

const GOAL_CODEX_LATENCY = 1.05;
const GOAL_CODEX_TTFT = 1.05;
/** Cold start: the gateway ready to serve within this much of the app-server alone. */
const GOAL_COLD_START_EXTRA_MS = 300;
const GOAL_RSS_GROWTH = 1.2;

export const codexGoals = (r: BenchResults): Goal[] => {
  const cg = r.codexGateway;
  const cold = cg?.coldStart;
  const goals: Goal[] = [
    {
      goal: `codex cold start: gateway ready (process start to \`/readyz\` 200) ≤ app-server alone (spawn to \`initialize\`) + ${GOAL_COLD_START_EXTRA_MS} ms`,
      measured: cold
        ? `${f(cold.gateway.ready, 0)} vs ${f(cold.appServerAlone, 0)} ms (+${f(cold.gateway.ready - cold.appServerAlone, 0)} ms; median of ${cold.reps})`
        : "n/a",
      met:
        cold && Number.isFinite(cold.gateway.ready)
          ? cold.gateway.ready <= cold.appServerAlone + GOAL_COLD_START_EXTRA_MS
          : undefined,
    },
    {
      goal: `codex time to first token, gateway / codex driven directly ≤ ${GOAL_CODEX_TTFT} (one-turn requests)`,
      measured: cg?.ttftMs
        ? `× ${f(cg.ttftMs.ratioOfMedians, 3)} (${f(cg.ttftMs.gateway.p50, 1)} vs ${f(cg.ttftMs.direct.p50, 1)} ms)`
        : "n/a",
      met: cg?.ttftMs ? cg.ttftMs.ratioOfMedians <= GOAL_CODEX_TTFT : undefined,
    },
    {
      goal: `codex per-turn latency, gateway / direct JSON-RPC ≤ ${GOAL_CODEX_LATENCY}`,
      measured: cg ? `× ${f(cg.latencyMs.ratioOfMedians, 3)}` : "n/a",
      met: cg ? cg.latencyMs.ratioOfMedians <= GOAL_CODEX_LATENCY : undefined,
    },
  ];
  const growth = cg?.rssGrowth;
  const span = cg ? ` ${cg.rss[0]?.afterRequests} → ${cg.rss.at(-1)?.afterRequests} requests` : "";
  goals.push({
    goal: `gateway RSS growth${span} ≤ ${GOAL_RSS_GROWTH}×`,
    measured: growth ? `× ${f(growth.gateway, 3)}` : "n/a",
    met: growth ? growth.gateway <= GOAL_RSS_GROWTH : undefined,
  });
  goals.push({
    goal: `app-server RSS growth${span} ≤ ${GOAL_RSS_GROWTH}×`,
    measured: growth ? `× ${f(growth.appServer, 3)}` : "n/a",
    met: growth ? growth.appServer <= GOAL_RSS_GROWTH : undefined,
  });
  return goals;
};

/** §4's cold start table (absent in older results). */
export const coldStartSection = (c: ColdStartResult | undefined): string => {
  if (!c) return "";
  const g = c.gateway;
  const step = (to: number, from: number) => (Number.isFinite(from) ? `+${f(to - from, 0)}` : "");
  return `
Cold start, split (medians of ${c.reps} rounds; each round starts the built gateway as \`npm start\` runs it, the app-server alone and \`node -e 0\`, in rotating order). Stages are the arrival of the gateway's own log lines on its stdout, then the first 200 from \`/readyz\` (the backend's readiness); the gateway listens only once its codex backend is warmed up, so "listening" follows "app-server ready".

${table(
  ["stage (ms from process start)", "at", "step"],
  [
    ["Node alone: `node -e 0` spawn to exit", f(c.nodeAlone, 0), ""],
    ["gateway: first log line (Node boot, module load, config, store)", f(g.firstLogLine, 0), ""],
    [
      "gateway: `codex app-server ready` (spawn, sealed catalog, `initialize`)",
      f(g.appServerReady, 0),
      step(g.appServerReady, g.firstLogLine),
    ],
    ["gateway: HTTP listening", f(g.listening, 0), step(g.listening, g.appServerReady)],
    ["gateway: `/readyz` 200 (ready)", f(g.ready, 0), step(g.ready, g.listening)],
    ["app-server alone: spawn to `initialize` response", f(c.appServerAlone, 0), ""],
    ["gateway ready − app-server alone", f(g.ready - c.appServerAlone, 0), ""],
    // Absent in results from before these were measured.
    ...(g.cpuMsToReady === undefined
      ? []
      : [["gateway: CPU used up to ready (ms; its codex processes not counted)", f(g.cpuMsToReady, 0), ""]]),
    ...(g.idleRssMiB === undefined ? [] : [["gateway: RSS at ready + 1 s (MiB)", f(g.idleRssMiB, 1), ""]]),
    ...(c.before
      ? [
          [
            `before (\`${c.before.commit}\`, same rotation): \`/readyz\` 200 / CPU to ready / RSS at ready + 1 s`,
            `${f(c.before.ready, 0)} / ${f(c.before.cpuMsToReady, 0)} / ${f(c.before.idleRssMiB, 1)}`,
            "",
          ],
        ]
      : []),
  ],
)}
`;
};
