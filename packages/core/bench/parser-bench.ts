/**
 * Sentinel parser throughput, linearity and memory. Not part of the test suite (timings are
 * machine-dependent); run with `pnpm tsx packages/core/bench/parser-bench.ts`, prints JSON.
 * Times are this process's CPU time (user + system), best of 3: on a shared machine wall-clock
 * time mostly measures the neighbours.
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import type { ToolSpec } from "../src/model/tool-spec.js";
import type { SentinelParserOptions } from "../src/parser/index.js";
import { createSentinelParser } from "../src/parser/index.js";
import { createArgumentsValidator } from "../src/tools/index.js";
import { codexChunkSizes, meanOf } from "./codex-chunks.js";

export interface ParserBenchResult {
  readonly node: string;
  /** Throughput in MB/s of CPU time (UTF-16 code units / 1e6 per second), 16-char chunks unless noted. */
  readonly throughputMBps: {
    readonly plainText: number;
    readonly plainText4KiBChunks: number;
    readonly toolHeavy: number;
    readonly nearMissLtEverywhere: number;
    /** Fed in the pieces codex hands the parser: one o200k token per push (see codex-chunks.ts). */
    readonly plainTextCodexChunks: number;
    readonly toolHeavyCodexChunks: number;
  };
  /** Mean chars per push in the codex-chunk figures (one upstream token each). */
  readonly codexChunkChars: { readonly plainText: number; readonly toolHeavy: number };
  /** Time for 4 MB over time for 1 MB, both fed in 1-char chunks (≈4 means linear). */
  readonly linearity: {
    readonly mixedMessage1MBms: number;
    readonly mixedMessage4MBms: number;
    readonly mixedRatio: number;
    readonly singleBlock1MBms: number;
    readonly singleBlock4MBms: number;
    readonly singleBlockRatio: number;
  };
  /** Heap figures in bytes per MB of input (undefined when gc could not be exposed). */
  readonly memory: {
    readonly gcExposed: boolean;
    /** Heap growth while parsing tool-heavy input with no GC forced in between (allocation proxy). */
    readonly heapGrowthPerMB: number | undefined;
    /**
     * Heap retained (after gc) by a parser holding one open 4 MB block, per MB of that block: the
     * raw block, the argument text and the streamed prefix, ~1 byte per ASCII char each.
     */
    readonly retainedOpenBlockPerMB: number | undefined;
  };
}

const TOOLS: ReadonlyArray<ToolSpec> = [
  { name: "write_file", strict: false },
  { name: "search", strict: false, parameters: { type: "object", properties: { q: { type: "string" } } } },
];

const options = (maxBlockBytes?: number): SentinelParserOptions => ({
  tools: new Map(TOOLS.map((t) => [t.name, t])),
  validator: createArgumentsValidator(TOOLS),
  ...(maxBlockBytes === undefined ? {} : { maxBlockBytes }),
});

export const repeatTo = (unit: string, size: number) =>
  unit.repeat(Math.ceil(size / unit.length)).slice(0, size);

export const PROSE =
  "The quick brown fox jumps over the lazy dog; déjà vu 😀 — a list:\n- item one\n- item two\n\n```ts\nconst a = b < c;\n```\n";
export const NEAR_MISS = "a<b <tool_cal <tool_calls> << <use_too x</tool_call> <t<u ";

export function toolHeavy(size: number): string {
  const content = repeatTo('line with "quotes", <tags>, {braces} and \\ slashes\n', 2000);
  const calls = [
    `Let me write that.\n<tool_call>{"name":"write_file","arguments":${JSON.stringify(JSON.stringify({ path: "a.md", content }))}}</tool_call>\n`,
    `<tool_call>{"name":"write_file","arguments":${JSON.stringify({ path: "b.md", content }, null, 2)}}</tool_call>\n`,
    `And search: <tool_call>{"name":"search","arguments":"{\\"q\\":\\"foxes\\"}"}</tool_call>\nDone.\n`,
  ];
  return repeatTo(calls.join(""), size);
}

function singleBlock(size: number): string {
  const head = '<tool_call>{"name":"write_file","arguments":{"path":"big.txt","content":"';
  return `${head}${repeatTo("0123456789abcdef", size - head.length - 16)}"}}</tool_call>`;
}

/** A parser of any build: what the feeding loop needs of it (`pushTo` where the build has it). */
export interface PushFlush {
  push(chunk: string): ReadonlyArray<unknown>;
  flush(): ReadonlyArray<unknown>;
  pushTo?(chunk: string, sink: CountingSink): void;
  flushTo?(sink: CountingSink): void;
}

/** Counts what a parser delivers through its sink API (what the gateway's turn uses). */
export class CountingSink {
  events = 0;
  text(_text: string): void {
    this.events += 1;
  }
  event(_event: unknown): void {
    this.events += 1;
  }
}

/**
 * Feeds `input` in pieces of the listed sizes in turn; the events seen and the CPU µs spent.
 * Through the sink API when the parser has one (the gateway's path), else through `push`'s arrays.
 */
export function feedInPieces(
  parser: PushFlush,
  input: string,
  sizes: ReadonlyArray<number>,
): { readonly events: number; readonly cpuMicros: number } {
  let events = 0;
  const sink = new CountingSink();
  const start = process.cpuUsage();
  if (parser.pushTo !== undefined && parser.flushTo !== undefined) {
    for (let i = 0, k = 0; i < input.length; k = k + 1 === sizes.length ? 0 : k + 1) {
      const end = i + (sizes[k] as number);
      parser.pushTo(input.slice(i, end), sink);
      i = end;
    }
    parser.flushTo(sink);
    events = sink.events;
  } else {
    for (let i = 0, k = 0; i < input.length; k = k + 1 === sizes.length ? 0 : k + 1) {
      const end = i + (sizes[k] as number);
      events += parser.push(input.slice(i, end)).length;
      i = end;
    }
    events += parser.flush().length;
  }
  const used = process.cpuUsage(start);
  return { events, cpuMicros: used.user + used.system };
}

