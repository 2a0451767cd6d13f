import type { HttpCell } from "./http-overhead.js";
import { GOAL_NO_WORSE } from "./peer/peer-report.js";
import { f, type Goal, table } from "./report-format.js";
import type { BenchResults } from "./results.js";
import { ratio } from "./stats.js";

/**
 * Before → after from one run (BENCH_BEFORE_DIR): the earlier build's gateway ran as a third side
 * in the HTTP alternation. Nothing is rendered in a run without one.
 */

const withBefore = (r: BenchResults) => (r.http?.cells ?? []).filter((c) => c.before !== undefined);

/** The goal "per-delta and per-request CPU no worse than before": at 64 connections, every workload. */
export const beforeGoals = (r: BenchResults): Goal[] => {
  const commit = r.before?.commit ?? "?";
  const goals: Goal[] = [];
  const at64 = withBefore(r).filter((c) => c.connections === 64);
  for (const c of at64) {
    const q = ratio(c.gateway.cpuUsPerRequest, c.before?.cpuUsPerRequest ?? Number.NaN);
    goals.push({
      goal: `CPU per request ≤ ${GOAL_NO_WORSE} × before (${commit}) at 64 connections — ${c.label}`,
      measured: `${f(c.before?.cpuUsPerRequest, 0)} → ${f(c.gateway.cpuUsPerRequest, 0)} µs (× ${f(q, 2)})`,
      met: Number.isFinite(q) ? q <= GOAL_NO_WORSE : undefined,
    });
  }
  for (const c of at64.filter((x) => x.scenario.endsWith("-text"))) {
    const after = c.addedCpuUsPerDelta ?? Number.NaN;
    const before = c.beforeCpuUsPerDelta ?? Number.NaN;
    goals.push({
      goal: `added CPU per backend delta ≤ ${GOAL_NO_WORSE} × before (${commit}) at 64 connections — ${c.label}`,
      measured: `${f(before, 2)} → ${f(after, 2)} µs`,
      met: Number.isFinite(after) && Number.isFinite(before) ? after <= before * GOAL_NO_WORSE : undefined,
    });
  }
  return goals;
};

const beforeTable = (cells: ReadonlyArray<HttpCell>) =>
  table(
    [
      "workload",
      "conns",
      "req/s before → after",
      "p99 ms before / after",
      "CPU µs/req before → after",
      "after / before CPU",
      "added CPU µs / delta before → after",
    ],
    cells.map((c) => [
      c.label,
      String(c.connections),
      `${f(c.before?.rps, 0)} → ${f(c.gateway.rps, 0)}`,
      `${f(c.before?.p99Ms)} / ${f(c.gateway.p99Ms)}`,
      `${f(c.before?.cpuUsPerRequest, 0)} → ${f(c.gateway.cpuUsPerRequest, 0)}`,
      f(ratio(c.gateway.cpuUsPerRequest, c.before?.cpuUsPerRequest ?? Number.NaN), 2),
      `${f(c.beforeCpuUsPerDelta)} → ${f(c.addedCpuUsPerDelta)}`,
    ]),
  );

/** The subsection under §1 (empty without an earlier build). */
export const beforeHttpSection = (r: BenchResults): string => {
  const cells = withBefore(r);
  if (cells.length === 0) return "";
  return `
### Before → after (commit \`${r.before?.commit ?? "?"}\`)

The gateway built from commit \`${r.before?.commit ?? "?"}\` (\`BENCH_BEFORE_DIR\`: its \`@proxy/gateway\` \`createApp\` and its core's scripted backend, loaded from that tree's \`dist/\` in a process of its own) ran as a third side in the same alternation (baseline, after, before, rotated each round). Its answers are checked for the workload like ours; the added CPU per delta of both is taken over the same baseline (this checkout's bytes). "No worse" allows ${f((GOAL_NO_WORSE - 1) * 100, 0)} % for the noise of a shared machine.

${beforeTable(cells)}
`;
};
