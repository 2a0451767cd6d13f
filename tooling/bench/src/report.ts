import { agentSessionGoals, agentSessionSection } from "./agent-session/agent-report.js";
import type { HttpCell } from "./http-overhead.js";
import { libraryPeerGoals, libraryPeerSection } from "./library-peer/library-peer-report.js";
import { linearityRatios, numericLeaves, parserBars } from "./parser-result.js";
import { peerGoals, peerSection } from "./peer/peer-report.js";
import { beforeGoals, beforeHttpSection } from "./report-before.js";
import { codexGoals } from "./report-codex.js";
import { f, type Goal, signed, table, verdict, withUnit } from "./report-format.js";
import { renderRest } from "./report-sections.js";
import type { BenchResults } from "./results.js";

/** Renders docs/benchmarks.md from one run's results (plots are referenced, written beside the JSON). */

const GOAL_RPS = 0.85;
const GOAL_P99_MS = 1;
const GOAL_LINEAR = 4.4;
const GOAL_CPU_PER_DELTA_US = 1;
/** Parser throughput goals in MB/s, by the bench's figure name. */
const GOAL_PARSER_MBPS: Readonly<Record<string, number>> = { plainText: 1000, toolHeavy: 200 };
/** The same figure fed in the chunk sizes codex really sends, preferred when the parser bench has it. */
const CODEX_CHUNKS = "CodexChunks";

/** CPU per request against the limit's (the bare server writing the same bytes). */
const GOAL_CPU_VS_LIMIT = 2;

/**
 * Parser MB/s goals: on the figures at codex's chunk sizes (`plainTextCodexChunks`, …) when the
 * parser bench reports them, else on the fixed 16-char chunks (`plainText`, …).
 */
export const parserThroughputGoals = (parser: unknown): Goal[] => {
  const bars = parserBars(parser);
  const named = (name: string) => bars.find((b) => b.label === name || b.label.endsWith(`.${name}`));
  const sizes = numericLeaves(parser)
    .filter((l) => /codex/i.test(l.path) && /(chars|bytes|size)/i.test(l.path))
    .map((l) => `${l.path} ${f(l.value, 0)}`);
  return Object.entries(GOAL_PARSER_MBPS).map(([name, goal]) => {
    const codex = named(`${name}${CODEX_CHUNKS}`);
    const figure = codex ?? named(name);
    return {
      goal: `parser throughput ≥ ${goal} MB/s — \`${figure?.label ?? name}\` (${codex ? `codex's chunk sizes${sizes.length > 0 ? `: ${sizes.join(", ")}` : ""}` : "16-char chunks; no figure at codex's chunk sizes in this run"})`,
      measured: figure ? `${f(figure.mbPerSecond, 0)} MB/s` : "n/a",
      met: figure ? figure.mbPerSecond >= goal : undefined,
    };
  });
};

