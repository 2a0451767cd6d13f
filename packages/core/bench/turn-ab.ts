/**
 * Before/after CPU of core's per-delta path in one process: `runTurn` over one backend batch of
 * token-sized text deltas (or the HTTP bench's tool-call deltas), its batches read to the end, the
 * two builds alternated so both see the same machine load. Not part of the test suite; run with
 *   pnpm tsx packages/core/bench/turn-ab.ts <old packages/core dir> [text|tools] [deltas] [rounds]
 * (the old dir as for parser-ab.ts). Prints µs of CPU per turn and per delta, medians of the rounds
 * with their range; the turn's fixed cost (rendering, gate, validator) is included.
 */
import { existsSync } from "node:fs";
import { loadavg } from "node:os";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import * as gateway from "../src/gateway.js";
import * as library from "../src/index.js";

/** Core as one namespace: the library entry and the gateway entry (one file before they were split). */
const current = { ...library, ...gateway };
type Core = typeof current;

const WORDS = [
  "The ",
  "gateway ",
  "adds ",
  "almost ",
  "nothing ",
  "to ",
  "each ",
  "streamed ",
  "token, ",
  "see? ",
];
const block = (city: string) =>
  `<tool_call>{"name":"get_weather","arguments":"{\\"city\\":\\"${city}\\"}"}</tool_call>`;
const toolText = `Let me check the weather.\n${["Paris", "Berlin", "Tokyo"].map(block).join("\n")}`;
const WEATHER = {
  type: "object",
  properties: { city: { type: "string" } },
  required: ["city"],
  additionalProperties: false,
};

const deltasOf = (kind: string, count: number): string[] => {
  if (kind === "text") return Array.from({ length: count }, (_, i) => WORDS[i % WORDS.length] as string);
  const out: string[] = [];
  for (let i = 0; i < toolText.length; i += 6) out.push(toolText.slice(i, i + 6));
  return out;
};

const sideOf = (core: Core, kind: string, deltas: ReadonlyArray<string>) => {
  const backend: gateway.TextBackend = {
    specificationVersion: "v1",
    name: "bench",
    stream: () =>
      core.backendStream(async function* () {
        const batch: gateway.BackendEvent[] = [{ type: "stream-start", model: "bench" }];
        for (const delta of deltas) batch.push({ type: "text-delta", delta });
        batch.push({
          type: "usage",
          usage: { inputTokens: 1, outputTokens: deltas.length, totalTokens: 1 + deltas.length },
        });
        batch.push({ type: "finish", finish: { reason: "stop", raw: "completed" } });
        yield batch;
      }),
    listModels: async () => [],
    readiness: () => ({ ready: true, inFlight: 0, queued: 0, capacity: 1, restarts: 0 }),
  };
  const tools: library.ToolPolicy = {
    tools: kind === "tools" ? [{ name: "get_weather", strict: false, parameters: WEATHER }] : [],
    choice: { type: "auto" },
    parallel: true,
  };
  const deps = {
    backend,
    ids: core.createCountingIdGenerator(),
    tokens: undefined as unknown as library.TokenEncoding,
    schemas: core.createSchemaCache(),
  };
  const request: library.TurnRequest = {
    model: "bench",
    items: [{ type: "message", role: "user", content: [{ type: "text", text: "hi" }] }],
  };
  const settings = { ...core.DEFAULT_TURN_SETTINGS, toolMode: "prompt" as const };
  return async (turns: number): Promise<number> => {
    const start = process.cpuUsage();
    let events = 0;
    for (let t = 0; t < turns; t += 1) {
      const handle = core.runTurn(deps, { request, tools, settings, signal: new AbortController().signal });
      for await (const batch of handle.batches) events += batch.length;
    }
    const used = process.cpuUsage(start);
    if (events === 0) throw new Error("no events");
    return (used.user + used.system) / turns;
  };
};

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

async function main() {
  const oldDir = process.argv[2];
  if (oldDir === undefined)
    throw new Error("usage: turn-ab.ts <old packages/core dir> [text|tools] [deltas] [rounds]");
  const kind = process.argv[3] ?? "text";
  const deltas = deltasOf(kind, Number(process.argv[4] ?? 200));
  const rounds = Number(process.argv[5] ?? 9);
  const entry = (name: string) => import(pathToFileURL(resolve(oldDir, "src", name)).href);
  const oldGateway = existsSync(resolve(oldDir, "src/gateway.ts")) ? await entry("gateway.ts") : {};
  const old = { ...(await entry("index.ts")), ...oldGateway } as Core;
  const sides = [
    { name: "old", run: sideOf(old, kind, deltas) },
    { name: "new", run: sideOf(current, kind, deltas) },
  ];
  console.log(
    `load average at start: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`,
  );
  for (const side of sides) for (let k = 0; k < 3; k += 1) await side.run(500); // warm-up
  const us: Record<string, number[]> = { old: [], new: [] };
  for (let r = 0; r < rounds; r += 1)
    for (const side of r % 2 === 0 ? sides : [...sides].reverse()) us[side.name]?.push(await side.run(1000));
  const line = (name: string) => {
    const xs = us[name] ?? [];
    const m = median(xs);
    return `${name} ${m.toFixed(1)} µs/turn [${Math.min(...xs).toFixed(1)}–${Math.max(...xs).toFixed(1)}], ${(m / deltas.length).toFixed(3)} µs/delta`;
  };
  console.log(`${kind}, ${deltas.length} deltas in one batch: ${line("old")}  |  ${line("new")}`);
  console.log(
    `load average at end: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`,
  );
}

main();
