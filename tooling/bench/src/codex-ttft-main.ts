/**
 * Time to first token of the codex backend through the gateway (HTTP SSE, own process) against the
 * direct JSON-RPC driver, alone (no throughput or RSS fill; `docs/benchmarks.md` is left as it is).
 * Run: `pnpm --filter @proxy/bench exec tsx --conditions=@proxy/source src/codex-ttft-main.ts [turns]`
 */
import { loadavg } from "node:os";
import { runCodexGateway } from "./codex.js";

const turns = Number(process.argv[2] ?? 40);
const loadAtStart = loadavg()[0];
const result = await runCodexGateway({
  latencyTurns: turns,
  throughputTurns: 0,
  concurrency: [],
  rssAfter: [],
  fillConcurrency: 1,
  fillDeadline: Number.POSITIVE_INFINITY,
  log: (line) => process.stderr.write(`${line}\n`),
});
const { ttftMs, latencyMs } = result;
const row = (name: string, s: { p50: number; p90: number }) =>
  `${name.padEnd(34)}${s.p50.toFixed(1).padStart(8)}${s.p90.toFixed(1).padStart(8)}`;
process.stderr.write(
  `${[
    `${"time to first token (ms)".padEnd(34)}${"p50".padStart(8)}${"p90".padStart(8)}`,
    row("via gateway (HTTP SSE)", ttftMs.gateway),
    row("direct JSON-RPC", ttftMs.direct),
    `ratio of medians ${ttftMs.ratioOfMedians.toFixed(3)} (whole turn ${latencyMs.ratioOfMedians.toFixed(3)}), N=${turns} per side, load ${loadAtStart?.toFixed(2)} → ${loadavg()[0]?.toFixed(2)}`,
  ].join("\n")}\n`,
);
process.stdout.write(
  `${JSON.stringify({ loadAverage: { start: loadAtStart, end: loadavg()[0] }, ttftMs, latencyMs }, null, 2)}\n`,
);