export const goalsOf = (r: BenchResults): Goal[] => {
  const goals: Goal[] = [...peerGoals(r.peer), ...agentSessionGoals(r.agentSession)];
  const cells = r.http?.cells ?? [];
  if (cells.length === 0)
    goals.push(
      {
        goal: `CPU per request ≤ ${GOAL_CPU_VS_LIMIT} × the limit's — chat and responses, JSON and SSE`,
        measured: "n/a",
        met: undefined,
      },
      {
        goal: `gateway CPU per backend text delta ≤ ${GOAL_CPU_PER_DELTA_US} µs`,
        measured: "n/a",
        met: undefined,
      },
    );
  for (const c of cells.filter((x) => x.connections === 64 && x.scenario.endsWith("-text")))
    goals.push({
      goal: `CPU per request ≤ ${GOAL_CPU_VS_LIMIT} × the limit's at 64 connections — ${c.label}`,
      measured: `× ${f(c.gateway.cpuUsPerRequest / c.baseline.cpuUsPerRequest, 2)} (${f(c.gateway.cpuUsPerRequest, 0)} vs ${f(c.baseline.cpuUsPerRequest, 0)} µs)`,
      met: c.gateway.cpuUsPerRequest <= GOAL_CPU_VS_LIMIT * c.baseline.cpuUsPerRequest,
    });
  for (const c of cells.filter((x) => x.connections === 64))
    goals.push({
      goal: `throughput ≥ ${GOAL_RPS} × baseline at 64 connections — ${c.label}`,
      measured: `× ${f(c.rpsRatio, 3)}`,
      met: c.rpsRatio >= GOAL_RPS,
    });
  for (const c of cells.filter((x) => x.connections === 16))
    goals.push({
      goal: `added p99 ≤ ${GOAL_P99_MS} ms at 16 connections — ${c.label}`,
      measured: withUnit(signed(c.addedP99Ms), "ms"),
      met: c.addedP99Ms <= GOAL_P99_MS,
    });
  // Text workloads only: a tool workload's deltas are 6-character slices of blocks, not tokens.
  for (const c of cells.filter((x) => x.connections === 64 && x.scenario.endsWith("-text")))
    goals.push({
      goal: `gateway CPU per backend text delta ≤ ${GOAL_CPU_PER_DELTA_US} µs — ${c.label}`,
      measured: c.addedCpuUsPerDelta === undefined ? "n/a" : `${f(c.addedCpuUsPerDelta, 2)} µs`,
      met: c.addedCpuUsPerDelta === undefined ? undefined : c.addedCpuUsPerDelta <= GOAL_CPU_PER_DELTA_US,
    });
  const plain = r.holdback?.find((h) => h.model === "bench-slow");
  goals.push({
    goal: "plain text not delayed by the parser's holdback (0 extra chunks)",
    measured: plain ? `${plain.maxExtraChunks} extra chunks (max over ${plain.backendDeltas} deltas)` : "n/a",
    met: plain ? plain.maxExtraChunks === 0 : undefined,
  });
  const ratios = linearityRatios(r.parser);
  if (ratios.length === 0)
    goals.push({
      goal: `parser 4 MB / 1 MB time in 1-byte chunks ≤ ${GOAL_LINEAR}`,
      measured: "n/a",
      met: undefined,
    });
  for (const lin of ratios)
    goals.push({
      goal: `parser 4 MB / 1 MB time in 1-byte chunks ≤ ${GOAL_LINEAR} — \`${lin.path}\``,
      measured: `× ${f(lin.value, 2)}`,
      met: lin.value <= GOAL_LINEAR,
    });
  goals.push(...parserThroughputGoals(r.parser));
  goals.push(...codexGoals(r));
  goals.push(...beforeGoals(r));
  goals.push(...libraryPeerGoals(r.libraryPeer));
  return goals;
};

const httpTable = (cells: ReadonlyArray<HttpCell>) =>
  table(
    [
      "workload",
      "conns",
      "req/s base → gw",
      "ratio (range)",
      "p50 base / gw (ms)",
      "Δp50",
      "p99 base / gw (ms)",
      "Δp99",
      "CPU µs/req base → gw",
      "added CPU µs / backend delta",
      "server cores base / gw",
    ],
    cells.map((c) => [
      c.label,
      String(c.connections),
      `${f(c.baseline.rps, 0)} → ${f(c.gateway.rps, 0)}`,
      `${f(c.rpsRatio, 3)} (${f(c.rpsRatioRange[0])}–${f(c.rpsRatioRange[1])})`,
      `${f(c.baseline.p50Ms)} / ${f(c.gateway.p50Ms)}`,
      signed(c.addedP50Ms),
      `${f(c.baseline.p99Ms)} / ${f(c.gateway.p99Ms)}`,
      signed(c.addedP99Ms),
      `${f(c.baseline.cpuUsPerRequest, 0)} → ${f(c.gateway.cpuUsPerRequest, 0)} (${signed(c.addedCpuUsPerRequest, 0)})`,
      c.addedCpuUsPerDelta === undefined ? "n/a" : `${f(c.addedCpuUsPerDelta, 2)} (${c.backendDeltas})`,
      `${f(c.baseline.cpuCores)} / ${f(c.gateway.cpuCores)}`,
    ]),
  );

