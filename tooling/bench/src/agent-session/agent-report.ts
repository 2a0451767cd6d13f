import { f, type Goal, table } from "../report-format.js";

/** What `agent-session/main.js` prints, as far as the report reads it. */
interface SessionRun {
  readonly turns: number;
  /** Sessions run per surface/mode; each turn's figures are their median (absent: one). */
  readonly reps?: number;
  readonly continuity: string;
  readonly loadAverage: { readonly start: number; readonly end: number };
  readonly results: ReadonlyArray<{
    readonly session: string;
    readonly firstKeyShare?: number;
    readonly ttftRatioAtLast?: number;
    readonly turns: ReadonlyArray<{
      readonly ttftMs: number;
      readonly stdinBytes: number;
      readonly gatewayCpuMs?: number;
    }>;
    /** Each repetition's per-turn gateway CPU (ms), for the spread of the growth. */
    readonly gatewayCpuMsByRep?: ReadonlyArray<ReadonlyArray<number>>;
  }>;
}

export interface AgentSessionResult {
  /** Continuity on (the default): every surface, native and prompt. */
  readonly on: SessionRun;
  /** Continuity off, chat native only: today's one-thread-per-request behaviour, for comparison. */
  readonly off: SessionRun;
  /**
   * The session alternating two replicas on one PostgreSQL (`replicas-main.js`), with owner-forwarding
   * and without; figures summed over both gateways and both codexes.
   */
  readonly replicas?: SessionRun | undefined;
}

const GOAL_SHARE = 1;
const GOAL_TTFT = 1.05;
/** "Proportional to the new items, not to the history": the last turn costs at most this × turn 2. */
const GOAL_FLAT = 1.5;

/** Per-turn CPU is a few ms, its noise of the same order: windows of ten turns are compared, as sums. */
const WINDOW = 10;
const sum = (xs: ReadonlyArray<number>) => xs.reduce((a, b) => a + b, 0);
/** The last WINDOW turns against turns 2 … WINDOW + 1 (turn 1 starts the thread). */
const growth = (xs: ReadonlyArray<number>) => {
  const early = sum(xs.slice(1, 1 + WINDOW));
  return early > 0 ? sum(xs.slice(Math.max(1, xs.length - WINDOW))) / early : Number.NaN;
};

const sessions = (run: SessionRun) => run.results.filter((r) => r.session !== "direct");

export const agentSessionGoals = (a: AgentSessionResult | undefined): Goal[] => {
  if (!a)
    return [
      {
        goal: `per-turn codex stdin bytes and gateway CPU flat over a 30-turn session, and TTFT at its last turn — each surface/mode`,
        measured: "n/a",
        met: undefined,
      },
    ];
  const goals: Goal[] = [];
  for (const s of sessions(a.on)) {
    goals.push({
      goal: `share of turns with the session's first prompt_cache_key = 100 % — ${s.session}`,
      measured: `${f((s.firstKeyShare ?? Number.NaN) * 100, 0)} %`,
      met: s.firstKeyShare === undefined ? undefined : s.firstKeyShare >= GOAL_SHARE,
    });
    const cpu = growth(s.turns.map((t) => t.gatewayCpuMs ?? Number.NaN));
    const bytes = growth(s.turns.map((t) => t.stdinBytes));
    const byRep = (s.gatewayCpuMsByRep ?? []).map(growth);
    const spread =
      byRep.length > 1 ? ` (sessions: ${f(Math.min(...byRep), 2)}–${f(Math.max(...byRep), 2)})` : "";
    goals.push({
      goal: `per-turn codex stdin bytes and gateway CPU flat (last ${WINDOW} turns ≤ ${GOAL_FLAT} × turns 2–${WINDOW + 1}, median of ${a.on.reps ?? 1} sessions) — ${s.session}`,
      measured: `bytes × ${f(bytes, 2)}, CPU × ${f(cpu, 2)}${spread}`,
      met:
        Number.isFinite(bytes) && Number.isFinite(cpu) ? bytes <= GOAL_FLAT && cpu <= GOAL_FLAT : undefined,
    });
    goals.push({
      goal: `time to first token at turn ${a.on.turns}, gateway / codex direct ≤ ${GOAL_TTFT} — ${s.session}`,
      measured: `× ${f(s.ttftRatioAtLast ?? Number.NaN, 2)}`,
      met: s.ttftRatioAtLast === undefined ? undefined : s.ttftRatioAtLast <= GOAL_TTFT,
    });
  }
  for (const s of a.replicas?.results ?? []) {
    if (s.session.includes("no owner-forwarding")) continue;
    goals.push({
      goal: `share of turns with the session's first prompt_cache_key = 100 % — ${s.session}`,
      measured: `${f((s.firstKeyShare ?? Number.NaN) * 100, 0)} %`,
      met: s.firstKeyShare === undefined ? undefined : s.firstKeyShare >= GOAL_SHARE,
    });
  }
  return goals;
};

