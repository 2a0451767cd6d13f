import { describe, expect, it } from "vitest";
import {
  type AgentSessionResult,
  agentSessionGoals,
  agentSessionSection,
} from "../src/agent-session/agent-report.js";

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

describe("the edit-heavy session's rows and goal", () => {
  const turn = (k: number, regenerated: boolean) => ({
    ttftMs: regenerated ? 90 : 30,
    stdinBytes: regenerated ? 40_000 : 5000 + k,
    gatewayCpuMs: 4,
    regenerated,
  });
  const turns = Array.from({ length: 10 }, (_, i) => turn(i + 1, (i + 1) % 5 === 0));
  const editRun = (keepEdits: string, linear: number): AgentSessionResult["on"] => ({
    turns: 10,
    reps: 3,
    continuity: "true",
    regenerateEvery: 5,
    keepEdits,
    startedAt: "2026-12-02T13:30:00.000Z",
    loadAverage: { start: 2, end: 3 },
    results: [
      { session: "direct", turns },
      { session: "chat/prompt", firstKeyShare: linear, linearFirstKeyShare: linear, turns },
    ],
  });
  const base = run([Array.from({ length: 10 }, () => 4)]);
  const result = { on: base, off: base, edits: { on: editRun("true", 1), off: editRun("false", 0.5) } };

  it("judges the linear turns' share of the first key, with edits kept", () => {
    const goal = agentSessionGoals(result).find((g) => g.goal.startsWith("edit-heavy"));
    expect(goal).toMatchObject({ measured: "100 %", met: true });
    const missed = { ...result, edits: { on: editRun("true", 0.5), off: editRun("false", 0.5) } };
    expect(agentSessionGoals(missed).find((g) => g.goal.startsWith("edit-heavy"))?.met).toBe(false);
  });

  it("reports the linear and the regenerated turns apart, kept and fresh", () => {
    const section = agentSessionSection(result);
    expect(section).toContain("### An edit-heavy session: every 5th turn regenerated");
    expect(section).toContain("Measured on 2026-12-02T13:30:00.000Z");
    // Turns 2–9 without 5 are linear: medians 5006 bytes / 30 ms; the regenerates 40000 / 90.
    expect(section).toContain(
      "| chat/prompt, kept | 100 % / 100 % | 5006 / 40000 | 4.0 / 4.0 | 30.0 / 90.0 |",
    );
    expect(section).toContain("| chat/prompt, fresh thread per edit | 50 % / 50 % |");
  });
});

describe("the session alternating two replicas", () => {
  const flat = Array.from({ length: 30 }, () => 4);
  const replicas = (shares: [number, number]): AgentSessionResult["on"] => ({
    ...run([flat]),
    results: [
      {
        session: "chat/native, two replicas alternating",
        firstKeyShare: shares[0],
        turns: run([flat]).results[0]?.turns ?? [],
      },
      {
        session: "chat/native, two replicas alternating, no owner-forwarding",
        firstKeyShare: shares[1],
        turns: run([flat]).results[0]?.turns ?? [],
      },
    ],
  });
  const goalsOf = (shares: [number, number]) =>
    agentSessionGoals({ on: run([flat]), off: run([flat]), replicas: replicas(shares) }).filter((g) =>
      g.goal.includes("two replicas"),
    );
  it("has the first-key goal for the forwarding session only, met at 100 %", () => {
    expect(goalsOf([1, 0.03]).map((g) => [g.measured, g.met])).toEqual([["100 %", true]]);
    expect(goalsOf([0.5, 0.03]).map((g) => g.met)).toEqual([false]);
  });
  it("puts both sessions in the section's replica table", () => {
    const section = agentSessionSection({ on: run([flat]), off: run([flat]), replicas: replicas([1, 0.03]) });
    expect(section).toContain("### Alternating two replicas");
    expect(section).toContain("| chat/native, two replicas alternating, no owner-forwarding | 3 % |");
  });
});
