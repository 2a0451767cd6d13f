import { loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import { setImmediate as tick } from "node:timers/promises";
import {
  CONTENDERS,
  type Contender,
  deltaStream,
  drain,
  type Outcome,
  openStream,
  readOutcome,
  wrapped,
} from "./contenders.js";
import { CORPUS, type CorpusCase, expectedText, normalizeText } from "./corpus.js";

/**
 * `@proxy/ai-sdk` beside `@ai-sdk-tool/parser` in one process, rounds interleaved (the order
 * rotates each round): the correctness corpus under every split, time per pushed delta and MB/s
 * through the AI SDK stream wrapper at 3–4 and 64 characters per delta, one long argument, and the
 * heap each open stream holds.
 */
export interface LibraryPeerConfig {
  readonly rounds: number;
  readonly streams: number;
  readonly throughputKiB: number;
  readonly largeArgumentKiB: ReadonlyArray<number>;
}

export const libraryPeerConfigFromEnv = (env: NodeJS.ProcessEnv): LibraryPeerConfig => {
  const quick = env.BENCH_QUICK === "1";
  return {
    rounds: Number(env.BENCH_LIBRARY_ROUNDS ?? (quick ? 2 : 7)),
    streams: Number(env.BENCH_LIBRARY_STREAMS ?? (quick ? 20 : 200)),
    throughputKiB: quick ? 8 : 64,
    largeArgumentKiB: quick ? [4, 16] : [16, 64],
  };
};

export interface CorpusRow {
  readonly id: string;
  readonly chunkings: number;
  /** Chunkings answered wrong, by contender. */
  readonly wrong: Record<string, number>;
  /** One wrong answer per contender, as seen. */
  readonly example: Record<string, string>;
}

export interface ThroughputRow {
  readonly workload: string;
  readonly pushChars: string;
  readonly bytes: number;
  readonly pushes: number;
  readonly byContender: Record<string, { readonly nsPerPush: number; readonly mbPerSecond: number }>;
}

export interface LibraryPeerResult {
  readonly startedAt: string;
  readonly command: string;
  /** 1-minute load average at the start and end of the section (the machine is shared). */
  readonly load: readonly [number, number];
  readonly config: LibraryPeerConfig;
  readonly contenders: ReadonlyArray<string>;
  readonly corpus: ReadonlyArray<CorpusRow>;
  readonly throughput: ReadonlyArray<ThroughputRow>;
  /** The same workloads through each contender's parser alone (no AI SDK wrapper). */
  readonly parser: ReadonlyArray<ThroughputRow>;
  readonly largeArgument: ReadonlyArray<{ readonly kib: number; readonly ms: Record<string, number> }>;
  readonly memory: {
    readonly streams: number;
    /** Per prefix each open stream was fed: its length and the heap per stream, by contender. */
    readonly rows: ReadonlyArray<{
      readonly what: string;
      readonly chars: number;
      readonly bytesPerStream: Record<string, number>;
    }>;
  };
}

const median = (xs: ReadonlyArray<number>): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[mid] ?? 0) : ((s[mid - 1] ?? 0) + (s[mid] ?? 0)) / 2;
};

/** Every chunking of a case: whole, one code point per delta, and two pieces at every code point. */
const chunkingsOf = (text: string): string[][] => {
  const points = Array.from(text);
  const out: string[][] = [[text], points];
  for (let i = 1; i < points.length; i++) out.push([points.slice(0, i).join(""), points.slice(i).join("")]);
  return out;
};

const sameCalls = (a: Outcome["calls"], b: CorpusCase["calls"]): boolean =>
  JSON.stringify(a) === JSON.stringify(b.map((c) => ({ name: c.name, input: c.input })));

const describe = (o: Outcome, deltas: ReadonlyArray<string>): string => {
  const how =
    deltas.length === 1
      ? "whole"
      : deltas.length === 2
        ? `split at ${Array.from(deltas[0] ?? "").length}`
        : "1 char per delta";
  const text = normalizeText(o.text);
  return `${how}: ${o.calls.length} call(s) ${JSON.stringify(o.calls.map((c) => c.name))}, text ${JSON.stringify(text.length > 60 ? `${text.slice(0, 57)}…` : text)}`;
};

