/**
 * What one streamed chunk costs the adapter. Run: `pnpm --filter @proxy/adapter-openai-compatible bench`
 * (knobs: BENCH_TURNS, BENCH_CHUNKS, BENCH_CONCURRENCY). The scripted upstream runs in the same process,
 * so the end-to-end CPU figure includes the server's side too.
 */
import { o200kEncoding } from "@proxy/core/testing";
import { decodeChatChunk } from "../src/chat-chunk.js";
import { createOpenAICompatibleBackend } from "../src/index.js";
import { startScriptedUpstream } from "../src/testing/index.js";
import { createThinkSplitter } from "../src/think-splitter.js";

const turns = Number(process.env.BENCH_TURNS ?? 200);
const chunksPerTurn = Number(process.env.BENCH_CHUNKS ?? 200);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 8);

const chunk = (content: string) =>
  JSON.stringify({
    id: "chatcmpl-x",
    object: "chat.completion.chunk",
    created: 1,
    model: "m",
    choices: [{ index: 0, delta: { content }, finish_reason: null }],
  });

// 1. The per-chunk hot path without I/O: Schema decode of the data line + the <think> splitter.
const payloads = Array.from({ length: 100_000 }, (_, i) => chunk(i % 50 === 0 ? "<think>" : ` word${i}`));
const splitter = createThinkSplitter();
let t0 = performance.now();
for (const p of payloads) {
  const c = decodeChatChunk(p);
  splitter.push(c?.choices?.[0]?.delta?.content ?? "");
}
const pureUs = ((performance.now() - t0) * 1000) / payloads.length;

// 2. End to end over loopback HTTP with keep-alive.
const words = Array.from({ length: chunksPerTurn }, (_, i) => `tok${i} `);
const upstream = await startScriptedUpstream(() => ({ chunks: words }));
const backend = createOpenAICompatibleBackend({
  tokens: o200kEncoding,
  baseUrl: upstream.url,
  route: "bench",
});
const request = {
  model: "m",
  instructions: "bench",
  history: [],
  input: [{ type: "text" as const, text: "go" }],
};
const runTurn = async () => {
  for await (const _ of backend.stream(request, { signal: new AbortController().signal })) {
    // drain
  }
};
await runTurn(); // warm the connection and the JIT
const cpu0 = process.cpuUsage();
t0 = performance.now();
let next = 0;
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (next++ < turns) await runTurn();
  }),
);
const wallMs = performance.now() - t0;
const cpu = process.cpuUsage(cpu0);
await backend.close();
await upstream.close();

const cpuMs = (cpu.user + cpu.system) / 1000;
console.log(
  JSON.stringify(
    {
      decodeAndSplitUsPerChunk: Number(pureUs.toFixed(2)),
      turns,
      chunksPerTurn,
      concurrency,
      turnsPerSecond: Number(((turns / wallMs) * 1000).toFixed(1)),
      chunksPerSecond: Math.round(((turns * chunksPerTurn) / wallMs) * 1000),
      cpuMsPerTurnIncludingUpstream: Number((cpuMs / turns).toFixed(2)),
      tcpConnections: upstream.connections(),
    },
    null,
    2,
  ),
);
