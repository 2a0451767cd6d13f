import { f, type Goal, table } from "../report-format.js";

/** What `agent-session/main.js` prints, as far as the report reads it. */
interface SessionRun {
  readonly turns: number;
  /** Sessions run per surface/mode; each turn's figures are their median (absent: one). */
  readonly reps?: number;
  readonly continuity: string;
  /** When the run began (ISO time). */
  readonly startedAt?: string;
  /** An edit-heavy session: every Nth request regenerates the last answer (absent or 0: none). */
  readonly regenerateEvery?: number;
  /** `PROXY_CODEX_KEEP_EDITS` of the gateway that ran it. */
  readonly keepEdits?: string;
  readonly loadAverage: { readonly start: number; readonly end: number };
  readonly results: ReadonlyArray<{
    readonly session: string;
    readonly firstKeyShare?: number;
    /** Of the turns that are not regenerates: the share on the session's first key. */
    readonly linearFirstKeyShare?: number;
    readonly ttftRatioAtLast?: number;
    readonly turns: ReadonlyArray<{
      readonly ttftMs: number;
      readonly stdinBytes: number;
      readonly gatewayCpuMs?: number;
      readonly regenerated?: boolean;
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
  /** The edit-heavy session, edits kept (`on`: the thread reverted) and not (`off`: a fresh thread per edit). */
  readonly edits?: { readonly on: SessionRun; readonly off: SessionRun } | undefined;
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
  for (const s of sessions(a.edits?.on ?? EMPTY_RUN))
    goals.push({
      goal: `edit-heavy session (every ${a.edits?.on.regenerateEvery}th turn regenerated, edits kept): share of the linear turns with the session's first prompt_cache_key = 100 % — ${s.session}`,
      measured: `${f((s.linearFirstKeyShare ?? Number.NaN) * 100, 0)} %`,
      met: s.linearFirstKeyShare === undefined ? undefined : s.linearFirstKeyShare >= GOAL_SHARE,
    });
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

const EMPTY_RUN: SessionRun = {
  turns: 0,
  continuity: "true",
  loadAverage: { start: 0, end: 0 },
  results: [],
};

const medianOf = (xs: ReadonlyArray<number>) => {
  const sorted = xs.filter(Number.isFinite).sort((x, y) => x - y);
  return sorted.length === 0 ? Number.NaN : (sorted[sorted.length >> 1] as number);
};

/** One edit-heavy session: the key shares, and the linear and regenerated turns' medians apart. */
const editRow = (label: string, r: SessionRun["results"][number]) => {
  const pick = (regenerated: boolean) =>
    r.turns.slice(1).filter((t) => (t.regenerated === true) === regenerated);
  const [linear, regen] = [pick(false), pick(true)];
  const pair = (g: (t: (typeof linear)[number]) => number, digits: number) =>
    `${f(medianOf(linear.map(g)), digits)} / ${f(medianOf(regen.map(g)), digits)}`;
  return [
    label,
    `${f((r.linearFirstKeyShare ?? Number.NaN) * 100, 0)} % / ${f((r.firstKeyShare ?? Number.NaN) * 100, 0)} %`,
    pair((t) => t.stdinBytes, 0),
    pair((t) => t.gatewayCpuMs ?? Number.NaN, 1),
    pair((t) => t.ttftMs, 1),
  ];
};

/** § 6's edit-heavy session: every Nth request regenerates the last answer, edits kept and not. */
const editSection = (edits: AgentSessionResult["edits"]): string => {
  if (!edits) return "";
  const { on, off } = edits;
  const header = [
    "session (surface/mode), edits",
    "turns with the first key: linear / all",
    "codex stdin bytes: linear / regenerate",
    "gateway CPU ms: linear / regenerate",
    "TTFT ms: linear / regenerate",
  ];
  const rows = [
    ...sessions(on).map((r) => editRow(`${r.session}, kept`, r)),
    ...sessions(off).map((r) => editRow(`${r.session}, fresh thread per edit`, r)),
  ];
  return `
### An edit-heavy session: every ${on.regenerateEvery}th turn regenerated

The same session of ${on.turns} requests, except that every ${on.regenerateEvery}th request regenerates the last
answer: the previous request is sent again (a chat UI's regenerate, Claude Code's rewind of the last
turn) and its new answer replaces the old one. With \`PROXY_CODEX_KEEP_EDITS=true\` ("kept": the live
thread is reverted to before the regenerated turn) and without it (the default: "fresh thread per
edit", the baseline). Linear turns are every turn after the first that is not a regenerate; per
column the median over those turns of each turn's median over ${on.reps ?? 1} interleaved sessions.
Measured${on.startedAt ? ` on ${on.startedAt}` : ""} by \`node tooling/bench/dist/agent-session/main.js --turns ${on.turns} --reps ${on.reps ?? 1} --regenerate-every ${on.regenerateEvery}\`
(load average ${f(on.loadAverage.start, 1)} at the start of the kept run, ${f(off.loadAverage.end, 1)} at the end of the other).

${table(header, rows)}

In native mode one codex turn spans the whole tool loop, so a regenerate reruns a step of that loop
while codex's turn waits on the step's call: kept edits revert that open turn (codex ends it) and put
the client's items since its start back (docs/codex-threads.md), so a regenerate sends codex those
items, not the whole history, and the session stays on its key; without kept edits it starts a fresh
thread. In prompt mode each request is its own codex turn, which kept edits revert.
`;
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
${editSection(a.edits)}
${replicaPart}`;
};