const runCorpus = async (): Promise<CorpusRow[]> => {
  const rows: CorpusRow[] = [];
  for (const c of CORPUS) {
    const chunkings = chunkingsOf(c.text);
    const wrong: Record<string, number> = {};
    const example: Record<string, string> = {};
    for (const contender of CONTENDERS) {
      let deltas: string[] = [];
      const model = wrapped(contender, () => deltaStream(deltas));
      wrong[contender.name] = 0;
      for (const chunking of chunkings) {
        deltas = chunking;
        const outcome = await readOutcome((await openStream(model)).stream);
        if (sameCalls(outcome.calls, c.calls) && normalizeText(outcome.text) === expectedText(c)) continue;
        wrong[contender.name] = (wrong[contender.name] ?? 0) + 1;
        example[contender.name] ??= describe(outcome, chunking);
      }
    }
    rows.push({ id: c.id, chunkings: chunkings.length, wrong, example });
  }
  return rows;
};

const PROSE = "The quick brown fox jumps over the lazy dog while the forecast stays mild and dry. ";

/** About `bytes` of plain prose, or of prose and calls in turn (a tool-heavy reply). */
const workloadText = (kind: "plain" | "tools", bytes: number): string => {
  let text = "";
  for (let i = 0; text.length < bytes; i++)
    text +=
      kind === "plain"
        ? PROSE
        : `Checking city ${i}. <tool_call>{"name":"weather","arguments":{"city":"City number ${i}"}}</tool_call>`;
  return text;
};

/** Deltas of alternately `sizes[0]`, `sizes[1]`, … characters (ASCII text: no pair is split). */
const cut = (text: string, sizes: ReadonlyArray<number>): string[] => {
  const out: string[] = [];
  for (let i = 0, k = 0; i < text.length; k++) {
    const n = sizes[k % sizes.length] ?? 1;
    out.push(text.slice(i, i + n));
    i += n;
  }
  return out;
};

/** Rounds in rotated contender order, after one untimed run each; `run` is one timed unit of work. */
const interleaved = async (
  rounds: number,
  run: (c: Contender) => Promise<unknown>,
): Promise<Record<string, number[]>> => {
  const time = async (c: Contender): Promise<number> => {
    const t = performance.now();
    await run(c);
    return performance.now() - t;
  };
  const times: Record<string, number[]> = Object.fromEntries(CONTENDERS.map((c) => [c.name, []]));
  for (const c of CONTENDERS) await time(c);
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 === 0 ? CONTENDERS : [...CONTENDERS].reverse();
    for (const c of order) times[c.name]?.push(await time(c));
  }
  return times;
};

/** One stream of `deltas` through each contender's wrapped model, wrapped once as a user does. */
const streamsOf = (deltas: ReadonlyArray<string>) => {
  const models = new Map(CONTENDERS.map((c) => [c.name, wrapped(c, () => deltaStream(deltas))] as const));
  return async (c: Contender) => {
    const model = models.get(c.name);
    if (model === undefined) throw new Error(`no model for ${c.name}`);
    return drain((await openStream(model)).stream);
  };
};

const rowOf = (
  workload: string,
  pushChars: string,
  text: string,
  deltas: ReadonlyArray<string>,
  times: Record<string, number[]>,
): ThroughputRow => {
  const byContender: Record<string, { nsPerPush: number; mbPerSecond: number }> = {};
  for (const [name, ms] of Object.entries(times)) {
    const m = median(ms);
    byContender[name] = { nsPerPush: (m * 1e6) / deltas.length, mbPerSecond: text.length / 1e6 / (m / 1000) };
  }
  return { workload, pushChars, bytes: text.length, pushes: deltas.length, byContender };
};

const runThroughput = async (config: LibraryPeerConfig, log: (line: string) => void) => {
  const throughput: ThroughputRow[] = [];
  const parser: ThroughputRow[] = [];
  for (const kind of ["plain", "tools"] as const) {
    const text = workloadText(kind, config.throughputKiB * 1024);
    const workload = kind === "plain" ? "plain text" : "tool-heavy (text and calls in turn)";
    for (const [label, sizes] of [
      ["3–4", [3, 4]],
      ["64", [64]],
    ] as const) {
      const deltas = cut(text, sizes);
      throughput.push(
        rowOf(workload, label, text, deltas, await interleaved(config.rounds, streamsOf(deltas))),
      );
      parser.push(
        rowOf(workload, label, text, deltas, await interleaved(config.rounds, (c) => c.parse(deltas))),
      );
      log(`library-peer: ${kind} text at ${label} chars per delta done`);
    }
  }
  return { throughput, parser };
};

