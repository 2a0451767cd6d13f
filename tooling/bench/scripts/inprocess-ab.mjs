// The HTTP section's workloads without sockets: this checkout's built gateway and BENCH_BEFORE_DIR's
// (built) in one process, `app.fetch` on Request objects, 8 requests at a time, the two alternated;
// CPU µs per request, medians and ranges. The scripted backend's one-batch play is rebuilt here
// (@proxy/core/testing loads vitest, which two trees cannot share). Run after `pnpm run build`:
//   BENCH_BEFORE_DIR=/work/wt/base node tooling/bench/scripts/inprocess-ab.mjs chat-stream-text [requests] [reps]
// "base" is BENCH_BEFORE_DIR, "delta" this checkout. DELTAS_X=10 plays each script ten times over;
// ONLY=base|delta runs one side.
import { pathToFileURL } from "node:url";

const [id, n = "1000", reps = "7"] = process.argv.slice(2);
const load = async (tree, name) => {
  const bench = `${tree}/tooling/bench/dist`;
  const { HTTP_SCENARIOS, scriptFor, GATEWAY_UNDER_TEST } = await import(
    pathToFileURL(`${bench}/scenarios.js`).href
  );
  const gw = await import(pathToFileURL(`${tree}/apps/proxy/dist/index.js`).href);
  const core = await import(pathToFileURL(`${tree}/packages/core/dist/index.js`).href);
  // The scripted backend's one-batch play, without @proxy/core/testing (which loads vitest).
  let turns = 0;
  const scripted = {
    specificationVersion: "v1",
    name: "scripted",
    stream(request) {
      const turn = scriptFor(request);
      const batches = async function* () {
        const batch = [{ type: "stream-start", model: "scripted", turnId: `turn_${turns++}` }];
        const X = Number(process.env.DELTAS_X ?? 1);
        for (let x = 0; x < X; x++)
          for (const delta of turn.chunks) batch.push({ type: "text-delta", delta });
        batch.push({ type: "usage", usage: { inputTokens: 10, outputTokens: 200 } });
        batch.push({ type: "finish", finish: { reason: "stop", raw: "completed" } });
        yield batch;
      };
      return {
        batches,
        [Symbol.asyncIterator]: () => {
          throw new Error("batches only");
        },
      };
    },
    listModels: async () => [{ id: "scripted-model", ownedBy: "proxy" }],
    readiness: () => ({ ready: true, inFlight: 0, queued: 0, capacity: Infinity, restarts: 0 }),
  };
  const app = gw.createApp({
    backend: gw.createGatewayBackend(scripted),
    settings: core.DEFAULT_TURN_SETTINGS,
    logger: gw.createLogger("silent", { pretty: false }),
    metrics: gw.createMetrics(),
    ...GATEWAY_UNDER_TEST,
    apiKeys: [],
    corsOrigins: [],
    version: "bench",
  });
  const sc = HTTP_SCENARIOS.find((s) => s.id === id);
  const body = JSON.stringify(sc.body);
  const one = async () => {
    const res = await app.fetch(
      new Request(`http://x${sc.path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
      }),
    );
    const t = await res.text();
    if (res.status !== 200) throw new Error(t);
    return t.length;
  };
  return { name, one };
};
const HERE = new URL("../../..", import.meta.url).pathname.replace(/\/$/, "");
const BEFORE = process.env.BENCH_BEFORE_DIR ?? "/work/wt/base";
const trees = { base: BEFORE, delta: HERE };
const sides = process.env.ONLY
  ? [await load(trees[process.env.ONLY], process.env.ONLY)]
  : [await load(BEFORE, "base"), await load(HERE, "delta")];
const res = { base: [], delta: [] };
const N = Number(n);
const run = async (side) => {
  const t0 = process.cpuUsage();
  for (let i = 0; i < N; i += 8)
    await Promise.all([
      side.one(),
      side.one(),
      side.one(),
      side.one(),
      side.one(),
      side.one(),
      side.one(),
      side.one(),
    ]);
  const u = process.cpuUsage(t0);
  return (u.user + u.system) / N;
};
for (const s of sides) for (let i = 0; i < 3; i++) await run(s);

for (let r = 0; r < Number(reps); r++)
  for (const s of r % 2 ? [...sides].reverse() : sides) res[s.name].push(await run(s));
const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (xs) => `${med(xs).toFixed(0)} [${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)}]`;
if (process.env.ONLY) console.log(process.env.ONLY, fmt(res[process.env.ONLY]));
else
  console.log(
    `${id.padEnd(24)} base ${fmt(res.base)}  delta ${fmt(res.delta)} µs/req  Δ ${(med(res.delta) - med(res.base)).toFixed(0)} µs (${((med(res.delta) - med(res.base)) / 200).toFixed(2)} µs/delta)`,
  );