type Profiled = NonNullable<BenchResults["profiles"]>[number];

/** The gateway's extra CPU for one workload, attributed to code the baseline does not run (or runs less). */
const causeOf = (r: BenchResults, p: Profiled): string => {
  const base = new Map(p.baseline.byGroup.map((g) => [g.name, g.share]));
  const extra = p.gateway.byGroup
    .map((g) => ({ name: g.name, extra: g.share - (base.get(g.name) ?? 0) }))
    .filter((g) => g.extra > 0.02)
    .sort((a, b) => b.extra - a.extra)
    .slice(0, 5);
  const top = p.gateway.topFunctions
    .slice(0, 3)
    .map((t) => `\`${t.name}\` ${f(t.share * 100, 1)} %`)
    .join(", ");
  const cell = r.http?.cells.find((c) => c.scenario === p.scenario && c.connections === p.connections);
  const cpu = cell
    ? `CPU per request ${f(cell.gateway.cpuUsPerRequest, 0)} µs (gateway) vs ${f(cell.baseline.cpuUsPerRequest, 0)} µs (baseline) at ${p.connections} connections; with one core per server, throughput is bounded by CPU per request. `
    : "";
  return `${cpu}Larger share in the gateway's profile than in the baseline's: ${extra
    .map((g) => `\`${g.name}\` (+${f(g.extra * 100, 1)} points)`)
    .join(", ")}. Hottest gateway functions: ${top}.`;
};

/** For each workload with a missed HTTP goal: what its profile (or the closest one) says. */
const missedCauses = (r: BenchResults): string => {
  const profiles = r.profiles ?? [];
  const missed = [
    ...new Set(
      (r.http?.cells ?? [])
        .filter(
          (c) =>
            (c.connections === 64 && c.rpsRatio < GOAL_RPS) ||
            (c.connections === 16 && c.addedP99Ms > GOAL_P99_MS),
        )
        .map((c) => c.scenario),
    ),
  ];
  return missed
    .map((id) => {
      const p =
        profiles.find((x) => x.scenario === id) ??
        profiles.find((x) => x.scenario === id.replace("responses", "chat"));
      return `- **${id}:** ${p ? `${p.scenario === id ? "" : `(profile of ${p.scenario}) `}${causeOf(r, p)}` : "no profile taken for this workload."}`;
    })
    .join("\n");
};

export const renderReport = (
  r: BenchResults,
  plots: { latency: string; rps: string; parser: string },
): string => {
  const m = r.machine;
  const goals = goalsOf(r);
  const missed = goals.filter((g) => g.met === false);
  const causes = missedCauses(r);
  const parts: string[] = [];
  parts.push(`# Benchmarks

_Generated by \`${r.command}\` (tooling/bench) on ${r.startedAt}; wall time ${f(r.wallSeconds / 60, 1)} min. Do not edit by hand: the next run rewrites this file. Raw figures: \`tooling/bench/results/latest.json\` (and one file per run under \`tooling/bench/results/runs/\`)._

${r.before ? `**Before/after:** this checkout against commit \`${r.before.commit}\` (\`BENCH_BEFORE_DIR=${r.before.dir}\`), built, run side by side in the peer section (a fourth contender) and the HTTP section (a third server).\n\n` : ""}**Machine:** ${m.cores} cores (${m.cpuModel}), ${f(m.memoryGiB, 0)} GiB, Node ${m.node}, ${m.platform}. Load average at start ${m.loadAverageAtStart.map((x) => f(x, 1)).join(" / ")}, at end ${(m.loadAverageAtEnd ?? []).map((x) => f(x, 1)).join(" / ")} (1/5/15 min). The machine is shared and noisy: ratios from alternating runs are the figures to trust, absolute numbers less so.${
    m.loadAverageAtStart[0] !== undefined && m.loadAverageAtStart[0] > m.cores * 1.5
      ? ` **Warning: the load average was over ${f(m.cores * 1.5, 0)} (other work on the machine) — every figure in this run is distorted by CPU contention; rerun on a quiet machine before drawing conclusions.**`
      : ""
  }
