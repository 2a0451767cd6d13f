/**
 * Where the time to first token of a codex turn goes: the codex backend (in process, `stream()`)
 * against the bare JSON-RPC driver, alternating, on the same codex binary, app-server flags,
 * sealed environment, thread config and scripted provider (immediate 7-chunk answer). Prints a
 * table on stderr and JSON on stdout. Run (build first, or use the source condition):
 * `pnpm tsx --conditions=@proxy/source packages/adapter-codex-appserver/bench/turn-start.ts [runs]`
 * (`WARM_THREADS=0`: without warm threads; `HISTORY=n`: n earlier messages to inject per turn;
 * `NATIVE_TOOLS=0`: the app-server initialized without the experimental API, as the driver's is).
 *
 * Phases (ms since the turn was asked for):
 * - `threadReady`: until `turn/start` is written (admission, a thread — started or taken warm —, inject);
 * - `threadStart`: the `thread/start` round trip, when the turn made one (omitted otherwise);
 * - `inject`: the `thread/inject_items` round trip, with `historyMessages` (omitted otherwise);
 * - `turnStartAck`: `turn/start` written → its answer read;
 * - `ackToConsumer` (backend only): that answer read → `stream-start` reaching the consumer;
 * - `firstDelta`: `turn/start` answered → first text delta; `ttft`: the sum; `total`: → turn end.
 */
import { spawn as nodeSpawn } from "node:child_process";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import {
  type CodexBackendOptions,
  createCodexBackend,
  resolveCodexCommand,
  sealedAppServerArgs,
  sealedEnvironment,
  sealedThreadParams,
  toCodexTurnInput,
  writeSealedCatalog,
} from "../src/index.js";
import { makeCodexHome, startDirectDriver, startScriptedModelProvider } from "../src/testing/index.js";

export interface TurnStartBenchOptions {
  /** Measured turns per side (alternating gateway / direct). */
  readonly runs?: number;
  readonly warmupRuns?: number;
  /** Earlier messages each turn carries (injected with `thread/inject_items`); default 0. */
  readonly historyMessages?: number;
  /** Extra backend options (e.g. `warmThreads: 0` to measure without the warm-thread pool). */
  readonly backend?: Partial<CodexBackendOptions>;
  readonly log?: (line: string) => void;
}

const CHUNKS = ["The ", "quick ", "brown ", "fox ", "jumps ", "over ", "it."];
const INSTRUCTIONS = "Bench.";
const PHASES = [
  "threadReady",
  "threadStart",
  "inject",
  "turnStartAck",
  "ackToConsumer",
  "firstDelta",
  "ttft",
  "total",
] as const;
type Phase = (typeof PHASES)[number];
type Marks = Partial<Record<Phase, number>>;

const quantile = (xs: ReadonlyArray<number>, q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? Number.NaN;
};
const round = (x: number, digits = 2) => Number(x.toFixed(digits));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const summarize = (samples: ReadonlyArray<Marks>) =>
  Object.fromEntries(
    PHASES.flatMap((phase) => {
      const xs = samples.flatMap((s) => (s[phase] === undefined ? [] : [s[phase]]));
      return xs.length === 0
        ? []
        : [[phase, { n: xs.length, median: round(quantile(xs, 0.5)), p95: round(quantile(xs, 0.95)) }]];
    }),
  ) as Partial<Record<Phase, { n: number; median: number; p95: number }>>;

