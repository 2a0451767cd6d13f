import type { AgentSessionResult } from "./agent-session/agent-report.js";
import type { BeforeBuild } from "./before.js";
import type { runCodexGateway } from "./codex.js";
import type { HttpCell } from "./http-overhead.js";
import type { LibraryPeerResult } from "./library-peer/library-peer-bench.js";
import type { PeerConfig, PeerResult } from "./peer/peer-bench.js";
import type { profileScenario } from "./profile.js";
import type { StreamMemoryResult } from "./stream-memory.js";
import type { HoldbackResult, TtfbResult } from "./ttfb.js";

/** Everything one `pnpm bench` run measured: written as JSON, rendered into docs/benchmarks.md. */
export interface BenchResults {
  readonly version: 1;
  readonly startedAt: string;
  wallSeconds: number;
  readonly command: string;
  readonly config: BenchConfig;
  /** The earlier build compared in the peer and http sections (BENCH_BEFORE_DIR), when there was one. */
  readonly before?: BeforeBuild;
  readonly machine: {
    readonly cpuModel: string;
    readonly cores: number;
    readonly memoryGiB: number;
    readonly node: string;
    readonly platform: string;
    readonly loadAverageAtStart: ReadonlyArray<number>;
    loadAverageAtEnd?: ReadonlyArray<number>;
  };
  http?: { readonly cells: HttpCell[]; readonly payloads: Record<string, unknown> };
  /** The built gateway against Portkey's and a direct call (absent in older results). */
  peer?: PeerResult & { readonly config: PeerConfig };
  /** One profiled load window per server for a few workloads (not part of the measured figures). */
  profiles?: Array<Awaited<ReturnType<typeof profileScenario>>>;
  ttfb?: TtfbResult[];
  holdback?: HoldbackResult[];
  parser?: unknown;
  /** `@proxy/ai-sdk` beside `@ai-sdk-tool/parser` (library-peer/). */
  libraryPeer?: LibraryPeerResult;
  codexGateway?: Awaited<ReturnType<typeof runCodexGateway>>;
  codexAdapter?: unknown;
  /** The 30-turn agent session through the gateway against codex direct (absent in older results). */
  agentSession?: AgentSessionResult;
  streamMemory?: StreamMemoryResult;
  /** Sections that failed, with why: the document says so instead of silently dropping them. */
  readonly failures: Record<string, string>;
}

export interface BenchConfig {
  readonly seconds: number;
  readonly warmupSeconds: number;
  readonly reps: number;
  readonly connections: ReadonlyArray<number>;
  readonly ttfbRequests: number;
  readonly idleStreams: number;
  readonly codex: boolean;
  readonly codexRssAfter: ReadonlyArray<number>;
  readonly codexLatencyTurns: number;
  readonly codexThroughputTurns: number;
  readonly codexFillConcurrency: number;
  /** Rounds of the split codex cold start (absent in older results). */
  readonly codexColdStartReps?: number;
  /** Whole-run time budget; the codex fill towards the last RSS sample stops when it runs out. */
  readonly budgetSeconds: number;
}

const list = (v: string | undefined, fallback: number[]) =>
  v ? v.split(",").map((x) => Number(x.trim())) : fallback;

/** Defaults sized for < 15 min on 2 cores; every knob can be overridden through BENCH_* variables. */
export const configFromEnv = (env: NodeJS.ProcessEnv): BenchConfig => {
  const quick = env.BENCH_QUICK === "1";
  const num = (name: string, full: number, fast: number) => Number(env[name] ?? (quick ? fast : full));
  return {
    seconds: num("BENCH_SECONDS", 2, 0.5),
    warmupSeconds: num("BENCH_WARMUP_SECONDS", 1, 0.3),
    reps: num("BENCH_REPS", 3, 1),
    connections: list(env.BENCH_CONNECTIONS, [1, 16, 64]),
    ttfbRequests: num("BENCH_TTFB_REQUESTS", 200, 20),
    idleStreams: num("BENCH_IDLE_STREAMS", 500, 50),
    codex: env.BENCH_CODEX !== "0",
    codexRssAfter: list(env.BENCH_CODEX_RSS_AFTER, quick ? [30, 60] : [100, 2000]),
    codexLatencyTurns: num("BENCH_CODEX_LATENCY_TURNS", 30, 4),
    codexThroughputTurns: num("BENCH_CODEX_THROUGHPUT_TURNS", 16, 4),
    codexFillConcurrency: num("BENCH_CODEX_FILL_CONCURRENCY", 1, 1),
    codexColdStartReps: num("BENCH_CODEX_COLD_START_REPS", 3, 1),
    // An earlier build beside this one adds about 3 minutes to the peer and http sections.
    budgetSeconds: num("BENCH_BUDGET_SECONDS", env.BENCH_BEFORE_DIR ? 980 : 780, 600),
  };
};