${
  Object.keys(r.failures).length > 0
    ? `\n**Sections that failed in this run:** ${Object.entries(r.failures)
        .map(([k, v]) => `${k}: ${v}`)
        .join("; ")}\n`
    : ""
}
## Goals

${table(
  ["goal", "measured", "verdict"],
  goals.map((g) => [g.goal, g.measured, verdict(g.met)]),
)}

${missed.length === 0 ? "Every measured goal was met in this run." : `${missed.length} goal(s) missed.${causes ? ` HTTP causes, from the CPU profiles (§ Profiles):\n\n${causes}` : ""}`}

## Method

- **Baseline (the physical limit):** a bare Hono + @hono/node-server app that reads the request body and writes the gateway's own response bytes for the same request — captured from the gateway at the start of each workload, headers included, the whole SSE body as one write through \`hono/streaming\`'s \`streamSSE\` (the fewest writes possible; the gateway writes once per backend batch).
- **Candidate:** the real gateway (\`createApp\` from \`@proxy/gateway\`, all middleware, both API adapters) over the core's scripted backend (\`createScriptedBackend\`) playing the same content: 200 text deltas, or a preamble plus 3 \`<tool_call>\` blocks in 6-character deltas. Logger: pino at level \`silent\` (log I/O is not measured). Everything runs built, as users run it: the workspace packages from their \`dist/\`, the bench itself compiled by tsup (\`tooling/bench/dist\`), plain Node with no loader.
- **Processes:** each server runs in its own Node process; the load generator (autocannon ${"9"}, run in-process in the parent) is a third. With 2 cores that is one core for the server under test and one for the load generator: the fairest split available. Server CPU is the server's own \`process.cpuUsage()\` delta, read over IPC; CPU per request = that delta / requests the server received.
- **Alternation:** for each workload and connection count both servers get a ${r.config.warmupSeconds} s warm-up, then ${r.config.reps} runs of ${r.config.seconds} s each in alternating order (A B, B A, …${r.before ? "; with the earlier build as a third server, the three rotate: A B C, B C A, C A B" : ""}). Figures are medians over those runs; latency percentiles come from autocannon's per-response timings (sub-millisecond), not its whole-millisecond histogram.
- **TTFB:** ${r.config.ttfbRequests} sequential requests per side on one kept-alive connection, alternating. **Holdback:** a slow scripted stream (one delta every 30 ms) read at the client; for each backend delta, how many later deltas had to arrive before its last byte reached the client (from content, not timing).
- **Parser:** see §3. **Codex:** see §4. **Memory:** see §5. **Profile:** V8's CPU profiler (what \`--cpu-prof\` records) switched on over the inspector for one extra ${r.profiles?.[0]?.seconds ?? "?"} s load window at 64 connections per server and workload, outside the measured runs.

${r.peer ? peerSection(r.peer, `${r.peer.config.reps} rounds of ${r.peer.config.seconds} s after a ${r.peer.config.warmupSeconds} s warm-up per side`) : ""}
## 1. HTTP overhead against the limit

![latency vs connections](../tooling/bench/results/${plots.latency})

![requests per second vs connections](../tooling/bench/results/${plots.rps})

${r.http ? httpTable(r.http.cells) : "_not measured_"}
${beforeHttpSection(r)}`);
  parts.push(renderRest(r, plots));
  parts.push(agentSessionSection(r.agentSession));
  parts.push(libraryPeerSection(r.libraryPeer));
  // Measured by hand (src/abuse-main.ts), so kept in a page this report does not rewrite.
  parts.push("\n## Abusive clients beside normal ones\n\nSee [benchmarks-abuse.md](benchmarks-abuse.md).\n");
  return parts.join("\n");
};
