/**
 * Heap after forced GC (finalizers given time to run) after 1,000, 5,000 and 9,000 gateway requests
 * in process, over the scripted backend: a flat heap means requests leave nothing behind. RSS alone
 * cannot tell (V8 keeps freed pages). Run: `node --expose-gc --import tsx --conditions=@proxy/source
 * src/heap-after-requests.ts` in tooling/bench, `KIND=chat-text|chat-tools|responses-text|responses-text-json`.
 */
import { createBackendStack } from "@proxy/gateway";
import { gatewayApp, scriptedBackend } from "./apps.js";
import { requestBody } from "./scenarios.js";

const app = gatewayApp(createBackendStack({ backend: scriptedBackend() }));
const [api, model, mode] = (process.env.KIND ?? "chat-text").split("-") as [
  "chat" | "responses",
  string,
  string,
];
const one = async () => {
  const res = await app.request(api === "chat" ? "/v1/chat/completions" : "/v1/responses", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(requestBody(api, model === "tools" ? "bench-tools" : "bench-text", mode !== "json")),
  });
  await res.text();
};
const requests = async (n: number) => {
  for (let i = 0; i < n / 4; i++) await Promise.all([one(), one(), one(), one()]);
};
const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error("run with node --expose-gc");
/** Heap in MiB after GC; the waits let FinalizationRegistry callbacks (undici's Request) run. */
const heapMiB = async () => {
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return Math.round((process.memoryUsage().heapUsed / 1048576) * 10) / 10;
};
await requests(1000);
const after1000 = await heapMiB();
await requests(4000);
const after5000 = await heapMiB();
await requests(4000);
const after9000 = await heapMiB();
console.log(JSON.stringify({ kind: process.env.KIND ?? "chat-text", after1000, after5000, after9000 }));
