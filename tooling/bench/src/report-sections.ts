import { numericLeaves } from "./parser-result.js";
import type { ProfileSummary } from "./profile.js";
import { coldStartSection } from "./report-codex.js";
import { f, signed, table } from "./report-format.js";
import type { BenchResults } from "./results.js";

/** §2–§5 and the profiles of docs/benchmarks.md. */

export const profileTable = (p: ProfileSummary | undefined, which: "byGroup" | "topFunctions", n: number) =>
  p
    ? table(
        [which === "byGroup" ? "code" : "function", "self ms", "share"],
        p[which]
          .slice(0, n)
          .map((row) => [`\`${row.name}\``, f(row.selfMs, 0), `${f(row.share * 100, 1)} %`]),
      )
    : "_no profile_";

export const renderRest = (r: BenchResults, plots: { parser: string }): string => {
  const out: string[] = [];
  out.push(`## 2. Time to first byte and holdback

${table(
  [
    "workload",
    "first byte p50 base / gw (ms)",
    "first text p50 base / gw (ms)",
    "added first text p50 / p99 (ms)",
  ],
  (r.ttfb ?? []).map((t) => [
    t.scenario,
    `${f(t.baseline.firstByteP50)} / ${f(t.gateway.firstByteP50)}`,
    `${f(t.baseline.firstTextP50)} / ${f(t.gateway.firstTextP50)}`,
    `${signed(t.addedFirstTextP50Ms)} / ${signed(t.addedFirstTextP99Ms)}`,
  ]),
)}

${table(
  ["slow stream", "backend deltas", "SSE text events", "extra chunks per delta", "median gap (ms) vs pacing"],
  (r.holdback ?? []).map((h) => [
    h.model === "bench-slow" ? "plain text" : "control: every 3rd delta ends in `<`",
    String(h.backendDeltas),
    String(h.sseTextEvents),
    h.extraChunks.join(" "),
    `${f(h.medianGapMs, 1)} vs ${h.pacingMs}`,
  ]),
)}

The control shows the measure can see holdback: a delta ending in \`<\` (a possible tag start) is held until the next delta decides it, by design; plain text is forwarded as it arrives.

## 3. Parser

Source: ${String((r.parser as { source?: string } | undefined)?.source ?? "n/a")}.

![parser MB/s](../tooling/bench/results/${plots.parser})

${table(
  ["figure", "value"],
  numericLeaves(r.parser).map((l) => [`\`${l.path}\``, f(l.value, 2)]),
)}
`);
  const cg = r.codexGateway;
  out.push(`## 4. Codex backend

${
  cg
    ? `Gateway (own process, its app-server below it) vs a minimal direct JSON-RPC driver on its own app-server, same codex binary, sealed app-server flags and environment, CODEX_HOME and scripted Responses provider (7 text deltas per turn). Cold start of the bench's gateway process: ${f(cg.coldStartMs.gateway, 0)} ms (process start, sealed catalog, app-server handshake), direct driver ${f(cg.coldStartMs.direct, 0)} ms (spawn to \`initialize\`).
${coldStartSection(cg.coldStart)}
${table(
  ["per-turn latency (ms)", "p50", "p90"],
  [
    ["via gateway (HTTP SSE)", f(cg.latencyMs.gateway.p50, 1), f(cg.latencyMs.gateway.p90, 1)],
    ["direct JSON-RPC", f(cg.latencyMs.direct.p50, 1), f(cg.latencyMs.direct.p90, 1)],
    ["ratio of medians", f(cg.latencyMs.ratioOfMedians, 3), ""],
  ],
)}
${
  cg.ttftMs
    ? `
${table(
  ["time to first token, gateway vs direct driver (ms)", "p50", "p90"],
  [
    ["via gateway (HTTP SSE, first text delta)", f(cg.ttftMs.gateway.p50, 1), f(cg.ttftMs.gateway.p90, 1)],
    ["direct JSON-RPC (first agentMessage delta)", f(cg.ttftMs.direct.p50, 1), f(cg.ttftMs.direct.p90, 1)],
    ["ratio of medians", f(cg.ttftMs.ratioOfMedians, 3), ""],
  ],
)}

The gateway starts each turn on a codex thread it started ahead of time for the same config (\`PROXY_CODEX_WARM_THREADS\`, default 1); the driver makes its own \`thread/start\` per turn. Turns are 20 ms apart.
`
    : ""
}
${table(
  ["concurrency", "turns/s gateway", "turns/s direct", "ratio", "median turn ms gateway / direct"],
  cg.throughput.map((t) => [
    String(t.concurrency),
    f(t.gateway.turnsPerSecond),
    f(t.direct.turnsPerSecond),
    f(t.ratio, 3),
    `${f(t.gateway.medianTurnMs, 0)} / ${f(t.direct.medianTurnMs, 0)}`,
  ]),
)}

${table(
  ["after gateway requests (target)", "gateway RSS (MiB)", "app-server RSS (MiB)"],
  cg.rss.map((s) => [`${s.afterRequests} (${s.target})`, f(s.gatewayRssMiB, 1), f(s.appServerRssMiB, 1)]),
)}

RSS is sampled 6 s after the last request (the app-server unloads finished threads after \`thread_unload_delay_secs=5\`). ${
        cg.rss.some((s) => s.afterRequests < s.target)
          ? "**The fill stopped short of its target: the run's time budget (BENCH_BUDGET_SECONDS) ran out first.**"
          : ""
      }`
    : "_not measured_"
}

Adapter-level figures from \`packages/adapter-codex-appserver/bench/turn-bench.ts\` (\`runTurnBench\`, in-process adapter vs its own direct driver):

${table(
  ["figure", "value"],
  numericLeaves(r.codexAdapter).map((l) => [`\`${l.path}\``, f(l.value, 2)]),
)}
`);
  const sm = r.streamMemory;
  out.push(`## 5. Memory per open stream

${
  sm
    ? `${sm.streams} idle open streams (scripted backend: one delta, then silence) on a fresh gateway, RSS and heap after forced GC, minus the same gateway idle: **${f(sm.rssPerStreamKiB, 1)} KiB RSS per stream** (heap ${f(sm.heapPerStreamKiB, 1)} KiB). Idle RSS ${f(sm.idle.rss / 2 ** 20, 1)} MiB, loaded ${f(sm.loaded.rss / 2 ** 20, 1)} MiB. Backend turns open while loaded: ${sm.activeTurnsWhileLoaded}; after the clients hung up: ${sm.activeTurnsAfterClose}.`
    : "_not measured_"
}

## Profiles (64 connections, self time)

${(r.profiles ?? [])
  .map(
    (p) => `### ${p.scenario}

Gateway by code:

${profileTable(p.gateway, "byGroup", 10)}

Baseline by code:

${profileTable(p.baseline, "byGroup", 6)}

Hottest gateway functions:

${profileTable(p.gateway, "topFunctions", 10)}
`,
  )
  .join("\n")}
`);
  return out.join("\n");
};