function feed(input: string, chunk: number | ReadonlyArray<number>, maxBlockBytes?: number): number {
  const parser = createSentinelParser(options(maxBlockBytes));
  const sizes = typeof chunk === "number" ? [chunk] : chunk;
  const { events, cpuMicros } = feedInPieces(parser, input, sizes);
  const ms = cpuMicros / 1000;
  if (events === 0) throw new Error("the parser produced no events");
  return ms;
}

/** Best of `runs` (the least disturbed by other processes on a shared machine). */
function best(runs: number, f: () => number): number {
  let min = Number.POSITIVE_INFINITY;
  for (let i = 0; i < runs; i += 1) min = Math.min(min, f());
  return min;
}

const mbps = (chars: number, ms: number) => Math.round((chars / 1e6 / (ms / 1000)) * 10) / 10;
const round = (n: number) => Math.round(n * 100) / 100;

function exposeGc(): (() => void) | undefined {
  const existing = (globalThis as { gc?: () => void }).gc;
  if (existing) return existing;
  try {
    setFlagsFromString("--expose-gc");
    return runInNewContext("gc") as () => void;
  } catch {
    return undefined;
  }
}

/**
 * The figures in the piece sizes codex sends; apart, so that the size lists (~1.3 M entries each)
 * are garbage before the linearity runs.
 */
function codexFigures(prose: string, heavy: string) {
  const proseTokens = codexChunkSizes(prose);
  const heavyTokens = codexChunkSizes(heavy);
  return {
    plainText: mbps(
      prose.length,
      best(3, () => feed(prose, proseTokens)),
    ),
    toolHeavy: mbps(
      heavy.length,
      best(3, () => feed(heavy, heavyTokens)),
    ),
    chunkChars: { plainText: round(meanOf(proseTokens)), toolHeavy: round(meanOf(heavyTokens)) },
  };
}

export async function runParserBench(): Promise<ParserBenchResult> {
  const MB = 1_000_000;
  const prose = repeatTo(PROSE, 4 * MB);
  const heavy = toolHeavy(4 * MB);
  const nearMiss = repeatTo(NEAR_MISS, 4 * MB);
  feed(heavy, 16); // warm-up: JIT and schema compilation

  const fixedChunks = {
    plainText: mbps(
      prose.length,
      best(3, () => feed(prose, 16)),
    ),
    plainText4KiBChunks: mbps(
      prose.length,
      best(3, () => feed(prose, 4096)),
    ),
    toolHeavy: mbps(
      heavy.length,
      best(3, () => feed(heavy, 16)),
    ),
    nearMissLtEverywhere: mbps(
      nearMiss.length,
      best(3, () => feed(nearMiss, 16)),
    ),
  };
  const codex = codexFigures(prose, heavy);
  const throughputMBps = {
    ...fixedChunks,
    plainTextCodexChunks: codex.plainText,
    toolHeavyCodexChunks: codex.toolHeavy,
  };
  const codexChunkChars = codex.chunkChars;

  const mixed1 = best(3, () => feed(heavy.slice(0, MB), 1));
  const mixed4 = best(3, () => feed(heavy, 1));
  const big = 8 * MB;
  const single1 = best(3, () => feed(singleBlock(MB), 1, big));
  const single4 = best(3, () => feed(singleBlock(4 * MB), 1, big));
  const linearity = {
    mixedMessage1MBms: Math.round(mixed1),
    mixedMessage4MBms: Math.round(mixed4),
    mixedRatio: round(mixed4 / mixed1),
    singleBlock1MBms: Math.round(single1),
    singleBlock4MBms: Math.round(single4),
    singleBlockRatio: round(single4 / single1),
  };

  const gc = exposeGc();
  let heapGrowthPerMB: number | undefined;
  let retainedOpenBlockPerMB: number | undefined;
  if (gc) {
    gc();
    const before = process.memoryUsage().heapUsed;
    feed(heavy.slice(0, MB), 64);
    heapGrowthPerMB = Math.max(0, process.memoryUsage().heapUsed - before);
    // One never-closed block, fed as fresh 4 KiB strings (slices of one big input string would
    // share its memory and hide what the parser keeps).
    gc();
    const base = process.memoryUsage().heapUsed;
    const parser = createSentinelParser(options(big));
    parser.push('<tool_call>{"name":"write_file","arguments":{"path":"big.txt","content":"');
    for (let i = 0; i < (4 * MB) / 4096; i += 1)
      parser.push(`${String(i).padStart(16, "0")}${"x".repeat(4080)}`);
    gc();
    retainedOpenBlockPerMB = Math.round((process.memoryUsage().heapUsed - base) / 4);
    parser.flush();
  }
  return {
    node: process.version,
    throughputMBps,
    codexChunkChars,
    linearity,
    memory: { gcExposed: gc !== undefined, heapGrowthPerMB, retainedOpenBlockPerMB },
  };
}

if (process.argv[1]?.endsWith("parser-bench.ts")) {
  runParserBench().then((result) => console.log(JSON.stringify(result, null, 2)));
}
