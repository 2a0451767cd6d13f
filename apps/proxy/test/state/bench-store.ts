// Latency of stored responses per store (not a test): `cd apps/proxy && N=300 npx tsx --conditions=@proxy/source test/state/bench-store.ts`.

import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openPostgresStore, openSqliteStore } from "@proxy/adapter-store-sql";
import { startPostgresServer } from "@proxy/adapter-store-sql/testing";
import type { ResponseStore } from "@proxy/core/gateway";
import { createScriptedBackend } from "@proxy/core/testing";
import { serveApp } from "../support/serve-app.js";

const N = Number(process.env.N ?? 300);
const run = async (label: string, store: ResponseStore | undefined) => {
  const served = await serveApp(
    createScriptedBackend(() => ({ chunks: ["Hello ", "there, ", "this is a scripted answer."] })),
    store ? { stored: { store, ttlMs: 86_400_000, maxResponseBytes: 1 << 24, replicaId: "b" } } : {},
  );
  const post = (body: object) =>
    fetch(`${served.url}/v1/responses`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    }).then((r) => r.json() as Promise<{ id: string }>);
  for (let i = 0; i < 20; i++) await post({ model: "m", input: "warm" });
  let t = performance.now();
  for (let i = 0; i < N; i++) await post({ model: "m", input: `question ${i}` });
  const plain = (performance.now() - t) / N;
  let prev: string | undefined;
  t = performance.now();
  if (store)
    for (let i = 0; i < N; i++)
      prev = (await post({ model: "m", input: `turn ${i}`, ...(prev ? { previous_response_id: prev } : {}) }))
        .id;
  const chained = store ? (performance.now() - t) / N : NaN;
  console.log(
    `${label.padEnd(12)} create: ${plain.toFixed(2)} ms/req   chain of ${N} (avg per turn): ${chained.toFixed(2)} ms`,
  );
  await served.close();
  await store?.close();
};
await run("none", undefined);
await run("memory", await openSqliteStore(":memory:"));
await run("sqlite file", await openSqliteStore(join(mkdtempSync(join(tmpdir(), "bench-")), "g.sqlite")));
const pg = await startPostgresServer();
await run("postgres", await openPostgresStore(await pg.createDatabase("bench")));
await pg.stop();