const row = (label: string, r: SessionRun["results"][number]) => {
  const t = r.turns;
  const at = (k: number) => t[k - 1];
  return [
    label,
    r.firstKeyShare === undefined ? "—" : `${f(r.firstKeyShare * 100, 0)} %`,
    `${at(2)?.stdinBytes ?? "—"} / ${at(t.length)?.stdinBytes ?? "—"}`,
    r.session === "direct"
      ? "—"
      : `${f(at(2)?.gatewayCpuMs ?? Number.NaN, 1)} / ${f(at(t.length)?.gatewayCpuMs ?? Number.NaN, 1)}`,
    `${f(at(2)?.ttftMs ?? Number.NaN, 1)} / ${f(at(t.length)?.ttftMs ?? Number.NaN, 1)}`,
    r.ttftRatioAtLast === undefined ? "—" : f(r.ttftRatioAtLast, 2),
  ];
};

/** § Agent session: one codex thread per client conversation (continuity) against codex driven directly. */
export const agentSessionSection = (a: AgentSessionResult | undefined): string => {
  if (!a) return "";
  const n = a.on.turns;
  const header = [
    "session (surface/mode)",
    "turns with the first key",
    `codex stdin bytes, turn 2 / ${n}`,
    `gateway CPU ms, turn 2 / ${n}`,
    `TTFT ms, turn 2 / ${n}`,
    `TTFT gateway / direct at turn ${n}`,
  ];
  const on = a.on.results.map((r) => row(r.session === "direct" ? "codex direct, one thread" : r.session, r));
  const off = sessions(a.off).map((r) => row(`${r.session}, continuity off`, r));
  const replicas = a.replicas;
  const replicaPart = replicas
    ? `
### Alternating two replicas

The same session on the chat surface with every odd turn sent to one gateway and every even turn to
another (two built gateways, each its own codex, on one throwaway PostgreSQL), as a load balancer that
does not pin conversations does: with the replicas sharing conversations (\`PROXY_REPLICA_URL\`, a
turn goes to the replica that holds the live thread, docs/state.md) and without. Bytes are what both
gateways wrote to their codexes' stdin, CPU both gateways' together; each session ${replicas.reps ?? 1} times, per turn the median.
\`node tooling/bench/dist/agent-session/replicas-main.js --turns ${replicas.turns} --reps ${replicas.reps ?? 1}\`
(load average ${f(replicas.loadAverage.start, 1)} at its start, ${f(replicas.loadAverage.end, 1)} at its end: the machine is shared, absolute times move with it).

${table(
  header.slice(0, 5),
  replicas.results.map((r) => row(r.session, r).slice(0, 5)),
)}
`
    : "";
  return `## 6. A ${n}-turn agent session on codex (conversation continuity)

A scripted agent session: every turn the model writes a few words and calls a tool, the client sends the
tool's output back (about ${"5,000"} characters) with its whole, growing history, as stateless clients do; on
each surface in native and prompt mode, through the built gateway over the real codex binary and a scripted
model provider, against codex driven directly on one thread. Continuity on (the default), then off
(chat, native) for comparison. Each session runs ${a.on.reps ?? 1} times, interleaved; per turn the median, gateway
CPU from its threads' run time (ns). \`node tooling/bench/dist/agent-session/main.js --turns ${n} --reps ${a.on.reps ?? 1}\`
(load average ${f(a.on.loadAverage.start, 1)} at its start).

${table(header, [...on, ...off])}
${replicaPart}`;
};