const runLargeArgument = async (config: LibraryPeerConfig, log: (line: string) => void) => {
  const out: LibraryPeerResult["largeArgument"][number][] = [];
  for (const kib of config.largeArgumentKiB) {
    const query = "x".repeat(kib * 1024);
    const deltas = cut(`<tool_call>{"name":"search","arguments":{"query":"${query}"}}</tool_call>`, [16]);
    const times = await interleaved(Math.min(config.rounds, 3), streamsOf(deltas));
    const ms: Record<string, number> = {};
    for (const [name, xs] of Object.entries(times)) ms[name] = median(xs);
    log(`library-peer: ${kib} KiB argument done`);
    out.push({ kib, ms });
  }
  return out;
};

const IN_A_CALL = `Let me check the weather for you. <tool_call>{"name":"weather","arguments":{"city":"Par`;
/** What each open stream has been fed when the heap is read. */
const PREFIXES = [
  { what: "cut inside a call", text: IN_A_CALL },
  { what: "16 KiB of prose, then cut inside a call", text: workloadText("plain", 16 * 1024) + IN_A_CALL },
];

/** Heap per open stream: `n` streams each fed `prefix` (in 4-character deltas) and left open. */
const heapPerStream = async (contender: Contender, n: number, prefix: string): Promise<number> => {
  const gc = (globalThis as { gc?: () => void }).gc;
  const controllers: Array<ReadableStreamDefaultController<{ type: string; [k: string]: unknown }>> = [];
  const model = wrapped(
    contender,
    () =>
      new ReadableStream({
        start(controller) {
          controllers.push(controller);
          controller.enqueue({ type: "stream-start", warnings: [] });
          controller.enqueue({ type: "text-start", id: "t" });
          for (const delta of cut(prefix, [4])) controller.enqueue({ type: "text-delta", id: "t", delta });
        },
      }),
  );
  await openStream(model); // warm-up: compiles, caches
  controllers.length = 0;
  gc?.();
  await tick();
  gc?.();
  const before = process.memoryUsage().heapUsed;
  const reads: Array<Promise<number>> = [];
  for (let i = 0; i < n; i++) reads.push(drain((await openStream(model)).stream));
  for (let i = 0; i < 20; i++) await tick();
  gc?.();
  await tick();
  gc?.();
  const after = process.memoryUsage().heapUsed;
  for (const controller of controllers) {
    controller.enqueue({ type: "text-end", id: "t" });
    controller.close();
  }
  await Promise.all(reads);
  return (after - before) / n;
};

export const runLibraryPeerBench = async (
  config: LibraryPeerConfig,
  log: (line: string) => void,
): Promise<LibraryPeerResult> => {
  const startedAt = new Date().toISOString();
  const loadAtStart = loadavg()[0] ?? 0;
  const corpus = await runCorpus();
  log("library-peer: corpus done");
  const { throughput, parser } = await runThroughput(config, log);
  const largeArgument = await runLargeArgument(config, log);
  const rows: LibraryPeerResult["memory"]["rows"][number][] = [];
  for (const prefix of PREFIXES) {
    const bytesPerStream: Record<string, number> = {};
    for (const round of [0, 1])
      for (const c of round === 0 ? CONTENDERS : [...CONTENDERS].reverse()) {
        const bytes = await heapPerStream(c, config.streams, prefix.text);
        bytesPerStream[c.name] = Math.min(bytesPerStream[c.name] ?? bytes, bytes);
      }
    rows.push({ what: prefix.what, chars: prefix.text.length, bytesPerStream });
  }
  log("library-peer: memory done");
  return {
    startedAt,
    command: "pnpm build && node --expose-gc tooling/bench/dist/library-peer-main.js",
    load: [loadAtStart, loadavg()[0] ?? 0],
    config,
    contenders: CONTENDERS.map((c) => c.name),
    corpus,
    throughput,
    parser,
    largeArgument,
    memory: { streams: config.streams, rows },
  };
};
