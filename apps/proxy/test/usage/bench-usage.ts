/**
 * What usage accounting costs on a SQLite file and on PostgreSQL: a token-limited key's turn written
 * at once (one upsert), one flush of the rows gathered in memory for a second, and the limit
 * check before a limited key's turn (two reads and a conditional upsert).
 * Run: pnpm --filter @proxy/gateway exec tsx --conditions=@proxy/source test/usage/bench-usage.ts
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openPostgresStore, openSqliteStore, type SqlStore } from "@proxy/adapter-store-sql";
import { startPostgresServer } from "@proxy/adapter-store-sql/testing";
import { checkKeyLimits } from "../../src/usage/key-limits.js";

const N = 2000;
const row = (i: number) => ({
  key: `key-${i % 10}`,
  route: `route-${i % 3}`,
  day: "2026-11-27",
  requests: 1,
  inputTokens: 100,
  cachedInputTokens: 20,
  outputTokens: 10,
  reasoningTokens: 2,
  toolCalls: 1,
  webSearches: 0,
  errors: 0,
});

const measure = async (name: string, store: SqlStore) => {
  const times: number[] = [];
  let t0 = performance.now();
  for (let i = 0; i < N; i++) {
    const s = performance.now();
    await store.recordUsage([row(i)], [{ key: row(i).key, minute: 29_000_000 + (i % 2), tokens: 110 }]);
    times.push(performance.now() - s);
  }
  const record = (performance.now() - t0) / N;
  times.sort((a, b) => a - b);
  const worst = times.at(-1) ?? 0;
  const p99 = times[Math.floor(N * 0.99)] ?? 0;
  // Unlimited keys: a second's turns gathered in memory, written as one transaction.
  const batch = Array.from({ length: 200 }, (_, i) => ({ ...row(i), route: `route-${i}` }));
  t0 = performance.now();
  for (let i = 0; i < 20; i++) await store.recordUsage(batch);
  const flush = (performance.now() - t0) / 20;
  const key = { name: "key-1", limits: { rpm: 1_000_000, tpm: 1_000_000_000, tokensPerDay: 1_000_000_000 } };
  t0 = performance.now();
  for (let i = 0; i < N; i++) await checkKeyLimits(store, key, Date.now());
  const check = (performance.now() - t0) / N;
  console.log(
    `${name}: recordUsage ${(record * 1000).toFixed(0)} µs/turn (p99 ${p99.toFixed(2)} ms, worst ${worst.toFixed(2)} ms), flush of 200 rows ${flush.toFixed(1)} ms, limit check ${(check * 1000).toFixed(0)} µs/request`,
  );
};

const dir = await mkdtemp(join(tmpdir(), "bench-usage-"));
const sqlite = await openSqliteStore(join(dir, "gateway.sqlite"));
await measure("SQLite file", sqlite);
await sqlite.close();
await rm(dir, { recursive: true, force: true });
const pg = await startPostgresServer();
const store = await openPostgresStore(await pg.createDatabase("bench"));
await measure("PostgreSQL (local)", store);
await store.close();
await pg.stop();
