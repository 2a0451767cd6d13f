/**
 * Before/after throughput of the sentinel parser in one process, alternating the two builds so
 * both see the same machine load. Not part of the test suite; run with
 *   git archive <commit> packages/core | tar -x -C /tmp/parser-old
 *   ln -s "$PWD/packages/core/node_modules" /tmp/parser-old/packages/core/node_modules
 *   pnpm tsx packages/core/bench/parser-ab.ts /tmp/parser-old/packages/core [rounds]
 * Same inputs and chunk sizes as parser-bench.ts; MB/s of CPU time, median of the rounds, each
 * round the best of 3 runs per side (the side that goes first alternates).
 */
import { loadavg } from "node:os";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { ToolSpec } from "../src/model/tool-spec.js";
import type { SentinelParserOptions } from "../src/parser/index.js";
import * as current from "../src/parser/index.js";
import { createArgumentsValidator } from "../src/tools/index.js";
import { codexChunkSizes } from "./codex-chunks.js";
import { feedInPieces, NEAR_MISS, PROSE, type PushFlush, repeatTo, toolHeavy } from "./parser-bench.js";

type Create = (options: SentinelParserOptions) => PushFlush;

/** The floor: a parser that does nothing but answer each piece through the sink (loop, slice, call). */
const noop = (): PushFlush => ({
  push: () => [],
  flush: () => [],
  pushTo: (chunk, sink) => sink.text(chunk),
  flushTo: () => undefined,
});

/** The new build through its array API (`push` / `flush` only). */
const arraysOnly =
  (create: Create): Create =>
  (options) => {
    const parser = create(options);
    return { push: (c) => parser.push(c), flush: () => parser.flush() };
  };

const TOOLS: ReadonlyArray<ToolSpec> = [
  { name: "write_file", strict: false },
  { name: "search", strict: false, parameters: { type: "object", properties: { q: { type: "string" } } } },
];

/** Feeds `input` in pieces of the listed sizes in turn; returns CPU ms. */
function feed(
  create: Create,
  options: SentinelParserOptions,
  input: string,
  sizes: ReadonlyArray<number>,
): number {
  const parser = create(options);
  const { events, cpuMicros } = feedInPieces(parser, input, sizes);
  if (events === 0) throw new Error("the parser produced no events");
  return cpuMicros / 1000;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

async function main() {
  const oldDir = process.argv[2];
  if (oldDir === undefined) throw new Error("usage: parser-ab.ts <old packages/core dir> [rounds]");
  const rounds = Number(process.argv[3] ?? 5);
  const oldParser = (await import(
    pathToFileURL(resolve(oldDir, "src/parser/index.ts")).href
  )) as typeof current;
  const oldTools = (await import(pathToFileURL(resolve(oldDir, "src/tools/index.ts")).href)) as {
    createArgumentsValidator: typeof createArgumentsValidator;
  };
  const sides = [
    {
      name: "old",
      create: oldParser.createSentinelParser as Create,
      validator: oldTools.createArgumentsValidator,
    },
    { name: "new", create: current.createSentinelParser as Create, validator: createArgumentsValidator },
    {
      name: "newArrays",
      create: arraysOnly(current.createSentinelParser as Create),
      validator: createArgumentsValidator,
    },
    { name: "floor", create: noop as Create, validator: createArgumentsValidator },
  ]
    .filter(
      (side) => process.env.AB_SIDES === undefined || process.env.AB_SIDES.split(",").includes(side.name),
    )
    .map((side) => ({
      ...side,
      options: { tools: new Map(TOOLS.map((t) => [t.name, t])), validator: side.validator(TOOLS) },
    }));
  const MB = 1_000_000;
  const prose = repeatTo(PROSE, 4 * MB);
  const heavy = toolHeavy(4 * MB);
  const scenarios = [
    { name: "plainText (16-char chunks)", input: prose, chunk: [16] },
    { name: "plainText4KiBChunks", input: prose, chunk: [4096] },
    { name: "toolHeavy (16)", input: heavy, chunk: [16] },
    { name: "nearMissLtEverywhere (16)", input: repeatTo(NEAR_MISS, 4 * MB), chunk: [16] },
    { name: "toolHeavy (1-char chunks, 1 MB)", input: heavy.slice(0, MB), chunk: [1] },
    { name: "plainTextCodexChunks (tokens)", input: prose, chunk: codexChunkSizes(prose) },
    { name: "toolHeavyCodexChunks (tokens)", input: heavy, chunk: codexChunkSizes(heavy) },
  ];
  console.log(
    `load average at start: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`,
  );
  for (const side of sides) feed(side.create, side.options, heavy, [16]); // warm-up
  for (const sc of scenarios) {
    const mbps: Record<string, number[]> = { old: [], new: [], newArrays: [], floor: [] };
    for (let r = 0; r < rounds; r += 1) {
      for (const side of r % 2 === 0 ? sides : [...sides].reverse()) {
        let ms = Number.POSITIVE_INFINITY;
        for (let k = 0; k < 3; k += 1) ms = Math.min(ms, feed(side.create, side.options, sc.input, sc.chunk));
        mbps[side.name]?.push(sc.input.length / 1e6 / (ms / 1000));
      }
    }
    const o = median(mbps.old ?? []);
    const n = median(mbps.new ?? []);
    const a = median(mbps.newArrays ?? []);
    const f = median(mbps.floor ?? []);
    console.log(
      `${sc.name.padEnd(34)} old ${o.toFixed(1).padStart(7)} MB/s  new ${n.toFixed(1).padStart(7)} MB/s  × ${(n / o).toFixed(2)}  (new push() ${a.toFixed(1)}, floor ${f.toFixed(1)})`,
    );
  }
  console.log(
    `load average at end: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`,
  );
}

main();
