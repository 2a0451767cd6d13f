import { describe, expect, it } from "vitest";
import { type AgentSessionResult, agentSessionGoals } from "../src/agent-session/agent-report.js";

/** A session run whose per-turn CPU is the median over `reps` (each rep's series as given). */
const run = (reps: number[][]): AgentSessionResult["on"] => {
  const turns = (reps[0] ?? []).map((_, i) => {
    const at = reps.map((r) => r[i] as number).sort((a, b) => a - b);
    return { ttftMs: 30, stdinBytes: 5000, gatewayCpuMs: at[at.length >> 1] as number };
  });
  return {
    turns: turns.length,
    reps: reps.length,
    continuity: "true",
    loadAverage: { start: 1, end: 1 },
    results: [
      { session: "direct", turns },
      { session: "chat/native", firstKeyShare: 1, ttftRatioAtLast: 1, turns, gatewayCpuMsByRep: reps },
    ],
  };
};
const flatGoal = (reps: number[][]) =>
  agentSessionGoals({ on: run(reps), off: run(reps) }).find((g) => g.goal.startsWith("per-turn codex"));

describe("the agent session's flat-CPU goal", () => {
  const flat = Array.from({ length: 30 }, () => 4);
  it("judges the median session, and shows the sessions' spread", () => {
    // A 40 ms garbage collection in one session's last turns doubles that session alone.
    const spiked = flat.map((ms, i) => (i === 25 ? ms + 40 : ms));
    const goal = flatGoal([flat, spiked, flat]);
    expect(goal?.measured).toBe("bytes × 1.00, CPU × 1.00 (sessions: 1.00–2.00)");
    expect(goal?.met).toBe(true);
  });
  it("misses when every session grows", () => {
    const growing = flat.map((ms, i) => ms + i / 3);
    expect(flatGoal([growing, growing, growing])?.met).toBe(false);
  });
});