/** The JSON-RPC requests the backend writes to its app-server's stdin, timestamped (method → last time). */
const REQUEST_LINE = /^\{"id":\d+,"method":"(thread\/start|thread\/inject_items|turn\/start)"/;

export const runTurnStartBench = async (options: TurnStartBenchOptions = {}) => {
  const log = options.log ?? (() => {});
  const provider = await startScriptedModelProvider(() => ({ chunks: CHUNKS }));
  const home = await makeCodexHome(provider.url);
  const env: NodeJS.ProcessEnv = { ...process.env, CODEX_HOME: home.path };
  const command = resolveCodexCommand(undefined, env);
  const scratch = await mkdtemp(join(tmpdir(), "turn-start-bench-"));
  await mkdir(join(scratch, "empty-path"));
  const written = new Map<string, number>();
  const answered = new Map<string, number>();
  const backend = createCodexBackend({
    env,
    ...options.backend,
    onRpcResult: (method) => answered.set(method, performance.now()),
    spawn: (c, a, o) => {
      const child = nodeSpawn(c, [...a], o);
      const write = child.stdin.write.bind(child.stdin) as (chunk: unknown, ...rest: unknown[]) => boolean;
      child.stdin.write = ((chunk: unknown, ...rest: unknown[]) => {
        const method = typeof chunk === "string" ? REQUEST_LINE.exec(chunk)?.[1] : undefined;
        if (method) written.set(method, performance.now());
        return write(chunk, ...rest);
      }) as typeof child.stdin.write;
      return child;
    },
  });
  // The baseline gets what the gateway's app-server gets: sealed flags, environment and thread.
  const direct = await startDirectDriver(
    command,
    sealedEnvironment(env, [], join(scratch, "empty-path")),
    sealedAppServerArgs(),
  );
  const threadParams = {
    ...sealedThreadParams(await writeSealedCatalog({ command, env, dir: scratch }), scratch),
    model: "scripted-model",
    baseInstructions: INSTRUCTIONS,
  };
  await backend.warmup();
  const history = Array.from({ length: options.historyMessages ?? 0 }, (_, i) => ({
    role: i % 2 === 0 ? ("user" as const) : ("assistant" as const),
    content: [{ type: "text" as const, text: `earlier message ${i}` }],
  }));
  // The driver injects exactly what the backend does for that history.
  const injected = toCodexTurnInput({ history, input: [] }, { allowRemoteImages: false }).inject;
  /** Background work the last turn started (a warm thread's replacement) settles before the next. */
  const settle = async () => {
    for (let i = 0; i < 400 && backend.warmThreads().starting > 0; i++) await sleep(5);
    await sleep(20);
  };

  const gatewayTurn = async (text: string): Promise<Marks> => {
    written.clear();
    answered.clear();
    const t0 = performance.now();
    let ack = Number.NaN;
    let first = Number.NaN;
    let answer = "";
    const request = {
      model: "scripted-model",
      instructions: INSTRUCTIONS,
      history,
      input: [{ type: "text" as const, text }],
    };
    for await (const e of backend.stream(request, { signal: new AbortController().signal })) {
      if (e.type === "stream-start") ack = performance.now();
      if (e.type === "text-delta") {
        if (Number.isNaN(first)) first = performance.now();
        answer += e.delta;
      }
      if (e.type === "error") throw e.error;
    }
    const end = performance.now();
    if (answer !== CHUNKS.join("")) throw new Error(`gateway answered "${answer}"`);
    const turnSent = written.get("turn/start") ?? Number.NaN;
    const threadSent = written.get("thread/start");
    const onPath = threadSent !== undefined && threadSent < turnSent;
    const injectSent = written.get("thread/inject_items");
    return {
      threadReady: turnSent - t0,
      ...(onPath ? { threadStart: (answered.get("thread/start") ?? Number.NaN) - threadSent } : {}),
      ...(injectSent !== undefined
        ? { inject: (answered.get("thread/inject_items") ?? Number.NaN) - injectSent }
        : {}),
      turnStartAck: (answered.get("turn/start") ?? Number.NaN) - turnSent,
      // The answer as the connection read it, then as the turn's consumer saw it (stream-start).
      ackToConsumer: ack - (answered.get("turn/start") ?? Number.NaN),
      firstDelta: first - (answered.get("turn/start") ?? Number.NaN),
      ttft: first - t0,
      total: end - t0,
    };
  };
  const directTurn = async (text: string): Promise<Marks> => {
    const t = await direct.timedTurn(threadParams, text, injected);
    if (t.answer !== CHUNKS.join("")) throw new Error(`direct answered "${t.answer}"`);
    return {
      threadReady: t.injectedMs,
      threadStart: t.threadStartedMs,
      ...(injected.length > 0 ? { inject: t.injectedMs - t.threadStartedMs } : {}),
      turnStartAck: t.turnStartedMs - t.injectedMs,
      firstDelta: t.firstDeltaMs - t.turnStartedMs,
      ttft: t.firstDeltaMs,
      total: t.completedMs,
    };
  };

  const runs = options.runs ?? 40;
  const samples = { gateway: [] as Marks[], direct: [] as Marks[] };
  let warmHandedOut = 0;
  const loadAverageAtStart = loadavg()[0] ?? Number.NaN;
  try {
    for (let i = -(options.warmupRuns ?? 5); i < runs; i++) {
      const order = i % 2 === 0 ? (["gateway", "direct"] as const) : (["direct", "gateway"] as const);
      for (const side of order) {
        await settle();
        const marks = await (side === "gateway" ? gatewayTurn(`run ${i}`) : directTurn(`run ${i}`));
        if (i >= 0) samples[side].push(marks);
      }
      if (i >= 0 && i % 10 === 9) log(`${i + 1}/${runs} runs`);
    }
    warmHandedOut = backend.warmThreads().handedOut;
  } finally {
    await direct.close();
    await backend.close();
    await provider.close();
    await home.cleanup();
    await rm(scratch, { recursive: true, force: true });
  }
  const gateway = summarize(samples.gateway);
  const directSummary = summarize(samples.direct);
  return {
    runs,
    historyMessages: history.length,
    loadAverage: { start: round(loadAverageAtStart), end: round(loadavg()[0] ?? Number.NaN) },
    warmThreadsPerConfig: options.backend?.warmThreads ?? 1,
    warmThreadsHandedOut: warmHandedOut,
    gateway,
    direct: directSummary,
    ttftRatioOfMedians: round(
      (gateway.ttft?.median ?? Number.NaN) / (directSummary.ttft?.median ?? Number.NaN),
      3,
    ),
  };
};

export type TurnStartBenchResult = Awaited<ReturnType<typeof runTurnStartBench>>;

/** The result as a fixed-width table (phase × side, median / p95 in ms). */
export const formatTurnStartTable = (r: TurnStartBenchResult): string => {
  const cell = (s: { median: number; p95: number } | undefined) =>
    s ? `${s.median.toFixed(1)} / ${s.p95.toFixed(1)}` : "-";
  const rows = [
    ["phase (ms, median / p95)", "gateway", "direct"],
    ...PHASES.map((p) => [p, cell(r.gateway[p]), cell(r.direct[p])]),
  ];
  const widths = rows[0]?.map((_, c) => Math.max(...rows.map((row) => row[c]?.length ?? 0))) ?? [];
  const lines = rows.map((row) => row.map((v, c) => v.padEnd(widths[c] ?? 0)).join("  "));
  return [
    ...lines,
    `ttft gateway / direct (ratio of medians): ${r.ttftRatioOfMedians}  (N=${r.runs} per side, load ${r.loadAverage.start} → ${r.loadAverage.end})`,
  ].join("\n");
};

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const runs = Number(process.argv[2] ?? 40);
  const warm = process.env.WARM_THREADS;
  const result = await runTurnStartBench({
    runs,
    historyMessages: Number(process.env.HISTORY ?? 0),
    log: (line) => process.stderr.write(`${line}\n`),
    backend: {
      ...(warm !== undefined ? { warmThreads: Number(warm) } : {}),
      ...(process.env.NATIVE_TOOLS === "0" ? { nativeTools: false } : {}),
    },
  });
  process.stderr.write(`${formatTurnStartTable(result)}\n`);
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
}
