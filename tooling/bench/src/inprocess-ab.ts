/**
 * An in-process A/B of built gateways' CPU per request: each tree's `createApp` over its own scripted
 * backend (as the HTTP section's "before" child loads it), all in this one process, called through
 * `fetch` without sockets. Batches of requests alternate between the trees (rotated every round, a
 * full GC before each), CPU is this thread's, and the verdict is the paired ratio per round:
 * geometric mean with its 95 % confidence interval, so a slow moment of a shared machine falls on
 * both sides of a pair. The first tree is the reference.
 *   pnpm --filter @proxy/bench build && node --expose-gc tooling/bench/dist/inprocess-ab.js \
 *     /work/wt/base /work/wt/before [--scenario chat-stream-tools] [--rounds 60] [--batch 200] [--concurrency 8]
 */
import { register } from "node:module";
import { basename } from "node:path";

// Core's testing entry (the scripted backend) also exports its contract suites, which import vitest;
// two trees' vitest cannot load in one process, and no suite runs here.
const NO_VITEST = `data:text/javascript,${encodeURIComponent(
  "const f = () => {}; export const describe = f, expect = f, it = f, afterAll = f, beforeAll = f, afterEach = f, beforeEach = f;",
)}`;
register(
  `data:text/javascript,${encodeURIComponent(
    `export const resolve = (s, c, next) => s === "vitest" ? { url: ${JSON.stringify(NO_VITEST)}, shortCircuit: true } : next(s, c);`,
  )}`,
);
const { beforeGatewayApp } = await import("./child/before-gateway.js");
const { checkWorkload } = await import("./http-overhead.js");
const { HTTP_SCENARIOS } = await import("./scenarios.js");
const { median } = await import("./stats.js");

const flag = (name: string, fallback: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
};
const dirs = process.argv
  .slice(2)
  .filter((a, i, all) => !a.startsWith("--") && !all[i - 1]?.startsWith("--"));
const scenario = HTTP_SCENARIOS.find((s) => s.id === flag("scenario", "chat-stream-tools"));
if (dirs.length < 2 || scenario === undefined)
  throw new Error("usage: inprocess-ab.js <tree> <tree>… [--scenario id]");
const ROUNDS = Number(flag("rounds", "60"));
const BATCH = Number(flag("batch", "200"));
const CONCURRENCY = Number(flag("concurrency", "8"));
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error("run with node --expose-gc");

const body = JSON.stringify(scenario.body);
const sides = await Promise.all(
  dirs.map(async (dir) => ({ name: basename(dir), app: await beforeGatewayApp(dir) })),
);
type Side = (typeof sides)[number];
const request = async (side: Side) => {
  const init = { method: "POST", headers: { "content-type": "application/json" }, body };
  return (await side.app.fetch(new Request(`http://bench${scenario.path}`, init))).text();
};
for (const side of sides) checkWorkload(scenario, await request(side));

/** CPU µs per request of one batch, this thread only (GC helper threads are not the gateway's code). */
const batch = async (side: Side) => {
  let left = BATCH;
  const worker = async () => {
    while (left-- > 0) await request(side);
  };
  gc();
  const start = process.threadCpuUsage();
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const used = process.threadCpuUsage(start);
  return (used.user + used.system) / BATCH;
};
for (const side of sides) for (let i = 0; i < 3; i++) await batch(side); // JIT warm-up
const runs = sides.map(() => [] as number[]);
for (let round = 0; round < ROUNDS; round++)
  for (let k = 0; k < sides.length; k++) {
    const i = (k + round) % sides.length;
    runs[i]?.push(await batch(sides[i] as Side));
  }

const reference = runs[0] as number[];
const lines = [`${scenario.id}, ${ROUNDS} rounds of ${BATCH} requests (${CONCURRENCY} at a time):`];
sides.forEach((side, i) => {
  const mine = runs[i] as number[];
  const logs = mine.map((v, r) => Math.log(v / (reference[r] as number)));
  const mean = logs.reduce((a, b) => a + b, 0) / logs.length;
  const sd = Math.sqrt(logs.reduce((a, b) => a + (b - mean) ** 2, 0) / Math.max(1, logs.length - 1));
  const half = (1.96 * sd) / Math.sqrt(logs.length);
  const paired =
    i === 0
      ? "reference"
      : `× ${Math.exp(mean).toFixed(3)} of ${sides[0]?.name} (95 % CI ${Math.exp(mean - half).toFixed(3)}–${Math.exp(mean + half).toFixed(3)})`;
  lines.push(`  ${side.name}: median ${median(mine).toFixed(0)} µs/request, ${paired}`);
});
console.log(lines.join("\n"));
